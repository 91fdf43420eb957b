// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight report --json / --csv: the same numbers as the tables, for
 * scripts.  Field names are part of the interface: add, never rename.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* ---- JSON --------------------------------------------------------------- */

void kmt_json_str(FILE *f, const char *s, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int kmt_name_width(int width, const char *name)
{
	int len = (int)strlen(name);

	return len > width ? len : width;
}

void kmt_rule(int len)
{
	static const char d[] =
		"----------------------------------------------------------------";
	int max = (int)sizeof(d) - 1;

	for (; len > max; len -= max)
		fputs(d, stdout);
	printf("%.*s\n", len, d);
}

void kmt_json_key(FILE *f, bool *first, const char *key)
{
	fprintf(f, "%s\"%s\": ", *first ? "" : ", ", key);
	*first = false;
}

void kmt_json_u64(FILE *f, bool *first, const char *key, uint64_t v)
{
	kmt_json_key(f, first, key);
	fprintf(f, "%" PRIu64, v);
}

void kmt_report_json_head(FILE *f, const char *path, uint64_t first,
			  uint64_t last)
{
	fprintf(f, "{\"kmemflight_report\": %d,\n  \"file\": ",
		KMT_REPORT_JSON_VERSION);
	kmt_json_str(f, path, strlen(path));
	fprintf(f, ",\n  \"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64,
		first, last);
}

static size_t rows_shown(size_t n, const struct report_opts *o)
{
	return o->lines >= 0 && (size_t)o->lines < n ? (size_t)o->lines : n;
}

static void json_rows(FILE *f, const struct kmt_caller *rows, size_t nr, bool ptrs,
		      const struct kmt_symtab *st, const struct report_opts *o)
{
	char name[256];
	size_t i, n = rows_shown(nr, o);

	fputc('[', f);
	for (i = 0; i < n; i++) {
		const struct kmt_caller *c = &rows[i];
		bool first = true;

		fprintf(f, "%s\n    {", i ? "," : "");
		if (!ptrs) {
			kmt_symtab_format(st, c->call_site, o->raw_ip, name, sizeof(name));
			kmt_json_key(f, &first, "callsite");
			kmt_json_str(f, name, strlen(name));
		}
		kmt_json_key(f, &first, ptrs ? "ptr" : "address");
		fprintf(f, "\"0x%" PRIx64 "\"", c->call_site);
		kmt_json_u64(f, &first, "bytes_alloc", c->bytes_alloc);
		kmt_json_u64(f, &first, "bytes_req", c->bytes_req);
		kmt_json_u64(f, &first, "hit", c->hit);
		kmt_json_u64(f, &first, "pingpong", c->pingpong);
		kmt_json_key(f, &first, "frag_pct");
		fprintf(f, "%.6f", kmt_frag(c->bytes_req, c->bytes_alloc));
		fputc('}', f);
	}
	fprintf(f, "%s]", n ? "\n  " : "");
}

static void json_summary(FILE *f, const struct kmt_slab *s)
{
	bool first = true;

	fputc('{', f);
	kmt_json_u64(f, &first, "bytes_req", s->total_req);
	kmt_json_u64(f, &first, "bytes_alloc", s->total_alloc);
	kmt_json_u64(f, &first, "bytes_freed", s->total_freed);
	kmt_json_u64(f, &first, "allocations", s->nr_allocs);
	kmt_json_u64(f, &first, "failed", s->nr_failed);
	kmt_json_u64(f, &first, "frees", s->nr_frees);
	kmt_json_u64(f, &first, "frees_unknown", s->nr_unknown_frees);
	kmt_json_u64(f, &first, "double_traced", s->nr_double_traced);
	kmt_json_u64(f, &first, "repeated", s->nr_repeated);
	kmt_json_u64(f, &first, "repeated_frees", s->nr_repeated_frees);
	kmt_json_u64(f, &first, "cross_cpu", s->nr_cross_cpu);
	kmt_json_u64(f, &first, "cross_node", s->nr_cross_node);
	kmt_json_u64(f, &first, "node_known", s->nr_node_known);
	kmt_json_u64(f, &first, "events", s->nr_events);
	kmt_json_u64(f, &first, "lost", s->lost);
	fputc('}', f);
}

static void json_page(FILE *f, const struct kmt_slab *s)
{
	bool first = true;
	unsigned int o, m;

	fputc('{', f);
	kmt_json_u64(f, &first, "requests", s->pg_requests);
	kmt_json_u64(f, &first, "failures", s->pg_fails);
	kmt_json_u64(f, &first, "bytes_alloc", s->pg_bytes_alloc);
	kmt_json_u64(f, &first, "frees", s->pg_frees);
	kmt_json_u64(f, &first, "frees_unmatched", s->pg_free_unmatched);
	kmt_json_u64(f, &first, "bytes_freed", s->pg_bytes_freed);
	kmt_json_u64(f, &first, "frees_batched", s->pg_frees_batched);
	kmt_json_u64(f, &first, "with_stack", s->pg_with_stack);
	kmt_json_key(f, &first, "order_migratetype");
	fputc('[', f);
	for (o = 0; o < KMT_PG_ORDERS; o++) {
		fprintf(f, "%s[", o ? ", " : "");
		for (m = 0; m < KMT_PG_MT_COLS; m++)
			fprintf(f, "%s%" PRIu64, m ? ", " : "", s->pg_order_mt[o][m]);
		fputc(']', f);
	}
	fprintf(f, "]}");
}

void kmt_cache_label(const struct kmt_trace *t, const struct kmt_live_cache *c,
		     char *buf, size_t size)
{
	kmt_cache_name(t, c->cache, c->size, buf, size);
}

static void json_live(FILE *f, const struct kmt_trace *t, const struct kmt_slab *s,
		      const struct kmt_symtab *st, const struct report_opts *o)
{
	static const char *const life[KMT_LIFE_BUCKETS] = {
		"lt_1us", "lt_10us", "lt_100us", "lt_1ms", "lt_10ms", "lt_100ms",
		"lt_1s", "lt_10s", "ge_10s",
	};
	struct kmt_caller *live = kmt_slab_live_sorted(s);
	char name[256];
	bool first = true, f2;
	size_t i, n = 0, shown;
	unsigned int b;

	fputc('{', f);
	kmt_json_u64(f, &first, "at_ns", s->last_ts);
	kmt_json_u64(f, &first, "retained_bytes", s->live_bytes);
	kmt_json_u64(f, &first, "retained_objects", s->live_objs);
	kmt_json_u64(f, &first, "untraced_frees", s->nr_untraced_frees);
	kmt_json_u64(f, &first, "untraced_free_bytes", s->untraced_free_bytes);
	kmt_json_key(f, &first, "callsites");
	fputc('[', f);
	for (i = 0; live && i < s->nr_callers && live[i].live_bytes; i++)
		n++;
	shown = rows_shown(n, o);
	for (i = 0; i < shown; i++) {
		const struct kmt_caller *c = &live[i];

		kmt_symtab_format(st, c->call_site, o->raw_ip, name, sizeof(name));
		f2 = true;
		fprintf(f, "%s\n    {", i ? "," : "");
		kmt_json_key(f, &f2, "callsite");
		kmt_json_str(f, name, strlen(name));
		kmt_json_key(f, &f2, "address");
		fprintf(f, "\"0x%" PRIx64 "\"", c->call_site);
		kmt_json_u64(f, &f2, "retained_bytes", c->live_bytes);
		kmt_json_u64(f, &f2, "retained_objects", c->live_objs);
		kmt_json_u64(f, &f2, "bytes_alloc", c->bytes_alloc);
		kmt_json_u64(f, &f2, "transient_bytes", c->bytes_alloc - c->live_bytes);
		fputc('}', f);
	}
	fprintf(f, "%s]", shown ? "\n  " : "");
	kmt_json_key(f, &first, "caches");
	fputc('[', f);
	shown = rows_shown(s->nr_live_caches, o);
	for (i = 0; i < shown; i++) {
		kmt_cache_label(t, &s->live_caches[i], name, sizeof(name));
		f2 = true;
		fprintf(f, "%s\n    {", i ? "," : "");
		kmt_json_key(f, &f2, "cache");
		kmt_json_str(f, name, strlen(name));
		kmt_json_u64(f, &f2, "retained_bytes", s->live_caches[i].bytes);
		kmt_json_u64(f, &f2, "retained_objects", s->live_caches[i].objs);
		fputc('}', f);
	}
	fprintf(f, "%s]", shown ? "\n  " : "");
	kmt_json_u64(f, &first, "pages_retained_blocks", s->pg_live_blocks);
	kmt_json_u64(f, &first, "pages_retained_bytes", s->pg_live_bytes);
	if (t->has_buffers) {
		bool f3 = true;

		kmt_json_key(f, &first, "recorder");
		fputc('{', f);
		kmt_json_u64(f, &f3, "object_bytes", s->rec_slab_bytes);
		kmt_json_u64(f, &f3, "objects", s->rec_slab_objs);
		kmt_json_u64(f, &f3, "page_bytes", s->rec_page_bytes);
		kmt_json_u64(f, &f3, "buffer_bytes", kmt_trace_buffer_bytes(t));
		kmt_json_u64(f, &f3, "buffer_bytes_in_trace", s->rec_buffer_bytes);
		fputc('}', f);
	}
	kmt_json_key(f, &first, "pages_retained_by_caller");
	fputc('[', f);
	shown = s->pg_with_stack ? rows_shown(s->nr_live_psites, o) : 0;
	for (i = 0; i < shown; i++) {
		const struct kmt_live_psite *p = &s->live_psites[i];

		f2 = true;
		fprintf(f, "%s\n    {", i ? "," : "");
		kmt_json_key(f, &f2, "callsite");
		if (p->site) {
			kmt_symtab_format(st, p->site, o->raw_ip, name, sizeof(name));
			kmt_json_str(f, name, strlen(name));
		} else {
			fputs("null", f);
		}
		kmt_json_u64(f, &f2, "retained_bytes", p->bytes);
		kmt_json_u64(f, &f2, "retained_blocks", p->blocks);
		fputc('}', f);
	}
	fprintf(f, "%s]", shown ? "\n  " : "");
	if (s->vm_allocs) {
		kmt_json_u64(f, &first, "vmalloc_retained_areas", s->vm_live_areas);
		kmt_json_u64(f, &first, "vmalloc_retained_bytes", s->vm_live_bytes);
		kmt_json_key(f, &first, "vmalloc_retained_by_caller");
		fputc('[', f);
		shown = rows_shown(s->nr_live_vsites, o);
		for (i = 0; i < shown; i++) {
			const struct kmt_live_vsite *v = &s->live_vsites[i];

			f2 = true;
			fprintf(f, "%s\n    {", i ? "," : "");
			kmt_json_key(f, &f2, "caller");
			if (v->caller) {
				kmt_symtab_format(st, v->caller, o->raw_ip, name,
						  sizeof(name));
				kmt_json_str(f, name, strlen(name));
			} else {
				fputs("null", f);
			}
			kmt_json_u64(f, &f2, "retained_bytes", v->bytes);
			kmt_json_u64(f, &f2, "areas", v->areas);
			fputc('}', f);
		}
		fprintf(f, "%s]", shown ? "\n  " : "");
	}
	if (s->nr_wrappers || s->nr_via) {
		kmt_json_u64(f, &first, "allocations_via_wrappers", s->nr_via);
		kmt_json_key(f, &first, "wrappers");
		fputc('[', f);
		for (i = 0; i < s->nr_wrappers; i++) {
			f2 = true;
			fprintf(f, "%s{", i ? ", " : "");
			kmt_json_key(f, &f2, "name");
			kmt_json_str(f, s->wrappers[i].name, s->wrappers[i].name_len);
			kmt_json_u64(f, &f2, "allocations", s->wrappers[i].hits);
			fputc('}', f);
		}
		fputc(']', f);
	}
	kmt_json_key(f, &first, "pages_retained_by_order");
	fputc('[', f);
	for (b = 0; b < KMT_PG_ORDERS; b++)
		fprintf(f, "%s%" PRIu64, b ? ", " : "", s->pg_live_order[b]);
	fputc(']', f);
	kmt_json_key(f, &first, "lifetime");
	fputc('{', f);
	f2 = true;
	for (b = 0; b < KMT_LIFE_BUCKETS; b++)
		kmt_json_u64(f, &f2, life[b], s->lifetime[b]);
	fprintf(f, "}}");
	free(live);
}

static void json_stats(FILE *f, bool *first, const struct kmt_phase_stats *p)
{
	kmt_json_u64(f, first, "slab_alloc", p->slab_alloc);
	kmt_json_u64(f, first, "slab_retained", p->slab_retained);
	kmt_json_u64(f, first, "page_alloc", p->page_alloc);
	kmt_json_u64(f, first, "page_retained", p->page_retained);
	kmt_json_u64(f, first, "events", p->events);
}

/* Who allocated: by process name or by unit, as report --phase prints. */
static void json_who(FILE *f, const char *table, const char *key,
		     const struct kmt_who_row *r, size_t nr,
		     const struct report_opts *o)
{
	size_t i, n = rows_shown(nr, o);
	bool first;

	fprintf(f, ", \"%s\": [", table);
	for (i = 0; i < n; i++) {
		first = true;
		fprintf(f, "%s\n    {", i ? "," : "");
		kmt_json_key(f, &first, key);
		kmt_json_str(f, r[i].name, r[i].name_len);
		json_stats(f, &first, &r[i].st);
		fputc('}', f);
	}
	fprintf(f, "%s]", n ? "\n  " : "");
}

static void json_phases(FILE *f, const struct kmt_slab *s,
			const struct kmt_symtab *st, const struct report_opts *o)
{
	char name[256];
	size_t i, n;
	bool first;

	fputc('[', f);
	for (i = 0; i < s->nr_phases; i++) {
		const struct kmt_phase *p = &s->phases[i];

		first = true;
		fprintf(f, "%s\n    {", i ? "," : "");
		kmt_json_key(f, &first, "phase");
		kmt_json_str(f, p->name, p->name_len);
		kmt_json_key(f, &first, "kind");
		fprintf(f, "\"%s\"", p->exec ? "exec" : i ? "level" : "early");
		kmt_json_u64(f, &first, "start_ns", p->start);
		json_stats(f, &first, &p->st);
		fputc('}', f);
	}
	fprintf(f, "%s], \"initcalls\": [", s->nr_phases ? "\n  " : "");
	n = rows_shown(s->nr_initcalls, o);
	for (i = 0; i < n; i++) {
		const struct kmt_initcall *c = &s->initcalls[i];
		const struct kmt_phase *p = &s->phases[c->phase];

		kmt_symtab_format(st, c->fn, o->raw_ip, name, sizeof(name));
		first = true;
		fprintf(f, "%s\n    {", i ? "," : "");
		kmt_json_key(f, &first, "initcall");
		kmt_json_str(f, name, strlen(name));
		kmt_json_key(f, &first, "level");
		kmt_json_str(f, p->name, p->name_len);
		kmt_json_u64(f, &first, "start_ns", c->start);
		kmt_json_u64(f, &first, "duration_ns", c->ns);
		kmt_json_key(f, &first, "ret");
		fprintf(f, "%d", c->ret);
		json_stats(f, &first, &c->st);
		fputc('}', f);
	}
	fprintf(f, "%s]", n ? "\n  " : "");
	if (!s->has_tasks)
		return;
	json_who(f, "processes", "process", s->by_comm, s->nr_by_comm, o);
	json_who(f, "units", "unit", s->by_unit, s->nr_by_unit, o);
}

/* The page table by caller, or with @pfns by page frame. */
static void json_page_rows(FILE *f, const struct kmt_trace *t,
			   const struct kmt_slab *s, bool pfns,
			   const struct kmt_symtab *st, const struct report_opts *o)
{
	const struct kmt_page_caller *rows = pfns ? s->ppages : s->pcallers;
	char name[256], gfp[256];
	size_t i, n = rows_shown(pfns ? s->nr_ppages : s->nr_pcallers, o);
	bool first;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		const struct kmt_page_caller *c = &rows[i];

		first = true;
		fprintf(f, "%s\n    {", i ? "," : "");
		if (!pfns) {
			kmt_json_key(f, &first, "callsite");
			if (c->site) {
				kmt_symtab_format(st, c->site, o->raw_ip, name, sizeof(name));
				kmt_json_str(f, name, strlen(name));
			} else {
				fputs("null", f);
			}
		}
		kmt_json_key(f, &first, pfns ? "pfn" : "address");
		fprintf(f, "\"0x%" PRIx64 "\"", c->site);
		kmt_json_u64(f, &first, "bytes_alloc", c->bytes);
		kmt_json_u64(f, &first, "hit", c->hit);
		kmt_json_u64(f, &first, "order", c->order);
		kmt_json_key(f, &first, "migratetype");
		fprintf(f, "%d", c->migratetype);
		kmt_json_u64(f, &first, "gfp", c->gfp);
		kmt_gfp_format(t, c->gfp, gfp, sizeof(gfp));
		kmt_json_key(f, &first, "gfp_names");
		kmt_json_str(f, gfp, strlen(gfp));
		fputc('}', f);
	}
	fprintf(f, "%s]", n ? "\n  " : "");
}

void kmt_report_json(FILE *f, const struct kmt_trace *t, const struct kmt_slab *s,
		     const struct kmt_symtab *st, const struct report_opts *o)
{
	kmt_report_json_head(f, o->path, s->first_ts, s->last_ts);
	if (o->phase) {
		fprintf(f, ",\n  \"phases\": ");
		json_phases(f, s, st, o);
	}
	if (o->live) {
		fprintf(f, ",\n  \"live\": ");
		json_live(f, t, s, st, o);
	}
	if (o->slab && o->caller) {
		fprintf(f, ",\n  \"callers\": ");
		json_rows(f, s->callers, s->nr_callers, false, st, o);
	}
	if (o->slab && o->alloc) {
		fprintf(f, ",\n  \"allocs\": ");
		json_rows(f, s->ptrs, s->nr_ptrs, true, st, o);
	}
	if (o->slab) {
		fprintf(f, ",\n  \"slab_summary\": ");
		json_summary(f, s);
	}
	if (o->page && o->caller) {
		fprintf(f, ",\n  \"page_callers\": ");
		json_page_rows(f, t, s, false, st, o);
	}
	if (o->page && o->alloc) {
		fprintf(f, ",\n  \"page_frames\": ");
		json_page_rows(f, t, s, true, st, o);
	}
	if (o->page) {
		fprintf(f, ",\n  \"page_summary\": ");
		json_page(f, s);
	}
	fprintf(f, "\n}\n");
}

/* ---- CSV ---------------------------------------------------------------- */

/* RFC 4180: quote a field that holds a comma, a quote or a line break. */
static void csv_str(FILE *f, const char *s, size_t len)
{
	size_t i;

	if (!memchr(s, ',', len) && !memchr(s, '"', len) &&
	    !memchr(s, '\n', len) && !memchr(s, '\r', len)) {
		fwrite(s, 1, len, f);
		return;
	}
	fputc('"', f);
	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

static void csv_who(FILE *f, const char *table, const char *key,
		    const struct kmt_who_row *r, size_t nr,
		    const struct report_opts *o)
{
	size_t i, n = rows_shown(nr, o);

	fprintf(f, "\n# table: %s\n%s,slab_alloc,slab_retained,page_alloc,page_retained,events\n",
		table, key);
	for (i = 0; i < n; i++) {
		csv_str(f, r[i].name, r[i].name_len);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			r[i].st.slab_alloc, r[i].st.slab_retained, r[i].st.page_alloc,
			r[i].st.page_retained, r[i].st.events);
	}
}

static void csv_rows(FILE *f, const char *table, const struct kmt_caller *rows,
		     size_t nr, bool ptrs, const struct kmt_symtab *st,
		     const struct report_opts *o)
{
	char name[256];
	size_t i, n = rows_shown(nr, o);

	fprintf(f, "# table: %s\n%s,bytes_alloc,bytes_req,hit,pingpong,frag_pct\n",
		table, ptrs ? "ptr" : "callsite,address");
	for (i = 0; i < n; i++) {
		const struct kmt_caller *c = &rows[i];

		if (!ptrs) {
			kmt_symtab_format(st, c->call_site, o->raw_ip, name, sizeof(name));
			csv_str(f, name, strlen(name));
			fputc(',', f);
		}
		fprintf(f, "0x%" PRIx64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%.6f\n", c->call_site, c->bytes_alloc, c->bytes_req, c->hit,
			c->pingpong, kmt_frag(c->bytes_req, c->bytes_alloc));
	}
}

/* The page table by caller, or with @pfns by page frame. */
static void csv_page_rows(FILE *f, const struct kmt_trace *t,
			  const struct kmt_slab *s, bool pfns, bool sep,
			  const struct kmt_symtab *st, const struct report_opts *o)
{
	const struct kmt_page_caller *rows = pfns ? s->ppages : s->pcallers;
	char name[256], gfp[256];
	size_t i, n = rows_shown(pfns ? s->nr_ppages : s->nr_pcallers, o);

	fprintf(f, "%s# table: %s\n%s,bytes_alloc,hit,order,migratetype,gfp,gfp_names\n",
		sep ? "\n" : "", pfns ? "page_frames" : "page_callers",
		pfns ? "pfn" : "callsite,address");
	for (i = 0; i < n; i++) {
		const struct kmt_page_caller *c = &rows[i];

		if (!pfns) {
			if (c->site) {
				kmt_symtab_format(st, c->site, o->raw_ip, name, sizeof(name));
				csv_str(f, name, strlen(name));
			}
			fputc(',', f);
		}
		kmt_gfp_format(t, c->gfp, gfp, sizeof(gfp));
		fprintf(f, "0x%" PRIx64 ",%" PRIu64 ",%" PRIu64 ",%u,%d,%" PRIu64 ",",
			c->site, c->bytes, c->hit, c->order, c->migratetype, c->gfp);
		csv_str(f, gfp, strlen(gfp));
		fputc('\n', f);
	}
}

void kmt_report_csv(FILE *f, const struct kmt_trace *t, const struct kmt_slab *s,
		    const struct kmt_symtab *st, const struct report_opts *o)
{
	char name[256];
	bool sep = false;
	size_t i, n;

	if (o->phase) {
		fprintf(f, "# table: phases\nphase,kind,start_ns,slab_alloc,slab_retained,page_alloc,page_retained,events\n");
		for (i = 0; i < s->nr_phases; i++) {
			const struct kmt_phase *p = &s->phases[i];

			csv_str(f, p->name, p->name_len);
			fprintf(f, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 "\n",
				p->exec ? "exec" : i ? "level" : "early", p->start,
				p->st.slab_alloc, p->st.slab_retained, p->st.page_alloc,
				p->st.page_retained, p->st.events);
		}
		fprintf(f, "\n# table: initcalls\ninitcall,level,start_ns,duration_ns,ret,slab_alloc,slab_retained,page_alloc,page_retained,events\n");
		n = rows_shown(s->nr_initcalls, o);
		for (i = 0; i < n; i++) {
			const struct kmt_initcall *c = &s->initcalls[i];
			const struct kmt_phase *p = &s->phases[c->phase];

			kmt_symtab_format(st, c->fn, o->raw_ip, name, sizeof(name));
			csv_str(f, name, strlen(name));
			fputc(',', f);
			csv_str(f, p->name, p->name_len);
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", c->start, c->ns,
				c->ret, c->st.slab_alloc, c->st.slab_retained,
				c->st.page_alloc, c->st.page_retained, c->st.events);
		}
		if (s->has_tasks) {
			csv_who(f, "processes", "process", s->by_comm, s->nr_by_comm, o);
			csv_who(f, "units", "unit", s->by_unit, s->nr_by_unit, o);
		}
		sep = true;
	}
	if (o->live) {
		struct kmt_caller *live = kmt_slab_live_sorted(s);

		fprintf(f, "%s# table: live_callsites\ncallsite,address,retained_bytes,retained_objects,bytes_alloc,transient_bytes\n",
			sep ? "\n" : "");
		for (i = 0, n = 0; live && i < s->nr_callers && live[i].live_bytes; i++)
			n++;
		n = rows_shown(n, o);
		for (i = 0; i < n; i++) {
			const struct kmt_caller *c = &live[i];

			kmt_symtab_format(st, c->call_site, o->raw_ip, name, sizeof(name));
			csv_str(f, name, strlen(name));
			fprintf(f, ",0x%" PRIx64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 "\n", c->call_site, c->live_bytes, c->live_objs,
				c->bytes_alloc, c->bytes_alloc - c->live_bytes);
		}
		fprintf(f, "\n# table: live_caches\ncache,retained_bytes,retained_objects\n");
		n = rows_shown(s->nr_live_caches, o);
		for (i = 0; i < n; i++) {
			kmt_cache_label(t, &s->live_caches[i], name, sizeof(name));
			csv_str(f, name, strlen(name));
			fprintf(f, ",%" PRIu64 ",%" PRIu64 "\n", s->live_caches[i].bytes,
				s->live_caches[i].objs);
		}
		free(live);
		sep = true;
	}
	if (o->slab && o->caller) {
		if (sep)
			fputc('\n', f);
		csv_rows(f, "callers", s->callers, s->nr_callers, false, st, o);
		sep = true;
	}
	if (o->slab && o->alloc) {
		if (sep)
			fputc('\n', f);
		csv_rows(f, "allocs", s->ptrs, s->nr_ptrs, true, st, o);
		sep = true;
	}
	if (o->page && o->caller) {
		csv_page_rows(f, t, s, false, sep, st, o);
		sep = true;
	}
	if (o->page && o->alloc) {
		csv_page_rows(f, t, s, true, sep, st, o);
		sep = true;
	}
	if (o->page) {
		unsigned int ord, m;

		fprintf(f, "%s# table: page_order_migratetype\norder,unmovable,movable,reclaimable,highatomic,cma_isolate\n",
			sep ? "\n" : "");
		for (ord = 0; ord < KMT_PG_ORDERS; ord++) {
			fprintf(f, "%u", ord);
			for (m = 0; m < KMT_PG_MT_COLS; m++)
				fprintf(f, ",%" PRIu64, s->pg_order_mt[ord][m]);
			fputc('\n', f);
		}
	}
}

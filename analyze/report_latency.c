// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight report --latency: direct reclaim, compaction, shrinker and
 * allocation stall latencies, the episodes at or above a threshold with
 * the allocation behind them, and a histogram per kind.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "report.h"

static const char *const kind_names[KMT_LAT_KINDS] = {
	[KMT_LAT_RECLAIM] = "direct reclaim",
	[KMT_LAT_COMPACT] = "compaction (zone)",
	[KMT_LAT_SHRINK] = "shrinker call",
	[KMT_LAT_STALL] = "allocation stall",
};

static const char *const titles[KMT_LAT_KINDS] = {
	[KMT_LAT_RECLAIM] = "Direct reclaims",
	[KMT_LAT_COMPACT] = "Zone compactions",
	[KMT_LAT_SHRINK] = "Shrinker calls",
	[KMT_LAT_STALL] = "Allocation stalls",
};

static const char dashes[] =
	"--------------------------------------------------------------------"
	"--------------------------------------------------------------------";

static void fmt_us(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void fmt_s(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u,
		 ns % 1000000000u / 1000u);
}

static void fmt_site(const struct kmt_symtab *st, const struct kmt_lat_alloc *a,
		     bool raw, char *buf, size_t size)
{
	if (a->site)
		kmt_symtab_format(st, a->site, raw, buf, size);
	else
		snprintf(buf, size, "(unknown)");
}

static bool kind_recorded(const struct kmt_latency *l, enum kmt_lat_kind k)
{
	uint32_t rec = 1u << KMT_GROUP_RECLAIM, cmp = 1u << KMT_GROUP_COMPACTION;

	switch (k) {
	case KMT_LAT_RECLAIM:
	case KMT_LAT_SHRINK:
		return l->groups & rec;
	case KMT_LAT_COMPACT:
		return l->groups & cmp;
	default:
		return (l->groups & (rec | cmp)) &&
		       (l->groups & (1u << KMT_GROUP_KMEM));
	}
}

static void print_kinds(const struct kmt_latency *l)
{
	char total[32], max[32];
	unsigned int k;

	printf("%.96s\n", dashes);
	printf(" %-18s | %9s | %9s | %14s | %14s | %s\n", "Kind", "Episodes",
	       "Above", "Total us", "Max us", "Unpaired");
	printf("%.96s\n", dashes);
	for (k = 0; k < KMT_LAT_KINDS; k++) {
		if (!kind_recorded(l, k)) {
			printf(" %-18s | (not recorded)\n", kind_names[k]);
			continue;
		}
		fmt_us(total, sizeof(total), l->kind[k].total_ns);
		fmt_us(max, sizeof(max), l->kind[k].max_ns);
		printf(" %-18s | %9" PRIu64 " | %9" PRIu64 " | %14s | %14s | %" PRIu64 "\n",
		       kind_names[k], l->kind[k].count, l->kind[k].above, total, max,
		       l->kind[k].unpaired);
	}
	printf("%.96s\n", dashes);
}

/* Title of the episodes of @kind at or above the threshold. */
static void print_header(enum kmt_lat_kind kind, const struct kmt_latency *l)
{
	char thr[32];

	fmt_us(thr, sizeof(thr), l->threshold);
	printf("\n%s at or above %s us, slowest first\n", titles[kind], thr);
}

static bool shown(const struct kmt_latency *l, const struct kmt_lat_episode *e,
		  enum kmt_lat_kind kind)
{
	return e->kind == kind && e->ns >= l->threshold;
}

static bool more_rows(const struct report_opts *o, size_t n)
{
	return o->lines >= 0 && n >= (size_t)o->lines;
}

/* What a row printer needs besides its episode. */
struct row_ctx {
	const struct kmt_latency *l;
	const struct kmt_trace *t;
	const struct kmt_symtab *st;
	const struct report_opts *o;
};

/* One episode's row, after its start time and latency. */
typedef void (*row_fn)(const struct row_ctx *c, const struct kmt_lat_episode *e,
		       const char *start, const char *lat);

/*
 * The episodes of @kind at or above the threshold, slowest first, under
 * the column titles @head and rules @width wide; -l cuts the list.
 */
static void print_episodes(const struct row_ctx *c, enum kmt_lat_kind kind,
			   int width, const char *head, row_fn row)
{
	char start[32], lat[32];
	size_t i, n = 0;

	print_header(kind, c->l);
	printf("%.*s\n%s\n%.*s\n", width, dashes, head, width, dashes);
	for (i = 0; i < c->l->nr_ep; i++) {
		const struct kmt_lat_episode *e = &c->l->ep[i];

		if (!shown(c->l, e, kind))
			continue;
		if (more_rows(c->o, n++)) {
			printf(" ...\n");
			break;
		}
		fmt_s(start, sizeof(start), e->start);
		fmt_us(lat, sizeof(lat), e->ns);
		row(c, e, start, lat);
	}
	if (!n)
		printf(" (none)\n");
}

static void reclaim_row(const struct row_ctx *c, const struct kmt_lat_episode *e,
			const char *start, const char *lat)
{
	char gfp[160], site[256], shr[32], calls[48];

	fmt_us(shr, sizeof(shr), e->shrink_ns);
	kmt_gfp_format(c->t, e->a.gfp, gfp, sizeof(gfp));
	fmt_site(c->st, &e->a, c->o->raw_ip, site, sizeof(site));
	snprintf(calls, sizeof(calls), "%s (%u)", shr, e->shrinks);
	printf(" %-12s | %12s | %7u | %-15s | %5u | %-34s | %9" PRIu64
	       " | %9" PRIu64 " | %-20s | %s\n", start, lat, e->pid, e->a.comm,
	       e->a.order, site, e->nr_reclaimed, e->lru_scanned, calls, gfp);
}

static void print_reclaim(const struct row_ctx *c)
{
	char head[256];

	snprintf(head, sizeof(head),
		 " %-12s | %12s | %7s | %-15s | %5s | %-34s | %9s | %9s | %-20s | %s",
		 "Start s", "Latency us", "Pid", "Task", "Order", "Callsite",
		 "Reclaimed", "Scanned", "Shrinkers us (calls)", "GFP flags");
	print_episodes(c, KMT_LAT_RECLAIM, 150, head, reclaim_row);
}

static void compact_row(const struct row_ctx *c, const struct kmt_lat_episode *e,
			const char *start, const char *lat)
{
	char gfp[160], site[256], zone[64], who[48];

	snprintf(zone, sizeof(zone), "0x%" PRIx64 "-0x%" PRIx64,
		 e->zone_start, e->zone_end);
	if (e->direct) {
		kmt_gfp_format(c->t, e->a.gfp, gfp, sizeof(gfp));
		fmt_site(c->st, &e->a, c->o->raw_ip, site, sizeof(site));
		snprintf(who, sizeof(who), "%u", e->a.order);
	} else {
		snprintf(gfp, sizeof(gfp), "-");
		snprintf(site, sizeof(site), "-");
		snprintf(who, sizeof(who), "-");
	}
	printf(" %-12s | %12s | %7u | %-15s | %-7s | %5s | %-34s | %-21s | %-5s | %-17s | %s\n",
	       start, lat, e->pid, e->a.comm[0] ? e->a.comm : "-",
	       e->direct ? "direct" : "other", who, site, zone,
	       e->sync ? "sync" : "async", kmt_compact_status_name(e->status), gfp);
}

static void print_compact(const struct row_ctx *c)
{
	char head[256];

	snprintf(head, sizeof(head),
		 " %-12s | %12s | %7s | %-15s | %-7s | %5s | %-34s | %-21s | %-5s | %-17s | %s",
		 "Start s", "Latency us", "Pid", "Task", "Trigger", "Order",
		 "Callsite", "Zone pfns", "Mode", "Status", "GFP flags");
	print_episodes(c, KMT_LAT_COMPACT, 170, head, compact_row);
}

/* A shrinker's scan function: "super_cache_scan", not "...+0x0". */
static void shrinker_fn(const struct kmt_symtab *st, uint64_t func, bool raw,
			char *fn, size_t size)
{
	char *plus;

	kmt_symtab_format(st, func, raw, fn, size);
	plus = raw ? NULL : strstr(fn, "+0x0");
	if (plus && (plus[4] == '\0' || plus[4] == ' '))
		memmove(plus, plus + 4, strlen(plus + 4) + 1);
}

static void shrinker_label(const struct kmt_latency *l, uint32_t idx,
			   const struct kmt_symtab *st, bool raw, char *buf,
			   size_t size)
{
	const struct kmt_lat_shrinker *s = &l->shr[idx];
	char fn[200];

	shrinker_fn(st, s->func, raw, fn, sizeof(fn));
	if (s->name[0])
		snprintf(buf, size, "%s %s", fn, s->name);
	else
		snprintf(buf, size, "%s @0x%" PRIx64, fn, s->addr);
}

static int shr_cmp_total(const void *a, const void *b, void *arg)
{
	const struct kmt_latency *l = arg;
	const struct kmt_lat_shrinker *x = &l->shr[*(const uint32_t *)a];
	const struct kmt_lat_shrinker *y = &l->shr[*(const uint32_t *)b];

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The shrinkers' indexes, most total latency first; NULL without memory. */
static uint32_t *sorted_shrinkers(const struct kmt_latency *l)
{
	uint32_t *idx = calloc(l->nr_shr ? l->nr_shr : 1, sizeof(*idx));
	size_t i;

	if (!idx)
		return NULL;
	for (i = 0; i < l->nr_shr; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, l->nr_shr, sizeof(*idx), shr_cmp_total, (void *)l);
	return idx;
}

/* An unpaired end (its begin is missing), not an unpaired begin. */
static bool unpaired_end(const struct kmt_lat_unpaired *u)
{
	return u->type == KMT_EV_RECLAIM_END || u->type == KMT_EV_SHRINK_END ||
	       u->type == KMT_EV_COMPACT_END;
}

static void shrink_row(const struct row_ctx *c, const struct kmt_lat_episode *e,
		       const char *start, const char *lat)
{
	char name[320];

	shrinker_label(c->l, e->shrinker, c->st, c->o->raw_ip, name, sizeof(name));
	printf(" %-12s | %12s | %7u | %-15s | %-48s | %" PRId64 "\n", start, lat,
	       e->pid, e->a.comm[0] ? e->a.comm : "-", name, e->freed);
}

static void print_shrinkers(const struct row_ctx *c)
{
	const struct kmt_latency *l = c->l;
	char name[320], total[32], max[32], head[256];
	uint32_t *idx;
	size_t i, n = 0;

	printf("\nShrinkers by total latency\n");
	printf("%.128s\n", dashes);
	printf(" %-48s | %8s | %14s | %12s | %8s | %s\n", "Shrinker", "Calls",
	       "Total us", "Max us", "Above", "Freed");
	printf("%.128s\n", dashes);
	idx = sorted_shrinkers(l);
	if (!idx)
		return;
	for (i = 0; i < l->nr_shr; i++) {
		const struct kmt_lat_shrinker *s = &l->shr[idx[i]];

		if (!s->calls)
			continue;
		if (more_rows(c->o, n++)) {
			printf(" ...\n");
			break;
		}
		shrinker_label(l, idx[i], c->st, c->o->raw_ip, name, sizeof(name));
		fmt_us(total, sizeof(total), s->total_ns);
		fmt_us(max, sizeof(max), s->max_ns);
		printf(" %-48s | %8" PRIu64 " | %14s | %12s | %8" PRIu64 " | %" PRIu64 "\n",
		       name, s->calls, total, max, s->above, s->freed);
	}
	free(idx);
	if (!n)
		printf(" (none)\n");

	snprintf(head, sizeof(head), " %-12s | %12s | %7s | %-15s | %-48s | %s",
		 "Start s", "Latency us", "Pid", "Task", "Shrinker", "Freed");
	print_episodes(c, KMT_LAT_SHRINK, 118, head, shrink_row);
}

static void stall_row(const struct row_ctx *c, const struct kmt_lat_episode *e,
		      const char *start, const char *lat)
{
	char gfp[160], site[256];

	kmt_gfp_format(c->t, e->a.gfp, gfp, sizeof(gfp));
	fmt_site(c->st, &e->a, c->o->raw_ip, site, sizeof(site));
	printf(" %-12s | %12s | %7u | %-15s | %5u | %-34s | %7u | %7u | %-9s | %s\n",
	       start, lat, e->pid, e->a.comm, e->a.order, site, e->nr_reclaim,
	       e->nr_compact, e->failed ? "failed" : "allocated", gfp);
}

static void print_stalls(const struct row_ctx *c)
{
	char head[256];

	snprintf(head, sizeof(head),
		 " %-12s | %12s | %7s | %-15s | %5s | %-34s | %7s | %7s | %-9s | %s",
		 "Start s", "Latency us", "Pid", "Task", "Order", "Callsite",
		 "Reclaim", "Compact", "Result", "GFP flags");
	print_episodes(c, KMT_LAT_STALL, 150, head, stall_row);
}

static void print_histograms(const struct kmt_latency *l)
{
	unsigned int k, b, lo, hi, j, w;
	uint64_t max;

	for (k = 0; k < KMT_LAT_KINDS; k++) {
		if (!kind_recorded(l, k) || !l->kind[k].count)
			continue;
		max = 0;
		hi = 0;
		for (b = 0; b < KMT_LAT_BUCKETS; b++) {
			if (l->kind[k].hist[b] > max)
				max = l->kind[k].hist[b];
			if (l->kind[k].hist[b])
				hi = b;
		}
		for (lo = 0; lo < hi && !l->kind[k].hist[lo]; lo++)
			;
		printf("\n%s latency\n", kind_names[k]);
		printf(" %21s : %-9s %s\n", "us", "count", "distribution");
		for (b = lo; b <= hi; b++) {
			uint64_t from = b ? 1ull << b : 0, to = (2ull << b) - 1;

			w = (unsigned int)(l->kind[k].hist[b] * 40 / max);
			printf(" %9" PRIu64 " -> %-8" PRIu64 " : %-9" PRIu64 " |",
			       from, to, l->kind[k].hist[b]);
			for (j = 0; j < 40; j++)
				putchar(j < w ? '*' : ' ');
			printf("|\n");
		}
	}
}

static void print_unpaired(const struct kmt_latency *l, const struct kmt_trace *t,
			   const struct report_opts *o)
{
	char ts[32];
	size_t i;

	if (!l->nr_unp)
		return;
	printf("\nUnpaired events (%zu): begins whose end is not in the trace, ends whose begin is not\n",
	       l->nr_unp);
	for (i = 0; i < l->nr_unp; i++) {
		const struct kmt_lat_unpaired *u = &l->unp[i];
		const char *name = t->layout[u->type].name;

		if (more_rows(o, i)) {
			printf(" ...\n");
			break;
		}
		fmt_s(ts, sizeof(ts), u->ts);
		if (u->kind == KMT_LAT_STALL)
			printf(" %-12s  cpu %-3u pid %-7u %-28s %s\n", ts, u->cpu, u->pid,
			       "allocation stall",
			       "no page allocation of its order follows in the trace");
		else
			printf(" %-12s  cpu %-3u pid %-7u %-28s %s\n", ts, u->cpu, u->pid,
			       name, unpaired_end(u) ? "no begin: before the recording started, or lost" :
			       u->at_end ? "no end: still running when the trace ends" :
			       "no end: the same task began again");
	}
}

/* ---- --json ------------------------------------------------------------ */

static const char *const json_kinds[KMT_LAT_KINDS] = {
	[KMT_LAT_RECLAIM] = "direct_reclaim",
	[KMT_LAT_COMPACT] = "compaction",
	[KMT_LAT_SHRINK] = "shrinker_call",
	[KMT_LAT_STALL] = "allocation_stall",
};

static void json_text(FILE *f, bool *first, const char *key, const char *s)
{
	kmt_json_key(f, first, key);
	kmt_json_str(f, s, strlen(s));
}

static void json_addr(FILE *f, bool *first, const char *key, uint64_t a)
{
	kmt_json_key(f, first, key);
	fprintf(f, "\"0x%" PRIx64 "\"", a);
}

/* "callsite" (null when unknown) and "address" of an allocation */
static void json_alloc(FILE *f, bool *first, const struct kmt_trace *t,
		       const struct kmt_symtab *st, const struct kmt_lat_alloc *a,
		       bool raw)
{
	char buf[256];

	kmt_json_u64(f, first, "order", a->order);
	json_addr(f, first, "gfp", a->gfp);
	kmt_gfp_format(t, a->gfp, buf, sizeof(buf));
	json_text(f, first, "gfp_names", buf);
	kmt_json_key(f, first, "callsite");
	if (a->site) {
		kmt_symtab_format(st, a->site, raw, buf, sizeof(buf));
		kmt_json_str(f, buf, strlen(buf));
	} else {
		fputs("null", f);
	}
	kmt_json_key(f, first, "address");
	if (a->site)
		fprintf(f, "\"0x%" PRIx64 "\"", a->site);
	else
		fputs("null", f);
}

static void json_episode(FILE *f, const struct kmt_latency *l,
			 const struct kmt_lat_episode *e,
			 const struct kmt_trace *t, const struct kmt_symtab *st,
			 bool raw)
{
	char name[320];
	bool first = true;

	fputc('{', f);
	json_text(f, &first, "kind", json_kinds[e->kind]);
	kmt_json_u64(f, &first, "start_ns", e->start);
	kmt_json_u64(f, &first, "latency_ns", e->ns);
	kmt_json_u64(f, &first, "pid", e->pid);
	kmt_json_key(f, &first, "task");
	if (e->a.comm[0])
		kmt_json_str(f, e->a.comm, strlen(e->a.comm));
	else
		fputs("null", f);
	switch (e->kind) {
	case KMT_LAT_RECLAIM:
		json_alloc(f, &first, t, st, &e->a, raw);
		kmt_json_u64(f, &first, "reclaimed", e->nr_reclaimed);
		kmt_json_u64(f, &first, "scanned", e->lru_scanned);
		kmt_json_u64(f, &first, "shrinker_calls", e->shrinks);
		kmt_json_u64(f, &first, "shrinker_ns", e->shrink_ns);
		break;
	case KMT_LAT_COMPACT:
		json_text(f, &first, "trigger", e->direct ? "direct" : "other");
		if (e->direct)
			json_alloc(f, &first, t, st, &e->a, raw);
		json_addr(f, &first, "zone_start_pfn", e->zone_start);
		json_addr(f, &first, "zone_end_pfn", e->zone_end);
		json_text(f, &first, "mode", e->sync ? "sync" : "async");
		json_text(f, &first, "status", kmt_compact_status_name(e->status));
		break;
	case KMT_LAT_SHRINK:
		shrinker_fn(st, l->shr[e->shrinker].func, raw, name, sizeof(name));
		json_text(f, &first, "function", name);
		kmt_json_key(f, &first, "name");
		if (l->shr[e->shrinker].name[0])
			kmt_json_str(f, l->shr[e->shrinker].name,
				     strlen(l->shr[e->shrinker].name));
		else
			fputs("null", f);
		json_addr(f, &first, "shrinker", l->shr[e->shrinker].addr);
		kmt_json_key(f, &first, "freed");
		fprintf(f, "%" PRId64, e->freed);
		break;
	default:
		json_alloc(f, &first, t, st, &e->a, raw);
		kmt_json_u64(f, &first, "reclaims", e->nr_reclaim);
		kmt_json_u64(f, &first, "compactions", e->nr_compact);
		json_text(f, &first, "result", e->failed ? "failed" : "allocated");
		break;
	}
	fputc('}', f);
}

static void json_latency(FILE *f, const struct kmt_latency *l, const char *path,
			 const struct kmt_trace *t, const struct kmt_symtab *st,
			 const struct report_opts *o)
{
	const char *sep = "";
	bool first = true;
	unsigned int k, b, hi;
	uint32_t *idx;
	size_t i, n;

	kmt_report_json_head(f, path, l->first_ts, l->last_ts);
	/* the version of the document before it had the members above */
	fputs(",\n  ", f);
	kmt_json_u64(f, &first, "kmemflight_latency", 1);
	kmt_json_u64(f, &first, "threshold_ns", l->threshold);
	kmt_json_u64(f, &first, "events_lost", l->lost);
	kmt_json_key(f, &first, "kinds");
	fputc('[', f);
	for (k = 0; k < KMT_LAT_KINDS; k++) {
		bool f2 = true;

		fprintf(f, "%s\n    {", k ? "," : "");
		json_text(f, &f2, "kind", json_kinds[k]);
		kmt_json_key(f, &f2, "recorded");
		fputs(kind_recorded(l, k) ? "true" : "false", f);
		kmt_json_u64(f, &f2, "episodes", l->kind[k].count);
		kmt_json_u64(f, &f2, "above", l->kind[k].above);
		kmt_json_u64(f, &f2, "total_ns", l->kind[k].total_ns);
		kmt_json_u64(f, &f2, "max_ns", l->kind[k].max_ns);
		kmt_json_u64(f, &f2, "unpaired", l->kind[k].unpaired);
		/* log2 buckets of us, up to the last one used */
		for (b = 0, hi = 0; b < KMT_LAT_BUCKETS; b++)
			if (l->kind[k].hist[b])
				hi = b + 1;
		kmt_json_key(f, &f2, "histogram_us");
		fputc('[', f);
		for (b = 0; b < hi; b++)
			fprintf(f, "%s{\"from\": %llu, \"to\": %llu, \"count\": %" PRIu64 "}",
				b ? ", " : "", b ? 1ull << b : 0ull, (2ull << b) - 1,
				l->kind[k].hist[b]);
		fputs("]}", f);
	}
	fputs("\n  ]", f);

	kmt_json_key(f, &first, "episodes");
	fputc('[', f);
	for (i = 0, n = 0; i < l->nr_ep; i++) {
		if (l->ep[i].ns < l->threshold)
			continue;
		if (more_rows(o, n))
			break;
		fprintf(f, "%s\n    ", n++ ? "," : "");
		json_episode(f, l, &l->ep[i], t, st, o->raw_ip);
	}
	fprintf(f, "%s]", n ? "\n  " : "");

	kmt_json_key(f, &first, "shrinkers");
	fputc('[', f);
	idx = sorted_shrinkers(l);
	for (i = 0, n = 0; idx && i < l->nr_shr; i++) {
		const struct kmt_lat_shrinker *s = &l->shr[idx[i]];
		char fn[256];
		bool f2 = true;

		if (!s->calls)
			continue;
		if (more_rows(o, n))
			break;
		fprintf(f, "%s\n    {", n++ ? "," : "");
		shrinker_fn(st, s->func, o->raw_ip, fn, sizeof(fn));
		json_text(f, &f2, "function", fn);
		kmt_json_key(f, &f2, "name");
		if (s->name[0])
			kmt_json_str(f, s->name, strlen(s->name));
		else
			fputs("null", f);
		json_addr(f, &f2, "shrinker", s->addr);
		kmt_json_u64(f, &f2, "calls", s->calls);
		kmt_json_u64(f, &f2, "total_ns", s->total_ns);
		kmt_json_u64(f, &f2, "max_ns", s->max_ns);
		kmt_json_u64(f, &f2, "above", s->above);
		kmt_json_u64(f, &f2, "freed", s->freed);
		fputc('}', f);
	}
	free(idx);
	fprintf(f, "%s]", n ? "\n  " : "");

	kmt_json_key(f, &first, "unpaired");
	fputc('[', f);
	for (i = 0; i < l->nr_unp; i++) {
		const struct kmt_lat_unpaired *u = &l->unp[i];
		bool f2 = true;

		if (more_rows(o, i))
			break;
		fprintf(f, "%s\n    {", sep);
		sep = ",";
		json_text(f, &f2, "kind", json_kinds[u->kind]);
		json_text(f, &f2, "event", t->layout[u->type].name);
		kmt_json_u64(f, &f2, "ts_ns", u->ts);
		kmt_json_u64(f, &f2, "cpu", u->cpu);
		kmt_json_u64(f, &f2, "pid", u->pid);
		json_text(f, &f2, "missing", u->kind == KMT_LAT_STALL ? "allocation" :
			  unpaired_end(u) ? "begin" : "end");
		fputc('}', f);
	}
	fprintf(f, "%s]}\n", *sep ? "\n  " : "");
}

int kmt_report_latency(const struct kmt_trace *t, const struct kmt_symtab *st,
		       const struct report_opts *o, const char *path,
		       struct kmt_err *err)
{
	struct kmt_latency l;
	const struct row_ctx c = { .l = &l, .t = t, .st = st, .o = o };
	char thr[32], first[32], last[32];
	int ret;

	ret = kmt_latency_analyze(t, st, o->threshold, o->start, o->end, &l, err);
	if (ret)
		return ret;
	if (!l.have_layouts) {
		kmt_latency_free(&l);
		return kmt_errf(err, ENOTSUP,
				"%s: its recorder has no latency events (a kmemtrace older than the reclaim and compaction groups)",
				path);
	}
	if (!(l.groups & ((1u << KMT_GROUP_RECLAIM) | (1u << KMT_GROUP_COMPACTION)))) {
		char src[32] = "";

		kmt_latency_free(&l);
		/* ftrace and perf: the tracer's vmscan and compaction events */
		if (kmt_trace_meta(t, "source", src, sizeof(src)) && src[0])
			return kmt_errf(err, ENOENT,
					"%s: this trace from %s has no vmscan or compaction events: trace mm_vmscan_direct_reclaim_begin/end, mm_vmscan_lru_shrink_inactive, mm_shrink_slab_start/end, mm_compaction_try_to_compact_pages and mm_compaction_begin/end too",
					path, src);
		return kmt_errf(err, ENOENT,
				"%s: no reclaim or compaction events were recorded: boot with kmemtrace.events=kmem,boot,latency, or write 'kmem,boot,latency' to /sys/kernel/tracing/kmemtrace/events before the workload",
				path);
	}
	kmt_latency_sort(&l);
	if (o->json) {
		json_latency(stdout, &l, path, t, st, o);
		kmt_latency_free(&l);
		return 0;
	}
	fmt_us(thr, sizeof(thr), l.threshold);
	fmt_s(first, sizeof(first), l.first_ts);
	fmt_s(last, sizeof(last), l.last_ts);
	printf("Allocation latency, threshold %s us; events from %s s to %s s\n", thr,
	       first, last);
	print_kinds(&l);
	if (l.lost)
		printf("(%" PRIu64 " events were lost while recording: some begins or ends may be among them)\n",
		       l.lost);
	if (kind_recorded(&l, KMT_LAT_RECLAIM))
		print_reclaim(&c);
	if (kind_recorded(&l, KMT_LAT_COMPACT))
		print_compact(&c);
	if (kind_recorded(&l, KMT_LAT_SHRINK))
		print_shrinkers(&c);
	if (kind_recorded(&l, KMT_LAT_STALL))
		print_stalls(&c);
	print_unpaired(&l, t, o);
	print_histograms(&l);
	kmt_latency_free(&l);
	return 0;
}

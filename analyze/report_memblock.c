// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight report --memblock: the boot memory memblock handed out, by
 * the caller that reserved or allocated it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../cli/cli.h"
#include "memblock.h"
#include "report.h"

#define ROW_WIDTH	96

static const char *how(const struct kmt_mb_caller *c)
{
	return c->alloc ? "alloc" : "reserve";
}

static void json_memblock(FILE *f, const struct kmt_memblock *mb,
			  const struct kmt_symtab *st, const struct report_opts *o,
			  const char *path)
{
	char name[256];
	bool first = true;
	size_t i;

	/* the span of the memblock events taken: the last is the text's "at" */
	kmt_report_json_head(f, path, mb->first_ts, mb->last_ts);
	fprintf(f, ",\n  ");
	kmt_json_u64(f, &first, "events", mb->nr_events);
	kmt_json_u64(f, &first, "ram", mb->ram);
	kmt_json_u64(f, &first, "ram_ranges", mb->ram_ranges);
	kmt_json_u64(f, &first, "held", mb->held);
	kmt_json_u64(f, &first, "reserved", mb->reserved);
	kmt_json_u64(f, &first, "freed", mb->reserved - mb->held);
	kmt_json_u64(f, &first, "freed_to_memblock", mb->freed);
	kmt_json_u64(f, &first, "given", mb->given);
	if (mb->have_early) {
		kmt_json_u64(f, &first, "early_kept", mb->nr_kept);
		kmt_json_u64(f, &first, "early_dropped", mb->nr_dropped);
		kmt_json_u64(f, &first, "early_capacity", mb->capacity);
	}
	if (mb->have_early_pages) {
		kmt_json_u64(f, &first, "early_pages_kept", mb->pg_kept);
		kmt_json_u64(f, &first, "early_pages_dropped", mb->pg_dropped);
	}
	fprintf(f, ",\n  \"callers\": [");
	for (i = 0; i < mb->nr_callers; i++) {
		const struct kmt_mb_caller *c = &mb->callers[i];

		if (o->lines >= 0 && i == (size_t)o->lines)
			break;
		kmt_symtab_format(st, c->call_site, o->raw_ip, name, sizeof(name));
		fprintf(f, "%s\n    {\"callsite\": ", i ? "," : "");
		kmt_json_str(f, name, strlen(name));
		fprintf(f, ", \"address\": \"0x%" PRIx64 "\", \"how\": \"%s\", \"held\": %"
			PRIu64 ", \"reserved\": %" PRIu64 ", \"freed\": %" PRIu64
			", \"ranges\": %" PRIu64 "}", c->call_site, how(c), c->held,
			c->reserved, c->freed, c->nr);
	}
	fprintf(f, "%s],\n  \"given_by\": [", i ? "\n  " : "");
	for (i = 0; i < mb->nr_givens; i++) {
		const struct kmt_mb_given *g = &mb->givens[i];

		kmt_symtab_format(st, g->call_site, o->raw_ip, name, sizeof(name));
		fprintf(f, "%s\n    {\"callsite\": ", i ? "," : "");
		kmt_json_str(f, name, strlen(name));
		fprintf(f, ", \"what\": ");
		kmt_json_str(f, g->what, strlen(g->what));
		fprintf(f, ", \"bytes\": %" PRIu64 ", \"times\": %" PRIu64 "}",
			g->bytes, g->nr);
	}
	fprintf(f, "%s]\n}\n", i ? "\n  " : "");
}

static void print_callers(const struct kmt_memblock *mb,
			  const struct kmt_symtab *st, const struct report_opts *o)
{
	char name[256];
	size_t i, shown;
	int w = KMT_NAME_COL;

	for (i = 0; i < mb->nr_callers && (o->lines < 0 || i < (size_t)o->lines); i++) {
		kmt_symtab_format(st, mb->callers[i].call_site, o->raw_ip, name,
				  sizeof(name));
		w = kmt_name_width(w, name);
	}
	kmt_rule(ROW_WIDTH + w - KMT_NAME_COL);
	printf(" %-*s | %12s | %12s | %12s | %6s | %s\n", w, "Callsite", "Held",
	       "Reserved", "Freed", "Ranges", "How");
	kmt_rule(ROW_WIDTH + w - KMT_NAME_COL);
	for (shown = 0; shown < mb->nr_callers; shown++) {
		const struct kmt_mb_caller *c = &mb->callers[shown];

		if (o->lines >= 0 && shown == (size_t)o->lines) {
			printf(" %-*s | %12s | %12s | %12s | %6s | %s\n", w, "...",
			       "...", "...", "...", "...", "...");
			break;
		}
		kmt_symtab_format(st, c->call_site, o->raw_ip, name, sizeof(name));
		printf(" %-*s | %12" PRIu64 " | %12" PRIu64 " | %12" PRIu64
		       " | %6" PRIu64 " | %s\n", w, name, c->held, c->reserved,
		       c->freed, c->nr, how(c));
	}
	kmt_rule(ROW_WIDTH + w - KMT_NAME_COL);
	printf(" %-*s | %12" PRIu64 " | %12" PRIu64 " | %12" PRIu64 " |\n", w,
	       "total", mb->held, mb->reserved, mb->reserved - mb->held);
}

static void print_givens(const struct kmt_memblock *mb,
			 const struct kmt_symtab *st, const struct report_opts *o)
{
	char name[256];
	size_t i;
	int w = KMT_NAME_COL;

	for (i = 0; i < mb->nr_givens; i++) {
		kmt_symtab_format(st, mb->givens[i].call_site, o->raw_ip, name,
				  sizeof(name));
		w = kmt_name_width(w, name);
	}
	printf("\nReserved memory given to the page allocator (free_reserved_area, memblock_free_late): %"
	       PRIu64 " bytes\n", mb->given);
	kmt_rule(ROW_WIDTH + w - KMT_NAME_COL);
	printf(" %-*s | %-40s | %12s\n", w, "Callsite", "What", "Bytes");
	kmt_rule(ROW_WIDTH + w - KMT_NAME_COL);
	for (i = 0; i < mb->nr_givens; i++) {
		const struct kmt_mb_given *g = &mb->givens[i];

		kmt_symtab_format(st, g->call_site, o->raw_ip, name, sizeof(name));
		printf(" %-*s | %-40.40s | %12" PRIu64 "\n", w, name,
		       g->what[0] ? g->what : "-", g->bytes);
	}
}

int kmt_report_memblock(const struct kmt_trace *t, const struct kmt_symtab *st,
			const struct report_opts *o, const char *path,
			struct kmt_err *err)
{
	struct kmt_memblock mb;
	int ret;

	if (!t->layout[KMT_EV_MEMBLOCK].present)
		return kmt_errf(err, ENOTSUP,
				"%s: its recorder has no memblock events (a kmemtrace older than memblock recording, ftrace or perf)",
				path);
	ret = kmt_memblock_analyze(t, o->end, &mb, err);
	if (ret)
		return ret;
	if (!mb.nr_events) {
		kmt_memblock_free(&mb);
		if (!mb.have_early)
			return kmt_errf(err, ENOENT,
					"%s: no memblock events: they are the boot's first, and this trace has not kept them: the recorder was not started at boot (kmemtrace.enable=1), flight mode wrote over them, an earlier save took them, or kmemtrace.events left out kmem",
					path);
		return kmt_errf(err, ENOENT, "%s: no memblock event up to --at", path);
	}
	kmt_memblock_warn(t, &mb);
	if (o->json) {
		json_memblock(stdout, &mb, st, o, path);
		kmt_memblock_free(&mb);
		return 0;
	}
	printf("Boot memory (memblock) at %" PRIu64 ".%09" PRIu64
	       " s: RAM %" PRIu64 " bytes in %zu ranges, %" PRIu64
	       " bytes reserved and still held\n",
	       mb.last_ts / 1000000000u, mb.last_ts % 1000000000u, mb.ram,
	       mb.ram_ranges, mb.held);
	print_callers(&mb, st, o);
	if (mb.nr_givens)
		print_givens(&mb, st, o);
	printf("\nmemblock events: %" PRIu64, mb.nr_events);
	if (mb.have_early)
		printf(" (%" PRIu64 " of them from before the recorder started, kept in an array of %"
		       PRIu64 "; %" PRIu64 " did not fit and are missing)",
		       mb.nr_kept, mb.capacity, mb.nr_dropped);
	printf("\n");
	if (mb.have_early_pages)
		printf("Page events from before the probes attached (mem_init(), kmem_cache_init()): %" PRIu64
		       " kept (in --live and --footprint), %" PRIu64 " missing\n",
		       mb.pg_kept, mb.pg_dropped);
	kmt_memblock_free(&mb);
	return 0;
}

void kmt_memblock_warn(const struct kmt_trace *t, const struct kmt_memblock *mb)
{
	uint64_t lost = 0;
	unsigned int i;

	for (i = 0; i < t->nr_cpus; i++)
		lost += t->cpus[i].lost;
	/* a lost free leaves its bytes held: held totals may be long */
	if (lost)
		kmf_warn("%" PRIu64 " events were lost while recording: totals are short, and what is held counts whatever they freed",
			 lost);
	if (mb->pg_dropped)
		kmf_warn("%" PRIu64 " page events of kmem_cache_init() did not fit in the kernel's array: the page totals are short",
			 mb->pg_dropped);
	if (mb->nr_dropped)
		kmf_warn("%" PRIu64 " memblock events of the early boot did not fit in the kernel's array (CONFIG_KMEMTRACE_MEMBLOCK_EARLY=%"
			 PRIu64 "): the memblock totals are short", mb->nr_dropped,
			 mb->capacity);
}

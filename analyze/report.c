// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight report: perf-kmem style tables from a saved trace.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/cli.h"
#include "../lib/vmlinux.h"
#include "report.h"
#include "slab.h"

#define DEFAULT_SORT "frag,hit,bytes"
#define VALID_OPTS "--slab, --page, --live, --phase, --latency, --memblock, --footprint, --window, --before, --threshold, --time, --at, --caller, --alloc, -s/--sort, -l/--line, -v/--verbose, --raw-ip, --vmlinux, --json, --csv, -h/--help"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight report [<options>] <file>\n"
		"\n"
		"Slab and page allocator statistics of a saved trace, like 'perf kmem stat'.\n"
		"\n"
		"    --slab                slab allocator: callsite table and SUMMARY (the\n"
		"                          default)\n"
		"    --page                page allocator SUMMARY: requests, failures, frees,\n"
		"                          and allocations by order and migrate type\n"
		"    --live                the boot footprint: what was allocated and never\n"
		"                          freed, per callsite and per cache, the pages\n"
		"                          still held, and how long freed objects lived\n"
		"    --phase               what each boot phase (early, initcall level, the\n"
		"                          execs of pid 1) and each initcall allocated, and\n"
		"                          what of it is still allocated at the end\n"
		"    --latency             allocation latency: direct reclaim, compaction,\n"
		"                          shrinker calls and the allocation stalls they\n"
		"                          make up; per kind, the episodes at or above the\n"
		"                          threshold (slowest first), per-shrinker totals\n"
		"                          and a histogram (needs kmemtrace.events=latency);\n"
		"                          with --json, as one JSON document\n"
		"    --memblock            boot memory: the RAM memblock was given, what\n"
		"                          each caller reserved or allocated from it and\n"
		"                          still holds, what went to the page allocator\n"
		"                          later (the init sections, the initrd); at the\n"
		"                          end, or at --at\n"
		"    --footprint           the memory at the save: RAM, what memblock holds,\n"
		"                          free, the pages the trace saw allocated, the\n"
		"                          recorder's buffers, against the kernel's own\n"
		"                          totals, and how much of what the kernel holds\n"
		"                          the trace explains\n"
		"    --window              a flight-recorder save (kmemflight watch, or a\n"
		"                          previous boot's saved after a crash): what\n"
		"                          froze the recorder (the OOM killer's victim, the\n"
		"                          failed allocation and its caller), the window\n"
		"                          the buffers kept, and what was allocated in it\n"
		"                          and still held at the trigger: by callsite, by\n"
		"                          cache, by process, pages by order\n"
		"    --before <time>       with --window: only the last <time> before the\n"
		"                          trigger, with a unit ns, us, ms or s: 5s\n"
		"    --threshold <time>    with --latency: list episodes of at least this\n"
		"                          long, with a unit ns, us, ms or s: 134us\n"
		"                          (default 0: all)\n"
		"    --time <start>,<end>  only the events from start to end (either may be\n"
		"                          left out); times since boot, in s unless\n"
		"                          suffixed ms, us or ns: --time 1.5,2s\n"
		"    --at <time>           the same as --time ,<time>: the footprint then\n"
		"    --caller              per-callsite table (the default)\n"
		"    --alloc               per-object-address table: every object allocated\n"
		"                          at an address, added up (with --page: per page\n"
		"                          frame)\n"
		"    -s, --sort <keys>     sort by keys, comma separated, most significant\n"
		"                          first: frag, hit, bytes, callsite, pingpong, ptr,\n"
		"                          by default " DEFAULT_SORT "; with --page alone:\n"
		"                          bytes, hit, callsite, order, migtype, gfp, page,\n"
		"                          by default bytes,hit\n"
		"    -l, --line <n>        print only the first n rows\n"
		"    -v, --verbose         with --page: list the frames taken as the page\n"
		"                          allocator's when naming page callers; with\n"
		"                          --slab or --live: the wrappers (kvmalloc,\n"
		"                          kstrdup_const ...) the recorder looked past to\n"
		"                          name callers, and the allocations through each\n"
		"    --raw-ip              print callsites as addresses, not sym+0xoff\n"
		"    --vmlinux <file>      name callsites from this kernel image (its build-id\n"
		"                          must match the trace's), with file:line where it\n"
		"                          has debug info; KASLR is taken into account\n"
		"    --json                the same numbers as one JSON document\n"
		"    --csv                 the same tables as CSV, each after a line\n"
		"                          '# table: NAME'\n"
		"    -h, --help            this help\n");
}

/*
 * A time since boot: decimal seconds, or with a unit suffix s, ms, us,
 * ns; exact to the nanosecond (no floating point).  0 or -EINVAL.
 */
int kmt_parse_time(const char *s, size_t len, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, div = 1, unit = 1000000000ULL;
	size_t i = 0, digits = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (whole > UINT64_MAX / 10 / 1000000000ULL)
			return -EINVAL;
		whole = whole * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (div >= 1000000000ULL)
				return -EINVAL;	/* finer than 1 ns */
			frac = frac * 10 + (uint64_t)(s[i] - '0');
			div *= 10;
		}
	}
	if (!digits)
		return -EINVAL;
	if (len - i == 1 && s[i] == 's')
		unit = 1000000000ULL;
	else if (len - i == 2 && !strncmp(s + i, "ms", 2))
		unit = 1000000ULL;
	else if (len - i == 2 && !strncmp(s + i, "us", 2))
		unit = 1000ULL;
	else if (len - i == 2 && !strncmp(s + i, "ns", 2))
		unit = 1;
	else if (i != len)
		return -EINVAL;
	if ((frac * unit) % div)
		return -EINVAL;		/* finer than 1 ns */
	*ns = whole * unit + frac * unit / div;
	return 0;
}

/* A duration that names its unit (134us, 1.5ms): a bare number is ambiguous. */
static int parse_duration(const char *s, uint64_t *ns)
{
	size_t len = strlen(s);

	if (!len || (s[len - 1] >= '0' && s[len - 1] <= '9') || s[len - 1] == '.')
		return -EINVAL;
	return kmt_parse_time(s, len, ns);
}

int kmt_parse_range(const char *s, uint64_t *start, uint64_t *end)
{
	const char *comma = strchr(s, ',');

	if (!comma)
		return -EINVAL;
	*start = 0;
	*end = UINT64_MAX;
	if (comma > s && kmt_parse_time(s, (size_t)(comma - s), start))
		return -EINVAL;
	if (comma[1] && kmt_parse_time(comma + 1, strlen(comma + 1), end))
		return -EINVAL;
	return comma == s && !comma[1] ? -EINVAL : 0;
}

int kmf_symbols(const struct kmt_trace *t, const char *path, const char *vmlinux,
		bool raw_ip, struct kmt_symtab *st, struct kmt_vmlinux *vm,
		const struct kmt_symtab **sym)
{
	struct kmt_err err = { "" };
	char bid[129];

	*sym = st;
	if (vmlinux) {
		if (kmt_vmlinux_open(vm, vmlinux, t, &err)) {
			kmf_error("%s", err.msg);
			return -1;
		}
		if (!kmt_trace_meta(t, "build_id", bid, sizeof(bid)) || !bid[0])
			kmf_warn("%s has no build-id: cannot check that %s is the recording kernel",
				 path, vmlinux);
		if (!vm->dwarf)
			kmf_warn("%s has no debug info: no file:line", vmlinux);
		*sym = &vm->st;
	} else if (kmt_symtab_load(st, t->kallsyms, t->kallsyms_len)) {
		kmf_error("out of memory");
		return -1;
	} else if (!st->nr && !raw_ip) {
		kmf_warn("%s has no kallsyms: callsites are printed as addresses (--vmlinux names them)",
			 path);
	}
	return 0;
}

int kmf_time_option(bool at, const char *arg, unsigned int *given,
		    uint64_t *start, uint64_t *end)
{
	*given |= 1u << at;
	if (*given == 3)
		return kmf_usage_error("--time and --at: one range at a time (--at <time> is --time ,<time>)");
	if (at) {
		*start = 0;
		if (kmt_parse_time(arg, strlen(arg), end))
			return kmf_usage_error("--at wants a time in s, ms, us or ns (e.g. 2.5s), not '%s'",
					       arg);
		return 0;
	}
	if (kmt_parse_range(arg, start, end) || *start > *end)
		return kmf_usage_error("--time wants <start>,<end> in s, ms, us or ns, the start first (e.g. 1.5,2s), not '%s'",
				       arg);
	return 0;
}

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	enum { OPT_CALLER = 256, OPT_RAW_IP, OPT_SLAB, OPT_PAGE, OPT_LIVE,
	       OPT_TIME, OPT_AT, OPT_PHASE, OPT_ALLOC, OPT_JSON, OPT_CSV,
	       OPT_VMLINUX, OPT_LATENCY, OPT_THRESHOLD, OPT_MEMBLOCK,
	       OPT_FOOTPRINT, OPT_WINDOW, OPT_BEFORE };
	static const struct option longopts[] = {
		{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "alloc", no_argument, NULL, OPT_ALLOC },
		{ "phase", no_argument, NULL, OPT_PHASE },
		{ "latency", no_argument, NULL, OPT_LATENCY },
		{ "memblock", no_argument, NULL, OPT_MEMBLOCK },
		{ "footprint", no_argument, NULL, OPT_FOOTPRINT },
		{ "window", no_argument, NULL, OPT_WINDOW },
		{ "before", required_argument, NULL, OPT_BEFORE },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "live", no_argument, NULL, OPT_LIVE },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "at", required_argument, NULL, OPT_AT },
		{ "slab", no_argument, NULL, OPT_SLAB },
		{ "page", no_argument, NULL, OPT_PAGE },
		{ "caller", no_argument, NULL, OPT_CALLER },
		{ "sort", required_argument, NULL, 's' },
		{ "line", required_argument, NULL, 'l' },
		{ "raw-ip", no_argument, NULL, OPT_RAW_IP },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kmt_err err;
	const char *sort = DEFAULT_SORT;
	bool sort_given = false, threshold_given = false;
	unsigned int range_given = 0;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->end = UINT64_MAX;
	o->lines = -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:l:vh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CALLER: o->caller = true; break;
		case OPT_ALLOC: o->alloc = true; break;
		case OPT_JSON: o->json = true; break;
		case OPT_VMLINUX: o->vmlinux = optarg; break;
		case OPT_CSV: o->csv = true; break;
		case OPT_SLAB: o->slab = true; break;
		case OPT_LIVE: o->live = true; break;
		case OPT_PHASE: o->phase = true; break;
		case OPT_LATENCY: o->latency = true; break;
		case OPT_MEMBLOCK: o->memblock = true; break;
		case OPT_FOOTPRINT: o->footprint = true; break;
		case OPT_WINDOW: o->window = true; break;
		case OPT_BEFORE:
			if (parse_duration(optarg, &o->before) || !o->before)
				return kmf_usage_error("--before wants a time with a unit ns, us, ms or s (e.g. 5s), not '%s'",
						       optarg);
			break;
		case OPT_THRESHOLD:
			if (parse_duration(optarg, &o->threshold))
				return kmf_usage_error("--threshold wants a time with a unit ns, us, ms or s (e.g. 134us), not '%s'",
						       optarg);
			threshold_given = true;
			break;
		case OPT_TIME:
		case OPT_AT:
			if (kmf_time_option(c == OPT_AT, optarg, &range_given,
					    &o->start, &o->end))
				return KMF_EXIT_USAGE;
			break;
		case OPT_PAGE: o->page = true; break;
		case OPT_RAW_IP: o->raw_ip = true; break;
		case 's': sort = optarg; sort_given = true; break;
		case 'v': o->verbose = true; break;
		case 'l':
			errno = 0;
			o->lines = strtol(optarg, &end, 10);
			if (errno || *end || o->lines < 0)
				return kmf_usage_error("--line wants a number >= 0, not '%s'",
						       optarg);
			break;
		case 'h': usage(stdout); return -1;
		case '?':
			return kmf_option_error(longopts, "s:l:vh", optopt,
						argv[optind - 1], VALID_OPTS);
		default:
			return kmf_usage_error("unknown option '%s' (valid: %s)",
					       argv[optind - 1], VALID_OPTS);
		}
	}
	if (o->before && !o->window)
		return kmf_usage_error("--before goes with --window");
	if (o->window && (o->slab || o->page || o->live || o->phase || o->alloc ||
			  o->latency || o->memblock || o->footprint || o->json ||
			  o->csv || sort_given))
		return kmf_usage_error("--window is a report of its own: not with --slab, --page, --live, --phase, --latency, --memblock, --footprint, --alloc, --sort, --json or --csv");
	if (o->window && (o->start || o->end != UINT64_MAX))
		return kmf_usage_error("--window ends at the trigger: not with --time or --at (--before chooses how far back)");
	if (threshold_given && !o->latency)
		return kmf_usage_error("--threshold goes with --latency");
	if (o->latency && (o->slab || o->page || o->live || o->phase || o->alloc ||
			   o->csv || sort_given))
		return kmf_usage_error("--latency is a report of its own: not with --slab, --page, --live, --phase, --alloc, --sort or --csv");
	if (o->memblock && (o->slab || o->page || o->live || o->phase ||
			    o->alloc || o->latency || o->csv || sort_given))
		return kmf_usage_error("--memblock is a report of its own: not with --slab, --page, --live, --phase, --latency, --alloc, --sort or --csv");
	if (o->footprint && (o->slab || o->page || o->live || o->phase ||
			     o->alloc || o->latency || o->memblock || o->csv ||
			     sort_given))
		return kmf_usage_error("--footprint is a report of its own: not with --slab, --page, --live, --phase, --latency, --memblock, --alloc, --sort or --csv");
	if (o->footprint && (o->start || o->end != UINT64_MAX))
		return kmf_usage_error("--footprint is at the save, where the kernel's totals were taken: not with --time or --at");
	if (!o->slab && !o->page && !o->live && !o->phase && !o->latency &&
	    !o->memblock && !o->footprint && !o->window)
		o->slab = true;
	/* --alloc is a table of the slab view, or of the page view */
	if (o->alloc && !o->page)
		o->slab = true;
	if (!o->caller && !o->alloc)
		o->caller = true;
	if (sort_given && !o->slab && !o->page)
		return kmf_usage_error("--sort and %s: --sort orders the tables of --slab and --page, which %s alone does not print",
				       o->live ? "--live" : "--phase",
				       o->live ? "--live" : "--phase");
	if (o->start > o->end)
		return kmf_usage_error("--time: the start is after the end");
	if (o->json && o->csv)
		return kmf_usage_error("--json and --csv: one output format at a time");
	/* -s sorts the slab tables, or the page table with --page alone */
	if (o->page && !o->slab && sort_given) {
		if (kmt_page_parse_sort(sort, o->pkeys, &o->nr_pkeys, &err))
			return kmf_usage_error("%s", err.msg);
		sort = DEFAULT_SORT;
	} else if (kmt_page_parse_sort("bytes,hit", o->pkeys, &o->nr_pkeys, &err)) {
		return kmf_usage_error("%s", err.msg);
	}
	if (kmt_slab_parse_sort(sort, o->keys, &o->nr_keys, &err))
		return kmf_usage_error("%s", err.msg);
	if (optind != argc - 1)
		return kmf_usage_error(optind == argc ? "missing <file> to report on" :
				       "one <file> only");
	o->path = argv[optind];
	return 0;
}

static const char dashes[] =
	"---------------------------------------------------------------------"
	"---------------------------------------------------------------------";

static void caller_name(const struct kmt_caller *c, bool ptrs,
			const struct kmt_symtab *st, const struct report_opts *o,
			char *name, size_t size)
{
	if (ptrs)
		snprintf(name, size, "0x%" PRIx64, c->call_site);
	else
		kmt_symtab_format(st, c->call_site, o->raw_ip, name, size);
}

/* The callsite table, or with @ptrs the table per object address. */
static void print_rows(const struct kmt_caller *rows, size_t nr, bool ptrs,
		       const struct kmt_symtab *st, const struct report_opts *o)
{
	char name[256];
	size_t i, n = nr;
	int w = KMT_NAME_COL;

	if (o->lines >= 0 && (size_t)o->lines < n)
		n = (size_t)o->lines;
	for (i = 0; i < n; i++) {
		caller_name(&rows[i], ptrs, st, o, name, sizeof(name));
		w = kmt_name_width(w, name);
	}
	kmt_rule(105 + w - KMT_NAME_COL);
	printf(" %-*s | Total_alloc/Per | Total_req/Per   | Hit      | Ping-pong | Frag\n",
	       w, ptrs ? "Alloc Ptr" : "Callsite");
	kmt_rule(105 + w - KMT_NAME_COL);
	for (i = 0; i < n; i++) {
		const struct kmt_caller *c = &rows[i];

		caller_name(c, ptrs, st, o, name, sizeof(name));
		printf(" %-*s | %9" PRIu64 "/%-5" PRIu64 " | %9" PRIu64 "/%-5" PRIu64
		       " | %8" PRIu64 " | %9" PRIu64 " | %6.3f%%\n",
		       w, name, c->bytes_alloc, c->hit ? c->bytes_alloc / c->hit : 0,
		       c->bytes_req, c->hit ? c->bytes_req / c->hit : 0,
		       c->hit, c->pingpong, kmt_frag(c->bytes_req, c->bytes_alloc));
	}
	if (n < nr)
		printf(" %-*s | %-15s | %-15s | %-8s | %-9s | %s\n", w, "...", "...",
		       "...", "...", "...", "...");
	kmt_rule(105 + w - KMT_NAME_COL);
}

static void print_summary(const struct kmt_trace *t, const struct kmt_slab *s)
{
	uint64_t pages_freed;
	unsigned int i;

	printf("\nSUMMARY (SLAB allocator)\n");
	printf("========================\n");
	printf("Total bytes requested: %" PRIu64 "\n", s->total_req);
	printf("Total bytes allocated: %" PRIu64 "\n", s->total_alloc);
	printf("Total bytes freed:     %" PRIu64 "\n", s->total_freed);
	printf("Net total bytes allocated: %" PRId64 "\n",
	       (int64_t)(s->total_alloc - s->total_freed));
	printf("Total bytes wasted on internal fragmentation: %" PRIu64 "\n",
	       s->total_alloc - s->total_req);
	printf("Internal fragmentation: %f%%\n",
	       kmt_frag(s->total_req, s->total_alloc));
	printf("Cross CPU allocations: %" PRIu64 "/%" PRIu64 "\n",
	       s->nr_cross_cpu, s->nr_allocs);
	printf("Cross node allocations: %" PRIu64 "/%" PRIu64 "\n",
	       s->nr_cross_node, s->nr_node_known);
	printf("Allocations: %" PRIu64 ", failed: %" PRIu64 ", frees: %" PRIu64
	       " (%" PRIu64 " of objects not allocated in the trace)\n",
	       s->nr_allocs, s->nr_failed, s->nr_frees, s->nr_unknown_frees);
	if (s->nr_double_traced)
		printf("(%" PRIu64 " large kmallocs were traced twice by the kernel: counted once, for their caller)\n",
		       s->nr_double_traced);
	if (s->nr_repeated)
		printf("(%" PRIu64 " allocation events repeat the one before them for their object, same time, CPU and callsite: counted twice, as perf kmem stat counts them)\n",
		       s->nr_repeated);
	if (s->nr_repeated_frees)
		printf("(%" PRIu64 " free events repeat the last free on their CPU, same time, object and callsite: counted twice, as perf kmem stat counts them, the second a ping-pong)\n",
		       s->nr_repeated_frees);
	pages_freed = s->by_type[KMT_EV_PAGE_FREE] +
		      s->by_type[KMT_EV_PAGE_FREE_BATCHED];
	printf("Events: %" PRIu64 " (kmalloc %" PRIu64 ", kmem_cache_alloc %" PRIu64
	       ", kfree %" PRIu64 ", kmem_cache_free %" PRIu64 ", page alloc %" PRIu64
	       ", page free %" PRIu64 ", other %" PRIu64 ")\n", s->nr_events,
	       s->by_type[KMT_EV_KMALLOC], s->by_type[KMT_EV_CACHE_ALLOC],
	       s->by_type[KMT_EV_KFREE], s->by_type[KMT_EV_CACHE_FREE],
	       s->by_type[KMT_EV_PAGE_ALLOC], pages_freed,
	       s->nr_events - s->by_type[KMT_EV_KMALLOC] -
	       s->by_type[KMT_EV_CACHE_ALLOC] - s->by_type[KMT_EV_KFREE] -
	       s->by_type[KMT_EV_CACHE_FREE] - s->by_type[KMT_EV_PAGE_ALLOC] -
	       pages_freed);
	printf("Events lost: %" PRIu64, s->lost);
	if (s->lost) {
		printf(" (");
		for (i = 0; i < t->nr_cpus; i++)
			printf("%scpu%u %" PRIu64, i ? ", " : "", t->cpus[i].cpu,
			       t->cpus[i].lost);
		printf(")");
	}
	printf("\n");
}

static const char *const mt_names[KMT_PG_MT_COLS] = {
	"Unmovable", "Movable", "Reclaimable", "HighAtomic", "CMA/Isolate",
};

/* The page table by caller, or with @pfns by page frame. */
static void page_caller_name(const struct kmt_page_caller *c, bool pfns,
			     const struct kmt_symtab *st,
			     const struct report_opts *o, char *name, size_t size)
{
	if (pfns)
		snprintf(name, size, "0x%" PRIx64, c->site);
	else if (c->site)
		kmt_symtab_format(st, c->site, o->raw_ip, name, size);
	else
		snprintf(name, size, "(unknown)");
}

static void print_page_rows(const struct kmt_trace *t, const struct kmt_slab *s,
			    bool pfns, const struct kmt_symtab *st,
			    const struct report_opts *o)
{
	const struct kmt_page_caller *rows = pfns ? s->ppages : s->pcallers;
	size_t nr = pfns ? s->nr_ppages : s->nr_pcallers;
	static const char *const mt_short[] = {
		"UNMOVABLE", "MOVABLE", "RECLAIMABLE", "HIGHATOMIC",
	};
	char name[256], gfp[256];
	size_t i, n = nr;
	int w = KMT_NAME_COL;

	/* without a stack every row is "(unknown)": say so, once, instead */
	if (!pfns && !s->pg_with_stack) {
		char src[16] = "";

		kmt_trace_meta(t, "source", src, sizeof(src));
		if (!strcmp(src, "ftrace"))
			printf("(ftrace's mm_page_alloc event carries no caller: 'perf kmem record --page' records them, then 'kmemflight import')\n");
		else
			printf("(no page allocation carries its callers: boot with kmemtrace.page_stack=6 to record them)\n");
		return;
	}
	if (o->verbose && !pfns) {
		const char *const *ex, *const *pre;
		size_t ne, np;

		kmt_page_internal_names(&ex, &ne, &pre, &np);
		printf("Frames taken as the page allocator's (the caller is the first other one):\n ");
		for (i = 0; i < ne; i++)
			printf(" %s", ex[i]);
		printf("\n  and any name starting with:");
		for (i = 0; i < np; i++)
			printf(" %s", pre[i]);
		printf("\n\n");
	}
	if (o->lines >= 0 && (size_t)o->lines < n)
		n = (size_t)o->lines;
	for (i = 0; i < n; i++) {
		page_caller_name(&rows[i], pfns, st, o, name, sizeof(name));
		w = kmt_name_width(w, name);
	}
	kmt_rule(120 + w - KMT_NAME_COL);
	printf(" %-*s | Total_alloc/Per   | Hit      | Order | Migrate type | GFP flags\n",
	       w, pfns ? "Page" : "Callsite");
	kmt_rule(120 + w - KMT_NAME_COL);
	for (i = 0; i < n; i++) {
		const struct kmt_page_caller *c = &rows[i];
		char mt[16];

		page_caller_name(c, pfns, st, o, name, sizeof(name));
		if (c->migratetype >= 0 && c->migratetype < 4)
			snprintf(mt, sizeof(mt), "%s", mt_short[c->migratetype]);
		else
			snprintf(mt, sizeof(mt), "%d", c->migratetype);
		kmt_gfp_format(t, c->gfp, gfp, sizeof(gfp));
		printf(" %-*s | %9" PRIu64 "/%-7" PRIu64 " | %8" PRIu64 " | %5u | %-12s | %s\n",
		       w, name, c->bytes, c->hit ? c->bytes / c->hit : 0, c->hit, c->order,
		       mt, gfp);
	}
	if (n < nr)
		printf(" %-*s | %-17s | %-8s | %-5s | %-12s | %s\n", w, "...", "...",
		       "...", "...", "...", "...");
	kmt_rule(120 + w - KMT_NAME_COL);
}

static void print_page_summary(const struct kmt_slab *s)
{
	unsigned int o, m;

	printf("\nSUMMARY (page allocator)\n");
	printf("========================\n");
	printf("Total alloc requested: %" PRIu64 "\n", s->pg_requests);
	printf("Total alloc failure:   %" PRIu64 "\n", s->pg_fails);
	printf("Total bytes allocated: %" PRIu64 "\n", s->pg_bytes_alloc);
	printf("Total free requested:  %" PRIu64 "\n", s->pg_frees);
	printf("Total free unmatched:  %" PRIu64 "\n", s->pg_free_unmatched);
	printf("Total bytes freed:     %" PRIu64 "\n", s->pg_bytes_freed);
	if (s->pg_frees_batched)
		printf("(%" PRIu64 " mm_page_free_batched events repeat an mm_page_free: not counted again)\n",
		       s->pg_frees_batched);
	printf("\nOrder");
	for (m = 0; m < KMT_PG_MT_COLS; m++)
		printf("  %12s", mt_names[m]);
	printf("\n-----");
	for (m = 0; m < KMT_PG_MT_COLS; m++)
		printf("  %.12s", dashes);
	printf("\n");
	for (o = 0; o < KMT_PG_ORDERS; o++) {
		printf("%5u", o);
		for (m = 0; m < KMT_PG_MT_COLS; m++)
			printf("  %12" PRIu64, s->pg_order_mt[o][m]);
		printf("\n");
	}
}

/*
 * The allocations put past a wrapper to their caller; with -v, the
 * wrappers the recorder took from kallsyms and how many went through each.
 */
static void print_wrappers(const struct kmt_slab *s, const struct report_opts *o)
{
	size_t i;

	if (!s->nr_via && !(o->verbose && s->nr_wrappers))
		return;
	printf("%" PRIu64 " allocations made through a wrapper are put to the first"
	       " caller outside it%s\n", s->nr_via,
	       o->verbose ? ":" : " (-v lists the wrappers)");
	if (!o->verbose)
		return;
	for (i = 0; i < s->nr_wrappers; i++)
		printf("  %-32.*s %10" PRIu64 "\n", (int)s->wrappers[i].name_len,
		       s->wrappers[i].name, s->wrappers[i].hits);
}

static void print_live(const struct kmt_trace *t, const struct kmt_slab *s,
		       const struct kmt_symtab *st, const struct report_opts *o,
		       const char *title)
{
	static const char *const life[KMT_LIFE_BUCKETS] = {
		"< 1us", "< 10us", "< 100us", "< 1ms", "< 10ms", "< 100ms",
		"< 1s", "< 10s", ">= 10s",
	};
	struct kmt_caller *live = kmt_slab_live_sorted(s);
	char name[256];
	size_t i, n = 0, shown = 0;
	unsigned int b;
	uint64_t freed = 0;
	int w = KMT_NAME_COL;

	if (title)
		printf("%s\n", title);
	else
		printf("Boot footprint at %" PRIu64 ".%09" PRIu64 " s (the last event taken):"
		       " slab objects allocated and never freed\n",
		       s->last_ts / 1000000000u, s->last_ts % 1000000000u);
	if (!live) {
		kmf_error("out of memory");
		return;
	}
	for (i = 0; i < s->nr_callers; i++)
		n += live[i].live_bytes > 0;
	for (i = 0; i < n && (o->lines < 0 || i < (size_t)o->lines); i++) {
		kmt_symtab_format(st, live[i].call_site, o->raw_ip, name, sizeof(name));
		w = kmt_name_width(w, name);
	}
	kmt_rule(99 + w - KMT_NAME_COL);
	printf(" %-*s | %12s | %8s | %12s | %12s | %s\n", w, "Callsite",
	       "Retained", "Objects", "Allocated", "Transient", "Retained%");
	kmt_rule(99 + w - KMT_NAME_COL);
	for (i = 0; i < s->nr_callers && live[i].live_bytes; i++) {
		const struct kmt_caller *c = &live[i];

		if (o->lines >= 0 && shown == (size_t)o->lines)
			break;
		kmt_symtab_format(st, c->call_site, o->raw_ip, name, sizeof(name));
		printf(" %-*s | %12" PRIu64 " | %8" PRIu64 " | %12" PRIu64
		       " | %12" PRIu64 " | %8.3f%%\n", w, name, c->live_bytes,
		       c->live_objs, c->bytes_alloc, c->bytes_alloc - c->live_bytes,
		       100.0 * (double)c->live_bytes / (double)c->bytes_alloc);
		shown++;
	}
	if (shown < n)
		printf(" %-*s | %12s | %8s | %12s | %12s | %s\n", w, "...", "...",
		       "...", "...", "...", "...");
	kmt_rule(99 + w - KMT_NAME_COL);
	printf(" %-*s | %12" PRIu64 " | %8" PRIu64 " | %12" PRIu64 " | %12" PRIu64 " |\n",
	       w, "total", s->live_bytes, s->live_objs, s->total_alloc,
	       s->total_alloc - s->live_bytes);

	if (s->nr_untraced_frees)
		printf("(%" PRIu64 " objects, %" PRIu64 " bytes, were allocated again at"
		       " their address without a free in the trace: counted as freed)\n",
		       s->nr_untraced_frees, s->untraced_free_bytes);
	/*
	 * The buffers as report --footprint counts them: the pool the
	 * recorder had (given back after the save or not), else what the
	 * topology says each CPU had.
	 */
	if (t->has_buffers && !title && t->fmt.pool_subbufs)
		printf("The recorder's own: %" PRIu64 " bytes in %" PRIu64
		       " objects and %" PRIu64 " bytes of pages, allocated by its"
		       " functions and its initcalls (in the tables), and %" PRIu64
		       " bytes of buffers in one pool for the machine\n",
		       s->rec_slab_bytes, s->rec_slab_objs, s->rec_page_bytes,
		       kmt_trace_buffer_bytes(t));
	else if (t->has_buffers && !title)
		printf("The recorder's own: %" PRIu64 " bytes in %" PRIu64
		       " objects and %" PRIu64 " bytes of pages, allocated by its"
		       " functions and its initcalls (in the tables), and %" PRIu64
		       " bytes of buffers on %u CPUs (its topology)\n",
		       s->rec_slab_bytes, s->rec_slab_objs, s->rec_page_bytes,
		       kmt_trace_buffer_bytes(t), t->nr_buffered);
	printf("\n %-34s | %12s | %8s\n", "Cache", "Retained", "Objects");
	printf("%.62s\n", dashes);
	for (i = 0; i < s->nr_live_caches; i++) {
		if (o->lines >= 0 && i == (size_t)o->lines) {
			printf(" %-34s | %12s | %8s\n", "...", "...", "...");
			break;
		}
		kmt_cache_label(t, &s->live_caches[i], name, sizeof(name));
		printf(" %-34s | %12" PRIu64 " | %8" PRIu64 "\n", name,
		       s->live_caches[i].bytes, s->live_caches[i].objs);
	}

	printf("\nPages still allocated: %" PRIu64 " blocks, %" PRIu64 " bytes",
	       s->pg_live_blocks, s->pg_live_bytes);
	for (b = 0, n = 0; b < KMT_PG_ORDERS; b++)
		if (s->pg_live_order[b])
			printf("%sorder %u: %" PRIu64, n++ ? ", " : " (", b,
			       s->pg_live_order[b]);
	printf("%s\n", n ? ")" : "");
	if (s->pg_with_stack && s->nr_live_psites) {
		printf(" %-34s | %12s | %8s\n", "Page caller", "Retained", "Blocks");
		printf("%.62s\n", dashes);
		for (i = 0; i < s->nr_live_psites; i++) {
			const struct kmt_live_psite *p = &s->live_psites[i];

			if (o->lines >= 0 && i == (size_t)o->lines) {
				printf(" %-34s | %12s | %8s\n", "...", "...", "...");
				break;
			}
			if (p->site)
				kmt_symtab_format(st, p->site, o->raw_ip, name, sizeof(name));
			else
				snprintf(name, sizeof(name), "(unknown)");
			printf(" %-34s | %12" PRIu64 " | %8" PRIu64 "\n", name, p->bytes,
			       p->blocks);
		}
	}
	if (s->vm_allocs) {
		printf("\nvmalloc areas still held: %" PRIu64 ", with %" PRIu64
		       " bytes of the pages above, by the caller vmalloc() was given\n",
		       s->vm_live_areas, s->vm_live_bytes);
		printf(" %-34s | %12s | %8s\n", "vmalloc caller", "Retained", "Areas");
		printf("%.62s\n", dashes);
		for (i = 0; i < s->nr_live_vsites; i++) {
			const struct kmt_live_vsite *v = &s->live_vsites[i];

			if (o->lines >= 0 && i == (size_t)o->lines) {
				printf(" %-34s | %12s | %8s\n", "...", "...", "...");
				break;
			}
			if (v->caller)
				kmt_symtab_format(st, v->caller, o->raw_ip, name, sizeof(name));
			else
				snprintf(name, sizeof(name), "(unknown)");
			printf(" %-34s | %12" PRIu64 " | %8" PRIu64 "\n", name,
			       v->bytes, v->areas);
		}
	}
	print_wrappers(s, o);
	for (b = 0; b < KMT_LIFE_BUCKETS; b++)
		freed += s->lifetime[b];
	printf("Lifetime of the %" PRIu64 " objects freed:", freed);
	for (b = 0; b < KMT_LIFE_BUCKETS; b++)
		printf("%s %s: %" PRIu64, b ? "," : "", life[b], s->lifetime[b]);
	printf("\n");
	free(live);
}

static void print_stats_row(const char *name, const struct kmt_phase_stats *p,
			    const char *extra)
{
	printf(" %-34s | %12" PRIu64 " | %12" PRIu64 " | %12" PRIu64 " | %12" PRIu64
	       " | %9" PRIu64 "%s\n", name, p->slab_alloc, p->slab_retained,
	       p->page_alloc, p->page_retained, p->events, extra);
}

/*
 * Who allocated, by process name or by the unit of its cgroup: every
 * event in task context is put to the task's name and cgroup when it
 * was made, those in interrupts to "[softirq]" and the like.
 */
static void print_who(const struct kmt_who_row *r, size_t nr, const char *what,
		      const char *head, const struct report_opts *o)
{
	size_t i, n = o->lines >= 0 && (size_t)o->lines < nr ? (size_t)o->lines : nr;
	int w = 34, d;

	/* as wide as the longest name shown, so that no unit is cut */
	for (i = 0; i < n; i++)
		if ((int)r[i].name_len > w)
			w = r[i].name_len > 64 ? 64 : (int)r[i].name_len;
	d = 104 - 34 + w;
	printf("\n%s by bytes retained (slab + pages)\n", what);
	printf("%.*s\n", d, dashes);
	printf(" %-*s | %12s | %12s | %12s | %12s | %9s\n", w, head,
	       "Slab alloc", "Slab kept", "Page alloc", "Page kept", "Events");
	printf("%.*s\n", d, dashes);
	for (i = 0; i < n; i++) {
		const struct kmt_phase_stats *p = &r[i].st;
		int len = (int)(r[i].name_len > 64 ? 64 : r[i].name_len);
		const char *name = r[i].name;

		if (len == 1 && name[0] == '-') {
			name = "(root cgroup: no unit)";
			len = (int)strlen(name);
		}
		printf(" %-*.*s | %12" PRIu64 " | %12" PRIu64 " | %12" PRIu64 " | %12"
		       PRIu64 " | %9" PRIu64 "\n", w, len, name, p->slab_alloc,
		       p->slab_retained, p->page_alloc, p->page_retained, p->events);
	}
	if (n < nr)
		printf(" %-*s | %12s | %12s | %12s | %12s | %9s\n", w,
		       "...", "...", "...", "...", "...", "...");
	printf("%.*s\n", d, dashes);
}

static void print_phases(const struct kmt_slab *s, const struct kmt_symtab *st,
			 const struct report_opts *o)
{
	char name[256], extra[96];
	size_t i;

	printf("Boot phases: bytes allocated, and retained at the end (%" PRIu64 ".%09"
	       PRIu64 " s)\n", s->last_ts / 1000000000u, s->last_ts % 1000000000u);
	printf("%.104s\n", dashes);
	printf(" %-34s | %12s | %12s | %12s | %12s | %9s | %s\n", "Phase (start, s)",
	       "Slab alloc", "Slab kept", "Page alloc", "Page kept", "Events",
	       "Initcalls");
	printf("%.104s\n", dashes);
	for (i = 0; i < s->nr_phases; i++) {
		const struct kmt_phase *p = &s->phases[i];
		size_t j, n = 0;

		for (j = 0; j < s->nr_initcalls; j++)
			n += s->initcalls[j].phase == i;
		snprintf(name, sizeof(name), "%s%.*s (%" PRIu64 ".%06" PRIu64 ")",
			 p->exec ? "exec " : i ? "level " : "",
			 (int)(p->name_len > 60 ? 60 : p->name_len), p->name,
			 p->start / 1000000000u, p->start % 1000000000u / 1000u);
		snprintf(extra, sizeof(extra), " | %zu", n);
		print_stats_row(name, &p->st, extra);
	}
	printf("%.104s\n", dashes);

	printf("\nInitcalls by bytes retained (slab + pages)\n");
	printf("%.118s\n", dashes);
	printf(" %-34s | %12s | %12s | %12s | %12s | %9s | %-9s | %s\n", "Initcall",
	       "Slab alloc", "Slab kept", "Page alloc", "Page kept", "Events",
	       "Level", "ms");
	printf("%.118s\n", dashes);
	for (i = 0; i < s->nr_initcalls; i++) {
		const struct kmt_initcall *c = &s->initcalls[i];
		const struct kmt_phase *p = &s->phases[c->phase];

		if (o->lines >= 0 && i == (size_t)o->lines) {
			printf(" %-34s | %12s | %12s | %12s | %12s | %9s | %-9s | %s\n",
			       "...", "...", "...", "...", "...", "...", "...", "...");
			break;
		}
		kmt_symtab_format(st, c->fn, o->raw_ip, name, sizeof(name));
		snprintf(extra, sizeof(extra), " | %-9.*s | %.3f",
			 (int)(p->name_len > 9 ? 9 : p->name_len), p->name,
			 (double)c->ns / 1e6);
		print_stats_row(name, &c->st, extra);
	}
	printf("%.118s\n", dashes);
	if (!s->nr_initcalls)
		printf("(no initcall events: the trace predates boot phase recording, or --time excludes them)\n");
	if (!s->has_tasks) {
		printf("\n(no task records: who allocated in user space needs a recorder that writes them, with the boot group)\n");
		return;
	}
	print_who(s->by_comm, s->nr_by_comm, "Processes", "Process (comm)", o);
	print_who(s->by_unit, s->nr_by_unit, "systemd units", "Unit (of the cgroup)", o);
}

/*
 * --window: what froze the flight recorder, its window, and what the
 * window allocated and still held at the trigger.
 */
static int window_tables(const struct kmt_trace *t, const struct kmt_symtab *st,
			 struct report_opts *o, struct kmt_slab *s,
			 const struct kmt_window *wp);

static int report_window(const struct kmt_trace *t, const struct kmt_symtab *st,
			 struct report_opts *o, struct kmt_slab *s)
{
	struct kmt_window w;
	struct kmt_err err = { "" };
	struct kmt_trace tw;
	char *names = NULL;
	size_t names_len = 0;
	int ret;

	if (kmt_window_find(t, o->before, &w, &err)) {
		kmf_error("%s: %s", o->path, err.msg);
		return KMF_EXIT_FAIL;
	}
	/*
	 * The tasks at the save name the pids of the window, and the
	 * trigger's record its task: the OOM killer's victim, gone by the
	 * save.  Its line comes last, so that it wins.
	 */
	tw = *t;
	if (w.have_trig && w.trig.task_pid && w.trig.comm_len &&
	    !memchr(w.trig.comm, '\t', w.trig.comm_len) &&
	    !memchr(w.trig.comm, '\n', w.trig.comm_len)) {
		names = malloc(t->tasks_len + w.trig.comm_len + 16);
		if (!names) {
			kmf_error("out of memory");
			return KMF_EXIT_FAIL;
		}
		if (t->tasks_len)
			memcpy(names, t->tasks, t->tasks_len);
		names_len = t->tasks_len;
		names_len += (size_t)sprintf(names + names_len, "%s%" PRIu32 "\t%.*s\t\n",
					     names_len && names[names_len - 1] != '\n' ? "\n" : "",
					     w.trig.task_pid, (int)w.trig.comm_len, w.trig.comm);
		tw.tasks = names;
		tw.tasks_len = names_len;
	}
	ret = window_tables(&tw, st, o, s, &w);
	free(names);
	return ret;
}

static int window_tables(const struct kmt_trace *t, const struct kmt_symtab *st,
			 struct report_opts *o, struct kmt_slab *s,
			 const struct kmt_window *wp)
{
	struct kmt_window w = *wp;
	struct kmt_err err = { "" };
	char title[160];

	printf("Flight recorder window of %s\n", o->path);
	kmt_window_print(t, st, &w, o->raw_ip);
	o->start = w.start;
	o->end = w.end;
	if (kmt_slab_analyze_range(t, w.start, w.end, false, st, s, &err)) {
		kmf_error("%s: %s", o->path, err.msg);
		return KMF_EXIT_FAIL;
	}
	if (s->lost)
		kmf_warn("%" PRIu64 " events were lost in the window: totals are short",
			 s->lost);
	kmt_slab_sort(s, o->keys, o->nr_keys);
	kmt_page_sort(s, o->pkeys, o->nr_pkeys);
	printf("\n");
	snprintf(title, sizeof(title),
		 "Allocated in the window and still held at the %s: slab objects by callsite",
		 t->flight.trigger ? "trigger" : "save");
	print_live(t, s, st, o, title);
	if (s->has_tasks)
		print_who(s->by_comm, s->nr_by_comm, "Processes (in the window)",
			  "Process (comm)", o);
	else
		printf("\n(no task records in the window: who allocated is not known)\n");
	printf("\n");
	print_page_summary(s);
	/* the reclaim and compaction of the window, when they were recorded */
	printf("\n");
	if (kmt_report_latency(t, st, o, o->path, &err))
		printf("(no allocation latency in the window: the reclaim and compaction groups were not recorded in it, kmemtrace.events=kmem,boot,latency)\n");
	return KMF_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct kmt_trace t;
	struct kmt_slab s;
	struct kmt_symtab st = { 0 };
	struct kmt_vmlinux vm = { .fd = -1 };
	const struct kmt_symtab *sym = &st;
	struct kmt_err err = { "" };
	int ret, status = KMF_EXIT_FAIL;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	ret = kmt_trace_open_flags(o.path, KMT_OPEN_TRUNCATED, &t, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_FAIL;
	}
	kmf_note_coverage(&t);
	memset(&s, 0, sizeof(s));
	if (kmf_symbols(&t, o.path, o.vmlinux, o.raw_ip, &st, &vm, &sym))
		goto out;
	if (o.footprint) {
		if (kmt_report_footprint(&t, sym, &o, o.path, &err))
			kmf_error("%s", err.msg);
		else
			status = KMF_EXIT_OK;
		goto out;
	}
	if (o.memblock) {
		if (kmt_report_memblock(&t, sym, &o, o.path, &err))
			kmf_error("%s", err.msg);
		else
			status = KMF_EXIT_OK;
		goto out;
	}
	if (o.latency) {
		if (kmt_report_latency(&t, sym, &o, o.path, &err))
			kmf_error("%s", err.msg);
		else
			status = KMF_EXIT_OK;
		goto out;
	}
	if (o.window) {
		status = report_window(&t, sym, &o, &s);
		goto out;
	}
	ret = kmt_slab_analyze_range(&t, o.start, o.end, o.alloc, sym, &s, &err);
	if (ret) {
		kmf_error("%s: %s", o.path, err.msg);
		goto out;
	}
	if (s.nr_unknown_cache)
		kmf_warn("%" PRIu64 " kmem_cache events name a cache the trace never defined",
			 s.nr_unknown_cache);
	if (s.lost)
		kmf_warn("%" PRIu64 " events were lost while recording: totals are short",
			 s.lost);
	if (!s.nr_events) {
		kmf_error("no event of %s falls within --time: its events run from %" PRIu64
			  ".%09" PRIu64 " s to %" PRIu64 ".%09" PRIu64 " s", o.path,
			  s.trace_first_ts / 1000000000u, s.trace_first_ts % 1000000000u,
			  s.trace_last_ts / 1000000000u, s.trace_last_ts % 1000000000u);
		goto out;
	}
	status = KMF_EXIT_OK;
	kmt_slab_sort_initcalls(&s);
	kmt_slab_sort(&s, o.keys, o.nr_keys);
	kmt_slab_sort_ptrs(&s, o.keys, o.nr_keys);
	kmt_page_sort(&s, o.pkeys, o.nr_pkeys);
	if (o.json) {
		kmt_report_json(stdout, &t, &s, sym, &o);
		goto out;
	}
	if (o.csv) {
		kmt_report_csv(stdout, &t, &s, sym, &o);
		goto out;
	}
	if (o.phase) {
		print_phases(&s, sym, &o);
		if (o.live || o.slab || o.page)
			printf("\n");
	}
	if (o.live) {
		print_live(&t, &s, sym, &o, NULL);
		if (o.slab || o.page)
			printf("\n");
	}
	if (o.slab) {
		if (o.caller)
			print_rows(s.callers, s.nr_callers, false, sym, &o);
		if (o.alloc) {
			if (o.caller)
				printf("\n");
			print_rows(s.ptrs, s.nr_ptrs, true, sym, &o);
		}
		print_summary(&t, &s);
		print_wrappers(&s, &o);
	}
	if (o.page) {
		if (o.slab)
			printf("\n");
		if (o.caller)
			print_page_rows(&t, &s, false, sym, &o);
		if (o.alloc) {
			if (o.caller)
				printf("\n");
			print_page_rows(&t, &s, true, sym, &o);
		}
		print_page_summary(&s);
	}
out:
	if (kmf_warn_cut(o.path, &t))
		status = KMF_EXIT_FAIL;
	kmt_vmlinux_close(&vm);
	kmt_symtab_free(&st);
	kmt_slab_free(&s);
	kmt_trace_close(&t);
	return status;
}

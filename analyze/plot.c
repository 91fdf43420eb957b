// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight plot: one SVG of a trace's memory over time.
 *
 * The upper panel stacks what is held by kind: memblock's reservations
 * still held, the recorder's buffers, vmalloc areas, slab objects, and
 * the other pages (page blocks not counted in the kinds below them:
 * page tables, stacks, the free room of slab pages, ...).  At the end of
 * a trace the stack is what report --footprint says the trace explains.
 * Boot phases are bands behind it, a flight recorder's trigger a line.
 * The panel below follows the callers holding most at the end, each on
 * its own line, and a third one, in a trace with task records, the
 * processes whose allocations hold most.  With two traces, the first
 * (the base) is drawn over the second as dashed lines.
 *
 * The SVG is written as text, not through a drawing library: its
 * labels stay text (searchable, selectable, checked by the tests), and
 * <title> elements carry the exact numbers as tooltips.  Labels are
 * measured with the font the renderer will use (svg.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli/cli.h"
#include "../lib/vmlinux.h"
#include "memblock.h"
#include "report.h"
#include "slab.h"
#include "svg.h"

enum kind { K_MEMBLOCK, K_RECORDER, K_VMALLOC, K_SLAB, K_PAGES, K_NR };

static const char *const kind_name[K_NR] = {
	"memblock, reserved at boot",
	"the recorder's buffers",
	"vmalloc areas",
	"slab objects",
	"other pages",
};

/* the kinds as --without names them */
static const char *const kind_opt[K_NR] = {
	"memblock", "buffers", "vmalloc", "slab", "pages",
};

/* kind_name without spaces: the SVG's class and data names */
static const char *const kind_id[K_NR] = {
	"memblock", "recorder", "vmalloc", "slab", "pages",
};

static const char *const kind_color[K_NR] = {
	"#8c6d31", "#7f7f7f", "#9467bd", "#1f77b4", "#2ca02c",
};

/*
 * The callers' lines: distinct from each other at a glance, the first
 * eight most, and none of the kinds' colours or hues (a blue line is
 * not read as the slab objects), nor the base's black.
 */
static const char *const line_color[KMT_WATCH_MAX] = {
	"#d62728", "#ff7f0e", "#17becf", "#e377c2", "#bcbd22", "#843c39",
	"#7b4173", "#e7ba52", "#0e7c86", "#d6616b", "#637939", "#a55194",
	"#bd9e39", "#393b79", "#ce6dbd", "#8ca252",
};

#define FONT_PX		12.0
#define TITLE_PX	15.0
#define DEFAULT_WIDTH	1200
#define DEFAULT_CALLERS	8
#define COL_PX		3	/* one sample per this many pixels */
#define MAX_SAMPLES	4096
#define MAX_LINES	(2 * KMT_WATCH_MAX)	/* callers, then processes */
#define LEAD_DY		24	/* the row of phase names above the others */

struct plot_opts {
	const char *out;
	const char *vmlinux;
	const char *title;
	bool raw_ip;
	uint64_t start, end;
	bool have_range;
	unsigned int callers;
	unsigned int width;
	bool without[K_NR];	/* kinds left out of the stack (--without) */
	const char *paths[2];
	unsigned int nr_paths;
};

/*
 * A line of the lower panels: a caller (a slab callsite, a page site,
 * memblock's), or a process name.
 */
enum pick_kind { P_SLAB, P_PAGES, P_MEMBLOCK, P_PROCESS };

static const char *const pick_kind_name[] = { "slab", "pages", "memblock", "process" };

struct pick {
	char name[256];
	enum pick_kind kind;
	uint64_t bytes;		/* held at the end of the new trace */
};

/* One trace: its analysis and its samples. */
struct series {
	const char *path;
	struct kmt_trace t;
	bool open;
	struct kmt_symtab st;
	struct kmt_vmlinux vm;
	const struct kmt_symtab *sym;
	struct kmt_slab s;	/* the whole trace, up to the range's end */
	struct kmt_memblock mb;
	bool have_mb;
	bool flight;
	struct kmt_window w;
	uint64_t buffers;	/* the recorder's buffers at the save */
	char source[16];	/* an import's source ("perf", "ftrace"), else "" */
	/* why the trace could not have recorded a kind, "": it could */
	char missing[K_NR][160];
	/* the samples: times, by kind, by pick */
	size_t n;
	uint64_t ts[MAX_SAMPLES + 1];
	uint64_t kind[MAX_SAMPLES + 1][K_NR];
	uint64_t raw_bufpages[MAX_SAMPLES + 1];
	uint64_t raw_pages[MAX_SAMPLES + 1];
	uint64_t who[MAX_SAMPLES + 1][MAX_LINES];
	bool has_pick[MAX_LINES];	/* the trace has that caller */
	uint64_t mb_site[MAX_LINES];	/* memblock picks: their site here */
	unsigned int nr_picks;
	uint64_t step;
	uint64_t events_before, events_last;	/* the pass's count at the samples */
	const struct pick *picks;	/* while sampling */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight plot [<options>] [<base.kmt>] <file.kmt>\n"
		"\n"
		"Draw a trace's memory over time as one SVG: what is held, stacked by\n"
		"kind (memblock, the recorder's buffers, vmalloc, slab objects, other\n"
		"pages), the boot phases or the flight recorder's trigger behind it,\n"
		"and the callers that hold most at the end, each as a line (and the\n"
		"processes whose allocations do, in a panel of their own).  Every\n"
		"column has a tooltip with the exact bytes.  With two files, the\n"
		"first is the base: its total and callers are drawn dashed over the\n"
		"second, on one time axis.\n"
		"\n"
		"  -o, --output <file>       write the SVG there (replaced whole, never\n"
		"                            left half written); '-' or a pipe: stdout\n"
		"      --time <start>,<end>  the time axis: from, to (s, ms, us, ns;\n"
		"                            either may be left out)\n"
		"      --at <time>           the same as --time ,<time>\n"
		"      --callers <N>         callers to follow (default %d, at most %d), and\n"
		"                            as many processes\n"
		"      --width <px>          the picture's width (default %d, 640 to 4000)\n"
		"      --without <kind>,...  leave these kinds out of the stack, and their\n"
		"                            callers: memblock, buffers, vmalloc, slab,\n"
		"                            pages\n"
		"      --title <text>        the picture's title (default: the release\n"
		"                            and file)\n"
		"      --vmlinux <file>      callers named from the recording kernel's image\n"
		"      --raw-ip              callers as addresses\n"
		"  -h, --help                this help\n",
		DEFAULT_CALLERS, KMT_WATCH_MAX, DEFAULT_WIDTH);
}

/* --without memblock,buffers: the kinds to leave out, into @without. */
static int parse_without(const char *arg, bool *without)
{
	const char *p = arg, *e;
	size_t len;
	int k;

	do {
		e = strchr(p, ',');
		len = e ? (size_t)(e - p) : strlen(p);
		for (k = 0; k < K_NR; k++)
			if (strlen(kind_opt[k]) == len && !strncmp(p, kind_opt[k], len))
				break;
		if (k == K_NR)
			return kmf_usage_error("--without: no kind '%.*s': the kinds are %s, %s, %s, %s and %s",
					       (int)len, p, kind_opt[0], kind_opt[1],
					       kind_opt[2], kind_opt[3], kind_opt[4]);
		without[k] = true;
		p = e + 1;
	} while (e);
	return 0;
}

static int parse_args(int argc, char **argv, struct plot_opts *o)
{
	enum { OPT_TIME = 256, OPT_AT, OPT_CALLERS, OPT_WIDTH, OPT_TITLE,
	       OPT_VMLINUX, OPT_RAW_IP, OPT_WITHOUT };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "at", required_argument, NULL, OPT_AT },
		{ "callers", required_argument, NULL, OPT_CALLERS },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "without", required_argument, NULL, OPT_WITHOUT },
		{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
		{ "raw-ip", no_argument, NULL, OPT_RAW_IP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int range_given = 0;
	char *end;
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->end = UINT64_MAX;
	o->callers = DEFAULT_CALLERS;
	o->width = DEFAULT_WIDTH;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return kmf_usage_error("option '-o' wants a file name ('-' for standard output)");
			o->out = optarg;
			break;
		case OPT_TIME:
		case OPT_AT:
			if (kmf_time_option(c == OPT_AT, optarg, &range_given,
					    &o->start, &o->end))
				return KMF_EXIT_USAGE;
			o->have_range = true;
			break;
		case OPT_CALLERS:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 1 || v > KMT_WATCH_MAX)
				return kmf_usage_error("--callers wants 1 to %d, not '%s'",
						       KMT_WATCH_MAX, optarg);
			o->callers = (unsigned int)v;
			break;
		case OPT_WIDTH:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 640 || v > 4000)
				return kmf_usage_error("--width wants 640 to 4000 pixels, not '%s'",
						       optarg);
			o->width = (unsigned int)v;
			break;
		case OPT_TITLE:
			o->title = optarg;
			break;
		case OPT_WITHOUT:
			if (parse_without(optarg, o->without))
				return KMF_EXIT_USAGE;
			break;
		case OPT_VMLINUX:
			o->vmlinux = optarg;
			break;
		case OPT_RAW_IP:
			o->raw_ip = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			/* -n was --callers up to 0.21.0: one meaning per short option */
			if (optopt == 'n')
				return kmf_usage_error("option '-n' is now '--callers <N>' (-n is watch's --keep)");
			return kmf_option_error(longopts, "o:h", optopt,
						argv[optind - 1], NULL);
		}
	}
	if (optind == argc)
		return kmf_usage_error("missing <file> to draw");
	if (argc - optind > 2)
		return kmf_usage_error("one <file>, or a <base> and a <file>, not %d files",
				       argc - optind);
	while (optind < argc)
		o->paths[o->nr_paths++] = argv[optind++];
	if ((!o->out || !strcmp(o->out, "-")) && isatty(STDOUT_FILENO))
		return kmf_usage_error("an SVG on a terminal: write it with -o <file>, or into a pipe");
	return 0;
}

/* ---- the traces ------------------------------------------------------ */

/* Whether ftrace's events of an import (META ftrace_events) have @ev. */
static bool ftrace_traced(const struct kmt_trace *t, const char *ev)
{
	char list[256], *p, *save = NULL;

	if (!kmt_trace_meta(t, "ftrace_events", list, sizeof(list)))
		return true;	/* not said: the events it has tell */
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (!strcmp(p, ev))
			return true;
	return false;
}

/*
 * The kinds the trace could not have recorded, and why: an import (perf,
 * ftrace) has no recorder of its own and no memblock or vmalloc events,
 * and slab or pages only if its tracer had their events; an older
 * recorder has no layout for some; a recorder whose groups left out kmem
 * recorded none.  A kind that could be recorded and is 0 is 0 B.
 */
static void note_kinds(struct series *sr)
{
	const struct kmt_trace *t = &sr->t;
	const struct kmt_slab *s = &sr->s;
	char src[sizeof(sr->source)];
	bool kmem = !s->have_groups || (s->groups & (1u << KMT_GROUP_KMEM));
	bool ftrace = !strcmp(src, "ftrace");
	int k;

	memcpy(src, sr->source, sizeof(src));
	for (k = 0; k < K_NR; k++)
		sr->missing[k][0] = 0;
	if (!sr->have_mb)
		snprintf(sr->missing[K_MEMBLOCK], sizeof(sr->missing[0]), "%s",
			 src[0] ? "an import: its tracer has no memblock events" :
			 !t->layout[KMT_EV_MEMBLOCK].present ?
			 "its recorder is older than memblock's events" :
			 "no memblock events: the recorder was not started at boot (kmemtrace.enable=1), or kmemtrace.events left out kmem");
	if (src[0])
		snprintf(sr->missing[K_RECORDER], sizeof(sr->missing[0]),
			 "an import from %s: no kmemtrace recorder, so no buffers of its own", src);
	if (src[0] || !t->layout[KMT_EV_VMALLOC].present || !kmem)
		snprintf(sr->missing[K_VMALLOC], sizeof(sr->missing[0]), "%s",
			 src[0] ? "an import: its tracer has no vmalloc events" :
			 !kmem ? "kmemtrace.events left out kmem" :
			 "its recorder is older than vmalloc's events");
	if (!kmem || (ftrace && !ftrace_traced(t, "kmalloc") &&
		      !ftrace_traced(t, "kmem_cache_alloc")) ||
	    (src[0] && !ftrace && !s->by_type[KMT_EV_KMALLOC] &&
	     !s->by_type[KMT_EV_CACHE_ALLOC]))
		snprintf(sr->missing[K_SLAB], sizeof(sr->missing[0]), "%s",
			 !kmem ? "kmemtrace.events left out kmem" :
			 ftrace ? "ftrace traced neither kmalloc nor kmem_cache_alloc" :
			 "the import has no slab events (perf kmem record --page only?)");
	if (!kmem || (ftrace && !ftrace_traced(t, "mm_page_alloc")) ||
	    (src[0] && !ftrace && !s->by_type[KMT_EV_PAGE_ALLOC]))
		snprintf(sr->missing[K_PAGES], sizeof(sr->missing[0]), "%s",
			 !kmem ? "kmemtrace.events left out kmem" :
			 ftrace ? "ftrace did not trace mm_page_alloc" :
			 "the import has no page events (perf kmem record without --page)");
}

static int open_series(struct series *sr, const char *path,
		       const struct plot_opts *o)
{
	struct kmt_err err = { "" };

	sr->path = path;
	sr->vm.fd = -1;
	if (kmt_trace_open_flags(path, KMT_OPEN_TRUNCATED, &sr->t, &err)) {
		kmf_error("%s", err.msg);
		return -1;
	}
	sr->open = true;
	kmf_note_coverage(&sr->t);
	if (kmf_symbols(&sr->t, path, o->vmlinux, o->raw_ip, &sr->st, &sr->vm, &sr->sym))
		return -1;
	if (kmt_slab_analyze_range(&sr->t, 0, o->end, false, sr->sym, &sr->s, &err)) {
		kmf_error("%s: %s", path, err.msg);
		return -1;
	}
	if (!sr->s.nr_events || sr->s.last_ts < o->start) {
		kmf_error("no event of %s falls within --time: its events run from %" PRIu64
			  ".%09" PRIu64 " s to %" PRIu64 ".%09" PRIu64 " s", path,
			  sr->s.trace_first_ts / 1000000000u,
			  sr->s.trace_first_ts % 1000000000u,
			  sr->s.trace_last_ts / 1000000000u,
			  sr->s.trace_last_ts % 1000000000u);
		return -1;
	}
	if (sr->s.lost)
		kmf_warn("%s: %" PRIu64 " events were lost while recording: what is held is short",
			 path, sr->s.lost);
	if (kmt_memblock_analyze(&sr->t, UINT64_MAX, &sr->mb, &err)) {
		kmf_error("%s: %s", path, err.msg);
		return -1;
	}
	sr->have_mb = sr->mb.nr_events > 0;
	if (sr->t.flight.present && sr->t.flight.mode == KMT_MODE_FLIGHT &&
	    !kmt_window_find(&sr->t, 0, &sr->w, &err))
		sr->flight = true;
	if (!kmt_trace_meta(&sr->t, "source", sr->source, sizeof(sr->source)))
		sr->source[0] = 0;
	note_kinds(sr);
	sr->buffers = sr->missing[K_RECORDER][0] ? 0 : kmt_trace_buffer_bytes(&sr->t);
	return 0;
}

static void close_series(struct series *sr)
{
	kmt_slab_free(&sr->s);
	kmt_memblock_free(&sr->mb);
	kmt_vmlinux_close(&sr->vm);
	kmt_symtab_free(&sr->st);
	if (sr->open)
		kmt_trace_close(&sr->t);
}

/* The callers holding most at the end: slab callsites and page sites. */
struct cand {
	uint64_t site, bytes;
	enum pick_kind kind;
};

static int cmp_cand(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->site < b->site ? -1 : a->site > b->site;
}

/* The @max candidates of @c holding most, into @picks. */
static unsigned int take_picks(const struct series *sr, const struct plot_opts *o,
			       struct cand *c, size_t n, struct pick *picks)
{
	const struct kmt_slab *s = &sr->s;
	unsigned int nr = 0;
	size_t i;

	qsort(c, n, sizeof(*c), cmp_cand);
	for (i = 0; i < n && nr < o->callers; i++, nr++) {
		struct pick *p = &picks[nr];

		if (c[i].kind == P_PROCESS)
			snprintf(p->name, sizeof(p->name), "%.*s",
				 (int)s->by_comm[c[i].site].name_len, s->by_comm[c[i].site].name);
		else
			kmt_symtab_format(sr->sym, c[i].site, o->raw_ip, p->name,
					  sizeof(p->name));
		p->kind = c[i].kind;
		p->bytes = c[i].bytes;
	}
	return nr;
}

/*
 * The callers holding most at the end, then, in a trace with task
 * records, the processes whose allocations hold most: two lists, each of
 * --callers at most.
 */
static int pick_callers(const struct series *sr, const struct plot_opts *o,
			struct pick *picks, unsigned int *nr, unsigned int *nr_procs)
{
	const struct kmt_slab *s = &sr->s;
	size_t n = 0, i, max = s->nr_callers + s->nr_live_psites + sr->mb.nr_callers +
			       s->nr_by_comm;
	struct cand *c = calloc(max ? max : 1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	/* the callers of a kind left out are left out too */
	for (i = 0; i < s->nr_callers && !o->without[K_SLAB]; i++)
		if (s->callers[i].live_bytes)
			c[n++] = (struct cand){ s->callers[i].call_site,
						s->callers[i].live_bytes, P_SLAB };
	/* the recorder's sub-buffers are a kind of their own */
	for (i = 0; i < s->nr_live_psites && !o->without[K_PAGES]; i++)
		if (s->live_psites[i].site &&
		    s->live_psites[i].bytes > s->live_psites[i].buffer_bytes)
			c[n++] = (struct cand){ s->live_psites[i].site,
						s->live_psites[i].bytes -
						s->live_psites[i].buffer_bytes, P_PAGES };
	for (i = 0; i < sr->mb.nr_callers && !o->without[K_MEMBLOCK]; i++)
		if (sr->mb.callers[i].held)
			c[n++] = (struct cand){ sr->mb.callers[i].call_site,
						sr->mb.callers[i].held, P_MEMBLOCK };
	*nr = take_picks(sr, o, c, n, picks);
	/* who allocated, by process name (a trace with task records) */
	for (i = 0, n = 0; i < s->nr_by_comm; i++)
		if (s->by_comm[i].st.slab_retained + s->by_comm[i].st.page_retained)
			c[n++] = (struct cand){ i, s->by_comm[i].st.slab_retained +
						s->by_comm[i].st.page_retained, P_PROCESS };
	*nr_procs = take_picks(sr, o, c, n, picks + *nr);
	free(c);
	return 0;
}

/* "foo+0x1a/0x40" and "foo+0x1b": the same function, another build. */
static size_t func_len(const char *name)
{
	const char *plus = strchr(name, '+');

	return plus ? (size_t)(plus - name) : strlen(name);
}

/*
 * The site in @sr of each pick: its exact name, or the same function
 * (another build of the kernel puts the call at another offset).
 */
static void find_sites(struct series *sr, const struct pick *picks,
		       unsigned int nr, unsigned int nr_procs,
		       struct kmt_sampler *sp, const struct plot_opts *o)
{
	const struct kmt_slab *s = &sr->s;
	char name[256];
	unsigned int j;
	size_t i;
	int pass;

	memset(sp, 0, sizeof(*sp));
	sp->nr_watch = nr;	/* the processes are summed from who allocated */
	for (j = nr; j < nr + nr_procs; j++)
		for (i = 0; i < s->nr_by_comm; i++)
			if (s->by_comm[i].name_len == strlen(picks[j].name) &&
			    !memcmp(s->by_comm[i].name, picks[j].name, s->by_comm[i].name_len))
				sr->has_pick[j] = true;
	for (j = 0; j < nr; j++) {
		sp->page[j] = picks[j].kind == P_PAGES;
		sp->site[j] = 1;	/* no site is 1: nothing matches it */
		for (pass = 0; pass < 2 && !sr->has_pick[j]; pass++) {
			size_t nrows = picks[j].kind == P_PAGES ? s->nr_pcallers :
				       picks[j].kind == P_SLAB ? s->nr_callers :
				       sr->mb.nr_callers;

			for (i = 0; i < nrows; i++) {
				uint64_t site = picks[j].kind == P_PAGES ? s->pcallers[i].site :
						picks[j].kind == P_SLAB ? s->callers[i].call_site :
						sr->mb.callers[i].call_site;
				size_t fl;

				if (!site)
					continue;
				kmt_symtab_format(sr->sym, site, o->raw_ip, name,
						  sizeof(name));
				fl = func_len(name);
				if (pass ? fl == func_len(picks[j].name) &&
					   !strncmp(name, picks[j].name, fl) :
					   !strcmp(name, picks[j].name)) {
					if (picks[j].kind == P_MEMBLOCK)
						sr->mb_site[j] = site;
					else
						sp->site[j] = site;
					sr->has_pick[j] = true;
					break;
				}
			}
		}
	}
}

static int on_sample(struct kmt_sampler *sp, const struct kmt_slab *s, uint64_t ts)
{
	struct series *sr = sp->arg;
	size_t i = sr->n, j;

	if (i > MAX_SAMPLES)
		return 0;
	if (!i)		/* the events before the axis starts */
		sr->events_before = s->nr_events;
	sr->events_last = s->nr_events;
	sr->ts[i] = ts;
	sr->kind[i][K_VMALLOC] = s->held.vmalloc;
	sr->kind[i][K_SLAB] = s->held.slab;
	sr->raw_pages[i] = s->held.pages;
	sr->raw_bufpages[i] = s->held.buf_pages;
	for (j = 0; j < sp->nr_watch; j++)
		sr->who[i][j] = sp->held[j];
	/* a process: every row of who allocated by that name */
	for (j = sp->nr_watch; j < sr->nr_picks; j++) {
		size_t len = strlen(sr->picks[j].name), r;

		sr->who[i][j] = 0;
		for (r = 0; r < sp->nr_whos && r < s->who_cap; r++)
			if (sp->whos[r].comm_len == len &&
			    !memcmp(sp->whos[r].comm, sr->picks[j].name, len))
				sr->who[i][j] += s->who_held[r];
	}
	sr->n++;
	sp->next = ts + sr->step;
	if (sp->next < ts)
		sp->next = UINT64_MAX;
	return 0;
}

/* What the memblock picks hold in @mb, into @who. */
static void mb_callers(const struct series *sr, const struct kmt_memblock *mb,
		       const struct pick *picks, unsigned int nr, uint64_t *who)
{
	unsigned int j;
	size_t i;

	for (j = 0; j < nr; j++) {
		if (picks[j].kind != P_MEMBLOCK)
			continue;
		who[j] = 0;
		for (i = 0; i < mb->nr_callers; i++)
			if (mb->callers[i].call_site == sr->mb_site[j] &&
			    sr->has_pick[j]) {
				who[j] = mb->callers[i].held;
				break;
			}
	}
}

/* The samples of @sr from @x0 every @step, and at its last event. */
static int sample_series(struct series *sr, const struct pick *picks,
			 unsigned int nr, unsigned int nr_procs, uint64_t x0,
			 uint64_t step, const struct plot_opts *o)
{
	struct kmt_sampler sp;
	struct kmt_slab s;
	struct kmt_err err = { "" };
	struct kmt_memblock m = { 0 };
	uint64_t pre, mb_ts = UINT64_MAX;
	size_t i;
	int ret;

	find_sites(sr, picks, nr, nr_procs, &sp, o);
	sr->picks = picks;
	sr->nr_picks = nr + nr_procs;
	sp.next = x0;
	sp.fn = on_sample;
	sp.arg = sr;
	sr->step = step;
	sr->n = 0;
	ret = kmt_slab_analyze_sampled(&sr->t, 0, o->end, sr->sym, &sp, &s, &err);
	if (ret) {
		kmf_error("%s: %s", sr->path, err.msg);
		return -1;
	}
	kmt_slab_free(&s);
	if (sr->n > MAX_SAMPLES)
		sr->n = MAX_SAMPLES + 1;
	/*
	 * The buffers the trace did not see allocated were there before it
	 * started; the others from their page allocation on.
	 */
	pre = sr->n && sr->buffers > sr->raw_bufpages[sr->n - 1] ?
	      sr->buffers - sr->raw_bufpages[sr->n - 1] : 0;
	for (i = 0; i < sr->n; i++) {
		uint64_t *k = sr->kind[i];
		uint64_t pages = sr->raw_pages[i] > sr->raw_bufpages[i] ?
				 sr->raw_pages[i] - sr->raw_bufpages[i] : 0;

		k[K_RECORDER] = pre + sr->raw_bufpages[i];
		k[K_PAGES] = pages > k[K_VMALLOC] + k[K_SLAB] ?
			     pages - k[K_VMALLOC] - k[K_SLAB] : 0;
		if (!sr->have_mb)
			continue;
		if (sr->ts[i] >= sr->mb.last_ts) {
			k[K_MEMBLOCK] = sr->mb.held_ram;
			mb_callers(sr, &sr->mb, picks, nr, sr->who[i]);
			continue;
		}
		/* memblock still changing: replay it up to this moment */
		if (sr->ts[i] != mb_ts) {
			kmt_memblock_free(&m);
			if (kmt_memblock_analyze(&sr->t, sr->ts[i], &m, &err)) {
				kmf_error("%s: %s", sr->path, err.msg);
				return -1;
			}
			mb_ts = sr->ts[i];
		}
		k[K_MEMBLOCK] = m.held_ram;
		mb_callers(sr, &m, picks, nr, sr->who[i]);
	}
	kmt_memblock_free(&m);
	return 0;
}

/* ---- drawing --------------------------------------------------------- */

struct frame {
	double x, y, w, h;	/* a panel's plot area */
	uint64_t x0, x1;	/* its time range, ns */
	uint64_t ymax;		/* its top, bytes */
};

static double fx(const struct frame *f, uint64_t ts)
{
	double r = f->x1 > f->x0 ? ((double)ts - (double)f->x0) /
				   (double)(f->x1 - f->x0) : 0;

	return f->x + (r < 0 ? 0 : r > 1 ? 1 : r) * f->w;
}

static double fy(const struct frame *f, uint64_t v)
{
	double r = f->ymax ? (double)v / (double)f->ymax : 0;

	return f->y + f->h - (r > 1 ? 1 : r) * f->h;
}

/*
 * The little arithmetic the axes need, without libm: the tool goes into
 * initramfs images, where every library counts.
 */
static double up(double x)	/* ceil() of what fits an int64_t */
{
	double t = (double)(int64_t)x;

	return t < x ? t + 1 : t;
}

/* The power of ten at or below @x > 0. */
static double decade(double x)
{
	double p = 1;

	while (p > x)
		p /= 10;
	while (p * 10 <= x)
		p *= 10;
	return p;
}

/* A step of 1, 2 or 5 times a power of ten for about @n ticks over @span. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = decade(raw > 0 ? raw : 1e-9), m = raw / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/*
 * The y axis of @max bytes: the unit it counts in (B, KiB, ...), the
 * tick step in that unit, and the top, a whole number of steps.
 */
struct yscale {
	uint64_t unit;
	const char *uname;
	double step;
	uint64_t top;
};

static void y_scale(uint64_t max, struct yscale *ys)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;
	double m;

	ys->unit = 1;
	while (u < 4 && max >= ys->unit * 1024 * 2) {
		ys->unit *= 1024;
		u++;
	}
	ys->uname = names[u];
	m = (double)max / (double)ys->unit;
	if (m < 1)
		m = 1;
	ys->step = nice_step(m, 5);
	if (ys->unit == 1 && ys->step < 1)
		ys->step = 1;
	ys->top = (uint64_t)up(up(m / ys->step - 1e-9) * ys->step * (double)ys->unit);
	if (ys->top < max)
		ys->top = max;
}

static void fmt_num(double v, double step, char *buf, size_t size)
{
	double p = step;
	int dec = 0;

	/* as many decimals as the step has */
	while (p < 1 - 1e-9 && dec < 9) {
		p *= 10;
		dec++;
	}
	snprintf(buf, size, "%.*f", dec, (v < 0 ? -v : v) < step * 1e-6 ? 0 : v);
}

static void y_label(const struct yscale *ys, double v, char *buf, size_t size)
{
	fmt_num(v, ys->step, buf, size);
	if (v > 0) {
		size_t l = strlen(buf);

		snprintf(buf + l, size - l, " %s", ys->uname);
	}
}

/* The widest y tick label of @ys. */
static double y_labels_width(const struct kmt_font *fn, const struct yscale *ys)
{
	double v, w = 0, lw;
	char buf[64];

	for (v = 0; v <= (double)ys->top / (double)ys->unit + ys->step * 1e-6;
	     v += ys->step) {
		y_label(ys, v, buf, sizeof(buf));
		lw = kmt_font_width(fn, buf, FONT_PX);
		if (lw > w)
			w = lw;
	}
	return w;
}

/* Text at (@x, @y), its width already known to fit where it goes. */
static void text(FILE *f, double x, double y, const char *anchor, double px,
		 const char *cls, const char *s, const char *tip)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\"", x, y, px);
	if (anchor)
		fprintf(f, " text-anchor=\"%s\"", anchor);
	fprintf(f, " class=\"%s\">", cls);
	if (tip) {
		fputs("<title>", f);
		kmt_svg_esc(f, tip);
		fputs("</title>", f);
	}
	kmt_svg_esc(f, s);
	fputs("</text>\n", f);
}

/* The unit of the time axis: ns per unit and its name, from the span. */
static double x_unit(const struct frame *fr, const char **name)
{
	uint64_t span = fr->x1 - fr->x0;

	/* long after the boot, seconds read better than 64500 ms */
	if (span >= 2000000000ULL || (fr->x0 >= 10000000000ULL && span >= 2000000ULL)) {
		*name = "s";
		return 1e9;
	}
	if (span >= 2000000ULL) {
		*name = "ms";
		return 1e6;
	}
	if (span >= 2000ULL) {
		*name = "\xc2\xb5s";
		return 1e3;
	}
	*name = "ns";
	return 1;
}

static void x_axis(FILE *f, const struct frame *fr, bool labels)
{
	const char *uname;
	double div = x_unit(fr, &uname);
	double span = (double)(fr->x1 - fr->x0) / div;
	double step = nice_step(span > 0 ? span : 1, 8);
	double v = up((double)fr->x0 / div / step - 1e-9) * step;
	char buf[64];

	if (div == 1 && step < 1)
		step = 1;
	for (; v <= (double)fr->x1 / div + step * 1e-6; v += step) {
		double x = fr->x + (v * div - (double)fr->x0) /
			   (double)(fr->x1 - fr->x0) * fr->w;

		if (x < fr->x - 0.5 || x > fr->x + fr->w + 0.5)
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
			x, fr->y, x, fr->y + fr->h);
		if (labels) {
			fmt_num(v, step, buf, sizeof(buf));
			text(f, x, fr->y + fr->h + 15, "middle", FONT_PX, "tick", buf, NULL);
		}
	}
}

static void y_axis(FILE *f, const struct frame *fr, const struct yscale *ys)
{
	char buf[64];
	double v;

	for (v = 0; v <= (double)ys->top / (double)ys->unit + ys->step * 1e-6;
	     v += ys->step) {
		double y = fr->y + fr->h - v * (double)ys->unit / (double)fr->ymax * fr->h;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
			fr->x, y, fr->x + fr->w, y);
		y_label(ys, v, buf, sizeof(buf));
		text(f, fr->x - 6, y + 4, "end", FONT_PX, "tick", buf, NULL);
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n",
		fr->x, fr->y, fr->w, fr->h);
}

/* "1,234,567" */
static void grouped(uint64_t v, char *buf, size_t size)
{
	char tmp[32];
	size_t len, i, o = 0;

	snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	len = strlen(tmp);
	for (i = 0; i < len && o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
}

/* "16,480 bytes (16.1 KiB)" */
static void exact(uint64_t v, char *buf, size_t size)
{
	char g[32], h[32];

	grouped(v, g, sizeof(g));
	kmt_svg_bytes(v, h, sizeof(h));
	if (v < 1024)
		snprintf(buf, size, "%s bytes", g);
	else
		snprintf(buf, size, "%s bytes (%s)", g, h);
}

static uint64_t total(const uint64_t *k)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < K_NR; i++)
		sum += k[i];
	return sum;
}

/* Whether --without left a kind out. */
static bool left_out(const struct plot_opts *o)
{
	unsigned int i;

	for (i = 0; i < K_NR; i++)
		if (o->without[i])
			return true;
	return false;
}

/* What of @k is drawn: the kinds not left out. */
static uint64_t drawn(const struct plot_opts *o, const uint64_t *k)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < K_NR; i++)
		sum += o->without[i] ? 0 : k[i];
	return sum;
}

/* "1.234567890 s" */
static void secs(uint64_t ns, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000u,
		 ns % 1000000000u);
}

/* A phase's name, NUL-terminated. */
static void phase_name(const struct kmt_phase *p, char *buf, size_t size)
{
	size_t n = p->name_len < size - 1 ? p->name_len : size - 1;

	memcpy(buf, p->name, n);
	buf[n] = 0;
}

/*
 * The name phase @i is shown by: its own, or where another phase has it
 * too, as report --phase says it: "level early" is the initcall level,
 * "early" the time before the first level; "exec /init".
 */
static void phase_label(const struct kmt_slab *s, size_t i, char *buf, size_t size)
{
	const struct kmt_phase *p = &s->phases[i];
	bool twice = false;
	size_t j;

	for (j = 0; j < s->nr_phases && !twice; j++)
		twice = j != i && s->phases[j].name_len == p->name_len &&
			!memcmp(s->phases[j].name, p->name, p->name_len);
	snprintf(buf, size, "%s%.*s", !twice || !i ? "" : p->exec ? "exec " : "level ",
		 (int)p->name_len, p->name);
}

#define WRAP_LINES	3	/* a wrapped text's lines at most */
#define LINE_LEN	700

/*
 * "…" and the longest end of @s that fits in @max px with it: from a '/'
 * where one fits (a path's last directories and file name), else from
 * any character.
 */
static void fit_end(const struct kmt_font *fn, const char *s, double max,
		    char *buf, size_t size)
{
	const char *p;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (p = s; *p; p++) {
			if (pass ? (*p & 0xc0) == 0x80 : *p != '/')
				continue;	/* within a UTF-8 character */
			snprintf(buf, size, "\xe2\x80\xa6%s", p);
			if (kmt_font_width(fn, buf, FONT_PX) <= max)
				return;
		}
	buf[0] = 0;
}

/*
 * @s in lines of at most @max px, @nl at most: broken at a space (which
 * goes, and not one after a digit) or after a '/', with @colon after a ": " where it can (a legend
 * row's value on a line of its own); if the rest does not fit in the
 * last line, it keeps its end after a "…" (a path's file name, a
 * value).  Returns the number of lines.
 */
static unsigned int wrap(const struct kmt_font *fn, const char *s, double max,
			 bool at_colon, char lines[][LINE_LEN], unsigned int nl)
{
	char part[LINE_LEN];
	unsigned int n = 0;

	while (*s && n < nl) {
		size_t len = strlen(s), best = 0, colon = 0, i, cut;

		if (kmt_font_width(fn, s, FONT_PX) <= max) {
			snprintf(lines[n++], LINE_LEN, "%s", s);
			break;
		}
		if (n + 1 == nl) {
			fit_end(fn, s, max, lines[n++], LINE_LEN);
			break;
		}
		for (i = 1; i < len && i < sizeof(part); i++) {
			/* not within a number and its unit: "3.50 MiB" */
			cut = (s[i] == ' ' && (s[i - 1] < '0' || s[i - 1] > '9')) ||
			      s[i - 1] == '/' ? i : 0;
			if (!cut)
				continue;
			memcpy(part, s, cut);
			part[cut] = 0;
			if (kmt_font_width(fn, part, FONT_PX) > max)
				break;	/* and so is every longer one */
			best = cut;
			if (at_colon && s[i - 1] == ':')
				colon = cut;
		}
		if (colon)
			best = colon;
		if (!best) {	/* no break fits: cut */
			kmt_font_fit(fn, s, FONT_PX, max, lines[n++], LINE_LEN);
			break;
		}
		memcpy(lines[n], s, best);
		lines[n++][best] = 0;
		s += best + (s[best] == ' ');
	}
	return n;
}

/* A lower panel: lines of callers, or of processes. */
struct lines {
	unsigned int first, nr;	/* its picks */
	bool procs;		/* processes, not callers */
	struct frame fr;
	struct yscale ys;
	char note[WRAP_LINES][LINE_LEN];	/* its title, wrapped */
	unsigned int nr_note;
};

/* Where a phase is drawn (place_phases()). */
struct phase_pos {
	bool shown;		/* on the axis */
	bool lead;		/* named in the row above, with a leader line */
	double xa, xb;		/* its band */
	double w;		/* its name's width, or its share of the row */
	double lx;		/* the centre of its name in the row above */
	char lab[140];		/* its name as shown */
};

struct plot {
	FILE *f;
	const struct kmt_font *fn;
	const struct plot_opts *o;
	struct series *nw, *base;	/* base: NULL with one trace */
	struct pick *picks;		/* the callers, then the processes */
	unsigned int nr_picks;
	double width, height;
	struct frame p1;
	struct yscale y1;
	struct lines ln[2];		/* the callers, the processes */
	unsigned int nr_ln;
	double legend_x, legend_w;
	double phase_y;			/* the baseline of the phase names */
	/* the subtitle: a sentence for each trace and for the axis, wrapped */
	char sub[2 * 3][LINE_LEN];
	unsigned int sub_of[2 * 3];	/* each line's sentence */
	char sub_tip[3][600];		/* the sentences whole */
	unsigned int nr_sub;
	struct phase_pos *ph;		/* each phase of the new trace */
	size_t nr_lead;			/* of them, named in the row above */
};

/* Whether the trace's phases are drawn. */
static bool have_phases(const struct series *sr)
{
	/*
	 * A flight recorder's window is long after the boot's phases; an
	 * import, or a recorder without the boot group, has none: the
	 * "early" its events start in would be made up.
	 */
	return !sr->flight && !sr->source[0] &&
	       (!sr->s.have_groups || (sr->s.groups & (1u << KMT_GROUP_BOOT)));
}

/* Phase @i's time: from its start to the next one's. */
static void phase_span(const struct kmt_slab *s, size_t i, uint64_t *start,
		       uint64_t *end)
{
	*start = s->phases[i].start;
	*end = i + 1 < s->nr_phases ? s->phases[i + 1].start : s->last_ts;
}

/*
 * Where each phase goes: its band, and its name within it where the name
 * fits, else in the row above the names, as near above the band as the
 * other names there let it, with a leader line down to the band.  The
 * names of that row are placed as groups that touch, each group centred
 * on the mean of where its names want to be, and kept within the
 * picture; if they cannot all be, each is cut to an equal share.
 */
static int place_phases(struct plot *pl)
{
	const struct kmt_slab *s = &pl->nw->s;
	const struct frame *a = &pl->p1;
	const double gap = 10, lo = 16, hi = pl->width - 12;
	/* a group of names: its first and last phase, names, width, ... */
	struct grp { size_t first, last, n; double w, want, left; } *g;
	size_t i, ng = 0, k;
	double sum = 0;

	pl->nr_lead = 0;
	if (!have_phases(pl->nw) || !s->nr_phases)
		return 0;
	pl->ph = calloc(s->nr_phases, sizeof(*pl->ph));
	g = calloc(s->nr_phases, sizeof(*g));
	if (!pl->ph || !g) {
		free(g);
		return -ENOMEM;
	}
	for (i = 0; i < s->nr_phases; i++) {
		struct phase_pos *pp = &pl->ph[i];
		uint64_t start, end;

		phase_span(s, i, &start, &end);
		/*
		 * Not on the axis.  A phase of no length stays if it is
		 * within the axis or at time 0: before the clock runs (a
		 * TSC that PIT calibration could not measure keeps
		 * local_clock() at 0 past the console level) whole phases
		 * happen at time 0, and they still hold memory.  At the
		 * ends of a --time range it is only where the range cut.
		 */
		if (start < end ? end <= a->x0 || start >= a->x1 :
		    start && (start <= a->x0 || start >= a->x1))
			continue;
		pp->shown = true;
		pp->xa = fx(a, start);
		pp->xb = fx(a, end);
		if (pp->xb - pp->xa < 2) {	/* something to hover */
			pp->xb = pp->xa + 2 <= a->x + a->w ? pp->xa + 2 : a->x + a->w;
			pp->xa = pp->xb - 2;
		}
		phase_label(s, i, pp->lab, sizeof(pp->lab));
		pp->w = kmt_font_width(pl->fn, pp->lab, FONT_PX);
		if (pp->w <= pp->xb - pp->xa - 4)
			continue;	/* named within its band */
		pp->lead = true;
		pl->nr_lead++;
		sum += pp->w + gap;
	}
	/* too many for the row: an equal share each */
	if (sum - gap > hi - lo)
		for (i = 0; i < s->nr_phases; i++)
			if (pl->ph[i].lead)
				pl->ph[i].w = (hi - lo + gap) / (double)pl->nr_lead - gap;
	/*
	 * Groups of names that touch, from the left: a group's left is the
	 * mean of where its names want it (a name wants its group's left
	 * at its own wanted left less its offset in the group).
	 */
	for (i = 0; i < s->nr_phases; i++) {
		struct phase_pos *pp = &pl->ph[i];
		struct grp *c;

		if (!pp->lead)
			continue;
		c = &g[ng++];
		*c = (struct grp){ i, i, 1, pp->w, (pp->xa + pp->xb) / 2 - pp->w / 2, 0 };
		for (;;) {
			c->left = c->want / (double)c->n;
			if (c->left + c->w > hi)
				c->left = hi - c->w;
			if (c->left < lo)
				c->left = lo;
			if (ng == 1 || g[ng - 2].left + g[ng - 2].w + gap <= c->left)
				break;
			/* overlaps the group before: one group */
			c = &g[ng - 2];
			c->want += g[ng - 1].want - (double)g[ng - 1].n * (c->w + gap);
			c->w += gap + g[ng - 1].w;
			c->n += g[ng - 1].n;
			c->last = g[ng - 1].last;
			ng--;
		}
	}
	for (k = 0; k < ng; k++) {
		double x = g[k].left;

		for (i = g[k].first; i <= g[k].last; i++) {
			if (!pl->ph[i].lead)
				continue;
			pl->ph[i].lx = x + pl->ph[i].w / 2;
			x += pl->ph[i].w + gap;
		}
	}
	free(g);
	return 0;
}
/*
 * The boot phases as bands behind both panels, named above the first,
 * or in the row above the names with a leader line down to the band.
 */
static void draw_phases(struct plot *pl)
{
	const struct kmt_slab *s = &pl->nw->s;
	const struct frame *a = &pl->p1;
	char name[128], fit[160], tip[512], al[64], kept[64], t0[32], t1[32];
	unsigned int k;
	size_t i;

	if (!pl->ph)
		return;
	for (i = 0; i < s->nr_phases; i++) {
		const struct kmt_phase *p = &s->phases[i];
		const struct phase_pos *pp = &pl->ph[i];
		double xa = pp->xa, xb = pp->xb;
		uint64_t start, end;

		if (!pp->shown)
			continue;
		phase_span(s, i, &start, &end);
		phase_name(p, name, sizeof(name));
		secs(start, t0, sizeof(t0));
		secs(end, t1, sizeof(t1));
		exact(p->st.slab_alloc + p->st.page_alloc, al, sizeof(al));
		exact(p->st.slab_retained + p->st.page_retained, kept, sizeof(kept));
		snprintf(tip, sizeof(tip),
			 "%s%s%s: %s to %s\nallocated %s: slab %" PRIu64 ", pages %" PRIu64
			 "\nstill held at the end %s%s",
			 p->exec ? "pid 1 exec " : i ? "initcall level " : "", name,
			 !p->exec && !i ? ", before the first initcall level" : "",
			 t0, t1, al, p->st.slab_alloc, p->st.page_alloc, kept,
			 !end ? "\n(the kernel's clock was not running yet)" : "");
		fprintf(pl->f, "<g class=\"phase\" data-phase=\"");
		kmt_svg_esc(pl->f, name);
		fprintf(pl->f, "\" data-start=\"%" PRIu64 "\" data-end=\"%" PRIu64
			"\" data-alloc=\"%" PRIu64 "\" data-held=\"%" PRIu64 "\">\n",
			start, end, p->st.slab_alloc + p->st.page_alloc,
			p->st.slab_retained + p->st.page_retained);
		if (i % 2 == 0) {
			fprintf(pl->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" class=\"band\"/>\n",
				xa, a->y, xb - xa, a->h);
			for (k = 0; k < pl->nr_ln; k++)
				fprintf(pl->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" class=\"band\"/>\n",
					xa, pl->ln[k].fr.y, xb - xa, pl->ln[k].fr.h);
		}
		fprintf(pl->f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" class=\"edge\"/>\n",
			xa, pl->phase_y - 12, xa, a->y + a->h);
		/* the label row: hover it for the numbers */
		fprintf(pl->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"16\" class=\"hover\"><title>",
			xa, pl->phase_y - 12, xb - xa);
		kmt_svg_esc(pl->f, tip);
		fputs("</title></rect>\n", pl->f);
		if (pp->lead) {
			double bx = (xa + xb) / 2, y = pl->phase_y - LEAD_DY;

			fprintf(pl->f, "<polyline class=\"leader\" points=\"%.2f,%.1f %.2f,%.1f %.2f,%.1f\"/>\n",
				pp->lx, y + 4, bx, pl->phase_y - 12, bx, a->y);
			if (kmt_font_fit(pl->fn, pp->lab, FONT_PX, pp->w, fit, sizeof(fit)) > 0)
				text(pl->f, pp->lx, y, "middle", FONT_PX, "phasename", fit, tip);
		} else if (xb - xa > 6 &&
			   kmt_font_fit(pl->fn, pp->lab, FONT_PX, xb - xa - 4, fit,
					sizeof(fit)) > 0) {
			text(pl->f, (xa + xb) / 2, pl->phase_y, "middle", FONT_PX,
			     "phasename", fit, tip);
		}
		fputs("</g>\n", pl->f);
	}
}

/* The bottom of the lowest panel. */
static double bottom(const struct plot *pl)
{
	const struct frame *fr = &pl->ln[pl->nr_ln - 1].fr;

	return fr->y + fr->h;
}

/* The flight recorder's window: where it is short, and its trigger. */
static void draw_window(struct plot *pl)
{
	const struct series *sr = pl->nw;
	const struct frame *a = &pl->p1;
	char lab[160], fit[200], tip[512], t0[32];
	uint32_t trig;
	uint64_t at;
	double x, w;

	if (!sr->flight)
		return;
	if (sr->w.complete > a->x0) {
		x = fx(a, sr->w.complete);
		secs(sr->w.complete, t0, sizeof(t0));
		snprintf(tip, sizeof(tip),
			 "before %s not every CPU's events are kept (CPU %u's window starts there): what is held counts only what the window saw",
			 t0, sr->w.late_cpu);
		fprintf(pl->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" class=\"short\"><title>",
			a->x, a->y, x - a->x, a->h);
		kmt_svg_esc(pl->f, tip);
		fputs("</title></rect>\n", pl->f);
	}
	if (!sr->w.have_trig && !sr->t.flight.trigger)
		return;
	/* the kernel's time of the trigger, else its record's */
	at = sr->t.flight.trigger && sr->t.flight.trigger_ts ? sr->t.flight.trigger_ts :
	     sr->w.end;
	x = fx(a, at);
	secs(at, t0, sizeof(t0));
	trig = sr->t.flight.trigger ? sr->t.flight.trigger : sr->w.trig.trigger;
	snprintf(lab, sizeof(lab), "trigger: %s", kmt_trigger_name(trig));
	if (sr->w.have_trig)
		snprintf(tip, sizeof(tip), "%s at %s, pid %u (%.*s): report --window says what the window holds",
			 lab, t0, sr->w.trig.task_pid, (int)sr->w.trig.comm_len,
			 sr->w.trig.comm ? sr->w.trig.comm : "");
	else
		snprintf(tip, sizeof(tip), "%s at %s: report --window says what the window holds",
			 lab, t0);
	fprintf(pl->f, "<g class=\"trigger\" data-ts=\"%" PRIu64 "\" data-trigger=\"%s\">\n",
		at, kmt_trigger_name(trig));
	fprintf(pl->f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" class=\"trig\"/>\n",
		x, pl->phase_y - 12, x, bottom(pl));
	/* the label left of the line, or right of it near the left edge */
	w = kmt_font_fit(pl->fn, lab, FONT_PX, a->w / 2, fit, sizeof(fit));
	if (w > 0)
		text(pl->f, x - w - 4 >= a->x ? x - 4 : x + 4, pl->phase_y,
		     x - w - 4 >= a->x ? "end" : "start", FONT_PX, "triglabel", fit, tip);
	fputs("</g>\n", pl->f);
}

/* The stack up to kind @k (@k -1: nothing) at sample @i. */
static uint64_t stacked(const struct plot *pl, const struct series *sr, size_t i, int k)
{
	uint64_t sum = 0;
	int j;

	for (j = 0; j <= k; j++)
		sum += pl->o->without[j] ? 0 : sr->kind[i][j];
	return sum;
}

/*
 * Whether the area of kind @k has a step at sample @i: its top or its
 * bottom changed, or the last sample, where both edges end.
 */
static bool moved(const struct plot *pl, const struct series *sr, size_t i, int k)
{
	return i + 1 == sr->n || stacked(pl, sr, i, k) != stacked(pl, sr, i - 1, k) ||
	       stacked(pl, sr, i, k - 1) != stacked(pl, sr, i - 1, k - 1);
}

/*
 * The kinds, stacked: each an area between its top and the one below.
 * Both edges are steps, as what is held is: a sample's value holds until
 * the next one.  A sample where neither edge moves adds no point.
 */
static void draw_kinds(struct plot *pl)
{
	const struct series *sr = pl->nw;
	const struct frame *a = &pl->p1;
	uint64_t maxv;
	size_t i;
	int k;

	for (k = 0; k < K_NR; k++) {
		bool any = false;

		for (i = 0, maxv = 0; i < sr->n; i++) {
			any |= sr->kind[i][k] != 0;
			if (sr->kind[i][k] > maxv)
				maxv = sr->kind[i][k];
		}
		if (!any || pl->o->without[k])
			continue;
		fprintf(pl->f, "<path class=\"area\" fill=\"%s\" data-kind=\"%s\" data-end=\"%" PRIu64
			"\" data-max=\"%" PRIu64 "\" d=\"M%.2f,%.2f", kind_color[k], kind_id[k],
			sr->kind[sr->n - 1][k], maxv, fx(a, sr->ts[0]), fy(a, stacked(pl, sr, 0, k)));
		for (i = 1; i < sr->n; i++) {
			double x = fx(a, sr->ts[i]);

			if (!moved(pl, sr, i, k))
				continue;
			fprintf(pl->f, " L%.2f,%.2f L%.2f,%.2f", x, fy(a, stacked(pl, sr, i - 1, k)),
				x, fy(a, stacked(pl, sr, i, k)));
		}
		for (i = sr->n; i-- > 1;) {
			double x = fx(a, sr->ts[i]);

			if (!moved(pl, sr, i, k))
				continue;
			fprintf(pl->f, " L%.2f,%.2f L%.2f,%.2f", x, fy(a, stacked(pl, sr, i, k - 1)),
				x, fy(a, stacked(pl, sr, i - 1, k - 1)));
		}
		fprintf(pl->f, " L%.2f,%.2f Z\"/>\n", fx(a, sr->ts[0]),
			fy(a, stacked(pl, sr, 0, k - 1)));
	}
}

/*
 * One line through a trace's samples of @v (stride @stride), as steps:
 * each value holds until the next sample, where the line goes up or
 * down to the next value.
 */
static void polyline(FILE *f, const struct frame *fr, const struct series *sr,
		     const uint64_t *v, size_t stride, const char *attrs)
{
	size_t i;

	fprintf(f, "<polyline %s points=\"%.2f,%.2f", attrs, fx(fr, sr->ts[0]),
		fy(fr, v[0]));
	for (i = 1; i < sr->n; i++) {
		if (v[i * stride] == v[(i - 1) * stride] && i + 1 < sr->n)
			continue;
		fprintf(f, " %.2f,%.2f %.2f,%.2f", fx(fr, sr->ts[i]),
			fy(fr, v[(i - 1) * stride]), fx(fr, sr->ts[i]), fy(fr, v[i * stride]));
	}
	fputs("\"/>\n", f);
}

static void draw_base_total(struct plot *pl)
{
	struct series *b = pl->base;
	uint64_t *tot;
	size_t i;

	if (!b || !b->n)
		return;
	tot = malloc(b->n * sizeof(*tot));
	if (!tot)
		return;
	for (i = 0; i < b->n; i++)
		tot[i] = drawn(pl->o, b->kind[i]);
	fprintf(pl->f, "<g data-base-total=\"%" PRIu64 "\">\n", tot[b->n - 1]);
	polyline(pl->f, &pl->p1, b, tot, 1, "class=\"basetotal\"");
	fputs("</g>\n", pl->f);
	free(tot);
}

static void draw_callers(struct plot *pl, const struct lines *ln)
{
	unsigned int j;
	char attrs[512];

	for (j = ln->first; j < ln->first + ln->nr; j++) {
		const char *color = line_color[j - ln->first];

		if (pl->base && pl->base->has_pick[j]) {
			snprintf(attrs, sizeof(attrs),
				 "class=\"baseline\" stroke=\"%s\" data-base-end=\"%" PRIu64 "\"",
				 color, pl->base->who[pl->base->n - 1][j]);
			polyline(pl->f, &ln->fr, pl->base, &pl->base->who[0][j],
				 MAX_LINES, attrs);
		}
		fprintf(pl->f, "<g data-caller=\"");
		kmt_svg_esc(pl->f, pl->picks[j].name);
		fprintf(pl->f, "\" data-kind=\"%s\" data-end=\"%" PRIu64 "\">\n",
			pick_kind_name[pl->picks[j].kind], pl->nw->who[pl->nw->n - 1][j]);
		snprintf(attrs, sizeof(attrs), "class=\"line\" stroke=\"%s\"", color);
		polyline(pl->f, &ln->fr, pl->nw, &pl->nw->who[0][j], MAX_LINES, attrs);
		fputs("</g>\n", pl->f);
	}
}

/*
 * Transparent columns over the panels, one per sample, from it to the
 * next, where the steps draw its value: the exact bytes.
 */
static void draw_columns(struct plot *pl)
{
	const struct series *sr = pl->nw, *b = pl->base;
	size_t i, bi = 0;
	char buf[96], t0[32];
	unsigned int j;
	int k;

	fputs("<g class=\"columns\">\n", pl->f);
	for (i = 0; i < sr->n; i++) {
		double xl = i ? fx(&pl->p1, sr->ts[i]) : pl->p1.x;
		double xr = i + 1 < sr->n ? fx(&pl->p1, sr->ts[i + 1]) :
			    pl->p1.x + pl->p1.w;

		if (xr - xl < 0.01)
			continue;
		secs(sr->ts[i], t0, sizeof(t0));
		fprintf(pl->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" class=\"hover\" data-ts=\"%"
			PRIu64 "\"><title>at %s\n", xl, pl->p1.y, xr - xl,
			bottom(pl) - pl->p1.y, sr->ts[i], t0);
		exact(total(sr->kind[i]), buf, sizeof(buf));
		fprintf(pl->f, "held: %s\n", buf);
		if (left_out(pl->o)) {
			exact(drawn(pl->o, sr->kind[i]), buf, sizeof(buf));
			fprintf(pl->f, "drawn (--without): %s\n", buf);
		}
		for (k = K_NR - 1; k >= 0; k--) {
			exact(sr->kind[i][k], buf, sizeof(buf));
			fprintf(pl->f, "  %s: %s%s\n", kind_name[k],
				sr->missing[k][0] ? "not recorded" : buf,
				pl->o->without[k] ? ", left out" : "");
		}
		if (b) {
			while (bi + 1 < b->n && b->ts[bi + 1] <= sr->ts[i])
				bi++;
			if (b->n && b->ts[bi] <= sr->ts[i]) {
				exact(drawn(pl->o, b->kind[bi]), buf, sizeof(buf));
				fprintf(pl->f, "base: %s\n", buf);
			}
		}
		for (j = 0; j < pl->nr_picks; j++) {
			exact(sr->who[i][j], buf, sizeof(buf));
			fprintf(pl->f, "%s: ", pick_kind_name[pl->picks[j].kind]);
			kmt_svg_esc(pl->f, pl->picks[j].name);
			fprintf(pl->f, " %s%s", buf, j + 1 < pl->nr_picks ? "\n" : "");
		}
		fputs("</title></rect>\n", pl->f);
	}
	fputs("</g>\n", pl->f);
}

/*
 * @label cut to @room px.  A "name+0x1a: value" label keeps its value
 * and the start of the function's name, which tell it from the others:
 * it loses the offset first, then the end of the name, for "…".  Any
 * other label is cut at its end.
 */
static void fit_label(const struct kmt_font *fn, const char *label, double room,
		      char *out, size_t size)
{
	const char *colon = NULL, *p, *plus = NULL;
	char head[300], cut[320];
	double tail_w;
	size_t hl;

	if (kmt_font_width(fn, label, FONT_PX) <= room) {
		snprintf(out, size, "%s", label);
		return;
	}
	for (p = label; (p = strstr(p, ": ")); p++)
		colon = p;
	if (!colon) {
		kmt_font_fit(fn, label, FONT_PX, room, out, size);
		return;
	}
	for (p = label; p < colon; p++)
		if (*p == '+' && !strncmp(p + 1, "0x", 2))
			plus = p;
	hl = (size_t)((plus ? plus : colon) - label);
	if (hl >= sizeof(head))
		hl = sizeof(head) - 1;
	memcpy(head, label, hl);
	head[hl] = 0;
	tail_w = kmt_font_width(fn, colon, FONT_PX);
	if (tail_w >= room ||
	    kmt_font_fit(fn, head, FONT_PX, room - tail_w, cut, sizeof(cut)) <= 0) {
		kmt_font_fit(fn, label, FONT_PX, room, out, size);
		return;
	}
	snprintf(out, size, "%s%s", cut, colon);
}

/*
 * One legend row: a swatch, the label, the full text as tip.  A line,
 * dashed for the base; or a box, hollow (@dashed) for a kind left out.
 * A caller's label is cut to one line (fit_label), any other wrapped
 * onto more.  Returns the height it took.
 */
static double legend_row(struct plot *pl, double y, const char *color, bool dashed,
			 bool line, const char *label, const char *tip)
{
	char fit[WRAP_LINES][LINE_LEN];
	unsigned int n = 1, i;

	if (line)
		fprintf(pl->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" class=\"%s\"/>\n",
			pl->legend_x, y - 4, pl->legend_x + 14, y - 4, color,
			dashed ? "baseline" : "line");
	else if (dashed)
		fprintf(pl->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" fill=\"none\" stroke=\"%s\"/>\n",
			pl->legend_x + 0.5, y - 9.5, color);
	else
		fprintf(pl->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			pl->legend_x, y - 10, color);
	if (line && !dashed)
		fit_label(pl->fn, label, pl->legend_w - 22, fit[0], sizeof(fit[0]));
	else
		n = wrap(pl->fn, label, pl->legend_w - 22, true, fit, WRAP_LINES);
	for (i = 0; i < n; i++)
		text(pl->f, pl->legend_x + 20, y + 15.0 * i, NULL, FONT_PX, "legend",
		     fit[i], tip);
	return 18 + 15.0 * (n - 1);
}

/* A legend row's text: "slab objects: 12.3 MiB"; "..., left out" */
static void kind_label(const struct plot *pl, const struct series *sr, int k,
		       char *buf, size_t size, char *tip, size_t tsize)
{
	const char *out = pl->o->without[k] ? ", left out" : "";
	char h[32], e[64];

	if (sr->missing[k][0]) {
		snprintf(buf, size, "%s: not recorded", kind_name[k]);
		snprintf(tip, tsize, "%s: not recorded: %s", kind_name[k], sr->missing[k]);
		return;
	}
	kmt_svg_bytes(sr->kind[sr->n - 1][k], h, sizeof(h));
	exact(sr->kind[sr->n - 1][k], e, sizeof(e));
	snprintf(buf, size, "%s: %s%s", kind_name[k], h, out);
	snprintf(tip, tsize, "%s at the end: %s%s", kind_name[k], e,
		 out[0] ? " (--without: not in the stack, nor its callers)" : "");
}

static void caller_label(const struct plot *pl, unsigned int j, char *buf,
			 size_t size, char *tip, size_t tsize)
{
	const struct pick *p = &pl->picks[j];
	uint64_t v = pl->nw->who[pl->nw->n - 1][j];
	char h[32], e[64], be[96] = "";

	kmt_svg_bytes(v, h, sizeof(h));
	exact(v, e, sizeof(e));
	if (pl->base) {
		char x[64];

		if (pl->base->has_pick[j])
			exact(pl->base->who[pl->base->n - 1][j], x, sizeof(x));
		else
			snprintf(x, sizeof(x), "not a %s in the base",
				 p->kind == P_PROCESS ? "process" : "caller");
		snprintf(be, sizeof(be), "; base: %s", x);
	}
	/* a process's panel has processes only: no word for the kind */
	snprintf(buf, size, "%s%s%s: %s", p->kind == P_PROCESS ? "" : pick_kind_name[p->kind],
		 p->kind == P_PROCESS ? "" : " ", p->name, h);
	snprintf(tip, tsize, "%s%s: holds %s at the end%s",
		 p->kind == P_PAGES ? "page allocations, " : p->kind == P_SLAB ?
		 "slab allocations, " : p->kind == P_MEMBLOCK ? "memblock reservations, " :
		 "what processes named so allocated, slab and pages: ", p->name, e, be);
}

/* The base's legend row. */
static void base_label(const struct plot *pl, char *buf, size_t size)
{
	snprintf(buf, size, "base (dashed) %s", pl->base->path);
}

static void draw_legend(struct plot *pl)
{
	char lab[400], tip[600];
	double y = pl->p1.y + 10;
	unsigned int j;
	int k;

	for (k = K_NR - 1; k >= 0; k--) {
		kind_label(pl, pl->nw, k, lab, sizeof(lab), tip, sizeof(tip));
		y += legend_row(pl, y, kind_color[k], pl->o->without[k], false, lab, tip);
	}
	if (pl->base) {
		char e[64];

		exact(total(pl->base->kind[pl->base->n - 1]), e, sizeof(e));
		base_label(pl, lab, sizeof(lab));
		snprintf(tip, sizeof(tip), "the base, %s: holds %s at its end",
			 pl->base->path, e);
		legend_row(pl, y, "#000000", true, true, lab, tip);
	}
	for (k = 0; k < (int)pl->nr_ln; k++) {
		const struct lines *ln = &pl->ln[k];

		y = ln->fr.y + 10;
		for (j = ln->first; j < ln->first + ln->nr; j++, y += 18) {
			caller_label(pl, j, lab, sizeof(lab), tip, sizeof(tip));
			legend_row(pl, y, line_color[j - ln->first], false, true, lab, tip);
		}
	}
}

/* The widest legend row wanted, before any cut. */
static double legend_width(const struct plot *pl)
{
	char lab[400], tip[600];
	double w = 0, lw;
	unsigned int j;
	int k;

	for (k = 0; k < K_NR; k++) {
		kind_label(pl, pl->nw, k, lab, sizeof(lab), tip, sizeof(tip));
		lw = kmt_font_width(pl->fn, lab, FONT_PX);
		w = lw > w ? lw : w;
	}
	for (j = 0; j < pl->nr_picks; j++) {
		caller_label(pl, j, lab, sizeof(lab), tip, sizeof(tip));
		lw = kmt_font_width(pl->fn, lab, FONT_PX);
		w = lw > w ? lw : w;
	}
	if (pl->base) {
		base_label(pl, lab, sizeof(lab));
		lw = kmt_font_width(pl->fn, lab, FONT_PX);
		w = lw > w ? lw : w;
	}
	return w + 22;
}

/*
 * What a trace covers, for the subtitle: its own events on the axis (a
 * base may end before the new trace, or start after it), and what is
 * held at its end.
 */
static void span_line(const struct plot *pl, const struct series *sr, char *buf,
		      size_t size)
{
	uint64_t a = sr->flight ? sr->w.first : sr->s.first_ts, b = sr->s.last_ts;
	char t0[32], t1[32], e[64];

	a = a > pl->p1.x0 ? a : pl->p1.x0;
	b = b < pl->p1.x1 ? b : pl->p1.x1;
	secs(a, t0, sizeof(t0));
	secs(b > a ? b : a, t1, sizeof(t1));
	exact(total(sr->kind[sr->n - 1]), e, sizeof(e));
	snprintf(buf, size, "%s%s: %" PRIu64 " events from %s to %s; held at %s end: %s",
		 sr == pl->base ? "base (dashed) " : "", sr->path,
		 sr->events_last - sr->events_before, t0, t1,
		 sr == pl->base ? "its" : "the", e);
}

/*
 * The subtitle: what the trace covers; with a base, what each covers,
 * then the time axis they share.  Each sentence on a line, or two where
 * it does not fit.
 */
static void subtitle(struct plot *pl)
{
	char lines[2][LINE_LEN], t0[32], t1[32];
	unsigned int j, n, i;

	pl->nr_sub = 0;
	for (j = 0; j < (pl->base ? 3u : 1u); j++) {
		if (j == 2) {
			secs(pl->p1.x0, t0, sizeof(t0));
			secs(pl->p1.x1, t1, sizeof(t1));
			snprintf(pl->sub_tip[j], sizeof(pl->sub_tip[j]),
				 "both on one time axis, from %s to %s", t0, t1);
		} else {
			span_line(pl, j ? pl->base : pl->nw, pl->sub_tip[j],
				  sizeof(pl->sub_tip[j]));
		}
		n = wrap(pl->fn, pl->sub_tip[j], pl->width - 32, false, lines, 2);
		for (i = 0; i < n; i++) {
			memcpy(pl->sub[pl->nr_sub], lines[i], LINE_LEN);
			pl->sub_of[pl->nr_sub++] = j;
		}
	}
}

/*
 * A lower panel's title, and a word on what it lacks, on as many lines
 * as its width needs.
 */
static void panel_note(struct plot *pl, struct lines *ln)
{
	const struct series *sr = pl->nw;
	char buf[600];

	if (ln->procs && ln->nr == 1)
		snprintf(buf, sizeof(buf), "The process whose allocations hold most at the end (slab and pages)");
	else if (ln->procs)
		snprintf(buf, sizeof(buf), "The %u processes whose allocations hold most at the end (slab and pages)",
			 ln->nr);
	else if (!ln->nr)
		snprintf(buf, sizeof(buf), "No caller holds anything at the end");
	else if (ln->nr == 1)
		snprintf(buf, sizeof(buf), "The caller holding most at the end");
	else
		snprintf(buf, sizeof(buf), "The %u callers holding most at the end", ln->nr);
	if (!ln->procs && !sr->s.pg_with_stack && sr->s.pg_requests)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " (pages have no callers: %s)",
			 !strcmp(sr->source, "perf") ? "no callchains, perf kmem --page record" :
			 sr->source[0] ? "the tracer records no stacks" :
			 "no page stacks, kmemtrace.page_stack=N");
	if (pl->base)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " (dashed: the base)");
	ln->nr_note = wrap(pl->fn, buf, pl->p1.w, false, ln->note, WRAP_LINES);
	if (!ln->nr_note)
		ln->note[ln->nr_note++][0] = 0;
}

static const char style[] =
	"<style>\n"
	"text { fill: #222; }\n"
	".grid { stroke: #ddd; stroke-width: 1; }\n"
	".frame { fill: none; stroke: #888; stroke-width: 1; }\n"
	".band { fill: #f2f2f2; }\n"
	".edge { stroke: #bbb; stroke-width: 1; stroke-dasharray: 2,2; }\n"
	".hover { fill: #000; fill-opacity: 0; }\n"
	".area { fill-opacity: 0.85; stroke: none; }\n"
	".line { fill: none; stroke-width: 1.6; }\n"
	".baseline { fill: none; stroke-width: 1.4; stroke-dasharray: 5,3; }\n"
	".basetotal { fill: none; stroke: #000; stroke-width: 1.6; stroke-dasharray: 5,3; }\n"
	".leader { fill: none; stroke: #999; stroke-width: 0.8; }\n"
	".trig { stroke: #c00; stroke-width: 1.5; stroke-dasharray: 4,2; }\n"
	".triglabel { fill: #c00; }\n"
	".short { fill: #c00; fill-opacity: 0.07; }\n"
	".title { font-weight: bold; }\n"
	"</style>\n";

static int draw(struct plot *pl)
{
	const struct plot_opts *o = pl->o;
	struct series *sr = pl->nw;
	char buf[600], fit[700], rel[64];
	const char *xu;
	uint64_t m1 = 1, m2[2] = { 1, 1 }, v;
	int ret;
	double left, ylw;
	size_t i;
	unsigned int j, k;
	FILE *f = pl->f;
	struct lines *ln;

	/* the tops: the stack and the base's total; the callers; the processes */
	for (i = 0; i < sr->n; i++) {
		v = drawn(o, sr->kind[i]);
		m1 = v > m1 ? v : m1;
		for (k = 0; k < pl->nr_ln; k++)
			for (j = pl->ln[k].first; j < pl->ln[k].first + pl->ln[k].nr; j++)
				m2[k] = sr->who[i][j] > m2[k] ? sr->who[i][j] : m2[k];
	}
	for (i = 0; pl->base && i < pl->base->n; i++) {
		v = drawn(o, pl->base->kind[i]);
		m1 = v > m1 ? v : m1;
		for (k = 0; k < pl->nr_ln; k++)
			for (j = pl->ln[k].first; j < pl->ln[k].first + pl->ln[k].nr; j++)
				if (pl->base->has_pick[j] && pl->base->who[i][j] > m2[k])
					m2[k] = pl->base->who[i][j];
	}
	y_scale(m1, &pl->y1);
	ylw = y_labels_width(pl->fn, &pl->y1);
	for (k = 0; k < pl->nr_ln; k++) {
		y_scale(m2[k], &pl->ln[k].ys);
		if (y_labels_width(pl->fn, &pl->ln[k].ys) > ylw)
			ylw = y_labels_width(pl->fn, &pl->ln[k].ys);
	}
	left = 16 + 18 + ylw + 8;
	pl->width = o->width;
	pl->legend_w = legend_width(pl);
	if (pl->legend_w > pl->width * 0.3 && pl->legend_w > 240)
		pl->legend_w = pl->width * 0.3 > 240 ? pl->width * 0.3 : 240;
	pl->legend_x = pl->width - 12 - pl->legend_w;
	subtitle(pl);
	pl->p1 = (struct frame){ left, 0, pl->legend_x - 16 - left, 300,
				 pl->p1.x0, pl->p1.x1, pl->y1.top };
	ret = place_phases(pl);
	if (ret)
		return ret;
	/* the names above the others take a row of their own */
	pl->phase_y = 66 + 16.0 * (pl->nr_sub - 1) + (pl->nr_lead ? LEAD_DY - 2 : 0);
	pl->p1.y = pl->phase_y + 10;
	/* the lower panels, each under the one before, its title between */
	for (k = 0; k < pl->nr_ln; k++) {
		const struct frame *up = k ? &pl->ln[k - 1].fr : &pl->p1;

		ln = &pl->ln[k];
		panel_note(pl, ln);
		ln->fr = pl->p1;
		ln->fr.y = up->y + up->h + 50 + 14.0 * (ln->nr_note - 1);
		ln->fr.h = 18.0 * ln->nr + 20 > 220 ? 18.0 * ln->nr + 20 : 220;
		ln->fr.ymax = ln->ys.top;
	}
	pl->height = bottom(pl) + 48;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"",
		pl->width, pl->height, pl->width, pl->height);
	kmt_svg_esc(f, pl->fn->family);
	fprintf(f, ", sans-serif\" data-generator=\"kmemflight %s\">\n", KMT_VERSION);
	fputs(style, f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n",
		pl->width, pl->height);

	/* title and what the picture covers */
	if (!kmt_trace_meta(&sr->t, "release", rel, sizeof(rel)) || !rel[0])
		snprintf(rel, sizeof(rel), "unknown kernel");
	if (o->title)
		snprintf(buf, sizeof(buf), "%s", o->title);
	else if (sr->source[0])		/* an import: what its tracer saw */
		snprintf(buf, sizeof(buf), "Kernel memory over what %s recorded, %s",
			 sr->source, rel);
	else
		snprintf(buf, sizeof(buf), "Kernel memory over %s, %s",
			 sr->flight ? "the flight recorder's window" : "the boot", rel);
	kmt_font_fit(pl->fn, buf, TITLE_PX, pl->width - 32, fit, sizeof(fit));
	text(f, 16, 24, NULL, TITLE_PX, "title", fit, buf);
	for (j = 0; j < pl->nr_sub; j++)
		text(f, 16, 44 + 16.0 * j, NULL, FONT_PX, "subtitle", pl->sub[j],
		     pl->sub_tip[pl->sub_of[j]]);

	draw_phases(pl);
	x_axis(f, &pl->p1, true);
	y_axis(f, &pl->p1, &pl->y1);
	for (k = 0; k < pl->nr_ln; k++) {
		x_axis(f, &pl->ln[k].fr, true);
		y_axis(f, &pl->ln[k].fr, &pl->ln[k].ys);
	}
	fprintf(f, "<g class=\"kinds\" data-ymax=\"%" PRIu64 "\" data-y=\"%.2f\" data-h=\"%.2f\">\n",
		pl->p1.ymax, pl->p1.y, pl->p1.h);
	draw_kinds(pl);
	draw_base_total(pl);
	fputs("</g>\n", f);
	for (k = 0; k < pl->nr_ln; k++) {
		ln = &pl->ln[k];
		fprintf(f, "<g class=\"%s\" data-ymax=\"%" PRIu64 "\" data-y=\"%.2f\" data-h=\"%.2f\">\n",
			ln->procs ? "processes" : "callers", ln->fr.ymax, ln->fr.y, ln->fr.h);
		draw_callers(pl, ln);
		fputs("</g>\n", f);
	}
	draw_window(pl);

	/* the axes' names */
	fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" font-size=\"%.0f\" text-anchor=\"middle\" class=\"axis\">held by kind</text>\n",
		16.0 + 12, pl->p1.y + pl->p1.h / 2, FONT_PX);
	for (k = 0; k < pl->nr_ln; k++)
		fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" font-size=\"%.0f\" text-anchor=\"middle\" class=\"axis\">held by %s</text>\n",
			16.0 + 12, pl->ln[k].fr.y + pl->ln[k].fr.h / 2, FONT_PX,
			pl->ln[k].procs ? "process" : "caller");
	for (k = 0; k < pl->nr_ln; k++) {
		ln = &pl->ln[k];
		for (j = 0; j < ln->nr_note; j++)
			text(f, ln->fr.x, ln->fr.y - 8 - 14.0 * (ln->nr_note - 1 - j), NULL,
			     FONT_PX, "paneltitle", ln->note[j], NULL);
	}
	ln = &pl->ln[pl->nr_ln - 1];
	x_unit(&ln->fr, &xu);
	snprintf(buf, sizeof(buf), "time since boot (%s)", xu);
	text(f, ln->fr.x + ln->fr.w / 2, bottom(pl) + 34, "middle", FONT_PX,
	     "axis", buf, NULL);
	draw_legend(pl);
	draw_columns(pl);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

static int draw_to(FILE *f, void *arg)
{
	struct plot *pl = arg;

	pl->f = f;
	return draw(pl);
}

int cmd_plot(int argc, char **argv)
{
	static struct series sv[2];
	struct plot_opts o;
	struct pick picks[MAX_LINES];
	struct kmt_font fn;
	struct kmt_err err = { "" };
	struct plot pl;
	uint64_t x0, x1, step;
	unsigned int i, nr = 0, nr_procs = 0, cols;
	int ret, status = KMF_EXIT_FAIL;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	memset(sv, 0, sizeof(sv));
	memset(&pl, 0, sizeof(pl));
	if (kmt_font_open(&fn, "DejaVu Sans", &err)) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_FAIL;
	}
	/* --vmlinux names the new trace's callers: the last file's kernel */
	for (i = 0; i < o.nr_paths; i++) {
		struct plot_opts oi = o;

		if (i + 1 < o.nr_paths)
			oi.vmlinux = NULL;
		if (open_series(&sv[i], o.paths[i], &oi))
			goto out;
	}
	pl.nw = &sv[o.nr_paths - 1];
	pl.base = o.nr_paths > 1 ? &sv[0] : NULL;
	/* the time axis: --time, or every trace's events */
	x0 = UINT64_MAX;
	x1 = 0;
	for (i = 0; i < o.nr_paths; i++) {
		uint64_t a = sv[i].flight ? sv[i].w.first : sv[i].s.first_ts;

		x0 = a < x0 ? a : x0;
		x1 = sv[i].s.last_ts > x1 ? sv[i].s.last_ts : x1;
	}
	if (o.have_range && o.start)
		x0 = o.start;
	if (o.have_range && o.end != UINT64_MAX)
		x1 = o.end;
	if (x1 <= x0)
		x1 = x0 + 1;
	if (pick_callers(pl.nw, &o, picks, &nr, &nr_procs)) {
		kmf_error("out of memory");
		goto out;
	}
	pl.picks = picks;
	pl.nr_picks = nr + nr_procs;
	pl.ln[0] = (struct lines){ .first = 0, .nr = nr };
	pl.ln[1] = (struct lines){ .first = nr, .nr = nr_procs, .procs = true };
	pl.nr_ln = nr_procs ? 2 : 1;
	pl.fn = &fn;
	pl.o = &o;
	pl.p1.x0 = x0;
	pl.p1.x1 = x1;
	/* a sample every COL_PX pixels of the widest plot area there can be */
	cols = o.width / COL_PX;
	if (cols > MAX_SAMPLES - 1)
		cols = MAX_SAMPLES - 1;
	step = (x1 - x0) / cols;
	if (!step)
		step = 1;
	for (i = 0; i < o.nr_paths; i++)
		if (sample_series(&sv[i], picks, nr, nr_procs, x0, step, &o))
			goto out;
	if (!pl.nw->n) {
		kmf_error("%s: no event before the end of --time", pl.nw->path);
		goto out;
	}
	if (pl.base && !pl.base->n) {
		kmf_warn("%s: no event before the end of --time: no base drawn",
			 pl.base->path);
		pl.base = NULL;
	}
	if (kmt_out_write(o.out, draw_to, &pl, &err))
		kmf_error("%s", err.msg);
	else
		status = KMF_EXIT_OK;
	free(pl.ph);
out:
	for (i = 0; i < o.nr_paths; i++)
		if (sv[i].open && kmf_warn_cut(sv[i].path, &sv[i].t))
			status = KMF_EXIT_FAIL;
	for (i = 0; i < o.nr_paths; i++)
		close_series(&sv[i]);
	kmt_font_close(&fn);
	return status;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight diff: what a boot leaves allocated compared with another
 * boot's, row by row, and the growth checked against budgets: the first
 * part of a boot regression gate.
 *
 * The two traces come from two boots, often of two builds: addresses
 * move with KASLR and with every rebuild, so rows are matched by name.
 * A slab or page callsite is the function it is in, from the trace's own
 * kallsyms, without the +offset (a rebuild moves it); an address with no
 * symbol is its hex, which matches only the same address.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "../cli/cli.h"
#include "footprint.h"
#include "report.h"
#include "slab.h"

#define VALID_OPTS "--max-growth, --max-growth-bytes, --budget, --no-default-budgets, --allow-lost, -l/--line, --json, -h/--help"

/*
 * The budgets that apply unless given otherwise: above the boot-to-boot
 * noise of one kernel (Documentation/user-guide.md, "Comparing boots":
 * at most 1.1% and 180 KiB on the total, 12 KiB on a callsite, over
 * repeated QEMU boots), so that an unchanged kernel passes.
 */
#define DEFAULT_TOTAL_BYTES	(256u << 10)
#define DEFAULT_TOTAL_MPCT	2000		/* 2% */
#define DEFAULT_CALLSITE_BYTES	(64u << 10)
#define DEFAULT_CALLSITE_MPCT	10000		/* 10% */
#define DEFAULT_MEMBLOCK_BYTES	(64u << 10)
#define DEFAULT_MEMBLOCK_MPCT	10000		/* 10% */

static const struct diff_cat_info {
	const char *title;
	const char *col;	/* the key column's header */
	const char *objs;	/* the objects column's header, or NULL */
	bool alloc;		/* an Allocated column */
	bool hits;		/* a Hits column */
} cats[KMT_FP_NR] = {
	[KMT_FP_CALLSITE] = { "Slab callsites: bytes of objects retained at the end",
		  "Callsite", "Objects", true, true },
	[KMT_FP_CACHE] = { "Caches: bytes of objects retained at the end",
		       "Cache", "Objects", false, false },
	[KMT_FP_PAGE] = { "Page callers: bytes of pages retained at the end",
		      "Page caller", "Blocks", true, true },
	[KMT_FP_ORDER] = { "Page orders: bytes of pages retained at the end",
		       "Order", "Blocks", true, true },
	[KMT_FP_PHASE] = { "Boot phases: slab and page bytes retained at the end",
		       "Phase", NULL, true, false },
	[KMT_FP_MEMBLOCK] = { "memblock: boot memory reserved and still held at the end",
			  "Caller", "Ranges", true, true },
};

struct diff_row {
	enum kmt_fp_cat cat;
	char *key;
	struct kmt_fp_vals v[2];	/* base, new */
	bool in[2];		/* the row exists in that trace */
	bool over;		/* over its budget */
};

/* What the header and the warnings say about one trace. */
struct diff_side {
	const char *path;
	struct kmt_fp_head h;
};

/* The total a budget on "total" checks: slab objects and pages. */
static uint64_t retained(const struct diff_side *s)
{
	return s->h.slab + s->h.pages;
}

struct diff {
	struct diff_row *rows;
	size_t nr, cap;
	struct diff_side side[2];
};

struct diff_opts {
	const char *path[2];
	const char *budget;
	long lines;
	bool json;
	bool no_defaults;
	bool allow_lost;
	struct kmt_fp_limit cli;	/* --max-growth, --max-growth-bytes */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight diff [<options>] <base> <new>\n"
		"\n"
		"Compare what two saved traces left allocated at their end, callsite by\n"
		"callsite (by function name, so KASLR and rebuilds do not matter), cache\n"
		"by cache, by page caller and order, boot phase by boot phase and, when\n"
		"both have memblock's events, memblock caller by caller, and check the\n"
		"growth against budgets (exit 1 when over).\n"
		"\n"
		"    --max-growth <pct>    budget for the total retained bytes (slab objects\n"
		"                          and pages): grow by at most pct percent (5%%)\n"
		"    --max-growth-bytes <size>\n"
		"                          the same in bytes, with an optional K, M or G\n"
		"                          (powers of 1024): 64K; with --max-growth too, the\n"
		"                          total is over budget only when it exceeds both\n"
		"    --budget <file>       budgets per callsite, cache, page caller, order,\n"
		"                          phase or memblock caller, one per line:\n"
		"                          'callsite foo_init 4K', 'phase level:device 10%%',\n"
		"                          'memblock setup_log_buf 1M', 'total 2%% 64K'\n"
		"    --no-default-budgets  without the defaults: 256K and 2%% on the total,\n"
		"                          64K and 10%% on each callsite and, when both\n"
		"                          sides have memblock's events, 64K and 10%% on\n"
		"                          each memblock caller, for what no option or\n"
		"                          budget line covers\n"
		"    --allow-lost          compare traces that lost events (their totals are\n"
		"                          short): without it, that is an error\n"
		"    -l, --line <n>        print only the first n rows of each table\n"
		"    --json                the same as one JSON document\n"
		"    -h, --help            this help\n"
		"\n"
		"<base> and <new> are traces, or summaries of traces (kmemflight summary).\n"
		"\n"
		"Exit status: 0 within budget (or no budget), 1 over budget or a trace\n"
		"that cannot be read, 2 usage error or a bad budget.\n");
}

static int parse_args(int argc, char **argv, struct diff_opts *o)
{
	enum { OPT_MAX_GROWTH = 256, OPT_MAX_BYTES, OPT_BUDGET, OPT_JSON, OPT_NO_DEFAULTS,
	       OPT_ALLOW_LOST };
	static const struct option longopts[] = {
		{ "max-growth", required_argument, NULL, OPT_MAX_GROWTH },
		{ "max-growth-bytes", required_argument, NULL, OPT_MAX_BYTES },
		{ "budget", required_argument, NULL, OPT_BUDGET },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-default-budgets", no_argument, NULL, OPT_NO_DEFAULTS },
		{ "allow-lost", no_argument, NULL, OPT_ALLOW_LOST },
		{ "line", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pct = NULL, *bytes = NULL;
	size_t len;
	char *end;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->lines = -1;
	o->cli.cat = KMT_FP_TOTAL;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "l:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_MAX_GROWTH:
			len = strlen(optarg);
			if (len && optarg[len - 1] == '%')
				len--;
			ret = kmt_fp_parse_pct(optarg, len, &o->cli.mpct);
			if (ret == -ERANGE)
				return kmf_usage_error("--max-growth: '%s' is too large", optarg);
			if (ret)
				return kmf_usage_error("--max-growth wants a percentage >= 0, at most 3 decimals (e.g. 5%%), not '%s'",
						       optarg);
			o->cli.has_pct = true;
			pct = optarg;
			break;
		case OPT_MAX_BYTES:
			ret = kmt_fp_parse_size(optarg, &o->cli.bytes);
			if (ret == -ERANGE)
				return kmf_usage_error("--max-growth-bytes: '%s' is too large (more than 2^64 - 1 bytes)",
						       optarg);
			if (ret)
				return kmf_usage_error("--max-growth-bytes wants a size in bytes, with an optional K, M or G (e.g. 64K), not '%s'",
						       optarg);
			o->cli.has_bytes = true;
			bytes = optarg;
			break;
		case OPT_BUDGET: o->budget = optarg; break;
		case OPT_JSON: o->json = true; break;
		case OPT_NO_DEFAULTS: o->no_defaults = true; break;
		case OPT_ALLOW_LOST: o->allow_lost = true; break;
		case 'l':
			errno = 0;
			o->lines = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || o->lines < 0)
				return kmf_usage_error("--line wants a number >= 0, not '%s'",
						       optarg);
			break;
		case 'h': usage(stdout); return -1;
		default:
			return kmf_option_error(longopts, "l:h", optopt,
						argv[optind - 1], VALID_OPTS);
		}
	}
	if (argc - optind != 2)
		return kmf_usage_error(argc - optind < 2 ?
				       argc == optind ? "missing <base> and <new>: two traces to compare" :
				       "missing <new>: two traces to compare" :
				       "two trace files only: <base> <new>");
	o->path[0] = argv[optind];
	o->path[1] = argv[optind + 1];
	kmt_fp_limit_spec(&o->cli);
	snprintf(o->cli.src, sizeof(o->cli.src), "%s%s%s",
		 bytes ? "--max-growth-bytes" : "", bytes && pct ? " and " : "",
		 pct ? "--max-growth" : "");
	return 0;
}

/* ---- the rows ----------------------------------------------------------- */

static int add_row(struct diff *d, enum kmt_fp_cat cat, const char *key, int side,
		   const struct kmt_fp_vals *v)
{
	struct diff_row *r;

	if (d->nr == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;

		r = realloc(d->rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		d->rows = r;
		d->cap = cap;
	}
	r = &d->rows[d->nr];
	memset(r, 0, sizeof(*r));
	r->key = strdup(key);
	if (!r->key)
		return -ENOMEM;
	r->cat = cat;
	r->v[side] = *v;
	r->in[side] = true;
	d->nr++;
	return 0;
}

/* All of a file of at most @max bytes, malloc'd: 0, -EFBIG or -errno. */
static int slurp(const char *path, size_t max, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = malloc(cap), *nb;
	FILE *f = fopen(path, "r");
	struct stat sb;
	int ret = 0;

	if (!f || !b) {
		ret = f ? -ENOMEM : -errno;
		goto out;
	}
	if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode)) {
		ret = -EISDIR;	/* or anything else that is not a file */
		goto out;
	}
	for (;;) {
		n += fread(b + n, 1, cap - n, f);
		if (ferror(f)) {
			ret = -EIO;
			break;
		}
		if (n < cap)
			break;
		if (cap > max) {
			ret = -EFBIG;
			break;
		}
		nb = realloc(b, cap * 2);
		if (!nb) {
			ret = -ENOMEM;
			break;
		}
		b = nb;
		cap *= 2;
	}
out:
	if (f)
		fclose(f);
	if (ret) {
		free(b);
		return ret;
	}
	*buf = b;
	*len = n;
	return 0;
}

/*
 * Read one trace or summary file and add its rows; -errno with err set.
 * A summary starts with its magic line: anything else is read as a trace.
 */
static int load_side(struct diff *d, int side, const char *path, struct kmt_err *err)
{
	struct diff_side *ds = &d->side[side];
	struct kmt_footprint fp;
	char head[sizeof(KMT_SUMMARY_MAGIC) - 1];
	size_t i, n;
	FILE *f;
	int ret;

	ds->path = path;
	f = fopen(path, "r");
	n = f ? fread(head, 1, sizeof(head), f) : 0;
	if (f)
		fclose(f);
	if (n == sizeof(head) && !memcmp(head, KMT_SUMMARY_MAGIC, n)) {
		char *buf;
		size_t len;

		ret = slurp(path, 1u << 26, &buf, &len);
		if (ret)
			return kmt_errf(err, -ret, "%s: %s", path, ret == -EFBIG ?
					"larger than 64 MiB: not a summary" : ret == -EISDIR ?
					"not a regular file" : strerror(-ret));
		ret = kmt_fp_parse(&fp, buf, len, err);
		free(buf);
		if (ret) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			return kmt_errf(err, -ret, "%s: %s", path, msg);
		}
	} else {
		ret = kmt_fp_from_trace(&fp, path, err);
		if (ret)
			return ret;
		if (fp.h.coverage[0])
			fprintf(stderr, "%s: note: %s: %s\n", kmf_cmd_name, path,
				fp.h.coverage);
	}
	ds->h = fp.h;
	for (i = 0, ret = 0; i < fp.nr && !ret; i++)
		ret = add_row(d, fp.rows[i].cat, fp.rows[i].key, side, &fp.rows[i].v);
	kmt_fp_free(&fp);
	return ret ? kmt_errf(err, ENOMEM, "out of memory") : 0;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;

	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	return strcmp(a->key, b->key);
}

/*
 * Most growth first, then by key.  a grew more than b when a.new +
 * b.base > b.new + a.base: no sign to handle, and no overflow in 128 bits.
 */
static int cmp_growth(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	unsigned __int128 x, y;

	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	x = (unsigned __int128)a->v[1].retained + b->v[0].retained;
	y = (unsigned __int128)b->v[1].retained + a->v[0].retained;
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->key, b->key);
}

static void add_vals(struct kmt_fp_vals *a, const struct kmt_fp_vals *b)
{
	a->retained += b->retained;
	a->objs += b->objs;
	a->alloc += b->alloc;
	a->hit += b->hit;
}

/*
 * One row per category and key, with both traces' numbers: the rows of
 * one function (several callsites), of one cache name or of one phase
 * name add up.
 */
static void merge_rows(struct diff *d)
{
	size_t i, n = 0;

	qsort(d->rows, d->nr, sizeof(*d->rows), cmp_key);
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];

		if (n && !cmp_key(&d->rows[n - 1], r)) {
			struct diff_row *p = &d->rows[n - 1];

			add_vals(&p->v[0], &r->v[0]);
			add_vals(&p->v[1], &r->v[1]);
			p->in[0] |= r->in[0];
			p->in[1] |= r->in[1];
			free(r->key);
			continue;
		}
		d->rows[n++] = *r;
	}
	d->nr = n;
	qsort(d->rows, d->nr, sizeof(*d->rows), cmp_growth);
}

static const char *row_status(const struct diff_row *r)
{
	if (!r->in[0])
		return "new";
	if (!r->in[1])
		return "vanished";
	return memcmp(&r->v[0], &r->v[1], sizeof(r->v[0])) ? "changed" : "same";
}

/* ---- budgets ------------------------------------------------------------ */

/* A row or the total over one of its limits. */
struct diff_fail {
	const struct kmt_fp_limit *lim;
	const struct diff_row *row;	/* NULL: the total */
};

/*
 * Check every row against its own budget, or its category's "*"; the
 * total against each total budget.  Returns how many failed, -ENOMEM.
 */
static long check_budgets(struct diff *d, struct kmt_fp_limit *lims, size_t nr_lims,
			  struct diff_fail **out)
{
	uint64_t base = retained(&d->side[0]);
	uint64_t new = retained(&d->side[1]);
	struct diff_fail *f = calloc(d->nr + nr_lims + 1, sizeof(*f));
	size_t i, j, n = 0;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < nr_lims; i++) {
		if (lims[i].cat != KMT_FP_TOTAL)
			continue;
		lims[i].matched = true;
		if (kmt_fp_limit_over(&lims[i], base, new))
			f[n++] = (struct diff_fail){ &lims[i], NULL };
	}
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];
		struct kmt_fp_limit *l = NULL;

		for (j = 0; j < nr_lims; j++) {
			if (lims[j].cat != (int)r->cat)
				continue;
			if (!strcmp(lims[j].key, r->key)) {
				l = &lims[j];
				break;
			}
			if (!strcmp(lims[j].key, "*"))
				l = &lims[j];
		}
		if (!l)
			continue;
		if (strcmp(l->key, "*"))
			l->matched = true;
		if (kmt_fp_limit_over(l, r->v[0].retained, r->v[1].retained)) {
			r->over = true;
			f[n++] = (struct diff_fail){ l, r };
		}
	}
	*out = f;
	return (long)n;
}

/* ---- text --------------------------------------------------------------- */

static void fmt_delta(char *buf, size_t size, uint64_t base, uint64_t new)
{
	if (new > base)
		snprintf(buf, size, "+%" PRIu64, new - base);
	else if (new < base)
		snprintf(buf, size, "-%" PRIu64, base - new);
	else
		snprintf(buf, size, "0");
}

/* The growth in percent of base: "-" from 0, where it has none. */
static void fmt_pct(char *buf, size_t size, uint64_t base, uint64_t new)
{
	if (!base)
		snprintf(buf, size, "-");
	else if (new == base)
		snprintf(buf, size, "0.000%%");
	else if (new > base)
		snprintf(buf, size, "+%.3f%%", 100.0 * (double)(new - base) / (double)base);
	else
		snprintf(buf, size, "-%.3f%%", 100.0 * (double)(base - new) / (double)base);
}

static void fmt_pair(char *buf, size_t size, uint64_t a, uint64_t b)
{
	snprintf(buf, size, "%" PRIu64 " -> %" PRIu64, a, b);
}

static int table_width(const struct diff_cat_info *ci)
{
	return 87 + (ci->objs ? 20 : 0) + (ci->alloc ? 28 : 0) + (ci->hits ? 20 : 0) + 11;
}

static void print_line(const struct diff_cat_info *ci, int kw, const char *key,
		       const char *base, const char *new, const char *delta,
		       const char *pct, const char *objs, const char *alloc,
		       const char *hits, const char *status)
{
	printf(" %-*s | %10s | %10s | %11s | %9s", kw, key, base, new, delta, pct);
	if (ci->objs)
		printf(" | %17s", objs);
	if (ci->alloc)
		printf(" | %25s", alloc);
	if (ci->hits)
		printf(" | %17s", hits);
	printf(" | %s\n", status);
}

static void print_row(const struct diff_row *r, int kw)
{
	const struct diff_cat_info *ci = &cats[r->cat];
	char base[24], new[24], delta[24], pct[32], objs[48], alloc[48], hits[48];

	snprintf(base, sizeof(base), "%" PRIu64, r->v[0].retained);
	snprintf(new, sizeof(new), "%" PRIu64, r->v[1].retained);
	fmt_delta(delta, sizeof(delta), r->v[0].retained, r->v[1].retained);
	fmt_pct(pct, sizeof(pct), r->v[0].retained, r->v[1].retained);
	fmt_pair(objs, sizeof(objs), r->v[0].objs, r->v[1].objs);
	fmt_pair(alloc, sizeof(alloc), r->v[0].alloc, r->v[1].alloc);
	fmt_pair(hits, sizeof(hits), r->v[0].hit, r->v[1].hit);
	print_line(ci, kw, r->key, base, new, delta, pct, objs, alloc, hits,
		   row_status(r));
}

static void print_table(const struct diff *d, enum kmt_fp_cat cat,
			const struct diff_opts *o)
{
	const struct diff_cat_info *ci = &cats[cat];
	size_t i, shown = 0, n = 0;
	int kw = KMT_NAME_COL, w;

	printf("%s\n", ci->title);
	for (i = 0; i < d->nr; i++) {
		if (d->rows[i].cat != cat)
			continue;
		if (o->lines < 0 || n < (size_t)o->lines)
			kw = kmt_name_width(kw, d->rows[i].key);
		n++;
	}
	if (!n) {
		if (cat == KMT_FP_MEMBLOCK &&
		    !(d->side[0].h.has_memblock && d->side[1].h.has_memblock))
			printf("(not compared: %s the early memblock events)\n",
			       d->side[0].h.has_memblock || d->side[1].h.has_memblock ?
			       "one side lacks" : "neither side has");
		else
			printf("(none in either trace)\n");
		return;
	}
	w = table_width(ci) + kw - KMT_NAME_COL;
	kmt_rule(w);
	print_line(ci, kw, ci->col, "Base", "New", "Delta", "Delta%", ci->objs,
		   "Allocated", "Hits", "Status");
	kmt_rule(w);
	for (i = 0; i < d->nr; i++) {
		if (d->rows[i].cat != cat)
			continue;
		if (o->lines >= 0 && shown == (size_t)o->lines) {
			print_line(ci, kw, "...", "...", "...", "...", "...", "...",
				   "...", "...", "...");
			break;
		}
		print_row(&d->rows[i], kw);
		shown++;
	}
	kmt_rule(w);
}

static void print_total(const struct diff *d)
{
	uint64_t base = retained(&d->side[0]);
	uint64_t new = retained(&d->side[1]);
	char delta[24], pct[32];

	fmt_delta(delta, sizeof(delta), base, new);
	fmt_pct(pct, sizeof(pct), base, new);
	printf("Total retained (slab objects + pages): %" PRIu64 " -> %" PRIu64
	       " bytes, %s (%s); slab %" PRIu64 " -> %" PRIu64 ", pages %" PRIu64
	       " -> %" PRIu64 "\n", base, new, delta, pct, d->side[0].h.slab,
	       d->side[1].h.slab, d->side[0].h.pages, d->side[1].h.pages);
	if (d->side[0].h.has_memblock && d->side[1].h.has_memblock) {
		fmt_delta(delta, sizeof(delta), d->side[0].h.memblock,
			  d->side[1].h.memblock);
		fmt_pct(pct, sizeof(pct), d->side[0].h.memblock,
			d->side[1].h.memblock);
		printf("memblock reserved and held: %" PRIu64 " -> %" PRIu64
		       " bytes, %s (%s)\n", d->side[0].h.memblock,
		       d->side[1].h.memblock, delta, pct);
	}
}

/* "callsite foo_init+0x10", "cache dentry", ... or "total" */
static void fail_key(const struct diff_fail *f, char *key, size_t size)
{
	if (f->row)
		snprintf(key, size, "%s %s", kmt_fp_cat_names[f->row->cat], f->row->key);
	else
		snprintf(key, size, "total");
}

static void print_fails(const struct diff *d, const struct diff_fail *f, size_t nr)
{
	uint64_t tb = retained(&d->side[0]);
	uint64_t tn = retained(&d->side[1]);
	char key[600], base[24], new[24], delta[24], pct[32];
	int kw = KMT_NAME_COL;
	size_t i;

	for (i = 0; i < nr; i++) {
		fail_key(&f[i], key, sizeof(key));
		kw = kmt_name_width(kw, key);
	}
	printf("over budget:\n");
	kmt_rule(120 + kw - KMT_NAME_COL);
	printf(" %-*s | %10s | %10s | %11s | %9s | %s\n", kw, "Row", "Base", "New",
	       "Delta", "Delta%", "Budget exceeded");
	kmt_rule(120 + kw - KMT_NAME_COL);
	for (i = 0; i < nr; i++) {
		uint64_t b = f[i].row ? f[i].row->v[0].retained : tb;
		uint64_t n = f[i].row ? f[i].row->v[1].retained : tn;

		fail_key(&f[i], key, sizeof(key));
		snprintf(base, sizeof(base), "%" PRIu64, b);
		snprintf(new, sizeof(new), "%" PRIu64, n);
		fmt_delta(delta, sizeof(delta), b, n);
		fmt_pct(pct, sizeof(pct), b, n);
		printf(" %-*s | %10s | %10s | %11s | %9s | limit %s (%s)\n", kw, key,
		       base, new, delta, pct, f[i].lim->spec, f[i].lim->src);
	}
	kmt_rule(120 + kw - KMT_NAME_COL);
	printf("\n");
}

static void print_text(const struct diff *d, const struct diff_opts *o,
		       const struct diff_fail *f, size_t nr_fail, size_t nr_lims)
{
	int c, i;

	if (nr_fail)
		print_fails(d, f, nr_fail);
	for (i = 0; i < 2; i++)
		printf("%s %s (%s, %" PRIu64 " events to %" PRIu64 ".%09" PRIu64 " s)\n",
		       i ? "new: " : "base:", d->side[i].path, d->side[i].h.release,
		       d->side[i].h.events, d->side[i].h.last_ts / 1000000000u,
		       d->side[i].h.last_ts % 1000000000u);
	for (c = 0; c < KMT_FP_NR; c++) {
		printf("\n");
		print_table(d, (enum kmt_fp_cat)c, o);
	}
	printf("\n");
	print_total(d);
	if (nr_lims)
		printf("Budget: %s (%zu %s over, checked against %zu budget%s)\n",
		       nr_fail ? "over" : "within", nr_fail,
		       nr_fail == 1 ? "row or total" : "rows or totals", nr_lims,
		       nr_lims == 1 ? "" : "s");
}

/* ---- JSON --------------------------------------------------------------- */

static void json_i64(FILE *f, bool *first, const char *key, uint64_t base,
		     uint64_t new)
{
	kmt_json_key(f, first, key);
	if (new >= base)
		fprintf(f, "%" PRIu64, new - base);
	else
		fprintf(f, "-%" PRIu64, base - new);
}

static void json_pct(FILE *f, bool *first, uint64_t base, uint64_t new)
{
	kmt_json_key(f, first, "delta_pct");
	if (!base)
		fputs("null", f);
	else if (new >= base)
		fprintf(f, "%.6f", 100.0 * (double)(new - base) / (double)base);
	else
		fprintf(f, "-%.6f", 100.0 * (double)(base - new) / (double)base);
}

static void json_side(FILE *f, const struct diff_side *s)
{
	bool first = true;

	fputc('{', f);
	kmt_json_key(f, &first, "file");
	kmt_json_str(f, s->path, strlen(s->path));
	kmt_json_key(f, &first, "release");
	kmt_json_str(f, s->h.release, strlen(s->h.release));
	kmt_json_u64(f, &first, "events", s->h.events);
	kmt_json_u64(f, &first, "last_ns", s->h.last_ts);
	kmt_json_u64(f, &first, "lost", s->h.lost);
	kmt_json_u64(f, &first, "retained_slab", s->h.slab);
	kmt_json_u64(f, &first, "retained_pages", s->h.pages);
	if (s->h.has_memblock)
		kmt_json_u64(f, &first, "memblock_held", s->h.memblock);
	fputc('}', f);
}

static void json_row(FILE *f, const struct diff_row *r)
{
	const struct diff_cat_info *ci = &cats[r->cat];
	bool first = true;

	fputc('{', f);
	kmt_json_key(f, &first, "category");
	kmt_json_str(f, kmt_fp_cat_names[r->cat], strlen(kmt_fp_cat_names[r->cat]));
	kmt_json_key(f, &first, "key");
	kmt_json_str(f, r->key, strlen(r->key));
	kmt_json_key(f, &first, "status");
	fprintf(f, "\"%s\"", row_status(r));
	kmt_json_u64(f, &first, "base", r->v[0].retained);
	kmt_json_u64(f, &first, "new", r->v[1].retained);
	json_i64(f, &first, "delta", r->v[0].retained, r->v[1].retained);
	json_pct(f, &first, r->v[0].retained, r->v[1].retained);
	if (ci->objs) {
		bool blocks = ci->objs[0] == 'B';

		kmt_json_u64(f, &first, blocks ? "base_blocks" : "base_objects", r->v[0].objs);
		kmt_json_u64(f, &first, blocks ? "new_blocks" : "new_objects", r->v[1].objs);
	}
	if (ci->alloc) {
		kmt_json_u64(f, &first, "base_alloc", r->v[0].alloc);
		kmt_json_u64(f, &first, "new_alloc", r->v[1].alloc);
	}
	if (ci->hits) {
		kmt_json_u64(f, &first, "base_hit", r->v[0].hit);
		kmt_json_u64(f, &first, "new_hit", r->v[1].hit);
	}
	kmt_json_key(f, &first, "over_budget");
	fputs(r->over ? "true" : "false", f);
	fputc('}', f);
}

static void print_json(FILE *f, const struct diff *d, const struct diff_opts *o,
		       const struct diff_fail *fails, size_t nr_fail, size_t nr_lims)
{
	uint64_t tb = retained(&d->side[0]);
	uint64_t tn = retained(&d->side[1]);
	size_t i, shown[KMT_FP_NR] = { 0 }, n = 0;
	bool first;

	fprintf(f, "{\"kmemflight_diff\": 1");
	fprintf(f, ",\n  \"base\": ");
	json_side(f, &d->side[0]);
	fprintf(f, ",\n  \"new\": ");
	json_side(f, &d->side[1]);
	fprintf(f, ",\n  \"rows\": [");
	for (i = 0; i < d->nr; i++) {
		const struct diff_row *r = &d->rows[i];

		if (o->lines >= 0 && shown[r->cat] == (size_t)o->lines)
			continue;
		shown[r->cat]++;
		fprintf(f, "%s\n    ", n++ ? "," : "");
		json_row(f, r);
	}
	fprintf(f, "%s],\n  \"total\": {", n ? "\n  " : "");
	first = true;
	kmt_json_u64(f, &first, "base", tb);
	kmt_json_u64(f, &first, "new", tn);
	json_i64(f, &first, "delta", tb, tn);
	json_pct(f, &first, tb, tn);
	kmt_json_key(f, &first, "over_budget");
	for (i = 0; i < nr_fail && fails[i].row; i++)
		;
	fputs(i < nr_fail ? "true" : "false", f);
	fprintf(f, "},\n  \"budget\": {");
	first = true;
	kmt_json_key(f, &first, "verdict");
	fprintf(f, "\"%s\"", !nr_lims ? "none" : nr_fail ? "over" : "within");
	kmt_json_u64(f, &first, "budgets", nr_lims);
	kmt_json_key(f, &first, "over");
	fputc('[', f);
	for (i = 0; i < nr_fail; i++) {
		const struct diff_row *r = fails[i].row;
		uint64_t b = r ? r->v[0].retained : tb, nw = r ? r->v[1].retained : tn;
		bool f2 = true;

		fprintf(f, "%s\n    {", i ? "," : "");
		kmt_json_key(f, &f2, "category");
		fprintf(f, "\"%s\"", r ? kmt_fp_cat_names[r->cat] : "total");
		kmt_json_key(f, &f2, "key");
		if (r)
			kmt_json_str(f, r->key, strlen(r->key));
		else
			fputs("null", f);
		kmt_json_u64(f, &f2, "base", b);
		kmt_json_u64(f, &f2, "new", nw);
		json_i64(f, &f2, "delta", b, nw);
		json_pct(f, &f2, b, nw);
		kmt_json_key(f, &f2, "limit");
		kmt_json_str(f, fails[i].lim->spec, strlen(fails[i].lim->spec));
		kmt_json_key(f, &f2, "limit_bytes");
		if (fails[i].lim->has_bytes)
			fprintf(f, "%" PRIu64, fails[i].lim->bytes);
		else
			fputs("null", f);
		kmt_json_key(f, &f2, "limit_pct");
		if (fails[i].lim->has_pct)
			fprintf(f, "%" PRIu64 ".%03" PRIu64, fails[i].lim->mpct / 1000,
				fails[i].lim->mpct % 1000);
		else
			fputs("null", f);
		kmt_json_key(f, &f2, "source");
		kmt_json_str(f, fails[i].lim->src, strlen(fails[i].lim->src));
		fputc('}', f);
	}
	fprintf(f, "%s]}\n}\n", nr_fail ? "\n  " : "");
}

/* ---- the command -------------------------------------------------------- */

/*
 * The default budgets, for what no option or budget line covers: the
 * total, every callsite ("callsite *") and, when both sides know
 * memblock (@memblock_known), every memblock caller ("memblock *").
 */
static int add_defaults(struct kmt_fp_limit **lims, size_t *nr,
			bool memblock_known)
{
	bool total = false, callsite = false, memblock = false;
	struct kmt_fp_limit *l;
	size_t i;

	for (i = 0; i < *nr; i++) {
		total |= (*lims)[i].cat == KMT_FP_TOTAL;
		callsite |= (*lims)[i].cat == KMT_FP_CALLSITE &&
			    !strcmp((*lims)[i].key, "*");
		memblock |= (*lims)[i].cat == KMT_FP_MEMBLOCK &&
			    !strcmp((*lims)[i].key, "*");
	}
	l = realloc(*lims, (*nr + 3) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	*lims = l;
	if (!total) {
		l = &(*lims)[(*nr)++];
		*l = (struct kmt_fp_limit){ .cat = KMT_FP_TOTAL, .has_bytes = true,
					    .has_pct = true, .bytes = DEFAULT_TOTAL_BYTES,
					    .mpct = DEFAULT_TOTAL_MPCT };
		kmt_fp_limit_spec(l);
		snprintf(l->src, sizeof(l->src), "default");
	}
	if (!callsite) {
		l = &(*lims)[(*nr)++];
		*l = (struct kmt_fp_limit){ .cat = KMT_FP_CALLSITE, .has_bytes = true,
					    .has_pct = true, .bytes = DEFAULT_CALLSITE_BYTES,
					    .mpct = DEFAULT_CALLSITE_MPCT };
		l->key = strdup("*");
		if (!l->key) {
			(*nr)--;
			return -ENOMEM;
		}
		kmt_fp_limit_spec(l);
		snprintf(l->src, sizeof(l->src), "default");
	}
	if (!memblock && memblock_known) {
		l = &(*lims)[(*nr)++];
		*l = (struct kmt_fp_limit){ .cat = KMT_FP_MEMBLOCK, .has_bytes = true,
					    .has_pct = true, .bytes = DEFAULT_MEMBLOCK_BYTES,
					    .mpct = DEFAULT_MEMBLOCK_MPCT };
		l->key = strdup("*");
		if (!l->key) {
			(*nr)--;
			return -ENOMEM;
		}
		kmt_fp_limit_spec(l);
		snprintf(l->src, sizeof(l->src), "default");
	}
	return 0;
}

/*
 * memblock is compared only when both sides know it: a trace without the
 * early memblock events (an older recorder, ftrace, perf, a recorder
 * started after boot) or a version 1 summary would make every memblock
 * row look new or vanished.
 */
static void drop_memblock(struct diff *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->nr; i++) {
		if (d->rows[i].cat == KMT_FP_MEMBLOCK) {
			free(d->rows[i].key);
			continue;
		}
		d->rows[n++] = d->rows[i];
	}
	d->nr = n;
}

static void free_diff(struct diff *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		free(d->rows[i].key);
	free(d->rows);
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o;
	struct diff d = { 0 };
	struct kmt_fp_limit *lims = NULL;
	struct diff_fail *fails = NULL;
	struct kmt_err err = { "" };
	size_t nr_lims = 0, i;
	long nr_fail;
	int ret, side, status = KMF_EXIT_FAIL;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	/* a budget that cannot be read is the gate's mistake, not the boot's */
	if (o.budget) {
		char *buf;
		size_t len;

		ret = slurp(o.budget, 1u << 20, &buf, &len);
		if (ret) {
			kmf_error("%s: cannot open the budget file: %s", o.budget,
				  ret == -EFBIG ? "larger than 1 MiB" : ret == -EISDIR ?
				  "not a regular file" : strerror(-ret));
			return KMF_EXIT_USAGE;
		}
		ret = kmt_fp_parse_budget(o.budget, buf, len, &lims, &nr_lims, &err);
		free(buf);
		if (ret) {
			kmf_error("%s", err.msg);
			return KMF_EXIT_USAGE;
		}
	}
	if (o.cli.has_bytes || o.cli.has_pct) {
		struct kmt_fp_limit *l = realloc(lims, (nr_lims + 1) * sizeof(*l));

		if (!l) {
			kmf_error("out of memory");
			goto out;
		}
		lims = l;
		lims[nr_lims++] = o.cli;
	}
	for (side = 0; side < 2; side++) {
		if (load_side(&d, side, o.path[side], &err)) {
			kmf_error("%s", err.msg);
			goto out;
		}
		if (d.side[side].h.nosyms)
			kmf_warn("%s has no kallsyms: its callsites are keyed by address, which differ between boots",
				 o.path[side]);
		if (d.side[side].h.unknown_cache)
			kmf_warn("%s: %" PRIu64 " kmem_cache events name a cache the trace never defined",
				 o.path[side], d.side[side].h.unknown_cache);
		/* short totals could hide a regression: no verdict on them */
		if (d.side[side].h.lost && !o.allow_lost) {
			kmf_error("%s: %" PRIu64 " events were lost while recording, so its totals are short; boot with a larger kmemtrace.size, or pass --allow-lost",
				  o.path[side], d.side[side].h.lost);
			goto out;
		}
		if (d.side[side].h.lost)
			kmf_warn("%s: %" PRIu64 " events were lost while recording: totals are short",
				 o.path[side], d.side[side].h.lost);
	}
	if (!d.side[0].h.has_memblock || !d.side[1].h.has_memblock) {
		for (side = 0; side < 2; side++)
			if (!d.side[side].h.has_memblock &&
			    d.side[!side].h.has_memblock)
				kmf_warn("%s has no early memblock events (a trace of an older recorder, of ftrace or perf, of a recorder started after boot, or a version 1 summary): memblock is not compared",
					 o.path[side]);
		drop_memblock(&d);
	}
	if (!o.no_defaults &&
	    add_defaults(&lims, &nr_lims, d.side[0].h.has_memblock &&
					  d.side[1].h.has_memblock)) {
		kmf_error("out of memory");
		goto out;
	}
	merge_rows(&d);
	nr_fail = check_budgets(&d, lims, nr_lims, &fails);
	if (nr_fail < 0) {
		kmf_error("out of memory");
		goto out;
	}
	for (i = 0; i < nr_lims; i++)
		if (!lims[i].matched && lims[i].key && strcmp(lims[i].key, "*"))
			kmf_warn("%s: %s %s is in neither trace", lims[i].src,
				 kmt_fp_cat_names[lims[i].cat], lims[i].key);
	if (o.json)
		print_json(stdout, &d, &o, fails, (size_t)nr_fail, nr_lims);
	else
		print_text(&d, &o, fails, (size_t)nr_fail, nr_lims);
	/* a write error is main()'s to report, as for every command */
	status = nr_fail ? KMF_EXIT_FAIL : KMF_EXIT_OK;
out:
	free(fails);
	kmt_fp_free_limits(lims, nr_lims);
	free_diff(&d);
	return status;
}

static void summary_usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight summary <file>\n"
		"\n"
		"Print what kmemflight diff compares of a trace, by name: tens of KB (a\n"
		"QEMU test boot's is about 23 KB, its trace 6 MB) to commit as a\n"
		"baseline.  kmemflight diff takes it in place of a trace:\n"
		"'kmemflight summary boot.kmt > base.summary'.\n"
		"\n"
		"    -h, --help   this help\n");
}

int cmd_summary(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kmt_footprint fp;
	struct kmt_err err = { "" };
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			summary_usage(stdout);
			return KMF_EXIT_OK;
		}
		return kmf_option_error(longopts, "h", optopt, argv[optind - 1],
					"-h/--help");
	}
	if (argc - optind != 1)
		return kmf_usage_error(argc == optind ? "missing <file>: the trace to summarise" :
				       "one trace only");
	if (kmt_fp_from_trace(&fp, argv[optind], &err)) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_FAIL;
	}
	if (fp.h.coverage[0])
		fprintf(stderr, "%s: note: %s\n", kmf_cmd_name, fp.h.coverage);
	/* a baseline that diff will refuse: say so now, not at the gate */
	if (fp.h.lost)
		kmf_warn("%s: %" PRIu64 " events were lost while recording, so its totals are short: kmemflight diff refuses this summary unless given --allow-lost",
			 argv[optind], fp.h.lost);
	/* a write error is main()'s to report, as for every command */
	kmt_fp_write(stdout, &fp);
	kmt_fp_free(&fp);
	return KMF_EXIT_OK;
}

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

#include "../cli/cli.h"
#include "report.h"
#include "slab.h"

#define VALID_OPTS "--max-growth, --max-growth-bytes, --budget, -l/--line, --json, -h/--help"

enum diff_cat {
	DC_CALLSITE,
	DC_CACHE,
	DC_PAGE,
	DC_ORDER,
	DC_PHASE,
	DC_NR,
	DC_TOTAL = DC_NR,	/* a budget on the total, not on a row */
};

static const struct diff_cat_info {
	const char *name;	/* in budget files and the JSON */
	const char *title;
	const char *col;	/* the key column's header */
	const char *objs;	/* the objects column's header, or NULL */
	bool alloc;		/* an Allocated column */
	bool hits;		/* a Hits column */
} cats[DC_NR] = {
	[DC_CALLSITE] = { "callsite", "Slab callsites: bytes of objects retained at the end",
			  "Callsite", "Objects", true, true },
	[DC_CACHE] = { "cache", "Caches: bytes of objects retained at the end",
		       "Cache", "Objects", false, false },
	[DC_PAGE] = { "page", "Page callers: bytes of pages retained at the end",
		      "Page caller", "Blocks", true, true },
	[DC_ORDER] = { "order", "Page orders: bytes of pages retained at the end",
		       "Order", "Blocks", true, true },
	[DC_PHASE] = { "phase", "Boot phases: slab and page bytes retained at the end",
		       "Phase", NULL, true, false },
};

struct diff_vals {
	uint64_t retained;	/* bytes still allocated at the end */
	uint64_t objs;		/* objects or page blocks among them */
	uint64_t alloc;		/* bytes allocated over the trace */
	uint64_t hit;		/* allocations */
};

struct diff_row {
	enum diff_cat cat;
	char *key;
	struct diff_vals v[2];	/* base, new */
	bool in[2];		/* the row exists in that trace */
	bool over;		/* over its budget */
};

/* What the header and the warnings say about one trace. */
struct diff_side {
	const char *path;
	char release[64];
	uint64_t events, last_ts, lost, unknown_cache;
	bool nosyms;
	uint64_t slab, pages;	/* retained at the end */
};

struct diff {
	struct diff_row *rows;
	size_t nr, cap;
	struct diff_side side[2];
};

/*
 * One budget: the row (or total) fails when its retained bytes grow by
 * more than @bytes and by more than @mpct; with only one of the two
 * given, by more than that one.
 */
struct diff_limit {
	int cat;		/* enum diff_cat, DC_TOTAL for the total */
	char *key;		/* "*": every row of cat without its own */
	bool has_bytes, has_pct;
	uint64_t bytes;
	uint64_t mpct;		/* thousandths of a percent */
	char spec[64];		/* as written: "4K 10%" */
	char src[96];		/* "budget.txt:3" or the options */
	bool matched;		/* a row has this key */
};

struct diff_opts {
	const char *path[2];
	const char *budget;
	long lines;
	bool json;
	struct diff_limit cli;	/* --max-growth, --max-growth-bytes */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight diff [<options>] <base> <new>\n"
		"\n"
		"Compare what two saved traces left allocated at their end, callsite by\n"
		"callsite (by function name, so KASLR and rebuilds do not matter), cache\n"
		"by cache, by page caller and order, and boot phase by boot phase, and\n"
		"check the growth against budgets (exit 1 when over).\n"
		"\n"
		"    --max-growth <pct>    budget for the total retained bytes (slab objects\n"
		"                          and pages): grow by at most pct percent (5%%)\n"
		"    --max-growth-bytes <size>\n"
		"                          the same in bytes, with an optional K, M or G\n"
		"                          (powers of 1024): 64K; with --max-growth too, the\n"
		"                          total is over budget only when it exceeds both\n"
		"    --budget <file>       budgets per callsite, cache, page caller, order or\n"
		"                          phase, one per line: 'callsite foo_init 4K',\n"
		"                          'phase level:device 10%%', 'total 2%% 64K'\n"
		"    -l, --line <n>        print only the first n rows of each table\n"
		"    --json                the same as one JSON document\n"
		"    -h, --help            this help\n"
		"\n"
		"Exit status: 0 within budget (or no budget), 1 over budget or a trace\n"
		"that cannot be read, 2 usage error or a bad budget.\n");
}

/*
 * A size in bytes: decimal digits, then K, M or G (powers of 1024) or
 * nothing.  0, -EINVAL, or -ERANGE past 2^64 - 1.
 */
static int parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v = 0, mult = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case '\0': break;
	case 'K': case 'k': mult = 1ULL << 10; p++; break;
	case 'M': case 'm': mult = 1ULL << 20; p++; break;
	case 'G': case 'g': mult = 1ULL << 30; p++; break;
	default: return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*bytes = v * mult;
	return 0;
}

/*
 * A percentage, "5", "2.5" or "0.125", with @len bytes and no sign, in
 * thousandths of a percent: exact, so that a budget at a row's growth
 * is not over it.  0, -EINVAL, or -ERANGE past 10^12 %.
 */
static int parse_pct(const char *s, size_t len, uint64_t *mpct)
{
	uint64_t whole = 0, frac = 0;
	size_t i = 0, digits = 0, fdigits = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		whole = whole * 10 + (uint64_t)(s[i] - '0');
		if (whole > 1000000000000ULL)
			return -ERANGE;
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, fdigits++) {
			if (fdigits == 3)
				return -EINVAL;	/* finer than 0.001% */
			frac = frac * 10 + (uint64_t)(s[i] - '0');
		}
		if (!fdigits)
			return -EINVAL;
	}
	if (!digits || i != len)
		return -EINVAL;
	for (; fdigits < 3; fdigits++)
		frac *= 10;
	*mpct = whole * 1000 + frac;
	return 0;
}

/* One limit word of a budget: "10%" or a size.  0 or -EINVAL / -ERANGE. */
static int parse_limit_word(struct diff_limit *l, const char *w)
{
	size_t len = strlen(w);
	int ret;

	if (len && w[len - 1] == '%') {
		if (l->has_pct)
			return -EEXIST;
		ret = parse_pct(w, len - 1, &l->mpct);
		l->has_pct = !ret;
		return ret;
	}
	if (l->has_bytes)
		return -EEXIST;
	ret = parse_size(w, &l->bytes);
	l->has_bytes = !ret;
	return ret;
}

static bool limit_over(const struct diff_limit *l, uint64_t base, uint64_t new)
{
	uint64_t d;
	bool ob, op;

	if (new <= base)
		return false;
	d = new - base;
	ob = l->has_bytes && d > l->bytes;
	/* d / base > mpct / 100000, without rounding; from 0 any growth */
	op = l->has_pct && (!base || (unsigned __int128)d * 100000 >
			    (unsigned __int128)l->mpct * base);
	if (l->has_bytes && l->has_pct)
		return ob && op;
	return ob || op;
}

/* "64K and 5%": the limits as written, the size first */
static void limit_spec(struct diff_limit *l, const char *bytes, const char *pct)
{
	snprintf(l->spec, sizeof(l->spec), "%s%s%s", bytes ? bytes : "",
		 bytes && pct ? " and " : "", pct ? pct : "");
}

static void free_limits(struct diff_limit *l, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(l[i].key);
	free(l);
}

/*
 * Read a budget file: per line "total LIMIT [LIMIT]" or "CATEGORY KEY
 * LIMIT [LIMIT]", a LIMIT being a size or a percentage, "#" starting a
 * comment.  -EINVAL with err naming the file and line, or -errno.
 */
static int load_budget(const char *path, struct diff_limit **out, size_t *nr_out,
		       struct kmt_err *err)
{
	struct diff_limit *lims = NULL, *l;
	size_t nr = 0, cap = 0, i, n, len = 0;
	char *line = NULL, *w[6], *save, *tok, *bw, *pw;
	unsigned int lineno = 0;
	FILE *f = fopen(path, "r");
	int ret = 0, c, first;

	if (!f)
		return kmt_errf(err, errno, "%s: cannot open the budget file: %s", path,
				strerror(errno));
	while (getline(&line, &len, f) > 0) {
		lineno++;
		line[strcspn(line, "#\n")] = '\0';
		for (n = 0, tok = strtok_r(line, " \t\r", &save); tok && n < 6;
		     tok = strtok_r(NULL, " \t\r", &save))
			w[n++] = tok;
		if (!n)
			continue;
		for (c = 0; c <= DC_NR; c++)
			if (!strcmp(w[0], c == DC_TOTAL ? "total" : cats[c].name))
				break;
		if (c > DC_NR) {
			ret = kmt_errf(err, EINVAL, "%s:%u: unknown budget '%s' (valid: total, callsite, cache, page, order, phase)",
				       path, lineno, w[0]);
			break;
		}
		first = c == DC_TOTAL ? 1 : 2;
		if (n < (size_t)first + 1 || n > (size_t)first + 2) {
			if (c == DC_TOTAL)
				ret = kmt_errf(err, EINVAL, "%s:%u: 'total' wants one or two limits (a size, a percentage): total 64K 2%%",
					       path, lineno);
			else
				ret = kmt_errf(err, EINVAL, "%s:%u: '%s' wants a key and one or two limits (a size, a percentage): %s KEY 4K 10%%",
					       path, lineno, w[0], w[0]);
			break;
		}
		if (nr == cap) {
			cap = cap ? cap * 2 : 16;
			l = realloc(lims, cap * sizeof(*lims));
			if (!l) {
				ret = kmt_errf(err, ENOMEM, "out of memory");
				break;
			}
			lims = l;
		}
		l = &lims[nr];
		memset(l, 0, sizeof(*l));
		l->cat = c;
		bw = pw = NULL;
		for (i = (size_t)first; i < n && !ret; i++) {
			ret = parse_limit_word(l, w[i]);
			if (w[i][strlen(w[i]) - 1] == '%')
				pw = w[i];
			else
				bw = w[i];
			if (ret == -EEXIST)
				ret = kmt_errf(err, EINVAL, "%s:%u: two %s limits: one size and one percentage at most",
					       path, lineno, w[i][strlen(w[i]) - 1] == '%' ?
					       "percentage" : "size");
			else if (ret)
				ret = kmt_errf(err, EINVAL, "%s:%u: '%s' is %s",
					       path, lineno, w[i], ret == -ERANGE ? "too large" :
					       "neither a size (4096, 64K, 1M) nor a percentage with at most 3 decimals (10%, 2.5%)");
		}
		if (ret)
			break;
		limit_spec(l, bw, pw);
		snprintf(l->src, sizeof(l->src), "%s:%u", path, lineno);
		if (c != DC_TOTAL) {
			l->key = strdup(w[1]);
			if (!l->key) {
				ret = kmt_errf(err, ENOMEM, "out of memory");
				break;
			}
			/* a second budget for a row would leave one unused */
			for (i = 0; i < nr; i++)
				if (lims[i].cat == c && !strcmp(lims[i].key, l->key))
					break;
			if (i < nr) {
				ret = kmt_errf(err, EINVAL, "%s:%u: %s %s has a budget already, at %s",
					       path, lineno, w[0], w[1], lims[i].src);
				free(l->key);
				break;
			}
		}
		nr++;
	}
	if (!ret && ferror(f))
		ret = kmt_errf(err, EIO, "%s: read error", path);
	free(line);
	fclose(f);
	if (ret) {
		free_limits(lims, nr);
		return ret;
	}
	*out = lims;
	*nr_out = nr;
	return 0;
}

static int parse_args(int argc, char **argv, struct diff_opts *o)
{
	enum { OPT_MAX_GROWTH = 256, OPT_MAX_BYTES, OPT_BUDGET, OPT_JSON };
	static const struct option longopts[] = {
		{ "max-growth", required_argument, NULL, OPT_MAX_GROWTH },
		{ "max-growth-bytes", required_argument, NULL, OPT_MAX_BYTES },
		{ "budget", required_argument, NULL, OPT_BUDGET },
		{ "json", no_argument, NULL, OPT_JSON },
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
	o->cli.cat = DC_TOTAL;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+l:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_MAX_GROWTH:
			len = strlen(optarg);
			if (len && optarg[len - 1] == '%')
				len--;
			ret = parse_pct(optarg, len, &o->cli.mpct);
			if (ret == -ERANGE)
				return kmf_usage_error("--max-growth: '%s' is too large", optarg);
			if (ret)
				return kmf_usage_error("--max-growth wants a percentage >= 0, at most 3 decimals (e.g. 5%%), not '%s'",
						       optarg);
			o->cli.has_pct = true;
			pct = optarg;
			break;
		case OPT_MAX_BYTES:
			ret = parse_size(optarg, &o->cli.bytes);
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
		case 'l':
			errno = 0;
			o->lines = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || o->lines < 0)
				return kmf_usage_error("--line wants a number >= 0, not '%s'",
						       optarg);
			break;
		case 'h': usage(stdout); return -1;
		case '?':
			if (optopt == 'l')
				return kmf_usage_error("option '-l' needs a value");
			if (optopt && optopt < 256)
				return kmf_usage_error("option '-%c' is unknown", optopt);
			if (optopt)
				return kmf_usage_error("option '%s' needs a value", argv[optind - 1]);
			return kmf_usage_error("unknown option '%s' (valid: %s)",
					       argv[optind - 1], VALID_OPTS);
		default:
			return kmf_usage_error("unknown option '%s' (valid: %s)",
					       argv[optind - 1], VALID_OPTS);
		}
	}
	if (argc - optind != 2)
		return kmf_usage_error(argc - optind < 2 ?
				       "missing <base> and <new>: two trace files to compare" :
				       "two trace files only: <base> <new>");
	o->path[0] = argv[optind];
	o->path[1] = argv[optind + 1];
	limit_spec(&o->cli, bytes, pct);
	snprintf(o->cli.src, sizeof(o->cli.src), "%s%s%s",
		 bytes ? "--max-growth-bytes" : "", bytes && pct ? " and " : "",
		 pct ? "--max-growth" : "");
	return 0;
}

/* ---- the rows ----------------------------------------------------------- */

static int add_row(struct diff *d, enum diff_cat cat, const char *key, int side,
		   const struct diff_vals *v)
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

/*
 * The function an address is in, without the +offset; its hex when no
 * symbol is within 1 MiB below it (the rule of kmt_symtab_format).
 */
static void sym_key(const struct kmt_symtab *st, uint64_t addr, char *buf,
		    size_t size)
{
	const struct kmt_sym *s;

	if (!addr) {
		snprintf(buf, size, "(unknown)");
		return;
	}
	s = kmt_symtab_find(st, addr);
	if (!s || addr - s->addr >= (1u << 20))
		snprintf(buf, size, "0x%" PRIx64, addr);
	else
		snprintf(buf, size, "%.*s", (int)s->name_len, s->name);
}

/* "kmalloc-64" as the kernel names its caches: size alone says which */
static void cache_key(const struct kmt_trace *t, const struct kmt_live_cache *c,
		      char *buf, size_t size)
{
	const struct kmt_cache *k = c->cache ? kmt_trace_cache(t, c->cache) : NULL;

	if (!c->cache)
		snprintf(buf, size, "kmalloc-%u", c->size);
	else if (k)
		snprintf(buf, size, "%s", k->name);
	else
		snprintf(buf, size, "cache#%u", c->cache);
}

static int collect(struct diff *d, int side, const struct kmt_trace *t,
		   const struct kmt_slab *s, const struct kmt_symtab *st)
{
	char key[512];
	struct diff_vals v;
	size_t i;
	unsigned int o, m;
	int ret = 0;

	for (i = 0; i < s->nr_callers && !ret; i++) {
		const struct kmt_caller *c = &s->callers[i];

		sym_key(st, c->call_site, key, sizeof(key));
		v = (struct diff_vals){ c->live_bytes, c->live_objs, c->bytes_alloc, c->hit };
		ret = add_row(d, DC_CALLSITE, key, side, &v);
	}
	for (i = 0; i < s->nr_live_caches && !ret; i++) {
		cache_key(t, &s->live_caches[i], key, sizeof(key));
		v = (struct diff_vals){ s->live_caches[i].bytes, s->live_caches[i].objs, 0, 0 };
		ret = add_row(d, DC_CACHE, key, side, &v);
	}
	/* a page caller's allocations, then what it still holds */
	for (i = 0; i < s->nr_pcallers && !ret; i++) {
		const struct kmt_page_caller *c = &s->pcallers[i];

		sym_key(st, c->site, key, sizeof(key));
		v = (struct diff_vals){ 0, 0, c->bytes, c->hit };
		ret = add_row(d, DC_PAGE, key, side, &v);
	}
	for (i = 0; i < s->nr_live_psites && !ret; i++) {
		const struct kmt_live_psite *p = &s->live_psites[i];

		sym_key(st, p->site, key, sizeof(key));
		v = (struct diff_vals){ p->bytes, p->blocks, 0, 0 };
		ret = add_row(d, DC_PAGE, key, side, &v);
	}
	for (o = 0; o < KMT_PG_ORDERS && !ret; o++) {
		uint64_t n = 0, blk = (1ULL << t->fmt.page_shift) << o;

		for (m = 0; m < KMT_PG_MT_COLS; m++)
			n += s->pg_order_mt[o][m];
		if (!n && !s->pg_live_order[o])
			continue;
		snprintf(key, sizeof(key), "%u", o);
		v = (struct diff_vals){ s->pg_live_order[o] * blk, s->pg_live_order[o],
					n * blk, n };
		ret = add_row(d, DC_ORDER, key, side, &v);
	}
	for (i = 0; i < s->nr_phases && !ret; i++) {
		const struct kmt_phase *p = &s->phases[i];

		/* "early" is the time before the first level, not the level */
		if (!i)
			snprintf(key, sizeof(key), "early");
		else
			snprintf(key, sizeof(key), "%s:%.*s", p->exec ? "exec" : "level",
				 (int)p->name_len, p->name);
		v = (struct diff_vals){ p->st.slab_retained + p->st.page_retained, 0,
					p->st.slab_alloc + p->st.page_alloc, 0 };
		ret = add_row(d, DC_PHASE, key, side, &v);
	}
	return ret;
}

/* Read one trace and add its rows; -errno with err set. */
static int load_side(struct diff *d, int side, const char *path, struct kmt_err *err)
{
	struct diff_side *ds = &d->side[side];
	struct kmt_symtab st = { 0 };
	struct kmt_trace t;
	struct kmt_slab s;
	int ret;

	ds->path = path;
	ret = kmt_trace_open(path, &t, err);
	if (ret)
		return ret;
	memset(&s, 0, sizeof(s));
	if (kmt_symtab_load(&st, t.kallsyms, t.kallsyms_len)) {
		ret = kmt_errf(err, ENOMEM, "out of memory");
		goto out;
	}
	ds->nosyms = !st.nr;
	ret = kmt_slab_analyze_range(&t, 0, UINT64_MAX, false, &st, &s, err);
	if (ret) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		ret = kmt_errf(err, -ret, "%s: %s", path, msg);
		goto out;
	}
	if (!kmt_trace_meta(&t, "release", ds->release, sizeof(ds->release)))
		snprintf(ds->release, sizeof(ds->release), "?");
	ds->events = s.nr_events;
	ds->last_ts = s.last_ts;
	ds->lost = s.lost;
	ds->unknown_cache = s.nr_unknown_cache;
	ds->slab = s.live_bytes;
	ds->pages = s.pg_live_bytes;
	if (collect(d, side, &t, &s, &st))
		ret = kmt_errf(err, ENOMEM, "out of memory");
out:
	kmt_slab_free(&s);
	kmt_symtab_free(&st);
	kmt_trace_close(&t);
	return ret;
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

static void add_vals(struct diff_vals *a, const struct diff_vals *b)
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
	const struct diff_limit *lim;
	const struct diff_row *row;	/* NULL: the total */
};

/*
 * Check every row against its own budget, or its category's "*"; the
 * total against each total budget.  Returns how many failed, -ENOMEM.
 */
static long check_budgets(struct diff *d, struct diff_limit *lims, size_t nr_lims,
			  struct diff_fail **out)
{
	uint64_t base = d->side[0].slab + d->side[0].pages;
	uint64_t new = d->side[1].slab + d->side[1].pages;
	struct diff_fail *f = calloc(d->nr + nr_lims + 1, sizeof(*f));
	size_t i, j, n = 0;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < nr_lims; i++) {
		if (lims[i].cat != DC_TOTAL)
			continue;
		lims[i].matched = true;
		if (limit_over(&lims[i], base, new))
			f[n++] = (struct diff_fail){ &lims[i], NULL };
	}
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];
		struct diff_limit *l = NULL;

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
		if (limit_over(l, r->v[0].retained, r->v[1].retained)) {
			r->over = true;
			f[n++] = (struct diff_fail){ l, r };
		}
	}
	*out = f;
	return (long)n;
}

/* ---- text --------------------------------------------------------------- */

static const char dashes[] =
	"--------------------------------------------------------------------------------"
	"--------------------------------------------------------------------------------"
	"--------------------------------------------------------------------------------";

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

static void print_line(const struct diff_cat_info *ci, const char *key,
		       const char *base, const char *new, const char *delta,
		       const char *pct, const char *objs, const char *alloc,
		       const char *hits, const char *status)
{
	printf(" %-34s | %10s | %10s | %11s | %9s", key, base, new, delta, pct);
	if (ci->objs)
		printf(" | %17s", objs);
	if (ci->alloc)
		printf(" | %25s", alloc);
	if (ci->hits)
		printf(" | %17s", hits);
	printf(" | %s\n", status);
}

static void print_row(const struct diff_row *r)
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
	print_line(ci, r->key, base, new, delta, pct, objs, alloc, hits,
		   row_status(r));
}

static void print_table(const struct diff *d, enum diff_cat cat,
			const struct diff_opts *o)
{
	const struct diff_cat_info *ci = &cats[cat];
	int w = table_width(ci);
	size_t i, shown = 0, n = 0;

	printf("%s\n", ci->title);
	for (i = 0; i < d->nr; i++)
		n += d->rows[i].cat == cat;
	if (!n) {
		printf("(none in either trace)\n");
		return;
	}
	printf("%.*s\n", w, dashes);
	print_line(ci, ci->col, "Base", "New", "Delta", "Delta%", ci->objs,
		   "Allocated", "Hits", "Status");
	printf("%.*s\n", w, dashes);
	for (i = 0; i < d->nr; i++) {
		if (d->rows[i].cat != cat)
			continue;
		if (o->lines >= 0 && shown == (size_t)o->lines) {
			print_line(ci, "...", "...", "...", "...", "...", "...", "...",
				   "...", "...");
			break;
		}
		print_row(&d->rows[i]);
		shown++;
	}
	printf("%.*s\n", w, dashes);
}

static void print_total(const struct diff *d)
{
	uint64_t base = d->side[0].slab + d->side[0].pages;
	uint64_t new = d->side[1].slab + d->side[1].pages;
	char delta[24], pct[32];

	fmt_delta(delta, sizeof(delta), base, new);
	fmt_pct(pct, sizeof(pct), base, new);
	printf("Total retained (slab objects + pages): %" PRIu64 " -> %" PRIu64
	       " bytes, %s (%s); slab %" PRIu64 " -> %" PRIu64 ", pages %" PRIu64
	       " -> %" PRIu64 "\n", base, new, delta, pct, d->side[0].slab,
	       d->side[1].slab, d->side[0].pages, d->side[1].pages);
}

static void print_fails(const struct diff *d, const struct diff_fail *f, size_t nr)
{
	uint64_t tb = d->side[0].slab + d->side[0].pages;
	uint64_t tn = d->side[1].slab + d->side[1].pages;
	char key[600], base[24], new[24], delta[24], pct[32];
	size_t i;

	printf("over budget:\n");
	printf("%.*s\n", 120, dashes);
	printf(" %-34s | %10s | %10s | %11s | %9s | %s\n", "Row", "Base", "New",
	       "Delta", "Delta%", "Budget exceeded");
	printf("%.*s\n", 120, dashes);
	for (i = 0; i < nr; i++) {
		uint64_t b = f[i].row ? f[i].row->v[0].retained : tb;
		uint64_t n = f[i].row ? f[i].row->v[1].retained : tn;

		if (f[i].row)
			snprintf(key, sizeof(key), "%s %s", cats[f[i].row->cat].name,
				 f[i].row->key);
		else
			snprintf(key, sizeof(key), "total");
		snprintf(base, sizeof(base), "%" PRIu64, b);
		snprintf(new, sizeof(new), "%" PRIu64, n);
		fmt_delta(delta, sizeof(delta), b, n);
		fmt_pct(pct, sizeof(pct), b, n);
		printf(" %-34s | %10s | %10s | %11s | %9s | limit %s (%s)\n", key,
		       base, new, delta, pct, f[i].lim->spec, f[i].lim->src);
	}
	printf("%.*s\n\n", 120, dashes);
}

static void print_text(const struct diff *d, const struct diff_opts *o,
		       const struct diff_fail *f, size_t nr_fail, size_t nr_lims)
{
	int c, i;

	if (nr_fail)
		print_fails(d, f, nr_fail);
	for (i = 0; i < 2; i++)
		printf("%s %s (%s, %" PRIu64 " events to %" PRIu64 ".%09" PRIu64 " s)\n",
		       i ? "new: " : "base:", d->side[i].path, d->side[i].release,
		       d->side[i].events, d->side[i].last_ts / 1000000000u,
		       d->side[i].last_ts % 1000000000u);
	for (c = 0; c < DC_NR; c++) {
		printf("\n");
		print_table(d, (enum diff_cat)c, o);
	}
	printf("\n");
	print_total(d);
	if (nr_lims)
		printf("Budget: %s (%zu of %zu budgets exceeded)\n",
		       nr_fail ? "over" : "within", nr_fail, nr_lims);
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
	kmt_json_str(f, s->release, strlen(s->release));
	kmt_json_u64(f, &first, "events", s->events);
	kmt_json_u64(f, &first, "last_ns", s->last_ts);
	kmt_json_u64(f, &first, "lost", s->lost);
	kmt_json_u64(f, &first, "retained_slab", s->slab);
	kmt_json_u64(f, &first, "retained_pages", s->pages);
	fputc('}', f);
}

static void json_row(FILE *f, const struct diff_row *r)
{
	const struct diff_cat_info *ci = &cats[r->cat];
	bool first = true;

	fputc('{', f);
	kmt_json_key(f, &first, "category");
	kmt_json_str(f, ci->name, strlen(ci->name));
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
	uint64_t tb = d->side[0].slab + d->side[0].pages;
	uint64_t tn = d->side[1].slab + d->side[1].pages;
	size_t i, shown[DC_NR] = { 0 }, n = 0;
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
		fprintf(f, "\"%s\"", r ? cats[r->cat].name : "total");
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
	struct diff_limit *lims = NULL;
	struct diff_fail *fails = NULL;
	struct kmt_err err = { "" };
	size_t nr_lims = 0, i;
	long nr_fail;
	int ret, side, status = KMF_EXIT_FAIL;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	/* a budget that cannot be read is the gate's mistake, not the boot's */
	if (o.budget && load_budget(o.budget, &lims, &nr_lims, &err)) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_USAGE;
	}
	if (o.cli.has_bytes || o.cli.has_pct) {
		struct diff_limit *l = realloc(lims, (nr_lims + 1) * sizeof(*l));

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
		if (d.side[side].nosyms)
			kmf_warn("%s has no kallsyms: its callsites are keyed by address, which differ between boots",
				 o.path[side]);
		if (d.side[side].unknown_cache)
			kmf_warn("%s: %" PRIu64 " kmem_cache events name a cache the trace never defined",
				 o.path[side], d.side[side].unknown_cache);
		if (d.side[side].lost)
			kmf_warn("%s: %" PRIu64 " events were lost while recording: totals are short",
				 o.path[side], d.side[side].lost);
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
				 cats[lims[i].cat].name, lims[i].key);
	if (o.json)
		print_json(stdout, &d, &o, fails, (size_t)nr_fail, nr_lims);
	else
		print_text(&d, &o, fails, (size_t)nr_fail, nr_lims);
	status = nr_fail ? KMF_EXIT_FAIL : KMF_EXIT_OK;
out:
	free(fails);
	free_limits(lims, nr_lims);
	free_diff(&d);
	return status;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A boot's footprint, by name, from a trace or a summary file, and the
 * budgets kmemflight diff checks it against.
 *
 * Addresses move with KASLR and with every rebuild, so rows are keyed
 * by name: a slab or page callsite is the function it is in, from the
 * trace's own kallsyms, without the +offset (a rebuild moves it); an
 * address with no symbol is its hex, which matches only the same address.
 *
 * A summary file keeps these rows, a few KiB where the trace has MiBs,
 * so that a CI can commit a baseline:
 *
 *   kmemflight-summary 2
 *   release 6.12.117+
 *   events 342571
 *   ...
 *   row callsite __d_alloc 197568 1029 218688 1139
 *
 * one "name value" per line; a row is its category, its key with every
 * byte that is not printable ASCII, a space or '%' written %XX, then
 * the retained bytes, objects, allocated bytes and allocations.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "footprint.h"
#include "memblock.h"
#include "slab.h"

const char *const kmt_fp_cat_names[KMT_FP_NR] = {
	[KMT_FP_CALLSITE] = "callsite",
	[KMT_FP_CACHE] = "cache",
	[KMT_FP_PAGE] = "page",
	[KMT_FP_ORDER] = "order",
	[KMT_FP_PHASE] = "phase",
	[KMT_FP_MEMBLOCK] = "memblock",
};

int kmt_fp_add(struct kmt_footprint *fp, enum kmt_fp_cat cat, const char *key,
	       const struct kmt_fp_vals *v)
{
	struct kmt_fp_row *r;

	if (fp->nr == fp->cap) {
		size_t cap = fp->cap ? fp->cap * 2 : 256;

		r = realloc(fp->rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		fp->rows = r;
		fp->cap = cap;
	}
	r = &fp->rows[fp->nr];
	/* a summary line needs a word: an empty name has one */
	r->key = strdup(*key ? key : "(empty)");
	if (!r->key)
		return -ENOMEM;
	r->cat = cat;
	r->v = *v;
	fp->nr++;
	return 0;
}

void kmt_fp_free(struct kmt_footprint *fp)
{
	size_t i;

	for (i = 0; i < fp->nr; i++)
		free(fp->rows[i].key);
	free(fp->rows);
	memset(fp, 0, sizeof(*fp));
}

/*
 * The line of @buf at *pos, without its newline (and a CR before it),
 * into *line (reallocated); *pos moves past it.  -EINVAL if it holds a
 * NUL byte, -ENOMEM.
 */
static int next_line(const char *buf, size_t len, size_t *pos, char **line)
{
	const char *p = buf + *pos, *nl = memchr(p, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - p) : len - *pos;
	char *l;

	*pos += n + (nl != NULL);
	if (n && p[n - 1] == '\r')
		n--;
	l = realloc(*line, n + 1);
	if (!l)
		return -ENOMEM;
	memcpy(l, p, n);
	l[n] = '\0';
	*line = l;
	return memchr(p, '\0', n) ? -EINVAL : 0;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct kmt_fp_row *a = pa, *b = pb;

	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* One row per category and key, in that order: stable summary files. */
static void merge_keys(struct kmt_footprint *fp)
{
	size_t i, n = 0;

	qsort(fp->rows, fp->nr, sizeof(*fp->rows), cmp_row);
	for (i = 0; i < fp->nr; i++) {
		struct kmt_fp_row *r = &fp->rows[i], *p = n ? &fp->rows[n - 1] : NULL;

		if (p && !cmp_row(p, r)) {
			p->v.retained += r->v.retained;
			p->v.objs += r->v.objs;
			p->v.alloc += r->v.alloc;
			p->v.hit += r->v.hit;
			free(r->key);
			continue;
		}
		fp->rows[n++] = *r;
	}
	fp->nr = n;
}

/* ---- from a trace ------------------------------------------------------- */

/*
 * The function an address is in, without the +offset and without the
 * suffixes of the compiler's clones (.constprop.N, .isra.N, .part.N,
 * .cold, .llvm.HASH), which come and go between builds; its hex when no
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
	else	/* "f.constprop.0", "f.isra.0", "f.cold": the compiler's f */
		snprintf(buf, size, "%.*s", (int)(memchr(s->name, '.', s->name_len) ?
			 (size_t)((const char *)memchr(s->name, '.', s->name_len) - s->name) :
			 s->name_len), s->name);
}

/* "kmalloc-64" as the kernel names its caches, as every view names them */
static void cache_key(const struct kmt_trace *t, const struct kmt_live_cache *c,
		      char *buf, size_t size)
{
	kmt_cache_name(t, c->cache, c->size, buf, size);
}

static int collect(struct kmt_footprint *fp, const struct kmt_trace *t,
		   const struct kmt_slab *s, const struct kmt_symtab *st)
{
	char key[512];
	struct kmt_fp_vals v;
	size_t i;
	unsigned int o, m;
	int ret = 0;

	for (i = 0; i < s->nr_callers && !ret; i++) {
		const struct kmt_caller *c = &s->callers[i];

		sym_key(st, c->call_site, key, sizeof(key));
		v = (struct kmt_fp_vals){ c->live_bytes, c->live_objs, c->bytes_alloc, c->hit };
		ret = kmt_fp_add(fp, KMT_FP_CALLSITE, key, &v);
	}
	for (i = 0; i < s->nr_live_caches && !ret; i++) {
		cache_key(t, &s->live_caches[i], key, sizeof(key));
		v = (struct kmt_fp_vals){ s->live_caches[i].bytes, s->live_caches[i].objs, 0, 0 };
		ret = kmt_fp_add(fp, KMT_FP_CACHE, key, &v);
	}
	/* a page caller's allocations, then what it still holds */
	for (i = 0; i < s->nr_pcallers && !ret; i++) {
		const struct kmt_page_caller *c = &s->pcallers[i];

		sym_key(st, c->site, key, sizeof(key));
		v = (struct kmt_fp_vals){ 0, 0, c->bytes, c->hit };
		ret = kmt_fp_add(fp, KMT_FP_PAGE, key, &v);
	}
	for (i = 0; i < s->nr_live_psites && !ret; i++) {
		const struct kmt_live_psite *p = &s->live_psites[i];

		sym_key(st, p->site, key, sizeof(key));
		v = (struct kmt_fp_vals){ p->bytes, p->blocks, 0, 0 };
		ret = kmt_fp_add(fp, KMT_FP_PAGE, key, &v);
	}
	for (o = 0; o < KMT_PG_ORDERS && !ret; o++) {
		uint64_t n = 0, blk = (1ULL << t->fmt.page_shift) << o;

		for (m = 0; m < KMT_PG_MT_COLS; m++)
			n += s->pg_order_mt[o][m];
		if (!n && !s->pg_live_order[o])
			continue;
		snprintf(key, sizeof(key), "%u", o);
		v = (struct kmt_fp_vals){ s->pg_live_order[o] * blk, s->pg_live_order[o],
					n * blk, n };
		ret = kmt_fp_add(fp, KMT_FP_ORDER, key, &v);
	}
	for (i = 0; i < s->nr_phases && !ret; i++) {
		const struct kmt_phase *p = &s->phases[i];

		/* "early" is the time before the first level, not the level */
		if (!i)
			snprintf(key, sizeof(key), "early");
		else
			snprintf(key, sizeof(key), "%s:%.*s", p->exec ? "exec" : "level",
				 (int)p->name_len, p->name);
		v = (struct kmt_fp_vals){ p->st.slab_retained + p->st.page_retained, 0,
					p->st.slab_alloc + p->st.page_alloc, 0 };
		ret = kmt_fp_add(fp, KMT_FP_PHASE, key, &v);
	}
	return ret;
}

/*
 * memblock's callers: what each still holds, its ranges, what it
 * reserved, its reservations.  Only a trace with the early memblock
 * events has them all: another (older recorder, ftrace, perf, a recorder
 * started after boot) says nothing of memblock.
 */
static int collect_memblock(struct kmt_footprint *fp, const struct kmt_trace *t,
			    const struct kmt_symtab *st, struct kmt_err *err)
{
	struct kmt_memblock mb;
	struct kmt_fp_vals v;
	char key[512];
	size_t i;
	int ret;

	ret = kmt_memblock_analyze(t, UINT64_MAX, &mb, err);
	if (ret)
		return ret;
	fp->h.has_memblock = mb.have_early;
	fp->h.memblock = mb.held;
	for (i = 0; i < mb.nr_callers && mb.have_early && !ret; i++) {
		const struct kmt_mb_caller *c = &mb.callers[i];

		sym_key(st, c->call_site, key, sizeof(key));
		v = (struct kmt_fp_vals){ c->held, c->nr, c->reserved, c->nr };
		ret = kmt_fp_add(fp, KMT_FP_MEMBLOCK, key, &v);
	}
	kmt_memblock_free(&mb);
	return ret ? kmt_errf(err, ENOMEM, "out of memory") : 0;
}


int kmt_fp_from_trace(struct kmt_footprint *fp, const char *path,
		      struct kmt_err *err)
{
	struct kmt_symtab st = { 0 };
	struct kmt_trace t;
	struct kmt_slab s;
	char cut[256];
	int ret;

	memset(fp, 0, sizeof(*fp));
	ret = kmt_trace_open_flags(path, KMT_OPEN_TRUNCATED, &t, err);
	if (ret)
		return ret;
	if (kmt_trace_cut_text(&t, cut, sizeof(cut))) {
		kmt_trace_close(&t);
		return kmt_errf(err, EBADMSG,
				"%.200s is %s; a partial trace is not compared (dump, info and report read what is whole)",
				path, cut);
	}
	memset(&s, 0, sizeof(s));
	if (kmt_symtab_load(&st, t.kallsyms, t.kallsyms_len)) {
		ret = kmt_errf(err, ENOMEM, "out of memory");
		goto out;
	}
	fp->h.nosyms = !st.nr;
	ret = kmt_slab_analyze_range(&t, 0, UINT64_MAX, false, &st, &s, err);
	if (ret) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		ret = kmt_errf(err, -ret, "%s: %s", path, msg);
		goto out;
	}
	kmt_trace_coverage(&t, fp->h.coverage, sizeof(fp->h.coverage));
	if (!kmt_trace_meta(&t, "release", fp->h.release, sizeof(fp->h.release)))
		snprintf(fp->h.release, sizeof(fp->h.release), "?");
	fp->h.events = s.nr_events;
	fp->h.last_ts = s.last_ts;
	fp->h.lost = s.lost;
	fp->h.unknown_cache = s.nr_unknown_cache;
	fp->h.slab = s.live_bytes;
	/* the recorder's buffers are its own, whatever the kernel does */
	fp->h.pages = s.pg_live_bytes - s.rec_buffer_bytes;
	if (collect(fp, &t, &s, &st))
		ret = kmt_errf(err, ENOMEM, "out of memory");
	else
		ret = collect_memblock(fp, &t, &st, err);
	if (!ret)
		merge_keys(fp);
out:
	if (ret)
		kmt_fp_free(fp);
	kmt_slab_free(&s);
	kmt_symtab_free(&st);
	kmt_trace_close(&t);
	return ret;
}

/* ---- summary files ------------------------------------------------------ */

static bool plain(unsigned char c)
{
	return c > ' ' && c < 0x7f && c != '%';
}

static int put_escaped(FILE *f, const char *s)
{
	for (; *s; s++)
		if (plain((unsigned char)*s) ? fputc(*s, f) == EOF :
		    fprintf(f, "%%%02X", (unsigned char)*s) < 0)
			return -EIO;
	return 0;
}

int kmt_fp_write(FILE *f, const struct kmt_footprint *fp)
{
	size_t i;

	fprintf(f, "%s%d\nrelease ", KMT_SUMMARY_MAGIC, KMT_SUMMARY_VERSION);
	put_escaped(f, fp->h.release);
	fprintf(f, "\nevents %" PRIu64 "\nlast_ns %" PRIu64 "\nlost %" PRIu64
		"\nunknown_cache %" PRIu64 "\nnosyms %d\nslab %" PRIu64
		"\npages %" PRIu64 "\n", fp->h.events, fp->h.last_ts, fp->h.lost,
		fp->h.unknown_cache, fp->h.nosyms, fp->h.slab, fp->h.pages);
	if (fp->h.has_memblock)
		fprintf(f, "memblock %" PRIu64 "\n", fp->h.memblock);
	for (i = 0; i < fp->nr; i++) {
		const struct kmt_fp_row *r = &fp->rows[i];

		fprintf(f, "row %s ", kmt_fp_cat_names[r->cat]);
		put_escaped(f, r->key);
		fprintf(f, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			r->v.retained, r->v.objs, r->v.alloc, r->v.hit);
	}
	return ferror(f) ? -EIO : 0;
}

/* Decode %XX in place; false on a bad escape, an escaped NUL or none left. */
static bool unescape(char *s)
{
	char *o = s;
	unsigned int v;

	for (; *s; s++) {
		if (*s != '%') {
			*o++ = *s;
			continue;
		}
		if (sscanf(s + 1, "%2X", &v) != 1 || !s[1] || !s[2] ||
		    !strchr("0123456789ABCDEFabcdef", s[1]) ||
		    !strchr("0123456789ABCDEFabcdef", s[2]) || !v)
			return false;
		*o++ = (char)v;
		s += 2;
	}
	*o = '\0';
	return true;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' ||
		    x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

/*
 * Header fields: each once, all of them before the end but "memblock",
 * which only a summary of a trace with memblock events has.
 */
enum { H_RELEASE, H_EVENTS, H_LAST, H_LOST, H_UNKNOWN, H_NOSYMS, H_SLAB,
       H_PAGES, H_MEMBLOCK, H_NR };
#define H_REQUIRED	((1u << H_MEMBLOCK) - 1)
static const char *const header_names[H_NR] = {
	"release", "events", "last_ns", "lost", "unknown_cache", "nosyms",
	"slab", "pages", "memblock",
};

static int parse_header(struct kmt_footprint *fp, unsigned int h, char *val)
{
	uint64_t v;

	if (h == H_RELEASE) {
		if (!unescape(val) || strlen(val) >= sizeof(fp->h.release))
			return -EINVAL;
		strcpy(fp->h.release, val);
		return 0;
	}
	if (!parse_u64(val, &v))
		return -EINVAL;
	switch (h) {
	case H_EVENTS: fp->h.events = v; break;
	case H_LAST: fp->h.last_ts = v; break;
	case H_LOST: fp->h.lost = v; break;
	case H_UNKNOWN: fp->h.unknown_cache = v; break;
	case H_NOSYMS:
		if (v > 1)
			return -EINVAL;
		fp->h.nosyms = v;
		break;
	case H_SLAB: fp->h.slab = v; break;
	case H_MEMBLOCK:
		fp->h.memblock = v;
		fp->h.has_memblock = true;
		break;
	default: fp->h.pages = v; break;
	}
	return 0;
}

/*
 * A cache key of a summary before version 3, as this version names it:
 * "kmalloc-4096" is "kmalloc-4k" (@buf), every other key stays (@key).
 */
static const char *old_cache_key(const char *key, char *buf, size_t size)
{
	const char *p = key + strlen("kmalloc-");
	char sz[32];
	uint64_t bytes;

	if (strncmp(key, "kmalloc-", strlen("kmalloc-")) ||
	    strspn(p, "0123456789") != strlen(p) || !parse_u64(p, &bytes))
		return key;
	kmt_kmalloc_size_name(bytes, sz, sizeof(sz));
	snprintf(buf, size, "kmalloc-%s", sz);
	return buf;
}

int kmt_fp_parse(struct kmt_footprint *fp, const char *buf, size_t len,
		 struct kmt_err *err)
{
	size_t magic = sizeof(KMT_SUMMARY_MAGIC) - 1, pos = 0, n;
	char *line = NULL, *w[8], *save, *tok, key[64];
	unsigned int lineno = 1, h, c, seen = 0;
	struct kmt_fp_vals v;
	uint64_t version;
	int ret = 0;

	memset(fp, 0, sizeof(*fp));
	if (len < magic || memcmp(buf, KMT_SUMMARY_MAGIC, magic))
		return kmt_errf(err, EINVAL, "not a kmemflight summary (no '%s%d' line)",
				KMT_SUMMARY_MAGIC, KMT_SUMMARY_VERSION);
	ret = next_line(buf, len, &pos, &line);
	if (ret || !parse_u64(line + magic, &version)) {
		free(line);
		return ret == -ENOMEM ? kmt_errf(err, ENOMEM, "out of memory") :
		       kmt_errf(err, EINVAL, "line 1: not '%s%d'", KMT_SUMMARY_MAGIC,
				KMT_SUMMARY_VERSION);
	}
	if (version < 1 || version > KMT_SUMMARY_VERSION) {
		free(line);
		return kmt_errf(err, EINVAL, "summary version %" PRIu64
				": this kmemflight reads versions 1 to %d", version,
				KMT_SUMMARY_VERSION);
	}
	while (pos < len && !ret) {
		ret = next_line(buf, len, &pos, &line);
		lineno++;
		if (ret == -ENOMEM)
			break;
		if (ret) {
			ret = kmt_errf(err, EINVAL, "line %u: a NUL byte", lineno);
			break;
		}
		for (n = 0, tok = strtok_r(line, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			if (n == 8) {
				n++;
				break;
			}
			w[n++] = tok;
		}
		if (!n)
			continue;
		if (!strcmp(w[0], "row")) {
			for (c = 0; c < KMT_FP_NR; c++)
				if (n > 1 && !strcmp(w[1], kmt_fp_cat_names[c]))
					break;
			/* version 1 knew no memblock */
			if (version < 2 && c == KMT_FP_MEMBLOCK)
				c = KMT_FP_NR;
			if (n != 7 || c == KMT_FP_NR || !unescape(w[2]) ||
			    !parse_u64(w[3], &v.retained) || !parse_u64(w[4], &v.objs) ||
			    !parse_u64(w[5], &v.alloc) || !parse_u64(w[6], &v.hit)) {
				ret = kmt_errf(err, EINVAL, "line %u: not a row (row CATEGORY KEY RETAINED OBJECTS ALLOCATED HITS)",
					       lineno);
				break;
			}
			ret = kmt_fp_add(fp, (enum kmt_fp_cat)c,
					 version < 3 && c == KMT_FP_CACHE ?
					 old_cache_key(w[2], key, sizeof(key)) : w[2], &v);
			continue;
		}
		for (h = 0; h < H_NR; h++)
			if (!strcmp(w[0], header_names[h]))
				break;
		if (version < 2 && h == H_MEMBLOCK)
			h = H_NR;
		if (h == H_NR || n != 2 || (seen & (1u << h)) ||
		    parse_header(fp, h, w[1])) {
			ret = kmt_errf(err, EINVAL, "line %u: %s", lineno,
				       h == H_NR ? "unknown line" : n != 2 ?
				       "wants one value" : (seen & (1u << h)) ?
				       "given twice" : "bad value");
			break;
		}
		seen |= 1u << h;
	}
	free(line);
	if (ret == -ENOMEM)
		ret = kmt_errf(err, ENOMEM, "out of memory");
	if (!ret && (seen & H_REQUIRED) != H_REQUIRED) {
		for (h = 0; seen & (1u << h); h++)
			;
		ret = kmt_errf(err, EINVAL, "no '%s' line", header_names[h]);
	}
	if (ret)
		kmt_fp_free(fp);
	return ret;
}

/* ---- budgets ------------------------------------------------------------ */

/*
 * A size in bytes: decimal digits, then K, M or G (powers of 1024) or
 * nothing.  0, -EINVAL, or -ERANGE past 2^64 - 1.
 */
int kmt_fp_parse_size(const char *s, uint64_t *bytes)
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
int kmt_fp_parse_pct(const char *s, size_t len, uint64_t *mpct)
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
static int parse_limit_word(struct kmt_fp_limit *l, const char *w)
{
	size_t len = strlen(w);
	int ret;

	if (len && w[len - 1] == '%') {
		if (l->has_pct)
			return -EEXIST;
		ret = kmt_fp_parse_pct(w, len - 1, &l->mpct);
		l->has_pct = !ret;
		return ret;
	}
	if (l->has_bytes)
		return -EEXIST;
	ret = kmt_fp_parse_size(w, &l->bytes);
	l->has_bytes = !ret;
	return ret;
}

bool kmt_fp_limit_over(const struct kmt_fp_limit *l, uint64_t base, uint64_t new)
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
void kmt_fp_limit_spec(struct kmt_fp_limit *l)
{
	static const char units[] = "KMG";
	char bytes[32] = "", pct[32] = "";
	uint64_t b = l->bytes;
	int u = -1, n;

	/* from the values, not the words: "064k" is 64K, "5" is 5% */
	if (l->has_bytes) {
		while (u < 2 && b && !(b % 1024)) {
			b /= 1024;
			u++;
		}
		snprintf(bytes, sizeof(bytes), "%" PRIu64 "%.*s", b, u >= 0, u >= 0 ? &units[u] : "");
	}
	if (l->has_pct) {
		n = snprintf(pct, sizeof(pct), "%" PRIu64 ".%03" PRIu64, l->mpct / 1000,
			     l->mpct % 1000);
		while (pct[n - 1] == '0')
			n--;
		if (pct[n - 1] == '.')
			n--;
		snprintf(pct + n, sizeof(pct) - (size_t)n, "%%");
	}
	snprintf(l->spec, sizeof(l->spec), "%s%s%s", bytes,
		 l->has_bytes && l->has_pct ? " and " : "", pct);
}

void kmt_fp_free_limits(struct kmt_fp_limit *l, size_t nr)
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
int kmt_fp_parse_budget(const char *path, const char *buf, size_t len,
			struct kmt_fp_limit **out, size_t *nr_out,
			struct kmt_err *err)
{
	struct kmt_fp_limit *lims = NULL, *l;
	size_t nr = 0, cap = 0, i, n, pos = 0;
	char *line = NULL, *w[6], *save, *tok, key[64];
	unsigned int lineno = 0;
	int ret = 0, c, first;

	while (pos < len) {
		ret = next_line(buf, len, &pos, &line);
		lineno++;
		if (ret == -EINVAL)
			ret = kmt_errf(err, EINVAL, "%s:%u: a NUL byte in the line",
				       path, lineno);
		else if (ret)
			ret = kmt_errf(err, ENOMEM, "out of memory");
		if (ret)
			break;
		line[strcspn(line, "#")] = '\0';
		for (n = 0, tok = strtok_r(line, " \t\r", &save); tok && n < 6;
		     tok = strtok_r(NULL, " \t\r", &save))
			w[n++] = tok;
		if (!n)
			continue;
		for (c = 0; c <= KMT_FP_NR; c++)
			if (!strcmp(w[0], c == KMT_FP_TOTAL ? "total" : kmt_fp_cat_names[c]))
				break;
		if (c > KMT_FP_NR) {
			ret = kmt_errf(err, EINVAL, "%s:%u: unknown budget '%s' (valid: total, callsite, cache, page, order, phase)",
				       path, lineno, w[0]);
			break;
		}
		first = c == KMT_FP_TOTAL ? 1 : 2;
		if (n < (size_t)first + 1 || n > (size_t)first + 2) {
			if (c == KMT_FP_TOTAL)
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
		for (i = (size_t)first; i < n && !ret; i++) {
			ret = parse_limit_word(l, w[i]);
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
		kmt_fp_limit_spec(l);
		snprintf(l->src, sizeof(l->src), "%s:%u", path, lineno);
		if (c != KMT_FP_TOTAL) {
			/* "cache kmalloc-4096" as summaries before version 3 said */
			l->key = strdup(c == KMT_FP_CACHE ?
					old_cache_key(w[1], key, sizeof(key)) : w[1]);
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
	free(line);
	if (ret) {
		kmt_fp_free_limits(lims, nr);
		return ret;
	}
	*out = lims;
	*nr_out = nr;
	return 0;
}


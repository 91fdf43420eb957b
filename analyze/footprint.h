/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A boot's footprint as kmemflight diff compares it: rows of what was
 * retained at the end of the trace and allocated over it, keyed by name
 * (callsite function, cache, page caller, page order, boot phase), read
 * from a trace or from a summary file, and the budgets the rows are
 * checked against.
 */
#ifndef KMT_FOOTPRINT_H
#define KMT_FOOTPRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../lib/kmt.h"

enum kmt_fp_cat {
	KMT_FP_CALLSITE,
	KMT_FP_CACHE,
	KMT_FP_PAGE,
	KMT_FP_ORDER,
	KMT_FP_PHASE,
	KMT_FP_MEMBLOCK,
	KMT_FP_NR,
	KMT_FP_TOTAL = KMT_FP_NR,	/* a budget on the total, not on a row */
};

/*
 * "callsite", "cache", "page", "order", "phase", "memblock": in budgets
 * and files
 */
extern const char *const kmt_fp_cat_names[KMT_FP_NR];

struct kmt_fp_vals {
	uint64_t retained;	/* bytes still allocated at the end */
	uint64_t objs;		/* objects or page blocks among them */
	uint64_t alloc;		/* bytes allocated over the trace */
	uint64_t hit;		/* allocations */
};

struct kmt_fp_row {
	enum kmt_fp_cat cat;
	char *key;
	struct kmt_fp_vals v;
};

/* What a footprint says of its trace as a whole. */
struct kmt_fp_head {
	char release[64];
	uint64_t events, last_ts, lost, unknown_cache;
	bool nosyms;		/* callsites keyed by address */
	uint64_t slab, pages;	/* retained at the end */
	/* memblock's reserved and still held; known only from traces with
	 * the early memblock events (and summaries of them) */
	bool has_memblock;
	uint64_t memblock;
	char coverage[512];	/* kmt_trace_coverage() of the trace, or "" */
};

struct kmt_footprint {
	struct kmt_fp_head h;
	struct kmt_fp_row *rows;	/* several rows may share a key */
	size_t nr, cap;
};

/*
 * A summary file starts with this, then its version: "kmemflight-summary
 * 3".  Version 1 had no memblock; versions 1 and 2 named kmalloc objects
 * "kmalloc-<bytes>" by their size alone.  Both are still read.
 */
#define KMT_SUMMARY_MAGIC	"kmemflight-summary "
#define KMT_SUMMARY_VERSION	3

int kmt_fp_add(struct kmt_footprint *fp, enum kmt_fp_cat cat, const char *key,
	       const struct kmt_fp_vals *v);
/*
 * Analyse a trace; -errno with err set.  A cut trace is refused with
 * what it lacks: compared, it would look like a boot that shrank.
 */
int kmt_fp_from_trace(struct kmt_footprint *fp, const char *path,
		      struct kmt_err *err);
/* A summary file's contents: -EINVAL with err naming the line. */
int kmt_fp_parse(struct kmt_footprint *fp, const char *buf, size_t len,
		 struct kmt_err *err);
/* The footprint as a summary file; -errno on a write error. */
int kmt_fp_write(FILE *f, const struct kmt_footprint *fp);
void kmt_fp_free(struct kmt_footprint *fp);

/*
 * One budget: the row (or total) fails when its retained bytes grow by
 * more than @bytes and by more than @mpct; with only one of the two
 * given, by more than that one.
 */
struct kmt_fp_limit {
	int cat;		/* enum kmt_fp_cat, KMT_FP_TOTAL for the total */
	char *key;		/* "*": every row of cat without its own */
	bool has_bytes, has_pct;
	uint64_t bytes;
	uint64_t mpct;		/* thousandths of a percent */
	char spec[64];		/* as written: "4K and 10%" */
	char src[96];		/* "budget.txt:3", the options, or "default" */
	bool matched;		/* a row has this key */
};

/* "64K", "1M", "4096": 0, -EINVAL or -ERANGE. */
int kmt_fp_parse_size(const char *s, uint64_t *bytes);
/* "5", "2.5" (@len bytes, no '%'): 0, -EINVAL or -ERANGE. */
int kmt_fp_parse_pct(const char *s, size_t len, uint64_t *mpct);
bool kmt_fp_limit_over(const struct kmt_fp_limit *l, uint64_t base, uint64_t new);
/* l->spec from the limits: "64K and 5%" */
void kmt_fp_limit_spec(struct kmt_fp_limit *l);
/* A budget file's contents, @name for the messages. */
int kmt_fp_parse_budget(const char *name, const char *buf, size_t len,
			struct kmt_fp_limit **out, size_t *nr_out,
			struct kmt_err *err);
void kmt_fp_free_limits(struct kmt_fp_limit *l, size_t nr);

#endif

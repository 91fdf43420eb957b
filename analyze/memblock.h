/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_MEMBLOCK_H
#define KMT_MEMBLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/kmt.h"
#include "pass.h"

/*
 * The boot memory memblock handed out, from its KMT_EV_MEMBLOCK records:
 * which caller reserved what, and what of it each still holds.  A range
 * reserved twice belongs to the first caller; a free takes the bytes
 * from whoever holds them.
 */

/* A physical range [start, end) and who holds it (a caller's index). */
struct kmt_mb_range {
	uint64_t start, end;
	uint32_t owner;
};

/* A sorted set of disjoint ranges. */
struct kmt_mb_set {
	struct kmt_mb_range *r;
	size_t nr, cap;
};

/* One callsite that reserved memory (memblock_reserve or an allocation). */
struct kmt_mb_caller {
	uint64_t call_site;
	uint64_t held;		/* bytes it still holds */
	uint64_t reserved;	/* bytes it reserved (its first claim only) */
	uint64_t freed;		/* of those, freed since, by anyone */
	uint64_t nr;		/* its reserve and alloc events */
	bool alloc;		/* memblock chose the range (an allocation) */
};

/* Reserved memory given to the page allocator, by what and caller. */
struct kmt_mb_given {
	uint64_t call_site;
	char what[64];		/* free_reserved_area()'s name, or "" */
	uint64_t bytes;
	uint64_t nr;
};

struct kmt_memblock {
	uint64_t nr_events;	/* KMT_EV_MEMBLOCK records taken */
	uint64_t ram;		/* bytes of memblock.memory */
	size_t ram_ranges;
	uint64_t held;		/* bytes reserved and still held */
	uint64_t held_ram;	/* of those, within the RAM memblock knew */
	uint64_t reserved;	/* bytes ever reserved (first claims) */
	uint64_t freed;		/* given back to memblock */
	uint64_t given;		/* given to the page allocator */
	/* the KMT_EV_MEMBLOCK_EARLY record, when the trace has one */
	bool have_early;
	uint64_t nr_kept, nr_dropped, capacity;
	/* its page events (the boot caches' slabs), when it counts them */
	bool have_early_pages;
	uint64_t pg_kept, pg_dropped;
	uint64_t first_ts, last_ts;
	struct kmt_mb_caller *callers;	/* sorted by held, reserved */
	size_t nr_callers;
	struct kmt_mb_given *givens;	/* sorted by bytes */
	size_t nr_givens;
	struct kmt_mb_set ram_set, res_set;
};

/*
 * Replay every memblock record of @t up to @end (ns, inclusive).  0, or
 * a negative errno with @err set.  A trace without memblock records
 * gives nr_events 0.
 */
int kmt_memblock_analyze(const struct kmt_trace *t, uint64_t end,
			 struct kmt_memblock *mb, struct kmt_err *err);
/*
 * The same as a consumer of a pass that other analyses share: @mb is
 * filled when the pass ends without an error.  After the pass,
 * kmt_memblock_consumer_end() frees the consumer's state, and @mb too
 * unless @ok.
 */
int kmt_memblock_consumer(struct kmt_consumer *c, const struct kmt_trace *t,
			  uint64_t end, struct kmt_memblock *mb,
			  struct kmt_err *err);
void kmt_memblock_consumer_end(struct kmt_consumer *c, bool ok);
void kmt_memblock_free(struct kmt_memblock *mb);

#endif

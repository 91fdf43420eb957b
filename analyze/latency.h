/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation latency: direct reclaim, compaction and shrinker episodes
 * paired from the "reclaim" and "compaction" event groups, and the
 * allocation stalls they make up.
 */
#ifndef KMT_LATENCY_H
#define KMT_LATENCY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../lib/kmt.h"

enum kmt_lat_kind {
	KMT_LAT_RECLAIM,	/* direct reclaim: begin to end */
	KMT_LAT_COMPACT,	/* one zone's compaction: begin to end */
	KMT_LAT_SHRINK,		/* one shrinker call: start to end */
	KMT_LAT_STALL,		/* an allocation: its first slow-path event
				 * (reclaim or compaction) to mm_page_alloc */
	KMT_LAT_KINDS,
};

/* log2 buckets of microseconds: [0,1], [2,3], [4,7], ... */
#define KMT_LAT_BUCKETS		32

/* The allocation behind a reclaim, compaction or stall episode. */
struct kmt_lat_alloc {
	uint32_t order;
	uint64_t gfp;
	uint32_t priority;	/* compaction's, from its try event */
	uint64_t site;		/* first caller outside the allocator, 0 unknown */
	char comm[17];
	bool known;		/* a begin/try event named it */
};

struct kmt_lat_episode {
	enum kmt_lat_kind kind;
	uint64_t start, ns;
	uint32_t pid, cpu;
	struct kmt_lat_alloc a;
	/* reclaim: what it reclaimed; the inactive lists and shrinkers in it */
	uint64_t nr_reclaimed, lru_scanned, lru_reclaimed;
	uint32_t shrinks;
	uint64_t shrink_ns;
	/* compaction */
	uint64_t zone_start, zone_end;
	uint32_t sync, status;
	bool direct;		/* a try event of the same task preceded it */
	bool kcompactd;
	/* stall: the episodes in it and the outcome */
	uint32_t nr_reclaim, nr_compact;
	bool failed;
	/* shrinker call */
	uint32_t shrinker;	/* index in shrinkers */
	int64_t freed;
};

struct kmt_lat_shrinker {
	uint64_t func, addr;
	char name[65];
	uint64_t calls, total_ns, max_ns, above, freed;
};

/* A begin without its end, or an end without its begin. */
struct kmt_lat_unpaired {
	enum kmt_lat_kind kind;
	uint8_t type;		/* the event's */
	uint64_t ts;
	uint32_t pid, cpu;
	bool at_end;		/* a begin still open when the trace ends */
};

struct kmt_latency {
	uint64_t threshold;	/* ns */
	uint32_t groups;	/* bits of enum kmt_group seen recording */
	bool have_layouts;	/* the recorder knows the latency events */
	uint64_t first_ts, last_ts, events, lost;
	struct kmt_lat_episode *ep;
	size_t nr_ep, cap_ep;
	struct kmt_lat_shrinker *shr;
	size_t nr_shr, cap_shr;
	struct kmt_lat_unpaired *unp;
	size_t nr_unp, cap_unp;
	struct {
		uint64_t count, above, total_ns, max_ns, unpaired;
		uint64_t hist[KMT_LAT_BUCKETS];
	} kind[KMT_LAT_KINDS];
};

/*
 * Pair the latency events of @t whose episodes start within
 * [@start, @end].  -ENOMEM, or -EBADMSG with @err set.
 */
int kmt_latency_analyze(const struct kmt_trace *t, const struct kmt_symtab *st,
			uint64_t threshold, uint64_t start, uint64_t end,
			struct kmt_latency *l, struct kmt_err *err);
void kmt_latency_free(struct kmt_latency *l);
/* Episodes slowest first, ties by start time; unpaired events by time. */
void kmt_latency_sort(struct kmt_latency *l);
/* The histogram bucket of @ns. */
unsigned int kmt_lat_bucket(uint64_t ns);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kmem tracepoints of a stock kernel, decoded with libtraceevent from
 * the kernel's own event formats, into collected events: shared by
 * save --from-ftrace (tracefs) and import (perf.data).
 */
#ifndef KMF_KMEMEV_H
#define KMF_KMEMEV_H

#include <event-parse.h>

#include "import.h"

enum kmf_kmem_kind { KK_KMALLOC, KK_CACHE_ALLOC, KK_KFREE, KK_CACHE_FREE,
		     KK_PAGE_ALLOC, KK_PAGE_FREE, KK_PAGE_FREE_BATCHED,
		     /* the latency events: vmscan and compaction */
		     KK_RECLAIM_BEGIN, KK_RECLAIM_END, KK_LRU_INACTIVE,
		     KK_SHRINK_START, KK_SHRINK_END, KK_COMPACT_TRY,
		     KK_COMPACT_BEGIN, KK_COMPACT_END, KK_NR };

enum kmf_kmem_field { KF_CALL_SITE, KF_PTR, KF_REQ, KF_ALLOC, KF_GFP,
		      KF_NODE, KF_NAME, KF_PFN, KF_ORDER, KF_MIGRATETYPE,
		      KF_NR_RECLAIMED, KF_NR_SCANNED, KF_PRIORITY,
		      KF_RECLAIM_FLAGS, KF_SHR, KF_SHRINK, KF_NID,
		      KF_CACHE_ITEMS, KF_TOTAL_SCAN, KF_RETVAL, KF_ZONE_START,
		      KF_ZONE_END, KF_MIGRATE_PFN, KF_FREE_PFN, KF_SYNC,
		      KF_STATUS, KF_PRIO, KF_GFP_MASK, KF_NR };

/* The tracepoint name of each kind (the 6.1+ one), and its system. */
extern const char *const kmf_kmem_names[KK_NR];
extern const char *const kmf_kmem_systems[KK_NR];

struct kmf_kmem_event {
	struct tep_event *ev;
	int kind;
	struct tep_format_field *f[KF_NR];
};

struct kmf_kmem {
	struct tep_handle *tep;
	struct tep_format_field *pid, *flags;
	struct kmf_kmem_event evs[2 * KK_NR];
	unsigned int nr_evs;
	int last_id;
	struct kmf_kmem_event *last;
	bool nameless;			/* a kmem_cache_alloc without a name */
	/* mm_compaction_end's status values, as enum kmt_compact_status */
	uint64_t status_val[16];
	uint8_t status_kmt[16];
	unsigned int nr_status;
};

/* Find the kmem events @tep knows; -ENOENT (err set) if none. */
int kmf_kmem_init(struct kmf_kmem *k, struct tep_handle *tep,
		  struct kmt_err *err);
/*
 * The recorder's groups (enum kmt_group bits) that a set of event kinds
 * (bits of enum kmf_kmem_kind) makes up: kmem with any of its events,
 * reclaim and compaction with all of theirs.
 */
uint32_t kmf_kmem_groups(uint32_t kinds);
/* The kinds of events @k has formats for. */
uint32_t kmf_kmem_kinds(const struct kmf_kmem *k);

/*
 * One tracepoint record (common fields first) seen on @cpu at @ts:
 * kept in @im if it is a kmem event (1), ignored if not (0), or a
 * negative errno with err set.  @frames: a page allocation's callers.
 */
int kmf_kmem_add(struct kmf_kmem *k, struct kmf_import *im,
		 const uint8_t *data, uint32_t size, uint32_t cpu,
		 uint64_t ts, const uint64_t *frames, unsigned int nr_frames,
		 struct kmt_err *err);

/* The kernel's GFP names, from the print format of gfp_flags. */
struct kmf_gfp_table {
	uint64_t mask[256];
	const char *name[256];
	unsigned int nr;
};

void kmf_kmem_gfp_names(const struct kmf_kmem *k, struct kmf_gfp_table *g);

#endif

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
		     KK_PAGE_ALLOC, KK_PAGE_FREE, KK_PAGE_FREE_BATCHED, KK_NR };

enum kmf_kmem_field { KF_CALL_SITE, KF_PTR, KF_REQ, KF_ALLOC, KF_GFP,
		      KF_NODE, KF_NAME, KF_PFN, KF_ORDER, KF_MIGRATETYPE,
		      KF_NR };

/* The tracepoint name of each kind (the 6.1+ one). */
extern const char *const kmf_kmem_names[KK_NR];

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
};

/* Find the kmem events @tep knows; -ENOENT (err set) if none. */
int kmf_kmem_init(struct kmf_kmem *k, struct tep_handle *tep,
		  struct kmt_err *err);
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

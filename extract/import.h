/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traces from a stock kernel (ftrace, perf) made into .kmt files: the
 * events are collected, sorted per CPU and encoded as the recorder would
 * have written them.
 */
#ifndef KMF_IMPORT_H
#define KMF_IMPORT_H

#include "../lib/hashmap.h"
#include "../lib/kmt.h"

/* One collected event; the meaning of a and b depends on the type. */
struct kmf_imp_ev {
	uint64_t ts;
	uint64_t call_site;
	uint64_t ptr;		/* object address; for pages: pfn + 1 */
	uint64_t req;		/* bytes_req */
	uint64_t alloc;		/* bytes_alloc */
	uint64_t gfp;
	uint32_t pid;
	uint32_t cpu;
	int32_t node;		/* node, or the page's migratetype */
	uint32_t aux;		/* cache id, or the page order */
	uint32_t stack;		/* page allocations: offset in the stack pool */
	uint16_t nr_frames;
	uint8_t type;		/* enum kmt_event_type */
	uint8_t ctx;		/* enum kmt_ctx */
};

/*
 * The values of a vmscan or compaction event beyond struct kmf_imp_ev
 * (whose call_site, ptr, gfp and node carry a shrinker's function,
 * address, GFP flags and node), by type: reclaim begin and compaction
 * try: order, priority; reclaim end: nr_reclaimed; LRU shrinking: nid,
 * nr_scanned, nr_reclaimed, priority, file; shrinker start: cache_items,
 * total_scan, priority; end: freed, total_scan; compaction: zone start
 * and end, migrate and free pfns, sync, enum kmt_compact_status.
 */
struct kmf_imp_lat {
	uint64_t v[6];
	char comm[16];
};

struct kmf_imp_cache {
	char name[KMT_MAX_NAME + 1];
	uint32_t object_size, size;
};

struct kmf_import {
	struct kmf_imp_ev *ev;
	size_t nr, cap;
	uint64_t *frames;		/* stack pool */
	size_t nr_frames, cap_frames;
	struct kmf_imp_cache *caches;	/* id = index + 1 */
	uint32_t nr_caches;
	uint32_t nr_cpu_ids;
	uint64_t *lost;			/* per CPU */
	uint64_t *first_ts;		/* per CPU, UINT64_MAX if none */
	uint64_t *counts;		/* events per type */
	uint64_t skipped;		/* events of a CPU >= nr_cpu_ids */
	uint32_t groups;		/* enum kmt_group bits the tracer had */
	struct kmf_imp_lat *lat;	/* latency events' values, by aux */
	size_t nr_lat, cap_lat;
	struct kmt_hm hm_sizes;		/* (name, sizes) -> cache id */
	struct kmt_hm hm_names;		/* name -> its newest cache id */
};

struct kmf_import_out {
	const char *path;
	const char *meta;		/* META lines */
	const char *kallsyms;		/* text symbols, may be NULL */
	size_t kallsyms_len;
	const char *topology;
	const char *clock;		/* format's clock name */
	unsigned int page_shift;
	bool no_addresses;		/* make addresses relative */
	/* the kernel's GFP names, in its order (may be none) */
	const uint64_t *gfp_masks;
	const char *const *gfp_names;
	unsigned int nr_gfp;
};

int kmf_import_init(struct kmf_import *im, uint32_t nr_cpu_ids);
void kmf_import_free(struct kmf_import *im);
/* Keep an event (frames: a page allocation's stack, innermost first). */
int kmf_import_add(struct kmf_import *im, const struct kmf_imp_ev *ev,
		   const uint64_t *frames, unsigned int nr_frames);
/* Keep a vmscan or compaction event, its values and its stack. */
int kmf_import_add_lat(struct kmf_import *im, struct kmf_imp_ev *ev,
		       const struct kmf_imp_lat *lat, const uint64_t *frames,
		       unsigned int nr_frames);
/*
 * The id of the cache called @name (@len bytes) with these sizes: found
 * or made.  With @size 0 (a free, which does not say), the newest cache
 * of that name, or a new one without sizes.
 */
int kmf_import_cache(struct kmf_import *im, const char *name, size_t len,
		     uint32_t object_size, uint32_t size, uint32_t *id);
/* _stext of a kallsyms text, 0 if absent. */
uint64_t kmf_kallsyms_stext(const char *ksyms, size_t len);
/* Sort, encode and write the file (0600, renamed into place). */
int kmf_import_write(struct kmf_import *im, const struct kmf_import_out *o,
		     uint64_t *bytes, struct kmt_err *err);
/* The topology text of the running system, from sysfs. */
int kmf_sysfs_topology(char **out, size_t *len);

#endif

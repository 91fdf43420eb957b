/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SLAB_H
#define KMT_SLAB_H

#include "../lib/hashmap.h"
#include "../lib/kmt.h"
#include "tasks.h"

struct kmt_slab;

struct kmt_caller {
	uint64_t call_site;
	uint64_t bytes_alloc;
	uint64_t bytes_req;
	uint64_t hit;
	uint64_t pingpong;
	uint64_t live_bytes;	/* still allocated at the end */
	uint64_t live_objs;
	uint64_t held;		/* allocated and not freed so far in the pass */
};

struct kmt_segment {
	uint64_t start;
	uint32_t phase;
	int32_t initcall;	/* -1: between initcalls */
};

/* Objects still allocated at the end, by cache (or kmalloc size). */
struct kmt_live_cache {
	uint32_t cache;		/* cache id, or 0 for kmalloc */
	uint32_t size;		/* kmalloc: bytes_alloc of the objects */
	uint64_t objs;
	uint64_t bytes;
};

/* What one boot phase or initcall allocated, and kept until the end. */
struct kmt_phase_stats {
	uint64_t slab_alloc, slab_retained;
	uint64_t page_alloc, page_retained;
	uint64_t events;
};

/*
 * A boot phase: "early" (before the first initcall level), each level
 * do_initcalls() enters, or what pid 1 execs (/init, the real init).
 */
struct kmt_phase {
	const char *name;	/* in the trace, not NUL-terminated */
	uint32_t name_len;
	bool exec;		/* a pid 1 exec, not an initcall level */
	uint64_t start;
	struct kmt_phase_stats st;
};

/* What an object is put to: the time segment and the row of who made it. */
struct kmt_attr {
	uint32_t seg;
	uint32_t who;
	bool rec;	/* the recorder attaching its probes */
};

/* A process name, or a systemd unit, and what it allocated and kept. */
struct kmt_who_row {
	const char *name;	/* in the trace or static, not NUL-terminated */
	uint32_t name_len;
	struct kmt_phase_stats st;
};

/* One initcall function (the same function twice is one row). */
struct kmt_initcall {
	uint64_t fn;
	uint32_t phase;		/* the level it ran in */
	int32_t ret;
	uint64_t start, ns;	/* first start, time spent in all calls */
	struct kmt_phase_stats st;
};

/* Page allocations by caller, order, migrate type and GFP flags. */
struct kmt_page_caller {
	uint64_t site;		/* 0: unknown (no stack, or all allocator) */
	uint32_t order;
	int32_t migratetype;
	uint64_t gfp;
	uint64_t bytes, hit;
	uint32_t next;		/* next row of the same site, or UINT32_MAX */
};

/* Page sort keys: default bytes,hit. */
enum kmt_page_key {
	KMT_PK_BYTES,
	KMT_PK_HIT,
	KMT_PK_CALLSITE,
	KMT_PK_ORDER,
	KMT_PK_MIGTYPE,
	KMT_PK_GFP,
	KMT_PK_PAGE,
	KMT_PK_NR,
};

int kmt_page_parse_sort(const char *spec, enum kmt_page_key *keys,
			unsigned int *nr, struct kmt_err *err);
void kmt_page_sort(struct kmt_slab *s, const enum kmt_page_key *keys,
		   unsigned int nr);

/*
 * The first return address outside the page allocator (pagesite.c), and
 * outside the @nw wrappers @w the recorder named (a large kvmalloc()'s
 * pages are its caller's).
 */
struct kmt_wrapper_row;
uint64_t kmt_page_site(const struct kmt_trace *t, const struct kmt_symtab *st,
		       struct kmt_hm *cache, const uint8_t *stack, size_t len,
		       const struct kmt_wrapper_row *w, size_t nw);
/* A frame of the page allocator's (or of the way into it), by its name. */
bool kmt_page_frame_internal(const char *name, size_t len);
/* The names treated as the page allocator's, for -v. */
void kmt_page_internal_names(const char *const **exact, size_t *nr_exact,
			     const char *const **prefix, size_t *nr_prefix);

/* Pages still allocated at the end, by caller (0: unknown). */
struct kmt_live_psite {
	uint64_t site;
	uint64_t blocks, bytes;
	uint64_t buffer_bytes;	/* of them, the recorder's sub-buffers */
};

/*
 * A function the recorder took as a wrapper (KMT_EV_TEXT_RANGE): the
 * allocations whose call site was inside it are put to the first frame
 * outside every wrapper.
 */
struct kmt_wrapper_row {
	uint64_t start, size;
	const char *name;	/* in the trace, not NUL-terminated */
	uint32_t name_len;
	uint64_t hits;		/* allocations made through it */
};

/* vmalloc areas still held, by the caller vmalloc() was given. */
struct kmt_live_vsite {
	uint64_t caller;
	uint64_t areas, bytes;
};

/* Lifetimes of freed objects: < 1 us, < 10 us, ... < 10 s, >= 10 s. */
#define KMT_LIFE_BUCKETS	9

/* Orders 0..10 (MAX_PAGE_ORDER); larger ones count as 10. */
#define KMT_PG_ORDERS	11
/*
 * 6.12's migrate types: UNMOVABLE 0, MOVABLE 1, RECLAIMABLE 2,
 * HIGHATOMIC 3, then CMA and/or ISOLATE, which depend on the config.
 */
#define KMT_PG_MT_COLS	5

/*
 * Memory held at a moment of the pass, as the pass goes (kmemflight
 * plot): at the end it equals the footprint (live_bytes, pg_live_bytes,
 * vm_live_bytes).
 */
struct kmt_held {
	uint64_t slab;		/* bytes of the slab objects allocated, not freed */
	uint64_t pages;		/* bytes of the page blocks allocated, not freed */
	uint64_t vmalloc;	/* bytes of the vmalloc areas */
	uint64_t buffers;	/* the recorder's sub-buffers seen (KMT_EV_BUFFER) */
	uint64_t buf_pages;	/* ... of them, in the pages */
};

/*
 * What was allocated, and of it is still held at the end, by stack
 * (kmemflight flame): a slab allocation's callsite, the wrapper it went
 * through and its cache, or a page allocation's recorded return
 * addresses and order.
 */
struct kmt_stack_row {
	bool page;
	uint64_t site;		/* slab: the callsite (outside the wrappers) */
	uint64_t via;		/* slab: the wrapper's call site, 0: none */
	uint32_t cache;		/* slab: the cache id, 0 for kmalloc */
	uint32_t size;		/* slab kmalloc: bytes_alloc; pages: the order */
	/*
	 * TEXT varints, innermost first, in the trace: a page allocation's
	 * return addresses; a slab allocation's through wrappers, the last
	 * one its callsite
	 */
	const uint8_t *stack;
	uint32_t stack_len;
	uint64_t held, held_objs;	/* at the end */
	uint64_t held_buffer;	/* pages: of held, the recorder's buffers */
	uint64_t alloc, hit;		/* allocated, by the events taken */
	uint32_t next;		/* the next row of the same hash, UINT32_MAX: none */
};

/* Callers a sampler follows: slab callsites and page sites. */
#define KMT_WATCH_MAX	16

struct kmt_slab;

/*
 * A pass with a sampler calls @fn before the first event whose time is
 * at or after @next (and once at the end, with the time of the last
 * event taken); @fn moves @next on.  Non-zero from @fn stops the pass
 * with that error.  held[] is what each watched caller holds.
 */
struct kmt_sampler {
	uint64_t next;
	int (*fn)(struct kmt_sampler *sp, const struct kmt_slab *s, uint64_t ts);
	void *arg;
	size_t nr_watch;
	uint64_t site[KMT_WATCH_MAX];
	bool page[KMT_WATCH_MAX];	/* a page site, not a slab callsite */
	uint64_t held[KMT_WATCH_MAX];
	uint32_t row[KMT_WATCH_MAX];	/* slab: its callsite row + 1, 0: none yet */
	/* at each call: the rows of who allocated so far (s->who_held's) */
	const struct kmt_who *whos;
	size_t nr_whos;
};

/* Everything the slab and page tables and SUMMARYs print, from one pass. */
struct kmt_slab {
	struct kmt_caller *callers;
	size_t nr_callers;
	/* with by_ptr: the same per object address (perf kmem --alloc) */
	bool by_ptr;
	struct kmt_caller *ptrs;
	size_t nr_ptrs;

	uint64_t total_req;
	uint64_t total_alloc;
	uint64_t total_freed;
	uint64_t nr_allocs;		/* successful allocations */
	uint64_t nr_frees;		/* frees of non-NULL objects */
	uint64_t nr_failed;		/* allocations that returned NULL */
	uint64_t nr_unknown_frees;	/* frees of objects not seen allocated */
	uint64_t nr_unknown_cache;	/* cache ids with no definition */
	uint64_t nr_cross_cpu;		/* freed on another CPU (ping-pong) */
	uint64_t nr_cross_node;		/* object on another node than the CPU */
	uint64_t nr_node_known;		/* allocations whose nodes are known */

	/* page allocator: mm_page_alloc / mm_page_free(_batched) */
	uint64_t pg_requests;		/* allocations asked for */
	uint64_t pg_fails;		/* ... that returned no page */
	uint64_t pg_bytes_alloc;	/* bytes of the pages handed out */
	uint64_t pg_frees;		/* pages (blocks) freed */
	uint64_t pg_free_unmatched;	/* ... not seen allocated */
	uint64_t pg_bytes_freed;	/* bytes of every freed block */
	struct kmt_page_caller *pcallers;
	size_t nr_pcallers;
	struct kmt_page_caller *ppages;	/* by page frame (site = pfn), by_ptr */
	size_t nr_ppages;
	uint64_t pg_with_stack;		/* allocations that carry a stack */
	/* successful allocations by order and migrate type column */
	uint64_t pg_order_mt[KMT_PG_ORDERS][KMT_PG_MT_COLS];

	/*
	 * An address allocated again while still live: its free was not
	 * traced.  The earlier object counts as freed then.
	 */
	uint64_t nr_untraced_frees, untraced_free_bytes;
	/* large kmallocs 6.12 traces twice: counted once, for the caller */
	uint64_t nr_double_traced;
	/*
	 * Allocation events the same as their object's live allocation
	 * (time, CPU, callsite, size): written twice by perf record, and
	 * counted twice, as perf kmem stat does.
	 */
	uint64_t nr_repeated;
	/*
	 * Free events the same as the last free on their CPU (time,
	 * object, callsite), the object no longer allocated: written twice
	 * by perf record.  Counted as perf kmem stat counts them: the
	 * object's bytes freed again, and a ping-pong of its rows.
	 */
	uint64_t nr_repeated_frees;
	/* mm_page_free_batched: a page mm_page_free already reported */
	uint64_t pg_frees_batched;
	/* the footprint at the end: what was never freed */
	uint64_t live_bytes, live_objs;
	struct kmt_live_cache *live_caches;	/* most bytes first */
	size_t nr_live_caches;
	uint64_t pg_live_blocks, pg_live_bytes;
	/*
	 * The recorder's own, among what is still held: the pages of its
	 * buffers that the trace saw allocated (KMT_EV_BUFFER), the objects
	 * and other pages its functions or its initcalls allocated.
	 */
	uint64_t rec_buffer_bytes, rec_slab_bytes, rec_slab_objs, rec_page_bytes;
	struct kmt_live_psite *live_psites;	/* most bytes first */
	size_t nr_live_psites;
	uint64_t pg_live_order[KMT_PG_ORDERS];
	/* vmalloc areas (KMT_EV_VMALLOC), their pages among the pages */
	uint64_t vm_allocs, vm_frees, vm_live_areas, vm_live_bytes;
	struct kmt_live_vsite *live_vsites;	/* most bytes first */
	size_t nr_live_vsites;
	/* wrappers, and the allocations put past them */
	struct kmt_wrapper_row *wrappers;
	size_t nr_wrappers;
	uint64_t nr_via;
	uint64_t lifetime[KMT_LIFE_BUCKETS];
	uint64_t first_ts, last_ts;	/* of the events taken */
	uint64_t trace_first_ts, trace_last_ts;	/* of all events */

	/* boot phases and initcalls, in the order they started */
	struct kmt_phase *phases;
	size_t nr_phases;
	struct kmt_initcall *initcalls;
	size_t nr_initcalls;
	/* time segments: each says which phase and initcall ran from when */
	struct kmt_segment *segs;
	size_t nr_segs;
	/*
	 * Who allocated (KMT_EV_TASK records): rows of a process name and
	 * the systemd unit of its cgroup, and what each allocated and kept;
	 * then the same by process name and by unit, most kept first.
	 */
	bool has_tasks;
	struct kmt_who *whos;
	struct kmt_phase_stats *who_st;
	uint64_t *who_held;	/* what each row holds as the pass goes */
	size_t nr_whos, who_cap;
	struct kmt_who_row *by_comm, *by_unit;
	size_t nr_by_comm, nr_by_unit;
	/* what a live object or page is put to: a segment and a row */
	struct kmt_attr *attrs;
	size_t nr_attrs;
	uint32_t cur_attr;

	uint64_t nr_events;
	uint64_t by_type[KMT_EV_MAX + 1];
	uint64_t lost;
	/* the event groups the recorder's groups records named, if any */
	bool have_groups;
	uint32_t groups;	/* bits of enum kmt_group */
	/* memory held as the pass goes, and its sampler, if any */
	struct kmt_held held;
	struct kmt_sampler *sampler;
	/* with stacks (kmt_slab_analyze_stacks): the rows by stack */
	bool stacks;
	struct kmt_stack_row *stack_rows;
	size_t nr_stack_rows, stack_cap;
	struct kmt_hm *stack_idx;	/* during the pass: hash -> first row + 1 */
};

int kmt_slab_analyze(const struct kmt_trace *t, struct kmt_slab *s,
		     struct kmt_err *err);
/*
 * The same, taking only the events with start <= time <= end, and with
 * @by_ptr also the table per object address in s->ptrs.  With @sym, page
 * allocations that carry a stack are put to their callers (pcallers).
 */
int kmt_slab_analyze_range(const struct kmt_trace *t, uint64_t start,
			   uint64_t end, bool by_ptr, const struct kmt_symtab *sym,
			   struct kmt_slab *s, struct kmt_err *err);
/* The same, calling @sp as time goes (NULL: none). */
int kmt_slab_analyze_sampled(const struct kmt_trace *t, uint64_t start,
			     uint64_t end, const struct kmt_symtab *sym,
			     struct kmt_sampler *sp, struct kmt_slab *s,
			     struct kmt_err *err);
/* The same, with what was allocated and is held by stack in s->stack_rows. */
int kmt_slab_analyze_stacks(const struct kmt_trace *t, uint64_t start,
			    uint64_t end, const struct kmt_symtab *sym,
			    struct kmt_slab *s, struct kmt_err *err);
/* Initcalls by retained bytes (slab + pages), most first. */
void kmt_slab_sort_initcalls(struct kmt_slab *s);
/* A copy of the callsites by retained bytes, most first; NULL: ENOMEM. */
struct kmt_caller *kmt_slab_live_sorted(const struct kmt_slab *s);
void kmt_slab_free(struct kmt_slab *s);

/* Sort keys for the caller table. */
enum kmt_slab_key {
	KMT_SK_FRAG,
	KMT_SK_HIT,
	KMT_SK_BYTES,
	KMT_SK_CALLSITE,
	KMT_SK_PINGPONG,
	KMT_SK_PTR,
	KMT_SK_NR,
};

#define KMT_SLAB_MAX_KEYS 8

/* Parse "frag,hit,bytes"; -EINVAL with err naming the bad key. */
int kmt_slab_parse_sort(const char *spec, enum kmt_slab_key *keys,
			unsigned int *nr, struct kmt_err *err);
void kmt_slab_sort(struct kmt_slab *s, const enum kmt_slab_key *keys,
		   unsigned int nr);
/* The same for the table per object address. */
void kmt_slab_sort_ptrs(struct kmt_slab *s, const enum kmt_slab_key *keys,
			unsigned int nr);
double kmt_frag(uint64_t req, uint64_t alloc);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: memblock, and the pages allocated before the probes.
 *
 * memblock reserves the boot memory (the memmap, the per-CPU areas, the
 * kernel image, the hash tables) long before the recorder can start, and
 * the page allocator works from mem_init() on, before the tracepoint
 * probes can be registered.  Both wait here, in init-time arrays, and go
 * into the trace, in order and at their own times, when the recorder
 * starts at boot.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/stacktrace.h>

#include "internal.h"
#include "../slab.h"

/*
 * memblock reserves memory from the first lines of setup_arch() on, long
 * before the recorder can start (kmemtrace.enable is not even parsed
 * yet): its events wait in this init-time array, whatever kmemtrace.enable
 * says, and go into the trace in order when the recorder starts at boot.
 * Only the boot CPU runs until then, so no lock.  The array goes away
 * with the init sections; a recorder started later through tracefs has
 * only the memblock events from then on.
 */
struct kmt_mb_early {
	u64	ts;		/* local_clock(): 0 before the clock runs */
	u64	base;
	u64	size;
	s32	caller;		/* from _stext: callers are in vmlinux */
	s16	nid;
	u8	op;		/* enum kmt_memblock_op */
	u8	flags;		/* enum memblock_flags */
};

static struct kmt_mb_early kmt_mb_early[CONFIG_KMEMTRACE_MEMBLOCK_EARLY] __initdata;
static unsigned int kmt_mb_kept __initdata;
static unsigned int kmt_mb_dropped __initdata;
/* kmemtrace_init() ran: memblock events are recorded live, or not at all */
bool kmt_mb_live __read_mostly;

static const u8 kmt_enc_memblock[] = {
	KMT_ENC_U8X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_S8X, KMT_ENC_U8X,
	KMT_ENC_TEXT32,
};

static const u8 kmt_enc_memblock_early[] = {
	KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X,
};

static void kmt_record_memblock(u64 at, u8 op, u64 base, u64 size, int nid,
				unsigned int flags, unsigned long caller,
				const char *what)
{
	u64 v[6] = { op, base, size, (s64)nid, flags, caller };
	struct kmt_str str = { what ?: "", what ? strnlen(what, KMT_MAX_NAME) : 0 };

	kmt_record_fields_at(KMT_EV_MEMBLOCK, kmt_enc_memblock, v,
			     ARRAY_SIZE(v), &str, 1, at);
}

static void __init kmt_mb_keep(enum kmt_memblock_op op, phys_addr_t base,
			       phys_addr_t size, int nid, unsigned int flags,
			       unsigned long caller)
{
	struct kmt_mb_early *e;

	if (kmt_mb_kept >= ARRAY_SIZE(kmt_mb_early)) {
		kmt_mb_dropped++;
		return;
	}
	e = &kmt_mb_early[kmt_mb_kept++];
	e->ts = local_clock();
	e->base = base;
	e->size = size;
	e->caller = (s32)kmt_text_off(caller);
	e->nid = nid;
	e->op = op;
	e->flags = flags;
}

/**
 * kmemtrace_memblock - record a memblock event
 * @op: what happened (enum kmt_memblock_op)
 * @base: physical address of the range
 * @size: its bytes
 * @nid: the node asked for, %NUMA_NO_NODE for any
 * @flags: enum memblock_flags of the range or allocation
 * @caller: the first function outside memblock
 * @what: what free_reserved_area() frees ("unused kernel image
 *        (initmem)"), or NULL
 *
 * Called by memblock for every range it adds, removes, reserves,
 * allocates and frees, and by memblock_free_late() and
 * free_reserved_area() for reserved memory given to the buddy allocator.
 * Before kmemtrace_init() the event is kept for the recorder; after it,
 * it is recorded while the recorder records.
 */
void __ref kmemtrace_memblock(enum kmt_memblock_op op, phys_addr_t base,
			      phys_addr_t size, int nid, unsigned int flags,
			      unsigned long caller, const char *what)
{
	if (!READ_ONCE(kmt_mb_live)) {
		kmt_mb_keep(op, base, size, nid, flags, caller);
		return;
	}
	if (READ_ONCE(kmt_recording) &&
	    (READ_ONCE(kmt_groups) & BIT(KMT_GROUP_KMEM)))
		kmt_record_memblock(KMT_NOW, op, base, size, nid, flags, caller,
				    what);
}

/* ---- pages before the probes ------------------------------------------ */

/*
 * The page allocator works from mem_init() on, the tracepoint probes only
 * from kmemtrace_init() (registering one allocates): in between, mem_init()
 * allocates the page tables of the vmalloc area (x86-64 preallocates
 * them, 256 KiB) and kmem_cache_init() the slabs of the boot caches.  The
 * page allocator hands those pages here while kmemtrace_early_key is on;
 * they wait, with their callers, like the memblock events, until each
 * page probe is registered.  A free is kept only for a page kept
 * allocated: mem_init() frees all the free memory into the buddy
 * allocator.  Only the boot CPU runs, interrupts off: no lock.
 */
#define KMT_PG_EARLY		512
#define KMT_PG_EARLY_STACK	6

struct kmt_pg_early {
	u64	ts;
	u64	pfn1;
	u32	gfp;
	u8	order;
	s8	migratetype;
	u8	free;
	u8	nr;		/* return addresses in @frames */
	s32	frames[KMT_PG_EARLY_STACK];
};

DEFINE_STATIC_KEY_FALSE(kmemtrace_early_key);
static struct kmt_pg_early kmt_pg_early[KMT_PG_EARLY] __initdata;
static unsigned int kmt_pg_kept __initdata;
static unsigned int kmt_pg_dropped __initdata;
static unsigned int kmt_pg_replayed __initdata;
/* A buffer's sub-buffers are being allocated: KMT_EV_BUFFER names them. */
bool kmt_pg_pause;
/* Set as the page probes are registered: from then on they record. */
bool kmt_pg_alloc_live __read_mostly;
bool kmt_pg_free_live __read_mostly;

/**
 * kmemtrace_early_pages - keep the pages allocated until the probes attach
 *
 * Called by mm_core_init() before mem_init() hands the free memory to the
 * buddy allocator.  kmemtrace_init() ends it.
 */
void __init kmemtrace_early_pages(void)
{
	static_branch_enable(&kmemtrace_early_key);
}

static bool __init kmt_pg_was_kept(u64 pfn1)
{
	unsigned int i = kmt_pg_kept;

	while (i--)
		if (kmt_pg_early[i].pfn1 == pfn1)
			return !kmt_pg_early[i].free;
	return false;
}

/* Not inlined: its stack starts after its own frame (skip 1). */
noinline void __ref __kmemtrace_early_page(struct page *page,
					   unsigned int order, gfp_t gfp,
					   int migratetype, bool free)
{
	unsigned long entries[KMT_PG_EARLY_STACK];
	struct kmt_pg_early *e;
	unsigned int i, nr = 0;
	u64 pfn1;

	if (!page || kmt_pg_pause ||
	    (free ? READ_ONCE(kmt_pg_free_live) : READ_ONCE(kmt_pg_alloc_live)))
		return;
	pfn1 = page_to_pfn(page) + 1;
	if (free && !kmt_pg_was_kept(pfn1))
		return;
	if (kmt_pg_kept >= ARRAY_SIZE(kmt_pg_early)) {
		kmt_pg_dropped++;
		return;
	}
	if (!free && kmt_page_stack)
		nr = stack_trace_save(entries, min(kmt_page_stack,
						   KMT_PG_EARLY_STACK), 1);
	e = &kmt_pg_early[kmt_pg_kept++];
	e->ts = local_clock();
	e->pfn1 = pfn1;
	e->gfp = (__force u32)gfp;
	e->order = order;
	e->migratetype = migratetype;
	e->free = free;
	e->nr = nr;
	for (i = 0; i < nr; i++)
		e->frames[i] = (s32)kmt_text_off(entries[i]);
}

/* ---- the recorder's objects before its probes -------------------------- */

/*
 * What the recorder allocates for itself at boot before its kmalloc probe
 * attaches (the pool's arrays, the boot CPU's slots, the index of a
 * previous boot's trace) is in no record: each waits here like the early
 * pages and goes into the trace, in order with them, as a kmalloc record
 * of its own allocating function at its own time; once they are written
 * (the wrappers' filter), one is written as it is allocated.  So the
 * recorder's own objects are all in the trace.  Only the boot CPU runs.
 */
#define KMT_OBJ_EARLY		8

struct kmt_obj {
	u64		ts;
	const void	*ptr;
	unsigned long	caller;
	u32		bytes_req;
	u32		bytes_alloc;
	u32		gfp;
	int		nid;
};

static struct kmt_obj kmt_obj_early[KMT_OBJ_EARLY] __initdata;
static unsigned int kmt_obj_kept __initdata;
static unsigned int kmt_obj_dropped __initdata;
/* kmt_early_replay() wrote them: from then on, written as allocated */
static bool kmt_obj_replayed __initdata;

static void kmt_obj_record(const struct kmt_obj *e, u64 at)
{
	u64 v[6] = { e->caller, (unsigned long)e->ptr, e->bytes_req,
		     e->bytes_alloc - e->bytes_req, e->gfp, (s64)e->nid };

	kmt_record_fields_at(KMT_EV_KMALLOC, kmt_enc_kmalloc, v, ARRAY_SIZE(v),
			     NULL, 0, at);
}

/**
 * __kmt_early_object - put one of the recorder's own objects in the trace
 * @ptr: what kmalloc() returned
 * @size: the bytes asked for
 * @gfp: the flags it was asked with
 * @nid: the node asked for, %NUMA_NO_NODE for any
 * @caller: an address in the function that allocated it
 *
 * Called through kmt_early_object() after each allocation of the
 * recorder's that may come before its probes: at boot, until
 * kmemtrace_init() ends (kmemtrace_early_key, off before the init
 * sections go), it keeps the object, or writes it once the kept ones
 * were; later it does nothing.  The object must live until then, and
 * the kmalloc probe not be attached yet.
 *
 * Context: the boot CPU, interrupts off, in kmemtrace_init().
 */
void __ref __kmt_early_object(const void *ptr, size_t size, gfp_t gfp,
			      int nid, unsigned long caller)
{
	struct kmt_obj o = { .ptr = ptr, .caller = caller, .bytes_req = size,
			     .gfp = (__force u32)gfp, .nid = nid };
	struct folio *folio;

	if (!static_branch_unlikely(&kmemtrace_early_key) || !ptr)
		return;
	/* what the tracepoint says: the cache's size, debug data included */
	folio = virt_to_folio(ptr);
	o.bytes_alloc = folio_test_slab(folio) ?
			folio_slab(folio)->slab_cache->size : folio_size(folio);
	if (kmt_obj_replayed) {
		kmt_obj_record(&o, KMT_NOW);
		return;
	}
	if (kmt_obj_kept >= ARRAY_SIZE(kmt_obj_early)) {
		kmt_obj_dropped++;
		return;
	}
	o.ts = local_clock();
	kmt_obj_early[kmt_obj_kept++] = o;
}

static void __init kmt_pg_record(const struct kmt_pg_early *e)
{
	u8 stack[KMT_PG_EARLY_STACK * 10], *p = stack;
	u64 v[4] = { e->pfn1, e->order, e->gfp, (s64)e->migratetype };
	struct kmt_str str;
	unsigned int i;

	if (e->free) {
		kmt_record_fields_at(KMT_EV_PAGE_FREE, kmt_enc_page, v, 2,
				     NULL, 0, e->ts);
		return;
	}
	for (i = 0; i < e->nr; i++)
		p = kmt_put_uvar(p, kmt_zigzag(e->frames[i]));
	str.p = stack;
	str.len = p - stack;
	kmt_record_fields_at(KMT_EV_PAGE_ALLOC, kmt_enc_page, v, 4, &str, 1,
			     e->ts);
}

/*
 * Write the kept memblock events, pages and the recorder's objects into
 * the boot CPU's empty buffer, in the order they happened, at their own
 * times: the first records of the trace.
 */
void __init kmt_early_replay(void)
{
	const struct kmt_mb_early *e;
	unsigned int i = 0, j = 0, k = 0;
	u64 mb_ts, pg_ts, obj_ts;

	/* Nothing recorded yet: let the buffer's time start at the first. */
	this_cpu_ptr(&kmt_cpu_buf)->last_ts = 0;
	while (i < kmt_mb_kept || j < kmt_pg_kept || k < kmt_obj_kept) {
		mb_ts = i < kmt_mb_kept ? kmt_mb_early[i].ts : U64_MAX;
		pg_ts = j < kmt_pg_kept ? kmt_pg_early[j].ts : U64_MAX;
		obj_ts = k < kmt_obj_kept ? kmt_obj_early[k].ts : U64_MAX;
		if (obj_ts < mb_ts && obj_ts < pg_ts) {
			kmt_obj_record(&kmt_obj_early[k], kmt_obj_early[k].ts);
			k++;
		} else if (pg_ts < mb_ts) {
			kmt_pg_record(&kmt_pg_early[j++]);
		} else {
			e = &kmt_mb_early[i++];
			kmt_record_memblock(e->ts, e->op, e->base, e->size,
					    e->nid, e->flags,
					    (unsigned long)_stext + e->caller,
					    NULL);
		}
	}
	kmt_pg_replayed = j;
	kmt_obj_replayed = true;
}

/*
 * The pages kept while the probes were being registered (a new slab for
 * a probe array), after the records of the start; then how many early
 * events there were and how many did not fit.  @record: the recorder
 * started and records the kmem group.
 */
void __init kmt_early_finish(bool record)
{
	u64 v[5] = { kmt_mb_kept, kmt_mb_dropped, ARRAY_SIZE(kmt_mb_early),
		     kmt_pg_kept, kmt_pg_dropped };

	static_branch_disable(&kmemtrace_early_key);
	if (!record)
		return;
	while (kmt_pg_replayed < kmt_pg_kept)
		kmt_pg_record(&kmt_pg_early[kmt_pg_replayed++]);
	kmt_record_fields(KMT_EV_MEMBLOCK_EARLY, kmt_enc_memblock_early, v,
			  ARRAY_SIZE(v), NULL, 0);
	if (kmt_mb_dropped)
		pr_warn("%u memblock events did not fit in CONFIG_KMEMTRACE_MEMBLOCK_EARLY=%zu before the recorder started; they are counted, not recorded\n",
			kmt_mb_dropped, ARRAY_SIZE(kmt_mb_early));
	if (kmt_pg_dropped)
		pr_warn("%u page events from before the probes did not fit in %zu entries; they are counted, not recorded\n",
			kmt_pg_dropped, ARRAY_SIZE(kmt_pg_early));
	if (kmt_obj_dropped)
		pr_warn("%u of the recorder's objects from before its probes did not fit in %zu entries: not recorded\n",
			kmt_obj_dropped, ARRAY_SIZE(kmt_obj_early));
}

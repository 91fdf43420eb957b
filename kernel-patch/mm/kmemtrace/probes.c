// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the probes of the slab and page allocators.
 *
 * The kmem tracepoints, and the hooks for what no tracepoint reports:
 * kmem_cache_alloc_bulk(), kmem_cache_free_bulk() and kfree_bulk(),
 * through which kfree_rcu() and the maple tree free; the pages of
 * alloc_pages_bulk(); the vmalloc areas.  The hot probes write their
 * fixed layout with plain stores; a value that does not fit its slot
 * goes down the general path, an allocation whose call site is inside a
 * wrapper to kmt_record_via().
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/stacktrace.h>

#include "internal.h"
#include "../slab.h"

#include <trace/events/kmem.h>

/*
 * Payload bytes the fast paths write: every field of the layout at its
 * slot's width (the page allocation's stack empty).  Tied to the uapi
 * header's layouts by kmt_check_layouts().
 */
#define KMT_KMALLOC_BYTES	16
#define KMT_CACHE_ALLOC_BYTES	14
#define KMT_KFREE_BYTES		8
#define KMT_CACHE_FREE_BYTES	10
#define KMT_PAGE_ALLOC_BYTES	10
#define KMT_PAGE_FREE_BYTES	5
#define KMT_PAGE_BATCHED_BYTES	4

/* Return addresses recorded with each page allocation, 0: none. */
unsigned int kmt_page_stack __read_mostly;
static unsigned int kmt_next_cache_id = 1;

static int __init kmt_parse_page_stack(char *str)
{
	unsigned int n;

	if (!str || kstrtouint(str, 0, &n) || n > KMT_MAX_STACK) {
		pr_warn("kmemtrace.page_stack=%s is invalid: use 0..%u; page callers are not recorded\n",
			str ? str : "", KMT_MAX_STACK);
		return 0;
	}
	kmt_page_stack = n;
	return 0;
}
early_param("kmemtrace.page_stack", kmt_parse_page_stack);

/* Each event's encodings: the layout's, in its order. */
const u8 kmt_enc_kmalloc[6] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_U16X, KMT_ENC_U16X,
	KMT_ENC_U24X, KMT_ENC_S8X,
};

static const u8 kmt_enc_cache_alloc[] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_U16X, KMT_ENC_U24X, KMT_ENC_S8X,
};

static const u8 kmt_enc_free[] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_U16X,
};

const u8 kmt_enc_page[4] = {
	KMT_ENC_U32X, KMT_ENC_U8X, KMT_ENC_U24X, KMT_ENC_S8X,
};

static const u8 kmt_enc_cache_def[] = {
	KMT_ENC_U16X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X,
};

/* ---- probes ----------------------------------------------------------- */

/*
 * The hot probes write their fixed layout with plain stores, its fields
 * packed into little-endian words where they can; the checks that every
 * value fits are a few instructions.  Each is built twice:
 * kmt_probe_NAME() for a pool in memory (KMT_PROBE()) and
 * kmt_probe_NAME_persist() for one in a reserve_mem= region
 * (KMT_PROBE_PERSIST()); kmt_register_kmem() attaches the copy for the
 * pool it finds, which stays while the probes are attached.
 *
 * The copy for a pool in memory is kmt_NAME_fast(): the common record
 * through kmt_reserve_fast(), which saves few registers and calls
 * nothing but the clock without a copy, through a thunk that keeps them.
 * Whatever that leaves goes to kmt_NAME() out of line (a
 * KMT_PROBE_SLOW() or a function of the same kind, __kmt_slow), with the
 * saved registers and the stack frame that the general path needs,
 * normally by a tail call; where the fast path has packed the fields,
 * with the packed words, so that the arguments need not stay live.
 * Without a copy of the clock (an architecture without
 * ARCH_HAS_KMEMTRACE_CLOCK) there is no fast path, and the general one
 * is the probe's body.
 */
#ifdef CONFIG_ARCH_HAS_KMEMTRACE_CLOCK
#define __kmt_slow	noinline
#else
#define __kmt_slow	__always_inline
#endif

#define KMT_PROTO(...)	__VA_ARGS__
#define KMT_ARGS(...)	__VA_ARGS__
#define KMT_PROBE_SLOW(name, proto, args)				\
static __kmt_slow void kmt_probe_##name##_slow(proto)			\
{									\
	kmt_##name(args, false);					\
}

#define KMT_PROBE(name, proto, args)					\
static void kmt_probe_##name(void *data, proto)				\
{									\
	kmt_##name##_fast(args);					\
}

#define KMT_PROBE_PERSIST(name, proto, args)				\
static void kmt_probe_##name##_persist(void *data, proto)		\
{									\
	kmt_##name(args, true);						\
}

/*
 * The layout's fields, little endian, as two words; false if one does
 * not fit its slot (both sizes below 0xffff), for the general path: it
 * writes the same.
 */
static __always_inline bool kmt_kmalloc_words(s64 cs, u64 off,
					      size_t bytes_req, size_t slack,
					      u32 gfp, int node, u64 *w)
{
	if (unlikely(!kmt_text_fits(cs) || !kmt_dmap_fits(off) ||
		     (bytes_req | slack) >= 0xffff || gfp >= 0xffffff ||
		     !kmt_s8_fits(node)))
		return false;
	w[0] = kmt_site_ptr(cs, off);
	w[1] = bytes_req | slack << 16 | (u64)(gfp | (u32)node << 24) << 32;
	return true;
}

/*
 * The record of the fields kmt_kmalloc_words() packed in @w: under the
 * wrapper's caller, or in the buffer.
 */
static __always_inline void kmt_kmalloc_record(const u64 *w, bool persist)
{
	struct kmt_cpu *cb;
	struct kmt_rsv r;

	if (unlikely(kmt_maybe_wrapped((s32)w[0])) &&
	    kmt_record_via(KMT_EV_KMALLOC_VIA, kmt_site_of(w[0]), w[0], w[1],
			   KMT_KMALLOC_BYTES))
		return;
	cb = this_cpu_ptr(&kmt_cpu_buf);
	if (!kmt_reserve(cb, KMT_EV_KMALLOC, KMT_KMALLOC_BYTES, &r))
		return;
	put_unaligned_le64(w[0], r.p);
	put_unaligned_le64(w[1], r.p + 8);
	__kmt_commit(cb, &r, persist);
}

static __always_inline void kmt_kmalloc(unsigned long call_site,
					const void *ptr, size_t bytes_req,
					size_t bytes_alloc, gfp_t gfp_flags,
					int node, bool persist)
{
	u32 gfp = (__force u32)gfp_flags;
	size_t slack = bytes_alloc - bytes_req;
	s64 cs = kmt_text_off(call_site);
	u64 w[2];

	if (!kmt_kmalloc_words(cs, kmt_dmap_off(ptr), bytes_req, slack, gfp,
			       node, w)) {
		u64 v[6] = { call_site, (unsigned long)ptr, bytes_req, slack,
			     gfp, (s64)node };

		kmt_record_alloc(KMT_EV_KMALLOC, kmt_enc_kmalloc, v, 6);
		return;
	}
	kmt_kmalloc_record(w, persist);
}

/* kmt_kmalloc_record() of what kmt_kmalloc_fast() could not write. */
static __kmt_slow void kmt_kmalloc_slow(u64 w0, u64 w1)
{
	u64 w[2] = { w0, w1 };

	kmt_kmalloc_record(w, false);
}

KMT_PROBE_SLOW(kmalloc,
	       KMT_PROTO(unsigned long call_site, const void *ptr,
			 size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags,
			 int node),
	       KMT_ARGS(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node))

/*
 * kmt_kmalloc()'s common record; what the fast path leaves goes to
 * kmt_probe_kmalloc_slow() before the fields are packed, to
 * kmt_kmalloc_slow() after.
 */
static __always_inline void kmt_kmalloc_fast(unsigned long call_site,
					     const void *ptr, size_t bytes_req,
					     size_t bytes_alloc, gfp_t gfp_flags,
					     int node)
{
	s64 cs = kmt_text_off(call_site);
	struct kmt_rsv_fast r;
	u64 w[2];

	if (!kmt_has_fast_path() ||
	    !kmt_kmalloc_words(cs, kmt_dmap_off(ptr), bytes_req,
			       bytes_alloc - bytes_req,
			       (__force u32)gfp_flags, node, w)) {
		kmt_probe_kmalloc_slow(call_site, ptr, bytes_req, bytes_alloc,
				       gfp_flags, node);
		return;
	}
	if (unlikely(kmt_maybe_wrapped(cs)) ||
	    unlikely(!kmt_reserve_fast(KMT_EV_KMALLOC, KMT_KMALLOC_BYTES,
				       &r))) {
		kmt_kmalloc_slow(w[0], w[1]);
		return;
	}
	put_unaligned_le64(w[0], r.p);
	put_unaligned_le64(w[1], r.p + 8);
	kmt_commit_fast(&r, KMT_KMALLOC_BYTES);
}

KMT_PROBE(kmalloc,
	  KMT_PROTO(unsigned long call_site, const void *ptr,
		    size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags,
		    int node),
	  KMT_ARGS(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node))
KMT_PROBE_PERSIST(kmalloc,
		  KMT_PROTO(unsigned long call_site, const void *ptr,
			    size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags,
			    int node),
		  KMT_ARGS(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node))

/*
 * The layout's fields as a word and the 6 bytes after it, or false if
 * one does not fit its slot.
 */
static __always_inline bool kmt_cache_alloc_words(s64 cs, u64 off,
						  unsigned int id, u32 gfp,
						  int node, u64 *w)
{
	if (unlikely(!kmt_text_fits(cs) || !kmt_dmap_fits(off) ||
		     id >= 0xffff || gfp >= 0xffffff || !kmt_s8_fits(node)))
		return false;
	w[0] = kmt_site_ptr(cs, off);
	w[1] = id | (u64)(gfp | (u32)node << 24) << 16;
	return true;
}

static __always_inline void kmt_cache_alloc_put(u8 *p, const u64 *w)
{
	put_unaligned_le64(w[0], p);
	put_unaligned_le16((u16)w[1], p + 8);
	put_unaligned_le32(w[1] >> 16, p + 10);
}

/* The record of the fields kmt_cache_alloc_words() packed in @w. */
static __always_inline void kmt_cache_alloc_record(const u64 *w, bool persist)
{
	struct kmt_cpu *cb;
	struct kmt_rsv r;

	if (unlikely(kmt_maybe_wrapped((s32)w[0])) &&
	    kmt_record_via(KMT_EV_CACHE_ALLOC_VIA, kmt_site_of(w[0]), w[0],
			   w[1], KMT_CACHE_ALLOC_BYTES))
		return;
	cb = this_cpu_ptr(&kmt_cpu_buf);
	if (!kmt_reserve(cb, KMT_EV_CACHE_ALLOC, KMT_CACHE_ALLOC_BYTES, &r))
		return;
	kmt_cache_alloc_put(r.p, w);
	__kmt_commit(cb, &r, persist);
}

static __always_inline void kmt_cache_alloc(unsigned long call_site,
					    const void *ptr,
					    struct kmem_cache *s,
					    gfp_t gfp_flags, int node,
					    bool persist)
{
	u32 gfp = (__force u32)gfp_flags;
	unsigned int id = READ_ONCE(s->kmt_id);
	s64 cs = kmt_text_off(call_site);
	u64 w[2];

	if (!kmt_cache_alloc_words(cs, kmt_dmap_off(ptr), id, gfp, node, w)) {
		u64 v[5] = { call_site, (unsigned long)ptr, id, gfp, (s64)node };

		kmt_record_alloc(KMT_EV_CACHE_ALLOC, kmt_enc_cache_alloc, v, 5);
		return;
	}
	kmt_cache_alloc_record(w, persist);
}

KMT_PROBE_SLOW(cache_alloc,
	       KMT_PROTO(unsigned long call_site, const void *ptr,
			 struct kmem_cache *s, gfp_t gfp_flags, int node),
	       KMT_ARGS(call_site, ptr, s, gfp_flags, node))

/* kmt_cache_alloc_record() of what kmt_cache_alloc_fast() could not write. */
static __kmt_slow void kmt_cache_alloc_slow(u64 w0, u64 w1)
{
	u64 w[2] = { w0, w1 };

	kmt_cache_alloc_record(w, false);
}

/*
 * kmt_cache_alloc()'s common record; what the fast path leaves goes to
 * kmt_probe_cache_alloc_slow() before the fields are packed, to
 * kmt_cache_alloc_slow() after.
 */
static __always_inline void kmt_cache_alloc_fast(unsigned long call_site,
						 const void *ptr,
						 struct kmem_cache *s,
						 gfp_t gfp_flags, int node)
{
	s64 cs = kmt_text_off(call_site);
	struct kmt_rsv_fast r;
	u64 w[2];

	if (!kmt_has_fast_path() ||
	    !kmt_cache_alloc_words(cs, kmt_dmap_off(ptr), READ_ONCE(s->kmt_id),
				   (__force u32)gfp_flags, node, w)) {
		kmt_probe_cache_alloc_slow(call_site, ptr, s, gfp_flags, node);
		return;
	}
	if (unlikely(kmt_maybe_wrapped(cs)) ||
	    unlikely(!kmt_reserve_fast(KMT_EV_CACHE_ALLOC,
				       KMT_CACHE_ALLOC_BYTES, &r))) {
		kmt_cache_alloc_slow(w[0], w[1]);
		return;
	}
	kmt_cache_alloc_put(r.p, w);
	kmt_commit_fast(&r, KMT_CACHE_ALLOC_BYTES);
}

KMT_PROBE(cache_alloc,
	  KMT_PROTO(unsigned long call_site, const void *ptr,
		    struct kmem_cache *s, gfp_t gfp_flags, int node),
	  KMT_ARGS(call_site, ptr, s, gfp_flags, node))
KMT_PROBE_PERSIST(cache_alloc,
		  KMT_PROTO(unsigned long call_site, const void *ptr,
			    struct kmem_cache *s, gfp_t gfp_flags, int node),
		  KMT_ARGS(call_site, ptr, s, gfp_flags, node))

/*
 * A free's call site and pointer as one word (kmt_site_ptr()), NULL's
 * (KMT_DMAP32_NULL) included: kfree(NULL) is common at boot.  Return:
 * whether they and the cache @id fit the record.
 */
static __always_inline bool kmt_free_fits(s64 cs, const void *ptr,
					  unsigned int id, u64 *w)
{
	u64 off = kmt_dmap_off(ptr);

	if (unlikely(!kmt_text_fits(cs) || id >= 0xffff))
		return false;
	if (likely(kmt_dmap_fits(off))) {
		*w = kmt_site_ptr(cs, off);
		return true;
	}
	*w = (u32)cs | (u64)KMT_DMAP32_NULL << 32;
	return !ptr;
}

/* The pointer back from kmt_free_fits()'s word. */
static __always_inline const void *kmt_free_ptr_of(u64 w)
{
	return w >> 32 == KMT_DMAP32_NULL ? NULL : kmt_ptr_of(w);
}

static __always_inline void kmt_free(u8 type, unsigned long call_site,
				     const void *ptr, unsigned int id,
				     bool persist)
{
	struct kmt_cpu *cb = this_cpu_ptr(&kmt_cpu_buf);
	unsigned int plen = type == KMT_EV_KFREE ? KMT_KFREE_BYTES :
			    KMT_CACHE_FREE_BYTES;
	struct kmt_rsv r;
	u64 w;

	if (unlikely(!kmt_free_fits(kmt_text_off(call_site), ptr, id, &w))) {
		u64 v[3] = { call_site, (unsigned long)ptr, id };

		kmt_record_fields(type, kmt_enc_free, v,
				  type == KMT_EV_KFREE ? 2 : 3, NULL, 0);
		return;
	}
	if (!kmt_reserve(cb, type, plen, &r))
		return;
	put_unaligned_le64(w, r.p);
	if (type != KMT_EV_KFREE)
		put_unaligned_le16(id, r.p + 8);
	__kmt_commit(cb, &r, persist);
}

static __kmt_slow void kmt_kfree_slow(unsigned long call_site,
				      const void *ptr)
{
	kmt_free(KMT_EV_KFREE, call_site, ptr, 0, false);
}

static __kmt_slow void kmt_cache_free_slow(unsigned long call_site,
					   const void *ptr, unsigned int id)
{
	kmt_free(KMT_EV_CACHE_FREE, call_site, ptr, id, false);
}

/* kmt_free() out of line, a copy for each @type. */
static __always_inline void kmt_free_slow(u8 type, unsigned long call_site,
					  const void *ptr, unsigned int id)
{
	if (type == KMT_EV_KFREE)
		kmt_kfree_slow(call_site, ptr);
	else
		kmt_cache_free_slow(call_site, ptr, id);
}

/* kmt_free()'s common record; the rest to kmt_free_slow(). */
static __always_inline void kmt_free_fast(u8 type,
					  unsigned long call_site,
					  const void *ptr, unsigned int id)
{
	unsigned int plen = type == KMT_EV_KFREE ? KMT_KFREE_BYTES :
			    KMT_CACHE_FREE_BYTES;
	struct kmt_rsv_fast r;
	u64 w;

	if (!kmt_has_fast_path() ||
	    unlikely(!kmt_free_fits(kmt_text_off(call_site), ptr, id, &w))) {
		kmt_free_slow(type, call_site, ptr, id);
		return;
	}
	if (unlikely(!kmt_reserve_fast(type, plen, &r))) {
		kmt_free_slow(type, kmt_site_of(w), kmt_free_ptr_of(w), id);
		return;
	}
	put_unaligned_le64(w, r.p);
	if (type != KMT_EV_KFREE)
		put_unaligned_le16(id, r.p + 8);
	kmt_commit_fast(&r, plen);
}

static __always_inline void kmt_kfree(unsigned long call_site,
				      const void *ptr, bool persist)
{
	kmt_free(KMT_EV_KFREE, call_site, ptr, 0, persist);
}

static __always_inline void kmt_kfree_fast(unsigned long call_site,
					   const void *ptr)
{
	kmt_free_fast(KMT_EV_KFREE, call_site, ptr, 0);
}

KMT_PROBE(kfree,
	  KMT_PROTO(unsigned long call_site, const void *ptr),
	  KMT_ARGS(call_site, ptr))
KMT_PROBE_PERSIST(kfree,
		  KMT_PROTO(unsigned long call_site, const void *ptr),
		  KMT_ARGS(call_site, ptr))

static __always_inline void kmt_cache_free(unsigned long call_site,
					   const void *ptr,
					   const struct kmem_cache *s,
					   bool persist)
{
	kmt_free(KMT_EV_CACHE_FREE, call_site, ptr,
		 s ? READ_ONCE(s->kmt_id) : 0, persist);
}

static __always_inline void kmt_cache_free_fast(unsigned long call_site,
						const void *ptr,
						const struct kmem_cache *s)
{
	kmt_free_fast(KMT_EV_CACHE_FREE, call_site, ptr,
		      s ? READ_ONCE(s->kmt_id) : 0);
}

KMT_PROBE(cache_free,
	  KMT_PROTO(unsigned long call_site, const void *ptr,
		    const struct kmem_cache *s),
	  KMT_ARGS(call_site, ptr, s))
KMT_PROBE_PERSIST(cache_free,
		  KMT_PROTO(unsigned long call_site, const void *ptr,
			    const struct kmem_cache *s),
		  KMT_ARGS(call_site, ptr, s))

/*
 * Off until the kmem probes are registered, with them.  A hook may be
 * preempted between the branch and its preempt_disable() and run on
 * after the key is off and the probes are gone: it tests
 * kmt_buffers_ready() with preemption off, as kmt_release_buffers()
 * requires.
 */
DEFINE_STATIC_KEY_FALSE(kmemtrace_hook_key);

/*
 * The hooks below write through the hot probes' bodies with
 * kmt_persist_on() tested each time, not the copy kmt_register_kmem()
 * chose: one preempted before its preempt_disable() may run on after
 * the pool was given back and allocated again elsewhere.
 */

/* kmt_buffers_ready() for a hook's @nr events, counted lost if not. */
static __always_inline bool kmt_hook_ready(size_t nr)
{
	if (likely(kmt_buffers_ready()))
		return true;
	local_add(nr, &this_cpu_ptr(&kmt_cpu_buf)->lost);
	return false;
}

void __kmemtrace_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t nr,
			    void **p, unsigned long call_site)
{
	size_t i;

	preempt_disable_notrace();
	if (kmt_hook_ready(nr))
		for (i = 0; i < nr; i++)
			kmt_cache_alloc(call_site, p[i], s, flags,
					NUMA_NO_NODE, kmt_persist_on());
	preempt_enable_notrace();
}

void __kmemtrace_free_bulk(struct kmem_cache *s, size_t nr, void **p,
			   unsigned long call_site)
{
	unsigned int id = s ? READ_ONCE(s->kmt_id) : 0;
	size_t i;

	preempt_disable_notrace();
	if (!kmt_hook_ready(nr))
		goto out;
	for (i = 0; i < nr; i++) {
		if (!p[i])
			continue;
		if (s)
			kmt_free(KMT_EV_CACHE_FREE, call_site, p[i], id,
				 kmt_persist_on());
		else
			kmt_free(KMT_EV_KFREE, call_site, p[i], 0,
				 kmt_persist_on());
	}
out:
	preempt_enable_notrace();
}

static const u8 kmt_enc_vmalloc[] = {
	KMT_ENC_U8X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_TEXT32,
};

void __kmemtrace_vmalloc(enum kmt_vmalloc_op op, const void *addr,
			 unsigned int nr_pages, unsigned long caller)
{
	u64 v[4] = { op, (unsigned long)addr, nr_pages, caller };

	kmt_record_fields(KMT_EV_VMALLOC, kmt_enc_vmalloc, v, 4, NULL, 0);
}

static __always_inline u64 kmt_pfn1(struct page *page)
{
	return page ? page_to_pfn(page) + 1 : 0;
}

/*
 * The frames a page's stack starts with that are the recorder's, the
 * tracepoint's or __alloc_pages_noprof(), the tracepoint's one caller:
 * how many there are depends on the compiler (tail calls to
 * kmt_probe_page_alloc_slow() and kmt_page_alloc_fields() or not) and on
 * the tracepoint (the probe called directly, or through its iterator
 * when it has others), and none of them is a caller a reader wants.
 * Their extents, from kallsyms when the probes first attach (no probe
 * runs yet).
 */
#define KMT_PG_OWN	7
static struct {
	unsigned long start, size;
} kmt_pg_own[KMT_PG_OWN] __read_mostly;

static void kmt_page_alloc_fields(u64 pfn1, unsigned int order, u32 gfp,
				  int migratetype);
static void kmt_probe_page_alloc(void *data, struct page *page,
				 unsigned int order, gfp_t gfp_flags,
				 int migratetype);
static __kmt_slow void kmt_probe_page_alloc_slow(struct page *page,
						 unsigned int order,
						 gfp_t gfp_flags,
						 int migratetype);
static void kmt_probe_page_alloc_persist(void *data, struct page *page,
					 unsigned int order, gfp_t gfp_flags,
					 int migratetype);

static void kmt_pg_own_init(void)
{
	const unsigned long fns[KMT_PG_OWN] = {
		(unsigned long)kmt_page_alloc_fields,
		(unsigned long)kmt_probe_page_alloc,
		/* a frame only where it is out of line */
		IS_ENABLED(CONFIG_ARCH_HAS_KMEMTRACE_CLOCK) ?
			(unsigned long)kmt_probe_page_alloc_slow : 0,
		(unsigned long)kmt_probe_page_alloc_persist,
		(unsigned long)__traceiter_mm_page_alloc,
		(unsigned long)__kmemtrace_alloc_pages_bulk,
		(unsigned long)__alloc_pages_noprof,
	};
	unsigned long size, off;
	int i;

	if (kmt_pg_own[0].start)
		return;
	for (i = 0; i < KMT_PG_OWN; i++) {
		if (!kallsyms_lookup_size_offset(fns[i], &size, &off) || off)
			size = 0;
		kmt_pg_own[i].start = fns[i];
		kmt_pg_own[i].size = size;
	}
}

/* The index in @entries of the first frame that is not kmt_pg_own[]'s. */
static unsigned int kmt_pg_skip_own(const unsigned long *entries,
				    unsigned int nr)
{
	unsigned int i, k;

	for (i = 0; i < nr; i++) {
		for (k = 0; k < KMT_PG_OWN; k++)
			if (entries[i] - kmt_pg_own[k].start < kmt_pg_own[k].size)
				break;
		if (k == KMT_PG_OWN)
			break;
	}
	return i;
}

/*
 * The page tracepoints carry no caller: with kmemtrace.page_stack=N the
 * record ends with N return addresses, as TEXT varints in a STR field,
 * from the allocator's frames outwards (the recorder's and the
 * tracepoint's left out).  Readers skip the allocator's.
 */
static noinline void kmt_page_alloc_fields(u64 pfn1, unsigned int order,
					   u32 gfp, int migratetype)
{
	unsigned long entries[KMT_MAX_STACK + KMT_PG_OWN];
	u8 stack[KMT_MAX_STACK * 10], *p = stack;
	unsigned int i = 0, nr = 0;
	u64 v[4] = { pfn1, order, gfp, (s64)migratetype };
	struct kmt_str str;

	if (kmt_page_stack) {
		nr = stack_trace_save(entries, kmt_page_stack + KMT_PG_OWN, 0);
		i = kmt_pg_skip_own(entries, nr);
		nr = min(nr, i + kmt_page_stack);
	}
	for (; i < nr; i++)
		p = kmt_put_uvar(p, kmt_zigzag(kmt_text_off(entries[i])));
	str.p = stack;
	str.len = p - stack;
	kmt_record_fields(KMT_EV_PAGE_ALLOC, kmt_enc_page, v, 4, &str, 1);
}

/* Whether the page allocation's fields fit the layout, with no stack. */
static __always_inline bool kmt_page_alloc_fits(u64 pfn1, unsigned int order,
						u32 gfp, int migratetype)
{
	return likely(!kmt_page_stack && pfn1 < 0xffffffff && order < 0xff &&
		      gfp < 0xffffff && kmt_s8_fits(migratetype));
}

/* pfn1, order, GFP; migratetype and an empty stack */
static __always_inline void kmt_page_alloc_put(u8 *p, u64 pfn1,
					       unsigned int order, u32 gfp,
					       int migratetype)
{
	put_unaligned_le64(pfn1 | (u64)order << 32 | (u64)gfp << 40, p);
	put_unaligned_le16((u8)migratetype, p + 8);
}

static __always_inline void kmt_page_alloc(struct page *page,
					   unsigned int order, gfp_t gfp_flags,
					   int migratetype, bool persist)
{
	u32 gfp = (__force u32)gfp_flags;
	u64 pfn1 = kmt_pfn1(page);
	struct kmt_cpu *cb;
	struct kmt_rsv r;

	if (!kmt_page_alloc_fits(pfn1, order, gfp, migratetype)) {
		kmt_page_alloc_fields(pfn1, order, gfp, migratetype);
		return;
	}
	cb = this_cpu_ptr(&kmt_cpu_buf);
	if (!kmt_reserve(cb, KMT_EV_PAGE_ALLOC, KMT_PAGE_ALLOC_BYTES, &r))
		return;
	kmt_page_alloc_put(r.p, pfn1, order, gfp, migratetype);
	__kmt_commit(cb, &r, persist);
}

KMT_PROBE_SLOW(page_alloc,
	       KMT_PROTO(struct page *page, unsigned int order,
			 gfp_t gfp_flags, int migratetype),
	       KMT_ARGS(page, order, gfp_flags, migratetype))

/* kmt_page_alloc()'s common record; the rest to the slow copy. */
static __always_inline void kmt_page_alloc_fast(struct page *page,
						unsigned int order,
						gfp_t gfp_flags,
						int migratetype)
{
	u32 gfp = (__force u32)gfp_flags;
	u64 pfn1 = kmt_pfn1(page);
	struct kmt_rsv_fast r;

	if (!kmt_has_fast_path() ||
	    !kmt_page_alloc_fits(pfn1, order, gfp, migratetype) ||
	    unlikely(!kmt_reserve_fast(KMT_EV_PAGE_ALLOC,
				       KMT_PAGE_ALLOC_BYTES, &r))) {
		kmt_probe_page_alloc_slow(page, order, gfp_flags, migratetype);
		return;
	}
	kmt_page_alloc_put(r.p, pfn1, order, gfp, migratetype);
	kmt_commit_fast(&r, KMT_PAGE_ALLOC_BYTES);
}

KMT_PROBE(page_alloc,
	  KMT_PROTO(struct page *page, unsigned int order, gfp_t gfp_flags,
		    int migratetype),
	  KMT_ARGS(page, order, gfp_flags, migratetype))
KMT_PROBE_PERSIST(page_alloc,
		  KMT_PROTO(struct page *page, unsigned int order, gfp_t gfp_flags,
			    int migratetype),
		  KMT_ARGS(page, order, gfp_flags, migratetype))

void __kmemtrace_alloc_pages_bulk(struct page *page, gfp_t gfp,
				  int migratetype)
{
	preempt_disable_notrace();
	if (kmt_hook_ready(1))
		kmt_page_alloc(page, 0, gfp, migratetype, kmt_persist_on());
	preempt_enable_notrace();
}

static __always_inline void kmt_pages_free(u8 type, struct page *page,
					   unsigned int order, bool persist)
{
	struct kmt_cpu *cb = this_cpu_ptr(&kmt_cpu_buf);
	unsigned int plen = type == KMT_EV_PAGE_FREE ? KMT_PAGE_FREE_BYTES :
			    KMT_PAGE_BATCHED_BYTES;
	u64 pfn1 = kmt_pfn1(page);
	struct kmt_rsv r;

	if (unlikely(pfn1 >= 0xffffffff || order >= 0xff)) {
		u64 v[2] = { pfn1, order };

		kmt_record_fields(type, kmt_enc_page, v,
				  type == KMT_EV_PAGE_FREE ? 2 : 1, NULL, 0);
		return;
	}
	if (!kmt_reserve(cb, type, plen, &r))
		return;
	put_unaligned_le32(pfn1, r.p);
	if (type == KMT_EV_PAGE_FREE)
		r.p[4] = order;
	__kmt_commit(cb, &r, persist);
}

static __kmt_slow void kmt_page_free_slow(struct page *page,
					  unsigned int order)
{
	kmt_pages_free(KMT_EV_PAGE_FREE, page, order, false);
}

static __kmt_slow void kmt_page_free_batched_slow(struct page *page)
{
	kmt_pages_free(KMT_EV_PAGE_FREE_BATCHED, page, 0, false);
}

/* kmt_pages_free() out of line, a copy for each @type. */
static __always_inline void kmt_pages_free_slow(u8 type, struct page *page,
						unsigned int order)
{
	if (type == KMT_EV_PAGE_FREE)
		kmt_page_free_slow(page, order);
	else
		kmt_page_free_batched_slow(page);
}

/* kmt_pages_free()'s common record; the rest to kmt_pages_free_slow(). */
static __always_inline void kmt_pages_free_fast(u8 type,
						struct page *page,
						unsigned int order)
{
	unsigned int plen = type == KMT_EV_PAGE_FREE ? KMT_PAGE_FREE_BYTES :
			    KMT_PAGE_BATCHED_BYTES;
	u64 pfn1 = kmt_pfn1(page);
	struct kmt_rsv_fast r;

	if (!kmt_has_fast_path() ||
	    unlikely(pfn1 >= 0xffffffff || order >= 0xff) ||
	    unlikely(!kmt_reserve_fast(type, plen, &r))) {
		kmt_pages_free_slow(type, page, order);
		return;
	}
	put_unaligned_le32(pfn1, r.p);
	if (type == KMT_EV_PAGE_FREE)
		r.p[4] = order;
	kmt_commit_fast(&r, plen);
}

static __always_inline void kmt_page_free(struct page *page,
					  unsigned int order, bool persist)
{
	kmt_pages_free(KMT_EV_PAGE_FREE, page, order, persist);
}

static __always_inline void kmt_page_free_fast(struct page *page,
					       unsigned int order)
{
	kmt_pages_free_fast(KMT_EV_PAGE_FREE, page, order);
}

KMT_PROBE(page_free,
	  KMT_PROTO(struct page *page, unsigned int order),
	  KMT_ARGS(page, order))
KMT_PROBE_PERSIST(page_free,
		  KMT_PROTO(struct page *page, unsigned int order),
		  KMT_ARGS(page, order))

static __always_inline void kmt_page_free_batched(struct page *page,
						  bool persist)
{
	kmt_pages_free(KMT_EV_PAGE_FREE_BATCHED, page, 0, persist);
}

static __always_inline void kmt_page_free_batched_fast(struct page *page)
{
	kmt_pages_free_fast(KMT_EV_PAGE_FREE_BATCHED, page, 0);
}

KMT_PROBE(page_free_batched,
	  KMT_PROTO(struct page *page),
	  KMT_ARGS(page))
KMT_PROBE_PERSIST(page_free_batched,
		  KMT_PROTO(struct page *page),
		  KMT_ARGS(page))

/* ---- cache definitions ---------------------------------------------- */

static void kmt_emit_cache_def(struct kmem_cache *s)
{
	u64 v[5];

	v[0] = s->kmt_id;
	v[1] = s->object_size;
	v[2] = s->size;
	v[3] = s->align;
	v[4] = (__force unsigned int)s->flags;
	kmt_record_str(KMT_EV_CACHE_DEF, kmt_enc_cache_def, v, ARRAY_SIZE(v),
		       s->name ? s->name : "");
}

/**
 * kmemtrace_cache_create - give a new kmem_cache its trace id
 * @s: the cache, just added to slab_caches under slab_mutex
 *
 * The id is what kmem_cache_alloc/free records carry; the name and sizes
 * reach the trace once, in a KMT_EV_CACHE_DEF record.
 */
void kmemtrace_cache_create(struct kmem_cache *s)
{
	lockdep_assert_held(&slab_mutex);
	if (!s->kmt_id)
		s->kmt_id = kmt_next_cache_id++;
	if (READ_ONCE(kmt_recording))
		kmt_emit_cache_def(s);
}

/*
 * Define every existing cache.  slab_mutex is taken here, around the
 * list walk only: callers (under kmt_mutex, or kmemtrace_init() alone
 * at boot) must not hold slab_mutex while they register probes or flip
 * static keys, which take cpus_read_lock(): CPU hotplug takes slab_mutex
 * inside the hotplug lock, in slub_cpu_dead().  Taking it at boot is
 * fine: vmalloc_init() does, right after.  A cache created meanwhile is defined by its own
 * kmemtrace_cache_create(), since the recorder records already.
 */
void kmt_define_all_caches(void)
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		if (!s->kmt_id)
			s->kmt_id = kmt_next_cache_id++;
		kmt_emit_cache_def(s);
	}
	mutex_unlock(&slab_mutex);
}

/* ---- registration ----------------------------------------------------- */

/* The layout of @type: they are in type order, from 1. */
KMT_DEFINE_LAYOUTS(kmt_probe_layouts);

/* Bytes of a field of encoding @enc whose value fits its slot. */
static __always_inline unsigned int kmt_enc_bytes(u8 enc)
{
	switch (enc) {
	case KMT_ENC_U8X:
	case KMT_ENC_S8X:
		return 1;
	case KMT_ENC_U16X:
		return 2;
	case KMT_ENC_U24X:
		return 3;
	case KMT_ENC_U32X:
	case KMT_ENC_S32:
	case KMT_ENC_TEXT32:
	case KMT_ENC_DMAP32:
		return 4;
	case KMT_ENC_STR:
		return 1;	/* an empty one: its length */
	}
	return 0;
}

/* Bytes of field @i of @l if it is among the first @n, else 0. */
static __always_inline unsigned int kmt_field_bytes(const struct kmt_layout *l,
						    unsigned int i,
						    unsigned int n)
{
	return i < n ? kmt_enc_bytes(l->fields[i].enc) : 0;
}

/*
 * Bytes of the first @n fields of @type's layout, every value fitting.
 * Written out, not a loop: the compiler folds it for BUILD_BUG_ON().
 */
static __always_inline unsigned int kmt_layout_bytes(u8 type, unsigned int n)
{
	const struct kmt_layout *l = &kmt_probe_layouts[type - 1];

	BUILD_BUG_ON(KMT_MAX_FIELDS != 8);
	return kmt_field_bytes(l, 0, n) + kmt_field_bytes(l, 1, n) +
	       kmt_field_bytes(l, 2, n) + kmt_field_bytes(l, 3, n) +
	       kmt_field_bytes(l, 4, n) + kmt_field_bytes(l, 5, n) +
	       kmt_field_bytes(l, 6, n) + kmt_field_bytes(l, 7, n);
}

/* Whether field @i of @l is encoded as @enc[@i], or not among the first @n. */
static __always_inline bool kmt_field_is(const struct kmt_layout *l,
					 const u8 *enc, unsigned int i,
					 unsigned int n)
{
	return i >= n || l->fields[i].enc == enc[i];
}

/* Whether the @n encodings @enc are those of @type's layout. */
static __always_inline bool kmt_layout_is(u8 type, const u8 *enc,
					  unsigned int n)
{
	const struct kmt_layout *l = &kmt_probe_layouts[type - 1];

	return l->type == type && l->nr_fields >= n &&
	       kmt_field_is(l, enc, 0, n) && kmt_field_is(l, enc, 1, n) &&
	       kmt_field_is(l, enc, 2, n) && kmt_field_is(l, enc, 3, n) &&
	       kmt_field_is(l, enc, 4, n) && kmt_field_is(l, enc, 5, n) &&
	       kmt_field_is(l, enc, 6, n) && kmt_field_is(l, enc, 7, n);
}

/*
 * The probes' stores and encodings against the uapi header: a layout
 * changed there without the probes fails the build here.
 */
static __always_inline void kmt_check_layouts(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(kmt_probe_layouts) != KMT_EV_MAX);
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_KMALLOC, kmt_enc_kmalloc,
				    ARRAY_SIZE(kmt_enc_kmalloc)));
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_CACHE_ALLOC, kmt_enc_cache_alloc,
				    ARRAY_SIZE(kmt_enc_cache_alloc)));
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_CACHE_FREE, kmt_enc_free,
				    ARRAY_SIZE(kmt_enc_free)));
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_KFREE, kmt_enc_free, 2));
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_PAGE_ALLOC, kmt_enc_page,
				    ARRAY_SIZE(kmt_enc_page)));
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_PAGE_FREE, kmt_enc_page, 2));
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_PAGE_FREE_BATCHED, kmt_enc_page, 1));
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_CACHE_DEF, kmt_enc_cache_def,
				    ARRAY_SIZE(kmt_enc_cache_def)));
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_VMALLOC, kmt_enc_vmalloc,
				    ARRAY_SIZE(kmt_enc_vmalloc)));
	BUILD_BUG_ON(kmt_layout_bytes(KMT_EV_KMALLOC, 6) != KMT_KMALLOC_BYTES);
	BUILD_BUG_ON(kmt_layout_bytes(KMT_EV_CACHE_ALLOC, 5) !=
		     KMT_CACHE_ALLOC_BYTES);
	BUILD_BUG_ON(kmt_layout_bytes(KMT_EV_KFREE, 2) != KMT_KFREE_BYTES);
	BUILD_BUG_ON(kmt_layout_bytes(KMT_EV_CACHE_FREE, 3) !=
		     KMT_CACHE_FREE_BYTES);
	BUILD_BUG_ON(kmt_layout_bytes(KMT_EV_PAGE_ALLOC, 5) !=
		     KMT_PAGE_ALLOC_BYTES);
	BUILD_BUG_ON(kmt_layout_bytes(KMT_EV_PAGE_FREE, 2) != KMT_PAGE_FREE_BYTES);
	BUILD_BUG_ON(kmt_layout_bytes(KMT_EV_PAGE_FREE_BATCHED, 1) !=
		     KMT_PAGE_BATCHED_BYTES);
	/* kmt_record_via(): the plain layout's bytes, then the stack */
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_KMALLOC_VIA, kmt_enc_kmalloc,
				    ARRAY_SIZE(kmt_enc_kmalloc)));
	BUILD_BUG_ON(kmt_probe_layouts[KMT_EV_KMALLOC_VIA - 1].nr_fields != 7 ||
		     kmt_probe_layouts[KMT_EV_KMALLOC_VIA - 1].fields[6].enc !=
		     KMT_ENC_STR);
	BUILD_BUG_ON(!kmt_layout_is(KMT_EV_CACHE_ALLOC_VIA, kmt_enc_cache_alloc,
				    ARRAY_SIZE(kmt_enc_cache_alloc)));
	BUILD_BUG_ON(kmt_probe_layouts[KMT_EV_CACHE_ALLOC_VIA - 1].nr_fields != 6 ||
		     kmt_probe_layouts[KMT_EV_CACHE_ALLOC_VIA - 1].fields[5].enc !=
		     KMT_ENC_STR);
}

/* The copy of each hot probe attached: for a pool in a region or not. */
static bool kmt_kmem_persist;
#define KMT_PICK(name)	(kmt_kmem_persist ? kmt_probe_##name##_persist : \
			 kmt_probe_##name)

/*
 * All or none: what registered is unregistered again on a failure.  The
 * pool is allocated, and stays while the probes are attached: its place
 * chooses their copy.
 */
int kmt_register_kmem(void)
{
	int ret;

	kmt_check_layouts();
	kmt_pg_own_init();
	kmt_kmem_persist = kmt_persist_pool();
	kmt_wrappers_start();
	/* The page probes first: at boot the early pages wait for them. */
	ret = register_trace_mm_page_free(KMT_PICK(page_free), NULL);
	if (ret)
		goto err_wrappers;
	WRITE_ONCE(kmt_pg_free_live, true);
	ret = register_trace_mm_page_free_batched(KMT_PICK(page_free_batched),
						  NULL);
	if (ret)
		goto err_free;
	ret = register_trace_mm_page_alloc(KMT_PICK(page_alloc), NULL);
	if (ret)
		goto err_batched;
	WRITE_ONCE(kmt_pg_alloc_live, true);
	ret = register_trace_kmalloc(KMT_PICK(kmalloc), NULL);
	if (ret)
		goto err_alloc;
	ret = register_trace_kmem_cache_alloc(KMT_PICK(cache_alloc), NULL);
	if (ret)
		goto err_kmalloc;
	ret = register_trace_kfree(KMT_PICK(kfree), NULL);
	if (ret)
		goto err_cache_alloc;
	ret = register_trace_kmem_cache_free(KMT_PICK(cache_free), NULL);
	if (ret)
		goto err_kfree;
	static_branch_enable(&kmemtrace_hook_key);
	return 0;

err_kfree:
	unregister_trace_kfree(KMT_PICK(kfree), NULL);
err_cache_alloc:
	unregister_trace_kmem_cache_alloc(KMT_PICK(cache_alloc), NULL);
err_kmalloc:
	unregister_trace_kmalloc(KMT_PICK(kmalloc), NULL);
err_alloc:
	WRITE_ONCE(kmt_pg_alloc_live, false);
	unregister_trace_mm_page_alloc(KMT_PICK(page_alloc), NULL);
err_batched:
	unregister_trace_mm_page_free_batched(KMT_PICK(page_free_batched), NULL);
err_free:
	WRITE_ONCE(kmt_pg_free_live, false);
	unregister_trace_mm_page_free(KMT_PICK(page_free), NULL);
	tracepoint_synchronize_unregister();
err_wrappers:
	kmt_wrappers_stop();
	return ret;
}

/*
 * Only after kmt_register_kmem() succeeded; the caller then waits for
 * the probes (tracepoint_synchronize_unregister()) and stops the
 * wrappers' entries (kmt_wrappers_stop()).
 */
void kmt_unregister_kmem(void)
{
	static_branch_disable(&kmemtrace_hook_key);
	unregister_trace_mm_page_free_batched(KMT_PICK(page_free_batched), NULL);
	unregister_trace_mm_page_free(KMT_PICK(page_free), NULL);
	unregister_trace_mm_page_alloc(KMT_PICK(page_alloc), NULL);
	unregister_trace_kmem_cache_free(KMT_PICK(cache_free), NULL);
	unregister_trace_kfree(KMT_PICK(kfree), NULL);
	unregister_trace_kmem_cache_alloc(KMT_PICK(cache_alloc), NULL);
	unregister_trace_kmalloc(KMT_PICK(kmalloc), NULL);
}

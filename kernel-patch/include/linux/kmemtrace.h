/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_KMEMTRACE_H
#define _LINUX_KMEMTRACE_H

#include <linux/cleanup.h>
#include <linux/gfp_types.h>
#include <linux/init.h>
#include <linux/instruction_pointer.h>
#include <linux/jump_label.h>
#include <linux/types.h>
#include <uapi/linux/kmemtrace.h>

struct kmem_cache;
struct page;
struct task_struct;

#ifdef CONFIG_KMEMTRACE
void __init kmemtrace_init(void);
void kmemtrace_cache_create(struct kmem_cache *s);
void kmemtrace_memblock(enum kmt_memblock_op op, phys_addr_t base,
			phys_addr_t size, int nid, unsigned int flags,
			unsigned long caller, const char *what);

DECLARE_STATIC_KEY_FALSE(kmemtrace_hook_key);
DECLARE_STATIC_KEY_FALSE(kmemtrace_early_key);
void __init kmemtrace_early_pages(void);
void __kmemtrace_early_page(struct page *page, unsigned int order, gfp_t gfp,
			    int migratetype, bool free);
void __kmemtrace_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t nr,
			    void **p, unsigned long call_site);
void __kmemtrace_free_bulk(struct kmem_cache *s, size_t nr, void **p,
			   unsigned long call_site);
void __kmemtrace_alloc_pages_bulk(struct page *page, gfp_t gfp,
				  int migratetype);
void __kmemtrace_vmalloc(enum kmt_vmalloc_op op, const void *addr,
			 unsigned int nr_pages, unsigned long caller);

DECLARE_STATIC_KEY_FALSE(kmemtrace_trigger_key);
void __kmemtrace_oom(struct task_struct *victim, int order, gfp_t gfp,
		     bool memcg);
void __kmemtrace_alloc_failed(enum kmt_trigger trig, gfp_t gfp,
			      unsigned int order, struct kmem_cache *s);

/**
 * kmemtrace_oom - the OOM killer chose a victim
 * @victim: the task it will kill
 * @order:  order of the allocation that failed, -1 for a forced kill
 * @gfp:    its GFP flags
 * @memcg:  the OOM is a memory cgroup's
 *
 * A trigger of the flight recorder: it freezes the buffers, so that what
 * led to the OOM can be read later.  Nothing unless it records in flight
 * mode.
 */
static __always_inline void kmemtrace_oom(struct task_struct *victim,
					  int order, gfp_t gfp, bool memcg)
{
	if (static_branch_unlikely(&kmemtrace_trigger_key))
		__kmemtrace_oom(victim, order, gfp, memcg);
}

/**
 * kmemtrace_alloc_failed - an allocation failed
 * @trig:  KMT_TRIG_PAGE_ALLOC_FAIL or KMT_TRIG_SLAB_ALLOC_FAIL
 * @gfp:   its GFP flags (with __GFP_NOWARN: nothing is done)
 * @order: the order of the pages it could not get
 * @s:     the slab cache, or NULL
 *
 * A trigger of the flight recorder, like kmemtrace_oom().  Any context.
 */
static __always_inline void kmemtrace_alloc_failed(enum kmt_trigger trig,
						   gfp_t gfp,
						   unsigned int order,
						   struct kmem_cache *s)
{
	if (static_branch_unlikely(&kmemtrace_trigger_key))
		__kmemtrace_alloc_failed(trig, gfp, order, s);
}

/**
 * kmemtrace_alloc_bulk - record the objects of a bulk allocation
 * @s: the cache they came from
 * @flags: the allocation's GFP flags
 * @nr: how many were allocated
 * @p: the objects
 * @call_site: the caller of kmem_cache_alloc_bulk()
 *
 * No kmem tracepoint fires for kmem_cache_alloc_bulk(): the recorder,
 * while it records, takes each object as a kmem_cache_alloc event.
 */
static __always_inline void kmemtrace_alloc_bulk(struct kmem_cache *s,
						 gfp_t flags, size_t nr,
						 void **p,
						 unsigned long call_site)
{
	if (static_branch_unlikely(&kmemtrace_hook_key))
		__kmemtrace_alloc_bulk(s, flags, nr, p, call_site);
}

/**
 * kmemtrace_free_bulk - record the objects of a bulk free
 * @s: their cache, or NULL for kfree_bulk()
 * @nr: how many entries @p has (NULL entries are skipped)
 * @p: the objects, before they are freed
 * @call_site: the caller of kmem_cache_free_bulk() or kfree_bulk()
 *
 * No kmem tracepoint fires for kmem_cache_free_bulk() and kfree_bulk(),
 * through which kfree_rcu() and the maple tree free: each object is
 * recorded as a kmem_cache_free event, or a kfree one without a cache.
 */
static __always_inline void kmemtrace_free_bulk(struct kmem_cache *s,
						size_t nr, void **p,
						unsigned long call_site)
{
	if (static_branch_unlikely(&kmemtrace_hook_key))
		__kmemtrace_free_bulk(s, nr, p, call_site);
}

/**
 * kmemtrace_alloc_pages_bulk - record a page of a bulk page allocation
 * @page: the order-0 page alloc_pages_bulk() took from a per-CPU list
 * @gfp: the allocation's GFP flags
 * @migratetype: the list's migrate type
 *
 * alloc_pages_bulk(), through which vmalloc() and the kernel stacks get
 * their pages, fires no mm_page_alloc for the pages of its fast path:
 * the recorder, while it records, takes each as an mm_page_alloc event.
 */
static __always_inline void kmemtrace_alloc_pages_bulk(struct page *page,
						       gfp_t gfp,
						       int migratetype)
{
	if (static_branch_unlikely(&kmemtrace_hook_key))
		__kmemtrace_alloc_pages_bulk(page, gfp, migratetype);
}

/**
 * kmemtrace_early_page_alloc - keep a page allocated before the recorder
 * @page: the page, or NULL for a failed allocation
 * @order: its order
 * @gfp: the allocation's GFP flags
 * @migratetype: its migrate type
 *
 * From mem_init() until kmemtrace_init() registers the page probes, the
 * page allocator works but no tracepoint probe can see it (registering
 * one allocates): mem_init() allocates the vmalloc area's page tables,
 * kmem_cache_init() the boot caches' slabs.  The page allocator hands
 * those pages to the recorder here; kmemtrace_init() turns the key off
 * for good.
 */
static __always_inline void kmemtrace_early_page_alloc(struct page *page,
						       unsigned int order,
						       gfp_t gfp,
						       int migratetype)
{
	if (static_branch_unlikely(&kmemtrace_early_key))
		__kmemtrace_early_page(page, order, gfp, migratetype, false);
}

/**
 * kmemtrace_early_page_free - keep a page freed before the recorder
 * @page: the page
 * @order: its order
 */
static __always_inline void kmemtrace_early_page_free(struct page *page,
						      unsigned int order)
{
	if (static_branch_unlikely(&kmemtrace_early_key))
		__kmemtrace_early_page(page, order, 0, 0, true);
}

/**
 * kmemtrace_vmalloc - record a new vmalloc area
 * @addr: its address
 * @nr_pages: the pages allocated for it
 * @caller: the caller vmalloc() was given (the caller of vmalloc(),
 *          kvmalloc() ...), as in /proc/vmallocinfo
 *
 * The area's pages are recorded as the page allocator hands them out;
 * this names who asked for them.
 */
static __always_inline void kmemtrace_vmalloc(const void *addr,
					      unsigned int nr_pages,
					      const void *caller)
{
	if (static_branch_unlikely(&kmemtrace_hook_key))
		__kmemtrace_vmalloc(KMT_VM_ALLOC, addr, nr_pages,
				    (unsigned long)caller);
}

/**
 * kmemtrace_vfree - record that vfree() releases a vmalloc area
 * @addr: its address
 * @nr_pages: the pages it held
 * @caller: the caller of vfree()
 */
static __always_inline void kmemtrace_vfree(const void *addr,
					    unsigned int nr_pages,
					    unsigned long caller)
{
	if (static_branch_unlikely(&kmemtrace_hook_key))
		__kmemtrace_vmalloc(KMT_VM_FREE, addr, nr_pages, caller);
}

DECLARE_STATIC_KEY_FALSE(kmemtrace_wrap_key);
void __kmemtrace_wrapper_enter(unsigned long ret, unsigned long in);
void __kmemtrace_wrapper_exit(void);

static __always_inline bool kmemtrace_wrapper_enter(unsigned long ret,
						    unsigned long in)
{
	if (!static_branch_unlikely(&kmemtrace_wrap_key))
		return false;
	__kmemtrace_wrapper_enter(ret, in);
	return true;
}

/* Its return address and an address in it: the wrapper's own. */
DEFINE_CLASS(kmemtrace_wrapper, bool, if (_T) __kmemtrace_wrapper_exit(),
	     kmemtrace_wrapper_enter(ret, in), unsigned long ret,
	     unsigned long in)

/**
 * kmemtrace_wrapper - keep this function's caller for the allocations in it
 *
 * For a built-in allocation wrapper listed in mm/kmemtrace/wrappers.c
 * that does not pass its caller's address down (an allocation in it has
 * the wrapper as its call site): the first statement after its
 * declarations.  While the recorder's kmem probes are attached, it keeps
 * the wrapper's return address until the wrapper returns, so that the
 * recorder names the wrapper's caller without unwinding the stack.  Not for a wrapper that
 * ends in a tail call (it leaves no frame), nor for one that passes its
 * caller down (its entry would hide its caller's).  Any context.
 */
#define kmemtrace_wrapper()						\
	CLASS(kmemtrace_wrapper, __UNIQUE_ID(kmemtrace))(_RET_IP_, _THIS_IP_)
#else
static inline void kmemtrace_init(void) { }
static inline void kmemtrace_early_pages(void) { }
static inline void kmemtrace_early_page_alloc(struct page *page,
					      unsigned int order, gfp_t gfp,
					      int migratetype) { }
static inline void kmemtrace_early_page_free(struct page *page,
					     unsigned int order) { }
static inline void kmemtrace_cache_create(struct kmem_cache *s) { }
static inline void kmemtrace_memblock(enum kmt_memblock_op op,
				      phys_addr_t base, phys_addr_t size,
				      int nid, unsigned int flags,
				      unsigned long caller, const char *what) { }
static inline void kmemtrace_alloc_bulk(struct kmem_cache *s, gfp_t flags,
					size_t nr, void **p,
					unsigned long call_site) { }
static inline void kmemtrace_free_bulk(struct kmem_cache *s, size_t nr,
				       void **p, unsigned long call_site) { }
static inline void kmemtrace_alloc_pages_bulk(struct page *page, gfp_t gfp,
					      int migratetype) { }
static inline void kmemtrace_vmalloc(const void *addr,
				     unsigned int nr_pages,
				     const void *caller) { }
static inline void kmemtrace_vfree(const void *addr, unsigned int nr_pages,
				   unsigned long caller) { }
static inline void kmemtrace_oom(struct task_struct *victim, int order,
				 gfp_t gfp, bool memcg) { }
static inline void kmemtrace_alloc_failed(enum kmt_trigger trig, gfp_t gfp,
					  unsigned int order,
					  struct kmem_cache *s) { }
#define kmemtrace_wrapper()	do { } while (0)
#endif

#endif /* _LINUX_KMEMTRACE_H */

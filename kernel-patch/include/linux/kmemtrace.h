/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_KMEMTRACE_H
#define _LINUX_KMEMTRACE_H

#include <linux/gfp_types.h>
#include <linux/jump_label.h>
#include <linux/types.h>
#include <uapi/linux/kmemtrace.h>

struct kmem_cache;
struct page;

#ifdef CONFIG_KMEMTRACE
void __init kmemtrace_init(void);
void kmemtrace_cache_create(struct kmem_cache *s);
void kmemtrace_memblock(enum kmt_memblock_op op, phys_addr_t base,
			phys_addr_t size, int nid, unsigned int flags,
			unsigned long caller, const char *what);

DECLARE_STATIC_KEY_FALSE(kmemtrace_bulk_key);
void __kmemtrace_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t nr,
			    void **p, unsigned long call_site);
void __kmemtrace_free_bulk(struct kmem_cache *s, size_t nr, void **p,
			   unsigned long call_site);
void __kmemtrace_alloc_pages_bulk(struct page *page, gfp_t gfp,
				  int migratetype);

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
	if (static_branch_unlikely(&kmemtrace_bulk_key))
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
	if (static_branch_unlikely(&kmemtrace_bulk_key))
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
	if (static_branch_unlikely(&kmemtrace_bulk_key))
		__kmemtrace_alloc_pages_bulk(page, gfp, migratetype);
}
#else
static inline void kmemtrace_init(void) { }
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
#endif

#endif /* _LINUX_KMEMTRACE_H */

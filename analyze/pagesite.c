// SPDX-License-Identifier: GPL-2.0
/*
 * The caller of a page allocation: the page tracepoints carry none, so
 * the recorder keeps a few return addresses (kmemtrace.page_stack=N) and
 * this picks the first one outside the page allocator.  Linux 6.12's
 * allocator entry points end in _noprof (memory allocation profiling
 * wraps them in macros), which a match on "alloc_pages" alone misses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slab.h"

/* Frames that belong to the page allocator (or to the way into it). */
static const char *const internal_exact[] = {
	"__alloc_pages_noprof", "__alloc_pages_slowpath", "get_page_from_freelist",
	"alloc_pages_mpol_noprof", "alloc_pages_noprof", "alloc_pages_bulk_noprof",
	"alloc_pages_bulk_array_mempolicy_noprof", "alloc_pages_preferred_many",
	"folio_alloc_noprof", "__folio_alloc_noprof", "folio_alloc_mpol_noprof",
	"vma_alloc_folio_noprof", "alloc_pages_exact_noprof",
	"alloc_pages_exact_nid_noprof", "__get_free_pages_noprof",
	"get_zeroed_page_noprof", "__alloc_pages_direct_compact",
	"__alloc_pages_direct_reclaim", "__alloc_pages_may_oom",
	"___kmalloc_large_node", "__kmalloc_large_node_noprof",
	"__kmalloc_large_noprof", "alloc_slab_page", "allocate_slab",
	"rmqueue", "rmqueue_bulk", "prep_new_page", "post_alloc_hook",
	/* the way into direct reclaim and compaction (latency events) */
	"try_to_free_pages", "__perform_reclaim", "try_to_compact_pages",
};

/* ... and any frame whose name starts so (tracing, other _noprof paths). */
static const char *const internal_prefix[] = {
	"__traceiter_", "trace_mm_page_alloc", "__alloc_pages", "alloc_pages",
	"__get_free_pages", "get_free_pages", "get_zeroed_page", "__folio_alloc",
	"__kmalloc",	/* a large kmalloc: its caller is the caller */
	"__alloc_frozen_pages", "alloc_frozen_pages",	/* 6.15 and later */
	"kmt_probe_", "kmt_record_", "__kmemtrace_",	/* the recorder's own frames */
};

void kmt_page_internal_names(const char *const **exact, size_t *nr_exact,
			     const char *const **prefix, size_t *nr_prefix)
{
	*exact = internal_exact;
	*nr_exact = sizeof(internal_exact) / sizeof(internal_exact[0]);
	*prefix = internal_prefix;
	*nr_prefix = sizeof(internal_prefix) / sizeof(internal_prefix[0]);
}

static bool name_internal(const char *name, size_t len)
{
	const char *dot = memchr(name, '.', len);
	size_t i, l;

	/* foo.constprop.0, foo.isra.0, foo.part.0: foo */
	if (dot)
		len = (size_t)(dot - name);
	for (i = 0; i < sizeof(internal_exact) / sizeof(internal_exact[0]); i++) {
		l = strlen(internal_exact[i]);
		if (l == len && !memcmp(name, internal_exact[i], len))
			return true;
	}
	for (i = 0; i < sizeof(internal_prefix) / sizeof(internal_prefix[0]); i++) {
		l = strlen(internal_prefix[i]);
		if (l <= len && !memcmp(name, internal_prefix[i], l))
			return true;
	}
	return false;
}

bool kmt_page_frame_internal(const char *name, size_t len)
{
	return name_internal(name, len);
}

/*
 * The caller of the page allocation whose return addresses are @stack:
 * the first frame whose symbol is not the allocator's, or 0 when every
 * frame is (a stack too short) or there is none.  @cache remembers each
 * address's answer (1 internal, 2 not).
 */
static bool in_wrapper(uint64_t addr, const struct kmt_wrapper_row *w, size_t nw)
{
	size_t i;

	for (i = 0; i < nw; i++)
		if (addr - w[i].start < w[i].size)
			return true;
	return false;
}

uint64_t kmt_page_site(const struct kmt_trace *t, const struct kmt_symtab *st,
		       struct kmt_hm *cache, const uint8_t *stack, size_t len,
		       const struct kmt_wrapper_row *w, size_t nw)
{
	const uint8_t *p = stack, *end = stack + len;
	struct kmt_hm_slot *slot;
	uint64_t v, addr;
	unsigned int n;
	int created;

	while (p < end) {
		n = kmt_get_uvar(p, end, &v);
		if (!n)
			return 0;
		p += n;
		addr = t->fmt.text_base + (uint64_t)kmt_unzigzag(v);
		slot = kmt_hm_get(cache, addr, &created);
		if (!slot)
			return addr;	/* no memory to remember: take it */
		if (created) {
			const struct kmt_sym *s = st ?
				kmt_symtab_find(st, addr - (uint64_t)st->slide) : NULL;

			slot->val = (s && name_internal(s->name, s->name_len)) ||
				    in_wrapper(addr, w, nw) ? 1 : 2;
		}
		if (slot->val == 2)
			return addr;
	}
	return 0;
}

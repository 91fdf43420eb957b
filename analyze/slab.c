// SPDX-License-Identifier: GPL-2.0
/*
 * Slab allocator statistics in one pass over the time-ordered events:
 * per-callsite totals, ping-pong (freed on another CPU than allocated),
 * cross-node allocations and the SUMMARY totals.  Memory is bounded by
 * live objects and callsites, not by the number of events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slab.h"

/* Live object: callsite index 20 bits | cpu 12 bits | bytes_alloc 32 bits */
#define LIVE_IDX_BITS	20
#define LIVE_CPU_BITS	12
#define LOOKAHEAD	16
#define LIVE_TS_MASK	((1ULL << 48) - 1)

static const char *const key_names[KMT_SK_NR] = {
	[KMT_SK_FRAG] = "frag",
	[KMT_SK_HIT] = "hit",
	[KMT_SK_BYTES] = "bytes",
	[KMT_SK_CALLSITE] = "callsite",
	[KMT_SK_PINGPONG] = "pingpong",
	[KMT_SK_PTR] = "ptr",
};

double kmt_frag(uint64_t req, uint64_t alloc)
{
	if (!alloc)
		return 0.0;
	return 100.0 - 100.0 * (double)req / (double)alloc;
}

/* The row of @addr in a table of rows (callsites, or object addresses). */
static int row_index(struct kmt_caller **rows, size_t *nr, size_t max,
		     struct kmt_hm *idx, uint64_t addr, uint32_t *out)
{
	struct kmt_hm_slot *slot;
	int created;

	slot = kmt_hm_get(idx, addr ? addr : 1, &created);
	if (!slot)
		return -ENOMEM;
	if (created) {
		struct kmt_caller *n;

		if (*nr >= max)
			return -E2BIG;
		if (!(*nr & (*nr + 1))) {
			n = realloc(*rows, (*nr * 2 + 1) * sizeof(*n));
			if (!n)
				return -ENOMEM;
			*rows = n;
		}
		memset(&(*rows)[*nr], 0, sizeof(**rows));
		(*rows)[*nr].call_site = addr;
		slot->val = (*nr)++;
	}
	*out = (uint32_t)slot->val;
	return 0;
}

static int caller_index(struct kmt_slab *s, struct kmt_hm *idx,
			uint64_t call_site, uint32_t *out)
{
	/* a known callsite, the common case: a lookup, nothing to create */
	const struct kmt_hm_slot *slot = kmt_hm_find(idx, call_site ? call_site : 1);

	struct kmt_sampler *sp = s->sampler;
	size_t j;
	int ret;

	if (slot) {
		*out = (uint32_t)slot->val;
		return 0;
	}
	ret = row_index(&s->callers, &s->nr_callers, 1u << LIVE_IDX_BITS,
			idx, call_site, out);
	/* a new row: the sampler may follow its callsite */
	for (j = 0; !ret && sp && j < sp->nr_watch; j++)
		if (!sp->page[j] && sp->site[j] == call_site)
			sp->row[j] = *out + 1;
	return ret;
}

/*
 * What the pass looks up for every allocation, indexed in advance: the
 * caches by id and each CPU's node, instead of a search per event.
 */
/* The kernel's kmalloc sizes (mm/slab_common.c's kmalloc_info[]) */
#define KMALLOC_SIZES	21
/* and its types of kmalloc caches, in the order their flags are tried */
enum { KM_NORMAL, KM_DMA, KM_RCL, KM_CG, KM_TYPES };

struct lookup {
	const struct kmt_cache **cache;	/* by id, NULL where undefined */
	uint32_t nr_cache;
	int *cpu_node;			/* by CPU number, -1 if unknown */
	uint32_t nr_cpu;
	/* the kmalloc caches the trace defines, by type and size; 0: none */
	uint32_t kmalloc[KM_TYPES][KMALLOC_SIZES];
	uint64_t gfp_dma, gfp_rcl, gfp_account;
};

static const uint32_t kmalloc_sizes[KMALLOC_SIZES] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1 << 10, 2 << 10, 4 << 10,
	8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10,
	512 << 10, 1 << 20, 2 << 20,
};

/* The index of @n in kmalloc_sizes[], -1 if none: once per kmalloc. */
static inline int kmalloc_index(uint64_t n)
{
	int log;

	if (n == 96 || n == 192)
		return n == 96 ? 4 : 6;
	if (n < 8 || n > kmalloc_sizes[KMALLOC_SIZES - 1] || (n & (n - 1)))
		return -1;
	log = __builtin_ctzll(n);
	/* 8 .. 64, then 128 past 96, then 256 .. past 192 */
	return log <= 6 ? log - 3 : log == 7 ? 5 : log - 1;
}

/* lk->kmalloc[][] from the caches the trace defines, by their names */
static void lookup_kmalloc(struct lookup *lk, const struct kmt_trace *t)
{
	static const char *const prefix[KM_TYPES] = {
		"kmalloc-", "dma-kmalloc-", "kmalloc-rcl-", "kmalloc-cg-",
	};
	const struct kmt_cache *c;
	char name[64], sz[32];
	unsigned int ty, i;

	for (ty = 0; ty < KM_TYPES; ty++)
		for (i = 0; i < KMALLOC_SIZES; i++) {
			kmt_kmalloc_size_name(kmalloc_sizes[i], sz, sizeof(sz));
			snprintf(name, sizeof(name), "%s%s", prefix[ty], sz);
			c = kmt_trace_cache_named(t, name);
			/* id 0 is no cache: kmalloc by size, as without one */
			lk->kmalloc[ty][i] = c && c->size == kmalloc_sizes[i] ? c->id : 0;
		}
	/*
	 * The bits as the trace's GFP table names them; without a table
	 * (an older recorder, an import), 6.12's: these are below the bits
	 * whose places depend on the configuration (gfp_types.h).
	 */
	lk->gfp_dma = kmt_trace_gfp_mask(t, "__GFP_DMA") ?: 0x01;
	lk->gfp_rcl = kmt_trace_gfp_mask(t, "__GFP_RECLAIMABLE") ?: 0x10;
	lk->gfp_account = kmt_trace_gfp_mask(t, "__GFP_ACCOUNT") ?: 0x400000;
}

/*
 * The cache a kmalloc() of @alloc bytes with @gfp took its object from,
 * as 6.12's kmalloc_type() picks it: no DMA, reclaimable or accounted
 * flag, the normal cache; else DMA's, the reclaimable one's, the
 * accounted one's, each where the trace defines it, else the normal one
 * (a kernel without ZONE_DMA, SLUB_TINY's, memcg's kmem off).  0: none
 * (a large kmalloc, from the page allocator, or a trace without the
 * caches).  With CONFIG_RANDOM_KMALLOC_CACHES the normal cache is one of
 * 16 the trace cannot tell apart: kmalloc-N stands for them.
 */
static __attribute__((noinline)) uint32_t
kmalloc_cache(const struct lookup *lk, uint64_t alloc, uint64_t gfp)
{
	int i = kmalloc_index(alloc);

	if (i < 0)
		return 0;
	if ((gfp & lk->gfp_dma) && lk->kmalloc[KM_DMA][i])
		return lk->kmalloc[KM_DMA][i];
	if (gfp & lk->gfp_rcl)
		return lk->kmalloc[KM_RCL][i] ?: lk->kmalloc[KM_NORMAL][i];
	if ((gfp & lk->gfp_account) && lk->kmalloc[KM_CG][i])
		return lk->kmalloc[KM_CG][i];
	return lk->kmalloc[KM_NORMAL][i];
}

/* Cache ids are small sequence numbers; past this, search instead. */
#define LOOKUP_MAX_CACHE_ID	(1u << 20)

static int lookup_init(struct lookup *lk, const struct kmt_trace *t)
{
	unsigned int i;

	memset(lk, 0, sizeof(*lk));
	for (i = 0; i < t->nr_caches; i++)
		if (t->caches[i].id < LOOKUP_MAX_CACHE_ID &&
		    t->caches[i].id >= lk->nr_cache)
			lk->nr_cache = t->caches[i].id + 1;
	for (i = 0; i < t->nr_cpus; i++)
		if (t->cpus[i].cpu < 4096 && t->cpus[i].cpu >= lk->nr_cpu)
			lk->nr_cpu = t->cpus[i].cpu + 1;
	lk->cache = calloc(lk->nr_cache ? lk->nr_cache : 1, sizeof(*lk->cache));
	lk->cpu_node = malloc((lk->nr_cpu ? lk->nr_cpu : 1) * sizeof(*lk->cpu_node));
	if (!lk->cache || !lk->cpu_node)
		return -ENOMEM;
	for (i = 0; i < t->nr_caches; i++)
		if (t->caches[i].id < lk->nr_cache)
			lk->cache[t->caches[i].id] = &t->caches[i];
	for (i = 0; i < lk->nr_cpu; i++)
		lk->cpu_node[i] = -1;
	for (i = 0; i < t->nr_cpus; i++)
		if (t->cpus[i].cpu < lk->nr_cpu)
			lk->cpu_node[t->cpus[i].cpu] = t->cpus[i].node;
	lookup_kmalloc(lk, t);
	return 0;
}

static void lookup_free(struct lookup *lk)
{
	free(lk->cache);
	free(lk->cpu_node);
}

static const struct kmt_cache *lookup_cache(const struct lookup *lk,
					    const struct kmt_trace *t, uint32_t id)
{
	return id < lk->nr_cache ? lk->cache[id] : kmt_trace_cache(t, id);
}

static int cpu_node(const struct lookup *lk, uint32_t cpu)
{
	return cpu < lk->nr_cpu ? lk->cpu_node[cpu] : -1;
}

/* An event's place in the table of last objects per CPU and context. */
static size_t last_slot(const struct kmt_event *ev, size_t nr_last)
{
	size_t cpu = ev->cpu < nr_last ? ev->cpu : ev->cpu % nr_last;

	return cpu * 4 + (ev->ctx & 3);
}

/* FNV-1a over @len bytes, from @h */
static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

/* The row of @key in s->stack_rows, made if new: its index, or -ENOMEM. */
static int64_t stack_row(struct kmt_slab *s, const struct kmt_stack_row *key)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct kmt_hm_slot *slot;
	struct kmt_stack_row *r;
	uint32_t i;
	int created;

	h = fnv(h, &key->page, sizeof(key->page));
	h = fnv(h, &key->site, sizeof(key->site));
	h = fnv(h, &key->via, sizeof(key->via));
	h = fnv(h, &key->cache, sizeof(key->cache));
	h = fnv(h, &key->size, sizeof(key->size));
	h = fnv(h, key->stack, key->stack_len);
	slot = kmt_hm_get(s->stack_idx, h ? h : 1, &created);
	if (!slot)
		return -ENOMEM;
	for (i = created ? UINT32_MAX : (uint32_t)slot->val - 1; i != UINT32_MAX;
	     i = s->stack_rows[i].next) {
		r = &s->stack_rows[i];
		if (r->page == key->page && r->site == key->site &&
		    r->via == key->via && r->cache == key->cache &&
		    r->size == key->size && r->stack_len == key->stack_len &&
		    (!key->stack_len || !memcmp(r->stack, key->stack, key->stack_len)))
			return i;
	}
	if (s->nr_stack_rows >= (1u << 24) - 1)
		return -E2BIG;	/* the live tables keep 24 bits of it */
	if (s->nr_stack_rows == s->stack_cap) {
		size_t cap = s->stack_cap ? s->stack_cap * 2 : 256;
		struct kmt_stack_row *n = realloc(s->stack_rows, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->stack_rows = n;
		s->stack_cap = cap;
	}
	r = &s->stack_rows[s->nr_stack_rows];
	*r = *key;
	r->held = r->held_objs = r->held_buffer = r->alloc = r->hit = 0;
	r->next = created ? UINT32_MAX : (uint32_t)slot->val - 1;
	slot->val = s->nr_stack_rows + 1;
	return (int64_t)s->nr_stack_rows++;
}

/* What the row of who made attribution @attr holds, by @delta bytes. */
static void held_by(struct kmt_slab *s, uint32_t attr, int64_t delta)
{
	if (attr < s->nr_attrs && s->attrs[attr].who < s->who_cap)
		s->who_held[s->attrs[attr].who] += (uint64_t)delta;
}

static int on_alloc(const struct kmt_trace *t, const struct lookup *lk,
		    struct kmt_slab *s, struct kmt_hm *callers, struct kmt_hm *live,
		    struct kmt_hm *ptrs, const uint64_t *last, size_t nr_last,
		    const struct kmt_event *ev, struct kmt_err *err)
{
	uint64_t req = ev->bytes_req, alloc = ev->bytes_alloc, val, val2;
	struct kmt_hm_slot *slot;
	uint32_t idx, pidx = 0;
	int created, ret, n1, n2;
	bool repeated = false;
	int64_t row = -1;

	uint32_t cache = ev->type == KMT_EV_CACHE_ALLOC ? ev->cache :
			 kmalloc_cache(lk, alloc, ev->gfp);

	if (ev->type == KMT_EV_CACHE_ALLOC) {
		const struct kmt_cache *c = lookup_cache(lk, t, ev->cache);

		if (!c) {
			s->nr_unknown_cache++;
			req = alloc = 0;
		} else {
			req = c->object_size;
			alloc = c->size;
		}
	}
	if (!ev->ptr) {
		/* nothing was allocated: not a hit, no bytes */
		s->nr_failed++;
		return 0;
	}
	ret = caller_index(s, callers, ev->call_site, &idx);
	if (ret)
		return kmt_errf(err, -ret, ret == -E2BIG ?
				"more than 1M distinct callsites" : "out of memory");
	s->callers[idx].bytes_alloc += alloc;
	s->callers[idx].bytes_req += req;
	s->callers[idx].hit++;
	if (s->by_ptr) {
		ret = row_index(&s->ptrs, &s->nr_ptrs, UINT32_MAX, ptrs, ev->ptr,
				&pidx);
		if (ret)
			return kmt_errf(err, -ret, "out of memory");
		s->ptrs[pidx].bytes_alloc += alloc;
		s->ptrs[pidx].bytes_req += req;
		s->ptrs[pidx].hit++;
	}
	s->total_alloc += alloc;
	s->total_req += req;
	s->nr_allocs++;
	if (s->stacks) {
		struct kmt_stack_row key = {
			.site = ev->call_site,
			.via = (ev->has & KMT_HAS_VIA) ? ev->via : 0,
			.cache = cache,
			.size = cache ? 0 :
				alloc > UINT32_MAX ? UINT32_MAX : (uint32_t)alloc,
		};

		/* through wrappers: their return addresses, innermost first */
		if ((ev->has & KMT_HAS_VIA) && (ev->has & KMT_HAS(KMT_F_STACK))) {
			key.stack = ev->stack;
			key.stack_len = ev->stack_len;
		}

		row = stack_row(s, &key);
		if (row < 0)
			return kmt_errf(err, (int)-row, row == -E2BIG ?
					"more than 16M distinct stacks" : "out of memory");
		s->stack_rows[row].alloc += alloc;
		s->stack_rows[row].hit++;
	}
	n1 = cpu_node(lk, ev->cpu);
	n2 = kmt_trace_pfn_node(t, (ev->ptr - t->fmt.direct_map_base) >>
				   t->fmt.page_shift);
	if (n1 >= 0 && n2 >= 0) {
		s->nr_node_known++;
		if (n1 != n2)
			s->nr_cross_node++;
	}
	/* callsite row | CPU | bytes_alloc; time 48 bits | cache id 16 bits */
	val = (uint64_t)idx |
	      (uint64_t)(ev->cpu & ((1u << LIVE_CPU_BITS) - 1)) << LIVE_IDX_BITS |
	      (alloc > UINT32_MAX ? (uint64_t)UINT32_MAX : alloc) << 32;
	val2 = (ev->ts & LIVE_TS_MASK) |
	       (uint64_t)(cache < 0xffff ? cache : 0xffff) << 48;
	slot = kmt_hm_get(live, ev->ptr, &created);
	if (!slot)
		return kmt_errf(err, ENOMEM, "out of memory");
	if (!created && slot->val == val && slot->val2 == val2) {
		/*
		 * The live allocation of this object again, the same in
		 * time, CPU, callsite, size and cache: one event written
		 * twice.  perf record does that at times (it reads a ring
		 * buffer's head twice and copies what came in between
		 * again); perf kmem stat counts both, and so does this.
		 */
		s->nr_repeated++;
		repeated = true;
	} else if (!created && ev->type == KMT_EV_KMALLOC && last &&
		   alloc > (2ULL << t->fmt.page_shift) &&
		   (slot->val & ((1u << LIVE_IDX_BITS) - 1)) != idx &&
		   last[last_slot(ev, nr_last)] == ev->ptr &&
		   slot->val >> 32 == alloc &&
		   ((slot->val >> LIVE_IDX_BITS) & ((1u << LIVE_CPU_BITS) - 1)) ==
		   (ev->cpu & ((1u << LIVE_CPU_BITS) - 1))) {
		/*
		 * 6.12 traces a large kmalloc (above two pages: four pages
		 * or more) twice, back to back: inside
		 * __kmalloc_large_node_noprof(), from the allocator's own
		 * code, then for the real caller.  Keep the second: take
		 * the first one's counts back.
		 */
		uint32_t prev = slot->val & ((1u << LIVE_IDX_BITS) - 1);

		s->callers[prev].bytes_alloc -= alloc;
		s->callers[prev].bytes_req -= req;
		s->callers[prev].hit--;
		if (s->by_ptr) {
			s->ptrs[pidx].bytes_alloc -= alloc;
			s->ptrs[pidx].bytes_req -= req;
			s->ptrs[pidx].hit--;
		}
		s->total_alloc -= alloc;
		s->total_req -= req;
		s->nr_allocs--;
		if (n1 >= 0 && n2 >= 0) {	/* same object, same CPU: same */
			s->nr_node_known--;
			s->nr_cross_node -= n1 != n2;
		}
		s->nr_double_traced++;
		if (s->stacks && slot->val3 >> 32) {
			struct kmt_stack_row *r = &s->stack_rows[(slot->val3 >> 32) - 1];

			r->alloc -= alloc;
			r->hit--;
		}
		s->callers[prev].held -= slot->val >> 32;
		s->held.slab -= slot->val >> 32;
		held_by(s, (uint32_t)slot->val3, -(int64_t)(slot->val >> 32));
	} else if (!created) {
		s->nr_untraced_frees++;
		s->untraced_free_bytes += slot->val >> 32;
		s->callers[slot->val & ((1u << LIVE_IDX_BITS) - 1)].held -= slot->val >> 32;
		s->held.slab -= slot->val >> 32;
		held_by(s, (uint32_t)slot->val3, -(int64_t)(slot->val >> 32));
	}
	/* what the object holds, as the live table keeps it */
	if (!repeated) {
		s->callers[idx].held += val >> 32;
		s->held.slab += val >> 32;
		held_by(s, s->cur_attr, (int64_t)(val >> 32));
	}
	slot->val = val;
	slot->val2 = val2;
	/*
	 * The boot phase segment (by order of events, as times can tie) and
	 * who made it, as one attribution, and the object address's row.
	 */
	slot->val3 = s->cur_attr | (uint64_t)(s->stacks ? (uint32_t)(row + 1) : pidx) << 32;
	return 0;
}

/* Bucket b: below 10^(b+3) ns, the last one the rest; no branches. */
static void lifetime(struct kmt_slab *s, uint64_t ns)
{
	unsigned int b = (ns >= 1000ULL) + (ns >= 10000ULL) + (ns >= 100000ULL) +
			 (ns >= 1000000ULL) + (ns >= 10000000ULL) +
			 (ns >= 100000000ULL) + (ns >= 1000000000ULL) +
			 (ns >= 10000000000ULL);

	s->lifetime[b]++;
}

/*
 * Per CPU: the last free of a live object, what it freed and the rows
 * it counted in, to know that free again if the trace holds it twice.
 */
struct last_free {
	uint64_t ptr, ts, call_site;
	uint64_t bytes;		/* the object's bytes_alloc */
	uint32_t idx, pidx;	/* its callsite row, its address row */
	uint8_t type;
};

/* The same free as @f: the same event, written twice. */
static bool free_repeats(const struct last_free *f, const struct kmt_event *ev)
{
	return f->ptr == ev->ptr && f->ts == ev->ts &&
	       f->call_site == ev->call_site && f->type == ev->type;
}

static void on_free(struct kmt_slab *s, struct kmt_hm *live,
		    struct last_free *frees, size_t nr_frees,
		    const struct kmt_event *ev)
{
	struct last_free *f = &frees[ev->cpu < nr_frees ? ev->cpu :
				     ev->cpu % nr_frees];
	struct kmt_hm_slot *slot;
	uint32_t idx, cpu;

	if (!ev->ptr)
		return;		/* kfree(NULL) */
	s->nr_frees++;
	slot = kmt_hm_find(live, ev->ptr);
	if (!slot && free_repeats(f, ev)) {
		/*
		 * The last free on this CPU again, same time, object and
		 * callsite: one event written twice (see on_alloc()).  perf
		 * kmem stat counts it as it counts any free of an object
		 * no longer allocated: the bytes of the object's last
		 * allocation are freed again, and as it marks a freed
		 * object's CPU as none, the free is a ping-pong of that
		 * allocation's rows.  So does this; it is no cross-CPU
		 * free (nr_cross_cpu).
		 */
		s->nr_repeated_frees++;
		s->total_freed += f->bytes;
		s->callers[f->idx].pingpong++;
		if (s->by_ptr)
			s->ptrs[f->pidx].pingpong++;
		return;
	}
	if (!slot) {
		s->nr_unknown_frees++;
		return;
	}
	idx = slot->val & ((1u << LIVE_IDX_BITS) - 1);
	cpu = (slot->val >> LIVE_IDX_BITS) & ((1u << LIVE_CPU_BITS) - 1);
	s->total_freed += slot->val >> 32;
	s->callers[idx].held -= slot->val >> 32;
	s->held.slab -= slot->val >> 32;
	held_by(s, (uint32_t)slot->val3, -(int64_t)(slot->val >> 32));
	lifetime(s, (ev->ts & LIVE_TS_MASK) - (slot->val2 & LIVE_TS_MASK));
	if (cpu != (ev->cpu & ((1u << LIVE_CPU_BITS) - 1))) {
		s->callers[idx].pingpong++;
		if (s->by_ptr)
			s->ptrs[slot->val3 >> 32].pingpong++;
		s->nr_cross_cpu++;
	}
	f->ptr = ev->ptr;
	f->ts = ev->ts;
	f->call_site = ev->call_site;
	f->type = ev->type;
	f->bytes = slot->val >> 32;
	f->idx = idx;
	f->pidx = (uint32_t)(slot->val3 >> 32);
	kmt_hm_remove(live, slot);
}

struct page_ctx {
	const struct kmt_symtab *sym;
	struct kmt_hm frames;	/* return address -> internal or not */
	struct kmt_hm sites;	/* site -> first row + 1 */
	struct kmt_hm pfns;	/* page frame -> first row + 1 (by_ptr) */
};

/* Add a page allocation to the row of (@key, order, migrate type, gfp). */
static int page_row(struct kmt_page_caller **rows, size_t *nr, struct kmt_hm *keys,
		    uint64_t key, const struct kmt_event *ev, uint64_t bytes)
{
	struct kmt_hm_slot *slot;
	struct kmt_page_caller *r;
	uint32_t i, prev = UINT32_MAX;	/* an index: realloc moves rows */
	int created;

	slot = kmt_hm_get(keys, key ? key : 1, &created);
	if (!slot)
		return -ENOMEM;
	for (i = slot->val ? (uint32_t)slot->val - 1 : UINT32_MAX; i != UINT32_MAX;
	     i = (*rows)[i].next) {
		r = &(*rows)[i];
		if (r->order == ev->order && r->migratetype == ev->migratetype &&
		    r->gfp == ev->gfp)
			goto found;
		prev = i;
	}
	if (!(*nr & (*nr + 1))) {
		r = realloc(*rows, (*nr * 2 + 1) * sizeof(*r));
		if (!r)
			return -ENOMEM;
		*rows = r;
	}
	i = (uint32_t)(*nr)++;
	r = &(*rows)[i];
	memset(r, 0, sizeof(*r));
	r->site = key;
	r->order = ev->order;
	r->migratetype = ev->migratetype;
	r->gfp = ev->gfp;
	r->next = UINT32_MAX;
	if (prev != UINT32_MAX)
		(*rows)[prev].next = i;
	else
		slot->val = i + 1;
found:
	r->bytes += bytes;
	r->hit++;
	return 0;
}

static int page_caller(const struct kmt_trace *t, struct kmt_slab *s,
		       struct page_ctx *pc, const struct kmt_event *ev,
		       uint64_t bytes, uint64_t *site_out)
{
	uint64_t site = 0;
	int ret;

	if ((ev->has & KMT_HAS(KMT_F_STACK)) && ev->stack_len) {
		s->pg_with_stack++;
		site = kmt_page_site(t, pc->sym, &pc->frames, ev->stack,
				     ev->stack_len, s->wrappers, s->nr_wrappers);
	}
	*site_out = site;
	ret = page_row(&s->pcallers, &s->nr_pcallers, &pc->sites, site, ev, bytes);
	/* with by_ptr, the same per page frame (perf kmem --page --alloc) */
	if (!ret && s->by_ptr)
		ret = page_row(&s->ppages, &s->nr_ppages, &pc->pfns, ev->pfn1 - 1,
			       ev, bytes);
	return ret;
}

/* A live page block that is no longer held: take it from what is held. */
static void page_released(const struct kmt_trace *t, struct kmt_slab *s,
			  const struct kmt_hm_slot *slot)
{
	uint64_t bytes = (1ULL << t->fmt.page_shift) <<
			 (slot->val < 63 ? slot->val : 63);
	uint32_t w = (uint32_t)(slot->val3 >> 32) & 0xff;

	s->held.pages -= bytes;
	held_by(s, (uint32_t)slot->val3, -(int64_t)bytes);
	if (w && s->sampler && w <= s->sampler->nr_watch)
		s->sampler->held[w - 1] -= bytes;
}

static int on_page_alloc(const struct kmt_trace *t, struct kmt_slab *s,
			 struct kmt_hm *pages, struct page_ctx *pc,
			 const struct kmt_event *ev, struct kmt_err *err)
{
	uint64_t bytes = (1ULL << t->fmt.page_shift) << (ev->order < 63 ? ev->order : 63);
	unsigned int order = ev->order < KMT_PG_ORDERS ? ev->order : KMT_PG_ORDERS - 1;
	unsigned int mt = ev->migratetype < 0 ? KMT_PG_MT_COLS - 1 :
			  ev->migratetype < KMT_PG_MT_COLS ? (unsigned int)ev->migratetype :
			  KMT_PG_MT_COLS - 1;
	struct kmt_hm_slot *slot;
	uint64_t site;
	int64_t row = -1;
	int created;

	s->pg_requests++;
	if (!ev->pfn1) {
		s->pg_fails++;
		return 0;
	}
	s->pg_bytes_alloc += bytes;
	s->pg_order_mt[order][mt]++;
	if (page_caller(t, s, pc, ev, bytes, &site))
		return kmt_errf(err, ENOMEM, "out of memory");
	if (s->stacks) {
		bool st = (ev->has & KMT_HAS(KMT_F_STACK)) && ev->stack_len;
		struct kmt_stack_row key = {
			.page = true, .size = ev->order,
			.stack = st ? ev->stack : NULL, .stack_len = st ? ev->stack_len : 0,
		};

		row = stack_row(s, &key);
		if (row < 0)
			return kmt_errf(err, (int)-row, row == -E2BIG ?
					"more than 16M distinct stacks" : "out of memory");
		s->stack_rows[row].alloc += bytes;
		s->stack_rows[row].hit++;
	}
	slot = kmt_hm_get(pages, ev->pfn1, &created);
	if (!slot)
		return kmt_errf(err, ENOMEM, "out of memory");
	if (!created)	/* allocated again: its free was not traced */
		page_released(t, s, slot);
	slot->val = ev->order;
	slot->val2 = site;	/* its caller, 0 if unknown */
	/*
	 * the phase and who (32 bits), the sampler's watch + 1 (8 bits),
	 * the stack row + 1 (24 bits)
	 */
	slot->val3 = s->cur_attr | (uint64_t)(uint32_t)(row + 1) << 40;
	s->held.pages += bytes;
	held_by(s, s->cur_attr, (int64_t)bytes);
	if (s->sampler) {
		struct kmt_sampler *sp = s->sampler;
		size_t j;

		for (j = 0; j < sp->nr_watch; j++)
			if (sp->page[j] && sp->site[j] == site) {
				sp->held[j] += bytes;
				slot->val3 |= (uint64_t)(j + 1) << 32;
				break;
			}
	}
	return 0;
}

static void on_page_free(const struct kmt_trace *t, struct kmt_slab *s,
			 struct kmt_hm *pages, const struct kmt_hm *bufpfns,
			 const struct kmt_event *ev)
{
	uint32_t order = ev->order;
	struct kmt_hm_slot *slot;

	/*
	 * 6.12's free_unref_folios() reports each page with mm_page_free
	 * (in free_pages_prepare()) and again with mm_page_free_batched:
	 * the second is not another free.
	 */
	if (ev->type == KMT_EV_PAGE_FREE_BATCHED) {
		s->pg_frees_batched++;
		return;
	}

	s->pg_frees++;
	s->pg_bytes_freed += (1ULL << t->fmt.page_shift) << (order < 63 ? order : 63);
	slot = ev->pfn1 ? kmt_hm_find(pages, ev->pfn1) : NULL;
	if (!slot) {
		s->pg_free_unmatched++;
		return;
	}
	page_released(t, s, slot);
	if (s->held.buf_pages && kmt_hm_find(bufpfns, ev->pfn1))
		s->held.buf_pages -= (1ULL << t->fmt.page_shift) <<
				     (slot->val < 63 ? slot->val : 63);
	kmt_hm_remove(pages, slot);
}

/* ---- vmalloc and wrappers -------------------------------------------- */

static int grow(void *arrp, size_t n, size_t elem);

static int on_vmalloc(const struct kmt_trace *t, struct kmt_slab *s,
		      struct kmt_hm *areas, const struct kmt_event *ev,
		      struct kmt_err *err)
{
	struct kmt_hm_slot *slot;
	int created;

	if (!(ev->has & KMT_HAS(KMT_F_VADDR)) || !ev->vaddr)
		return 0;
	if (ev->mb_op == KMT_VM_ALLOC) {
		s->vm_allocs++;
		slot = kmt_hm_get(areas, ev->vaddr, &created);
		if (!slot)
			return kmt_errf(err, ENOMEM, "out of memory");
		if (!created)
			s->held.vmalloc -= slot->val << t->fmt.page_shift;
		s->held.vmalloc += (uint64_t)ev->nr_pages << t->fmt.page_shift;
		slot->val = ev->nr_pages;
		slot->val2 = ev->call_site;
	} else if (ev->mb_op == KMT_VM_FREE) {
		s->vm_frees++;
		slot = kmt_hm_find(areas, ev->vaddr);
		if (slot) {
			s->held.vmalloc -= slot->val << t->fmt.page_shift;
			kmt_hm_remove(areas, slot);
		}
	}
	return 0;
}

/* A wrapper the recorder names; the same again at a restart. */
static int on_text_range(struct kmt_slab *s, const struct kmt_event *ev,
			 struct kmt_err *err)
{
	struct kmt_wrapper_row *w;
	size_t i;

	if (ev->kind != KMT_TEXT_WRAPPER || !(ev->has & KMT_HAS(KMT_F_FUNC)) ||
	    !(ev->has & KMT_HAS(KMT_F_LENGTH)))
		return 0;
	for (i = 0; i < s->nr_wrappers; i++)
		if (s->wrappers[i].start == ev->func)
			return 0;
	if (grow(&s->wrappers, s->nr_wrappers, sizeof(*s->wrappers)))
		return kmt_errf(err, ENOMEM, "out of memory");
	w = &s->wrappers[s->nr_wrappers++];
	memset(w, 0, sizeof(*w));
	w->start = ev->func;
	w->size = ev->length;
	if (ev->has & KMT_HAS(KMT_F_NAME)) {
		w->name = ev->name;
		w->name_len = ev->name_len;
	}
	return 0;
}

static void on_via(struct kmt_slab *s, uint64_t via)
{
	size_t i;

	s->nr_via++;
	for (i = 0; i < s->nr_wrappers; i++)
		if (via - s->wrappers[i].start < s->wrappers[i].size) {
			s->wrappers[i].hits++;
			return;
		}
}

static int cmp_live_vsite(const void *pa, const void *pb)
{
	const struct kmt_live_vsite *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->caller < b->caller ? -1 : a->caller > b->caller;
}

/* The vmalloc areas still held, by caller. */
static int vmalloc_tables(struct kmt_slab *s, const struct kmt_hm *areas,
			  uint32_t page_shift, struct kmt_err *err)
{
	struct kmt_hm by_caller;
	struct kmt_hm_slot *c;
	size_t i, n = 0;
	int created;

	if (kmt_hm_init(&by_caller, 64))
		return kmt_errf(err, ENOMEM, "out of memory");
	for (i = 0; i <= areas->mask; i++) {
		const struct kmt_hm_slot *a = &areas->s[i];
		uint64_t bytes = a->val << page_shift;

		if (!a->key)
			continue;
		s->vm_live_areas++;
		s->vm_live_bytes += bytes;
		c = kmt_hm_get(&by_caller, a->val2 ? a->val2 : 1, &created);
		if (!c) {
			kmt_hm_free(&by_caller);
			return kmt_errf(err, ENOMEM, "out of memory");
		}
		c->val++;
		c->val2 += bytes;
	}
	s->live_vsites = calloc(by_caller.nr ? by_caller.nr : 1,
				sizeof(*s->live_vsites));
	if (!s->live_vsites) {
		kmt_hm_free(&by_caller);
		return kmt_errf(err, ENOMEM, "out of memory");
	}
	for (i = 0; i <= by_caller.mask; i++) {
		c = &by_caller.s[i];
		if (!c->key)
			continue;
		s->live_vsites[n].caller = c->key == 1 ? 0 : c->key;
		s->live_vsites[n].areas = c->val;
		s->live_vsites[n].bytes = c->val2;
		n++;
	}
	s->nr_live_vsites = n;
	qsort(s->live_vsites, n, sizeof(*s->live_vsites), cmp_live_vsite);
	kmt_hm_free(&by_caller);
	return 0;
}

/* ---- boot phases ----------------------------------------------------- */

/* Room for one more element in a doubling array of @n elements. */
static int grow(void *arrp, size_t n, size_t elem)
{
	void **arr = arrp, *p;

	if (n & (n - 1) || (n && n < 16))
		return 0;	/* not full: sizes 16, 32, 64, ... */
	p = realloc(*arr, (n < 16 ? 16 : n * 2) * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

struct phase_state {
	int64_t phase;		/* current phase, -1 before the first event */
	int32_t initcall;	/* current initcall, -1 if none */
	uint64_t ic_start;
};

static int add_segment(struct kmt_slab *s, uint64_t ts, uint32_t phase,
		       int32_t initcall)
{
	if (grow(&s->segs, s->nr_segs, sizeof(*s->segs)))
		return -ENOMEM;
	s->segs[s->nr_segs].start = ts;
	s->segs[s->nr_segs].phase = phase;
	s->segs[s->nr_segs].initcall = initcall;
	s->nr_segs++;
	return 0;
}

static int phase_begin(struct kmt_slab *s, struct phase_state *ps, uint64_t ts,
		       const char *name, uint32_t len, bool exec)
{
	struct kmt_phase *p;

	if (grow(&s->phases, s->nr_phases, sizeof(*s->phases)))
		return -ENOMEM;
	p = &s->phases[s->nr_phases];
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->name_len = len;
	p->exec = exec;
	p->start = ts;
	ps->phase = (int64_t)s->nr_phases++;
	ps->initcall = -1;
	return add_segment(s, ts, (uint32_t)ps->phase, -1);
}

static int on_phase_event(struct kmt_slab *s, struct phase_state *ps,
			  const struct kmt_event *ev)
{
	struct kmt_initcall *ic;
	size_t i;

	switch (ev->type) {
	case KMT_EV_INITCALL_LEVEL:
	case KMT_EV_INIT_EXEC:
		if (!(ev->has & KMT_HAS(KMT_F_NAME)))
			return 0;
		return phase_begin(s, ps, ev->ts, ev->name, ev->name_len,
				   ev->type == KMT_EV_INIT_EXEC);
	case KMT_EV_INITCALL_START:
		for (i = 0; i < s->nr_initcalls; i++)
			if (s->initcalls[i].fn == ev->call_site)
				break;
		if (i == s->nr_initcalls) {
			if (grow(&s->initcalls, s->nr_initcalls, sizeof(*s->initcalls)))
				return -ENOMEM;
			ic = &s->initcalls[s->nr_initcalls++];
			memset(ic, 0, sizeof(*ic));
			ic->fn = ev->call_site;
			ic->phase = (uint32_t)ps->phase;
			ic->start = ev->ts;
		}
		ps->initcall = (int32_t)i;
		ps->ic_start = ev->ts;
		return add_segment(s, ev->ts, (uint32_t)ps->phase, ps->initcall);
	case KMT_EV_INITCALL_FINISH:
		if (ps->initcall < 0)
			return 0;
		ic = &s->initcalls[ps->initcall];
		ic->ns += ev->ts - ps->ic_start;
		ic->ret = ev->ret;
		ps->initcall = -1;
		return add_segment(s, ev->ts, (uint32_t)ps->phase, -1);
	default:
		return 0;
	}
}

/* Add retained bytes to the phase and initcall of segment @seg. */
static void retained_in(struct kmt_slab *s, uint64_t attr, uint64_t bytes, bool page)
{
	const struct kmt_segment *g;
	struct kmt_phase_stats *a, *b = NULL, *w;

	if (attr >= s->nr_attrs || s->attrs[attr].seg >= s->nr_segs)
		return;
	w = &s->who_st[s->attrs[attr].who];
	if (page)
		w->page_retained += bytes;
	else
		w->slab_retained += bytes;
	g = &s->segs[s->attrs[attr].seg];
	a = &s->phases[g->phase].st;
	if (g->initcall >= 0)
		b = &s->initcalls[g->initcall].st;
	if (page) {
		a->page_retained += bytes;
		if (b)
			b->page_retained += bytes;
	} else {
		a->slab_retained += bytes;
		if (b)
			b->slab_retained += bytes;
	}
}

static int cmp_initcall(const void *pa, const void *pb)
{
	const struct kmt_initcall *a = pa, *b = pb;
	uint64_t ra = a->st.slab_retained + a->st.page_retained;
	uint64_t rb = b->st.slab_retained + b->st.page_retained;

	if (ra != rb)
		return ra > rb ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

void kmt_slab_sort_initcalls(struct kmt_slab *s)
{
	if (s->nr_initcalls)
		qsort(s->initcalls, s->nr_initcalls, sizeof(*s->initcalls),
		      cmp_initcall);
}

static int cmp_live_psite(const void *pa, const void *pb)
{
	const struct kmt_live_psite *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->site < b->site ? -1 : a->site > b->site;
}

static int cmp_live_cache(const void *pa, const void *pb)
{
	const struct kmt_live_cache *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->cache != b->cache)
		return a->cache < b->cache ? -1 : 1;
	return a->size < b->size ? -1 : a->size > b->size;
}

/* A function of the recorder's: kmt_*, kmemtrace_*, __kmemtrace_*. */
static bool recorder_site(const struct kmt_symtab *st, uint64_t addr)
{
	static const char *const prefix[] = { "kmt_", "kmemtrace_", "__kmemtrace_" };
	const struct kmt_sym *s = addr && st ? kmt_symtab_find(st, addr) : NULL;
	size_t i, l;

	if (!s || addr - s->addr >= (1u << 20))
		return false;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++) {
		l = strlen(prefix[i]);
		if (s->name_len >= l && !memcmp(s->name, prefix[i], l))
			return true;
	}
	return false;
}

/*
 * The attribution @attr is the recorder's: it attached its probes, or its
 * segment ran one of the recorder's initcalls.
 */
static bool recorder_seg(const struct kmt_slab *s, const bool *rec_ic,
			 uint64_t attr)
{
	uint32_t seg;

	if (attr >= s->nr_attrs)
		return false;
	if (s->attrs[attr].rec)
		return true;
	seg = s->attrs[attr].seg;
	return seg < s->nr_segs && s->segs[seg].initcall >= 0 &&
	       rec_ic[s->segs[seg].initcall];
}

static int footprint_tables(struct kmt_slab *s, const struct kmt_hm *live,
			    const struct kmt_hm *pages,
			    const struct kmt_hm *bufpfns,
			    const struct kmt_symtab *st, const bool *rec_site,
			    const bool *rec_ic, uint32_t page_shift,
			    struct kmt_err *err);

/* What is left in the live tables at the end: the retained footprint. */
static int footprint(struct kmt_slab *s, const struct kmt_hm *live,
		     const struct kmt_hm *pages, const struct kmt_hm *bufpfns,
		     const struct kmt_symtab *st, uint32_t page_shift,
		     struct kmt_err *err)
{
	bool *rec_site = calloc(s->nr_callers + 1, sizeof(*rec_site));
	bool *rec_ic = calloc(s->nr_initcalls + 1, sizeof(*rec_ic));
	int ret;

	if (!rec_site || !rec_ic) {
		free(rec_site);
		free(rec_ic);
		return kmt_errf(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < s->nr_callers; i++)
		rec_site[i] = recorder_site(st, s->callers[i].call_site);
	for (size_t i = 0; i < s->nr_initcalls; i++)
		rec_ic[i] = recorder_site(st, s->initcalls[i].fn);
	ret = footprint_tables(s, live, pages, bufpfns, st, rec_site, rec_ic,
			       page_shift, err);
	free(rec_site);
	free(rec_ic);
	return ret;
}

static int footprint_tables(struct kmt_slab *s, const struct kmt_hm *live,
			    const struct kmt_hm *pages,
			    const struct kmt_hm *bufpfns,
			    const struct kmt_symtab *st, const bool *rec_site,
			    const bool *rec_ic, uint32_t page_shift,
			    struct kmt_err *err)
{
	struct kmt_hm by_cache;
	struct kmt_hm_slot *c;
	size_t i, n = 0;
	int created;

	if (kmt_hm_init(&by_cache, 256))
		return kmt_errf(err, ENOMEM, "out of memory");
	for (i = 0; i <= live->mask; i++) {
		const struct kmt_hm_slot *o = &live->s[i];
		uint64_t bytes = o->val >> 32, key;
		uint32_t idx = o->val & ((1u << LIVE_IDX_BITS) - 1);
		uint32_t cache = (uint32_t)(o->val2 >> 48);

		if (!o->key)
			continue;
		s->callers[idx].live_bytes += bytes;
		s->callers[idx].live_objs++;
		if (s->stacks && o->val3 >> 32) {
			s->stack_rows[(o->val3 >> 32) - 1].held += bytes;
			s->stack_rows[(o->val3 >> 32) - 1].held_objs++;
		}
		if (rec_site[idx] || recorder_seg(s, rec_ic, (uint32_t)o->val3)) {
			s->rec_slab_bytes += bytes;
			s->rec_slab_objs++;
		}
		retained_in(s, (uint32_t)o->val3, bytes, false);
		s->live_bytes += bytes;
		s->live_objs++;
		/* a cache by its id; kmalloc objects by their size */
		key = cache ? cache : (1ULL << 32) | bytes;
		c = kmt_hm_get(&by_cache, key, &created);
		if (!c) {
			kmt_hm_free(&by_cache);
			return kmt_errf(err, ENOMEM, "out of memory");
		}
		c->val++;
		c->val2 += bytes;
	}
	s->live_caches = calloc(by_cache.nr ? by_cache.nr : 1, sizeof(*s->live_caches));
	if (!s->live_caches) {
		kmt_hm_free(&by_cache);
		return kmt_errf(err, ENOMEM, "out of memory");
	}
	for (i = 0; i <= by_cache.mask; i++) {
		c = &by_cache.s[i];
		if (!c->key)
			continue;
		s->live_caches[n].cache = c->key >> 32 ? 0 : (uint32_t)c->key;
		s->live_caches[n].size = c->key >> 32 ? (uint32_t)c->key : 0;
		s->live_caches[n].objs = c->val;
		s->live_caches[n].bytes = c->val2;
		n++;
	}
	s->nr_live_caches = n;
	qsort(s->live_caches, n, sizeof(*s->live_caches), cmp_live_cache);
	kmt_hm_free(&by_cache);
	if (kmt_hm_init(&by_cache, 256))
		return kmt_errf(err, ENOMEM, "out of memory");
	for (i = 0; i <= pages->mask; i++) {
		uint64_t order = pages->s[i].val;
		uint64_t pb = (1ULL << page_shift) << (order < 63 ? order : 63);

		bool buffer;

		if (!pages->s[i].key)
			continue;
		buffer = kmt_hm_find(bufpfns, pages->s[i].key);
		if (buffer)
			s->rec_buffer_bytes += pb;
		else if (recorder_site(st, pages->s[i].val2) ||
			 recorder_seg(s, rec_ic, (uint32_t)pages->s[i].val3))
			s->rec_page_bytes += pb;
		c = kmt_hm_get(&by_cache, pages->s[i].val2 ? pages->s[i].val2 : 1,
			       &created);
		if (!c) {
			kmt_hm_free(&by_cache);
			return kmt_errf(err, ENOMEM, "out of memory");
		}
		if (buffer)
			c->val3 += pb;
		c->val++;
		c->val2 += (1ULL << page_shift) << (order < 63 ? order : 63);
		if (s->stacks && pages->s[i].val3 >> 40) {
			struct kmt_stack_row *r = &s->stack_rows[(pages->s[i].val3 >> 40) - 1];

			r->held += pb;
			r->held_objs++;
			if (buffer)
				r->held_buffer += pb;
		}
		s->pg_live_blocks++;
		s->pg_live_bytes += (1ULL << page_shift) << (order < 63 ? order : 63);
		retained_in(s, (uint32_t)pages->s[i].val3,
			    (1ULL << page_shift) << (order < 63 ? order : 63), true);
		s->pg_live_order[order < KMT_PG_ORDERS ? order : KMT_PG_ORDERS - 1]++;
	}
	/* the pages still held, by caller */
	s->live_psites = calloc(by_cache.nr ? by_cache.nr : 1, sizeof(*s->live_psites));
	if (!s->live_psites) {
		kmt_hm_free(&by_cache);
		return kmt_errf(err, ENOMEM, "out of memory");
	}
	for (i = 0, n = 0; i <= by_cache.mask; i++) {
		c = &by_cache.s[i];
		if (!c->key)
			continue;
		s->live_psites[n].site = c->key == 1 ? 0 : c->key;
		s->live_psites[n].blocks = c->val;
		s->live_psites[n].bytes = c->val2;
		s->live_psites[n].buffer_bytes = c->val3;
		n++;
	}
	s->nr_live_psites = n;
	qsort(s->live_psites, n, sizeof(*s->live_psites), cmp_live_psite);
	kmt_hm_free(&by_cache);
	return 0;
}

/* Rows that a double trace emptied: nothing to show. */
static void drop_empty_rows(struct kmt_slab *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_callers; i++)
		if (s->callers[i].hit || s->callers[i].live_bytes)
			s->callers[n++] = s->callers[i];
	s->nr_callers = n;
	for (i = 0, n = 0; i < s->nr_ptrs; i++)
		if (s->ptrs[i].hit)
			s->ptrs[n++] = s->ptrs[i];
	s->nr_ptrs = n;
}

/* ---- who allocated ---------------------------------------------------- */

struct attr_state {
	struct kmt_hm map;	/* (recorder, segment, row) + 1 -> attribution */
	uint32_t seg, who;
	bool rec, valid;
	/* between KMT_MARK_ATTACHING and ATTACHED: the attaching task */
	bool attaching;
	uint32_t attach_pid;
};

/*
 * Whether @ev is the recorder's own as it attaches its probes: what the
 * task that wrote KMT_MARK_ATTACHING allocates until KMT_MARK_ATTACHED
 * (the tracepoints' probe arrays, freed after the probes detach, unseen).
 */
static bool attaching(struct attr_state *as, const struct kmt_event *ev)
{
	if (ev->type == KMT_EV_MARK && (ev->has & KMT_HAS(KMT_F_MARK))) {
		if (ev->mark == KMT_MARK_ATTACHING && ev->ctx == KMT_CTX_TASK) {
			as->attaching = true;
			as->attach_pid = ev->pid;
		} else if (ev->mark == KMT_MARK_ATTACHED ||
			   ev->mark == KMT_MARK_RECORDING_OFF) {
			as->attaching = false;
		}
	}
	return as->attaching && ev->ctx == KMT_CTX_TASK && ev->pid == as->attach_pid;
}

/* s->cur_attr: the current segment and row @who, made if new. */
static int set_attr(struct kmt_slab *s, struct attr_state *as, uint32_t who,
		    bool rec)
{
	uint32_t seg = s->nr_segs ? (uint32_t)(s->nr_segs - 1) : 0;
	struct kmt_hm_slot *slot;
	int created;

	if (as->valid && as->seg == seg && as->who == who && as->rec == rec)
		return 0;
	slot = kmt_hm_get(&as->map, ((uint64_t)rec << 63 | (uint64_t)seg << 32 | who) + 1,
			  &created);
	if (!slot)
		return -ENOMEM;
	if (created) {
		if (s->nr_attrs >= UINT32_MAX ||
		    grow(&s->attrs, s->nr_attrs, sizeof(*s->attrs)))
			return -ENOMEM;
		s->attrs[s->nr_attrs].seg = seg;
		s->attrs[s->nr_attrs].who = who;
		s->attrs[s->nr_attrs].rec = rec;
		slot->val = s->nr_attrs++;
	}
	s->cur_attr = (uint32_t)slot->val;
	as->seg = seg;
	as->who = who;
	as->rec = rec;
	as->valid = true;
	return 0;
}

/* Room in s->who_st for @n rows, the new ones zero. */
static int who_room(struct kmt_slab *s, size_t n)
{
	struct kmt_phase_stats *p;
	uint64_t *h;
	size_t cap;

	if (n <= s->who_cap)
		return 0;
	cap = s->who_cap ? s->who_cap * 2 : 64;
	if (cap < n)
		cap = n;
	h = realloc(s->who_held, cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	memset(h + s->who_cap, 0, (cap - s->who_cap) * sizeof(*h));
	s->who_held = h;
	p = realloc(s->who_st, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + s->who_cap, 0, (cap - s->who_cap) * sizeof(*p));
	s->who_st = p;
	s->who_cap = cap;
	return 0;
}

static int cmp_row_name(const void *pa, const void *pb)
{
	const struct kmt_who_row *a = pa, *b = pb;
	uint32_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c = memcmp(a->name, b->name, n);

	return c ? c : (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

static int cmp_row_kept(const void *pa, const void *pb)
{
	const struct kmt_who_row *a = pa, *b = pb;
	uint64_t ka = a->st.slab_retained + a->st.page_retained;
	uint64_t kb = b->st.slab_retained + b->st.page_retained;

	if (ka != kb)
		return ka < kb ? 1 : -1;
	if (a->st.events != b->st.events)
		return a->st.events < b->st.events ? 1 : -1;
	return cmp_row_name(pa, pb);
}

/* The rows summed by process name (@by_unit false) or by unit. */
static int who_table(const struct kmt_slab *s, bool by_unit,
		     struct kmt_who_row **out, size_t *nr)
{
	struct kmt_who_row *r;
	size_t i, n = 0;

	r = calloc(s->nr_whos ? s->nr_whos : 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < s->nr_whos; i++) {
		const struct kmt_phase_stats *st = &s->who_st[i];

		if (!st->events && !st->slab_retained && !st->page_retained)
			continue;
		r[n].name = by_unit ? s->whos[i].unit : s->whos[i].comm;
		r[n].name_len = by_unit ? s->whos[i].unit_len : s->whos[i].comm_len;
		r[n].st = *st;
		n++;
	}
	if (n)
		qsort(r, n, sizeof(*r), cmp_row_name);
	for (i = 0, *nr = 0; i < n; i++) {
		struct kmt_who_row *d = &r[*nr - (*nr && !cmp_row_name(&r[*nr - 1], &r[i]))];

		if (d == &r[*nr]) {
			*d = r[i];
			(*nr)++;
			continue;
		}
		d->st.slab_alloc += r[i].st.slab_alloc;
		d->st.slab_retained += r[i].st.slab_retained;
		d->st.page_alloc += r[i].st.page_alloc;
		d->st.page_retained += r[i].st.page_retained;
		d->st.events += r[i].st.events;
	}
	if (*nr)
		qsort(r, *nr, sizeof(*r), cmp_row_kept);
	*out = r;
	return 0;
}

int kmt_slab_analyze(const struct kmt_trace *t, struct kmt_slab *s,
		     struct kmt_err *err)
{
	return kmt_slab_analyze_range(t, 0, UINT64_MAX, false, NULL, s, err);
}

static int analyze(const struct kmt_trace *t, uint64_t start, uint64_t end,
		   const struct kmt_symtab *sym, struct kmt_slab *s,
		   struct kmt_err *err);

/* Call the sampler for the moments up to @ts: what is held before it. */
static int sample(struct kmt_sampler *sp, struct kmt_slab *s,
		  const struct kmt_tasks *tk, uint64_t ts, bool last,
		  struct kmt_err *err)
{
	size_t j;
	int ret;

	sp->whos = tk->who;
	sp->nr_whos = tk->nr;
	while (last || ts >= sp->next) {
		uint64_t next = sp->next;

		for (j = 0; j < sp->nr_watch; j++)
			if (!sp->page[j])
				sp->held[j] = sp->row[j] ?
					s->callers[sp->row[j] - 1].held : 0;
		ret = sp->fn(sp, s, last ? ts : next);
		if (ret)
			return kmt_errf(err, ret < 0 ? -ret : ret,
					ret == -ENOMEM ? "out of memory" :
					"the sampler failed");
		if (last || sp->next <= next)
			break;
	}
	return 0;
}

int kmt_slab_analyze_range(const struct kmt_trace *t, uint64_t start,
			   uint64_t end, bool by_ptr, const struct kmt_symtab *sym,
			   struct kmt_slab *s, struct kmt_err *err)
{
	memset(s, 0, sizeof(*s));
	s->by_ptr = by_ptr;
	return analyze(t, start, end, sym, s, err);
}

int kmt_slab_analyze_stacks(const struct kmt_trace *t, uint64_t start,
			    uint64_t end, const struct kmt_symtab *sym,
			    struct kmt_slab *s, struct kmt_err *err)
{
	struct kmt_hm idx;
	int ret;

	memset(s, 0, sizeof(*s));
	if (kmt_hm_init(&idx, 1024))
		return kmt_errf(err, ENOMEM, "out of memory");
	s->stacks = true;
	s->stack_idx = &idx;
	ret = analyze(t, start, end, sym, s, err);
	s->stack_idx = NULL;
	kmt_hm_free(&idx);
	return ret;
}

int kmt_slab_analyze_sampled(const struct kmt_trace *t, uint64_t start,
			     uint64_t end, const struct kmt_symtab *sym,
			     struct kmt_sampler *sp, struct kmt_slab *s,
			     struct kmt_err *err)
{
	memset(s, 0, sizeof(*s));
	s->sampler = sp;
	return analyze(t, start, end, sym, s, err);
}

static int analyze(const struct kmt_trace *t, uint64_t start, uint64_t end,
		   const struct kmt_symtab *sym, struct kmt_slab *s,
		   struct kmt_err *err)
{
	bool by_ptr = s->by_ptr;
	struct kmt_hm callers, live, pages, ptrs = { 0 }, bufpfns = { 0 };
	struct kmt_hm vmareas = { 0 };
	struct page_ctx pc = { .sym = sym };

	memset(&pc.pfns, 0, sizeof(pc.pfns));
	/*
	 * Per CPU and context (task, softirq, hardirq, NMI): the object of
	 * the last event if it was a kmalloc, so that an interrupt between
	 * the two traces of one large kmalloc does not hide the pair.
	 */
	size_t nr_last = t->fmt.nr_cpu_ids ? t->fmt.nr_cpu_ids : 1;
	uint64_t *last;
	struct last_free *frees;
	struct kmt_event ring[LOOKAHEAD];
	struct kmt_merge m;
	struct phase_state ps = { .phase = -1, .initcall = -1 };
	struct lookup lk = { 0 };
	struct kmt_tasks tk;
	struct attr_state as = { .valid = false };
	uint64_t head, tail, alloc0, page0;
	uint32_t who;
	unsigned int i;
	int ret, more;

	last = calloc(nr_last * 4, sizeof(*last));
	frees = calloc(nr_last, sizeof(*frees));
	if (!last || !frees || lookup_init(&lk, t) || kmt_tasks_init(&tk) ||
	    kmt_tasks_snapshot(&tk, t->tasks, t->tasks_len) ||
	    kmt_tasks_cgroups(&tk, t->cgroups, t->cgroups_len) ||
	    kmt_hm_init(&as.map, 256)) {
		free(last);
		free(frees);
		lookup_free(&lk);
		kmt_tasks_free(&tk);
		kmt_hm_free(&as.map);
		return kmt_errf(err, ENOMEM, "out of memory");
	}
	for (i = 0; i < t->nr_cpus; i++)
		s->lost += t->cpus[i].lost;
	if (kmt_hm_init(&callers, 1024) || kmt_hm_init(&live, 1 << 16) ||
	    kmt_hm_init(&pages, 1 << 12) || (by_ptr && kmt_hm_init(&ptrs, 1 << 16)) ||
	    kmt_hm_init(&pc.frames, 1024) || kmt_hm_init(&pc.sites, 256) ||
	    (by_ptr && kmt_hm_init(&pc.pfns, 1024)) || kmt_hm_init(&bufpfns, 256) ||
	    kmt_hm_init(&vmareas, 256)) {
		kmt_hm_free(&vmareas);
		kmt_hm_free(&bufpfns);
		kmt_hm_free(&callers);
		kmt_hm_free(&live);
		kmt_hm_free(&pages);
		kmt_hm_free(&ptrs);
		kmt_hm_free(&pc.frames);
		kmt_hm_free(&pc.sites);
		free(last);
		free(frees);
		lookup_free(&lk);
		kmt_tasks_free(&tk);
		kmt_hm_free(&as.map);
		return kmt_errf(err, ENOMEM, "out of memory");
	}
	ret = kmt_merge_init(&m, t, err);
	if (ret)
		goto out;
	/*
	 * The live-object table is too big for the caches: look up to
	 * LOOKAHEAD events ahead and prefetch the slot each one will probe,
	 * so that the miss overlaps with the work on the events before it.
	 */
	more = 1;
	for (head = 0; head < LOOKAHEAD && more > 0; head++) {
		more = kmt_merge_next(&m, &ring[head], err);
		if (more <= 0)
			break;
		__builtin_prefetch(&live.s[kmt_hm_hash(ring[head].ptr) & live.mask]);
	}
	ret = more < 0 ? more : 0;
	for (tail = 0; tail < head && !ret; tail++) {
		struct kmt_event *ev = &ring[tail % LOOKAHEAD];

		if (!tail)
			s->trace_first_ts = ev->ts;
		s->trace_last_ts = ev->ts;
		if (ev->ts < start || ev->ts > end)
			goto next;	/* outside --time */
		if (s->sampler && ev->ts >= s->sampler->next) {
			ret = sample(s->sampler, s, &tk, ev->ts, false, err);
			if (ret)
				break;
		}
		if (!s->nr_events) {
			s->first_ts = ev->ts;
			ret = phase_begin(s, &ps, ev->ts, "early", 5, false);
			if (ret) {
				ret = kmt_errf(err, ENOMEM, "out of memory");
				break;
			}
		}
		s->last_ts = ev->ts;
		s->nr_events++;
		s->by_type[ev->type]++;
		alloc0 = s->total_alloc;
		page0 = s->pg_bytes_alloc;
		if (ev->type == KMT_EV_TASK && kmt_tasks_event(&tk, ev)) {
			ret = kmt_errf(err, ENOMEM, "out of memory");
			break;
		}
		who = kmt_tasks_row(&tk, ev);
		if (who_room(s, tk.nr) || set_attr(s, &as, who, attaching(&as, ev))) {
			ret = kmt_errf(err, ENOMEM, "out of memory");
			break;
		}
		switch (ev->type) {
		case KMT_EV_KMALLOC:
		case KMT_EV_CACHE_ALLOC:
			if (ev->has & KMT_HAS_VIA)
				on_via(s, ev->via);
			ret = on_alloc(t, &lk, s, &callers, &live, &ptrs, last,
				       nr_last, ev, err);
			break;
		case KMT_EV_VMALLOC:
			ret = on_vmalloc(t, s, &vmareas, ev, err);
			break;
		case KMT_EV_TEXT_RANGE:
			ret = on_text_range(s, ev, err);
			break;
		case KMT_EV_GROUPS:
			if (ev->has & KMT_HAS(KMT_F_GROUPS)) {
				s->have_groups = true;
				s->groups |= ev->groups;
			}
			break;
		case KMT_EV_INITCALL_LEVEL:
		case KMT_EV_INITCALL_START:
		case KMT_EV_INITCALL_FINISH:
		case KMT_EV_INIT_EXEC:
			if (on_phase_event(s, &ps, ev))
				ret = kmt_errf(err, ENOMEM, "out of memory");
			break;
		case KMT_EV_KFREE:
		case KMT_EV_CACHE_FREE:
			on_free(s, &live, frees, nr_last, ev);
			break;
		case KMT_EV_PAGE_ALLOC:
			ret = on_page_alloc(t, s, &pages, &pc, ev, err);
			break;
		case KMT_EV_PAGE_FREE:
		case KMT_EV_PAGE_FREE_BATCHED:
			on_page_free(t, s, &pages, &bufpfns, ev);
			break;
		case KMT_EV_BUFFER: {
			/* the recorder's: each page of the sub-buffer */
			uint64_t n = ev->order < 20 ? 1ULL << ev->order : 0, k;
			int created;

			for (k = 0; k < n && ev->pfn1 && !ret; k++) {
				const struct kmt_hm_slot *pg;

				if (!(ev->pfn1 + k))
					continue;
				if (!kmt_hm_get(&bufpfns, ev->pfn1 + k, &created)) {
					ret = kmt_errf(err, ENOMEM, "out of memory");
					break;
				}
				if (!created)
					continue;
				s->held.buffers += 1ULL << t->fmt.page_shift;
				/* the block the trace saw allocated, if it did */
				pg = kmt_hm_find(&pages, ev->pfn1 + k);
				if (pg)
					s->held.buf_pages += (1ULL << t->fmt.page_shift) <<
							     (pg->val < 63 ? pg->val : 63);
			}
			break;
		}
		default:
			break;
		}
		{
			struct kmt_phase_stats *a = &s->phases[ps.phase].st;
			struct kmt_phase_stats *b = ps.initcall >= 0 ?
				&s->initcalls[ps.initcall].st : NULL;

			struct kmt_phase_stats *w = &s->who_st[who];

			a->events++;
			a->slab_alloc += s->total_alloc - alloc0;
			a->page_alloc += s->pg_bytes_alloc - page0;
			w->events++;
			w->slab_alloc += s->total_alloc - alloc0;
			w->page_alloc += s->pg_bytes_alloc - page0;
			if (b) {
				b->events++;
				b->slab_alloc += s->total_alloc - alloc0;
				b->page_alloc += s->pg_bytes_alloc - page0;
			}
		}
		last[last_slot(ev, nr_last)] =
			ev->type == KMT_EV_KMALLOC ? ev->ptr : 0;
next:
		/* the slot is free again: read the next event into it */
		if (more > 0 && !ret) {
			more = kmt_merge_next(&m, ev, err);
			if (more < 0)
				ret = more;
			else if (more > 0) {
				__builtin_prefetch(&live.s[kmt_hm_hash(ev->ptr) & live.mask]);
				head++;
			}
		}
	}
	kmt_merge_free(&m);
	if (!ret && s->sampler && s->nr_events)
		ret = sample(s->sampler, s, &tk, s->last_ts, true, err);
	if (!ret)
		ret = footprint(s, &live, &pages, &bufpfns, sym,
				t->fmt.page_shift, err);
	if (!ret)
		ret = vmalloc_tables(s, &vmareas, t->fmt.page_shift, err);
	if (!ret && tk.seen) {
		s->has_tasks = true;
		s->whos = tk.who;
		s->nr_whos = tk.nr;
		tk.who = NULL;
		/* rows for every task named, taken events or not (--time) */
		if (who_room(s, tk.nr) ||
		    who_table(s, false, &s->by_comm, &s->nr_by_comm) ||
		    who_table(s, true, &s->by_unit, &s->nr_by_unit))
			ret = kmt_errf(err, ENOMEM, "out of memory");
	}
out:
	kmt_tasks_free(&tk);
	kmt_hm_free(&as.map);
	kmt_hm_free(&vmareas);
	kmt_hm_free(&bufpfns);
	kmt_hm_free(&callers);
	kmt_hm_free(&live);
	kmt_hm_free(&pages);
	kmt_hm_free(&ptrs);
	kmt_hm_free(&pc.frames);
	kmt_hm_free(&pc.sites);
	kmt_hm_free(&pc.pfns);
	free(last);
	free(frees);
	lookup_free(&lk);
	if (!ret)
		drop_empty_rows(s);
	if (ret)
		kmt_slab_free(s);
	s->sampler = NULL;
	return ret;
}

void kmt_slab_free(struct kmt_slab *s)
{
	free(s->stack_rows);
	s->stack_rows = NULL;
	s->nr_stack_rows = s->stack_cap = 0;
	free(s->whos);
	free(s->who_st);
	free(s->who_held);
	s->who_held = NULL;
	free(s->by_comm);
	free(s->by_unit);
	free(s->attrs);
	s->whos = NULL;
	s->who_st = NULL;
	s->by_comm = NULL;
	s->by_unit = NULL;
	s->attrs = NULL;
	s->nr_whos = s->who_cap = s->nr_by_comm = s->nr_by_unit = s->nr_attrs = 0;
	free(s->live_vsites);
	s->live_vsites = NULL;
	s->nr_live_vsites = 0;
	free(s->wrappers);
	s->wrappers = NULL;
	s->nr_wrappers = 0;
	free(s->live_psites);
	s->live_psites = NULL;
	s->nr_live_psites = 0;
	free(s->ppages);
	s->ppages = NULL;
	s->nr_ppages = 0;
	free(s->pcallers);
	s->pcallers = NULL;
	s->nr_pcallers = 0;
	free(s->ptrs);
	s->ptrs = NULL;
	s->nr_ptrs = 0;
	free(s->phases);
	free(s->initcalls);
	free(s->segs);
	s->phases = NULL;
	s->initcalls = NULL;
	s->segs = NULL;
	free(s->live_caches);
	s->live_caches = NULL;
	free(s->callers);
	s->callers = NULL;
	s->nr_callers = 0;
}

/*
 * "frag,hit,bytes" into key indexes of @names; -EINVAL with err naming
 * the bad key and the valid ones (@valid).
 */
static int parse_keys(const char *spec, const char *const *names,
		      unsigned int nr_names, const char *what, const char *valid,
		      unsigned int *keys, unsigned int *nr, struct kmt_err *err)
{
	const char *p = spec, *comma;
	unsigned int k;
	size_t len;

	*nr = 0;
	while (*p) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		for (k = 0; k < nr_names; k++)
			if (strlen(names[k]) == len && !strncmp(p, names[k], len))
				break;
		if (k == nr_names)
			return kmt_errf(err, EINVAL, "unknown %s '%.*s' (valid: %s)",
					what, (int)len, p, valid);
		if (*nr == KMT_SLAB_MAX_KEYS)
			return kmt_errf(err, EINVAL, "more than %d sort keys",
					KMT_SLAB_MAX_KEYS);
		keys[(*nr)++] = k;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!*nr)
		return kmt_errf(err, EINVAL, "empty sort key list");
	return 0;
}

int kmt_slab_parse_sort(const char *spec, enum kmt_slab_key *keys,
			unsigned int *nr, struct kmt_err *err)
{
	unsigned int k[KMT_SLAB_MAX_KEYS], i;
	int ret;

	ret = parse_keys(spec, key_names, KMT_SK_NR, "sort key",
			 "frag, hit, bytes, callsite, pingpong, ptr", k, nr, err);
	for (i = 0; !ret && i < *nr; i++)
		keys[i] = (enum kmt_slab_key)k[i];
	return ret;
}

static int cmp_live(const void *pa, const void *pb)
{
	const struct kmt_caller *a = pa, *b = pb;

	if (a->live_bytes != b->live_bytes)
		return a->live_bytes > b->live_bytes ? -1 : 1;
	return a->call_site < b->call_site ? -1 : a->call_site > b->call_site;
}

struct kmt_caller *kmt_slab_live_sorted(const struct kmt_slab *s)
{
	struct kmt_caller *c = malloc((s->nr_callers ? s->nr_callers : 1) * sizeof(*c));

	if (!c)
		return NULL;
	if (s->nr_callers) {
		memcpy(c, s->callers, s->nr_callers * sizeof(*c));
		qsort(c, s->nr_callers, sizeof(*c), cmp_live);
	}
	return c;
}

static const char *const page_key_names[KMT_PK_NR] = {
	[KMT_PK_BYTES] = "bytes",
	[KMT_PK_HIT] = "hit",
	[KMT_PK_CALLSITE] = "callsite",
	[KMT_PK_ORDER] = "order",
	[KMT_PK_MIGTYPE] = "migtype",
	[KMT_PK_GFP] = "gfp",
	[KMT_PK_PAGE] = "page",
};

int kmt_page_parse_sort(const char *spec, enum kmt_page_key *keys,
			unsigned int *nr, struct kmt_err *err)
{
	unsigned int k[KMT_SLAB_MAX_KEYS], i;
	int ret;

	ret = parse_keys(spec, page_key_names, KMT_PK_NR, "page sort key",
			 "bytes, hit, callsite, order, migtype, gfp, page", k, nr, err);
	for (i = 0; !ret && i < *nr; i++)
		keys[i] = (enum kmt_page_key)k[i];
	return ret;
}

static const enum kmt_page_key *page_keys;
static unsigned int page_nr;

static int cmp_page(const void *pa, const void *pb)
{
	const struct kmt_page_caller *a = pa, *b = pb;
	unsigned int i;
	int c = 0;

	for (i = 0; i < page_nr && !c; i++) {
		switch (page_keys[i]) {
		case KMT_PK_BYTES:
			c = a->bytes > b->bytes ? -1 : a->bytes < b->bytes;
			break;
		case KMT_PK_HIT:
			c = a->hit > b->hit ? -1 : a->hit < b->hit;
			break;
		case KMT_PK_CALLSITE:
		case KMT_PK_PAGE:	/* the row's key: caller or page frame */
			c = a->site < b->site ? -1 : a->site > b->site;
			break;
		case KMT_PK_ORDER:
			c = a->order < b->order ? -1 : a->order > b->order;
			break;
		case KMT_PK_MIGTYPE:
			c = a->migratetype < b->migratetype ? -1 :
			    a->migratetype > b->migratetype;
			break;
		case KMT_PK_GFP:
			c = a->gfp < b->gfp ? -1 : a->gfp > b->gfp;
			break;
		default:
			break;
		}
	}
	if (!c)
		c = a->site < b->site ? -1 : a->site > b->site;
	if (!c)
		c = a->order < b->order ? -1 : a->order > b->order;
	if (!c)
		c = a->migratetype < b->migratetype ? -1 : a->migratetype > b->migratetype;
	if (!c)
		c = a->gfp < b->gfp ? -1 : a->gfp > b->gfp;
	return c;
}

void kmt_page_sort(struct kmt_slab *s, const enum kmt_page_key *keys,
		   unsigned int nr)
{
	page_keys = keys;
	page_nr = nr;
	if (s->nr_pcallers)
		qsort(s->pcallers, s->nr_pcallers, sizeof(*s->pcallers), cmp_page);
	if (s->nr_ppages)
		qsort(s->ppages, s->nr_ppages, sizeof(*s->ppages), cmp_page);
}

static const enum kmt_slab_key *sort_keys;
static unsigned int sort_nr;

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int cmp_caller(const void *pa, const void *pb)
{
	const struct kmt_caller *a = pa, *b = pb;
	unsigned int i;
	double fa, fb;
	int c = 0;

	for (i = 0; i < sort_nr && !c; i++) {
		switch (sort_keys[i]) {
		case KMT_SK_FRAG:
			fa = kmt_frag(a->bytes_req, a->bytes_alloc);
			fb = kmt_frag(b->bytes_req, b->bytes_alloc);
			c = fa > fb ? -1 : fa < fb;
			break;
		case KMT_SK_HIT:
			c = cmp_u64_desc(a->hit, b->hit);
			break;
		case KMT_SK_BYTES:
			c = cmp_u64_desc(a->bytes_alloc, b->bytes_alloc);
			break;
		case KMT_SK_CALLSITE:
		case KMT_SK_PTR:	/* the row's address: callsite or object */
			c = a->call_site < b->call_site ? -1 :
			    a->call_site > b->call_site;
			break;
		case KMT_SK_PINGPONG:
			c = cmp_u64_desc(a->pingpong, b->pingpong);
			break;
		default:
			break;
		}
	}
	if (!c)
		c = a->call_site < b->call_site ? -1 : a->call_site > b->call_site;
	return c;
}

void kmt_slab_sort_ptrs(struct kmt_slab *s, const enum kmt_slab_key *keys,
			unsigned int nr)
{
	if (!s->nr_ptrs)
		return;
	sort_keys = keys;
	sort_nr = nr;
	qsort(s->ptrs, s->nr_ptrs, sizeof(*s->ptrs), cmp_caller);
}

void kmt_slab_sort(struct kmt_slab *s, const enum kmt_slab_key *keys,
		   unsigned int nr)
{
	if (!s->nr_callers)
		return;		/* no table: and qsort() wants an array */
	sort_keys = keys;
	sort_nr = nr;
	qsort(s->callers, s->nr_callers, sizeof(*s->callers), cmp_caller);
}

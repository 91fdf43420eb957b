// SPDX-License-Identifier: GPL-2.0
/*
 * The boot memory memblock handed out, replayed from KMT_EV_MEMBLOCK
 * records: the RAM memblock knew, what each caller reserved, and what of
 * it each still holds at the end, or at --at.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hashmap.h"
#include "memblock.h"

/* Index of the first range of @s that ends after @addr. */
static size_t set_find(const struct kmt_mb_set *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Put [@start, @end) at index @at, or join it to a neighbour with the
 * same owner that it touches.  Return: the index it ended up at (+1 for
 * the caller's next), or a negative errno.
 */
static long set_insert(struct kmt_mb_set *s, size_t at, uint64_t start,
		       uint64_t end, uint32_t owner)
{
	bool left = at > 0 && s->r[at - 1].end == start &&
		    s->r[at - 1].owner == owner;
	bool right = at < s->nr && s->r[at].start == end &&
		     s->r[at].owner == owner;

	if (left && right) {
		s->r[at - 1].end = s->r[at].end;
		memmove(&s->r[at], &s->r[at + 1], (s->nr - at - 1) * sizeof(*s->r));
		s->nr--;
		return (long)at - 1;
	}
	if (left) {
		s->r[at - 1].end = end;
		return (long)at - 1;
	}
	if (right) {
		s->r[at].start = start;
		return (long)at;
	}
	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct kmt_mb_range *r = realloc(s->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->r = r;
		s->cap = cap;
	}
	memmove(&s->r[at + 1], &s->r[at], (s->nr - at) * sizeof(*s->r));
	s->r[at] = (struct kmt_mb_range){ start, end, owner };
	s->nr++;
	return (long)at;
}

/*
 * Add the parts of [@start, @end) that @s does not hold yet, held by
 * @owner; their bytes go to *@added.
 */
static int set_add(struct kmt_mb_set *s, uint64_t start, uint64_t end,
		   uint32_t owner, uint64_t *added)
{
	uint64_t cur = start;
	size_t i = set_find(s, start);
	long ret;

	*added = 0;
	while (cur < end) {
		uint64_t gap_end = end;

		if (i < s->nr && s->r[i].start < end) {
			if (s->r[i].start <= cur) {
				cur = s->r[i].end;
				i++;
				continue;
			}
			gap_end = s->r[i].start;
		}
		ret = set_insert(s, i, cur, gap_end, owner);
		if (ret < 0)
			return (int)ret;
		*added += gap_end - cur;
		cur = gap_end;
		i = (size_t)ret + 1;
	}
	return 0;
}

/*
 * Take [@start, @end) out of @s; @take(@ctx, owner, bytes) for each part
 * that was held.
 */
static int set_remove(struct kmt_mb_set *s, uint64_t start, uint64_t end,
		      void (*take)(void *ctx, uint32_t owner, uint64_t bytes),
		      void *ctx)
{
	size_t i = set_find(s, start);
	long ret;

	while (i < s->nr && s->r[i].start < end) {
		struct kmt_mb_range *r = &s->r[i];
		uint64_t lo = r->start > start ? r->start : start;
		uint64_t hi = r->end < end ? r->end : end;

		take(ctx, r->owner, hi - lo);
		if (r->start < start && r->end > end) {
			/* a hole in the middle: split in two */
			uint64_t tail = r->end;

			s->r[i].end = start;
			ret = set_insert(s, i + 1, end, tail, s->r[i].owner);
			return ret < 0 ? (int)ret : 0;
		}
		if (r->start < start) {
			r->end = start;
			i++;
		} else if (r->end > end) {
			r->start = end;
			return 0;
		} else {
			memmove(&s->r[i], &s->r[i + 1],
				(s->nr - i - 1) * sizeof(*s->r));
			s->nr--;
		}
	}
	return 0;
}

struct mb_state {
	struct kmt_memblock *mb;
	struct kmt_hm by_site;		/* call_site + 1 -> caller index + 1 */
	size_t cap_callers, cap_givens;
};

/* The row of @call_site, made if new; NULL on ENOMEM. */
static struct kmt_mb_caller *caller_row(struct mb_state *st, uint64_t call_site,
					uint32_t *idx)
{
	struct kmt_memblock *mb = st->mb;
	uint64_t key = call_site + 1 ? call_site + 1 : 1;
	struct kmt_hm_slot *slot;
	int created;

	slot = kmt_hm_get(&st->by_site, key, &created);
	if (!slot)
		return NULL;
	if (created) {
		if (mb->nr_callers == st->cap_callers) {
			size_t cap = st->cap_callers ? st->cap_callers * 2 : 32;
			struct kmt_mb_caller *c = realloc(mb->callers,
							  cap * sizeof(*c));

			if (!c) {
				kmt_hm_remove(&st->by_site, slot);
				return NULL;
			}
			mb->callers = c;
			st->cap_callers = cap;
		}
		memset(&mb->callers[mb->nr_callers], 0, sizeof(*mb->callers));
		mb->callers[mb->nr_callers].call_site = call_site;
		slot->val = mb->nr_callers++;
	}
	*idx = (uint32_t)slot->val;
	return &mb->callers[slot->val];
}

static void take_reserved(void *ctx, uint32_t owner, uint64_t bytes)
{
	struct kmt_memblock *mb = ctx;

	mb->callers[owner].held -= bytes;
	mb->callers[owner].freed += bytes;
	mb->held -= bytes;
}

static void take_ram(void *ctx, uint32_t owner, uint64_t bytes)
{
	struct kmt_memblock *mb = ctx;

	(void)owner;
	mb->ram -= bytes;
}

static int add_given(struct mb_state *st, const struct kmt_event *ev,
		     uint64_t bytes)
{
	struct kmt_memblock *mb = st->mb;
	char what[sizeof(mb->givens->what)] = "";
	size_t i, n = 0;

	if (ev->has & KMT_HAS(KMT_F_NAME)) {
		n = ev->name_len < sizeof(what) - 1 ? ev->name_len : sizeof(what) - 1;
		memcpy(what, ev->name, n);
		what[n] = '\0';
	}
	for (i = 0; i < mb->nr_givens; i++)
		if (mb->givens[i].call_site == ev->call_site &&
		    !strcmp(mb->givens[i].what, what))
			break;
	if (i == mb->nr_givens) {
		if (mb->nr_givens == st->cap_givens) {
			size_t cap = st->cap_givens ? st->cap_givens * 2 : 8;
			struct kmt_mb_given *g = realloc(mb->givens,
							 cap * sizeof(*g));

			if (!g)
				return -ENOMEM;
			mb->givens = g;
			st->cap_givens = cap;
		}
		memset(&mb->givens[i], 0, sizeof(*mb->givens));
		mb->givens[i].call_site = ev->call_site;
		memcpy(mb->givens[i].what, what, n + 1);
		mb->nr_givens++;
	}
	mb->givens[i].bytes += bytes;
	mb->givens[i].nr++;
	return 0;
}

static int on_memblock(struct mb_state *st, const struct kmt_event *ev)
{
	struct kmt_memblock *mb = st->mb;
	uint64_t start = ev->phys, end = ev->phys + ev->length, added, before;
	struct kmt_mb_caller *c;
	uint32_t idx;
	int ret = 0;

	if (end < start)
		end = UINT64_MAX;	/* a range past the top: up to it */
	if (!mb->nr_events++)
		mb->first_ts = ev->ts;
	mb->last_ts = ev->ts;
	switch (ev->mb_op) {
	case KMT_MB_ADD:
		ret = set_add(&mb->ram_set, start, end, 0, &added);
		mb->ram += added;
		break;
	case KMT_MB_REMOVE:
		ret = set_remove(&mb->ram_set, start, end, take_ram, mb);
		break;
	case KMT_MB_RESERVE:
	case KMT_MB_ALLOC:
		c = caller_row(st, ev->call_site, &idx);
		if (!c)
			return -ENOMEM;
		c->nr++;
		c->alloc |= ev->mb_op == KMT_MB_ALLOC;
		ret = set_add(&mb->res_set, start, end, idx, &added);
		c->reserved += added;
		c->held += added;
		mb->reserved += added;
		mb->held += added;
		break;
	case KMT_MB_FREE:
	case KMT_MB_FREE_LATE:
	case KMT_MB_FREE_AREA:
		before = mb->held;
		ret = set_remove(&mb->res_set, start, end, take_reserved, mb);
		if (ev->mb_op == KMT_MB_FREE) {
			mb->freed += before - mb->held;
		} else {
			/* what the kernel gave, reserved in the trace or not */
			mb->given += end - start;
			ret = ret ?: add_given(st, ev, end - start);
		}
		break;
	default:
		break;		/* a later kernel's operation: not ours */
	}
	return ret;
}

/* Bytes that both sets hold: one sweep over the two sorted lists. */
static uint64_t overlap(const struct kmt_mb_set *a, const struct kmt_mb_set *b)
{
	size_t i = 0, j = 0;
	uint64_t n = 0;

	while (i < a->nr && j < b->nr) {
		uint64_t lo = a->r[i].start > b->r[j].start ? a->r[i].start : b->r[j].start;
		uint64_t hi = a->r[i].end < b->r[j].end ? a->r[i].end : b->r[j].end;

		if (lo < hi)
			n += hi - lo;
		if (a->r[i].end < b->r[j].end)
			i++;
		else
			j++;
	}
	return n;
}

static int cmp_caller(const void *a, const void *b)
{
	const struct kmt_mb_caller *x = a, *y = b;

	if (x->held != y->held)
		return x->held > y->held ? -1 : 1;
	if (x->reserved != y->reserved)
		return x->reserved > y->reserved ? -1 : 1;
	return x->call_site < y->call_site ? -1 : x->call_site > y->call_site;
}

static int cmp_given(const void *a, const void *b)
{
	const struct kmt_mb_given *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->call_site != y->call_site)
		return x->call_site < y->call_site ? -1 : 1;
	return strcmp(x->what, y->what);
}

static int mb_event(struct mb_state *st, const struct kmt_event *ev,
		    struct kmt_err *err)
{
	struct kmt_memblock *mb = st->mb;
	int ret;

	if (ev->type == KMT_EV_MEMBLOCK_EARLY) {
		mb->have_early = true;
		mb->nr_kept = ev->nr_kept;
		mb->nr_dropped = ev->nr_dropped;
		mb->capacity = ev->capacity;
		mb->have_early_pages = ev->has & KMT_HAS(KMT_F_PG_KEPT);
		mb->pg_kept = ev->pg_kept;
		mb->pg_dropped = ev->pg_dropped;
		return 0;
	}
	if (ev->type != KMT_EV_MEMBLOCK)
		return 0;
	ret = on_memblock(st, ev);
	return ret ? kmt_errf(err, -ret, "out of memory") : 0;
}

static int mb_events(struct kmt_consumer *c, const struct kmt_event *ev,
		     size_t n, struct kmt_err *err)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = mb_event(c->self, &ev[i], err);
		if (ret)
			return ret;
	}
	return 0;
}

static void mb_release(struct kmt_consumer *c)
{
	struct mb_state *st = c->self;

	if (st) {
		kmt_hm_free(&st->by_site);
		free(st);
		c->self = NULL;
	}
}

static int mb_done(struct kmt_consumer *c, const struct kmt_pass_info *pi,
		   struct kmt_err *err)
{
	struct kmt_memblock *mb = ((struct mb_state *)c->self)->mb;

	(void)pi;
	(void)err;
	mb->ram_ranges = mb->ram_set.nr;
	mb->held_ram = overlap(&mb->res_set, &mb->ram_set);
	if (mb->nr_callers)
		qsort(mb->callers, mb->nr_callers, sizeof(*mb->callers), cmp_caller);
	if (mb->nr_givens)
		qsort(mb->givens, mb->nr_givens, sizeof(*mb->givens), cmp_given);
	return 0;
}

int kmt_memblock_consumer(struct kmt_consumer *c, const struct kmt_trace *t,
			  uint64_t end, struct kmt_memblock *mb,
			  struct kmt_err *err)
{
	struct mb_state *st;

	memset(mb, 0, sizeof(*mb));
	memset(c, 0, sizeof(*c));
	st = calloc(1, sizeof(*st));
	if (!st || kmt_hm_init(&st->by_site, 64)) {
		free(st);
		return kmt_errf(err, ENOMEM, "out of memory");
	}
	st->mb = mb;
	c->self = st;
	c->start = 0;
	c->end = end;
	/* a trace without memblock records: take nothing, stop at once */
	if (!t->layout[KMT_EV_MEMBLOCK].present &&
	    !t->layout[KMT_EV_MEMBLOCK_EARLY].present) {
		c->start = 1;
		c->end = 0;
	}
	c->events = mb_events;
	c->done = mb_done;
	return 0;
}

void kmt_memblock_consumer_end(struct kmt_consumer *c, bool ok)
{
	struct mb_state *st = c->self;

	if (st && !ok)
		kmt_memblock_free(st->mb);
	mb_release(c);
}

int kmt_memblock_analyze(const struct kmt_trace *t, uint64_t end,
			 struct kmt_memblock *mb, struct kmt_err *err)
{
	struct kmt_consumer c, *cs[] = { &c };
	struct kmt_pass_info pi;
	int ret;

	ret = kmt_memblock_consumer(&c, t, end, mb, err);
	if (ret)
		return ret;
	if (!t->layout[KMT_EV_MEMBLOCK].present &&
	    !t->layout[KMT_EV_MEMBLOCK_EARLY].present) {
		mb_release(&c);
		return 0;
	}
	ret = kmt_pass_run(t, cs, 1, &pi, err);
	kmt_memblock_consumer_end(&c, !ret);
	return ret;
}

void kmt_memblock_free(struct kmt_memblock *mb)
{
	free(mb->callers);
	free(mb->givens);
	free(mb->ram_set.r);
	free(mb->res_set.r);
	memset(mb, 0, sizeof(*mb));
}

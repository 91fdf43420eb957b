// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation latency from the "reclaim" and "compaction" event groups.
 *
 * The events of all CPUs are taken in time order and paired per task: a
 * task sleeps in reclaim and may wake on another CPU, so a begin and its
 * end need not share a CPU.  Direct reclaim and zone compaction nest no
 * further in one task; shrinker calls are paired by task and shrinker.
 * An allocation stall runs from the task's first slow-path event (direct
 * reclaim or a try to compact) to its next page allocation of the same
 * order, which the kmem group records when the allocation returns: Linux
 * 6.12 has no tracepoint for the slow path's own start and end.
 *
 * Whatever does not pair is kept, never dropped: a begin still open at
 * the end of the trace, an end whose begin came before the recording (or
 * was lost), a begin followed by another begin of the same task.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hashmap.h"
#include "latency.h"
#include "slab.h"

#define MAX_OPEN_SHRINK	4

struct open_shrink {
	uint32_t shrinker;
	uint64_t start;
	uint32_t cpu;
};

struct pstate {
	uint32_t pid;
	char comm[17];
	bool rec_open, cmp_open, stall_open, try_valid;
	struct kmt_lat_episode rec, cmp, stall;
	struct kmt_lat_alloc try_alloc;
	struct open_shrink shrink[MAX_OPEN_SHRINK];
	unsigned int nr_shrink;
};

struct ctx {
	const struct kmt_trace *t;
	const struct kmt_symtab *st;
	struct kmt_latency *l;
	struct kmt_hm pids;		/* pid + 1 -> index in ps */
	struct pstate *ps;
	size_t nr_ps, cap_ps;
	struct kmt_hm shr;		/* shrinker address -> index + 1 */
	struct kmt_hm sites;		/* kmt_page_site()'s memo */
	uint64_t start, end;
	bool stalls;			/* the kmem group ends them */
};

unsigned int kmt_lat_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned int b = 0;

	while (us > 1 && b < KMT_LAT_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

static int grow(void **p, size_t *cap, size_t nr, size_t size)
{
	size_t n;
	void *q;

	if (nr < *cap)
		return 0;
	n = *cap ? *cap * 2 : 64;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static struct pstate *pid_state(struct ctx *c, uint32_t pid)
{
	struct kmt_hm_slot *s;
	int created;

	s = kmt_hm_get(&c->pids, (uint64_t)pid + 1, &created);
	if (!s)
		return NULL;
	if (created) {
		if (grow((void **)&c->ps, &c->cap_ps, c->nr_ps, sizeof(*c->ps))) {
			kmt_hm_remove(&c->pids, s);
			return NULL;
		}
		memset(&c->ps[c->nr_ps], 0, sizeof(c->ps[0]));
		c->ps[c->nr_ps].pid = pid;
		s->val = c->nr_ps++;
	}
	return &c->ps[s->val];
}

/* A begin-to-end time; 0 if a corrupt trace puts the end first. */
static uint64_t span(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

static bool in_window(const struct ctx *c, uint64_t ts)
{
	return ts >= c->start && ts <= c->end;
}

static int add_unpaired(struct ctx *c, uint8_t type, uint64_t ts, uint32_t pid,
			uint32_t cpu, bool at_end, enum kmt_lat_kind kind)
{
	struct kmt_latency *l = c->l;

	if (!in_window(c, ts))
		return 0;
	if (grow((void **)&l->unp, &l->cap_unp, l->nr_unp, sizeof(*l->unp)))
		return -ENOMEM;
	l->unp[l->nr_unp++] = (struct kmt_lat_unpaired){
		.kind = kind, .type = type, .ts = ts, .pid = pid, .cpu = cpu, .at_end = at_end,
	};
	l->kind[kind].unpaired++;
	return 0;
}

static int add_episode(struct ctx *c, const struct kmt_lat_episode *e)
{
	struct kmt_latency *l = c->l;

	if (!in_window(c, e->start))
		return 0;
	if (grow((void **)&l->ep, &l->cap_ep, l->nr_ep, sizeof(*l->ep)))
		return -ENOMEM;
	l->ep[l->nr_ep++] = *e;
	l->kind[e->kind].count++;
	/* saturating: a corrupt trace's times may be anything */
	if (__builtin_add_overflow(l->kind[e->kind].total_ns, e->ns,
				   &l->kind[e->kind].total_ns))
		l->kind[e->kind].total_ns = UINT64_MAX;
	if (e->ns > l->kind[e->kind].max_ns)
		l->kind[e->kind].max_ns = e->ns;
	if (e->ns >= l->threshold)
		l->kind[e->kind].above++;
	l->kind[e->kind].hist[kmt_lat_bucket(e->ns)]++;
	return 0;
}

/*
 * A field of @ev, 0 if its layout has none: struct kmt_event keeps the
 * values of earlier events in the fields a record does not set.
 */
#define FIELD(ev, id, member) ((ev)->has & KMT_HAS(id) ? (ev)->member : 0)

/* The allocation a reclaim-begin or compaction-try event describes. */
static void alloc_of(struct ctx *c, const struct kmt_event *ev,
		     struct kmt_lat_alloc *a)
{
	size_t n = FIELD(ev, KMT_F_COMM, comm_len);

	memset(a, 0, sizeof(*a));
	a->known = true;
	a->order = FIELD(ev, KMT_F_ORDER, order);
	a->gfp = FIELD(ev, KMT_F_GFP, gfp);
	a->priority = FIELD(ev, KMT_F_PRIORITY, priority);
	if (n > sizeof(a->comm) - 1)
		n = sizeof(a->comm) - 1;
	if (n)
		memcpy(a->comm, ev->comm, n);
	if (ev->has & KMT_HAS(KMT_F_STACK))
		a->site = kmt_page_site(c->t, c->st, &c->sites, ev->stack,
					ev->stack_len, NULL, 0);
}

/* The slow path of @p's allocation starts here, unless it has already. */
static void stall_enter(struct pstate *p, const struct kmt_event *ev,
			const struct kmt_lat_alloc *a)
{
	if (p->stall_open)
		return;
	memset(&p->stall, 0, sizeof(p->stall));
	p->stall_open = true;
	p->stall.kind = KMT_LAT_STALL;
	p->stall.start = ev->ts;
	p->stall.pid = p->pid;
	p->stall.cpu = ev->cpu;
	p->stall.a = *a;
}

static int on_reclaim_begin(struct ctx *c, struct pstate *p,
			    const struct kmt_event *ev)
{
	int ret = 0;

	if (p->rec_open)
		ret = add_unpaired(c, KMT_EV_RECLAIM_BEGIN, p->rec.start, p->pid,
				   p->rec.cpu, false, KMT_LAT_RECLAIM);
	memset(&p->rec, 0, sizeof(p->rec));
	p->rec_open = true;
	p->rec.kind = KMT_LAT_RECLAIM;
	p->rec.start = ev->ts;
	p->rec.pid = p->pid;
	p->rec.cpu = ev->cpu;
	alloc_of(c, ev, &p->rec.a);
	memcpy(p->comm, p->rec.a.comm, sizeof(p->comm));
	if (c->stalls) {
		stall_enter(p, ev, &p->rec.a);
		p->stall.nr_reclaim++;
	}
	return ret;
}

static int on_reclaim_end(struct ctx *c, struct pstate *p,
			  const struct kmt_event *ev)
{
	if (!p->rec_open)
		return add_unpaired(c, KMT_EV_RECLAIM_END, ev->ts, p->pid,
				    ev->cpu, false, KMT_LAT_RECLAIM);
	p->rec_open = false;
	p->rec.ns = span(p->rec.start, ev->ts);
	p->rec.nr_reclaimed = FIELD(ev, KMT_F_NR_RECLAIMED, nr_reclaimed);
	return add_episode(c, &p->rec);
}

static int shrinker_index(struct ctx *c, const struct kmt_event *ev,
			  uint32_t *idx)
{
	struct kmt_latency *l = c->l;
	struct kmt_lat_shrinker *s;
	struct kmt_hm_slot *slot;
	int created;
	size_t n;

	uint64_t addr = FIELD(ev, KMT_F_SHRINKER, shrinker);
	uint64_t func = FIELD(ev, KMT_F_FUNC, func);

	slot = kmt_hm_get(&c->shr, addr ? addr : 1, &created);
	if (!slot)
		return -ENOMEM;
	if (!created) {
		s = &l->shr[slot->val - 1];
		/* a shrinker freed and another allocated at its address */
		if (s->func == func) {
			*idx = (uint32_t)(slot->val - 1);
			return 0;
		}
	}
	if (grow((void **)&l->shr, &l->cap_shr, l->nr_shr, sizeof(*l->shr)))
		return -ENOMEM;
	s = &l->shr[l->nr_shr];
	memset(s, 0, sizeof(*s));
	s->func = func;
	s->addr = addr;
	n = FIELD(ev, KMT_F_NAME, name_len);
	if (n > sizeof(s->name) - 1)
		n = sizeof(s->name) - 1;
	if (n)
		memcpy(s->name, ev->name, n);
	slot->val = ++l->nr_shr;
	*idx = (uint32_t)(l->nr_shr - 1);
	return 0;
}

static int on_shrink_start(struct ctx *c, struct pstate *p,
			   const struct kmt_event *ev)
{
	uint32_t idx;
	unsigned int i;
	int ret;

	ret = shrinker_index(c, ev, &idx);
	if (ret)
		return ret;
	for (i = 0; i < p->nr_shrink; i++) {
		if (p->shrink[i].shrinker != idx)
			continue;
		/* started again without an end: the first one is unpaired */
		ret = add_unpaired(c, KMT_EV_SHRINK_START, p->shrink[i].start,
				   p->pid, p->shrink[i].cpu, false, KMT_LAT_SHRINK);
		p->shrink[i] = p->shrink[--p->nr_shrink];
		break;
	}
	if (p->nr_shrink == MAX_OPEN_SHRINK) {
		/* deeper than shrinkers nest: the oldest is unpaired */
		ret = ret ?: add_unpaired(c, KMT_EV_SHRINK_START, p->shrink[0].start,
					  p->pid, p->shrink[0].cpu, false,
					  KMT_LAT_SHRINK);
		memmove(&p->shrink[0], &p->shrink[1],
			sizeof(p->shrink[0]) * (MAX_OPEN_SHRINK - 1));
		p->nr_shrink--;
	}
	p->shrink[p->nr_shrink++] = (struct open_shrink){
		.shrinker = idx, .start = ev->ts, .cpu = ev->cpu,
	};
	return ret;
}

static int on_shrink_end(struct ctx *c, struct pstate *p,
			 const struct kmt_event *ev)
{
	struct kmt_latency *l = c->l;
	struct kmt_lat_episode e;
	struct kmt_lat_shrinker *s;
	struct kmt_hm_slot *slot;
	unsigned int i;

	uint64_t addr = FIELD(ev, KMT_F_SHRINKER, shrinker);

	slot = kmt_hm_find(&c->shr, addr ? addr : 1);
	for (i = 0; slot && i < p->nr_shrink; i++)
		if (p->shrink[i].shrinker == slot->val - 1)
			break;
	if (!slot || i == p->nr_shrink)
		return add_unpaired(c, KMT_EV_SHRINK_END, ev->ts, p->pid, ev->cpu,
				    false, KMT_LAT_SHRINK);
	memset(&e, 0, sizeof(e));
	e.kind = KMT_LAT_SHRINK;
	e.start = p->shrink[i].start;
	e.ns = span(e.start, ev->ts);
	e.pid = p->pid;
	e.cpu = p->shrink[i].cpu;
	e.shrinker = p->shrink[i].shrinker;
	e.freed = FIELD(ev, KMT_F_FREED, freed);
	memcpy(e.a.comm, p->comm, sizeof(e.a.comm));
	p->shrink[i] = p->shrink[--p->nr_shrink];
	if (!in_window(c, e.start))
		return 0;
	s = &l->shr[e.shrinker];
	s->calls++;
	if (__builtin_add_overflow(s->total_ns, e.ns, &s->total_ns))
		s->total_ns = UINT64_MAX;
	if (e.ns > s->max_ns)
		s->max_ns = e.ns;
	if (e.ns >= l->threshold)
		s->above++;
	if (e.freed > 0)
		s->freed += (uint64_t)e.freed;
	if (p->rec_open) {
		p->rec.shrinks++;
		p->rec.shrink_ns += e.ns;
	}
	return add_episode(c, &e);
}

static int on_compact_begin(struct ctx *c, struct pstate *p,
			    const struct kmt_event *ev)
{
	int ret = 0;

	if (p->cmp_open)
		ret = add_unpaired(c, KMT_EV_COMPACT_BEGIN, p->cmp.start, p->pid,
				   p->cmp.cpu, false, KMT_LAT_COMPACT);
	memset(&p->cmp, 0, sizeof(p->cmp));
	p->cmp_open = true;
	p->cmp.kind = KMT_LAT_COMPACT;
	p->cmp.start = ev->ts;
	p->cmp.pid = p->pid;
	p->cmp.cpu = ev->cpu;
	p->cmp.zone_start = FIELD(ev, KMT_F_ZONE_START, zone_start);
	p->cmp.zone_end = FIELD(ev, KMT_F_ZONE_END, zone_end);
	p->cmp.sync = FIELD(ev, KMT_F_SYNC, sync);
	p->cmp.direct = p->try_valid;
	if (p->try_valid)
		p->cmp.a = p->try_alloc;
	else
		memcpy(p->cmp.a.comm, p->comm, sizeof(p->cmp.a.comm));
	return ret;
}

static int on_compact_end(struct ctx *c, struct pstate *p,
			  const struct kmt_event *ev)
{
	if (!p->cmp_open)
		return add_unpaired(c, KMT_EV_COMPACT_END, ev->ts, p->pid,
				    ev->cpu, false, KMT_LAT_COMPACT);
	p->cmp_open = false;
	p->cmp.ns = span(p->cmp.start, ev->ts);
	p->cmp.status = FIELD(ev, KMT_F_STATUS, status);
	return add_episode(c, &p->cmp);
}

/*
 * A page allocation returns: the stall of its task, if of its order,
 * ends.  Not one made inside reclaim or compaction (writeback, a
 * shrinker's own allocations): the stalled allocation is still waiting.
 */
static int on_page_alloc(struct ctx *c, struct pstate *p,
			 const struct kmt_event *ev)
{
	if (!p->stall_open || p->rec_open || p->cmp_open || p->nr_shrink ||
	    FIELD(ev, KMT_F_ORDER, order) != p->stall.a.order)
		return 0;
	p->stall_open = false;
	p->try_valid = false;
	p->stall.ns = span(p->stall.start, ev->ts);
	p->stall.failed = !FIELD(ev, KMT_F_PFN1, pfn1);
	return add_episode(c, &p->stall);
}

static int on_event(struct ctx *c, const struct kmt_event *ev)
{
	struct kmt_latency *l = c->l;
	struct pstate *p;

	switch (ev->type) {
	case KMT_EV_GROUPS:
		l->groups |= FIELD(ev, KMT_F_GROUPS, groups);
		return 0;
	case KMT_EV_PAGE_ALLOC:
		if (!c->stalls || ev->ctx != KMT_CTX_TASK || !c->nr_ps)
			return 0;
		break;
	case KMT_EV_RECLAIM_BEGIN:
	case KMT_EV_RECLAIM_END:
	case KMT_EV_LRU_SHRINK_INACTIVE:
	case KMT_EV_SHRINK_START:
	case KMT_EV_SHRINK_END:
		l->groups |= 1u << KMT_GROUP_RECLAIM;
		break;
	case KMT_EV_COMPACT_TRY:
	case KMT_EV_COMPACT_BEGIN:
	case KMT_EV_COMPACT_END:
		l->groups |= 1u << KMT_GROUP_COMPACTION;
		break;
	default:
		return 0;
	}
	/* all of them run in the task that allocates, or in kswapd/kcompactd */
	if (ev->ctx != KMT_CTX_TASK)
		return 0;
	p = pid_state(c, ev->pid);
	if (!p)
		return -ENOMEM;
	switch (ev->type) {
	case KMT_EV_PAGE_ALLOC:
		return on_page_alloc(c, p, ev);
	case KMT_EV_RECLAIM_BEGIN:
		return on_reclaim_begin(c, p, ev);
	case KMT_EV_RECLAIM_END:
		return on_reclaim_end(c, p, ev);
	case KMT_EV_LRU_SHRINK_INACTIVE:
		if (p->rec_open) {
			p->rec.lru_scanned += FIELD(ev, KMT_F_NR_SCANNED, nr_scanned);
			p->rec.lru_reclaimed += FIELD(ev, KMT_F_NR_RECLAIMED,
						      nr_reclaimed);
		}
		return 0;
	case KMT_EV_SHRINK_START:
		return on_shrink_start(c, p, ev);
	case KMT_EV_SHRINK_END:
		return on_shrink_end(c, p, ev);
	case KMT_EV_COMPACT_TRY:
		alloc_of(c, ev, &p->try_alloc);
		p->try_valid = true;
		memcpy(p->comm, p->try_alloc.comm, sizeof(p->comm));
		if (c->stalls) {
			stall_enter(p, ev, &p->try_alloc);
			p->stall.nr_compact++;
		}
		return 0;
	case KMT_EV_COMPACT_BEGIN:
		return on_compact_begin(c, p, ev);
	default:	/* KMT_EV_COMPACT_END */
		return on_compact_end(c, p, ev);
	}
}

/* The trace ends: every begin still open is unpaired. */
static int close_open(struct ctx *c)
{
	size_t i;
	unsigned int j;
	int ret = 0;

	for (i = 0; i < c->nr_ps && !ret; i++) {
		struct pstate *p = &c->ps[i];

		if (p->rec_open)
			ret = add_unpaired(c, KMT_EV_RECLAIM_BEGIN, p->rec.start,
					   p->pid, p->rec.cpu, true, KMT_LAT_RECLAIM);
		if (!ret && p->cmp_open)
			ret = add_unpaired(c, KMT_EV_COMPACT_BEGIN, p->cmp.start,
					   p->pid, p->cmp.cpu, true, KMT_LAT_COMPACT);
		for (j = 0; !ret && j < p->nr_shrink; j++)
			ret = add_unpaired(c, KMT_EV_SHRINK_START, p->shrink[j].start,
					   p->pid, p->shrink[j].cpu, true,
					   KMT_LAT_SHRINK);
		if (!ret && p->stall_open)
			ret = add_unpaired(c, p->stall.nr_reclaim ? KMT_EV_RECLAIM_BEGIN :
					   KMT_EV_COMPACT_TRY, p->stall.start,
					   p->pid, p->stall.cpu, true, KMT_LAT_STALL);
	}
	return ret;
}

int kmt_latency_analyze(const struct kmt_trace *t, const struct kmt_symtab *st,
			uint64_t threshold, uint64_t start, uint64_t end,
			struct kmt_latency *l, struct kmt_err *err)
{
	struct ctx c = { .t = t, .st = st, .l = l, .start = start, .end = end };
	struct kmt_merge m;
	struct kmt_event ev;
	unsigned int i;
	bool first = true;
	int ret;

	memset(l, 0, sizeof(*l));
	l->threshold = threshold;
	l->have_layouts = t->layout[KMT_EV_RECLAIM_BEGIN].present &&
			  t->layout[KMT_EV_COMPACT_END].present;
	for (i = 0; i < t->nr_cpus; i++)
		l->lost += t->cpus[i].lost;
	if (kmt_hm_init(&c.pids, 256) || kmt_hm_init(&c.shr, 64) ||
	    kmt_hm_init(&c.sites, 256)) {
		ret = kmt_errf(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = kmt_merge_init(&m, t, err);
	if (ret)
		goto out;
	while ((ret = kmt_merge_next(&m, &ev, err)) > 0) {
		if (first) {
			l->first_ts = ev.ts;
			first = false;
		}
		l->last_ts = ev.ts;
		l->events++;
		if (ev.type == KMT_EV_GROUPS)
			c.stalls = FIELD(&ev, KMT_F_GROUPS, groups) &
				   (1u << KMT_GROUP_KMEM);
		ret = on_event(&c, &ev);
		if (ret) {
			kmt_errf(err, -ret, "out of memory");
			break;
		}
	}
	kmt_merge_free(&m);
	if (!ret) {
		ret = close_open(&c);
		if (ret)
			kmt_errf(err, -ret, "out of memory");
	}
out:
	kmt_hm_free(&c.pids);
	kmt_hm_free(&c.shr);
	kmt_hm_free(&c.sites);
	free(c.ps);
	if (ret)
		kmt_latency_free(l);
	return ret;
}

void kmt_latency_free(struct kmt_latency *l)
{
	free(l->ep);
	free(l->shr);
	free(l->unp);
	l->ep = NULL;
	l->shr = NULL;
	l->unp = NULL;
	l->nr_ep = l->nr_shr = l->nr_unp = 0;
}

static int ep_cmp(const void *a, const void *b)
{
	const struct kmt_lat_episode *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int unp_cmp(const void *a, const void *b)
{
	const struct kmt_lat_unpaired *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void kmt_latency_sort(struct kmt_latency *l)
{
	if (l->nr_ep)
		qsort(l->ep, l->nr_ep, sizeof(*l->ep), ep_cmp);
	if (l->nr_unp)
		qsort(l->unp, l->nr_unp, sizeof(*l->unp), unp_cmp);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * One pass over a trace: the CPUs' events merged into time order once,
 * each handed to the consumers whose range holds it (pass.h).
 *
 * Events go out in batches: while one batch is handed out, the next has
 * been read and what its events will touch prefetched, so that a miss
 * in a big table overlaps with the work on a batch of events, and each
 * consumer is called once a batch rather than once an event.
 */
#include <errno.h>
#include <string.h>

#include "pass.h"

#define BATCH	16

/*
 * Inlined before GCC's interprocedural passes: as a function of its own
 * it counts as pure (it only reads), and a call to a pure void function
 * is dropped, prefetches and all.
 */
static inline __attribute__((always_inline)) void
read_ahead(struct kmt_consumer *const *cs, size_t nr, const struct kmt_event *ev)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct kmt_hm *hm = cs[i]->prefetch;

		if (hm)
			__builtin_prefetch(&hm->s[kmt_hm_hash(ev->ptr) & hm->mask]);
	}
}

/* Read up to BATCH events into @b; their number, or a negative errno. */
static int fill(struct kmt_merge *m, struct kmt_consumer *const *cs, size_t nr,
		struct kmt_event *b, struct kmt_err *err)
{
	int n, more;

	for (n = 0; n < BATCH; n++) {
		more = kmt_merge_next(m, &b[n], err);
		if (more < 0)
			return more;
		if (!more)
			break;
		read_ahead(cs, nr, &b[n]);
	}
	return n;
}

/* Events [lo, hi) of @b to each consumer: those its range holds. */
static int deliver(struct kmt_consumer *const *cs, size_t nr,
		   const struct kmt_event *b, size_t lo, size_t hi,
		   struct kmt_err *err)
{
	size_t i, a, z;
	int ret;

	for (i = 0; i < nr; i++) {
		struct kmt_consumer *c = cs[i];

		/* time-ordered: what a range holds is one run */
		for (a = lo; a < hi && b[a].ts < c->start; a++)
			;
		for (z = a; z < hi && b[z].ts <= c->end; z++)
			;
		if (a < z) {
			ret = c->events(c, b + a, z - a, err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The moments due at @ts, of the consumers whose range holds it. */
static int moments_at(struct kmt_consumer *const *cs, size_t nr, uint64_t ts,
		      struct kmt_err *err)
{
	size_t i;
	int ret;

	for (i = 0; i < nr; i++) {
		struct kmt_consumer *c = cs[i];

		if (c->moment && ts >= c->next && ts >= c->start && ts <= c->end) {
			ret = c->moment(c, ts, err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The earliest moment any consumer waits for. */
static uint64_t next_moment(struct kmt_consumer *const *cs, size_t nr)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	for (i = 0; i < nr; i++)
		if (cs[i]->moment && cs[i]->next < next)
			next = cs[i]->next;
	return next;
}

/*
 * Hand out @n events of @b: up to each event a moment is due for, the
 * events before it to every consumer, then the moments.
 */
static int hand(struct kmt_consumer *const *cs, size_t nr, bool moments,
		const struct kmt_event *b, size_t n, struct kmt_err *err)
{
	uint64_t next = moments ? next_moment(cs, nr) : UINT64_MAX;
	size_t lo = 0, k;
	int ret;

	for (k = 0; k < n; k++) {
		if (b[k].ts < next)
			continue;
		ret = deliver(cs, nr, b, lo, k, err) ?: moments_at(cs, nr, b[k].ts, err);
		if (ret)
			return ret;
		lo = k;
		next = next_moment(cs, nr);
	}
	return deliver(cs, nr, b, lo, n, err);
}

int kmt_pass_run(const struct kmt_trace *t, struct kmt_consumer *const *cs,
		 size_t nr, struct kmt_pass_info *pi, struct kmt_err *err)
{
	struct kmt_event batch[2][BATCH];
	bool whole = false, moments = false;
	uint64_t stop = 0;
	struct kmt_merge m;
	int ret, n, cur = 0;
	size_t i, k;

	memset(pi, 0, sizeof(*pi));
	for (i = 0; i < nr; i++) {
		whole |= cs[i]->whole;
		moments |= cs[i]->moment != NULL;
		if (cs[i]->end > stop)
			stop = cs[i]->end;
	}
	if (whole)
		stop = UINT64_MAX;
	ret = kmt_merge_init(&m, t, err);
	if (ret)
		return ret;
	n = fill(&m, cs, nr, batch[cur], err);
	while (n > 0) {
		const struct kmt_event *b = batch[cur];
		int next = n == BATCH ? fill(&m, cs, nr, batch[cur ^ 1], err) : 0;

		/* past every range: stop reading */
		for (k = 0; k < (size_t)n && b[k].ts <= stop; k++)
			;
		if (k) {
			if (!pi->nr_events)
				pi->first_ts = b[0].ts;
			pi->nr_events += k;
			pi->last_ts = b[k - 1].ts;
			ret = hand(cs, nr, moments, b, k, err);
			if (ret)
				break;
		}
		if (k < (size_t)n) {
			pi->stopped = true;
			break;
		}
		n = next;
		cur ^= 1;
	}
	if (!ret && n < 0)
		ret = n;
	kmt_merge_free(&m);
	for (i = 0; i < nr && !ret; i++)
		if (cs[i]->done)
			ret = cs[i]->done(cs[i], pi, err);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * One pass over a trace: the CPUs' events merged into time order once,
 * each handed to the consumers whose range holds it (pass.h).
 */
#include <errno.h>
#include <string.h>

#include "pass.h"

/* Events read ahead of the one handed out: each consumer's prefetch. */
#define LOOKAHEAD	16

static void prefetch(struct kmt_consumer *const *cs, size_t nr,
		     const struct kmt_event *ev)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (cs[i]->prefetch)
			__builtin_prefetch(cs[i]->prefetch(cs[i], ev));
}

static bool takes(const struct kmt_consumer *c, uint64_t ts)
{
	return ts >= c->start && ts <= c->end;
}

/* Hand @ev to the consumers: first every moment due, then every event(). */
static int hand(struct kmt_consumer *const *cs, size_t nr,
		const struct kmt_event *ev, struct kmt_err *err)
{
	size_t i;
	int ret;

	for (i = 0; i < nr; i++) {
		struct kmt_consumer *c = cs[i];

		if (c->moment && ev->ts >= c->next && takes(c, ev->ts)) {
			ret = c->moment(c, ev->ts, err);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < nr; i++) {
		struct kmt_consumer *c = cs[i];

		if (takes(c, ev->ts)) {
			ret = c->event(c, ev, err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int kmt_pass_run(const struct kmt_trace *t, struct kmt_consumer *const *cs,
		 size_t nr, struct kmt_pass_info *pi, struct kmt_err *err)
{
	struct kmt_event ring[LOOKAHEAD];
	uint64_t head, tail, stop = 0;
	struct kmt_merge m;
	bool whole = false;
	int ret, more = 1;
	size_t i;

	memset(pi, 0, sizeof(*pi));
	for (i = 0; i < nr; i++) {
		whole |= cs[i]->whole;
		if (cs[i]->end > stop)
			stop = cs[i]->end;
	}
	if (whole)
		stop = UINT64_MAX;
	ret = kmt_merge_init(&m, t, err);
	if (ret)
		return ret;
	for (head = 0; head < LOOKAHEAD; head++) {
		more = kmt_merge_next(&m, &ring[head], err);
		if (more <= 0)
			break;
		prefetch(cs, nr, &ring[head]);
	}
	ret = more < 0 ? more : 0;
	for (tail = 0; tail < head && !ret; tail++) {
		struct kmt_event *ev = &ring[tail % LOOKAHEAD];

		if (ev->ts > stop) {
			pi->stopped = true;
			break;
		}
		if (!pi->nr_events++)
			pi->first_ts = ev->ts;
		pi->last_ts = ev->ts;
		ret = hand(cs, nr, ev, err);
		/* the slot is free again: read the next event into it */
		if (more > 0 && !ret) {
			more = kmt_merge_next(&m, ev, err);
			if (more < 0) {
				ret = more;
			} else if (more > 0) {
				prefetch(cs, nr, ev);
				head++;
			}
		}
	}
	kmt_merge_free(&m);
	for (i = 0; i < nr && !ret; i++)
		if (cs[i]->done)
			ret = cs[i]->done(cs[i], pi, err);
	return ret;
}

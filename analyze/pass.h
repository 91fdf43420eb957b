/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_PASS_H
#define KMT_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/hashmap.h"
#include "../lib/kmt.h"

/*
 * One pass over a trace, many consumers: the pass merges the CPUs'
 * events into time order once and hands each event to every consumer
 * whose time range holds it, in the order the consumers were given, as
 * perf's session hands its events to a tool (a batch at a time).  An analysis is a consumer
 * (its state, an event function, an end function); a command runs one
 * pass with the consumers it needs.
 */

/* What the pass read, for the consumers' end functions. */
struct kmt_pass_info {
	uint64_t nr_events;		/* every event read */
	uint64_t first_ts, last_ts;	/* of every event read */
	bool stopped;			/* ended early: no consumer wanted more */
};

struct kmt_consumer {
	void *self;			/* the consumer's state */
	/* the events it takes: start <= ts <= end (UINT64_MAX: to the end) */
	uint64_t start, end;
	/* the pass info its done() reads covers the whole trace, past @end */
	bool whole;
	/*
	 * The events it takes, in time order, @n at a time (a batch of
	 * the pass).  A negative errno with @err set stops the pass with
	 * that error.  Consumers see a batch one after the other: one
	 * reads another's state in moment() and done(), not here.
	 */
	int (*events)(struct kmt_consumer *c, const struct kmt_event *ev,
		      size_t n, struct kmt_err *err);
	/*
	 * Optional: called before the first event it takes whose time is
	 * at or after @next, with that event's time; it moves @next on
	 * (UINT64_MAX: no more).  Every consumer has taken every event
	 * before that one, and none has taken it, when a moment comes.
	 */
	uint64_t next;
	int (*moment)(struct kmt_consumer *c, uint64_t ts, struct kmt_err *err);
	/*
	 * Optional: a table keyed by object address whose slot for an
	 * event's ptr event() probes first: prefetched some events before
	 * the event comes, so that a miss in a big table overlaps with the
	 * work on the events before.
	 */
	const struct kmt_hm *prefetch;
	/* Optional: after the last event (not after an error). */
	int (*done)(struct kmt_consumer *c, const struct kmt_pass_info *pi,
		    struct kmt_err *err);
};

/*
 * Run @nr consumers over @t's events.  0, or the first error (negative
 * errno, @err set) of the reader or a consumer; a consumer's done() is
 * called only when every event it wanted was read without an error.
 * The pass stops reading once every consumer's range has ended, unless
 * one of them wants the whole trace.
 */
int kmt_pass_run(const struct kmt_trace *t, struct kmt_consumer *const *cs,
		 size_t nr, struct kmt_pass_info *pi, struct kmt_err *err);

#endif

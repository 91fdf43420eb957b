// SPDX-License-Identifier: GPL-2.0
/*
 * One pass, many consumers (analyze/pass.c): the events of every CPU in
 * time order to each consumer, each within its own range; the moments
 * before the event that reaches them, for every consumer before any
 * event function; done() once, not after an error; the pass stops
 * early only when no consumer wants more or the whole trace.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmt.h"
#include "kmt_build.h"
#include "../../analyze/pass.h"

#define A	(KB_TEXT_BASE + 0x100)
#define PTR(n)	(KB_DMAP_BASE + 64 * (n))

/* What a consumer saw, as text: "e<ts>" an event, "m<ts>" a moment. */
struct log {
	char buf[512];
	size_t len;
	uint64_t step;		/* moments: every @step ns */
	int fail_at;		/* event() fails at this event, 0: never */
	int nr;
	int done;
	struct kmt_pass_info pi;
	struct log *other;	/* a consumer whose log this one reads */
	char other_at_moment[512];
};

static void say(struct log *l, char what, uint64_t ts)
{
	l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len,
				   "%s%c%llu", l->len ? " " : "", what,
				   (unsigned long long)ts);
}

static int on_events(struct kmt_consumer *c, const struct kmt_event *ev,
		     size_t n, struct kmt_err *err)
{
	struct log *l = c->self;
	size_t i;

	for (i = 0; i < n; i++) {
		if (++l->nr == l->fail_at)
			return kmt_errf(err, EIO, "failed at %d", l->nr);
		say(l, 'e', ev[i].ts);
	}
	return 0;
}

static int on_moment(struct kmt_consumer *c, uint64_t ts, struct kmt_err *err)
{
	struct log *l = c->self;

	(void)err;
	say(l, 'm', ts);
	if (l->other)
		snprintf(l->other_at_moment, sizeof(l->other_at_moment), "%s",
			 l->other->buf);
	while (c->next <= ts)
		c->next += l->step;
	return 0;
}

static int on_done(struct kmt_consumer *c, const struct kmt_pass_info *pi,
		   struct kmt_err *err)
{
	struct log *l = c->self;

	(void)err;
	l->done++;
	l->pi = *pi;
	return 0;
}

static void consumer(struct kmt_consumer *c, struct log *l, uint64_t start,
		     uint64_t end)
{
	memset(c, 0, sizeof(*c));
	memset(l, 0, sizeof(*l));
	c->self = l;
	c->start = start;
	c->end = end;
	c->events = on_events;
	c->done = on_done;
}

/* Two CPUs, their events interleaved in time: 10 20 30 40 50 60. */
static void trace(struct kmt_trace *t, uint8_t **p)
{
	struct kb *b = kb_new(2, 4096);
	struct kmt_err err;
	size_t len;

	kb_kmalloc(b, 0, 10, KMT_CTX_TASK, 1, A, PTR(1), 8, 8, 0, -1);
	kb_kmalloc(b, 1, 20, KMT_CTX_TASK, 1, A, PTR(2), 8, 8, 0, -1);
	kb_kmalloc(b, 0, 30, KMT_CTX_TASK, 1, A, PTR(3), 8, 8, 0, -1);
	kb_kmalloc(b, 0, 40, KMT_CTX_TASK, 1, A, PTR(4), 8, 8, 0, -1);
	kb_kmalloc(b, 1, 50, KMT_CTX_TASK, 1, A, PTR(5), 8, 8, 0, -1);
	kb_kmalloc(b, 1, 60, KMT_CTX_TASK, 1, A, PTR(6), 8, 8, 0, -1);
	assert_int_equal(kb_finish(b, p, &len), 0);
	kb_free(b);
	assert_int_equal(kmt_trace_open_mem(*p, len, t, &err), 0);
}

static void test_ranges(void **state)
{
	struct kmt_consumer a, b, *cs[] = { &a, &b };
	struct kmt_pass_info pi;
	struct log la, lb;
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;

	(void)state;
	trace(&t, &p);
	consumer(&a, &la, 0, UINT64_MAX);
	consumer(&b, &lb, 20, 40);
	assert_int_equal(kmt_pass_run(&t, cs, 2, &pi, &err), 0);
	assert_string_equal(la.buf, "e10 e20 e30 e40 e50 e60");
	assert_string_equal(lb.buf, "e20 e30 e40");
	assert_int_equal(la.done, 1);
	assert_int_equal(lb.done, 1);
	assert_int_equal(pi.nr_events, 6);
	assert_int_equal(pi.first_ts, 10);
	assert_int_equal(pi.last_ts, 60);
	assert_false(pi.stopped);
	kmt_trace_close(&t);
	free(p);
}

/* No consumer wants past 30: the pass stops there, unless one is whole. */
static void test_stop(void **state)
{
	struct kmt_consumer a, *cs[] = { &a };
	struct kmt_pass_info pi;
	struct kmt_trace t;
	struct kmt_err err;
	struct log la;
	uint8_t *p;

	(void)state;
	trace(&t, &p);
	consumer(&a, &la, 0, 30);
	assert_int_equal(kmt_pass_run(&t, cs, 1, &pi, &err), 0);
	assert_string_equal(la.buf, "e10 e20 e30");
	assert_true(pi.stopped);
	assert_int_equal(pi.nr_events, 3);
	assert_int_equal(la.pi.last_ts, 30);

	consumer(&a, &la, 0, 30);
	a.whole = true;
	assert_int_equal(kmt_pass_run(&t, cs, 1, &pi, &err), 0);
	assert_string_equal(la.buf, "e10 e20 e30");
	assert_false(pi.stopped);
	assert_int_equal(la.pi.last_ts, 60);
	kmt_trace_close(&t);
	free(p);
}

/*
 * Moments every 25 ns from 25: before the event at 30 (for 25) and the
 * one at 50 (for 50), then the next is 75, past the trace; the other
 * consumer, given first, has not seen the event at 50 yet when the
 * moment before it comes.
 */
static void test_moments(void **state)
{
	struct kmt_consumer a, b, *cs[] = { &a, &b };
	struct kmt_pass_info pi;
	struct log la, lb;
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;

	(void)state;
	trace(&t, &p);
	consumer(&a, &la, 0, UINT64_MAX);
	consumer(&b, &lb, 0, UINT64_MAX);
	b.moment = on_moment;
	b.next = 25;
	lb.step = 25;
	lb.other = &la;
	assert_int_equal(kmt_pass_run(&t, cs, 2, &pi, &err), 0);
	assert_string_equal(lb.buf, "e10 e20 m30 e30 e40 m50 e50 e60");
	assert_string_equal(lb.other_at_moment, "e10 e20 e30 e40");
	assert_int_equal(b.next, 75);
	kmt_trace_close(&t);
	free(p);
}

/*
 * An error stops the pass: no done(), the error's message; the consumer
 * after the failing one is not handed that batch (the trace's six events
 * are one).
 */
static void test_error(void **state)
{
	struct kmt_consumer a, b, *cs[] = { &a, &b };
	struct kmt_err err = { "" };
	struct kmt_pass_info pi;
	struct log la, lb;
	struct kmt_trace t;
	uint8_t *p;

	(void)state;
	trace(&t, &p);
	consumer(&a, &la, 0, UINT64_MAX);
	consumer(&b, &lb, 0, UINT64_MAX);
	la.fail_at = 3;
	assert_int_equal(kmt_pass_run(&t, cs, 2, &pi, &err), -EIO);
	assert_string_equal(err.msg, "failed at 3");
	assert_string_equal(la.buf, "e10 e20");
	assert_string_equal(lb.buf, "");
	assert_int_equal(la.done + lb.done, 0);
	kmt_trace_close(&t);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_moments),
		cmocka_unit_test(test_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

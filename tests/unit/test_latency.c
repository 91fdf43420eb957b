// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation latency: begin/end pairing across CPUs, the allocation behind
 * each episode, unpaired events, thresholds and histogram buckets, on the
 * hand-computed scenario of kb_scenario_latency().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kmt.h"
#include "kmt_build.h"
#include "../../analyze/latency.h"

#define D(off)	(KB_DMAP_BASE + (off))
#define T(off)	(KB_TEXT_BASE + (off))

struct built {
	uint8_t *p;
	size_t len;
	struct kmt_trace t;
	struct kmt_symtab st;
};

static void open_built(struct kb *b, struct built *bt)
{
	struct kmt_err err;

	assert_int_equal(kb_finish(b, &bt->p, &bt->len), 0);
	kb_free(b);
	assert_int_equal(kmt_trace_open_mem(bt->p, bt->len, &bt->t, &err), 0);
	assert_int_equal(kmt_symtab_load(&bt->st, bt->t.kallsyms,
					 bt->t.kallsyms_len), 0);
}

static void close_built(struct built *bt)
{
	kmt_symtab_free(&bt->st);
	kmt_trace_close(&bt->t);
	free(bt->p);
}

static void scenario(struct built *bt)
{
	struct kb *b = kb_new(2, 4096);

	kb_set_gfp_names(b, true);
	kb_scenario_latency(b);
	open_built(b, bt);
}

static const struct kmt_lat_episode *find(const struct kmt_latency *l,
					  enum kmt_lat_kind kind, uint32_t pid)
{
	size_t i;

	for (i = 0; i < l->nr_ep; i++)
		if (l->ep[i].kind == kind && l->ep[i].pid == pid)
			return &l->ep[i];
	fail_msg("no episode of kind %d for pid %u", kind, pid);
	return NULL;
}

static void test_kinds(void **state)
{
	struct built bt;
	struct kmt_latency l;
	struct kmt_err err;

	(void)state;
	scenario(&bt);
	assert_int_equal(kmt_latency_analyze(&bt.t, &bt.st, 134000, 0, UINT64_MAX,
					     &l, &err), 0);
	assert_true(l.have_layouts);
	assert_int_equal(l.groups, 0xf);
	assert_int_equal(l.first_ts, 100);
	assert_int_equal(l.last_ts, 1710000);

	assert_int_equal(l.kind[KMT_LAT_RECLAIM].count, 2);
	assert_int_equal(l.kind[KMT_LAT_RECLAIM].above, 1);
	assert_int_equal(l.kind[KMT_LAT_RECLAIM].total_ns, 599000 + 50000);
	assert_int_equal(l.kind[KMT_LAT_RECLAIM].max_ns, 599000);
	assert_int_equal(l.kind[KMT_LAT_RECLAIM].unpaired, 1);

	assert_int_equal(l.kind[KMT_LAT_COMPACT].count, 2);
	assert_int_equal(l.kind[KMT_LAT_COMPACT].above, 1);
	assert_int_equal(l.kind[KMT_LAT_COMPACT].total_ns, 300000 + 50000);
	assert_int_equal(l.kind[KMT_LAT_COMPACT].max_ns, 300000);
	assert_int_equal(l.kind[KMT_LAT_COMPACT].unpaired, 0);

	assert_int_equal(l.kind[KMT_LAT_SHRINK].count, 2);
	assert_int_equal(l.kind[KMT_LAT_SHRINK].above, 1);
	assert_int_equal(l.kind[KMT_LAT_SHRINK].total_ns, 500000 + 10000);
	assert_int_equal(l.kind[KMT_LAT_SHRINK].max_ns, 500000);
	assert_int_equal(l.kind[KMT_LAT_SHRINK].unpaired, 1);

	assert_int_equal(l.kind[KMT_LAT_STALL].count, 2);
	assert_int_equal(l.kind[KMT_LAT_STALL].above, 2);
	assert_int_equal(l.kind[KMT_LAT_STALL].total_ns, 699000 + 400000);
	assert_int_equal(l.kind[KMT_LAT_STALL].max_ns, 699000);
	assert_int_equal(l.kind[KMT_LAT_STALL].unpaired, 1);

	/* 599 us: [512, 1023]; 50 us: [32, 63] */
	assert_int_equal(l.kind[KMT_LAT_RECLAIM].hist[9], 1);
	assert_int_equal(l.kind[KMT_LAT_RECLAIM].hist[5], 1);
	kmt_latency_free(&l);
	close_built(&bt);
}

static void test_episodes(void **state)
{
	const struct kmt_lat_episode *e;
	struct built bt;
	struct kmt_latency l;
	struct kmt_err err;

	(void)state;
	scenario(&bt);
	assert_int_equal(kmt_latency_analyze(&bt.t, &bt.st, 0, 0, UINT64_MAX,
					     &l, &err), 0);
	/* begun on CPU 0, ended on CPU 1 */
	e = find(&l, KMT_LAT_RECLAIM, 100);
	assert_int_equal(e->start, 1000);
	assert_int_equal(e->ns, 599000);
	assert_int_equal(e->cpu, 0);
	assert_string_equal(e->a.comm, "memhog");
	assert_int_equal(e->a.order, 0);
	assert_int_equal(e->a.gfp, 0xcc0);
	/* the first frame outside reclaim and the page allocator */
	assert_int_equal(e->a.site, T(0x6030));
	assert_int_equal(e->nr_reclaimed, 57);
	assert_int_equal(e->lru_scanned, 64);
	assert_int_equal(e->lru_reclaimed, 32);
	assert_int_equal(e->shrinks, 1);
	assert_int_equal(e->shrink_ns, 500000);

	e = find(&l, KMT_LAT_COMPACT, 300);
	assert_true(e->direct);
	assert_int_equal(e->ns, 300000);
	assert_int_equal(e->a.order, 9);
	assert_int_equal(e->a.priority, 1);
	assert_int_equal(e->a.site, T(0xa040));
	assert_int_equal(e->zone_start, 0x1000);
	assert_int_equal(e->zone_end, 0x40000);
	assert_int_equal(e->status, KMT_COMPACT_SUCCESS);
	assert_int_equal(e->sync, 0);

	e = find(&l, KMT_LAT_COMPACT, 40);
	assert_false(e->direct);
	assert_int_equal(e->sync, 1);
	assert_int_equal(e->status, KMT_COMPACT_COMPLETE);

	e = find(&l, KMT_LAT_STALL, 100);
	assert_int_equal(e->start, 1000);
	assert_int_equal(e->ns, 699000);
	assert_int_equal(e->nr_reclaim, 1);
	assert_int_equal(e->nr_compact, 0);
	assert_false(e->failed);
	e = find(&l, KMT_LAT_STALL, 300);
	assert_int_equal(e->ns, 400000);
	assert_int_equal(e->nr_compact, 1);

	/* one shrinker instance, two calls; the unended one has none */
	assert_int_equal(l.nr_shr, 2);
	assert_int_equal(l.shr[0].func, T(0x7000));
	assert_int_equal(l.shr[0].addr, D(0x10000));
	assert_string_equal(l.shr[0].name, "sb-tmpfs");
	assert_int_equal(l.shr[0].calls, 2);
	assert_int_equal(l.shr[0].total_ns, 510000);
	assert_int_equal(l.shr[0].max_ns, 500000);
	assert_int_equal(l.shr[0].freed, 105);
	assert_int_equal(l.shr[1].calls, 0);
	assert_string_equal(l.shr[1].name, "");

	/* sorted: slowest first */
	kmt_latency_sort(&l);
	assert_int_equal(l.ep[0].ns, 699000);
	assert_int_equal(l.ep[l.nr_ep - 1].ns, 10000);
	kmt_latency_free(&l);
	close_built(&bt);
}

static void test_unpaired(void **state)
{
	struct built bt;
	struct kmt_latency l;
	struct kmt_err err;

	(void)state;
	scenario(&bt);
	assert_int_equal(kmt_latency_analyze(&bt.t, &bt.st, 0, 0, UINT64_MAX,
					     &l, &err), 0);
	assert_int_equal(l.nr_unp, 3);
	kmt_latency_sort(&l);
	/* pid 200 reclaimed, and its allocation never returned */
	assert_int_equal(l.unp[0].kind, KMT_LAT_STALL);
	assert_int_equal(l.unp[0].type, KMT_EV_RECLAIM_BEGIN);
	assert_int_equal(l.unp[0].pid, 200);
	assert_int_equal(l.unp[0].ts, 800000);
	assert_true(l.unp[0].at_end);
	assert_int_equal(l.unp[1].kind, KMT_LAT_RECLAIM);
	assert_int_equal(l.unp[1].type, KMT_EV_RECLAIM_END);
	assert_int_equal(l.unp[1].pid, 500);
	assert_int_equal(l.unp[1].ts, 1500000);
	assert_false(l.unp[1].at_end);
	assert_int_equal(l.unp[2].kind, KMT_LAT_SHRINK);
	assert_int_equal(l.unp[2].type, KMT_EV_SHRINK_START);
	assert_int_equal(l.unp[2].pid, 600);
	assert_int_equal(l.unp[2].ts, 1600000);
	assert_true(l.unp[2].at_end);
	kmt_latency_free(&l);
	close_built(&bt);
}

/* A begin followed by another begin of the same task: the first is unpaired. */
static void test_double_begin(void **state)
{
	static const uint64_t stack[] = { T(0x6030) };
	struct kb *b = kb_new(1, 4096);
	struct built bt;
	struct kmt_latency l;
	struct kmt_err err;

	(void)state;
	kb_groups(b, 0, 10, 1u << KMT_GROUP_RECLAIM);
	kb_reclaim_begin(b, 0, 100, 7, 0, 0xcc0, "a", stack, 1);
	kb_reclaim_begin(b, 0, 200, 7, 0, 0xcc0, "a", stack, 1);
	kb_reclaim_end(b, 0, 1200, 7, 1);
	open_built(b, &bt);
	assert_int_equal(kmt_latency_analyze(&bt.t, &bt.st, 0, 0, UINT64_MAX,
					     &l, &err), 0);
	assert_int_equal(l.kind[KMT_LAT_RECLAIM].count, 1);
	assert_int_equal(l.ep[0].start, 200);
	assert_int_equal(l.ep[0].ns, 1000);
	assert_int_equal(l.kind[KMT_LAT_RECLAIM].unpaired, 1);
	assert_int_equal(l.unp[0].ts, 100);
	assert_false(l.unp[0].at_end);
	/* no kmem group: no stalls, since nothing ends them */
	assert_int_equal(l.kind[KMT_LAT_STALL].count, 0);
	assert_int_equal(l.kind[KMT_LAT_STALL].unpaired, 0);
	kmt_latency_free(&l);
	close_built(&bt);
}

/* --time: the episodes that start within the window. */
static void test_window(void **state)
{
	struct built bt;
	struct kmt_latency l;
	struct kmt_err err;

	(void)state;
	scenario(&bt);
	assert_int_equal(kmt_latency_analyze(&bt.t, &bt.st, 0, 800000, 1000000,
					     &l, &err), 0);
	assert_int_equal(l.kind[KMT_LAT_RECLAIM].count, 1);
	assert_int_equal(l.ep[0].pid, 200);
	assert_int_equal(l.kind[KMT_LAT_COMPACT].count, 1);	/* pid 300 */
	assert_int_equal(l.kind[KMT_LAT_STALL].count, 1);	/* pid 300 */
	assert_int_equal(l.kind[KMT_LAT_SHRINK].count, 0);
	assert_int_equal(l.nr_unp, 1);				/* pid 200's stall */
	kmt_latency_free(&l);
	close_built(&bt);
}

static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(kmt_lat_bucket(0), 0);
	assert_int_equal(kmt_lat_bucket(1999), 0);
	assert_int_equal(kmt_lat_bucket(2000), 1);
	assert_int_equal(kmt_lat_bucket(3999), 1);
	assert_int_equal(kmt_lat_bucket(4000), 2);
	assert_int_equal(kmt_lat_bucket(134000), 7);
	assert_int_equal(kmt_lat_bucket(UINT64_MAX), 31);
	assert_string_equal(kmt_compact_status_name(KMT_COMPACT_SUCCESS), "success");
	assert_string_equal(kmt_compact_status_name(KMT_COMPACT_PARTIAL_SKIPPED),
			    "partial_skipped");
	assert_string_equal(kmt_compact_status_name(200), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_episodes),
		cmocka_unit_test(test_unpaired),
		cmocka_unit_test(test_double_begin),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_buckets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

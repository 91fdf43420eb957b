// SPDX-License-Identifier: GPL-2.0
/*
 * Slab statistics on hand-built traces with hand-computed numbers, the
 * caller-table sort keys, and the hash map the analysis is built on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kmt.h"
#include "kmt_build.h"
#include "../../analyze/slab.h"

#define D(off)	(KB_DMAP_BASE + (off))
#define T(off)	(KB_TEXT_BASE + (off))

#define assert_msg(err, substr)						\
	do {								\
		if (!strstr((err)->msg, (substr)))			\
			fail_msg("error message \"%s\" lacks \"%s\"",	\
				 (err)->msg, (substr));			\
	} while (0)

struct built {
	uint8_t *p;
	size_t len;
	struct kmt_trace t;
};

static void open_built(struct kb *b, struct built *bt)
{
	struct kmt_err err;

	assert_int_equal(kb_finish(b, &bt->p, &bt->len), 0);
	kb_free(b);
	if (kmt_trace_open_mem(bt->p, bt->len, &bt->t, &err))
		fail_msg("open: %s", err.msg);
}

static void close_built(struct built *bt)
{
	kmt_trace_close(&bt->t);
	free(bt->p);
}

static void analyze(const struct built *bt, struct kmt_slab *s)
{
	struct kmt_err err;
	int ret;

	memset(&err, 0, sizeof(err));
	ret = kmt_slab_analyze(&bt->t, s, &err);
	if (ret)
		fail_msg("analyze: %d %s", ret, err.msg);
}

static void sort_by(struct kmt_slab *s, const char *spec)
{
	enum kmt_slab_key keys[KMT_SLAB_MAX_KEYS];
	unsigned int nr;
	struct kmt_err err;

	if (kmt_slab_parse_sort(spec, keys, &nr, &err))
		fail_msg("sort %s: %s", spec, err.msg);
	kmt_slab_sort(s, keys, nr);
}

static void check_caller(const struct kmt_caller *c, uint64_t site,
			 uint64_t alloc, uint64_t req, uint64_t hit,
			 uint64_t pingpong)
{
	if (c->call_site != site)
		fail_msg("call site 0x%llx, expected 0x%llx",
			 (unsigned long long)c->call_site,
			 (unsigned long long)site);
	assert_true(c->bytes_alloc == alloc);
	assert_true(c->bytes_req == req);
	assert_true(c->hit == hit);
	assert_true(c->pingpong == pingpong);
}

static void test_basic_totals(void **state)
{
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(2, 4096);

	(void)state;
	kb_scenario_basic(b);
	open_built(b, &bt);
	analyze(&bt, &s);

	assert_int_equal(s.nr_callers, 3);
	assert_true(s.total_req == 7322);
	assert_true(s.total_alloc == 7520);
	assert_true(s.total_freed == 320);
	assert_true(s.nr_allocs == 5);
	assert_true(s.nr_failed == 1);
	assert_true(s.nr_frees == 3);
	assert_true(s.nr_unknown_frees == 1);
	assert_true(s.nr_unknown_cache == 0);
	assert_true(s.nr_cross_cpu == 1);
	assert_true(s.nr_cross_node == 0);
	assert_true(s.nr_node_known == 5);
	assert_true(s.nr_events == 14);
	assert_true(s.lost == 0);
	assert_true(s.by_type[KMT_EV_CACHE_DEF] == 2);
	assert_true(s.by_type[KMT_EV_KMALLOC] == 4);
	assert_true(s.by_type[KMT_EV_CACHE_ALLOC] == 2);
	assert_true(s.by_type[KMT_EV_KFREE] == 3);
	assert_true(s.by_type[KMT_EV_CACHE_FREE] == 1);
	assert_true(s.by_type[KMT_EV_PAGE_ALLOC] == 1);
	assert_true(s.by_type[KMT_EV_PAGE_FREE] == 1);
	assert_true(s.by_type[KMT_EV_MARK] == 0);

	/* default report order */
	sort_by(&s, "frag,hit,bytes");
	check_caller(&s.callers[0], T(0x1010), 160, 130, 2, 1);
	check_caller(&s.callers[1], T(0x2005), 4096, 4000, 1, 0);
	check_caller(&s.callers[2], T(0x1040), 3264, 3192, 2, 0);

	kmt_slab_free(&s);
	assert_null(s.callers);
	assert_int_equal(s.nr_callers, 0);
	close_built(&bt);
}

/* The same numbers from the trace written in the other byte order. */
static void test_basic_swapped(void **state)
{
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(2, 4096);

	(void)state;
	kb_set_swap(b, true);
	kb_scenario_basic(b);
	kb_set_lost(b, 0, 4);
	kb_set_lost(b, 1, 3);
	open_built(b, &bt);
	assert_true(bt.t.swap);
	analyze(&bt, &s);
	assert_true(s.total_req == 7322);
	assert_true(s.total_alloc == 7520);
	assert_true(s.total_freed == 320);
	assert_true(s.nr_cross_cpu == 1);
	assert_true(s.nr_node_known == 5);
	assert_true(s.nr_events == 14);
	assert_true(s.lost == 7);
	sort_by(&s, "frag,hit,bytes");
	check_caller(&s.callers[0], T(0x1010), 160, 130, 2, 1);
	check_caller(&s.callers[1], T(0x2005), 4096, 4000, 1, 0);
	check_caller(&s.callers[2], T(0x1040), 3264, 3192, 2, 0);
	kmt_slab_free(&s);
	close_built(&bt);
}

static void test_basic_sort_keys(void **state)
{
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(2, 4096);

	(void)state;
	kb_scenario_basic(b);
	open_built(b, &bt);
	analyze(&bt, &s);

	sort_by(&s, "callsite");
	assert_true(s.callers[0].call_site == T(0x1010));
	assert_true(s.callers[1].call_site == T(0x1040));
	assert_true(s.callers[2].call_site == T(0x2005));

	sort_by(&s, "bytes");
	assert_true(s.callers[0].call_site == T(0x2005));
	assert_true(s.callers[1].call_site == T(0x1040));
	assert_true(s.callers[2].call_site == T(0x1010));

	sort_by(&s, "hit");
	assert_true(s.callers[0].call_site == T(0x1010));
	assert_true(s.callers[1].call_site == T(0x1040));
	assert_true(s.callers[2].call_site == T(0x2005));

	/* one caller ping-pongs; the tie of the others goes by address */
	sort_by(&s, "pingpong");
	assert_true(s.callers[0].call_site == T(0x1010));
	assert_true(s.callers[1].call_site == T(0x1040));
	assert_true(s.callers[2].call_site == T(0x2005));

	sort_by(&s, "frag");
	assert_true(s.callers[0].call_site == T(0x1010));
	assert_true(s.callers[1].call_site == T(0x2005));
	assert_true(s.callers[2].call_site == T(0x1040));

	kmt_slab_free(&s);
	close_built(&bt);
}

/* Each key on a hand-made table where every key orders differently. */
static void test_sort_keys_table(void **state)
{
	static const struct kmt_caller table[] = {
		{ .call_site = 0x30, .bytes_alloc = 100, .bytes_req = 50, .hit = 1, .pingpong = 9 },	/* frag 50 */
		{ .call_site = 0x10, .bytes_alloc = 400, .bytes_req = 300, .hit = 7, .pingpong = 0 },	/* frag 25 */
		{ .call_site = 0x40, .bytes_alloc = 0, .bytes_req = 0, .hit = 5, .pingpong = 2 },		/* frag 0 (nothing allocated) */
		{ .call_site = 0x20, .bytes_alloc = 800, .bytes_req = 790, .hit = 3, .pingpong = 5 },	/* frag 1.25 */
		{ .call_site = 0x50, .bytes_alloc = 200, .bytes_req = 150, .hit = 7, .pingpong = 1 },	/* frag 25 */
	};
	static const struct {
		const char *spec;
		uint64_t order[5];
	} cases[] = {
		{ "callsite", { 0x10, 0x20, 0x30, 0x40, 0x50 } },
		{ "pingpong", { 0x30, 0x20, 0x40, 0x50, 0x10 } },
		{ "hit", { 0x10, 0x50, 0x40, 0x20, 0x30 } },
		{ "bytes", { 0x20, 0x10, 0x50, 0x30, 0x40 } },
		{ "frag", { 0x30, 0x10, 0x50, 0x20, 0x40 } },
		{ "frag,bytes", { 0x30, 0x10, 0x50, 0x20, 0x40 } },
		{ "frag,pingpong", { 0x30, 0x50, 0x10, 0x20, 0x40 } },
		{ "hit,bytes", { 0x10, 0x50, 0x40, 0x20, 0x30 } },
		{ "hit,pingpong", { 0x50, 0x10, 0x40, 0x20, 0x30 } },
		{ "hit,callsite", { 0x10, 0x50, 0x40, 0x20, 0x30 } },
	};
	struct kmt_slab s;
	unsigned int i, j;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.callers = malloc(sizeof(table));
	assert_non_null(s.callers);
	s.nr_callers = 5;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* start from the same order each time */
		memcpy(s.callers, table, sizeof(table));
		sort_by(&s, cases[i].spec);
		for (j = 0; j < 5; j++)
			if (s.callers[j].call_site != cases[i].order[j])
				fail_msg("sort \"%s\": position %u is 0x%llx, expected 0x%llx",
					 cases[i].spec, j,
					 (unsigned long long)s.callers[j].call_site,
					 (unsigned long long)cases[i].order[j]);
	}
	kmt_slab_free(&s);
}

static void test_parse_sort(void **state)
{
	enum kmt_slab_key keys[KMT_SLAB_MAX_KEYS];
	unsigned int nr = 99;
	struct kmt_err err;

	(void)state;
	assert_int_equal(kmt_slab_parse_sort("frag,hit,bytes", keys, &nr, &err), 0);
	assert_int_equal(nr, 3);
	assert_int_equal(keys[0], KMT_SK_FRAG);
	assert_int_equal(keys[1], KMT_SK_HIT);
	assert_int_equal(keys[2], KMT_SK_BYTES);

	assert_int_equal(kmt_slab_parse_sort("pingpong,callsite", keys, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(keys[0], KMT_SK_PINGPONG);
	assert_int_equal(keys[1], KMT_SK_CALLSITE);

	assert_int_equal(kmt_slab_parse_sort("bytes", keys, &nr, &err), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(keys[0], KMT_SK_BYTES);

	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_slab_parse_sort("bogus", keys, &nr, &err), -EINVAL);
	assert_msg(&err, "unknown sort key 'bogus'");
	assert_msg(&err, "valid: frag, hit, bytes, callsite, pingpong");

	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_slab_parse_sort("frag,hitx", keys, &nr, &err), -EINVAL);
	assert_msg(&err, "unknown sort key 'hitx'");
	assert_int_equal(kmt_slab_parse_sort("hi", keys, &nr, &err), -EINVAL);
	assert_msg(&err, "unknown sort key 'hi'");
	assert_int_equal(kmt_slab_parse_sort("Frag", keys, &nr, &err), -EINVAL);
	assert_msg(&err, "unknown sort key 'Frag'");

	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_slab_parse_sort("", keys, &nr, &err), -EINVAL);
	assert_msg(&err, "empty sort key list");

	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_slab_parse_sort(
		"hit,hit,hit,hit,hit,hit,hit,hit", keys, &nr, &err), 0);
	assert_int_equal(nr, 8);
	assert_int_equal(kmt_slab_parse_sort(
		"hit,hit,hit,hit,hit,hit,hit,hit,hit", keys, &nr, &err), -EINVAL);
	assert_msg(&err, "more than 8 sort keys");
}

static void test_frag(void **state)
{
	(void)state;
	assert_true(kmt_frag(0, 0) == 0.0);
	assert_true(kmt_frag(64, 64) == 0.0);
	assert_true(kmt_frag(50, 100) == 50.0);
	assert_true(kmt_frag(0, 128) == 100.0);
	assert_true(kmt_frag(3000, 3072) > 2.34 && kmt_frag(3000, 3072) < 2.35);
}

/*
 * Two nodes: cpu 0 on node 0 (pfns 0-4095), cpu 1 on node 1 (pfns
 * 4096-8191); cpu 2 has no node in the topology.
 */
static void test_cross_node(void **state)
{
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(3, 4096);

	(void)state;
	kb_set_topology(b, "cpu 0 node 0\ncpu 1 node 1\n"
			"node 0 start_pfn 0 end_pfn 4096\n"
			"node 1 start_pfn 4096 end_pfn 8192\n");
	/* cpu 0: own node, other node, other node's last page */
	kb_kmalloc(b, 0, 100, KMT_CTX_TASK, 1, T(0x100), D(0x1000), 8, 8, 0, -1);
	kb_kmalloc(b, 0, 200, KMT_CTX_TASK, 1, T(0x100), D(0x1000000), 8, 8, 0, 1);
	kb_kmalloc(b, 0, 250, KMT_CTX_TASK, 1, T(0x100), D(0x1fff000 + 0xff8), 8, 8, 0, 1);
	/* cpu 1: node 0's last page, own node, no node, a failure */
	kb_kmalloc(b, 1, 300, KMT_CTX_TASK, 2, T(0x200), D(0xfff000), 8, 8, 0, 0);
	kb_kmalloc(b, 1, 400, KMT_CTX_TASK, 2, T(0x200), D(0x1001000), 8, 8, 0, -1);
	kb_kmalloc(b, 1, 500, KMT_CTX_TASK, 2, T(0x200), D(0x2000000), 8, 8, 0, -1);
	kb_kmalloc(b, 1, 600, KMT_CTX_TASK, 2, T(0x200), 0, 8, 8, 0, -1);
	/* cpu 2: node unknown, whatever the object */
	kb_kmalloc(b, 2, 700, KMT_CTX_TASK, 3, T(0x300), D(0x1000), 8, 8, 0, -1);
	open_built(b, &bt);
	assert_int_equal(bt.t.cpus[0].node, 0);
	assert_int_equal(bt.t.cpus[1].node, 1);
	assert_int_equal(bt.t.cpus[2].node, -1);
	assert_int_equal(bt.t.nr_nodes, 2);
	assert_int_equal(kmt_trace_pfn_node(&bt.t, 4095), 0);
	assert_int_equal(kmt_trace_pfn_node(&bt.t, 4096), 1);
	assert_int_equal(kmt_trace_pfn_node(&bt.t, 8192), -1);

	analyze(&bt, &s);
	assert_true(s.nr_allocs == 7);
	assert_true(s.nr_failed == 1);
	assert_true(s.nr_node_known == 5);
	assert_true(s.nr_cross_node == 3);
	assert_true(s.nr_cross_cpu == 0);
	kmt_slab_free(&s);
	close_built(&bt);
}

/* Frees: same CPU, other CPU, twice, unknown; cache ids without a def. */
static void test_frees_and_unknown_cache(void **state)
{
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(2, 4096);

	(void)state;
	kb_cache_def(b, 0, 10, 5, 100, 128, 8, "five");
	kb_cache_alloc(b, 0, 100, KMT_CTX_TASK, 1, T(0x500), D(0x100), 5, 0, -1);
	kb_cache_alloc(b, 0, 110, KMT_CTX_TASK, 1, T(0x500), D(0x200), 9, 0, -1);
	kb_kmalloc(b, 1, 120, KMT_CTX_TASK, 2, T(0x600), D(0x300), 5000,
		   8192, 0, -1);
	kb_cache_free(b, 1, 200, KMT_CTX_TASK, 2, T(0x700), D(0x100), 5);
	kb_cache_free(b, 0, 210, KMT_CTX_TASK, 1, T(0x700), D(0x200), 9);
	kb_kfree(b, 1, 220, KMT_CTX_TASK, 2, T(0x700), D(0x300));
	kb_kfree(b, 1, 230, KMT_CTX_TASK, 2, T(0x700), D(0x300));	/* again */
	kb_kfree(b, 0, 240, KMT_CTX_TASK, 1, T(0x700), 0);
	/* the address is reused: a new object */
	kb_kmalloc(b, 0, 300, KMT_CTX_TASK, 1, T(0x600), D(0x300), 10, 16, 0, -1);
	kb_kfree(b, 1, 310, KMT_CTX_TASK, 2, T(0x700), D(0x300));
	open_built(b, &bt);
	analyze(&bt, &s);

	assert_true(s.nr_unknown_cache == 1);
	assert_true(s.nr_allocs == 4);
	assert_true(s.nr_failed == 0);
	assert_true(s.nr_frees == 5);
	assert_true(s.nr_unknown_frees == 1);
	assert_true(s.nr_cross_cpu == 2);
	assert_true(s.total_req == 100 + 0 + 5000 + 10);
	assert_true(s.total_alloc == 128 + 0 + 8192 + 16);
	assert_true(s.total_freed == 128 + 0 + 8192 + 16);
	assert_true(s.nr_events == 11);

	sort_by(&s, "callsite");
	assert_int_equal(s.nr_callers, 2);
	check_caller(&s.callers[0], T(0x500), 128, 100, 2, 1);
	check_caller(&s.callers[1], T(0x600), 8208, 5010, 2, 1);
	kmt_slab_free(&s);
	close_built(&bt);
}

/*
 * Every event kind written twice, as perf record does at times: each
 * counts as perf kmem stat counts it.  An allocation again is another
 * hit; a free again frees the object's bytes again and is a ping-pong
 * of its rows (perf marks a freed object's CPU as none), but no
 * cross-CPU free; a free of an object never allocated is unknown
 * twice; a page allocation again is another request, and a page free
 * again is a free of a page not allocated.
 */
static void test_repeated_events(void **state)
{
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(2, 4096);
	int i;

	(void)state;
	kb_cache_def(b, 0, 10, 5, 100, 128, 8, "five");
	for (i = 0; i < 2; i++)
		kb_kmalloc(b, 0, 100, KMT_CTX_TASK, 1, T(0x600), D(0x300), 100,
			   128, 0, -1);
	for (i = 0; i < 2; i++)	/* on another CPU: a real ping-pong, then one more */
		kb_kfree(b, 1, 200, KMT_CTX_TASK, 2, T(0x700), D(0x300));
	for (i = 0; i < 2; i++)
		kb_cache_alloc(b, 0, 300, KMT_CTX_TASK, 1, T(0x500), D(0x100), 5,
			       0, -1);
	for (i = 0; i < 2; i++)	/* on the same CPU: only the second is one */
		kb_cache_free(b, 0, 400, KMT_CTX_TASK, 1, T(0x700), D(0x100), 5);
	for (i = 0; i < 2; i++)
		kb_kfree(b, 0, 500, KMT_CTX_TASK, 1, T(0x700), D(0x900));
	for (i = 0; i < 2; i++)
		kb_page_alloc(b, 0, 600, KMT_CTX_TASK, 1, 0x1001, 1, 0xcc0, 0);
	for (i = 0; i < 2; i++)
		kb_page_free(b, 0, 700, KMT_CTX_TASK, 1, 0x1001, 1);
	open_built(b, &bt);
	analyze(&bt, &s);

	assert_true(s.nr_allocs == 4);
	assert_true(s.nr_repeated == 2);
	assert_true(s.total_alloc == 4 * 128);
	assert_true(s.total_req == 4 * 100);
	assert_true(s.nr_frees == 6);
	assert_true(s.nr_repeated_frees == 2);
	assert_true(s.nr_unknown_frees == 2);
	assert_true(s.total_freed == 4 * 128);
	assert_true(s.nr_cross_cpu == 1);
	assert_true(s.nr_untraced_frees == 0);
	assert_true(s.live_objs == 0);

	sort_by(&s, "callsite");
	assert_int_equal(s.nr_callers, 2);
	check_caller(&s.callers[0], T(0x500), 256, 200, 2, 1);
	check_caller(&s.callers[1], T(0x600), 256, 200, 2, 2);

	assert_true(s.pg_requests == 2);
	assert_true(s.pg_bytes_alloc == 2 * 8192);
	assert_true(s.pg_order_mt[1][0] == 2);
	assert_true(s.pg_frees == 2);
	assert_true(s.pg_bytes_freed == 2 * 8192);
	assert_true(s.pg_free_unmatched == 1);
	assert_true(s.pg_live_blocks == 0);
	kmt_slab_free(&s);
	close_built(&bt);
}

/* What a sampler records: the moments and what was held at each. */
struct samples {
	unsigned int n;
	uint64_t ts[16];
	struct kmt_held h[16];
	uint64_t w[16][3];
};

static int record_sample(struct kmt_sampler *sp, const struct kmt_slab *s,
			 uint64_t ts)
{
	struct samples *r = sp->arg;

	if (r->n >= 16)
		return -E2BIG;
	r->ts[r->n] = ts;
	r->h[r->n] = s->held;
	memcpy(r->w[r->n], sp->held, sizeof(r->w[0]));
	r->n++;
	sp->next += 250;
	return 0;
}

#define assert_held(r, i, t_, slab_, pages_, vm_, a_, c_, p_)		\
	do {								\
		if ((r)->ts[i] != (t_) || (r)->h[i].slab != (slab_) ||	\
		    (r)->h[i].pages != (pages_) ||			\
		    (r)->h[i].vmalloc != (vm_) || (r)->w[i][0] != (a_) ||	\
		    (r)->w[i][1] != (c_) || (r)->w[i][2] != (p_))		\
			fail_msg("sample %d: at %llu slab %llu pages %llu vmalloc %llu watched %llu %llu %llu", \
				 i, (unsigned long long)(r)->ts[i],	\
				 (unsigned long long)(r)->h[i].slab,	\
				 (unsigned long long)(r)->h[i].pages,	\
				 (unsigned long long)(r)->h[i].vmalloc,	\
				 (unsigned long long)(r)->w[i][0],	\
				 (unsigned long long)(r)->w[i][1],	\
				 (unsigned long long)(r)->w[i][2]);	\
	} while (0)

/*
 * Memory held as the pass goes (kmemflight plot): sampled every 250 ns,
 * through an untraced free, a large kmalloc traced twice, an event
 * written twice, pages, vmalloc areas and a recorder sub-buffer; at the
 * end, the same as the footprint.
 */
static void test_held_sampled(void **state)
{
	const uint64_t frames[] = { T(0x500) };
	struct samples r = { 0 };
	struct kmt_sampler sp = {
		.next = 0, .fn = record_sample, .arg = &r, .nr_watch = 3,
		.site = { T(0x100), T(0x300), T(0x500) },
		.page = { false, false, true },
	};
	struct kmt_err err = { "" };
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(1, 4096);
	int i;

	(void)state;
	kb_kmalloc(b, 0, 100, KMT_CTX_TASK, 1, T(0x100), D(0x1000), 100, 128, 0, -1);
	kb_kmalloc(b, 0, 200, KMT_CTX_TASK, 1, T(0x200), D(0x2000), 200, 256, 0, -1);
	/* allocated again: its free was not traced, 64 bytes now */
	kb_kmalloc(b, 0, 300, KMT_CTX_TASK, 1, T(0x100), D(0x1000), 60, 64, 0, -1);
	kb_kfree(b, 0, 400, KMT_CTX_TASK, 1, T(0x700), D(0x2000));
	/* a large kmalloc, traced inside the allocator, then for its caller */
	kb_kmalloc(b, 0, 500, KMT_CTX_TASK, 1, T(0x900), D(0x10000), 16384, 16384, 0, -1);
	kb_kmalloc(b, 0, 500, KMT_CTX_TASK, 1, T(0x300), D(0x10000), 16384, 16384, 0, -1);
	for (i = 0; i < 2; i++)	/* one event written twice */
		kb_kmalloc(b, 0, 600, KMT_CTX_TASK, 1, T(0x400), D(0x3000), 32, 32, 0, -1);
	kb_page_alloc_stack(b, 0, 700, KMT_CTX_TASK, 1, 0x1001, 1, 0xcc0, 0,
			    frames, 1);
	kb_page_alloc(b, 0, 800, KMT_CTX_TASK, 1, 0x2000, 0, 0xcc0, 0);
	kb_page_free(b, 0, 900, KMT_CTX_TASK, 1, 0x1001, 1);
	kb_vmalloc(b, 0, 1000, 1, KMT_VM_ALLOC, 0xffffc90000000000ULL, 3, T(0x800));
	kb_vmalloc(b, 0, 1100, 1, KMT_VM_ALLOC, 0xffffc90000100000ULL, 2, T(0x800));
	kb_vmalloc(b, 0, 1200, 1, KMT_VM_FREE, 0xffffc90000000000ULL, 3, T(0x800));
	kb_page_alloc(b, 0, 1300, KMT_CTX_TASK, 1, 0x3000, 0, 0xcc0, 0);
	kb_buffer(b, 0, 1310, 0, 0x3000, 0);
	open_built(b, &bt);
	if (kmt_slab_analyze_sampled(&bt.t, 0, UINT64_MAX, NULL, &sp, &s, &err))
		fail_msg("analyze: %s", err.msg);

	assert_int_equal(r.n, 7);
	assert_held(&r, 0, 0, 0, 0, 0, 0, 0, 0);
	assert_held(&r, 1, 250, 384, 0, 0, 128, 0, 0);
	assert_held(&r, 2, 500, 64, 0, 0, 64, 0, 0);
	assert_held(&r, 3, 750, 64 + 16384 + 32, 8192, 0, 64, 16384, 8192);
	assert_held(&r, 4, 1000, 64 + 16384 + 32, 4096, 0, 64, 16384, 0);
	assert_held(&r, 5, 1250, 64 + 16384 + 32, 4096, 8192, 64, 16384, 0);
	assert_held(&r, 6, 1310, 64 + 16384 + 32, 8192, 8192, 64, 16384, 0);
	assert_true(r.h[6].buffers == 4096);
	assert_true(r.h[6].buf_pages == 4096);
	assert_true(r.h[5].buffers == 0);
	/* at the end, what is held is the footprint */
	assert_true(s.held.slab == s.live_bytes);
	assert_true(s.held.pages == s.pg_live_bytes);
	assert_true(s.held.vmalloc == s.vm_live_bytes);
	assert_true(s.held.buf_pages == s.rec_buffer_bytes);
	assert_null(s.sampler);
	/* by who allocated: all of it, the page and slab bytes of the one task */
	{
		uint64_t sum = 0;
		size_t w;

		for (w = 0; w < s.who_cap; w++)
			sum += s.who_held[w];
		assert_true(sum == s.held.slab + s.held.pages);
	}
	kmt_slab_free(&s);
	close_built(&bt);
}

/* The row of a slab allocation by callsite, wrapper and cache, or NULL. */
static const struct kmt_stack_row *slab_row(const struct kmt_slab *s,
					    uint64_t site, uint64_t via,
					    uint32_t cache, uint32_t size)
{
	size_t i;

	for (i = 0; i < s->nr_stack_rows; i++) {
		const struct kmt_stack_row *r = &s->stack_rows[i];

		if (!r->page && r->site == site && r->via == via &&
		    r->cache == cache && r->size == size)
			return r;
	}
	return NULL;
}

/*
 * Stacks (kmemflight flame): slab allocations by callsite, wrapper and
 * cache, page allocations by their recorded stack and order; what each
 * allocated and still holds, a large kmalloc traced twice counted once.
 */
static void test_stacks(void **state)
{
	const uint64_t st1[] = { T(0x5010), T(0x2020) };
	const uint64_t st2[] = { T(0x5010), T(0x3030) };
	const uint64_t wrap[] = { T(0x1800) };
	const struct kmt_stack_row *r;
	struct kmt_err err = { "" };
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(1, 4096);
	size_t i, pages = 0;

	(void)state;
	kb_cache_def(b, 0, 10, 7, 200, 256, 8, "thing");
	kb_kmalloc(b, 0, 100, KMT_CTX_TASK, 1, T(0x100), D(0x1000), 100, 128, 0, -1);
	kb_kmalloc(b, 0, 110, KMT_CTX_TASK, 1, T(0x100), D(0x1100), 100, 128, 0, -1);
	kb_kfree(b, 0, 120, KMT_CTX_TASK, 1, T(0x700), D(0x1000));
	/* through a wrapper: the callsite outside it, the wrapper's call */
	kb_kmalloc_via(b, 0, 130, KMT_CTX_TASK, 1, T(0x1810), D(0x2000), 1000, 1024,
		       0, -1, wrap, 1);
	kb_cache_alloc(b, 0, 140, KMT_CTX_TASK, 1, T(0x100), D(0x3000), 7, 0, -1);
	kb_kmalloc(b, 0, 150, KMT_CTX_TASK, 1, T(0x900), D(0x10000), 16384, 16384, 0, -1);
	kb_kmalloc(b, 0, 150, KMT_CTX_TASK, 1, T(0x300), D(0x10000), 16384, 16384, 0, -1);
	kb_page_alloc_stack(b, 0, 160, KMT_CTX_TASK, 1, 0x1001, 0, 0xcc0, 0, st1, 2);
	kb_page_alloc_stack(b, 0, 170, KMT_CTX_TASK, 1, 0x1002, 0, 0xcc0, 0, st1, 2);
	kb_page_alloc_stack(b, 0, 180, KMT_CTX_TASK, 1, 0x1004, 2, 0xcc0, 0, st2, 2);
	kb_page_alloc(b, 0, 190, KMT_CTX_TASK, 1, 0x1010, 1, 0xcc0, 0);
	kb_page_free(b, 0, 200, KMT_CTX_TASK, 1, 0x1002, 0);
	open_built(b, &bt);
	if (kmt_slab_analyze_stacks(&bt.t, 0, UINT64_MAX, NULL, &s, &err))
		fail_msg("analyze: %s", err.msg);

	r = slab_row(&s, T(0x100), 0, 0, 128);
	assert_non_null(r);
	assert_true(r->alloc == 256 && r->hit == 2 && r->held == 128 && r->held_objs == 1);
	r = slab_row(&s, T(0x1800), T(0x1810), 0, 1024);
	assert_non_null(r);
	assert_true(r->alloc == 1024 && r->hit == 1 && r->held == 1024 && r->stack_len == 2);
	r = slab_row(&s, T(0x100), 0, 7, 0);
	assert_non_null(r);
	assert_true(r->alloc == 256 && r->held == 256);
	r = slab_row(&s, T(0x300), 0, 0, 16384);
	assert_non_null(r);
	assert_true(r->alloc == 16384 && r->hit == 1 && r->held == 16384);
	r = slab_row(&s, T(0x900), 0, 0, 16384);
	assert_non_null(r);
	assert_true(r->alloc == 0 && r->hit == 0 && r->held == 0);
	for (i = 0; i < s.nr_stack_rows; i++) {
		r = &s.stack_rows[i];
		if (!r->page)
			continue;
		pages++;
		if (r->stack_len && r->size == 0) {	/* st1, order 0 */
			assert_true(r->alloc == 8192 && r->hit == 2 && r->held == 4096);
		} else if (r->stack_len) {		/* st2, order 2 */
			assert_true(r->size == 2 && r->alloc == 16384 && r->held == 16384);
		} else {				/* no stack, order 1 */
			assert_true(r->size == 1 && r->alloc == 8192 && r->held == 8192);
		}
	}
	assert_int_equal(pages, 3);
	/* the rows add up to the footprint */
	{
		uint64_t slab = 0, pg = 0;

		for (i = 0; i < s.nr_stack_rows; i++)
			*(s.stack_rows[i].page ? &pg : &slab) += s.stack_rows[i].held;
		assert_true(slab == s.live_bytes);
		assert_true(pg == s.pg_live_bytes);
	}
	kmt_slab_free(&s);
	close_built(&bt);
}

/* A corrupt record fails the analysis with the cursor's message. */
static void test_analyze_error(void **state)
{
	struct built bt;
	struct kmt_slab s;
	struct kmt_err err;
	struct kb *b = kb_new(1, 4096);
	uint8_t *rec;

	(void)state;
	kb_kmalloc(b, 0, 100, KMT_CTX_TASK, 1, T(0x100), D(0x1000), 8, 8, 0, -1);
	kb_kmalloc(b, 0, 200, KMT_CTX_TASK, 1, T(0x100), D(0x2000), 8, 8, 0, -1);
	open_built(b, &bt);
	/* the second record's header byte: 32-byte sub-buffer header, then
	 * hdr, time(2), pid(4), site(4), ptr(4), 8(2), 0(2), gfp(3), node =
	 * 23 bytes; the second record has no pid */
	rec = (uint8_t *)bt.t.cpus[0].data + sizeof(struct kmt_subbuf_header) + 23;
	assert_int_equal(*rec, KMT_EV_KMALLOC);
	*rec = 0;	/* never written: never described */
	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_slab_analyze(&bt.t, &s, &err), -EBADMSG);
	assert_msg(&err, "record of an undescribed event type at offset 55");
	assert_null(s.callers);
	close_built(&bt);
}

/*
 * Allocations through wrappers: each put to the last frame of its stack
 * (the first outside the wrappers), nested wrappers too; one whose
 * stack is empty (the recorder did not find its call site) stays at the
 * wrapper.  Counted per wrapper, the cache allocation with its cache.
 */
static void test_via_wrappers(void **state)
{
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(1, 4096);
	const uint64_t nested[] = { T(0x2010), T(0x3020) };
	const uint64_t direct[] = { T(0x4030) };

	(void)state;
	kb_wrapper(b, 0, 10, T(0x1000), 0x100, "kstrdup_const");
	kb_wrapper(b, 0, 11, T(0x2000), 0x100, "kobject_set_name_vargs");
	/* kstrdup_const <- kobject_set_name_vargs <- 0x3020 */
	kb_kmalloc_via(b, 0, 100, KMT_CTX_TASK, 1, T(0x1010), D(0x1000), 10, 16,
		       0xcc0, -1, nested, 2);
	kb_cache_alloc_via(b, 0, 200, KMT_CTX_TASK, 1, T(0x2040), D(0x2000), 1,
			   0xcc0, -1, direct, 1);
	kb_kmalloc_via(b, 0, 300, KMT_CTX_TASK, 1, T(0x1010), D(0x3000), 10, 16,
		       0xcc0, -1, NULL, 0);
	kb_cache_def(b, 0, 1, 1, 64, 64, 8, "dentry");
	open_built(b, &bt);
	analyze(&bt, &s);
	assert_int_equal(s.nr_via, 2);
	assert_int_equal(s.nr_wrappers, 2);
	assert_int_equal(s.wrappers[0].hits, 1);
	assert_int_equal(s.wrappers[1].hits, 1);
	assert_int_equal(s.wrappers[0].name_len, strlen("kstrdup_const"));
	assert_int_equal(s.nr_callers, 3);
	sort_by(&s, "callsite");
	check_caller(&s.callers[0], T(0x1010), 16, 10, 1, 0);
	check_caller(&s.callers[1], T(0x3020), 16, 10, 1, 0);
	check_caller(&s.callers[2], T(0x4030), 64, 64, 1, 0);
	assert_int_equal(s.live_bytes, 96);
	kmt_slab_free(&s);
	close_built(&bt);
}

/* More callers than the initial tables hold, and many live objects. */
static void test_many_callers(void **state)
{
	struct built bt;
	struct kmt_slab s;
	struct kb *b = kb_new(2, 4096);
	unsigned int i;

	(void)state;
	for (i = 0; i < 5000; i++)
		kb_kmalloc(b, i & 1, 1000 + i, KMT_CTX_TASK, 1,
			   T(0x10000 + (i % 2500) * 8), D((uint64_t)i * 64),
			   32, 64, 0, -1);
	/* free the first half on the other CPU */
	for (i = 0; i < 2500; i++)
		kb_kfree(b, !(i & 1), 10000 + i, KMT_CTX_TASK, 1, T(0x10),
			 D((uint64_t)i * 64));
	open_built(b, &bt);
	analyze(&bt, &s);
	assert_true(s.nr_allocs == 5000);
	assert_true(s.nr_failed == 0);
	assert_int_equal(s.nr_callers, 2500);
	assert_true(s.nr_frees == 2500);
	assert_true(s.nr_cross_cpu == 2500);
	assert_true(s.total_freed == 2500 * 64);
	assert_true(s.total_alloc == 5000 * 64);
	sort_by(&s, "callsite");
	for (i = 0; i < 2500; i++) {
		assert_true(s.callers[i].call_site == T(0x10000 + i * 8));
		assert_true(s.callers[i].hit == 2);
		assert_true(s.callers[i].pingpong == 1);
	}
	kmt_slab_free(&s);
	close_built(&bt);
}

/* ---- hash map ------------------------------------------------------- */

static uint64_t key_of(uint64_t i)
{
	/* distinct, non-zero, and clustered in the low bits */
	return 0xffff888000000000ULL + i * 64;
}

static void test_hashmap_100k(void **state)
{
	const uint64_t n = 100000;
	struct kmt_hm h;
	struct kmt_hm_slot *sl;
	uint64_t i;
	int created;

	(void)state;
	assert_int_equal(kmt_hm_init(&h, 16), 0);
	for (i = 0; i < n; i++) {
		sl = kmt_hm_get(&h, key_of(i), &created);
		assert_non_null(sl);
		assert_int_equal(created, 1);
		sl->val = i * 3;
	}
	assert_int_equal(h.nr, n);
	/* a second get finds, does not create */
	sl = kmt_hm_get(&h, key_of(77), &created);
	assert_int_equal(created, 0);
	assert_true(sl->val == 77 * 3);
	assert_int_equal(h.nr, n);

	for (i = 0; i < n; i += 2) {
		sl = kmt_hm_find(&h, key_of(i));
		assert_non_null(sl);
		kmt_hm_remove(&h, sl);
	}
	assert_int_equal(h.nr, n / 2);
	for (i = 0; i < n; i++) {
		sl = kmt_hm_find(&h, key_of(i));
		if (i & 1) {
			if (!sl)
				fail_msg("key %llu lost after removals",
					 (unsigned long long)i);
			assert_true(sl->key == key_of(i));
			assert_true(sl->val == i * 3);
		} else {
			assert_null(sl);
		}
	}
	/* no tombstones: every used slot holds a live key */
	{
		size_t used = 0, j;

		for (j = 0; j <= h.mask; j++)
			used += h.s[j].key != 0;
		assert_int_equal(used, n / 2);
	}
	/* and removed keys come back as new */
	sl = kmt_hm_get(&h, key_of(0), &created);
	assert_int_equal(created, 1);
	assert_true(sl->val == 0);
	assert_int_equal(h.nr, n / 2 + 1);
	kmt_hm_free(&h);
	assert_null(h.s);
}

/*
 * Random inserts and removals in a 16-slot table that never grows, so
 * clusters wrap around the end; checked against a reference after every
 * operation.
 */
static void test_hashmap_wrap(void **state)
{
	enum { UNIVERSE = 48, MAX_LIVE = 11 };
	bool ref[UNIVERSE + 1] = { false };
	struct kmt_hm h;
	struct kmt_hm_slot *sl;
	uint64_t x = 88172645463325252ULL;
	unsigned int live = 0, op, k, wraps = 0;
	int created;

	(void)state;
	assert_int_equal(kmt_hm_init(&h, 16), 0);
	for (op = 0; op < 200000; op++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = 1 + (unsigned int)(x % UNIVERSE);
		if (ref[k]) {
			sl = kmt_hm_find(&h, k);
			assert_non_null(sl);
			assert_true(sl->val == k * 7);
			kmt_hm_remove(&h, sl);
			ref[k] = false;
			live--;
		} else if (live < MAX_LIVE) {
			sl = kmt_hm_get(&h, k, &created);
			assert_non_null(sl);
			assert_int_equal(created, 1);
			sl->val = k * 7;
			ref[k] = true;
			live++;
		}
		assert_int_equal(h.mask, 15);
		assert_int_equal(h.nr, live);
		wraps += h.s[15].key && h.s[0].key;
		if (op % 7 == 0)
			for (k = 1; k <= UNIVERSE; k++) {
				sl = kmt_hm_find(&h, k);
				if (ref[k] != (sl != NULL))
					fail_msg("op %u: key %u %s", op, k,
						 ref[k] ? "lost" : "present after removal");
			}
	}
	/* the wrapped case really happened */
	assert_true(wraps > 1000);
	kmt_hm_free(&h);
}

/* The unit of a cgroup path: its deepest unit, else its slice, else "-". */
static void test_cgroup_unit(void **state)
{
	static const struct {
		const char *path, *unit;
	} cases[] = {
		{ "/system.slice/systemd-udevd.service", "systemd-udevd.service" },
		{ "/system.slice/systemd-udevd.service/udev", "systemd-udevd.service" },
		{ "/user.slice/user-1000.slice/session-2.scope", "session-2.scope" },
		{ "/machine.slice/libpod-1.scope/container/x.service", "x.service" },
		{ "/system.slice/var-lib.mount", "var-lib.mount" },
		{ "/system.slice/dbus.socket", "dbus.socket" },
		{ "/system.slice/dev-vdb.swap", "dev-vdb.swap" },
		{ "/system.slice", "system.slice" },
		{ "/user.slice/user-1000.slice", "user-1000.slice" },
		{ "/init.scope", "init.scope" },
		{ "/", "-" },
		{ "", "-" },
		{ "/foo/bar", "-" },
		{ "/.service", "-" },
		{ "service", "-" },
		{ "/a.service/", "a.service" },
	};
	const char *unit;
	uint32_t len;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		kmt_cgroup_unit(cases[i].path, (uint32_t)strlen(cases[i].path), &unit, &len);
		if (len != strlen(cases[i].unit) || memcmp(unit, cases[i].unit, len))
			fail_msg("%s: got %.*s, want %s", cases[i].path, (int)len, unit,
				 cases[i].unit);
	}
}

/*
 * Who allocated, followed through fork, exec, rename and cgroup moves
 * (mktrace's "tasks" trace, worked out in tests/cli/t0096-tasks.sh): the
 * same from the cgroup ids of today's recorder (@v0 false) as from the
 * paths of earlier ones.
 */
static void check_tasks(bool v0)
{
	static const struct {
		const char *name;
		uint64_t slab, page;
	} comm[] = {
		{ "systemd", 64, 8192 }, { "(udev-worker)", 1024, 0 },
		{ "systemd-udevd", 512, 0 }, { "swapper/0", 200, 0 },
		{ "swapper", 100, 0 }, { "[softirq]", 32, 0 },
		{ "[unknown task]", 16, 0 },
	}, unit[] = {
		{ "getty@tty1.service", 0, 8192 }, { "systemd-udevd.service", 1536, 0 },
		{ "-", 348, 0 }, { "init.scope", 64, 0 },
	};
	struct kb *b = kb_new(2, 4096);
	struct built bt;
	struct kmt_slab s;
	size_t i;

	if (v0)
		kb_scenario_tasks_v0(b);
	else
		kb_scenario_tasks(b);
	open_built(b, &bt);
	analyze(&bt, &s);
	assert_true(s.has_tasks);
	assert_int_equal(s.nr_by_comm, sizeof(comm) / sizeof(comm[0]));
	assert_int_equal(s.nr_by_unit, sizeof(unit) / sizeof(unit[0]));
	for (i = 0; i < s.nr_by_comm; i++) {
		assert_int_equal(s.by_comm[i].name_len, strlen(comm[i].name));
		assert_memory_equal(s.by_comm[i].name, comm[i].name, s.by_comm[i].name_len);
		assert_int_equal(s.by_comm[i].st.slab_retained, comm[i].slab);
		assert_int_equal(s.by_comm[i].st.page_retained, comm[i].page);
	}
	for (i = 0; i < s.nr_by_unit; i++) {
		assert_int_equal(s.by_unit[i].name_len, strlen(unit[i].name));
		assert_memory_equal(s.by_unit[i].name, unit[i].name, s.by_unit[i].name_len);
		assert_int_equal(s.by_unit[i].st.slab_retained, unit[i].slab);
		assert_int_equal(s.by_unit[i].st.page_retained, unit[i].page);
	}
	kmt_slab_free(&s);
	close_built(&bt);
}

static void test_tasks(void **state)
{
	(void)state;
	check_tasks(false);
}

static void test_tasks_v0(void **state)
{
	(void)state;
	check_tasks(true);
}

/*
 * The recorder's own objects: those its functions allocate, and what the
 * task that attaches its probes allocates between KMT_MARK_ATTACHING and
 * KMT_MARK_ATTACHED (the probe arrays); not another task's meanwhile, an
 * interrupt's, or the same task's after.
 */
static void test_recorder_own(void **state)
{
	static const char syms[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81001000 t kmt_alloc_cpu\n"
		"ffffffff81002000 t func_add\n"
		"ffffffff81003000 T other_init\n"
		"ffffffff81004000 T _etext\n";
	const uint64_t d = KB_DMAP_BASE;
	struct kb *b = kb_new(1, 4096);
	struct kmt_symtab st;
	struct kmt_slab s;
	struct built bt;
	struct kmt_err err;

	(void)state;
	kb_set_kallsyms(b, syms);
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 0, KB_TEXT_BASE + 0x1010, d + 0x1000,
		   2048, 2048, 0xcc0, -1);
	kb_mark(b, 0, 1100, 7, KMT_MARK_ATTACHING, 0, 0, 0, 0, 0, NULL, NULL, 0);
	kb_kmalloc(b, 0, 1200, KMT_CTX_TASK, 7, KB_TEXT_BASE + 0x2020, d + 0x2000,
		   40, 64, 0xcc0, -1);
	kb_kmalloc(b, 0, 1300, KMT_CTX_TASK, 8, KB_TEXT_BASE + 0x2020, d + 0x3000,
		   24, 32, 0xcc0, -1);
	kb_kmalloc(b, 0, 1400, KMT_CTX_HARDIRQ, 0, KB_TEXT_BASE + 0x3030, d + 0x4000,
		   16, 16, 0xa20, -1);
	/* freed before the end: not held, not counted */
	kb_kmalloc(b, 0, 1500, KMT_CTX_TASK, 7, KB_TEXT_BASE + 0x2020, d + 0x5000,
		   8, 8, 0xcc0, -1);
	kb_kfree(b, 0, 1550, KMT_CTX_TASK, 7, KB_TEXT_BASE + 0x2030, d + 0x5000);
	kb_mark(b, 0, 1600, 7, KMT_MARK_ATTACHED, 0, 0, 0, 0, 0, NULL, NULL, 0);
	kb_kmalloc(b, 0, 1700, KMT_CTX_TASK, 7, KB_TEXT_BASE + 0x2020, d + 0x6000,
		   100, 128, 0xcc0, -1);
	open_built(b, &bt);
	assert_int_equal(kmt_symtab_load(&st, bt.t.kallsyms, bt.t.kallsyms_len), 0);
	memset(&err, 0, sizeof(err));
	if (kmt_slab_analyze_range(&bt.t, 0, UINT64_MAX, false, &st, &s, &err))
		fail_msg("analyze: %s", err.msg);
	assert_int_equal(s.live_bytes, 2048 + 64 + 32 + 16 + 128);
	assert_int_equal(s.rec_slab_bytes, 2048 + 64);
	assert_int_equal(s.rec_slab_objs, 2);
	kmt_slab_free(&s);
	kmt_symtab_free(&st);
	close_built(&bt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_unit),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_recorder_own),
		cmocka_unit_test(test_tasks_v0),
		cmocka_unit_test(test_basic_totals),
		cmocka_unit_test(test_basic_swapped),
		cmocka_unit_test(test_basic_sort_keys),
		cmocka_unit_test(test_sort_keys_table),
		cmocka_unit_test(test_parse_sort),
		cmocka_unit_test(test_frag),
		cmocka_unit_test(test_cross_node),
		cmocka_unit_test(test_frees_and_unknown_cache),
		cmocka_unit_test(test_repeated_events),
		cmocka_unit_test(test_held_sampled),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_analyze_error),
		cmocka_unit_test(test_via_wrappers),
		cmocka_unit_test(test_many_callers),
		cmocka_unit_test(test_hashmap_100k),
		cmocka_unit_test(test_hashmap_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

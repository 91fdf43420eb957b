// SPDX-License-Identifier: GPL-2.0
/*
 * memblock replay: who holds which bytes when reservations overlap, when
 * a free splits a range or spans several, when RAM is added twice or
 * removed, and when a trace has no memblock events at all.
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
#include "../../analyze/memblock.h"

#define T(off)	(KB_TEXT_BASE + (off))
#define A	T(0x100)
#define B	T(0x200)
#define C	T(0x300)

struct built {
	uint8_t *p;
	size_t len;
	struct kmt_trace t;
	struct kmt_memblock mb;
};

static void analyze(struct kb *b, struct built *bt, uint64_t end)
{
	struct kmt_err err;

	assert_int_equal(kb_finish(b, &bt->p, &bt->len), 0);
	kb_free(b);
	assert_int_equal(kmt_trace_open_mem(bt->p, bt->len, &bt->t, &err), 0);
	assert_int_equal(kmt_memblock_analyze(&bt->t, end, &bt->mb, &err), 0);
}

static void done(struct built *bt)
{
	kmt_memblock_free(&bt->mb);
	kmt_trace_close(&bt->t);
	free(bt->p);
}

static const struct kmt_mb_caller *row(const struct kmt_memblock *mb,
				       uint64_t site)
{
	size_t i;

	for (i = 0; i < mb->nr_callers; i++)
		if (mb->callers[i].call_site == site)
			return &mb->callers[i];
	fail_msg("no row for 0x%llx", (unsigned long long)site);
	return NULL;
}

/* A over [0, 100), B over [50, 150): B gets [100, 150) only. */
static void test_overlap_first_claim_wins(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct built bt;

	(void)state;
	kb_memblock(b, 0, 10, KMT_MB_RESERVE, 0, 100, -1, 0, A, "");
	kb_memblock(b, 0, 20, KMT_MB_ALLOC, 50, 100, 0, 0, B, "");
	analyze(b, &bt, UINT64_MAX);
	assert_int_equal(row(&bt.mb, A)->held, 100);
	assert_int_equal(row(&bt.mb, B)->held, 50);
	assert_int_equal(row(&bt.mb, B)->reserved, 50);
	assert_true(row(&bt.mb, B)->alloc);
	assert_false(row(&bt.mb, A)->alloc);
	assert_int_equal(bt.mb.held, 150);
	assert_int_equal(bt.mb.callers[0].call_site, A);	/* by held */
	done(&bt);
}

/*
 * A [0, 100), B [200, 300), C [100, 200) between them; a free of
 * [50, 250) takes 50 from each of A and B and all of C's 100.
 */
static void test_free_spans_ranges(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct built bt;

	(void)state;
	kb_memblock(b, 0, 10, KMT_MB_RESERVE, 0, 100, -1, 0, A, "");
	kb_memblock(b, 0, 20, KMT_MB_RESERVE, 200, 100, -1, 0, B, "");
	kb_memblock(b, 0, 30, KMT_MB_RESERVE, 100, 100, -1, 0, C, "");
	kb_memblock(b, 0, 40, KMT_MB_FREE, 50, 200, -1, 0, C, "");
	/* RAM [20, 60) and [240, 1000): 30 of A's and 50 of B's in it */
	kb_memblock(b, 0, 50, KMT_MB_ADD, 20, 40, -1, 0, C, "");
	kb_memblock(b, 0, 60, KMT_MB_ADD, 240, 760, -1, 0, C, "");
	analyze(b, &bt, UINT64_MAX);
	assert_int_equal(bt.mb.held_ram, 30 + 50);
	assert_int_equal(row(&bt.mb, A)->held, 50);
	assert_int_equal(row(&bt.mb, A)->freed, 50);
	assert_int_equal(row(&bt.mb, B)->held, 50);
	assert_int_equal(row(&bt.mb, C)->held, 0);
	assert_int_equal(row(&bt.mb, C)->freed, 100);
	assert_int_equal(bt.mb.held, 100);
	assert_int_equal(bt.mb.freed, 200);
	assert_int_equal(bt.mb.res_set.nr, 2);
	done(&bt);
}

/*
 * A hole in the middle splits a range; freeing it again frees nothing;
 * reserving it again gives it to the new caller.  free_area counts what
 * it gave, held or not.
 */
static void test_split_and_reuse(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct built bt;

	(void)state;
	kb_memblock(b, 0, 10, KMT_MB_RESERVE, 1000, 1000, -1, 0, A, "");
	kb_memblock(b, 0, 20, KMT_MB_FREE_AREA, 1200, 100, -1, 0, C, "initrd");
	kb_memblock(b, 0, 30, KMT_MB_FREE_AREA, 1200, 100, -1, 0, C, "initrd");
	kb_memblock(b, 0, 40, KMT_MB_RESERVE, 1150, 200, -1, 0, B, "");
	analyze(b, &bt, UINT64_MAX);
	assert_int_equal(row(&bt.mb, A)->held, 900);
	assert_int_equal(row(&bt.mb, B)->held, 100);
	assert_int_equal(bt.mb.given, 200);
	assert_int_equal(bt.mb.nr_givens, 1);
	assert_int_equal(bt.mb.givens[0].nr, 2);
	assert_string_equal(bt.mb.givens[0].what, "initrd");
	assert_int_equal(bt.mb.freed, 0);
	assert_int_equal(bt.mb.res_set.nr, 3);
	done(&bt);
}

/* RAM added twice over the same bytes counts once; a remove cuts it. */
static void test_ram(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct built bt;

	(void)state;
	kb_memblock(b, 0, 10, KMT_MB_ADD, 0, 4096, -1, 0, A, "");
	kb_memblock(b, 0, 20, KMT_MB_ADD, 2048, 4096, -1, 0, A, "");
	kb_memblock(b, 0, 30, KMT_MB_ADD, 16384, 4096, 1, 0, A, "");
	kb_memblock(b, 0, 40, KMT_MB_REMOVE, 1024, 1024, -1, 0, A, "");
	analyze(b, &bt, UINT64_MAX);
	assert_int_equal(bt.mb.ram, 6144 + 4096 - 1024);
	assert_int_equal(bt.mb.ram_ranges, 3);
	assert_int_equal(bt.mb.held_ram, 0);
	assert_int_equal(bt.mb.nr_callers, 0);
	done(&bt);
}

/* --at: the state at a time, events after it not taken. */
static void test_at(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct built bt;

	(void)state;
	kb_memblock(b, 0, 10, KMT_MB_RESERVE, 0, 100, -1, 0, A, "");
	kb_memblock_early(b, 0, 15, 1, 3, 4096, 0, 0);
	kb_memblock(b, 0, 20, KMT_MB_FREE, 0, 100, -1, 0, A, "");
	analyze(b, &bt, 19);
	assert_int_equal(bt.mb.held, 100);
	assert_int_equal(bt.mb.nr_events, 1);
	assert_true(bt.mb.have_early);
	assert_int_equal(bt.mb.nr_dropped, 3);
	assert_int_equal(bt.mb.last_ts, 10);
	done(&bt);
}

/* A range running past the top of the address space ends there. */
static void test_range_past_the_top(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct built bt;

	(void)state;
	kb_memblock(b, 0, 10, KMT_MB_RESERVE, UINT64_MAX - 99, 1000, -1, 0, A, "");
	analyze(b, &bt, UINT64_MAX);
	assert_int_equal(bt.mb.held, 99);
	done(&bt);
}

/* A trace with only slab events: nothing, and no error. */
static void test_none(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct built bt;

	(void)state;
	kb_kmalloc(b, 0, 10, KMT_CTX_TASK, 1, A, KB_DMAP_BASE + 64, 8, 8, 0, -1);
	analyze(b, &bt, UINT64_MAX);
	assert_int_equal(bt.mb.nr_events, 0);
	assert_false(bt.mb.have_early);
	done(&bt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap_first_claim_wins),
		cmocka_unit_test(test_free_spans_ranges),
		cmocka_unit_test(test_split_and_reuse),
		cmocka_unit_test(test_ram),
		cmocka_unit_test(test_at),
		cmocka_unit_test(test_range_past_the_top),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * mktrace SCENARIO FILE: write one of the hand-built traces the CLI tests
 * check exact output against.  The numbers each scenario must produce are
 * worked out in tests/cli/expect/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmt.h"
#include "kmt_build.h"

#define D(off)	(KB_DMAP_BASE + (off))
#define T(off)	(KB_TEXT_BASE + (off))

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T alloc_thing\n"
	"ffffffff81002000 t helper_init\n"
	"ffffffff81003000 T free_thing\n"
	"ffffffff82000000 D some_data\n";

/*
 * Two CPUs.  alloc_thing+0x10 kmallocs three times (one fails), one of
 * its objects is freed on the other CPU; helper_init+0x5 kmallocs once;
 * alloc_thing+0x40 allocates from two caches.
 */
static void basic(struct kb *b)
{
	kb_set_kallsyms(b, kallsyms);
	kb_cache_def(b, 0, 100, 1, 192, 192, 8, "dentry");
	kb_cache_def(b, 0, 110, 2, 3000, 3072, 64, "task_struct");
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 1, T(0x1010), D(0x1000), 100, 128, 0xcc0, -1);
	kb_kmalloc(b, 0, 2000, KMT_CTX_TASK, 1, T(0x1010), D(0x2000), 30, 32, 0xcc0, -1);
	kb_kmalloc(b, 1, 2500, KMT_CTX_TASK, 2, T(0x2005), D(0x3000), 4000, 4096, 0xcc0, -1);
	kb_cache_alloc(b, 1, 3000, KMT_CTX_SOFTIRQ, 0, T(0x1040), D(0x4000), 1, 0x820, -1);
	kb_cache_alloc(b, 0, 3500, KMT_CTX_TASK, 1, T(0x1040), D(0x5000), 2, 0xcc0, 0);
	kb_kfree(b, 1, 4000, KMT_CTX_HARDIRQ, 0, T(0x3008), D(0x1000));
	kb_cache_free(b, 1, 4500, KMT_CTX_TASK, 2, T(0x3020), D(0x4000), 1);
	kb_kfree(b, 0, 5000, KMT_CTX_TASK, 1, T(0x3008), 0);
	kb_kfree(b, 0, 5500, KMT_CTX_TASK, 1, T(0x3008), D(0x9000));
	kb_kmalloc(b, 0, 6000, KMT_CTX_TASK, 1, T(0x1010), 0, 64, 64, 0xcc0, -1);
	kb_page_alloc(b, 0, 6500, KMT_CTX_TASK, 1, 0x1001, 0, 0xcc0, 0);
	kb_page_free(b, 1, 7000, KMT_CTX_TASK, 2, 0x1001, 0);
}

/* One CPU, 1000 kmallocs in 256-byte sub-buffers, a 3 s gap, losses. */
static void many(struct kb *b)
{
	uint64_t ts = 1000;
	int i;

	kb_set_kallsyms(b, kallsyms);
	for (i = 0; i < 1000; i++) {
		if (i == 500)
			ts += 3000000000ULL;	/* needs an absolute timestamp */
		kb_kmalloc(b, 0, ts, KMT_CTX_TASK, 1, T(0x1010 + (i % 4) * 0x10),
			   D(0x100000 + (uint64_t)i * 64), 40 + i % 4, 64, 0xcc0, -1);
		ts += 1500;
	}
	kb_set_lost(b, 0, 7);
}

int main(int argc, char **argv)
{
	struct kb *b;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: mktrace basic|swapped|many|nosyms|debugfs FILE|DIR\n");
		return 2;
	}
	if (!strcmp(argv[1], "many")) {
		b = kb_new(1, 256);
		kb_set_topology(b, "cpu 0 node 0\nnode 0 start_pfn 0 end_pfn 262144\n");
		many(b);
	} else {
		b = kb_new(2, 4096);
		kb_set_swap(b, !strcmp(argv[1], "swapped"));
		basic(b);
		if (!strcmp(argv[1], "nosyms"))
			kb_set_kallsyms(b, "");
		else if (strcmp(argv[1], "basic") && strcmp(argv[1], "swapped") &&
			 strcmp(argv[1], "debugfs")) {
			fprintf(stderr, "mktrace: unknown scenario %s\n", argv[1]);
			kb_free(b);
			return 2;
		}
	}
	if (!strcmp(argv[1], "debugfs")) {
		ret = kb_write_debugfs(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	ret = kb_write(b, argv[2]);
	kb_free(b);
	if (ret) {
		fprintf(stderr, "mktrace: cannot write %s\n", argv[2]);
		return 1;
	}
	return 0;
}

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

/* One CPU, 1000 kmallocs in 256-byte sub-buffers, a 3 s gap, losses. */
static void many(struct kb *b)
{
	uint64_t ts = 1000;
	int i;

	kb_set_kallsyms(b, kb_kallsyms);
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

	if (argc == 4 && !strncmp(argv[1], "split", 5)) {
		/* many, with its first 10 sub-buffers drained into a spool */
		int mode = !strcmp(argv[1], "split-gap") ? KB_SPLIT_GAP :
			   !strcmp(argv[1], "split-dup") ? KB_SPLIT_DUP : KB_SPLIT_OK;

		b = kb_new(1, 256);
		kb_set_topology(b, "cpu 0 node 0\nnode 0 start_pfn 0 end_pfn 262144\n");
		many(b);
		ret = kb_write_split(b, argv[2], argv[3], 10, mode);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: mktrace basic|swapped|many|nosyms|debugfs FILE|DIR\n"
			"       mktrace split|split-gap|split-dup DIR SPOOL\n");
		return 2;
	}
	if (!strcmp(argv[1], "many")) {
		b = kb_new(1, 256);
		kb_set_topology(b, "cpu 0 node 0\nnode 0 start_pfn 0 end_pfn 262144\n");
		many(b);
	} else {
		b = kb_new(2, 4096);
		kb_set_swap(b, !strcmp(argv[1], "swapped"));
		kb_scenario_basic(b);
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

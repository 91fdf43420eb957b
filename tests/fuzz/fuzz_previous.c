// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is tracefs kmemtrace/previous/data, the
 * previous boot's sub-buffers of every CPU back to back, split and cut
 * as save --previous does, with a fixed, valid format description (the
 * recorder's own layouts, 4 KiB sub-buffers).  What the cut keeps must
 * decode to its end without an error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

KMT_DEFINE_LAYOUTS(layouts);

static struct kmt_format fmt;
static struct kmt_layout_info layout[KMT_EV_MAX + 1];

static void init(void)
{
	static uint8_t blob[sizeof(struct kmt_format) + sizeof(layouts)];
	struct kmt_format f;
	struct kmt_err err;

	memset(&f, 0, sizeof(f));
	f.magic = KMT_FORMAT_MAGIC;
	f.abi_version = KMT_ABI_VERSION;
	f.header_size = sizeof(f);
	f.word_size = 8;
	f.page_shift = 12;
	f.nr_layouts = (uint16_t)(sizeof(layouts) / sizeof(layouts[0]));
	f.layout_size = sizeof(struct kmt_layout);
	f.subbuf_header_size = sizeof(struct kmt_subbuf_header);
	f.subbuf_size = 4096;
	f.nr_subbufs = 64;
	f.nr_cpu_ids = 4;
	strcpy(f.clock, "local_clock");
	f.text_base = 0xffffffff81000000ULL;
	f.direct_map_base = 0xffff888000000000ULL;
	memcpy(blob, &f, sizeof(f));
	memcpy(blob + sizeof(f), layouts, sizeof(layouts));
	if (kmt_format_parse(blob, sizeof(blob), false, &fmt, layout, &err)) {
		fprintf(stderr, "fuzz_previous: format: %s\n", err.msg);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool done;
	struct kmt_prev_cpu *cpus;
	struct kmt_cursor cur;
	struct kmt_event ev;
	struct kmt_err err;
	unsigned int nr, i;
	uint64_t whole, sum = 0;
	uint32_t kept;
	int ret;

	if (!done) {
		init();
		done = true;
	}
	ret = kmt_previous_split(data, size, fmt.subbuf_size, &cpus, &nr, &err);
	CHECK(ret == 0 || ret == -EBADMSG || ret == -ENOMEM);
	if (ret) {
		CHECK(cpus == NULL && nr == 0);
		return 0;
	}
	for (i = 0; i < nr; i++) {
		/* the runs tile the data, CPUs ascending */
		CHECK(cpus[i].off == sum);
		CHECK(cpus[i].size > 0 && cpus[i].nr_subbufs > 0);
		CHECK(!i || cpus[i].cpu > cpus[i - 1].cpu);
		sum += cpus[i].size;
		whole = kmt_previous_whole(&fmt, layout, &cpus[i], data, &kept);
		CHECK(whole <= cpus[i].size && kept <= cpus[i].nr_subbufs);
		CHECK((whole == cpus[i].size) == (kept == cpus[i].nr_subbufs));
		/* what is kept decodes to its end */
		kmt_cursor_init(&cur, &fmt, layout, false, cpus[i].cpu,
				data + cpus[i].off, whole);
		while ((ret = kmt_cursor_next(&cur, &ev, &err)) > 0)
			CHECK(ev.cpu == cpus[i].cpu);
		CHECK(ret == 0);
		CHECK(cur.nr_subbufs == kept);
	}
	CHECK(sum == size);
	free(cpus);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is one CPU's raw sub-buffers, decoded with
 * a fixed, valid format description (the recorder's own layouts, of ABI
 * versions 2 and 1) in both byte orders, whole and as a file's cut.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../lib/layouts_v1.h"

KMT_DEFINE_LAYOUTS(layouts);
KMT_DEFINE_LAYOUTS_V1(layouts_v1);

/* [0]: ABI 2, [1]: ABI 1 */
static struct kmt_format fmt[2];
static struct kmt_layout_info layout[2][KMT_EV_MAX + 1];

/* The format blob a kernel with 4 KiB sub-buffers would describe. */
static void init(unsigned int v)
{
	static uint8_t blob[sizeof(struct kmt_format) + sizeof(layouts)];
	size_t lsize = v ? sizeof(layouts_v1) : sizeof(layouts);
	struct kmt_format f;
	struct kmt_err err;

	/* ABI 1 knows the first 14 event types only */
	_Static_assert(sizeof(layouts) >= sizeof(layouts_v1), "more layouts");
	memset(&f, 0, sizeof(f));
	f.magic = KMT_FORMAT_MAGIC;
	f.abi_version = v ? 1 : KMT_ABI_VERSION;
	f.header_size = sizeof(f);
	f.word_size = 8;
	f.page_shift = 12;
	f.nr_layouts = (uint16_t)(lsize / sizeof(layouts[0]));
	f.layout_size = sizeof(struct kmt_layout);
	f.subbuf_header_size = sizeof(struct kmt_subbuf_header);
	f.subbuf_size = 4096;
	f.nr_subbufs = 64;
	f.nr_cpu_ids = 2;
	strcpy(f.clock, "local_clock");
	f.text_base = 0xffffffff81000000ULL;
	f.direct_map_base = 0xffff888000000000ULL;
	memcpy(blob, &f, sizeof(f));
	memcpy(blob + sizeof(f), v ? layouts_v1 : layouts, lsize);
	if (kmt_format_parse(blob, sizeof(f) + lsize, false, &fmt[v], layout[v], &err)) {
		fprintf(stderr, "fuzz_cursor: format: %s\n", err.msg);
		abort();
	}
}

static void walk(const uint8_t *data, size_t size, bool swap, unsigned int v)
{
	struct kmt_cursor c;
	struct kmt_event ev;
	struct kmt_err err;
	uint32_t cpu = 0;
	uint64_t n = 0;
	int ret;

	/* decode as the CPU the first header claims, to get past that check */
	if (size >= 8) {
		memcpy(&cpu, data + 4, 4);
		if (swap)
			cpu = __builtin_bswap32(cpu);
	}
	kmt_cursor_init(&c, &fmt[v], layout[v], swap, cpu, data, size);
	while ((ret = kmt_cursor_next(&c, &ev, &err)) > 0) {
		n++;
		CHECK(ev.cpu == cpu);
		CHECK(ev.type <= KMT_EV_MAX && layout[v][ev.type].present);
		CHECK(ev.ctx <= KMT_CTX_NMI);
		CHECK(c.rp >= c.sb && c.rp <= c.rend);
		CHECK(c.rend <= data + size);
		if (ev.has & KMT_HAS(KMT_F_NAME))
			CHECK(ev.name >= (const char *)data &&
			      ev.name_len <= (size_t)((const char *)data + size - ev.name));
		if (ev.has & KMT_HAS(KMT_F_COMM))
			CHECK(ev.comm >= (const char *)data &&
			      ev.comm_len <= (size_t)((const char *)data + size - ev.comm));
		if (ev.has & KMT_HAS(KMT_F_BYTES_SLACK))
			CHECK(ev.has & KMT_HAS(KMT_F_BYTES_REQ));
	}
	CHECK(ret == 0 || ret == -EBADMSG);
	/* every record is at least a header and a time byte (ABI 1), or a
	 * header and two time bytes (ABI 2) */
	CHECK(n <= size / (v ? 2 : 3));
	/* at the end, the cursor stays at the end */
	if (ret == 0)
		CHECK(kmt_cursor_next(&c, &ev, &err) == 0);

	/*
	 * The same data as a file cut there: the records before what
	 * failed, and perhaps some of a sub-buffer the end runs through.
	 */
	{
		uint64_t m = 0;
		int r2;

		kmt_cursor_init(&c, &fmt[v], layout[v], swap, cpu, data, size);
		c.cut = true;
		while ((r2 = kmt_cursor_next(&c, &ev, &err)) > 0) {
			m++;
			CHECK(c.rp >= c.sb && c.rp <= c.rend);
			CHECK(c.rend <= data + size);
		}
		CHECK(r2 == 0 || r2 == -EBADMSG);
		CHECK(m >= n);
		CHECK(ret < 0 || (r2 == 0 && m == n));
	}

	/* save --no-addresses: the same records, as many, decoded again */
	if (size) {
		uint8_t *copy = malloc(size);
		uint64_t m = 0;
		int r2;

		CHECK(copy != NULL);
		memcpy(copy, data, size);
		r2 = kmt_records_rebase(&fmt[v], layout[v], swap, cpu, copy, size,
					0xffffffff81000000ULL, 0xffff888000000000ULL, &err);
		/* ABI 1 has no escaped addresses: nothing to walk */
		CHECK(r2 == (v == 0 && ret < 0 ? ret : 0));
		kmt_cursor_init(&c, &fmt[v], layout[v], swap, cpu, copy, size);
		while (kmt_cursor_next(&c, &ev, &err) > 0)
			m++;
		CHECK(m == n);
		free(copy);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool done;

	if (!done) {
		init(0);
		init(1);
		done = true;
	}
	walk(data, size, false, 0);
	walk(data, size, true, 0);
	walk(data, size, false, 1);
	walk(data, size, true, 1);
	return 0;
}

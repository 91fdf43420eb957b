// SPDX-License-Identifier: GPL-2.0
/*
 * The file container, the cursor and the symbol table, on traces built in
 * memory by kmt_build (the kernel's encoding), in both byte orders, and on
 * every way such a file can be corrupt.
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
#include <unistd.h>

#include <zstd.h>

#include "kmt.h"
#include "kmt_build.h"

/*
 * The byte-level tests below were written against ABI 1 records and keep
 * testing that reader; the ABI 2 tests build with kb_new() and say so.
 */
static struct kb *kb_new_v1(unsigned int nr_cpus, uint32_t subbuf_size)
{
	struct kb *b = kb_new(nr_cpus, subbuf_size);

	kb_set_abi(b, 1);
	return b;
}

#define D(off)	(KB_DMAP_BASE + (off))
#define T(off)	(KB_TEXT_BASE + (off))

#define HDR_SZ	sizeof(struct kmt_file_header)
#define SEC_SZ	sizeof(struct kmt_section)
#define CS_SZ	sizeof(struct kmt_cpu_section)
#define SB_SZ	sizeof(struct kmt_subbuf_header)
/* The small traces are written in ABI 1, which has 14 event types. */
#define NR_V1_LAYOUTS	14

/* ---- helpers ------------------------------------------------------- */

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void finish(struct kb *b, uint8_t **p, size_t *len)
{
	assert_int_equal(kb_finish(b, p, len), 0);
	kb_free(b);
}

/*
 * Offset of the section header of the nth section of a type, in a
 * native-order file; the payload starts SEC_SZ later.
 */
static size_t find_sec(const uint8_t *p, size_t len, uint32_t type,
		       unsigned int nth)
{
	size_t off = round8(get16(p + offsetof(struct kmt_file_header, header_size)));
	uint32_t i, nr = get32(p + offsetof(struct kmt_file_header, nr_sections));

	for (i = 0; i < nr; i++) {
		uint32_t ty = get32(p + off + offsetof(struct kmt_section, type));
		uint64_t sz = get64(p + off + offsetof(struct kmt_section, size));

		assert_true(off + SEC_SZ + sz <= len);
		if (ty == type && nth-- == 0)
			return off;
		off += SEC_SZ + round8(sz);
	}
	fail_msg("no section of type %u", type);
	return 0;
}

static uint64_t sec_size(const uint8_t *p, size_t sec)
{
	return get64(p + sec + offsetof(struct kmt_section, size));
}

/* Offset of the nth sub-buffer of a CPU section (native order). */
static size_t find_subbuf(const uint8_t *p, size_t sec, unsigned int nth)
{
	size_t off = sec + SEC_SZ + CS_SZ;

	while (nth--)
		off += get32(p + off + offsetof(struct kmt_subbuf_header, size));
	assert_int_equal(get32(p + off), KMT_SUBBUF_MAGIC);
	return off;
}

/*
 * Replace del bytes at payload offset pos of the section at sec with ins,
 * fixing that section's size, its padding and the file size (native).
 */
static uint8_t *splice(const uint8_t *p, size_t len, size_t sec, size_t pos,
		       size_t del, const void *ins, size_t ins_len,
		       size_t *new_len)
{
	uint64_t sz = sec_size(p, sec), nsz = sz - del + ins_len;
	size_t pay = sec + SEC_SZ, old_end = pay + round8(sz);
	size_t n = pay + round8(nsz) + (len - old_end), o = 0;
	uint8_t *q = calloc(1, n);

	assert_non_null(q);
	assert_true(pos + del <= sz);
	memcpy(q, p, pay + pos);
	o = pay + pos;
	if (ins_len)
		memcpy(q + o, ins, ins_len);
	o += ins_len;
	memcpy(q + o, p + pay + pos + del, sz - pos - del);
	o += sz - pos - del;
	o = pay + round8(nsz);		/* zero padding from calloc */
	memcpy(q + o, p + old_end, len - old_end);
	put64(q + sec + offsetof(struct kmt_section, size), nsz);
	put64(q + offsetof(struct kmt_file_header, file_size), n);
	*new_len = n;
	return q;
}

#define assert_msg(err, substr)						\
	do {								\
		if (!strstr((err)->msg, (substr)))			\
			fail_msg("error message \"%s\" lacks \"%s\"",	\
				 (err)->msg, (substr));			\
	} while (0)

static void expect_open_err(const uint8_t *p, size_t len, int want,
			    const char *substr)
{
	struct kmt_trace t;
	struct kmt_err err;
	int ret;

	memset(&err, 0, sizeof(err));
	ret = kmt_trace_open_mem(p, len, &t, &err);
	if (ret != want)
		fail_msg("open returned %d, expected %d (msg \"%s\")", ret,
			 want, err.msg);
	assert_msg(&err, substr);
	/* a failed open leaves nothing allocated and nothing dangling */
	assert_null(t.cpus);
	assert_null(t.caches);
	assert_null(t.nodes);
	assert_int_equal(t.nr_cpus, 0);
}

/* Opens, then validating the records fails. */
static void expect_count_err(const uint8_t *p, size_t len, const char *substr)
{
	struct kmt_trace t;
	struct kmt_err err;
	struct kmt_merge m;
	struct kmt_event ev;
	int ret;

	memset(&err, 0, sizeof(err));
	ret = kmt_trace_open_mem(p, len, &t, &err);
	if (ret)
		fail_msg("open failed: %s", err.msg);
	assert_int_equal(kmt_trace_count(&t, NULL, &err), -EBADMSG);
	assert_msg(&err, substr);

	/* the merge walk hits the same error */
	memset(&err, 0, sizeof(err));
	ret = kmt_merge_init(&m, &t, &err);
	if (!ret) {
		while ((ret = kmt_merge_next(&m, &ev, &err)) > 0)
			;
		kmt_merge_free(&m);
	}
	assert_int_equal(ret, -EBADMSG);
	assert_msg(&err, substr);
	kmt_trace_close(&t);
}

/* ---- the small trace ------------------------------------------------ */

static const char small_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T alloc_thing\n";

/*
 * cpu 0: 2 cache defs, kmalloc, page alloc, cache free, failed kmalloc
 *        below text_base (kernel counter overridden to 10)
 * cpu 1: cache alloc, kfree, page free; 5 events lost before it started
 */
static void build_small_as(bool swap, uint32_t zstd_types, uint16_t version,
			   uint8_t **p, size_t *len)
{
	struct kb *b = kb_new_v1(2, 4096);

	kb_set_swap(b, swap);
	kb_set_zstd(b, zstd_types);
	kb_set_file_version(b, version);
	kb_set_kallsyms(b, small_kallsyms);
	kb_set_lost(b, 1, 5);
	kb_cache_def(b, 0, 100, 2, 3000, 3072, 64, "task_struct");
	kb_cache_def(b, 0, 110, 1, 192, 192, 8, "dentry");
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 42, T(0x1010), D(0x1000),
		   100, 128, 0xcc0, -1);
	kb_cache_alloc(b, 1, 1500, KMT_CTX_SOFTIRQ, 0, T(0x1040), D(0x4000),
		       1, 0x820, 3);
	kb_kfree(b, 1, 2000, KMT_CTX_HARDIRQ, 0, T(0x3008), D(0x1000));
	kb_page_alloc(b, 0, 2500, KMT_CTX_TASK, 42, 0x1001, 2, 0xcc0, -1);
	kb_page_free(b, 1, 3000, KMT_CTX_NMI, 0, 0x1001, 2);
	kb_cache_free(b, 0, 3500, KMT_CTX_TASK, 7, T(0x3020), D(0x4000), 1);
	kb_kmalloc(b, 0, 4000, KMT_CTX_TASK, 1000000, T(0) - 0x10, 0,
		   64, 64, 0xcc0, 0);
	kb_set_kernel_events(b, 0, 10);
	finish(b, p, len);
}

static void build_small(bool swap, uint8_t **p, size_t *len)
{
	build_small_as(swap, 0, 0, p, len);
}

#define H_KMALLOC	(KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR) |	\
			 KMT_HAS(KMT_F_BYTES_REQ) | KMT_HAS(KMT_F_BYTES_SLACK) | \
			 KMT_HAS(KMT_F_GFP) | KMT_HAS(KMT_F_NODE))
#define H_CALLOC	(KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR) |	\
			 KMT_HAS(KMT_F_CACHE) | KMT_HAS(KMT_F_GFP) |	\
			 KMT_HAS(KMT_F_NODE))
#define H_KFREE		(KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR))
#define H_CFREE		(H_KFREE | KMT_HAS(KMT_F_CACHE))
#define H_PALLOC	(KMT_HAS(KMT_F_PFN1) | KMT_HAS(KMT_F_ORDER) |	\
			 KMT_HAS(KMT_F_GFP) | KMT_HAS(KMT_F_MIGRATETYPE) | KMT_HAS(KMT_F_STACK))
#define H_PFREE		(KMT_HAS(KMT_F_PFN1) | KMT_HAS(KMT_F_ORDER))
#define H_CDEF		(KMT_HAS(KMT_F_CACHE) | KMT_HAS(KMT_F_OBJ_SIZE) |	\
			 KMT_HAS(KMT_F_SIZE) | KMT_HAS(KMT_F_ALIGN) |	\
			 KMT_HAS(KMT_F_FLAGS) | KMT_HAS(KMT_F_NAME))

/* The small trace's events in merged (time) order. */
static const struct kmt_event small_events[] = {
	{ .ts = 100, .cpu = 0, .type = KMT_EV_CACHE_DEF, .ctx = KMT_CTX_TASK,
	  .pid = 1, .has = H_CDEF, .cache = 2, .obj_size = 3000, .size = 3072,
	  .align = 64, .flags = 0, .name = "task_struct", .name_len = 11 },
	{ .ts = 110, .cpu = 0, .type = KMT_EV_CACHE_DEF, .ctx = KMT_CTX_TASK,
	  .pid = 1, .has = H_CDEF, .cache = 1, .obj_size = 192, .size = 192,
	  .align = 8, .flags = 0, .name = "dentry", .name_len = 6 },
	{ .ts = 1000, .cpu = 0, .type = KMT_EV_KMALLOC, .ctx = KMT_CTX_TASK,
	  .pid = 42, .has = H_KMALLOC, .call_site = T(0x1010),
	  .ptr = D(0x1000), .bytes_req = 100, .bytes_alloc = 128,
	  .gfp = 0xcc0, .node = -1 },
	{ .ts = 1500, .cpu = 1, .type = KMT_EV_CACHE_ALLOC,
	  .ctx = KMT_CTX_SOFTIRQ, .pid = 0, .has = H_CALLOC,
	  .call_site = T(0x1040), .ptr = D(0x4000), .cache = 1, .gfp = 0x820,
	  .node = 3 },
	{ .ts = 2000, .cpu = 1, .type = KMT_EV_KFREE, .ctx = KMT_CTX_HARDIRQ,
	  .pid = 0, .has = H_KFREE, .call_site = T(0x3008), .ptr = D(0x1000) },
	{ .ts = 2500, .cpu = 0, .type = KMT_EV_PAGE_ALLOC, .ctx = KMT_CTX_TASK,
	  .pid = 42, .has = H_PALLOC, .pfn1 = 0x1001, .order = 2, .gfp = 0xcc0,
	  .migratetype = -1 },
	{ .ts = 3000, .cpu = 1, .type = KMT_EV_PAGE_FREE, .ctx = KMT_CTX_NMI,
	  .pid = 0, .has = H_PFREE, .pfn1 = 0x1001, .order = 2 },
	{ .ts = 3500, .cpu = 0, .type = KMT_EV_CACHE_FREE, .ctx = KMT_CTX_TASK,
	  .pid = 7, .has = H_CFREE, .call_site = T(0x3020), .ptr = D(0x4000),
	  .cache = 1 },
	{ .ts = 4000, .cpu = 0, .type = KMT_EV_KMALLOC, .ctx = KMT_CTX_TASK,
	  .pid = 1000000, .has = H_KMALLOC, .call_site = 0xffffffff80fffff0ULL,
	  .ptr = 0, .bytes_req = 64, .bytes_alloc = 64, .gfp = 0xcc0, .node = 0 },
};
#define NR_SMALL	(sizeof(small_events) / sizeof(small_events[0]))

static void check_event(const struct kmt_event *got, const struct kmt_event *w)
{
	assert_true(got->ts == w->ts);
	assert_int_equal(got->cpu, w->cpu);
	assert_int_equal(got->type, w->type);
	assert_int_equal(got->ctx, w->ctx);
	assert_int_equal(got->pid, w->pid);
	assert_int_equal(got->has, w->has);
#define F(f, field)							\
	if (w->has & KMT_HAS(KMT_F_##f))				\
		assert_true(got->field == w->field)
	F(CALL_SITE, call_site);
	F(PTR, ptr);
	F(BYTES_REQ, bytes_req);
	F(BYTES_SLACK, bytes_alloc);
	F(GFP, gfp);
	F(NODE, node);
	F(CACHE, cache);
	F(PFN1, pfn1);
	F(ORDER, order);
	F(MIGRATETYPE, migratetype);
	F(OBJ_SIZE, obj_size);
	F(SIZE, size);
	F(ALIGN, align);
	F(FLAGS, flags);
#undef F
	if (w->has & KMT_HAS(KMT_F_NAME)) {
		assert_int_equal(got->name_len, w->name_len);
		assert_memory_equal(got->name, w->name, w->name_len);
	}
}

static void check_small(const struct kmt_trace *t, bool swap)
{
	const struct kmt_cache *c;
	char buf[64];
	uint64_t per_cpu[2] = { 99, 99 }, first = 0, last = 0;
	struct kmt_err err;

	assert_int_equal(t->swap, swap);
	assert_false(t->mapped);

	/* format */
	assert_int_equal(t->fmt.magic, KMT_FORMAT_MAGIC);
	assert_int_equal(t->fmt.abi_version, 1);
	assert_int_equal(t->fmt.header_size, KMT_FORMAT_MIN_SIZE);
	assert_int_equal(t->fmt.word_size, 8);
	assert_int_equal(t->fmt.page_shift, 12);
	assert_int_equal(t->fmt.nr_layouts, NR_V1_LAYOUTS);
	assert_int_equal(t->fmt.layout_size, sizeof(struct kmt_layout));
	assert_int_equal(t->fmt.subbuf_header_size, SB_SZ);
	assert_int_equal(t->fmt.subbuf_size, 4096);
	assert_int_equal(t->fmt.nr_subbufs, 64);
	assert_int_equal(t->fmt.nr_cpu_ids, 2);
	assert_string_equal(t->fmt.clock, "local_clock");
	assert_true(t->fmt.text_base == KB_TEXT_BASE);
	assert_true(t->fmt.direct_map_base == KB_DMAP_BASE);
	assert_true(t->fmt.boot_ts == 0);

	/* layouts: exactly the fourteen described types */
	for (unsigned int i = 0; i <= KMT_EV_MAX; i++)
		assert_int_equal(t->layout[i].present,
				 i >= KMT_EV_KMALLOC && i <= KMT_EV_INIT_EXEC);
	assert_int_equal(t->layout[KMT_EV_KMALLOC].nr_fields, 6);
	assert_string_equal(t->layout[KMT_EV_KMALLOC].name, "kmalloc");
	assert_int_equal(t->layout[KMT_EV_KMALLOC].fields[0].id, KMT_F_CALL_SITE);
	assert_int_equal(t->layout[KMT_EV_KMALLOC].fields[0].enc, KMT_ENC_TEXT);
	assert_string_equal(t->layout[KMT_EV_KMALLOC].fields[0].name, "call_site");
	assert_int_equal(t->layout[KMT_EV_KMALLOC].fields[5].id, KMT_F_NODE);
	assert_int_equal(t->layout[KMT_EV_KMALLOC].fields[5].enc, KMT_ENC_SVAR);
	assert_int_equal(t->layout[KMT_EV_CACHE_DEF].nr_fields, 6);
	assert_int_equal(t->layout[KMT_EV_CACHE_DEF].fields[5].enc, KMT_ENC_STR);
	assert_string_equal(t->layout[KMT_EV_PAGE_FREE_BATCHED].name,
			    "mm_page_free_batched");
	assert_int_equal(t->layout[KMT_EV_MARK].nr_fields, 1);

	/* CPUs */
	assert_int_equal(t->nr_cpus, 2);
	assert_int_equal(t->cpus[0].cpu, 0);
	assert_int_equal(t->cpus[0].nr_subbufs, 1);
	assert_true(t->cpus[0].events == 10);
	assert_true(t->cpus[0].lost == 0);
	assert_int_equal(t->cpus[0].node, 0);
	assert_int_equal(t->cpus[1].cpu, 1);
	assert_int_equal(t->cpus[1].nr_subbufs, 1);
	assert_true(t->cpus[1].events == 3);
	assert_true(t->cpus[1].lost == 5);
	assert_int_equal(t->cpus[1].node, 0);
	assert_int_equal(kmt_trace_count(t, per_cpu, &err), 0);
	assert_true(per_cpu[0] == 6);
	assert_true(per_cpu[1] == 3);
	assert_int_equal(kmt_trace_count(t, NULL, &err), 0);
	/* the earliest and the latest record of any CPU */
	assert_int_equal(kmt_trace_span(t, NULL, &first, &last, &err), 0);
	assert_true(first == 100);
	assert_true(last == 4000);

	/* caches, sorted by id though defined 2 then 1 */
	assert_int_equal(t->nr_caches, 2);
	assert_int_equal(t->caches[0].id, 1);
	assert_int_equal(t->caches[1].id, 2);
	c = kmt_trace_cache(t, 1);
	assert_non_null(c);
	assert_int_equal(c->object_size, 192);
	assert_int_equal(c->size, 192);
	assert_int_equal(c->align, 8);
	assert_true(c->flags == 0);
	assert_string_equal(c->name, "dentry");
	c = kmt_trace_cache(t, 2);
	assert_non_null(c);
	assert_int_equal(c->object_size, 3000);
	assert_int_equal(c->size, 3072);
	assert_int_equal(c->align, 64);
	assert_string_equal(c->name, "task_struct");
	assert_null(kmt_trace_cache(t, 0));
	assert_null(kmt_trace_cache(t, 3));

	/* nodes */
	assert_int_equal(t->nr_nodes, 1);
	assert_int_equal(t->nodes[0].node, 0);
	assert_true(t->nodes[0].start_pfn == 0);
	assert_true(t->nodes[0].end_pfn == 262144);
	assert_int_equal(kmt_trace_pfn_node(t, 0), 0);
	assert_int_equal(kmt_trace_pfn_node(t, 262143), 0);
	assert_int_equal(kmt_trace_pfn_node(t, 262144), -1);

	/* meta */
	assert_true(kmt_trace_meta(t, "release", buf, sizeof(buf)));
	assert_string_equal(buf, "6.12.0-test");
	assert_true(kmt_trace_meta(t, "cmdline", buf, sizeof(buf)));
	assert_string_equal(buf, "kmemtrace.enable=1");
	assert_true(kmt_trace_meta(t, "build_id", buf, sizeof(buf)));
	assert_string_equal(buf, "00112233");
	assert_false(kmt_trace_meta(t, "rel", buf, sizeof(buf)));
	assert_false(kmt_trace_meta(t, "releasex", buf, sizeof(buf)));
	assert_false(kmt_trace_meta(t, "kmemtrace.enable", buf, sizeof(buf)));
	assert_true(kmt_trace_meta(t, "release", buf, 4));
	assert_string_equal(buf, "6.1");

	/* kallsyms carried unchanged */
	assert_int_equal(t->kallsyms_len, strlen(small_kallsyms));
	assert_memory_equal(t->kallsyms, small_kallsyms, t->kallsyms_len);
}

/* Every event of the trace through the merge, in order. */
static void check_small_events(const struct kmt_trace *t)
{
	struct kmt_merge m;
	struct kmt_event ev;
	struct kmt_err err;
	unsigned int n = 0;
	int ret;

	assert_int_equal(kmt_merge_init(&m, t, &err), 0);
	while ((ret = kmt_merge_next(&m, &ev, &err)) > 0) {
		assert_in_range(n, 0, NR_SMALL - 1);
		check_event(&ev, &small_events[n]);
		n++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(n, NR_SMALL);
	assert_int_equal(kmt_merge_next(&m, &ev, &err), 0);
	kmt_merge_free(&m);
}

static void test_open_small(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;
	size_t len;

	(void)state;
	build_small(false, &p, &len);
	if (kmt_trace_open_mem(p, len, &t, &err))
		fail_msg("open: %s", err.msg);
	check_small(&t, false);
	check_small_events(&t);
	kmt_trace_close(&t);
	assert_null(t.cpus);
	free(p);
}

#define Z(type)	(1u << (type))

/*
 * Sections stored as zstd frames read as the same trace: kallsyms, META
 * and the CPU sections (a head and sub-buffers in one frame), in both
 * byte orders; and the file is smaller for it only where it compresses.
 */
static void test_open_zstd_sections(void **state)
{
	const uint32_t types = Z(KMT_SEC_KALLSYMS) | Z(KMT_SEC_META) |
			       Z(KMT_SEC_CPU);
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p, *q;
	size_t len, qlen, sec;

	(void)state;
	for (int swap = 0; swap < 2; swap++) {
		build_small_as(swap, types, 0, &p, &len);
		build_small(swap, &q, &qlen);
		assert_int_not_equal(len, qlen);
		if (kmt_trace_open_mem(p, len, &t, &err))
			fail_msg("open: %s", err.msg);
		check_small(&t, swap);
		check_small_events(&t);
		assert_int_equal(t.nr_owned, 4);	/* kallsyms, meta, 2 CPUs */
		kmt_trace_close(&t);
		assert_null(t.owned);
		free(p);
		free(q);
	}
	/* the stored section is the frame: zstd's magic, then its size */
	build_small_as(false, Z(KMT_SEC_KALLSYMS), 0, &p, &len);
	sec = find_sec(p, len, KMT_SEC_KALLSYMS, 0);
	assert_int_equal(get32(p + sec + offsetof(struct kmt_section, flags)),
			 KMT_SECTION_ZSTD);
	assert_int_equal(get32(p + sec + SEC_SZ), 0xfd2fb528);
	assert_int_equal(ZSTD_getFrameContentSize(p + sec + SEC_SZ, sec_size(p, sec)),
			 strlen(small_kallsyms));
	free(p);
}

/*
 * Version 1 has no section flags (its writers left them zero): a plain
 * version 1 file reads; a flag in one is damage, not obeyed nor ignored.
 */
static void test_v1_section_flags(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;
	size_t len, sec;

	(void)state;
	build_small_as(false, 0, 1, &p, &len);
	if (kmt_trace_open_mem(p, len, &t, &err))
		fail_msg("open: %s", err.msg);
	check_small(&t, false);
	assert_int_equal(t.nr_owned, 0);
	kmt_trace_close(&t);
	sec = find_sec(p, len, KMT_SEC_KALLSYMS, 0);
	put32(p + sec + offsetof(struct kmt_section, flags), KMT_SECTION_ZSTD | 0x80);
	expect_open_err(p, len, -EBADMSG,
			"section 4 (type 3) has flags 0x81 in a version 1 file, which has none");
	free(p);
	/* a compressed section in a file that says version 1 */
	build_small_as(false, Z(KMT_SEC_KALLSYMS), 1, &p, &len);
	expect_open_err(p, len, -EBADMSG,
			"section 4 (type 3) has flags 0x1 in a version 1 file, which has none");
	free(p);
}

/*
 * A frame without its checksum, one followed by another, and sections
 * that decompress to more than the trace may hold in all: refused.  A
 * compressed section of a type the reader skips is not decompressed.
 */
static void test_err_zstd_frames(void **state)
{
	char text[600];
	uint8_t *p, z[1024];
	size_t len, sec, n, fsz;

	(void)state;
	build_small_as(false, Z(KMT_SEC_KALLSYMS), 0, &p, &len);
	sec = find_sec(p, len, KMT_SEC_KALLSYMS, 0);
	fsz = sec_size(p, sec);

	/* the same text, without the checksum: 4 bytes shorter */
	n = kb_zstd(z, sizeof(z), small_kallsyms, strlen(small_kallsyms), false);
	assert_int_equal(n + 4, fsz);
	memcpy(p + sec + SEC_SZ, z, n);
	put64(p + sec + offsetof(struct kmt_section, size), n);
	expect_open_err(p, len, -EBADMSG,
			"section 4 (type 3): its zstd frame has no checksum");
	free(p);

	/* a second frame after the first, inside the section */
	build_small_as(false, Z(KMT_SEC_KALLSYMS), 0, &p, &len);
	n = kb_zstd(z, sizeof(z), small_kallsyms, 26, true);
	n += kb_zstd(z + n, sizeof(z) - n, "", 0, true);
	assert_true(n <= fsz);
	memcpy(p + sec + SEC_SZ, z, n);
	put64(p + sec + offsetof(struct kmt_section, size), n);
	expect_open_err(p, len, -EBADMSG,
			"section 4 (type 3): its zstd frame does not fill the section");

	/* of a type this reader skips, even a corrupt frame is not read */
	memset(p + sec + SEC_SZ, 0xee, fsz);
	put64(p + sec + offsetof(struct kmt_section, size), fsz);
	put32(p + sec + offsetof(struct kmt_section, type), 99);
	{
		struct kmt_trace t;
		struct kmt_err err;

		if (kmt_trace_open_mem(p, len, &t, &err))
			fail_msg("open: %s", err.msg);
		assert_null(t.kallsyms);
		assert_int_equal(t.nr_owned, 0);
		kmt_trace_close(&t);
	}

	/* the limit in all: kallsyms and META each fit, not both */
	kmt_inflate_limit = strlen(small_kallsyms) + 10;
	free(p);
	build_small_as(false, Z(KMT_SEC_KALLSYMS) | Z(KMT_SEC_META), 0, &p, &len);
	snprintf(text, sizeof(text),
		 "section 4 (type 3) would decompress to %zu bytes: more than the compressed sections of a trace may hold, %zu bytes in all",
		 strlen(small_kallsyms), kmt_inflate_limit);
	expect_open_err(p, len, -EFBIG, text);
	kmt_inflate_limit = KMT_INFLATE_MAX;
	free(p);
}

static void test_err_zstd_sections(void **state)
{
	/* frame headers: a size of 2^40; no size at all (window only) */
	static const uint8_t huge[] = { 0x28, 0xb5, 0x2f, 0xfd, 0xe4,
					0, 0, 0, 0, 0, 1, 0, 0 };
	static const uint8_t unsized[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58,
					   0x01, 0x00, 0x00 };
	uint8_t *p;
	size_t len, sec, fsz;

	(void)state;
	build_small_as(false, Z(KMT_SEC_KALLSYMS), 0, &p, &len);
	sec = find_sec(p, len, KMT_SEC_KALLSYMS, 0);
	fsz = sec_size(p, sec);

	/* a flag this version does not know */
	put32(p + sec + offsetof(struct kmt_section, flags), KMT_SECTION_ZSTD | 2);
	expect_open_err(p, len, -EPROTONOSUPPORT,
			"section 4 (type 3) has flags 0x3 this kmemflight does not know");
	put32(p + sec + offsetof(struct kmt_section, flags), KMT_SECTION_ZSTD);

	/* the last byte of the frame (its checksum or data) changed */
	p[sec + SEC_SZ + fsz - 1] ^= 0x55;
	expect_open_err(p, len, -EBADMSG,
			"section 4 (type 3): its zstd frame is corrupt: ");
	p[sec + SEC_SZ + fsz - 1] ^= 0x55;

	/* cut short by one byte: the frame ends before its size */
	put64(p + sec + offsetof(struct kmt_section, size), fsz - 1);
	expect_open_err(p, len, -EBADMSG, "its zstd frame is cut short");
	put64(p + sec + offsetof(struct kmt_section, size), fsz);

	/* no frame: the text itself, flagged */
	memcpy(p + sec + SEC_SZ, "ffffffff", 8);
	expect_open_err(p, len, -EBADMSG,
			"section 4 (type 3) is marked compressed but does not start with a zstd frame that gives its size");

	assert_true(fsz >= sizeof(huge));
	memcpy(p + sec + SEC_SZ, unsized, sizeof(unsized));
	expect_open_err(p, len, -EBADMSG, "does not start with a zstd frame that gives its size");
	memcpy(p + sec + SEC_SZ, huge, sizeof(huge));
	expect_open_err(p, len, -EFBIG,
			"section 4 (type 3) would decompress to 1099511627776 bytes: more than the compressed sections of a trace may hold, 268435456 bytes in all");
	free(p);
}

static void test_open_swapped(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p, *q;
	size_t len, qlen;

	(void)state;
	build_small(true, &p, &len);
	build_small(false, &q, &qlen);
	/* same size, different bytes: headers really are swapped */
	assert_int_equal(len, qlen);
	assert_memory_not_equal(p, q, len);
	if (kmt_trace_open_mem(p, len, &t, &err))
		fail_msg("open: %s", err.msg);
	check_small(&t, true);
	check_small_events(&t);
	kmt_trace_close(&t);
	free(p);
	free(q);
}

/* Per-CPU cursors in both byte orders produce identical events. */
static void test_cursor_swapped_same(void **state)
{
	struct kmt_trace a, b;
	struct kmt_err err;
	struct kmt_cursor ca, cb;
	struct kmt_event ea, eb;
	uint8_t *pa, *pb;
	size_t la, lb;
	unsigned int i, n;
	int ra, rb;

	(void)state;
	build_small(false, &pa, &la);
	build_small(true, &pb, &lb);
	assert_int_equal(kmt_trace_open_mem(pa, la, &a, &err), 0);
	assert_int_equal(kmt_trace_open_mem(pb, lb, &b, &err), 0);
	for (i = 0; i < 2; i++) {
		kmt_cursor_init(&ca, &a.fmt, a.layout, a.swap, i,
				a.cpus[i].data, a.cpus[i].size);
		kmt_cursor_init(&cb, &b.fmt, b.layout, b.swap, i,
				b.cpus[i].data, b.cpus[i].size);
		n = 0;
		for (;;) {
			ra = kmt_cursor_next(&ca, &ea, &err);
			rb = kmt_cursor_next(&cb, &eb, &err);
			assert_int_equal(ra, rb);
			if (ra <= 0)
				break;
			check_event(&eb, &ea);
			n++;
		}
		assert_int_equal(ra, 0);
		assert_int_equal(n, i == 0 ? 6 : 3);
		assert_true(ca.lost_before == (i == 0 ? 0 : 5));
		assert_true(cb.lost_before == ca.lost_before);
	}
	kmt_trace_close(&a);
	kmt_trace_close(&b);
	free(pa);
	free(pb);
}

/*
 * Decode every CPU of @t twice, with the block decoder the cursors now
 * pick and with the layout-driven loop alone; the events must be the
 * same, byte for byte.  Returns how many there were.
 */
static unsigned int events_equal_general(const struct kmt_trace *t)
{
	struct kmt_cursor blk, ref;
	struct kmt_event eb, er;
	struct kmt_err err;
	unsigned int i, n = 0;
	int rb, rr;

	for (i = 0; i < t->nr_cpus; i++) {
		kmt_cursor_init(&blk, &t->fmt, t->layout, t->swap, t->cpus[i].cpu,
				t->cpus[i].data, t->cpus[i].size);
		kmt_cursor_init(&ref, &t->fmt, t->layout, t->swap, t->cpus[i].cpu,
				t->cpus[i].data, t->cpus[i].size);
		assert_true(blk.fast != 0);
		ref.fast = 0;
		for (;;) {
			memset(&eb, 0, sizeof(eb));
			memset(&er, 0, sizeof(er));
			rb = kmt_cursor_next(&blk, &eb, &err);
			rr = kmt_cursor_next(&ref, &er, &err);
			assert_int_equal(rb, rr);
			if (rb <= 0)
				break;
			assert_memory_equal(&eb, &er, sizeof(eb));
			n++;
		}
		assert_int_equal(rb, 0);
	}
	return n;
}

/* The written-out decoders give exactly what the layout-driven loop gives. */
static void test_fast_path_equals_general(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;
	struct kb *b = kb_new_v1(2, 4096);
	uint8_t *p;
	size_t len;

	(void)state;
	kb_scenario_basic(b);
	assert_int_equal(kb_finish(b, &p, &len), 0);
	kb_free(b);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_int_equal(events_equal_general(&t), 14);
	kmt_trace_close(&t);
	free(p);
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A value of 0 to 64 significant bits: varints of 1 to 10 bytes. */
static uint64_t any_width(uint64_t *x)
{
	unsigned int bits = (unsigned int)(xorshift(x) % 65);

	return bits ? xorshift(x) >> (64 - bits) : 0;
}

/*
 * The block decoders (portable, and pext where the CPU has it) give the
 * events the layout-driven loop gives, on random records of every hot
 * type: all contexts, varints of every length (past 8 bytes the block
 * path must hand over), absolute times, stacks, records at the ends of
 * small sub-buffers, and other types in between.
 */
static void test_block_decoders_equal_general(void **state)
{
	static const int decoders[] = { KMT_DECODE_PORTABLE, KMT_DECODE_PEXT };
	struct kb *b = kb_new_v1(2, 512);
	uint64_t x = 0x9e3779b97f4a7c15ULL, ts = 1000, frames[8];
	struct kmt_cursor blk;
	struct kmt_trace t;
	struct kmt_err err;
	unsigned int i, j, d, cpu, n;
	int saved = kmt_cursor_decoder(-1);
	uint8_t *p;
	size_t len;

	(void)state;
	for (i = 0; i < 4000; i++) {
		int ctx = (int)(xorshift(&x) % 4);
		uint32_t pid = (uint32_t)any_width(&x);

		cpu = (unsigned int)(xorshift(&x) & 1);
		ts += xorshift(&x) % 7 ? xorshift(&x) % 5000 : any_width(&x) >> 8;
		switch (xorshift(&x) % 9) {
		case 0:
			kb_kmalloc(b, cpu, ts, ctx, pid, any_width(&x), any_width(&x),
				   any_width(&x) >> 1, any_width(&x) >> 1,
				   any_width(&x), (int)(xorshift(&x) % 5) - 1);
			break;
		case 1:
			kb_cache_alloc(b, cpu, ts, ctx, pid, any_width(&x),
				       any_width(&x), (uint32_t)any_width(&x),
				       any_width(&x), (int)(xorshift(&x) % 5) - 1);
			break;
		case 2:
			kb_kfree(b, cpu, ts, ctx, pid, any_width(&x), any_width(&x));
			break;
		case 3:
			kb_cache_free(b, cpu, ts, ctx, pid, any_width(&x),
				      any_width(&x), (uint32_t)any_width(&x));
			break;
		case 4:
			n = (unsigned int)(xorshift(&x) % 9);
			for (j = 0; j < n; j++)
				frames[j] = KB_TEXT_BASE + (xorshift(&x) & 0xffffff);
			kb_page_alloc_stack(b, cpu, ts, ctx, pid, any_width(&x),
					    (uint32_t)(xorshift(&x) % 11), any_width(&x),
					    (int)(xorshift(&x) % 7) - 1, frames, n);
			break;
		case 5:
			kb_page_free(b, cpu, ts, ctx, pid, any_width(&x),
				     (uint32_t)(xorshift(&x) % 11));
			break;
		case 6:
			kb_page_free_batched(b, cpu, ts, any_width(&x));
			break;
		case 7:
			kb_cache_def(b, cpu, ts, (uint32_t)(xorshift(&x) & 0xff), 64,
				     64, 8, "some_cache");
			break;
		default:
			kb_initcall_start(b, cpu, ts, any_width(&x));
			break;
		}
	}
	assert_int_equal(kb_finish(b, &p, &len), 0);
	kb_free(b);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	for (d = 0; d < 2; d++) {
		/* pext only where this CPU has a fast one */
		if (kmt_cursor_decoder(decoders[d]) != decoders[d])
			continue;
		kmt_cursor_init(&blk, &t.fmt, t.layout, t.swap, t.cpus[0].cpu,
				t.cpus[0].data, t.cpus[0].size);
		assert_int_equal(blk.pext, decoders[d] == KMT_DECODE_PEXT);
		assert_int_equal(events_equal_general(&t), 4000);
	}
	kmt_cursor_decoder(saved);
	kmt_trace_close(&t);
	free(p);
}

/* Many CPUs through the merge heap: time order, ties to the lower CPU. */
static void test_merge_many_cpus(void **state)
{
	struct kmt_trace t;
	struct kmt_merge m;
	struct kmt_event ev;
	struct kmt_err err;
	struct kb *b = kb_new_v1(9, 256);
	uint64_t prev_ts = 0, n = 0;
	uint32_t prev_cpu = 0;
	uint8_t *p;
	size_t len;
	unsigned int cpu, i;
	int ret;

	(void)state;
	for (cpu = 0; cpu < 9; cpu++)
		for (i = 0; i < 50; i++)	/* equal times across CPUs, some gaps */
			kb_kfree(b, cpu, 1000 + (uint64_t)i * (cpu % 3 + 1) * 10,
				 KMT_CTX_TASK, 1, KB_TEXT_BASE + 0x10,
				 KB_DMAP_BASE + 64 * i);
	assert_int_equal(kb_finish(b, &p, &len), 0);
	kb_free(b);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_int_equal(kmt_merge_init(&m, &t, &err), 0);
	while ((ret = kmt_merge_next(&m, &ev, &err)) > 0) {
		if (n)
			assert_true(ev.ts > prev_ts ||
				    (ev.ts == prev_ts && ev.cpu > prev_cpu));
		prev_ts = ev.ts;
		prev_cpu = ev.cpu;
		n++;
	}
	assert_int_equal(ret, 0);
	assert_true(n == 9 * 50);
	kmt_merge_free(&m);
	kmt_trace_close(&t);
	free(p);
}

/* The kernel's GFP names: parsed, byte-swapped, applied like %pGg. */
static void test_gfp_names(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;
	char buf[64];
	uint8_t *p;
	size_t len, sec;
	unsigned int swap;

	(void)state;
	for (swap = 0; swap < 2; swap++) {
		struct kb *b = kb_new_v1(1, 4096);

		kb_set_swap(b, swap);
		kb_set_gfp_names(b, true);
		kb_kfree(b, 0, 100, KMT_CTX_TASK, 1, KB_TEXT_BASE, KB_DMAP_BASE);
		assert_int_equal(kb_finish(b, &p, &len), 0);
		kb_free(b);
		assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
		assert_int_equal(t.nr_gfp, 6);
		assert_string_equal(t.gfp[2].name, "GFP_KERNEL");
		assert_true(t.gfp[2].mask == 0xcc0);
		kmt_gfp_format(&t, 0xcc0, buf, sizeof(buf));
		assert_string_equal(buf, "GFP_KERNEL");
		kmt_gfp_format(&t, 0x140cca, buf, sizeof(buf));
		assert_string_equal(buf, "GFP_HIGHUSER_MOVABLE|__GFP_COMP");
		kmt_gfp_format(&t, 0xcc0 | 0x100 | 0x1000000, buf, sizeof(buf));
		assert_string_equal(buf, "GFP_KERNEL|__GFP_ZERO|0x1000000");
		kmt_gfp_format(&t, 0, buf, sizeof(buf));
		assert_string_equal(buf, "none");
		assert_int_equal(kmt_gfp_format(&t, 0x140cca, buf, 8), 7);
		assert_string_equal(buf, "GFP_HIG");
		kmt_trace_close(&t);
		if (!swap) {
			/* a table running past the format section is refused */
			sec = find_sec(p, len, KMT_SEC_FORMAT, 0);
			p[sec + SEC_SZ + offsetof(struct kmt_format, nr_gfp_names)] = 200;
			assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), -EBADMSG);
			assert_non_null(strstr(err.msg, "format has 200 GFP names of 32 bytes"));
		}
		free(p);
	}
	/* without a table (the first header): hex */
	{
		struct kb *b = kb_new_v1(1, 4096);

		kb_kfree(b, 0, 100, KMT_CTX_TASK, 1, KB_TEXT_BASE, KB_DMAP_BASE);
		assert_int_equal(kb_finish(b, &p, &len), 0);
		kb_free(b);
		assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
		assert_int_equal(t.fmt.header_size, KMT_FORMAT_MIN_SIZE);
		assert_int_equal(t.nr_gfp, 0);
		kmt_gfp_format(&t, 0xcc0, buf, sizeof(buf));
		assert_string_equal(buf, "0xcc0");
		kmt_trace_close(&t);
		free(p);
	}
}

/*
 * A trace of Linux 6.12 (its recorder's table, every name of it), its
 * kallsyms with or without lock_acquire (CONFIG_LOCKDEP).
 */
static void open_gfp_612(int table, bool lockdep, const char *meta,
			 const char *kallsyms, struct kmt_trace *t, uint8_t **p)
{
	struct kb *b = kb_new(1, 4096);
	struct kmt_err err;
	size_t len;

	kb_set_gfp_table(b, table);
	if (meta)
		kb_set_meta(b, meta);
	kb_set_kallsyms(b, kallsyms ? kallsyms : lockdep ?
			"ffffffff81000000 T _stext\n"
			"ffffffff81001000 T lock_acquire\n"
			"ffffffff81002000 T lock_acquired\n" :
			"ffffffff81000000 T _stext\n"
			"ffffffff81002000 T lock_acquired\n"
			"ffffffff81003000 T lock_acquire_x\n");
	kb_kfree(b, 0, 100, KMT_CTX_TASK, 1, KB_TEXT_BASE, KB_DMAP_BASE);
	finish(b, p, &len);
	if (kmt_trace_open_mem(*p, len, t, &err))
		fail_msg("open: %s", err.msg);
}

static void expect_gfp(const struct kmt_trace *t, uint64_t gfp, const char *want)
{
	char buf[256];

	kmt_gfp_format(t, gfp, buf, sizeof(buf));
	if (strcmp(buf, want))
		fail_msg("gfp 0x%llx: \"%s\", expected \"%s\"",
			 (unsigned long long)gfp, buf, want);
}

/*
 * Every flag Linux 6.12 defines (include/linux/gfp_types.h) by its name:
 * its recorder's table names bits 0 to 23 and the composites, the reader
 * the four that table lacks, where the configuration puts them.
 */
static void test_gfp_names_612(void **state)
{
	/* bits 0 to 23: __GFP_DMA to __GFP_ZEROTAGS, as the table names them */
	static const char *const low[24] = {
		"GFP_DMA", "__GFP_HIGHMEM", "GFP_DMA32", "__GFP_MOVABLE",
		"__GFP_RECLAIMABLE", "__GFP_HIGH", "__GFP_IO", "__GFP_FS",
		"__GFP_ZERO", "0x200", "__GFP_DIRECT_RECLAIM",
		"__GFP_KSWAPD_RECLAIM", "__GFP_WRITE", "__GFP_NOWARN",
		"__GFP_RETRY_MAYFAIL", "__GFP_NOFAIL", "__GFP_NORETRY",
		"__GFP_MEMALLOC", "__GFP_COMP", "__GFP_NOMEMALLOC",
		"__GFP_HARDWALL", "__GFP_THISNODE", "__GFP_ACCOUNT",
		"__GFP_ZEROTAGS",
	};
	/* bits 24 to 27 in each configuration (KASAN_HW_TAGS, LOCKDEP) */
	static const char *const high[2][2][4] = {
		{ { "__GFP_NO_OBJ_EXT", "0x2000000", "0x4000000", "0x8000000" },
		  { "__GFP_NOLOCKDEP", "__GFP_NO_OBJ_EXT", "0x4000000", "0x8000000" } },
		{ { "__GFP_SKIP_ZERO", "__GFP_SKIP_KASAN", "__GFP_NO_OBJ_EXT", "0x8000000" },
		  { "__GFP_SKIP_ZERO", "__GFP_SKIP_KASAN", "__GFP_NOLOCKDEP",
		    "__GFP_NO_OBJ_EXT" } },
	};
	/* the composites, each by its own mask (without KASAN_HW_TAGS) */
	static const struct { uint64_t mask; const char *name; } comp[] = {
		{ 0x1c24ca, "GFP_TRANSHUGE" },
		{ 0x1c20ca, "GFP_TRANSHUGE_LIGHT" },
		{ 0x100cca, "GFP_HIGHUSER_MOVABLE" },
		{ 0x100cc2, "GFP_HIGHUSER" },
		{ 0x100cc0, "GFP_USER" },
		{ 0x400cc0, "GFP_KERNEL_ACCOUNT" },
		{ 0xcc0, "GFP_KERNEL" },
		{ 0xc40, "GFP_NOFS" },
		{ 0x820, "GFP_ATOMIC" },
		{ 0xc00, "GFP_NOIO" },	/* __GFP_RECLAIM: GFP_NOIO comes first */
		{ 0x2800, "GFP_NOWAIT" },
	};
	struct kmt_trace t;
	unsigned int kasan, lockdep, i;
	char want[64];
	uint8_t *p;

	(void)state;
	for (kasan = 0; kasan < 2; kasan++) {
		for (lockdep = 0; lockdep < 2; lockdep++) {
			open_gfp_612(kasan ? KB_GFP_612_KASAN : KB_GFP_612, lockdep,
				     NULL, NULL, &t, &p);
			assert_int_equal(t.nr_gfp, 35);
			assert_int_equal(t.nr_gfp_more, 1 + lockdep + 2 * kasan);
			for (i = 0; i < 24; i++)
				expect_gfp(&t, 1ull << i, low[i]);
			for (i = 0; i < 4; i++)
				expect_gfp(&t, 1ull << (24 + i), high[kasan][lockdep][i]);
			for (i = 28; i < 64; i++) {
				snprintf(want, sizeof(want), "0x%llx", 1ull << i);
				expect_gfp(&t, 1ull << i, want);
			}
			for (i = 0; i < sizeof(comp) / sizeof(comp[0]); i++)
				expect_gfp(&t, comp[i].mask | (kasan && i < 3 ? 0x2000000 : 0),
					   comp[i].name);
			expect_gfp(&t, 0, "none");
			/* issue 31's: a slab's obj_exts vector, and more */
			snprintf(want, sizeof(want), "GFP_KERNEL|%s",
				 high[kasan][lockdep][2 * kasan + lockdep]);
			expect_gfp(&t, 0xcc0 | 1ull << (24 + 2 * kasan + lockdep), want);
			snprintf(want, sizeof(want), "GFP_NOWAIT|__GFP_ZERO|%s|0x80000000",
				 high[kasan][lockdep][2 * kasan + lockdep]);
			expect_gfp(&t, 0x80002900ull | 1ull << (24 + 2 * kasan + lockdep),
				   want);
			if (kasan)	/* without __GFP_SKIP_KASAN it is two names */
				expect_gfp(&t, 0x100cca, "GFP_HIGHUSER|__GFP_MOVABLE");
			if (lockdep)
				expect_gfp(&t, 0xc40 | 1ull << (24 + 2 * kasan),
					   "GFP_NOFS|__GFP_NOLOCKDEP");
			kmt_trace_close(&t);
			free(p);
		}
	}

	/* another release: the table alone, the rest in hex */
	open_gfp_612(KB_GFP_612, false, "release=6.11.5\n", NULL, &t, &p);
	assert_int_equal(t.nr_gfp_more, 0);
	expect_gfp(&t, 0xcc0 | 0x1000000, "GFP_KERNEL|0x1000000");
	kmt_trace_close(&t);
	free(p);
	open_gfp_612(KB_GFP_612, false, "release=6.1.0\n", NULL, &t, &p);
	assert_int_equal(t.nr_gfp_more, 0);
	kmt_trace_close(&t);
	free(p);
	open_gfp_612(KB_GFP_612, false, "cmdline=x\n", NULL, &t, &p);
	assert_int_equal(t.nr_gfp_more, 0);
	kmt_trace_close(&t);
	free(p);
	/* no symbols: lockdep unknown, so __GFP_NO_OBJ_EXT's bit too */
	open_gfp_612(KB_GFP_612_KASAN, false, NULL, "", &t, &p);
	assert_int_equal(t.nr_gfp_more, 2);
	expect_gfp(&t, 0x3000000, "__GFP_SKIP_ZERO|__GFP_SKIP_KASAN");
	expect_gfp(&t, 0x4000000, "0x4000000");
	kmt_trace_close(&t);
	free(p);
	/* a table without __GFP_ZEROTAGS (six names): nothing is guessed */
	open_gfp_612(KB_GFP_SOME, true, NULL, NULL, &t, &p);
	assert_int_equal(t.nr_gfp_more, 0);
	expect_gfp(&t, 0x1000000, "0x1000000");
	kmt_trace_close(&t);
	free(p);
	/* a symbol that only begins or ends with the name is not it */
	open_gfp_612(KB_GFP_612, false, NULL,
		     "ffffffff81000000 T xlock_acquire\nffffffff81000000 T lock_acquire_\n"
		     "lock_acquire\n", &t, &p);
	expect_gfp(&t, 0x1000000, "__GFP_NO_OBJ_EXT");
	kmt_trace_close(&t);
	free(p);
	open_gfp_612(KB_GFP_612, false, NULL,
		     "ffffffffc0001000 t lock_acquire\t[mod]\n", &t, &p);
	expect_gfp(&t, 0x1000000, "__GFP_NOLOCKDEP");
	kmt_trace_close(&t);
	free(p);
}

/* ---- container errors ----------------------------------------------- */

static void test_err_short(void **state)
{
	uint8_t *p;
	size_t len;
	static const uint8_t zero[1];

	(void)state;
	build_small(false, &p, &len);
	expect_open_err(zero, 0, -EBADMSG, "file is 0 bytes, too short");
	expect_open_err(p, 1, -EBADMSG, "too short for a kmemflight header");
	expect_open_err(p, HDR_SZ - 1, -EBADMSG, "file is 31 bytes, too short");
	free(p);
}

static void test_err_file_magic(void **state)
{
	uint8_t *p;
	size_t len;

	(void)state;
	build_small(false, &p, &len);
	p[0] = 'X';
	expect_open_err(p, len, -EBADMSG, "no KMTRACE magic");
	p[0] = 'K';
	p[7] = ' ';	/* the NUL is part of the magic */
	expect_open_err(p, len, -EBADMSG, "not a kmemflight trace");
	free(p);
}

static void test_err_byte_order(void **state)
{
	uint8_t *p;
	size_t len;

	(void)state;
	build_small(false, &p, &len);
	put32(p + offsetof(struct kmt_file_header, byte_order), 0x12345678);
	expect_open_err(p, len, -EBADMSG, "byte-order mark 0x12345678 is invalid");
	free(p);
}

static void test_err_file_version(void **state)
{
	uint8_t *p;
	size_t len;

	(void)state;
	build_small(false, &p, &len);
	put16(p + offsetof(struct kmt_file_header, version), 3);
	expect_open_err(p, len, -EPROTONOSUPPORT,
			"file version 3; this kmemflight reads versions 1 to 2");
	put16(p + offsetof(struct kmt_file_header, version), 0);
	expect_open_err(p, len, -EPROTONOSUPPORT,
			"file version 0; this kmemflight reads versions 1 to 2");
	free(p);

	/* the version is read in the file's byte order */
	build_small(true, &p, &len);
	put16(p + offsetof(struct kmt_file_header, version), 3);
	expect_open_err(p, len, -EPROTONOSUPPORT, "file version 768;");
	free(p);
}

static void test_err_header_size(void **state)
{
	uint8_t *p;
	size_t len;

	(void)state;
	build_small(false, &p, &len);
	put16(p + offsetof(struct kmt_file_header, header_size), 31);
	expect_open_err(p, len, -EBADMSG, "header size 31 is invalid");
	put16(p + offsetof(struct kmt_file_header, header_size), 0xffff);
	expect_open_err(p, len, -EBADMSG, "header size 65535 is invalid");
	free(p);
}

static void test_err_file_size(void **state)
{
	char want[128];
	uint8_t *p;
	size_t len;

	(void)state;
	build_small(false, &p, &len);
	snprintf(want, sizeof(want), "file is %zu bytes but its header says %zu",
		 len - 1, len);
	expect_open_err(p, len - 1, -EBADMSG, want);
	expect_open_err(p, len - 1, -EBADMSG, "truncated or incomplete save");
	/* a header that claims less than there is fails the same way */
	put64(p + offsetof(struct kmt_file_header, file_size), len - 8);
	expect_open_err(p, len, -EBADMSG, "(truncated or incomplete save)");
	free(p);
}

/*
 * A header size that is not a multiple of 8 and ends within 7 bytes of
 * the end of the file puts the first section past the end: it must be
 * reported, not read.
 */
static void test_err_header_rounds_past_end(void **state)
{
	struct kmt_file_header h = { 0 };
	const size_t len = HDR_SZ + 1;
	uint8_t *p = calloc(1, len);

	(void)state;
	assert_non_null(p);
	memcpy(h.magic, KMT_FILE_MAGIC, sizeof(KMT_FILE_MAGIC));
	h.byte_order = KMT_FORMAT_MAGIC;
	h.version = KMT_FILE_VERSION;
	h.header_size = (uint16_t)len;
	h.nr_sections = 1;
	h.file_size = len;
	memcpy(p, &h, sizeof(h));
	expect_open_err(p, len, -EBADMSG, "section 0 of 1 starts past the end");
	free(p);
}

static void test_err_section_past_end(void **state)
{
	uint8_t *p;
	size_t len, sec;

	(void)state;
	build_small(false, &p, &len);
	sec = find_sec(p, len, KMT_SEC_META, 0);
	put64(p + sec + offsetof(struct kmt_section, size), len);
	expect_open_err(p, len, -EBADMSG, "section 1 (type 2) has");
	expect_open_err(p, len, -EBADMSG, "more than the file holds");
	/* just one byte too many */
	put64(p + sec + offsetof(struct kmt_section, size), len - sec - SEC_SZ + 1);
	expect_open_err(p, len, -EBADMSG, "more than the file holds");
	/* exactly to the end is fine size-wise (the rest is then skipped) */
	put64(p + sec + offsetof(struct kmt_section, size), len - sec - SEC_SZ);
	expect_open_err(p, len, -EBADMSG, "section 2 of 7 starts past the end");
	free(p);
}

static void test_err_too_many_sections(void **state)
{
	uint8_t *p;
	size_t len;
	uint32_t nr;

	(void)state;
	build_small(false, &p, &len);
	nr = get32(p + offsetof(struct kmt_file_header, nr_sections));
	assert_int_equal(nr, 7);	/* format meta topo caches kallsyms 2 cpus */
	put32(p + offsetof(struct kmt_file_header, nr_sections), nr + 1);
	expect_open_err(p, len, -EBADMSG, "section 7 of 8 starts past the end");
	free(p);
}

static void test_err_no_format(void **state)
{
	uint8_t *p;
	size_t len, sec;

	(void)state;
	build_small(false, &p, &len);
	sec = find_sec(p, len, KMT_SEC_FORMAT, 0);
	put32(p + sec + offsetof(struct kmt_section, type), 99);
	expect_open_err(p, len, -EBADMSG, "no format section");
	free(p);
}

static void test_err_no_cpus(void **state)
{
	uint8_t *p;
	size_t len;

	(void)state;
	build_small(false, &p, &len);
	put32(p + find_sec(p, len, KMT_SEC_CPU, 1), 100);
	put32(p + find_sec(p, len, KMT_SEC_CPU, 0), 100);
	expect_open_err(p, len, -EBADMSG, "no CPU sections: no events");
	free(p);
}

static void test_err_cpu_section_short(void **state)
{
	uint8_t *p, *q;
	size_t len, qlen, sec;

	(void)state;
	build_small(false, &p, &len);
	sec = find_sec(p, len, KMT_SEC_CPU, 1);
	/* keep 23 bytes of the 24-byte CPU header */
	q = splice(p, len, sec, CS_SZ - 1, sec_size(p, sec) - CS_SZ + 1,
		   NULL, 0, &qlen);
	expect_open_err(q, qlen, -EBADMSG, "CPU section 6 is too short");
	free(q);
	free(p);
}

static void test_err_format_magic(void **state)
{
	char want[96];
	uint8_t *p;
	size_t len, fmt;

	(void)state;
	build_small(false, &p, &len);
	fmt = find_sec(p, len, KMT_SEC_FORMAT, 0) + SEC_SZ;
	put32(p + fmt + offsetof(struct kmt_format, magic), 0xdeadbeef);
	snprintf(want, sizeof(want), "format magic is 0xdeadbeef, expected 0x%08x",
		 KMT_FORMAT_MAGIC);
	expect_open_err(p, len, -EBADMSG, want);
	/* the file's byte order applies: a swapped magic is wrong too */
	put32(p + fmt + offsetof(struct kmt_format, magic),
	      __builtin_bswap32(KMT_FORMAT_MAGIC));
	expect_open_err(p, len, -EBADMSG, "format magic is 0x");
	free(p);
}

static void test_err_abi_version(void **state)
{
	uint8_t *p;
	size_t len, fmt;

	(void)state;
	build_small(false, &p, &len);
	fmt = find_sec(p, len, KMT_SEC_FORMAT, 0) + SEC_SZ;
	put16(p + fmt + offsetof(struct kmt_format, abi_version), 3);
	expect_open_err(p, len, -EPROTONOSUPPORT,
			"recorder ABI version 3; this kmemflight reads versions 1 to 2");
	put16(p + fmt + offsetof(struct kmt_format, abi_version), 0);
	expect_open_err(p, len, -EPROTONOSUPPORT,
			"recorder ABI version 0; this kmemflight reads versions 1 to 2");
	free(p);
}

static void test_err_format_sizes(void **state)
{
	uint8_t *p, *q;
	size_t len, qlen, sec, fmt;

	(void)state;
	build_small(false, &p, &len);
	sec = find_sec(p, len, KMT_SEC_FORMAT, 0);
	fmt = sec + SEC_SZ;

	/* the layouts cut off */
	q = splice(p, len, sec, KMT_FORMAT_MIN_SIZE,
		   sizeof(struct kmt_layout) * NR_V1_LAYOUTS, NULL, 0, &qlen);
	expect_open_err(q, qlen, -EBADMSG,
			"format has 14 layouts of 160 bytes: more than its 72 bytes");
	free(q);
	/* the header itself cut off */
	q = splice(p, len, sec, 8, sec_size(p, sec) - 8, NULL, 0, &qlen);
	expect_open_err(q, qlen, -EBADMSG, "format description is 8 bytes, needs 72");
	free(q);

	put16(p + fmt + offsetof(struct kmt_format, header_size), 71);
	expect_open_err(p, len, -EBADMSG, "format header size 71 is invalid");
	put16(p + fmt + offsetof(struct kmt_format, header_size), 72);

	put32(p + fmt + offsetof(struct kmt_format, subbuf_size), 32);
	expect_open_err(p, len, -EBADMSG, "sub-buffer sizes 32/32 are invalid");
	put32(p + fmt + offsetof(struct kmt_format, subbuf_size), 4096);

	p[fmt + offsetof(struct kmt_format, word_size)] = 2;
	expect_open_err(p, len, -EBADMSG, "word size 2 is invalid");
	p[fmt + offsetof(struct kmt_format, word_size)] = 8;

	p[fmt + offsetof(struct kmt_format, page_shift)] = 200;
	expect_open_err(p, len, -EBADMSG, "page shift 200 is invalid");
	p[fmt + offsetof(struct kmt_format, page_shift)] = 12;

	/* a corrupt count that readers would size tables by */
	put32(p + fmt + offsetof(struct kmt_format, nr_cpu_ids), 65537);
	expect_open_err(p, len, -EBADMSG, "nr_cpu_ids 65537 is invalid (at most 65536)");
	put32(p + fmt + offsetof(struct kmt_format, nr_cpu_ids), 65536);
	{
		struct kmt_trace t;
		struct kmt_err err;

		assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
		assert_int_equal(t.fmt.nr_cpu_ids, 65536);
		kmt_trace_close(&t);
	}
	free(p);
}

static void test_err_layouts(void **state)
{
	uint8_t *p;
	size_t len, l0, l1;

	(void)state;
	build_small(false, &p, &len);
	l0 = find_sec(p, len, KMT_SEC_FORMAT, 0) + SEC_SZ +
	     KMT_FORMAT_MIN_SIZE;
	l1 = l0 + sizeof(struct kmt_layout);

	p[l1 + offsetof(struct kmt_layout, type)] = KMT_EV_KMALLOC;
	expect_open_err(p, len, -EBADMSG, "event type 1 is described twice");
	p[l1 + offsetof(struct kmt_layout, type)] = KMT_EV_CACHE_ALLOC;

	p[l0 + offsetof(struct kmt_layout, type)] = 0;
	expect_open_err(p, len, -EBADMSG, "layout 0 has invalid event type 0");
	p[l0 + offsetof(struct kmt_layout, type)] = 32;
	expect_open_err(p, len, -EBADMSG, "layout 0 has invalid event type 32");
	p[l0 + offsetof(struct kmt_layout, type)] = KMT_EV_KMALLOC;

	p[l0 + offsetof(struct kmt_layout, nr_fields)] = 9;
	expect_open_err(p, len, -EBADMSG, "event type 1 has 9 fields (max 8)");
	p[l0 + offsetof(struct kmt_layout, nr_fields)] = 6;

	p[l0 + offsetof(struct kmt_layout, fields[2].enc)] = 6;
	expect_open_err(p, len, -EBADMSG,
			"event type 1 field 2 has unknown encoding 6");
	free(p);
}

static void test_err_topology_caches(void **state)
{
	uint8_t *p;
	size_t len, sec;

	(void)state;
	build_small(false, &p, &len);
	sec = find_sec(p, len, KMT_SEC_TOPOLOGY, 0) + SEC_SZ;
	assert_memory_equal(p + sec, "cpu 0 node 0\n", 13);
	p[sec + 2] = 'X';
	expect_open_err(p, len, -EBADMSG,
			"topology line \"cpX 0 node 0\" not understood");
	p[sec + 2] = 'u';

	sec = find_sec(p, len, KMT_SEC_CACHES, 0) + SEC_SZ;
	assert_memory_equal(p + sec, "2 3000 3072 64 0 task_struct\n", 29);
	p[sec + 2] = 'x';
	expect_open_err(p, len, -EBADMSG,
			"cache table line \"2 x000 3072 64 0 task_struct\" not understood");
	free(p);
}

/* ---- sub-buffer and record errors ----------------------------------- */

static void test_err_subbuf_magic(void **state)
{
	uint8_t *p;
	size_t len, sb;

	(void)state;
	build_small(false, &p, &len);
	sb = find_subbuf(p, find_sec(p, len, KMT_SEC_CPU, 1), 0);
	put32(p + sb + offsetof(struct kmt_subbuf_header, magic), 0x11223344);
	expect_count_err(p, len, "cpu 1: sub-buffer 0 has a bad magic 0x11223344");
	free(p);
}

static void test_err_subbuf_cpu(void **state)
{
	uint8_t *p;
	size_t len, sb;

	(void)state;
	build_small(false, &p, &len);
	sb = find_subbuf(p, find_sec(p, len, KMT_SEC_CPU, 0), 0);
	put32(p + sb + offsetof(struct kmt_subbuf_header, cpu), 7);
	expect_count_err(p, len, "cpu 0: sub-buffer 0 says it is from cpu 7");
	free(p);
}

static void test_err_subbuf_size(void **state)
{
	uint8_t *p;
	size_t len, sb;
	uint32_t sz;

	(void)state;
	build_small(false, &p, &len);
	sb = find_subbuf(p, find_sec(p, len, KMT_SEC_CPU, 0), 0);
	sz = get32(p + sb + offsetof(struct kmt_subbuf_header, size));
	put32(p + sb + offsetof(struct kmt_subbuf_header, size), SB_SZ - 1);
	expect_count_err(p, len, "cpu 0: sub-buffer 0 has invalid size 31");
	put32(p + sb + offsetof(struct kmt_subbuf_header, size), 4097);
	expect_count_err(p, len, "has invalid size 4097");
	/* more than the section holds */
	put32(p + sb + offsetof(struct kmt_subbuf_header, size), sz + 8);
	expect_count_err(p, len, "has invalid size");
	free(p);
}

static void walk_times(const struct kmt_trace *t, unsigned int idx,
		       const uint64_t *ts, const int *abs_flag, unsigned int nr,
		       uint64_t *nr_subbufs);

/* One CPU, 20 kmallocs of 12 bytes, 4 per 80-byte sub-buffer. */
static void build_multi_order(bool swap, uint8_t **p, size_t *len)
{
	struct kb *b = kb_new_v1(1, 80);
	unsigned int i;

	kb_set_swap(b, swap);
	for (i = 0; i < 20; i++)
		kb_kmalloc(b, 0, 1000 + i * 100, KMT_CTX_TASK, 1, T(0x1010),
			   D(0x1000 + i * 0x40), 40, 64, 0xcc0, -1);
	finish(b, p, len);
}

static void build_multi(uint8_t **p, size_t *len)
{
	build_multi_order(false, p, len);
}

/* Several sub-buffers written in the other byte order: seq, size, base. */
static void test_swapped_multi_subbuf(void **state)
{
	uint64_t ts[20];
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;
	size_t len;
	uint64_t nsb;
	unsigned int i;

	(void)state;
	for (i = 0; i < 20; i++)
		ts[i] = 1000 + i * 100;
	build_multi_order(true, &p, &len);
	if (kmt_trace_open_mem(p, len, &t, &err))
		fail_msg("open: %s", err.msg);
	assert_true(t.swap);
	assert_int_equal(t.cpus[0].nr_subbufs, 5);
	walk_times(&t, 0, ts, NULL, 20, &nsb);
	assert_true(nsb == 5);
	kmt_trace_close(&t);
	free(p);
}

static void test_err_subbuf_seq(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;
	size_t len, sec, sb;
	uint64_t n;
	unsigned int i;

	(void)state;
	build_multi(&p, &len);
	sec = find_sec(p, len, KMT_SEC_CPU, 0);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_true(t.cpus[0].nr_subbufs >= 4);
	assert_int_equal(kmt_trace_count(&t, &n, &err), 0);
	assert_true(n == 20);

	/* the first sequence number is free: a ring may have wrapped */
	for (i = 0; i < t.cpus[0].nr_subbufs; i++) {
		sb = find_subbuf(p, sec, i);
		put32(p + sb + offsetof(struct kmt_subbuf_header, seq), 100 + i);
	}
	assert_int_equal(kmt_trace_count(&t, &n, &err), 0);
	assert_true(n == 20);
	kmt_trace_close(&t);

	/* then no gaps */
	sb = find_subbuf(p, sec, 2);
	put32(p + sb + offsetof(struct kmt_subbuf_header, seq), 107);
	expect_count_err(p, len,
			 "cpu 0: sub-buffer sequence jumps from 101 to 107 (sub-buffers missing)");
	put32(p + sb + offsetof(struct kmt_subbuf_header, seq), 101);
	expect_count_err(p, len,
			 "cpu 0: sub-buffer 101 comes again after 101 (duplicated sub-buffers)");
	free(p);
}

static void test_err_subbuf_deleted(void **state)
{
	uint8_t *p, *q;
	size_t len, qlen, sec, sb1;
	uint32_t sz;

	(void)state;
	build_multi(&p, &len);
	sec = find_sec(p, len, KMT_SEC_CPU, 0);
	sb1 = find_subbuf(p, sec, 1);
	sz = get32(p + sb1 + offsetof(struct kmt_subbuf_header, size));
	q = splice(p, len, sec, sb1 - sec - SEC_SZ, sz, NULL, 0, &qlen);
	expect_count_err(q, qlen, "sequence jumps from 0 to 2 (sub-buffers missing)");
	free(q);
	free(p);
}

static void test_err_stray_bytes(void **state)
{
	static const uint8_t junk[5] = { 1, 2, 3, 4, 5 };
	uint8_t *p, *q;
	size_t len, qlen, sec;

	(void)state;
	build_small(false, &p, &len);
	sec = find_sec(p, len, KMT_SEC_CPU, 1);
	q = splice(p, len, sec, sec_size(p, sec), 0, junk, sizeof(junk), &qlen);
	expect_count_err(q, qlen, "cpu 1: 5 stray bytes after sub-buffer 1");
	free(q);
	free(p);
}

static void test_err_undescribed_type(void **state)
{
	static const uint8_t types[] = { 0, 15, KMT_EV_MAX };
	uint8_t *p;
	size_t len, rec;
	unsigned int i;

	(void)state;
	build_small(false, &p, &len);
	rec = find_subbuf(p, find_sec(p, len, KMT_SEC_CPU, 0), 0) + SB_SZ;
	assert_int_equal(p[rec], KMT_EV_CACHE_DEF);
	for (i = 0; i < sizeof(types); i++) {
		p[rec] = types[i];
		expect_count_err(p, len,
				 "cpu 0: sub-buffer 0: record of an undescribed event type at offset 32");
	}
	free(p);

	/* a type the recorder knows but this trace's format does not describe */
	build_small(false, &p, &len);
	rec = find_sec(p, len, KMT_SEC_FORMAT, 0) + SEC_SZ +
	      KMT_FORMAT_MIN_SIZE + (KMT_EV_KFREE - 1) * sizeof(struct kmt_layout);
	assert_int_equal(p[rec], KMT_EV_KFREE);
	p[rec] = 20;
	expect_count_err(p, len, "cpu 1: sub-buffer 0: record of an undescribed event type");
	free(p);
}

static void test_err_truncated_record(void **state)
{
	struct kb *b = kb_new_v1(1, 4096);
	uint8_t *p;
	size_t len, sb;
	uint32_t sz, cut;

	(void)state;
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 300, T(0x1010), D(0x1000),
		   100, 128, 0xcc0, -1);
	kb_kmalloc(b, 0, 1500, KMT_CTX_TASK, 300, T(0x1010), D(0x2000),
		   100, 128, 0xcc0, -1);
	finish(b, &p, &len);
	sb = find_subbuf(p, find_sec(p, len, KMT_SEC_CPU, 0), 0);
	sz = get32(p + sb + offsetof(struct kmt_subbuf_header, size));
	/* first record 13 bytes (ptr 2 bytes, time 1); the second:
	 * hdr, time 2, pid 2, site 2, ptr 3, req 1, slack 1, gfp 2, node 1 */
	assert_int_equal(sz, SB_SZ + 13 + 15);
	/* every cut of the last record is refused */
	for (cut = 1; cut < 15; cut++) {
		put32(p + sb + offsetof(struct kmt_subbuf_header, size), sz - cut);
		expect_count_err(p, len, "cpu 0: sub-buffer 0: truncated");
		expect_count_err(p, len, cut <= 10 ? "truncated field at offset 45" :
				 cut <= 12 ? "truncated pid at offset 45" :
				 "truncated time field at offset 45");
	}
	free(p);
}

static void test_err_string_past_end(void **state)
{
	struct kb *b = kb_new_v1(1, 4096);
	uint8_t *p;
	size_t len, sb;
	uint32_t sz;

	(void)state;
	kb_cache_def(b, 0, 100, 1, 192, 192, 8, "dentry");
	finish(b, &p, &len);
	sb = find_subbuf(p, find_sec(p, len, KMT_SEC_CPU, 0), 0);
	sz = get32(p + sb + offsetof(struct kmt_subbuf_header, size));
	/* hdr time pid 1 192(2) 192(2) 8 0, then the length 6 and "dentry" */
	assert_int_equal(sz, SB_SZ + 10 + 1 + 6);
	assert_int_equal(p[sb + SB_SZ + 10], 6);
	p[sb + SB_SZ + 10] = 7;
	expect_count_err(p, len, "string runs past the sub-buffer at offset 32");
	free(p);
}

/* ---- kmt_trace_open on files ---------------------------------------- */

static void test_open_file(void **state)
{
	char path[] = "/tmp/kmt-test-XXXXXX";
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;
	size_t len;
	int fd;

	(void)state;
	build_small(false, &p, &len);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	close(fd);

	if (kmt_trace_open(path, &t, &err))
		fail_msg("open: %s", err.msg);
	assert_true(t.mapped);
	assert_int_equal(t.len, len);
	assert_int_equal(t.nr_cpus, 2);
	check_small_events(&t);
	kmt_trace_close(&t);
	assert_false(t.mapped);

	/* truncated on disk: the message names the file and the check */
	assert_int_equal(truncate(path, (off_t)len - 1), 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_trace_open(path, &t, &err), -EBADMSG);
	assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
	assert_msg(&err, ": file is ");
	assert_msg(&err, "truncated or incomplete save");

	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(kmt_trace_open(path, &t, &err), -EBADMSG);
	assert_msg(&err, ": empty file");
	unlink(path);
	free(p);
}

static void test_open_missing(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_trace_open("/nonexistent/dir/trace.kmt", &t, &err),
			 -ENOENT);
	assert_msg(&err, "/nonexistent/dir/trace.kmt: no such file");
	assert_msg(&err, "kmemflight save");
	assert_null(t.cpus);
}

static void test_open_directory(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_trace_open("/tmp", &t, &err), -EINVAL);
	assert_msg(&err, "/tmp: not a regular file");
	assert_false(t.mapped);
}

/* ---- cursor timestamps ---------------------------------------------- */

/*
 * Decode one CPU, checking each event's time and whether its record
 * carried an absolute time (peeked before decoding).
 */
static void walk_times(const struct kmt_trace *t, unsigned int idx,
		       const uint64_t *ts, const int *abs_flag, unsigned int nr,
		       uint64_t *nr_subbufs)
{
	struct kmt_cursor c;
	struct kmt_event ev;
	struct kmt_err err;
	unsigned int n = 0;
	int ret;

	kmt_cursor_init(&c, &t->fmt, t->layout, t->swap, t->cpus[idx].cpu,
			t->cpus[idx].data, t->cpus[idx].size);
	for (;;) {
		int abs_bit = -1;

		if (c.rp && c.rp < c.rend)
			abs_bit = !!(*c.rp & KMT_HDR_ABS_TIME);
		ret = kmt_cursor_next(&c, &ev, &err);
		if (ret <= 0)
			break;
		assert_in_range(n, 0, nr - 1);
		if (ev.ts != ts[n])
			fail_msg("event %u: ts %llu, expected %llu", n,
				 (unsigned long long)ev.ts,
				 (unsigned long long)ts[n]);
		if (abs_flag && abs_flag[n] >= 0)
			assert_int_equal(abs_bit, abs_flag[n]);
		n++;
	}
	if (ret < 0)
		fail_msg("cursor: %s", err.msg);
	assert_int_equal(n, nr);
	if (nr_subbufs)
		*nr_subbufs = c.nr_subbufs;
}

static void test_cursor_times(void **state)
{
	static const uint64_t ts[] = {
		1000,				/* sub-buffer base */
		1001,				/* delta 1 */
		1001,				/* delta 0 */
		1001 + (1ULL << 31) - 1,	/* largest delta */
		1001 + (1ULL << 31) - 1 + (1ULL << 31),	/* absolute */
		9000000000ULL + 123,		/* absolute, > 2^32 */
		9000000000ULL + 124,		/* delta from the absolute */
		4000,				/* backwards: absolute */
		4001,
	};
	/* -1: the first record of a sub-buffer, whose bit the peek can't see */
	static const int abs_flag[] = { -1, 0, 0, 0, 1, 1, 0, 1, 0 };
	struct kb *b = kb_new_v1(1, 4096);
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;
	size_t len;
	uint64_t nsb;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		kb_kfree(b, 0, ts[i], KMT_CTX_SOFTIRQ, 0, T(0x10), D(0x40));
	finish(b, &p, &len);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_int_equal(t.cpus[0].nr_subbufs, 1);
	walk_times(&t, 0, ts, abs_flag, sizeof(ts) / sizeof(ts[0]), &nsb);
	assert_true(nsb == 1);
	kmt_trace_close(&t);
	free(p);
}

/* Times carried across sub-buffer boundaries, with a 3 s gap. */
static void test_cursor_subbufs(void **state)
{
	static uint64_t ts[1000];
	struct kb *b = kb_new_v1(1, 256);
	struct kmt_trace t;
	struct kmt_err err;
	struct kmt_cursor c;
	struct kmt_event ev;
	uint8_t *p;
	size_t len;
	uint64_t nsb, now = 1000;
	unsigned int i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		if (i == 500)
			now += 3000000000ULL;
		if (i == 600)
			kb_set_lost(b, 0, 3);
		ts[i] = now;
		kb_kmalloc(b, 0, now, KMT_CTX_TASK, 1, T(0x1010 + (i % 4) * 0x10),
			   D(0x100000 + (uint64_t)i * 64), 40 + i % 4, 64,
			   0xcc0, -1);
		now += 1500;
	}
	finish(b, &p, &len);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_true(t.cpus[0].nr_subbufs > 60);
	walk_times(&t, 0, ts, NULL, 1000, &nsb);
	assert_true(nsb == t.cpus[0].nr_subbufs);
	assert_true(t.cpus[0].lost == 3);

	/* the lost counter of each sub-buffer header, and the fields */
	kmt_cursor_init(&c, &t.fmt, t.layout, t.swap, 0, t.cpus[0].data,
			t.cpus[0].size);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(kmt_cursor_next(&c, &ev, &err), 1);
		assert_true(ev.call_site == T(0x1010 + (i % 4) * 0x10));
		assert_true(ev.ptr == D(0x100000 + (uint64_t)i * 64));
		assert_true(ev.bytes_req == 40 + i % 4);
		assert_true(ev.bytes_alloc == 64);
		assert_true(ev.node == -1);
		if (i < 600)
			assert_true(c.lost_before == 0);
		else if (i > 650)
			assert_true(c.lost_before == 3);
	}
	assert_int_equal(kmt_cursor_next(&c, &ev, &err), 0);
	kmt_trace_close(&t);
	free(p);
}

/* Two records per sub-buffer: exact boundaries, gap on a boundary. */
static void test_cursor_boundary(void **state)
{
	static const uint64_t ts[] = {
		10, 20,				/* sub-buffer 0 */
		30, 40,				/* sub-buffer 1 */
		40 + 4000000000ULL, 50 + 4000000000ULL,	/* sub-buffer 2 */
		60 + 4000000000ULL,		/* sub-buffer 3 */
	};
	struct kb *b = kb_new_v1(1, SB_SZ + 2 * 6);
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;
	size_t len, sec;
	uint64_t nsb;
	unsigned int i;

	(void)state;
	/* kfree, pid 1, site 0x10, ptr 0x40, 1-byte deltas: 6 bytes each */
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		kb_kfree(b, 0, ts[i], KMT_CTX_TASK, 1, T(0x10), D(0x40));
	finish(b, &p, &len);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_int_equal(t.cpus[0].nr_subbufs, 4);
	sec = find_sec(p, len, KMT_SEC_CPU, 0);
	for (i = 0; i < 4; i++)
		assert_true(get64(p + find_subbuf(p, sec, i) +
				  offsetof(struct kmt_subbuf_header, base_ts)) ==
			    ts[2 * i]);
	walk_times(&t, 0, ts, NULL, sizeof(ts) / sizeof(ts[0]), &nsb);
	assert_true(nsb == 4);
	kmt_trace_close(&t);
	free(p);
}

/* Empty sub-buffers (header only) are skipped. */
static void test_cursor_empty_subbuf(void **state)
{
	static const uint64_t ts[] = { 1000, 1010 };
	struct kmt_subbuf_header h = {
		.magic = KMT_SUBBUF_MAGIC, .cpu = 0, .seq = 1, .size = SB_SZ,
		.base_ts = 5,
	};
	struct kb *b = kb_new_v1(1, 64);
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p, *q;
	size_t len, qlen, sec, sb;
	unsigned int i;

	(void)state;
	/* two kfrees in one sub-buffer, then an empty one appended as seq 1 */
	kb_kfree(b, 0, 1000, KMT_CTX_TASK, 1, T(0x10), D(0x40));
	kb_kfree(b, 0, 1010, KMT_CTX_TASK, 1, T(0x10), D(0x40));
	finish(b, &p, &len);
	sec = find_sec(p, len, KMT_SEC_CPU, 0);
	sb = find_subbuf(p, sec, 0);
	put32(p + sb + offsetof(struct kmt_subbuf_header, seq), 0);
	q = splice(p, len, sec, sec_size(p, sec), 0, &h, sizeof(h), &qlen);
	free(p);
	/* seq 0 with records, then the empty seq 1, then nothing */
	assert_int_equal(kmt_trace_open_mem(q, qlen, &t, &err), 0);
	walk_times(&t, 0, ts, NULL, 2, NULL);
	kmt_trace_close(&t);

	/* an empty one in the middle */
	sec = find_sec(q, qlen, KMT_SEC_CPU, 0);
	p = splice(q, qlen, sec, CS_SZ, 0, &h, sizeof(h), &len);
	free(q);
	for (i = 0; i < 3; i++) {
		sb = find_subbuf(p, sec, i);
		put32(p + sb + offsetof(struct kmt_subbuf_header, seq), i);
	}
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	walk_times(&t, 0, ts, NULL, 2, NULL);
	kmt_trace_close(&t);
	free(p);
}

/* ---- merge ---------------------------------------------------------- */

static void test_merge_order(void **state)
{
	static const struct { uint64_t ts; uint32_t cpu; } want[] = {
		{ 5, 1 }, { 10, 0 }, { 20, 1 }, { 30, 0 }, { 30, 1 },
		{ 40, 1 }, { 50, 0 }, { 50, 0 }, { 60, 1 }, { 70, 0 },
		{ 80, 1 }, { 90, 0 }, { 5000000000ULL, 0 },
		{ 5000000000ULL, 1 }, { 6000000000ULL, 1 },
	};
	struct kb *b = kb_new_v1(2, SB_SZ + 2 * 11);
	struct kmt_trace t;
	struct kmt_err err;
	struct kmt_merge m;
	struct kmt_event ev;
	uint8_t *p;
	size_t len;
	unsigned int i, n = 0;
	int ret;

	(void)state;
	/* the builder wants each CPU's events in order; add by CPU */
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (want[i].cpu == 0)
			kb_kfree(b, 0, want[i].ts, KMT_CTX_TASK, i, T(0x10), D(0x40));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (want[i].cpu == 1)
			kb_kfree(b, 1, want[i].ts, KMT_CTX_TASK, i, T(0x10), D(0x40));
	finish(b, &p, &len);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_true(t.cpus[0].nr_subbufs >= 3);
	assert_true(t.cpus[1].nr_subbufs >= 3);
	assert_int_equal(kmt_merge_init(&m, &t, &err), 0);
	while ((ret = kmt_merge_next(&m, &ev, &err)) > 0) {
		assert_in_range(n, 0, sizeof(want) / sizeof(want[0]) - 1);
		if (ev.ts != want[n].ts || ev.cpu != want[n].cpu)
			fail_msg("event %u: ts %llu cpu %u, expected ts %llu cpu %u",
				 n, (unsigned long long)ev.ts, ev.cpu,
				 (unsigned long long)want[n].ts, want[n].cpu);
		/* the pid carries the index it was added with */
		assert_int_equal(ev.pid, n);
		n++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	assert_int_equal(kmt_merge_next(&m, &ev, &err), 0);
	kmt_merge_free(&m);
	kmt_trace_close(&t);
	free(p);
}

/* ---- symbols -------------------------------------------------------- */

static const char syms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T alloc_thing\n"
	"ffffffff81001800 D data_in_text\n"
	"ffffffff81002000 t helper_init\n"
	"ffffffff81003000 T free_thing\n"
	"ffffffff81004000 t local_alias\n"
	"ffffffff81004000 T global_name\n"
	"ffffffff81005000 W weak_fn\n"
	"ffffffff81005000 T second_global\n"
	"ffffffff81006000 t mod_fn\t[mymod]\n"
	"ffffffff82000000 D some_data\n"
	"ffffffff82000100 b bss_thing\n"
	"not a symbol line\n"
	"ffffffff81007000 T\n"
	"ffffffff81008000 X unknown_type\n"
	"zzzz T bad_addr\n"
	"0000000000000000 T zero_addr\n"
	"ffffffff81009000  T two_spaces\n"
	"ffffffff8100a000 T last_no_newline";

static void check_fmt(const struct kmt_symtab *st, uint64_t addr, bool raw,
		      const char *want)
{
	char buf[128];

	memset(buf, 'x', sizeof(buf));
	kmt_symtab_format(st, addr, raw, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_symtab(void **state)
{
	struct kmt_symtab st;
	const struct kmt_sym *s;
	char small[8];

	(void)state;
	assert_int_equal(kmt_symtab_load(&st, syms, strlen(syms)), 0);
	/* _stext alloc_thing helper_init free_thing local_alias global_name
	 * weak_fn second_global mod_fn last_no_newline */
	assert_int_equal(st.nr, 10);
	for (size_t i = 1; i < st.nr; i++)
		assert_true(st.syms[i - 1].addr <= st.syms[i].addr);

	check_fmt(&st, T(0x1010), false, "alloc_thing+0x10");
	check_fmt(&st, T(0x1010), true, "0xffffffff81001010");
	check_fmt(&st, T(0x1000), false, "alloc_thing+0x0");
	check_fmt(&st, T(0), false, "_stext+0x0");
	check_fmt(&st, T(0x2005), false, "helper_init+0x5");
	check_fmt(&st, T(0x2fff), false, "helper_init+0xfff");
	check_fmt(&st, T(0x3008), false, "free_thing+0x8");
	/* before the first symbol */
	check_fmt(&st, T(0) - 1, false, "0xffffffff80ffffff");
	check_fmt(&st, 0, false, "0x0");
	/* data symbols are not symbols: this is alloc_thing's */
	check_fmt(&st, T(0x1810), false, "alloc_thing+0x810");
	/* names end at a tab: the module suffix is not part of them */
	check_fmt(&st, T(0x6004), false, "mod_fn+0x4");
	check_fmt(&st, T(0xa001), false, "last_no_newline+0x1");
	/* up to 1 MiB past the last symbol, then raw */
	check_fmt(&st, T(0xa000) + 0xfffff, false, "last_no_newline+0xfffff");
	check_fmt(&st, T(0xa000) + 0x100000, false, "0xffffffff8110a000");
	check_fmt(&st, 0xffffffff82000010ULL, false, "0xffffffff82000010");
	check_fmt(&st, UINT64_MAX, false, "0xffffffffffffffff");

	/* duplicates: the global name wins over the local one before it */
	check_fmt(&st, T(0x4000), false, "global_name+0x0");
	check_fmt(&st, T(0x4020), false, "global_name+0x20");
	/* two global names: the first in the file */
	check_fmt(&st, T(0x5001), false, "weak_fn+0x1");
	s = kmt_symtab_find(&st, T(0x4fff));
	assert_non_null(s);
	assert_int_equal(s->name_len, 11);
	assert_memory_equal(s->name, "global_name", 11);
	assert_true(s->addr == T(0x4000));
	assert_null(kmt_symtab_find(&st, T(0) - 1));

	/* output is cut to the buffer, NUL-terminated */
	kmt_symtab_format(&st, T(0x1010), false, small, sizeof(small));
	assert_string_equal(small, "alloc_t");
	kmt_symtab_free(&st);
	assert_null(st.syms);
	assert_int_equal(st.nr, 0);
}

static void test_symtab_duplicates_order(void **state)
{
	static const char a[] =
		"ffffffff81004000 T global_name\n"
		"ffffffff81004000 t local_alias\n"
		"ffffffff81004000 t local_two\n";
	static const char b[] =
		"ffffffff81004000 t local_alias\n"
		"ffffffff81004000 t local_two\n"
		"ffffffff81004000 T global_name\n";
	static const char c[] =
		"ffffffff81004000 t local_two\n"
		"ffffffff81004000 t local_alias\n";
	struct kmt_symtab st;

	(void)state;
	assert_int_equal(kmt_symtab_load(&st, a, strlen(a)), 0);
	assert_int_equal(st.nr, 3);
	check_fmt(&st, T(0x4004), false, "global_name+0x4");
	kmt_symtab_free(&st);
	assert_int_equal(kmt_symtab_load(&st, b, strlen(b)), 0);
	check_fmt(&st, T(0x4004), false, "global_name+0x4");
	kmt_symtab_free(&st);
	/* among locals: the first in the file */
	assert_int_equal(kmt_symtab_load(&st, c, strlen(c)), 0);
	check_fmt(&st, T(0x4004), false, "local_two+0x4");
	kmt_symtab_free(&st);
}

static void test_symtab_edge(void **state)
{
	static const char nul_type[] = "ffffffff81004000 \0 nul_type\n";
	struct kmt_symtab st;
	char *big;
	size_t i, n = 10000, len = 0;

	(void)state;
	/* empty text: everything raw */
	assert_int_equal(kmt_symtab_load(&st, "", 0), 0);
	assert_int_equal(st.nr, 0);
	check_fmt(&st, T(0x10), false, "0xffffffff81000010");
	kmt_symtab_free(&st);
	assert_int_equal(kmt_symtab_load(&st, NULL, 0), 0);
	assert_int_equal(st.nr, 0);
	kmt_symtab_free(&st);

	/* a NUL is not a symbol type */
	assert_int_equal(kmt_symtab_load(&st, nul_type, sizeof(nul_type) - 1), 0);
	assert_int_equal(st.nr, 0);
	kmt_symtab_free(&st);

	/* the length bounds the text: no reading past it */
	assert_int_equal(kmt_symtab_load(&st, syms, 27), 0);
	assert_int_equal(st.nr, 1);
	check_fmt(&st, T(0x1010), false, "_stext+0x1010");
	kmt_symtab_free(&st);
	assert_int_equal(kmt_symtab_load(&st, syms, 24), 0);
	assert_int_equal(st.nr, 1);
	check_fmt(&st, T(0x1), false, "_stex+0x1");
	kmt_symtab_free(&st);

	/* many symbols, given in reverse: sorted, all found */
	big = malloc(n * 40);
	assert_non_null(big);
	for (i = n; i-- > 0;)
		len += (size_t)sprintf(big + len, "%016llx T f%zu\n",
				       (unsigned long long)T(i * 0x100), i);
	assert_int_equal(kmt_symtab_load(&st, big, len), 0);
	assert_int_equal(st.nr, n);
	for (i = 0; i < n; i += 37) {
		char want[32];

		snprintf(want, sizeof(want), "f%zu+0x%zx", i, i % 0x100);
		check_fmt(&st, T(i * 0x100 + i % 0x100), false, want);
	}
	kmt_symtab_free(&st);
	free(big);
}

/* Without META and KALLSYMS sections, lookups find nothing. */
static void test_no_meta_no_kallsyms(void **state)
{
	struct kb *b = kb_new_v1(1, 4096);
	struct kmt_trace t;
	struct kmt_err err;
	struct kmt_symtab st;
	char buf[16] = "unchanged";
	uint8_t *p;
	size_t len;

	(void)state;
	kb_kfree(b, 0, 10, KMT_CTX_TASK, 1, T(0x10), D(0x40));
	finish(b, &p, &len);
	put32(p + find_sec(p, len, KMT_SEC_META, 0), 77);
	if (kmt_trace_open_mem(p, len, &t, &err))
		fail_msg("open: %s", err.msg);
	assert_null(t.meta);
	assert_null(t.kallsyms);
	assert_false(kmt_trace_meta(&t, "release", buf, sizeof(buf)));
	assert_string_equal(buf, "unchanged");
	assert_int_equal(kmt_symtab_load(&st, t.kallsyms, t.kallsyms_len), 0);
	assert_int_equal(st.nr, 0);
	check_fmt(&st, T(0x10), false, "0xffffffff81000010");
	kmt_symtab_free(&st);
	kmt_trace_close(&t);
	free(p);
}

/* The symbols a built trace carries load from its KALLSYMS section. */
static void test_symtab_from_trace(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;
	struct kmt_symtab st;
	uint8_t *p;
	size_t len;

	(void)state;
	build_small(true, &p, &len);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_int_equal(kmt_symtab_load(&st, t.kallsyms, t.kallsyms_len), 0);
	assert_int_equal(st.nr, 2);
	check_fmt(&st, small_events[2].call_site, false, "alloc_thing+0x10");
	check_fmt(&st, small_events[8].call_site, false, "0xffffffff80fffff0");
	kmt_symtab_free(&st);
	kmt_trace_close(&t);
	free(p);
}

/* ---- ABI 2: fixed-width records ---------------------------------------- */

static void decode_all(const uint8_t *p, size_t len, struct kmt_event *ev,
		       unsigned int max, unsigned int *n)
{
	struct kmt_trace t;
	struct kmt_cursor c;
	struct kmt_err err;
	int ret;

	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_int_equal(t.fmt.abi_version, 2);
	kmt_cursor_init(&c, &t.fmt, t.layout, t.swap, t.cpus[0].cpu,
			t.cpus[0].data, t.cpus[0].size);
	*n = 0;
	while ((ret = kmt_cursor_next(&c, &ev[*n], &err)) > 0) {
		assert_true(*n < max);
		(*n)++;
	}
	if (ret < 0)
		fail_msg("decode: %s", err.msg);
	kmt_trace_close(&t);
}

/* The exact bytes of ABI 2 records: header, time, elided pids, fields. */
static void test_v2_record_bytes(void **state)
{
	static const uint8_t want[] = {
		/* task kmalloc, first of the sub-buffer: pid 7 */
		KMT_EV_KMALLOC | KMT_HDR_PID, 0, 0, 7, 0, 0, 0,
		0x10, 0x10, 0, 0, 0x00, 0x02, 0, 0, 100, 0, 28, 0,
		0xc0, 0x0c, 0, 0xff,
		/* hardirq kfree 300 ns later: no pid */
		KMT_EV_KFREE | KMT_CTX_HARDIRQ << KMT_HDR_CTX_SHIFT, 0x2c, 0x01,
		0xf0, 0xff, 0xff, 0xff, 0x00, 0x02, 0, 0,
		/* task kfree, same pid: elided */
		KMT_EV_KFREE, 1, 0, 0x20, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff,
		/* task page free, pid 8: written */
		KMT_EV_PAGE_FREE | KMT_HDR_PID, 2, 0, 8, 0, 0, 0,
		0x35, 0x12, 0, 0, 3,
	};
	struct kb *b = kb_new(1, 4096);
	struct kmt_event ev[4];
	uint8_t *p;
	size_t len, sb;
	unsigned int n;

	(void)state;
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 7, T(0x1010), D(0x1000),
		   100, 128, 0xcc0, -1);
	kb_kfree(b, 0, 1300, KMT_CTX_HARDIRQ, 0, T(-0x10), D(0x1000));
	kb_kfree(b, 0, 1301, KMT_CTX_TASK, 7, T(0x20), 0);
	kb_page_free(b, 0, 1303, KMT_CTX_TASK, 8, 0x1235, 3);
	finish(b, &p, &len);
	sb = find_subbuf(p, find_sec(p, len, KMT_SEC_CPU, 0), 0);
	assert_int_equal(get32(p + sb + offsetof(struct kmt_subbuf_header, size)),
			 SB_SZ + sizeof(want));
	assert_memory_equal(p + sb + SB_SZ, want, sizeof(want));

	decode_all(p, len, ev, 4, &n);
	assert_int_equal(n, 4);
	assert_true(ev[0].ts == 1000 && ev[0].pid == 7 && ev[0].ctx == KMT_CTX_TASK);
	assert_true(ev[0].call_site == T(0x1010) && ev[0].ptr == D(0x1000));
	assert_true(ev[0].bytes_req == 100 && ev[0].bytes_alloc == 128);
	assert_true(ev[0].gfp == 0xcc0 && ev[0].node == -1);
	assert_true(ev[1].ts == 1300 && ev[1].pid == 0 && ev[1].ctx == KMT_CTX_HARDIRQ);
	assert_true(ev[1].call_site == T(-0x10) && ev[1].ptr == D(0x1000));
	assert_true(ev[2].ts == 1301 && ev[2].pid == 7 && ev[2].ptr == 0);
	assert_true(ev[3].ts == 1303 && ev[3].pid == 8);
	assert_true(ev[3].pfn1 == 0x1235 && ev[3].order == 3);
	free(p);
}

/* The worked example of Documentation/trace/kmemtrace-format.rst. */
static void test_v2_spec_example(void **state)
{
	static const uint8_t want[] = {
		0x4b, 0x4d, 0x53, 0x42, 0, 0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0,
		0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x81, 0, 0, 1, 0, 0, 0, 0x10, 0x10, 0, 0, 0, 2, 0, 0, 0x64,
		0, 0x1c, 0, 0xc0, 0x0c, 0, 0xff, 0x01, 0xdc, 0x05, 0x10, 0x10, 0, 0, 0, 4,
		0, 0, 0x64, 0, 0x1c, 0, 0xc0, 0x0c, 0, 0xff,
	};
	struct kb *b = kb_new(1, 4096);
	uint8_t *p;
	size_t len, sb;

	(void)state;
	kb_kmalloc(b, 0, 1000000, KMT_CTX_TASK, 1, T(0x1010), D(0x1000),
		   100, 128, 0xcc0, -1);
	kb_kmalloc(b, 0, 1001500, KMT_CTX_TASK, 1, T(0x1010), D(0x2000),
		   100, 128, 0xcc0, -1);
	finish(b, &p, &len);
	sb = find_subbuf(p, find_sec(p, len, KMT_SEC_CPU, 0), 0);
	assert_memory_equal(p + sb, want, sizeof(want));
	free(p);
}

/* Values too wide for their slot are escaped, and come back whole. */
static void test_v2_escapes(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct kmt_event ev[8];
	uint8_t *p;
	size_t len;
	unsigned int n;

	(void)state;
	/* far call site, unaligned pointer, big sizes, gfp and node */
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 70000, T(0x90000000ULL), D(0x1001),
		   70000, 140000, 0x1000000, 200);
	/* pointer past 32 GiB, below the direct map, node -128 */
	kb_cache_alloc(b, 0, 1000 + 0xffff, KMT_CTX_SOFTIRQ, 0, T(0),
		       D(1ULL << 40), 0xffff, 0xffffff, -128);
	kb_kfree(b, 0, 1000 + 0xffff + 0xfffe, KMT_CTX_TASK, 70000,
		 T(-0x80000000LL), KB_DMAP_BASE - 8);
	kb_page_alloc(b, 0, 9000000000ULL, KMT_CTX_TASK, 1, 0xffffffffULL, 0xff,
		      0, -1);
	kb_initcall_finish(b, 0, 9000000001ULL, T(0x100), -19);
	finish(b, &p, &len);

	decode_all(p, len, ev, 8, &n);
	assert_int_equal(n, 5);
	assert_true(ev[0].pid == 70000 && ev[0].call_site == T(0x90000000ULL));
	assert_true(ev[0].ptr == D(0x1001) && ev[0].bytes_req == 70000);
	assert_true(ev[0].bytes_alloc == 140000 && ev[0].gfp == 0x1000000);
	assert_true(ev[0].node == 200);
	assert_true(ev[1].ts == 1000 + 0xffff && ev[1].ptr == D(1ULL << 40));
	assert_true(ev[1].cache == 0xffff && ev[1].gfp == 0xffffff);
	assert_true(ev[1].node == -128 && ev[1].call_site == T(0));
	assert_true(ev[2].ts == 1000 + 0xffff + 0xfffe && ev[2].pid == 70000);
	assert_true(ev[2].call_site == T(-0x80000000LL));
	assert_true(ev[2].ptr == KB_DMAP_BASE - 8);
	assert_true(ev[3].ts == 9000000000ULL && ev[3].pfn1 == 0xffffffffULL);
	assert_true(ev[3].order == 0xff && ev[3].migratetype == -1);
	assert_true(ev[4].ts == 9000000001ULL && ev[4].ret == -19);
	assert_true(ev[4].call_site == T(0x100));
	free(p);
}

/*
 * Pids restart in every sub-buffer, and both readers give the same
 * events for the same input: every hot type, all contexts, sub-buffers
 * of 64 bytes, time gaps around the escape.
 */
static void test_v2_equals_v1(void **state)
{
	struct kb *b[2] = { kb_new_v1(1, 64), kb_new(1, 64) };
	struct kmt_event *ev[2];
	struct kmt_trace t[2];
	struct kmt_cursor c[2];
	struct kmt_err err;
	uint8_t *p[2];
	size_t len[2];
	uint64_t ts = 100, x = 12345;
	unsigned int i, k, n;
	int ret;

	(void)state;
	for (i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		ts += (x >> 33) % 4 == 0 ? 0xffff + (x >> 40) % 3 - 1 : (x >> 40) % 5000;
		for (k = 0; k < 2; k++) {
			int ctx = (x >> 20) % 4;
			uint32_t pid = ctx ? 0 : 1 + (x >> 24) % 3;

			switch ((x >> 28) % 5) {
			case 0:
				kb_kmalloc(b[k], 0, ts, ctx, pid, T((x >> 8) % 0x10000),
					   D(((x >> 16) % 0x100000) * 8), (x >> 30) % 4096,
					   4096, 0xcc0, -1);
				break;
			case 1:
				kb_cache_alloc(b[k], 0, ts, ctx, pid, T(0x40),
					       D(((x >> 16) % 0x100000) * 8),
					       (x >> 12) % 80, 0x400dc0, 0);
				break;
			case 2:
				kb_kfree(b[k], 0, ts, ctx, pid, T(0x80), D((x >> 16) % 0x1000));
				break;
			case 3:
				kb_cache_free(b[k], 0, ts, ctx, pid, T(0x80),
					      D(((x >> 16) % 0x100000) * 8), 3);
				break;
			default:
				kb_page_free(b[k], 0, ts, ctx, pid, (x >> 16) % 0x40000,
					     (x >> 12) % 11);
				break;
			}
		}
	}
	for (k = 0; k < 2; k++) {
		finish(b[k], &p[k], &len[k]);
		memset(&err, 0, sizeof(err));
		assert_int_equal(kmt_trace_open_mem(p[k], len[k], &t[k], &err), 0);
		assert_int_equal(t[k].fmt.abi_version, k + 1);
		kmt_cursor_init(&c[k], &t[k].fmt, t[k].layout, t[k].swap, 0,
				t[k].cpus[0].data, t[k].cpus[0].size);
		ev[k] = calloc(1, sizeof(*ev[k]));
	}
	for (n = 0;; n++) {
		ret = kmt_cursor_next(&c[0], ev[0], &err);
		assert_int_equal(kmt_cursor_next(&c[1], ev[1], &err), ret);
		if (ret <= 0)
			break;
		check_event(ev[1], ev[0]);
	}
	assert_int_equal(n, 2000);
	assert_true(c[1].nr_subbufs > 100);
	for (k = 0; k < 2; k++) {
		kmt_trace_close(&t[k]);
		free(p[k]);
		free(ev[k]);
	}
}

/*
 * The fixed-offset decoder of the hot ABI 2 records gives the same events
 * as the layout-driven loop, byte for byte: every hot type, all contexts,
 * pids changing, escapes and absolute times now and then, records near
 * the end of 512-byte sub-buffers.
 */
static void random_v2_events(struct kb *b, unsigned int nr)
{
	uint64_t ts = 100, x = 99;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		int ctx, wide;
		uint32_t pid;
		unsigned int cpu;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		ctx = (x >> 20) % 4;
		pid = ctx ? 0 : 1 + (x >> 24) % 3;
		cpu = (x >> 19) & 1;
		wide = (x >> 50) % 16 == 0;	/* one record in 16 escapes */
		ts += (x >> 33) % 64 == 0 ? 70000 : (x >> 40) % 3000;
		switch ((x >> 28) % 7) {
		case 0:
			kb_kmalloc(b, cpu, ts, ctx, pid, T((x >> 8) % 0x10000),
				   wide ? D(3) : D(((x >> 16) % 0x100000) * 8),
				   wide ? 100000 : (x >> 30) % 4096, 8192,
				   wide ? 0x1000000 : 0xcc0, wide ? 300 : -1);
			break;
		case 1:
			kb_cache_alloc(b, cpu, ts, ctx, pid,
				       wide ? T(1ULL << 33) : T(0x40),
				       D(((x >> 16) % 0x100000) * 8),
				       wide ? 70000 : (x >> 12) % 80, 0x400dc0, 0);
			break;
		case 2:
			kb_kfree(b, cpu, ts, ctx, pid, T(0x80),
				 wide ? 0 : D(((x >> 16) % 0x1000) * 8));
			break;
		case 3:
			kb_cache_free(b, cpu, ts, ctx, pid, T(0x80),
				      D(((x >> 16) % 0x100000) * 8), 3);
			break;
		case 4: {
			uint64_t fr[3] = { T(0x100), T(0x200), T(0x300) };

			kb_page_alloc_stack(b, cpu, ts, ctx, pid,
					    wide ? 1ULL << 33 : (x >> 16) % 0x40000,
					    (x >> 12) % 11, 0xcc0, wide ? -300 : 1,
					    fr, (x >> 44) % 4);
			break;
		}
		case 5:
			kb_page_free(b, cpu, ts, ctx, pid, (x >> 16) % 0x40000,
				     wide ? 300 : (x >> 12) % 11);
			break;
		default:
			kb_page_free_batched(b, cpu, ts, (x >> 16) % 0x40000);
			break;
		}
	}
}

static void test_v2_fast_equals_general(void **state)
{
	struct kb *b = kb_new(2, 512);
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p;
	size_t len;

	(void)state;
	random_v2_events(b, 20000);
	finish(b, &p, &len);
	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_int_equal(t.fmt.abi_version, 2);
	assert_int_equal(events_equal_general(&t), 20000);
	kmt_trace_close(&t);
	free(p);
}

/*
 * The encoder of imported traces writes what the recorder writes: every
 * event of a recorder-style trace, decoded and encoded again with the
 * same bases and sub-buffer size, gives back each CPU's bytes exactly.
 */
static void test_encoder_roundtrip(void **state)
{
	struct kb *b = kb_new(2, 512);
	struct kmt_encoder e;
	struct kmt_trace t;
	struct kmt_err err;
	unsigned int i;
	uint8_t *p;
	size_t len;

	(void)state;
	kb_cache_def(b, 0, 50, 7, 192, 192, 8, "dentry");
	kb_initcall_level(b, 1, 60, "core");
	kb_initcall_start(b, 1, 61, T(0x2000));
	kb_initcall_finish(b, 1, 62, T(0x2000), -12);
	kb_init_exec(b, 0, 70, "/init");
	/* every slot at and around its escape value */
	kb_kmalloc(b, 0, 80, KMT_CTX_TASK, 1, KB_TEXT_BASE - 0x80000000ULL,
		   D(0xfffffffdULL << 3), 0xffff, 0xffff + 0xfffe, 0xffffff, 127);
	kb_kmalloc(b, 0, 81, KMT_CTX_TASK, 1, KB_TEXT_BASE - 0x7fffffffULL,
		   D(0xfffffffeULL << 3), 0xfffe, 0xffff + 0xfffe, 0xfffffe, -128);
	kb_kmalloc(b, 0, 82, KMT_CTX_TASK, 1, T(0x7fffffff),
		   D(0xffffffffULL << 3), 0x10000, 0x10000, 0x1000000, -127);
	kb_cache_alloc(b, 1, 83, KMT_CTX_TASK, 1, T(0x80000000ULL), D(4),
		       0xffff, 0, 128);
	kb_cache_alloc(b, 1, 84, KMT_CTX_TASK, 1, T(0), KB_DMAP_BASE - 8,
		       0xfffe, 0, -129);
	kb_page_alloc(b, 1, 85, KMT_CTX_TASK, 1, 0xffffffffULL, 0xff, 0, -128);
	kb_page_alloc(b, 1, 86, KMT_CTX_TASK, 1, 0xfffffffeULL, 0xfe, 0, 127);
	kb_initcall_finish(b, 1, 87, T(0x2000), INT32_MIN);
	random_v2_events(b, 20000);
	finish(b, &p, &len);
	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_int_equal(kmt_encoder_init(&e, 2, 512, KB_TEXT_BASE,
					  KB_DMAP_BASE, 12), 0);
	for (i = 0; i < t.nr_cpus; i++) {
		const struct kmt_cpu_info *ci = &t.cpus[i];
		const struct kmt_enc_cpu *ec;
		struct kmt_cursor c;
		struct kmt_event ev;
		int ret;

		kmt_cursor_init(&c, &t.fmt, t.layout, t.swap, ci->cpu,
				ci->data, ci->size);
		while ((ret = kmt_cursor_next(&c, &ev, &err)) > 0)
			assert_int_equal(kmt_encode(&e, &ev), 0);
		assert_int_equal(ret, 0);
		ec = kmt_encoder_cpu(&e, ci->cpu);
		assert_non_null(ec);
		assert_int_equal(ec->len, ci->size);
		assert_memory_equal(ec->buf, ci->data, ci->size);
		assert_int_equal(ec->seq, ci->nr_subbufs);
	}
	kmt_encoder_free(&e);
	kmt_trace_close(&t);
	free(p);
}

/* Lost events: counted in the next sub-buffer; bad events refused. */
static void test_encoder_lost_and_errors(void **state)
{
	struct kmt_event ev = {
		.type = KMT_EV_KFREE, .cpu = 1, .ts = 1000, .pid = 5,
		.call_site = KB_TEXT_BASE + 0x10, .ptr = KB_DMAP_BASE + 0x40,
	};
	const struct kmt_enc_cpu *ec;
	struct kmt_subbuf_header h;
	struct kmt_encoder e;
	uint8_t stack[32];
	uint64_t fr[2] = { KB_TEXT_BASE + 3, KB_TEXT_BASE - 2 };

	(void)state;
	assert_int_equal(kmt_encoder_init(&e, 2, 8, 0, 0, 12), -EINVAL);
	assert_int_equal(kmt_encoder_init(&e, 2, 4096, KB_TEXT_BASE,
					  KB_DMAP_BASE, 12), 0);
	assert_int_equal(kmt_encode(&e, &ev), 0);
	assert_int_equal(kmt_encoder_lost(&e, 1, 17), 0);
	ev.ts = 2000;
	assert_int_equal(kmt_encode(&e, &ev), 0);
	ec = kmt_encoder_cpu(&e, 1);
	assert_int_equal(ec->seq, 2);
	assert_int_equal(ec->events, 2);
	/* header + kfree with pid: 1 + 2 + 4 + 4 + 4 */
	assert_int_equal(ec->len, 2 * (sizeof(h) + 15));
	memcpy(&h, ec->buf, sizeof(h));
	assert_int_equal(h.lost, 0);
	assert_int_equal(h.size, sizeof(h) + 15);
	memcpy(&h, ec->buf + sizeof(h) + 15, sizeof(h));
	assert_int_equal(h.lost, 17);
	assert_int_equal(h.seq, 1);
	assert_int_equal(h.base_ts, 2000);
	ev.cpu = 2;
	assert_int_equal(kmt_encode(&e, &ev), -EINVAL);
	ev.cpu = 0;
	ev.type = 0;
	assert_int_equal(kmt_encode(&e, &ev), -EINVAL);
	assert_int_equal(kmt_encoder_lost(&e, 9, 1), -EINVAL);
	assert_null(kmt_encoder_cpu(&e, 2));
	/* zigzag varints of +3 and -2 from _stext */
	assert_int_equal(kmt_encode_stack(&e, fr, 2, stack, sizeof(stack)), 2);
	assert_int_equal(stack[0], 6);
	assert_int_equal(stack[1], 3);
	assert_int_equal(kmt_encode_stack(&e, fr, 2, stack, 1), 1);
	kmt_encoder_free(&e);
}

/* save --no-addresses: escaped addresses move with the bases. */
static void test_v2_rebase(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct kmt_event ev[4];
	struct kmt_trace t;
	struct kmt_cursor c;
	struct kmt_err err;
	uint8_t *p;
	size_t len;
	unsigned int n = 0;
	int ret;

	(void)state;
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 7, T(0x1010), D(0x1000), 100, 128,
		   0xcc0, -1);
	/* an absolute time and a new pid before the escapes */
	kb_kmalloc(b, 0, 80000, KMT_CTX_TASK, 8, T(1ULL << 33), D(1ULL << 40),
		   100000, 140000, 0x1000000, 300);
	kb_kfree(b, 0, 80100, KMT_CTX_HARDIRQ, 0, T(-0x80000000LL), D(3));
	kb_kfree(b, 0, 80200, KMT_CTX_TASK, 7, T(0x20), 0);
	finish(b, &p, &len);
	memset(&err, 0, sizeof(err));
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_int_equal(kmt_records_rebase(&t.fmt, t.layout, t.swap, 0,
					    (uint8_t *)t.cpus[0].data,
					    t.cpus[0].size, KB_TEXT_BASE,
					    KB_DMAP_BASE, &err), 0);
	t.fmt.text_base = 0;
	t.fmt.direct_map_base = 0;
	kmt_cursor_init(&c, &t.fmt, t.layout, t.swap, 0, t.cpus[0].data,
			t.cpus[0].size);
	while ((ret = kmt_cursor_next(&c, &ev[n], &err)) > 0)
		n++;
	assert_int_equal(ret, 0);
	assert_int_equal(n, 4);
	assert_true(ev[0].call_site == 0x1010 && ev[0].ptr == 0x1000);
	assert_true(ev[1].call_site == 1ULL << 33 && ev[1].ptr == 1ULL << 40);
	assert_true(ev[1].bytes_req == 100000 && ev[1].node == 300);
	assert_true(ev[2].call_site == (uint64_t)-0x80000000LL && ev[2].ptr == 3);
	assert_true(ev[3].call_site == 0x20 && ev[3].ptr == 0);
	kmt_trace_close(&t);
	free(p);
}

/* What an ABI 2 record can get wrong, each with its own message. */
static void test_v2_errors(void **state)
{
	struct kb *b = kb_new(1, 4096);
	uint8_t *p;
	size_t len, sb;
	uint32_t sz, cut;

	(void)state;
	kb_kfree(b, 0, 1000, KMT_CTX_TASK, 300, T(0x10), D(0x1000));
	kb_kmalloc(b, 0, 70000, KMT_CTX_TASK, 301, T(0x1010), D(0x2000),
		   100, 128, 0xcc0, -1);
	finish(b, &p, &len);
	sb = find_subbuf(p, find_sec(p, len, KMT_SEC_CPU, 0), 0);
	sz = get32(p + sb + offsetof(struct kmt_subbuf_header, size));
	/* kfree 3 + 4 + 8; kmalloc 3 + 8 (absolute time) + 4 + 16 */
	assert_int_equal(sz, SB_SZ + 15 + 31);
	for (cut = 1; cut < 31; cut++) {
		put32(p + sb + offsetof(struct kmt_subbuf_header, size), sz - cut);
		expect_count_err(p, len, cut <= 16 ? "truncated field at offset 47" :
				 cut <= 20 ? "truncated pid at offset 47" :
				 "truncated time field at offset 47");
	}
	put32(p + sb + offsetof(struct kmt_subbuf_header, size), sz);
	/* a task record with no pid before it */
	p[sb + SB_SZ] &= (uint8_t)~KMT_HDR_PID;
	expect_count_err(p, len,
			 "task record before any pid in its sub-buffer at offset 32");
	/* a pid in an interrupt record */
	p[sb + SB_SZ] = KMT_EV_KFREE | KMT_HDR_PID | KMT_CTX_SOFTIRQ << KMT_HDR_CTX_SHIFT;
	expect_count_err(p, len, "pid in an interrupt record at offset 32");
	free(p);
}

/* ---- cut files (KMT_OPEN_TRUNCATED) ----------------------------------- */

#define CUT_MAX_EV	64

/* Each record of a CPU of a whole trace: where it ends in the file. */
struct cut_recs {
	unsigned int n;
	size_t end[CUT_MAX_EV];
	uint64_t ts[CUT_MAX_EV];
	uint8_t type[CUT_MAX_EV];
};

/*
 * Two CPUs of 128-byte sub-buffers, records of several sizes (a name, a
 * gap that takes an absolute time), and a TASKS section after them.
 */
static void build_cut(int abi, bool swap, uint8_t **p, size_t *len)
{
	struct kb *b = kb_new(2, 128);
	uint64_t i, ts;

	kb_set_abi(b, abi);
	kb_set_swap(b, swap);
	kb_set_kallsyms(b, small_kallsyms);
	kb_cache_def(b, 0, 100, 1, 192, 192, 8, "dentry");
	for (i = 0; i < 20; i++) {
		ts = 1000 + i * 1000 + (i >= 10 ? 5000000000ULL : 0);
		kb_kmalloc(b, 0, ts, KMT_CTX_TASK, 1, T(0x1010), D(0x1000 + i * 0x40),
			   40, 64, 0xcc0, -1);
		if (i % 3 == 0)
			kb_page_alloc(b, 1, ts + 500, KMT_CTX_TASK, 2, 0x100 + i, 0,
				      0xcc0, 0);
		else
			kb_kfree(b, 1, ts + 500, KMT_CTX_SOFTIRQ, 0, T(0x3008),
				 D(0x1000 + i * 0x40));
	}
	kb_set_tasks(b, "1\tinit\t/\n");
	finish(b, p, len);
}

/*
 * A trace cut at every byte and opened with KMT_OPEN_TRUNCATED, from a
 * buffer of exactly that size (ASan sees a read past it): it opens once
 * the FORMAT section and a CPU section's header are whole, and then each
 * CPU gives the records that end before the cut, no more, no less.
 */
static void test_cut_every_byte(void **state)
{
	struct cut_recs recs[2];
	struct kmt_trace t;
	struct kmt_cursor c;
	struct kmt_merge m;
	struct kmt_event ev;
	struct kmt_err err;
	char text[256];
	uint8_t *p, *q;
	size_t full, len, need;
	unsigned int abi, swap, i, n, total, merged, want;
	int ret;

	(void)state;
	for (abi = 1; abi <= 2; abi++) {
		build_cut((int)abi, false, &p, &full);
		need = find_sec(p, full, KMT_SEC_CPU, 0) + SEC_SZ + CS_SZ;
		free(p);
		for (swap = 0; swap < 2; swap++) {
			build_cut((int)abi, swap, &p, &full);
			assert_int_equal(kmt_trace_open_mem(p, full, &t, &err), 0);
			assert_int_equal(t.nr_cpus, 2);
			assert_true(t.tasks != NULL);
			for (i = 0; i < 2; i++) {
				recs[i].n = 0;
				kmt_cursor_init_cpu(&c, &t, i);
				while ((ret = kmt_cursor_next(&c, &ev, &err)) > 0) {
					assert_true(recs[i].n < CUT_MAX_EV);
					recs[i].end[recs[i].n] = (size_t)(c.rp - p);
					recs[i].ts[recs[i].n] = ev.ts;
					recs[i].type[recs[i].n++] = ev.type;
				}
				assert_int_equal(ret, 0);
			}
			assert_int_equal(recs[0].n, 21);
			assert_int_equal(recs[1].n, 20);
			assert_false(kmt_trace_cut_text(&t, text, sizeof(text)));
			assert_string_equal(text, "");
			kmt_trace_close(&t);

			for (len = full; len-- > 0;) {
				q = malloc(len ? len : 1);
				assert_non_null(q);
				memcpy(q, p, len);
				memset(&err, 0, sizeof(err));
				if (len >= HDR_SZ)
					expect_open_err(q, len, -EBADMSG,
							"(truncated or incomplete save)");
				ret = kmt_trace_open_mem_flags(q, len, KMT_OPEN_TRUNCATED,
							       &t, &err);
				if (len < need) {
					assert_int_equal(ret, -EBADMSG);
					assert_msg(&err, len < HDR_SZ ?
						   "too short for a kmemflight header" :
						   "file is cut at ");
					free(q);
					continue;
				}
				if (ret)
					fail_msg("cut at %zu: %s", len, err.msg);
				assert_true(t.cut.file_size == full);
				assert_true(kmt_trace_cut_text(&t, text, sizeof(text)));
				assert_non_null(strstr(text, "cut at "));
				total = 0;
				for (i = 0; i < t.nr_cpus; i++) {
					assert_int_equal(t.cpus[i].cpu, i);
					for (want = 0; want < recs[i].n &&
					     recs[i].end[want] <= len; want++)
						;
					kmt_cursor_init_cpu(&c, &t, i);
					for (n = 0; (ret = kmt_cursor_next(&c, &ev, &err)) > 0; n++) {
						assert_true(n < want);
						assert_true(ev.ts == recs[i].ts[n]);
						assert_int_equal(ev.type, recs[i].type[n]);
					}
					assert_int_equal(ret, 0);
					if (n != want)
						fail_msg("cut at %zu: cpu %u gave %u records of %u",
							 len, i, n, want);
					total += n;
					/* the cut CPU: its last event is in the warning */
					if (t.cpus[i].cut && n)
						assert_true(t.cut.events &&
							    t.cut.last_ts == recs[i].ts[n - 1]);
					else if (t.cpus[i].cut)
						assert_false(t.cut.events);
				}
				assert_int_equal(kmt_trace_count(&t, NULL, &err), 0);
				assert_int_equal(kmt_merge_init(&m, &t, &err), 0);
				for (merged = 0; kmt_merge_next(&m, &ev, &err) > 0; merged++)
					;
				kmt_merge_free(&m);
				assert_int_equal(merged, total);
				kmt_trace_close(&t);
				free(q);
			}
			free(p);
		}
	}
}

/* What a cut says it took, section by section. */
static void test_cut_text(void **state)
{
	struct kmt_trace t;
	struct kmt_err err;
	char text[256], want[256];
	uint8_t *p;
	size_t full, cpu1, tasks, len;

	(void)state;
	build_cut(2, false, &p, &full);
	cpu1 = find_sec(p, full, KMT_SEC_CPU, 1);
	tasks = find_sec(p, full, KMT_SEC_TASKS, 0);

	/* in CPU 1's second sub-buffer, after its first record */
	len = find_subbuf(p, cpu1, 1) + SB_SZ + 20;
	assert_int_equal(kmt_trace_open_mem_flags(p, len, KMT_OPEN_TRUNCATED, &t, &err), 0);
	assert_int_equal(t.cut.sec, 6);
	assert_int_equal(t.cut.type, KMT_SEC_CPU);
	assert_int_equal(t.cut.cpu, 1);
	assert_int_equal(t.cut.nr_sections, 8);
	assert_true(t.cpus[1].cut && !t.cpus[0].cut);
	/* that record: a kfree at 8500 ns */
	assert_true(t.cut.events);
	assert_true(t.cut.last_ts == 8500);
	kmt_trace_cut_text(&t, text, sizeof(text));
	snprintf(want, sizeof(want),
		 "cut at %zu of %zu bytes, %zu short: CPU 1's events after 0.000008500 s are missing, and so is the section that followed",
		 len, full, full - len);
	assert_string_equal(text, want);
	/* a buffer too small for it: cut, never overrun */
	assert_true(kmt_trace_cut_text(&t, text, 10));
	want[9] = '\0';
	assert_string_equal(text, want);
	assert_true(kmt_trace_cut_text(&t, text, 0));
	kmt_trace_close(&t);

	/* in the TASKS section: every event, the section named */
	len = tasks + SEC_SZ + 3;
	assert_int_equal(kmt_trace_open_mem_flags(p, len, KMT_OPEN_TRUNCATED, &t, &err), 0);
	assert_int_equal(t.cut.type, KMT_SEC_TASKS);
	assert_null(t.tasks);
	kmt_trace_cut_text(&t, text, sizeof(text));
	snprintf(want, sizeof(want),
		 "cut at %zu of %zu bytes, %zu short: the TASKS section is missing",
		 len, full, full - len);
	assert_string_equal(text, want);
	kmt_trace_close(&t);

	/* in CPU 1's section header */
	len = cpu1 + 3;
	assert_int_equal(kmt_trace_open_mem_flags(p, len, KMT_OPEN_TRUNCATED, &t, &err), 0);
	assert_int_equal(t.cut.type, 0);
	assert_int_equal(t.nr_cpus, 1);
	kmt_trace_cut_text(&t, text, sizeof(text));
	snprintf(want, sizeof(want),
		 "cut at %zu of %zu bytes, %zu short: its last 2 sections (of 8) are missing",
		 len, full, full - len);
	assert_string_equal(text, want);
	kmt_trace_close(&t);

	/* a size past the whole file's end is damage, cut or not */
	len = find_subbuf(p, cpu1, 1) + 5;
	put64(p + cpu1 + offsetof(struct kmt_section, size), full);
	assert_int_equal(kmt_trace_open_mem_flags(p, len, KMT_OPEN_TRUNCATED, &t, &err),
			 -EBADMSG);
	assert_msg(&err, "section 6 (type 5) has");
	assert_msg(&err, "bytes, more than the file holds");
	/* a header that says less than there is, likewise */
	put64(p + offsetof(struct kmt_file_header, file_size), full - 8);
	assert_int_equal(kmt_trace_open_mem_flags(p, full, KMT_OPEN_TRUNCATED, &t, &err),
			 -EBADMSG);
	assert_msg(&err, "(truncated or incomplete save)");
	free(p);
}

/*
 * A FLIGHT section that lists one CPU of two: the other's counters are 0.
 * One that names a CPU without a section is damage in a whole file; in a
 * cut one that section may be past the cut, and the entry is skipped.
 */
static void test_flight_cpus(void **state)
{
	struct kb *b = kb_new(2, 4096);
	struct kmt_trace t;
	struct kmt_err err;
	uint8_t *p, *q;
	size_t len, sec, fc;

	(void)state;
	kb_scenario_flight(b);
	finish(b, &p, &len);
	sec = find_sec(p, len, KMT_SEC_FLIGHT, 0) + SEC_SZ;
	fc = sec + sizeof(struct kmt_flight_section);
	assert_int_equal(get32(p + fc + sizeof(struct kmt_flight_cpu) +
			       offsetof(struct kmt_flight_cpu, cpu)), 1);
	put32(p + sec + offsetof(struct kmt_flight_section, nr_cpus), 1);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_true(t.cpus[0].overwritten == 1000);
	assert_true(t.cpus[0].frozen_dropped == 30);
	assert_true(t.cpus[1].overwritten == 0 && t.cpus[1].frozen_dropped == 0);
	assert_true(t.cpus[1].window_start == 0 && t.cpus[1].window_end == 0);
	kmt_trace_close(&t);

	put32(p + sec + offsetof(struct kmt_flight_section, nr_cpus), 2);
	put32(p + fc + sizeof(struct kmt_flight_cpu) +
	      offsetof(struct kmt_flight_cpu, cpu), 7);
	expect_open_err(p, len, -EBADMSG, "flight section: cpu 7 has no CPU section");
	/* the same file said to be 8 bytes longer: cut in padding */
	q = malloc(len);
	assert_non_null(q);
	memcpy(q, p, len);
	put64(q + offsetof(struct kmt_file_header, file_size), len + 8);
	assert_int_equal(kmt_trace_open_mem_flags(q, len, KMT_OPEN_TRUNCATED, &t, &err), 0);
	assert_true(t.flight.present);
	assert_true(t.cpus[0].overwritten == 1000);
	assert_true(t.cpus[1].overwritten == 0);
	kmt_trace_close(&t);
	free(q);
	free(p);
}

/* The kernel's totals at the save: meminfo in kB, vmstat in pages or _B. */
static void test_proc_totals(void **state)
{
	struct kb *b = kb_new(1, 4096);
	struct kmt_trace t;
	struct kmt_err err;
	uint64_t v = 7;
	uint8_t *p;
	size_t len;

	(void)state;
	kb_kfree(b, 0, 1000, KMT_CTX_TASK, 300, T(0x10), D(0x1000));
	kb_set_proc(b, "MemTotal:        1008892 kB\nMemFree:  936448 kB\n"
		    "MemFreeX:     1 kB\nBad: kB\nHuge: 99999999999999999999 kB\nLast: 5",
		    "nr_free_pages 234112\nnr_slab_unreclaimable_B 9000\nnr_x\n",
		    "Node 0, zone    DMA32\n  pagesets\n    cpu: 0\n              count: 602\n"
		    "    cpu: 1\n              count: 2120\n              count:\n");
	finish(b, &p, &len);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_true(kmt_trace_meminfo(&t, "MemTotal", &v));
	assert_int_equal(v, 1008892ULL * 1024);
	assert_true(kmt_trace_meminfo(&t, "MemFree", &v));
	assert_int_equal(v, 936448ULL * 1024);
	assert_true(kmt_trace_meminfo(&t, "Last", &v));
	assert_int_equal(v, 5 * 1024);
	assert_false(kmt_trace_meminfo(&t, "Mem", &v));
	assert_false(kmt_trace_meminfo(&t, "Bad", &v));
	assert_false(kmt_trace_meminfo(&t, "Huge", &v));
	assert_false(kmt_trace_meminfo(&t, "Slab", &v));
	assert_true(kmt_trace_vmstat(&t, "nr_free_pages", &v));
	assert_int_equal(v, 234112ULL * 4096);
	assert_true(kmt_trace_vmstat(&t, "nr_slab_unreclaimable_B", &v));
	assert_int_equal(v, 9000);
	assert_false(kmt_trace_vmstat(&t, "nr_x", &v));
	assert_false(kmt_trace_vmstat(&t, "nr_free", &v));
	assert_true(kmt_trace_pcp_free(&t, &v));
	assert_int_equal(v, (602 + 2120) * 4096);
	kmt_trace_close(&t);
	free(p);

	/* a file without the sections: nothing */
	b = kb_new(1, 4096);
	kb_kfree(b, 0, 1000, KMT_CTX_TASK, 300, T(0x10), D(0x1000));
	finish(b, &p, &len);
	assert_int_equal(kmt_trace_open_mem(p, len, &t, &err), 0);
	assert_false(kmt_trace_meminfo(&t, "MemTotal", &v));
	assert_false(kmt_trace_vmstat(&t, "nr_free_pages", &v));
	assert_false(kmt_trace_pcp_free(&t, &v));
	kmt_trace_close(&t);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_totals),
		cmocka_unit_test(test_open_small),
		cmocka_unit_test(test_open_swapped),
		cmocka_unit_test(test_cursor_swapped_same),
		cmocka_unit_test(test_err_short),
		cmocka_unit_test(test_err_file_magic),
		cmocka_unit_test(test_err_byte_order),
		cmocka_unit_test(test_err_file_version),
		cmocka_unit_test(test_open_zstd_sections),
		cmocka_unit_test(test_v1_section_flags),
		cmocka_unit_test(test_err_zstd_frames),
		cmocka_unit_test(test_err_zstd_sections),
		cmocka_unit_test(test_err_header_size),
		cmocka_unit_test(test_err_file_size),
		cmocka_unit_test(test_err_header_rounds_past_end),
		cmocka_unit_test(test_err_section_past_end),
		cmocka_unit_test(test_err_too_many_sections),
		cmocka_unit_test(test_err_no_format),
		cmocka_unit_test(test_err_no_cpus),
		cmocka_unit_test(test_err_cpu_section_short),
		cmocka_unit_test(test_err_format_magic),
		cmocka_unit_test(test_err_abi_version),
		cmocka_unit_test(test_err_format_sizes),
		cmocka_unit_test(test_err_layouts),
		cmocka_unit_test(test_err_topology_caches),
		cmocka_unit_test(test_err_subbuf_magic),
		cmocka_unit_test(test_err_subbuf_cpu),
		cmocka_unit_test(test_err_subbuf_size),
		cmocka_unit_test(test_swapped_multi_subbuf),
		cmocka_unit_test(test_fast_path_equals_general),
		cmocka_unit_test(test_block_decoders_equal_general),
		cmocka_unit_test(test_merge_many_cpus),
		cmocka_unit_test(test_gfp_names),
		cmocka_unit_test(test_gfp_names_612),
		cmocka_unit_test(test_err_subbuf_seq),
		cmocka_unit_test(test_err_subbuf_deleted),
		cmocka_unit_test(test_err_stray_bytes),
		cmocka_unit_test(test_err_undescribed_type),
		cmocka_unit_test(test_err_truncated_record),
		cmocka_unit_test(test_err_string_past_end),
		cmocka_unit_test(test_open_file),
		cmocka_unit_test(test_open_missing),
		cmocka_unit_test(test_open_directory),
		cmocka_unit_test(test_cursor_times),
		cmocka_unit_test(test_v2_record_bytes),
		cmocka_unit_test(test_v2_spec_example),
		cmocka_unit_test(test_v2_escapes),
		cmocka_unit_test(test_v2_equals_v1),
		cmocka_unit_test(test_v2_fast_equals_general),
		cmocka_unit_test(test_v2_rebase),
		cmocka_unit_test(test_encoder_roundtrip),
		cmocka_unit_test(test_encoder_lost_and_errors),
		cmocka_unit_test(test_v2_errors),
		cmocka_unit_test(test_cursor_subbufs),
		cmocka_unit_test(test_cursor_boundary),
		cmocka_unit_test(test_cursor_empty_subbuf),
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_symtab),
		cmocka_unit_test(test_symtab_duplicates_order),
		cmocka_unit_test(test_symtab_edge),
		cmocka_unit_test(test_symtab_from_trace),
		cmocka_unit_test(test_no_meta_no_kallsyms),
		cmocka_unit_test(test_cut_every_byte),
		cmocka_unit_test(test_cut_text),
		cmocka_unit_test(test_flight_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

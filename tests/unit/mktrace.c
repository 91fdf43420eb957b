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

/*
 * A boot's memblock events (tests/cli/expect/memblock.report works them
 * out): the kernel image and low memory reserved before the clock, RAM
 * added and 1 MiB of it removed, the memmap, a per-CPU chunk that frees
 * its unused part, two hash tables, a reserve inside an earlier one; then
 * live, on CPU 1, part of the kernel image and an initrd the trace never
 * saw reserved, given to the page allocator.  @lossy: the kernel image's
 * part is given all the same, but its event is lost (CPU 1 lost 1), and
 * the kernel's early arrays had no room for 2 memblock events and 1 page
 * event.
 */
static void memblock(struct kb *b, bool lossy)
{
	kb_set_kallsyms(b, "ffffffff81000000 T _stext\n"
			"ffffffff81010000 T setup_arch\n"
			"ffffffff81020000 T sparse_init_nid\n"
			"ffffffff81030000 T alloc_large_system_hash\n"
			"ffffffff81040000 T pcpu_embed_first_chunk\n"
			"ffffffff81050000 T kernel_init\n"
			"ffffffff81060000 T acpi_reserve\n"
			"ffffffff81070000 T e820__memblock_setup\n"
			"ffffffff81080000 T do_populate_rootfs\n");
	kb_memblock(b, 0, 0, KMT_MB_RESERVE, 0x1000000, 0x1200000, -1, 0,
		    T(0x10039), "");
	kb_memblock(b, 0, 0, KMT_MB_RESERVE, 0x9f000, 0x61000, -1, 0,
		    T(0x1022e), "");
	kb_memblock(b, 0, 1000, KMT_MB_RESERVE, 0xf5b90, 16, -1, 0,
		    T(0x60010), "");
	kb_memblock(b, 0, 2000, KMT_MB_ADD, 0x1000, 0x9e000, -1, 0,
		    T(0x70064), "");
	kb_memblock(b, 0, 2000, KMT_MB_ADD, 0x100000, 0x3ff00000, -1, 0,
		    T(0x70064), "");
	kb_memblock(b, 0, 2500, KMT_MB_REMOVE, 0x3ff00000, 0x100000, -1, 0,
		    T(0x10400), "");
	kb_memblock(b, 0, 3000, KMT_MB_ALLOC, 0x3ec00000, 0x1000000, 0, 0,
		    T(0x200b0), "");
	kb_memblock(b, 0, 4000, KMT_MB_ALLOC, 0x3ea00000, 0x200000, 0, 0,
		    T(0x400e2), "");
	kb_memblock(b, 0, 5000, KMT_MB_FREE, 0x3ea32000, 0xce000, -1, 0,
		    T(0x401b6), "");
	kb_memblock(b, 0, 6000, KMT_MB_ALLOC, 0x3e900000, 0x100000, -1, 0,
		    T(0x30133), "");
	kb_memblock(b, 0, 6500, KMT_MB_ALLOC, 0x3fc2a480, 0x80000, -1, 0,
		    T(0x30133), "");
	/* a slab page of kmem_cache_init()'s, kept until the recorder started */
	kb_page_alloc(b, 0, 6800, KMT_CTX_TASK, 0, 0x1101, 0, 0xcc0, 0);
	kb_memblock_early(b, 0, 7000, 11, lossy ? 2 : 0, 4096, 1, lossy);
	kb_kmalloc(b, 0, 8000, KMT_CTX_TASK, 1, T(0x50010), D(0x1000), 32, 32,
		   0xcc0, -1);
	if (lossy)
		kb_set_lost(b, 1, 1);
	else
		kb_memblock(b, 1, 9000, KMT_MB_FREE_AREA, 0x1a18000, 0x1e8000, -1, 0,
			    T(0x50037), "unused kernel image (rodata/data gap)");
	kb_memblock(b, 1, 9500, KMT_MB_FREE_AREA, 0x3fcb7000, 0x329000, -1, 0,
		    T(0x8009a), "initrd");
}

/*
 * The memblock boot with the kernel's totals at the save, for report
 * --footprint (tests/cli/t0090-memblock.sh works it out): 36478976
 * bytes of memblock's in RAM (the low reservation is not RAM), so
 * MemTotal is RAM less that; 100 pages on the per-CPU lists; 24576
 * bytes of pages still held, and the recorder's: a 16 KiB sub-buffer
 * of CPU 1 allocated in the trace, a 64-byte object of one of its
 * functions, a 192-byte object and a page of its initcall; 2 x 256 KiB
 * of buffers.
 */
static void footprint(struct kb *b)
{
	kb_set_kallsyms(b, "ffffffff81000000 T _stext\n"
			"ffffffff81010000 T setup_arch\n"
			"ffffffff81020000 T sparse_init_nid\n"
			"ffffffff81030000 T alloc_large_system_hash\n"
			"ffffffff81040000 T pcpu_embed_first_chunk\n"
			"ffffffff81050000 T kernel_init\n"
			"ffffffff81060000 T acpi_reserve\n"
			"ffffffff81070000 T e820__memblock_setup\n"
			"ffffffff81080000 T do_populate_rootfs\n"
			"ffffffff810a0000 t kmt_build_header\n"
			"ffffffff810b0000 t kmt_tracefs_init\n"
			"ffffffff810c0000 T d_alloc\n"
			"ffffffff810d0000 T __kvmalloc_node_noprof\n"
			"ffffffff810d0200 T vmalloc_noprof\n");
	kb_set_topology(b, "cpu 0 node 0 buffer 262144\ncpu 1 node 0 buffer 262144\n"
			"node 0 start_pfn 0 end_pfn 262144\n");
	kb_set_proc(b, "MemTotal:        1011536 kB\nMemFree:         1000000 kB\n"
		    "Slab:                 64 kB\nKernelStack:          32 kB\n",
		    "nr_free_pages 250000\n",
		    "Node 0, zone    DMA32\n  pagesets\n    cpu: 0\n              count: 60\n"
		    "    cpu: 1\n              count: 40\n");
	kb_page_alloc(b, 0, 10000, KMT_CTX_TASK, 1, 0x1001, 0, 0xcc0, 0);
	kb_page_alloc(b, 0, 10100, KMT_CTX_TASK, 1, 0x1002, 0, 0xcc0, 0);
	kb_page_alloc(b, 1, 10200, KMT_CTX_TASK, 2, 0x1005, 2, 0xcc0, 0);
	kb_page_alloc(b, 1, 10300, KMT_CTX_TASK, 2, 0x1011, 0, 0xcc0, 0);
	kb_page_free(b, 1, 10400, KMT_CTX_TASK, 2, 0x1011, 0);
	/* a 4-page area of alloc_large_system_hash's; one freed again */
	kb_page_alloc(b, 1, 10500, KMT_CTX_TASK, 2, 0x1021, 0, 0xcc0, 0);
	kb_page_alloc(b, 1, 10510, KMT_CTX_TASK, 2, 0x1022, 0, 0xcc0, 0);
	kb_page_alloc(b, 1, 10520, KMT_CTX_TASK, 2, 0x1023, 0, 0xcc0, 0);
	kb_page_alloc(b, 1, 10530, KMT_CTX_TASK, 2, 0x1024, 0, 0xcc0, 0);
	kb_vmalloc(b, 1, 10540, 2, KMT_VM_ALLOC, 0xffffc90000004000, 4, T(0x30010));
	kb_page_alloc(b, 1, 10600, KMT_CTX_TASK, 2, 0x1031, 0, 0xcc0, 0);
	kb_vmalloc(b, 1, 10610, 2, KMT_VM_ALLOC, 0xffffc90000010000, 1, T(0x50010));
	kb_vmalloc(b, 1, 10700, 2, KMT_VM_FREE, 0xffffc90000010000, 1, T(0x50020));
	kb_page_free(b, 1, 10710, KMT_CTX_TASK, 2, 0x1031, 0);
	/* kvmalloc() from d_alloc: put to d_alloc, not to the wrapper */
	kb_wrapper(b, 0, 10800, T(0xd0000), 0x200, "__kvmalloc_node_noprof");
	kb_kmalloc_via(b, 0, 10900, KMT_CTX_TASK, 1, T(0xd0043), D(0x5000), 96, 96,
		       0xcc0, -1, (const uint64_t[]){ T(0xc0020) }, 1);
	kb_page_alloc(b, 0, 11000, KMT_CTX_TASK, 1, 0x2001, 2, 0xcc0, 0);
	kb_buffer(b, 0, 11100, 1, 0x2001, 2);
	kb_kmalloc(b, 0, 11200, KMT_CTX_TASK, 1, T(0xa0010), D(0x3000), 64, 64,
		   0xcc0, -1);
	kb_initcall_start(b, 0, 11300, T(0xb0000));
	kb_kmalloc(b, 0, 11400, KMT_CTX_TASK, 1, T(0xc0010), D(0x4000), 192, 192,
		   0xcc0, -1);
	kb_page_alloc(b, 0, 11500, KMT_CTX_TASK, 1, 0x3001, 0, 0xcc0, 0);
	kb_initcall_finish(b, 0, 11600, T(0xb0000), 0);
}

/*
 * A benchmark trace of @n events on 2 CPUs, like a boot: 2048 callsites
 * in 512 functions, kmalloc and cache allocations, frees of the oldest
 * of ~64k live objects, one free in ten on the other CPU.  Deterministic.
 */
#define BIG_FUNCS	512
#define BIG_LIVE	65536

static uint64_t big_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int big(struct kb *b, uint64_t n)
{
	static uint64_t live[BIG_LIVE];
	static uint32_t live_cache[BIG_LIVE];
	uint64_t x = 88172645463325252ULL, ts = 1000, head = 0, tail = 0, i;
	uint64_t next_obj = 0;
	size_t cap = BIG_FUNCS * 40, len = 0;
	char *syms = malloc(cap);
	unsigned int f;

	if (!syms)
		return -1;
	len += (size_t)snprintf(syms + len, cap - len, "ffffffff81000000 T _stext\n");
	for (f = 0; f < BIG_FUNCS; f++)
		len += (size_t)snprintf(syms + len, cap - len,
					"%016llx T bench_fn_%u\n",
					(unsigned long long)T(0x1000 + f * 0x1000), f);
	kb_set_kallsyms(b, syms);
	free(syms);
	kb_cache_def(b, 0, ts, 1, 192, 192, 8, "dentry");
	kb_cache_def(b, 0, ts + 10, 2, 3000, 3072, 64, "task_struct");
	kb_cache_def(b, 0, ts + 20, 3, 56, 64, 8, "vm_area_struct");
	for (i = 0; i < n; i++) {
		uint64_t r = big_rand(&x);
		unsigned int cpu = (unsigned int)(r & 1);
		uint64_t site = T(0x1000 + ((r >> 8) % BIG_FUNCS) * 0x1000 +
				  ((r >> 20) & 3) * 0x20);
		uint32_t pid = 1 + (uint32_t)((r >> 24) & 63);

		ts += 100 + ((r >> 32) & 511);
		if (head - tail < BIG_LIVE && (head - tail < BIG_LIVE / 2 || (r >> 40) % 100 < 55)) {
			uint64_t ptr = D(0x1000000 + (next_obj++ % (1u << 24)) * 64);
			unsigned int kind = (unsigned int)((r >> 48) % 4);

			if (kind == 3) {
				uint32_t cache = 1 + (uint32_t)((r >> 52) % 3);

				kb_cache_alloc(b, cpu, ts, KMT_CTX_TASK, pid, site, ptr,
					       cache, 0xcc0, -1);
				live_cache[head % BIG_LIVE] = cache;
			} else {
				uint64_t req = 8 + ((r >> 52) & 1023);

				kb_kmalloc(b, cpu, ts, KMT_CTX_TASK, pid, site, ptr,
					   req, (req + 63) & ~63ULL, 0xcc0, -1);
				live_cache[head % BIG_LIVE] = 0;
			}
			live[head++ % BIG_LIVE] = ptr;
		} else {
			uint64_t ptr = live[tail % BIG_LIVE];
			uint32_t cache = live_cache[tail % BIG_LIVE];

			tail++;
			if ((r >> 56) % 10 == 0)
				cpu ^= 1;
			if (cache)
				kb_cache_free(b, cpu, ts, KMT_CTX_TASK, pid,
					      site + 0x10, ptr, cache);
			else
				kb_kfree(b, cpu, ts, KMT_CTX_TASK, pid, site + 0x10, ptr);
		}
	}
	return 0;
}

/*
 * Page allocator events with hand-computed totals (expect/pages.report):
 * 4 pages handed out (orders 0, 2, 0, 10 in four migrate type columns),
 * one failure, three frees of which one was never allocated.
 */
static void pages(struct kb *b)
{
	kb_set_kallsyms(b, kb_kallsyms);
	kb_set_gfp_names(b, true);
	kb_page_alloc(b, 0, 1000, KMT_CTX_TASK, 1, 0x1001, 0, 0xcc0, 0);
	kb_page_alloc(b, 0, 2000, KMT_CTX_TASK, 1, 0x2001, 2, 0x140cca, 1);
	kb_page_alloc(b, 0, 3000, KMT_CTX_SOFTIRQ, 0, 0, 3, 0x820, 0);
	kb_page_alloc(b, 0, 4000, KMT_CTX_TASK, 1, 0x3001, 0, 0x400cc0, 2);
	kb_page_alloc(b, 0, 5000, KMT_CTX_TASK, 1, 0x4001, 10, 0xcc0, 4);
	kb_page_free(b, 1, 6000, KMT_CTX_TASK, 2, 0x1001, 0);
	kb_page_free(b, 1, 7000, KMT_CTX_TASK, 2, 0x2001, 2);
	kb_page_free(b, 1, 8000, KMT_CTX_HARDIRQ, 0, 0x9001, 1);
}

/*
 * Boot phases with hand-computed totals (expect/phases.report): one
 * allocation before the first initcall level, helper_init in level
 * "core" keeps 1024 slab bytes and an order-1 page, free_thing in level
 * "device" frees helper_init's other object and keeps a dentry, then
 * /init and /sbin/init.  The second CPU allocates inside helper_init.
 */
static void phases(struct kb *b)
{
	kb_set_kallsyms(b, kb_kallsyms);
	kb_cache_def(b, 0, 50, 1, 192, 192, 8, "dentry");
	kb_kmalloc(b, 0, 100, KMT_CTX_TASK, 1, T(0x1010), D(0x1000), 100, 128, 0xcc0, -1);
	kb_initcall_level(b, 0, 200, "core");
	kb_initcall_start(b, 0, 300, T(0x2000));
	kb_kmalloc(b, 1, 400, KMT_CTX_TASK, 7, T(0x2005), D(0x2000), 1000, 1024, 0xcc0, -1);
	kb_page_alloc(b, 0, 450, KMT_CTX_TASK, 1, 0x1001, 1, 0xcc0, 0);
	kb_kmalloc(b, 0, 500, KMT_CTX_TASK, 1, T(0x2005), D(0x3000), 60, 64, 0xcc0, -1);
	kb_initcall_finish(b, 0, 600, T(0x2000), 0);
	kb_initcall_level(b, 0, 700, "device");
	kb_initcall_start(b, 0, 800, T(0x3000));
	kb_kfree(b, 0, 900, KMT_CTX_TASK, 1, T(0x3008), D(0x3000));
	kb_cache_alloc(b, 0, 950, KMT_CTX_TASK, 1, T(0x1040), D(0x4000), 1, 0xcc0, -1);
	kb_initcall_finish(b, 0, 1000, T(0x3000), -19);
	kb_init_exec(b, 0, 1100, "/init");
	kb_kmalloc(b, 1, 1200, KMT_CTX_TASK, 1, T(0x1010), D(0x5000), 32, 32, 0xcc0, -1);
	kb_page_alloc(b, 0, 1300, KMT_CTX_TASK, 1, 0x5001, 0, 0xcc0, 1);
	kb_page_free(b, 0, 1400, KMT_CTX_TASK, 1, 0x5001, 0);
	kb_init_exec(b, 0, 1500, "/sbin/init");
	kb_kfree(b, 1, 1600, KMT_CTX_TASK, 1, T(0x3008), D(0x1000));
}

/*
 * A boot for kmemflight plot (tests/cli/t0098-plot.sh works out its
 * numbers): 2 MiB memblock reserved by setup_arch; early_table_init
 * kmallocs 4 KiB early; core_hash_init takes 1 MiB of pages at core
 * level (512 KiB in the base); dev_probe allocates 64 objects of 256
 * bytes at device level and frees 32; after /init, vmap_user's 256 KiB
 * vmalloc area and its 64 pages (not in the base).  One CPU, so the
 * recorder's buffers are 64 x 4 KiB.  "plot-noclock" is the boot whose
 * clock had not started by the console level (the TSC not calibrated):
 * early_table_init's kmalloc and the console level are at time 0.
 */
static void plot_boot(struct kb *b, bool base, bool noclock)
{
	static const uint64_t core[] = { T(0x5010), T(0x2020), T(0x6200) };
	static const uint64_t vmap[] = { T(0x5010), T(0x4040) };
	uint64_t i;

	kb_set_kallsyms(b, "ffffffff81000000 T _stext\n"
			"ffffffff81001000 T early_table_init\n"
			"ffffffff81002000 T core_hash_init\n"
			"ffffffff81003000 T dev_probe\n"
			"ffffffff81004000 T vmap_user\n"
			"ffffffff81005000 T __alloc_pages_noprof\n"
			"ffffffff81006000 T setup_arch\n"
			"ffffffff81007000 T free_thing\n");
	kb_memblock(b, 0, 0, KMT_MB_ADD, 0, 64 << 20, -1, 0, T(0x6100), "");
	kb_memblock(b, 0, 0, KMT_MB_RESERVE, 16 << 20, 2 << 20, -1, 0, T(0x6010), "");
	kb_cache_def(b, 0, 10, 1, 256, 256, 8, "dev_cache");
	if (noclock)
		kb_initcall_level(b, 0, 0, "console");
	kb_kmalloc(b, 0, noclock ? 0 : 100000, KMT_CTX_TASK, 1, T(0x1010), D(0x1000),
		   4000, 4096, 0xcc0, -1);
	kb_initcall_level(b, 0, 1000000, "core");
	kb_page_alloc_stack(b, 0, 1500000, KMT_CTX_TASK, 1, 0x10001, base ? 7 : 8,
			    0xcc0, 0, core, 3);
	kb_initcall_level(b, 0, 2000000, "device");
	for (i = 0; i < 64; i++)
		kb_cache_alloc(b, 0, 2500000 + i * 1000, KMT_CTX_TASK, 1, T(0x3030),
			       D(0x100000 + i * 256), 1, 0xcc0, -1);
	for (i = 0; i < 32; i++)
		kb_cache_free(b, 0, 2800000 + i * 1000, KMT_CTX_TASK, 1, T(0x7010),
			      D(0x100000 + i * 256), 1);
	kb_init_exec(b, 0, 3000000, "/init");
	if (!base) {
		kb_vmalloc(b, 0, 3500000, 1, KMT_VM_ALLOC, 0xffffc90000000000ULL, 64,
			   T(0x4040));
		for (i = 0; i < 64; i++)
			kb_page_alloc_stack(b, 0, 3500100 + i, KMT_CTX_TASK, 1,
					    0x20001 + i, 0, 0xcc0, 0, vmap, 2);
	}
	kb_kfree(b, 0, 4000000, KMT_CTX_TASK, 1, T(0x7010), D(0x900000));
}

/*
 * A boot's phases as the QEMU test boot has them (kmemflight plot): the
 * time before the first initcall level, then levels console and early
 * (a level named as the time before it), pure, core, postcore and arch
 * within 23 ms of each other, subsys, fs, device, late, and /init.  One
 * 1 KiB kmalloc in each phase, held, 9 ms into it (2 ms in the short
 * ones), by level_alloc; the trace ends at 2.353 s.
 */
static void plot_phases(struct kb *b)
{
	static const struct { uint64_t ms10; const char *name; } lv[] = {
		{ 1808, "console" }, { 4135, "early" }, { 5567, "pure" },
		{ 5645, "core" }, { 5728, "postcore" }, { 5770, "arch" },
		{ 5794, "subsys" }, { 8292, "fs" }, { 9330, "device" },
		{ 14670, "late" },
	};
	uint64_t i, at;

	kb_set_kallsyms(b, "ffffffff81000000 T _stext\n"
			"ffffffff81001000 T level_alloc\n");
	kb_kmalloc(b, 0, 9000000, KMT_CTX_TASK, 1, T(0x1010), D(0x1000), 1000, 1024,
		   0xcc0, -1);
	for (i = 0; i < sizeof(lv) / sizeof(lv[0]); i++) {
		at = lv[i].ms10 * 100000;
		kb_initcall_level(b, 0, at, lv[i].name);
		kb_kmalloc(b, 0, at + (i >= 2 && i <= 5 ? 200000 : 9000000), KMT_CTX_TASK,
			   1, T(0x1010), D(0x2000 + i * 0x400), 1000, 1024, 0xcc0, -1);
	}
	kb_init_exec(b, 0, 1737854000, "/init");
	kb_kmalloc(b, 0, 1746854000, KMT_CTX_TASK, 1, T(0x1010), D(0x9000), 1000, 1024,
		   0xcc0, -1);
	kb_kfree(b, 0, 2353058776, KMT_CTX_TASK, 1, T(0x1020), D(0x9000));
}

/*
 * What 'kmemflight import' writes of a perf kmem record run from 5.000 s
 * to 5.004 s (kmemflight plot): no recorder, no memblock, vmalloc,
 * initcall or exec events.  alloc_thing kmallocs 16 x 512 B and frees 8
 * of them; page_user takes 4 order-0 pages (no callchains).
 */
static void plot_import(struct kb *b)
{
	uint64_t i;

	kb_set_import(b, "source=perf\nperf_file=perf.data\nperf_page_callchains=0\n"
		      "first_ts=5000000000\nlast_ts=5004000000\n"
		      "complete_from_ts=5000000000\n");
	kb_set_kallsyms(b, kb_kallsyms);
	for (i = 0; i < 16; i++)
		kb_kmalloc(b, 0, 5000000000ULL + i * 100000, KMT_CTX_TASK, 1, T(0x1010),
			   D(0x10000 + i * 512), 500, 512, 0xcc0, -1);
	for (i = 0; i < 4; i++)
		kb_page_alloc(b, 0, 5002000000ULL + i * 1000, KMT_CTX_TASK, 1, 0x5001 + i,
			      0, 0xcc0, 0);
	for (i = 0; i < 8; i++)
		kb_kfree(b, 0, 5003000000ULL + i * 100000, KMT_CTX_TASK, 1, T(0x3008),
			 D(0x10000 + i * 512));
	kb_kmalloc(b, 0, 5004000000ULL, KMT_CTX_TASK, 1, T(0x1010), D(0x20000), 32, 32,
		   0xcc0, -1);
}

/*
 * Page allocations with recorded stacks (expect/pagestack.report): the
 * callers are the first frames outside the page allocator's 6.12 names,
 * new_slab for a slab's page; one stack is all allocator, one is empty.
 */
static void pagestack(struct kb *b)
{
	static const uint64_t s1[] = { T(0xa010), T(0x4020), T(0x5030), T(0x6010), T(0x1050) };
	static const uint64_t s2[] = { T(0x4020), T(0x9008), T(0x8040), T(0x7030), T(0x2009) };
	static const uint64_t s3[] = { T(0xc005), T(0x4020), T(0xb011), T(0x2020) };
	static const uint64_t s4[] = { T(0x4020), T(0x6010) };

	kb_set_kallsyms(b,
		"ffffffff81000000 T _stext\n"
		"ffffffff81001000 T alloc_thing\n"
		"ffffffff81002000 t helper_init\n"
		"ffffffff81004000 T __alloc_pages_noprof\n"
		"ffffffff81005000 T alloc_pages_mpol_noprof\n"
		"ffffffff81006000 T alloc_pages_noprof\n"
		"ffffffff81007000 t new_slab\n"
		"ffffffff81008000 t allocate_slab\n"
		"ffffffff81009000 t alloc_slab_page\n"
		"ffffffff8100a000 T __traceiter_mm_page_alloc\n"
		"ffffffff8100b000 T __get_free_pages_noprof\n"
		"ffffffff8100c000 t get_page_from_freelist.constprop.0\n");
	kb_set_gfp_names(b, true);
	kb_page_alloc_stack(b, 0, 1000, KMT_CTX_TASK, 1, 0x1001, 0, 0xcc0, 0, s1, 5);
	kb_page_alloc_stack(b, 0, 2000, KMT_CTX_TASK, 1, 0x2001, 0, 0xcc0, 0, s1, 5);
	kb_page_alloc_stack(b, 0, 3000, KMT_CTX_TASK, 1, 0x3001, 1, 0x400cc0, 2, s2, 5);
	kb_page_alloc_stack(b, 0, 4000, KMT_CTX_TASK, 1, 0x4001, 2, 0x140cca, 1, s3, 4);
	kb_page_alloc_stack(b, 0, 5000, KMT_CTX_TASK, 1, 0x8001, 0, 0xcc0, 0, s4, 2);
	kb_page_alloc(b, 0, 6000, KMT_CTX_TASK, 1, 0x9001, 0, 0xcc0, 0);
}

/*
 * Two boots for kmemflight diff (expect/diff.table): the new one is
 * another build, booted at another KASLR offset, so every function moved
 * and its callsites sit at other offsets in it; the dentry cache has
 * another id.  Base: foo_init kmallocs 3 x 64 B and keeps 2, and one
 * dentry; old_setup keeps 256 B; page_user keeps an order-1 page.
 * New: foo_init keeps all 3 and the dentry, bar_probe (new) keeps 1 KB,
 * old_setup is gone, page_user keeps an order-1 and an order-0 page, and
 * pid 1 execs /init.
 */
#define DIFF_BASE_TEXT	0xffffffff81000000ULL
#define DIFF_NEW_TEXT	0xffffffff9c200000ULL

/* The new build's compiler made page_user an .isra clone: same row. */
static void diff_boot(struct kb *b, bool new)
{
	uint64_t tb = new ? DIFF_NEW_TEXT : DIFF_BASE_TEXT;
	/* __alloc_pages_noprof, then page_user: the caller is page_user */
	const uint64_t stack[] = { tb + 0x6010, tb + (new ? 0x5034 : 0x5030) };
	char syms[512];

	snprintf(syms, sizeof(syms), new ?
		 "%016llx T _stext\n%016llx T foo_init\n%016llx t bar_probe\n"
		 "%016llx T free_stuff\n%016llx t page_user.isra.0\n"
		 "%016llx T __alloc_pages_noprof\n" :
		 "%016llx T _stext\n%016llx T foo_init\n%016llx t old_setup\n"
		 "%016llx T free_stuff\n%016llx T page_user\n%016llx T __alloc_pages_noprof\n",
		 (unsigned long long)tb, (unsigned long long)tb + 0x1000,
		 (unsigned long long)tb + 0x3000, (unsigned long long)tb + 0x4000,
		 (unsigned long long)tb + 0x5000, (unsigned long long)tb + 0x6000);
	kb_set_kallsyms(b, syms);
	kb_cache_def(b, 0, 100, new ? 4 : 1, 192, 192, 8, "dentry");
	/* early */
	kb_kmalloc(b, 0, 200, KMT_CTX_TASK, 1, tb + (new ? 0x1018 : 0x1010), D(0x1000),
		   60, 64, 0xcc0, -1);
	kb_initcall_level(b, 0, 300, "core");
	if (!new)
		kb_kmalloc(b, 0, 400, KMT_CTX_TASK, 1, tb + 0x3020, D(0x2000), 200, 256,
			   0xcc0, -1);
	kb_initcall_level(b, 0, 500, "device");
	kb_kmalloc(b, 0, 600, KMT_CTX_TASK, 1, tb + (new ? 0x1018 : 0x1010), D(0x3000),
		   60, 64, 0xcc0, -1);
	kb_kmalloc(b, 1, 700, KMT_CTX_TASK, 1, tb + (new ? 0x1018 : 0x1010), D(0x4000),
		   60, 64, 0xcc0, -1);
	if (!new)
		kb_kfree(b, 0, 800, KMT_CTX_TASK, 1, tb + 0x4008, D(0x3000));
	kb_cache_alloc(b, 0, 900, KMT_CTX_TASK, 1, tb + (new ? 0x1048 : 0x1040), D(0x5000),
		       new ? 4 : 1, 0xcc0, -1);
	kb_page_alloc_stack(b, 0, 1000, KMT_CTX_TASK, 1, 0x1001, 1, 0xcc0, 0, stack, 2);
	if (new) {
		kb_kmalloc(b, 1, 1100, KMT_CTX_TASK, 1, tb + 0x3010, D(0x6000), 1000, 1024,
			   0xcc0, -1);
		kb_page_alloc_stack(b, 0, 1200, KMT_CTX_TASK, 1, 0x3001, 0, 0xcc0, 0,
				    stack, 2);
		kb_init_exec(b, 0, 1300, "/init");
	}
}

/*
 * For the cut-file tests (t0021-cut.sh): two CPUs of 256-byte
 * sub-buffers, 24 kmallocs each, CPU 0's at 1000, 3000, ... ns and CPU
 * 1's at 2000, 4000, ...; alloc_thing keeps CPU 0's, helper_init frees
 * half of CPU 1's.  The TASKS and CGROUPS sections come after the CPUs.
 */
static void cut(struct kb *b)
{
	uint64_t i;

	kb_set_kallsyms(b, kb_kallsyms);
	for (i = 0; i < 24; i++) {
		kb_kmalloc(b, 0, 1000 + i * 2000, KMT_CTX_TASK, 1, T(0x1010),
			   D(0x10000 + i * 0x100), 100, 128, 0xcc0, -1);
		if (i % 2)
			kb_kfree(b, 1, 2000 + i * 2000, KMT_CTX_TASK, 2, T(0x2008),
				 D(0x20000 + (i - 1) * 0x100));
		else
			kb_kmalloc(b, 1, 2000 + i * 2000, KMT_CTX_TASK, 2, T(0x2005),
				   D(0x20000 + i * 0x100), 60, 64, 0xcc0, -1);
	}
	kb_set_tasks(b, "1\tinit\t/\n2\tkthreadd\t/\n");
	kb_set_cgroups(b, "1\t/\n");
}

/*
 * The GFP names of an x86 Linux 6.12 recorder (all of its table), with
 * the flags its table lacks: a slab's obj_exts vector (__GFP_NO_OBJ_EXT,
 * bit 24, or 25 under CONFIG_LOCKDEP, whose kernel has lock_acquire).
 */
static void gfp612(struct kb *b, bool lockdep)
{
	char syms[512];

	snprintf(syms, sizeof(syms), "%s%s", kb_kallsyms,
		 lockdep ? "ffffffff81004000 T lock_acquire\n" : "");
	kb_set_kallsyms(b, syms);
	kb_set_gfp_table(b, KB_GFP_612);
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 1, T(0x1010), D(0x1000), 100, 128,
		   0xcc0, -1);
	kb_kmalloc(b, 0, 2000, KMT_CTX_TASK, 1, T(0x1010), D(0x2000), 100, 128,
		   0xcc0 | 0x1000000, -1);
	kb_kmalloc(b, 0, 3000, KMT_CTX_TASK, 1, T(0x1010), D(0x3000), 100, 128,
		   0x400cc0 | 0x100, -1);
	kb_kmalloc(b, 0, 4000, KMT_CTX_SOFTIRQ, 0, T(0x1010), D(0x4000), 100, 128,
		   0x2800 | 0x2000000, -1);
	kb_page_alloc(b, 0, 5000, KMT_CTX_TASK, 1, 0x1001, 9, 0x1c24ca, 1);
}

/*
 * The basic boot with every line of metadata kmemflight info shows,
 * though no one save writes them all: a previous boot's, from ftrace,
 * drained by attach, its addresses relative, a kernel without a
 * build-id, and the recorder's pool in a reserve_mem= region.
 */
static void meta(struct kb *b)
{
	kb_set_meta(b, "release=6.12.0-test\n"
		    "cmdline=console=ttyS0 kmemtrace.enable=1 \"quoted\"\n"
		    "build_id=\n"
		    "saved_at=2026-11-25T10:12:10Z\n"
		    "boot=previous\n"
		    "pool=region\n"
		    "source=ftrace\n"
		    "ftrace_instance=kmf\n"
		    "ftrace_events=kmem:kmalloc,kmem:kfree\n"
		    "ftrace_overwrite=1\n"
		    "first_ts=100\n"
		    "complete_from_ts=100\n"
		    "attach=attach pid 11 drained 150 bytes in 3 reads using 2 ms CPU; 0 events were lost before it started\n"
		    "addresses=relative\n");
	/* pool_subbufs is in the header after the GFP names' fields */
	kb_set_gfp_names(b, true);
	kb_set_pool(b, 32);
}

int main(int argc, char **argv)
{
	struct kb *b;
	int ret, i;

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
	if (argc == 4 && !strcmp(argv[1], "big")) {
		b = kb_new(2, 128 * 1024);
		kb_set_topology(b, "cpu 0 node 0\ncpu 1 node 0\nnode 0 start_pfn 0 end_pfn 16777216\n");
		ret = big(b, strtoull(argv[2], NULL, 10));
		ret = ret ?: kb_write(b, argv[3]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "gfp612") ||
			  !strcmp(argv[1], "gfp612-lockdep"))) {
		b = kb_new(1, 4096);
		gfp612(b, !strcmp(argv[1], "gfp612-lockdep"));
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "cut")) {
		b = kb_new(2, 256);
		cut(b);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "pagestack") ||
			  !strcmp(argv[1], "pagestack-meminfo"))) {
		b = kb_new(1, 4096);
		pagestack(b);
		/* the kernel's totals at its save: report --footprint takes it */
		if (strcmp(argv[1], "pagestack"))
			kb_set_proc(b, "MemTotal:        1011536 kB\nMemFree:         1000000 kB\n",
				    NULL, NULL);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "double")) {
		/*
		 * What 6.12 writes for one large kmalloc (traced inside
		 * __kmalloc_large_node_noprof, then for the caller) and for
		 * a page freed through free_unref_folios (mm_page_free, then
		 * mm_page_free_batched); and an interrupt's kmalloc between
		 * two traces of another large kmalloc on CPU 1.
		 */
		b = kb_new(2, 4096);
		kb_set_kallsyms(b, kb_kallsyms);
		kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 1, T(0x2005), D(0x10000), 10000, 16384, 0xcc0, -1);
		kb_kmalloc(b, 0, 1001, KMT_CTX_TASK, 1, T(0x1010), D(0x10000), 10000, 16384, 0xcc0, -1);
		kb_page_alloc(b, 0, 2000, KMT_CTX_TASK, 1, 0x1001, 0, 0xcc0, 1);
		kb_page_free(b, 0, 3000, KMT_CTX_TASK, 1, 0x1001, 0);
		kb_page_free_batched(b, 0, 3001, 0x1001);
		kb_kmalloc(b, 1, 4000, KMT_CTX_TASK, 1, T(0x2005), D(0x20000), 9000, 16384, 0xcc0, -1);
		kb_kmalloc(b, 1, 4001, KMT_CTX_HARDIRQ, 0, T(0x3008), D(0x30000), 8, 8, 0x820, -1);
		kb_kmalloc(b, 1, 4002, KMT_CTX_TASK, 1, T(0x1040), D(0x20000), 9000, 16384, 0xcc0, -1);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "kmalloc-caches")) {
		/*
		 * kmalloc objects put to the kernel's kmalloc caches by size
		 * and GFP flags, where the trace defines them: no table of
		 * GFP names, so 6.12's bits (DMA 0x01, RECLAIMABLE 0x10,
		 * ACCOUNT 0x400000).  No kmalloc-96 or -192 cache: by size.
		 */
		b = kb_new(1, 4096);
		kb_set_kallsyms(b, kb_kallsyms);
		kb_cache_def(b, 0, 10, 1, 64, 64, 8, "kmalloc-64");
		kb_cache_def(b, 0, 11, 2, 64, 64, 8, "kmalloc-cg-64");
		kb_cache_def(b, 0, 12, 3, 64, 64, 8, "kmalloc-rcl-64");
		kb_cache_def(b, 0, 13, 4, 64, 64, 8, "dma-kmalloc-64");
		kb_cache_def(b, 0, 14, 5, 4096, 4096, 8, "kmalloc-4k");
		kb_cache_def(b, 0, 15, 6, 192, 192, 8, "dentry");
		kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 1, T(0x1010), D(0x100), 50, 64, 0xcc0, -1);
		kb_kmalloc(b, 0, 1100, KMT_CTX_TASK, 1, T(0x1010), D(0x140), 60, 64, 0x400cc0, -1);
		kb_kmalloc(b, 0, 1200, KMT_CTX_TASK, 1, T(0x1010), D(0x180), 64, 64, 0x400cc0, -1);
		kb_kmalloc(b, 0, 1300, KMT_CTX_TASK, 1, T(0x2005), D(0x1c0), 64, 64, 0xcd0, -1);
		kb_kmalloc(b, 0, 1400, KMT_CTX_TASK, 1, T(0x2005), D(0x200), 64, 64, 0x400cd0, -1);
		kb_kmalloc(b, 0, 1500, KMT_CTX_TASK, 1, T(0x2005), D(0x240), 64, 64, 0xcc1, -1);
		kb_cache_alloc(b, 0, 1600, KMT_CTX_TASK, 1, T(0x3008), D(0x280), 1, 0xcc0, -1);
		kb_kmalloc(b, 0, 1700, KMT_CTX_TASK, 1, T(0x3008), D(0x1000), 4000, 4096, 0xcc0, -1);
		kb_kmalloc(b, 0, 1800, KMT_CTX_TASK, 1, T(0x3008), D(0x2000), 90, 96, 0xcc0, -1);
		kb_kmalloc(b, 0, 1900, KMT_CTX_TASK, 1, T(0x3008), D(0x2060), 150, 192, 0x400cc0, -1);
		kb_kmalloc(b, 0, 2000, KMT_CTX_TASK, 1, T(0x1040), D(0x10000), 10000, 16384, 0xcc0, -1);
		kb_cache_alloc(b, 0, 2100, KMT_CTX_TASK, 1, T(0x1040), D(0x3000), 6, 0xcc0, -1);
		kb_cache_alloc(b, 0, 2200, KMT_CTX_TASK, 1, T(0x1040), D(0x3100), 9, 0xcc0, -1);
		kb_kfree(b, 0, 2300, KMT_CTX_TASK, 1, T(0x3008), D(0x180));
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "repeat")) {
		/*
		 * What an import of a perf.data holds where perf record
		 * wrote a sample twice: the same event again, same time and
		 * fields (a kmalloc, a kfree on another CPU, a
		 * kmem_cache_alloc, a kmem_cache_free on the same CPU, the
		 * caller's trace of a large kmalloc that 6.12 traces twice);
		 * and two kmallocs of one small object back to back from two
		 * callsites, which are not a large kmalloc's pair.
		 */
		b = kb_new(2, 4096);
		kb_set_kallsyms(b, kb_kallsyms);
		kb_cache_def(b, 0, 100, 1, 192, 192, 8, "dentry");
		for (i = 0; i < 2; i++)
			kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 1, T(0x1010), D(0x1000), 57, 64, 0xcc0, -1);
		for (i = 0; i < 2; i++)
			kb_kfree(b, 1, 2000, KMT_CTX_TASK, 2, T(0x3008), D(0x1000));
		for (i = 0; i < 2; i++)
			kb_cache_alloc(b, 0, 3000, KMT_CTX_TASK, 1, T(0x1040), D(0x2000), 1, 0xcc0, -1);
		for (i = 0; i < 2; i++)
			kb_cache_free(b, 0, 4000, KMT_CTX_TASK, 1, T(0x3020), D(0x2000), 1);
		kb_kmalloc(b, 0, 5000, KMT_CTX_TASK, 1, T(0x2005), D(0x10000), 10000, 16384, 0xcc0, -1);
		for (i = 0; i < 2; i++)
			kb_kmalloc(b, 0, 5001, KMT_CTX_TASK, 1, T(0x1080), D(0x10000), 10000, 16384, 0xcc0, -1);
		kb_kmalloc(b, 0, 6000, KMT_CTX_TASK, 1, T(0x10c0), D(0x3000), 100, 128, 0xcc0, -1);
		kb_kmalloc(b, 0, 6001, KMT_CTX_TASK, 1, T(0x10d0), D(0x3000), 100, 128, 0xcc0, -1);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "realloc")) {
		/* one address allocated twice, the free in between untraced */
		b = kb_new(1, 4096);
		kb_set_kallsyms(b, kb_kallsyms);
		kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 1, T(0x1010), D(0x1000), 100, 128, 0xcc0, -1);
		kb_kmalloc(b, 0, 2000, KMT_CTX_TASK, 1, T(0x2005), D(0x1000), 60, 64, 0xcc0, -1);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "diff-base") || !strcmp(argv[1], "diff-new"))) {
		b = kb_new(2, 4096);
		diff_boot(b, !strcmp(argv[1], "diff-new"));
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "flight") || !strcmp(argv[1], "flight-recorder") ||
			  !strcmp(argv[1], "flight-v1"))) {
		b = kb_new(2, 4096);
		kb_scenario_flight(b);
		/* as savers wrote it before they kept frozen_dropped */
		if (!strcmp(argv[1], "flight-v1"))
			kb_set_flight_cpu_size(b, KMT_FLIGHT_CPU_SIZE_V1);
		ret = strcmp(argv[1], "flight-recorder") ? kb_write(b, argv[2]) :
		      kb_write_recorder(b, argv[2], false, 0, 0);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "tasks") || !strcmp(argv[1], "tasks-v0"))) {
		b = kb_new(2, 4096);
		if (!strcmp(argv[1], "tasks"))
			kb_scenario_tasks(b);
		else
			kb_scenario_tasks_v0(b);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "plot") || !strcmp(argv[1], "plot-base") ||
			  !strcmp(argv[1], "plot-noclock"))) {
		b = kb_new(1, 4096);
		plot_boot(b, !strcmp(argv[1], "plot-base"), !strcmp(argv[1], "plot-noclock"));
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "plot-nokmem")) {
		/* a recorder told kmemtrace.events=boot: phases, no kmem events */
		b = kb_new(1, 4096);
		kb_set_kallsyms(b, kb_kallsyms);
		kb_groups(b, 0, 0, 1u << KMT_GROUP_BOOT);
		kb_initcall_level(b, 0, 1000000, "core");
		kb_initcall_level(b, 0, 2000000, "device");
		kb_init_exec(b, 0, 3000000, "/init");
		kb_init_exec(b, 0, 4000000, "/sbin/init");
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "plot-phases") || !strcmp(argv[1], "plot-import"))) {
		b = kb_new(1, 4096);
		if (!strcmp(argv[1], "plot-phases"))
			plot_phases(b);
		else
			plot_import(b);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "clock-step")) {
		/*
		 * CPU 0's clock steps back 500 ns after 3000 (an absolute
		 * time below the one before), at a sub-buffer's start the
		 * second time (a new sub-buffer's base time below the last
		 * record of the one before): dump marks both.
		 */
		b = kb_new(2, 4096);
		kb_set_kallsyms(b, kb_kallsyms);
		kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 1, T(0x1010), D(0x1000), 64, 64, 0xcc0, -1);
		kb_kmalloc(b, 1, 2000, KMT_CTX_TASK, 2, T(0x1010), D(0x2000), 64, 64, 0xcc0, -1);
		kb_kmalloc(b, 0, 3000, KMT_CTX_TASK, 1, T(0x1010), D(0x3000), 64, 64, 0xcc0, -1);
		kb_kmalloc(b, 0, 2500, KMT_CTX_TASK, 1, T(0x1010), D(0x4000), 64, 64, 0xcc0, -1);
		kb_kmalloc(b, 0, 2600, KMT_CTX_TASK, 1, T(0x1010), D(0x5000), 64, 64, 0xcc0, -1);
		kb_close_subbuf(b, 0);
		kb_kmalloc(b, 0, 2550, KMT_CTX_TASK, 1, T(0x1010), D(0x6000), 64, 64, 0xcc0, -1);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "phases")) {
		b = kb_new(2, 4096);
		phases(b);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "abi1")) {	/* an older recorder */
		b = kb_new(2, 4096);
		kb_set_abi(b, 1);
		kb_scenario_basic(b);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "longnames") ||
			  !strcmp(argv[1], "longnames-grown"))) {
		/*
		 * basic, its first function with a name longer than a
		 * column; -grown keeps 512 bytes more from it
		 */
		b = kb_new(2, 4096);
		kb_scenario_basic(b);
		if (argv[1][9])
			kb_kmalloc(b, 0, 9000, KMT_CTX_TASK, 1, T(0x1010), D(0x9000), 500, 512, 0xcc0, -1);
		kb_set_kallsyms(b,
				"ffffffff81000000 T _stext\n"
				"ffffffff81001000 T alloc_thing_with_a_name_longer_than_its_column\n"
				"ffffffff81002000 t helper_init\n"
				"ffffffff81003000 T free_thing\n"
				"ffffffff82000000 D some_data\n");
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "latency")) {
		b = kb_new(2, 4096);
		kb_set_gfp_names(b, true);
		kb_scenario_latency(b);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "memblock") ||
			  !strcmp(argv[1], "footprint") ||
			  !strcmp(argv[1], "footprint-lost"))) {
		b = kb_new(2, 4096);
		memblock(b, !strcmp(argv[1], "footprint-lost"));
		if (strcmp(argv[1], "memblock"))
			footprint(b);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "pages")) {
		b = kb_new(2, 4096);
		pages(b);
		ret = kb_write(b, argv[2]);
		kb_free(b);
		return ret ? 1 : 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: mktrace basic|swapped|many|nosyms|zstd|meta FILE\n"
			"       mktrace tracefs|debugfs|hotplug|pool DIR\n"
			"       mktrace pages|pagestack|pagestack-meminfo|phases|double|repeat|realloc|longnames|longnames-grown|memblock|cut FILE\n"
			"       mktrace footprint|footprint-lost|kmalloc-caches FILE\n"
			"       mktrace gfp612|gfp612-lockdep FILE\n"
			"       mktrace diff-base|diff-new|plot|plot-base|plot-noclock|plot-phases|plot-import|plot-nokmem FILE\n"
			"       mktrace flight|flight-v1 FILE, mktrace flight-recorder DIR\n"
			"       mktrace big N FILE\n"
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
		else if (!strcmp(argv[1], "zstd"))	/* sections compressed */
			kb_set_zstd(b, 1u << KMT_SEC_KALLSYMS | 1u << KMT_SEC_META |
				    1u << KMT_SEC_CPU);
		else if (!strcmp(argv[1], "meta"))
			meta(b);
		else if (strcmp(argv[1], "basic") && strcmp(argv[1], "swapped") &&
			 strcmp(argv[1], "tracefs") && strcmp(argv[1], "debugfs") &&
			 strcmp(argv[1], "hotplug") && strcmp(argv[1], "pool")) {
			fprintf(stderr, "mktrace: unknown scenario %s\n", argv[1]);
			kb_free(b);
			return 2;
		}
	}
	/*
	 * A recorder tree: in tracefs; in debugfs as older kernels had it;
	 * in tracefs with two more possible CPUs that never came up, one of
	 * which lost 5 events for want of a buffer; with a pool of 32
	 * sub-buffers, of which CPU 1 holds none (its events were read
	 * before: they are in its data file all the same, as a spool would
	 * have them) and the same CPUs that never came up.
	 */
	if (!strcmp(argv[1], "tracefs") || !strcmp(argv[1], "debugfs") ||
	    !strcmp(argv[1], "hotplug") || !strcmp(argv[1], "pool")) {
		bool hotplug = !strcmp(argv[1], "hotplug") || !strcmp(argv[1], "pool");

		if (!strcmp(argv[1], "pool")) {
			/* pool_subbufs is in the header after the GFP names' fields */
			kb_set_gfp_names(b, true);
			kb_set_pool(b, 32);
		}
		ret = kb_write_recorder(b, argv[2], !strcmp(argv[1], "debugfs"),
					hotplug ? 2 : 0, hotplug ? 5 : 0);
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

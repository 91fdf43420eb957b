// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight report --footprint: the memory at the save, the trace
 * against the kernel's own totals (the /proc/meminfo, /proc/vmstat and
 * /proc/zoneinfo that save kept), and how much of what the kernel
 * holds the trace explains.
 *
 *   RAM (memblock's)  = reserved by memblock and still held (RAM - MemTotal)
 *                     + MemTotal
 *   MemTotal          = MemFree + free on the per-CPU lists + allocated
 *   allocated         = pages the trace saw allocated and still held
 *                     + the recorder's buffers (allocated before it
 *                       records, or while it does not record itself)
 *                     + what nothing in the trace explains
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/cli.h"
#include "memblock.h"
#include "report.h"
#include "slab.h"

#define LINE_W	58

/* Everything the balance is made of, in bytes. */
struct balance {
	bool have_ram, have_pcp;
	uint64_t ram, reserved, memblock_callers;
	/* what memblock's callers hold in the RAM, and in all (--memblock) */
	uint64_t memblock_held, memblock_all;
	uint64_t lost;		/* events lost while recording */
	uint64_t mem_total, mem_free, pcp, allocated;
	uint64_t pages, buffers, slab_objs, vmalloc;
	/* the recorder's own objects and other pages (in the pages) */
	uint64_t rec_objs, rec_pages;
	int64_t unexplained;	/* allocated - pages - buffers */
	uint64_t holds, explained;
	/* the kernel's own breakdown */
	uint64_t k_slab, k_stack, k_ptables, k_vmalloc, k_percpu, k_anon,
		 k_file, k_shmem;
	bool have_k[8];
};

/* meminfo's lines the balance quotes, in the order of struct balance's */
static const char *const kernel_counts[8] = {
	"Slab", "KernelStack", "PageTables", "VmallocUsed", "Percpu",
	"AnonPages", "Cached", "Shmem",
};

static void line(const char *indent, const char *what, uint64_t v,
		 const char *note)
{
	int w = LINE_W - (int)strlen(indent);

	printf(" %s%-*s | %12" PRIu64 " |%s%s\n", indent, w, what, v,
	       note[0] ? "  " : "", note);
}

#define TOP	3

/*
 * Who holds it: the callers that hold most of each part, TOP of each,
 * for the text and the JSON alike.  A site 0 is a caller unknown; the
 * pages have none without page stacks (!pages_known).
 */
enum { H_MEMBLOCK, H_SLAB, H_PAGES, H_VMALLOC, H_PARTS };

static const char *const part_names[H_PARTS] = {
	"memblock", "slab", "pages", "vmalloc",
};

struct holders {
	struct { uint64_t site, bytes; } row[H_PARTS][TOP];
	unsigned int nr[H_PARTS];
	bool pages_known;
};

static void add_holder(struct holders *h, unsigned int part, uint64_t site,
		       uint64_t bytes)
{
	h->row[part][h->nr[part]].site = site;
	h->row[part][h->nr[part]].bytes = bytes;
	h->nr[part]++;
}

static void find_holders(struct holders *h, const struct kmt_memblock *mb,
			 const struct kmt_slab *s, const struct kmt_caller *live)
{
	size_t i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < mb->nr_callers && h->nr[H_MEMBLOCK] < TOP; i++)
		if (mb->callers[i].held)
			add_holder(h, H_MEMBLOCK, mb->callers[i].call_site,
				   mb->callers[i].held);
	for (i = 0; live && i < s->nr_callers && h->nr[H_SLAB] < TOP; i++)
		if (live[i].live_bytes)
			add_holder(h, H_SLAB, live[i].call_site, live[i].live_bytes);
	/* the recorder's sub-buffers are a line of their own above */
	h->pages_known = s->pg_with_stack;
	for (i = 0; h->pages_known && i < s->nr_live_psites && h->nr[H_PAGES] < TOP; i++)
		if (s->live_psites[i].bytes > s->live_psites[i].buffer_bytes)
			add_holder(h, H_PAGES, s->live_psites[i].site,
				   s->live_psites[i].bytes - s->live_psites[i].buffer_bytes);
	for (i = 0; i < s->nr_live_vsites && h->nr[H_VMALLOC] < TOP; i++)
		add_holder(h, H_VMALLOC, s->live_vsites[i].caller,
			   s->live_vsites[i].bytes);
}

/* "holders": per part its rows, or null for pages without callers. */
static void json_holders(const struct holders *h, const struct kmt_symtab *st,
			 const struct report_opts *o)
{
	char name[256];
	unsigned int p, i;

	printf(",\n  \"holders\": {");
	for (p = 0; p < H_PARTS; p++) {
		printf("%s\n    \"%s\": ", p ? "," : "", part_names[p]);
		if (p == H_PAGES && !h->pages_known) {
			printf("null");
			continue;
		}
		printf("[");
		for (i = 0; i < h->nr[p]; i++) {
			bool first = true;

			printf("%s{", i ? ", " : "");
			kmt_json_key(stdout, &first, "callsite");
			if (h->row[p][i].site) {
				kmt_symtab_format(st, h->row[p][i].site, o->raw_ip,
						  name, sizeof(name));
				kmt_json_str(stdout, name, strlen(name));
			} else {
				printf("null");
			}
			kmt_json_key(stdout, &first, "address");
			printf("\"0x%" PRIx64 "\"", h->row[p][i].site);
			kmt_json_u64(stdout, &first, "held", h->row[p][i].bytes);
			printf("}");
		}
		printf("]");
	}
	printf("\n  }");
}

static void json_balance(const struct balance *b, const char *path,
			 uint64_t first_ts, uint64_t last_ts)
{
	const uint64_t kv[8] = {
		b->k_slab, b->k_stack, b->k_ptables, b->k_vmalloc, b->k_percpu,
		b->k_anon, b->k_file, b->k_shmem,
	};
	bool first = true, kfirst = true;
	unsigned int i;

	kmt_report_json_head(stdout, path, first_ts, last_ts);
	printf(",\n  ");
	if (b->have_ram) {
		kmt_json_u64(stdout, &first, "ram", b->ram);
		kmt_json_u64(stdout, &first, "reserved", b->reserved);
		kmt_json_u64(stdout, &first, "memblock_held", b->memblock_held);
		kmt_json_u64(stdout, &first, "memblock_held_total", b->memblock_all);
	}
	kmt_json_u64(stdout, &first, "mem_total", b->mem_total);
	kmt_json_u64(stdout, &first, "mem_free", b->mem_free);
	if (b->have_pcp)
		kmt_json_u64(stdout, &first, "pcp_free", b->pcp);
	kmt_json_u64(stdout, &first, "allocated", b->allocated);
	kmt_json_u64(stdout, &first, "pages_held", b->pages);
	kmt_json_u64(stdout, &first, "vmalloc_held", b->vmalloc);
	kmt_json_u64(stdout, &first, "recorder_buffers", b->buffers);
	kmt_json_key(stdout, &first, "unexplained");
	printf("%" PRId64, b->unexplained);
	kmt_json_u64(stdout, &first, "kernel_holds", b->holds);
	kmt_json_u64(stdout, &first, "explained", b->explained);
	kmt_json_key(stdout, &first, "explained_pct");
	printf("%.3f", b->holds ? 100.0 * (double)b->explained / (double)b->holds : 0.0);
	kmt_json_u64(stdout, &first, "slab_objects_held", b->slab_objs);
	kmt_json_u64(stdout, &first, "recorder_objects", b->rec_objs);
	kmt_json_u64(stdout, &first, "recorder_pages", b->rec_pages);
	kmt_json_key(stdout, &first, "kernel_counts");
	printf("{");
	for (i = 0; i < 8; i++)
		if (b->have_k[i])
			kmt_json_u64(stdout, &kfirst, kernel_counts[i], kv[i]);
	printf("}");
}

static void print_balance(const struct balance *b, uint64_t at)
{
	char note[160];

	printf("Memory at the save (%" PRIu64 ".%09" PRIu64
	       " s, the end of the trace): the trace against the kernel's totals\n",
	       at / 1000000000u, at % 1000000000u);
	kmt_rule(LINE_W + 18 + 40);
	if (b->have_ram) {
		line("", "RAM (the ranges memblock was given)", b->ram, "trace");
		/*
		 * --memblock's total counts what lies outside the RAM too
		 * (the firmware's ranges below 1 MiB): the part of it in the
		 * RAM is the part of this line, when it is not more
		 */
		if (b->memblock_all != b->memblock_held)
			snprintf(note, sizeof(note),
				 "memblock callers hold %" PRIu64 " (report --memblock), %"
				 PRIu64 " in the RAM", b->memblock_all, b->memblock_held);
		else
			snprintf(note, sizeof(note),
				 "memblock callers hold %" PRIu64 "%s: report --memblock",
				 b->memblock_held,
				 b->memblock_held <= b->reserved ? " of it" : "");
		line("  ", "reserved at boot, still held (RAM - MemTotal)",
		     b->reserved, note);
	}
	line("  ", "managed by the page allocator (MemTotal)", b->mem_total,
	     "meminfo");
	line("    ", "free (MemFree)", b->mem_free, "meminfo");
	if (b->have_pcp)
		line("    ", "free on the per-CPU page lists", b->pcp, "zoneinfo");
	line("    ", "allocated", b->allocated, "the rest");
	line("      ", "pages the trace saw allocated, still held", b->pages,
	     "report --live, --page");
	if (b->have_k[3])
		snprintf(note, sizeof(note), "VmallocUsed %" PRIu64 " (meminfo)",
			 b->k_vmalloc);
	else
		snprintf(note, sizeof(note), "report --live");
	line("        ", "of them, mapped by vmalloc()", b->vmalloc, note);
	line("      ", "the recorder's buffers", b->buffers, "topology");
	snprintf(note, sizeof(note), "%" PRId64, b->unexplained);
	printf(" %-*s | %12s |  %s\n", LINE_W, "      not explained", note,
	       b->unexplained < 0 ? "the trace holds more: frees it did not see" :
	       "allocated without a page event the trace has");
	kmt_rule(LINE_W + 18 + 40);
	if (b->have_ram && b->memblock_held > b->reserved) {
		printf("(the memblock callers hold %" PRIu64 " bytes more of the RAM than RAM - MemTotal: frees the trace did not see",
		       b->memblock_held - b->reserved);
		if (b->lost)
			printf(" (%" PRIu64 " events were lost while recording)", b->lost);
		printf("; the trace explains no more than RAM - MemTotal)\n");
	}
	printf("The kernel holds %" PRIu64 " bytes (%s, less what is free); the trace explains %"
	       PRIu64 " of them: %.3f%%\n", b->holds,
	       b->have_ram ? "RAM" : "MemTotal", b->explained,
	       b->holds ? 100.0 * (double)b->explained / (double)b->holds : 0.0);
	printf("The kernel's own counts of what is allocated (meminfo):");
	{
		const uint64_t val[8] = {
			b->k_slab, b->k_stack, b->k_ptables, b->k_vmalloc,
			b->k_percpu, b->k_anon, b->k_file, b->k_shmem,
		};
		const char *sep = " ";
		unsigned int i;

		for (i = 0; i < 8; i++) {
			if (!b->have_k[i])
				continue;
			printf("%s%s %" PRIu64, sep, kernel_counts[i], val[i]);
			sep = ", ";
		}
	}
	printf("\n");
	printf("Slab objects the trace saw allocated and still held: %" PRIu64
	       " bytes, in the slab pages above (report --live)\n", b->slab_objs);
	printf("The recorder's own: its buffers, and %" PRIu64 " bytes of objects and %"
	       PRIu64 " of pages it allocated (its files, its probes): %" PRIu64
	       " bytes to subtract for the kernel without it\n", b->rec_objs,
	       b->rec_pages, b->buffers + b->rec_objs + b->rec_pages);
}

static void holder(const char *part, unsigned int i, const struct kmt_symtab *st,
		   uint64_t site, uint64_t bytes, const struct report_opts *o)
{
	char name[256];

	if (site)
		kmt_symtab_format(st, site, o->raw_ip, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "(unknown)");
	printf(" %-10s %-47s | %12" PRIu64 " |\n", i ? "" : part, name, bytes);
}

static void print_holders(const struct holders *h, const struct kmt_symtab *st,
			  const struct report_opts *o)
{
	unsigned int p, i;

	printf("\nWho holds it: the %d callers holding most of each part\n", TOP);
	kmt_rule(LINE_W + 18);
	for (p = 0; p < H_PARTS; p++) {
		if (p == H_PAGES && !h->pages_known)
			printf(" %-10s %-47s |\n", part_names[p],
			       "(no callers: boot with kmemtrace.page_stack=N)");
		for (i = 0; i < h->nr[p]; i++)
			holder(part_names[p], i, st, h->row[p][i].site,
			       h->row[p][i].bytes, o);
	}
	kmt_rule(LINE_W + 18);
}

int kmt_report_footprint(const struct kmt_trace *t, const struct kmt_symtab *st,
			 const struct report_opts *o, const char *path,
			 struct kmt_err *err)
{
	uint64_t *kv[8];
	struct balance b;
	struct kmt_memblock mb;
	struct kmt_slab s;
	struct kmt_caller *live;
	struct holders h;
	uint64_t last;
	unsigned int i;
	char v[16];
	int ret;

	/* the kernel's totals are the save's; the events stop at the cut */
	if (t->cut.file_size)
		return kmt_errf(err, EINVAL,
				"%s is cut short: its events end before the save whose totals it holds, so there is no balance to draw (report --live, --page and --memblock read what is whole)",
				path);
	memset(&b, 0, sizeof(b));
	kv[0] = &b.k_slab;
	kv[1] = &b.k_stack;
	kv[2] = &b.k_ptables;
	kv[3] = &b.k_vmalloc;
	kv[4] = &b.k_percpu;
	kv[5] = &b.k_anon;
	kv[6] = &b.k_file;
	kv[7] = &b.k_shmem;
	if ((!kmt_trace_meminfo(t, "MemTotal", &b.mem_total) ||
	     !kmt_trace_meminfo(t, "MemFree", &b.mem_free)) &&
	    kmt_trace_meta(t, "boot", v, sizeof(v)) && !strcmp(v, "previous"))
		return kmt_errf(err, ENOTSUP,
				"%s: a previous boot's trace (save --previous): that boot's totals (/proc/meminfo) went with it, so there is no balance; --live, --window and the tables still work",
				path);
	if (!kmt_trace_meminfo(t, "MemTotal", &b.mem_total) ||
	    !kmt_trace_meminfo(t, "MemFree", &b.mem_free))
		return kmt_errf(err, ENOTSUP,
				"%s: its save kept no kernel totals (/proc/meminfo): saved by an older kmemflight, or made from ftrace or perf; --memblock and --live still work",
				path);
	for (i = 0; i < 8; i++)
		b.have_k[i] = kmt_trace_meminfo(t, kernel_counts[i], kv[i]);
	b.have_pcp = kmt_trace_pcp_free(t, &b.pcp);
	ret = kmt_memblock_analyze(t, UINT64_MAX, &mb, err);
	if (ret)
		return ret;
	b.have_ram = mb.have_early && mb.ram >= b.mem_total;
	b.ram = mb.ram;
	b.memblock_held = mb.held_ram;
	b.memblock_all = mb.held;
	b.memblock_callers = mb.nr_callers;
	if (b.have_ram)
		b.reserved = b.ram - b.mem_total;
	ret = kmt_slab_analyze_range(t, 0, UINT64_MAX, false, st, &s, err);
	if (ret) {
		kmt_memblock_free(&mb);
		return ret;
	}
	b.lost = s.lost;
	kmt_memblock_warn(t, &mb);
	/* the buffer pages the trace saw are counted with the buffers */
	b.pages = s.pg_live_bytes - s.rec_buffer_bytes;
	b.slab_objs = s.live_bytes;
	b.vmalloc = s.vm_live_bytes;
	b.rec_objs = s.rec_slab_bytes;
	b.rec_pages = s.rec_page_bytes;
	last = s.last_ts;
	b.buffers = kmt_trace_buffer_bytes(t);
	if (b.mem_free + b.pcp <= b.mem_total)
		b.allocated = b.mem_total - b.mem_free - b.pcp;
	b.unexplained = (int64_t)b.allocated - (int64_t)(b.pages + b.buffers);
	/* what the kernel holds: all of it that is not free */
	b.holds = b.allocated + b.reserved;
	/* the trace explains no more of a part than the kernel has in it */
	b.explained = (b.memblock_held < b.reserved ? b.memblock_held : b.reserved) +
		      (b.pages + b.buffers < b.allocated ? b.pages + b.buffers :
		       b.allocated);
	live = kmt_slab_live_sorted(&s);
	find_holders(&h, &mb, &s, live);
	free(live);
	if (o->json) {
		json_balance(&b, path, s.first_ts, last);
		json_holders(&h, st, o);
		printf("\n}\n");
	} else {
		print_balance(&b, last);
		print_holders(&h, st, o);
	}
	kmt_slab_free(&s);
	kmt_memblock_free(&mb);
	if (!b.have_ram && !o->json)
		printf("(no memblock events in this trace: the memory memblock reserved is left out)\n");
	if (!b.have_pcp && !o->json)
		printf("(no /proc/zoneinfo in this trace: the free pages on the per-CPU lists count as allocated)\n");
	return 0;
}

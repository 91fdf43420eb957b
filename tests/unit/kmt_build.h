/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build .kmt files with exactly known events, for tests and benchmarks.
 * It encodes records the way the kernel recorder does (same varints,
 * same sub-buffer framing, same time deltas), from the layouts in the
 * shared uapi header.
 */
#ifndef KMT_BUILD_H
#define KMT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KB_TEXT_BASE	0xffffffff81000000ULL
#define KB_DMAP_BASE	0xffff888000000000ULL

struct kb;

struct kb *kb_new(unsigned int nr_cpus, uint32_t subbuf_size);
void kb_free(struct kb *b);

/* Write header integers in the other byte order, as a foreign host would. */
void kb_set_swap(struct kb *b, bool swap);
/* Record format: KMT_ABI_VERSION (the default) or 1. */
void kb_set_abi(struct kb *b, int abi);
void kb_set_lost(struct kb *b, unsigned int cpu, uint64_t lost);
/*
 * Write the longer format header with a GFP name table (a few of 6.12's
 * names); by default the first, 72-byte header without one.
 */
void kb_set_gfp_names(struct kb *b, bool on);
/*
 * Which GFP name table: none (the 72-byte header), six of 6.12's names,
 * or all that an x86 6.12 recorder writes, without or with
 * CONFIG_KASAN_HW_TAGS (its __GFP_SKIP_KASAN, bit 25, in
 * GFP_HIGHUSER_MOVABLE and the THP masks).
 */
enum { KB_GFP_NONE, KB_GFP_SOME, KB_GFP_612, KB_GFP_612_KASAN };
void kb_set_gfp_table(struct kb *b, int which);
/* The META section's text (default: release 6.12.0-test, ...). */
void kb_set_meta(struct kb *b, const char *text);
/* Override the kernel's event counter for a CPU (default: events added). */
void kb_set_kernel_events(struct kb *b, unsigned int cpu, uint64_t n);
void kb_set_kallsyms(struct kb *b, const char *text);
/* One zstd frame of @src, with its size and, if @checksum, its checksum. */
size_t kb_zstd(void *dst, size_t cap, const void *src, size_t len,
	       bool checksum);
/* Store the sections of these types (BIT(type)) as zstd frames. */
void kb_set_zstd(struct kb *b, uint32_t types);
/* The file header's version; 0: KMT_FILE_VERSION. */
void kb_set_file_version(struct kb *b, uint16_t version);
/*
 * A trace as 'kmemflight import' writes one: @meta's lines ("source=perf
 * ...") for the kernel command line, no sub-buffers of a recorder, the
 * perf clock.
 */
void kb_set_import(struct kb *b, const char *meta);
/* The kernel's totals at the save: /proc/meminfo, vmstat, zoneinfo text. */
void kb_set_proc(struct kb *b, const char *meminfo, const char *vmstat,
		 const char *zoneinfo);
void kb_set_topology(struct kb *b, const char *text);

/*
 * Flight mode: write a KMT_SEC_FLIGHT section (and the recorder's flight
 * files); the kernel's overwritten counter of a CPU; a mark record, with
 * the trigger's fields for KMT_MARK_FROZEN (by: the task that wrote it,
 * 0 for an interrupt).
 */
void kb_set_flight(struct kb *b, uint32_t mode, uint32_t trigger,
		   uint64_t trigger_ts, uint64_t frozen_ts);
void kb_set_overwritten(struct kb *b, unsigned int cpu, uint64_t n);
/* The kernel's count of a CPU's events dropped while frozen. */
void kb_set_frozen_dropped(struct kb *b, unsigned int cpu, uint64_t n);
/* Entries of the flight section SIZE bytes long (older savers: 32). */
void kb_set_flight_cpu_size(struct kb *b, uint32_t size);
/* The tasks at the save: KMT_SEC_TASKS text, "pid\tcomm\tcgroup" lines. */
void kb_set_tasks(struct kb *b, const char *text);
/* Close @cpu's sub-buffer: its next record opens another. */
void kb_close_subbuf(struct kb *b, unsigned int cpu);
/* The cgroup tree at the save: KMT_SEC_CGROUPS text, "id\tpath" lines. */
void kb_set_cgroups(struct kb *b, const char *text);
/* Task records as recorders wrote them before the cgroup id. */
void kb_set_tasks_v0(struct kb *b);
void kb_mark(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t by,
	     uint32_t mark, uint32_t trigger, uint32_t pid, uint32_t order,
	     uint64_t gfp, uint32_t cache, const char *comm,
	     const uint64_t *frames, unsigned int nr);

/* ctx is enum kmt_ctx; pid is written for KMT_CTX_TASK only. */
void kb_kmalloc(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		uint32_t pid, uint64_t call_site, uint64_t ptr, uint64_t req,
		uint64_t alloc, uint64_t gfp, int node);
void kb_cache_alloc(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		    uint32_t pid, uint64_t call_site, uint64_t ptr,
		    uint32_t cache, uint64_t gfp, int node);
void kb_kfree(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
	      uint32_t pid, uint64_t call_site, uint64_t ptr);
void kb_cache_free(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		   uint32_t pid, uint64_t call_site, uint64_t ptr,
		   uint32_t cache);
void kb_page_alloc(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		   uint32_t pid, uint64_t pfn1, uint32_t order, uint64_t gfp,
		   int migratetype);
/* With the return addresses of kmemtrace.page_stack, innermost first. */
void kb_page_alloc_stack(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
			 uint32_t pid, uint64_t pfn1, uint32_t order,
			 uint64_t gfp, int migratetype, const uint64_t *frames,
			 unsigned int nr);
void kb_page_free_batched(struct kb *b, unsigned int cpu, uint64_t ts,
			  uint64_t pfn1);
void kb_page_free(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		  uint32_t pid, uint64_t pfn1, uint32_t order);
void kb_cache_def(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t id,
		  uint32_t object_size, uint32_t size, uint32_t align,
		  const char *name);

/* Boot phases: a level, an initcall's start and finish, a pid 1 exec. */
void kb_initcall_level(struct kb *b, unsigned int cpu, uint64_t ts,
		       const char *level);
void kb_initcall_start(struct kb *b, unsigned int cpu, uint64_t ts, uint64_t fn);
void kb_initcall_finish(struct kb *b, unsigned int cpu, uint64_t ts,
			uint64_t fn, int ret);
void kb_init_exec(struct kb *b, unsigned int cpu, uint64_t ts,
		  const char *filename);
/* The events of the latency groups (kmemtrace.events=latency). */
void kb_groups(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t groups);
void kb_reclaim_begin(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		      uint32_t order, uint64_t gfp, const char *comm,
		      const uint64_t *frames, unsigned int nr);
void kb_reclaim_end(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		    uint64_t nr_reclaimed);
void kb_lru_inactive(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		     int nid, uint64_t scanned, uint64_t reclaimed,
		     uint32_t priority, bool file);
void kb_shrink_start(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		     uint64_t func, uint64_t shr, int nid, uint64_t gfp,
		     uint64_t items, uint64_t total, uint32_t priority,
		     const char *name);
void kb_shrink_end(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		   uint64_t func, uint64_t shr, int nid, int freed,
		   uint64_t total);
void kb_compact_try(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		    uint32_t order, uint64_t gfp, uint32_t priority,
		    const char *comm, const uint64_t *frames, unsigned int nr);
/* mm_compaction_begin, or with @end mm_compaction_end and its @status */
void kb_compact(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		bool end, uint64_t zone_start, uint64_t zone_end,
		uint64_t migrate_pfn, uint64_t free_pfn, bool sync,
		uint32_t status);
/* A memblock event (enum kmt_memblock_op), @what "" for none. */
void kb_memblock(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t op,
		 uint64_t base, uint64_t size, int nid, uint32_t flags,
		 uint64_t caller, const char *what);
/* A sub-buffer of @buf_cpu's recorder buffer: its pages are the recorder's. */
void kb_buffer(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t buf_cpu,
	       uint64_t pfn1, uint32_t order);
/* How many memblock events the kernel kept before the recorder started. */
/* An allocation through a wrapper: @frames after @call_site, outwards. */
void kb_kmalloc_via(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		    uint32_t pid, uint64_t call_site, uint64_t ptr, uint64_t req,
		    uint64_t alloc, uint64_t gfp, int node,
		    const uint64_t *frames, unsigned int nr);
void kb_cache_alloc_via(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
			uint32_t pid, uint64_t call_site, uint64_t ptr,
			uint32_t cache, uint64_t gfp, int node,
			const uint64_t *frames, unsigned int nr);
/* A vmalloc area: @op KMT_VM_ALLOC or KMT_VM_FREE. */
void kb_vmalloc(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		uint32_t op, uint64_t addr, uint64_t pages, uint64_t caller);
/* A wrapper the recorder names (KMT_EV_TEXT_RANGE). */
void kb_wrapper(struct kb *b, unsigned int cpu, uint64_t ts, uint64_t func,
		uint64_t size, const char *name);
/* A KMT_EV_TASK record written by task @by (strings may be NULL). */
void kb_task_id(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t by,
		uint32_t op, uint32_t pid, uint32_t ppid, uint64_t cgroup_id,
		const char *comm, const char *filename, const char *cgroup);
/* The same without a cgroup id. */
void kb_task(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t by,
	     uint32_t op, uint32_t pid, uint32_t ppid, const char *comm,
	     const char *filename, const char *cgroup);
void kb_memblock_early(struct kb *b, unsigned int cpu, uint64_t ts,
		       uint64_t kept, uint64_t dropped, uint64_t capacity,
		       uint64_t pg_kept, uint64_t pg_dropped);
/* kallsyms text of the scenarios: _stext, alloc_thing, helper_init, ... */
extern const char kb_kallsyms[];
/* The hand-computed scenario of the report golden tests. */
void kb_scenario_basic(struct kb *b);
/* ... and of report --latency (kallsyms kb_lat_kallsyms). */
extern const char kb_lat_kallsyms[];
void kb_scenario_latency(struct kb *b);
/* who allocated: fork, exec, rename, cgroup moves (t0096-tasks.sh) */
void kb_scenario_tasks(struct kb *b);
void kb_scenario_tasks_v0(struct kb *b);
/* A flight-recorder window frozen by the OOM killer. */
void kb_scenario_flight(struct kb *b);

/* The whole file in memory (malloc'd), or written to path. */
int kb_finish(struct kb *b, uint8_t **out, size_t *len);
int kb_write(struct kb *b, const char *path);
/*
 * A fake recorder tree DIR/kmemtrace/ as the kernel shows it in tracefs,
 * with @absent more possible CPUs that have no buffer, the last of them
 * having lost @absent_lost events; @old: as older kernels showed it in
 * debugfs (a buffer on every CPU, no sizes).
 */
#define KB_BUFFER_BYTES	262144
#define KB_STR_(x)	#x
#define KB_STR(x)	KB_STR_(x)
/* A recorder whose sub-buffers are one pool of @nr (pool_subbufs). */
void kb_set_pool(struct kb *b, unsigned int nr);
int kb_write_recorder(struct kb *b, const char *dir, bool old,
		      unsigned int absent, uint64_t absent_lost);
/*
 * The same, as if `kmemflight attach` had drained the first @k sub-buffers
 * of every CPU into the spool directory @spool.  KB_SPLIT_GAP leaves
 * sub-buffer k-1 out of the spool; KB_SPLIT_DUP leaves it in the kernel too.
 */
enum { KB_SPLIT_OK, KB_SPLIT_GAP, KB_SPLIT_DUP };
int kb_write_split(struct kb *b, const char *dir, const char *spool,
		   unsigned int k, int mode);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libkmt: read and write kmemflight trace files.  Private to the tool.
 *
 * Every function that can fail returns 0 or a negative errno and, where
 * the caller needs to explain the failure, fills a struct kmt_err with a
 * specific message.  Nothing here prints.
 */
#ifndef KMT_H
#define KMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kmemtrace.h>

#define KMT_VERSION "0.21.0"

/* A human explanation of the last failure, for the CLI to print. */
struct kmt_err {
	char msg[512];
};

int kmt_errf(struct kmt_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- varints --------------------------------------------------------- */

/* Decode one LEB128 value; returns bytes used, 0 if truncated/overlong. */
static inline unsigned int kmt_get_uvar(const uint8_t *p, const uint8_t *end,
					uint64_t *v)
{
	uint64_t r = 0;
	unsigned int i, shift = 0;

	for (i = 0; p + i < end && i < 10; i++) {
		/* the 10th byte holds bit 63 only */
		if (i == 9 && p[i] > 1)
			return 0;
		r |= (uint64_t)(p[i] & 0x7f) << shift;
		if (!(p[i] & 0x80)) {
			*v = r;
			return i + 1;
		}
		shift += 7;
	}
	return 0;
}

/*
 * The same, faster where 8 bytes can be read at p (p + 8 <= end) on a
 * little-endian host: the 7-bit groups of up to 8 bytes are found and
 * packed without a branch per byte.  Longer values take the loop.
 */
static inline unsigned int kmt_get_uvar_fast(const uint8_t *p,
					     const uint8_t *end, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, stop;

	if (end - p >= 8) {
		__builtin_memcpy(&w, p, 8);
		stop = ~w & 0x8080808080808080ULL;
		if (stop) {
			/* keep the bytes up to the first without bit 7 */
			w &= (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7fULL;
			w = (w & 0x00ff00ff00ff00ffULL) |
			    ((w & 0xff00ff00ff00ff00ULL) >> 1);
			w = (w & 0x0000ffff0000ffffULL) |
			    ((w & 0xffff0000ffff0000ULL) >> 2);
			w = (w & 0x00000000ffffffffULL) |
			    ((w & 0xffffffff00000000ULL) >> 4);
			*v = w;
			return (unsigned int)(__builtin_ctzll(stop) >> 3) + 1;
		}
	}
#endif
	return kmt_get_uvar(p, end, v);
}

static inline int64_t kmt_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint64_t kmt_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

unsigned int kmt_put_uvar(uint8_t *p, uint64_t v);

/* ---- the file container ---------------------------------------------- */

struct kmt_sec {
	uint32_t type;
	const uint8_t *data;
	uint64_t size;
};

struct kmt_layout_info {
	bool present;
	uint8_t nr_fields;
	char name[29];
	struct kmt_field_desc fields[KMT_MAX_FIELDS];
};

struct kmt_cache {
	uint32_t id;
	uint32_t object_size;
	uint32_t size;
	uint32_t align;
	uint64_t flags;
	char name[KMT_MAX_NAME + 1];
};

struct kmt_cpu_info {
	uint32_t cpu;
	uint32_t nr_subbufs;
	uint64_t events;	/* kernel's counter */
	uint64_t lost;		/* kernel's counter */
	const uint8_t *data;	/* the sub-buffers */
	uint64_t size;
	int node;		/* from the topology, -1 if unknown */
	uint64_t buffer;	/* bytes of its kernel buffer, from the topology */
	/* from the flight section, else 0 */
	uint64_t overwritten;	/* kernel's counter */
	uint64_t frozen_dropped;	/* kernel's counter: dropped while frozen */
	uint64_t window_start, window_end;
	/*
	 * Its section is the one a cut file ends in (KMT_OPEN_TRUNCATED):
	 * data holds its sub-buffers up to the cut, the last one perhaps
	 * in part.  Read it with kmt_cursor_init_cpu().
	 */
	bool cut;
};

/* The recorder's mode and freeze at the save (KMT_SEC_FLIGHT). */
struct kmt_flight {
	bool present;		/* the file has the section */
	uint32_t mode;		/* enum kmt_mode */
	uint32_t trigger;	/* enum kmt_trigger, 0: not frozen */
	uint64_t trigger_ts, frozen_ts;
};

/*
 * Where a file shorter than its header says is cut, when it was opened
 * with KMT_OPEN_TRUNCATED (file_size 0: the file is whole).  The cut
 * falls in section @sec; the sections after it are missing.
 */
struct kmt_cut {
	uint64_t file_size;	/* what the header says; the file has len */
	uint32_t nr_sections;	/* what the header says */
	uint32_t sec;		/* the section the cut falls in */
	uint32_t type;		/* its type; 0: the cut falls in its header */
	int64_t cpu;		/* a CPU section's CPU; -1 if cut before it */
	bool events;		/* some of that CPU's events were read */
	uint64_t last_ts;	/* ... the time of the last of them */
};

struct kmt_node_range {
	int node;
	uint64_t start_pfn, end_pfn;
};

struct kmt_trace {
	/* the mapping or buffer holding the whole file */
	const uint8_t *base;
	size_t len;
	bool mapped;
	bool swap;		/* written in the other byte order */

	struct kmt_format fmt;	/* byte-swapped to native */
	struct kmt_layout_info layout[KMT_EV_MAX + 1];

	const char *meta;	/* "key=value\n" lines, not NUL-terminated */
	size_t meta_len;
	const char *kallsyms;
	size_t kallsyms_len;
	uint64_t kallsyms_stored;	/* its bytes in the file */
	bool kallsyms_zstd;		/* stored compressed */
	/* /proc/meminfo, /proc/vmstat and /proc/zoneinfo at the save, or NULL */
	const char *meminfo, *vmstat, *zoneinfo;
	size_t meminfo_len, vmstat_len, zoneinfo_len;

	struct kmt_cpu_info *cpus;
	unsigned int nr_cpus;

	struct kmt_cache *caches;	/* sorted by id */
	unsigned int nr_caches;

	struct kmt_node_range *nodes;
	unsigned int nr_nodes;
	/*
	 * From the topology of recorders that allocate buffers as CPUs come
	 * up (has_buffers): the possible CPUs, those with a buffer, and the
	 * bytes of all the buffers.
	 */
	bool has_buffers;
	unsigned int nr_possible;
	unsigned int nr_buffered;
	uint64_t buffer_bytes;

	struct kmt_gfp_name *gfp;	/* the kernel's GFP names, native */
	unsigned int nr_gfp;
	/*
	 * The flags of Linux 6.12 that its table does not name, where the
	 * trace shows their bits (kmt_gfp_format()): __GFP_SKIP_ZERO,
	 * __GFP_SKIP_KASAN, __GFP_NOLOCKDEP, __GFP_NO_OBJ_EXT.
	 */
	struct kmt_gfp_name gfp_more[4];
	unsigned int nr_gfp_more;

	struct kmt_flight flight;
	/* the tasks at the save: "pid\tcomm\tcgroup" lines, or NULL */
	const char *tasks;
	size_t tasks_len;
	/* the cgroup v2 tree at the save: "id\tpath" lines, or NULL */
	const char *cgroups;
	size_t cgroups_len;
	/* the sections stored compressed, decompressed */
	struct kmt_owned {
		void *p;
		size_t len;
	} *owned;
	unsigned int nr_owned;
	struct kmt_cut cut;
};

/*
 * The most bytes the compressed sections of a trace may decompress to,
 * in all: KMT_INFLATE_MAX, or what a test sets.
 */
#define KMT_INFLATE_MAX	((size_t)256 << 20)
extern size_t kmt_inflate_limit;

int kmt_trace_open(const char *path, struct kmt_trace *t, struct kmt_err *err);
int kmt_trace_open_mem(const void *buf, size_t len, struct kmt_trace *t,
		       struct kmt_err *err);
/*
 * The same, with KMT_OPEN_TRUNCATED: a file shorter than its header says
 * opens too, with what lies wholly before the cut (t->cut says where it
 * is).  The FORMAT section and one CPU section must be among it.
 */
#define KMT_OPEN_TRUNCATED	1u
int kmt_trace_open_flags(const char *path, unsigned int flags,
			 struct kmt_trace *t, struct kmt_err *err);
int kmt_trace_open_mem_flags(const void *buf, size_t len, unsigned int flags,
			     struct kmt_trace *t, struct kmt_err *err);
/*
 * A cut trace: "cut at 3000 of 6000 bytes, 3000 short: CPU 1's events
 * after 0.000004500 s are missing, and so are the 2 sections that
 * followed", into @buf.  false for a whole trace (buf is then "").
 */
bool kmt_trace_cut_text(const struct kmt_trace *t, char *buf, size_t size);
void kmt_trace_close(struct kmt_trace *t);

/* Value of "key" in the META section, copied into buf; false if absent. */
bool kmt_trace_meta(const struct kmt_trace *t, const char *key, char *buf,
		    size_t size);
const struct kmt_cache *kmt_trace_cache(const struct kmt_trace *t, uint32_t id);
/* The cache of that name, NULL if the trace defines none. */
const struct kmt_cache *kmt_trace_cache_named(const struct kmt_trace *t,
					      const char *name);
/* The bits the kernel's GFP table names @name ("__GFP_DMA"), 0 if none. */
uint64_t kmt_trace_gfp_mask(const struct kmt_trace *t, const char *name);
/*
 * A cache's one name in every view: the trace's name for cache id @cache;
 * "cache#N" for an id it does not define; with @cache 0, kmalloc objects
 * of @size bytes that no cache of the trace holds, named as the kernel
 * names its kmalloc sizes ("kmalloc-96", "kmalloc-4k", "kmalloc-2M").
 */
void kmt_cache_name(const struct kmt_trace *t, uint32_t cache, uint64_t size,
		    char *buf, size_t len);
/* "96", "4k", "2M": the kernel's short name of a kmalloc size. */
void kmt_kmalloc_size_name(uint64_t size, char *buf, size_t len);
/*
 * Bytes of the recorder's buffers the page allocator gave: the pool, else
 * what the topology says each CPU had, else nr_subbufs for every CPU; 0
 * for a pool in a reserve_mem= region (META pool=region), which is
 * memblock's.
 */
uint64_t kmt_trace_buffer_bytes(const struct kmt_trace *t);
/*
 * The kernel's totals at the save, in bytes: a /proc/meminfo line
 * ("MemFree", its kB times 1024) or a /proc/vmstat counter ("nr_slab_
 * unreclaimable_B" as is, others times the page size).  false when the
 * file has no such line, or no such section.
 */
bool kmt_trace_meminfo(const struct kmt_trace *t, const char *name,
		       uint64_t *bytes);
bool kmt_trace_vmstat(const struct kmt_trace *t, const char *name,
		      uint64_t *bytes);
/*
 * The free pages on the per-CPU page lists at the save, in bytes: the
 * sum of the "count:" lines of /proc/zoneinfo.  false without it.
 */
bool kmt_trace_pcp_free(const struct kmt_trace *t, uint64_t *bytes);
/*
 * A trace that did not come from the kmemtrace recorder (ftrace, perf):
 * one sentence on what its source could not see, into @buf.  Returns
 * true for such a trace, false for a recorder trace (buf is then "").
 */
bool kmt_trace_coverage(const struct kmt_trace *t, char *buf, size_t size);
/* NUMA node of a physical frame, -1 if unknown. */
int kmt_trace_pfn_node(const struct kmt_trace *t, uint64_t pfn);

/*
 * Name GFP flags like the recording kernel: "GFP_KERNEL|__GFP_ZERO", the
 * bits no name covers in hex, "none" for 0; hex alone when the trace
 * carries no names.  A Linux 6.12 trace's bits of the flags its kernel's
 * table leaves out are named after the table's (t->gfp_more), so that
 * every flag 6.12 defines has its name.  Returns the length written
 * (truncated to size).
 */
size_t kmt_gfp_format(const struct kmt_trace *t, uint64_t gfp, char *buf,
		      size_t size);

/*
 * "success", "skipped": the kernel's name of a KMT_F_STATUS value (enum
 * kmt_compact_status), "unknown" for 0 or a value past the table.
 */
const char *kmt_compact_status_name(uint32_t status);

/*
 * "reserve", "alloc", "free_area": the name of a KMT_F_MB_OP value (enum
 * kmt_memblock_op), "unknown" for a value past the table.
 */
const char *kmt_memblock_op_name(uint32_t op);
const char *kmt_task_op_name(uint32_t op);
/* "oom", "page_alloc_fail": a KMT_F_TRIGGER value's name, "unknown" past the table. */
const char *kmt_trigger_name(uint32_t trigger);
/* "boot", "flight"; "unknown" past them. */
const char *kmt_mode_name(uint32_t mode);

/* More CPU ids than any kernel has (NR_CPUS tops out at 8192 today). */
#define KMT_MAX_CPU_IDS		65536u

/* The first version of struct kmt_format, without the GFP names. */
#define KMT_FORMAT_MIN_SIZE	72

/* Parse a format description (struct kmt_format + layouts). */
int kmt_format_parse(const uint8_t *p, size_t len, bool swap,
		     struct kmt_format *fmt,
		     struct kmt_layout_info layout[KMT_EV_MAX + 1],
		     struct kmt_err *err);

/* ---- events ---------------------------------------------------------- */

/* Bits of kmt_event.has */
#define KMT_HAS(f)	(1ull << (f))
/*
 * Bit 0 (no field has id 0): an allocation recorded through a wrapper
 * (KMT_EV_KMALLOC_VIA, KMT_EV_CACHE_ALLOC_VIA).  The cursor gives it the
 * base type, call_site the first frame outside the wrappers and via the
 * wrapper's call site.
 */
#define KMT_HAS_VIA	1ull

struct kmt_event {
	uint64_t ts;
	uint32_t cpu;
	uint8_t type;
	uint8_t ctx;
	uint32_t pid;		/* valid when ctx == KMT_CTX_TASK */
	uint64_t has;		/* KMT_HAS(KMT_F_xxx) for each field seen */
	uint64_t call_site;
	uint64_t ptr;
	uint64_t bytes_req;
	uint64_t bytes_alloc;
	uint64_t gfp;
	int64_t node;
	uint32_t cache;
	uint64_t pfn1;		/* pfn + 1, 0 for a failed page allocation */
	uint32_t order;
	int32_t migratetype;
	uint32_t mark;
	uint32_t trigger;	/* KMT_MARK_FROZEN: enum kmt_trigger */
	int32_t ret;		/* an initcall's return value */
	uint32_t obj_size, size, align;
	uint64_t flags;
	const char *name;	/* not NUL-terminated */
	uint32_t name_len;
	const uint8_t *stack;	/* page allocation: TEXT varints */
	uint32_t stack_len;
	/* the latency groups' events */
	const char *comm;	/* not NUL-terminated */
	uint32_t comm_len;
	uint32_t priority;
	uint64_t nr_reclaimed, nr_scanned;
	uint32_t file;
	uint64_t func;		/* a shrinker's scan_objects() */
	uint64_t shrinker;
	uint64_t cache_items, total_scan;
	int64_t freed;
	uint64_t zone_start, zone_end, migrate_pfn, free_pfn;
	uint32_t sync, status;
	uint32_t groups;	/* bits of enum kmt_group */
	/* memblock: enum kmt_memblock_op, the range; flags, node, call_site */
	uint32_t mb_op;
	uint64_t phys, length;
	uint64_t nr_kept, nr_dropped, capacity;	/* KMT_EV_MEMBLOCK_EARLY */
	uint64_t pg_kept, pg_dropped;		/* ... its page events */
	uint32_t buf_cpu;	/* KMT_EV_BUFFER: whose buffer */
	uint64_t via;		/* KMT_HAS_VIA: the wrapper's call site */
	uint64_t vaddr;		/* KMT_EV_VMALLOC: the area (op in mb_op) */
	uint64_t nr_pages;
	uint32_t kind;		/* KMT_EV_TEXT_RANGE: enum kmt_text_kind */
	/* KMT_EV_TASK: enum kmt_task_op, the task, its parent, its names */
	uint32_t task_op;
	uint32_t task_pid, ppid;
	const char *filename;	/* not NUL-terminated */
	uint32_t filename_len;
	const char *cgroup;	/* not NUL-terminated */
	uint32_t cgroup_len;
	uint64_t cgroup_id;	/* KMT_F_CGROUP_ID, 0: none */
};

/* Walks one CPU's sub-buffers record by record. */
struct kmt_cursor {
	const struct kmt_trace *t;
	const struct kmt_format *fmt;
	const struct kmt_layout_info *layout;
	bool swap;
	uint32_t cpu;
	const uint8_t *p, *end;		/* remaining sub-buffers */
	const uint8_t *sb;		/* the current sub-buffer */
	const uint8_t *rp, *rend;	/* its records */
	uint64_t now;
	uint32_t next_seq;
	bool first;
	uint64_t lost_before;		/* from the current sub-buffer */
	uint64_t nr_subbufs;
	bool fixed;			/* ABI 2: fixed-width records */
	uint32_t pid;			/* ABI 2: of the last record with one */
	bool have_pid;			/* ... in this sub-buffer */
	uint32_t fast;			/* types with the known layout */
	bool pext;			/* decode them with BMI2 pext */
	uintptr_t released;		/* mapped pages given back below */
	bool cut;			/* the data ends at a file's cut */
	bool tail;			/* ... in the current sub-buffer */
};

/* Block decoders of the hot records: both give the same events. */
enum { KMT_DECODE_PORTABLE, KMT_DECODE_PEXT };
/*
 * Choose the decoder for the cursors made from now on (-1: keep the
 * choice, which defaults to pext where the CPU has a fast one); returns
 * the decoder in use.  For tests and benchmarks.
 */
int kmt_cursor_decoder(int which);

void kmt_cursor_init(struct kmt_cursor *c, const struct kmt_format *fmt,
		     const struct kmt_layout_info *layout, bool swap,
		     uint32_t cpu, const uint8_t *data, uint64_t size);
/*
 * The cursor of a trace's CPU (t->cpus[@i]).  For the CPU a cut file
 * ends in, the sub-buffer the cut falls in gives the records before the
 * first that does not decode (one the cut runs through), then the end.
 */
void kmt_cursor_init_cpu(struct kmt_cursor *c, const struct kmt_trace *t,
			 unsigned int i);
/* On a mapped trace: drop the pages read so far as the cursor goes. */
void kmt_cursor_release_pages(struct kmt_cursor *c);
/* 1 with *ev filled, 0 at the end, or -EBADMSG with err set. */
int kmt_cursor_next(struct kmt_cursor *c, struct kmt_event *ev,
		    struct kmt_err *err);

/* All CPUs' events merged in time order. */
struct kmt_merge {
	unsigned int n;
	struct kmt_cursor *cur;
	struct kmt_event *ev;		/* each CPU's next event */
	unsigned int *heap;		/* CPUs with events, earliest first */
	unsigned int nr_heap;
};

int kmt_merge_init(struct kmt_merge *m, const struct kmt_trace *t,
		   struct kmt_err *err);
int kmt_merge_next(struct kmt_merge *m, struct kmt_event *ev,
		   struct kmt_err *err);
void kmt_merge_free(struct kmt_merge *m);

/*
 * Move the addresses of one CPU's sub-buffers (@data, @size, the
 * recorder's output) to bases lower by @dtext and @ddmap: the addresses
 * escaped in ABI 2 records are rewritten in place (the others are
 * offsets from the bases in the format, which the caller changes).
 * 0, or -EBADMSG with err set if a record cannot be decoded.
 */
int kmt_records_rebase(const struct kmt_format *fmt,
		       const struct kmt_layout_info *layout, bool swap,
		       uint32_t cpu, uint8_t *data, uint64_t size,
		       uint64_t dtext, uint64_t ddmap, struct kmt_err *err);

/* Validate every record of every CPU; fills counts per CPU if asked. */
int kmt_trace_count(const struct kmt_trace *t, uint64_t *per_cpu,
		    struct kmt_err *err);
/*
 * The same, and the earliest and the latest time of any record (not the
 * first and last of a CPU: a CPU's clock can step back); with no record,
 * *first is UINT64_MAX and *last 0.
 */
int kmt_trace_span(const struct kmt_trace *t, uint64_t *per_cpu,
		   uint64_t *first, uint64_t *last, struct kmt_err *err);

/* ---- encoding events (traces from ftrace and perf) -------------------- */

/* Longest record the encoder writes, and longest string field. */
#define KMT_ENC_MAX_STR		255
#define KMT_ENC_MAX_RECORD	(1 + 10 + 4 + KMT_MAX_FIELDS * 12 + 2 + KMT_ENC_MAX_STR)

struct kmt_enc_cpu {
	uint8_t *buf;		/* the CPU's sub-buffers */
	size_t len, cap;
	size_t sb;		/* offset of the open sub-buffer, SIZE_MAX if none */
	uint32_t seq;		/* sub-buffers opened */
	uint64_t prev_ts;
	uint32_t pid;		/* the pid the open sub-buffer last wrote */
	bool have_pid;
	uint64_t events;	/* encoded */
	uint64_t lost;		/* reported with kmt_encoder_lost() */
};

/*
 * Writes events as the kernel recorder does (ABI 2, the recorder's
 * layouts, native sub-buffer headers), into per-CPU sub-buffers in
 * memory.  Addresses are encoded against @text_base and @dmap_base; one
 * that is far from them costs an escape, never a wrong value.
 */
struct kmt_encoder {
	struct kmt_enc_cpu *cpu;
	uint32_t nr_cpus;
	uint32_t subbuf_size;
	uint64_t text_base, dmap_base;
	unsigned int page_shift;
	struct kmt_gfp_name *gfp;
	unsigned int nr_gfp;
};

int kmt_encoder_init(struct kmt_encoder *e, uint32_t nr_cpu_ids,
		     uint32_t subbuf_size, uint64_t text_base,
		     uint64_t dmap_base, unsigned int page_shift);
void kmt_encoder_free(struct kmt_encoder *e);
/* A GFP name for the format's table, in the kernel's order. */
int kmt_encoder_add_gfp_name(struct kmt_encoder *e, uint64_t mask,
			     const char *name);
/*
 * Append @ev (type, cpu, ts, ctx, pid and the fields of its layout;
 * name and stack where the layout has them) to its CPU.  0, -EINVAL for
 * an event the recorder's layouts cannot hold, -E2BIG, -ENOMEM.
 */
int kmt_encode(struct kmt_encoder *e, const struct kmt_event *ev);
/* @n events of @cpu were lost here: counted in its next sub-buffer. */
int kmt_encoder_lost(struct kmt_encoder *e, uint32_t cpu, uint64_t n);
/* Return addresses, innermost first, as a KMT_F_STACK string. */
size_t kmt_encode_stack(const struct kmt_encoder *e, const uint64_t *frames,
			unsigned int nr, uint8_t *out, size_t size);
/* A CPU's sub-buffers, the open one closed; NULL for a bad cpu. */
const struct kmt_enc_cpu *kmt_encoder_cpu(struct kmt_encoder *e, uint32_t cpu);
/* The KMT_SEC_FORMAT payload describing what was encoded (malloc'd). */
int kmt_encoder_format(const struct kmt_encoder *e, const char *clock,
		       uint8_t **out, size_t *len);

/* ---- perf.data (perf kmem record) --------------------------------- */

struct kmt_perf_attr {
	uint32_t type;
	uint64_t config;		/* the tracepoint id, for tracepoints */
	uint64_t sample_type;
	uint64_t read_format;
	bool sample_id_all;
};

struct kmt_perf {
	const uint8_t *base;
	size_t len;
	struct kmt_perf_attr *attrs;
	uint32_t nr_attrs;
	uint64_t *ids;			/* sample id -> attribute */
	uint32_t *id_attr;
	size_t nr_ids;
	const uint8_t *data;
	uint64_t data_size;
	const uint8_t *tracing;		/* HEADER_TRACING_DATA */
	uint64_t tracing_size;
	char build_id[41];		/* the kernel's, hex, "" if none */
	char release[128];
	char hostname[128];
	uint32_t nr_cpus_avail;
};

enum { KMT_PERF_SAMPLE = 1, KMT_PERF_LOST = 2 };

struct kmt_perf_sample {
	int kind;			/* KMT_PERF_SAMPLE or KMT_PERF_LOST */
	uint32_t attr;			/* index in attrs */
	uint64_t ip, time;
	uint32_t pid, tid;
	uint32_t cpu;			/* UINT32_MAX if not recorded */
	const uint8_t *callchain;	/* nr_callchain u64s, unaligned */
	uint32_t nr_callchain;
	const uint8_t *raw;		/* the tracepoint's record */
	uint32_t raw_size;
	uint64_t lost;			/* KMT_PERF_LOST: events lost */
};

struct kmt_perf_format {
	const char *system;		/* NUL-terminated, in the file */
	const char *text;		/* the event's format file */
	size_t len;
};

struct kmt_perf_tracing {
	char version[16];
	uint8_t big_endian, long_size;
	uint32_t page_size;
	struct kmt_perf_format *formats;
	unsigned int nr_formats;
	const char *kallsyms;		/* /proc/kallsyms at record time */
	size_t kallsyms_len;
};

/* Check the header, attributes and features of a perf.data in memory. */
int kmt_perf_open_mem(struct kmt_perf *p, const void *buf, size_t len,
		      struct kmt_err *err);
void kmt_perf_close(struct kmt_perf *p);
/* The next sample or lost-events record from *off: 1, 0 at the end. */
int kmt_perf_next(const struct kmt_perf *p, uint64_t *off,
		  struct kmt_perf_sample *s, struct kmt_err *err);
/* The event formats and kallsyms of the tracing data feature. */
int kmt_perf_tracing(const struct kmt_perf *p, struct kmt_perf_tracing *t,
		     struct kmt_err *err);
void kmt_perf_tracing_free(struct kmt_perf_tracing *t);

/* ---- symbols --------------------------------------------------------- */

struct kmt_sym {
	uint64_t addr;
	const char *name;
	uint32_t name_len;
	bool global;		/* preferred when two share an address */
};

struct kmt_symtab {
	struct kmt_sym *syms;
	size_t nr;
	/* trace address - symbol address: a KASLR boot against a vmlinux */
	int64_t slide;
	/* file:line of a (symbol-space) address, if the source knows it */
	int (*line)(void *ctx, uint64_t addr, char *buf, size_t size);
	void *line_ctx;
};

int kmt_symtab_load(struct kmt_symtab *st, const char *text, size_t len);
void kmt_symtab_free(struct kmt_symtab *st);
const struct kmt_sym *kmt_symtab_find(const struct kmt_symtab *st,
				      uint64_t addr);
/* Sort the symbols and keep them (after filling syms by hand). */
void kmt_symtab_sort(struct kmt_symtab *st);
/* "sym+0xoff" or "0xaddr" into buf, then " (file:line)" if known. */
void kmt_symtab_format(const struct kmt_symtab *st, uint64_t addr, bool raw,
		       char *buf, size_t size);

/* ---- the previous boot's sub-buffers (tracefs kmemtrace/previous/data) */

/* One CPU's run in previous/data. */
struct kmt_prev_cpu {
	uint32_t cpu;
	uint32_t nr_subbufs;
	uint64_t lost;		/* when its last sub-buffer opened */
	size_t off, size;	/* of its sub-buffers in the data */
};

/*
 * Split previous/data (@size bytes) into its CPUs' runs, checking every
 * sub-buffer header: *@out (malloc()ed) gets *@nr of them.  -EBADMSG for
 * a header that is not one, a CPU out of order, a cut at the end.
 */
int kmt_previous_split(const uint8_t *data, size_t size, uint32_t subbuf_size,
		       struct kmt_prev_cpu **out, unsigned int *nr,
		       struct kmt_err *err);
/*
 * The bytes of @c's run that decode: all of it, or up to the first
 * sub-buffer with a record that does not; *@nr_subbufs gets how many
 * sub-buffers that is.
 */
uint64_t kmt_previous_whole(const struct kmt_format *fmt,
			    const struct kmt_layout_info *layout,
			    const struct kmt_prev_cpu *c, const uint8_t *data,
			    uint32_t *nr_subbufs);

/* ---- writing --------------------------------------------------------- */

/* write() all of @buf, across short writes and EINTR; 0 or -errno. */
int kmt_write_all(int fd, const void *buf, size_t len);

struct kmt_writer {
	int fd;
	uint64_t off;
	uint32_t nr_sections;
	char *tmp_path;
	char *path;
};

/* 0 if @path may be replaced by a trace: absent, a file or a symlink. */
int kmt_writer_check(const char *path, struct kmt_err *err);
int kmt_writer_open(struct kmt_writer *w, const char *path, struct kmt_err *err);
int kmt_writer_section(struct kmt_writer *w, uint32_t type, const void *data,
		       uint64_t size, struct kmt_err *err);
/* Two-part section: a small header then a payload, no copy. */
int kmt_writer_section2(struct kmt_writer *w, uint32_t type,
			const void *head, uint64_t head_size,
			const void *data, uint64_t size, struct kmt_err *err);
/*
 * A section stored as one zstd frame (KMT_SECTION_ZSTD) at
 * KMT_ZSTD_LEVEL, with its content size and checksum; as it is when
 * under KMT_ZSTD_MIN bytes or over KMT_INFLATE_MAX, or when compressing
 * would not shrink it.
 */
#define KMT_ZSTD_LEVEL	3
#define KMT_ZSTD_MIN	4096
int kmt_writer_section_zstd(struct kmt_writer *w, uint32_t type,
			    const void *data, uint64_t size, struct kmt_err *err);
/* fsync, rename over the target, fsync the directory. */
int kmt_writer_commit(struct kmt_writer *w, struct kmt_err *err);
/* Remove the temporary file; the target is untouched. */
void kmt_writer_abort(struct kmt_writer *w);

#endif /* KMT_H */

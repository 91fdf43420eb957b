/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kmemtrace: boot-time kernel memory flight recorder, trace format.
 *
 * This header is the one definition of the format, shared by the kernel
 * recorder (mm/kmemtrace/) and the user-space tool (kmemflight).  The
 * written specification is Documentation/trace/kmemtrace-format.rst.
 *
 * Three layers:
 *
 *  1. Records: a one-byte header, a 16-bit time delta, an optional pid and
 *     the event's fields, each of a fixed width given by its encoding
 *     (a value too wide for its slot follows it in full).  Multi-byte
 *     fields are little endian, so records are the same on every
 *     architecture.  ABI 1 wrote LEB128 varints instead; readers still
 *     read both.
 *  2. Sub-buffers: a fixed &struct kmt_subbuf_header followed by whole
 *     records.  The kernel writes them per CPU and user space reads them
 *     whole; the header is in the writer's native byte order.
 *  3. The kmemflight file (.kmt): a &struct kmt_file_header, then
 *     sections (&struct kmt_section), among them the kernel's format
 *     description and each CPU's sub-buffers, copied unchanged.
 *
 * Every integer in the binary headers is in the byte order of the machine
 * that wrote it; readers find it from the magic numbers.
 */
#ifndef _UAPI_LINUX_KMEMTRACE_H
#define _UAPI_LINUX_KMEMTRACE_H

#include <linux/types.h>

/*
 * Bumped when a change breaks readers; new event types or fields do not.
 * ABI 1: varint records.  ABI 2: fixed-width records, elided pids.
 */
#define KMT_ABI_VERSION		2

/* Bytes "KMTF" on little endian, "FTMK" on big endian. */
#define KMT_FORMAT_MAGIC	0x46544d4bU
/* Bytes "KMSB" on little endian: tags every sub-buffer header. */
#define KMT_SUBBUF_MAGIC	0x42534d4bU

/* ---- Layer 1: records ------------------------------------------------- */

/*
 * Record header byte: bits 0-4 event type, bits 5-6 context, bit 7 set
 * when a pid follows the time field (ABI 2; in ABI 1: when the time
 * field is an absolute timestamp instead of a delta).
 */
#define KMT_HDR_TYPE_MASK	0x1f
#define KMT_HDR_CTX_SHIFT	5
#define KMT_HDR_CTX_MASK	0x3
#define KMT_HDR_PID		0x80
#define KMT_HDR_ABS_TIME	0x80	/* ABI 1 */

/*
 * ABI 2 time field: a u16 delta from the previous record of the
 * sub-buffer (from base_ts for its first record), or KMT_TIME_ABS and
 * then the u64 absolute time.
 *
 * ABI 2 pid: a u32 after the time field when the header has KMT_HDR_PID.
 * Only task-context records have a pid; one without KMT_HDR_PID has the
 * pid of the task-context record before it in the same sub-buffer.  The
 * first task-context record of every sub-buffer carries its pid.
 */
#define KMT_TIME_ABS		0xffff

/* Context the event happened in; a pid field follows only for TASK. */
enum kmt_ctx {
	KMT_CTX_TASK	= 0,
	KMT_CTX_SOFTIRQ	= 1,
	KMT_CTX_HARDIRQ	= 2,
	KMT_CTX_NMI	= 3,
};

/* Event types.  0 is never written; numbers are never reused. */
enum kmt_event_type {
	KMT_EV_KMALLOC		= 1,
	KMT_EV_CACHE_ALLOC	= 2,
	KMT_EV_KFREE		= 3,
	KMT_EV_CACHE_FREE	= 4,
	KMT_EV_PAGE_ALLOC	= 5,
	KMT_EV_PAGE_FREE	= 6,
	KMT_EV_PAGE_FREE_BATCHED = 7,
	KMT_EV_CACHE_DEF	= 8,	/* a kmem_cache and its id */
	KMT_EV_CACHE_DESTROY	= 9,
	KMT_EV_MARK		= 10,	/* recording on/off */
	KMT_EV_INITCALL_LEVEL	= 11,	/* do_initcalls() enters a level */
	KMT_EV_INITCALL_START	= 12,	/* an initcall starts ... */
	KMT_EV_INITCALL_FINISH	= 13,	/* ... and returns */
	KMT_EV_INIT_EXEC	= 14,	/* pid 1 execs: /init, then the real init */
	/* Group "reclaim": direct reclaim, the inactive LRU, shrinkers */
	KMT_EV_RECLAIM_BEGIN	= 15,	/* an allocation enters direct reclaim */
	KMT_EV_RECLAIM_END	= 16,
	KMT_EV_LRU_SHRINK_INACTIVE = 17, /* an inactive list was shrunk */
	KMT_EV_SHRINK_START	= 18,	/* a shrinker is called ... */
	KMT_EV_SHRINK_END	= 19,	/* ... and returns */
	/* Group "compaction" */
	KMT_EV_COMPACT_TRY	= 20,	/* an allocation enters direct compaction */
	KMT_EV_COMPACT_BEGIN	= 21,	/* one zone is compacted ... */
	KMT_EV_COMPACT_END	= 22,	/* ... to here */
	KMT_EV_GROUPS		= 23,	/* the event groups recorded from now */
	/* Group "kmem", before and after the buddy allocator exists */
	KMT_EV_MEMBLOCK		= 24,	/* enum kmt_memblock_op */
	KMT_EV_MEMBLOCK_EARLY	= 25,	/* the early memblock and page events, counted */
	KMT_EV_BUFFER		= 26,	/* a sub-buffer's pages: the recorder's */
	/* an allocation whose call_site is in a wrapper, and its stack */
	KMT_EV_KMALLOC_VIA	= 27,
	KMT_EV_CACHE_ALLOC_VIA	= 28,
	KMT_EV_VMALLOC		= 29,	/* enum kmt_vmalloc_op */
	KMT_EV_TEXT_RANGE	= 30,	/* enum kmt_text_kind: a function */
	/*
	 * Group "boot": a task is made, execs, is renamed or moves to
	 * another cgroup (enum kmt_task_op).  The last number the 5-bit
	 * type holds: a type beyond it needs a new record header (a new
	 * ABI), so later kinds of event go into records with an op field.
	 */
	KMT_EV_TASK		= 31,
	KMT_EV_MAX		= 31,
};

/*
 * Event groups, selected with kmemtrace.events= and tracefs
 * kmemtrace/events; a KMT_EV_GROUPS record holds them as bits.
 */
enum kmt_group {
	KMT_GROUP_KMEM		= 0,	/* slab and page allocator events */
	KMT_GROUP_BOOT		= 1,	/* initcalls, execs of pid 1, tasks */
	KMT_GROUP_RECLAIM	= 2,
	KMT_GROUP_COMPACTION	= 3,
	KMT_NR_GROUPS		= 4,
};

/*
 * Outcome of a zone's compaction (KMT_F_STATUS): the kernel's
 * enum compact_result, in numbers that do not change with it.
 */
enum kmt_compact_status {
	KMT_COMPACT_UNKNOWN		= 0,	/* a result this table lacks */
	KMT_COMPACT_NOT_SUITABLE_ZONE	= 1,
	KMT_COMPACT_SKIPPED		= 2,
	KMT_COMPACT_DEFERRED		= 3,
	KMT_COMPACT_NO_SUITABLE_PAGE	= 4,
	KMT_COMPACT_CONTINUE		= 5,
	KMT_COMPACT_COMPLETE		= 6,
	KMT_COMPACT_PARTIAL_SKIPPED	= 7,
	KMT_COMPACT_CONTENDED		= 8,
	KMT_COMPACT_SUCCESS		= 9,
};

/*
 * What a KMT_EV_MEMBLOCK record did (KMT_F_MB_OP).  ADD and REMOVE
 * change the RAM memblock knows, RESERVE and ALLOC reserve a range of it
 * (ALLOC: one memblock chose), FREE gives a reserved range back to
 * memblock; FREE_LATE (memblock_free_late()) and FREE_AREA
 * (free_reserved_area(): the init sections, the initrd) give reserved
 * memory to the buddy allocator after memblock handed over to it.
 */
enum kmt_memblock_op {
	KMT_MB_ADD		= 1,
	KMT_MB_REMOVE		= 2,
	KMT_MB_RESERVE		= 3,
	KMT_MB_ALLOC		= 4,
	KMT_MB_FREE		= 5,
	KMT_MB_FREE_LATE	= 6,
	KMT_MB_FREE_AREA	= 7,
};

/* What a KMT_EV_VMALLOC record did (KMT_F_MB_OP). */
enum kmt_vmalloc_op {
	KMT_VM_ALLOC		= 1,	/* __vmalloc_node_range(): a new area */
	KMT_VM_FREE		= 2,	/* vfree(): the area and its pages */
};

/*
 * What a KMT_EV_TEXT_RANGE record names (KMT_F_KIND).  WRAPPER: an
 * out-of-line function that allocates for its caller without passing the
 * caller's address down, so the kmem tracepoints name it as the call
 * site.  An allocation whose call_site is inside one is written as
 * KMT_EV_KMALLOC_VIA or KMT_EV_CACHE_ALLOC_VIA, with a stack: the return
 * addresses after call_site, out to the first one outside every wrapper.
 */
enum kmt_text_kind {
	KMT_TEXT_WRAPPER	= 1,
};

/*
 * What a KMT_EV_TASK record says of task @pid (KMT_F_TASK_OP); the
 * record's own pid is the task that did it.
 *
 * NEW: @pid was forked by @ppid (a process or a thread; its comm and
 * cgroup are its parent's, unless @cgroup_id says otherwise).  EXEC: @pid
 * executed @filename and is now @comm, in cgroup @cgroup_id.  RENAME:
 * @pid is now @comm (prctl(PR_SET_NAME), /proc/PID/comm, a kernel thread
 * naming itself).  CGROUP: @pid moved to @cgroup (@cgroup_id), with its
 * threads when @ppid is 1 (a whole thread group).  MKDIR: task @pid, now
 * @comm, made cgroup @cgroup_id at @cgroup.
 *
 * @cgroup is a path in the cgroup v2 hierarchy
 * ("/system.slice/systemd-udevd.service"), empty without one; @cgroup_id
 * is that cgroup's id (its directory's inode number on 64-bit kernels),
 * 0 without one.  Ids are never reused.  A reader names the id of a NEW
 * or EXEC record from the MKDIR and CGROUP records before it and from the
 * cgroups at the save (KMT_SEC_CGROUPS).  Recorders before the id (a
 * layout without KMT_F_CGROUP_ID) wrote the path in NEW and EXEC.
 */
enum kmt_task_op {
	KMT_TASK_NEW		= 1,
	KMT_TASK_EXEC		= 2,
	KMT_TASK_RENAME		= 3,
	KMT_TASK_CGROUP		= 4,
	KMT_TASK_MKDIR		= 5,
};

/*
 * How a field is encoded after the record header.  In the fixed-width
 * encodings (ABI 2, little endian), a slot holding its escape value is
 * followed by the field's full value as a u64: "X" marks those.
 */
enum kmt_enc {
	KMT_ENC_UVAR	= 1,	/* ABI 1: unsigned LEB128 */
	KMT_ENC_SVAR	= 2,	/* ABI 1: zigzag signed LEB128 */
	KMT_ENC_TEXT	= 3,	/* ABI 1: zigzag LEB128 of (addr - text_base) */
	KMT_ENC_DMAP	= 4,	/* ABI 1: zigzag LEB128 of (addr - direct_map_base) */
	KMT_ENC_STR	= 5,	/* unsigned LEB128 length, then bytes, no NUL */
	KMT_ENC_U8X	= 6,	/* u8, escape 0xff */
	KMT_ENC_U16X	= 7,	/* u16, escape 0xffff */
	KMT_ENC_U24X	= 8,	/* 3 bytes, escape 0xffffff */
	KMT_ENC_U32X	= 9,	/* u32, escape 0xffffffff */
	KMT_ENC_S8X	= 10,	/* s8, escape -128 */
	KMT_ENC_S32	= 11,	/* s32, no escape */
	KMT_ENC_TEXT32	= 12,	/* s32 of (addr - text_base), escape INT32_MIN */
	KMT_ENC_DMAP32	= 13,	/* u32 of (addr - direct_map_base) / 8 */
};

/* A DMAP32 slot holding address 0; 0xffffffff is its escape. */
#define KMT_DMAP32_NULL		0xfffffffeU

/* What a field means.  A reader skips fields it does not know. */
enum kmt_field_id {
	KMT_F_CALL_SITE		= 1,	/* return address of the caller */
	KMT_F_PTR		= 2,	/* object address */
	KMT_F_BYTES_REQ		= 3,	/* bytes requested */
	KMT_F_BYTES_SLACK	= 4,	/* bytes_alloc - bytes_req */
	KMT_F_GFP		= 5,	/* gfp_t flags as unsigned */
	KMT_F_NODE		= 6,	/* requested node, -1 = any */
	KMT_F_CACHE		= 7,	/* cache id (KMT_EV_CACHE_DEF) */
	KMT_F_PFN1		= 8,	/* pfn + 1; 0 = allocation failed */
	KMT_F_ORDER		= 9,
	KMT_F_MIGRATETYPE	= 10,
	KMT_F_OBJ_SIZE		= 11,	/* kmem_cache object_size */
	KMT_F_SIZE		= 12,	/* kmem_cache size (with metadata) */
	KMT_F_ALIGN		= 13,
	KMT_F_FLAGS		= 14,	/* slab_flags_t */
	KMT_F_NAME		= 15,
	KMT_F_MARK		= 16,	/* enum kmt_mark */
	KMT_F_RET		= 17,	/* an initcall's return value */
	KMT_F_STACK		= 18,	/* STR: return addresses, TEXT varints */
	KMT_F_COMM		= 19,	/* STR: the task's comm */
	KMT_F_NR_RECLAIMED	= 20,	/* pages reclaimed */
	KMT_F_NR_SCANNED	= 21,	/* pages scanned */
	KMT_F_PRIORITY		= 22,	/* reclaim or compaction priority */
	KMT_F_FILE		= 23,	/* 1: the file LRU, 0: anon */
	KMT_F_FUNC		= 24,	/* a shrinker's scan_objects() */
	KMT_F_SHRINKER		= 25,	/* the struct shrinker's address */
	KMT_F_CACHE_ITEMS	= 26,	/* objects the shrinker counted */
	KMT_F_TOTAL_SCAN	= 27,	/* objects to scan (left, at the end) */
	KMT_F_FREED		= 28,	/* objects the shrinker freed */
	KMT_F_ZONE_START	= 29,	/* pfn */
	KMT_F_ZONE_END		= 30,	/* pfn */
	KMT_F_MIGRATE_PFN	= 31,	/* compaction's migration scanner */
	KMT_F_FREE_PFN		= 32,	/* compaction's free scanner */
	KMT_F_SYNC		= 33,	/* 1: sync compaction, 0: async */
	KMT_F_STATUS		= 34,	/* enum kmt_compact_status */
	KMT_F_GROUPS		= 35,	/* bits of enum kmt_group */
	KMT_F_MB_OP		= 36,	/* enum kmt_memblock_op (kmt_vmalloc_op) */
	KMT_F_PHYS		= 37,	/* physical address */
	KMT_F_LENGTH		= 38,	/* bytes of a physical range */
	KMT_F_NR_KEPT		= 39,	/* early events kept, then recorded */
	KMT_F_NR_DROPPED	= 40,	/* early events that did not fit */
	KMT_F_CAPACITY		= 41,	/* entries of the early array */
	KMT_F_CPU		= 42,	/* a CPU number */
	KMT_F_VADDR		= 43,	/* a virtual address outside the direct map */
	KMT_F_NR_PAGES		= 44,	/* pages */
	KMT_F_KIND		= 45,	/* enum kmt_text_kind */
	KMT_F_PG_KEPT		= 46,	/* early page events kept, then recorded */
	KMT_F_PG_DROPPED	= 47,	/* early page events that did not fit */
	KMT_F_TASK_OP		= 48,	/* enum kmt_task_op */
	KMT_F_TASK_PID		= 49,	/* the task a record is about */
	KMT_F_PPID		= 50,	/* its parent (KMT_TASK_NEW) */
	KMT_F_FILENAME		= 51,	/* STR: what a task executed */
	KMT_F_CGROUP		= 52,	/* STR: a cgroup v2 path */
	KMT_F_TRIGGER		= 53,	/* enum kmt_trigger */
	KMT_F_CGROUP_ID		= 54,	/* a cgroup v2 id, 0: none */
	KMT_F_MAX		= 63,
};

/*
 * What a KMT_EV_MARK record marks.  FROZEN is the trigger's record,
 * written as it froze the recorder, with the trigger's fields (each CPU
 * may still write into the sub-buffer it has open); the other marks
 * leave those fields 0 and empty.  Between ATTACHING and ATTACHED, what
 * the task that wrote ATTACHING allocates (the tracepoints' probe
 * arrays) is the recorder's: freed when its probes detach, after they
 * stopped recording.  ATTACHED ends that whether or not every probe
 * attached; the two may be in different CPUs' records.
 */
enum kmt_mark {
	KMT_MARK_RECORDING_ON	= 1,	/* recording (re)started */
	KMT_MARK_RECORDING_OFF	= 2,	/* recording stopped */
	KMT_MARK_FROZEN		= 3,	/* a trigger froze the recorder */
	KMT_MARK_ARMED		= 4,	/* recording again after a freeze */
	KMT_MARK_FLIGHT		= 5,	/* from here: round-robin (flight mode) */
	KMT_MARK_BOOT		= 6,	/* from here: drop when full (boot mode) */
	KMT_MARK_ATTACHING	= 7,	/* the probes attach: see above */
	KMT_MARK_ATTACHED	= 8,	/* ... to here */
};

/*
 * How a CPU buffer that is full takes the next event.  BOOT drops it and
 * counts it as lost: the earliest events are kept, for a reader that
 * drains the buffers as they fill.  FLIGHT reuses the oldest sub-buffer
 * and counts its events as overwritten: the latest events are kept, for
 * a reader that comes after a trigger froze the recorder.  While a
 * reader has a CPU's data file open, that CPU's buffer drops as in BOOT.
 */
enum kmt_mode {
	KMT_MODE_BOOT		= 0,
	KMT_MODE_FLIGHT		= 1,
};

/*
 * What froze the recorder (KMT_F_TRIGGER of a KMT_MARK_FROZEN record).
 * OOM: the OOM killer chose a victim (@task_pid, @comm; the failed
 * allocation's @order and @gfp_flags, @order 255 for a forced kill
 * without one) because the machine ran out of
 * memory; MEMCG_OOM: because a memory cgroup reached its limit.
 * RECLAIM_STALL: a direct reclaim (recorded with the reclaim group) took
 * at least the threshold (tracefs kmemtrace/stall_us); the record is at
 * its end, @task_pid, @order and @gfp_flags those of its allocation.
 * PAGE_ALLOC_FAIL: a page allocation failed where the kernel warns of it
 * (no __GFP_NOWARN).  SLAB_ALLOC_FAIL: a slab cache could not get a slab
 * (@cache, @order its smallest slab).  MANUAL: root wrote to tracefs
 * kmemtrace/frozen.  PANIC: the kernel panicked (@order 255, @stack from
 * panic()'s caller); in boot mode, which nothing freezes, its record is
 * written all the same.  The @stack of every trigger is the current
 * task's, from which readers take the allocation's caller; @comm is the
 * current task's but for OOM.
 */
enum kmt_trigger {
	KMT_TRIG_MANUAL		= 1,
	KMT_TRIG_OOM		= 2,
	KMT_TRIG_PAGE_ALLOC_FAIL = 3,
	KMT_TRIG_SLAB_ALLOC_FAIL = 4,
	KMT_TRIG_MEMCG_OOM	= 5,
	KMT_TRIG_RECLAIM_STALL	= 6,
	KMT_TRIG_PANIC		= 7,
	KMT_NR_TRIGGERS		= 8,
};

/* Longest cache name written in a KMT_EV_CACHE_DEF record. */
#define KMT_MAX_NAME		64

/* ---- Self-description, read from tracefs kmemtrace/header ------------- */

#define KMT_MAX_FIELDS		8

/**
 * struct kmt_field_desc - one field of a record layout
 * @id:       enum kmt_field_id
 * @enc:      enum kmt_enc
 * @name:     NUL-terminated field name, for tools that print raw events
 */
struct kmt_field_desc {
	__u8	id;
	__u8	enc;
	char	name[14];
};

/**
 * struct kmt_layout - the fields of one event type, in order
 * @type:     enum kmt_event_type
 * @nr_fields: number of valid entries in @fields
 * @reserved: zero
 * @name:     NUL-terminated event name: the tracepoint's where there is
 *            one, without its "mm_" when the name would not fit
 * @fields:   field descriptions
 */
struct kmt_layout {
	__u8	type;
	__u8	nr_fields;
	__u8	reserved[2];
	char	name[28];
	struct kmt_field_desc fields[KMT_MAX_FIELDS];
};

/**
 * struct kmt_format - the recorder's description of its own output
 * @magic:            KMT_FORMAT_MAGIC in native byte order
 * @abi_version:      KMT_ABI_VERSION
 * @header_size:      sizeof(struct kmt_format), layouts follow
 * @word_size:        sizeof(long) of the recording kernel
 * @page_shift:       PAGE_SHIFT
 * @nr_layouts:       number of &struct kmt_layout following this header
 * @layout_size:      sizeof(struct kmt_layout)
 * @subbuf_header_size: sizeof(struct kmt_subbuf_header)
 * @subbuf_size:      bytes per sub-buffer, header included
 * @nr_subbufs:       sub-buffers one CPU holds at most: its own, or with
 *                    a pool (@pool_subbufs) the pool's up to 256
 * @nr_cpu_ids:       highest possible CPU number + 1
 * @reserved:         zero
 * @clock:            NUL-terminated name of the clock ("local_clock")
 * @text_base:        base address for KMT_ENC_TEXT (_stext)
 * @direct_map_base:  base address for KMT_ENC_DMAP (PAGE_OFFSET)
 * @boot_ts:          clock value when kmemtrace_init() ran, 0 if the
 *                    recorder was first started through tracefs
 * @nr_gfp_names:     number of &struct kmt_gfp_name after the layouts
 * @gfp_name_size:    sizeof(struct kmt_gfp_name)
 * @reserved2:        zero
 * @pool_subbufs:     sub-buffers of the pool that all CPUs share, each
 *                    taking them as it fills them; 0 for a recorder that
 *                    gave every CPU nr_subbufs of its own
 * @reserved3:        zero
 *
 * Readers take the layouts from offset @header_size: a header shorter
 * than this one (no GFP names, no pool) is as valid as a longer one.
 */
struct kmt_format {
	__u32	magic;
	__u16	abi_version;
	__u16	header_size;
	__u8	word_size;
	__u8	page_shift;
	__u16	nr_layouts;
	__u16	layout_size;
	__u16	subbuf_header_size;
	__u32	subbuf_size;
	__u32	nr_subbufs;
	__u32	nr_cpu_ids;
	__u32	reserved;
	char	clock[16];
	__u64	text_base;
	__u64	direct_map_base;
	__u64	boot_ts;
	__u16	nr_gfp_names;
	__u16	gfp_name_size;
	__u32	reserved2;
	__u32	pool_subbufs;
	__u32	reserved3;
};

/* The cpu field of a KMT_EV_BUFFER record of a sub-buffer of the pool. */
#define KMT_BUFFER_POOL		0xfffffffeU

/**
 * struct kmt_gfp_name - one name the kernel gives to GFP flags
 * @mask: the flags this name stands for (one bit, or a combination)
 * @name: NUL-terminated, as the kernel prints it ("GFP_KERNEL")
 *
 * The recording kernel's own table, in its order: composite names first.
 * A reader names a gfp_flags value like the kernel does: take each entry
 * whose bits are all set, clear them, and print what is left in hex.
 */
struct kmt_gfp_name {
	__u64	mask;
	char	name[24];
};

/*
 * KMT_DEFINE_LAYOUTS(name) defines the array of layouts the recorder
 * writes, in field order.  The kernel copies them
 * into its self-description; readers decode with the copy in the trace,
 * never with this table, so a newer kernel stays readable.
 */
#define KMT_FLD(id, enc, name)	{ KMT_F_##id, KMT_ENC_##enc, name }
#define KMT_DEFINE_LAYOUTS(name)					\
static const struct kmt_layout name[] = {				\
	{ KMT_EV_KMALLOC, 6, {0}, "kmalloc", {				\
		KMT_FLD(CALL_SITE, TEXT32, "call_site"),		\
		KMT_FLD(PTR, DMAP32, "ptr"),				\
		KMT_FLD(BYTES_REQ, U16X, "bytes_req"),			\
		KMT_FLD(BYTES_SLACK, U16X, "bytes_slack"),		\
		KMT_FLD(GFP, U24X, "gfp_flags"),			\
		KMT_FLD(NODE, S8X, "node") } },				\
	{ KMT_EV_CACHE_ALLOC, 5, {0}, "kmem_cache_alloc", {		\
		KMT_FLD(CALL_SITE, TEXT32, "call_site"),		\
		KMT_FLD(PTR, DMAP32, "ptr"),				\
		KMT_FLD(CACHE, U16X, "cache"),				\
		KMT_FLD(GFP, U24X, "gfp_flags"),			\
		KMT_FLD(NODE, S8X, "node") } },				\
	{ KMT_EV_KFREE, 2, {0}, "kfree", {				\
		KMT_FLD(CALL_SITE, TEXT32, "call_site"),		\
		KMT_FLD(PTR, DMAP32, "ptr") } },			\
	{ KMT_EV_CACHE_FREE, 3, {0}, "kmem_cache_free", {		\
		KMT_FLD(CALL_SITE, TEXT32, "call_site"),		\
		KMT_FLD(PTR, DMAP32, "ptr"),				\
		KMT_FLD(CACHE, U16X, "cache") } },			\
	{ KMT_EV_PAGE_ALLOC, 5, {0}, "mm_page_alloc", {			\
		KMT_FLD(PFN1, U32X, "pfn1"),				\
		KMT_FLD(ORDER, U8X, "order"),				\
		KMT_FLD(GFP, U24X, "gfp_flags"),			\
		KMT_FLD(MIGRATETYPE, S8X, "migratetype"),		\
		KMT_FLD(STACK, STR, "stack") } },			\
	{ KMT_EV_PAGE_FREE, 2, {0}, "mm_page_free", {			\
		KMT_FLD(PFN1, U32X, "pfn1"),				\
		KMT_FLD(ORDER, U8X, "order") } },			\
	{ KMT_EV_PAGE_FREE_BATCHED, 1, {0}, "mm_page_free_batched", {	\
		KMT_FLD(PFN1, U32X, "pfn1") } },			\
	{ KMT_EV_CACHE_DEF, 6, {0}, "cache_def", {			\
		KMT_FLD(CACHE, U16X, "cache"),				\
		KMT_FLD(OBJ_SIZE, U32X, "object_size"),			\
		KMT_FLD(SIZE, U32X, "size"),				\
		KMT_FLD(ALIGN, U32X, "align"),				\
		KMT_FLD(FLAGS, U32X, "flags"),				\
		KMT_FLD(NAME, STR, "name") } },				\
	{ KMT_EV_CACHE_DESTROY, 1, {0}, "cache_destroy", {		\
		KMT_FLD(CACHE, U16X, "cache") } },			\
	{ KMT_EV_MARK, 8, {0}, "mark", {				\
		KMT_FLD(MARK, U8X, "mark"),				\
		KMT_FLD(TRIGGER, U8X, "trigger"),			\
		KMT_FLD(TASK_PID, U32X, "pid"),				\
		KMT_FLD(ORDER, U8X, "order"),				\
		KMT_FLD(GFP, U24X, "gfp_flags"),			\
		KMT_FLD(CACHE, U16X, "cache"),				\
		KMT_FLD(COMM, STR, "comm"),				\
		KMT_FLD(STACK, STR, "stack") } },			\
	{ KMT_EV_INITCALL_LEVEL, 1, {0}, "initcall_level", {		\
		KMT_FLD(NAME, STR, "level") } },			\
	{ KMT_EV_INITCALL_START, 1, {0}, "initcall_start", {		\
		KMT_FLD(CALL_SITE, TEXT32, "func") } },			\
	{ KMT_EV_INITCALL_FINISH, 2, {0}, "initcall_finish", {		\
		KMT_FLD(CALL_SITE, TEXT32, "func"),			\
		KMT_FLD(RET, S32, "ret") } },				\
	{ KMT_EV_INIT_EXEC, 1, {0}, "init_exec", {			\
		KMT_FLD(NAME, STR, "filename") } },			\
	{ KMT_EV_RECLAIM_BEGIN, 4, {0}, "vmscan_direct_reclaim_begin", { \
		KMT_FLD(ORDER, U8X, "order"),				\
		KMT_FLD(GFP, U24X, "gfp_flags"),			\
		KMT_FLD(COMM, STR, "comm"),				\
		KMT_FLD(STACK, STR, "stack") } },			\
	{ KMT_EV_RECLAIM_END, 1, {0}, "vmscan_direct_reclaim_end", {	\
		KMT_FLD(NR_RECLAIMED, U32X, "nr_reclaimed") } },	\
	{ KMT_EV_LRU_SHRINK_INACTIVE, 5, {0}, "vmscan_lru_shrink_inactive", { \
		KMT_FLD(NODE, S8X, "nid"),				\
		KMT_FLD(NR_SCANNED, U32X, "nr_scanned"),		\
		KMT_FLD(NR_RECLAIMED, U32X, "nr_reclaimed"),		\
		KMT_FLD(PRIORITY, U8X, "priority"),			\
		KMT_FLD(FILE, U8X, "file") } },				\
	{ KMT_EV_SHRINK_START, 8, {0}, "shrink_slab_start", {	\
		KMT_FLD(FUNC, TEXT32, "shrink"),			\
		KMT_FLD(SHRINKER, DMAP32, "shr"),			\
		KMT_FLD(NODE, S8X, "nid"),				\
		KMT_FLD(GFP, U24X, "gfp_flags"),			\
		KMT_FLD(CACHE_ITEMS, U32X, "cache_items"),		\
		KMT_FLD(TOTAL_SCAN, U32X, "total_scan"),		\
		KMT_FLD(PRIORITY, U8X, "priority"),			\
		KMT_FLD(NAME, STR, "name") } },				\
	{ KMT_EV_SHRINK_END, 5, {0}, "shrink_slab_end", {		\
		KMT_FLD(FUNC, TEXT32, "shrink"),			\
		KMT_FLD(SHRINKER, DMAP32, "shr"),			\
		KMT_FLD(NODE, S8X, "nid"),				\
		KMT_FLD(FREED, S32, "freed"),				\
		KMT_FLD(TOTAL_SCAN, U32X, "total_scan") } },		\
	{ KMT_EV_COMPACT_TRY, 5, {0}, "compaction_try_to_compact", { \
		KMT_FLD(ORDER, U8X, "order"),				\
		KMT_FLD(GFP, U24X, "gfp_flags"),			\
		KMT_FLD(PRIORITY, U8X, "priority"),			\
		KMT_FLD(COMM, STR, "comm"),				\
		KMT_FLD(STACK, STR, "stack") } },			\
	{ KMT_EV_COMPACT_BEGIN, 5, {0}, "compaction_begin", {	\
		KMT_FLD(ZONE_START, U32X, "zone_start"),		\
		KMT_FLD(ZONE_END, U32X, "zone_end"),			\
		KMT_FLD(MIGRATE_PFN, U32X, "migrate_pfn"),		\
		KMT_FLD(FREE_PFN, U32X, "free_pfn"),			\
		KMT_FLD(SYNC, U8X, "sync") } },				\
	{ KMT_EV_COMPACT_END, 6, {0}, "compaction_end", {		\
		KMT_FLD(ZONE_START, U32X, "zone_start"),		\
		KMT_FLD(ZONE_END, U32X, "zone_end"),			\
		KMT_FLD(MIGRATE_PFN, U32X, "migrate_pfn"),		\
		KMT_FLD(FREE_PFN, U32X, "free_pfn"),			\
		KMT_FLD(SYNC, U8X, "sync"),				\
		KMT_FLD(STATUS, U8X, "status") } },			\
	{ KMT_EV_GROUPS, 1, {0}, "groups", {				\
		KMT_FLD(GROUPS, U32X, "groups") } },			\
	{ KMT_EV_MEMBLOCK, 7, {0}, "memblock", {			\
		KMT_FLD(MB_OP, U8X, "op"),				\
		KMT_FLD(PHYS, U32X, "base"),				\
		KMT_FLD(LENGTH, U32X, "size"),				\
		KMT_FLD(NODE, S8X, "nid"),				\
		KMT_FLD(FLAGS, U8X, "flags"),				\
		KMT_FLD(CALL_SITE, TEXT32, "caller"),			\
		KMT_FLD(NAME, STR, "what") } },				\
	{ KMT_EV_MEMBLOCK_EARLY, 5, {0}, "memblock_early", {		\
		KMT_FLD(NR_KEPT, U32X, "kept"),				\
		KMT_FLD(NR_DROPPED, U32X, "dropped"),			\
		KMT_FLD(CAPACITY, U32X, "capacity"),			\
		KMT_FLD(PG_KEPT, U32X, "pages_kept"),			\
		KMT_FLD(PG_DROPPED, U32X, "pages_dropped") } },		\
	{ KMT_EV_BUFFER, 3, {0}, "buffer", {				\
		KMT_FLD(CPU, U32X, "cpu"),				\
		KMT_FLD(PFN1, U32X, "pfn1"),				\
		KMT_FLD(ORDER, U8X, "order") } },			\
	{ KMT_EV_KMALLOC_VIA, 7, {0}, "kmalloc_via", {			\
		KMT_FLD(CALL_SITE, TEXT32, "call_site"),		\
		KMT_FLD(PTR, DMAP32, "ptr"),				\
		KMT_FLD(BYTES_REQ, U16X, "bytes_req"),			\
		KMT_FLD(BYTES_SLACK, U16X, "bytes_slack"),		\
		KMT_FLD(GFP, U24X, "gfp_flags"),			\
		KMT_FLD(NODE, S8X, "node"),				\
		KMT_FLD(STACK, STR, "stack") } },			\
	{ KMT_EV_CACHE_ALLOC_VIA, 6, {0}, "kmem_cache_alloc_via", {	\
		KMT_FLD(CALL_SITE, TEXT32, "call_site"),		\
		KMT_FLD(PTR, DMAP32, "ptr"),				\
		KMT_FLD(CACHE, U16X, "cache"),				\
		KMT_FLD(GFP, U24X, "gfp_flags"),			\
		KMT_FLD(NODE, S8X, "node"),				\
		KMT_FLD(STACK, STR, "stack") } },			\
	{ KMT_EV_VMALLOC, 4, {0}, "vmalloc", {				\
		KMT_FLD(MB_OP, U8X, "op"),				\
		KMT_FLD(VADDR, U32X, "addr"),				\
		KMT_FLD(NR_PAGES, U32X, "pages"),			\
		KMT_FLD(CALL_SITE, TEXT32, "caller") } },		\
	{ KMT_EV_TEXT_RANGE, 4, {0}, "text_range", {			\
		KMT_FLD(KIND, U8X, "kind"),				\
		KMT_FLD(FUNC, TEXT32, "func"),				\
		KMT_FLD(LENGTH, U32X, "size"),				\
		KMT_FLD(NAME, STR, "name") } },				\
	{ KMT_EV_TASK, 7, {0}, "task", {				\
		KMT_FLD(TASK_OP, U8X, "op"),				\
		KMT_FLD(TASK_PID, U32X, "pid"),				\
		KMT_FLD(PPID, U32X, "ppid"),				\
		KMT_FLD(CGROUP_ID, U32X, "cgroup_id"),			\
		KMT_FLD(COMM, STR, "comm"),				\
		KMT_FLD(FILENAME, STR, "filename"),			\
		KMT_FLD(CGROUP, STR, "cgroup") } }			\
}

#define KMT_NR_LAYOUTS		31

/* ---- Layer 2: sub-buffers --------------------------------------------- */

/**
 * struct kmt_subbuf_header - start of every sub-buffer
 * @magic:    KMT_SUBBUF_MAGIC
 * @cpu:      CPU that wrote it
 * @seq:      sub-buffer sequence number on this CPU, from 0, no gaps
 * @size:     bytes used, this header included; records fill the rest
 * @base_ts:  timestamp the first record's delta is relative to
 * @lost:     events this CPU had dropped before this sub-buffer opened
 *
 * Records never straddle sub-buffers.  The time of record n is base_ts
 * plus the deltas of records 0..n, unless a record carries
 * KMT_HDR_ABS_TIME, which resets the running time.
 */
struct kmt_subbuf_header {
	__u32	magic;
	__u32	cpu;
	__u32	seq;
	__u32	size;
	__u64	base_ts;
	__u64	lost;
};

/* ---- Layer 3: the kmemflight file ------------------------------------- */

/* "KMTRACE\0" as bytes, then a native u32 KMT_FORMAT_MAGIC. */
#define KMT_FILE_MAGIC		"KMTRACE"
/*
 * 2: a section's payload may be compressed (&struct kmt_section @flags).
 * Readers still read 1, where the flags are zero.
 */
#define KMT_FILE_VERSION	2
#define KMT_FILE_VERSION_MIN	1

/**
 * struct kmt_file_header - start of a .kmt file
 * @magic:          KMT_FILE_MAGIC with its NUL
 * @byte_order:     KMT_FORMAT_MAGIC written natively: tells the byte order
 * @version:        KMT_FILE_VERSION; readers take KMT_FILE_VERSION_MIN on
 * @header_size:    sizeof(struct kmt_file_header)
 * @nr_sections:    number of sections that follow
 * @flags:          zero
 * @file_size:      total bytes, for truncation checks
 *
 * Sections follow back to back, each 8-byte aligned.
 */
struct kmt_file_header {
	char	magic[8];
	__u32	byte_order;
	__u16	version;
	__u16	header_size;
	__u32	nr_sections;
	__u32	flags;
	__u64	file_size;
};

enum kmt_section_type {
	KMT_SEC_FORMAT	= 1,	/* struct kmt_format + layouts, from kernel */
	KMT_SEC_META	= 2,	/* "key=value\n" text: release, cmdline, ... */
	KMT_SEC_KALLSYMS = 3,	/* /proc/kallsyms text, text symbols only */
	KMT_SEC_TOPOLOGY = 4,	/* tracefs kmemtrace/topology text */
	KMT_SEC_CPU	= 5,	/* struct kmt_cpu_section + sub-buffers */
	KMT_SEC_CACHES	= 6,	/* "id object_size size align flags name\n" */
	KMT_SEC_MEMINFO	= 7,	/* /proc/meminfo text at the save */
	KMT_SEC_VMSTAT	= 8,	/* /proc/vmstat text at the save */
	KMT_SEC_ZONEINFO = 9,	/* /proc/zoneinfo text at the save */
	KMT_SEC_FLIGHT	= 10,	/* struct kmt_flight_section + CPUs */
	KMT_SEC_TASKS	= 11,	/* "pid\tcomm\tcgroup\n" text: the tasks at the save */
	KMT_SEC_CGROUPS	= 12,	/* "id\tpath\n" text: the cgroup v2 tree at the save */
};

/*
 * Section flags, from file version 2.  KMT_SECTION_ZSTD: the payload as
 * stored is one zstd frame (RFC 8878) that gives its content size; the
 * section's bytes are what it decompresses to.
 */
#define KMT_SECTION_ZSTD	(1U << 0)
#define KMT_SECTION_KNOWN	KMT_SECTION_ZSTD	/* every flag defined */

/**
 * struct kmt_section - header of one section
 * @type:     enum kmt_section_type
 * @flags:    KMT_SECTION_* (zero in file version 1)
 * @size:     bytes of payload after this header as stored (padding excluded)
 */
struct kmt_section {
	__u32	type;
	__u32	flags;
	__u64	size;
};

/**
 * struct kmt_cpu_section - payload start of a KMT_SEC_CPU section
 * @cpu:         CPU number
 * @nr_subbufs:  sub-buffers that follow
 * @events:      events the kernel recorded on this CPU (its counter)
 * @lost:        events the kernel dropped on this CPU (its counter; those
 *               dropped while frozen are apart, in KMT_SEC_FLIGHT)
 */
struct kmt_cpu_section {
	__u32	cpu;
	__u32	nr_subbufs;
	__u64	events;
	__u64	lost;
};

/**
 * struct kmt_flight_cpu - one CPU's window in a KMT_SEC_FLIGHT section
 * @cpu:          CPU number
 * @reserved:     zero
 * @overwritten:  events the kernel overwrote on this CPU (its counter)
 * @window_start: time of the oldest event kept, 0: none kept
 * @window_end:   time of the newest event kept, 0: none kept
 * @frozen_dropped: events the kernel dropped on this CPU while frozen
 *                (its counter); older savers wrote entries of
 *                KMT_FLIGHT_CPU_SIZE_V1 bytes, without it: 0
 */
struct kmt_flight_cpu {
	__u32	cpu;
	__u32	reserved;
	__u64	overwritten;
	__u64	window_start;
	__u64	window_end;
	__u64	frozen_dropped;
};

/* The size of a &struct kmt_flight_cpu before @frozen_dropped. */
#define KMT_FLIGHT_CPU_SIZE_V1	32

/**
 * struct kmt_flight_section - payload start of a KMT_SEC_FLIGHT section
 * @mode:         enum kmt_mode when the save began
 * @trigger:      enum kmt_trigger that froze the recorder, 0: not frozen
 * @trigger_ts:   time of the trigger (its KMT_MARK_FROZEN record)
 * @frozen_ts:    time every CPU had been told to stop
 * @nr_cpus:      &struct kmt_flight_cpu entries that follow
 * @cpu_size:     bytes of each entry: sizeof(struct kmt_flight_cpu), at
 *                least KMT_FLIGHT_CPU_SIZE_V1; readers take what they know
 *
 * Written by savers since kmemflight 0.20; a file without it was recorded
 * in KMT_MODE_BOOT.
 */
struct kmt_flight_section {
	__u32	mode;
	__u32	trigger;
	__u64	trigger_ts;
	__u64	frozen_ts;
	__u32	nr_cpus;
	__u32	cpu_size;
};

#endif /* _UAPI_LINUX_KMEMTRACE_H */

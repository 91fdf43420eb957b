// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - boot-time kernel memory flight recorder
 *
 * Records the kmem tracepoints (slab and page allocator) from right after
 * kmem_cache_init() into per-CPU buffers that the kernel owns until user
 * space reads them.  No process context is needed to record: the boot
 * CPU's buffer is allocated before the probes attach, and every other
 * CPU's by a CPU hotplug callback that runs before that CPU can allocate,
 * for the CPUs brought up at boot as for one onlined later.  A CPU that
 * never comes up costs no memory; one that goes offline keeps its buffer
 * until it is read.  The files are in tracefs, kmemtrace/, which kernel
 * lockdown leaves open in integrity mode (debugfs it does not).
 *
 * Each CPU's buffer is a ring of sub-buffers.  A writer reserves space with
 * one CPU-local cmpxchg on a state word that holds the write position, the
 * current sub-buffer and the low 32 bits of the previous timestamp, so a
 * writer interrupted by an IRQ or NMI that also records simply retries and
 * every record's time delta is relative to the record before it in the
 * buffer.  Records are written straight into the reserved space, each
 * field at a fixed offset, and carry the pid only when it changes.  When
 * no sub-buffer is free, boot mode drops the event and counts it: the
 * earliest events are kept, for a reader that drains the buffers.  Flight
 * mode reuses the oldest sub-buffer and counts its events as overwritten:
 * the latest events are kept, until a trigger (the OOM killer, a failed
 * allocation, root) freezes every CPU's buffer for a reader that comes
 * later.
 *
 * The format is defined in include/uapi/linux/kmemtrace.h and specified in
 * Documentation/trace/kmemtrace-format.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/atomic.h>
#include <linux/binfmts.h>
#include <linux/cpuhotplug.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kmemtrace.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/stacktrace.h>
#include <linux/suspend.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/wait.h>
#include <asm/local.h>
#include <asm/sections.h>
#ifdef CONFIG_X86_TSC
#include <asm/timer.h>
#endif
/* not self-contained: after linux/mm.h */
#include <linux/compaction.h>

#include "internal.h"
#include "slab.h"

/* after internal.h: the compaction events take a struct compact_control */
#ifdef CONFIG_CGROUPS
#include <trace/events/cgroup.h>
#endif
#include <trace/events/compaction.h>
#include <trace/events/initcall.h>
#include <trace/events/kmem.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>
#include <trace/events/vmscan.h>

#define KMT_DEFAULT_SUBBUFS	64
#define KMT_MIN_SUBBUFS		2
#define KMT_MAX_SUBBUFS		1024
#define KMT_DEFAULT_SUBBUF_SIZE	SZ_128K
#define KMT_MAX_SUBBUF_SIZE	SZ_512K

/*
 * State word of a CPU buffer: bits 0-19 write position in the current
 * sub-buffer (KMT_POS_CLOSED once it is closed), bits 20-31 the current
 * sub-buffer's sequence number modulo 4096, bits 32-63 the low half of
 * the last reserved record's timestamp.
 */
#define KMT_POS_BITS		20
#define KMT_POS_MASK		((1U << KMT_POS_BITS) - 1)
#define KMT_POS_CLOSED		KMT_POS_MASK
#define KMT_SEQ_BITS		12
#define KMT_SEQ_MASK		((1U << KMT_SEQ_BITS) - 1)

struct kmt_slot {
	local_t		commit;		/* bytes written and committed */
	local_t		events;		/* records committed */
	unsigned int	size;		/* final size once closed, else 0 */
};

struct kmt_cpu {
	u64		state;		/* local: this CPU and its interrupts */
	bool		frozen;		/* a trigger fired: open no sub-buffer */
	local_t		events;
	local_t		lost;
	local_t		overwritten;	/* flight mode: events of reused sub-buffers */
	local_t		reusing;	/* a writer is reusing the oldest one */
	u64		last_ts;
	bool		tsc;		/* local_clock() is tsc_offset + TSC scaled */
	u8		tsc_shift;	/* ns = cycles * tsc_mul >> tsc_shift */
	u8		tsc_lshift;	/* 32 - tsc_shift */
	u32		tsc_mul;
	u64		tsc_offset;
	/* the pid of the last record with one, and its sub-buffer's seq << 32 */
	u64		pid_key;	/* U64_MAX: none in this sub-buffer */
	unsigned int	consumed;	/* next sequence number to read */
	bool		waiting;
	unsigned long	open;		/* bit 0: the data file is open */
	int		cpu;
	void		**subbuf;	/* NULL: no buffer (yet) */
	struct kmt_slot	*slot;
	struct mutex	read_mutex;	/* one reader at a time */
	wait_queue_head_t wait;
	struct irq_work	wakeup;
};

static DEFINE_PER_CPU(struct kmt_cpu, kmt_cpu_buf);

static bool kmt_boot_enable __initdata;
static bool kmt_param_invalid __initdata;
static unsigned int kmt_nr_subbufs = KMT_DEFAULT_SUBBUFS;
static unsigned int kmt_subbuf_mask = KMT_DEFAULT_SUBBUFS - 1;
static unsigned int kmt_subbuf_size = KMT_DEFAULT_SUBBUF_SIZE;
/* Return addresses recorded with each page allocation, 0: none. */
#define KMT_MAX_STACK		16
static unsigned int kmt_page_stack __read_mostly;

/* Buffers follow the CPUs: the hotplug state is set up. */
static bool kmt_allocated;
static int kmt_cpuhp_state;
static bool kmt_recording;
/* Bits of enum kmt_group: what is recorded, under kmt_mutex. */
static unsigned long kmt_groups = BIT(KMT_GROUP_KMEM) | BIT(KMT_GROUP_BOOT);
static unsigned int kmt_next_cache_id = 1;
static u64 kmt_boot_ts;
static DEFINE_MUTEX(kmt_mutex);

KMT_DEFINE_LAYOUTS(kmt_layouts);

static int __init kmt_parse_enable(char *str)
{
	if (str && (!strcmp(str, "0") || !strcmp(str, "1"))) {
		kmt_boot_enable = str[0] == '1';
		return 0;
	}
	pr_warn("kmemtrace.enable=%s is invalid: use 0 or 1; recorder stays off\n",
		str ? str : "");
	kmt_param_invalid = true;
	return 0;
}
early_param("kmemtrace.enable", kmt_parse_enable);

static int __init kmt_parse_subbufs(char *str)
{
	unsigned int n;

	if (!str || kstrtouint(str, 0, &n) ||
	    n < KMT_MIN_SUBBUFS || n > KMT_MAX_SUBBUFS) {
		pr_warn("kmemtrace.subbufs=%s is invalid: use %u..%u; recorder stays off\n",
			str ? str : "", KMT_MIN_SUBBUFS, KMT_MAX_SUBBUFS);
		kmt_param_invalid = true;
		return 0;
	}
	if (!is_power_of_2(n)) {
		pr_notice("kmemtrace.subbufs=%u rounded up to %lu\n", n,
			  roundup_pow_of_two(n));
		n = roundup_pow_of_two(n);
	}
	kmt_nr_subbufs = n;
	kmt_subbuf_mask = n - 1;
	return 0;
}
early_param("kmemtrace.subbufs", kmt_parse_subbufs);

static int __init kmt_parse_subbuf_size(char *str)
{
	unsigned long long n;
	char *end;

	if (str) {
		n = memparse(str, &end);
		if (!*end && is_power_of_2(n) && n >= PAGE_SIZE &&
		    n <= KMT_MAX_SUBBUF_SIZE) {
			kmt_subbuf_size = n;
			return 0;
		}
	}
	pr_warn("kmemtrace.subbuf_size=%s is invalid: use a power of two from %lu to %u; recorder stays off\n",
		str ? str : "", PAGE_SIZE, KMT_MAX_SUBBUF_SIZE);
	kmt_param_invalid = true;
	return 0;
}
early_param("kmemtrace.subbuf_size", kmt_parse_subbuf_size);

static int __init kmt_parse_page_stack(char *str)
{
	unsigned int n;

	if (!str || kstrtouint(str, 0, &n) || n > KMT_MAX_STACK) {
		pr_warn("kmemtrace.page_stack=%s is invalid: use 0..%u; page callers are not recorded\n",
			str ? str : "", KMT_MAX_STACK);
		return 0;
	}
	kmt_page_stack = n;
	return 0;
}
early_param("kmemtrace.page_stack", kmt_parse_page_stack);

/* ---- encoding --------------------------------------------------------- */

/*
 * Records are written straight into the reserved space, fields at fixed
 * offsets.  A value that does not fit its slot (a call site outside
 * +-2 GiB of _stext, a huge size, a pointer outside the first 32 GiB of
 * the direct map) sends the event down kmt_record_fields(), which writes
 * the escape and the full value after it.
 */
#define KMT_DMAP32_LIMIT	((u64)KMT_DMAP32_NULL << 3)

/*
 * Whether values fit their slots: an S8X slot holds -127..127.  The
 * probes test these with '||', a branch each that is never taken: fewer
 * instructions than combining the bools, and as cheap to predict.
 */
static __always_inline bool kmt_s8_fits(int v)
{
	return (unsigned int)(v + 127) < 255;
}

static __always_inline s64 kmt_text_off(unsigned long addr)
{
	return (s64)(addr - (unsigned long)_stext);
}

/* S32_MIN + 1 .. S32_MAX: S32_MIN is the escape */
static __always_inline bool kmt_text_fits(s64 off)
{
	return (u64)(off + S32_MAX) < U32_MAX;
}

static __always_inline u64 kmt_dmap_off(const void *ptr)
{
	return (unsigned long)ptr - PAGE_OFFSET;
}

/* A TEXT32 call site and a DMAP32 pointer that fit, as one word. */
static __always_inline u64 kmt_site_ptr(s64 cs, u64 off)
{
	return (u32)cs | off >> 3 << 32;
}

static __always_inline bool kmt_dmap_fits(u64 off)
{
	return !(off & 7) && off < KMT_DMAP32_LIMIT;
}

/* Bytes of the LEB128 form of @v: one, and one per 7 bits above 7; no loop. */
static __always_inline unsigned int kmt_uvar_len(u64 v)
{
	return 1 + (fls64(v >> 7) + 6) / 7;
}

static __always_inline u8 *kmt_put_uvar(u8 *p, u64 v)
{
	while (v >= 0x80) {
		*p++ = (u8)v | 0x80;
		v >>= 7;
	}
	*p++ = (u8)v;
	return p;
}

static __always_inline u64 kmt_zigzag(s64 v)
{
	return ((u64)v << 1) ^ (u64)(v >> 63);
}

/* ---- reserve and commit ----------------------------------------------- */

static __always_inline u64 kmt_state(u64 ts, unsigned int seq, unsigned int pos)
{
	return (ts << 32) | ((u64)(seq & KMT_SEQ_MASK) << KMT_POS_BITS) | pos;
}

/*
 * The time of a record: local_clock().  That costs some 40 instructions,
 * most of them calls and the sched_clock latch around the TSC read.  When
 * sched_clock is the TSC and stable, local_clock() is this CPU's cyc2ns
 * scale of the TSC plus __sched_clock_offset: each CPU keeps a copy of
 * both, taken when it opens a sub-buffer, and scales the TSC itself (as
 * arch_perf_update_userpage() hands them to perf's readers).  A scale
 * that changes (the TSC's refined calibration, once), or a TSC found
 * unstable, reaches the copy at the next sub-buffer; record times never
 * decrease on a CPU whatever the clock does (kmt_reserve_at()).
 */
static __always_inline u64 kmt_clock(struct kmt_cpu *cb)
{
#ifdef CONFIG_X86_TSC
	u64 tsc;

	/*
	 * cycles * mul >> shift as two 64-bit products, of the TSC's low
	 * and high halves (a 128-bit product would make the probes realign
	 * their stack): the same nanoseconds, the high half's exact.
	 */
	if (likely(READ_ONCE(cb->tsc))) {
		tsc = rdtsc();
		return cb->tsc_offset +
		       (mul_u32_u32(tsc, cb->tsc_mul) >> cb->tsc_shift) +
		       (mul_u32_u32(tsc >> 32, cb->tsc_mul) << cb->tsc_lshift);
	}
#endif
	return local_clock();
}

/*
 * Take this CPU's copy of the clock's scale, on its CPU.  A writer that
 * interrupts the update sees ->tsc false and reads local_clock(); one
 * that the update interrupted between its reads of the copy has its
 * reservation fail (the update came with a record), and reads again.
 */
static void kmt_clock_update(struct kmt_cpu *cb)
{
#ifdef CONFIG_X86_TSC
	struct cyc2ns_data d = { };
	bool tsc = using_native_sched_clock() && sched_clock_stable();
	u64 offset = 0;

	if (tsc) {
		cyc2ns_read_begin(&d);
		cyc2ns_read_end();
		/* the high half's shift left must not be negative */
		tsc = d.cyc2ns_shift <= 32;
		offset = d.cyc2ns_offset + __sched_clock_offset;
	}
	if (tsc == cb->tsc && (!tsc || (d.cyc2ns_mul == cb->tsc_mul &&
					d.cyc2ns_shift == cb->tsc_shift &&
					offset == cb->tsc_offset)))
		return;
	WRITE_ONCE(cb->tsc, false);
	if (!tsc)
		return;
	barrier();
	cb->tsc_mul = d.cyc2ns_mul;
	cb->tsc_shift = d.cyc2ns_shift;
	cb->tsc_lshift = 32 - d.cyc2ns_shift;
	cb->tsc_offset = offset;
	barrier();
	WRITE_ONCE(cb->tsc, tsc);
#endif
}

/*
 * Drop this CPU's copy: local_clock() until it opens a sub-buffer.  Not
 * a new copy here: a writer this interrupts may be reading the old one.
 */
static void kmt_clock_drop(void *unused)
{
	WRITE_ONCE(this_cpu_ptr(&kmt_cpu_buf)->tsc, false);
}

/*
 * After a resume the TSC may have started from 0 again, and sched_clock's
 * offset followed it.  Until every CPU dropped its copy, record times
 * stand still (kmt_reserve_at()), for as long as resuming takes.
 */
static int kmt_pm_notify(struct notifier_block *nb, unsigned long action,
			 void *unused)
{
	if (action == PM_POST_SUSPEND || action == PM_POST_HIBERNATION ||
	    action == PM_POST_RESTORE)
		on_each_cpu(kmt_clock_drop, NULL, 1);
	return NOTIFY_DONE;
}

static struct notifier_block kmt_pm_nb = {
	.notifier_call = kmt_pm_notify,
};

static void kmt_close_slot(struct kmt_cpu *cb, unsigned int seq, unsigned int pos)
{
	unsigned int idx = seq & kmt_subbuf_mask;
	struct kmt_subbuf_header *h = cb->subbuf[idx];

	h->size = pos;
	/* Pairs with the first smp_rmb() in kmt_slot_ready(). */
	smp_wmb();
	WRITE_ONCE(cb->slot[idx].size, pos);
	/* Order the size store before the waiting load; pairs with readers. */
	smp_mb();
	if (READ_ONCE(cb->waiting))
		irq_work_queue(&cb->wakeup);
}

/*
 * Open sub-buffer @seq for the record of @len bytes (its header not
 * counted) reserved at its start, closing the one at @old_seq/@pos.
 * Out of line: once per sub-buffer.
 */
static noinline u8 *kmt_open(struct kmt_cpu *cb, unsigned int old_seq,
			     unsigned int pos, unsigned int seq, u64 ts)
{
	const unsigned int hsz = sizeof(struct kmt_subbuf_header);
	unsigned int idx = seq & kmt_subbuf_mask;
	struct kmt_subbuf_header *h = cb->subbuf[idx];

	if (pos != KMT_POS_CLOSED)
		kmt_close_slot(cb, old_seq, pos);
	/* Pids restart in every sub-buffer. */
	WRITE_ONCE(cb->pid_key, U64_MAX);
	kmt_clock_update(cb);
	/*
	 * No h->size: kmt_close_slot() sets it, and an interrupt that fills
	 * this sub-buffer before we get here may already have closed it.
	 */
	h->magic = KMT_SUBBUF_MAGIC;
	h->cpu = cb->cpu;
	h->seq = seq;
	h->base_ts = ts;
	h->lost = local_read(&cb->lost);
	local_add(hsz, &cb->slot[idx].commit);
	return (u8 *)h + hsz;
}

static unsigned int kmt_mode __read_mostly = KMT_MODE_BOOT;
static const char *const kmt_mode_names[] = {
	[KMT_MODE_BOOT] = "boot",
	[KMT_MODE_FLIGHT] = "flight",
};

/*
 * Flight mode, every sub-buffer in use: give the oldest, @consumed, to
 * the writers and count its events as overwritten.  Not while a reader
 * has the data file open (->consumed is the reader's then), nor while a
 * writer this one interrupted is doing it, nor before every record of
 * the oldest sub-buffer is committed: the event is dropped then.
 * Return: true to try again, false to drop.
 */
static noinline bool kmt_reuse(struct kmt_cpu *cb, unsigned int consumed)
{
	struct kmt_slot *slot = &cb->slot[consumed & kmt_subbuf_mask];
	unsigned int size;
	bool ret = false;

	/* Pairs with clear_bit_unlock() in kmt_data_release(). */
	if (READ_ONCE(kmt_mode) != KMT_MODE_FLIGHT ||
	    test_bit_acquire(0, &cb->open))
		return false;
	if (local_cmpxchg(&cb->reusing, 0, 1))
		return false;
	/* A trigger that interrupted this writer froze the buffer. */
	if (READ_ONCE(cb->frozen))
		goto out;
	if (READ_ONCE(cb->consumed) != consumed) {
		ret = true;	/* an interrupt did it */
		goto out;
	}
	size = READ_ONCE(slot->size);
	if (!size || local_read(&slot->commit) != size)
		goto out;
	local_add(local_read(&slot->events), &cb->overwritten);
	local_set(&slot->commit, 0);
	local_set(&slot->events, 0);
	WRITE_ONCE(slot->size, 0);
	WRITE_ONCE(cb->consumed, consumed + 1);
	ret = true;
out:
	local_set(&cb->reusing, 0);
	return ret;
}

/* Every sub-buffer is full: hand the current one to the reader, drop. */
static noinline bool kmt_full(struct kmt_cpu *cb, u64 *old)
{
	unsigned int pos = *old & KMT_POS_MASK;
	unsigned int seq = (*old >> KMT_POS_BITS) & KMT_SEQ_MASK;

	if (pos != KMT_POS_CLOSED &&
	    !try_cmpxchg64_local(&cb->state, old,
				 kmt_state(*old >> 32, seq, KMT_POS_CLOSED)))
		return false;	/* raced: try again */
	if (pos != KMT_POS_CLOSED)
		kmt_close_slot(cb, seq, pos);
	local_inc(&cb->lost);
	return true;
}

/*
 * Close the current sub-buffer of @cb so that readers can take it: on
 * its own CPU, or on any CPU once its own is dead.
 */
static void kmt_flush_cpu(struct kmt_cpu *cb)
{
	u64 old = READ_ONCE(cb->state);
	unsigned int pos, seq;

	do {
		pos = old & KMT_POS_MASK;
		seq = (old >> KMT_POS_BITS) & KMT_SEQ_MASK;
		if (pos == KMT_POS_CLOSED)
			return;
	} while (!try_cmpxchg64_local(&cb->state, &old,
				      kmt_state(old >> 32, seq, KMT_POS_CLOSED)));
	kmt_close_slot(cb, seq, pos);
}

/**
 * struct kmt_rsv - a reserved record
 * @p:    its first payload byte, after header, time and pid
 * @idx:  sub-buffer index, for the commit
 * @len:  bytes reserved
 */
struct kmt_rsv {
	u8		*p;
	unsigned int	idx;
	unsigned int	len;
};

/* The time of a record: now, or the one it happened at (kmt_reserve_at()). */
#define KMT_NOW			U64_MAX

/*
 * kmt_reserve_at - reserve a record of @type with @plen payload bytes
 *
 * Writes the header byte, the time (@at, or local_clock() for KMT_NOW)
 * and, if needed, the pid.  Return: true with @r filled in, or false when
 * the event was dropped (and counted) because every sub-buffer is full.
 */
static __always_inline bool kmt_reserve_at(struct kmt_cpu *cb, u8 type,
					   unsigned int plen, struct kmt_rsv *r,
					   u64 at)
{
	unsigned int pos, seq, len, next_seq, consumed;
	u8 ctx = KMT_CTX_TASK;
	u64 old = READ_ONCE(cb->state);
	int used;
	u32 pid = 0, dt;
	bool abs, need_pid;
	u64 ts, last_ts;
	u8 *p;

	/* Mostly task context: test that first, with one mask. */
	if (likely(!(preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET))))
		pid = task_pid_nr(current);
	else
		ctx = interrupt_context_level();
	for (;;) {
		ts = at == KMT_NOW ? kmt_clock(cb) : at;
		last_ts = READ_ONCE(cb->last_ts);
		/*
		 * local_clock() can step back on a CPU: the TSC's refined
		 * calibration, late in boot, changes sched_clock's rate
		 * from a point already past.  Time then stands still, so
		 * that on each CPU record times never decrease.
		 */
		if (unlikely((s64)(ts - last_ts) < 0))
			ts = last_ts;
		pos = old & KMT_POS_MASK;
		seq = (old >> KMT_POS_BITS) & KMT_SEQ_MASK;
		need_pid = ctx == KMT_CTX_TASK &&
			   ((u64)seq << 32 | pid) != READ_ONCE(cb->pid_key);
		/*
		 * last_ts may lag the state's time by a nested record: then
		 * the gap is overestimated, and the time merely absolute.
		 */
		abs = ts - last_ts >= KMT_TIME_ABS;
		dt = (u32)ts - (u32)(old >> 32);
		if ((s32)dt < 0)
			dt = 0;
		len = 3 + plen + (abs ? 8 : 0) + (need_pid ? 4 : 0);
		if (likely(pos + len <= kmt_subbuf_size)) {
			/* KMT_POS_CLOSED is past every sub-buffer's end */
			if (try_cmpxchg64_local(&cb->state, &old,
						kmt_state(ts, seq, pos + len)))
				break;
			continue;
		}
		/*
		 * Frozen: no sub-buffer is opened, so none is reused.  What
		 * the current one still holds room for is written.
		 */
		if (unlikely(READ_ONCE(cb->frozen)))
			return false;
		/* The first record of a sub-buffer is relative to base_ts. */
		abs = false;
		dt = 0;
		need_pid = ctx == KMT_CTX_TASK;
		len = 3 + plen + (need_pid ? 4 : 0);
		/* Pairs with the release in kmt_copy_ready(). */
		consumed = smp_load_acquire(&cb->consumed);
		used = sign_extend32((seq - consumed) & KMT_SEQ_MASK,
				     KMT_SEQ_BITS - 1);
		if (used + 2 > (int)kmt_nr_subbufs) {
			if (kmt_reuse(cb, consumed))
				continue;
			if (kmt_full(cb, &old))
				return false;
			continue;
		}
		next_seq = consumed + used + 1;
		if (!try_cmpxchg64_local(&cb->state, &old,
					 kmt_state(ts, next_seq,
						   sizeof(struct kmt_subbuf_header) + len)))
			continue;
		p = kmt_open(cb, seq, pos, next_seq, ts);
		seq = next_seq;
		pos = sizeof(struct kmt_subbuf_header);
		goto write;
	}
	p = (u8 *)cb->subbuf[seq & kmt_subbuf_mask] + pos;
write:
	WRITE_ONCE(cb->last_ts, ts);
	r->idx = seq & kmt_subbuf_mask;
	r->len = len;
	p[0] = type | ctx << KMT_HDR_CTX_SHIFT | (need_pid ? KMT_HDR_PID : 0);
	if (unlikely(abs)) {
		put_unaligned_le16(KMT_TIME_ABS, p + 1);
		put_unaligned_le64(ts, p + 3);
		p += 8;
	} else {
		put_unaligned_le16(dt, p + 1);
	}
	p += 3;
	if (need_pid) {
		put_unaligned_le32(pid, p);
		p += 4;
		WRITE_ONCE(cb->pid_key, (u64)(seq & KMT_SEQ_MASK) << 32 | pid);
	}
	r->p = p;
	return true;
}

static __always_inline bool kmt_reserve(struct kmt_cpu *cb, u8 type,
					unsigned int plen, struct kmt_rsv *r)
{
	return kmt_reserve_at(cb, type, plen, r, KMT_NOW);
}

static __always_inline void kmt_commit(struct kmt_cpu *cb, struct kmt_rsv *r)
{
	struct kmt_slot *slot = &cb->slot[r->idx];
	long done;

	/* A slot whose commit reached its size has its final event count. */
	local_inc(&slot->events);
	/* Count and record bytes before the commit; pairs with kmt_slot_ready(). */
	smp_wmb();
	done = local_add_return(r->len, &slot->commit);
	local_inc(&cb->events);
	/*
	 * An interrupt closed this sub-buffer while we were writing it: its
	 * wakeup found it incomplete, so the last commit wakes the reader.
	 * Same CPU as the closer, so the size it stored is visible here.
	 */
	if (unlikely(done == READ_ONCE(slot->size))) {
		/* Pairs with the smp_mb() of the reader setting ->waiting. */
		smp_mb();
		if (READ_ONCE(cb->waiting))
			irq_work_queue(&cb->wakeup);
	}
}

/* ---- the general path ------------------------------------------------- */

/* Bytes of a field of encoding @enc holding @v, its escape included. */
static unsigned int kmt_field_len(u8 enc, u64 v)
{
	switch (enc) {
	case KMT_ENC_U8X:
		return v < 0xff ? 1 : 9;
	case KMT_ENC_U16X:
		return v < 0xffff ? 2 : 10;
	case KMT_ENC_U24X:
		return v < 0xffffff ? 3 : 11;
	case KMT_ENC_U32X:
		return v < 0xffffffff ? 4 : 12;
	case KMT_ENC_S8X:
		return (s64)v > S8_MIN && (s64)v <= S8_MAX ? 1 : 9;
	case KMT_ENC_S32:
		return 4;
	case KMT_ENC_TEXT32:
		return kmt_text_fits(kmt_text_off(v)) ? 4 : 12;
	case KMT_ENC_DMAP32:
		return !v || kmt_dmap_fits(kmt_dmap_off((void *)(unsigned long)v)) ? 4 : 12;
	}
	return 0;
}

static u8 *kmt_put_field(u8 *p, u8 enc, u64 v)
{
	unsigned int len = kmt_field_len(enc, v);
	u64 slot = v;

	switch (enc) {
	case KMT_ENC_S8X:
		slot = len == 1 ? v : (u8)S8_MIN;
		break;
	case KMT_ENC_TEXT32:
		slot = len == 4 ? (u32)kmt_text_off(v) : (u32)S32_MIN;
		break;
	case KMT_ENC_DMAP32:
		if (!v)
			slot = KMT_DMAP32_NULL;
		else
			slot = len == 4 ? kmt_dmap_off((void *)(unsigned long)v) >> 3 :
			       U32_MAX;
		break;
	case KMT_ENC_S32:
		break;
	default:
		if (len > 8)
			slot = U64_MAX;
		break;
	}
	/* little endian, the slot's width: the low len & 7 bytes */
	switch (len & 7) {
	case 1:
		*p = slot;
		break;
	case 2:
		put_unaligned_le16(slot, p);
		break;
	case 3:
		put_unaligned_le16(slot, p);
		p[2] = slot >> 16;
		break;
	case 4:
		put_unaligned_le32(slot, p);
		break;
	}
	p += len & 7;
	if (len > 8) {
		put_unaligned_le64(v, p);
		p += 8;
	}
	return p;
}

/* A string field's bytes, for kmt_record_fields(). */
struct kmt_str {
	const void	*p;
	size_t		len;
};

/*
 * kmt_record_fields_at - write a record field by field
 * @type:  event type
 * @enc:   the encoding of each of the @n values (the event's layout)
 * @v:     the values: addresses for TEXT32 and DMAP32
 * @n:     number of values
 * @str:   the layout's STR fields after the values, in order, or NULL
 * @nstr:  their number
 * @at:    the record's time, or KMT_NOW
 *
 * Any value fits: too wide ones are escaped.  For the rare events, and for
 * the hot ones when a value does not fit their fast path.
 */
static noinline void kmt_record_fields_at(u8 type, const u8 *enc,
					  const u64 *v, unsigned int n,
					  const struct kmt_str *str,
					  unsigned int nstr, u64 at)
{
	struct kmt_cpu *cb;
	unsigned int plen = 0, i;
	struct kmt_rsv r;
	u8 *p;

	for (i = 0; i < n; i++)
		plen += kmt_field_len(enc[i], v[i]);
	for (i = 0; i < nstr; i++)
		plen += kmt_uvar_len(str[i].len) + str[i].len;
	preempt_disable_notrace();
	cb = this_cpu_ptr(&kmt_cpu_buf);
	if (kmt_reserve_at(cb, type, plen, &r, at)) {
		p = r.p;
		for (i = 0; i < n; i++)
			p = kmt_put_field(p, enc[i], v[i]);
		for (i = 0; i < nstr; i++) {
			p = kmt_put_uvar(p, str[i].len);
			memcpy(p, str[i].p, str[i].len);
			p += str[i].len;
		}
		kmt_commit(cb, &r);
	}
	preempt_enable_notrace();
}

static void kmt_record_fields(u8 type, const u8 *enc, const u64 *v,
			      unsigned int n, const struct kmt_str *str,
			      unsigned int nstr)
{
	kmt_record_fields_at(type, enc, v, n, str, nstr, KMT_NOW);
}

/* Each event's encodings: the layout's, in its order. */
static const u8 kmt_enc_kmalloc[] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_U16X, KMT_ENC_U16X,
	KMT_ENC_U24X, KMT_ENC_S8X,
};

static const u8 kmt_enc_cache_alloc[] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_U16X, KMT_ENC_U24X, KMT_ENC_S8X,
};

static const u8 kmt_enc_free[] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_U16X,
};

static const u8 kmt_enc_page[] = {
	KMT_ENC_U32X, KMT_ENC_U8X, KMT_ENC_U24X, KMT_ENC_S8X,
};

static const u8 kmt_enc_cache_def[] = {
	KMT_ENC_U16X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X,
};

static const u8 kmt_enc_initcall[] = { KMT_ENC_TEXT32, KMT_ENC_S32 };

static const u8 kmt_enc_u32[] = { KMT_ENC_U32X };

/* ---- callers behind wrappers ------------------------------------------ */

/*
 * Out-of-line functions that allocate for their caller without passing
 * the caller's address to the allocator, so the kmem tracepoints name
 * them as the call site.  An allocation whose call site is inside one is
 * recorded with the return addresses after it, out to the first frame
 * outside them all.  A name the kernel does not have (inlined, renamed,
 * configured out) is skipped.
 */
static const char *const kmt_wrapper_names[] = {
	"__kvmalloc_node_noprof", "kvrealloc_noprof", "kvmemdup",
	"kmemdup_array", "kstrdup_const", "kvasprintf", "kvasprintf_const",
	"kasprintf", "kobject_set_name_vargs", "kobject_set_name",
	"dev_set_name", "memdup_user", "vmemdup_user", "memdup_user_nul",
	"strndup_user", "mempool_alloc_slab", "mempool_kmalloc",
	"mempool_init_node", "mempool_init_noprof",
	"mempool_create_node_noprof", "kobject_add", "kobject_init_and_add",
	"devm_kstrdup",
	"devm_kstrdup_const", "devm_kvasprintf", "devm_kasprintf",
	"devm_kmemdup", "kmalloc_reserve",
};

#define KMT_MAX_WRAPPERS	32
/* Frames kept after the call site, and frames looked at to find it. */
#define KMT_VIA_DEPTH		6
#define KMT_VIA_SAVE		24
/* The hot path's filter: one bit per 4 KiB of kernel text. */
#define KMT_WRAP_SHIFT		12

struct kmt_wrapper {
	unsigned long	start;
	unsigned long	size;
	const char	*name;
};

static struct kmt_wrapper kmt_wrappers[KMT_MAX_WRAPPERS] __read_mostly;
static unsigned int kmt_nr_wrappers __read_mostly;
static unsigned long kmt_no_wrap_map;
static unsigned long *kmt_wrap_map __read_mostly = &kmt_no_wrap_map;
static unsigned long kmt_wrap_mask __read_mostly;

/*
 * Whether text offset @cs may be inside a wrapper: a bit per 4 KiB of
 * text, the offset masked into the map's power-of-two size, so an
 * address outside the kernel text may be a false positive, never a miss.
 */
static __always_inline bool kmt_maybe_wrapped(s64 cs)
{
	unsigned long i = ((unsigned long)cs >> KMT_WRAP_SHIFT) &
			  READ_ONCE(kmt_wrap_mask);

	return (READ_ONCE(kmt_wrap_map)[i / BITS_PER_LONG] >>
		(i % BITS_PER_LONG)) & 1;
}

static bool kmt_in_wrapper(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < READ_ONCE(kmt_nr_wrappers); i++)
		if (addr - kmt_wrappers[i].start < kmt_wrappers[i].size)
			return true;
	return false;
}

/* Under kmt_mutex, or at boot: look the wrappers up once. */
static void kmt_find_wrappers(void)
{
	unsigned long addr, size, off, bits, first, last, *map;
	unsigned int i, n = 0;

	if (kmt_wrap_map != &kmt_no_wrap_map)
		return;
	for (i = 0; i < ARRAY_SIZE(kmt_wrapper_names); i++) {
		addr = kallsyms_lookup_name(kmt_wrapper_names[i]);
		if (!addr || addr < (unsigned long)_stext ||
		    addr >= (unsigned long)_etext ||
		    !kallsyms_lookup_size_offset(addr, &size, &off) || off ||
		    n == KMT_MAX_WRAPPERS)
			continue;
		kmt_wrappers[n].start = addr;
		kmt_wrappers[n].size = size;
		kmt_wrappers[n].name = kmt_wrapper_names[i];
		n++;
	}
	if (!n)
		return;
	bits = roundup_pow_of_two(DIV_ROUND_UP((unsigned long)(_etext - _stext),
					       1UL << KMT_WRAP_SHIFT));
	map = bitmap_zalloc(max(bits, BITS_PER_LONG), GFP_KERNEL);
	if (!map)
		return;
	for (i = 0; i < n; i++) {
		first = kmt_text_off(kmt_wrappers[i].start) >> KMT_WRAP_SHIFT;
		last = kmt_text_off(kmt_wrappers[i].start +
				    kmt_wrappers[i].size - 1) >> KMT_WRAP_SHIFT;
		bitmap_set(map, first, last - first + 1);
	}
	WRITE_ONCE(kmt_nr_wrappers, n);
	WRITE_ONCE(kmt_wrap_mask, bits - 1);
	/* Pairs with the READ_ONCE() in kmt_maybe_wrapped(). */
	smp_store_release(&kmt_wrap_map, map);
}

struct kmt_via_walk {
	unsigned long call_site;
	u8 *p;
	unsigned int seen;	/* frames walked to find @call_site */
	unsigned int kept;	/* frames written after it */
	bool found;
};

/*
 * One return address: skip to @call_site, then write the frames after
 * it and stop at the first outside every wrapper, so that the unwinder
 * goes no deeper than the record needs.
 */
static bool kmt_via_frame(void *cookie, unsigned long addr)
{
	struct kmt_via_walk *w = cookie;

	if (!w->found) {
		w->found = addr == w->call_site;
		return ++w->seen < KMT_VIA_SAVE;
	}
	w->p = kmt_put_uvar(w->p, kmt_zigzag(kmt_text_off(addr)));
	return ++w->kept < KMT_VIA_DEPTH && kmt_in_wrapper(addr);
}

/*
 * The return addresses after @call_site, out to the first outside every
 * wrapper, as TEXT varints into @out; none when @call_site is not on the
 * stack (a tail call, an unwinder that cannot see it).
 */
static noinline size_t kmt_via_stack(unsigned long call_site, u8 *out)
{
	struct kmt_via_walk w = { .call_site = call_site, .p = out };
#ifdef CONFIG_ARCH_STACKWALK
	arch_stack_walk(kmt_via_frame, &w, current, NULL);
#else
	unsigned long entries[KMT_VIA_SAVE + KMT_VIA_DEPTH];
	unsigned int nr, i;

	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 1);
	for (i = 0; i < nr && kmt_via_frame(&w, entries[i]); i++)
		;
#endif
	return w.p - out;
}

/*
 * An allocation the fast path does not write: a value too wide for its
 * slot, or a call site inside a wrapper (KMT_EV_KMALLOC_VIA,
 * KMT_EV_CACHE_ALLOC_VIA).  @v[0] is the call site.
 */
static noinline void kmt_record_alloc(u8 type, const u8 *enc, const u64 *v,
				      unsigned int n)
{
	u8 stack[KMT_VIA_DEPTH * 10];
	struct kmt_str str = { stack, 0 };

	if (kmt_in_wrapper(v[0]))
		str.len = kmt_via_stack(v[0], stack);
	if (!str.len) {
		kmt_record_fields(type, enc, v, n, NULL, 0);
		return;
	}
	type = type == KMT_EV_KMALLOC ? KMT_EV_KMALLOC_VIA : KMT_EV_CACHE_ALLOC_VIA;
	kmt_record_fields(type, enc, v, n, &str, 1);
}

static const u8 kmt_enc_text_range[] = {
	KMT_ENC_U8X, KMT_ENC_TEXT32, KMT_ENC_U32X,
};

static void kmt_emit_wrappers(void)
{
	unsigned int i;

	for (i = 0; i < READ_ONCE(kmt_nr_wrappers); i++) {
		u64 v[3] = { KMT_TEXT_WRAPPER, kmt_wrappers[i].start,
			     kmt_wrappers[i].size };
		struct kmt_str name = { kmt_wrappers[i].name,
					strlen(kmt_wrappers[i].name) };

		kmt_record_fields(KMT_EV_TEXT_RANGE, kmt_enc_text_range, v, 3,
				  &name, 1);
	}
}

/* ---- probes ----------------------------------------------------------- */

/*
 * The hot probes write their fixed layout with plain stores, its fields
 * packed into little-endian words where they can; the checks that every
 * value fits are a few instructions.
 */
static void kmt_probe_kmalloc(void *data, unsigned long call_site,
			      const void *ptr, size_t bytes_req,
			      size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	u32 gfp = (__force u32)gfp_flags;
	size_t slack = bytes_alloc - bytes_req;
	s64 cs = kmt_text_off(call_site);
	u64 off = kmt_dmap_off(ptr);
	struct kmt_cpu *cb;
	struct kmt_rsv r;
	u64 w0, w1;

	/* both sizes below 0xffff, or the general path: it writes the same */
	if (unlikely(!kmt_text_fits(cs) || !kmt_dmap_fits(off) ||
		     (bytes_req | slack) >= 0xffff || gfp >= 0xffffff ||
		     !kmt_s8_fits(node) || kmt_maybe_wrapped(cs))) {
		u64 v[6] = { call_site, (unsigned long)ptr, bytes_req, slack,
			     gfp, (s64)node };

		kmt_record_alloc(KMT_EV_KMALLOC, kmt_enc_kmalloc, v, 6);
		return;
	}
	/* the layout's fields, little endian, as two words */
	w0 = kmt_site_ptr(cs, off);
	w1 = bytes_req | slack << 16 | (u64)(gfp | (u32)node << 24) << 32;
	cb = this_cpu_ptr(&kmt_cpu_buf);
	if (!kmt_reserve(cb, KMT_EV_KMALLOC, 16, &r))
		return;
	put_unaligned_le64(w0, r.p);
	put_unaligned_le64(w1, r.p + 8);
	kmt_commit(cb, &r);
}

static void kmt_probe_cache_alloc(void *data, unsigned long call_site,
				  const void *ptr, struct kmem_cache *s,
				  gfp_t gfp_flags, int node)
{
	struct kmt_cpu *cb = this_cpu_ptr(&kmt_cpu_buf);
	u32 gfp = (__force u32)gfp_flags;
	unsigned int id = READ_ONCE(s->kmt_id);
	s64 cs = kmt_text_off(call_site);
	u64 off = kmt_dmap_off(ptr);
	struct kmt_rsv r;

	if (unlikely(!kmt_text_fits(cs) || !kmt_dmap_fits(off) ||
		     id >= 0xffff || gfp >= 0xffffff || !kmt_s8_fits(node) ||
		     kmt_maybe_wrapped(cs))) {
		u64 v[5] = { call_site, (unsigned long)ptr, id, gfp, (s64)node };

		kmt_record_alloc(KMT_EV_CACHE_ALLOC, kmt_enc_cache_alloc, v, 5);
		return;
	}
	if (!kmt_reserve(cb, KMT_EV_CACHE_ALLOC, 14, &r))
		return;
	put_unaligned_le64(kmt_site_ptr(cs, off), r.p);
	put_unaligned_le16(id, r.p + 8);
	put_unaligned_le32(gfp | (u32)node << 24, r.p + 10);
	kmt_commit(cb, &r);
}

static __always_inline void kmt_free(u8 type, unsigned long call_site,
				     const void *ptr, unsigned int id)
{
	struct kmt_cpu *cb = this_cpu_ptr(&kmt_cpu_buf);
	unsigned int plen = type == KMT_EV_KFREE ? 8 : 10;
	s64 cs = kmt_text_off(call_site);
	u64 off = kmt_dmap_off(ptr);
	struct kmt_rsv r;

	if (unlikely(!kmt_text_fits(cs) || !kmt_dmap_fits(off) || id >= 0xffff)) {
		u64 v[3] = { call_site, (unsigned long)ptr, id };

		kmt_record_fields(type, kmt_enc_free, v,
				  type == KMT_EV_KFREE ? 2 : 3, NULL, 0);
		return;
	}
	if (!kmt_reserve(cb, type, plen, &r))
		return;
	put_unaligned_le64(kmt_site_ptr(cs, off), r.p);
	if (type != KMT_EV_KFREE)
		put_unaligned_le16(id, r.p + 8);
	kmt_commit(cb, &r);
}

static void kmt_probe_kfree(void *data, unsigned long call_site,
			    const void *ptr)
{
	kmt_free(KMT_EV_KFREE, call_site, ptr, 0);
}

static void kmt_probe_cache_free(void *data, unsigned long call_site,
				 const void *ptr, const struct kmem_cache *s)
{
	kmt_free(KMT_EV_CACHE_FREE, call_site, ptr, s ? READ_ONCE(s->kmt_id) : 0);
}

/* Off until the kmem probes are registered, with them. */
DEFINE_STATIC_KEY_FALSE(kmemtrace_hook_key);

void __kmemtrace_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t nr,
			    void **p, unsigned long call_site)
{
	size_t i;

	preempt_disable_notrace();
	for (i = 0; i < nr; i++)
		kmt_probe_cache_alloc(NULL, call_site, p[i], s, flags,
				      NUMA_NO_NODE);
	preempt_enable_notrace();
}

void __kmemtrace_free_bulk(struct kmem_cache *s, size_t nr, void **p,
			   unsigned long call_site)
{
	unsigned int id = s ? READ_ONCE(s->kmt_id) : 0;
	size_t i;

	preempt_disable_notrace();
	for (i = 0; i < nr; i++) {
		if (!p[i])
			continue;
		if (s)
			kmt_free(KMT_EV_CACHE_FREE, call_site, p[i], id);
		else
			kmt_free(KMT_EV_KFREE, call_site, p[i], 0);
	}
	preempt_enable_notrace();
}

static const u8 kmt_enc_vmalloc[] = {
	KMT_ENC_U8X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_TEXT32,
};

void __kmemtrace_vmalloc(enum kmt_vmalloc_op op, const void *addr,
			 unsigned int nr_pages, unsigned long caller)
{
	u64 v[4] = { op, (unsigned long)addr, nr_pages, caller };

	kmt_record_fields(KMT_EV_VMALLOC, kmt_enc_vmalloc, v, 4, NULL, 0);
}

static __always_inline u64 kmt_pfn1(struct page *page)
{
	return page ? page_to_pfn(page) + 1 : 0;
}

/*
 * The page tracepoints carry no caller: with kmemtrace.page_stack=N the
 * record ends with N return addresses, as TEXT varints in a STR field,
 * from the allocator's frames outwards.  Readers skip the allocator's.
 */
static noinline void kmt_page_alloc_fields(u64 pfn1, unsigned int order,
					   u32 gfp, int migratetype)
{
	unsigned long entries[KMT_MAX_STACK];
	u8 stack[KMT_MAX_STACK * 10], *p = stack;
	unsigned int i, nr = 0;
	u64 v[4] = { pfn1, order, gfp, (s64)migratetype };
	struct kmt_str str;

	if (kmt_page_stack)	/* skip this function's and the probe's frames */
		nr = stack_trace_save(entries, kmt_page_stack, 2);
	for (i = 0; i < nr; i++)
		p = kmt_put_uvar(p, kmt_zigzag(kmt_text_off(entries[i])));
	str.p = stack;
	str.len = p - stack;
	kmt_record_fields(KMT_EV_PAGE_ALLOC, kmt_enc_page, v, 4, &str, 1);
}

static void kmt_probe_page_alloc(void *data, struct page *page,
				 unsigned int order, gfp_t gfp_flags,
				 int migratetype)
{
	u32 gfp = (__force u32)gfp_flags;
	u64 pfn1 = kmt_pfn1(page);
	struct kmt_cpu *cb;
	struct kmt_rsv r;

	if (unlikely(kmt_page_stack || pfn1 >= 0xffffffff || order >= 0xff ||
		     gfp >= 0xffffff || !kmt_s8_fits(migratetype))) {
		kmt_page_alloc_fields(pfn1, order, gfp, migratetype);
		return;
	}
	cb = this_cpu_ptr(&kmt_cpu_buf);
	if (!kmt_reserve(cb, KMT_EV_PAGE_ALLOC, 10, &r))
		return;
	/* pfn1, order, GFP; migratetype and an empty stack */
	put_unaligned_le64(pfn1 | (u64)order << 32 | (u64)gfp << 40, r.p);
	put_unaligned_le16((u8)migratetype, r.p + 8);
	kmt_commit(cb, &r);
}

void __kmemtrace_alloc_pages_bulk(struct page *page, gfp_t gfp,
				  int migratetype)
{
	preempt_disable_notrace();
	kmt_probe_page_alloc(NULL, page, 0, gfp, migratetype);
	preempt_enable_notrace();
}

static __always_inline void kmt_page_free(u8 type, struct page *page,
					  unsigned int order)
{
	struct kmt_cpu *cb = this_cpu_ptr(&kmt_cpu_buf);
	unsigned int plen = type == KMT_EV_PAGE_FREE ? 5 : 4;
	u64 pfn1 = kmt_pfn1(page);
	struct kmt_rsv r;

	if (unlikely(pfn1 >= 0xffffffff || order >= 0xff)) {
		u64 v[2] = { pfn1, order };

		kmt_record_fields(type, kmt_enc_page, v,
				  type == KMT_EV_PAGE_FREE ? 2 : 1, NULL, 0);
		return;
	}
	if (!kmt_reserve(cb, type, plen, &r))
		return;
	put_unaligned_le32(pfn1, r.p);
	if (type == KMT_EV_PAGE_FREE)
		r.p[4] = order;
	kmt_commit(cb, &r);
}

static void kmt_probe_page_free(void *data, struct page *page,
				unsigned int order)
{
	kmt_page_free(KMT_EV_PAGE_FREE, page, order);
}

static void kmt_probe_page_free_batched(void *data, struct page *page)
{
	kmt_page_free(KMT_EV_PAGE_FREE_BATCHED, page, 0);
}

/* ---- cache definitions and marks -------------------------------------- */

static void kmt_record_str(u8 type, const u8 *enc, const u64 *v,
			   unsigned int n, const char *str)
{
	struct kmt_str s = { str, strnlen(str, KMT_MAX_NAME) };

	kmt_record_fields(type, enc, v, n, &s, 1);
}

static void kmt_emit_cache_def(struct kmem_cache *s)
{
	u64 v[5];

	v[0] = s->kmt_id;
	v[1] = s->object_size;
	v[2] = s->size;
	v[3] = s->align;
	v[4] = (__force unsigned int)s->flags;
	kmt_record_str(KMT_EV_CACHE_DEF, kmt_enc_cache_def, v, ARRAY_SIZE(v),
		       s->name ? s->name : "");
}

/* ---- memblock -------------------------------------------------------- */

/*
 * memblock reserves memory from the first lines of setup_arch() on, long
 * before the recorder can start (kmemtrace.enable is not even parsed
 * yet): its events wait in this init-time array, whatever kmemtrace.enable
 * says, and go into the trace in order when the recorder starts at boot.
 * Only the boot CPU runs until then, so no lock.  The array goes away
 * with the init sections; a recorder started later through tracefs has
 * only the memblock events from then on.
 */
struct kmt_mb_early {
	u64	ts;		/* local_clock(): 0 before the clock runs */
	u64	base;
	u64	size;
	s32	caller;		/* from _stext: callers are in vmlinux */
	s16	nid;
	u8	op;		/* enum kmt_memblock_op */
	u8	flags;		/* enum memblock_flags */
};

static struct kmt_mb_early kmt_mb_early[CONFIG_KMEMTRACE_MEMBLOCK_EARLY] __initdata;
static unsigned int kmt_mb_kept __initdata;
static unsigned int kmt_mb_dropped __initdata;
/* kmemtrace_init() ran: memblock events are recorded live, or not at all */
static bool kmt_mb_live __read_mostly;

static const u8 kmt_enc_memblock[] = {
	KMT_ENC_U8X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_S8X, KMT_ENC_U8X,
	KMT_ENC_TEXT32,
};

static const u8 kmt_enc_memblock_early[] = {
	KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X,
};

static void kmt_record_memblock(u64 at, u8 op, u64 base, u64 size, int nid,
				unsigned int flags, unsigned long caller,
				const char *what)
{
	u64 v[6] = { op, base, size, (s64)nid, flags, caller };
	struct kmt_str str = { what ?: "", what ? strnlen(what, KMT_MAX_NAME) : 0 };

	kmt_record_fields_at(KMT_EV_MEMBLOCK, kmt_enc_memblock, v,
			     ARRAY_SIZE(v), &str, 1, at);
}

static void __init kmt_mb_keep(enum kmt_memblock_op op, phys_addr_t base,
			       phys_addr_t size, int nid, unsigned int flags,
			       unsigned long caller)
{
	struct kmt_mb_early *e;

	if (kmt_mb_kept >= ARRAY_SIZE(kmt_mb_early)) {
		kmt_mb_dropped++;
		return;
	}
	e = &kmt_mb_early[kmt_mb_kept++];
	e->ts = local_clock();
	e->base = base;
	e->size = size;
	e->caller = (s32)kmt_text_off(caller);
	e->nid = nid;
	e->op = op;
	e->flags = flags;
}

/**
 * kmemtrace_memblock - record a memblock event
 * @op: what happened (enum kmt_memblock_op)
 * @base: physical address of the range
 * @size: its bytes
 * @nid: the node asked for, %NUMA_NO_NODE for any
 * @flags: enum memblock_flags of the range or allocation
 * @caller: the first function outside memblock
 * @what: what free_reserved_area() frees ("unused kernel image
 *        (initmem)"), or NULL
 *
 * Called by memblock for every range it adds, removes, reserves,
 * allocates and frees, and by memblock_free_late() and
 * free_reserved_area() for reserved memory given to the buddy allocator.
 * Before kmemtrace_init() the event is kept for the recorder; after it,
 * it is recorded while the recorder records.
 */
void __ref kmemtrace_memblock(enum kmt_memblock_op op, phys_addr_t base,
			      phys_addr_t size, int nid, unsigned int flags,
			      unsigned long caller, const char *what)
{
	if (!READ_ONCE(kmt_mb_live)) {
		kmt_mb_keep(op, base, size, nid, flags, caller);
		return;
	}
	if (READ_ONCE(kmt_recording) &&
	    (READ_ONCE(kmt_groups) & BIT(KMT_GROUP_KMEM)))
		kmt_record_memblock(KMT_NOW, op, base, size, nid, flags, caller,
				    what);
}

/* ---- pages before the probes ------------------------------------------ */

/*
 * The page allocator works from mem_init() on, the tracepoint probes only
 * from kmemtrace_init() (registering one allocates): in between, mem_init()
 * allocates the page tables of the vmalloc area (x86-64 preallocates
 * them, 256 KiB) and kmem_cache_init() the slabs of the boot caches.  The
 * page allocator hands those pages here while kmemtrace_early_key is on;
 * they wait, with their callers, like the memblock events, until each
 * page probe is registered.  A free is kept only for a page kept
 * allocated: mem_init() frees all the free memory into the buddy
 * allocator.  Only the boot CPU runs, interrupts off: no lock.
 */
#define KMT_PG_EARLY		512
#define KMT_PG_EARLY_STACK	6

struct kmt_pg_early {
	u64	ts;
	u64	pfn1;
	u32	gfp;
	u8	order;
	s8	migratetype;
	u8	free;
	u8	nr;		/* return addresses in @frames */
	s32	frames[KMT_PG_EARLY_STACK];
};

DEFINE_STATIC_KEY_FALSE(kmemtrace_early_key);
static struct kmt_pg_early kmt_pg_early[KMT_PG_EARLY] __initdata;
static unsigned int kmt_pg_kept __initdata;
static unsigned int kmt_pg_dropped __initdata;
static unsigned int kmt_pg_replayed __initdata;
/* A buffer's sub-buffers are being allocated: KMT_EV_BUFFER names them. */
static bool kmt_pg_pause;
/* Set as the page probes are registered: from then on they record. */
static bool kmt_pg_alloc_live __read_mostly;
static bool kmt_pg_free_live __read_mostly;

/**
 * kmemtrace_early_pages - keep the pages allocated until the probes attach
 *
 * Called by mm_core_init() before mem_init() hands the free memory to the
 * buddy allocator.  kmemtrace_init() ends it.
 */
void __init kmemtrace_early_pages(void)
{
	static_branch_enable(&kmemtrace_early_key);
}

static bool __init kmt_pg_was_kept(u64 pfn1)
{
	unsigned int i = kmt_pg_kept;

	while (i--)
		if (kmt_pg_early[i].pfn1 == pfn1)
			return !kmt_pg_early[i].free;
	return false;
}

void __ref __kmemtrace_early_page(struct page *page, unsigned int order,
				  gfp_t gfp, int migratetype, bool free)
{
	unsigned long entries[KMT_PG_EARLY_STACK];
	struct kmt_pg_early *e;
	unsigned int i, nr = 0;
	u64 pfn1;

	if (!page || kmt_pg_pause ||
	    (free ? READ_ONCE(kmt_pg_free_live) : READ_ONCE(kmt_pg_alloc_live)))
		return;
	pfn1 = page_to_pfn(page) + 1;
	if (free && !kmt_pg_was_kept(pfn1))
		return;
	if (kmt_pg_kept >= ARRAY_SIZE(kmt_pg_early)) {
		kmt_pg_dropped++;
		return;
	}
	if (!free && kmt_page_stack)
		nr = stack_trace_save(entries, min(kmt_page_stack,
						   KMT_PG_EARLY_STACK), 1);
	e = &kmt_pg_early[kmt_pg_kept++];
	e->ts = local_clock();
	e->pfn1 = pfn1;
	e->gfp = (__force u32)gfp;
	e->order = order;
	e->migratetype = migratetype;
	e->free = free;
	e->nr = nr;
	for (i = 0; i < nr; i++)
		e->frames[i] = (s32)kmt_text_off(entries[i]);
}

static void __init kmt_pg_record(const struct kmt_pg_early *e)
{
	u8 stack[KMT_PG_EARLY_STACK * 10], *p = stack;
	u64 v[4] = { e->pfn1, e->order, e->gfp, (s64)e->migratetype };
	struct kmt_str str;
	unsigned int i;

	if (e->free) {
		kmt_record_fields_at(KMT_EV_PAGE_FREE, kmt_enc_page, v, 2,
				     NULL, 0, e->ts);
		return;
	}
	for (i = 0; i < e->nr; i++)
		p = kmt_put_uvar(p, kmt_zigzag(e->frames[i]));
	str.p = stack;
	str.len = p - stack;
	kmt_record_fields_at(KMT_EV_PAGE_ALLOC, kmt_enc_page, v, 4, &str, 1,
			     e->ts);
}

/*
 * Write the kept memblock events and pages into the boot CPU's empty
 * buffer, in the order they happened, at their own times: the first
 * records of the trace.
 */
static void __init kmt_early_replay(void)
{
	const struct kmt_mb_early *e;
	unsigned int i = 0, j = 0;

	/* Nothing recorded yet: let the buffer's time start at the first. */
	this_cpu_ptr(&kmt_cpu_buf)->last_ts = 0;
	while (i < kmt_mb_kept || j < kmt_pg_kept) {
		if (j < kmt_pg_kept && (i == kmt_mb_kept ||
					kmt_pg_early[j].ts < kmt_mb_early[i].ts)) {
			kmt_pg_record(&kmt_pg_early[j++]);
			continue;
		}
		e = &kmt_mb_early[i++];
		kmt_record_memblock(e->ts, e->op, e->base, e->size, e->nid,
				    e->flags, (unsigned long)_stext + e->caller,
				    NULL);
	}
	kmt_pg_replayed = j;
}

/*
 * The pages kept while the probes were being registered (a new slab for
 * a probe array), after the records of the start; then how many early
 * events there were and how many did not fit.  @record: the recorder
 * started and records the kmem group.
 */
static void __init kmt_early_finish(bool record)
{
	u64 v[5] = { kmt_mb_kept, kmt_mb_dropped, ARRAY_SIZE(kmt_mb_early),
		     kmt_pg_kept, kmt_pg_dropped };

	static_branch_disable(&kmemtrace_early_key);
	if (!record)
		return;
	while (kmt_pg_replayed < kmt_pg_kept)
		kmt_pg_record(&kmt_pg_early[kmt_pg_replayed++]);
	kmt_record_fields(KMT_EV_MEMBLOCK_EARLY, kmt_enc_memblock_early, v,
			  ARRAY_SIZE(v), NULL, 0);
	if (kmt_mb_dropped)
		pr_warn("%u memblock events did not fit in CONFIG_KMEMTRACE_MEMBLOCK_EARLY=%zu before the recorder started; they are counted, not recorded\n",
			kmt_mb_dropped, ARRAY_SIZE(kmt_mb_early));
	if (kmt_pg_dropped)
		pr_warn("%u page events from before the probes did not fit in %zu entries; they are counted, not recorded\n",
			kmt_pg_dropped, ARRAY_SIZE(kmt_pg_early));
}

/* Boot phases: initcall levels and functions, and what pid 1 execs. */
static void kmt_probe_initcall_level(void *data, const char *level)
{
	kmt_record_str(KMT_EV_INITCALL_LEVEL, NULL, NULL, 0, level);
}

static void kmt_probe_initcall_start(void *data, initcall_t func)
{
	u64 v = (unsigned long)func;

	kmt_record_fields(KMT_EV_INITCALL_START, kmt_enc_initcall, &v, 1,
			  NULL, 0);
}

static void kmt_probe_initcall_finish(void *data, initcall_t func, int ret)
{
	u64 v[2] = { (unsigned long)func, (s64)ret };

	kmt_record_fields(KMT_EV_INITCALL_FINISH, kmt_enc_initcall, v, 2,
			  NULL, 0);
}

/* ---- tasks: who allocates in user space ------------------------------ */

static const u8 kmt_enc_task[] = { KMT_ENC_U8X, KMT_ENC_U32X, KMT_ENC_U32X };

/*
 * Longest filename and cgroup path a task record keeps: their last bytes,
 * where the program's and the unit's names are; and the buffer a cgroup
 * path is read into.
 */
#define KMT_TASK_PATH	128
#define KMT_CGROUP_BUF	256

/* The last KMT_TASK_PATH bytes of @s, "" for NULL. */
static struct kmt_str kmt_tail(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	struct kmt_str t = { s, len };

	if (len > KMT_TASK_PATH) {
		t.p = s + len - KMT_TASK_PATH;
		t.len = KMT_TASK_PATH;
	}
	return t;
}

/*
 * A KMT_EV_TASK record: @op on task @pid (parent @ppid), its @comm, what
 * it executed, its cgroup; a missing string is written empty.
 */
static void kmt_record_task(u8 op, pid_t pid, pid_t ppid, const char *comm,
			    const char *filename, const char *cgroup)
{
	u64 v[3] = { op, pid, ppid };
	struct kmt_str str[3] = {
		{ comm, comm ? strnlen(comm, TASK_COMM_LEN) : 0 },
		kmt_tail(filename),
		kmt_tail(cgroup),
	};

	kmt_record_fields(KMT_EV_TASK, kmt_enc_task, v, 3, str, 3);
}

#ifdef CONFIG_CGROUPS
/* @p's cgroup v2 path into @buf, "" when it cannot be had. */
static const char *kmt_cgroup_of(struct task_struct *p, char *buf, size_t len)
{
	int ret;

	rcu_read_lock();
	ret = cgroup_path(task_dfl_cgroup(p), buf, len);
	rcu_read_unlock();
	/* cut: its head only, without the unit at its end */
	if (ret < 0 || ret >= len)
		buf[0] = '\0';
	return buf;
}

/* A move in the cgroup v2 hierarchy (v1 hierarchies say nothing of units). */
static void kmt_probe_cgroup_attach(void *data, struct cgroup *dst,
				    const char *path, struct task_struct *p,
				    bool threadgroup)
{
	if (dst->root != &cgrp_dfl_root)
		return;
	kmt_record_task(KMT_TASK_CGROUP, task_pid_nr(p), threadgroup, p->comm,
			NULL, path);
}
#else
static const char *kmt_cgroup_of(struct task_struct *p, char *buf, size_t len)
{
	return NULL;
}
#endif

static void kmt_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	char cgroup[KMT_CGROUP_BUF];

	if (task_pid_nr(p) == 1)
		kmt_record_str(KMT_EV_INIT_EXEC, NULL, NULL, 0, bprm->filename);
	kmt_record_task(KMT_TASK_EXEC, task_pid_nr(p), 0, p->comm,
			bprm->filename, kmt_cgroup_of(p, cgroup, sizeof(cgroup)));
}

/*
 * A new task, process or thread.  Its cgroup is its parent's unless it
 * was cloned into another one (clone3() with CLONE_INTO_CGROUP): only
 * then is the path written.
 */
static void kmt_probe_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	const char *cgroup = NULL;
#ifdef CONFIG_CGROUPS
	char buf[KMT_CGROUP_BUF];
	bool moved;

	rcu_read_lock();
	moved = task_dfl_cgroup(child) != task_dfl_cgroup(parent);
	rcu_read_unlock();
	if (moved)
		cgroup = kmt_cgroup_of(child, buf, sizeof(buf));
#endif
	kmt_record_task(KMT_TASK_NEW, task_pid_nr(child), task_pid_nr(parent),
			child->comm, NULL, cgroup);
}

/* exec names the task too, in its own record: not twice */
static void kmt_probe_rename(void *data, struct task_struct *p,
			     const char *comm)
{
	if (p == current && current->in_execve)
		return;
	kmt_record_task(KMT_TASK_RENAME, task_pid_nr(p), 0, comm, NULL, NULL);
}

/* ---- latency: direct reclaim, shrinkers, compaction ------------------ */

static const u8 kmt_enc_stall[] = { KMT_ENC_U8X, KMT_ENC_U24X, KMT_ENC_U8X };

static const u8 kmt_enc_lru[] = {
	KMT_ENC_S8X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U8X, KMT_ENC_U8X,
};

static const u8 kmt_enc_shrink_start[] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_S8X, KMT_ENC_U24X, KMT_ENC_U32X,
	KMT_ENC_U32X, KMT_ENC_U8X,
};

static const u8 kmt_enc_shrink_end[] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_S8X, KMT_ENC_S32, KMT_ENC_U32X,
};

/*
 * An allocation enters direct reclaim or compaction: its order and GFP
 * flags (and compaction's priority), the task's comm and the return
 * addresses that lead here, from which readers take the allocation's
 * caller.  Rare and slow next to what follows it, so always with a stack.
 */
static noinline void kmt_record_stall(u8 type, u64 order, gfp_t gfp_flags,
				      int prio)
{
	unsigned long entries[KMT_MAX_STACK];
	u8 stack[KMT_MAX_STACK * 10], *p = stack;
	u64 v[3] = { order, (__force u32)gfp_flags, prio };
	struct kmt_str str[2];
	unsigned int i, nr;

	/* skip this function's and the probe's frames */
	nr = stack_trace_save(entries, KMT_MAX_STACK, 2);
	for (i = 0; i < nr; i++)
		p = kmt_put_uvar(p, kmt_zigzag(kmt_text_off(entries[i])));
	str[0].p = current->comm;
	str[0].len = strnlen(current->comm, TASK_COMM_LEN);
	str[1].p = stack;
	str[1].len = p - stack;
	kmt_record_fields(type, kmt_enc_stall, v,
			  type == KMT_EV_COMPACT_TRY ? 3 : 2, str, 2);
}

static void kmt_stall_begin(int order, gfp_t gfp);
static void kmt_stall_end(void);

static void kmt_probe_reclaim_begin(void *data, int order, gfp_t gfp_flags)
{
	kmt_record_stall(KMT_EV_RECLAIM_BEGIN, order, gfp_flags, 0);
	kmt_stall_begin(order, gfp_flags);
}

static void kmt_probe_reclaim_end(void *data, unsigned long nr_reclaimed)
{
	u64 v = nr_reclaimed;

	kmt_record_fields(KMT_EV_RECLAIM_END, kmt_enc_u32, &v, 1, NULL, 0);
	kmt_stall_end();
}

static void kmt_probe_lru_shrink_inactive(void *data, int nid,
					  unsigned long nr_scanned,
					  unsigned long nr_reclaimed,
					  struct reclaim_stat *stat,
					  int priority, int file)
{
	u64 v[5] = { (s64)nid, nr_scanned, nr_reclaimed, priority, !!file };

	kmt_record_fields(KMT_EV_LRU_SHRINK_INACTIVE, kmt_enc_lru, v, 5, NULL, 0);
}

/* The shrinker's debugfs name ("sb-ext4"), where the kernel keeps one. */
static const char *kmt_shrinker_name(struct shrinker *shr)
{
#ifdef CONFIG_SHRINKER_DEBUG
	if (shr->name)
		return shr->name;
#endif
	return "";
}

static void kmt_probe_shrink_start(void *data, struct shrinker *shr,
				   struct shrink_control *sc,
				   long nr_objects_to_shrink,
				   unsigned long cache_items,
				   unsigned long long delta,
				   unsigned long total_scan, int priority)
{
	u64 v[7] = { (unsigned long)shr->scan_objects, (unsigned long)shr,
		     (s64)sc->nid, (__force u32)sc->gfp_mask, cache_items,
		     total_scan, priority };

	kmt_record_str(KMT_EV_SHRINK_START, kmt_enc_shrink_start, v,
		       ARRAY_SIZE(v), kmt_shrinker_name(shr));
}

static void kmt_probe_shrink_end(void *data, struct shrinker *shr, int nid,
				 int shrinker_retval, long unused_scan_cnt,
				 long new_scan_cnt, long total_scan)
{
	u64 v[5] = { (unsigned long)shr->scan_objects, (unsigned long)shr,
		     (s64)nid, (s64)shrinker_retval, total_scan };

	kmt_record_fields(KMT_EV_SHRINK_END, kmt_enc_shrink_end, v, 5, NULL, 0);
}

#ifdef CONFIG_COMPACTION
static const u8 kmt_enc_compact[] = {
	KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U8X,
	KMT_ENC_U8X,
};

static void kmt_probe_compact_try(void *data, int order, gfp_t gfp_mask,
				  int prio)
{
	kmt_record_stall(KMT_EV_COMPACT_TRY, order, gfp_mask, prio);
}

/* enum compact_result in the trace's own numbers */
static u8 kmt_compact_status(int status)
{
	switch (status) {
	case COMPACT_NOT_SUITABLE_ZONE: return KMT_COMPACT_NOT_SUITABLE_ZONE;
	case COMPACT_SKIPPED: return KMT_COMPACT_SKIPPED;
	case COMPACT_DEFERRED: return KMT_COMPACT_DEFERRED;
	case COMPACT_NO_SUITABLE_PAGE: return KMT_COMPACT_NO_SUITABLE_PAGE;
	case COMPACT_CONTINUE: return KMT_COMPACT_CONTINUE;
	case COMPACT_COMPLETE: return KMT_COMPACT_COMPLETE;
	case COMPACT_PARTIAL_SKIPPED: return KMT_COMPACT_PARTIAL_SKIPPED;
	case COMPACT_CONTENDED: return KMT_COMPACT_CONTENDED;
	case COMPACT_SUCCESS: return KMT_COMPACT_SUCCESS;
	}
	return KMT_COMPACT_UNKNOWN;
}

static void kmt_probe_compact_begin(void *data, struct compact_control *cc,
				    unsigned long zone_start,
				    unsigned long zone_end, bool sync)
{
	u64 v[5] = { zone_start, zone_end, cc->migrate_pfn, cc->free_pfn, sync };

	kmt_record_fields(KMT_EV_COMPACT_BEGIN, kmt_enc_compact, v, 5, NULL, 0);
}

static void kmt_probe_compact_end(void *data, struct compact_control *cc,
				  unsigned long zone_start,
				  unsigned long zone_end, bool sync, int status)
{
	u64 v[6] = { zone_start, zone_end, cc->migrate_pfn, cc->free_pfn, sync,
		     kmt_compact_status(status) };

	kmt_record_fields(KMT_EV_COMPACT_END, kmt_enc_compact, v, 6, NULL, 0);
}
#endif

static const u8 kmt_enc_mark[] = {
	KMT_ENC_U8X, KMT_ENC_U8X, KMT_ENC_U32X, KMT_ENC_U8X, KMT_ENC_U24X,
	KMT_ENC_U16X,
};

static void kmt_emit_mark(enum kmt_mark mark)
{
	const struct kmt_str none[2] = { { "", 0 }, { "", 0 } };
	u64 v[ARRAY_SIZE(kmt_enc_mark)] = { mark };

	kmt_record_fields(KMT_EV_MARK, kmt_enc_mark, v, ARRAY_SIZE(v), none, 2);
}

/* ---- flight mode: triggers that freeze -------------------------------- */

static const char *const kmt_trigger_names[KMT_NR_TRIGGERS] = {
	[KMT_TRIG_MANUAL] = "manual",
	[KMT_TRIG_OOM] = "oom",
	[KMT_TRIG_PAGE_ALLOC_FAIL] = "page_alloc_fail",
	[KMT_TRIG_SLAB_ALLOC_FAIL] = "slab_alloc_fail",
	[KMT_TRIG_MEMCG_OOM] = "memcg_oom",
	[KMT_TRIG_RECLAIM_STALL] = "reclaim_stall",
};

#define KMT_TRIGGERS_ALL	(BIT(KMT_NR_TRIGGERS) - 2)
/* A memory cgroup at its limit is the cgroup's business, not the machine's. */
#define KMT_TRIGGERS_DEFAULT	(KMT_TRIGGERS_ALL & ~BIT(KMT_TRIG_MEMCG_OOM))

/* On while the recorder records in flight mode: the hooks call in. */
DEFINE_STATIC_KEY_FALSE(kmemtrace_trigger_key);
/* Bits of enum kmt_trigger that freeze. */
static unsigned long kmt_triggers __read_mostly = KMT_TRIGGERS_DEFAULT;
/* The trigger that froze the recorder, 0 while armed. */
static atomic_t kmt_frozen_by = ATOMIC_INIT(0);
/* Set once every CPU was told to stop, cleared when armed again. */
static bool kmt_frozen_done;
static u64 kmt_trigger_ts, kmt_frozen_ts;
static DECLARE_WAIT_QUEUE_HEAD(kmt_frozen_wait);

static void kmt_frozen_wakeup(struct irq_work *work)
{
	wake_up_all(&kmt_frozen_wait);
}

static DEFINE_IRQ_WORK(kmt_frozen_work, kmt_frozen_wakeup);

/*
 * Freeze the recorder for @trig: write the trigger's record, then tell
 * every CPU's writers to open no sub-buffer: each CPU writes on into the
 * one it has open until it is full (or a reader flushes it), and from
 * then on drops its events uncounted, so that nothing older is ever
 * overwritten.  The check is on the writers' slow path, and costs the
 * hot path nothing.  Any context, NMI aside: the OOM killer with its
 * locks, an atomic allocation failing in an interrupt.  The first
 * trigger wins; later ones find the recorder frozen.
 */
static noinline void kmt_freeze(enum kmt_trigger trig,
				struct task_struct *task, int order,
				gfp_t gfp, unsigned int cache)
{
	unsigned long entries[KMT_MAX_STACK];
	u8 stack[KMT_MAX_STACK * 10], *p = stack;
	u64 v[ARRAY_SIZE(kmt_enc_mark)];
	struct kmt_str str[2];
	unsigned int i, nr;
	int cpu;
	u64 ts;

	if (!READ_ONCE(kmt_recording) || READ_ONCE(kmt_mode) != KMT_MODE_FLIGHT ||
	    !(READ_ONCE(kmt_triggers) & BIT(trig)))
		return;
	if (atomic_cmpxchg(&kmt_frozen_by, 0, trig))
		return;
	/* skip this function's frame (the hook tail-calls it: not the hook's) */
	nr = stack_trace_save(entries, KMT_MAX_STACK, 1);
	for (i = 0; i < nr; i++)
		p = kmt_put_uvar(p, kmt_zigzag(kmt_text_off(entries[i])));
	v[0] = KMT_MARK_FROZEN;
	v[1] = trig;
	v[2] = task ? task_pid_nr(task) : 0;
	/* a forced OOM kill has no allocation: order 255 */
	v[3] = order < 0 ? 255 : order;
	v[4] = (__force u32)gfp;
	v[5] = cache;
	str[0].p = task ? task->comm : "";
	str[0].len = task ? strnlen(task->comm, TASK_COMM_LEN) : 0;
	str[1].p = stack;
	str[1].len = p - stack;
	ts = local_clock();
	kmt_record_fields_at(KMT_EV_MARK, kmt_enc_mark, v, ARRAY_SIZE(v),
			     str, 2, ts);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&kmt_cpu_buf, cpu)->frozen, true);
	/* The stops before the time that says they were made. */
	smp_mb();
	WRITE_ONCE(kmt_trigger_ts, ts);
	WRITE_ONCE(kmt_frozen_ts, local_clock());
	/* Pairs with the acquire in kmt_is_frozen(). */
	smp_store_release(&kmt_frozen_done, true);
	irq_work_queue(&kmt_frozen_work);
}

static bool kmt_is_frozen(void)
{
	/* Pairs with the release in kmt_freeze(): its times are set. */
	return smp_load_acquire(&kmt_frozen_done);
}

/**
 * __kmemtrace_oom - the OOM killer chose @victim
 * @victim: the task it will kill
 * @order:  order of the allocation that failed, -1 for a forced kill
 * @gfp:    its GFP flags
 * @memcg:  the OOM is a memory cgroup's, not the machine's
 *
 * Freezes the recorder in flight mode when the "oom" trigger is on, or
 * for a memory cgroup's OOM the "memcg_oom" trigger.
 */
void __kmemtrace_oom(struct task_struct *victim, int order, gfp_t gfp,
		     bool memcg)
{
	kmt_freeze(memcg ? KMT_TRIG_MEMCG_OOM : KMT_TRIG_OOM, victim, order,
		   gfp, 0);
}

/**
 * __kmemtrace_alloc_failed - an allocation failed
 * @trig:  KMT_TRIG_PAGE_ALLOC_FAIL or KMT_TRIG_SLAB_ALLOC_FAIL
 * @gfp:   its GFP flags; with __GFP_NOWARN the failure was expected
 * @order: the order of the pages it could not get
 * @s:     the slab cache, or NULL
 *
 * Freezes the recorder in flight mode when @trig is on.
 */
void __kmemtrace_alloc_failed(enum kmt_trigger trig, gfp_t gfp,
			      unsigned int order, struct kmem_cache *s)
{
	/* what warn_alloc() keeps quiet about */
	if ((gfp & __GFP_NOWARN) || ((gfp & __GFP_DMA) && !has_managed_dma()))
		return;
	kmt_freeze(trig, current, order, gfp, s ? READ_ONCE(s->kmt_id) : 0);
}

/*
 * The reclaim_stall trigger: a direct reclaim at least kmt_stall_ns
 * long.  Its begin and end run in the reclaiming task, which may sleep
 * and move between CPUs in between: the begin time is kept in a small
 * table by pid, a slot taken with a cmpxchg.  A reclaim that finds the
 * table full is not timed.
 */
#define KMT_STALLS		64

struct kmt_stall {
	atomic_t	pid;		/* the reclaiming task, 0: a free slot */
	int		order;
	gfp_t		gfp;
	u64		ts;
};

static struct kmt_stall kmt_stalls[KMT_STALLS];
static u64 kmt_stall_ns __read_mostly = NSEC_PER_SEC;

static void kmt_stall_begin(int order, gfp_t gfp)
{
	int pid = task_pid_nr(current), i;
	struct kmt_stall *s;

	if (!static_branch_unlikely(&kmemtrace_trigger_key) || !pid ||
	    !(READ_ONCE(kmt_triggers) & BIT(KMT_TRIG_RECLAIM_STALL)))
		return;
	for (i = 0; i < KMT_STALLS; i++) {
		s = &kmt_stalls[i];
		if (atomic_cmpxchg(&s->pid, 0, pid))
			continue;
		s->order = order;
		s->gfp = gfp;
		s->ts = local_clock();
		return;
	}
}

/* A direct reclaim ends: its task's slot, if it has one, and the time. */
static void kmt_stall_end(void)
{
	int pid = task_pid_nr(current), i, order;
	struct kmt_stall *s;
	gfp_t gfp;
	s64 ns;

	if (!pid)
		return;
	for (i = 0; i < KMT_STALLS; i++) {
		s = &kmt_stalls[i];
		if (atomic_read(&s->pid) != pid)
			continue;
		ns = local_clock() - s->ts;
		order = s->order;
		gfp = s->gfp;
		/* The fields read before the slot is free again. */
		atomic_set_release(&s->pid, 0);
		if (ns >= (s64)READ_ONCE(kmt_stall_ns))
			kmt_freeze(KMT_TRIG_RECLAIM_STALL, current, order, gfp, 0);
		return;
	}
}

static int __init kmt_parse_stall_us(char *str)
{
	u64 us;

	if (!str || kstrtou64(str, 0, &us) || !us || us > U64_MAX / NSEC_PER_USEC) {
		pr_warn("kmemtrace.stall_us=%s is invalid: use a number of microseconds from 1; recorder stays off\n",
			str ? str : "");
		kmt_param_invalid = true;
		return 0;
	}
	kmt_stall_ns = us * NSEC_PER_USEC;
	return 0;
}
early_param("kmemtrace.stall_us", kmt_parse_stall_us);

/* Record again after a freeze; the buffers keep what they hold. */
static void kmt_arm(void)
{
	int cpu;

	if (!kmt_is_frozen())
		return;
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&kmt_cpu_buf, cpu)->frozen, false);
	WRITE_ONCE(kmt_frozen_done, false);
	/* The CPUs record before the next trigger may fire. */
	smp_mb();
	atomic_set(&kmt_frozen_by, 0);
	kmt_emit_mark(KMT_MARK_ARMED);
}

/* The trigger hooks run while recording in flight mode.  kmt_mutex held. */
static void kmt_update_trigger_key(void)
{
	if (READ_ONCE(kmt_recording) && kmt_mode == KMT_MODE_FLIGHT)
		static_branch_enable(&kmemtrace_trigger_key);
	else
		static_branch_disable(&kmemtrace_trigger_key);
}

/*
 * "oom,manual": the triggers named, into @mask; "all", or "none" for
 * none.  -EINVAL for an unknown name.
 */
static int kmt_parse_triggers(const char *str, unsigned long *mask)
{
	const char *p, *end;
	unsigned long m = 0;
	size_t len;
	int t;

	str = skip_spaces(str);
	if (sysfs_streq(str, "none")) {
		*mask = 0;
		return 0;
	}
	if (sysfs_streq(str, "all")) {
		*mask = KMT_TRIGGERS_ALL;
		return 0;
	}
	for (p = str; *p && *p != '\n'; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		len = end - p;
		if (len && p[len - 1] == '\n')
			len--;
		for (t = 1; t < KMT_NR_TRIGGERS; t++)
			if (strlen(kmt_trigger_names[t]) == len &&
			    !strncmp(p, kmt_trigger_names[t], len))
				break;
		if (t == KMT_NR_TRIGGERS)
			return -EINVAL;
		m |= BIT(t);
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

static int __init kmt_parse_triggers_param(char *str)
{
	unsigned long mask;

	if (!str || kmt_parse_triggers(str, &mask)) {
		pr_warn("kmemtrace.triggers=%s is invalid: use a comma-separated list of oom, memcg_oom, page_alloc_fail, slab_alloc_fail, reclaim_stall, manual, or all, or none; recorder stays off\n",
			str ? str : "");
		kmt_param_invalid = true;
		return 0;
	}
	kmt_triggers = mask;
	return 0;
}
early_param("kmemtrace.triggers", kmt_parse_triggers_param);

static int __init kmt_parse_mode(char *str)
{
	if (str && !strcmp(str, "boot")) {
		kmt_mode = KMT_MODE_BOOT;
	} else if (str && !strcmp(str, "flight")) {
		kmt_mode = KMT_MODE_FLIGHT;
	} else {
		pr_warn("kmemtrace.mode=%s is invalid: use boot or flight; recorder stays off\n",
			str ? str : "");
		kmt_param_invalid = true;
	}
	return 0;
}
early_param("kmemtrace.mode", kmt_parse_mode);

/**
 * kmemtrace_cache_create - give a new kmem_cache its trace id
 * @s: the cache, just added to slab_caches under slab_mutex
 *
 * The id is what kmem_cache_alloc/free records carry; the name and sizes
 * reach the trace once, in a KMT_EV_CACHE_DEF record.
 */
void kmemtrace_cache_create(struct kmem_cache *s)
{
	lockdep_assert_held(&slab_mutex);
	if (!s->kmt_id)
		s->kmt_id = kmt_next_cache_id++;
	if (READ_ONCE(kmt_recording))
		kmt_emit_cache_def(s);
}

/* Define every existing cache; caller holds slab_mutex or is at boot. */
static void kmt_define_all_caches(void)
{
	struct kmem_cache *s;

	list_for_each_entry(s, &slab_caches, list) {
		if (!s->kmt_id)
			s->kmt_id = kmt_next_cache_id++;
		kmt_emit_cache_def(s);
	}
}

/* ---- setup ------------------------------------------------------------ */

static void kmt_wakeup(struct irq_work *work)
{
	struct kmt_cpu *cb = container_of(work, struct kmt_cpu, wakeup);

	wake_up_all(&cb->wait);
}

/*
 * Make @cb empty: nothing open, the first writer opens sequence number 0.
 * Without a buffer it looks full to writers instead, who count each event
 * as lost and touch no memory: the state is closed and every sub-buffer
 * seems to be in use.
 */
static void kmt_reset_cpu(struct kmt_cpu *cb, int cpu, bool buffer)
{
	cb->cpu = cpu;
	cb->consumed = buffer ? 0 : (KMT_SEQ_MASK - kmt_nr_subbufs) & KMT_SEQ_MASK;
	WRITE_ONCE(cb->state, kmt_state(0, KMT_SEQ_MASK, KMT_POS_CLOSED));
	cb->pid_key = U64_MAX;
	cb->last_ts = local_clock();
}

/* The buffer of @cb once it is published, or NULL. */
static void **kmt_cpu_buffer(struct kmt_cpu *cb)
{
	/* Pairs with the release in kmt_alloc_cpu(). */
	return smp_load_acquire(&cb->subbuf);
}

static unsigned long kmt_buffer_bytes(struct kmt_cpu *cb)
{
	return kmt_cpu_buffer(cb) ? (unsigned long)kmt_nr_subbufs * kmt_subbuf_size : 0;
}

static int kmt_alloc_cpu(struct kmt_cpu *cb, int cpu, gfp_t gfp)
{
	unsigned int order = get_order(kmt_subbuf_size);
	int node = cpu_to_node(cpu);
	struct kmt_slot *slot;
	struct page *page;
	void **subbuf;
	unsigned int i;

	subbuf = kcalloc_node(kmt_nr_subbufs, sizeof(*subbuf), gfp, node);
	slot = kcalloc_node(kmt_nr_subbufs, sizeof(*slot), gfp, node);
	if (!subbuf || !slot)
		goto out_free;
	kmt_pg_pause = true;
	for (i = 0; i < kmt_nr_subbufs; i++) {
		page = alloc_pages_node(node, gfp, order);
		if (!page)
			break;
		subbuf[i] = page_address(page);
	}
	kmt_pg_pause = false;
	if (i < kmt_nr_subbufs)
		goto out_free;
	cb->slot = slot;
	kmt_reset_cpu(cb, cpu, true);
	/* The state before the buffer; pairs with kmt_cpu_buffer(). */
	smp_store_release(&cb->subbuf, subbuf);
	return 0;

out_free:
	for (i = 0; subbuf && i < kmt_nr_subbufs && subbuf[i]; i++)
		free_pages((unsigned long)subbuf[i], order);
	kfree(subbuf);
	kfree(slot);
	kmt_reset_cpu(cb, cpu, false);
	return -ENOMEM;
}

static const u8 kmt_enc_buffer[] = { KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U8X };

/*
 * Say which pages are @cb's buffer: a record per sub-buffer, so that
 * readers tell the recorder's pages from the others.
 */
static void kmt_emit_buffer(struct kmt_cpu *cb)
{
	unsigned int order = get_order(kmt_subbuf_size), i;
	void **subbuf = kmt_cpu_buffer(cb);

	for (i = 0; subbuf && i < kmt_nr_subbufs; i++) {
		u64 v[3] = { cb->cpu, page_to_pfn(virt_to_page(subbuf[i])) + 1,
			     order };

		kmt_record_fields(KMT_EV_BUFFER, kmt_enc_buffer, v,
				  ARRAY_SIZE(v), NULL, 0);
	}
}

/*
 * CPU hotplug, prepare stage: runs on the CPU bringing @cpu up, before
 * @cpu runs anything, so its first event finds its buffer.  At boot the
 * boot CPU's runs from kmemtrace_init() with interrupts still off.  A
 * buffer stays when its CPU goes offline: it is only allocated once.
 * Never keeps a CPU from coming up: without memory for a buffer, its
 * events are counted as lost.
 */
static int kmt_cpu_prepare(unsigned int cpu)
{
	struct kmt_cpu *cb = per_cpu_ptr(&kmt_cpu_buf, cpu);
	gfp_t gfp = early_boot_irqs_disabled ? GFP_NOWAIT :
		    GFP_KERNEL | __GFP_NOWARN;
	int ret;

	if (cb->subbuf)
		return 0;
	/* Recorded like any allocation; then the pages say they are ours. */
	ret = kmt_alloc_cpu(cb, cpu, gfp);
	if (ret) {
		pr_warn("cpu%u: cannot allocate %u x %u bytes: its events are counted as lost\n",
			cpu, kmt_nr_subbufs, kmt_subbuf_size);
		return 0;
	}
	/* Pairs with the smp_mb() in kmt_start(): one of us writes them. */
	smp_mb();
	if (READ_ONCE(kmt_recording))
		kmt_emit_buffer(cb);
	return 0;
}

/*
 * CPU hotplug, after @cpu died: close its current sub-buffer so that its
 * last events can be read.  Nothing runs on @cpu any more.
 */
static int kmt_cpu_dead(unsigned int cpu)
{
	struct kmt_cpu *cb = per_cpu_ptr(&kmt_cpu_buf, cpu);

	if (cb->subbuf)
		kmt_flush_cpu(cb);
	/* Its TSC may not go on from here: local_clock() until it opens one. */
	WRITE_ONCE(cb->tsc, false);
	return 0;
}

/*
 * Give every online CPU a buffer now and every other CPU one when it
 * comes up.  Fails only when no online CPU got one.
 */
static int kmt_setup_buffers(void)
{
	int cpu, ret, nr = 0;

	ret = cpuhp_setup_state(CPUHP_BP_PREPARE_DYN, "mm/kmemtrace:prepare",
				kmt_cpu_prepare, kmt_cpu_dead);
	if (ret < 0)
		return ret;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		nr += !!per_cpu_ptr(&kmt_cpu_buf, cpu)->subbuf;
	cpus_read_unlock();
	if (!nr) {
		cpuhp_remove_state_nocalls(ret);
		return -ENOMEM;
	}
	kmt_cpuhp_state = ret;
	register_pm_notifier(&kmt_pm_nb);
	WRITE_ONCE(kmt_allocated, true);
	return 0;
}

static int kmt_register_kmem(void)
{
	int ret;

	/* The page probes first: at boot the early pages wait for them. */
	ret = register_trace_mm_page_free(kmt_probe_page_free, NULL);
	WRITE_ONCE(kmt_pg_free_live, !ret);
	ret = ret ?: register_trace_mm_page_free_batched(kmt_probe_page_free_batched,
							 NULL);
	ret = ret ?: register_trace_mm_page_alloc(kmt_probe_page_alloc, NULL);
	WRITE_ONCE(kmt_pg_alloc_live, !ret);
	ret = ret ?: register_trace_kmalloc(kmt_probe_kmalloc, NULL);
	ret = ret ?: register_trace_kmem_cache_alloc(kmt_probe_cache_alloc, NULL);
	ret = ret ?: register_trace_kfree(kmt_probe_kfree, NULL);
	ret = ret ?: register_trace_kmem_cache_free(kmt_probe_cache_free, NULL);
	if (!ret)
		static_branch_enable(&kmemtrace_hook_key);
	return ret;
}

/* Unregistering a probe that is not registered is harmless (-ENOENT). */
static void kmt_unregister_kmem(void)
{
	static_branch_disable(&kmemtrace_hook_key);
	unregister_trace_mm_page_free_batched(kmt_probe_page_free_batched, NULL);
	unregister_trace_mm_page_free(kmt_probe_page_free, NULL);
	unregister_trace_mm_page_alloc(kmt_probe_page_alloc, NULL);
	unregister_trace_kmem_cache_free(kmt_probe_cache_free, NULL);
	unregister_trace_kfree(kmt_probe_kfree, NULL);
	unregister_trace_kmem_cache_alloc(kmt_probe_cache_alloc, NULL);
	unregister_trace_kmalloc(kmt_probe_kmalloc, NULL);
}

static int kmt_register_boot(void)
{
	int ret;

	ret = register_trace_initcall_level(kmt_probe_initcall_level, NULL);
	ret = ret ?: register_trace_initcall_start(kmt_probe_initcall_start, NULL);
	ret = ret ?: register_trace_initcall_finish(kmt_probe_initcall_finish, NULL);
	ret = ret ?: register_trace_sched_process_fork(kmt_probe_fork, NULL);
	ret = ret ?: register_trace_task_rename(kmt_probe_rename, NULL);
#ifdef CONFIG_CGROUPS
	ret = ret ?: register_trace_cgroup_attach_task(kmt_probe_cgroup_attach, NULL);
#endif
	return ret ?: register_trace_sched_process_exec(kmt_probe_exec, NULL);
}

static void kmt_unregister_boot(void)
{
	unregister_trace_sched_process_exec(kmt_probe_exec, NULL);
#ifdef CONFIG_CGROUPS
	unregister_trace_cgroup_attach_task(kmt_probe_cgroup_attach, NULL);
#endif
	unregister_trace_task_rename(kmt_probe_rename, NULL);
	unregister_trace_sched_process_fork(kmt_probe_fork, NULL);
	unregister_trace_initcall_finish(kmt_probe_initcall_finish, NULL);
	unregister_trace_initcall_start(kmt_probe_initcall_start, NULL);
	unregister_trace_initcall_level(kmt_probe_initcall_level, NULL);
}

static int kmt_register_reclaim(void)
{
	int ret;

	ret = register_trace_mm_vmscan_direct_reclaim_begin(kmt_probe_reclaim_begin,
							    NULL);
	ret = ret ?: register_trace_mm_vmscan_direct_reclaim_end(kmt_probe_reclaim_end,
								 NULL);
	ret = ret ?: register_trace_mm_vmscan_lru_shrink_inactive(kmt_probe_lru_shrink_inactive,
								  NULL);
	ret = ret ?: register_trace_mm_shrink_slab_start(kmt_probe_shrink_start, NULL);
	return ret ?: register_trace_mm_shrink_slab_end(kmt_probe_shrink_end, NULL);
}

static void kmt_unregister_reclaim(void)
{
	unregister_trace_mm_shrink_slab_end(kmt_probe_shrink_end, NULL);
	unregister_trace_mm_shrink_slab_start(kmt_probe_shrink_start, NULL);
	unregister_trace_mm_vmscan_lru_shrink_inactive(kmt_probe_lru_shrink_inactive,
						       NULL);
	unregister_trace_mm_vmscan_direct_reclaim_end(kmt_probe_reclaim_end, NULL);
	unregister_trace_mm_vmscan_direct_reclaim_begin(kmt_probe_reclaim_begin,
							NULL);
}

#ifdef CONFIG_COMPACTION
static int kmt_register_compaction(void)
{
	int ret;

	ret = register_trace_mm_compaction_try_to_compact_pages(kmt_probe_compact_try,
								NULL);
	ret = ret ?: register_trace_mm_compaction_begin(kmt_probe_compact_begin, NULL);
	return ret ?: register_trace_mm_compaction_end(kmt_probe_compact_end, NULL);
}

static void kmt_unregister_compaction(void)
{
	unregister_trace_mm_compaction_end(kmt_probe_compact_end, NULL);
	unregister_trace_mm_compaction_begin(kmt_probe_compact_begin, NULL);
	unregister_trace_mm_compaction_try_to_compact_pages(kmt_probe_compact_try,
							    NULL);
}
#else
static int kmt_register_compaction(void)
{
	return -EOPNOTSUPP;
}

static void kmt_unregister_compaction(void)
{
}
#endif

/**
 * struct kmt_group_ops - an event group: its name and its probes
 * @name:  as kmemtrace.events= and tracefs kmemtrace/events spell it
 * @reg:   attach its probes; on failure some may be attached
 * @unreg: detach them all
 */
struct kmt_group_ops {
	const char	*name;
	int		(*reg)(void);
	void		(*unreg)(void);
};

static const struct kmt_group_ops kmt_group_ops[KMT_NR_GROUPS] = {
	[KMT_GROUP_KMEM] = { "kmem", kmt_register_kmem, kmt_unregister_kmem },
	[KMT_GROUP_BOOT] = { "boot", kmt_register_boot, kmt_unregister_boot },
	[KMT_GROUP_RECLAIM] = { "reclaim", kmt_register_reclaim,
				kmt_unregister_reclaim },
	[KMT_GROUP_COMPACTION] = { "compaction", kmt_register_compaction,
				   kmt_unregister_compaction },
};

/* The groups a kernel without CONFIG_COMPACTION cannot record. */
#define KMT_GROUPS_UNSUPPORTED	(IS_ENABLED(CONFIG_COMPACTION) ? 0 : \
				 BIT(KMT_GROUP_COMPACTION))

/* Detach the groups in @mask (all probes gone on return). */
static void kmt_unregister_groups(unsigned long mask)
{
	int g;

	for (g = KMT_NR_GROUPS - 1; g >= 0; g--)
		if (mask & BIT(g))
			kmt_group_ops[g].unreg();
	tracepoint_synchronize_unregister();
}

/* Attach the groups in @mask, all or none. */
static int kmt_register_groups(unsigned long mask)
{
	int g, ret = 0;

	for (g = 0; g < KMT_NR_GROUPS && !ret; g++)
		if (mask & BIT(g))
			ret = kmt_group_ops[g].reg();
	if (ret)
		kmt_unregister_groups(mask);
	return ret;
}

static void kmt_emit_groups(unsigned long mask)
{
	u64 v = mask;

	kmt_record_fields(KMT_EV_GROUPS, kmt_enc_u32, &v, 1, NULL, 0);
}

/*
 * "kmem,boot,reclaim": the groups named, into @mask.  "latency" names
 * reclaim and compaction, "all" every group, each as far as this kernel
 * has them.  -EINVAL for an unknown name or none, -EOPNOTSUPP for a
 * group named that this kernel cannot record.
 */
static int kmt_parse_groups(const char *str, unsigned long *mask)
{
	const unsigned long latency = BIT(KMT_GROUP_RECLAIM) |
				      BIT(KMT_GROUP_COMPACTION);
	const char *p = str, *end;
	unsigned long m = 0;
	size_t len;
	int g;

	while (*p) {
		end = strchrnul(p, ',');
		len = end - p;
		if (len && p[len - 1] == '\n')	/* from "echo" */
			len--;
		for (g = 0; g < KMT_NR_GROUPS; g++)
			if (strlen(kmt_group_ops[g].name) == len &&
			    !strncmp(p, kmt_group_ops[g].name, len))
				break;
		if (g < KMT_NR_GROUPS && (BIT(g) & KMT_GROUPS_UNSUPPORTED))
			return -EOPNOTSUPP;
		if (g < KMT_NR_GROUPS)
			m |= BIT(g);
		else if (len == 7 && !strncmp(p, "latency", 7))
			m |= latency & ~KMT_GROUPS_UNSUPPORTED;
		else if (len == 3 && !strncmp(p, "all", 3))
			m |= (BIT(KMT_NR_GROUPS) - 1) & ~KMT_GROUPS_UNSUPPORTED;
		else
			return -EINVAL;
		p = *end ? end + 1 : end;
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

static int __init kmt_parse_events(char *str)
{
	int ret = kmt_parse_groups(str ? str : "", &kmt_groups);

	if (ret == -EOPNOTSUPP)
		pr_warn("kmemtrace.events=%s: this kernel has no CONFIG_COMPACTION; recorder stays off\n",
			str);
	else if (ret)
		pr_warn("kmemtrace.events=%s is invalid: use a comma-separated list of kmem, boot, reclaim, compaction, latency, all; recorder stays off\n",
			str ? str : "");
	if (ret)
		kmt_param_invalid = true;
	return 0;
}
early_param("kmemtrace.events", kmt_parse_events);

/* Start recording; buffers exist.  Caller serialises. */
static int kmt_start(void)
{
	unsigned long groups = READ_ONCE(kmt_groups);
	int cpu, ret;

	WRITE_ONCE(kmt_recording, true);
	kmt_emit_mark(KMT_MARK_RECORDING_ON);
	if (kmt_mode == KMT_MODE_FLIGHT)
		kmt_emit_mark(KMT_MARK_FLIGHT);
	kmt_emit_groups(groups);
	kmt_define_all_caches();
	kmt_find_wrappers();
	kmt_emit_wrappers();
	/* Pairs with the smp_mb() in kmt_cpu_prepare(). */
	smp_mb();
	for_each_possible_cpu(cpu)
		if (kmt_cpu_buffer(per_cpu_ptr(&kmt_cpu_buf, cpu)))
			kmt_emit_buffer(per_cpu_ptr(&kmt_cpu_buf, cpu));
	ret = kmt_register_groups(groups);
	if (ret) {
		kmt_emit_mark(KMT_MARK_RECORDING_OFF);
		WRITE_ONCE(kmt_recording, false);
	}
	return ret;
}

/**
 * kmemtrace_init - allocate the buffers and start recording at boot
 *
 * Called from mm_core_init() right after kmem_cache_init(), when the slab
 * and page allocators work but before most of the kernel has allocated
 * anything.  The boot CPU's buffer is allocated before the probes attach,
 * the other CPUs' as they come up.
 */
void __init kmemtrace_init(void)
{
	struct kmt_cpu *cb;
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		cb = per_cpu_ptr(&kmt_cpu_buf, cpu);
		mutex_init(&cb->read_mutex);
		init_waitqueue_head(&cb->wait);
		init_irq_work(&cb->wakeup, kmt_wakeup);
	}
	/* From now on memblock events are recorded live, or not at all. */
	WRITE_ONCE(kmt_mb_live, true);
	if (kmt_param_invalid || !kmt_boot_enable) {
		kmt_early_finish(false);
		return;
	}
	/* Like ftrace: nothing to record that nobody could read. */
	if (security_locked_down(LOCKDOWN_TRACEFS)) {
		pr_warn("kernel lockdown closes tracefs: recorder off\n");
		kmt_early_finish(false);
		return;
	}
	kmt_boot_ts = local_clock();
	ret = kmt_setup_buffers();
	if (ret) {
		pr_warn("cannot allocate %u x %u bytes for the boot CPU (%d); recorder off\n",
			kmt_nr_subbufs, kmt_subbuf_size, ret);
		kmt_early_finish(false);
		return;
	}
	/* Before anything else in the buffer: the earliest times. */
	if (kmt_groups & BIT(KMT_GROUP_KMEM))
		kmt_early_replay();
	ret = kmt_start();
	kmt_early_finish(!ret && (kmt_groups & BIT(KMT_GROUP_KMEM)));
	if (ret) {
		pr_warn("cannot attach to the kmem tracepoints (%d); recorder off\n",
			ret);
		return;
	}
	kmt_update_trigger_key();
	pr_info("recording from kmem_cache_init in %s mode: %u x %u bytes per CPU, for each CPU as it comes up\n",
		kmt_mode_names[kmt_mode], kmt_nr_subbufs, kmt_subbuf_size);
}

/* ---- reading ---------------------------------------------------------- */

/* The sub-buffer at cb->consumed is closed and fully committed. */
static bool kmt_slot_ready(struct kmt_cpu *cb, unsigned int *size)
{
	struct kmt_slot *slot = &cb->slot[cb->consumed & kmt_subbuf_mask];
	unsigned int sz = READ_ONCE(slot->size);

	if (!sz || WARN_ON_ONCE(sz > kmt_subbuf_size))
		return false;
	/* Size before commit count; pairs with kmt_close_slot(). */
	smp_rmb();
	if (local_read(&slot->commit) != sz)
		return false;
	/* Commit count before data; pairs with kmt_commit(). */
	smp_rmb();
	*size = sz;
	return true;
}

static ssize_t kmt_copy_ready(struct kmt_cpu *cb, char __user *ubuf,
			      size_t count)
{
	unsigned int size, idx;
	ssize_t done = 0;

	while (kmt_slot_ready(cb, &size) && count - done >= size) {
		idx = cb->consumed & kmt_subbuf_mask;
		if (copy_to_user(ubuf + done, cb->subbuf[idx], size))
			return done ? done : -EFAULT;
		done += size;
		local_set(&cb->slot[idx].commit, 0);
		local_set(&cb->slot[idx].events, 0);
		WRITE_ONCE(cb->slot[idx].size, 0);
		/* Writers may reuse the slot once they see the new count. */
		smp_store_release(&cb->consumed, cb->consumed + 1);
	}
	return done;
}

static ssize_t kmt_data_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct kmt_cpu *cb = file->private_data;
	unsigned int size;
	ssize_t ret;

	if (count < kmt_subbuf_size)
		return -EINVAL;
	if (mutex_lock_interruptible(&cb->read_mutex))
		return -ERESTARTSYS;
	for (;;) {
		ret = kmt_copy_ready(cb, ubuf, count);
		if (ret || (file->f_flags & O_NONBLOCK)) {
			ret = ret ?: -EAGAIN;
			break;
		}
		WRITE_ONCE(cb->waiting, true);
		/* Pairs with the smp_mb() in kmt_close_slot(). */
		smp_mb();
		ret = wait_event_interruptible(cb->wait,
					       kmt_slot_ready(cb, &size));
		WRITE_ONCE(cb->waiting, false);
		if (ret)
			break;
	}
	mutex_unlock(&cb->read_mutex);
	return ret;
}

static __poll_t kmt_data_poll(struct file *file, poll_table *wait)
{
	struct kmt_cpu *cb = file->private_data;
	unsigned int size;

	poll_wait(file, &cb->wait, wait);
	WRITE_ONCE(cb->waiting, true);
	/* Pairs with the smp_mb() in kmt_close_slot(). */
	smp_mb();
	return kmt_slot_ready(cb, &size) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Every file checks at open, as ftrace's do: a kernel locked down for
 * confidentiality after boot closes them all.
 */
static int kmt_open_allowed(void)
{
	return security_locked_down(LOCKDOWN_TRACEFS);
}

/*
 * Reading consumes, so two readers would each get half of the stream:
 * one open file per CPU at a time.  A CPU that never came up has no
 * buffer to read.
 */
static int kmt_data_open(struct inode *inode, struct file *file)
{
	struct kmt_cpu *cb = inode->i_private;
	int ret;

	ret = kmt_open_allowed();
	if (ret)
		return ret;
	if (!kmt_cpu_buffer(cb))
		return -ENODEV;
	if (test_and_set_bit_lock(0, &cb->open))
		return -EBUSY;
	/*
	 * ->consumed is ours from here: a flight-mode writer that reuses
	 * the oldest sub-buffer saw the bit clear, and runs with
	 * preemption off.
	 */
	synchronize_rcu();
	file->private_data = cb;
	ret = nonseekable_open(inode, file);
	if (ret)
		clear_bit_unlock(0, &cb->open);
	return ret;
}

static int kmt_data_release(struct inode *inode, struct file *file)
{
	struct kmt_cpu *cb = file->private_data;

	clear_bit_unlock(0, &cb->open);
	return 0;
}

static const struct file_operations kmt_data_fops = {
	.owner		= THIS_MODULE,
	.open		= kmt_data_open,
	.release	= kmt_data_release,
	.read		= kmt_data_read,
	.poll		= kmt_data_poll,
};

static void kmt_flush_local(void *unused)
{
	kmt_flush_cpu(this_cpu_ptr(&kmt_cpu_buf));
}

/* Offline CPUs were flushed when they died. */
static ssize_t kmt_flush_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	if (!READ_ONCE(kmt_allocated))
		return -ENODEV;
	on_each_cpu(kmt_flush_local, NULL, 1);
	return count;
}

static int kmt_generic_open(struct inode *inode, struct file *file)
{
	int ret = kmt_open_allowed();

	if (ret)
		return ret;
	file->private_data = inode->i_private;
	return 0;
}

static const struct file_operations kmt_flush_fops = {
	.open	= kmt_generic_open,
	.write	= kmt_flush_write,
	.llseek	= noop_llseek,
};

static ssize_t kmt_enable_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[2] = { READ_ONCE(kmt_recording) ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, 2);
}

static int kmt_enable_set(unsigned int val)
{
	int ret = 0;

	if (val > 1)
		return -EINVAL;
	mutex_lock(&kmt_mutex);
	if (val == READ_ONCE(kmt_recording))
		goto out_unlock;
	if (!val) {
		kmt_unregister_groups(kmt_groups);
		kmt_emit_mark(KMT_MARK_RECORDING_OFF);
		WRITE_ONCE(kmt_recording, false);
		kmt_update_trigger_key();
		goto out_unlock;
	}
	if (!kmt_allocated) {
		ret = kmt_setup_buffers();
		if (ret)
			goto out_unlock;
	}
	mutex_lock(&slab_mutex);
	ret = kmt_start();
	mutex_unlock(&slab_mutex);
	kmt_update_trigger_key();
out_unlock:
	mutex_unlock(&kmt_mutex);
	return ret;
}

static ssize_t kmt_enable_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	ret = kmt_enable_set(val);
	return ret ?: count;
}

static const struct file_operations kmt_enable_fops = {
	.open	= kmt_generic_open,
	.read	= kmt_enable_read,
	.write	= kmt_enable_write,
	.llseek	= default_llseek,
};

static int kmt_events_show(struct seq_file *m, void *v)
{
	unsigned long groups = READ_ONCE(kmt_groups);
	bool first = true;
	int g;

	for (g = 0; g < KMT_NR_GROUPS; g++) {
		if (!(groups & BIT(g)))
			continue;
		seq_printf(m, "%s%s", first ? "" : ",", kmt_group_ops[g].name);
		first = false;
	}
	seq_putc(m, '\n');
	return 0;
}

static int kmt_events_open(struct inode *inode, struct file *file)
{
	return kmt_open_allowed() ?: single_open(file, kmt_events_show, NULL);
}

/*
 * Select the groups to record.  While recording, the probes of the
 * groups added attach and those of the groups dropped detach, and a
 * KMT_EV_GROUPS record marks the change in every reader's stream.
 */
static ssize_t kmt_events_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned long mask, add, del;
	char buf[64];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = kmt_parse_groups(buf, &mask);
	if (ret)
		return ret;
	mutex_lock(&kmt_mutex);
	if (READ_ONCE(kmt_recording)) {
		add = mask & ~kmt_groups;
		del = kmt_groups & ~mask;
		ret = kmt_register_groups(add);
		if (!ret) {
			kmt_unregister_groups(del);
			kmt_emit_groups(mask);
		}
	}
	if (!ret)
		WRITE_ONCE(kmt_groups, mask);
	mutex_unlock(&kmt_mutex);
	return ret ?: count;
}

static const struct file_operations kmt_events_fops = {
	.open		= kmt_events_open,
	.read		= seq_read,
	.write		= kmt_events_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static ssize_t kmt_mode_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%s\n",
			    kmt_mode_names[READ_ONCE(kmt_mode)]);

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/*
 * "flight": full buffers reuse their oldest sub-buffer from now on, and
 * the triggers are armed; "boot": they drop new events again.  A mark
 * in the stream says where the mode changed.
 */
static ssize_t kmt_mode_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	unsigned int mode;
	char buf[16];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sysfs_streq(buf, "boot"))
		mode = KMT_MODE_BOOT;
	else if (sysfs_streq(buf, "flight"))
		mode = KMT_MODE_FLIGHT;
	else
		return -EINVAL;
	mutex_lock(&kmt_mutex);
	if (mode != kmt_mode) {
		/* Boot mode has no triggers: a freeze would drop for good. */
		if (mode == KMT_MODE_BOOT)
			kmt_arm();
		WRITE_ONCE(kmt_mode, mode);
		if (READ_ONCE(kmt_recording))
			kmt_emit_mark(mode == KMT_MODE_FLIGHT ? KMT_MARK_FLIGHT :
					KMT_MARK_BOOT);
		kmt_update_trigger_key();
	}
	mutex_unlock(&kmt_mutex);
	return count;
}

static const struct file_operations kmt_mode_fops = {
	.open	= kmt_generic_open,
	.read	= kmt_mode_read,
	.write	= kmt_mode_write,
	.llseek	= default_llseek,
};

static int kmt_triggers_show(struct seq_file *m, void *v)
{
	unsigned long mask = READ_ONCE(kmt_triggers);
	bool first = true;
	int t;

	for (t = 1; t < KMT_NR_TRIGGERS; t++) {
		if (!(mask & BIT(t)))
			continue;
		seq_printf(m, "%s%s", first ? "" : ",", kmt_trigger_names[t]);
		first = false;
	}
	seq_puts(m, first ? "none\n" : "\n");
	return 0;
}

static int kmt_triggers_open(struct inode *inode, struct file *file)
{
	return kmt_open_allowed() ?: single_open(file, kmt_triggers_show, NULL);
}

static ssize_t kmt_triggers_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	unsigned long mask;
	char buf[96];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = kmt_parse_triggers(buf, &mask);
	if (ret)
		return ret;
	WRITE_ONCE(kmt_triggers, mask);
	return count;
}

static const struct file_operations kmt_triggers_fops = {
	.open		= kmt_triggers_open,
	.read		= seq_read,
	.write		= kmt_triggers_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/*
 * "0": armed (or boot mode); "1 TRIGGER TRIGGER_TS FROZEN_TS": frozen
 * by TRIGGER, whose record has time TRIGGER_TS, every CPU stopped by
 * FROZEN_TS.  poll() says it is readable once frozen.
 */
static ssize_t kmt_frozen_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	int trig = atomic_read(&kmt_frozen_by);
	char buf[96];
	int len;

	if (kmt_is_frozen() && trig > 0 && trig < KMT_NR_TRIGGERS)
		len = scnprintf(buf, sizeof(buf), "1 %s %llu %llu\n",
				kmt_trigger_names[trig], READ_ONCE(kmt_trigger_ts),
				READ_ONCE(kmt_frozen_ts));
	else
		len = scnprintf(buf, sizeof(buf), "0\n");
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/*
 * "1" freezes the recorder (the manual trigger: flight mode, recording,
 * the trigger on, not frozen yet; -EPERM otherwise); "0" arms it again.
 */
static ssize_t kmt_frozen_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	if (val > 1)
		return -EINVAL;
	mutex_lock(&kmt_mutex);
	if (!val) {
		kmt_arm();
	} else if (atomic_read(&kmt_frozen_by)) {
		ret = -EPERM;
	} else {
		kmt_freeze(KMT_TRIG_MANUAL, current, 0, 0, 0);
		if (atomic_read(&kmt_frozen_by) != KMT_TRIG_MANUAL)
			ret = -EPERM;
	}
	mutex_unlock(&kmt_mutex);
	return ret ?: count;
}

static __poll_t kmt_frozen_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &kmt_frozen_wait, wait);
	return kmt_is_frozen() ? EPOLLIN | EPOLLRDNORM | EPOLLPRI : 0;
}

static ssize_t kmt_stall_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char buf[24];
	int len = scnprintf(buf, sizeof(buf), "%llu\n",
			    READ_ONCE(kmt_stall_ns) / NSEC_PER_USEC);

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* The reclaim_stall trigger's threshold, in microseconds (from 1). */
static ssize_t kmt_stall_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	u64 us;
	int ret;

	ret = kstrtou64_from_user(ubuf, count, 0, &us);
	if (ret)
		return ret;
	if (!us || us > U64_MAX / NSEC_PER_USEC)
		return -EINVAL;
	WRITE_ONCE(kmt_stall_ns, us * NSEC_PER_USEC);
	return count;
}

static const struct file_operations kmt_stall_fops = {
	.open	= kmt_generic_open,
	.read	= kmt_stall_read,
	.write	= kmt_stall_write,
	.llseek	= default_llseek,
};

static const struct file_operations kmt_frozen_fops = {
	.open	= kmt_generic_open,
	.read	= kmt_frozen_read,
	.write	= kmt_frozen_write,
	.poll	= kmt_frozen_poll,
	.llseek	= default_llseek,
};

/*
 * The caches that exist, as KMT_EV_CACHE_DEF records would say them:
 * "ID OBJECT_SIZE SIZE ALIGN FLAGS NAME".  A flight-mode window has long
 * overwritten the records of the caches made at boot.
 */
static int kmt_caches_show(struct seq_file *m, void *v)
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		if (s->kmt_id)
			seq_printf(m, "%u %u %u %u %lx %.*s\n", s->kmt_id,
				   s->object_size, s->size, s->align,
				   (unsigned long)s->flags, KMT_MAX_NAME, s->name);
	mutex_unlock(&slab_mutex);
	return 0;
}

static int kmt_caches_open(struct inode *inode, struct file *file)
{
	return kmt_open_allowed() ?: single_open(file, kmt_caches_show, NULL);
}

static const struct file_operations kmt_caches_fops = {
	.open		= kmt_caches_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static u8 *kmt_header_blob;
static size_t kmt_header_len;

/* This kernel's names for GFP flags, as its tracepoints print them. */
static unsigned int kmt_gfp_names(struct kmt_gfp_name *out)
{
	const struct trace_print_flags *t;
	unsigned int n = 0;

	for (t = gfpflag_names; t->name; t++) {
		if (strlen(t->name) >= sizeof(out->name))
			continue;
		if (out) {
			out[n].mask = t->mask;
			strscpy(out[n].name, t->name, sizeof(out[n].name));
		}
		n++;
	}
	return n;
}

static int kmt_build_header(void)
{
	unsigned int nr_gfp = kmt_gfp_names(NULL);
	struct kmt_format *f;

	kmt_header_len = sizeof(*f) + sizeof(kmt_layouts) +
			 nr_gfp * sizeof(struct kmt_gfp_name);
	kmt_header_blob = kzalloc(kmt_header_len, GFP_KERNEL);
	if (!kmt_header_blob)
		return -ENOMEM;
	f = (struct kmt_format *)kmt_header_blob;
	f->magic = KMT_FORMAT_MAGIC;
	f->abi_version = KMT_ABI_VERSION;
	f->header_size = sizeof(*f);
	f->word_size = sizeof(long);
	f->page_shift = PAGE_SHIFT;
	f->nr_layouts = ARRAY_SIZE(kmt_layouts);
	f->layout_size = sizeof(struct kmt_layout);
	f->subbuf_header_size = sizeof(struct kmt_subbuf_header);
	f->subbuf_size = kmt_subbuf_size;
	f->nr_subbufs = kmt_nr_subbufs;
	f->nr_cpu_ids = nr_cpu_ids;
	strscpy(f->clock, "local_clock", sizeof(f->clock));
	f->text_base = (unsigned long)_stext;
	f->direct_map_base = PAGE_OFFSET;
	f->boot_ts = kmt_boot_ts;
	f->nr_gfp_names = nr_gfp;
	f->gfp_name_size = sizeof(struct kmt_gfp_name);
	memcpy(f + 1, kmt_layouts, sizeof(kmt_layouts));
	kmt_gfp_names((struct kmt_gfp_name *)((u8 *)(f + 1) + sizeof(kmt_layouts)));
	return 0;
}

static ssize_t kmt_header_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, count, ppos, kmt_header_blob,
				       kmt_header_len);
}

static const struct file_operations kmt_header_fops = {
	.open	= kmt_generic_open,
	.read	= kmt_header_read,
	.llseek	= default_llseek,
};

/* Which CPUs have a buffer, of how many bytes, and the NUMA layout. */
static int kmt_topology_show(struct seq_file *m, void *v)
{
	int cpu, nid;

	for_each_possible_cpu(cpu)
		seq_printf(m, "cpu %d node %d buffer %lu\n", cpu,
			   cpu_to_node(cpu),
			   kmt_buffer_bytes(per_cpu_ptr(&kmt_cpu_buf, cpu)));
	for_each_online_node(nid)
		seq_printf(m, "node %d start_pfn %lu end_pfn %lu\n", nid,
			   node_start_pfn(nid), node_end_pfn(nid));
	return 0;
}

static int kmt_stats_show(struct seq_file *m, void *v)
{
	struct kmt_cpu *cb;
	int cpu;

	seq_puts(m, "# cpu events lost subbufs_read buffer_bytes overwritten\n");
	for_each_possible_cpu(cpu) {
		cb = per_cpu_ptr(&kmt_cpu_buf, cpu);
		if (!kmt_cpu_buffer(cb)) {
			seq_printf(m, "%d 0 %lu 0 0 0\n", cpu, local_read(&cb->lost));
			continue;
		}
		seq_printf(m, "%d %lu %lu %u %lu %lu\n", cpu,
			   local_read(&cb->events), local_read(&cb->lost),
			   READ_ONCE(cb->consumed), kmt_buffer_bytes(cb),
			   local_read(&cb->overwritten));
	}
	return 0;
}

static int kmt_topology_open(struct inode *inode, struct file *file)
{
	return kmt_open_allowed() ?: single_open(file, kmt_topology_show, NULL);
}

static int kmt_stats_open(struct inode *inode, struct file *file)
{
	return kmt_open_allowed() ?: single_open(file, kmt_stats_show, NULL);
}

static const struct file_operations kmt_topology_fops = {
	.open		= kmt_topology_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static const struct file_operations kmt_stats_fops = {
	.open		= kmt_stats_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init kmt_create_file(const char *name, umode_t mode,
				  struct dentry *parent, void *data,
				  const struct file_operations *fops)
{
	if (tracefs_create_file(name, mode, parent, data, fops))
		return 0;
	pr_warn("cannot create tracefs file %s\n", name);
	return -ENOMEM;
}

static struct dentry *__init kmt_create_dir(const char *name,
					    struct dentry *parent)
{
	struct dentry *d = tracefs_create_dir(name, parent);

	if (!d)
		pr_warn("cannot create tracefs directory %s\n", name);
	return d;
}

/*
 * The interface, in tracefs (/sys/kernel/tracing/kmemtrace/): root only.
 * Per-CPU data files for every possible CPU; only those of CPUs that came
 * up have a buffer behind them.
 */
static int __init kmt_tracefs_init(void)
{
	struct dentry *dir, *pcpu, *d;
	char name[16];
	int cpu, ret;

	if (security_locked_down(LOCKDOWN_TRACEFS)) {
		pr_warn("kernel lockdown closes tracefs: no kmemtrace files\n");
		return 0;
	}
	ret = kmt_build_header();
	if (ret)
		goto out;
	ret = -ENOMEM;
	dir = kmt_create_dir("kmemtrace", NULL);
	if (!dir)
		goto out;
	ret = kmt_create_file("header", 0400, dir, NULL, &kmt_header_fops);
	ret = ret ?: kmt_create_file("enable", 0600, dir, NULL, &kmt_enable_fops);
	ret = ret ?: kmt_create_file("events", 0600, dir, NULL, &kmt_events_fops);
	ret = ret ?: kmt_create_file("flush", 0200, dir, NULL, &kmt_flush_fops);
	ret = ret ?: kmt_create_file("topology", 0400, dir, NULL,
				     &kmt_topology_fops);
	ret = ret ?: kmt_create_file("stats", 0400, dir, NULL, &kmt_stats_fops);
	ret = ret ?: kmt_create_file("mode", 0600, dir, NULL, &kmt_mode_fops);
	ret = ret ?: kmt_create_file("triggers", 0600, dir, NULL,
				     &kmt_triggers_fops);
	ret = ret ?: kmt_create_file("frozen", 0600, dir, NULL, &kmt_frozen_fops);
	ret = ret ?: kmt_create_file("stall_us", 0600, dir, NULL, &kmt_stall_fops);
	ret = ret ?: kmt_create_file("caches", 0400, dir, NULL, &kmt_caches_fops);
	if (ret)
		goto out;
	ret = -ENOMEM;
	pcpu = kmt_create_dir("per_cpu", dir);
	if (!pcpu)
		goto out;
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "cpu%d", cpu);
		d = kmt_create_dir(name, pcpu);
		if (!d) {
			ret = -ENOMEM;
			goto out;
		}
		ret = kmt_create_file("data", 0400, d,
				      per_cpu_ptr(&kmt_cpu_buf, cpu),
				      &kmt_data_fops);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	return ret;
}
late_initcall(kmt_tracefs_init);

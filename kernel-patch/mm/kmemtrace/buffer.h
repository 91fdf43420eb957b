/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace: the buffers' fast path, for the probes to inline.
 *
 * The memory of the sub-buffers is one pool for the whole machine; each
 * CPU takes a block when it opens a sub-buffer and a reader gives it
 * back.  A CPU writes its own sequence of sub-buffers, each in a slot of
 * its own (sequence number modulo the number of slots) that holds the
 * block and the commit count.  A writer reserves space with one
 * CPU-local cmpxchg on a state word that holds the write position, the
 * current sequence number and the low 32 bits of the previous timestamp,
 * so a writer interrupted by an IRQ or NMI that also records simply
 * retries and every record's time delta is relative to the record before
 * it in the buffer.  Records are written straight into the reserved
 * space, each field at a fixed offset, and carry the pid only when it
 * changes.
 */
#ifndef _MM_KMEMTRACE_BUFFER_H
#define _MM_KMEMTRACE_BUFFER_H

#include <linux/bitops.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/sizes.h>
#include <linux/kmemtrace.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/unaligned.h>
#include <linux/wait.h>
#include <asm/local.h>
#include <asm/sections.h>

#ifdef CONFIG_ARCH_HAS_KMEMTRACE_CLOCK
#include <asm/kmemtrace.h>
#else
/* No copy of the clock: every record's time is a call to local_clock(). */
struct arch_kmt_clock {
	u64	offset;
};

static __always_inline u64 arch_kmt_clock_read(const struct arch_kmt_clock *c)
{
	return 0;
}

u64 kmt_clock_slow(void);

static __always_inline u64 arch_kmt_clock_slow(void)
{
	return kmt_clock_slow();
}
#endif

/* The pool: sub-buffers for the whole machine. */
#define KMT_MIN_SUBBUFS		2
#define KMT_MAX_SUBBUFS		1024
/* the most one CPU holds, its number of slots at most: 8 KiB of them */
#define KMT_CPU_MAX_SUBBUFS	256U
#define KMT_DEFAULT_SIZE	SZ_16M
#define KMT_DEFAULT_FLIGHT_SIZE	SZ_4M
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

/**
 * struct kmt_slot - a CPU's sequence number (modulo its slots) and its
 *                   sub-buffer
 * @data:   the sub-buffer's memory, from the pool: a &struct
 *          kmt_subbuf_header, then records; NULL when it has none.  A
 *          slot gets its memory before its sequence number opens.
 * @commit: bytes written and committed
 * @events: records committed
 * @size:   final size once closed, else 0
 */
struct kmt_slot {
	void		*data;
	local_t		commit;
	local_t		events;
	unsigned int	size;
};

/**
 * struct kmt_pool - the memory of every CPU's sub-buffers
 * @mem:   @nr blocks of @order pages, those of each node together; each
 *         block's first page has its index as page_private()
 * @free:  a bit per block, set while it is free
 * @nr:    blocks
 * @order: page order of each
 * @first: per node, the index of its first block
 */
struct kmt_pool {
	void		**mem;
	unsigned long	*free;
	unsigned int	nr;
	unsigned int	order;
	unsigned int	*first;
};

extern struct kmt_pool kmt_pool;
extern bool kmt_share_present;

struct kmt_cpu {
	u64		state;		/* local: this CPU and its interrupts */
	bool		frozen;		/* a trigger fired: open no sub-buffer */
	unsigned long	events;		/* this_cpu_inc() by its writers */
	local_t		lost;
	local_t		overwritten;	/* flight mode: events of reused sub-buffers */
	local_t		frozen_dropped;	/* events dropped while frozen */
	local_t		reusing;	/* a writer is giving the oldest one back */
	u64		last_ts;
	struct arch_kmt_clock clock;	/* local_clock(), kmt_clock_until() */
	unsigned int	clock_seq;	/* odd while a writer takes a copy */
	/* the pid of the last record with one in this sub-buffer */
	u32		pid_key;	/* KMT_NO_PID: none yet */
	unsigned int	consumed;	/* next sequence number to read */
	/* allocations through wrappers: callers from their entries, unwound */
	local_t		via_kept;
	local_t		via_unwound;
	bool		waiting;
	unsigned long	open;		/* bit 0: the data file is open */
	int		cpu;
	int		node;
	/* per sequence number, modulo their number (a power of two) */
	struct kmt_slot	*slot;		/* NULL: none, every event is lost */
	unsigned int	slot_mask;
	atomic_t	held;		/* blocks of the pool in its slots */
	struct mutex	read_mutex;	/* one reader at a time */
	wait_queue_head_t wait;
	struct irq_work	wakeup;
};

DECLARE_PER_CPU(struct kmt_cpu, kmt_cpu_buf);

/* Bytes per sub-buffer (a power of two). */
extern unsigned int kmt_subbuf_size;
/* enum kmt_mode: what a writer does when it finds no sub-buffer free. */
extern unsigned int kmt_mode;

/* ---- encoding --------------------------------------------------------- */

/*
 * Records are written straight into the reserved space, fields at fixed
 * offsets.  A value that does not fit its slot (a call site outside
 * +-2 GiB of _stext, a huge size, a pointer outside the first 32 GiB of
 * the direct map) sends the event down kmt_record_fields(), which writes
 * the escape and the full value after it.
 */
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

/*
 * A direct-map offset as a DMAP32 value: rotated, so that an offset with
 * any of its low three bits set is above every value that fits.
 */
static __always_inline u64 kmt_dmap32(u64 off)
{
	return ror64(off, 3);
}

/* A TEXT32 call site and a DMAP32 pointer that fit, as one word. */
static __always_inline u64 kmt_site_ptr(s64 cs, u64 off)
{
	return (u32)cs | kmt_dmap32(off) << 32;
}

/* The call site and the pointer back from kmt_site_ptr()'s word. */
static __always_inline unsigned long kmt_site_of(u64 w)
{
	return (unsigned long)_stext + (s32)w;
}

static __always_inline const void *kmt_ptr_of(u64 w)
{
	return (const void *)(PAGE_OFFSET + (w >> 32 << 3));
}

/* 8-byte aligned and below KMT_DMAP32_NULL << 3: one compare. */
static __always_inline bool kmt_dmap_fits(u64 off)
{
	/* an offset not 8-byte aligned rotates to 2^61 or more */
	BUILD_BUG_ON(KMT_DMAP32_NULL >= 1ULL << 61);
	return kmt_dmap32(off) < KMT_DMAP32_NULL;
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

/* No task has it: the pid key of a sub-buffer without a pid yet. */
#define KMT_NO_PID		U32_MAX

static __always_inline u64 kmt_state(u64 ts, unsigned int seq, unsigned int pos)
{
	return (ts << 32) | ((u64)(seq & KMT_SEQ_MASK) << KMT_POS_BITS) | pos;
}

/*
 * The time of a record: local_clock().  That costs some 40 instructions,
 * most of them calls and the sched_clock latch around the TSC read, and
 * 90 before sched_clock is stable (the boot, up to a late initcall),
 * when it is filtered through the CPU's sched_clock_data.  Where the
 * architecture can say what sched_clock() is on this CPU (on x86, a scale
 * of the TSC), each CPU keeps a copy of local_clock() as that scale plus
 * a constant (local_clock_copy_window()), taken when it opens a
 * sub-buffer or when its copy is stale.  The copy holds for times below
 * the CPU's local_clock_copy_until(): for good once sched_clock is stable,
 * up to the tick window's top before; whatever changes local_clock() (a
 * tick, a new scale, a resume, a change of regime, another CPU raising
 * this one's clock) sets it to 0 first.  Otherwise the time is
 * kmt_clock_slow()'s.  Either way it is what local_clock() gives on this
 * CPU at that moment.
 *
 * The limit is read after the TSC: an interrupt that changed the clock
 * between the two leaves it 0.
 */
static __always_inline u64 kmt_clock_until(void)
{
#ifdef CONFIG_ARCH_HAS_KMEMTRACE_CLOCK
	return local_clock_copy_until();
#else
	return 0;
#endif
}

/* Before the first record: the clock then says when a copy is stale. */
static inline void kmt_clock_enable(void)
{
#ifdef CONFIG_ARCH_HAS_KMEMTRACE_CLOCK
	local_clock_copy_enable();
#endif
}

void kmt_clock_drop(int cpu);

static __always_inline u64 kmt_clock(struct kmt_cpu *cb)
{
	u64 ts;

	/* untraced: a handler recording each time would keep us retrying */
	if (!IS_ENABLED(CONFIG_ARCH_HAS_KMEMTRACE_CLOCK))
		return local_clock_noinstr();
	ts = arch_kmt_clock_read(&cb->clock);
	barrier();
	if (likely(ts < kmt_clock_until()))
		return ts;
	return kmt_clock_slow();
}

/* On while the pool is a reserve_mem= region (persist.c). */
DECLARE_STATIC_KEY_FALSE(kmt_persist_key);

/* The pool is in a reserve_mem= region (persist.c): a patched jump. */
static __always_inline bool kmt_persist_on(void)
{
	return static_branch_unlikely(&kmt_persist_key);
}

bool kmt_persist_pool(void);
unsigned int kmt_persist_index(const void *mem);
void kmt_persist_forget(void *mem);

bool kmt_take_mem(struct kmt_cpu *cb, struct kmt_slot *slot);
void kmt_pool_put(void *mem);
u8 *kmt_open(struct kmt_cpu *cb, unsigned int old_seq, unsigned int pos,
	     unsigned int seq, u64 ts);
/* What kmt_reuse() did. */
enum kmt_reuse_ret {
	KMT_REUSE_FROZEN = -1,
	KMT_REUSE_NO = 0,
	KMT_REUSE_AGAIN = 1,
};

int kmt_reuse(struct kmt_cpu *cb, u64 *old);
bool kmt_full(struct kmt_cpu *cb, u64 *old);
void kmt_flush_cpu(struct kmt_cpu *cb);

/**
 * struct kmt_rsv - a record reserved by kmt_reserve()
 * @p:    its first payload byte, after header, time and pid
 * @idx:  its slot, for the commit
 * @len:  bytes reserved
 *
 * Two words, which the probes keep in registers.
 */
struct kmt_rsv {
	u8		*p;
	unsigned int	idx;
	unsigned int	len;
};

/* Bytes of a record's header byte and time delta. */
#define KMT_REC_HDR_LEN		3

/**
 * struct kmt_rsv_fast - a record reserved by kmt_reserve_fast()
 * @p:    its first payload byte, after header and time
 * @slot: its slot, for the commit
 *
 * Its length is the probe's constant, KMT_REC_HDR_LEN and the payload's
 * (kmt_commit_fast()).  Two words, which the probes keep in registers.
 */
struct kmt_rsv_fast {
	u8		*p;
	struct kmt_slot	*slot;
};

/* The time of a record: now, or the one it happened at (kmt_reserve_at()). */
#define KMT_NOW			U64_MAX

/*
 * kmt_reserve_at - reserve a record of @type with @plen payload bytes
 *
 * Writes the header byte, the time (@at, or local_clock() for KMT_NOW)
 * and, if needed, the pid.  Return: true with @r filled in, or false when
 * the event was dropped (and counted): no sub-buffer to write it in.
 */
static __always_inline bool kmt_reserve_at(struct kmt_cpu *cb, u8 type,
					   unsigned int plen, struct kmt_rsv *r,
					   u64 at)
{
	unsigned int pos, seq, len, next_seq, consumed;
	struct kmt_slot *next;
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
		/*
		 * The copy of the clock read after the state, on every
		 * pass: one that an interrupt took since came with a new
		 * state (kmt_reserve_fast()).
		 */
		barrier();
		ts = at == KMT_NOW ? kmt_clock(cb) : at;
		last_ts = READ_ONCE(cb->last_ts);
		/*
		 * A time taken before (an early event written after the
		 * probes' first records, a trigger's) that records written
		 * since have passed stands at the last one's: this CPU's
		 * records stay in time order.
		 */
		if (at != KMT_NOW && (s64)(ts - last_ts) < 0)
			ts = last_ts;
		pos = old & KMT_POS_MASK;
		seq = (old >> KMT_POS_BITS) & KMT_SEQ_MASK;
		need_pid = ctx == KMT_CTX_TASK && pid != READ_ONCE(cb->pid_key);
		/*
		 * The delta is from the state's time, the last reserved
		 * record's, of which the state keeps the low half; last_ts
		 * is the same time once its writer has published it.  A
		 * time behind the state's (a negative delta) is one of
		 * three things.
		 *
		 * A nested writer's: a writer interrupted between its
		 * reservation and its publication of last_ts left the
		 * state ahead of last_ts, and this clock reading lies
		 * before its time (read before it, or stepped back since).
		 * It stands at the state's time, microseconds ahead (dt
		 * 0), so that the state, last_ts and what a reader decodes
		 * stay the same time, and last_ts never gets ahead of the
		 * state.
		 *
		 * Otherwise the state is last_ts.  A gap of 2^31 ns or more,
		 * which the low halves cannot tell from a negative delta,
		 * or a clock that stepped back (local_clock() changing
		 * regime when sched_clock is marked stable or unstable, by
		 * up to a tick): both make the time absolute below, the
		 * clock's own time, the step where it happened.
		 *
		 * A closed sub-buffer's state has no time to compare with.
		 */
		dt = (u32)ts - (u32)(old >> 32);
		if (unlikely((s32)dt < 0)) {
			if ((u32)(old >> 32) != (u32)last_ts &&
			    pos != KMT_POS_CLOSED)
				ts -= (s32)dt;
			dt = 0;
		}
		/* A lagging last_ts overestimates the gap: merely absolute. */
		abs = ts - last_ts >= KMT_TIME_ABS;
		len = KMT_REC_HDR_LEN + plen + (abs ? 8 : 0) +
		      (need_pid ? 4 : 0);
		if (likely(pos + len <= kmt_subbuf_size)) {
			/* KMT_POS_CLOSED is past every sub-buffer's end */
			if (try_cmpxchg64_local(&cb->state, &old,
						kmt_state(ts, seq, pos + len)))
				break;
			continue;
		}
		/*
		 * Frozen: no sub-buffer is opened, so none is reused.  What
		 * the current one still holds room for is written, the rest
		 * counted apart from the lost events.  A CPU without slots
		 * (their allocation failed) counts every event lost, frozen
		 * or not: its state stays closed.
		 */
		if (unlikely(READ_ONCE(cb->frozen)) && likely(cb->slot)) {
			local_inc(&cb->frozen_dropped);
			return false;
		}
		/* The first record of a sub-buffer is relative to base_ts. */
		abs = false;
		dt = 0;
		need_pid = ctx == KMT_CTX_TASK;
		len = KMT_REC_HDR_LEN + plen + (need_pid ? 4 : 0);
		/* Pairs with the release in kmt_copy_ready(). */
		consumed = smp_load_acquire(&cb->consumed);
		used = sign_extend32((seq - consumed) & KMT_SEQ_MASK,
				     KMT_SEQ_BITS - 1);
		/*
		 * A state read before interrupts went past it and a reader
		 * consumed what they wrote: read it again, not to give a
		 * block to a sequence number that went.
		 */
		if (unlikely(used < -1)) {
			old = READ_ONCE(cb->state);
			continue;
		}
		next_seq = consumed + used + 1;
		/*
		 * The next sub-buffer's memory goes into its slot before the
		 * reservation that opens it, so that whoever writes it
		 * first finds it: from the pool, or, in flight mode with
		 * the pool empty, this CPU's oldest sub-buffer's.  Boot mode
		 * drops the event when the pool is empty; so does a CPU
		 * without slots, or whose slots are all in use.
		 */
		next = cb->slot ? &cb->slot[next_seq & cb->slot_mask] : NULL;
		if (unlikely(!next || used + 2 > (int)cb->slot_mask + 1 ||
			     (!READ_ONCE(next->data) && !kmt_take_mem(cb, next)))) {
			int reuse = next ? kmt_reuse(cb, &old) : KMT_REUSE_NO;

			if (reuse == KMT_REUSE_AGAIN)
				continue;
			if (reuse == KMT_REUSE_FROZEN || kmt_full(cb, &old))
				return false;
			continue;
		}
		if (!try_cmpxchg64_local(&cb->state, &old,
					 kmt_state(ts, next_seq,
						   sizeof(struct kmt_subbuf_header) + len)))
			continue;
		p = kmt_open(cb, seq, pos, next_seq, ts);
		seq = next_seq;
		pos = sizeof(struct kmt_subbuf_header);
		goto write;
	}
	p = (u8 *)READ_ONCE(cb->slot[seq & cb->slot_mask].data) + pos;
write:
	WRITE_ONCE(cb->last_ts, ts);
	r->idx = seq & cb->slot_mask;
	r->len = len;
	p[0] = type | ctx << KMT_HDR_CTX_SHIFT | (need_pid ? KMT_HDR_PID : 0);
	if (unlikely(abs)) {
		put_unaligned_le16(KMT_TIME_ABS, p + 1);
		put_unaligned_le64(ts, p + KMT_REC_HDR_LEN);
		p += 8;
	} else {
		put_unaligned_le16(dt, p + 1);
	}
	p += KMT_REC_HDR_LEN;
	if (need_pid) {
		put_unaligned_le32(pid, p);
		p += 4;
		/*
		 * The key is this sub-buffer's: one that an interrupt opened
		 * since the reservation (resetting the key before this write)
		 * gets it reset again.
		 */
		WRITE_ONCE(cb->pid_key, pid);
		barrier();
		if (unlikely((u32)READ_ONCE(cb->state) >> KMT_POS_BITS !=
			     (seq & KMT_SEQ_MASK)))
			WRITE_ONCE(cb->pid_key, KMT_NO_PID);
	}
	r->p = p;
	return true;
}

static __always_inline bool kmt_reserve(struct kmt_cpu *cb, u8 type,
					unsigned int plen, struct kmt_rsv *r)
{
	return kmt_reserve_at(cb, type, plen, r, KMT_NOW);
}

/*
 * Whether the hot probes try kmt_reserve_fast(): where the architecture
 * keeps a copy of the clock, and can call kmt_clock_slow() without
 * disturbing the caller's registers.  Elsewhere the general path is the
 * probes' body.
 */
static __always_inline bool kmt_has_fast_path(void)
{
	return IS_ENABLED(CONFIG_ARCH_HAS_KMEMTRACE_CLOCK);
}

/*
 * kmt_clock() for kmt_reserve_fast(): the same time, with
 * kmt_clock_slow(), a stale copy's, called through arch_kmt_clock_slow(),
 * which leaves the caller's registers alone.
 */
static __always_inline u64 kmt_clock_fast(struct kmt_cpu *cb)
{
	u64 ts = arch_kmt_clock_read(&cb->clock);

	barrier();
	if (likely(ts < kmt_clock_until()))
		return ts;
	return arch_kmt_clock_slow();
}

/*
 * kmt_reserve_fast - kmt_reserve()'s common case, or nothing
 *
 * The record of @type with @plen payload bytes when it is the simple
 * one: the state's sub-buffer has room for it, its time is less than
 * KMT_TIME_ABS after the last record's and not behind the state's, and
 * it has no pid to carry (an interrupt's, or the task of the last record
 * in this sub-buffer).  It writes what kmt_reserve() writes for that
 * record: the header byte, the time delta.
 *
 * The hot probes try it first: it is short enough that they save few
 * registers, and calls nothing but kmt_clock_slow() (a stale copy of the
 * clock, or none: a paravirt sched_clock), through a thunk that keeps
 * them (arch_kmt_clock_slow()).  Anything else returns false before it
 * has changed anything, and so does a reservation that an interrupt's
 * changed under it: kmt_reserve() then decides the record from the
 * start.  The time is kmt_clock()'s (kmt_clock_fast()).  An interrupt
 * takes a new copy of the clock only when it opens a sub-buffer, whose
 * reservation changes the state: read after the state (the barrier), a
 * copy whose fields such an interrupt mixed fails the cmpxchg.  Its
 * records go to a pool in memory: kmt_commit_fast() them.
 *
 * Return: true with @r filled in, or false.
 */
static __always_inline bool kmt_reserve_fast(u8 type, unsigned int plen,
					     struct kmt_rsv_fast *r)
{
	struct kmt_cpu *cb = this_cpu_ptr(&kmt_cpu_buf);
	u64 old = READ_ONCE(cb->state);
	unsigned int pos = old & KMT_POS_MASK;
	/* the sequence number is the low word's top bits */
	unsigned int seq = (u32)old >> KMT_POS_BITS;
	unsigned int len = KMT_REC_HDR_LEN + plen;
	u8 ctx = KMT_CTX_TASK;
	u64 ts;
	u32 dt;
	u8 *p;

	BUILD_BUG_ON(KMT_POS_BITS + KMT_SEQ_BITS != 32);
	BUILD_BUG_ON(KMT_MAX_SUBBUF_SIZE >= KMT_POS_CLOSED);
	/* the copy of the clock read after the state */
	barrier();
	if (likely(!(preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)))) {
		if ((u32)task_pid_nr(current) != READ_ONCE(cb->pid_key))
			return false;
	} else {
		ctx = interrupt_context_level();
	}
	/* KMT_POS_CLOSED is past every sub-buffer's end */
	if (unlikely(pos + len > kmt_subbuf_size))
		return false;
	ts = kmt_clock_fast(cb);
	dt = (u32)ts - (u32)(old >> 32);
	if (unlikely((s32)dt < 0) ||
	    unlikely(ts - READ_ONCE(cb->last_ts) >= KMT_TIME_ABS))
		return false;
	/* pos + len stays below KMT_POS_CLOSED: seq is unchanged */
	if (unlikely(!try_cmpxchg64_local(&cb->state, &old,
					  ts << 32 | ((u32)old + len))))
		return false;
	WRITE_ONCE(cb->last_ts, ts);
	r->slot = &cb->slot[seq & cb->slot_mask];
	p = (u8 *)READ_ONCE(r->slot->data) + pos;
	p[0] = type | ctx << KMT_HDR_CTX_SHIFT;
	put_unaligned_le16(dt, p + 1);
	r->p = p + KMT_REC_HDR_LEN;
	return true;
}

/*
 * An interrupt closed this sub-buffer while a writer it interrupted was
 * writing it (commit count @done, the last commit, equal to its size):
 * the close's wakeup found it incomplete, so the last commit wakes the
 * reader.  Same CPU as the closer, so the size it stored is visible here.
 */
static __always_inline void kmt_commit_wake(struct kmt_slot *slot, long done)
{
	struct kmt_cpu *cb;

	if (unlikely(done == READ_ONCE(slot->size))) {
		cb = this_cpu_ptr(&kmt_cpu_buf);
		/* Pairs with the smp_mb() of the reader setting ->waiting. */
		smp_mb();
		if (READ_ONCE(cb->waiting))
			irq_work_queue(&cb->wakeup);
	}
}

/* Commit @len bytes of @slot, this CPU's, in a pool in memory. */
static __always_inline void kmt_commit_len(struct kmt_slot *slot,
					   unsigned int len)
{
	long done;

	/* A slot whose commit reached its size has its final event count. */
	local_inc(&slot->events);
	/* Count and record bytes before the commit; pairs with kmt_slot_ready(). */
	smp_wmb();
	done = local_add_return(len, &slot->commit);
	this_cpu_inc(kmt_cpu_buf.events);
	kmt_commit_wake(slot, done);
}

/*
 * Commit @r of kmt_reserve_fast(), whose @plen must be the reservation's:
 * a commit count short of the sub-buffer's size would keep the reader
 * waiting for it.
 */
static __always_inline void kmt_commit_fast(struct kmt_rsv_fast *r,
					    unsigned int plen)
{
	kmt_commit_len(r->slot, KMT_REC_HDR_LEN + plen);
}

void kmt_persist_commit(struct kmt_cpu *cb, unsigned int idx,
			unsigned int len);

/*
 * Commit @r; @persist: the pool is in a reserve_mem= region, where the
 * headers say what is whole.  The hot probes come in two copies, each
 * with @persist a constant, so that the commit to a pool in memory tests
 * nothing; the others pass kmt_persist_on().  The reservation goes by
 * value: one whose address escaped would live on the stack on the hot
 * path too.
 */
static __always_inline void __kmt_commit(struct kmt_cpu *cb,
					 struct kmt_rsv *r, bool persist)
{
	if (persist)
		kmt_persist_commit(cb, r->idx, r->len);
	else
		kmt_commit_len(&cb->slot[r->idx], r->len);
}

static __always_inline void kmt_commit(struct kmt_cpu *cb, struct kmt_rsv *r)
{
	__kmt_commit(cb, r, kmt_persist_on());
}

/* ---- the general path ------------------------------------------------- */

/* A string field's bytes, for kmt_record_fields(). */
struct kmt_str {
	const void	*p;
	size_t		len;
};

void kmt_record_fields_at(u8 type, const u8 *enc, const u64 *v,
			  unsigned int n, const struct kmt_str *str,
			  unsigned int nstr, u64 at);
void kmt_record_fields(u8 type, const u8 *enc, const u64 *v, unsigned int n,
		       const struct kmt_str *str, unsigned int nstr);
void kmt_record_str(u8 type, const u8 *enc, const u64 *v, unsigned int n,
		    const char *str);
void kmt_emit_mark(enum kmt_mark mark);

/* The encodings of the fields of a KMT_EV_MARK record, in order. */
#define KMT_MARK_FIELDS		6
extern const u8 kmt_enc_mark[KMT_MARK_FIELDS];
extern const u8 kmt_enc_u32[1];

#endif /* _MM_KMEMTRACE_BUFFER_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the buffers - the pool of sub-buffers, reserve and commit,
 * the clock, the general path that writes any record field by field.
 *
 * When the pool has no free sub-buffer, boot mode drops the event and
 * counts it: the earliest events are kept, for a reader that drains the
 * buffers.  Flight mode gives the CPU's oldest sub-buffer back and counts
 * its events as overwritten: the latest events are kept, until a trigger
 * freezes every CPU's buffer for a reader that comes later (flight.c).
 *
 * The format is defined in include/uapi/linux/kmemtrace.h and specified in
 * Documentation/trace/kmemtrace-format.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/kprobes.h>
#include <linux/smp.h>

#include "internal.h"

DEFINE_PER_CPU(struct kmt_cpu, kmt_cpu_buf);

unsigned int kmt_subbuf_size = KMT_DEFAULT_SUBBUF_SIZE;
struct kmt_pool kmt_pool __read_mostly;
unsigned int kmt_mode __read_mostly = KMT_MODE_BOOT;

/* ---- the clock -------------------------------------------------------- */

#ifdef CONFIG_ARCH_HAS_KMEMTRACE_CLOCK
/*
 * Take this CPU's copy of the clock (buffer.h), on its CPU, unless a
 * writer that this one interrupted is taking it (an odd clock_seq): a
 * nested writer does not mix its fields with that one's.  A writer that
 * reads the copy sees its limit 0 until the copy is whole.
 *
 * Return: true with local_clock() now in @ts.
 */
static notrace bool kmt_clock_take(struct kmt_cpu *cb, u64 *ts)
{
	unsigned int seq = READ_ONCE(cb->clock_seq);
	struct arch_kmt_clock c;
	unsigned long gen;
	u64 now, add, until;
	bool ok = false;

	/* a paravirt sched_clock: no copy, and none to begin */
	if ((seq & 1) || !arch_kmt_clock_get(&c))
		return false;
	WRITE_ONCE(cb->clock_seq, seq + 1);
	barrier();
	if (local_clock_copy_begin(&gen) && arch_kmt_clock_get(&c)) {
		now = arch_kmt_clock_read(&c);
		if (local_clock_copy_window(now, &add, &until)) {
			c.offset += add;
			cb->clock = c;
			barrier();
			ok = local_clock_copy_commit(gen, until);
			*ts = now + add;
		}
	}
	barrier();
	WRITE_ONCE(cb->clock_seq, seq + 2);
	return ok;
}

NOKPROBE_SYMBOL(kmt_clock_take);

/* Whether this context may take the copy: see kmt_clock_slow(). */
static __always_inline bool kmt_clock_may_take(void)
{
	return !(preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET));
}

/*
 * When this CPU opens a sub-buffer, in any context: the reservation that
 * opened it changed the state, so a writer that this one interrupted
 * between its reads of the copy fails its own.
 */
static notrace void kmt_clock_update(struct kmt_cpu *cb)
{
	u64 ts;

	if (!local_clock_copy_until())
		kmt_clock_take(cb, &ts);
}

/**
 * kmt_clock_drop - @cpu's copy of the clock no longer holds
 * @cpu: a CPU going offline: its clock may not go on from there
 */
void kmt_clock_drop(int cpu)
{
	local_clock_copy_stale(cpu);
}
#else
static bool kmt_clock_take(struct kmt_cpu *cb, u64 *ts)
{
	return false;
}

static __always_inline bool kmt_clock_may_take(void)
{
	return false;
}

static void kmt_clock_update(struct kmt_cpu *cb)
{
}

void kmt_clock_drop(int cpu)
{
}
#endif

/**
 * kmt_clock_slow - local_clock() without a valid copy of it
 *
 * The copy is stale (a tick, before sched_clock is stable, or anything
 * else that changed the clock), or there is none (a paravirt
 * sched_clock): a task takes it again, and its time comes from it.  Only
 * a task: an interrupt could write the copy between the reads of a
 * writer it interrupted, and, if its own event went nowhere (dropped,
 * counted), leave that writer's reservation to succeed with a time from
 * two copies' fields.  Otherwise, or when the copy cannot be taken (the
 * CPU's clock ahead of the tick window's, or a copy being taken by the
 * writer this one interrupted), local_clock().  Out of line: the fast
 * path comes here through arch_kmt_clock_slow().  Neither it nor the
 * local_clock() it calls is traced or probed: a handler that recorded
 * on every pass through it would keep the reservation that called it
 * retrying.
 *
 * Return: local_clock() on this CPU.
 */
noinline notrace u64 kmt_clock_slow(void)
{
	struct kmt_cpu *cb = this_cpu_ptr(&kmt_cpu_buf);
	u64 ts;

	if (kmt_clock_may_take() && kmt_clock_take(cb, &ts))
		return ts;
	/* preemption is off: the untraced one, as said above */
	return local_clock_noinstr();
}

NOKPROBE_SYMBOL(kmt_clock_slow);

/* ---- the pool -------------------------------------------------------- */

/*
 * A free block of the pool, preferably of node @nid, or NULL.  Lockless
 * and safe from NMI: a bit of the free map taken with
 * test_and_clear_bit(), once per sub-buffer a CPU opens.  Fully ordered:
 * what the reader that gave it back read of it comes before.
 */
static void *kmt_pool_get(int nid)
{
	unsigned int end = kmt_pool.nr, i;
	unsigned int start = nid >= 0 && nid < nr_node_ids ? kmt_pool.first[nid] : 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = find_next_bit(kmt_pool.free, end, start); i < end;
		     i = find_next_bit(kmt_pool.free, end, i + 1))
			if (test_and_clear_bit(i, kmt_pool.free))
				return kmt_pool.mem[i];
		end = start;
		start = 0;
	}
	return NULL;
}

/* Give block @mem back to the pool: nothing refers to it any more.  Any context. */
void kmt_pool_put(void *mem)
{
	unsigned int i;

	if (kmt_persist_on()) {
		/* after a crash, no longer the sub-buffer it was */
		kmt_persist_forget(mem);
		i = kmt_persist_index(mem);
		if (i >= kmt_pool.nr)
			return;
	} else {
		i = page_private(virt_to_page(mem));
	}
	/* The reads of it before another CPU can take it and write it. */
	smp_mb__before_atomic();
	set_bit(i, kmt_pool.free);
}

/*
 * Until the CPUs are up (kmt_share_settle(), a core_initcall, clears
 * it), the flight share counts the present CPUs, read each time (some
 * architectures mark the secondary CPUs present only in
 * smp_prepare_cpus()): the boot CPU would otherwise take the whole pool
 * before smp_init() brings the others up.
 */
bool kmt_share_present __ro_after_init;

/*
 * Flight mode: the blocks a CPU may hold, its share of the pool, so that
 * a CPU that starts recording a lot late still finds some: a CPU at its
 * share reuses its own oldest sub-buffer, and one above it (after a
 * switch from boot mode, or when another CPU came online) gives a block
 * back each time it opens a sub-buffer.  Rounded down, so that every
 * CPU finds its share: up to a block per CPU stays unused.  Boot mode
 * has no share: the first to need the pool take it.
 */
static unsigned int kmt_flight_share(void)
{
	unsigned int cpus = READ_ONCE(kmt_share_present) ? num_present_cpus() :
			    num_online_cpus();

	return max(kmt_pool.nr / max(cpus, 1U), 1U);
}

/*
 * Give @slot, the slot of the next sequence number, a block of the pool
 * before that sequence number opens.  False when the pool is empty, or
 * in flight mode when the CPU holds its share.  A writer that
 * interrupted this one may have given it one meanwhile: this one goes
 * back then.  One that this writer interrupted may give it one later,
 * for a sequence number that came and went meanwhile, and that block
 * then waits in the slot for the slot's next sequence number (parked,
 * and held: kmt_reuse() moves it on when the CPU holds nothing else).
 * A full cmpxchg(): a reader on another CPU clears a slot's block, and
 * x86's cmpxchg without lock would write a failed compare's old value
 * back over that.
 */
noinline bool kmt_take_mem(struct kmt_cpu *cb, struct kmt_slot *slot)
{
	void *mem;

	if (READ_ONCE(kmt_mode) == KMT_MODE_FLIGHT &&
	    atomic_read(&cb->held) >= kmt_flight_share())
		return false;
	mem = kmt_pool_get(cb->node);
	if (!mem)
		return false;
	/* before the block is in the slot: held is never below the slots' */
	atomic_inc(&cb->held);
	if (cmpxchg(&slot->data, NULL, mem)) {
		atomic_dec(&cb->held);
		kmt_pool_put(mem);
	}
	return true;
}

/*
 * Flight mode, nothing held but blocks parked in the slots of sequence
 * numbers that came and went (kmt_take_mem()): move one to @next, the
 * slot of the next sequence number.  Under ->reusing, with no reader:
 * no other writer moves a parked block, and no writer writes one.
 */
static bool kmt_unpark(struct kmt_cpu *cb, struct kmt_slot *next)
{
	unsigned int i;
	void *mem;

	if (READ_ONCE(next->data))
		return true;
	for (i = 0; i <= cb->slot_mask; i++) {
		if (&cb->slot[i] == next || !READ_ONCE(cb->slot[i].data))
			continue;
		mem = xchg(&cb->slot[i].data, NULL);
		if (mem && cmpxchg(&next->data, NULL, mem)) {
			/* a nested writer gave @next one meanwhile */
			atomic_dec(&cb->held);
			kmt_pool_put(mem);
		}
		return true;
	}
	return false;
}

/* ---- reserve and commit ----------------------------------------------- */

static void kmt_close_slot(struct kmt_cpu *cb, unsigned int seq, unsigned int pos)
{
	struct kmt_slot *slot = &cb->slot[seq & cb->slot_mask];
	struct kmt_subbuf_header *h = READ_ONCE(slot->data);

	/*
	 * In a region that outlives a crash the header's size says what is
	 * whole: a writer this close interrupted, whose record is not
	 * whole, raises it with its commit (kmt_persist_commit()).
	 */
	if (!kmt_persist_on() ||
	    local_read(&slot->commit) == pos)
		WRITE_ONCE(h->size, pos);
	/* Pairs with the first smp_rmb() in kmt_slot_ready(). */
	smp_wmb();
	WRITE_ONCE(slot->size, pos);
	/* Order the size store before the waiting load; pairs with readers. */
	smp_mb();
	if (READ_ONCE(cb->waiting))
		irq_work_queue(&cb->wakeup);
}

/*
 * Open sub-buffer @seq, whose slot has its block and whose first record
 * the caller reserved, closing the one at @old_seq/@pos.  Out of line:
 * once per sub-buffer.
 */
noinline u8 *kmt_open(struct kmt_cpu *cb, unsigned int old_seq,
		      unsigned int pos, unsigned int seq, u64 ts)
{
	const unsigned int hsz = sizeof(struct kmt_subbuf_header);
	struct kmt_slot *slot = &cb->slot[seq & cb->slot_mask];
	struct kmt_subbuf_header *h = READ_ONCE(slot->data);

	if (pos != KMT_POS_CLOSED)
		kmt_close_slot(cb, old_seq, pos);
	/* Pids restart in every sub-buffer. */
	WRITE_ONCE(cb->pid_key, KMT_NO_PID);
	kmt_clock_update(cb);
	/*
	 * No h->size: kmt_close_slot() sets it, and an interrupt that fills
	 * this sub-buffer before we get here may already have closed it.
	 * The magic last: a crash before it leaves no sub-buffer that says
	 * it is another's.
	 */
	h->cpu = cb->cpu;
	h->seq = seq;
	h->base_ts = ts;
	h->lost = local_read(&cb->lost);
	barrier();
	WRITE_ONCE(h->magic, KMT_SUBBUF_MAGIC);
	local_add(hsz, &slot->commit);
	return (u8 *)h + hsz;
}

/*
 * Flight mode: take the block of sub-buffer @consumed, this CPU's oldest,
 * counting its events as overwritten; NULL while a writer this one
 * interrupted has not committed all of it.  Under ->reusing.
 */
static void *kmt_take_oldest(struct kmt_cpu *cb, unsigned int consumed)
{
	struct kmt_slot *slot = &cb->slot[consumed & cb->slot_mask];
	unsigned int size = READ_ONCE(slot->size);
	void *mem;

	if (!size || local_read(&slot->commit) != size)
		return NULL;
	local_add(local_read(&slot->events), &cb->overwritten);
	mem = xchg(&slot->data, NULL);
	if (kmt_persist_on())
		kmt_persist_forget(mem);
	local_set(&slot->commit, 0);
	local_set(&slot->events, 0);
	WRITE_ONCE(slot->size, 0);
	return mem;
}

/*
 * Flight mode, the pool empty or the CPU's share taken: give this CPU's
 * oldest sub-buffer's block to the slot of the next sequence number, and
 * count its events as overwritten.  When the oldest is the one open,
 * close it first.  A CPU above its share (after a switch from boot
 * mode, or another CPU come up) also gives its next oldest back to the
 * pool: one block each time it opens a sub-buffer, so that the work is
 * bounded in any context.  Not while a reader has the data file open
 * (->consumed is the reader's then), nor while a writer this one
 * interrupted is doing it, nor before every record of the oldest
 * sub-buffer is committed: the event is dropped then.
 * Return: KMT_REUSE_AGAIN to try again, KMT_REUSE_NO to drop (and count
 * lost), KMT_REUSE_FROZEN when a trigger froze the buffer meanwhile (the
 * event is dropped and counted already).
 */
noinline int kmt_reuse(struct kmt_cpu *cb, u64 *old)
{
	unsigned int pos = *old & KMT_POS_MASK;
	unsigned int seq = (*old >> KMT_POS_BITS) & KMT_SEQ_MASK;
	int ret = KMT_REUSE_NO, used;
	struct kmt_slot *next;
	unsigned int consumed;
	void *mem, *spare;

	/* Pairs with clear_bit_unlock() in kmt_data_release(). */
	if (READ_ONCE(kmt_mode) != KMT_MODE_FLIGHT ||
	    test_bit_acquire(0, &cb->open))
		return KMT_REUSE_NO;
	if (local_cmpxchg(&cb->reusing, 0, 1))
		return KMT_REUSE_NO;
	/* A trigger that interrupted this writer froze the buffer. */
	if (READ_ONCE(cb->frozen)) {
		local_inc(&cb->frozen_dropped);
		ret = KMT_REUSE_FROZEN;
		goto out;
	}
	consumed = READ_ONCE(cb->consumed);
	used = sign_extend32((seq - consumed) & KMT_SEQ_MASK, KMT_SEQ_BITS - 1);
	next = &cb->slot[(seq + 1) & cb->slot_mask];
	/* Nothing held: nothing to give, but a parked block to move on. */
	if (used < 0) {
		if (used == -1 && atomic_read(&cb->held) && kmt_unpark(cb, next))
			ret = KMT_REUSE_AGAIN;
		goto out;
	}
	/* Only the open one: close it, then give it. */
	if (!used && pos != KMT_POS_CLOSED) {
		u64 closed = kmt_state(*old >> 32, seq, KMT_POS_CLOSED);

		if (try_cmpxchg64_local(&cb->state, old, closed)) {
			*old = closed;
			kmt_close_slot(cb, seq, pos);
		}
		ret = KMT_REUSE_AGAIN;
		goto out;
	}
	mem = kmt_take_oldest(cb, consumed);
	if (!mem)
		goto out;
	consumed++;
	/*
	 * A spare older than the current sub-buffer, when above the share;
	 * not once a trigger froze the buffer: it keeps what it has.
	 */
	if (used > 1 && !READ_ONCE(cb->frozen) &&
	    atomic_read(&cb->held) > kmt_flight_share()) {
		spare = kmt_take_oldest(cb, consumed);
		if (spare) {
			consumed++;
			atomic_dec(&cb->held);
			kmt_pool_put(spare);
		}
	}
	WRITE_ONCE(cb->consumed, consumed);
	if (cmpxchg(&next->data, NULL, mem)) {
		/* a nested writer gave @next one meanwhile */
		atomic_dec(&cb->held);
		kmt_pool_put(mem);
	}
	ret = KMT_REUSE_AGAIN;
out:
	local_set(&cb->reusing, 0);
	return ret;
}

/* No sub-buffer to open: hand the current one to the reader, drop. */
noinline bool kmt_full(struct kmt_cpu *cb, u64 *old)
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
void kmt_flush_cpu(struct kmt_cpu *cb)
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
noinline void kmt_record_fields_at(u8 type, const u8 *enc, const u64 *v,
				   unsigned int n, const struct kmt_str *str,
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
	/* Being given back: counted as lost, kmt_release_buffers_locked(). */
	if (unlikely(!kmt_buffers_ready())) {
		local_inc(&cb->lost);
	} else if (kmt_reserve_at(cb, type, plen, &r, at)) {
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

void kmt_record_fields(u8 type, const u8 *enc, const u64 *v, unsigned int n,
		       const struct kmt_str *str, unsigned int nstr)
{
	kmt_record_fields_at(type, enc, v, n, str, nstr, KMT_NOW);
}

const u8 kmt_enc_u32[1] = { KMT_ENC_U32X };

void kmt_record_str(u8 type, const u8 *enc, const u64 *v, unsigned int n,
		    const char *str)
{
	struct kmt_str s = { str, strnlen(str, KMT_MAX_NAME) };

	kmt_record_fields(type, enc, v, n, &s, 1);
}

/* ---- marks ----------------------------------------------------------- */

const u8 kmt_enc_mark[KMT_MARK_FIELDS] = {
	KMT_ENC_U8X, KMT_ENC_U8X, KMT_ENC_U32X, KMT_ENC_U8X, KMT_ENC_U24X,
	KMT_ENC_U16X,
};

void kmt_emit_mark(enum kmt_mark mark)
{
	const struct kmt_str none[2] = { { "", 0 }, { "", 0 } };
	u64 v[ARRAY_SIZE(kmt_enc_mark)] = { mark };

	kmt_record_fields(KMT_EV_MARK, kmt_enc_mark, v, ARRAY_SIZE(v), none, 2);
}

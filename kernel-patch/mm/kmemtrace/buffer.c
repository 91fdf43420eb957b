// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the per-CPU buffers - reserve and commit, the clock, the
 * general path that writes any record field by field.
 *
 * When no sub-buffer is free, boot mode drops the event and counts it:
 * the earliest events are kept, for a reader that drains the buffers.
 * Flight mode reuses the oldest sub-buffer and counts its events as
 * overwritten: the latest events are kept, until a trigger freezes every
 * CPU's buffer for a reader that comes later (flight.c).
 *
 * The format is defined in include/uapi/linux/kmemtrace.h and specified in
 * Documentation/trace/kmemtrace-format.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/smp.h>

#include "internal.h"

DEFINE_PER_CPU(struct kmt_cpu, kmt_cpu_buf);

unsigned int kmt_nr_subbufs = KMT_DEFAULT_SUBBUFS;
unsigned int kmt_subbuf_mask = KMT_DEFAULT_SUBBUFS - 1;
unsigned int kmt_subbuf_size = KMT_DEFAULT_SUBBUF_SIZE;
unsigned int kmt_mode __read_mostly = KMT_MODE_BOOT;

/* ---- the clock -------------------------------------------------------- */

/*
 * Take this CPU's copy of the clock, on its CPU, when it opens a
 * sub-buffer and the copy it has is stale.  A writer that interrupts the
 * update sees no valid copy and calls local_clock(), and does not update
 * it itself (it would mix its copy's fields with this one's); one that
 * the update interrupted between its reads of the copy has its
 * reservation fail (the update came with one), and reads the clock
 * again.
 */
static void kmt_clock_update(struct kmt_cpu *cb)
{
	struct arch_kmt_clock c;
	u64 gen;

	if (arch_kmt_clock_valid(&cb->clock) || READ_ONCE(cb->clock_busy))
		return;
	WRITE_ONCE(cb->clock_busy, true);
	WRITE_ONCE(cb->clock.gen, U64_MAX);
	barrier();
	if (arch_kmt_clock_get(&c)) {
		gen = c.gen;
		c.gen = U64_MAX;
		cb->clock = c;
		barrier();
		WRITE_ONCE(cb->clock.gen, gen);
	}
	barrier();
	WRITE_ONCE(cb->clock_busy, false);
}

/* ---- reserve and commit ----------------------------------------------- */

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
noinline u8 *kmt_open(struct kmt_cpu *cb, unsigned int old_seq,
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

/*
 * Flight mode, every sub-buffer in use: give the oldest, @consumed, to
 * the writers and count its events as overwritten.  Not while a reader
 * has the data file open (->consumed is the reader's then), nor while a
 * writer this one interrupted is doing it, nor before every record of
 * the oldest sub-buffer is committed: the event is dropped then.
 * Return: KMT_REUSE_AGAIN to try again, KMT_REUSE_NO to drop (and count
 * lost), KMT_REUSE_FROZEN when a trigger froze the buffer meanwhile (the
 * event is dropped and counted already).
 */
noinline int kmt_reuse(struct kmt_cpu *cb, unsigned int consumed)
{
	struct kmt_slot *slot;
	unsigned int size;
	int ret = KMT_REUSE_NO;

	/*
	 * A CPU whose buffer could not be allocated looks full for good
	 * (kmt_reset_cpu()): nothing to reuse, its events are counted lost.
	 * Its ->slot is set before anything records on it: before it runs,
	 * or before the recorder first starts.
	 */
	if (unlikely(!cb->slot))
		return KMT_REUSE_NO;
	/* Pairs with clear_bit_unlock() in kmt_data_release(). */
	if (READ_ONCE(kmt_mode) != KMT_MODE_FLIGHT ||
	    test_bit_acquire(0, &cb->open))
		return KMT_REUSE_NO;
	slot = &cb->slot[consumed & kmt_subbuf_mask];
	if (local_cmpxchg(&cb->reusing, 0, 1))
		return KMT_REUSE_NO;
	/* A trigger that interrupted this writer froze the buffer. */
	if (READ_ONCE(cb->frozen)) {
		local_inc(&cb->frozen_dropped);
		ret = KMT_REUSE_FROZEN;
		goto out;
	}
	if (READ_ONCE(cb->consumed) != consumed) {
		ret = KMT_REUSE_AGAIN;	/* an interrupt did it */
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
	ret = KMT_REUSE_AGAIN;
out:
	local_set(&cb->reusing, 0);
	return ret;
}

/* Every sub-buffer is full: hand the current one to the reader, drop. */
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

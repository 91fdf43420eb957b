// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: persist - a pool that outlives the boot that wrote it.
 *
 * With reserve_mem=SIZE:ALIGN:NAME and kmemtrace.persist=NAME the pool's
 * blocks are the named region's, which the next boot of the same kernel
 * on the same machine finds at the same address: after a panic, a
 * watchdog's reset or a warm reboot, the sub-buffers the previous boot
 * did not read are still there.  The region starts with a header (what
 * wrote it: the layout, the kernel's build id, the command line), and
 * every block with the &struct kmt_subbuf_header of the sub-buffer it
 * holds.  A block given back to the pool (read, or reused in flight mode)
 * has its magic cleared first, so that only what nobody read carries it.
 * A sub-buffer has in its header's size the bytes of its records that
 * are whole (kmt_persist_commit()): a prefix, all of them once every
 * writer that reserved in it committed.
 *
 * At boot, a region whose header this kernel wrote (the same build id
 * and layout) and that holds sub-buffers is kept for a reader: tracefs
 * kmemtrace/previous/ gives them, each CPU's in sequence order, and
 * "release" formats the region for the recorder, whose pool meanwhile
 * comes from the page allocator.  Otherwise the region is formatted and
 * is the pool from the start.  A region in use is never given back to
 * the page allocator: it is reserved memory, there for the next crash.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/buildid.h>
#include <linux/init.h>
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include <asm/sections.h>

#include "internal.h"

/* "KMPR" on little endian */
#define KMT_PERSIST_MAGIC	0x52504d4bU
#define KMT_PERSIST_VERSION	1
#define KMT_PERSIST_CMDLINE	2048

/**
 * struct kmt_persist_header - the first page of the region
 * @magic:         KMT_PERSIST_MAGIC
 * @version:       KMT_PERSIST_VERSION
 * @header_size:   sizeof(struct kmt_persist_header)
 * @subbuf_size:   bytes per block, kmemtrace's sub-buffer size
 * @region_size:   bytes of the region
 * @first:         offset of the first block
 * @nr:            blocks
 * @nr_cpu_ids:    of the boot that wrote it
 * @build_id_size: bytes of @build_id in use
 * @boots:         boots that recorded into the region since it was made
 * @mode:          the recorder's mode when it last wrote, KMT_MODE_*
 * @stext:         the address of _stext in that boot
 * @build_id:      of the kernel that wrote it
 * @cmdline:       its command line, cut to fit
 */
struct kmt_persist_header {
	u32	magic;
	u32	version;
	u32	header_size;
	u32	subbuf_size;
	u64	region_size;
	u64	first;
	u32	nr;
	u32	nr_cpu_ids;
	u32	build_id_size;
	u32	boots;
	u32	mode;
	u64	stext;
	u8	build_id[BUILD_ID_SIZE_MAX];
	char	cmdline[KMT_PERSIST_CMDLINE];
};

/* What the region is now. */
enum kmt_region_state {
	KMT_REGION_NONE,	/* no region, or one that cannot serve */
	KMT_REGION_KEPT,	/* holds the previous boot's sub-buffers */
	KMT_REGION_FREE,	/* formatted, not the pool */
	KMT_REGION_POOL,	/* the pool's blocks */
	KMT_REGION_FOREIGN,	/* another kernel's or garbage: formatted when taken */
};

static char kmt_persist_name[16];
static struct kmt_persist_header *kmt_region;
static phys_addr_t kmt_region_size;
static unsigned int kmt_region_state;
/* log2 of the blocks' size, for kmt_persist_index() */
static unsigned int kmt_region_shift;
static bool kmt_region_counted;
static u8 kmt_build_id[BUILD_ID_SIZE_MAX] __ro_after_init;
static u32 kmt_build_id_size __ro_after_init;

DEFINE_STATIC_KEY_FALSE(kmt_persist_key);

/**
 * struct kmt_prev - a sub-buffer the previous boot left
 * @block: its block
 * @cpu:   the CPU that wrote it
 * @seq:   its sequence number on that CPU
 * @size:  bytes of it that are whole
 */
struct kmt_prev {
	u32	block;
	u32	cpu;
	u32	seq;
	u32	size;
};

/* The previous boot's sub-buffers, by CPU and sequence: while kept. */
static struct kmt_prev *kmt_prev;
static unsigned int kmt_prev_nr;
/* found with a valid header but not read: out of sequence, or torn empty */
static unsigned int kmt_prev_dropped, kmt_prev_torn;
static u64 kmt_prev_bytes;
/* readers of previous/data, under kmt_mutex */
static unsigned int kmt_prev_readers;

static int __init kmt_parse_persist(char *str)
{
	if (!str || !*str || strlen(str) >= sizeof(kmt_persist_name)) {
		pr_warn("kmemtrace.persist= takes the name of a reserve_mem= region (at most %zu characters)\n",
			sizeof(kmt_persist_name) - 1);
		return 0;
	}
	strscpy(kmt_persist_name, str);
	return 0;
}
early_param("kmemtrace.persist", kmt_parse_persist);

static void *kmt_block(unsigned int i)
{
	return (u8 *)kmt_region + kmt_region->first +
	       (unsigned long)i * kmt_region->subbuf_size;
}

/*
 * Block @mem's index in the region, for kmt_pool_put(); the region's
 * block count for a block that is not the region's, which is not given
 * back (and leaks: a bug).
 */
unsigned int kmt_persist_index(const void *mem)
{
	unsigned long off = (const u8 *)mem - (const u8 *)kmt_region -
			    kmt_region->first;

	if (WARN_ON_ONCE(off >> kmt_region_shift >= kmt_region->nr))
		return kmt_region->nr;
	return off >> kmt_region_shift;
}

/* The blocks a region of @size holds: a page of header, then the blocks. */
static unsigned int kmt_persist_nr(phys_addr_t size)
{
	return min_t(u64, div_u64(size - PAGE_ALIGN(sizeof(*kmt_region)),
				  kmt_subbuf_size), KMT_MAX_SUBBUFS);
}

/* No sub-buffer in any block: every one free for the pool. */
static void kmt_persist_clear(void)
{
	struct kmt_subbuf_header *h;
	unsigned int i;

	for (i = 0; i < kmt_region->nr; i++) {
		h = kmt_block(i);
		WRITE_ONCE(h->magic, 0);
		WRITE_ONCE(h->size, 0);
	}
}

/* A new header, and every block free: what the region held is gone. */
static void kmt_persist_format(void)
{
	struct kmt_persist_header *r = kmt_region;
	phys_addr_t size = kmt_region_size;

	WRITE_ONCE(r->magic, 0);
	barrier();
	memset(r, 0, sizeof(*r));
	r->version = KMT_PERSIST_VERSION;
	r->header_size = sizeof(*r);
	r->subbuf_size = kmt_subbuf_size;
	r->region_size = size;
	r->first = PAGE_ALIGN(sizeof(*r));
	r->nr = kmt_persist_nr(size);
	r->nr_cpu_ids = nr_cpu_ids;
	r->build_id_size = kmt_build_id_size;
	memcpy(r->build_id, kmt_build_id, sizeof(r->build_id));
	kmt_region_shift = ilog2(kmt_subbuf_size);
	kmt_persist_clear();
	/* the header last: a crash meanwhile leaves no valid one */
	barrier();
	WRITE_ONCE(r->magic, KMT_PERSIST_MAGIC);
}

/* Whether this kernel wrote the region's header, for a region of @size. */
static bool __init kmt_persist_ours(phys_addr_t size)
{
	const struct kmt_persist_header *r = kmt_region;

	if (r->magic != KMT_PERSIST_MAGIC) {
		pr_info("the %s region holds no kmemtrace header (new, or written over): nothing of a previous boot to read\n",
			kmt_persist_name);
		return false;
	}
	if (r->version != KMT_PERSIST_VERSION || r->header_size != sizeof(*r) ||
	    r->region_size != size || r->subbuf_size != kmt_subbuf_size ||
	    r->first != PAGE_ALIGN(sizeof(*r)) || r->nr != kmt_persist_nr(size) ||
	    r->nr_cpu_ids != nr_cpu_ids) {
		pr_warn("the %s region's layout is not this boot's (another sub-buffer size or CPU count): what it held is not read, and is lost if the recorder takes the region\n",
			kmt_persist_name);
		return false;
	}
	if (r->build_id_size != kmt_build_id_size ||
	    memcmp(r->build_id, kmt_build_id, kmt_build_id_size)) {
		pr_warn("the %s region was written by another kernel (build id %*phN): what it held is not read, and is lost if the recorder takes the region\n",
			kmt_persist_name,
			(int)min_t(u32, r->build_id_size, BUILD_ID_SIZE_MAX),
			r->build_id);
		return false;
	}
	return true;
}

static int __init kmt_prev_cmp(const void *a, const void *b)
{
	const struct kmt_prev *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/*
 * Each CPU's sub-buffers in the region: those with a valid header and a
 * whole record at least, by CPU and sequence number.  A CPU's must be
 * consecutive (a reader gives back the oldest first, flight mode reuses
 * the oldest): of a CPU whose are not, the run that ends with its newest
 * is kept, the others dropped and counted.  False: no memory to index
 * them, and nothing is read.
 */
static bool __init kmt_prev_scan(void)
{
	const unsigned int hsz = sizeof(struct kmt_subbuf_header);
	struct kmt_subbuf_header *h;
	unsigned int i, n = 0, k = 0, first, end;

	kmt_prev = kcalloc(kmt_region->nr, sizeof(*kmt_prev), GFP_NOWAIT);
	if (!kmt_prev)
		return false;
	for (i = 0; i < kmt_region->nr; i++) {
		h = kmt_block(i);
		if (h->magic != KMT_SUBBUF_MAGIC)
			continue;
		if (h->cpu >= kmt_region->nr_cpu_ids || h->size > kmt_subbuf_size) {
			kmt_prev_dropped++;
			continue;
		}
		/* opened, and not one record whole: nothing to keep */
		if (h->size <= hsz) {
			kmt_prev_torn++;
			continue;
		}
		kmt_prev[n++] = (struct kmt_prev){ i, h->cpu, h->seq, h->size };
	}
	sort(kmt_prev, n, sizeof(*kmt_prev), kmt_prev_cmp, NULL);
	/* per CPU [i, end], the newest run of consecutive sequence numbers */
	for (i = 0; i < n; i = end + 1) {
		end = i;
		while (end + 1 < n && kmt_prev[end + 1].cpu == kmt_prev[i].cpu)
			end++;
		first = end;
		while (first > i &&
		       kmt_prev[first - 1].seq + 1 == kmt_prev[first].seq)
			first--;
		kmt_prev_dropped += first - i;
		for (; first <= end; first++) {
			kmt_prev_bytes += kmt_prev[first].size;
			kmt_prev[k++] = kmt_prev[first];
		}
	}
	kmt_prev_nr = k;
	if (!k) {
		kfree(kmt_prev);
		kmt_prev = NULL;
	} else {
		kmt_early_object(kmt_prev, kmt_region->nr * sizeof(*kmt_prev),
				 GFP_NOWAIT | __GFP_ZERO, NUMA_NO_NODE);
	}
	return true;
}

/*
 * kmemtrace_init(), before the pool: find the region, keep what the
 * previous boot left in it, or format it for the pool.
 */
void __init kmt_persist_init(void)
{
	phys_addr_t start, size;

	if (!kmt_persist_name[0])
		return;
	if (!reserve_mem_find_by_name(kmt_persist_name, &start, &size)) {
		pr_warn("kmemtrace.persist=%s: no reserve_mem= region of that name; the pool will not outlive the boot\n",
			kmt_persist_name);
		return;
	}
	if (size < PAGE_ALIGN(sizeof(*kmt_region)) + KMT_MIN_SUBBUFS * (u64)kmt_subbuf_size) {
		pr_warn("the %s region (%pa bytes) holds fewer than %u sub-buffers of %u bytes: not used\n",
			kmt_persist_name, &size, KMT_MIN_SUBBUFS, kmt_subbuf_size);
		return;
	}
	/* reserve_mem= aligns to a cache line at least: the blocks want pages */
	if (!PAGE_ALIGNED(start)) {
		pr_warn("the %s region at %pa is not page-aligned (give reserve_mem= an ALIGN of a page or more): not used\n",
			kmt_persist_name, &start);
		return;
	}
	/*
	 * The kernel's own, as init_vmlinux_build_id() finds it.  Without
	 * one, nothing tells this kernel's records from another's: the
	 * region serves the pool, and is never read as a previous boot's.
	 */
	if (!build_id_parse_buf(&__start_notes, kmt_build_id,
				&__stop_notes - &__start_notes))
		kmt_build_id_size = BUILD_ID_SIZE_MAX;
	else
		pr_warn("this kernel has no build id: the %s region will not be read after a reboot\n",
			kmt_persist_name);
	kmt_region = phys_to_virt(start);
	kmt_region_size = size;
	kmt_region_state = KMT_REGION_FOREIGN;
	if (!kmt_build_id_size || !kmt_persist_ours(size))
		return;
	kmt_region_shift = ilog2(kmt_subbuf_size);
	/* left as it is, as another kernel's would be */
	if (!kmt_prev_scan())
		return;
	if (kmt_prev_nr) {
		kmt_region_state = KMT_REGION_KEPT;
		pr_info("the %s region holds %u sub-buffers (%llu bytes) of the previous boot, kept for a reader; %u dropped out of sequence, %u open without a whole record\n",
			kmt_persist_name, kmt_prev_nr, kmt_prev_bytes,
			kmt_prev_dropped, kmt_prev_torn);
		return;
	}
	kmt_persist_clear();
	kmt_region_state = KMT_REGION_FREE;
	pr_info("the %s region at %pa: %u sub-buffers of %u bytes for the pool\n",
		kmt_persist_name, &start, kmt_region->nr, kmt_subbuf_size);
}

/*
 * Blocks the pool takes from the region now, 0: it takes none.  A region
 * another kernel wrote is formatted only when the recorder takes it
 * (kmt_persist_take()): a boot that does not record leaves it as it was.
 * kmt_mutex held, or at boot.
 */
unsigned int kmt_persist_blocks(void)
{
	if (kmt_region_state == KMT_REGION_FOREIGN)
		return kmt_persist_nr(kmt_region_size);
	return kmt_region_state == KMT_REGION_FREE ? kmt_region->nr : 0;
}

/*
 * The pool's blocks are the region's (kmt_alloc_pool(), kmt_mutex held or
 * at boot): @mem gets the address of each of kmt_persist_blocks().
 */
void kmt_persist_take(void **mem)
{
	unsigned int i;

	if (kmt_region_state == KMT_REGION_FOREIGN) {
		kmt_persist_format();
		pr_info("the %s region formatted: %u sub-buffers of %u bytes for the pool\n",
			kmt_persist_name, kmt_region->nr, kmt_subbuf_size);
	}

	for (i = 0; i < kmt_region->nr; i++)
		mem[i] = kmt_block(i);
	/* a boot that takes it again after a save is still one boot */
	if (!kmt_region_counted)
		kmt_region->boots++;
	kmt_region_counted = true;
	kmt_region->mode = READ_ONCE(kmt_mode);
	kmt_region->stext = (unsigned long)_stext;
	strscpy(kmt_region->cmdline, saved_command_line);
	kmt_region_state = KMT_REGION_POOL;
	static_branch_enable(&kmt_persist_key);
}

/*
 * The pool goes (everything read, or never used): its blocks stay the
 * region's, for the next pool or the next boot.
 */
void kmt_persist_put(void)
{
	if (kmt_region_state != KMT_REGION_POOL)
		return;
	static_branch_disable(&kmt_persist_key);
	kmt_persist_clear();
	kmt_region_state = KMT_REGION_FREE;
}

/* Whether a region was found: tracefs kmemtrace/previous/ is made. */
bool kmt_persist_present(void)
{
	return kmt_region_state != KMT_REGION_NONE;
}

/* Whether the pool's blocks are the region's. */
bool kmt_persist_pool(void)
{
	return kmt_region_state == KMT_REGION_POOL;
}

/* The recorder switched to @mode (kmt_set_mode()): a reader after a crash knows it. */
void kmt_persist_mode(unsigned int mode)
{
	if (kmt_region_state == KMT_REGION_POOL)
		WRITE_ONCE(kmt_region->mode, mode);
}

/**
 * kmt_persist_commit - commit a record, the header saying what is whole
 * @cb: this CPU's buffer
 * @idx: the record's slot (struct kmt_rsv)
 * @len: its length
 *
 * kmt_commit() for a pool in a region.  When the record is the last one
 * reserved in its sub-buffer and every one before it is committed (the
 * state is at its end, or the sub-buffer is closed at it), the bytes up
 * to its end are whole records: the header's size is raised to them,
 * so that after a crash a reader takes those and cuts what was being
 * written.  Raised before the commit count that lets the block go (a
 * reader, or flight mode reusing it, waits for the count to reach the
 * size), so the header is still this sub-buffer's.  The count is then
 * moved from the value the test saw: an interrupt or NMI that reserved
 * in the sub-buffer meanwhile committed before we resumed, and changed
 * it, so the test is made again.  Preemption off.
 */
void kmt_persist_commit(struct kmt_cpu *cb, unsigned int idx,
			unsigned int len)
{
	struct kmt_slot *slot = &cb->slot[idx];
	struct kmt_subbuf_header *h;
	unsigned int size;
	long old, done;
	u64 state;

	local_inc(&slot->events);
	/* Count and record bytes before the commit; pairs with kmt_slot_ready(). */
	smp_wmb();
	/* not given back before the count below: this sub-buffer's */
	h = READ_ONCE(slot->data);
	old = local_read(&slot->commit);
	for (;;) {
		done = old + len;
		size = READ_ONCE(slot->size);
		state = READ_ONCE(cb->state);
		if (size ? done == size :
		    ((state & KMT_POS_MASK) == (unsigned long)done &&
		     ((state >> KMT_POS_BITS) & cb->slot_mask) == idx)) {
			if (READ_ONCE(h->size) < done)
				WRITE_ONCE(h->size, done);
		}
		/* The header's size before the count; pairs with kmt_slot_ready(). */
		smp_wmb();
		done = local_cmpxchg(&slot->commit, old, old + len);
		if (done == old)
			break;
		old = done;
	}
	done = old + len;
	this_cpu_inc(kmt_cpu_buf.events);
	kmt_commit_wake(slot, done);
}

/*
 * A block leaves a sub-buffer (read, or reused in flight mode): after a
 * crash it must not read as that sub-buffer any more.
 */
void kmt_persist_forget(void *mem)
{
	struct kmt_subbuf_header *h = mem;

	WRITE_ONCE(h->magic, 0);
	WRITE_ONCE(h->size, 0);
}

/* ---- the previous boot's, for tracefs kmemtrace/previous/ ------------- */

int kmt_prev_open(void)
{
	int ret = 0;

	mutex_lock(&kmt_mutex);
	if (kmt_region_state != KMT_REGION_KEPT)
		ret = -ENODATA;
	else
		kmt_prev_readers++;
	mutex_unlock(&kmt_mutex);
	return ret;
}

void kmt_prev_close(void)
{
	mutex_lock(&kmt_mutex);
	kmt_prev_readers--;
	mutex_unlock(&kmt_mutex);
}

/*
 * Copy what previous/data holds at @pos: the kept sub-buffers back to
 * back, by CPU and sequence number, each with its header's size the
 * bytes kept.  An open reader keeps them (kmt_prev_release()).
 */
ssize_t kmt_prev_read(char __user *ubuf, size_t count, loff_t *ppos)
{
	u64 off = 0, pos = *ppos;
	size_t done = 0, n, skip;
	unsigned int i;
	u8 *mem;

	for (i = 0; i < kmt_prev_nr && done < count; i++) {
		if (pos >= off + kmt_prev[i].size) {
			off += kmt_prev[i].size;
			continue;
		}
		mem = kmt_block(kmt_prev[i].block);
		skip = pos - off;
		n = min_t(size_t, kmt_prev[i].size - skip, count - done);
		if (copy_to_user(ubuf + done, mem + skip, n)) {
			if (!done)
				return -EFAULT;
			break;
		}
		done += n;
		pos += n;
		off += kmt_prev[i].size;
	}
	*ppos = pos;
	return done;
}

/* previous/info: what the region holds and whence. */
int kmt_prev_show(struct seq_file *m)
{
	const struct kmt_persist_header *r = kmt_region;
	static const char *const names[] = {
		[KMT_REGION_NONE] = "none", [KMT_REGION_KEPT] = "kept",
		[KMT_REGION_FREE] = "free", [KMT_REGION_POOL] = "pool",
		[KMT_REGION_FOREIGN] = "foreign",
	};
	unsigned int i;

	mutex_lock(&kmt_mutex);
	seq_printf(m, "region: %s\n", names[kmt_region_state]);
	if (kmt_region_state != KMT_REGION_NONE)
		seq_printf(m, "address: %pa\nsize: %pa\n",
			   &(phys_addr_t){ virt_to_phys((void *)r) },
			   &kmt_region_size);
	if (kmt_region_state != KMT_REGION_NONE &&
	    kmt_region_state != KMT_REGION_FOREIGN) {
		seq_printf(m, "subbufs: %u\nsubbuf_size: %u\nboots: %u\n",
			   r->nr, r->subbuf_size, r->boots);
		seq_printf(m, "build_id: %*phN\n", (int)r->build_id_size,
			   r->build_id);
	}
	if (kmt_region_state == KMT_REGION_KEPT) {
		seq_printf(m, "kept: %u\nbytes: %llu\ndropped: %u\ntorn: %u\n",
			   kmt_prev_nr, kmt_prev_bytes, kmt_prev_dropped,
			   kmt_prev_torn);
		seq_printf(m, "mode: %s\nstext: 0x%llx\n",
			   kmt_mode_names[r->mode == KMT_MODE_FLIGHT],
			   r->stext);
		seq_printf(m, "cmdline: %.*s\n", KMT_PERSIST_CMDLINE,
			   r->cmdline);
		for (i = 0; i < kmt_prev_nr; i++)
			if (!i || kmt_prev[i].cpu != kmt_prev[i - 1].cpu)
				seq_printf(m, "cpu%u: from %u\n", kmt_prev[i].cpu,
					   kmt_prev[i].seq);
	}
	mutex_unlock(&kmt_mutex);
	return 0;
}

/**
 * kmt_prev_release - the previous boot's sub-buffers are saved
 *
 * Formats the region, which the next pool takes (enabling again, a
 * switch to flight mode after the boot's save).
 * Return: 0; -ENODATA when none are kept; -EBUSY while previous/data is
 * open.
 */
int kmt_prev_release(void)
{
	int ret = 0;

	mutex_lock(&kmt_mutex);
	if (kmt_region_state != KMT_REGION_KEPT) {
		ret = -ENODATA;
	} else if (kmt_prev_readers) {
		ret = -EBUSY;
	} else {
		kmt_persist_clear();
		kfree(kmt_prev);
		kmt_prev = NULL;
		kmt_prev_nr = 0;
		kmt_prev_bytes = 0;
		kmt_region_state = KMT_REGION_FREE;
		pr_info("the previous boot's sub-buffers released: the region is free for the pool\n");
	}
	mutex_unlock(&kmt_mutex);
	return ret;
}

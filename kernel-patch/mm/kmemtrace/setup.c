// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: setup - the pool, the slots of each CPU as it comes up, the event
 * groups and their probes, starting and stopping.
 *
 * Records the kmem tracepoints (slab and page allocator) from right after
 * kmem_cache_init() into sub-buffers that the kernel owns until user
 * space reads them.  The sub-buffers are one pool for the machine
 * (kmemtrace.size, kmemtrace.flight_size in flight mode), allocated
 * before the probes attach, and given back once read; each CPU takes
 * them as it fills them.  A CPU needs only its slots for the sub-buffers
 * it holds, allocated for the boot CPU with the pool and for every
 * other CPU by a CPU hotplug callback that runs before that CPU can
 * allocate.  One that goes offline keeps what it holds until it is read.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/cpuhotplug.h>
#include <linux/fault-inject.h>
#include <linux/init.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>

#include "internal.h"
#include "../slab.h"

static bool kmt_boot_enable __initdata;
bool kmt_param_invalid __initdata;

/*
 * The pool is allocated, and slots follow the CPUs: the hotplug state is
 * set up.  Writers outside a tracepoint's probe test it with preemption
 * off (kmt_buffers_ready()), so that kmt_release_buffers() can wait for
 * them.
 */
bool kmt_allocated;
/* The pool was given back (kmt_release_buffers()) and not allocated since. */
bool kmt_released;
static int kmt_cpuhp_state;
bool kmt_recording;
/* Bits of enum kmt_group: what is recorded, under kmt_mutex. */
unsigned long kmt_groups = BIT(KMT_GROUP_KMEM) | BIT(KMT_GROUP_BOOT);
u64 kmt_boot_ts;
/* Serialises starting, stopping, and changes of groups and mode. */
DEFINE_MUTEX(kmt_mutex);

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

/*
 * The pool's bytes in boot mode (kmemtrace.size) and in flight mode
 * (kmemtrace.flight_size), or its sub-buffers in both
 * (kmemtrace.subbufs).
 */
static unsigned long long kmt_size __ro_after_init = KMT_DEFAULT_SIZE;
static unsigned long long kmt_flight_size __ro_after_init = KMT_DEFAULT_FLIGHT_SIZE;
static unsigned int kmt_param_subbufs;
static bool kmt_subbuf_size_set;

static int __init kmt_parse_bytes(const char *name, char *str,
				  unsigned long long *size)
{
	unsigned long long n;
	char *end;

	if (str) {
		n = memparse(str, &end);
		if (!*end && n >= (unsigned long long)KMT_MIN_SUBBUFS * PAGE_SIZE &&
		    n <= (unsigned long long)KMT_MAX_SUBBUFS * KMT_MAX_SUBBUF_SIZE) {
			*size = n;
			return 0;
		}
	}
	pr_warn("%s=%s is invalid: use %lu to %llu bytes (K, M, G suffixes); recorder stays off\n",
		name, str ? str : "", KMT_MIN_SUBBUFS * PAGE_SIZE,
		(unsigned long long)KMT_MAX_SUBBUFS * KMT_MAX_SUBBUF_SIZE);
	kmt_param_invalid = true;
	return 0;
}

static int __init kmt_parse_size(char *str)
{
	return kmt_parse_bytes("kmemtrace.size", str, &kmt_size);
}
early_param("kmemtrace.size", kmt_parse_size);

static int __init kmt_parse_flight_size(char *str)
{
	return kmt_parse_bytes("kmemtrace.flight_size", str, &kmt_flight_size);
}
early_param("kmemtrace.flight_size", kmt_parse_flight_size);

/* kmemtrace.subbufs=N sizes the pool in both modes: N sub-buffers, over the sizes. */
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
	kmt_param_subbufs = n;
	return 0;
}
early_param("kmemtrace.subbufs", kmt_parse_subbufs);

/*
 * Sub-buffers in a pool allocated in @mode: kmemtrace.subbufs, else that
 * mode's size's worth (kmemtrace.size, kmemtrace.flight_size).
 */
unsigned int kmt_pool_want_mode(unsigned int mode)
{
	unsigned long long size = mode == KMT_MODE_FLIGHT ? kmt_flight_size :
			   kmt_size;
	unsigned long long n = kmt_param_subbufs ?:
			       div_u64(size, kmt_subbuf_size);

	return clamp_t(unsigned long long, n, KMT_MIN_SUBBUFS, KMT_MAX_SUBBUFS);
}

/* Sub-buffers in a pool allocated now, in the current mode. */
unsigned int kmt_pool_want(void)
{
	return kmt_pool_want_mode(READ_ONCE(kmt_mode));
}

static int __init kmt_parse_subbuf_size(char *str)
{
	unsigned long long n;
	char *end;

	if (str) {
		n = memparse(str, &end);
		if (!*end && is_power_of_2(n) && n >= PAGE_SIZE &&
		    n <= KMT_MAX_SUBBUF_SIZE) {
			kmt_subbuf_size = n;
			kmt_subbuf_size_set = true;
			return 0;
		}
	}
	pr_warn("kmemtrace.subbuf_size=%s is invalid: use a power of two from %lu to %u; recorder stays off\n",
		str ? str : "", PAGE_SIZE, KMT_MAX_SUBBUF_SIZE);
	kmt_param_invalid = true;
	return 0;
}
early_param("kmemtrace.subbuf_size", kmt_parse_subbuf_size);

/* A sub-buffer closed with a reader waiting: the reader asks again (tracefs.c). */
static void kmt_wakeup(struct irq_work *work)
{
	struct kmt_cpu *cb = container_of(work, struct kmt_cpu, wakeup);

	WRITE_ONCE(cb->waiting, false);
	wake_up_all(&cb->wait);
}

/*
 * Make @cb empty: nothing open, nothing held, the first writer opens
 * sequence number 0.  Its counters go on (a CPU that comes up again
 * after its slots failed keeps its count of lost events): they start
 * from 0 with the pool, kmt_setup_buffers().  Without slots its state
 * stays closed and writers count every event as lost.
 */
static void kmt_reset_cpu(struct kmt_cpu *cb, int cpu)
{
	cb->cpu = cpu;
	cb->node = cpu_to_node(cpu);
	cb->consumed = 0;
	atomic_set(&cb->held, 0);
	WRITE_ONCE(cb->state, kmt_state(0, KMT_SEQ_MASK, KMT_POS_CLOSED));
	cb->pid_key = KMT_NO_PID;
	cb->last_ts = local_clock();
}

/*
 * Bytes of the pool @cb holds now: sub-buffers written and not read, the
 * one open, a block waiting in the next slot.
 */
unsigned long kmt_held_bytes(struct kmt_cpu *cb)
{
	return (unsigned long)atomic_read(&cb->held) * kmt_subbuf_size;
}

#ifdef CONFIG_FAIL_KMEMTRACE_SLOTS
static DECLARE_FAULT_ATTR(kmt_fail_slots);

static int __init kmt_setup_fail_slots(char *str)
{
	return setup_fault_attr(&kmt_fail_slots, str) ? 0 : -EINVAL;
}
early_param("fail_kmemtrace_slots", kmt_setup_fail_slots);

static bool kmt_should_fail_slots(void)
{
	return should_fail(&kmt_fail_slots, 1);
}
#else
static inline bool kmt_should_fail_slots(void)
{
	return false;
}
#endif

/*
 * @cpu's slots, on its node: one per sequence number a CPU may hold at
 * once, every block of the pool and one for the next, but no more than
 * KMT_CPU_MAX_SUBBUFS, which a CPU then holds at most: 8 KiB at most,
 * whatever the pool.
 */
static int kmt_alloc_cpu(struct kmt_cpu *cb, int cpu, gfp_t gfp)
{
	unsigned int n = roundup_pow_of_two(min(kmt_pool.nr + 1, KMT_CPU_MAX_SUBBUFS));
	struct kmt_slot *slot;

	/* a CPU's sequence numbers in use, signed, tell every slot apart */
	BUILD_BUG_ON(!is_power_of_2(KMT_CPU_MAX_SUBBUFS));
	BUILD_BUG_ON(KMT_CPU_MAX_SUBBUFS > (KMT_SEQ_MASK + 1) / 2);

	kmt_reset_cpu(cb, cpu);
	if (kmt_should_fail_slots())
		return -ENOMEM;
	slot = kcalloc_node(n, sizeof(*slot), gfp, cpu_to_node(cpu));
	if (!slot)
		return -ENOMEM;
	kmt_early_object(slot, n * sizeof(*slot), gfp | __GFP_ZERO,
			 cpu_to_node(cpu));
	cb->slot_mask = n - 1;
	/* The state before the slots; pairs with kmt_cpu_slots(). */
	smp_store_release(&cb->slot, slot);
	return 0;
}

static void kmt_free_pool(void)
{
	unsigned int i;

	/* a region's blocks stay reserved, for the next pool or boot */
	if (kmt_persist_pool())
		kmt_persist_put();
	else
		for (i = 0; kmt_pool.mem && i < kmt_pool.nr; i++)
			if (kmt_pool.mem[i])
				free_pages((unsigned long)kmt_pool.mem[i],
					   kmt_pool.order);
	kfree(kmt_pool.mem);
	bitmap_free(kmt_pool.free);
	kfree(kmt_pool.first);
	memset(&kmt_pool, 0, sizeof(kmt_pool));
}

/*
 * Block @i of the pool, on node @nid or the nearest with memory, or where
 * the page allocator prefers when @nid is not online (a node of possible
 * CPUs may not be yet).
 */
static int kmt_alloc_block(unsigned int i, int nid, gfp_t gfp)
{
	struct page *page;

	if (nid != NUMA_NO_NODE && !node_online(nid))
		nid = NUMA_NO_NODE;
	page = alloc_pages_node(nid, gfp, kmt_pool.order);

	if (!page)
		return -ENOMEM;
	set_page_private(page, i);
	kmt_pool.mem[i] = page_address(page);
	return 0;
}

/*
 * kmemtrace.subbuf_size as given, else, one size for both modes' pools:
 * for a big pool, bigger sub-buffers (up to KMT_MAX_SUBBUF_SIZE), so
 * that the bigger pool has no more than KMT_MAX_SUBBUFS; with many CPUs,
 * smaller ones, so that the smaller pool has two for each possible CPU:
 * halved, down to a page, while it would have fewer.
 */
static void __init kmt_fit_subbufs(void)
{
	const struct {
		const char *name;
		unsigned long long *size;
	} sizes[] = {
		{ "kmemtrace.size", &kmt_size },
		{ "kmemtrace.flight_size", &kmt_flight_size },
	};
	u64 big = max(kmt_size, kmt_flight_size);
	u64 small = min(kmt_size, kmt_flight_size);
	unsigned int i;
	u64 n;

	if (kmt_param_subbufs) {
		pr_notice("kmemtrace.subbufs=%u sizes the machine's pool: %u sub-buffers of %u bytes shared by every CPU\n",
			  kmt_param_subbufs, kmt_pool_want(), kmt_subbuf_size);
		return;
	}
	/* the bigger pool: bigger sub-buffers, not more than KMT_MAX_SUBBUFS */
	while (!kmt_subbuf_size_set && kmt_subbuf_size < KMT_MAX_SUBBUF_SIZE &&
	       div_u64(big, kmt_subbuf_size) > KMT_MAX_SUBBUFS)
		kmt_subbuf_size *= 2;
	/* the smaller: two for each possible CPU, the bigger within limits */
	while (!kmt_subbuf_size_set && kmt_subbuf_size > PAGE_SIZE &&
	       div_u64(small, kmt_subbuf_size) < 2ULL * num_possible_cpus() &&
	       div_u64(big, kmt_subbuf_size / 2) <= KMT_MAX_SUBBUFS)
		kmt_subbuf_size /= 2;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		n = div_u64(*sizes[i].size, kmt_subbuf_size);
		if (n < KMT_MIN_SUBBUFS || n > KMT_MAX_SUBBUFS)
			pr_notice("%s=%llu makes %llu sub-buffers of %u bytes: the pool has %llu\n",
				  sizes[i].name, *sizes[i].size, n, kmt_subbuf_size,
				  clamp_val(n, KMT_MIN_SUBBUFS, KMT_MAX_SUBBUFS));
		else if (n < 2ULL * num_possible_cpus())
			pr_notice("%s=%llu makes %llu sub-buffers of %u bytes for %u possible CPUs, fewer than two each: raise it for this machine\n",
				  sizes[i].name, *sizes[i].size, n, kmt_subbuf_size,
				  num_possible_cpus());
	}
}

/* The pool's arrays, for the trace when they precede the probes. */
static void kmt_keep_pool_arrays(gfp_t gfp)
{
	kmt_early_object(kmt_pool.mem, kmt_pool.nr * sizeof(*kmt_pool.mem),
			 gfp | __GFP_ZERO, NUMA_NO_NODE);
	kmt_early_object(kmt_pool.free,
			 BITS_TO_LONGS(kmt_pool.nr) * sizeof(long),
			 gfp | __GFP_ZERO, NUMA_NO_NODE);
	kmt_early_object(kmt_pool.first, nr_node_ids * sizeof(*kmt_pool.first),
			 gfp | __GFP_ZERO, NUMA_NO_NODE);
}

/*
 * The pool: kmt_pool_want() blocks, each node's share in proportion to
 * its possible CPUs (the present ones are not all known this early on
 * every architecture), together, so that a CPU looks for a free one on
 * its node first.  All or nothing.
 */
static int kmt_alloc_pool(gfp_t gfp)
{
	unsigned int nr, i = 0, share, cpus = 0, *first;
	int nid, cpu, ret = -ENOMEM;

	nr = kmt_persist_blocks() ?: kmt_pool_want();
	kmt_pool.mem = kcalloc(nr, sizeof(*kmt_pool.mem), gfp);
	kmt_pool.free = bitmap_zalloc(nr, gfp);
	first = kcalloc(nr_node_ids, sizeof(*first), gfp);
	kmt_pool.first = first;
	if (!kmt_pool.mem || !kmt_pool.free || !first)
		goto out;
	kmt_pool.nr = nr;
	kmt_pool.order = get_order(kmt_subbuf_size);
	/* a reserve_mem= region: its blocks, wherever it is */
	if (kmt_persist_blocks()) {
		kmt_persist_take(kmt_pool.mem);
		bitmap_fill(kmt_pool.free, nr);
		kmt_keep_pool_arrays(gfp);
		return 0;
	}
	/* first[] counts each node's CPUs, then says where its blocks start */
	for_each_possible_cpu(cpu) {
		nid = cpu_to_node(cpu);
		if (nid >= 0 && nid < nr_node_ids) {
			first[nid]++;
			cpus++;
		}
	}
	kmt_pg_pause = true;
	for_each_node(nid) {
		share = cpus ? nr * first[nid] / cpus : 0;
		first[nid] = i;
		for (share = min(share, nr - i); share; share--, i++)
			if (kmt_alloc_block(i, nid, gfp))
				goto out_pause;
	}
	/* what the shares' rounding left, on this CPU's node */
	for (nid = numa_node_id(); i < nr; i++)
		if (kmt_alloc_block(i, nid, gfp))
			goto out_pause;
	bitmap_fill(kmt_pool.free, nr);
	kmt_keep_pool_arrays(gfp);
	ret = 0;
out_pause:
	kmt_pg_pause = false;
out:
	if (ret)
		kmt_free_pool();
	return ret;
}

static const u8 kmt_enc_buffer[] = { KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U8X };

/*
 * Say which pages are the pool's: a record per block, so that readers
 * tell the recorder's pages from the others.
 */
static void kmt_emit_pool(void)
{
	unsigned int i;

	for (i = 0; i < kmt_pool.nr; i++) {
		u64 v[3] = { KMT_BUFFER_POOL,
			     page_to_pfn(virt_to_page(kmt_pool.mem[i])) + 1,
			     kmt_pool.order };

		kmt_record_fields(KMT_EV_BUFFER, kmt_enc_buffer, v,
				  ARRAY_SIZE(v), NULL, 0);
	}
}

/*
 * CPU hotplug, prepare stage: runs on the CPU bringing @cpu up, before
 * @cpu runs anything, so its first event finds its slots.  At boot the
 * boot CPU's runs from kmemtrace_init() with interrupts still off.  A
 * CPU keeps its slots when it goes offline: they are allocated once.
 * Never keeps a CPU from coming up: without memory for its slots, its
 * events are counted as lost.
 */
static int kmt_cpu_prepare(unsigned int cpu)
{
	struct kmt_cpu *cb = per_cpu_ptr(&kmt_cpu_buf, cpu);
	gfp_t gfp = early_boot_irqs_disabled ? GFP_NOWAIT :
		    GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY;
	int ret;

	if (cb->slot)
		return 0;
	ret = kmt_alloc_cpu(cb, cpu, gfp);
	if (ret)
		pr_warn("cpu%u: cannot allocate its slots for sub-buffers: its events are counted as lost\n",
			cpu);
	return 0;
}

/*
 * Give back the blocks of @cb, a dead CPU, that hold nothing to read: one
 * waiting in the slot of its next sequence number, and any parked in the
 * slots of sequence numbers that went (kmt_take_mem()).  A reader reads
 * only the slots from ->consumed to the last sequence number.
 */
static void kmt_put_spare(struct kmt_cpu *cb)
{
	unsigned int seq = (READ_ONCE(cb->state) >> KMT_POS_BITS) & KMT_SEQ_MASK;
	unsigned int consumed, i;
	void *mem;
	int used;

	/* Pairs with the release in kmt_copy_ready(): its slot is clear. */
	consumed = smp_load_acquire(&cb->consumed);
	used = sign_extend32((seq - consumed) & KMT_SEQ_MASK, KMT_SEQ_BITS - 1);
	for (i = 0; i <= cb->slot_mask; i++) {
		if (used >= 0 && ((i - consumed) & cb->slot_mask) <= used)
			continue;
		mem = xchg(&cb->slot[i].data, NULL);
		if (mem) {
			atomic_dec(&cb->held);
			kmt_pool_put(mem);
		}
	}
}

/*
 * CPU hotplug, after @cpu died: close its current sub-buffer so that its
 * last events can be read, and give back what it holds for none.
 * Nothing runs on @cpu any more.
 */
static int kmt_cpu_dead(unsigned int cpu)
{
	struct kmt_cpu *cb = per_cpu_ptr(&kmt_cpu_buf, cpu);

	if (cb->slot) {
		kmt_flush_cpu(cb);
		kmt_put_spare(cb);
	}
	/* Its clock may not go on from here: local_clock() until a new copy. */
	kmt_clock_drop(cpu);
	return 0;
}

/*
 * Free every CPU's slots; the bytes they took.  No writer and no reader
 * may use them: kmt_allocated is clear and a grace period passed since,
 * or it was never set.
 */
static unsigned long kmt_free_slots(void)
{
	unsigned long bytes = 0;
	struct kmt_slot *slot;
	struct kmt_cpu *cb;
	int cpu;

	for_each_possible_cpu(cpu) {
		cb = per_cpu_ptr(&kmt_cpu_buf, cpu);
		slot = cb->slot;
		if (!slot)
			continue;
		WRITE_ONCE(cb->slot, NULL);
		atomic_set(&cb->held, 0);
		bytes += (cb->slot_mask + 1) * sizeof(*slot);
		kfree(slot);
	}
	return bytes;
}

/*
 * Allocate the pool, give every online CPU its slots now and every
 * other CPU its own when it comes up.  Fails when the pool cannot be
 * allocated or no online CPU got its slots.
 */
static int kmt_setup_buffers(void)
{
	gfp_t gfp = early_boot_irqs_disabled ? GFP_NOWAIT :
		    GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY;
	struct kmt_cpu *cb;
	int cpu, ret, nr = 0;

	ret = kmt_alloc_pool(gfp);
	if (ret)
		return ret;
	/*
	 * Every CPU's counters from 0, an offline one's too: no writer
	 * runs (kmt_allocated is clear, the probes are detached).
	 */
	for_each_possible_cpu(cpu) {
		cb = per_cpu_ptr(&kmt_cpu_buf, cpu);
		cb->consumed = 0;
		WRITE_ONCE(cb->events, 0);
		local_set(&cb->lost, 0);
		local_set(&cb->overwritten, 0);
		local_set(&cb->frozen_dropped, 0);
		local_set(&cb->via_kept, 0);
		local_set(&cb->via_unwound, 0);
	}
	ret = cpuhp_setup_state(CPUHP_BP_PREPARE_DYN, "mm/kmemtrace:prepare",
				kmt_cpu_prepare, kmt_cpu_dead);
	if (ret < 0) {
		kmt_free_slots();
		kmt_free_pool();
		return ret;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu)
		nr += !!per_cpu_ptr(&kmt_cpu_buf, cpu)->slot;
	cpus_read_unlock();
	if (!nr) {
		cpuhp_remove_state_nocalls(ret);
		/* a CPU that came and went meanwhile may have some */
		kmt_free_slots();
		kmt_free_pool();
		return -ENOMEM;
	}
	kmt_cpuhp_state = ret;
	/* The slots and the pool first; pairs with kmt_buffers_ready(). */
	smp_store_release(&kmt_allocated, true);
	WRITE_ONCE(kmt_released, false);
	return 0;
}

/*
 * Whether @cb holds events nobody has read: a sub-buffer open, or closed
 * and not yet read.
 */
static bool kmt_unread(struct kmt_cpu *cb)
{
	u64 state = READ_ONCE(cb->state);
	unsigned int seq = (state >> KMT_POS_BITS) & KMT_SEQ_MASK;
	int used = sign_extend32((seq - READ_ONCE(cb->consumed)) & KMT_SEQ_MASK,
				 KMT_SEQ_BITS - 1);

	return (state & KMT_POS_MASK) != KMT_POS_CLOSED || used >= 0;
}

/**
 * kmt_release_buffers_locked - give the pool and every CPU's slots back
 *
 * Once recording is off and everything recorded has been read, the
 * memory goes back to the page allocator (what "kmemflight save" asks
 * for after a save, unless told to keep recording; and a switch of mode
 * that changes the pool's size); enabling again allocates it again, of
 * the size of the mode then.  kmt_allocated is cleared first and a
 * grace period waits for every writer that may have found it set (the
 * probes are detached already; the hooks and the general path test it
 * with preemption off, and count what they drop as lost); only then is
 * everything checked as read, so that nothing written after the check
 * is freed; then the hotplug state goes, and the memory.  A freeze of
 * the buffers given back is forgotten.  kmt_mutex held.
 *
 * Return: 0; -ENODATA when given back already, -ENODEV when never
 * allocated; -EBUSY while recording or with a data file open;
 * -ENOTEMPTY while a CPU holds events not read (flush and read them).
 */
int kmt_release_buffers_locked(void)
{
	unsigned long bytes;
	struct kmt_cpu *cb;
	int cpu, ret = 0;

	lockdep_assert_held(&kmt_mutex);
	if (!kmt_allocated)
		return kmt_released ? -ENODATA : -ENODEV;
	if (READ_ONCE(kmt_recording))
		return -EBUSY;
	/*
	 * First no writer: one that found kmt_allocated set (a hook
	 * preempted before it tested it) is done after the grace period,
	 * and what it wrote is seen below.
	 */
	WRITE_ONCE(kmt_allocated, false);
	synchronize_rcu();
	/* kmt_data_open() takes kmt_mutex too: no reader comes meanwhile. */
	for_each_possible_cpu(cpu) {
		cb = per_cpu_ptr(&kmt_cpu_buf, cpu);
		if (!cb->slot)
			continue;
		if (test_bit(0, &cb->open))
			ret = -EBUSY;
		else if (kmt_unread(cb))
			ret = -ENOTEMPTY;
		if (ret) {
			/* the slots and the pool are as they were */
			smp_store_release(&kmt_allocated, true);
			return ret;
		}
	}
	/* A CPU that came up meanwhile got slots: freed with the others. */
	cpuhp_remove_state_nocalls(kmt_cpuhp_state);
	bytes = kmt_free_slots();
	if (!kmt_persist_pool())
		bytes += (unsigned long)kmt_pool.nr << (kmt_pool.order + PAGE_SHIFT);
	kmt_free_pool();
	/* A freeze of the buffers given back does not freeze the next ones. */
	kmt_forget_freeze();
	WRITE_ONCE(kmt_released, true);
	pr_info("gave back the pool and the slots: %lu bytes\n", bytes);
	return 0;
}

/* kmt_release_buffers_locked(), for tracefs kmemtrace/free_buffer. */
int kmt_release_buffers(void)
{
	int ret;

	mutex_lock(&kmt_mutex);
	ret = kmt_release_buffers_locked();
	mutex_unlock(&kmt_mutex);
	return ret;
}

const struct kmt_group_ops kmt_group_ops[KMT_NR_GROUPS] = {
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

/*
 * Before the kmem group in @mask detaches: let the frees that RCU
 * callbacks and kfree_rcu() have queued run while it still records them
 * (a task's structures, a maple tree's nodes), rather than leave their
 * objects allocated in the trace.  May sleep for a grace period or more.
 */
void kmt_flush_rcu_frees(unsigned long mask)
{
	if (!(mask & BIT(KMT_GROUP_KMEM)))
		return;
	rcu_barrier();
	kvfree_rcu_barrier();
}

/* Detach the groups in @mask (all probes gone on return). */
void kmt_unregister_groups(unsigned long mask)
{
	int g;

	for (g = KMT_NR_GROUPS - 1; g >= 0; g--)
		if (mask & BIT(g))
			kmt_group_ops[g].unreg();
	tracepoint_synchronize_unregister();
	/* No kmem probe reads the wrappers' entries any more. */
	if (mask & BIT(KMT_GROUP_KMEM))
		kmt_wrappers_stop();
}

/*
 * Attach the groups in @mask, all or none: a group that fails leaves
 * nothing registered, and the groups before it are detached again.
 */
int kmt_register_groups(unsigned long mask)
{
	int g, ret = 0;

	if (!mask)
		return 0;
	/*
	 * What registering allocates is the recorder's, up to
	 * KMT_MARK_ATTACHED, which ends it whether or not all attached;
	 * undoing a failure is not.
	 */
	kmt_emit_mark(KMT_MARK_ATTACHING);
	for (g = 0; g < KMT_NR_GROUPS; g++) {
		if (!(mask & BIT(g)))
			continue;
		ret = kmt_group_ops[g].reg();
		if (ret)
			break;
	}
	kmt_emit_mark(KMT_MARK_ATTACHED);
	if (ret)
		kmt_unregister_groups(mask & (BIT(g) - 1));
	return ret;
}

void kmt_emit_groups(unsigned long mask)
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
int kmt_parse_groups(const char *str, unsigned long *mask)
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

/* Start recording; the pool exists.  Caller serialises. */
static int kmt_start(void)
{
	unsigned long groups = READ_ONCE(kmt_groups);
	int ret;

	kmt_clock_enable();
	WRITE_ONCE(kmt_recording, true);
	kmt_emit_mark(KMT_MARK_RECORDING_ON);
	if (kmt_mode == KMT_MODE_FLIGHT)
		kmt_emit_mark(KMT_MARK_FLIGHT);
	kmt_emit_groups(groups);
	kmt_define_all_caches();
	kmt_find_wrappers();
	kmt_emit_wrappers();
	kmt_emit_pool();
	ret = kmt_register_groups(groups);
	if (ret) {
		kmt_emit_mark(KMT_MARK_RECORDING_OFF);
		WRITE_ONCE(kmt_recording, false);
	}
	return ret;
}

/**
 * kmemtrace_init - allocate the pool and start recording at boot
 *
 * Called from mm_core_init() right after kmem_cache_init(), when the slab
 * and page allocators work but before most of the kernel has allocated
 * anything.  The pool and the boot CPU's slots are allocated before the
 * probes attach, the other CPUs' slots as they come up.
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
	/* the possible CPUs are known: the sub-buffers' size is final */
	kmt_fit_subbufs();
	/* whether or not this boot records, what the last one left is kept */
	kmt_persist_init();
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
	/* the flight share, until the CPUs are up: kmt_share_settle() */
	kmt_share_present = true;
	ret = kmt_setup_buffers();
	if (ret) {
		pr_warn("cannot set up a pool of %u x %u bytes (%d); recorder off\n",
			kmt_pool_want(), kmt_subbuf_size, ret);
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
	pr_info("recording from kmem_cache_init in %s mode: %u x %u bytes for all CPUs\n",
		kmt_mode_names[kmt_mode], kmt_pool.nr, kmt_subbuf_size);
}

/* The CPUs are up: the flight share counts the online ones from now on. */
static int __init kmt_share_settle(void)
{
	WRITE_ONCE(kmt_share_present, false);
	return 0;
}
core_initcall(kmt_share_settle);

/**
 * kmt_enable_set - start or stop recording
 * @val: 1 to record, 0 to stop
 *
 * Starting the first time, or after kmt_release_buffers(), allocates the
 * pool and the slots of the online CPUs, and sets up the hotplug state
 * for the others.  Stopping waits for the frees RCU has queued
 * (kmt_flush_rcu_frees()), with kmt_mutex held.
 *
 * Context: process context; may sleep for a grace period or more.
 *
 * Return: 0, -EINVAL for another @val, or why it could not start.
 */
int kmt_enable_set(unsigned int val)
{
	int ret = 0;

	if (val > 1)
		return -EINVAL;
	mutex_lock(&kmt_mutex);
	if (val == READ_ONCE(kmt_recording))
		goto out_unlock;
	if (!val) {
		kmt_flush_rcu_frees(kmt_groups);
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
	ret = kmt_start();
	kmt_update_trigger_key();
out_unlock:
	mutex_unlock(&kmt_mutex);
	return ret;
}

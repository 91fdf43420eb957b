// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: setup - the buffers for each CPU as it comes up, the event
 * groups and their probes, starting and stopping.
 *
 * Records the kmem tracepoints (slab and page allocator) from right after
 * kmem_cache_init() into per-CPU buffers that the kernel owns until user
 * space reads them.  No process context is needed to record: the boot
 * CPU's buffer is allocated before the probes attach, and every other
 * CPU's by a CPU hotplug callback that runs before that CPU can allocate,
 * for the CPUs brought up at boot as for one onlined later.  A CPU that
 * never comes up costs no memory; one that goes offline keeps its buffer
 * until it is read.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/cpuhotplug.h>
#include <linux/init.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>

#include "internal.h"
#include "../slab.h"

static bool kmt_boot_enable __initdata;
bool kmt_param_invalid __initdata;

/* Buffers follow the CPUs: the hotplug state is set up. */
bool kmt_allocated;
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

/* A sub-buffer closed with a reader waiting: the reader asks again (tracefs.c). */
static void kmt_wakeup(struct irq_work *work)
{
	struct kmt_cpu *cb = container_of(work, struct kmt_cpu, wakeup);

	WRITE_ONCE(cb->waiting, false);
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
	cb->clock.gen = U64_MAX;
	cb->last_ts = local_clock();
}

/* Bytes of @cb's buffer: 0 without one. */
unsigned long kmt_buffer_bytes(struct kmt_cpu *cb)
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
	/* Its clock may not go on from here: local_clock() until it opens one. */
	WRITE_ONCE(cb->clock.gen, U64_MAX);
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
	WRITE_ONCE(kmt_allocated, true);
	return 0;
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

/* Detach the groups in @mask (all probes gone on return). */
void kmt_unregister_groups(unsigned long mask)
{
	int g;

	for (g = KMT_NR_GROUPS - 1; g >= 0; g--)
		if (mask & BIT(g))
			kmt_group_ops[g].unreg();
	tracepoint_synchronize_unregister();
}

/*
 * Attach the groups in @mask, all or none: a group that fails leaves
 * nothing registered, and the groups before it are detached again.
 */
int kmt_register_groups(unsigned long mask)
{
	int g, ret;

	for (g = 0; g < KMT_NR_GROUPS; g++) {
		if (!(mask & BIT(g)))
			continue;
		ret = kmt_group_ops[g].reg();
		if (ret) {
			kmt_unregister_groups(mask & (BIT(g) - 1));
			return ret;
		}
	}
	return 0;
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

/**
 * kmt_enable_set - start or stop recording
 * @val: 1 to record, 0 to stop
 *
 * Starting the first time allocates the buffers of the online CPUs and
 * sets up the hotplug state for the others.
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

// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the tracefs interface, /sys/kernel/tracing/kmemtrace/.
 *
 * tracefs, not debugfs, so that a kernel locked down in integrity mode
 * (Secure Boot) can still be read; every file checks at open, as
 * ftrace's do, so that lockdown for confidentiality closes them all.
 * Root only: the data files hold kernel addresses.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/poll.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "../internal.h"
#include "../slab.h"

KMT_DEFINE_LAYOUTS(kmt_layouts);

/* ---- reading ---------------------------------------------------------- */

/* The sub-buffer at cb->consumed is closed and fully committed. */
static bool kmt_slot_ready(struct kmt_cpu *cb, unsigned int *size)
{
	struct kmt_slot *slot = &cb->slot[cb->consumed & cb->slot_mask];
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

/*
 * Copy the ready sub-buffers, oldest first, and give each one's block
 * back to the pool: the slot emptied before the writers see the new
 * count, so that the sequence number that comes to use it next finds it
 * empty.
 */
static ssize_t kmt_copy_ready(struct kmt_cpu *cb, char __user *ubuf,
			      size_t count)
{
	struct kmt_slot *slot;
	unsigned int size;
	ssize_t done = 0;
	void *mem;

	while (kmt_slot_ready(cb, &size) && count - done >= size) {
		slot = &cb->slot[cb->consumed & cb->slot_mask];
		mem = READ_ONCE(slot->data);
		/* whole now: a region's close may have left it to the commits */
		WRITE_ONCE(((struct kmt_subbuf_header *)mem)->size, size);
		if (copy_to_user(ubuf + done, mem, size))
			return done ? done : -EFAULT;
		done += size;
		WRITE_ONCE(slot->data, NULL);
		local_set(&slot->commit, 0);
		local_set(&slot->events, 0);
		WRITE_ONCE(slot->size, 0);
		atomic_dec(&cb->held);
		kmt_pool_put(mem);
		/* Writers may use the slot once they see the new count. */
		smp_store_release(&cb->consumed, cb->consumed + 1);
	}
	return done;
}

/*
 * Ask the writers to wake the readers, then look: a sub-buffer closed
 * after the look finds ->waiting set (the smp_mb()s of both sides pair)
 * and queues the wakeup.  The wakeup clears ->waiting (kmt_wakeup()), so
 * that sub-buffers closed with nobody waiting queue nothing: a reader
 * sets it again before each look, on the wait queue already, so a
 * wakeup that clears it wakes that reader too, who looks again.
 */
static bool kmt_wait_ready(struct kmt_cpu *cb)
{
	unsigned int size;

	WRITE_ONCE(cb->waiting, true);
	/* Pairs with the smp_mb() in kmt_close_slot() and kmt_commit_wake(). */
	smp_mb();
	return kmt_slot_ready(cb, &size);
}

static ssize_t kmt_data_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct kmt_cpu *cb = file->private_data;
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
		ret = wait_event_interruptible(cb->wait, kmt_wait_ready(cb));
		if (ret)
			break;
	}
	mutex_unlock(&cb->read_mutex);
	return ret;
}

/* poll_wait() first: the wakeup that clears ->waiting finds us queued. */
static __poll_t kmt_data_poll(struct file *file, poll_table *wait)
{
	struct kmt_cpu *cb = file->private_data;

	poll_wait(file, &cb->wait, wait);
	return kmt_wait_ready(cb) ? EPOLLIN | EPOLLRDNORM : 0;
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
	/* Not while kmt_release_buffers() gives the slots back. */
	if (mutex_lock_interruptible(&kmt_mutex))
		return -ERESTARTSYS;
	if (!kmt_cpu_slots(cb))
		ret = READ_ONCE(kmt_released) ? -ENODATA : -ENODEV;
	else if (test_and_set_bit_lock(0, &cb->open))
		ret = -EBUSY;
	mutex_unlock(&kmt_mutex);
	if (ret)
		return ret;
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

/*
 * Offline CPUs were flushed when they died.  -ENODATA once the buffers
 * were given back, -ENODEV when there never were any.
 */
static ssize_t kmt_flush_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	ssize_t ret = count;

	mutex_lock(&kmt_mutex);
	if (kmt_allocated)
		on_each_cpu(kmt_flush_local, NULL, 1);
	else
		ret = kmt_released ? -ENODATA : -ENODEV;
	mutex_unlock(&kmt_mutex);
	return ret;
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

/* Writing 1 gives the buffers back: kmt_release_buffers(). */
static ssize_t kmt_free_buffer_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;
	ret = kmt_release_buffers();
	return ret ?: count;
}

static const struct file_operations kmt_free_buffer_fops = {
	.open	= kmt_generic_open,
	.write	= kmt_free_buffer_write,
	.llseek	= noop_llseek,
};

static const struct file_operations kmt_enable_fops = {
	.open	= kmt_generic_open,
	.read	= kmt_enable_read,
	.write	= kmt_enable_write,
	.llseek	= default_llseek,
};

/* ---- the previous boot's sub-buffers (persist.c) ---------------------- */

static int kmt_prev_data_open(struct inode *inode, struct file *file)
{
	return kmt_open_allowed() ?: kmt_prev_open();
}

static ssize_t kmt_prev_data_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	return kmt_prev_read(ubuf, count, ppos);
}

static int kmt_prev_data_release(struct inode *inode, struct file *file)
{
	kmt_prev_close();
	return 0;
}

static const struct file_operations kmt_prev_data_fops = {
	.open		= kmt_prev_data_open,
	.read		= kmt_prev_data_read,
	.llseek		= default_llseek,
	.release	= kmt_prev_data_release,
};

static int kmt_prev_info_show(struct seq_file *m, void *v)
{
	return kmt_prev_show(m);
}

static int kmt_prev_info_open(struct inode *inode, struct file *file)
{
	return kmt_open_allowed() ?: single_open(file, kmt_prev_info_show, NULL);
}

static const struct file_operations kmt_prev_info_fops = {
	.open		= kmt_prev_info_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* Writing 1 says the previous boot's are saved: kmt_prev_release(). */
static ssize_t kmt_prev_release_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;
	ret = kmt_prev_release();
	return ret ?: count;
}

static const struct file_operations kmt_prev_release_fops = {
	.open	= kmt_generic_open,
	.write	= kmt_prev_release_write,
	.llseek	= noop_llseek,
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
			kmt_flush_rcu_frees(del);
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

/* "boot" or "flight": kmt_set_mode(). */
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
	kmt_set_mode(mode);
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
	char buf[96];
	int len = kmt_frozen_show(buf, sizeof(buf));

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
	ret = kmt_set_frozen(val);
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
	/* nr_subbufs and pool_subbufs: in each reader's copy, at open */
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

/*
 * Each reader gets its own copy of the header, with the pool's size as
 * it is at open: the one allocated, or the one the current mode would
 * allocate (each mode has its own, and the pool is given back after a
 * save), taken under kmt_mutex, which allocating holds.
 */
static int kmt_header_open(struct inode *inode, struct file *file)
{
	struct kmt_format *f;
	unsigned int nr;
	int ret;

	ret = kmt_open_allowed();
	if (ret)
		return ret;
	f = kmemdup(kmt_header_blob, kmt_header_len, GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	if (mutex_lock_interruptible(&kmt_mutex)) {
		kfree(f);
		return -ERESTARTSYS;
	}
	nr = kmt_allocated ? kmt_pool.nr : kmt_pool_want();
	mutex_unlock(&kmt_mutex);
	/* what one CPU may hold; readers of the older header size by it */
	f->nr_subbufs = min(nr, KMT_CPU_MAX_SUBBUFS);
	f->pool_subbufs = nr;
	file->private_data = f;
	return 0;
}

static ssize_t kmt_header_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, count, ppos, file->private_data,
				       kmt_header_len);
}

static int kmt_header_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static const struct file_operations kmt_header_fops = {
	.open		= kmt_header_open,
	.read		= kmt_header_read,
	.llseek		= default_llseek,
	.release	= kmt_header_release,
};

/*
 * Which CPUs hold how many bytes of the pool now (the pool's size is in
 * the header), and the NUMA layout.
 */
static int kmt_topology_show(struct seq_file *m, void *v)
{
	int cpu, nid;

	for_each_possible_cpu(cpu)
		seq_printf(m, "cpu %d node %d buffer %lu\n", cpu,
			   cpu_to_node(cpu),
			   kmt_held_bytes(per_cpu_ptr(&kmt_cpu_buf, cpu)));
	for_each_online_node(nid)
		seq_printf(m, "node %d start_pfn %lu end_pfn %lu\n", nid,
			   node_start_pfn(nid), node_end_pfn(nid));
	return 0;
}

static int kmt_stats_show(struct seq_file *m, void *v)
{
	struct kmt_cpu *cb;
	int cpu;

	seq_puts(m, "# cpu events lost subbufs_read held_bytes overwritten frozen_dropped has_slots via_kept via_unwound\n");
	for_each_possible_cpu(cpu) {
		cb = per_cpu_ptr(&kmt_cpu_buf, cpu);
		/* after kmt_release_buffers(), the counts of what was read */
		seq_printf(m, "%d %lu %lu %u %lu %lu %lu %d %lu %lu\n", cpu,
			   READ_ONCE(cb->events), local_read(&cb->lost),
			   READ_ONCE(cb->consumed), kmt_held_bytes(cb),
			   local_read(&cb->overwritten),
			   local_read(&cb->frozen_dropped),
			   !!kmt_cpu_slots(cb), local_read(&cb->via_kept),
			   local_read(&cb->via_unwound));
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
		return ret;
	dir = kmt_create_dir("kmemtrace", NULL);
	if (!dir) {
		ret = -ENOMEM;
		goto out_header;
	}
	ret = kmt_create_file("header", 0400, dir, NULL, &kmt_header_fops);
	ret = ret ?: kmt_create_file("enable", 0600, dir, NULL, &kmt_enable_fops);
	ret = ret ?: kmt_create_file("events", 0600, dir, NULL, &kmt_events_fops);
	ret = ret ?: kmt_create_file("flush", 0200, dir, NULL, &kmt_flush_fops);
	ret = ret ?: kmt_create_file("free_buffer", 0200, dir, NULL,
				     &kmt_free_buffer_fops);
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
		goto out_dir;
	if (kmt_persist_present()) {
		ret = -ENOMEM;
		d = kmt_create_dir("previous", dir);
		if (!d)
			goto out_dir;
		ret = kmt_create_file("data", 0400, d, NULL, &kmt_prev_data_fops);
		ret = ret ?: kmt_create_file("info", 0400, d, NULL,
					     &kmt_prev_info_fops);
		ret = ret ?: kmt_create_file("release", 0200, d, NULL,
					     &kmt_prev_release_fops);
		if (ret)
			goto out_dir;
	}
	ret = -ENOMEM;
	pcpu = kmt_create_dir("per_cpu", dir);
	if (!pcpu)
		goto out_dir;
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "cpu%d", cpu);
		d = kmt_create_dir(name, pcpu);
		if (!d) {
			ret = -ENOMEM;
			goto out_dir;
		}
		ret = kmt_create_file("data", 0400, d,
				      per_cpu_ptr(&kmt_cpu_buf, cpu),
				      &kmt_data_fops);
		if (ret)
			goto out_dir;
	}
	return 0;

	/* No file was opened yet: the header can go with them. */
out_dir:
	tracefs_remove(dir);
out_header:
	kfree(kmt_header_blob);
	kmt_header_blob = NULL;
	kmt_header_len = 0;
	/* Nothing could read or stop a recorder started at boot. */
	if (READ_ONCE(kmt_recording)) {
		pr_warn("no tracefs files (%d): recording stopped\n", ret);
		kmt_enable_set(0);
	}
	return ret;
}
late_initcall(kmt_tracefs_init);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * What recording allocations costs, measured inside the kernel.  Write a
 * count N to /sys/kernel/debug/kmemtrace-bench: each online CPU in turn
 * does N kmalloc()/kfree() pairs, then N alloc_page()/__free_page()
 * pairs, then N kvmalloc(2 pages)/kvfree() pairs (a kmalloc() made
 * inside a wrapper, whose caller kmemtrace records from the stack), each
 * loop timed with the kernel clock; read the file for the nanoseconds
 * each CPU took.  Run it in one boot with kmemtrace off and
 * on, and with ftrace's kmem events off and on: the differences over two
 * events per pair are what each recorder costs per event.
 */

#define pr_fmt(fmt) "kmemtrace-bench: " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>

#define BENCH_MAX_PAIRS	10000000UL

struct bench_result {
	u64 slab_ns;		/* N kmalloc()/kfree() pairs */
	u64 page_ns;		/* N alloc_page()/__free_page() pairs */
	u64 via_ns;		/* N kvmalloc()/kvfree() pairs */
	bool ran;
};

static DEFINE_MUTEX(bench_mutex);
static DEFINE_PER_CPU(struct bench_result, bench_result);
static unsigned long bench_pairs;

/* Runs on @arg's CPU, in a kworker bound to it (smp_call_on_cpu()). */
static int bench_cpu(void *arg)
{
	struct bench_result *r = per_cpu_ptr(&bench_result, (long)arg);
	struct page *page;
	unsigned long i;
	u64 t0, t1, t2, t3;
	void *p;

	t0 = ktime_get_ns();
	for (i = 0; i < bench_pairs; i++) {
		p = kmalloc(64, GFP_KERNEL);
		/* a pair the compiler must not drop */
		OPTIMIZER_HIDE_VAR(p);
		kfree(p);
		if (!(i & 1023))
			cond_resched();
	}
	t1 = ktime_get_ns();
	for (i = 0; i < bench_pairs; i++) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		__free_page(page);
		if (!(i & 1023))
			cond_resched();
	}
	t2 = ktime_get_ns();
	for (i = 0; i < bench_pairs; i++) {
		/*
		 * Over a page, so __kvmalloc_node_noprof() calls kmalloc
		 * rather than jumping to it: the call site is then inside
		 * the wrapper.
		 */
		p = kvmalloc(2 * PAGE_SIZE, GFP_KERNEL);
		OPTIMIZER_HIDE_VAR(p);
		kvfree(p);
		if (!(i & 1023))
			cond_resched();
	}
	t3 = ktime_get_ns();
	r->slab_ns = t1 - t0;
	r->page_ns = t2 - t1;
	r->via_ns = t3 - t2;
	r->ran = true;
	return 0;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	unsigned long n;
	unsigned int cpu;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	if (!n || n > BENCH_MAX_PAIRS)
		return -EINVAL;
	mutex_lock(&bench_mutex);
	bench_pairs = n;
	cpus_read_lock();
	for_each_possible_cpu(cpu)
		per_cpu_ptr(&bench_result, cpu)->ran = false;
	for_each_online_cpu(cpu) {
		ret = smp_call_on_cpu(cpu, bench_cpu, (void *)(long)cpu, false);
		if (ret)
			break;
	}
	cpus_read_unlock();
	mutex_unlock(&bench_mutex);
	return ret ? ret : count;
}

static int bench_show(struct seq_file *m, void *v)
{
	struct bench_result *r;
	unsigned int cpu;

	mutex_lock(&bench_mutex);
	seq_printf(m, "pairs %lu\n", bench_pairs);
	for_each_possible_cpu(cpu) {
		r = per_cpu_ptr(&bench_result, cpu);
		if (r->ran)
			seq_printf(m, "cpu %u slab_ns %llu page_ns %llu via_ns %llu\n",
				   cpu, r->slab_ns, r->page_ns, r->via_ns);
	}
	mutex_unlock(&bench_mutex);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, NULL);
}

static const struct file_operations bench_fops = {
	.owner		= THIS_MODULE,
	.open		= bench_open,
	.read		= seq_read,
	.write		= bench_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init kmemtrace_bench_init(void)
{
	debugfs_create_file("kmemtrace-bench", 0600, NULL, NULL, &bench_fops);
	return 0;
}
late_initcall(kmemtrace_bench_init);

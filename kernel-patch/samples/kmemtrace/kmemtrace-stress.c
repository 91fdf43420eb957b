// SPDX-License-Identifier: GPL-2.0-only
/*
 * Allocations on every CPU from task, softirq and hardirq context at the
 * same time, counted, to check the recorder under SMP load.  Write N to
 * /sys/kernel/debug/kmemtrace-stress: each online CPU runs a bound
 * kthread doing N kmalloc()/kfree() pairs while a timer (softirq) and a
 * hard-irq hrtimer on that CPU allocate and free too, until the kthread
 * is done.  Read the file for how many pairs each context did.  Each
 * context allocates from its own function, so a trace of the run holds
 * exactly that many kmalloc and kfree events from each of them, in the
 * matching context, unless the recorder reports lost events.  One pair
 * in 8 allocates through kasprintf(), a wrapper whose caller the
 * recorder must name, also when an interrupt's kasprintf() comes in the
 * middle of the task's.
 *
 * Write N to /sys/kernel/debug/kmemtrace-kfree-rcu to kmalloc() N objects
 * and free each with kfree_rcu() (every other one in its one-argument
 * form), which frees them in batches through kfree_bulk(); the write
 * returns once they are all freed.  Read it for
 * how many were.  A trace of the run holds each object's free.
 *
 * The recorder's clock against the kernel's: a clock stamp allocates
 * CLOCK_BYTES on one CPU between two reads of local_clock(), interrupts
 * off, so the trace's kmalloc record of that object must lie between
 * the two.  Every online CPU is stamped at subsys, fs and device initcall
 * time, before sched_clock_init_late() can mark sched_clock stable (the
 * recorder's time then comes from its copy of the tick window's clock),
 * and again at each write to /sys/kernel/debug/kmemtrace-clock; read it
 * for the stamps, "cpu CPU t0 NS t1 NS stable|unstable" lines, in the
 * order they were taken: the i-th stamp of a CPU is the i-th CLOCK_BYTES
 * allocation of kmt_clock_stamp() on that CPU in the trace.
 */

#define pr_fmt(fmt) "kmemtrace-stress: " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timer.h>

#define STRESS_MAX_PAIRS	10000000UL
#define STRESS_HARDIRQ_NS	(20 * NSEC_PER_USEC)
#define STRESS_SOFTIRQ_PAIRS	32

enum { STRESS_TASK, STRESS_SOFTIRQ, STRESS_HARDIRQ, STRESS_NR };

static const char *const stress_names[STRESS_NR] = {
	"task", "softirq", "hardirq",
};

struct stress_cpu {
	struct hrtimer hrtimer;
	struct timer_list timer;
	bool stop;
};

static DEFINE_PER_CPU(struct stress_cpu, stress_cpu);
static DEFINE_MUTEX(stress_mutex);
static atomic64_t stress_pairs_done[STRESS_NR];
static atomic_t stress_running;
static DECLARE_COMPLETION(stress_done);
static unsigned long stress_pairs;

/* One pair, counted whether or not the allocation succeeded: both traced. */
static __always_inline void stress_pair(int ctx, gfp_t gfp)
{
	void *p;

	if (!(atomic64_read(&stress_pairs_done[ctx]) & 7))
		p = kasprintf(gfp, "%d", ctx);
	else
		p = kmalloc(48, gfp);

	/* a pair the compiler must not drop */
	OPTIMIZER_HIDE_VAR(p);
	kfree(p);
	atomic64_inc(&stress_pairs_done[ctx]);
}

static noinline enum hrtimer_restart kmt_stress_hardirq(struct hrtimer *t)
{
	struct stress_cpu *sc = container_of(t, struct stress_cpu, hrtimer);

	stress_pair(STRESS_HARDIRQ, GFP_ATOMIC);
	if (READ_ONCE(sc->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(STRESS_HARDIRQ_NS));
	return HRTIMER_RESTART;
}

static noinline void kmt_stress_softirq(struct timer_list *t)
{
	struct stress_cpu *sc = from_timer(sc, t, timer);
	unsigned int i;

	for (i = 0; i < STRESS_SOFTIRQ_PAIRS; i++)
		stress_pair(STRESS_SOFTIRQ, GFP_ATOMIC);
	if (!READ_ONCE(sc->stop))
		mod_timer(t, jiffies + 1);
}

/* Bound to its CPU: the timers it starts are pinned there too. */
static noinline int kmt_stress_task(void *arg)
{
	struct stress_cpu *sc = per_cpu_ptr(&stress_cpu, (long)arg);
	unsigned long i;

	WRITE_ONCE(sc->stop, false);
	hrtimer_start(&sc->hrtimer, ns_to_ktime(STRESS_HARDIRQ_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
	mod_timer(&sc->timer, jiffies + 1);
	for (i = 0; i < stress_pairs; i++) {
		stress_pair(STRESS_TASK, GFP_KERNEL);
		if (!(i & 255))
			cond_resched();
	}
	WRITE_ONCE(sc->stop, true);
	hrtimer_cancel(&sc->hrtimer);
	timer_delete_sync(&sc->timer);
	if (atomic_dec_and_test(&stress_running))
		complete(&stress_done);
	return 0;
}

static ssize_t stress_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct task_struct *t;
	unsigned long n;
	unsigned int cpu;
	int i, ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	if (!n || n > STRESS_MAX_PAIRS)
		return -EINVAL;
	mutex_lock(&stress_mutex);
	stress_pairs = n;
	for (i = 0; i < STRESS_NR; i++)
		atomic64_set(&stress_pairs_done[i], 0);
	reinit_completion(&stress_done);
	cpus_read_lock();
	/* one reference for this function, dropped after the last start */
	atomic_set(&stress_running, 1);
	for_each_online_cpu(cpu) {
		t = kthread_create_on_cpu(kmt_stress_task, (void *)(long)cpu,
					  cpu, "kmt-stress/%u");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		atomic_inc(&stress_running);
		wake_up_process(t);
	}
	if (!atomic_dec_and_test(&stress_running))
		wait_for_completion(&stress_done);
	cpus_read_unlock();
	mutex_unlock(&stress_mutex);
	return ret ? ret : count;
}

static int stress_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&stress_mutex);
	seq_printf(m, "pairs %lu\n", stress_pairs);
	for (i = 0; i < STRESS_NR; i++)
		seq_printf(m, "%s %lld\n", stress_names[i],
			   atomic64_read(&stress_pairs_done[i]));
	mutex_unlock(&stress_mutex);
	return 0;
}

static int stress_open(struct inode *inode, struct file *file)
{
	return single_open(file, stress_show, NULL);
}

static const struct file_operations stress_fops = {
	.owner		= THIS_MODULE,
	.open		= stress_open,
	.read		= seq_read,
	.write		= stress_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

struct stress_rcu_obj {
	struct rcu_head rcu;
	char data[200];
};

static unsigned long stress_rcu_freed;

static noinline unsigned long kmt_stress_kfree_rcu(unsigned long n)
{
	struct stress_rcu_obj *o;
	unsigned long i;

	/*
	 * Both forms: the one-argument one may allocate the page of
	 * pointers that kfree_rcu() batches in, so both go to kfree_bulk()
	 */
	for (i = 0; i < n; i++) {
		o = kmalloc(sizeof(*o), GFP_KERNEL);
		if (!o)
			break;
		if (i & 1)
			kfree_rcu(o, rcu);
		else
			kfree_rcu_mightsleep(o);
	}
	return i;
}

static ssize_t rcu_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	unsigned long n;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	if (!n || n > STRESS_MAX_PAIRS)
		return -EINVAL;
	mutex_lock(&stress_mutex);
	n = kmt_stress_kfree_rcu(n);
	kvfree_rcu_barrier();
	stress_rcu_freed += n;
	mutex_unlock(&stress_mutex);
	return count;
}

static int rcu_show(struct seq_file *m, void *v)
{
	mutex_lock(&stress_mutex);
	seq_printf(m, "kfree_rcu %lu\n", stress_rcu_freed);
	mutex_unlock(&stress_mutex);
	return 0;
}

static int rcu_open(struct inode *inode, struct file *file)
{
	return single_open(file, rcu_show, NULL);
}

static const struct file_operations rcu_fops = {
	.owner		= THIS_MODULE,
	.open		= rcu_open,
	.read		= seq_read,
	.write		= rcu_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

#define CLOCK_BYTES		1234
#define CLOCK_MAX_STAMPS	1024

struct clock_stamp {
	u64 t0, t1;
	int cpu;
	bool stable;
};

/* Filled in order, under stress_mutex once the boot's stamps are taken. */
static struct clock_stamp clock_stamps[CLOCK_MAX_STAMPS];
static unsigned int clock_nr;

/* On the CPU stamped, from its IPI or with interrupts off. */
static noinline void kmt_clock_stamp(void *arg)
{
	struct clock_stamp *s = arg;
	unsigned long flags;
	void *p;

	local_irq_save(flags);
	s->t0 = local_clock();
	p = kmalloc(CLOCK_BYTES, GFP_ATOMIC);
	s->t1 = local_clock();
	local_irq_restore(flags);
	s->cpu = smp_processor_id();
	s->stable = sched_clock_stable();
	kfree(p);
}

static void clock_stamp_all(void)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (clock_nr == CLOCK_MAX_STAMPS)
			break;
		if (!smp_call_function_single(cpu, kmt_clock_stamp,
					      &clock_stamps[clock_nr], 1))
			clock_nr++;
	}
	cpus_read_unlock();
}

static ssize_t clock_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	ssize_t ret = count;

	mutex_lock(&stress_mutex);
	if (clock_nr + num_online_cpus() > CLOCK_MAX_STAMPS)
		ret = -ENOSPC;
	else
		clock_stamp_all();
	mutex_unlock(&stress_mutex);
	return ret;
}

static int clock_show(struct seq_file *m, void *v)
{
	const struct clock_stamp *s;
	unsigned int i;

	mutex_lock(&stress_mutex);
	for (i = 0; i < clock_nr; i++) {
		s = &clock_stamps[i];
		seq_printf(m, "cpu %d t0 %llu t1 %llu %s\n", s->cpu, s->t0,
			   s->t1, s->stable ? "stable" : "unstable");
	}
	mutex_unlock(&stress_mutex);
	return 0;
}

static int clock_open(struct inode *inode, struct file *file)
{
	return single_open(file, clock_show, NULL);
}

static const struct file_operations clock_fops = {
	.owner		= THIS_MODULE,
	.open		= clock_open,
	.read		= seq_read,
	.write		= clock_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* Before sched_clock_init_late(), a late initcall: three, ticks apart. */
static int __init kmemtrace_clock_init(void)
{
	clock_stamp_all();
	return 0;
}
subsys_initcall(kmemtrace_clock_init);

static int __init kmemtrace_clock_init_fs(void)
{
	clock_stamp_all();
	return 0;
}
fs_initcall(kmemtrace_clock_init_fs);

static int __init kmemtrace_clock_init_device(void)
{
	clock_stamp_all();
	return 0;
}
device_initcall(kmemtrace_clock_init_device);

static int __init kmemtrace_stress_init(void)
{
	struct stress_cpu *sc;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		sc = per_cpu_ptr(&stress_cpu, cpu);
		hrtimer_init(&sc->hrtimer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		sc->hrtimer.function = kmt_stress_hardirq;
		timer_setup(&sc->timer, kmt_stress_softirq, TIMER_PINNED);
	}
	debugfs_create_file("kmemtrace-stress", 0600, NULL, NULL, &stress_fops);
	debugfs_create_file("kmemtrace-kfree-rcu", 0600, NULL, NULL, &rcu_fops);
	debugfs_create_file("kmemtrace-clock", 0600, NULL, NULL, &clock_fops);
	return 0;
}
late_initcall(kmemtrace_stress_init);

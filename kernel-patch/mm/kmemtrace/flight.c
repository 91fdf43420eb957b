// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: flight mode and the triggers that freeze it.
 *
 * In flight mode (kmemtrace.mode=flight) a full buffer reuses its oldest
 * sub-buffer instead of dropping new events: the buffers hold the latest
 * events for as long as the machine runs.  Triggers freeze them: the OOM
 * killer choosing a victim, a page or slab allocation failure the kernel
 * warns of, a direct reclaim that stalls, a write to tracefs, a panic.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/panic_notifier.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "internal.h"
#include "../slab.h"

const char *const kmt_mode_names[KMT_MODE_FLIGHT + 1] = {
	[KMT_MODE_BOOT] = "boot",
	[KMT_MODE_FLIGHT] = "flight",
};

const char *const kmt_trigger_names[KMT_NR_TRIGGERS] = {
	[KMT_TRIG_MANUAL] = "manual",
	[KMT_TRIG_OOM] = "oom",
	[KMT_TRIG_PAGE_ALLOC_FAIL] = "page_alloc_fail",
	[KMT_TRIG_SLAB_ALLOC_FAIL] = "slab_alloc_fail",
	[KMT_TRIG_MEMCG_OOM] = "memcg_oom",
	[KMT_TRIG_RECLAIM_STALL] = "reclaim_stall",
	[KMT_TRIG_PANIC] = "panic",
};

#define KMT_TRIGGERS_ALL	(BIT(KMT_NR_TRIGGERS) - 2)
/* A memory cgroup at its limit is the cgroup's business, not the machine's. */
#define KMT_TRIGGERS_DEFAULT	(KMT_TRIGGERS_ALL & ~BIT(KMT_TRIG_MEMCG_OOM))

/* On while the recorder records in flight mode: the hooks call in. */
DEFINE_STATIC_KEY_FALSE(kmemtrace_trigger_key);
/* Bits of enum kmt_trigger that freeze. */
unsigned long kmt_triggers __read_mostly = KMT_TRIGGERS_DEFAULT;
/*
 * The trigger that froze the recorder, 0 while armed, KMT_UNARMED in
 * boot mode.  A trigger freezes only by moving it from 0 to itself, so
 * that nothing can freeze a recorder that is being switched to boot
 * mode (kmt_thaw()).
 */
#define KMT_UNARMED		(-1)
/* kmt_mode starts as KMT_MODE_BOOT (buffer.c): hence KMT_UNARMED here. */
static atomic_t kmt_frozen_by = ATOMIC_INIT(KMT_UNARMED);
/* Set once every CPU was told to stop, cleared when armed again. */
static bool kmt_frozen_done;
static u64 kmt_trigger_ts, kmt_frozen_ts;
DECLARE_WAIT_QUEUE_HEAD(kmt_frozen_wait);

static void kmt_frozen_wakeup(struct irq_work *work)
{
	wake_up_all(&kmt_frozen_wait);
}

static DEFINE_IRQ_WORK(kmt_frozen_work, kmt_frozen_wakeup);

/* panic()'s size, from kallsyms at boot: no lookup in an NMI's panic */
static unsigned long kmt_panic_size __ro_after_init;

/* The index in @entries of the frame after panic()'s, 0: none is. */
static unsigned int kmt_past_panic(const unsigned long *entries,
				   unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (entries[i] - (unsigned long)panic < kmt_panic_size)
			return i + 1;
	return 0;
}

/*
 * The record of trigger @trig at @ts: its task, the allocation's order,
 * GFP flags and cache, and the stack that fired it.  Any context.
 */
static noinline void kmt_trigger_record(enum kmt_trigger trig,
					struct task_struct *task, int order,
					gfp_t gfp, unsigned int cache, u64 ts)
{
	/* room for the frames of a panic's notifier chain, which go */
	unsigned long entries[KMT_MAX_STACK + 8];
	u8 stack[KMT_MAX_STACK * 10], *p = stack;
	u64 v[ARRAY_SIZE(kmt_enc_mark)];
	struct kmt_str str[2];
	unsigned int i, nr;

	/* skip this frame and kmt_freeze()'s (the hook tail-calls it) */
	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 2);
	/* a panic's from panic()'s caller: the notifier chain says nothing */
	i = trig == KMT_TRIG_PANIC ? kmt_past_panic(entries, nr) : 0;
	nr = min(nr, i + KMT_MAX_STACK);
	for (; i < nr; i++)
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
	kmt_record_fields_at(KMT_EV_MARK, kmt_enc_mark, v, ARRAY_SIZE(v),
			     str, 2, ts);
}

/*
 * Freeze the recorder for @trig: write the trigger's record, then tell
 * every CPU's writers to open no sub-buffer: each CPU writes on into the
 * one it has open until it is full (or a reader flushes it), and from
 * then on drops its events (counted: frozen_dropped), so that
 * nothing older is ever overwritten.  The check is on the writers' slow
 * path, and costs the hot path nothing.  Any context: the OOM killer
 * with its locks, an atomic allocation failing in an interrupt, a panic
 * from an NMI (nothing here takes a lock or sleeps).  The first trigger
 * wins; later ones find the recorder frozen.
 */
static noinline void kmt_freeze(enum kmt_trigger trig,
				struct task_struct *task, int order,
				gfp_t gfp, unsigned int cache)
{
	int cpu;
	u64 ts;

	/*
	 * Preemption off from the test of kmt_recording to the end: the
	 * grace period of kmt_release_buffers_locked() waits for a freeze
	 * under way, and kmt_forget_freeze() after it finds none.
	 */
	preempt_disable_notrace();
	if (!READ_ONCE(kmt_recording) || READ_ONCE(kmt_mode) != KMT_MODE_FLIGHT ||
	    !(READ_ONCE(kmt_triggers) & BIT(trig)) ||
	    atomic_cmpxchg(&kmt_frozen_by, 0, trig))
		goto out;
	ts = local_clock();
	kmt_trigger_record(trig, task, order, gfp, cache, ts);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&kmt_cpu_buf, cpu)->frozen, true);
	/* The stops before the time that says they were made. */
	smp_mb();
	WRITE_ONCE(kmt_trigger_ts, ts);
	WRITE_ONCE(kmt_frozen_ts, local_clock());
	/* Pairs with the acquire in kmt_is_frozen(). */
	smp_store_release(&kmt_frozen_done, true);
	irq_work_queue(&kmt_frozen_work);
out:
	preempt_enable_notrace();
}

/*
 * The panic trigger.  panic() calls the notifiers once the other CPUs
 * are stopped, on the one that panics, with interrupts off (from an NMI
 * too, through nmi_panic()).  In flight mode it freezes, as every
 * trigger does; in boot mode, where nothing freezes, its record says all
 * the same when and where.  With the pool in a reserve_mem= region
 * (persist.c), the next boot finds it all, this record the last.
 */
static int kmt_panic(struct notifier_block *nb, unsigned long action,
		     void *msg)
{
	if (!READ_ONCE(kmt_recording) ||
	    !(READ_ONCE(kmt_triggers) & BIT(KMT_TRIG_PANIC)))
		return NOTIFY_DONE;
	if (READ_ONCE(kmt_mode) == KMT_MODE_FLIGHT)
		kmt_freeze(KMT_TRIG_PANIC, current, -1, 0, 0);
	else if (kmt_buffers_ready())
		kmt_trigger_record(KMT_TRIG_PANIC, current, -1, 0, 0,
				   local_clock());
	return NOTIFY_DONE;
}

static struct notifier_block kmt_panic_nb = {
	.notifier_call	= kmt_panic,
};

static int __init kmt_panic_init(void)
{
	unsigned long off;

	if (!kallsyms_lookup_size_offset((unsigned long)panic, &kmt_panic_size,
					 &off) || off)
		kmt_panic_size = 0;
	atomic_notifier_chain_register(&panic_notifier_list, &kmt_panic_nb);
	return 0;
}
early_initcall(kmt_panic_init);

bool kmt_is_frozen(void)
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
 * table, a slot taken with a cmpxchg.  A reclaim that finds the table
 * full is not timed.
 *
 * A begin whose end is never seen (the reclaim probes detached, or the
 * recorder armed again, in between) must not be matched by a later end
 * of another task that got the same pid, nor hold its slot for good:
 * slots are keyed by the pid and a generation, which kmt_stall_forget()
 * moves on.  A slot of an older generation is free.
 */
#define KMT_STALLS		64

struct kmt_stall {
	atomic64_t	key;		/* generation << 32 | pid, 0: free */
	int		order;
	gfp_t		gfp;
	u64		ts;
};

static struct kmt_stall kmt_stalls[KMT_STALLS];
static atomic_t kmt_stall_gen = ATOMIC_INIT(1);
u64 kmt_stall_ns __read_mostly = NSEC_PER_SEC;

static u64 kmt_stall_key(int pid)
{
	return (u64)(u32)atomic_read(&kmt_stall_gen) << 32 | (u32)pid;
}

/* Whether slot key @old is free for @key: none, or of an older generation. */
static bool kmt_stall_free(u64 old, u64 key)
{
	return !old || (s32)((u32)(old >> 32) - (u32)(key >> 32)) < 0;
}

/* Every slot taken so far is free: its end will not be looked for. */
void kmt_stall_forget(void)
{
	atomic_inc(&kmt_stall_gen);
}

void kmt_stall_begin(int order, gfp_t gfp)
{
	int pid = task_pid_nr(current), i;
	struct kmt_stall *s;
	u64 key, old;

	if (!static_branch_unlikely(&kmemtrace_trigger_key) || !pid ||
	    !(READ_ONCE(kmt_triggers) & BIT(KMT_TRIG_RECLAIM_STALL)))
		return;
	key = kmt_stall_key(pid);
	for (i = 0; i < KMT_STALLS; i++) {
		s = &kmt_stalls[i];
		old = atomic64_read(&s->key);
		/* taken in this generation (or a newer one): in use */
		if (!kmt_stall_free(old, key))
			continue;
		if (!atomic64_try_cmpxchg(&s->key, &old, key))
			continue;
		s->order = order;
		s->gfp = gfp;
		s->ts = local_clock();
		return;
	}
}

/* A direct reclaim ends: its task's slot, if it has one, and the time. */
void kmt_stall_end(void)
{
	int pid = task_pid_nr(current), i, order;
	struct kmt_stall *s;
	gfp_t gfp;
	u64 key;
	s64 ns;

	if (!pid)
		return;
	key = kmt_stall_key(pid);
	for (i = 0; i < KMT_STALLS; i++) {
		s = &kmt_stalls[i];
		if (atomic64_read(&s->key) != key)
			continue;
		ns = local_clock() - READ_ONCE(s->ts);
		order = READ_ONCE(s->order);
		gfp = READ_ONCE(s->gfp);
		/*
		 * The fields read before the slot is free again.  A forget
		 * and another task's begin may have taken it meanwhile:
		 * then the fields are that task's, and not used.
		 */
		if (!atomic64_try_cmpxchg_release(&s->key, &key, 0))
			return;
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

/*
 * Undo the freeze, if there is one, and set the state to @to: 0, armed
 * again (the buffers keep what they hold), or KMT_UNARMED for boot mode.
 * kmt_mutex held.  A trigger may fire meanwhile, in any context and on
 * any CPU: the state moves from what it was seen to be with a cmpxchg,
 * so a freeze that won in between is seen, waited for (it never sleeps,
 * and ends once it began) and undone too.  The ARMED mark goes into the
 * stream before the state lets a trigger fire: a FROZEN mark never
 * precedes the ARMED mark of the thaw before it.
 */
static void kmt_thaw(int to)
{
	int old = atomic_read(&kmt_frozen_by);
	int cpu;

	/* Armed, or in boot mode, already: a freeze from now on stays. */
	if (old == to)
		return;
	do {
		if (old <= 0)
			continue;
		/* kmt_freeze() wakes us once every CPU was told to stop */
		wait_event(kmt_frozen_wait, kmt_is_frozen());
		for_each_possible_cpu(cpu)
			WRITE_ONCE(per_cpu_ptr(&kmt_cpu_buf, cpu)->frozen, false);
		kmt_stall_forget();
		kmt_emit_mark(KMT_MARK_ARMED);
		WRITE_ONCE(kmt_frozen_done, false);
		/* The CPUs record before the next trigger may fire. */
		smp_mb();
	} while (!atomic_try_cmpxchg(&kmt_frozen_by, &old, to));
}

/* The trigger hooks run while recording in flight mode.  kmt_mutex held. */
void kmt_update_trigger_key(void)
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
int kmt_parse_triggers(const char *str, unsigned long *mask)
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
		pr_warn("kmemtrace.triggers=%s is invalid: use a comma-separated list of oom, memcg_oom, page_alloc_fail, slab_alloc_fail, reclaim_stall, panic, manual, or all, or none; recorder stays off\n",
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
		atomic_set(&kmt_frozen_by, KMT_UNARMED);
	} else if (str && !strcmp(str, "flight")) {
		kmt_mode = KMT_MODE_FLIGHT;
		atomic_set(&kmt_frozen_by, 0);
	} else {
		pr_warn("kmemtrace.mode=%s is invalid: use boot or flight; recorder stays off\n",
			str ? str : "");
		kmt_param_invalid = true;
	}
	return 0;
}
early_param("kmemtrace.mode", kmt_parse_mode);

/**
 * kmt_set_mode - switch between boot and flight mode
 * @mode: KMT_MODE_BOOT or KMT_MODE_FLIGHT
 *
 * "flight": full buffers reuse their oldest sub-buffer from now on, and
 * the triggers are armed; "boot": they drop new events again.  A mark
 * in the stream says where the mode changed.  The pool is each mode's
 * size (kmemtrace.size, kmemtrace.flight_size) when it is allocated: a
 * switch while stopped, everything read, gives back one of the other
 * size.
 */
void kmt_set_mode(unsigned int mode)
{
	mutex_lock(&kmt_mutex);
	if (mode != kmt_mode) {
		/*
		 * Stopped and read, a pool of the other mode's size goes
		 * back first, and a freeze with it (the thaw below then
		 * writes no mark into it): the next start allocates this
		 * mode's.  Recording, with events unread or a data file
		 * open, it stays until it is given back.
		 */
		if (!READ_ONCE(kmt_recording) && kmt_allocated &&
		    !kmt_persist_pool() &&
		    kmt_pool.nr != kmt_pool_want_mode(mode))
			kmt_release_buffers_locked();
		/* Boot mode has no triggers: a freeze would drop for good. */
		if (mode == KMT_MODE_BOOT)
			kmt_thaw(KMT_UNARMED);
		WRITE_ONCE(kmt_mode, mode);
		kmt_persist_mode(mode);
		if (READ_ONCE(kmt_recording))
			kmt_emit_mark(mode == KMT_MODE_FLIGHT ? KMT_MARK_FLIGHT :
					KMT_MARK_BOOT);
		if (mode == KMT_MODE_FLIGHT)
			kmt_thaw(0);
		kmt_update_trigger_key();
	}
	mutex_unlock(&kmt_mutex);
}

/*
 * The buffers were given back (kmt_release_buffers_locked()): a freeze
 * of theirs is over, and the next ones start armed in flight mode, not
 * frozen.  No mark: there is nothing to write it in, and the next start
 * writes the mode.  No freeze is under way: kmt_freeze() runs with
 * preemption off and finds recording off after the grace period that
 * came before.  kmt_mutex held.
 */
void kmt_forget_freeze(void)
{
	int cpu;

	lockdep_assert_held(&kmt_mutex);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&kmt_cpu_buf, cpu)->frozen, false);
	kmt_stall_forget();
	WRITE_ONCE(kmt_frozen_done, false);
	atomic_set(&kmt_frozen_by, kmt_mode == KMT_MODE_FLIGHT ? 0 : KMT_UNARMED);
}

/**
 * kmt_set_frozen - freeze by hand, or arm again
 * @val: 1 freezes (the manual trigger), 0 arms
 *
 * Return: 0, or -EPERM when the manual trigger did not freeze: not in
 * flight mode, not recording, the trigger off, or frozen already.
 */
int kmt_set_frozen(unsigned int val)
{
	int ret = 0;

	mutex_lock(&kmt_mutex);
	if (!val) {
		kmt_thaw(kmt_mode == KMT_MODE_FLIGHT ? 0 : KMT_UNARMED);
	} else if (atomic_read(&kmt_frozen_by)) {
		ret = -EPERM;
	} else {
		kmt_freeze(KMT_TRIG_MANUAL, current, 0, 0, 0);
		if (atomic_read(&kmt_frozen_by) != KMT_TRIG_MANUAL)
			ret = -EPERM;
	}
	mutex_unlock(&kmt_mutex);
	return ret;
}

/**
 * kmt_frozen_show - the state of the flight recorder, as one line
 * @buf:  where to write it
 * @size: its bytes
 *
 * "0": armed (or boot mode); "1 TRIGGER TRIGGER_TS FROZEN_TS": frozen
 * by TRIGGER, whose record has time TRIGGER_TS, every CPU stopped by
 * FROZEN_TS.
 *
 * Return: the length of the line.
 */
int kmt_frozen_show(char *buf, size_t size)
{
	int trig = atomic_read(&kmt_frozen_by);

	if (kmt_is_frozen() && trig > 0 && trig < KMT_NR_TRIGGERS)
		return scnprintf(buf, size, "1 %s %llu %llu\n",
				 kmt_trigger_names[trig],
				 READ_ONCE(kmt_trigger_ts),
				 READ_ONCE(kmt_frozen_ts));
	return scnprintf(buf, size, "0\n");
}

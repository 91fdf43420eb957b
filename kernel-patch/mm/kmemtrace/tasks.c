// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the boot's phases and who allocates in user space.
 *
 * The initcall levels and functions, what pid 1 executes, and every task
 * made, renamed, executing or moved to another cgroup, and every cgroup
 * made: readers put each allocation in its boot phase, process and
 * systemd unit.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/binfmts.h>
#include <linux/cgroup.h>
#include <linux/init.h>
#include <linux/sched.h>

#include "internal.h"

#ifdef CONFIG_CGROUPS
#include <trace/events/cgroup.h>
#endif
#include <trace/events/initcall.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>

static const u8 kmt_enc_initcall[] = { KMT_ENC_TEXT32, KMT_ENC_S32 };

/* ---- boot phases: initcall levels and functions ------------------------- */
static void kmt_probe_initcall_level(void *data, const char *level)
{
	kmt_record_str(KMT_EV_INITCALL_LEVEL, NULL, NULL, 0, level);
}

static void kmt_probe_initcall_start(void *data, initcall_t func)
{
	u64 v = (unsigned long)func;

	kmt_record_fields(KMT_EV_INITCALL_START, kmt_enc_initcall, &v, 1,
			  NULL, 0);
}

static void kmt_probe_initcall_finish(void *data, initcall_t func, int ret)
{
	u64 v[2] = { (unsigned long)func, (s64)ret };

	kmt_record_fields(KMT_EV_INITCALL_FINISH, kmt_enc_initcall, v, 2,
			  NULL, 0);
}

/* ---- tasks: who allocates in user space ------------------------------ */

static const u8 kmt_enc_task[] = {
	KMT_ENC_U8X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X,
};

/*
 * Longest filename and cgroup path a task record keeps: their last bytes,
 * where the program's and the unit's names are.
 */
#define KMT_TASK_PATH	128

/* The last KMT_TASK_PATH bytes of @s, "" for NULL. */
static struct kmt_str kmt_tail(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	struct kmt_str t = { s, len };

	if (len > KMT_TASK_PATH) {
		t.p = s + len - KMT_TASK_PATH;
		t.len = KMT_TASK_PATH;
	}
	return t;
}

/*
 * A KMT_EV_TASK record: @op on task @pid (parent @ppid), its @comm, what
 * it executed, its cgroup by id (0: none) and by path; a missing string
 * is written empty.
 */
static void kmt_record_task(u8 op, pid_t pid, pid_t ppid, u64 cgroup_id,
			    const char *comm, const char *filename,
			    const char *cgroup)
{
	u64 v[ARRAY_SIZE(kmt_enc_task)] = { op, pid, ppid, cgroup_id };
	struct kmt_str str[3] = {
		{ comm, comm ? strnlen(comm, TASK_COMM_LEN) : 0 },
		kmt_tail(filename),
		kmt_tail(cgroup),
	};

	kmt_record_fields(KMT_EV_TASK, kmt_enc_task, v, ARRAY_SIZE(v), str, 3);
}

#ifdef CONFIG_CGROUPS
/*
 * The id of @p's cgroup v2 cgroup.  Lockless: the css_set is RCU-freed
 * and a cgroup's kernfs node lives as long as the cgroup.  Probes run
 * with preemption off, where cgroup_path() and its kernfs_rename_lock (a
 * sleeping lock on PREEMPT_RT) may not be taken: the path of an id comes
 * from the MKDIR and CGROUP records, whose tracepoints hand it over, and
 * from the cgroup tree at the save.
 */
static u64 kmt_cgroup_id_of(struct task_struct *p)
{
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(p));
	rcu_read_unlock();
	return id;
}

/* A move in the cgroup v2 hierarchy (v1 hierarchies say nothing of units). */
static void kmt_probe_cgroup_attach(void *data, struct cgroup *dst,
				    const char *path, struct task_struct *p,
				    bool threadgroup)
{
	if (dst->root != &cgrp_dfl_root)
		return;
	kmt_record_task(KMT_TASK_CGROUP, task_pid_nr(p), threadgroup,
			cgroup_id(dst), p->comm, NULL, path);
}

/* A new cgroup v2 cgroup: its id and path, for the records that name it. */
static void kmt_probe_cgroup_mkdir(void *data, struct cgroup *cgrp,
				   const char *path)
{
	if (cgrp->root != &cgrp_dfl_root)
		return;
	kmt_record_task(KMT_TASK_MKDIR, task_pid_nr(current), 0,
			cgroup_id(cgrp), current->comm, NULL, path);
}

/* Whether @child was cloned into another cgroup than @parent's. */
static bool kmt_cgroup_moved(struct task_struct *parent,
			     struct task_struct *child)
{
	bool moved;

	rcu_read_lock();
	moved = task_dfl_cgroup(child) != task_dfl_cgroup(parent);
	rcu_read_unlock();
	return moved;
}
#else
static u64 kmt_cgroup_id_of(struct task_struct *p)
{
	return 0;
}

static bool kmt_cgroup_moved(struct task_struct *parent,
			     struct task_struct *child)
{
	return false;
}
#endif

static void kmt_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	if (task_pid_nr(p) == 1)
		kmt_record_str(KMT_EV_INIT_EXEC, NULL, NULL, 0, bprm->filename);
	kmt_record_task(KMT_TASK_EXEC, task_pid_nr(p), 0, kmt_cgroup_id_of(p),
			p->comm, bprm->filename, NULL);
}

/*
 * A new task, process or thread.  Its cgroup is its parent's unless it
 * was cloned into another one (clone3() with CLONE_INTO_CGROUP): only
 * then is its id written.
 */
static void kmt_probe_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	u64 id = 0;

	if (kmt_cgroup_moved(parent, child))
		id = kmt_cgroup_id_of(child);
	kmt_record_task(KMT_TASK_NEW, task_pid_nr(child), task_pid_nr(parent),
			id, child->comm, NULL, NULL);
}

/* exec names the task too, in its own record: not twice */
static void kmt_probe_rename(void *data, struct task_struct *p,
			     const char *comm)
{
	if (p == current && current->in_execve)
		return;
	kmt_record_task(KMT_TASK_RENAME, task_pid_nr(p), 0, 0, comm, NULL,
			NULL);
}

#ifdef CONFIG_CGROUPS
static int kmt_register_cgroup(void)
{
	int ret;

	ret = register_trace_cgroup_attach_task(kmt_probe_cgroup_attach, NULL);
	if (ret)
		return ret;
	ret = register_trace_cgroup_mkdir(kmt_probe_cgroup_mkdir, NULL);
	if (ret)
		unregister_trace_cgroup_attach_task(kmt_probe_cgroup_attach, NULL);
	return ret;
}

static void kmt_unregister_cgroup(void)
{
	unregister_trace_cgroup_mkdir(kmt_probe_cgroup_mkdir, NULL);
	unregister_trace_cgroup_attach_task(kmt_probe_cgroup_attach, NULL);
}
#else
static int kmt_register_cgroup(void)
{
	return 0;
}

static void kmt_unregister_cgroup(void)
{
}
#endif

/* All or none: what registered is unregistered again on a failure. */
int kmt_register_boot(void)
{
	int ret;

	ret = register_trace_initcall_level(kmt_probe_initcall_level, NULL);
	if (ret)
		return ret;
	ret = register_trace_initcall_start(kmt_probe_initcall_start, NULL);
	if (ret)
		goto err_level;
	ret = register_trace_initcall_finish(kmt_probe_initcall_finish, NULL);
	if (ret)
		goto err_start;
	ret = register_trace_sched_process_fork(kmt_probe_fork, NULL);
	if (ret)
		goto err_finish;
	ret = register_trace_task_rename(kmt_probe_rename, NULL);
	if (ret)
		goto err_fork;
	ret = kmt_register_cgroup();
	if (ret)
		goto err_rename;
	ret = register_trace_sched_process_exec(kmt_probe_exec, NULL);
	if (ret)
		goto err_cgroup;
	return 0;

err_cgroup:
	kmt_unregister_cgroup();
err_rename:
	unregister_trace_task_rename(kmt_probe_rename, NULL);
err_fork:
	unregister_trace_sched_process_fork(kmt_probe_fork, NULL);
err_finish:
	unregister_trace_initcall_finish(kmt_probe_initcall_finish, NULL);
err_start:
	unregister_trace_initcall_start(kmt_probe_initcall_start, NULL);
err_level:
	unregister_trace_initcall_level(kmt_probe_initcall_level, NULL);
	return ret;
}

/* Only after kmt_register_boot() succeeded. */
void kmt_unregister_boot(void)
{
	unregister_trace_sched_process_exec(kmt_probe_exec, NULL);
	kmt_unregister_cgroup();
	unregister_trace_task_rename(kmt_probe_rename, NULL);
	unregister_trace_sched_process_fork(kmt_probe_fork, NULL);
	unregister_trace_initcall_finish(kmt_probe_initcall_finish, NULL);
	unregister_trace_initcall_start(kmt_probe_initcall_start, NULL);
	unregister_trace_initcall_level(kmt_probe_initcall_level, NULL);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who allocated: the task records (KMT_EV_TASK) followed through a trace,
 * so that every event made in task context is put to a process name
 * (comm) and to the systemd unit of its cgroup.
 */
#ifndef KMT_TASKS_H
#define KMT_TASKS_H

#include "../lib/hashmap.h"
#include "../lib/kmt.h"

struct kmt_phase_stats;

/* A process name and a unit: a row that events are put to. */
struct kmt_who {
	const char *comm;	/* in the trace or static, not NUL-terminated */
	uint32_t comm_len;
	const char *unit;	/* "-": the root cgroup, no unit */
	uint32_t unit_len;
};

/* The fixed rows, before those the task records make. */
enum {
	KMT_WHO_UNKNOWN,	/* a pid no task record named */
	KMT_WHO_SWAPPER,	/* pid 0: the boot, and the idle tasks */
	KMT_WHO_SOFTIRQ,
	KMT_WHO_HARDIRQ,
	KMT_WHO_NMI,
	KMT_WHO_FIXED,
};

/* At most this many rows; more names go to KMT_WHO_UNKNOWN. */
#define KMT_WHO_MAX	(1u << 20)

struct kmt_tasks {
	struct kmt_hm pids;	/* pid + 1 -> row */
	struct kmt_hm rows;	/* hash of the names -> first row with it + 1 */
	struct kmt_who *who;
	size_t nr, cap;
	bool seen;		/* a task record was read, or a snapshot given */
	struct kmt_hm snap;	/* pid + 1 -> index in snap_who + 1 */
	struct kmt_who *snap_who;	/* the tasks at the save */
	size_t nr_snap;
	/* cgroup id -> its unit (val: the string, val2: its length) */
	struct kmt_hm cgroups;
	uint32_t last_pid, last_row;	/* the last task-context lookup */
	bool last_valid;
};

int kmt_tasks_init(struct kmt_tasks *tk);
void kmt_tasks_free(struct kmt_tasks *tk);
/*
 * The tasks at the save (KMT_SEC_TASKS text, kept by the caller): the
 * names of the pids no task record names.  0, -ENOMEM; lines that do not
 * read as "pid<TAB>comm<TAB>cgroup" are skipped.
 */
int kmt_tasks_snapshot(struct kmt_tasks *tk, const char *text, size_t len);
/*
 * The cgroup v2 tree at the save (KMT_SEC_CGROUPS text, kept by the
 * caller): the paths of the cgroup ids that task records give without
 * one.  0, -ENOMEM; lines that do not read as "id<TAB>path" are skipped.
 */
int kmt_tasks_cgroups(struct kmt_tasks *tk, const char *text, size_t len);
/* Follow one KMT_EV_TASK record; -ENOMEM. */
int kmt_tasks_event(struct kmt_tasks *tk, const struct kmt_event *ev);
/* The row of whoever made @ev. */
uint32_t kmt_tasks_row(struct kmt_tasks *tk, const struct kmt_event *ev);
/*
 * The systemd unit of cgroup v2 path @path: its deepest component named
 * like a unit that has a cgroup (.service, .scope, .socket, .mount,
 * .swap), else its deepest .slice, else "-".
 */
void kmt_cgroup_unit(const char *path, uint32_t len, const char **unit,
		     uint32_t *ulen);

#endif

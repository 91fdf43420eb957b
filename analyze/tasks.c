// SPDX-License-Identifier: GPL-2.0
/*
 * Who allocated: see tasks.h.  A task's row changes when it execs, is
 * renamed or moves to another cgroup; a new task starts in its parent's
 * row, or in its own cgroup's when the record names one.  Records name a
 * cgroup by its path (CGROUP and MKDIR records, and NEW and EXEC ones of
 * recorders before the cgroup id) or by its id alone, whose path an
 * earlier record or the tree at the save gives.
 */
#include <string.h>

#include "tasks.h"

/* the root cgroup's "unit": one string, which every row without one shares */
static const char root_unit[] = "-";

static const struct kmt_who fixed[KMT_WHO_FIXED] = {
	[KMT_WHO_UNKNOWN] = { "[unknown task]", 14, root_unit, 1 },
	[KMT_WHO_SWAPPER] = { "swapper", 7, root_unit, 1 },
	[KMT_WHO_SOFTIRQ] = { "[softirq]", 9, root_unit, 1 },
	[KMT_WHO_HARDIRQ] = { "[hardirq]", 9, root_unit, 1 },
	[KMT_WHO_NMI] = { "[nmi]", 5, root_unit, 1 },
};

int kmt_tasks_init(struct kmt_tasks *tk)
{
	memset(tk, 0, sizeof(*tk));
	tk->cap = 64;
	tk->who = malloc(tk->cap * sizeof(*tk->who));
	if (!tk->who || kmt_hm_init(&tk->pids, 1024) || kmt_hm_init(&tk->rows, 256) ||
	    kmt_hm_init(&tk->snap, 16) || kmt_hm_init(&tk->cgroups, 64)) {
		kmt_tasks_free(tk);
		return -ENOMEM;
	}
	memcpy(tk->who, fixed, sizeof(fixed));
	tk->nr = KMT_WHO_FIXED;
	return 0;
}

void kmt_tasks_free(struct kmt_tasks *tk)
{
	kmt_hm_free(&tk->pids);
	kmt_hm_free(&tk->rows);
	kmt_hm_free(&tk->snap);
	kmt_hm_free(&tk->cgroups);
	free(tk->snap_who);
	tk->snap_who = NULL;
	tk->nr_snap = 0;
	free(tk->who);
	tk->who = NULL;
	tk->nr = 0;
}


static bool unit_suffix(const char *s, uint32_t len, bool slice)
{
	static const char *const units[] = {
		".service", ".scope", ".socket", ".mount", ".swap",
	};
	size_t i, n;

	if (slice)
		return len > 6 && !memcmp(s + len - 6, ".slice", 6);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		n = strlen(units[i]);
		if (len > n && !memcmp(s + len - n, units[i], n))
			return true;
	}
	return false;
}

void kmt_cgroup_unit(const char *path, uint32_t len, const char **unit,
		     uint32_t *ulen)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		uint32_t end = len, start;

		while (end) {
			start = end;
			while (start && path[start - 1] != '/')
				start--;
			if (unit_suffix(path + start, end - start, pass)) {
				*unit = path + start;
				*ulen = end - start;
				return;
			}
			end = start ? start - 1 : 0;
		}
	}
	*unit = root_unit;
	*ulen = 1;
}

static uint64_t hash_bytes(uint64_t h, const char *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static bool same(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
	return alen == blen && !memcmp(a, b, alen);
}

/* The row of (@comm, @unit), made if new; KMT_WHO_UNKNOWN when full. */
static int row_of(struct kmt_tasks *tk, const char *comm, uint32_t clen,
		  const char *unit, uint32_t ulen, uint32_t *row)
{
	uint64_t key = hash_bytes(hash_bytes(0xcbf29ce484222325ULL, comm, clen) ^ 0xff,
				  unit, ulen) | 1;
	struct kmt_hm_slot *slot;
	struct kmt_who *w;
	int created;
	size_t i;

	slot = kmt_hm_get(&tk->rows, key, &created);
	if (!slot)
		return -ENOMEM;
	if (!created) {
		w = &tk->who[slot->val];
		if (same(w->comm, w->comm_len, comm, clen) &&
		    same(w->unit, w->unit_len, unit, ulen)) {
			*row = (uint32_t)slot->val;
			return 0;
		}
		/* two names, one hash: look through the rows */
		for (i = KMT_WHO_FIXED; i < tk->nr; i++)
			if (same(tk->who[i].comm, tk->who[i].comm_len, comm, clen) &&
			    same(tk->who[i].unit, tk->who[i].unit_len, unit, ulen)) {
				*row = (uint32_t)i;
				return 0;
			}
	}
	if (tk->nr >= KMT_WHO_MAX) {
		*row = KMT_WHO_UNKNOWN;
		return 0;
	}
	if (tk->nr == tk->cap) {
		w = realloc(tk->who, tk->cap * 2 * sizeof(*w));
		if (!w)
			return -ENOMEM;
		tk->who = w;
		tk->cap *= 2;
	}
	w = &tk->who[tk->nr];
	w->comm = comm;
	w->comm_len = clen;
	w->unit = unit;
	w->unit_len = ulen;
	if (created)
		slot->val = tk->nr;
	*row = (uint32_t)tk->nr++;
	return 0;
}

static int set_row(struct kmt_tasks *tk, uint32_t pid, uint32_t row)
{
	struct kmt_hm_slot *slot;
	int created;

	slot = kmt_hm_get(&tk->pids, (uint64_t)pid + 1, &created);
	if (!slot)
		return -ENOMEM;
	slot->val = row;
	tk->last_valid = false;
	return 0;
}

static uint32_t row_of_pid(const struct kmt_tasks *tk, uint32_t pid)
{
	const struct kmt_hm_slot *slot;

	if (!pid)
		return KMT_WHO_SWAPPER;
	slot = kmt_hm_find(&tk->pids, (uint64_t)pid + 1);
	return slot ? (uint32_t)slot->val : KMT_WHO_UNKNOWN;
}

/* Cgroup @id is @path (@len bytes, kept by the caller): its unit. */
static int cgroup_named(struct kmt_tasks *tk, uint64_t id, const char *path,
			uint32_t len)
{
	struct kmt_hm_slot *slot;
	const char *unit;
	uint32_t ulen;
	int created;

	kmt_cgroup_unit(path, len, &unit, &ulen);
	slot = kmt_hm_get(&tk->cgroups, id, &created);
	if (!slot)
		return -ENOMEM;
	slot->val = (uint64_t)(uintptr_t)unit;
	slot->val2 = ulen;
	return 0;
}

/*
 * The decimal number that is all of [@p, @end), below @limit: a line's
 * first column.  0 when it is not one, or is 0.
 */
static uint64_t column_number(const char *p, const char *end, uint64_t limit)
{
	uint64_t v = 0;

	for (; p < end && *p >= '0' && *p <= '9' && v < limit; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return p == end ? v : 0;
}

int kmt_tasks_cgroups(struct kmt_tasks *tk, const char *text, size_t len)
{
	const char *p = text, *end, *nl, *tab;
	uint64_t id;
	int ret;

	if (!text || !len)
		return 0;
	end = text + len;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		tab = memchr(p, '\t', (size_t)(nl - p));
		if (!tab || tab == p || tab + 1 == nl)
			continue;
		id = column_number(p, tab, 1ULL << 59);
		if (!id)
			continue;
		ret = cgroup_named(tk, id, tab + 1, (uint32_t)(nl - tab - 1));
		if (ret)
			return ret;
	}
	return 0;
}

int kmt_tasks_event(struct kmt_tasks *tk, const struct kmt_event *ev)
{
	const struct kmt_hm_slot *cg;
	const struct kmt_who *w;
	const char *comm, *unit;
	uint32_t clen, ulen, row;
	uint64_t id = 0;
	int ret;

	if (!(ev->has & KMT_HAS(KMT_F_TASK_OP)) || !(ev->has & KMT_HAS(KMT_F_TASK_PID)))
		return 0;
	if (ev->has & KMT_HAS(KMT_F_CGROUP_ID))
		id = ev->cgroup_id;
	if (id && (ev->has & KMT_HAS(KMT_F_CGROUP)) && ev->cgroup_len) {
		ret = cgroup_named(tk, id, ev->cgroup, ev->cgroup_len);
		if (ret)
			return ret;
	}
	if (ev->task_op == KMT_TASK_MKDIR)
		return 0;	/* names a cgroup, not a task */
	tk->seen = true;
	/* what the task was: its names stay unless the record changes them */
	w = &tk->who[ev->task_op == KMT_TASK_NEW ? row_of_pid(tk, ev->ppid) :
		     row_of_pid(tk, ev->task_pid)];
	comm = w->comm;
	clen = w->comm_len;
	unit = w->unit;
	ulen = w->unit_len;
	if ((ev->has & KMT_HAS(KMT_F_COMM)) && ev->comm_len) {
		comm = ev->comm;
		clen = ev->comm_len;
	}
	if ((ev->has & KMT_HAS(KMT_F_CGROUP)) && ev->cgroup_len) {
		kmt_cgroup_unit(ev->cgroup, ev->cgroup_len, &unit, &ulen);
	} else if (id && (cg = kmt_hm_find(&tk->cgroups, id))) {
		unit = (const char *)(uintptr_t)cg->val;
		ulen = (uint32_t)cg->val2;
	}
	/* an id no record nor the save names: the task keeps its unit */
	switch (ev->task_op) {
	case KMT_TASK_NEW:
	case KMT_TASK_EXEC:
	case KMT_TASK_RENAME:
	case KMT_TASK_CGROUP:
		ret = row_of(tk, comm, clen, unit, ulen, &row);
		return ret ?: set_row(tk, ev->task_pid, row);
	default:
		return 0;
	}
}

int kmt_tasks_snapshot(struct kmt_tasks *tk, const char *text, size_t len)
{
	const char *p = text, *end, *nl, *tab1, *tab2;
	struct kmt_hm_slot *slot;
	size_t n = 0, cap = 0;
	struct kmt_who *w;
	uint64_t pid;
	int created;

	if (!text || !len)
		return 0;
	end = text + len;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		tab1 = memchr(p, '\t', (size_t)(nl - p));
		tab2 = tab1 ? memchr(tab1 + 1, '\t', (size_t)(nl - tab1 - 1)) : NULL;
		if (!tab2 || tab1 == p || tab2 == tab1 + 1)
			continue;
		pid = column_number(p, tab1, 1u << 30);
		if (!pid)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			w = realloc(tk->snap_who, cap * sizeof(*w));
			if (!w)
				return -ENOMEM;
			tk->snap_who = w;
		}
		slot = kmt_hm_get(&tk->snap, pid + 1, &created);
		if (!slot)
			return -ENOMEM;
		w = &tk->snap_who[n];
		w->comm = tab1 + 1;
		w->comm_len = (uint32_t)(tab2 - tab1 - 1);
		kmt_cgroup_unit(tab2 + 1, (uint32_t)(nl - tab2 - 1), &w->unit,
				&w->unit_len);
		slot->val = ++n;	/* a pid twice: the last line wins */
		tk->nr_snap = n;
	}
	if (n)
		tk->seen = true;
	return 0;
}

/* A pid no record named, by its name at the save; KMT_WHO_UNKNOWN if none. */
static uint32_t row_of_snapshot(struct kmt_tasks *tk, uint32_t pid)
{
	const struct kmt_hm_slot *slot;
	const struct kmt_who *w;
	uint32_t row;

	if (!tk->nr_snap || !pid)
		return KMT_WHO_UNKNOWN;
	slot = kmt_hm_find(&tk->snap, (uint64_t)pid + 1);
	if (!slot)
		return KMT_WHO_UNKNOWN;
	w = &tk->snap_who[slot->val - 1];
	if (row_of(tk, w->comm, w->comm_len, w->unit, w->unit_len, &row) ||
	    set_row(tk, pid, row))
		return KMT_WHO_UNKNOWN;
	return row;
}

uint32_t kmt_tasks_row(struct kmt_tasks *tk, const struct kmt_event *ev)
{
	switch (ev->ctx) {
	case KMT_CTX_SOFTIRQ: return KMT_WHO_SOFTIRQ;
	case KMT_CTX_HARDIRQ: return KMT_WHO_HARDIRQ;
	case KMT_CTX_NMI: return KMT_WHO_NMI;
	default: break;
	}
	if (!tk->seen)	/* no task named yet: nothing to look up */
		return ev->pid ? KMT_WHO_UNKNOWN : KMT_WHO_SWAPPER;
	if (!tk->last_valid || tk->last_pid != ev->pid) {
		uint32_t row = row_of_pid(tk, ev->pid);

		if (row == KMT_WHO_UNKNOWN)
			row = row_of_snapshot(tk, ev->pid);
		tk->last_pid = ev->pid;
		tk->last_row = row;
		tk->last_valid = true;
	}
	return tk->last_row;
}

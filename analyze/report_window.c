// SPDX-License-Identifier: GPL-2.0
/*
 * report --window: the flight recorder's window, up to the trigger that
 * froze it.  What froze it (the KMT_MARK_FROZEN record), the time every
 * CPU has events for, and the range the tables cover.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* The frames of the way to a trigger, besides the page allocator's. */
static const char *const trigger_exact[] = {
	"out_of_memory", "oom_kill_process", "mem_cgroup_out_of_memory",
	"mem_cgroup_oom", "try_charge_memcg", "warn_alloc", "kmt_freeze",
	"new_slab", "___slab_alloc", "__slab_alloc", "slab_alloc_node",
	"kmalloc_trace_noprof", "kmalloc_node_trace_noprof",
};

static const char *const trigger_prefix[] = {
	"kmem_cache_alloc", "__kmalloc", "kmalloc_", "__kmemtrace_", "kmt_",
	"__alloc_pages", "alloc_pages",
};

static bool matches(const char *name, size_t len, const char *const *exact,
		    size_t nr_exact, const char *const *prefix, size_t nr_prefix)
{
	const char *dot = memchr(name, '.', len);
	size_t i, l;

	if (dot)
		len = (size_t)(dot - name);
	for (i = 0; i < nr_exact; i++)
		if (strlen(exact[i]) == len && !memcmp(name, exact[i], len))
			return true;
	for (i = 0; i < nr_prefix; i++) {
		l = strlen(prefix[i]);
		if (l <= len && !memcmp(name, prefix[i], l))
			return true;
	}
	return false;
}

static bool trigger_internal(const struct kmt_symtab *st, uint64_t addr)
{
	const char *const *exact, *const *prefix;
	const struct kmt_sym *s;
	size_t ne, np;

	s = st ? kmt_symtab_find(st, addr - (uint64_t)st->slide) : NULL;
	if (!s)
		return false;
	kmt_page_internal_names(&exact, &ne, &prefix, &np);
	return matches(s->name, s->name_len, exact, ne, prefix, np) ||
	       matches(s->name, s->name_len, trigger_exact,
		       sizeof(trigger_exact) / sizeof(trigger_exact[0]),
		       trigger_prefix,
		       sizeof(trigger_prefix) / sizeof(trigger_prefix[0]));
}

uint64_t kmt_trigger_caller(const struct kmt_trace *t, const struct kmt_symtab *st,
			    const uint8_t *stack, size_t len)
{
	const uint8_t *p = stack, *end = stack + len;
	uint64_t v, addr;
	unsigned int n;

	while (p < end && (n = kmt_get_uvar(p, end, &v))) {
		p += n;
		addr = t->fmt.text_base + (uint64_t)kmt_unzigzag(v);
		if (!trigger_internal(st, addr))
			return addr;
	}
	return 0;
}

/* The last reclaim_begin of a few recent pids: a stall names its task. */
void kmt_window_note_begin(struct kmt_window *w, uint32_t pid, uint64_t ts)
{
	unsigned int i, slot = w->nr_begins % KMT_WINDOW_BEGINS;

	for (i = 0; i < KMT_WINDOW_BEGINS && i < w->nr_begins; i++)
		if (w->begins[i].pid == pid) {
			w->begins[i].ts = ts;
			return;
		}
	w->begins[slot].pid = pid;
	w->begins[slot].ts = ts;
	w->nr_begins++;
}

uint64_t kmt_window_begin_of(const struct kmt_window *w, uint32_t pid)
{
	unsigned int i;

	for (i = 0; i < KMT_WINDOW_BEGINS && i < w->nr_begins; i++)
		if (w->begins[i].pid == pid)
			return w->begins[i].ts;
	return 0;
}

int kmt_window_find(const struct kmt_trace *t, uint64_t before,
		    struct kmt_window *w, struct kmt_err *err)
{
	struct kmt_merge m;
	struct kmt_event ev;
	unsigned int i;
	int ret;

	memset(w, 0, sizeof(*w));
	if (!t->flight.present)
		return kmt_errf(err, EINVAL,
				"no flight-recorder window: the file was not saved from a recorder with flight mode (kmemtrace.mode=flight, then kmemflight watch or save)");
	for (i = 0; i < t->nr_cpus; i++) {
		const struct kmt_cpu_info *c = &t->cpus[i];

		w->overwritten += c->overwritten;
		if (!c->window_end)
			continue;
		if (c->window_start >= w->complete) {
			w->complete = c->window_start;
			w->late_cpu = c->cpu;
		}
		if (c->window_end > w->end)
			w->end = c->window_end;
		if (!w->first || c->window_start < w->first)
			w->first = c->window_start;
	}
	if (!w->end)
		return kmt_errf(err, ENODATA, "the window holds no events");
	if (t->flight.trigger && t->flight.trigger_ts)
		w->end = t->flight.trigger_ts;
	if (before)
		w->start = w->end > before ? w->end - before : 0;
	else
		w->start = w->complete;
	ret = kmt_merge_init(&m, t, err);
	if (ret)
		return ret;
	while ((ret = kmt_merge_next(&m, &ev, err)) > 0) {
		if (ev.type == KMT_EV_MARK && ev.mark == KMT_MARK_FROZEN) {
			w->trig = ev;
			w->have_trig = true;
		}
		/* the last direct reclaim each task began: a stall's start */
		if (ev.type == KMT_EV_RECLAIM_BEGIN && ev.ctx == KMT_CTX_TASK &&
		    !w->have_trig)
			kmt_window_note_begin(w, ev.pid, ev.ts);
	}
	kmt_merge_free(&m);
	if (w->have_trig && w->trig.trigger == KMT_TRIG_RECLAIM_STALL)
		w->stall_begin = kmt_window_begin_of(w, w->trig.task_pid);
	return ret < 0 ? ret : 0;
}

static void secs(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u,
		 ns % 1000000000u);
}

void kmt_window_print(const struct kmt_trace *t, const struct kmt_symtab *st,
		      const struct kmt_window *w, bool raw)
{
	const struct kmt_flight *f = &t->flight;
	const struct kmt_event *e = &w->trig;
	char a[32], b[32], c[32], name[256], gfp[256];
	uint64_t caller;

	secs(a, sizeof(a), f->trigger_ts);
	if (!f->trigger)
		printf("Trigger:   none: the recorder was not frozen (%s mode); the window ends %s\n",
		       kmt_mode_name(f->mode),
		       kmt_trace_meta(t, "boot", name, sizeof(name)) &&
		       !strcmp(name, "previous") ?
		       "where that boot stopped (a reset or a reboot: save --previous)" :
		       "at the save");
	else if (f->trigger == KMT_TRIG_PANIC)
		printf("Trigger:   panic at %s s; panic() had stopped the other CPUs before it\n",
		       a);
	else
		printf("Trigger:   %s at %s s; every CPU stopped %" PRIu64 " ns later\n",
		       kmt_trigger_name(f->trigger), a,
		       f->frozen_ts > f->trigger_ts ? f->frozen_ts - f->trigger_ts : 0);
	if (w->have_trig) {
		if (e->trigger == KMT_TRIG_OOM || e->trigger == KMT_TRIG_MEMCG_OOM)
			printf("Victim:    pid %u (%.*s)\n", e->task_pid,
			       (int)e->comm_len, e->comm);
		else if (e->task_pid)
			printf("Task:      pid %u (%.*s)\n", e->task_pid,
			       (int)e->comm_len, e->comm);
		kmt_gfp_format(t, e->gfp, gfp, sizeof(gfp));
		if (e->trigger == KMT_TRIG_PANIC)
			printf("Panic:     the kernel panicked");
		else if (e->order == 255)	/* the kernel's mark of a forced OOM kill */
			printf("Request:   none: a forced OOM kill (sysrq), %s", gfp);
		else
			printf("Request:   order %u, %s", e->order, gfp);
		if (e->cache) {
			char cname[KMT_MAX_NAME + 16];

			kmt_cache_name(t, e->cache, 0, cname, sizeof(cname));
			printf(", cache %s", cname);
		}
		/* a panic's stack starts at panic()'s caller: that is the one */
		if (e->trigger == KMT_TRIG_PANIC) {
			uint64_t v;

			caller = e->stack_len &&
				 kmt_get_uvar(e->stack, e->stack + e->stack_len, &v) ?
				 t->fmt.text_base + (uint64_t)kmt_unzigzag(v) : 0;
		} else {
			caller = kmt_trigger_caller(t, st, e->stack, e->stack_len);
		}
		if (caller) {
			kmt_symtab_format(st, caller, raw, name, sizeof(name));
			printf(", from %s", name);
		}
		printf("\n");
		if (e->trigger == KMT_TRIG_RECLAIM_STALL && w->stall_begin &&
		    w->stall_begin <= f->trigger_ts) {
			secs(b, sizeof(b), w->stall_begin);
			printf("Stall:     direct reclaim from %s s, %" PRIu64
			       " us before the trigger\n", b,
			       (f->trigger_ts - w->stall_begin) / 1000u);
		}
	}
	secs(a, sizeof(a), w->first);
	secs(b, sizeof(b), w->complete);
	secs(c, sizeof(c), w->end);
	printf("Window:    %s s to %s s on every CPU", b, c);
	if (w->first < w->complete && w->overwritten)
		printf(" (from %s s on some; cpu %u overwrote the most recently)", a,
		       w->late_cpu);
	else if (w->first < w->complete)
		printf(" (from %s s on some; cpu %u's events start the latest)", a,
		       w->late_cpu);
	printf("; %" PRIu64 " events were overwritten before it\n", w->overwritten);
	secs(a, sizeof(a), w->start);
	secs(b, sizeof(b), w->end > w->start ? w->end - w->start : 0);
	printf("Shown:     from %s s, the %s s before %s%s\n", a, b,
	       f->trigger ? "the trigger" : "the save",
	       w->start < w->complete ?
	       " (the start has events of only some CPUs: the others' were overwritten)" : "");
}

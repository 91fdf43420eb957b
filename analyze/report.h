/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_REPORT_H
#define KMT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "slab.h"

struct report_opts {
	const char *path;
	const char *vmlinux;	/* symbols from this image, not kallsyms */
	bool slab;
	bool page;
	bool live;
	bool phase;
	bool caller;
	bool alloc;
	bool json;
	bool csv;
	uint64_t start, end;	/* --time / --at, ns, inclusive */
	bool raw_ip;
	long lines;
	enum kmt_slab_key keys[KMT_SLAB_MAX_KEYS];
	unsigned int nr_keys;
	enum kmt_page_key pkeys[KMT_SLAB_MAX_KEYS];
	unsigned int nr_pkeys;
	bool verbose;
	bool latency;
	uint64_t threshold;	/* --latency: ns */
	bool memblock;
	bool footprint;
	bool window;
	uint64_t before;	/* --window --before: ns, 0: the whole window */
};

/*
 * Times since boot for --time and --at: decimal seconds, or with a unit
 * s, ms, us, ns, exact to the nanosecond; "start,end" with either left
 * out.  0 or -EINVAL.
 */
int kmt_parse_time(const char *s, size_t len, uint64_t *ns);
int kmt_parse_range(const char *s, uint64_t *start, uint64_t *end);
/*
 * The CLI's --time (@at false) or --at: 0 with the range set, or the
 * usage error printed and KMF_EXIT_USAGE.  *@given (0 before the first)
 * remembers which of the two came, so that both are refused.
 */
int kmf_time_option(bool at, const char *arg, unsigned int *given,
		    uint64_t *start, uint64_t *end);

/*
 * The CLI's names for @t's addresses: @vmlinux's (opened into @vm, its
 * build-id checked against the trace's), or else the trace's kallsyms
 * (loaded into @st).  Prints its errors and warnings; 0 with *sym set,
 * or -1.
 */
struct kmt_vmlinux;
int kmf_symbols(const struct kmt_trace *t, const char *path, const char *vmlinux,
		bool raw_ip, struct kmt_symtab *st, struct kmt_vmlinux *vm,
		const struct kmt_symtab **sym);

/* --window: the flight recorder's window up to its trigger. */
#define KMT_WINDOW_BEGINS	16
struct kmt_window {
	struct { uint32_t pid; uint64_t ts; } begins[KMT_WINDOW_BEGINS];
	unsigned int nr_begins;
	uint64_t first;		/* the oldest event kept on any CPU */
	uint64_t complete;	/* from here every CPU has its events */
	unsigned int late_cpu;	/* the CPU whose window starts there */
	uint64_t end;		/* the trigger, or the newest event */
	uint64_t start;		/* what the tables cover: start to end */
	uint64_t overwritten;	/* events overwritten before the window */
	bool have_trig;
	struct kmt_event trig;	/* the KMT_MARK_FROZEN record */
	uint64_t stall_begin;	/* reclaim_stall: its reclaim_begin, 0: not found */
};

/*
 * The window of a flight-recorder save, and the tables' range: the
 * @before ns before its end, or (0) where every CPU has events.  0, or a
 * negative errno with @err set (a file saved in boot mode).
 */
int kmt_window_find(const struct kmt_trace *t, uint64_t before,
		    struct kmt_window *w, struct kmt_err *err);
void kmt_window_note_begin(struct kmt_window *w, uint32_t pid, uint64_t ts);
uint64_t kmt_window_begin_of(const struct kmt_window *w, uint32_t pid);
void kmt_window_print(const struct kmt_trace *t, const struct kmt_symtab *st,
		      const struct kmt_window *w, bool raw);
/* The caller a trigger's stack names: its first frame outside the allocators. */
uint64_t kmt_trigger_caller(const struct kmt_trace *t, const struct kmt_symtab *st,
			    const uint8_t *stack, size_t len);

/*
 * The views of a report for scripts: one JSON document, or CSV tables
 * each after a "# table: NAME" line.  Field names are stable.
 */
void kmt_report_json(FILE *f, const struct kmt_trace *t, const struct kmt_slab *s,
		     const struct kmt_symtab *st, const struct report_opts *o);
void kmt_report_csv(FILE *f, const struct kmt_trace *t, const struct kmt_slab *s,
		    const struct kmt_symtab *st, const struct report_opts *o);

/*
 * JSON writers for every --json of the tool: a string with the escapes
 * JSON needs (len bytes, NUL or not), and members of an object, each
 * after a ", " but the first.
 */
void kmt_json_str(FILE *f, const char *s, size_t len);
void kmt_json_key(FILE *f, bool *first, const char *key);
void kmt_json_u64(FILE *f, bool *first, const char *key, uint64_t v);

/*
 * The members every report --json document starts with, whatever its
 * view: "kmemflight_report" (the version of the document), "file" and
 * "first_ns" and "last_ns", the span of the events the view took.  The
 * object is left open: each member after them follows a ",".  The
 * version changes only when a member is renamed, removed or changes
 * meaning; members are added without it.
 */
#define KMT_REPORT_JSON_VERSION	1
void kmt_report_json_head(FILE *f, const char *path, uint64_t first,
			  uint64_t last);

/*
 * Text tables: the first column is KMT_NAME_COL wide, or as wide as the
 * longest name it shows (kmt_name_width), so that a long callsite moves
 * the columns of every row alike; kmt_rule prints a rule of @len dashes.
 */
#define KMT_NAME_COL	34
int kmt_name_width(int width, const char *name);
void kmt_rule(int len);

/* "dentry", "kmalloc size 64" or "cache N": a row of the --live caches. */
void kmt_cache_label(const struct kmt_trace *t, const struct kmt_live_cache *c,
		     char *buf, size_t size);

/*
 * --latency: the tables of allocation latency.  0, or a negative errno
 * with @err set (a trace that did not record the latency groups).
 */
int kmt_report_latency(const struct kmt_trace *t, const struct kmt_symtab *st,
		       const struct report_opts *o, const char *path,
		       struct kmt_err *err);

/*
 * --memblock: the boot memory memblock handed out, by caller.  0, or a
 * negative errno with @err set (a trace without memblock records).
 */
int kmt_report_memblock(const struct kmt_trace *t, const struct kmt_symtab *st,
			const struct report_opts *o, const char *path,
			struct kmt_err *err);
/*
 * The warnings of the views that count what memblock and the pages hold
 * (--memblock, --footprint): events lost while recording, and the early
 * memblock and page events the kernel's arrays had no room for.
 */
struct kmt_memblock;
void kmt_memblock_warn(const struct kmt_trace *t, const struct kmt_memblock *mb);

/*
 * --footprint: the memory at the save, the trace against the kernel's
 * totals.  0, or a negative errno with @err set (a trace without them).
 */
int kmt_report_footprint(const struct kmt_trace *t, const struct kmt_symtab *st,
			 const struct report_opts *o, const char *path,
			 struct kmt_err *err);

#endif

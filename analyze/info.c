// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight info and kmemflight dump: what a trace holds, and its raw
 * events one per line.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/cli.h"
#include "../lib/kmt.h"
#include "latency.h"
#include "report.h"

/* info's and dump's options: @raw, @seconds and @json NULL where not taken. */
static int one_file_args(int argc, char **argv, const char *usage_text,
			 bool *raw, bool *seconds, bool *json, const char **path)
{
	static const struct option longopts[] = {
		{ "raw-ip", no_argument, NULL, 'r' },
		{ "seconds", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (!raw)
				return kmf_usage_error("unknown option '--raw-ip'");
			*raw = true;
			break;
		case 'S':
			if (!seconds)
				return kmf_usage_error("unknown option '--seconds'");
			*seconds = true;
			break;
		case 'j':
			if (!json)
				return kmf_usage_error("unknown option '--json'");
			*json = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			return kmf_option_error(longopts, "h", optopt,
						argv[optind - 1], NULL);
		}
	}
	if (optind != argc - 1)
		return kmf_usage_error(optind == argc ? "missing <file>" :
				       "one <file> only");
	*path = argv[optind];
	return 0;
}

static const char *const group_names[KMT_NR_GROUPS] = {
	"kmem", "boot", "reclaim", "compaction",
};

/*
 * The event groups the recorder recorded (kmemtrace.events=), from its
 * groups records: false for a trace without them (an older recorder,
 * ftrace, perf).  The trace was validated: a decoding error ends it.
 */
static bool trace_groups(const struct kmt_trace *t, uint32_t *groups)
{
	struct kmt_cursor c;
	struct kmt_event ev;
	struct kmt_err err;
	unsigned int i;
	bool seen = false;

	*groups = 0;
	if (!t->layout[KMT_EV_GROUPS].present)
		return false;
	for (i = 0; i < t->nr_cpus; i++) {
		kmt_cursor_init_cpu(&c, t, i);
		while (kmt_cursor_next(&c, &ev, &err) > 0) {
			if (ev.type != KMT_EV_GROUPS || !(ev.has & KMT_HAS(KMT_F_GROUPS)))
				continue;
			*groups |= ev.groups;
			seen = true;
		}
	}
	return seen;
}

static void print_groups(const struct kmt_trace *t)
{
	uint32_t groups;
	unsigned int i, n = 0;

	if (!trace_groups(t, &groups))
		return;
	printf("groups:      ");
	for (i = 0; i < KMT_NR_GROUPS; i++)
		if (groups & (1u << i))
			printf("%s%s", n++ ? "," : "", group_names[i]);
	printf("%s (kmemtrace.events=)\n", n ? "" : "none");
}

/* Lines of @len bytes of text (a last one without its newline too). */
static size_t count_lines(const char *text, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n + (len && text[len - 1] != '\n');
}

/* The recorder's mode at the save, and the trigger that froze it. */
static void print_flight(const struct kmt_trace *t)
{
	const struct kmt_flight *f = &t->flight;

	if (!f->present)
		return;
	printf("mode:        %s%s\n", kmt_mode_name(f->mode),
	       f->mode == KMT_MODE_FLIGHT ?
	       " (round-robin: the latest events are kept)" :
	       " (the earliest events are kept)");
	if (!f->trigger) {
		printf("frozen:      no\n");
		return;
	}
	printf("frozen:      by %s at %" PRIu64 ".%06" PRIu64
	       " s, every CPU stopped %" PRIu64 " ns later\n",
	       kmt_trigger_name(f->trigger), f->trigger_ts / 1000000000u,
	       f->trigger_ts % 1000000000u / 1000u,
	       f->frozen_ts >= f->trigger_ts ? f->frozen_ts - f->trigger_ts : 0);
}

/* ",\n  KEY: ": a member of info's document, one a line. */
static void json_member(const char *key)
{
	printf(",\n  \"%s\": ", key);
}

static void json_text(const char *s)
{
	kmt_json_str(stdout, s, strlen(s));
}

/* A member from the file's metadata: its text, or null without it. */
static void json_meta(const struct kmt_trace *t, const char *key, char *val,
		      size_t size)
{
	json_member(key);
	if (kmt_trace_meta(t, key, val, size))
		json_text(val);
	else
		printf("null");
}

static void json_null_or_u64(bool *first, const char *key, bool have,
			     uint64_t v)
{
	kmt_json_key(stdout, first, key);
	if (have)
		printf("%" PRIu64, v);
	else
		printf("null");
}

/*
 * info --json: what the text says, one member per line, numbers as
 * numbers; what the text leaves out for want of it is null.  The
 * members are documented in kmemflight-info(1): add, never rename.
 */
#define KMT_INFO_JSON_VERSION	1

/* The file and its metadata: the lines from "file:" to "addresses:". */
static void json_info_file(const struct kmt_trace *t, const char *path)
{
	char val[4096];
	bool first;

	json_member("file");
	json_text(path);
	json_member("file_bytes");
	printf("%zu", t->len);
	/* a file cut short: the size its header gives, else null */
	json_member("header_file_bytes");
	if (t->cut.file_size)
		printf("%" PRIu64, t->cut.file_size);
	else
		printf("null");
	json_member("byte_order");
	json_text(t->swap ? "foreign" : "native");
	json_meta(t, "release", val, sizeof(val));
	/* "" where the kernel had none: the text's "(none)" */
	json_meta(t, "build_id", val, sizeof(val));
	json_meta(t, "cmdline", val, sizeof(val));
	json_meta(t, "saved_at", val, sizeof(val));
	json_member("previous_boot");
	printf("%s", kmt_trace_meta(t, "boot", val, sizeof(val)) &&
	       !strcmp(val, "previous") ? "true" : "false");
	json_meta(t, "source", val, sizeof(val));
	json_member("ftrace");
	if (kmt_trace_meta(t, "source", val, sizeof(val)) && !strcmp(val, "ftrace")) {
		first = true;
		printf("{");
		kmt_json_key(stdout, &first, "instance");
		if (!kmt_trace_meta(t, "ftrace_instance", val, sizeof(val)))
			val[0] = '\0';
		json_text(val);
		kmt_json_key(stdout, &first, "overwrite");
		printf("%s", kmt_trace_meta(t, "ftrace_overwrite", val, sizeof(val)) &&
		       !strcmp(val, "1") ? "true" : "false");
		kmt_json_key(stdout, &first, "events");
		if (!kmt_trace_meta(t, "ftrace_events", val, sizeof(val)))
			val[0] = '\0';
		json_text(val);
		printf("}");
	} else {
		printf("null");
	}
	json_meta(t, "attach", val, sizeof(val));
	json_member("addresses");
	json_text(kmt_trace_meta(t, "addresses", val, sizeof(val)) &&
		  !strcmp(val, "relative") ? "relative" : "absolute");
}

/* The recorder and the sections: the lines from "recorder:" to "symbols:". */
static void json_info_recorder(const struct kmt_trace *t)
{
	const struct kmt_flight *fl = &t->flight;
	uint64_t mem_total, mem_free;
	char val[16];
	uint32_t groups;
	unsigned int g;
	bool first;

	json_member("recorder");
	first = true;
	printf("{");
	kmt_json_u64(stdout, &first, "abi", t->fmt.abi_version);
	kmt_json_u64(stdout, &first, "word_bits", t->fmt.word_size * 8u);
	kmt_json_u64(stdout, &first, "subbufs",
		     t->fmt.pool_subbufs ? t->fmt.pool_subbufs : t->fmt.nr_subbufs);
	kmt_json_u64(stdout, &first, "subbuf_size", t->fmt.subbuf_size);
	kmt_json_key(stdout, &first, "pool");
	printf("%s", t->fmt.pool_subbufs ? "true" : "false");
	kmt_json_key(stdout, &first, "clock");
	kmt_json_str(stdout, t->fmt.clock, strnlen(t->fmt.clock, 16));
	printf("}");

	json_member("groups");
	if (trace_groups(t, &groups)) {
		printf("[");
		for (g = 0, first = true; g < KMT_NR_GROUPS; g++) {
			if (!(groups & (1u << g)))
				continue;
			printf("%s", first ? "" : ", ");
			json_text(group_names[g]);
			first = false;
		}
		printf("]");
	} else {
		printf("null");
	}

	json_member("buffers");
	first = true;
	if (kmt_trace_meta(t, "pool", val, sizeof(val)) && !strcmp(val, "region")) {
		printf("{\"kind\": \"region\"");
		first = false;
		kmt_json_u64(stdout, &first, "bytes",
			     (uint64_t)t->fmt.pool_subbufs * t->fmt.subbuf_size);
		json_null_or_u64(&first, "held_bytes", false, 0);
		json_null_or_u64(&first, "cpus", false, 0);
		json_null_or_u64(&first, "possible_cpus", false, 0);
		printf("}");
	} else if (t->fmt.pool_subbufs || t->has_buffers) {
		printf("{\"kind\": \"%s\"", t->fmt.pool_subbufs ? "pool" : "per_cpu");
		first = false;
		kmt_json_u64(stdout, &first, "bytes", t->fmt.pool_subbufs ?
			     kmt_trace_buffer_bytes(t) : t->buffer_bytes);
		json_null_or_u64(&first, "held_bytes", t->fmt.pool_subbufs,
				 t->buffer_bytes);
		kmt_json_u64(stdout, &first, "cpus", t->nr_buffered);
		kmt_json_u64(stdout, &first, "possible_cpus", t->nr_possible);
		printf("}");
	} else {
		printf("null");
	}

	json_member("meminfo");
	if (kmt_trace_meminfo(t, "MemTotal", &mem_total) &&
	    kmt_trace_meminfo(t, "MemFree", &mem_free))
		printf("{\"mem_total\": %" PRIu64 ", \"mem_free\": %" PRIu64
		       ", \"vmstat\": %s}", mem_total, mem_free,
		       t->vmstat ? "true" : "false");
	else
		printf("null");
	json_member("tasks");
	if (t->tasks_len || t->cgroups_len)
		printf("{\"tasks\": %zu, \"cgroups\": %zu}",
		       count_lines(t->tasks, t->tasks_len),
		       count_lines(t->cgroups, t->cgroups_len));
	else
		printf("null");

	json_member("mode");
	if (fl->present)
		json_text(kmt_mode_name(fl->mode));
	else
		printf("null");
	json_member("frozen");
	if (fl->present && fl->trigger) {
		printf("{\"by\": ");
		json_text(kmt_trigger_name(fl->trigger));
		printf(", \"at_ns\": %" PRIu64 ", \"stopped_after_ns\": %" PRIu64 "}",
		       fl->trigger_ts, fl->frozen_ts >= fl->trigger_ts ?
		       fl->frozen_ts - fl->trigger_ts : 0);
	} else {
		printf("null");
	}
	json_member("caches");
	printf("%u", t->nr_caches);
	json_member("nodes");
	printf("%u", t->nr_nodes);
	json_member("symbols");
	if (t->kallsyms)
		printf("{\"count\": %zu, \"bytes\": %zu, \"stored_bytes\": %" PRIu64
		       ", \"zstd\": %s}", count_lines(t->kallsyms, t->kallsyms_len),
		       t->kallsyms_len, t->kallsyms_stored,
		       t->kallsyms_zstd ? "true" : "false");
	else
		printf("null");
}

/* The events: the "time:" line, the table, "bytes/event:". */
/* The per-CPU table's total row: what the text and the JSON both give. */
struct cpu_totals {
	uint64_t in_file, kernel, lost, overwritten, frozen, bytes;
};

static void cpu_totals(const struct kmt_trace *t, const uint64_t *n,
		       struct cpu_totals *tt)
{
	unsigned int i;

	memset(tt, 0, sizeof(*tt));
	for (i = 0; i < t->nr_cpus; i++) {
		tt->in_file += n[i];
		tt->kernel += t->cpus[i].events;
		tt->lost += t->cpus[i].lost;
		tt->overwritten += t->cpus[i].overwritten;
		tt->frozen += t->cpus[i].frozen_dropped;
		tt->bytes += t->cpus[i].size;
	}
}

static void json_info_events(const struct kmt_trace *t, const uint64_t *n,
			     uint64_t first_ts, uint64_t last_ts)
{
	const struct kmt_flight *fl = &t->flight;
	struct cpu_totals tt;
	unsigned int i;
	bool first;

	/* null without events */
	json_member("first_ns");
	if (first_ts <= last_ts)
		printf("%" PRIu64 ", \"last_ns\": %" PRIu64 ", \"span_ns\": %" PRIu64,
		       first_ts, last_ts, last_ts - first_ts);
	else
		printf("null, \"last_ns\": null, \"span_ns\": null");

	json_member("cpus");
	printf("[");
	for (i = 0; i < t->nr_cpus; i++) {
		const struct kmt_cpu_info *c = &t->cpus[i];
		bool win = fl->present && c->window_end;

		first = true;
		printf("%s\n    {", i ? "," : "");
		kmt_json_u64(stdout, &first, "cpu", c->cpu);
		kmt_json_key(stdout, &first, "node");
		printf("%d", c->node);
		kmt_json_u64(stdout, &first, "subbufs", c->nr_subbufs);
		kmt_json_u64(stdout, &first, "kernel", c->events);
		kmt_json_u64(stdout, &first, "in_file", n[i]);
		kmt_json_u64(stdout, &first, "lost", c->lost);
		json_null_or_u64(&first, "overwritten", fl->present, c->overwritten);
		json_null_or_u64(&first, "frozen_dropped", fl->present, c->frozen_dropped);
		json_null_or_u64(&first, "window_start_ns", win, c->window_start);
		json_null_or_u64(&first, "window_end_ns", win, c->window_end);
		printf("}");
	}
	printf("%s]", t->nr_cpus ? "\n  " : "");
	cpu_totals(t, n, &tt);
	json_member("total");
	first = true;
	printf("{");
	kmt_json_u64(stdout, &first, "kernel", tt.kernel);
	kmt_json_u64(stdout, &first, "in_file", tt.in_file);
	kmt_json_u64(stdout, &first, "lost", tt.lost);
	json_null_or_u64(&first, "overwritten", fl->present, tt.overwritten);
	json_null_or_u64(&first, "frozen_dropped", fl->present, tt.frozen);
	printf("}");
	json_member("bytes_per_event");
	if (tt.in_file)
		printf("{\"subbufs\": %.2f, \"file\": %.2f}",
		       (double)tt.bytes / (double)tt.in_file,
		       (double)t->len / (double)tt.in_file);
	else
		printf("null");
}

static void json_info(const struct kmt_trace *t, const char *path,
		      const uint64_t *n, uint64_t first_ts, uint64_t last_ts)
{
	printf("{\"kmemflight_info\": %d", KMT_INFO_JSON_VERSION);
	json_info_file(t, path);
	json_info_recorder(t);
	json_info_events(t, n, first_ts, last_ts);
	printf("\n}\n");
}

int cmd_info(int argc, char **argv)
{
	static const char usage_text[] =
		"usage: kmemflight info [--json] <file>\n"
		"\n"
		"Print what a saved trace holds: the recording kernel, the format, the\n"
		"times of the earliest and the latest event (s since boot) and the span\n"
		"between them, and per CPU the sub-buffers, the events the kernel\n"
		"counted, the events in the file and the events lost.\n"
		"\n"
		"    --json       the same as one JSON document, the times in ns\n"
		"    -h, --help   this help\n";
	struct kmt_trace t;
	struct kmt_err err = { "" };
	const char *path;
	struct cpu_totals tt;
	uint64_t *n;
	uint64_t first, last;
	char val[4096], boot[16];
	unsigned int i;
	bool json = false;
	int ret;

	ret = one_file_args(argc, argv, usage_text, NULL, NULL, &json, &path);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	ret = kmt_trace_open_flags(path, KMT_OPEN_TRUNCATED, &t, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_FAIL;
	}
	kmf_note_coverage(&t);
	n = calloc(t.nr_cpus, sizeof(*n));
	if (!n) {
		kmt_trace_close(&t);
		kmf_error("out of memory");
		return KMF_EXIT_FAIL;
	}
	ret = kmt_trace_span(&t, n, &first, &last, &err);
	if (ret) {
		kmf_error("%s: %s", path, err.msg);
		kmf_warn_cut(path, &t);
		free(n);
		kmt_trace_close(&t);
		return KMF_EXIT_FAIL;
	}
	if (json) {
		json_info(&t, path, n, first, last);
		ret = kmf_warn_cut(path, &t) ? KMF_EXIT_FAIL : KMF_EXIT_OK;
		free(n);
		kmt_trace_close(&t);
		return ret;
	}
	if (t.cut.file_size)
		printf("file:        %s (%zu bytes, cut: its header says %" PRIu64
		       "; %s byte order)\n", path, t.len, t.cut.file_size,
		       t.swap ? "foreign" : "native");
	else
		printf("file:        %s (%zu bytes, %s byte order)\n", path, t.len,
		       t.swap ? "foreign" : "native");
	if (kmt_trace_meta(&t, "release", val, sizeof(val)))
		printf("release:     %s\n", val);
	if (kmt_trace_meta(&t, "build_id", val, sizeof(val)))
		printf("build-id:    %s\n", val[0] ? val : "(none)");
	if (kmt_trace_meta(&t, "cmdline", val, sizeof(val)))
		printf("cmdline:     %s\n", val);
	if (kmt_trace_meta(&t, "saved_at", val, sizeof(val)))
		printf("saved:       %s%s\n", val,
		       kmt_trace_meta(&t, "boot", boot, sizeof(boot)) &&
		       !strcmp(boot, "previous") ?
		       ", by the boot after the one recorded (save --previous)" : "");
	if (kmt_trace_meta(&t, "source", val, sizeof(val)) && !strcmp(val, "ftrace")) {
		char inst[256] = "", ev[512] = "", ow[8] = "";

		kmt_trace_meta(&t, "ftrace_instance", inst, sizeof(inst));
		kmt_trace_meta(&t, "ftrace_events", ev, sizeof(ev));
		kmt_trace_meta(&t, "ftrace_overwrite", ow, sizeof(ow));
		printf("source:      ftrace, %s%s, %s mode; events: %s\n",
		       inst[0] ? "instance " : "top instance", inst,
		       !strcmp(ow, "1") ? "overwrite" : "nooverwrite",
		       ev[0] ? ev : "(none enabled at save)");
	} else if (kmt_trace_meta(&t, "source", val, sizeof(val))) {
		printf("source:      %s\n", val);
	}
	if (kmt_trace_meta(&t, "attach", val, sizeof(val)))
		printf("attach:      %s\n", val);
	if (kmt_trace_meta(&t, "addresses", val, sizeof(val)) && !strcmp(val, "relative"))
		printf("addresses:   relative to _stext and the direct map (saved with --no-addresses)\n");
	printf("recorder:    ABI %u, %u-bit, %u x %u-byte sub-buffers %s, clock %.16s\n",
	       t.fmt.abi_version, t.fmt.word_size * 8,
	       t.fmt.pool_subbufs ? t.fmt.pool_subbufs : t.fmt.nr_subbufs,
	       t.fmt.subbuf_size,
	       t.fmt.pool_subbufs ? "in one pool for all CPUs" : "per CPU",
	       t.fmt.clock);
	print_groups(&t);
	if (kmt_trace_meta(&t, "pool", val, sizeof(val)) && !strcmp(val, "region"))
		printf("buffers:     %" PRIu64 " bytes in one pool in a reserve_mem= region (memblock's, kept across reboots)\n",
		       (uint64_t)t.fmt.pool_subbufs * t.fmt.subbuf_size);
	else if (t.fmt.pool_subbufs)
		printf("buffers:     %" PRIu64 " bytes in one pool; after the save %" PRIu64
		       " of them held by %u of %u possible CPUs\n",
		       kmt_trace_buffer_bytes(&t), t.buffer_bytes, t.nr_buffered,
		       t.nr_possible);
	else if (t.has_buffers)
		printf("buffers:     %" PRIu64 " bytes on %u of %u possible CPUs (allocated as they came up)\n",
		       t.buffer_bytes, t.nr_buffered, t.nr_possible);
	{
		uint64_t mem_total, free_b;

		/* the kernel's totals at the save, when save kept them */
		if (kmt_trace_meminfo(&t, "MemTotal", &mem_total) &&
		    kmt_trace_meminfo(&t, "MemFree", &free_b))
			printf("meminfo:     MemTotal %" PRIu64 " bytes, MemFree %" PRIu64
			       " bytes at the save%s\n", mem_total, free_b,
			       t.vmstat ? " (and /proc/vmstat)" : "");
	}
	if (t.tasks_len || t.cgroups_len)
		printf("tasks:       %zu tasks and %zu cgroups at the save\n",
		       count_lines(t.tasks, t.tasks_len),
		       count_lines(t.cgroups, t.cgroups_len));
	print_flight(&t);
	printf("caches:      %u\n", t.nr_caches);
	printf("nodes:       %u\n", t.nr_nodes);
	if (t.kallsyms)
		printf("symbols:     %zu text symbols, %zu bytes, %" PRIu64 " in the file%s\n",
		       count_lines(t.kallsyms, t.kallsyms_len), t.kallsyms_len,
		       t.kallsyms_stored, t.kallsyms_zstd ? " (zstd)" : "");
	if (first <= last)
		printf("time:        %" PRIu64 ".%09" PRIu64 " s to %" PRIu64 ".%09" PRIu64
		       " s, a span of %" PRIu64 ".%09" PRIu64 " s\n",
		       first / 1000000000u, first % 1000000000u,
		       last / 1000000000u, last % 1000000000u,
		       (last - first) / 1000000000u, (last - first) % 1000000000u);
	else
		printf("time:        no events\n");
	printf("%-6s %6s %10s %12s %12s %10s%s\n", "cpu", "node", "subbufs",
	       "kernel", "in_file", "lost",
	       t.flight.present ? "  overwritten     frozen  window" : "");
	for (i = 0; i < t.nr_cpus; i++) {
		const struct kmt_cpu_info *c = &t.cpus[i];

		printf("%-6u %6d %10u %12" PRIu64 " %12" PRIu64 " %10" PRIu64,
		       c->cpu, c->node, c->nr_subbufs, c->events, n[i], c->lost);
		if (t.flight.present && c->window_end)
			printf(" %12" PRIu64 " %10" PRIu64 "  %" PRIu64 ".%06" PRIu64
			       "-%" PRIu64 ".%06" PRIu64 " s", c->overwritten,
			       c->frozen_dropped,
			       c->window_start / 1000000000u,
			       c->window_start % 1000000000u / 1000u,
			       c->window_end / 1000000000u,
			       c->window_end % 1000000000u / 1000u);
		else if (t.flight.present)
			printf(" %12" PRIu64 " %10" PRIu64 "  -", c->overwritten,
			       c->frozen_dropped);
		putchar('\n');
	}
	cpu_totals(&t, n, &tt);
	printf("%-6s %6s %10s %12" PRIu64 " %12" PRIu64 " %10" PRIu64, "total",
	       "", "", tt.kernel, tt.in_file, tt.lost);
	if (t.flight.present)
		printf(" %12" PRIu64 " %10" PRIu64, tt.overwritten, tt.frozen);
	putchar('\n');
	if (tt.in_file)
		printf("bytes/event: %.2f (sub-buffers), %.2f (whole file)\n",
		       (double)tt.bytes / (double)tt.in_file,
		       (double)t.len / (double)tt.in_file);
	ret = kmf_warn_cut(path, &t) ? KMF_EXIT_FAIL : KMF_EXIT_OK;
	free(n);
	kmt_trace_close(&t);
	return ret;
}

static const char *const ctx_names[] = { "task", "softirq", "hardirq", "nmi" };

/* The trace's own name for a field of an event type ("func", "level"). */
static const char *field_name(const struct kmt_trace *t, uint8_t type,
			      unsigned int id)
{
	const struct kmt_layout_info *l = &t->layout[type];
	unsigned int i;

	for (i = 0; i < l->nr_fields; i++)
		if (l->fields[i].id == id && l->fields[i].name[0])
			return l->fields[i].name;
	return "?";
}

/* The fields of the reclaim and compaction groups' events. */
static void print_latency_fields(const struct kmt_trace *t,
				 const struct kmt_symtab *st, bool raw,
				 const struct kmt_event *ev)
{
	char sym[256];

	if (ev->has & KMT_HAS(KMT_F_PRIORITY))
		printf(" priority=%u", ev->priority);
	if (ev->has & KMT_HAS(KMT_F_NR_SCANNED))
		printf(" nr_scanned=%" PRIu64, ev->nr_scanned);
	if (ev->has & KMT_HAS(KMT_F_NR_RECLAIMED))
		printf(" nr_reclaimed=%" PRIu64, ev->nr_reclaimed);
	if (ev->has & KMT_HAS(KMT_F_FILE))
		printf(" file=%u", ev->file);
	if (ev->has & KMT_HAS(KMT_F_FUNC)) {
		kmt_symtab_format(st, ev->func, raw, sym, sizeof(sym));
		printf(" %s=%s", field_name(t, ev->type, KMT_F_FUNC), sym);
	}
	if (ev->has & KMT_HAS(KMT_F_SHRINKER))
		printf(" shr=0x%" PRIx64, ev->shrinker);
	if (ev->has & KMT_HAS(KMT_F_CACHE_ITEMS))
		printf(" cache_items=%" PRIu64, ev->cache_items);
	if (ev->has & KMT_HAS(KMT_F_TOTAL_SCAN))
		printf(" total_scan=%" PRIu64, ev->total_scan);
	if (ev->has & KMT_HAS(KMT_F_FREED))
		printf(" freed=%" PRId64, ev->freed);
	if (ev->has & KMT_HAS(KMT_F_ZONE_START))
		printf(" zone_start=0x%" PRIx64, ev->zone_start);
	if (ev->has & KMT_HAS(KMT_F_ZONE_END))
		printf(" zone_end=0x%" PRIx64, ev->zone_end);
	if (ev->has & KMT_HAS(KMT_F_MIGRATE_PFN))
		printf(" migrate_pfn=0x%" PRIx64, ev->migrate_pfn);
	if (ev->has & KMT_HAS(KMT_F_FREE_PFN))
		printf(" free_pfn=0x%" PRIx64, ev->free_pfn);
	if (ev->has & KMT_HAS(KMT_F_SYNC))
		printf(" mode=%s", ev->sync ? "sync" : "async");
	if (ev->has & KMT_HAS(KMT_F_STATUS))
		printf(" status=%s", kmt_compact_status_name(ev->status));
	if (ev->has & KMT_HAS(KMT_F_GROUPS))
		printf(" groups=0x%x", ev->groups);
	if (ev->has & KMT_HAS(KMT_F_TASK_OP))
		printf(" op=%s", kmt_task_op_name(ev->task_op));
	if (ev->has & KMT_HAS(KMT_F_TASK_PID))
		printf(" pid=%u", ev->task_pid);
	if ((ev->has & KMT_HAS(KMT_F_PPID)) && ev->task_op == KMT_TASK_NEW)
		printf(" ppid=%u", ev->ppid);
	else if ((ev->has & KMT_HAS(KMT_F_PPID)) && ev->task_op == KMT_TASK_CGROUP)
		printf(" threadgroup=%u", ev->ppid);
	if (ev->has & KMT_HAS(KMT_F_COMM))
		printf(" comm=%.*s", (int)ev->comm_len, ev->comm);
	if ((ev->has & KMT_HAS(KMT_F_FILENAME)) && ev->filename_len)
		printf(" filename=%.*s", (int)ev->filename_len, ev->filename);
	if ((ev->has & KMT_HAS(KMT_F_CGROUP)) && ev->cgroup_len)
		printf(" cgroup=%.*s", (int)ev->cgroup_len, ev->cgroup);
	if ((ev->has & KMT_HAS(KMT_F_CGROUP_ID)) && ev->cgroup_id)
		printf(" cgroup_id=%" PRIu64, ev->cgroup_id);
}

/* The fields of the memblock events. */
static void print_memblock_fields(const struct kmt_event *ev)
{
	if ((ev->has & KMT_HAS(KMT_F_MB_OP)) && ev->type == KMT_EV_VMALLOC)
		printf(" op=%s", ev->mb_op == KMT_VM_ALLOC ? "alloc" :
		       ev->mb_op == KMT_VM_FREE ? "free" : "?");
	else if (ev->has & KMT_HAS(KMT_F_MB_OP))
		printf(" op=%s", kmt_memblock_op_name(ev->mb_op));
	if (ev->has & KMT_HAS(KMT_F_VADDR))
		printf(" addr=0x%" PRIx64, ev->vaddr);
	if (ev->has & KMT_HAS(KMT_F_NR_PAGES))
		printf(" pages=%" PRIu64, ev->nr_pages);
	if (ev->has & KMT_HAS(KMT_F_KIND))
		printf(" kind=%s", ev->kind == KMT_TEXT_WRAPPER ? "wrapper" : "?");
	if (ev->has & KMT_HAS(KMT_F_PHYS))
		printf(" base=0x%" PRIx64, ev->phys);
	if (ev->has & KMT_HAS(KMT_F_LENGTH))
		printf(" size=%" PRIu64, ev->length);
	if (ev->has & KMT_HAS(KMT_F_NR_KEPT))
		printf(" kept=%" PRIu64, ev->nr_kept);
	if (ev->has & KMT_HAS(KMT_F_NR_DROPPED))
		printf(" dropped=%" PRIu64, ev->nr_dropped);
	if (ev->has & KMT_HAS(KMT_F_CAPACITY))
		printf(" capacity=%" PRIu64, ev->capacity);
	if (ev->has & KMT_HAS(KMT_F_PG_KEPT))
		printf(" pages_kept=%" PRIu64, ev->pg_kept);
	if (ev->has & KMT_HAS(KMT_F_PG_DROPPED))
		printf(" pages_dropped=%" PRIu64, ev->pg_dropped);
	if (ev->has & KMT_HAS(KMT_F_CPU))
		printf(" cpu=%u", ev->buf_cpu);
}

/* " stack=a<b<c": the return addresses of a TEXT-varint stack, innermost first. */
static void print_stack(const struct kmt_trace *t, const struct kmt_symtab *st,
			bool raw, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	char sym[256];
	unsigned int n;
	uint64_t v;
	bool first = true;

	fputs(" stack=", stdout);
	while (p < end && (n = kmt_get_uvar(p, end, &v))) {
		p += n;
		kmt_symtab_format(st, t->fmt.text_base + (uint64_t)kmt_unzigzag(v),
				  raw, sym, sizeof(sym));
		printf("%s%s", first ? "" : "<", sym);
		first = false;
	}
}

int cmd_dump(int argc, char **argv)
{
	static const char usage_text[] =
		"usage: kmemflight dump [--seconds] [--raw-ip] <file>\n"
		"\n"
		"Print every event of a saved trace in time order, one per line: its\n"
		"time in nanoseconds since boot (an integer: 2353058776), CPU,\n"
		"context[:pid], event name, then its fields.  report --time and --at\n"
		"take such a time with its unit: --at 2353058776ns.\n"
		"\n"
		"    --seconds    the time in seconds, with nine decimals: 2.353058776\n"
		"    --raw-ip     print callsites as addresses, not sym+0xoff\n"
		"    -h, --help   this help\n";
	struct kmt_trace t;
	struct kmt_merge m;
	struct kmt_event ev;
	char gfp[256];
	struct kmt_symtab st;
	struct kmt_err err = { "" };
	const char *path;
	char sym[256];
	uint32_t nr_cpu_ids = 0;
	uint64_t *last;
	bool raw = false, seconds = false;
	unsigned int i;
	int ret;

	ret = one_file_args(argc, argv, usage_text, &raw, &seconds, NULL, &path);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	ret = kmt_trace_open_flags(path, KMT_OPEN_TRUNCATED, &t, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_FAIL;
	}
	kmf_note_coverage(&t);
	for (i = 0; i < t.nr_cpus; i++)
		nr_cpu_ids = t.cpus[i].cpu >= nr_cpu_ids ? t.cpus[i].cpu + 1 : nr_cpu_ids;
	last = calloc(nr_cpu_ids ? nr_cpu_ids : 1, sizeof(*last));
	if (!last || kmt_symtab_load(&st, t.kallsyms, t.kallsyms_len) ||
	    kmt_merge_init(&m, &t, &err)) {
		kmf_error("%s: %s", path, err.msg[0] ? err.msg : "out of memory");
		kmf_warn_cut(path, &t);
		free(last);
		kmt_symtab_free(&st);
		kmt_trace_close(&t);
		return KMF_EXIT_FAIL;
	}
	while ((ret = kmt_merge_next(&m, &ev, &err)) > 0) {
		if (seconds)
			printf("%" PRIu64 ".%09" PRIu64, ev.ts / 1000000000u,
			       ev.ts % 1000000000u);
		else
			printf("%" PRIu64, ev.ts);
		printf(" %u %s", ev.cpu, ctx_names[ev.ctx & 3]);
		if (ev.ctx == KMT_CTX_TASK)
			printf(":%u", ev.pid);
		printf(" %s", t.layout[ev.type].name);
		/* a mark's trigger fields say something only for a freeze */
		if (ev.type == KMT_EV_MARK && ev.mark != KMT_MARK_FROZEN)
			ev.has &= KMT_HAS(KMT_F_MARK);
		if (ev.type == KMT_EV_MARK && !ev.cache)
			ev.has &= ~KMT_HAS(KMT_F_CACHE);
		print_memblock_fields(&ev);
		if (ev.has & KMT_HAS(KMT_F_CALL_SITE)) {
			kmt_symtab_format(&st, ev.call_site, raw, sym, sizeof(sym));
			printf(" %s=%s", field_name(&t, ev.type, KMT_F_CALL_SITE), sym);
		}
		if (ev.has & KMT_HAS_VIA) {
			kmt_symtab_format(&st, ev.via, raw, sym, sizeof(sym));
			printf(" via=%s", sym);
		}
		if (ev.has & KMT_HAS(KMT_F_PTR))
			printf(" ptr=0x%" PRIx64, ev.ptr);
		if (ev.has & KMT_HAS(KMT_F_BYTES_REQ))
			printf(" bytes_req=%" PRIu64, ev.bytes_req);
		if (ev.has & KMT_HAS(KMT_F_BYTES_SLACK))
			printf(" bytes_alloc=%" PRIu64, ev.bytes_alloc);
		if (ev.has & KMT_HAS(KMT_F_CACHE)) {
			const struct kmt_cache *c = kmt_trace_cache(&t, ev.cache);

			printf(" cache=%u(%s)", ev.cache, c ? c->name : "?");
		}
		if (ev.has & KMT_HAS(KMT_F_PFN1)) {
			if (ev.pfn1)
				printf(" pfn=0x%" PRIx64, ev.pfn1 - 1);
			else
				printf(" pfn=failed");
		}
		if (ev.has & KMT_HAS(KMT_F_ORDER))
			printf(" order=%u", ev.order);
		if (ev.has & KMT_HAS(KMT_F_GFP)) {
			kmt_gfp_format(&t, ev.gfp, gfp, sizeof(gfp));
			printf(" gfp_flags=%s", gfp);
		}
		if (ev.has & KMT_HAS(KMT_F_NODE))
			printf(" node=%" PRId64, ev.node);
		if (ev.has & KMT_HAS(KMT_F_MIGRATETYPE))
			printf(" migratetype=%d", ev.migratetype);
		if (ev.has & KMT_HAS(KMT_F_OBJ_SIZE))
			printf(" object_size=%u", ev.obj_size);
		if (ev.has & KMT_HAS(KMT_F_SIZE))
			printf(" size=%u", ev.size);
		if (ev.has & KMT_HAS(KMT_F_ALIGN))
			printf(" align=%u", ev.align);
		if (ev.has & KMT_HAS(KMT_F_FLAGS))
			printf(" flags=0x%" PRIx64, ev.flags);
		if ((ev.has & KMT_HAS(KMT_F_NAME)) &&
		    (ev.name_len || ev.type != KMT_EV_MEMBLOCK))
			printf(" %s=%.*s", field_name(&t, ev.type, KMT_F_NAME),
			       (int)ev.name_len, ev.name);
		if (ev.has & KMT_HAS(KMT_F_MARK))
			printf(" mark=%u", ev.mark);
		if (ev.has & KMT_HAS(KMT_F_TRIGGER))
			printf(" trigger=%s", kmt_trigger_name(ev.trigger));
		if (ev.type == KMT_EV_MARK && (ev.has & KMT_HAS(KMT_F_STACK)))
			print_stack(&t, &st, raw, ev.stack, ev.stack_len);
		if (ev.has & KMT_HAS(KMT_F_RET))
			printf(" ret=%d", ev.ret);
		print_latency_fields(&t, &st, raw, &ev);
		/* only where the kernel's clock stepped back on that CPU */
		if (ev.cpu < nr_cpu_ids && ev.ts < last[ev.cpu])
			printf(" clock_step=-%" PRIu64, last[ev.cpu] - ev.ts);
		if (ev.cpu < nr_cpu_ids)
			last[ev.cpu] = ev.ts;
		putchar('\n');
	}
	if (ret < 0)
		kmf_error("%s: %s", path, err.msg);
	if (kmf_warn_cut(path, &t))
		ret = -1;
	free(last);
	kmt_merge_free(&m);
	kmt_symtab_free(&st);
	kmt_trace_close(&t);
	return ret < 0 ? KMF_EXIT_FAIL : KMF_EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight save --from-ftrace [INSTANCE] FILE: the kmem events (and the
 * vmscan and compaction ones of report --latency) of a stock kernel's
 * ftrace buffer (trace_event=kmem:... at boot, or enabled later), read raw per CPU through libtracefs and decoded with the
 * kernel's own event formats through libtraceevent, into a .kmt file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "../cli/cli.h"
#include "ftrace.h"
#include "import.h"
#include "kmemev.h"
#include "meta.h"
#include "recorder.h"

struct ft_ctx {
	struct kmf_kmem k;
	struct kmf_import im;
	uint64_t *last_ts;		/* per CPU */
	int ret;
	struct kmt_err *err;
};

static int on_record(struct tep_event *event, struct tep_record *r, int cpu,
		     void *data)
{
	struct ft_ctx *x = data;
	int ret;

	(void)event;
	if (cpu < 0 || (uint32_t)cpu >= x->im.nr_cpu_ids || r->size < 0)
		return 0;
	ret = kmf_kmem_add(&x->k, &x->im, r->data, (uint32_t)r->size,
			   (uint32_t)cpu, r->ts, NULL, 0, x->err);
	if (ret < 0) {
		x->ret = ret;
		return 1;	/* stop */
	}
	if (ret)
		x->last_ts[cpu] = r->ts;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight save --from-ftrace [<instance>] [<options>] <file>\n"
		"\n"
		"Read the kmem events (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free,\n"
		"mm_page_alloc, mm_page_free, mm_page_free_batched) from the ftrace buffer\n"
		"of the running kernel, or of tracefs instance <instance>, and write them\n"
		"to <file> as a .kmt file, with the kallsyms, build-id, topology and per-CPU\n"
		"loss counts of a recorder save.  For kernels without the kmemtrace patch:\n"
		"boot with these parameters, one line to paste on the kernel command line:\n"
		"\n"
		/* one line, however long: a line break would end the paste */
		"    trace_event=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,kmem:kmem_cache_free,kmem:mm_page_alloc,kmem:mm_page_free trace_buf_size=64M trace_options=nooverwrite\n"
		"\n"
		"The latency events are read too (report --latency): vmscan's\n"
		"mm_vmscan_direct_reclaim_begin/end, mm_vmscan_lru_shrink_inactive,\n"
		"mm_shrink_slab_start/end, and compaction's\n"
		"mm_compaction_try_to_compact_pages and mm_compaction_begin/end.\n"
		"\n"
		"The buffer is read the way trace_pipe_raw reads it: what is saved is\n"
		"gone from it.  Tracing in the instance is turned off first, so that the\n"
		"save does not trace itself.\n"
		"\n"
		"        --keep-recording  turn tracing back on afterwards\n"
		"        --no-addresses    kernel addresses made relative (see save --help)\n"
		"    -q, --quiet           print nothing on success\n"
		"    -h, --help            this help\n");
}

/* "entries", "overrun" and "dropped events" of per_cpu/cpuN/stats. */
static uint64_t stat_value(const char *stats, const char *key)
{
	const char *p = stats;
	size_t n = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

static uint32_t possible_cpus(void)
{
	char *buf, *p;
	size_t len;
	unsigned long max = 0;

	if (kmt_read_file("/sys/devices/system/cpu/possible", &buf, &len)) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		return n > 0 ? (uint32_t)n : 1;
	}
	for (p = buf; *p;) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (v > max)
			max = v;
		p = end;
		if (*p == '-' || *p == ',')
			p++;
		else
			break;
	}
	free(buf);
	return max + 1 > KMT_MAX_CPU_IDS ? KMT_MAX_CPU_IDS : (uint32_t)max + 1;
}

struct ft_opts {
	const char *instance;
	const char *path;
	bool keep, quiet, no_addresses;
};

static int enabled_events(struct tracefs_instance *inst, char **out,
			  size_t *len, unsigned int *nr, uint32_t *kinds)
{
	unsigned int k;
	int ret = 0;

	*nr = 0;
	*kinds = 0;
	for (k = 0; k < KK_NR && !ret; k++) {
		char *v = tracefs_event_file_read(inst, kmf_kmem_systems[k],
						  kmf_kmem_names[k], "enable", NULL);

		if (v && (v[0] == '1' || v[0] == 'X')) {
			ret = kmf_append(out, len, "%s%s", *nr ? "," : "",
					 kmf_kmem_names[k]);
			(*nr)++;
			*kinds |= 1u << k;
		}
		free(v);
	}
	return ret;
}

static int ftrace_save(const struct ft_opts *o)
{
	const char *const systems[] = { "kmem", "vmscan", "compaction", NULL };
	struct tracefs_instance *inst = NULL;
	struct kmt_err err = { "" };
	struct ft_ctx x;
	struct kmf_gfp_table gfp;
	struct tep_handle *tep = NULL;
	struct kmf_import_out out;
	const char *dir = tracefs_tracing_dir();
	char *meta = NULL, *ksyms = NULL, *topo = NULL, *clock = NULL;
	char *evlist = NULL, clockname[16];
	size_t meta_len = 0, ksyms_len = 0, topo_len = 0, evlist_len = 0;
	uint64_t lost = 0, first = UINT64_MAX, complete = 0, bytes = 0;
	uint64_t end_ts = UINT64_MAX;
	unsigned int nr_enabled = 0;
	uint32_t kinds = 0;
	int was_on = 0, overwrite, ret, status = KMF_EXIT_FAIL;
	bool hidden = false;
	uint32_t cpu;

	memset(&x, 0, sizeof(x));
	x.err = &err;
	if (!dir) {
		kmf_error("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing), or this kernel has no ftrace");
		return KMF_EXIT_FAIL;
	}
	if (access(dir, R_OK | X_OK)) {
		kmf_error("%s: %s%s", dir, strerror(errno),
			  errno == EACCES ? " (the ftrace buffer is root's: run as root)" : "");
		return KMF_EXIT_FAIL;
	}
	if (o->instance) {
		if (!tracefs_instance_exists(o->instance)) {
			kmf_error("no tracefs instance '%s' (see %s/instances)",
				  o->instance, dir);
			return KMF_EXIT_FAIL;
		}
		inst = tracefs_instance_alloc(dir, o->instance);
		if (!inst) {
			kmf_error("cannot open tracefs instance '%s': %s",
				  o->instance, strerror(errno));
			return KMF_EXIT_FAIL;
		}
	}
	tep = tracefs_local_events_system(dir, systems);
	if (!tep) {
		kmf_error("cannot read the kmem event formats under %s/events/kmem: %s",
			  dir, strerror(errno ? errno : ENOENT));
		goto out;
	}
	if (kmf_kmem_init(&x.k, tep, &err)) {
		kmf_error("this kernel's tracefs has %s (CONFIG_TRACEPOINTS?)", err.msg);
		goto out;
	}
	/* the tasks' names, for the reclaim and compaction events */
	tracefs_load_cmdlines(dir, tep);
	if (enabled_events(inst, &evlist, &evlist_len, &nr_enabled, &kinds)) {
		kmf_error("out of memory");
		goto out;
	}
	ret = kmf_import_init(&x.im, possible_cpus());
	x.last_ts = calloc(x.im.nr_cpu_ids ? x.im.nr_cpu_ids : 1, sizeof(*x.last_ts));
	if (ret || !x.last_ts) {
		kmf_error("out of memory");
		goto out;
	}
	x.im.groups = kmf_kmem_groups(kinds);

	/* stop first: reading must not feed the buffer it reads */
	was_on = tracefs_trace_is_on(inst);
	if (was_on > 0 && tracefs_trace_off(inst)) {
		kmf_error("cannot turn tracing off in %s: %s",
			  o->instance ? o->instance : "the top instance",
			  strerror(errno));
		goto out;
	}
	{
		char *opt = tracefs_instance_file_read(inst, "options/overwrite", NULL);

		overwrite = opt && opt[0] == '1';
		free(opt);
	}
	for (cpu = 0; cpu < x.im.nr_cpu_ids; cpu++) {
		char file[64], *st;

		snprintf(file, sizeof(file), "per_cpu/cpu%u/stats", cpu);
		st = tracefs_instance_file_read(inst, file, NULL);
		if (!st)
			continue;
		x.im.lost[cpu] = stat_value(st, "overrun") +
				 stat_value(st, "commit overrun") +
				 stat_value(st, "dropped events");
		lost += x.im.lost[cpu];
		free(st);
	}
	clock = tracefs_get_clock(inst);
	if (tracefs_iterate_raw_events(tep, inst, NULL, 0, on_record, &x) < 0 &&
	    !x.ret) {
		kmf_error("cannot read the ftrace buffer of %s: %s",
			  o->instance ? o->instance : "the top instance",
			  strerror(errno ? errno : EIO));
		goto restart;
	}
	if (x.ret) {
		kmf_error("%s", err.msg);
		goto restart;
	}
	if (!x.im.nr) {
		if (!nr_enabled)
			kmf_error("the ftrace buffer of %s holds no kmem events, and none is enabled: boot with trace_event=kmem:kmalloc,kmem:kfree,... (see --help)",
				  o->instance ? o->instance : "the top instance");
		else
			kmf_error("the ftrace buffer of %s holds no kmem events (%s enabled; was it read already?)",
				  o->instance ? o->instance : "the top instance", evlist);
		goto restart;
	}
	for (cpu = 0; cpu < x.im.nr_cpu_ids; cpu++) {
		if (x.im.first_ts[cpu] == UINT64_MAX)
			continue;
		if (x.im.first_ts[cpu] < first)
			first = x.im.first_ts[cpu];
		/* overwritten events are a CPU's oldest, dropped ones its newest */
		if (overwrite && x.im.lost[cpu] && x.im.first_ts[cpu] > complete)
			complete = x.im.first_ts[cpu];
		if (!overwrite && x.im.lost[cpu] && x.last_ts[cpu] < end_ts)
			end_ts = x.last_ts[cpu];
	}
	if (!complete)
		complete = first;

	ret = kmf_read_kallsyms(&ksyms, &ksyms_len, &hidden);
	if (ret == -ENOMEM) {
		kmf_error("out of memory");
		goto restart;
	}
	if (ret)
		kmf_warn("cannot read /proc/kallsyms (%s): the file will have no symbols; callsites will stay raw",
			 strerror(-ret));
	else if (hidden)
		kmf_warn("/proc/kallsyms shows no addresses (kptr_restrict?): callsites will stay raw");
	if (kmf_sysfs_topology(&topo, &topo_len) ||
	    kmf_build_meta(&meta, &meta_len, x.im.nr_cpu_ids) ||
	    kmf_append(&meta, &meta_len, "source=ftrace\n") ||
	    kmf_append(&meta, &meta_len, "ftrace_instance=%s\n",
		       o->instance ? o->instance : "") ||
	    kmf_append(&meta, &meta_len, "ftrace_clock=%s\n", clock ? clock : "") ||
	    kmf_append(&meta, &meta_len, "ftrace_events=%s\n", evlist ? evlist : "") ||
	    kmf_append(&meta, &meta_len, "ftrace_overwrite=%d\n", overwrite) ||
	    (x.k.nameless && kmf_append(&meta, &meta_len, "ftrace_cache_names=0\n")) ||
	    kmf_append(&meta, &meta_len, "first_ts=%" PRIu64 "\n", first) ||
	    kmf_append(&meta, &meta_len, "complete_from_ts=%" PRIu64 "\n", complete) ||
	    (end_ts != UINT64_MAX &&
	     kmf_append(&meta, &meta_len, "complete_until_ts=%" PRIu64 "\n", end_ts)) ||
	    (o->no_addresses && kmf_append(&meta, &meta_len, "addresses=relative\n"))) {
		kmf_error("out of memory");
		goto restart;
	}
	kmf_kmem_gfp_names(&x.k, &gfp);
	snprintf(clockname, sizeof(clockname), "ftrace:%s", clock ? clock : "?");
	memset(&out, 0, sizeof(out));
	out.path = o->path;
	out.meta = meta;
	out.kallsyms = ret ? NULL : ksyms;
	out.kallsyms_len = ksyms_len;
	out.topology = topo;
	out.clock = clockname;
	out.page_shift = (unsigned int)__builtin_ctzl((unsigned long)sysconf(_SC_PAGESIZE));
	out.no_addresses = o->no_addresses;
	out.gfp_masks = gfp.mask;
	out.gfp_names = gfp.name;
	out.nr_gfp = gfp.nr;
	ret = kmf_import_write(&x.im, &out, &bytes, &err);
	if (ret) {
		kmf_error("%s (the events read from the ftrace buffer are lost)",
			  err.msg);
		goto restart;
	}
	if (lost)
		kmf_warn("ftrace %s %" PRIu64 " events: its buffer filled up (boot with a larger trace_buf_size=)",
			 overwrite ? "overwrote" : "dropped", lost);
	if (x.im.skipped)
		kmf_warn("%" PRIu64 " events of CPUs beyond the possible ones were left out",
			 x.im.skipped);
	if (!o->quiet)
		printf("[ kmemflight: saved %zu kmem events from ftrace%s%s (%" PRIu64
		       " lost) to %s, %.1f bytes/event ]\n", x.im.nr,
		       o->instance ? " instance " : "", o->instance ? o->instance : "",
		       lost, o->path, (double)bytes / (double)x.im.nr);
	status = KMF_EXIT_OK;
restart:
	if (o->keep && was_on > 0 && tracefs_trace_on(inst))
		kmf_warn("cannot turn tracing back on: %s", strerror(errno));
out:
	free(meta);
	free(ksyms);
	free(topo);
	free(clock);
	free(evlist);
	free(x.last_ts);
	kmf_import_free(&x.im);
	if (tep)
		tep_free(tep);
	tracefs_instance_free(inst);
	return status;
}

int kmf_save_from_ftrace(int argc, char **argv, int first, bool keep,
			 bool quiet, bool no_addresses)
{
	struct ft_opts o = { .keep = keep, .quiet = quiet,
			     .no_addresses = no_addresses };
	int n = argc - first;

	if (n < 1)
		return kmf_usage_error("missing <file> to save to");
	if (n > 2)
		return kmf_usage_error("--from-ftrace takes an <instance> and a <file>, no more");
	if (n == 2)
		o.instance = argv[first];
	o.path = argv[argc - 1];
	if (!*o.path)
		return kmf_usage_error("<file>: an empty file name");
	return ftrace_save(&o);
}

void kmf_save_from_ftrace_usage(FILE *f)
{
	usage(f);
}

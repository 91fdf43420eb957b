// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight save --from-ftrace [INSTANCE] FILE: the kmem events of a
 * stock kernel's ftrace buffer (trace_event=kmem:... at boot, or enabled
 * later), read raw per CPU through libtracefs and decoded with the
 * kernel's own event formats through libtraceevent, into a .kmt file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../cli/cli.h"
#include "ftrace.h"
#include "import.h"
#include "meta.h"
#include "recorder.h"

/* common_flags bits (kernel/trace/trace.h, enum trace_flag_type) */
#define FT_FLAG_HARDIRQ		0x08
#define FT_FLAG_SOFTIRQ		0x10
#define FT_FLAG_NMI		0x40

enum ft_kind { FT_KMALLOC, FT_CACHE_ALLOC, FT_KFREE, FT_CACHE_FREE,
	       FT_PAGE_ALLOC, FT_PAGE_FREE, FT_PAGE_FREE_BATCHED, FT_NR };

/* The kmem events read, and what each becomes. */
static const struct {
	const char *name;
	const char *alias;	/* the *_node twin of kernels before 6.1 */
	uint8_t type;
} ft_events[FT_NR] = {
	[FT_KMALLOC] = { "kmalloc", "kmalloc_node", KMT_EV_KMALLOC },
	[FT_CACHE_ALLOC] = { "kmem_cache_alloc", "kmem_cache_alloc_node",
			     KMT_EV_CACHE_ALLOC },
	[FT_KFREE] = { "kfree", NULL, KMT_EV_KFREE },
	[FT_CACHE_FREE] = { "kmem_cache_free", NULL, KMT_EV_CACHE_FREE },
	[FT_PAGE_ALLOC] = { "mm_page_alloc", NULL, KMT_EV_PAGE_ALLOC },
	[FT_PAGE_FREE] = { "mm_page_free", NULL, KMT_EV_PAGE_FREE },
	[FT_PAGE_FREE_BATCHED] = { "mm_page_free_batched", NULL,
				   KMT_EV_PAGE_FREE_BATCHED },
};

enum ft_field { F_CALL_SITE, F_PTR, F_REQ, F_ALLOC, F_GFP, F_NODE, F_NAME,
		F_PFN, F_ORDER, F_MIGRATETYPE, F_NR };

static const char *const ft_field_names[F_NR] = {
	"call_site", "ptr", "bytes_req", "bytes_alloc", "gfp_flags", "node",
	"name", "pfn", "order", "migratetype",
};

struct ft_event {
	struct tep_event *ev;
	int kind;
	struct tep_format_field *f[F_NR];
};

struct ft_ctx {
	struct tep_handle *tep;
	struct tep_format_field *pid, *flags;
	struct ft_event evs[2 * FT_NR];
	unsigned int nr_evs;
	int last_id;
	struct ft_event *last;
	struct kmf_import im;
	uint64_t *last_ts;		/* per CPU */
	uint64_t missed;		/* counted by the buffer pages */
	bool nameless;			/* kmem_cache_alloc without a name */
	int ret;
	struct kmt_err *err;
};

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
		"boot with\n"
		"\n"
		"    trace_event=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,\n"
		"      kmem:kmem_cache_free,kmem:mm_page_alloc,kmem:mm_page_free\n"
		"    trace_buf_size=64M trace_options=nooverwrite\n"
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

static uint64_t field_u64(const struct ft_ctx *x, const struct tep_record *r,
			  const struct tep_format_field *f)
{
	if (!f || f->offset + f->size > r->size)
		return 0;
	return tep_read_number(x->tep, (const char *)r->data + f->offset, f->size);
}

static int64_t field_s64(const struct ft_ctx *x, const struct tep_record *r,
			 const struct tep_format_field *f)
{
	uint64_t v = field_u64(x, r, f);

	if (!f || f->size >= 8)
		return (int64_t)v;
	/* sign-extend the narrower field */
	if (v & (1ULL << (f->size * 8 - 1)))
		v |= ~0ULL << (f->size * 8);
	return (int64_t)v;
}

/* A __string() field: a __data_loc (or __rel_loc) word, then the bytes. */
static const char *field_str(const struct ft_ctx *x, const struct tep_record *r,
			     const struct tep_format_field *f, size_t *len)
{
	uint64_t loc, off, n;

	*len = 0;
	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC))
		return NULL;
	loc = field_u64(x, r, f);
	off = loc & 0xffff;
	n = (loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (uint64_t)f->offset + (uint64_t)f->size;
	if (off > (uint64_t)r->size || n > (uint64_t)r->size - off)
		return NULL;
	/* the length counts the NUL */
	while (n && ((const char *)r->data)[off + n - 1] == '\0')
		n--;
	*len = (size_t)n;
	return (const char *)r->data + off;
}

static struct ft_event *find_event(struct ft_ctx *x, int id)
{
	unsigned int i;

	if (id == x->last_id)
		return x->last;
	for (i = 0; i < x->nr_evs; i++)
		if (x->evs[i].ev->id == id) {
			x->last_id = id;
			x->last = &x->evs[i];
			return x->last;
		}
	return NULL;
}

static int on_record(struct tep_event *event, struct tep_record *r, int cpu,
		     void *data)
{
	struct ft_ctx *x = data;
	struct ft_event *fe = find_event(x, event->id);
	struct kmf_imp_ev e;
	uint64_t fl;
	uint32_t id;
	const char *name;
	char anon[48];
	size_t len;
	int ret;

	if (!fe)
		return 0;
	if (cpu < 0 || (uint32_t)cpu >= x->im.nr_cpu_ids)
		return 0;
	if (r->missed_events > 0)
		x->missed += (uint64_t)r->missed_events;
	memset(&e, 0, sizeof(e));
	e.ts = r->ts;
	e.cpu = (uint32_t)cpu;
	e.type = ft_events[fe->kind].type;
	fl = field_u64(x, r, x->flags);
	if (fl & FT_FLAG_NMI)
		e.ctx = KMT_CTX_NMI;
	else if (fl & FT_FLAG_HARDIRQ)
		e.ctx = KMT_CTX_HARDIRQ;
	else if (fl & FT_FLAG_SOFTIRQ)
		e.ctx = KMT_CTX_SOFTIRQ;
	else
		e.pid = (uint32_t)field_u64(x, r, x->pid);
	switch (fe->kind) {
	case FT_KMALLOC:
	case FT_CACHE_ALLOC:
		e.call_site = field_u64(x, r, fe->f[F_CALL_SITE]);
		e.ptr = field_u64(x, r, fe->f[F_PTR]);
		e.req = field_u64(x, r, fe->f[F_REQ]);
		e.alloc = field_u64(x, r, fe->f[F_ALLOC]);
		e.gfp = field_u64(x, r, fe->f[F_GFP]);
		e.node = fe->f[F_NODE] ? (int32_t)field_s64(x, r, fe->f[F_NODE]) : -1;
		if (fe->kind == FT_KMALLOC)
			break;
		name = field_str(x, r, fe->f[F_NAME], &len);
		if (!name) {
			/* the event has no name (6.12 has none): by size */
			len = (size_t)snprintf(anon, sizeof(anon), "(%" PRIu64 "-byte objects)",
					       e.req);
			name = anon;
			x->nameless = true;
		}
		ret = kmf_import_cache(&x->im, name, len, (uint32_t)e.req,
				       (uint32_t)e.alloc, &id);
		if (ret)
			goto fail;
		e.aux = id;
		break;
	case FT_KFREE:
	case FT_CACHE_FREE:
		e.call_site = field_u64(x, r, fe->f[F_CALL_SITE]);
		e.ptr = field_u64(x, r, fe->f[F_PTR]);
		if (fe->kind == FT_KFREE)
			break;
		name = field_str(x, r, fe->f[F_NAME], &len);
		if (!name) {
			name = "?";
			len = 1;
		}
		ret = kmf_import_cache(&x->im, name, len, 0, 0, &id);
		if (ret)
			goto fail;
		e.aux = id;
		break;
	default:	/* pages: pfn + 1, 0 for a failed allocation (pfn -1) */
		e.ptr = field_u64(x, r, fe->f[F_PFN]) + 1;
		if (fe->f[F_PFN] && fe->f[F_PFN]->size == 4)
			e.ptr &= 0xffffffffULL;
		e.aux = (uint32_t)field_u64(x, r, fe->f[F_ORDER]);
		e.gfp = field_u64(x, r, fe->f[F_GFP]);
		e.node = fe->f[F_MIGRATETYPE] ?
			 (int32_t)field_s64(x, r, fe->f[F_MIGRATETYPE]) : 0;
		break;
	}
	ret = kmf_import_add(&x->im, &e, NULL, 0);
	if (ret)
		goto fail;
	x->last_ts[e.cpu] = e.ts;
	return 0;
fail:
	x->ret = ret;
	kmt_errf(x->err, -ret, "%s", ret == -E2BIG ? "more than 65534 caches" :
		 "out of memory");
	return 1;	/* stop */
}

/* The events this kernel has, with the fields we read. */
static int find_events(struct ft_ctx *x, struct kmt_err *err)
{
	unsigned int k, a, i;

	for (k = 0; k < FT_NR; k++) {
		for (a = 0; a < 2; a++) {
			const char *n = a ? ft_events[k].alias : ft_events[k].name;
			struct tep_event *ev;
			struct ft_event *fe;

			if (!n)
				continue;
			ev = tep_find_event_by_name(x->tep, "kmem", n);
			if (!ev)
				continue;
			fe = &x->evs[x->nr_evs++];
			memset(fe, 0, sizeof(*fe));
			fe->ev = ev;
			fe->kind = (int)k;
			for (i = 0; i < F_NR; i++)
				fe->f[i] = tep_find_field(ev, ft_field_names[i]);
			if (!x->pid) {
				x->pid = tep_find_common_field(ev, "common_pid");
				x->flags = tep_find_common_field(ev, "common_flags");
			}
		}
	}
	if (!x->nr_evs)
		return kmt_errf(err, ENOENT,
				"this kernel's tracefs has no kmem events (CONFIG_TRACEPOINTS?)");
	x->last_id = -1;
	return 0;
}

/*
 * The kernel's GFP flag names, from the print format of mm_page_alloc or
 * kmalloc: the __print_flags() table of gfp_flags, its values already
 * evaluated by libtraceevent.
 */
static const struct tep_print_arg *find_flags(const struct tep_print_arg *a,
					      int depth)
{
	const struct tep_print_arg *r;

	for (; a && depth < 16; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_FLAGS:
			if (a->flags.field && a->flags.field->type == TEP_PRINT_FIELD &&
			    a->flags.field->field.name &&
			    !strcmp(a->flags.field->field.name, "gfp_flags"))
				return a;
			break;
		case TEP_PRINT_OP:
			r = find_flags(a->op.left, depth + 1);
			if (!r)
				r = find_flags(a->op.right, depth + 1);
			if (r)
				return r;
			break;
		case TEP_PRINT_TYPE:
			r = find_flags(a->typecast.item, depth + 1);
			if (r)
				return r;
			break;
		default:
			break;
		}
	}
	return NULL;
}

struct gfp_table {
	uint64_t mask[256];
	const char *name[256];
	unsigned int nr;
};

static void gfp_names(struct ft_ctx *x, struct gfp_table *g)
{
	const struct tep_print_flag_sym *s;
	const struct tep_print_arg *fa = NULL;
	unsigned int i;

	g->nr = 0;
	for (i = 0; i < x->nr_evs && !fa; i++)
		fa = find_flags(x->evs[i].ev->print_fmt.args, 0);
	if (!fa)
		return;
	for (s = fa->flags.flags; s && g->nr < 256; s = s->next) {
		char *end;
		uint64_t v;

		if (!s->value || !s->str)
			continue;
		v = strtoull(s->value, &end, 0);
		if (*end || !v)
			continue;
		g->mask[g->nr] = v;
		g->name[g->nr++] = s->str;
	}
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
			  size_t *len, unsigned int *nr)
{
	unsigned int k;
	int ret = 0;

	*nr = 0;
	for (k = 0; k < FT_NR && !ret; k++) {
		char *v = tracefs_event_file_read(inst, "kmem", ft_events[k].name,
						  "enable", NULL);

		if (v && (v[0] == '1' || v[0] == 'X')) {
			ret = kmf_append(out, len, "%s%s", *nr ? "," : "",
					 ft_events[k].name);
			(*nr)++;
		}
		free(v);
	}
	return ret;
}

static int ftrace_save(const struct ft_opts *o)
{
	const char *const systems[] = { "kmem", NULL };
	struct tracefs_instance *inst = NULL;
	struct kmt_err err = { "" };
	struct ft_ctx x;
	struct gfp_table gfp;
	struct kmf_import_out out;
	const char *dir = tracefs_tracing_dir();
	char *meta = NULL, *ksyms = NULL, *topo = NULL, *clock = NULL;
	char *evlist = NULL, clockname[16];
	size_t meta_len = 0, ksyms_len = 0, topo_len = 0, evlist_len = 0;
	uint64_t lost = 0, first = UINT64_MAX, complete = 0, bytes = 0;
	uint64_t end_ts = UINT64_MAX;
	unsigned int nr_enabled = 0;
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
	x.tep = tracefs_local_events_system(dir, systems);
	if (!x.tep) {
		kmf_error("cannot read the kmem event formats under %s/events/kmem: %s",
			  dir, strerror(errno ? errno : ENOENT));
		goto out;
	}
	if (find_events(&x, &err)) {
		kmf_error("%s", err.msg);
		goto out;
	}
	if (enabled_events(inst, &evlist, &evlist_len, &nr_enabled)) {
		kmf_error("out of memory");
		goto out;
	}
	ret = kmf_import_init(&x.im, possible_cpus());
	x.last_ts = calloc(x.im.nr_cpu_ids ? x.im.nr_cpu_ids : 1, sizeof(*x.last_ts));
	if (ret || !x.last_ts) {
		kmf_error("out of memory");
		goto out;
	}

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
	if (tracefs_iterate_raw_events(x.tep, inst, NULL, 0, on_record, &x) < 0 &&
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
	    (x.nameless && kmf_append(&meta, &meta_len, "ftrace_cache_names=0\n")) ||
	    kmf_append(&meta, &meta_len, "first_ts=%" PRIu64 "\n", first) ||
	    kmf_append(&meta, &meta_len, "complete_from_ts=%" PRIu64 "\n", complete) ||
	    (end_ts != UINT64_MAX &&
	     kmf_append(&meta, &meta_len, "complete_until_ts=%" PRIu64 "\n", end_ts)) ||
	    (o->no_addresses && kmf_append(&meta, &meta_len, "addresses=relative\n"))) {
		kmf_error("out of memory");
		goto restart;
	}
	gfp_names(&x, &gfp);
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
	if (x.tep)
		tep_free(x.tep);
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
	return ftrace_save(&o);
}

void kmf_save_from_ftrace_usage(FILE *f)
{
	usage(f);
}

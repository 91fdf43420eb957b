// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight import PERF.DATA FILE: a 'perf kmem record' file made into
 * a .kmt file.  The container is read by lib/perfdata.c; the kmem events
 * are decoded with the event formats perf stored in the file (its
 * tracing data) through libtraceevent, like save --from-ftrace does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../cli/cli.h"
#include "import.h"
#include "kmemev.h"
#include "meta.h"

#define PERF_TYPE_TRACEPOINT	2
/* callchain context markers: (u64)-128 kernel, -512 user, ... */
#define PERF_CONTEXT_KERNEL	((uint64_t)-128)
#define PERF_CONTEXT_MAX	((uint64_t)-4095)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight import [<options>] <perf.data> <file>\n"
		"\n"
		"Turn a 'perf kmem record' file into a .kmt file that report, diff,\n"
		"summary, info and dump read like a recorder's.  The kmem events are\n"
		"decoded with the event formats perf stored in <perf.data>, callsites\n"
		"named with the kallsyms it stored; page allocations keep their\n"
		"callchains (perf kmem --page record).  <file> is written 0600, to a\n"
		"temporary name then renamed.\n"
		"\n"
		"        --no-addresses    kernel addresses made relative (see save --help)\n"
		"    -q, --quiet           print nothing on success\n"
		"    -h, --help            this help\n");
}

struct map {
	void *p;
	size_t len;
};

static int map_file(const char *path, struct map *m, struct kmt_err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	m->p = NULL;
	m->len = 0;
	if (fd < 0)
		return kmt_errf(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return kmt_errf(err, EINVAL, "%s: not a regular file", path);
	}
	if (!st.st_size) {
		close(fd);
		return kmt_errf(err, EBADMSG, "%s: empty file", path);
	}
	m->p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m->p == MAP_FAILED) {
		m->p = NULL;
		return kmt_errf(err, errno, "%s: %s", path, strerror(errno));
	}
	m->len = (size_t)st.st_size;
	return 0;
}

/* The kernel frames of a callchain, innermost first. */
static unsigned int kernel_frames(const struct kmt_perf_sample *s,
				  uint64_t *fr, unsigned int max)
{
	unsigned int i, n = 0;
	bool kernel = false;

	for (i = 0; i < s->nr_callchain && n < max; i++) {
		uint64_t ip;

		memcpy(&ip, s->callchain + 8 * i, 8);
		if (ip >= PERF_CONTEXT_MAX) {
			kernel = ip == PERF_CONTEXT_KERNEL;
			if (!kernel && n)
				break;
			continue;
		}
		if (kernel)
			fr[n++] = ip;
	}
	return n;
}

struct imp_opts {
	const char *in, *out;
	bool quiet, no_addresses;
};

static int parse_args(int argc, char **argv, struct imp_opts *o)
{
	static const struct option longopts[] = {
		{ "no-addresses", no_argument, NULL, 'A' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'A': o->no_addresses = true; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); return -1;
		default:
			return kmf_option_error(longopts, "qh", optopt,
						argv[optind - 1], NULL);
		}
	}
	if (argc - optind != 2)
		return kmf_usage_error(argc - optind < 2 ?
				       "need a <perf.data> to read and a <file> to write" :
				       "one <perf.data> and one <file> only");
	o->in = argv[optind];
	o->out = argv[optind + 1];
	if (!*o->out)
		return kmf_usage_error("<file>: an empty file name");
	return 0;
}

static int cpu_topology(uint32_t nr, char **out, size_t *len)
{
	uint32_t i;
	int ret = kmf_append(out, len, "%s", "");

	for (i = 0; i < nr && !ret; i++)
		ret = kmf_append(out, len, "cpu %u node 0\n", i);
	return ret;
}

int cmd_import(int argc, char **argv)
{
	struct imp_opts o;
	struct kmt_err err = { "" };
	struct map m = { NULL, 0 };
	struct kmt_perf p;
	struct kmt_perf_tracing td = { 0 };
	struct kmt_perf_sample s;
	struct kmf_import im = { 0 };
	struct kmf_import_out out;
	struct kmf_gfp_table gfp;
	struct kmf_kmem k;
	struct tep_handle *tep = NULL;
	char *meta = NULL, *ksyms = NULL, *topo = NULL, when[64];
	size_t meta_len = 0, ksyms_len = 0, topo_len = 0;
	uint64_t off = 0, lost = 0, first = UINT64_MAX, last = 0, bytes = 0;
	uint64_t nonkmem = 0, with_stack = 0, complete;
	uint32_t nr_cpus, cpu;
	unsigned int i, nr_kmem = 0;
	bool perf_open = false;
	time_t now = time(NULL);
	struct tm tm;
	int ret, status = KMF_EXIT_FAIL;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	if (map_file(o.in, &m, &err)) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_FAIL;
	}
	ret = kmt_perf_open_mem(&p, m.p, m.len, &err);
	perf_open = true;
	if (!ret)
		ret = kmt_perf_tracing(&p, &td, &err);
	if (ret) {
		kmf_error("%s: %s", o.in, ret == -ENOMEM ? "out of memory" : err.msg);
		goto out;
	}
	tep = tep_alloc();
	if (!tep) {
		kmf_error("out of memory");
		goto out;
	}
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, td.long_size ? td.long_size : 8);
	tep_set_page_size(tep, td.page_size ? (int)td.page_size : 4096);
	for (i = 0; i < td.nr_formats; i++) {
		const char *sys = td.formats[i].system;

		/* kmem, and the vmscan and compaction events of --latency */
		if (strcmp(sys, "kmem") && strcmp(sys, "vmscan") &&
		    strcmp(sys, "compaction"))
			continue;
		/* one the library cannot parse is left out, not fatal */
		if (tep_parse_event(tep, td.formats[i].text, td.formats[i].len,
				    sys) != TEP_ERRNO__SUCCESS)
			continue;
		nr_kmem++;
	}
	if (!nr_kmem || kmf_kmem_init(&k, tep, &err)) {
		kmf_error("%s: no kmem events: record them with 'perf kmem record' (or perf record -e 'kmem:*')",
			  o.in);
		goto out;
	}
	nr_cpus = p.nr_cpus_avail ? p.nr_cpus_avail : 256;
	if (kmf_import_init(&im, nr_cpus)) {
		kmf_error("out of memory");
		goto out;
	}
	/* the recorder's groups the recorded events make up */
	im.groups = kmf_kmem_groups(kmf_kmem_kinds(&k));
	while ((ret = kmt_perf_next(&p, &off, &s, &err)) > 0) {
		uint64_t fr[16];
		unsigned int nf = 0;

		if (s.kind == KMT_PERF_LOST) {
			cpu = s.cpu < nr_cpus ? s.cpu : 0;
			im.lost[cpu] += s.lost;
			lost += s.lost;
			continue;
		}
		if (p.attrs[s.attr].type != PERF_TYPE_TRACEPOINT || !s.raw) {
			nonkmem++;
			continue;
		}
		if (s.cpu == UINT32_MAX) {
			kmf_error("%s: its samples carry no CPU (record with perf kmem record, which samples system-wide)",
				  o.in);
			goto out;
		}
		if (s.nr_callchain)
			nf = kernel_frames(&s, fr, 16);
		ret = kmf_kmem_add(&k, &im, s.raw, s.raw_size, s.cpu, s.time,
				   fr, nf, &err);
		if (ret < 0) {
			kmf_error("%s", err.msg);
			goto out;
		}
		if (!ret) {
			nonkmem++;
			continue;
		}
		with_stack += nf > 0;
		if (s.time < first)
			first = s.time;
		if (s.time > last)
			last = s.time;
	}
	if (ret < 0) {
		kmf_error("%s: %s", o.in, err.msg);
		goto out;
	}
	if (!im.nr) {
		kmf_error("%s holds no kmem events", o.in);
		goto out;
	}
	/* a CPU that lost events is complete only from its first one on */
	complete = first;
	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (im.lost[cpu] && im.first_ts[cpu] != UINT64_MAX &&
		    im.first_ts[cpu] > complete)
			complete = im.first_ts[cpu];
	if (td.kallsyms_len) {
		bool hidden;

		ksyms = malloc(td.kallsyms_len + 1);
		if (!ksyms) {
			kmf_error("out of memory");
			goto out;
		}
		memcpy(ksyms, td.kallsyms, td.kallsyms_len);
		ksyms[td.kallsyms_len] = '\0';
		ksyms_len = kmf_text_symbols(ksyms, td.kallsyms_len, &hidden);
	} else {
		char running[129];
		bool hidden = false;

		/* perf does not store them: this kernel's, if it recorded */
		kmf_read_build_id(running, sizeof(running));
		if (p.build_id[0] && !strcmp(running, p.build_id) &&
		    !kmf_read_kallsyms(&ksyms, &ksyms_len, &hidden) && !hidden) {
			if (!o.quiet)
				fprintf(stderr, "%s: the symbols are this kernel's: it is the one that recorded (build-id %s)\n",
					kmf_cmd_name, p.build_id);
		} else {
			free(ksyms);
			ksyms = NULL;
			ksyms_len = 0;
			kmf_warn("%s stores no kallsyms and was recorded on another kernel (build-id %s): callsites will stay raw; import it on the machine that recorded it",
				 o.in, p.build_id[0] ? p.build_id : "unknown");
		}
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (cpu_topology(nr_cpus, &topo, &topo_len) ||
	    kmf_append(&meta, &meta_len, "release=%s\n", p.release) ||
	    kmf_append(&meta, &meta_len, "hostname=%s\n", p.hostname) ||
	    kmf_append(&meta, &meta_len, "build_id=%s\n", p.build_id) ||
	    kmf_append(&meta, &meta_len, "saved_at=%s\n", when) ||
	    kmf_append(&meta, &meta_len, "cpus=%u\n", nr_cpus) ||
	    kmf_append(&meta, &meta_len, "tool=kmemflight %s\n", KMT_VERSION) ||
	    kmf_append(&meta, &meta_len, "source=perf\n") ||
	    kmf_append(&meta, &meta_len, "perf_file=%s\n", o.in) ||
	    kmf_append(&meta, &meta_len, "perf_page_callchains=%d\n",
		       with_stack > 0) ||
	    kmf_append(&meta, &meta_len, "first_ts=%" PRIu64 "\n", first) ||
	    kmf_append(&meta, &meta_len, "last_ts=%" PRIu64 "\n", last) ||
	    kmf_append(&meta, &meta_len, "complete_from_ts=%" PRIu64 "\n", complete) ||
	    (k.nameless && kmf_append(&meta, &meta_len, "ftrace_cache_names=0\n")) ||
	    (o.no_addresses && kmf_append(&meta, &meta_len, "addresses=relative\n"))) {
		kmf_error("out of memory");
		goto out;
	}
	kmf_kmem_gfp_names(&k, &gfp);
	memset(&out, 0, sizeof(out));
	out.path = o.out;
	out.meta = meta;
	out.kallsyms = ksyms;
	out.kallsyms_len = ksyms_len;
	out.topology = topo;
	out.clock = "perf";
	out.page_shift = td.page_size ? (unsigned int)__builtin_ctz(td.page_size) : 12;
	out.no_addresses = o.no_addresses;
	out.gfp_masks = gfp.mask;
	out.gfp_names = gfp.name;
	out.nr_gfp = gfp.nr;
	if (kmf_import_write(&im, &out, &bytes, &err)) {
		kmf_error("%s", err.msg);
		goto out;
	}
	if (lost)
		kmf_warn("perf lost %" PRIu64 " events while recording (its buffers filled): totals are short",
			 lost);
	if (im.skipped)
		kmf_warn("%" PRIu64 " events of CPUs beyond the %u perf recorded were left out",
			 im.skipped, nr_cpus);
	if (!o.quiet)
		printf("[ kmemflight: imported %zu kmem events from %s (%" PRIu64
		       " lost) to %s, %.1f bytes/event ]\n", im.nr, o.in, lost,
		       o.out, (double)bytes / (double)im.nr);
	(void)nonkmem;
	status = KMF_EXIT_OK;
out:
	free(meta);
	free(ksyms);
	free(topo);
	kmf_import_free(&im);
	kmt_perf_tracing_free(&td);
	if (perf_open)
		kmt_perf_close(&p);
	if (tep)
		tep_free(tep);
	if (m.p)
		munmap(m.p, m.len);
	return status;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight save FILE: stop the recorder, drain every CPU and write one
 * self-describing file with everything needed to read it elsewhere.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../cli/cli.h"
#include "bootdir.h"
#include "recorder.h"
#include "spool.h"
#include "meta.h"
#include "ftrace.h"

/* How long save waits for a running attach to finish its last drain. */
#define SAVE_ATTACH_TIMEOUT_MS	30000

struct save_opts {
	const char *path;
	const char *spool;
	const char *boot_dir;	/* --boot-dir: path is DIR/boot-ID.kmt */
	unsigned int keep_boots;	/* --keep-boots, 0: all */
	bool keep;
	bool quiet;
	bool no_addresses;
	bool from_ftrace;
	bool previous;		/* --previous: the previous boot's, kept */
	bool help;
	int first;		/* the first operand */
};

struct cpu_data {
	struct kmt_cpu_stats st;
	uint8_t *data;
	size_t size;
	uint64_t decoded;
	uint32_t nr_subbufs;
	uint32_t first_seq;
	uint64_t first_ts, last_ts;	/* of the events decoded */
	uint32_t trigger;		/* of the last KMT_MARK_FROZEN, 0: none */
	uint64_t trigger_ts;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight save [<options>] <file>\n"
		"       kmemflight save [<options>] --boot-dir <dir> [--keep-boots <n>]\n"
		"       kmemflight save --from-ftrace [<instance>] [<options>] <file>\n"
		"       kmemflight save --previous [-k] [-q] [--no-addresses] <file>\n"
		"\n"
		"Stop the kernel's kmemtrace recorder, drain every CPU's buffer and write\n"
		"<file>: events, kernel release and cmdline, kallsyms, build-id, CPU and\n"
		"NUMA topology, cache table and per-CPU loss counts.  The file is written\n"
		"to a temporary name, synced and renamed, mode 0600.\n"
		"\n"
		"If 'kmemflight attach' is running, save stops it and merges its spool\n"
		"with what is still in the kernel.  Whatever save drains from the kernel\n"
		"goes to the spool first: if the file cannot be written, the events stay\n"
		"there for the next save.\n"
		"\n"
		"Unless -k, once the file is written the recorder's buffers go back to\n"
		"the page allocator (tracefs kmemtrace/free_buffer) and a later save has\n"
		"nothing to save; writing 1 to kmemtrace/enable allocates them again and\n"
		"records from then on.\n"
		"\n"
		"    -k, --keep-recording  flush and save, but neither stop the recorder\n"
		"                          nor give back its buffers\n"
		"        --boot-dir <dir>  save to <dir>/boot-BOOT_ID.kmt (BOOT_ID: this\n"
		"                          boot's id) and write its summary next to it,\n"
		"                          <dir>/boot-BOOT_ID.summary; what\n"
		"                          kmemflight-save.service runs\n"
		"        --keep-boots <n>  with --boot-dir: keep this boot and the n - 1\n"
		"                          newest others there, remove the older ones\n"
		"        --previous        save what the previous boot recorded into the\n"
		"                          recorder's reserve_mem= region and did not save\n"
		"                          (after a panic, a reset or a reboot: boot with\n"
		"                          reserve_mem=SIZE:ALIGN:NAME kmemtrace.persist=NAME);\n"
		"                          then the region is released to record into; with\n"
		"                          --previous, -k keeps the region instead\n"
		"        --from-ftrace     a kernel without kmemtrace: save the kmem events\n"
		"                          of its ftrace buffer (see save --from-ftrace --help)\n"
		"        --no-addresses    a file to share: kernel addresses made relative\n"
		"                          to _stext and the direct map, so that it does\n"
		"                          not reveal where KASLR put the kernel\n"
		"        --spool <dir>     the attach's spool (default $KMEMFLIGHT_SPOOL,\n"
		"                          else " KMT_SPOOL_DEFAULT ")\n"
		"    -q, --quiet           print nothing on success\n"
		"    -h, --help            this help\n");
}

/*
 * Decode what was drained: count the events, check the sub-buffers, and
 * collect the cache definitions into a table (the last one of an id wins).
 */
static int scan_cpu(struct kmt_recorder *r, struct cpu_data *c, char **caches,
		    size_t *clen, struct kmt_err *err)
{
	struct kmt_cursor cur;
	struct kmt_event ev;
	int ret;

	kmt_cursor_init(&cur, &r->fmt, r->layout, false, c->st.cpu, c->data,
			c->size);
	while ((ret = kmt_cursor_next(&cur, &ev, err)) > 0) {
		if (c->decoded == 0 && cur.nr_subbufs == 1) {
			struct kmt_subbuf_header h;

			memcpy(&h, c->data, sizeof(h));
			c->first_seq = h.seq;
		}
		if (!c->decoded++)
			c->first_ts = ev.ts;
		c->last_ts = ev.ts;
		if (ev.type == KMT_EV_MARK && ev.mark == KMT_MARK_FROZEN) {
			c->trigger = ev.trigger;
			c->trigger_ts = ev.ts;
		}
		if (ev.type == KMT_EV_CACHE_DEF && (ev.has & KMT_HAS(KMT_F_NAME))) {
			ret = kmf_append(caches, clen, "%u %u %u %u %" PRIx64 " %.*s\n",
				     ev.cache, ev.obj_size, ev.size, ev.align,
				     ev.flags, (int)ev.name_len, ev.name);
			if (ret)
				return ret;
		}
	}
	c->nr_subbufs = (uint32_t)cur.nr_subbufs;
	return ret;
}

/* The mode, the freeze and each CPU's window: KMT_SEC_FLIGHT. */
static int write_flight(struct kmt_writer *w, const struct kmt_recorder_flight *fl,
			const struct cpu_data *cpus, unsigned int nr,
			struct kmt_err *err)
{
	struct kmt_flight_section fs = {
		.mode = fl->mode,
		.trigger = fl->trigger,
		.trigger_ts = fl->trigger_ts,
		.frozen_ts = fl->frozen_ts,
		.nr_cpus = nr,
		.cpu_size = sizeof(struct kmt_flight_cpu),
	};
	struct kmt_flight_cpu *fc = calloc(nr ? nr : 1, sizeof(*fc));
	unsigned int i;
	int ret;

	if (!fc)
		return kmt_errf(err, ENOMEM, "out of memory");
	for (i = 0; i < nr; i++) {
		fc[i].cpu = cpus[i].st.cpu;
		fc[i].overwritten = cpus[i].st.overwritten;
		fc[i].frozen_dropped = cpus[i].st.frozen_dropped;
		if (cpus[i].decoded) {
			fc[i].window_start = cpus[i].first_ts;
			fc[i].window_end = cpus[i].last_ts;
		}
	}
	ret = kmt_writer_section2(w, KMT_SEC_FLIGHT, &fs, sizeof(fs), fc,
				  (size_t)nr * sizeof(*fc), err);
	free(fc);
	return ret;
}

/* Sort "id ..." lines by id and keep the last definition of each. */
static int cmp_line_id(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a, NULL, 10);
	unsigned long y = strtoul(*(char *const *)b, NULL, 10);

	if (x != y)
		return x < y ? -1 : 1;
	return *(char *const *)a < *(char *const *)b ? -1 : 1;
}

static int dedup_caches(char **caches, size_t *len)
{
	char **lines = NULL, *s, *out = NULL, *save = NULL;
	size_t n = 0, i, olen = 0;
	int ret = 0;

	if (!*caches)
		return 0;
	for (s = strtok_r(*caches, "\n", &save); s; s = strtok_r(NULL, "\n", &save)) {
		char **nl = realloc(lines, (n + 1) * sizeof(*lines));

		if (!nl) {
			free(lines);
			return -ENOMEM;
		}
		lines = nl;
		lines[n++] = s;
	}
	qsort(lines, n, sizeof(*lines), cmp_line_id);
	for (i = 0; i < n && !ret; i++) {
		if (i + 1 < n && strtoul(lines[i], NULL, 10) ==
				 strtoul(lines[i + 1], NULL, 10))
			continue;
		ret = kmf_append(&out, &olen, "%s\n", lines[i]);
	}
	free(lines);
	free(*caches);
	*caches = out;
	*len = olen;
	return ret;
}

static int strip_addresses(struct kmt_recorder *r, struct cpu_data *cpus,
			   unsigned int nr, char **ksyms, size_t *ksyms_len,
			   struct kmt_err *err)
{
	uint64_t text = r->fmt.text_base, dmap = r->fmt.direct_map_base;
	uint64_t zero = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < nr; i++) {
		ret = kmt_records_rebase(&r->fmt, r->layout, false,
					 cpus[i].st.cpu, (uint8_t *)cpus[i].data,
					 cpus[i].size, text, dmap, err);
		if (ret)
			return ret;
	}
	ret = kmf_relative_kallsyms(ksyms, ksyms_len, text);
	if (ret)
		return kmt_errf(err, ENOMEM, "out of memory");
	/* the recorder's header is in this machine's byte order */
	memcpy(r->header + offsetof(struct kmt_format, text_base), &zero, 8);
	memcpy(r->header + offsetof(struct kmt_format, direct_map_base), &zero, 8);
	r->fmt.text_base = 0;
	r->fmt.direct_map_base = 0;
	return 0;
}

static int parse_args(int argc, char **argv, struct save_opts *o)
{
	static const struct option longopts[] = {
		{ "keep-recording", no_argument, NULL, 'k' },
		{ "no-addresses", no_argument, NULL, 'A' },
		{ "from-ftrace", no_argument, NULL, 'F' },
		{ "previous", no_argument, NULL, 'P' },
		{ "spool", required_argument, NULL, 'S' },
		{ "boot-dir", required_argument, NULL, 'B' },
		{ "keep-boots", required_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *keep_boots = NULL;
	unsigned long n;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":kqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': o->keep = true; break;
		case 'A': o->no_addresses = true; break;
		case 'F': o->from_ftrace = true; break;
		case 'P': o->previous = true; break;
		case 'S': o->spool = optarg; break;
		case 'B': o->boot_dir = optarg; break;
		case 'N': keep_boots = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': o->help = true; break;
		default:
			return kmf_option_error(longopts, "kqh", optopt,
						argv[optind - 1], NULL);
		}
	}
	o->first = optind;
	if (o->help) {
		if (o->from_ftrace)
			kmf_save_from_ftrace_usage(stdout);
		else
			usage(stdout);
		return -1;
	}
	if (keep_boots) {
		errno = 0;
		n = strtoul(keep_boots, &end, 10);
		if (!o->boot_dir)
			return kmf_usage_error("--keep-boots goes with --boot-dir");
		if (errno || end == keep_boots || *end || keep_boots[0] == '-' ||
		    n < 1 || n > KMF_BOOTDIR_MAX_KEEP)
			return kmf_usage_error("--keep-boots '%s': a number of boots from 1 to %u",
					       keep_boots, KMF_BOOTDIR_MAX_KEEP);
		o->keep_boots = (unsigned int)n;
	}
	if (o->previous) {
		if (o->from_ftrace)
			return kmf_usage_error("--previous saves the kmemtrace recorder's region, not ftrace's buffer");
		if (o->spool || o->boot_dir)
			return kmf_usage_error("--previous goes with neither --spool nor --boot-dir: give the <file>");
	}
	if (o->from_ftrace) {
		if (o->spool)
			return kmf_usage_error("--spool is for the kmemtrace recorder, not --from-ftrace");
		if (o->boot_dir)
			return kmf_usage_error("--boot-dir is for the kmemtrace recorder, not --from-ftrace");
		return 0;
	}
	if (o->boot_dir) {
		if (!*o->boot_dir)
			return kmf_usage_error("--boot-dir: an empty directory name");
		if (optind != argc)
			return kmf_usage_error("--boot-dir names the file: no <file> with it");
		return 0;
	}
	if (optind != argc - 1)
		return kmf_usage_error(optind == argc ? "missing <file> to save to" :
				       "one <file> only");
	if (!*argv[optind])
		return kmf_usage_error("<file>: an empty file name");
	o->path = argv[optind];
	return 0;
}

/*
 * Summarise the attach's log for the user and for META: each attach
 * logs a start line and, if it ended cleanly, a stop line with its own
 * counters; add them up over every attach of this boot.
 */
/*
 * /proc/NAME ($KMEMFLIGHT_PROC/NAME for tests) into *buf; a file that
 * cannot be read is left out with a warning (NULL *buf), and only
 * -ENOMEM fails.
 */
static int read_proc(const char *name, char **buf, size_t *len)
{
	const char *dir = getenv("KMEMFLIGHT_PROC");
	char path[4200];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/proc", name);
	ret = kmt_read_file(path, buf, len);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		*buf = NULL;
		kmf_warn("cannot read %s (%s): the file will not have the kernel's totals that report --footprint weighs the trace against",
			 path, strerror(-ret));
	}
	return 0;
}

/* The text of @path, its first line only, "" when it cannot be read. */
static void first_line(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * The tasks at the save, every thread of every process: "TID\tCOMM\tCGROUP"
 * lines ($KMEMFLIGHT_PROC for tests), so that readers name the pids of
 * a window whose task records were overwritten.  Tasks that exit while
 * it reads are skipped; only -ENOMEM fails.
 */
static int snapshot_tasks(char **out, size_t *len)
{
	const char *dir = getenv("KMEMFLIGHT_PROC");
	char path[4200], comm[64], cg[4096], *p;
	struct dirent *pe, *te;
	DIR *pd, *td;
	int ret = 0;

	dir = dir && *dir ? dir : "/proc";
	pd = opendir(dir);
	if (!pd)
		return 0;
	while (!ret && (pe = readdir(pd))) {
		if (pe->d_name[0] < '1' || pe->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/cgroup", dir, pe->d_name);
		first_line(path, cg, sizeof(cg));
		/* cgroup v2: "0::/path"; v1 only: no path */
		p = !strncmp(cg, "0::", 3) ? cg + 3 : "";
		snprintf(path, sizeof(path), "%s/%s/task", dir, pe->d_name);
		td = opendir(path);
		if (!td)
			continue;
		while (!ret && (te = readdir(td))) {
			if (te->d_name[0] < '1' || te->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "%s/%s/task/%s/comm", dir,
				 pe->d_name, te->d_name);
			first_line(path, comm, sizeof(comm));
			if (!comm[0] || strchr(comm, '\t'))
				continue;
			ret = kmf_append(out, len, "%s\t%s\t%s\n", te->d_name, comm, p);
		}
		closedir(td);
	}
	closedir(pd);
	return ret;
}

/* Deepest cgroup the tree below is read to; systemd's is under 10 deep. */
#define CGROUP_MAX_DEPTH	32

/*
 * The id of cgroup directory @fd: its file handle on cgroup2 (the
 * kernel's u64 cgroup id, whatever the word size), else its inode
 * number (the id on 64-bit kernels, and what a test's tree gives).
 */
static uint64_t cgroup_id_of(int fd, const struct stat *st, bool cgroup2)
{
	union {
		struct file_handle fh;
		unsigned char bytes[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h;
	uint64_t id;
	int mnt;

	if (cgroup2) {
		h.fh.handle_bytes = sizeof(id);
		if (!name_to_handle_at(fd, "", &h.fh, &mnt, AT_EMPTY_PATH) &&
		    h.fh.handle_bytes == sizeof(id)) {
			memcpy(&id, h.bytes + sizeof(struct file_handle), sizeof(id));
			return id;
		}
	}
	return (uint64_t)st->st_ino;
}

/* "ID\tPATH" lines of directory @fd (@path, under the root) and below. */
static int walk_cgroups(int fd, char *path, size_t len, size_t size,
			unsigned int depth, bool cgroup2, char **out,
			size_t *out_len)
{
	struct dirent *de;
	struct stat st;
	size_t n;
	DIR *d;
	int sub, ret;

	if (fstat(fd, &st)) {
		close(fd);
		return 0;
	}
	ret = kmf_append(out, out_len, "%" PRIu64 "\t%s\n",
			 cgroup_id_of(fd, &st, cgroup2), len ? path : "/");
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return ret;
	}
	while (!ret && depth < CGROUP_MAX_DEPTH && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		n = strlen(de->d_name);
		if (len + 1 + n >= size || strchr(de->d_name, '\n') ||
		    strchr(de->d_name, '\t'))
			continue;
		/* a cgroup removed while it reads, or not a directory: skipped */
		sub = openat(dirfd(d), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		ret = walk_cgroups(sub, path, len + 1 + n, size, depth + 1,
				   cgroup2, out, out_len);
		path[len] = '\0';
	}
	closedir(d);
	return ret;
}

/*
 * The cgroup v2 tree at the save, "ID\tPATH" lines, from its mount
 * ($KMEMFLIGHT_CGROUP for tests): the paths of the cgroup ids that task
 * records give alone.  No cgroup2 mount, nothing; only -ENOMEM fails.
 */
static int snapshot_cgroups(char **out, size_t *len)
{
	static const char *const mounts[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
	};
	const char *dir = getenv("KMEMFLIGHT_CGROUP");
	bool cgroup2 = false;
	struct statfs sf;
	char path[4096];
	size_t i;
	int fd;

	if (!dir || !*dir) {
		dir = NULL;
		for (i = 0; i < sizeof(mounts) / sizeof(mounts[0]) && !dir; i++)
			if (!statfs(mounts[i], &sf) &&
			    sf.f_type == CGROUP2_SUPER_MAGIC)
				dir = mounts[i];
		if (!dir)
			return 0;
		cgroup2 = true;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	path[0] = '\0';
	return walk_cgroups(fd, path, 0, sizeof(path), 0, cgroup2, out, len);
}

/*
 * The kernel's page counters lag by what each CPU has not folded in yet
 * (up to its vmstat threshold, tens of pages per zone): writing
 * /proc/sys/vm/stat_refresh folds them, so that MemFree is exact.  Only
 * root may; without it the totals are a little less exact, nothing worse.
 */
static void refresh_vmstat(void)
{
	const char *dir = getenv("KMEMFLIGHT_PROC");
	int fd;

	if (dir && *dir)
		return;		/* a test's /proc: nothing to refresh */
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "1\n", 2) < 0) {
		/* the counters stay as they are */
	}
	close(fd);
}

static void attach_summary(const char *log, char *out, size_t size)
{
	unsigned long long bytes = 0, reads = 0, user = 0, sys = 0, lost = 0;
	unsigned long long b, r, u, sy;
	unsigned int starts = 0, stops = 0;
	const char *l, *f;
	long first = 0, pid;

	out[0] = '\0';
	for (l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		if (!strncmp(l, "start ", 6)) {
			if (!starts++) {
				sscanf(l, "start pid=%ld", &first);
				f = strstr(l, " lost=");
				if (f)
					sscanf(f, " lost=%llu", &lost);
			}
		} else if (!strncmp(l, "stop ", 5) &&
			   sscanf(l, "stop pid=%ld", &pid) == 1 &&
			   (f = strstr(l, " reads=")) &&
			   sscanf(f, " reads=%llu bytes=%llu user_us=%llu sys_us=%llu",
				  &r, &b, &u, &sy) == 4) {
			stops++;
			reads += r;
			bytes += b;
			user += u;
			sys += sy;
		}
	}
	if (!starts)
		return;
	snprintf(out, size,
		 "attach pid %ld%s drained %llu bytes in %llu reads using %.1f ms CPU; %llu events were lost before it started%s",
		 first, starts > 1 ? " (and re-attaches)" : "", bytes, reads,
		 (double)(user + sys) / 1000.0, lost,
		 stops < starts ? "; an attach ended without stopping cleanly" : "");
}

/*
 * The value of line "@key: value" of @text into @out (cut to @size), or
 * false when there is no such line.  @text is left as it is: parsed once.
 */
static bool info_value(const char *text, const char *key, char *out,
		       size_t size)
{
	size_t kl = strlen(key), n;
	const char *p, *nl;

	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (!strncmp(p, key, kl) && p[kl] == ':' && p[kl + 1] == ' ') {
			p += kl + 2;
			n = nl ? (size_t)(nl - p) : strlen(p);
			if (n >= size)
				n = size - 1;
			memcpy(out, p, n);
			out[n] = '\0';
			return true;
		}
	}
	return false;
}

/*
 * Whether the recorder's pool is a reserve_mem= region (previous/info
 * says "region: pool"): memblock's memory, which MemTotal leaves out,
 * not the page allocator's.
 */
static bool pool_in_region(const struct kmt_recorder *r)
{
	char path[1200], *info = NULL, state[16];
	size_t len = 0;
	bool yes;

	snprintf(path, sizeof(path), "%s/previous/info", r->dir);
	if (kmt_read_file(path, &info, &len))
		return false;
	yes = info_value(info, "region", state, sizeof(state)) &&
	      !strcmp(state, "pool");
	free(info);
	return yes;
}

/*
 * save --previous: what the previous boot of this kernel left in the
 * recorder's reserve_mem= region (tracefs kmemtrace/previous/), written
 * with this boot's format and symbols, which are that boot's: the kernel
 * keeps a region only for the kernel that wrote it.  Then, unless -k,
 * the region is released, for the recorder to record into.
 */
static int save_previous(const struct save_opts *o)
{
	struct kmt_recorder r;
	struct kmt_writer w;
	struct kmt_err err = { "" };
	struct kmt_recorder_flight fl = { 0 };
	struct cpu_data *cpus = NULL;
	struct kmt_prev_cpu *prev = NULL;
	char *info = NULL, *data = NULL, *meta = NULL, *ksyms = NULL;
	char *caches = NULL, *topo = NULL, state[32], v[64], cmdline[4096];
	size_t info_len = 0, data_len = 0, meta_len = 0, ksyms_len = 0;
	size_t caches_len = 0, topo_len = 0;
	char path[1200], dropped[160] = "";
	uint64_t events = 0, lost = 0, bytes = 0;
	unsigned int nr = 0, i, cut = 0;
	bool hidden = false, writing = false, have_cmdline;
	int ret, status = KMF_EXIT_FAIL;

	ret = kmt_recorder_open(&r, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/previous/info", r.dir);
	ret = kmt_read_file(path, &info, &info_len);
	if (ret == -ENOENT) {
		kmf_error("this boot keeps nothing of the previous one: boot with reserve_mem=SIZE:ALIGN:NAME kmemtrace.persist=NAME (%s is missing)",
			  path);
		goto out;
	}
	if (ret) {
		kmt_recorder_error(&r, path, -ret, &err);
		kmf_error("%s", err.msg);
		goto out;
	}
	if (!info_value(info, "region", state, sizeof(state)))
		strcpy(state, "unknown");
	if (!strcmp(state, "foreign")) {
		kmf_error("the recorder's region holds no trace of this kernel: another kernel wrote it, or it was damaged; nothing saved. The kernel's log says which ('dmesg | grep kmemtrace'); booting the kernel that wrote it reads it, and the recorder formats it when it next takes the region for its pool");
		goto out;
	}
	if (strcmp(state, "kept")) {
		kmf_error("nothing of the previous boot is kept (the region is %s): it saved everything, recorded nothing into the region, or its sub-buffers were released; see %s",
			  state, path);
		goto out;
	}
	if (info_value(info, "dropped", v, sizeof(v)) && strcmp(v, "0"))
		snprintf(dropped, sizeof(dropped), "%s sub-buffers damaged or out of sequence were left out", v);
	have_cmdline = info_value(info, "cmdline", cmdline, sizeof(cmdline));
	if (info_value(info, "mode", v, sizeof(v)) && !strcmp(v, "flight"))
		fl.mode = KMT_MODE_FLIGHT;
	/* that boot's pool was the region's sub-buffers, not this one's */
	if (info_value(info, "subbufs", v, sizeof(v)) &&
	    r.header_len >= sizeof(struct kmt_format)) {
		struct kmt_format f;
		unsigned long n = strtoul(v, NULL, 10);

		memcpy(&f, r.header, sizeof(f));
		f.nr_subbufs = n < 256 ? (uint32_t)n : 256;
		/* a header from before the pool has no pool_subbufs */
		if (f.header_size >= offsetof(struct kmt_format, pool_subbufs) +
				     sizeof(f.pool_subbufs))
			f.pool_subbufs = (uint32_t)n;
		memcpy(r.header, &f, offsetof(struct kmt_format, pool_subbufs));
		if (f.header_size >= offsetof(struct kmt_format, pool_subbufs) +
				     sizeof(f.pool_subbufs))
			memcpy(r.header + offsetof(struct kmt_format, pool_subbufs),
			       &f.pool_subbufs, sizeof(f.pool_subbufs));
	}

	snprintf(path, sizeof(path), "%s/previous/data", r.dir);
	ret = kmt_read_file(path, &data, &data_len);
	if (ret) {
		kmt_recorder_error(&r, path, -ret, &err);
		kmf_error("%s", err.msg);
		goto out;
	}
	ret = kmt_previous_split((const uint8_t *)data, data_len,
				 r.fmt.subbuf_size, &prev, &nr, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		goto out;
	}
	cpus = calloc(nr ? nr : 1, sizeof(*cpus));
	if (!cpus) {
		kmf_error("out of memory");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		uint32_t whole;

		/* into data: no copy */
		cpus[i].data = (uint8_t *)data + prev[i].off;
		cpus[i].size = kmt_previous_whole(&r.fmt, r.layout, &prev[i],
						  (const uint8_t *)data, &whole);
		cut += prev[i].nr_subbufs - whole;
		cpus[i].st.cpu = prev[i].cpu;
		cpus[i].st.has_buffer = true;
		cpus[i].st.lost = prev[i].lost;
		ret = scan_cpu(&r, &cpus[i], &caches, &caches_len, &err);
		if (ret) {
			kmf_error("the previous boot's data is inconsistent: %s", err.msg);
			goto out;
		}
		cpus[i].st.events = cpus[i].decoded;
		events += cpus[i].decoded;
		lost += cpus[i].st.lost;
		bytes += cpus[i].size;
		if (cpus[i].trigger && cpus[i].trigger_ts >= fl.trigger_ts) {
			fl.trigger = cpus[i].trigger;
			fl.trigger_ts = fl.frozen_ts = cpus[i].trigger_ts;
		}
	}
	if (!events) {
		kmf_error("the previous boot's sub-buffers hold no events");
		goto out;
	}
	if (dedup_caches(&caches, &caches_len)) {
		kmf_error("out of memory");
		goto out;
	}
	ret = kmf_read_kallsyms(&ksyms, &ksyms_len, &hidden);
	if (ret == -ENOMEM) {
		kmf_error("out of memory");
		goto out;
	}
	if (ret)
		kmf_warn("cannot read /proc/kallsyms (%s): the file will have no symbols; callsites will stay raw",
			 strerror(-ret));
	else if (hidden)
		kmf_warn("/proc/kallsyms shows no addresses (kptr_restrict?): callsites will stay raw");
	if (o->no_addresses) {
		ret = strip_addresses(&r, cpus, nr, &ksyms, &ksyms_len, &err);
		if (ret) {
			kmf_error("%s", err.msg);
			goto out;
		}
	}
	/* the same machine's, since its memory kept the region */
	snprintf(path, sizeof(path), "%s/topology", r.dir);
	ret = kmt_read_file(path, &topo, &topo_len);
	if (ret) {
		kmf_error("%s: %s", path, strerror(-ret));
		goto out;
	}
	if (kmf_build_meta_cmdline(&meta, &meta_len, nr, have_cmdline ? cmdline : "") ||
	    kmf_append(&meta, &meta_len, "boot=previous\npool=region\n") ||
	    (o->no_addresses && kmf_append(&meta, &meta_len, "addresses=relative\n"))) {
		kmf_error("out of memory");
		goto out;
	}
	ret = kmt_writer_open(&w, o->path, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		goto out;
	}
	writing = true;
	ret = kmt_writer_section(&w, KMT_SEC_FORMAT, r.header, r.header_len, &err);
	ret = ret ?: kmt_writer_section(&w, KMT_SEC_META, meta, meta_len, &err);
	ret = ret ?: kmt_writer_section(&w, KMT_SEC_CACHES, caches, caches_len, &err);
	ret = ret ?: kmt_writer_section_zstd(&w, KMT_SEC_KALLSYMS, ksyms, ksyms_len, &err);
	ret = ret ?: kmt_writer_section(&w, KMT_SEC_TOPOLOGY, topo, topo_len, &err);
	for (i = 0; i < nr && !ret; i++) {
		struct kmt_cpu_section cs = {
			.cpu = cpus[i].st.cpu,
			.nr_subbufs = cpus[i].nr_subbufs,
			.events = cpus[i].st.events,
			.lost = cpus[i].st.lost,
		};

		ret = kmt_writer_section2(&w, KMT_SEC_CPU, &cs, sizeof(cs),
					  cpus[i].data, cpus[i].size, &err);
	}
	/* its mode, what froze it or panicked: the window up to it */
	if (!ret)
		ret = write_flight(&w, &fl, cpus, nr, &err);
	ret = ret ?: kmt_writer_commit(&w, &err);
	writing = false;
	if (ret) {
		kmt_writer_abort(&w);
		kmf_error("%s", err.msg);
		goto out;
	}
	if (!o->keep) {
		ret = kmt_recorder_release_previous(&r);
		if (ret)
			kmf_warn("saved, but the previous boot's sub-buffers are still kept: %s/previous/release: %s",
				 r.dir, strerror(-ret));
	}
	if (dropped[0])
		kmf_warn("%s", dropped);
	if (cut)
		kmf_warn("%u sub-buffers of the previous boot did not decode (written over at the reset, or never written back): each CPU's trace ends before its first such one",
			 cut);
	if (!o->quiet)
		printf("[ kmemflight: saved %" PRIu64 " events of the previous boot from %u CPUs (%" PRIu64
		       " lost%s%s) to %s, %.1f bytes/event ]\n", events, nr, lost,
		       fl.trigger ? ", ended by " : "",
		       fl.trigger ? kmt_trigger_name(fl.trigger) : "", o->path,
		       (double)bytes / (double)events);
	status = KMF_EXIT_OK;
out:
	if (writing)
		kmt_writer_abort(&w);
	/* their data is in data */
	free(cpus);
	free(prev);
	free(info);
	free(data);
	free(meta);
	free(ksyms);
	free(caches);
	free(topo);
	kmt_recorder_close(&r);
	return status;
}

int cmd_save(int argc, char **argv)
{
	struct save_opts o;
	struct kmt_recorder r;
	struct kmt_spool sp = { .dirfd = -1, .lockfd = -1 };
	struct kmt_cpu_stats *st = NULL;
	struct cpu_data *cpus = NULL;
	struct kmt_writer w;
	struct kmt_err err = { "" };
	struct kmf_bootdir bd = { .dirfd = -1 };
	struct kmt_recorder_flight fl;
	bool has_flight = false;
	char *meta = NULL, *ksyms = NULL, *topo = NULL, *caches = NULL;
	char *kcaches = NULL, *tasks = NULL, *cgroups = NULL;
	size_t kcaches_len = 0, tasks_len = 0, cgroups_len = 0;
	char *meminfo = NULL, *vmstat = NULL, *zoneinfo = NULL;
	size_t meminfo_len = 0, vmstat_len = 0, zoneinfo_len = 0;
	char *alog = NULL, summary[512] = "";
	size_t meta_len, ksyms_len = 0, topo_len = 0, caches_len = 0;
	char path[4200];
	unsigned int nr = 0, i, n, removed = 0;
	char rotated[64] = "";
	uint64_t events = 0, lost = 0, lost_nobuf = 0, bytes = 0, overwritten = 0;
	uint64_t frozen_dropped = 0;
	bool on = false, hidden = false, writing = false, spooled = false;
	pid_t stopped = 0;
	int ret, status = KMF_EXIT_FAIL;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	if (o.from_ftrace)
		return kmf_save_from_ftrace(argc, argv, o.first, o.keep, o.quiet,
					    o.no_addresses);
	if (o.previous)
		return save_previous(&o);
	if (o.boot_dir) {
		/* before anything is stopped: a directory we cannot use */
		ret = kmf_bootdir_open(&bd, o.boot_dir, &err);
		if (ret) {
			kmf_error("%s", err.msg);
			kmf_bootdir_close(&bd);
			return KMF_EXIT_FAIL;
		}
		o.path = bd.path;
	}
	/* before anything is stopped or drained: a target we cannot replace */
	if (kmt_writer_check(o.path, &err)) {
		kmf_error("%s", err.msg);
		kmf_bootdir_close(&bd);
		return KMF_EXIT_FAIL;
	}

	ret = kmt_recorder_open(&r, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		kmf_bootdir_close(&bd);
		return KMF_EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/enable", r.dir);
	ret = kmt_recorder_enabled(&r, &on);
	if (ret) {
		kmt_recorder_error(&r, path, -ret, &err);
		kmf_error("%s", err.msg);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/flush", r.dir);
	ret = kmt_recorder_flush(&r);
	if (ret == -ENODEV) {
		kmf_error("the recorder was never started: boot with kmemtrace.enable=1 (or write 1 to %s/enable)",
			  r.dir);
		goto out;
	}
	if (ret == -ENODATA) {
		kmf_error("nothing left to save: the recorder's buffers were given back (by an earlier save, which holds the trace, or through free_buffer); to record from now on, write 1 to %s/enable",
			  r.dir);
		goto out;
	}
	if (ret) {
		kmt_recorder_error(&r, path, -ret, &err);
		kmf_error("cannot flush the recorder: %s", err.msg);
		goto out;
	}

	/*
	 * The spool: a running attach finishes its last drain into it, and
	 * what save drains joins it before anything else happens, so that a
	 * failed write loses nothing.
	 */
	ret = kmt_spool_open(&sp, kmt_spool_path(o.spool), true, &err);
	if (ret == -EACCES || ret == -EROFS || ret == -ENOENT) {
		/*
		 * No spool, so no attach either.  The default one cannot be
		 * made in an early initramfs without /run: nothing to say.
		 * A spool asked for by name is another matter.
		 */
		if (kmt_spool_named(o.spool))
			kmf_warn("%s; saving without a spool", err.msg);
	} else if (ret) {
		kmf_error("%s", err.msg);
		goto out;
	} else {
		ret = kmt_spool_stop_attach(&sp, SAVE_ATTACH_TIMEOUT_MS, &stopped, &err);
		if (!ret)
			kmt_spool_set_owner(&sp, "save");
		ret = ret ?: kmt_spool_bind(&sp, r.header, r.header_len, &err);
		if (ret) {
			kmf_error("%s", err.msg);
			goto out;
		}
		spooled = true;
	}
	/* The kernel's own totals while it still records: the trace
	 * ends where they were taken, give or take the few events of
	 * stopping it. */
	refresh_vmstat();
	ret = read_proc("meminfo", &meminfo, &meminfo_len);
	ret = ret ?: read_proc("vmstat", &vmstat, &vmstat_len);
	ret = ret ?: read_proc("zoneinfo", &zoneinfo, &zoneinfo_len);
	if (ret == -ENOMEM) {
		kmf_error("out of memory");
		goto out;
	}
	if (!o.keep && on) {
		snprintf(path, sizeof(path), "%s/enable", r.dir);
		ret = kmt_recorder_set(&r, false);
		if (ret) {
			kmt_recorder_error(&r, path, -ret, &err);
			kmf_error("cannot stop the recorder: %s", err.msg);
			goto out;
		}
	}
	/* Close what was filled since (and the recording-off mark). */
	ret = kmt_recorder_flush(&r);
	if (ret) {
		kmf_error("cannot flush the recorder: %s", strerror(-ret));
		goto out;
	}
	ret = kmt_recorder_stats(&r, &st, &nr, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		goto out;
	}
	ret = kmt_recorder_flight(&r, &fl, &err);
	if (ret && ret != -ENOENT) {
		kmf_error("%s", err.msg);
		goto out;
	}
	has_flight = !ret;
	/*
	 * The CPUs that had a buffer, and those that lost events for want
	 * of one; not those that never came up.
	 */
	for (i = 0, n = 0; i < nr; i++)
		if (kmt_cpu_has_buffer(&st[i]) || st[i].lost)
			st[n++] = st[i];
	nr = n;
	cpus = calloc(nr ? nr : 1, sizeof(*cpus));
	if (!cpus) {
		kmf_error("out of memory");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		cpus[i].st = st[i];
		if (!kmt_cpu_has_buffer(&st[i]))
			continue;
		ret = kmt_recorder_drain(&r, st[i].cpu, &cpus[i].data,
					 &cpus[i].size, &err);
		if (ret) {
			kmf_error("%s", err.msg);
			goto kept;
		}
		if (!spooled)
			continue;
		ret = kmt_spool_cpu_fd(&sp, st[i].cpu, &err);
		if (ret >= 0) {
			int fd = ret;

			ret = kmt_write_all(fd, cpus[i].data, cpus[i].size);
			if (!ret && fsync(fd) < 0 && errno != EINVAL)
				ret = -errno;
			close(fd);
			if (ret)
				kmt_errf(&err, -ret, "%s/cpu%u: %s", sp.path,
					 st[i].cpu, strerror(-ret));
		}
		if (ret) {
			kmf_error("%s: cpu %u's last %zu bytes are lost", err.msg,
				  st[i].cpu, cpus[i].size);
			goto kept;
		}
		free(cpus[i].data);
		cpus[i].data = NULL;
		ret = kmt_spool_read_cpu(&sp, st[i].cpu, &cpus[i].data,
					 &cpus[i].size, &err);
		if (ret) {
			kmf_error("%s", err.msg);
			goto out;
		}
	}
	for (i = 0; i < nr; i++) {
		ret = scan_cpu(&r, &cpus[i], &caches, &caches_len, &err);
		if (ret) {
			kmf_error("the %s data is inconsistent: %s",
				  spooled ? "spooled and recorded" : "recorder's", err.msg);
			goto kept;
		}
		events += cpus[i].decoded;
		lost += st[i].lost;
		overwritten += st[i].overwritten;
		frozen_dropped += st[i].frozen_dropped;
		bytes += cpus[i].size;
	}
	/* the tasks that exist: a flight window lacks their task records */
	if (snapshot_tasks(&tasks, &tasks_len) ||
	    snapshot_cgroups(&cgroups, &cgroups_len)) {
		kmf_error("out of memory");
		goto kept;
	}
	/* the caches that exist: a flight window lacks their definitions */
	snprintf(path, sizeof(path), "%s/caches", r.dir);
	ret = kmt_read_file(path, &kcaches, &kcaches_len);
	if (!ret && kcaches_len)
		ret = kmf_append(&caches, &caches_len, "%s", kcaches);
	if (ret == -ENOMEM) {
		kmf_error("out of memory");
		goto kept;
	}
	if (!events) {
		kmf_error("the recorder holds no events (were they saved or read already?)");
		if (spooled)
			kmt_spool_remove(&sp);
		goto out;
	}
	if (dedup_caches(&caches, &caches_len)) {
		kmf_error("out of memory");
		goto kept;
	}
	ret = kmf_read_kallsyms(&ksyms, &ksyms_len, &hidden);
	if (ret == -ENOMEM) {
		kmf_error("out of memory");
		goto kept;
	}
	if (ret)
		kmf_warn("cannot read /proc/kallsyms (%s): the file will have no symbols; callsites will stay raw",
			 strerror(-ret));
	else if (hidden)
		kmf_warn("/proc/kallsyms shows no addresses (kptr_restrict?): callsites will stay raw");
	if (o.no_addresses) {
		ret = strip_addresses(&r, cpus, nr, &ksyms, &ksyms_len, &err);
		if (ret) {
			kmf_error("%s", err.msg);
			goto kept;
		}
	}
	snprintf(path, sizeof(path), "%s/topology", r.dir);
	ret = kmt_read_file(path, &topo, &topo_len);
	if (ret) {
		kmf_error("%s: %s", path, strerror(-ret));
		goto kept;
	}
	if (spooled) {
		alog = kmt_spool_read_log(&sp);
		attach_summary(alog, summary, sizeof(summary));
	}
	if (kmf_build_meta(&meta, &meta_len, nr) ||
	    (pool_in_region(&r) && kmf_append(&meta, &meta_len, "pool=region\n")) ||
	    (summary[0] && kmf_append(&meta, &meta_len, "attach=%s\n", summary)) ||
	    (o.no_addresses && kmf_append(&meta, &meta_len, "addresses=relative\n"))) {
		kmf_error("out of memory");
		goto kept;
	}

	ret = kmt_writer_open(&w, o.path, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		goto kept;
	}
	writing = true;
	ret = kmt_writer_section(&w, KMT_SEC_FORMAT, r.header, r.header_len, &err);
	ret = ret ?: kmt_writer_section(&w, KMT_SEC_META, meta, meta_len, &err);
	ret = ret ?: kmt_writer_section(&w, KMT_SEC_TOPOLOGY, topo, topo_len, &err);
	ret = ret ?: kmt_writer_section(&w, KMT_SEC_CACHES, caches, caches_len, &err);
	ret = ret ?: kmt_writer_section_zstd(&w, KMT_SEC_KALLSYMS, ksyms, ksyms_len, &err);
	if (meminfo)
		ret = ret ?: kmt_writer_section(&w, KMT_SEC_MEMINFO, meminfo,
						meminfo_len, &err);
	if (vmstat)
		ret = ret ?: kmt_writer_section(&w, KMT_SEC_VMSTAT, vmstat,
						vmstat_len, &err);
	if (zoneinfo)
		ret = ret ?: kmt_writer_section(&w, KMT_SEC_ZONEINFO, zoneinfo,
						zoneinfo_len, &err);
	for (i = 0; i < nr && !ret; i++) {
		struct kmt_cpu_section cs = {
			.cpu = cpus[i].st.cpu,
			.nr_subbufs = cpus[i].nr_subbufs,
			.events = cpus[i].st.events,
			.lost = cpus[i].st.lost,
		};

		ret = kmt_writer_section2(&w, KMT_SEC_CPU, &cs, sizeof(cs),
					  cpus[i].data, cpus[i].size, &err);
	}
	if (has_flight && !ret)
		ret = write_flight(&w, &fl, cpus, nr, &err);
	if (tasks_len && !ret)
		ret = kmt_writer_section(&w, KMT_SEC_TASKS, tasks, tasks_len, &err);
	if (cgroups_len && !ret)
		ret = kmt_writer_section(&w, KMT_SEC_CGROUPS, cgroups, cgroups_len, &err);
	ret = ret ?: kmt_writer_commit(&w, &err);
	writing = false;
	if (ret) {
		kmt_writer_abort(&w);
		kmf_error("%s", err.msg);
		goto kept;
	}
	if (spooled) {
		ret = kmt_spool_remove(&sp);
		if (ret)
			kmf_warn("saved, but cannot remove the spool %s (%s): remove it by hand, or the next save repeats these events",
				 sp.path, strerror(-ret));
	}
	/*
	 * Everything recorded is in the file and the recorder is off: its
	 * memory goes back, unless asked to keep recording.  Kernels that
	 * keep their buffers have no free_buffer.
	 */
	if (!o.keep) {
		ret = kmt_recorder_release(&r);
		if (ret && ret != -ENOENT)
			kmf_warn("saved, but the recorder keeps its buffers: %s/free_buffer: %s",
				 r.dir, ret == -ENOTEMPTY ? "events were recorded after the save (was the recorder started again?): save again to keep them and give the memory back" :
				 ret == -EBUSY ? "it records, or another reader has a data file open" :
				 strerror(-ret));
	}
	for (i = 0; i < nr; i++) {
		if (o.keep || cpus[i].first_seq != 0 || !cpus[i].size)
			continue;
		if (cpus[i].decoded != cpus[i].st.events)
			kmf_warn("cpu %u: the kernel counted %" PRIu64
				 " events but %" PRIu64 " were read",
				 cpus[i].st.cpu, cpus[i].st.events,
				 cpus[i].decoded);
	}
	for (i = 0; i < nr; i++)
		if (!kmt_cpu_has_buffer(&cpus[i].st))
			lost_nobuf += cpus[i].st.lost;
	if (lost_nobuf)
		kmf_warn("%" PRIu64 " events were lost on CPUs that got no buffer (out of memory when they came up: see the kernel log)",
			 lost_nobuf);
	if (lost > lost_nobuf)
		kmf_warn("%" PRIu64 " events were lost: the buffers filled up (boot with a larger kmemtrace.size%s)",
			 lost - lost_nobuf, summary[0] ? "" : ", or start 'kmemflight attach' early");
	if (o.boot_dir) {
		/* the trace is safe: what fails now loses nothing */
		ret = kmf_bootdir_summary(&bd, &err);
		if (!ret && o.keep_boots)
			ret = kmf_bootdir_rotate(&bd, o.keep_boots, &removed, &err);
		if (ret) {
			kmf_error("saved %s, but %s", o.path, err.msg);
			goto out;
		}
		if (removed)
			snprintf(rotated, sizeof(rotated), "; removed %u older boot%s",
				 removed, removed == 1 ? "" : "s");
	}
	if (!o.quiet) {
		if (summary[0])
			printf("[ kmemflight: %s ]\n", summary);
		char more[160] = "";

		if (has_flight && fl.trigger)
			snprintf(more, sizeof(more), ", frozen by %s",
				 kmt_trigger_name(fl.trigger));
		if (overwritten)
			snprintf(more + strlen(more), sizeof(more) - strlen(more),
				 ", %" PRIu64 " overwritten before them", overwritten);
		if (frozen_dropped)
			snprintf(more + strlen(more), sizeof(more) - strlen(more),
				 ", %" PRIu64 " dropped while frozen", frozen_dropped);
		printf("[ kmemflight: saved %" PRIu64 " events from %u CPUs (%" PRIu64
		       " lost%s) to %s, %.1f bytes/event%s ]\n", events, nr, lost,
		       more, o.path, (double)bytes / (double)events, rotated);
	}
	status = KMF_EXIT_OK;
	goto out;
kept:
	if (spooled)
		fprintf(stderr, "%s: the events are kept in %s: fix the cause and run save again\n",
			kmf_cmd_name, sp.path);
out:
	if (writing)
		kmt_writer_abort(&w);
	for (i = 0; cpus && i < nr; i++)
		free(cpus[i].data);
	(void)stopped;
	free(cpus);
	free(st);
	free(meta);
	free(meminfo);
	free(vmstat);
	free(zoneinfo);
	free(ksyms);
	free(topo);
	free(caches);
	free(kcaches);
	free(tasks);
	free(cgroups);
	free(alog);
	kmt_spool_close(&sp);
	kmt_recorder_close(&r);
	kmf_bootdir_close(&bd);
	return status;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight attach: take over the kernel's recording.  Wait in poll()
 * on every CPU's data file and append each sub-buffer the kernel closes
 * to the spool, so that a boot of any length loses nothing while the
 * attach keeps up.  A CPU that comes up later is taken on within
 * ATTACH_IDLE_MS; the kernel keeps its events until then.
 * SIGTERM/SIGINT/SIGHUP: flush, drain, log, exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../cli/cli.h"
#include "recorder.h"
#include "spool.h"

/* With nothing to wake us, look anyway this often (ms). */
#define ATTACH_IDLE_MS	2000

struct attach_opts {
	const char *spool;
	bool daemon;
	bool quiet;
	bool if_not_attached;	/* another attach of the spool: exit 0 */
};

struct acpu {
	unsigned int cpu;
	int in;		/* the kernel's per_cpu/cpuN/data, -1: not up yet */
	int out;	/* the spool's cpuN */
	bool eof;
	off_t spooled;	/* bytes in cpuN, all whole sub-buffers */
	uint8_t *pending;	/* read but not yet written: retried */
	size_t pending_len;
};

struct attach {
	struct kmt_recorder r;
	struct kmt_spool s;
	struct acpu *cpus;
	unsigned int nr;
	uint8_t *buf;
	size_t buf_size;
	uint64_t reads;
	uint64_t bytes;
	uint64_t lost_at_start;
	/*
	 * Opened up front: after switch_root our root is the emptied
	 * initramfs, where no absolute path leads to tracefs any more.
	 */
	int flush_fd;
	int per_cpu_fd;		/* kmemtrace/per_cpu, for CPUs that come up */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight attach [<options>]\n"
		"\n"
		"Take over the kernel's kmemtrace recording: drain every CPU's buffer as\n"
		"the kernel fills it into a spool directory, so that nothing is lost however\n"
		"long the boot.  'kmemflight save FILE' stops the attach and writes the\n"
		"spool and what is left in the kernel into FILE.  Started from the\n"
		"initramfs (see the dracut module), it survives switch_root.\n"
		"\n"
		"    -d, --daemon       run in the background; return once it records\n"
		"        --if-not-attached\n"
		"                       when an attach already drains the spool (the\n"
		"                       initramfs's), say so and exit 0, not 1: what\n"
		"                       kmemflight-attach.service runs\n"
		"        --spool <dir>  where to keep the events (default $KMEMFLIGHT_SPOOL,\n"
		"                       else " KMT_SPOOL_DEFAULT ")\n"
		"    -q, --quiet        print nothing on success\n"
		"    -h, --help         this help\n");
}

static int parse_args(int argc, char **argv, struct attach_opts *o)
{
	static const struct option longopts[] = {
		{ "daemon", no_argument, NULL, 'd' },
		{ "if-not-attached", no_argument, NULL, 'N' },
		{ "spool", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":dqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->daemon = true; break;
		case 'N': o->if_not_attached = true; break;
		case 'S': o->spool = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); return -1;
		default:
			return kmf_option_error(longopts, "dqh", optopt,
						argv[optind - 1], NULL);
		}
	}
	if (optind != argc)
		return kmf_usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Append to the spool; a failed or partial write is cut off again, so
 * that cpuN only ever holds whole sub-buffers.
 */
static int spool_write(struct acpu *c, const uint8_t *p, size_t n)
{
	int ret = kmt_write_all(c->out, p, n);

	if (!ret) {
		c->spooled += (off_t)n;
		return 0;
	}
	if (ftruncate(c->out, c->spooled) < 0)
		return -errno;
	return ret;
}

/*
 * The spool cannot take what was read (full /run?): keep it, stop
 * reading this CPU, and try again at every idle look.  Meanwhile the
 * kernel fills its buffers and then counts what it drops, exactly.
 */
static int hold(struct attach *a, struct acpu *c, size_t n, int errnum)
{
	c->pending = malloc(n);
	if (!c->pending)
		return -ENOMEM;
	memcpy(c->pending, a->buf, n);
	c->pending_len = n;
	kmf_error("%s/cpu%u: %s: holding %zu bytes and pausing cpu %u until the spool takes them",
		  a->s.path, c->cpu, strerror(-errnum), n, c->cpu);
	return 0;
}

/* Move everything CPU @c has ready into the spool, without blocking. */
static int drain_cpu(struct attach *a, struct acpu *c, struct kmt_err *err)
{
	ssize_t n;
	int ret;

	if (c->pending) {
		if (spool_write(c, c->pending, c->pending_len))
			return 0;
		a->reads++;
		a->bytes += c->pending_len;
		free(c->pending);
		c->pending = NULL;
		kmf_error("%s/cpu%u: the spool takes data again; cpu %u resumes",
			  a->s.path, c->cpu, c->cpu);
	}
	while (!c->eof) {
		n = read(c->in, a->buf, a->buf_size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			ret = errno;
			return kmt_errf(err, ret, "cpu %u: reading the kernel buffer: %s",
					c->cpu, strerror(ret));
		}
		if (n == 0) {	/* not the kernel's file: it never ends */
			c->eof = true;
			break;
		}
		ret = spool_write(c, a->buf, (size_t)n);
		if (ret)
			return hold(a, c, (size_t)n, ret);
		a->reads++;
		a->bytes += (uint64_t)n;
	}
	return 0;
}

/*
 * Open CPU @c's data file and its spool file.  0 also when the CPU has
 * no buffer yet (it has not come up): c->in stays -1, try again later.
 */
static int open_cpu(struct attach *a, struct acpu *c, struct kmt_err *err)
{
	char name[32], path[4200];

	snprintf(name, sizeof(name), "cpu%u/data", c->cpu);
	c->in = openat(a->per_cpu_fd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->in < 0) {
		if (errno == ENODEV || errno == ENOENT)
			return 0;
		snprintf(path, sizeof(path), "%s/per_cpu/%s", a->r.dir, name);
		return kmt_recorder_error(&a->r, path, errno, err);
	}
	c->out = kmt_spool_cpu_fd(&a->s, c->cpu, err);
	if (c->out < 0)
		return c->out;
	c->spooled = lseek(c->out, 0, SEEK_END);
	if (c->spooled < 0)
		return kmt_errf(err, errno, "%s/cpu%u: %s", a->s.path, c->cpu,
				strerror(errno));
	return 0;
}

/* Take on the CPUs that came up since we looked. */
static int open_new_cpus(struct attach *a, struct kmt_err *err)
{
	unsigned int i;
	int ret;

	for (i = 0; i < a->nr; i++) {
		if (a->cpus[i].in >= 0)
			continue;
		ret = open_cpu(a, &a->cpus[i], err);
		if (ret)
			return ret;
	}
	return 0;
}

static int drain_all(struct attach *a, struct kmt_err *err)
{
	unsigned int i;
	int ret;

	ret = open_new_cpus(a, err);
	for (i = 0; i < a->nr && !ret; i++)
		if (a->cpus[i].in >= 0)
			ret = drain_cpu(a, &a->cpus[i], err);
	return ret;
}

static int run(struct attach *a, const sigset_t *waitmask, struct kmt_err *err)
{
	struct pollfd *pfd = calloc(a->nr, sizeof(*pfd));
	struct timespec idle = { ATTACH_IDLE_MS / 1000, 0 };
	uint64_t last_retry = now_ns();
	unsigned int i, k;
	int n, ret = 0;

	if (!pfd)
		return -ENOMEM;
	while (!stop_signal && !ret) {
		bool held = false;

		for (i = 0, k = 0; i < a->nr; i++) {
			held |= a->cpus[i].pending != NULL;
			if (a->cpus[i].in < 0 || a->cpus[i].eof ||
			    a->cpus[i].pending)
				continue;
			pfd[k].fd = a->cpus[i].in;
			pfd[k].events = POLLIN;
			pfd[k].revents = 0;
			k++;
		}
		if (!k && !held)
			break;
		n = ppoll(pfd, k, &idle, waitmask);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = kmt_errf(err, errno, "poll: %s", strerror(errno));
			break;
		}
		if (n == 0) {	/* a missed wakeup costs at most this */
			ret = drain_all(a, err);
			last_retry = now_ns();
			continue;
		}
		/*
		 * Busy or not, held data is retried and CPUs that came up
		 * are taken on every idle period.
		 */
		if (now_ns() - last_retry >= ATTACH_IDLE_MS * 1000000ull) {
			ret = open_new_cpus(a, err);
			for (i = 0; i < a->nr && !ret; i++)
				if (a->cpus[i].pending)
					ret = drain_cpu(a, &a->cpus[i], err);
			last_retry = now_ns();
		}
		for (i = 0; i < a->nr && !ret; i++) {
			struct acpu *c = &a->cpus[i];
			unsigned int j;

			for (j = 0; j < k; j++)
				if (pfd[j].fd == c->in && pfd[j].revents)
					ret = drain_cpu(a, c, err);
		}
	}
	free(pfd);
	return ret;
}

/* "start|stop pid=... <extra>": what save reports about the attach. */
static void log_line(struct attach *a, const char *what, const char *extra)
{
	struct rusage ru;
	char line[512];

	getrusage(RUSAGE_SELF, &ru);
	snprintf(line, sizeof(line),
		 "%s pid=%ld mono_ns=%" PRIu64 " cpus=%u reads=%" PRIu64
		 " bytes=%" PRIu64 " user_us=%" PRIu64 " sys_us=%" PRIu64 " %s\n",
		 what, (long)getpid(), now_ns(), a->nr, a->reads, a->bytes,
		 (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec,
		 (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec,
		 extra);
	kmt_spool_log(&a->s, line);
}

/* Everything that can fail for a reason the user must hear, up front. */
static int setup(struct attach *a, const struct attach_opts *o, struct kmt_err *err)
{
	struct kmt_cpu_stats *st = NULL;
	char path[4200];
	uint64_t lost = 0;
	unsigned int i;
	pid_t holder;
	bool on = false, by_save;
	int ret;

	ret = kmt_recorder_open(&a->r, err);
	if (ret)
		return ret;
	ret = kmt_recorder_enabled(&a->r, &on);
	if (ret) {
		snprintf(path, sizeof(path), "%s/enable", a->r.dir);
		return kmt_recorder_error(&a->r, path, -ret, err);
	}
	if (!on)
		return kmt_errf(err, ENODEV,
				"the recorder is not recording (%s/enable is 0): boot with kmemtrace.enable=1",
				a->r.dir);
	ret = kmt_recorder_stats(&a->r, &st, &a->nr, err);
	if (ret)
		return ret;
	ret = kmt_spool_open(&a->s, kmt_spool_path(o->spool), true, err);
	if (ret)
		goto out;
	ret = kmt_spool_trylock(&a->s, &holder, &by_save, err);
	if (ret == -EBUSY && by_save) {
		ret = kmt_errf(err, EBUSY,
			       "a 'kmemflight save' (pid %ld) is using the spool %s: attach again once it is done",
			       (long)holder, a->s.path);
		goto out;
	}
	if (ret == -EBUSY && o->if_not_attached) {
		ret = kmt_errf(err, EALREADY,
			       "already attached: pid %ld drains the spool %s; nothing to do",
			       (long)holder, a->s.path);
		goto out;
	}
	if (ret == -EBUSY) {
		ret = kmt_errf(err, EBUSY,
			       "already attached: pid %ld holds the spool %s ('kmemflight save FILE' stops an attach)",
			       (long)holder, a->s.path);
		goto out;
	}
	if (ret)
		goto out;
	ret = kmt_spool_bind(&a->s, a->r.header, a->r.header_len, err);
	if (ret)
		goto out;
	a->cpus = calloc(a->nr ? a->nr : 1, sizeof(*a->cpus));
	a->buf_size = (size_t)a->r.fmt.subbuf_size * 16;
	a->buf = malloc(a->buf_size);
	if (!a->cpus || !a->buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < a->nr; i++) {
		a->cpus[i].in = -1;
		a->cpus[i].out = -1;
	}
	snprintf(path, sizeof(path), "%s/per_cpu", a->r.dir);
	a->per_cpu_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->per_cpu_fd < 0) {
		ret = kmt_recorder_error(&a->r, path, errno, err);
		goto out;
	}
	for (i = 0; i < a->nr && !ret; i++) {
		struct acpu *c = &a->cpus[i];

		c->cpu = st[i].cpu;
		lost += st[i].lost;
		if (kmt_cpu_has_buffer(&st[i]))
			ret = open_cpu(a, c, err);
	}
	if (ret)
		goto out;
	a->lost_at_start = lost;
	snprintf(path, sizeof(path), "%s/flush", a->r.dir);
	a->flush_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (a->flush_fd < 0)
		ret = kmt_recorder_error(&a->r, path, errno, err);
out:
	free(st);
	return ret;
}

static void cleanup(struct attach *a)
{
	unsigned int i;

	for (i = 0; a->cpus && i < a->nr; i++) {
		if (a->cpus[i].in >= 0)
			close(a->cpus[i].in);
		if (a->cpus[i].out >= 0)
			close(a->cpus[i].out);
		free(a->cpus[i].pending);
	}
	if (a->flush_fd >= 0)
		close(a->flush_fd);
	if (a->per_cpu_fd >= 0)
		close(a->per_cpu_fd);
	free(a->cpus);
	free(a->buf);
	kmt_spool_close(&a->s);
	kmt_recorder_close(&a->r);
}

static void print_started(struct attach *a)
{
	unsigned int i, n = 0;

	for (i = 0; i < a->nr; i++)
		n += a->cpus[i].in >= 0;
	printf("kmemflight: recording kernel memory events from %u CPUs into %s; 'kmemflight save FILE' to stop\n",
	       n, a->s.path);
}

/* Whether we run in an initramfs ($KMEMFLIGHT_INITRD_RELEASE for tests). */
static bool in_initrd(void)
{
	const char *f = getenv("KMEMFLIGHT_INITRD_RELEASE");

	return access(f && *f ? f : "/etc/initrd-release", F_OK) == 0;
}

/* Detach from the caller; the parent returns once we are recording. */
static int daemonize(struct attach *a, struct kmt_err *err)
{
	int pfd[2], fd, ret;
	char c = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return kmt_errf(err, errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = errno;
		close(pfd[0]);
		close(pfd[1]);
		return kmt_errf(err, ret, "fork: %s", strerror(ret));
	}
	if (pid > 0) {
		close(pfd[1]);
		while ((ret = (int)read(pfd[0], &c, 1)) < 0 && errno == EINTR)
			;
		close(pfd[0]);
		if (ret != 1)
			return kmt_errf(err, ECHILD, "the attach daemon died while starting");
		return 1;
	}
	close(pfd[0]);
	setsid();
	if (chdir("/") < 0)
		_exit(1);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		close(fd);
	}
	/* Errors go to the kernel log: the console may be gone. */
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		static char line[1024];

		dup2(fd, 2);
		close(fd);
		setvbuf(stderr, line, _IOLBF, sizeof(line));
	}
	/*
	 * systemd's mark for a daemon from the initramfs: spare it when it
	 * switches root.  Only there (the initramfs has /etc/initrd-release),
	 * as systemd's storage daemon rules ask: an attach of the real root
	 * must not outlive the final kill at shutdown.
	 */
	if (kmf_argv0 && kmf_argv0[0] && in_initrd())
		kmf_argv0[0] = '@';
	kmt_spool_set_owner(&a->s, "attach");
	ret = (int)write(pfd[1], "1", 1);
	close(pfd[1]);
	(void)a;
	return ret == 1 ? 0 : kmt_errf(err, EPIPE, "cannot tell the caller we started");
}

int cmd_attach(int argc, char **argv)
{
	struct attach_opts o;
	struct attach a;
	struct kmt_err err = { "" };
	struct sigaction sa;
	sigset_t block, waitmask;
	char line[64];
	unsigned int i;
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	memset(&a, 0, sizeof(a));
	a.s.dirfd = -1;
	a.s.lockfd = -1;
	a.flush_fd = -1;
	a.per_cpu_fd = -1;
	ret = setup(&a, &o, &err);
	if (ret == -EALREADY) {
		if (!o.quiet)
			printf("kmemflight: %s\n", err.msg);
		cleanup(&a);
		return KMF_EXIT_OK;
	}
	if (ret) {
		if (ret == -ENOMEM)
			kmf_error("out of memory");
		else
			kmf_error("%s", err.msg);
		cleanup(&a);
		return KMF_EXIT_FAIL;
	}

	/* Signals are only taken inside ppoll(): no race with the check. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGHUP);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (o.daemon) {
		ret = daemonize(&a, &err);
		if (ret) {
			/* the parent: the daemon owns the spool now */
			if (ret < 0)
				kmf_error("%s", err.msg);
			else if (!o.quiet)
				print_started(&a);
			cleanup(&a);
			return ret < 0 ? KMF_EXIT_FAIL : KMF_EXIT_OK;
		}
	} else {
		kmt_spool_set_owner(&a.s, "attach");
		if (!o.quiet)
			print_started(&a);
		fflush(stdout);
	}
	/* the loss count at start tells whether we came in time */
	snprintf(line, sizeof(line), "lost=%" PRIu64, a.lost_at_start);
	log_line(&a, "start", line);

	ret = drain_all(&a, &err);
	if (!ret)
		ret = run(&a, &waitmask, &err);
	if (!ret) {
		/* Close the sub-buffers being filled and take them too. */
		if (write(a.flush_fd, "1", 1) < 0 && errno != ENODEV)
			ret = kmt_errf(&err, errno, "%s/flush: %s", a.r.dir,
				       strerror(errno));
		else
			ret = drain_all(&a, &err);
	}
	for (i = 0; !ret && i < a.nr; i++) {
		if (!a.cpus[i].pending)
			continue;
		/* a gap in the spool: save will refuse it, and say why */
		ret = kmt_errf(&err, ENOSPC,
			       "%s/cpu%u: %zu bytes of cpu %u could not be spooled and are lost",
			       a.s.path, a.cpus[i].cpu, a.cpus[i].pending_len,
			       a.cpus[i].cpu);
	}
	if (ret) {
		kmf_error("%s; stopped draining: from now on the kernel counts what it cannot keep",
			  ret == -ENOMEM ? "out of memory" : err.msg);
		log_line(&a, "stop", "reason=error");
	} else {
		log_line(&a, "stop", stop_signal ? "reason=signal" : "reason=eof");
	}
	if (!o.daemon && !o.quiet && !ret)
		printf("kmemflight: attach stopped: %" PRIu64 " bytes in %" PRIu64
		       " reads kept in %s\n", a.bytes, a.reads, a.s.path);
	cleanup(&a);
	return ret ? KMF_EXIT_FAIL : KMF_EXIT_OK;
}

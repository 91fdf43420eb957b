// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight watch: the flight recorder's other half.  Arm the recorder
 * (recording, flight mode, not frozen), wait in poll() on tracefs
 * kmemtrace/frozen until a trigger freezes it, save the frozen buffers
 * into a directory with the trigger in the file's name, keep the newest
 * files, arm again, wait again.
 *
 * SIGTERM/SIGINT/SIGHUP: exit 0 between saves; a save under way ends
 * first.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli/cli.h"
#include "bootdir.h"
#include "recorder.h"

#define WATCH_DEFAULT_KEEP	10

struct watch_opts {
	const char *dir;
	unsigned int keep;
	unsigned int count;	/* saves before exiting, 0: no end */
	bool quiet;
};

static volatile sig_atomic_t watch_stop;

static void on_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight watch [<options>] <dir>\n"
		"\n"
		"Run the kernel's recorder as a flight recorder and save it whenever\n"
		"something freezes it.  watch starts the recorder if it is off, puts it\n"
		"in flight mode (full buffers overwrite their oldest events) and waits.\n"
		"When a trigger fires (the OOM killer, a failed allocation, a manual\n"
		"freeze: tracefs kmemtrace/triggers says which are on), the kernel stops\n"
		"every CPU's buffer; watch saves them to\n"
		"<dir>/flight-YYYYMMDDTHHMMSSZ-TRIGGER.kmt (mode 0600, <dir> 0700),\n"
		"removes the oldest such files past --keep, arms the recorder again\n"
		"and waits for the next trigger.  A recorder already frozen when watch\n"
		"starts is saved first.\n"
		"\n"
		"    -n, --keep <n>     keep the newest <n> flight files in <dir> (default %u)\n"
		"    -c, --count <n>    exit after <n> saves (default: run until a signal)\n"
		"    -q, --quiet        print nothing but errors\n"
		"    -h, --help         this help\n"
		"\n"
		"kmemflight-watch.service runs it as a service.  Exit status: 0 after\n"
		"SIGTERM or --count saves, 1 when the recorder cannot be armed or a save\n"
		"fails, 2 for a usage error.\n", WATCH_DEFAULT_KEEP);
}

static int parse_uint(const char *s, const char *what, unsigned int max,
		      unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v < 1 || v > max || s[0] == '-')
		return kmf_usage_error("%s '%s' is not a number from 1 to %u", what,
				       s, max);
	*out = (unsigned int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct watch_opts *o)
{
	static const struct option longopts[] = {
		{ "keep", required_argument, NULL, 'n' },
		{ "count", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->keep = WATCH_DEFAULT_KEEP;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":n:c:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			ret = parse_uint(optarg, "--keep", KMF_BOOTDIR_MAX_KEEP, &o->keep);
			if (ret)
				return ret;
			break;
		case 'c':
			ret = parse_uint(optarg, "--count", UINT_MAX, &o->count);
			if (ret)
				return ret;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return kmf_option_error(longopts, "n:c:qh", optopt,
						argv[optind - 1], NULL);
		}
	}
	if (optind != argc - 1)
		return kmf_usage_error(optind == argc ? "missing <dir> to save to" :
				       "one <dir> only");
	o->dir = argv[optind];
	return 0;
}

/* Write @val to the recorder's @file; the message names the file. */
static int set_file(struct kmt_recorder *r, const char *file, const char *val,
		    struct kmt_err *err)
{
	char path[1100];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", r->dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return kmt_recorder_error(r, path, errno, err);
	if (write(fd, val, strlen(val)) < 0)
		ret = kmt_recorder_error(r, path, errno, err);
	close(fd);
	return ret;
}

/* Recording, in flight mode: what the triggers need to fire. */
static int arm(struct kmt_recorder *r, bool quiet, struct kmt_err *err)
{
	struct kmt_recorder_flight fl;
	bool on;
	int ret;

	ret = kmt_recorder_flight(r, &fl, err);
	if (ret == -ENOENT)
		return kmt_errf(err, EOPNOTSUPP,
				"this kernel's recorder has no flight mode (no %s/mode): it needs the kmemtrace patch of kmemflight 0.20 or later",
				r->dir);
	if (ret)
		return ret;
	ret = kmt_recorder_enabled(r, &on);
	if (ret)
		return kmt_errf(err, -ret, "%s/enable: %s", r->dir, strerror(-ret));
	if (fl.mode != KMT_MODE_FLIGHT) {
		ret = set_file(r, "mode", "flight", err);
		if (ret)
			return ret;
	}
	if (!on) {
		ret = set_file(r, "enable", "1", err);
		if (ret)
			return ret;
	}
	if (!quiet && (fl.mode != KMT_MODE_FLIGHT || !on))
		printf("[ kmemflight: the recorder runs in flight mode%s ]\n",
		       on ? "" : " (it was off: started)");
	return 0;
}

/* Wait until the recorder is frozen (1), or a signal (0). */
static int wait_frozen(struct kmt_recorder *r, struct kmt_recorder_flight *fl,
		       const sigset_t *waitmask, struct kmt_err *err)
{
	char path[1100];
	struct pollfd pfd;
	int ret;

	snprintf(path, sizeof(path), "%s/frozen", r->dir);
	for (;;) {
		ret = kmt_recorder_flight(r, fl, err);
		if (ret)
			return ret == -ENOENT ? kmt_errf(err, ENOENT, "%s is gone", path) : ret;
		if (fl->trigger)
			return 1;
		if (watch_stop)
			return 0;
		pfd.fd = open(path, O_RDONLY | O_CLOEXEC);
		if (pfd.fd < 0)
			return kmt_recorder_error(r, path, errno, err);
		pfd.events = POLLIN | POLLPRI;
		/* the state may have changed between the read and the open */
		ret = kmt_recorder_flight(r, fl, err);
		if (!ret && !fl->trigger && ppoll(&pfd, 1, NULL, waitmask) < 0 &&
		    errno != EINTR)
			ret = kmt_errf(err, errno, "poll %s: %s", path, strerror(errno));
		close(pfd.fd);
		if (ret)
			return ret;
	}
}

/* Save the frozen recorder to a new file in @o->dir; rotate. */
static int save_frozen(const struct watch_opts *o,
		       const struct kmt_recorder_flight *fl, struct kmt_err *err)
{
	struct kmf_bootdir b;
	unsigned int removed = 0;
	char *argv[6];
	int argc = 0, ret;

	ret = kmf_flightdir_open(&b, o->dir, kmt_trigger_name(fl->trigger), err);
	if (ret) {
		kmf_bootdir_close(&b);
		return ret;
	}
	argv[argc++] = "save";
	argv[argc++] = "--keep-recording";
	if (o->quiet)
		argv[argc++] = "--quiet";
	argv[argc++] = b.path;
	argv[argc] = NULL;
	ret = cmd_save(argc, argv);
	if (ret) {
		kmf_bootdir_close(&b);
		return kmt_errf(err, EIO, "the frozen recorder was not saved to %s (see above)",
				b.path);
	}
	ret = kmf_bootdir_rotate(&b, o->keep, &removed, err);
	kmf_bootdir_close(&b);
	if (!ret && removed && !o->quiet)
		printf("[ kmemflight: removed %u older flight file%s ]\n", removed,
		       removed == 1 ? "" : "s");
	return ret;
}

int cmd_watch(int argc, char **argv)
{
	struct watch_opts o;
	struct kmt_recorder r;
	struct kmt_recorder_flight fl;
	struct kmt_err err = { "" };
	struct kmf_bootdir probe;
	struct sigaction sa;
	sigset_t block, waitmask;
	unsigned int saved = 0;
	int ret, status = KMF_EXIT_FAIL;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	ret = kmt_recorder_open(&r, &err);
	if (ret) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_FAIL;
	}
	/* a directory we cannot use: say so before anything is changed */
	ret = kmf_flightdir_open(&probe, o.dir, "probe", &err);
	kmf_bootdir_close(&probe);
	if (ret) {
		kmf_error("%s", err.msg);
		kmt_recorder_close(&r);
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

	ret = arm(&r, o.quiet, &err);
	if (ret) {
		kmf_error("cannot arm the recorder: %s", err.msg);
		goto out;
	}
	while (!o.count || saved < o.count) {
		if (!o.quiet) {
			printf("[ kmemflight: waiting for a trigger ]\n");
			fflush(stdout);
		}
		ret = wait_frozen(&r, &fl, &waitmask, &err);
		if (ret < 0) {
			kmf_error("%s", err.msg);
			goto out;
		}
		if (!ret)
			break;	/* a signal */
		if (!o.quiet)
			printf("[ kmemflight: frozen by %s at %" PRIu64 ".%06" PRIu64 " s ]\n",
			       kmt_trigger_name(fl.trigger), fl.trigger_ts / 1000000000u,
			       fl.trigger_ts % 1000000000u / 1000u);
		ret = save_frozen(&o, &fl, &err);
		if (ret) {
			kmf_error("%s", err.msg);
			goto out;
		}
		saved++;
		ret = kmt_recorder_freeze(&r, false);
		if (ret) {
			char path[1100];

			snprintf(path, sizeof(path), "%s/frozen", r.dir);
			kmt_recorder_error(&r, path, -ret, &err);
			kmf_error("saved, but cannot arm the recorder again: %s", err.msg);
			goto out;
		}
		fflush(stdout);
	}
	status = KMF_EXIT_OK;
out:
	kmt_recorder_close(&r);
	return status;
}

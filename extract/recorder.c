// SPDX-License-Identifier: GPL-2.0
/*
 * Talk to the kernel recorder in tracefs (or an older one in debugfs):
 * find it, explain precisely why it is not there or refuses (root only,
 * kernel lockdown), stop and flush it, and drain each CPU's sub-buffers.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "recorder.h"

#define DEBUGFS_MAGIC_NR 0x64626720
#define TRACEFS_MAGIC_NR 0x74726163

int kmt_read_fd(int fd, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = malloc(cap + 1), *nb;
	ssize_t r;
	int ret = 0;

	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (n == cap) {
			cap *= 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (ret) {
		free(b);
		return ret;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int kmt_read_file(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return kmt_read_fd(fd, buf, len);
}

static int write_str(const char *dir, const char *file, const char *s)
{
	char path[4096];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The kernel's lockdown mode as securityfs shows it ("none integrity
 * [confidentiality]": the bracketed one) into @mode, or "" when it
 * cannot be told (no lockdown LSM, securityfs not mountable).
 */
void kmt_lockdown_mode(char *mode, size_t size)
{
	const char *env = getenv("KMEMFLIGHT_LOCKDOWN");
	const char *path = env && *env ? env : "/sys/kernel/security/lockdown";
	const char *b, *e;
	char *buf;
	size_t len;
	int ret;

	mode[0] = '\0';
	ret = kmt_read_file(path, &buf, &len);
	if (ret == -ENOENT && !(env && *env) && geteuid() == 0 &&
	    mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL) == 0)
		ret = kmt_read_file(path, &buf, &len);
	if (ret)
		return;
	b = strchr(buf, '[');
	e = b ? strchr(b, ']') : NULL;
	if (e && (size_t)(e - b - 1) < size)
		snprintf(mode, size, "%.*s", (int)(e - b - 1), b + 1);
	free(buf);
}

int kmt_recorder_error(const struct kmt_recorder *r, const char *path,
		       int errnum, struct kmt_err *err)
{
	char mode[32];

	if (errnum == EBUSY)
		return kmt_errf(err, EBUSY,
				"%s is open by another reader (a 'kmemflight attach' with another --spool?): its events would be split between the two",
				path);
	if (errnum != EPERM && errnum != EACCES)
		return kmt_errf(err, errnum, "%s: %s", path, strerror(errnum));
	kmt_lockdown_mode(mode, sizeof(mode));
	if (!strcmp(mode, "confidentiality"))
		return kmt_errf(err, EPERM, "%s: %s: " KMT_LOCKDOWN_CONFIDENTIAL,
				path, strerror(errnum));
	if (!strcmp(mode, "integrity") && r && r->debugfs)
		return kmt_errf(err, EPERM,
				"%s: %s: the kernel is locked down (lockdown=integrity, as Secure Boot sets it), which closes debugfs, where this kernel has its recorder (kmemtrace before it moved to tracefs); a kernel with /sys/kernel/tracing/kmemtrace can be saved under lockdown=integrity",
				path, strerror(errnum));
	if (geteuid() != 0)
		return kmt_errf(err, EACCES,
				"%s: permission denied: the recorder is root-only (run as root)",
				path);
	if (mode[0] && strcmp(mode, "none"))
		return kmt_errf(err, errnum, "%s: %s (the kernel is in lockdown=%s)",
				path, strerror(errnum), mode);
	return kmt_errf(err, errnum, "%s: %s", path, strerror(errnum));
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool fs_is(const char *path, long magic)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == magic;
}

/*
 * Where the recorder is: tracefs's kmemtrace/ (mounting tracefs if it
 * is not mounted yet), or an older kernel's in debugfs.  0 with r->dir
 * set, or -errno with the reason it is not there.
 */
static int find_recorder(struct kmt_recorder *r, struct kmt_err *err)
{
	const char *tenv = getenv("KMEMFLIGHT_TRACEFS");
	const char *denv = getenv("KMEMFLIGHT_DEBUGFS");
	const char *tracefs = tenv && *tenv ? tenv : "/sys/kernel/tracing";
	const char *debugfs = denv && *denv ? denv : "/sys/kernel/debug";
	char mode[32];
	int mount_err = 0;

	if (strlen(tracefs) > sizeof(r->dir) - 16 || strlen(debugfs) > sizeof(r->dir) - 16)
		return kmt_errf(err, ENAMETOOLONG, "tracefs or debugfs path too long");
	if (!(tenv && *tenv) && !fs_is(tracefs, TRACEFS_MAGIC_NR)) {
		if (geteuid() != 0)
			mount_err = EACCES;
		else if (mount("nodev", tracefs, "tracefs", 0, NULL) < 0)
			mount_err = errno;
	}
	snprintf(r->dir, sizeof(r->dir), "%s/kmemtrace", tracefs);
	if (!mount_err) {
		if (is_dir(r->dir))
			return 0;
		if ((errno == EACCES || errno == EPERM) && geteuid() != 0)
			return kmt_errf(err, EACCES,
					"%s: permission denied: the recorder is root-only (run as root)",
					r->dir);
	}
	/* an older kmemtrace, in debugfs: read it where it is mounted */
	snprintf(r->dir, sizeof(r->dir), "%s/kmemtrace", debugfs);
	if (((denv && *denv) || fs_is(debugfs, DEBUGFS_MAGIC_NR)) && is_dir(r->dir)) {
		r->debugfs = true;
		return 0;
	}
	r->dir[0] = '\0';
	kmt_lockdown_mode(mode, sizeof(mode));
	if (!strcmp(mode, "confidentiality"))
		return kmt_errf(err, EPERM, "%s/kmemtrace: " KMT_LOCKDOWN_CONFIDENTIAL,
				tracefs);
	if (mount_err == EACCES)
		return kmt_errf(err, EACCES,
				"tracefs is not mounted at %s, and mounting it needs root",
				tracefs);
	if (mount_err)
		return kmt_errf(err, ENODEV,
				"tracefs is not mounted at %s and cannot be mounted there (%s): is this a kernel with tracing (CONFIG_FTRACE)?",
				tracefs, strerror(mount_err));
	return kmt_errf(err, ENODEV,
			"%s/kmemtrace not found: this kernel has no kmemtrace recorder (build it with CONFIG_KMEMTRACE=y, see kernel-patch/)",
			tracefs);
}

int kmt_recorder_open(struct kmt_recorder *r, struct kmt_err *err)
{
	char path[4096];
	char *buf;
	size_t len;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = find_recorder(r, err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/header", r->dir);
	ret = kmt_read_file(path, &buf, &len);
	if (ret)
		return kmt_recorder_error(r, path, -ret, err);
	ret = kmt_format_parse((const uint8_t *)buf, len, false, &r->fmt,
			       r->layout, err);
	if (ret) {
		free(buf);
		return ret;
	}
	r->header = buf;
	r->header_len = len;
	return 0;
}

void kmt_recorder_close(struct kmt_recorder *r)
{
	free(r->header);
	r->header = NULL;
}

int kmt_recorder_enabled(struct kmt_recorder *r, bool *on)
{
	char path[4096], *buf;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/enable", r->dir);
	ret = kmt_read_file(path, &buf, &len);
	if (ret)
		return ret;
	*on = len && buf[0] == '1';
	free(buf);
	return 0;
}

int kmt_recorder_set(struct kmt_recorder *r, bool on)
{
	return write_str(r->dir, "enable", on ? "1" : "0");
}

int kmt_recorder_flush(struct kmt_recorder *r)
{
	return write_str(r->dir, "flush", "1");
}

int kmt_recorder_release(struct kmt_recorder *r)
{
	return write_str(r->dir, "free_buffer", "1");
}

int kmt_recorder_release_previous(struct kmt_recorder *r)
{
	return write_str(r->dir, "previous/release", "1");
}

int kmt_recorder_freeze(struct kmt_recorder *r, bool freeze)
{
	return write_str(r->dir, "frozen", freeze ? "1" : "0");
}

int kmt_recorder_flight(struct kmt_recorder *r, struct kmt_recorder_flight *f,
			struct kmt_err *err)
{
	char path[4096], *buf, name[32];
	unsigned long long tts, fts;
	unsigned int frozen;
	size_t len;
	int ret, n;

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "%s/mode", r->dir);
	ret = kmt_read_file(path, &buf, &len);
	if (ret)
		return ret == -ENOENT ? ret : kmt_recorder_error(r, path, -ret, err);
	if (!strcmp(buf, "flight\n"))
		f->mode = KMT_MODE_FLIGHT;
	else if (strcmp(buf, "boot\n")) {
		ret = kmt_errf(err, EBADMSG, "%s: \"%.20s\" is not a mode", path, buf);
		free(buf);
		return ret;
	}
	free(buf);
	snprintf(path, sizeof(path), "%s/frozen", r->dir);
	ret = kmt_read_file(path, &buf, &len);
	if (ret)
		return kmt_recorder_error(r, path, -ret, err);
	n = sscanf(buf, "%u %31s %llu %llu", &frozen, name, &tts, &fts);
	if (n < 1 || (frozen && n != 4) || frozen > 1) {
		ret = kmt_errf(err, EBADMSG, "%s: \"%.40s\" not understood", path, buf);
		free(buf);
		return ret;
	}
	free(buf);
	if (frozen) {
		for (f->trigger = 1; f->trigger < KMT_NR_TRIGGERS; f->trigger++)
			if (!strcmp(kmt_trigger_name(f->trigger), name))
				break;
		if (f->trigger == KMT_NR_TRIGGERS)
			f->trigger = KMT_NR_TRIGGERS;	/* a newer kernel's */
		f->trigger_ts = tts;
		f->frozen_ts = fts;
	}
	return 0;
}

int kmt_recorder_stats(struct kmt_recorder *r, struct kmt_cpu_stats **out,
		       unsigned int *nr, struct kmt_err *err)
{
	char path[4096], *buf, *line, *save = NULL;
	struct kmt_cpu_stats *s = NULL, *ns;
	unsigned int n = 0;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/stats", r->dir);
	ret = kmt_read_file(path, &buf, &len);
	if (ret)
		return kmt_errf(err, -ret, "%s: %s", path, strerror(-ret));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct kmt_cpu_stats c;

		if (line[0] == '#')
			continue;
		uint64_t consumed;
		int n_f;

		/*
		 * kernels before CPU hotplug had no buffer_bytes column,
		 * those before flight mode no overwritten column, those
		 * before it counted them no frozen_dropped column, those
		 * before the pool no has_slots column
		 */
		unsigned int map = 0;

		c.overwritten = 0;
		c.frozen_dropped = 0;
		n_f = sscanf(line, "%u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			     " %" SCNu64 " %" SCNu64 " %u", &c.cpu, &c.events, &c.lost,
			     &consumed, &c.buffer, &c.overwritten, &c.frozen_dropped,
			     &map);
		c.has_buffer = n_f >= 5;
		c.has_slots_col = n_f >= 8;
		c.has_slots = map;
		if (n_f < 3) {
			free(buf);
			free(s);
			return kmt_errf(err, EBADMSG, "%s: line \"%.40s\" not understood",
					path, line);
		}
		ns = realloc(s, (n + 1) * sizeof(*s));
		if (!ns) {
			free(buf);
			free(s);
			return -ENOMEM;
		}
		s = ns;
		s[n++] = c;
	}
	free(buf);
	*out = s;
	*nr = n;
	return 0;
}

int kmt_recorder_drain(struct kmt_recorder *r, unsigned int cpu,
		       uint8_t **data, size_t *size, struct kmt_err *err)
{
	size_t chunk = (size_t)r->fmt.subbuf_size * 8, cap = 0, n = 0;
	char path[4096];
	uint8_t *b = NULL, *nb;
	ssize_t got;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/data", r->dir, cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return kmt_recorder_error(r, path, errno, err);
	for (;;) {
		if (cap - n < chunk) {
			cap = cap ? cap * 2 : chunk * 2;
			nb = realloc(b, cap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			b = nb;
		}
		got = read(fd, b + n, chunk);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			ret = kmt_errf(err, errno, "%s: %s", path, strerror(errno));
			break;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (ret) {
		free(b);
		return ret;
	}
	*data = b;
	*size = n;
	return 0;
}

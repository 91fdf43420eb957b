// SPDX-License-Identifier: GPL-2.0
/*
 * Talk to the kernel recorder in debugfs: find it, explain precisely why
 * it is not there, stop and flush it, and drain each CPU's sub-buffers.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "recorder.h"

#define DEBUGFS_MAGIC_NR 0x64626720

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

int kmt_recorder_open(struct kmt_recorder *r, struct kmt_err *err)
{
	const char *env = getenv("KMEMFLIGHT_DEBUGFS");
	const char *debugfs = env && *env ? env : "/sys/kernel/debug";
	char path[4096];
	struct statfs sfs;
	struct stat st;
	char *buf;
	size_t len;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!env || !*env) {
		if (statfs(debugfs, &sfs) < 0 || sfs.f_type != DEBUGFS_MAGIC_NR) {
			if (geteuid() != 0)
				return kmt_errf(err, EACCES,
						"debugfs is not mounted at %s, and mounting it needs root",
						debugfs);
			return kmt_errf(err, ENODEV,
					"debugfs is not mounted at %s: mount -t debugfs none %s",
					debugfs, debugfs);
		}
	}
	if (strlen(debugfs) > sizeof(r->dir) - 16)
		return kmt_errf(err, ENAMETOOLONG, "debugfs path too long");
	snprintf(r->dir, sizeof(r->dir), "%s/kmemtrace", debugfs);
	if (stat(r->dir, &st) < 0) {
		if (errno == EACCES || errno == EPERM)
			return kmt_errf(err, EACCES,
					"%s: permission denied: the recorder is root-only (run as root)",
					r->dir);
		return kmt_errf(err, ENODEV,
				"%s not found: this kernel has no kmemtrace recorder (build it with CONFIG_KMEMTRACE=y, see kernel-patch/)",
				r->dir);
	}
	snprintf(path, sizeof(path), "%s/header", r->dir);
	ret = kmt_read_file(path, &buf, &len);
	if (ret == -EACCES || ret == -EPERM)
		return kmt_errf(err, EACCES,
				"%s: permission denied: the recorder is root-only (run as root)",
				path);
	if (ret)
		return kmt_errf(err, -ret, "%s: %s", path, strerror(-ret));
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
		if (sscanf(line, "%u %" SCNu64 " %" SCNu64, &c.cpu, &c.events,
			   &c.lost) != 3) {
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

int kmt_recorder_open_error(const char *path, int errnum, struct kmt_err *err)
{
	if (errnum == EBUSY)
		return kmt_errf(err, EBUSY,
				"%s is open by another reader (a 'kmemflight attach' with another --spool?): its events would be split between the two",
				path);
	return kmt_errf(err, errnum, "%s: %s", path, strerror(errnum));
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
		return kmt_recorder_open_error(path, errno, err);
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

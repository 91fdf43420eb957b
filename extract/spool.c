// SPDX-License-Identifier: GPL-2.0
/*
 * The attach's spool directory: create it safely, lock it, bind it to one
 * boot, append and read back each CPU's sub-buffers, and remove it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder.h"
#include "spool.h"

const char *kmt_spool_path(const char *opt)
{
	const char *env = getenv("KMEMFLIGHT_SPOOL");

	if (opt && *opt)
		return opt;
	return env && *env ? env : KMT_SPOOL_DEFAULT;
}

bool kmt_spool_named(const char *opt)
{
	const char *env = getenv("KMEMFLIGHT_SPOOL");

	return (opt && *opt) || (env && *env);
}

static int read_at(int dirfd, const char *name, char **buf, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return kmt_read_fd(fd, buf, len);
}

static int write_at(int dirfd, const char *name, const void *buf, size_t len)
{
	int fd, ret;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	ret = kmt_write_all(fd, buf, len);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

void kmt_boot_id(char *buf, size_t size)
{
	char *b;
	size_t len;

	buf[0] = '\0';
	if (kmt_read_file("/proc/sys/kernel/random/boot_id", &b, &len))
		return;
	b[strcspn(b, "\n")] = '\0';
	snprintf(buf, size, "%s", b);
	free(b);
}

int kmt_spool_open(struct kmt_spool *s, const char *path, bool create,
		   struct kmt_err *err)
{
	struct stat st;
	int ret;

	memset(s, 0, sizeof(*s));
	s->dirfd = -1;
	s->lockfd = -1;
	if (strlen(path) >= sizeof(s->path))
		return kmt_errf(err, ENAMETOOLONG, "spool path too long");
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (create && mkdir(path, 0700) < 0 && errno != EEXIST) {
		ret = errno;
		return kmt_errf(err, ret, "cannot create the spool %s: %s", path,
				strerror(ret));
	}
	s->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dirfd < 0) {
		ret = errno;
		if (ret == ENOENT)
			return -ENOENT;
		if (ret == ELOOP || ret == ENOTDIR)
			return kmt_errf(err, ret, "spool %s is not a directory (a symlink?): refusing it",
					path);
		return kmt_errf(err, ret, "cannot open the spool %s: %s", path,
				strerror(ret));
	}
	if (fstat(s->dirfd, &st) < 0) {
		ret = errno;
		kmt_spool_close(s);
		return kmt_errf(err, ret, "%s: %s", path, strerror(ret));
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		kmt_spool_close(s);
		return kmt_errf(err, EPERM,
				"spool %s is owned by uid %u or writable by others: refusing it",
				path, (unsigned int)st.st_uid);
	}
	return 0;
}

void kmt_spool_close(struct kmt_spool *s)
{
	if (s->lockfd >= 0)
		close(s->lockfd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	s->lockfd = -1;
	s->dirfd = -1;
}

/* The lock file says "PID attach" or "PID save". */
static pid_t lock_holder(struct kmt_spool *s, bool *by_save)
{
	char *b;
	size_t len;
	long pid;

	*by_save = false;
	if (read_at(s->dirfd, "lock", &b, &len))
		return 0;
	pid = strtol(b, NULL, 10);
	*by_save = strstr(b, " save") != NULL;
	free(b);
	return pid > 0 ? (pid_t)pid : 0;
}

int kmt_spool_trylock(struct kmt_spool *s, pid_t *holder, bool *by_save,
		      struct kmt_err *err)
{
	int ret;

	*holder = 0;
	*by_save = false;
	if (s->lockfd < 0) {
		s->lockfd = openat(s->dirfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW |
				   O_CLOEXEC, 0600);
		if (s->lockfd < 0) {
			ret = errno;
			return kmt_errf(err, ret, "%s/lock: %s", s->path,
					strerror(ret));
		}
	}
	if (flock(s->lockfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	ret = errno;
	if (ret != EWOULDBLOCK)
		return kmt_errf(err, ret, "%s/lock: %s", s->path, strerror(ret));
	*holder = lock_holder(s, by_save);
	return -EBUSY;
}

int kmt_spool_set_owner(struct kmt_spool *s, const char *role)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%ld %s\n", (long)getpid(), role);

	if (ftruncate(s->lockfd, 0) < 0)
		return -errno;
	if (pwrite(s->lockfd, line, (size_t)n, 0) != n)
		return -EIO;
	return 0;
}

int kmt_spool_stop_attach(struct kmt_spool *s, int timeout_ms, pid_t *stopped,
			  struct kmt_err *err)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	bool by_save;
	pid_t holder;
	int ret, waited = 0;
	bool sent = false;

	*stopped = 0;
	for (;;) {
		ret = kmt_spool_trylock(s, &holder, &by_save, err);
		if (ret != -EBUSY)
			return ret;
		if (by_save)
			return kmt_errf(err, EBUSY,
					"another 'kmemflight save' (pid %ld) is using the spool %s: one save at a time",
					(long)holder, s->path);
		if (!sent) {
			if (!holder)
				return kmt_errf(err, EBUSY,
						"%s is locked by a process that did not leave its pid",
						s->path);
			if (kill(holder, SIGTERM) < 0) {
				ret = errno;
				return kmt_errf(err, ret,
						"cannot stop the attach (pid %ld): %s",
						(long)holder, strerror(ret));
			}
			*stopped = holder;
			sent = true;
		}
		if (waited >= timeout_ms)
			return kmt_errf(err, ETIMEDOUT,
					"the attach (pid %ld) did not finish within %d s; its spool %s is left as it is",
					(long)holder, timeout_ms / 1000, s->path);
		nanosleep(&tick, NULL);
		waited += 10;
	}
}

int kmt_spool_bind(struct kmt_spool *s, const char *header, size_t len,
		   struct kmt_err *err)
{
	char id[64], *b;
	size_t blen;
	int ret;

	kmt_boot_id(id, sizeof(id));
	ret = read_at(s->dirfd, "boot_id", &b, &blen);
	if (ret == -ENOENT) {
		ret = write_at(s->dirfd, "header", header, len);
		if (!ret)
			ret = write_at(s->dirfd, "boot_id", id, strlen(id));
		if (ret)
			return kmt_errf(err, -ret, "cannot write to the spool %s: %s",
					s->path, strerror(-ret));
		return 0;
	}
	if (ret)
		return kmt_errf(err, -ret, "%s/boot_id: %s", s->path, strerror(-ret));
	b[strcspn(b, "\n")] = '\0';
	if (strcmp(b, id)) {
		ret = kmt_errf(err, ESTALE,
			       "spool %s holds events of another boot (boot_id %.40s, this boot is %s): they cannot be merged with this boot's; move it away or remove it",
			       s->path, b, id);
		free(b);
		return ret;
	}
	free(b);
	ret = read_at(s->dirfd, "header", &b, &blen);
	if (ret)
		return kmt_errf(err, -ret, "%s/header: %s", s->path, strerror(-ret));
	if (blen != len || memcmp(b, header, len))
		ret = kmt_errf(err, ESTALE,
			       "spool %s was written with a different recorder format than the kernel's now",
			       s->path);
	free(b);
	return ret;
}

int kmt_spool_cpu_fd(struct kmt_spool *s, unsigned int cpu, struct kmt_err *err)
{
	char name[32];
	int fd, ret;

	snprintf(name, sizeof(name), "cpu%u", cpu);
	fd = openat(s->dirfd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = errno;
		return kmt_errf(err, ret, "%s/%s: %s", s->path, name, strerror(ret));
	}
	return fd;
}

int kmt_spool_read_cpu(struct kmt_spool *s, unsigned int cpu, uint8_t **data,
		       size_t *len, struct kmt_err *err)
{
	char name[32], *b;
	int ret;

	snprintf(name, sizeof(name), "cpu%u", cpu);
	ret = read_at(s->dirfd, name, &b, len);
	if (ret == -ENOENT) {
		*data = NULL;
		*len = 0;
		return 0;
	}
	if (ret)
		return kmt_errf(err, -ret, "%s/%s: %s", s->path, name,
				strerror(-ret));
	*data = (uint8_t *)b;
	return 0;
}

int kmt_spool_log(struct kmt_spool *s, const char *line)
{
	int fd, ret;

	fd = openat(s->dirfd, "log", O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	ret = kmt_write_all(fd, line, strlen(line));
	close(fd);
	return ret;
}

char *kmt_spool_read_log(struct kmt_spool *s)
{
	char *b;
	size_t len;

	return read_at(s->dirfd, "log", &b, &len) ? NULL : b;
}

int kmt_spool_remove(struct kmt_spool *s)
{
	static const char *const fixed[] = { "header", "boot_id", "log", "lock" };
	struct dirent *de;
	DIR *d;
	size_t i;
	int fd, ret = 0;

	fd = dup(s->dirfd);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		unsigned int cpu;
		char c;

		if (sscanf(de->d_name, "cpu%u%c", &cpu, &c) == 1 &&
		    unlinkat(s->dirfd, de->d_name, 0) < 0)
			ret = -errno;
	}
	closedir(d);
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (unlinkat(s->dirfd, fixed[i], 0) < 0 && errno != ENOENT)
			ret = -errno;
	if (!ret && rmdir(s->path) < 0 && errno != ENOENT)
		ret = -errno;
	return ret;
}

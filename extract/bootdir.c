// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight save --boot-dir DIR [--keep-boots N]: the files a service
 * leaves behind, boot after boot.  See bootdir.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../analyze/footprint.h"
#include "bootdir.h"
#include "spool.h"

#define KMT_SUFFIX	".kmt"
#define SUMMARY_SUFFIX	".summary"

/* mkdir -p: the parents 0755, @dir itself 0700 (it holds kernel addresses) */
static int make_dirs(const char *dir)
{
	char path[4096], *p;

	if (strlen(dir) >= sizeof(path))
		return -ENAMETOOLONG;
	strcpy(path, dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int open_dir(struct kmf_bootdir *b, const char *dir, const char *what,
		    struct kmt_err *err)
{
	int ret;

	memset(b, 0, sizeof(*b));
	b->dirfd = -1;
	if (!*dir)
		return kmt_errf(err, EINVAL, "%s: an empty directory name", what);
	ret = make_dirs(dir);
	if (ret)
		return kmt_errf(err, -ret, "cannot create the directory %s: %s",
				dir, strerror(-ret));
	b->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->dirfd < 0) {
		ret = errno;
		return kmt_errf(err, ret, "%s: %s", dir,
				ret == ENOTDIR ? "not a directory" : strerror(ret));
	}
	return 0;
}

int kmf_bootdir_open(struct kmf_bootdir *b, const char *dir, struct kmt_err *err)
{
	int ret = open_dir(b, dir, "--boot-dir", err);

	if (ret)
		return ret;
	b->prefix = "boot-";
	kmt_boot_id(b->id, sizeof(b->id));
	if (!b->id[0] || strchr(b->id, '/'))
		return kmt_errf(err, ENOENT,
				"cannot read this boot's id from /proc/sys/kernel/random/boot_id, which names the file in %s",
				dir);
	snprintf(b->kmt, sizeof(b->kmt), "boot-%s" KMT_SUFFIX, b->id);
	snprintf(b->path, sizeof(b->path), "%s%s%s", dir,
		 dir[strlen(dir) - 1] == '/' ? "" : "/", b->kmt);
	return 0;
}

/* boot-ID.kmt -> boot-ID.summary */
static void summary_name(const char *kmt, char *out, size_t size)
{
	size_t n = strlen(kmt) - strlen(KMT_SUFFIX);

	snprintf(out, size, "%.*s" SUMMARY_SUFFIX, (int)n, kmt);
}

int kmf_bootdir_summary(struct kmf_bootdir *b, struct kmt_err *err)
{
	struct kmt_footprint fp;
	char name[128], tmp[160];
	FILE *f;
	int fd, ret;

	ret = kmt_fp_from_trace(&fp, b->path, err);
	if (ret)
		return ret;
	summary_name(b->kmt, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	/* a left-over of a save that died; never a file we follow */
	unlinkat(b->dirfd, tmp, 0);
	fd = openat(b->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		ret = -errno;
		kmt_fp_free(&fp);
		return kmt_errf(err, -ret, "cannot write the summary %s: %s", name,
				strerror(-ret));
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto fail;
	}
	ret = kmt_fp_write(f, &fp);
	if (!ret && fflush(f))
		ret = -errno;
	if (!ret && fsync(fileno(f)) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && renameat(b->dirfd, tmp, b->dirfd, name) < 0)
		ret = -errno;
	if (!ret) {
		kmt_fp_free(&fp);
		return 0;
	}
fail:
	unlinkat(b->dirfd, tmp, 0);
	kmt_fp_free(&fp);
	return kmt_errf(err, -ret, "cannot write the summary %s: %s", name,
			strerror(-ret));
}

struct saved {
	char *name;
	struct timespec mtime;
};

/* newest first; the same time: by name, for a stable order */
static int cmp_saved(const void *a, const void *b)
{
	const struct saved *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
	return strcmp(x->name, y->name);
}

int kmf_flightdir_open(struct kmf_bootdir *b, const char *dir,
		       const char *trigger, struct kmt_err *err)
{
	char stamp[32];
	struct tm tm;
	time_t now = time(NULL);
	unsigned int i;
	int ret = open_dir(b, dir, "watch", err);

	if (ret)
		return ret;
	b->prefix = "flight-";
	if (!gmtime_r(&now, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
	for (i = 1; i < 1000; i++) {
		if (i == 1)
			snprintf(b->kmt, sizeof(b->kmt), "flight-%s-%.32s" KMT_SUFFIX,
				 stamp, trigger);
		else
			snprintf(b->kmt, sizeof(b->kmt), "flight-%s-%.32s-%u" KMT_SUFFIX,
				 stamp, trigger, i);
		if (faccessat(b->dirfd, b->kmt, F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
		    errno == ENOENT)
			break;
	}
	if (i == 1000)
		return kmt_errf(err, EEXIST, "%s: no free name for %s", dir, b->kmt);
	snprintf(b->path, sizeof(b->path), "%s%s%s", dir,
		 dir[strlen(dir) - 1] == '/' ? "" : "/", b->kmt);
	return 0;
}

static bool is_saved(const char *prefix, const char *name)
{
	size_t n = strlen(name), p = strlen(prefix);

	return n > p + strlen(KMT_SUFFIX) && !strncmp(name, prefix, p) &&
	       !strcmp(name + n - strlen(KMT_SUFFIX), KMT_SUFFIX);
}

int kmf_bootdir_rotate(struct kmf_bootdir *b, unsigned int keep,
		       unsigned int *removed, struct kmt_err *err)
{
	struct saved *v = NULL, *nv;
	size_t nr = 0, cap = 0, i, kept;
	struct dirent *de;
	struct stat st;
	char name[128];
	DIR *d;
	int fd, ret = 0;

	*removed = 0;
	fd = dup(b->dirfd);
	if (fd < 0)
		return kmt_errf(err, errno, "dup: %s", strerror(errno));
	d = fdopendir(fd);
	if (!d) {
		ret = errno;
		close(fd);
		return kmt_errf(err, ret, "cannot list the saved boots: %s", strerror(ret));
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		if (!is_saved(b->prefix, de->d_name) || !strcmp(de->d_name, b->kmt))
			continue;
		/* only regular files: never a link to something else */
		if (fstatat(b->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (nr == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = -ENOMEM;
				goto out;
			}
			v = nv;
		}
		v[nr].name = strdup(de->d_name);
		if (!v[nr].name) {
			ret = -ENOMEM;
			goto out;
		}
		v[nr++].mtime = st.st_mtim;
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_saved);
	/* this boot's file is one of the @keep */
	kept = keep ? keep - 1 : 0;
	for (i = kept; i < nr; i++) {
		if (unlinkat(b->dirfd, v[i].name, 0) < 0 && errno != ENOENT) {
			ret = kmt_errf(err, errno, "cannot remove the old boot %s: %s",
				       v[i].name, strerror(errno));
			goto out;
		}
		summary_name(v[i].name, name, sizeof(name));
		if (unlinkat(b->dirfd, name, 0) < 0 && errno != ENOENT) {
			ret = kmt_errf(err, errno, "cannot remove the old summary %s: %s",
				       name, strerror(errno));
			goto out;
		}
		(*removed)++;
	}
out:
	for (i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
	closedir(d);
	return ret;
}

void kmf_bootdir_close(struct kmf_bootdir *b)
{
	if (b->dirfd >= 0)
		close(b->dirfd);
	b->dirfd = -1;
}

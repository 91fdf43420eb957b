// SPDX-License-Identifier: GPL-2.0
/*
 * Write a .kmt file safely: into a new 0600 temporary file next to the
 * target (O_EXCL, so no symlink is followed), fsync, then rename over the
 * target.  An interrupted save leaves the old file as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "kmt.h"

int kmt_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, len, off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

int kmt_writer_check(const char *path, struct kmt_err *err)
{
	struct stat st;

	/*
	 * The file is written beside @path and renamed over it: a device,
	 * a FIFO or a directory there would be replaced, not written to
	 * (a save to /dev/null as root would leave a trace in its place).
	 * A symbolic link is replaced, never followed.
	 */
	if (lstat(path, &st) || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode))
		return kmt_errf(err, EISDIR, "%s: is a directory", path);
	return kmt_errf(err, EINVAL,
			"%s: not a regular file: a trace is written to a new file and renamed into place",
			path);
}

int kmt_writer_open(struct kmt_writer *w, const char *path, struct kmt_err *err)
{
	struct kmt_file_header h;
	char *dup, *dir, *base;
	int ret;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->path = strdup(path);
	dup = strdup(path);
	if (!w->path || !dup) {
		free(dup);
		free(w->path);
		return -ENOMEM;
	}
	dir = dirname(dup);
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : (char *)path;
	if (!*base) {
		free(dup);
		free(w->path);
		return kmt_errf(err, EISDIR, "%s: is a directory", path);
	}
	ret = kmt_writer_check(path, err);
	if (ret) {
		free(dup);
		free(w->path);
		return ret;
	}
	if (asprintf(&w->tmp_path, "%s/.%s.XXXXXX", dir, base) < 0) {
		free(dup);
		free(w->path);
		return -ENOMEM;
	}
	free(dup);
	w->fd = mkostemp(w->tmp_path, O_CLOEXEC);	/* 0600, O_EXCL */
	if (w->fd < 0) {
		ret = -errno;
		kmt_errf(err, -ret, "cannot create a file next to %s: %s",
			 path, strerror(-ret));
		free(w->tmp_path);
		free(w->path);
		w->tmp_path = w->path = NULL;
		return ret;
	}
	memset(&h, 0, sizeof(h));
	ret = kmt_write_all(w->fd, &h, sizeof(h));	/* filled in at commit */
	if (ret) {
		kmt_writer_abort(w);
		return kmt_errf(err, -ret, "%s: %s", path, strerror(-ret));
	}
	w->off = sizeof(h);
	return 0;
}

static int write_section(struct kmt_writer *w, uint32_t type, uint32_t flags,
			 const void *head, uint64_t head_size,
			 const void *data, uint64_t size, struct kmt_err *err)
{
	static const uint8_t zero[8];
	struct kmt_section s = {
		.type = type,
		.flags = flags,
		.size = head_size + size,
	};
	uint64_t pad = (8 - ((head_size + size) & 7)) & 7;
	int ret;

	ret = kmt_write_all(w->fd, &s, sizeof(s));
	if (!ret && head_size)
		ret = kmt_write_all(w->fd, head, head_size);
	if (!ret && size)
		ret = kmt_write_all(w->fd, data, size);
	if (!ret && pad)
		ret = kmt_write_all(w->fd, zero, pad);
	if (ret)
		return kmt_errf(err, -ret, "writing %s: %s", w->path,
				strerror(-ret));
	w->off += sizeof(s) + head_size + size + pad;
	w->nr_sections++;
	return 0;
}

int kmt_writer_section2(struct kmt_writer *w, uint32_t type,
			const void *head, uint64_t head_size,
			const void *data, uint64_t size, struct kmt_err *err)
{
	return write_section(w, type, 0, head, head_size, data, size, err);
}

int kmt_writer_section(struct kmt_writer *w, uint32_t type, const void *data,
		       uint64_t size, struct kmt_err *err)
{
	return write_section(w, type, 0, NULL, 0, data, size, err);
}

int kmt_writer_section_zstd(struct kmt_writer *w, uint32_t type,
			    const void *data, uint64_t size, struct kmt_err *err)
{
	ZSTD_CCtx *cc;
	size_t bound, n;
	void *z;
	int ret;

	if (size < KMT_ZSTD_MIN || size > KMT_INFLATE_MAX)
		return kmt_writer_section(w, type, data, size, err);
	bound = ZSTD_compressBound(size);
	z = malloc(bound);
	cc = ZSTD_createCCtx();
	if (!z || !cc) {
		free(z);
		ZSTD_freeCCtx(cc);
		return kmt_errf(err, ENOMEM, "out of memory");
	}
	/* one frame, with its content size and checksum, as readers need */
	n = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, KMT_ZSTD_LEVEL);
	if (!ZSTD_isError(n))
		n = ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	if (!ZSTD_isError(n))
		n = ZSTD_compress2(cc, z, bound, data, size);
	if (ZSTD_isError(n) || n >= size)
		ret = kmt_writer_section(w, type, data, size, err);
	else
		ret = write_section(w, type, KMT_SECTION_ZSTD, NULL, 0, z, n, err);
	ZSTD_freeCCtx(cc);
	free(z);
	return ret;
}

int kmt_writer_commit(struct kmt_writer *w, struct kmt_err *err)
{
	struct kmt_file_header h;
	char *dup = NULL;
	int ret, dfd;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, KMT_FILE_MAGIC, sizeof(KMT_FILE_MAGIC));
	h.byte_order = KMT_FORMAT_MAGIC;
	h.version = KMT_FILE_VERSION;
	h.header_size = sizeof(h);
	h.nr_sections = w->nr_sections;
	h.file_size = w->off;
	ret = pwrite_all(w->fd, &h, sizeof(h), 0);
	if (!ret && fsync(w->fd) < 0)
		ret = -errno;
	if (!ret && close(w->fd) < 0)
		ret = -errno;
	w->fd = -1;
	if (!ret && rename(w->tmp_path, w->path) < 0)
		ret = -errno;
	if (ret) {
		kmt_errf(err, -ret, "writing %s: %s (the old file, if any, is unchanged)",
			 w->path, strerror(-ret));
		kmt_writer_abort(w);
		return ret;
	}
	dup = strdup(w->path);
	if (dup) {
		dfd = open(dirname(dup), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dup);
	}
	free(w->tmp_path);
	free(w->path);
	w->tmp_path = w->path = NULL;
	return 0;
}

void kmt_writer_abort(struct kmt_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	if (w->tmp_path)
		unlink(w->tmp_path);
	free(w->tmp_path);
	free(w->path);
	w->tmp_path = w->path = NULL;
}

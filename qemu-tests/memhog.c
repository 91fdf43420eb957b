// SPDX-License-Identifier: GPL-2.0
/*
 * memhog: starve a small QEMU guest of memory so that its allocations go
 * through direct reclaim, shrinkers and direct compaction (the latency
 * test of qemu-tests/run.sh).  In steps:
 *
 *  1. stat() names that do not exist: negative dentries for the
 *     superblock shrinker to free;
 *  2. read a block device: page cache, reclaimable and scattered;
 *  3. with the minimum watermark raised above what is free, fault in
 *     16 MiB of small pages: those allocations reclaim directly;
 *  4. fault in small pages, reading the device again in between, until
 *     MemAvailable falls to a floor: faults past the watermarks reclaim;
 *  5. give every other one of those pages back: what is free is now
 *     single pages between used ones;
 *  6. fault in transparent huge pages (madvise(MADV_HUGEPAGE)) in that
 *     memory: no free block is big enough, so each fault compacts (and
 *     reclaims when compaction fails).
 *
 *   memhog DEVICE [FLOOR_MIB]
 *
 * Prints what it did; exits 1 if a step fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB		(1024UL * 1024UL)
#define HUGE		(2 * MIB)
#define STEP		(8 * MIB)

/* A /proc/meminfo value ("MemAvailable"), in kB; -1 if missing. */
static long meminfo_kb(const char *key)
{
	char line[256], fmt[64];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	snprintf(fmt, sizeof(fmt), "%s: %%ld kB", key);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static long mem_available_mib(void)
{
	long kb = meminfo_kb("MemAvailable");

	return kb < 0 ? -1 : kb / 1024;
}

static int write_long(const char *path, long v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f) {
		fprintf(stderr, "memhog: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = fprintf(f, "%ld\n", v) < 0;
	ret |= fclose(f) != 0;
	if (ret)
		fprintf(stderr, "memhog: writing %s: %s\n", path, strerror(errno));
	return ret ? -1 : 0;
}

/*
 * Read @mib MiB of the device from @off MiB on, wrapping at its end.  It
 * stays open from start to end: the last close of a block device drops
 * its page cache.
 */
static int read_dev(int fd, size_t off, size_t mib)
{
	static char buf[MIB];
	off_t size = lseek(fd, 0, SEEK_END) / (off_t)MIB;
	size_t i;

	if (size <= 0) {
		fprintf(stderr, "memhog: the device is smaller than 1 MiB\n");
		return -1;
	}
	for (i = 0; i < mib; i++) {
		if (pread(fd, buf, sizeof(buf),
			  (off_t)((off + i) % (size_t)size) * (off_t)MIB) < 0) {
			fprintf(stderr, "memhog: reading the device: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

#define MIN_FREE	"/proc/sys/vm/min_free_kbytes"

static int read_long(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f) {
		fprintf(stderr, "memhog: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Map @len bytes at a 2 MiB boundary, huge pages asked for or refused. */
static char *map(size_t len, int thp)
{
	char *p = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "memhog: mmap: %s\n", strerror(errno));
		return NULL;
	}
	p = (char *)(((unsigned long)p + HUGE - 1) & ~(HUGE - 1));
	if (madvise(p, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE)) {
		fprintf(stderr, "memhog: madvise: %s\n", strerror(errno));
		return NULL;
	}
	return p;
}

static void touch(char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 4096)
		p[i] = (char)(i >> 12);
}

int main(int argc, char **argv)
{
	long floor = argc > 2 ? atol(argv[2]) : 48, avail;
	/* within what the kernel's overcommit heuristic maps */
	size_t cap = (size_t)sysconf(_SC_PHYS_PAGES) * 4096 / 4 * 3 / STEP * STEP;
	size_t small = 0, huge = 0, i, dev_off;
	long min_kb, old_min;
	char name[64], *p;
	struct stat st;
	int n, fd;

	if (argc < 2) {
		fprintf(stderr, "usage: memhog DEVICE [FLOOR_MIB]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "memhog: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* 1: dentries for the superblock shrinker */
	for (n = 0; n < 100000; n++) {
		snprintf(name, sizeof(name), "/tmp/memhog-absent-%d", n);
		stat(name, &st);
	}
	printf("negative dentries: %d\n", n);
	printf("available before: %ld MiB\n", mem_available_mib());
	/* 2: page cache everywhere */
	if (read_dev(fd, 0, 1024))
		return 1;
	dev_off = 1024;
	printf("available after reading: %ld MiB\n", mem_available_mib());
	p = map(cap, 0);
	if (!p)
		return 1;
	/*
	 * 3: the minimum watermark raised 16 MiB above what is free, while
	 * the page cache fills memory: the next allocations fail it and
	 * reclaim page cache directly, before kswapd can catch up.
	 */
	min_kb = meminfo_kb("MemFree");
	if (min_kb < 0 || read_long(MIN_FREE, &old_min) ||
	    write_long(MIN_FREE, min_kb + 16384))
		return 1;
	touch(p, 2 * STEP);
	small = 2 * STEP;
	if (read_dev(fd, dev_off, 16) || write_long(MIN_FREE, old_min))
		return 1;
	dev_off += 16;
	printf("with min_free_kbytes %ld: small pages %zu MiB\n", min_kb + 16384,
	       small / MIB);
	/* 4: small pages down to the floor, more page cache in between */
	while ((avail = mem_available_mib()) > floor && small < cap) {
		touch(p + small, STEP);
		small += STEP;
		if (read_dev(fd, dev_off, 4))
			return 1;
		dev_off += 4;
	}
	printf("small pages: %zu MiB, available %ld MiB\n", small / MIB, avail);
	/* 5: every other page back: free memory in isolated pages only */
	for (i = 0; i < small; i += 8192)
		if (madvise(p + i, 4096, MADV_DONTNEED)) {
			fprintf(stderr, "memhog: madvise(DONTNEED): %s\n", strerror(errno));
			return 1;
		}
	printf("freed every other page: available %ld MiB\n", mem_available_mib());
	/* 6: huge pages out of that: each one compacts */
	p = map(small / 2, 1);
	if (!p)
		return 1;
	while (huge + HUGE <= small / 2 &&
	       (avail = mem_available_mib()) > floor) {
		touch(p + huge, HUGE);
		huge += HUGE;
	}
	printf("huge pages asked: %zu MiB, available %ld MiB\n", huge / MIB, avail);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * perf-repeat IN OUT: copy a perf.data, writing some samples twice the
 * way perf record does by chance, for tests/perf/parity.sh.
 *
 * perf record copies each CPU's ring buffer to the file in rounds (a
 * FINISHED_ROUND record after each).  It reads the buffer's head, then
 * reads it again to copy up to it, and remembers the first value: the
 * records the kernel wrote between the two reads are copied in this
 * round and again at the start of the CPU's data in the next.  Here, at
 * each round's end, the last 1, 2 or 3 samples of each CPU (by turns)
 * are written again after the FINISHED_ROUND, if they are late enough
 * for that to happen (later than every sample read before the previous
 * round ended: the kernel wrote them while perf copied this round).
 * Prints "N samples written twice" on standard output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmt.h"

#define REC_FINISHED_ROUND	68
#define MAX_CPUS		4096
#define MAX_REPEAT		3

struct last {
	uint64_t off[MAX_REPEAT];	/* newest first, in the data */
	uint64_t time[MAX_REPEAT];
	uint16_t size[MAX_REPEAT];
	unsigned int n;
	uint64_t round;			/* the round they are from */
};

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static int put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 20;
		uint8_t *q;

		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q)
			return -ENOMEM;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void set64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static int read_all(const char *path, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b = { NULL, 0, 0 };
	uint8_t chunk[65536];
	size_t n;
	int ret = 0;

	if (!f)
		return -errno;
	while (!ret && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ret = put(&b, chunk, n);
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	if (ret) {
		free(b.p);
		return ret;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/*
 * The new data section: every record, and after each FINISHED_ROUND the
 * repeats of the round it ends.
 */
static int repeat(const struct kmt_perf *p, struct buf *data,
		  unsigned long *repeated, struct kmt_err *err)
{
	struct last *last = calloc(MAX_CPUS, sizeof(*last));
	uint64_t off = 0, round = 0, max_now = 0, max_prev = 0, flushed = 0;
	int ret = 0;

	if (!last)
		return -ENOMEM;
	while (!ret && off + 8 <= p->data_size) {
		const uint8_t *r = p->data + off;
		uint32_t type;
		uint16_t size;

		memcpy(&type, r, 4);
		memcpy(&size, r + 6, 2);
		if (size < 8 || size > p->data_size - off) {
			ret = -EBADMSG;
			break;
		}
		ret = put(data, r, size);
		if (!ret && type == 9) {	/* PERF_RECORD_SAMPLE */
			struct kmt_perf_sample s;
			uint64_t o = off;
			struct last *l;
			unsigned int i;

			if (kmt_perf_next(p, &o, &s, err) != 1 ||
			    s.kind != KMT_PERF_SAMPLE || s.cpu >= MAX_CPUS) {
				ret = -EBADMSG;
				break;
			}
			l = &last[s.cpu];
			if (l->round != round || !l->n)
				l->n = 0;
			l->round = round;
			for (i = MAX_REPEAT - 1; i > 0; i--) {
				l->off[i] = l->off[i - 1];
				l->time[i] = l->time[i - 1];
				l->size[i] = l->size[i - 1];
			}
			l->off[0] = off;
			l->time[0] = s.time;
			l->size[0] = size;
			if (l->n < MAX_REPEAT)
				l->n++;
			if (s.time > max_now)
				max_now = s.time;
		} else if (!ret && type == REC_FINISHED_ROUND) {
			unsigned int cpu, want = 1 + round % MAX_REPEAT, i, k;

			/* perf kmem has delivered up to flushed at this end */
			flushed = max_prev;
			for (cpu = 0; cpu < MAX_CPUS && !ret; cpu++) {
				struct last *l = &last[cpu];

				if (l->round != round || !l->n)
					continue;
				for (k = 0; k < want && k < l->n && l->time[k] > flushed; k++)
					;
				for (i = k; i-- > 0 && !ret; ) {
					ret = put(data, p->data + l->off[i], l->size[i]);
					(*repeated)++;
				}
				l->n = 0;
			}
			max_prev = max_now;
			round++;
		}
		off += size;
	}
	free(last);
	return ret;
}

int main(int argc, char **argv)
{
	struct kmt_err err = { "" };
	struct kmt_perf p;
	struct buf data = { NULL, 0, 0 }, out = { NULL, 0, 0 };
	unsigned long repeated = 0;
	uint8_t *in = NULL;
	size_t len = 0;
	uint64_t doff, dsize, dend, delta, attr_size, aoff, asize, i, nfeat = 0;
	FILE *f;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: perf-repeat IN.perf.data OUT.perf.data\n");
		return 2;
	}
	ret = read_all(argv[1], &in, &len);
	if (ret) {
		fprintf(stderr, "perf-repeat: %s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	ret = kmt_perf_open_mem(&p, in, len, &err);
	if (ret) {
		fprintf(stderr, "perf-repeat: %s: %s\n", argv[1],
			ret == -ENOMEM ? "out of memory" : err.msg);
		goto out;
	}
	ret = repeat(&p, &data, &repeated, &err);
	if (ret) {
		fprintf(stderr, "perf-repeat: %s: %s\n", argv[1],
			err.msg[0] ? err.msg : strerror(-ret));
		goto out;
	}
	doff = get64(in + 40);
	dsize = get64(in + 48);
	dend = doff + dsize;
	delta = data.len - dsize;
	/* the header, the attributes and ids, the new data, the rest */
	ret = put(&out, in, doff);
	ret = ret ?: put(&out, data.p, data.len);
	ret = ret ?: put(&out, in + dend, len - dend);
	if (ret) {
		fprintf(stderr, "perf-repeat: out of memory\n");
		goto out;
	}
	set64(out.p + 48, data.len);
	/* offsets past the data move by delta: sections, ids, features */
	attr_size = get64(in + 16);
	aoff = get64(in + 24);
	asize = get64(in + 32);
	if (aoff >= dend)
		set64(out.p + 24, aoff + delta);
	for (i = 0; i < asize / attr_size; i++) {
		uint64_t at = aoff + i * attr_size + attr_size - 16;

		if (aoff >= dend)
			at += delta;
		if (get64(out.p + at) >= dend)
			set64(out.p + at, get64(out.p + at) + delta);
	}
	for (i = 0; i < 256; i++)
		nfeat += get64(in + 72 + 8 * (i / 64)) >> (i % 64) & 1;
	for (i = 0; i < nfeat; i++) {
		uint64_t at = dend + delta + 16 * i;

		if (get64(out.p + at) >= dend)
			set64(out.p + at, get64(out.p + at) + delta);
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out.p, 1, out.len, f) != out.len || fclose(f)) {
		fprintf(stderr, "perf-repeat: %s: %s\n", argv[2], strerror(errno));
		ret = -EIO;
		goto out;
	}
	printf("%lu samples written twice\n", repeated);
out:
	if (!ret || ret != -ENOMEM)
		kmt_perf_close(&p);
	free(in);
	free(data.p);
	free(out.p);
	return ret ? 1 : 0;
}

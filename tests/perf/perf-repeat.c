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
 * Until every event (attribute) that has samples has had one written
 * twice, a CPU's run of samples written again reaches back, up to
 * MAX_TAIL, to the newest sample of an event not written twice yet: so
 * that every kind of event, allocations and frees, slab and page, is
 * in the file twice on every run, whichever samples came last.
 *
 * Prints "N samples written twice" and "E of M events written twice"
 * (M: the events that have samples) on standard output.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmt.h"

#define REC_FINISHED_ROUND	68
#define REC_SAMPLE		9
#define MAX_CPUS		4096
#define MAX_REPEAT		3
#define MAX_TAIL		32

/* A CPU's last samples of the current round, a ring, newest at head - 1. */
struct last {
	uint64_t off[MAX_TAIL];		/* in the data */
	uint64_t time[MAX_TAIL];
	uint32_t attr[MAX_TAIL];
	uint16_t size[MAX_TAIL];
	unsigned int head, n;
	uint64_t round;			/* the round they are from */
};

/* The k-th newest sample of @l (0: the newest). */
static unsigned int nth(const struct last *l, unsigned int k)
{
	return (l->head + MAX_TAIL - 1 - k) % MAX_TAIL;
}

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

struct repeat_stats {
	unsigned long samples;		/* written twice */
	uint32_t events, events_twice;	/* with samples; with one written twice */
};

/*
 * How many of @l's newest samples to write again at the end of round
 * @round: 1 to MAX_REPEAT by turns, more to reach an event none of whose
 * samples was written twice yet; only samples later than @flushed.
 */
static unsigned int tail_len(const struct last *l, uint64_t round,
			     uint64_t flushed, const bool *twice)
{
	unsigned int want = 1 + round % MAX_REPEAT, late, k;

	for (late = 0; late < l->n && l->time[nth(l, late)] > flushed; late++)
		;
	for (k = want; k < late; k++)
		if (!twice[l->attr[nth(l, k)]])
			want = k + 1;
	return want < late ? want : late;
}

/*
 * The new data section: every record, and after each FINISHED_ROUND the
 * repeats of the round it ends.
 */
static int repeat(const struct kmt_perf *p, struct buf *data,
		  struct repeat_stats *st, struct kmt_err *err)
{
	struct last *last = calloc(MAX_CPUS, sizeof(*last));
	bool *seen = calloc(p->nr_attrs ? p->nr_attrs : 1, sizeof(*seen));
	bool *twice = calloc(p->nr_attrs ? p->nr_attrs : 1, sizeof(*twice));
	uint64_t off = 0, round = 0, max_now = 0, max_prev = 0, flushed = 0;
	int ret = 0;

	if (!last || !seen || !twice) {
		ret = -ENOMEM;
		goto out;
	}
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
		if (!ret && type == REC_SAMPLE) {
			struct kmt_perf_sample s;
			uint64_t o = off;
			struct last *l;

			if (kmt_perf_next(p, &o, &s, err) != 1 ||
			    s.kind != KMT_PERF_SAMPLE || s.cpu >= MAX_CPUS ||
			    s.attr >= p->nr_attrs) {
				ret = -EBADMSG;
				break;
			}
			l = &last[s.cpu];
			if (l->round != round)
				l->n = 0;
			l->round = round;
			l->off[l->head] = off;
			l->time[l->head] = s.time;
			l->attr[l->head] = s.attr;
			l->size[l->head] = size;
			l->head = (l->head + 1) % MAX_TAIL;
			if (l->n < MAX_TAIL)
				l->n++;
			if (!seen[s.attr])
				st->events++;
			seen[s.attr] = true;
			if (s.time > max_now)
				max_now = s.time;
		} else if (!ret && type == REC_FINISHED_ROUND) {
			unsigned int cpu, i, k;

			/* perf kmem has delivered up to flushed at this end */
			flushed = max_prev;
			for (cpu = 0; cpu < MAX_CPUS && !ret; cpu++) {
				struct last *l = &last[cpu];

				if (l->round != round || !l->n)
					continue;
				k = tail_len(l, round, flushed, twice);
				for (i = k; i-- > 0 && !ret; ) {
					unsigned int j = nth(l, i);

					ret = put(data, p->data + l->off[j], l->size[j]);
					st->samples++;
					if (!twice[l->attr[j]])
						st->events_twice++;
					twice[l->attr[j]] = true;
				}
				l->n = 0;
			}
			max_prev = max_now;
			round++;
		}
		off += size;
	}
out:
	free(last);
	free(seen);
	free(twice);
	return ret;
}

int main(int argc, char **argv)
{
	struct kmt_err err = { "" };
	struct kmt_perf p;
	struct buf data = { NULL, 0, 0 }, out = { NULL, 0, 0 };
	struct repeat_stats st = { 0 };
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
	ret = repeat(&p, &data, &st, &err);
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
	if (!f) {
		ret = -errno;
	} else {
		ret = fwrite(out.p, 1, out.len, f) != out.len ? -EIO : 0;
		if (fclose(f) && !ret)
			ret = -errno;
	}
	if (ret) {
		fprintf(stderr, "perf-repeat: %s: %s\n", argv[2], strerror(-ret));
		goto out;
	}
	printf("%lu samples written twice\n", st.samples);
	printf("%u of %u events written twice\n", st.events_twice, st.events);
out:
	kmt_perf_close(&p);
	free(in);
	free(data.p);
	free(out.p);
	return ret ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Read a perf.data file (perf record's own format, version 2, as
 * described in the kernel's tools/perf/Documentation/perf.data-file-format.txt
 * and include/uapi/linux/perf_event.h): the event attributes, the samples
 * of tracepoint events with their raw data and callchains, lost-event
 * records, and the header features kmemflight needs (tracing data, build
 * ids, release, CPU count).  Only what 'perf kmem record' writes is
 * needed, but every length is checked: the file is untrusted input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmt.h"

#define PERF_MAGIC2		0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_HEADER_SIZE	104

/* perf_event_attr.sample_type bits */
#define S_IP		(1u << 0)
#define S_TID		(1u << 1)
#define S_TIME		(1u << 2)
#define S_ADDR		(1u << 3)
#define S_READ		(1u << 4)
#define S_CALLCHAIN	(1u << 5)
#define S_ID		(1u << 6)
#define S_CPU		(1u << 7)
#define S_PERIOD	(1u << 8)
#define S_STREAM_ID	(1u << 9)
#define S_RAW		(1u << 10)
#define S_IDENTIFIER	(1u << 16)

/* read_format bits */
#define R_TOTAL_TIME_ENABLED	(1u << 0)
#define R_TOTAL_TIME_RUNNING	(1u << 1)
#define R_ID			(1u << 2)
#define R_GROUP			(1u << 3)
#define R_LOST			(1u << 4)

/* record types */
#define REC_LOST		2
#define REC_SAMPLE		9
#define REC_LOST_SAMPLES	13
#define REC_COMPRESSED		81

/* header feature bits */
#define FEAT_TRACING_DATA	1
#define FEAT_BUILD_ID		2
#define FEAT_HOSTNAME		3
#define FEAT_OSRELEASE		4
#define FEAT_NRCPUS		7
#define FEAT_NR			256

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* A section {offset, size} that must lie within the file. */
static int section(const struct kmt_perf *p, const uint8_t *at,
		   const char *what, uint64_t *off, uint64_t *size,
		   struct kmt_err *err)
{
	*off = get64(at);
	*size = get64(at + 8);
	if (*off > p->len || *size > p->len - *off)
		return kmt_errf(err, EBADMSG,
				"its %s section runs past the end of the file (truncated?)",
				what);
	return 0;
}

static int attr_of_id(const struct kmt_perf *p, uint64_t id)
{
	size_t i;

	for (i = 0; i < p->nr_ids; i++)
		if (p->ids[i] == id)
			return (int)p->id_attr[i];
	return -1;
}

/* perf strings in features: u32 length (padding included), then text */
static void feat_string(const uint8_t *d, uint64_t size, char *buf, size_t bsize)
{
	uint32_t n;

	buf[0] = '\0';
	if (size < 4)
		return;
	n = get32(d);
	if (n > size - 4)
		n = (uint32_t)(size - 4);
	if (n >= bsize)
		n = (uint32_t)bsize - 1;
	memcpy(buf, d + 4, n);
	buf[n] = '\0';
	buf[strnlen(buf, n)] = '\0';
}

/* HEADER_BUILD_ID: build_id_event records; keep the kernel's. */
static void feat_build_ids(struct kmt_perf *p, const uint8_t *d, uint64_t size)
{
	uint64_t off = 0;

	while (size - off >= 8 + 4 + 24) {
		uint16_t misc, rsize;
		const uint8_t *r = d + off;
		size_t n, i;

		memcpy(&misc, r + 4, 2);
		memcpy(&rsize, r + 6, 2);
		if (rsize < 8 + 4 + 24 || rsize > size - off)
			break;
		n = 20;
		if (misc & (1u << 15))	/* PERF_RECORD_MISC_BUILD_ID_SIZE */
			n = r[8 + 4 + 20] <= 20 ? r[8 + 4 + 20] : 20;
		if (memmem(r + 36, rsize - 36, "[kernel.kallsyms]", 17)) {
			for (i = 0; i < n; i++) {
				static const char hex[] = "0123456789abcdef";

				p->build_id[2 * i] = hex[r[12 + i] >> 4];
				p->build_id[2 * i + 1] = hex[r[12 + i] & 15];
			}
			p->build_id[2 * n] = '\0';
			return;
		}
		off += rsize;
	}
}

int kmt_perf_open_mem(struct kmt_perf *p, const void *buf, size_t len,
		      struct kmt_err *err)
{
	const uint8_t *b = buf;
	uint64_t hsize, attr_size, aoff, asize, doff, dsize, foff, fsec, fsize;
	uint64_t feat[4], nfeat = 0, i, j;
	int ret;

	memset(p, 0, sizeof(*p));
	p->base = b;
	p->len = len;
	if (len < 16 || (get64(b) != PERF_MAGIC2 &&
			 get64(b) != __builtin_bswap64(PERF_MAGIC2)))
		return kmt_errf(err, EBADMSG, "not a perf.data file (no PERFILE2 magic)");
	if (get64(b) != PERF_MAGIC2)
		return kmt_errf(err, EPROTONOSUPPORT,
				"a perf.data file of the other byte order: read it on a machine like the one that recorded");
	hsize = get64(b + 8);
	if (hsize == 16)
		return kmt_errf(err, EPROTONOSUPPORT,
				"a perf.data written to a pipe: record with 'perf kmem record -o FILE'");
	if (hsize < PERF_HEADER_SIZE || len < PERF_HEADER_SIZE)
		return kmt_errf(err, EBADMSG, "perf.data header too short (%zu bytes)", len);
	attr_size = get64(b + 16);
	ret = section(p, b + 24, "attributes", &aoff, &asize, err);
	ret = ret ?: section(p, b + 40, "data", &doff, &dsize, err);
	if (ret)
		return ret;
	if (attr_size < 64 + 16 || attr_size > 4096 || asize % attr_size)
		return kmt_errf(err, EBADMSG, "bad perf event attribute size %llu",
				(unsigned long long)attr_size);
	p->nr_attrs = (uint32_t)(asize / attr_size);
	if (!p->nr_attrs || p->nr_attrs > 4096)
		return kmt_errf(err, EBADMSG, "%u event attributes", p->nr_attrs);
	p->attrs = calloc(p->nr_attrs, sizeof(*p->attrs));
	if (!p->attrs)
		return -ENOMEM;
	for (i = 0; i < p->nr_attrs; i++) {
		const uint8_t *a = b + aoff + i * attr_size;
		struct kmt_perf_attr *pa = &p->attrs[i];
		uint64_t ioff, isize;

		pa->type = get32(a);
		pa->config = get64(a + 8);
		pa->sample_type = get64(a + 24);
		pa->read_format = get64(a + 32);
		pa->sample_id_all = (get64(a + 40) >> 18) & 1;
		ret = section(p, a + attr_size - 16, "event id", &ioff, &isize, err);
		if (ret)
			return ret;
		if (isize % 8 || isize / 8 > (1u << 20))
			return kmt_errf(err, EBADMSG, "bad event id section");
		for (j = 0; j < isize / 8; j++) {
			uint64_t *ni = realloc(p->ids, (p->nr_ids + 1) * sizeof(*ni));
			uint32_t *na;

			if (!ni)
				return -ENOMEM;
			p->ids = ni;
			na = realloc(p->id_attr, (p->nr_ids + 1) * sizeof(*na));
			if (!na)
				return -ENOMEM;
			p->id_attr = na;
			p->ids[p->nr_ids] = get64(b + ioff + j * 8);
			p->id_attr[p->nr_ids++] = (uint32_t)i;
		}
		if (pa->sample_type & S_READ && pa->read_format & R_GROUP)
			return kmt_errf(err, EPROTONOSUPPORT,
					"samples with group reads: not a 'perf kmem record' file");
	}
	p->data = b + doff;
	p->data_size = dsize;

	/* features: one section header per bit set, after the data */
	for (i = 0; i < 4; i++)
		feat[i] = get64(b + 72 + 8 * i);
	foff = doff + dsize;
	for (i = 0; i < FEAT_NR; i++) {
		const uint8_t *d;

		if (!(feat[i / 64] >> (i % 64) & 1))
			continue;
		if (foff + 16 * (nfeat + 1) > len)
			return kmt_errf(err, EBADMSG,
					"its feature sections run past the end of the file (truncated?)");
		ret = section(p, b + foff + 16 * nfeat++, "feature", &fsec, &fsize, err);
		if (ret)
			return ret;
		d = b + fsec;
		switch (i) {
		case FEAT_TRACING_DATA:
			p->tracing = d;
			p->tracing_size = fsize;
			break;
		case FEAT_BUILD_ID:
			feat_build_ids(p, d, fsize);
			break;
		case FEAT_HOSTNAME:
			feat_string(d, fsize, p->hostname, sizeof(p->hostname));
			break;
		case FEAT_OSRELEASE:
			feat_string(d, fsize, p->release, sizeof(p->release));
			break;
		case FEAT_NRCPUS:
			if (fsize >= 8)
				p->nr_cpus_avail = get32(d + 4);
			break;
		default:
			break;
		}
	}
	return 0;
}

void kmt_perf_close(struct kmt_perf *p)
{
	free(p->attrs);
	free(p->ids);
	free(p->id_attr);
	memset(p, 0, sizeof(*p));
}

/* Size of the read_format values of a non-group sample. */
static uint64_t read_size(uint64_t rf)
{
	return 8 * (1 + !!(rf & R_TOTAL_TIME_ENABLED) + !!(rf & R_TOTAL_TIME_RUNNING) +
		    !!(rf & R_ID) + !!(rf & R_LOST));
}

static int parse_sample(const struct kmt_perf *p, const uint8_t *r,
			uint16_t size, struct kmt_perf_sample *s,
			struct kmt_err *err)
{
	const uint8_t *q = r + 8, *end = r + size;
	const struct kmt_perf_attr *a = &p->attrs[0];
	int idx = 0;

#define NEED(n, what)							\
	do {								\
		if ((uint64_t)(end - q) < (uint64_t)(n))		\
			return kmt_errf(err, EBADMSG,			\
				"sample at offset %zu: truncated %s",	\
				(size_t)(r - p->base), what);		\
	} while (0)

	memset(s, 0, sizeof(*s));
	if (p->nr_attrs > 1) {
		/* perf record gives every event the identifier first */
		NEED(8, "identifier");
		if (!(p->attrs[0].sample_type & S_IDENTIFIER))
			return kmt_errf(err, EPROTONOSUPPORT,
					"several events whose samples carry no identifier");
		idx = attr_of_id(p, get64(q));
		if (idx < 0)
			return kmt_errf(err, EBADMSG,
					"sample at offset %zu: event id %llu of no attribute",
					(size_t)(r - p->base),
					(unsigned long long)get64(q));
		a = &p->attrs[idx];
	}
	s->attr = (uint32_t)idx;
	if (a->sample_type & S_IDENTIFIER) {
		NEED(8, "identifier");
		q += 8;
	}
	if (a->sample_type & S_IP) {
		NEED(8, "ip");
		s->ip = get64(q);
		q += 8;
	}
	if (a->sample_type & S_TID) {
		NEED(8, "pid");
		s->pid = get32(q);
		s->tid = get32(q + 4);
		q += 8;
	}
	if (a->sample_type & S_TIME) {
		NEED(8, "time");
		s->time = get64(q);
		q += 8;
	}
	if (a->sample_type & S_ADDR) {
		NEED(8, "addr");
		q += 8;
	}
	if (a->sample_type & S_ID) {
		NEED(8, "id");
		q += 8;
	}
	if (a->sample_type & S_STREAM_ID) {
		NEED(8, "stream id");
		q += 8;
	}
	s->cpu = UINT32_MAX;
	if (a->sample_type & S_CPU) {
		NEED(8, "cpu");
		s->cpu = get32(q);
		q += 8;
	}
	if (a->sample_type & S_PERIOD) {
		NEED(8, "period");
		q += 8;
	}
	if (a->sample_type & S_READ) {
		NEED(read_size(a->read_format), "read values");
		q += read_size(a->read_format);
	}
	if (a->sample_type & S_CALLCHAIN) {
		uint64_t nr;

		NEED(8, "callchain");
		nr = get64(q);
		q += 8;
		if (nr > (uint64_t)(end - q) / 8)
			return kmt_errf(err, EBADMSG,
					"sample at offset %zu: callchain of %llu entries runs past it",
					(size_t)(r - p->base), (unsigned long long)nr);
		s->callchain = q;
		s->nr_callchain = (uint32_t)nr;
		q += nr * 8;
	}
	if (a->sample_type & S_RAW) {
		uint32_t n;

		NEED(4, "raw size");
		n = get32(q);
		q += 4;
		NEED(n, "raw data");
		s->raw = q;
		s->raw_size = n;
	}
#undef NEED
	return 0;
}

/* The CPU in the sample_id trailer of a non-sample record. */
static uint32_t trailer_cpu(const struct kmt_perf *p, const uint8_t *r,
			    uint16_t size, unsigned int body)
{
	const struct kmt_perf_attr *a = &p->attrs[0];
	uint64_t st = a->sample_type, need = 0;
	const uint8_t *q;

	if (!a->sample_id_all || !(st & S_CPU))
		return UINT32_MAX;
	need += st & S_TID ? 8 : 0;
	need += st & S_TIME ? 8 : 0;
	need += st & S_ID ? 8 : 0;
	need += st & S_STREAM_ID ? 8 : 0;
	need += 8;	/* cpu */
	need += st & S_IDENTIFIER ? 8 : 0;
	if (size < 8 + body + need)
		return UINT32_MAX;
	q = r + 8 + body;
	q += st & S_TID ? 8 : 0;
	q += st & S_TIME ? 8 : 0;
	q += st & S_ID ? 8 : 0;
	q += st & S_STREAM_ID ? 8 : 0;
	return get32(q);
}

int kmt_perf_next(const struct kmt_perf *p, uint64_t *off,
		  struct kmt_perf_sample *s, struct kmt_err *err)
{
	while (*off + 8 <= p->data_size) {
		const uint8_t *r = p->data + *off;
		uint32_t type = get32(r);
		uint16_t size;
		int ret;

		memcpy(&size, r + 6, 2);
		if (size < 8 || size > p->data_size - *off)
			return kmt_errf(err, EBADMSG,
					"record at offset %zu: size %u runs past the data",
					(size_t)(r - p->base), size);
		*off += size;
		switch (type) {
		case REC_SAMPLE:
			ret = parse_sample(p, r, size, s, err);
			if (ret)
				return ret;
			s->kind = KMT_PERF_SAMPLE;
			return 1;
		case REC_LOST:
			if (size < 24)
				continue;
			memset(s, 0, sizeof(*s));
			s->kind = KMT_PERF_LOST;
			s->lost = get64(r + 16);
			s->cpu = trailer_cpu(p, r, size, 16);
			return 1;
		case REC_LOST_SAMPLES:
			if (size < 16)
				continue;
			memset(s, 0, sizeof(*s));
			s->kind = KMT_PERF_LOST;
			s->lost = get64(r + 8);
			s->cpu = trailer_cpu(p, r, size, 8);
			return 1;
		case REC_COMPRESSED:
			return kmt_errf(err, EPROTONOSUPPORT,
					"compressed records (perf record -z): record without -z");
		default:
			continue;
		}
	}
	if (*off != p->data_size)
		return kmt_errf(err, EBADMSG, "the data ends in the middle of a record (truncated?)");
	return 0;
}

/* ---- the tracing data feature: event formats, kallsyms --------------- */

static int td_need(const uint8_t *q, const uint8_t *end, uint64_t n,
		   const char *what, struct kmt_err *err)
{
	if ((uint64_t)(end - q) < n)
		return kmt_errf(err, EBADMSG, "its tracing data is truncated (%s)", what);
	return 0;
}

/* A u32 count at *q. */
static int td_u32(const uint8_t **q, const uint8_t *end, uint32_t *v,
		  const char *what, struct kmt_err *err)
{
	int ret = td_need(*q, end, 4, what, err);

	if (ret)
		return ret;
	*v = get32(*q);
	*q += 4;
	return 0;
}

/* A size of @width bytes (4 or 8), then that many bytes. */
static int td_blob(const uint8_t **q, const uint8_t *end, unsigned int width,
		   const uint8_t **data, uint64_t *len, const char *what,
		   struct kmt_err *err)
{
	int ret = td_need(*q, end, width, what, err);

	if (ret)
		return ret;
	*len = width == 8 ? get64(*q) : get32(*q);
	*q += width;
	ret = td_need(*q, end, *len, what, err);
	if (ret)
		return ret;
	*data = *q;
	*q += *len;
	return 0;
}

/* A NUL-terminated string. */
static int td_str(const uint8_t **q, const uint8_t *end, const char **s,
		  const char *what, struct kmt_err *err)
{
	const uint8_t *nul = memchr(*q, 0, (size_t)(end - *q));

	if (!nul)
		return kmt_errf(err, EBADMSG, "its tracing data is truncated (%s)", what);
	*s = (const char *)*q;
	*q = nul + 1;
	return 0;
}

int kmt_perf_tracing(const struct kmt_perf *p, struct kmt_perf_tracing *t,
		     struct kmt_err *err)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const uint8_t *q = p->tracing, *end;
	const uint8_t *blob;
	const char *str = NULL;
	uint32_t n, nsys, k, ne, e;
	uint64_t sz;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!p->tracing)
		return kmt_errf(err, ENOENT,
				"it has no tracing data (not recorded from tracepoints)");
	end = p->tracing + p->tracing_size;
	if (td_need(q, end, 10, "magic", err) || memcmp(q, magic, 10))
		return kmt_errf(err, EBADMSG, "its tracing data has no magic");
	q += 10;
	if ((ret = td_str(&q, end, &str, "version", err)))
		return ret;
	snprintf(t->version, sizeof(t->version), "%s", str);
	if ((ret = td_need(q, end, 6, "sizes", err)))
		return ret;
	t->big_endian = q[0];
	t->long_size = q[1];
	t->page_size = get32(q + 2);
	q += 6;
	if (t->big_endian)
		return kmt_errf(err, EPROTONOSUPPORT, "big-endian tracing data");
	/* header_page and header_event: a name, a u64 size, the text */
	for (k = 0; k < 2; k++)
		if ((ret = td_str(&q, end, &str, "headers", err)) ||
		    (ret = td_blob(&q, end, 8, &blob, &sz, "header", err)))
			return ret;
	/* ftrace's own event formats: skipped */
	if ((ret = td_u32(&q, end, &n, "ftrace formats", err)))
		return ret;
	for (k = 0; k < n; k++)
		if ((ret = td_blob(&q, end, 8, &blob, &sz, "ftrace format", err)))
			return ret;
	if ((ret = td_u32(&q, end, &nsys, "event systems", err)))
		return ret;
	for (k = 0; k < nsys; k++) {
		const char *sys = NULL;

		if ((ret = td_str(&q, end, &sys, "system", err)) ||
		    (ret = td_u32(&q, end, &ne, "event count", err)))
			return ret;
		for (e = 0; e < ne; e++) {
			struct kmt_perf_format *f;

			if ((ret = td_blob(&q, end, 8, &blob, &sz, "event format", err)))
				return ret;
			if (t->nr_formats >= 4096)
				return kmt_errf(err, EBADMSG, "more than 4096 event formats");
			f = realloc(t->formats, (t->nr_formats + 1) * sizeof(*f));
			if (!f)
				return -ENOMEM;
			t->formats = f;
			f += t->nr_formats++;
			f->system = sys;
			f->text = (const char *)blob;
			f->len = (size_t)sz;
		}
	}
	/* kallsyms: a u32 size, the text (empty when perf could not read it) */
	if ((ret = td_blob(&q, end, 4, &blob, &sz, "kallsyms", err)))
		return ret;
	t->kallsyms = (const char *)blob;
	t->kallsyms_len = (size_t)sz;
	return 0;
}

void kmt_perf_tracing_free(struct kmt_perf_tracing *t)
{
	free(t->formats);
	memset(t, 0, sizeof(*t));
}

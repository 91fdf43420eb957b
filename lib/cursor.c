// SPDX-License-Identifier: GPL-2.0
/*
 * Decode one CPU's sub-buffers into events, using the record layouts the
 * trace carries (never a compiled-in table), and check every sub-buffer
 * header and every record boundary on the way.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "kmt.h"

/*
 * The layouts this reader was built with.  Only to recognise a trace
 * that uses them exactly: its hot event types then take a decoder
 * written out for them; any other layout takes the general loop.
 */
KMT_DEFINE_LAYOUTS(kmt_known_layouts);

/* Event types with a written-out decoder. */
#define KMT_FAST_TYPES	(1u << KMT_EV_KMALLOC | 1u << KMT_EV_CACHE_ALLOC | \
			 1u << KMT_EV_KFREE | 1u << KMT_EV_CACHE_FREE | \
			 1u << KMT_EV_PAGE_ALLOC | 1u << KMT_EV_PAGE_FREE | \
			 1u << KMT_EV_PAGE_FREE_BATCHED)

static uint32_t known_types(const struct kmt_layout_info *layout)
{
	uint32_t fast = 0;
	unsigned int i, f;

	for (i = 0; i < sizeof(kmt_known_layouts) / sizeof(kmt_known_layouts[0]); i++) {
		const struct kmt_layout *k = &kmt_known_layouts[i];
		const struct kmt_layout_info *l = &layout[k->type];

		if (!(KMT_FAST_TYPES & (1u << k->type)) || !l->present ||
		    l->nr_fields != k->nr_fields)
			continue;
		for (f = 0; f < k->nr_fields; f++)
			if (l->fields[f].id != k->fields[f].id ||
			    l->fields[f].enc != k->fields[f].enc)
				break;
		if (f == k->nr_fields)
			fast |= 1u << k->type;
	}
	return fast;
}

void kmt_cursor_init(struct kmt_cursor *c, const struct kmt_format *fmt,
		     const struct kmt_layout_info *layout, bool swap,
		     uint32_t cpu, const uint8_t *data, uint64_t size)
{
	memset(c, 0, sizeof(*c));
	c->fmt = fmt;
	c->layout = layout;
	c->swap = swap;
	c->cpu = cpu;
	c->p = data;
	c->end = data + size;
	c->first = true;
	c->fast = known_types(layout);
}

/*
 * A mapped trace read front to back: give back the pages already read,
 * a few MiB at a time, so that memory follows what is live, not the
 * file's size.  The mapping stays valid: a later access (a cache or
 * phase name) reads the page from the page cache again.
 */
#define KMT_RELEASE_CHUNK	(4u << 20)

static void release_read(struct kmt_cursor *c)
{
	uintptr_t upto = (uintptr_t)c->p & ~(uintptr_t)(KMT_RELEASE_CHUNK - 1);

	if (upto > c->released) {
		madvise((void *)c->released, upto - c->released, MADV_DONTNEED);
		c->released = upto;
	}
}

void kmt_cursor_release_pages(struct kmt_cursor *c)
{
	c->released = ((uintptr_t)c->p + KMT_RELEASE_CHUNK - 1) &
		      ~(uintptr_t)(KMT_RELEASE_CHUNK - 1);
}

static int next_subbuf(struct kmt_cursor *c, struct kmt_err *err)
{
	struct kmt_subbuf_header h;
	uint32_t hsz = c->fmt->subbuf_header_size;

	if (c->released)
		release_read(c);

	if ((uint64_t)(c->end - c->p) < hsz)
		return kmt_errf(err, EBADMSG,
				"cpu %u: %zu stray bytes after sub-buffer %" PRIu64,
				c->cpu, (size_t)(c->end - c->p), c->nr_subbufs);
	memcpy(&h, c->p, sizeof(h));
	if (c->swap) {
		h.magic = __builtin_bswap32(h.magic);
		h.cpu = __builtin_bswap32(h.cpu);
		h.seq = __builtin_bswap32(h.seq);
		h.size = __builtin_bswap32(h.size);
		h.base_ts = __builtin_bswap64(h.base_ts);
		h.lost = __builtin_bswap64(h.lost);
	}
	if (h.magic != KMT_SUBBUF_MAGIC)
		return kmt_errf(err, EBADMSG,
				"cpu %u: sub-buffer %" PRIu64 " has a bad magic 0x%08" PRIx32,
				c->cpu, c->nr_subbufs, h.magic);
	if (h.cpu != c->cpu)
		return kmt_errf(err, EBADMSG,
				"cpu %u: sub-buffer %" PRIu64 " says it is from cpu %" PRIu32,
				c->cpu, c->nr_subbufs, h.cpu);
	if (h.size < hsz || h.size > c->fmt->subbuf_size ||
	    h.size > (uint64_t)(c->end - c->p))
		return kmt_errf(err, EBADMSG,
				"cpu %u: sub-buffer %" PRIu64 " has invalid size %" PRIu32,
				c->cpu, c->nr_subbufs, h.size);
	if (!c->first && (int32_t)(h.seq - c->next_seq) < 0)
		return kmt_errf(err, EBADMSG,
				"cpu %u: sub-buffer %" PRIu32 " comes again after %" PRIu32
				" (duplicated sub-buffers)",
				c->cpu, h.seq, c->next_seq - 1);
	if (!c->first && h.seq != c->next_seq)
		return kmt_errf(err, EBADMSG,
				"cpu %u: sub-buffer sequence jumps from %" PRIu32
				" to %" PRIu32 " (sub-buffers missing)",
				c->cpu, c->next_seq - 1, h.seq);
	c->first = false;
	c->next_seq = h.seq + 1;
	c->now = h.base_ts;
	c->lost_before = h.lost;
	c->sb = c->p;
	c->rp = c->p + hsz;
	c->rend = c->p + h.size;
	c->p += h.size;
	c->nr_subbufs++;
	return 0;
}

static int bad_record(struct kmt_cursor *c, const char *what,
		      struct kmt_err *err)
{
	return kmt_errf(err, EBADMSG,
			"cpu %u: sub-buffer %" PRIu64 ": %s at offset %zu",
			c->cpu, c->nr_subbufs - 1, what, (size_t)(c->rp - c->sb));
}

int kmt_cursor_next(struct kmt_cursor *c, struct kmt_event *ev,
		    struct kmt_err *err)
{
	const struct kmt_layout_info *l;
	const uint8_t *q;
	uint64_t v;
	unsigned int n, i;
	uint8_t hdr;
	int ret;

	while (c->rp == c->rend) {
		if (c->p == c->end)
			return 0;
		ret = next_subbuf(c, err);
		if (ret)
			return ret;
	}
	q = c->rp;
	hdr = *q++;
	ev->type = hdr & KMT_HDR_TYPE_MASK;
	ev->ctx = (hdr >> KMT_HDR_CTX_SHIFT) & KMT_HDR_CTX_MASK;
	ev->cpu = c->cpu;
	ev->has = 0;
	l = &c->layout[ev->type];
	if (!l->present)
		return bad_record(c, "record of an undescribed event type", err);
	n = kmt_get_uvar_fast(q, c->rend, &v);
	if (!n)
		return bad_record(c, "truncated time field", err);
	q += n;
	if (hdr & KMT_HDR_ABS_TIME)
		c->now = v;
	else
		c->now += v;
	ev->ts = c->now;
	ev->pid = 0;
	if (ev->ctx == KMT_CTX_TASK) {
		n = kmt_get_uvar_fast(q, c->rend, &v);
		if (!n)
			return bad_record(c, "truncated pid", err);
		q += n;
		ev->pid = (uint32_t)v;
	}
	if (c->fast & (1u << ev->type)) {
		const uint8_t *e = c->rend;
		uint64_t text = c->fmt->text_base, dmap = c->fmt->direct_map_base;

#define GET(dst)	do {						\
		n = kmt_get_uvar_fast(q, e, &v);			\
		if (!n)							\
			return bad_record(c, "truncated field", err);	\
		q += n;							\
		dst;							\
	} while (0)
		switch (ev->type) {
		case KMT_EV_KMALLOC:
			GET(ev->call_site = text + (uint64_t)kmt_unzigzag(v));
			GET(ev->ptr = dmap + (uint64_t)kmt_unzigzag(v));
			GET(ev->bytes_req = v);
			GET(ev->bytes_alloc = ev->bytes_req + v);
			GET(ev->gfp = v);
			GET(ev->node = kmt_unzigzag(v));
			ev->has = KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR) |
				  KMT_HAS(KMT_F_BYTES_REQ) | KMT_HAS(KMT_F_BYTES_SLACK) |
				  KMT_HAS(KMT_F_GFP) | KMT_HAS(KMT_F_NODE);
			break;
		case KMT_EV_CACHE_ALLOC:
			GET(ev->call_site = text + (uint64_t)kmt_unzigzag(v));
			GET(ev->ptr = dmap + (uint64_t)kmt_unzigzag(v));
			GET(ev->cache = (uint32_t)v);
			GET(ev->gfp = v);
			GET(ev->node = kmt_unzigzag(v));
			ev->has = KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR) |
				  KMT_HAS(KMT_F_CACHE) | KMT_HAS(KMT_F_GFP) |
				  KMT_HAS(KMT_F_NODE);
			break;
		case KMT_EV_KFREE:
			GET(ev->call_site = text + (uint64_t)kmt_unzigzag(v));
			GET(ev->ptr = dmap + (uint64_t)kmt_unzigzag(v));
			ev->has = KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR);
			break;
		case KMT_EV_CACHE_FREE:
			GET(ev->call_site = text + (uint64_t)kmt_unzigzag(v));
			GET(ev->ptr = dmap + (uint64_t)kmt_unzigzag(v));
			GET(ev->cache = (uint32_t)v);
			ev->has = KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR) |
				  KMT_HAS(KMT_F_CACHE);
			break;
		case KMT_EV_PAGE_ALLOC:
			GET(ev->pfn1 = v);
			GET(ev->order = (uint32_t)v);
			GET(ev->gfp = v);
			GET(ev->migratetype = (int32_t)kmt_unzigzag(v));
			GET(ev->stack_len = (uint32_t)v);
			if (v > (uint64_t)(e - q))
				return bad_record(c, "string runs past the sub-buffer", err);
			ev->stack = q;
			q += v;
			ev->has = KMT_HAS(KMT_F_PFN1) | KMT_HAS(KMT_F_ORDER) |
				  KMT_HAS(KMT_F_GFP) | KMT_HAS(KMT_F_MIGRATETYPE) |
				  KMT_HAS(KMT_F_STACK);
			break;
		case KMT_EV_PAGE_FREE:
			GET(ev->pfn1 = v);
			GET(ev->order = (uint32_t)v);
			ev->has = KMT_HAS(KMT_F_PFN1) | KMT_HAS(KMT_F_ORDER);
			break;
		default:	/* KMT_EV_PAGE_FREE_BATCHED */
			GET(ev->pfn1 = v);
			ev->has = KMT_HAS(KMT_F_PFN1);
			break;
		}
#undef GET
		c->rp = q;
		return 1;
	}
	for (i = 0; i < l->nr_fields; i++) {
		const struct kmt_field_desc *f = &l->fields[i];

		n = kmt_get_uvar_fast(q, c->rend, &v);
		if (!n)
			return bad_record(c, "truncated field", err);
		q += n;
		if (f->enc == KMT_ENC_STR) {
			if (v > (uint64_t)(c->rend - q))
				return bad_record(c, "string runs past the sub-buffer", err);
			if (f->id == KMT_F_NAME) {
				ev->name = (const char *)q;
				ev->name_len = (uint32_t)v;
				ev->has |= KMT_HAS(KMT_F_NAME);
			} else if (f->id == KMT_F_STACK) {
				ev->stack = q;
				ev->stack_len = (uint32_t)v;
				ev->has |= KMT_HAS(KMT_F_STACK);
			}
			q += v;
			continue;
		}
		if (f->enc == KMT_ENC_SVAR)
			v = (uint64_t)kmt_unzigzag(v);
		else if (f->enc == KMT_ENC_TEXT)
			v = c->fmt->text_base + (uint64_t)kmt_unzigzag(v);
		else if (f->enc == KMT_ENC_DMAP)
			v = c->fmt->direct_map_base + (uint64_t)kmt_unzigzag(v);
		if (f->id > KMT_F_MAX)
			continue;
		ev->has |= KMT_HAS(f->id);
		switch (f->id) {
		case KMT_F_CALL_SITE: ev->call_site = v; break;
		case KMT_F_PTR: ev->ptr = v; break;
		case KMT_F_BYTES_REQ: ev->bytes_req = v; break;
		case KMT_F_BYTES_SLACK: ev->bytes_alloc = v; break;
		case KMT_F_GFP: ev->gfp = v; break;
		case KMT_F_NODE: ev->node = (int64_t)v; break;
		case KMT_F_CACHE: ev->cache = (uint32_t)v; break;
		case KMT_F_PFN1: ev->pfn1 = v; break;
		case KMT_F_ORDER: ev->order = (uint32_t)v; break;
		case KMT_F_MIGRATETYPE: ev->migratetype = (int32_t)v; break;
		case KMT_F_OBJ_SIZE: ev->obj_size = (uint32_t)v; break;
		case KMT_F_SIZE: ev->size = (uint32_t)v; break;
		case KMT_F_ALIGN: ev->align = (uint32_t)v; break;
		case KMT_F_FLAGS: ev->flags = v; break;
		case KMT_F_MARK: ev->mark = (uint32_t)v; break;
		case KMT_F_RET: ev->ret = (int32_t)v; break;
		default: ev->has &= ~KMT_HAS(f->id); break;
		}
	}
	/* bytes_alloc is carried as the slack over bytes_req */
	if (ev->has & KMT_HAS(KMT_F_BYTES_SLACK))
		ev->bytes_alloc += ev->bytes_req;
	c->rp = q;
	return 1;
}

int kmt_trace_count(const struct kmt_trace *t, uint64_t *per_cpu,
		    struct kmt_err *err)
{
	struct kmt_cursor c;
	struct kmt_event ev;
	unsigned int i;
	uint64_t n;
	int ret;

	for (i = 0; i < t->nr_cpus; i++) {
		kmt_cursor_init(&c, &t->fmt, t->layout, t->swap, t->cpus[i].cpu,
				t->cpus[i].data, t->cpus[i].size);
		n = 0;
		while ((ret = kmt_cursor_next(&c, &ev, err)) > 0)
			n++;
		if (ret < 0)
			return ret;
		if (per_cpu)
			per_cpu[i] = n;
	}
	return 0;
}

/* Heap order: earlier time first; equal times go to the lower index. */
static bool merge_before(const struct kmt_merge *m, unsigned int a, unsigned int b)
{
	return m->ev[a].ts < m->ev[b].ts ||
	       (m->ev[a].ts == m->ev[b].ts && a < b);
}

static void merge_sift_down(struct kmt_merge *m, unsigned int pos)
{
	unsigned int x = m->heap[pos], c;

	for (;;) {
		c = 2 * pos + 1;
		if (c >= m->nr_heap)
			break;
		if (c + 1 < m->nr_heap && merge_before(m, m->heap[c + 1], m->heap[c]))
			c++;
		if (!merge_before(m, m->heap[c], x))
			break;
		m->heap[pos] = m->heap[c];
		pos = c;
	}
	m->heap[pos] = x;
}

int kmt_merge_init(struct kmt_merge *m, const struct kmt_trace *t,
		   struct kmt_err *err)
{
	unsigned int i;
	int ret;

	memset(m, 0, sizeof(*m));
	m->n = t->nr_cpus;
	m->cur = calloc(m->n ? m->n : 1, sizeof(*m->cur));
	m->ev = calloc(m->n ? m->n : 1, sizeof(*m->ev));
	m->heap = calloc(m->n ? m->n : 1, sizeof(*m->heap));
	if (!m->cur || !m->ev || !m->heap) {
		kmt_merge_free(m);
		return -ENOMEM;
	}
	for (i = 0; i < m->n; i++) {
		kmt_cursor_init(&m->cur[i], &t->fmt, t->layout, t->swap,
				t->cpus[i].cpu, t->cpus[i].data,
				t->cpus[i].size);
		if (t->mapped)
			kmt_cursor_release_pages(&m->cur[i]);
		ret = kmt_cursor_next(&m->cur[i], &m->ev[i], err);
		if (ret < 0) {
			kmt_merge_free(m);
			return ret;
		}
		if (ret > 0)
			m->heap[m->nr_heap++] = i;
	}
	for (i = m->nr_heap / 2; i-- > 0;)
		merge_sift_down(m, i);
	return 0;
}

/*
 * Events of all CPUs in time order; ties go to the lower CPU index.  A
 * heap of the CPUs by their next event: O(log CPUs) per event.
 */
int kmt_merge_next(struct kmt_merge *m, struct kmt_event *ev,
		   struct kmt_err *err)
{
	unsigned int best;
	int ret;

	if (!m->nr_heap)
		return 0;
	best = m->heap[0];
	*ev = m->ev[best];
	ret = kmt_cursor_next(&m->cur[best], &m->ev[best], err);
	if (ret < 0)
		return ret;
	if (!ret)
		m->heap[0] = m->heap[--m->nr_heap];
	if (m->nr_heap > 1)
		merge_sift_down(m, 0);
	return 1;
}

void kmt_merge_free(struct kmt_merge *m)
{
	free(m->cur);
	free(m->ev);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Encode events into ABI 2 sub-buffers, as the kernel recorder writes
 * them: for traces that come from elsewhere (ftrace, perf) and become
 * ordinary .kmt files.  The layouts are the recorder's own, from the
 * uapi header, so every reader and analysis treats the result alike.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kmt.h"

KMT_DEFINE_LAYOUTS(enc_layouts);

static const struct kmt_layout *enc_layout(uint8_t type)
{
	unsigned int i;

	for (i = 0; i < KMT_NR_LAYOUTS; i++)
		if (enc_layouts[i].type == type)
			return &enc_layouts[i];
	return NULL;
}

int kmt_encoder_init(struct kmt_encoder *e, uint32_t nr_cpu_ids,
		     uint32_t subbuf_size, uint64_t text_base,
		     uint64_t dmap_base, unsigned int page_shift)
{
	uint32_t i;

	memset(e, 0, sizeof(*e));
	if (!nr_cpu_ids || nr_cpu_ids > KMT_MAX_CPU_IDS ||
	    subbuf_size < sizeof(struct kmt_subbuf_header) + KMT_ENC_MAX_RECORD)
		return -EINVAL;
	e->cpu = calloc(nr_cpu_ids, sizeof(*e->cpu));
	if (!e->cpu)
		return -ENOMEM;
	for (i = 0; i < nr_cpu_ids; i++)
		e->cpu[i].sb = SIZE_MAX;
	e->nr_cpus = nr_cpu_ids;
	e->subbuf_size = subbuf_size;
	e->text_base = text_base;
	e->dmap_base = dmap_base;
	e->page_shift = page_shift;
	return 0;
}

void kmt_encoder_free(struct kmt_encoder *e)
{
	uint32_t i;

	for (i = 0; e->cpu && i < e->nr_cpus; i++)
		free(e->cpu[i].buf);
	free(e->cpu);
	free(e->gfp);
	memset(e, 0, sizeof(*e));
}

int kmt_encoder_add_gfp_name(struct kmt_encoder *e, uint64_t mask,
			     const char *name)
{
	struct kmt_gfp_name *g;

	if (e->nr_gfp >= 0xffff)
		return -E2BIG;
	g = realloc(e->gfp, (e->nr_gfp + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	e->gfp = g;
	g += e->nr_gfp++;
	memset(g, 0, sizeof(*g));
	g->mask = mask;
	strncpy(g->name, name, sizeof(g->name) - 1);
	return 0;
}

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * One fixed-width field: its slot, and the full value after an escape.
 * @v is the raw value: an address for TEXT32 and DMAP32, a signed value
 * as two's complement.
 */
static unsigned int put_fixed(const struct kmt_encoder *e, uint8_t *p,
			      uint8_t enc, uint64_t v)
{
	unsigned int w = 4;
	uint64_t slot = v;
	bool fits = true;
	int64_t off;

	switch (enc) {
	case KMT_ENC_U8X:
		w = 1;
		fits = v < 0xff;
		break;
	case KMT_ENC_U16X:
		w = 2;
		fits = v < 0xffff;
		break;
	case KMT_ENC_U24X:
		w = 3;
		fits = v < 0xffffff;
		break;
	case KMT_ENC_U32X:
		fits = v < 0xffffffff;
		break;
	case KMT_ENC_S8X:
		w = 1;
		fits = (int64_t)v > -128 && (int64_t)v < 128;
		if (!fits)
			slot = 0x80;
		break;
	case KMT_ENC_S32:
		break;
	case KMT_ENC_TEXT32:
		off = (int64_t)(v - e->text_base);
		fits = off == (int32_t)off && off != INT32_MIN;
		slot = fits ? (uint64_t)off : 0x80000000u;
		break;
	case KMT_ENC_DMAP32:
		if (!v) {
			slot = KMT_DMAP32_NULL;
			break;
		}
		off = (int64_t)(v - e->dmap_base);
		fits = !(off & 7) && (uint64_t)off < ((uint64_t)KMT_DMAP32_NULL << 3);
		slot = fits ? (uint64_t)off >> 3 : 0xffffffffu;
		break;
	default:
		return 0;
	}
	if (!fits && (enc == KMT_ENC_U8X || enc == KMT_ENC_U16X ||
		      enc == KMT_ENC_U24X || enc == KMT_ENC_U32X))
		slot = ~0ULL;
	put_le(p, slot, w);
	if (fits)
		return w;
	put_le(p + w, v, 8);
	return w + 8;
}

static bool field_value(const struct kmt_event *ev, uint8_t id, uint64_t *v)
{
	switch (id) {
	case KMT_F_CALL_SITE: *v = ev->call_site; break;
	case KMT_F_PTR: *v = ev->ptr; break;
	case KMT_F_BYTES_REQ: *v = ev->bytes_req; break;
	case KMT_F_BYTES_SLACK: *v = ev->bytes_alloc - ev->bytes_req; break;
	case KMT_F_GFP: *v = ev->gfp; break;
	case KMT_F_NODE: *v = (uint64_t)ev->node; break;
	case KMT_F_CACHE: *v = ev->cache; break;
	case KMT_F_PFN1: *v = ev->pfn1; break;
	case KMT_F_ORDER: *v = ev->order; break;
	case KMT_F_MIGRATETYPE: *v = (uint64_t)(int64_t)ev->migratetype; break;
	case KMT_F_OBJ_SIZE: *v = ev->obj_size; break;
	case KMT_F_SIZE: *v = ev->size; break;
	case KMT_F_ALIGN: *v = ev->align; break;
	case KMT_F_FLAGS: *v = ev->flags; break;
	case KMT_F_MARK: *v = ev->mark; break;
	case KMT_F_TRIGGER: *v = ev->trigger; break;
	case KMT_F_RET: *v = (uint64_t)(int64_t)ev->ret; break;
	case KMT_F_NR_RECLAIMED: *v = ev->nr_reclaimed; break;
	case KMT_F_NR_SCANNED: *v = ev->nr_scanned; break;
	case KMT_F_PRIORITY: *v = ev->priority; break;
	case KMT_F_FILE: *v = ev->file; break;
	case KMT_F_FUNC: *v = ev->func; break;
	case KMT_F_SHRINKER: *v = ev->shrinker; break;
	case KMT_F_CACHE_ITEMS: *v = ev->cache_items; break;
	case KMT_F_TOTAL_SCAN: *v = ev->total_scan; break;
	case KMT_F_FREED: *v = (uint64_t)ev->freed; break;
	case KMT_F_ZONE_START: *v = ev->zone_start; break;
	case KMT_F_ZONE_END: *v = ev->zone_end; break;
	case KMT_F_MIGRATE_PFN: *v = ev->migrate_pfn; break;
	case KMT_F_FREE_PFN: *v = ev->free_pfn; break;
	case KMT_F_SYNC: *v = ev->sync; break;
	case KMT_F_STATUS: *v = ev->status; break;
	case KMT_F_GROUPS: *v = ev->groups; break;
	case KMT_F_MB_OP: *v = ev->mb_op; break;
	case KMT_F_PHYS: *v = ev->phys; break;
	case KMT_F_LENGTH: *v = ev->length; break;
	case KMT_F_NR_KEPT: *v = ev->nr_kept; break;
	case KMT_F_NR_DROPPED: *v = ev->nr_dropped; break;
	case KMT_F_CAPACITY: *v = ev->capacity; break;
	case KMT_F_CPU: *v = ev->buf_cpu; break;
	case KMT_F_VADDR: *v = ev->vaddr; break;
	case KMT_F_NR_PAGES: *v = ev->nr_pages; break;
	case KMT_F_KIND: *v = ev->kind; break;
	case KMT_F_PG_KEPT: *v = ev->pg_kept; break;
	case KMT_F_PG_DROPPED: *v = ev->pg_dropped; break;
	case KMT_F_TASK_OP: *v = ev->task_op; break;
	case KMT_F_TASK_PID: *v = ev->task_pid; break;
	case KMT_F_PPID: *v = ev->ppid; break;
	case KMT_F_CGROUP_ID: *v = ev->cgroup_id; break;
	default: return false;
	}
	return true;
}

/* The record of @ev into @rec; @first: the sub-buffer's first record. */
static int encode_record(const struct kmt_encoder *e,
			 const struct kmt_enc_cpu *c,
			 const struct kmt_layout *l, const struct kmt_event *ev,
			 bool first, uint8_t *rec, bool *pid_written)
{
	uint64_t dt = first ? 0 : ev->ts - c->prev_ts;
	bool need_pid = ev->ctx == KMT_CTX_TASK &&
			(first || !c->have_pid || c->pid != ev->pid);
	unsigned int len = 1, i, n;

	rec[0] = (uint8_t)(l->type | (ev->ctx << KMT_HDR_CTX_SHIFT) |
			   (need_pid ? KMT_HDR_PID : 0));
	/* time going backwards, or a gap, takes the absolute form */
	if (ev->ts < c->prev_ts || dt >= KMT_TIME_ABS) {
		put_le(rec + len, KMT_TIME_ABS, 2);
		put_le(rec + len + 2, ev->ts, 8);
		len += 10;
	} else {
		put_le(rec + len, dt, 2);
		len += 2;
	}
	if (need_pid) {
		put_le(rec + len, ev->pid, 4);
		len += 4;
	}
	*pid_written = need_pid;
	for (i = 0; i < l->nr_fields; i++) {
		const struct kmt_field_desc *f = &l->fields[i];
		const void *s = NULL;
		uint64_t v = 0;

		if (f->enc == KMT_ENC_STR) {
			if (f->id == KMT_F_NAME && (ev->has & KMT_HAS(KMT_F_NAME))) {
				s = ev->name;
				v = ev->name_len;
			} else if (f->id == KMT_F_STACK &&
				   (ev->has & KMT_HAS(KMT_F_STACK))) {
				s = ev->stack;
				v = ev->stack_len;
			} else if (f->id == KMT_F_COMM &&
				   (ev->has & KMT_HAS(KMT_F_COMM))) {
				s = ev->comm;
				v = ev->comm_len;
			} else if (f->id == KMT_F_FILENAME &&
				   (ev->has & KMT_HAS(KMT_F_FILENAME))) {
				s = ev->filename;
				v = ev->filename_len;
			} else if (f->id == KMT_F_CGROUP &&
				   (ev->has & KMT_HAS(KMT_F_CGROUP))) {
				s = ev->cgroup;
				v = ev->cgroup_len;
			}
			if (v > KMT_ENC_MAX_STR)
				return -E2BIG;
			len += kmt_put_uvar(rec + len, v);
			if (v)
				memcpy(rec + len, s, v);
			len += (unsigned int)v;
			continue;
		}
		field_value(ev, f->id, &v);
		n = put_fixed(e, rec + len, f->enc, v);
		if (!n)
			return -EINVAL;
		len += n;
	}
	return (int)len;
}

static int cpu_reserve(struct kmt_enc_cpu *c, size_t n)
{
	uint8_t *p;
	size_t cap;

	if (c->len + n <= c->cap)
		return 0;
	cap = c->cap ? c->cap : 65536;
	while (cap < c->len + n)
		cap *= 2;
	p = realloc(c->buf, cap);
	if (!p)
		return -ENOMEM;
	c->buf = p;
	c->cap = cap;
	return 0;
}

static void close_subbuf(struct kmt_enc_cpu *c)
{
	uint32_t size;

	if (c->sb == SIZE_MAX)
		return;
	size = (uint32_t)(c->len - c->sb);
	memcpy(c->buf + c->sb + offsetof(struct kmt_subbuf_header, size),
	       &size, sizeof(size));
	c->sb = SIZE_MAX;
}

int kmt_encode(struct kmt_encoder *e, const struct kmt_event *ev)
{
	const struct kmt_layout *l = enc_layout(ev->type);
	uint8_t rec[KMT_ENC_MAX_RECORD];
	struct kmt_enc_cpu *c;
	bool pid_written = false;
	int len = 0, ret;

	if (!l || ev->cpu >= e->nr_cpus || ev->ctx > KMT_CTX_NMI)
		return -EINVAL;
	c = &e->cpu[ev->cpu];
	if (c->sb != SIZE_MAX) {
		len = encode_record(e, c, l, ev, false, rec, &pid_written);
		if (len < 0)
			return len;
		if (c->len - c->sb + (size_t)len > e->subbuf_size)
			close_subbuf(c);
	}
	if (c->sb == SIZE_MAX) {
		struct kmt_subbuf_header h = {
			.magic = KMT_SUBBUF_MAGIC,
			.cpu = ev->cpu,
			.seq = c->seq,
			.base_ts = ev->ts,
			.lost = c->lost,
		};

		ret = cpu_reserve(c, e->subbuf_size);
		if (ret)
			return ret;
		c->sb = c->len;
		c->seq++;
		c->have_pid = false;
		c->prev_ts = ev->ts;
		memcpy(c->buf + c->len, &h, sizeof(h));
		c->len += sizeof(h);
		len = encode_record(e, c, l, ev, true, rec, &pid_written);
		if (len < 0)
			return len;
	}
	memcpy(c->buf + c->len, rec, (size_t)len);
	c->len += (size_t)len;
	if (pid_written) {
		c->pid = ev->pid;
		c->have_pid = true;
	}
	c->prev_ts = ev->ts;
	c->events++;
	return 0;
}

int kmt_encoder_lost(struct kmt_encoder *e, uint32_t cpu, uint64_t n)
{
	struct kmt_enc_cpu *c;

	if (cpu >= e->nr_cpus)
		return -EINVAL;
	c = &e->cpu[cpu];
	if (!n)
		return 0;
	/* the next sub-buffer's header says how many went missing */
	close_subbuf(c);
	c->lost += n;
	return 0;
}

size_t kmt_encode_stack(const struct kmt_encoder *e, const uint64_t *frames,
			unsigned int nr, uint8_t *out, size_t size)
{
	uint8_t tmp[10];
	size_t len = 0;
	unsigned int i, n;

	for (i = 0; i < nr; i++) {
		n = kmt_put_uvar(tmp, kmt_zigzag((int64_t)(frames[i] - e->text_base)));
		if (len + n > size)
			break;
		memcpy(out + len, tmp, n);
		len += n;
	}
	return len;
}

const struct kmt_enc_cpu *kmt_encoder_cpu(struct kmt_encoder *e, uint32_t cpu)
{
	if (cpu >= e->nr_cpus)
		return NULL;
	close_subbuf(&e->cpu[cpu]);
	return &e->cpu[cpu];
}

int kmt_encoder_format(const struct kmt_encoder *e, const char *clock,
		       uint8_t **out, size_t *len)
{
	struct kmt_format f;
	size_t n = sizeof(f) + sizeof(enc_layouts) +
		   e->nr_gfp * sizeof(struct kmt_gfp_name);
	uint8_t *p = malloc(n);

	if (!p)
		return -ENOMEM;
	memset(&f, 0, sizeof(f));
	f.magic = KMT_FORMAT_MAGIC;
	f.abi_version = KMT_ABI_VERSION;
	f.header_size = sizeof(f);
	f.word_size = 8;
	f.page_shift = (uint8_t)e->page_shift;
	f.nr_layouts = KMT_NR_LAYOUTS;
	f.layout_size = sizeof(struct kmt_layout);
	f.subbuf_header_size = sizeof(struct kmt_subbuf_header);
	f.subbuf_size = e->subbuf_size;
	f.nr_cpu_ids = e->nr_cpus;
	strncpy(f.clock, clock, sizeof(f.clock) - 1);
	f.text_base = e->text_base;
	f.direct_map_base = e->dmap_base;
	f.nr_gfp_names = (uint16_t)e->nr_gfp;
	f.gfp_name_size = sizeof(struct kmt_gfp_name);
	memcpy(p, &f, sizeof(f));
	memcpy(p + sizeof(f), enc_layouts, sizeof(enc_layouts));
	if (e->nr_gfp)
		memcpy(p + sizeof(f) + sizeof(enc_layouts), e->gfp,
		       e->nr_gfp * sizeof(struct kmt_gfp_name));
	*out = p;
	*len = n;
	return 0;
}

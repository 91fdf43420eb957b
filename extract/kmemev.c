// SPDX-License-Identifier: GPL-2.0
/*
 * Decode the kmem tracepoints of a stock kernel with its own formats.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemev.h"

/* common_flags bits (kernel/trace/trace.h, enum trace_flag_type) */
#define TF_HARDIRQ	0x08
#define TF_SOFTIRQ	0x10
#define TF_NMI		0x40

const char *const kmf_kmem_names[KK_NR] = {
	[KK_KMALLOC] = "kmalloc",
	[KK_CACHE_ALLOC] = "kmem_cache_alloc",
	[KK_KFREE] = "kfree",
	[KK_CACHE_FREE] = "kmem_cache_free",
	[KK_PAGE_ALLOC] = "mm_page_alloc",
	[KK_PAGE_FREE] = "mm_page_free",
	[KK_PAGE_FREE_BATCHED] = "mm_page_free_batched",
	[KK_RECLAIM_BEGIN] = "mm_vmscan_direct_reclaim_begin",
	[KK_RECLAIM_END] = "mm_vmscan_direct_reclaim_end",
	[KK_LRU_INACTIVE] = "mm_vmscan_lru_shrink_inactive",
	[KK_SHRINK_START] = "mm_shrink_slab_start",
	[KK_SHRINK_END] = "mm_shrink_slab_end",
	[KK_COMPACT_TRY] = "mm_compaction_try_to_compact_pages",
	[KK_COMPACT_BEGIN] = "mm_compaction_begin",
	[KK_COMPACT_END] = "mm_compaction_end",
};

const char *const kmf_kmem_systems[KK_NR] = {
	[KK_KMALLOC ... KK_PAGE_FREE_BATCHED] = "kmem",
	[KK_RECLAIM_BEGIN ... KK_SHRINK_END] = "vmscan",
	[KK_COMPACT_TRY ... KK_COMPACT_END] = "compaction",
};

/* The *_node twins of kernels before 6.1. */
static const char *const kk_alias[KK_NR] = {
	[KK_KMALLOC] = "kmalloc_node",
	[KK_CACHE_ALLOC] = "kmem_cache_alloc_node",
};

static const uint8_t kk_type[KK_NR] = {
	[KK_KMALLOC] = KMT_EV_KMALLOC,
	[KK_CACHE_ALLOC] = KMT_EV_CACHE_ALLOC,
	[KK_KFREE] = KMT_EV_KFREE,
	[KK_CACHE_FREE] = KMT_EV_CACHE_FREE,
	[KK_PAGE_ALLOC] = KMT_EV_PAGE_ALLOC,
	[KK_PAGE_FREE] = KMT_EV_PAGE_FREE,
	[KK_PAGE_FREE_BATCHED] = KMT_EV_PAGE_FREE_BATCHED,
	[KK_RECLAIM_BEGIN] = KMT_EV_RECLAIM_BEGIN,
	[KK_RECLAIM_END] = KMT_EV_RECLAIM_END,
	[KK_LRU_INACTIVE] = KMT_EV_LRU_SHRINK_INACTIVE,
	[KK_SHRINK_START] = KMT_EV_SHRINK_START,
	[KK_SHRINK_END] = KMT_EV_SHRINK_END,
	[KK_COMPACT_TRY] = KMT_EV_COMPACT_TRY,
	[KK_COMPACT_BEGIN] = KMT_EV_COMPACT_BEGIN,
	[KK_COMPACT_END] = KMT_EV_COMPACT_END,
};

static const char *const kf_names[KF_NR] = {
	"call_site", "ptr", "bytes_req", "bytes_alloc", "gfp_flags", "node",
	"name", "pfn", "order", "migratetype", "nr_reclaimed", "nr_scanned",
	"priority", "reclaim_flags", "shr", "shrink", "nid", "cache_items",
	"total_scan", "retval", "zone_start", "zone_end", "migrate_pfn",
	"free_pfn", "sync", "status", "prio", "gfp_mask",
};

/* include/trace/events/vmscan.h: the file LRU in reclaim_flags */
#define RECLAIM_WB_FILE	0x0002u

struct rec {
	const uint8_t *data;
	uint32_t size;
};

static uint64_t field_u64(const struct kmf_kmem *k, const struct rec *r,
			  const struct tep_format_field *f)
{
	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    (uint32_t)f->offset + (uint32_t)f->size > r->size)
		return 0;
	return tep_read_number(k->tep, r->data + f->offset, f->size);
}

static int64_t field_s64(const struct kmf_kmem *k, const struct rec *r,
			 const struct tep_format_field *f)
{
	uint64_t v = field_u64(k, r, f);

	if (!f || f->size >= 8 || f->size <= 0)
		return (int64_t)v;
	if (v & (1ULL << (f->size * 8 - 1)))
		v |= ~0ULL << (f->size * 8);
	return (int64_t)v;
}

/* A __string() field: a __data_loc (or __rel_loc) word, then the bytes. */
static const char *field_str(const struct kmf_kmem *k, const struct rec *r,
			     const struct tep_format_field *f, size_t *len)
{
	uint64_t loc, off, n;

	*len = 0;
	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC))
		return NULL;
	loc = field_u64(k, r, f);
	off = loc & 0xffff;
	n = (loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (uint64_t)f->offset + (uint64_t)f->size;
	if (off > r->size || n > r->size - off)
		return NULL;
	while (n && r->data[off + n - 1] == '\0')	/* the NUL is counted */
		n--;
	*len = (size_t)n;
	return (const char *)r->data + off;
}

/* The first __print_symbolic() of field @name in a print format. */
static const struct tep_print_arg *find_symbolic(const struct tep_print_arg *a,
						 const char *name, int depth)
{
	const struct tep_print_arg *r;

	for (; a && depth < 16; a = a->next) {
		r = NULL;
		switch (a->type) {
		case TEP_PRINT_SYMBOL:
			if (a->symbol.field && a->symbol.field->type == TEP_PRINT_FIELD &&
			    a->symbol.field->field.name &&
			    !strcmp(a->symbol.field->field.name, name))
				return a;
			break;
		case TEP_PRINT_OP:
			r = find_symbolic(a->op.left, name, depth + 1);
			if (!r)
				r = find_symbolic(a->op.right, name, depth + 1);
			break;
		case TEP_PRINT_TYPE:
			r = find_symbolic(a->typecast.item, name, depth + 1);
			break;
		default:
			break;
		}
		if (r)
			return r;
	}
	return NULL;
}

/*
 * enum compact_result changes between kernels: take its values from
 * mm_compaction_end's print format ("success", "skipped", ...).
 */
static void compact_status_table(struct kmf_kmem *k)
{
	const struct tep_print_flag_sym *s;
	const struct tep_print_arg *a = NULL;
	unsigned int i, j;

	for (i = 0; i < k->nr_evs && !a; i++)
		if (k->evs[i].kind == KK_COMPACT_END)
			a = find_symbolic(k->evs[i].ev->print_fmt.args, "status", 0);
	for (s = a ? a->symbol.symbols : NULL; s && k->nr_status < 16; s = s->next) {
		char *end;
		uint64_t v;

		if (!s->value || !s->str)
			continue;
		v = strtoull(s->value, &end, 0);
		if (*end)
			continue;
		for (j = 1; j <= KMT_COMPACT_SUCCESS; j++)
			if (!strcmp(s->str, kmt_compact_status_name(j)))
				break;
		if (j > KMT_COMPACT_SUCCESS)
			continue;
		k->status_val[k->nr_status] = v;
		k->status_kmt[k->nr_status++] = (uint8_t)j;
	}
}

static uint8_t compact_status(const struct kmf_kmem *k, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < k->nr_status; i++)
		if (k->status_val[i] == v)
			return k->status_kmt[i];
	return KMT_COMPACT_UNKNOWN;
}

int kmf_kmem_init(struct kmf_kmem *k, struct tep_handle *tep,
		  struct kmt_err *err)
{
	unsigned int kind, a, i;

	memset(k, 0, sizeof(*k));
	k->tep = tep;
	k->last_id = -1;
	for (kind = 0; kind < KK_NR; kind++) {
		for (a = 0; a < 2; a++) {
			const char *n = a ? kk_alias[kind] : kmf_kmem_names[kind];
			struct kmf_kmem_event *fe;
			struct tep_event *ev;

			if (!n)
				continue;
			ev = tep_find_event_by_name(tep, kmf_kmem_systems[kind], n);
			if (!ev)
				continue;
			fe = &k->evs[k->nr_evs++];
			fe->ev = ev;
			fe->kind = (int)kind;
			for (i = 0; i < KF_NR; i++)
				fe->f[i] = tep_find_field(ev, kf_names[i]);
			if (!k->pid) {
				k->pid = tep_find_common_field(ev, "common_pid");
				k->flags = tep_find_common_field(ev, "common_flags");
			}
		}
	}
	if (!k->nr_evs)
		return kmt_errf(err, ENOENT, "no kmem event formats (kmalloc, kfree, ...)");
	compact_status_table(k);
	return 0;
}

uint32_t kmf_kmem_groups(uint32_t kinds)
{
	const uint32_t kmem = (1u << (KK_PAGE_FREE_BATCHED + 1)) - 1;
	const uint32_t reclaim = ((1u << (KK_SHRINK_END + 1)) - 1) & ~kmem;
	const uint32_t compaction = ((1u << KK_NR) - 1) & ~kmem & ~reclaim;
	uint32_t g = 0;

	if (kinds & kmem)
		g |= 1u << KMT_GROUP_KMEM;
	if ((kinds & reclaim) == reclaim)
		g |= 1u << KMT_GROUP_RECLAIM;
	if ((kinds & compaction) == compaction)
		g |= 1u << KMT_GROUP_COMPACTION;
	return g;
}

uint32_t kmf_kmem_kinds(const struct kmf_kmem *k)
{
	uint32_t kinds = 0;
	unsigned int i;

	for (i = 0; i < k->nr_evs; i++)
		kinds |= 1u << k->evs[i].kind;
	return kinds;
}

static struct kmf_kmem_event *find_event(struct kmf_kmem *k, int id)
{
	unsigned int i;

	if (id == k->last_id)
		return k->last;
	for (i = 0; i < k->nr_evs; i++)
		if (k->evs[i].ev->id == id) {
			k->last_id = id;
			k->last = &k->evs[i];
			return k->last;
		}
	return NULL;
}

/* A vmscan or compaction event: its values in an @im side record. */
static int latency_event(struct kmf_kmem *k, struct kmf_import *im,
			 const struct kmf_kmem_event *fe, const struct rec *r,
			 struct kmf_imp_ev *e, const uint64_t *frames,
			 unsigned int nr_frames)
{
	struct kmf_imp_lat lat;
	const char *comm;
#define F(x) field_u64(k, r, fe->f[x])
#define S(x) ((uint64_t)field_s64(k, r, fe->f[x]))

	memset(&lat, 0, sizeof(lat));
	switch (fe->kind) {
	case KK_RECLAIM_BEGIN:
	case KK_COMPACT_TRY:
		lat.v[0] = F(KF_ORDER);
		e->gfp = fe->kind == KK_COMPACT_TRY ? F(KF_GFP_MASK) : F(KF_GFP);
		lat.v[1] = F(KF_PRIO);
		if (e->ctx == KMT_CTX_TASK) {
			comm = tep_data_comm_from_pid(k->tep, (int)e->pid);
			/* libtraceevent's "<...>": a pid it has no name for */
			if (comm && strcmp(comm, "<...>"))
				snprintf(lat.comm, sizeof(lat.comm), "%s", comm);
		}
		break;
	case KK_RECLAIM_END:
		lat.v[0] = F(KF_NR_RECLAIMED);
		break;
	case KK_LRU_INACTIVE:
		lat.v[0] = S(KF_NID);
		lat.v[1] = F(KF_NR_SCANNED);
		lat.v[2] = F(KF_NR_RECLAIMED);
		lat.v[3] = F(KF_PRIORITY);
		lat.v[4] = !!(F(KF_RECLAIM_FLAGS) & RECLAIM_WB_FILE);
		break;
	case KK_SHRINK_START:
	case KK_SHRINK_END:
		e->call_site = F(KF_SHRINK);
		e->ptr = F(KF_SHR);
		e->node = (int32_t)S(KF_NID);
		if (fe->kind == KK_SHRINK_START) {
			e->gfp = F(KF_GFP);
			lat.v[0] = F(KF_CACHE_ITEMS);
			lat.v[1] = F(KF_TOTAL_SCAN);
			lat.v[2] = F(KF_PRIORITY);
		} else {
			lat.v[0] = S(KF_RETVAL);
			lat.v[1] = F(KF_TOTAL_SCAN);
		}
		break;
	default:	/* compaction begin and end */
		lat.v[0] = F(KF_ZONE_START);
		lat.v[1] = F(KF_ZONE_END);
		lat.v[2] = F(KF_MIGRATE_PFN);
		lat.v[3] = F(KF_FREE_PFN);
		lat.v[4] = F(KF_SYNC);
		lat.v[5] = compact_status(k, F(KF_STATUS));
		break;
	}
#undef F
#undef S
	/* perf's callchain: the way into reclaim or compaction */
	if (fe->kind != KK_RECLAIM_BEGIN && fe->kind != KK_COMPACT_TRY)
		nr_frames = 0;
	return kmf_import_add_lat(im, e, &lat, frames, nr_frames);
}

int kmf_kmem_add(struct kmf_kmem *k, struct kmf_import *im,
		 const uint8_t *data, uint32_t size, uint32_t cpu,
		 uint64_t ts, const uint64_t *frames, unsigned int nr_frames,
		 struct kmt_err *err)
{
	struct rec r = { data, size };
	struct kmf_kmem_event *fe;
	struct kmf_imp_ev e;
	struct tep_record tr;
	const char *name;
	char anon[48];
	uint64_t fl;
	uint32_t id;
	size_t len;
	int ret;

	memset(&tr, 0, sizeof(tr));
	tr.data = (void *)data;
	tr.size = (int)size;
	if (size < 8)
		return 0;
	fe = find_event(k, tep_data_type(k->tep, &tr));
	if (!fe)
		return 0;
	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.cpu = cpu;
	e.type = kk_type[fe->kind];
	fl = field_u64(k, &r, k->flags);
	if (fl & TF_NMI)
		e.ctx = KMT_CTX_NMI;
	else if (fl & TF_HARDIRQ)
		e.ctx = KMT_CTX_HARDIRQ;
	else if (fl & TF_SOFTIRQ)
		e.ctx = KMT_CTX_SOFTIRQ;
	else
		e.pid = (uint32_t)field_u64(k, &r, k->pid);
	switch (fe->kind) {
	case KK_KMALLOC:
	case KK_CACHE_ALLOC:
		e.call_site = field_u64(k, &r, fe->f[KF_CALL_SITE]);
		e.ptr = field_u64(k, &r, fe->f[KF_PTR]);
		e.req = field_u64(k, &r, fe->f[KF_REQ]);
		e.alloc = field_u64(k, &r, fe->f[KF_ALLOC]);
		e.gfp = field_u64(k, &r, fe->f[KF_GFP]);
		e.node = fe->f[KF_NODE] ? (int32_t)field_s64(k, &r, fe->f[KF_NODE]) : -1;
		if (fe->kind == KK_KMALLOC)
			break;
		name = field_str(k, &r, fe->f[KF_NAME], &len);
		if (!name) {
			/* 6.12's event names no cache: tell them by size */
			len = (size_t)snprintf(anon, sizeof(anon),
					       "(%" PRIu64 "-byte objects)", e.req);
			name = anon;
			k->nameless = true;
		}
		ret = kmf_import_cache(im, name, len, (uint32_t)e.req,
				       (uint32_t)e.alloc, &id);
		if (ret)
			goto fail;
		e.aux = id;
		break;
	case KK_KFREE:
	case KK_CACHE_FREE:
		e.call_site = field_u64(k, &r, fe->f[KF_CALL_SITE]);
		e.ptr = field_u64(k, &r, fe->f[KF_PTR]);
		if (fe->kind == KK_KFREE)
			break;
		name = field_str(k, &r, fe->f[KF_NAME], &len);
		if (!name) {
			name = "?";
			len = 1;
		}
		ret = kmf_import_cache(im, name, len, 0, 0, &id);
		if (ret)
			goto fail;
		e.aux = id;
		break;
	case KK_RECLAIM_BEGIN ... KK_COMPACT_END:
		ret = latency_event(k, im, fe, &r, &e, frames, nr_frames);
		if (ret)
			goto fail;
		return 1;
	default:	/* pages: pfn + 1, 0 for a failed allocation (pfn -1) */
		e.ptr = field_u64(k, &r, fe->f[KF_PFN]) + 1;
		if (fe->f[KF_PFN] && fe->f[KF_PFN]->size == 4)
			e.ptr &= 0xffffffffULL;
		e.aux = (uint32_t)field_u64(k, &r, fe->f[KF_ORDER]);
		e.gfp = field_u64(k, &r, fe->f[KF_GFP]);
		e.node = fe->f[KF_MIGRATETYPE] ?
			 (int32_t)field_s64(k, &r, fe->f[KF_MIGRATETYPE]) : 0;
		break;
	}
	ret = kmf_import_add(im, &e, fe->kind == KK_PAGE_ALLOC ? frames : NULL,
			     fe->kind == KK_PAGE_ALLOC ? nr_frames : 0);
	if (ret)
		goto fail;
	return 1;
fail:
	return kmt_errf(err, -ret, "%s", ret == -E2BIG ?
			"more than 65534 caches" : "out of memory");
}

/*
 * The __print_flags() table of gfp_flags in a print format, values
 * already evaluated by libtraceevent; it may sit under a ?: or a cast.
 */
static const struct tep_print_arg *find_flags(const struct tep_print_arg *a,
					      int depth)
{
	const struct tep_print_arg *r;

	for (; a && depth < 16; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_FLAGS:
			if (a->flags.field && a->flags.field->type == TEP_PRINT_FIELD &&
			    a->flags.field->field.name &&
			    !strcmp(a->flags.field->field.name, "gfp_flags"))
				return a;
			break;
		case TEP_PRINT_OP:
			r = find_flags(a->op.left, depth + 1);
			if (!r)
				r = find_flags(a->op.right, depth + 1);
			if (r)
				return r;
			break;
		case TEP_PRINT_TYPE:
			r = find_flags(a->typecast.item, depth + 1);
			if (r)
				return r;
			break;
		default:
			break;
		}
	}
	return NULL;
}

void kmf_kmem_gfp_names(const struct kmf_kmem *k, struct kmf_gfp_table *g)
{
	const struct tep_print_flag_sym *s;
	const struct tep_print_arg *fa = NULL;
	unsigned int i;

	g->nr = 0;
	for (i = 0; i < k->nr_evs && !fa; i++)
		fa = find_flags(k->evs[i].ev->print_fmt.args, 0);
	if (!fa)
		return;
	for (s = fa->flags.flags; s && g->nr < 256; s = s->next) {
		char *end;
		uint64_t v;

		if (!s->value || !s->str)
			continue;
		v = strtoull(s->value, &end, 0);
		if (*end || !v)
			continue;
		g->mask[g->nr] = v;
		g->name[g->nr++] = s->str;
	}
}

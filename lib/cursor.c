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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "kmt.h"
#include "layouts_v1.h"

/*
 * The layouts of ABI 1.  Only to recognise a trace that uses them
 * exactly: its hot event types then take a decoder written out for them;
 * any other layout takes the general loop.
 */
KMT_DEFINE_LAYOUTS_V1(kmt_known_layouts);

/* Event types with a written-out decoder. */
#define KMT_FAST_TYPES	(1u << KMT_EV_KMALLOC | 1u << KMT_EV_CACHE_ALLOC | \
			 1u << KMT_EV_KFREE | 1u << KMT_EV_CACHE_FREE | \
			 1u << KMT_EV_PAGE_ALLOC | 1u << KMT_EV_PAGE_FREE | \
			 1u << KMT_EV_PAGE_FREE_BATCHED)

/* ... and of ABI 2, this reader's uapi header. */
KMT_DEFINE_LAYOUTS(kmt_known_layouts_v2);

static uint32_t known_types(const struct kmt_layout_info *layout,
			    const struct kmt_layout *known, unsigned int nr)
{
	uint32_t fast = 0;
	unsigned int i, f;

	for (i = 0; i < nr; i++) {
		const struct kmt_layout *k = &known[i];
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
	c->fixed = fmt->abi_version >= 2;
	if (c->fixed)
		c->fast = known_types(layout, kmt_known_layouts_v2,
				      sizeof(kmt_known_layouts_v2) /
				      sizeof(kmt_known_layouts_v2[0]));
	else
		c->fast = known_types(layout, kmt_known_layouts,
				      sizeof(kmt_known_layouts) /
				      sizeof(kmt_known_layouts[0]));
	c->pext = kmt_cursor_decoder(-1) == KMT_DECODE_PEXT;
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

	if ((uint64_t)(c->end - c->p) < hsz && c->cut) {
		/* a file's cut falls in this header: the end */
		c->p = c->end;
		return 0;
	}
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
	    (h.size > (uint64_t)(c->end - c->p) && !c->cut))
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
	c->have_pid = false;
	c->lost_before = h.lost;
	c->sb = c->p;
	c->rp = c->p + hsz;
	if (h.size > (uint64_t)(c->end - c->p)) {
		/* a file's cut falls in it: its records up to the cut */
		c->tail = true;
		c->rend = c->end;
		c->p = c->end;
	} else {
		c->rend = c->p + h.size;
		c->p += h.size;
	}
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

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KMT_BLOCK_DECODE	1
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define KMT_PEXT		1
#endif
/*
 * Decoding varint by varint makes each field wait for the length of the
 * one before it.  For the hot event types, find where all the varints of
 * a record end at once instead: a bit per byte of the next 32 bytes, set
 * where bit 7 is clear.  The fields are then independent loads.
 */
#define KMT_BLOCK	32
/* ... and 8 bytes more are read after a field starting in the block */
#define KMT_BLOCK_NEED	(KMT_BLOCK + 8)

static inline uint32_t stop_bits(const uint8_t *p)
{
#if defined(__SSE2__)
	__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));

	return ~((uint32_t)_mm_movemask_epi8(a) |
		 (uint32_t)_mm_movemask_epi8(b) << 16);
#else
	uint32_t m = 0;
	uint64_t w;
	unsigned int i;

	for (i = 0; i < KMT_BLOCK / 8; i++) {
		memcpy(&w, p + 8 * i, 8);
		/* bit 7 of each byte, inverted, gathered into the top byte */
		w = (~w & 0x8080808080808080ULL) >> 7;
		m |= (uint32_t)((w * 0x0102040810204080ULL) >> 56) << (8 * i);
	}
	return m;
#endif
}

/* The value of the @len byte (1..8) varint at @p. */
static inline __attribute__((always_inline)) uint64_t
varint_bits(const uint8_t *p, unsigned int len)
{
	uint64_t w;

	memcpy(&w, p, 8);
	w &= (~0ULL >> (64 - 8 * len)) & 0x7f7f7f7f7f7f7f7fULL;
	w = (w & 0x00ff00ff00ff00ffULL) | ((w & 0xff00ff00ff00ff00ULL) >> 1);
	w = (w & 0x0000ffff0000ffffULL) | ((w & 0xffff0000ffff0000ULL) >> 2);
	return (w & 0x00000000ffffffffULL) | ((w & 0xffffffff00000000ULL) >> 4);
}

#define BLOCK_RECORD	block_record
#define BLOCK_BITS	varint_bits
#include "cursor_block.h"
#undef BLOCK_RECORD
#undef BLOCK_BITS

#if defined(KMT_PEXT)
/*
 * The same with BMI2's pext, which packs the groups in one instruction,
 * for the CPUs where it is fast (it is microcoded on AMD before Zen 3).
 */
#pragma GCC push_options
#pragma GCC target("bmi2")
static inline __attribute__((always_inline)) uint64_t
varint_bits_pext(const uint8_t *p, unsigned int len)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return _pext_u64(w & (~0ULL >> (64 - 8 * len)), 0x7f7f7f7f7f7f7f7fULL);
}

#define BLOCK_RECORD	block_record_pext
#define BLOCK_BITS	varint_bits_pext
#include "cursor_block.h"
#undef BLOCK_RECORD
#undef BLOCK_BITS
#pragma GCC pop_options

static bool pext_is_fast(void)
{
	unsigned int a, b, c, d, family;
	char vendor[13];

	if (!__builtin_cpu_supports("bmi2") || !__get_cpuid(0, &a, &b, &c, &d))
		return false;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (!strcmp(vendor, "GenuineIntel"))
		return true;
	if (strcmp(vendor, "AuthenticAMD") || !__get_cpuid(1, &a, &b, &c, &d))
		return false;
	family = (a >> 8) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	return family >= 0x19;
}
#endif
#endif

#if defined(KMT_BLOCK_DECODE)
/*
 * ABI 2: the hot records at fixed offsets.  Little-endian hosts only,
 * where the fields are plain loads.  Returns the bytes the record takes,
 * or 0 for the general loop: an absolute time, an escaped slot, a pid
 * the record cannot inherit, a record near the sub-buffer's end.
 */
#define KMT_FIXED_NEED	40	/* header, time, pid, 16 field bytes, stack */

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static unsigned int fixed_record(struct kmt_cursor *c, const uint8_t *q,
				 struct kmt_event *ev)
{
	uint8_t hdr = q[0];
	unsigned int type = hdr & KMT_HDR_TYPE_MASK, n = 3;
	unsigned int ctx = (hdr >> KMT_HDR_CTX_SHIFT) & KMT_HDR_CTX_MASK;
	uint64_t text = c->fmt->text_base, dmap = c->fmt->direct_map_base;
	uint32_t dt = ld16(q + 1), pid = c->pid, p32, gfp, v16;
	const uint8_t *f;
	int32_t cs;

	if (dt == KMT_TIME_ABS)
		return 0;
	if (hdr & KMT_HDR_PID) {
		if (ctx != KMT_CTX_TASK)
			return 0;
		pid = ld32(q + 3);
		n = 7;
	} else if (ctx == KMT_CTX_TASK && !c->have_pid) {
		return 0;
	}
	f = q + n;
	switch (type) {
	case KMT_EV_KMALLOC:
	case KMT_EV_CACHE_ALLOC:
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		cs = (int32_t)ld32(f);
		p32 = ld32(f + 4);
		if (cs == INT32_MIN || p32 == 0xffffffffu)
			return 0;
		ev->call_site = text + (uint64_t)(int64_t)cs;
		ev->ptr = p32 == KMT_DMAP32_NULL ? 0 : dmap + ((uint64_t)p32 << 3);
		ev->has = KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR);
		if (type == KMT_EV_KFREE) {
			n += 8;
			break;
		}
		/* the cache id, or kmalloc's bytes_req */
		v16 = ld16(f + 8);
		if (v16 == 0xffff)
			return 0;
		if (type == KMT_EV_CACHE_FREE) {
			ev->cache = v16;
			ev->has |= KMT_HAS(KMT_F_CACHE);
			n += 10;
			break;
		}
		if (type == KMT_EV_KMALLOC) {
			/* then the slack */
			ev->bytes_req = v16;
			ev->bytes_alloc = ld16(f + 10);
			if (ev->bytes_alloc == 0xffff)
				return 0;
			ev->bytes_alloc += ev->bytes_req;
			f += 2;
			n += 2;
			ev->has |= KMT_HAS(KMT_F_BYTES_REQ) | KMT_HAS(KMT_F_BYTES_SLACK);
		} else {
			ev->cache = v16;
			ev->has |= KMT_HAS(KMT_F_CACHE);
		}
		gfp = ld32(f + 10);
		ev->gfp = gfp & 0xffffff;
		ev->node = (int8_t)(gfp >> 24);
		if (ev->gfp == 0xffffff || ev->node == -128)
			return 0;
		ev->has |= KMT_HAS(KMT_F_GFP) | KMT_HAS(KMT_F_NODE);
		n += 14;
		break;
	case KMT_EV_PAGE_ALLOC:
		ev->pfn1 = ld32(f);
		ev->order = f[4];
		gfp = ld32(f + 5);
		ev->gfp = gfp & 0xffffff;
		ev->migratetype = (int8_t)(gfp >> 24);
		ev->stack_len = f[9];
		/* a stack of up to 127 bytes: its length is one LEB128 byte */
		if (ev->pfn1 == 0xffffffffu || ev->order == 0xff ||
		    ev->gfp == 0xffffff || ev->migratetype == -128 ||
		    ev->stack_len >= 0x80 ||
		    ev->stack_len > (size_t)(c->rend - (f + 10)))
			return 0;
		ev->stack = f + 10;
		ev->has = KMT_HAS(KMT_F_PFN1) | KMT_HAS(KMT_F_ORDER) |
			  KMT_HAS(KMT_F_GFP) | KMT_HAS(KMT_F_MIGRATETYPE) |
			  KMT_HAS(KMT_F_STACK);
		n += 10 + ev->stack_len;
		break;
	case KMT_EV_PAGE_FREE:
		ev->pfn1 = ld32(f);
		ev->order = f[4];
		if (ev->pfn1 == 0xffffffffu || ev->order == 0xff)
			return 0;
		ev->has = KMT_HAS(KMT_F_PFN1) | KMT_HAS(KMT_F_ORDER);
		n += 5;
		break;
	default:	/* KMT_EV_PAGE_FREE_BATCHED */
		ev->pfn1 = ld32(f);
		if (ev->pfn1 == 0xffffffffu)
			return 0;
		ev->has = KMT_HAS(KMT_F_PFN1);
		n += 4;
		break;
	}
	if (hdr & KMT_HDR_PID) {
		c->pid = pid;
		c->have_pid = true;
	}
	ev->type = (uint8_t)type;
	ev->ctx = (uint8_t)ctx;
	ev->cpu = c->cpu;
	ev->pid = ctx == KMT_CTX_TASK ? pid : 0;
	ev->ts = c->now += dt;
	return n;
}
#endif

/* Which block decoder kmt_cursor_init() picks; see kmt_cursor_decoder(). */
static int decoder = -1;

int kmt_cursor_decoder(int which)
{
	if (which >= 0)
		decoder = which;
#if defined(KMT_PEXT)
	if (decoder < 0)
		decoder = pext_is_fast() ? KMT_DECODE_PEXT : KMT_DECODE_PORTABLE;
#else
	if (decoder < 0 || decoder == KMT_DECODE_PEXT)
		decoder = KMT_DECODE_PORTABLE;
#endif
	return decoder;
}

/* The header byte: type and context into @ev; NULL for an undescribed type. */
static inline const struct kmt_layout_info *
record_start(struct kmt_cursor *c, uint8_t hdr, struct kmt_event *ev)
{
	ev->type = hdr & KMT_HDR_TYPE_MASK;
	ev->ctx = (hdr >> KMT_HDR_CTX_SHIFT) & KMT_HDR_CTX_MASK;
	ev->cpu = c->cpu;
	ev->has = 0;
	return c->layout[ev->type].present ? &c->layout[ev->type] : NULL;
}

/*
 * An allocation made through a wrapper: the event of its base type, put
 * to the last return address of its stack (the first frame outside the
 * wrappers), with the wrapper's call site in ev->via.
 */
static void via(const struct kmt_cursor *c, struct kmt_event *ev)
{
	const uint8_t *p = ev->stack, *end = ev->stack + ev->stack_len;
	uint64_t v, last = 0;
	unsigned int n;
	bool any = false;

	ev->type = ev->type == KMT_EV_KMALLOC_VIA ? KMT_EV_KMALLOC : KMT_EV_CACHE_ALLOC;
	if (!(ev->has & KMT_HAS(KMT_F_STACK)) || !(ev->has & KMT_HAS(KMT_F_CALL_SITE)))
		return;
	while (p < end && (n = kmt_get_uvar(p, end, &v)) != 0) {
		p += n;
		last = v;
		any = true;
	}
	if (!any)
		return;
	ev->via = ev->call_site;
	ev->call_site = c->fmt->text_base + (uint64_t)kmt_unzigzag(last);
	ev->has |= KMT_HAS_VIA;
}

/* A record decoded up to @q: finish @ev and move past it. */
static inline int record_end(struct kmt_cursor *c, const uint8_t *q,
			     struct kmt_event *ev)
{
	/* bytes_alloc is carried as the slack over bytes_req */
	if (ev->has & KMT_HAS(KMT_F_BYTES_SLACK))
		ev->bytes_alloc += ev->bytes_req;
	if (ev->type == KMT_EV_KMALLOC_VIA || ev->type == KMT_EV_CACHE_ALLOC_VIA)
		via(c, ev);
	c->rp = q;
	return 1;
}

static inline void set_field(struct kmt_event *ev, unsigned int id, uint64_t v)
{
	if (id > KMT_F_MAX)
		return;
	ev->has |= KMT_HAS(id);
	switch (id) {
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
	case KMT_F_TRIGGER: ev->trigger = (uint32_t)v; break;
	case KMT_F_RET: ev->ret = (int32_t)v; break;
	case KMT_F_NR_RECLAIMED: ev->nr_reclaimed = v; break;
	case KMT_F_NR_SCANNED: ev->nr_scanned = v; break;
	case KMT_F_PRIORITY: ev->priority = (uint32_t)v; break;
	case KMT_F_FILE: ev->file = (uint32_t)v; break;
	case KMT_F_FUNC: ev->func = v; break;
	case KMT_F_SHRINKER: ev->shrinker = v; break;
	case KMT_F_CACHE_ITEMS: ev->cache_items = v; break;
	case KMT_F_TOTAL_SCAN: ev->total_scan = v; break;
	case KMT_F_FREED: ev->freed = (int64_t)v; break;
	case KMT_F_ZONE_START: ev->zone_start = v; break;
	case KMT_F_ZONE_END: ev->zone_end = v; break;
	case KMT_F_MIGRATE_PFN: ev->migrate_pfn = v; break;
	case KMT_F_FREE_PFN: ev->free_pfn = v; break;
	case KMT_F_SYNC: ev->sync = (uint32_t)v; break;
	case KMT_F_STATUS: ev->status = (uint32_t)v; break;
	case KMT_F_GROUPS: ev->groups = (uint32_t)v; break;
	case KMT_F_MB_OP: ev->mb_op = (uint32_t)v; break;
	case KMT_F_PHYS: ev->phys = v; break;
	case KMT_F_LENGTH: ev->length = v; break;
	case KMT_F_NR_KEPT: ev->nr_kept = v; break;
	case KMT_F_NR_DROPPED: ev->nr_dropped = v; break;
	case KMT_F_CAPACITY: ev->capacity = v; break;
	case KMT_F_CPU: ev->buf_cpu = (uint32_t)v; break;
	case KMT_F_VADDR: ev->vaddr = v; break;
	case KMT_F_NR_PAGES: ev->nr_pages = v; break;
	case KMT_F_KIND: ev->kind = (uint32_t)v; break;
	case KMT_F_PG_KEPT: ev->pg_kept = v; break;
	case KMT_F_PG_DROPPED: ev->pg_dropped = v; break;
	case KMT_F_TASK_OP: ev->task_op = (uint32_t)v; break;
	case KMT_F_TASK_PID: ev->task_pid = (uint32_t)v; break;
	case KMT_F_PPID: ev->ppid = (uint32_t)v; break;
	case KMT_F_CGROUP_ID: ev->cgroup_id = v; break;
	default: ev->has &= ~KMT_HAS(id); break;
	}
}

static inline int set_str(struct kmt_cursor *c, struct kmt_event *ev,
			  unsigned int id, const uint8_t **qp, struct kmt_err *err)
{
	const uint8_t *q = *qp;
	uint64_t v;
	unsigned int n = kmt_get_uvar_fast(q, c->rend, &v);

	if (!n)
		return bad_record(c, "truncated string length", err);
	q += n;
	if (v > (uint64_t)(c->rend - q))
		return bad_record(c, "string runs past the sub-buffer", err);
	if (id == KMT_F_NAME) {
		ev->name = (const char *)q;
		ev->name_len = (uint32_t)v;
		ev->has |= KMT_HAS(KMT_F_NAME);
	} else if (id == KMT_F_STACK) {
		ev->stack = q;
		ev->stack_len = (uint32_t)v;
		ev->has |= KMT_HAS(KMT_F_STACK);
	} else if (id == KMT_F_COMM) {
		ev->comm = (const char *)q;
		ev->comm_len = (uint32_t)v;
		ev->has |= KMT_HAS(KMT_F_COMM);
	} else if (id == KMT_F_FILENAME) {
		ev->filename = (const char *)q;
		ev->filename_len = (uint32_t)v;
		ev->has |= KMT_HAS(KMT_F_FILENAME);
	} else if (id == KMT_F_CGROUP) {
		ev->cgroup = (const char *)q;
		ev->cgroup_len = (uint32_t)v;
		ev->has |= KMT_HAS(KMT_F_CGROUP);
	}
	*qp = q + v;
	return 0;
}

/* Little-endian loads of record fields (ABI 2), whatever this host is. */
static inline uint64_t le_bytes(const uint8_t *q, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)q[i] << (8 * i);
	return v;
}

/* Whether @v, the slot of encoding @enc, is its escape: a u64 follows. */
static inline bool slot_escaped(uint8_t enc, uint64_t v)
{
	switch (enc) {
	case KMT_ENC_S8X: return v == 0x80;
	case KMT_ENC_S32: return false;
	case KMT_ENC_TEXT32: return v == 0x80000000u;
	case KMT_ENC_U8X: return v == 0xff;
	case KMT_ENC_U16X: return v == 0xffff;
	case KMT_ENC_U24X: return v == 0xffffff;
	default: return v == 0xffffffffu;	/* U32X, DMAP32 */
	}
}

/* Width of the slot of a fixed encoding. */
static inline unsigned int fixed_width(uint8_t enc)
{
	switch (enc) {
	case KMT_ENC_U8X: case KMT_ENC_S8X: return 1;
	case KMT_ENC_U16X: return 2;
	case KMT_ENC_U24X: return 3;
	default: return 4;
	}
}

/*
 * One fixed-width field at *qp: its value (addresses made whole), and
 * the escaped u64 after the slot if the slot holds the escape.
 */
static inline int get_fixed(struct kmt_cursor *c, uint8_t enc,
			    const uint8_t **qp, uint64_t *vp,
			    struct kmt_err *err)
{
	const uint8_t *q = *qp;
	unsigned int w = fixed_width(enc);
	uint64_t v, esc;
	bool escaped;

	if ((size_t)(c->rend - q) < w)
		return bad_record(c, "truncated field", err);
	v = le_bytes(q, w);
	q += w;
	escaped = slot_escaped(enc, v);
	switch (enc) {
	case KMT_ENC_S8X:
		v = (uint64_t)(int64_t)(int8_t)v;
		break;
	case KMT_ENC_S32:
		v = (uint64_t)(int64_t)(int32_t)v;
		break;
	case KMT_ENC_TEXT32:
		v = c->fmt->text_base + (uint64_t)(int64_t)(int32_t)v;
		break;
	case KMT_ENC_DMAP32:
		v = v == KMT_DMAP32_NULL ? 0 : c->fmt->direct_map_base + (v << 3);
		break;
	}
	if (escaped) {
		if (c->rend - q < 8)
			return bad_record(c, "truncated escaped field", err);
		esc = le_bytes(q, 8);
		q += 8;
		v = esc;
	}
	*vp = v;
	*qp = q;
	return 0;
}

/* ABI 2: header byte, u16 time delta (or escape and u64), pid, fields. */
static int next_fixed(struct kmt_cursor *c, const uint8_t *q,
		      struct kmt_event *ev, struct kmt_err *err)
{
	const struct kmt_layout_info *l;
	unsigned int i;
	uint64_t v;
	uint8_t hdr;
	int ret;

	hdr = *q++;
	l = record_start(c, hdr, ev);
	if (!l)
		return bad_record(c, "record of an undescribed event type", err);
	if (c->rend - q < 2)
		return bad_record(c, "truncated time field", err);
	v = le_bytes(q, 2);
	q += 2;
	if (v == KMT_TIME_ABS) {
		if (c->rend - q < 8)
			return bad_record(c, "truncated time field", err);
		c->now = le_bytes(q, 8);
		q += 8;
	} else {
		c->now += v;
	}
	ev->ts = c->now;
	ev->pid = 0;
	if (hdr & KMT_HDR_PID) {
		if (ev->ctx != KMT_CTX_TASK)
			return bad_record(c, "pid in an interrupt record", err);
		if (c->rend - q < 4)
			return bad_record(c, "truncated pid", err);
		c->pid = (uint32_t)le_bytes(q, 4);
		c->have_pid = true;
		q += 4;
	}
	if (ev->ctx == KMT_CTX_TASK) {
		if (!c->have_pid)
			return bad_record(c, "task record before any pid in its sub-buffer", err);
		ev->pid = c->pid;
	}
	for (i = 0; i < l->nr_fields; i++) {
		const struct kmt_field_desc *f = &l->fields[i];

		if (f->enc == KMT_ENC_STR) {
			ret = set_str(c, ev, f->id, &q, err);
		} else {
			ret = get_fixed(c, f->enc, &q, &v, err);
			if (!ret)
				set_field(ev, f->id, v);
		}
		if (ret)
			return ret;
	}
	return record_end(c, q, ev);
}

static inline __attribute__((always_inline)) int
cursor_next(struct kmt_cursor *c, struct kmt_event *ev, struct kmt_err *err)
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
	if (c->fixed) {
#ifdef KMT_BLOCK_DECODE
		if ((c->fast >> (*q & KMT_HDR_TYPE_MASK)) & 1 &&
		    c->rend - q >= KMT_FIXED_NEED) {
			n = fixed_record(c, q, ev);
			if (n) {
				c->rp = q + n;
				return 1;
			}
		}
#endif
		return next_fixed(c, q, ev, err);
	}
#ifdef KMT_BLOCK_DECODE
	if ((c->fast >> (*q & KMT_HDR_TYPE_MASK)) & 1 &&
	    c->rend - q >= KMT_BLOCK_NEED) {
#if defined(KMT_PEXT)
		n = c->pext ? block_record_pext(c, q, ev) : block_record(c, q, ev);
#else
		n = block_record(c, q, ev);
#endif
		if (n) {
			c->rp = q + n;
			return 1;
		}
	}
#endif
	hdr = *q++;
	l = record_start(c, hdr, ev);
	if (!l)
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
	for (i = 0; i < l->nr_fields; i++) {
		const struct kmt_field_desc *f = &l->fields[i];

		if (f->enc == KMT_ENC_STR) {
			ret = set_str(c, ev, f->id, &q, err);
			if (ret)
				return ret;
			continue;
		}
		n = kmt_get_uvar_fast(q, c->rend, &v);
		if (!n)
			return bad_record(c, "truncated field", err);
		q += n;
		if (f->enc == KMT_ENC_SVAR)
			v = (uint64_t)kmt_unzigzag(v);
		else if (f->enc == KMT_ENC_TEXT)
			v = c->fmt->text_base + (uint64_t)kmt_unzigzag(v);
		else if (f->enc == KMT_ENC_DMAP)
			v = c->fmt->direct_map_base + (uint64_t)kmt_unzigzag(v);
		set_field(ev, f->id, v);
	}
	return record_end(c, q, ev);
}

int kmt_cursor_next(struct kmt_cursor *c, struct kmt_event *ev,
		    struct kmt_err *err)
{
	int ret = cursor_next(c, ev, err);

	/*
	 * In the sub-buffer a file's cut falls in, a record the cut runs
	 * through cannot be told from a damaged one: the records end there.
	 */
	if (ret < 0 && c->tail) {
		c->rp = c->rend;
		return 0;
	}
	return ret;
}

void kmt_cursor_init_cpu(struct kmt_cursor *c, const struct kmt_trace *t,
			 unsigned int i)
{
	kmt_cursor_init(c, &t->fmt, t->layout, t->swap, t->cpus[i].cpu,
			t->cpus[i].data, t->cpus[i].size);
	c->cut = t->cpus[i].cut;
}

static void le_store64(uint8_t *q, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		q[i] = (uint8_t)(v >> (8 * i));
}

int kmt_records_rebase(const struct kmt_format *fmt,
		       const struct kmt_layout_info *layout, bool swap,
		       uint32_t cpu, uint8_t *data, uint64_t size,
		       uint64_t dtext, uint64_t ddmap, struct kmt_err *err)
{
	struct kmt_cursor c;
	struct kmt_event ev;
	const uint8_t *q;
	uint64_t v;
	unsigned int i, w;
	uint8_t hdr;
	int ret;

	kmt_cursor_init(&c, fmt, layout, swap, cpu, data, size);
	if (!c.fixed)	/* ABI 1: every address is an offset */
		return 0;
	c.fast = 0;
	for (;;) {
		while (c.rp == c.rend) {
			if (c.p == c.end)
				return 0;
			ret = next_subbuf(&c, err);
			if (ret)
				return ret;
		}
		/* decode first: the record is whole and valid */
		q = c.rp;
		hdr = *q;
		ret = next_fixed(&c, q, &ev, err);
		if (ret < 0)
			return ret;
		/* then walk it again for the escaped addresses */
		q += 1 + 2;
		if (le_bytes(q - 2, 2) == KMT_TIME_ABS)
			q += 8;
		if (hdr & KMT_HDR_PID)
			q += 4;
		for (i = 0; i < layout[ev.type].nr_fields; i++) {
			uint8_t enc = layout[ev.type].fields[i].enc;
			unsigned int n;

			if (enc == KMT_ENC_STR) {
				v = 0;
				n = kmt_get_uvar_fast(q, c.rend, &v);
				q += n + v;
				continue;
			}
			w = fixed_width(enc);
			v = le_bytes(q, w);
			q += w;
			if (!slot_escaped(enc, v))
				continue;
			if (enc == KMT_ENC_TEXT32)
				le_store64(data + (q - (const uint8_t *)data),
					   le_bytes(q, 8) - dtext);
			else if (enc == KMT_ENC_DMAP32)
				le_store64(data + (q - (const uint8_t *)data),
					   le_bytes(q, 8) - ddmap);
			q += 8;
		}
	}
}

int kmt_trace_span(const struct kmt_trace *t, uint64_t *per_cpu,
		   uint64_t *first, uint64_t *last, struct kmt_err *err)
{
	struct kmt_cursor c;
	struct kmt_event ev;
	uint64_t n, lo = UINT64_MAX, hi = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < t->nr_cpus; i++) {
		kmt_cursor_init_cpu(&c, t, i);
		n = 0;
		while ((ret = kmt_cursor_next(&c, &ev, err)) > 0) {
			n++;
			lo = ev.ts < lo ? ev.ts : lo;
			hi = ev.ts > hi ? ev.ts : hi;
		}
		if (ret < 0)
			return ret;
		if (per_cpu)
			per_cpu[i] = n;
	}
	if (first)
		*first = lo;
	if (last)
		*last = hi;
	return 0;
}

int kmt_trace_count(const struct kmt_trace *t, uint64_t *per_cpu,
		    struct kmt_err *err)
{
	return kmt_trace_span(t, per_cpu, NULL, NULL, err);
}

/* Heap order: earlier time first; equal times go to the lower index. */
static bool merge_before(const struct kmt_merge *m, unsigned int a, unsigned int b)
{
	/* which CPU comes next is a coin toss: no branches */
	return (m->ev[a].ts < m->ev[b].ts) |
	       ((m->ev[a].ts == m->ev[b].ts) & (a < b));
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
		kmt_cursor_init_cpu(&m->cur[i], t, i);
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
	if (m->nr_heap == 2) {
		/* two CPUs: a select, not a sift */
		unsigned int a = m->heap[0], b = m->heap[1];
		unsigned int swap = -(unsigned int)merge_before(m, b, a);

		m->heap[0] = a ^ ((a ^ b) & swap);
		m->heap[1] = b ^ ((a ^ b) & swap);
	} else if (m->nr_heap > 2) {
		merge_sift_down(m, 0);
	}
	return 1;
}

void kmt_merge_free(struct kmt_merge *m)
{
	free(m->cur);
	free(m->ev);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

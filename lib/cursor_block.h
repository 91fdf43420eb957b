/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block decoder of lib/cursor.c, included there once per way of
 * packing a varint's 7-bit groups: BLOCK_RECORD names the function,
 * BLOCK_BITS(p, len) gives the value of the len-byte varint at p.
 */
/*
 * One record of a type in c->fast, at least KMT_BLOCK_NEED bytes before
 * the end of its sub-buffer.  Returns the bytes it takes, or 0 when the
 * record does not fit this path (a varint longer than 8 bytes, a record
 * longer than the block, a string past the end): the general loop then
 * decodes it, and reports the error if there is one.
 */
static unsigned int BLOCK_RECORD(struct kmt_cursor *c, const uint8_t *q,
				 struct kmt_event *ev)
{
	uint8_t hdr = q[0];
	uint32_t m = stop_bits(q) & ~1u;	/* byte 0 is the header */
	unsigned int type = hdr & KMT_HDR_TYPE_MASK, s = 1, e, len;
	uint64_t v, text = c->fmt->text_base, dmap = c->fmt->direct_map_base;
	uint64_t now;

	ev->ctx = (hdr >> KMT_HDR_CTX_SHIFT) & KMT_HDR_CTX_MASK;

#define NEXT(dst)	do {						\
		if (!m)							\
			return 0;					\
		e = (unsigned int)__builtin_ctz(m);			\
		m &= m - 1;						\
		len = e - s + 1;					\
		if (len > 8)						\
			return 0;					\
		v = BLOCK_BITS(q + s, len);				\
		s = e + 1;						\
		dst;							\
	} while (0)

	NEXT(now = (hdr & KMT_HDR_ABS_TIME) ? v : c->now + v);
	ev->pid = 0;
	if (ev->ctx == KMT_CTX_TASK)
		NEXT(ev->pid = (uint32_t)v);
	switch (type) {
	case KMT_EV_KMALLOC:
		NEXT(ev->call_site = text + (uint64_t)kmt_unzigzag(v));
		NEXT(ev->ptr = dmap + (uint64_t)kmt_unzigzag(v));
		NEXT(ev->bytes_req = v);
		NEXT(ev->bytes_alloc = ev->bytes_req + v);
		NEXT(ev->gfp = v);
		NEXT(ev->node = kmt_unzigzag(v));
		ev->has = KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR) |
			  KMT_HAS(KMT_F_BYTES_REQ) | KMT_HAS(KMT_F_BYTES_SLACK) |
			  KMT_HAS(KMT_F_GFP) | KMT_HAS(KMT_F_NODE);
		break;
	case KMT_EV_CACHE_ALLOC:
		NEXT(ev->call_site = text + (uint64_t)kmt_unzigzag(v));
		NEXT(ev->ptr = dmap + (uint64_t)kmt_unzigzag(v));
		NEXT(ev->cache = (uint32_t)v);
		NEXT(ev->gfp = v);
		NEXT(ev->node = kmt_unzigzag(v));
		ev->has = KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR) |
			  KMT_HAS(KMT_F_CACHE) | KMT_HAS(KMT_F_GFP) |
			  KMT_HAS(KMT_F_NODE);
		break;
	case KMT_EV_KFREE:
		NEXT(ev->call_site = text + (uint64_t)kmt_unzigzag(v));
		NEXT(ev->ptr = dmap + (uint64_t)kmt_unzigzag(v));
		ev->has = KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR);
		break;
	case KMT_EV_CACHE_FREE:
		NEXT(ev->call_site = text + (uint64_t)kmt_unzigzag(v));
		NEXT(ev->ptr = dmap + (uint64_t)kmt_unzigzag(v));
		NEXT(ev->cache = (uint32_t)v);
		ev->has = KMT_HAS(KMT_F_CALL_SITE) | KMT_HAS(KMT_F_PTR) |
			  KMT_HAS(KMT_F_CACHE);
		break;
	case KMT_EV_PAGE_ALLOC:
		NEXT(ev->pfn1 = v);
		NEXT(ev->order = (uint32_t)v);
		NEXT(ev->gfp = v);
		NEXT(ev->migratetype = (int32_t)kmt_unzigzag(v));
		NEXT(ev->stack_len = (uint32_t)v);
		/* the stack's bytes follow its length */
		if (v > (uint64_t)(c->rend - (q + s)))
			return 0;
		ev->stack = q + s;
		s += (unsigned int)v;
		ev->has = KMT_HAS(KMT_F_PFN1) | KMT_HAS(KMT_F_ORDER) |
			  KMT_HAS(KMT_F_GFP) | KMT_HAS(KMT_F_MIGRATETYPE) |
			  KMT_HAS(KMT_F_STACK);
		break;
	case KMT_EV_PAGE_FREE:
		NEXT(ev->pfn1 = v);
		NEXT(ev->order = (uint32_t)v);
		ev->has = KMT_HAS(KMT_F_PFN1) | KMT_HAS(KMT_F_ORDER);
		break;
	default:	/* KMT_EV_PAGE_FREE_BATCHED */
		NEXT(ev->pfn1 = v);
		ev->has = KMT_HAS(KMT_F_PFN1);
		break;
	}
#undef NEXT
	ev->type = (uint8_t)type;
	ev->cpu = c->cpu;
	ev->ts = c->now = now;
	return s;
}

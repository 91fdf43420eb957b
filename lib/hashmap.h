/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Open-addressing hash map from a non-zero u64 key to a u64 value, with
 * linear probing and backward-shift deletion (no tombstones), so memory
 * stays bounded by the live keys.  Key 0 marks an empty slot.
 */
#ifndef KMT_HASHMAP_H
#define KMT_HASHMAP_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct kmt_hm_slot {
	uint64_t key;
	uint64_t val;
	uint64_t val2;
	uint64_t val3;		/* 32-byte slots: two per cache line */
};

struct kmt_hm {
	struct kmt_hm_slot *s;
	size_t mask;
	size_t nr;
};

static inline size_t kmt_hm_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static inline int kmt_hm_init(struct kmt_hm *h, size_t cap_pow2)
{
	h->s = calloc(cap_pow2, sizeof(*h->s));
	h->mask = cap_pow2 - 1;
	h->nr = 0;
	return h->s ? 0 : -ENOMEM;
}

static inline void kmt_hm_free(struct kmt_hm *h)
{
	free(h->s);
	h->s = NULL;
}

static inline struct kmt_hm_slot *kmt_hm_find(const struct kmt_hm *h,
					      uint64_t key)
{
	size_t i = kmt_hm_hash(key) & h->mask;

	for (;; i = (i + 1) & h->mask) {
		if (h->s[i].key == key)
			return &h->s[i];
		if (!h->s[i].key)
			return NULL;
	}
}

static inline int kmt_hm_grow(struct kmt_hm *h)
{
	struct kmt_hm n;
	size_t i, j;

	if (kmt_hm_init(&n, (h->mask + 1) * 2))
		return -ENOMEM;
	for (i = 0; i <= h->mask; i++) {
		if (!h->s[i].key)
			continue;
		for (j = kmt_hm_hash(h->s[i].key) & n.mask; n.s[j].key;
		     j = (j + 1) & n.mask)
			;
		n.s[j] = h->s[i];
	}
	n.nr = h->nr;
	free(h->s);
	*h = n;
	return 0;
}

/* The slot for key, created with val 0 if new; NULL on ENOMEM. */
static inline struct kmt_hm_slot *kmt_hm_get(struct kmt_hm *h, uint64_t key,
					     int *created)
{
	size_t i;

	if ((h->nr + 1) * 4 > (h->mask + 1) * 3 && kmt_hm_grow(h))
		return NULL;
	for (i = kmt_hm_hash(key) & h->mask;; i = (i + 1) & h->mask) {
		if (h->s[i].key == key) {
			*created = 0;
			return &h->s[i];
		}
		if (!h->s[i].key) {
			h->s[i].key = key;
			h->s[i].val = 0;
			h->s[i].val2 = 0;
			h->s[i].val3 = 0;
			h->nr++;
			*created = 1;
			return &h->s[i];
		}
	}
}

static inline void kmt_hm_remove(struct kmt_hm *h, struct kmt_hm_slot *slot)
{
	size_t i = (size_t)(slot - h->s), j = i, k;

	/*
	 * Backward shift: the hole at i takes the first entry after it whose
	 * home slot k is not in (i, j], then the hole moves there.  The hole's
	 * contents do not matter, so copy always and move the hole by
	 * arithmetic: no branch to mispredict on each entry of the cluster.
	 */
	for (;;) {
		j = (j + 1) & h->mask;
		if (!h->s[j].key)
			break;
		k = kmt_hm_hash(h->s[j].key) & h->mask;
		h->s[i] = h->s[j];
		i = ((j - k) & h->mask) >= ((j - i) & h->mask) ? j : i;
	}
	h->s[i].key = 0;
	h->nr--;
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The previous boot's sub-buffers, as tracefs kmemtrace/previous/data
 * gives them: each CPU's back to back, by CPU and sequence number, each
 * a struct kmt_subbuf_header whose size is the bytes of it kept.  The
 * kernel checked the region's headers; this checks the kernel, and
 * finds how much of each CPU's decodes: a sub-buffer the firmware wrote
 * over at the reset ends that CPU's trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kmt.h"

int kmt_previous_split(const uint8_t *data, size_t size, uint32_t subbuf_size,
		       struct kmt_prev_cpu **out, unsigned int *nr,
		       struct kmt_err *err)
{
	const size_t hsz = sizeof(struct kmt_subbuf_header);
	struct kmt_prev_cpu *cpus = NULL, *c = NULL, *nc;
	struct kmt_subbuf_header h;
	unsigned int n = 0;
	size_t off;
	int ret = 0;

	*out = NULL;
	*nr = 0;
	for (off = 0; off < size; off += h.size) {
		if (size - off < hsz) {
			ret = kmt_errf(err, EBADMSG, "previous/data ends in a sub-buffer header, at byte %zu", off);
			break;
		}
		memcpy(&h, data + off, hsz);
		if (h.magic != KMT_SUBBUF_MAGIC || h.size < hsz ||
		    h.size > subbuf_size || h.size > size - off) {
			ret = kmt_errf(err, EBADMSG, "previous/data has an invalid sub-buffer at byte %zu", off);
			break;
		}
		if (c && h.cpu < c->cpu) {
			ret = kmt_errf(err, EBADMSG, "previous/data: cpu %u comes after cpu %u",
				       h.cpu, c->cpu);
			break;
		}
		if (!c || h.cpu != c->cpu) {
			nc = realloc(cpus, (n + 1) * sizeof(*cpus));
			if (!nc) {
				ret = kmt_errf(err, ENOMEM, "out of memory");
				break;
			}
			cpus = nc;
			c = &cpus[n++];
			memset(c, 0, sizeof(*c));
			c->cpu = h.cpu;
			c->off = off;
		}
		c->size = off + h.size - c->off;
		c->nr_subbufs++;
		/* what the CPU had lost when its last kept sub-buffer opened */
		c->lost = h.lost;
	}
	if (ret) {
		free(cpus);
		return ret;
	}
	*out = cpus;
	*nr = n;
	return 0;
}

uint64_t kmt_previous_whole(const struct kmt_format *fmt,
			    const struct kmt_layout_info *layout,
			    const struct kmt_prev_cpu *c, const uint8_t *data,
			    uint32_t *nr_subbufs)
{
	const uint8_t *p = data + c->off;
	struct kmt_subbuf_header h;
	struct kmt_cursor cur;
	struct kmt_event ev;
	struct kmt_err err;
	uint64_t off = 0, bad;
	uint32_t i;
	int ret;

	kmt_cursor_init(&cur, fmt, layout, false, c->cpu, p, c->size);
	while ((ret = kmt_cursor_next(&cur, &ev, &err)) > 0)
		;
	if (!ret) {
		*nr_subbufs = c->nr_subbufs;
		return c->size;
	}
	/* the sub-buffer that failed is the last the cursor began */
	bad = cur.nr_subbufs ? cur.nr_subbufs - 1 : 0;
	for (i = 0; i < bad && c->size - off >= sizeof(h); i++) {
		memcpy(&h, p + off, sizeof(h));
		off += h.size;
	}
	*nr_subbufs = i;
	return off;
}

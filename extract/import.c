// SPDX-License-Identifier: GPL-2.0
/*
 * Collect events from a stock kernel's tracer and write them as a .kmt
 * file the way 'save' does: same sections, same record layouts.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import.h"
#include "meta.h"
#include "recorder.h"

/* Sub-buffers as large as the recorder's default. */
#define IMPORT_SUBBUF_SIZE	(64 * 1024)

int kmf_import_init(struct kmf_import *im, uint32_t nr_cpu_ids)
{
	uint32_t i;

	memset(im, 0, sizeof(*im));
	if (!nr_cpu_ids || nr_cpu_ids > KMT_MAX_CPU_IDS)
		return -EINVAL;
	im->nr_cpu_ids = nr_cpu_ids;
	im->lost = calloc(nr_cpu_ids, sizeof(*im->lost));
	im->first_ts = calloc(nr_cpu_ids, sizeof(*im->first_ts));
	im->counts = calloc(KMT_EV_MAX + 1, sizeof(*im->counts));
	if (!im->lost || !im->first_ts || !im->counts) {
		kmf_import_free(im);
		return -ENOMEM;
	}
	for (i = 0; i < nr_cpu_ids; i++)
		im->first_ts[i] = UINT64_MAX;
	return 0;
}

void kmf_import_free(struct kmf_import *im)
{
	free(im->ev);
	free(im->frames);
	free(im->caches);
	free(im->lost);
	free(im->first_ts);
	free(im->counts);
	kmt_hm_free(&im->hm_sizes);
	kmt_hm_free(&im->hm_names);
	free(im->lat);
	memset(im, 0, sizeof(*im));
}

int kmf_import_add_lat(struct kmf_import *im, struct kmf_imp_ev *ev,
		       const struct kmf_imp_lat *lat, const uint64_t *frames,
		       unsigned int nr_frames)
{
	struct kmf_imp_lat *l;

	if (ev->cpu >= im->nr_cpu_ids) {
		im->skipped++;
		return 0;
	}
	if (im->nr_lat == UINT32_MAX)
		return -E2BIG;
	if (im->nr_lat == im->cap_lat) {
		size_t cap = im->cap_lat ? im->cap_lat * 2 : 1024;

		l = realloc(im->lat, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		im->lat = l;
		im->cap_lat = cap;
	}
	im->lat[im->nr_lat] = *lat;
	ev->aux = (uint32_t)im->nr_lat++;
	return kmf_import_add(im, ev, frames, nr_frames);
}

int kmf_import_add(struct kmf_import *im, const struct kmf_imp_ev *ev,
		   const uint64_t *frames, unsigned int nr_frames)
{
	struct kmf_imp_ev *e;

	if (ev->cpu >= im->nr_cpu_ids) {
		im->skipped++;
		return 0;
	}
	if (im->nr == im->cap) {
		size_t cap = im->cap ? im->cap * 2 : 65536;

		e = realloc(im->ev, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		im->ev = e;
		im->cap = cap;
	}
	e = &im->ev[im->nr++];
	*e = *ev;
	e->nr_frames = 0;
	if (nr_frames) {
		if (nr_frames > 16)
			nr_frames = 16;
		if (im->nr_frames + nr_frames > im->cap_frames) {
			size_t cap = im->cap_frames ? im->cap_frames * 2 : 65536;
			uint64_t *f = realloc(im->frames, cap * sizeof(*f));

			if (!f)
				return -ENOMEM;
			im->frames = f;
			im->cap_frames = cap;
		}
		if (im->nr_frames > UINT32_MAX - nr_frames)
			return -E2BIG;
		memcpy(im->frames + im->nr_frames, frames,
		       nr_frames * sizeof(*frames));
		e->stack = (uint32_t)im->nr_frames;
		e->nr_frames = (uint16_t)nr_frames;
		im->nr_frames += nr_frames;
	}
	if (ev->ts < im->first_ts[ev->cpu])
		im->first_ts[ev->cpu] = ev->ts;
	im->counts[ev->type & KMT_EV_MAX]++;
	return 0;
}

static uint64_t cache_hash(const char *name, size_t len, uint32_t osize,
			   uint32_t size, bool by_name)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ULL;
	if (!by_name)
		h = ((h ^ osize) * 0x100000001b3ULL ^ size) * 0x100000001b3ULL;
	return h ? h : 1;
}

static bool cache_is(const struct kmf_imp_cache *c, const char *name,
		     size_t len, uint32_t osize, uint32_t size, bool by_name)
{
	return strlen(c->name) == len && !memcmp(c->name, name, len) &&
	       (by_name || (c->object_size == osize && c->size == size));
}

/* The slot of a key in @hm: found (val = id), or empty for it. */
static int cache_slot(struct kmf_import *im, struct kmt_hm *hm,
		      const char *name, size_t len, uint32_t osize,
		      uint32_t size, bool by_name, struct kmt_hm_slot **out)
{
	uint64_t key = cache_hash(name, len, osize, size, by_name);
	struct kmt_hm_slot *slot;
	int created;

	for (;;) {
		slot = kmt_hm_get(hm, key, &created);
		if (!slot)
			return -ENOMEM;
		if (created || cache_is(&im->caches[slot->val - 1], name, len,
					osize, size, by_name))
			break;
		key = key + 1 ? key + 1 : 1;	/* a collision: probe on */
	}
	*out = slot;
	return created;
}

int kmf_import_cache(struct kmf_import *im, const char *name, size_t len,
		     uint32_t object_size, uint32_t size, uint32_t *id)
{
	bool by_name = !size;	/* a free: the newest cache of that name */
	struct kmt_hm_slot *slot, *nslot;
	struct kmf_imp_cache *c;
	int ret;

	if (len > KMT_MAX_NAME)
		len = KMT_MAX_NAME;
	if (!im->hm_sizes.s && (kmt_hm_init(&im->hm_sizes, 256) ||
				kmt_hm_init(&im->hm_names, 256)))
		return -ENOMEM;
	ret = cache_slot(im, by_name ? &im->hm_names : &im->hm_sizes, name, len,
			 object_size, size, by_name, &slot);
	if (ret < 0)
		return ret;
	if (!ret) {
		*id = (uint32_t)slot->val;
		return 0;
	}
	if (im->nr_caches >= 0xfffe) {
		kmt_hm_remove(by_name ? &im->hm_names : &im->hm_sizes, slot);
		return -E2BIG;
	}
	c = realloc(im->caches, (im->nr_caches + 1) * sizeof(*c));
	if (!c) {
		kmt_hm_remove(by_name ? &im->hm_names : &im->hm_sizes, slot);
		return -ENOMEM;
	}
	im->caches = c;
	c += im->nr_caches++;
	memset(c, 0, sizeof(*c));
	memcpy(c->name, name, len);
	c->object_size = object_size;
	c->size = size;
	*id = im->nr_caches;
	slot->val = *id;
	if (!by_name) {
		/* frees of this name find it from now on */
		ret = cache_slot(im, &im->hm_names, name, len, 0, 0, true, &nslot);
		if (ret < 0)
			return ret;
		nslot->val = *id;
	}
	return 0;
}

uint64_t kmf_kallsyms_stext(const char *ksyms, size_t len)
{
	const char *s, *end = ksyms + len, *nl;

	for (s = ksyms; s && s < end; s = nl ? nl + 1 : NULL) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if ((nl ? nl : end) - s > 8 &&
		    !memcmp((nl ? nl : end) - 7, " _stext", 7))
			return strtoull(s, NULL, 16);
	}
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct kmf_imp_ev *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* a groups record goes before the events of its time */
	if ((x->type == KMT_EV_GROUPS) != (y->type == KMT_EV_GROUPS))
		return x->type == KMT_EV_GROUPS ? -1 : 1;
	/* keep the order of equal times: the tracer's order */
	return x < y ? -1 : x > y;
}

/* The fields of a vmscan or compaction event (struct kmf_imp_lat). */
static void latency_fields(const struct kmf_import *im,
			   const struct kmf_imp_ev *s, struct kmt_event *ev,
			   uint64_t ddmap)
{
	const struct kmf_imp_lat *l = &im->lat[s->aux];

	switch (s->type) {
	case KMT_EV_RECLAIM_BEGIN:
	case KMT_EV_COMPACT_TRY:
		ev->order = (uint32_t)l->v[0];
		ev->priority = (uint32_t)l->v[1];
		ev->comm = l->comm;
		ev->comm_len = (uint32_t)strnlen(l->comm, sizeof(l->comm));
		ev->has |= KMT_HAS(KMT_F_COMM);
		break;
	case KMT_EV_RECLAIM_END:
		ev->nr_reclaimed = l->v[0];
		break;
	case KMT_EV_LRU_SHRINK_INACTIVE:
		ev->node = (int64_t)l->v[0];
		ev->nr_scanned = l->v[1];
		ev->nr_reclaimed = l->v[2];
		ev->priority = (uint32_t)l->v[3];
		ev->file = (uint32_t)l->v[4];
		break;
	case KMT_EV_SHRINK_START:
	case KMT_EV_SHRINK_END:
		ev->func = ev->call_site;
		ev->call_site = 0;
		ev->shrinker = s->ptr ? s->ptr - ddmap : 0;
		ev->ptr = 0;
		if (s->type == KMT_EV_SHRINK_START) {
			ev->cache_items = l->v[0];
			ev->total_scan = l->v[1];
			ev->priority = (uint32_t)l->v[2];
		} else {
			ev->freed = (int64_t)l->v[0];
			ev->total_scan = l->v[1];
		}
		break;
	default:	/* compaction begin and end */
		ev->zone_start = l->v[0];
		ev->zone_end = l->v[1];
		ev->migrate_pfn = l->v[2];
		ev->free_pfn = l->v[3];
		ev->sync = (uint32_t)l->v[4];
		ev->status = (uint32_t)l->v[5];
		break;
	}
}

static void to_event(const struct kmf_import *im, const struct kmf_imp_ev *s,
		     struct kmt_event *ev, uint64_t dtext, uint64_t ddmap,
		     const struct kmt_encoder *e, uint8_t *stack)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts = s->ts;
	ev->cpu = s->cpu;
	ev->type = s->type;
	ev->ctx = s->ctx;
	ev->pid = s->pid;
	ev->call_site = s->call_site ? s->call_site - dtext : 0;
	ev->ptr = s->ptr;
	ev->gfp = s->gfp;
	ev->node = s->node;
	/* objects: offsets into the direct map with --no-addresses */
	if (s->type <= KMT_EV_CACHE_FREE && ev->ptr)
		ev->ptr -= ddmap;
	switch (s->type) {
	case KMT_EV_KMALLOC:
		ev->bytes_req = s->req;
		ev->bytes_alloc = s->alloc < s->req ? s->req : s->alloc;
		break;
	case KMT_EV_CACHE_ALLOC:
	case KMT_EV_CACHE_FREE:
		ev->cache = s->aux;
		break;
	case KMT_EV_PAGE_ALLOC:
	case KMT_EV_PAGE_FREE:
	case KMT_EV_PAGE_FREE_BATCHED:
		ev->pfn1 = s->ptr;
		ev->ptr = 0;
		ev->order = s->aux;
		ev->migratetype = s->node;
		break;
	case KMT_EV_GROUPS:
		ev->groups = s->aux;
		break;
	case KMT_EV_RECLAIM_BEGIN ... KMT_EV_COMPACT_END:
		latency_fields(im, s, ev, ddmap);
		break;
	default:
		break;
	}
	/* a page allocation's callers, or the way into reclaim (perf) */
	if (s->nr_frames) {
		uint64_t fr[16];
		unsigned int i;

		for (i = 0; i < s->nr_frames; i++)
			fr[i] = im->frames[s->stack + i] - dtext;
		ev->stack = stack;
		ev->stack_len = (uint32_t)kmt_encode_stack(e, fr, s->nr_frames,
							   stack, 160);
		ev->has |= KMT_HAS(KMT_F_STACK);
	}
}

static int caches_text(const struct kmf_import *im, char **out, size_t *len)
{
	uint32_t i;
	int ret = 0;

	*out = NULL;
	*len = 0;
	for (i = 0; i < im->nr_caches && !ret; i++)
		ret = kmf_append(out, len, "%u %u %u 0 0 %s\n", i + 1,
				 im->caches[i].object_size, im->caches[i].size,
				 im->caches[i].name);
	return ret;
}

/*
 * With vmscan or compaction events, a groups record first, as the
 * recorder writes when it starts: the groups the tracer had (the caller
 * says which it enabled; a group none of whose events came is still
 * recorded, with none), or at least those of the events it recorded.
 * Readers pair stalls only with the kmem group.
 */
static int add_groups(struct kmf_import *im)
{
	struct kmf_imp_ev g;
	uint32_t groups = im->groups, cpu, first = 0;
	unsigned int t;

	for (t = KMT_EV_KMALLOC; t <= KMT_EV_PAGE_FREE_BATCHED; t++)
		if (im->counts[t])
			groups |= 1u << KMT_GROUP_KMEM;
	for (t = KMT_EV_RECLAIM_BEGIN; t <= KMT_EV_SHRINK_END; t++)
		if (im->counts[t])
			groups |= 1u << KMT_GROUP_RECLAIM;
	for (t = KMT_EV_COMPACT_TRY; t <= KMT_EV_COMPACT_END; t++)
		if (im->counts[t])
			groups |= 1u << KMT_GROUP_COMPACTION;
	if (!(groups & ~(1u << KMT_GROUP_KMEM)) || im->counts[KMT_EV_GROUPS])
		return 0;
	for (cpu = 1; cpu < im->nr_cpu_ids; cpu++)
		if (im->first_ts[cpu] < im->first_ts[first])
			first = cpu;
	memset(&g, 0, sizeof(g));
	g.ts = im->first_ts[first];
	g.cpu = first;
	g.type = KMT_EV_GROUPS;
	g.ctx = KMT_CTX_TASK;
	g.aux = groups;
	return kmf_import_add(im, &g, NULL, 0);
}

int kmf_import_write(struct kmf_import *im, const struct kmf_import_out *o,
		     uint64_t *bytes, struct kmt_err *err)
{
	uint64_t text = 0, dmap = UINT64_MAX, dtext = 0, ddmap = 0;
	char *caches = NULL, *ksyms = NULL;
	size_t caches_len = 0, ksyms_len = o->kallsyms_len, i;
	struct kmt_encoder e;
	struct kmt_writer w;
	uint8_t *fmt = NULL, stack[160];
	size_t fmt_len;
	uint32_t cpu;
	int ret;

	*bytes = 0;
	if (o->kallsyms)
		text = kmf_kallsyms_stext(o->kallsyms, o->kallsyms_len);
	for (i = 0; i < im->nr; i++) {
		const struct kmf_imp_ev *s = &im->ev[i];

		if (s->ptr && s->ptr < dmap && s->type <= KMT_EV_CACHE_FREE)
			dmap = s->ptr;
		if (!text && s->call_site)
			text = s->call_site & ~0xfffffULL;
	}
	/* the direct map starts at a 1 GiB boundary at or below its objects */
	dmap = dmap == UINT64_MAX ? 0 : dmap & ~((1ULL << 30) - 1);
	if (o->no_addresses) {
		dtext = text;
		ddmap = dmap;
		text = dmap = 0;
	}
	ret = add_groups(im);
	if (ret)
		return kmt_errf(err, -ret, "out of memory");
	qsort(im->ev, im->nr, sizeof(*im->ev), cmp_ev);
	ret = kmt_encoder_init(&e, im->nr_cpu_ids, IMPORT_SUBBUF_SIZE, text, dmap,
			       o->page_shift);
	if (ret)
		return kmt_errf(err, -ret, "cannot encode: %s", strerror(-ret));
	for (i = 0; i < o->nr_gfp && !ret; i++)
		ret = kmt_encoder_add_gfp_name(&e, o->gfp_masks[i], o->gfp_names[i]);
	for (i = 0, cpu = UINT32_MAX; i < im->nr && !ret; i++) {
		const struct kmf_imp_ev *s = &im->ev[i];
		struct kmt_event ev;

		if (s->cpu != cpu) {
			cpu = s->cpu;
			/* what the tracer dropped, before the CPU's first event */
			ret = kmt_encoder_lost(&e, cpu, im->lost[cpu]);
			if (ret)
				break;
		}
		to_event(im, s, &ev, dtext, ddmap, &e, stack);
		ret = kmt_encode(&e, &ev);
	}
	ret = ret ?: caches_text(im, &caches, &caches_len);
	ret = ret ?: kmt_encoder_format(&e, o->clock, &fmt, &fmt_len);
	if (!ret && o->kallsyms) {
		ksyms = malloc(ksyms_len + 1);
		if (!ksyms)
			ret = -ENOMEM;
		else
			memcpy(ksyms, o->kallsyms, ksyms_len);
		if (!ret && o->no_addresses)
			ret = kmf_relative_kallsyms(&ksyms, &ksyms_len, dtext);
	}
	if (ret) {
		kmt_errf(err, -ret, "cannot encode the events: %s", strerror(-ret));
		goto out;
	}
	ret = kmt_writer_open(&w, o->path, err);
	if (ret)
		goto out;
	ret = kmt_writer_section(&w, KMT_SEC_FORMAT, fmt, fmt_len, err);
	ret = ret ?: kmt_writer_section(&w, KMT_SEC_META, o->meta, strlen(o->meta), err);
	ret = ret ?: kmt_writer_section(&w, KMT_SEC_TOPOLOGY, o->topology,
					strlen(o->topology), err);
	ret = ret ?: kmt_writer_section(&w, KMT_SEC_CACHES, caches, caches_len, err);
	if (ksyms)
		ret = ret ?: kmt_writer_section_zstd(&w, KMT_SEC_KALLSYMS, ksyms,
						     ksyms_len, err);
	for (cpu = 0; cpu < im->nr_cpu_ids && !ret; cpu++) {
		const struct kmt_enc_cpu *c = kmt_encoder_cpu(&e, cpu);
		struct kmt_cpu_section cs = {
			.cpu = cpu,
			.nr_subbufs = c->seq,
			.events = c->events,
			.lost = im->lost[cpu],
		};

		if (!c->events && !im->lost[cpu])
			continue;
		ret = kmt_writer_section2(&w, KMT_SEC_CPU, &cs, sizeof(cs),
					  c->buf, c->len, err);
		*bytes += c->len;
	}
	ret = ret ?: kmt_writer_commit(&w, err);
	if (ret)
		kmt_writer_abort(&w);
out:
	kmt_encoder_free(&e);
	free(fmt);
	free(caches);
	free(ksyms);
	return ret;
}

/* "0-3,5" into the node of each CPU it lists. */
static int cpulist_lines(const char *list, int node, char **out, size_t *len)
{
	const char *s = list;
	unsigned long a, b, cpu;
	char *end;
	int ret = 0;

	while (*s && *s != '\n' && !ret) {
		a = strtoul(s, &end, 10);
		if (end == s)
			return -EINVAL;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			if (end == s + 1 || b < a || b - a > KMT_MAX_CPU_IDS)
				return -EINVAL;
			s = end;
		}
		for (cpu = a; cpu <= b && !ret; cpu++)
			ret = kmf_append(out, len, "cpu %lu node %d\n", cpu, node);
		if (*s == ',')
			s++;
	}
	return ret;
}

/* A node's memory: the memory blocks linked from its directory. */
static int node_memory(const char *dir, int node, uint64_t block_pfns,
		       char **out, size_t *len)
{
	uint64_t lo = UINT64_MAX, hi = 0, idx;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		char *end;

		if (strncmp(d->d_name, "memory", 6) || !d->d_name[6])
			continue;
		idx = strtoull(d->d_name + 6, &end, 10);
		if (*end)
			continue;
		if (idx * block_pfns < lo)
			lo = idx * block_pfns;
		if ((idx + 1) * block_pfns > hi)
			hi = (idx + 1) * block_pfns;
	}
	closedir(dp);
	if (lo >= hi)
		return 0;
	return kmf_append(out, len, "node %d start_pfn %" PRIu64 " end_pfn %"
			  PRIu64 "\n", node, lo, hi);
}

int kmf_sysfs_topology(char **out, size_t *len)
{
	const char *base = "/sys/devices/system/node";
	uint64_t block_pfns = 0;
	char path[512], *buf;
	struct dirent *d;
	size_t n;
	int ret = 0, node;
	DIR *dp;

	*out = NULL;
	*len = 0;
	if (!kmt_read_file("/sys/devices/system/memory/block_size_bytes", &buf, &n)) {
		block_pfns = strtoull(buf, NULL, 16) /
			     (uint64_t)sysconf(_SC_PAGESIZE);
		free(buf);
	}
	dp = opendir(base);
	if (!dp) {
		/* no NUMA: every CPU on node 0 */
		if (kmt_read_file("/sys/devices/system/cpu/possible", &buf, &n))
			return kmf_append(out, len, "%s", "");
		ret = cpulist_lines(buf, 0, out, len);
		free(buf);
		return ret == -EINVAL ? 0 : ret;
	}
	while (!ret && (d = readdir(dp))) {
		char *end;

		if (strncmp(d->d_name, "node", 4) || !d->d_name[4])
			continue;
		node = (int)strtol(d->d_name + 4, &end, 10);
		if (*end)
			continue;
		snprintf(path, sizeof(path), "%s/%s/cpulist", base, d->d_name);
		if (!kmt_read_file(path, &buf, &n)) {
			ret = cpulist_lines(buf, node, out, len);
			if (ret == -EINVAL)
				ret = 0;
			free(buf);
		}
		snprintf(path, sizeof(path), "%s/%s", base, d->d_name);
		if (!ret && block_pfns)
			ret = node_memory(path, node, block_pfns, out, len);
	}
	closedir(dp);
	if (!ret && !*out)
		ret = kmf_append(out, len, "%s", "");
	return ret;
}

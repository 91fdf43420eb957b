// SPDX-License-Identifier: GPL-2.0
/*
 * Test trace builder: encodes events like mm/kmemtrace/ does.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "kmt.h"
#include "kmt_build.h"
#include "layouts_v1.h"

struct kb_buf {
	uint8_t *p;
	size_t len, cap;
};

struct kb_cpu {
	struct kb_buf data;
	size_t sb;		/* offset of the open sub-buffer, or SIZE_MAX */
	uint32_t seq;
	uint64_t prev_ts;
	uint32_t pid;		/* ABI 2: last pid written in the sub-buffer */
	bool have_pid;
	uint64_t lost;
	uint64_t events;
	bool events_set;
	uint64_t kernel_events;
	uint64_t first_ts;	/* of its first record (window_start) */
	uint64_t overwritten;	/* flight mode: the kernel's counter */
	uint64_t frozen_dropped;	/* flight mode: the kernel's counter */
};

struct kb {
	unsigned int nr_cpus;
	uint32_t subbuf_size;
	bool swap;
	struct kb_cpu *cpu;
	struct kb_buf caches;
	char *kallsyms;
	char *meta;		/* KMT_SEC_META text, or NULL: the default */
	char *meminfo, *vmstat, *zoneinfo;
	char *topology;
	int gfp_table;		/* KB_GFP_*: the GFP names (longer header) */
	int abi;		/* record format: KMT_ABI_VERSION or 1 */
	bool raw_str;		/* the string is several STR fields, encoded */
	bool flight;		/* write a KMT_SEC_FLIGHT section */
	unsigned int pool;	/* a recorder with a pool of this many sub-buffers */
	char *tasks;		/* KMT_SEC_TASKS text, or NULL */
	char *cgroups;		/* KMT_SEC_CGROUPS text, or NULL */
	bool tasks_v0;		/* task records without the cgroup id */
	struct kmt_flight_section fl;
	uint32_t fl_cpu_size;	/* bytes of a flight section's entry, 0: today's */
	uint32_t zstd_types;	/* BIT(type): the sections stored compressed */
	uint16_t file_version;	/* of the file header, 0: KMT_FILE_VERSION */
	char *import_meta;	/* an import's META lines, or NULL */
};

KMT_DEFINE_LAYOUTS_V1(v1_layouts);
KMT_DEFINE_LAYOUTS(v2_layouts);

/*
 * ABI 2 as recorders wrote it before the cgroup id: the task layout
 * without KMT_F_CGROUP_ID, the cgroup's path in every record.
 */
static struct kmt_layout v2_tasks_v0[sizeof(v2_layouts) / sizeof(v2_layouts[0])];

static const struct kmt_layout *layouts_tasks_v0(void)
{
	struct kmt_layout *l;
	size_t i, j, k;

	if (v2_tasks_v0[0].type)
		return v2_tasks_v0;
	memcpy(v2_tasks_v0, v2_layouts, sizeof(v2_layouts));
	for (i = 0; i < sizeof(v2_tasks_v0) / sizeof(v2_tasks_v0[0]); i++) {
		l = &v2_tasks_v0[i];
		if (l->type != KMT_EV_TASK)
			continue;
		for (j = k = 0; j < l->nr_fields; j++)
			if (l->fields[j].id != KMT_F_CGROUP_ID)
				l->fields[k++] = l->fields[j];
		memset(&l->fields[k], 0, (l->nr_fields - k) * sizeof(l->fields[0]));
		l->nr_fields = (uint8_t)k;
	}
	return v2_tasks_v0;
}

/* The layouts of the record format in use, and their number. */
static const struct kmt_layout *layouts_of(const struct kb *b, size_t *nr)
{
	if (b->abi == 1) {
		*nr = sizeof(v1_layouts) / sizeof(v1_layouts[0]);
		return v1_layouts;
	}
	*nr = sizeof(v2_layouts) / sizeof(v2_layouts[0]);
	return b->tasks_v0 ? layouts_tasks_v0() : v2_layouts;
}

static const struct kmt_layout *layout_of(const struct kb *b, uint8_t type)
{
	size_t i, nr;
	const struct kmt_layout *l = layouts_of(b, &nr);

	for (i = 0; i < nr; i++)
		if (l[i].type == type)
			return &l[i];
	abort();
}

void kb_set_abi(struct kb *b, int abi) { b->abi = abi; }

void kb_set_tasks_v0(struct kb *b) { b->tasks_v0 = true; }

static void buf_put(struct kb_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

struct kb *kb_new(unsigned int nr_cpus, uint32_t subbuf_size)
{
	struct kb *b = calloc(1, sizeof(*b));
	unsigned int i;

	if (!b)
		abort();
	b->nr_cpus = nr_cpus;
	b->subbuf_size = subbuf_size;
	/* mktrace writes old-format traces with KMT_BUILD_ABI=1 */
	b->abi = getenv("KMT_BUILD_ABI") && !strcmp(getenv("KMT_BUILD_ABI"), "1") ?
		 1 : KMT_ABI_VERSION;
	b->cpu = calloc(nr_cpus, sizeof(*b->cpu));
	if (!b->cpu)
		abort();
	for (i = 0; i < nr_cpus; i++)
		b->cpu[i].sb = SIZE_MAX;
	return b;
}

void kb_free(struct kb *b)
{
	unsigned int i;

	if (!b)
		return;
	for (i = 0; i < b->nr_cpus; i++)
		free(b->cpu[i].data.p);
	free(b->cpu);
	free(b->caches.p);
	free(b->kallsyms);
	free(b->meta);
	free(b->tasks);
	free(b->cgroups);
	free(b->meminfo);
	free(b->vmstat);
	free(b->zoneinfo);
	free(b->topology);
	free(b->import_meta);
	free(b);
}

void kb_set_swap(struct kb *b, bool swap) { b->swap = swap; }
void kb_set_lost(struct kb *b, unsigned int cpu, uint64_t lost) { b->cpu[cpu].lost = lost; }

void kb_set_kernel_events(struct kb *b, unsigned int cpu, uint64_t n)
{
	b->cpu[cpu].events_set = true;
	b->cpu[cpu].kernel_events = n;
}

void kb_set_proc(struct kb *b, const char *meminfo, const char *vmstat,
		 const char *zoneinfo)
{
	free(b->meminfo);
	free(b->vmstat);
	free(b->zoneinfo);
	b->meminfo = meminfo ? strdup(meminfo) : NULL;
	b->vmstat = vmstat ? strdup(vmstat) : NULL;
	b->zoneinfo = zoneinfo ? strdup(zoneinfo) : NULL;
}

void kb_set_meta(struct kb *b, const char *text)
{
	free(b->meta);
	b->meta = strdup(text);
}

void kb_set_kallsyms(struct kb *b, const char *text)
{
	free(b->kallsyms);
	b->kallsyms = strdup(text);
}

void kb_set_pool(struct kb *b, unsigned int nr)
{
	b->pool = nr;
}

void kb_set_topology(struct kb *b, const char *text)
{
	free(b->topology);
	b->topology = strdup(text);
}

static uint32_t s32(const struct kb *b, uint32_t v) { return b->swap ? __builtin_bswap32(v) : v; }
static uint64_t s64(const struct kb *b, uint64_t v) { return b->swap ? __builtin_bswap64(v) : v; }
static uint16_t s16(const struct kb *b, uint16_t v) { return b->swap ? __builtin_bswap16(v) : v; }

static void close_subbuf(struct kb *b, struct kb_cpu *c)
{
	uint32_t size;

	if (c->sb == SIZE_MAX)
		return;
	size = s32(b, (uint32_t)(c->data.len - c->sb));
	memcpy(c->data.p + c->sb + offsetof(struct kmt_subbuf_header, size),
	       &size, sizeof(size));
	c->sb = SIZE_MAX;
}

void kb_close_subbuf(struct kb *b, unsigned int cpu)
{
	close_subbuf(b, &b->cpu[cpu]);
}

static void le(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One field of @enc holding the raw value @v (an address for TEXT/DMAP). */
static size_t put_field(uint8_t *p, uint8_t enc, uint64_t v)
{
	int64_t off;
	unsigned int w = 4;
	uint64_t slot = v;
	bool fits = true;

	switch (enc) {
	case KMT_ENC_UVAR:
		return kmt_put_uvar(p, v);
	case KMT_ENC_SVAR:
		return kmt_put_uvar(p, kmt_zigzag((int64_t)v));
	case KMT_ENC_TEXT:
		return kmt_put_uvar(p, kmt_zigzag((int64_t)(v - KB_TEXT_BASE)));
	case KMT_ENC_DMAP:
		return kmt_put_uvar(p, kmt_zigzag((int64_t)(v - KB_DMAP_BASE)));
	case KMT_ENC_U8X: w = 1; fits = v < 0xff; break;
	case KMT_ENC_U16X: w = 2; fits = v < 0xffff; break;
	case KMT_ENC_U24X: w = 3; fits = v < 0xffffff; break;
	case KMT_ENC_U32X: fits = v < 0xffffffff; break;
	case KMT_ENC_S8X:
		w = 1;
		fits = (int64_t)v > -128 && (int64_t)v < 128;
		slot = fits ? v : 0x80;
		break;
	case KMT_ENC_S32:
		break;
	case KMT_ENC_TEXT32:
		off = (int64_t)(v - KB_TEXT_BASE);
		fits = off == (int32_t)off && off != INT32_MIN;
		slot = fits ? (uint64_t)off : 0x80000000u;
		break;
	case KMT_ENC_DMAP32:
		off = (int64_t)(v - KB_DMAP_BASE);
		fits = !(off & 7) && (uint64_t)off < ((uint64_t)KMT_DMAP32_NULL << 3);
		slot = !v ? KMT_DMAP32_NULL : fits ? (uint64_t)off >> 3 : 0xffffffffu;
		fits |= !v;
		break;
	default:
		abort();
	}
	if (!fits && enc != KMT_ENC_S8X && enc != KMT_ENC_TEXT32 &&
	    enc != KMT_ENC_DMAP32)
		slot = ~0ULL;
	le(p, slot, w);
	if (fits)
		return w;
	le(p + w, v, 8);
	return w + 8;
}

/* The record, given its time field (@first: a sub-buffer's first). */
static size_t encode(struct kb *b, struct kb_cpu *c, uint8_t *rec, bool first,
		     uint64_t ts, uint8_t type, int ctx, uint32_t pid,
		     const uint64_t *v, unsigned int n, const char *str,
		     size_t slen, bool *pid_written)
{
	const struct kmt_layout *l = layout_of(b, type);
	uint64_t tval = first ? 0 : ts - c->prev_ts;
	size_t len = 1;
	unsigned int i;

	*pid_written = false;
	if (b->abi == 1) {
		bool absolute = !first && tval >= (1ULL << 31);

		rec[0] = type | (uint8_t)(ctx << KMT_HDR_CTX_SHIFT) |
			 (absolute ? KMT_HDR_ABS_TIME : 0);
		len += kmt_put_uvar(rec + len, absolute ? ts : tval);
		if (ctx == KMT_CTX_TASK)
			len += kmt_put_uvar(rec + len, pid);
	} else {
		bool need_pid = ctx == KMT_CTX_TASK &&
				(first || !c->have_pid || c->pid != pid);

		rec[0] = type | (uint8_t)(ctx << KMT_HDR_CTX_SHIFT) |
			 (need_pid ? KMT_HDR_PID : 0);
		if (tval >= KMT_TIME_ABS) {
			le(rec + len, KMT_TIME_ABS, 2);
			le(rec + len + 2, ts, 8);
			len += 10;
		} else {
			le(rec + len, tval, 2);
			len += 2;
		}
		if (need_pid) {
			le(rec + len, pid, 4);
			len += 4;
			*pid_written = true;
		}
	}
	for (i = 0; i < n; i++)
		len += put_field(rec + len, l->fields[i].enc, v[i]);
	if (str) {
		if (!b->raw_str)
			len += kmt_put_uvar(rec + len, slen);
		memcpy(rec + len, str, slen);
		len += slen;
	}
	return len;
}

/* @v: the raw values (addresses, signed values as two's complement). */
static void record_bytes(struct kb *b, unsigned int cpu, uint64_t ts,
			 uint8_t type, int ctx, uint32_t pid, const uint64_t *v,
			 unsigned int n, const char *str, size_t slen);

static void record(struct kb *b, unsigned int cpu, uint64_t ts, uint8_t type,
		   int ctx, uint32_t pid, const uint64_t *v, unsigned int n,
		   const char *str)
{
	record_bytes(b, cpu, ts, type, ctx, pid, v, n, str, str ? strlen(str) : 0);
}

/* A record whose last field is a string of @slen bytes (if @str). */
static void record_bytes(struct kb *b, unsigned int cpu, uint64_t ts,
			 uint8_t type, int ctx, uint32_t pid, const uint64_t *v,
			 unsigned int n, const char *str, size_t slen)
{
	struct kb_cpu *c = &b->cpu[cpu];
	uint8_t rec[512];
	bool pid_written;
	size_t len = 0;

	if (c->sb != SIZE_MAX) {
		len = encode(b, c, rec, false, ts, type, ctx, pid, v, n, str,
			     slen, &pid_written);
		if (c->data.len - c->sb + len > b->subbuf_size)
			close_subbuf(b, c);
	}
	if (!c->data.len)
		c->first_ts = ts;
	if (c->sb == SIZE_MAX) {
		struct kmt_subbuf_header h = {
			.magic = s32(b, KMT_SUBBUF_MAGIC),
			.cpu = s32(b, cpu),
			.seq = s32(b, c->seq++),
			.base_ts = s64(b, ts),
			.lost = s64(b, c->lost),
		};

		c->sb = c->data.len;
		c->have_pid = false;
		buf_put(&c->data, &h, sizeof(h));
		len = encode(b, c, rec, true, ts, type, ctx, pid, v, n, str,
			     slen, &pid_written);
	}
	if (pid_written) {
		c->pid = pid;
		c->have_pid = true;
	}
	buf_put(&c->data, rec, len);
	c->prev_ts = ts;
	c->events++;
}

void kb_kmalloc(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		uint32_t pid, uint64_t call_site, uint64_t ptr, uint64_t req,
		uint64_t alloc, uint64_t gfp, int node)
{
	uint64_t v[6] = {
		call_site, ptr, req, alloc - req, gfp, (uint64_t)(int64_t)node,
	};

	record(b, cpu, ts, KMT_EV_KMALLOC, ctx, pid, v, 6, NULL);
}

void kb_cache_alloc(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		    uint32_t pid, uint64_t call_site, uint64_t ptr,
		    uint32_t cache, uint64_t gfp, int node)
{
	uint64_t v[5] = {
		call_site, ptr, cache, gfp, (uint64_t)(int64_t)node,
	};

	record(b, cpu, ts, KMT_EV_CACHE_ALLOC, ctx, pid, v, 5, NULL);
}

void kb_kfree(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
	      uint32_t pid, uint64_t call_site, uint64_t ptr)
{
	uint64_t v[2] = { call_site, ptr };

	record(b, cpu, ts, KMT_EV_KFREE, ctx, pid, v, 2, NULL);
}

void kb_cache_free(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		   uint32_t pid, uint64_t call_site, uint64_t ptr,
		   uint32_t cache)
{
	uint64_t v[3] = { call_site, ptr, cache };

	record(b, cpu, ts, KMT_EV_CACHE_FREE, ctx, pid, v, 3, NULL);
}

void kb_page_alloc(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		   uint32_t pid, uint64_t pfn1, uint32_t order, uint64_t gfp,
		   int migratetype)
{
	kb_page_alloc_stack(b, cpu, ts, ctx, pid, pfn1, order, gfp, migratetype,
			    NULL, 0);
}

void kb_page_alloc_stack(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
			 uint32_t pid, uint64_t pfn1, uint32_t order,
			 uint64_t gfp, int migratetype, const uint64_t *frames,
			 unsigned int nr)
{
	uint64_t v[4] = { pfn1, order, gfp, (uint64_t)(int64_t)migratetype };
	uint8_t stack[16 * 10];
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < nr && i < 16; i++)
		len += kmt_put_uvar(stack + len,
				    kmt_zigzag((int64_t)(frames[i] - KB_TEXT_BASE)));
	record_bytes(b, cpu, ts, KMT_EV_PAGE_ALLOC, ctx, pid, v, 4,
		     (const char *)stack, len);
}

void kb_set_flight(struct kb *b, uint32_t mode, uint32_t trigger,
		   uint64_t trigger_ts, uint64_t frozen_ts)
{
	b->flight = true;
	b->fl.mode = mode;
	b->fl.trigger = trigger;
	b->fl.trigger_ts = trigger_ts;
	b->fl.frozen_ts = frozen_ts;
}

void kb_set_tasks(struct kb *b, const char *text)
{
	free(b->tasks);
	b->tasks = strdup(text);
}

void kb_set_cgroups(struct kb *b, const char *text)
{
	free(b->cgroups);
	b->cgroups = strdup(text);
}

void kb_set_overwritten(struct kb *b, unsigned int cpu, uint64_t n)
{
	b->cpu[cpu].overwritten = n;
}

void kb_set_frozen_dropped(struct kb *b, unsigned int cpu, uint64_t n)
{
	b->cpu[cpu].frozen_dropped = n;
}

void kb_set_flight_cpu_size(struct kb *b, uint32_t size)
{
	b->fl_cpu_size = size;
}

void kb_mark(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t by,
	     uint32_t mark, uint32_t trigger, uint32_t pid, uint32_t order,
	     uint64_t gfp, uint32_t cache, const char *comm,
	     const uint64_t *frames, unsigned int nr)
{
	uint64_t v[6] = { mark, trigger, pid, order, gfp, cache };
	uint8_t blob[300], stack[16 * 10];
	size_t len = 0, slen = 0, n = comm ? strlen(comm) : 0;
	bool raw = b->raw_str;
	unsigned int i;

	for (i = 0; i < nr && i < 16; i++)
		slen += kmt_put_uvar(stack + slen,
				     kmt_zigzag((int64_t)(frames[i] - KB_TEXT_BASE)));
	/* two strings, each with its length */
	len += kmt_put_uvar(blob + len, n);
	memcpy(blob + len, comm ? comm : "", n);
	len += n;
	len += kmt_put_uvar(blob + len, slen);
	memcpy(blob + len, stack, slen);
	len += slen;
	b->raw_str = true;
	record_bytes(b, cpu, ts, KMT_EV_MARK, by ? KMT_CTX_TASK : KMT_CTX_HARDIRQ,
		     by, v, 6, (const char *)blob, len);
	b->raw_str = raw;
}

static size_t stack_bytes(uint8_t *stack, const uint64_t *frames,
			  unsigned int nr)
{
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < nr && i < 16; i++)
		len += kmt_put_uvar(stack + len,
				    kmt_zigzag((int64_t)(frames[i] - KB_TEXT_BASE)));
	return len;
}

void kb_kmalloc_via(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		    uint32_t pid, uint64_t call_site, uint64_t ptr, uint64_t req,
		    uint64_t alloc, uint64_t gfp, int node,
		    const uint64_t *frames, unsigned int nr)
{
	uint64_t v[6] = {
		call_site, ptr, req, alloc - req, gfp, (uint64_t)(int64_t)node,
	};
	uint8_t stack[16 * 10];

	record_bytes(b, cpu, ts, KMT_EV_KMALLOC_VIA, ctx, pid, v, 6,
		     (const char *)stack, stack_bytes(stack, frames, nr));
}

void kb_cache_alloc_via(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
			uint32_t pid, uint64_t call_site, uint64_t ptr,
			uint32_t cache, uint64_t gfp, int node,
			const uint64_t *frames, unsigned int nr)
{
	uint64_t v[5] = {
		call_site, ptr, cache, gfp, (uint64_t)(int64_t)node,
	};
	uint8_t stack[16 * 10];

	record_bytes(b, cpu, ts, KMT_EV_CACHE_ALLOC_VIA, ctx, pid, v, 5,
		     (const char *)stack, stack_bytes(stack, frames, nr));
}

void kb_vmalloc(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		uint32_t op, uint64_t addr, uint64_t pages, uint64_t caller)
{
	uint64_t v[4] = { op, addr, pages, caller };

	record(b, cpu, ts, KMT_EV_VMALLOC, KMT_CTX_TASK, pid, v, 4, NULL);
}

void kb_task_id(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t by,
		uint32_t op, uint32_t pid, uint32_t ppid, uint64_t cgroup_id,
		const char *comm, const char *filename, const char *cgroup)
{
	const struct kmt_layout *l = layout_of(b, KMT_EV_TASK);
	const char *str[3] = { comm, filename, cgroup };
	uint64_t v[4] = { op, pid, ppid, cgroup_id };
	uint8_t blob[400];
	size_t len = 0, n;
	bool raw = b->raw_str;
	unsigned int i, nv = 0;

	/* the values before the strings, as many as the layout has */
	while (nv < l->nr_fields && l->fields[nv].enc != KMT_ENC_STR)
		nv++;
	/* three strings, each with its length: written as they are */
	for (i = 0; i < 3; i++) {
		n = str[i] ? strlen(str[i]) : 0;
		len += kmt_put_uvar(blob + len, n);
		memcpy(blob + len, str[i] ? str[i] : "", n);
		len += n;
	}
	b->raw_str = true;
	record_bytes(b, cpu, ts, KMT_EV_TASK, KMT_CTX_TASK, by, v, nv,
		     (const char *)blob, len);
	b->raw_str = raw;
}

void kb_task(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t by,
	     uint32_t op, uint32_t pid, uint32_t ppid, const char *comm,
	     const char *filename, const char *cgroup)
{
	kb_task_id(b, cpu, ts, by, op, pid, ppid, 0, comm, filename, cgroup);
}

void kb_wrapper(struct kb *b, unsigned int cpu, uint64_t ts, uint64_t func,
		uint64_t size, const char *name)
{
	uint64_t v[3] = { KMT_TEXT_WRAPPER, func, size };

	record(b, cpu, ts, KMT_EV_TEXT_RANGE, KMT_CTX_TASK, 1, v, 3, name);
}

void kb_page_free_batched(struct kb *b, unsigned int cpu, uint64_t ts,
			  uint64_t pfn1)
{
	uint64_t v[1] = { pfn1 };

	record(b, cpu, ts, KMT_EV_PAGE_FREE_BATCHED, KMT_CTX_TASK, 1, v, 1, NULL);
}

void kb_page_free(struct kb *b, unsigned int cpu, uint64_t ts, int ctx,
		  uint32_t pid, uint64_t pfn1, uint32_t order)
{
	uint64_t v[2] = { pfn1, order };

	record(b, cpu, ts, KMT_EV_PAGE_FREE, ctx, pid, v, 2, NULL);
}

void kb_cache_def(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t id,
		  uint32_t object_size, uint32_t size, uint32_t align,
		  const char *name)
{
	uint64_t v[5] = { id, object_size, size, align, 0 };
	char line[256];

	record(b, cpu, ts, KMT_EV_CACHE_DEF, KMT_CTX_TASK, 1, v, 5, name);
	snprintf(line, sizeof(line), "%u %u %u %u 0 %s\n", id, object_size,
		 size, align, name);
	buf_put(&b->caches, line, strlen(line));
}

void kb_initcall_level(struct kb *b, unsigned int cpu, uint64_t ts,
		       const char *level)
{
	record(b, cpu, ts, KMT_EV_INITCALL_LEVEL, KMT_CTX_TASK, 1, NULL, 0, level);
}

void kb_initcall_start(struct kb *b, unsigned int cpu, uint64_t ts, uint64_t fn)
{
	uint64_t v[1] = { fn };

	record(b, cpu, ts, KMT_EV_INITCALL_START, KMT_CTX_TASK, 1, v, 1, NULL);
}

void kb_initcall_finish(struct kb *b, unsigned int cpu, uint64_t ts,
			uint64_t fn, int ret)
{
	uint64_t v[2] = { fn, (uint64_t)(int64_t)ret };

	record(b, cpu, ts, KMT_EV_INITCALL_FINISH, KMT_CTX_TASK, 1, v, 2, NULL);
}

void kb_init_exec(struct kb *b, unsigned int cpu, uint64_t ts,
		  const char *filename)
{
	record(b, cpu, ts, KMT_EV_INIT_EXEC, KMT_CTX_TASK, 1, NULL, 0, filename);
}

static void section(struct kb *b, struct kb_buf *out, uint32_t type,
		    const void *head, size_t hlen, const void *data, size_t len)
{
	static const uint8_t zero[8];
	struct kmt_section s = {
		.type = s32(b, type),
		.size = s64(b, hlen + len),
	};
	uint8_t *raw, *z;
	size_t n;

	if (!(b->zstd_types & (1u << type))) {
		buf_put(out, &s, sizeof(s));
		buf_put(out, head, hlen);
		buf_put(out, data, len);
		buf_put(out, zero, (8 - ((hlen + len) & 7)) & 7);
		return;
	}
	/* the head and the data as one frame, however little it saves */
	raw = malloc(hlen + len + 1);
	z = malloc(ZSTD_compressBound(hlen + len));
	assert(raw && z);
	if (hlen)
		memcpy(raw, head, hlen);
	memcpy(raw + hlen, data, len);
	n = kb_zstd(z, ZSTD_compressBound(hlen + len), raw, hlen + len, true);
	s.flags = s32(b, KMT_SECTION_ZSTD);
	s.size = s64(b, n);
	buf_put(out, &s, sizeof(s));
	buf_put(out, z, n);
	buf_put(out, zero, (8 - (n & 7)) & 7);
	free(raw);
	free(z);
}

size_t kb_zstd(void *dst, size_t cap, const void *src, size_t len,
	       bool checksum)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t n;

	assert(cc);
	n = ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
	assert(!ZSTD_isError(n));
	n = ZSTD_compress2(cc, dst, cap, src, len);
	assert(!ZSTD_isError(n));
	ZSTD_freeCCtx(cc);
	return n;
}

void kb_set_zstd(struct kb *b, uint32_t types)
{
	b->zstd_types = types;
}

void kb_set_file_version(struct kb *b, uint16_t version)
{
	b->file_version = version;
}

void kb_set_import(struct kb *b, const char *meta)
{
	free(b->import_meta);
	b->import_meta = strdup(meta);
	if (!b->import_meta)
		abort();
}

struct kb_gfp_name {
	uint64_t mask;
	const char *name;
};

/* Some of Linux 6.12's GFP names, in its order: composites first. */
static const struct kb_gfp_name kb_gfp[] = {
	{ 0x100cca, "GFP_HIGHUSER_MOVABLE" },
	{ 0x400cc0, "GFP_KERNEL_ACCOUNT" },
	{ 0xcc0, "GFP_KERNEL" },
	{ 0x820, "GFP_ATOMIC" },
	{ 0x40000, "__GFP_COMP" },
	{ 0x100, "__GFP_ZERO" },
};

/*
 * All of them, as the recorder of an x86 6.12 kernel copies them from
 * its gfpflag_names[] (mm/debug.c: include/trace/events/mmflags.h's
 * names of include/linux/gfp_types.h's flags): __GFP_SKIP_ZERO,
 * __GFP_SKIP_KASAN, __GFP_NOLOCKDEP and __GFP_NO_OBJ_EXT are not among
 * them.  Bits 0 to 23 are __GFP_DMA to __GFP_ZEROTAGS, 9 unused.
 */
#define KB_SKIP_KASAN	0x2000000ull	/* with CONFIG_KASAN_HW_TAGS */
static const struct kb_gfp_name kb_gfp_612[] = {
	{ 0x1c24ca, "GFP_TRANSHUGE" },
	{ 0x1c20ca, "GFP_TRANSHUGE_LIGHT" },
	{ 0x100cca, "GFP_HIGHUSER_MOVABLE" },
	{ 0x100cc2, "GFP_HIGHUSER" },
	{ 0x100cc0, "GFP_USER" },
	{ 0x400cc0, "GFP_KERNEL_ACCOUNT" },
	{ 0xcc0, "GFP_KERNEL" },
	{ 0xc40, "GFP_NOFS" },
	{ 0x820, "GFP_ATOMIC" },
	{ 0xc00, "GFP_NOIO" },
	{ 0x2800, "GFP_NOWAIT" },
	{ 0x1, "GFP_DMA" },
	{ 0x2, "__GFP_HIGHMEM" },
	{ 0x4, "GFP_DMA32" },
	{ 0x20, "__GFP_HIGH" },
	{ 0x40, "__GFP_IO" },
	{ 0x80, "__GFP_FS" },
	{ 0x2000, "__GFP_NOWARN" },
	{ 0x4000, "__GFP_RETRY_MAYFAIL" },
	{ 0x8000, "__GFP_NOFAIL" },
	{ 0x10000, "__GFP_NORETRY" },
	{ 0x40000, "__GFP_COMP" },
	{ 0x100, "__GFP_ZERO" },
	{ 0x80000, "__GFP_NOMEMALLOC" },
	{ 0x20000, "__GFP_MEMALLOC" },
	{ 0x100000, "__GFP_HARDWALL" },
	{ 0x200000, "__GFP_THISNODE" },
	{ 0x10, "__GFP_RECLAIMABLE" },
	{ 0x8, "__GFP_MOVABLE" },
	{ 0x400000, "__GFP_ACCOUNT" },
	{ 0x1000, "__GFP_WRITE" },
	{ 0xc00, "__GFP_RECLAIM" },
	{ 0x400, "__GFP_DIRECT_RECLAIM" },
	{ 0x800, "__GFP_KSWAPD_RECLAIM" },
	{ 0x800000, "__GFP_ZEROTAGS" },
};

static void format_blob(struct kb *b, struct kb_buf *fmt)
{
	size_t nr, nr_gfp;
	const struct kmt_layout *layouts = layouts_of(b, &nr);
	size_t lsize = nr * sizeof(*layouts);
	const struct kb_gfp_name *gfp;
	struct kmt_format f = { 0 };

	f.magic = s32(b, KMT_FORMAT_MAGIC);
	f.abi_version = s16(b, (uint16_t)b->abi);
	f.header_size = s16(b, sizeof(f));
	f.word_size = 8;
	f.page_shift = 12;
	f.nr_layouts = s16(b, (uint16_t)nr);
	f.layout_size = s16(b, sizeof(struct kmt_layout));
	f.subbuf_header_size = s16(b, sizeof(struct kmt_subbuf_header));
	f.subbuf_size = s32(b, b->subbuf_size);
	f.nr_subbufs = s32(b, b->import_meta ? 0 : b->pool ? (b->pool < 256 ? b->pool : 256) : 64);
	f.pool_subbufs = s32(b, b->pool);
	f.nr_cpu_ids = s32(b, b->nr_cpus);
	strcpy(f.clock, b->import_meta ? "perf" : "local_clock");
	f.text_base = s64(b, KB_TEXT_BASE);
	f.direct_map_base = s64(b, KB_DMAP_BASE);
	if (!b->gfp_table) {	/* the first, 72-byte header */
		f.header_size = s16(b, KMT_FORMAT_MIN_SIZE);
		buf_put(fmt, &f, KMT_FORMAT_MIN_SIZE);
		buf_put(fmt, layouts, lsize);
		return;
	}
	gfp = b->gfp_table == KB_GFP_SOME ? kb_gfp : kb_gfp_612;
	nr_gfp = b->gfp_table == KB_GFP_SOME ? sizeof(kb_gfp) / sizeof(kb_gfp[0]) :
		 sizeof(kb_gfp_612) / sizeof(kb_gfp_612[0]);
	f.nr_gfp_names = s16(b, (uint16_t)nr_gfp);
	f.gfp_name_size = s16(b, sizeof(struct kmt_gfp_name));
	buf_put(fmt, &f, sizeof(f));
	buf_put(fmt, layouts, lsize);
	for (unsigned int i = 0; i < nr_gfp; i++) {
		uint64_t m = gfp[i].mask;
		struct kmt_gfp_name g;

		/* __GFP_SKIP_KASAN is in GFP_HIGHUSER_MOVABLE and the THP ones */
		if (b->gfp_table == KB_GFP_612_KASAN && (m & 0x100008) == 0x100008)
			m |= KB_SKIP_KASAN;
		memset(&g, 0, sizeof(g));
		g.mask = s64(b, m);
		strcpy(g.name, gfp[i].name);
		buf_put(fmt, &g, sizeof(g));
	}
}

void kb_set_gfp_names(struct kb *b, bool on)
{
	b->gfp_table = on ? KB_GFP_SOME : KB_GFP_NONE;
}

void kb_set_gfp_table(struct kb *b, int which)
{
	b->gfp_table = which;
}

static const char *topology(struct kb *b)
{
	return b->topology ? b->topology :
		"cpu 0 node 0\ncpu 1 node 0\nnode 0 start_pfn 0 end_pfn 262144\n";
}

int kb_finish(struct kb *b, uint8_t **outp, size_t *lenp)
{
	struct kmt_file_header h = { 0 };
	struct kb_buf out = { 0 }, fmt = { 0 };
	const char *meta = b->meta ? b->meta :
		"release=6.12.0-test\ncmdline=kmemtrace.enable=1\nbuild_id=00112233\n";
	const char *topo = topology(b);
	unsigned int i, nsec = 0;
	char *imeta = NULL;

	if (b->import_meta) {	/* no kernel command line: the source's lines */
		imeta = malloc(strlen(b->import_meta) + 64);
		if (!imeta)
			abort();
		sprintf(imeta, "release=6.12.0-test\nbuild_id=00112233\n%s", b->import_meta);
		meta = imeta;
	}
	format_blob(b, &fmt);

	memcpy(h.magic, KMT_FILE_MAGIC, sizeof(KMT_FILE_MAGIC));
	h.byte_order = s32(b, KMT_FORMAT_MAGIC);
	h.version = s16(b, b->file_version ?: KMT_FILE_VERSION);
	h.header_size = s16(b, sizeof(h));
	buf_put(&out, &h, sizeof(h));
	section(b, &out, KMT_SEC_FORMAT, NULL, 0, fmt.p, fmt.len), nsec++;
	section(b, &out, KMT_SEC_META, NULL, 0, meta, strlen(meta)), nsec++;
	section(b, &out, KMT_SEC_TOPOLOGY, NULL, 0, topo, strlen(topo)), nsec++;
	section(b, &out, KMT_SEC_CACHES, NULL, 0, b->caches.p, b->caches.len), nsec++;
	if (b->kallsyms)
		section(b, &out, KMT_SEC_KALLSYMS, NULL, 0, b->kallsyms,
			strlen(b->kallsyms)), nsec++;
	if (b->meminfo)
		section(b, &out, KMT_SEC_MEMINFO, NULL, 0, b->meminfo,
			strlen(b->meminfo)), nsec++;
	if (b->vmstat)
		section(b, &out, KMT_SEC_VMSTAT, NULL, 0, b->vmstat,
			strlen(b->vmstat)), nsec++;
	if (b->zoneinfo)
		section(b, &out, KMT_SEC_ZONEINFO, NULL, 0, b->zoneinfo,
			strlen(b->zoneinfo)), nsec++;
	for (i = 0; i < b->nr_cpus; i++) {
		struct kb_cpu *c = &b->cpu[i];
		struct kmt_cpu_section cs = {
			.cpu = s32(b, i),
			.nr_subbufs = s32(b, c->seq),
			.events = s64(b, c->events_set ? c->kernel_events : c->events),
			.lost = s64(b, c->lost),
		};

		close_subbuf(b, c);
		section(b, &out, KMT_SEC_CPU, &cs, sizeof(cs), c->data.p,
			c->data.len), nsec++;
	}
	if (b->flight) {
		struct kmt_flight_section fs = {
			.mode = s32(b, b->fl.mode),
			.trigger = s32(b, b->fl.trigger),
			.trigger_ts = s64(b, b->fl.trigger_ts),
			.frozen_ts = s64(b, b->fl.frozen_ts),
			.nr_cpus = s32(b, b->nr_cpus),
			.cpu_size = s32(b, b->fl_cpu_size ? b->fl_cpu_size :
					   sizeof(struct kmt_flight_cpu)),
		};
		struct kb_buf fc = { 0 };

		for (i = 0; i < b->nr_cpus; i++) {
			struct kb_cpu *c = &b->cpu[i];
			struct kmt_flight_cpu e = {
				.cpu = s32(b, i),
				.overwritten = s64(b, c->overwritten),
				.window_start = s64(b, c->data.len ? c->first_ts : 0),
				.window_end = s64(b, c->data.len ? c->prev_ts : 0),
				.frozen_dropped = s64(b, c->frozen_dropped),
			};

			buf_put(&fc, &e, b->fl_cpu_size ? b->fl_cpu_size : sizeof(e));
		}
		section(b, &out, KMT_SEC_FLIGHT, &fs, sizeof(fs), fc.p, fc.len), nsec++;
		free(fc.p);
	}
	if (b->tasks)
		section(b, &out, KMT_SEC_TASKS, NULL, 0, b->tasks, strlen(b->tasks)), nsec++;
	if (b->cgroups)
		section(b, &out, KMT_SEC_CGROUPS, NULL, 0, b->cgroups,
			strlen(b->cgroups)), nsec++;
	((struct kmt_file_header *)out.p)->nr_sections = s32(b, nsec);
	((struct kmt_file_header *)out.p)->file_size = s64(b, out.len);
	free(fmt.p);
	free(imeta);
	*outp = out.p;
	*lenp = out.len;
	return 0;
}

int kb_write(struct kb *b, const char *path)
{
	uint8_t *p;
	size_t len;
	int fd, ret = 0;

	kb_finish(b, &p, &len);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(p);
		return -errno;
	}
	if (write(fd, p, len) != (ssize_t)len)
		ret = -EIO;
	close(fd);
	free(p);
	return ret;
}

static int put_file(const char *dir, const char *name, const void *p,
		    size_t len)
{
	char path[8192];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (len && write(fd, p, len) != (ssize_t)len)
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * Bytes CPU @cpu has of the buffers: its own buffer; with the pool, what
 * it holds: CPU 0 two sub-buffers, the others none.
 */
static unsigned long long cpu_buffer_bytes(struct kb *b, unsigned int cpu)
{
	if (!b->pool)
		return KB_BUFFER_BYTES;
	return cpu ? 0 : 2ull * b->subbuf_size;
}

/* The topology as tracefs shows it: every possible CPU with its buffer. */
static void recorder_topology(struct kb *b, struct kb_buf *out, bool old,
			      unsigned int absent)
{
	const char *t = topology(b), *nl;
	unsigned int cpu, nr = 0;
	char line[160];
	int node;

	for (; *t; t = nl + 1) {
		nl = strchr(t, '\n');
		if (!nl)
			nl = t + strlen(t);
		if (!old && sscanf(t, "cpu %u node %d", &cpu, &node) == 2) {
			snprintf(line, sizeof(line), "cpu %u node %d buffer %llu\n",
				 cpu, node, cpu_buffer_bytes(b, cpu));
			buf_put(out, line, strlen(line));
			nr++;
		} else {
			buf_put(out, t, (size_t)(nl - t) + 1);
		}
		if (!*nl)
			break;
	}
	for (cpu = nr; cpu < nr + absent; cpu++) {
		snprintf(line, sizeof(line), "cpu %u node 0 buffer 0\n", cpu);
		buf_put(out, line, strlen(line));
	}
}

int kb_write_recorder(struct kb *b, const char *dir, bool old,
		      unsigned int absent, uint64_t absent_lost)
{
	struct kb_buf fmt = { 0 }, stats = { 0 }, topo = { 0 };
	char path[4096], line[128];
	unsigned int i;
	int ret;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/kmemtrace", dir);
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/kmemtrace/per_cpu", dir);
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	format_blob(b, &fmt);
	recorder_topology(b, &topo, old, absent);
	snprintf(path, sizeof(path), "%s/kmemtrace", dir);
	ret = put_file(path, "header", fmt.p, fmt.len);
	ret = ret ?: put_file(path, "enable", "1\n", 2);
	ret = ret ?: put_file(path, "flush", "", 0);
	/* a kernel with the pool gives it back after a save */
	if (b->pool)
		ret = ret ?: put_file(path, "free_buffer", "", 0);
	ret = ret ?: put_file(path, "topology", topo.p, topo.len);
	if (old)
		buf_put(&stats, "# cpu events lost subbufs_read\n", 31);
	else if (b->pool)
		buf_put(&stats, "# cpu events lost subbufs_read held_bytes overwritten frozen_dropped has_slots\n", 79);
	else if (b->flight)
		buf_put(&stats, "# cpu events lost subbufs_read buffer_bytes overwritten frozen_dropped\n", 71);
	else
		buf_put(&stats, "# cpu events lost subbufs_read buffer_bytes\n", 44);
	if (b->flight) {
		snprintf(line, sizeof(line), "%s\n",
			 b->fl.mode == KMT_MODE_FLIGHT ? "flight" : "boot");
		ret = ret ?: put_file(path, "mode", line, strlen(line));
		if (b->fl.trigger)
			snprintf(line, sizeof(line), "1 %s %llu %llu\n",
				 b->fl.trigger == KMT_TRIG_OOM ? "oom" : "manual",
				 (unsigned long long)b->fl.trigger_ts,
				 (unsigned long long)b->fl.frozen_ts);
		else
			snprintf(line, sizeof(line), "0\n");
		ret = ret ?: put_file(path, "frozen", line, strlen(line));
		ret = ret ?: put_file(path, "triggers", "manual,oom,page_alloc_fail,slab_alloc_fail\n", 44);
	}
	for (i = 0; i < b->nr_cpus && !ret; i++) {
		struct kb_cpu *c = &b->cpu[i];

		close_subbuf(b, c);
		snprintf(line, sizeof(line), "%u %llu %llu 0", i,
			 (unsigned long long)(c->events_set ? c->kernel_events : c->events),
			 (unsigned long long)c->lost);
		if (!old)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), " %llu",
				 cpu_buffer_bytes(b, i));
		if (b->flight || b->pool)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), " %llu %llu",
				 (unsigned long long)c->overwritten,
				 (unsigned long long)c->frozen_dropped);
		if (b->pool)
			strcat(line, " 1");
		strcat(line, "\n");
		buf_put(&stats, line, strlen(line));
		snprintf(path, sizeof(path), "%s/kmemtrace/per_cpu/cpu%u", dir, i);
		if (mkdir(path, 0700) && errno != EEXIST)
			ret = -errno;
		ret = ret ?: put_file(path, "data", c->data.p, c->data.len);
	}
	/* CPUs that never came up: the last of them lost events for want of one */
	for (i = b->nr_cpus; i < b->nr_cpus + absent && !ret; i++) {
		snprintf(line, sizeof(line), "%u 0 %llu 0 0%s\n", i,
			 i + 1 == b->nr_cpus + absent ? (unsigned long long)absent_lost : 0ull,
			 b->pool ? " 0 0 0" : "");
		buf_put(&stats, line, strlen(line));
		snprintf(path, sizeof(path), "%s/kmemtrace/per_cpu/cpu%u", dir, i);
		if (mkdir(path, 0700) && errno != EEXIST)
			ret = -errno;
	}
	snprintf(path, sizeof(path), "%s/kmemtrace", dir);
	ret = ret ?: put_file(path, "stats", stats.p, stats.len);
	free(fmt.p);
	free(stats.p);
	free(topo.p);
	return ret;
}

/* Offset of sub-buffer @k in @c's data (its length if there are fewer). */
static size_t subbuf_offset(struct kb *b, struct kb_cpu *c, unsigned int k)
{
	struct kmt_subbuf_header h;
	size_t off = 0;

	while (k-- && off + sizeof(h) <= c->data.len) {
		memcpy(&h, c->data.p + off, sizeof(h));
		off += b->swap ? __builtin_bswap32(h.size) : h.size;
	}
	return off < c->data.len ? off : c->data.len;
}

int kb_write_split(struct kb *b, const char *dir, const char *spool,
		   unsigned int k, int mode)
{
	struct kb_buf fmt = { 0 };
	char path[4096], id[64] = "";
	unsigned int i;
	FILE *f;
	int ret;

	ret = kb_write_recorder(b, dir, false, 0, 0);
	if (ret)
		return ret;
	if (mkdir(spool, 0700) && errno != EEXIST)
		return -errno;
	format_blob(b, &fmt);
	ret = put_file(spool, "header", fmt.p, fmt.len);
	free(fmt.p);
	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		if (!fgets(id, sizeof(id), f))
			id[0] = '\0';
		fclose(f);
	}
	id[strcspn(id, "\n")] = '\0';
	ret = ret ?: put_file(spool, "boot_id", id, strlen(id));
	for (i = 0; i < b->nr_cpus && !ret; i++) {
		struct kb_cpu *c = &b->cpu[i];
		size_t cut = subbuf_offset(b, c, k), from = cut;
		struct kb_buf sp = { 0 };
		char name[32];

		if (mode == KB_SPLIT_GAP)	/* the spool misses sub-buffer k-1 */
			buf_put(&sp, c->data.p, subbuf_offset(b, c, k - 1));
		else
			buf_put(&sp, c->data.p, cut);
		if (mode == KB_SPLIT_DUP)	/* and the kernel still has k-1 */
			from = subbuf_offset(b, c, k - 1);
		snprintf(name, sizeof(name), "cpu%u", i);
		ret = put_file(spool, name, sp.p, sp.len);
		free(sp.p);
		snprintf(path, sizeof(path), "%s/kmemtrace/per_cpu/cpu%u", dir, i);
		ret = ret ?: put_file(path, "data", c->data.p + from,
				      c->data.len - from);
	}
	return ret;
}

#define D(off)	(KB_DMAP_BASE + (off))
#define T(off)	(KB_TEXT_BASE + (off))

/* Two STR fields, a comm and a stack, after the values @v. */
static void record_comm_stack(struct kb *b, unsigned int cpu, uint64_t ts,
			      uint8_t type, uint32_t pid, const uint64_t *v,
			      unsigned int n, const char *comm,
			      const uint64_t *frames, unsigned int nr)
{
	uint8_t stack[16 * 10], tail[256];
	size_t len = 0, tlen = 0;
	unsigned int i;

	for (i = 0; i < nr && i < 16; i++)
		len += kmt_put_uvar(stack + len,
				    kmt_zigzag((int64_t)(frames[i] - KB_TEXT_BASE)));
	tlen += kmt_put_uvar(tail, strlen(comm));
	memcpy(tail + tlen, comm, strlen(comm));
	tlen += strlen(comm);
	tlen += kmt_put_uvar(tail + tlen, len);
	memcpy(tail + tlen, stack, len);
	tlen += len;
	b->raw_str = true;
	record_bytes(b, cpu, ts, type, KMT_CTX_TASK, pid, v, n,
		     (const char *)tail, tlen);
	b->raw_str = false;
}

void kb_groups(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t groups)
{
	uint64_t v = groups;

	record(b, cpu, ts, KMT_EV_GROUPS, KMT_CTX_TASK, 0, &v, 1, NULL);
}

void kb_memblock(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t op,
		 uint64_t base, uint64_t size, int nid, uint32_t flags,
		 uint64_t caller, const char *what)
{
	uint64_t v[6] = { op, base, size, (uint64_t)(int64_t)nid, flags, caller };

	record(b, cpu, ts, KMT_EV_MEMBLOCK, KMT_CTX_TASK, 0, v, 6, what);
}

void kb_buffer(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t buf_cpu,
	       uint64_t pfn1, uint32_t order)
{
	uint64_t v[3] = { buf_cpu, pfn1, order };

	record(b, cpu, ts, KMT_EV_BUFFER, KMT_CTX_TASK, 0, v, 3, NULL);
}

void kb_memblock_early(struct kb *b, unsigned int cpu, uint64_t ts,
		       uint64_t kept, uint64_t dropped, uint64_t capacity,
		       uint64_t pg_kept, uint64_t pg_dropped)
{
	uint64_t v[5] = { kept, dropped, capacity, pg_kept, pg_dropped };

	record(b, cpu, ts, KMT_EV_MEMBLOCK_EARLY, KMT_CTX_TASK, 0, v, 5, NULL);
}

void kb_reclaim_begin(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		      uint32_t order, uint64_t gfp, const char *comm,
		      const uint64_t *frames, unsigned int nr)
{
	uint64_t v[2] = { order, gfp };

	record_comm_stack(b, cpu, ts, KMT_EV_RECLAIM_BEGIN, pid, v, 2, comm,
			  frames, nr);
}

void kb_reclaim_end(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		    uint64_t nr_reclaimed)
{
	record(b, cpu, ts, KMT_EV_RECLAIM_END, KMT_CTX_TASK, pid, &nr_reclaimed,
	       1, NULL);
}

void kb_lru_inactive(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		     int nid, uint64_t scanned, uint64_t reclaimed,
		     uint32_t priority, bool file)
{
	uint64_t v[5] = { (uint64_t)(int64_t)nid, scanned, reclaimed, priority,
			  file };

	record(b, cpu, ts, KMT_EV_LRU_SHRINK_INACTIVE, KMT_CTX_TASK, pid, v, 5,
	       NULL);
}

void kb_shrink_start(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		     uint64_t func, uint64_t shr, int nid, uint64_t gfp,
		     uint64_t items, uint64_t total, uint32_t priority,
		     const char *name)
{
	uint64_t v[7] = { func, shr, (uint64_t)(int64_t)nid, gfp, items, total,
			  priority };

	record(b, cpu, ts, KMT_EV_SHRINK_START, KMT_CTX_TASK, pid, v, 7, name);
}

void kb_shrink_end(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		   uint64_t func, uint64_t shr, int nid, int freed,
		   uint64_t total)
{
	uint64_t v[5] = { func, shr, (uint64_t)(int64_t)nid,
			  (uint64_t)(int64_t)freed, total };

	record(b, cpu, ts, KMT_EV_SHRINK_END, KMT_CTX_TASK, pid, v, 5, NULL);
}

void kb_compact_try(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		    uint32_t order, uint64_t gfp, uint32_t priority,
		    const char *comm, const uint64_t *frames, unsigned int nr)
{
	uint64_t v[3] = { order, gfp, priority };

	record_comm_stack(b, cpu, ts, KMT_EV_COMPACT_TRY, pid, v, 3, comm,
			  frames, nr);
}

void kb_compact(struct kb *b, unsigned int cpu, uint64_t ts, uint32_t pid,
		bool end, uint64_t zone_start, uint64_t zone_end,
		uint64_t migrate_pfn, uint64_t free_pfn, bool sync,
		uint32_t status)
{
	uint64_t v[6] = { zone_start, zone_end, migrate_pfn, free_pfn, sync,
			  status };

	record(b, cpu, ts, end ? KMT_EV_COMPACT_END : KMT_EV_COMPACT_BEGIN,
	       KMT_CTX_TASK, pid, v, end ? 6 : 5, NULL);
}

const char kb_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T alloc_thing\n"
	"ffffffff81002000 t helper_init\n"
	"ffffffff81003000 T free_thing\n"
	"ffffffff82000000 D some_data\n";

/*
 * Two CPUs.  alloc_thing+0x10 kmallocs three times (one fails), one of
 * its objects is freed on the other CPU; helper_init+0x5 kmallocs once;
 * alloc_thing+0x40 allocates from two caches.  The numbers a report of
 * it must print are worked out in tests/cli/expect/basic.report.
 */
void kb_scenario_basic(struct kb *b)
{
	kb_set_kallsyms(b, kb_kallsyms);
	kb_cache_def(b, 0, 100, 1, 192, 192, 8, "dentry");
	kb_cache_def(b, 0, 110, 2, 3000, 3072, 64, "task_struct");
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 1, T(0x1010), D(0x1000), 100, 128, 0xcc0, -1);
	kb_kmalloc(b, 0, 2000, KMT_CTX_TASK, 1, T(0x1010), D(0x2000), 30, 32, 0xcc0, -1);
	kb_kmalloc(b, 1, 2500, KMT_CTX_TASK, 2, T(0x2005), D(0x3000), 4000, 4096, 0xcc0, -1);
	kb_cache_alloc(b, 1, 3000, KMT_CTX_SOFTIRQ, 0, T(0x1040), D(0x4000), 1, 0x820, -1);
	kb_cache_alloc(b, 0, 3500, KMT_CTX_TASK, 1, T(0x1040), D(0x5000), 2, 0xcc0, 0);
	kb_kfree(b, 1, 4000, KMT_CTX_HARDIRQ, 0, T(0x3008), D(0x1000));
	kb_cache_free(b, 1, 4500, KMT_CTX_TASK, 2, T(0x3020), D(0x4000), 1);
	kb_kfree(b, 0, 5000, KMT_CTX_TASK, 1, T(0x3008), 0);
	kb_kfree(b, 0, 5500, KMT_CTX_TASK, 1, T(0x3008), D(0x9000));
	kb_kmalloc(b, 0, 6000, KMT_CTX_TASK, 1, T(0x1010), 0, 64, 64, 0xcc0, -1);
	kb_page_alloc(b, 0, 6500, KMT_CTX_TASK, 1, 0x1001, 0, 0xcc0, 0);
	kb_page_free(b, 1, 7000, KMT_CTX_TASK, 2, 0x1001, 0);
}

const char kb_lat_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81004000 T try_to_free_pages\n"
	"ffffffff81005000 T __alloc_pages_slowpath\n"
	"ffffffff81006000 T grow_buffer\n"
	"ffffffff81007000 T super_cache_scan\n"
	"ffffffff81008000 T deferred_split_scan\n"
	"ffffffff81009000 T try_to_compact_pages\n"
	"ffffffff8100a000 T do_huge_pmd_anonymous_page\n";

/*
 * A flight-recorder save: two CPUs that overwrote 1000 and 200 events
 * before the window, cpu 1's window starting later (at 1500) than cpu
 * 0's (at 1000), and the OOM killer freezing the recorder at 9000 with
 * pid 42 (hog) as its victim.  leak_fn (alloc_thing+0x10) keeps three
 * 4 KiB objects, helper_init+0x5 one 64-byte object, one object is
 * allocated and freed in the window, one freed that was allocated
 * before it.  The numbers are worked out in
 * tests/cli/expect/flight.window.
 */
void kb_scenario_flight(struct kb *b)
{
	static const char syms[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81001000 T alloc_thing\n"
		"ffffffff81002000 t helper_init\n"
		"ffffffff81003000 T free_thing\n"
		"ffffffff81004000 T out_of_memory\n"
		"ffffffff81005000 t __alloc_pages_slowpath.constprop.0\n"
		"ffffffff82000000 D some_data\n";
	const uint64_t stack[] = {
		T(0x4100),	/* out_of_memory+0x100 */
		T(0x5040),	/* __alloc_pages_slowpath.constprop.0+0x40 */
		T(0x1020),	/* alloc_thing+0x20: the caller */
		T(0x2008),
	};

	kb_set_kallsyms(b, syms);
	kb_set_gfp_names(b, true);
	kb_kmalloc(b, 0, 1000, KMT_CTX_TASK, 42, T(0x2005), D(0x100), 64, 64, 0xcc0, -1);
	kb_kmalloc(b, 0, 1200, KMT_CTX_TASK, 42, T(0x1010), D(0x1000), 4096, 4096, 0xcc0, -1);
	kb_task(b, 1, 1500, 1, KMT_TASK_EXEC, 42, 0, "hog", "/bin/hog", "/");
	kb_kmalloc(b, 1, 2000, KMT_CTX_TASK, 42, T(0x1010), D(0x2000), 4096, 4096, 0xcc0, -1);
	kb_kmalloc(b, 0, 3000, KMT_CTX_TASK, 42, T(0x1010), D(0x3000), 4096, 4096, 0xcc0, -1);
	kb_kmalloc(b, 1, 4000, KMT_CTX_TASK, 7, T(0x1010), D(0x4000), 4096, 4096, 0xcc0, -1);
	kb_kmalloc(b, 0, 5000, KMT_CTX_TASK, 7, T(0x2005), D(0x5000), 100, 128, 0xcc0, -1);
	kb_kfree(b, 1, 6000, KMT_CTX_TASK, 7, T(0x3008), D(0x5000));
	kb_kfree(b, 0, 6500, KMT_CTX_TASK, 42, T(0x3008), D(0x100));
	kb_kmalloc(b, 1, 7000, KMT_CTX_SOFTIRQ, 0, T(0x2005), D(0x6000), 64, 64, 0x820, -1);
	kb_page_alloc(b, 0, 8000, KMT_CTX_TASK, 42, 0x2001, 0, 0x140dca, 1);
	kb_page_alloc(b, 1, 8500, KMT_CTX_TASK, 42, 0x3001, 2, 0xcc0, 0);
	kb_mark(b, 0, 9000, 42, KMT_MARK_FROZEN, KMT_TRIG_OOM, 42, 0, 0x140dca, 0,
		"hog", stack, 4);
	kb_set_overwritten(b, 0, 1000);
	kb_set_overwritten(b, 1, 200);
	/* cpu 0 went on after the trigger, and dropped: counted apart */
	kb_set_frozen_dropped(b, 0, 30);
	kb_set_kernel_events(b, 0, 1000 + 7);
	kb_set_kernel_events(b, 1, 200 + 6);
	kb_set_flight(b, KMT_MODE_FLIGHT, KMT_TRIG_OOM, 9000, 9060);
	/* the tasks at the save: pid 7's records were overwritten */
	kb_set_tasks(b, "7\tworker\t/system.slice/worker.service\n"
		     "42\tnot-hog\t/\nbad line\n\t\t\n");
}

/*
 * Who allocated (expect/tasks.phase), as the recorder writes it: the
 * boot's pid 1 forked as "swapper/0", execs systemd (in the root cgroup,
 * whose id nothing names: it keeps its unit) and moves to init.scope;
 * udevd is forked, moved to its unit (made just before: MKDIR), execs
 * there (the id alone); it forks a worker that renames itself; a getty
 * is cloned straight into a cgroup below its unit, made before recording
 * started (the id alone, named by the tree at the save); a softirq and
 * a pid no record names allocate too.  Kept at the end, by process:
 * swapper 100, swapper/0 200, systemd 64 + an 8 KiB page, systemd-udevd
 * 512 (and 128 freed), (udev-worker) 1024, [softirq] 32, [unknown task]
 * 16; by unit: systemd-udevd.service 1536, getty@tty1.service 8192,
 * init.scope 64, the root cgroup 348.
 */
void kb_scenario_tasks(struct kb *b)
{
	kb_set_kallsyms(b, kb_kallsyms);
	kb_kmalloc(b, 0, 100, KMT_CTX_TASK, 0, T(0x1010), D(0x1000), 100, 100, 0xcc0, -1);
	kb_task(b, 0, 200, 0, KMT_TASK_NEW, 1, 0, "swapper/0", NULL, NULL);
	kb_kmalloc(b, 0, 300, KMT_CTX_TASK, 1, T(0x1010), D(0x2000), 200, 200, 0xcc0, -1);
	kb_task_id(b, 0, 400, 1, KMT_TASK_EXEC, 1, 0, 1, "systemd", "/sbin/init", NULL);
	kb_task_id(b, 0, 440, 1, KMT_TASK_MKDIR, 1, 0, 2, "systemd", NULL, "/init.scope");
	kb_task_id(b, 0, 450, 1, KMT_TASK_CGROUP, 1, 1, 2, "systemd", NULL, "/init.scope");
	kb_kmalloc(b, 0, 500, KMT_CTX_TASK, 1, T(0x1010), D(0x3000), 64, 64, 0xcc0, -1);
	kb_task(b, 0, 600, 1, KMT_TASK_NEW, 20, 1, "systemd", NULL, NULL);
	kb_task_id(b, 0, 620, 1, KMT_TASK_MKDIR, 1, 0, 3, "systemd", NULL, "/system.slice");
	kb_task_id(b, 0, 630, 1, KMT_TASK_MKDIR, 1, 0, 4, "systemd", NULL,
		   "/system.slice/systemd-udevd.service");
	kb_task_id(b, 0, 650, 1, KMT_TASK_CGROUP, 20, 1, 4, "(md-udevd)", NULL,
		   "/system.slice/systemd-udevd.service");
	kb_task_id(b, 1, 700, 20, KMT_TASK_EXEC, 20, 0, 4, "systemd-udevd",
		   "/lib/systemd/systemd-udevd", NULL);
	kb_kmalloc(b, 1, 800, KMT_CTX_TASK, 20, T(0x2005), D(0x4000), 512, 512, 0xcc0, -1);
	kb_kmalloc(b, 1, 810, KMT_CTX_TASK, 20, T(0x2005), D(0x5000), 128, 128, 0xcc0, -1);
	kb_kfree(b, 0, 850, KMT_CTX_TASK, 1, T(0x3008), D(0x5000));
	kb_task(b, 1, 900, 20, KMT_TASK_NEW, 21, 20, "systemd-udevd", NULL, NULL);
	kb_task(b, 1, 950, 21, KMT_TASK_RENAME, 21, 0, "(udev-worker)", NULL, NULL);
	kb_kmalloc(b, 1, 1000, KMT_CTX_TASK, 21, T(0x2005), D(0x6000), 1024, 1024, 0xcc0, -1);
	kb_kmalloc(b, 0, 1100, KMT_CTX_SOFTIRQ, 0, T(0x1040), D(0x7000), 32, 32, 0xcc0, -1);
	kb_kmalloc(b, 1, 1200, KMT_CTX_TASK, 77, T(0x1040), D(0x8000), 16, 16, 0xcc0, -1);
	kb_task_id(b, 0, 1300, 1, KMT_TASK_NEW, 30, 1, 9, "systemd", NULL, NULL);
	kb_page_alloc(b, 0, 1400, KMT_CTX_TASK, 30, 0x9001, 1, 0xcc0, 0);
	/* the tree at the save: udevd's unit is gone, the getty's is not */
	kb_set_cgroups(b, "3\t/system.slice\n"
		       "9\t/system.slice/system-getty.slice/getty@tty1.service/payload\n"
		       "x\t/bad\n\t\n2\t\n");
}

/*
 * The same, as recorders wrote it before the cgroup id: the path in the
 * NEW and EXEC records, no MKDIR records, no tree at the save.
 */
void kb_scenario_tasks_v0(struct kb *b)
{
	kb_set_tasks_v0(b);
	kb_set_kallsyms(b, kb_kallsyms);
	kb_kmalloc(b, 0, 100, KMT_CTX_TASK, 0, T(0x1010), D(0x1000), 100, 100, 0xcc0, -1);
	kb_task(b, 0, 200, 0, KMT_TASK_NEW, 1, 0, "swapper/0", NULL, NULL);
	kb_kmalloc(b, 0, 300, KMT_CTX_TASK, 1, T(0x1010), D(0x2000), 200, 200, 0xcc0, -1);
	kb_task(b, 0, 400, 1, KMT_TASK_EXEC, 1, 0, "systemd", "/sbin/init", "/");
	kb_task(b, 0, 450, 1, KMT_TASK_CGROUP, 1, 1, "systemd", NULL, "/init.scope");
	kb_kmalloc(b, 0, 500, KMT_CTX_TASK, 1, T(0x1010), D(0x3000), 64, 64, 0xcc0, -1);
	kb_task(b, 0, 600, 1, KMT_TASK_NEW, 20, 1, "systemd", NULL, NULL);
	kb_task(b, 0, 650, 1, KMT_TASK_CGROUP, 20, 1, "(md-udevd)", NULL,
		"/system.slice/systemd-udevd.service");
	kb_task(b, 1, 700, 20, KMT_TASK_EXEC, 20, 0, "systemd-udevd",
		"/lib/systemd/systemd-udevd", "/system.slice/systemd-udevd.service");
	kb_kmalloc(b, 1, 800, KMT_CTX_TASK, 20, T(0x2005), D(0x4000), 512, 512, 0xcc0, -1);
	kb_kmalloc(b, 1, 810, KMT_CTX_TASK, 20, T(0x2005), D(0x5000), 128, 128, 0xcc0, -1);
	kb_kfree(b, 0, 850, KMT_CTX_TASK, 1, T(0x3008), D(0x5000));
	kb_task(b, 1, 900, 20, KMT_TASK_NEW, 21, 20, "systemd-udevd", NULL, NULL);
	kb_task(b, 1, 950, 21, KMT_TASK_RENAME, 21, 0, "(udev-worker)", NULL, NULL);
	kb_kmalloc(b, 1, 1000, KMT_CTX_TASK, 21, T(0x2005), D(0x6000), 1024, 1024, 0xcc0, -1);
	kb_kmalloc(b, 0, 1100, KMT_CTX_SOFTIRQ, 0, T(0x1040), D(0x7000), 32, 32, 0xcc0, -1);
	kb_kmalloc(b, 1, 1200, KMT_CTX_TASK, 77, T(0x1040), D(0x8000), 16, 16, 0xcc0, -1);
	kb_task(b, 0, 1300, 1, KMT_TASK_NEW, 30, 1, "systemd", NULL,
		"/system.slice/system-getty.slice/getty@tty1.service/payload");
	kb_page_alloc(b, 0, 1400, KMT_CTX_TASK, 30, 0x9001, 1, 0xcc0, 0);
}

/*
 * Allocation latency, two CPUs; the numbers a report must print are
 * worked out in tests/cli/expect/latency.report.  pid 100 reclaims for
 * an order-0 allocation of grow_buffer: 599 us, migrating to CPU 1
 * within, a 500 us shrinker call inside; its allocation returns after
 * 699 us (a page allocated within the reclaim does not end it).  pid
 * 200 reclaims 50 us and never allocates (its stall stays
 * open).  pid 300 compacts a zone 300 us for an order-9 THP fault; the
 * page comes 400 us after its try.  pid 40 compacts without a try (50
 * us).  pid 500 ends a reclaim it never began; pid 600 starts a
 * shrinker that never returns; pid 50 calls one for 10 us.
 */
void kb_scenario_latency(struct kb *b)
{
	static const uint64_t rec_stack[] = { T(0x4010), T(0x5020), T(0x6030) };
	static const uint64_t cmp_stack[] = { T(0x9000), T(0xa040) };

	kb_set_kallsyms(b, kb_lat_kallsyms);
	kb_groups(b, 0, 100, 0xf);
	kb_reclaim_begin(b, 0, 1000, 100, 0, 0xcc0, "memhog", rec_stack, 3);
	kb_lru_inactive(b, 0, 2000, 100, 0, 64, 32, 12, true);
	/* a page reclaim itself allocates: not the stalled allocation */
	kb_page_alloc(b, 0, 2500, KMT_CTX_TASK, 100, 0x999, 0, 0xc00, 0);
	kb_shrink_start(b, 0, 3000, 100, T(0x7000), D(0x10000), 0, 0xcc0, 500,
			128, 12, "sb-tmpfs");
	kb_shrink_end(b, 1, 503000, 100, T(0x7000), D(0x10000), 0, 100, 28);
	kb_reclaim_end(b, 1, 600000, 100, 57);
	kb_page_alloc(b, 1, 700000, KMT_CTX_TASK, 100, 0x1235, 0, 0xcc0, 0);
	kb_reclaim_begin(b, 0, 800000, 200, 2, 0xcc0, "kworker/0:1", rec_stack, 3);
	kb_reclaim_end(b, 0, 850000, 200, 3);
	kb_compact_try(b, 1, 900000, 300, 9, 0xcc0, 1, "thp", cmp_stack, 2);
	kb_compact(b, 1, 910000, 300, false, 0x1000, 0x40000, 0x1000, 0x3fe00,
		   false, 0);
	kb_compact(b, 1, 1210000, 300, true, 0x1000, 0x40000, 0x2000, 0x3f000,
		   false, KMT_COMPACT_SUCCESS);
	kb_page_alloc(b, 1, 1300000, KMT_CTX_TASK, 300, 0x20001, 9, 0xcc0, 1);
	kb_compact(b, 0, 1400000, 40, false, 0x1000, 0x40000, 0x1000, 0x3fe00,
		   true, 0);
	kb_compact(b, 0, 1450000, 40, true, 0x1000, 0x40000, 0x1800, 0x3fc00,
		   true, KMT_COMPACT_COMPLETE);
	kb_reclaim_end(b, 0, 1500000, 500, 9);
	kb_shrink_start(b, 0, 1600000, 600, T(0x8000), D(0x20000), 0, 0xcc0, 10,
			10, 12, "");
	kb_shrink_start(b, 1, 1700000, 50, T(0x7000), D(0x10000), 0, 0xcc0, 400,
			64, 12, "sb-tmpfs");
	kb_shrink_end(b, 1, 1710000, 50, T(0x7000), D(0x10000), 0, 5, 0);
}

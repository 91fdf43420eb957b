// SPDX-License-Identifier: GPL-2.0
/*
 * Open a .kmt file and check every header in it before anyone reads an
 * event: a corrupt, truncated or foreign file fails here with a message
 * that says which check failed and where.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "kmt.h"

int kmt_errf(struct kmt_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

unsigned int kmt_put_uvar(uint8_t *p, uint64_t v)
{
	unsigned int n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static uint16_t sw16(bool s, uint16_t v) { return s ? __builtin_bswap16(v) : v; }
static uint32_t sw32(bool s, uint32_t v) { return s ? __builtin_bswap32(v) : v; }
static uint64_t sw64(bool s, uint64_t v) { return s ? __builtin_bswap64(v) : v; }

int kmt_format_parse(const uint8_t *p, size_t len, bool swap,
		     struct kmt_format *fmt,
		     struct kmt_layout_info layout[KMT_EV_MAX + 1],
		     struct kmt_err *err)
{
	struct kmt_format f;
	unsigned int i, j;

	if (len < KMT_FORMAT_MIN_SIZE)
		return kmt_errf(err, EBADMSG,
				"format description is %zu bytes, needs %d",
				len, KMT_FORMAT_MIN_SIZE);
	memset(&f, 0, sizeof(f));
	memcpy(&f, p, len < sizeof(f) ? len : sizeof(f));
	f.magic = sw32(swap, f.magic);
	f.abi_version = sw16(swap, f.abi_version);
	f.header_size = sw16(swap, f.header_size);
	f.nr_layouts = sw16(swap, f.nr_layouts);
	f.layout_size = sw16(swap, f.layout_size);
	f.subbuf_header_size = sw16(swap, f.subbuf_header_size);
	f.subbuf_size = sw32(swap, f.subbuf_size);
	f.nr_subbufs = sw32(swap, f.nr_subbufs);
	f.nr_cpu_ids = sw32(swap, f.nr_cpu_ids);
	f.text_base = sw64(swap, f.text_base);
	f.direct_map_base = sw64(swap, f.direct_map_base);
	f.boot_ts = sw64(swap, f.boot_ts);
	/* an older, shorter header: what follows it is not ours */
	if (f.header_size >= KMT_FORMAT_MIN_SIZE && f.header_size < sizeof(f))
		memset((uint8_t *)&f + f.header_size, 0, sizeof(f) - f.header_size);
	f.nr_gfp_names = sw16(swap, f.nr_gfp_names);
	f.gfp_name_size = sw16(swap, f.gfp_name_size);
	f.pool_subbufs = sw32(swap, f.pool_subbufs);

	if (f.magic != KMT_FORMAT_MAGIC)
		return kmt_errf(err, EBADMSG,
				"format magic is 0x%08" PRIx32 ", expected 0x%08x",
				f.magic, KMT_FORMAT_MAGIC);
	if (f.abi_version < 1 || f.abi_version > KMT_ABI_VERSION)
		return kmt_errf(err, EPROTONOSUPPORT,
				"recorder ABI version %u; this kmemflight reads versions 1 to %u",
				f.abi_version, KMT_ABI_VERSION);
	if (f.header_size < KMT_FORMAT_MIN_SIZE || f.header_size > len)
		return kmt_errf(err, EBADMSG, "format header size %u is invalid",
				f.header_size);
	if (f.layout_size < sizeof(struct kmt_layout) ||
	    (uint64_t)f.nr_layouts * f.layout_size > len - f.header_size)
		return kmt_errf(err, EBADMSG,
				"format has %u layouts of %u bytes: more than its %zu bytes",
				f.nr_layouts, f.layout_size, len);
	if (f.subbuf_header_size < sizeof(struct kmt_subbuf_header) ||
	    f.subbuf_size <= f.subbuf_header_size)
		return kmt_errf(err, EBADMSG,
				"sub-buffer sizes %u/%u are invalid",
				f.subbuf_header_size, f.subbuf_size);
	if (f.word_size != 4 && f.word_size != 8)
		return kmt_errf(err, EBADMSG, "word size %u is invalid",
				f.word_size);
	/* readers size per-CPU tables by it: no kernel has more CPUs */
	if (f.nr_cpu_ids > KMT_MAX_CPU_IDS)
		return kmt_errf(err, EBADMSG, "nr_cpu_ids %" PRIu32 " is invalid (at most %u)",
				f.nr_cpu_ids, KMT_MAX_CPU_IDS);
	/* readers shift addresses by it */
	if (f.page_shift < 10 || f.page_shift > 30)
		return kmt_errf(err, EBADMSG, "page shift %u is invalid",
				f.page_shift);
	if (f.nr_gfp_names &&
	    (f.gfp_name_size < sizeof(struct kmt_gfp_name) ||
	     (uint64_t)f.nr_gfp_names * f.gfp_name_size >
	     len - f.header_size - (uint64_t)f.nr_layouts * f.layout_size))
		return kmt_errf(err, EBADMSG,
				"format has %u GFP names of %u bytes: more than its %zu bytes",
				f.nr_gfp_names, f.gfp_name_size, len);

	memset(layout, 0, sizeof(*layout) * (KMT_EV_MAX + 1));
	for (i = 0; i < f.nr_layouts; i++) {
		struct kmt_layout l;

		memcpy(&l, p + f.header_size + (size_t)i * f.layout_size,
		       sizeof(l));
		if (l.type == 0 || l.type > KMT_EV_MAX)
			return kmt_errf(err, EBADMSG,
					"layout %u has invalid event type %u",
					i, l.type);
		if (l.nr_fields > KMT_MAX_FIELDS)
			return kmt_errf(err, EBADMSG,
					"layout of event type %u has %u fields (max %u)",
					l.type, l.nr_fields, KMT_MAX_FIELDS);
		if (layout[l.type].present)
			return kmt_errf(err, EBADMSG,
					"event type %u is described twice", l.type);
		for (j = 0; j < l.nr_fields; j++) {
			uint8_t e = l.fields[j].enc;

			/* ABI 1 has the varints, ABI 2 the fixed widths */
			if (f.abi_version == 1 ? e < KMT_ENC_UVAR || e > KMT_ENC_STR :
			    e < KMT_ENC_STR || e > KMT_ENC_DMAP32)
				return kmt_errf(err, EBADMSG,
						"event type %u field %u has unknown encoding %u",
						l.type, j, e);
		}
		layout[l.type].present = true;
		layout[l.type].nr_fields = l.nr_fields;
		memcpy(layout[l.type].name, l.name, sizeof(l.name));
		layout[l.type].name[sizeof(l.name)] = '\0';
		memcpy(layout[l.type].fields, l.fields, sizeof(l.fields));
		for (j = 0; j < KMT_MAX_FIELDS; j++)
			layout[l.type].fields[j].name[13] = '\0';
	}
	*fmt = f;
	return 0;
}

/* The kernel's GFP names (checked by kmt_format_parse), byte-swapped. */
static int parse_gfp_names(struct kmt_trace *t, const uint8_t *fmt)
{
	const uint8_t *p = fmt + t->fmt.header_size +
			   (size_t)t->fmt.nr_layouts * t->fmt.layout_size;
	unsigned int i;

	if (!t->fmt.nr_gfp_names)
		return 0;
	t->gfp = calloc(t->fmt.nr_gfp_names, sizeof(*t->gfp));
	if (!t->gfp)
		return -ENOMEM;
	for (i = 0; i < t->fmt.nr_gfp_names; i++) {
		memcpy(&t->gfp[i], p + (size_t)i * t->fmt.gfp_name_size,
		       sizeof(t->gfp[i]));
		t->gfp[i].mask = sw64(t->swap, t->gfp[i].mask);
		t->gfp[i].name[sizeof(t->gfp[i].name) - 1] = '\0';
	}
	t->nr_gfp = t->fmt.nr_gfp_names;
	return 0;
}

/* A line of kallsyms text whose symbol is @name ("... T name\n"). */
static bool has_symbol(const char *text, size_t len, const char *name)
{
	size_t n = strlen(name);
	const char *p = text, *end, *hit;

	if (!text)
		return false;
	end = text + len;
	while (p < end && (hit = memmem(p, (size_t)(end - p), name, n))) {
		const char *after = hit + n;

		if (hit > text && hit[-1] == ' ' &&
		    (after == end || *after == '\n' || *after == '\t'))
			return true;
		p = hit + 1;
	}
	return false;
}

static const struct kmt_gfp_name *gfp_named(const struct kmt_trace *t,
					    const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr_gfp; i++)
		if (!strcmp(t->gfp[i].name, name))
			return &t->gfp[i];
	return NULL;
}

static void gfp_add_more(struct kmt_trace *t, unsigned int bit,
			 const char *name)
{
	uint64_t m = 1ull << bit;
	unsigned int i;

	/* a table that names the bit (a newer recorder) is the kernel's word */
	for (i = 0; i < t->nr_gfp; i++)
		if (t->gfp[i].mask == m || !strcmp(t->gfp[i].name, name))
			return;
	t->gfp_more[t->nr_gfp_more].mask = m;
	snprintf(t->gfp_more[t->nr_gfp_more].name,
		 sizeof(t->gfp_more[0].name), "%s", name);
	t->nr_gfp_more++;
}

/*
 * Linux 6.12 defines GFP flags that the table its recorder copies, its
 * gfpflag_names[], does not name: __GFP_SKIP_ZERO and __GFP_SKIP_KASAN
 * (only its tracepoints' table has them), __GFP_NOLOCKDEP and
 * __GFP_NO_OBJ_EXT (in no table).  Their bits follow __GFP_ZEROTAGS's
 * in include/linux/gfp_types.h, each there only in some configurations:
 * the two KASAN ones with CONFIG_KASAN_HW_TAGS, which puts
 * __GFP_SKIP_KASAN into GFP_HIGHUSER_MOVABLE; then __GFP_NOLOCKDEP with
 * CONFIG_LOCKDEP, whose kernel has the text symbol lock_acquire; then
 * __GFP_NO_OBJ_EXT (with CONFIG_SLAB_OBJ_EXT; without it the bit is
 * never set).  A 6.12 trace whose table and symbols show where they are
 * gets their names; any other keeps the hex.
 */
static void gfp_more(struct kmt_trace *t)
{
	const struct kmt_gfp_name *zt, *hm;
	unsigned int major, minor, z, next;
	char rel[32];
	uint64_t above;

	if (!kmt_trace_meta(t, "release", rel, sizeof(rel)) ||
	    sscanf(rel, "%u.%u", &major, &minor) != 2 || major != 6 ||
	    minor != 12)
		return;
	zt = gfp_named(t, "__GFP_ZEROTAGS");
	hm = gfp_named(t, "GFP_HIGHUSER_MOVABLE");
	if (!zt || !hm || !zt->mask || (zt->mask & (zt->mask - 1)) ||
	    zt->mask >= 1ull << 59)
		return;
	z = (unsigned int)__builtin_ctzll(zt->mask);
	above = hm->mask & ~((zt->mask << 1) - 1);
	if (above && above != zt->mask << 2)
		return;		/* not 6.12's layout */
	next = z + 1;
	if (above) {
		gfp_add_more(t, z + 1, "__GFP_SKIP_ZERO");
		gfp_add_more(t, z + 2, "__GFP_SKIP_KASAN");
		next = z + 3;
	}
	if (!t->kallsyms_len)
		return;		/* lockdep or not: not known */
	if (has_symbol(t->kallsyms, t->kallsyms_len, "lock_acquire"))
		gfp_add_more(t, next++, "__GFP_NOLOCKDEP");
	gfp_add_more(t, next, "__GFP_NO_OBJ_EXT");
}

size_t kmt_gfp_format(const struct kmt_trace *t, uint64_t gfp, char *buf,
		      size_t size)
{
	size_t n = 0;
	unsigned int i;
	int w;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (!gfp || !t->nr_gfp) {
		w = snprintf(buf, size, gfp ? "0x%" PRIx64 : "none", gfp);
		return w < 0 ? 0 : (size_t)w;
	}
	for (i = 0; i < t->nr_gfp + t->nr_gfp_more && gfp; i++) {
		const struct kmt_gfp_name *g = i < t->nr_gfp ? &t->gfp[i] :
					       &t->gfp_more[i - t->nr_gfp];
		uint64_t m = g->mask;

		if (!m || (gfp & m) != m)
			continue;
		gfp &= ~m;
		w = snprintf(buf + n, size - n, "%s%s", n ? "|" : "", g->name);
		if (w < 0 || (size_t)w >= size - n)
			return size - 1;
		n += (size_t)w;
	}
	if (gfp) {
		w = snprintf(buf + n, size - n, "%s0x%" PRIx64, n ? "|" : "", gfp);
		if (w < 0 || (size_t)w >= size - n)
			return size - 1;
		n += (size_t)w;
	}
	return n;
}

static int parse_topology(struct kmt_trace *t, const char *s, size_t len,
			  struct kmt_err *err)
{
	const char *end = s + len, *nl;
	char line[128];
	unsigned int cpu;
	int node;
	uint64_t a, b;
	unsigned int i;
	int f;

	for (; s < end; s = nl + 1) {
		nl = memchr(s, '\n', end - s);
		if (!nl)
			nl = end;
		if ((size_t)(nl - s) >= sizeof(line))
			return kmt_errf(err, EBADMSG, "topology line too long");
		memcpy(line, s, nl - s);
		line[nl - s] = '\0';
		f = sscanf(line, "cpu %u node %d buffer %" SCNu64, &cpu, &node, &a);
		if (f >= 2) {
			/* older recorders had a buffer on every possible CPU */
			t->has_buffers |= f == 3;
			t->nr_possible++;
			t->nr_buffered += f == 3 && a;
			t->buffer_bytes += f == 3 ? a : 0;
			for (i = 0; i < t->nr_cpus; i++) {
				if (t->cpus[i].cpu != cpu)
					continue;
				t->cpus[i].node = node;
				t->cpus[i].buffer = f == 3 ? a : 0;
			}
		} else if (sscanf(line, "node %d start_pfn %" SCNu64
				  " end_pfn %" SCNu64, &node, &a, &b) == 3) {
			struct kmt_node_range *n;

			n = realloc(t->nodes, (t->nr_nodes + 1) * sizeof(*n));
			if (!n)
				return -ENOMEM;
			t->nodes = n;
			n[t->nr_nodes].node = node;
			n[t->nr_nodes].start_pfn = a;
			n[t->nr_nodes].end_pfn = b;
			t->nr_nodes++;
		} else if (line[0]) {
			return kmt_errf(err, EBADMSG,
					"topology line \"%.60s\" not understood", line);
		}
	}
	return 0;
}

static int cmp_cache(const void *a, const void *b)
{
	const struct kmt_cache *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int parse_caches(struct kmt_trace *t, const char *s, size_t len,
			struct kmt_err *err)
{
	const char *end = s + len, *nl;
	char line[KMT_MAX_NAME + 128];
	struct kmt_cache c, *n;
	int off;

	for (; s < end; s = nl + 1) {
		nl = memchr(s, '\n', end - s);
		if (!nl)
			nl = end;
		if ((size_t)(nl - s) >= sizeof(line))
			return kmt_errf(err, EBADMSG, "cache table line too long");
		memcpy(line, s, nl - s);
		line[nl - s] = '\0';
		if (!line[0])
			continue;
		memset(&c, 0, sizeof(c));
		off = 0;
		if (sscanf(line, "%" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32
			   " %" SCNx64 " %n", &c.id, &c.object_size, &c.size,
			   &c.align, &c.flags, &off) != 5 || !off)
			return kmt_errf(err, EBADMSG,
					"cache table line \"%.60s\" not understood",
					line);
		snprintf(c.name, sizeof(c.name), "%s", line + off);
		n = realloc(t->caches, (t->nr_caches + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		t->caches = n;
		n[t->nr_caches++] = c;
	}
	if (t->nr_caches)
		qsort(t->caches, t->nr_caches, sizeof(*t->caches), cmp_cache);
	return 0;
}

/*
 * The flight section: the mode and the freeze, and each CPU's overwritten
 * count and window, onto the CPU sections read before it.
 */
struct cpu_idx {
	uint32_t cpu, idx;
};

static int cmp_cpu_idx(const void *a, const void *b)
{
	const struct cpu_idx *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int parse_flight(struct kmt_trace *t, const uint8_t *p, size_t len,
			struct kmt_err *err)
{
	struct kmt_flight_section fs;
	struct cpu_idx *by_cpu, key, *hit;
	uint32_t i;

	if (len < sizeof(fs))
		return kmt_errf(err, EBADMSG, "flight section is too short (%zu bytes)",
				len);
	memcpy(&fs, p, sizeof(fs));
	fs.mode = sw32(t->swap, fs.mode);
	fs.trigger = sw32(t->swap, fs.trigger);
	fs.trigger_ts = sw64(t->swap, fs.trigger_ts);
	fs.frozen_ts = sw64(t->swap, fs.frozen_ts);
	fs.nr_cpus = sw32(t->swap, fs.nr_cpus);
	fs.cpu_size = sw32(t->swap, fs.cpu_size);
	/* entries grow: the first ones had no frozen_dropped */
	if (fs.cpu_size < KMT_FLIGHT_CPU_SIZE_V1 ||
	    (uint64_t)fs.nr_cpus * fs.cpu_size > len - sizeof(fs))
		return kmt_errf(err, EBADMSG,
				"flight section: %" PRIu32 " CPUs of %" PRIu32
				" bytes do not fit in its %zu bytes",
				fs.nr_cpus, fs.cpu_size, len);
	t->flight.present = true;
	t->flight.mode = fs.mode;
	t->flight.trigger = fs.trigger;
	t->flight.trigger_ts = fs.trigger_ts;
	t->flight.frozen_ts = fs.frozen_ts;
	/* the CPU sections by CPU number: a lookup per entry in log time */
	by_cpu = malloc((t->nr_cpus ? t->nr_cpus : 1) * sizeof(*by_cpu));
	if (!by_cpu)
		return -ENOMEM;
	for (i = 0; i < t->nr_cpus; i++) {
		by_cpu[i].cpu = t->cpus[i].cpu;
		by_cpu[i].idx = i;
	}
	qsort(by_cpu, t->nr_cpus, sizeof(*by_cpu), cmp_cpu_idx);
	for (i = 0; i < fs.nr_cpus; i++) {
		struct kmt_flight_cpu fc = { 0 };
		struct kmt_cpu_info *c;

		memcpy(&fc, p + sizeof(fs) + (size_t)i * fs.cpu_size,
		       fs.cpu_size < sizeof(fc) ? fs.cpu_size : sizeof(fc));
		key.cpu = sw32(t->swap, fc.cpu);
		hit = bsearch(&key, by_cpu, t->nr_cpus, sizeof(*by_cpu), cmp_cpu_idx);
		/* a cut file: its CPU section may be past the cut */
		if (!hit && t->cut.file_size)
			continue;
		if (!hit) {
			free(by_cpu);
			return kmt_errf(err, EBADMSG,
					"flight section: cpu %" PRIu32
					" has no CPU section", key.cpu);
		}
		c = &t->cpus[hit->idx];
		c->overwritten = sw64(t->swap, fc.overwritten);
		c->window_start = sw64(t->swap, fc.window_start);
		c->window_end = sw64(t->swap, fc.window_end);
		c->frozen_dropped = sw64(t->swap, fc.frozen_dropped);
	}
	free(by_cpu);
	return 0;
}

/* The most bytes a trace's compressed sections may decompress to, in all. */
size_t kmt_inflate_limit = KMT_INFLATE_MAX;

/*
 * A section stored as a zstd frame: its bytes, decompressed into a buffer
 * the trace keeps until kmt_trace_close().  The frame must give its size
 * and carry its checksum, be the whole payload, and decompress to exactly
 * that size; the compressed sections of a trace decompress to at most
 * kmt_inflate_limit bytes in all.
 */
static int inflate_section(struct kmt_trace *t, uint32_t i, uint32_t type,
			   const uint8_t **data, __u64 *size,
			   struct kmt_err *err)
{
	unsigned long long n = ZSTD_getFrameContentSize(*data, *size);
	struct kmt_owned *owned;
	size_t got, used = 0;
	unsigned int k;
	void *buf;

	/* a frame, not a skippable one: the magic, little-endian */
	if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN ||
	    memcmp(*data, "\x28\xb5\x2f\xfd", 4))
		return kmt_errf(err, EBADMSG,
				"section %u (type %u) is marked compressed but does not start with a zstd frame that gives its size",
				i, type);
	/* RFC 8878: bit 2 of the frame header descriptor, after the magic */
	if (!(((const uint8_t *)*data)[4] & 0x04))
		return kmt_errf(err, EBADMSG,
				"section %u (type %u): its zstd frame has no checksum",
				i, type);
	for (k = 0; k < t->nr_owned; k++)
		used += t->owned[k].len;
	if (n > kmt_inflate_limit - used)
		return kmt_errf(err, EFBIG,
				"section %u (type %u) would decompress to %llu bytes: more than the compressed sections of a trace may hold, %zu bytes in all",
				i, type, n, kmt_inflate_limit);
	got = ZSTD_findFrameCompressedSize(*data, *size);
	if (ZSTD_isError(got) || got != *size)
		return kmt_errf(err, EBADMSG,
				"section %u (type %u): its zstd frame %s",
				i, type, ZSTD_isError(got) ? "is cut short" :
				"does not fill the section");
	owned = realloc(t->owned, (t->nr_owned + 1) * sizeof(*owned));
	if (!owned)
		return kmt_errf(err, ENOMEM, "out of memory");
	t->owned = owned;
	buf = malloc(n ? n : 1);
	if (!buf)
		return kmt_errf(err, ENOMEM,
				"out of memory for the %llu bytes of section %u",
				n, i);
	got = ZSTD_decompress(buf, n, *data, *size);
	if (ZSTD_isError(got) || got != n) {
		free(buf);
		if (ZSTD_isError(got) &&
		    ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall)
			return kmt_errf(err, EBADMSG,
					"section %u (type %u): its zstd frame holds more than the %llu bytes it gives",
					i, type, n);
		return kmt_errf(err, EBADMSG,
				"section %u (type %u): its zstd frame is corrupt: %s",
				i, type, ZSTD_isError(got) ? ZSTD_getErrorName(got) :
				"shorter than its size");
	}
	t->owned[t->nr_owned].p = buf;
	t->owned[t->nr_owned++].len = n;
	*data = buf;
	*size = n;
	return 0;
}

/* Version 1 has no section flags; version 2 those this reader knows. */
static int check_section_flags(uint16_t version, uint32_t i,
			       const struct kmt_section *s, struct kmt_err *err)
{
	/* version 1 has none: a flag there is damage */
	if (version < 2 && s->flags)
		return kmt_errf(err, EBADMSG,
				"section %u (type %u) has flags 0x%" PRIx32
				" in a version %u file, which has none",
				i, s->type, s->flags, version);
	if (s->flags & ~KMT_SECTION_KNOWN)
		return kmt_errf(err, EPROTONOSUPPORT,
				"section %u (type %u) has flags 0x%" PRIx32
				" this kmemflight does not know",
				i, s->type, s->flags);
	return 0;
}

/* A CPU section (@size bytes at @data, section @i) onto t->cpus. */
static int add_cpu(struct kmt_trace *t, uint32_t i, const uint8_t *data,
		   uint64_t size, struct kmt_err *err)
{
	struct kmt_cpu_section cs;
	struct kmt_cpu_info *c;

	if (size < sizeof(cs))
		return kmt_errf(err, EBADMSG, "CPU section %u is too short", i);
	memcpy(&cs, data, sizeof(cs));
	c = realloc(t->cpus, (t->nr_cpus + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	t->cpus = c;
	c += t->nr_cpus++;
	memset(c, 0, sizeof(*c));
	c->cpu = sw32(t->swap, cs.cpu);
	c->nr_subbufs = sw32(t->swap, cs.nr_subbufs);
	c->events = sw64(t->swap, cs.events);
	c->lost = sw64(t->swap, cs.lost);
	c->data = data + sizeof(cs);
	c->size = size - sizeof(cs);
	c->node = -1;
	return 0;
}

/*
 * The section a cut file ends in (@have of its @s->size bytes are in
 * the file): a CPU section gives what it has of its sub-buffers, its
 * cursor stopping at the cut; any other is left out, as if the file had
 * none, and so is a compressed one, whose frame cannot be checked.
 */
static int cut_section(struct kmt_trace *t, uint32_t i,
		       const struct kmt_section *s, const uint8_t *data,
		       size_t have, struct kmt_err *err)
{
	uint32_t cpu;
	int ret;

	t->cut.sec = i;
	t->cut.type = s->type;
	if (s->type != KMT_SEC_CPU || (s->flags & KMT_SECTION_ZSTD))
		return 0;
	if (have >= sizeof(cpu)) {
		memcpy(&cpu, data, sizeof(cpu));
		t->cut.cpu = sw32(t->swap, cpu);
	}
	if (have < sizeof(struct kmt_cpu_section))
		return 0;
	ret = add_cpu(t, i, data, have, err);
	if (ret)
		return ret;
	t->cpus[t->nr_cpus - 1].cut = true;
	return 0;
}

/*
 * The time of the last event of the CPU a cut file ends in: its last
 * whole sub-buffer and what the cut left of the next decoded (each
 * sub-buffer's times are its own).  Damage stops the walk: the readers
 * of the trace report it.
 */
static void cut_last_ts(struct kmt_trace *t)
{
	const struct kmt_cpu_info *c = NULL;
	const uint8_t *p, *end, *last;
	uint32_t hsz = t->fmt.subbuf_header_size, sz;
	struct kmt_cursor cur;
	struct kmt_event ev;
	unsigned int i;

	for (i = 0; i < t->nr_cpus && !c; i++)
		if (t->cpus[i].cut)
			c = &t->cpus[i];
	if (!c)
		return;
	p = last = c->data;
	end = c->data + c->size;
	while ((size_t)(end - p) >= hsz) {
		memcpy(&sz, p + offsetof(struct kmt_subbuf_header, size), sizeof(sz));
		sz = sw32(t->swap, sz);
		if (sz < hsz || sz > t->fmt.subbuf_size || sz > (size_t)(end - p))
			break;
		last = p;
		p += sz;
	}
	kmt_cursor_init(&cur, &t->fmt, t->layout, t->swap, c->cpu, last,
			(uint64_t)(end - last));
	cur.cut = true;
	while (kmt_cursor_next(&cur, &ev, NULL) > 0) {
		t->cut.events = true;
		t->cut.last_ts = ev.ts;
	}
}

static int parse_sections(struct kmt_trace *t, unsigned int flags,
			  struct kmt_err *err)
{
	struct kmt_file_header h;
	const uint8_t *p = t->base, *end = t->base + t->len;
	const uint8_t *fmt = NULL, *topo = NULL, *caches = NULL, *flight = NULL;
	size_t fmt_len = 0, topo_len = 0, caches_len = 0, flight_len = 0, off;
	uint32_t i;
	int ret;

	if (t->len < sizeof(h))
		return kmt_errf(err, EBADMSG,
				"file is %zu bytes, too short for a kmemflight header",
				t->len);
	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, KMT_FILE_MAGIC, sizeof(KMT_FILE_MAGIC)))
		return kmt_errf(err, EBADMSG,
				"not a kmemflight trace (no KMTRACE magic)");
	if (h.byte_order == KMT_FORMAT_MAGIC)
		t->swap = false;
	else if (h.byte_order == __builtin_bswap32(KMT_FORMAT_MAGIC))
		t->swap = true;
	else
		return kmt_errf(err, EBADMSG,
				"byte-order mark 0x%08" PRIx32 " is invalid",
				h.byte_order);
	h.version = sw16(t->swap, h.version);
	h.header_size = sw16(t->swap, h.header_size);
	h.nr_sections = sw32(t->swap, h.nr_sections);
	h.file_size = sw64(t->swap, h.file_size);
	if (h.version < KMT_FILE_VERSION_MIN || h.version > KMT_FILE_VERSION)
		return kmt_errf(err, EPROTONOSUPPORT,
				"file version %u; this kmemflight reads versions %u to %u",
				h.version, KMT_FILE_VERSION_MIN, KMT_FILE_VERSION);
	if (h.header_size < sizeof(h) || h.header_size > t->len)
		return kmt_errf(err, EBADMSG, "header size %u is invalid",
				h.header_size);
	if (h.file_size != t->len) {
		if (h.file_size < t->len || !(flags & KMT_OPEN_TRUNCATED))
			return kmt_errf(err, EBADMSG,
					"file is %zu bytes but its header says %" PRIu64
					" (truncated or incomplete save)",
					t->len, (uint64_t)h.file_size);
		t->cut.file_size = h.file_size;
		t->cut.nr_sections = h.nr_sections;
		/* past the last section: the cut took padding only */
		t->cut.sec = h.nr_sections;
		t->cut.cpu = -1;
	}

	/* sections start 8-byte aligned: that may be past a short file */
	off = ((size_t)h.header_size + 7) & ~(size_t)7;
	p += off < t->len ? off : t->len;
	for (i = 0; i < h.nr_sections; i++) {
		struct kmt_section s;
		const uint8_t *data, *next;
		uint64_t stored;

		if ((size_t)(end - p) < sizeof(s)) {
			/* cut in this header: the rest is not known */
			if (t->cut.file_size) {
				t->cut.sec = i;
				break;
			}
			return kmt_errf(err, EBADMSG,
					"section %u of %u starts past the end of the file",
					i, h.nr_sections);
		}
		memcpy(&s, p, sizeof(s));
		s.type = sw32(t->swap, s.type);
		s.flags = sw32(t->swap, s.flags);
		s.size = sw64(t->swap, s.size);
		data = p + sizeof(s);
		if (s.size > (uint64_t)(end - data)) {
			/* the file's cut, not a size past the whole file's end */
			if (t->cut.file_size && s.size <= t->cut.file_size -
			    (uint64_t)(data - t->base)) {
				ret = check_section_flags(h.version, i, &s, err);
				if (!ret)
					ret = cut_section(t, i, &s, data,
							  (size_t)(end - data), err);
				if (ret)
					return ret;
				break;
			}
			return kmt_errf(err, EBADMSG,
					"section %u (type %u) has %" PRIu64
					" bytes, more than the file holds",
					i, s.type, (uint64_t)s.size);
		}
		stored = s.size;
		next = data + ((s.size + 7) & ~7ull);
		ret = check_section_flags(h.version, i, &s, err);
		if (ret)
			return ret;
		/* what this reader skips, it does not decompress */
		if ((s.flags & KMT_SECTION_ZSTD) &&
		    s.type >= KMT_SEC_FORMAT && s.type <= KMT_SEC_CGROUPS) {
			ret = inflate_section(t, i, s.type, &data, &s.size, err);
			if (ret)
				return ret;
		}
		switch (s.type) {
		case KMT_SEC_FORMAT:
			fmt = data;
			fmt_len = s.size;
			break;
		case KMT_SEC_META:
			t->meta = (const char *)data;
			t->meta_len = s.size;
			break;
		case KMT_SEC_KALLSYMS:
			t->kallsyms = (const char *)data;
			t->kallsyms_len = s.size;
			t->kallsyms_stored = stored;
			t->kallsyms_zstd = s.flags & KMT_SECTION_ZSTD;
			break;
		case KMT_SEC_TOPOLOGY:
			topo = data;
			topo_len = s.size;
			break;
		case KMT_SEC_CACHES:
			caches = data;
			caches_len = s.size;
			break;
		case KMT_SEC_MEMINFO:
			t->meminfo = (const char *)data;
			t->meminfo_len = s.size;
			break;
		case KMT_SEC_VMSTAT:
			t->vmstat = (const char *)data;
			t->vmstat_len = s.size;
			break;
		case KMT_SEC_ZONEINFO:
			t->zoneinfo = (const char *)data;
			t->zoneinfo_len = s.size;
			break;
		case KMT_SEC_CPU:
			ret = add_cpu(t, i, data, s.size, err);
			if (ret)
				return ret;
			break;
		case KMT_SEC_FLIGHT:
			flight = data;
			flight_len = s.size;
			break;
		case KMT_SEC_TASKS:
			t->tasks = (const char *)data;
			t->tasks_len = s.size;
			break;
		case KMT_SEC_CGROUPS:
			t->cgroups = (const char *)data;
			t->cgroups_len = s.size;
			break;
		default:
			break;	/* newer writers may add sections */
		}
		p = next;
		if (p > end)
			p = end;
	}
	if (!fmt && t->cut.file_size)
		return kmt_errf(err, EBADMSG,
				"file is cut at %zu of %" PRIu64
				" bytes, and no whole FORMAT section is before the cut: nothing can be read",
				t->len, t->cut.file_size);
	if (!fmt)
		return kmt_errf(err, EBADMSG, "no format section");
	ret = kmt_format_parse(fmt, fmt_len, t->swap, &t->fmt, t->layout, err);
	if (ret)
		return ret;
	ret = parse_gfp_names(t, fmt);
	if (ret)
		return kmt_errf(err, -ret, "out of memory");
	gfp_more(t);
	if (!t->nr_cpus && t->cut.file_size)
		return kmt_errf(err, EBADMSG,
				"file is cut at %zu of %" PRIu64
				" bytes, and no CPU section is before the cut: no events",
				t->len, t->cut.file_size);
	if (!t->nr_cpus)
		return kmt_errf(err, EBADMSG, "no CPU sections: no events");
	if (t->cut.file_size)
		cut_last_ts(t);
	if (flight) {
		ret = parse_flight(t, flight, flight_len, err);
		if (ret)
			return ret;
	}
	if (topo) {
		ret = parse_topology(t, (const char *)topo, topo_len, err);
		if (ret)
			return ret;
	}
	if (caches) {
		ret = parse_caches(t, (const char *)caches, caches_len, err);
		if (ret)
			return ret;
	}
	return 0;
}

int kmt_trace_open_mem_flags(const void *buf, size_t len, unsigned int flags,
			     struct kmt_trace *t, struct kmt_err *err)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->base = buf;
	t->len = len;
	ret = parse_sections(t, flags, err);
	if (ret)
		kmt_trace_close(t);
	return ret;
}

int kmt_trace_open_mem(const void *buf, size_t len, struct kmt_trace *t,
		       struct kmt_err *err)
{
	return kmt_trace_open_mem_flags(buf, len, 0, t, err);
}

int kmt_trace_open(const char *path, struct kmt_trace *t, struct kmt_err *err)
{
	return kmt_trace_open_flags(path, 0, t, err);
}

int kmt_trace_open_flags(const char *path, unsigned int flags,
			 struct kmt_trace *t, struct kmt_err *err)
{
	struct stat st;
	void *m;
	int fd, ret;

	memset(t, 0, sizeof(*t));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			return kmt_errf(err, ENOENT,
					"%s: no such file (record one with 'kmemflight save %s')",
					path, path);
		return kmt_errf(err, -ret, "%s: %s", path, strerror(-ret));
	}
	if (fstat(fd, &st) < 0) {
		ret = kmt_errf(err, errno, "%s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return kmt_errf(err, EINVAL, "%s: not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return kmt_errf(err, EBADMSG, "%s: empty file", path);
	}
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return kmt_errf(err, errno, "%s: %s", path, strerror(errno));
	ret = kmt_trace_open_mem_flags(m, st.st_size, flags, t, err);
	if (ret) {
		char tmp[sizeof(err->msg)];

		munmap(m, st.st_size);
		if (err) {
			memcpy(tmp, err->msg, sizeof(tmp));
			snprintf(err->msg, sizeof(err->msg), "%.200s: %.300s",
				 path, tmp);
		}
		return ret;
	}
	t->mapped = true;
	return 0;
}

void kmt_trace_close(struct kmt_trace *t)
{
	if (t->mapped)
		munmap((void *)t->base, t->len);
	free(t->cpus);
	free(t->caches);
	free(t->nodes);
	free(t->gfp);
	while (t->nr_owned)
		free(t->owned[--t->nr_owned].p);
	free(t->owned);
	memset(t, 0, sizeof(*t));
}

bool kmt_trace_meta(const struct kmt_trace *t, const char *key, char *buf,
		    size_t size)
{
	const char *s = t->meta, *end, *nl;
	size_t klen = strlen(key), n;

	if (!s)
		return false;	/* no META section (and NULL + 0 is undefined) */
	end = s + t->meta_len;
	for (; s < end; s = nl + 1) {
		nl = memchr(s, '\n', end - s);
		if (!nl)
			nl = end;
		if ((size_t)(nl - s) > klen && !memcmp(s, key, klen) &&
		    s[klen] == '=') {
			n = nl - s - klen - 1;
			if (n >= size)
				n = size - 1;
			memcpy(buf, s + klen + 1, n);
			buf[n] = '\0';
			return true;
		}
	}
	return false;
}

const struct kmt_cache *kmt_trace_cache_named(const struct kmt_trace *t,
					      const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr_caches; i++)
		if (!strcmp(t->caches[i].name, name))
			return &t->caches[i];
	return NULL;
}

uint64_t kmt_trace_gfp_mask(const struct kmt_trace *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr_gfp; i++)
		if (!strncmp(t->gfp[i].name, name, sizeof(t->gfp[i].name)))
			return t->gfp[i].mask;
	return 0;
}

void kmt_kmalloc_size_name(uint64_t size, char *buf, size_t len)
{
	/* mm/slab_common.c's kmalloc_info[]: bytes up to 512, then k, M */
	if (size >= 1024 * 1024 && !(size % (1024 * 1024)))
		snprintf(buf, len, "%" PRIu64 "M", size / (1024 * 1024));
	else if (size >= 1024 && !(size % 1024))
		snprintf(buf, len, "%" PRIu64 "k", size / 1024);
	else
		snprintf(buf, len, "%" PRIu64, size);
}

void kmt_cache_name(const struct kmt_trace *t, uint32_t cache, uint64_t size,
		    char *buf, size_t len)
{
	const struct kmt_cache *k = cache ? kmt_trace_cache(t, cache) : NULL;
	char sz[32];

	if (k) {
		snprintf(buf, len, "%s", k->name);
	} else if (cache) {
		snprintf(buf, len, "cache#%" PRIu32, cache);
	} else {
		kmt_kmalloc_size_name(size, sz, sizeof(sz));
		snprintf(buf, len, "kmalloc-%s", sz);
	}
}

const struct kmt_cache *kmt_trace_cache(const struct kmt_trace *t, uint32_t id)
{
	size_t lo = 0, hi = t->nr_caches;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->caches[mid].id == id)
			return &t->caches[mid];
		if (t->caches[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int kmt_trace_pfn_node(const struct kmt_trace *t, uint64_t pfn)
{
	unsigned int i;

	for (i = 0; i < t->nr_nodes; i++)
		if (pfn >= t->nodes[i].start_pfn && pfn < t->nodes[i].end_pfn)
			return t->nodes[i].node;
	return -1;
}

static void ts_text(const struct kmt_trace *t, const char *key, char *buf,
		    size_t size)
{
	char v[32];
	uint64_t ts;

	buf[0] = '\0';
	if (!kmt_trace_meta(t, key, v, sizeof(v)))
		return;
	ts = strtoull(v, NULL, 10);
	snprintf(buf, size, "%" PRIu64 ".%06" PRIu64 " s", ts / 1000000000u,
		 ts % 1000000000u / 1000u);
}

bool kmt_trace_coverage(const struct kmt_trace *t, char *buf, size_t size)
{
	char src[32], first[48], from[48], until[48], clock[32] = "";
	char events[256] = "", v[8];
	size_t n;

	buf[0] = '\0';
	if (!kmt_trace_meta(t, "source", src, sizeof(src)) || !src[0])
		return false;
	ts_text(t, "first_ts", first, sizeof(first));
	ts_text(t, "complete_from_ts", from, sizeof(from));
	ts_text(t, "complete_until_ts", until, sizeof(until));
	if (!strcmp(src, "ftrace")) {
		kmt_trace_meta(t, "ftrace_clock", clock, sizeof(clock));
		kmt_trace_meta(t, "ftrace_events", events, sizeof(events));
		if (strcmp(first, from))
			n = (size_t)snprintf(buf, size,
				"ftrace source: allocations before its first event at %s are not in this trace, and before %s not all of them (its buffer overwrote the oldest)",
				first, from);
		else
			n = (size_t)snprintf(buf, size,
				"ftrace source: allocations before its first event at %s (trace_init() at boot, or when the kmem events were enabled) are not in this trace",
				first);
		if (until[0] && n < size)
			n += (size_t)snprintf(buf + n, size - n,
				", nor are events after %s, when its buffer filled", until);
		if (n < size)
			n += (size_t)snprintf(buf + n, size - n,
				"; page allocations carry no callsite");
		if (kmt_trace_meta(t, "ftrace_cache_names", v, sizeof(v)) &&
		    !strcmp(v, "0") && n < size)
			n += (size_t)snprintf(buf + n, size - n,
				"; its kmem_cache_alloc event names no cache, so caches are told apart by object size");
		if ((strstr(events, "mm_vmscan_") || strstr(events, "mm_shrink_slab") ||
		     strstr(events, "mm_compaction_")) && n < size)
			n += (size_t)snprintf(buf + n, size - n,
				"; its reclaim and compaction events carry no stack, so stalls have no callsite, and shrinkers no name");
		if (events[0] && n < size)
			n += (size_t)snprintf(buf + n, size - n,
				"; events traced: %s", events);
		if (clock[0] && strcmp(clock, "local") && n < size)
			snprintf(buf + n, size - n,
				 "; times are ftrace's \"%s\" clock", clock);
		return true;
	}
	if (!strcmp(src, "perf")) {
		char last[48];

		ts_text(t, "last_ts", last, sizeof(last));
		n = (size_t)snprintf(buf, size,
			"perf source: only what happened while 'perf kmem record' ran, from %s to %s; what the boot allocated before is not in this trace",
			first[0] ? first : "its first event", last[0] ? last : "its last");
		if (strcmp(first, from) && n < size)
			n += (size_t)snprintf(buf + n, size - n,
				", and before %s not all of it (perf lost events)", from);
		if (kmt_trace_meta(t, "perf_page_callchains", v, sizeof(v)) &&
		    !strcmp(v, "0") && n < size)
			n += (size_t)snprintf(buf + n, size - n,
				"; page allocations carry no callsite (record with perf kmem --page record)");
		if (kmt_trace_meta(t, "ftrace_cache_names", v, sizeof(v)) &&
		    !strcmp(v, "0") && n < size)
			snprintf(buf + n, size - n,
				 "; its kmem_cache_alloc event names no cache, so caches are told apart by object size");
		return true;
	}
	snprintf(buf, size, "%s source: not recorded by kmemtrace; it covers from %s only",
		 src, first[0] ? first : "its first event");
	return true;
}

bool kmt_trace_cut_text(const struct kmt_trace *t, char *buf, size_t size)
{
	static const char *const names[] = {
		[KMT_SEC_FORMAT] = "FORMAT", [KMT_SEC_META] = "META",
		[KMT_SEC_KALLSYMS] = "KALLSYMS", [KMT_SEC_TOPOLOGY] = "TOPOLOGY",
		[KMT_SEC_CACHES] = "CACHES", [KMT_SEC_MEMINFO] = "MEMINFO",
		[KMT_SEC_VMSTAT] = "VMSTAT", [KMT_SEC_ZONEINFO] = "ZONEINFO",
		[KMT_SEC_FLIGHT] = "FLIGHT", [KMT_SEC_TASKS] = "TASKS",
		[KMT_SEC_CGROUPS] = "CGROUPS",
	};
	const struct kmt_cut *k = &t->cut;
	uint32_t left = k->nr_sections - k->sec, after = left ? left - 1 : 0;
	char what[128];
	int n;

	if (!size)
		return k->file_size != 0;
	buf[0] = '\0';
	if (!k->file_size)
		return false;
	if (!left) {
		snprintf(what, sizeof(what),
			 "only the padding after its last section is");
	} else if (!k->type && left == 1) {
		snprintf(what, sizeof(what), "its last section (of %" PRIu32 ") is",
			 k->nr_sections);
	} else if (!k->type) {
		snprintf(what, sizeof(what), "its last %" PRIu32 " sections (of %"
			 PRIu32 ") are", left, k->nr_sections);
	} else if (k->type == KMT_SEC_CPU && k->cpu >= 0 && k->events) {
		snprintf(what, sizeof(what), "CPU %" PRId64 "'s events after %"
			 PRIu64 ".%09" PRIu64 " s are", k->cpu,
			 k->last_ts / 1000000000u, k->last_ts % 1000000000u);
	} else if (k->type == KMT_SEC_CPU && k->cpu >= 0) {
		snprintf(what, sizeof(what), "all of CPU %" PRId64 "'s events are",
			 k->cpu);
	} else if (k->type == KMT_SEC_CPU) {
		snprintf(what, sizeof(what), "a CPU section is");
	} else if (k->type < sizeof(names) / sizeof(names[0]) && names[k->type]) {
		snprintf(what, sizeof(what), "the %s section is", names[k->type]);
	} else {
		snprintf(what, sizeof(what), "section %" PRIu32 " (type %" PRIu32
			 ") is", k->sec, k->type);
	}
	n = snprintf(buf, size, "cut at %zu of %" PRIu64 " bytes, %" PRIu64
		     " short: %s missing", t->len, k->file_size,
		     k->file_size - t->len, what);
	if (n < 0 || (size_t)n >= size || !k->type || !after)
		return true;
	if (after == 1)
		snprintf(buf + n, size - (size_t)n,
			 ", and so is the section that followed");
	else
		snprintf(buf + n, size - (size_t)n,
			 ", and so are the %" PRIu32 " sections that followed",
			 after);
	return true;
}

const char *kmt_compact_status_name(uint32_t status)
{
	static const char *const names[] = {
		[KMT_COMPACT_UNKNOWN] = "unknown",
		[KMT_COMPACT_NOT_SUITABLE_ZONE] = "not_suitable_zone",
		[KMT_COMPACT_SKIPPED] = "skipped",
		[KMT_COMPACT_DEFERRED] = "deferred",
		[KMT_COMPACT_NO_SUITABLE_PAGE] = "no_suitable_page",
		[KMT_COMPACT_CONTINUE] = "continue",
		[KMT_COMPACT_COMPLETE] = "complete",
		[KMT_COMPACT_PARTIAL_SKIPPED] = "partial_skipped",
		[KMT_COMPACT_CONTENDED] = "contended",
		[KMT_COMPACT_SUCCESS] = "success",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "unknown";
}

const char *kmt_memblock_op_name(uint32_t op)
{
	static const char *const names[] = {
		[KMT_MB_ADD] = "add",
		[KMT_MB_REMOVE] = "remove",
		[KMT_MB_RESERVE] = "reserve",
		[KMT_MB_ALLOC] = "alloc",
		[KMT_MB_FREE] = "free",
		[KMT_MB_FREE_LATE] = "free_late",
		[KMT_MB_FREE_AREA] = "free_area",
	};

	return op < sizeof(names) / sizeof(names[0]) && names[op] ? names[op] :
	       "unknown";
}

const char *kmt_trigger_name(uint32_t trigger)
{
	static const char *const names[] = {
		[KMT_TRIG_MANUAL] = "manual",
		[KMT_TRIG_OOM] = "oom",
		[KMT_TRIG_PAGE_ALLOC_FAIL] = "page_alloc_fail",
		[KMT_TRIG_SLAB_ALLOC_FAIL] = "slab_alloc_fail",
		[KMT_TRIG_MEMCG_OOM] = "memcg_oom",
		[KMT_TRIG_RECLAIM_STALL] = "reclaim_stall",
		[KMT_TRIG_PANIC] = "panic",
	};

	return trigger < sizeof(names) / sizeof(names[0]) && names[trigger] ?
	       names[trigger] : "unknown";
}

const char *kmt_mode_name(uint32_t mode)
{
	return mode == KMT_MODE_BOOT ? "boot" :
	       mode == KMT_MODE_FLIGHT ? "flight" : "unknown";
}

const char *kmt_task_op_name(uint32_t op)
{
	static const char *const names[] = {
		[KMT_TASK_NEW] = "new",
		[KMT_TASK_EXEC] = "exec",
		[KMT_TASK_RENAME] = "rename",
		[KMT_TASK_CGROUP] = "cgroup",
		[KMT_TASK_MKDIR] = "mkdir",
	};

	return op < sizeof(names) / sizeof(names[0]) && names[op] ? names[op] :
	       "unknown";
}

/*
 * The number after @name and then @sep at the start of a line of @text
 * (@len bytes): "MemFree:" then blanks, or "nr_free_pages" then a
 * blank.  Digits only, no overflow.
 */
static bool text_value(const char *text, size_t len, const char *name,
		       char sep, uint64_t *v)
{
	size_t n = strlen(name), i = 0;

	while (text && i < len) {
		const char *l = text + i, *nl = memchr(l, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - l) : len - i, j = n + 1;
		uint64_t x = 0;
		bool digits = false;

		i += ll + 1;
		if (ll <= n + 1 || memcmp(l, name, n) || l[n] != sep)
			continue;
		while (j < ll && l[j] == ' ')
			j++;
		for (; j < ll && l[j] >= '0' && l[j] <= '9'; j++) {
			if (x > (UINT64_MAX - 9) / 10)
				return false;
			x = x * 10 + (uint64_t)(l[j] - '0');
			digits = true;
		}
		if (!digits)
			return false;
		*v = x;
		return true;
	}
	return false;
}

uint64_t kmt_trace_buffer_bytes(const struct kmt_trace *t)
{
	char v[16];

	/* a reserve_mem= region's: memblock's, counted with it */
	if (kmt_trace_meta(t, "pool", v, sizeof(v)) && !strcmp(v, "region"))
		return 0;
	if (t->fmt.pool_subbufs)
		return (uint64_t)t->fmt.pool_subbufs * t->fmt.subbuf_size;
	return t->has_buffers ? t->buffer_bytes :
	       (uint64_t)t->fmt.nr_subbufs * t->fmt.subbuf_size * t->nr_cpus;
}

bool kmt_trace_meminfo(const struct kmt_trace *t, const char *name,
		       uint64_t *bytes)
{
	uint64_t kb;

	if (!text_value(t->meminfo, t->meminfo_len, name, ':', &kb) ||
	    kb > UINT64_MAX / 1024)
		return false;
	*bytes = kb * 1024;
	return true;
}

bool kmt_trace_vmstat(const struct kmt_trace *t, const char *name,
		      uint64_t *bytes)
{
	size_t n = strlen(name);
	uint64_t v;

	if (!text_value(t->vmstat, t->vmstat_len, name, ' ', &v))
		return false;
	if (n > 2 && !strcmp(name + n - 2, "_B")) {
		*bytes = v;
		return true;
	}
	if (t->fmt.page_shift > 20 || v > UINT64_MAX >> t->fmt.page_shift)
		return false;
	*bytes = v << t->fmt.page_shift;
	return true;
}

bool kmt_trace_pcp_free(const struct kmt_trace *t, uint64_t *bytes)
{
	static const char key[] = "count:";
	uint64_t pages = 0;
	size_t i = 0;

	if (!t->zoneinfo)
		return false;
	while (i < t->zoneinfo_len) {
		const char *l = t->zoneinfo + i;
		const char *nl = memchr(l, '\n', t->zoneinfo_len - i);
		size_t ll = nl ? (size_t)(nl - l) : t->zoneinfo_len - i, j = 0;
		uint64_t x = 0;

		i += ll + 1;
		while (j < ll && l[j] == ' ')
			j++;
		if (ll - j < sizeof(key) - 1 || memcmp(l + j, key, sizeof(key) - 1))
			continue;
		for (j += sizeof(key) - 1; j < ll && l[j] == ' '; j++)
			;
		for (; j < ll && l[j] >= '0' && l[j] <= '9'; j++) {
			if (x > (UINT64_MAX - 9) / 10)
				return false;
			x = x * 10 + (uint64_t)(l[j] - '0');
		}
		if (pages > UINT64_MAX - x)
			return false;
		pages += x;
	}
	if (t->fmt.page_shift > 20 || pages > UINT64_MAX >> t->fmt.page_shift)
		return false;
	*bytes = pages << t->fmt.page_shift;
	return true;
}

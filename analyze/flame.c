// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight flame: a trace's memory as stacks, for flame graph viewers.
 *
 * Each stack starts with what kind of memory it is, then goes from the
 * outermost frame the trace knows to the innermost:
 *
 *   slab;CALLER;WRAPPER...;[CACHE]        a slab allocation: its callsite,
 *                                         the wrappers it went through,
 *                                         its cache or kmalloc size
 *   pages;OUTER;...;INNER;[order-N]       a page allocation's recorded
 *                                         return addresses, without the
 *                                         page allocator's own frames
 *   memblock;CALLER                       a memblock reservation
 *   recorder;[buffers-before-the-trace]   the recorder's buffers the
 *                                         trace did not see allocated
 *
 * weighed by the bytes still held at the end of the range (the
 * footprint), or with --allocated by the bytes allocated within it.
 * The footprint counts memory once, in report --footprint's parts: the
 * slab's own pages (a stack through new_slab) are its objects', and
 * what they hold beyond their objects is slab;[free-room-in-slab-pages];
 * objects beyond the slab pages the stacks name are in pages that have
 * no stack (without kmemtrace.page_stack=N, all of them), and are taken
 * out of pages;[no-stack]; the recorder's buffers are recorder;[buffers],
 * not pages.  memblock's rows are its callers' reservations, some of
 * them outside the RAM (firmware tables), as report --memblock counts
 * them and report --footprint's memblock part.
 * Written as folded stacks (one "frame;frame;... bytes" line per stack,
 * what flamegraph.pl, inferno and speedscope read) or as a speedscope
 * JSON file (a sampled profile in bytes).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli/cli.h"
#include "../lib/vmlinux.h"
#include "memblock.h"
#include "report.h"
#include "slab.h"
#include "svg.h"

enum flame_format { FMT_FOLDED, FMT_SPEEDSCOPE };

struct flame_opts {
	const char *path, *out, *vmlinux;
	enum flame_format format;
	bool format_set;
	bool allocated;
	bool offsets;
	bool raw_ip;
	uint64_t start, end;
};

/* One stack and its weight. */
struct fstack {
	char *s;		/* "a;b;c" */
	uint64_t w;
};

struct flame {
	struct fstack *v;
	size_t nr, cap;
	const struct kmt_trace *t;
	const struct kmt_symtab *sym;
	const struct flame_opts *o;
	uint64_t total;
	uint64_t slab_pages;	/* held: the slab's pages, left to its objects */
	char title[512];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmemflight flame [<options>] <file.kmt>\n"
		"\n"
		"A trace's memory as stacks for flame graph viewers: by default what is\n"
		"still held at the end (the footprint), weighed in bytes.  Slab\n"
		"allocations by callsite, the wrappers they went through and their\n"
		"cache; page allocations by their recorded stack (kmemtrace.page_stack=N)\n"
		"and order; memblock reservations by caller.\n"
		"\n"
		"  -o, --output <file>       write there (replaced whole, never left half\n"
		"                            written); default: standard output\n"
		"  -f, --format <format>     folded (\"frame;frame bytes\" lines: flamegraph.pl,\n"
		"                            inferno, speedscope) or speedscope (its JSON);\n"
		"                            default: speedscope for a .json output, else folded\n"
		"      --allocated           weigh by the bytes allocated in the range, not\n"
		"                            those still held at its end\n"
		"      --time <start>,<end>  only the events in this range (s, ms, us, ns;\n"
		"                            either may be left out)\n"
		"      --at <time>           the same as --time ,<time>: the footprint then\n"
		"      --offsets             frames as function+offset, not the function\n"
		"      --vmlinux <file>      frames named from the recording kernel's image\n"
		"      --raw-ip              frames as addresses\n"
		"  -h, --help                this help\n");
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static int parse_args(int argc, char **argv, struct flame_opts *o)
{
	enum { OPT_TIME = 256, OPT_AT, OPT_ALLOCATED, OPT_OFFSETS, OPT_VMLINUX,
	       OPT_RAW_IP };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "allocated", no_argument, NULL, OPT_ALLOCATED },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "at", required_argument, NULL, OPT_AT },
		{ "offsets", no_argument, NULL, OPT_OFFSETS },
		{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
		{ "raw-ip", no_argument, NULL, OPT_RAW_IP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int range_given = 0;
	int c;

	memset(o, 0, sizeof(*o));
	o->end = UINT64_MAX;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return kmf_usage_error("option '-o' wants a file name ('-' for standard output)");
			o->out = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "folded"))
				o->format = FMT_FOLDED;
			else if (!strcmp(optarg, "speedscope"))
				o->format = FMT_SPEEDSCOPE;
			else
				return kmf_usage_error("--format is folded or speedscope, not '%s'",
						       optarg);
			o->format_set = true;
			break;
		case OPT_ALLOCATED:
			o->allocated = true;
			break;
		case OPT_TIME:
		case OPT_AT:
			if (kmf_time_option(c == OPT_AT, optarg, &range_given,
					    &o->start, &o->end))
				return KMF_EXIT_USAGE;
			break;
		case OPT_OFFSETS:
			o->offsets = true;
			break;
		case OPT_VMLINUX:
			o->vmlinux = optarg;
			break;
		case OPT_RAW_IP:
			o->raw_ip = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return kmf_option_error(longopts, "o:f:h", optopt,
						argv[optind - 1], NULL);
		}
	}
	if (o->offsets && o->raw_ip)
		return kmf_usage_error("--offsets and --raw-ip: a frame is a function+offset or an address, not both");
	if (optind == argc)
		return kmf_usage_error("missing <file> to read");
	if (argc - optind > 1)
		return kmf_usage_error("one <file> only");
	o->path = argv[optind];
	if (!o->format_set && o->out && ends_with(o->out, ".json"))
		o->format = FMT_SPEEDSCOPE;
	return 0;
}

/* ---- the stacks ------------------------------------------------------ */

/* A growing string. */
struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

/* A frame: ';' separates frames and a blank the weight, so neither is in one. */
static void sb_frame(struct sbuf *b, const char *name)
{
	char c;

	if (b->len)
		sb_add(b, ";", 1);
	for (; *name; name++) {
		c = *name == ';' || *name == ' ' || *name == '\t' || *name == '\n' ?
		    '_' : *name;
		sb_add(b, &c, 1);
	}
}

/* A frame's name: the function, or with --offsets function+offset. */
static void frame_name(const struct flame *fl, uint64_t addr, char *buf, size_t size)
{
	const struct kmt_symtab *st = fl->sym;
	const struct kmt_sym *s;
	uint64_t a = addr - (uint64_t)st->slide;

	if (fl->o->offsets || fl->o->raw_ip) {
		kmt_symtab_format(st, addr, fl->o->raw_ip, buf, size);
		return;
	}
	s = kmt_symtab_find(st, a);
	if (!s || a - s->addr >= (1u << 20))
		snprintf(buf, size, "0x%" PRIx64, addr);
	else
		snprintf(buf, size, "%.*s", (int)s->name_len, s->name);
}

static int push(struct flame *fl, struct sbuf *b, uint64_t w)
{
	if (b->oom) {
		free(b->p);
		return -ENOMEM;
	}
	if (!w) {
		free(b->p);
		return 0;
	}
	if (fl->nr == fl->cap) {
		size_t cap = fl->cap ? fl->cap * 2 : 256;
		struct fstack *v = realloc(fl->v, cap * sizeof(*v));

		if (!v) {
			free(b->p);
			return -ENOMEM;
		}
		fl->v = v;
		fl->cap = cap;
	}
	fl->v[fl->nr].s = b->p;
	fl->v[fl->nr].w = w;
	fl->nr++;
	fl->total += w;
	return 0;
}

/* The return addresses of a TEXT varint stack, innermost first. */
static size_t decode(const struct kmt_trace *t, const uint8_t *p, size_t len,
		     uint64_t *out, size_t max)
{
	const uint8_t *end = p + len;
	unsigned int n;
	size_t nr = 0;
	uint64_t v;

	while (p < end && nr < max && (n = kmt_get_uvar(p, end, &v)) != 0) {
		p += n;
		out[nr++] = t->fmt.text_base + (uint64_t)kmt_unzigzag(v);
	}
	return nr;
}

static int slab_stack(struct flame *fl, const struct kmt_stack_row *r)
{
	struct sbuf b = { 0 };
	uint64_t frames[64];
	char name[300];
	size_t n, i;

	sb_frame(&b, "slab");
	frame_name(fl, r->site, name, sizeof(name));
	sb_frame(&b, name);
	/* the wrappers' return addresses, innermost first, the last the callsite */
	n = r->stack_len ? decode(fl->t, r->stack, r->stack_len, frames, 64) : 0;
	for (i = n > 0 ? n - 1 : 0; i-- > 0;) {
		frame_name(fl, frames[i], name, sizeof(name));
		sb_frame(&b, name);
	}
	if (r->via) {
		frame_name(fl, r->via, name, sizeof(name));
		sb_frame(&b, name);
	}
	name[0] = '[';
	kmt_cache_name(fl->t, r->cache, r->size, name + 1, sizeof(name) - 2);
	strcat(name, "]");
	sb_frame(&b, name);
	return push(fl, &b, fl->o->allocated ? r->alloc : r->held);
}

/* The slab allocator's way to the page allocator (6.12's names). */
static bool slab_frame(const char *name, size_t len)
{
	static const char *const names[] = {
		"new_slab", "allocate_slab", "alloc_slab_page", "___slab_alloc",
	};
	const char *dot = memchr(name, '.', len);
	size_t i;

	if (dot)	/* new_slab.constprop.0: new_slab */
		len = (size_t)(dot - name);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(name, names[i], len))
			return true;
	return false;
}

static int page_stack(struct flame *fl, const struct kmt_stack_row *r)
{
	struct sbuf b = { 0 };
	uint64_t frames[64], held;
	char name[300];
	size_t n, i, named = 0;

	sb_frame(&b, "pages");
	/* the recorder's buffers are recorder;[buffers] */
	held = r->held > r->held_buffer ? r->held - r->held_buffer : 0;
	n = r->stack_len ? decode(fl->t, r->stack, r->stack_len, frames, 64) : 0;
	if (!n)
		sb_frame(&b, "[no-stack]");
	/* the footprint: a slab page is its objects' */
	for (i = 0; i < n && !fl->o->allocated; i++) {
		const struct kmt_sym *s;
		uint64_t a = frames[i] - (uint64_t)fl->sym->slide;

		s = kmt_symtab_find(fl->sym, a);
		if (s && a - s->addr < (1u << 20) && slab_frame(s->name, s->name_len)) {
			fl->slab_pages += held;
			free(b.p);
			return 0;
		}
	}
	for (i = n; i-- > 0;) {
		const struct kmt_sym *s;
		uint64_t a = frames[i] - (uint64_t)fl->sym->slide;

		s = kmt_symtab_find(fl->sym, a);
		if (s && a - s->addr < (1u << 20) &&
		    kmt_page_frame_internal(s->name, s->name_len))
			continue;	/* the page allocator's own */
		frame_name(fl, frames[i], name, sizeof(name));
		sb_frame(&b, name);
		named++;
	}
	if (n && !named)	/* every frame the allocator's */
		sb_frame(&b, "[page-allocator]");
	snprintf(name, sizeof(name), "[order-%u]", r->size);
	sb_frame(&b, name);
	return push(fl, &b, fl->o->allocated ? r->alloc : held);
}

static int named_stack(struct flame *fl, const char *kind, const char *leaf,
		       uint64_t w)
{
	struct sbuf b = { 0 };

	sb_frame(&b, kind);
	sb_frame(&b, leaf);
	return push(fl, &b, w);
}

static int cmp_stack(const void *pa, const void *pb)
{
	const struct fstack *a = pa, *b = pb;

	return strcmp(a->s, b->s);
}

/* Sort by stack and add up the stacks that are one once named. */
static void merge(struct flame *fl)
{
	size_t i, n = 0;

	qsort(fl->v, fl->nr, sizeof(*fl->v), cmp_stack);
	for (i = 0; i < fl->nr; i++) {
		if (n && !strcmp(fl->v[n - 1].s, fl->v[i].s)) {
			fl->v[n - 1].w += fl->v[i].w;
			free(fl->v[i].s);
			continue;
		}
		fl->v[n++] = fl->v[i];
	}
	fl->nr = n;
}

/*
 * Take @bytes out of the pages;[no-stack] stacks, the smallest orders
 * first (slabs are of low orders), dropping those it empties.
 */
static void take_from_nostack(struct flame *fl, uint64_t bytes)
{
	static const char nostack[] = "pages;[no-stack];";
	size_t i, n = 0;

	for (i = 0; i < fl->nr && bytes; i++) {
		uint64_t d;

		if (strncmp(fl->v[i].s, nostack, sizeof(nostack) - 1))
			continue;
		d = fl->v[i].w < bytes ? fl->v[i].w : bytes;
		fl->v[i].w -= d;
		bytes -= d;
	}
	for (i = 0; i < fl->nr; i++) {
		if (!fl->v[i].w) {
			free(fl->v[i].s);
			continue;
		}
		fl->v[n++] = fl->v[i];
	}
	fl->nr = n;
}

static int collect(struct flame *fl, const struct kmt_slab *s,
		   const struct kmt_memblock *mb)
{
	const struct kmt_trace *t = fl->t;
	char name[300];
	size_t i;
	int ret = 0;

	for (i = 0; i < s->nr_stack_rows && !ret; i++)
		ret = s->stack_rows[i].page ? page_stack(fl, &s->stack_rows[i]) :
		      slab_stack(fl, &s->stack_rows[i]);
	/* memblock and the buffers are the boot's: only from its start */
	for (i = 0; mb && i < mb->nr_callers && !ret; i++) {
		frame_name(fl, mb->callers[i].call_site, name, sizeof(name));
		ret = named_stack(fl, "memblock", name, fl->o->allocated ?
				  mb->callers[i].reserved : mb->callers[i].held);
	}
	if (!ret && fl->slab_pages > s->live_bytes)
		ret = named_stack(fl, "slab", "[free-room-in-slab-pages]",
				  fl->slab_pages - s->live_bytes);
	if (!ret && mb && !fl->o->allocated)
		ret = named_stack(fl, "recorder", "[buffers]",
				  kmt_trace_buffer_bytes(t));
	if (!ret)
		merge(fl);
	/* objects beyond the slab pages named: in pages without a stack */
	if (!ret && !fl->o->allocated && s->live_bytes > fl->slab_pages)
		take_from_nostack(fl, s->live_bytes - fl->slab_pages);
	return ret;
}

/* ---- the formats ----------------------------------------------------- */

static int write_folded(FILE *f, void *arg)
{
	const struct flame *fl = arg;
	size_t i;

	for (i = 0; i < fl->nr; i++)
		fprintf(f, "%s %" PRIu64 "\n", fl->v[i].s, fl->v[i].w);
	return ferror(f) ? -EIO : 0;
}

static int cmp_str(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/*
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * the frames once, then one sampled profile whose samples are stacks of
 * frame indices, root first, weighed in bytes.
 */
static int write_speedscope(FILE *f, void *arg)
{
	const struct flame *fl = arg;
	char **names = NULL, *p, *q;
	size_t nn = 0, cap = 0, i, k;
	bool first = true;
	int ret = 0;

	/* every frame's name, sorted and unique: its index is its place */
	for (i = 0; i < fl->nr && !ret; i++) {
		for (p = fl->v[i].s; p; p = q ? q + 1 : NULL) {
			q = strchr(p, ';');
			if (nn == cap) {
				char **n = realloc(names, (cap = cap ? cap * 2 : 256) *
						   sizeof(*n));

				if (!n) {
					ret = -ENOMEM;
					break;
				}
				names = n;
			}
			names[nn] = q ? strndup(p, (size_t)(q - p)) : strdup(p);
			if (!names[nn]) {
				ret = -ENOMEM;
				break;
			}
			nn++;
		}
	}
	if (!ret) {
		qsort(names, nn, sizeof(*names), cmp_str);
		for (i = k = 0; i < nn; i++) {
			if (k && !strcmp(names[k - 1], names[i])) {
				free(names[i]);
				continue;
			}
			names[k++] = names[i];
		}
		nn = k;
		fprintf(f, "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n");
		fprintf(f, " \"exporter\": \"kmemflight %s\", \"name\": ", KMT_VERSION);
		kmt_json_str(f, fl->title, strlen(fl->title));
		fprintf(f, ", \"activeProfileIndex\": 0,\n \"shared\": {\"frames\": [");
		for (i = 0; i < nn; i++) {
			fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
			kmt_json_str(f, names[i], strlen(names[i]));
			fputc('}', f);
		}
		fprintf(f, "]},\n \"profiles\": [{\"type\": \"sampled\", \"name\": ");
		kmt_json_str(f, fl->title, strlen(fl->title));
		fprintf(f, ", \"unit\": \"bytes\", \"startValue\": 0, \"endValue\": %" PRIu64
			",\n  \"samples\": [", fl->total);
		for (i = 0; i < fl->nr; i++) {
			fprintf(f, "%s\n   [", i ? "," : "");
			first = true;
			for (p = fl->v[i].s; p; p = q ? q + 1 : NULL) {
				char **hit, *key;

				q = strchr(p, ';');
				key = q ? strndup(p, (size_t)(q - p)) : strdup(p);
				if (!key) {
					ret = -ENOMEM;
					break;
				}
				hit = bsearch(&key, names, nn, sizeof(*names), cmp_str);
				free(key);
				fprintf(f, "%s%zu", first ? "" : ", ",
					hit ? (size_t)(hit - names) : 0);
				first = false;
			}
			fputc(']', f);
		}
		fprintf(f, "],\n  \"weights\": [");
		for (i = 0; i < fl->nr; i++)
			fprintf(f, "%s%" PRIu64, i ? ", " : "", fl->v[i].w);
		fprintf(f, "]}]}\n");
	}
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (!ret && ferror(f))
		ret = -EIO;
	return ret;
}

int cmd_flame(int argc, char **argv)
{
	struct flame_opts o;
	struct flame fl;
	struct kmt_trace t;
	struct kmt_slab s;
	struct kmt_memblock mb = { 0 };
	struct kmt_symtab st = { 0 };
	struct kmt_vmlinux vm = { .fd = -1 };
	struct kmt_err err = { "" };
	char t0[40], t1[40];
	size_t i;
	int ret, status = KMF_EXIT_FAIL;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? KMF_EXIT_OK : ret;
	memset(&fl, 0, sizeof(fl));
	memset(&s, 0, sizeof(s));
	if (kmt_trace_open_flags(o.path, KMT_OPEN_TRUNCATED, &t, &err)) {
		kmf_error("%s", err.msg);
		return KMF_EXIT_FAIL;
	}
	kmf_note_coverage(&t);
	if (kmf_symbols(&t, o.path, o.vmlinux, o.raw_ip, &st, &vm, &fl.sym))
		goto out;
	ret = kmt_slab_analyze_stacks(&t, o.start, o.end, fl.sym, &s, &err);
	if (ret) {
		kmf_error("%s: %s", o.path, err.msg);
		goto out;
	}
	if (!s.nr_events) {
		kmf_error("no event of %s falls within --time: its events run from %" PRIu64
			  ".%09" PRIu64 " s to %" PRIu64 ".%09" PRIu64 " s", o.path,
			  s.trace_first_ts / 1000000000u, s.trace_first_ts % 1000000000u,
			  s.trace_last_ts / 1000000000u, s.trace_last_ts % 1000000000u);
		goto out;
	}
	if (s.lost)
		kmf_warn("%" PRIu64 " events were lost while recording: the stacks are short",
			 s.lost);
	if (!s.pg_with_stack && s.pg_requests)
		kmf_warn("%s has no page stacks: its pages are one stack (boot with kmemtrace.page_stack=N)",
			 o.path);
	if (!o.start && kmt_memblock_analyze(&t, o.end, &mb, &err)) {
		kmf_error("%s: %s", o.path, err.msg);
		goto out;
	}
	fl.t = &t;
	fl.o = &o;
	snprintf(t0, sizeof(t0), "%" PRIu64 ".%09" PRIu64 " s", s.first_ts / 1000000000u,
		 s.first_ts % 1000000000u);
	snprintf(t1, sizeof(t1), "%" PRIu64 ".%09" PRIu64 " s", s.last_ts / 1000000000u,
		 s.last_ts % 1000000000u);
	snprintf(fl.title, sizeof(fl.title), "%s: %s %s to %s", o.path,
		 o.allocated ? "bytes allocated from" : "bytes held at the end of",
		 t0, t1);
	if (collect(&fl, &s, o.start ? NULL : &mb)) {
		kmf_error("out of memory");
		goto out;
	}
	if (!fl.nr) {
		kmf_error("%s: nothing %s in the range: no stack to write", o.path,
			  o.allocated ? "allocated" : "held");
		goto out;
	}
	if (kmt_out_write(o.out, o.format == FMT_SPEEDSCOPE ? write_speedscope :
			  write_folded, &fl, &err))
		kmf_error("%s", err.msg);
	else
		status = KMF_EXIT_OK;
out:
	for (i = 0; i < fl.nr; i++)
		free(fl.v[i].s);
	free(fl.v);
	kmt_memblock_free(&mb);
	kmt_slab_free(&s);
	kmt_vmlinux_close(&vm);
	kmt_symtab_free(&st);
	if (kmf_warn_cut(o.path, &t))
		status = KMF_EXIT_FAIL;
	kmt_trace_close(&t);
	return status;
}

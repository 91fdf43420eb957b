// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is a whole .kmt file, or one cut short.
 * Open it as dump does (KMT_OPEN_TRUNCATED); if the headers pass,
 * validate every record, walk the time-ordered merge, look things up
 * (caches, nodes, GFP names), load its kallsyms and pair its latency
 * events.  Beyond the sanitizers, it checks that the validating count
 * and the merge agree on every trace, and that the latency tallies add
 * up.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../analyze/latency.h"
#include "../../analyze/memblock.h"
#include "../../analyze/report.h"
#include "../../analyze/slab.h"

/* the trace open: its decompressed sections are inside() too */
static const struct kmt_trace *cur;

static bool within(const uint8_t *q, size_t n, const uint8_t *data, size_t size)
{
	return q >= data && q <= data + size && n <= (size_t)(data + size - q);
}

static bool inside(const void *p, size_t n, const uint8_t *data, size_t size)
{
	unsigned int i;

	if (within(p, n, data, size))
		return true;
	for (i = 0; cur && i < cur->nr_owned; i++)
		if (within(p, n, cur->owned[i].p, cur->owned[i].len))
			return true;
	return false;
}

/* Every episode and unpaired event is counted once, in its kind. */
static void latency(const struct kmt_trace *t, const struct kmt_symtab *st)
{
	uint64_t n = 0, unp = 0, hist;
	struct kmt_latency l;
	struct kmt_err err;
	unsigned int k, b;
	size_t i;

	if (kmt_latency_analyze(t, st, 1000, 0, UINT64_MAX, &l, &err))
		return;
	for (k = 0; k < KMT_LAT_KINDS; k++) {
		CHECK(l.kind[k].above <= l.kind[k].count);
		CHECK(l.kind[k].max_ns <= l.kind[k].total_ns);
		for (b = 0, hist = 0; b < KMT_LAT_BUCKETS; b++)
			hist += l.kind[k].hist[b];
		CHECK(hist == l.kind[k].count);
		n += l.kind[k].count;
		unp += l.kind[k].unpaired;
	}
	CHECK(n == l.nr_ep);
	CHECK(unp == l.nr_unp);
	for (i = 0; i < l.nr_ep; i++)
		CHECK(l.ep[i].kind != KMT_LAT_SHRINK || l.ep[i].shrinker < l.nr_shr);
	kmt_latency_sort(&l);
	for (i = 1; i < l.nr_ep; i++)
		CHECK(l.ep[i - 1].ns >= l.ep[i].ns);
	kmt_latency_free(&l);
}

/* The callers' held and freed bytes add up to the totals. */
static void memblock(const struct kmt_trace *t)
{
	uint64_t held = 0, reserved = 0, freed = 0;
	struct kmt_memblock mb;
	struct kmt_err err;
	size_t i;

	if (kmt_memblock_analyze(t, UINT64_MAX, &mb, &err))
		return;
	for (i = 0; i < mb.nr_callers; i++) {
		CHECK(mb.callers[i].held + mb.callers[i].freed ==
		      mb.callers[i].reserved);
		held += mb.callers[i].held;
		reserved += mb.callers[i].reserved;
		freed += mb.callers[i].freed;
	}
	CHECK(held == mb.held && reserved == mb.reserved);
	CHECK(held + freed == reserved);
	for (i = 1; i < mb.res_set.nr; i++)
		CHECK(mb.res_set.r[i - 1].end <= mb.res_set.r[i].start);
	kmt_memblock_free(&mb);
}

/*
 * Every event belongs to one process row and one unit row, and every
 * byte kept at the end to one of each: the columns add up to the totals.
 */
static void who(const struct kmt_trace *t, const uint8_t *data, size_t size)
{
	const struct kmt_who_row *tab[2];
	struct kmt_slab s;
	struct kmt_err err;
	size_t nr[2], i;
	unsigned int k;

	if (kmt_slab_analyze(t, &s, &err))
		return;
	tab[0] = s.by_comm;
	tab[1] = s.by_unit;
	nr[0] = s.nr_by_comm;
	nr[1] = s.nr_by_unit;
	for (k = 0; s.has_tasks && k < 2; k++) {
		uint64_t ev = 0, slab = 0, page = 0;

		for (i = 0; i < nr[k]; i++) {
			CHECK(tab[k][i].name_len > 0);
			ev += tab[k][i].st.events;
			slab += tab[k][i].st.slab_retained;
			page += tab[k][i].st.page_retained;
			if (i)
				CHECK(tab[k][i - 1].st.slab_retained + tab[k][i - 1].st.page_retained >=
				      tab[k][i].st.slab_retained + tab[k][i].st.page_retained);
		}
		CHECK(ev == s.nr_events);
		CHECK(slab == s.live_bytes);
		CHECK(page == s.pg_live_bytes);
	}
	/* a name is in the trace, or one of the fixed rows' (inherited) */
	for (i = 0; i < s.nr_whos; i++) {
		const struct kmt_who *w = &s.whos[i];
		bool comm = inside(w->comm, w->comm_len, data, size);
		bool unit = inside(w->unit, w->unit_len, data, size);
		size_t j;

		for (j = 0; j < KMT_WHO_FIXED && j < s.nr_whos; j++) {
			comm |= w->comm == s.whos[j].comm && w->comm_len == s.whos[j].comm_len;
			unit |= w->unit == s.whos[j].unit && w->unit_len == s.whos[j].unit_len;
		}
		CHECK(comm && unit);
	}
	kmt_slab_free(&s);
}

static void symbols(const struct kmt_trace *t, const uint64_t *sites,
		    unsigned int nr_sites)
{
	struct kmt_symtab st;
	char buf[64], tiny[4];
	unsigned int i;

	if (kmt_symtab_load(&st, t->kallsyms, t->kallsyms_len))
		return;
	for (i = 0; i < st.nr; i++) {
		CHECK(st.syms[i].name_len > 0);
		CHECK(inside(st.syms[i].name, st.syms[i].name_len,
			     (const uint8_t *)t->kallsyms, t->kallsyms_len));
		if (i)
			CHECK(st.syms[i - 1].addr <= st.syms[i].addr);
	}
	for (i = 0; i < nr_sites; i++) {
		kmt_symtab_format(&st, sites[i], false, buf, sizeof(buf));
		kmt_symtab_format(&st, sites[i], true, tiny, sizeof(tiny));
	}
	latency(t, &st);
	memblock(t);
	{
		uint64_t v;

		/* the kernel's totals, any text */
		(void)kmt_trace_meminfo(t, "MemFree", &v);
		(void)kmt_trace_vmstat(t, "nr_slab_unreclaimable_B", &v);
		(void)kmt_trace_vmstat(t, "nr_free_pages", &v);
		(void)kmt_trace_pcp_free(t, &v);
	}
	kmt_symtab_free(&st);
}

/*
 * A flight-recorder file: the window lies within the CPUs' windows, and
 * the trigger's caller is one of its stack's frames, read in bounds.
 */
static void window(const struct kmt_trace *t, const uint8_t *data, size_t size)
{
	struct kmt_window w;
	struct kmt_err err;
	uint64_t before;

	if (!t->flight.present) {
		CHECK(kmt_window_find(t, 0, &w, &err) == -EINVAL);
		return;
	}
	for (before = 0; before <= 1000; before += 1000) {
		if (kmt_window_find(t, before, &w, &err))
			return;
		CHECK(w.first <= w.complete);
		CHECK(before || w.start == w.complete);
		if (w.have_trig) {
			CHECK(w.trig.type == KMT_EV_MARK && w.trig.mark == KMT_MARK_FROZEN);
			if (w.trig.has & KMT_HAS(KMT_F_STACK))
				CHECK(inside(w.trig.stack, w.trig.stack_len, data, size));
			kmt_trigger_caller(t, NULL, w.trig.stack, w.trig.stack_len);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmt_trace t;
	struct kmt_err err;
	struct kmt_merge m;
	struct kmt_event ev;
	uint64_t *per_cpu, total = 0, seen = 0, sites[32];
	unsigned int i, nr_sites = 0;
	char buf[32];
	int count_ret, ret, strict;

	strict = kmt_trace_open_mem(data, size, &t, &err);
	if (!strict)
		kmt_trace_close(&t);
	/* what dump and report open: a cut file too, in part */
	if (kmt_trace_open_mem_flags(data, size, KMT_OPEN_TRUNCATED, &t, &err)) {
		CHECK(strict);
		return 0;
	}
	/* a whole file opens the same either way, a cut one only so */
	CHECK(!strict == !t.cut.file_size);
	CHECK(kmt_trace_cut_text(&t, buf, sizeof(buf)) == !!t.cut.file_size);
	CHECK(!t.cut.file_size || (t.cut.file_size > size &&
				   t.cut.sec <= t.cut.nr_sections));
	cur = &t;
	CHECK(t.nr_cpus > 0);
	CHECK(t.fmt.magic == KMT_FORMAT_MAGIC);
	for (i = 0; i < t.nr_cpus; i++)
		CHECK(inside(t.cpus[i].data, t.cpus[i].size, data, size));
	for (i = 1; i < t.nr_caches; i++)
		CHECK(t.caches[i - 1].id <= t.caches[i].id);
	for (i = 0; i < t.nr_caches; i++)
		CHECK(kmt_trace_cache(&t, t.caches[i].id) != NULL);

	per_cpu = calloc(t.nr_cpus, sizeof(*per_cpu));
	if (!per_cpu) {
		kmt_trace_close(&t);
		cur = NULL;
		return 0;
	}
	count_ret = kmt_trace_count(&t, per_cpu, &err);
	CHECK(count_ret == 0 || count_ret == -EBADMSG);
	for (i = 0; i < t.nr_cpus; i++)
		total += per_cpu[i];

	ret = kmt_merge_init(&m, &t, &err);
	if (!ret) {
		while ((ret = kmt_merge_next(&m, &ev, &err)) > 0) {
			seen++;
			CHECK(ev.type <= KMT_EV_MAX && t.layout[ev.type].present);
			CHECK(ev.ctx <= KMT_CTX_NMI);
			if (ev.has & KMT_HAS(KMT_F_NAME))
				CHECK(inside(ev.name, ev.name_len, data, size));
			if ((ev.has & KMT_HAS(KMT_F_CALL_SITE)) && nr_sites < 32)
				sites[nr_sites++] = ev.call_site;
			kmt_trace_pfn_node(&t, ev.pfn1);
			kmt_trace_cache(&t, ev.cache);
			if (ev.has & KMT_HAS(KMT_F_GFP)) {
				char gfp[48];

				CHECK(kmt_gfp_format(&t, ev.gfp, gfp, sizeof(gfp)) <
				      sizeof(gfp));
				CHECK(strlen(gfp) < sizeof(gfp));
			}
		}
		kmt_merge_free(&m);
	}
	/* the count and the merge read the same records */
	if (count_ret == 0) {
		CHECK(ret == 0);
		CHECK(seen == total);
	} else {
		CHECK(ret == -EBADMSG);
	}
	free(per_cpu);

	kmt_trace_meta(&t, "release", buf, sizeof(buf));
	kmt_trace_meta(&t, "", buf, 1);
	symbols(&t, sites, nr_sites);
	who(&t, data, size);
	window(&t, data, size);
	kmt_trace_close(&t);
	cur = NULL;
	return 0;
}

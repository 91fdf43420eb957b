// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the callers behind wrappers.
 *
 * An allocation made through an out-of-line wrapper (kvmalloc(),
 * kstrdup_const(), kasprintf(), mempool_alloc_slab() ...) has the wrapper
 * as its call site.  The recorder looks the wrappers up in kallsyms when
 * it starts, keeps a bit per 4 KiB of kernel text to spot their call
 * sites, and records those allocations with the return addresses out to
 * the first frame outside every wrapper.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/bitmap.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>

#include "internal.h"

/*
 * Out-of-line functions that allocate for their caller without passing
 * the caller's address to the allocator, so the kmem tracepoints name
 * them as the call site.  An allocation whose call site is inside one is
 * recorded with the return addresses after it, out to the first frame
 * outside them all.  A name the kernel does not have (inlined, renamed,
 * configured out) is skipped.
 */
static const char *const kmt_wrapper_names[] = {
	"__kvmalloc_node_noprof", "kvrealloc_noprof", "kvmemdup",
	"kmemdup_array", "kstrdup_const", "kvasprintf", "kvasprintf_const",
	"kasprintf", "kobject_set_name_vargs", "kobject_set_name",
	"dev_set_name", "memdup_user", "vmemdup_user", "memdup_user_nul",
	"strndup_user", "mempool_alloc_slab", "mempool_kmalloc",
	"mempool_init_node", "mempool_init_noprof",
	"mempool_create_node_noprof", "kobject_add", "kobject_init_and_add",
	"devm_kstrdup",
	"devm_kstrdup_const", "devm_kvasprintf", "devm_kasprintf",
	"devm_kmemdup", "kmalloc_reserve",
};

#define KMT_MAX_WRAPPERS	32
/* Frames kept after the call site, and frames looked at to find it. */
#define KMT_VIA_DEPTH		6
#define KMT_VIA_SAVE		24

struct kmt_wrapper {
	unsigned long	start;
	unsigned long	size;
	const char	*name;
};

static struct kmt_wrapper kmt_wrappers[KMT_MAX_WRAPPERS] __read_mostly;
/* Set once, after kmt_wrappers[] is filled in. */
static unsigned int kmt_nr_wrappers __read_mostly;

/* Until the wrappers are found: mask 0 and a word of zeroes, no wrapper. */
static union {
	struct kmt_wrap_filter	f;
	unsigned long		words[2];
} kmt_no_wrappers;

struct kmt_wrap_filter *kmt_wrap_filter __read_mostly = &kmt_no_wrappers.f;

/* Wrappers found so far. */
static unsigned int kmt_wrappers_found(void)
{
	/* Their table before their count: pairs with kmt_find_wrappers(). */
	return smp_load_acquire(&kmt_nr_wrappers);
}

static bool kmt_in_wrapper(unsigned long addr)
{
	unsigned int i, n = kmt_wrappers_found();

	for (i = 0; i < n; i++)
		if (addr - kmt_wrappers[i].start < kmt_wrappers[i].size)
			return true;
	return false;
}

/* Under kmt_mutex, or at boot: look the wrappers up once. */
void kmt_find_wrappers(void)
{
	unsigned long addr, size, off, bits, first, last;
	struct kmt_wrap_filter *f;
	unsigned int i, n = 0;

	if (kmt_wrappers_found())
		return;
	for (i = 0; i < ARRAY_SIZE(kmt_wrapper_names); i++) {
		addr = kallsyms_lookup_name(kmt_wrapper_names[i]);
		if (!addr || addr < (unsigned long)_stext ||
		    addr >= (unsigned long)_etext ||
		    !kallsyms_lookup_size_offset(addr, &size, &off) || off ||
		    n == KMT_MAX_WRAPPERS)
			continue;
		kmt_wrappers[n].start = addr;
		kmt_wrappers[n].size = size;
		kmt_wrappers[n].name = kmt_wrapper_names[i];
		n++;
	}
	if (!n)
		return;
	bits = roundup_pow_of_two(DIV_ROUND_UP((unsigned long)(_etext - _stext),
					       1UL << KMT_WRAP_SHIFT));
	f = kzalloc(struct_size(f, bits, BITS_TO_LONGS(bits)), GFP_KERNEL);
	if (!f)
		return;
	kmt_early_object(f, struct_size(f, bits, BITS_TO_LONGS(bits)),
			 GFP_KERNEL | __GFP_ZERO, NUMA_NO_NODE);
	f->mask = bits - 1;
	for (i = 0; i < n; i++) {
		first = kmt_text_off(kmt_wrappers[i].start) >> KMT_WRAP_SHIFT;
		last = kmt_text_off(kmt_wrappers[i].start +
				    kmt_wrappers[i].size - 1) >> KMT_WRAP_SHIFT;
		bitmap_set(f->bits, first, last - first + 1);
	}
	/*
	 * The table, then the filter that sends the probes to it: each
	 * whole before it is published, so that no ordering of the probes
	 * (or of a CPU's loads) combines a new mask with an old bitmap, or
	 * a count with entries not yet written.
	 *
	 * The table before the count: pairs with kmt_wrappers_found().
	 */
	smp_store_release(&kmt_nr_wrappers, n);
	/* The filter whole before it is seen: kmt_maybe_wrapped() loads it. */
	smp_store_release(&kmt_wrap_filter, f);
}

struct kmt_via_walk {
	unsigned long call_site;
	u8 *p;
	unsigned int seen;	/* frames walked to find @call_site */
	unsigned int kept;	/* frames written after it */
	bool found;
};

/*
 * One return address: skip to @call_site, then write the frames after
 * it and stop at the first outside every wrapper, so that the unwinder
 * goes no deeper than the record needs.
 */
static bool kmt_via_frame(void *cookie, unsigned long addr)
{
	struct kmt_via_walk *w = cookie;

	if (!w->found) {
		w->found = addr == w->call_site;
		return ++w->seen < KMT_VIA_SAVE;
	}
	w->p = kmt_put_uvar(w->p, kmt_zigzag(kmt_text_off(addr)));
	return ++w->kept < KMT_VIA_DEPTH && kmt_in_wrapper(addr);
}

/*
 * The return addresses after @call_site, out to the first outside every
 * wrapper, as TEXT varints into @out; none when @call_site is not on the
 * stack (a tail call, an unwinder that cannot see it).
 */
static noinline size_t kmt_via_stack(unsigned long call_site, u8 *out)
{
	struct kmt_via_walk w = { .call_site = call_site, .p = out };
#ifdef CONFIG_ARCH_STACKWALK
	arch_stack_walk(kmt_via_frame, &w, current, NULL);
#else
	unsigned long entries[KMT_VIA_SAVE + KMT_VIA_DEPTH];
	unsigned int nr, i;

	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 1);
	for (i = 0; i < nr && kmt_via_frame(&w, entries[i]); i++)
		;
#endif
	return w.p - out;
}

/*
 * An allocation the fast path does not write: a value too wide for its
 * slot, or a call site inside a wrapper (KMT_EV_KMALLOC_VIA,
 * KMT_EV_CACHE_ALLOC_VIA).  @v[0] is the call site.
 */
noinline void kmt_record_alloc(u8 type, const u8 *enc, const u64 *v,
			       unsigned int n)
{
	u8 stack[KMT_VIA_DEPTH * 10];
	struct kmt_str str = { stack, 0 };

	if (kmt_in_wrapper(v[0]))
		str.len = kmt_via_stack(v[0], stack);
	if (!str.len) {
		kmt_record_fields(type, enc, v, n, NULL, 0);
		return;
	}
	type = type == KMT_EV_KMALLOC ? KMT_EV_KMALLOC_VIA : KMT_EV_CACHE_ALLOC_VIA;
	kmt_record_fields(type, enc, v, n, &str, 1);
}

static const u8 kmt_enc_text_range[] = {
	KMT_ENC_U8X, KMT_ENC_TEXT32, KMT_ENC_U32X,
};

void kmt_emit_wrappers(void)
{
	unsigned int i, n = kmt_wrappers_found();

	for (i = 0; i < n; i++) {
		u64 v[3] = { KMT_TEXT_WRAPPER, kmt_wrappers[i].start,
			     kmt_wrappers[i].size };
		struct kmt_str name = { kmt_wrappers[i].name,
					strlen(kmt_wrappers[i].name) };

		kmt_record_fields(KMT_EV_TEXT_RANGE, kmt_enc_text_range, v, 3,
				  &name, 1);
	}
}

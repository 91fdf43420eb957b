// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the callers behind wrappers.
 *
 * An allocation made through an out-of-line wrapper (kvmalloc(),
 * kstrdup_const(), kasprintf(), mempool_alloc_slab() ...) has the wrapper
 * as its call site.  The recorder finds the wrappers' extents in kallsyms
 * when it starts, keeps a bit per 4 KiB of kernel text to spot their call
 * sites, and records those allocations with the return addresses out to
 * the first frame outside every wrapper.
 *
 * Those return addresses come from the wrappers themselves: while the
 * kmem probes are attached, kmemtrace_wrapper() at the start of each
 * keeps its return address on a small stack in the task until it
 * returns.  The stack is unwound only when an entry is missing.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/bitmap.h>
#include <linux/device.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kobject.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mempool.h>
#include <linux/mmdebug.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "internal.h"

/*
 * Out-of-line functions that allocate for their caller without passing
 * the caller's address to the allocator, so the kmem tracepoints name
 * them as the call site.  An allocation whose call site is inside one is
 * recorded with the return addresses after it, out to the first frame
 * outside them all.  By address, so that finding them at boot costs a
 * search of kallsyms by address each, not by name (some 20000
 * instructions a name); the only static one, kmalloc_reserve() in
 * net/core/skbuff.c, by name.  A copy the compiler inlined elsewhere is
 * not one of them: its allocations have their real call site.  Nor are
 * the parts it split out (.part, .cold): their allocations fall outside
 * its extent.
 */
#define KMT_WRAPPER(f)	{ .fn = (void *)(f), .name = #f }

static const struct {
	void		*fn;
	const char	*name;
} kmt_wrapper_fns[] = {
	KMT_WRAPPER(__kvmalloc_node_noprof), KMT_WRAPPER(kvrealloc_noprof),
	KMT_WRAPPER(kvmemdup), KMT_WRAPPER(kmemdup_array),
	KMT_WRAPPER(kstrdup_const), KMT_WRAPPER(kvasprintf),
	KMT_WRAPPER(kvasprintf_const), KMT_WRAPPER(kasprintf),
	KMT_WRAPPER(kobject_set_name_vargs), KMT_WRAPPER(kobject_set_name),
	KMT_WRAPPER(dev_set_name), KMT_WRAPPER(memdup_user),
	KMT_WRAPPER(vmemdup_user), KMT_WRAPPER(memdup_user_nul),
	KMT_WRAPPER(strndup_user), KMT_WRAPPER(mempool_alloc_slab),
	KMT_WRAPPER(mempool_kmalloc), KMT_WRAPPER(mempool_init_node),
	KMT_WRAPPER(mempool_init_noprof),
	KMT_WRAPPER(mempool_create_node_noprof), KMT_WRAPPER(kobject_add),
	KMT_WRAPPER(kobject_init_and_add), KMT_WRAPPER(devm_kstrdup),
	KMT_WRAPPER(devm_kstrdup_const), KMT_WRAPPER(devm_kvasprintf),
	KMT_WRAPPER(devm_kasprintf), KMT_WRAPPER(devm_kmemdup),
};

static const char *const kmt_wrapper_names[] = {
	"kmalloc_reserve",
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

unsigned long kmt_wrap_bits[BITS_TO_LONGS(KMT_WRAP_BITS)] __read_mostly;

/*
 * On from before the kmem probes are attached until after they are
 * gone.  Wrappers push while it is on.  A wrapper in an interrupt that
 * started before it is over before the probes attach (a grace period
 * follows the key); a task's wrapper that started before it has no
 * entry, nor have the wrappers around it, so its allocations are
 * unwound.
 */
DEFINE_STATIC_KEY_FALSE(kmemtrace_wrap_key);

/* Wrappers found so far. */
static unsigned int kmt_wrappers_found(void)
{
	/* Their table before their count: pairs with kmt_find_wrappers(). */
	return smp_load_acquire(&kmt_nr_wrappers);
}

/* The wrapper @addr is in: its index in kmt_wrappers[], or -1. */
static int kmt_wrapper_of(unsigned long addr)
{
	unsigned int i, n;

	if (!kmt_maybe_wrapped(kmt_text_off(addr)))
		return -1;
	n = kmt_wrappers_found();
	for (i = 0; i < n; i++)
		if (addr - kmt_wrappers[i].start < kmt_wrappers[i].size)
			return i;
	return -1;
}

static bool kmt_in_wrapper_nr(unsigned long addr, int w)
{
	return addr - kmt_wrappers[w].start < kmt_wrappers[w].size;
}

/* One wrapper at @addr, the start of a function of kernel text; or not. */
static void kmt_add_wrapper(unsigned long addr, const char *name,
			    unsigned int *n)
{
	unsigned long size, off;

	if (*n == KMT_MAX_WRAPPERS || !addr ||
	    addr < (unsigned long)_stext || addr >= (unsigned long)_etext ||
	    !kallsyms_lookup_size_offset(addr, &size, &off) || off)
		return;
	kmt_wrappers[*n].start = addr;
	kmt_wrappers[*n].size = size;
	kmt_wrappers[*n].name = name;
	(*n)++;
}

/* Under kmt_mutex, or at boot: find the wrappers once. */
void kmt_find_wrappers(void)
{
	unsigned long bit, first, last;
	unsigned int i, n = 0;
	void *fn;

	BUILD_BUG_ON(ARRAY_SIZE(kmt_wrapper_fns) +
		     ARRAY_SIZE(kmt_wrapper_names) > KMT_MAX_WRAPPERS);
	if (kmt_wrappers_found())
		return;
	for (i = 0; i < ARRAY_SIZE(kmt_wrapper_fns); i++) {
		fn = dereference_symbol_descriptor(kmt_wrapper_fns[i].fn);
		kmt_add_wrapper((unsigned long)fn, kmt_wrapper_fns[i].name, &n);
	}
	for (i = 0; i < ARRAY_SIZE(kmt_wrapper_names); i++)
		kmt_add_wrapper(kallsyms_lookup_name(kmt_wrapper_names[i]),
				kmt_wrapper_names[i], &n);
	if (!n)
		return;
	/*
	 * The table, the filter's bits, then the table's count: a probe
	 * that finds a bit set looks the table up, and finds its entries
	 * written, or no entry yet (a wrapper's call site taken for its
	 * caller's, before the probes are attached).
	 */
	for (i = 0; i < n; i++) {
		first = kmt_text_off(kmt_wrappers[i].start) >> KMT_WRAP_SHIFT;
		last = kmt_text_off(kmt_wrappers[i].start +
				    kmt_wrappers[i].size - 1) >> KMT_WRAP_SHIFT;
		for (bit = first; bit <= last; bit++)
			__set_bit(bit & (KMT_WRAP_BITS - 1), kmt_wrap_bits);
	}
	/* The table before the count: pairs with kmt_wrappers_found(). */
	smp_store_release(&kmt_nr_wrappers, n);
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
	return ++w->kept < KMT_VIA_DEPTH && kmt_wrapper_of(addr) >= 0;
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

/* Whether @ret is a tracer's trampoline that stands for a return address. */
static bool kmt_ret_trampoline(unsigned long ret)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (ret == (unsigned long)return_to_handler)
		return true;
#endif
#ifdef CONFIG_RETHOOK
	if (is_rethook_trampoline(ret))
		return true;
#endif
	return is_kretprobe_trampoline(ret);
}

/*
 * The same return addresses as kmt_via_stack(), for a call site in
 * wrapper @w, from the entries the wrappers keep: the innermost must be
 * @w's, and each return address still inside a wrapper must be followed
 * by that wrapper's entry.  None when an entry is missing: a wrapper
 * that keeps none (one that ends in a tail call has no frame to keep),
 * one entered before the recorder started, wrappers nested deeper than
 * the entries.
 */
static size_t kmt_via_kept(int w, u8 *out)
{
	const struct kmemtrace_wraps *ws = &current->kmemtrace_wraps;
	unsigned int i = READ_ONCE(ws->depth);
	unsigned long ret;
	u8 *p = out;

	/* at most KMT_VIA_DEPTH frames, as kmt_via_stack() */
	BUILD_BUG_ON(KMEMTRACE_WRAP_DEPTH > KMT_VIA_DEPTH);
	if (i > KMEMTRACE_WRAP_DEPTH)
		return 0;
	while (i-- && kmt_in_wrapper_nr(READ_ONCE(ws->wrap[i].in), w)) {
		ret = READ_ONCE(ws->wrap[i].ret);
		w = kmt_wrapper_of(ret);
		/*
		 * A return address that function_graph or a kretprobe took
		 * over: the unwinder finds the real one.
		 */
		if (w < 0 && kmt_ret_trampoline(ret))
			return 0;
		p = kmt_put_uvar(p, kmt_zigzag(kmt_text_off(ret)));
		if (w < 0)
			return p - out;
	}
	return 0;
}

/*
 * With CONFIG_DEBUG_VM: what the wrappers kept must be what the unwinder
 * finds, where it finds the call site.
 */
static void kmt_via_check(unsigned long call_site, const struct kmt_str *kept)
{
	u8 unwound[KMT_VIA_DEPTH * 10];
	size_t len = kmt_via_stack(call_site, unwound);

	VM_WARN_ONCE(len && (len != kept->len || memcmp(unwound, kept->p, len)),
		     "kmemtrace: the callers kept for %pS are not the stack's\n",
		     (void *)call_site);
}

/**
 * __kmemtrace_wrapper_enter - keep a wrapper's return address
 * @ret: its return address
 * @in:  an address inside it
 *
 * For kmemtrace_wrapper(), while the kmem probes are attached; any
 * context.  The depth is raised before the entry is written, so that an
 * interrupt in between pushes its own above it.
 */
void __kmemtrace_wrapper_enter(unsigned long ret, unsigned long in)
{
	struct kmemtrace_wraps *ws = &current->kmemtrace_wraps;
	unsigned int d = READ_ONCE(ws->depth);

	WRITE_ONCE(ws->depth, d + 1);
	barrier();
	if (d < KMEMTRACE_WRAP_DEPTH) {
		WRITE_ONCE(ws->wrap[d].ret, ret);
		WRITE_ONCE(ws->wrap[d].in, in);
	}
}

/**
 * __kmemtrace_wrapper_exit - a wrapper that kept its entry returns
 *
 * Whether or not the recorder still records: the entry was pushed.
 */
void __kmemtrace_wrapper_exit(void)
{
	struct kmemtrace_wraps *ws = &current->kmemtrace_wraps;
	unsigned int d = READ_ONCE(ws->depth);

	VM_WARN_ON_ONCE(!d);
	WRITE_ONCE(ws->depth, d - 1);
}

/*
 * Under kmt_mutex, before the kmem probes are attached: wrappers push
 * from now on, and once the grace period is over every wrapper running
 * in an interrupt has pushed.  At boot, before the scheduler, the grace
 * period is over at once.
 */
void kmt_wrappers_start(void)
{
	static_branch_enable(&kmemtrace_wrap_key);
	synchronize_rcu();
}

/* Once the kmem probes are gone (tracepoint_synchronize_unregister()). */
void kmt_wrappers_stop(void)
{
	static_branch_disable(&kmemtrace_wrap_key);
}

/*
 * The stack field of a _via record for @call_site, in wrapper @w: from
 * the entries the wrappers keep, or else from the unwinder.  Its length,
 * 0 for none.  Counted in stats, with preemption disabled.
 */
static size_t kmt_via_frames(unsigned long call_site, int w, u8 *out)
{
	struct kmt_cpu *cb = this_cpu_ptr(&kmt_cpu_buf);
	struct kmt_str kept = { out, kmt_via_kept(w, out) };
	size_t len;

	if (kept.len) {
		local_inc(&cb->via_kept);
		if (IS_ENABLED(CONFIG_DEBUG_VM))
			kmt_via_check(call_site, &kept);
		return kept.len;
	}
	len = kmt_via_stack(call_site, out);
	if (len)
		local_inc(&cb->via_unwound);
	return len;
}

/**
 * kmt_record_via - write an allocation through a wrapper
 * @type:      KMT_EV_KMALLOC_VIA or KMT_EV_CACHE_ALLOC_VIA
 * @call_site: its call site, which the wrappers' filter lets through
 * @w0:        the first 8 bytes of the plain record's payload
 * @w1:        the rest of it, little endian
 * @plen:      its bytes, all of whose fields fit their slots
 *
 * From the kmalloc and kmem_cache_alloc probes (and the bulk allocation
 * hook through them), with preemption disabled.
 *
 * Return: true when it is written or dropped; false when @call_site is in
 * no wrapper, or no frame was found: the probe writes the plain record.
 */
noinline bool kmt_record_via(u8 type, unsigned long call_site, u64 w0, u64 w1,
			     unsigned int plen)
{
	u8 stack[KMT_VIA_DEPTH * 10];
	struct kmt_cpu *cb;
	struct kmt_rsv r;
	int w = kmt_wrapper_of(call_site);
	size_t len;

	BUILD_BUG_ON(sizeof(stack) >= 0x80);
	lockdep_assert_preemption_disabled();
	if (w < 0)
		return false;
	len = kmt_via_frames(call_site, w, stack);
	if (!len)
		return false;
	cb = this_cpu_ptr(&kmt_cpu_buf);
	if (!kmt_reserve(cb, type, plen + 1 + len, &r))
		return true;
	/* the plain record's fields, then the stack: a one-byte length */
	put_unaligned_le64(w0, r.p);
	if (plen == 16) {
		put_unaligned_le64(w1, r.p + 8);
	} else {
		put_unaligned_le16(w1, r.p + 8);
		put_unaligned_le32(w1 >> 16, r.p + 10);
	}
	r.p[plen] = len;
	memcpy(r.p + plen + 1, stack, len);
	kmt_commit(cb, &r);
	return true;
}

/*
 * An allocation the fast path does not write: a value too wide for its
 * slot (KMT_EV_KMALLOC_VIA or KMT_EV_CACHE_ALLOC_VIA when its call site
 * is inside a wrapper).  @v[0] is the call site.
 */
noinline void kmt_record_alloc(u8 type, const u8 *enc, const u64 *v,
			       unsigned int n)
{
	u8 stack[KMT_VIA_DEPTH * 10];
	struct kmt_str str = { stack, 0 };
	int w = kmt_wrapper_of(v[0]);

	lockdep_assert_preemption_disabled();
	if (w >= 0)
		str.len = kmt_via_frames(v[0], w, stack);
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

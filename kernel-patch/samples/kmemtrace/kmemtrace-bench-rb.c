// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmemtrace's kmem records written through the tracing ring buffer
 * (kernel/trace/ring_buffer.c) instead of kmemtrace's own buffers: what
 * moving the recorder onto it would cost, in guest instructions and in
 * bytes per event (bench/run.sh).
 *
 * The probes are kmemtrace's hot probes, field for field: the same fit
 * tests (kmemtrace.page_stack aside), the same wrapper filter, the same
 * fixed-width fields stored with plain stores.  Only the buffer differs,
 * and with it the clock (the ring buffer's, trace_clock_local(), where
 * kmemtrace computes local_clock() from the TSC itself): ring_buffer_lock_reserve()
 * and ring_buffer_unlock_commit() in place of kmt_reserve() and
 * kmt_commit(), the ring buffer's 4-byte event header and time delta in
 * place of kmemtrace's header byte and 16-bit delta, and a type byte at
 * the start of the payload.  The pid is written when it changed on this
 * CPU, as kmemtrace does; the ring buffer gives no hook at the start of
 * a page, so a reader of an overwritten buffer would lack the pid of a
 * page's first records: an optimistic count of bytes.  An event whose
 * values do not fit the fast path is not written, only counted.
 *
 * /sys/kernel/debug/kmemtrace-bench-rb: write 1 to attach the probes
 * (the buffer is allocated the first time: kmemtrace_bench_rb.size
 * bytes per CPU, in overwrite mode as ftrace's), 0 to detach; read it
 * for each CPU's entries, bytes and losses.  With kmemtrace_bench_rb.boot=1
 * the probes attach from an early initcall, to a buffer that does not
 * overwrite (and keeps not overwriting when attached again), for the
 * bytes of a boot's events.
 */

#define pr_fmt(fmt) "kmemtrace-bench-rb: " fmt

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ring_buffer.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "../../mm/kmemtrace/internal.h"
#include "../../mm/slab.h"

#include <trace/events/kmem.h>

static bool boot;
module_param(boot, bool, 0400);
MODULE_PARM_DESC(boot, "attach from an early initcall, without overwrite");

static unsigned long size = SZ_8M;
module_param(size, ulong, 0400);
MODULE_PARM_DESC(size, "bytes of ring buffer per CPU");

static DEFINE_MUTEX(rb_mutex);
static struct trace_buffer *rb;
static bool rb_attached;

struct rb_cpu {
	u32	pid;		/* of the last record with one */
	u64	nofit;		/* events not written: a value too wide */
	u64	kmt_bytes;	/* what kmemtrace would have written for them */
};

static DEFINE_PER_CPU(struct rb_cpu, rb_cpu);

/*
 * Reserve a record of @type with @plen payload bytes: the type byte and,
 * in task context when it changed, the pid, as kmemtrace writes them.
 * Return: where the fields go, or NULL (nothing reserved).
 */
static __always_inline u8 *rb_reserve(u8 type, unsigned int plen,
				      struct ring_buffer_event **ev)
{
	bool need_pid = false;
	u32 pid = 0;
	u8 *p;

	if (likely(!(preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)))) {
		pid = task_pid_nr(current);
		need_pid = pid != this_cpu_read(rb_cpu.pid);
	}
	*ev = ring_buffer_lock_reserve(rb, 1 + plen + (need_pid ? 4 : 0));
	if (!*ev)
		return NULL;
	/* kmemtrace's header byte, time delta and pid */
	this_cpu_add(rb_cpu.kmt_bytes, 3 + plen + (need_pid ? 4 : 0));
	p = ring_buffer_event_data(*ev);
	*p++ = type | (need_pid ? KMT_HDR_PID : 0);
	if (need_pid) {
		put_unaligned_le32(pid, p);
		p += 4;
		this_cpu_write(rb_cpu.pid, pid);
	}
	return p;
}

static void rb_nofit(void)
{
	this_cpu_inc(rb_cpu.nofit);
}

static void rb_probe_kmalloc(void *data, unsigned long call_site,
			     const void *ptr, size_t bytes_req,
			     size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	u32 gfp = (__force u32)gfp_flags;
	size_t slack = bytes_alloc - bytes_req;
	s64 cs = kmt_text_off(call_site);
	u64 off = kmt_dmap_off(ptr);
	struct ring_buffer_event *ev;
	u64 w0, w1;
	u8 *p;

	if (unlikely(!kmt_text_fits(cs) || !kmt_dmap_fits(off) ||
		     (bytes_req | slack) >= 0xffff || gfp >= 0xffffff ||
		     !kmt_s8_fits(node) || kmt_maybe_wrapped(cs))) {
		rb_nofit();
		return;
	}
	w0 = kmt_site_ptr(cs, off);
	w1 = bytes_req | slack << 16 | (u64)(gfp | (u32)node << 24) << 32;
	p = rb_reserve(KMT_EV_KMALLOC, 16, &ev);
	if (!p)
		return;
	put_unaligned_le64(w0, p);
	put_unaligned_le64(w1, p + 8);
	ring_buffer_unlock_commit(rb);
}

static void rb_probe_cache_alloc(void *data, unsigned long call_site,
				 const void *ptr, struct kmem_cache *s,
				 gfp_t gfp_flags, int node)
{
	u32 gfp = (__force u32)gfp_flags;
	unsigned int id = READ_ONCE(s->kmt_id);
	s64 cs = kmt_text_off(call_site);
	u64 off = kmt_dmap_off(ptr);
	struct ring_buffer_event *ev;
	u8 *p;

	if (unlikely(!kmt_text_fits(cs) || !kmt_dmap_fits(off) ||
		     id >= 0xffff || gfp >= 0xffffff || !kmt_s8_fits(node) ||
		     kmt_maybe_wrapped(cs))) {
		rb_nofit();
		return;
	}
	p = rb_reserve(KMT_EV_CACHE_ALLOC, 14, &ev);
	if (!p)
		return;
	put_unaligned_le64(kmt_site_ptr(cs, off), p);
	put_unaligned_le16(id, p + 8);
	put_unaligned_le32(gfp | (u32)node << 24, p + 10);
	ring_buffer_unlock_commit(rb);
}

static __always_inline void rb_free(u8 type, unsigned long call_site,
				    const void *ptr, unsigned int id)
{
	unsigned int plen = type == KMT_EV_KFREE ? 8 : 10;
	s64 cs = kmt_text_off(call_site);
	u64 off = kmt_dmap_off(ptr);
	struct ring_buffer_event *ev;
	u8 *p;

	if (unlikely(!kmt_text_fits(cs) || !kmt_dmap_fits(off) || id >= 0xffff)) {
		rb_nofit();
		return;
	}
	p = rb_reserve(type, plen, &ev);
	if (!p)
		return;
	put_unaligned_le64(kmt_site_ptr(cs, off), p);
	if (type != KMT_EV_KFREE)
		put_unaligned_le16(id, p + 8);
	ring_buffer_unlock_commit(rb);
}

static void rb_probe_kfree(void *data, unsigned long call_site,
			   const void *ptr)
{
	rb_free(KMT_EV_KFREE, call_site, ptr, 0);
}

static void rb_probe_cache_free(void *data, unsigned long call_site,
				const void *ptr, const struct kmem_cache *s)
{
	rb_free(KMT_EV_CACHE_FREE, call_site, ptr, s ? READ_ONCE(s->kmt_id) : 0);
}

static __always_inline u64 rb_pfn1(struct page *page)
{
	return page ? page_to_pfn(page) + 1 : 0;
}

static void rb_probe_page_alloc(void *data, struct page *page,
				unsigned int order, gfp_t gfp_flags,
				int migratetype)
{
	u32 gfp = (__force u32)gfp_flags;
	u64 pfn1 = rb_pfn1(page);
	struct ring_buffer_event *ev;
	u8 *p;

	if (unlikely(pfn1 >= 0xffffffff || order >= 0xff || gfp >= 0xffffff ||
		     !kmt_s8_fits(migratetype))) {
		rb_nofit();
		return;
	}
	p = rb_reserve(KMT_EV_PAGE_ALLOC, 10, &ev);
	if (!p)
		return;
	put_unaligned_le64(pfn1 | (u64)order << 32 | (u64)gfp << 40, p);
	put_unaligned_le16((u8)migratetype, p + 8);
	ring_buffer_unlock_commit(rb);
}

static __always_inline void rb_page_free(u8 type, struct page *page,
					 unsigned int order)
{
	unsigned int plen = type == KMT_EV_PAGE_FREE ? 5 : 4;
	u64 pfn1 = rb_pfn1(page);
	struct ring_buffer_event *ev;
	u8 *p;

	if (unlikely(pfn1 >= 0xffffffff || order >= 0xff)) {
		rb_nofit();
		return;
	}
	p = rb_reserve(type, plen, &ev);
	if (!p)
		return;
	put_unaligned_le32(pfn1, p);
	if (type == KMT_EV_PAGE_FREE)
		p[4] = order;
	ring_buffer_unlock_commit(rb);
}

static void rb_probe_page_free(void *data, struct page *page,
			       unsigned int order)
{
	rb_page_free(KMT_EV_PAGE_FREE, page, order);
}

static void rb_probe_page_free_batched(void *data, struct page *page)
{
	rb_page_free(KMT_EV_PAGE_FREE_BATCHED, page, 0);
}

static void rb_detach(void)
{
	unregister_trace_mm_page_free_batched(rb_probe_page_free_batched, NULL);
	unregister_trace_mm_page_free(rb_probe_page_free, NULL);
	unregister_trace_mm_page_alloc(rb_probe_page_alloc, NULL);
	unregister_trace_kmem_cache_free(rb_probe_cache_free, NULL);
	unregister_trace_kfree(rb_probe_kfree, NULL);
	unregister_trace_kmem_cache_alloc(rb_probe_cache_alloc, NULL);
	unregister_trace_kmalloc(rb_probe_kmalloc, NULL);
	tracepoint_synchronize_unregister();
	rb_attached = false;
}

/*
 * Attach the probes, allocating the buffer the first time.  Under
 * rb_mutex.  A probe that cannot attach detaches those attached before it.
 */
static int rb_attach(unsigned int flags)
{
	int ret;

	if (rb_attached)
		return 0;
	if (!rb) {
		rb = ring_buffer_alloc(size, flags);
		if (!rb)
			return -ENOMEM;
	}
	ret = register_trace_kmalloc(rb_probe_kmalloc, NULL);
	if (ret)
		return ret;
	ret = register_trace_kmem_cache_alloc(rb_probe_cache_alloc, NULL);
	if (ret)
		goto out_kmalloc;
	ret = register_trace_kfree(rb_probe_kfree, NULL);
	if (ret)
		goto out_cache_alloc;
	ret = register_trace_kmem_cache_free(rb_probe_cache_free, NULL);
	if (ret)
		goto out_kfree;
	ret = register_trace_mm_page_alloc(rb_probe_page_alloc, NULL);
	if (ret)
		goto out_cache_free;
	ret = register_trace_mm_page_free(rb_probe_page_free, NULL);
	if (ret)
		goto out_page_alloc;
	ret = register_trace_mm_page_free_batched(rb_probe_page_free_batched, NULL);
	if (ret)
		goto out_page_free;
	rb_attached = true;
	return 0;

out_page_free:
	unregister_trace_mm_page_free(rb_probe_page_free, NULL);
out_page_alloc:
	unregister_trace_mm_page_alloc(rb_probe_page_alloc, NULL);
out_cache_free:
	unregister_trace_kmem_cache_free(rb_probe_cache_free, NULL);
out_kfree:
	unregister_trace_kfree(rb_probe_kfree, NULL);
out_cache_alloc:
	unregister_trace_kmem_cache_alloc(rb_probe_cache_alloc, NULL);
out_kmalloc:
	unregister_trace_kmalloc(rb_probe_kmalloc, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

static ssize_t rb_write(struct file *file, const char __user *ubuf,
			size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	mutex_lock(&rb_mutex);
	if (on)
		ret = rb_attach(RB_FL_OVERWRITE);
	else if (rb_attached)
		rb_detach();
	mutex_unlock(&rb_mutex);
	return ret ?: count;
}

/*
 * Per CPU: events in the buffer, their bytes (event headers, time
 * extends and the padding at the end of each page; the 16-byte header
 * of each page not counted), events overwritten and dropped, events not
 * written (a value too wide), and the bytes kmemtrace's format would
 * have taken for the events written.
 */
static int rb_show(struct seq_file *m, void *v)
{
	unsigned int cpu;
	struct rb_cpu *rc;

	mutex_lock(&rb_mutex);
	seq_printf(m, "attached %d\n", rb_attached);
	for_each_possible_cpu(cpu) {
		/* a CPU that never came up has no buffer */
		if (!rb || !ring_buffer_entries_cpu(rb, cpu))
			continue;
		rc = per_cpu_ptr(&rb_cpu, cpu);
		seq_printf(m, "cpu %u entries %lu bytes %lu overrun %lu dropped %lu nofit %llu kmt_bytes %llu\n",
			   cpu, ring_buffer_entries_cpu(rb, cpu),
			   ring_buffer_bytes_cpu(rb, cpu),
			   ring_buffer_overrun_cpu(rb, cpu),
			   ring_buffer_dropped_events_cpu(rb, cpu),
			   READ_ONCE(rc->nofit), READ_ONCE(rc->kmt_bytes));
	}
	mutex_unlock(&rb_mutex);
	return 0;
}

static int rb_open(struct inode *inode, struct file *file)
{
	return single_open(file, rb_show, NULL);
}

static const struct file_operations rb_fops = {
	.owner		= THIS_MODULE,
	.open		= rb_open,
	.read		= seq_read,
	.write		= rb_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init kmemtrace_bench_rb_boot(void)
{
	int ret = 0;

	if (!boot)
		return 0;
	mutex_lock(&rb_mutex);
	ret = rb_attach(0);
	mutex_unlock(&rb_mutex);
	if (ret)
		pr_warn("cannot attach at boot (%d)\n", ret);
	return 0;
}
early_initcall(kmemtrace_bench_rb_boot);

static int __init kmemtrace_bench_rb_init(void)
{
	debugfs_create_file("kmemtrace-bench-rb", 0600, NULL, NULL, &rb_fops);
	return 0;
}
late_initcall(kmemtrace_bench_rb_init);

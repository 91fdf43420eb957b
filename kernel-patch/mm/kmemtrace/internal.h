/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace: what the recorder's files share.
 *
 *   buffer.c   the pool of sub-buffers, reserve and commit, the clock,
 *              the general path, marks (the fast path is in buffer.h)
 *   wrappers.c the callers behind wrappers
 *   probes.c   the slab and page allocator probes, cache definitions
 *   early.c    memblock and the pages before the probes (__init)
 *   tasks.c    boot phases and tasks
 *   latency.c  direct reclaim, shrinkers, compaction
 *   flight.c   flight mode and the triggers that freeze
 *   setup.c    the pool, slots for each CPU, hotplug, event groups, enable
 *   persist.c  a pool in a reserve_mem= region, kept across a reboot
 *   tracefs.c  the files in /sys/kernel/tracing/kmemtrace/
 */
#ifndef _MM_KMEMTRACE_INTERNAL_H
#define _MM_KMEMTRACE_INTERNAL_H

#include <linux/init.h>
#include <linux/kmemtrace.h>
#include <linux/poll.h>

#include "buffer.h"

/* Return addresses a stack field keeps at most. */
#define KMT_MAX_STACK		16

/* ---- setup.c ---------------------------------------------------------- */

extern bool kmt_param_invalid;
extern bool kmt_allocated;
extern bool kmt_released;
extern bool kmt_recording;
extern unsigned long kmt_groups;
extern u64 kmt_boot_ts;
extern struct mutex kmt_mutex;

/**
 * struct kmt_group_ops - an event group: its name and its probes
 * @name:  as kmemtrace.events= and tracefs kmemtrace/events spell it
 * @reg:   attach its probes; on failure some may be attached
 * @unreg: detach them all
 */
struct kmt_group_ops {
	const char	*name;
	int		(*reg)(void);
	void		(*unreg)(void);
};

extern const struct kmt_group_ops kmt_group_ops[KMT_NR_GROUPS];

int kmt_register_groups(unsigned long mask);
void kmt_flush_rcu_frees(unsigned long mask);
void kmt_unregister_groups(unsigned long mask);
void kmt_emit_groups(unsigned long mask);
int kmt_parse_groups(const char *str, unsigned long *mask);
int kmt_enable_set(unsigned int val);
int kmt_release_buffers_locked(void);
int kmt_release_buffers(void);
unsigned long kmt_held_bytes(struct kmt_cpu *cb);
unsigned int kmt_pool_want_mode(unsigned int mode);
unsigned int kmt_pool_want(void);

/* The slots of @cb once they are published, or NULL. */
static inline struct kmt_slot *kmt_cpu_slots(struct kmt_cpu *cb)
{
	/* Pairs with the release in kmt_alloc_cpu(). */
	return smp_load_acquire(&cb->slot);
}

/*
 * Whether the pool and the slots may be written: a writer outside a
 * tracepoint's probe (a hook, the general path) tests it with preemption
 * off, after which kmt_release_buffers() waits for it.
 */
static __always_inline bool kmt_buffers_ready(void)
{
	/* Pairs with the release in kmt_setup_buffers(). */
	return smp_load_acquire(&kmt_allocated);
}

/* ---- wrappers.c ------------------------------------------------------- */

/*
 * The hot path's filter: a bit per 4 KiB of kernel text that holds a
 * wrapper, 16384 of them (64 MiB of text); text further out shares the
 * bits of the text 64 MiB before it.
 */
#define KMT_WRAP_SHIFT		12
#define KMT_WRAP_BITS		BIT(14)

extern unsigned long kmt_wrap_bits[BITS_TO_LONGS(KMT_WRAP_BITS)];

/*
 * Whether text offset @cs may be inside a wrapper: an address that is
 * not may be a false positive (its text shares a bit with a wrapper's,
 * or lies outside the kernel text), never a miss.  The bits are set
 * once, before the probes are attached (kmt_find_wrappers()).
 */
static __always_inline bool kmt_maybe_wrapped(s64 cs)
{
	return test_bit(((unsigned long)cs >> KMT_WRAP_SHIFT) &
			(KMT_WRAP_BITS - 1), kmt_wrap_bits);
}

void kmt_find_wrappers(void);
void kmt_wrappers_start(void);
void kmt_wrappers_stop(void);
void kmt_emit_wrappers(void);
void kmt_record_alloc(u8 type, const u8 *enc, const u64 *v, unsigned int n);
bool kmt_record_via(u8 type, unsigned long call_site, u64 w0, u64 w1,
		    unsigned int plen);

/* ---- probes.c --------------------------------------------------------- */

extern unsigned int kmt_page_stack;
extern const u8 kmt_enc_page[4];
extern const u8 kmt_enc_kmalloc[6];

void kmt_define_all_caches(void);
int kmt_register_kmem(void);
void kmt_unregister_kmem(void);

/* ---- early.c ---------------------------------------------------------- */

extern bool kmt_mb_live;
extern bool kmt_pg_pause;
extern bool kmt_pg_alloc_live;
extern bool kmt_pg_free_live;

void __kmt_early_object(const void *ptr, size_t size, gfp_t gfp, int nid,
			unsigned long caller);
/* After an allocation of the recorder's own that may come before its probes. */
#define kmt_early_object(ptr, size, gfp, nid) \
	__kmt_early_object(ptr, size, gfp, nid, _THIS_IP_)
void __init kmt_early_replay(void);
void __init kmt_early_finish(bool record);

/* ---- tasks.c ---------------------------------------------------------- */

int kmt_register_boot(void);
void kmt_unregister_boot(void);

/* ---- latency.c -------------------------------------------------------- */

int kmt_register_reclaim(void);
void kmt_unregister_reclaim(void);
int kmt_register_compaction(void);
void kmt_unregister_compaction(void);

/* ---- flight.c --------------------------------------------------------- */

extern const char *const kmt_mode_names[KMT_MODE_FLIGHT + 1];
extern const char *const kmt_trigger_names[KMT_NR_TRIGGERS];
extern unsigned long kmt_triggers;
extern u64 kmt_stall_ns;
extern wait_queue_head_t kmt_frozen_wait;

bool kmt_is_frozen(void);
void kmt_update_trigger_key(void);
int kmt_parse_triggers(const char *str, unsigned long *mask);
void kmt_stall_begin(int order, gfp_t gfp);
void kmt_stall_forget(void);
void kmt_stall_end(void);
void kmt_set_mode(unsigned int mode);
void kmt_forget_freeze(void);
int kmt_set_frozen(unsigned int val);
int kmt_frozen_show(char *buf, size_t size);

/* ---- persist.c -------------------------------------------------------- */

struct seq_file;

/* the kernel's ELF notes (NOTES in vmlinux.lds.h): its build id */
extern const void __start_notes, __stop_notes;

void __init kmt_persist_init(void);
unsigned int kmt_persist_blocks(void);
void kmt_persist_take(void **mem);
void kmt_persist_put(void);
bool kmt_persist_present(void);
void kmt_persist_mode(unsigned int mode);
int kmt_prev_open(void);
void kmt_prev_close(void);
ssize_t kmt_prev_read(char __user *ubuf, size_t count, loff_t *ppos);
int kmt_prev_show(struct seq_file *m);
int kmt_prev_release(void);

#endif /* _MM_KMEMTRACE_INTERNAL_H */

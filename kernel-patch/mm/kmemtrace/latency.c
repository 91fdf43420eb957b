// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: latency - direct reclaim, the shrinkers, compaction.
 *
 * With kmemtrace.events=kmem,boot,latency the recorder also records the
 * allocations that stall: each direct reclaim and direct compaction with
 * the allocation behind it (order, GFP flags, task, stack), the shrinkers
 * it calls and the zones compacted.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/mm.h>
#include <linux/shrinker.h>
#include <linux/stacktrace.h>
/* not self-contained: after linux/mm.h */
#include <linux/compaction.h>

#include "internal.h"
#include "../internal.h"

/* after mm/internal.h: the compaction events take a struct compact_control */
#include <trace/events/compaction.h>
#include <trace/events/vmscan.h>

static const u8 kmt_enc_stall[] = { KMT_ENC_U8X, KMT_ENC_U24X, KMT_ENC_U8X };

static const u8 kmt_enc_lru[] = {
	KMT_ENC_S8X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U8X, KMT_ENC_U8X,
};

static const u8 kmt_enc_shrink_start[] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_S8X, KMT_ENC_U24X, KMT_ENC_U32X,
	KMT_ENC_U32X, KMT_ENC_U8X,
};

static const u8 kmt_enc_shrink_end[] = {
	KMT_ENC_TEXT32, KMT_ENC_DMAP32, KMT_ENC_S8X, KMT_ENC_S32, KMT_ENC_U32X,
};

/*
 * An allocation enters direct reclaim or compaction: its order and GFP
 * flags (and compaction's priority), the task's comm and the return
 * addresses that lead here, from which readers take the allocation's
 * caller.  Rare and slow next to what follows it, so always with a stack.
 */
static noinline void kmt_record_stall(u8 type, u64 order, gfp_t gfp_flags,
				      int prio)
{
	unsigned long entries[KMT_MAX_STACK];
	u8 stack[KMT_MAX_STACK * 10], *p = stack;
	u64 v[3] = { order, (__force u32)gfp_flags, prio };
	struct kmt_str str[2];
	unsigned int i, nr;

	/* skip this function's and the probe's frames */
	nr = stack_trace_save(entries, KMT_MAX_STACK, 2);
	for (i = 0; i < nr; i++)
		p = kmt_put_uvar(p, kmt_zigzag(kmt_text_off(entries[i])));
	str[0].p = current->comm;
	str[0].len = strnlen(current->comm, TASK_COMM_LEN);
	str[1].p = stack;
	str[1].len = p - stack;
	kmt_record_fields(type, kmt_enc_stall, v,
			  type == KMT_EV_COMPACT_TRY ? 3 : 2, str, 2);
}

static void kmt_probe_reclaim_begin(void *data, int order, gfp_t gfp_flags)
{
	kmt_record_stall(KMT_EV_RECLAIM_BEGIN, order, gfp_flags, 0);
	kmt_stall_begin(order, gfp_flags);
}

static void kmt_probe_reclaim_end(void *data, unsigned long nr_reclaimed)
{
	u64 v = nr_reclaimed;

	kmt_record_fields(KMT_EV_RECLAIM_END, kmt_enc_u32, &v, 1, NULL, 0);
	kmt_stall_end();
}

static void kmt_probe_lru_shrink_inactive(void *data, int nid,
					  unsigned long nr_scanned,
					  unsigned long nr_reclaimed,
					  struct reclaim_stat *stat,
					  int priority, int file)
{
	u64 v[5] = { (s64)nid, nr_scanned, nr_reclaimed, priority, !!file };

	kmt_record_fields(KMT_EV_LRU_SHRINK_INACTIVE, kmt_enc_lru, v, 5, NULL, 0);
}

/* The shrinker's debugfs name ("sb-ext4"), where the kernel keeps one. */
static const char *kmt_shrinker_name(struct shrinker *shr)
{
#ifdef CONFIG_SHRINKER_DEBUG
	if (shr->name)
		return shr->name;
#endif
	return "";
}

static void kmt_probe_shrink_start(void *data, struct shrinker *shr,
				   struct shrink_control *sc,
				   long nr_objects_to_shrink,
				   unsigned long cache_items,
				   unsigned long long delta,
				   unsigned long total_scan, int priority)
{
	u64 v[7] = { (unsigned long)shr->scan_objects, (unsigned long)shr,
		     (s64)sc->nid, (__force u32)sc->gfp_mask, cache_items,
		     total_scan, priority };

	kmt_record_str(KMT_EV_SHRINK_START, kmt_enc_shrink_start, v,
		       ARRAY_SIZE(v), kmt_shrinker_name(shr));
}

static void kmt_probe_shrink_end(void *data, struct shrinker *shr, int nid,
				 int shrinker_retval, long unused_scan_cnt,
				 long new_scan_cnt, long total_scan)
{
	u64 v[5] = { (unsigned long)shr->scan_objects, (unsigned long)shr,
		     (s64)nid, (s64)shrinker_retval, total_scan };

	kmt_record_fields(KMT_EV_SHRINK_END, kmt_enc_shrink_end, v, 5, NULL, 0);
}

#ifdef CONFIG_COMPACTION
static const u8 kmt_enc_compact[] = {
	KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U32X, KMT_ENC_U8X,
	KMT_ENC_U8X,
};

static void kmt_probe_compact_try(void *data, int order, gfp_t gfp_mask,
				  int prio)
{
	kmt_record_stall(KMT_EV_COMPACT_TRY, order, gfp_mask, prio);
}

/* enum compact_result in the trace's own numbers */
static u8 kmt_compact_status(int status)
{
	switch (status) {
	case COMPACT_NOT_SUITABLE_ZONE: return KMT_COMPACT_NOT_SUITABLE_ZONE;
	case COMPACT_SKIPPED: return KMT_COMPACT_SKIPPED;
	case COMPACT_DEFERRED: return KMT_COMPACT_DEFERRED;
	case COMPACT_NO_SUITABLE_PAGE: return KMT_COMPACT_NO_SUITABLE_PAGE;
	case COMPACT_CONTINUE: return KMT_COMPACT_CONTINUE;
	case COMPACT_COMPLETE: return KMT_COMPACT_COMPLETE;
	case COMPACT_PARTIAL_SKIPPED: return KMT_COMPACT_PARTIAL_SKIPPED;
	case COMPACT_CONTENDED: return KMT_COMPACT_CONTENDED;
	case COMPACT_SUCCESS: return KMT_COMPACT_SUCCESS;
	}
	return KMT_COMPACT_UNKNOWN;
}

static void kmt_probe_compact_begin(void *data, struct compact_control *cc,
				    unsigned long zone_start,
				    unsigned long zone_end, bool sync)
{
	u64 v[5] = { zone_start, zone_end, cc->migrate_pfn, cc->free_pfn, sync };

	kmt_record_fields(KMT_EV_COMPACT_BEGIN, kmt_enc_compact, v, 5, NULL, 0);
}

static void kmt_probe_compact_end(void *data, struct compact_control *cc,
				  unsigned long zone_start,
				  unsigned long zone_end, bool sync, int status)
{
	u64 v[6] = { zone_start, zone_end, cc->migrate_pfn, cc->free_pfn, sync,
		     kmt_compact_status(status) };

	kmt_record_fields(KMT_EV_COMPACT_END, kmt_enc_compact, v, 6, NULL, 0);
}
#endif

int kmt_register_reclaim(void)
{
	int ret;

	/*
	 * The begins of before, whose ends the probes did not see (a
	 * begin may still run after they are unregistered, until the
	 * tracepoints are synchronised): none is looked for again.
	 */
	kmt_stall_forget();
	ret = register_trace_mm_vmscan_direct_reclaim_begin(kmt_probe_reclaim_begin,
							    NULL);
	if (ret)
		return ret;
	ret = register_trace_mm_vmscan_direct_reclaim_end(kmt_probe_reclaim_end,
							  NULL);
	if (ret)
		goto err_begin;
	ret = register_trace_mm_vmscan_lru_shrink_inactive(kmt_probe_lru_shrink_inactive,
							   NULL);
	if (ret)
		goto err_end;
	ret = register_trace_mm_shrink_slab_start(kmt_probe_shrink_start, NULL);
	if (ret)
		goto err_lru;
	ret = register_trace_mm_shrink_slab_end(kmt_probe_shrink_end, NULL);
	if (ret)
		goto err_shrink_start;
	return 0;

err_shrink_start:
	unregister_trace_mm_shrink_slab_start(kmt_probe_shrink_start, NULL);
err_lru:
	unregister_trace_mm_vmscan_lru_shrink_inactive(kmt_probe_lru_shrink_inactive,
						       NULL);
err_end:
	unregister_trace_mm_vmscan_direct_reclaim_end(kmt_probe_reclaim_end, NULL);
err_begin:
	unregister_trace_mm_vmscan_direct_reclaim_begin(kmt_probe_reclaim_begin,
							NULL);
	return ret;
}

void kmt_unregister_reclaim(void)
{
	unregister_trace_mm_shrink_slab_end(kmt_probe_shrink_end, NULL);
	unregister_trace_mm_shrink_slab_start(kmt_probe_shrink_start, NULL);
	unregister_trace_mm_vmscan_lru_shrink_inactive(kmt_probe_lru_shrink_inactive,
						       NULL);
	unregister_trace_mm_vmscan_direct_reclaim_end(kmt_probe_reclaim_end, NULL);
	unregister_trace_mm_vmscan_direct_reclaim_begin(kmt_probe_reclaim_begin,
							NULL);
}

#ifdef CONFIG_COMPACTION
int kmt_register_compaction(void)
{
	int ret;

	ret = register_trace_mm_compaction_try_to_compact_pages(kmt_probe_compact_try,
								NULL);
	if (ret)
		return ret;
	ret = register_trace_mm_compaction_begin(kmt_probe_compact_begin, NULL);
	if (ret)
		goto err_try;
	ret = register_trace_mm_compaction_end(kmt_probe_compact_end, NULL);
	if (ret)
		goto err_begin;
	return 0;

err_begin:
	unregister_trace_mm_compaction_begin(kmt_probe_compact_begin, NULL);
err_try:
	unregister_trace_mm_compaction_try_to_compact_pages(kmt_probe_compact_try,
							    NULL);
	return ret;
}

void kmt_unregister_compaction(void)
{
	unregister_trace_mm_compaction_end(kmt_probe_compact_end, NULL);
	unregister_trace_mm_compaction_begin(kmt_probe_compact_begin, NULL);
	unregister_trace_mm_compaction_try_to_compact_pages(kmt_probe_compact_try,
							    NULL);
}
#else
int kmt_register_compaction(void)
{
	return -EOPNOTSUPP;
}

void kmt_unregister_compaction(void)
{
}
#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record layouts of recorder ABI version 1, whose records were
 * LEB128 varints (Documentation/trace/kmemtrace-format.rst, "ABI version
 * 1 records").  The uapi header defines only the current layouts; the
 * reader keeps these to recognise old traces with the exact hot layouts,
 * and the tests to write such traces.
 */
#ifndef KMT_LAYOUTS_V1_H
#define KMT_LAYOUTS_V1_H

#include <linux/kmemtrace.h>

#define KMT_V1_FLD(id, enc, name)	{ KMT_F_##id, KMT_ENC_##enc, name }
#define KMT_DEFINE_LAYOUTS_V1(name)					\
static const struct kmt_layout name[] = {				\
	{ KMT_EV_KMALLOC, 6, {0}, "kmalloc", {				\
		KMT_V1_FLD(CALL_SITE, TEXT, "call_site"),		\
		KMT_V1_FLD(PTR, DMAP, "ptr"),				\
		KMT_V1_FLD(BYTES_REQ, UVAR, "bytes_req"),		\
		KMT_V1_FLD(BYTES_SLACK, UVAR, "bytes_slack"),		\
		KMT_V1_FLD(GFP, UVAR, "gfp_flags"),			\
		KMT_V1_FLD(NODE, SVAR, "node") } },			\
	{ KMT_EV_CACHE_ALLOC, 5, {0}, "kmem_cache_alloc", {		\
		KMT_V1_FLD(CALL_SITE, TEXT, "call_site"),		\
		KMT_V1_FLD(PTR, DMAP, "ptr"),				\
		KMT_V1_FLD(CACHE, UVAR, "cache"),			\
		KMT_V1_FLD(GFP, UVAR, "gfp_flags"),			\
		KMT_V1_FLD(NODE, SVAR, "node") } },			\
	{ KMT_EV_KFREE, 2, {0}, "kfree", {				\
		KMT_V1_FLD(CALL_SITE, TEXT, "call_site"),		\
		KMT_V1_FLD(PTR, DMAP, "ptr") } },			\
	{ KMT_EV_CACHE_FREE, 3, {0}, "kmem_cache_free", {		\
		KMT_V1_FLD(CALL_SITE, TEXT, "call_site"),		\
		KMT_V1_FLD(PTR, DMAP, "ptr"),				\
		KMT_V1_FLD(CACHE, UVAR, "cache") } },			\
	{ KMT_EV_PAGE_ALLOC, 5, {0}, "mm_page_alloc", {			\
		KMT_V1_FLD(PFN1, UVAR, "pfn1"),				\
		KMT_V1_FLD(ORDER, UVAR, "order"),			\
		KMT_V1_FLD(GFP, UVAR, "gfp_flags"),			\
		KMT_V1_FLD(MIGRATETYPE, SVAR, "migratetype"),		\
		KMT_V1_FLD(STACK, STR, "stack") } },			\
	{ KMT_EV_PAGE_FREE, 2, {0}, "mm_page_free", {			\
		KMT_V1_FLD(PFN1, UVAR, "pfn1"),				\
		KMT_V1_FLD(ORDER, UVAR, "order") } },			\
	{ KMT_EV_PAGE_FREE_BATCHED, 1, {0}, "mm_page_free_batched", {	\
		KMT_V1_FLD(PFN1, UVAR, "pfn1") } },			\
	{ KMT_EV_CACHE_DEF, 6, {0}, "cache_def", {			\
		KMT_V1_FLD(CACHE, UVAR, "cache"),			\
		KMT_V1_FLD(OBJ_SIZE, UVAR, "object_size"),		\
		KMT_V1_FLD(SIZE, UVAR, "size"),				\
		KMT_V1_FLD(ALIGN, UVAR, "align"),			\
		KMT_V1_FLD(FLAGS, UVAR, "flags"),			\
		KMT_V1_FLD(NAME, STR, "name") } },			\
	{ KMT_EV_CACHE_DESTROY, 1, {0}, "cache_destroy", {		\
		KMT_V1_FLD(CACHE, UVAR, "cache") } },			\
	{ KMT_EV_MARK, 1, {0}, "mark", {				\
		KMT_V1_FLD(MARK, UVAR, "mark") } },			\
	{ KMT_EV_INITCALL_LEVEL, 1, {0}, "initcall_level", {		\
		KMT_V1_FLD(NAME, STR, "level") } },			\
	{ KMT_EV_INITCALL_START, 1, {0}, "initcall_start", {		\
		KMT_V1_FLD(CALL_SITE, TEXT, "func") } },		\
	{ KMT_EV_INITCALL_FINISH, 2, {0}, "initcall_finish", {		\
		KMT_V1_FLD(CALL_SITE, TEXT, "func"),			\
		KMT_V1_FLD(RET, SVAR, "ret") } },			\
	{ KMT_EV_INIT_EXEC, 1, {0}, "init_exec", {			\
		KMT_V1_FLD(NAME, STR, "filename") } }			\
}

#endif /* KMT_LAYOUTS_V1_H */

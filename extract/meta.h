/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMF_META_H
#define KMF_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Append printf output to a string this function allocated (start from
 * NULL and 0): its capacity is the power of two above the length, so a
 * long run of appends costs linear time.  0 or -ENOMEM.
 */
int kmf_append(char **buf, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The text symbols of /proc/kallsyms ($KMEMFLIGHT_KALLSYMS for tests);
 * *hidden when every address reads 0 (kptr_restrict).
 */
int kmf_read_kallsyms(char **out, size_t *out_len, bool *hidden);
/*
 * Keep the text symbol lines (t, T, w, W) of a NUL-terminated kallsyms
 * text of @len bytes, in place; returns the new length.  *hidden when
 * every address kept reads 0 (kptr_restrict).
 */
size_t kmf_text_symbols(char *buf, size_t len, bool *hidden);
/* The running kernel's GNU build-id as hex, "" if unknown. */
void kmf_read_build_id(char *hex, size_t size);
/* The META lines every file has: release, cmdline, build_id, ... */
int kmf_build_meta(char **meta, size_t *len, unsigned int nr_cpus);
/* The same, for a boot whose command line was @boot_cmdline (NULL: this one's). */
int kmf_build_meta_cmdline(char **meta, size_t *len, unsigned int nr_cpus,
			   const char *boot_cmdline);
/* kallsyms lines made relative to @text_base (save --no-addresses). */
int kmf_relative_kallsyms(char **ksyms, size_t *len, uint64_t text_base);

#endif

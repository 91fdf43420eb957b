/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_KMEMTRACE_H
#define _LINUX_KMEMTRACE_H

#include <uapi/linux/kmemtrace.h>

struct kmem_cache;

#ifdef CONFIG_KMEMTRACE
void __init kmemtrace_init(void);
void kmemtrace_cache_create(struct kmem_cache *s);
#else
static inline void kmemtrace_init(void) { }
static inline void kmemtrace_cache_create(struct kmem_cache *s) { }
#endif

#endif /* _LINUX_KMEMTRACE_H */

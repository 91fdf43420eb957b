/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_KMEMTRACE_TYPES_H
#define _LINUX_KMEMTRACE_TYPES_H

/* Wrappers a task keeps the callers of, nested; deeper ones are counted. */
#define KMEMTRACE_WRAP_DEPTH	4

/**
 * struct kmemtrace_wraps - the allocation wrappers a task is in
 * @depth: wrappers entered and not left, including those not kept
 * @ret:   each kept wrapper's return address, outermost first
 * @in:    an address inside each kept wrapper
 *
 * kmemtrace_wrapper() pushes an entry when a wrapper starts and pops it
 * when it returns, while the recorder records.  An interrupt that enters
 * a wrapper pushes on top of the task's entries and pops its own before
 * it returns, so that each context reads its own on top.
 */
struct kmemtrace_wraps {
	unsigned int	depth;
	unsigned long	ret[KMEMTRACE_WRAP_DEPTH];
	unsigned long	in[KMEMTRACE_WRAP_DEPTH];
};

#endif /* _LINUX_KMEMTRACE_TYPES_H */

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_KMEMTRACE_TYPES_H
#define _LINUX_KMEMTRACE_TYPES_H

/* Wrappers a task keeps the callers of, nested; deeper ones are counted. */
#define KMEMTRACE_WRAP_DEPTH	4

/**
 * struct kmemtrace_wrap - an allocation wrapper a task is in
 * @ret: its return address
 * @in:  an address inside it
 */
struct kmemtrace_wrap {
	unsigned long	ret;
	unsigned long	in;
};

/**
 * struct kmemtrace_wraps - the allocation wrappers a task is in
 * @depth: wrappers entered and not left, including those not kept
 * @wrap:  the kept ones, outermost first
 *
 * kmemtrace_wrapper() pushes an entry when a built-in wrapper starts
 * and pops it when the wrapper returns, while kmemtrace records.  An
 * interrupt that enters a wrapper pushes above the task's entries and
 * pops its own before it returns, so that each context finds its own
 * on top.
 */
struct kmemtrace_wraps {
	unsigned int		depth;
	struct kmemtrace_wrap	wrap[KMEMTRACE_WRAP_DEPTH];
};

#endif /* _LINUX_KMEMTRACE_TYPES_H */

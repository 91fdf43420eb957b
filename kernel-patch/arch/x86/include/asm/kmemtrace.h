/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace's clock on x86: local_clock() as this CPU's scale of the TSC.
 *
 * While sched_clock is the TSC, sched_clock() is
 * cyc2ns_offset + (tsc * cyc2ns_mul >> cyc2ns_shift) with this CPU's
 * cyc2ns data, and local_clock() is that plus a constant for as long as
 * kernel/sched/clock.c's local_clock_copy_until allows: for good once
 * sched_clock is stable, up to the tick window's top before.  A recorder
 * keeps a copy of those numbers per CPU and scales the TSC itself, some
 * 40 instructions cheaper than a call to local_clock(), and 90 cheaper
 * than the filtered one of the boot.  Whatever changes them (a new
 * scale, a resume, the TSC found unstable, a tick, a change of regime)
 * sets the limit to 0 first: a stale copy is never used.
 */
#ifndef _ASM_X86_KMEMTRACE_H
#define _ASM_X86_KMEMTRACE_H

#include <linux/build_bug.h>
#include <linux/linkage.h>
#include <linux/percpu.h>
#include <asm/asm.h>
#include <asm/msr.h>

/**
 * struct arch_kmt_clock - a copy of sched_clock()'s scale of the TSC,
 *                         or local_clock()'s
 * @offset: nanoseconds at TSC 0
 * @mul:    nanoseconds = TSC * @mul >> @shift
 * @shift:  at most 32
 * @lshift: 32 - @shift
 */
struct arch_kmt_clock {
	u64	offset;
	u32	mul;
	u8	shift;
	u8	lshift;
};

bool arch_kmt_clock_get(struct arch_kmt_clock *c);

/**
 * arch_kmt_clock_read - the clock from a copy
 * @c: the copy, taken on this CPU
 *
 * TSC * mul >> shift as two 64-bit products, of the TSC's low and high
 * halves: the same nanoseconds as mul_u64_u32_shr(), the high half's
 * exact since shift <= 32, without the 128-bit product that makes
 * callers realign their stack.  The halves are taken as RDTSC leaves
 * them, in EAX and EDX with the upper halves of RAX and RDX cleared (as
 * rdtsc() declares them on x86-64), not joined into one value to be
 * split again.
 *
 * Return: sched_clock() or local_clock() on this CPU, as copied, in
 * nanoseconds.
 */
static __always_inline u64 arch_kmt_clock_read(const struct arch_kmt_clock *c)
{
	unsigned long lo, hi;

	/* 64-bit halves: ARCH_HAS_KMEMTRACE_CLOCK is x86-64's only */
	BUILD_BUG_ON(sizeof(lo) != sizeof(u64));
	asm volatile("rdtsc" : "=a" (lo), "=d" (hi));
	return c->offset + ((lo * c->mul) >> c->shift) +
	       ((hi * c->mul) << c->lshift);
}

u64 kmt_clock_slow(void);
asmlinkage void arch_kmt_clock_slow_thunk(void);

/**
 * arch_kmt_clock_slow - kmt_clock_slow() for a caller short of registers
 *
 * Through a thunk that keeps every register but RAX (kmemtrace_64.S):
 * the recorder's fast path, which calls nothing else, makes this call
 * (a stale copy, or none) without saving the registers a call may
 * clobber.
 *
 * Return: kmt_clock_slow(), local_clock() on this CPU.
 */
static __always_inline u64 arch_kmt_clock_slow(void)
{
	u64 ts;

	asm volatile("call arch_kmt_clock_slow_thunk"
		     : "=a" (ts), ASM_CALL_CONSTRAINT
		     :
		     : "memory");
	return ts;
}

#endif /* _ASM_X86_KMEMTRACE_H */

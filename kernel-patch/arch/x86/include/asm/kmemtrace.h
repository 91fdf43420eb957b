/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace's clock on x86: local_clock() as this CPU's scale of the TSC.
 *
 * While sched_clock is the TSC, sched_clock() is
 * cyc2ns_offset + (tsc * cyc2ns_mul >> cyc2ns_shift) with this CPU's
 * cyc2ns data, and once it is stable local_clock() is that plus
 * __sched_clock_offset.  A recorder keeps a copy of those numbers per CPU
 * and scales the TSC itself, some 40 instructions cheaper than a call to
 * local_clock(); before sched_clock is stable it hands its sched_clock()
 * to local_clock_at().  The copy is checked before each use against a
 * per-CPU generation that tsc.c bumps whenever the numbers change (a new
 * scale, a resume, the TSC found unstable): a stale copy is never used.
 */
#ifndef _ASM_X86_KMEMTRACE_H
#define _ASM_X86_KMEMTRACE_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/linkage.h>
#include <linux/percpu.h>
#include <asm/asm.h>
#include <asm/msr.h>

DECLARE_PER_CPU(atomic_t, tsc_clock_gen);

/**
 * struct arch_kmt_clock - a copy of local_clock()'s or sched_clock()'s
 *                         scale of the TSC
 * @offset: nanoseconds at TSC 0
 * @mul:    nanoseconds = TSC * @mul >> @shift
 * @shift:  at most 32
 * @lshift: 32 - @shift
 * @gen:    this CPU's tsc_clock_gen the copy was taken at; U64_MAX: none
 */
struct arch_kmt_clock {
	u64	offset;
	u32	mul;
	u8	shift;
	u8	lshift;
	u64	gen;
};

bool arch_kmt_clock_get(struct arch_kmt_clock *c, bool local);

/**
 * arch_kmt_clock_valid - whether @c is still this CPU's clock
 * @c: a copy taken on this CPU, with preemption disabled since
 *
 * Return: true if arch_kmt_clock_read(@c) is the clock it copied,
 * local_clock() or sched_clock(), on this CPU.
 */
static __always_inline bool arch_kmt_clock_valid(const struct arch_kmt_clock *c)
{
	return (u64)(u32)this_cpu_read(tsc_clock_gen.counter) == READ_ONCE(c->gen);
}

/**
 * arch_kmt_clock_read - the clock from a valid copy
 * @c: the copy, arch_kmt_clock_valid()
 *
 * TSC * mul >> shift as two 64-bit products, of the TSC's low and high
 * halves: the same nanoseconds as mul_u64_u32_shr(), the high half's
 * exact since shift <= 32, without the 128-bit product that makes
 * callers realign their stack.  The halves are taken as RDTSC leaves
 * them, in EAX and EDX with the upper halves of RAX and RDX cleared (as
 * rdtsc() declares them on x86-64), not joined into one value to be
 * split again.
 *
 * Return: local_clock() or sched_clock() on this CPU, as copied, in
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

struct kmt_cpu;
u64 kmt_clock_slow(struct kmt_cpu *cb);
asmlinkage void arch_kmt_clock_slow_thunk(void);

/**
 * arch_kmt_clock_slow - kmt_clock_slow() for a caller short of registers
 * @cb: this CPU's buffer
 *
 * Through a thunk that keeps every register but RAX (kmemtrace_64.S):
 * the recorder's fast path, which calls nothing else, makes this call
 * (the boot's clock, or one without a copy) without saving the
 * registers a call may clobber.
 *
 * Return: kmt_clock_slow(@cb), local_clock() on this CPU.
 */
static __always_inline u64 arch_kmt_clock_slow(struct kmt_cpu *cb)
{
	u64 ts;

	asm volatile("call arch_kmt_clock_slow_thunk"
		     : "=a" (ts), ASM_CALL_CONSTRAINT
		     : "D" (cb)
		     : "memory");
	return ts;
}

#endif /* _ASM_X86_KMEMTRACE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace's clock without a valid copy of it (a stale copy, or none
 * with a paravirt sched_clock), for its fast path:
 * a call that leaves every register but RAX as it was, so that the fast
 * path, which calls nothing else, saves no register for it
 * (asm/kmemtrace.h).  Built with the recorder: kmt_clock_slow() is
 * mm/kmemtrace/buffer.c's.
 */
#include <linux/linkage.h>
#include <asm/asm.h>

/* RAX = kmt_clock_slow(); the other registers kept. */
SYM_FUNC_START(arch_kmt_clock_slow_thunk)
	pushq %rbp
	movq %rsp, %rbp

	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %rcx
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11

	call kmt_clock_slow

	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rcx
	popq %rdx
	popq %rsi
	popq %rdi
	popq %rbp
	RET
SYM_FUNC_END(arch_kmt_clock_slow_thunk)
_ASM_NOKPROBE(arch_kmt_clock_slow_thunk)

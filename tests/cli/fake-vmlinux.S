/* A stand-in for vmlinux (t0017): the functions of the test traces' kallsyms,
 * with calls whose return addresses are the traces' callsites. */
	.text
	.globl	_stext
_stext:
	nop
	.org	0x1000
	.globl	alloc_thing
	.type	alloc_thing, @function
alloc_thing:
	.fill	0xb, 1, 0x90
	call	helper_init		/* returns to alloc_thing+0x10 */
	.fill	0x2b, 1, 0x90
	call	helper_init		/* returns to alloc_thing+0x40 */
	ret
	.size	alloc_thing, . - alloc_thing
	.org	0x2000
	.type	helper_init, @function
helper_init:
	call	free_thing		/* returns to helper_init+0x5 */
	ret
	.size	helper_init, . - helper_init
	.org	0x3000
	.globl	free_thing
	.type	free_thing, @function
free_thing:
	.fill	0x3, 1, 0x90
	call	alloc_thing		/* returns to free_thing+0x8 */
	ret
	.size	free_thing, . - free_thing

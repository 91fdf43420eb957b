/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols and source lines from the kernel's vmlinux (libelf, libdw),
 * instead of the kallsyms snapshot in the trace.
 */
#ifndef KMT_VMLINUX_H
#define KMT_VMLINUX_H

#include "kmt.h"

struct kmt_vmlinux {
	int fd;
	void *elf;		/* Elf * */
	void *dwarf;		/* Dwarf *, NULL without debug info */
	char build_id[129];	/* hex, "" if the file has none */
	struct kmt_symtab st;	/* names point into the file's string table */
};

/*
 * Open @path and check it against @t: build-id (unless @t has none),
 * KASLR slide from _stext.  @st is ready for kmt_symtab_format().
 */
int kmt_vmlinux_open(struct kmt_vmlinux *v, const char *path,
		     const struct kmt_trace *t, struct kmt_err *err);
void kmt_vmlinux_close(struct kmt_vmlinux *v);

#endif

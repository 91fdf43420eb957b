// SPDX-License-Identifier: GPL-2.0
/*
 * kmemflight report --vmlinux: name callsites from the kernel image with
 * libelf (its symbol table and build-id) and, where it has DWARF, give
 * their file:line with libdw.  The image must be the recording kernel's:
 * the build-ids are compared.  A KASLR boot ran at an offset from the
 * image's link addresses: the trace's _stext minus the image's.
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmlinux.h"

static void note_build_id(Elf *elf, char *hex, size_t size)
{
	Elf_Scn *scn = NULL;

	hex[0] = '\0';
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff, i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const char *name = (const char *)d->d_buf + noff;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp(name, "GNU", 4))
				continue;
			for (i = 0; i < nh.n_descsz && 2 * i + 2 < size; i++)
				snprintf(hex + 2 * i, 3, "%02x",
					 ((const unsigned char *)d->d_buf)[doff + i]);
			return;
		}
	}
}

static int load_symbols(struct kmt_vmlinux *v, Elf *elf, uint64_t *stext,
			struct kmt_err *err)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0, i, n;
	bool have_stext = false;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			int type;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name || !sym.st_value)
				continue;
			if (!strcmp(name, "_stext")) {
				*stext = sym.st_value;
				have_stext = true;
			}
			type = GELF_ST_TYPE(sym.st_info);
			if (type != STT_FUNC && type != STT_NOTYPE)
				continue;
			if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS)
				continue;
			if (v->st.nr == cap) {
				struct kmt_sym *ns;

				cap = cap ? cap * 2 : 4096;
				ns = realloc(v->st.syms, cap * sizeof(*ns));
				if (!ns)
					return -ENOMEM;
				v->st.syms = ns;
			}
			v->st.syms[v->st.nr].addr = sym.st_value;
			v->st.syms[v->st.nr].name = name;
			v->st.syms[v->st.nr].name_len = (uint32_t)strlen(name);
			v->st.syms[v->st.nr].global =
				GELF_ST_BIND(sym.st_info) != STB_LOCAL;
			v->st.nr++;
		}
	}
	if (!v->st.nr)
		return kmt_errf(err, ENOENT, "no symbol table (a stripped image?)");
	if (!have_stext)
		return kmt_errf(err, ENOENT,
				"no _stext symbol: not a kernel image, or one this tool cannot place");
	kmt_symtab_sort(&v->st);
	return 0;
}

/* file:line of @addr (in the image's addresses), from DWARF. */
static int dwarf_line(void *ctx, uint64_t addr, char *buf, size_t size)
{
	struct kmt_vmlinux *v = ctx;
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *file;
	int line = 0;

	if (!dwarf_addrdie(v->dwarf, addr, &cu))
		return -ENOENT;
	l = dwarf_getsrc_die(&cu, addr);
	if (!l)
		return -ENOENT;
	file = dwarf_linesrc(l, NULL, NULL);
	if (!file || dwarf_lineno(l, &line))
		return -ENOENT;
	snprintf(buf, size, "%s:%d", file, line);
	return 0;
}

int kmt_vmlinux_open(struct kmt_vmlinux *v, const char *path,
		     const struct kmt_trace *t, struct kmt_err *err)
{
	char want[129];
	uint64_t stext = 0;
	Elf *elf;
	int ret;

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return kmt_errf(err, EINVAL, "libelf: %s", elf_errmsg(-1));
	v->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (v->fd < 0) {
		ret = errno;
		return kmt_errf(err, ret, "%s: %s", path, strerror(ret));
	}
	elf = elf_begin(v->fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		kmt_vmlinux_close(v);
		return kmt_errf(err, ENOEXEC, "%s: not an ELF file", path);
	}
	v->elf = elf;
	note_build_id(elf, v->build_id, sizeof(v->build_id));
	if (!kmt_trace_meta(t, "build_id", want, sizeof(want)))
		want[0] = '\0';
	if (want[0] && strcmp(want, v->build_id)) {
		ret = kmt_errf(err, ESRCH,
			       "%s: build-id %s does not match the trace's %s: not the recording kernel",
			       path, v->build_id[0] ? v->build_id : "(none)", want);
		kmt_vmlinux_close(v);
		return ret;
	}
	ret = load_symbols(v, elf, &stext, err);
	if (ret) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg);
		if (ret == -ENOMEM)
			kmt_errf(err, ENOMEM, "out of memory");
		else
			kmt_errf(err, -ret, "%s: %s", path, why);
		kmt_vmlinux_close(v);
		return ret;
	}
	v->st.slide = (int64_t)(t->fmt.text_base - stext);
	v->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (v->dwarf) {
		v->st.line = dwarf_line;
		v->st.line_ctx = v;
	}
	return 0;
}

void kmt_vmlinux_close(struct kmt_vmlinux *v)
{
	if (v->dwarf)
		dwarf_end(v->dwarf);
	if (v->elf)
		elf_end(v->elf);
	if (v->fd >= 0)
		close(v->fd);
	free(v->st.syms);
	memset(v, 0, sizeof(*v));
	v->fd = -1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is the kernel image of report --vmlinux,
 * read with libelf (symbols, build-id) and libdw (file:line), placed
 * against a trace whose _stext is the default x86-64 one; then a few
 * addresses around it are named, as the report would.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "../../lib/vmlinux.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t probe[] = {
		0, 0xffffffff81000000ULL, 0xffffffff81001010ULL,
		0xffffffff81002005ULL, 0xffffffffc0000000ULL, ~0ULL,
	};
	static struct kmt_trace t;	/* no META: no build-id to compare */
	struct kmt_vmlinux v;
	struct kmt_err err;
	char path[64], name[512];
	unsigned int i;
	int fd;

	fd = memfd_create("vmlinux", MFD_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(kmt_write_all(fd, data, size) == 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	t.fmt.text_base = 0xffffffff81000000ULL;
	if (!kmt_vmlinux_open(&v, path, &t, &err)) {
		for (i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
			kmt_symtab_format(&v.st, probe[i], false, name, sizeof(name));
			CHECK(strlen(name) < sizeof(name));
		}
		kmt_vmlinux_close(&v);
	} else {
		CHECK(err.msg[0]);
	}
	close(fd);
	return 0;
}

#!/bin/sh
# shellcheck disable=SC2016,SC1091
# report --vmlinux: callsites named from an ELF image with libelf, file:line
# from its DWARF with libdw, checked by build-id, placed across KASLR.  The
# image is fake-vmlinux.S, assembled with -g and linked where the basic
# trace's kallsyms put its functions, with the trace's build-id 00112233.
. "$(dirname "$0")/lib.sh"

image() {	# image NAME LINK-ADDRESS BUILD-ID [nodebug]
	cp "$TEST_DIR/fake-vmlinux.S" . || return 1
	if [ "${4:-}" = nodebug ]; then
		as -o "$1.o" fake-vmlinux.S || return 1
	else
		as -g -o "$1.o" fake-vmlinux.S || return 1
	fi
	ld -o "$1" -Ttext="$2" --build-id="$3" -e _stext "$1.o"
}

test_expect_success 'report --vmlinux: the same callsites as kallsyms, with file:line' '
	"$MKTRACE" basic t.kmt && image vmlinux 0xffffffff81000000 0x00112233 &&
	"$KMF" report --vmlinux vmlinux t.kmt > out 2> err &&
	sed "s| ($PWD/fake-vmlinux.S:[0-9]*)||; s/^--*$/-/" out | tr -s " " > names &&
	sed "s/^--*$/-/" "$TEST_DIR/expect/basic.report" | tr -s " " > want &&
	test_cmp want names &&
	grep -q "^ alloc_thing+0x10 ($PWD/fake-vmlinux.S:12) |       160/80    |" out &&
	columns_aligned out &&
	grep -q "^ helper_init+0x5 ($PWD/fake-vmlinux.S:20)  *|" out &&
	grep -q "^ alloc_thing+0x40 ($PWD/fake-vmlinux.S:14) |" out &&
	test ! -s err
'

test_expect_success 'a KASLR boot: the image linked 16 MiB lower names the same' '
	"$MKTRACE" basic t.kmt && image vmlinux 0xffffffff80000000 0x00112233 &&
	"$KMF" report --vmlinux vmlinux t.kmt > out &&
	grep -q "^ alloc_thing+0x40 ($PWD/fake-vmlinux.S:14) |" out &&
	"$KMF" report --phase --vmlinux vmlinux t.kmt > /dev/null &&
	"$KMF" report --live --vmlinux vmlinux t.kmt | sed -n "/^ Callsite/,/^ total/p" > live &&
	grep -q "^ alloc_thing+0x10 ($PWD/fake-vmlinux.S:12) |" live &&
	columns_aligned live
'

test_expect_success 'another kernel'"'"'s image is refused by its build-id' '
	"$MKTRACE" basic t.kmt && image vmlinux 0xffffffff81000000 0xdeadbeef &&
	test_must_fail "$KMF" report --vmlinux vmlinux t.kmt 2> err &&
	grep -q "^kmemflight report: error: vmlinux: build-id deadbeef does not match the trace.s 00112233: not the recording kernel$" err
'

test_expect_success 'no debug info: names only, and a warning' '
	"$MKTRACE" basic t.kmt && image vmlinux 0xffffffff81000000 0x00112233 nodebug &&
	"$KMF" report --vmlinux vmlinux t.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/basic.report" out &&
	grep -q "warning: vmlinux has no debug info: no file:line" err
'

test_expect_success 'not an ELF, stripped, missing: each says why (exit 1)' '
	"$MKTRACE" basic t.kmt && image vmlinux 0xffffffff81000000 0x00112233 &&
	test_must_fail "$KMF" report --vmlinux fake-vmlinux.S t.kmt 2> err &&
	grep -q "error: fake-vmlinux.S: not an ELF file" err &&
	strip -o stripped vmlinux &&
	test_must_fail "$KMF" report --vmlinux stripped t.kmt 2> err &&
	grep -q "error: stripped: no symbol table (a stripped image?)" err &&
	test_must_fail "$KMF" report --vmlinux nothere t.kmt 2> err &&
	grep -q "error: nothere: No such file or directory" err
'

test_done

#!/bin/sh
# shellcheck disable=SC2016,SC1091,SC2034 # SQ is used inside the test strings
# Corrupt, truncated, foreign and missing files: a specific error, exit 1,
# never a crash and never an empty report (t0021-cut.sh: cut files).
. "$(dirname "$0")/lib.sh"
SQ="'"

# poke FILE OFFSET BYTES(octal escapes): overwrite bytes in place
poke() {
	# shellcheck disable=SC2059 # the bytes come as printf escapes
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

test_expect_success 'missing file' '
	test_must_fail "$KMF" report nothere.kmt 2> err &&
	grep -q "nothere.kmt: no such file (record one with .kmemflight save nothere.kmt.)" err
'

test_expect_success 'empty file' '
	: > e.kmt &&
	test_must_fail "$KMF" report e.kmt > out 2> err &&
	grep -q "e.kmt: empty file" err &&
	test ! -s out
'

test_expect_success 'a directory' '
	mkdir d.kmt &&
	test_must_fail "$KMF" report d.kmt 2> err &&
	grep -q "d.kmt: not a regular file" err
'

test_expect_success 'a foreign file (an ELF binary)' '
	cp "$KMF" elf.kmt &&
	test_must_fail "$KMF" report elf.kmt 2> err &&
	grep -q "not a kmemflight trace (no KMTRACE magic)" err
'

test_expect_success 'truncated file (last byte cut): what is whole, a warning, exit 1' '
	"$MKTRACE" basic t.kmt &&
	size=$(wc -c < t.kmt) &&
	head -c $((size - 1)) t.kmt > cut.kmt &&
	test_must_fail "$KMF" report cut.kmt > out 2> err &&
	echo "kmemflight report: warning: cut.kmt is cut at $((size - 1)) of $size bytes, 1 short: CPU 1${SQ}s events after 0.000004500 s are missing" > want &&
	test_cmp want err &&
	grep -q "^Events: 13 (kmalloc 4, kmem_cache_alloc 2, kfree 3, kmem_cache_free 1, page alloc 1, page free 0, other 2)$" out
'

test_expect_success 'truncated to the header only' '
	"$MKTRACE" basic t.kmt &&
	head -c 20 t.kmt > cut.kmt &&
	test_must_fail "$KMF" info cut.kmt 2> err &&
	grep -q "too short for a kmemflight header" err
'

test_expect_success 'bad byte-order mark' '
	"$MKTRACE" basic t.kmt &&
	poke t.kmt 8 "\001\002\003\004" &&
	test_must_fail "$KMF" report t.kmt 2> err &&
	grep -q "byte-order mark 0x04030201 is invalid" err
'

test_expect_success 'compressed sections read as the plain ones; a corrupt frame is named' '
	"$MKTRACE" basic plain.kmt && "$MKTRACE" zstd z.kmt &&
	"$KMF" report --caller plain.kmt > want &&
	"$KMF" report --caller z.kmt > got &&
	test_cmp want got &&
	"$KMF" dump plain.kmt > want && "$KMF" dump z.kmt > got &&
	test_cmp want got &&
	off=$(LC_ALL=C grep -abo "$(printf "\\050\\265\\057\\375")" z.kmt | head -1 | cut -d: -f1) &&
	test -n "$off" &&
	poke z.kmt $((off + 4)) "\377\377\377\377\377\377" &&
	test_must_fail "$KMF" report z.kmt 2> err &&
	grep -q "z.kmt: section 1 (type 2) is marked compressed but does not start with a zstd frame that gives its size" err
'

test_expect_success 'newer file version' '
	"$MKTRACE" basic t.kmt &&
	poke t.kmt 12 "\011\000" &&
	test_must_fail "$KMF" report t.kmt 2> err &&
	grep -q "file version 9; this kmemflight reads versions 1 to 2" err
'

test_expect_success 'recorder ABI version it does not know' '
	"$MKTRACE" basic t.kmt &&
	poke t.kmt 52 "\003\000" &&
	test_must_fail "$KMF" report t.kmt 2> err &&
	grep -q "recorder ABI version 3; this kmemflight reads versions 1 to 2" err
'

test_expect_success 'corrupt sub-buffer magic is caught, named by CPU' '
	"$MKTRACE" basic t.kmt &&
	off=$(grep -abo KMSB t.kmt | head -1 | cut -d: -f1) &&
	poke t.kmt "$off" "XXXX" &&
	test_must_fail "$KMF" report t.kmt > out 2> err &&
	grep -q "cpu 0: sub-buffer 0 has a bad magic" err &&
	test ! -s out
'

test_expect_success 'record of an undescribed event type' '
	"$MKTRACE" basic t.kmt &&
	off=$(grep -abo KMSB t.kmt | head -1 | cut -d: -f1) &&
	poke t.kmt $((off + 32)) "\000" &&
	test_must_fail "$KMF" dump t.kmt 2> err &&
	grep -q "cpu 0: sub-buffer 0: record of an undescribed event type at offset 32" err
'

test_done

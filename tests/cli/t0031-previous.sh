#!/bin/sh
# shellcheck disable=SC2016,SC1091
# kmemflight save --previous against a fake tracefs kmemtrace/previous/
# (info, data, release) laid out like the kernel's: the previous boot's
# sub-buffers saved as a trace, a sub-buffer that does not decode cut,
# and every way there is nothing to save refused with exit 1.
. "$(dirname "$0")/lib.sh"

mkks() {
	printf '%s\n' "ffffffff81000000 T _stext" "ffffffff81001000 T alloc_thing" \
		"ffffffff81002000 t helper_init" "ffffffff81003000 T free_thing" \
		"ffffffff82000000 D some_data" > ks
}

save() {
	KMEMFLIGHT_TRACEFS=$PWD/tfs KMEMFLIGHT_KALLSYMS=$PWD/ks "$KMF" save "$@"
}

# previous/ as the kernel gives it after a crash: CPU 0's sub-buffers,
# then CPU 1's; REGION is the state info says
mkprev() {
	"$MKTRACE" tracefs tfs && mkks &&
	p=tfs/kmemtrace/previous && mkdir -p "$p" &&
	cat tfs/kmemtrace/per_cpu/cpu0/data tfs/kmemtrace/per_cpu/cpu1/data > "$p/data" &&
	printf "region: %s\naddress: 0x000000001c000000\nsize: 0x0000000000800000\nsubbufs: 63\nsubbuf_size: 131072\nboots: 1\nbuild_id: 00\nkept: 2\nbytes: 310\ndropped: 0\ntorn: 0\nmode: %s\nstext: 0xffffffff81000000\ncmdline: console=ttyS0 the previous one\ncpu0: from 0\ncpu1: from 0\n" \
		"${1:-kept}" "${2:-boot}" > "$p/info" &&
	: > "$p/release"
}

test_expect_success 'save --previous writes the previous boot: its events, its command line, then releases the region' '
	mkprev &&
	save --previous prev.kmt > out &&
	grep -q "^\[ kmemflight: saved 14 events of the previous boot from 2 CPUs (0 lost) to prev.kmt" out &&
	test "$(stat -c %a prev.kmt)" = 600 &&
	test "$(cat tfs/kmemtrace/previous/release)" = 1 &&
	"$KMF" info prev.kmt > info &&
	grep -q "^cmdline:     console=ttyS0 the previous one$" info &&
	grep -q "^saved: .*, by the boot after the one recorded (save --previous)$" info &&
	grep -q "^recorder: .* 63 x 4096-byte sub-buffers" info &&
	info_json_matches prev.kmt &&
	grep -qx "  \"previous_boot\": true," prev.kmt.json &&
	"$KMF" report prev.kmt > got &&
	test_cmp "$TEST_DIR/expect/basic.report" got &&
	test "$(cat tfs/kmemtrace/enable)" = 1
'

test_expect_success 'save --previous -k keeps the region; a flight-mode boot gets its mode' '
	mkprev kept flight &&
	save -q -k --previous prev.kmt &&
	test ! -s tfs/kmemtrace/previous/release &&
	"$KMF" info prev.kmt > info &&
	grep -q "^mode:        flight" info &&
	info_json_matches prev.kmt &&
	grep -qx "  \"mode\": \"flight\"," prev.kmt.json &&
	"$KMF" report --window prev.kmt > win &&
	grep -q "^Trigger:   none" win
'

test_expect_success 'a sub-buffer that does not decode ends its CPU: the rest is saved, with a warning' '
	mkprev &&
	n0=$(wc -c < tfs/kmemtrace/per_cpu/cpu0/data) &&
	printf "\377" | dd of=tfs/kmemtrace/previous/data bs=1 seek=$((n0 + 32)) conv=notrunc status=none &&
	save --previous prev.kmt > out 2> err &&
	grep -qx "kmemflight save: warning: 1 sub-buffers of the previous boot did not decode (written over at the reset, or never written back): each CPU.s trace ends before its first such one" err &&
	n=$(sed -n "s/.*saved \([0-9]*\) events of the previous boot.*/\1/p" out) &&
	test "$n" -gt 0 && test "$n" -lt 14 &&
	"$KMF" report prev.kmt > /dev/null
'

test_expect_success 'a damaged sub-buffer header: nothing saved, exit 1' '
	mkprev &&
	printf "XXXX" | dd of=tfs/kmemtrace/previous/data bs=1 conv=notrunc status=none &&
	echo old > prev.kmt &&
	test_must_fail save --previous prev.kmt 2> err &&
	grep -qx "kmemflight save: error: previous/data has an invalid sub-buffer at byte 0" err &&
	test "$(cat prev.kmt)" = old && test ! -s tfs/kmemtrace/previous/release
'

test_expect_success 'another kernel'"'"'s region, or garbage: a clear error, exit 1, nothing written' '
	mkprev foreign &&
	test_must_fail save --previous prev.kmt 2> err &&
	grep -qx "kmemflight save: error: the recorder.s region holds no trace of this kernel: another kernel wrote it, or it was damaged; nothing saved. The kernel.s log says which (.dmesg | grep kmemtrace.); booting the kernel that wrote it reads it, and the recorder formats it when it next takes the region for its pool" err &&
	test ! -e prev.kmt
'

test_expect_success 'nothing kept (saved, released): exit 1, says so' '
	mkprev free &&
	test_must_fail save --previous prev.kmt 2> err &&
	grep -q "^kmemflight save: error: nothing of the previous boot is kept (the region is free): " err &&
	test ! -e prev.kmt
'

test_expect_success 'a boot without the region: exit 1, says how to get one' '
	"$MKTRACE" tracefs tfs && mkks &&
	test_must_fail save --previous prev.kmt 2> err &&
	grep -q "^kmemflight save: error: this boot keeps nothing of the previous one: boot with reserve_mem=SIZE:ALIGN:NAME kmemtrace.persist=NAME" err &&
	test ! -e prev.kmt
'

test_expect_success 'save --previous: usage errors exit 2' '
	mkprev &&
	test_must_fail --code=2 save --previous --from-ftrace prev.kmt 2> err1 &&
	grep -q "^kmemflight save: --previous saves the kmemtrace recorder.s region, not ftrace.s buffer$" err1 &&
	test_must_fail --code=2 save --previous --boot-dir d 2> err2 &&
	grep -q "^kmemflight save: --previous goes with neither --spool nor --boot-dir: give the <file>$" err2 &&
	test ! -e prev.kmt && test ! -s tfs/kmemtrace/previous/release
'

test_done

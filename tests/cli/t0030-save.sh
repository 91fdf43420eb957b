#!/bin/sh
# shellcheck disable=SC2016,SC1091
# kmemflight save against a fake tracefs tree laid out like the kernel's
# (KMEMFLIGHT_TRACEFS points the tool at it; KMEMFLIGHT_DEBUGFS at an
# older kernel's debugfs, KMEMFLIGHT_LOCKDOWN at securityfs's lockdown
# file): what it writes, how it fails, and that a failed save never
# replaces a good file.
. "$(dirname "$0")/lib.sh"

mkks() {
	printf '%s\n' "ffffffff81000000 T _stext" "ffffffff81001000 T alloc_thing" \
		"ffffffff81002000 t helper_init" "ffffffff81003000 T free_thing" \
		"ffffffff82000000 D some_data" > ks
}

save() {
	KMEMFLIGHT_TRACEFS=$PWD/tfs KMEMFLIGHT_DEBUGFS=$PWD/olddbg KMEMFLIGHT_LOCKDOWN=$PWD/lockdown KMEMFLIGHT_KALLSYMS=$PWD/ks "$KMF" save "$@"
}

test_expect_success 'save writes a 0600 file that reports like the source' '
	"$MKTRACE" tracefs tfs && "$MKTRACE" basic ref.kmt && mkks &&
	save boot.kmt > out &&
	grep -q "^\[ kmemflight: saved 14 events from 2 CPUs (0 lost) to boot.kmt" out &&
	test "$(stat -c %a boot.kmt)" = 600 &&
	"$KMF" report boot.kmt > got &&
	test_cmp "$TEST_DIR/expect/basic.report" got
'

test_expect_success 'save onto a FIFO or a directory: refused, exit 1, the FIFO stays one' '
	"$MKTRACE" tracefs tfs && mkks && mkfifo fifo && mkdir dir &&
	test_must_fail save -q fifo 2> err &&
	test -p fifo &&
	grep -q "^kmemflight save: error: fifo: not a regular file: a trace is written to a new file and renamed into place$" err &&
	test_must_fail save -q dir 2> err &&
	test -d dir &&
	grep -q "^kmemflight save: error: dir: is a directory$" err &&
	test ! -e spool
'

test_expect_success 'save keeps the kernel totals: /proc/meminfo and /proc/vmstat at the save' '
	"$MKTRACE" tracefs tfs && mkks && mkdir proc &&
	printf "MemTotal:        1008892 kB\nMemFree:          936448 kB\nSlab:              12345 kB\n" > proc/meminfo &&
	printf "nr_free_pages 234112\nnr_slab_unreclaimable_B 9000\n" > proc/vmstat &&
	printf "Node 0, zone    DMA32\n              count: 602\n" > proc/zoneinfo &&
	KMEMFLIGHT_PROC=$PWD/proc save -q boot.kmt &&
	"$KMF" info boot.kmt > out &&
	grep -q "^meminfo:     MemTotal 1033105408 bytes, MemFree 958922752 bytes at the save (and /proc/vmstat)$" out &&
	rm proc/vmstat proc/meminfo proc/zoneinfo &&
	KMEMFLIGHT_PROC=$PWD/proc save -q boot2.kmt 2> err &&
	grep -q "^kmemflight save: warning: $PWD/proc/meminfo: \|^kmemflight save: warning: cannot read $PWD/proc/meminfo (No such file or directory): the file will not have the kernel.s totals" err &&
	grep -q "cannot read $PWD/proc/vmstat (No such file or directory)" err &&
	grep -q "cannot read $PWD/proc/zoneinfo (No such file or directory)" err &&
	"$KMF" info boot2.kmt > out &&
	! grep -q "^meminfo:" out
'

test_expect_success 'save stops the recorder and flushes it' '
	"$MKTRACE" tracefs tfs && mkks &&
	save -q boot.kmt &&
	test "$(cat tfs/kmemtrace/enable)" = 0 &&
	test "$(cat tfs/kmemtrace/flush)" = 1
'

test_expect_success 'save --keep-recording leaves it running' '
	"$MKTRACE" tracefs tfs && mkks &&
	save -q --keep-recording boot.kmt &&
	test "$(cat tfs/kmemtrace/enable)" = 1
'

test_expect_success 'the pool: save gives the buffers back once the file is written, -k keeps them' '
	"$MKTRACE" pool tfs && mkks &&
	save -q --keep-recording boot.kmt &&
	test ! -s tfs/kmemtrace/free_buffer &&
	save -q boot2.kmt &&
	test "$(cat tfs/kmemtrace/free_buffer)" = 1 &&
	# the whole pool, as report --footprint counts it, not what a CPU held
	"$KMF" report --live boot2.kmt 2> /dev/null | grep -qx "The recorder.s own: 0 bytes in 0 objects and 0 bytes of pages, allocated by its functions and its initcalls (in the tables), and 131072 bytes of buffers in one pool for the machine" &&
	"$KMF" report --live --json boot2.kmt 2> /dev/null | grep -q "\"buffer_bytes\": 131072," &&
	"$MKTRACE" pool tfs && rm tfs/kmemtrace/flush && mkdir tfs/kmemtrace/flush &&
	test_must_fail save boot3.kmt 2> err &&
	test ! -s tfs/kmemtrace/free_buffer && test ! -e boot3.kmt
'

test_expect_success 'the pool: buffers that cannot be given back are a warning, the file is saved' '
	"$MKTRACE" pool tfs && mkks &&
	rm tfs/kmemtrace/free_buffer && mkdir tfs/kmemtrace/free_buffer &&
	save boot.kmt > out 2> err &&
	grep -q "^\[ kmemflight: saved " out &&
	grep -qx "kmemflight save: warning: saved, but the recorder keeps its buffers: $PWD/tfs/kmemtrace/free_buffer: Is a directory" err &&
	"$KMF" info boot.kmt > /dev/null
'

test_expect_success 'the file keeps only text symbols, and the cache table' '
	"$MKTRACE" tracefs tfs && mkks &&
	save -q boot.kmt &&
	"$KMF" info boot.kmt > info &&
	grep -q "^caches:      2$" info &&
	! grep -q some_data boot.kmt &&
	grep -q "^1 192 192 8 0 dentry$" boot.kmt
'

# 400 more text symbols after the callsites': 13 KB of kallsyms
mkks_big() {
	mkks && i=0 &&
	while [ "$i" -lt 400 ]; do
		printf "ffffffff8101%04x T filler_function_%d\n" $((i * 16)) "$i"
		i=$((i + 1))
	done >> ks
}

test_expect_success 'save stores a large kallsyms as zstd, a small one as is; both name the same' '
	"$MKTRACE" tracefs tfs && mkks &&
	save -q --keep-recording small.kmt &&
	mkks_big &&
	save -q big.kmt &&
	grep -q "T alloc_thing$" small.kmt &&
	! grep -q filler_function big.kmt &&
	"$KMF" info small.kmt | grep -qx "symbols:     4 text symbols, 118 bytes, 118 in the file" &&
	"$KMF" info big.kmt > info &&
	grep -x "symbols:     404 text symbols, [0-9]* bytes, [0-9]* in the file (zstd)" info > line &&
	text=$(grep "^[0-9a-f]* [tTwW] " ks | wc -c) &&
	grep -q " $text bytes, " line &&
	stored=$(sed "s/.* bytes, \([0-9]*\) in the file.*/\1/" line) &&
	test "$stored" -lt $((text / 3)) &&
	"$KMF" report --caller small.kmt > want &&
	"$KMF" report --caller big.kmt > got &&
	test_cmp want got
'

test_expect_success 'save --no-addresses: no kernel address, the same report' '
	"$MKTRACE" tracefs tfs && mkks &&
	save -q --keep-recording full.kmt &&
	save -q --no-addresses rel.kmt &&
	! grep -q ffffffff81 rel.kmt && grep -q ffffffff81 full.kmt &&
	grep -q "^0000000000001000 T alloc_thing$" rel.kmt &&
	"$KMF" info rel.kmt | grep -q "^addresses:   relative to _stext and the direct map (saved with --no-addresses)$" &&
	! "$KMF" info full.kmt | grep -q "^addresses:" &&
	"$KMF" report --caller --page rel.kmt > got &&
	"$KMF" report --caller --page full.kmt > want &&
	test_cmp want got &&
	"$KMF" dump full.kmt | sed "s/ptr=0xffff8880*\([1-9a-f]\)/ptr=0x\1/" > want &&
	"$KMF" dump rel.kmt > got &&
	test_cmp want got &&
	grep -q "ptr=0x1000 " got
'

test_expect_success 'no recorder in the kernel: names CONFIG_KMEMTRACE' '
	mkdir tfs &&
	test_must_fail save boot.kmt 2> err &&
	grep -q "kmemtrace not found: this kernel has no kmemtrace recorder (build it with CONFIG_KMEMTRACE=y" err &&
	test ! -e boot.kmt
'

test_expect_success 'an older kernel: the recorder in debugfs is read too' '
	mkdir tfs && "$MKTRACE" debugfs olddbg && "$MKTRACE" basic ref.kmt && mkks &&
	save boot.kmt > out &&
	grep -q "^\[ kmemflight: saved 14 events from 2 CPUs (0 lost) to boot.kmt" out &&
	test "$(cat olddbg/kmemtrace/enable)" = 0 &&
	"$KMF" report boot.kmt > got &&
	test_cmp "$TEST_DIR/expect/basic.report" got &&
	! "$KMF" info boot.kmt | grep -q "^buffers:"
'

test_expect_success 'CPUs that never came up are left out, a CPU without a buffer keeps its losses' '
	"$MKTRACE" hotplug tfs && mkks &&
	save boot.kmt > out 2> err &&
	grep -q "^\[ kmemflight: saved 14 events from 3 CPUs (5 lost) to boot.kmt" out &&
	"$KMF" info boot.kmt > info &&
	grep -q "^buffers:     524288 bytes on 2 of 4 possible CPUs (allocated as they came up)$" info &&
	grep -q "^3 .* 0 *5$" info &&
	! grep -q "^2 " info &&
	grep -q "warning: 5 events were lost on CPUs that got no buffer (out of memory when they came up: see the kernel log)$" err &&
	"$KMF" report boot.kmt > got 2> err &&
	grep -q "^Events lost: 5 (cpu0 0, cpu1 0, cpu3 5)$" got &&
	grep -v "^Events lost:" got > got.rest &&
	grep -v "^Events lost:" "$TEST_DIR/expect/basic.report" > want.rest &&
	test_cmp want.rest got.rest
'

test_expect_success 'the pool: a CPU that holds none of it now is read all the same, info names the pool' '
	"$MKTRACE" pool tfs && mkks &&
	save boot.kmt > out 2> err &&
	grep -q "^\[ kmemflight: saved 14 events from 3 CPUs (5 lost) to boot.kmt" out &&
	"$KMF" info boot.kmt > info &&
	grep -q "^recorder:    ABI 2, 64-bit, 32 x 4096-byte sub-buffers in one pool for all CPUs, clock local_clock$" info &&
	grep -q "^buffers:     131072 bytes in one pool; after the save 8192 of them held by 1 of 4 possible CPUs$" info &&
	awk "\$1 == 1 { exit !(\$5 > 0) }" info &&
	"$KMF" report boot.kmt > got 2> err &&
	grep -v "^Events lost:" got > got.rest &&
	grep -v "^Events lost:" "$TEST_DIR/expect/basic.report" > want.rest &&
	test_cmp want.rest got.rest
'

# What save writes that mktrace does not: the save time, the kernel's
# totals, zstd symbols, relative addresses, a pool and per-CPU buffers.
test_expect_success 'info --json of saved files: what the text says, the buffers and the pool exact' '
	"$MKTRACE" pool tfs && mkks_big && mkdir proc &&
	printf "MemTotal:        1008892 kB\nMemFree:          936448 kB\n" > proc/meminfo &&
	KMEMFLIGHT_PROC=$PWD/proc save -q --keep-recording --no-addresses pool.kmt 2> /dev/null &&
	info_json_matches pool.kmt &&
	"$MKTRACE" hotplug tfs && rm proc/meminfo &&
	KMEMFLIGHT_PROC=$PWD/proc save -q hotplug.kmt 2> /dev/null &&
	info_json_matches hotplug.kmt &&
	python3 -c "
import json, re
d = json.load(open(\"pool.kmt.json\"))
assert d[\"recorder\"] == {\"abi\": 2, \"word_bits\": 64, \"subbufs\": 32, \"subbuf_size\": 4096, \"pool\": True, \"clock\": \"local_clock\"}, d
assert d[\"buffers\"] == {\"kind\": \"pool\", \"bytes\": 131072, \"held_bytes\": 8192, \"cpus\": 1, \"possible_cpus\": 4}, d
assert d[\"meminfo\"] == {\"mem_total\": 1033105408, \"mem_free\": 958922752, \"vmstat\": False}, d
assert d[\"addresses\"] == \"relative\" and d[\"previous_boot\"] is False, d
assert re.match(r\"^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$\", d[\"saved_at\"]), d
assert d[\"symbols\"][\"count\"] == 404 and d[\"symbols\"][\"zstd\"] is True, d
assert d[\"total\"][\"lost\"] == 5 and [c[\"cpu\"] for c in d[\"cpus\"]] == [0, 1, 3], d
d = json.load(open(\"hotplug.kmt.json\"))
assert d[\"buffers\"] == {\"kind\": \"per_cpu\", \"bytes\": 524288, \"held_bytes\": None, \"cpus\": 2, \"possible_cpus\": 4}, d
assert d[\"addresses\"] == \"absolute\" and d[\"meminfo\"] is None, d
"
'

test_expect_success 'lockdown=confidentiality: says what lockdown closes, writes nothing' '
	mkdir tfs && echo "none integrity [confidentiality]" > lockdown &&
	test_must_fail save boot.kmt 2> err &&
	grep -q "tfs/kmemtrace: the kernel is locked down for confidentiality (lockdown=confidentiality in /sys/kernel/security/lockdown), which closes tracefs, and with it the recorder and ftrace; lockdown=integrity, what Secure Boot gives on Debian, Fedora, RHEL and Ubuntu, leaves them open" err &&
	test $(wc -l < err) = 1 &&
	test ! -e boot.kmt
'

test_expect_success 'lockdown=integrity and an older kernel: debugfs refuses, says why' '
	command -v setpriv >/dev/null || exit 0
	mkdir tfs && "$MKTRACE" debugfs olddbg && mkks &&
	chmod 0755 . olddbg olddbg/kmemtrace &&
	echo "none [integrity] confidentiality" > lockdown && chmod 0644 lockdown &&
	cp "$KMF" ./kmf && chmod 0755 ./kmf && mkdir out && chmod 1777 out &&
	test_must_fail setpriv --reuid=65534 --regid=65534 --clear-groups \
		env KMEMFLIGHT_TRACEFS=$PWD/tfs KMEMFLIGHT_DEBUGFS=$PWD/olddbg \
		KMEMFLIGHT_LOCKDOWN=$PWD/lockdown ./kmf save out/x.kmt 2> err &&
	grep -q "olddbg/kmemtrace/header: Permission denied: the kernel is locked down (lockdown=integrity, as Secure Boot sets it), which closes debugfs, where this kernel has its recorder (kmemtrace before it moved to tracefs); a kernel with /sys/kernel/tracing/kmemtrace can be saved under lockdown=integrity" err &&
	test ! -e out/x.kmt
'

test_expect_success 'a flush that fails is reported, no file written' '
	"$MKTRACE" tracefs tfs && mkks &&
	rm tfs/kmemtrace/flush && mkdir tfs/kmemtrace/flush &&
	test_must_fail save boot.kmt 2> err &&
	grep -q "cannot flush the recorder" err &&
	test ! -e boot.kmt
'

test_expect_success 'an empty recorder is an error, not an empty file' '
	"$MKTRACE" tracefs tfs && mkks &&
	: > tfs/kmemtrace/per_cpu/cpu0/data && : > tfs/kmemtrace/per_cpu/cpu1/data &&
	test_must_fail save boot.kmt 2> err &&
	grep -q "the recorder holds no events" err &&
	test ! -e boot.kmt
'

test_expect_success 'corrupt kernel data: error, and the good file stays' '
	"$MKTRACE" tracefs tfs && mkks &&
	save -q boot.kmt && cp boot.kmt good.kmt &&
	printf XXXX | dd of=tfs/kmemtrace/per_cpu/cpu1/data conv=notrunc status=none &&
	test_must_fail save boot.kmt 2> err &&
	grep -q "inconsistent: cpu 1: sub-buffer 0 has a bad magic" err &&
	cmp boot.kmt good.kmt &&
	test -z "$(ls -A | grep "^\.boot")"
'

test_expect_success 'a full disk: error, and the good file stays whole' '
	# root only (a 64 KiB tmpfs); elsewhere there is nothing to check
	mkdir disk && mount -t tmpfs -o size=64k tmpfs disk 2>/dev/null || exit 0
	"$MKTRACE" tracefs tfs && mkks &&
	save -q disk/boot.kmt && cp disk/boot.kmt good.kmt &&
	dd if=/dev/zero of=disk/fill bs=1k count=100 status=none 2>/dev/null
	test_must_fail save disk/boot.kmt 2> err
	rc=$?
	ls -A disk > left
	cmp disk/boot.kmt good.kmt
	same=$?
	umount disk
	cat err
	test $rc = 0 && test $same = 0 &&
	grep -q "^kmemflight save: error: disk/boot.kmt: No space left on device$" err &&
	grep -q "the events are kept in $PWD/spool: fix the cause and run save again" err &&
	printf "boot.kmt\nfill\n" > want && test_cmp want left
'

test_expect_success 'unwritable directory: error, nothing left behind' '
	"$MKTRACE" tracefs tfs && mkks &&
	test_must_fail save nodir/boot.kmt 2> err &&
	grep -q "cannot create a file next to nodir/boot.kmt" err
'

test_expect_success 'its report to a full disk: the file is saved, the write error said, exit 1' '
	"$MKTRACE" tracefs tfs && mkks &&
	test_must_fail save boot.kmt > /dev/full 2> err &&
	echo "kmemflight save: error: cannot write the output: No space left on device" > want &&
	test_cmp want err &&
	"$KMF" report boot.kmt > got &&
	test_cmp "$TEST_DIR/expect/basic.report" got
'

test_expect_success 'a symlink at the target is replaced, not followed' '
	"$MKTRACE" tracefs tfs && mkks &&
	echo precious > victim && ln -s victim boot.kmt &&
	save -q boot.kmt &&
	test "$(cat victim)" = precious &&
	test -f boot.kmt && ! test -L boot.kmt
'

test_expect_success 'not root: the recorder is root-only' '
	command -v setpriv >/dev/null || exit 0
	"$MKTRACE" tracefs tfs && mkks && chmod 0700 tfs/kmemtrace && chmod 0755 . &&
	cp "$KMF" ./kmf && chmod 0755 ./kmf && mkdir out && chmod 1777 out &&
	test_must_fail setpriv --reuid=65534 --regid=65534 --clear-groups \
		env KMEMFLIGHT_TRACEFS=$PWD/tfs KMEMFLIGHT_DEBUGFS=$PWD/olddbg KMEMFLIGHT_LOCKDOWN=$PWD/lockdown ./kmf save out/x.kmt 2> err &&
	grep -q "permission denied: the recorder is root-only (run as root)" err
'

# save --boot-dir: what kmemflight-save.service runs at every boot
boot_id() { cat /proc/sys/kernel/random/boot_id; }

test_expect_success 'save --boot-dir: this boot by its id, 0600, the summary next to it, the directory 0700' '
	"$MKTRACE" tracefs tfs && mkks &&
	id=$(boot_id) &&
	save --boot-dir lib/kmf > out &&
	grep -qx "\[ kmemflight: saved 14 events from 2 CPUs (0 lost) to lib/kmf/boot-$id.kmt, [0-9.]* bytes/event \]" out &&
	test "$(stat -c %a lib/kmf)" = 700 &&
	test "$(stat -c %a lib/kmf/boot-$id.kmt)" = 600 &&
	test "$(stat -c %a lib/kmf/boot-$id.summary)" = 600 &&
	"$KMF" summary lib/kmf/boot-$id.kmt > want 2> /dev/null &&
	test_cmp want lib/kmf/boot-$id.summary &&
	ls -A lib/kmf > got && printf "boot-%s.kmt\nboot-%s.summary\n" "$id" "$id" > want &&
	test_cmp want got
'

test_expect_success 'save --keep-boots 2: this boot and the newest other, the rest removed with their summaries' '
	"$MKTRACE" tracefs tfs && mkks &&
	id=$(boot_id) && mkdir -m 0700 d &&
	for b in old older newest; do echo "$b" > d/boot-$b.kmt && echo s > d/boot-$b.summary; done &&
	touch -d "2026-01-01 00:00" d/boot-older.kmt &&
	touch -d "2026-02-01 00:00" d/boot-old.kmt &&
	touch -d "2026-03-01 00:00" d/boot-newest.kmt &&
	echo mine > d/notes.txt && echo x > victim && ln -s ../victim d/boot-link.kmt &&
	save --boot-dir d --keep-boots 2 > out &&
	grep -q "to d/boot-$id.kmt, [0-9.]* bytes/event; removed 2 older boots \]$" out &&
	ls -A d > got &&
	printf "%s\n" boot-$id.kmt boot-$id.summary boot-link.kmt boot-newest.kmt boot-newest.summary notes.txt > want &&
	test_cmp want got && test "$(cat victim)" = x
'

test_expect_success 'save --keep-boots 1 keeps only this boot; saved again the same boot, it is replaced' '
	"$MKTRACE" tracefs tfs && mkks &&
	id=$(boot_id) && mkdir d && echo a > d/boot-a.kmt &&
	save -q --boot-dir d --keep-boots 1 &&
	"$MKTRACE" tracefs tfs &&
	save --boot-dir d/ --keep-boots 1 > out &&
	grep -q "to d/boot-$id.kmt, [0-9.]* bytes/event \]$" out &&
	ls -A d > got && printf "%s\n" boot-$id.kmt boot-$id.summary > want && test_cmp want got
'

test_expect_success 'save --boot-dir: usage errors exit 2 and touch nothing' '
	"$MKTRACE" tracefs tfs && mkks &&
	test_must_fail --code=2 save --keep-boots 3 boot.kmt 2> err1 &&
	grep -q "^kmemflight save: --keep-boots goes with --boot-dir$" err1 &&
	for n in 0 -1 abc 3x 10001 ""; do
		test_must_fail --code=2 save --boot-dir d --keep-boots "$n" 2> err2 &&
		grep -q "^kmemflight save: --keep-boots .$n.: a number of boots from 1 to 10000$" err2 || exit 1
	done &&
	test_must_fail --code=2 save --boot-dir d boot.kmt 2> err3 &&
	grep -q "^kmemflight save: --boot-dir names the file: no <file> with it$" err3 &&
	test_must_fail --code=2 save --from-ftrace --boot-dir d 2> err4 &&
	grep -q "^kmemflight save: --boot-dir is for the kmemtrace recorder, not --from-ftrace$" err4 &&
	test ! -e d && test "$(cat tfs/kmemtrace/enable)" = 1
'

test_expect_success 'save --boot-dir on a file: error before the recorder is stopped' '
	"$MKTRACE" tracefs tfs && mkks && echo x > f &&
	test_must_fail save --boot-dir f 2> err &&
	grep -qx "kmemflight save: error: f: not a directory" err &&
	test "$(cat tfs/kmemtrace/enable)" = 1
'

test_expect_success 'a failed save rotates nothing: the older boots stay' '
	mkdir tfs d && echo a > d/boot-a.kmt && echo b > d/boot-b.kmt &&
	test_must_fail save --boot-dir d --keep-boots 1 2> err &&
	grep -q "this kernel has no kmemtrace recorder" err &&
	ls -A d > got && printf "%s\n" boot-a.kmt boot-b.kmt > want && test_cmp want got
'

test_done

#!/bin/sh
# shellcheck disable=SC2016,SC1091
# kmemflight attach and the spool: the attach drains a fake tracefs (FIFOs
# stand in for the kernel's data files), save merges the spool with what
# is left in the kernel, refuses gaps, duplicates, foreign and unsafe
# spools, and never loses drained events when it cannot write the file.
. "$(dirname "$0")/lib.sh"

mkks() {
	printf '%s\n' "ffffffff81000000 T _stext" "ffffffff81001000 T alloc_thing" \
		"ffffffff81002000 t helper_init" "ffffffff81003000 T free_thing" \
		"ffffffff82000000 D some_data" > ks
}

kmf() {
	KMEMFLIGHT_TRACEFS=$PWD/tfs KMEMFLIGHT_DEBUGFS=$PWD/olddbg KMEMFLIGHT_LOCKDOWN=$PWD/lockdown KMEMFLIGHT_KALLSYMS=$PWD/ks "$KMF" "$@"
}

# The kernel's read consumes: empty the fake data files after a drain.
consumed() {
	for f in tfs/kmemtrace/per_cpu/cpu*/data; do : > "$f"; done
}

test_expect_success 'save merges the spool and the kernel into the same events' '
	"$MKTRACE" split tfs spool && "$MKTRACE" many ref.kmt && mkks &&
	test "$(wc -c < spool/cpu0)" = 2450 &&
	kmf save -q boot.kmt 2> err &&
	"$KMF" dump boot.kmt > got && "$KMF" dump ref.kmt > want &&
	test_cmp want got &&
	"$KMF" info boot.kmt | awk "\$1 == 0" > row &&
	echo "0 0 91 1000 1000 7" > want && tr -s " " < row > got &&
	test_cmp want got &&
	test ! -e spool
'

test_expect_success 'save adds up every attach of the boot, and says if one died' '
	"$MKTRACE" split tfs spool && mkks &&
	printf "%s\n" \
		"start pid=11 mono_ns=1 cpus=1 reads=0 bytes=0 user_us=0 sys_us=0 lost=3" \
		"stop pid=11 mono_ns=2 cpus=1 reads=2 bytes=100 user_us=1000 sys_us=500 reason=signal" \
		"start pid=12 mono_ns=3 cpus=1 reads=0 bytes=0 user_us=0 sys_us=0 lost=9" \
		"stop pid=12 mono_ns=4 cpus=1 reads=1 bytes=50 user_us=0 sys_us=500 reason=signal" \
		"start pid=13 mono_ns=5 cpus=1 reads=0 bytes=0 user_us=0 sys_us=0 lost=9" > spool/log &&
	kmf save boot.kmt > out 2> err &&
	echo "[ kmemflight: attach pid 11 (and re-attaches) drained 150 bytes in 3 reads using 2.0 ms CPU; 3 events were lost before it started; an attach ended without stopping cleanly ]" > want &&
	head -1 out > got && test_cmp want got &&
	"$KMF" info boot.kmt | grep -q "^attach:      attach pid 11 (and re-attaches) drained 150 bytes" &&
	info_json_matches boot.kmt &&
	grep -q "^  \"attach\": \"attach pid 11 (and re-attaches) drained 150 bytes in 3 reads using 2.0 ms CPU; 3 events were lost before it started; an attach ended without stopping cleanly\",\$" boot.kmt.json
'

test_expect_success 'a sub-buffer missing between spool and kernel: error, spool kept' '
	"$MKTRACE" split-gap tfs spool && mkks &&
	test_must_fail kmf save boot.kmt 2> err &&
	grep -q "cpu 0: sub-buffer sequence jumps from 8 to 10 (sub-buffers missing)" err &&
	grep -q "the events are kept in $PWD/spool: fix the cause and run save again" err &&
	test -s spool/cpu0 && test ! -e boot.kmt
'

test_expect_success 'a sub-buffer in both spool and kernel: error, not saved twice' '
	"$MKTRACE" split-dup tfs spool && mkks &&
	test_must_fail kmf save boot.kmt 2> err &&
	grep -q "cpu 0: sub-buffer 9 comes again after 9 (duplicated sub-buffers)" err &&
	test ! -e boot.kmt
'

test_expect_success 'a spool of another boot is left alone' '
	"$MKTRACE" split tfs spool && mkks &&
	echo 00000000-0000-0000-0000-000000000000 > spool/boot_id &&
	test_must_fail kmf save boot.kmt 2> err &&
	grep -q "spool $PWD/spool holds events of another boot (boot_id 00000000-0000-0000-0000-000000000000" err &&
	test "$(wc -c < spool/cpu0)" = 2450 && test ! -e boot.kmt
'

test_expect_success 'a symlinked or world-writable spool is refused' '
	"$MKTRACE" tracefs tfs && mkks && mkdir real && ln -s real spool &&
	test_must_fail kmf save boot.kmt 2> err &&
	grep -q "spool $PWD/spool is not a directory (a symlink?): refusing it" err &&
	rm spool && mkdir spool && chmod 0777 spool &&
	test_must_fail kmf attach 2> err &&
	grep -q "spool $PWD/spool is owned by uid [0-9]* or writable by others: refusing it" err &&
	test ! -e boot.kmt
'

test_expect_success 'a failed write keeps the drained events for the next save' '
	"$MKTRACE" tracefs tfs && mkks &&
	test_must_fail kmf save nodir/boot.kmt 2> err &&
	grep -q "the events are kept in $PWD/spool" err &&
	consumed &&
	kmf save -q boot.kmt &&
	"$KMF" report boot.kmt > got &&
	test_cmp "$TEST_DIR/expect/basic.report" got
'

test_expect_success 'save without a usable spool place still saves, and says so' '
	"$MKTRACE" tracefs tfs && mkks &&
	KMEMFLIGHT_SPOOL=$PWD/no/such/dir kmf save -q boot.kmt 2> err &&
	grep -q "cannot create the spool $PWD/no/such/dir: No such file or directory; saving without a spool" err &&
	"$KMF" report boot.kmt > got &&
	test_cmp "$TEST_DIR/expect/basic.report" got
'

test_expect_success 'attach in the foreground copies every CPU into the spool' '
	"$MKTRACE" tracefs tfs && mkks &&
	kmf attach > out &&
	grep -q "^kmemflight: recording kernel memory events from 2 CPUs into $PWD/spool; .kmemflight save FILE. to stop$" out &&
	cmp spool/cpu0 tfs/kmemtrace/per_cpu/cpu0/data &&
	cmp spool/cpu1 tfs/kmemtrace/per_cpu/cpu1/data &&
	grep -q "^stop pid=[0-9]* .* reason=eof$" spool/log &&
	grep -q "^start pid=[0-9]* .* lost=0$" spool/log &&
	consumed && kmf save boot.kmt > out &&
	grep -q "^\[ kmemflight: attach pid [0-9]* drained [0-9]* bytes in 2 reads using [0-9.]* ms CPU; 0 events were lost before it started \]$" out &&
	"$KMF" report boot.kmt > got &&
	test_cmp "$TEST_DIR/expect/basic.report" got
'

test_expect_success 'attach --daemon drains as data comes; save stops it and merges' '
	"$MKTRACE" tracefs tfs && mkks &&
	for c in 0 1; do
		d=tfs/kmemtrace/per_cpu/cpu$c && mv $d/data full$c && mkfifo $d/data || exit 1
	done &&
	exec 3<> tfs/kmemtrace/per_cpu/cpu0/data 4<> tfs/kmemtrace/per_cpu/cpu1/data &&
	: > initrd-release &&
	KMEMFLIGHT_INITRD_RELEASE=$PWD/initrd-release kmf attach --daemon > out &&
	grep -q "^kmemflight: recording kernel memory events from 2 CPUs into $PWD/spool;" out &&
	pid=$(cut -d" " -f1 spool/lock) && grep -q "^$pid attach$" spool/lock && test "$(head -c1 /proc/$pid/cmdline)" = @ &&
	cat full0 >&3 && cat full1 >&4 &&
	test_must_fail kmf attach 2> err &&
	grep -q "already attached: pid $pid holds the spool $PWD/spool (.kmemflight save FILE. stops an attach)" err &&
	kmf attach --daemon --if-not-attached > out2 2> err2 &&
	grep -qx "kmemflight: already attached: pid $pid drains the spool $PWD/spool; nothing to do" out2 &&
	test ! -s err2 && grep -q "^$pid attach$" spool/lock &&
	kmf attach --if-not-attached -q > out3 && test ! -s out3 &&
	kmf save boot.kmt > out &&
	bytes=$(cat full0 full1 | wc -c) &&
	grep -q "attach pid $pid drained $bytes bytes in 2 reads" out &&
	"$KMF" report boot.kmt > got &&
	test_cmp "$TEST_DIR/expect/basic.report" got &&
	test ! -e spool
'

test_expect_success 'attach takes on a CPU that comes up after it started; no @ outside an initramfs' '
	"$MKTRACE" tracefs tfs && mkks &&
	d=tfs/kmemtrace/per_cpu && mv $d/cpu0/data full0 && mkfifo $d/cpu0/data &&
	mv $d/cpu1/data full1 &&
	exec 3<> $d/cpu0/data &&
	KMEMFLIGHT_INITRD_RELEASE=$PWD/no-initrd-release kmf attach --daemon > out &&
	grep -q "^kmemflight: recording kernel memory events from 1 CPUs into $PWD/spool;" out &&
	pid=$(cut -d" " -f1 spool/lock) &&
	test "$(head -c1 /proc/$pid/cmdline)" != @ &&
	test ! -e spool/cpu1 &&
	cp full1 $d/cpu1/new && mv $d/cpu1/new $d/cpu1/data &&
	i=0 && while ! cmp -s spool/cpu1 full1; do
		i=$((i + 1)) && test $i -lt 3000 && sleep 0.1 || exit 1
	done &&
	: > $d/cpu1/data &&
	cat full0 >&3 &&
	kmf save boot.kmt > out &&
	"$KMF" report boot.kmt > got &&
	test_cmp "$TEST_DIR/expect/basic.report" got
'

test_expect_success 'one save at a time: a second save or an attach waits its turn' '
	"$MKTRACE" tracefs tfs && mkks && mkdir -m 700 spool &&
	echo "4242 save" > spool/lock &&
	{ flock -o spool/lock sleep 300 < /dev/null > /dev/null 2>&1 & } && fpid=$! &&
	while flock -n spool/lock true; do sleep 0.05; done &&
	test_must_fail kmf save boot.kmt 2> err &&
	grep -q "another .kmemflight save. (pid 4242) is using the spool $PWD/spool: one save at a time" err &&
	test_must_fail kmf attach 2> err &&
	grep -q "a .kmemflight save. (pid 4242) is using the spool $PWD/spool: attach again once it is done" err &&
	kill $fpid && test ! -e boot.kmt
'

test_expect_success 'attach without the recorder, or with it off, says why' '
	mkdir tfs &&
	test_must_fail kmf attach 2> err &&
	grep -q "kmemtrace not found: this kernel has no kmemtrace recorder" err &&
	"$MKTRACE" tracefs tfs && echo 0 > tfs/kmemtrace/enable &&
	test_must_fail kmf attach 2> err &&
	grep -q "the recorder is not recording (.*/enable is 0): boot with kmemtrace.enable=1" err &&
	test ! -e spool/cpu0
'

test_expect_success 'attach usage errors exit 2' '
	test_must_fail --code=2 "$KMF" attach --bogus 2> err &&
	grep -q "unknown option .--bogus." err &&
	test_must_fail --code=2 "$KMF" attach --spool 2> err &&
	grep -q "option .--spool. needs a value" err &&
	test_must_fail --code=2 "$KMF" attach extra 2> err &&
	grep -q "unexpected argument .extra." err
'

test_done

#!/bin/sh
# shellcheck disable=SC2016,SC1091
# The flight recorder on "mktrace flight" (tests/unit/mktrace.c): a save
# whose window the OOM killer froze, the victim pid 42 (hog), 1000 and
# 200 events overwritten before it on cpu 0 and 1.  Worked out by hand:
# cpu 1's window starts last (1500 ns), so the window runs 1500-9000 ns;
# in it alloc_thing+0x10 keeps three 4 KiB objects (12288), helper_init
# +0x5 one 64-byte one of 192 allocated; with --before 8us (from 1000 ns)
# four (16384) and 64 of 256.  And kmemflight watch against a fake
# recorder tree that a trigger froze.
. "$(dirname "$0")/lib.sh"

watch() {
	KMEMFLIGHT_TRACEFS=$PWD/tfs KMEMFLIGHT_DEBUGFS=$PWD/none KMEMFLIGHT_LOCKDOWN=$PWD/none KMEMFLIGHT_KALLSYMS=$PWD/ks "$KMF" watch "$@"
}

mkks() {
	printf '%s\n' "ffffffff81000000 T _stext" "ffffffff81001000 T alloc_thing" \
		"ffffffff81002000 t helper_init" "ffffffff81003000 T free_thing" \
		"ffffffff81004000 T out_of_memory" \
		"ffffffff81005000 t __alloc_pages_slowpath.constprop.0" \
		"ffffffff82000000 D some_data" > ks
}

test_expect_success 'report --window: the trigger, its victim and caller, the window, what it kept' '
	"$MKTRACE" flight t.kmt &&
	"$KMF" report --window t.kmt > got 2> err &&
	test_cmp "$TEST_DIR/expect/flight.window" got &&
	test ! -s err
'

test_expect_success 'report --window --before 8us: further back, where only cpu 0 has events' '
	"$MKTRACE" flight t.kmt &&
	"$KMF" report --window --before 8us t.kmt > got &&
	grep -qx "Shown:     from 0.000001000 s, the 0.000008000 s before the trigger (the start has events of only some CPUs: the others'"'"' were overwritten)" got &&
	grep -q "^ alloc_thing+0x10  *|  *16384 |  *4 |  *16384 |  *0 |" got &&
	grep -q "^ helper_init+0x5  *|  *64 |  *1 |  *256 |  *192 |" got
'

test_expect_success 'info: the mode, the freeze, each CPU'"'"'s overwritten events and window' '
	"$MKTRACE" flight t.kmt &&
	"$KMF" info t.kmt > got &&
	grep -qx "mode:        flight (round-robin: the latest events are kept)" got &&
	grep -qx "frozen:      by oom at 0.000009 s, every CPU stopped 60 ns later" got &&
	grep -qx "cpu      node    subbufs       kernel      in_file       lost  overwritten     frozen  window" got &&
	grep -qx "0           0          1         1007            7          0         1000         30  0.000001-0.000009 s" got &&
	grep -qx "1           0          1          206            6          0          200          0  0.000001-0.000008 s" got &&
	grep -qx "total                            1213           13          0         1200         30" got
'

test_expect_success 'info --json: the mode, the freeze, each CPU'"'"'s overwritten events and window, exact' '
	"$MKTRACE" flight t.kmt &&
	"$KMF" info --json t.kmt > out &&
	test_cmp "$TEST_DIR/expect/flight.info.json" out &&
	info_json_matches t.kmt
'

test_expect_success 'info: a flight file of an older saver (no frozen_dropped) reads as 0 dropped' '
	"$MKTRACE" flight-v1 v.kmt &&
	"$KMF" info v.kmt > got &&
	grep -qx "0           0          1         1007            7          0         1000          0  0.000001-0.000009 s" got &&
	grep -qx "total                            1213           13          0         1200          0" got &&
	"$KMF" report --window v.kmt > /dev/null
'

test_expect_success 'save: the events dropped while frozen, from stats, into the file and its line' '
	"$MKTRACE" flight-recorder tfs && mkks &&
	KMEMFLIGHT_TRACEFS=$PWD/tfs KMEMFLIGHT_DEBUGFS=$PWD/none \
		KMEMFLIGHT_LOCKDOWN=$PWD/none KMEMFLIGHT_KALLSYMS=$PWD/ks \
		"$KMF" save s.kmt > out &&
	cat out &&
	grep -q ", 30 dropped while frozen) to s.kmt" out &&
	"$KMF" info s.kmt > got &&
	grep -q "^0  .* 1000         30  0.000001-0.000009 s$" got
'

test_expect_success 'dump: the trigger'"'"'s record, with its fields and stack' '
	"$MKTRACE" flight t.kmt &&
	"$KMF" dump t.kmt > got &&
	grep -qx "9000 0 task:42 mark order=0 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO mark=3 trigger=oom stack=out_of_memory+0x100<__alloc_pages_slowpath.constprop.0+0x40<alloc_thing+0x20<helper_init+0x8 pid=42 comm=hog" got
'

test_expect_success 'report --window on a boot-mode trace: exit 1, and why' '
	"$MKTRACE" basic b.kmt &&
	test_must_fail "$KMF" report --window b.kmt 2> err &&
	grep -q "no flight-recorder window: the file was not saved from a recorder with flight mode" err
'

test_expect_success '--window is a report of its own; --before needs it and a unit' '
	"$MKTRACE" flight t.kmt &&
	test_must_fail --code=2 "$KMF" report --window --time 1,2 t.kmt 2> err &&
	grep -q "not with --time or --at" err &&
	test_must_fail --code=2 "$KMF" report --window --live t.kmt 2> err &&
	grep -q "is a report of its own" err &&
	test_must_fail --code=2 "$KMF" report --before 5s t.kmt 2> err &&
	grep -q -- "--before goes with --window" err &&
	test_must_fail --code=2 "$KMF" report --window --before 5 t.kmt 2> err &&
	grep -q -- "--before wants a time with a unit" err &&
	test_must_fail --code=2 "$KMF" report --window --before 0s t.kmt
'

test_expect_success 'watch: a frozen recorder is saved (0600, dir 0700) and armed again' '
	"$MKTRACE" flight-recorder tfs && mkks &&
	watch --count 1 fl > out 2> err &&
	cat out &&
	grep -qx "\[ kmemflight: frozen by oom at 0.000009 s \]" out &&
	f=$(ls fl/flight-*-oom.kmt) &&
	test "$(stat -c %a fl)" = 700 && test "$(stat -c %a "$f")" = 600 &&
	test "$(cut -c1 tfs/kmemtrace/frozen)" = 0 &&
	"$KMF" report --window "$f" > got &&
	grep -qx "Victim:    pid 42 (hog)" got &&
	grep -q "^ alloc_thing+0x10  *|  *12288 |" got
'

test_expect_success 'save keeps the tasks at the save: they name the window'"'"'s pids' '
	"$MKTRACE" flight-recorder tfs && mkks &&
	mkdir -p fakeproc/7/task/7 fakeproc/7/task/8 fakeproc/self &&
	echo "0::/system.slice/worker.service" > fakeproc/7/cgroup &&
	echo worker > fakeproc/7/task/7/comm && echo helper > fakeproc/7/task/8/comm &&
	KMEMFLIGHT_PROC=$PWD/fakeproc KMEMFLIGHT_TRACEFS=$PWD/tfs KMEMFLIGHT_DEBUGFS=$PWD/none \
		KMEMFLIGHT_LOCKDOWN=$PWD/none KMEMFLIGHT_KALLSYMS=$PWD/ks \
		"$KMF" save --keep-recording s.kmt > /dev/null &&
	"$KMF" report --window s.kmt > got &&
	grep -q "^ worker  *|  *4224 |  *4096 |  *0 |  *0 |  *3$" got &&
	grep -q "^ hog  *|  *8192 |" got
'

test_expect_success 'save keeps the cgroup tree at the save: ids and paths, no symlink followed' '
	"$MKTRACE" flight-recorder tfs && mkks &&
	mkdir -p cg/system.slice/worker.service cg/init.scope elsewhere/secret.service &&
	ln -s ../elsewhere cg/link.slice &&
	KMEMFLIGHT_CGROUP=$PWD/cg KMEMFLIGHT_PROC=$PWD/none KMEMFLIGHT_TRACEFS=$PWD/tfs \
		KMEMFLIGHT_DEBUGFS=$PWD/none KMEMFLIGHT_LOCKDOWN=$PWD/none \
		KMEMFLIGHT_KALLSYMS=$PWD/ks "$KMF" save --keep-recording s.kmt > /dev/null &&
	"$KMF" info s.kmt > out &&
	grep -qx "tasks:       0 tasks and 4 cgroups at the save" out &&
	grep -aqx "$(stat -c %i cg/system.slice/worker.service)	/system.slice/worker.service" s.kmt &&
	grep -aqx "$(stat -c %i cg/init.scope)	/init.scope" s.kmt &&
	grep -aqx "$(stat -c %i cg/system.slice)	/system.slice" s.kmt &&
	! grep -aq "secret" s.kmt
'

test_expect_success 'watch --keep 1: the next freeze replaces the file, under a new name' '
	"$MKTRACE" flight-recorder tfs && mkks &&
	watch --count 1 --keep 1 fl > out &&
	first=$(ls fl) &&
	"$MKTRACE" flight-recorder tfs &&
	watch --count 1 --keep 1 fl > out &&
	grep -qx "\[ kmemflight: removed 1 older flight file \]" out &&
	test "$(ls fl | wc -l)" = 1 && test "$(ls fl)" != "$first"
'

test_expect_success 'watch: a recorder without flight mode, or none: exit 1, said so' '
	"$MKTRACE" tracefs tfs && mkks &&
	test_must_fail watch fl 2> err &&
	grep -q "this kernel.s recorder has no flight mode" err &&
	rm -rf tfs &&
	test_must_fail watch fl 2> err &&
	grep -q "this kernel has no kmemtrace recorder" err
'

test_expect_success 'watch: usage errors exit 2' '
	test_must_fail --code=2 "$KMF" watch 2> err &&
	grep -q "missing <dir> to save to" err &&
	test_must_fail --code=2 "$KMF" watch --keep 0 d 2> err &&
	grep -q -- "--keep .0. is not a number from 1 to 10000" err &&
	test_must_fail --code=2 "$KMF" watch --count x d &&
	test_must_fail --code=2 "$KMF" watch a b
'

test_done

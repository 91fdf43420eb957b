#!/bin/sh
# shellcheck disable=SC2016,SC1091
# report --latency on "mktrace latency" (tests/unit/kmt_build.c,
# kb_scenario_latency), whose numbers are worked out by hand:
#
#   direct reclaim  pid 100 599 us (begun on CPU 0, ended on CPU 1, a
#                   500 us shrinker call in it), pid 200 50 us; pid 500
#                   ends one it never began: 2 episodes, 1 unpaired
#   compaction      pid 300 300 us after a try (order 9, THP fault),
#                   pid 40 50 us without one
#   shrinkers       super_cache_scan sb-tmpfs: 500 + 10 us, freed 105;
#                   pid 600 starts deferred_split_scan and never returns
#   stalls          pid 100 699 us, pid 300 400 us; pid 200 never
#                   allocates after its reclaim
. "$(dirname "$0")/lib.sh"

test_expect_success 'report --latency --threshold 134us: every table' '
	"$MKTRACE" latency l.kmt &&
	"$KMF" report --latency --threshold 134us l.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/latency.report" out &&
	test ! -s err
'

test_expect_success 'report --latency --json: the same numbers, exact, and valid JSON' '
	"$MKTRACE" latency l.kmt &&
	"$KMF" report --latency --json --threshold 134us l.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/latency.json" out &&
	test ! -s err &&
	python3 -c "
import json, sys
d = json.load(open(\"out\"))
k = {x[\"kind\"]: x for x in d[\"kinds\"]}
assert k[\"direct_reclaim\"][\"episodes\"] == 2 and k[\"direct_reclaim\"][\"max_ns\"] == 599000
assert sum(b[\"count\"] for b in k[\"shrinker_call\"][\"histogram_us\"]) == 2
assert [e[\"latency_ns\"] for e in d[\"episodes\"]] == [699000, 599000, 500000, 400000, 300000]
assert [u[\"missing\"] for u in d[\"unpaired\"]] == [\"allocation\", \"begin\", \"end\"]
" &&
	"$KMF" report --latency --json -l 1 l.kmt > one &&
	python3 -c "
import json
d = json.load(open(\"one\"))
assert len(d[\"episodes\"]) == 1 and len(d[\"unpaired\"]) == 1 and len(d[\"shrinkers\"]) == 1
"
'

test_expect_success 'the threshold is the same in ns, us, ms and s, and filters' '
	"$MKTRACE" latency l.kmt &&
	"$KMF" report --latency --threshold 134us l.kmt > us &&
	"$KMF" report --latency --threshold 134000ns l.kmt > ns &&
	"$KMF" report --latency --threshold 0.134ms l.kmt > ms &&
	"$KMF" report --latency --threshold 0.000134s l.kmt > s &&
	test_cmp us ns && test_cmp us ms && test_cmp us s &&
	"$KMF" report --latency --threshold 600us l.kmt > hi &&
	grep -q "^ direct reclaim     |         2 |         0 |" hi &&
	grep -q "^ allocation stall   |         2 |         1 |" hi &&
	sed -n "/^Direct reclaims at or above 600.000 us/,/^\$/p" hi | grep -q "^ (none)" &&
	"$KMF" report --latency l.kmt > all &&
	head -1 all | grep -q "threshold 0.000 us" &&
	sed -n "/^Direct reclaims/,/^\$/p" all | grep -c "^ 0\\.0" > n &&
	echo 2 | test_cmp - n
'

test_expect_success '-l limits each list; --raw-ip prints callsites as addresses' '
	"$MKTRACE" latency l.kmt &&
	"$KMF" report --latency -l 1 l.kmt > out &&
	sed -n "/^Allocation stalls/,/^\$/p" out | grep -c "^ 0\\.0" > n &&
	echo 1 | test_cmp - n &&
	sed -n "/^Allocation stalls/,/^\$/p" out | grep -q "^ \\.\\.\\.\$" &&
	"$KMF" report --latency --raw-ip l.kmt | grep -q "| 0xffffffff81006030 "
'

test_expect_success '--time keeps the episodes that start in the window' '
	"$MKTRACE" latency l.kmt &&
	"$KMF" report --latency --time 800us,1ms l.kmt > out &&
	grep -q "^ direct reclaim     |         1 |" out &&
	grep -q "^ shrinker call      |         0 |" out &&
	grep -q "pid 200 .*allocation stall" out
'

test_expect_success 'bad thresholds are usage errors (exit 2), naming the value' '
	"$MKTRACE" latency l.kmt &&
	for v in 134 1.5 -3us 12parsecs us "" 1.0000000001s 99999999999999999999s; do
		test_must_fail --code=2 "$KMF" report --latency --threshold "$v" l.kmt 2> err &&
		grep -q "threshold wants a time with a unit ns, us, ms or s (e.g. 134us), not .$v." err ||
		return 1
	done
'

test_expect_success '--threshold needs --latency; --latency stands alone' '
	"$MKTRACE" latency l.kmt &&
	test_must_fail --code=2 "$KMF" report --threshold 1ms l.kmt 2> err &&
	grep -q "threshold goes with --latency" err &&
	for o in --slab --page --live --phase --alloc --csv "-s hit"; do
		# shellcheck disable=SC2086 # "-s hit" is two words
		test_must_fail --code=2 "$KMF" report --latency $o l.kmt 2> err &&
		grep -q "latency is a report of its own" err || return 1
	done
'

test_expect_success 'a trace without the latency groups: exit 1, and how to record them' '
	"$MKTRACE" basic b.kmt &&
	test_must_fail "$KMF" report --latency b.kmt > out 2> err &&
	test ! -s out &&
	grep -q "b.kmt: no reclaim or compaction events were recorded: boot with kmemtrace.events=kmem,boot,latency" err
'

test_expect_success 'a recorder older than the latency events: exit 1, said so' '
	"$MKTRACE" abi1 o.kmt &&
	test_must_fail "$KMF" report --latency o.kmt 2> err &&
	grep -q "o.kmt: its recorder has no latency events" err
'

test_expect_success 'info names the groups recorded, and only when the trace says' '
	"$MKTRACE" latency l.kmt &&
	"$KMF" info l.kmt > out &&
	grep -qx "groups:      kmem,boot,reclaim,compaction (kmemtrace.events=)" out &&
	"$MKTRACE" basic b.kmt &&
	"$KMF" info b.kmt > out &&
	! grep -q "^groups:" out
'

test_expect_success 'dump prints the latency events with their fields' '
	"$MKTRACE" latency l.kmt &&
	"$KMF" dump l.kmt > out &&
	grep -qx "1000 0 task:100 vmscan_direct_reclaim_begin order=0 gfp_flags=GFP_KERNEL comm=memhog" out &&
	grep -qx "1210000 1 task:300 compaction_end zone_start=0x1000 zone_end=0x40000 migrate_pfn=0x2000 free_pfn=0x3f000 mode=async status=success" out &&
	grep -q "^503000 1 task:100 shrink_slab_end node=0 shrink=super_cache_scan+0x0 shr=0xffff888000010000 total_scan=28 freed=100\$" out
'

test_done

#!/bin/sh
# shellcheck disable=SC2016,SC1091
# report --caller on hand-built traces: every column and SUMMARY line.
# The expected numbers are worked out by hand in expect/basic.report.
. "$(dirname "$0")/lib.sh"

test_expect_success 'report --caller on the basic trace' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --caller t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic.report" out
'

test_expect_success 'report defaults to --caller' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic.report" out
'

test_expect_success 'report --page: page SUMMARY and the order x migrate type table' '
	"$MKTRACE" pages t.kmt &&
	"$KMF" report --page t.kmt > out &&
	test_cmp "$TEST_DIR/expect/pages.report" out
'

# perf kmem puts a page allocation without a callchain to the
# tracepoint's own address and prints its rows all the same; a caller
# table of nothing but "(unknown)" says nothing, so report says once,
# first, that there are no callers, and prints no such table
test_expect_success 'report --page without page stacks: said once, up front, no (unknown) rows' '
	"$MKTRACE" pages t.kmt &&
	"$KMF" report --page -v t.kmt > out &&
	head -3 out > got &&
	printf "%s\n" "(no page allocation carries its callers: boot with kmemtrace.page_stack=6 to record them)" \
		"" "SUMMARY (page allocator)" > want &&
	test_cmp want got &&
	test "$(grep -c "page_stack" out)" = 1 &&
	! grep -q "(unknown)\|^ Callsite\|^Frames taken" out &&
	"$KMF" report --page --caller --alloc t.kmt > out &&
	sed -n "1p;3,4p" out > got &&
	printf "%s\n" "(no page allocation carries its callers: boot with kmemtrace.page_stack=6 to record them)" \
		"------------------------------------------------------------------------------------------------------------------------" \
		" Page                               | Total_alloc/Per   | Hit      | Order | Migrate type | GFP flags" > want &&
	test_cmp want got &&
	"$KMF" report --page --json t.kmt > j &&
	python3 -c "
import json
d = json.load(open(\"j\"))
assert d[\"page_summary\"][\"with_stack\"] == 0
assert [r[\"callsite\"] for r in d[\"page_callers\"]] == [None] * 4, d[\"page_callers\"]
"
'

test_expect_success 'dump names GFP flags with the kernel'"'"'s own table' '
	"$MKTRACE" pages t.kmt &&
	"$KMF" dump t.kmt > out &&
	test_cmp "$TEST_DIR/expect/pages.dump" out &&
	"$MKTRACE" basic b.kmt && "$KMF" dump b.kmt > out &&
	grep -q "gfp_flags=0xcc0 " out
'

test_expect_success 'dump names the flags of 6.12 that its kernel'"'"'s table lacks' '
	"$MKTRACE" gfp612 t.kmt &&
	"$KMF" dump t.kmt | sed -n "s/.* gfp_flags=\([^ ]*\).*/\1/p" > got &&
	cat > want <<-EOF &&
	GFP_KERNEL
	GFP_KERNEL|__GFP_NO_OBJ_EXT
	GFP_KERNEL_ACCOUNT|__GFP_ZERO
	GFP_NOWAIT|0x2000000
	GFP_TRANSHUGE
	EOF
	test_cmp want got &&
	"$MKTRACE" gfp612-lockdep t.kmt &&
	"$KMF" dump t.kmt | sed -n "s/.* gfp_flags=\([^ ]*\).*/\1/p" > got &&
	cat > want <<-EOF &&
	GFP_KERNEL
	GFP_KERNEL|__GFP_NOLOCKDEP
	GFP_KERNEL_ACCOUNT|__GFP_ZERO
	GFP_NOWAIT|__GFP_NO_OBJ_EXT
	GFP_TRANSHUGE
	EOF
	test_cmp want got
'

test_expect_success 'report --page: page callers from the recorded stacks' '
	"$MKTRACE" pagestack t.kmt &&
	"$KMF" report --page t.kmt > out &&
	test_cmp "$TEST_DIR/expect/pagestack.report" out &&
	! grep -q "no page allocation carries" out
'

test_expect_success 'report --page -s order,gfp, and -v lists the allocator frames' '
	"$MKTRACE" pagestack t.kmt &&
	"$KMF" report --page -s order,gfp t.kmt > out &&
	sed -n "s/^ \([a-z_(][^ ]*\) .*/\1/p" out | head -4 | tr "\n" " " > got && echo >> got &&
	echo "(unknown) alloc_thing+0x50 new_slab+0x30 helper_init+0x20 " > want &&
	test_cmp want got &&
	"$KMF" report --page -v t.kmt > out &&
	grep -q "^Frames taken as the page allocator.s (the caller is the first other one):$" out &&
	grep -q " alloc_pages_noprof .* alloc_slab_page allocate_slab " out &&
	test_must_fail --code=2 "$KMF" report --page -s frag t.kmt 2> err &&
	grep -q "unknown page sort key .frag. (valid: bytes, hit, callsite, order, migtype, gfp, page)" err
'

test_expect_success 'report --page --alloc: one row per page frame; -s page orders them' '
	"$MKTRACE" pagestack t.kmt &&
	"$KMF" report --page --alloc t.kmt > out &&
	head -11 out > got && test_cmp "$TEST_DIR/expect/pagestack-alloc.report" got &&
	"$KMF" report --page --alloc -s page t.kmt > out &&
	sed -n "s/^ \(0x[0-9a-f]*\) .*/\1/p" out | tr "\n" " " > got && echo >> got &&
	echo "0x1000 0x2000 0x3000 0x4000 0x8000 0x9000 " > want && test_cmp want got &&
	"$KMF" report --page --alloc --json t.kmt > j &&
	python3 -c "
import json
d = json.load(open(\"j\"))
assert [r[\"pfn\"] for r in d[\"page_frames\"]][:2] == [\"0x4000\", \"0x3000\"], d[\"page_frames\"]
assert \"page_callers\" not in d
"
'

test_expect_success 'report --slab --page prints both, slab first' '
	"$MKTRACE" pages t.kmt &&
	"$KMF" report --slab --page t.kmt > out &&
	grep -n "^SUMMARY" out > got &&
	printf "%s\n" "6:SUMMARY (SLAB allocator)" "22:SUMMARY (page allocator)" > want &&
	test_cmp want got &&
	grep -q "^Events: 8 (kmalloc 0, kmem_cache_alloc 0, kfree 0, kmem_cache_free 0, page alloc 5, page free 3, other 0)$" out
'

test_expect_success 'report --alloc: one row per object address' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --alloc t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic-alloc.report" out &&
	"$MKTRACE" realloc r.kmt &&
	"$KMF" report --alloc r.kmt > out &&
	grep -q "^ 0xffff888000001000  *|       192/96    |       160/80    |        2 |         0 | 16.667%$" out
'

test_expect_success 'report --caller --alloc -s ptr: both tables, addresses in order' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --caller --alloc -s ptr t.kmt > out &&
	grep -c "^ Callsite \|^ Alloc Ptr " out > n && echo 2 > want && test_cmp want n &&
	sed -n "s/^ \(0x[0-9a-f]*\) .*/\1/p" out | tr "\n" " " > got &&
	echo >> got &&
	echo "0xffff888000001000 0xffff888000002000 0xffff888000003000 0xffff888000004000 0xffff888000005000 " > want &&
	test_cmp want got
'

test_expect_success '6.12 double traces: a large kmalloc and a batched page free count once' '
	"$MKTRACE" double t.kmt &&
	"$KMF" report --slab --page t.kmt > out &&
	test_cmp "$TEST_DIR/expect/double.report" out &&
	"$KMF" report --live t.kmt > out &&
	! grep -q "allocated again" out &&
	grep -q "^ total  *|        32776 |        3 |        32776 |            0 |$" out
'

test_expect_success 'an event written twice (perf record) counts twice, as perf kmem counts it' '
	"$MKTRACE" repeat t.kmt &&
	"$KMF" report --caller --alloc t.kmt > out &&
	test_cmp "$TEST_DIR/expect/repeat.report" out &&
	"$KMF" report --json t.kmt > out &&
	grep -q "\"double_traced\": 1, \"repeated\": 3, \"repeated_frees\": 2," out &&
	"$KMF" report --live t.kmt > out &&
	grep -q "^(1 objects, 128 bytes, were allocated again at their address" out
'

test_expect_success 'a trace written in the other byte order reads the same' '
	"$MKTRACE" swapped t.kmt &&
	"$KMF" report t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic.report" out &&
	"$KMF" info t.kmt > info &&
	grep -q "foreign byte order" info
'

test_expect_success '--sort hit,callsite and --line 2' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report -s hit,callsite -l 2 t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic-hit-l2.report" out
'

test_expect_success '--raw-ip prints addresses' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --raw-ip t.kmt > out &&
	grep -q "^ 0xffffffff81001010  *|       160/80    |" out
'

test_expect_success 'no kallsyms: raw callsites and a warning' '
	"$MKTRACE" nosyms t.kmt &&
	"$KMF" report t.kmt > out 2> err &&
	grep -q "has no kallsyms: callsites are printed as addresses" err &&
	grep -q "^ 0xffffffff81001010 " out
'

test_expect_success 'lost events: counted per CPU, warned about' '
	"$MKTRACE" many t.kmt &&
	"$KMF" report t.kmt > out 2> err &&
	grep -q "^Events lost: 7 (cpu0 7)$" out &&
	grep -q "7 events were lost while recording: totals are short" err &&
	grep -q "^Events: 1000 (kmalloc 1000," out
'

test_expect_success 'info: per-CPU kernel counts equal the events in the file' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" info t.kmt > out &&
	grep -q "^0  *0  *1  *9  *9  *0$" out &&
	grep -q "^1  *0  *1  *5  *5  *0$" out &&
	grep -q "^total  *14  *14  *0$" out
'

test_expect_success 'dump: one line per event, in time order, exact' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" dump t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic.dump" out
'

test_expect_success 'dump: absolute timestamps across a 3 s gap and 91 sub-buffers' '
	"$MKTRACE" many t.kmt &&
	"$KMF" dump t.kmt > out &&
	test $(wc -l < out) -eq 1000 &&
	sed -n 500p out | grep -q "^749500 0 task:1 kmalloc " &&
	sed -n 501p out | grep -q "^3000751000 0 task:1 kmalloc " &&
	"$KMF" info t.kmt | grep -q "^0  *0  *91  *1000  *1000  *7$" &&
	"$KMF" info t.kmt | grep -q "^recorder:    ABI 2, "
'

test_expect_success 'info: the earliest and the latest event, and the span, to the ns' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" info t.kmt > out &&
	grep "^time:" out > got &&
	echo "time:        0.000000100 s to 0.000007000 s, a span of 0.000006900 s" > want &&
	test_cmp want got &&
	grep -B1 "^cpu " out | head -1 | grep -q "^time:" &&
	"$MKTRACE" clock-step t.kmt &&
	"$KMF" info t.kmt | grep "^time:" > got &&
	echo "time:        0.000001000 s to 0.000003000 s, a span of 0.000002000 s" > want &&
	test_cmp want got
'

test_expect_success 'info --json: what the text says, as numbers, exact' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" info --json t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic.info.json" out &&
	info_json_matches t.kmt
'

# mktrace meta: every line the metadata gives, as no one save writes
# them all (a previous boot's, from ftrace, drained by attach, ...)
test_expect_success 'info --json: every line of the metadata, and the pool in a region, exact' '
	"$MKTRACE" meta t.kmt &&
	"$KMF" info --json t.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/meta.info.json" out &&
	grep -q "note: ftrace source: allocations before its first event at 0.000000 s" err &&
	info_json_matches t.kmt &&
	grep -qx "build-id:    (none)" t.kmt.info &&
	grep -qx "source:      ftrace, instance kmf, overwrite mode; events: kmem:kmalloc,kmem:kfree" t.kmt.info &&
	grep -q "^buffers:     131072 bytes in one pool in a reserve_mem= region" t.kmt.info
'

# infocheck.py reads every line of the text back: a line it does not
# know, a member it does not find, or a number not the same, fails.
test_expect_success 'info --json: the same as the text on every kind of trace mktrace makes' '
	for s in basic swapped many nosyms zstd latency tasks footprint clock-step \
		flight flight-v1 pagestack-meminfo; do
		"$MKTRACE" $s $s.kmt && info_json_matches $s.kmt || { echo "$s"; exit 1; }
	done &&
	KMT_BUILD_ABI=1 "$MKTRACE" many abi1.kmt && info_json_matches abi1.kmt &&
	python3 -c "
import json
d = json.load(open(\"swapped.kmt.json\"))
assert d[\"byte_order\"] == \"foreign\", d
d = json.load(open(\"many.kmt.json\"))
assert d[\"cpus\"][0][\"subbufs\"] == 91 and d[\"total\"][\"lost\"] == 7, d
d = json.load(open(\"zstd.kmt.json\"))
assert d[\"symbols\"] == {\"count\": 5, \"bytes\": 147, \"stored_bytes\": 106, \"zstd\": True}, d
d = json.load(open(\"nosyms.kmt.json\"))
assert d[\"symbols\"][\"count\"] == 0, d
d = json.load(open(\"latency.kmt.json\"))
assert d[\"groups\"] == [\"kmem\", \"boot\", \"reclaim\", \"compaction\"], d
d = json.load(open(\"footprint.kmt.json\"))
assert d[\"meminfo\"] == {\"mem_total\": 1035812864, \"mem_free\": 1024000000, \"vmstat\": True}, d
assert d[\"buffers\"] == {\"kind\": \"per_cpu\", \"bytes\": 524288, \"held_bytes\": None, \"cpus\": 2, \"possible_cpus\": 2}, d
d = json.load(open(\"tasks.kmt.json\"))
assert d[\"tasks\"] == {\"tasks\": 0, \"cgroups\": 5}, d
d = json.load(open(\"clock-step.kmt.json\"))
assert (d[\"first_ns\"], d[\"last_ns\"], d[\"span_ns\"]) == (1000, 3000, 2000), d
d = json.load(open(\"abi1.kmt.json\"))
assert d[\"recorder\"][\"abi\"] == 1 and d[\"cpus\"][0][\"subbufs\"] == 67, d
"
'

test_expect_success 'info --json: usage errors as the text'"'"'s; dump has no --json' '
	"$MKTRACE" basic t.kmt &&
	test_must_fail --code=2 "$KMF" info --json 2> err &&
	grep -q "^kmemflight info: missing <file>$" err &&
	test_must_fail --code=2 "$KMF" info --json --seconds t.kmt 2> err &&
	grep -q "unknown option .--seconds." err &&
	test_must_fail --code=2 "$KMF" dump --json t.kmt 2> err &&
	grep -q "^kmemflight dump: unknown option .--json.$" err &&
	"$KMF" info --help | grep -q "^    --json  " &&
	head -c 100 t.kmt > cut.kmt &&
	test_must_fail "$KMF" info --json cut.kmt > out 2> err &&
	test ! -s out && test -s err
'

test_expect_success 'dump --seconds: the same lines, the time in s with nine decimals' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" dump t.kmt > ns &&
	"$KMF" dump --seconds t.kmt > s &&
	head -1 s | grep -q "^0\.000000100 0 task:1 cache_def " &&
	awk "{ \$1 = sprintf(\"%d.%09d\", \$1 / 1000000000, \$1 % 1000000000); print }" ns > want &&
	test_cmp want s &&
	test_must_fail --code=2 "$KMF" info --seconds t.kmt 2> err &&
	grep -q "unknown option .--seconds." err
'

test_expect_success 'dump'"'"'s times go to --at and --time: ns with ns, or --seconds'"'"'s as they are' '
	"$MKTRACE" basic t.kmt &&
	ns=$("$KMF" dump t.kmt | sed -n 6p | cut -d" " -f1) &&
	s=$("$KMF" dump --seconds t.kmt | sed -n 6p | cut -d" " -f1) &&
	test "$ns $s" = "3000 0.000003000" &&
	"$KMF" report --at "${ns}ns" t.kmt > a &&
	"$KMF" report --at "$s" t.kmt > b &&
	test_cmp a b &&
	grep -q "^Events: 6 (" a &&
	"$KMF" report --time "${ns}ns,$s" t.kmt > c &&
	grep -q "^Events: 1 (kmalloc 0, kmem_cache_alloc 1," c
'

test_expect_success 'dump: where a CPU'"'"'s clock stepped back, and only there, clock_step says how far' '
	"$MKTRACE" clock-step t.kmt &&
	"$KMF" dump t.kmt > out &&
	test "$(grep -c clock_step out)" = 2 &&
	grep -q "^2500 0 task:1 kmalloc .* ptr=0xffff888000004000 .* node=-1 clock_step=-500\$" out &&
	grep -q "^2550 0 task:1 kmalloc .* ptr=0xffff888000006000 .* node=-1 clock_step=-50\$" out &&
	test "$(wc -l < out)" = 6
'

test_expect_success 'dump: the same events from an ABI 1 (varint) trace' '
	"$MKTRACE" many t.kmt && "$KMF" dump t.kmt > out &&
	KMT_BUILD_ABI=1 "$MKTRACE" many t1.kmt &&
	"$KMF" info t1.kmt | grep -q "^0  *0  *67  *1000  *1000  *7$" &&
	"$KMF" info t1.kmt | grep -q "^recorder:    ABI 1, " &&
	"$KMF" dump t1.kmt > out1 &&
	test_cmp out out1 &&
	"$MKTRACE" basic b2.kmt &&
	KMT_BUILD_ABI=1 "$MKTRACE" basic b1.kmt &&
	"$KMF" report --caller --alloc --page b2.kmt > r2 &&
	"$KMF" report --caller --alloc --page b1.kmt > r1 &&
	test_cmp r2 r1
'

test_expect_success 'a callsite longer than its column widens the column: rows stay aligned' '
	"$MKTRACE" longnames t.kmt &&
	"$KMF" report --caller t.kmt > out &&
	grep -q "^ alloc_thing_with_a_name_longer_than_its_column+0x10 |       160/80    |" out &&
	grep -q "^ helper_init+0x5  *|      4096/4096  |" out &&
	columns_aligned out &&
	"$KMF" report --live t.kmt | sed -n "/^ Callsite/,/^ total/p" > live &&
	columns_aligned live &&
	"$KMF" report --json t.kmt > json && "$MKTRACE" basic t.kmt && "$KMF" report --json t.kmt > bjson &&
	sed "s/alloc_thing_with_a_name_longer_than_its_column/alloc_thing/g" json | cmp - bjson
'

test_done

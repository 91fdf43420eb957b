#!/bin/sh
# shellcheck disable=SC2016,SC1091
# summary: what diff compares of a trace, as a small text file that diff
# reads in place of the trace; the default budgets; lost events; budget
# files that are not text or not files.  Hand-written summaries set exact
# numbers for the budget boundaries.
. "$(dirname "$0")/lib.sh"

traces() {
	"$MKTRACE" diff-base b.kmt && "$MKTRACE" diff-new n.kmt
}

# sum FILE TOTAL_SLAB CALLSITE_BYTES [LOST]: a summary with one callsite row
sum() {
	printf "kmemflight-summary 1\nrelease 6.12.0-test\nevents 10\nlast_ns 1000\nlost %s\nunknown_cache 0\nnosyms 0\nslab %s\npages 0\nrow callsite foo_init %s 1 %s 1\n" \
		"${4:-0}" "$2" "$3" "$3" > "$1"
}

test_expect_success 'summary: the rows of a trace, one per key, sorted' '
	traces &&
	"$KMF" summary b.kmt > b.summary &&
	test_cmp "$TEST_DIR/expect/diff-base.summary" b.summary
'

test_expect_success 'diff takes a summary in place of a trace: the same comparison' '
	traces &&
	"$KMF" summary b.kmt > b.summary &&
	"$KMF" summary n.kmt > n.summary &&
	"$KMF" diff b.kmt n.kmt | sed 1,2d > from-traces &&
	"$KMF" diff b.summary n.kmt | sed 1,2d > from-summary &&
	"$KMF" diff b.summary n.summary | sed 1,2d > from-summaries &&
	test_cmp from-traces from-summary &&
	test_cmp from-traces from-summaries &&
	"$KMF" diff b.summary n.kmt | head -1 > first &&
	echo "base: b.summary (6.12.0-test, 10 events to 0.000001000 s)" > want &&
	test_cmp want first
'

test_expect_success 'default budgets: 64K and 10% a callsite, 256K and 2% the total' '
	sum b 10000000 0 && sum n 10065536 65536 &&
	"$KMF" diff b n > out &&
	grep -q "^Budget: within (0 rows or totals over, checked against 2 budgets)$" out &&
	sum n 10065537 65537 &&
	test_must_fail "$KMF" diff b n > out &&
	grep -q "^ callsite foo_init  *|          0 |      65537 |      +65537 |         - | limit 64K and 10% (default)$" out &&
	! grep -q "^ total " out &&
	echo "callsite * 1G" > cs.txt &&
	sum b 10000000 1000000 && sum n 10262144 1262144 &&
	"$KMF" diff --budget cs.txt b n > out &&
	sum n 10262145 1262145 &&
	test_must_fail "$KMF" diff --budget cs.txt b n > out &&
	grep -q "^ total  *|   10000000 |   10262145 |     +262145 |   +2.621% | limit 256K and 2% (default)$" out &&
	! grep -q "^ callsite " out &&
	grep -q "^Budget: over (1 row or total over, checked against 2 budgets)$" out &&
	test_must_fail "$KMF" diff b n > out &&
	grep -q "^ callsite foo_init .* | limit 64K and 10% (default)$" out &&
	grep -q "^Budget: over (2 rows or totals over, checked against 2 budgets)$" out
'

test_expect_success 'options and budget lines replace the defaults; --no-default-budgets drops them' '
	sum b 10000000 0 && sum n 10300000 300000 &&
	test_must_fail "$KMF" diff b n > out &&
	"$KMF" diff --no-default-budgets b n > out &&
	! grep -q "^Budget:" out &&
	"$KMF" diff --no-default-budgets --json b n | grep -q "\"verdict\": \"none\", \"budgets\": 0" &&
	printf "total 1M\ncallsite * 1M\n" > budget.txt &&
	"$KMF" diff --budget budget.txt b n > out &&
	grep -q "^Budget: within (0 rows or totals over, checked against 2 budgets)$" out &&
	test_must_fail "$KMF" diff --max-growth-bytes 1M b n > out &&
	grep -q "^ callsite foo_init .* | limit 64K and 10% (default)$" out &&
	printf "callsite foo_init 1M\n" > budget.txt &&
	test_must_fail "$KMF" diff --budget budget.txt b n > out &&
	grep -q "^ total .* | limit 256K and 2% (default)$" out &&
	! grep -q "^ callsite " out
'

test_expect_success 'a trace that lost events: an error, unless --allow-lost' '
	sum b 100 0 && sum n 100 0 5 &&
	test_must_fail "$KMF" diff b n > out 2> err &&
	test ! -s out &&
	grep -q "^kmemflight diff: error: n: 5 events were lost while recording, so its totals are short; boot with a larger kmemtrace.size, or pass --allow-lost$" err &&
	"$KMF" diff --allow-lost b n > out 2> err &&
	grep -q "^kmemflight diff: warning: n: 5 events were lost while recording: totals are short$" err
'

test_expect_success 'summary of a trace that lost events: written, with the warning that diff will refuse it' '
	"$MKTRACE" many m.kmt &&
	"$KMF" summary m.kmt > s 2> err &&
	lost=$(sed -n "s/^lost //p" s) && test "$lost" -gt 0 &&
	grep -qx "kmemflight summary: warning: m.kmt: $lost events were lost while recording, so its totals are short: kmemflight diff refuses this summary unless given --allow-lost" err &&
	"$MKTRACE" basic b.kmt && "$KMF" summary b.kmt > s 2> err && test ! -s err
'

# bad LINENO MESSAGE: diff rejects the summary s, naming the line
bad() {
	test_must_fail "$KMF" diff s good > out 2> err || return 1
	test ! -s out || return 1
	grep -q "^kmemflight diff: error: s: line $1: $2$" err || { cat err; return 1; }
}

test_expect_success 'bad summaries: exit 1, naming the line' '
	sum good 100 0 &&
	sed "2s/.*/release x y/" good > s && bad 2 "wants one value" &&
	{ cat good; echo "events 1"; } > s && bad 11 "given twice" &&
	sed "3s/.*/events x/" good > s && bad 3 "bad value" &&
	sed "7s/.*/nosyms 2/" good > s && bad 7 "bad value" &&
	sed "3s/.*/frob 1/" good > s && bad 3 "unknown line" &&
	for row in "row callsite foo" "row thing foo 1 1 1 1" "row callsite fo%0 1 1 1 1" \
		   "row callsite fo%00 1 1 1 1" "row callsite foo 1 1 1 18446744073709551616" \
		   "row callsite foo 1 1 1 -1"; do
		{ cat good; echo "$row"; } > s &&
		bad 11 "not a row (row CATEGORY KEY RETAINED OBJECTS ALLOCATED HITS)" || exit 1
	done &&
	grep -v "^pages" good > s &&
	test_must_fail "$KMF" diff s good 2> err &&
	grep -q "^kmemflight diff: error: s: no .pages. line$" err &&
	{ head -2 good; printf "events 1\0002\n"; tail -n +4 good; } > s &&
	bad 3 "a NUL byte" &&
	printf "kmemflight-summary 1\n" > s &&
	test_must_fail "$KMF" diff s good 2> err &&
	grep -q "no .release. line" err &&
	sed "1s/.*/kmemflight-summary 4/" good > s &&
	test_must_fail "$KMF" diff s good 2> err &&
	grep -q "^kmemflight diff: error: s: summary version 4: this kmemflight reads versions 1 to 3$" err &&
	{ cat good; echo "row memblock setup_arch 1 1 1 1"; } > s &&
	bad 11 "not a row (row CATEGORY KEY RETAINED OBJECTS ALLOCATED HITS)" &&
	{ cat good; echo "memblock 5"; } > s &&
	bad 11 "unknown line"
'

test_expect_success 'a version 2 summary and a budget name kmalloc sizes in bytes: read as this version names them' '
	sum b 100 0 &&
	{ sed "1s/.*/kmemflight-summary 2/" b; echo "row cache kmalloc-4096 8192 2 8192 2"; } > v2 &&
	{ sed "1s/.*/kmemflight-summary 3/" b; echo "row cache kmalloc-4k 24576 6 24576 6"; } > v3 &&
	"$KMF" diff --no-default-budgets v2 v3 > out &&
	grep -q "^ kmalloc-4k  *|       8192 |      24576 |      +16384 | +200.000% |            2 -> 6 | changed$" out &&
	! grep -q "kmalloc-4096" out &&
	echo "cache kmalloc-4096 8K" > budget &&
	test_must_fail "$KMF" diff --no-default-budgets --budget budget v2 v3 > out &&
	grep -q "^ cache kmalloc-4k  *|       8192 |      24576 |      +16384 | +200.000% | limit 8K (budget:1)$" out
'

test_expect_success 'a version 2 summary: memblock rows and total, optional' '
	sum b 100 0 &&
	sed "1s/.*/kmemflight-summary 2/" b > v2 &&
	"$KMF" diff v2 b > out 2> err &&
	test ! -s err &&
	grep -q "^(not compared: neither side has the early memblock events)$" out &&
	{ cat v2; printf "memblock 4096\nrow memblock setup_arch 4096 1 8192 2\n"; } > m1 &&
	{ cat v2; printf "memblock 1052672\nrow memblock setup_arch 4096 1 8192 2\nrow memblock setup_log_buf 1048576 1 1048576 1\n"; } > m2 &&
	test_must_fail "$KMF" diff m1 m2 > out 2> err &&
	test ! -s err &&
	grep -q "^ memblock setup_log_buf  *|          0 |    1048576 |    +1048576 |         - | limit 64K and 10% (default)$" out &&
	grep -q "^memblock reserved and held: 4096 -> 1052672 bytes, +1048576 " out &&
	echo "memblock setup_log_buf 2M" > budget.txt &&
	"$KMF" diff --budget budget.txt m1 m2 > out &&
	grep -q "^Budget: within (0 rows or totals over, checked against 4 budgets)$" out &&
	"$KMF" diff m1 v2 > out 2> err &&
	grep -q "^kmemflight diff: warning: v2 has no early memblock events" err &&
	grep -q "^(not compared: one side lacks the early memblock events)$" out
'

test_expect_success 'summary keys: escapes round-trip, CRLF lines read' '
	sum b 100 0 &&
	{ cat b; echo "row phase exec:/my%20init%25 7 0 7 0"; } > s &&
	"$KMF" diff s b > out &&
	grep -q "^ exec:/my init%  *|          7 |          0 |          -7 |" out &&
	sed "s/\$/\r/" b > crlf &&
	"$KMF" diff crlf b > out &&
	grep -q "^ foo_init  *|          0 |          0 |           0 |" out
'

test_expect_success 'budget files: a NUL byte or a directory is an error (exit 2)' '
	sum b 100 0 &&
	printf "callsite foo_init 3\\0002\n" > budget.txt &&
	test_must_fail --code=2 "$KMF" diff --budget budget.txt b b 2> err &&
	grep -q "^kmemflight diff: error: budget.txt:1: a NUL byte in the line$" err &&
	mkdir dir &&
	test_must_fail --code=2 "$KMF" diff --budget dir b b 2> err &&
	grep -q "^kmemflight diff: error: dir: cannot open the budget file: not a regular file$" err
'

test_expect_success 'summary usage and errors' '
	traces &&
	"$KMF" summary --help | grep -q "^usage: kmemflight summary <file>$" &&
	test_must_fail --code=2 "$KMF" summary 2> err && grep -q "missing <file>" err &&
	test_must_fail --code=2 "$KMF" summary b.kmt n.kmt 2> err && grep -q "one trace only" err &&
	test_must_fail --code=2 "$KMF" summary --bogus b.kmt 2> err &&
	grep -q "unknown option .--bogus." err &&
	test_must_fail "$KMF" summary nothere.kmt > out 2> err && test ! -s out &&
	head -c 100 b.kmt > short.kmt &&
	test_must_fail "$KMF" summary short.kmt > out 2> err && test ! -s out &&
	test_must_fail "$KMF" summary b.kmt > /dev/full 2> err &&
	grep -qx "kmemflight summary: error: cannot write the output: No space left on device" err
'

test_done

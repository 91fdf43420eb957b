#!/bin/sh
# shellcheck disable=SC2016,SC1091
# diff: two boots compared by name, and budgets on the growth.  The
# traces come from "mktrace diff-base" and "mktrace diff-new": another
# build at another KASLR offset, so no callsite has the same address in
# both.  The numbers, worked out from the events (tests/unit/mktrace.c):
#
#   foo_init   base 2 x 64 B kept (one of 3 freed) + a 192 B dentry = 320 B,
#              3 objects, 384 B allocated in 4 hits;
#              new  3 x 64 B + the dentry = 384 B, 4 objects: +64 B, +20%
#   bar_probe  new only, 1024 B;  old_setup  base only, 256 B
#   caches     kmalloc-64 128 -> 192, kmalloc-1024 new, kmalloc-256
#              vanished, dentry 192 both (cache id 1, then 4)
#   page_user  an order-1 page (8192 B), then also an order-0 (12288 B)
#   phases     early 64 -> 64, level:core 256 -> 0, level:device
#              128 + 8192 + 128 = 8448 -> 1344 + 12288 = 13632 (+61.364%),
#              exec:/init new (nothing kept)
#   total      576 + 8192 = 8768 -> 1408 + 12288 = 13696: +4928, +56.204%
. "$(dirname "$0")/lib.sh"

traces() {
	"$MKTRACE" diff-base b.kmt && "$MKTRACE" diff-new n.kmt
}

test_expect_success 'the two traces put the same functions at other addresses' '
	traces &&
	"$KMF" report --raw-ip --live b.kmt > rb && "$KMF" report --raw-ip --live n.kmt > rn &&
	grep -q "^ 0xffffffff81001010 " rb && grep -q "^ 0xffffffff9c201018 " rn &&
	"$KMF" report --live b.kmt | grep -q "^ foo_init+0x10 " &&
	"$KMF" report --live n.kmt | grep -q "^ foo_init+0x18 "
'

test_expect_success 'diff: every table by name, most growth first, and the total' '
	traces &&
	"$KMF" diff b.kmt n.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/diff.table" out &&
	test ! -s err
'

test_expect_success 'diff --json: the same rows, with their status' '
	traces &&
	"$KMF" diff --json b.kmt n.kmt > out &&
	test_cmp "$TEST_DIR/expect/diff.json" out
'

test_expect_success 'diff of a trace with itself: every row the same, within any budget' '
	traces &&
	"$KMF" diff --max-growth 0 --max-growth-bytes 0 b.kmt b.kmt > out &&
	! grep -E "\| (new|vanished|changed)$" out &&
	grep -q "^Total retained (slab objects + pages): 8768 -> 8768 bytes, 0 (0.000%); slab 576 -> 576, pages 8192 -> 8192$" out &&
	grep -q "^Budget: within (0 rows or totals over, checked against 2 budgets)$" out
'

test_expect_success 'diff -l 1: one row per table, then "..." where more were left out' '
	traces &&
	"$KMF" diff -l 1 b.kmt n.kmt > out &&
	grep -c "^ \.\.\.  " out > n && echo 4 > want && test_cmp want n &&
	grep -q "^ bar_probe  *|          0 |       1024 |       +1024 |         - |" out &&
	! grep -q "^ foo_init " out &&
	"$KMF" diff --json -l 1 b.kmt n.kmt > j &&
	grep -c "\"category\": " j > n && echo 5 > want && test_cmp want n
'

test_expect_success 'within budget: --max-growth 5% --max-growth-bytes 64K exits 0' '
	traces &&
	"$KMF" diff --max-growth 5% --max-growth-bytes 64K b.kmt n.kmt > out &&
	! grep -q "^over budget:" out &&
	grep -q "^Budget: within (0 rows or totals over, checked against 2 budgets)$" out
'

test_expect_success 'over budget: exit 1, the offending row first' '
	traces &&
	test_must_fail "$KMF" diff --max-growth 5% --max-growth-bytes 4K b.kmt n.kmt > out &&
	head -1 out > first && echo "over budget:" > want && test_cmp want first &&
	grep -q "^ total  *|       8768 |      13696 |       +4928 |  +56.204% | limit 4K and 5% (--max-growth-bytes and --max-growth)$" out &&
	grep -q "^Budget: over (1 row or total over, checked against 2 budgets)$" out &&
	test_must_fail "$KMF" diff --json --max-growth 5% --max-growth-bytes 4K b.kmt n.kmt > j &&
	grep -q "^  \"total\": {\"base\": 8768, \"new\": 13696, \"delta\": 4928, \"delta_pct\": 56.204380, \"over_budget\": true},$" j &&
	grep -q "\"verdict\": \"over\", \"budgets\": 2, " j &&
	grep -q "{\"category\": \"total\", \"key\": null, \"base\": 8768, \"new\": 13696, \"delta\": 4928, \"delta_pct\": 56.204380, \"limit\": \"4K and 5%\", \"limit_bytes\": 4096, \"limit_pct\": 5.000, \"source\": \"--max-growth-bytes and --max-growth\"}" j
'

test_expect_success 'a budget is exceeded by more than it, not by as much' '
	traces &&
	"$KMF" diff --max-growth-bytes 4928 b.kmt n.kmt > /dev/null &&
	test_must_fail "$KMF" diff --max-growth-bytes 4927 b.kmt n.kmt > /dev/null &&
	"$KMF" diff --max-growth 56.21 b.kmt n.kmt > /dev/null &&
	test_must_fail "$KMF" diff --max-growth 56.2% b.kmt n.kmt > /dev/null &&
	"$KMF" diff --max-growth 1% --max-growth-bytes 5K b.kmt n.kmt > /dev/null &&
	"$KMF" diff --max-growth 60% --max-growth-bytes 1 b.kmt n.kmt > /dev/null
'

test_expect_success 'diff --budget FILE: budgets per callsite, phase and total' '
	traces &&
	cat > budget.txt <<-\EOT &&
	# the boot gate
	callsite foo_init 32     # grew by 64
	callsite bar_probe 1K    # new, 1024: not over
	phase level:device 10%
	phase early 0
	total 64K 2%
	cache nothere 1
	EOT
	test_must_fail "$KMF" diff --budget budget.txt b.kmt n.kmt > out 2> err &&
	sed -n "1,/^$/p" out | grep "|" | tr -s " " > got &&
	printf "%s\n" " Row | Base | New | Delta | Delta% | Budget exceeded" \
		" callsite foo_init | 320 | 384 | +64 | +20.000% | limit 32 (budget.txt:2)" \
		" phase level:device | 8448 | 13632 | +5184 | +61.364% | limit 10% (budget.txt:4)" > want &&
	test_cmp want got &&
	grep -q "^ foo_init  *|        320 |        384 |         +64 |  +20.000% |.* | changed$" out &&
	grep -q "^Budget: over (2 rows or totals over, checked against 7 budgets)$" out &&
	grep -q "^kmemflight diff: warning: budget.txt:7: cache nothere is in neither trace$" err
'

test_expect_success 'diff --budget: "*" for every row of a category, a row of its own first' '
	traces &&
	echo "callsite * 32" > star.txt &&
	test_must_fail "$KMF" diff --budget star.txt b.kmt n.kmt > out &&
	grep -q "^ callsite bar_probe .* | limit 32 (star.txt:1)$" out &&
	grep -q "^ callsite foo_init .* | limit 32 (star.txt:1)$" out &&
	printf "callsite * 32\ncallsite foo_init 64\nphase * 1%%\n" > star.txt &&
	test_must_fail "$KMF" diff --budget star.txt b.kmt n.kmt > out &&
	grep "^ callsite \|^ phase " out | cut -d"|" -f1 | tr -s " " > got &&
	printf "%s\n" " callsite bar_probe " " phase level:device " > want &&
	test_cmp want got
'

test_expect_success 'a bad budget line: exit 2, naming the file and line' '
	traces &&
	printf "# ok\ncallsite foo_init 4K\ncallsite bar_probe lots\n" > bad.txt &&
	test_must_fail --code=2 "$KMF" diff --budget bad.txt b.kmt n.kmt > out 2> err &&
	test ! -s out &&
	grep -q "^kmemflight diff: error: bad.txt:3: .lots. is neither a size (4096, 64K, 1M) nor a percentage with at most 3 decimals (10%, 2.5%)$" err &&
	for l in "frob x 1K" "callsite foo_init" "total" "total 1K 2K" "callsite x 1% 2%" \
		 "callsite x 1K 1% 5" "cache x -1" "page x 99999999999999999999" \
		 "order 0 1.5K"; do
		echo "$l" > bad.txt &&
		test_must_fail --code=2 "$KMF" diff --budget bad.txt b.kmt n.kmt 2> err || exit 1
		grep -q "^kmemflight diff: error: bad.txt:1: " err || exit 1
	done &&
	printf "phase early 1\nphase early 2\n" > bad.txt &&
	test_must_fail --code=2 "$KMF" diff --budget bad.txt b.kmt n.kmt 2> err &&
	grep -q "bad.txt:2: phase early has a budget already, at bad.txt:1$" err &&
	test_must_fail --code=2 "$KMF" diff --budget nothere.txt b.kmt n.kmt 2> err &&
	grep -q "nothere.txt: cannot open the budget file: " err
'

test_expect_success 'bad --max-growth and --max-growth-bytes values exit 2' '
	traces &&
	for v in abc -5 5x 1e3 "" "5%%" 1.2345 .5 5.; do
		test_must_fail --code=2 "$KMF" diff --max-growth "$v" b.kmt n.kmt 2> err || exit 1
		grep -q "^kmemflight diff: --max-growth wants a percentage >= 0, at most 3 decimals (e.g. 5%), not " err || exit 1
	done &&
	test_must_fail --code=2 "$KMF" diff --max-growth 10000000000000% b.kmt n.kmt 2> err &&
	grep -q "^kmemflight diff: --max-growth: .10000000000000%. is too large$" err &&
	for v in abc -5 64KB 1.5K 0x10 "" " 5" 5T; do
		test_must_fail --code=2 "$KMF" diff --max-growth-bytes "$v" b.kmt n.kmt 2> err || exit 1
		grep -q "^kmemflight diff: --max-growth-bytes wants a size in bytes, with an optional K, M or G (e.g. 64K), not " err || exit 1
	done &&
	for v in 18446744073709551616 17179869184G 99999999999999999999999; do
		test_must_fail --code=2 "$KMF" diff --max-growth-bytes "$v" b.kmt n.kmt 2> err || exit 1
		grep -q "is too large (more than 2^64 - 1 bytes)$" err || exit 1
	done &&
	"$KMF" diff --max-growth-bytes 18446744073709551615 b.kmt n.kmt > /dev/null &&
	"$KMF" diff --max-growth-bytes 16777215G b.kmt n.kmt > /dev/null
'

test_expect_success 'a missing or corrupt trace: exit 1 and why' '
	traces &&
	test_must_fail "$KMF" diff b.kmt nothere.kmt > out 2> err &&
	grep -q "^kmemflight diff: error: nothere.kmt: no such file" err &&
	test ! -s out &&
	size=$(wc -c < b.kmt) && head -c $((size - 1)) b.kmt > cut.kmt &&
	test_must_fail "$KMF" diff --max-growth 5% cut.kmt n.kmt > out 2> err &&
	grep -q "^kmemflight diff: error: cut.kmt is cut at $((size - 1)) of $size bytes, 1 short: .*; a partial trace is not compared (dump, info and report read what is whole)$" err &&
	test ! -s out
'

test_expect_success 'diff usage: two files, known options, --help' '
	traces &&
	"$KMF" diff --help > out && grep -q "^usage: kmemflight diff \[<options>\] <base> <new>$" out &&
	test_must_fail --code=2 "$KMF" diff 2> err &&
	grep -q "missing <base> and <new>" err &&
	test_must_fail --code=2 "$KMF" diff b.kmt 2> err &&
	grep -q "missing <new>" err &&
	test_must_fail --code=2 "$KMF" diff b.kmt n.kmt b.kmt 2> err &&
	grep -q "two trace files only" err &&
	test_must_fail --code=2 "$KMF" diff --bogus b.kmt n.kmt 2> err &&
	grep -q "^kmemflight diff: unknown option .--bogus. (valid: --max-growth, --max-growth-bytes, --budget, --no-default-budgets, --allow-lost, -l/--line, --json, -h/--help)$" err &&
	grep -q "^Try .kmemflight diff --help.\.$" err &&
	test_must_fail --code=2 "$KMF" diff -l x b.kmt n.kmt 2> err &&
	grep -q -- "--line wants a number" err &&
	"$KMF" diff --help | grep -o -- "--[a-z][a-z-]*" | sort -u > from-help &&
	"$KMF" diff --bogus 2>&1 | sed -n "1p" | grep -o -- "--[a-z][a-z-]*" | grep -v -- --bogus | sort -u > from-err &&
	test_cmp from-help from-err
'

test_expect_success 'a name longer than its column widens the column: rows stay aligned' '
	"$MKTRACE" longnames b.kmt && "$MKTRACE" longnames-grown l.kmt &&
	echo "callsite alloc_thing_with_a_name_longer_than_its_column 256" > budget &&
	test_must_fail "$KMF" diff --max-growth-bytes 256 --budget budget b.kmt l.kmt > out &&
	sed -n "/^over budget:/,/^$/p" out | grep "|" > fails &&
	grep -q "^ callsite alloc_thing_with_a_name_longer_than_its_column |" fails &&
	columns_aligned fails &&
	sed -n "/^Slab callsites:/,/^$/p" out | grep "|" > callsites &&
	grep -q "^ alloc_thing_with_a_name_longer_than_its_column |" callsites &&
	grep -q "^ helper_init  *|" callsites &&
	columns_aligned callsites
'

test_done

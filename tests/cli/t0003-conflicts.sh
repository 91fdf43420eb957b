#!/bin/sh
# shellcheck disable=SC2016,SC1091
# Options that cannot both apply are usage errors naming both (exit 2,
# nothing on stdout); the combinations the man pages document keep
# working.
. "$(dirname "$0")/lib.sh"

# refused CMD ARGS...: exit 2, no output, and stderr is the message in
# ./want then the hint to --help
refused() {
	cmd=$1
	shift
	test_must_fail --code=2 "$KMF" "$cmd" "$@" > out 2> err || return 1
	echo "Try 'kmemflight $cmd --help'." >> want &&
	test_cmp want err && test ! -s out
}

test_expect_success 'report --time and --at: one range at a time, in either order' '
	"$MKTRACE" basic t.kmt &&
	echo "kmemflight report: --time and --at: one range at a time (--at <time> is --time ,<time>)" > want &&
	refused report --time 1,2 --at 1 t.kmt &&
	echo "kmemflight report: --time and --at: one range at a time (--at <time> is --time ,<time>)" > want &&
	refused report --at 3us --live --time ,2us t.kmt
'

test_expect_success 'report --sort with --live or --phase alone: no table it orders' '
	"$MKTRACE" basic t.kmt &&
	echo "kmemflight report: --sort and --live: --sort orders the tables of --slab and --page, which --live alone does not print" > want &&
	refused report -s hit --live t.kmt &&
	echo "kmemflight report: --sort and --live: --sort orders the tables of --slab and --page, which --live alone does not print" > want &&
	refused report --live --phase --json --sort bytes t.kmt &&
	echo "kmemflight report: --sort and --phase: --sort orders the tables of --slab and --page, which --phase alone does not print" > want &&
	refused report --phase -s frag t.kmt
'

test_expect_success 'report --json and --csv: one output format' '
	"$MKTRACE" basic t.kmt &&
	echo "kmemflight report: --json and --csv: one output format at a time" > want &&
	refused report --csv --live --json t.kmt
'

test_expect_success 'flame and plot: --time and --at; flame --offsets and --raw-ip' '
	"$MKTRACE" plot t.kmt &&
	echo "kmemflight flame: --time and --at: one range at a time (--at <time> is --time ,<time>)" > want &&
	refused flame --time 1ms, --at 2ms t.kmt &&
	echo "kmemflight flame: --offsets and --raw-ip: a frame is a function+offset or an address, not both" > want &&
	refused flame --raw-ip --offsets t.kmt &&
	echo "kmemflight plot: --time and --at: one range at a time (--at <time> is --time ,<time>)" > want &&
	refused plot -o p.svg --at 2ms --time ,3ms t.kmt &&
	test ! -e p.svg
'

# kmemflight-report(1): "--alloc ... implies the slab view, unless
# --page is given"; it printed nothing with --live or --phase
test_expect_success 'report --live --alloc: the footprint, then the slab view per address' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --live t.kmt > want &&
	echo >> want &&
	"$KMF" report --alloc t.kmt >> want &&
	"$KMF" report --live --alloc t.kmt > out &&
	test_cmp want out &&
	grep -q "^ Alloc Ptr " out &&
	"$KMF" report --phase --alloc -s ptr t.kmt > out &&
	grep -q "^ Alloc Ptr " out && grep -q "^SUMMARY (SLAB allocator)$" out
'

test_expect_success 'documented combinations still work' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --live --at 3500ns t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic-at.live" out &&
	"$KMF" report --caller --alloc --slab --page -s hit t.kmt > out &&
	grep -q "^ Callsite " out && grep -q "^ Alloc Ptr " out &&
	grep -q "^SUMMARY (page allocator)$" out &&
	"$KMF" report --live --slab -s hit,callsite -l 2 t.kmt > out &&
	sed -n "/^ Callsite  *| Total_alloc/,/^SUMMARY/p" out | grep "^ [a-z.]" > got &&
	"$KMF" report -s hit,callsite -l 2 t.kmt | sed -n "/^ Callsite  *| Total_alloc/,/^SUMMARY/p" | grep "^ [a-z.]" > want &&
	test_cmp want got &&
	"$KMF" report --json --live --phase --time 1us,5us t.kmt > out &&
	python3 -m json.tool out > /dev/null &&
	"$MKTRACE" pagestack p.kmt &&
	"$KMF" report --page --caller --live -s order p.kmt > out &&
	grep -q "^ helper_init+0x20 " out &&
	"$MKTRACE" memblock m.kmt &&
	"$KMF" report --memblock --at 5000ns --json m.kmt > out &&
	"$MKTRACE" latency l.kmt &&
	"$KMF" report --latency --threshold 1us --time ,1s --json l.kmt > out &&
	"$MKTRACE" plot f.kmt &&
	"$KMF" flame --allocated --at 2ms --offsets f.kmt > out &&
	"$KMF" plot -o p.svg --time 1ms, --raw-ip f.kmt &&
	test -s p.svg
'

test_done

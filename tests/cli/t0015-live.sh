#!/bin/sh
# shellcheck disable=SC2016,SC1091
# report --live (the retained boot footprint) and --time / --at on the
# hand-built traces.  expect/basic.live is worked out from the basic
# scenario: 0x2000 (32 B), 0x3000 (4096 B) and the task_struct (3072 B)
# are never freed; two objects live 3 us and 1.5 us.
. "$(dirname "$0")/lib.sh"

test_expect_success 'report --live: retained bytes per callsite and cache, lifetimes' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --live t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic.live" out
'

test_expect_success 'report --live --at 3500ns: the footprint at that time' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --live --at 3500ns t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic-at.live" out &&
	"$KMF" report --live --at 0.0000035 t.kmt > out2 &&
	test_cmp out out2 &&
	"$KMF" report --live --time ,3.5us t.kmt > out3 &&
	test_cmp out out3
'

test_expect_success 'report --live: an address allocated twice counts the first as freed' '
	"$MKTRACE" realloc t.kmt &&
	"$KMF" report --live --slab t.kmt > out &&
	grep -q "^ helper_init+0x5  *|           64 |        1 |           64 |            0 |  100.000%$" out &&
	grep -q "^ total  *|           64 |        1 |          192 |          128 |$" out &&
	grep -q "^(1 objects, 128 bytes, were allocated again at their address without a free in the trace: counted as freed)$" out &&
	grep -q "^Net total bytes allocated: 192$" out
'

test_expect_success 'report --live: pages still allocated, by order' '
	"$MKTRACE" pages t.kmt &&
	"$KMF" report --live t.kmt > out &&
	grep -q "^Pages still allocated: 2 blocks, 4198400 bytes (order 0: 1, order 10: 1)$" out
'

test_expect_success 'report --live: the pages still held, by their recorded caller' '
	"$MKTRACE" pagestack t.kmt &&
	"$KMF" report --live t.kmt > out &&
	sed -n "/^ Page caller/,/^Lifetime/p" out | grep "|" | grep -v "^ Page caller" | tr -s " " > got &&
	printf "%s\n" " helper_init+0x20 | 16384 | 1" " (unknown) | 8192 | 2" \
		" alloc_thing+0x50 | 8192 | 2" " new_slab+0x30 | 8192 | 1" > want &&
	test_cmp want got &&
	"$MKTRACE" basic b.kmt && "$KMF" report --live b.kmt > out &&
	! grep -q "Page caller" out
'

test_expect_success 'report --live -l 1 cuts both tables' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --live -l 1 t.kmt > out &&
	grep -c "^ \.\.\. " out > n && echo 2 > want && test_cmp want n &&
	grep -q "^ total  *|         7200 |        3 |" out
'

test_expect_success 'report --phase: what each phase and initcall allocated and kept' '
	"$MKTRACE" phases t.kmt &&
	"$KMF" report --phase t.kmt > out &&
	test_cmp "$TEST_DIR/expect/phases.report" out
'

test_expect_success 'report --phase: the phases add up to the --live and page totals' '
	"$MKTRACE" phases t.kmt &&
	"$KMF" report --phase --live t.kmt > out &&
	awk -F"|" "/^ (early|level|exec) / { s += \$3; p += \$5 } END { print s, p }" out > got &&
	echo "1248 8192" > want && test_cmp want got &&
	grep -q "^ total  *|         1248 |        3 |" out &&
	grep -q "^Pages still allocated: 1 blocks, 8192 bytes (order 1: 1)$" out
'

test_expect_success 'report --phase on a trace without phase events says so' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --phase t.kmt > out &&
	grep -q "^ early (0.000000)  *|         7520 |         7200 |         4096 |            0 |        14 | 0$" out &&
	grep -q "^(no initcall events: the trace predates boot phase recording, or --time excludes them)$" out
'

test_expect_success '--time selects events for every view' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --time ,2500ns t.kmt > out &&
	grep -q "^Allocations: 3, failed: 0, frees: 0 (0 of objects not allocated in the trace)$" out &&
	grep -q "^Events: 5 (kmalloc 3, kmem_cache_alloc 0, kfree 0, kmem_cache_free 0, page alloc 0, page free 0, other 2)$" out &&
	"$KMF" report --time 4000ns,5000ns t.kmt > out &&
	grep -q "^Allocations: 0, failed: 0, frees: 2 (2 of objects not allocated in the trace)$" out
'

test_expect_success 'a --time with no event in it is an error that gives the span' '
	"$MKTRACE" basic t.kmt &&
	test_must_fail "$KMF" report --time 100s, t.kmt 2> err &&
	grep -q "no event of t.kmt falls within --time: its events run from 0.000000100 s to 0.000007000 s" err
'

# A trace with task records (every recent recorder's): the processes'
# rows were summed over none taken (a NULL table), and report and flame
# died of it.
test_expect_success 'a --time with no event in it, on a trace with task records: the error, not a crash' '
	"$MKTRACE" flight t.kmt &&
	for v in "" --page --live --phase; do
		# shellcheck disable=SC2086 # the view, or none
		test_must_fail "$KMF" report $v --time 5,6 t.kmt 2> err || exit 1
		grep -qx "kmemflight report: error: no event of t.kmt falls within --time: its events run from 0.000001000 s to 0.000009000 s" err || exit 1
	done &&
	test_must_fail "$KMF" flame --time 5,6 t.kmt 2> err &&
	grep -q "no event of t.kmt falls within --time" err
'

test_expect_success 'bad --time and --at values exit 2 and say what is wanted' '
	"$MKTRACE" basic t.kmt &&
	for v in 5 , x,1 1,y 2,1 1.5ns; do
		test_must_fail --code=2 "$KMF" report --time "$v" t.kmt 2> err || exit 1
		grep -q -- "--time" err || exit 1
	done &&
	test_must_fail --code=2 "$KMF" report --at 1.0000000001 t.kmt 2> err &&
	grep -q "^kmemflight report: --at wants a time in s, ms, us or ns (e.g. 2.5s), not .1.0000000001.$" err
'

# mktrace kmalloc-caches: kmalloc events of 64 bytes with GFP_KERNEL,
# GFP_KERNEL_ACCOUNT (two, one freed), __GFP_RECLAIMABLE (one of them
# accounted too: reclaimable wins), __GFP_DMA; a kmem_cache_alloc on
# kmalloc-64 itself; 4096 bytes (kmalloc-4k is defined); 96 and 192
# bytes (no such caches: by size); a large one of 16384 (pages); an
# undefined cache id.
test_expect_success 'kmalloc objects in the cache their size and GFP flags pick: one name in every view' '
	"$MKTRACE" kmalloc-caches k.kmt &&
	"$KMF" report --live k.kmt 2> err | sed -n "/^ Cache /,/^\$/p" > out &&
	cat > expect <<-\EOF &&
	 Cache                              |     Retained |  Objects
	--------------------------------------------------------------
	 kmalloc-16k                        |        16384 |        1
	 kmalloc-4k                         |         4096 |        1
	 kmalloc-192                        |          192 |        1
	 dentry                             |          192 |        1
	 kmalloc-64                         |          128 |        2
	 kmalloc-rcl-64                     |          128 |        2
	 kmalloc-96                         |           96 |        1
	 kmalloc-cg-64                      |           64 |        1
	 dma-kmalloc-64                     |           64 |        1
	 cache#9                            |            0 |        1

	EOF
	test_cmp expect out &&
	"$KMF" flame k.kmt 2> err | grep "^slab;" > out &&
	cat > expect <<-\EOF &&
	slab;alloc_thing;[dentry] 192
	slab;alloc_thing;[kmalloc-16k] 16384
	slab;alloc_thing;[kmalloc-64] 64
	slab;alloc_thing;[kmalloc-cg-64] 64
	slab;free_thing;[kmalloc-192] 192
	slab;free_thing;[kmalloc-4k] 4096
	slab;free_thing;[kmalloc-64] 64
	slab;free_thing;[kmalloc-96] 96
	slab;helper_init;[dma-kmalloc-64] 64
	slab;helper_init;[kmalloc-rcl-64] 128
	EOF
	test_cmp expect out &&
	"$KMF" summary k.kmt 2> err | grep "^row cache " > out &&
	cat > expect <<-\EOF &&
	row cache cache#9 0 1 0 0
	row cache dentry 192 1 0 0
	row cache dma-kmalloc-64 64 1 0 0
	row cache kmalloc-16k 16384 1 0 0
	row cache kmalloc-192 192 1 0 0
	row cache kmalloc-4k 4096 1 0 0
	row cache kmalloc-64 128 2 0 0
	row cache kmalloc-96 96 1 0 0
	row cache kmalloc-cg-64 64 1 0 0
	row cache kmalloc-rcl-64 128 2 0 0
	EOF
	test_cmp expect out &&
	"$KMF" report --live --json k.kmt 2> err | grep -o "\"cache\": \"[^\"]*\"" | sort > out &&
	sed -n "s/^row cache \([^ ]*\) .*/\"cache\": \"\1\"/p" expect | sort > names &&
	test_cmp names out
'

test_expect_success 'an unknown option lists the valid ones (exit 2)' '
	test_must_fail --code=2 "$KMF" report --bogus t.kmt 2> err &&
	grep -q "^kmemflight report: unknown option .--bogus. (valid: --slab, --page, --live, --phase, --latency, --memblock, --footprint, --window, --before, --threshold, --time, --at, --caller, --alloc, -s/--sort, -l/--line, -v/--verbose, --raw-ip, --vmlinux, --json, --csv, -h/--help)$" err &&
	"$KMF" report --help | grep -o -- "--[a-z][a-z-]*" | sort -u > from-help &&
	grep -o -- "--[a-z][a-z-]*" err | grep -v -- --bogus | sort -u > from-err &&
	test_cmp from-help from-err &&
	test_must_fail --code=2 "$KMF" report -s frag,nope t.kmt 2> err &&
	grep -q "unknown sort key .nope. (valid: frag, hit, bytes, callsite, pingpong, ptr)" err
'

test_done

#!/bin/sh
# shellcheck disable=SC2016,SC1091
# Traces saved by an earlier version keep reading.  data/prev-small-2cpu.kmt.xz
# is a real boot saved by kmemflight and the kernel recorder as they were
# at commit 8a34043 (QEMU, 2 vCPUs, kmemtrace.subbufs=2
# kmemtrace.subbuf_size=4096: the earliest 1018 events kept, 342243
# lost): no wrapper, vmalloc or early page records, a three-field
# memblock_early record.  The numbers below are what that version printed
# (expect/prev.info has the time line info prints since).
. "$(dirname "$0")/lib.sh"

prev() { xz -dc "$TEST_DIR/data/prev-small-2cpu.kmt.xz" > prev.kmt; }

test_expect_success 'an earlier version'"'"'s trace: info as it was' '
	prev &&
	"$KMF" info prev.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/prev.info" out
'

test_expect_success 'an earlier version'"'"'s trace: report --memblock as it was' '
	prev &&
	"$KMF" report --memblock prev.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/prev.memblock" out
'

test_expect_success 'an earlier version'"'"'s trace: dump, report and --live read every event' '
	prev &&
	"$KMF" dump prev.kmt > out &&
	test "$(wc -l < out)" = 1018 &&
	test "$(sed -n 1p out)" = "0 0 task:0 memblock op=reserve base=0x1000000 size=18874368 caller=setup_arch+0x139 node=-1 flags=0x0" &&
	grep -q "^57936627 0 task:0 memblock_early kept=52 dropped=0 capacity=4096$" out &&
	! grep -q " via=\| vmalloc \| text_range " out &&
	"$KMF" report prev.kmt > out 2> err &&
	grep -q "^Events: 1018 (kmalloc 190, kmem_cache_alloc 271, kfree 418, kmem_cache_free 0, page alloc 50, page free 0, other 89)$" out &&
	grep -q "^Net total bytes allocated: 89520$" out &&
	grep -q "events were lost while recording" err &&
	"$KMF" report --live prev.kmt > out 2> err &&
	grep -q "^Pages still allocated: 50 blocks, 622592 bytes" out &&
	! grep -q "wrapper\|^vmalloc" out
'

test_done

#!/bin/sh
# shellcheck disable=SC2016,SC1091
# report --memblock on "mktrace memblock" (tests/unit/mktrace.c), whose
# numbers are worked out by hand:
#
#   RAM        0x9e000 + 0x3ff00000 added, 1 MiB removed: 1072291840
#   setup_arch+0x39        18874368 reserved (the kernel image), 1998848
#                          of it given to the page allocator: 16875520
#   sparse_init_nid+0xb0   16777216 allocated
#   alloc_large_system_hash+0x133  1048576 + 524288, 2 ranges
#   pcpu_embed_first_chunk+0xe2    2097152 allocated, 843776 freed
#   setup_arch+0x22e       397312 reserved
#   acpi_reserve+0x10      16 bytes inside setup_arch+0x22e's: 0
#   given      1998848 (the image's gap) + 3313664 (an initrd the trace
#              never saw reserved) = 5312512
. "$(dirname "$0")/lib.sh"

# holders_text FILE: the rows of report --footprint's "Who holds it",
# "PART CALLER BYTES" each
holders_text() {
	sed -n '/^Who holds it:/,$p' "$1" | awk -F'|' 'NF == 3 && $2 ~ /[0-9]/ {
		n = split($1, w, " ")
		if (n == 2) { part = w[1]; name = w[2] } else name = w[1]
		gsub(/ /, "", $2); print part, name, $2 }'
}

# holders_json FILE: the same rows from report --footprint --json
holders_json() {
	python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["holders"]
for part in ("memblock", "slab", "pages", "vmalloc"):
    for r in h[part] or []:
        print(part, r["callsite"] or "(unknown)", r["held"])
' "$1"
}

test_expect_success 'report --memblock: callers, what they hold, what went to the page allocator' '
	"$MKTRACE" memblock m.kmt &&
	"$KMF" report --memblock m.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/memblock.report" out &&
	test ! -s err
'

test_expect_success 'report --memblock --json: the same numbers, valid JSON' '
	"$MKTRACE" memblock m.kmt &&
	"$KMF" report --memblock --json m.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/memblock.json" out &&
	test ! -s err &&
	python3 -c "
import json, sys
d = json.load(open(\"out\"))
assert d[\"held\"] == sum(c[\"held\"] for c in d[\"callers\"]) == 36876288
assert d[\"given\"] == sum(g[\"bytes\"] for g in d[\"given_by\"])
"
'

test_expect_success 'report --memblock --at: the state then (before the hash tables and the frees)' '
	"$MKTRACE" memblock m.kmt &&
	"$KMF" report --memblock --at 5000ns m.kmt > out &&
	head -1 out | grep -q "^Boot memory (memblock) at 0.000005000 s: RAM 1072291840 bytes in 2 ranges, 37302272 bytes reserved and still held$" &&
	grep -q "^ pcpu_embed_first_chunk+0xe2  *|  *1253376 |  *2097152 |  *843776 |" out &&
	! grep -q alloc_large_system_hash out
'

test_expect_success 'report --memblock -l 2: two rows, then ...' '
	"$MKTRACE" memblock m.kmt &&
	"$KMF" report --memblock -l 2 m.kmt > out &&
	test "$(grep -cE " [|] (alloc|reserve)\$" out)" = 2 &&
	grep -q "^ \.\.\.  *|  *\.\.\. |" out
'

test_expect_success 'report --memblock: a trace with the layout but no events says why' '
	"$MKTRACE" basic b.kmt &&
	test_must_fail "$KMF" report --memblock b.kmt > out 2> err &&
	grep -qx "kmemflight report: error: b.kmt: no memblock events: they are the boot.s first, and this trace has not kept them: the recorder was not started at boot (kmemtrace.enable=1), flight mode wrote over them, an earlier save took them, or kmemtrace.events left out kmem" err &&
	test ! -s out
'

test_expect_success 'report --memblock: an older recorder without memblock events' '
	"$MKTRACE" abi1 o.kmt &&
	test_must_fail "$KMF" report --memblock o.kmt > out 2> err &&
	grep -q "o.kmt: its recorder has no memblock events" err &&
	test ! -s out
'

test_expect_success 'report --memblock is a report of its own' '
	"$MKTRACE" memblock m.kmt &&
	test_must_fail --code=2 "$KMF" report --memblock --live m.kmt 2> err &&
	grep -q "\-\-memblock is a report of its own" err
'

test_expect_success 'dump shows memblock events with their fields' '
	"$MKTRACE" memblock m.kmt &&
	"$KMF" dump m.kmt > out &&
	grep -q "^0 0 task:0 memblock op=reserve base=0x1000000 size=18874368 caller=setup_arch+0x39 node=-1 flags=0x0$" out &&
	grep -q "^7000 0 task:0 memblock_early kept=11 dropped=0 capacity=4096 pages_kept=1 pages_dropped=0$" out &&
	grep -q "^6800 0 task:0 mm_page_alloc pfn=0x1100 order=0 gfp_flags=0xcc0 migratetype=0$" out &&
	grep -q "^9500 1 task:0 memblock op=free_area base=0x3fcb7000 size=3313664 caller=do_populate_rootfs+0x9a node=-1 flags=0x0 what=initrd$" out
'

test_expect_success 'summary: memblock rows by caller function, and the total held' '
	"$MKTRACE" memblock m.kmt &&
	"$KMF" summary m.kmt > s &&
	head -1 s | grep -q "^kmemflight-summary 3$" &&
	grep -q "^memblock 36876288$" s &&
	grep -q "^row memblock setup_arch 17272832 2 19271680 2$" s &&
	grep -q "^row memblock sparse_init_nid 16777216 1 16777216 1$" s &&
	grep -q "^row memblock acpi_reserve 0 1 0 1$" s &&
	test "$(grep -c "^row memblock " s)" = 5
'

test_expect_success 'diff: a trace with memblock against one without compares no memblock, and says so' '
	"$MKTRACE" memblock m.kmt &&
	"$MKTRACE" basic b.kmt &&
	"$KMF" diff --no-default-budgets b.kmt m.kmt > out 2> err &&
	grep -q "^kmemflight diff: warning: b.kmt has no early memblock events" err &&
	grep -q "^(not compared: one side lacks the early memblock events)$" out &&
	! grep -q "^memblock reserved and held" out
'

# report --footprint on "mktrace footprint": the memblock boot above with
# the kernel's totals at the save.  RAM 1072291840; memblock holds
# 36876288, of which 397312 (the low reservation) lie outside RAM:
# 36478976 = RAM - MemTotal (1011536 kB).  MemFree 1000000 kB, 100 pages
# on the per-CPU lists: allocated 1035812864 - 1024000000 - 409600 =
# 11403264.  Pages held: the page kmem_cache_init() took before the
# recorder started (4096), 2 x 4096 + 16384 (one freed) = 24576, the 4
# pages of a vmalloc area of alloc_large_system_hash (16384; the other
# area and its page were freed), and the recorder's: a 16 KiB
# sub-buffer (counted with the buffers) and a page of its initcall:
# 49152; buffers 2 x 262144.  Not explained 11403264 - 573440 =
# 10829824.  The kernel holds 11403264 + 36478976 = 47882240, the trace
# explains 36478976 + 573440 = 37052416: 77.382%.  The recorder's own:
# objects 64 (kmt_build_header) + 192 (in its initcall), a page: 524288
# + 256 + 4096 = 528640 to subtract.  Who holds it: memblock's three
# biggest, the slab objects (the kvmalloc() of d_alloc+0x20 put to
# d_alloc, not to __kvmalloc_node_noprof), the vmalloc area.
test_expect_success 'report --footprint: the balance against the kernel totals, exact' '
	"$MKTRACE" footprint f.kmt &&
	"$KMF" report --footprint f.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/footprint.report" out &&
	test ! -s err &&
	"$KMF" report --footprint --json f.kmt > out &&
	python3 -c "
import json
d = json.load(open(\"out\"))
assert d[\"ram\"] - d[\"mem_total\"] == d[\"reserved\"] == 36478976
assert d[\"mem_total\"] - d[\"mem_free\"] - d[\"pcp_free\"] == d[\"allocated\"]
assert d[\"allocated\"] == d[\"pages_held\"] + d[\"recorder_buffers\"] + d[\"unexplained\"]
assert d[\"explained\"] == 37052416 and d[\"kernel_holds\"] == 47882240
assert d[\"pages_held\"] == 49152 and d[\"vmalloc_held\"] == 16384
assert d[\"recorder_objects\"] == 256 and d[\"recorder_pages\"] == 4096
"
'

# "Who holds it" was in the text only: the same rows, the pages null
# without page stacks (the text says why), or with them, a caller not
# known (an all-allocator stack) null as page_callers has it.
test_expect_success 'report --footprint --json: who holds it, the rows of the text, exact' '
	"$MKTRACE" footprint f.kmt &&
	"$KMF" report --footprint --json f.kmt > out 2> err &&
	test_cmp "$TEST_DIR/expect/footprint.json" out &&
	test ! -s err &&
	"$KMF" report --footprint f.kmt > text &&
	holders_text text > want && holders_json out > got &&
	test_cmp want got && test "$(wc -l < got)" = 7 &&
	grep -q "^ pages  *(no callers: boot with kmemtrace.page_stack=N)  |$" text &&
	"$MKTRACE" pagestack-meminfo p.kmt &&
	"$KMF" report --footprint --json p.kmt > out &&
	sed -n "/\"holders\"/,\$p" out > got &&
	cat > want <<-\EOF &&
	  "holders": {
	    "memblock": [],
	    "slab": [],
	    "pages": [{"callsite": "helper_init+0x20", "address": "0xffffffff81002020", "held": 16384}, {"callsite": null, "address": "0x0", "held": 8192}, {"callsite": "alloc_thing+0x50", "address": "0xffffffff81001050", "held": 8192}],
	    "vmalloc": []
	  }
	}
	EOF
	test_cmp want got &&
	"$KMF" report --footprint p.kmt > text &&
	holders_text text > want && holders_json out > got &&
	test_cmp want got && test "$(wc -l < got)" = 3
'

# It said "memblock callers hold 36478976", the part in the RAM, where
# --memblock says 36876288: both figures now, the total first.
test_expect_success 'report --footprint: the memblock callers hold what --memblock holds, and this much in the RAM' '
	"$MKTRACE" footprint f.kmt &&
	"$KMF" report --footprint f.kmt > out &&
	sed -n "s/.*|  memblock callers hold \([0-9]*\) (report --memblock), \([0-9]*\) in the RAM$/\1 \2/p" out > got &&
	"$KMF" report --memblock f.kmt > mb &&
	total=$(sed -n "s/^ total  *|  *\([0-9]*\) |.*/\1/p" mb) &&
	echo "$total 36478976" > want && test_cmp want got &&
	test "$total" = 36876288 &&
	"$KMF" report --footprint --json f.kmt > fp.json &&
	"$KMF" report --memblock --json f.kmt > mb.json &&
	python3 -c "
import json
f = json.load(open(\"fp.json\"))
m = json.load(open(\"mb.json\"))
assert f[\"memblock_held_total\"] == m[\"held\"] == 36876288, (f, m[\"held\"])
assert f[\"memblock_held\"] == f[\"reserved\"] == 36478976, f
"
'

# "mktrace footprint-lost": the footprint boot, but the event that gave
# the kernel image's gap (1998848) to the page allocator was lost, and
# the kernel's early arrays had no room for 2 memblock events and 1 page
# event.  MemTotal is that of the boot that gave it, so the callers hold
# 36478976 + 1998848 = 38477824 of the RAM (38875136 in all): 1998848
# more than RAM - MemTotal, which is all the trace explains of it.
test_expect_success 'report --footprint on a trace that lost events: warned, and why the callers hold more' '
	"$MKTRACE" footprint-lost f.kmt &&
	"$KMF" report --footprint f.kmt > out 2> err &&
	cat > want <<-\EOF &&
	kmemflight report: warning: 1 events were lost while recording: totals are short, and what is held counts whatever they freed
	kmemflight report: warning: 1 page events of kmem_cache_init() did not fit in the kernel'"'"'s array: the page totals are short
	kmemflight report: warning: 2 memblock events of the early boot did not fit in the kernel'"'"'s array (CONFIG_KMEMTRACE_MEMBLOCK_EARLY=4096): the memblock totals are short
	EOF
	test_cmp want err &&
	sed -n "4p;13,15p" out > got &&
	cat > want <<-\EOF &&
	   reserved at boot, still held (RAM - MemTotal)            |     36478976 |  memblock callers hold 38875136 (report --memblock), 38477824 in the RAM
	--------------------------------------------------------------------------------------------------------------------
	(the memblock callers hold 1998848 bytes more of the RAM than RAM - MemTotal: frees the trace did not see (1 events were lost while recording); the trace explains no more than RAM - MemTotal)
	The kernel holds 47882240 bytes (RAM, less what is free); the trace explains 37052416 of them: 77.382%
	EOF
	test_cmp want got &&
	"$KMF" report --memblock f.kmt > mb 2> err2 &&
	test_cmp err err2 &&
	"$KMF" report --memblock --json f.kmt > mb.json 2> err2 &&
	test_cmp err err2 &&
	grep -q "^ total  *|  *38875136 |" mb &&
	"$MKTRACE" footprint f.kmt &&
	"$KMF" report --footprint f.kmt > out 2> err &&
	test ! -s err && ! grep -q "more of the RAM" out
'

test_expect_success 'report --live: the recorder'"'"'s own objects, pages and buffers, in one line' '
	"$MKTRACE" footprint f.kmt &&
	"$KMF" report --live f.kmt > out &&
	grep -q "^The recorder'"'"'s own: 256 bytes in 2 objects and 4096 bytes of pages, allocated by its functions and its initcalls (in the tables), and 524288 bytes of buffers on 2 CPUs (its topology)$" out &&
	"$KMF" report --live --json f.kmt > out &&
	grep -q "\"recorder\": {\"object_bytes\": 256, \"objects\": 2, \"page_bytes\": 4096, \"buffer_bytes\": 524288, \"buffer_bytes_in_trace\": 16384}" out &&
	"$MKTRACE" basic b.kmt &&
	! "$KMF" report --live b.kmt | grep -q "recorder" &&
	"$KMF" dump f.kmt | grep -q "^11100 0 task:0 buffer cpu=1 pfn=0x2000 order=2$"
'

# The footprint boot's kvmalloc() from d_alloc+0x20, recorded through
# the wrapper __kvmalloc_node_noprof (a KMT_EV_KMALLOC_VIA record whose
# stack is d_alloc+0x20), and its vmalloc areas: alloc_large_system_hash
# keeps 4 pages, kernel_init frees its one page again.
test_expect_success 'callers behind wrappers: put to the first frame outside; -v lists the wrappers' '
	"$MKTRACE" footprint f.kmt &&
	"$KMF" report --live f.kmt > out &&
	grep -q "^ d_alloc+0x20  *|  *96 |  *1 |  *96 |" out &&
	! grep -q "__kvmalloc_node_noprof" out &&
	grep -q "^1 allocations made through a wrapper are put to the first caller outside it (-v lists the wrappers)$" out &&
	"$KMF" report --live -v f.kmt > out &&
	grep -q "^  __kvmalloc_node_noprof  *1$" out &&
	"$KMF" report f.kmt > out &&
	grep -q "^ d_alloc+0x20 " out &&
	"$KMF" dump f.kmt > out &&
	grep -q "^10900 0 task:1 kmalloc call_site=d_alloc+0x20 via=__kvmalloc_node_noprof+0x43 ptr=0xffff888000005000 bytes_req=96 bytes_alloc=96 gfp_flags=0xcc0 node=-1$" out &&
	grep -q "^10800 0 task:1 text_range kind=wrapper size=512 name=__kvmalloc_node_noprof func=__kvmalloc_node_noprof+0x0$" out &&
	"$KMF" report --live --json f.kmt > out &&
	python3 -c "
import json
d = json.load(open(\"out\"))[\"live\"]
assert d[\"allocations_via_wrappers\"] == 1
assert d[\"wrappers\"] == [{\"name\": \"__kvmalloc_node_noprof\", \"allocations\": 1}]
"
'

test_expect_success 'vmalloc: the areas still held, by the caller vmalloc() was given' '
	"$MKTRACE" footprint f.kmt &&
	"$KMF" report --live f.kmt > out &&
	grep -q "^vmalloc areas still held: 1, with 16384 bytes of the pages above, by the caller vmalloc() was given$" out &&
	grep -q "^ alloc_large_system_hash+0x10  *|  *16384 |  *1$" out &&
	! grep -q "^ kernel_init+0x10  *|  *4096" out &&
	"$KMF" dump f.kmt > out &&
	grep -q "^10540 1 task:2 vmalloc op=alloc addr=0xffffc90000004000 pages=4 caller=alloc_large_system_hash+0x10$" out &&
	grep -q "^10700 1 task:2 vmalloc op=free addr=0xffffc90000010000 pages=1 caller=kernel_init+0x20$" out &&
	"$KMF" report --live --json f.kmt > out &&
	python3 -c "
import json
d = json.load(open(\"out\"))[\"live\"]
assert d[\"vmalloc_retained_areas\"] == 1 and d[\"vmalloc_retained_bytes\"] == 16384
assert d[\"vmalloc_retained_by_caller\"] == [{\"caller\": \"alloc_large_system_hash+0x10\", \"retained_bytes\": 16384, \"areas\": 1}]
"
'

test_expect_success 'report --footprint: a trace without the kernel totals says why; --at and other views are usage errors' '
	"$MKTRACE" memblock m.kmt &&
	test_must_fail "$KMF" report --footprint m.kmt > out 2> err &&
	grep -q "m.kmt: its save kept no kernel totals (/proc/meminfo)" err &&
	test ! -s out &&
	"$MKTRACE" footprint f.kmt &&
	test_must_fail --code=2 "$KMF" report --footprint --at 1s f.kmt 2> err &&
	grep -q "\-\-footprint is at the save" err &&
	test_must_fail --code=2 "$KMF" report --footprint --live f.kmt 2> err &&
	grep -q "\-\-footprint is a report of its own" err
'

test_done

#!/bin/sh
# shellcheck disable=SC2016,SC1091,SC2034 # SQ is used inside the test strings
# A file shorter than its header says (a copy or a save cut short): dump,
# info, report, plot and flame read what lies wholly before the cut, say
# what the cut took and exit 1; diff and summary refuse it.  The traces
# are "mktrace cut": sections FORMAT META TOPOLOGY CACHES KALLSYMS, CPU 0
# (3 sub-buffers, kmallocs at 1000, 3000, ... 47000 ns), CPU 1 (2
# sub-buffers, a kmalloc or a kfree at 2000, 4000, ... 48000 ns), TASKS
# and CGROUPS: 9 sections.
. "$(dirname "$0")/lib.sh"
SQ="'"

# u32 FILE OFFSET, u64 FILE OFFSET: an integer of the file, native order
u32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }

# sec_at FILE N: where section N's header is
sec_at() {
	_off=32 _n=0
	while [ "$_n" -lt "$2" ]; do
		_off=$((_off + 16 + ($(u64 "$1" $((_off + 8))) + 7) / 8 * 8))
		_n=$((_n + 1))
	done
	echo "$_off"
}

# subbuf_at FILE N K: where sub-buffer K of CPU section N starts (after
# the section header and its 24-byte struct kmt_cpu_section)
subbuf_at() {
	_off=$(($(sec_at "$1" "$2") + 16 + 24)) _k=0
	while [ "$_k" -lt "$3" ]; do
		_off=$((_off + $(u32 "$1" $((_off + 12)))))
		_k=$((_k + 1))
	done
	echo "$_off"
}

# cut_at OFFSET: c.kmt is t.kmt's first OFFSET bytes; size is t.kmt's
cut_at() {
	size=$(wc -c < t.kmt) &&
	head -c "$1" t.kmt > c.kmt
}

test_expect_success 'the trace the tests cut' '
	"$MKTRACE" cut t.kmt &&
	test "$(u32 t.kmt 16)" = 9 &&
	test "$(u32 t.kmt $(($(sec_at t.kmt 5))))" = 5 &&
	test "$(u32 t.kmt $(($(sec_at t.kmt 6))))" = 5 &&
	test "$(u32 t.kmt $(($(sec_at t.kmt 7))))" = 11 &&
	test "$(u32 t.kmt $(($(subbuf_at t.kmt 6 1) + 8)))" = 1 &&
	"$KMF" dump t.kmt > full &&
	test "$(wc -l < full)" = 48
'

test_expect_success 'cut through a record: the records before it, the warning, exit 1' '
	"$MKTRACE" cut t.kmt && "$KMF" dump t.kmt > full &&
	cut_at $(($(subbuf_at t.kmt 6 1) + 100)) &&
	test_must_fail "$KMF" dump c.kmt > out 2> err &&
	awk "\$2 == 0 || \$1 <= 36000" full > want &&
	test_cmp want out &&
	test "$(wc -l < out)" = 42 &&
	echo "kmemflight dump: warning: c.kmt is cut at $((size - 150)) of $size bytes, 150 short: CPU 1${SQ}s events after 0.000036000 s are missing, and so are the 2 sections that followed" > want &&
	test_cmp want err
'

test_expect_success 'cut between sub-buffers, or in a sub-buffer header: the whole ones' '
	"$MKTRACE" cut t.kmt && "$KMF" dump t.kmt > full &&
	awk "\$2 == 0 || \$1 <= 28000" full > want &&
	for d in 0 10 31 32; do
		cut_at $(($(subbuf_at t.kmt 6 1) + d)) &&
		test_must_fail "$KMF" dump c.kmt > out 2> err &&
		test_cmp want out &&
		grep -q "^kmemflight dump: warning: c.kmt is cut at [0-9]* of $size bytes, [0-9]* short: CPU 1${SQ}s events after 0.000028000 s are missing, and so are the 2 sections that followed$" err ||
		exit 1
	done
'

test_expect_success 'cut in an early CPU: the later CPUs are not read' '
	"$MKTRACE" cut t.kmt && "$KMF" dump t.kmt > full &&
	cut_at $(($(subbuf_at t.kmt 5 1) + 10)) &&
	test_must_fail "$KMF" dump c.kmt > out 2> err &&
	awk "\$2 == 0 && \$1 <= 21000" full > want &&
	test_cmp want out &&
	echo "kmemflight dump: warning: c.kmt is cut at $((size - 849)) of $size bytes, 849 short: CPU 0${SQ}s events after 0.000021000 s are missing, and so are the 3 sections that followed" > want &&
	test_cmp want err
'

test_expect_success 'cut before a CPU has a whole record: all of its events are missing' '
	"$MKTRACE" cut t.kmt && "$KMF" dump t.kmt > full &&
	for d in 24 40 60; do
		cut_at $(($(sec_at t.kmt 6) + 16 + d)) &&
		test_must_fail "$KMF" dump c.kmt > out 2> err &&
		awk "\$2 == 0" full > want &&
		test_cmp want out &&
		grep -q "is cut at [0-9]* of $size bytes, [0-9]* short: all of CPU 1${SQ}s events are missing, and so are the 2 sections that followed$" err ||
		exit 1
	done &&
	cut_at $(($(sec_at t.kmt 6) + 16 + 2)) &&
	test_must_fail "$KMF" dump c.kmt > out 2> err &&
	test_cmp want out &&
	grep -q "short: a CPU section is missing, and so are the 2 sections that followed$" err
'

test_expect_success 'cut in a section header: the sections from there on' '
	"$MKTRACE" cut t.kmt && "$KMF" dump t.kmt > full &&
	cut_at $(($(sec_at t.kmt 6) + 8)) &&
	test_must_fail "$KMF" dump c.kmt > out 2> err &&
	awk "\$2 == 0" full > want &&
	test_cmp want out &&
	echo "kmemflight dump: warning: c.kmt is cut at $(($(sec_at t.kmt 6) + 8)) of $size bytes, $((size - $(sec_at t.kmt 6) - 8)) short: its last 3 sections (of 9) are missing" > want &&
	test_cmp want err &&
	cut_at $(($(sec_at t.kmt 8) + 15)) &&
	test_must_fail "$KMF" dump c.kmt > out 2> err &&
	test_cmp full out &&
	grep -q "short: its last section (of 9) is missing$" err
'

test_expect_success 'cut in a later section: every event, that section named' '
	"$MKTRACE" cut t.kmt && "$KMF" dump t.kmt > full && "$KMF" info t.kmt > info &&
	grep -q "^tasks:       2 tasks and 1 cgroups at the save$" info &&
	cut_at $(($(sec_at t.kmt 7) + 16 + 10)) &&
	test_must_fail "$KMF" dump c.kmt > out 2> err &&
	test_cmp full out &&
	echo "kmemflight dump: warning: c.kmt is cut at $((size - 38)) of $size bytes, 38 short: the TASKS section is missing, and so is the section that followed" > want &&
	test_cmp want err &&
	test_must_fail "$KMF" info c.kmt > out 2> err &&
	! grep -q "^tasks:" out &&
	sed -n "s/^kmemflight info: //p" err > got &&
	echo "warning: c.kmt is cut at $((size - 38)) of $size bytes, 38 short: the TASKS section is missing, and so is the section that followed" > want &&
	test_cmp want got
'

test_expect_success 'cut in the padding after the last section: nothing but it is missing' '
	"$MKTRACE" cut t.kmt && "$KMF" dump t.kmt > full &&
	cut_at $(($(wc -c < t.kmt) - 1)) &&
	test_must_fail "$KMF" dump c.kmt > out 2> err &&
	test_cmp full out &&
	echo "kmemflight dump: warning: c.kmt is cut at $((size - 1)) of $size bytes, 1 short: only the padding after its last section is missing" > want &&
	test_cmp want err
'

test_expect_success 'info of a cut trace: the file line says so, the CPU rows what was read' '
	"$MKTRACE" cut t.kmt &&
	cut_at $(($(subbuf_at t.kmt 6 1) + 100)) &&
	test_must_fail "$KMF" info c.kmt > out 2> err &&
	cat > want <<-EOF &&
	file:        c.kmt ($((size - 150)) bytes, cut: its header says $size; native byte order)
	release:     6.12.0-test
	build-id:    00112233
	cmdline:     kmemtrace.enable=1
	recorder:    ABI 2, 64-bit, 64 x 256-byte sub-buffers per CPU, clock local_clock
	caches:      0
	nodes:       1
	symbols:     5 text symbols, 147 bytes, 147 in the file
	time:        0.000001000 s to 0.000047000 s, a span of 0.000046000 s
	cpu      node    subbufs       kernel      in_file       lost
	0           0          3           24           24          0
	1           0          2           24           18          0
	total                              48           42          0
	bytes/event: 21.67 (sub-buffers), $(awk "BEGIN { printf \"%.2f\", ($size - 150) / 42 }") (whole file)
	EOF
	test_cmp want out &&
	grep -q "^kmemflight info: warning: c.kmt is cut at .*: CPU 1${SQ}s events after 0.000036000 s are missing" err
'

test_expect_success 'info --json of a cut trace: the header size, what was read, the warning, exit 1' '
	"$MKTRACE" cut t.kmt &&
	cut_at $(($(subbuf_at t.kmt 6 1) + 100)) &&
	test_must_fail "$KMF" info --json c.kmt > out.json 2> err &&
	python3 -c "
import json, sys
d = json.load(open(\"out.json\"))
assert d[\"file_bytes\"] == $size - 150 and d[\"header_file_bytes\"] == $size, d
assert d[\"total\"][\"in_file\"] == 42, d[\"total\"]
" &&
	grep -q "^kmemflight info: warning: c.kmt is cut at " err &&
	{ "$KMF" info c.kmt > c.kmt.info 2> /dev/null; test $? = 1; } &&
	python3 "$TEST_DIR/infocheck.py" c.kmt.info out.json
'

test_expect_success 'report --footprint of a cut trace: no balance against the save'"'"'s totals, exit 1' '
	"$MKTRACE" cut t.kmt &&
	cut_at $(($(subbuf_at t.kmt 6 1) + 100)) &&
	test_must_fail "$KMF" report --footprint c.kmt > out 2> err &&
	test ! -s out &&
	grep -qx "kmemflight report: error: c.kmt is cut short: its events end before the save whose totals it holds, so there is no balance to draw (report --live, --page and --memblock read what is whole)" err
'

test_expect_success 'report, plot and flame of a cut trace: what was read, the warning, exit 1' '
	"$MKTRACE" cut t.kmt &&
	cut_at $(($(subbuf_at t.kmt 6 1) + 100)) &&
	msg="warning: c.kmt is cut at $((size - 150)) of $size bytes, 150 short: CPU 1${SQ}s events after 0.000036000 s are missing, and so are the 2 sections that followed" &&
	test_must_fail "$KMF" report --caller c.kmt > out 2> err &&
	grep -q "^ alloc_thing+0x10  *|      3072/128   |      2400/100   |       24 |" out &&
	grep -q "^ helper_init+0x5  *|       576/64    |       540/60    |        9 |" out &&
	grep -q "^Allocations: 33, failed: 0, frees: 9 (0 of objects not allocated in the trace)$" out &&
	grep -q "^Events: 42 (kmalloc 33, kmem_cache_alloc 0, kfree 9," out &&
	echo "kmemflight report: $msg" > want && test_cmp want err &&
	test_must_fail "$KMF" report --json c.kmt > out 2> err &&
	python3 -m json.tool out > /dev/null &&
	echo "kmemflight report: $msg" > want && test_cmp want err &&
	test_must_fail "$KMF" flame -o c.folded c.kmt 2> err &&
	test -s c.folded &&
	echo "kmemflight flame: $msg" > want && test_cmp want err &&
	test_must_fail "$KMF" plot -o c.svg c.kmt 2> err &&
	grep -q "</svg>" c.svg &&
	echo "kmemflight plot: $msg" > want && test_cmp want err
'

test_expect_success 'cut before the events: the clean error, nothing printed' '
	"$MKTRACE" cut t.kmt &&
	cut_at $(($(sec_at t.kmt 4) + 20)) &&
	test_must_fail "$KMF" dump c.kmt > out 2> err &&
	test ! -s out &&
	echo "kmemflight dump: error: c.kmt: file is cut at $(($(sec_at t.kmt 4) + 20)) of $size bytes, and no CPU section is before the cut: no events" > want &&
	test_cmp want err &&
	for n in 32 40 100 1000; do
		cut_at $n &&
		test_must_fail "$KMF" info c.kmt > out 2> err &&
		test ! -s out &&
		echo "kmemflight info: error: c.kmt: file is cut at $n of $size bytes, and no whole FORMAT section is before the cut: nothing can be read" > want &&
		test_cmp want err || exit 1
	done &&
	cut_at 31 &&
	test_must_fail "$KMF" report c.kmt > out 2> err &&
	test ! -s out &&
	grep -q "^kmemflight report: error: c.kmt: file is 31 bytes, too short for a kmemflight header$" err
'

test_expect_success 'a cut trace that is also corrupt is refused as a whole one is' '
	"$MKTRACE" cut t.kmt &&
	cut_at $(($(subbuf_at t.kmt 6 1) + 100)) &&
	cp c.kmt bad.kmt &&
	printf XXXX | dd of=bad.kmt bs=1 seek="$(subbuf_at t.kmt 5 1)" conv=notrunc status=none &&
	test_must_fail "$KMF" report bad.kmt > out 2> err &&
	test ! -s out &&
	grep -q "^kmemflight report: error: bad.kmt: cpu 0: sub-buffer 1 has a bad magic 0x58585858$" err &&
	grep -q "^kmemflight report: warning: bad.kmt is cut at" err &&
	cp c.kmt bad.kmt &&
	printf XXXX | dd of=bad.kmt bs=1 seek="$(subbuf_at t.kmt 6 1)" conv=notrunc status=none &&
	test_must_fail "$KMF" dump bad.kmt > out 2> err &&
	grep -q "^kmemflight dump: error: bad.kmt: cpu 1: sub-buffer 1 has a bad magic 0x58585858$" err &&
	cp c.kmt bad.kmt &&
	off=$(($(sec_at t.kmt 6) + 8)) &&
	printf "\\377\\377\\377\\377\\377\\377\\377\\177" | dd of=bad.kmt bs=1 seek="$off" conv=notrunc status=none &&
	test_must_fail "$KMF" dump bad.kmt > out 2> err &&
	test ! -s out &&
	grep -q "^kmemflight dump: error: bad.kmt: section 6 (type 5) has 9223372036854775807 bytes, more than the file holds$" err &&
	cp c.kmt bad.kmt &&
	printf "\\002" | dd of=bad.kmt bs=1 seek=$(($(sec_at t.kmt 6) + 4)) conv=notrunc status=none &&
	test_must_fail "$KMF" dump bad.kmt > out 2> err &&
	test ! -s out &&
	grep -q "^kmemflight dump: error: bad.kmt: section 6 (type 5) has flags 0x2 this kmemflight does not know$" err
'

test_expect_success 'a file longer than its header says is refused' '
	"$MKTRACE" cut t.kmt &&
	cp t.kmt long.kmt && printf "\\000" >> long.kmt &&
	test_must_fail "$KMF" dump long.kmt > out 2> err &&
	test ! -s out &&
	grep -q "^kmemflight dump: error: long.kmt: file is $(($(wc -c < t.kmt) + 1)) bytes but its header says $(wc -c < t.kmt) (truncated or incomplete save)$" err
'

test_expect_success 'the other byte order is cut the same way' '
	"$MKTRACE" basic t.kmt && "$MKTRACE" swapped s.kmt &&
	cut_at $(($(wc -c < t.kmt) - 30)) && mv c.kmt native.kmt &&
	head -c $(($(wc -c < s.kmt) - 30)) s.kmt > c.kmt &&
	test_must_fail "$KMF" dump native.kmt > want 2> err &&
	test_must_fail "$KMF" dump c.kmt > out 2> err &&
	test_cmp want out &&
	test "$(wc -l < out)" = 11 &&
	grep -q "short: CPU 1${SQ}s events after 0.000003000 s are missing$" err
'

test_expect_success 'diff and summary do not compare a cut trace' '
	"$MKTRACE" cut t.kmt &&
	cut_at $(($(subbuf_at t.kmt 6 1) + 100)) &&
	msg="c.kmt is cut at $((size - 150)) of $size bytes, 150 short: CPU 1${SQ}s events after 0.000036000 s are missing, and so are the 2 sections that followed; a partial trace is not compared (dump, info and report read what is whole)" &&
	test_must_fail "$KMF" diff t.kmt c.kmt > out 2> err &&
	test ! -s out &&
	echo "kmemflight diff: error: $msg" > want && test_cmp want err &&
	test_must_fail "$KMF" summary c.kmt > out 2> err &&
	test ! -s out &&
	echo "kmemflight summary: error: $msg" > want && test_cmp want err
'

test_done

#!/bin/sh
# shellcheck disable=SC2016,SC1091,SC2034 # SCHEMA is used inside the test strings
# kmemflight flame on "mktrace plot" (tests/unit/mktrace.c; its numbers
# are worked out in t0098-plot.sh): the footprint as stacks, root first,
# and what a range allocated; the speedscope JSON checked against
# speedscope's own schema (qemu-tests/deps.sh fetches it from npm) and
# read back into the same stacks.
. "$(dirname "$0")/lib.sh"

SCHEMA=${KMF_CACHE:-$HOME/.cache/kmemflight}/speedscope-1.25.0/file-format-schema.json

test_expect_success 'flame --help, and usage errors exit 2' '
	"$KMF" flame --help > out &&
	grep -q "^usage: kmemflight flame" out &&
	"$MKTRACE" plot t.kmt &&
	test_must_fail --code=2 "$KMF" flame 2> err &&
	grep -q "missing <file>" err &&
	test_must_fail --code=2 "$KMF" flame t.kmt t.kmt 2> err &&
	grep -q "one <file> only" err &&
	test_must_fail --code=2 "$KMF" flame --format svgz t.kmt 2> err &&
	grep -q "format is folded or speedscope, not .svgz." err &&
	test_must_fail --code=2 "$KMF" flame --at soon t.kmt
'

test_expect_success 'flame: the footprint as folded stacks, worked out by hand' '
	"$MKTRACE" plot t.kmt &&
	"$KMF" flame t.kmt > got 2> err &&
	cat > want <<-\EOF &&
	memblock;setup_arch 2097152
	pages;setup_arch;core_hash_init;[order-8] 1048576
	pages;vmap_user;[order-0] 262144
	recorder;[buffers] 262144
	slab;dev_probe;[dev_cache] 8192
	slab;early_table_init;[kmalloc-4k] 4096
	EOF
	test_cmp want got &&
	test ! -s err
'

# The kinds add up to report --footprint's parts, with page stacks and
# without (footprint, footprint-lost: the slab objects are in pages with
# no stack, not again on top of them; the buffers the trace saw are the
# recorder's, not pages).
test_expect_success 'flame: its kinds add up to report --footprint'"'"'s parts' '
	for s in footprint footprint-lost pagestack-meminfo; do
		"$MKTRACE" $s t.kmt &&
		"$KMF" flame t.kmt 2> /dev/null > got &&
		"$KMF" report --footprint --json t.kmt 2> /dev/null > fp.json &&
		python3 -c "
import json, sys
d = json.load(open(\"fp.json\"))
k = {}
for line in open(\"got\"):
    stack, w = line.rsplit(\" \", 1)
    k[stack.split(\";\")[0]] = k.get(stack.split(\";\")[0], 0) + int(w)
want = {\"recorder\": d[\"recorder_buffers\"], \"pages\": d[\"pages_held\"]}
got = {\"recorder\": k.get(\"recorder\", 0), \"pages\": k.get(\"slab\", 0) + k.get(\"pages\", 0)}
if d.get(\"memblock_held_total\") is not None:
    want[\"memblock\"] = d[\"memblock_held_total\"]
    got[\"memblock\"] = k.get(\"memblock\", 0)
print(\"$s\", got, want)
sys.exit(got != want)
" || exit 1
	done &&
	"$MKTRACE" footprint t.kmt && "$KMF" flame t.kmt 2> /dev/null > got &&
	grep -qx "pages;\[no-stack\];\[order-0\] 32384" got
'

test_expect_success 'flame --at 2.7ms: the footprint then; --allocated --time: what a range allocated' '
	"$MKTRACE" plot t.kmt &&
	"$KMF" flame --at 2.7ms t.kmt > got &&
	grep -qx "slab;dev_probe;\[dev_cache\] 16384" got &&
	! grep -q vmap_user got &&
	"$KMF" flame --allocated --time 2ms,3ms t.kmt > got &&
	echo "slab;dev_probe;[dev_cache] 16384" > want &&
	test_cmp want got &&
	"$KMF" flame --allocated t.kmt > got &&
	grep -qx "memblock;setup_arch 2097152" got &&
	grep -qx "slab;dev_probe;\[dev_cache\] 16384" got &&
	! grep -q "^recorder" got &&
	test_must_fail "$KMF" flame --time 1s, t.kmt 2> err &&
	grep -q "no event of t.kmt falls within --time" err
'

test_expect_success 'flame --offsets, --raw-ip: frames as function+offset or addresses' '
	"$MKTRACE" plot t.kmt &&
	"$KMF" flame --offsets t.kmt > got &&
	grep -qx "pages;setup_arch+0x200;core_hash_init+0x20;\[order-8\] 1048576" got &&
	"$KMF" flame --raw-ip t.kmt > got &&
	grep -qx "slab;0xffffffff81003030;\[dev_cache\] 8192" got
'

test_expect_success 'flame: page stacks without the allocator'"'"'s frames; the slab'"'"'s pages are its objects' '
	"$MKTRACE" pagestack t.kmt &&
	"$KMF" flame t.kmt > got &&
	cat > want <<-\EOF &&
	pages;[no-stack];[order-0] 4096
	pages;[page-allocator];[order-0] 4096
	pages;alloc_thing;[order-0] 8192
	pages;helper_init;[order-2] 16384
	recorder;[buffers] 262144
	slab;[free-room-in-slab-pages] 8192
	EOF
	test_cmp want got &&
	"$KMF" flame --allocated t.kmt | grep -qx "pages;helper_init;new_slab;\[order-1\] 8192"
'

test_expect_success 'flame -o x.json: speedscope'"'"'s schema holds, and it says what the folded stacks say' '
	test -s "$SCHEMA" || { echo "no $SCHEMA: run qemu-tests/deps.sh"; false; } &&
	"$MKTRACE" plot t.kmt &&
	"$KMF" flame -o t.json t.kmt &&
	"$KMF" flame -o t.folded t.kmt &&
	python3 "$TEST_DIR/jsoncheck.py" "$SCHEMA" t.json > back &&
	test_cmp t.folded back &&
	grep -q "\"endValue\": 3682304," t.json &&
	"$KMF" flame --format speedscope --allocated t.kmt > a.json &&
	"$KMF" flame --allocated t.kmt > a.folded &&
	python3 "$TEST_DIR/jsoncheck.py" "$SCHEMA" a.json > back &&
	test_cmp a.folded back
'

test_expect_success 'flame: a corrupt trace fails and leaves the old output' '
	"$MKTRACE" plot t.kmt &&
	head -c 500 t.kmt > cut.kmt &&
	echo keep > out.folded &&
	test_must_fail "$KMF" flame -o out.folded cut.kmt 2> err &&
	grep -q "cut.kmt" err &&
	test "$(cat out.folded)" = keep
'

test_expect_success 'flame, plot: a write error says which and exits 1' '
	"$MKTRACE" plot t.kmt &&
	test_must_fail "$KMF" flame t.kmt > /dev/full 2> err &&
	grep -qx "kmemflight flame: error: writing to standard output: No space left on device" err &&
	test_must_fail "$KMF" plot t.kmt > /dev/full 2> err &&
	grep -qx "kmemflight plot: error: writing to standard output: No space left on device" err
'

test_done

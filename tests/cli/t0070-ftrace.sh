#!/bin/sh
# shellcheck disable=SC2016,SC1091
# save --from-ftrace on this machine's own kernel: a private tracefs
# instance traces the kmem events of a small workload; what kmemflight
# saves from it must be what ftrace itself prints of the same buffer.
# Needs root and tracefs; without them the live tests say so and skip.
. "$(dirname "$0")/lib.sh"

T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null

test_expect_success 'usage errors exit 2' '
	test_must_fail --code=2 "$KMF" save --from-ftrace 2> err &&
	grep -q "missing <file>" err &&
	test_must_fail --code=2 "$KMF" save --from-ftrace a b c 2> err &&
	grep -q "an <instance> and a <file>, no more" err &&
	test_must_fail --code=2 "$KMF" save --from-ftrace --spool s x.kmt 2> err &&
	grep -q "spool is for the kmemtrace recorder" err &&
	"$KMF" save --from-ftrace --help > out &&
	grep -q "^usage: kmemflight save --from-ftrace \[<instance>\]" out &&
	"$KMF" save --help > out &&
	grep -q -- "--from-ftrace " out
'

if [ "$(id -u)" -ne 0 ] || [ ! -d "$T/instances" ]; then
	echo "# skipping the live ftrace tests: they need root and tracefs at $T"
	test_done
	exit
fi

inst=kmf-t0070-$$
I=$T/instances/$inst
cleanup() { rmdir "$I" 2>/dev/null; }
trap cleanup EXIT

# The instance traces a workload, then stops: the buffer is fixed.
trace_workload() {
	rmdir "$I" 2>/dev/null
	mkdir "$I" && echo 16384 > "$I/buffer_size_kb" &&
	echo 0 > "$I/options/overwrite" &&
	for e in kmalloc kmem_cache_alloc kfree kmem_cache_free mm_page_alloc mm_page_free; do
		echo 1 > "$I/events/kmem/$e/enable" || return 1
	done &&
	ls -R /usr/include > /dev/null && cat /etc/passwd > /dev/null &&
	echo 0 > "$I/tracing_on"
}

test_expect_success 'a missing instance is named' '
	test_must_fail "$KMF" save --from-ftrace kmf-no-such-instance x.kmt 2> err &&
	grep -q "no tracefs instance .kmf-no-such-instance." err &&
	test ! -e x.kmt
'

test_expect_success 'an instance with no kmem events is an error, not an empty file' '
	rmdir "$I" 2>/dev/null; mkdir "$I" &&
	test_must_fail "$KMF" save --from-ftrace "$inst" x.kmt 2> err &&
	grep -q "holds no kmem events, and none is enabled" err &&
	test ! -e x.kmt
'

test_expect_success 'a user who cannot read tracefs is told to be root' '
	trace_workload &&
	test_must_fail setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KMF" save --from-ftrace "$inst" /tmp/kmf-t0070-$$.kmt 2> err &&
	grep -q "run as root" err &&
	test ! -e /tmp/kmf-t0070-$$.kmt
'

# ftrace's text of the buffer: "count type", "bytes req alloc" of kmalloc.
ftrace_counts() {
	awk "/^#/ { next }
	{ for (i = 1; i <= NF; i++) if (\$i ~ /^(kmalloc|kmem_cache_alloc|kfree|kmem_cache_free|mm_page_alloc|mm_page_free):\$/) { sub(/:\$/, \"\", \$i); n[\$i]++ } }
	END { for (k in n) print n[k], k }" "$1" | sort -k2
}

kmf_counts() {
	"$KMF" dump "$1" | awk "{ n[\$4]++ } END { for (k in n) print n[k], k }" | sort -k2
}

test_expect_success 'every event of the buffer, as ftrace prints it' '
	trace_workload && cat "$I/trace" > text &&
	"$KMF" save --from-ftrace "$inst" boot.kmt > out &&
	test "$(stat -c %a boot.kmt)" = 600 &&
	ftrace_counts text > want && kmf_counts boot.kmt > got &&
	cat want && test_cmp want got &&
	n=$(awk "{ s += \$1 } END { print s }" want) &&
	grep -q "saved $n kmem events from ftrace instance $inst (0 lost)" out &&
	# the kmalloc sizes, summed
	grep " kmalloc: " text | sed "s/.*bytes_req=\([0-9]*\) bytes_alloc=\([0-9]*\).*/\1 \2/" |
		awk "{ r += \$1; a += \$2 } END { print r, a }" > want &&
	"$KMF" dump boot.kmt | awk "\$4 == \"kmalloc\"" |
		sed "s/.*bytes_req=\([0-9]*\) bytes_alloc=\([0-9]*\).*/\1 \2/" |
		awk "{ r += \$1; a += \$2 } END { print r, a }" > got &&
	test_cmp want got &&
	# the buffer was read: a second save finds it empty and fails
	test_must_fail "$KMF" save --from-ftrace "$inst" again.kmt 2> err &&
	grep -q "holds no kmem events (kmalloc,kmem_cache_alloc,kfree,kmem_cache_free,mm_page_alloc,mm_page_free enabled" err
'

test_expect_success 'callsites and cache names come through, per CPU' '
	trace_workload && cat "$I/trace" > text &&
	"$KMF" save -q --from-ftrace "$inst" boot.kmt &&
	grep " kmem_cache_alloc: " text |
		sed "s/.*\[\([0-9]*\)\].* call_site=\([^ /]*\)[^ ]* .*name=\([^ ]*\) .*/\1 \2 \3/" |
		awk "{ \$1 = \$1 + 0; print }" | sort | uniq -c > want &&
	"$KMF" dump boot.kmt | awk "\$4 == \"kmem_cache_alloc\"" |
		sed "s/^[0-9]* \([0-9]*\) .* call_site=\([^ ]*\) .*cache=[0-9]*(\([^)]*\)).*/\1 \2 \3/" |
		sort | uniq -c > got &&
	test_cmp want got
'

test_expect_success 'the report says what ftrace could not see, once' '
	trace_workload &&
	"$KMF" save -q --from-ftrace "$inst" boot.kmt &&
	"$KMF" report --caller boot.kmt > out 2> err &&
	test "$(grep -c "note: ftrace source: allocations before its first event at" err)" = 1 &&
	grep -q "Callsite" out &&
	"$KMF" info boot.kmt > out 2> err &&
	grep -q "^source:      ftrace, instance $inst, nooverwrite mode" out &&
	"$KMF" diff boot.kmt boot.kmt > out 2> err &&
	grep -q "note: boot.kmt: ftrace source" err &&
	test_must_fail "$KMF" report --latency boot.kmt > out 2> err &&
	test ! -s out &&
	grep -q "boot.kmt: this trace from ftrace has no vmscan or compaction events: trace mm_vmscan_direct_reclaim_begin/end" err
'

# A direct-map offset can start with ffff too (0xffffff00: 4 GiB less 256
# bytes into it, on a machine with more): an address is 16 digits.
test_expect_success '--keep-recording turns tracing back on; --no-addresses strips them' '
	trace_workload && echo 1 > "$I/tracing_on" &&
	"$KMF" save -q --from-ftrace --keep-recording --no-addresses "$inst" boot.kmt &&
	test "$(cat "$I/tracing_on")" = 1 &&
	"$KMF" info boot.kmt | grep -q "^addresses:   relative" &&
	"$KMF" dump boot.kmt > dump &&
	grep -q " ptr=0x[0-9a-f]* " dump &&
	! grep -Eq "ptr=0x[0-9a-f]{16}( |$)" dump
'

test_done

#!/bin/sh
# Should the recorder write into the tracing ring buffer
# (kernel/trace/ring_buffer.c) instead of its own?  Measured, not a test:
#
#  1. cost: one boot of the bench kernel under -icount shift=0 (exact
#     guest instructions), bench/guest-cost.sh in states off, kmemflight,
#     rb and ftrace: rb is the kmemtrace-bench-rb sample, kmemflight's
#     hot probes writing the same records through
#     ring_buffer_lock_reserve()/ring_buffer_unlock_commit();
#  2. size: the bytes per event the ring buffer takes for those records
#     (its event headers, time extends, page padding and page headers),
#     against kmemflight's format for the same events, in the bench loop
#     and over a boot (the sample attached from an early initcall).
#
# The recorder moves onto the ring buffer if that costs at most 1.15
# times its own instructions per event and at most 20 bytes per event.
# Prints a Markdown section (bench/run.sh puts it in benchmarks.md).
#
#   bench/ring-buffer.sh       KMF_BENCH_PAIRS=20000
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/build/bench/rb
pairs=${KMF_BENCH_PAIRS:-20000}
states=off,kmemflight,rb,ftrace
log() { echo "bench: $*" >&2; }

bench=$("$repo/qemu-tests/build-kernel.sh" bench)
rm -rf "$out"
mkdir -p "$out"

log "ring buffer: cost in guest instructions, states $states"
KMF_QEMU_ARGS="-icount shift=0" "$repo/qemu-tests/boot.sh" -k "$bench" -c 2 -t 1800 \
	-x "$repo/bench/guest-cost.sh" \
	-a "kmemtrace.enable=1 kmemtrace.subbufs=1024 kmemtrace.subbuf_size=65536 kmfbench.pairs=$pairs kmfbench.rounds=1 kmfbench.states=$states" \
	"$out/cost" > "$out/cost.log" 2>&1
[ "$(cat "$out/cost/hook.rc")" = 0 ] || { cat "$out/cost/hook.err" >&2; exit 1; }
awk -v pairs="$pairs" -v states="$states" -f "$repo/bench/cost.awk" \
	"$out/cost/hook.out" > "$out/cost.txt"

log "ring buffer: bytes per event over a boot"
"$repo/qemu-tests/boot.sh" -k "$bench" -c 2 -x "$repo/bench/guest-rb.sh" \
	-a "kmemtrace.enable=1 kmemtrace_bench_rb.boot=1 kmemtrace_bench_rb.size=33554432" \
	"$out/size" > "$out/size.log" 2>&1
[ "$(cat "$out/size/hook.rc")" = 0 ] || { cat "$out/size/hook.err" >&2; exit 1; }

cost() { awk -v s="$1" -v c="$2" '$1 == "event" && $2 == s { print $c }' "$out/cost.txt"; }
# "rb cpu N entries E bytes B overrun O dropped D nofit F kmt_bytes K":
# events, ring-buffer bytes with each page's 16-byte header (4096-byte
# pages), kmemflight-format bytes, events lost or not written
sizes() {
	awk '$1 == "rb" && $2 == "cpu" { e += $5; b += $7; lost += $9 + $11; nofit += $13; k += $15 }
		END { if (!e) exit 1
			printf "%d %.2f %.2f %d %d\n", e, b * 4096 / 4080 / e, k / e, lost, nofit }' "$1"
}
loop=$(sizes "$out/cost/hook.out") || { log "no ring-buffer counts in $out/cost/hook.out"; exit 1; }
boot=$(sizes "$out/size/hook.out") || { log "no ring-buffer counts in $out/size/hook.out"; exit 1; }
read -r loop_n loop_rb loop_kmt loop_lost loop_nofit <<EOT
$loop
EOT
read -r boot_n boot_rb boot_kmt boot_lost boot_nofit <<EOT
$boot
EOT
kmf=$(cost kmemflight 5)
rb=$(cost rb 5)
ratio=$(awk -v a="$rb" -v b="$kmf" 'BEGIN { printf "%.2f", a / b }')
verdict=$(awk -v r="$ratio" -v b="$boot_rb" 'BEGIN {
	if (r <= 1.15 && b <= 20) print "within both limits: the recorder should move onto it"
	else if (r > 1.15 && b > 20) print "over both limits: the recorder keeps its own buffer"
	else if (r > 1.15) print "over the 1.15 limit in instructions: the recorder keeps its own buffer"
	else print "over the 20-byte limit: the recorder keeps its own buffer" }')

cat <<MD
## 5. The tracing ring buffer instead of the recorder's own

\`bench/ring-buffer.sh\`. The \`kmemtrace-bench-rb\` sample is kmemflight's
hot probes (the same fit tests, wrapper filter and fixed-width fields)
writing the same records through \`ring_buffer_lock_reserve()\` and
\`ring_buffer_unlock_commit()\` of \`kernel/trace/ring_buffer.c\`: the ring
buffer's event header and time delta in place of kmemflight's header
byte and 16-bit delta, a type byte in the payload, the pid when it
changed. One boot under \`-icount shift=0\`, $pairs pairs per CPU in each
state (in state rb only the sample's probes are attached, to a buffer
that does not wrap in the run), instructions per event over state off:

| recorder | slab event | page event | mean |
|---|---|---|---|
$(awk '$1 == "event" { printf "| %s | %s | %s | %s |\n", $2, $3, $4, $5 }' "$out/cost.txt")

Ring buffer / kmemflight: **$ratio** times the instructions per event.

Bytes per event, the ring buffer's (event headers, time extends, the
padding at the end of each page, each 4096-byte page's 16-byte header)
and kmemflight's format for the same events, estimated by the sample (header byte, 16-bit delta,
fields, the pid when it changed; sub-buffer headers and absolute times
not counted). Not written: the events whose values do not fit the fast
path or whose call site is in a wrapper (the kvmalloc loop's
allocations), which the recorder writes through its general path:

| events | count | ring buffer | kmemflight's format | lost, not written |
|---|---|---|---|---|
| the bench loops (kmalloc, page, kvmalloc pairs) | $loop_n | $loop_rb B | $loop_kmt B | $loop_lost, $loop_nofit |
| a boot's kmem events, from an early initcall to the hook | $boot_n | $boot_rb B | $boot_kmt B | $boot_lost, $boot_nofit |

Limits for a move: at most 1.15 times the instructions, at most 20 bytes
per event: $verdict.
MD

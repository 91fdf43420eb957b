#!/bin/sh
# The benchmarks of kmemflight against ftrace, each measured in one run
# (not a test).  Writes Documentation/benchmarks.md and prints it:
#
#  1. recorder cost: in one boot of the bench kernel (the QEMU kernel and
#     the kmemtrace-bench sample), kmalloc/kfree and alloc_page/free
#     pairs (and kvmalloc/kvfree ones, through a wrapper) timed on every
#     CPU with kmemflight's recorder off and on and
#     ftrace's kmem events off and on (bench/guest-cost.sh); the cost per
#     event of each, and their ratio (target <= 0.22), in boot and in flight mode;
#  2. size: one boot recorded by both (trace_event= for ftrace), bytes
#     per event of each (target <= 18.21 B in the file);
#  3. boot overhead: time to /init with kmemtrace.enable=0 and =1, BOOTS
#     boots each, median and spread, and the guest instructions of one
#     boot each (target <= 6 %);
#  4. analysis: bench/report.sh on a 10 M-event trace;
#  5. the tracing ring buffer in place of the recorder's own
#     (bench/ring-buffer.sh);
#  6. the Debian boot with systemd to multi-user.target, its guest
#     instructions with the recorder off and on (bench/systemd-cost.sh).
#
#   bench/run.sh       KMF_BENCH_BOOTS=5 KMF_BENCH_PAIRS=20000 KMF_BENCH_ROUNDS=5
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/build/bench/run
doc=$repo/Documentation/benchmarks.md
boots=${KMF_BENCH_BOOTS:-5}
pairs=${KMF_BENCH_PAIRS:-20000}
rounds=${KMF_BENCH_ROUNDS:-5}
kmf=$repo/build/kmemflight
events="kmalloc kfree kmem_cache_alloc kmem_cache_free mm_page_alloc mm_page_free mm_page_free_batched"

make -s -C "$repo" build/kmemflight
bench=$("$repo/qemu-tests/build-kernel.sh" bench)
rm -rf "$out"
mkdir -p "$out"
log() { echo "bench: $*" >&2; }

# ---- 1. cost per event, four states in one boot ---------------------------
# Twice: in wall-clock time (TCG, noisy: the median of ROUNDS rounds), and
# with -icount shift=0, where the guest clock advances one nanosecond per
# guest instruction: an exact instruction count, the same on every run
# (bench/quick-cost.sh, which also boots twice more for the instructions
# to /init of section 3).
cost_boot() {	# NAME [STATES SUBBUFS MODE SUBBUF_SIZE]
	states=${2:-off,kmemflight,ftrace,both}
	KMF_QEMU_ARGS='' "$repo/qemu-tests/boot.sh" -k "$bench" -c 2 -t 1800 \
		-x "$repo/bench/guest-cost.sh" \
		-a "kmemtrace.enable=1 kmemtrace.mode=${4:-boot} kmemtrace.subbufs=${3:-1024} kmemtrace.subbuf_size=${5:-131072} kmfbench.pairs=$pairs kmfbench.rounds=$rounds kmfbench.states=$states" \
		"$out/$1" > "$out/$1.log" 2>&1
	[ "$(cat "$out/$1/hook.rc")" = 0 ] || { cat "$out/$1/hook.err" >&2; exit 1; }
	# the recorder must have kept (or, in flight mode, overwritten and
	# counted) everything while the bench ran
	awk '$1 ~ /^[0-9]+$/ && NF >= 4 && $3 != 0 { bad = 1 } END { exit bad }' "$out/$1/hook.out" || {
		log "the recorder lost events during the cost runs: bigger buffers needed"; exit 1; }
	# per state: the median over rounds of the ns per pair (all CPUs), for
	# the slab and the page loop; a pair is two events
	awk -v pairs="$pairs" -v states="$states" -f "$repo/bench/cost.awk" \
		"$out/$1/hook.out" > "$out/$1.txt"
}
log "recorder cost: $rounds rounds of $pairs pairs per CPU in 4 states, wall clock"
cost_boot cost
# flight mode: a pool of 16 x 64 KiB, 8 per CPU, which every round
# wraps many times
log "recorder cost in flight mode (round-robin), wall clock"
cost_boot fcost off,flight,ftrace 16 flight 65536
log "recorder cost in guest instructions (-icount shift=0), both modes, and to /init"
"$repo/bench/quick-cost.sh" -k "$bench" -p "$pairs" -i "$out" > "$out/quick.txt"
overwritten() { awk '$1 ~ /^[0-9]+$/ && NF >= 6 { o += $6 } END { print o + 0 }' "$out/$1/hook.out"; }
[ "$(overwritten finsns)" -gt 0 ] || { log "flight mode overwrote nothing: the buffers never wrapped"; exit 1; }
# the kvmalloc loop must have gone through the wrapper path: every
# allocation of it, in the two states kmemflight recorded, put past
# __kvmalloc_node_noprof to its caller
via_hits=$("$kmf" report --live -v "$out/insns/boot.kmt" |
	awk '$1 == "__kvmalloc_node_noprof" { print $2 }')
[ "${via_hits:-0}" -ge $((2 * 2 * pairs)) ] || {
	log "only ${via_hits:-0} allocations through __kvmalloc_node_noprof recorded, not $((2 * 2 * pairs))"; exit 1; }
log "$via_hits allocations through __kvmalloc_node_noprof, put past it"
# ... to the right caller: the bench's own function, 8 KiB each
caller_hits=$("$kmf" report --caller "$out/insns/boot.kmt" |
	awk -F'|' '$1 ~ /^ *bench_cpu\+/ && $2 ~ /\/8192 *$/ { gsub(/ /, "", $4); n += $4 }
		END { print n + 0 }')
[ "$caller_hits" -ge $((2 * 2 * pairs)) ] || {
	log "only $caller_hits kvmalloc() allocations put on bench_cpu, not $((2 * 2 * pairs))"; exit 1; }
cost() { awk -v k="$2" -v s="$3" -v c="$4" '$1 == k && $2 == s { print $c }' "$out/$1.txt"; }
ratio() {
	awk -v a="$(cost "$1" event kmemflight 5)" -v b="$(cost "$1" event ftrace 5)" \
		'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}
ratio=$(ratio cost)
iratio=$(ratio insns)
fratio() {
	awk -v a="$(cost "$1" event flight 5)" -v b="$(cost "$1" event ftrace 5)" \
		'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}
ffratio=$(fratio fcost)
firatio=$(fratio finsns)

join() {	# FILE1 FILE2 KIND: the KIND lines of both, side by side, by state
	awk -v k="$3" '$1 == k { print $2, $3, $4, $5 }' "$1" > "$out/join1"
	awk -v k="$3" '$1 == k { print $2, $3, $4, $5 }' "$2" > "$out/join2"
	awk 'NR == FNR { a[$1] = $2 " " $3 ($4 != "" ? " " $4 : ""); next }
		{ print $1, a[$1], $2, $3, $4 }' "$out/join1" "$out/join2"
}

# ---- 2. size: one boot, both recorders ------------------------------------
log "size: one boot recorded by kmemflight and by ftrace"
tev=$(for e in $events; do printf 'kmem:%s,' "$e"; done | sed 's/,$//')
"$repo/qemu-tests/boot.sh" -k "$bench" -c 2 -x "$repo/bench/guest-size.sh" \
	-a "kmemtrace.enable=1 trace_event=$tev trace_options=nooverwrite trace_buf_size=64M" \
	"$out/size" > "$out/size.log" 2>&1
[ "$(cat "$out/size/save.rc")" = 0 ] || { cat "$out/size/save.err" >&2; exit 1; }
"$kmf" info "$out/size/boot.kmt" > "$out/size/info.txt"
kmf_events=$(awk '$1 == "total" { print $3 }' "$out/size/info.txt")
kmf_sub=$(sed -n 's/^bytes\/event: \([0-9.]*\) (sub-buffers).*/\1/p' "$out/size/info.txt")
kmf_file=$(sed -n 's/.*, \([0-9.]*\) (whole file)/\1/p' "$out/size/info.txt")
read -r ft_events ft_overrun ft_per <<EOT
$(awk '/^entries:/ { e += $2 } /^overrun:/ { o += $2 } /^bytes:/ { b += $2 }
	END { printf "%d %d %.1f", e, o, e ? b / e : 0 }' "$out/size/hook.out")
EOT

# ---- 3. boot overhead ------------------------------------------------------
log "boot overhead: $boots boots with kmemtrace.enable=0 and =1"
i=1
while [ "$i" -le "$boots" ]; do
	for e in 0 1; do
		"$repo/qemu-tests/boot.sh" -k "$bench" -c 2 -a "kmemtrace.enable=$e printk.time=1" \
			"$out/boot$e-$i" > "$out/boot$e-$i.log" 2>&1 || true
		sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' \
			"$out/boot$e-$i/dmesg" >> "$out/init$e.txt"
	done
	i=$((i + 1))
done
stats() {	# FILE: median min max of one number per line
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f %d", m, v[1], v[NR], NR }'
}
read -r off_med off_min off_max off_n <<EOT
$(stats "$out/init0.txt")
EOT
read -r on_med on_min on_max on_n <<EOT
$(stats "$out/init1.txt")
EOT
overhead=$(awk -v a="$on_med" -v b="$off_med" 'BEGIN { printf "%.2f", (b > 0 ? 100 * (a - b) / b : 0) }')
# the same in guest instructions: the medians of quick-cost.sh's pairs
read -r ioff ion ievents < "$out/init.txt"
ioverhead=$(awk -v a="$ion" -v b="$ioff" 'BEGIN { printf "%.2f", (b > 0 ? 100 * (a - b) / b : 0) }')
ipairs=$(sed -n 's/^init pairs: //p' "$out/quick.txt")

# ---- 4. analysis -------------------------------------------------------------
log "analysis: bench/report.sh"
"$repo/bench/report.sh" 10000000 3 > "$out/report.txt"

# ---- 5. the tracing ring buffer instead --------------------------------------
"$repo/bench/ring-buffer.sh" > "$out/rb.md"

# ---- 6. the Debian boot with systemd ------------------------------------------
log "the Debian boot with systemd: instructions to multi-user.target, recorder off and on"
sd=$("$repo/bench/systemd-cost.sh" "$out/systemd") || {
	log "the systemd boots failed: section 6 is left out (see $out/systemd)"
	sd="systemd off 0 on 0 events 0"
}
read -r _ _ sd_off _ sd_on _ sd_events <<EOT
$sd
EOT
sd_overhead=$(awk -v a="$sd_on" -v b="$sd_off" 'BEGIN { printf "%.2f", (b > 0 ? 100 * (a - b) / b : 0) }')
sd_per=$(awk -v a="$sd_on" -v b="$sd_off" -v n="$sd_events" 'BEGIN { printf "%.0f", (n > 0 ? (a - b) * 1e6 / n : 0) }')
viaratio=$(awk -v a="$(cost insns via kmemflight 4)" -v b="$(cost insns via ftrace 4)" \
	'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')

# ---- the table ---------------------------------------------------------------
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
cat > "$doc" <<MD
# kmemflight benchmarks

Measured by \`bench/run.sh\` on $(date -u +%Y-%m-%d): $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1),
$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release);
guests: Linux $(sed -n 's/^release: *//p' "$out/size/info.txt") (linux-source-6.12 $ver) under QEMU TCG, 2 vCPUs,
1 GiB. Under TCG absolute times mean little; the ratios are the figures.
Benchmarks are not tests: nothing here passes or fails.

| figure | kmemflight | ftrace | target | |
|---|---|---|---|---|
| cost per event, kernel, wall clock (median of $rounds rounds) | $(cost cost event kmemflight 5) ns | $(cost cost event ftrace 5) ns | ratio <= 0.22 | ratio **$ratio** |
| cost per event, kernel, guest instructions | $(cost insns event kmemflight 5) | $(cost insns event ftrace 5) | ratio <= 0.22 | ratio **$iratio** |
| the same in flight mode (round-robin), wall clock | $(cost fcost event flight 5) ns | $(cost fcost event ftrace 5) ns | ratio <= 0.22 | ratio **$ffratio** |
| the same in flight mode, guest instructions | $(cost finsns event flight 5) | $(cost finsns event ftrace 5) | ratio <= 0.22 | ratio **$firatio** |
| an allocation through a wrapper (kvmalloc), its event, guest instructions | $(cost insns via kmemflight 4) | $(cost insns via ftrace 4) | ratio <= 1 | ratio **$viaratio** |
| bytes per event, one boot | $kmf_sub B (sub-buffers), $kmf_file B (file) | $ft_per B | <= 18.21 B (file) | |
| boot to /init, median of $boots (enable=0 / =1) | $on_med s (=1) | | | **$overhead %** over $off_med s |
| boot to /init, guest instructions, medians of 3 pairs (enable=0 / =1) | $(awk -v v="$ion" 'BEGIN { printf "%.0f M", v * 1000 }') (=1) | | <= 6 % | **$ioverhead %** over $(awk -v v="$ioff" 'BEGIN { printf "%.0f M", v * 1000 }') |
| Debian boot with systemd to multi-user.target, guest instructions (off / on) | $sd_on M (on) | | <= 6 % | **$sd_overhead %** over $sd_off M |
| \`report --caller\`, 10 M events, one core | $(awk '$1 == "report" && $2 == "--caller" && NF == 6 { print $4 }' "$out/report.txt") M events/s | | no slower than 12.7 M/s | |

## 1. Cost per event in the kernel

One boot of the bench kernel (\`qemu-tests/build-kernel.sh bench\`: the
QEMU test kernel plus the \`kmemtrace-bench\` sample, built with -O2 as
distributions build their kernels; every figure here comes from it). In the guest,
\`bench/guest-cost.sh\` writes $pairs to \`/sys/kernel/debug/kmemtrace-bench\`
in four states, $rounds rounds in turn: each online CPU does $pairs
\`kmalloc(64)\`/\`kfree()\` pairs, then $pairs \`alloc_page()\`/\`__free_page()\`
pairs, each loop timed with \`ktime_get_ns()\`. States: nothing recording;
kmemflight's recorder on (\`kmemtrace/enable\`); ftrace's $events events
on (tracefs, no reader, overwrite mode); both. Each state ran in both: wall-clock time (median
of $rounds rounds, ns) and guest instructions (\`-icount shift=0\`: the
guest clock counts instructions, so one round gives exact counts).

| state | kmalloc+kfree pair | alloc_page+free pair | pair, instructions | page pair, instructions |
|---|---|---|---|---|
$(join "$out/cost.txt" "$out/insns.txt" pair | awk '{ printf "| %s | %s ns | %s ns | %s | %s |\n", $1, $2, $3, $4, $5 }')

Cost per event, (state - off) / 2 events per pair:

| recorder | slab event | page event | mean | slab event, instructions | page event, instructions | mean |
|---|---|---|---|---|---|---|
$(join "$out/cost.txt" "$out/insns.txt" event | awk '{ printf "| %s | %s ns | %s ns | %s ns | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }')

An allocation through a wrapper: each CPU then does $pairs
\`kvmalloc(8192)\`/\`kvfree()\` pairs; the allocation's call site is inside
\`__kvmalloc_node_noprof\`, so kmemflight writes it with the return
addresses out to the bench function (a \`kmalloc_via\` record, the
return address kept by the wrapper's \`kmemtrace_wrapper()\`: $via_hits
such records in the counted run, $caller_hits of them put on
\`bench_cpu\`), ftrace with the wrapper as call site. The pair, and what its allocation event
costs: the pair's cost over "off" less one ordinary slab event (the
\`kfree\`):

| state | kvmalloc+kvfree pair | its allocation event | pair, instructions | its allocation event, instructions |
|---|---|---|---|---|
$(join "$out/cost.txt" "$out/insns.txt" via | awk '{ printf "| %s | %s ns | %s ns | %s | %s |\n", $1, $2, $3, $4, $5 }')

kmemflight / ftrace: **$ratio** in time, **$iratio** in instructions. The
recorder lost no event during the runs (its per-CPU lost counters,
checked after the runs).

Flight mode, in a second boot (\`kmemtrace.mode=flight kmemtrace.subbufs=16 kmemtrace.subbuf_size=65536\`:
a pool of 1 MiB, 512 KiB for each CPU, which each state's run wraps many times, so that the
writers reuse the oldest sub-buffer once every 64 KiB), states off,
kmemflight in flight mode, ftrace:

| state | kmalloc+kfree pair | alloc_page+free pair | pair, instructions | page pair, instructions |
|---|---|---|---|---|
$(join "$out/fcost.txt" "$out/finsns.txt" pair | awk '{ printf "| %s | %s ns | %s ns | %s | %s |\n", $1, $2, $3, $4, $5 }')

| recorder | slab event | page event | mean | slab event, instructions | page event, instructions | mean |
|---|---|---|---|---|---|---|
$(join "$out/fcost.txt" "$out/finsns.txt" event | awk '{ printf "| %s | %s ns | %s ns | %s ns | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }')

Flight mode / ftrace: **$ffratio** in time, **$firatio** in instructions;
$(overwritten finsns) events overwritten (counted) in the counted run, none lost.

## 2. Bytes per event

One boot of the bench kernel with \`kmemtrace.enable=1\` and
\`trace_event=$tev trace_options=nooverwrite trace_buf_size=64M\`:
both record the same events, kmemflight from \`kmem_cache_init()\`,
ftrace from \`trace_init()\` on.

| | events | bytes per event |
|---|---|---|
| kmemflight, sub-buffers (\`kmemflight info\`) | $kmf_events | $kmf_sub |
| kmemflight, the whole .kmt file (kallsyms, caches, ...) | $kmf_events | $kmf_file |
| ftrace, per_cpu/cpuN/stats bytes / entries (overrun $ft_overrun) | $ft_events | $ft_per |

## 3. Boot overhead

Time to "Run /init as init process" (printk time), $boots boots each of
the bench kernel, 2 vCPUs, alternating:

| kmemtrace.enable | boots | median | min | max |
|---|---|---|---|---|
| 0 | $off_n | $off_med s | $off_min s | $off_max s |
| 1 | $on_n | $on_med s | $on_min s | $on_max s |

Overhead of the median: **$overhead %**. The wall clock of a TCG guest
varies by tens of percent from boot to boot; with \`-icount shift=0\` the
printk time counts guest instructions: $(awk -v v="$ioff" 'BEGIN { printf "%.0f", v * 1000 }') M
instructions to /init with the recorder off, $(awk -v v="$ion" 'BEGIN { printf "%.0f", v * 1000 }') M with it on,
the medians of 3 pairs of boots (a 2-vCPU boot is not quite
deterministic: the pairs gave $ipairs):
**$ioverhead %**, for the $ievents events the first recording boot recorded: $(awk -v a="$ion" -v b="$ioff" -v n="$ievents" 'BEGIN { printf "%.0f", (a - b) * 1e9 / n }') instructions
per event, the cost measured in section 1 and the tracepoint's. The
boot is allocation-dense under TCG (one event per $(awk -v b="$ioff" -v n="$ievents" 'BEGIN { printf "%.0f", b * 1e9 / n }') instructions of
boot, most of them ACPI's interpreter): 6 % would allow about $(awk -v b="$ioff" -v n="$ievents" 'BEGIN { printf "%.0f", 0.06 * b * 1e9 / n }')
instructions per event. Until a late initcall marks \`sched_clock\` stable,
\`local_clock()\` is filtered through the tick's window; the recorder's
copy of it holds within a window (\`local_clock_copy_window()\`), so the
boot's events cost what those of section 1 do, and the rest is the
recorder's fixed work (its pool, its records of caches, initcalls and
tasks).

## 4. Analysis

\`bench/report.sh 10000000 3\` (best of 3, pinned to one core):

\`\`\`
$(cat "$out/report.txt")
\`\`\`

$(cat "$out/rb.md")

## 6. The Debian boot with systemd

What a distribution user pays: \`bench/systemd-cost.sh\` boots the
Debian bookworm root of the systemd suite (a dracut initramfs with
kmemflight's module, the package installed, its units attaching from
the initramfs on and saving after \`multi-user.target\`) with the QEMU
kernel on one vCPU under \`-icount shift=0,sleep=off\`, once with
\`kmemtrace.enable=0\` (the units then fail, as they say they do) and
once recording. The guest's CPU time up to \`multi-user.target\` (its
uptime less idle and iowait time, read by a unit ordered right after
the target) counts the instructions it ran. Low, in both boots, by up
to 4 M instructions per stretch of work: the QEMU kernel samples idle
and iowait time at its 250 Hz tick, so the difference is good to tens
of millions (half a percent from one pair of boots to the next):

| kmemtrace.enable | instructions to multi-user.target | events |
|---|---|---|
| 0 | $sd_off M | |
| 1 | $sd_on M | $sd_events |

**$sd_overhead %** more, $sd_per instructions per event recorded: the
probes, the boot's clock, and the attach unit draining the buffers to
\`/run\` while the boot goes on.
MD
cat "$doc"

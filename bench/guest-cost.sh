#!/bin/sh
# In the benchmark guest (bench/run.sh, through qemu-tests/boot.sh -x):
# time kmemtrace-bench (kmalloc, page and kvmalloc pairs) in four states,
# kmemflight's recorder off or on
# and ftrace's kmem events off or on, ROUNDS times in turn, PAIRS pairs
# per CPU each; print one line per state, round and CPU.  PAIRS and
# ROUNDS come from the kernel command line: kmfbench.pairs=N kmfbench.rounds=N.
# kmfbench.states=off,flight,ftrace times kmemflight's recorder in flight
# mode instead (buffers that wrap: the oldest sub-buffer reused), and
# state rb the kmemtrace-bench-rb sample: kmemflight's records written
# through the tracing ring buffer (bench/ring-buffer.sh).
set -eu

bench=/sys/kernel/debug/kmemtrace-bench
recorder=/sys/kernel/tracing/kmemtrace/enable
mode=/sys/kernel/tracing/kmemtrace/mode
rb=/sys/kernel/debug/kmemtrace-bench-rb
tracing=/sys/kernel/tracing
pairs=20000
rounds=5
states="off kmemflight ftrace both"
read -r cmdline < /proc/cmdline
for arg in $cmdline; do
	case $arg in
	kmfbench.pairs=*) pairs=${arg#*=} ;;
	kmfbench.rounds=*) rounds=${arg#*=} ;;
	kmfbench.states=*) states=$(echo "${arg#*=}" | tr , ' ') ;;
	esac
done
mount -t tracefs nodev "$tracing"
[ -w "$bench" ] || { echo "no $bench: a kernel without the kmemtrace-bench sample" >&2; exit 1; }

# the events kmemflight records, no more
ftrace() {
	for e in kmalloc kfree kmem_cache_alloc kmem_cache_free mm_page_alloc \
		 mm_page_free mm_page_free_batched; do
		echo "$1" > "$tracing/events/kmem/$e/enable"
	done
}

# the ring-buffer prototype, where the kernel has it
rb() {
	[ ! -e "$rb" ] || echo "$1" > "$rb"
}

echo 1 > "$tracing/tracing_on"
round=1
while [ "$round" -le "$rounds" ]; do
	for state in $states; do
		rb 0
		case $state in
		off)		echo 0 > "$recorder"; ftrace 0 ;;
		kmemflight)	echo 1 > "$recorder"; ftrace 0 ;;
		flight)		echo flight > "$mode"; echo 1 > "$recorder"; ftrace 0 ;;
		ftrace)		echo 0 > "$recorder"; ftrace 1 ;;
		both)		echo 1 > "$recorder"; ftrace 1 ;;
		rb)		[ -e "$rb" ] || { echo "no $rb: a kernel without the kmemtrace-bench-rb sample" >&2; exit 1; }
				echo 0 > "$recorder"; ftrace 0; rb 1 ;;
		esac
		echo "$pairs" > "$bench"
		awk -v s="$state" -v r="$round" '$1 == "cpu" {
			print "state", s, "round", r, "cpu", $2, "slab_ns", $4, "page_ns", $6, "via_ns", $8 }' "$bench"
	done
	round=$((round + 1))
done
echo 0 > "$recorder"
ftrace 0
rb 0
# what the ring-buffer prototype wrote: its entries and bytes
[ ! -e "$rb" ] || sed 's/^/rb /' "$rb"
# recorded while on: none may have been dropped
cat /sys/kernel/tracing/kmemtrace/stats

#!/bin/sh
# In the size benchmark guest (bench/run.sh): ftrace recorded the kmem
# events from its own start (trace_event= on the command line) while
# kmemflight recorded them from kmem_cache_init(); keep ftrace's per-CPU
# buffer statistics (entries, overrun, bytes) for the host to compare.
set -eu

mount -t tracefs nodev /sys/kernel/tracing
for d in /sys/kernel/tracing/per_cpu/cpu*; do
	echo "${d##*/}"
	cat "$d/stats"
done

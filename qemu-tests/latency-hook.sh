#!/bin/sh
# In the memory-starved guest of qemu-tests/run.sh (latency-boot), through
# boot.sh -x: a kernel recording with kmemtrace.events=kmem,boot,latency,
# a few hundred MiB of memory and a read-only disk, /dev/vda.  An attach
# drains the recorder while memhog (qemu-tests/memhog.c) starves the
# guest; then the kernel's own counts of direct reclaim and compaction go
# to /out/vmstat, for the host to compare with the events in the trace,
# and the event groups are switched at run time.  An ftrace instance
# records the same tracepoints meanwhile, saved with --from-ftrace.
set -u

T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T"
ev=$T/kmemtrace/events
thp=/sys/kernel/mm/transparent_hugepage
cat "$ev" > /out/events-before
mkdir -p /run
kmemflight attach --daemon --quiet
# ftrace records the same tracepoints in an instance, for the host to
# compare with the recorder's
mkdir "$T/instances/kmflat"
I=$T/instances/kmflat
echo 0 > "$I/tracing_on"
echo 8192 > "$I/buffer_size_kb"
echo 0 > "$I/options/overwrite"
for e in vmscan/mm_vmscan_direct_reclaim_begin vmscan/mm_vmscan_direct_reclaim_end \
	vmscan/mm_vmscan_lru_shrink_inactive vmscan/mm_shrink_slab_start \
	vmscan/mm_shrink_slab_end compaction/mm_compaction_try_to_compact_pages \
	compaction/mm_compaction_begin compaction/mm_compaction_end; do
	echo 1 > "$I/events/$e/enable"
done
echo 1 > "$I/tracing_on"
# below 512 MiB the kernel turns THP off; memhog asks with madvise()
echo madvise > "$thp/enabled"
echo always > "$thp/defrag"
memhog /dev/vda 40
echo "memhog: $?"
echo 0 > "$I/tracing_on"
kmemflight save --from-ftrace kmflat /out/ftrace-lat.kmt > /out/ftrace-lat.out 2> /out/ftrace-lat.err
echo "ftrace save: $?"
grep -E '^(allocstall_[a-z0-9]+|compact_stall|compact_fail|compact_success|pgscan_direct|pgsteal_direct|thp_fault_alloc|thp_fault_fallback) ' /proc/vmstat > /out/vmstat
# the groups switch at run time: reclaim off, then back; a bad list fails
echo kmem,boot,compaction > "$ev"
cat "$ev" > /out/events-runtime
echo kmem,boot,latency > "$ev"
if echo bogus > "$ev" 2> /out/events-bad.err; then
	echo 0
else
	echo 1
fi > /out/events-bad.rc
cat "$ev" > /out/events-after

#!/bin/sh
# In the flight-recorder guest (qemu-tests/flight-run.sh, through
# boot.sh -x): run 'kmemflight watch' and make every trigger fire in
# turn, each once the watch has saved the one before and armed the
# recorder again:
#
#  1. an allocation storm (the kmemtrace-stress sample, 100000 pairs on
#     every CPU), which overwrites,
#     then a minute of it, with the kernel's memory before and after;
#  2. the OOM killer: busybox tail /dev/zero keeps all it reads;
#     then the same with the reclaim group recorded and a 1 us threshold:
#     a direct reclaim stall;
#  3. a failed page allocation: the kmemtrace-leak sample runs ZONE_DMA
#     out of memory;
#  4. the same with the page_alloc_fail trigger off: a failed slab
#     allocation;
#  5. two manual freezes, the second past --keep 4.
#
# Each saved file is copied to /out/all/ as it appears; the kernel's
# counters after each save go to /out/stats.N.
set -u

k=/sys/kernel/tracing/kmemtrace
rm -rf /out/flight /out/all
mkdir -p /run /out/all
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
kmemflight watch --count 6 --keep 4 /out/flight > /out/watch.out 2> /out/watch.err &
watch=$!

waited() {	# N: the watch waits for its Nth trigger (saved N - 1), up to 120 s
	i=0
	while [ "$(grep -c 'waiting for a trigger' /out/watch.out)" -lt "$1" ]; do
		i=$((i + 1))
		if [ $i -gt 1200 ] || ! kill -0 $watch 2>/dev/null; then
			echo "watch never waited for trigger $1" >&2
			cat /out/watch.out /out/watch.err >&2
			return 1
		fi
		sleep 0.1
	done
	for f in /out/flight/*.kmt; do
		[ -e "/out/all/${f##*/}" ] || cp "$f" /out/all/
	done
	cat $k/stats > "/out/stats.$1"
}

waited 1 || exit 1
cat $k/mode $k/triggers $k/frozen > /out/armed
echo 100000 > /sys/kernel/debug/kmemtrace-stress
cat $k/stats > /out/stats.storm
grep -E '^(MemFree|Slab|KernelStack|PageTables):' /proc/meminfo > /out/mem.before
start=$(cut -d' ' -f1 /proc/uptime)
rounds=0
: > /out/long.pairs
while awk -v s="$start" -v n="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { exit !(n - s < 60) }'; do
	echo 1000000 > /sys/kernel/debug/kmemtrace-stress
	cat /sys/kernel/debug/kmemtrace-stress >> /out/long.pairs
	rounds=$((rounds + 1))
done
echo "$start $(cut -d' ' -f1 /proc/uptime) $rounds" > /out/long.time
cat $k/stats > /out/stats.long
grep -E '^(MemFree|Slab|KernelStack|PageTables):' /proc/meminfo > /out/mem.after
tail /dev/zero &
victim=$!
wait $victim
echo "$victim $?" > /out/oom.victim
waited 2 || exit 1
# a direct reclaim longer than 1 us, with the reclaim group recorded;
# the watch stopped meanwhile, so that the OOM kill that follows finds
# the recorder still frozen and no second freeze can come of it
kill -STOP $watch
echo kmem,boot,reclaim > $k/events
echo 1 > $k/stall_us
tail /dev/zero &
victim=$!
wait $victim
echo "$victim $?" > /out/stall.victim
cat $k/frozen > /out/stall.frozen
echo 1000000 > $k/stall_us
echo kmem,boot > $k/events
kill -CONT $watch
waited 3 || exit 1
echo dma > /sys/kernel/debug/kmemtrace-leak
cat /sys/kernel/debug/kmemtrace-leak > /out/leak.page
waited 4 || exit 1
echo oom,slab_alloc_fail,manual > $k/triggers
cat $k/triggers > /out/triggers.slab
echo dma > /sys/kernel/debug/kmemtrace-leak
cat /sys/kernel/debug/kmemtrace-leak > /out/leak.slab
waited 5 || exit 1
echo 1 > $k/frozen
waited 6 || exit 1
echo 1 > $k/frozen
wait $watch
echo $? > /out/watch.rc
for f in /out/flight/*.kmt; do
	[ -e "/out/all/${f##*/}" ] || cp "$f" /out/all/
done
ls /out/flight > /out/flight.ls
cat $k/stats > /out/stats.end
cat $k/frozen > /out/frozen.end

#!/bin/sh
# In a guest whose second CPU could not get a buffer (qemu-tests/flight-run.sh,
# through boot.sh -x): allocate on every CPU (the kmemtrace-stress sample),
# with the kernel's counters before and after, then, in flight mode,
# freeze the recorder by hand and allocate as much again: what does not
# fit in the sub-buffer each CPU has open is dropped, and counted.  The
# guest must live through all of it.
set -u

k=/sys/kernel/tracing/kmemtrace
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
cat $k/mode > /out/mode
cat $k/stats > /out/stats.before
echo 20000 > /sys/kernel/debug/kmemtrace-stress || exit 1
cat /sys/kernel/debug/kmemtrace-stress > /out/stress
cat $k/stats > /out/stats.after
if [ "$(cat $k/mode)" = flight ]; then
	echo 1 > $k/frozen || exit 1
	cat $k/stats > /out/stats.frozen
	echo 20000 > /sys/kernel/debug/kmemtrace-stress || exit 1
	cat $k/stats > /out/stats.frozen2
fi
cat $k/frozen > /out/frozen

#!/bin/sh
# In the clock guests (qemu-tests/run.sh, through boot.sh -x): stamp every
# CPU's clock three more times (the kmemtrace-stress sample's
# kmemtrace-clock: an allocation between two reads of local_clock()),
# with a short stress run's allocations, which open sub-buffers, between
# them, then after 3 s of quiet (a CPU idle for more than 2^31 ns, which
# the 32-bit halves of a record's delta cannot tell from a clock that
# went back), and print every stamp, the boot's own first.
set -eu

clock=/sys/kernel/debug/kmemtrace-clock
[ -w "$clock" ] || { echo "no $clock: a kernel without the kmemtrace-stress sample" >&2; exit 1; }
echo 1 > "$clock"
echo 2000 > /sys/kernel/debug/kmemtrace-stress
echo 1 > "$clock"
sleep 3
echo 1 > "$clock"
cat "$clock"

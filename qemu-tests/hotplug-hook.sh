#!/bin/sh
# In the CPU hotplug guest (qemu-tests/run.sh, through boot.sh -x): 4
# vCPUs booted with maxcpus=2, so CPUs 2 and 3 are present but were never
# brought up.  Note the recorder's buffers, bring CPU 2 up and note them
# again, make every online CPU allocate (the kmemtrace-stress sample's
# kthread bound to each CPU, its timers) and a shell loop pinned to CPU 2,
# then take CPU 2 down before the save: its buffer stays until it is read.
# kmfstress.pairs=N on the kernel command line sets the pairs per CPU.
set -eu

T=/sys/kernel/tracing
cpu=/sys/devices/system/cpu
stress=/sys/kernel/debug/kmemtrace-stress
pairs=20000
read -r cmdline < /proc/cmdline
for arg in $cmdline; do
	case $arg in
	kmfstress.pairs=*) pairs=${arg#*=} ;;
	esac
done
[ -d "$T/kmemtrace" ] || mount -t tracefs nodev "$T"
[ -w "$stress" ] || { echo "no $stress: a kernel without the kmemtrace-stress sample" >&2; exit 1; }
memfree() { awk '$1 == "MemFree:" { print $2 }' /proc/meminfo; }

cat "$cpu/online" > /out/online-before
cat "$T/kmemtrace/stats" > /out/stats-before
memfree > /out/memfree-before
echo 1 > "$cpu/cpu2/online"
memfree > /out/memfree-after
cat "$cpu/online" > /out/online-after
cat "$T/kmemtrace/stats" > /out/stats-online
echo "$pairs" > "$stress"
cat "$stress"
# a small workload of our own, pinned to the new CPU
# shellcheck disable=SC2016 # expanded by the pinned shell
taskset -c 2 sh -c 'echo $$ > /out/pinned.pid
	i=0; while [ $i -lt 200 ]; do mkdir /tmp/p$i; rmdir /tmp/p$i; i=$((i + 1)); done'
echo 0 > "$cpu/cpu2/online"
cat "$cpu/online" > /out/online-end

#!/bin/sh
# In the SMP stress guest (qemu-tests/run.sh, through boot.sh -x): drain
# the recorder with an attach while every CPU allocates from a kthread, a
# timer (softirq) and a hard-irq hrtimer at once (the kmemtrace-stress
# sample), then print the pairs each context did.  kmfstress.pairs=N on
# the kernel command line sets the kthreads' pairs per CPU.
set -eu

stress=/sys/kernel/debug/kmemtrace-stress
pairs=200000
read -r cmdline < /proc/cmdline
for arg in $cmdline; do
	case $arg in
	kmfstress.pairs=*) pairs=${arg#*=} ;;
	esac
done
[ -w "$stress" ] || { echo "no $stress: a kernel without the kmemtrace-stress sample" >&2; exit 1; }
mkdir -p /run
kmemflight attach --daemon --quiet
echo "$pairs" > "$stress"
cat "$stress"
# objects freed by kfree_rcu(), in batches through kfree_bulk()
echo 2000 > /sys/kernel/debug/kmemtrace-kfree-rcu
cat /sys/kernel/debug/kmemtrace-kfree-rcu > /out/kfree-rcu

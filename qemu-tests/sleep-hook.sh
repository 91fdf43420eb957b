#!/bin/sh
# In the sleep guest (qemu-tests/run.sh, through boot.sh -x): the clock
# across a system sleep.  Stamp every CPU's clock (the kmemtrace-stress
# sample's kmemtrace-clock: an allocation between two reads of
# local_clock()), with a short stress run to open sub-buffers, then for
# each state of kmfsleep.states= on the command line (a comma-separated
# list of /sys/power/state words: freeze is suspend-to-idle, mem with
# mem_sleep "deep" is ACPI S3, where QEMU resets the CPUs and their TSC),
# sleep for 3 s woken by the RTC alarm, and stamp twice more.  Prints,
# per sleep, "slept STATE SECONDS" (the CLOCK_BOOTTIME seconds the sleep
# took, which counts the time asleep), then the suspend count and every
# stamp.
set -eu

clock=/sys/kernel/debug/kmemtrace-clock
rtc=/sys/class/rtc/rtc0/wakealarm
[ -w "$clock" ] || { echo "no $clock: a kernel without the kmemtrace-stress sample" >&2; exit 1; }
[ -w /sys/power/state ] || { echo "no /sys/power/state: a kernel without CONFIG_SUSPEND" >&2; exit 1; }
[ -w "$rtc" ] || { echo "no $rtc: no RTC to wake the guest" >&2; exit 1; }
states=$(sed -n 's/.*kmfsleep\.states=\([a-z,]*\).*/\1/p' /proc/cmdline | tr ',' ' ')
[ -n "$states" ] || { echo "no kmfsleep.states= on the command line" >&2; exit 1; }

boottime() {	# CLOCK_BOOTTIME in whole seconds: /proc/uptime's first field
	cut -d. -f1 /proc/uptime
}

# QEMU resets its virtio devices on resume and virtio-9p cannot be
# restored: let the 9p device go for the sleeps (boot.sh keeps a hook's
# output in tmpfs), and take it back, and /out with it, at the end.
out9p=$(cd /sys/bus/virtio/drivers/9pnet_virtio && echo virtio*)
[ -e "/sys/bus/virtio/drivers/9pnet_virtio/$out9p" ] || { echo "no virtio-9p device for /out" >&2; exit 1; }
back() {
	if ! grep -q ' /out ' /proc/mounts; then
		echo "$out9p" > /sys/bus/virtio/drivers/9pnet_virtio/bind
		mount -t 9p -o trans=virtio,version=9p2000.L kmfout /out
	fi
}
trap back EXIT
umount /out
echo "$out9p" > /sys/bus/virtio/drivers/9pnet_virtio/unbind

echo 1 > "$clock"
echo 2000 > /sys/kernel/debug/kmemtrace-stress
for state in $states; do
	case $state in
	mem) echo deep > /sys/power/mem_sleep ;;
	freeze)
		# boot.sh -w's port: a byte on it every 2 s wakes the guest
		# (open for this sleep: a port left open keeps its wakeup
		# interrupt armed, but not its settings across an S3 resume)
		[ -c /dev/ttyS1 ] || { echo "no /dev/ttyS1 to wake from suspend-to-idle (boot.sh -w)" >&2; exit 1; }
		exec 3< /dev/ttyS1
		stty -F /dev/ttyS1 raw -echo
		echo enabled > /sys/class/tty/ttyS1/power/wakeup ;;
	*) echo "kmfsleep.states: unknown state $state" >&2; exit 1 ;;
	esac
	echo 0 > "$rtc"
	echo +3 > "$rtc"
	before=$(boottime)
	# A wake-up that comes while the devices suspend aborts the sleep
	# (EBUSY): go again, twice at most.
	tries=1
	until echo "$state" > /sys/power/state; do
		[ $tries -lt 3 ] || { echo "$state: the sleep failed $tries times" >&2; exit 1; }
		tries=$((tries + 1))
	done
	echo "slept $state $(($(boottime) - before))"
	[ "$state" != freeze ] || exec 3<&-
	echo 1 > "$clock"
	echo 2000 > /sys/kernel/debug/kmemtrace-stress
	echo 1 > "$clock"
done
echo "suspends $(cat /sys/power/suspend_stats/success)"
cat "$clock"

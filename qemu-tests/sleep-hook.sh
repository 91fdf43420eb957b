#!/bin/sh
# In the sleep guest (qemu-tests/run.sh, through boot.sh -w -x): the clock
# across a system sleep.  Stamp every CPU's clock (the kmemtrace-stress
# sample's kmemtrace-clock: an allocation between two reads of
# local_clock()), with a short stress run to open sub-buffers, then for
# each state of kmfsleep.states= on the command line (a comma-separated
# list of /sys/power/state words), sleep and stamp twice more after the
# resume.  freeze is suspend-to-idle, woken by a byte on ttyS1, which
# boot.sh -w sends every 2 s; mem, with mem_sleep "deep", is ACPI S3,
# where QEMU resets the CPUs and their TSC, woken by the RTC alarm 5 s
# after it is set.  Prints, per sleep, "slept STATE SECONDS" (the
# CLOCK_BOOTTIME seconds the sleep took, which counts the time asleep),
# then the kernel's counts of suspends done and failed, and every stamp.
# Each step goes to the kernel log too, so that a guest that never wakes
# says where it stopped.
set -eu

clock=/sys/kernel/debug/kmemtrace-clock
rtc=/sys/class/rtc/rtc0/wakealarm
[ -w "$clock" ] || { echo "no $clock: a kernel without the kmemtrace-stress sample" >&2; exit 1; }
[ -w /sys/power/state ] || { echo "no /sys/power/state: a kernel without CONFIG_SUSPEND" >&2; exit 1; }
[ -w "$rtc" ] || { echo "no $rtc: no RTC to wake the guest" >&2; exit 1; }
states=$(sed -n 's/.*kmfsleep\.states=\([a-z,]*\).*/\1/p' /proc/cmdline | tr ',' ' ')
[ -n "$states" ] || { echo "no kmfsleep.states= on the command line" >&2; exit 1; }

log() {
	echo "kmf-sleep: $*" > /dev/kmsg
}

boottime() {	# CLOCK_BOOTTIME in whole seconds: /proc/uptime's first field
	cut -d. -f1 /proc/uptime
}

# QEMU resets its virtio devices on resume and virtio-9p cannot be
# restored: let the 9p device go for the sleeps (boot.sh -w keeps a
# hook's output in tmpfs), and take it back, and /out with it, at the end.
out9p=$(cd /sys/bus/virtio/drivers/9pnet_virtio && echo virtio*)
[ -e "/sys/bus/virtio/drivers/9pnet_virtio/$out9p" ] || { echo "no virtio-9p device for /out" >&2; exit 1; }
back() {
	if ! grep -q ' /out ' /proc/mounts; then
		log "taking /out back"
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
		# (open for this sleep: a port left open keeps its wakeup
		# interrupt armed, but not its settings across an S3 resume)
		[ -c /dev/ttyS1 ] || { echo "no /dev/ttyS1 to wake from suspend-to-idle (boot.sh -w)" >&2; exit 1; }
		exec 3< /dev/ttyS1
		stty -F /dev/ttyS1 raw -echo
		echo enabled > /sys/class/tty/ttyS1/power/wakeup ;;
	*) echo "kmfsleep.states: unknown state $state" >&2; exit 1 ;;
	esac
	before=$(boottime)
	# A wake-up that comes while the devices suspend aborts the sleep
	# (EBUSY, counted failed): go again, twice at most.  The RTC alarm,
	# S3's only wake-up, is set for each try.
	tries=0
	while :; do
		tries=$((tries + 1))
		echo 0 > "$rtc"
		[ "$state" != mem ] || echo +5 > "$rtc"
		log "sleep $state, try $tries"
		! echo "$state" > /sys/power/state || break
		[ $tries -lt 3 ] || { echo "$state: the sleep failed $tries times" >&2; exit 1; }
	done
	log "woke from $state"
	echo "slept $state $(($(boottime) - before))"
	[ "$state" != freeze ] || exec 3<&-
	echo 1 > "$clock"
	echo 2000 > /sys/kernel/debug/kmemtrace-stress
	echo 1 > "$clock"
done
echo "suspends $(cat /sys/power/suspend_stats/success) failed $(cat /sys/power/suspend_stats/fail)"
cat "$clock"

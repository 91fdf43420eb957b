#!/bin/sh
# In the debug guest (lockdep, KASAN; qemu-tests/run.sh, through boot.sh
# -x): the recorder's control files and CPU hotplug all at once, each
# loop a bounded number of rounds, while every CPU allocates (the
# kmemtrace-stress sample): recording off and on, the event groups
# changed, flight and boot mode, manual freezes and re-arms, the
# buffers given back and allocated again, and CPU 1 taken down and
# brought up.  Then, alone, the buffers given back (which must succeed)
# and recording on in boot mode, every CPU up, for the save that
# follows.  kmfconcur.rounds=N on the kernel
# command line sets the rounds.  A write the kernel refuses (a freeze
# while frozen or not in flight mode: EPERM) is expected; each loop's
# count of them goes to /out/concur.<loop>.
set -u

k=/sys/kernel/tracing/kmemtrace
cpu1=/sys/devices/system/cpu/cpu1/online
stress=/sys/kernel/debug/kmemtrace-stress
rounds=20
read -r cmdline < /proc/cmdline
for arg in $cmdline; do
	case $arg in
	kmfconcur.rounds=*) rounds=${arg#*=} ;;
	esac
done
[ -d $k ] || mount -t tracefs nodev /sys/kernel/tracing
[ -w $stress ] || { echo "no $stress: a kernel without the kmemtrace-stress sample" >&2; exit 1; }

loop() {	# NAME COMMAND...: COMMAND rounds times, its refusals counted
	name=$1
	shift
	i=0
	refused=0
	while [ $i -lt "$rounds" ]; do
		"$@" 2>/dev/null || refused=$((refused + 1))
		i=$((i + 1))
	done
	echo "$i rounds, $refused refused" > "/out/concur.$name"
}

onoff() { echo 0 > $k/enable && echo 1 > $k/enable; }
groups() { echo kmem,boot,reclaim > $k/events && echo kmem,boot > $k/events; }
modes() {
	echo flight > $k/mode && echo 1 > $k/frozen
	echo 0 > $k/frozen && echo boot > $k/mode
}
hotplug() { echo 0 > $cpu1 && echo 1 > $cpu1; }
allocate() { echo 2000 > $stress; }
# stop, read what is there, give the buffers back (refused while another
# loop records, or events came in unread), record again
release() {
	echo 0 > $k/enable
	kmemflight save -q -k /tmp/concur.kmt
	rm -f /tmp/concur.kmt
	echo 1 > $k/free_buffer
	echo 1 > $k/enable
}

loop enable onoff &
loop events groups &
loop mode modes &
loop hotplug hotplug &
loop stress allocate &
loop release release &
wait
echo 1 > $cpu1 2>/dev/null
echo 0 > $k/frozen
echo boot > $k/mode
# alone, the give-back must succeed: stopped, all read
echo 0 > $k/enable
kmemflight save -q -k /tmp/concur.kmt
rm -f /tmp/concur.kmt
echo 1 > $k/free_buffer
# shellcheck disable=SC2320 # the write's status is echo's
echo $? > /out/concur.released
echo 1 > $k/enable
cat $k/enable $k/mode $k/frozen /sys/devices/system/cpu/online > /out/concur.end

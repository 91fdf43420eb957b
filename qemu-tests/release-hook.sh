#!/bin/sh
# Guest hook (boot.sh -x) for the give-back boot: save with
# --keep-recording (the buffers stay), stop, try to give the buffers
# back with events unread (refused), save the rest with
# --keep-recording, then give them back with nothing but the shell's
# builtins between two reads of MemFree, so that the difference is the
# kernel's own; then give back again (refused: nothing left), and
# record again (the buffers come back); stop, read, switch to flight
# mode (the boot pool goes back) and record in flight mode; freeze,
# stop, read, switch to boot mode (the flight pool goes back, and the
# freeze with it) and record again, for boot.sh's own save.
# Writes to /out: keep.kmt, rest.kmt and their .rc/.err, stats.keep,
# stats.released, stats.again, stats.switched, stats.flight, again.kmt,
# flight.kmt, frozen.kmt, stats.unfrozen,
# unread.err, release (the free memory as memfree() counts it, in kB,
# before and after, the write's status, and memfree()'s $parts before
# and after), again.err, enable.rc.
T=/sys/kernel/tracing
k=$T/kmemtrace
grep -q " $T tracefs " /proc/mounts || mount -t tracefs nodev $T

# Into $mf, in kB, the free memory and what frees itself later, with
# builtins only: MemFree, the pages on the per-CPU lists, VmallocUsed and
# Slab, after stat_refresh folds the vmstat counters.  The kernel moves
# pages between these while the other CPU runs, and that moves none out
# of the sum: stat_refresh gives per-CPU lists' pages back to the buddy
# allocator (MemFree alone rose by 6.5 MB once); the stack of the save
# that exited just before is vfree'd an RCU grace period later, from a
# work item, into a per-CPU list; the slots' kfree may empty a slab that
# the allocator gives back.  meminfo and zoneinfo are two reads, so a
# move between them counts its pages twice or not at all (16 kB seen):
# memfree() reads until two sums in a row agree.
memfree_once() {
	echo 1 > /proc/sys/vm/stat_refresh
	mfree=0 vmal=0 slab=0 pcp=0
	while read -r key val _; do
		case $key in
		MemFree:) mfree=$val ;;
		VmallocUsed:) vmal=$val ;;
		Slab:) slab=$val ;;
		esac
	done < /proc/meminfo
	while read -r key val _; do
		[ "$key" = count: ] && pcp=$((pcp + val * 4))
	done < /proc/zoneinfo
	mf=$((mfree + pcp + vmal + slab))
}

# $mf as above; $parts: MemFree, the lists, VmallocUsed, Slab, the reads
memfree() {
	memfree_once
	tries=1 last=
	while [ "$tries" -lt 20 ] && [ "$mf" != "$last" ]; do
		last=$mf
		memfree_once
		tries=$((tries + 1))
	done
	parts="$mfree $pcp $vmal $slab $tries"
}

kmemflight save -q -k /out/keep.kmt 2> /out/keep.err
echo $? > /out/keep.rc
cat $k/stats > /out/stats.keep
echo 0 > $k/enable
echo 1 > $k/flush
# events not read yet: refused
(echo 1 > $k/free_buffer) 2> /out/unread.err
echo $? >> /out/unread.err
kmemflight save -q -k /out/rest.kmt 2> /out/rest.err
echo $? > /out/rest.rc
memfree
before=$mf
parts1=$parts
echo 1 > $k/free_buffer
# shellcheck disable=SC2320 # the write's status is echo's
rc=$?
memfree
echo "$before $mf $rc $parts1 $parts" > /out/release
cat $k/stats > /out/stats.released
(echo 1 > $k/free_buffer) 2> /out/again.err
echo $? >> /out/again.err
echo 1 > $k/enable
# shellcheck disable=SC2320 # the write's status is echo's
echo $? > /out/enable.rc
# at once: the counters from 0, a start's own records only
cat $k/stats > /out/stats.again
# flight mode's own budget: stopped and read, a switch to flight mode
# gives the boot pool back, and the next start allocates the flight pool
# (kmemtrace.flight_size, 4 MiB), which boot.sh's save gives back
echo 0 > $k/enable
kmemflight save -q -k /out/again.kmt 2> /out/again-save.err
echo flight > $k/mode
cat $k/stats > /out/stats.switched
echo 1 > $k/enable
cat $k/stats > /out/stats.flight
kmemflight save -q -k /out/flight.kmt 2> /out/flight-save.err
# a freeze ends with the pool it froze: frozen by hand, stopped and
# read, a switch to boot mode gives the 4 MiB back (no re-arm mark
# written into it), and the start allocates 16 MiB, not frozen
echo 1 > $k/frozen
echo 0 > $k/enable
kmemflight save -q -k /out/frozen.kmt 2> /out/frozen-save.err
echo boot > $k/mode
cat $k/stats > /out/stats.unfrozen
echo 1 > $k/enable

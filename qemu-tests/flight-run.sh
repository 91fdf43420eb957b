#!/bin/sh
# The flight suite: a guest booted with kmemtrace.mode=flight runs
# 'kmemflight watch', and qemu-tests/flight-hook.sh makes each trigger
# fire in turn: the OOM killer, a failed page allocation and a failed
# slab allocation (the kmemtrace-leak sample runs ZONE_DMA out of
# memory), and manual freezes.  The checks read the files the watch
# saved: the trigger and its culprit, the window's top callsite, and
# the kernel's counters against the events in the files.
# Prints "ok/not ok" per check and "flight: N passed, N failed".
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${KMF_QEMU_OUT:-$repo/build/qemu-tests}/flight
kmf=$repo/build/kmemflight
suite=flight
mkdir -p "$out"
# shellcheck source=qemu-tests/check.sh
. "$repo/qemu-tests/check.sh"

kernel=$("$repo/qemu-tests/build-kernel.sh" flight) || {
	echo "not ok 1 - flight: build the kernel with the leak sample"
	echo "flight: 0 passed, 1 failed"
	exit 1
}
make -s -C "$repo" build/kmemflight || exit 1

g=$out/guest
all=$g/all
# tsc=reliable: under TCG a loaded host makes the clocksource watchdog
# mark the TSC unstable, and local_clock() then stops at the last tick's
# time plus a tick while a slow path runs (sched_clock_cpu()'s clamp):
# the slab leak's trigger and the frees after it got one time, and the
# window counted those frees in.  That is the emulator's clock, not the
# recorder's (the clock tests in run.sh boot the same way).
booted() {
	"$repo/qemu-tests/boot.sh" -k "$kernel" -c 2 -m 256M -t 600 \
		-x "$repo/qemu-tests/flight-hook.sh" \
		-a "kmemtrace.enable=1 kmemtrace.mode=flight kmemtrace.subbufs=16 tsc=reliable" "$g" || return 1
	cat "$g/hook.err" "$g/watch.err" "$g/watch.out"
	[ "$(cat "$g/hook.rc")" = 0 ] && [ "$(cat "$g/watch.rc")" = 0 ]
}
check "boot with kmemtrace.mode=flight, kmemflight watch saves 6 freezes" booted

# the saved files, in the order of their triggers
in_order() {
	for f in "$all"/flight-*.kmt; do
		"$kmf" info "$f" | sed -n "s|^frozen:      by [a-z_]* at \([0-9.]*\) s.*|\1 $f|p"
	done | sort -n | cut -d' ' -f2
}
# the saved file of trigger TRIGGER, the Nth of them
file() { in_order | grep -E -- "-$1(-[0-9]+)?\.kmt\$" | sed -n "${2:-1}p"; }
window() { "$kmf" report --window "$1" > "$1.window" 2> "$1.window.err"; cat "$1.window"; }

armed() {
	cat "$g/armed"
	printf 'flight\nmanual,oom,page_alloc_fail,slab_alloc_fail,reclaim_stall,panic\n0\n' | cmp -s - "$g/armed"
}
check "watch armed the recorder: flight mode, the default triggers" armed

# Lost events are possible, and counted: an interrupt that finds the
# buffer full while the writer it interrupted reuses the oldest
# sub-buffer drops its event (about one in 10^7; the minute's storm
# below checks the count).
# Each CPU's share is 8 of the 16: the storm's 100000 pairs on each CPU
# (200000 events or more, 1 MiB holds about 90000) fill both.
storm_overwrote() {	# the storm overwrote events, the CPUs holding the whole pool, no more
	cat "$g/stats.storm"
	awk '!/^#/ { o += $6; h += $5 } END { exit h != 2097152 || !(o > 0) }' \
		"$g/stats.storm"
}
check "an allocation storm overwrites the oldest events in the pool's 16 sub-buffers" storm_overwrote

long_run() {	# a minute's storm: every event recorded (then overwritten) or counted lost
	cat "$g/long.time" "$g/stats.storm" "$g/stats.long" "$g/mem.before" "$g/mem.after"
	# the sample's pairs, two events each, against the kernel's counters:
	# all of them, and no more than 1 % besides (the hook's own work)
	awk 'FNR == 1 { f++ } f == 1 && /^(task|softirq|hardirq) / { p += 2 * $2 }
		f == 2 && !/^#/ { e0 += $2; o0 += $6; l0 += $3 }
		f == 3 && !/^#/ { e1 += $2; o1 += $6; l1 += $3 }
		END { e = e1 - e0; l = l1 - l0
			printf "sample: %d events; kernel: %d recorded, %d overwritten, %d lost\n",
				p, e, o1 - o0, l
			exit !(p > 10000000 && e + l >= p && e + l <= p + p / 100 &&
				o1 - o0 > e - 200000) }' \
		"$g/long.pairs" "$g/stats.storm" "$g/stats.long" || return 1
	# the memory in use grew by less than 2 MiB: the recorder allocates
	# nothing while it records, whatever it overwrites
	awk 'FNR == NR { b[$1] = $2; next } { grew = $1 == "MemFree:" ? b[$1] - $2 : $2 - b[$1]
		printf "%s %+d kB\n", $1, $2 - b[$1]; if (grew >= 2048) bad = 1 }
		END { exit bad }' "$g/mem.before" "$g/mem.after"
}
check "a minute's allocation storm: every event recorded or counted, the kernel's memory as it was" long_run

saved_files() {	# one file per trigger, the oldest two past --keep 4 removed
	find "$all" -name '*.kmt'; echo; cat "$g/flight.ls"
	[ "$(find "$all" -name '*.kmt' | wc -l)" = 6 ] && [ -n "$(file oom)" ] &&
		[ -n "$(file reclaim_stall)" ] &&
		[ -n "$(file page_alloc_fail)" ] && [ -n "$(file slab_alloc_fail)" ] &&
		[ -n "$(file manual 2)" ] && [ "$(wc -l < "$g/flight.ls")" = 4 ] &&
		! grep -q -- '-oom\.kmt$' "$g/flight.ls" &&
		! grep -q -- '-reclaim_stall\.kmt$' "$g/flight.ls" &&
		[ "$(stat -c %a "$(file oom)")" = 600 ]
}
check "one file per trigger, named for it; --keep 4 removed the oldest two" saved_files

# The allocation that failed is the one that found memory gone: tail's
# page fault, or the page table for it (pte_alloc_one, GFP_KERNEL_ACCOUNT),
# whichever came first; an order-0 request with a caller, either way.
oom_caught() {	# the victim the OOM killer chose, the allocation that failed
	f=$(file oom)
	window "$f" || return 1
	victim=$(cut -d' ' -f1 "$g/oom.victim")
	echo "victim: $(cat "$g/oom.victim")"
	grep -q '^Trigger:   oom at ' "$f.window" &&
		grep -qx "Victim:    pid $victim (tail)" "$f.window" &&
		awk -F'|' '/^Processes/ { p = 1 } p && $1 ~ /^ tail +$/ && $4 > 100000000 { ok = 1 }
			END { exit !ok }' "$f.window" &&
		grep -q '^Request:   order 0, GFP_[A-Z_|]*, from [a-z_]' "$f.window" &&
		grep -q "^$victim 137\$" "$g/oom.victim"
}
check "OOM: the trigger names the victim (tail), its allocation, and its 100 MB of pages in the window" oom_caught

# kmemflight plot of the OOM's window, as librsvg draws it: the trigger's
# line where report --window says it fired, tail's 100 MB as a process's
# line, and among what the window allocated and still held.
oom_plotted() {
	f=$(file oom)
	window "$f" > /dev/null || return 1
	"$kmf" plot -o "$f.svg" "$f" &&
		python3 "$repo/tests/cli/svgcheck.py" render "$f.svg" &&
		python3 "$repo/tests/cli/svgcheck.py" values "$f.svg" > "$f.values" &&
		at=$(sed -n 's/^Trigger:   oom at \([0-9]*\)\.\([0-9]\{9\}\) s.*/\1\2/p' "$f.window" | sed 's/^0*//') &&
		echo "trigger at $at ns" && grep -E "^(trigger|kind|title)" "$f.values" &&
		grep -qx "trigger oom ts=$at" "$f.values" &&
		awk '$1 == "caller" && $2 == "process" && $3 == "tail" { split($4, a, "="); ok = a[2] > 100000000 }
			END { exit !ok }' "$f.values" &&
		awk '$1 == "kind" && $2 == "pages" { split($3, a, "="); ok = a[2] > 100000000 }
			END { exit !ok }' "$f.values"
}
check "OOM: plot draws the window, its trigger, and tail holding its 100 MB" oom_plotted

# The first direct reclaim to end is tail's, or that of a kernel thread
# that allocated while tail held all the memory: a task either way.
stall_caught() {	# the direct reclaim, its task and allocation, when it began
	f=$(file reclaim_stall)
	window "$f" || return 1
	cat "$g/stall.victim" "$g/stall.frozen"
	grep -q '^Trigger:   reclaim_stall at ' "$f.window" &&
		grep -q '^Task:      pid [1-9][0-9]* (.*)$' "$f.window" &&
		grep -q '^Request:   order 0, GFP_[A-Z_|]*, from [a-z_]' "$f.window" &&
		grep -q '^Stall:     direct reclaim from [0-9.]* s, [0-9]* us before the trigger$' "$f.window" &&
		grep -q '^1 reclaim_stall ' "$g/stall.frozen"
}
check "a direct reclaim stall over the threshold: the task, its allocation, the stall" stall_caught

leak_on_top() {	# FILE LEAKFILE: the leak is the window's top callsite, all of it
	window "$1" || return 1
	cat "$2"
	bytes=$(cut -d' ' -f3 "$2")
	top=$(awk -F'|' '/^ Callsite/ { getline; getline; print; exit }' "$1.window")
	echo "top: $top"
	echo "$top" | awk -F'|' -v b="$bytes" '{ gsub(/ /, "", $1); gsub(/ /, "", $2)
			exit !($1 ~ /^kmemtrace_leak_dma\+0x[0-9a-f]+$/ && $2 == b && b > 1000000) }'
}

page_fail_caught() {
	f=$(file page_alloc_fail)
	leak_on_top "$f" "$g/leak.page" &&
		grep -q '^Trigger:   page_alloc_fail at ' "$f.window" &&
		grep -qF 'Request:   order 0, GFP_KERNEL|GFP_DMA|__GFP_RETRY_MAYFAIL|__GFP_COMP, from kmemtrace_leak_dma+0x' "$f.window"
}
check "page allocation failure: the leak's caller, and the leak on top of the window" page_fail_caught

slab_fail_caught() {
	f=$(file slab_alloc_fail)
	cat "$g/triggers.slab"
	leak_on_top "$f" "$g/leak.slab" &&
		grep -q '^Trigger:   slab_alloc_fail at ' "$f.window" &&
		grep -q ', cache dma-kmalloc-2k, from kmemtrace_leak_dma+0x' "$f.window"
}
check "slab allocation failure (page_alloc_fail off): its cache and caller" slab_fail_caught

counts_exact() {	# per CPU: the kernel's events = overwritten + all saved so far
	# (lost events, never recorded, are counted apart)
	: > "$out/counts"
	for f in $(in_order) "$g/boot.kmt"; do
		"$kmf" info "$f" | awk -v f="${f##*/}" '$1 ~ /^[0-9]+$/ { print f, $1, $4, $5, $6, ($7 == "" ? 0 : $7) }'
	done > "$out/counts"
	cat "$out/counts"
	awk '{ read[$2] += $4
		if ($3 != $6 + read[$2]) { print "mismatch:", $0; bad = 1 }
		n++ } END { exit bad || n < 12 }' "$out/counts"
}
check "the kernel's counters: every event was saved or counted overwritten" counts_exact

rearmed() {	# each save after the first starts after the trigger before it
	prev=0
	for f in $(in_order); do
		"$kmf" info "$f" > "$f.info" || return 1
		trig=$(sed -n 's/^frozen:      by [a-z_]* at \([0-9.]*\) s.*/\1/p' "$f.info")
		first=$(awk '$1 ~ /^[0-9]+$/ && $9 != "" { split($9, w, "-"); print w[1] }' "$f.info" | sort -n | head -1)
		echo "${f##*/}: window from $first, trigger $trig"
		[ -n "$trig" ] && [ -n "$first" ] || return 1
		awk -v a="$prev" -v b="$first" 'BEGIN { exit !(b > a) }' || return 1
		prev=$trig
	done
	cat "$g/frozen.end"; [ "$(cat "$g/frozen.end")" = 0 ]
}
check "after each save the recorder runs again" rearmed

# A CPU without slots for sub-buffers: fault injection
# (fail_kmemtrace_slots=, CONFIG_FAIL_KMEMTRACE_SLOTS, in the QEMU
# kernel) fails the second CPU's slots, in its hotplug prepare callback.  The
# guest must live in both modes (in flight mode the first writer on a
# CPU without a buffer used to reuse a sub-buffer it did not have),
# every event of that CPU counted lost (its stress kthread's 2 x 20000
# at least), the trigger freezing the recorder all the same.
nobuf() {	# NAME MODE: boot it
	"$repo/qemu-tests/boot.sh" -k "$kernel" -c 2 -t 300 \
		-x "$repo/qemu-tests/nobuf-hook.sh" \
		-a "kmemtrace.enable=1 kmemtrace.mode=$2 kmemtrace.subbufs=1024 kmemtrace.subbuf_size=65536 fail_kmemtrace_slots=2,100,0,1" \
		"$out/$1" || return 1
	cat "$out/$1/hook.err"
	grep -q 'kmemtrace: cpu1: cannot allocate its slots for sub-buffers: its events are counted as lost' \
		"$out/$1/dmesg" &&
		[ "$(cat "$out/$1/hook.rc")" = 0 ] && [ "$(cat "$out/$1/save.rc")" = 0 ] &&
		[ "$(cat "$out/$1/mode")" = "$2" ]
}

nobuf_counted() {	# NAME: cpu1 recorded nothing and counted all, in the file too
	d=$out/$1
	cat "$d/stats.before" "$d/stress" "$d/stats.after"
	"$kmf" info "$d/boot.kmt" > "$d/info" || return 1
	awk '$1 ~ /^[0-9]+$/' "$d/info"
	pairs=$(awk '$1 == "pairs" { print $2 }' "$d/stress")
	awk -v p="$pairs" 'FNR == 1 { f++ } $1 == "1" { l[f] = $3; e[f] = $2; b[f] = $5 }
		END { exit !(p == 20000 && l[2] - l[1] >= 2 * p && e[1] == 0 && e[2] == 0 &&
			b[1] == 0 && b[2] == 0) }' "$d/stats.before" "$d/stats.after" &&
	awk '$1 == "0" && $4 > 0 && $4 == $5 && $6 == 0 { c0 = 1 }
		$1 == "1" && $3 == 0 && $4 == 0 && $5 == 0 && $6 > 0 { c1 = 1 }
		END { exit !(c0 && c1) }' "$d/info" &&
	grep -q 'events were lost on CPUs that got no buffer' "$d/save.err"
}

check "a CPU without a buffer, flight mode: the guest lives" nobuf nobuf-flight flight
check "a CPU without a buffer, flight mode: its events counted lost, CPU 0's all in the file" \
	nobuf_counted nobuf-flight
check "a CPU without a buffer, flight mode: the manual trigger freezes the recorder" \
	sh -c "cat '$out/nobuf-flight/frozen' && grep -q '^1 manual ' '$out/nobuf-flight/frozen' &&
		'$kmf' info '$out/nobuf-flight/boot.kmt' | grep -q '^frozen:      by manual at '"
# Frozen, CPU 0 records into the sub-buffer it has open (64 KiB, 6000
# records at most), and drops the rest of the stress's 40000 events,
# counted: frozen_dropped in stats, and in the file (its save comes after,
# and may drop more).  CPU 1, without a buffer, counts its 40000 lost as
# before.
frozen_dropped() {
	d=$out/nobuf-flight
	cat "$d/stats.frozen" "$d/stats.frozen2"
	awk 'FNR == 1 { f++ } $1 == "0" { e[f] = $2; fd[f] = $7; n[f] = NF }
		$1 == "1" { l1[f] = $3; fd1[f] = $7 }
		END { exit !(n[1] == 10 && e[2] - e[1] <= 6000 && fd[2] - fd[1] >= 40000 - 6000 &&
			l1[2] - l1[1] >= 40000 && fd1[2] == 0) }' \
		"$d/stats.frozen" "$d/stats.frozen2" &&
	want=$(awk '$1 == "0" { print $7 }' "$d/stats.frozen2") &&
	awk -v w="$want" '$1 == "0" { exit !($8 >= w && w > 0) }' "$d/info"
}
check "frozen: what does not fit the open sub-buffer is dropped and counted (stats, file)" frozen_dropped
check "a CPU without a buffer, boot mode: the guest lives" nobuf nobuf-boot boot
check "a CPU without a buffer, boot mode: its events counted lost, CPU 0's all in the file" \
	nobuf_counted nobuf-boot

check_done

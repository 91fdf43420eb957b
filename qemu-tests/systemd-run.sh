#!/bin/sh
# The systemd suite: a real Debian bookworm boot with systemd in a dracut
# initramfs and in the root (qemu-tests/systemd-boot.sh), recorded with
# the default buffers and saved by kmemflight-save.service, twice (the
# second boot rotates the files); and two boots whose units fail clearly
# while the boot goes on: lockdown closes the recorder, and Debian's own
# kernel has none.
# Prints "ok/not ok" per check and "systemd: N passed, N failed".
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${KMF_QEMU_OUT:-$repo/build/qemu-tests}/systemd
kmf=$repo/build/kmemflight
suite=systemd
mkdir -p "$out"
# shellcheck source=qemu-tests/check.sh
. "$repo/qemu-tests/check.sh"

kernel=$("$repo/qemu-tests/build-kernel.sh" qemu) || {
	echo "not ok 1 - systemd: build the kernel that runs systemd"
	echo "systemd: 0 passed, 1 failed"
	exit 1
}
make -s -C "$repo" build/kmemflight || exit 1

lintian_clean() {	# the package: no error or warning, info explained
	cat "$out/boot/deb/lintian.log"
	[ -s "$out/boot/deb/build.log" ] &&
		! grep -q '^[EW]: ' "$out/boot/deb/lintian.log" &&
		grep -q '^Setting up kmemflight (' "$out/boot/dpkg.log"
}

b1=$out/boot/boot1
b2=$out/boot/boot2
check "Debian bookworm, systemd initramfs and root, default buffers: 2 boots, saved by the unit" \
	"$repo/qemu-tests/systemd-boot.sh" -k "$kernel" -c 2 -n 2 -K 1 "$out/boot"

# this boot's saved file, by the boot id the guest read
trace() { echo "$1/boot-$(cat "$1/boot_id").kmt"; }
journal_line() {	# DIR: the save unit's line in the journal
	sed -n 's/.* kmemflight\[[0-9]*\]: \[ kmemflight: saved \(.*\) \]$/\1/p' "$1/journal"
}

reached_multi_user() {	# DIR: multi-user.target active, no unit failed
	cat "$1/multi-user" "$1/failed"
	grep -q '^ActiveEnterTimestampMonotonic=[1-9][0-9]*$' "$1/multi-user" &&
		grep -q '^0 loaded units listed' "$1/failed"
}

saved_by_unit() {	# DIR: the unit's journal line names this boot's file
	cat "$1/lib.ls"
	line=$(journal_line "$1")
	echo "journal: $line"
	case $line in
	*" events from 2 CPUs (0 lost) to /var/lib/kmemflight/boot-$(cat "$1/boot_id").kmt, "*) ;;
	*) return 1 ;;
	esac
	grep -q 'status=0/SUCCESS' "$1/save.status" &&
		[ -s "$(trace "$1")" ] &&
		head -c 19 "$1/boot-$(cat "$1/boot_id").summary" | grep -qx "kmemflight-summary "
}

private_files() {	# DIR: the directories 0700, the files 0600, root's
	cat "$1/lib.stat"
	awk '$1 != ($3 == "directory" ? "700" : "600") || $2 != "root" { bad = 1 }
		END { exit bad || NR != 5 }' "$1/lib.stat"
}

nothing_lost() {	# FILE
	"$kmf" info "$1" | awk '$1 ~ /^[0-9]+$/ { print; n++; if ($6 != 0 || $4 != $5) bad = 1 }
		END { exit bad || n != 2 }'
}

attach_survived() {	# DIR: one attach from the initramfs to the save
	# started once, by the initramfs's systemd (host name still
	# "localhost"), never again by the real root's, which took the
	# running unit over: its main process is the daemon the save
	# stopped, the only attach of the spool's log
	grep 'kmemflight-attach.service - Drain' "$1/journal"
	pid=$(sed -n 's/.*\[ kmemflight: attach pid \([0-9]*\) drained .* 0 events were lost before it started ]$/\1/p' "$1/journal")
	echo "attach pid: $pid"
	[ -n "$pid" ] &&
		[ "$(grep -c 'systemd\[1\]: Starting kmemflight-attach.service' "$1/journal")" = 1 ] &&
		grep -q 'localhost systemd\[1\]: Started kmemflight-attach.service' "$1/journal" &&
		! grep -q 'Stopp.*kmemflight-attach' "$1/journal" &&
		grep -q "Main PID: $pid (code=exited, status=0/SUCCESS)" "$1/attach.status" &&
		! grep -q 're-attaches' "$1/journal"
}

# seconds since boot of the journal line matching PATTERN (first one)
jtime() { sed -n "s/^\[ *\([0-9.]*\)\] .*$2.*/\1/p" "$1/journal" | head -1; }
events_between() {	# FILE START END: events recorded in [START, END] s
	"$kmf" report --phase --time "$2,$3" "$1" 2>/dev/null |
		awk -F'|' 'NF > 6 && $1 !~ /Phase/ { s += $6 } END { print s + 0 }'
}

whole_boot() {	# DIR: from kmem_cache_init() to after multi-user.target
	f=$(trace "$1")
	"$kmf" report --phase "$f" > "$1/phase.txt" || return 1
	sed -n '4,30p' "$1/phase.txt" | grep -v -- '----'
	end=$(sed -n 's/.*retained at the end (\([0-9.]*\) s).*/\1/p' "$1/phase.txt")
	mu=$(sed -n 's/^ActiveEnterTimestampMonotonic=//p' "$1/multi-user")
	echo "last event at $end s, multi-user.target at $mu us"
	grep -q '^ early (0.000000) ' "$1/phase.txt" &&
		awk -v e="$end" -v m="$mu" 'BEGIN { exit !(e * 1000000 > m) }'
}

three_parts() {	# DIR: events in the initramfs, the switch, the real root
	f=$(trace "$1")
	init=$(sed -n 's/^ exec \/init (\([0-9.]*\)).*/\1/p' "$1/phase.txt")
	real=$(sed -n 's/^ exec \/lib\/systemd\/systemd (\([0-9.]*\)).*/\1/p' "$1/phase.txt")
	sw=$(jtime "$1" 'systemd\[1\]: Switching root\.')
	echo "exec /init at $init s, switching root at $sw s, real systemd at $real s"
	[ -n "$init" ] && [ -n "$sw" ] && [ -n "$real" ] || return 1
	a=$(events_between "$f" "$init" "$sw")
	b=$(events_between "$f" "$sw" "$real")
	c=$(events_between "$f" "$real" "")
	echo "events: initramfs $a, switch $b, real root $c"
	[ "$a" -gt 10000 ] && [ "$b" -gt 100 ] && [ "$c" -gt 10000 ]
}

who_allocated() {	# DIR: report --phase names the processes and units
	f=$(trace "$1")
	sed -n '/^Processes by/,/^$/p' "$1/phase.txt" > "$1/processes.txt"
	sed -n '/^systemd units by/,$p' "$1/phase.txt" > "$1/units.txt"
	head -12 "$1/processes.txt"
	head -12 "$1/units.txt"
	# a name with events and bytes kept: " NAME | a | kept | b | kept | events"
	row() { awk -F'|' -v n="$2" '{ gsub(/^ +| +$/, "", $1) } $1 == n && $6 + 0 > 0 &&
		$3 + $5 > 0 { found = 1 } END { exit !found }' "$1"; }
	for p in systemd-udevd systemd-journal systemd "(udev-worker)" kmemflight; do
		row "$1/processes.txt" "$p" || { echo "no process $p"; return 1; }
	done
	for u in systemd-udevd.service systemd-journald.service init.scope \
		kmemflight-attach.service kmemflight-save.service; do
		row "$1/units.txt" "$u" || { echo "no unit $u"; return 1; }
	done
}

watched() {	# DIR: the watch unit's file of the manual freeze
	cat "$1/mode" "$1/freeze.err" "$1/flight.ls" "$1/frozen"
	f=$1/$(grep -m1 '^flight-.*-manual\.kmt$' "$1/flight.ls")
	[ "$(cat "$1/mode")" = flight ] && [ ! -s "$1/freeze.err" ] &&
		[ "$(wc -l < "$1/flight.ls")" = 1 ] && [ -f "$f" ] &&
		[ "$(cat "$1/frozen")" = 0 ] &&
		"$kmf" info "$f" | grep -q '^frozen:      by manual at ' &&
		grep -q 'Active: active (running)' "$1/watch.status"
}

rotated() {	# the second boot kept only itself (KMEMFLIGHT_KEEP=1)
	cat "$b2/lib.ls"
	id1=$(cat "$b1/boot_id")
	id2=$(cat "$b2/boot_id")
	[ "$id1" != "$id2" ] &&
		[ "$(grep -c ' boot-' "$b2/lib.ls" | tr -d ' ')" = 2 ] &&
		grep -q " boot-$id2.kmt$" "$b2/lib.ls" && grep -q " boot-$id2.summary$" "$b2/lib.ls" &&
		journal_line "$b2" | grep -q '; removed 1 older boot$'
}

check "the Debian package builds, lintian has no error or warning, dpkg installs it" \
	lintian_clean
if [ -f "$b1/collected" ]; then
	check "boot 1: multi-user.target reached, no unit failed" reached_multi_user "$b1"
	check "boot 1: kmemflight-save.service saved this boot, one journal line, a summary next to it" \
		saved_by_unit "$b1"
	check "boot 1: /var/lib/kmemflight and its flight/ are 0700, the files 0600, root's" private_files "$b1"
	check "boot 1: 0 events lost on the default buffers, kernel counters == file" \
		nothing_lost "$(trace "$b1")"
	check "boot 1: the initramfs's attach survived switch-root and drained until the save" \
		attach_survived "$b1"
	check "boot 1: the trace runs from kmem_cache_init() to after multi-user.target" \
		whole_boot "$b1"
	check "boot 1: events of the initramfs, of the switch and of the real root" \
		three_parts "$b1"
	check "boot 1: report --phase names who allocated: udevd, journald and their units" \
		who_allocated "$b1"
	check "boot 1: kmemflight-watch.service armed flight mode after the save, saved a manual freeze, armed again" \
		watched "$b1"
fi
if [ -f "$b2/collected" ]; then
	check "boot 2: saved again, 0 lost" sh -c "grep -q 'status=0/SUCCESS' '$b2/save.status' &&
		'$kmf' info '$(trace "$b2")' | awk '\$1 == \"total\" { exit \$4 != 0 }'"
	check "boot 2: with KMEMFLIGHT_KEEP=1 only this boot's file and summary are kept" rotated
fi

# lockdown=confidentiality closes tracefs: both units fail, each with
# the lockdown named, and the boot still reaches multi-user.target.
lk=$out/lockdown/boot1
check "lockdown=confidentiality: the boot goes on to the test unit" \
	"$repo/qemu-tests/systemd-boot.sh" -k "$kernel" -c 2 -a "lockdown=confidentiality" "$out/lockdown"
if [ -f "$lk/collected" ]; then
	check "lockdown: multi-user.target reached; the attach and save units failed, nothing saved" \
		sh -c "cat '$lk/failed'; grep -q '^ActiveEnterTimestampMonotonic=[1-9]' '$lk/multi-user' &&
			grep -q '^kmemflight-attach.service  *loaded failed failed' '$lk/failed' &&
			grep -q '^kmemflight-save.service  *loaded failed failed' '$lk/failed' &&
			grep -q '^total 0$' '$lk/lib.ls'"
	check "lockdown: the save unit's journal line names the lockdown and what it closes" \
		grep -q "kmemflight\[[0-9]*\]: kmemflight save: error: .*the kernel is locked down for confidentiality (lockdown=confidentiality in /sys/kernel/security/lockdown), which closes tracefs" \
		"$lk/journal"
fi

# Debian's own kernel, which has no recorder, with kmemtrace.enable=1
# (which it ignores): both units fail and say why, the boot goes on.
db=$out/debian-kernel/boot1
check "Debian's own 6.12 kernel (no recorder): the boot goes on to the test unit" \
	sh -c "dk=\$('$repo/qemu-tests/debian-kernel.sh') &&
		'$repo/qemu-tests/systemd-boot.sh' -D \"\$dk\" -c 2 '$out/debian-kernel'"
if [ -f "$db/collected" ]; then
	check "Debian's kernel: multi-user.target reached; both units failed, each saying there is no recorder" \
		sh -c "cat '$db/failed'; grep -q '^ActiveEnterTimestampMonotonic=[1-9]' '$db/multi-user' &&
			grep -q '^kmemflight-attach.service  *loaded failed failed' '$db/failed' &&
			grep -q '^kmemflight-save.service  *loaded failed failed' '$db/failed' &&
			grep -q '^total 0$' '$db/lib.ls' &&
			grep -q 'kmemflight\[[0-9]*\]: kmemflight save: error: /sys/kernel/tracing/kmemtrace not found: this kernel has no kmemtrace recorder' '$db/journal' &&
			grep -q 'kmemflight\[[0-9]*\]: kmemflight attach: error: /sys/kernel/tracing/kmemtrace not found: this kernel has no kmemtrace recorder' '$db/journal'"
fi

for d in "$b1" "$b2"; do
	[ -f "$d/collected" ] || continue
	echo "# systemd $(basename "$d"): $(journal_line "$d"); $(cat "$d/seconds") s under TCG;" \
		"$(stat -c %s "$(trace "$d")" 2>/dev/null) bytes"
done
check_done

#!/bin/sh
# What the recorder costs the boot a distribution user has: the Debian
# bookworm boot with systemd of qemu-tests/systemd-boot.sh (a dracut
# initramfs with kmemflight's module, the package installed in the
# root, its units attaching and saving), booted twice with the QEMU
# kernel under -icount shift=0,sleep=off on one vCPU: once with
# kmemtrace.enable=0, once with the recorder on.  The guest clock then
# advances one nanosecond per guest instruction, and the CPU time the
# guest accounted up to multi-user.target (its uptime less its idle and
# iowait time, read by a unit ordered right after the target) counts
# the instructions it ran to get there, to /proc/uptime's 10 ms.
#
#   bench/systemd-cost.sh [-k BZIMAGE] OUTDIR
#
# Prints one line: "systemd off OFF on ON events EVENTS", OFF and ON in
# millions of instructions (not a test: nothing passes or fails).
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
kernel=
usage() {
	echo "usage: $0 [-k BZIMAGE] OUTDIR" >&2
	exit 2
}
while getopts k:h o; do
	case $o in
	k) kernel=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
out=$1
mkdir -p "$out"
[ -n "$kernel" ] || kernel=$("$repo/qemu-tests/build-kernel.sh" qemu)
make -s -C "$repo" build/kmemflight

busy() {	# DIR: millions of instructions to multi-user.target
	# line 1: uptime idle (s); line 2: cpu user nice system idle iowait ... (USER_HZ)
	awk 'NR == 1 { up = $1; idle = $2 } NR == 2 { iowait = $6 }
		END { if (NR < 2) exit 1; printf "%.0f", (up - idle - iowait / 100) * 1000 }' "$1/busy"
}
pids=
for e in 0 1; do
	KMF_QEMU_ARGS="-icount shift=0,sleep=off" "$repo/qemu-tests/systemd-boot.sh" \
		-k "$kernel" -c 1 -t 3600 -a "kmemtrace.enable=$e" "$out/on$e" \
		> "$out/on$e.log" 2>&1 &
	pids="$pids $!"
done
failed=
for p in $pids; do
	wait "$p" || failed=1
done
for e in 0 1; do
	if [ -n "$failed" ] || [ ! -s "$out/on$e/boot1/busy" ]; then
		echo "systemd-cost.sh: the boot with kmemtrace.enable=$e failed or left no CPU time; see $out/on$e.log" >&2
		tail -5 "$out/on$e.log" >&2
		exit 1
	fi
done
id=$(cat "$out/on1/boot1/boot_id")
events=$("$repo/build/kmemflight" info "$out/on1/boot1/boot-$id.kmt" | awk '$1 == "total" { print $3 }')
echo "systemd off $(busy "$out/on0/boot1") on $(busy "$out/on1/boot1") events ${events:-0}"

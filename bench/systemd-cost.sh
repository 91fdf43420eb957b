#!/bin/sh
# What the recorder costs the boot a distribution user has: the Debian
# bookworm boot with systemd of qemu-tests/systemd-boot.sh (a dracut
# initramfs with kmemflight's module, the package installed in the
# root, its units attaching and saving), booted twice with the QEMU
# kernel under -icount shift=0,sleep=off on one vCPU: once with
# kmemtrace.enable=0, once with the recorder on.  The guest clock then
# advances one nanosecond per guest instruction while the vCPU runs, and
# jumps to the next timer when it idles; a unit ordered right after
# multi-user.target reads the guest's uptime less its idle and iowait
# time: the CPU time it took to get there, in instructions.  Not exact:
# the QEMU kernel ticks periodically (250 Hz) and samples idle and
# iowait at its ticks, so each stretch of work counts to the tick before
# its end (up to 4 ms, 4 M instructions, less per stretch), in both boots
# (the figures come out low; their difference moves by tens of millions,
# half a percent, from one pair of boots to the next), and /proc/uptime
# has 10 ms.
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
boot() {	# ENABLE: one boot with kmemtrace.enable=ENABLE, in OUTDIR/onENABLE
	KMF_QEMU_ARGS="-icount shift=0,sleep=off" "$repo/qemu-tests/systemd-boot.sh" \
		-k "$kernel" -c 1 -t 3600 -a "kmemtrace.enable=$1" "$out/on$1" \
		> "$out/on$1.log" 2>&1
}
booted() {	# ENABLE STATUS: that boot went to multi-user.target
	if [ "$2" != 0 ] || [ ! -s "$out/on$1/boot1/busy" ]; then
		echo "systemd-cost.sh: the boot with kmemtrace.enable=$1 failed (status $2) or left no CPU time; see $out/on$1.log" >&2
		tail -5 "$out/on$1.log" >&2
		exit 1
	fi
}
boot 0 &
p0=$!
boot 1 &
p1=$!
rc0=0
wait "$p0" || rc0=$?
rc1=0
wait "$p1" || rc1=$?
booted 0 "$rc0"
booted 1 "$rc1"
off=$(busy "$out/on0/boot1")
on=$(busy "$out/on1/boot1")
id=$(cat "$out/on1/boot1/boot_id")
events=$("$repo/build/kmemflight" info "$out/on1/boot1/boot-$id.kmt" | awk '$1 == "total" { print $3 }')
echo "systemd off $off on $on events ${events:-0}"

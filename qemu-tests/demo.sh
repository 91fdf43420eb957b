#!/bin/sh
# The main job: build the patched kernel, boot it under QEMU with the
# recorder on, save the trace in the guest and print where the boot's
# memory went, then the callers by bytes (demo-report.sh).
#
#   qemu-tests/demo.sh [-c CPUS] [-l LINES]
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
cpus=2
lines=40
while getopts c:l: o; do
	case $o in
	c) cpus=$OPTARG ;;
	l) lines=$OPTARG ;;
	*) echo "usage: $0 [-c CPUS] [-l LINES]" >&2; exit 2 ;;
	esac
done
out=$repo/build/demo

"$repo/qemu-tests/deps.sh"
make -s -C "$repo" build/kmemflight
kernel=$("$repo/qemu-tests/build-kernel.sh" qemu)
echo "Booting Linux 6.12 + kmemtrace on $cpus vCPUs under QEMU (TCG) ..."
"$repo/qemu-tests/boot.sh" -k "$kernel" -c "$cpus" -a "kmemtrace.enable=1" "$out"
cat "$out/save.out" "$out/save.err"
[ "$(cat "$out/save.rc")" = 0 ] || exit 1
echo
"$repo/qemu-tests/demo-report.sh" "$out/boot.kmt" "$lines"

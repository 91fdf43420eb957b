#!/bin/sh
# The main job's first screen (demo.sh), on a saved boot: what the trace
# holds, where the boot's memory went (the footprint's balance against
# the kernel's totals, and the callers holding most of each part), then
# the callers by the bytes they allocated.  report --caller alone keeps
# perf kmem's default order (fragmentation), for parity: a first view
# of the boot that opens on 80-byte ACPI objects answers nothing.
#
#   qemu-tests/demo-report.sh TRACE [LINES]
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
kmf=${KMF:-$repo/build/kmemflight}
trace=$1
lines=${2:-40}

run() {
	echo "\$ kmemflight $*"
	"$kmf" "$@"
	echo
}
run info "$trace"
run report --footprint "$trace"
run report --caller -s bytes -l "$lines" "$trace"

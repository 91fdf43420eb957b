#!/bin/sh
# What the kernel suites need, made ahead of them: ci.sh runs this in the
# background, niced, while the user-space suites run on one core, so that
# with a cold cache (nothing built yet) the kernels build on the other.
# Each maker takes its lock, so a suite that needs one of them waits for
# it; one that failed here is made again, and reported, by that suite.
# The kernels come first (they are what the suites wait for), the QEMU
# one first of all: the others start from a copy of it, so when it fails
# the rest is left to the suites.  KMF_DEBUG_KERNEL=0 leaves the debug
# kernel out, as run.sh does.  Warm, everything is up to date in seconds.
#
#   qemu-tests/prebuild.sh
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
took() { echo "prebuild: $1 at $(($(date +%s) - start)) s"; }
"$repo/qemu-tests/build-kernel.sh" qemu || {
	echo "prebuild: the qemu kernel failed; the suites build the kernels themselves"
	exit 1
}
# in the order the suites want them: kernel-style, then run.sh (whose
# debug boots come last); systemd-run.sh boots the QEMU kernel
flavors="flight retain"
[ "${KMF_DEBUG_KERNEL:-1}" = 0 ] || flavors="$flavors debug"
rc=0
took "the qemu kernel"
for flavor in $flavors; do
	"$repo/qemu-tests/build-kernel.sh" "$flavor" || { echo "prebuild: the $flavor kernel failed"; rc=1; }
	took "the $flavor kernel"
done
"$repo/qemu-tests/debian-root.sh" || { echo "prebuild: debian-root.sh failed"; rc=1; }
took "the Debian root"
"$repo/qemu-tests/debian-kernel.sh" || { echo "prebuild: debian-kernel.sh failed"; rc=1; }
took "Debian's kernel"
exit $rc

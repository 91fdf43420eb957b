#!/bin/sh
# What the kernel suites need, made ahead of them: ci.sh runs this in the
# background, niced, while the user-space suites run on one core, so that
# with a cold cache (nothing built yet) the kernels build on the other.
# Each maker takes its lock, so a suite that needs one of them waits for
# it; one that failed here is made again, and reported, by that suite.
# Warm, everything is up to date in seconds.
#
#   qemu-tests/prebuild.sh
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
"$repo/qemu-tests/debian-root.sh" || echo "prebuild: debian-root.sh failed"
"$repo/qemu-tests/debian-kernel.sh" || echo "prebuild: debian-kernel.sh failed"
for flavor in qemu flight retain systemd latency debug; do
	"$repo/qemu-tests/build-kernel.sh" "$flavor" || echo "prebuild: the $flavor kernel failed"
done

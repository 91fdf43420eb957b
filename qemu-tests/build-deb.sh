#!/bin/sh
# Build the Debian package of this tree (debian/) with dpkg-buildpackage,
# in a copy of the tree's files, and check it with lintian.
#
#   qemu-tests/build-deb.sh OUTDIR
#
# OUTDIR receives kmemflight_VERSION_ARCH.deb, the .buildinfo and
# .changes, build.log (dpkg-buildpackage's output) and lintian.log.
# Prints the path of the .deb.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the files git knows, and the new ones it does not ignore
src=$tmp/kmemflight
mkdir -p "$src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 tar -cf - --no-recursion) | tar -C "$src" -xf -
if ! (cd "$src" && dpkg-buildpackage -b -us -uc) > "$out/build.log" 2>&1; then
	tail -30 "$out/build.log" >&2
	echo "build-deb.sh: dpkg-buildpackage failed; see $out/build.log" >&2
	exit 1
fi
rm -f "$out"/kmemflight*.deb "$out"/kmemflight_*.changes "$out"/kmemflight_*.buildinfo
mv "$tmp"/kmemflight*.deb "$tmp"/kmemflight_*.changes "$tmp"/kmemflight_*.buildinfo "$out"/
lintian --info --display-info --pedantic "$out"/kmemflight_*.changes > "$out/lintian.log" 2>&1 || true
ls "$out"/kmemflight_*.deb

#!/bin/sh
# A minimal Debian bookworm root with systemd, for the QEMU boots that run
# a real distribution's user space (qemu-tests/systemd-boot.sh).  Built
# once with mmdebstrap from this machine's own apt sources (passed to it
# as its mirrors; no mirror is named here) as a tarball under
# ${KMF_CACHE:-~/.cache/kmemflight}, keyed by the package list, the
# sources and this script; prints its path.  About 30 s.
#
#   qemu-tests/debian-root.sh
set -eu

cache=${KMF_CACHE:-$HOME/.cache/kmemflight}
# One at a time: ci.sh makes it in the background, early.
if [ -z "${KMF_ROOT_LOCKED:-}" ]; then
	mkdir -p "$cache"
	KMF_ROOT_LOCKED=1 exec flock "$cache/.debian-root.lock" "$0" "$@"
fi
# systemd as init, udev, D-Bus (logind and systemctl want it), and
# procps for the test's own unit, kmod for a kernel with modules;
# the libraries kmemflight links.
pkgs="systemd-sysv udev dbus procps kmod libelf1 libdw1 libtracefs1 libtraceevent1"
# This machine's own apt sources, given to mmdebstrap as its mirrors
# (without one it would name Debian's): the deb822 files, else the
# classic sources.list.
set --
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && set -- "$@" "$f"
done
[ $# -gt 0 ] || [ ! -s /etc/apt/sources.list ] || set -- /etc/apt/sources.list
[ $# -gt 0 ] || {
	echo "debian-root.sh: no apt sources on this machine (/etc/apt/sources.list.d/*.sources, /etc/apt/sources.list)" >&2
	exit 1
}
key=$( (echo "bookworm minbase $pkgs"; cat "$0" "$@") | sha256sum | cut -c1-16)
tar=$cache/rootfs-bookworm-$key.tar
if [ -f "$tar" ]; then
	echo "$tar"
	exit 0
fi
command -v mmdebstrap > /dev/null || {
	echo "debian-root.sh: mmdebstrap is not installed (run qemu-tests/deps.sh)" >&2
	exit 1
}
mkdir -p "$cache"
echo "debian-root.sh: building a bookworm root with $pkgs (once, ~30 s)" >&2
rm -f "$tar.tmp"
# shellcheck disable=SC2086
if ! mmdebstrap --mode=root --variant=minbase --format=tar \
	--include="$(echo $pkgs | tr ' ' ,)" bookworm "$tar.tmp" "$@" > "$cache/rootfs.log" 2>&1; then
	tail -20 "$cache/rootfs.log" >&2
	echo "debian-root.sh: mmdebstrap failed; full log: $cache/rootfs.log" >&2
	rm -f "$tar.tmp"
	exit 1
fi
mv "$tar.tmp" "$tar"
echo "$tar"

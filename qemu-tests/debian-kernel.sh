#!/bin/sh
# Debian's own kernel, the one a bookworm machine boots: the signed
# linux-image package of the same 6.12 release as linux-source-6.12, which
# has no kmemtrace recorder.  Downloaded once from this machine's apt
# sources (apt-get download) and unpacked under
# ${KMF_CACHE:-~/.cache/kmemflight}/debian-kernel-VERSION; prints that
# directory: boot/vmlinuz-KVER and lib/modules/KVER (with modules.dep) in
# it.
#
#   qemu-tests/debian-kernel.sh
set -eu

cache=${KMF_CACHE:-$HOME/.cache/kmemflight}
# One at a time: ci.sh makes it in the background, early.
if [ -z "${KMF_DEBKERNEL_LOCKED:-}" ]; then
	mkdir -p "$cache"
	KMF_DEBKERNEL_LOCKED=1 exec flock "$cache/.debian-kernel.lock" "$0" "$@"
fi
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || {
	echo "debian-kernel.sh: linux-source-6.12 is not installed (run qemu-tests/deps.sh)" >&2
	exit 1
}
# 6.12.117-1~deb12u1 -> linux-image-6.12.117+deb12-amd64
rel=${ver%%-*}
pkg=linux-image-$rel+deb12-amd64
dir=$cache/debian-kernel-$(echo "$ver" | tr '~' '_')
if [ -f "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "debian-kernel.sh: downloading $pkg (once)" >&2
(cd "$tmp" && apt-get download "$pkg" > download.log 2>&1) || {
	cat "$tmp/download.log" >&2
	echo "debian-kernel.sh: apt-get download $pkg failed" >&2
	exit 1
}
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
dpkg-deb -x "$tmp"/linux-image-*.deb "$dir.tmp"
kernel=$(ls "$dir.tmp"/boot/vmlinuz-*)
# what the package's postinst does: modules.dep, for dracut and modprobe
depmod -b "$dir.tmp" "${kernel##*/vmlinuz-}"
touch "$dir.tmp/.done"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$dir"

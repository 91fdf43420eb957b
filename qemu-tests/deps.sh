#!/bin/sh
# Install what building, booting and testing need on Debian 12 (bookworm).
# Idempotent: does nothing when everything is there.
set -eu

pkgs="build-essential pkg-config libelf-dev libdw-dev libcmocka-dev
 clang libclang-rt-14-dev shellcheck python3-docutils
 libtracefs-dev libtraceevent-dev linux-perf
 linux-source-6.12 linux-config-6.12 bc bison flex libssl-dev cpio xz-utils kmod
 qemu-system-x86 busybox-static e2fsprogs python3 dracut-core
 mmdebstrap debhelper lintian bash-completion
 librsvg2-bin libfreetype-dev libfontconfig-dev fonts-dejavu-core"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: need root to install:$missing" >&2
	exit 1
fi
echo "Installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null

#!/bin/sh
# Install what building, booting and testing need on Debian 12 (bookworm).
# Idempotent: does nothing when everything is there.
set -eu

pkgs="build-essential pkg-config libelf-dev libdw-dev libzstd-dev libcmocka-dev
 clang libclang-rt-14-dev shellcheck python3-docutils
 libtracefs-dev libtraceevent-dev linux-perf
 linux-source-6.12 linux-config-6.12 bc bison flex libssl-dev cpio xz-utils kmod
 qemu-system-x86 busybox-static e2fsprogs python3 dracut-core
 mmdebstrap debhelper lintian bash-completion
 librsvg2-bin libfreetype-dev libfontconfig-dev fonts-dejavu-core python3-jsonschema"

# speedscope's file format schema, that kmemflight flame's JSON is checked
# against (tests/cli/t0099-flame.sh): from speedscope's npm package, cached
SPEEDSCOPE=speedscope-1.25.0
speedscope_schema() {
	dir=${KMF_CACHE:-$HOME/.cache/kmemflight}/$SPEEDSCOPE
	[ -s "$dir/file-format-schema.json" ] && return 0
	tmp=$(mktemp -d)
	if (cd "$tmp" && npm pack --silent "${SPEEDSCOPE%-*}@${SPEEDSCOPE##*-}" > /dev/null &&
	    tar xzf "$SPEEDSCOPE.tgz" package/dist/release/file-format-schema.json); then
		mkdir -p "$dir" &&
			mv "$tmp/package/dist/release/file-format-schema.json" "$dir/"
	else
		echo "deps.sh: could not fetch $SPEEDSCOPE from the npm registry" >&2
	fi
	rm -rf "$tmp"
}

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
# npm: Debian's, unless the machine's Node.js brings its own
command -v npm > /dev/null || missing="$missing npm"
if [ -z "$missing" ]; then
	speedscope_schema
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: need root to install:$missing" >&2
	exit 1
fi
echo "Installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
speedscope_schema

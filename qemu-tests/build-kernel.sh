#!/bin/sh
# Build the patched Linux 6.12 kernel for the QEMU tests.
#
#   qemu-tests/build-kernel.sh [qemu|debug|retain|bench|flight]
#
# Sources come from Debian's linux-source-6.12 package.  Everything heavy
# is cached under ${KMF_CACHE:-~/.cache/kmemflight}: the unpacked tree
# (a git repository of the pristine source, so that patched files can be
# restored), and one build directory per flavour.  Only files whose
# content changed are rewritten, so a patch change rebuilds incrementally;
# a stamp holding the hash of every input skips make altogether when
# nothing changed.  Prints the path of the bzImage on stdout.
set -eu

flavor=${1:-qemu}
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${KMF_CACHE:-$HOME/.cache/kmemflight}
case $flavor in
qemu) frags="qemu.config kmemtrace.config" ;;
debug) frags="qemu.config kmemtrace.config debug.config" ;;
retain) frags="qemu.config kmemtrace.config retain-test.config" ;;
bench) frags="qemu.config kmemtrace.config bench.config" ;;
flight) frags="qemu.config kmemtrace.config flight.config" ;;
*) echo "usage: $0 [qemu|debug|retain|bench|flight]" >&2; exit 2 ;;
esac

log() { echo "build-kernel: $*" >&2; }

ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || {
	log "linux-source-6.12 is not installed (run qemu-tests/deps.sh)"
	exit 1
}
tag=$(echo "$ver" | tr '~' '_')
src=$cache/src-$tag
build=$cache/build-$tag-$flavor
mkdir -p "$cache"

# Locks, so that ci.sh can build kernels in the background
# (prebuild.sh) while other suites build or read theirs.  The source
# tree is written (unpacked, or given another patch) under
# $cache/.src.lock held exclusively, and compiled from under it held
# shared; each build directory is made under its own lock, $build.lock,
# taken after the source tree's, and the QEMU kernel's (to copy it) after
# that.  A build waits for a build of the same
# flavour, or for the sources to change, never for another flavour.  A
# kernel that is up to date in a tree that already holds this patch
# takes no lock: that reads only the pristine history, the tree's files
# and this script's own staging directory.  Commands that may leave a
# process behind (git's gc) run without the locks' descriptors.
exec 9> "$cache/.src.lock"

if [ ! -f "$src/.kmf-pristine" ]; then
	flock -x 9
fi
if [ ! -f "$src/.kmf-pristine" ]; then
	log "unpacking linux-source-6.12 $ver (once)"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -C "$src.tmp" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
	(cd "$src.tmp" && git init -q && git add -f -A . &&
		git -c user.name=kmemflight -c user.email=kmemflight@localhost \
			-c gc.auto=0 -c maintenance.auto=false \
			commit -q -m "linux-source-6.12 $ver") 9>&- 7>&- 6>&-
	touch "$src.tmp/.kmf-pristine"
	mv "$src.tmp" "$src"
fi

# Stage the patched versions of every touched file; a build copies into
# the tree only what differs, and restores files the patch no longer
# touches.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
files=$("$repo/kernel-patch/apply.sh" --files)
"$repo/kernel-patch/apply.sh" --pristine "$src" "$stage"
"$repo/kernel-patch/apply.sh" "$stage"
staged() { cat "$stage/$1"; }
inputs=$( (echo "$ver $flavor"; for f in $files; do echo "$f"; staged "$f"; done
	for c in $frags; do cat "$repo/Kconfig/$c"; done
	gcc --version; ld --version
	cat "$0") | sha256sum | cut -d' ' -f1)
up_to_date() {
	[ -f "$build/.kmf-stamp" ] && [ "$(cat "$build/.kmf-stamp")" = "$inputs" ] &&
		[ -f "$build/arch/x86/boot/bzImage" ]
}
# What the kernels seeded from the QEMU build share with it: the QEMU
# kernel's fragments.  A build directory remembers (.kmf-base) the ones
# it was last built with.
base=$(cat "$repo/Kconfig/qemu.config" "$repo/Kconfig/kmemtrace.config" |
	sha256sum | cut -d' ' -f1)
# the tree holds this patch: the same files, each as staged (the suites
# that read the tree count on it, up to date or not)
manifest=$src/.kmf-manifest
in_sync() {
	[ -f "$manifest" ] && [ "$(cat "$manifest")" = "$files" ] || return 1
	for f in $files; do
		cmp -s "$stage/$f" "$src/$f" || return 1
	done
}
if up_to_date && in_sync; then
	log "up to date: $build"
	echo "$build/arch/x86/boot/bzImage"
	exit 0
fi
# Put this patch into the tree, exclusively, unless it is there; then
# hold the tree shared for the build, and this flavour's build directory.
while :; do
	flock -s 9
	in_sync && break
	flock -u 9
	flock -x 9
	if [ -f "$manifest" ]; then
		while read -r f; do
			echo "$files" | grep -qx "$f" && continue
			if git -C "$src" cat-file -e "HEAD:$f" 2>/dev/null; then
				git -C "$src" show "HEAD:$f" > "$src/$f"
			else
				rm -f "$src/$f"
			fi
		done < "$manifest"
	fi
	for f in $files; do
		if ! cmp -s "$stage/$f" "$src/$f"; then
			mkdir -p "$src/$(dirname "$f")"
			cp "$stage/$f" "$src/$f"
		fi
	done
	echo "$files" > "$manifest"
	flock -u 9
done
exec 7> "$build.lock"
flock -x 7
# built meanwhile by the holder of its lock
if up_to_date; then
	log "up to date: $build"
	echo "$build/arch/x86/boot/bzImage"
	exit 0
fi

# The retain, bench and flight kernels are the QEMU kernel and
# a sample or a few options more:
# start from a copy of that build, so that only what differs is compiled;
# and again when the QEMU kernel's fragments change (an option most of
# the tree depends on would otherwise be a whole build of each), once
# the QEMU kernel is built with them.
qemu_build=$cache/build-$tag-qemu
if [ "$flavor" != qemu ] && [ "$flavor" != debug ] && [ -d "$build" ] &&
	[ "$(cat "$build/.kmf-base" 2>/dev/null)" != "$base" ] &&
	[ "$(cat "$qemu_build/.kmf-base" 2>/dev/null)" = "$base" ]; then
	log "the QEMU kernel's fragments changed: seeding $build again"
	rm -rf "$build"
fi
if [ "$flavor" != qemu ] && [ "$flavor" != debug ] && [ ! -d "$build" ] &&
	[ -f "$qemu_build/arch/x86/boot/bzImage" ]; then
	log "seeding $build from $qemu_build"
	rm -rf "$build.tmp"
	# not while the QEMU kernel is being made, or W=1-compiled
	exec 6> "$qemu_build.lock"
	flock -s 6
	cp -a "$qemu_build" "$build.tmp"
	exec 6>&-
	mv "$build.tmp" "$build"
fi
mkdir -p "$build"
rm -f "$build/.kmf-stamp"
make -s -C "$src" O="$build" tinyconfig >/dev/null
cfgs=
for c in $frags; do cfgs="$cfgs $repo/Kconfig/$c"; done
# shellcheck disable=SC2086
(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$build" "$build/.config" $cfgs >/dev/null)
make -s -C "$src" O="$build" olddefconfig >/dev/null
# Every option the fragments set is set, every one they unset is not; a
# later fragment overrides an earlier one (the debug kernel unsets
# compaction).  The loop runs in a subshell: its status is the pipeline's.
for c in $frags; do
	grep -E '^CONFIG_[A-Z0-9_]+=y$|^# CONFIG_[A-Z0-9_]+ is not set$' "$repo/Kconfig/$c" |
		sed "s|^|$c |"
done | awk '{ if ($2 == "#") { o = $3; v = "n" } else { split($2, a, "="); o = a[1]; v = "y" }
		if (!(o in f)) ord[++n] = o
		f[o] = $1; w[o] = v }
	END { for (i = 1; i <= n; i++) print f[ord[i]], ord[i], w[ord[i]] }' |
while read -r c opt v; do
	if [ "$v" = y ]; then
		grep -qx "$opt=y" "$build/.config" || {
			log "$c: $opt=y did not stick in .config (missing dependency?)"
			exit 1
		}
	elif grep -q "^$opt=" "$build/.config"; then
		log "$c: $opt is still set in .config (selected by another option?)"
		exit 1
	fi
done || exit 1
# A build cut off while it compressed the image leaves a truncated
# vmlinux.bin.xz newer than its input, which make then takes as done
# (the stamp is written only at the end, so the next run comes here):
# compress and link the image again, a few seconds.
rm -f "$build/arch/x86/boot/bzImage" "$build"/arch/x86/boot/compressed/vmlinux.bin*
log "building $flavor kernel in $build (a cold build takes ~10 min)"
make -C "$src" O="$build" -j"$(nproc)" bzImage > "$build/kmf-build.log" 2>&1 || {
	grep -E 'error|Error' "$build/kmf-build.log" | head -30 >&2
	log "kernel build failed; full log: $build/kmf-build.log"
	exit 1
}
echo "$base" > "$build/.kmf-base"
echo "$inputs" > "$build/.kmf-stamp"
echo "$build/arch/x86/boot/bzImage"

#!/bin/sh
# Kernel-side quality gates: checkpatch --strict on the format-patch
# series, a W=1 build of the recorder, kernel-doc, and `git am` of the
# series onto the pristine 6.12 tree.  Prints "style: N passed, N failed".
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${KMF_CACHE:-$HOME/.cache/kmemflight}
out=$repo/build/kernel-style
mkdir -p "$out"
suite=style
# shellcheck source=qemu-tests/check.sh
. "$repo/qemu-tests/check.sh"

# build-kernel.sh prepares the patched tree and the pristine git history
"$repo/qemu-tests/build-kernel.sh" qemu > /dev/null || exit 1
"$repo/qemu-tests/build-kernel.sh" retain > /dev/null || exit 1
"$repo/qemu-tests/build-kernel.sh" flight > /dev/null || exit 1
tag=$(dpkg-query -W -f='${Version}' linux-source-6.12 | tr '~' '_')
src=$cache/src-$tag
build=$cache/build-$tag-qemu
retain=$cache/build-$tag-retain
flight=$cache/build-$tag-flight

series() {
	"$repo/kernel-patch/format-patch.sh" "$src" "$out/series"
}

checkpatch_series() {
	rc=0
	for p in "$out"/series/00[0-9][1-9]-*.patch; do
		"$src/scripts/checkpatch.pl" --strict --no-tree --quiet "$p" || rc=1
	done
	return $rc
}

w1_build() {	# the recorder, and the samples in the kernels that have them
	rm -f "$build/mm/kmemtrace.o" "$build/samples/kmemtrace/kmemtrace-stress.o" \
		"$retain/samples/kmemtrace/kmemtrace-retain.o" \
		"$flight/samples/kmemtrace/kmemtrace-leak.o"
	{ make -s -C "$src" O="$build" W=1 mm/kmemtrace.o samples/kmemtrace/kmemtrace-stress.o &&
	  make -s -C "$src" O="$retain" W=1 samples/kmemtrace/kmemtrace-retain.o &&
	  make -s -C "$src" O="$flight" W=1 samples/kmemtrace/kmemtrace-leak.o; } 2>&1 |
		tee "$out/w1.log"
	[ -f "$build/samples/kmemtrace/kmemtrace-stress.o" ] &&
	[ -f "$retain/samples/kmemtrace/kmemtrace-retain.o" ] &&
	[ -f "$flight/samples/kmemtrace/kmemtrace-leak.o" ] &&
		! grep -q 'warning:\|error:' "$out/w1.log"
}

kernel_doc() {
	"$src/scripts/kernel-doc" -none -Wall "$src/mm/kmemtrace.c" \
		"$src/include/uapi/linux/kmemtrace.h" 2>&1 | tee "$out/kdoc.log"
	! grep -q . "$out/kdoc.log"
}

git_am() {	# apply the series to a sparse clone of the pristine tree
	rm -rf "$out/am"
	git clone -q --shared --no-checkout "$src" "$out/am" &&
	git -C "$out/am" sparse-checkout set --no-cone /mm/ /include/uapi/linux/ \
		/include/linux/kmemtrace.h /Documentation/trace/ /Documentation/ABI/testing/ \
		/samples/Kconfig /samples/Makefile /samples/kmemtrace/ \
		/Documentation/admin-guide/kernel-parameters.txt /MAINTAINERS &&
	git -C "$out/am" checkout -q &&
	git -C "$out/am" -c user.name=t -c user.email=t@localhost am -q "$out"/series/00[0-9][1-9]-*.patch &&
	git -C "$out/am" log --oneline -4 &&
	for f in $("$repo/kernel-patch/apply.sh" --files); do
		cmp "$out/am/$f" "$src/$f" || return 1
	done
}

check "format-patch series is generated" series
check "checkpatch.pl --strict is clean on every patch" checkpatch_series
check "mm/kmemtrace.o and the retain, stress and leak samples build clean with W=1" w1_build
check "kernel-doc has no warnings" kernel_doc
check "the series applies to pristine 6.12 with git am and matches the tree" git_am
check_done

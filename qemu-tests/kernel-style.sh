#!/bin/sh
# Kernel-side quality gates: checkpatch --strict on the format-patch
# series, a W=1 build of the recorder, kernel-doc, `git am` of the
# series onto the pristine 6.12 tree, and each patch applied in turn to a
# whole tree, building the objects it touches, and those objects again
# with PREEMPT_RT.  Prints "style: N passed, N failed".
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

# The series' patches in order, the cover letter (0000-) left out.
patches() {
	for p in "$out"/series/[0-9][0-9][0-9][0-9]-*.patch; do
		case $(basename "$p") in 0000-*) ;; *) echo "$p" ;; esac
	done
}

# checkpatch asks "does MAINTAINERS need updating?" of every patch that
# adds a file without touching MAINTAINERS, even where the entry covers
# it already (mm/kmemtrace/ from the second patch on): that question is
# answered exactly by maintained() below, per patch, instead.
checkpatch_series() {
	rc=0
	for p in $(patches); do
		"$src/scripts/checkpatch.pl" --strict --no-tree --quiet \
			--ignore FILE_PATH_CHANGES "$p" || rc=1
	done
	return $rc
}

w1_build() {	# the recorder, and the samples in the kernels that have them
	# in build-kernel.sh's trees, under its locks in its order: the
	# sources shared, then the build directories exclusively, the QEMU
	# kernel's last (prebuild.sh may be seeding another flavour from
	# it, or building one)
	exec 8> "$cache/.src.lock" 5> "$build.lock" 4> "$retain.lock" 3> "$flight.lock"
	if ! { flock -s 8 && flock -x 3 && flock -x 4 && flock -x 5; }; then
		exec 8>&- 5>&- 4>&- 3>&-
		return 1
	fi
	rm -f "$build"/mm/kmemtrace/*.o "$build/samples/kmemtrace/kmemtrace-stress.o" \
		"$retain/samples/kmemtrace/kmemtrace-retain.o" \
		"$flight/samples/kmemtrace/kmemtrace-leak.o"
	{ make -s -C "$src" O="$build" W=1 mm/kmemtrace/ samples/kmemtrace/kmemtrace-stress.o &&
	  make -s -C "$src" O="$retain" W=1 samples/kmemtrace/kmemtrace-retain.o &&
	  make -s -C "$src" O="$flight" W=1 samples/kmemtrace/kmemtrace-leak.o; } 2>&1 |
		tee "$out/w1.log"
	exec 8>&- 5>&- 4>&- 3>&-
	for f in "$src"/mm/kmemtrace/*.c; do
		o=$(basename "$f" .c).o
		[ -f "$build/mm/kmemtrace/$o" ] || { echo "mm/kmemtrace/$o was not built"; return 1; }
	done
	[ -f "$build/samples/kmemtrace/kmemtrace-stress.o" ] &&
	[ -f "$retain/samples/kmemtrace/kmemtrace-retain.o" ] &&
	[ -f "$flight/samples/kmemtrace/kmemtrace-leak.o" ] &&
		! grep -q 'warning:\|error:' "$out/w1.log"
}

kernel_doc() {
	"$src/scripts/kernel-doc" -none -Wall "$src"/mm/kmemtrace/*.[ch] \
		"$src/include/linux/kmemtrace.h" \
		"$src/include/uapi/linux/kmemtrace.h" \
		"$src/arch/x86/include/asm/kmemtrace.h" 2>&1 | tee "$out/kdoc.log"
	! grep -q . "$out/kdoc.log"
}

# shellcheck disable=SC2046 # $(patches): a word per patch, no spaces in the names
git_am() {	# apply the series to a sparse clone of the pristine tree
	rm -rf "$out/am"
	git clone -q --shared --no-checkout "$src" "$out/am" &&
	git -C "$out/am" sparse-checkout set --no-cone /mm/ /include/uapi/linux/ \
		/include/linux/kmemtrace.h /Documentation/trace/ /Documentation/ABI/testing/ \
		/samples/Kconfig /samples/Makefile /samples/kmemtrace/ \
		/Documentation/admin-guide/kernel-parameters.txt /MAINTAINERS &&
	git -C "$out/am" checkout -q &&
	git -C "$out/am" -c user.name=t -c user.email=t@localhost am -q $(patches) &&
	git -C "$out/am" log --oneline -4 &&
	for f in $("$repo/kernel-patch/apply.sh" --files); do
		cmp "$out/am/$f" "$src/$f" || return 1
	done
}

# The KMEMTRACE entry's F: patterns in TREE's MAINTAINERS, one a line.
entry_files() {
	awk '$0 == "KMEMTRACE BOOT-TIME KERNEL MEMORY FLIGHT RECORDER" { e = 1 }
		e && /^$/ { e = 0 }
		e && /^F:/ { print $2 }' "$1/MAINTAINERS"
}

maintained() {	# TREE FILE: an F: pattern of the entry covers FILE
	entry_files "$1" | while read -r pat; do
		# shellcheck disable=SC2254 # an F: pattern is a glob
		case $pat in
		*/) case $2 in "$pat"*) echo yes ;; esac ;;
		*) case $2 in $pat) echo yes ;; esac ;;
		esac
	done | grep -q yes
}

# Each patch in turn on a whole pristine tree, configured as the QEMU
# kernel with every sample: the files it adds are in the MAINTAINERS
# entry, and the objects of the C files it adds or edits build with W=1
# and no warning.  The recorder is built from the patch that hooks it
# into mm; before it, each patch's own objects are built on their own.
each_patch_builds() {
	t=$cache/series-$tag
	b=$cache/series-build-$tag
	if [ ! -d "$t/.git" ]; then
		rm -rf "$t"
		git clone -q --shared "$src" "$t" || return 1
	fi
	base=$(git -C "$src" rev-parse HEAD)
	git -C "$t" checkout -q --detach "$base" && git -C "$t" reset -q --hard "$base" &&
		git -C "$t" clean -qfdx || return 1
	mkdir -p "$b"
	rc=0
	configured=
	for p in $(patches); do
		name=$(basename "$p" .patch)
		git -C "$t" -c user.name=t -c user.email=t@localhost am -q "$p" || {
			echo "$name: does not apply"
			return 1
		}
		for f in $(git -C "$t" diff --diff-filter=A --name-only HEAD~1 HEAD); do
			maintained "$t" "$f" || { echo "$name: $f is not in the MAINTAINERS entry"; rc=1; }
		done
		objs=$(git -C "$t" diff --diff-filter=AM --name-only HEAD~1 HEAD -- \
			'arch/*.c' 'kernel/*.c' 'mm/*.c' 'samples/*.c' | objects_of)
		[ -n "$objs" ] || { echo "$name: no C file"; continue; }
		# every sample (the leak sample wants ZONE_DMA), again at each
		# patch that changes a Kconfig file, from the QEMU kernel's
		# .config each time: olddefconfig drops the options a tree
		# does not have yet (CONFIG_KMEMTRACE before mm/Kconfig.debug
		# has it).  Only then: a new .config makes every object's build
		# configure the tree again.
		if [ -z "$configured" ] ||
			git -C "$t" diff --name-only HEAD~1 HEAD | grep -q 'Kconfig'; then
			cp "$build/.config" "$b/.config"
			"$t/scripts/config" --file "$b/.config" --enable SAMPLES --enable ZONE_DMA \
				--enable SAMPLE_KMEMTRACE_RETAIN --enable SAMPLE_KMEMTRACE_BENCH \
				--enable SAMPLE_KMEMTRACE_BENCH_RB \
				--enable SAMPLE_KMEMTRACE_STRESS --enable SAMPLE_KMEMTRACE_LEAK
			make -s -C "$t" O="$b" olddefconfig > "$b/config.log" 2>&1 ||
				{ cat "$b/config.log"; return 1; }
			configured=1
		fi
		# shellcheck disable=SC2086 # a list of objects
		(cd "$b" && rm -f $objs)
		# shellcheck disable=SC2086
		make -s -C "$t" O="$b" -j"$(nproc)" W=1 $objs > "$b/build.log" 2>&1
		if grep -q 'warning:\|error:' "$b/build.log"; then
			echo "$name:"
			grep 'warning:\|error:' "$b/build.log" | head -20
			rc=1
		fi
		for o in $objs; do
			[ -f "$b/$o" ] || { echo "$name: $o was not built"; rc=1; }
		done
		echo "$name: $(echo "$objs" | tr '\n' ' ')"
	done
	return $rc
}

# Each sample on its own, as a user configures one: the kernel built
# with only that sample, and the sample it depends on (on the tree
# each_patch_builds left at the end of the series), links its object in.
samples_alone() {
	t=$cache/series-$tag
	b=$cache/series-build-$tag
	opts=$(sed -n 's/^config \(SAMPLE_KMEMTRACE_[A-Z_]*\)$/\1/p' "$t/samples/Kconfig")
	[ -n "$opts" ] || { echo "no SAMPLE_KMEMTRACE_ option in samples/Kconfig"; return 1; }
	rc=0
	for o in $opts; do
		dep=$(sed -n "/^config $o\$/,/^config /s/.*depends on.*\(SAMPLE_KMEMTRACE_[A-Z_]*\).*/\1/p" \
			"$t/samples/Kconfig")
		for x in $opts; do
			if [ "$x" = "$o" ] || [ "$x" = "$dep" ]; then
				"$t/scripts/config" --file "$b/.config" --enable "$x"
			else
				"$t/scripts/config" --file "$b/.config" --disable "$x"
			fi
		done
		# make configures the tree from the edited .config itself
		# (syncconfig, as olddefconfig would); the samples' objects
		# built for another option are kept, the archive is made again
		rm -f "$b/samples/kmemtrace/built-in.a"
		make -s -C "$t" O="$b" -j"$(nproc)" samples/ > "$b/samples.log" 2>&1 || {
			cat "$b/samples.log"; rc=1; continue; }
		grep -qx "CONFIG_$o=y" "$b/.config" || { echo "$o: not set"; rc=1; continue; }
		obj=$(echo "$o" | sed 's/^SAMPLE_KMEMTRACE_//' | tr '[:upper:]_' '[:lower:]-')
		if ar t "$b/samples/kmemtrace/built-in.a" 2>/dev/null | grep -q "/kmemtrace-$obj\.o$"; then
			echo "$o alone: kmemtrace-$obj.o is built in"
		else
			echo "$o alone: kmemtrace-$obj.o is not built in (samples/Makefile does not enter samples/kmemtrace/)"
			rc=1
		fi
	done
	return $rc
}

# PREEMPT_RT, where spinlock_t and rwlock_t sleep: every object of the
# patch (the recorder, the mm files it hooks, the samples) built W=1 on
# the whole series with PREEMPT_RT, CGROUPS (the task probes' cgroup
# code) and DEBUG_ATOMIC_SLEEP; compile only, from the series' config.
preempt_rt_build() {
	t=$cache/series-$tag
	b=$cache/series-build-$tag
	rt=$cache/series-rt-build-$tag
	mkdir -p "$rt"
	cp "$b/.config" "$rt/.config"
	"$t/scripts/config" --file "$rt/.config" --enable EXPERT --enable PREEMPT_RT \
		--enable CGROUPS --enable DEBUG_ATOMIC_SLEEP --enable DEBUG_KERNEL
	make -s -C "$t" O="$rt" olddefconfig > "$rt/config.log" 2>&1 || { cat "$rt/config.log"; return 1; }
	for o in PREEMPT_RT CGROUPS DEBUG_ATOMIC_SLEEP KMEMTRACE; do
		grep -qx "CONFIG_$o=y" "$rt/.config" || { echo "CONFIG_$o is not set"; return 1; }
	done
	objs=$("$repo/kernel-patch/apply.sh" --files | objects_of)
	# shellcheck disable=SC2086 # a list of objects
	(cd "$rt" && rm -f $objs)
	# shellcheck disable=SC2086
	make -s -C "$t" O="$rt" -j"$(nproc)" W=1 $objs > "$rt/build.log" 2>&1
	rc=0
	# kernel-doc's complaints (FILE:LINE: warning:, no column) about a
	# file of drivers/ or net/ that the series only edits are the
	# file's own: 6.12's drivers/base/core.c has two
	grep 'warning:\|error:' "$rt/build.log" |
		grep -vE '/(drivers|net)/[^:]*\.c:[0-9]+: warning: ' > "$rt/warnings"
	if [ -s "$rt/warnings" ]; then
		head -20 "$rt/warnings"
		rc=1
	fi
	for o in $objs; do
		[ -f "$rt/$o" ] || { echo "$o was not built"; rc=1; }
	done
	echo "PREEMPT_RT: $(echo "$objs" | wc -l) objects"
	return $rc
}

check "format-patch series is generated" series
check "checkpatch.pl --strict is clean on every patch" checkpatch_series
check "mm/kmemtrace/ and the retain, stress and leak samples build clean with W=1" w1_build
check "kernel-doc has no warnings" kernel_doc
check "the series applies to pristine 6.12 with git am and matches the tree" git_am
check "each patch applies in turn and builds its objects with W=1; its new files are maintained" each_patch_builds
check "each sample built on its own is linked in" samples_alone
check "the patch's objects build with PREEMPT_RT, W=1 clean" preempt_rt_build
check_done

#!/bin/sh
# The series under a distribution's configuration: Debian's own amd64
# config (the linux-config-6.12 package), PREEMPT_DYNAMIC, MEMCG, KFENCE,
# SLUB debug, CPU hotplug, lockdown and the rest, with CONFIG_KMEMTRACE=y
# and with CONFIG_KMEMTRACE=n.  Compiles the recorder, its samples and
# every object the series edits (arch/x86/kernel/tsc.o among them) or
# that includes a header it edits, with W=1, in three trees: the
# pristine 6.12 source, and the patched one with the recorder on and off.
# Not the whole kernel: olddefconfig, make prepare, then those objects.
#
# Checks: no warning in the patched objects that the pristine ones do not
# have, on and off; with the recorder off, every object the same size,
# section by section, with the same symbols, and nothing of kmemtrace in
# it (the hooks compile away).  Prints "distro-config: N passed, N failed".
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${KMF_CACHE:-$HOME/.cache/kmemflight}
out=$repo/build/distro-config
suite=distro-config
rm -rf "$out"
mkdir -p "$out"
# shellcheck source=qemu-tests/check.sh
. "$repo/qemu-tests/check.sh"

log() { echo "distro-config: $*" >&2; }

# build-kernel.sh unpacks the source into a git repository whose HEAD is
# pristine 6.12; its working files belong to the QEMU builds.
"$repo/qemu-tests/build-kernel.sh" qemu > /dev/null || exit 1
tag=$(dpkg-query -W -f='${Version}' linux-source-6.12 | tr '~' '_')
src=$cache/src-$tag
config=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
[ -f "$config" ] || {
	log "no $config: apt-get install linux-config-6.12 (qemu-tests/deps.sh)"
	echo "not ok 1 - $suite: Debian's configuration is installed"
	check_done
	exit 1
}
top=$cache/distro-$tag
mkdir -p "$top"
jobs=$(nproc)

# The pristine tree, once per source version.  The patched tree is a
# hard-linked copy with the series applied (patch replaces a file rather
# than writing into it, and the files it adds are copied), made again
# when the series changes.
if [ ! -f "$top/pristine.stamp" ]; then
	log "unpacking the pristine tree (once per source version)"
	rm -rf "$top/pristine"
	mkdir -p "$top/pristine"
	git -C "$src" archive HEAD | tar -x -C "$top/pristine" || exit 1
	touch "$top/pristine.stamp"
fi
files=$("$repo/kernel-patch/apply.sh" --files)
key=$( (for f in $files; do
		[ -f "$repo/kernel-patch/$f" ] && cat "$repo/kernel-patch/$f"
	done
	cat "$repo"/kernel-patch/patches/*.patch) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$top/patched.stamp" 2>/dev/null)" != "$key" ]; then
	log "applying the series to a copy of the pristine tree"
	rm -rf "$top/patched" "$top/patched.stamp"
	cp -al "$top/pristine" "$top/patched" || exit 1
	for f in $files; do
		if [ -f "$top/patched/$f" ]; then
			cp --remove-destination "$top/pristine/$f" "$top/patched/$f" || exit 1
		fi
	done
	"$repo/kernel-patch/apply.sh" "$top/patched" || exit 1
	echo "$key" > "$top/patched.stamp"
fi

# The objects: the recorder and its samples, and every mm/ file that
# includes a header the series edits (mm/slab.h) or that it edits itself,
# if the configuration builds it (configured: below).
# And the files the series edits outside mm/ (arch/x86/kernel/tsc.c,
# kernel/fork.c, kernel/sched/clock.c in build_utility.o, the wrappers
# in lib/, drivers/base/ and net/core/).
candidates=$( (cd "$top/patched" && grep -l '^#include "slab.h"' mm/*.c
	"$repo/kernel-patch/apply.sh" --files | grep -E '^(mm|arch|kernel|lib|drivers|net)/.*\.c$' |
		grep -v '^mm/kmemtrace/') | objects_of | LC_ALL=C sort -u)
samples="samples/kmemtrace/kmemtrace-retain.o samples/kmemtrace/kmemtrace-bench.o samples/kmemtrace/kmemtrace-bench-rb.o samples/kmemtrace/kmemtrace-stress.o samples/kmemtrace/kmemtrace-leak.o"

# Debian's configuration, made buildable in a plain tree: the trusted and
# revocation keys name files of Debian's packaging (debian/certs/...), and
# debug info and BTF only slow the compile (BTF needs pahole and a whole
# vmlinux); none of them changes what the compiler says about the code.
configure() {	# TREE BUILD y|n|pristine
	mkdir -p "$2"
	xz -dc "$config" > "$2/.config.new"
	if ! cmp -s "$2/.config.new" "$2/.config.debian" 2>/dev/null ||
	   [ ! -f "$2/.config" ]; then
		cp "$2/.config.new" "$2/.config.debian"
		cp "$2/.config.new" "$2/.config"
	fi
	rm -f "$2/.config.new"
	c="$1/scripts/config --file $2/.config"
	$c --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--disable DEBUG_INFO_BTF --disable DEBUG_INFO_DWARF5 \
		--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --enable DEBUG_INFO_NONE
	# Debian leaves memory allocation profiling off, Fedora has it on:
	# it renames the slab and page entry points (the *_noprof ones) and
	# wraps their callers, which is where the recorder hooks in
	$c --enable MEM_ALLOC_PROFILING
	case $3 in
	y) $c --enable KMEMTRACE --enable SAMPLES --enable SAMPLE_KMEMTRACE_RETAIN \
		--enable SAMPLE_KMEMTRACE_BENCH --enable SAMPLE_KMEMTRACE_BENCH_RB \
		--enable SAMPLE_KMEMTRACE_STRESS \
		--enable SAMPLE_KMEMTRACE_LEAK ;;
	n) $c --disable KMEMTRACE ;;
	esac
	make -s -C "$1" O="$2" olddefconfig > "$2/kmf-config.log" 2>&1 || {
		cat "$2/kmf-config.log"
		return 1
	}
}

compile() {	# TREE BUILD OBJECTS...: make prepare, then W=1 objects
	t=$1
	b=$2
	shift 2
	start=$(date +%s)
	make -s -C "$t" O="$b" -j"$jobs" prepare > "$b/kmf-prepare.log" 2>&1 || {
		tail -30 "$b/kmf-prepare.log"
		return 1
	}
	# every object again, so that its warnings are in this run's log
	for o in "$@"; do rm -f "$b/$o"; done
	make -C "$t" O="$b" -j"$jobs" W=1 "$@" > "$b/kmf-objects.log" 2>&1
	rc=$?
	log "$(basename "$b"): $(($(date +%s) - start)) s for prepare and $# objects (rc $rc)"
	[ $rc -eq 0 ] || { grep -E 'error|Error' "$b/kmf-objects.log" | head -30; return 1; }
	for o in "$@"; do
		[ -f "$b/$o" ] || { echo "$o was not built"; return 1; }
	done
}

warnings() {	# BUILD: the compiler's warnings, without line and column
	# (the series moves lines); host tools' (genksyms' parse.y) are not
	# the objects', and appear only in the run that builds them
	grep -E '^[^ :]+:[0-9]+:[0-9]+: (warning|error):' "$1/kmf-objects.log" |
		sed -E 's#^.*/((mm|include|samples|arch|kernel|lib|drivers|net)/[^:]*):[0-9]+:[0-9]+:#\1:#' |
		LC_ALL=C sort
}

new_warnings() {	# BUILD: warnings the pristine build of the same objects lacks
	[ -f "$out/built" ] || { echo "not built"; return 1; }
	warnings "$top/build-pristine" > "$out/pristine.warnings"
	warnings "$1" > "$out/$(basename "$1").warnings"
	echo "pristine: $(wc -l < "$out/pristine.warnings") warnings;" \
		"$(basename "$1"): $(wc -l < "$out/$(basename "$1").warnings")"
	LC_ALL=C comm -13 "$out/pristine.warnings" "$out/$(basename "$1").warnings" > "$out/new"
	cat "$out/new"
	[ ! -s "$out/new" ]
}

configured() {	# BUILD OBJECT...: those their directory's Makefile builds in that .config
	cb=$1
	shift
	for o in "$@"; do
		# the Makefile's assignments, continuation lines joined: VAR OP OBJS...
		sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$top/pristine/$(dirname "$o")/Makefile" > "$out/dir.mk"
		awk -v o="$(basename "$o")" '{ for (i = 3; i <= NF; i++) if ($i == o) print $1 }' "$out/dir.mk" |
		while read -r v; do
			# obj-y, and lists mm/Makefile adds to it (page-alloc-y,
			# mmu-$(CONFIG_MMU)); mmu-y is the !MMU list it replaces
			case $v in
			mmu-y) ;;
			*-y) echo "$o" ;;
			*-\$\(CONFIG_*\))
				c=${v#*\$\(}
				grep -qx "${c%\)}=y" "$cb/.config" && echo "$o" ;;
			esac
		done
	done | LC_ALL=C sort -u
}

# shellcheck disable=SC2086 # $objs and $samples are lists of objects
build_all() {
	configure "$top/pristine" "$top/build-pristine" pristine &&
	configure "$top/patched" "$top/build-on" y &&
	configure "$top/patched" "$top/build-off" n || return 1
	# shellcheck disable=SC2086
	objs=$(configured "$top/build-pristine" $candidates)
	echo $objs > "$out/objs"
	[ -n "$objs" ] &&
	grep -qx 'CONFIG_KMEMTRACE=y' "$top/build-on/.config" &&
	grep -qx 'CONFIG_SAMPLE_KMEMTRACE_STRESS=y' "$top/build-on/.config" &&
	grep -qx 'CONFIG_SAMPLE_KMEMTRACE_LEAK=y' "$top/build-on/.config" &&
	grep -qx '# CONFIG_KMEMTRACE is not set' "$top/build-off/.config" &&
	! grep -q '^# CONFIG_KMEMTRACE is not set' "$top/build-pristine/.config" &&
	compile "$top/pristine" "$top/build-pristine" $objs &&
	kmt=$(cd "$top/patched" && find mm/kmemtrace -name '*.c' | LC_ALL=C sort | sed 's/\.c$/.o/')
	compile "$top/patched" "$top/build-on" $kmt $objs $samples &&
	compile "$top/patched" "$top/build-off" $objs &&
	echo "objects:" $kmt $objs "$samples" &&
	touch "$out/built"
}

config_is_debian() {	# the options that matter here, as Debian sets them
	for o in PREEMPT_DYNAMIC MEMCG KFENCE SLUB_DEBUG HOTPLUG_CPU \
		SECURITY_LOCKDOWN_LSM MEM_ALLOC_PROFILING FTRACE; do
		grep "^CONFIG_$o=" "$top/build-on/.config" || { echo "CONFIG_$o is not set"; return 1; }
	done
	grep '^CONFIG_NR_CPUS=' "$top/build-on/.config"
}

sections() {	# OBJECT: its sections and their sizes
	size -A -d "$1" | awk 'NF == 3 && $2 ~ /^[0-9]+$/ { print $1, $2 }' | LC_ALL=C sort
}

symbols() {	# OBJECT: its symbols and their types
	# An initcall's symbol holds the line of its definition
	# (__initcall__kmod_MOD__COUNTER_LINE_FN): the series moves lines.
	# Numbers from counters say nothing of the code: __UNIQUE_ID's
	# (__COUNTER__, which an inline function of an included header
	# advances: READ_ONCE() asserts at compile time) and the compiler's
	# suffix of a function's static variables (__func__.N).
	nm "$1" | awk '{ print $NF, $(NF - 1) }' |
		sed -E -e 's/^(__initcall__kmod_[a-z0-9_]*__)[0-9]+_[0-9]+_/\1N_LINE_/' \
			-e 's/^(__UNIQUE_ID_[A-Za-z0-9_]*[A-Za-z_])[0-9]+/\1N/' \
			-e 's/\.[0-9]+ /.N /' | LC_ALL=C sort
}

compiles_away() {	# off: same sections, sizes and symbols as pristine, no kmemtrace
	[ -f "$out/built" ] || { echo "not built"; return 1; }
	objs=$(cat "$out/objs")
	rc=0
	for o in $objs; do
		[ "$o" != mm/memblock.o ] || continue	# memblock_caller_only
		p=$top/build-pristine/$o
		f=$top/build-off/$o
		if ! sections "$p" > "$out/p.sec" || ! sections "$f" > "$out/f.sec" ||
		   ! cmp -s "$out/p.sec" "$out/f.sec"; then
			echo "$o: sections differ:"
			diff "$out/p.sec" "$out/f.sec"
			rc=1
		fi
		symbols "$p" > "$out/p.sym"
		symbols "$f" > "$out/f.sym"
		if ! cmp -s "$out/p.sym" "$out/f.sym"; then
			echo "$o: symbols differ:"
			diff "$out/p.sym" "$out/f.sym"
			rc=1
		fi
		if grep -qi 'kmt_\|kmemtrace' "$out/f.sym"; then
			echo "$o: kmemtrace symbols:"
			grep -i 'kmt_\|kmemtrace' "$out/f.sym"
			rc=1
		fi
		echo "$o: $(awk '$1 == ".text" { print $2 }' "$out/f.sec") bytes of .text, $(wc -l < "$out/f.sym") symbols, as pristine"
	done
	return $rc
}

# mm/memblock.o does not compile away: the series passes the first caller
# outside memblock down to where a range is reserved or freed, which
# memblock=debug prints too, whether the recorder is built or not (its
# code and its boot strings grow by some hundreds of bytes, most of them
# __init).  Nothing else may differ: only the sections of code and
# strings, one new function, two __func__ strings fewer (the names of
# the functions now wrapped, given as strings), nothing of kmemtrace.
memblock_caller_only() {
	[ -f "$out/built" ] || { echo "not built"; return 1; }
	grep -qw mm/memblock.o "$out/objs" || { echo "mm/memblock.o not built"; return 1; }
	p=$top/build-pristine/mm/memblock.o
	f=$top/build-off/mm/memblock.o
	sections "$p" > "$out/p.sec"
	sections "$f" > "$out/f.sec"
	LC_ALL=C join -a 1 -a 2 -e none -o 0,1.2,2.2 "$out/p.sec" "$out/f.sec" |
		awk '$2 != $3 { print $1 ": " $2 " -> " $3 " bytes"
			if ($1 !~ /^(\.text|\.init\.text|\.rodata|\.rodata\.str1\.[0-9]+|__patchable_function_entries|__mcount_loc)$/)
				bad = 1 }
			END { exit bad }' || return 1
	symbols "$p" > "$out/p.sym"
	symbols "$f" > "$out/f.sym"
	LC_ALL=C comm -3 "$out/p.sym" "$out/f.sym" | sed 's/^\t/new: /; /^new: /!s/^/gone: /' > "$out/memblock.sym"
	cat "$out/memblock.sym"
	printf 'gone: __func__.N r\ngone: __func__.N r\nnew: __memblock_alloc_range_nid t\n' |
		cmp -s - "$out/memblock.sym"
}

check "Debian's config with CONFIG_KMEMTRACE=y and =n, and pristine: prepare and compile with W=1" build_all
check "the configuration is Debian's (PREEMPT_DYNAMIC, MEMCG, KFENCE, SLUB_DEBUG, HOTPLUG_CPU, lockdown), with MEM_ALLOC_PROFILING" \
	config_is_debian
check "CONFIG_KMEMTRACE=y: no warning the pristine objects lack" new_warnings "$top/build-on"
check "CONFIG_KMEMTRACE=n: no warning the pristine objects lack" new_warnings "$top/build-off"
check "CONFIG_KMEMTRACE=n: the hooks compile away (sections, sizes and symbols as pristine)" compiles_away
check "CONFIG_KMEMTRACE=n: mm/memblock.o differs only by the caller it passes down (no data, no kmemtrace)" \
	memblock_caller_only
check_done

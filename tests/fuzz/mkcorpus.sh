#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkcorpus.sh [OUTDIR]: write seed corpora for the libFuzzer targets,
# one directory per target (default tests/fuzz/corpus/<target>/):
#
#   fuzz_trace     whole .kmt files: mktrace basic, swapped, many, nosyms,
#                  in both record formats (ABI 2 and 1), and latency, memblock and
#                  footprint (wrappers, vmalloc), tasks, flight and
#                  gfp612-lockdep (6.12's GFP names) in ABI 2;
#                  zstd, basic with its sections compressed; cut, and
#                  it and many cut short
#   fuzz_cursor    the raw sub-buffers of every CPU section of those files
#   fuzz_previous  those of basic and many, alone and every CPU's back to
#                  back, as tracefs kmemtrace/previous/data gives them
#   fuzz_kallsyms  their KALLSYMS sections, and a hand-written sample
#   fuzz_summary   kmemflight summary of mktrace diff-base and diff-new
#   fuzz_budget    a budget file with every kind of line
#   fuzz_vmlinux   tests/cli/fake-vmlinux.S linked like t0017 does, with
#                  and without DWARF, and the build-id alone
#   fuzz_perfdata  perf kmem record of 'true' on this machine (slab, and
#                  slab and page with callchains), cut short, and the
#                  header alone (needs root and perf)
#
# The corpus is generated, never committed.  MKTRACE overrides the trace
# builder (default build-asan/tests/mktrace, built with make if missing).
#
# Then, e.g.:
#   make fuzz
#   build-fuzz/fuzz_trace -runs=200000 tests/fuzz/corpus/fuzz_trace
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/tests/fuzz/corpus}
mktrace=${MKTRACE:-$root/build-asan/tests/mktrace}

if [ -z "${MKTRACE:-}" ]; then
	# rebuilt only when its sources changed
	make -s -C "$root" build-asan/tests/mktrace >&2
fi

mkdir -p "$out/fuzz_trace" "$out/fuzz_cursor" "$out/fuzz_kallsyms" \
	"$out/fuzz_summary" "$out/fuzz_budget" "$out/fuzz_vmlinux" "$out/fuzz_perfdata"

# uint FILE OFFSET BYTES BIGENDIAN: an unsigned integer from the file
uint() {
	local b v=0 i
	# shellcheck disable=SC2207
	b=($(od -An -v -t u1 -j "$2" -N "$3" "$1"))
	[ "${#b[@]}" -eq "$3" ] || { echo "mkcorpus: $1: short read at $2" >&2; exit 1; }
	if [ "$4" = 1 ]; then
		for ((i = 0; i < $3; i++)); do v=$(( (v << 8) | b[i] )); done
	else
		for ((i = $3 - 1; i >= 0; i--)); do v=$(( (v << 8) | b[i] )); done
	fi
	echo "$v"
}

# extract FILE OFFSET LENGTH > OUT (no pipe: under pipefail, tail would
# die of SIGPIPE whenever head stops reading first)
extract() {
	dd if="$1" iflag=skip_bytes,count_bytes bs=64K skip="$2" count="$3" status=none
}

# split NAME FILE: one seed per CPU section and kallsyms section
split_sections() {
	local name=$1 f=$2 be off nr i type size hsz

	# the header size (32) tells the byte order without the magic
	be=0
	[ "$(uint "$f" 14 2 0)" = 32 ] || be=1
	hsz=$(uint "$f" 14 2 "$be")
	off=$(( (hsz + 7) & ~7 ))
	nr=$(uint "$f" 16 4 "$be")
	for ((i = 0; i < nr; i++)); do
		type=$(uint "$f" "$off" 4 "$be")
		size=$(uint "$f" $((off + 8)) 8 "$be")
		case $type in
		3)	# KMT_SEC_KALLSYMS
			[ "$size" -gt 0 ] &&
				extract "$f" $((off + 16)) "$size" \
					> "$out/fuzz_kallsyms/$name.txt"
			;;
		5)	# KMT_SEC_CPU: skip struct kmt_cpu_section (24 bytes)
			extract "$f" $((off + 16 + 24)) $((size - 24)) \
				> "$out/fuzz_cursor/$name-sec$i"
			;;
		esac
		off=$(( off + 16 + ((size + 7) & ~7) ))
	done
}

for s in basic swapped many nosyms; do
	"$mktrace" "$s" "$out/fuzz_trace/$s.kmt"
	split_sections "$s" "$out/fuzz_trace/$s.kmt"
	# the same in the varint records of recorder ABI 1
	KMT_BUILD_ABI=1 "$mktrace" "$s" "$out/fuzz_trace/$s-abi1.kmt"
	split_sections "$s-abi1" "$out/fuzz_trace/$s-abi1.kmt"
done
# the latency groups', memblock, wrapper, vmalloc, task and flight events exist in ABI 2 only
for s in latency memblock footprint tasks tasks-v0 flight gfp612-lockdep; do
	"$mktrace" "$s" "$out/fuzz_trace/$s.kmt"
	split_sections "$s" "$out/fuzz_trace/$s.kmt"
done

# sections stored as zstd frames: no plain section to split
"$mktrace" zstd "$out/fuzz_trace/zstd.kmt"

# files cut short, which dump and report read in part: many in a
# sub-buffer; cut (two CPUs, then TASKS and CGROUPS) in CPU 1's last
# sub-buffer and in its TASKS section
"$mktrace" cut "$out/fuzz_trace/cut.kmt"
split_sections cut "$out/fuzz_trace/cut.kmt"
head -c $(($(wc -c < "$out/fuzz_trace/many.kmt") / 2)) "$out/fuzz_trace/many.kmt" \
	> "$out/fuzz_trace/many-cut"
for n in 150 40; do
	head -c $(($(wc -c < "$out/fuzz_trace/cut.kmt") - n)) "$out/fuzz_trace/cut.kmt" \
		> "$out/fuzz_trace/cut-$n"
done

# A bare file header claiming one section, so that small inputs reach the
# header checks: basic.kmt's header (this build's magic), its counts
# patched little-endian, as basic.kmt is on the x86 hosts this runs on.
# putle FILE OFFSET BYTES VALUE: store a little-endian integer
putle() {
	local i v=$4 s=""

	for ((i = 0; i < $3; i++)); do
		s+=$(printf '\\x%02x' $((v & 255)))
		v=$((v >> 8))
	done
	# shellcheck disable=SC2059
	printf "$s" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
head -c 32 "$out/fuzz_trace/basic.kmt" > "$out/fuzz_trace/header-only"
putle "$out/fuzz_trace/header-only" 16 4 1
putle "$out/fuzz_trace/header-only" 24 8 32

# What real kallsyms has that the traces do not: modules, weak and data
# symbols, aliases at one address, odd lines.
cat > "$out/fuzz_kallsyms/sample.txt" <<'KALLSYMS'
ffffffff81000000 T _stext
ffffffff81000000 T startup_64
ffffffff81001000 t local_alias
ffffffff81001000 T global_name
ffffffff81002000 W weak_fn
ffffffff81003000 D some_data
ffffffff81004000 b bss_thing
ffffffff81005000 r rodata_thing
ffffffffc0000000 t mod_fn	[mymod]
ffffffffc0001000 T mod_global	[mymod]
0000000000000000 A fixed_percpu_data
ffffffff81006000 T
not a line
ffffffff81007000 t last_without_newline
KALLSYMS
printf 'ffffffff81000000 T a\nffffffff81000000 \0 nul\n' \
	> "$out/fuzz_kallsyms/nul.txt"

# Summaries of two boots, made by the tool this tree builds.
kmf=${KMF:-$root/build-asan/kmemflight}
[ -n "${KMF:-}" ] || make -s -C "$root" build-asan/kmemflight >&2
for s in diff-base diff-new; do
	"$mktrace" "$s" "$out/fuzz_summary/$s.kmt"
	"$kmf" summary "$out/fuzz_summary/$s.kmt" > "$out/fuzz_summary/$s.summary"
	rm "$out/fuzz_summary/$s.kmt"
done
printf 'kmemflight-summary 1\r\nrelease a%%20b\r\n' > "$out/fuzz_summary/crlf"

cat > "$out/fuzz_budget/all.txt" <<'BUDGET'
# every kind of line
total 64K 2%
total 1.5%
callsite foo_init 4K
callsite * 16K 10%
cache kmalloc-64 1M
page new_slab 0
order 3 2G 0.001%
phase exec:/init 18446744073709551615
BUDGET
printf 'callsite a 1\r\ncallsite a 2\n' > "$out/fuzz_budget/dup.txt"

# Kernel images: the CLI tests' stand-in, linked at the default _stext.
img=$(mktemp -d)
as -g -o "$img/dbg.o" "$root/tests/cli/fake-vmlinux.S"
as -o "$img/nodbg.o" "$root/tests/cli/fake-vmlinux.S"
ld -o "$out/fuzz_vmlinux/dwarf" -Ttext=0xffffffff81000000 --build-id=0x00112233 -e _stext "$img/dbg.o"
ld -o "$out/fuzz_vmlinux/nodwarf" -Ttext=0xffffffff81000000 --build-id=0x00112233 -e _stext "$img/nodbg.o"
strip -o "$out/fuzz_vmlinux/stripped" "$out/fuzz_vmlinux/nodwarf"
rm -rf "$img"

# perf.data files, small: the events of 'true', system-wide.
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null || true
perf kmem --slab record -o "$out/fuzz_perfdata/slab" -- true > /dev/null 2>&1
perf kmem --slab --page record -o "$out/fuzz_perfdata/page" -- true > /dev/null 2>&1
head -c 4096 "$out/fuzz_perfdata/page" > "$out/fuzz_perfdata/cut"
head -c 104 "$out/fuzz_perfdata/slab" > "$out/fuzz_perfdata/header"

# previous/data: each CPU's sub-buffers, back to back in CPU order
mkdir -p "$out/fuzz_previous"
for s in basic many; do
	cp "$out"/fuzz_cursor/"$s"-sec* "$out/fuzz_previous/"
	find "$out/fuzz_cursor" -name "$s-sec*" | sort -V | xargs cat > "$out/fuzz_previous/$s-all"
done

for d in fuzz_trace fuzz_cursor fuzz_kallsyms fuzz_summary fuzz_budget fuzz_vmlinux fuzz_perfdata fuzz_previous; do
	echo "$out/$d: $(find "$out/$d" -type f | wc -l) seeds"
done

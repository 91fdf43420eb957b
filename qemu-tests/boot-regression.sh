#!/bin/sh
# The boot regression gate, tested on real boots: two boots of the QEMU
# test kernel, one of the same kernel with the kmemtrace-retain sample
# (1 MiB kept at boot by kmemtrace_retain_init(), Kconfig/retain-test.config)
# and one of the unchanged kernel with log_buf_len=1M (a log buffer that
# memblock reserves in setup_log_buf()).  "kmemflight diff" with its
# default budgets must pass the unchanged kernel, against the other boot
# and against the committed baseline summary, and fail the changed ones
# with that function on top: a slab callsite, a memblock caller.
# Prints "boot-regression: N passed, N failed".
#
#   qemu-tests/boot-regression.sh              the test (CI)
#   qemu-tests/boot-regression.sh --refresh    boot the unchanged kernel and
#                                              rewrite the committed baseline
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/build/qemu-tests/regression
suite=boot-regression
kmf=$repo/build/kmemflight
args="kmemtrace.enable=1 kmemtrace.page_stack=6"
tag=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null | tr '~' '_')
# one baseline per kernel source version: another source is another kernel
baseline=$repo/qemu-tests/baseline/$tag-qemu-2cpu.summary
rm -rf "$out"
mkdir -p "$out"
# shellcheck source=qemu-tests/check.sh
. "$repo/qemu-tests/check.sh"

make -s -C "$repo" build/kmemflight || exit 1
kernel=$("$repo/qemu-tests/build-kernel.sh" qemu) || {
	echo "not ok 1 - $suite: build the QEMU kernel"; check_done; exit 1; }

boot() {	# NAME BZIMAGE: boot 2 vCPUs and save; the save must succeed
	"$repo/qemu-tests/boot.sh" -k "$2" -c 2 -a "$args" "$out/$1" || return 1
	[ "$(cat "$out/$1/save.rc")" = 0 ] || { cat "$out/$1/save.err"; return 1; }
}

if [ "${1:-}" = --refresh ]; then
	boot base "$kernel" || exit 1
	mkdir -p "$(dirname "$baseline")"
	"$kmf" summary "$out/base/boot.kmt" > "$baseline.tmp" && mv "$baseline.tmp" "$baseline" &&
		echo "wrote $baseline ($(wc -c < "$baseline") bytes)"
	exit
fi

retain=$("$repo/qemu-tests/build-kernel.sh" retain) || {
	echo "not ok 1 - $suite: build the kernel with the retain sample"; check_done; exit 1; }

gate() {	# BASE NEW NAME: kmemflight diff with the default budgets
	"$kmf" diff "$1" "$2" > "$out/$3.txt" 2> "$out/$3.err"
	echo $? > "$out/$3.rc"
	"$kmf" diff --json "$1" "$2" > "$out/$3.json" 2>/dev/null
	cat "$out/$3.err"
}

passes() {	# NAME: exit 0, within budget
	sed -n '/^Total retained/,$p' "$out/$1.txt"
	[ "$(cat "$out/$1.rc")" = 0 ] && grep -q '^Budget: within' "$out/$1.txt"
}

boot_all() {
	boot base1 "$kernel" && boot base2 "$kernel" && boot retain "$retain" &&
		args="$args log_buf_len=1M" boot logbuf "$kernel"
}
check "boot the unchanged kernel twice, the kernel with the retain sample, and with log_buf_len=1M" boot_all
if [ ! -f "$out/retain/boot.kmt" ] || [ ! -f "$out/base2/boot.kmt" ]; then
	check_done
	exit 1
fi

gate "$out/base1/boot.kmt" "$out/base2/boot.kmt" unchanged
check "two boots of the unchanged kernel: within the default budgets" passes unchanged

committed_baseline() {
	[ -f "$baseline" ] || {
		echo "no baseline for linux-source-6.12 $tag: run qemu-tests/boot-regression.sh --refresh and commit $baseline"
		return 1
	}
	gate "$baseline" "$out/base1/boot.kmt" baseline && passes baseline
}
check "the unchanged kernel against the committed baseline: within the default budgets" \
	committed_baseline

gate "$out/base1/boot.kmt" "$out/retain/boot.kmt" retained
over() {
	head -8 "$out/retained.txt"
	[ "$(cat "$out/retained.rc")" = 1 ] &&
		grep -q '^Budget: over' "$out/retained.txt" &&
		grep -q '^ total .* | limit 256K and 2% (default)$' "$out/retained.txt" &&
		grep -q '^ callsite kmemtrace_retain_init  *|          0 |    1048576 |    +1048576 |         - | limit 64K and 10% (default)$' \
			"$out/retained.txt"
}
check "the kernel that keeps 1 MiB more fails the gate (exit 1): total and callsite over" over

on_top() {	# the first row of the callsite table is the sample's function
	awk '/^Slab callsites:/ { t = 1; next } t && /^ [^ ]/ && !/^ Callsite / { print; exit }' \
		"$out/retained.txt" | tee "$out/top.txt"
	grep -q '^ kmemtrace_retain_init  *|          0 |    1048576 |    +1048576 |         - |          0 -> 256 |' \
		"$out/top.txt"
}
check "the growth's callsite is on top: kmemtrace_retain_init, +1 MiB in 256 objects" on_top
check "diff --json says over, with the callsite among the budgets exceeded" \
	sh -c "grep -q '\"verdict\": \"over\"' '$out/retained.json' &&
		grep -q '{\"category\": \"callsite\", \"key\": \"kmemtrace_retain_init\", \"base\": 0, \"new\": 1048576, ' '$out/retained.json'"
check "a summary is small enough to commit (< 64 KiB) and diffs like the trace" \
	sh -c "'$kmf' summary '$out/base1/boot.kmt' > '$out/base1.summary' &&
		[ \$(wc -c < '$out/base1.summary') -lt 65536 ] &&
		'$kmf' diff '$out/base1.summary' '$out/retain/boot.kmt' | grep -v '^base:' > '$out/from-summary.txt';
		grep -v '^base:' '$out/retained.txt' | cmp - '$out/from-summary.txt'"

gate "$out/base1/boot.kmt" "$out/logbuf/boot.kmt" logbuf
logbuf_over() {	# exit 1, the memblock row of setup_log_buf over, on top of its table
	sed -n '/^memblock:/,/^$/p' "$out/logbuf.txt"
	[ "$(cat "$out/logbuf.rc")" = 1 ] &&
		grep -q '^ memblock setup_log_buf  *|          0 |  *[0-9]* |  *+[0-9]* |         - | limit 64K and 10% (default)$' \
			"$out/logbuf.txt" &&
		awk '/^memblock:/ { t = 1; next } t && /^ [^ -]/ && !/^ Caller / { print; exit }' \
			"$out/logbuf.txt" | grep -q '^ setup_log_buf  *|          0 |  *[0-9]\{7,\} |'
}
check "log_buf_len=1M fails the gate (exit 1): memblock's setup_log_buf on top, +1 MiB and more" \
	logbuf_over
check_done

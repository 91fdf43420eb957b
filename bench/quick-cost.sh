#!/bin/sh
# The recorder's cost in guest instructions, quickly, for trying a change
# to the probes: bench/run.sh's instruction-counted runs alone (about
# half a minute, not its six).  Two boots of the bench kernel under
# -icount shift=0 at once: the cost loops of bench/guest-cost.sh in boot
# mode (off, kmemflight, ftrace, both) and in flight mode (off, flight,
# ftrace), one round of PAIRS pairs each.  With -i, two more boots, with
# kmemtrace.enable=0 and =1, for the instructions to /init.  bench/run.sh
# takes its instruction counts from here.
#
#   bench/quick-cost.sh [-k BZIMAGE] [-p PAIRS] [-i] OUTDIR
#
# Prints bench/cost.awk's tables (the "event" lines are the cost per
# event), also in OUTDIR/insns.txt and OUTDIR/finsns.txt, and, with -i,
# "init off N M on N M +P %, E events, I per event" (the boots in
# OUTDIR/init0 and OUTDIR/init1).  Fails if the recorder lost an event
# during the loops.  Not a test: nothing passes or fails.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
kernel=
pairs=20000
init=
usage() {
	echo "usage: $0 [-k BZIMAGE] [-p PAIRS] [-i] OUTDIR" >&2
	exit 2
}
while getopts k:p:ih o; do
	case $o in
	k) kernel=$OPTARG ;;
	p) pairs=$OPTARG ;;
	i) init=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
out=$1
mkdir -p "$out"
[ -n "$kernel" ] || kernel=$("$repo/qemu-tests/build-kernel.sh" bench)
make -s -C "$repo" build/kmemflight

cost() {	# NAME STATES SUBBUFS MODE SUBBUF_SIZE
	KMF_QEMU_ARGS="-icount shift=0" "$repo/qemu-tests/boot.sh" -k "$kernel" -c 2 -t 1800 \
		-x "$repo/bench/guest-cost.sh" \
		-a "kmemtrace.enable=1 kmemtrace.mode=$4 kmemtrace.subbufs=$3 kmemtrace.subbuf_size=$5 kmfbench.pairs=$pairs kmfbench.rounds=1 kmfbench.states=$2" \
		"$out/$1" > "$out/$1.log" 2>&1
}
init() {	# ENABLE
	KMF_QEMU_ARGS="-icount shift=0" "$repo/qemu-tests/boot.sh" -k "$kernel" -c 2 \
		-a "kmemtrace.enable=$1 printk.time=1" "$out/init$1" > "$out/init$1.log" 2>&1
}
cost insns off,kmemflight,ftrace,both 1024 boot 131072 &
p1=$!
cost finsns off,flight,ftrace 16 flight 65536 &
p2=$!
rc=0
wait "$p1" || rc=1
wait "$p2" || rc=1
for n in insns finsns; do
	if [ "$rc" != 0 ] || [ "$(cat "$out/$n/hook.rc" 2>/dev/null)" != 0 ]; then
		echo "quick-cost.sh: the $n boot failed; see $out/$n.log" >&2
		exit 1
	fi
	# the recorder must have kept (or, in flight mode, overwritten and
	# counted) everything while the loops ran
	awk '$1 ~ /^[0-9]+$/ && NF >= 4 && $3 != 0 { bad = 1 } END { exit bad }' "$out/$n/hook.out" || {
		echo "quick-cost.sh: the recorder lost events during the $n loops: bigger buffers needed" >&2
		exit 1
	}
done
awk -v pairs="$pairs" -v states=off,kmemflight,ftrace,both -f "$repo/bench/cost.awk" \
	"$out/insns/hook.out" > "$out/insns.txt"
awk -v pairs="$pairs" -v states=off,flight,ftrace -f "$repo/bench/cost.awk" \
	"$out/finsns/hook.out" > "$out/finsns.txt"
cat "$out/insns.txt"
echo
cat "$out/finsns.txt"
[ -n "$init" ] || exit 0
init 0 &
p1=$!
init 1 &
p2=$!
wait "$p1" || true
wait "$p2" || true
at() { sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' "$out/init$1/dmesg" 2>/dev/null; }
off=$(at 0)
on=$(at 1)
if [ -z "$off" ] || [ -z "$on" ]; then
	echo "quick-cost.sh: a boot to /init failed; see $out/init0.log and $out/init1.log" >&2
	exit 1
fi
events=$("$repo/build/kmemflight" info "$out/init1/boot.kmt" | awk '$1 == "total" { print $3 }')
awk -v a="$on" -v b="$off" -v n="${events:-0}" 'BEGIN {
	printf "init off %.0f M on %.0f M +%.2f %%, %d events, %.1f per event\n",
		b * 1000, a * 1000, 100 * (a - b) / b, n, n ? (a - b) * 1e9 / n : 0 }'

#!/bin/sh
# The recorder's cost in guest instructions, quickly, for trying a change
# to the probes: bench/run.sh's instruction-counted runs alone (about
# half a minute, not its six).  Two boots of the bench kernel under
# -icount shift=0 at once: the cost loops of bench/guest-cost.sh in boot
# mode (off, kmemflight, ftrace, both) and in flight mode (off, flight,
# ftrace), one round of PAIRS pairs each.  With -i, PAIRS_INIT (3) more
# pairs of boots, with kmemtrace.enable=0 and =1, for the instructions to
# /init: a pair of 2-vCPU boots is not quite deterministic under icount
# (the recorder-off boot alone moves by a million instructions), so the
# figure is the medians'.  bench/run.sh takes its instruction counts
# from here.
#
#   bench/quick-cost.sh [-k BZIMAGE] [-p PAIRS] [-i] [-n PAIRS_INIT] OUTDIR
#
# Prints bench/cost.awk's tables (the "event" lines are the cost per
# event), also in OUTDIR/insns.txt and OUTDIR/finsns.txt, and, with -i,
# "init off N M on N M +P %, E events, I per event" from the medians,
# then each pair's "+P %" (the boots in OUTDIR/initE-R, E the enable,
# R the pair; OUTDIR/init.txt: the medians in seconds of printk time and
# the events of the first recording boot).  Fails if the recorder lost
# an event during the loops.  Not a test: nothing passes or fails.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
kernel=
pairs=20000
init=
ninit=3
usage() {
	echo "usage: $0 [-k BZIMAGE] [-p PAIRS] [-i] [-n PAIRS_INIT] OUTDIR" >&2
	exit 2
}
while getopts k:p:in:h o; do
	case $o in
	k) kernel=$OPTARG ;;
	p) pairs=$OPTARG ;;
	i) init=1 ;;
	n) ninit=$OPTARG ;;
	*) usage ;;
	esac
done
case $ninit in
''|*[!0-9]*|0) echo "$0: -n wants a number of boot pairs, 1 or more" >&2; exit 2 ;;
esac
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
init() {	# ENABLE PAIR
	KMF_QEMU_ARGS="-icount shift=0" "$repo/qemu-tests/boot.sh" -k "$kernel" -c 2 \
		-a "kmemtrace.enable=$1 printk.time=1" "$out/init$1-$2" > "$out/init$1-$2.log" 2>&1
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
at() { sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' "$out/init$1/dmesg" 2>/dev/null; }
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: > "$out/init0.times"
: > "$out/init1.times"
r=1
while [ "$r" -le "$ninit" ]; do
	init 0 "$r" &
	p1=$!
	init 1 "$r" &
	p2=$!
	wait "$p1" || true
	wait "$p2" || true
	off=$(at "0-$r")
	on=$(at "1-$r")
	if [ -z "$off" ] || [ -z "$on" ]; then
		echo "quick-cost.sh: a boot to /init failed; see $out/init0-$r.log and $out/init1-$r.log" >&2
		exit 1
	fi
	echo "$off" >> "$out/init0.times"
	echo "$on" >> "$out/init1.times"
	r=$((r + 1))
done
off=$(median < "$out/init0.times")
on=$(median < "$out/init1.times")
events=$("$repo/build/kmemflight" info "$out/init1-1/boot.kmt" | awk '$1 == "total" { print $3 }')
echo "$off $on ${events:-0}" > "$out/init.txt"
awk -v a="$on" -v b="$off" -v n="${events:-0}" -v pairs="$ninit" 'BEGIN {
	printf "init off %.0f M on %.0f M +%.2f %%, %d events, %.1f per event (medians of %d pairs)\n",
		b * 1000, a * 1000, 100 * (a - b) / b, n, n ? (a - b) * 1e9 / n : 0, pairs }'
paste "$out/init0.times" "$out/init1.times" |
	awk '{ printf "%s+%.2f %%", (NR > 1 ? ", " : "init pairs: "), 100 * ($2 - $1) / $1 } END { print "" }'

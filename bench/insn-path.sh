#!/bin/sh
# Where the recorder's instructions go: single-step the bench kernel
# through QEMU's gdbstub and name each instruction's function.
#
#   bench/insn-path.sh [-k BZIMAGE] [-S STATE] [-g GATE] [-s SYMBOL]
#                      [-i SKIP] [-n STEPS] [-a CMDLINE] OUTDIR
#
# Boots the bench kernel (qemu-tests/build-kernel.sh bench, or -k) on
# one vCPU with nokaslr, and runs bench/guest-cost.sh in one state
# (STATE: kmemflight by default, the recorder on; off, ftrace, both,
# flight as guest-cost.sh has them).  gdb waits for the bench's loops
# (bench_cpu(), or the function GATE; -g - waits for nothing: the boot's
# path), then for the SKIP+1-th entry of SYMBOL (default kfree,
# 200: past the first pairs' refills; kvfree for the kvmalloc loop), then
# steps STEPS instructions (default 4000) one at a time; QEMU masks
# interrupts and timers while it single-steps, so that what is counted
# is the loop's own path.  The guest runs under -icount shift=0, as the
# bench's boots do: its clock advances with the instructions, not with
# the host's time, which single-stepping stretches a thousandfold (and
# which would put every record's time delta past the fast path's).  Each pc is named from the kernel's
# System.map.
#
# OUTDIR/path.txt: every instruction stepped, "pc function+offset".
# OUTDIR/functions.txt: per function, the instructions stepped in it and
# that count per pass through SYMBOL (the loop's iterations in the
# window), most first; the total last.  Extra kernel command line (-a)
# goes after the bench's own: kmemtrace.mode=flight and the like.
# Needs gdb with Python and a kernel whose samples have the bench.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
kernel=
state=kmemflight
symbol=kfree
gatesym=bench_cpu
skip=200
steps=4000
extra=
usage() {
	echo "usage: $0 [-k BZIMAGE] [-S STATE] [-g GATE] [-s SYMBOL] [-i SKIP] [-n STEPS] [-a CMDLINE] OUTDIR" >&2
	exit 2
}
while getopts k:S:g:s:i:n:a:h o; do
	case $o in
	k) kernel=$OPTARG ;;
	S) state=$OPTARG ;;
	g) gatesym=$OPTARG ;;
	s) symbol=$OPTARG ;;
	i) skip=$OPTARG ;;
	n) steps=$OPTARG ;;
	a) extra=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
case $skip$steps in *[!0-9]*) echo "$0: -i and -n take a number" >&2; exit 2 ;; esac
[ "$steps" -gt 0 ] || { echo "$0: -n must be at least 1" >&2; exit 2; }
case $state in
off|kmemflight|flight|ftrace|both) ;;
*) echo "$0: -S: off, kmemflight, flight, ftrace or both, not '$state'" >&2; exit 2 ;;
esac
command -v gdb > /dev/null || { echo "$0: needs gdb (apt-get install gdb)" >&2; exit 1; }
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)

[ -n "$kernel" ] || kernel=$("$repo/qemu-tests/build-kernel.sh" bench)
map=${kernel%/arch/x86/boot/bzImage}/System.map
[ -f "$map" ] || { echo "$0: no System.map beside $kernel (expected $map)" >&2; exit 1; }
func() { awk -v s="$1" '$3 == s && $2 ~ /^[tTwW]$/ { print $1; exit }' "$map"; }
addr=$(func "$symbol")
[ -n "$addr" ] || { echo "$0: $symbol is not a function in $map" >&2; exit 1; }
gate=0
if [ "$gatesym" != - ]; then
	gate=$(func "$gatesym")
	[ -n "$gate" ] || { echo "$0: $gatesym is not a function in $map (bench_cpu: a kernel without the kmemtrace-bench sample)" >&2; exit 1; }
fi

# a port of our own for the gdbstub: the first free one from 20000 up
port=20000
while ss -ltn "sport = :$port" | grep -q LISTEN; do
	port=$((port + 1))
done

KMF_QEMU_ARGS="-gdb tcp:127.0.0.1:$port -icount shift=0" "$repo/qemu-tests/boot.sh" -k "$kernel" -c 1 -t 1200 \
	-x "$repo/bench/guest-cost.sh" \
	-a "nokaslr kmemtrace.enable=1 kmfbench.pairs=$((skip + steps)) kmfbench.rounds=1 kmfbench.states=$state $extra" \
	"$out/boot" > "$out/boot.log" 2>&1 &
boot=$!

cat > "$out/step.py" <<'EOF'
import bisect, os, sys, time
import gdb

port, gate, addr = (os.environ["KMF_PORT"], int(os.environ["KMF_GATE"], 16),
                    int(os.environ["KMF_ADDR"], 16))
skip, steps = int(os.environ["KMF_SKIP"]), int(os.environ["KMF_STEPS"])
syms = []
with open(os.environ["KMF_MAP"]) as f:
    for line in f:
        a, t, name = line.split()[:3]
        if t in "tTwW":
            syms.append((int(a, 16), name))
syms.sort()
starts = [a for a, _ in syms]

def name(pc):
    i = bisect.bisect_right(starts, pc) - 1
    return "%s+0x%x" % (syms[i][1], pc - syms[i][0]) if i >= 0 else "?"

for attempt in range(100):
    try:
        gdb.execute("target remote 127.0.0.1:%s" % port, to_string=True)
        break
    except gdb.error:
        time.sleep(0.2)
else:
    sys.exit("no gdbstub on port %s" % port)
def stop_at(a, ignore):
    gdb.execute("hbreak *0x%x" % a, to_string=True)
    if ignore:
        gdb.execute("ignore $bpnum %d" % ignore, to_string=True)
    gdb.execute("continue", to_string=True)
    pc = int(gdb.parse_and_eval("$pc")) & (2**64 - 1)
    if pc != a:
        sys.exit("stopped at 0x%x, not at 0x%x" % (pc, a))
    gdb.execute("delete", to_string=True)
    return pc

if gate:
    stop_at(gate, 0)
pc = stop_at(addr, skip)
with open(os.environ["KMF_OUT"] + "/path.txt", "w") as out:
    for i in range(steps):
        out.write("%x %s\n" % (pc, name(pc)))
        gdb.execute("stepi", to_string=True)
        pc = int(gdb.parse_and_eval("$pc")) & (2**64 - 1)
gdb.execute("detach", to_string=True)
EOF
rc=0
KMF_PORT=$port KMF_GATE=$gate KMF_ADDR=$addr KMF_SKIP=$skip KMF_STEPS=$steps KMF_MAP=$map KMF_OUT=$out \
	gdb -nx -batch -ex "set pagination off" -x "$out/step.py" > "$out/gdb.log" 2>&1 || rc=$?
wait "$boot" || true
if [ "$rc" -ne 0 ] || [ ! -s "$out/path.txt" ]; then
	echo "$0: stepping failed (gdb exit $rc): see $out/gdb.log and $out/boot.log" >&2
	tail -5 "$out/gdb.log" >&2
	exit 1
fi

awk -v sym="$symbol" '
	{ f = $2; sub(/\+0x[0-9a-f]+$/, "", f); n[f]++; total++ }
	$2 == sym "+0x0" { passes++ }
	END {
		if (!passes) passes = 1
		for (f in n) printf "%8d %8.1f %s\n", n[f], n[f] / passes, f
		printf "%8d %8.1f total, %d passes through %s\n", total, total / passes, passes, sym > "/dev/stderr"
	}' "$out/path.txt" 2> "$out/total.txt" | sort -k1,1nr > "$out/functions.txt"
cat "$out/total.txt" >> "$out/functions.txt"
cat "$out/functions.txt"

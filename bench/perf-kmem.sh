#!/bin/sh
# Benchmark (not a test): perf kmem stat and kmemflight on the same data.
# Records a workload with 'perf kmem --slab --page record' on this
# machine (root, perf), then times, pinned to one CPU, best of RUNS:
#   perf kmem --caller stat        perf reading its own file
#   kmemflight import              perf.data to .kmt (once per recording)
#   kmemflight report --caller     on the import
# and prints events/s for each.
#
#   bench/perf-kmem.sh [ROUNDS] [RUNS]   default 5 workload rounds, 3 runs
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
runs=${2:-3}
make -s -C "$repo" build/kmemflight
kmf=$repo/build/kmemflight
out=$repo/build/bench/perf-kmem
mkdir -p "$out"

perf kmem --slab --page record -o "$out/perf.data" -- sh -c "
	i=0
	while [ \$i -lt $rounds ]; do
		ls -R /usr/include > /dev/null; tar cf - /usr/share/doc 2> /dev/null | wc -c > /dev/null
		i=\$((i + 1))
	done" > "$out/record.log" 2>&1
"$kmf" import -q "$out/perf.data" "$out/perf.kmt" 2> /dev/null
events=$("$kmf" info "$out/perf.kmt" 2> /dev/null | awk '$1 == "total" { print $3 }')
echo "perf.data: $(stat -c %s "$out/perf.data") bytes, $events kmem events; $(stat -c %s "$out/perf.kmt") bytes as .kmt"
echo "cpu:       $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), pinned to CPU 0"

best() {	# COMMAND...: the best wall time of RUNS runs, in seconds
	b=
	i=0
	while [ $i -lt "$runs" ]; do
		s=$(date +%s%N)
		taskset -c 0 "$@" > /dev/null 2>&1
		e=$(date +%s%N)
		t=$((e - s))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
		i=$((i + 1))
	done
	echo "$b"
}

printf '%-32s %10s %14s\n' step "best s" "M events/s"
for step in perf-stat import report; do
	case $step in
	perf-stat) ns=$(best perf kmem -i "$out/perf.data" --caller stat) ;;
	import) ns=$(best "$kmf" import -q "$out/perf.data" "$out/again.kmt") ;;
	report) ns=$(best "$kmf" report --caller "$out/perf.kmt") ;;
	esac
	awk -v n="$ns" -v e="$events" -v s="$step" 'BEGIN {
		name = s == "perf-stat" ? "perf kmem --caller stat" : s == "import" ? "kmemflight import" : "kmemflight report --caller"
		printf "%-32s %10.3f %14.2f\n", name, n / 1e9, e / (n / 1e9) / 1e6 }'
done

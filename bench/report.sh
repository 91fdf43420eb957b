#!/bin/sh
# Benchmark (not a test): how fast "kmemflight report" reads a large
# trace, on one core.  Generates a deterministic N-event trace with
# build/tests/mktrace (2 CPUs, 2048 callsites, ~64k live objects, one
# free in ten on the other CPU), cached under build/bench/, then times
# each report view (--caller, --alloc, --live, --phase, JSON), plot and
# flame N times and prints the best run, events/s and the peak RSS.
# Target (DEVELOPERS.md): report --caller >= 40 M events/s.
#
#   bench/report.sh [EVENTS] [RUNS]      default 10000000 events, 3 runs
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
events=${1:-10000000}
runs=${2:-3}
command -v /usr/bin/time > /dev/null || { echo "bench/report.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
make -s -C "$repo" build/kmemflight build/tests/mktrace
kmf=$repo/build/kmemflight
mkdir -p "$repo/build/bench"
trace=$repo/build/bench/big-$events.kmt
# made again when the trace builder changed (a new record format)
if [ ! -f "$trace" ] || [ -n "$(find "$repo/build/tests/mktrace" -newer "$trace")" ]; then
	"$repo/build/tests/mktrace" big "$events" "$trace"
fi
size=$(stat -c %s "$trace")
cat "$trace" > /dev/null	# in the page cache: time the tool, not the disk

echo "trace: $trace ($events events, $size bytes, $(awk -v s="$size" -v e="$events" 'BEGIN { printf "%.1f", s / e }') B/event)"
echo "cpu:   $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), pinned to CPU 0"
printf '%-24s %10s %12s %10s\n' view "best s" "M events/s" "peak RSS"
# "info" decodes and counts every event and nothing else: the floor
# under every report view.
for view in info "--caller" "--caller --raw-ip" "--alloc" "--live" "--phase" "--json --live --phase" \
	plot flame "flame --allocated"; do
	best=
	rss=
	i=0
	while [ "$i" -lt "$runs" ]; do
		if [ "$view" = info ]; then
			set -- info
		elif [ "${view%% *}" = plot ] || [ "${view%% *}" = flame ]; then
			# shellcheck disable=SC2086 # a command and its options
			set -- $view
		else
			# shellcheck disable=SC2086 # $view is one or more options
			set -- report $view
		fi
		/usr/bin/time -f '%e %M' -o "$repo/build/bench/time" \
			taskset -c 0 "$kmf" "$@" "$trace" > /dev/null
		read -r t m < "$repo/build/bench/time"
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
		fi
		rss=$m
		i=$((i + 1))
	done
	label="report $view"
	[ "$view" = info ] && label="info (decode only)"
	case $view in plot* | flame*) label=$view ;; esac
	printf '%-24s %10s %12s %8s MB\n' "$label" "$best" \
		"$(awk -v e="$events" -v t="$best" 'BEGIN { printf "%.1f", (t > 0) ? e / t / 1e6 : 0 }')" \
		"$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')"
done

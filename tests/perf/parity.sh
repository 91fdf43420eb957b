#!/bin/sh
# Parity with perf kmem: a fixed workload recorded on this machine with
# 'perf kmem --slab --page record', then 'perf kmem stat' and kmemflight's
# report on the import of the same perf.data must agree on every row and
# summary line they share.  Exceptions (each checked, not skipped):
#  - perf prints callsite offsets as "+58", kmemflight as "+0x58";
#  - perf's "Cross CPU allocations" counts allocations asking for another
#    node than their CPU's (builtin-kmem.c compares the node field with
#    the CPU's node): it is kmemflight's "Cross node allocations";
#  - perf labels the migrate-type columns of its page table with a fixed
#    list (UNMOVABL, RECLAIM, MOVABLE, ...) that is not Linux 6.x's order
#    (Unmovable, Movable, Reclaimable, ...): the counts are compared by
#    column, that is by migrate type number;
#  - page callsites are not compared: perf picks them from callchains
#    with its own allocator-function list;
#  - perf counts a free of an object that is no longer allocated (freed
#    already, reallocated by a path with no per-object event such as
#    kmem_cache_alloc_bulk) against the object's last allocation: its
#    bytes are freed again, and it is a ping-pong (builtin-kmem.c sets
#    alloc_cpu to -1 at a free, so any later free is "another CPU").
#    kmemflight counts it as a free of an object not allocated in the
#    trace.  The test works out these "stale frees" from the events and
#    adds them to kmemflight's figures: the result must equal perf's;
#  - a kernel that traces a large kmalloc twice, first from inside the
#    allocator (6.12's __kmalloc_large_node_noprof, a newer host's
#    __kvmalloc_node_noprof), then for the caller: kmemflight counts the
#    object once, for the caller, perf kmem twice.  The test finds these
#    pairs with kmemflight's rule (back to back on a CPU and context,
#    the object still live, the same size above two pages, another
#    callsite), checks that it finds as many as the report merged, and
#    adds the first events back to kmemflight's figures.  Such a pair
#    comes from whatever else runs on the machine while perf records
#    system-wide: one failed a CI run by chance.
# Prints "ok/not ok" per check and "perf: N passed, N failed".
set -u

repo=$(cd "$(dirname "$0")/../.." && pwd)
kmf=${KMF:-$repo/build/kmemflight}
out=${KMF_PERF_OUT:-$repo/build/perf-parity}
suite=perf
# shellcheck source=qemu-tests/check.sh
. "$repo/qemu-tests/check.sh"
rm -rf "$out"
mkdir -p "$out"
make -s -C "$repo" build-asan/tests/perf-repeat || exit 1
# perf finds the tracepoints' formats in tracefs
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null

# The workload also opens a CPU's ftrace buffer, whose reader state is a
# kvzalloc() of 16 KiB: a large kmalloc, which 6.12 and later trace
# twice (see the exceptions above); the pairs are then in every run.
record() {
	perf kmem --slab --page record -o "$out/perf.data" -- \
		sh -c 'ls -R /usr/include > /dev/null; cat /usr/share/common-licenses/* > /dev/null;
			: < /sys/kernel/tracing/per_cpu/cpu0/trace_pipe_raw
			tar cf - /usr/share/doc 2> /dev/null | wc -c' > "$out/record.log" 2>&1 &&
	"$kmf" import "$out/perf.data" "$out/perf.kmt" > "$out/import.log" 2>&1 &&
	cat "$out/import.log"
}

# The rows of a perf-kmem table, offsets as 0x, spaces squeezed, sorted.
rows() {	# FILE HEADER
	awk -v h="$2" '
		/^-+$/ { dash++; next }
		index($0, h) == 2 { in_t = 1; next }
		in_t && dash == 2 && /^ / {
			line = $0
			if (h == "Callsite" && match(line, /\+[0-9a-f]+ /) && substr(line, RSTART + 1, 2) != "0x")
				line = substr(line, 1, RSTART) "0x" substr(line, RSTART + 1)
			gsub(/ +/, " ", line); print line
		}
		dash >= 3 { exit }' "$1" | LC_ALL=C sort
}

# Frees of objects allocated earlier in the trace but not allocated at
# the free: "ptr callsite-of-last-alloc bytes-of-last-alloc-or-?" each.
# Not a free written twice (the same time, CPU, type and callsite as
# the free that ended the object): kmemflight counts those as perf does.
stale_frees() {
	"$kmf" dump "$out/perf.kmt" 2> /dev/null | awk '
		function field(name,   i) {
			for (i = 5; i <= NF; i++)
				if (index($i, name "=") == 1)
					return substr($i, length(name) + 2)
			return ""
		}
		$4 == "kmalloc" || $4 == "kmem_cache_alloc" {
			p = field("ptr"); if (p == "0x0") next
			live[p] = 1; seen[p] = 1; site[p] = field("call_site")
			size[p] = $4 == "kmalloc" ? field("bytes_alloc") : "?"
		}
		$4 == "kfree" || $4 == "kmem_cache_free" {
			p = field("ptr"); f = $1 " " $2 " " $4 " " field("call_site")
			if ((p in seen) && !(p in live) && ended[p] != f) print p, site[p], size[p]
			if (p in live)
				ended[p] = f
			else if (ended[p] == f)
				twice++
			delete live[p]
		}
		END { print twice + 0 > "/dev/stderr" }' > "$out/stale" 2> "$out/repeated-frees"
	echo "$(wc -l < "$out/stale") stale frees, $(cat "$out/repeated-frees") frees written twice"
}

# The first events of the large kmallocs traced twice that kmemflight
# merged: "ptr callsite-of-the-first bytes_req bytes_alloc" each (the
# request of the second, which is what kmemflight takes back).
merged_firsts() {
	"$kmf" dump "$out/perf.kmt" 2> /dev/null | awk '
		function field(name,   i) {
			for (i = 5; i <= NF; i++)
				if (index($i, name "=") == 1)
					return substr($i, length(name) + 2)
			return ""
		}
		{ slot = $2 " " substr($3, 1, index($3, ":") - 1) }
		$4 == "kmalloc" || $4 == "kmem_cache_alloc" {
			p = field("ptr"); s = field("call_site"); a = field("bytes_alloc")
			if (p != "0x0" && $4 == "kmalloc" && (p in site) && !(ts[p] == $1 && site[p] == s) &&
			    a + 0 > 8192 && site[p] != s && last[slot] == p && size[p] == a && cpu[p] == $2)
				print p, site[p], field("bytes_req"), a
			if (p != "0x0") { site[p] = s; size[p] = a; cpu[p] = $2; ts[p] = $1 }
			last[slot] = $4 == "kmalloc" ? p : ""
			next
		}
		$4 == "kfree" || $4 == "kmem_cache_free" { delete site[field("ptr")] }
		{ last[slot] = "" }' > "$out/merged"
	merged_n=$(sed -n 's/^(\([0-9]*\) large kmallocs were traced twice.*/\1/p' "$out/kmf--caller.txt")
	echo "$(wc -l < "$out/merged") large kmallocs traced twice; the report merged ${merged_n:-0}"
	[ "$(wc -l < "$out/merged")" = "${merged_n:-0}" ]
}

# kmemflight's rows with the stale frees and the merged first events
# added as perf counts them.
perf_view() {	# ROWS HEADER
	awk -v h="$2" -v stale="$out/stale" -v merged="$out/merged" '
		function frag(r, a) { return sprintf("%.3f%%", a ? 100 - 100 * r / a : 0) }
		BEGIN {
			while ((getline l < stale) > 0) {
				split(l, f, " ")
				if (h == "Callsite") n[f[2]]++; else n[f[1]]++
			}
			while ((getline l < merged) > 0) {
				split(l, f, " ")
				k = h == "Callsite" ? f[2] : f[1]
				mh[k]++; mr[k] += f[3]; ma[k] += f[4]
			}
		}
		{
			split($0, c, " \\| ")
			key = c[1]; sub(/^ /, "", key)
			if (key in mh) {
				split(c[2], a, "/"); split(c[3], r, "/")
				c[4] += mh[key]; a[1] += ma[key]; r[1] += mr[key]
				c[2] = a[1] "/" int(a[1] / c[4]); c[3] = r[1] "/" int(r[1] / c[4])
				c[6] = frag(r[1], a[1])
				done[key] = 1
			}
			if (key in n) c[5] += n[key]
			print c[1] " | " c[2] " | " c[3] " | " c[4] " | " c[5] " | " c[6]
		}
		END {	# callsites only the merged first events have
			for (k in mh)
				if (!(k in done))
					print " " k " | " ma[k] "/" int(ma[k] / mh[k]) " | " mr[k] "/" int(mr[k] / mh[k]) \
						" | " mh[k] " | " n[k] + 0 " | " frag(mr[k], ma[k])
		}' "$1" | LC_ALL=C sort
}

table_rows_equal() {	# perf-option report-option header
	perf kmem -i "$out/perf.data" "$1" stat > "$out/perf$1.txt" 2> "$out/perf$1.err" &&
	"$kmf" report "$2" "$out/perf.kmt" > "$out/kmf$2.txt" 2> "$out/kmf$2.err" &&
	rows "$out/perf$1.txt" "$3" > "$out/perf$1.rows" &&
	rows "$out/kmf$2.txt" "$3" > "$out/kmf$2.rows.own" &&
	stale_frees && merged_firsts &&
	perf_view "$out/kmf$2.rows.own" "$3" > "$out/kmf$2.rows" &&
	echo "$(wc -l < "$out/perf$1.rows") rows" &&
	[ -s "$out/perf$1.rows" ] &&
	diff "$out/perf$1.rows" "$out/kmf$2.rows"
}

line_of() { grep -m1 "^$2" "$1"; }

slab_summary_equal() {
	p=$out/perf--caller.txt k=$out/kmf--caller.txt
	# requested, allocated, wasted, fragmentation: plus the merged firsts
	read -r mr ma mn <<-EOF
	$(awk '{ r += $3; a += $4 } END { print r + 0, a + 0, NR }' "$out/merged")
	EOF
	req=$(($(line_of "$k" "Total bytes requested:" | sed 's/.*: *//') + mr))
	alloc=$(($(line_of "$k" "Total bytes allocated:" | sed 's/.*: *//') + ma))
	for l in "Total bytes requested: $req" "Total bytes allocated: $alloc" \
		"Total bytes wasted on internal fragmentation: $((alloc - req))" \
		"Internal fragmentation: $(awk -v r="$req" -v a="$alloc" 'BEGIN { printf "%f%%", 100 - 100 * r / a }')"; do
		a=$(line_of "$p" "${l%%:*}:")
		echo "$a | $l (kmemflight, $mn merged first events added)"
		[ -n "$a" ] && [ "$a" = "$l" ] || return 1
	done
	# freed and net: plus the stale frees, at their object's last size
	# (from kmalloc's event, or the object's --alloc row for a cache)
	extra=$(awk -v rows="$out/kmf--alloc.rows.own" '
		BEGIN {
			while ((getline l < rows) > 0) {
				split(l, c, " \\| "); p = c[1]; sub(/^ /, "", p)
				split(c[2], t, "/"); per[p] = t[2]; tot[p] = t[1]; split(c[4], hh, " "); hit[p] = hh[1]
			}
		}
		{ s = $3; if (s == "?") { if (tot[$1] != per[$1] * hit[$1]) bad = 1; s = per[$1] }; x += s }
		END { if (bad) print "mixed"; else print x + 0 }' "$out/stale")
	echo "stale frees: $extra bytes"
	[ "$extra" != mixed ] || return 1
	a=$(line_of "$p" "Total bytes freed:" | sed 's/.*: *//')
	b=$(line_of "$k" "Total bytes freed:" | sed 's/.*: *//')
	echo "freed: perf $a, kmemflight $b + $extra"
	[ "$a" = $((b + extra)) ] || return 1
	a=$(line_of "$p" "Net total bytes allocated:" | sed 's/.*: *//')
	b=$(line_of "$k" "Net total bytes allocated:" | sed 's/.*: *//')
	echo "net: perf $a, kmemflight $b - $extra + $ma"
	[ "$a" = $((b - extra + ma)) ] || return 1
	# perf's "Cross CPU allocations: A/B" is cross-node: A/allocations
	a=$(line_of "$p" "Cross CPU allocations:" | sed 's/.*: //')
	b=$(line_of "$k" "Cross node allocations:" | sed 's/.*: \([0-9]*\)\/.*/\1/')
	c=$(($(line_of "$k" "Allocations:" | sed 's/^Allocations: \([0-9]*\),.*/\1/') + mn))
	echo "perf cross: $a; kmemflight cross-node: $b of $c allocations"
	[ "$a" = "$b/$c" ]
}

page_summary_equal() {
	perf kmem -i "$out/perf.data" --page stat > "$out/perf--page.txt" 2> "$out/perf--page.err" &&
	"$kmf" report --page "$out/perf.kmt" > "$out/kmf--page.txt" 2> "$out/kmf--page.err" || return 1
	p=$out/perf--page.txt k=$out/kmf--page.txt
	pv() { line_of "$p" "$1" | sed 's/.*: *\([0-9]*\) *\[ *\([0-9]*\) KB \]/\1 \2/'; }
	kv() { line_of "$k" "$1" | sed 's/.*: *//'; }
	set -- "$(pv 'Total allocation requests')" "$(kv 'Total alloc requested:')" \
		"$(kv 'Total bytes allocated:')" "$(pv 'Total allocation failures')" \
		"$(kv 'Total alloc failure:')" "$(pv 'Total free requests')" \
		"$(kv 'Total free requested:')" "$(kv 'Total bytes freed:')" \
		"$(pv 'Total free-only requests')" "$(kv 'Total free unmatched:')"
	echo "allocations $1 | $2 $3; failures $4 | $5; frees $6 | $7 $8; free-only $9 | ${10}"
	[ "${1% *}" = "$2" ] && [ $(( ${1#* } * 1024 )) = "$3" ] &&
	[ "${4% *}" = "$5" ] && [ "${6% *}" = "$7" ] && [ $(( ${6#* } * 1024 )) = "$8" ] &&
	[ "${9% *}" = "${10}" ] && [ "$2" -gt 0 ]
}

# The order x migrate type counts, "." as 0, by column position.
matrix() {
	awk '/^Order / { on = 1; next } on && /^-/ { next }
		on && /^ *[0-9]+ / { line = $1; for (i = 2; i <= NF; i++) { v = $i; if (v == ".") v = 0; line = line " " v }; print line }
		on && !/^ *[0-9]+ / && !/^-/ { on = 0 }' "$1"
}

page_matrix_equal() {
	matrix "$out/perf--page.txt" > "$out/perf.matrix" &&
	matrix "$out/kmf--page.txt" > "$out/kmf.matrix" &&
	cat "$out/kmf.matrix" && [ -s "$out/perf.matrix" ] &&
	diff "$out/perf.matrix" "$out/kmf.matrix"
}

bad_input() {
	d=$out/bad
	mkdir -p "$d" && cp "$out/perf.kmt" "$d/good.kmt" && cp "$d/good.kmt" "$d/x.kmt" &&
	printf 'not a perf file at all\n' > "$d/text" &&
	head -c 200000 "$out/perf.data" > "$d/cut" &&
	# a pipe-mode header: the magic, then a header size of 16
	{ head -c 8 "$out/perf.data"; printf '\020\000\000\000\000\000\000\000'; } > "$d/pipe" || return 1
	for f in text cut pipe missing; do
		"$kmf" import "$d/$f" "$d/x.kmt" 2> "$d/$f.err"
		rc=$?
		echo "$f: exit $rc: $(cat "$d/$f.err")"
		[ "$rc" = 1 ] && cmp -s "$d/good.kmt" "$d/x.kmt" || return 1
	done
	grep -q "not a perf.data file (no PERFILE2 magic)" "$d/text.err" &&
	grep -q "truncated" "$d/cut.err" &&
	grep -q "a perf.data written to a pipe: record with 'perf kmem record -o FILE'" "$d/pipe.err" &&
	grep -q "No such file or directory" "$d/missing.err" &&
	"$kmf" import "$d/text" > /dev/null 2>&1; [ $? = 2 ] &&
	"$kmf" import --bogus a b > /dev/null 2>&1; [ $? = 2 ] &&
	"$kmf" import a b c > /dev/null 2>&1; [ $? = 2 ] &&
	"$kmf" import --help | grep -q "^usage: kmemflight import"
}

# The recording with samples written twice, imported.  perf-repeat
# writes one of every event that has samples twice at least (its
# "E of M events"): M must be the kinds the import holds, so that each
# of kmalloc, kmem_cache_alloc, kfree, kmem_cache_free, mm_page_alloc
# and mm_page_free is in the file twice on every run, and the report
# must have found allocations and frees written twice.
repeated() {
	mkdir -p "$out/repeat" &&
	"$repo/build-asan/tests/perf-repeat" "$out/perf.data" "$out/repeat/perf.data" > "$out/repeat/repeat.log" &&
	"$kmf" import "$out/repeat/perf.data" "$out/repeat/perf.kmt" > "$out/repeat/import.log" 2>&1 &&
	"$kmf" report "$out/repeat/perf.kmt" > "$out/repeat/report.txt" 2> /dev/null || return 1
	twice=$(sed -n 's/^\([0-9]*\) samples written twice$/\1/p' "$out/repeat/repeat.log")
	events=$(sed -n 's/^\([0-9]*\) of \([0-9]*\) events written twice$/\1 \2/p' "$out/repeat/repeat.log")
	kinds=$(sed -n 's/^Events: [0-9]* (\(.*\))$/\1/p' "$out/repeat/report.txt" | tr ',' '\n' |
		awk '$1 != "other" && $NF > 0 { n++ } END { print n + 0 }')
	allocs=$(sed -n 's/^(\([0-9]*\) allocation events repeat the one before them.*/\1/p' "$out/repeat/report.txt")
	frees=$(sed -n 's/^(\([0-9]*\) free events repeat the last free on their CPU.*/\1/p' "$out/repeat/report.txt")
	echo "perf-repeat: ${twice:-?} samples written twice, of ${events:-? ?} events (the import holds $kinds kinds);" \
		"report: ${allocs:-0} allocations and ${frees:-0} frees written twice"
	[ "${twice:-0}" -gt 0 ] && [ "$events" = "$kinds $kinds" ] && [ "$kinds" = 6 ] &&
	[ "${allocs:-0}" -gt 0 ] && [ "${frees:-0}" -gt 0 ]
}

# The latency events through perf: a compaction of this machine's memory
# (/proc/sys/vm/compact_memory) recorded with perf record, imported; the
# report pairs every mm_compaction_begin of the workload with its end;
# direct reclaim, of which only the begin was recorded (and never
# happened), is "not recorded": a group counts as recorded only with all
# its events.  perf records system-wide: a compaction of another task
# (kcompactd) that began before the recording or ends after it is
# unpaired, correctly, so only the workload's own are counted.
latency_import() {
	d=$out/latency
	mkdir -p "$d"
	# shellcheck disable=SC2016 # $$ and $0 are the workload's
	if ! perf record -a -o "$d/perf.data" -e compaction:mm_compaction_begin \
		-e compaction:mm_compaction_end -e compaction:mm_compaction_try_to_compact_pages \
		-e vmscan:mm_vmscan_direct_reclaim_begin \
		-- sh -c 'echo $$ > "$0"; echo 1 > /proc/sys/vm/compact_memory' "$d/pid" \
		> "$d/record.log" 2>&1 ||
		! "$kmf" import "$d/perf.data" "$d/perf.kmt" > "$d/import.log" 2>&1 ||
		! "$kmf" report --latency "$d/perf.kmt" > "$d/latency.txt" 2> "$d/latency.err" ||
		! "$kmf" report --latency --json "$d/perf.kmt" > "$d/latency.json" 2>> "$d/latency.err"; then
		cat "$d/record.log" "$d/import.log" "$d/latency.err"
		return 1
	fi
	pid=$(cat "$d/pid")
	begins=$("$kmf" dump "$d/perf.kmt" |
		awk -v t="task:$pid" '$3 == t && $4 == "compaction_begin" { n++ } END { print n + 0 }')
	# one line per episode ("latency_ns") and per unpaired event ("event")
	paired=$(grep -c "^ *{\"kind\": \"compaction\", \"start_ns\": .*\"pid\": $pid," "$d/latency.json")
	unpaired=$(grep -c "^ *{\"kind\": \"compaction\", \"event\": .*\"pid\": $pid," "$d/latency.json")
	echo "the workload (pid $pid): compaction_begin events: $begins; compaction episodes: $paired; unpaired events: $unpaired"
	[ "$begins" -gt 0 ] && [ "$paired" = "$begins" ] && [ "$unpaired" = 0 ] &&
	grep -q "^ compaction (zone)  | *[1-9]" "$d/latency.txt" &&
	grep -q "^ direct reclaim     | (not recorded)" "$d/latency.txt" &&
	grep -q "^ allocation stall   | (not recorded)" "$d/latency.txt"
}

if ! command -v perf > /dev/null; then
	check "perf is installed (linux-perf)" false
	check_done
	exit
fi
check "perf kmem --slab --page record of a fixed workload, kmemflight import" record
if [ -f "$out/perf.kmt" ]; then
	check "--caller: every row equals perf kmem's (callsite, bytes, hits, ping-pong, frag)" \
		table_rows_equal --caller --caller Callsite
	check "--alloc: every row equals perf kmem's (object, bytes, hits, ping-pong, frag)" \
		table_rows_equal --alloc --alloc "Alloc Ptr"
	check "--caller SUMMARY: bytes requested/allocated/freed/net/wasted, fragmentation, cross-node" \
		slab_summary_equal
	check "--page SUMMARY: requests, bytes, failures, frees, free-only" page_summary_equal
	check "--page: the order x migrate type counts equal perf kmem's, column by column" \
		page_matrix_equal
	check "bad input: not perf.data, truncated, a pipe's, missing; usage errors exit 2" bad_input
	check "the import says what perf could not see, once" \
		sh -c "'$kmf' report '$out/perf.kmt' 2>&1 >/dev/null | grep -c 'note: perf source' | grep -qx 1"
	# The same recording with samples written twice, as perf record
	# does at times (tests/perf/perf-repeat.c): the run that first
	# failed this suite held one.  Every comparison again, on that file.
	check "samples written twice (tests/perf/perf-repeat.c): imported, and report counts them" \
		repeated
	if [ -f "$out/repeat/perf.kmt" ]; then
		base=$out
		out=$base/repeat
		check "written twice: --caller rows equal perf kmem's" \
			table_rows_equal --caller --caller Callsite
		check "written twice: --alloc rows equal perf kmem's" \
			table_rows_equal --alloc --alloc "Alloc Ptr"
		check "written twice: --caller SUMMARY equals perf kmem's" slab_summary_equal
		check "written twice: --page SUMMARY equals perf kmem's" page_summary_equal
		check "written twice: --page order x migrate type counts equal perf kmem's" \
			page_matrix_equal
		out=$base
	fi
fi
check "import keeps compaction events: report --latency pairs each of the workload's begins with its end" \
	latency_import
check_done

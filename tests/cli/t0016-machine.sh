#!/bin/sh
# shellcheck disable=SC2016,SC1091
# report --json and --csv: the same numbers as the tables, with stable
# field names, on the basic trace (every view at once) and the phases
# trace.  The expected files hold the values of expect/basic.report,
# basic.live, basic-alloc.report and pages.report.
. "$(dirname "$0")/lib.sh"

# json_head FILE PATH FIRST LAST: FILE is one JSON document whose first
# members are those every report --json starts with, these values
json_head() {
	python3 -c '
import json, sys
f, path, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
got = list(json.load(open(f)).items())[:4]
want = [("kmemflight_report", 1), ("file", path), ("first_ns", first), ("last_ns", last)]
assert got == want, (f, got)
' "$@"
}

test_expect_success 'report --json: every view, exact, and valid JSON' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --json --slab --page --live --phase --caller --alloc t.kmt > out &&
	sed "s|\"file\": \"t.kmt\"|\"file\": \"/tmp/basic.kmt\"|" out > out2 &&
	test_cmp "$TEST_DIR/expect/basic.json" out2 &&
	python3 -m json.tool out > /dev/null
'

test_expect_success 'report --csv: every table, exact' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --csv --slab --page --live --phase --caller --alloc t.kmt > out &&
	test_cmp "$TEST_DIR/expect/basic.csv" out
'

test_expect_success 'report --json --phase: phases and initcalls with their return values' '
	"$MKTRACE" phases t.kmt &&
	"$KMF" report --json --phase t.kmt > out &&
	python3 -c "
import json, sys
d = json.load(open(\"out\"))
got = [(p[\"phase\"], p[\"kind\"], p[\"slab_retained\"], p[\"page_retained\"]) for p in d[\"phases\"]]
assert got == [(\"early\", \"early\", 0, 0), (\"core\", \"level\", 1024, 8192), (\"device\", \"level\", 192, 0), (\"/init\", \"exec\", 32, 0), (\"/sbin/init\", \"exec\", 0, 0)], got
ic = [(i[\"initcall\"], i[\"level\"], i[\"ret\"], i[\"duration_ns\"]) for i in d[\"initcalls\"]]
assert ic == [(\"helper_init+0x0\", \"core\", 0, 300), (\"free_thing+0x0\", \"device\", -19, 200)], ic
"
'

test_expect_success 'report --json -l 1 cuts every list; only the views asked for' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --json --live --slab -l 1 t.kmt > out &&
	"$KMF" report --json --live t.kmt > only &&
	python3 -c "
import json
d = json.load(open(\"out\"))
assert len(d[\"live\"][\"callsites\"]) == 1 and len(d[\"live\"][\"caches\"]) == 1
assert len(d[\"callers\"]) == 1 and d[\"live\"][\"retained_bytes\"] == 7200
o = json.load(open(\"only\"))
assert sorted(o) == [\"file\", \"first_ns\", \"kmemflight_report\", \"last_ns\", \"live\"], sorted(o)
"
'

# The times of the text views: --live'"'"'s "Boot footprint at", the latency
# report'"'"'s "events from", --memblock'"'"'s "at" (its last memblock event)
# and --footprint'"'"'s "Memory at the save".
test_expect_success 'every view'"'"'s --json starts with its version, its file and the span it took' '
	"$MKTRACE" basic b.kmt && "$MKTRACE" latency l.kmt && "$MKTRACE" footprint f.kmt &&
	for v in "" --slab --page --live --phase "--caller --alloc" "--page --alloc" \
		"--slab --page --live --phase" "--time 1us,5us" "--live --at 3us"; do
		# shellcheck disable=SC2086 # the options, one word each
		"$KMF" report $v --json b.kmt > j || exit 1
		case $v in
		--time*) json_head j b.kmt 1000 5000 ;;
		*--at*) json_head j b.kmt 100 3000 ;;
		*) json_head j b.kmt 100 7000 ;;
		esac || exit 1
	done &&
	"$KMF" report --live b.kmt | grep -q "^Boot footprint at 0.000007000 s (the last event taken)" &&
	"$KMF" report --live --at 3us b.kmt | grep -q "^Boot footprint at 0.000003000 s (the last event taken)" &&
	"$KMF" report --latency --json l.kmt > j 2> /dev/null && json_head j l.kmt 100 1710000 &&
	"$KMF" report --latency l.kmt 2> /dev/null | grep -q "; events from 0.000000 s to 0.001710 s$" &&
	"$KMF" report --memblock --json f.kmt > j && json_head j f.kmt 0 9500 &&
	"$KMF" report --memblock --at 5us --json f.kmt > j && json_head j f.kmt 0 5000 &&
	"$KMF" report --memblock f.kmt | grep -q "^Boot memory (memblock) at 0.000009500 s:" &&
	"$KMF" report --footprint --json f.kmt > j && json_head j f.kmt 0 11600 &&
	"$KMF" report --footprint f.kmt | grep -q "^Memory at the save (0.000011600 s," &&
	"$MKTRACE" diff-base db.kmt && "$MKTRACE" diff-new dn.kmt &&
	"$KMF" diff --json db.kmt dn.kmt > j &&
	python3 -c "
import json
d = json.load(open(\"j\"))
assert list(d)[:3] == [\"kmemflight_diff\", \"base\", \"new\"] and d[\"kmemflight_diff\"] == 1, list(d)
assert (d[\"base\"][\"file\"], d[\"new\"][\"file\"]) == (\"db.kmt\", \"dn.kmt\"), d
"
'

test_expect_success '--json and --csv together is a usage error' '
	"$MKTRACE" basic t.kmt &&
	test_must_fail --code=2 "$KMF" report --json --csv t.kmt 2> err &&
	grep -q "^kmemflight report: --json and --csv: one output format at a time$" err
'

test_done

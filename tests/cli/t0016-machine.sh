#!/bin/sh
# shellcheck disable=SC2016,SC1091
# report --json and --csv: the same numbers as the tables, with stable
# field names, on the basic trace (every view at once) and the phases
# trace.  The expected files hold the values of expect/basic.report,
# basic.live, basic-alloc.report and pages.report.
. "$(dirname "$0")/lib.sh"

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

test_expect_success '--json and --csv together is a usage error' '
	"$MKTRACE" basic t.kmt &&
	test_must_fail --code=2 "$KMF" report --json --csv t.kmt 2> err &&
	grep -q "^kmemflight report: --json and --csv: one output format at a time$" err
'

test_done

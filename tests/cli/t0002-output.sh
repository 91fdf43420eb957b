#!/bin/sh
# shellcheck disable=SC2016,SC1091
# Where the output goes: a write error on standard output fails the
# command with one message (cli/main.c checks stdout once the command
# has returned); the messages about an output file name the file asked
# for, not its temporary; an empty output file name is a usage error.
. "$(dirname "$0")/lib.sh"

# full WHAT: the one message of a command whose stdout was /dev/full
full() {
	printf "kmemflight%s: error: cannot write the output: No space left on device\n" "$1" > want
}

for args in 'report' 'report --json' 'report --csv' 'report --page' 'info' 'info --json' 'dump'; do
	test_expect_success "$args to a full disk fails with one message" '
		"$MKTRACE" basic t.kmt &&
		test_must_fail "$KMF" '"$args"' t.kmt > /dev/full 2> err &&
		full " '"${args%% *}"'" && test_cmp want err
	'
done

test_expect_success 'diff and summary to a full disk fail with one message' '
	"$MKTRACE" basic t.kmt &&
	test_must_fail "$KMF" diff t.kmt t.kmt > /dev/full 2> err &&
	full " diff" && test_cmp want err &&
	test_must_fail "$KMF" diff --json t.kmt t.kmt > /dev/full 2> err &&
	test_cmp want err &&
	test_must_fail "$KMF" summary t.kmt > /dev/full 2> err &&
	full " summary" && test_cmp want err
'

test_expect_success 'diff over its budget to a full disk: exit 1, and the write error said' '
	"$MKTRACE" basic b.kmt && "$MKTRACE" plot n.kmt &&
	test_must_fail "$KMF" diff --max-growth-bytes 0 b.kmt n.kmt > out &&
	grep -q "over budget" out &&
	test_must_fail "$KMF" diff --max-growth-bytes 0 b.kmt n.kmt > /dev/full 2> err &&
	full " diff" && test_cmp want err
'

test_expect_success 'flame and plot to a full standard output fail with one message' '
	"$MKTRACE" plot t.kmt &&
	test_must_fail "$KMF" flame t.kmt > /dev/full 2> err &&
	echo "kmemflight flame: error: writing to standard output: No space left on device" > want &&
	test_cmp want err &&
	test_must_fail "$KMF" flame -o - --format speedscope t.kmt > /dev/full 2> err &&
	test_cmp want err &&
	test_must_fail "$KMF" plot -o - t.kmt > /dev/full 2> err &&
	echo "kmemflight plot: error: writing to standard output: No space left on device" > want &&
	test_cmp want err
'

test_expect_success 'a command that failed already says it once, not twice' '
	test_must_fail "$KMF" report nothere.kmt > /dev/full 2> err &&
	test "$(wc -l < err)" = 1 &&
	grep -q "^kmemflight report: error: nothere.kmt: no such file" err &&
	test_must_fail --code=2 "$KMF" info --bogus t.kmt > /dev/full 2> err &&
	test "$(wc -l < err)" = 2 &&
	grep -q "unknown option .--bogus." err
'

test_expect_success '--help, a bare kmemflight and --version to a full disk fail' '
	test_must_fail "$KMF" --help > /dev/full 2> err &&
	full "" && test_cmp want err &&
	test_must_fail "$KMF" > /dev/full 2> err &&
	test_cmp want err &&
	test_must_fail "$KMF" --version > /dev/full 2> err &&
	test_cmp want err
'

for cmd in attach save watch report info dump plot flame diff summary import; do
	test_expect_success "$cmd --help to a full disk fails" '
		test_must_fail "$KMF" '"$cmd"' --help > /dev/full 2> err &&
		full " '"$cmd"'" && test_cmp want err
	'
done

test_expect_success 'a closed standard output: an error once something is written to it' '
	"$MKTRACE" basic t.kmt &&
	test_must_fail "$KMF" info t.kmt >&- 2> err &&
	echo "kmemflight info: error: cannot write the output: Bad file descriptor" > want &&
	test_cmp want err
'

test_expect_success 'plot, flame -o into a missing directory name the file asked for' '
	"$MKTRACE" plot t.kmt &&
	test_must_fail "$KMF" plot -o no/dir/boot.svg t.kmt 2> err &&
	echo "kmemflight plot: error: cannot create no/dir/boot.svg: No such file or directory" > want &&
	test_cmp want err &&
	test_must_fail "$KMF" flame -o no/dir/boot.folded t.kmt 2> err &&
	echo "kmemflight flame: error: cannot create no/dir/boot.folded: No such file or directory" > want &&
	test_cmp want err &&
	test_must_fail "$KMF" flame -f speedscope -o no/dir/boot.json t.kmt 2> err &&
	echo "kmemflight flame: error: cannot create no/dir/boot.json: No such file or directory" > want &&
	test_cmp want err &&
	test ! -e no
'

test_expect_success 'plot -o into a directory it may not write names the file asked for' '
	"$MKTRACE" plot t.kmt &&
	mkdir ro && chmod 555 ro &&
	if touch ro/probe 2> /dev/null; then
		rm ro/probe && echo "skipped: root writes into a read-only directory"
	else
		test_must_fail "$KMF" plot -o ro/boot.svg t.kmt 2> err &&
		echo "kmemflight plot: error: cannot create ro/boot.svg: Permission denied" > want &&
		test_cmp want err
	fi
'

test_expect_success 'plot, flame -o /dev/full: the write error names the device' '
	"$MKTRACE" plot t.kmt &&
	test_must_fail "$KMF" plot -o /dev/full t.kmt 2> err &&
	echo "kmemflight plot: error: cannot write /dev/full: No space left on device" > want &&
	test_cmp want err &&
	test_must_fail "$KMF" flame --output /dev/full t.kmt 2> err &&
	echo "kmemflight flame: error: cannot write /dev/full: No space left on device" > want &&
	test_cmp want err
'

for cmd in plot flame; do
	test_expect_success "$cmd -o '' is a usage error" '
		"$MKTRACE" plot t.kmt &&
		test_must_fail --code=2 "$KMF" '"$cmd"' -o "" t.kmt 2> err &&
		printf "%s\n" "kmemflight '"$cmd"': option '"'-o'"' wants a file name ('"'-'"' for standard output)" \
			"Try '"'kmemflight $cmd --help'"'." > want &&
		test_cmp want err &&
		test_must_fail --code=2 "$KMF" '"$cmd"' --output= t.kmt 2> err &&
		test_cmp want err &&
		test "$(ls)" = "$(printf "err\nt.kmt\nwant")"
	'
done

# save --from-ftrace is given an instance that does not exist: were the
# usage error missed, it would stop there, not turn this machine's
# tracing off
test_expect_success "save, save --from-ftrace and import with an empty <file> are usage errors" '
	test_must_fail --code=2 env KMEMFLIGHT_TRACEFS="$PWD/none" "$KMF" save "" 2> err &&
	printf "%s\n" "kmemflight save: <file>: an empty file name" \
		"Try '"'kmemflight save --help'"'." > want &&
	test_cmp want err &&
	test_must_fail --code=2 "$KMF" save --from-ftrace kmf-no-such-instance "" 2> err &&
	test_cmp want err &&
	test_must_fail --code=2 "$KMF" import perf.data "" 2> err &&
	printf "%s\n" "kmemflight import: <file>: an empty file name" \
		"Try '"'kmemflight import --help'"'." > want &&
	test_cmp want err
'

test_done

# shellcheck shell=sh
# Minimal git-style test library for the kmemflight CLI tests.
#
#   test_expect_success 'title' 'commands'
#   test_must_fail [--code=N] command...   (default: exit status 1)
#   test_cmp expect actual
#
# Each test runs in a fresh scratch directory ($TRASH).  Sourced by
# tests/cli/tNNNN-*.sh; counts go to $KMF_RESULTS (one line per test).

: "${KMF:?KMF must point at the kmemflight binary}"
: "${MKTRACE:?MKTRACE must point at build-asan/tests/mktrace}"
# shellcheck disable=SC2034 # used by the test scripts
TEST_DIR=$(cd "$(dirname "$0")" && pwd)
KMF_RESULTS=${KMF_RESULTS:-/dev/null}
test_count=0
test_failed=0

test_cmp() {
	diff -u "$1" "$2"
}

# columns_aligned FILE: every line of FILE's one table (the lines with a
# '|') has its '|'s at the same columns
columns_aligned() {
	awk '/\|/ { p = ""; for (i = 1; i <= length($0); i++) if (substr($0, i, 1) == "|") p = p " " i; print p }' "$1" |
		sort -u > "$1.columns"
	[ "$(wc -l < "$1.columns")" = 1 ] || { echo "columns not aligned in $1:"; cat "$1.columns"; return 1; }
}

# kmf_commands: the commands the bare summary lists, one a line
kmf_commands() {
	"$KMF" | awk '/^   [a-z]+  / { print $1 }'
}

# help_terms: the option terms of a --help text on stdin, one a line
# ("-n, --keep <n>"): its lines indented by at most 8 spaces that start
# with "-", up to the two spaces before the description
help_terms() {
	grep -E '^ {1,8}-' | sed -E 's/^ +//; s/(  |$).*//'
}

# option_words: the options (-x, --long) in the text on stdin, sorted,
# one a line; "**--spool** *DIR*" and "[**-k**]" of a man page too
option_words() {
	grep -oE -- '(^|[^a-zA-Z0-9*-])\**--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[^-]*//' | sort -u
}

# help_options: the options of a --help text on stdin, from its option
# terms, not from what its prose mentions
help_options() {
	help_terms | option_words
}

# man_section FILE SECTION: the lines of a man page's SECTION (a title
# underlined with "="), without its title
man_section() {
	awk -v want="$2" '{ l[NR] = $0 } END {
		for (i = 1; i <= NR; i++) {
			if (l[i + 1] ~ /^=+$/ && l[i] ~ /^[A-Z]/) { sec = l[i]; i++; continue }
			if (sec == want) print l[i]
		}
	}' "$1"
}

# man_options FILE: the options a man page's OPTIONS section describes,
# from its terms (the unindented lines that start with "-")
man_options() {
	man_section "$1" OPTIONS | grep -- '^-' | option_words
}

# info_json_matches FILE: info --json of FILE says what info says, member
# by member (tests/cli/infocheck.py); leaves FILE.info and FILE.json
info_json_matches() {
	"$KMF" info "$1" > "$1.info" && "$KMF" info --json "$1" > "$1.json" &&
		python3 "$TEST_DIR/infocheck.py" "$1.info" "$1.json"
}

test_must_fail() {
	want=1
	case $1 in
	--code=*) want=${1#--code=}; shift ;;
	esac
	"$@"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "test_must_fail: '$*' exited $got, expected $want" >&2
		return 1
	fi
	return 0
}

test_expect_success() {
	test_count=$((test_count + 1))
	TRASH=$(mktemp -d)
	if (cd "$TRASH" && export KMEMFLIGHT_SPOOL="$TRASH/spool" && set -e &&
	    eval "$2") > "$TRASH.log" 2>&1; then
		echo "ok $test_count - $(basename "$0" .sh): $1"
		echo pass >> "$KMF_RESULTS"
	else
		echo "not ok $test_count - $(basename "$0" .sh): $1"
		sed 's/^/#   /' "$TRASH.log"
		echo fail >> "$KMF_RESULTS"
		test_failed=$((test_failed + 1))
	fi
	rm -rf "$TRASH" "$TRASH.log"
}

test_done() {
	[ "$test_failed" -eq 0 ]
}

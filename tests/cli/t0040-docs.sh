#!/bin/sh
# shellcheck disable=SC2016,SC1091,SC2034 # MAN is used inside the test strings
# The help texts and the man pages' OPTIONS agree option for option, and every
# subcommand has a man page listed in kmemflight(1).
. "$(dirname "$0")/lib.sh"
MAN=$TEST_DIR/../../Documentation/man

longopts() { grep -o -- '--[a-z][a-z-]*' "$1" | sort -u; }
# the option terms of a man page: unindented lines that start with "-"
manopts() { grep -- '^-' "$1" | grep -o -- '--[a-z][a-z-]*' | sort -u; }

for cmd in attach save watch report info dump plot flame diff summary import; do
	test_expect_success "$cmd: --help and kmemflight-$cmd(1) list the same options" '
		"$KMF" '"$cmd"' --help > help &&
		longopts help > from-help &&
		manopts "$MAN/kmemflight-'"$cmd"'.1.rst" > from-man &&
		test_cmp from-help from-man
	'
	test_expect_success "$cmd: listed in kmemflight(1) and the bare summary" '
		grep -q "kmemflight-'"$cmd"'" "$MAN/kmemflight.1.rst" &&
		"$KMF" | grep -q "^   '"$cmd"' "
	'
done

test_done

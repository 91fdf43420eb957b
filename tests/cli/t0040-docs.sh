#!/bin/sh
# shellcheck disable=SC2016,SC1091,SC2034 # MAN is used inside the test strings
# The docs against the tool: every command's --help and its man page's
# OPTIONS and SYNOPSIS agree option for option; kmemflight(1) lists every
# command that kmemflight --help lists.
. "$(dirname "$0")/lib.sh"
MAN=$TEST_DIR/../../Documentation/man

for cmd in $(kmf_commands); do
	test_expect_success "$cmd: --help and kmemflight-$cmd(1)'s OPTIONS: the same options, short and long" '
		"$KMF" '"$cmd"' --help | help_options > from-help &&
		grep -q -- "^--help$" from-help && grep -qx -- -h from-help &&
		man_options "$MAN/kmemflight-'"$cmd"'.1.rst" > from-man &&
		test_cmp from-help from-man
	'
	test_expect_success "$cmd: --help and kmemflight-$cmd(1)'s SYNOPSIS: the same options" '
		"$KMF" '"$cmd"' --help | help_options > from-help &&
		man_section "$MAN/kmemflight-'"$cmd"'.1.rst" SYNOPSIS | option_words > from-synopsis &&
		test_cmp from-help from-synopsis
	'
	test_expect_success "$cmd: in kmemflight(1)'s SEE ALSO" '
		man_section "$MAN/kmemflight.1.rst" "SEE ALSO" | grep -qF "**kmemflight-'"$cmd"'**"
	'
done

# "**kmemflight report** [*OPTIONS*] *FILE*": the commands of the lines
# of a man page's section that start with one
man_commands() {
	man_section "$1" "$2" | sed -n "s/^\*\*kmemflight \([a-z]*\)\*\*.*/\1/p" | sort -u
}

test_expect_success 'kmemflight(1)'"'"'s SYNOPSIS: every command of --help, and help' '
	{ kmf_commands; echo help; } | sort > want &&
	man_commands "$MAN/kmemflight.1.rst" SYNOPSIS > got &&
	test_cmp want got
'

test_expect_success 'kmemflight(1)'"'"'s DESCRIPTION: every command of --help' '
	kmf_commands | sort > want &&
	man_commands "$MAN/kmemflight.1.rst" DESCRIPTION > got &&
	test_cmp want got
'

DOC=$TEST_DIR/../../Documentation
test_expect_success 'Documentation/README.md links every man page and every document' '
	for f in "$DOC"/man/*.rst "$DOC"/*.md; do
		name=${f#"$DOC"/}
		[ "$name" = README.md ] || grep -qF "]($name)" "$DOC/README.md" || echo "$name"
	done > got &&
	: > want && test_cmp want got
'

test_expect_success 'Documentation/README.md: a page for every command of --help' '
	kmf_commands | sort > want &&
	sed -n "s/^| \[man\/kmemflight-\([a-z]*\)\.1\.rst\](.*/\1/p" "$DOC/README.md" | sort > got &&
	test_cmp want got
'

GUIDE=$DOC/user-guide.md
# guide_section N: the lines of the user guide's section "## N. ..."
guide_section() {
	awk -v n="## $1. " 'index($0, n) == 1 { p = 1; next } /^## / { p = 0 } p' "$GUIDE"
}

test_expect_success 'user guide, section 6: its option tables list every option of report --help' '
	"$KMF" report --help | help_options > want &&
	guide_section 6 | sed -n "s/^| \(\`-[^|]*\) |.*/\1/p" | option_words > got &&
	test_cmp want got
'

# bench_bytes: the bytes per event of benchmarks.md's section 2, the last
# column of its table
bench_bytes() {
	awk '/^## 2\. Bytes per event/ { p = 1; next } /^## / { p = 0 } p && /^\|/' "$DOC/benchmarks.md" |
		awk -F'|' '{ print $(NF - 1) }' | grep -oE '[0-9]+(\.[0-9]+)?' | sort -u
}
# bytes_claims FILE...: every figure the prose of FILE gives as bytes per
# event ("15.33 bytes per event", "16.16 B/event", over a line break too),
# not the output its code blocks show
bytes_claims() {
	for f; do awk '/^```/ { c = !c; next } !c' "$f"; done | tr '\n' ' ' |
		grep -oE '[0-9]+(\.[0-9]+)? +(bytes|B) +(per +|/)event' | grep -oE '^[0-9.]+' | sort -u
}

test_expect_success 'README.md and the user guide give bytes per event as benchmarks.md does' '
	bench_bytes > figures &&
	printf "%s\n" 15.33 16.16 53.9 | sort > want && test_cmp want figures &&
	bytes_claims "$TEST_DIR/../../README.md" "$GUIDE" > claims &&
	test -s claims &&
	comm -23 claims figures > got && : > want && test_cmp want got
'

# guide_start_commands: the kmemflight commands in the code blocks of the
# guide's "Getting started", without the kmemflight and the comments
guide_start_commands() {
	awk '/^## Getting started/ { p = 1; next } /^## / { p = 0 } p' "$GUIDE" |
		awk '/^ *```/ { c = !c; next } c' |
		sed -n 's/^ *kmemflight \(.*\)/\1/p' | sed 's/  *#.*//'
}
# run_commands: each line of stdin as the arguments of $KMF, its stdout
# redirected where the line says, else thrown away; fails at the first
# that fails
run_commands() {
	while IFS= read -r args; do
		eval "\"\$KMF\" $args" > /dev/null || { echo "failed: kmemflight $args"; return 1; }
	done
}

test_expect_success 'user guide, Getting started: its commands run on a trace, exit 0' '
	"$MKTRACE" footprint boot.kmt && cp boot.kmt new.kmt &&
	guide_start_commands > cmds &&
	cut -d" " -f1 cmds | sort -u > got &&
	printf "%s\n" diff info report summary > want && test_cmp want got &&
	grep -qx "report --footprint boot.kmt" cmds &&
	grep -q "^report --caller -s bytes " cmds &&
	run_commands < cmds &&
	test -s base.summary
'

# The boot parameters of save --from-ftrace, on one line to paste: the
# same in its help, in kmemflight-save(1) and in the user guide.
FTRACE_BOOT='trace_event=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,kmem:kmem_cache_free,kmem:mm_page_alloc,kmem:mm_page_free trace_buf_size=64M trace_options=nooverwrite'
test_expect_success 'save --from-ftrace --help: the boot parameters on one line, as in the docs' '
	"$KMF" save --from-ftrace --help > help &&
	grep "trace_event=\|trace_buf_size=\|trace_options=\|kmem:" help > got &&
	echo "    $FTRACE_BOOT" > want &&
	test_cmp want got &&
	grep -x "    $FTRACE_BOOT" "$MAN/kmemflight-save.1.rst" &&
	grep -x "$FTRACE_BOOT" "$TEST_DIR/../../Documentation/user-guide.md"
'

test_done

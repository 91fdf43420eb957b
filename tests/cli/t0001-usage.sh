#!/bin/sh
# shellcheck disable=SC2016,SC1091
# The command line: summary, help, usage errors and their exit codes.
. "$(dirname "$0")/lib.sh"

test_expect_success 'bare kmemflight prints the subcommand summary' '
	"$KMF" > out &&
	grep -q "^   save     stop the kernel recorder" out &&
	grep -q "^   report   perf-kmem style tables" out &&
	grep -q "^   info " out && grep -q "^   dump " out
'

test_expect_success 'unknown subcommand is a usage error (exit 2)' '
	test_must_fail --code=2 "$KMF" frobnicate 2> err &&
	grep -q "'"'"'frobnicate'"'"' is not a kmemflight command" err
'

for cmd in save report info dump; do
	test_expect_success "$cmd --help prints usage and exits 0" '
		"$KMF" '"$cmd"' --help > out &&
		grep -q "^usage: kmemflight '"$cmd"'" out
	'
	test_expect_success "$cmd with an unknown option exits 2" '
		test_must_fail --code=2 "$KMF" '"$cmd"' --bogus x 2> err &&
		grep -q "unknown option .--bogus." err &&
		grep -q "Try .kmemflight '"$cmd"' --help." err
	'
	test_expect_success "$cmd without a file exits 2" '
		test_must_fail --code=2 "$KMF" '"$cmd"' 2> err &&
		grep -q "missing <file>" err
	'
done

for cmd in $("$KMF" | awk '/^   [a-z]+  / { print $1 }'); do
	test_expect_success "help $cmd prints what $cmd --help prints, exit 0" '
		"$KMF" '"$cmd"' --help > want &&
		"$KMF" help '"$cmd"' > got &&
		test_cmp want got
	'
done

test_expect_success 'help of an unknown command is a usage error (exit 2)' '
	test_must_fail --code=2 "$KMF" help frobnicate > out 2> err &&
	test ! -s out &&
	head -1 err > got &&
	echo "kmemflight: '"'"'frobnicate'"'"' is not a kmemflight command." > want &&
	test_cmp want got
'

test_expect_success 'help takes one command (exit 2); help help is the summary' '
	test_must_fail --code=2 "$KMF" help report info 2> err &&
	grep -qx "kmemflight: help takes one command: '"'"'kmemflight help <command>'"'"'" err &&
	"$KMF" help help > got && "$KMF" > want && test_cmp want got
'

test_expect_success 'a short option means one long option in every command' '
	{ for cmd in $(kmf_commands); do "$KMF" "$cmd" --help; done
	  "$KMF" save --from-ftrace --help; } | help_terms |
		sed -n "s/^\(-[a-zA-Z]\), \(--[a-z][a-z-]*\).*/\1 \2/p" | sort -u > pairs &&
	grep -q "^-q --quiet$" pairs &&
	awk "{ n[\$1]++; l[\$1] = l[\$1] \" \" \$2 } END { for (s in n) if (n[s] > 1) print s \":\" l[s] }" pairs > got &&
	: > want && test_cmp want got
'

test_expect_success 'report with an unknown sort key lists the valid ones' '
	"$MKTRACE" basic t.kmt &&
	test_must_fail --code=2 "$KMF" report -s frag,size t.kmt 2> err &&
	grep -q "unknown sort key .size. (valid: frag, hit, bytes, callsite, pingpong, ptr)" err
'

test_expect_success 'options after the file, as in every GNU tool; -- ends them' '
	"$MKTRACE" basic t.kmt &&
	"$KMF" report --live -l 1 t.kmt > before && "$KMF" report t.kmt --live -l 1 > after &&
	test_cmp before after &&
	"$KMF" flame --allocated t.kmt > before && "$KMF" flame t.kmt --allocated > after &&
	test_cmp before after &&
	"$KMF" plot t.kmt -o after.svg && "$KMF" plot -o before.svg t.kmt &&
	test_cmp before.svg after.svg &&
	"$KMF" dump --seconds t.kmt > before && "$KMF" dump t.kmt --seconds > after &&
	test_cmp before after &&
	"$KMF" summary t.kmt > s && "$KMF" diff s t.kmt -l 1 > after && "$KMF" diff -l 1 s t.kmt > before &&
	test_cmp before after &&
	"$KMF" info t.kmt --help > after && "$KMF" info --help > before &&
	test_cmp before after &&
	cp t.kmt ./-t.kmt &&
	"$KMF" report --live -- -t.kmt > after && "$KMF" report --live t.kmt > before &&
	test_cmp before after &&
	test_must_fail --code=2 "$KMF" report --live -t.kmt 2> err &&
	grep -q "^kmemflight report: " err
'

# One wording in every command, the option named as it is spelled: the
# long option's number printed as a character (report --json=1 said
# "option '-\t' is unknown"), "needs a value" for one that takes none.
test_expect_success 'an option refused: unknown, needs a value, takes none; named, in every command' '
	"$MKTRACE" basic t.kmt &&
	while IFS="|" read -r cmd args msg; do
		# shellcheck disable=SC2086 # the words, split
		test_must_fail --code=2 "$KMF" $cmd $args 2> err || { echo "$cmd $args"; exit 1; }
		head -1 err > got &&
		printf "kmemflight %s: %s\n" "$cmd" "$msg" | tr @ "\047" > exp &&
		test_cmp exp got || exit 1
		! grep -q "[[:cntrl:]]" err || exit 1
	done <<-\EOF
	report|--json=1 t.kmt|option @--json@ takes no value
	report|--live=yes t.kmt|option @--live@ takes no value
	report|--vmlinux|option @--vmlinux@ needs a value
	report|--threshold|option @--threshold@ needs a value
	report|-l|option @-l@ needs a value
	diff|--json=1 t.kmt t.kmt|option @--json@ takes no value
	info|--json=1 t.kmt|option @--json@ takes no value
	dump|--seconds=1 t.kmt|option @--seconds@ takes no value
	flame|--allocated=1 t.kmt|option @--allocated@ takes no value
	plot|--title|option @--title@ needs a value
	plot|-q t.kmt|unknown option @-q@
	attach|--spool|option @--spool@ needs a value
	watch|--bogus|unknown option @--bogus@
	import|--quiet=1 a b|option @--quiet@ takes no value
	save|--keep-recording=1 x.kmt|option @--keep-recording@ takes no value
	summary|--bogus t.kmt|unknown option @--bogus@ (valid: -h/--help)
	EOF
'

test_expect_success 'report --line wants a number' '
	"$MKTRACE" basic t.kmt &&
	test_must_fail --code=2 "$KMF" report -l many t.kmt 2> err &&
	grep -q -- "--line wants a number" err
'

test_done

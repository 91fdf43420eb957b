#!/bin/sh
# shellcheck disable=SC2016,SC1091,SC2034 # used inside the test strings
# The bash completion (completion/kmemflight) offers every subcommand, and
# for each one the long options of its help's option terms, which are
# those its man page describes, no more, no less.
. "$(dirname "$0")/lib.sh"
MAN=$TEST_DIR/../../Documentation/man
COMP=$TEST_DIR/../../completion/kmemflight
BC=/usr/share/bash-completion/bash_completion

# complete WORDS...: what the completion offers for the last word
complete_words() {
	bash -c '
		. "$1"; . "$2"; shift 2
		mkdir -p bin && ln -sf "$KMF" bin/kmemflight && PATH=$PWD/bin:$PATH
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_kmemflight kmemflight "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$BC" "$COMP" "$@"
}

test_expect_success 'the subcommands' '
	complete_words kmemflight "" | sort > got &&
	printf "%s\n" --help --version version help attach diff dump flame import info plot report save summary watch | sort > want &&
	test_cmp want got
'

test_expect_success 'help completes one subcommand' '
	complete_words kmemflight help "" | sort > got &&
	printf "%s\n" attach diff dump flame import info plot report save summary watch | sort > want &&
	test_cmp want got &&
	complete_words kmemflight help re > got &&
	echo report > want && test_cmp want got &&
	complete_words kmemflight help report "" > got &&
	! grep -q . got
'

for cmd in $(kmf_commands); do
	test_expect_success "$cmd: the long options of kmemflight-$cmd(1), and of its help" '
		complete_words kmemflight '"$cmd"' -- | sort > got &&
		man_options "$MAN/kmemflight-'"$cmd"'.1.rst" | grep -- "^--" > want &&
		test_cmp want got &&
		"$KMF" '"$cmd"' --help | help_options | grep -- "^--" > want &&
		test_cmp want got
	'
done

test_expect_success 'an option that takes a directory completes directories' '
	mkdir -p spooldir && : > spoolfile &&
	complete_words kmemflight save --boot-dir spool > got &&
	grep -qx spooldir got && ! grep -qx spoolfile got
'

test_expect_success 'after an option that takes a value, nothing; after a flag, files' '
	: > a.kmt &&
	for w in "watch -n" "watch --keep" "watch -c" "plot --callers" \
		"report --line" "report --before" "diff --max-growth-bytes"; do
		# shellcheck disable=SC2086 # the words, split
		complete_words kmemflight $w "" > got &&
		! grep -q . got || { echo "$w: $(cat got)"; return 1; }
	done &&
	complete_words kmemflight report --caller "" > got && grep -qx a.kmt got &&
	complete_words kmemflight plot --raw-ip "" > got && grep -qx a.kmt got &&
	complete_words kmemflight flame -f "" > got &&
	printf "%s\n" folded speedscope > want && test_cmp want got
'

test_expect_success 'the top level offers --version; report -s its sort keys; watch a directory' '
	complete_words kmemflight --ver > got &&
	echo --version > want && test_cmp want got &&
	complete_words kmemflight vers > got &&
	echo version > want && test_cmp want got &&
	complete_words kmemflight report -s pi > got &&
	echo pingpong > want && test_cmp want got &&
	complete_words kmemflight report --sort frag,h > got &&
	echo frag,hit > want && test_cmp want got &&
	mkdir -p boots && : > a.kmt &&
	complete_words kmemflight watch "" > got &&
	grep -qx boots got && ! grep -qx a.kmt got
'

test_expect_success 'plot --without completes the kinds, after a comma too' '
	complete_words kmemflight plot --without "" | sort > got &&
	printf "%s\n" buffers memblock pages slab vmalloc > want &&
	test_cmp want got &&
	complete_words kmemflight plot --without buffers,m > got &&
	printf "%s\n" buffers,memblock > want &&
	test_cmp want got
'

test_expect_success 'a report completes trace files' '
	: > a.kmt && : > b.txt && mkdir -p sub &&
	complete_words kmemflight report "" > got &&
	grep -qx a.kmt got && grep -qx sub got && ! grep -qx b.txt got
'

test_done

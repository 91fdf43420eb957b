# shellcheck shell=sh disable=SC2154 # $suite and $out come from the sourcing script
# check TITLE COMMAND...: run one check of a suite, print "ok N - SUITE:
# TITLE" or "not ok" with the tail of its output, and count it.  The
# sourcing script sets $suite and $out; check_done prints the totals.
pass=0
fail=0
n=0

check() {
	n=$((n + 1))
	title=$1
	shift
	t0=$(date +%s)
	if "$@" > "$out/check.log" 2>&1; then
		took=$(($(date +%s) - t0))
		# a check that took long says so, as a TAP comment
		if [ "$took" -ge 20 ]; then
			echo "ok $n - $suite: $title # $took s"
		else
			echo "ok $n - $suite: $title"
		fi
		pass=$((pass + 1))
	else
		echo "not ok $n - $suite: $title # $(($(date +%s) - t0)) s"
		sed 's/^/#   /' "$out/check.log" | tail -30
		fail=$((fail + 1))
	fi
}

# objects_of: the objects kbuild makes of the C files among the paths on
# stdin, one per line; kernel/sched/clock.c is compiled inside
# build_utility.o, which #includes it
objects_of() {
	sed -n -e 's|^kernel/sched/clock\.c$|kernel/sched/build_utility.c|' -e 's/\.c$/.o/p'
}

check_done() {
	echo "$suite: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

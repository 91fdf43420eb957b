#!/bin/sh
# Run every tests/cli/tNNNN-*.sh, or those named (run.sh t0010 t0099-flame:
# a number or a name, with or without .sh), and print "N passed, N failed".
cd "$(dirname "$0")" || exit 1
results=$(mktemp)
export KMF_RESULTS="$results"
if [ $# -eq 0 ]; then
	set -- t[0-9][0-9][0-9][0-9]-*.sh
fi
for name; do
	name=${name##*/}
	name=${name%.sh}
	found=
	for t in "$name".sh "$name"-*.sh; do
		[ -f "$t" ] || continue
		found=1
		sh "./$t"
	done
	if [ -z "$found" ]; then
		echo "cli: no test $name in tests/cli" >&2
		echo fail >> "$results"
	fi
done
pass=$(grep -c pass "$results")
fail=$(grep -c fail "$results")
rm -f "$results"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

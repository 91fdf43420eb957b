#!/bin/sh
# Run every tests/cli/tNNNN-*.sh and print "N passed, N failed".
cd "$(dirname "$0")" || exit 1
results=$(mktemp)
export KMF_RESULTS="$results"
for t in t[0-9][0-9][0-9][0-9]-*.sh; do
	sh "./$t"
done
pass=$(grep -c pass "$results")
fail=$(grep -c fail "$results")
rm -f "$results"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

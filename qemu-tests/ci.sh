#!/bin/sh
# The test command (README, .ci/run): installs what is missing, then runs
# unit tests and CLI tests under ASan+UBSan, a fuzz smoke run of every
# parser, the parity with perf kmem on a recording of this machine, the
# shell lint, the kernel style gates, the series compiled with Debian's
# configuration, the QEMU boot tests, the flight recorder's triggers in
# a QEMU guest, a trace that survives a crash (a warm reboot, a panic, a
# reset), a Debian boot with systemd in the
# initramfs and the root, and the boot regression gate (ci.sh --fast:
# only the suites that need no kernel).  The kernels
# and the Debian root are made in the background from the start
# (prebuild.sh); the CLI tests and the fuzz smoke run beside the boot
# suites and are printed after them.  Ends with "N passed, N failed".
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
log=$repo/build/ci
mkdir -p "$log"
total_pass=0
total_fail=0

tally() {	# SUITE-OUTPUT-FILE: add its "N passed, N failed" line
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
	if [ -z "$line" ]; then
		echo "ci: $(basename "$1" .log) printed no result; counting it as one failure"
		total_fail=$((total_fail + 1))
		return
	fi
	p=$(echo "$line" | sed -E 's/^(.*[^0-9])?([0-9]+) passed.*/\2/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
}

start=$(date +%s)
suite() {	# NAME COMMAND...: run, show output, tally, say how long it took
	name=$1
	shift
	echo "=== $name"
	t0=$(date +%s)
	"$@" > "$log/$name.log" 2>&1
	cat "$log/$name.log"
	tally "$log/$name.log"
	t1=$(date +%s)
	echo "=== $name: $((t1 - t0)) s, $((t1 - start)) s since the start"
}

unit_tests() {
	make -s asan unit-build || { echo "unit: 0 passed, 1 failed"; return 1; }
	p=0
	f=0
	for t in build-asan/tests/test_*; do
		out=$("$t" 2>&1)
		echo "$out"
		np=$(echo "$out" | sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
		nf=$(echo "$out" | sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
		p=$((p + ${np:-0}))
		f=$((f + ${nf:-0}))
		[ -n "$np" ] || f=$((f + 1))
	done
	echo "unit: $p passed, $f failed"
}

fuzz_smoke() {	# every fuzz target, a fixed number of runs from the seed corpus
	make -s fuzz build-asan/tests/mktrace || { echo "fuzz: 0 passed, 1 failed"; return 1; }
	bash tests/fuzz/mkcorpus.sh > /dev/null
	p=0
	f=0
	for t in build-fuzz/fuzz_*; do
		target=$(basename "$t")
		# the inputs that once crashed it, each run once
		if [ -d "tests/fuzz/regress/$target" ]; then
			if "$t" tests/fuzz/regress/"$target"/* > "$log/$target.regress.log" 2>&1; then
				echo "ok - fuzz: $target, $(find tests/fuzz/regress/"$target" -type f | wc -l) inputs that once crashed it"
				p=$((p + 1))
			else
				echo "not ok - fuzz: $target, inputs that once crashed it"
				tail -30 "$log/$target.regress.log"
				f=$((f + 1))
			fi
		fi
		# a smoke run, the same inputs every time (-seed=1): a fuzzing
		# campaign is the user guide's long run, not the CI's
		runs=${KMF_FUZZ_RUNS:-30000}
		# perf.data seeds are 150-300 KB: 4 ms a run under ASan
		[ "$target" != fuzz_perfdata ] || runs=${KMF_FUZZ_RUNS:-3000}
		if "$t" -runs="$runs" -seed=1 -use_value_profile=1 \
			"tests/fuzz/corpus/$target" > "$log/$target.log" 2>&1; then
			echo "ok - fuzz: $target, $(grep -o 'Done [0-9]* runs' "$log/$target.log")"
			p=$((p + 1))
		else
			echo "not ok - fuzz: $target"
			tail -30 "$log/$target.log"
			f=$((f + 1))
		fi
	done
	echo "fuzz: $p passed, $f failed"
}

shell_lint() {
	if shellcheck -x qemu-tests/*.sh kernel-patch/*.sh tests/cli/*.sh tests/fuzz/*.sh tests/perf/*.sh bench/*.sh .ci/run \
		initramfs-hook/90kmemflight/*.sh; then
		echo "ok - shellcheck: every shell script is clean"
		echo "shellcheck: 1 passed, 0 failed"
	else
		echo "shellcheck: 0 passed, 1 failed"
	fi
}

# The user-space suites that use one core and wait for nothing (ci.sh
# --beside), run beside the boot suites, whose guests leave a core idle
# much of the time: cli, then fuzz, each into its log with its time.
if [ "${1:-}" = --beside ]; then
	for s in cli fuzz; do
		t0=$(date +%s)
		case $s in
		cli) make -s cli ;;
		fuzz) fuzz_smoke ;;
		esac > "$log/$s.log" 2>&1
		echo "$(($(date +%s) - t0))" > "$log/$s.took"
	done
	exit 0
fi

# The fast tier (ci.sh --fast, make fast): what needs no kernel, in
# minutes: unit, shell lint, CLI and the fuzz smoke run, one after the
# other.  Installs nothing: run the full command once for that.
if [ "${1:-}" = --fast ]; then
	make -s all || { echo "0 passed, 1 failed"; exit 1; }
	suite unit unit_tests
	suite shellcheck shell_lint
	suite cli make -s cli
	suite fuzz fuzz_smoke
	echo "ci: $(($(date +%s) - start)) s"
	echo "$total_pass passed, $total_fail failed"
	[ "$total_fail" -eq 0 ]
	exit
fi

echo "=== setup"
qemu-tests/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
make -s all || { echo "0 passed, 1 failed"; exit 1; }
# perf records the whole machine: alone, before anything runs beside it
suite perf tests/perf/parity.sh
# What the kernel suites need, made from here on in the background
# while the user-space suites use one core (qemu-tests/prebuild.sh), in
# a process group of its own that goes when ci.sh does.
prebuild=
beside=
stop_background() {
	[ -z "$prebuild" ] || kill -TERM -- "-$prebuild" 2>/dev/null
	[ -z "$beside" ] || kill -TERM -- "-$beside" 2>/dev/null
}
trap 'stop_background; exit 130' INT TERM
trap stop_background EXIT
setsid nice -n 10 qemu-tests/prebuild.sh > "$log/prebuild.log" 2>&1 &
prebuild=$!
suite unit unit_tests
suite shellcheck shell_lint
suite kernel-style qemu-tests/kernel-style.sh
suite distro-config qemu-tests/distro-config.sh
# cli and fuzz from here, beside the boots, niced below the kernel builds
rm -f "$log/cli.log" "$log/cli.took" "$log/fuzz.log" "$log/fuzz.took"
setsid nice -n 15 sh "$0" --beside > "$log/beside.log" 2>&1 &
beside=$!
suite qemu qemu-tests/run.sh
suite flight qemu-tests/flight-run.sh
suite persist qemu-tests/persist-run.sh
suite systemd qemu-tests/systemd-run.sh
suite boot-regression qemu-tests/boot-regression.sh

wait "$prebuild" || { echo "ci: the background builds (build/ci/prebuild.log) failed:"; tail -20 "$log/prebuild.log"; }
prebuild=
t0=$(date +%s)
wait "$beside"
beside=
echo "=== cli and fuzz, run beside the boot suites: waited $(($(date +%s) - t0)) s for them"
for s in cli fuzz; do
	echo "=== $s"
	if [ -f "$log/$s.log" ]; then
		cat "$log/$s.log"
		tally "$log/$s.log"
	else
		echo "ci: $s did not run (build/ci/beside.log):"
		tail -20 "$log/beside.log"
		total_fail=$((total_fail + 1))
	fi
	echo "=== $s: $(cat "$log/$s.took" 2>/dev/null || echo '?') s, beside the boot suites"
done
echo "ci: $(($(date +%s) - start)) s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]

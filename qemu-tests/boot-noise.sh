#!/bin/sh
# Boot-to-boot noise of the boot footprint (a measurement, not a test):
# boot the QEMU test kernel N times, compare every pair with
# "kmemflight diff", and print the largest difference per category and
# of the total.  The default budgets of kmemflight diff must sit above it
# (Documentation/user-guide.md, "Comparing boots").
#
#   qemu-tests/boot-noise.sh [N] [KERNEL-FLAVOR]     default 4 boots, qemu
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-4}
flavor=${2:-qemu}
out=$repo/build/qemu-tests/noise
kmf=$repo/build/kmemflight
args="kmemtrace.enable=1 kmemtrace.page_stack=6"
make -s -C "$repo" build/kmemflight
kernel=$("$repo/qemu-tests/build-kernel.sh" "$flavor")
rm -rf "$out"
mkdir -p "$out"

i=1
while [ "$i" -le "$n" ]; do
	"$repo/qemu-tests/boot.sh" -k "$kernel" -c 2 -a "$args" "$out/b$i" > "$out/b$i.log" 2>&1
	[ "$(cat "$out/b$i/save.rc")" = 0 ] || { cat "$out/b$i/save.err" >&2; exit 1; }
	i=$((i + 1))
done

echo "$n boots of the $flavor kernel, 2 vCPUs, $args; every pair compared"
i=1
while [ "$i" -le "$n" ]; do
	j=$((i + 1))
	while [ "$j" -le "$n" ]; do
		"$kmf" diff --json --no-default-budgets "$out/b$i/boot.kmt" "$out/b$j/boot.kmt"
		j=$((j + 1))
	done
	i=$((i + 1))
done > "$out/pairs.json"

# rows and totals are one JSON object per line: take category, key,
# base and delta, and keep the largest |delta| of each category
awk '
function field(name,   m) {
	if (match($0, "\"" name "\": -?[0-9]+")) {
		m = substr($0, RSTART, RLENGTH); sub(/.*: /, "", m); return m + 0
	}
	return 0
}
/"category": / {
	cat = $0; sub(/.*"category": "/, "", cat); sub(/".*/, "", cat)
	key = $0; sub(/.*"key": "/, "", key); sub(/".*/, "", key)
	d = field("delta"); if (d < 0) d = -d
	if (d > max[cat]) { max[cat] = d; at[cat] = key; base[cat] = field("base") }
}
/^  "total": / {
	d = field("delta"); if (d < 0) d = -d
	if (d > max["total"]) { max["total"] = d; base["total"] = field("base"); at["total"] = "" }
}
END {
	printf "%-9s %12s %9s  %s\n", "row", "max delta", "of base", "key"
	n = split("total callsite cache page order phase", c, " ")
	for (i = 1; i <= n; i++)
		printf "%-9s %12d %8.2f%%  %s\n", c[i], max[c[i]],
			base[c[i]] ? 100 * max[c[i]] / base[c[i]] : 0, at[c[i]]
}' "$out/pairs.json"

#!/bin/sh
# In the ftrace boot guest (qemu-tests/run.sh, through boot.sh -x): a
# kernel booted with trace_event=kmem:... and no kmemtrace recorder.
# Freeze the top buffer and the boot instance "kmfboot", note ftrace's
# own per-CPU entry counts of both and, for the smaller instance, count
# what ftrace prints of it (per CPU and event, and the kmalloc sizes;
# formatting the top buffer's text takes minutes under TCG), then save
# both with --from-ftrace.  hook.out gets the uptime of each step.
set -u

T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T"
echo 0 > "$T/tracing_on"
echo 0 > "$T/instances/kmfboot/tracing_on"
step() { read -r up _ < /proc/uptime; echo "$up $1"; }
step start
for c in "$T"/per_cpu/cpu*; do
	echo "${c##*cpu} $(awk '$1 == "entries:" { print $2 }' "$c/stats")"
done > /out/ftrace-top.entries
for c in "$T"/instances/kmfboot/per_cpu/cpu*; do
	echo "${c##*cpu} $(awk '$1 == "entries:" { print $2 }' "$c/stats")"
done > /out/ftrace-inst.entries

# "cpu event count", then "kmalloc bytes_req bytes_alloc" sums
counts() {
	awk '/^#/ { next }
	{
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/) { cpu = substr($i, 2, length($i) - 2) + 0 }
			if ($i ~ /^(kmalloc|kmem_cache_alloc|kfree|kmem_cache_free|mm_page_alloc|mm_page_free):$/) {
				ev = substr($i, 1, length($i) - 1)
				n[cpu " " ev]++
			}
			if (ev == "kmalloc" && $i ~ /^bytes_req=/) req += substr($i, 11)
			if (ev == "kmalloc" && $i ~ /^bytes_alloc=/) alloc += substr($i, 13)
		}
		ev = ""
	}
	END { for (k in n) print k, n[k]; print "kmalloc", req, alloc }' "$1" | sort
}
counts "$T/instances/kmfboot/trace" > /out/ftrace-inst.counts
step "instance counted"

time kmemflight save --from-ftrace /out/ftrace.kmt > /out/ftrace-save.out 2> /out/ftrace-save.err
echo $? > /out/ftrace-save.rc
step "top saved"
kmemflight save --from-ftrace kmfboot /out/ftrace-inst.kmt > /out/ftrace-inst.out 2> /out/ftrace-inst.err
echo $? > /out/ftrace-inst.rc
step "instance saved"

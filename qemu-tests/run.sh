#!/bin/sh
# The QEMU tests: build the patched kernel, boot it under TCG with
# different recorder settings, save in the guest, check on the host.
# Prints "ok/not ok" per check and "qemu: N passed, N failed".
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${KMF_QEMU_OUT:-$repo/build/qemu-tests}
kmf=$repo/build/kmemflight
suite=qemu
# shellcheck source=qemu-tests/check.sh
. "$repo/qemu-tests/check.sh"

mkdir -p "$out"
rm -f "$out/retries"
kernel=$("$repo/qemu-tests/build-kernel.sh" qemu) || {
	echo "not ok 1 - qemu: build the patched kernel"
	echo "qemu: 0 passed, 1 failed"
	exit 1
}
make -s -C "$repo" build/kmemflight || exit 1

boot() {	# boot NAME CPUS CMDLINE
	"$repo/qemu-tests/boot.sh" -k "$kernel" -c "$2" -a "$3" "$out/$1"
}

# info's per-CPU table: cpu node subbufs kernel in_file lost
cpu_rows() { "$kmf" info "$1" | awk '$1 ~ /^[0-9]+$/'; }
total_row() { "$kmf" info "$1" | awk '$1 == "total"'; }

saved_ok() { [ "$(cat "$out/$1/save.rc")" = 0 ] || { cat "$out/$1/save.err"; return 1; }; }

every_cpu_recorded() {	# NAME CPUS: each CPU has events in the file
	cpu_rows "$out/$1/boot.kmt" |
		awk -v want="$2" '{ print; n++; if ($5 == 0) bad = 1 }
			END { exit bad || n != want }'
}

boot_saved() {	# NAME CPUS CMDLINE: boot, and save must have succeeded
	boot "$1" "$2" "$3" && saved_ok "$1"
}

nothing_lost() {
	cpu_rows "$out/$1/boot.kmt" | awk '{ print; n++; if ($6 != 0) bad = 1 } END { exit bad || !n }'
}

some_lost() { cpu_rows "$out/$1/boot.kmt" | awk '{ print; l += $6 } END { exit !(l > 0) }'; }

kernel_equals_file() {	# the kernel's counters equal the events decoded
	cpu_rows "$out/$1/boot.kmt" | awk '{ print; n++; if ($4 != $5) bad = 1 } END { exit bad || !n }'
}

report_totals_match() {	# report's Events total == kernel counters in the file
	"$kmf" report "$out/$1/boot.kmt" > "$out/$1/report.txt" 2> "$out/$1/report.err" || return 1
	got=$(sed -n 's/^Events: \([0-9]*\) .*/\1/p' "$out/$1/report.txt")
	want=$(total_row "$out/$1/boot.kmt" | awk '{ print $2 }')
	echo "report Events: $got, kernel counted: $want"
	[ -n "$got" ] && [ "$got" = "$want" ] && [ "$got" -gt 0 ]
}

live_consistent() {	# the footprint adds up with the SUMMARY
	"$kmf" report --live --slab "$out/$1/boot.kmt" > "$out/$1/live.txt" || return 1
	retained=$(awk '$1 == "total" && $2 == "|" { print $3 }' "$out/$1/live.txt")
	net=$(sed -n 's/^Net total bytes allocated: //p' "$out/$1/live.txt")
	missed=$(sed -n 's/^([0-9]* objects, \([0-9]*\) bytes, were allocated again.*/\1/p' "$out/$1/live.txt")
	echo "retained $retained, net $net, untraced frees ${missed:-0}"
	[ -n "$retained" ] && [ "$retained" -gt 0 ] && [ "$retained" -eq $((net - ${missed:-0})) ]
}

phases_recorded() {	# the levels in order, initcalls, and what they kept adds up
	"$kmf" report --phase --live "$out/$1/boot.kmt" > "$out/$1/phase.txt" || return 1
	sed -n 's/^ \(level [a-z]*\|exec [^ ]*\) (.*/\1/p' "$out/$1/phase.txt" | tr '\n' ' ' > "$out/$1/phases"
	cat "$out/$1/phases"; echo
	grep -q "^level console level early level pure level core level postcore level arch level subsys level fs level device level late exec /init $" "$out/$1/phases" || return 1
	kept=$(awk -F'|' '/^ (early|level|exec) / { s += $3 } END { print s }' "$out/$1/phase.txt")
	retained=$(awk '$1 == "total" && $2 == "|" { print $3 }' "$out/$1/phase.txt")
	echo "phases kept $kept, retained $retained"
	[ "$kept" = "$retained" ] && [ "$(grep -c '^ [a-z_0-9.]*+0x0 ' "$out/$1/phase.txt")" -gt 100 ]
}

page_callers() {	# the page table names callers from the recorded stacks
	"$kmf" report --page --csv "$out/$1/boot.kmt" > "$out/$1/page.csv" || return 1
	awk -F, '/^# table: page_callers/ { t = 1; next } /^$/ { t = 0 }
		t && NR > 2 && $2 ~ /^0x/ { split($1, a, "+"); b[a[1] == "" ? "(unknown)" : a[1]] += $3 }
		END { for (k in b) print b[k], k }' "$out/$1/page.csv" | sort -rn > "$out/$1/page-callers"
	head -8 "$out/$1/page-callers"
	grep -q ' new_slab$' "$out/$1/page-callers" &&
	! grep -q '(unknown)' "$out/$1/page-callers" &&
	! grep -qE ' (__alloc_pages|alloc_pages|folio_alloc)' "$out/$1/page-callers" || return 1
	# the pages still held add up by caller to --live's total
	"$kmf" report --live "$out/$1/boot.kmt" > "$out/$1/live-pages.txt" || return 1
	held=$(sed -n 's/^Pages still allocated: [0-9]* blocks, \([0-9]*\) bytes.*/\1/p' "$out/$1/live-pages.txt")
	sum=$(sed -n '/^ Page caller/,/^$/p' "$out/$1/live-pages.txt" |
		awk -F'|' 'NR > 2 && NF == 3 { s += $2 } END { print s + 0 }')
	echo "pages held $held, by caller $sum"
	[ -n "$held" ] && [ "$held" -gt 0 ] && [ "$held" = "$sum" ]
}

vmlinux_names() {	# the callsite table from vmlinux == from the trace's kallsyms
	vmlinux=${kernel%/arch/x86/boot/bzImage}/vmlinux
	"$kmf" report --vmlinux "$vmlinux" "$out/$1/boot.kmt" 2> "$out/$1/vmlinux.err" |
		sed 's/ ([^)]*:[0-9]*) / /' | tr -s ' ' > "$out/$1/report-vmlinux.txt" || return 1
	cat "$out/$1/vmlinux.err"
	"$kmf" report "$out/$1/boot.kmt" | tr -s ' ' > "$out/$1/report-kallsyms.txt" &&
	cmp "$out/$1/report-kallsyms.txt" "$out/$1/report-vmlinux.txt" &&
	[ "$(wc -l < "$out/$1/report-vmlinux.txt")" -gt 100 ]
}

before_trace_init() {	# callsites that only run before trace_init()
	grep -E '^ (sched_init|rcu_init|workqueue_init_early|mm_core_init|kmem_cache_init)[a-z_]*\+0x' \
		"$out/$1/report.txt" | head -5 | tee /dev/stderr | grep -q .
}

# memblock from the first reservation: the kernel image reserved before
# the clock runs (time 0), the memmap of 1 GiB (262144 struct pages of 64
# bytes: 16 MiB exactly), the per-CPU first chunk, the hash tables; the
# initrd and the init sections given to the page allocator; all of the
# early events kept, none dropped.
memblock_recorded() {	# NAME
	"$kmf" report --memblock "$out/$1/boot.kmt" > "$out/$1/memblock.txt" &&
	cat "$out/$1/memblock.txt" &&
	"$kmf" report --memblock --json "$out/$1/boot.kmt" | python3 -c '
import json, sys
d = json.load(sys.stdin)
held, top = {}, {}
for c in d["callers"]:
    f = c["callsite"].split("+")[0].split(".")[0]
    held[f] = held.get(f, 0) + c["held"]
    top[f] = max(top.get(f, 0), c["held"])
given = {g["what"]: g["bytes"] for g in d["given_by"]}
ok = (top.get("sparse_init_nid") == 16777216 and
      held.get("setup_arch", 0) > 8 << 20 and
      held.get("pcpu_embed_first_chunk", 0) > 0 and
      held.get("alloc_large_system_hash", 0) > 0 and
      given.get("initrd", 0) > 0 and
      given.get("unused kernel image (initmem)", 0) > 0 and
      d["early_dropped"] == 0 and d["early_kept"] > 20 and
      d["early_pages_dropped"] == 0 and d["early_pages_kept"] >= 64 and
      (1000 << 20) < d["ram"] <= 1 << 30 and
      d["held"] == sum(c["held"] for c in d["callers"]))
print("memblock: %d events, %d early, RAM %d, held %d; memmap %d" %
      (d["events"], d["early_kept"], d["ram"], d["held"], top.get("sparse_init_nid", 0)))
sys.exit(0 if ok else 1)' &&
	"$kmf" dump "$out/$1/boot.kmt" | awk '$4 == "memblock" { print; exit !($1 == 0 && $5 == "op=reserve") }'
}

# The balance at the save (report --footprint): the parts add up to the
# kernel's own totals, and the trace explains what the kernel holds: the
# pages from before the probes (the vmalloc area's page tables, the boot
# caches' slabs) are in it, save folds the per-CPU counters before it
# reads them, while the recorder still records; what is left is the
# part-pages of memblock's reservations and the few events of stopping.
# vmalloc: the areas the trace holds are the kernel's VmallocUsed, but
# for the areas allocated or freed while save ran (from its exec to the
# recording-off mark): save reads meminfo while the recorder records,
# and the boot's late work goes on beside it (a kworker's 16 kB stack,
# allocated after the read and before the stop, was seen).
footprint_balance() {	# NAME
	"$kmf" report --footprint "$out/$1/boot.kmt" &&
	"$kmf" report --footprint --json "$out/$1/boot.kmt" > "$out/$1/footprint.json" &&
	"$kmf" dump "$out/$1/boot.kmt" > "$out/$1/footprint.dump" &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
exec_ts, off_ts, areas = None, None, []
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) < 5:
        continue
    if f[3] == "task" and f[4] == "op=exec" and "comm=kmemflight" in f:
        exec_ts, areas = int(f[0]), []
    elif f[3] == "mark" and f[4] == "mark=2":
        off_ts = int(f[0])
    elif f[3] == "vmalloc" and exec_ts is not None and off_ts is None:
        areas.append(int(f[6].split("=")[1]) * 4096)
window = sum(areas)
ok = (d["ram"] - d["mem_total"] == d["reserved"] and
      d["mem_total"] - d["mem_free"] - d["pcp_free"] == d["allocated"] and
      d["allocated"] == d["pages_held"] + d["recorder_buffers"] + d["unexplained"] and
      abs(d["unexplained"]) < 256 << 10 and
      d["reserved"] - 8192 <= d["memblock_held"] <= d["reserved"] and
      d["kernel_counts"]["VmallocUsed"] > 0 and
      abs(d["vmalloc_held"] - d["kernel_counts"]["VmallocUsed"]) <= window and
      exec_ts is not None and off_ts is not None and
      d["explained_pct"] >= 99.9)
print("explained %.3f %%, not explained %d, vmalloc %d (VmallocUsed %d; areas while save ran: %s)" %
      (d["explained_pct"], d["unexplained"], d["vmalloc_held"], d["kernel_counts"]["VmallocUsed"], areas))
sys.exit(0 if ok else 1)' "$out/$1/footprint.json" "$out/$1/footprint.dump"
}

# The main job's first screen (demo.sh): what the trace holds, then where
# the boot's memory went (the balance, who holds it), then the callers by
# bytes allocated, most first; not perf's fragmentation order.
demo_screen() {	# NAME
	"$repo/qemu-tests/demo-report.sh" "$out/$1/boot.kmt" 10 > "$out/$1/demo.txt" &&
	grep '^\$ kmemflight' "$out/$1/demo.txt" | sed "s|$out/$1/||" > "$out/$1/demo.cmds" &&
	printf '%s\n' '$ kmemflight info boot.kmt' '$ kmemflight report --footprint boot.kmt' \
		'$ kmemflight report --caller -s bytes -l 10 boot.kmt' | cmp - "$out/$1/demo.cmds" &&
	grep -q '^The kernel holds [0-9]* bytes (RAM, less what is free); the trace explains' "$out/$1/demo.txt" &&
	grep -q '^Who holds it: the 3 callers holding most of each part' "$out/$1/demo.txt" &&
	sed -n '/^\$ kmemflight report --caller/,$p' "$out/$1/demo.txt" |
		awk -F'|' '/\+0x/ { split($2, a, "/"); n++; if (n > 1 && a[1] + 0 > last) bad = 1; last = a[1] + 0 }
			END { print n " callers, by bytes"; exit bad || n != 10 }'
}

# The recorder's own objects, all of them: those it allocated before its
# kmalloc probe (the pool's arrays and the boot CPU's slots, written with
# the early pages before the first mark; the wrappers' filter is static
# data) are among the records of the start, up to the
# memblock_early record; what it allocated attaching its probes (the
# probe arrays, between marks 7 and 8) is its own; and the footprint's
# recorder objects hold both.
recorder_own_complete() {	# NAME
	"$kmf" dump "$out/$1/boot.kmt" > "$out/$1/dump.txt" &&
	"$kmf" report --footprint --json "$out/$1/boot.kmt" > "$out/$1/footprint.json" &&
	python3 -c '
import json, re, sys
d = json.load(open(sys.argv[2]))
early, window, sites, marks, inwin = 0, 0, set(), [], False
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 4:
        continue
    if f[3] == "memblock_early":	# the last of the records of the start
        break
    if f[3] == "mark":
        marks.append(f[4])
        inwin = f[4] == "mark=7" or (inwin and f[4] != "mark=8")
    elif f[3] == "kmalloc" and f[2] == "task:0":
        kv = dict(x.split("=", 1) for x in f[4:] if "=" in x)
        site = re.sub(r"[+].*", "", kv["call_site"])
        if site.startswith("kmt_"):
            early += int(kv["bytes_alloc"])
            sites.add(site)
        elif inwin:
            window += int(kv["bytes_alloc"])
print("before the probes:", early, sorted(sites), "attaching:", window,
      "marks:", marks, "recorder objects:", d["recorder_objects"])
# each allocating function, or the one it is inlined into
ok = (sites & {"kmt_alloc_cpu", "kmt_cpu_prepare"} and
      sites & {"kmt_keep_pool_arrays", "kmt_alloc_pool", "kmt_setup_buffers"} and
      marks == ["mark=1", "mark=7", "mark=8"] and window >= 5 * 32 and
      d["recorder_objects"] >= early + window)
sys.exit(0 if ok else 1)' "$out/$1/dump.txt" "$out/$1/footprint.json"
}

# Callers behind wrappers: kvmalloc()'s users are named, the wrapper is
# not (tcp_metrics_init() kvzalloc()s its 128 KiB hash table at boot),
# and -v lists the wrappers with the allocations that went through each.
wrappers_named() {	# NAME
	"$kmf" report --live -v "$out/$1/boot.kmt" > "$out/$1/live-v.txt" &&
	grep -E "^ tcp_metrics_init\+0x[0-9a-f]+ +\| +131072 \| +1 \|" "$out/$1/live-v.txt" &&
	! grep -E "^ (__kvmalloc_node_noprof|kvasprintf_const|kobject_set_name_vargs|mempool_init_node)\+" "$out/$1/live-v.txt" &&
	grep -E "^  __kvmalloc_node_noprof +[1-9][0-9]*$" "$out/$1/live-v.txt" &&
	grep -E "^[1-9][0-9]* allocations made through a wrapper are put to the first caller outside it:$" "$out/$1/live-v.txt"
}

# ... and their callers came from the wrappers' own entries: every
# allocation through one in the trace is counted in stats (via_kept,
# via_unwound), and on the QEMU boot none needed the unwinder.
wrappers_kept() {	# NAME
	n=$(sed -n 's/^\([0-9]*\) allocations made through a wrapper .*/\1/p' "$out/$1/live-v.txt")
	awk -v n="${n:-0}" '$1 !~ /^#/ { k += $9; u += $10 }
		END { print "trace " n " kept " k " unwound " u; exit !(n > 0 && k == n && u == 0) }' \
		"$out/$1/stats"
}

# The picture of the boot (kmemflight plot), as librsvg draws it: valid,
# nothing outside it; the stack at the end is report --footprint's
# memblock, pages and buffers, to the byte; the phases are the boot's; memblock, page and
# slab callers are among the 8 callers' lines, and the processes, in a
# panel of their own, are 8 at most.
plot_real_boot() {	# NAME
	"$kmf" plot -o "$out/$1/boot.svg" "$out/$1/boot.kmt" 2> "$out/$1/plot.err" &&
	cat "$out/$1/plot.err" && [ ! -s "$out/$1/plot.err" ] &&
	python3 "$repo/tests/cli/svgcheck.py" render "$out/$1/boot.svg" &&
	python3 "$repo/tests/cli/svgcheck.py" values "$out/$1/boot.svg" > "$out/$1/plot.values" &&
	"$kmf" report --footprint --json "$out/$1/boot.kmt" > "$out/$1/footprint.json" &&
	python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
v = open(sys.argv[2]).read()
kinds = {k: int(e) for k, e in re.findall(r"^kind (\w+) end=(\d+)", v, re.M)}
phases = re.findall(r"^phase (\S+) ", v, re.M)
callers = re.findall(r"^caller (\w+) ", v, re.M)
parts = d["memblock_held"] + d["pages_held"] + d["recorder_buffers"]
print("kinds", kinds, "sum", sum(kinds.values()), "memblock + pages + buffers", parts)
print("phases", " ".join(phases))
print("callers", " ".join(callers))
ok = (sum(kinds.values()) == parts and
      kinds["vmalloc"] == d["vmalloc_held"] and kinds["slab"] == d["slab_objects_held"] and
      kinds["recorder"] == d["recorder_buffers"] and
      phases == ["early", "console", "early", "pure", "core", "postcore", "arch",
                 "subsys", "fs", "device", "late", "/init"] and
      {"memblock", "pages", "slab"} <= set(callers) and
      len([c for c in callers if c != "process"]) == 8 and
      1 <= callers.count("process") <= 8)
sys.exit(0 if ok else 1)' "$out/$1/footprint.json" "$out/$1/plot.values"
}

# The footprint as stacks (kmemflight flame): page stacks everywhere
# (kmemtrace.page_stack=6), all but memblock is the footprint's pages
# and buffers to the byte, and speedscope's schema holds for the JSON.
flame_real_boot() {	# NAME
	schema=${KMF_CACHE:-$HOME/.cache/kmemflight}/speedscope-1.25.0/file-format-schema.json
	"$kmf" flame -o "$out/$1/boot.folded" "$out/$1/boot.kmt" &&
	"$kmf" flame -o "$out/$1/boot.json" "$out/$1/boot.kmt" &&
	python3 "$repo/tests/cli/jsoncheck.py" "$schema" "$out/$1/boot.json" > "$out/$1/flame.back" &&
	cmp "$out/$1/boot.folded" "$out/$1/flame.back" &&
	! grep "^pages;\[no-stack\]" "$out/$1/boot.folded" &&
	grep -q "^slab;\[free-room-in-slab-pages\] " "$out/$1/boot.folded" &&
	"$kmf" report --footprint --json "$out/$1/boot.kmt" > "$out/$1/footprint.json" &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
roots = {}
for line in open(sys.argv[2]):
    stack, w = line.rsplit(" ", 1)
    roots[stack.split(";")[0]] = roots.get(stack.split(";")[0], 0) + int(w)
rest = sum(w for k, w in roots.items() if k != "memblock")
print(roots, "not memblock", rest, "pages + buffers", d["pages_held"] + d["recorder_buffers"])
sys.exit(0 if rest == d["pages_held"] + d["recorder_buffers"] else 1)' "$out/$1/footprint.json" "$out/$1/boot.folded"
}

for cpus in 1 2; do
	name=default-${cpus}cpu
	# the 2-CPU boot also records page callers (6 return addresses)
	args="kmemtrace.enable=1"
	[ "$cpus" = 2 ] && args="$args kmemtrace.page_stack=6"
	check "boot $cpus vCPU with $args and save in the guest" \
		boot_saved "$name" "$cpus" "$args"
	[ -f "$out/$name/boot.kmt" ] || continue
	check "$name: events recorded on each of the $cpus CPUs" every_cpu_recorded "$name" "$cpus"
	check "$name: default buffers lose nothing" nothing_lost "$name"
	check "$name: kernel event counters equal the events in the file" kernel_equals_file "$name"
	check "$name: report totals equal the file's counts" report_totals_match "$name"
	check "$name: events from before trace_init() (sched_init, rcu_init, ...)" before_trace_init "$name"
	check "$name: the recorder's own allocations are in the trace, and shown in one line" \
		sh -c "grep -E '^ (kmt_|kmemtrace)[a-z_]*\+0x' '$out/$name/report.txt' &&
			'$kmf' report --live '$out/$name/boot.kmt' |
			grep -E '^The recorder.s own: [1-9][0-9]* bytes in [1-9][0-9]* objects'"
	check "$name: the recorder's objects from before its probes and its probe arrays are its own" \
		recorder_own_complete "$name"
	check "$name: saved file is mode 0600" sh -c "[ \$(stat -c %a '$out/$name/boot.kmt') = 600 ]"
	check "$name: a plain save in an initramfs without /run prints one line, no warning" \
		sh -c "cat '$out/$name/save.err' && [ ! -s '$out/$name/save.err' ] &&
			[ \"\$(wc -l < '$out/$name/save.out')\" = 1 ]"
	check "$name: --live retained bytes == net allocated - frees the trace missed" live_consistent "$name"
	check "$name: boot phases: the initcall levels, then exec /init" phases_recorded "$name"
	[ "$cpus" = 2 ] && check "$name: page callers: new_slab and others, none unknown" \
		page_callers "$name"
	check "$name: --vmlinux (libelf, build-id checked) names callsites as kallsyms does" \
		vmlinux_names "$name"
	check "$name: GFP flags are named with the kernel's own table" \
		sh -c "'$kmf' dump '$out/$name/boot.kmt' | grep -m1 ' kmalloc .* gfp_flags=GFP_KERNEL'"
	check "$name: dmesg shows the recorder started at kmem_cache_init" \
		grep -q "kmemtrace: recording from kmem_cache_init" "$out/$name/dmesg"
	check "$name: memblock from the first reservation: image, memmap, per-CPU, hashes, initrd" \
		memblock_recorded "$name"
	check "$name: the footprint adds up to the kernel's totals and explains >= 99.9 %; vmalloc == VmallocUsed but for what save overlapped" \
		footprint_balance "$name"
	check "$name: the main job's first screen: the trace, where its memory went, the callers by bytes" \
		demo_screen "$name"
	check "$name: kvmalloc() users named, not the wrapper; -v lists the wrappers" \
		wrappers_named "$name"
	check "$name: the wrappers kept their callers: no allocation through one was unwound" \
		wrappers_kept "$name"
	[ "$cpus" = 2 ] && check "$name: plot: rendered, the stack at the end is the footprint, the boot's phases" \
		plot_real_boot "$name"
	[ "$cpus" = 2 ] && check "$name: flame: page stacks, the footprint's pages and buffers, speedscope's schema" \
		flame_real_boot "$name"
done

name=default-1cpu
check "save by a user, tracefs not mounted: mounting it needs root (exit 1)" \
	sh -c "[ \$(cat '$out/$name/notmounted.rc') = 1 ] &&
		grep 'tracefs is not mounted at /sys/kernel/tracing, and mounting it needs root' '$out/$name/notmounted.err'"
check "save as root mounted tracefs itself" \
	grep -q '^nodev /sys/kernel/tracing tracefs ' "$out/$name/mounts"
check "save as an unprivileged user says the recorder is root-only (exit 1)" \
	sh -c "[ \$(cat '$out/$name/notroot.rc') = 1 ] &&
		grep 'permission denied: the recorder is root-only (run as root)' '$out/$name/notroot.err'"
check "a second save finds nothing left to save: exit 1, the first file stays whole" \
	sh -c "[ \$(cat '$out/$name/save2.rc') = 1 ] &&
		grep -x \"kmemflight save: error: nothing left to save: the recorder's buffers were given back (by an earlier save, which holds the trace, or through free_buffer); to record from now on, write 1 to /sys/kernel/tracing/kmemtrace/enable\" '$out/$name/save2.err' &&
		grep -q ' /out/boot.kmt$' '$out/$name/save2.before' &&
		cmp '$out/$name/save2.before' '$out/$name/save2.after'"

name=small-2cpu
check "boot 2 vCPU with a too-small buffer (2 x 4 KiB)" \
	boot_saved "$name" 2 "kmemtrace.enable=1 kmemtrace.subbufs=2 kmemtrace.subbuf_size=4096"
if [ -f "$out/$name/boot.kmt" ]; then
	check "$name: lost events counted on the boot CPU" \
		sh -c "'$kmf' info '$out/$name/boot.kmt' | awk '\$1 == 0 { print; exit !(\$6 > 0) }'"
	check "$name: save warns about the loss" grep -q "events were lost: the buffers filled up" "$out/$name/save.err"
	check "$name: report still works and prints the per-CPU loss" \
		sh -c "'$kmf' report '$out/$name/boot.kmt' > '$out/$name/report.txt' 2>/dev/null &&
			lost=\$('$kmf' info '$out/$name/boot.kmt' | awk '\$1 == \"total\" { print \$4 }') &&
			grep \"^Events lost: \$lost (cpu0 \" '$out/$name/report.txt'"
	check "$name: the earliest events are kept (the early memblock and page events, the recorder's objects, then the ON mark)" \
		sh -c "'$kmf' dump '$out/$name/boot.kmt' | head -1 | grep -q '^0 0 task:0 memblock op=reserve ' &&
			'$kmf' dump '$out/$name/boot.kmt' | awk '\$4 !~ /^(memblock|mm_page_alloc|mm_page_free)\$/ &&
				!(\$4 == \"kmalloc\" && \$5 ~ /^call_site=kmt_/) { print; exit }' | grep -q ' mark mark=1$'"
	check "$name: kernel event counters equal the events in the file" kernel_equals_file "$name"
fi

name=off
check "boot with kmemtrace.enable=0: save explains how to turn it on" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 1 -a 'kmemtrace.enable=0' '$out/$name' &&
		[ \"\$(cat '$out/$name/save.rc')\" = 1 ] &&
		grep 'the recorder was never started: boot with kmemtrace.enable=1' '$out/$name/save.err' &&
		[ ! -e '$out/$name/boot.kmt' ]"

name=invalid
check "invalid boot parameters: clear warnings, recorder off, boot continues" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 1 \
		-a 'kmemtrace.enable=yes kmemtrace.subbufs=5000 kmemtrace.subbufs=-1 kmemtrace.subbufs=99999999999 kmemtrace.subbufs=lots kmemtrace.subbuf_size=1000 kmemtrace.flight_size=1K kmemtrace.events=kmem,nope' '$out/$name' &&
		grep 'kmemtrace.events=kmem,nope is invalid: use a comma-separated list of kmem, boot, reclaim, compaction, latency, all; recorder stays off' '$out/$name/dmesg' &&
		grep 'kmemtrace.enable=yes is invalid: use 0 or 1; recorder stays off' '$out/$name/dmesg' &&
		grep 'kmemtrace.subbufs=5000 is invalid: use 2..1024; recorder stays off' '$out/$name/dmesg' &&
		grep 'kmemtrace.subbufs=-1 is invalid: use 2..1024; recorder stays off' '$out/$name/dmesg' &&
		grep 'kmemtrace.subbufs=99999999999 is invalid: use 2..1024; recorder stays off' '$out/$name/dmesg' &&
		grep 'kmemtrace.subbufs=lots is invalid: use 2..1024; recorder stays off' '$out/$name/dmesg' &&
		grep 'kmemtrace.subbuf_size=1000 is invalid: use a power of two' '$out/$name/dmesg' &&
		grep 'kmemtrace.flight_size=1K is invalid: use 8192 to 536870912 bytes (K, M, G suffixes); recorder stays off' '$out/$name/dmesg' &&
		[ \"\$(cat '$out/$name/save.rc')\" = 1 ]"

# Booted in flight mode, the pool is flight mode's own, 4 MiB
# (kmemtrace.flight_size), and the save gives it back.
name=flight-default-2cpu
check "boot 2 vCPU in flight mode with the default pool and save in the guest" \
	boot_saved "$name" 2 "kmemtrace.enable=1 kmemtrace.mode=flight"
if [ -f "$out/$name/boot.kmt" ]; then
	check "$name: flight mode's own pool, 32 x 128 KiB, given back after the save" \
		sh -c "grep -x 'kmemtrace: recording from kmem_cache_init in flight mode: 32 x 131072 bytes for all CPUs' '$out/$name/dmesg' &&
			'$kmf' info '$out/$name/boot.kmt' | grep '^buffers:     4194304 bytes in one pool; ' &&
			grep -x 'kmemtrace: gave back the pool and the slots: 4198400 bytes' '$out/$name/dmesg' &&
			awk '!/^#/ { n++; if (\$8 != 1) bad = 1 } END { exit bad || n != 2 }' '$out/$name/stats.presave'"
fi

# Kernel lockdown.  lockdown=integrity (Secure Boot on the big
# distributions) leaves tracefs open: the boot saves and reports like any
# other.  Raised to confidentiality at run time, the files refuse to open
# (EPERM) and save says why; booted with lockdown=confidentiality, the
# recorder stays off, its files are never created, and save says why.
name=lockdown-integrity
check "lockdown=integrity: boot, save in the guest, then raise it to confidentiality" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 2 -x '$repo/qemu-tests/lockdown-hook.sh' \
		-a 'kmemtrace.enable=1 lockdown=integrity' '$out/$name' &&
		[ \"\$(cat '$out/$name/ld-save.rc')\" = 0 ] || { cat '$out/$name/ld-save.err'; exit 1; }"
if [ -f "$out/$name/boot.kmt" ]; then
	check "$name: the kernel was in integrity mode when it saved" \
		grep -qx 'none \[integrity\] confidentiality' "$out/$name/lockdown-before"
	check "$name: default buffers lose nothing" nothing_lost "$name"
	check "$name: kernel event counters equal the events in the file" kernel_equals_file "$name"
	check "$name: report totals equal the file's counts" report_totals_match "$name"
	check "$name: boot phases: the initcall levels, then exec /init" phases_recorded "$name"
	check "$name: raised to confidentiality, save says what lockdown closes (exit 1), writes nothing" \
		sh -c "grep -qx 'none integrity \[confidentiality\]' '$out/$name/lockdown-after' &&
			[ \"\$(cat '$out/$name/ld-conf.rc')\" = 1 ] &&
			grep 'kmemtrace/header: Operation not permitted: the kernel is locked down for confidentiality (lockdown=confidentiality in /sys/kernel/security/lockdown), which closes tracefs, and with it the recorder and ftrace; lockdown=integrity, what Secure Boot gives on Debian, Fedora, RHEL and Ubuntu, leaves them open' '$out/$name/ld-conf.err' &&
			[ \"\$(wc -l < '$out/$name/ld-conf.err')\" = 1 ] && ! grep -q y.kmt '$out/$name/ld-conf.tmp'"
	check "$name: the guest's later save fails too, and the first file stays whole" \
		sh -c "[ \"\$(cat '$out/$name/save.rc')\" = 1 ] && grep -q 'locked down for confidentiality' '$out/$name/save.err' &&
			md5sum '$out/$name/boot.kmt' | cut -d' ' -f1 | grep -qx \"\$(cut -d' ' -f1 '$out/$name/ld-save.md5')\""
fi

name=lockdown-confidentiality
check "lockdown=confidentiality: recorder off, save says why (exit 1), nothing written" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 1 -a 'kmemtrace.enable=1 lockdown=confidentiality' '$out/$name' &&
		cat '$out/$name/save.err' &&
		[ \"\$(cat '$out/$name/save.rc')\" = 1 ] &&
		grep -q '^kmemflight save: error: /sys/kernel/tracing/kmemtrace: the kernel is locked down for confidentiality (lockdown=confidentiality in /sys/kernel/security/lockdown), which closes tracefs' '$out/$name/save.err' &&
		[ \"\$(wc -l < '$out/$name/save.err')\" = 1 ] &&
		grep -q 'kmemtrace: kernel lockdown closes tracefs: recorder off' '$out/$name/dmesg' &&
		[ ! -e '$out/$name/boot.kmt' ]"

# Under TCG a loaded host makes the TSC look skewed against the HPET:
# the clocksource watchdog then marks it unstable mid-run, and
# local_clock() (sched_clock) jumps back on the CPUs that ran ahead
# ("sched_clock: Marking unstable" in dmesg), which is the emulator's, not
# the recorder's.  The boots that check time order take the TSC as it is.
stable_clock="tsc=reliable"

# SMP stress: 4 vCPUs allocate from task, softirq and hardirq context at
# once (the kmemtrace-stress sample) while an attach drains.  The trace
# must hold exactly the pairs the sample counted, each in its context and
# each kthread's on its own CPU; per CPU, time never goes backwards.
stress_pairs=200000
name=stress-4cpu
check "SMP stress: 4 vCPU allocating from task, softirq and hardirq, attach draining" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 4 -t 900 -x '$repo/qemu-tests/stress-hook.sh' \
		-a 'kmemtrace.enable=1 kmfstress.pairs=$stress_pairs $stable_clock' '$out/$name' &&
		[ \"\$(cat '$out/$name/hook.rc')\" = 0 ] && [ \"\$(cat '$out/$name/save.rc')\" = 0 ] ||
		{ cat '$out/$name/hook.err' '$out/$name/save.err'; exit 1; }"
# One pair in 8 goes through kasprintf(): put to the context's function
# like the rest (an interrupt's kasprintf() amid the task's must not take
# the task's caller), and there in every context.
stress_counted() {	# NAME [CPUS PAIRS]: the trace's stress events == the sample's counts
	ncpu=${2:-4}
	npairs=${3:-$stress_pairs}
	"$kmf" dump "$out/$1/boot.kmt" | awk '
		$5 ~ /^call_site=kmt_stress_(task|softirq|hardirq)\+/ {
			f = $5; sub(/^call_site=kmt_stress_/, "", f); sub(/\+.*/, "", f)
			c = $3; sub(/:.*/, "", c)
			if (!((k = $4 " " f " " c) in n)) keys++
			n[k]++
			if (f == "task" && $4 == "kmalloc") cpu[$2]++
			if ($4 == "kmalloc" && $6 ~ /^via=kasprintf\+/) via[c]++
		}
		END {
			for (k in n) print k, n[k] > "/dev/stderr"
			for (c in cpu) print "cpu", c, cpu[c]
			printf "task %d softirq %d hardirq %d\n",
				n["kmalloc task task"], n["kmalloc softirq softirq"], n["kmalloc hardirq hardirq"]
			printf "frees %d %d %d\n",
				n["kfree task task"], n["kfree softirq softirq"], n["kfree hardirq hardirq"]
			printf "stray %d\n", keys - 6
			printf "via %d %d %d\n", via["task"], via["softirq"], via["hardirq"]
		}' > "$out/$1/stress.trace" 2> "$out/$1/stress.keys"
	cat "$out/$1/hook.out" "$out/$1/stress.trace" "$out/$1/stress.keys"
	t=$(awk '$1 == "task" { print $2 }' "$out/$1/hook.out")
	s=$(awk '$1 == "softirq" { print $2 }' "$out/$1/hook.out")
	h=$(awk '$1 == "hardirq" { print $2 }' "$out/$1/hook.out")
	[ "$t" = $((ncpu * npairs)) ] && [ "$s" -gt 0 ] && [ "$h" -gt 0 ] &&
		grep -qx "task $t softirq $s hardirq $h" "$out/$1/stress.trace" &&
		grep -qx "frees $t $s $h" "$out/$1/stress.trace" &&
		grep -qx "stray 0" "$out/$1/stress.trace" &&
		grep -qE "^via [1-9][0-9]* [1-9][0-9]* [1-9][0-9]*\$" "$out/$1/stress.trace" &&
		[ "$(grep -c "^cpu [0-9]* $npairs\$" "$out/$1/stress.trace")" = "$ncpu" ]
}
# On each CPU, every event's time >= the one before, but where the
# kernel's clock stepped back (dump's clock_step): by at most a clock
# tick (10 ms at HZ=100), a few times (at its changes of regime).
per_cpu_monotonic() {	# NAME [CPUS]
	"$kmf" dump "$out/$1/boot.kmt" | awk -v want="${2:-4}" '
		{ if (($2 in last) && $1 < last[$2]) {
			print "cpu " $2 ": " $1 " after " last[$2] ": " $NF
			if ($NF != "clock_step=-" (last[$2] - $1) || last[$2] - $1 > 10000000 ||
			    ++steps[$2] > 3)
				bad = 1
		  }
		  last[$2] = $1; n[$2]++ }
		END { for (c in n) { print "cpu " c ": " n[c] " events in time order, " steps[c] + 0 " clock steps"; cpus++ }
		      exit bad || cpus != want || !cpus }'
}

# No kmem tracepoint fires in kmem_cache_alloc_bulk(), kmem_cache_free_bulk()
# and kfree_bulk(); the recorder hooks them.  The hook has the sample free
# 2000 objects with kfree_rcu(), which batches them through kfree_bulk()
# (from kvfree_rcu_bulk()): each must be freed in the trace, at least the
# half freed in the one-argument form through the batches.  The maple
# tree allocates its nodes in bulk (mas_alloc_nodes) and frees them so
# (mas_destroy): both must be in the trace, and no object may be
# allocated again at its address without a free.
bulk_recorded() {	# NAME
	"$kmf" dump "$out/$1/boot.kmt" | awk -v want="$(sed -n 's/^kfree_rcu //p' "$out/$1/kfree-rcu")" '
		function field(name,   i) {
			for (i = 5; i <= NF; i++)
				if (index($i, name "=") == 1)
					return substr($i, length(name) + 2)
			return ""
		}
		{ site = field("call_site"); sub(/\+.*/, "", site) }
		$4 == "kmalloc" && site == "kmt_stress_kfree_rcu" { live[field("ptr")]++; n++; next }
		$4 == "kfree" || $4 == "kmem_cache_free" {
			p = field("ptr")
			if (live[p] > 0) { live[p]--; freed++; by[site]++ }
		}
		$4 == "kmem_cache_alloc" && site == "mas_alloc_nodes" { maple_alloc++ }
		$4 == "kmem_cache_free" && site == "mas_destroy" { maple_free++ }
		END {
			print "kfree_rcu: the sample freed " want ", the trace has " n " allocated, " freed " freed"
			for (s in by) print "  freed by " s ": " by[s]
			print "maple tree: " maple_alloc " nodes allocated in bulk, " maple_free " freed in bulk"
			exit !(want > 0 && n == want && freed == want && by["kvfree_rcu_bulk"] >= want / 2 &&
			       maple_alloc > 0 && maple_free > 0)
		}' || return 1
	! "$kmf" report --live "$out/$1/boot.kmt" | grep "allocated again at their address"
}
if [ -f "$out/$name/boot.kmt" ]; then
	check "$name: nothing lost with the attach running" nothing_lost "$name"
	check "$name: every pair the sample counted is in the trace, in its context and on its CPU" \
		stress_counted "$name"
	check "$name: per CPU, timestamps never go backwards but where the kernel's clock stepped back" per_cpu_monotonic "$name"
	check "$name: kernel event counters equal the events in the file" kernel_equals_file "$name"
	check "$name: bulk allocations and frees: kfree_rcu()'s batches and the maple tree's" \
		bulk_recorded "$name"
fi

# The recorder's clock is the kernel's: every clock stamp of the
# kmemtrace-stress sample (an allocation between two reads of
# local_clock() on one CPU, interrupts off, at subsys, fs and device
# initcall time, before sched_clock is stable (the recorder's time then
# comes from its copy of the tick window's clock), and three times from
# clock-hook.sh,
# once it is stable (never, with tsc=unstable)) has its kmalloc record in the trace at
# a time between the two reads, on its CPU: the documented bound.  The
# i-th stamp of a CPU is its i-th record (local_clock() is monotonic on
# a CPU; before sched_clock is stable it is not comparable across CPUs).
clock_equal() {	# NAME CPUS STABLE: STABLE stamps per CPU at least were taken with sched_clock stable
	"$kmf" dump "$out/$1/boot.kmt" |
		awk '$4 == "kmalloc" && $5 ~ /^call_site=kmt_clock_stamp\+/' > "$out/$1/clock.trace"
	awk -v cpus="$2" -v want_stable="$3" '
		NR == FNR { if ($1 == "cpu") { n++; k = $2 " " ++ns[$2]
				t0[k] = $4; t1[k] = $6; st[k] = $7 }
			    next }
		{ m++; c = $2; k = c " " ++nt[c]
		  if (!(k in t0) || $7 != "bytes_req=1234" || $1 < t0[k] || $1 > t1[k]) {
			print "stamp " nt[c] " of cpu " c " (" t0[k] ".." t1[k] ", " st[k] "): trace has " $1 " " $7
			bad = 1 }
		  if (st[k] == "stable") stable[c]++; else unstable[c]++ }
		END {
			for (i = 0; i < cpus; i++) {
				printf "cpu %d: %d stamps before sched_clock was stable, %d after\n", i, unstable[i], stable[i]
				if (unstable[i] < 3 || stable[i] < want_stable) bad = 1
			}
			printf "%d stamps, %d in the trace\n", n, m
			exit bad || n != m || n < cpus * 6
		}' "$out/$1/hook.out" "$out/$1/clock.trace"
}
for clock in "tsc=reliable" "tsc=unstable" "clocksource=hpet"; do
	name=clock-$(echo "$clock" | tr '=' '-')
	want_stable=3
	[ "$clock" = tsc=unstable ] && want_stable=0
	check "boot 2 vCPU with $clock, stamp the clock on every CPU" \
		sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 2 -x '$repo/qemu-tests/clock-hook.sh' \
			-a 'kmemtrace.enable=1 $clock' '$out/$name' &&
			[ \"\$(cat '$out/$name/hook.rc')\" = 0 ] && [ \"\$(cat '$out/$name/save.rc')\" = 0 ] ||
			{ cat '$out/$name/hook.err' '$out/$name/save.err'; exit 1; }"
	check "$name: every stamp's record lies between local_clock() before and after it, on its CPU" \
		clock_equal "$name" 2 "$want_stable"
	check "$name: per CPU, timestamps never go backwards but where the kernel's clock stepped back" \
		per_cpu_monotonic "$name" 2
done

# The clock across system sleep (the QEMU kernel has CONFIG_SUSPEND
# and the CMOS RTC): suspend-to-idle, woken by a byte on a serial
# port (boot.sh -w), then ACPI S3, where QEMU resets the CPUs and their
# TSC and the RTC alarm wakes the guest, then suspend-to-idle again.
# Every stamp after each resume must lie between its two reads of
# local_clock() as before, and no CPU's time may go back.
slept() {	# NAME STATES...: the guest slept in each state, in order, and woke
	grep -v '^cpu ' "$out/$1/hook.out"
	d=$1
	shift
	# not n, pass or fail: check.sh's counters
	nst=0
	mem=0
	for st in "$@"; do
		nst=$((nst + 1))
		line=$(grep '^slept ' "$out/$d/hook.out" | sed -n "${nst}p")
		[ "$(echo "$line" | cut -d' ' -f2)" = "$st" ] || return 1
		# S3 sleeps until the RTC alarm, 4 to 5 s after it is set
		[ "$st" != mem ] || { mem=$((mem + 1)); [ "$(echo "$line" | cut -d' ' -f3)" -ge 3 ] || return 1; }
	done
	[ "$(grep -c '^slept ' "$out/$d/hook.out")" = "$nst" ] &&
	nfail=$(sed -n "s/^suspends $nst failed \([0-9]*\)\$/\1/p" "$out/$d/hook.out") &&
	[ -n "$nfail" ] &&
	# every try says "suspend exit", a failed one too
	[ "$(grep -c '^PM: suspend exit' "$out/$d/dmesg")" = $((nst + nfail)) ] &&
	[ "$(grep -c '^ACPI: PM: Waking up from system sleep state S3' "$out/$d/dmesg")" -ge "$mem" ]
}
name=sleep-boot
check "boot 2 vCPU, stamp the clock, sleep to idle, to S3 (deep), to idle again, stamp after each" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 2 -w \
		-x '$repo/qemu-tests/sleep-hook.sh' \
		-a 'kmemtrace.enable=1 $stable_clock kmfsleep.states=freeze,mem,freeze' '$out/$name' &&
		[ \"\$(cat '$out/$name/hook.rc')\" = 0 ] && [ \"\$(cat '$out/$name/save.rc')\" = 0 ] ||
		{ cat '$out/$name/hook.err' '$out/$name/save.err'; exit 1; }"
check "$name: the guest slept to idle, to S3 and to idle, and woke each time" \
	slept "$name" freeze mem freeze
check "$name: every stamp's record, after each resume too, lies between its local_clock() reads" \
	clock_equal "$name" 2 7
check "$name: per CPU, timestamps never go backwards but where the kernel's clock stepped back" \
	per_cpu_monotonic "$name" 2

# The same with a pool of 8 x 4 KiB, 2 per CPU: the attach cannot keep
# up, so events are dropped while interrupts nest on every CPU.  What is
# kept must decode, be counted by the kernel, and be no more than the
# sample did.  Boot mode has no share of the pool per CPU: a CPU may find
# it empty each time it needs a block and keep nothing, so the time
# order is checked on the CPUs the kernel counted events for.
stress_within() {	# NAME: per context, the trace's pairs <= the sample's
	stress_counted "$1" > /dev/null 2>&1
	cat "$out/$1/hook.out" "$out/$1/stress.trace"
	awk 'NR == FNR { want[$1] = $2; next }
		$1 == "task" { ok = $2 <= want["task"] && $4 <= want["softirq"] && $6 <= want["hardirq"] && $2 > 0 }
		$1 == "stray" { clean = $2 == 0 }
		END { exit !(ok && clean) }' "$out/$1/hook.out" "$out/$1/stress.trace"
}

name=stress-4cpu-lossy
check "SMP stress with a pool of 8 x 4 KiB for 4 CPUs: the attach cannot keep up" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 4 -t 900 -x '$repo/qemu-tests/stress-hook.sh' \
		-a 'kmemtrace.enable=1 kmemtrace.subbufs=8 kmemtrace.subbuf_size=4096 kmfstress.pairs=20000 $stable_clock' '$out/$name' &&
		[ \"\$(cat '$out/$name/hook.rc')\" = 0 ] && [ \"\$(cat '$out/$name/save.rc')\" = 0 ] ||
		{ cat '$out/$name/hook.err' '$out/$name/save.err'; exit 1; }"
if [ -f "$out/$name/boot.kmt" ]; then
	check "$name: events lost, and counted" some_lost "$name"
	check "$name: what was kept is the sample's, in its contexts, no more than it did" \
		stress_within "$name"
	check "$name: per CPU, timestamps never go backwards but where the kernel's clock stepped back" \
		per_cpu_monotonic "$name" "$(cpu_rows "$out/$name/boot.kmt" | awk '$5 > 0 { n++ } END { print n + 0 }')"
	check "$name: kernel event counters equal the events in the file" kernel_equals_file "$name"
fi

# One budget whatever the number of CPUs: the default pool of 16 MiB
# (128 x 128 KiB) on 2, 4 and 8 vCPUs, which loses nothing of their boots.
pool_budget() {	# NAME CPUS: the pool in dmesg and info, slots per CPU
	grep 'kmemtrace: recording from kmem_cache_init' "$out/$1/dmesg"
	"$kmf" info "$out/$1/boot.kmt" | grep '^buffers:'
	cat "$out/$1/stats"
	grep -q 'kmemtrace: recording from kmem_cache_init in boot mode: 128 x 131072 bytes for all CPUs$' \
		"$out/$1/dmesg" &&
	"$kmf" info "$out/$1/boot.kmt" | grep -q "^buffers:     16777216 bytes in one pool; after the save [0-9]* of them held by [0-9]* of $2 possible CPUs\$" &&
	awk -v n="$2" '!/^#/ { h += $5; m += $8 } END { exit !(h <= 16777216 && m == n) }' "$out/$1/stats.presave"
}

# The save gives the pool back: the kernel says so (16 MiB and 8 KiB
# of slots per CPU), stats keeps the counts with no slots, and the free
# pages grow by the pool's 4096.  MemFree does not count the pages in
# the per-CPU lists, where the save process's own pages go when it
# exits (on 4 vCPUs MemFree grew by 9592 kB of the 16384): the zones'
# free pages and their per-CPU lists (zoneinfo) do, and what the save
# leaves in the kernel (100 to 200 pages in 4 and 8 vCPU boots) stays
# within 1024 pages either way.  The release boot measures the kernel
# alone, to two pages.
free_pages() {	# ZONEINFO: free pages, those in per-CPU lists too
	awk '$1 == "pages" && $2 == "free" { n += $3 } $1 == "count:" { n += $2 } END { print n + 0 }' "$1"
}
pool_given_back() {	# NAME CPUS
	grep 'kmemtrace: gave back' "$out/$1/dmesg"
	cat "$out/$1/stats" "$out/$1/memfree.before" "$out/$1/memfree.after"
	before=$(free_pages "$out/$1/zoneinfo.before")
	after=$(free_pages "$out/$1/zoneinfo.after")
	echo "free pages, with the per-CPU lists': $before before the save, $after after: $((after - before)) more"
	grep -qx "kmemtrace: gave back the pool and the slots: $((16777216 + $2 * 8192)) bytes" "$out/$1/dmesg" &&
	awk '!/^#/ { n++; if ($5 != 0 || $8 != 0) bad = 1 } END { exit bad || !n }' "$out/$1/stats" &&
	[ "$before" -gt 0 ] && [ $((after - before)) -ge $((4096 - 1024)) ] &&
	[ $((after - before)) -le $((4096 + 1024)) ]
}
check "default-2cpu: one pool of 16 MiB for the machine, slots for each CPU" pool_budget default-2cpu 2
check "default-2cpu: after the save the pool went back to the page allocator" pool_given_back default-2cpu 2
for cpus in 4 8; do
	name=budget-${cpus}cpu
	check "boot $cpus vCPU with the default pool and save in the guest" \
		boot_saved "$name" "$cpus" "kmemtrace.enable=1"
	[ -f "$out/$name/boot.kmt" ] || continue
	check "$name: the same pool of 16 MiB for the machine, slots for each CPU" pool_budget "$name" "$cpus"
	check "$name: events recorded on each of the $cpus CPUs" every_cpu_recorded "$name" "$cpus"
	check "$name: the default pool loses nothing" nothing_lost "$name"
	check "$name: kernel event counters equal the events in the file" kernel_equals_file "$name"
	check "$name: after the save the same pool went back to the page allocator" \
		pool_given_back "$name" "$cpus"
done

# Giving the buffers back by hand (release-hook.sh): refused while events
# are unread; with nothing but shell builtins between two reads of the
# free memory (MemFree, the per-CPU lists' pages, and VmallocUsed and
# Slab, which a deferred vfree or an emptied slab move into MemFree), it
# grows by the pool to two pages; refused again once
# given back; writing 1 to enable allocates them again, counters from 0;
# stopped and read again, a switch to flight mode gives that boot pool
# back, the next start allocates flight mode's 4 MiB; frozen, stopped
# and read, a switch to boot mode gives that back and forgets the freeze,
# and the guest's save of the new boot-mode recording gives 16 MiB back.
name=release-2cpu
check "boot 2 vCPU: save -k, stop, give the buffers back, record again, save" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 2 -x '$repo/qemu-tests/release-hook.sh' \
		-a 'kmemtrace.enable=1' '$out/$name' &&
		[ \"\$(cat '$out/$name/hook.rc')\" = 0 ] && [ \"\$(cat '$out/$name/save.rc')\" = 0 ] &&
		[ \"\$(cat '$out/$name/keep.rc')\" = 0 ] && [ \"\$(cat '$out/$name/rest.rc')\" = 0 ] ||
		{ cat '$out/$name/hook.err' '$out/$name/save.err'; exit 1; }"
release_kept() {	# save -k keeps the buffers; unread events keep them too
	cat "$out/$1/stats.keep" "$out/$1/unread.err"
	awk '!/^#/ { n++; if ($8 != 1) bad = 1 } END { exit bad || n != 2 }' "$out/$1/stats.keep" &&
	[ "$(cat "$out/$1/unread.err")" = "sh: write error: Directory not empty
1" ]
}
release_exact() {	# the free memory grows by the pool, to two pages
	cat "$out/$1/release" "$out/$1/stats.released" "$out/$1/again.err"
	grep -c 'kmemtrace: gave back the pool and the slots: 16793600 bytes$' "$out/$1/dmesg"
	awk '{ d = $2 - $1; print "the free memory grew by " d " kB"; exit !($3 == 0 && d >= 16384 && d <= 16384 + 8) }' \
		"$out/$1/release" &&
	awk '!/^#/ { n++; if ($2 == 0 || $5 != 0 || $8 != 0) bad = 1 } END { exit bad || n != 2 }' \
		"$out/$1/stats.released" &&
	[ "$(cat "$out/$1/again.err")" = "sh: write error: No data available
1" ] &&
	[ "$(grep -c 'kmemtrace: gave back the pool and the slots: 16793600 bytes$' "$out/$1/dmesg")" -ge 1 ]
}
release_flight() {	# the switch to flight mode gives back the boot pool; the flight pool is 4 MiB
	cat "$out/$1/stats.switched" "$out/$1/stats.flight" "$out/$1/flight-save.err"
	grep 'kmemtrace: gave back' "$out/$1/dmesg"
	"$kmf" info "$out/$1/flight.kmt" | grep '^buffers:'
	awk '!/^#/ { n++; if ($8 != 0) bad = 1 } END { exit bad || n != 2 }' "$out/$1/stats.switched" &&
	awk '!/^#/ { n++; if ($8 != 1) bad = 1 } END { exit bad || n != 2 }' "$out/$1/stats.flight" &&
	"$kmf" info "$out/$1/flight.kmt" | grep -q '^buffers:     4194304 bytes in one pool; ' &&
	"$kmf" dump "$out/$1/flight.kmt" | awk '$4 == "mark" { print; n++ } n == 2 { exit }' |
		awk 'NR == 1 && / mark=1$/ { a = 1 } NR == 2 && / mark=5$/ { b = 1 } END { exit !(a && b) }'
}
release_unfrozen() {	# frozen, stopped, read: boot mode gives the flight pool back, and the freeze
	cat "$out/$1/stats.unfrozen" "$out/$1/frozen-save.err"
	"$kmf" info "$out/$1/frozen.kmt" | grep '^frozen:'
	"$kmf" info "$out/$1/boot.kmt" | grep '^buffers:\|^frozen:\|^total'
	# the hook's give-back and the switch to flight: 16 MiB; the switch
	# back to boot mode: 4 MiB; the guest's save: 16 MiB
	[ "$(grep -c 'kmemtrace: gave back the pool and the slots: 16793600 bytes$' "$out/$1/dmesg")" = 3 ] &&
	[ "$(grep -c 'kmemtrace: gave back the pool and the slots: 4198400 bytes$' "$out/$1/dmesg")" = 1 ] &&
	"$kmf" info "$out/$1/frozen.kmt" | grep -q '^frozen:      by manual at ' &&
	awk '!/^#/ { n++; if ($8 != 0) bad = 1 } END { exit bad || n != 2 }' "$out/$1/stats.unfrozen" &&
	"$kmf" info "$out/$1/boot.kmt" > "$out/$1/info" &&
	grep -q '^buffers:     16777216 bytes in one pool; ' "$out/$1/info" &&
	grep -qx 'frozen:      no' "$out/$1/info" &&
	awk '$1 == "total" { exit !($2 > 0 && $2 == $3 && $4 == 0) }' "$out/$1/info"
}
release_again() {	# enable allocates again; that recording saves and reads
	cat "$out/$1/enable.rc" "$out/$1/stats.released" "$out/$1/stats.again"
	"$kmf" info "$out/$1/boot.kmt" | grep '^total'
	[ "$(cat "$out/$1/enable.rc")" = 0 ] &&
	# every CPU counts again from 0: fewer events than before the release
	awk 'NR == FNR { if (!/^#/) was[$1] = $2; next }
		!/^#/ { n++; if ($8 != 1 || $2 >= was[$1]) bad = 1 } END { exit bad || n != 2 }' \
		"$out/$1/stats.released" "$out/$1/stats.again" &&
	"$kmf" dump "$out/$1/boot.kmt" | awk '$4 == "mark" { print; exit }' | grep -q ' mark=1$' &&
	kernel_equals_file "$1" && nothing_lost "$1"
}
if [ -f "$out/$name/release" ]; then
	check "$name: save -k keeps the buffers, and events not read keep them: ENOTEMPTY" release_kept "$name"
	check "$name: given back, the free memory grows by the pool (16 MiB) to two pages; again: ENODATA" \
		release_exact "$name"
	check "$name: enable allocates them again, counters from 0; that recording saves whole" \
		release_again "$name"
	check "$name: stopped and read, a switch to flight mode gives the boot pool back; flight's is 4 MiB" \
		release_flight "$name"
	check "$name: frozen, stopped and read, a switch to boot mode gives the flight pool back, the freeze with it" \
		release_unfrozen "$name"
	check "$name: the save of it says nothing is left after" \
		grep -q "nothing left to save: the recorder's buffers were given back" "$out/$name/save2.err"
fi

# CPU hotplug: 4 vCPUs, maxcpus=2.  The two CPUs that come up get slots
# for the pool's sub-buffers; CPU 2, brought up later, gets its own
# before it runs, its every event is recorded (the stress sample's
# counts, a pinned workload), and taken down again it keeps what it
# holds for the save.  The pool is the same throughout.
hp_pairs=20000
name=hotplug-4cpu
stats_slots() {	# STATS-FILE: the CPUs with slots
	awk '!/^#/ && $8 == 1 { printf "%s%s", s, $1; s = " " } END { print "" }' "$1"
}
hp_memory() {	# slots for the 2 CPUs that came up, then a third's; one pool
	before=$(stats_slots "$out/$1/stats-before")
	online=$(stats_slots "$out/$1/stats-online")
	drop=$(( $(cat "$out/$1/memfree-before") - $(cat "$out/$1/memfree-after") ))
	echo "online $(cat "$out/$1/online-before") -> $(cat "$out/$1/online-after") -> $(cat "$out/$1/online-end")"
	echo "CPUs with slots before: $before; after cpu2 came up: $online; MemFree dropped $drop kB"
	[ "$(cat "$out/$1/online-before")" = 0-1 ] && [ "$(cat "$out/$1/online-after")" = 0-2 ] &&
	[ "$(cat "$out/$1/online-end")" = 0-1 ] &&
	[ "$before" = "0 1" ] && [ "$online" = "0 1 2" ] &&
	"$kmf" info "$out/$1/boot.kmt" | grep -q '^buffers:     16777216 bytes in one pool; after the save [0-9]* of them held by [0-9]* of 4 possible CPUs$'
}
hp_pinned() {	# the pinned workload's events are on CPU 2 from its move there
	# taskset runs on the CPU the shell forked it on until its
	# sched_setaffinity() moves it (exec's page faults, that call's own
	# kmalloc); from then on the task is bound to CPU 2, and its 200
	# mkdir/rmdir pairs allocate at least 200 dentries there.
	pid=$(cat "$out/$1/pinned.pid")
	"$kmf" dump "$out/$1/boot.kmt" | awk -v t="task:$pid" '$3 == t { ts[NR] = $1; cpu[NR] = $2; line[NR] = $0
			if ($2 == 2 && (first == "" || $1 < first)) first = $1 }
		END { for (i in ts) {
			if (cpu[i] == 2) on2++
			else if (first != "" && ts[i] > first) { after++; print "after the move: " line[i] }
			else before++ }
		      print before + 0 " events before the move, " on2 + 0 " on cpu 2, " after + 0 " elsewhere after"
		      exit !(on2 >= 200 && !after) }'
}
check "CPU hotplug: boot 4 vCPU with maxcpus=2, bring CPU 2 up, allocate there, take it down, save" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 4 -t 600 -x '$repo/qemu-tests/hotplug-hook.sh' \
		-a 'kmemtrace.enable=1 maxcpus=2 kmfstress.pairs=$hp_pairs $stable_clock' '$out/$name' &&
		[ \"\$(cat '$out/$name/hook.rc')\" = 0 ] && [ \"\$(cat '$out/$name/save.rc')\" = 0 ] ||
		{ cat '$out/$name/hook.err' '$out/$name/save.err'; exit 1; }"
if [ -f "$out/$name/boot.kmt" ]; then
	check "$name: slots for the 2 CPUs that came up at boot, for CPU 2 later, none for CPU 3; one pool" \
		hp_memory "$name"
	check "$name: CPUs 0, 1 and 2 in the file, each with events" every_cpu_recorded "$name" 3
	check "$name: nothing lost, CPU 2 included" nothing_lost "$name"
	check "$name: kernel event counters equal the events in the file, CPU 2 from its first event" \
		kernel_equals_file "$name"
	check "$name: every stress pair of the 3 online CPUs is in the trace, on its CPU" \
		stress_counted "$name" 3 "$hp_pairs"
	check "$name: the workload pinned to CPU 2 is recorded there" hp_pinned "$name"
fi

# A stock-kernel boot: no recorder, the kmem events traced by ftrace from
# trace_init() on, into the top buffer and a boot instance "kmfboot"
# (kmalloc and kfree only).  save --from-ftrace in the guest must keep
# every event ftrace holds: per CPU as many as ftrace's own entry counts
# (top) and, per CPU and event, what ftrace prints (the instance).
ftrace_args="trace_event=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:kfree,kmem:kmem_cache_free,kmem:mm_page_alloc,kmem:mm_page_free trace_buf_size=32M trace_options=nooverwrite trace_instance=kmfboot,kmem:kmalloc,kmem:kfree"
ftrace_saved() {	# NAME: both saves succeeded
	for sv in ftrace-save ftrace-inst; do
		[ "$(cat "$out/$1/$sv.rc")" = 0 ] || { cat "$out/$1/$sv.err"; return 1; }
	done
	cat "$out/$1/ftrace-save.out" "$out/$1/ftrace-inst.out"
}
ftrace_entries_match() {	# NAME: per CPU, events in the file == ftrace's entries
	cpu_rows "$out/$1/ftrace.kmt" | awk '{ print $1, $5 }' > "$out/$1/ftrace-top.file"
	cat "$out/$1/ftrace-top.file"
	cmp "$out/$1/ftrace-top.entries" "$out/$1/ftrace-top.file" &&
		cpu_rows "$out/$1/ftrace.kmt" | awk '{ l += $6 } END { exit l != 0 }'
}
ftrace_counts_match() {	# NAME: per CPU and event, and kmalloc sizes == ftrace's text
	"$kmf" dump "$out/$1/ftrace-inst.kmt" | awk '
		{ n[$2 " " $4]++ }
		$4 == "kmalloc" {
			for (i = 5; i <= NF; i++) {
				if ($i ~ /^bytes_req=/) req += substr($i, 11)
				if ($i ~ /^bytes_alloc=/) alloc += substr($i, 13)
			}
		}
		END { for (k in n) print k, n[k]; print "kmalloc", req, alloc }' |
		LC_ALL=C sort > "$out/$1/ftrace-inst.file"
	cat "$out/$1/ftrace-inst.file"
	LC_ALL=C sort "$out/$1/ftrace-inst.counts" | cmp - "$out/$1/ftrace-inst.file"
}
ftrace_report() {	# NAME: the report names boot callsites and says what ftrace missed
	"$kmf" report --caller "$out/$1/ftrace.kmt" > "$out/$1/ftrace.report" 2> "$out/$1/ftrace.err" &&
	cat "$out/$1/ftrace.err" &&
	[ "$(grep -c 'note: ftrace source: allocations before its first event at 0\.[0-9]* s (trace_init() at boot' "$out/$1/ftrace.err")" = 1 ] &&
	grep -q "caches are told apart by object size" "$out/$1/ftrace.err" &&
	grep -E '^ __kernfs_new_node[.a-z0-9]*\+0x[0-9a-f]+ ' "$out/$1/ftrace.report" &&
	events=$(total_row "$out/$1/ftrace.kmt" | awk '{ print $3 }') &&
	grep "^Events: $events " "$out/$1/ftrace.report" &&
	! grep -E '^ 0xffff' "$out/$1/ftrace.report"
}

name=ftrace-boot
check "stock kernel: boot with ftrace kmem events only, save --from-ftrace in the guest" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 2 -t 600 -x '$repo/qemu-tests/ftrace-hook.sh' \
		-a '$ftrace_args' '$out/$name' && [ \"\$(cat '$out/$name/save.rc')\" = 1 ] &&
		grep -q 'the recorder was never started' '$out/$name/save.err'"
if [ -f "$out/$name/ftrace-save.rc" ]; then
	check "$name: both buffers saved (top and instance kmfboot)" ftrace_saved "$name"
	check "$name: every CPU's events in the file == ftrace's entries, none lost" \
		ftrace_entries_match "$name"
	check "$name: instance: per CPU and event, and the kmalloc sizes, == ftrace's own text" \
		ftrace_counts_match "$name"
	check "$name: report --caller names boot callsites and notes what ftrace missed, once" \
		ftrace_report "$name"
fi

# A real boot through a dracut-built initramfs with our module: the hook
# starts "kmemflight attach", dracut switch_roots into a small ext4 root,
# a workload there outgrows the buffers, and save runs in the real root.
# The pool of 16 MiB for both CPUs holds everything before the hook (about
# 600k events, most of it ACPI under TCG) but not the boot: 800 rounds of
# the workload record some 1.1 million events more (at 2000 rounds, 3.35
# million in all, the boot without the attach kept 1.12 million and lost
# 2.2 million; at 800 it loses about 0.6 million), in less than half the
# guest time of 2000.
dracut_args="kmemtrace.enable=1 kmemtrace.subbufs=256 kmemtrace.subbuf_size=65536 kmftest.work=800"
dracut_boot() {	# NAME EXTRA: boot, save in the real root must succeed
	"$repo/qemu-tests/dracut-boot.sh" -k "$kernel" -c 2 -t 600 \
		-a "$dracut_args $2" "$out/$1" && saved_ok "$1"
}
stats_equal_file() {	# tracefs stats after the save == the file, per CPU
	awk '!/^#/ { print $1, $2, $3 }' "$out/$1/stats" > "$out/$1/stats.kernel"
	cpu_rows "$out/$1/boot.kmt" | awk '{ print $1, $5, $6 }' > "$out/$1/stats.file"
	cat "$out/$1/stats.file"
	cmp "$out/$1/stats.kernel" "$out/$1/stats.file"
}
workload_events() {	# events of the real root's workload process
	pid=$(cat "$out/$1/workload.pid")
	got=$("$kmf" dump "$out/$1/boot.kmt" | awk -v t="task:$pid" '$3 == t { n++ } END { print n + 0 }')
	echo "workload pid $pid: $got events"
	[ "$got" -gt 1000 ]
}

name=dracut-attach
check "dracut initramfs: boot 2 vCPU, attach from the hook, save in the real root" \
	dracut_boot "$name" ""
if [ -f "$out/$name/boot.kmt" ]; then
	check "$name: the hook started the attach in the initramfs" \
		grep -q "^kmemflight: recording kernel memory events from 2 CPUs into /run/kmemflight;" \
		"$out/$name/console.log"
	check "$name: switch_root reached the test root, the '@' attach still alive" \
		sh -c "grep -q '^/dev/vda / ' '$out/$name/rootfs' &&
			grep -q '^[0-9]* @[^ ]*kmemflight attach --daemon' '$out/$name/daemon'"
	check "$name: the attach started before the buffers filled (lost=0 at start)" \
		grep -q "^start pid=[0-9]* .* lost=0$" "$out/$name/spool.log"
	check "$name: nothing lost with the attach running" nothing_lost "$name"
	check "$name: events of the real root's workload are in the file" workload_events "$name"
	check "$name: the pid 1 execs: the initramfs /init first, the real root's /sbin/init last" \
		sh -c "'$kmf' report --phase '$out/$name/boot.kmt' | sed -n 's/^ exec \([^ ]*\) (.*/\1/p' > '$out/$name/execs' &&
			cat '$out/$name/execs' && [ \"\$(head -1 '$out/$name/execs')\" = /init ] &&
			[ \"\$(tail -1 '$out/$name/execs')\" = /sbin/init ]"
	check "$name: file events == kernel recorded, lost == kernel lost, per CPU" \
		stats_equal_file "$name"
	check "$name: kernel event counters equal the events in the file" kernel_equals_file "$name"
	check "$name: a second attach is refused and names the first (exit 1)" \
		sh -c "[ \$(cat '$out/$name/attach-twice.rc') = 1 ] &&
			grep -q 'already attached: pid [0-9]* holds the spool /run/kmemflight' '$out/$name/attach-twice.err'"
	check "$name: attach as an unprivileged user says it is root-only (exit 1)" \
		sh -c "[ \$(cat '$out/$name/attach-notroot.rc') = 1 ] &&
			grep -q 'permission denied: the recorder is root-only (run as root)' '$out/$name/attach-notroot.err'"
	check "$name: save stopped the attach, merged and removed the spool" \
		sh -c "grep -q '^\[ kmemflight: attach pid [0-9]* drained [0-9]* bytes' '$out/$name/save.out' &&
			! grep -q kmemflight '$out/$name/after.daemon' &&
			grep -q 'No such file' '$out/$name/spool.after' &&
			! grep -q 'stopped draining' '$out/$name/dmesg'"
fi

name=dracut-noattach
check "dracut initramfs with rd.kmemflight=0: no attach, save in the real root" \
	dracut_boot "$name" "rd.kmemflight=0"
if [ -f "$out/$name/boot.kmt" ]; then
	check "$name: the hook left the attach out" \
		sh -c "! grep -q 'recording kernel memory events' '$out/$name/console.log'"
	check "$name: the same boot loses events without the attach" some_lost "$name"
	check "$name: file events == kernel recorded, lost == kernel lost, per CPU" \
		stats_equal_file "$name"
	check "$name: kernel event counters equal the events in the file" kernel_equals_file "$name"
fi

# Allocation latency: a memory-starved guest (320 MiB, and a 512 MiB disk
# to read into the page cache) records the reclaim and compaction groups
# while memhog reads the disk and faults in huge and small pages, and an
# attach drains.  The QEMU kernel has compaction, THP, shrinker names and
# /proc/vmstat's event counters.
lat_args="kmemtrace.enable=1 kmemtrace.subbufs=128 kmemtrace.events=kmem,boot,latency $stable_clock"
lat_summary() {	# NAME KIND: "episodes above unpaired" of the summary row
	awk -F'|' -v k="$2" 'index($1, " " k " ") == 1 {
		gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $6); print $2, $3, $6 }' \
		"$out/$1/latency.txt"
}
lat_count() {	# NAME EVENT: events of that name in the dump
	awk -v e="$2" '$4 == e { n++ } END { print n + 0 }' "$out/$1/dump.txt"
}
lat_unpaired() {	# NAME EVENT WHY: unpaired rows of that event
	grep -c " $2 *$3" "$out/$1/latency-all.txt"
}
lat_paired() {	# every begin pairs with an end, or is listed unpaired
	"$kmf" dump "$out/$1/boot.kmt" > "$out/$1/dump.txt" &&
	"$kmf" report --latency "$out/$1/boot.kmt" > "$out/$1/latency-all.txt" || return 1
	for k in "direct reclaim:vmscan_direct_reclaim_begin:vmscan_direct_reclaim_end" \
		"compaction (zone):compaction_begin:compaction_end" \
		"shrinker call:shrink_slab_start:shrink_slab_end"; do
		kind=${k%%:*}
		b=${k#*:}
		e=${b#*:}
		b=${b%%:*}
		row=$(awk -F'|' -v k="$kind" 'index($1, " " k " ") == 1 {
			gsub(/ /, "", $2); gsub(/ /, "", $6); print $2, $6 }' "$out/$1/latency-all.txt")
		eps=${row% *}
		unp=${row#* }
		nb=$(lat_count "$1" "$b")
		ne=$(lat_count "$1" "$e")
		ub=$(lat_unpaired "$1" "$b" "no end")
		ue=$(lat_unpaired "$1" "$e" "no begin")
		echo "$kind: $nb begins, $ne ends; $eps episodes, $unp unpaired ($ub begins, $ue ends)"
		[ "$nb" -gt 0 ] && [ $((eps + ub)) = "$nb" ] && [ $((eps + ue)) = "$ne" ] &&
			[ $((ub + ue)) = "$unp" ] || return 1
	done
}
lat_allocstall() {	# the kernel's count of direct reclaims == the trace's
	want=$(awk '$1 ~ /^allocstall_/ { n += $2 } END { print n + 0 }' "$out/$1/vmstat")
	got=$(lat_count "$1" vmscan_direct_reclaim_begin)
	echo "allocstall (vmstat): $want, direct reclaim begins in the trace: $got"
	[ "$want" -gt 0 ] && [ "$want" = "$got" ]
}
lat_report() {	# each kind has episodes at or above 100 us
	"$kmf" report --latency --threshold 100us "$out/$1/boot.kmt" \
		> "$out/$1/latency.txt" 2> "$out/$1/latency.err" || { cat "$out/$1/latency.err"; return 1; }
	head -8 "$out/$1/latency.txt"
	for kind in "direct reclaim" "compaction (zone)" "shrinker call" "allocation stall"; do
		above=$(lat_summary "$1" "$kind" | awk '{ print $2 }')
		[ "${above:-0}" -gt 0 ] || { echo "no $kind at or above 100 us"; return 1; }
	done
}
lat_direct() {	# reclaim and direct compaction name the allocation behind them
	sed -n '/^Direct reclaims at/,/^$/p' "$out/$1/latency.txt" > "$out/$1/lat-reclaim.txt"
	sed -n '/^Zone compactions at/,/^$/p' "$out/$1/latency.txt" > "$out/$1/lat-compact.txt"
	head -5 "$out/$1/lat-reclaim.txt" "$out/$1/lat-compact.txt"
	# memhog's reclaims: a callsite outside reclaim and the allocator
	grep -E '^ [0-9.]+ +\| +[0-9.]+ \| +[0-9]+ \| memhog +\| +[0-9]+ \| [a-z_]+[a-z_0-9.]*\+0x' \
		"$out/$1/lat-reclaim.txt" | grep -vE '\| (try_to_free_pages|__alloc_pages|__perform_reclaim|\(unknown\))' |
		head -1 | grep -q . &&
	# a THP fault's direct compaction, order 9
	grep -E '\| memhog +\| direct +\| +9 \| [a-z_]+[a-z_0-9.]*\+0x' "$out/$1/lat-compact.txt" | head -1 | grep -q .
}
lat_groups() {	# the events file switches groups, and the trace records each
	[ "$(cat "$out/$1/events-before")" = kmem,boot,reclaim,compaction ] &&
	[ "$(cat "$out/$1/events-runtime")" = kmem,boot,compaction ] &&
	[ "$(cat "$out/$1/events-after")" = kmem,boot,reclaim,compaction ] &&
	[ "$(cat "$out/$1/events-bad.rc")" = 1 ] && grep -q "Invalid argument" "$out/$1/events-bad.err" &&
	[ "$(awk '$4 == "groups" { printf "%s ", $5 }' "$out/$1/dump.txt")" = "groups=0xf groups=0xb groups=0xf " ] &&
	"$kmf" info "$out/$1/boot.kmt" | grep -qx "groups:      kmem,boot,reclaim,compaction (kmemtrace.events=)"
}
lat_ftrace() {	# ftrace saw the same episodes as the recorder
	grep -qx 'ftrace save: 0' "$out/$1/hook.out" || { cat "$out/$1/ftrace-lat.err"; return 1; }
	"$kmf" report --latency "$out/$1/ftrace-lat.kmt" > "$out/$1/ftrace-latency.txt" \
		2> "$out/$1/ftrace-latency.err" || { cat "$out/$1/ftrace-latency.err"; return 1; }
	grep -q "note: ftrace source: .*its reclaim and compaction events carry no stack" \
		"$out/$1/ftrace-latency.err" &&
	grep -q "^ allocation stall   | (not recorded)" "$out/$1/ftrace-latency.txt" || return 1
	for kind in "direct reclaim" "compaction (zone)" "shrinker call"; do
		rec=$(awk -F'|' -v k="$kind" 'index($1, " " k " ") == 1 { print $2 + 0, $6 + 0 }' \
			"$out/$1/latency-all.txt")
		ftr=$(awk -F'|' -v k="$kind" 'index($1, " " k " ") == 1 { print $2 + 0, $6 + 0 }' \
			"$out/$1/ftrace-latency.txt")
		echo "$kind (episodes, unpaired): recorder $rec, ftrace $ftr"
		[ -n "$rec" ] && [ "$rec" = "$ftr" ] || return 1
	done
	# the tasks' names come from ftrace's saved_cmdlines
	[ "$(grep -c '| memhog .*| direct ' "$out/$1/ftrace-latency.txt")" = \
		"$(grep -c '| memhog .*| direct ' "$out/$1/latency-all.txt")" ]
}
name=latency-boot
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$out/memhog" "$repo/qemu-tests/memhog.c" &&
	truncate -s 512M "$out/latency-disk.img"
check "memory-starved guest: memhog reclaims and compacts, attach drains, save" \
	sh -c "'$repo/qemu-tests/boot.sh' -k '$kernel' -c 2 -m 320M -t 600 \
		-d '$out/latency-disk.img' -b '$out/memhog' -x '$repo/qemu-tests/latency-hook.sh' \
		-a '$lat_args' '$out/$name' && [ \"\$(cat '$out/$name/save.rc')\" = 0 ] &&
		[ \"\$(cat '$out/$name/hook.rc')\" = 0 ] && grep -qx 'memhog: 0' '$out/$name/hook.out'"
rm -f "$out/latency-disk.img"
if [ -f "$out/$name/boot.kmt" ]; then
	check "$name: no event lost" nothing_lost "$name"
	check "$name: kernel event counters equal the events in the file" kernel_equals_file "$name"
	check "$name: report --latency: reclaim, compaction, shrinker and stall episodes at or above 100 us" \
		lat_report "$name"
	check "$name: every begin pairs with its end, or is counted and listed unpaired" \
		lat_paired "$name"
	check "$name: every direct reclaim the kernel counted (allocstall_*) is in the trace" \
		lat_allocstall "$name"
	check "$name: reclaim and direct compaction name memhog's allocation and its caller" \
		lat_direct "$name"
	check "$name: the event groups switch at run time, each change in the trace" \
		lat_groups "$name"
	check "$name: save --from-ftrace of the same tracepoints: the same episodes, each kind" \
		lat_ftrace "$name"
fi

# The debug kernel: lockdep, KASAN, PREEMPT, atomic-sleep checks.  The
# recorder must run a whole boot under them without a single report.
if [ "${KMF_DEBUG_KERNEL:-1}" != 0 ]; then
	name=debug-2cpu
	check "build the debug kernel (lockdep, KASAN)" \
		sh -c "'$repo/qemu-tests/build-kernel.sh' debug > '$out/debug-kernel'"
	if [ -s "$out/debug-kernel" ]; then
		# Under TCG the debug kernel's clocks can leap, and ACPI then
		# times out an AML loop (AE_AML_LOOP_TIMEOUT), PCI interrupts
		# are missing and the guest never reaches /init.  With
		# -icount the guest clock counts instructions and cannot
		# leap; should it happen anyway, that is the emulator, not
		# the recorder: boot once more, and say so.
		debug_boot() {	# [HOOK CMDLINE]
			for try in 1 2; do
				KMF_QEMU_ARGS="-icount shift=0" \
				"$repo/qemu-tests/boot.sh" -k "$(cat "$out/debug-kernel")" -c 2 \
					-t 900 -x "$repo/qemu-tests/${1:-stress-hook.sh}" \
					-a "${2:-kmemtrace.enable=1 kmemtrace.events=all kmfstress.pairs=$debug_pairs}" "$out/$name" &&
					[ "$(cat "$out/$name/save.rc")" = 0 ] &&
					[ "$(cat "$out/$name/hook.rc")" = 0 ] && return 0
				grep -q AE_AML_LOOP_TIMEOUT "$out/$name/console.log" || return 1
				echo "debug boot $try: ACPI AML loop timeout under TCG, retrying" |
					tee -a "$out/retries"
				cp "$out/$name/console.log" "$out/$name/console-try$try.log"
			done
			return 1
		}
		debug_pairs=20000
		check "debug kernel: boot 2 vCPU with the recorder, run the SMP stress, save" debug_boot
		check "debug kernel: no lockdep, KASAN or atomic-sleep report" \
			sh -c "[ -s '$out/$name/dmesg' ] && ! grep -E 'BUG:|WARNING:|KASAN:|possible circular|inconsistent lock|possible recursive|sleeping function called' '$out/$name/dmesg'"
		check "debug kernel: kernel event counters equal the events in the file" \
			kernel_equals_file "$name"
		check "debug kernel: every stress pair is in the trace, in its context and on its CPU" \
			stress_counted "$name" 2 "$debug_pairs"

		# The control files and CPU hotplug at once (concur-hook.sh):
		# recording off and on, groups, modes, freezes and re-arms,
		# the buffers given back and allocated again, CPU 1 down and
		# up, every CPU allocating; then the buffers given back alone.  Lockdep reports an
		# inverted lock order once both orders have been taken, however
		# the loops interleave.
		name=debug-concur
		concur_rounds=20
		concur_saved() {
			debug_boot concur-hook.sh "kmemtrace.enable=1 kmfconcur.rounds=$concur_rounds" || return 1
			cat "$out/$name"/concur.* "$out/$name/hook.err"
			for l in enable events mode hotplug stress release; do
				grep -q "^$concur_rounds rounds, " "$out/$name/concur.$l" || return 1
			done
			[ "$(cat "$out/$name/concur.released")" = 0 ] || return 1
			# the end: recording, boot mode, armed, both CPUs up
			printf '1\nboot\n0\n0-1\n' | cmp - "$out/$name/concur.end" &&
				"$kmf" info "$out/$name/boot.kmt" > "$out/$name/info" &&
				"$kmf" report "$out/$name/boot.kmt" > "$out/$name/report.txt"
		}
		check "debug kernel: the control files and CPU hotplug at once, $concur_rounds rounds each; the save reads" \
			concur_saved
		check "debug kernel, all at once: no lockdep, KASAN, atomic-sleep or hung-task report" \
			sh -c "[ -s '$out/$name/dmesg' ] && ! grep -E 'BUG:|WARNING:|KASAN:|possible circular|inconsistent lock|possible recursive|sleeping function called|blocked for more than' '$out/$name/dmesg'"

		# The debug kernel has no compaction (Kconfig/debug.config):
		# a group it cannot record is refused by name, and the boot
		# goes on with the recorder off.
		name=debug-nocompaction
		check "debug kernel without CONFIG_COMPACTION: kmemtrace.events=compaction refused, recorder off" \
			sh -c "KMF_QEMU_ARGS='-icount shift=0' '$repo/qemu-tests/boot.sh' -k '$(cat "$out/debug-kernel")' -c 1 -t 900 \
				-a 'kmemtrace.enable=1 kmemtrace.events=compaction' '$out/$name' &&
				grep 'kmemtrace.events=compaction: this kernel has no CONFIG_COMPACTION; recorder stays off' '$out/$name/dmesg' &&
				[ \"\$(cat '$out/$name/save.rc')\" = 1 ]"
	fi
fi

for name in default-1cpu default-2cpu; do
	[ -f "$out/$name/boot.kmt" ] || continue
	"$kmf" info "$out/$name/boot.kmt" | awk -v n="$name" '
		$1 == "total" { ev = $3 } /^bytes\/event/ { print "# " n ": " ev " events, " $2 " bytes/event in sub-buffers, " $4 " in the file" }'
done
if [ -f "$out/latency-boot/latency.txt" ]; then
	sed -n '5,8p' "$out/latency-boot/latency.txt" | sed 's/^/# latency-boot: /'
fi
for name in dracut-attach dracut-noattach; do
	[ -f "$out/$name/boot.kmt" ] || continue
	echo "# $name: a pool of 256 x 64 KiB; per CPU (cpu events lost):" \
		"$(awk '{ printf "%s%s", s, $0; s = ", " }' "$out/$name/stats.file" 2>/dev/null)"
	sed -n 's/^\[ kmemflight: \(attach .*\) \]$/# '"$name"': \1/p' "$out/$name/save.out"
done
[ -f "$out/retries" ] && sed 's/^/# /' "$out/retries"
check_done

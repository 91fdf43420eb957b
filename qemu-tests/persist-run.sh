#!/bin/sh
# The persist suite: a trace that survives a crash.  The guest's RAM is a
# file (memory-backend-file), so that it outlives QEMU too, and the
# recorder's pool is a reserve_mem= region in it (kmemtrace.persist=).
# One QEMU run boots the same guest four times, QEMU resetting it in
# between and keeping its RAM:
#
#  1. boot mode, a workload (comm kmfwarm), then a warm reboot (reboot -f);
#  2. saves the previous boot (save --previous), saves its own (which
#     gives its pool back), records again in flight mode (the region is
#     the pool again), runs a workload (kmfpanic) and says it is ready:
#     the host injects an NMI, unknown_nmi_panic panics, panic=1 reboots;
#  3. saves the panicked boot, records again in boot mode, runs a
#     workload (kmfreset) and says it is ready: the host resets the
#     machine (QMP system_reset), a hang's watchdog;
#  4. saves the reset boot, records again in flight mode, and runs out
#     of memory with vm.panic_on_oom=1: the OOM killer panics;
#  5. saves the boot that ran out of memory, keeping the region (-k).
#
# Then two runs on what the fifth boot kept, each one boot with the
# recorder off: the region's build id changed (another kernel wrote it),
# and the region overwritten with random bytes.  Each must be refused
# with a clear message and exit 1, nothing saved.  Last, a boot that
# records into the region (formatting what is there) and saves itself:
# its footprint balances, the region counted once, as memblock's.
# Prints "ok/not ok" per check and "persist: N passed, N failed".
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${KMF_QEMU_OUT:-$repo/build/qemu-tests}/persist
kmf=$repo/build/kmemflight
suite=persist
rm -rf "$out"
mkdir -p "$out"
# shellcheck source=qemu-tests/check.sh
. "$repo/qemu-tests/check.sh"

kernel=$("$repo/qemu-tests/build-kernel.sh" qemu) || {
	echo "not ok 1 - persist: build the kernel"
	echo "persist: 0 passed, 1 failed"
	exit 1
}
make -s -C "$repo" build/kmemflight || exit 1

g=$out/guest
mkdir -p "$g"
ram=$out/ram
mem=512M
# 8 MiB at a 64 MiB boundary: below what the firmware writes near the
# top of RAM at a reset (SeaBIOS, about 80 KiB some 16 MiB below it)
region="reserve_mem=8M:64M:kmt kmemtrace.persist=kmt"
base="console=ttyS0 loglevel=5 nokaslr tsc=reliable $region"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/out" "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
strip -o "$root/bin/kmemflight" "$kmf"
for lib in $(ldd "$kmf" | grep -o '/[^ ]*' | sort -u); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L kmfout /out
mount -t tracefs nodev /sys/kernel/tracing
mount -t tmpfs tmp /tmp
T=/sys/kernel/tracing/kmemtrace
n=$(($(cat /out/boots 2>/dev/null || echo 0) + 1))
echo $n > /out/boots
sync
# A workload under comm $1: 2000 files made and removed, each a dentry
# and an inode, from the shell's builtins (no exec: the comm stays)
work() {
	printf %s "$1" > /proc/self/comm
	i=0
	while [ $i -lt 2000 ]; do
		echo $i > /tmp/w$i
		i=$((i + 1))
	done
	rm -f /tmp/w*
}
# save what the previous boot left, as $1
previous() {
	cat $T/previous/info > /out/info.$n 2>&1
	kmemflight save $2 --previous /out/$1.kmt > /out/$1.out 2> /out/$1.err
	echo $? > /out/$1.rc
}
# this boot's save (its pool goes back), then record again in mode $1:
# the pool is the region again
again() {
	kmemflight save /out/boot$n.kmt > /out/boot$n.out 2> /out/boot$n.err
	echo $? > /out/boot$n.rc
	echo "$1" > $T/mode
	echo 1 > $T/enable
	cat $T/previous/info > /out/info-again.$n 2>&1
}
# stats at the point the host may stop the machine, then "ready"
ready() {
	cat $T/stats > /out/stats.$n
	sync
	touch /out/ready.$n
	sync
	sleep 600
}
case "$(cat /out/plan)" in
crash)
	case $n in
	1)	cat $T/previous/info > /out/info.1 2>&1
		(work kmfwarm)
		cat $T/stats > /out/stats.1
		sync
		reboot -f ;;
	2)	previous reboot
		kmemflight save --previous /out/again.kmt > /out/again.out 2> /out/again.err
		echo $? > /out/again.rc
		again flight
		(work kmfpanic)
		ready ;;
	3)	previous panic
		again boot
		(work kmfreset)
		ready ;;
	4)	previous reset
		again flight
		cat $T/stats > /out/stats.4
		sync
		# out of memory: tail keeps all it reads, and the OOM
		# killer panics (panic=1 reboots)
		echo 1 > /proc/sys/vm/panic_on_oom
		tail /dev/zero
		sleep 600 ;;
	5)	previous oom -k ;;
	esac ;;
refused)
	cat $T/previous/info > /out/info.$n 2>&1
	kmemflight save --previous /out/refused.kmt > /out/refused.out 2> /out/refused.err
	echo $? > /out/refused.rc ;;
region)
	cat $T/previous/info > /out/info.$n 2>&1
	kmemflight save /out/region.kmt > /out/region.out 2> /out/region.err
	echo $? > /out/region.rc ;;
esac
dmesg > /out/dmesg.$n
sync
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.gz"

qmp() {	# COMMAND: a QMP command to the running guest
	python3 - "$out/qmp.sock" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
for cmd in ("qmp_capabilities", sys.argv[2]):
    f.write(json.dumps({"execute": cmd}) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            break
    if "error" in r:
        sys.exit("qmp %s: %s" % (cmd, r["error"]["desc"]))
PY
}

# run PLAN CMDLINE [ACTION...]: boot the guest on $ram with /out/plan
# PLAN; each ACTION "N:COMMAND" sends QMP COMMAND once boot N is ready
run() {
	plan=$1
	cmdline=$2
	shift 2
	echo "$plan" > "$g/plan"
	rm -f "$g/boots" "$g"/ready.* "$out/qmp.sock"
	timeout 600 qemu-system-x86_64 -accel tcg -m $mem -smp 2 -nographic \
		-object "memory-backend-file,id=ram,size=$mem,mem-path=$ram,share=on" \
		-machine memory-backend=ram \
		-qmp "unix:$out/qmp.sock,server=on,wait=off" \
		-kernel "$kernel" -initrd "$out/initramfs.gz" -append "$cmdline" \
		-virtfs "local,path=$g,mount_tag=kmfout,security_model=none,id=kmfout" \
		>> "$out/console.log" 2>&1 &
	q=$!
	for action in "$@"; do
		boot=${action%%:*}
		t=0
		while [ ! -e "$g/ready.$boot" ] && [ $t -lt 300 ] && kill -0 $q 2>/dev/null; do
			sleep 1
			t=$((t + 1))
		done
		[ -e "$g/ready.$boot" ] || { echo "boot $boot never got ready"; break; }
		qmp "${action#*:}" || break
	done
	wait $q
}

rm -f "$ram"
crashed() {
	run crash "$base panic=1 unknown_nmi_panic kmemtrace.enable=1" \
		2:inject-nmi 3:system_reset || return 1
	tail -5 "$out/console.log"
	[ "$(cat "$g/boots")" = 5 ]
}
check "one guest booted five times: a warm reboot, an NMI panic, a system_reset, out of memory" crashed

events() {	# FILE: the events the file holds, from 'info'
	"$kmf" info "$1" | awk '$1 == "total" { print $2 }'
}
recorded() {	# STATS: the events its CPUs recorded
	awk '!/^#/ { e += $2 } END { print e + 0 }' "$1"
}
# NAME STATS: save --previous saved NAME, every event of STATS and not
# a great many more (what ran between the stats and the end), none lost
saved_previous() {
	cat "$g/$1.out" "$g/$1.err" "$g/$1.rc"
	[ "$(cat "$g/$1.rc")" = 0 ] || return 1
	grep -q "did not decode" "$g/$1.err" && return 1
	"$kmf" info "$g/$1.kmt" > "$out/$1.info" || return 1
	cat "$out/$1.info"
	e=$(events "$g/$1.kmt")
	s=$(recorded "$2")
	echo "saved $e, recorded by the stats $s"
	[ "$e" -ge "$s" ] && [ "$e" -le $((s + 20000)) ] &&
		grep -q "saved $e events of the previous boot from 2 CPUs (0 lost" "$g/$1.out"
}

reboot_saved() {
	grep -q '^region: pool' "$g/info.1" || return 1
	grep -q '^region: kept' "$g/info.2" || return 1
	saved_previous reboot "$g/stats.1" || return 1
	# the boot it saved is the one before, in boot mode, not frozen
	grep -q "^saved: .*by the boot after the one recorded" "$out/reboot.info" &&
		grep -q "^mode: *boot" "$out/reboot.info" &&
		grep -q "^frozen: *no$" "$out/reboot.info"
}
check "after a warm reboot, save --previous writes every event the boot recorded" reboot_saved

released() {	# the region released: a second save has nothing, the pool takes it
	cat "$g/again.err" "$g/info-again.2"
	[ "$(cat "$g/again.rc")" = 1 ] &&
		grep -q "nothing of the previous boot is kept (the region is free)" "$g/again.err" &&
		[ ! -e "$g/again.kmt" ] &&
		grep -q '^region: pool' "$g/info-again.2"
}
check "released, the region is the next pool's; a second save --previous says nothing is kept" released

panic_saved() {
	saved_previous panic "$g/stats.2" || return 1
	grep -q "ended by panic" "$g/panic.out" &&
		grep -q "^frozen: *by panic" "$out/panic.info" || return 1
	"$kmf" report --window "$g/panic.kmt" > "$out/panic.window" 2>&1
	rc=$?
	cat "$out/panic.window"
	[ $rc = 0 ] && grep -q "panic" "$out/panic.window" &&
		grep -q "kmfpanic" "$out/panic.window"
}
check "after an NMI panic, the saved previous boot ends in the panic trigger; report --window names the workload" panic_saved

reset_saved() {
	saved_previous reset "$g/stats.3" || return 1
	grep -q "^frozen: *no$" "$out/reset.info" &&
		"$kmf" report "$g/reset.kmt" > "$out/reset.report" &&
		"$kmf" report --window "$g/reset.kmt" > "$out/reset.window" &&
		grep -q "^Trigger:   none: .* the window ends where that boot stopped" "$out/reset.window"
}
check "after a system_reset mid-workload, save --previous writes every record before it" reset_saved

oom_saved() {	# flight mode: what the region kept of it, not all
	cat "$g/oom.out" "$g/oom.err" "$g/oom.rc"
	[ "$(cat "$g/oom.rc")" = 0 ] && ! grep -q "did not decode" "$g/oom.err" &&
		grep -q "ended by panic" "$g/oom.out" || return 1
	"$kmf" report --window "$g/oom.kmt" > "$out/oom.window" 2>&1
	rc=$?
	cat "$out/oom.window"
	# the panic in tail, whose page fault ran out, and which holds the
	# most of the pages kept (the first process of the table)
	[ $rc = 0 ] && grep -q "^Panic: *the kernel panicked, from " "$out/oom.window" &&
		grep -q "^Task: *pid [0-9]* (tail)" "$out/oom.window" &&
		sed -n '/^Processes (in the window) by bytes retained/,$p' "$out/oom.window" |
		awk -F'|' '/^ [a-z]/ && !/Process/ { exit !($1 ~ /^ tail +$/ && $5 + 0 > 100000000) }' 
}
check "out of memory with panic_on_oom: the saved boot ends in the OOM killer's panic, in the task that ran out" oom_saved

# OFFSET BYTES: write BYTES (a file) over the RAM file at OFFSET
poke() {
	dd if="$2" of="$ram" bs=64k seek="$1" oflag=seek_bytes conv=notrunc status=none
}
addr=$(sed -n 's/^address: 0x//p' "$g/info.5" 2>/dev/null)
refused() {	# LABEL: the boot refused the region, with MESSAGE in dmesg
	run refused "$base" || return 1
	cat "$g/refused.err" "$g/info.1"
	grep kmemtrace "$g/dmesg.1"
	[ "$(cat "$g/refused.rc")" = 1 ] && [ ! -e "$g/refused.kmt" ] &&
		grep -q "^region: foreign" "$g/info.1" &&
		grep -q "holds no trace of this kernel" "$g/refused.err" &&
		grep -q "$1" "$g/dmesg.1"
}
# the build id is at offset 64 of the region's header
other_kernel() {
	[ -n "$addr" ] || return 1
	printf '\377\377\377\377' > "$out/bytes"
	poke $((0x$addr + 64)) "$out/bytes"
	refused "was written by another kernel"
}
check "a region another kernel wrote: save --previous refuses it, exit 1" other_kernel
garbage() {
	[ -n "$addr" ] || return 1
	head -c 8388608 /dev/urandom > "$out/bytes"
	poke $((0x$addr)) "$out/bytes"
	refused "holds no kmemtrace header"
}
check "random bytes in the region: save --previous refuses them, exit 1" garbage

# the pool in the region: memblock's (reserve_mem), not the page
# allocator's, so not the recorder's buffers in the balance
region_footprint() {
	run region "$base kmemtrace.enable=1" || return 1
	cat "$g/region.out" "$g/region.err" "$g/info.1"
	[ "$(cat "$g/region.rc")" = 0 ] && grep -q "^region: pool" "$g/info.1" || return 1
	"$kmf" info "$g/region.kmt" | grep "^buffers:" &&
		"$kmf" info "$g/region.kmt" | grep -q "^buffers: .* in a reserve_mem= region" &&
		"$kmf" report --footprint "$g/region.kmt" &&
		"$kmf" report --footprint --json "$g/region.kmt" > "$out/footprint.json" &&
		python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ok = (d["recorder_buffers"] == 0 and
      d["allocated"] == d["pages_held"] + d["unexplained"] and
      abs(d["unexplained"]) < 256 << 10 and
      d["reserved"] - 8192 <= d["memblock_held"] <= d["reserved"] and
      d["explained_pct"] >= 99.9)
print("explained %.3f %%, not explained %d" % (d["explained_pct"], d["unexplained"]))
sys.exit(0 if ok else 1)' "$out/footprint.json"
}
check "a boot recording into the region: its footprint balances, the region counted once (memblock's)" region_footprint

rm -f "$ram" "$out/bytes" "$out/initramfs.gz"
check_done

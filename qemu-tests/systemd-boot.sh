#!/bin/sh
# Boot a real Debian bookworm root with systemd under QEMU, through a
# dracut initramfs made with dracut's systemd modules and kmemflight's:
# kmemflight-attach.service drains the recorder from the initramfs's first
# units on, and lives on across switch-root as the real root's unit of the
# same name; kmemflight-save.service saves the boot once multi-user.target
# is reached, as a user's machine would.  kmemflight comes from its Debian package, built from this tree
# and installed in the root with dpkg.  A test unit ordered after the save
# copies what the test checks to the host through 9p and powers off.
#
#   qemu-tests/systemd-boot.sh [-c CPUS] [-a "EXTRA CMDLINE"] [-k BZIMAGE]
#                              [-D DEBIAN-KERNEL] [-t SECS] [-n BOOTS]
#                              [-K KEEP] OUTDIR
#
# -D boots Debian's own kernel instead (qemu-tests/debian-kernel.sh: the
# unpacked linux-image package, which has no recorder), with its modules
# in the initramfs and the root.
#
# The root image is built once per run and booted BOOTS times (1); boot N
# leaves its results in OUTDIR/bootN: console.log, and from the guest
# journal (the whole journal of the boot, monotonic time), units
# (systemctl list-units --all), failed (systemctl --failed), state
# (systemctl is-system-running), save.status and attach.status
# (systemctl status of both units), boot_id, busy (/proc/uptime and
# /proc/stat's cpu line right after multi-user.target), lib.ls (ls -l of
# /var/lib/kmemflight), the saved boot-BOOT_ID.kmt and .summary, spool.ls
# and spool.log (the spool as the save left it), attach.ps (the
# attach processes alive before the save), uptime and dmesg.
# KEEP goes to /etc/default/kmemflight as KMEMFLIGHT_KEEP.  OUTDIR also
# gets deb/ (the package, its build log and lintian's) and dpkg.log.
#
# The machine is QEMU's q35, as libvirt and virt-manager make new VMs:
# on the older i440fx, the ACPI interpreter allocates and frees objects
# (acpi_ut_create_generic_state ...) while it routes each virtio PCI
# device's interrupt through the PCI link devices: about 260,000 events
# per device, 525,000 with the disk and 9p, which alone nearly fill a
# CPU's default buffers before the initramfs starts.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
cpus=2
extra=
kernel=
timeout=900
boots=1
keep=
debkernel=
usage() {
	echo "usage: $0 [-c CPUS] [-a CMDLINE] [-k BZIMAGE] [-D DEBIAN-KERNEL] [-t SECS] [-n BOOTS] [-K KEEP] OUTDIR" >&2
	exit 2
}
while getopts c:a:k:D:t:n:K: o; do
	case $o in
	c) cpus=$OPTARG ;;
	a) extra=$OPTARG ;;
	k) kernel=$OPTARG ;;
	D) debkernel=$OPTARG ;;
	t) timeout=$OPTARG ;;
	n) boots=$OPTARG ;;
	K) keep=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
# dracut: the kernel's modules too for Debian's kernel (the storage
# drivers, which udev loads in the initramfs), none for ours, which has
# what it needs built in
kmoddir=
if [ -n "$debkernel" ]; then
	kernel=$(ls "$debkernel"/boot/vmlinuz-*)
	kver=${kernel##*/vmlinuz-}
	kmoddir=$debkernel/lib/modules/$kver
else
	[ -n "$kernel" ] || kernel=$("$repo/qemu-tests/build-kernel.sh" qemu)
	kver=$(cat "${kernel%/arch/x86/boot/bzImage}/include/config/kernel.release" 2>/dev/null) ||
		kver=$(file -bL "$kernel" | sed -n 's/.*, version \([^ ]*\) .*/\1/p')
fi
[ -n "$kver" ] || { echo "systemd-boot.sh: cannot tell the kernel release of $kernel" >&2; exit 1; }
rootfs=$("$repo/qemu-tests/debian-root.sh")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The package, as a user installs it: the binary, the units, the dracut
# module and the rest, built from this tree (qemu-tests/build-deb.sh).
deb=$("$repo/qemu-tests/build-deb.sh" "$out/deb")
dpkg-deb -x "$deb" "$tmp/pkg"

# The initramfs: dracut's systemd initrd (systemd, udevd, journald, the
# dracut-systemd units) with the package's kmemflight module, from a
# private copy of /usr/lib/dracut.
cp -a /usr/lib/dracut "$tmp/dracut"
cp -a "$tmp/pkg/usr/lib/dracut/modules.d/90kmemflight" "$tmp/dracut/modules.d/"
mkdir -p "$tmp/dracut.conf.d" "$tmp/dracut-tmp"
modules="bash systemd systemd-initrd systemd-udevd systemd-journald dracut-systemd base rootfs-block kmemflight"
[ -z "$debkernel" ] || modules="$modules kernel-modules"
start=$(date +%s)
if [ -n "$kmoddir" ]; then
	set -- --kmoddir "$kmoddir" --drivers "virtio_blk ext4"
else
	set -- --no-kernel
fi
if ! dracutbasedir="$tmp/dracut" KMEMFLIGHT_BIN="$tmp/pkg/usr/bin/kmemflight" dracut \
	--conf /dev/null --confdir "$tmp/dracut.conf.d" --tmpdir "$tmp/dracut-tmp" \
	--force "$@" --no-hostonly --no-hostonly-cmdline --no-early-microcode \
	--kver "$kver" --modules "$modules" --gzip \
	"$out/initramfs.img" > "$out/dracut.log" 2>&1; then
	echo "systemd-boot.sh: dracut failed; see $out/dracut.log" >&2
	tail -20 "$out/dracut.log" >&2
	exit 1
fi
echo "systemd-boot.sh: dracut built $out/initramfs.img in $(($(date +%s) - start)) s" >&2

# The real root: the cached bookworm tree, the package installed by dpkg
# and its units enabled, and the test's unit.
root=$tmp/root
mkdir -p "$root"
tar -C "$root" --numeric-owner -xpf "$rootfs"
cp "$deb" "$root/tmp/kmemflight.deb"
chroot "$root" dpkg -i /tmp/kmemflight.deb > "$out/dpkg.log" 2>&1 || {
	cat "$out/dpkg.log" >&2
	echo "systemd-boot.sh: dpkg -i of the package failed in the root" >&2
	exit 1
}
rm -f "$root/tmp/kmemflight.deb"
# Debian's kernel loads 9p, for the results, from the root's modules
if [ -n "$debkernel" ]; then
	mkdir -p "$root/lib/modules"
	cp -a "$debkernel/lib/modules/$kver" "$root/lib/modules/"
fi
systemctl --root="$root" -q enable kmemflight-attach.service kmemflight-save.service \
	kmemflight-watch.service
echo kmftest > "$root/etc/hostname"
echo "/dev/vda / ext4 rw 0 1" > "$root/etc/fstab"
[ -z "$keep" ] || echo "KMEMFLIGHT_KEEP=$keep" > "$root/etc/default/kmemflight"
mkdir -p "$root/out"
cat > "$root/usr/local/sbin/kmftest-collect" <<'COLLECT'
#!/bin/sh
# The systemd-boot test's unit: after kmemflight-save.service, take what
# the host checks out through 9p, then power off.
mount -t 9p -o trans=virtio,version=9p2000.L kmfout /out
n=$(cat /out/next)
d=/out/boot$n
mkdir -p "$d"
cat /proc/sys/kernel/random/boot_id > "$d/boot_id"
systemctl is-system-running > "$d/state" 2>&1
systemctl list-units --all --no-pager --plain > "$d/units" 2>&1
systemctl --failed --no-pager --plain > "$d/failed" 2>&1
systemctl status --no-pager -l kmemflight-save.service > "$d/save.status" 2>&1
systemctl status --no-pager -l kmemflight-attach.service > "$d/attach.status" 2>&1
systemctl show -p ActiveEnterTimestampMonotonic multi-user.target > "$d/multi-user" 2>&1
# the watch arms the recorder after the save; a manual freeze, saved by it
watching() {	# N: the watch said it waits N times, up to 60 s
	i=0
	while [ "$(journalctl -b -u kmemflight-watch.service -o cat | grep -c 'waiting for a trigger')" -lt "$1" ] &&
		[ $i -lt 600 ] && ! systemctl -q is-failed kmemflight-watch.service; do
		sleep 0.1
		i=$((i + 1))
	done
}
watching 1
cat /sys/kernel/tracing/kmemtrace/mode > "$d/mode" 2>&1
echo 1 > /sys/kernel/tracing/kmemtrace/frozen 2> "$d/freeze.err"
watching 2
ls /var/lib/kmemflight/flight > "$d/flight.ls" 2>&1
cp /var/lib/kmemflight/flight/*.kmt "$d/" 2>/dev/null
cat /sys/kernel/tracing/kmemtrace/frozen > "$d/frozen" 2>&1
systemctl status --no-pager -l kmemflight-watch.service > "$d/watch.status" 2>&1
ls -l /var/lib/kmemflight > "$d/lib.ls" 2>&1
stat -c '%a %U %F %n' /var/lib/kmemflight /var/lib/kmemflight/* /var/lib/kmemflight/flight/* > "$d/lib.stat" 2>&1
cp /var/lib/kmemflight/* "$d/" 2>/dev/null
ls -la /run/kmemflight > "$d/spool.ls" 2>&1
cat /run/kmemflight/log > "$d/spool.log" 2>&1
journalctl -b -o short-monotonic --no-pager > "$d/journal" 2>&1
cat /proc/uptime > "$d/uptime"
cp /run/kmftest-busy "$d/busy" 2>/dev/null
dmesg > "$d/dmesg"
echo done > "$d/collected"
sync
systemctl poweroff --no-block
COLLECT
chmod 0755 "$root/usr/local/sbin/kmftest-collect"
cat > "$root/etc/systemd/system/kmftest-collect.service" <<'UNIT'
[Unit]
Description=kmemflight test: collect the results and power off
After=kmemflight-save.service kmemflight-watch.service multi-user.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/kmftest-collect

[Install]
WantedBy=multi-user.target
UNIT
# The CPU time of the boot up to multi-user.target, for the benchmark
# of the recorder's cost on this boot (bench/systemd-cost.sh): ordered
# right after the target and before kmemflight's own save, /proc/uptime
# and /proc/stat's cpu line.
cat > "$root/etc/systemd/system/kmftest-busy.service" <<'UNIT'
[Unit]
Description=kmemflight test: the CPU time to multi-user.target
After=multi-user.target
Before=kmemflight-save.service kmftest-collect.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'cat /proc/uptime; grep "^cpu " /proc/stat'
StandardOutput=file:/run/kmftest-busy

[Install]
WantedBy=multi-user.target
UNIT
systemctl --root="$root" -q enable kmftest-collect.service kmftest-busy.service
rm -f "$out/root.img"
mke2fs -q -t ext4 -L kmftest -d "$root" -E root_owner=0:0 "$out/root.img" 1536M > /dev/null
rm -rf "$root"

# Debian's kernel patches its text at boot far more than ours (static
# calls, PREEMPT_DYNAMIC): under multi-threaded TCG a vCPU can then run
# a stale translation of a breakpoint text_poke_bp() already took out
# ("Oops: int3" in sched_clock_cpu when sched_clock is marked stable, 1
# boot in the CI of 2026-11-26).  One thread for all vCPUs runs the
# other vCPUs only between translation blocks: no stale code.
accel=tcg
[ -z "$debkernel" ] || accel=tcg,thread=single
n=1
while [ "$n" -le "$boots" ]; do
	rm -rf "${out:?}/boot$n"
	echo "$n" > "$out/next"
	start=$(date +%s)
	# rd.shell=0 rd.emergency=poweroff: a failed initramfs ends the VM
	# instead of waiting at an emergency shell until the timeout.
	# shellcheck disable=SC2086 # KMF_QEMU_ARGS: words for QEMU
	timeout "$timeout" qemu-system-x86_64 -accel "$accel" -machine q35 ${KMF_QEMU_ARGS:-} -m 1G -smp "$cpus" -nographic \
		-no-reboot -nic none -kernel "$kernel" -initrd "$out/initramfs.img" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 tsc=reliable rd.shell=0 rd.emergency=poweroff kmemtrace.enable=1 $extra" \
		-drive "file=$out/root.img,if=virtio,format=raw" \
		-virtfs "local,path=$out,mount_tag=kmfout,security_model=none,id=kmfout" \
		> "$out/console-$n.log" 2>&1 || {
		echo "systemd-boot.sh: QEMU failed or timed out on boot $n; see $out/console-$n.log" >&2
		tail -20 "$out/console-$n.log" >&2
		exit 1
	}
	mkdir -p "$out/boot$n"
	mv "$out/console-$n.log" "$out/boot$n/console.log"
	echo "$(($(date +%s) - start))" > "$out/boot$n/seconds"
	echo "systemd-boot.sh: boot $n took $(cat "$out/boot$n/seconds") s" >&2
	[ -f "$out/boot$n/collected" ] || {
		echo "systemd-boot.sh: boot $n never reached the test's unit; see $out/boot$n/console.log" >&2
		tail -20 "$out/boot$n/console.log" >&2
		exit 1
	}
	n=$((n + 1))
done
rm -f "$out/root.img" "$out/next"

#!/bin/sh
# Boot the test kernel under QEMU through a dracut-built initramfs with
# the kmemflight module (dracut's shell init and udev, no systemd).  Its
# cmdline hook starts "kmemflight attach --daemon"; dracut mounts /dev/vda,
# a small ext4 root built here, and switch_roots into it; that root's
# /sbin/init checks the daemon is still alive, runs a workload, saves with
# "kmemflight save" and powers off.  Results land in OUTDIR through 9p.
#
#   qemu-tests/dracut-boot.sh [-c CPUS] [-a "EXTRA CMDLINE"] [-k BZIMAGE] [-t SECS] OUTDIR
#
# The workload's size is kmftest.work=N on the kernel command line (-a),
# 800 rounds by default.
#
# OUTDIR receives initramfs.img and dracut.log (dracut's output),
# console.log, and from the real root: init.cmdline (/proc/1/cmdline),
# rootfs (the mount on /: proof of the switch_root), mounts, daemon (pid
# and argv of every '@' process; fds and root of the kmemflight one), ps,
# spool.ls (ls -la /run/kmemflight), spool.log (the spool's log),
# attach.log (the attach's output in the initramfs), workload.pid,
# workload.rc, stats.before (tracefs kmemtrace/stats before the save),
# attach-twice.rc/.err and attach-notroot.rc/.err (a second attach, and
# one as nobody, while the first runs), save.rc,
# save.out, save.err, boot.kmt, stats (after the save), after.ps and
# after.daemon (processes after the save), spool.after (what is left of
# the spool), uptime and dmesg.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
cpus=2
extra=
kernel=
timeout=300
usage() {
	echo "usage: $0 [-c CPUS] [-a CMDLINE] [-k BZIMAGE] [-t SECS] OUTDIR" >&2
	exit 2
}
while getopts c:a:k:t: o; do
	case $o in
	c) cpus=$OPTARG ;;
	a) extra=$OPTARG ;;
	k) kernel=$OPTARG ;;
	t) timeout=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -n "$kernel" ] || kernel=$("$repo/qemu-tests/build-kernel.sh" qemu)
tool=$repo/build/kmemflight
[ -x "$tool" ] || make -s -C "$repo" build/kmemflight

# The kernel release dracut is told about (--kver); there are no modules
# to install, but dracut wants one.  build-kernel.sh's tree has it next
# to the bzImage, otherwise file(1) reads it from the image header.
kver=
rel=${kernel%/arch/x86/boot/bzImage}/include/config/kernel.release
if [ -f "$rel" ]; then
	kver=$(cat "$rel")
elif command -v file > /dev/null; then
	kver=$(file -bL "$kernel" | sed -n 's/.*, version \([^ ]*\) .*/\1/p')
fi
[ -n "$kver" ] || {
	echo "dracut-boot.sh: cannot tell the kernel release of $kernel" >&2
	exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The initramfs: a private copy of dracut with this tree's module in it.
cp -a /usr/lib/dracut "$tmp/dracut"
make -s -C "$repo" install-dracut DESTDIR= DRACUT_MODULES="$tmp/dracut/modules.d"
mkdir -p "$tmp/dracut.conf.d" "$tmp/dracut-tmp"
# dash: run init and the hook with Debian's /bin/sh, a strict POSIX shell.
# base (+ udev-rules), rootfs-block (+ fs-lib): mount root=/dev/vda.
modules="dash base rootfs-block kmemflight"
start=$(date +%s)
if ! dracutbasedir="$tmp/dracut" KMEMFLIGHT_BIN="$tool" dracut \
	--conf /dev/null --confdir "$tmp/dracut.conf.d" --tmpdir "$tmp/dracut-tmp" \
	--force --no-kernel --no-hostonly --no-hostonly-cmdline --no-early-microcode \
	--kver "$kver" --modules "$modules" --omit systemd --gzip \
	"$out/initramfs.img" > "$out/dracut.log" 2>&1; then
	echo "dracut-boot.sh: dracut failed; see $out/dracut.log" >&2
	tail -20 "$out/dracut.log" >&2
	exit 1
fi
echo "dracut-boot.sh: dracut built $out/initramfs.img in $(($(date +%s) - start)) s" >&2

# The real root: busybox, kmemflight and its libraries, and an init that
# reports on the switch_root and the daemon, loads the system, saves.
root=$tmp/root
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/etc" "$root/proc" "$root/sys" \
	"$root/dev" "$root/run" "$root/out" "$root/tmp"
chmod 1777 "$root/tmp"
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
echo "kmemflight dracut-boot test root" > "$root/etc/kmftest-root"
cp /bin/busybox "$root/bin/busybox"
for app in $(/bin/busybox --list); do
	[ "$app" = busybox ] || ln -s busybox "$root/bin/$app"
done
cp "$tool" "$root/usr/bin/kmemflight"
for lib in $(ldd "$tool" | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cat > "$root/sbin/init" <<'INIT'
#!/bin/sh
# Real-root init of qemu-tests/dracut-boot.sh.
export PATH=/usr/bin:/bin
# switch_root moved /dev, /proc, /sys and /run over from the initramfs
[ -e /proc/self ] || mount -t proc proc /proc
[ -d /sys/kernel ] || mount -t sysfs sys /sys
[ -e /dev/null ] || mount -t devtmpfs dev /dev
mount -t 9p -o trans=virtio,version=9p2000.L kmfout /out
echo "kmftest: real root init running as pid $$"
tr '\0' ' ' < /proc/1/cmdline > /out/init.cmdline
grep ' / ' /proc/mounts > /out/rootfs
cat /etc/kmftest-root >> /out/rootfs
cat /proc/mounts > /out/mounts
cat /run/initramfs/kmemflight-attach.log > /out/attach.log 2>&1
ls -la /run/kmemflight > /out/spool.ls 2>&1
cat /run/kmemflight/log > /out/spool.log 2>&1
daemons() {
	for p in /proc/[0-9]*; do
		a=$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null) || continue
		case $a in @*) echo "${p#/proc/} $a" ;; esac
	done
}
daemons > /out/daemon
for pid in $(awk '$2 ~ /^@/ && /memflight/ { print $1 }' /out/daemon); do
	echo "pid $pid root: $(readlink /proc/"$pid"/root) cwd: $(readlink /proc/"$pid"/cwd)"
	ls -l /proc/"$pid"/fd
done >> /out/daemon 2>&1
ps > /out/ps 2>&1

# The workload: forks and execs, files in a tmpfs, in a child process.
n=$(sed -n 's/.*kmftest\.work=\([0-9]*\).*/\1/p' /proc/cmdline)
n=${n:-800}
work() {
	mkdir -p /tmp/work
	mount -t tmpfs tmpfs /tmp/work
	i=0
	while [ "$i" -lt "$1" ]; do
		/bin/busybox true
		echo "$i" > /tmp/work/f$i
		cat /tmp/work/f$i > /dev/null
		mkdir /tmp/work/d$i
		rm -r /tmp/work/f$i /tmp/work/d$i
		i=$((i + 1))
	done
	umount /tmp/work
}
work "$n" &
echo $! > /out/workload.pid
wait $!
echo $? > /out/workload.rc
echo "kmftest: workload of $n rounds done"

grep -q ' /sys/kernel/tracing ' /proc/mounts || mount -t tracefs nodev /sys/kernel/tracing
cat /sys/kernel/tracing/kmemtrace/stats > /out/stats.before 2>&1
# the errors of a second attach (if one runs), and of one by nobody
if [ -s /run/kmemflight/lock ]; then
	kmemflight attach > /dev/null 2> /out/attach-twice.err
	echo $? > /out/attach-twice.rc
fi
su -s /bin/sh -c "kmemflight attach" nobody > /dev/null 2> /out/attach-notroot.err
echo $? > /out/attach-notroot.rc
kmemflight save /boot.kmt > /out/save.out 2> /out/save.err
echo $? > /out/save.rc.tmp
cp /boot.kmt /out/boot.kmt 2>/dev/null
cat /sys/kernel/tracing/kmemtrace/stats > /out/stats 2>&1
ps > /out/after.ps 2>&1
ls -la /run/kmemflight > /out/spool.after 2>&1
daemons > /out/after.daemon
cat /proc/uptime > /out/uptime
dmesg > /out/dmesg
mv /out/save.rc.tmp /out/save.rc
sync
poweroff -f
INIT
chmod 0755 "$root/sbin/init"
rm -f "$out/root.img"
# Room for the save: with kmftest.work=2000 the boot recorded some 3.3
# million events, a file of about 50 MB, which a 64 MiB root held with
# too little to spare ("No space left on device"); 800 rounds make about
# 1.7 million, 25 MB.  The image is sparse.
mke2fs -q -t ext4 -L kmftest -d "$root" -E root_owner=0:0 "$out/root.img" 256M > /dev/null

rm -f "$out/boot.kmt" "$out/save.rc" "$out/save.rc.tmp"
start=$(date +%s)
# rd.shell=0 rd.emergency=poweroff: a dracut failure ends the VM instead
# of waiting at an emergency shell until the timeout.
timeout "$timeout" qemu-system-x86_64 -accel tcg -m 1G -smp "$cpus" -nographic -no-reboot \
	-kernel "$kernel" -initrd "$out/initramfs.img" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 loglevel=5 rd.shell=0 rd.emergency=poweroff $extra" \
	-drive "file=$out/root.img,if=virtio,format=raw" \
	-virtfs "local,path=$out,mount_tag=kmfout,security_model=none,id=kmfout" \
	> "$out/console.log" 2>&1 || {
	echo "dracut-boot.sh: QEMU failed or timed out; see $out/console.log" >&2
	tail -20 "$out/console.log" >&2
	exit 1
}
echo "dracut-boot.sh: boot took $(($(date +%s) - start)) s" >&2
rm -f "$out/root.img"
[ -f "$out/save.rc" ] || {
	echo "dracut-boot.sh: the real root never ran kmemflight save; see $out/console.log" >&2
	tail -20 "$out/console.log" >&2
	exit 1
}

#!/bin/sh
# Boot the test kernel under QEMU with a minimal initramfs whose /init runs
# "kmemflight save" and powers off; results land in OUTDIR through 9p.
#
#   qemu-tests/boot.sh [-c CPUS] [-a "EXTRA CMDLINE"] [-k BZIMAGE] [-t SECS]
#                      [-x HOOK] [-b BINARY] [-m MEMORY] [-d DISK] [-w] OUTDIR
#
# OUTDIR receives boot.kmt, save.rc (exit status of kmemflight save),
# save.out/save.err, stats and stats.presave (tracefs kmemtrace/stats
# after and before the save), memfree.before and memfree.after
# (/proc/meminfo's MemFree line around the save) and zoneinfo.before
# and zoneinfo.after,
# mounts (/proc/mounts after the save, which mounted tracefs itself),
# dmesg and console.log, and the exit status and errors of a save by an
# unprivileged user before tracefs is mounted (notmounted.*) and after
# (notroot.*), and of a save again after the save (save2.*, with the
# file's md5sum before and after it).  With -x, the guest runs the shell
# script HOOK once debugfs (for the samples) is mounted, before the save:
# its output lands in hook.out, hook.err and its exit status in hook.rc.  -b puts a program in the guest's /bin for
# the hook (with the libraries it links), -m sets the guest's memory
# (default 1G) and -d gives it DISK as a read-only virtio disk, /dev/vda.
# -w is for a hook that puts the guest to sleep: it sends a byte every
# 2 s to the guest's second serial port, ttyS1, a device interrupt that
# wakes the guest from suspend-to-idle once the hook has made the port a
# wakeup source (QEMU's RTC alarm wakes a guest only from S3), and keeps
# the hook's output in tmpfs until the hook ends, so that the hook may
# let /out go (QEMU resets virtio devices on resume).
# KMF_QEMU_ARGS adds QEMU options (the
# benchmarks use "-icount shift=0": a guest clock that counts instructions).
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
cpus=2
extra=
kernel=
timeout=300
hook=
bins=
mem=1G
disk=
wake=
while getopts c:a:k:t:x:b:m:d:w o; do
	case $o in
	c) cpus=$OPTARG ;;
	a) extra=$OPTARG ;;
	k) kernel=$OPTARG ;;
	t) timeout=$OPTARG ;;
	x) hook=$OPTARG ;;
	b) bins="$bins $OPTARG" ;;
	m) mem=$OPTARG ;;
	d) disk=$OPTARG ;;
	w) wake=1 ;;
	*) echo "usage: $0 [-c CPUS] [-a CMDLINE] [-k BZIMAGE] [-t SECS] [-x HOOK] [-b BINARY] [-m MEMORY] [-d DISK] [-w] OUTDIR" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-c CPUS] [-a CMDLINE] [-k BZIMAGE] [-t SECS] [-x HOOK] [-b BINARY] [-m MEMORY] [-d DISK] [-w] OUTDIR" >&2; exit 2; }
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -n "$kernel" ] || kernel=$("$repo/qemu-tests/build-kernel.sh" qemu)
tool=$repo/build/kmemflight
[ -x "$tool" ] || make -s -C "$repo" build/kmemflight

# The initramfs: busybox, kmemflight and the libraries it links.
root=$(mktemp -d)
waker=
wkdir=
trap 'rm -rf "$root" ${wkdir:+"$wkdir"}; [ -z "$waker" ] || kill "$waker" 2>/dev/null || true' EXIT
trap 'exit 1' HUP INT TERM
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/out" "$root/tmp" "$root/etc"
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
chmod 1777 "$root/tmp"
chmod 0755 "$root"
cp /bin/busybox "$root/bin/busybox"
[ -z "$hook" ] || install -m 0755 "$hook" "$root/bin/kmf-hook"
[ -z "$wake" ] || touch "$root/etc/kmf-sleeps"
# stripped, as a package installs it: its debug information would be
# tmpfs pages the boot keeps, and grow with every line of the tool
strip -o "$root/bin/kmemflight" "$tool"
for bin in $bins; do
	install -m 0755 "$bin" "$root/bin/$(basename "$bin")"
done
# shellcheck disable=SC2086 # $bins is a list
for lib in $(for b in "$tool" $bins; do ldd "$b"; done | grep -o '/[^ ]*' | sort -u); do
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
# the error a user meets first: not root, and tracefs not mounted
su -s /bin/sh -c "kmemflight save /tmp/x.kmt" nobody > /dev/null 2> /out/notmounted.err
echo $? > /out/notmounted.rc
# the samples' files (kmemtrace-stress, -bench) are in debugfs
mount -t debugfs debugfs /sys/kernel/debug
# (a guest that sleeps, boot.sh -w, keeps the hook's output in tmpfs
# until the hook ends: the hook lets /out go for the sleeps)
if [ -x /bin/kmf-hook ] && [ -e /etc/kmf-sleeps ]; then
	/bin/kmf-hook > /tmp/hook.out 2> /tmp/hook.err
	echo $? > /out/hook.rc
	cat /tmp/hook.out > /out/hook.out
	cat /tmp/hook.err > /out/hook.err
	rm -f /tmp/hook.out /tmp/hook.err
elif [ -x /bin/kmf-hook ]; then
	/bin/kmf-hook > /out/hook.out 2> /out/hook.err
	echo $? > /out/hook.rc
fi
# the recorder before the save, through a mount of our own: the save
# must mount /sys/kernel/tracing itself.  It stays mounted: unmounting
# the last tracefs mount oopses in tracefs_destroy_inode() on 6.12.117
# under lockdown=confidentiality.
mkdir -p /tmp/tfs && mount -t tracefs nodev /tmp/tfs &&
	cat /tmp/tfs/kmemtrace/stats > /out/stats.presave 2>/dev/null
# free memory around the save: MemFree, and the zones' free pages with
# those in the per-CPU lists, which MemFree does not count
echo 1 > /proc/sys/vm/stat_refresh
grep '^MemFree:' /proc/meminfo > /out/memfree.before
cat /proc/zoneinfo > /out/zoneinfo.before
kmemflight save /out/boot.kmt > /out/save.out 2> /out/save.err
echo $? > /out/save.rc
echo 1 > /proc/sys/vm/stat_refresh
grep '^MemFree:' /proc/meminfo > /out/memfree.after
cat /proc/zoneinfo > /out/zoneinfo.after
cat /proc/mounts > /out/mounts
su -s /bin/sh -c "kmemflight save /tmp/x.kmt" nobody > /dev/null 2> /out/notroot.err
echo $? > /out/notroot.rc
# saving again finds nothing: an error, and the first file stays whole
md5sum /out/boot.kmt > /out/save2.before 2>&1
kmemflight save /out/boot.kmt > /out/save2.out 2> /out/save2.err
echo $? > /out/save2.rc
md5sum /out/boot.kmt > /out/save2.after 2>&1
cat /sys/kernel/tracing/kmemtrace/stats > /out/stats 2>/dev/null
dmesg > /out/dmesg
sync
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.gz"

rm -f "$out/boot.kmt" "$out/save.rc"
drive=
[ -z "$disk" ] || drive="-drive file=$disk,format=raw,if=virtio,readonly=on"
# The waking port: a pipe chardev (QEMU opens $wk.in and $wk.out read-write,
# so neither end blocks), fed from here until QEMU is gone.
if [ -n "$wake" ]; then
	wkdir=$(mktemp -d)
	wk=$wkdir/wake
	mkfifo "$wk.in" "$wk.out"
	drive="$drive -serial mon:stdio -chardev pipe,id=kmfwake,path=$wk -device isa-serial,chardev=kmfwake,index=1"
	(exec > "$wk.in"; while sleep 2; do printf w || exit 0; done) < /dev/null > /dev/null 2>&1 &
	waker=$!
fi
# shellcheck disable=SC2086 # KMF_QEMU_ARGS and $drive are options
timeout "$timeout" qemu-system-x86_64 -accel tcg ${KMF_QEMU_ARGS:-} -m "$mem" -smp "$cpus" -nographic -no-reboot $drive \
	-kernel "$kernel" -initrd "$out/initramfs.gz" \
	-append "console=ttyS0 panic=-1 loglevel=5 $extra" \
	-virtfs "local,path=$out,mount_tag=kmfout,security_model=none,id=kmfout" \
	> "$out/console.log" 2>&1 || {
	echo "boot.sh: QEMU failed or timed out; see $out/console.log" >&2
	exit 1
}
rm -f "$out/initramfs.gz"
[ -f "$out/save.rc" ] || {
	echo "boot.sh: the guest never ran kmemflight save; see $out/console.log" >&2
	tail -20 "$out/console.log" >&2
	exit 1
}

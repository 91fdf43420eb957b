#!/bin/sh
# In the lockdown guest (qemu-tests/run.sh, through boot.sh -x): a kernel
# booted with lockdown=integrity, what Secure Boot gives on Debian,
# Fedora, RHEL and Ubuntu.  Save the boot there, then raise the lockdown
# to confidentiality, which closes tracefs, and try again: that save must
# fail with the reason and write nothing.  (The guest's own save after
# this hook then fails too, and leaves the first file as it is.)
set -u

sec=/sys/kernel/security
grep -q " $sec " /proc/mounts || mount -t securityfs securityfs "$sec"
cat "$sec/lockdown" > /out/lockdown-before
kmemflight save /out/boot.kmt > /out/ld-save.out 2> /out/ld-save.err
echo $? > /out/ld-save.rc
md5sum /out/boot.kmt > /out/ld-save.md5 2>&1
echo confidentiality > "$sec/lockdown"
cat "$sec/lockdown" > /out/lockdown-after
kmemflight save /tmp/y.kmt > /out/ld-conf.out 2> /out/ld-conf.err
echo $? > /out/ld-conf.rc
ls /tmp > /out/ld-conf.tmp

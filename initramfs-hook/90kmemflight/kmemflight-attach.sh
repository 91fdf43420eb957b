#!/bin/sh
# dracut cmdline hook of the kmemflight module, installed as
# /lib/dracut/hooks/cmdline/00-kmemflight-attach.sh.  dracut's init
# sources it (dracut-cmdline.service does in a systemd initramfs): it must
# not exit, and the names it leaves behind all start with kmf_.
#
# With kmemtrace.enable=1 on the kernel command line, and not disabled
# with rd.kmemflight=0, start "kmemflight attach --daemon": the daemon
# drains the recorder into /run/kmemflight until "kmemflight save FILE"
# in the real root.  Whatever fails, warn and let the boot go on.

# shellcheck source=/dev/null
type getargbool > /dev/null 2>&1 || . /lib/dracut-lib.sh

kmf_log=/run/initramfs/kmemflight-attach.log

# kmf_run CMD...: run CMD, for at most 30 s when timeout(1) is there
kmf_run() {
    if command -v timeout > /dev/null 2>&1; then
        timeout 30 "$@"
    else
        "$@"
    fi
}

kmf_attach() {
    getargbool 0 kmemtrace.enable || return 0
    if ! getargbool 1 rd.kmemflight; then
        info "kmemflight: rd.kmemflight=0: not attaching"
        return 0
    fi
    if ! ismounted /sys/kernel/tracing &&
        ! mount -t tracefs nodev /sys/kernel/tracing; then
        warn "kmemflight: cannot mount tracefs on /sys/kernel/tracing; not attaching, boot continues"
        return 0
    fi
    mkdir -p /run/initramfs
    # The daemon inherits these fds and lives on after switch_root: give
    # it neither the console nor init's stdout, which with rd.debug is the
    # loginit pipe, closed before switch_root.  Its output stays in
    # $kmf_log (in /run, so still readable from the real root).
    # /usr/bin/kmemflight, not kmemflight: the daemon turns argv[0][0]
    # into '@', and "@usr/bin/kmemflight" still names it in ps.
    # (debug_off: with rd.debug, set -x would trace into the log too)
    debug_off
    if kmf_run /usr/bin/kmemflight attach --daemon < /dev/null > "$kmf_log" 2>&1; then
        debug_on
        # the attach's own line, on the console
        while read -r kmf_line || [ -n "$kmf_line" ]; do
            echo "$kmf_line"
        done < "$kmf_log"
        info "kmemflight: attach started; 'kmemflight save FILE' in the real root"
    else
        kmf_rc=$?
        debug_on
        vwarn < "$kmf_log"
        [ "$kmf_rc" = 124 ] && warn "kmemflight: attach did not return within 30 s"
        warn "kmemflight: attach failed (exit $kmf_rc); boot continues without the spool (see $kmf_log)"
    fi
    return 0
}

kmf_attach
unset kmf_line kmf_rc

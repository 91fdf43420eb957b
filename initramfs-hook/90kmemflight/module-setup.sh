#!/bin/bash
# dracut module "kmemflight": start "kmemflight attach --daemon" from the
# first cmdline hook, so the kmemtrace recorder's per-CPU buffers are
# drained into /run/kmemflight for the whole boot, until "kmemflight save"
# in the real root.  See initramfs-hook/README.md.
#
# Not part of a default initramfs: ask for it with
#   dracut --add kmemflight ...        (or -a kmemflight)
# or add_dracutmodules+=" kmemflight " in /etc/dracut.conf.d/*.conf.
#
# KMEMFLIGHT_BIN=PATH installs that kmemflight binary; by default the one
# on dracut's PATH (/usr/sbin /usr/bin /sbin /bin), else
# /usr/local/bin/kmemflight, where "make install" puts it.

# The kmemflight binary to install, as a path on the build host.
kmemflight_bin() {
    if [[ ${KMEMFLIGHT_BIN-} == /* ]]; then
        printf '%s\n' "$KMEMFLIGHT_BIN"
    elif [[ -n ${KMEMFLIGHT_BIN-} ]]; then
        printf '%s\n' "$PWD/$KMEMFLIGHT_BIN"
    elif find_binary kmemflight 2> /dev/null; then
        :
    elif [[ -x ${dracutsysrootdir-}/usr/local/bin/kmemflight ]]; then
        printf '%s\n' /usr/local/bin/kmemflight
    else
        printf '%s\n' kmemflight
    fi
}

# called by dracut
check() {
    require_binaries "$(kmemflight_bin)" || return 1
    # only when asked for (--add kmemflight), never in a default image
    return 255
}

# called by dracut
depends() {
    # the hook uses dracut-lib (getargbool, ismounted, warn) from base
    echo base
    return 0
}

# called by dracut
install() {
    local _bin
    _bin=$(kmemflight_bin)
    [[ $_bin == /* ]] || _bin=$(find_binary "$_bin")
    inst_binary "$_bin" /usr/bin/kmemflight || {
        dfatal "kmemflight: cannot install $_bin"
        return 1
    }
    if dracut_module_included systemd; then
        # A systemd initramfs: the attach is a unit of its own, started
        # with the first units of sysinit.target; it lives on across
        # switch-root into the real root's unit of the same name (see
        # initramfs-hook/README.md).  Not the cmdline hook, which
        # dracut-cmdline.service runs much later.
        # shellcheck disable=SC2154 # dracut sets moddir, initdir, ...
        inst_simple "$moddir/kmemflight-attach.service" \
            "$systemdsystemunitdir/kmemflight-attach.service"
        # rd.kmemflight=0 keeps the initramfs from attaching, as with
        # the shell init
        inst_simple "$moddir/kmemflight-initrd.conf" \
            "$systemdsystemunitdir/kmemflight-attach.service.d/initrd.conf"
        # shellcheck disable=SC2154 # dracut sets SYSTEMCTL and initdir
        $SYSTEMCTL -q --root "$initdir" add-wants sysinit.target kmemflight-attach.service
        return 0
    fi
    inst_multiple mount
    # bounds how long the hook may wait for "attach" (optional)
    inst_multiple -o timeout
    # cmdline is the first hook dracut runs; 00 puts us ahead of every
    # other module's cmdline hook (01-parse-kernel.sh loads modules, ...)
    # shellcheck disable=SC2154 # dracut sets moddir
    inst_hook cmdline 00 "$moddir/kmemflight-attach.sh"
}

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# provider-open.sh CASE LAUNCH_CHECK PROGRAM LAUNCHER...
# A provider that cannot open, or cannot reach a peer, must end the job
# with a message naming the cause (not libfabric's bare error). Each case
# builds its fault in a private namespace, so the host is untouched:
#   shm-small      /dev/shm is a 1 MiB tmpfs (shm path)
#   shm-readonly   /dev/shm is not writable by the PEs' user (nobody)
#   tcp-lo-down    a network namespace whose loopback interface is down
#   sockets-lo-down  the same for the sockets provider
# LAUNCHER... is the launcher's command line before the program (oshrun
# -n 2, mpiexec.hydra -n 2). Skipped (77) where the namespace cannot be made
# (no unshare, not root).
set -u
case=$1 check=$2 prog=$3
shift 3
launcher=("$@")
[ "$(id -u)" = 0 ] || { echo "provider-open.sh: not root, cannot make namespaces; skipping"; exit 77; }
command -v unshare >/dev/null || { echo "provider-open.sh: no unshare; skipping"; exit 77; }
unshare -m true 2>/dev/null || { echo "provider-open.sh: unshare -m refused; skipping"; exit 77; }
common=(--skip-missing --unset WEFT_TOPOLOGY --env WEFT_ONNODE=0 --env WEFT_SPIN_YIELD=64 --status 1 --within 10)
case $case in
shm-small)
    exec unshare -m "$BASH" -c 'mount -t tmpfs -o size=1M tmpfs /dev/shm && exec "$@"' sh \
        "$check" "${common[@]}" --env FI_PROVIDER=shm \
        --expect-stderr "not enough space in /dev/shm: 1.0 MiB free" \
        --expect-stderr "region per online CPU" -- "${launcher[@]}" "$prog" pass ;;
shm-readonly)
    command -v setpriv >/dev/null || { echo "provider-open.sh: no setpriv; skipping"; exit 77; }
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$prog" ||
        { echo "provider-open.sh: user nobody cannot run $prog; skipping"; exit 77; }
    exec unshare -m "$BASH" -c 'mount -t tmpfs -o size=64M,mode=0755 tmpfs /dev/shm && cd / &&
        exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"' sh \
        "$check" "${common[@]}" --env FI_PROVIDER=shm \
        --expect-stderr "/dev/shm (mode 0755, owner uid 0) is not writable by this user (uid 65534)" \
        -- "${launcher[@]}" "$prog" pass ;;
tcp-lo-down|sockets-lo-down)
    prov=${case%%-*}
    var=FI_$(echo "$prov" | tr a-z A-Z)_IFACE
    unshare -n true 2>/dev/null || { echo "provider-open.sh: unshare -n refused; skipping"; exit 77; }
    exec unshare -n "$check" "${common[@]}" --env FI_PROVIDER="$prov" \
        --expect-stderr "interface 'lo' ($var) is down" -- "${launcher[@]}" "$prog" pass ;;
*)
    echo "provider-open.sh: unknown case $case"; exit 2 ;;
esac

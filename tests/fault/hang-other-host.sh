#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# hang-other-host.sh LAUNCH_CHECK PROGRAM LAUNCHER...
# The hang report's rule for a silent PE on another host, on one machine:
# each PE runs in a UTS namespace of its own with its own hostname, so weft
# takes every PE for a different host and cannot see the others' processes.
# PE 1 is stopped while the others wait: it must be named as not answering
# after one more timeout period, and the job must end within 5 s of the
# timeout plus that period. Skipped (77) where unshare -u is refused.
set -u
check=$1 prog=$2
shift 2
unshare -u true 2>/dev/null || { echo "hang-other-host.sh: unshare -u refused; skipping"; exit 77; }
# The rank comes from PMI_RANK (Hydra, oshrun) or PMIX_RANK (mpirun).
exec "$check" --skip-missing --unset WEFT_TOPOLOGY --env WEFT_SPIN_YIELD=64 \
    --env FI_PROVIDER=tcp --env WEFT_HANG_TIMEOUT=2 --mark scenario --signal-pe 1:STOP@+0.5 \
    --end-within 8.5 --status 1 --expect-stderr "PE 0: hang report: blocked for" \
    --expect-stderr "silent: PE 1 has not answered for 2 s (stopped, or running outside weft)" \
    -- "$@" unshare -u sh -c 'hostname "weft-host-${PMI_RANK:-$PMIX_RANK}" && exec "$0" wait' "$prog"

/* SPDX-License-Identifier: BSD-3-Clause */
/* quiet_mutual: PEs that quiet at the same moment, each waiting for a
 * reply only the other's progress can give, all finish, and each quiet
 * completes what it covers. Every round each PE puts the round number to
 * its right neighbour (a small put: coalesced over tcp;ofi_rxm, so quiet
 * waits for the target's acknowledgement), adds one to a counter there
 * (a software atomic under WEFT_AMO=software, whose quiet waits for the
 * target's reply) and quiets, with no barrier between: the neighbour is
 * quieting too, and over tcp;ofi_rxm (WEFT_REPLY_WAIT=sleep) sleeps in
 * fi_cntr_wait, where it must still serve the request. Then it raises a
 * flag there with an atomic set; the neighbour, seeing it, must see the
 * round's value and count. Every 16th round the left neighbour computes
 * for a while first, without calling weft: a quiet sleeping then waits
 * past one sleep's slice. Arguments: rounds (default 300). */
#include <time.h>

#include "weft_test.h"

long value, count, flag;

int main(int argc, char **argv)
{
    wt_init("quiet_mutual");
    int rounds = argc > 1 ? atoi(argv[1]) : 300;
    WT_CHECK(wt_npes >= 2, "needs 2 PEs or more, has %d", wt_npes);
    int right = (wt_me + 1) % wt_npes;
    shmem_barrier_all();
    for (int r = 1; r <= rounds; r++) {
        WT_PHASE("round %d", r);
        if (r % 16 == 0 && wt_me == 1)
            wt_compute_ms(60);  /* its left neighbour's quiet waits meanwhile */
        shmem_long_p(&value, r, right);
        shmem_long_atomic_add(&count, 1, right);
        shmem_quiet();
        shmem_long_atomic_set(&flag, r, right);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, r);
        WT_EQ_NUM(value, (long)r, "round %d: the value put before the left PE's quiet", r);
        WT_EQ_NUM(shmem_long_atomic_fetch(&count, wt_me), (long)r,
                  "round %d: the adds made before the left PE's quiets", r);
        shmem_barrier_all(); /* the checks end before the next round's puts */
    }
    wt_finish();
    return 0;
}

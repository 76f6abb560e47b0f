/* SPDX-License-Identifier: BSD-3-Clause */
/* finalize_applied: what peers put and added before shmem_finalize is in
 * a PE's memory when its own shmem_finalize returns.
 *
 * shmem_finalize completes every PE's outstanding operations and
 * synchronizes them all, so a PE may read its static variables after it
 * (the symmetric heap is gone by then). Right before finalizing, every PE
 * puts into its right neighbour's static array (blocking puts, one
 * non-blocking put left for finalize to complete) and adds to a counter
 * on PE 0, all small enough to be injected: over libfabric shm those wait
 * in the target's queue until its progress applies them, which it must
 * do before it closes the endpoint. argv[1]: puts per PE (default 64). */
#include <stdlib.h>

#include "weft_test.h"

#define MAX_PUTS 256

static long slots[MAX_PUTS];
static long last_nbi;
static long adds;

int main(int argc, char **argv)
{
    int nputs = argc > 1 ? atoi(argv[1]) : 64;
    if (nputs < 1 || nputs > MAX_PUTS)
        nputs = 64;
    wt_init("finalize_applied");
    int me = wt_me, n = wt_npes;
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < nputs; i++)
        slots[i] = -1;
    last_nbi = -1;
    shmem_barrier_all();
    for (int i = 0; i < nputs; i++)
        shmem_long_p(&slots[i], (long)me * 1000 + i, right);
    shmem_long_atomic_add(&adds, me + 1, 0);
    static long nbi_src;
    nbi_src = (long)me + 7;
    shmem_long_put_nbi(&last_nbi, &nbi_src, 1, right);
    WT_PHASE("shmem_finalize");
    shmem_finalize();

    /* After finalize: plain reads, and plain output (weft_test.h's helpers
     * may call into the library). */
    int bad = 0;
    for (int i = 0; i < nputs; i++)
        if (slots[i] != (long)left * 1000 + i) {
            printf("FAIL [finalize_applied] PE %d/%d slot %d is %ld, expected %ld\n", me, n, i,
                   slots[i], (long)left * 1000 + i);
            bad = 1;
            break;
        }
    if (last_nbi != (long)left + 7) {
        printf("FAIL [finalize_applied] PE %d/%d put_nbi left to finalize is %ld, expected %ld\n",
               me, n, last_nbi, (long)left + 7);
        bad = 1;
    }
    if (me == 0 && adds != (long)n * (n + 1) / 2) {
        printf("FAIL [finalize_applied] PE 0/%d counter is %ld, expected %ld\n", n, adds,
               (long)n * (n + 1) / 2);
        bad = 1;
    }
    if (!bad && me == 0)
        printf("PASS [finalize_applied] %d PE(s)\n", n);
    fflush(stdout);
    return bad;
}

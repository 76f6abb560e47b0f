/* SPDX-License-Identifier: BSD-3-Clause */
/* start_pes: the deprecated OpenSHMEM 1.0 start-up. start_pes(0)
 * initializes the library; _my_pe/_num_pes agree with shmem_my_pe/n_pes;
 * RMA works; the program returns from main without shmem_finalize (the
 * library must finalize at exit and the job must end with status 0). */
#include "weft_test.h"

long slot[2];

int main(void)
{
    wt_setup("start_pes");
    WT_PHASE("start_pes(0)");
    start_pes(0);
    wt_identify();
    WT_EQ_NUM(_my_pe(), wt_me, "_my_pe() vs shmem_my_pe()");
    WT_EQ_NUM(_num_pes(), wt_npes, "_num_pes() vs shmem_n_pes()");
    int right = (wt_me + 1) % wt_npes, left = (wt_me + wt_npes - 1) % wt_npes;

    WT_PHASE("RMA after start_pes");
    long v = 7000 + wt_me;
    shmem_long_put(&slot[1], &v, 1, right);
    shmem_barrier_all();
    WT_EQ_NUM(slot[1], 7000 + left, "value put by the left neighbour");
    long *h = shmalloc(4 * sizeof(long));
    WT_CHECK(h != NULL, "shmalloc after start_pes returned NULL");
    h[0] = 1;
    shfree(h);
    shmem_barrier_all();
    if (wt_me == 0)
        printf("PASS [start_pes] %d PE(s) (returning without shmem_finalize)\n", wt_npes);
    return 0;
}

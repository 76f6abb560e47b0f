/* SPDX-License-Identifier: BSD-3-Clause */
/* cma_gap: large gets over shm when one PE has no endpoint for reads by
 * CMA. The read endpoint's peers are at their PE numbers while every PE
 * has one; PE 1 here turns its reads off (WEFT_SHM_CMA_READ=0 set before
 * shmem_init, by the launcher's rank), which leaves a gap the others must
 * step over to keep reading PEs 2 and up from the right process. Every PE
 * gets a large block from every other and checks each byte's owner. */
#include "weft_test.h"

#define LEN (128 * 1024)

static unsigned char block[LEN];
static unsigned char got[LEN];

int main(void)
{
    const char *rank = getenv("PMI_RANK");
    if (rank && !strcmp(rank, "1"))
        setenv("WEFT_SHM_CMA_READ", "0", 1);
    wt_init("cma_gap");
    memset(block, 'a' + wt_me % 26, sizeof block);
    shmem_barrier_all();
    WT_PHASE("gets from every PE");
    for (int round = 0; round < 3; round++)
        for (int k = 1; k < wt_npes; k++) {
            int pe = (wt_me + k) % wt_npes;
            memset(got, 0, sizeof got);
            shmem_getmem(got, block, sizeof got, pe);
            for (size_t i = 0; i < sizeof got; i++)
                WT_CHECK(got[i] == 'a' + pe % 26, "round %d: byte %zu from PE %d is %#x", round, i,
                         pe, got[i]);
        }
    wt_finish();
    return 0;
}

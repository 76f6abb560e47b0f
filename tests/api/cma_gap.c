/* SPDX-License-Identifier: BSD-3-Clause */
/* cma_gap: large gets and puts over shm when one PE copies nothing by CMA
 * and publishes no process for others to copy from or to. PE 1 here turns
 * both copies off (WEFT_SHM_CMA_READ=0 and WEFT_SHM_CMA_WRITE=0 set before
 * shmem_init, by the launcher's rank): every other PE must read and write
 * it through its queue and still copy from and to PEs 2 and up. Every PE
 * gets a large block from every other and checks each byte's owner, then
 * puts its block into every other's slot and checks what it received. */
#include "weft_test.h"

#define LEN (128 * 1024)

static unsigned char block[LEN];
static unsigned char got[LEN];

int main(void)
{
    const char *rank = getenv("PMI_RANK");
    if (rank && !strcmp(rank, "1")) {
        setenv("WEFT_SHM_CMA_READ", "0", 1);
        setenv("WEFT_SHM_CMA_WRITE", "0", 1);
    }
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
    WT_PHASE("puts to every PE");
    unsigned char *slots = shmem_malloc((size_t)wt_npes * LEN);
    WT_CHECK(slots != NULL, "shmem_malloc of %d blocks", wt_npes);
    memset(slots, 0, (size_t)wt_npes * LEN);
    shmem_barrier_all();
    for (int k = 1; k < wt_npes; k++) {
        int pe = (wt_me + k) % wt_npes;
        shmem_putmem(slots + (size_t)wt_me * LEN, block, LEN, pe);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < wt_npes; pe++)
        for (size_t i = 0; pe != wt_me && i < LEN; i++)
            WT_CHECK(slots[(size_t)pe * LEN + i] == 'a' + pe % 26, "byte %zu put by PE %d is %#x",
                     i, pe, slots[(size_t)pe * LEN + i]);
    shmem_free(slots);
    wt_finish();
    return 0;
}

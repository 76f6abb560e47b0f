/* SPDX-License-Identifier: BSD-3-Clause */
/* nb_issue: the non-blocking collectives of one round where members are
 * reached through libfabric, issued whole at the start and completed by
 * the targets' progress, with no engine thread:
 *   - the caller not polling: PE 0 starts a large alltoall, then only
 *     computes and reads its own memory; every other PE completes the
 *     alltoall and tells PE 0 so, before PE 0 calls weft again
 *   - every kind outstanding at once (sync, broadcasts from each root,
 *     fcollect, alltoall, contiguous and strided alltoalls), three times
 *     the ring's depth, one PE starting some late, a blocking collective
 *     among them, completed in reverse order, half by test
 *   - no thread started by any of it */
#include "weft_test.h"

#include <shmemx.h>
#include <stdlib.h>

#define MANY 24     /* three uses of every ring entry, both parities */
#define BLOCK 16    /* longs per member in the outstanding ones */
#define BIG (1 << 17) /* longs per member in the large alltoall: 1 MiB */

static long *src, *dst;     /* symmetric */
static long *told;          /* symmetric: PEs whose large alltoall completed */

static void caller_not_polling(void)
{
    int n = wt_npes;
    WT_PHASE("PE 0 computes without calling weft; the others complete a 1 MiB alltoall");
    for (int p = 0; p < n; p++)
        for (size_t e = 0; e < BIG; e++)
            src[(size_t)p * BIG + e] = wt_me * 1000003L + (long)e;
    shmem_barrier_all();
    shmem_req_h r;
    WT_EQ_NUM(shmem_long_alltoall_nb(SHMEM_TEAM_WORLD, dst, src, BIG, &r), 0, "alltoall");
    wt_complete_while_pe0_computes(&r, told);
    for (int p = 0; p < n; p++)
        for (size_t e = 0; e < BIG; e += 4099)
            WT_EQ_NUM(dst[(size_t)p * BIG + e], p * 1000003L + (long)e, "from %d element %zu", p,
                      e);
    shmem_barrier_all();
}

/* What collective k of the outstanding ones is. */
enum kind { SYNC, BCAST, FCOLLECT, ALLTOALL, ALLTOALLS, STRIDED, KINDS };

static void start(int k, long *s, long *d, shmem_req_h *r)
{
    int n = wt_npes;
    switch (k % KINDS) {
    case SYNC:
        WT_EQ_NUM(shmemx_team_sync_nb(SHMEM_TEAM_WORLD, r), 0, "sync %d", k);
        break;
    case BCAST:
        WT_EQ_NUM(shmem_long_broadcast_nb(SHMEM_TEAM_WORLD, d, s, BLOCK, k % n, r), 0,
                  "broadcast %d", k);
        break;
    case FCOLLECT:
        WT_EQ_NUM(shmemx_long_fcollect_nb(SHMEM_TEAM_WORLD, d, s, BLOCK, r), 0, "fcollect %d", k);
        break;
    case ALLTOALL:
        WT_EQ_NUM(shmem_long_alltoall_nb(SHMEM_TEAM_WORLD, d, s, BLOCK, r), 0, "alltoall %d", k);
        break;
    case ALLTOALLS:
        WT_EQ_NUM(shmemx_long_alltoalls_nb(SHMEM_TEAM_WORLD, d, s, 1, 1, BLOCK, r), 0,
                  "alltoalls %d", k);
        break;
    case STRIDED: /* every other element of both */
        WT_EQ_NUM(shmemx_long_alltoalls_nb(SHMEM_TEAM_WORLD, d, s, 2, 2, BLOCK / 2, r), 0,
                  "strided alltoalls %d", k);
        break;
    }
}

static void check(int k, const long *d)
{
    int n = wt_npes;
    for (int p = 0; p < n; p++)
        for (int e = 0; e < BLOCK; e++) {
            long got = d[p * BLOCK + e];
            switch (k % KINDS) {
            case BCAST:
                if (p == 0)
                    WT_EQ_NUM(got, (k % n) * 1000L + k + e, "broadcast %d element %d", k, e);
                break;
            case FCOLLECT:
                WT_EQ_NUM(got, p * 1000L + k + e, "fcollect %d from %d element %d", k, p, e);
                break;
            case ALLTOALL:
            case ALLTOALLS:
                WT_EQ_NUM(got, p * 1000L + k + wt_me * BLOCK + e, "alltoall %d from %d element %d",
                          k, p, e);
                break;
            case STRIDED:
                WT_EQ_NUM(got, e % 2 ? -1 : p * 1000L + k + wt_me * BLOCK + e,
                          "strided alltoalls %d from %d element %d", k, p, e);
                break;
            }
        }
}

static void every_kind_outstanding(void)
{
    int n = wt_npes;
    WT_PHASE("%d outstanding of every kind, a blocking reduce among them", MANY);
    size_t per = (size_t)n * BLOCK;
    for (int k = 0; k < MANY; k++)
        for (size_t e = 0; e < per; e++) {
            src[(size_t)k * per + e] = wt_me * 1000L + k + (long)e;
            dst[(size_t)k * per + e] = -1;
        }
    shmem_barrier_all();
    shmem_req_h r[MANY];
    for (int k = 0; k < MANY; k++) {
        if (wt_me == n - 1 && k % 5 == 0)
            wt_compute_ms(2);
        start(k, src + (size_t)k * per, dst + (size_t)k * per, &r[k]);
        if (k == MANY / 2)
            wt_blocking_sum_check(SHMEM_TEAM_WORLD);
    }
    wt_req_complete_reverse(r, MANY);
    for (int k = 0; k < MANY; k++)
        check(k, dst + (size_t)k * per);
    shmem_barrier_all();
}

int main(void)
{
    wt_init("coll.nb_issue");
    int n = wt_npes;
    size_t longs = (size_t)n * (BIG > MANY * BLOCK ? BIG : MANY * BLOCK);
    src = shmem_malloc(sizeof(long) * longs);
    dst = shmem_malloc(sizeof(long) * longs);
    told = shmem_calloc(1, sizeof(long));
    WT_CHECK(src && dst && told, "shmem_malloc");
    int threads = wt_thread_count();
    caller_not_polling();
    every_kind_outstanding();
    WT_EQ_NUM(wt_thread_count(), threads, "threads after the collectives");
    shmem_free(told);
    shmem_free(dst);
    shmem_free(src);
    wt_finish();
    return 0;
}

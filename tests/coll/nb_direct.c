/* SPDX-License-Identifier: BSD-3-Clause */
/* nb_direct: the non-blocking collectives' direct path, where the last
 * member to start a collective moves all of it and no thread runs (every
 * case also holds on the engine, which the other variants run):
 *   - late arrival: each PE in turn starts last, after every other PE
 *     has started and seen its request incomplete; the others complete
 *     theirs with shmem_req_test alone, and on the direct path the last
 *     one's request is complete when its start call returns
 *   - more outstanding on one team than the path's ring holds, completed
 *     in reverse order, one PE starting late
 *   - blocking collectives on the team while some are outstanding
 *   - a team made, used, destroyed and made again (its scratch reused)
 *   - no thread started by any of it on the direct path */
#include "weft_test.h"

#include <shmemx.h>
#include <stdlib.h>

#define MANY 24 /* three times the direct path's ring */
#define BLOCK 64

static long *src, *dst;   /* symmetric, MANY * npes * BLOCK longs each */
static long *arrived;     /* symmetric: early PEs' starts, counted at the late one */
static int direct;        /* this job's collectives take the direct path */

static void fill(long *p, size_t count, long base)
{
    for (size_t i = 0; i < count; i++)
        p[i] = base + (long)i;
}

/* Each PE starts last once: the others start, see their request
 * incomplete (the late PE has not started), count themselves in at the
 * late PE, then complete with shmem_req_test only. */
static void late_arrival(void)
{
    int n = wt_npes;
    for (int late = 0; late < n; late++) {
        WT_PHASE("PE %d starts last: alltoall, then sum_reduce", late);
        fill(src, (size_t)n * BLOCK, wt_me * 100000L + late);
        shmem_barrier_all();
        shmem_req_h r[2];
        if (wt_me == late) {
            shmem_long_wait_until(arrived, SHMEM_CMP_GE, n - 1);
            WT_EQ_NUM(shmem_long_alltoall_nb(SHMEM_TEAM_WORLD, dst, src, BLOCK, &r[0]), 0,
                      "alltoall");
            WT_EQ_NUM(shmemx_long_sum_reduce_nb(SHMEM_TEAM_WORLD, dst + n * BLOCK, src, BLOCK,
                                                &r[1]),
                      0, "sum_reduce");
            if (direct) {
                WT_EQ_NUM(shmem_req_test(&r[0]), 0, "the last to start: alltoall done");
                WT_EQ_NUM(shmem_req_test(&r[1]), 0, "the last to start: reduce done");
            }
        } else {
            WT_EQ_NUM(shmem_long_alltoall_nb(SHMEM_TEAM_WORLD, dst, src, BLOCK, &r[0]), 0,
                      "alltoall");
            WT_EQ_NUM(shmemx_long_sum_reduce_nb(SHMEM_TEAM_WORLD, dst + n * BLOCK, src, BLOCK,
                                                &r[1]),
                      0, "sum_reduce");
            WT_CHECK(shmem_req_test(&r[0]) > 0, "alltoall done before PE %d started", late);
            shmem_long_atomic_inc(arrived, late);
        }
        for (int k = 0; k < 2 && r[k] != SHMEM_REQ_INVALID; k++) {
            int rc;
            while ((rc = shmem_req_test(&r[k])) > 0)
                wt_nap_ms(0);
            WT_EQ_NUM(rc, 0, "shmem_req_test");
        }
        for (int p = 0; p < n; p++)
            for (int e = 0; e < BLOCK; e++)
                WT_EQ_NUM(dst[p * BLOCK + e], p * 100000L + late + wt_me * BLOCK + e,
                          "alltoall from %d element %d", p, e);
        for (int e = 0; e < BLOCK; e++)
            WT_EQ_NUM(dst[n * BLOCK + e], 100000L * n * (n - 1) / 2 + (long)n * (late + e),
                      "sum element %d", e);
    }
    shmem_barrier_all();
}

/* MANY outstanding on one team (alternately alltoall and an in-place sum),
 * PE 0 starting each late, a blocking collective on the team in the
 * middle; completed in reverse order, half by test. */
static void many_outstanding(shmem_team_t team, const char *what)
{
    int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team);
    WT_PHASE("%d outstanding on %s, a blocking reduce among them", MANY, what);
    size_t per = (size_t)n * BLOCK;
    for (int k = 0; k < MANY; k++)
        fill(src + k * per, per, me * 1000L + k);
    shmem_barrier_all();
    shmem_req_h r[MANY];
    for (int k = 0; k < MANY; k++) {
        if (me == 0 && k % 5 == 0)
            wt_compute_ms(2);
        long *s = src + k * per, *d = dst + k * per;
        if (k & 1)
            WT_EQ_NUM(shmemx_long_sum_reduce_nb(team, s, s, BLOCK, &r[k]), 0, "sum %d", k);
        else
            WT_EQ_NUM(shmem_long_alltoall_nb(team, d, s, BLOCK, &r[k]), 0, "alltoall %d", k);
        if (k == MANY / 2)
            wt_blocking_sum_check(team);
    }
    wt_req_complete_reverse(r, MANY);
    for (int k = 0; k < MANY; k++) {
        if (k & 1) {
            for (int e = 0; e < BLOCK; e++)
                WT_EQ_NUM(src[k * per + e], 1000L * n * (n - 1) / 2 + (long)n * (k + e),
                          "sum %d, element %d", k, e);
            continue;
        }
        for (int p = 0; p < n; p++)
            for (int e = 0; e < BLOCK; e++)
                WT_EQ_NUM(dst[k * per + p * BLOCK + e], p * 1000L + k + me * BLOCK + e,
                          "alltoall %d, from %d, element %d", k, p, e);
    }
    shmem_barrier_all();
}

/* A team's scratch words only grow while it lives: a new team on the
 * same slot starts from zero. */
static void team_again(void)
{
    int n = wt_npes;
    for (int round = 0; round < 2; round++) {
        shmem_team_t odd;
        WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, n > 1 ? 1 : 0, 2, n > 1 ? n / 2 : 1,
                                           NULL, 0, &odd),
                  0, "split");
        if (odd != SHMEM_TEAM_INVALID) {
            many_outstanding(odd, round ? "the odd PEs' team, made again" : "the odd PEs' team");
            shmem_req_h r;
            WT_EQ_NUM(shmemx_team_sync_nb(odd, &r), 0, "sync");
            WT_EQ_NUM(shmem_req_wait(&r), 0, "sync wait");
            shmem_team_destroy(odd);
        } else {
            /* many_outstanding's barriers on world */
            shmem_barrier_all();
            shmem_barrier_all();
        }
    }
}

int main(void)
{
    wt_init("coll.nb_direct");
    int n = wt_npes;
    src = shmem_malloc(sizeof(long) * MANY * (size_t)n * BLOCK);
    dst = shmem_malloc(sizeof(long) * MANY * (size_t)n * BLOCK);
    arrived = shmem_calloc(1, sizeof(long));
    WT_CHECK(src && dst && arrived, "shmem_malloc");
    const char *path = getenv("WEFT_COLL_NB_PATH");
    direct = !(path && !strcmp(path, "engine"));
    for (int p = 0; p < n; p++)
        direct &= shmem_ptr(src, p) != NULL;
    int threads = wt_thread_count();
    late_arrival();
    many_outstanding(SHMEM_TEAM_WORLD, "world");
    team_again();
    if (direct)
        WT_EQ_NUM(wt_thread_count(), threads, "threads after the direct path's collectives");
    shmem_free(arrived);
    shmem_free(dst);
    shmem_free(src);
    wt_finish();
    return 0;
}

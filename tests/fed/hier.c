/* SPDX-License-Identifier: BSD-3-Clause */
/* hier (fed): the collectives over teams that span several (simulated)
 * nodes, where weft uses one leader per node (WEFT_COLL_HIER): barrier,
 * broadcast from every root (a leader or not, 8 B and 100 KB, and runs
 * of back-to-back calls from one root), sum and max
 * reductions (one element to several reduction chunks, dest == source,
 * runs of small ones back to back, a double sum alike on every PE),
 * fcollect and collect, over the world and over
 * a strided team and a team of reversed order. Run under WEFT_TOPOLOGY
 * layouts; the same checks hold with the hierarchy off. */
#include <shmemx.h>

#include "weft_test.h"

#define BIG (100 * 1000)
#define RED (70 * 1000)

static char *bbuf;
static long *rsrc, *rdst;

static void check_team(shmem_team_t t, const char *what)
{
    if (t == SHMEM_TEAM_INVALID)
        return;
    int n = shmem_team_n_pes(t), me = shmem_team_my_pe(t);
    WT_PHASE("%s: barrier", what);
    for (int i = 0; i < 3; i++)
        shmem_team_sync(t);
    for (int root = 0; root < n; root++) {
        for (int big = 0; big < 2; big++) {
            size_t len = big ? BIG : 8;
            WT_PHASE("%s: broadcast %zu B from %d", what, len, root);
            char *src = bbuf + BIG;
            for (size_t i = 0; i < len; i++)
                src[i] = (char)(i * 7 + (size_t)root);
            memset(bbuf, 0x55, len);
            shmem_broadcastmem(t, bbuf, src, len, root);
            for (size_t i = 0; i < len; i++)
                WT_CHECK(bbuf[i] == (char)(i * 7 + (size_t)root), "byte %zu: %d", i, bbuf[i]);
        }
    }
    /* Back to back, no other call between: runs of one root, then the
     * next, small sizes (which the leaders stream a call ahead) with a
     * large one now and then. */
    WT_PHASE("%s: broadcasts back to back", what);
    for (int rep = 0; rep < 96; rep++) {
        int root = (rep / 6) % n;
        size_t len = rep % 16 == 15 ? BIG : (size_t)(1 + (rep * 5) % 64);
        char *src = bbuf + BIG;
        for (size_t i = 0; i < len; i++)
            src[i] = (char)(i * 3 + (size_t)rep);
        shmem_broadcastmem(t, bbuf, src, len, root);
        for (size_t i = 0; i < len; i++)
            WT_CHECK(bbuf[i] == (char)(i * 3 + (size_t)rep), "call %d byte %zu: %d", rep, i,
                     bbuf[i]);
    }
    size_t counts[3] = {1, 1000, RED};
    for (int k = 0; k < 3; k++) {
        size_t m = counts[k];
        WT_PHASE("%s: sum of %zu", what, m);
        for (size_t i = 0; i < m; i++)
            rsrc[i] = (long)(me + 1) * (long)(i + 1);
        shmem_long_sum_reduce(t, rdst, rsrc, m);
        long tri = (long)n * (n + 1) / 2;
        for (size_t i = 0; i < m; i++)
            WT_CHECK(rdst[i] == tri * (long)(i + 1), "sum[%zu] = %ld", i, rdst[i]);
        WT_PHASE("%s: max of %zu in place", what, m);
        for (size_t i = 0; i < m; i++)
            rdst[i] = (long)((me * 31 + (int)i) % n);
        shmem_long_max_reduce(t, rdst, rdst, m);
        for (size_t i = 0; i < m; i++)
            WT_CHECK(rdst[i] == n - 1, "max[%zu] = %ld", i, rdst[i]);
    }
    /* Small reductions back to back, with barriers and larger
     * reductions between now and then (the reduction buffers alternate
     * by call across all of them), and a double sum every PE must hold
     * bitwise alike. */
    WT_PHASE("%s: small reductions back to back", what);
    double *dsum = (double *)(void *)(rdst + 16);
    for (int rep = 0; rep < 64; rep++) {
        size_t m = rep % 16 == 15 ? 1000 : (size_t)(1 + rep % 8);
        for (size_t i = 0; i < m; i++)
            rsrc[i] = (long)(me + 1) * (long)(i + 1) + rep;
        shmem_long_sum_reduce(t, rdst, rsrc, m);
        long tri = (long)n * (n + 1) / 2;
        for (size_t i = 0; i < m; i++)
            WT_CHECK(rdst[i] == tri * (long)(i + 1) + (long)n * rep, "call %d sum[%zu] = %ld",
                     rep, i, rdst[i]);
        if (rep % 5 == 0)
            shmem_team_sync(t);
        if (rep % 8 == 3) {
            double *d = (double *)(void *)rsrc;
            d[0] = 1.0 / (me + 3) + rep * 0.1;
            shmem_double_sum_reduce(t, dsum, d, 1);
            memcpy(&rsrc[8], dsum, sizeof(long)); /* the bits, compared as longs */
            shmem_long_max_reduce(t, &rdst[0], &rsrc[8], 1);
            long hi = rdst[0];
            shmem_long_min_reduce(t, &rdst[0], &rsrc[8], 1);
            WT_CHECK(rdst[0] == hi && hi == rsrc[8], "call %d: double sums differ between PEs",
                     rep);
        }
    }
    /* fcollect and collect write every member's dest: wait for the
     * checks of the others first. */
    for (int rep = 0; rep < 3; rep++) {
        shmem_team_sync(t);
        WT_PHASE("%s: fcollect %d", what, rep);
        long mine[3] = {me, rep, -me};
        shmem_long_fcollect(t, rdst, mine, 3);
        for (int p = 0; p < n; p++)
            WT_CHECK(rdst[3 * p] == p && rdst[3 * p + 1] == rep && rdst[3 * p + 2] == -p,
                     "fcollect block %d", p);
        shmem_team_sync(t);
        WT_PHASE("%s: collect %d", what, rep);
        long var[8];
        int cnt = (me + rep) % 3;
        for (int i = 0; i < cnt; i++)
            var[i] = me * 100 + i;
        shmem_long_collect(t, rdst, var, (size_t)cnt);
        size_t at = 0;
        for (int p = 0; p < n; p++)
            for (int i = 0; i < (p + rep) % 3; i++, at++)
                WT_CHECK(rdst[at] == p * 100 + i, "collect [%zu] = %ld", at, rdst[at]);
    }
}

int main(void)
{
    wt_init("fed.hier");
    bbuf = shmem_malloc(2 * BIG);
    rsrc = shmem_malloc(RED * sizeof(long));
    rdst = shmem_malloc(RED * sizeof(long));
    WT_CHECK(bbuf && rsrc && rdst, "shmem_malloc");
    check_team(SHMEM_TEAM_WORLD, "world");

    shmem_team_t odd = SHMEM_TEAM_INVALID, rev;
    if (wt_npes >= 2)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, wt_npes / 2, NULL, 0, &odd);
    check_team(odd, "odd PEs");
    shmemx_team_split_color(SHMEM_TEAM_WORLD, 0, -wt_me, NULL, 0, &rev);
    check_team(rev, "reversed");
    if (odd != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odd);
    shmem_team_destroy(rev);
    shmem_barrier_all();
    if (wt_me == 0)
        printf("fed.hier: %d PEs, %d node(s): collectives agree\n", wt_npes,
               shmemx_topology_count(SHMEMX_TEAM_TYPE_NODE));
    shmem_finalize();
    return 0;
}

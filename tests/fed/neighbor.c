/* SPDX-License-Identifier: BSD-3-Clause */
/* neighbor (fed): the neighbourhood collectives of a federation. Over the
 * node federation of the world (simulated nodes under WEFT_TOPOLOGY), and
 * over a split team where every PE is alone in its team; with the default
 * graph (every team adjacent to every
 * other) and a ring: neighbor_fcollect and neighbor_alltoall (typed and C11
 * generic forms) land the counterparts' blocks, blocks without a
 * counterpart stay untouched; the neighbourhood reductions (sum typed,
 * max generic and in place, xor of 1 and of many elements) give each PE
 * the reduction over its team and the neighbouring teams. */
#include <shmemx.h>

#include "weft_test.h"

#define NB 3 /* longs per block */
#define UNTOUCHED (-7)

static long *dst, *src, *rsrc, *rdst;
static unsigned *usrc, *udst;

static void check(shmemx_federation_t f, shmem_team_t parent, const char *what)
{
    int me = shmem_team_my_pe(parent), t = shmemx_federation_my_team(f);
    int deg = t >= 0 ? shmemx_federation_n_neighbors(f, t) : 0;
    for (int a2a = 0; a2a < 2; a2a++) {
        WT_PHASE("%s: %s", what, a2a ? "alltoall" : "fcollect");
        for (int i = 0; i < NB * (deg ? deg : 1); i++)
            dst[i] = UNTOUCHED;
        for (int k = 0; k < NB; k++)
            src[k] = me * 1000 + k;
        for (int j = 0; a2a && j < deg; j++)
            for (int k = 0; k < NB; k++)
                src[j * NB + k] = me * 1000 + shmemx_federation_neighbor(f, t, j) * 10 + k;
        shmem_barrier_all();
        if (a2a)
            shmemx_neighbor_alltoall(f, parent, dst, src, NB); /* C11 generic */
        else
            shmemx_long_neighbor_fcollect(f, parent, dst, src, NB);
        for (int j = 0; j < deg; j++) {
            int u = shmemx_federation_neighbor(f, t, j);
            int idx = shmemx_federation_team_pe(f, me);
            int q = idx < shmemx_federation_team_n_pes(f, u) ? shmemx_federation_pe(f, u, idx) : -1;
            for (int k = 0; k < NB; k++) {
                long want = q < 0 ? UNTOUCHED : a2a ? q * 1000 + t * 10 + k : q * 1000 + k;
                WT_CHECK(dst[j * NB + k] == want, "%s: block %d (team %d) [%d] = %ld, want %ld",
                         what, j, u, k, dst[j * NB + k], want);
            }
        }
        shmem_barrier_all();
    }
}

/* 1 if parent PE p is in team t or in one of t's neighbours. */
static int in_neighbourhood(shmemx_federation_t f, int t, int p)
{
    int u = shmemx_federation_team_of(f, p);
    if (u == t)
        return 1;
    for (int j = 0; j < shmemx_federation_n_neighbors(f, t); j++)
        if (shmemx_federation_neighbor(f, t, j) == u)
            return 1;
    return 0;
}

#define NRED 5000 /* more than one chunk of the leaders' gets over libfabric */

static void check_reduce(shmemx_federation_t f, shmem_team_t parent, const char *what)
{
    int me = shmem_team_my_pe(parent), n = shmem_team_n_pes(parent);
    int t = shmemx_federation_my_team(f);
    size_t counts[2] = {1, NRED};
    for (int c = 0; c < 2; c++) {
        size_t m = counts[c];
        WT_PHASE("%s: sum_neighbor_reduce of %zu", what, m);
        for (size_t k = 0; k < m; k++)
            rsrc[k] = me * 100 + (long)k, rdst[k] = UNTOUCHED;
        shmemx_long_sum_neighbor_reduce(f, parent, rdst, rsrc, m);
        for (size_t k = 0; k < m; k++) {
            long want = 0;
            for (int p = 0; p < n; p++)
                want += in_neighbourhood(f, t, p) ? p * 100 + (long)k : 0;
            WT_CHECK(rdst[k] == want, "%s: sum[%zu] = %ld, want %ld", what, k, rdst[k], want);
        }
        WT_PHASE("%s: max_neighbor_reduce of %zu in place", what, m);
        for (size_t k = 0; k < m; k++)
            rdst[k] = (me * 7 + (long)k) % (n + 3);
        shmemx_max_neighbor_reduce(f, parent, rdst, rdst, m); /* C11 generic */
        for (size_t k = 0; k < m; k++) {
            long want = -1;
            for (int p = 0; p < n; p++) {
                long v = (p * 7 + (long)k) % (n + 3);
                if (in_neighbourhood(f, t, p) && v > want)
                    want = v;
            }
            WT_CHECK(rdst[k] == want, "%s: max[%zu] = %ld, want %ld", what, k, rdst[k], want);
        }
        WT_PHASE("%s: xor_neighbor_reduce of %zu", what, m);
        for (size_t k = 0; k < m; k++)
            usrc[k] = 1u << ((unsigned)(me + (int)k) % 32);
        shmemx_uint_xor_neighbor_reduce(f, parent, udst, usrc, m);
        for (size_t k = 0; k < m; k++) {
            unsigned want = 0;
            for (int p = 0; p < n; p++)
                want ^= in_neighbourhood(f, t, p) ? 1u << ((unsigned)(p + (int)k) % 32) : 0;
            WT_CHECK(udst[k] == want, "%s: xor[%zu] = %#x, want %#x", what, k, udst[k], want);
        }
    }
}

/* Ring: t-1 and t+1 (mod n), ascending, without duplicates. */
static void set_ring(shmemx_federation_t f, shmem_team_t parent)
{
    int nt = shmemx_federation_n_teams(f);
    int *deg = calloc((size_t)nt, sizeof *deg), *nb = calloc((size_t)nt * 2 + 1, sizeof *nb);
    WT_CHECK(deg && nb, "calloc");
    int at = 0;
    for (int t = 0; t < nt; t++) {
        int a = (t + nt - 1) % nt, b = (t + 1) % nt;
        int lo = a < b ? a : b, hi = a < b ? b : a;
        if (lo != t)
            nb[at++] = lo, deg[t]++;
        if (hi != t && hi != lo)
            nb[at++] = hi, deg[t]++;
    }
    WT_CHECK(shmemx_federation_set_neighbors(f, parent, deg, nb) == 0, "set_neighbors");
    free(deg);
    free(nb);
}

int main(void)
{
    wt_init("fed.neighbor");
    int n = wt_npes, me = wt_me;
    dst = shmem_malloc((size_t)n * NB * sizeof(long));
    src = shmem_malloc((size_t)n * NB * sizeof(long));
    rsrc = shmem_malloc(NRED * sizeof(long));
    rdst = shmem_malloc(NRED * sizeof(long));
    usrc = shmem_malloc(NRED * sizeof(unsigned));
    udst = shmem_malloc(NRED * sizeof(unsigned));
    WT_CHECK(dst && src && rsrc && rdst && usrc && udst, "shmem_malloc");

    shmemx_federation_t f;
    WT_CHECK(shmemx_federation_create(SHMEM_TEAM_WORLD, SHMEMX_TEAM_TYPE_NODE, &f) == 0, "create");
    check(f, SHMEM_TEAM_WORLD, "nodes");
    check_reduce(f, SHMEM_TEAM_WORLD, "nodes");
    set_ring(f, SHMEM_TEAM_WORLD);
    check(f, SHMEM_TEAM_WORLD, "nodes, ring");
    check_reduce(f, SHMEM_TEAM_WORLD, "nodes, ring");
    shmemx_federation_destroy(f);

    /* Over a split team (the world reversed), a federation where every
     * PE is alone in its team. */
    shmem_team_t rev, alone;
    shmemx_team_split_color(SHMEM_TEAM_WORLD, 0, -me, NULL, 0, &rev);
    shmemx_team_split_color(rev, me, 0, NULL, 0, &alone);
    WT_CHECK(shmemx_team_get_federation(alone, &f) == 0, "get_federation (alone)");
    check(f, rev, "alone");
    check_reduce(f, rev, "alone");
    set_ring(f, rev);
    check(f, rev, "alone, ring");
    check_reduce(f, rev, "alone, ring");
    shmemx_federation_destroy(f);
    shmem_team_destroy(alone);
    shmem_team_destroy(rev);
    shmem_barrier_all();
    if (me == 0)
        printf("fed.neighbor: %d PEs, neighbourhood collectives agree\n", n);
    shmem_free(udst);
    shmem_free(usrc);
    shmem_free(rdst);
    shmem_free(rsrc);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}

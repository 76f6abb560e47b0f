/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_mix: a long job at scale mixing RMA, atomics and collectives, every
 * result checked. Each round, with a distance s and a root that change
 * from round to round:
 *   - put a block to PE me + s, barrier, check the block from me - s;
 *   - get the block of PE me + 2s (written last round or this one), check;
 *   - fetch-add 1 to a counter on PE me + s and compare-swap a word of
 *     PE me - s from r to r + 1 (each PE is the only one touching them this
 *     round: both must return r), then check both of its own after a
 *     barrier;
 *   - broadcast from the root, sum reduction, fcollect, alltoall and a
 *     reduction over the team of even PEs, each checked;
 * PE 0 prints the rounds, PEs and seconds. argv[1] = rounds (default 200). */
#include "weft_test.h"

#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define BLOCK 16 /* longs per put */

static long inbox[BLOCK], outbox[BLOCK], counter, swap_word;
static long bsrc[4], bdst[4], rsrc[2], rdst[2], esrc, edst;

static long value_of(int pe, int round, int i)
{
    return ((long)pe << 32) ^ ((long)round << 8) ^ (long)i ^ 0x5a5a5a5l;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    wt_init("soak_mix");
    int n = wt_npes, me = wt_me;
    long *fsrc = shmem_malloc(2 * sizeof(long));
    long *fdst = shmem_malloc((size_t)n * 2 * sizeof(long));
    long *asrc = shmem_malloc((size_t)n * sizeof(long));
    long *adst = shmem_malloc((size_t)n * sizeof(long));
    WT_CHECK(fsrc && fdst && asrc && adst, "allocation");
    shmem_team_t even = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even);
    double t0 = now();
    for (int r = 0; r < rounds; r++) {
        int s = 1 + r % (n > 1 ? n - 1 : 1), root = (r * 7) % n;
        int to = (me + s) % n, from = (me - s % n + n) % n;

        WT_PHASE("round %d: put to PE %d", r, to);
        for (int i = 0; i < BLOCK; i++)
            outbox[i] = value_of(me, r, i);
        shmem_long_put(inbox, outbox, BLOCK, to);
        shmem_barrier_all();
        for (int i = 0; i < BLOCK; i++)
            WT_CHECK(inbox[i] == value_of(from, r, i), "round %d: inbox[%d] from PE %d", r, i,
                     from);

        WT_PHASE("round %d: get", r);
        int far = (me + 2 * s) % n, writer = (far - s % n + n) % n;
        long got[BLOCK];
        shmem_long_get(got, inbox, BLOCK, far);
        for (int i = 0; i < BLOCK; i++)
            WT_CHECK(got[i] == value_of(writer, r, i), "round %d: PE %d's inbox[%d]", r, far,
                     i);

        WT_PHASE("round %d: atomics", r);
        long old = shmem_long_atomic_fetch_add(&counter, 1, to);
        WT_EQ_NUM(old, r, "round %d: counter of PE %d before my add", r, to);
        long prev = shmem_long_atomic_compare_swap(&swap_word, r, r + 1, from);
        WT_EQ_NUM(prev, r, "round %d: swap word of PE %d before my swap", r, from);
        shmem_barrier_all();
        WT_EQ_NUM(counter, r + 1, "round %d: my counter", r);
        WT_EQ_NUM(swap_word, r + 1, "round %d: my swap word", r);

        WT_PHASE("round %d: broadcast from %d", r, root);
        for (int i = 0; i < 4; i++)
            bsrc[i] = value_of(me, r, i);
        shmem_long_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, 4, root);
        for (int i = 0; i < 4; i++)
            WT_CHECK(bdst[i] == value_of(root, r, i), "round %d: broadcast word %d", r, i);

        WT_PHASE("round %d: reduction", r);
        rsrc[0] = me + r;
        rsrc[1] = -me;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, rdst, rsrc, 2);
        WT_EQ_NUM(rdst[0], (long)n * (n - 1) / 2 + (long)n * r, "round %d: sum", r);
        WT_EQ_NUM(rdst[1], -(long)n * (n - 1) / 2, "round %d: second sum", r);

        WT_PHASE("round %d: fcollect", r);
        fsrc[0] = value_of(me, r, 0);
        fsrc[1] = value_of(me, r, 1);
        shmem_long_fcollect(SHMEM_TEAM_WORLD, fdst, fsrc, 2);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < 2; i++)
                WT_CHECK(fdst[2 * p + i] == value_of(p, r, i), "round %d: fcollect PE %d", r, p);

        WT_PHASE("round %d: alltoall", r);
        for (int p = 0; p < n; p++)
            asrc[p] = value_of(me, r, p);
        shmem_long_alltoall(SHMEM_TEAM_WORLD, adst, asrc, 1);
        for (int p = 0; p < n; p++)
            WT_CHECK(adst[p] == value_of(p, r, me), "round %d: alltoall from PE %d", r, p);

        if (even != SHMEM_TEAM_INVALID) {
            WT_PHASE("round %d: reduction over the even PEs", r);
            int m = shmem_team_n_pes(even);
            esrc = me / 2 + r;
            shmem_long_sum_reduce(even, &edst, &esrc, 1);
            WT_EQ_NUM(edst, (long)m * (m - 1) / 2 + (long)m * r, "round %d: even sum", r);
        }
    }
    double secs = now() - t0;
    if (me == 0)
        printf("soak_mix: %d rounds at %d PEs in %.1f s\n", rounds, n, secs);
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    shmem_free(adst);
    shmem_free(asrc);
    shmem_free(fdst);
    shmem_free(fsrc);
    wt_finish();
    return 0;
}

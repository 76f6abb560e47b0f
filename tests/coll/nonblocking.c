/* SPDX-License-Identifier: BSD-3-Clause */
/* nonblocking: the non-blocking team collectives (shmem_*_nb of the
 * committee's draft, shmemx_*_nb) and their completion calls.
 *   - each collective alone, completed by shmem_req_wait or a
 *     shmem_req_test loop: sync, barrier_all, broadcast from every root,
 *     collect (a different length on every PE), fcollect, alltoall,
 *     alltoalls, and every typed reduction (generated from the type
 *     tables), through the C11 generic names where they exist
 *   - several outstanding on one team, completed in reverse order
 *   - blocking collectives on the same team while some are outstanding
 *   - one on a subteam beside one on the world team
 *   - progress while every PE computes without calling weft: the request
 *     is complete before any completion call is made
 *   - SHMEM_REQ_INVALID and SHMEM_TEAM_INVALID
 * With argument "nullreq", passes a NULL request (the job must end naming
 * the call and the argument). */
#include "weft_test.h"

#include <shmemx.h>

#define CAP 4096
static unsigned char *A, *B; /* symmetric scratch, CAP * npes bytes */

static void complete(shmem_req_h *r, int by_test)
{
    if (!by_test) {
        WT_EQ_NUM(shmem_req_wait(r), 0, "shmem_req_wait");
    } else {
        int rc;
        while ((rc = shmem_req_test(r)) > 0)
            ;
        WT_EQ_NUM(rc, 0, "shmem_req_test");
    }
    WT_CHECK(*r == SHMEM_REQ_INVALID, "request not reset after completion");
}

static void each_alone(void)
{
    int n = wt_npes;
    shmem_req_h r;
    WT_PHASE("team_sync_nb / sync_all_nb / barrier_all_nb");
    WT_EQ_NUM(shmemx_team_sync_nb(SHMEM_TEAM_WORLD, &r), 0, "team_sync_nb");
    complete(&r, 0);
    WT_EQ_NUM(shmemx_sync_all_nb(&r), 0, "sync_all_nb");
    complete(&r, 1);
    /* Zero from the start and written only by the peer's put: a reset
     * here would be ordered before that put (applied by the progress
     * thread over tcp) only through the other PEs' barrier, which
     * ThreadSanitizer cannot see. */
    static long flag;
    shmem_barrier_all();
    shmem_long_p(&flag, wt_me + 1, (wt_me + 1) % n);
    WT_EQ_NUM(shmemx_barrier_all_nb(&r), 0, "barrier_all_nb");
    complete(&r, 0);
    WT_EQ_NUM(flag, (wt_me + n - 1) % n + 1, "put before barrier_all_nb");

    for (int root = 0; root < n; root++) {
        WT_PHASE("broadcastmem_nb from %d", root);
        wt_fill_bytes(A, 1000, root, 0, 11);
        memset(B, 0xEE, 1008);
        shmem_barrier_all();
        WT_EQ_NUM(shmem_broadcastmem_nb(SHMEM_TEAM_WORLD, B, A, 1000, root, &r), 0, "bcast");
        complete(&r, root & 1);
        WT_CHECK_BYTES(B, 1000, root, 0, 11, "broadcastmem_nb dest");
        WT_CHECK_FILL(B + 1000, 8, 0xEE, "past the broadcast");
    }
    WT_PHASE("typed broadcast_nb (generic)");
    int *ia = (int *)A, *ib = (int *)B;
    for (int i = 0; i < 64; i++)
        ia[i] = i * 3 + 7;
    shmem_barrier_all();
    WT_EQ_NUM(shmem_broadcast_nb(SHMEM_TEAM_WORLD, ib, ia, 64, n - 1, &r), 0, "int bcast");
    complete(&r, 0);
    for (int i = 0; i < 64; i++)
        WT_EQ_NUM(ib[i], i * 3 + 7, "int broadcast element %d", i);

    WT_PHASE("collectmem_nb");
    size_t mine = (size_t)(wt_me % 3) * 5, total = 0;
    for (int p = 0; p < n; p++)
        total += (size_t)(p % 3) * 5;
    wt_fill_bytes(A, mine, wt_me, 0, 12);
    memset(B, 0xEE, total + 8);
    shmem_barrier_all();
    WT_EQ_NUM(shmemx_collectmem_nb(SHMEM_TEAM_WORLD, B, A, mine, &r), 0, "collect");
    complete(&r, 1);
    for (int p = 0, o = 0; p < n; o += (p % 3) * 5, p++)
        WT_CHECK_BYTES(B + o, (size_t)(p % 3) * 5, p, 0, 12, "collectmem_nb block");
    WT_CHECK_FILL(B + total, 8, 0xEE, "past the collect");

    WT_PHASE("fcollectmem_nb / fcollect_nb (generic)");
    wt_fill_bytes(A, 33, wt_me, 0, 13);
    shmem_barrier_all();
    WT_EQ_NUM(shmemx_fcollectmem_nb(SHMEM_TEAM_WORLD, B, A, 33, &r), 0, "fcollect");
    complete(&r, 0);
    for (int p = 0; p < n; p++)
        WT_CHECK_BYTES(B + (size_t)p * 33, 33, p, 0, 13, "fcollectmem_nb block");
    long *la = (long *)A, *lb = (long *)B;
    la[0] = wt_me * 10;
    shmem_barrier_all();
    WT_EQ_NUM(shmemx_fcollect_nb(SHMEM_TEAM_WORLD, lb, la, 1, &r), 0, "long fcollect");
    complete(&r, 0);
    for (int p = 0; p < n; p++)
        WT_EQ_NUM(lb[p], p * 10, "fcollect_nb element %d", p);

    WT_PHASE("alltoallmem_nb / alltoall_nb (generic)");
    for (int p = 0; p < n; p++)
        wt_fill_bytes(A + (size_t)p * 40, 40, wt_me, (size_t)p * 40, 14);
    shmem_barrier_all();
    WT_EQ_NUM(shmem_alltoallmem_nb(SHMEM_TEAM_WORLD, B, A, 40, &r), 0, "alltoall");
    complete(&r, 1);
    for (int p = 0; p < n; p++)
        WT_CHECK_BYTES(B + (size_t)p * 40, 40, p, (size_t)wt_me * 40, 14, "alltoall block");
    for (int p = 0; p < n; p++)
        la[p] = wt_me * 100 + p;
    shmem_barrier_all();
    WT_EQ_NUM(shmem_alltoall_nb(SHMEM_TEAM_WORLD, lb, la, 1, &r), 0, "long alltoall");
    complete(&r, 0);
    for (int p = 0; p < n; p++)
        WT_EQ_NUM(lb[p], p * 100 + wt_me, "alltoall_nb element %d", p);

    WT_PHASE("alltoalls_nb (generic), dst 2 sst 3");
    for (int i = 0; i < 3 * 2 * n; i++)
        la[i] = wt_me * 1000 + i;
    for (int i = 0; i < 2 * 2 * n; i++)
        lb[i] = -1;
    shmem_barrier_all();
    WT_EQ_NUM(shmemx_alltoalls_nb(SHMEM_TEAM_WORLD, lb, la, 2, 3, 2, &r), 0, "alltoalls");
    complete(&r, 0);
    for (int p = 0; p < n; p++)
        for (int e = 0; e < 2; e++) {
            WT_EQ_NUM(lb[(p * 2 + e) * 2], p * 1000 + (wt_me * 2 + e) * 3,
                      "alltoalls from %d element %d", p, e);
            WT_EQ_NUM(lb[(p * 2 + e) * 2 + 1], -1, "alltoalls gap");
        }
}

/* Every typed reduction: values small enough for every type, in dest ==
 * source and dest != source. Results compare as long double. */
#define RED_CHECK(N, T, OP, INIT, EXPECT)                                                \
    do {                                                                                 \
        T *s_ = (T *)(void *)A, *d_ = (T *)(void *)B;                                    \
        for (int i = 0; i < 4; i++)                                                      \
            s_[i] = (T)(INIT);                                                           \
        shmem_barrier_all();                                                             \
        shmem_req_h r_;                                                                  \
        WT_EQ_NUM(shmemx_##N##_##OP##_reduce_nb(SHMEM_TEAM_WORLD, d_, s_, 4, &r_), 0,     \
                  "shmemx_" #N "_" #OP "_reduce_nb");                                    \
        complete(&r_, 0);                                                                \
        for (int i = 0; i < 4; i++)                                                      \
            WT_CHECK((long double)d_[i] == (long double)(T)(EXPECT),                     \
                     "shmemx_" #N "_" #OP "_reduce_nb element %d", i);                  \
    } while (0)
static long sum_to(int n) { return (long)n * (n + 1) / 2; }
#define RED_BITWISE(N, T, D, G)                                                          \
    RED_CHECK(N, T, and, 0x3 | (1 << (wt_me % 5 + 2)), n == 1 ? 0x3 | 4 : 0x3);          \
    RED_CHECK(N, T, or, 1 << (wt_me % 7), or_all);                                       \
    RED_CHECK(N, T, xor, 1 << (wt_me % 7), xor_all);
#define RED_MINMAX(N, T, D, G)                                                           \
    RED_CHECK(N, T, max, wt_me + i, n - 1 + i);                                          \
    RED_CHECK(N, T, min, wt_me + i + 1, i + 1);
#define RED_ARITH(N, T, D, G)                                                            \
    RED_CHECK(N, T, sum, wt_me + 1, sum_to(n));                                          \
    RED_CHECK(N, T, prod, wt_me < 3 ? 2 : 1, 1 << (n < 3 ? n : 3));

static void reductions(void)
{
    int n = wt_npes;
    long or_all = 0, xor_all = 0;
    for (int p = 0; p < n; p++) {
        or_all |= 1L << (p % 7);
        xor_all ^= 1L << (p % 7);
    }
    WT_PHASE("every typed reduction");
    WEFT_REDUCE_BITWISE_TYPES(RED_BITWISE)
    WEFT_REDUCE_MINMAX_TYPES(RED_MINMAX)
    WEFT_REDUCE_ARITH_TYPES(RED_ARITH)
    WT_PHASE("generic sum_reduce_nb in place");
    int *v = (int *)(void *)A;
    v[0] = wt_me;
    shmem_barrier_all();
    shmem_req_h r;
    WT_EQ_NUM(shmemx_sum_reduce_nb(SHMEM_TEAM_WORLD, v, v, 1, &r), 0, "int sum in place");
    complete(&r, 1);
    WT_EQ_NUM(v[0], sum_to(n - 1), "in-place sum");
}

/* Several outstanding, one of each, plus blocking ones in between. */
static void outstanding(int mixed)
{
    int n = wt_npes;
    long *src = (long *)(void *)A, *dst = (long *)(void *)B;
    /* Regions: [0,n) alltoall, [n,2n) fcollect, 2n bcast, 2n+1 sum,
     * 2n+2 max, then a blocking reduce's 2n+3 in place. */
    for (int i = 0; i < n; i++)
        src[i] = wt_me * 10 + i;
    src[n] = wt_me;
    src[2 * n] = 4242 + wt_me;
    src[2 * n + 1] = wt_me + 1;
    src[2 * n + 2] = wt_me * 7;
    dst[2 * n + 3] = 1;
    shmem_barrier_all();
    WT_PHASE("six outstanding%s", mixed ? ", blocking ones in between" : "");
    shmem_req_h r[6];
    WT_EQ_NUM(shmem_alltoall_nb(SHMEM_TEAM_WORLD, dst, src, 1, &r[0]), 0, "a2a");
    WT_EQ_NUM(shmemx_fcollect_nb(SHMEM_TEAM_WORLD, dst + n, src + n, 1, &r[1]), 0, "fcoll");
    if (mixed) {
        WT_EQ_NUM(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst + 2 * n + 3, dst + 2 * n + 3, 1),
                  0, "blocking reduce");
        WT_EQ_NUM(dst[2 * n + 3], n, "blocking reduce between non-blocking ones");
    }
    WT_EQ_NUM(shmem_broadcast_nb(SHMEM_TEAM_WORLD, dst + 2 * n, src + 2 * n, 1, 0, &r[2]), 0,
              "bcast");
    WT_EQ_NUM(shmemx_sum_reduce_nb(SHMEM_TEAM_WORLD, dst + 2 * n + 1, src + 2 * n + 1, 1, &r[3]),
              0, "sum");
    if (mixed)
        shmem_team_sync(SHMEM_TEAM_WORLD);
    WT_EQ_NUM(shmemx_max_reduce_nb(SHMEM_TEAM_WORLD, dst + 2 * n + 2, src + 2 * n + 2, 1, &r[4]),
              0, "max");
    WT_EQ_NUM(shmemx_team_sync_nb(SHMEM_TEAM_WORLD, &r[5]), 0, "sync");
    for (int i = 5; i >= 0; i--)
        complete(&r[i], i & 1);
    for (int p = 0; p < n; p++) {
        WT_EQ_NUM(dst[p], p * 10 + wt_me, "alltoall from %d", p);
        WT_EQ_NUM(dst[n + p], p, "fcollect from %d", p);
    }
    WT_EQ_NUM(dst[2 * n], 4242, "broadcast");
    WT_EQ_NUM(dst[2 * n + 1], sum_to(n), "sum");
    WT_EQ_NUM(dst[2 * n + 2], (n - 1) * 7, "max");
    shmem_barrier_all();
}

/* A reduction on the even PEs' team beside a broadcast on world. */
static void subteam(void)
{
    int n = wt_npes;
    shmem_team_t even;
    WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even), 0,
              "split");
    long *src = (long *)(void *)A, *dst = (long *)(void *)B;
    src[0] = wt_me;
    src[1] = 77;
    dst[0] = dst[1] = -1;
    shmem_barrier_all();
    WT_PHASE("subteam reduction beside a world broadcast");
    shmem_req_h rw, rt = SHMEM_REQ_INVALID;
    if (even != SHMEM_TEAM_INVALID)
        WT_EQ_NUM(shmemx_sum_reduce_nb(even, dst, src, 1, &rt), 0, "even sum");
    WT_EQ_NUM(shmem_broadcast_nb(SHMEM_TEAM_WORLD, dst + 1, src + 1, 1, 0, &rw), 0, "bcast");
    if (even != SHMEM_TEAM_INVALID) {
        complete(&rt, 0);
        long want = 0;
        for (int p = 0; p < n; p += 2)
            want += p;
        WT_EQ_NUM(dst[0], want, "even team sum");
        shmem_team_destroy(even);
    }
    complete(&rw, 1);
    WT_EQ_NUM(dst[1], 77, "world broadcast");
    shmem_barrier_all();
}

/* The collective completes while every PE computes. */
static void progress_alone(void)
{
    int n = wt_npes;
    for (int p = 0; p < n; p++)
        wt_fill_bytes(A + (size_t)p * 256, 256, wt_me, (size_t)p * 256, 15);
    shmem_barrier_all();
    WT_PHASE("alltoall completes during computation");
    shmem_req_h r;
    WT_EQ_NUM(shmem_alltoallmem_nb(SHMEM_TEAM_WORLD, B, A, 256, &r), 0, "alltoall");
    int waited = 0;
    do {
        wt_compute_ms(20);
        waited += 20;
        /* shmem_req_test reads the request's state, nothing more. */
    } while (shmem_req_test(&r) > 0 && waited < 20000);
    WT_CHECK(r == SHMEM_REQ_INVALID, "alltoall not done after %d ms of computation", waited);
    for (int p = 0; p < n; p++)
        WT_CHECK_BYTES(B + (size_t)p * 256, 256, p, (size_t)wt_me * 256, 15, "alltoall block");
    shmem_barrier_all();
}

static void invalid(void)
{
    WT_PHASE("invalid requests and teams");
    shmem_req_h r = SHMEM_REQ_INVALID;
    WT_CHECK(shmem_req_test(&r) < 0, "test of SHMEM_REQ_INVALID");
    WT_CHECK(shmem_req_wait(&r) < 0, "wait of SHMEM_REQ_INVALID");
    r = (shmem_req_h)&r; /* must be overwritten */
    WT_CHECK(shmem_alltoallmem_nb(SHMEM_TEAM_INVALID, B, A, 8, &r) != 0, "invalid team");
    WT_CHECK(r == SHMEM_REQ_INVALID, "invalid team leaves SHMEM_REQ_INVALID");
}

int main(int argc, char **argv)
{
    wt_init("coll.nonblocking");
    A = shmem_malloc(CAP * (size_t)wt_npes);
    B = shmem_malloc(CAP * (size_t)wt_npes);
    WT_CHECK(A && B, "shmem_malloc");
    if (argc > 1 && !strcmp(argv[1], "nullreq")) {
        WT_PHASE("NULL request");
        shmem_alltoallmem_nb(SHMEM_TEAM_WORLD, B, A, 8, NULL);
        WT_FAIL("a NULL request was accepted");
    }
    each_alone();
    reductions();
    outstanding(0);
    outstanding(1);
    subteam();
    progress_alone();
    invalid();
    shmem_free(B);
    shmem_free(A);
    wt_finish();
    return 0;
}

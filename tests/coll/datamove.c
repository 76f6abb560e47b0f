/* SPDX-License-Identifier: BSD-3-Clause */
/* datamove: team broadcast, collect, fcollect, alltoall and alltoalls.
 *   - the typed routines of every standard RMA type (generated from
 *     WEFT_RMA_TYPES) on SHMEM_TEAM_WORLD, broadcast from every root
 *   - the *mem routines on world and on a reversed subteam without PE 0,
 *     from every root, with lengths 0, 1, 37 bytes and 1 MiB (broadcast),
 *     collect with a different length on every PE (some zero)
 *   - strided alltoalls with dst/sst > 1, guards between the elements
 *   - back-to-back broadcasts from changing roots into distinct buffers
 *     with no synchronization in between
 *   - the C11 generic names */
#include "weft_test.h"

#define MIB (1 << 20)
static unsigned char *A, *B, *C; /* symmetric scratch */
static size_t cap;

static int members(shmem_team_t t, int *w)
{
    int n = shmem_team_n_pes(t);
    for (int i = 0; i < n; i++)
        w[i] = shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD);
    return n;
}

static void test_bcast(shmem_team_t t, size_t len, int root, unsigned tag)
{
    int w[256], n = members(t, w);
    WT_PHASE("broadcastmem %zu bytes from %d over %d PEs", len, root, n);
    wt_fill_bytes(A, len, w[root], 0, tag);
    memset(B, 0xEE, len + 8);
    shmem_team_sync(t); /* every dest is ready */
    WT_EQ_NUM(shmem_broadcastmem(t, B, A, len, root), 0, "broadcastmem");
    WT_CHECK_BYTES(B, len, w[root], 0, tag, "broadcastmem dest");
    WT_CHECK_FILL(B + len, 8, 0xEE, "past the broadcast");
}

static void test_fcollect(shmem_team_t t, size_t len, unsigned tag)
{
    int w[256], n = members(t, w);
    WT_PHASE("fcollectmem %zu bytes over %d PEs", len, n);
    wt_fill_bytes(A, len, wt_me, 0, tag);
    memset(B, 0xEE, len * (size_t)n + 8);
    shmem_team_sync(t); /* every dest is ready */
    WT_EQ_NUM(shmem_fcollectmem(t, B, A, len), 0, "fcollectmem");
    for (int p = 0; p < n; p++)
        WT_CHECK_BYTES(B + (size_t)p * len, len, w[p], 0, tag, "fcollectmem block");
    WT_CHECK_FILL(B + (size_t)n * len, 8, 0xEE, "past the fcollect");
}

static size_t collect_len(int world_pe, size_t base) { return world_pe % 3 == 1 ? 0 : base + (size_t)world_pe; }

static void test_collect(shmem_team_t t, size_t base, unsigned tag)
{
    int w[256], n = members(t, w);
    WT_PHASE("collectmem base %zu over %d PEs", base, n);
    size_t mine = collect_len(wt_me, base), total = 0;
    wt_fill_bytes(A, mine, wt_me, 0, tag);
    for (int p = 0; p < n; p++)
        total += collect_len(w[p], base);
    memset(B, 0xEE, total + 8);
    shmem_team_sync(t); /* every dest is ready */
    WT_EQ_NUM(shmem_collectmem(t, B, A, mine), 0, "collectmem");
    size_t at = 0;
    for (int p = 0; p < n; p++) {
        size_t l = collect_len(w[p], base);
        WT_CHECK_BYTES(B + at, l, w[p], 0, tag, "collectmem block");
        at += l;
    }
    WT_CHECK_FILL(B + total, 8, 0xEE, "past the collect");
}

static void test_alltoall(shmem_team_t t, size_t len, unsigned tag)
{
    int w[256], n = members(t, w), me = shmem_team_my_pe(t);
    WT_PHASE("alltoallmem %zu bytes over %d PEs", len, n);
    for (int p = 0; p < n; p++) /* block p: from me, indexed by the receiver */
        wt_fill_bytes(A + (size_t)p * len, len, wt_me, (size_t)p * 1000, tag);
    memset(B, 0xEE, len * (size_t)n + 8);
    shmem_team_sync(t); /* every dest is ready */
    WT_EQ_NUM(shmem_alltoallmem(t, B, A, len), 0, "alltoallmem");
    for (int p = 0; p < n; p++)
        WT_CHECK_BYTES(B + (size_t)p * len, len, w[p], (size_t)me * 1000, tag, "alltoall block");
    WT_CHECK_FILL(B + (size_t)n * len, 8, 0xEE, "past the alltoall");
}

static void test_alltoalls(shmem_team_t t, size_t nel, ptrdiff_t dst, ptrdiff_t sst)
{
    int w[256], n = members(t, w), me = shmem_team_my_pe(t);
    WT_PHASE("alltoalls64 %zu elements dst %td sst %td over %d PEs", nel, dst, sst, n);
    long *s = (long *)A, *d = (long *)B;
    size_t dspan = (size_t)n * nel * (size_t)dst + 1;
    for (size_t i = 0; i < (size_t)n * nel * (size_t)sst; i++)
        s[i] = -1;
    for (int p = 0; p < n; p++)
        for (size_t e = 0; e < nel; e++)
            s[((size_t)p * nel + e) * (size_t)sst] = wt_me * 1000000L + p * 1000L + (long)e;
    for (size_t i = 0; i < dspan; i++)
        d[i] = -7;
    shmem_team_sync(t); /* every dest is ready */
    WT_EQ_NUM(shmem_long_alltoalls(t, d, s, dst, sst, nel), 0, "alltoalls");
    for (size_t i = 0; i < dspan; i++) {
        size_t blk = i / (size_t)dst;
        long want = -7;
        if (i % (size_t)dst == 0 && blk < (size_t)n * nel) {
            int p = (int)(blk / nel);
            want = w[p] * 1000000L + me * 1000L + (long)(blk % nel);
        }
        WT_EQ_NUM(d[i], want, "alltoalls dest[%zu]", i);
    }
}

/* Typed routines, every RMA type, on world: values that fit any type. */
#define TYPED(N, T, D, G)                                                                  \
    static void typed_##N(void)                                                            \
    {                                                                                      \
        int n = wt_npes, me = wt_me;                                                       \
        T *s = (T *)A, *d = (T *)B;                                                        \
        for (int root = 0; root < n; root++) {                                             \
            WT_PHASE("shmem_%s_broadcast root %d", #N, root);                              \
            for (int i = 0; i < 5; i++)                                                    \
                s[i] = (T)(me * 10 + i);                                                   \
            memset(d, 0, 6 * sizeof(T));                                                   \
            shmem_barrier_all();                                                           \
            WT_EQ_NUM(shmem_##N##_broadcast(SHMEM_TEAM_WORLD, d, s, 5, root), 0, "rc");    \
            for (int i = 0; i < 5; i++)                                                    \
                WT_EQ_NUM(d[i], (T)(root * 10 + i), "broadcast %s[%d]", #N, i);            \
            WT_EQ_NUM(d[5], (T)0, "past the broadcast");                                   \
            shmem_barrier_all();                                                           \
        }                                                                                  \
        WT_PHASE("shmem_%s_fcollect/collect/alltoall", #N);                                \
        for (int i = 0; i < 2; i++)                                                        \
            s[i] = (T)(me * 3 + i);                                                        \
        WT_EQ_NUM(shmem_##N##_fcollect(SHMEM_TEAM_WORLD, d, s, 2), 0, "fcollect rc");      \
        for (int i = 0; i < 2 * n; i++)                                                    \
            WT_EQ_NUM(d[i], (T)((i / 2) * 3 + i % 2), "fcollect %s[%d]", #N, i);           \
        shmem_barrier_all();                                                               \
        WT_EQ_NUM(shmem_##N##_collect(SHMEM_TEAM_WORLD, d, s, (size_t)(me % 2)), 0, "rc"); \
        for (int i = 0, at = 0; i < n; i++)                                                \
            if (i % 2)                                                                     \
                WT_EQ_NUM(d[at++], (T)(i * 3), "collect %s from %d", #N, i);               \
        shmem_barrier_all();                                                               \
        for (int p = 0; p < n; p++)                                                        \
            s[p] = (T)(me * 8 + p);                                                        \
        WT_EQ_NUM(shmem_##N##_alltoall(SHMEM_TEAM_WORLD, d, s, 1), 0, "alltoall rc");      \
        for (int p = 0; p < n; p++)                                                        \
            WT_EQ_NUM(d[p], (T)(p * 8 + me), "alltoall %s from %d", #N, p);                \
        shmem_barrier_all();                                                               \
        for (int p = 0; p < 2 * n; p++)                                                    \
            s[p] = (T)(me * 8 + p / 2);                                                    \
        WT_EQ_NUM(shmem_##N##_alltoalls(SHMEM_TEAM_WORLD, d, s, 1, 2, 1), 0, "rc");        \
        for (int p = 0; p < n; p++)                                                        \
            WT_EQ_NUM(d[p], (T)(p * 8 + me), "alltoalls %s from %d", #N, p);               \
        shmem_barrier_all();                                                               \
    }
WEFT_RMA_TYPES(TYPED)
#define CALL_TYPED(N, T, D, G) typed_##N();

static void run_mem(shmem_team_t t)
{
    int n = t == SHMEM_TEAM_INVALID ? 0 : shmem_team_n_pes(t);
    static const size_t lens[] = {0, 1, 37};
    for (int root = 0; root < wt_npes; root++)
        for (unsigned j = 0; j < 3; j++) {
            if (root < n)
                test_bcast(t, lens[j], root, 1 + j);
            shmem_barrier_all();
        }
    for (int root = 0; root < 2; root++) {
        if (n)
            test_bcast(t, MIB, root ? n - 1 : 0, 7);
        shmem_barrier_all();
    }
    for (unsigned j = 0; j < 3; j++) {
        if (n)
            test_fcollect(t, lens[j], 11 + j);
        shmem_barrier_all();
        if (n)
            test_collect(t, lens[j], 21 + j);
        shmem_barrier_all();
        if (n)
            test_alltoall(t, lens[j], 31 + j);
        shmem_barrier_all();
    }
    if (n)
        test_fcollect(t, MIB / 8, 41);
    shmem_barrier_all();
    if (n)
        test_alltoall(t, MIB / 8 / (size_t)wt_npes, 42);
    shmem_barrier_all();
    if (n)
        test_collect(t, 100000, 43);
    shmem_barrier_all();
    if (n)
        test_alltoalls(t, 3, 2, 3);
    shmem_barrier_all();
    if (n)
        test_alltoalls(t, 0, 1, 1);
    shmem_barrier_all();
}

int main(void)
{
    wt_init("datamove");
    int n = wt_npes;
    cap = (size_t)2 * MIB + 4096;
    A = shmem_malloc(cap);
    B = shmem_malloc(cap);
    C = shmem_malloc(64 * sizeof(long) * 8);
    WT_CHECK(A && B && C, "shmem_malloc");

    WEFT_RMA_TYPES(CALL_TYPED)
    run_mem(SHMEM_TEAM_WORLD);
    shmem_team_t sub = SHMEM_TEAM_INVALID;
    if (n > 1) {
        WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n - 1, NULL, 0, &sub),
                  0, "split");
        run_mem(sub);
    }

    WT_PHASE("back-to-back broadcasts");
    long *bufs = (long *)C;
    for (int k = 0; k < 8; k++) {
        bufs[64 + k] = wt_me * 100 + k; /* source slot k */
        bufs[k] = -1;
    }
    shmem_barrier_all();
    for (int k = 0; k < 8; k++)
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &bufs[k], &bufs[64 + k], 1, k % n);
    for (int k = 0; k < 8; k++)
        WT_EQ_NUM(bufs[k], (k % n) * 100 + k, "back-to-back broadcast %d", k);
    shmem_barrier_all();

    WT_PHASE("C11 generic names");
    int *is = (int *)A, *id = (int *)B;
    is[0] = wt_me;
    shmem_broadcast(SHMEM_TEAM_WORLD, id, is, 1, n - 1);
    WT_EQ_NUM(id[0], n - 1, "generic broadcast");
    shmem_barrier_all();
    shmem_fcollect(SHMEM_TEAM_WORLD, id, is, 1);
    for (int p = 0; p < n; p++)
        WT_EQ_NUM(id[p], p, "generic fcollect");
    shmem_barrier_all();
    shmem_collect(SHMEM_TEAM_WORLD, id, is, 1);
    for (int p = 0; p < n; p++)
        WT_EQ_NUM(id[p], p, "generic collect");
    shmem_barrier_all();
    for (int p = 0; p < n; p++)
        is[p] = wt_me * n + p;
    shmem_alltoall(SHMEM_TEAM_WORLD, id, is, 1);
    for (int p = 0; p < n; p++)
        WT_EQ_NUM(id[p], p * n + wt_me, "generic alltoall");
    shmem_barrier_all();
    shmem_alltoalls(SHMEM_TEAM_WORLD, id, is, 1, 1, 1);
    for (int p = 0; p < n; p++)
        WT_EQ_NUM(id[p], p * n + wt_me, "generic alltoalls");

    if (sub != SHMEM_TEAM_INVALID)
        shmem_team_destroy(sub);
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* active_set: the deprecated active-set collectives with pSync, on the
 * whole world (PE_start 0, stride 1) and on PE_start 1, logPE_stride 1
 * (the odd PEs), the PEs outside the set staying away:
 *   - shmem_barrier / shmem_sync called many times in a row with one pSync
 *   - shmem_broadcast32/64 from every root (the root's dest untouched)
 *   - shmem_collect32/64, shmem_fcollect32/64, shmem_alltoall(s)32/64
 *   - shmem_TYPE_OP_to_all for every type and op of the active-set table,
 *     nreduce 0, 1, 37 and 3000, in place too, pWrk of the minimum size
 * After every call pSync must be back at SHMEM_SYNC_VALUE on every PE. */
#include <complex.h>

#include "weft_test.h"

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pSync2[SHMEM_BARRIER_SYNC_SIZE];
static char pWrk[(3000 / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * 16];
static unsigned char *A, *B;
static int start, logstride, size, in_set, idx;

static void check_psync(const long *ps, const char *what)
{
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        if (ps[i] != SHMEM_SYNC_VALUE)
            WT_FAIL("%s: pSync[%d] = %ld after the call", what, i, ps[i]);
}

static int world_of(int i) { return start + (i << logstride); }

enum { AND, OR, XOR, MAX, MIN, SUM, PROD };
static const char *opname[] = {"and", "or", "xor", "max", "min", "sum", "prod"};

static long long ival(int op, int pe, size_t i)
{
    switch (op) {
    case AND: return ~(1LL << ((pe + i) % 8));
    case OR: return 1LL << ((pe + i) % 8);
    case XOR: return (long long)((pe * 37 + i * 11) & 0xFF);
    case MAX:
    case MIN: return (long long)((pe * 5 + i * 3) % 13) - 6;
    case SUM: return (long long)((pe * 3 + i) % 7);
    default: return (pe + i) % 4 == 0 ? 2 : 1;
    }
}
#define MK_REAL(N, T, D, G)                                                                \
    static T mk_##N(int op, int pe, size_t i) { return (T)ival(op, pe, i); }
#define MK_CPLX(N, T, D, G)                                                                \
    static T mk_##N(int op, int pe, size_t i)                                              \
    {                                                                                      \
        if (op == PROD)                                                                    \
            return (pe + i) % 4 == 0 ? (T)I : (T)1;                                        \
        return (T)ival(op, pe, i) + (T)((pe + i) % 3) * (T)I;                              \
    }
WEFT_TO_ALL_MINMAX_TYPES(MK_REAL)
WEFT_REDUCE_COMPLEX_TYPES(MK_CPLX)

#define RE(v) ((double)creall((long double _Complex)(v)))
#define IM(v) ((double)cimagl((long double _Complex)(v)))

#define DEF_TEST(N, T, G, FIRST, COMB, FN)                                                 \
    static void test_##G##_##N(int k, size_t cnt, int inplace)                             \
    {                                                                                      \
        int op = FIRST + k;                                                                \
        T *src = (T *)A, *dst = inplace ? src : (T *)B;                                    \
        WT_PHASE("%s_%s_to_all n=%zu%s", #N, opname[op], cnt, inplace ? " in place" : ""); \
        for (size_t i = 0; i < cnt; i++)                                                   \
            src[i] = mk_##N(op, wt_me, i);                                                 \
        void (*fn)(T *, const T *, int, int, int, int, T *, long *) = FN;                   \
        fn(dst, src, (int)cnt, start, logstride, size, (T *)pWrk, pSync);                  \
        for (size_t i = 0; i < cnt; i++) {                                                 \
            T want = mk_##N(op, world_of(0), i);                                           \
            for (int p = 1; p < size; p++) {                                               \
                T a = want, b = mk_##N(op, world_of(p), i);                                \
                want = (T)(COMB);                                                          \
            }                                                                              \
            if (!(dst[i] == want))                                                         \
                WT_FAIL("shmem_%s_%s_to_all over %d PEs, nreduce %zu: element %zu is "     \
                        "(%g,%g), expected (%g,%g)", #N, opname[op], size, cnt, i,         \
                        RE(dst[i]), IM(dst[i]), RE(want), IM(want));                       \
        }                                                                                  \
        check_psync(pSync, "to_all");                                                      \
    }
#define FN_BW(N) op == AND ? shmem_##N##_and_to_all : op == OR ? shmem_##N##_or_to_all      \
                                                               : shmem_##N##_xor_to_all
#define FN_MM(N) op == MAX ? shmem_##N##_max_to_all : shmem_##N##_min_to_all
#define FN_AR(N) op == SUM ? shmem_##N##_sum_to_all : shmem_##N##_prod_to_all
#define COMB_BW op == AND ? (a & b) : op == OR ? (a | b) : (a ^ b)
#define COMB_MM op == MAX ? (a > b ? a : b) : (a < b ? a : b)
#define COMB_AR op == SUM ? a + b : a * b
#define DEF_BW(N, T, D, G) DEF_TEST(N, T, bw, AND, COMB_BW, FN_BW(N))
#define DEF_MM(N, T, D, G) DEF_TEST(N, T, mm, MAX, COMB_MM, FN_MM(N))
#define DEF_AR(N, T, D, G) DEF_TEST(N, T, ar, SUM, COMB_AR, FN_AR(N))
WEFT_TO_ALL_BITWISE_TYPES(DEF_BW)
WEFT_TO_ALL_MINMAX_TYPES(DEF_MM)
WEFT_TO_ALL_ARITH_TYPES(DEF_AR)

typedef void (*test_fn)(int, size_t, int);
struct tcase {
    test_fn fn;
    int nops;
};
#define ROW_BW(N, T, D, G) {test_bw_##N, 3},
#define ROW_MM(N, T, D, G) {test_mm_##N, 2},
#define ROW_AR(N, T, D, G) {test_ar_##N, 2},
static const struct tcase cases[] = {WEFT_TO_ALL_BITWISE_TYPES(ROW_BW)
                                         WEFT_TO_ALL_MINMAX_TYPES(ROW_MM)
                                             WEFT_TO_ALL_ARITH_TYPES(ROW_AR)};

/* Everyone calls this; PEs outside the set only take part in barrier_all. */
static void run_set(int s, int ls, int sz)
{
    start = s;
    logstride = ls;
    size = sz;
    idx = -1;
    for (int i = 0; i < sz; i++)
        if (world_of(i) == wt_me)
            idx = i;
    in_set = idx >= 0;

    WT_PHASE("barrier/sync x50 on one pSync (set %d/%d/%d)", s, ls, sz);
    if (in_set) {
        for (int k = 0; k < 50; k++) {
            if (k % 2)
                shmem_sync(start, logstride, size, pSync2);
            else
                shmem_barrier(start, logstride, size, pSync2);
        }
        /* A barrier's signals for the next call may arrive early; after the
         * last one completes everywhere pSync must be clean. */
        shmem_barrier(start, logstride, size, pSync);
        check_psync(pSync2, "barrier/sync");
        check_psync(pSync, "barrier");
    }
    shmem_barrier_all();

    for (int root = 0; root < size; root++) {
        WT_PHASE("broadcast32/64 root %d", root);
        if (in_set) {
            uint64_t *s64 = (uint64_t *)A, *d64 = (uint64_t *)B;
            for (int i = 0; i < 9; i++) {
                s64[i] = (uint64_t)wt_me << 40 | (uint64_t)i;
                d64[i] = 77;
            }
        }
        shmem_barrier_all();
        if (in_set) {
            uint64_t *d64 = (uint64_t *)B;
            shmem_broadcast64(B, A, 8, root, start, logstride, size, pSync);
            for (int i = 0; i < 8; i++)
                WT_EQ_NUM(d64[i], idx == root ? 77 : ((uint64_t)world_of(root) << 40 | (uint64_t)i),
                          "broadcast64[%d]", i);
            WT_EQ_NUM(d64[8], 77, "past broadcast64");
            check_psync(pSync, "broadcast64");
        }
        shmem_barrier_all();
        if (in_set) {
            uint32_t *s32 = (uint32_t *)A, *d32 = (uint32_t *)B;
            for (int i = 0; i < 4; i++) {
                s32[i] = (uint32_t)(wt_me * 1000 + i);
                d32[i] = 5;
            }
        }
        shmem_barrier_all();
        if (in_set) {
            uint32_t *d32 = (uint32_t *)B;
            shmem_broadcast32(B, A, 3, root, start, logstride, size, pSync);
            for (int i = 0; i < 3; i++)
                WT_EQ_NUM(d32[i], idx == root ? 5u : (uint32_t)(world_of(root) * 1000 + i),
                          "broadcast32[%d]", i);
            WT_EQ_NUM(d32[3], 5u, "past broadcast32");
            check_psync(pSync, "broadcast32");
        }
        shmem_barrier_all();
    }

    WT_PHASE("fcollect/collect/alltoall(s) 32/64");
    if (in_set) {
        int64_t *s64 = (int64_t *)A, *d64 = (int64_t *)B;
        int32_t *s32 = (int32_t *)A, *d32 = (int32_t *)B;
        s64[0] = wt_me;
        s64[1] = -wt_me;
        shmem_fcollect64(d64, s64, 2, start, logstride, size, pSync);
        for (int p = 0; p < size; p++) {
            WT_EQ_NUM(d64[2 * p], world_of(p), "fcollect64");
            WT_EQ_NUM(d64[2 * p + 1], -world_of(p), "fcollect64");
        }
        check_psync(pSync, "fcollect64");
        shmem_barrier(start, logstride, size, pSync2);
        s32[0] = wt_me;
        shmem_fcollect32(d32, s32, 1, start, logstride, size, pSync);
        for (int p = 0; p < size; p++)
            WT_EQ_NUM(d32[p], world_of(p), "fcollect32");
        check_psync(pSync, "fcollect32");
        shmem_barrier(start, logstride, size, pSync2);
        /* collect: PE index i contributes i % 3 elements */
        for (int e = 0; e < 3; e++)
            s64[e] = wt_me * 10 + e;
        shmem_collect64(d64, s64, (size_t)(idx % 3), start, logstride, size, pSync);
        for (int p = 0, at = 0; p < size; p++)
            for (int e = 0; e < p % 3; e++)
                WT_EQ_NUM(d64[at++], world_of(p) * 10 + e, "collect64");
        check_psync(pSync, "collect64");
        shmem_barrier(start, logstride, size, pSync2);
        for (int e = 0; e < 3; e++)
            s32[e] = wt_me * 10 + e;
        shmem_collect32(d32, s32, (size_t)(idx % 3), start, logstride, size, pSync);
        for (int p = 0, at = 0; p < size; p++)
            for (int e = 0; e < p % 3; e++)
                WT_EQ_NUM(d32[at++], world_of(p) * 10 + e, "collect32");
        check_psync(pSync, "collect32");
        shmem_barrier(start, logstride, size, pSync2);
        for (int p = 0; p < size; p++)
            s64[p] = wt_me * 100 + p;
        shmem_alltoall64(d64, s64, 1, start, logstride, size, pSync);
        for (int p = 0; p < size; p++)
            WT_EQ_NUM(d64[p], world_of(p) * 100 + idx, "alltoall64");
        check_psync(pSync, "alltoall64");
        shmem_barrier(start, logstride, size, pSync2);
        for (int p = 0; p < size; p++)
            s32[p] = wt_me * 100 + p;
        shmem_alltoall32(d32, s32, 1, start, logstride, size, pSync);
        for (int p = 0; p < size; p++)
            WT_EQ_NUM(d32[p], world_of(p) * 100 + idx, "alltoall32");
        check_psync(pSync, "alltoall32");
        shmem_barrier(start, logstride, size, pSync2);
        for (int p = 0; p < size; p++)
            s64[3 * p] = wt_me * 100 + p;
        shmem_alltoalls64(d64, s64, 2, 3, 1, start, logstride, size, pSync);
        for (int p = 0; p < size; p++)
            WT_EQ_NUM(d64[2 * p], world_of(p) * 100 + idx, "alltoalls64");
        check_psync(pSync, "alltoalls64");
        shmem_barrier(start, logstride, size, pSync2);
        for (int p = 0; p < size; p++)
            s32[2 * p] = wt_me * 100 + p;
        shmem_alltoalls32(d32, s32, 1, 2, 1, start, logstride, size, pSync);
        for (int p = 0; p < size; p++)
            WT_EQ_NUM(d32[p], world_of(p) * 100 + idx, "alltoalls32");
        check_psync(pSync, "alltoalls32");
    }
    shmem_barrier_all();

    static const size_t counts[] = {0, 1, 37, 3000};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int k = 0; k < cases[c].nops; k++)
            for (unsigned j = 0; j < 4; j++)
                for (int inplace = 0; inplace < (counts[j] == 37 ? 2 : 1); inplace++) {
                    if (in_set)
                        cases[c].fn(k, counts[j], inplace);
                    shmem_barrier_all();
                }
}

int main(void)
{
    wt_init("active_set");
    A = shmem_malloc(3001 * 16);
    B = shmem_malloc(3001 * 16);
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        pSync[i] = pSync2[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    run_set(0, 0, wt_npes);
    if (wt_npes > 1)
        run_set(1, 1, wt_npes / 2);
    wt_finish();
    return 0;
}

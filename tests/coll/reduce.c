/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce: every team reduction of OpenSHMEM 1.5, generated from the
 * WEFT_REDUCE_*_TYPES tables (AND/OR/XOR, MAX/MIN, SUM/PROD incl. complex),
 * on SHMEM_TEAM_WORLD (nreduce 0, 1, 37 and a multi-chunk length, in place
 * and out of place) and on a reversed subteam without PE 0 (odd sizes, other
 * ranks fold in; nreduce 1 and 37), checked exactly against the expected fold; then
 * a 1 MiB sum, back-to-back reductions without synchronization, and the
 * C11 generic names. Signed values include negatives, unsigned ones wrap. */
#include <complex.h>

#include "weft_test.h"

enum { AND, OR, XOR, MAX, MIN, SUM, PROD };
static const char *opname[] = {"and", "or", "xor", "max", "min", "sum", "prod"};
#define BIG 3000 /* elements: several scratch chunks for every type */

static void *sym_a, *sym_b;

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

/* Members of the team as world PEs. */
static int members(shmem_team_t t, int *w)
{
    int n = shmem_team_n_pes(t);
    for (int i = 0; i < n; i++)
        w[i] = shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD);
    return n;
}

#define MK_REAL(N, T)                                                                      \
    static T mk_##N(int op, int pe, size_t i) { return (T)ival(op, pe, i); }
#define MK_CPLX(N, T)                                                                      \
    static T mk_##N(int op, int pe, size_t i)                                              \
    {                                                                                      \
        if (op == PROD)                                                                    \
            return (pe + i) % 4 == 0 ? (T)I : (T)1;                                        \
        return (T)ival(op, pe, i) + (T)((pe + i) % 3) * (T)I;                              \
    }

#define RE(v) ((double)creall((long double _Complex)(v)))
#define IM(v) ((double)cimagl((long double _Complex)(v)))

/* One test function per (type, group of ops): k selects the op. */
#define DEF_TEST(N, T, G, FIRST, COMB, FN)                                                 \
    static void test_##G##_##N(shmem_team_t t, int k, size_t cnt, int inplace)             \
    {                                                                                      \
        int op = FIRST + k, w[256];                                                        \
        int n = members(t, w);                                                             \
        T *src = (T *)sym_a, *dst = inplace ? src : (T *)sym_b;                            \
        WT_PHASE("%s_reduce %s n=%zu%s on %d PEs", opname[op], #N, cnt,                    \
                 inplace ? " in place" : "", n);                                           \
        for (size_t i = 0; i < cnt; i++)                                                   \
            src[i] = mk_##N(op, wt_me, i);                                                 \
        memset(&src[cnt], 0x5a, sizeof(T));                                                \
        if (!inplace)                                                                      \
            memset(dst, 0x5a, (cnt + 1) * sizeof(T));                                      \
        int (*fn)(shmem_team_t, T *, const T *, size_t) = FN;                              \
        WT_EQ_NUM(fn(t, dst, src, cnt), 0, "return value");                                \
        for (size_t i = 0; i < cnt; i++) {                                                 \
            T want = mk_##N(op, w[0], i);                                                  \
            for (int p = 1; p < n; p++) {                                                  \
                T a = want, b = mk_##N(op, w[p], i);                                       \
                want = (T)(COMB);                                                          \
            }                                                                              \
            if (!(dst[i] == want))                                                         \
                WT_FAIL("shmem_%s_%s_reduce over %d PEs, nreduce %zu%s: element %zu is "   \
                        "(%g,%g), expected (%g,%g)", #N, opname[op], n, cnt,               \
                        inplace ? " in place" : "", i, RE(dst[i]), IM(dst[i]), RE(want),   \
                        IM(want));                                                         \
        }                                                                                  \
        unsigned char guard[sizeof(T)];                                                    \
        memset(guard, 0x5a, sizeof guard);                                                 \
        WT_CHECK(memcmp(&dst[cnt], guard, sizeof(T)) == 0, "element past nreduce written"); \
    }

#define FN_BW(N) op == AND ? shmem_##N##_and_reduce : op == OR ? shmem_##N##_or_reduce      \
                                                               : shmem_##N##_xor_reduce
#define FN_MM(N) op == MAX ? shmem_##N##_max_reduce : shmem_##N##_min_reduce
#define FN_AR(N) op == SUM ? shmem_##N##_sum_reduce : shmem_##N##_prod_reduce
#define COMB_BW op == AND ? (a & b) : op == OR ? (a | b) : (a ^ b)
#define COMB_MM op == MAX ? (a > b ? a : b) : (a < b ? a : b)
#define COMB_AR op == SUM ? a + b : a * b

#define DEF_MK_REAL(N, T, D, G) MK_REAL(N, T)
#define DEF_MK_CPLX(N, T, D, G) MK_CPLX(N, T)
WEFT_REDUCE_MINMAX_TYPES(DEF_MK_REAL) /* every real type of the tables */
WEFT_REDUCE_COMPLEX_TYPES(DEF_MK_CPLX)

#define DEF_BW(N, T, D, G) DEF_TEST(N, T, bw, AND, COMB_BW, FN_BW(N))
#define DEF_MM(N, T, D, G) DEF_TEST(N, T, mm, MAX, COMB_MM, FN_MM(N))
#define DEF_AR(N, T, D, G) DEF_TEST(N, T, ar, SUM, COMB_AR, FN_AR(N))
WEFT_REDUCE_BITWISE_TYPES(DEF_BW)
WEFT_REDUCE_MINMAX_TYPES(DEF_MM)
WEFT_REDUCE_ARITH_TYPES(DEF_AR)

typedef void (*test_fn)(shmem_team_t, int, size_t, int);
struct tcase {
    test_fn fn;
    int nops;
};
#define ROW_BW(N, T, D, G) {test_bw_##N, 3},
#define ROW_MM(N, T, D, G) {test_mm_##N, 2},
#define ROW_AR(N, T, D, G) {test_ar_##N, 2},
static const struct tcase cases[] = {WEFT_REDUCE_BITWISE_TYPES(ROW_BW)
                                         WEFT_REDUCE_MINMAX_TYPES(ROW_MM)
                                             WEFT_REDUCE_ARITH_TYPES(ROW_AR)};

/* full: every length on world; a subteam gets 1 and 37 elements. */
static void run_all(shmem_team_t t, int full)
{
    static const size_t counts[] = {1, 37, 0, BIG};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int k = 0; k < cases[c].nops; k++)
            for (unsigned j = 0; j < (full ? 4u : 2u); j++)
                for (int inplace = 0; inplace < (counts[j] >= 37 ? 2 : 1); inplace++) {
                    if (t != SHMEM_TEAM_INVALID)
                        cases[c].fn(t, k, counts[j], inplace);
                    /* dest must be ready before anyone starts the next one */
                    shmem_barrier_all();
                }
}

int main(void)
{
    wt_init("reduce");
    int n = wt_npes, me = wt_me;
    sym_a = shmem_malloc((BIG + 1) * 16);
    sym_b = shmem_malloc((BIG + 1) * 16);
    WT_CHECK(sym_a && sym_b, "shmem_malloc");

    run_all(SHMEM_TEAM_WORLD, 1);
    if (n > 1) {
        shmem_team_t sub;
        WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n - 1, NULL, 0, &sub),
                  0, "split reversed world without PE 0");
        run_all(sub, 0);
        if (sub != SHMEM_TEAM_INVALID)
            shmem_team_destroy(sub);
    }

    WT_PHASE("1 MiB long sum");
    size_t big = (1 << 20) / sizeof(long);
    long *s = shmem_malloc(big * sizeof(long)), *d = shmem_malloc(big * sizeof(long));
    for (size_t i = 0; i < big; i++)
        s[i] = (long)(i * 3 + (size_t)me);
    WT_EQ_NUM(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, d, s, big), 0, "1 MiB sum");
    for (size_t i = 0; i < big; i++)
        if (d[i] != (long)(i * 3) * n + (long)n * (n - 1) / 2)
            WT_FAIL("1 MiB sum: element %zu is %ld", i, d[i]);
    shmem_barrier_all();

    WT_PHASE("back-to-back reductions, no synchronization");
    /* Each result feeds the next one; distinct buffers per step. */
    long *chain = shmem_malloc(64 * sizeof(long));
    chain[0] = me + 1;
    for (int k = 0; k < 20; k++) {
        int r = k % 3;
        if (r == 0)
            shmem_long_max_reduce(SHMEM_TEAM_WORLD, &chain[k + 1], &chain[k], 1);
        else if (r == 1)
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &chain[k + 1], &chain[k], 1);
        else
            shmem_long_min_reduce(SHMEM_TEAM_WORLD, &chain[k + 1], &chain[k], 1);
    }
    long v = n; /* max of me+1; then each sum multiplies by n, max/min keep it */
    for (int k = 1; k < 20; k++)
        if (k % 3 == 1)
            v *= n;
    WT_EQ_NUM(chain[20], v, "chain of 20 reductions");
    shmem_barrier_all();

    WT_PHASE("C11 generic reductions");
    double *ds = (double *)sym_a, *dd = (double *)sym_b;
    ds[0] = me;
    shmem_sum_reduce(SHMEM_TEAM_WORLD, dd, ds, 1);
    WT_EQ_NUM(dd[0], (double)n * (n - 1) / 2, "generic double sum");
    shmem_barrier_all();
    unsigned *us = (unsigned *)sym_a, *ud = (unsigned *)sym_b;
    us[0] = 1u << (me % 32);
    shmem_or_reduce(SHMEM_TEAM_WORLD, ud, us, 1);
    unsigned wantu = 0;
    for (int p = 0; p < n; p++)
        wantu |= 1u << (p % 32);
    WT_EQ_NUM(ud[0], wantu, "generic uint or");
    shmem_barrier_all();
    double _Complex *cs = (double _Complex *)sym_a, *cd = (double _Complex *)sym_b;
    cs[0] = 1.0 + 1.0 * I;
    shmem_prod_reduce(SHMEM_TEAM_WORLD, cd, cs, 1);
    double _Complex wantc = 1;
    for (int p = 0; p < n; p++)
        wantc *= 1.0 + 1.0 * I;
    WT_CHECK(cd[0] == wantc, "generic complexd prod: (%g,%g)", creal(cd[0]), cimag(cd[0]));
    shmem_barrier_all();
    char *chs = (char *)sym_a, *chd = (char *)sym_b;
    chs[0] = (char)(me % 100);
    shmem_max_reduce(SHMEM_TEAM_WORLD, chd, chs, 1);
    WT_EQ_NUM(chd[0], (char)((n - 1) % 100), "generic char max");

    shmem_free(chain);
    shmem_free(s);
    shmem_free(d);
    wt_finish();
    return 0;
}

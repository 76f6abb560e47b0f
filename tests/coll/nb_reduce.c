/* SPDX-License-Identifier: BSD-3-Clause */
/* nb_reduce: the non-blocking reductions where members are reached
 * through libfabric, gathered at the start into every member's receive
 * area and reduced there at completion, with no engine thread:
 *   - every operator on integer, floating and complex types outstanding at
 *     once (more than the ring holds, both parities), one PE starting some
 *     late, a blocking reduce among them, completed in reverse order, half
 *     by test; every PE's result bitwise equal to PE 0's
 *   - the caller not polling: PE 0 starts an in-place reduction of several
 *     pieces, then only computes; every other PE completes it and tells
 *     PE 0 so before PE 0 calls weft again
 *   - no thread started by any of it; a reduction larger than the ring's
 *     pieces still completes (on the engine), and so do those of teams
 *     whose scratch slot has no receive areas
 * Pieces and the engine need receive areas of 64 KiB (WEFT_COLL_NB_AREA,
 * as CMakeLists.txt runs it): then BIG is several pieces at up to 4 PEs,
 * and HUGE more than 8. */
#include "weft_test.h"

#include <complex.h>
#include <math.h>
#include <shmemx.h>
#include <string.h>

#define N 37           /* elements of each outstanding reduction */
#define ESZ_MAX 16     /* double _Complex */
#define BIG 6000       /* longs of the caller-not-polling one: several pieces */
#define HUGE (1 << 17) /* longs: more pieces than the ring holds */

enum type { T_INT, T_LONG, T_FLOAT, T_DOUBLE, T_CFLOAT, T_CDOUBLE };
enum op { AND, OR, XOR, MAX, MIN, SUM, PROD };

#define CASES(X)                                                                           \
    X(T_INT, int, AND, and) X(T_INT, int, OR, or) X(T_INT, int, XOR, xor)                  \
    X(T_INT, int, MAX, max) X(T_INT, int, MIN, min) X(T_INT, int, SUM, sum)                \
    X(T_INT, int, PROD, prod) X(T_LONG, long, SUM, sum) X(T_LONG, long, XOR, xor)          \
    X(T_FLOAT, float, SUM, sum) X(T_FLOAT, float, MAX, max) X(T_FLOAT, float, PROD, prod)  \
    X(T_DOUBLE, double, SUM, sum) X(T_DOUBLE, double, MIN, min)                            \
    X(T_DOUBLE, double, PROD, prod) X(T_CFLOAT, float _Complex, SUM, sum)                 \
    X(T_CDOUBLE, double _Complex, SUM, sum) X(T_CDOUBLE, double _Complex, PROD, prod)

#define AS_CASE(TY, T, OP, fn) {TY, OP, #T " " #fn},
static const struct {
    enum type type;
    enum op op;
    const char *name;
} cases[] = {CASES(AS_CASE)};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static char *src, *dst; /* symmetric: NCASES blocks of N * ESZ_MAX bytes each */
static long *big, *told;

static size_t esz_of(enum type t)
{
    static const size_t sz[] = {sizeof(int), sizeof(long), sizeof(float), sizeof(double),
                                sizeof(float _Complex), sizeof(double _Complex)};
    return sz[t];
}

static int is_integer(enum type t) { return t == T_INT || t == T_LONG; }
static int is_complex(enum type t) { return t == T_CFLOAT || t == T_CDOUBLE; }

/* PE p's element e for case c: exact in every type for the integer
 * operators, inexact sums and products for the floating ones. */
static double _Complex value(int c, int p, int e)
{
    enum type t = cases[c].type;
    enum op op = cases[c].op;
    if (is_integer(t)) {
        if (op == AND || op == OR || op == XOR)
            return (double)((((p + 1) * 0x9e37) ^ (e * 0x45)) & 0xffff);
        if (op == PROD)
            return (double)(p % 3 + 1 + e % 2);
        return (double)(p * 100 - e);
    }
    double im = is_complex(t) ? 0.05 * e : 0.0;
    if (op == PROD)
        return 1.0 + 0.1 * p + 0.001 * e + im * I;
    return 0.1 * (p + 1) + 0.01 * e + ((p + e) % 3 ? 0.0 : -0.7) + im * I;
}

static void store(enum type t, void *b, int e, double _Complex v)
{
    switch (t) {
    case T_INT: ((int *)b)[e] = (int)creal(v); break;
    case T_LONG: ((long *)b)[e] = (long)creal(v); break;
    case T_FLOAT: ((float *)b)[e] = (float)creal(v); break;
    case T_DOUBLE: ((double *)b)[e] = creal(v); break;
    case T_CFLOAT: ((float _Complex *)b)[e] = (float _Complex)v; break;
    case T_CDOUBLE: ((double _Complex *)b)[e] = v; break;
    }
}

static double _Complex load(enum type t, const void *b, int e)
{
    switch (t) {
    case T_INT: return ((const int *)b)[e];
    case T_LONG: return (double)((const long *)b)[e];
    case T_FLOAT: return ((const float *)b)[e];
    case T_DOUBLE: return ((const double *)b)[e];
    case T_CFLOAT: return ((const float _Complex *)b)[e];
    default: return ((const double _Complex *)b)[e];
    }
}

/* The operator in double precision (the integer ones on exact values). */
static double _Complex combine(enum op op, double _Complex a, double _Complex b)
{
    long long x = (long long)creal(a), y = (long long)creal(b);
    switch (op) {
    case AND: return (double)(x & y);
    case OR: return (double)(x | y);
    case XOR: return (double)(x ^ y);
    case MAX: return creal(a) > creal(b) ? a : b;
    case MIN: return creal(a) < creal(b) ? a : b;
    case SUM: return a + b;
    default: return a * b;
    }
}

static char *block(char *base, int c) { return base + (size_t)c * N * ESZ_MAX; }

static void start(int c, shmem_req_h *r)
{
    void *d = block(dst, c), *s = block(src, c);
#define START_CASE(TY, T, OP, fn)                                                          \
    if (cases[c].type == TY && cases[c].op == OP)                                          \
        WT_EQ_NUM(shmemx_##fn##_reduce_nb(SHMEM_TEAM_WORLD, (T *)d, (const T *)s, N, r), 0, \
                  "start %s", cases[c].name);                                              \
    else
    CASES(START_CASE)
    WT_FAIL("no case %d", c);
}

static void check(int c)
{
    enum type t = cases[c].type;
    double tol = t == T_FLOAT || t == T_CFLOAT ? 1e-5 : 1e-12;
    for (int e = 0; e < N; e++) {
        double _Complex want = value(c, 0, e);
        for (int p = 1; p < wt_npes; p++)
            want = combine(cases[c].op, want, value(c, p, e));
        double _Complex got = load(t, block(dst, c), e);
        WT_CHECK(cabs(got - want) <= tol * (1.0 + cabs(want)),
                 "%s element %d: got %g%+gi, want %g%+gi", cases[c].name, e, creal(got),
                 cimag(got), creal(want), cimag(want));
    }
}

static void every_op_outstanding(void)
{
    int n = wt_npes;
    WT_PHASE("%d reductions outstanding, every operator, a blocking reduce among them", NCASES);
    for (int c = 0; c < NCASES; c++)
        for (int e = 0; e < N; e++) {
            store(cases[c].type, block(src, c), e, value(c, wt_me, e));
            store(cases[c].type, block(dst, c), e, -1);
        }
    shmem_barrier_all();
    shmem_req_h r[NCASES];
    for (int c = 0; c < NCASES; c++) {
        if (wt_me == n - 1 && c % 5 == 0)
            wt_compute_ms(2);
        start(c, &r[c]);
        if (c == NCASES / 2)
            wt_blocking_sum_check(SHMEM_TEAM_WORLD);
    }
    wt_req_complete_reverse(r, NCASES);
    for (int c = 0; c < NCASES; c++)
        check(c);
    /* Bitwise what PE 0 got, floating point included. */
    shmem_barrier_all();
    static char pe0[NCASES * N * ESZ_MAX];
    shmem_getmem(pe0, dst, sizeof pe0, 0);
    for (int c = 0; c < NCASES; c++)
        WT_CHECK(!memcmp(pe0 + (block(dst, c) - dst), block(dst, c), N * esz_of(cases[c].type)),
                 "%s: the result differs from PE 0's", cases[c].name);
    shmem_barrier_all();
}

static void caller_not_polling(void)
{
    int n = wt_npes;
    WT_PHASE("PE 0 computes without calling weft; the others complete a %d-long reduction",
             BIG);
    for (int e = 0; e < BIG; e++)
        big[e] = wt_me * 1000L + e;
    shmem_barrier_all();
    shmem_req_h r;
    WT_EQ_NUM(shmemx_long_sum_reduce_nb(SHMEM_TEAM_WORLD, big, big, BIG, &r), 0, "in place");
    wt_complete_while_pe0_computes(&r, told);
    long pes = (long)n * (n - 1) / 2 * 1000L;
    for (int e = 0; e < BIG; e++)
        WT_EQ_NUM(big[e], pes + (long)n * e, "in-place sum element %d", e);
    shmem_barrier_all();
}

static void beyond_the_ring(void)
{
    int n = wt_npes;
    WT_PHASE("a %d-long reduction, more pieces than the ring holds", HUGE);
    for (int e = 0; e < HUGE; e++)
        big[e] = wt_me + e;
    shmem_barrier_all();
    shmem_req_h r;
    WT_EQ_NUM(shmemx_long_max_reduce_nb(SHMEM_TEAM_WORLD, big, big, HUGE, &r), 0, "start");
    WT_EQ_NUM(shmem_req_wait(&r), 0, "wait");
    for (int e = 0; e < HUGE; e += 997)
        WT_EQ_NUM(big[e], n - 1L + e, "max element %d", e);
    shmem_barrier_all();
}

/* More teams than the slots with receive areas: each team's reduction
 * completes, on the issuing path or on the engine. */
static void teams_beyond_the_areas(void)
{
    enum { TEAMS = 9 };
    WT_PHASE("reductions on %d teams", TEAMS);
    shmem_team_t team[TEAMS];
    shmem_req_h r[TEAMS];
    long *in = big, *out = big + TEAMS;
    for (int i = 0; i < TEAMS; i++) {
        in[i] = wt_me + i;
        WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, wt_npes, NULL, 0, &team[i]), 0,
                  "split %d", i);
    }
    for (int i = 0; i < TEAMS; i++)
        WT_EQ_NUM(shmemx_long_sum_reduce_nb(team[i], out + i, in + i, 1, &r[i]), 0, "team %d", i);
    for (int i = 0; i < TEAMS; i++) {
        WT_EQ_NUM(shmem_req_wait(&r[i]), 0, "wait %d", i);
        WT_EQ_NUM(out[i], (long)wt_npes * (wt_npes - 1) / 2 + (long)wt_npes * i, "team %d", i);
        shmem_team_destroy(team[i]);
    }
    shmem_barrier_all();
}

int main(void)
{
    wt_init("coll.nb_reduce");
    src = shmem_malloc((size_t)NCASES * N * ESZ_MAX);
    dst = shmem_malloc((size_t)NCASES * N * ESZ_MAX);
    big = shmem_malloc(sizeof(long) * HUGE);
    told = shmem_calloc(1, sizeof(long));
    WT_CHECK(src && dst && big && told, "shmem_malloc");
    int threads = wt_thread_count();
    every_op_outstanding();
    caller_not_polling();
    every_op_outstanding(); /* the ring's later uses */
    WT_EQ_NUM(wt_thread_count(), threads, "threads after the reductions");
    beyond_the_ring();
    teams_beyond_the_areas();
    shmem_free(told);
    shmem_free(big);
    shmem_free(dst);
    shmem_free(src);
    wt_finish();
    return 0;
}

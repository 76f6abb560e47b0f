/* SPDX-License-Identifier: BSD-3-Clause */
/* generic: the C11 _Generic selections of shmem.h. Every generic routine is
 * called with several argument types, plain and (where it exists) with a
 * leading context argument, and the value checked, so a selection that
 * picks the wrong typed routine (wrong width, wrong signedness, float vs
 * integer) or the wrong form (ctx vs plain) fails.
 *
 * The calls are written per type by hand on purpose: a generic macro cannot
 * be used inside an expansion of the type table it dispatches over (the
 * preprocessor does not re-enter WEFT_RMA_TYPES while expanding it), and the
 * generic routines are exactly what a user writes without naming the type. */
#include "weft_test.h"

static int me, npes, right, left;
#define CTX SHMEM_CTX_DEFAULT

/* RMA generics for one type; A and B are two distinct values of type T. */
#define RMA_GENERIC(T, A, B)                                                                \
    do {                                                                                    \
        static T dst[8], src[8], one, two;                                                  \
        T loc[8], v;                                                                        \
        WT_PHASE("RMA generics on %s", #T);                                                 \
        for (int i = 0; i < 8; i++) {                                                       \
            dst[i] = 0;                                                                     \
            src[i] = (T)((A) + i);                                                          \
            loc[i] = (T)((B) + i);                                                          \
        }                                                                                   \
        one = two = 0;                                                                      \
        shmem_barrier_all();                                                                \
        shmem_put(dst, loc, 2, right);                       /* dst[0..1] */                \
        shmem_put(CTX, dst + 2, loc + 2, 2, right);          /* dst[2..3] */                \
        shmem_put_nbi(dst + 4, loc + 4, 1, right);           /* dst[4] */                   \
        shmem_put_nbi(CTX, dst + 5, loc + 5, 1, right);      /* dst[5] */                   \
        shmem_p(&one, (T)(A), right);                                                       \
        shmem_p(CTX, &two, (T)(B), right);                                                  \
        shmem_iput(dst + 6, loc + 6, 1, 1, 1, right);        /* dst[6] */                   \
        shmem_iput(CTX, dst + 7, loc + 7, 1, 1, 1, right);   /* dst[7] */                   \
        shmem_quiet();                                                                      \
        shmem_barrier_all();                                                                \
        for (int i = 0; i < 8; i++)                                                         \
            WT_EQ_NUM(dst[i], (T)((B) + i), "%s generic put/put_nbi/iput element %d", #T, i); \
        WT_EQ_NUM(one, (T)(A), "%s generic shmem_p", #T);                                   \
        WT_EQ_NUM(two, (T)(B), "%s generic shmem_p with ctx", #T);                          \
        memset(loc, 0, sizeof loc);                                                         \
        shmem_get(loc, src, 2, right);                                                      \
        shmem_get(CTX, loc + 2, src + 2, 2, right);                                         \
        shmem_get_nbi(loc + 4, src + 4, 1, right);                                          \
        shmem_get_nbi(CTX, loc + 5, src + 5, 1, right);                                     \
        shmem_iget(loc + 6, src + 6, 1, 1, 1, right);                                       \
        shmem_iget(CTX, loc + 7, src + 7, 1, 1, 1, right);                                  \
        shmem_quiet();                                                                      \
        for (int i = 0; i < 8; i++)                                                         \
            WT_EQ_NUM(loc[i], (T)((A) + i), "%s generic get/get_nbi/iget element %d", #T, i); \
        v = shmem_g(&src[3], right);                                                        \
        WT_EQ_NUM(v, (T)((A) + 3), "%s generic shmem_g", #T);                               \
        v = shmem_g(CTX, &src[4], right);                                                   \
        WT_EQ_NUM(v, (T)((A) + 4), "%s generic shmem_g with ctx", #T);                      \
        const T *csrc = src; /* shmem_g accepts a const source */                           \
        v = shmem_g(csrc + 5, right);                                                       \
        WT_EQ_NUM(v, (T)((A) + 5), "%s generic shmem_g (const source)", #T);                \
        shmem_barrier_all();                                                                \
    } while (0)

/* Standard-AMO generics for one integer type: the target is touched only by
 * the left neighbour. */
#define AMO_GENERIC(T, BASE)                                                                \
    do {                                                                                    \
        static T x;                                                                         \
        T f;                                                                                \
        WT_PHASE("AMO generics on %s", #T);                                                 \
        x = 0;                                                                              \
        shmem_barrier_all();                                                                \
        shmem_atomic_set(&x, (T)(BASE), right);                                             \
        WT_EQ_NUM(shmem_atomic_fetch(&x, right), (T)(BASE), "%s generic set/fetch", #T);    \
        WT_EQ_NUM(shmem_atomic_fetch(CTX, &x, right), (T)(BASE), "%s ctx fetch", #T);       \
        WT_EQ_NUM(shmem_atomic_fetch_inc(&x, right), (T)(BASE), "%s fetch_inc", #T);        \
        WT_EQ_NUM(shmem_atomic_fetch_inc(CTX, &x, right), (T)(BASE) + 1, "%s ctx fetch_inc", #T); \
        shmem_atomic_inc(&x, right);                                                        \
        shmem_atomic_inc(CTX, &x, right);                   /* BASE+4 */                    \
        WT_EQ_NUM(shmem_atomic_fetch_add(&x, (T)10, right), (T)(BASE) + 4, "%s fetch_add", #T); \
        WT_EQ_NUM(shmem_atomic_fetch_add(CTX, &x, (T)10, right), (T)(BASE) + 14,            \
                  "%s ctx fetch_add", #T);                                                  \
        shmem_atomic_add(&x, (T)1, right);                                                  \
        shmem_atomic_add(CTX, &x, (T)1, right);             /* BASE+26 */                   \
        WT_EQ_NUM(shmem_atomic_compare_swap(&x, (T)(BASE) + 26, (T)5, right), (T)(BASE) + 26, \
                  "%s compare_swap", #T);                                                   \
        WT_EQ_NUM(shmem_atomic_compare_swap(CTX, &x, (T)5, (T)6, right), (T)5,              \
                  "%s ctx compare_swap", #T);                                               \
        WT_EQ_NUM(shmem_atomic_swap(&x, (T)7, right), (T)6, "%s swap", #T);                 \
        WT_EQ_NUM(shmem_atomic_swap(CTX, &x, (T)8, right), (T)7, "%s ctx swap", #T);        \
        shmem_atomic_set(CTX, &x, (T)9, right);                                             \
        f = 0;                                                                              \
        shmem_atomic_fetch_nbi(&f, &x, right);                                              \
        shmem_quiet();                                                                      \
        WT_EQ_NUM(f, (T)9, "%s fetch_nbi", #T);                                             \
        shmem_atomic_fetch_inc_nbi(&f, &x, right);                                          \
        shmem_quiet();                                                                      \
        WT_EQ_NUM(f, (T)9, "%s fetch_inc_nbi", #T);                                         \
        shmem_atomic_fetch_add_nbi(CTX, &f, &x, (T)3, right);                               \
        shmem_ctx_quiet(CTX);                                                               \
        WT_EQ_NUM(f, (T)10, "%s ctx fetch_add_nbi", #T);                                    \
        shmem_atomic_compare_swap_nbi(&f, &x, (T)13, (T)20, right);                         \
        shmem_quiet();                                                                      \
        WT_EQ_NUM(f, (T)13, "%s compare_swap_nbi", #T);                                     \
        shmem_atomic_swap_nbi(CTX, &f, &x, (T)21, right);                                   \
        shmem_quiet();                                                                      \
        WT_EQ_NUM(f, (T)20, "%s ctx swap_nbi", #T);                                         \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(x, (T)21, "%s final value of the generic AMO sequence", #T);              \
        shmem_barrier_all();                                                                \
    } while (0)

/* Bitwise generics for one type. */
#define BIT_GENERIC(T)                                                                      \
    do {                                                                                    \
        static T x;                                                                         \
        T f = 0;                                                                            \
        WT_PHASE("bitwise AMO generics on %s", #T);                                         \
        x = (T)0xF0;                                                                        \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(shmem_atomic_fetch_and(&x, (T)0x3C, right), (T)0xF0, "%s fetch_and", #T); \
        shmem_atomic_and(CTX, &x, (T)0x34, right);                          /* 0x30 */      \
        WT_EQ_NUM(shmem_atomic_fetch_or(CTX, &x, (T)0x01, right), (T)0x30, "%s fetch_or", #T); \
        shmem_atomic_or(&x, (T)0x80, right);                                /* 0xB1 */      \
        WT_EQ_NUM(shmem_atomic_fetch_xor(&x, (T)0xFF, right), (T)0xB1, "%s fetch_xor", #T); \
        shmem_atomic_xor(CTX, &x, (T)0x0F, right);                          /* 0x41 */      \
        shmem_atomic_fetch_and_nbi(&f, &x, (T)0x44, right);                 /* 0x40 */      \
        shmem_quiet();                                                                      \
        WT_EQ_NUM(f, (T)0x41, "%s fetch_and_nbi", #T);                                      \
        shmem_atomic_fetch_or_nbi(CTX, &f, &x, (T)0x100, right);            /* 0x140 */     \
        shmem_quiet();                                                                      \
        WT_EQ_NUM(f, (T)0x40, "%s ctx fetch_or_nbi", #T);                                   \
        shmem_atomic_fetch_xor_nbi(&f, &x, (T)0x4, right);                  /* 0x144 */     \
        shmem_quiet();                                                                      \
        WT_EQ_NUM(f, (T)0x140, "%s fetch_xor_nbi", #T);                                     \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(x, (T)0x144, "%s final value of the bitwise generic sequence", #T);       \
        shmem_barrier_all();                                                                \
    } while (0)

/* Extended AMO generics on floating types. */
#define FP_GENERIC(T)                                                                       \
    do {                                                                                    \
        static T x;                                                                         \
        T f = 0;                                                                            \
        WT_PHASE("extended AMO generics on %s", #T);                                        \
        x = 0;                                                                              \
        shmem_barrier_all();                                                                \
        shmem_atomic_set(&x, (T)1.5, right);                                                \
        WT_EQ_NUM(shmem_atomic_fetch(&x, right), (T)1.5, "%s fetch", #T);                   \
        WT_EQ_NUM(shmem_atomic_swap(CTX, &x, (T)-2.25, right), (T)1.5, "%s ctx swap", #T);  \
        shmem_atomic_swap_nbi(&f, &x, (T)3.75, right);                                      \
        shmem_quiet();                                                                      \
        WT_EQ_NUM(f, (T)-2.25, "%s swap_nbi", #T);                                          \
        shmem_atomic_fetch_nbi(CTX, &f, &x, right);                                         \
        shmem_quiet();                                                                      \
        WT_EQ_NUM(f, (T)3.75, "%s ctx fetch_nbi", #T);                                      \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(x, (T)3.75, "%s final value", #T);                                        \
        shmem_barrier_all();                                                                \
    } while (0)

/* Point-to-point generics for one type: the left neighbour sets our
 * variables; we wait/test on them. */
#define P2P_GENERIC(T)                                                                      \
    do {                                                                                    \
        static T iv[4], one;                                                                \
        int status[4] = {0, 0, 1, 0};                                                       \
        size_t idx[4];                                                                      \
        T cmpv[4] = {1, 2, 100, 4};                                                         \
        WT_PHASE("point-to-point generics on %s", #T);                                      \
        memset(iv, 0, sizeof iv);                                                           \
        one = 0;                                                                            \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(shmem_test(&one, SHMEM_CMP_NE, (T)0), 0, "%s shmem_test before", #T);     \
        WT_EQ_NUM(shmem_test_all(iv, 4, status, SHMEM_CMP_GT, (T)0), 0, "%s test_all", #T); \
        WT_EQ_NUM(shmem_test_any(iv, 4, status, SHMEM_CMP_GT, (T)0), SIZE_MAX,              \
                  "%s test_any before", #T);                                                \
        WT_EQ_NUM(shmem_test_some(iv, 4, idx, status, SHMEM_CMP_GT, (T)0), 0,               \
                  "%s test_some before", #T);                                               \
        WT_EQ_NUM(shmem_test_all_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv), 0,              \
                  "%s test_all_vector before", #T);                                         \
        WT_EQ_NUM(shmem_test_any_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv), SIZE_MAX,       \
                  "%s test_any_vector before", #T);                                         \
        WT_EQ_NUM(shmem_test_some_vector(iv, 4, idx, status, SHMEM_CMP_EQ, cmpv), 0,        \
                  "%s test_some_vector before", #T);                                        \
        shmem_barrier_all();                                                                \
        T vals[4] = {1, 2, 0, 4};                                                           \
        shmem_put(iv, vals, 4, right);                                                      \
        shmem_fence();                                                                      \
        shmem_p(&one, (T)1, right);                                                         \
        shmem_wait_until(&one, SHMEM_CMP_EQ, (T)1);                                         \
        shmem_wait_until_all(iv, 4, status, SHMEM_CMP_GT, (T)0);                            \
        size_t a = shmem_wait_until_any(iv, 4, status, SHMEM_CMP_GE, (T)2);                 \
        WT_CHECK(a == 1 || a == 3, "%s wait_until_any returned %zu", #T, a);                \
        size_t s = shmem_wait_until_some(iv, 4, idx, status, SHMEM_CMP_NE, (T)0);           \
        WT_EQ_NUM(s, 3, "%s wait_until_some count", #T);                                    \
        shmem_wait_until_all_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv);                     \
        a = shmem_wait_until_any_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv);                 \
        WT_CHECK(a == 0 || a == 1 || a == 3, "%s wait_until_any_vector returned %zu", #T, a); \
        s = shmem_wait_until_some_vector(iv, 4, idx, status, SHMEM_CMP_EQ, cmpv);           \
        WT_EQ_NUM(s, 3, "%s wait_until_some_vector count", #T);                             \
        WT_EQ_NUM(shmem_test(&one, SHMEM_CMP_EQ, (T)1), 1, "%s shmem_test after", #T);      \
        WT_EQ_NUM(shmem_test_all(iv, 4, status, SHMEM_CMP_GT, (T)0), 1, "%s test_all after", #T); \
        a = shmem_test_any(iv, 4, status, SHMEM_CMP_EQ, (T)4);                              \
        WT_EQ_NUM(a, 3, "%s test_any after", #T);                                           \
        WT_EQ_NUM(shmem_test_some(iv, 4, idx, status, SHMEM_CMP_LT, (T)3), 2,               \
                  "%s test_some after", #T);                                                \
        WT_EQ_NUM(shmem_test_all_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv), 1,              \
                  "%s test_all_vector after", #T);                                          \
        a = shmem_test_any_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv);                       \
        WT_CHECK(a == 0 || a == 1 || a == 3, "%s test_any_vector after returned %zu", #T, a); \
        WT_EQ_NUM(shmem_test_some_vector(iv, 4, idx, status, SHMEM_CMP_EQ, cmpv), 3,        \
                  "%s test_some_vector after", #T);                                         \
        shmem_barrier_all();                                                                \
    } while (0)

int main(void)
{
    wt_init("generic");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    (void)left;

    RMA_GENERIC(char, 'a', 'A');
    RMA_GENERIC(signed char, -5, 17);
    RMA_GENERIC(unsigned char, 200, 100);
    RMA_GENERIC(short, -300, 301);
    RMA_GENERIC(unsigned short, 60000, 50000);
    RMA_GENERIC(int, -70000, 70001);
    RMA_GENERIC(unsigned int, 4000000000u, 3000000000u);
    RMA_GENERIC(long, -5000000000L, 6000000000L);
    RMA_GENERIC(unsigned long, 18000000000000000000ul, 17000000000000000000ul);
    RMA_GENERIC(long long, -7000000000LL, 7000000001LL);
    RMA_GENERIC(unsigned long long, 10000000000000000000ull, 9000000000000000000ull);
    RMA_GENERIC(float, 1.5f, -2.75f);
    RMA_GENERIC(double, 1e100, -3.5e-100);
    RMA_GENERIC(long double, 1e300L * 1e300L, -0.125L);
    RMA_GENERIC(int64_t, INT64_MIN + 8, INT64_MAX - 8);
    RMA_GENERIC(size_t, SIZE_MAX - 8, 12345);

    AMO_GENERIC(int, -100);
    AMO_GENERIC(unsigned int, 4000000000u);
    AMO_GENERIC(long, -9000000000L);
    AMO_GENERIC(unsigned long, 9000000000ul);
    AMO_GENERIC(long long, 123456789012LL);
    AMO_GENERIC(unsigned long long, 0xFFFFFFFF00ull);
    AMO_GENERIC(int32_t, 1 << 30);
    AMO_GENERIC(uint64_t, 1ull << 40);
    AMO_GENERIC(size_t, 77);
    AMO_GENERIC(ptrdiff_t, -77);

    BIT_GENERIC(unsigned int);
    BIT_GENERIC(unsigned long);
    BIT_GENERIC(unsigned long long);
    BIT_GENERIC(uint32_t);
    BIT_GENERIC(uint64_t);
    /* Table 8 has int32_t and int64_t but not int / long: the generic must
     * still accept them. */
    BIT_GENERIC(int32_t);
    BIT_GENERIC(int64_t);

    FP_GENERIC(float);
    FP_GENERIC(double);

    P2P_GENERIC(short);
    P2P_GENERIC(int);
    P2P_GENERIC(long);
    P2P_GENERIC(long long);
    P2P_GENERIC(unsigned short);
    P2P_GENERIC(unsigned int);
    P2P_GENERIC(unsigned long);
    P2P_GENERIC(unsigned long long);
    P2P_GENERIC(size_t);

    WT_PHASE("deprecated generic shmem_wait / untyped shmem_wait_until");
    static long lw;
    static int iw;
    lw = 0;
    iw = 0;
    shmem_barrier_all();
    shmem_long_p(&lw, 5, right);
    shmem_int_p(&iw, 6, right);
    shmem_wait(&lw, 0L);     /* generic, long */
    shmem_wait(&iw, 0);      /* generic, int */
    (shmem_wait_until)(&lw, SHMEM_CMP_EQ, 5L); /* untyped 1.0 routine */
    (shmem_wait)(&lw, 0L);
    WT_EQ_NUM(lw, 5, "value awaited with shmem_wait(long)");
    WT_EQ_NUM(iw, 6, "value awaited with shmem_wait(int)");
    wt_finish();
    return 0;
}

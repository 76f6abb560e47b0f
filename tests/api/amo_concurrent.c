/* SPDX-License-Identifier: BSD-3-Clause */
/* amo_concurrent: every PE hammers one address on PE 0 at the same time,
 * for every type of WEFT_AMO_STD_TYPES (and WEFT_AMO_BIT_TYPES for the
 * bitwise part), with the target in the heap and in a .bss global:
 *   fetch_inc loop: final value exact, the fetched values of all PEs
 *     together are a permutation of 0 .. n*ITER-1, each PE's increasing
 *   inc + add(me+1) + fetch_add(2) loops: final value exact
 *   compare_swap increment loop: final value exact
 *   compare_swap election: exactly one winner, everybody agrees who
 *   swap chain: the values swapped out plus the final value are exactly
 *     the initial value and one token per PE
 *   bitwise: each PE sets its own bit with or, clears it with fetch_and,
 *     toggles it with xor / fetch_xor; the word is exact after each round
 * ITER is argv[1] (default 40); the long type runs 10x as many. */
#include "weft_test.h"

static int me, npes, ITER = 40;
static unsigned char *seen;
static long *winners; /* symmetric counter on PE 0 */

#define DEF_CONC(N, T, D, G)                                                                \
    T conc_static_##N;                                                                      \
    static void conc_##N(T *x, const char *where)                                           \
    {                                                                                       \
        int iter = ITER * (!strcmp(#N, "long") ? 10 : 1);                                   \
        T total = (T)npes * (T)iter;                                                        \
        T *res = shmem_malloc((size_t)npes * (size_t)iter * sizeof(T));                     \
        T *mine = malloc((size_t)iter * sizeof(T));                                         \
        WT_CHECK(res && mine, "allocation");                                                \
                                                                                            \
        WT_PHASE("shmem_%s_atomic_fetch_inc from all PEs, %s target", #N, where);           \
        *x = 0;                                                                             \
        shmem_barrier_all();                                                                \
        for (int i = 0; i < iter; i++)                                                      \
            mine[i] = shmem_##N##_atomic_fetch_inc(x, 0);                                   \
        for (int i = 1; i < iter; i++)                                                      \
            WT_CHECK(mine[i] > mine[i - 1], "shmem_%s_atomic_fetch_inc: fetched %.21Lg after " \
                     "%.21Lg (not increasing)", #N, (long double)mine[i],                   \
                     (long double)mine[i - 1]);                                             \
        shmem_##N##_put(res + (size_t)me * (size_t)iter, mine, (size_t)iter, 0);            \
        shmem_barrier_all();                                                                \
        if (me == 0) {                                                                      \
            WT_EQ_NUM(*x, total, "shmem_%s_atomic_fetch_inc x %d from %d PEs: final", #N,   \
                      iter, npes);                                                          \
            memset(seen, 0, (size_t)npes * (size_t)iter);                                   \
            for (size_t i = 0; i < (size_t)npes * (size_t)iter; i++) {                      \
                long double v = (long double)res[i];                                        \
                WT_CHECK(v >= 0 && v < (long double)total, "shmem_%s_atomic_fetch_inc: "    \
                         "PE %zu fetched %.21Lg, outside [0, %d)", #N, i / (size_t)iter, v, \
                         npes * iter);                                                      \
                size_t k = (size_t)res[i];                                                  \
                WT_CHECK(!seen[k], "shmem_%s_atomic_fetch_inc: value %zu fetched twice "    \
                         "(second time by PE %zu) - the increments were not atomic", #N, k, \
                         i / (size_t)iter);                                                 \
                seen[k] = 1;                                                                \
            }                                                                               \
        }                                                                                   \
                                                                                            \
        WT_PHASE("shmem_%s_atomic_inc/add/fetch_add from all PEs, %s target", #N, where);   \
        *x = 0;                                                                             \
        shmem_barrier_all();                                                                \
        T last = 0;                                                                         \
        for (int i = 0; i < iter; i++) {                                                    \
            shmem_##N##_atomic_inc(x, 0);                                                   \
            shmem_##N##_atomic_add(x, (T)(me + 1), 0);                                      \
            T f = shmem_##N##_atomic_fetch_add(x, (T)2, 0);                                 \
            WT_CHECK(i == 0 || f > last, "shmem_%s_atomic_fetch_add fetched %.21Lg after "  \
                     "%.21Lg", #N, (long double)f, (long double)last);                      \
            last = f;                                                                       \
        }                                                                                   \
        shmem_barrier_all();                                                                \
        if (me == 0)                                                                        \
            WT_EQ_NUM(*x, (T)iter * (T)(3 * npes + npes * (npes + 1) / 2),                  \
                      "shmem_%s_atomic_inc+add+fetch_add x %d from %d PEs: final", #N,      \
                      iter, npes);                                                          \
                                                                                            \
        WT_PHASE("shmem_%s_atomic_compare_swap increment loops, %s target", #N, where);     \
        *x = 0;                                                                             \
        shmem_barrier_all();                                                                \
        long retries = 0;                                                                   \
        for (int i = 0; i < iter; i++) {                                                    \
            T old = shmem_##N##_atomic_fetch(x, 0), prev;                                   \
            while ((prev = shmem_##N##_atomic_compare_swap(x, old, (T)(old + 1), 0)) != old) { \
                old = prev;                                                                 \
                retries++;                                                                  \
            }                                                                               \
        }                                                                                   \
        shmem_barrier_all();                                                                \
        if (me == 0)                                                                        \
            WT_EQ_NUM(*x, total, "shmem_%s_atomic_compare_swap loops x %d from %d PEs: "    \
                      "final", #N, iter, npes);                                             \
                                                                                            \
        WT_PHASE("shmem_%s_atomic_compare_swap election, %s target", #N, where);            \
        *x = 0;                                                                             \
        *winners = 0;                                                                       \
        shmem_barrier_all();                                                                \
        T got = shmem_##N##_atomic_compare_swap(x, (T)0, (T)(me + 1), 0);                   \
        if (got == 0)                                                                       \
            shmem_long_atomic_inc(winners, 0);                                              \
        shmem_barrier_all();                                                                \
        T elected = shmem_##N##_atomic_fetch(x, 0);                                         \
        WT_CHECK(elected >= 1 && elected <= (T)npes, "shmem_%s_atomic_compare_swap "         \
                 "election: value %.21Lg is no PE's token", #N, (long double)elected);      \
        if (got == 0)                                                                       \
            WT_EQ_NUM(elected, (T)(me + 1), "shmem_%s election: I (PE %d) won, token", #N,  \
                      me);                                                                  \
        else                                                                                \
            WT_EQ_NUM(got, elected, "shmem_%s election: I lost, compare_swap returned", #N); \
        if (me == 0)                                                                        \
            WT_EQ_NUM(*winners, 1, "shmem_%s_atomic_compare_swap election winners", #N);    \
        shmem_barrier_all(); /* everybody has read the result */                            \
                                                                                            \
        WT_PHASE("shmem_%s_atomic_swap chain, %s target", #N, where);                       \
        *x = (T)100;                                                                        \
        shmem_barrier_all();                                                                \
        T out = shmem_##N##_atomic_swap(x, (T)(me + 1), 0);                                 \
        shmem_##N##_p(res + me, out, 0);                                                    \
        shmem_barrier_all();                                                                \
        if (me == 0) {                                                                      \
            int cnt[1025] = {0};                                                            \
            res[npes] = *x; /* the value left in place */                                   \
            for (int i = 0; i <= npes; i++) {                                               \
                long double v = (long double)res[i];                                        \
                int k = v == 100 ? 0 : (int)v;                                              \
                if (!(k >= 0 && k <= npes && (k ? (long double)k == v : v == 100) &&        \
                      cnt[k]++ == 0)) {                                                     \
                    char all_[512] = "";                                                    \
                    for (int j = 0; j <= npes && j < 32; j++)                               \
                        snprintf(all_ + strlen(all_), sizeof all_ - strlen(all_), " %.21Lg", \
                                 (long double)res[j]);                                      \
                    WT_FAIL("shmem_%s_atomic_swap chain: value %.21Lg (from %s %d) is not " \
                            "a token or appears twice; swapped out by PE 0..n-1, then "     \
                            "final:%s (expected 100 and 1..n once each)", #N, v,            \
                            i < npes ? "PE" : "final", i, all_);                            \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
        shmem_barrier_all();                                                                \
        (void)retries;                                                                      \
        free(mine);                                                                         \
        shmem_free(res);                                                                    \
    }
WEFT_AMO_STD_TYPES(DEF_CONC)

#define DEF_BITC(N, T, D, G)                                                                \
    T bitc_static_##N;                                                                      \
    static void bitc_##N(T *x, const char *where)                                           \
    {                                                                                       \
        T mybit = (T)((T)1 << me), all = (T)(((T)1 << npes) - 1);                           \
        WT_PHASE("shmem_%s_atomic_or: every PE sets its bit, %s target", #N, where);        \
        *x = 0;                                                                             \
        shmem_barrier_all();                                                                \
        shmem_##N##_atomic_or(x, mybit, 0);                                                 \
        shmem_barrier_all();                                                                \
        T v = shmem_##N##_atomic_fetch(x, 0);                                               \
        WT_EQ_NUM(v, all, "shmem_%s_atomic_or of one bit per PE", #N);                      \
        shmem_barrier_all();                                                                \
        WT_PHASE("shmem_%s_atomic_fetch_and: every PE clears its bit, %s target", #N, where); \
        T f = shmem_##N##_atomic_fetch_and(x, (T)~mybit, 0);                                \
        WT_CHECK((f & mybit) != 0, "shmem_%s_atomic_fetch_and returned %#llx without my "   \
                 "bit %#llx", #N, (unsigned long long)f, (unsigned long long)mybit);        \
        shmem_barrier_all();                                                                \
        v = shmem_##N##_atomic_fetch(x, 0);                                                 \
        WT_EQ_NUM(v, 0, "shmem_%s_atomic_fetch_and clearing one bit per PE", #N);           \
        shmem_barrier_all();                                                                \
        WT_PHASE("shmem_%s_atomic_xor / fetch_xor toggles, %s target", #N, where);          \
        shmem_##N##_atomic_xor(x, mybit, 0);                                                \
        shmem_barrier_all();                                                                \
        v = shmem_##N##_atomic_fetch(x, 0);                                                 \
        WT_EQ_NUM(v, all, "shmem_%s_atomic_xor toggling one bit per PE on", #N);            \
        shmem_barrier_all();                                                                \
        f = shmem_##N##_atomic_fetch_xor(x, mybit, 0);                                      \
        WT_CHECK((f & mybit) != 0, "shmem_%s_atomic_fetch_xor returned %#llx without my "   \
                 "bit", #N, (unsigned long long)f);                                         \
        f = shmem_##N##_atomic_fetch_or(x, (T)0, 0);                                        \
        WT_CHECK((f & mybit) == 0, "shmem_%s_atomic_fetch_or(0) after toggling my bit "     \
                 "off returned %#llx", #N, (unsigned long long)f);                          \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(shmem_##N##_atomic_fetch(x, 0), 0, "shmem_%s after toggling every bit "   \
                  "off", #N);                                                               \
        shmem_barrier_all();                                                                \
    }
WEFT_AMO_BIT_TYPES(DEF_BITC)

int main(int argc, char **argv)
{
    wt_init("amo_concurrent");
    me = wt_me;
    npes = wt_npes;
    if (argc > 1)
        ITER = atoi(argv[1]);
    WT_CHECK(npes <= 30, "this test uses one bit per PE in 32-bit words (n_pes = %d)", npes);
    seen = malloc((size_t)npes * (size_t)ITER * 10);
    winners = shmem_malloc(sizeof(long));
    void *x = shmem_malloc(16);
    WT_CHECK(seen && winners && x, "allocation");
#define RUN_CONC(N, T, D, G)                                                                \
    conc_##N((T *)x, "heap");                                                               \
    conc_##N(&conc_static_##N, ".bss");
    WEFT_AMO_STD_TYPES(RUN_CONC)
#define RUN_BITC(N, T, D, G)                                                                \
    bitc_##N((T *)x, "heap");                                                               \
    bitc_##N(&bitc_static_##N, ".bss");
    WEFT_AMO_BIT_TYPES(RUN_BITC)
    shmem_free(x);
    shmem_free(winners);
    free(seen);
    wt_finish();
    return 0;
}

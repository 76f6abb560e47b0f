/* SPDX-License-Identifier: BSD-3-Clause */
/* amo_deprecated: the pre-1.4 AMO names programs still use.
 *   shmem_TYPE_cswap/finc/inc/fadd/add for every type of WEFT_AMO_STD_TYPES
 *   and shmem_TYPE_swap/fetch/set for every type of WEFT_AMO_EXT_TYPES
 *   (the spec lists int, long, longlong (+ float, double); weft declares
 *   them from those tables, so they are tested from the same tables); the
 *   untyped long shmem_swap; the deprecated generic names shmem_cswap,
 *   shmem_finc, shmem_inc, shmem_fadd, shmem_add, shmem_swap, shmem_fetch,
 *   shmem_set.
 * Exact sequences on the right neighbour, then a concurrent shmem_TYPE_finc /
 * shmem_TYPE_add count on PE 0 from every PE. */
#include "weft_test.h"

static int me, npes, right;

#define DEF_INT(N, T, D, G)                                                                 \
    T dep_##N[2];                                                                           \
    static void dep_int_##N(void)                                                           \
    {                                                                                       \
        T *x = &dep_##N[1];                                                                 \
        WT_PHASE("deprecated shmem_%s_{set,fetch,finc,inc,fadd,add,cswap,swap}", #N);       \
        *x = 0;                                                                             \
        shmem_barrier_all();                                                                \
        shmem_##N##_set(x, (T)10, right);                                                   \
        WT_EQ_NUM(shmem_##N##_fetch(x, right), 10, "shmem_%s_set then shmem_%s_fetch", #N, #N); \
        WT_EQ_NUM(shmem_##N##_finc(x, right), 10, "shmem_%s_finc", #N);                     \
        shmem_##N##_inc(x, right);                                                          \
        WT_EQ_NUM(shmem_##N##_fadd(x, (T)5, right), 12, "shmem_%s_fadd", #N);               \
        shmem_##N##_add(x, (T)-3, right);                                                   \
        WT_EQ_NUM(shmem_##N##_cswap(x, (T)14, (T)20, right), 14, "shmem_%s_cswap (match)", #N); \
        WT_EQ_NUM(shmem_##N##_cswap(x, (T)14, (T)30, right), 20, "shmem_%s_cswap (no match)", \
                  #N);                                                                      \
        WT_EQ_NUM(shmem_##N##_swap(x, (T)-7, right), 20, "shmem_%s_swap", #N);              \
        WT_EQ_NUM(shmem_##N##_fetch(x, right), (T)-7, "shmem_%s_fetch after swap", #N);     \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(*x, (T)-7, "shmem_%s deprecated sequence: final value at the target", #N); \
        WT_PHASE("deprecated shmem_%s_finc/add from all PEs to PE 0", #N);                  \
        shmem_barrier_all();                                                                \
        *x = 0;                                                                             \
        shmem_barrier_all();                                                                \
        for (int i = 0; i < 20; i++) {                                                      \
            shmem_##N##_finc(x, 0);                                                         \
            shmem_##N##_add(x, (T)2, 0);                                                    \
        }                                                                                   \
        shmem_barrier_all();                                                                \
        if (me == 0)                                                                        \
            WT_EQ_NUM(*x, 60 * npes, "shmem_%s_finc + shmem_%s_add x 20 from %d PEs", #N, #N, \
                      npes);                                                                \
        shmem_barrier_all();                                                                \
    }
WEFT_AMO_STD_TYPES(DEF_INT)

/* A and B: exact in every extended type (fractional for float/double). */
#define DEF_FP(N, T, D, G)                                                                  \
    T depf_##N;                                                                             \
    static void dep_ext_##N(void)                                                           \
    {                                                                                       \
        T *x = &depf_##N;                                                                   \
        const int isf = (T)0.5 != 0;                                                        \
        T A = isf ? (T)2.5 : (T)25, B = isf ? (T)-0.75 : (T)7;                              \
        WT_PHASE("deprecated shmem_%s_{set,fetch,swap}", #N);                               \
        *x = 0;                                                                             \
        shmem_barrier_all();                                                                \
        shmem_##N##_set(x, A, right);                                                       \
        WT_EQ_NUM(shmem_##N##_fetch(x, right), A, "shmem_%s_set/fetch", #N);                \
        WT_EQ_NUM(shmem_##N##_swap(x, B, right), A, "shmem_%s_swap", #N);                   \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(*x, B, "shmem_%s final value at the target", #N);                         \
        shmem_barrier_all();                                                                \
    }
WEFT_AMO_EXT_TYPES(DEF_FP)

/* The deprecated generic names. (They cannot be called from inside an
 * expansion of WEFT_AMO_*_TYPES: the generic macros expand that same table,
 * which the preprocessor does not re-enter; so these are instantiated per
 * type by hand, as a user would call them.) */
#define GEN_INT(N, T)                                                                       \
    static void gen_int_##N(void)                                                           \
    {                                                                                       \
        T *x = &dep_##N[1];                                                                 \
        WT_PHASE("deprecated generic names on %s", #N);                                     \
        shmem_barrier_all();                                                                \
        shmem_set(x, (T)1, right);                                                          \
        WT_EQ_NUM(shmem_fetch(x, right), 1, "generic shmem_set/shmem_fetch on %s", #N);     \
        WT_EQ_NUM(shmem_finc(x, right), 1, "generic shmem_finc on %s", #N);                 \
        shmem_inc(x, right);                                                                \
        WT_EQ_NUM(shmem_fadd(x, (T)10, right), 3, "generic shmem_fadd on %s", #N);          \
        shmem_add(x, (T)100, right);                                                        \
        WT_EQ_NUM(shmem_cswap(x, (T)113, (T)5, right), 113, "generic shmem_cswap on %s", #N); \
        WT_EQ_NUM(shmem_swap(x, (T)6, right), 5, "generic shmem_swap on %s", #N);           \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(*x, 6, "deprecated generic sequence on %s: final value at the target", #N); \
        shmem_barrier_all();                                                                \
    }
GEN_INT(int, int)
GEN_INT(long, long)
GEN_INT(longlong, long long)
GEN_INT(uint, unsigned int)
GEN_INT(ulonglong, unsigned long long)
GEN_INT(size, size_t)

#define GEN_FP(N, T)                                                                        \
    static void gen_fp_##N(void)                                                            \
    {                                                                                       \
        T *x = &depf_##N;                                                                   \
        WT_PHASE("deprecated generic names on %s", #N);                                     \
        shmem_barrier_all();                                                                \
        shmem_set(x, (T)3.5, right);                                                        \
        WT_EQ_NUM(shmem_fetch(x, right), (T)3.5, "generic shmem_set/fetch on %s", #N);      \
        WT_EQ_NUM(shmem_swap(x, (T)8.125, right), (T)3.5, "generic shmem_swap on %s", #N);  \
        shmem_barrier_all();                                                                \
        WT_EQ_NUM(*x, (T)8.125, "deprecated generic sequence on %s: final value", #N);     \
        shmem_barrier_all();                                                                \
    }
GEN_FP(float, float)
GEN_FP(double, double)

long untyped;

int main(void)
{
    wt_init("amo_deprecated");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
#define RUN_INT(N, T, D, G) dep_int_##N();
    WEFT_AMO_STD_TYPES(RUN_INT)
#define RUN_EXT(N, T, D, G) dep_ext_##N();
    WEFT_AMO_EXT_TYPES(RUN_EXT)
    gen_int_int();
    gen_int_long();
    gen_int_longlong();
    gen_int_uint();
    gen_int_ulonglong();
    gen_int_size();
    gen_fp_float();
    gen_fp_double();

    WT_PHASE("untyped (shmem_swap)(long *, long, int)");
    untyped = 5;
    shmem_barrier_all();
    long old = (shmem_swap)(&untyped, 1000 + me, right);
    WT_EQ_NUM(old, 5, "untyped shmem_swap returned");
    shmem_barrier_all();
    WT_EQ_NUM(untyped, 1000 + (me + npes - 1) % npes, "value swapped in by the left PE");
    wt_finish();
    return 0;
}

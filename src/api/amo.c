/* SPDX-License-Identifier: BSD-3-Clause */
/* amo.c owns the OpenSHMEM atomic memory operations: standard, extended
 * and bitwise, fetching and not, blocking and non-blocking, with context
 * forms, generated from the AMO type tables; plus the deprecated names. */
#include "api/api.h"

/* Fetching AMO returning the old value. */
#define WEFT_AMO_FETCHING(CALL, CTX, OP, D, T, DEST, OPERAND, COMPARE, PE)                \
    T result_;                                                                            \
    weft_api_amo(CALL, CTX, OP, WEFT_DT_##D, DEST, OPERAND, COMPARE, &result_, PE, 0);    \
    return result_

/* A (ctx, plain) pair of routines sharing one body; CTX names the context. */
#define WEFT_AMO_PAIR(RET, N, SUFFIX, PARAMS, CTX_PARAMS, BODY)                           \
    RET shmem_ctx_##N##_##SUFFIX CTX_PARAMS                                              \
    {                                                                                     \
        const char *call = "shmem_ctx_" #N "_" #SUFFIX;                                   \
        BODY;                                                                             \
    }                                                                                     \
    RET shmem_##N##_##SUFFIX PARAMS                                                      \
    {                                                                                     \
        const char *call = "shmem_" #N "_" #SUFFIX;                                       \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                              \
        BODY;                                                                             \
    }

#define WEFT_DEF_AMO_STD(N, T, D, G)                                                      \
    WEFT_AMO_PAIR(T, N, atomic_fetch_inc, (T * dest, int pe),                             \
                  (shmem_ctx_t ctx, T *dest, int pe), T one = 1;                          \
                  WEFT_AMO_FETCHING(call, ctx, WEFT_AMO_ADD, D, T, dest, &one, NULL, pe))  \
    WEFT_AMO_PAIR(void, N, atomic_inc, (T * dest, int pe),                                \
                  (shmem_ctx_t ctx, T *dest, int pe), T one = 1;                          \
                  weft_api_amo(call, ctx, WEFT_AMO_ADD, WEFT_DT_##D, dest, &one, NULL,     \
                               NULL, pe, 0))                                              \
    WEFT_AMO_PAIR(T, N, atomic_fetch_add, (T * dest, T value, int pe),                    \
                  (shmem_ctx_t ctx, T *dest, T value, int pe),                            \
                  WEFT_AMO_FETCHING(call, ctx, WEFT_AMO_ADD, D, T, dest, &value, NULL,     \
                                    pe))                                                  \
    WEFT_AMO_PAIR(void, N, atomic_add, (T * dest, T value, int pe),                       \
                  (shmem_ctx_t ctx, T *dest, T value, int pe),                            \
                  weft_api_amo(call, ctx, WEFT_AMO_ADD, WEFT_DT_##D, dest, &value, NULL,   \
                               NULL, pe, 0))                                              \
    WEFT_AMO_PAIR(T, N, atomic_compare_swap, (T * dest, T cond, T value, int pe),         \
                  (shmem_ctx_t ctx, T *dest, T cond, T value, int pe),                    \
                  WEFT_AMO_FETCHING(call, ctx, WEFT_AMO_CSWAP, D, T, dest, &value, &cond,  \
                                    pe))                                                  \
    WEFT_AMO_PAIR(void, N, atomic_fetch_inc_nbi, (T * fetch, T * dest, int pe),           \
                  (shmem_ctx_t ctx, T *fetch, T *dest, int pe), T one = 1;                \
                  weft_api_amo(call, ctx, WEFT_AMO_ADD, WEFT_DT_##D, dest, &one, NULL,     \
                               fetch, pe, 1))                                             \
    WEFT_AMO_PAIR(void, N, atomic_fetch_add_nbi, (T * fetch, T * dest, T value, int pe),  \
                  (shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe),                  \
                  weft_api_amo(call, ctx, WEFT_AMO_ADD, WEFT_DT_##D, dest, &value, NULL,   \
                               fetch, pe, 1))                                             \
    WEFT_AMO_PAIR(void, N, atomic_compare_swap_nbi,                                       \
                  (T * fetch, T * dest, T cond, T value, int pe),                         \
                  (shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, int pe),          \
                  weft_api_amo(call, ctx, WEFT_AMO_CSWAP, WEFT_DT_##D, dest, &value,       \
                               &cond, fetch, pe, 1))
WEFT_AMO_STD_TYPES(WEFT_DEF_AMO_STD)

#define WEFT_DEF_AMO_EXT(N, T, D, G)                                                      \
    WEFT_AMO_PAIR(T, N, atomic_fetch, (const T *source, int pe),                          \
                  (shmem_ctx_t ctx, const T *source, int pe),                             \
                  WEFT_AMO_FETCHING(call, ctx, WEFT_AMO_FETCH, D, T, source, NULL, NULL,   \
                                    pe))                                                  \
    WEFT_AMO_PAIR(void, N, atomic_set, (T * dest, T value, int pe),                       \
                  (shmem_ctx_t ctx, T *dest, T value, int pe),                            \
                  weft_api_amo(call, ctx, WEFT_AMO_SET, WEFT_DT_##D, dest, &value, NULL,   \
                               NULL, pe, 0))                                              \
    WEFT_AMO_PAIR(T, N, atomic_swap, (T * dest, T value, int pe),                         \
                  (shmem_ctx_t ctx, T *dest, T value, int pe),                            \
                  WEFT_AMO_FETCHING(call, ctx, WEFT_AMO_SWAP, D, T, dest, &value, NULL,    \
                                    pe))                                                  \
    WEFT_AMO_PAIR(void, N, atomic_fetch_nbi, (T * fetch, const T *source, int pe),        \
                  (shmem_ctx_t ctx, T *fetch, const T *source, int pe),                   \
                  weft_api_amo(call, ctx, WEFT_AMO_FETCH, WEFT_DT_##D, source, NULL, NULL, \
                               fetch, pe, 1))                                             \
    WEFT_AMO_PAIR(void, N, atomic_swap_nbi, (T * fetch, T * dest, T value, int pe),       \
                  (shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe),                  \
                  weft_api_amo(call, ctx, WEFT_AMO_SWAP, WEFT_DT_##D, dest, &value, NULL,  \
                               fetch, pe, 1))
WEFT_AMO_EXT_TYPES(WEFT_DEF_AMO_EXT)

#define WEFT_DEF_AMO_BIT_OP(N, T, D, OP, OPNAME)                                          \
    WEFT_AMO_PAIR(T, N, atomic_fetch_##OPNAME, (T * dest, T value, int pe),               \
                  (shmem_ctx_t ctx, T *dest, T value, int pe),                            \
                  WEFT_AMO_FETCHING(call, ctx, OP, D, T, dest, &value, NULL, pe))          \
    WEFT_AMO_PAIR(void, N, atomic_##OPNAME, (T * dest, T value, int pe),                  \
                  (shmem_ctx_t ctx, T *dest, T value, int pe),                            \
                  weft_api_amo(call, ctx, OP, WEFT_DT_##D, dest, &value, NULL, NULL, pe,   \
                               0))                                                        \
    WEFT_AMO_PAIR(void, N, atomic_fetch_##OPNAME##_nbi,                                   \
                  (T * fetch, T * dest, T value, int pe),                                 \
                  (shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe),                  \
                  weft_api_amo(call, ctx, OP, WEFT_DT_##D, dest, &value, NULL, fetch, pe,  \
                               1))
#define WEFT_DEF_AMO_BIT(N, T, D, G)                                                      \
    WEFT_DEF_AMO_BIT_OP(N, T, D, WEFT_AMO_AND, and)                                       \
    WEFT_DEF_AMO_BIT_OP(N, T, D, WEFT_AMO_OR, or)                                         \
    WEFT_DEF_AMO_BIT_OP(N, T, D, WEFT_AMO_XOR, xor)
WEFT_AMO_BIT_TYPES(WEFT_DEF_AMO_BIT)

/* Deprecated names (OpenSHMEM <= 1.3) are their replacements under another
 * name: aliases, so no call goes through a name a profiling tool may own. */
#define WEFT_DEF_AMO_DEPR_INT(N, T, D, G)                                                 \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                 \
        WEFT_ALIAS_OF(shmem_##N##_atomic_compare_swap);                                   \
    T shmem_##N##_finc(T *dest, int pe) WEFT_ALIAS_OF(shmem_##N##_atomic_fetch_inc);      \
    void shmem_##N##_inc(T *dest, int pe) WEFT_ALIAS_OF(shmem_##N##_atomic_inc);          \
    T shmem_##N##_fadd(T *dest, T value, int pe) WEFT_ALIAS_OF(shmem_##N##_atomic_fetch_add); \
    void shmem_##N##_add(T *dest, T value, int pe) WEFT_ALIAS_OF(shmem_##N##_atomic_add);
WEFT_AMO_STD_TYPES(WEFT_DEF_AMO_DEPR_INT)

#define WEFT_DEF_AMO_DEPR_EXT(N, T, D, G)                                                 \
    T shmem_##N##_swap(T *dest, T value, int pe) WEFT_ALIAS_OF(shmem_##N##_atomic_swap);  \
    T shmem_##N##_fetch(const T *source, int pe) WEFT_ALIAS_OF(shmem_##N##_atomic_fetch); \
    void shmem_##N##_set(T *dest, T value, int pe) WEFT_ALIAS_OF(shmem_##N##_atomic_set);
WEFT_AMO_EXT_TYPES(WEFT_DEF_AMO_DEPR_EXT)

long(shmem_swap)(long *dest, long value, int pe) WEFT_ALIAS_OF(shmem_long_atomic_swap);

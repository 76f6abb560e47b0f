/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_ops.h owns the element-wise reduction kernels, one per (type, op),
 * generated from the tables of weft/types.h: weft_red_NAME_OP(out, a, b, n)
 * computes out[i] = a[i] OP b[i]; out may be a or b. Included by the files
 * that define the typed reduction and scan routines. */
#ifndef WEFT_API_COLL_OPS_H
#define WEFT_API_COLL_OPS_H

#include "api/coll.h"

#define WEFT_RED_KERNEL(N, T, OP, EXPR)                                                   \
    static inline void weft_red_##N##_##OP(void *out, const void *a, const void *b,       \
                                           size_t n)                                      \
    {                                                                                     \
        T *o = (T *)out;                                                                  \
        const T *x = (const T *)a, *y = (const T *)b;                                     \
        for (size_t i = 0; i < n; i++) {                                                  \
            T u = x[i], v = y[i];                                                         \
            o[i] = (T)(EXPR);                                                             \
        }                                                                                 \
    }
#define WEFT_RED_KERNELS_BITWISE(N, T, D, G)                                              \
    WEFT_RED_KERNEL(N, T, and, u & v)                                                     \
    WEFT_RED_KERNEL(N, T, or, u | v) WEFT_RED_KERNEL(N, T, xor, u ^ v)
#define WEFT_RED_KERNELS_MINMAX(N, T, D, G)                                               \
    WEFT_RED_KERNEL(N, T, max, u > v ? u : v) WEFT_RED_KERNEL(N, T, min, u < v ? u : v)
#define WEFT_RED_KERNELS_ARITH(N, T, D, G)                                                \
    WEFT_RED_KERNEL(N, T, sum, u + v) WEFT_RED_KERNEL(N, T, prod, u * v)

WEFT_REDUCE_BITWISE_TYPES(WEFT_RED_KERNELS_BITWISE)
WEFT_TO_ALL_BITWISE_TYPES(WEFT_RED_KERNELS_BITWISE) /* signed: active-set only */
WEFT_REDUCE_MINMAX_TYPES(WEFT_RED_KERNELS_MINMAX)
WEFT_REDUCE_ARITH_TYPES(WEFT_RED_KERNELS_ARITH)

#endif

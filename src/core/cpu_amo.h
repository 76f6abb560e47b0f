/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu_amo.h owns the one implementation of every OpenSHMEM atomic with CPU
 * atomic instructions on a local address. The direct on-node path calls it
 * on a peer's mapped memory, the libfabric software path calls it at the
 * target; both use the same instructions, so they are atomic with respect
 * to each other (see the atomicity rule in transport/node/node.h). */
#ifndef WEFT_CPU_AMO_H
#define WEFT_CPU_AMO_H

#include <stdint.h>
#include <string.h>

#include "core/runtime.h"

/* Floating-point add has no CPU instruction: a compare-exchange loop on the
 * bit pattern. */
#define WEFT_CPU_FADD(T, FT, a, v, old)                                                   \
    do {                                                                                  \
        old = __atomic_load_n(a, __ATOMIC_RELAXED);                                       \
        for (;;) {                                                                        \
            FT fo, fv, fn;                                                                \
            T n;                                                                          \
            memcpy(&fo, &old, sizeof fo);                                                 \
            memcpy(&fv, &v, sizeof fv);                                                   \
            fn = fo + fv;                                                                 \
            memcpy(&n, &fn, sizeof n);                                                    \
            if (__atomic_compare_exchange_n(a, &old, n, 0, __ATOMIC_SEQ_CST,              \
                                            __ATOMIC_RELAXED))                            \
                break;                                                                    \
        }                                                                                 \
    } while (0)

#define WEFT_CPU_AMO_SIZED(T, FT, ISF)                                                    \
    do {                                                                                  \
        T *a = (T *)addr, v = 0, c, old = 0;                                              \
        if (operand)                                                                      \
            memcpy(&v, operand, sizeof v);                                                \
        switch (op) {                                                                     \
        case WEFT_AMO_FETCH: old = __atomic_load_n(a, __ATOMIC_SEQ_CST); break;           \
        case WEFT_AMO_SET: __atomic_store_n(a, v, __ATOMIC_SEQ_CST); break;               \
        case WEFT_AMO_SWAP: old = __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); break;     \
        case WEFT_AMO_CSWAP:                                                              \
            memcpy(&c, compare, sizeof c);                                                \
            old = c;                                                                      \
            __atomic_compare_exchange_n(a, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            break;                                                                        \
        case WEFT_AMO_ADD:                                                                \
            if (ISF)                                                                      \
                WEFT_CPU_FADD(T, FT, a, v, old);                                          \
            else                                                                          \
                old = __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                         \
            break;                                                                        \
        case WEFT_AMO_AND: old = __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); break;       \
        case WEFT_AMO_OR: old = __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); break;         \
        case WEFT_AMO_XOR: old = __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); break;       \
        default: break;                                                                   \
        }                                                                                 \
        if (result)                                                                       \
            memcpy(result, &old, sizeof old);                                             \
    } while (0)

/* Apply op to the element of type dt at addr (aligned). operand/compare
 * point to one element; result (may be NULL) receives the old value.
 * Inline so that constant op/dt fold to a single instruction. Callers have
 * already rejected bitwise ops on floating-point types. */
static inline void weft_cpu_amo(enum weft_amo_op op, enum weft_dtype dt, void *addr,
                                const void *operand, const void *compare, void *result)
{
    switch (dt) {
    case WEFT_DT_F32: WEFT_CPU_AMO_SIZED(uint32_t, float, 1); break;
    case WEFT_DT_F64: WEFT_CPU_AMO_SIZED(uint64_t, double, 1); break;
    case WEFT_DT_I32:
    case WEFT_DT_U32: WEFT_CPU_AMO_SIZED(uint32_t, float, 0); break;
    default: WEFT_CPU_AMO_SIZED(uint64_t, double, 0); break;
    }
}

#endif

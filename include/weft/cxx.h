/* SPDX-License-Identifier: BSD-3-Clause */
/* weft/cxx.h owns the C++ form of shmem.h's generic routines: one inline
 * overload per (generic routine, type), generated from the tables of
 * weft/types.h, each forwarding to the typed C routine. It mirrors
 * weft/generic.h (C11 _Generic) and weft/collectives.h routine for routine,
 * including the context forms shmem_put(ctx, dest, src, n, pe) and
 * shmem_signal_set(ctx, sig_addr, signal, pe), the deprecated generic names
 * and shmem_sync(team), plus std::complex forms of the complex reductions
 * and scans. shmem.h includes it; it is not meant to be included on its own. */
#ifndef WEFT_CXX_H
#define WEFT_CXX_H

#ifndef __cplusplus
#error "weft/cxx.h is the C++ half of shmem.h; C programs get weft/generic.h"
#endif

/* extern "C++": old programs include shmem.h inside extern "C" { }, which
 * would otherwise give these overloads C linkage and make them clash. */
extern "C++" {

#include <complex>

#define WEFT_CXX_UNPAREN(...) __VA_ARGS__

/* shmem_OP PARAMS for one table row, forwarding to shmem_NAME_OP. Only rows
 * with GEN = 1 produce an overload: a GEN = 0 row is a typedef of another
 * row's type (int64_t is long), so its overload would be a redefinition.
 * `return` of a void call is valid C++, so one form serves every result. */
#define WEFT_CXX_PLAIN(GEN, NAME, RET, OP, PARAMS, ARGS)                                   \
    WEFT_IF_GEN_##GEN(inline RET shmem_##OP PARAMS { return shmem_##NAME##_##OP ARGS; })

/* The same plus the context form shmem_OP(ctx, PARAMS) forwarding to
 * shmem_ctx_NAME_OP. The two differ in arity, so they never compete. */
#define WEFT_CXX_WITH_CTX(GEN, NAME, RET, OP, PARAMS, ARGS)                                \
    WEFT_CXX_PLAIN(GEN, NAME, RET, OP, PARAMS, ARGS)                                       \
    WEFT_IF_GEN_##GEN(inline RET shmem_##OP(shmem_ctx_t ctx, WEFT_CXX_UNPAREN PARAMS) {    \
        return shmem_ctx_##NAME##_##OP(ctx, WEFT_CXX_UNPAREN ARGS);                        \
    })

/* ---- RMA ------------------------------------------------------------------ */
#define WEFT_CXX_RMA(N, T, D, G)                                                           \
    WEFT_CXX_WITH_CTX(G, N, void, put, (T *dest, const T *source, size_t nelems, int pe),  \
                      (dest, source, nelems, pe))                                          \
    WEFT_CXX_WITH_CTX(G, N, void, get, (T *dest, const T *source, size_t nelems, int pe),  \
                      (dest, source, nelems, pe))                                          \
    WEFT_CXX_WITH_CTX(G, N, void, put_nbi,                                                 \
                      (T *dest, const T *source, size_t nelems, int pe),                   \
                      (dest, source, nelems, pe))                                          \
    WEFT_CXX_WITH_CTX(G, N, void, get_nbi,                                                 \
                      (T *dest, const T *source, size_t nelems, int pe),                   \
                      (dest, source, nelems, pe))                                          \
    WEFT_CXX_WITH_CTX(G, N, void, p, (T *dest, T value, int pe), (dest, value, pe))        \
    WEFT_CXX_WITH_CTX(G, N, T, g, (const T *source, int pe), (source, pe))                 \
    WEFT_CXX_WITH_CTX(G, N, void, iput,                                                    \
                      (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,             \
                       size_t nelems, int pe),                                             \
                      (dest, source, dst, sst, nelems, pe))                                \
    WEFT_CXX_WITH_CTX(G, N, void, iget,                                                    \
                      (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,             \
                       size_t nelems, int pe),                                             \
                      (dest, source, dst, sst, nelems, pe))
WEFT_RMA_TYPES(WEFT_CXX_RMA)
#undef WEFT_CXX_RMA

/* Put-with-signal (1.5) and interleaved block transfers (1.6), over the RMA
 * types like their C11 generics. */
#define WEFT_CXX_RMA_SIGNAL_BLOCK(N, T, D, G)                                              \
    WEFT_CXX_WITH_CTX(G, N, void, put_signal,                                              \
                      (T *dest, const T *source, size_t nelems, uint64_t *sig_addr,        \
                       uint64_t signal, int sig_op, int pe),                               \
                      (dest, source, nelems, sig_addr, signal, sig_op, pe))                \
    WEFT_CXX_WITH_CTX(G, N, void, put_signal_nbi,                                          \
                      (T *dest, const T *source, size_t nelems, uint64_t *sig_addr,        \
                       uint64_t signal, int sig_op, int pe),                               \
                      (dest, source, nelems, sig_addr, signal, sig_op, pe))                \
    WEFT_CXX_WITH_CTX(G, N, void, ibput,                                                   \
                      (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,             \
                       size_t bsize, size_t nblocks, int pe),                              \
                      (dest, source, dst, sst, bsize, nblocks, pe))                        \
    WEFT_CXX_WITH_CTX(G, N, void, ibget,                                                   \
                      (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,             \
                       size_t bsize, size_t nblocks, int pe),                              \
                      (dest, source, dst, sst, bsize, nblocks, pe))
WEFT_RMA_TYPES(WEFT_CXX_RMA_SIGNAL_BLOCK)
#undef WEFT_CXX_RMA_SIGNAL_BLOCK

/* shmem_signal_set / shmem_signal_add (1.6) are untyped: the plain form is
 * the C routine itself, and, as in weft/generic.h, the only generic form is
 * the one with a leading context, which goes to shmem_ctx_signal_OP. */
#define WEFT_CXX_SIGNAL_UPDATE(OP)                                                         \
    inline void shmem_##OP(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)   \
    {                                                                                      \
        shmem_ctx_##OP(ctx, sig_addr, signal, pe);                                         \
    }
WEFT_CXX_SIGNAL_UPDATE(signal_set)
WEFT_CXX_SIGNAL_UPDATE(signal_add)
#undef WEFT_CXX_SIGNAL_UPDATE

/* ---- AMOs --------------------------------------------------------------------- */
/* Extended AMOs (table 7). */
#define WEFT_CXX_AMO_EXT(N, T, D, G)                                                       \
    WEFT_CXX_WITH_CTX(G, N, T, atomic_fetch, (const T *source, int pe), (source, pe))      \
    WEFT_CXX_WITH_CTX(G, N, void, atomic_set, (T *dest, T value, int pe),                  \
                      (dest, value, pe))                                                   \
    WEFT_CXX_WITH_CTX(G, N, T, atomic_swap, (T *dest, T value, int pe), (dest, value, pe)) \
    WEFT_CXX_WITH_CTX(G, N, void, atomic_fetch_nbi, (T *fetch, const T *source, int pe),   \
                      (fetch, source, pe))                                                 \
    WEFT_CXX_WITH_CTX(G, N, void, atomic_swap_nbi, (T *fetch, T *dest, T value, int pe),   \
                      (fetch, dest, value, pe))
WEFT_AMO_EXT_TYPES(WEFT_CXX_AMO_EXT)
#undef WEFT_CXX_AMO_EXT

/* Standard AMOs (table 6). */
#define WEFT_CXX_AMO_STD(N, T, D, G)                                                       \
    WEFT_CXX_WITH_CTX(G, N, T, atomic_compare_swap, (T *dest, T cond, T value, int pe),    \
                      (dest, cond, value, pe))                                             \
    WEFT_CXX_WITH_CTX(G, N, T, atomic_fetch_inc, (T *dest, int pe), (dest, pe))            \
    WEFT_CXX_WITH_CTX(G, N, void, atomic_inc, (T *dest, int pe), (dest, pe))               \
    WEFT_CXX_WITH_CTX(G, N, T, atomic_fetch_add, (T *dest, T value, int pe),               \
                      (dest, value, pe))                                                   \
    WEFT_CXX_WITH_CTX(G, N, void, atomic_add, (T *dest, T value, int pe),                  \
                      (dest, value, pe))                                                   \
    WEFT_CXX_WITH_CTX(G, N, void, atomic_compare_swap_nbi,                                 \
                      (T *fetch, T *dest, T cond, T value, int pe),                        \
                      (fetch, dest, cond, value, pe))                                      \
    WEFT_CXX_WITH_CTX(G, N, void, atomic_fetch_inc_nbi, (T *fetch, T *dest, int pe),       \
                      (fetch, dest, pe))                                                   \
    WEFT_CXX_WITH_CTX(G, N, void, atomic_fetch_add_nbi,                                    \
                      (T *fetch, T *dest, T value, int pe), (fetch, dest, value, pe))
WEFT_AMO_STD_TYPES(WEFT_CXX_AMO_STD)
#undef WEFT_CXX_AMO_STD

/* Bitwise AMOs (table 8): the three routines of one operation. The operation
 * is spelled out in full names (atomic_and, ...) rather than passed as `and`,
 * which C++ reads as the alternative token for &&. */
#define WEFT_CXX_AMO_BIT_OP(N, T, G, FETCH, PLAIN, FETCH_NBI)                              \
    WEFT_CXX_WITH_CTX(G, N, T, FETCH, (T *dest, T value, int pe), (dest, value, pe))       \
    WEFT_CXX_WITH_CTX(G, N, void, PLAIN, (T *dest, T value, int pe), (dest, value, pe))    \
    WEFT_CXX_WITH_CTX(G, N, void, FETCH_NBI, (T *fetch, T *dest, T value, int pe),         \
                      (fetch, dest, value, pe))
#define WEFT_CXX_AMO_BIT(N, T, D, G)                                                       \
    WEFT_CXX_AMO_BIT_OP(N, T, G, atomic_fetch_and, atomic_and, atomic_fetch_and_nbi)       \
    WEFT_CXX_AMO_BIT_OP(N, T, G, atomic_fetch_or, atomic_or, atomic_fetch_or_nbi)          \
    WEFT_CXX_AMO_BIT_OP(N, T, G, atomic_fetch_xor, atomic_xor, atomic_fetch_xor_nbi)
WEFT_AMO_BIT_TYPES(WEFT_CXX_AMO_BIT)
#undef WEFT_CXX_AMO_BIT
#undef WEFT_CXX_AMO_BIT_OP

/* ---- point-to-point synchronization (no context form) ------------------------- */
#define WEFT_CXX_P2P(N, T, D, G)                                                           \
    WEFT_CXX_PLAIN(G, N, void, wait_until, (T *ivar, int cmp, T cmp_value),                \
                   (ivar, cmp, cmp_value))                                                 \
    WEFT_CXX_PLAIN(G, N, void, wait_until_all,                                             \
                   (T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),     \
                   (ivars, nelems, status, cmp, cmp_value))                                \
    WEFT_CXX_PLAIN(G, N, size_t, wait_until_any,                                           \
                   (T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),     \
                   (ivars, nelems, status, cmp, cmp_value))                                \
    WEFT_CXX_PLAIN(G, N, size_t, wait_until_some,                                          \
                   (T *ivars, size_t nelems, size_t *indices, const int *status,           \
                    int cmp, T cmp_value),                                                 \
                   (ivars, nelems, indices, status, cmp, cmp_value))                       \
    WEFT_CXX_PLAIN(G, N, void, wait_until_all_vector,                                      \
                   (T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values),   \
                   (ivars, nelems, status, cmp, cmp_values))                               \
    WEFT_CXX_PLAIN(G, N, size_t, wait_until_any_vector,                                    \
                   (T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values),   \
                   (ivars, nelems, status, cmp, cmp_values))                               \
    WEFT_CXX_PLAIN(G, N, size_t, wait_until_some_vector,                                   \
                   (T *ivars, size_t nelems, size_t *indices, const int *status,           \
                    int cmp, T *cmp_values),                                               \
                   (ivars, nelems, indices, status, cmp, cmp_values))                      \
    WEFT_CXX_PLAIN(G, N, int, test, (T *ivar, int cmp, T cmp_value),                       \
                   (ivar, cmp, cmp_value))                                                 \
    WEFT_CXX_PLAIN(G, N, int, test_all,                                                    \
                   (T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),     \
                   (ivars, nelems, status, cmp, cmp_value))                                \
    WEFT_CXX_PLAIN(G, N, size_t, test_any,                                                 \
                   (T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),     \
                   (ivars, nelems, status, cmp, cmp_value))                                \
    WEFT_CXX_PLAIN(G, N, size_t, test_some,                                                \
                   (T *ivars, size_t nelems, size_t *indices, const int *status,           \
                    int cmp, T cmp_value),                                                 \
                   (ivars, nelems, indices, status, cmp, cmp_value))                       \
    WEFT_CXX_PLAIN(G, N, int, test_all_vector,                                             \
                   (T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values),   \
                   (ivars, nelems, status, cmp, cmp_values))                               \
    WEFT_CXX_PLAIN(G, N, size_t, test_any_vector,                                          \
                   (T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values),   \
                   (ivars, nelems, status, cmp, cmp_values))                               \
    WEFT_CXX_PLAIN(G, N, size_t, test_some_vector,                                         \
                   (T *ivars, size_t nelems, size_t *indices, const int *status,           \
                    int cmp, T *cmp_values),                                               \
                   (ivars, nelems, indices, status, cmp, cmp_values))
WEFT_P2P_TYPES(WEFT_CXX_P2P)
#undef WEFT_CXX_P2P

/* shmem_sync(team) of 1.5 next to the deprecated active-set
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync) of collectives.h: in C
 * the argument count picks; here plain overloading does. */
inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }

/* ---- team collectives (dispatch on dest) ------------------------------------- */
#define WEFT_CXX_COLL(N, T, D, G)                                                          \
    WEFT_CXX_PLAIN(G, N, int, broadcast,                                                   \
                   (shmem_team_t team, T *dest, const T *source, size_t nelems,            \
                    int PE_root),                                                          \
                   (team, dest, source, nelems, PE_root))                                  \
    WEFT_CXX_PLAIN(G, N, int, collect,                                                     \
                   (shmem_team_t team, T *dest, const T *source, size_t nelems),           \
                   (team, dest, source, nelems))                                           \
    WEFT_CXX_PLAIN(G, N, int, fcollect,                                                    \
                   (shmem_team_t team, T *dest, const T *source, size_t nelems),           \
                   (team, dest, source, nelems))                                           \
    WEFT_CXX_PLAIN(G, N, int, alltoall,                                                    \
                   (shmem_team_t team, T *dest, const T *source, size_t nelems),           \
                   (team, dest, source, nelems))                                           \
    WEFT_CXX_PLAIN(G, N, int, alltoalls,                                                   \
                   (shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,            \
                    ptrdiff_t sst, size_t nelems),                                         \
                   (team, dest, source, dst, sst, nelems))
WEFT_RMA_TYPES(WEFT_CXX_COLL)
#undef WEFT_CXX_COLL

/* The non-blocking broadcast and alltoall of the committee's draft. */
#define WEFT_CXX_COLL_NB(N, T, D, G)                                                       \
    WEFT_CXX_PLAIN(G, N, int, broadcast_nb,                                                \
                   (shmem_team_t team, T *dest, const T *source, size_t nelems,            \
                    int PE_root, shmem_req_h *request),                                    \
                   (team, dest, source, nelems, PE_root, request))                         \
    WEFT_CXX_PLAIN(G, N, int, alltoall_nb,                                                 \
                   (shmem_team_t team, T *dest, const T *source, size_t nelems,            \
                    shmem_req_h *request),                                                 \
                   (team, dest, source, nelems, request))
WEFT_RMA_TYPES(WEFT_CXX_COLL_NB)
#undef WEFT_CXX_COLL_NB

/* Reductions and scans: every one has the parameters of shmem_OP below. */
#define WEFT_CXX_REDUCE_ONE(N, T, G, OP)                                                   \
    WEFT_CXX_PLAIN(G, N, int, OP,                                                          \
                   (shmem_team_t team, T *dest, const T *source, size_t nreduce),          \
                   (team, dest, source, nreduce))
#define WEFT_CXX_REDUCE_BITWISE(N, T, D, G)                                                \
    WEFT_CXX_REDUCE_ONE(N, T, G, and_reduce)                                               \
    WEFT_CXX_REDUCE_ONE(N, T, G, or_reduce)                                                \
    WEFT_CXX_REDUCE_ONE(N, T, G, xor_reduce)
#define WEFT_CXX_REDUCE_MINMAX(N, T, D, G)                                                 \
    WEFT_CXX_REDUCE_ONE(N, T, G, max_reduce)                                               \
    WEFT_CXX_REDUCE_ONE(N, T, G, min_reduce)
#define WEFT_CXX_REDUCE_ARITH(N, T, D, G)                                                  \
    WEFT_CXX_REDUCE_ONE(N, T, G, sum_reduce)                                               \
    WEFT_CXX_REDUCE_ONE(N, T, G, prod_reduce)
#define WEFT_CXX_SCAN(N, T, D, G)                                                          \
    WEFT_CXX_REDUCE_ONE(N, T, G, sum_inscan)                                               \
    WEFT_CXX_REDUCE_ONE(N, T, G, sum_exscan)
WEFT_REDUCE_BITWISE_TYPES(WEFT_CXX_REDUCE_BITWISE)
WEFT_REDUCE_MINMAX_TYPES(WEFT_CXX_REDUCE_MINMAX)
WEFT_REDUCE_ARITH_TYPES(WEFT_CXX_REDUCE_ARITH)
WEFT_SCAN_TYPES(WEFT_CXX_SCAN)
#undef WEFT_CXX_REDUCE_BITWISE
#undef WEFT_CXX_REDUCE_MINMAX
#undef WEFT_CXX_REDUCE_ARITH
#undef WEFT_CXX_SCAN
#undef WEFT_CXX_REDUCE_ONE

/* std::complex for the complex rows (weft_complexd_t, weft_complexf_t):
 * WEFT_CXX_STD_<NAME> is the std::complex counterpart of row NAME. The
 * layouts are the same (two reals, real part first: C11 6.2.5, C++
 * [complex.numbers]), so these overloads pass the pointers on cast. They
 * exist for the generic names and, since C++ can overload them too, for the
 * typed names shmem_complexd_sum_reduce and the like. */
#define WEFT_CXX_STD_complexd std::complex<double>
#define WEFT_CXX_STD_complexf std::complex<float>
#define WEFT_CXX_STD_COMPLEX_ONE(FN, TYPED, N, T)                                          \
    inline int FN(shmem_team_t team, WEFT_CXX_STD_##N *dest, const WEFT_CXX_STD_##N *source, \
                  size_t nreduce)                                                          \
    {                                                                                      \
        return TYPED(team, reinterpret_cast<T *>(dest), reinterpret_cast<const T *>(source), \
                     nreduce);                                                             \
    }
#define WEFT_CXX_STD_COMPLEX_OP(N, T, OP)                                                  \
    WEFT_CXX_STD_COMPLEX_ONE(shmem_##OP, shmem_##N##_##OP, N, T)                           \
    WEFT_CXX_STD_COMPLEX_ONE(shmem_##N##_##OP, shmem_##N##_##OP, N, T)
/* The complex rows take part in SUM/PROD (WEFT_REDUCE_ARITH_TYPES) and in
 * the scans (WEFT_SCAN_TYPES, the same rows). */
#define WEFT_CXX_STD_COMPLEX(N, T, D, G)                                                   \
    WEFT_CXX_STD_COMPLEX_OP(N, T, sum_reduce) WEFT_CXX_STD_COMPLEX_OP(N, T, prod_reduce)   \
    WEFT_CXX_STD_COMPLEX_OP(N, T, sum_inscan) WEFT_CXX_STD_COMPLEX_OP(N, T, sum_exscan)
WEFT_REDUCE_COMPLEX_TYPES(WEFT_CXX_STD_COMPLEX)
#undef WEFT_CXX_STD_COMPLEX
#undef WEFT_CXX_STD_COMPLEX_OP
#undef WEFT_CXX_STD_COMPLEX_ONE

/* ---- deprecated generic names (OpenSHMEM 1.3) ------------------------------- */
/* The long rows also stand in for the untyped 1.0 routines shmem_wait,
 * shmem_wait_until and shmem_swap, which shmem.h hides from C++. */
#define WEFT_CXX_WAIT_DEPR(N, T, D, G)                                                     \
    WEFT_CXX_PLAIN(G, N, void, wait, (T *ivar, T cmp_value), (ivar, cmp_value))
WEFT_WAIT_DEPRECATED_TYPES(WEFT_CXX_WAIT_DEPR)
#undef WEFT_CXX_WAIT_DEPR

#define WEFT_CXX_AMO_DEPR_STD(N, T, D, G)                                                  \
    WEFT_CXX_PLAIN(G, N, T, cswap, (T *dest, T cond, T value, int pe),                     \
                   (dest, cond, value, pe))                                                \
    WEFT_CXX_PLAIN(G, N, T, finc, (T *dest, int pe), (dest, pe))                           \
    WEFT_CXX_PLAIN(G, N, void, inc, (T *dest, int pe), (dest, pe))                         \
    WEFT_CXX_PLAIN(G, N, T, fadd, (T *dest, T value, int pe), (dest, value, pe))           \
    WEFT_CXX_PLAIN(G, N, void, add, (T *dest, T value, int pe), (dest, value, pe))
WEFT_AMO_STD_TYPES(WEFT_CXX_AMO_DEPR_STD)
#undef WEFT_CXX_AMO_DEPR_STD

#define WEFT_CXX_AMO_DEPR_EXT(N, T, D, G)                                                  \
    WEFT_CXX_PLAIN(G, N, T, swap, (T *dest, T value, int pe), (dest, value, pe))           \
    WEFT_CXX_PLAIN(G, N, T, fetch, (const T *source, int pe), (source, pe))                \
    WEFT_CXX_PLAIN(G, N, void, set, (T *dest, T value, int pe), (dest, value, pe))
WEFT_AMO_EXT_TYPES(WEFT_CXX_AMO_DEPR_EXT)
#undef WEFT_CXX_AMO_DEPR_EXT

#undef WEFT_CXX_WITH_CTX
#undef WEFT_CXX_PLAIN
#undef WEFT_CXX_UNPAREN

} /* extern "C++" */

#endif

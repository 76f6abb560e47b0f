/* SPDX-License-Identifier: BSD-3-Clause */
/* wrappers.c owns the traffic recorder's definitions of the OpenSHMEM
 * routines that communicate or wait: each calls the routine's profiling
 * name (pshmem_...) and records what it did (record.c). They are generated
 * from the type tables of weft/types.h, the tables libweft's own routines
 * and shmem.h's declarations come from, one macro per shape of parameter
 * list; shmem.h's declarations check every signature at compile time, and
 * the ctest traffic.coverage checks that every routine of libweft is either
 * wrapped here or listed as not communicating (tools/traffic/check-coverage).
 * Generic routines (C11 _Generic, C++ overloads) resolve to these typed
 * names, so they are recorded too.
 *
 * Bytes: nelems * sizeof(element) for RMA, the element for an AMO, data +
 * 8 for put-with-signal and 8 for a signal update (docs/traffic.md). */
#include <pshmem.h>

#include "traffic.h"

#define TR_UNPAREN(...) __VA_ARGS__
/* Calls m with the arguments after it expanded first, so that a shape
 * macro can stand for the two arguments PARAMS, ARGS. */
#define TR_CALL(m, ...) m(__VA_ARGS__)

/* ---- one wrapper ------------------------------------------------------------
 * The name is parenthesized: some plain names are also generic macros. */
#define TR_V(NAME, PARAMS, ARGS, PRE, POST)                                              \
    void(NAME) PARAMS                                                                    \
    {                                                                                    \
        PRE;                                                                             \
        p##NAME ARGS;                                                                    \
        POST;                                                                            \
    }
#define TR_R(RET, NAME, PARAMS, ARGS, PRE, POST)                                         \
    RET(NAME) PARAMS                                                                     \
    {                                                                                    \
        PRE;                                                                             \
        RET tr_ret = p##NAME ARGS;                                                       \
        POST;                                                                            \
        return tr_ret;                                                                   \
    }
#define TR_NOTHING (void)0
#define TR_T0 uint64_t tr_t0 = tr_now()

/* An operation in its default-context form NAME and its context form CNAME
 * (the same parameters after a shmem_ctx_t). */
#define TR_OP_V(NAME, CNAME, PARAMS, ARGS, KIND, BYTES)                                  \
    TR_V(NAME, PARAMS, ARGS, TR_NOTHING, tr_op(pe, KIND, BYTES))                         \
    TR_V(CNAME, (shmem_ctx_t ctx, TR_UNPAREN PARAMS), (ctx, TR_UNPAREN ARGS), TR_NOTHING, \
         tr_op_ctx(ctx, pe, KIND, BYTES))
#define TR_OP_R(RET, NAME, CNAME, PARAMS, ARGS, KIND, BYTES)                             \
    TR_R(RET, NAME, PARAMS, ARGS, TR_NOTHING, tr_op(pe, KIND, BYTES))                    \
    TR_R(RET, CNAME, (shmem_ctx_t ctx, TR_UNPAREN PARAMS), (ctx, TR_UNPAREN ARGS),       \
         TR_NOTHING, tr_op_ctx(ctx, pe, KIND, BYTES))
/* An operation that exists only without a context (deprecated names). */
#define TR_OP1_V(NAME, PARAMS, ARGS, KIND, BYTES)                                        \
    TR_V(NAME, PARAMS, ARGS, TR_NOTHING, tr_op(pe, KIND, BYTES))
#define TR_OP1_R(RET, NAME, PARAMS, ARGS, KIND, BYTES)                                   \
    TR_R(RET, NAME, PARAMS, ARGS, TR_NOTHING, tr_op(pe, KIND, BYTES))
/* A wait of kind W. */
#define TR_WAIT_V(NAME, PARAMS, ARGS, W) TR_V(NAME, PARAMS, ARGS, TR_T0, tr_wait(W, tr_t0))
#define TR_WAIT_R(RET, NAME, PARAMS, ARGS, W)                                            \
    TR_R(RET, NAME, PARAMS, ARGS, TR_T0, tr_wait(W, tr_t0))

/* ---- shapes of parameter lists: PARAMS, ARGS ------------------------------------
 * PT is the type the pointers point to (void for the sized and mem forms),
 * ET the element. */
#define TR_CONTIG(PT) (PT * dest, const PT *source, size_t nelems, int pe), (dest, source, nelems, pe)
#define TR_STRIDED(PT)                                                                   \
    (PT * dest, const PT *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),  \
        (dest, source, dst, sst, nelems, pe)
#define TR_BLOCKS(PT)                                                                    \
    (PT * dest, const PT *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,            \
     size_t nblocks, int pe),                                                            \
        (dest, source, dst, sst, bsize, nblocks, pe)
#define TR_SIGNALED(PT)                                                                  \
    (PT * dest, const PT *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
     int sig_op, int pe),                                                                \
        (dest, source, nelems, sig_addr, signal, sig_op, pe)
#define TR_DEST(T) (T * dest, int pe), (dest, pe)
#define TR_DEST_VALUE(T) (T * dest, T value, int pe), (dest, value, pe)
#define TR_DEST_COND(T) (T * dest, T cond, T value, int pe), (dest, cond, value, pe)
#define TR_SOURCE(T) (const T *source, int pe), (source, pe)
#define TR_FETCH_DEST(T) (T * fetch, T *dest, int pe), (fetch, dest, pe)
#define TR_FETCH_VALUE(T) (T * fetch, T *dest, T value, int pe), (fetch, dest, value, pe)
#define TR_FETCH_COND(T)                                                                 \
    (T * fetch, T *dest, T cond, T value, int pe), (fetch, dest, cond, value, pe)
#define TR_FETCH_SOURCE(T) (T * fetch, const T *source, int pe), (fetch, source, pe)

/* ---- RMA and put-with-signal ---------------------------------------------------- */
#define TR_RMA_FAMILY(PUT, GET, PT, ET)                                                  \
    TR_CALL(TR_OP_V, shmem_##PUT, shmem_ctx_##PUT, TR_CONTIG(PT), TR_PUT,                \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_OP_V, shmem_##GET, shmem_ctx_##GET, TR_CONTIG(PT), TR_GET,                \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_OP_V, shmem_##PUT##_nbi, shmem_ctx_##PUT##_nbi, TR_CONTIG(PT), TR_PUT,    \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_OP_V, shmem_##GET##_nbi, shmem_ctx_##GET##_nbi, TR_CONTIG(PT), TR_GET,    \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_OP_V, shmem_##PUT##_signal, shmem_ctx_##PUT##_signal, TR_SIGNALED(PT),    \
            TR_SIGNAL, nelems * sizeof(ET) + sizeof(uint64_t))                           \
    TR_CALL(TR_OP_V, shmem_##PUT##_signal_nbi, shmem_ctx_##PUT##_signal_nbi,             \
            TR_SIGNALED(PT), TR_SIGNAL, nelems * sizeof(ET) + sizeof(uint64_t))
#define TR_STRIDED_FAMILY(IPUT, IGET, IBPUT, IBGET, PT, ET)                              \
    TR_CALL(TR_OP_V, shmem_##IPUT, shmem_ctx_##IPUT, TR_STRIDED(PT), TR_PUT,             \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_OP_V, shmem_##IGET, shmem_ctx_##IGET, TR_STRIDED(PT), TR_GET,             \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_OP_V, shmem_##IBPUT, shmem_ctx_##IBPUT, TR_BLOCKS(PT), TR_PUT,            \
            bsize * nblocks * sizeof(ET))                                                \
    TR_CALL(TR_OP_V, shmem_##IBGET, shmem_ctx_##IBGET, TR_BLOCKS(PT), TR_GET,            \
            bsize * nblocks * sizeof(ET))

#define TR_RMA_TYPED(N, T, D, G)                                                         \
    TR_RMA_FAMILY(N##_put, N##_get, T, T)                                                \
    TR_STRIDED_FAMILY(N##_iput, N##_iget, N##_ibput, N##_ibget, T, T)                    \
    TR_CALL(TR_OP_V, shmem_##N##_p, shmem_ctx_##N##_p, TR_DEST_VALUE(T), TR_PUT,         \
            sizeof(T))                                                                   \
    TR_CALL(TR_OP_R, T, shmem_##N##_g, shmem_ctx_##N##_g, TR_SOURCE(T), TR_GET, sizeof(T))
WEFT_RMA_TYPES(TR_RMA_TYPED)

#define TR_RMA_SIZED(B, T)                                                               \
    TR_RMA_FAMILY(put##B, get##B, void, T)                                               \
    TR_STRIDED_FAMILY(iput##B, iget##B, ibput##B, ibget##B, void, T)
WEFT_RMA_SIZES(TR_RMA_SIZED)
TR_RMA_FAMILY(putmem, getmem, void, unsigned char)

TR_OP_V(shmem_signal_set, shmem_ctx_signal_set, (uint64_t * sig_addr, uint64_t signal, int pe),
        (sig_addr, signal, pe), TR_SIGNAL, sizeof(uint64_t))
TR_OP_V(shmem_signal_add, shmem_ctx_signal_add, (uint64_t * sig_addr, uint64_t signal, int pe),
        (sig_addr, signal, pe), TR_SIGNAL, sizeof(uint64_t))
TR_WAIT_R(uint64_t, shmem_signal_wait_until, (uint64_t * sig_addr, int cmp, uint64_t cmp_value),
          (sig_addr, cmp, cmp_value), TR_WAIT)

/* ---- AMOs: each moves one element ------------------------------------------------ */
#define TR_AMO_V(NAME, SHAPE, T)                                                         \
    TR_CALL(TR_OP_V, shmem_##NAME, shmem_ctx_##NAME, SHAPE(T), TR_AMO, sizeof(T))
#define TR_AMO_R(NAME, SHAPE, T)                                                         \
    TR_CALL(TR_OP_R, T, shmem_##NAME, shmem_ctx_##NAME, SHAPE(T), TR_AMO, sizeof(T))
#define TR_AMO1_V(NAME, SHAPE, T) TR_CALL(TR_OP1_V, NAME, SHAPE(T), TR_AMO, sizeof(T))
#define TR_AMO1_R(NAME, SHAPE, T) TR_CALL(TR_OP1_R, T, NAME, SHAPE(T), TR_AMO, sizeof(T))

#define TR_AMO_STD(N, T, D, G)                                                           \
    TR_AMO_R(N##_atomic_fetch_inc, TR_DEST, T)                                           \
    TR_AMO_V(N##_atomic_inc, TR_DEST, T)                                                 \
    TR_AMO_R(N##_atomic_fetch_add, TR_DEST_VALUE, T)                                     \
    TR_AMO_V(N##_atomic_add, TR_DEST_VALUE, T)                                           \
    TR_AMO_R(N##_atomic_compare_swap, TR_DEST_COND, T)                                   \
    TR_AMO_V(N##_atomic_fetch_inc_nbi, TR_FETCH_DEST, T)                                 \
    TR_AMO_V(N##_atomic_fetch_add_nbi, TR_FETCH_VALUE, T)                                \
    TR_AMO_V(N##_atomic_compare_swap_nbi, TR_FETCH_COND, T)                              \
    TR_AMO1_R(shmem_##N##_cswap, TR_DEST_COND, T)                                        \
    TR_AMO1_R(shmem_##N##_finc, TR_DEST, T)                                              \
    TR_AMO1_V(shmem_##N##_inc, TR_DEST, T)                                               \
    TR_AMO1_R(shmem_##N##_fadd, TR_DEST_VALUE, T)                                        \
    TR_AMO1_V(shmem_##N##_add, TR_DEST_VALUE, T)
WEFT_AMO_STD_TYPES(TR_AMO_STD)

#define TR_AMO_EXT(N, T, D, G)                                                           \
    TR_AMO_R(N##_atomic_fetch, TR_SOURCE, T)                                             \
    TR_AMO_V(N##_atomic_set, TR_DEST_VALUE, T)                                           \
    TR_AMO_R(N##_atomic_swap, TR_DEST_VALUE, T)                                          \
    TR_AMO_V(N##_atomic_fetch_nbi, TR_FETCH_SOURCE, T)                                   \
    TR_AMO_V(N##_atomic_swap_nbi, TR_FETCH_VALUE, T)                                     \
    TR_AMO1_R(shmem_##N##_swap, TR_DEST_VALUE, T)                                        \
    TR_AMO1_R(shmem_##N##_fetch, TR_SOURCE, T)                                           \
    TR_AMO1_V(shmem_##N##_set, TR_DEST_VALUE, T)
WEFT_AMO_EXT_TYPES(TR_AMO_EXT)

#define TR_AMO_BIT_OP(N, T, OP)                                                          \
    TR_AMO_R(N##_atomic_fetch_##OP, TR_DEST_VALUE, T)                                    \
    TR_AMO_V(N##_atomic_##OP, TR_DEST_VALUE, T)                                          \
    TR_AMO_V(N##_atomic_fetch_##OP##_nbi, TR_FETCH_VALUE, T)
#define TR_AMO_BIT(N, T, D, G)                                                           \
    TR_AMO_BIT_OP(N, T, and) TR_AMO_BIT_OP(N, T, or) TR_AMO_BIT_OP(N, T, xor)
WEFT_AMO_BIT_TYPES(TR_AMO_BIT)

/* The untyped (long) form of OpenSHMEM 1.0; C only, like its declaration. */
TR_AMO1_R(shmem_swap, TR_DEST_VALUE, long)

/* ---- point-to-point waits and tests ------------------------------------------------ */
#define TR_ONE(T) (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value)
#define TR_SET(T)                                                                        \
    (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value),                 \
        (ivars, nelems, status, cmp, cmp_value)
#define TR_SOME(T)                                                                       \
    (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value), \
        (ivars, nelems, indices, status, cmp, cmp_value)
#define TR_SET_V(T)                                                                      \
    (T * ivars, size_t nelems, const int *status, int cmp, T *cmp_values),               \
        (ivars, nelems, status, cmp, cmp_values)
#define TR_SOME_V(T)                                                                     \
    (T * ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
     T *cmp_values),                                                                     \
        (ivars, nelems, indices, status, cmp, cmp_values)
#define TR_P2P_V(NAME, SHAPE, T) TR_CALL(TR_WAIT_V, NAME, SHAPE(T), TR_WAIT)
#define TR_P2P_R(RET, NAME, SHAPE, T) TR_CALL(TR_WAIT_R, RET, NAME, SHAPE(T), TR_WAIT)

#define TR_P2P(N, T, D, G)                                                               \
    TR_P2P_V(shmem_##N##_wait_until, TR_ONE, T)                                          \
    TR_P2P_V(shmem_##N##_wait_until_all, TR_SET, T)                                      \
    TR_P2P_R(size_t, shmem_##N##_wait_until_any, TR_SET, T)                              \
    TR_P2P_R(size_t, shmem_##N##_wait_until_some, TR_SOME, T)                            \
    TR_P2P_V(shmem_##N##_wait_until_all_vector, TR_SET_V, T)                             \
    TR_P2P_R(size_t, shmem_##N##_wait_until_any_vector, TR_SET_V, T)                     \
    TR_P2P_R(size_t, shmem_##N##_wait_until_some_vector, TR_SOME_V, T)                   \
    TR_P2P_R(int, shmem_##N##_test, TR_ONE, T)                                           \
    TR_P2P_R(int, shmem_##N##_test_all, TR_SET, T)                                       \
    TR_P2P_R(size_t, shmem_##N##_test_any, TR_SET, T)                                    \
    TR_P2P_R(size_t, shmem_##N##_test_some, TR_SOME, T)                                  \
    TR_P2P_R(int, shmem_##N##_test_all_vector, TR_SET_V, T)                              \
    TR_P2P_R(size_t, shmem_##N##_test_any_vector, TR_SET_V, T)                           \
    TR_P2P_R(size_t, shmem_##N##_test_some_vector, TR_SOME_V, T)
WEFT_P2P_TYPES(TR_P2P)

#define TR_OLD_WAIT(T) (T * ivar, T cmp_value), (ivar, cmp_value)
#define TR_WAIT_DEPR(N, T, D, G) TR_P2P_V(shmem_##N##_wait, TR_OLD_WAIT, T)
WEFT_WAIT_DEPRECATED_TYPES(TR_WAIT_DEPR)
TR_P2P_V(shmem_wait, TR_OLD_WAIT, long)
TR_P2P_V(shmem_wait_until, TR_ONE, long)

TR_WAIT_V(shmem_set_lock, (long *lock), (lock), TR_WAIT)
TR_WAIT_V(shmem_clear_lock, (long *lock), (lock), TR_WAIT)
TR_WAIT_R(int, shmem_test_lock, (long *lock), (lock), TR_WAIT)

/* ---- ordering and barriers ----------------------------------------------------------- */
TR_WAIT_V(shmem_quiet, (void), (), TR_QUIET)
TR_WAIT_V(shmem_ctx_quiet, (shmem_ctx_t ctx), (ctx), TR_QUIET)
TR_WAIT_V(shmem_fence, (void), (), TR_QUIET)
TR_WAIT_V(shmem_ctx_fence, (shmem_ctx_t ctx), (ctx), TR_QUIET)
TR_WAIT_V(shmem_pe_quiet, (const int *target_pes, size_t npes), (target_pes, npes), TR_QUIET)
TR_WAIT_V(shmem_ctx_pe_quiet, (shmem_ctx_t ctx, const int *target_pes, size_t npes),
          (ctx, target_pes, npes), TR_QUIET)
TR_WAIT_V(shmem_barrier_all, (void), (), TR_BARRIER)
TR_WAIT_V(shmem_sync_all, (void), (), TR_BARRIER)
TR_WAIT_R(int, shmem_team_sync, (shmem_team_t team), (team), TR_BARRIER)
#define TR_ASET_SYNC (int PE_start, int logPE_stride, int PE_size, long *pSync)
TR_WAIT_V(shmem_barrier, TR_ASET_SYNC, (PE_start, logPE_stride, PE_size, pSync), TR_BARRIER)
TR_WAIT_V(shmem_sync, TR_ASET_SYNC, (PE_start, logPE_stride, PE_size, pSync), TR_BARRIER)

/* ---- collectives over teams ------------------------------------------------------------ */
#define TR_TEAM(RET, NAME, PARAMS, ARGS, PATTERN, ROOT, BYTES)                           \
    TR_R(RET, NAME, PARAMS, ARGS, TR_T0, tr_coll_team(team, PATTERN, ROOT, BYTES, tr_t0))
#define TR_TEAM_CONTIG(PT)                                                               \
    (shmem_team_t team, PT * dest, const PT *source, size_t nelems),                     \
        (team, dest, source, nelems)
#define TR_TEAM_STRIDED(PT)                                                              \
    (shmem_team_t team, PT * dest, const PT *source, ptrdiff_t dst, ptrdiff_t sst,       \
     size_t nelems),                                                                     \
        (team, dest, source, dst, sst, nelems)
#define TR_TEAM_ROOTED(PT)                                                               \
    (shmem_team_t team, PT * dest, const PT *source, size_t nelems, int PE_root),        \
        (team, dest, source, nelems, PE_root)
#define TR_TEAM_FAMILY(BCAST, COLLECT, FCOLLECT, ALLTOALL, ALLTOALLS, PT, ET)            \
    TR_CALL(TR_TEAM, int, shmem_##BCAST, TR_TEAM_ROOTED(PT), TR_FROM_ROOT, PE_root,      \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_TEAM, int, shmem_##COLLECT, TR_TEAM_CONTIG(PT), TR_TO_ALL, 0,             \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_TEAM, int, shmem_##FCOLLECT, TR_TEAM_CONTIG(PT), TR_TO_ALL, 0,            \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_TEAM, int, shmem_##ALLTOALL, TR_TEAM_CONTIG(PT), TR_TO_ALL, 0,            \
            nelems * sizeof(ET))                                                         \
    TR_CALL(TR_TEAM, int, shmem_##ALLTOALLS, TR_TEAM_STRIDED(PT), TR_TO_ALL, 0,          \
            nelems * sizeof(ET))
#define TR_TEAM_TYPED(N, T, D, G)                                                        \
    TR_TEAM_FAMILY(N##_broadcast, N##_collect, N##_fcollect, N##_alltoall, N##_alltoalls, \
                   T, T)
WEFT_RMA_TYPES(TR_TEAM_TYPED)
TR_TEAM_FAMILY(broadcastmem, collectmem, fcollectmem, alltoallmem, alltoallsmem, void,
               unsigned char)

#define TR_REDUCE(N, T, OP)                                                              \
    TR_CALL(TR_TEAM, int, shmem_##N##_##OP##_reduce, TR_TEAM_CONTIG(T), TR_TO_ALL, 0,    \
            nelems * sizeof(T))
#define TR_REDUCE_BITWISE(N, T, D, G) TR_REDUCE(N, T, and) TR_REDUCE(N, T, or) TR_REDUCE(N, T, xor)
#define TR_REDUCE_MINMAX(N, T, D, G) TR_REDUCE(N, T, max) TR_REDUCE(N, T, min)
#define TR_REDUCE_ARITH(N, T, D, G) TR_REDUCE(N, T, sum) TR_REDUCE(N, T, prod)
WEFT_REDUCE_BITWISE_TYPES(TR_REDUCE_BITWISE)
WEFT_REDUCE_MINMAX_TYPES(TR_REDUCE_MINMAX)
WEFT_REDUCE_ARITH_TYPES(TR_REDUCE_ARITH)

#define TR_SCAN(N, T, D, G)                                                              \
    TR_CALL(TR_TEAM, int, shmem_##N##_sum_inscan, TR_TEAM_CONTIG(T), TR_TO_HIGHER, 0,    \
            nelems * sizeof(T))                                                          \
    TR_CALL(TR_TEAM, int, shmem_##N##_sum_exscan, TR_TEAM_CONTIG(T), TR_TO_HIGHER, 0,    \
            nelems * sizeof(T))
WEFT_SCAN_TYPES(TR_SCAN)

/* ---- deprecated active-set collectives ---------------------------------------------------- */
#define TR_ASET(NAME, PARAMS, ARGS, PATTERN, ROOT, BYTES)                                \
    TR_V(NAME, PARAMS, ARGS, TR_T0,                                                      \
         tr_coll_aset(PE_start, logPE_stride, PE_size, PATTERN, ROOT, BYTES, tr_t0))
#define TR_ASET_TAIL int PE_start, int logPE_stride, int PE_size, long *pSync
#define TR_ASET_ARGS PE_start, logPE_stride, PE_size, pSync
#define TR_ASET_SIZED(B)                                                                 \
    TR_ASET(shmem_broadcast##B,                                                          \
            (void *dest, const void *source, size_t nelems, int PE_root, TR_ASET_TAIL),  \
            (dest, source, nelems, PE_root, TR_ASET_ARGS), TR_FROM_ROOT, PE_root,        \
            nelems * (B / 8))                                                            \
    TR_ASET(shmem_collect##B, (void *dest, const void *source, size_t nelems, TR_ASET_TAIL), \
            (dest, source, nelems, TR_ASET_ARGS), TR_TO_ALL, 0, nelems * (B / 8))        \
    TR_ASET(shmem_fcollect##B, (void *dest, const void *source, size_t nelems, TR_ASET_TAIL), \
            (dest, source, nelems, TR_ASET_ARGS), TR_TO_ALL, 0, nelems * (B / 8))        \
    TR_ASET(shmem_alltoall##B, (void *dest, const void *source, size_t nelems, TR_ASET_TAIL), \
            (dest, source, nelems, TR_ASET_ARGS), TR_TO_ALL, 0, nelems * (B / 8))        \
    TR_ASET(shmem_alltoalls##B,                                                          \
            (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
             TR_ASET_TAIL),                                                              \
            (dest, source, dst, sst, nelems, TR_ASET_ARGS), TR_TO_ALL, 0, nelems * (B / 8))
TR_ASET_SIZED(32)
TR_ASET_SIZED(64)

#define TR_TO_ALL_OP(N, T, OP)                                                           \
    TR_ASET(shmem_##N##_##OP##_to_all,                                                   \
            (T * dest, const T *source, int nreduce, int PE_start, int logPE_stride,     \
             int PE_size, T *pWrk, long *pSync),                                         \
            (dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync),       \
            TR_TO_ALL, 0, (uint64_t)(nreduce > 0 ? nreduce : 0) * sizeof(T))
#define TR_TO_ALL_BITWISE(N, T, D, G)                                                    \
    TR_TO_ALL_OP(N, T, and) TR_TO_ALL_OP(N, T, or) TR_TO_ALL_OP(N, T, xor)
#define TR_TO_ALL_MINMAX(N, T, D, G) TR_TO_ALL_OP(N, T, max) TR_TO_ALL_OP(N, T, min)
#define TR_TO_ALL_ARITH(N, T, D, G) TR_TO_ALL_OP(N, T, sum) TR_TO_ALL_OP(N, T, prod)
WEFT_TO_ALL_BITWISE_TYPES(TR_TO_ALL_BITWISE)
WEFT_TO_ALL_MINMAX_TYPES(TR_TO_ALL_MINMAX)
WEFT_TO_ALL_ARITH_TYPES(TR_TO_ALL_ARITH)

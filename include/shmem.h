/* SPDX-License-Identifier: BSD-3-Clause */
/* shmem.h: the OpenSHMEM 1.5 interface of weft, for C and C++. The typed
 * routines are declared from the type tables in weft/types.h, one macro per
 * routine family, so every type gets exactly the same set of routines; the
 * generic routines are C11 _Generic selections in C (weft/generic.h) and
 * overloads in C++ (weft/cxx.h). */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>
#include <weft/types.h>
#include <weft/features.h>
#include <weft/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; what is declared here is
 * its interface. */
#pragma GCC visibility push(default)

/* ---- version and constants --------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "weft " WEFT_VERSION_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CTX_PRIVATE (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_LE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_GE 5

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* pSync / pWrk sizes for the active-set collectives. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE 64
#define SHMEM_REDUCE_SYNC_SIZE 64
#define SHMEM_COLLECT_SYNC_SIZE 64
#define SHMEM_ALLTOALL_SYNC_SIZE 64
#define SHMEM_ALLTOALLS_SYNC_SIZE 64
#define SHMEM_SYNC_SIZE 64
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16

/* Deprecated spellings that old programs and test suites still use. */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- handles -------------------------------------------------------------- */
typedef struct weft_ctx *shmem_ctx_t;
typedef struct weft_team *shmem_team_t;
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

extern struct weft_ctx weft_ctx_default;
extern struct weft_team weft_team_world;
extern struct weft_team weft_team_shared;
#ifdef __cplusplus
/* No casts in C++: programs built with -Wold-style-cast or
 * -Wzero-as-null-pointer-constant use these handles too. */
#define SHMEM_CTX_DEFAULT (&weft_ctx_default)
#define SHMEM_CTX_INVALID (static_cast<shmem_ctx_t>(nullptr))
#define SHMEM_TEAM_WORLD (&weft_team_world)
#define SHMEM_TEAM_SHARED (&weft_team_shared)
#define SHMEM_TEAM_INVALID (static_cast<shmem_team_t>(nullptr))
#else
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)&weft_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)&weft_team_world)
#define SHMEM_TEAM_SHARED ((shmem_team_t)&weft_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#endif

/* ---- library setup, query, exit ----------------------------------------- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* ---- symmetric memory ----------------------------------------------------- */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void shmem_free(void *ptr);

/* ---- contexts ---------------------------------------------------------------- */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);

/* ---- RMA ------------------------------------------------------------------ */
#define WEFT_DECL_RMA(N, T, D, G)                                                        \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);               \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                             int pe);                                                    \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);               \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                             int pe);                                                    \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);           \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source,              \
                                 size_t nelems, int pe);                                 \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);           \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source,              \
                                 size_t nelems, int pe);                                 \
    void shmem_##N##_p(T *dest, T value, int pe);                                        \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                   \
    T shmem_##N##_g(const T *source, int pe);                                            \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                       \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                          size_t nelems, int pe);                                        \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems, int pe);                     \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                          size_t nelems, int pe);                                        \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems, int pe);
WEFT_RMA_TYPES(WEFT_DECL_RMA)
#undef WEFT_DECL_RMA

#define WEFT_DECL_RMA_SIZED(B, T)                                                        \
    void shmem_put##B(void *dest, const void *source, size_t nelems, int pe);            \
    void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,\
                          int pe);                                                       \
    void shmem_get##B(void *dest, const void *source, size_t nelems, int pe);            \
    void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,\
                          int pe);                                                       \
    void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                size_t nelems, int pe);                                  \
    void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                size_t nelems, int pe);                                  \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                       size_t nelems, int pe);                                           \
    void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,\
                           ptrdiff_t sst, size_t nelems, int pe);                        \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                       size_t nelems, int pe);                                           \
    void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,\
                           ptrdiff_t sst, size_t nelems, int pe);
WEFT_RMA_SIZES(WEFT_DECL_RMA_SIZED)
#undef WEFT_DECL_RMA_SIZED

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);

/* ---- AMOs ------------------------------------------------------------------- */
#define WEFT_DECL_AMO_STD(N, T, D, G)                                                    \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                     \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                \
    void shmem_##N##_atomic_inc(T *dest, int pe);                                        \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                   \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                            \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);       \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);                               \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);          \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                 \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value,     \
                                          int pe);                                       \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                    \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);\
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);           \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest,        \
                                              T value, int pe);                          \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);\
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest,     \
                                                 T cond, T value, int pe);
WEFT_AMO_STD_TYPES(WEFT_DECL_AMO_STD)
#undef WEFT_DECL_AMO_STD

#define WEFT_DECL_AMO_EXT(N, T, D, G)                                                    \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                                 \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);            \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                               \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);          \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                 \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);            \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source,    \
                                          int pe);                                       \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,    \
                                         int pe);
WEFT_AMO_EXT_TYPES(WEFT_DECL_AMO_EXT)
#undef WEFT_DECL_AMO_EXT

#define WEFT_DECL_AMO_BIT_OP(N, T, OP)                                                   \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                           \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);      \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                              \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);         \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);        \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest,     \
                                                 T value, int pe);
#define WEFT_DECL_AMO_BIT(N, T, D, G)                                                    \
    WEFT_DECL_AMO_BIT_OP(N, T, and) WEFT_DECL_AMO_BIT_OP(N, T, or)                       \
    WEFT_DECL_AMO_BIT_OP(N, T, xor)
WEFT_AMO_BIT_TYPES(WEFT_DECL_AMO_BIT)
#undef WEFT_DECL_AMO_BIT

/* ---- point-to-point synchronization --------------------------------------- */
#define WEFT_DECL_P2P(N, T, D, G)                                                        \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                          \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, \
                                    T cmp_value);                                        \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status,        \
                                      int cmp, T cmp_value);                             \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,         \
                                       const int *status, int cmp, T cmp_value);         \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,   \
                                           int cmp, T *cmp_values);                      \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, \
                                             int cmp, T *cmp_values);                    \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,  \
                                              const int *status, int cmp,                \
                                              T *cmp_values);                            \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                 \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,        \
                             T cmp_value);                                               \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,     \
                                T cmp_value);                                            \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,               \
                                 const int *status, int cmp, T cmp_value);               \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                    T *cmp_values);                                      \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,       \
                                       int cmp, T *cmp_values);                          \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,        \
                                        const int *status, int cmp, T *cmp_values);
WEFT_P2P_TYPES(WEFT_DECL_P2P)
#undef WEFT_DECL_P2P

/* ---- ordering, barrier, locks ------------------------------------------------ */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_barrier_all(void);
void shmem_sync_all(void);
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---- OpenSHMEM 1.6: setup query ---------------------------------------------
 * shmem_query_initialized(&flag)
 *     flag = nonzero between an initialization call and its matching
 *     shmem_finalize, zero before shmem_init and after the last
 *     shmem_finalize. May be called at any time, from any thread.
 * Initialization calls nest (1.6): every shmem_init / shmem_init_thread
 * needs its own shmem_finalize; only the last one releases the library, the
 * others act as shmem_barrier_all. weft cannot be initialized again after
 * that last finalize: shmem_init then aborts and shmem_init_thread returns
 * nonzero, both with a message (docs/conformance.md). */
void shmem_query_initialized(int *initialized);

/* ---- OpenSHMEM 1.6: interleaved block transfers -------------------------------
 * shmem_TYPE_ibput(dest, source, dst, sst, bsize, nblocks, pe)
 *     copies nblocks blocks of bsize contiguous elements: block k is read
 *     from source + k*sst and written to dest + k*dst on PE pe (strides in
 *     elements, measured from block start to block start; the spec asks for
 *     strides >= 1). Returns once source may be reused; delivery is
 *     complete at the next quiet. bsize = 1 is shmem_TYPE_iput.
 * shmem_TYPE_ibget(dest, source, dst, sst, bsize, nblocks, pe)
 *     the same from symmetric source on PE pe into local dest; returns when
 *     dest holds the data.
 * Sized forms move SIZE-bit elements (8, 16, 32, 64, 128). nblocks = 0 or
 * bsize = 0 moves nothing. pe is relative to the context's team. */
#define WEFT_DECL_IBRMA(N, T, D, G)                                                      \
    void shmem_##N##_ibput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,       \
                           size_t bsize, size_t nblocks, int pe);                        \
    void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);     \
    void shmem_##N##_ibget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,       \
                           size_t bsize, size_t nblocks, int pe);                        \
    void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);
WEFT_RMA_TYPES(WEFT_DECL_IBRMA)
#undef WEFT_DECL_IBRMA
#define WEFT_DECL_IBRMA_SIZED(B, T)                                                      \
    void shmem_ibput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,    \
                        size_t bsize, size_t nblocks, int pe);                           \
    void shmem_ctx_ibput##B(shmem_ctx_t ctx, void *dest, const void *source,             \
                            ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,  \
                            int pe);                                                     \
    void shmem_ibget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,    \
                        size_t bsize, size_t nblocks, int pe);                           \
    void shmem_ctx_ibget##B(shmem_ctx_t ctx, void *dest, const void *source,             \
                            ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,  \
                            int pe);
WEFT_RMA_SIZES(WEFT_DECL_IBRMA_SIZED)
#undef WEFT_DECL_IBRMA_SIZED

/* ---- signaling operations (OpenSHMEM 1.5 9.8, 1.6 add/set) -------------------
 * A signal is a symmetric uint64_t, 8-byte aligned, updated only as a whole
 * and atomically by the routines below (and read by signal_fetch,
 * signal_wait_until and the uint64 wait/test routines).
 *
 * shmem_TYPE_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe)
 *     puts nelems elements to dest on PE pe, then updates sig_addr on PE pe
 *     with signal: sig_op SHMEM_SIGNAL_SET stores it, SHMEM_SIGNAL_ADD adds
 *     it. Whoever sees the update also sees all of dest written (the
 *     signal is never visible before the data). Returns once source may be
 *     reused. nelems = 0 still updates the signal. dest and sig_addr must
 *     not overlap. No order is implied against other puts without a fence.
 * shmem_TYPE_put_signal_nbi(...)
 *     the same, returning at once; source must stay unchanged until the
 *     next quiet on the context, which also completes the whole operation.
 * shmem_putSIZE_signal[_nbi], shmem_putmem_signal[_nbi]: untyped forms
 *     (SIZE-bit elements; bytes for mem).
 * shmem_signal_set(sig_addr, signal, pe) / shmem_signal_add(...)
 *     the signal update alone (1.6), atomic with respect to put_signal with
 *     the same operator.
 * shmem_signal_fetch(sig_addr)
 *     atomically reads the calling PE's own signal.
 * shmem_signal_wait_until(sig_addr, cmp, cmp_value)
 *     blocks until the calling PE's signal compares (SHMEM_CMP_*, unsigned)
 *     true against cmp_value and returns the value that satisfied it.
 * Every ctx form works on the given context; pe is relative to its team. */
#define WEFT_DECL_PUT_SIGNAL(N, T, D, G)                                                 \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems,                 \
                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);\
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source,           \
                                    size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                    int sig_op, int pe);                                 \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,             \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                    int pe);                                             \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,       \
                                        size_t nelems, uint64_t *sig_addr,               \
                                        uint64_t signal, int sig_op, int pe);
WEFT_RMA_TYPES(WEFT_DECL_PUT_SIGNAL)
#undef WEFT_DECL_PUT_SIGNAL
#define WEFT_DECL_PUT_SIGNAL_BYTES(NAME, T)                                              \
    void shmem_put##NAME##_signal(void *dest, const void *source, size_t nelems,         \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op,       \
                                  int pe);                                               \
    void shmem_ctx_put##NAME##_signal(shmem_ctx_t ctx, void *dest, const void *source,   \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,\
                                      int sig_op, int pe);                               \
    void shmem_put##NAME##_signal_nbi(void *dest, const void *source, size_t nelems,     \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                      int pe);                                           \
    void shmem_ctx_put##NAME##_signal_nbi(shmem_ctx_t ctx, void *dest,                   \
                                          const void *source, size_t nelems,             \
                                          uint64_t *sig_addr, uint64_t signal,           \
                                          int sig_op, int pe);
WEFT_RMA_SIZES(WEFT_DECL_PUT_SIGNAL_BYTES)
WEFT_DECL_PUT_SIGNAL_BYTES(mem, unsigned char)
#undef WEFT_DECL_PUT_SIGNAL_BYTES
void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- OpenSHMEM 1.6: per-PE completion ------------------------------------------
 * shmem_pe_quiet(target_pes, npes) / shmem_ctx_pe_quiet(ctx, ...)
 *     what shmem_quiet guarantees, for the operations to the listed PEs
 *     (relative to the context's team); npes = 0 returns at once and
 *     ignores target_pes. weft completes the whole context, which the spec
 *     allows. No-op on SHMEM_CTX_INVALID, like shmem_ctx_quiet. */
void shmem_pe_quiet(const int *target_pes, size_t npes);
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);

/* ---- OpenSHMEM 1.6: communication sessions -------------------------------------
 * shmem_ctx_session_start(ctx, options, config, config_mask)
 *     announces a phase of communication on ctx with SHMEM_CTX_SESSION_*
 *     option hints (BATCH: latency-tolerant, may be coalesced) and, where
 *     config_mask has SHMEM_CTX_SESSION_TOTAL_OPS, config->total_ops (the
 *     expected number of RMA calls). shmem_ctx_session_stop(ctx) ends it.
 * Hints only: they change no completion or ordering semantics, and weft
 * does not act on them yet. Both are no-ops on SHMEM_CTX_INVALID. */
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;
void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask);
void shmem_ctx_session_stop(shmem_ctx_t ctx);

/* ---- profiling interface (OpenSHMEM 1.5) --------------------------------------
 * Every routine is also callable under its profiling name, p + name
 * (pshmem_putmem, pstart_pes, ...), declared in <pshmem.h>; the plain names
 * are weak, so a tool library may define them and forward to the p names
 * (docs/profiling.md).
 * shmem_pcontrol(level, ...)
 *     passes a request to such a tool: 0 disables profiling, 1 enables it
 *     at the default detail (the initial state), 2 flushes the profile
 *     buffers, other levels mean what the tool defines (extra arguments
 *     included). The library itself does nothing with it. */
void shmem_pcontrol(int level, ...);

/* ---- deprecated interfaces kept for existing programs ------------------------ */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);

#define WEFT_DECL_AMO_DEPR_INT(N, T, D, G)                                               \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                               \
    T shmem_##N##_finc(T *dest, int pe);                                                 \
    void shmem_##N##_inc(T *dest, int pe);                                               \
    T shmem_##N##_fadd(T *dest, T value, int pe);                                        \
    void shmem_##N##_add(T *dest, T value, int pe);
WEFT_AMO_STD_TYPES(WEFT_DECL_AMO_DEPR_INT)
#undef WEFT_DECL_AMO_DEPR_INT
#define WEFT_DECL_AMO_DEPR_EXT(N, T, D, G)                                               \
    T shmem_##N##_swap(T *dest, T value, int pe);                                        \
    T shmem_##N##_fetch(const T *source, int pe);                                        \
    void shmem_##N##_set(T *dest, T value, int pe);
WEFT_AMO_EXT_TYPES(WEFT_DECL_AMO_DEPR_EXT)
#undef WEFT_DECL_AMO_DEPR_EXT
#define WEFT_DECL_WAIT_DEPR(N, T, D, G) void shmem_##N##_wait(T *ivar, T cmp_value);
WEFT_WAIT_DEPRECATED_TYPES(WEFT_DECL_WAIT_DEPR)
#undef WEFT_DECL_WAIT_DEPR
/* Untyped (long) forms from OpenSHMEM 1.0; parenthesized so the C11 generic
 * macros of the same name do not expand here. C++ does not see them: its
 * long overloads of these generic names (weft/cxx.h) do the same thing, and
 * a C-linkage function with the same parameters would clash with them. */
#ifndef __cplusplus
void(shmem_wait)(long *ivar, long cmp_value);
void(shmem_wait_until)(long *ivar, int cmp, long cmp_value);
long(shmem_swap)(long *dest, long value, int pe);
#endif

#include <weft/collectives.h>
#include <weft/generic.h>

#pragma GCC visibility pop

#ifdef __cplusplus
}
/* C++ has no _Generic: the generic routines are overloads there. */
#include <weft/cxx.h>
#endif
#endif

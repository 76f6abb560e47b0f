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
#define SHMEM_VENDOR_STRING "weft 0.1.0"
#define WEFT_VERSION_MAJOR 0
#define WEFT_VERSION_MINOR 1
#define WEFT_VERSION_PATCH 0

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

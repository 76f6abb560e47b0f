/* SPDX-License-Identifier: BSD-3-Clause */
/* weft/collectives.h: teams and collective routines of shmem.h (OpenSHMEM
 * 1.5, plus shmem_team_ptr and the scans of 1.6), included by shmem.h.
 * Typed routines are declared from the tables of weft/types.h; the C11
 * generic selections at the end dispatch on the dest argument (C++ gets
 * overloads of the same names from weft/cxx.h). */
#ifndef WEFT_COLLECTIVES_H
#define WEFT_COLLECTIVES_H

#include <stddef.h>
#include <weft/types.h>

/* ---- teams ------------------------------------------------------------------ */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe); /* 1.6 */

/* ---- synchronization ---------------------------------------------------------- */
int shmem_team_sync(shmem_team_t team);
void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);

/* ---- broadcast, collect, fcollect, alltoall(s) over teams --------------------- */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

#define WEFT_DECL_COLL(N, T, D, G)                                                      \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, \
                              int PE_root);                                             \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);  \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems);
WEFT_RMA_TYPES(WEFT_DECL_COLL)
#undef WEFT_DECL_COLL

/* ---- reductions over teams ------------------------------------------------------ */
#define WEFT_DECL_REDUCE(N, T, OP)                                                      \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,          \
                                  size_t nreduce);
#define WEFT_DECL_REDUCE_BITWISE(N, T, D, G)                                            \
    WEFT_DECL_REDUCE(N, T, and) WEFT_DECL_REDUCE(N, T, or) WEFT_DECL_REDUCE(N, T, xor)
#define WEFT_DECL_REDUCE_MINMAX(N, T, D, G)                                             \
    WEFT_DECL_REDUCE(N, T, max) WEFT_DECL_REDUCE(N, T, min)
#define WEFT_DECL_REDUCE_ARITH(N, T, D, G)                                              \
    WEFT_DECL_REDUCE(N, T, sum) WEFT_DECL_REDUCE(N, T, prod)
WEFT_REDUCE_BITWISE_TYPES(WEFT_DECL_REDUCE_BITWISE)
WEFT_REDUCE_MINMAX_TYPES(WEFT_DECL_REDUCE_MINMAX)
WEFT_REDUCE_ARITH_TYPES(WEFT_DECL_REDUCE_ARITH)
#undef WEFT_DECL_REDUCE_BITWISE
#undef WEFT_DECL_REDUCE_MINMAX
#undef WEFT_DECL_REDUCE_ARITH
#undef WEFT_DECL_REDUCE

/* ---- non-blocking collectives (the OpenSHMEM committee's draft) ---------------------
 * Each call starts the collective and returns; shmem_req_wait or a
 * shmem_req_test that returns 0 completes it and sets the handle to
 * SHMEM_REQ_INVALID. The draft names broadcast and alltoall; the other
 * collectives' forms are extensions in shmemx.h. docs/collectives.md. */
typedef struct weft_req *shmem_req_h;
#define SHMEM_REQ_INVALID ((shmem_req_h)0)
int shmem_req_test(shmem_req_h *request);
int shmem_req_wait(shmem_req_h *request);
int shmem_broadcastmem_nb(shmem_team_t team, void *dest, const void *source, size_t nelems,
                          int PE_root, shmem_req_h *request);
int shmem_alltoallmem_nb(shmem_team_t team, void *dest, const void *source, size_t nelems,
                         shmem_req_h *request);
#define WEFT_DECL_COLL_NB(N, T, D, G)                                                   \
    int shmem_##N##_broadcast_nb(shmem_team_t team, T *dest, const T *source,           \
                                 size_t nelems, int PE_root, shmem_req_h *request);     \
    int shmem_##N##_alltoall_nb(shmem_team_t team, T *dest, const T *source,            \
                                size_t nelems, shmem_req_h *request);
WEFT_RMA_TYPES(WEFT_DECL_COLL_NB)
#undef WEFT_DECL_COLL_NB

/* ---- scans (OpenSHMEM 1.6) ------------------------------------------------------ */
#define WEFT_DECL_SCAN(N, T, D, G)                                                      \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems);
WEFT_SCAN_TYPES(WEFT_DECL_SCAN)
#undef WEFT_DECL_SCAN

/* ---- deprecated active-set collectives -------------------------------------------- */
void shmem_broadcast32(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync);
void shmem_broadcast64(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync);
void shmem_collect32(void *dest, const void *source, size_t nelems, int PE_start,
                     int logPE_stride, int PE_size, long *pSync);
void shmem_collect64(void *dest, const void *source, size_t nelems, int PE_start,
                     int logPE_stride, int PE_size, long *pSync);
void shmem_fcollect32(void *dest, const void *source, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_fcollect64(void *dest, const void *source, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_alltoall32(void *dest, const void *source, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_alltoall64(void *dest, const void *source, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_alltoalls32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);

#define WEFT_DECL_TO_ALL(N, T, OP)                                                      \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,  \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define WEFT_DECL_TO_ALL_BITWISE(N, T, D, G)                                            \
    WEFT_DECL_TO_ALL(N, T, and) WEFT_DECL_TO_ALL(N, T, or) WEFT_DECL_TO_ALL(N, T, xor)
#define WEFT_DECL_TO_ALL_MINMAX(N, T, D, G)                                             \
    WEFT_DECL_TO_ALL(N, T, max) WEFT_DECL_TO_ALL(N, T, min)
#define WEFT_DECL_TO_ALL_ARITH(N, T, D, G)                                              \
    WEFT_DECL_TO_ALL(N, T, sum) WEFT_DECL_TO_ALL(N, T, prod)
WEFT_TO_ALL_BITWISE_TYPES(WEFT_DECL_TO_ALL_BITWISE)
WEFT_TO_ALL_MINMAX_TYPES(WEFT_DECL_TO_ALL_MINMAX)
WEFT_TO_ALL_ARITH_TYPES(WEFT_DECL_TO_ALL_ARITH)
#undef WEFT_DECL_TO_ALL_BITWISE
#undef WEFT_DECL_TO_ALL_MINMAX
#undef WEFT_DECL_TO_ALL_ARITH
#undef WEFT_DECL_TO_ALL

/* ---- C11 generic selections -------------------------------------------------------
 * Team collectives dispatch on dest, the second argument. Built on the
 * helpers of weft/generic.h (expanded at the point of use). */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define WEFT_GENERIC_TEAM(TABLE, OP, ...)                                                 \
    _Generic(WEFT_ARG2(__VA_ARGS__),                                                     \
        TABLE(WEFT_G_##OP) default: weft_generic_no_matching_type)(__VA_ARGS__)

#define WEFT_G_broadcast(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_broadcast)
#define WEFT_G_collect(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_collect)
#define WEFT_G_fcollect(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_fcollect)
#define WEFT_G_alltoall(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_alltoall)
#define WEFT_G_alltoalls(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_alltoalls)
#define WEFT_G_and_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_and_reduce)
#define WEFT_G_or_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_or_reduce)
#define WEFT_G_xor_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_xor_reduce)
#define WEFT_G_max_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_max_reduce)
#define WEFT_G_min_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_min_reduce)
#define WEFT_G_sum_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_sum_reduce)
#define WEFT_G_prod_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_prod_reduce)
#define WEFT_G_sum_inscan(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_sum_inscan)
#define WEFT_G_broadcast_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_broadcast_nb)
#define WEFT_G_alltoall_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_alltoall_nb)
#define WEFT_G_sum_exscan(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_sum_exscan)

#define shmem_broadcast(...) WEFT_GENERIC_TEAM(WEFT_RMA_TYPES, broadcast, __VA_ARGS__)
#define shmem_collect(...) WEFT_GENERIC_TEAM(WEFT_RMA_TYPES, collect, __VA_ARGS__)
#define shmem_fcollect(...) WEFT_GENERIC_TEAM(WEFT_RMA_TYPES, fcollect, __VA_ARGS__)
#define shmem_alltoall(...) WEFT_GENERIC_TEAM(WEFT_RMA_TYPES, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) WEFT_GENERIC_TEAM(WEFT_RMA_TYPES, alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) WEFT_GENERIC_TEAM(WEFT_REDUCE_BITWISE_TYPES, and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) WEFT_GENERIC_TEAM(WEFT_REDUCE_BITWISE_TYPES, or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) WEFT_GENERIC_TEAM(WEFT_REDUCE_BITWISE_TYPES, xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) WEFT_GENERIC_TEAM(WEFT_REDUCE_MINMAX_TYPES, max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) WEFT_GENERIC_TEAM(WEFT_REDUCE_MINMAX_TYPES, min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) WEFT_GENERIC_TEAM(WEFT_REDUCE_ARITH_TYPES, sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) WEFT_GENERIC_TEAM(WEFT_REDUCE_ARITH_TYPES, prod_reduce, __VA_ARGS__)
#define shmem_sum_inscan(...) WEFT_GENERIC_TEAM(WEFT_SCAN_TYPES, sum_inscan, __VA_ARGS__)
#define shmem_sum_exscan(...) WEFT_GENERIC_TEAM(WEFT_SCAN_TYPES, sum_exscan, __VA_ARGS__)
#define shmem_broadcast_nb(...) WEFT_GENERIC_TEAM(WEFT_RMA_TYPES, broadcast_nb, __VA_ARGS__)
#define shmem_alltoall_nb(...) WEFT_GENERIC_TEAM(WEFT_RMA_TYPES, alltoall_nb, __VA_ARGS__)
#endif /* C11 */

#endif

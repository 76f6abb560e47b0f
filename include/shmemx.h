/* SPDX-License-Identifier: BSD-3-Clause */
/* shmemx.h: weft's extensions to OpenSHMEM 1.5 (not part of the standard;
 * names carry the shmemx_ / SHMEMX_ prefix).
 *
 * Federations: topology-aware teams. Every PE of the job belongs to exactly
 * one domain of each type (its node, and the NUMA node, socket/package and
 * L3 cache of the cores it is bound to); see docs/federations.md.
 *
 *   shmemx_team_split_type(parent, type, config, mask, &team)
 *       collective over parent: every PE gets the team of the parent's PEs
 *       that share its domain of `type`, in parent order.
 *   shmemx_team_split_color(parent, color, key, config, mask, &team)
 *       collective over parent, MPI_Comm_split semantics: one team per
 *       non-negative color, members ordered by key, then by parent index; a
 *       PE passing a negative color gets SHMEM_TEAM_INVALID (and must still
 *       call).
 *   shmemx_topology_count(type), shmemx_topology_id(type, pe)
 *       local queries (no communication): how many domains of `type` the
 *       job's PEs occupy, and the domain (0 .. count-1) of world PE `pe`.
 *       Domains are numbered in order of their lowest world PE, so the
 *       domain of PE 0 is 0.
 *
 * Federations: the set of all teams one split makes (docs/federations.md).
 *   shmemx_federation_create(parent, type, &fed)
 *       local: the teams split_type(parent, type) would make, without
 *       making them (the system's nodes, NUMA domains, sockets, L3 caches).
 *   shmemx_team_get_federation(team, &fed)
 *       local: the federation a team of split_type/split_color belongs to.
 *   shmemx_federation_destroy(fed)                      local
 *   _n_teams, _n_pes, _my_team, _team_of(pe), _team_pe(pe),
 *   _team_n_pes(team), _pe(team, team_pe), _translate_pe(pe, dest_team)
 *       local queries about any PE; PEs are numbered as in the parent team,
 *       teams 0 .. n_teams-1; translate_pe gives the member of dest_team at
 *       pe's index in its own team (its counterpart), or -1.
 *
 * The split routines return 0 on success (also for a PE that gets
 * SHMEM_TEAM_INVALID by its own choice), nonzero on every PE of the parent
 * when the team could not be made (parent invalid, team limit reached).
 *
 * Counting puts (source-compatible with Sandia OpenSHMEM's shmemx.h) and
 * one-sided append: see docs/extensions.md for the exact semantics.
 *
 *   shmemx_ct_create(&ct), shmemx_ct_free(&ct)       collective (world)
 *   shmemx_ct_get(ct), _set(ct, v), _wait(ct, n)     local
 *   shmemx_putmem_ct(ct, dest, source, len, pe)      +1 at pe once the data
 *                                                    is visible there
 *   shmemx_getmem_ct(ct, dest, source, len, pe)      +1 at pe once read
 *   typed (shmemx_TYPE_put_ct), sized (shmemx_put64_ct), _nbi and ctx forms
 *
 *   shmemx_oct_create(&oct, buffer, len), _destroy(&oct)   collective (world)
 *   shmemx_push(oct, source, len, pe)     append len bytes to pe's buffer
 *   shmemx_oct_get(oct)                   bytes that have arrived here
 *   shmemx_oct_wait(oct, bytes)           until >= bytes have arrived
 *   shmemx_oct_reset(oct)                 local: start the buffer over
 *   typed (shmemx_TYPE_push), sized (shmemx_push64), _nbi and ctx forms
 *
 * Non-blocking collectives beyond the draft's broadcast and alltoall
 * (shmem.h): the same shape, a request handle last, completed by
 * shmem_req_wait / shmem_req_test; see docs/collectives.md.
 *
 *   shmemx_team_sync_nb(team, &req), shmemx_sync_all_nb(&req)
 *   shmemx_barrier_all_nb(&req)         quiet at the call, then sync_all
 *   shmemx_{collect,fcollect,alltoalls}mem_nb, shmemx_TYPE_{...}_nb
 *   shmemx_TYPE_OP_reduce_nb             every type and op of the blocking
 *                                        reductions
 *   C11 generic (C++ overloaded) shmemx_collect_nb, shmemx_OP_reduce_nb... */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; what is declared here is
 * its interface. */
#pragma GCC visibility push(default)

#define SHMEMX_TEAM_TYPE_NODE 1   /* one host (the PEs of SHMEM_TEAM_SHARED and more) */
#define SHMEMX_TEAM_TYPE_NUMA 2   /* one NUMA node */
#define SHMEMX_TEAM_TYPE_SOCKET 3 /* one processor package (socket) */
#define SHMEMX_TEAM_TYPE_L3 4     /* one L3 cache */
#define SHMEMX_TEAM_TYPE_SWITCH 5 /* the nodes under one leaf switch */

int shmemx_team_split_type(shmem_team_t parent_team, int type, const shmem_team_config_t *config,
                           long config_mask, shmem_team_t *new_team);
int shmemx_team_split_color(shmem_team_t parent_team, int color, int key,
                            const shmem_team_config_t *config, long config_mask,
                            shmem_team_t *new_team);
int shmemx_topology_count(int type);
int shmemx_topology_id(int type, int pe);

/* ---- federations: every team of one split, queried for any PE ---- */
typedef struct weft_federation *shmemx_federation_t;
#define SHMEMX_FEDERATION_INVALID ((shmemx_federation_t)0)

int shmemx_federation_create(shmem_team_t parent_team, int type, shmemx_federation_t *fed);
int shmemx_team_get_federation(shmem_team_t team, shmemx_federation_t *fed);
void shmemx_federation_destroy(shmemx_federation_t fed);
int shmemx_federation_n_teams(shmemx_federation_t fed);
int shmemx_federation_n_pes(shmemx_federation_t fed);
int shmemx_federation_my_team(shmemx_federation_t fed);
int shmemx_federation_team_of(shmemx_federation_t fed, int pe);
int shmemx_federation_team_pe(shmemx_federation_t fed, int pe);
int shmemx_federation_team_n_pes(shmemx_federation_t fed, int team);
int shmemx_federation_pe(shmemx_federation_t fed, int team, int team_pe);
int shmemx_federation_translate_pe(shmemx_federation_t fed, int pe, int dest_team);

/* ---- neighbourhood collectives over a federation's team graph ---- */
int shmemx_federation_set_neighbors(shmemx_federation_t fed, shmem_team_t parent_team,
                                    const int *degrees, const int *neighbors);
int shmemx_federation_n_neighbors(shmemx_federation_t fed, int team);
int shmemx_federation_neighbor(shmemx_federation_t fed, int team, int i);
int shmemx_neighbor_fcollectmem(shmemx_federation_t fed, shmem_team_t parent_team, void *dest,
                                const void *source, size_t nelems);
int shmemx_neighbor_alltoallmem(shmemx_federation_t fed, shmem_team_t parent_team, void *dest,
                                const void *source, size_t nelems);
#define WEFT_NEIGHBOR_DECL(N, T, D, G)                                                    \
    int shmemx_##N##_neighbor_fcollect(shmemx_federation_t fed, shmem_team_t parent_team, \
                                       T *dest, const T *source, size_t nelems);          \
    int shmemx_##N##_neighbor_alltoall(shmemx_federation_t fed, shmem_team_t parent_team, \
                                       T *dest, const T *source, size_t nelems);
WEFT_RMA_TYPES(WEFT_NEIGHBOR_DECL)
#undef WEFT_NEIGHBOR_DECL
/* dest of every PE of team t = OP over the sources of the PEs of t and of
 * t's neighbouring teams, through the teams' leaders. */
#define WEFT_NEIGHBOR_RED_DECL(N, T, OP)                                                   \
    int shmemx_##N##_##OP##_neighbor_reduce(shmemx_federation_t fed,                       \
                                            shmem_team_t parent_team, T *dest,             \
                                            const T *source, size_t nreduce);
#define WEFT_NEIGHBOR_RED_BITWISE(N, T, D, G)                                              \
    WEFT_NEIGHBOR_RED_DECL(N, T, and) WEFT_NEIGHBOR_RED_DECL(N, T, or)                     \
    WEFT_NEIGHBOR_RED_DECL(N, T, xor)
#define WEFT_NEIGHBOR_RED_MINMAX(N, T, D, G)                                               \
    WEFT_NEIGHBOR_RED_DECL(N, T, max) WEFT_NEIGHBOR_RED_DECL(N, T, min)
#define WEFT_NEIGHBOR_RED_ARITH(N, T, D, G)                                                \
    WEFT_NEIGHBOR_RED_DECL(N, T, sum) WEFT_NEIGHBOR_RED_DECL(N, T, prod)
WEFT_REDUCE_BITWISE_TYPES(WEFT_NEIGHBOR_RED_BITWISE)
WEFT_REDUCE_MINMAX_TYPES(WEFT_NEIGHBOR_RED_MINMAX)
WEFT_REDUCE_ARITH_TYPES(WEFT_NEIGHBOR_RED_ARITH)
#undef WEFT_NEIGHBOR_RED_BITWISE
#undef WEFT_NEIGHBOR_RED_MINMAX
#undef WEFT_NEIGHBOR_RED_ARITH
#undef WEFT_NEIGHBOR_RED_DECL

/* ---- the symmetric heap ----
 * This PE's heap in bytes (the same on every PE): *size backed so far for
 * the program (it grows as allocations need unless SHMEM_SYMMETRIC_SIZE
 * fixes it), *used in the program's live blocks, *limit the most it may
 * grow to (a single allocation of that much can succeed when nothing else
 * is allocated). Any argument may be NULL. */
void shmemx_heap_info(size_t *size, size_t *used, size_t *limit);

/* ---- counting puts ---- */
typedef struct weft_ct *shmemx_ct_t;
void shmemx_ct_create(shmemx_ct_t *ct);
void shmemx_ct_free(shmemx_ct_t *ct);
long shmemx_ct_get(shmemx_ct_t ct);
void shmemx_ct_set(shmemx_ct_t ct, long value);
void shmemx_ct_wait(shmemx_ct_t ct, long wait_for);

/* The four forms (plain/ctx x blocking/nbi) of one counting transfer:
 * NAME is the part of the name before _ct (int_put, get64, putmem), T the
 * element type, COUNT the name of the length argument. */
#define WEFT_CT_DECL_DIR(NAME, T, COUNT)                                                   \
    void shmemx_##NAME##_ct(shmemx_ct_t ct, T *dest, const T *source, size_t COUNT, int pe); \
    void shmemx_##NAME##_ct_nbi(shmemx_ct_t ct, T *dest, const T *source, size_t COUNT,   \
                                int pe);                                                  \
    void shmemx_ctx_##NAME##_ct(shmem_ctx_t ctx, shmemx_ct_t ct, T *dest, const T *source, \
                                size_t COUNT, int pe);                                    \
    void shmemx_ctx_##NAME##_ct_nbi(shmem_ctx_t ctx, shmemx_ct_t ct, T *dest,             \
                                    const T *source, size_t COUNT, int pe);
#define WEFT_CT_DECL_FORMS(PNAME, GNAME, T, COUNT)                                         \
    WEFT_CT_DECL_DIR(PNAME, T, COUNT) WEFT_CT_DECL_DIR(GNAME, T, COUNT)
#define WEFT_CT_DECL_TYPED(N, T, D, G) WEFT_CT_DECL_FORMS(N##_put, N##_get, T, nelems)
#define WEFT_CT_DECL_SIZED(BITS, T) WEFT_CT_DECL_FORMS(put##BITS, get##BITS, void, nelems)
WEFT_RMA_TYPES(WEFT_CT_DECL_TYPED)
WEFT_RMA_SIZES(WEFT_CT_DECL_SIZED)
WEFT_CT_DECL_FORMS(putmem, getmem, void, len)

/* ---- one-sided append ---- */
typedef struct weft_oct *shmemx_oct_t;
void shmemx_oct_create(shmemx_oct_t *oct, void *buffer, size_t len);
void shmemx_oct_destroy(shmemx_oct_t *oct);
size_t shmemx_oct_get(shmemx_oct_t oct);
void shmemx_oct_reset(shmemx_oct_t oct);
void shmemx_oct_wait(shmemx_oct_t oct, size_t bytes);

/* The four forms (plain/ctx x blocking/nbi) of one push: NAME is the name
 * after shmemx_[ctx_] (int_push, push64, push). */
#define WEFT_PUSH_DECL_FORMS(NAME, T, COUNT)                                               \
    void shmemx_##NAME(shmemx_oct_t oct, const T *source, size_t COUNT, int pe);           \
    void shmemx_##NAME##_nbi(shmemx_oct_t oct, const T *source, size_t COUNT, int pe);     \
    void shmemx_ctx_##NAME(shmem_ctx_t ctx, shmemx_oct_t oct, const T *source, size_t COUNT, \
                           int pe);                                                        \
    void shmemx_ctx_##NAME##_nbi(shmem_ctx_t ctx, shmemx_oct_t oct, const T *source,       \
                                 size_t COUNT, int pe);
#define WEFT_PUSH_DECL_TYPED(N, T, D, G) WEFT_PUSH_DECL_FORMS(N##_push, T, nelems)
#define WEFT_PUSH_DECL_SIZED(BITS, T) WEFT_PUSH_DECL_FORMS(push##BITS, void, nelems)
WEFT_RMA_TYPES(WEFT_PUSH_DECL_TYPED)
WEFT_RMA_SIZES(WEFT_PUSH_DECL_SIZED)
WEFT_PUSH_DECL_FORMS(push, void, len)

/* ---- non-blocking collectives ---- */
int shmemx_team_sync_nb(shmem_team_t team, shmem_req_h *request);
int shmemx_sync_all_nb(shmem_req_h *request);
int shmemx_barrier_all_nb(shmem_req_h *request);
int shmemx_collectmem_nb(shmem_team_t team, void *dest, const void *source, size_t nelems,
                         shmem_req_h *request);
int shmemx_fcollectmem_nb(shmem_team_t team, void *dest, const void *source, size_t nelems,
                          shmem_req_h *request);
int shmemx_alltoallsmem_nb(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, shmem_req_h *request);
#define WEFT_NB_DECL_COLL(N, T, D, G)                                                      \
    int shmemx_##N##_collect_nb(shmem_team_t team, T *dest, const T *source, size_t nelems, \
                                shmem_req_h *request);                                     \
    int shmemx_##N##_fcollect_nb(shmem_team_t team, T *dest, const T *source,              \
                                 size_t nelems, shmem_req_h *request);                     \
    int shmemx_##N##_alltoalls_nb(shmem_team_t team, T *dest, const T *source,             \
                                  ptrdiff_t dst, ptrdiff_t sst, size_t nelems,             \
                                  shmem_req_h *request);
WEFT_RMA_TYPES(WEFT_NB_DECL_COLL)
#undef WEFT_NB_DECL_COLL
#define WEFT_NB_DECL_REDUCE(N, T, OP)                                                      \
    int shmemx_##N##_##OP##_reduce_nb(shmem_team_t team, T *dest, const T *source,         \
                                      size_t nreduce, shmem_req_h *request);
#define WEFT_NB_DECL_BITWISE(N, T, D, G)                                                   \
    WEFT_NB_DECL_REDUCE(N, T, and) WEFT_NB_DECL_REDUCE(N, T, or) WEFT_NB_DECL_REDUCE(N, T, xor)
#define WEFT_NB_DECL_MINMAX(N, T, D, G) WEFT_NB_DECL_REDUCE(N, T, max) WEFT_NB_DECL_REDUCE(N, T, min)
#define WEFT_NB_DECL_ARITH(N, T, D, G) WEFT_NB_DECL_REDUCE(N, T, sum) WEFT_NB_DECL_REDUCE(N, T, prod)
WEFT_REDUCE_BITWISE_TYPES(WEFT_NB_DECL_BITWISE)
WEFT_REDUCE_MINMAX_TYPES(WEFT_NB_DECL_MINMAX)
WEFT_REDUCE_ARITH_TYPES(WEFT_NB_DECL_ARITH)
#undef WEFT_NB_DECL_BITWISE
#undef WEFT_NB_DECL_MINMAX
#undef WEFT_NB_DECL_ARITH
#undef WEFT_NB_DECL_REDUCE

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

/* Generic forms of the non-blocking extensions, dispatching on dest. */
#if defined(__cplusplus)
extern "C++" {
#define WEFT_NBX_CXX(GEN, N, OP, PARAMS, ARGS)                                             \
    WEFT_IF_GEN_##GEN(inline int shmemx_##OP PARAMS { return shmemx_##N##_##OP ARGS; })
#define WEFT_NBX_CXX_COLL(N, T, D, G)                                                      \
    WEFT_NBX_CXX(G, N, collect_nb,                                                         \
                 (shmem_team_t team, T *dest, const T *source, size_t nelems,              \
                  shmem_req_h *request),                                                   \
                 (team, dest, source, nelems, request))                                    \
    WEFT_NBX_CXX(G, N, fcollect_nb,                                                        \
                 (shmem_team_t team, T *dest, const T *source, size_t nelems,              \
                  shmem_req_h *request),                                                   \
                 (team, dest, source, nelems, request))                                    \
    WEFT_NBX_CXX(G, N, alltoalls_nb,                                                       \
                 (shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,              \
                  ptrdiff_t sst, size_t nelems, shmem_req_h *request),                     \
                 (team, dest, source, dst, sst, nelems, request))
#define WEFT_NBX_CXX_RED(N, T, G, OP)                                                      \
    WEFT_NBX_CXX(G, N, OP##_reduce_nb,                                                     \
                 (shmem_team_t team, T *dest, const T *source, size_t nreduce,             \
                  shmem_req_h *request),                                                   \
                 (team, dest, source, nreduce, request))
#define WEFT_NBX_CXX_BITWISE(N, T, D, G)                                                   \
    WEFT_NBX_CXX_RED(N, T, G, and) WEFT_NBX_CXX_RED(N, T, G, or) WEFT_NBX_CXX_RED(N, T, G, xor)
#define WEFT_NBX_CXX_MINMAX(N, T, D, G) WEFT_NBX_CXX_RED(N, T, G, max) WEFT_NBX_CXX_RED(N, T, G, min)
#define WEFT_NBX_CXX_ARITH(N, T, D, G) WEFT_NBX_CXX_RED(N, T, G, sum) WEFT_NBX_CXX_RED(N, T, G, prod)
WEFT_RMA_TYPES(WEFT_NBX_CXX_COLL)
WEFT_REDUCE_BITWISE_TYPES(WEFT_NBX_CXX_BITWISE)
WEFT_REDUCE_MINMAX_TYPES(WEFT_NBX_CXX_MINMAX)
WEFT_REDUCE_ARITH_TYPES(WEFT_NBX_CXX_ARITH)
}
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define WEFT_GX_collect_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_collect_nb)
#define WEFT_GX_fcollect_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_fcollect_nb)
#define WEFT_GX_alltoalls_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_alltoalls_nb)
#define WEFT_GX_and_reduce_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_and_reduce_nb)
#define WEFT_GX_or_reduce_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_or_reduce_nb)
#define WEFT_GX_xor_reduce_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_xor_reduce_nb)
#define WEFT_GX_max_reduce_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_max_reduce_nb)
#define WEFT_GX_min_reduce_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_min_reduce_nb)
#define WEFT_GX_sum_reduce_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_sum_reduce_nb)
#define WEFT_GX_prod_reduce_nb(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_prod_reduce_nb)
#define WEFT_GENERIC_TEAMX(TABLE, OP, ...)                                                 \
    _Generic(WEFT_ARG2(__VA_ARGS__),                                                     \
        TABLE(WEFT_GX_##OP) default: weft_generic_no_matching_type)(__VA_ARGS__)
#define shmemx_collect_nb(...) WEFT_GENERIC_TEAMX(WEFT_RMA_TYPES, collect_nb, __VA_ARGS__)
#define shmemx_fcollect_nb(...) WEFT_GENERIC_TEAMX(WEFT_RMA_TYPES, fcollect_nb, __VA_ARGS__)
#define shmemx_alltoalls_nb(...) WEFT_GENERIC_TEAMX(WEFT_RMA_TYPES, alltoalls_nb, __VA_ARGS__)
#define shmemx_and_reduce_nb(...) WEFT_GENERIC_TEAMX(WEFT_REDUCE_BITWISE_TYPES, and_reduce_nb, __VA_ARGS__)
#define shmemx_or_reduce_nb(...) WEFT_GENERIC_TEAMX(WEFT_REDUCE_BITWISE_TYPES, or_reduce_nb, __VA_ARGS__)
#define shmemx_xor_reduce_nb(...) WEFT_GENERIC_TEAMX(WEFT_REDUCE_BITWISE_TYPES, xor_reduce_nb, __VA_ARGS__)
#define shmemx_max_reduce_nb(...) WEFT_GENERIC_TEAMX(WEFT_REDUCE_MINMAX_TYPES, max_reduce_nb, __VA_ARGS__)
#define shmemx_min_reduce_nb(...) WEFT_GENERIC_TEAMX(WEFT_REDUCE_MINMAX_TYPES, min_reduce_nb, __VA_ARGS__)
#define shmemx_sum_reduce_nb(...) WEFT_GENERIC_TEAMX(WEFT_REDUCE_ARITH_TYPES, sum_reduce_nb, __VA_ARGS__)
#define shmemx_prod_reduce_nb(...) WEFT_GENERIC_TEAMX(WEFT_REDUCE_ARITH_TYPES, prod_reduce_nb, __VA_ARGS__)
#endif

/* C11 generic forms of the neighbourhood collectives: dispatch on dest, the
 * third argument (weft/generic.h's helpers, as for the team collectives). */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define WEFT_G_neighbor_fcollect(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_neighbor_fcollect)
#define WEFT_G_neighbor_alltoall(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_neighbor_alltoall)
#define WEFT_GENERIC_NEIGHBOR(OP, fed, team, dest, ...)                                   \
    _Generic((dest), WEFT_RMA_TYPES(WEFT_G_##OP) default: weft_generic_no_matching_type)( \
        fed, team, dest, __VA_ARGS__)
#define shmemx_neighbor_fcollect(...) WEFT_GENERIC_NEIGHBOR(neighbor_fcollect, __VA_ARGS__)
#define shmemx_neighbor_alltoall(...) WEFT_GENERIC_NEIGHBOR(neighbor_alltoall, __VA_ARGS__)
#define WEFT_G_and_neighbor_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_and_neighbor_reduce)
#define WEFT_G_or_neighbor_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_or_neighbor_reduce)
#define WEFT_G_xor_neighbor_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_xor_neighbor_reduce)
#define WEFT_G_max_neighbor_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_max_neighbor_reduce)
#define WEFT_G_min_neighbor_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_min_neighbor_reduce)
#define WEFT_G_sum_neighbor_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_sum_neighbor_reduce)
#define WEFT_G_prod_neighbor_reduce(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmemx_##N##_prod_neighbor_reduce)
#define WEFT_GENERIC_NEIGHBOR_RED(TABLE, OP, fed, team, dest, ...)                        \
    _Generic((dest), TABLE(WEFT_G_##OP) default: weft_generic_no_matching_type)(          \
        fed, team, dest, __VA_ARGS__)
#define shmemx_and_neighbor_reduce(...) WEFT_GENERIC_NEIGHBOR_RED(WEFT_REDUCE_BITWISE_TYPES, and_neighbor_reduce, __VA_ARGS__)
#define shmemx_or_neighbor_reduce(...) WEFT_GENERIC_NEIGHBOR_RED(WEFT_REDUCE_BITWISE_TYPES, or_neighbor_reduce, __VA_ARGS__)
#define shmemx_xor_neighbor_reduce(...) WEFT_GENERIC_NEIGHBOR_RED(WEFT_REDUCE_BITWISE_TYPES, xor_neighbor_reduce, __VA_ARGS__)
#define shmemx_max_neighbor_reduce(...) WEFT_GENERIC_NEIGHBOR_RED(WEFT_REDUCE_MINMAX_TYPES, max_neighbor_reduce, __VA_ARGS__)
#define shmemx_min_neighbor_reduce(...) WEFT_GENERIC_NEIGHBOR_RED(WEFT_REDUCE_MINMAX_TYPES, min_neighbor_reduce, __VA_ARGS__)
#define shmemx_sum_neighbor_reduce(...) WEFT_GENERIC_NEIGHBOR_RED(WEFT_REDUCE_ARITH_TYPES, sum_neighbor_reduce, __VA_ARGS__)
#define shmemx_prod_neighbor_reduce(...) WEFT_GENERIC_NEIGHBOR_RED(WEFT_REDUCE_ARITH_TYPES, prod_neighbor_reduce, __VA_ARGS__)
#endif

#endif

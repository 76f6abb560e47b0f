/* SPDX-License-Identifier: BSD-3-Clause */
/* collectives.c owns the team-based collective routines of OpenSHMEM 1.5
 * (sync, broadcast, collect, fcollect, alltoall(s), reductions), the 1.6
 * scans, and their non-blocking forms (the draft's shmem_*_nb and weft's
 * shmemx_*_nb): argument checks and typed entry points, one checking
 * routine per collective for both forms; the algorithms are in
 * coll_engine.c, the non-blocking engine in coll_nb.c. Return values: 0,
 * or -1 for SHMEM_TEAM_INVALID (a non-blocking call then stores
 * SHMEM_REQ_INVALID). */
#include <string.h>

#include <shmemx.h>

#include "api/coll_nb.h"
#include "api/coll_ops.h"

/* The symmetric arguments are checked on every PE even when nothing moves,
 * so a wrong address fails the same way at every size. */
static void check_sym(const char *call, const char *arg, const void *p, size_t len)
{
    int seg;
    uint64_t off;
    weft_sym_resolve_or_die(call, arg, p, len, &seg, &off);
}

static int check_root(const char *call, struct weft_coll *c, int root)
{
    if (root < 0 || root >= c->n)
        weft_fatal(call, "argument PE_root=%d is not a PE of the team [0, %d)", root, c->n);
    return root;
}

/* Opens the session of a blocking call (req NULL), or checks the request
 * argument of a non-blocking one, whose session only serves the checks:
 * the engine runs it later behind the team's earlier ones. */
static int begin(struct weft_coll *c, const char *call, shmem_team_t team, shmem_req_h *req)
{
    if (!req)
        return weft_coll_team_begin(c, call, team);
    weft_check_init(call);
    if (team == SHMEM_TEAM_INVALID) {
        *req = SHMEM_REQ_INVALID;
        return -1;
    }
    weft_coll_team_session(c, call, team, NULL);
    return 0;
}

/* The non-blocking calls' request argument: NULL is refused by name. */
#define REQ(call, request) weft_nb_req(call, request)
static inline shmem_req_h *weft_nb_req(const char *call, shmem_req_h *request)
{
    if (!request)
        weft_fatal(call, "argument request is NULL");
    return request;
}

static int post(struct weft_coll *c, shmem_req_h *req, struct weft_nb_op op)
{
    op.call = c->call;
    op.team = c->team;
    return weft_coll_nb_post(&op, req);
}

static int sync_team(const char *call, shmem_team_t team, shmem_req_h *req)
{
    struct weft_coll c;
    if (begin(&c, call, team, req))
        return -1;
    if (req)
        return post(&c, req, (struct weft_nb_op){.kind = WEFT_NB_SYNC});
    weft_coll_barrier(&c);
    return 0;
}

int shmem_team_sync(shmem_team_t team) { return sync_team("shmem_team_sync", team, NULL); }
int shmemx_team_sync_nb(shmem_team_t team, shmem_req_h *request)
{
    return sync_team("shmemx_team_sync_nb", team, REQ("shmemx_team_sync_nb", request));
}
int shmemx_sync_all_nb(shmem_req_h *request)
{
    return sync_team("shmemx_sync_all_nb", SHMEM_TEAM_WORLD, REQ("shmemx_sync_all_nb", request));
}
/* The quiet happens at the call: the barrier orders what was issued before
 * it, and the default context is the application thread's. */
int shmemx_barrier_all_nb(shmem_req_h *request)
{
    REQ("shmemx_barrier_all_nb", request);
    weft_check_init("shmemx_barrier_all_nb");
    weft_transport_quiet(&weft_ctx_default);
    return sync_team("shmemx_barrier_all_nb", SHMEM_TEAM_WORLD, request);
}

static int bcast(const char *call, shmem_team_t team, void *dest, const void *source,
                 size_t len, int root, shmem_req_h *req)
{
    struct weft_coll c;
    if (begin(&c, call, team, req))
        return -1;
    check_root(call, &c, root);
    check_sym(call, "dest", dest, len);
    if (req)
        return post(&c, req, (struct weft_nb_op){.kind = WEFT_NB_BCAST, .dest = dest,
                                                 .source = source, .len = len, .root = root});
    weft_coll_bcast(&c, dest, source, len, root,
                    WEFT_BCAST_ROOT_COPIES | WEFT_BCAST_WAIT_READY);
    return 0;
}

static int fcollect(const char *call, shmem_team_t team, void *dest, const void *source,
                    size_t len, shmem_req_h *req)
{
    struct weft_coll c;
    if (begin(&c, call, team, req))
        return -1;
    check_sym(call, "dest", dest, weft_nbytes(call, "nelems", len, (size_t)c.n));
    if (req)
        return post(&c, req, (struct weft_nb_op){.kind = WEFT_NB_FCOLLECT, .dest = dest,
                                                 .source = source, .len = len});
    weft_coll_fcollect(&c, dest, source, len);
    return 0;
}

static int collect(const char *call, shmem_team_t team, void *dest, const void *source,
                   size_t len, shmem_req_h *req)
{
    struct weft_coll c;
    if (begin(&c, call, team, req))
        return -1;
    check_sym(call, "dest", dest, len);
    if (req)
        return post(&c, req, (struct weft_nb_op){.kind = WEFT_NB_COLLECT, .dest = dest,
                                                 .source = source, .len = len});
    weft_coll_collect(&c, dest, source, len);
    return 0;
}

static int alltoall(const char *call, shmem_team_t team, void *dest, const void *source,
                    size_t len, shmem_req_h *req)
{
    struct weft_coll c;
    if (begin(&c, call, team, req))
        return -1;
    check_sym(call, "dest", dest, weft_nbytes(call, "nelems", len, (size_t)c.n));
    if (req)
        return post(&c, req, (struct weft_nb_op){.kind = WEFT_NB_ALLTOALL, .dest = dest,
                                                 .source = source, .len = len});
    weft_coll_alltoall(&c, dest, source, len);
    return 0;
}

static int alltoalls(const char *call, shmem_team_t team, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t esz, size_t nelems, shmem_req_h *req)
{
    struct weft_coll c;
    if (begin(&c, call, team, req))
        return -1;
    if (dst < 1 || sst < 1)
        weft_fatal(call, "arguments dst=%td and sst=%td must be at least 1", dst, sst);
    if (req)
        return post(&c, req, (struct weft_nb_op){.kind = WEFT_NB_ALLTOALLS, .dest = dest,
                                                 .source = source, .len = nelems, .esz = esz,
                                                 .dst = dst, .sst = sst});
    weft_coll_alltoalls(&c, dest, source, dst, sst, esz, nelems);
    return 0;
}

/* Each family's blocking and non-blocking forms, mem and typed. */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return bcast("shmem_broadcastmem", team, dest, source, nelems, PE_root, NULL);
}
int shmem_broadcastmem_nb(shmem_team_t team, void *dest, const void *source, size_t nelems,
                          int PE_root, shmem_req_h *request)
{
    return bcast("shmem_broadcastmem_nb", team, dest, source, nelems, PE_root,
                 REQ("shmem_broadcastmem_nb", request));
}
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return collect("shmem_collectmem", team, dest, source, nelems, NULL);
}
int shmemx_collectmem_nb(shmem_team_t team, void *dest, const void *source, size_t nelems,
                         shmem_req_h *request)
{
    return collect("shmemx_collectmem_nb", team, dest, source, nelems,
                   REQ("shmemx_collectmem_nb", request));
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return fcollect("shmem_fcollectmem", team, dest, source, nelems, NULL);
}
int shmemx_fcollectmem_nb(shmem_team_t team, void *dest, const void *source, size_t nelems,
                          shmem_req_h *request)
{
    return fcollect("shmemx_fcollectmem_nb", team, dest, source, nelems,
                    REQ("shmemx_fcollectmem_nb", request));
}
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return alltoall("shmem_alltoallmem", team, dest, source, nelems, NULL);
}
int shmem_alltoallmem_nb(shmem_team_t team, void *dest, const void *source, size_t nelems,
                         shmem_req_h *request)
{
    return alltoall("shmem_alltoallmem_nb", team, dest, source, nelems,
                    REQ("shmem_alltoallmem_nb", request));
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, 1, nelems, NULL);
}
int shmemx_alltoallsmem_nb(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, shmem_req_h *request)
{
    return alltoalls("shmemx_alltoallsmem_nb", team, dest, source, dst, sst, 1, nelems,
                     REQ("shmemx_alltoallsmem_nb", request));
}

/* One typed family in both forms: PFX_N_OP (blocking, no request) and
 * NBPFX_N_OP_nb. ARGS are the checking routine's arguments after the
 * call's name, team, dest and source. */
#define WEFT_DEF_COLL_PAIR(N, T, OP, NBPFX, CHECK, PARAMS, ARGS)                           \
    int shmem_##N##_##OP(shmem_team_t team, T *dest, const T *source,                      \
                         WEFT_COLL_UNPAREN PARAMS)                                         \
    {                                                                                      \
        const char *call = "shmem_" #N "_" #OP;                                           \
        return CHECK(call, team, dest, source, WEFT_COLL_UNPAREN ARGS, NULL);              \
    }                                                                                      \
    int NBPFX##_##N##_##OP##_nb(shmem_team_t team, T *dest, const T *source,               \
                                WEFT_COLL_UNPAREN PARAMS, shmem_req_h *request)            \
    {                                                                                      \
        const char *call = #NBPFX "_" #N "_" #OP "_nb";                                   \
        return CHECK(call, team, dest, source, WEFT_COLL_UNPAREN ARGS,                     \
                     REQ(call, request));                                                  \
    }
#define WEFT_COLL_UNPAREN(...) __VA_ARGS__

#define WEFT_DEF_COLL(N, T, D, G)                                                          \
    WEFT_DEF_COLL_PAIR(N, T, broadcast, shmem, bcast, (size_t nelems, int PE_root),        \
                       (NBYTES(call, sizeof(T)), PE_root))                                 \
    WEFT_DEF_COLL_PAIR(N, T, collect, shmemx, collect, (size_t nelems),                    \
                       (NBYTES(call, sizeof(T))))                                          \
    WEFT_DEF_COLL_PAIR(N, T, fcollect, shmemx, fcollect, (size_t nelems),                  \
                       (NBYTES(call, sizeof(T))))                                          \
    WEFT_DEF_COLL_PAIR(N, T, alltoall, shmem, alltoall, (size_t nelems),                   \
                       (NBYTES(call, sizeof(T))))                                          \
    WEFT_DEF_COLL_PAIR(N, T, alltoalls, shmemx, alltoalls,                                 \
                       (ptrdiff_t dst, ptrdiff_t sst, size_t nelems),                      \
                       (dst, sst, sizeof(T), nelems))
WEFT_RMA_TYPES(WEFT_DEF_COLL)
#undef WEFT_DEF_COLL

/* ---- reductions -------------------------------------------------------------- */
static int reduce(const char *call, shmem_team_t team, void *dest, const void *source,
                  size_t count, size_t esz, weft_red_fn op, shmem_req_h *req)
{
    struct weft_coll c;
    if (begin(&c, call, team, req))
        return -1;
    size_t bytes = weft_nbytes(call, "nreduce", count, esz);
    check_sym(call, "dest", dest, bytes);
    const char *d = dest, *s = source;
    if (d != s && d < s + bytes && s < d + bytes)
        weft_fatal(call, "arguments dest=%p and source=%p overlap without being equal",
                   dest, source);
    if (req)
        return post(&c, req, (struct weft_nb_op){.kind = WEFT_NB_REDUCE, .dest = dest,
                                                 .source = source, .len = count, .esz = esz,
                                                 .red = op});
    weft_coll_allreduce(&c, dest, source, count, esz, op);
    return 0;
}

#define WEFT_DEF_REDUCE(N, T, OP)                                                          \
    WEFT_DEF_COLL_PAIR(N, T, OP##_reduce, shmemx, reduce, (size_t nreduce),                \
                       (nreduce, sizeof(T), weft_red_##N##_##OP))
#define WEFT_DEF_REDUCE_BITWISE(N, T, D, G)                                                \
    WEFT_DEF_REDUCE(N, T, and) WEFT_DEF_REDUCE(N, T, or) WEFT_DEF_REDUCE(N, T, xor)
#define WEFT_DEF_REDUCE_MINMAX(N, T, D, G) WEFT_DEF_REDUCE(N, T, max) WEFT_DEF_REDUCE(N, T, min)
#define WEFT_DEF_REDUCE_ARITH(N, T, D, G) WEFT_DEF_REDUCE(N, T, sum) WEFT_DEF_REDUCE(N, T, prod)
WEFT_REDUCE_BITWISE_TYPES(WEFT_DEF_REDUCE_BITWISE)
WEFT_REDUCE_MINMAX_TYPES(WEFT_DEF_REDUCE_MINMAX)
WEFT_REDUCE_ARITH_TYPES(WEFT_DEF_REDUCE_ARITH)

/* ---- scans (1.6) -------------------------------------------------------------- */
static int scan(const char *call, shmem_team_t team, void *dest, const void *source,
                size_t count, size_t esz, weft_red_fn op, int exclusive)
{
    struct weft_coll c;
    if (begin(&c, call, team, NULL))
        return -1;
    size_t bytes = weft_nbytes(call, "nreduce", count, esz);
    check_sym(call, "dest", dest, bytes);
    const char *d = dest, *s = source;
    if (d != s && d < s + bytes && s < d + bytes)
        weft_fatal(call, "arguments dest=%p and source=%p overlap without being equal",
                   dest, source);
    weft_coll_scan(&c, dest, source, count, esz, op, exclusive);
    return 0;
}

#define WEFT_DEF_SCAN(N, T, D, G)                                                          \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems) \
    {                                                                                      \
        return scan("shmem_" #N "_sum_inscan", team, dest, source, nelems, sizeof(T),      \
                    weft_red_##N##_sum, 0);                                                \
    }                                                                                      \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems) \
    {                                                                                      \
        return scan("shmem_" #N "_sum_exscan", team, dest, source, nelems, sizeof(T),      \
                    weft_red_##N##_sum, 1);                                                \
    }
WEFT_SCAN_TYPES(WEFT_DEF_SCAN)

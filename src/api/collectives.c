/* SPDX-License-Identifier: BSD-3-Clause */
/* collectives.c owns the team-based collective routines of OpenSHMEM 1.5
 * (sync, broadcast, collect, fcollect, alltoall(s), reductions) and the
 * 1.6 scans: argument checks and typed entry points; the algorithms are in
 * coll_engine.c. Return values: 0, or -1 for SHMEM_TEAM_INVALID. */
#include <string.h>

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

int shmem_team_sync(shmem_team_t team)
{
    struct weft_coll c;
    if (weft_coll_team_begin(&c, "shmem_team_sync", team))
        return -1;
    weft_coll_barrier(&c);
    return 0;
}

static int bcast(const char *call, shmem_team_t team, void *dest, const void *source,
                 size_t len, int root)
{
    struct weft_coll c;
    if (weft_coll_team_begin(&c, call, team))
        return -1;
    check_root(call, &c, root);
    check_sym(call, "dest", dest, len);
    weft_coll_bcast(&c, dest, source, len, root,
                    WEFT_BCAST_ROOT_COPIES | WEFT_BCAST_WAIT_READY);
    return 0;
}

static int fcollect(const char *call, shmem_team_t team, void *dest, const void *source,
                    size_t len)
{
    struct weft_coll c;
    if (weft_coll_team_begin(&c, call, team))
        return -1;
    check_sym(call, "dest", dest, weft_nbytes(call, "nelems", len, (size_t)c.n));
    weft_coll_fcollect(&c, dest, source, len);
    return 0;
}

static int collect(const char *call, shmem_team_t team, void *dest, const void *source,
                   size_t len)
{
    struct weft_coll c;
    if (weft_coll_team_begin(&c, call, team))
        return -1;
    check_sym(call, "dest", dest, len);
    weft_coll_collect(&c, dest, source, len);
    return 0;
}

static int alltoall(const char *call, shmem_team_t team, void *dest, const void *source,
                    size_t len)
{
    struct weft_coll c;
    if (weft_coll_team_begin(&c, call, team))
        return -1;
    check_sym(call, "dest", dest, weft_nbytes(call, "nelems", len, (size_t)c.n));
    weft_coll_alltoall(&c, dest, source, len);
    return 0;
}

static int alltoalls(const char *call, shmem_team_t team, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t esz, size_t nelems)
{
    struct weft_coll c;
    if (weft_coll_team_begin(&c, call, team))
        return -1;
    if (dst < 1 || sst < 1)
        weft_fatal(call, "arguments dst=%td and sst=%td must be at least 1", dst, sst);
    weft_coll_alltoalls(&c, dest, source, dst, sst, esz, nelems);
    return 0;
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return bcast("shmem_broadcastmem", team, dest, source, nelems, PE_root);
}
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return collect("shmem_collectmem", team, dest, source, nelems);
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return fcollect("shmem_fcollectmem", team, dest, source, nelems);
}
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return alltoall("shmem_alltoallmem", team, dest, source, nelems);
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, 1, nelems);
}

#define WEFT_DEF_COLL(N, T, D, G)                                                          \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,   \
                              int PE_root)                                                \
    {                                                                                      \
        return bcast("shmem_" #N "_broadcast", team, dest, source,                         \
                     NBYTES("shmem_" #N "_broadcast", sizeof(T)), PE_root);                \
    }                                                                                      \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)    \
    {                                                                                      \
        return collect("shmem_" #N "_collect", team, dest, source,                         \
                       NBYTES("shmem_" #N "_collect", sizeof(T)));                         \
    }                                                                                      \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                      \
        return fcollect("shmem_" #N "_fcollect", team, dest, source,                       \
                        NBYTES("shmem_" #N "_fcollect", sizeof(T)));                       \
    }                                                                                      \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                      \
        return alltoall("shmem_" #N "_alltoall", team, dest, source,                       \
                        NBYTES("shmem_" #N "_alltoall", sizeof(T)));                       \
    }                                                                                      \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems)                                \
    {                                                                                      \
        return alltoalls("shmem_" #N "_alltoalls", team, dest, source, dst, sst, sizeof(T), \
                         nelems);                                                          \
    }
WEFT_RMA_TYPES(WEFT_DEF_COLL)
#undef WEFT_DEF_COLL

/* ---- reductions -------------------------------------------------------------- */
static int reduce(const char *call, shmem_team_t team, void *dest, const void *source,
                  size_t count, size_t esz, weft_red_fn op)
{
    struct weft_coll c;
    if (weft_coll_team_begin(&c, call, team))
        return -1;
    size_t bytes = weft_nbytes(call, "nreduce", count, esz);
    check_sym(call, "dest", dest, bytes);
    const char *d = dest, *s = source;
    if (d != s && d < s + bytes && s < d + bytes)
        weft_fatal(call, "arguments dest=%p and source=%p overlap without being equal",
                   dest, source);
    weft_coll_allreduce(&c, dest, source, count, esz, op);
    return 0;
}

#define WEFT_DEF_REDUCE(N, T, OP)                                                          \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,             \
                                  size_t nreduce)                                          \
    {                                                                                      \
        return reduce("shmem_" #N "_" #OP "_reduce", team, dest, source, nreduce,          \
                      sizeof(T), weft_red_##N##_##OP);                                     \
    }
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
    if (weft_coll_team_begin(&c, call, team))
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

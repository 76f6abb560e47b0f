/* SPDX-License-Identifier: BSD-3-Clause */
/* neighbor.c owns the neighbourhood collectives of shmemx.h: the teams of a
 * federation as the vertices of an undirected graph (every team adjacent to
 * every other unless the program gives the adjacency), and collectives
 * between corresponding members of neighbouring teams (the PEs at the same
 * index). Each PE puts straight into its counterparts' dest, then a quiet
 * and a barrier over the parent team (the node-leader one where the parent
 * spans nodes) end the call. The neighbourhood reduction goes through the
 * teams' leaders (their index 0): each leader reduces its team, combines
 * the partials of its neighbours' leaders, and hands the result to its
 * team. */
#include <stdlib.h>
#include <string.h>

#include "api/coll_ops.h"
#include "api/federation.h"
#include "core/fnv.h"

static int n_nbr(const struct weft_federation *f, int t)
{
    return f->nbr_first ? f->nbr_first[t + 1] - f->nbr_first[t] : f->nteams - 1;
}

static int nbr_at(const struct weft_federation *f, int t, int i)
{
    return f->nbr_first ? f->nbr[f->nbr_first[t] + i] : i < t ? i : i + 1;
}

/* Position of team t among team u's neighbours, or -1. */
static int nbr_pos(const struct weft_federation *f, int u, int t)
{
    if (!f->nbr_first)
        return t == u ? -1 : t < u ? t : t - 1;
    for (int i = 0; i < n_nbr(f, u); i++)
        if (f->nbr[f->nbr_first[u] + i] == t)
            return i;
    return -1;
}

static void check_team_arg(const char *call, const struct weft_federation *f, int team)
{
    if (team < 0 || team >= f->nteams)
        weft_fatal(call, "argument team=%d is not a team of the federation: its teams are "
                   "[0, %d)", team, f->nteams);
}

/* The parent must be the team the federation was made over. */
static void check_parent(const char *call, struct weft_federation *f, shmem_team_t parent)
{
    if (parent == SHMEM_TEAM_INVALID)
        weft_fatal(call, "argument parent_team is SHMEM_TEAM_INVALID");
    if (f->checked_parent == parent)
        return;
    int ok = parent->size == f->n && parent->my_pe == f->my_pe;
    for (int i = 0; ok && i < f->n; i++)
        ok = weft_team_world_pe(parent, i) == f->world[i];
    if (!ok)
        weft_fatal(call, "argument parent_team (%d PEs) is not the team the federation was made "
                   "over (%d PEs)", parent->size, f->n);
    f->checked_parent = parent;
}

static uint64_t graph_hash(const struct weft_federation *f)
{
    uint64_t h = WEFT_FNV1A_BASIS;
    for (int t = 0; t < f->nteams; t++)
        for (int i = -1; i < n_nbr(f, t); i++)
            h = weft_fnv1a_step(h, (uint32_t)(i < 0 ? -1 - t : nbr_at(f, t, i)));
    return h;
}

int shmemx_federation_set_neighbors(shmemx_federation_t fed, shmem_team_t parent_team,
                                    const int *degrees, const int *neighbors)
{
    const char *call = "shmemx_federation_set_neighbors";
    struct weft_federation *f = weft_federation_check(call, fed);
    check_parent(call, f, parent_team);
    if (!degrees != !neighbors)
        weft_fatal(call, "arguments degrees and neighbors must both be NULL (every team "
                   "adjacent to every other) or both be given");
    int *first = NULL, *nb = NULL;
    if (degrees) {
        first = calloc((size_t)f->nteams + 1, sizeof *first);
        if (!first)
            weft_fatal(call, "out of memory");
        for (int t = 0; t < f->nteams; t++) {
            if (degrees[t] < 0 || degrees[t] >= f->nteams)
                weft_fatal(call, "argument degrees[%d]=%d is out of range [0, %d)", t, degrees[t],
                           f->nteams);
            first[t + 1] = first[t] + degrees[t];
        }
        nb = malloc((size_t)(first[f->nteams] ? first[f->nteams] : 1) * sizeof *nb);
        if (!nb)
            weft_fatal(call, "out of memory");
        for (int t = 0; t < f->nteams; t++)
            for (int j = first[t]; j < first[t + 1]; j++) {
                int u = neighbors[j];
                if (u < 0 || u >= f->nteams || u == t || (j > first[t] && u <= nb[j - 1]))
                    weft_fatal(call, "argument neighbors[%d]=%d: team %d's neighbours must be "
                               "other teams of [0, %d) in ascending order", j, u, t, f->nteams);
                nb[j] = u;
            }
    }
    free(f->nbr_first);
    free(f->nbr);
    f->nbr_first = first;
    f->nbr = nb;
    for (int t = 0; t < f->nteams; t++)
        for (int i = 0; i < n_nbr(f, t); i++)
            if (nbr_pos(f, nbr_at(f, t, i), t) < 0)
                weft_fatal(call, "argument neighbors: team %d lists team %d, which does not list "
                           "it (the graph is undirected)", t, nbr_at(f, t, i));
    /* Every PE must give the same graph: max of the hash and of its
     * complement over the parent agree only then. */
    uint64_t w[2] = {graph_hash(f), ~graph_hash(f)}, m[2] = {w[0], w[1]};
    struct weft_coll c;
    if (parent_team->size > 1 && weft_coll_team_begin(&c, call, parent_team) == 0) {
        uint64_t *ctl = weft_team_ctl(parent_team->slot);
        memcpy(ctl, w, sizeof w);
        weft_coll_allreduce(&c, ctl, ctl, 2, sizeof(uint64_t), weft_red_uint64_max);
        memcpy(m, ctl, sizeof m);
        weft_coll_end(&c);
    }
    if (m[0] != ~m[1])
        weft_fatal(call, "argument neighbors: the PEs of the parent team gave different graphs");
    return 0;
}

int shmemx_federation_n_neighbors(shmemx_federation_t fed, int team)
{
    const char *call = "shmemx_federation_n_neighbors";
    struct weft_federation *f = weft_federation_check(call, fed);
    check_team_arg(call, f, team);
    return n_nbr(f, team);
}

int shmemx_federation_neighbor(shmemx_federation_t fed, int team, int i)
{
    const char *call = "shmemx_federation_neighbor";
    struct weft_federation *f = weft_federation_check(call, fed);
    check_team_arg(call, f, team);
    if (i < 0 || i >= n_nbr(f, team))
        weft_fatal(call, "argument i=%d is out of range [0, %d) (team %d's neighbours)", i,
                   n_nbr(f, team), team);
    return nbr_at(f, team, i);
}

/* Block j of dest comes from the counterpart in neighbour j of my team;
 * alltoall sends block j of source to neighbour j, fcollect all of source
 * to each. A PE in no team, or whose counterpart a neighbour lacks, moves
 * nothing for it (the blocks stay as they were). */
static int neighbor_exchange(const char *call, shmemx_federation_t fed, shmem_team_t parent,
                             void *dest, const void *source, size_t len, int all_to_all)
{
    weft_check_init(call);
    struct weft_federation *f = weft_federation_check(call, fed);
    check_parent(call, f, parent);
    int t = f->team_of[f->my_pe], idx = f->team_pe[f->my_pe];
    int deg = t >= 0 ? n_nbr(f, t) : 0;
    struct weft_coll c;
    weft_coll_team_begin(&c, call, parent);
    if (len && deg) {
        int seg;
        uint64_t off;
        weft_sym_resolve_or_die(call, "dest", dest,
                                weft_nbytes(call, "nelems", len, (size_t)deg), &seg, &off);
        for (int j = 0; j < deg; j++) {
            int u = nbr_at(f, t, j);
            if (idx >= f->first[u + 1] - f->first[u])
                continue;
            int q = f->pe_of[f->first[u] + idx];
            const char *from = (const char *)source + (all_to_all ? (size_t)j * len : 0);
            weft_transport_put(&weft_ctx_default, seg, off + (size_t)nbr_pos(f, u, t) * len,
                               from, len, f->world[q]);
        }
    }
    weft_transport_quiet(&weft_ctx_default);
    weft_coll_barrier(&c);
    weft_coll_end(&c);
    return 0;
}

int shmemx_neighbor_fcollectmem(shmemx_federation_t fed, shmem_team_t parent_team, void *dest,
                                const void *source, size_t nelems)
{
    return neighbor_exchange("shmemx_neighbor_fcollectmem", fed, parent_team, dest, source,
                             nelems, 0);
}

int shmemx_neighbor_alltoallmem(shmemx_federation_t fed, shmem_team_t parent_team, void *dest,
                                const void *source, size_t nelems)
{
    return neighbor_exchange("shmemx_neighbor_alltoallmem", fed, parent_team, dest, source,
                             nelems, 1);
}

#define WEFT_DEF_NEIGHBOR_OP(N, T, OP, ALLTOALL)                                           \
    int shmemx_##N##_neighbor_##OP(shmemx_federation_t fed, shmem_team_t parent_team,      \
                                   T *dest, const T *source, size_t nelems)               \
    {                                                                                      \
        const char *call = "shmemx_" #N "_neighbor_" #OP;                                  \
        return neighbor_exchange(call, fed, parent_team, dest, source,                     \
                                 weft_nbytes(call, "nelems", nelems, sizeof(T)), ALLTOALL); \
    }
#define WEFT_DEF_NEIGHBOR(N, T, D, G)                                                      \
    WEFT_DEF_NEIGHBOR_OP(N, T, fcollect, 0) WEFT_DEF_NEIGHBOR_OP(N, T, alltoall, 1)
WEFT_RMA_TYPES(WEFT_DEF_NEIGHBOR)
#undef WEFT_DEF_NEIGHBOR

/* ---- the reduction across neighbouring teams, through their leaders ----- */

/* acc = acc OP (count elements at (seg, off) of world PE pe): in place where
 * it is mapped, else through a private buffer, chunk by chunk. */
#define NBR_RED_CHUNK ((size_t)64 * 1024)
static void combine_from(void *acc, int seg, uint64_t off, size_t count, size_t esz,
                         weft_red_fn op, int pe, char **buf)
{
    const void *theirs = weft_transport_ptr(seg, off, pe);
    if (theirs) {
        op(acc, acc, theirs, count);
        return;
    }
    size_t cap = NBR_RED_CHUNK / esz ? NBR_RED_CHUNK / esz : 1;
    if (!*buf && !(*buf = malloc(cap * esz)))
        weft_fatal("shmemx_neighbor_reduce", "out of private memory (%zu bytes)", cap * esz);
    for (size_t o = 0; o < count; o += cap) {
        size_t m = count - o < cap ? count - o : cap;
        weft_transport_get(&weft_ctx_default, *buf, seg, off + o * esz, m * esz, pe);
        op((char *)acc + o * esz, (char *)acc + o * esz, *buf, m);
    }
}

/* dest of every PE of team t = OP over the sources of the PEs of t and of
 * t's neighbours, combined in team order and, inside a team, in index
 * order (so teams with the same neighbourhood get the same bits). Four
 * barriers over the parent: sources ready; every team's partial in its
 * leader's dest; the leaders done reading the partials; the results in
 * place. A PE in no team only takes part in the barriers. */
static int neighbor_reduce(const char *call, shmemx_federation_t fed, shmem_team_t parent,
                           void *dest, const void *source, size_t count, size_t esz,
                           weft_red_fn op)
{
    weft_check_init(call);
    struct weft_federation *f = weft_federation_check(call, fed);
    check_parent(call, f, parent);
    size_t bytes = weft_nbytes(call, "nreduce", count, esz);
    int t = f->team_of[f->my_pe];
    int dseg = 0, sseg = 0;
    uint64_t doff = 0, soff = 0;
    if (bytes && t >= 0) {
        weft_sym_resolve_or_die(call, "dest", dest, bytes, &dseg, &doff);
        weft_sym_resolve_or_die(call, "source", source, bytes, &sseg, &soff);
    }
    int leader = t >= 0 && f->team_pe[f->my_pe] == 0;
    struct weft_coll c;
    weft_coll_team_begin(&c, call, parent);
    weft_coll_barrier(&c);
    char *buf = NULL, *result = NULL;
    if (leader && bytes) {
        memmove(dest, source, bytes);
        for (int k = f->first[t] + 1; k < f->first[t + 1]; k++)
            combine_from(dest, sseg, soff, count, esz, op, f->world[f->pe_of[k]], &buf);
    }
    weft_coll_barrier(&c);
    if (leader && bytes) {
        if (!(result = malloc(bytes)))
            weft_fatal(call, "out of private memory (%zu bytes)", bytes);
        int deg = n_nbr(f, t);
        for (int j = 0, placed = 0, started = 0; j < deg || !placed; started = 1) {
            int u;
            if (!placed && (j == deg || nbr_at(f, t, j) > t)) {
                u = t; /* my own partial, in its place in team order */
                placed = 1;
            } else {
                u = nbr_at(f, t, j++);
            }
            int q = f->world[f->pe_of[f->first[u]]];
            if (u == t && !started)
                memcpy(result, dest, bytes);
            else if (u == t)
                op(result, result, dest, count);
            else if (!started)
                weft_transport_get(&weft_ctx_default, result, dseg, doff, bytes, q);
            else
                combine_from(result, dseg, doff, count, esz, op, q, &buf);
        }
    }
    weft_coll_barrier(&c);
    if (result) {
        memcpy(dest, result, bytes);
        for (int k = f->first[t] + 1; k < f->first[t + 1]; k++)
            weft_transport_put_nbi(&weft_ctx_default, dseg, doff, result, bytes,
                                   f->world[f->pe_of[k]]);
        weft_transport_quiet(&weft_ctx_default);
    }
    weft_coll_barrier(&c);
    weft_coll_end(&c);
    free(result);
    free(buf);
    return 0;
}

#define WEFT_DEF_NEIGHBOR_RED(N, T, OP)                                                    \
    int shmemx_##N##_##OP##_neighbor_reduce(shmemx_federation_t fed, shmem_team_t parent_team, \
                                            T *dest, const T *source, size_t nreduce)     \
    {                                                                                      \
        return neighbor_reduce("shmemx_" #N "_" #OP "_neighbor_reduce", fed, parent_team,  \
                               dest, source, nreduce, sizeof(T), weft_red_##N##_##OP);     \
    }
#define WEFT_DEF_NEIGHBOR_BITWISE(N, T, D, G)                                              \
    WEFT_DEF_NEIGHBOR_RED(N, T, and) WEFT_DEF_NEIGHBOR_RED(N, T, or)                       \
    WEFT_DEF_NEIGHBOR_RED(N, T, xor)
#define WEFT_DEF_NEIGHBOR_MINMAX(N, T, D, G)                                               \
    WEFT_DEF_NEIGHBOR_RED(N, T, max) WEFT_DEF_NEIGHBOR_RED(N, T, min)
#define WEFT_DEF_NEIGHBOR_ARITH(N, T, D, G)                                                \
    WEFT_DEF_NEIGHBOR_RED(N, T, sum) WEFT_DEF_NEIGHBOR_RED(N, T, prod)
WEFT_REDUCE_BITWISE_TYPES(WEFT_DEF_NEIGHBOR_BITWISE)
WEFT_REDUCE_MINMAX_TYPES(WEFT_DEF_NEIGHBOR_MINMAX)
WEFT_REDUCE_ARITH_TYPES(WEFT_DEF_NEIGHBOR_ARITH)
#undef WEFT_DEF_NEIGHBOR_BITWISE
#undef WEFT_DEF_NEIGHBOR_MINMAX
#undef WEFT_DEF_NEIGHBOR_ARITH
#undef WEFT_DEF_NEIGHBOR_RED

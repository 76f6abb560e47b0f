/* SPDX-License-Identifier: BSD-3-Clause */
/* neighbor.c owns the neighbourhood collectives of shmemx.h: the teams of a
 * federation as the vertices of an undirected graph (every team adjacent to
 * every other unless the program gives the adjacency), and collectives
 * between corresponding members of neighbouring teams (the PEs at the same
 * index). Each PE puts straight into its counterparts' dest, then a quiet
 * and a barrier over the parent team (the node-leader one where the parent
 * spans nodes) end the call. */
#include <stdlib.h>
#include <string.h>

#include "api/coll_ops.h"
#include "api/federation.h"

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
    uint64_t h = 1469598103934665603ull;
    for (int t = 0; t < f->nteams; t++)
        for (int i = -1; i < n_nbr(f, t); i++)
            h = (h ^ (uint64_t)(uint32_t)(i < 0 ? -1 - t : nbr_at(f, t, i))) * 1099511628211ull;
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

/* SPDX-License-Identifier: BSD-3-Clause */
/* federation.c owns the federation object of shmemx.h and its queries: a
 * local, reference-counted description of every team of one split (which
 * team holds each parent PE, at what index), so a PE can ask about any PE,
 * not only itself. Nothing here communicates: the system federations come
 * from the topology every PE already holds, the others from what the
 * splits learned (api/fed.c). */
#include <stdlib.h>
#include <string.h>

#include "api/federation.h"
#include "core/runtime.h"
#include "runtime/team.h"
#include "runtime/topology.h"

#define WEFT_FED_MAGIC 0x46454445u /* "FEDE" */

static void *fed_alloc(const char *call, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        weft_fatal(call, "out of memory for a federation of %zu PEs", n);
    return p;
}

struct rank_entry {
    long rank;
    int pe;
};

static int cmp_rank(const void *a, const void *b)
{
    const struct rank_entry *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->pe > y->pe) - (x->pe < y->pe);
}

struct weft_federation *weft_federation_new(const char *call, int n, int my_pe,
                                            const int *world, const int *team_of,
                                            const long *rank, int nteams)
{
    struct weft_federation *f = fed_alloc(call, 1, sizeof *f);
    f->magic = WEFT_FED_MAGIC;
    f->refs = 1;
    f->n = n;
    f->nteams = nteams;
    f->my_pe = my_pe;
    f->team_of = fed_alloc(call, (size_t)n, sizeof(int));
    f->team_pe = fed_alloc(call, (size_t)n, sizeof(int));
    f->pe_of = fed_alloc(call, (size_t)n, sizeof(int));
    f->world = fed_alloc(call, (size_t)n, sizeof(int));
    f->first = fed_alloc(call, (size_t)nteams + 1, sizeof(int));
    memcpy(f->world, world, (size_t)n * sizeof(int));
    memcpy(f->team_of, team_of, (size_t)n * sizeof(int));
    /* Counting sort by team, then each team's members by rank. */
    for (int i = 0; i < n; i++)
        if (team_of[i] >= 0)
            f->first[team_of[i] + 1]++;
    for (int t = 0; t < nteams; t++)
        f->first[t + 1] += f->first[t];
    int *fill = fed_alloc(call, (size_t)nteams + 1, sizeof(int));
    memcpy(fill, f->first, ((size_t)nteams + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        if (team_of[i] >= 0)
            f->pe_of[fill[team_of[i]]++] = i;
    free(fill);
    struct rank_entry *e = fed_alloc(call, (size_t)n, sizeof *e);
    for (int t = 0; t < nteams; t++) {
        int lo = f->first[t], m = f->first[t + 1] - lo;
        for (int j = 0; j < m; j++)
            e[j] = (struct rank_entry){rank ? rank[f->pe_of[lo + j]] : 0, f->pe_of[lo + j]};
        qsort(e, (size_t)m, sizeof *e, cmp_rank);
        for (int j = 0; j < m; j++)
            f->pe_of[lo + j] = e[j].pe;
    }
    free(e);
    for (int i = 0; i < n; i++)
        f->team_pe[i] = -1;
    for (int t = 0; t < nteams; t++)
        for (int j = f->first[t]; j < f->first[t + 1]; j++)
            f->team_pe[f->pe_of[j]] = j - f->first[t];
    return f;
}

void weft_federation_ref(struct weft_federation *f)
{
    if (f)
        f->refs++;
}

void weft_federation_unref(struct weft_federation *f)
{
    if (!f || --f->refs > 0)
        return;
    f->magic = 0;
    free(f->team_of);
    free(f->team_pe);
    free(f->pe_of);
    free(f->world);
    free(f->first);
    free(f->nbr_first);
    free(f->nbr);
    free(f);
}

struct weft_federation *weft_federation_of_type(const char *call, shmem_team_t parent, int t)
{
    int n = parent->size;
    int *world = fed_alloc(call, (size_t)n, sizeof(int));
    int *team_of = fed_alloc(call, (size_t)n, sizeof(int));
    /* Teams in order of their lowest parent PE, members in parent order. */
    for (int i = 0; i < n; i++)
        world[i] = weft_team_world_pe(parent, i);
    int nteams = weft_topology_number((enum weft_topo_type)t, n, world, team_of);
    struct weft_federation *f =
        weft_federation_new(call, n, parent->my_pe, world, team_of, NULL, nteams);
    free(world);
    free(team_of);
    return f;
}

/* ---- the public routines ------------------------------------------------- */
struct weft_federation *weft_federation_check(const char *call, shmemx_federation_t fed)
{
    weft_check_init(call);
    if (fed == SHMEMX_FEDERATION_INVALID)
        weft_fatal(call, "argument fed is SHMEMX_FEDERATION_INVALID");
    if (fed->magic != WEFT_FED_MAGIC)
        weft_fatal(call, "argument fed=%p is not a live federation (destroyed, or not made by "
                   "shmemx_federation_create or shmemx_team_get_federation)", (void *)fed);
    return fed;
}

static void check_pe(const char *call, const struct weft_federation *f, const char *arg, int pe)
{
    if (pe < 0 || pe >= f->n)
        weft_fatal(call, "argument %s=%d is out of range [0, %d) (the PEs of the federation's "
                   "parent team)", arg, pe, f->n);
}

static void check_team(const char *call, const struct weft_federation *f, const char *arg,
                       int team)
{
    if (team < 0 || team >= f->nteams)
        weft_fatal(call, "argument %s=%d is not a team of the federation: its teams are "
                   "[0, %d)", arg, team, f->nteams);
}

int shmemx_federation_create(shmem_team_t parent_team, int type, shmemx_federation_t *fed)
{
    const char *call = "shmemx_federation_create";
    weft_check_init(call);
    if (!fed)
        weft_fatal(call, "argument fed is NULL");
    enum weft_topo_type t = weft_api_topo_type(call, type);
    *fed = SHMEMX_FEDERATION_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID)
        return -1;
    *fed = weft_federation_of_type(call, parent_team, t);
    return 0;
}

int shmemx_team_get_federation(shmem_team_t team, shmemx_federation_t *fed)
{
    const char *call = "shmemx_team_get_federation";
    weft_check_init(call);
    if (!fed)
        weft_fatal(call, "argument fed is NULL");
    *fed = SHMEMX_FEDERATION_INVALID;
    if (team == SHMEM_TEAM_INVALID || !team->fed)
        return -1;
    weft_federation_ref(team->fed);
    *fed = team->fed;
    return 0;
}

void shmemx_federation_destroy(shmemx_federation_t fed)
{
    const char *call = "shmemx_federation_destroy";
    weft_check_init(call);
    if (fed == SHMEMX_FEDERATION_INVALID)
        return;
    weft_federation_unref(weft_federation_check(call, fed));
}

int shmemx_federation_n_teams(shmemx_federation_t fed)
{
    return weft_federation_check("shmemx_federation_n_teams", fed)->nteams;
}

int shmemx_federation_n_pes(shmemx_federation_t fed)
{
    return weft_federation_check("shmemx_federation_n_pes", fed)->n;
}

int shmemx_federation_my_team(shmemx_federation_t fed)
{
    struct weft_federation *f = weft_federation_check("shmemx_federation_my_team", fed);
    return f->team_of[f->my_pe];
}

int shmemx_federation_team_of(shmemx_federation_t fed, int pe)
{
    const char *call = "shmemx_federation_team_of";
    struct weft_federation *f = weft_federation_check(call, fed);
    check_pe(call, f, "pe", pe);
    return f->team_of[pe];
}

int shmemx_federation_team_pe(shmemx_federation_t fed, int pe)
{
    const char *call = "shmemx_federation_team_pe";
    struct weft_federation *f = weft_federation_check(call, fed);
    check_pe(call, f, "pe", pe);
    return f->team_pe[pe];
}

int shmemx_federation_team_n_pes(shmemx_federation_t fed, int team)
{
    const char *call = "shmemx_federation_team_n_pes";
    struct weft_federation *f = weft_federation_check(call, fed);
    check_team(call, f, "team", team);
    return f->first[team + 1] - f->first[team];
}

static void check_team_pe(const char *call, const struct weft_federation *f, int team,
                          int team_pe)
{
    int size = f->first[team + 1] - f->first[team];
    if (team_pe < 0 || team_pe >= size)
        weft_fatal(call, "argument team_pe=%d is out of range [0, %d) (the PEs of team %d)",
                   team_pe, size, team);
}

int shmemx_federation_pe(shmemx_federation_t fed, int team, int team_pe)
{
    const char *call = "shmemx_federation_pe";
    struct weft_federation *f = weft_federation_check(call, fed);
    check_team(call, f, "team", team);
    check_team_pe(call, f, team, team_pe);
    return f->pe_of[f->first[team] + team_pe];
}

int shmemx_federation_translate_pe(shmemx_federation_t fed, int pe, int dest_team)
{
    const char *call = "shmemx_federation_translate_pe";
    struct weft_federation *f = weft_federation_check(call, fed);
    check_pe(call, f, "pe", pe);
    check_team(call, f, "dest_team", dest_team);
    int i = f->team_pe[pe];
    if (i < 0 || i >= f->first[dest_team + 1] - f->first[dest_team])
        return -1;
    return f->pe_of[f->first[dest_team] + i];
}

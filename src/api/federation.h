/* SPDX-License-Identifier: BSD-3-Clause */
/* federation.h owns the federation object of shmemx.h: the description of
 * every team one split of a parent team makes (which team holds each parent
 * PE, at what index), built locally from what the split already knows. */
#ifndef WEFT_API_FEDERATION_H
#define WEFT_API_FEDERATION_H

#include <shmemx.h>

#include "runtime/topology.h"

#pragma GCC visibility push(hidden)

struct weft_federation {
    uint32_t magic;    /* WEFT_FED_MAGIC while alive */
    int refs;          /* handles given out plus teams that point here */
    int n;             /* PEs of the parent */
    int nteams;
    int my_pe;         /* the caller's parent index */
    int *team_of;      /* [n]: team of parent PE i, or -1 */
    int *team_pe;      /* [n]: its index in that team, or -1 */
    int *first;        /* [nteams + 1]: team t's members are pe_of[first[t] ..] */
    int *pe_of;        /* [n]: parent PEs grouped by team, in team order */
    int *world;        /* [n]: world PE of parent PE i */
    int *nbr_first;    /* [nteams + 1] into nbr, or NULL: every other team */
    int *nbr;          /* team t's neighbours: nbr[nbr_first[t] ..], ascending */
    shmem_team_t checked_parent; /* the last parent found to match */
};

/* The topology type of a SHMEMX_TEAM_TYPE_* value, or the end of the job
 * with a message naming call and the argument (api/fed.c). */
enum weft_topo_type weft_api_topo_type(const char *call, int type);

/* A federation of the n parent PEs (world PEs in world[]), where parent PE
 * i is in team team_of[i] (-1: none; teams numbered 0 .. nteams-1) at the
 * position rank[i] sorts it to (ties: parent order). Returns one
 * reference. */
struct weft_federation *weft_federation_new(const char *call, int n, int my_pe,
                                            const int *world, const int *team_of,
                                            const long *rank, int nteams);
/* fed, or the end of the job with a message naming call (NULL, destroyed). */
struct weft_federation *weft_federation_check(const char *call, shmemx_federation_t fed);
void weft_federation_ref(struct weft_federation *f);
void weft_federation_unref(struct weft_federation *f);
/* The federation of the domains of topology type t over the parent team's PEs
 * (teams numbered by lowest parent PE). */
struct weft_federation *weft_federation_of_type(const char *call, shmem_team_t parent, int t);

#pragma GCC visibility pop

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* fed.c (api) owns the federation extensions of shmemx.h: topology queries
 * and the splits by topology domain and by color.
 *
 * The domain of every PE is known locally (runtime/topology.c gathered what
 * decides it at init), so shmemx_team_split_type communicates only to agree on a scratch
 * slot, and only when some resulting team has two or more PEs. The teams of
 * one split are disjoint, so they all use one slot index (runtime/team.h).
 *
 * shmemx_team_split_color has to learn every parent PE's (color, key): one
 * bitwise-OR reduction over the parent of a vector holding the members'
 * used-slot masks and one (color, key) word per parent PE, each PE filling
 * in only its own word. The only symmetric memory a split may use is the
 * parent's scratch slot, so the vector goes through its control words,
 * WEFT_TEAM_CTL_WORDS at a time: ceil((n + 1) / 8) small reductions for a
 * parent of n PEs (one up to 7 PEs). */
#include <shmemx.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/topology.h"
#include "api/coll_ops.h"
#include "api/federation.h"

enum weft_topo_type weft_api_topo_type(const char *call, int type)
{
    switch (type) {
    case SHMEMX_TEAM_TYPE_NODE:
        return WEFT_TOPO_NODE;
    case SHMEMX_TEAM_TYPE_NUMA:
        return WEFT_TOPO_NUMA;
    case SHMEMX_TEAM_TYPE_SOCKET:
        return WEFT_TOPO_SOCKET;
    case SHMEMX_TEAM_TYPE_L3:
        return WEFT_TOPO_L3;
    case SHMEMX_TEAM_TYPE_SWITCH:
        return WEFT_TOPO_SWITCH;
    }
    weft_fatal(call, "argument type=%d is not a topology type (SHMEMX_TEAM_TYPE_NODE=%d, "
               "SHMEMX_TEAM_TYPE_NUMA=%d, SHMEMX_TEAM_TYPE_SOCKET=%d, SHMEMX_TEAM_TYPE_L3=%d, "
               "SHMEMX_TEAM_TYPE_SWITCH=%d)", type, SHMEMX_TEAM_TYPE_NODE, SHMEMX_TEAM_TYPE_NUMA,
               SHMEMX_TEAM_TYPE_SOCKET, SHMEMX_TEAM_TYPE_L3, SHMEMX_TEAM_TYPE_SWITCH);
}

static void check_ready(const char *call)
{
    weft_check_init(call);
    if (WEFT_UNLIKELY(!weft_topology_ready()))
        weft_fatal(call, "internal: the topology was not gathered at start-up "
                   "(weft_topology_init was not called by shmem_init)");
}

int shmemx_topology_count(int type)
{
    const char *call = "shmemx_topology_count";
    check_ready(call);
    return weft_topology_count(weft_api_topo_type(call, type));
}

int shmemx_topology_id(int type, int pe)
{
    const char *call = "shmemx_topology_id";
    check_ready(call);
    enum weft_topo_type t = weft_api_topo_type(call, type);
    weft_check_pe(call, pe);
    return weft_topology_ids(t)[pe];
}

/* words[i] = OR of words[i] over the parent's PEs (collective over parent). */
static void parent_or(const char *call, shmem_team_t parent, uint64_t *words, size_t count)
{
    if (parent->size == 1)
        return;
    struct weft_coll c;
    weft_coll_team_begin(&c, call, parent);
    uint64_t *ctl = weft_team_ctl(parent->slot);
    for (size_t o = 0; o < count; o += WEFT_TEAM_CTL_WORDS) {
        size_t m = count - o < WEFT_TEAM_CTL_WORDS ? count - o : WEFT_TEAM_CTL_WORDS;
        memcpy(ctl, words + o, m * sizeof *words);
        weft_coll_allreduce(&c, ctl, ctl, m, sizeof(uint64_t), weft_red_uint64_or);
        memcpy(words + o, ctl, m * sizeof *words);
    }
    weft_coll_end(&c);
}

/* The lowest slot free on every parent PE, given the OR of their used
 * masks; -1 (and a message from parent PE 0) when there is none. */
static int pick_slot(const char *call, shmem_team_t parent, uint64_t used)
{
    for (int s = 0; s < WEFT_TEAM_SLOTS; s++)
        if (!(used & ((uint64_t)1 << s)))
            return s;
    if (parent->my_pe == 0)
        weft_warn(call, "team limit reached: at most %d teams of two or more PEs can exist at "
                  "once on a PE (SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included); destroy "
                  "unused teams with shmem_team_destroy", WEFT_TEAM_SLOTS);
    return -1;
}

/* The team of members (world PEs), knowing the federation it is part of. */
static void make_team(const int *members, int nm, int slot, const shmem_team_config_t *config,
                      long mask, struct weft_federation *fed, shmem_team_t *new_team)
{
    int nctx = config && (mask & SHMEM_TEAM_NUM_CONTEXTS) ? config->num_contexts : 0;
    struct weft_team *t = weft_team_new(0, 0, nm, members, nm > 1 ? slot : WEFT_TEAM_NO_SLOT,
                                        mask, nctx);
    if (t) {
        weft_federation_ref(fed);
        t->fed = fed;
    }
    *new_team = t ? t : SHMEM_TEAM_INVALID;
}

static int *alloc_ints(const char *call, size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof *p);
    if (!p)
        weft_fatal(call, "out of memory for %zu team members", n);
    return p;
}

int shmemx_team_split_type(shmem_team_t parent_team, int type, const shmem_team_config_t *config,
                           long config_mask, shmem_team_t *new_team)
{
    const char *call = "shmemx_team_split_type";
    check_ready(call);
    if (!new_team)
        weft_fatal(call, "argument new_team is NULL");
    enum weft_topo_type t = weft_api_topo_type(call, type);
    *new_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID)
        return -1;
    int n = parent_team->size;
    int *members = alloc_ints(call, (size_t)n);
    int *ids = alloc_ints(call, (size_t)n);
    for (int i = 0; i < n; i++)
        members[i] = weft_team_world_pe(parent_team, i);
    int ndom = weft_topology_number(t, n, members, ids);
    int mine = ids[parent_team->my_pe];
    /* The same on every parent PE: all know every PE's domain. */
    int need_slot = ndom < n, nm = 0;
    for (int i = 0; i < n; i++)
        if (ids[i] == mine)
            members[nm++] = members[i];
    free(ids);
    int slot = WEFT_TEAM_NO_SLOT;
    if (need_slot) {
        uint64_t used = ~weft_team_free_slots();
        parent_or(call, parent_team, &used, 1);
        slot = pick_slot(call, parent_team, used);
        if (slot < 0) {
            free(members);
            return -1;
        }
    }
    struct weft_federation *fed = weft_federation_of_type(call, parent_team, t);
    make_team(members, nm, slot, config, config_mask, fed, new_team);
    weft_federation_unref(fed);
    free(members);
    return 0;
}

struct color_entry {
    int color, key, idx;
};

static int cmp_color(const void *a, const void *b)
{
    const struct color_entry *x = a, *y = b;
    if (x->color != y->color)
        return x->color < y->color ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

int shmemx_team_split_color(shmem_team_t parent_team, int color, int key,
                            const shmem_team_config_t *config, long config_mask,
                            shmem_team_t *new_team)
{
    const char *call = "shmemx_team_split_color";
    weft_check_init(call);
    if (!new_team)
        weft_fatal(call, "argument new_team is NULL");
    *new_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID)
        return -1;
    int n = parent_team->size, me = parent_team->my_pe;
    /* [0]: used-slot masks; [1 + i]: (color, key) of parent PE i. */
    uint64_t *v = calloc((size_t)n + 1, sizeof *v);
    struct color_entry *e = malloc((size_t)n * sizeof *e);
    if (!v || !e)
        weft_fatal(call, "out of memory for a parent team of %d PEs", n);
    v[0] = ~weft_team_free_slots();
    v[1 + me] = (uint64_t)(uint32_t)color << 32 | (uint32_t)key;
    parent_or(call, parent_team, v, (size_t)n + 1);
    for (int i = 0; i < n; i++)
        e[i] = (struct color_entry){(int32_t)(uint32_t)(v[1 + i] >> 32),
                                    (int32_t)(uint32_t)v[1 + i], i};
    qsort(e, (size_t)n, sizeof *e, cmp_color);
    int need_slot = 0, first = -1, nm = 0;
    for (int i = 0; i < n; i++) {
        if (e[i].color >= 0 && i > 0 && e[i - 1].color == e[i].color)
            need_slot = 1;
        if (e[i].color == color && color >= 0) {
            if (first < 0)
                first = i;
            nm++;
        }
    }
    int slot = need_slot ? pick_slot(call, parent_team, v[0]) : WEFT_TEAM_NO_SLOT;
    free(v);
    if (need_slot && slot < 0) {
        free(e);
        return -1;
    }
    if (color >= 0) {
        /* Teams by ascending color, members by key then parent index. */
        int *world = alloc_ints(call, (size_t)n), *team_of = alloc_ints(call, (size_t)n);
        long *rank = malloc((size_t)n * sizeof *rank);
        if (!rank)
            weft_fatal(call, "out of memory for a parent team of %d PEs", n);
        int nteams = 0;
        for (int i = 0; i < n; i++) {
            int p = e[i].idx;
            world[p] = weft_team_world_pe(parent_team, p);
            rank[p] = i;
            if (e[i].color >= 0 && (i == 0 || e[i - 1].color != e[i].color))
                nteams++;
            team_of[p] = e[i].color >= 0 ? nteams - 1 : -1;
        }
        struct weft_federation *fed =
            weft_federation_new(call, n, me, world, team_of, rank, nteams);
        int *members = alloc_ints(call, (size_t)nm);
        for (int i = 0; i < nm; i++)
            members[i] = world[e[first + i].idx];
        make_team(members, nm, slot, config, config_mask, fed, new_team);
        weft_federation_unref(fed);
        free(members);
        free(world);
        free(team_of);
        free(rank);
    }
    free(e);
    return 0;
}

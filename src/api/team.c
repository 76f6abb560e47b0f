/* SPDX-License-Identifier: BSD-3-Clause */
/* team.c (api) owns the team management routines: queries, translation,
 * strided and 2-D splits, destruction, team contexts and shmem_team_ptr.
 *
 * A split agrees on scratch slots with one AND-reduction of the members'
 * free-slot bitmasks over the parent team (see runtime/team.h); when none is
 * free on every parent PE the split fails identically everywhere: nonzero
 * return, SHMEM_TEAM_INVALID, and a message naming the limit. */
#include <stdlib.h>

#include "api/coll_ops.h"
#include "api/federation.h"

int shmem_team_my_pe(shmem_team_t team)
{
    weft_check_init("shmem_team_my_pe");
    return team == SHMEM_TEAM_INVALID ? -1 : team->my_pe;
}

int shmem_team_n_pes(shmem_team_t team)
{
    weft_check_init("shmem_team_n_pes");
    return team == SHMEM_TEAM_INVALID ? -1 : team->size;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    weft_check_init("shmem_team_get_config");
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    if (!config)
        weft_fatal("shmem_team_get_config", "argument config is NULL");
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    weft_check_init("shmem_team_translate_pe");
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID || src_pe < 0 ||
        src_pe >= src_team->size)
        return -1;
    return weft_team_index_of(dest_team, weft_team_world_pe(src_team, src_pe));
}

/* Agree on `want` slot indices free on every PE of parent; returns how many
 * were found (the same number everywhere) and stores them in slots[]. */
static int agree_slots(const char *call, shmem_team_t parent, int want, int *slots)
{
    uint64_t free_mask = weft_team_free_slots();
    if (parent->size > 1) {
        struct weft_coll c;
        weft_coll_team_begin(&c, call, parent);
        uint64_t *word = weft_team_ctl(parent->slot);
        *word = free_mask;
        weft_coll_allreduce(&c, word, word, 1, sizeof(uint64_t), weft_red_uint64_and);
        free_mask = *word;
    }
    int got = 0;
    for (int s = 0; s < WEFT_TEAM_SLOTS && got < want; s++)
        if (free_mask & ((uint64_t)1 << s))
            slots[got++] = s;
    if (got < want && parent->my_pe == 0)
        weft_warn(call, "team limit reached: at most %d teams of two or more PEs can exist at "
                  "once on a PE (SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included); destroy "
                  "unused teams with shmem_team_destroy", WEFT_TEAM_SLOTS);
    return got;
}

static void config_of(const shmem_team_config_t *config, long mask, int *num_contexts)
{
    *num_contexts = 0;
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        *num_contexts = config->num_contexts;
}

/* The team of parent indices pstart + i*pstride, i < psize (this PE's copy,
 * or NULL when it is not a member). */
static struct weft_team *child(shmem_team_t parent, int pstart, int pstride, int psize, int slot,
                               const shmem_team_config_t *config, long mask)
{
    int nctx;
    config_of(config, mask, &nctx);
    if (!parent->members)
        return weft_team_new(parent->start + pstart * parent->stride, parent->stride * pstride,
                             psize, NULL, slot, mask, nctx);
    int *list = malloc((size_t)psize * sizeof *list);
    if (!list)
        weft_fatal("shmem_team_split", "out of memory for a team of %d PEs", psize);
    for (int i = 0; i < psize; i++)
        list[i] = parent->members[pstart + i * pstride];
    struct weft_team *t = weft_team_new(0, 0, psize, list, slot, mask, nctx);
    free(list);
    return t;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    const char *call = "shmem_team_split_strided";
    weft_check_init(call);
    if (!new_team)
        weft_fatal(call, "argument new_team is NULL");
    *new_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID)
        return -1;
    int n = parent_team->size;
    long last = (long)start + (long)(size - 1) * stride;
    if (size < 1 || start < 0 || start >= n || last < 0 || last >= n || (stride == 0 && size != 1)) {
        if (parent_team->my_pe == 0)
            weft_warn(call, "invalid triplet start=%d stride=%d size=%d for a parent team of "
                      "%d PEs", start, stride, size, n);
        return -1;
    }
    int slot = WEFT_TEAM_NO_SLOT;
    if (size > 1 && agree_slots(call, parent_team, 1, &slot) < 1)
        return -1;
    struct weft_team *t = child(parent_team, start, stride, size, slot, config, config_mask);
    *new_team = t ? t : SHMEM_TEAM_INVALID;
    return 0;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    const char *call = "shmem_team_split_2d";
    weft_check_init(call);
    if (!xaxis_team || !yaxis_team)
        weft_fatal(call, "arguments xaxis_team and yaxis_team must not be NULL");
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID)
        return -1;
    int n = parent_team->size, me = parent_team->my_pe;
    if (xrange < 1) {
        if (me == 0)
            weft_warn(call, "argument xrange=%d must be positive", xrange);
        return -1;
    }
    int xr = xrange < n ? xrange : n; /* a wider x dimension is the whole parent */
    int yr = (n + xr - 1) / xr;
    int need_x = xr > 1, need_y = yr > 1;
    int slots[2] = {WEFT_TEAM_NO_SLOT, WEFT_TEAM_NO_SLOT};
    int got = need_x + need_y ? agree_slots(call, parent_team, need_x + need_y, slots) : 0;
    int xslot = need_x ? slots[0] : WEFT_TEAM_NO_SLOT;
    int yslot = need_y ? slots[need_x] : WEFT_TEAM_NO_SLOT;
    int x_ok = !need_x || got >= 1, y_ok = !need_y || got >= need_x + 1;
    int x = me % xr, y = me / xr;
    if (x_ok) {
        int xsize = (y + 1) * xr <= n ? xr : n - y * xr;
        *xaxis_team = child(parent_team, y * xr, 1, xsize, xslot, xaxis_config, xaxis_mask);
    }
    if (y_ok) {
        int ysize = (n - 1 - x) / xr + 1;
        *yaxis_team = child(parent_team, x, xr, ysize, yslot, yaxis_config, yaxis_mask);
    }
    return x_ok && y_ok ? 0 : -1;
}

void shmem_team_destroy(shmem_team_t team)
{
    weft_check_init("shmem_team_destroy");
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team->predefined) {
        weft_warn("shmem_team_destroy", "a predefined team (SHMEM_TEAM_WORLD or "
                  "SHMEM_TEAM_SHARED) cannot be destroyed; ignored");
        return;
    }
    weft_coll_nb_wait_all(team);
    weft_federation_unref(team->fed);
    weft_coll_hier_free(team);
    weft_team_free(team);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    weft_check_init("shmem_team_create_ctx");
    if (!ctx)
        weft_fatal("shmem_team_create_ctx", "argument ctx is NULL");
    if (team == SHMEM_TEAM_INVALID) {
        *ctx = SHMEM_CTX_INVALID;
        return -1;
    }
    return weft_api_ctx_create("shmem_team_create_ctx", options, team, ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    weft_check_init("shmem_ctx_get_team");
    if (!team)
        weft_fatal("shmem_ctx_get_team", "argument team is NULL");
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team ? ctx->team : SHMEM_TEAM_WORLD;
    return 0;
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    weft_check_init("shmem_team_ptr");
    if (team == SHMEM_TEAM_INVALID || pe < 0 || pe >= team->size)
        return NULL;
    return weft_api_ptr("shmem_team_ptr", dest, weft_team_world_pe(team, pe));
}

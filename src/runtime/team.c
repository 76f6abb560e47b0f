/* SPDX-License-Identifier: BSD-3-Clause */
/* team.c owns team objects, the predefined teams with the default context
 * bound to world, and the symmetric scratch pool the team collectives use
 * (see team.h for the scheme). */
#include <stdlib.h>
#include <string.h>

#include "transport/transport.h"
#include "core/runtime.h"
#include "core/tunables.h"
#include "runtime/team.h"

struct weft_team weft_team_world;
/* SHMEM_CTX_DEFAULT, declared in transport/transport.h: beside the world
 * team it is bound to, below both APIs that use it. */
struct weft_ctx weft_ctx_default;
struct weft_team weft_team_shared;
struct weft_team_pool weft_team_pool;

/* Scratch budget: about 1/32 of the heap, at most 64 KiB per slot (4 MiB
 * for the pool), so small SHMEM_SYMMETRIC_SIZE settings keep most of it. */
#define WEFT_TEAM_SLOT_MAX (64 * 1024)
#define WEFT_TEAM_CHUNK_MIN 256
#define WEFT_TEAM_NB_AREA_MAX ((size_t)16 << 20)

int weft_team_pe_is_local(int pe)
{
    /* Exactly the PEs shmem_ptr reaches (the heap decides: static data may
     * go through libfabric while the heap is direct). */
    return pe == weft_rt.my_pe || weft_transport_ptr(WEFT_SEG_HEAP, 0, pe) != NULL;
}

static int ilog2_floor(int n)
{
    int r = 0;
    while ((2L << r) <= n)
        r++;
    return r;
}

static int ilog2_ceil(int n)
{
    int r = 0;
    while ((1L << r) < n)
        r++;
    return r;
}

/* The pool's layout for n PEs and a program heap of heap_asked bytes;
 * returns its size in bytes. */
static size_t pool_layout(struct weft_team_pool *p, int n, size_t heap_asked)
{
    p->rounds = ilog2_floor(n);
    p->scan_rounds = ilog2_ceil(n);
    size_t nbufs = 2 * ((size_t)p->rounds + 1) + (size_t)p->scan_rounds;
    size_t flags = WEFT_TEAM_HDR_BYTES;
    size_t budget = heap_asked / 32 / WEFT_TEAM_SLOTS;
    if (budget > WEFT_TEAM_SLOT_MAX)
        budget = WEFT_TEAM_SLOT_MAX;
    size_t chunk = budget > flags ? (budget - flags) / nbufs : 0;
    chunk &= ~(size_t)63;
    if (chunk < WEFT_TEAM_CHUNK_MIN)
        chunk = WEFT_TEAM_CHUNK_MIN;
    p->chunk = chunk;
    p->slot_size = (flags + nbufs * chunk + 63) & ~(size_t)63;
    /* The issuing path's receive areas: address space until a team's
     * reductions use them (see the tunable). */
    size_t area = weft_tun_size(WEFT_TUN_COLL_NB_AREA);
    if (area > WEFT_TEAM_NB_AREA_MAX)
        area = WEFT_TEAM_NB_AREA_MAX;
    p->nb_area = area & ~(size_t)63;
    return p->slot_size * WEFT_TEAM_SLOTS + WEFT_TEAM_NB_AREA_SLOTS * WEFT_NB_AREAS * p->nb_area;
}

size_t weft_team_pool_bytes(int n_pes, size_t heap_asked)
{
    struct weft_team_pool scratch;
    return pool_layout(&scratch, n_pes, heap_asked);
}

static void pool_init(void)
{
    struct weft_team_pool *p = &weft_team_pool;
    size_t total = pool_layout(p, weft_rt.n_pes, weft_rt.heap_asked);
    p->base = weft_heap_alloc_zeroed(64, total);
    if (!p->base)
        weft_fatal("shmem_init", "the symmetric heap (%zu bytes) cannot hold the %zu bytes of "
                   "team scratch",
                   weft_rt.seg[WEFT_SEG_HEAP].size, total);
    p->off = (uint64_t)(p->base - weft_rt.seg[WEFT_SEG_HEAP].base);
    p->nb_area_off = p->off + p->slot_size * WEFT_TEAM_SLOTS;
    p->used = 0;
    weft_debug("teams: %d scratch slots of %zu bytes (reduction chunk %zu, %d rounds)",
               WEFT_TEAM_SLOTS, p->slot_size, p->chunk, p->rounds);
}

/* The multi-PE teams this PE belongs to, by scratch slot, for finalize's
 * notice (runtime/hang.c). The node teams share slot 1, but a PE is in
 * one of them only. */
static struct weft_team *slot_team[WEFT_TEAM_SLOTS];

uint64_t weft_team_free_slots(void) { return ~weft_team_pool.used; }

void weft_team_claim_slot(int slot)
{
    if (slot >= 0)
        weft_team_pool.used |= (uint64_t)1 << slot;
}

static void claim_for(struct weft_team *t)
{
    weft_team_claim_slot(t->slot);
    if (t->slot >= 0)
        slot_team[t->slot] = t;
}

struct weft_team *weft_team_of_slot(int slot)
{
    return slot >= 0 && slot < WEFT_TEAM_SLOTS ? slot_team[slot] : NULL;
}

static void release_slot(int slot)
{
    if (slot < 0)
        return;
    /* Every signal sent to this PE on the slot has been awaited, so nothing
     * is in flight: zero the counters for the next team to use the slot.
     * No other PE can pick the slot before this PE reports it free. */
    memset(weft_team_flags(slot), 0, WEFT_TF_COUNT * sizeof(uint64_t));
    weft_team_pool.used &= ~((uint64_t)1 << slot);
    slot_team[slot] = NULL;
}

int weft_team_index_of(const struct weft_team *t, int w)
{
    if (t->members) {
        for (int i = 0; i < t->size; i++)
            if (t->members[i] == w)
                return i;
        return -1;
    }
    if (t->stride == 0 || t->size == 1)
        return w == t->start ? 0 : -1;
    long d = (long)w - t->start;
    if (d % t->stride != 0)
        return -1;
    long i = d / t->stride;
    return i >= 0 && i < t->size ? (int)i : -1;
}

static void team_setup(struct weft_team *t, int start, int stride, int size, int *members,
                       int slot)
{
    memset(t, 0, sizeof *t);
    t->start = start;
    t->stride = size == 1 ? 1 : stride;
    t->size = size;
    t->members = members;
    t->slot = size > 1 ? slot : WEFT_TEAM_NO_SLOT;
    t->my_pe = weft_team_index_of(t, weft_rt.my_pe);
}

/* A list that is an arithmetic progression is stored as one. */
static int list_is_strided(const int *list, int size, int *start, int *stride)
{
    *start = list[0];
    *stride = size > 1 ? list[1] - list[0] : 1;
    if (size > 1 && *stride == 0)
        return 0;
    for (int i = 2; i < size; i++)
        if (list[i] - list[i - 1] != *stride)
            return 0;
    return 1;
}

struct weft_team *weft_team_new(int start, int stride, int size, const int *list, int slot,
                                long config_mask, int num_contexts)
{
    int *members = NULL;
    if (list && !list_is_strided(list, size, &start, &stride)) {
        members = malloc((size_t)size * sizeof *members);
        if (!members)
            weft_fatal("shmem_team_split", "out of memory for a team of %d PEs", size);
        memcpy(members, list, (size_t)size * sizeof *members);
    }
    struct weft_team *t = malloc(sizeof *t);
    if (!t)
        weft_fatal("shmem_team_split", "out of memory for a team");
    team_setup(t, start, stride, size, members, slot);
    if (t->my_pe < 0) {
        free(members);
        free(t);
        return NULL;
    }
    t->config_mask = config_mask;
    t->num_contexts = num_contexts;
    claim_for(t);
    return t;
}

void weft_team_free(struct weft_team *t)
{
    if (!t || t->predefined)
        return;
    release_slot(t->slot);
    free(t->members);
    free(t);
}

void weft_team_init_predefined(void)
{
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    pool_init();

    team_setup(&weft_team_world, 0, 1, n, NULL, 0);
    weft_team_world.predefined = 1;
    claim_for(&weft_team_world);

    /* SHMEM_TEAM_SHARED: the PEs this one reaches by load/store. Node
     * teams are disjoint, so they all use slot 1. */
    int *local = malloc((size_t)n * sizeof *local);
    if (!local)
        weft_fatal("shmem_init", "out of memory");
    int nl = 0;
    for (int pe = 0; pe < n; pe++)
        if (pe == me || weft_team_pe_is_local(pe))
            local[nl++] = pe;
    int start, stride;
    if (list_is_strided(local, nl, &start, &stride)) {
        team_setup(&weft_team_shared, start, stride, nl, NULL, 1);
        free(local);
    } else {
        team_setup(&weft_team_shared, 0, 0, nl, local, 1);
    }
    weft_team_shared.predefined = 1;
    claim_for(&weft_team_shared);

    weft_ctx_default.team = &weft_team_world;
}

void weft_team_fini(void)
{
    if (weft_team_shared.members)
        free(weft_team_shared.members);
    weft_team_shared.members = NULL;
    weft_team_pool = (struct weft_team_pool){0};
    memset(slot_team, 0, sizeof slot_team);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* coll.h owns the machinery shared by the team collectives (collectives.c),
 * the team management routines (team.c) and the deprecated active-set forms
 * (coll_active.c): a collective "session" naming the PEs taking part and
 * the counters they signal through, and the algorithms written against it.
 *
 * Two kinds of counters:
 *  - team mode: the WEFT_TF_* counters of the team's scratch slot; they only
 *    grow, and team->expect[] remembers how many signals were awaited;
 *  - pSync mode (active-set routines): the user's pSync array, whose longs
 *    start at SHMEM_SYNC_VALUE (0); a session counts what it awaited and
 *    subtracts exactly that at the end (an atomic add to itself), so the
 *    array is restored even when the next barrier's signal already arrived.
 * A signal is an atomic add; when it announces data it is preceded by a
 * fence so the data lands first. */
#ifndef WEFT_API_COLL_H
#define WEFT_API_COLL_H

#include "runtime/team.h"
#include "runtime/hier_choice.h"
#include "api/api.h"

typedef void (*weft_red_fn)(void *out, const void *a, const void *b, size_t n);

struct weft_coll {
    struct weft_ctx *ctx;   /* what its puts and signals go through */
    int engine;             /* run by the non-blocking engine: waits nap */
    const char *call;
    struct weft_team *team; /* members (an on-stack team for active sets) */
    int n, me;
    uint64_t *flags;        /* local base of the counters */
    int fseg;               /* their segment and offset (same on every PE) */
    uint64_t foff;
    uint64_t *expect;       /* signals awaited so far, per counter */
    int psync;              /* counters are a user pSync */
    int remap;              /* counter indices remapped: a pSync, or the node
                             * leaders' own counters (WEFT_COLL_REMAP_*) */
    uint64_t psync_expect[WEFT_TF_COUNT];
};

#define WEFT_COLL_REMAP_PSYNC 1
#define WEFT_COLL_REMAP_LEADERS 2

/* Team mode session: returns 0, or -1 if team is SHMEM_TEAM_INVALID. It
 * first waits for the team's non-blocking collectives still queued. */
int weft_coll_team_begin(struct weft_coll *c, const char *call, shmem_team_t team);
/* The session alone, over a valid team, through ctx (the engine of the
 * non-blocking collectives uses a context of its own). */
void weft_coll_team_session(struct weft_coll *c, const char *call, struct weft_team *team,
                            struct weft_ctx *ctx);
/* Frees the calling thread's private buffers of the algorithms. */
void weft_coll_free_buffers(void);

/* Non-blocking collectives (coll_nb.c): until the engine has run every one
 * queued on team, nothing else may use the team's counters. */
void weft_coll_nb_wait_team(struct weft_team *team);
static inline void weft_coll_nb_drain(struct weft_team *team)
{
    if (WEFT_UNLIKELY(__atomic_load_n(&team->nb_done, __ATOMIC_ACQUIRE) != team->nb_issued))
        weft_coll_nb_wait_team(team);
}
/* The same, and the direct path's too (whose last member to start them
 * may still write this PE's memory): before the team goes away. */
void weft_coll_nb_wait_all(struct weft_team *team);
/* The engine thread's pause between two polls of a wait: a short spin,
 * then naps growing from microseconds, so that waiting leaves the cores to
 * the application's computation. */
void weft_coll_engine_pause(struct weft_ctx *ctx, unsigned *spins);
/* Shuts the engine down (finalize): every queued collective runs first. */
void weft_coll_nb_fini(void);

/* Active-set session over PE_start + i*2^logPE_stride, i < PE_size, with
 * counters in pSync (aborts with a message on an invalid set or a caller
 * outside it). `as` is storage for the set's team description. */
void weft_coll_aset_begin(struct weft_coll *c, struct weft_team *as, const char *call,
                          int PE_start, int logPE_stride, int PE_size, long *pSync);
/* Restores pSync (no-op in team mode). */
void weft_coll_end(struct weft_coll *c);

/* Add v to counter idx of team member pe (fence first when data precedes
 * it); wait until counter idx has had count more signals. */
void weft_coll_signal(struct weft_coll *c, int idx, int pe, int fence, int64_t v);
void weft_coll_wait(struct weft_coll *c, int idx, uint64_t count);
/* len bytes from src to (seg, off) at team member pe, then a signal on its
 * counter idx that is never seen before them, without a fence: one counted
 * write where the transport has them. src is free on return. Team slot
 * sessions only. */
void weft_coll_put_signal(struct weft_coll *c, int seg, uint64_t off, const void *src, size_t len,
                          int idx, int pe);
/* The same where only node peers add to the counter, through the mapping
 * (weft_poll_yield_onnode). */
void weft_coll_wait_onnode(struct weft_coll *c, int idx, uint64_t count);

/* Hierarchical algorithms (coll_hier.c), for team sessions over several
 * nodes: weft_coll_hier_of says whether to use them (NULL: flat). */
struct weft_hier *weft_coll_hier_make(struct weft_coll *c);
static inline struct weft_hier *weft_coll_hier_of(struct weft_coll *c)
{
    if (c->psync || (c->team->hier_checked && !c->team->hier))
        return NULL;
    return c->team->hier ? c->team->hier : weft_coll_hier_make(c);
}
/* The hierarchy for this kind of call moving bytes (runtime/hier_choice.c
 * decides), else NULL: flat. */
int weft_coll_hier_wins(struct weft_coll *c, struct weft_hier *h, enum weft_hier_kind kind,
                        size_t bytes);
static inline struct weft_hier *weft_coll_hier_for(struct weft_coll *c, enum weft_hier_kind kind,
                                                   size_t bytes)
{
    struct weft_hier *h = weft_coll_hier_of(c);
    return h && weft_coll_hier_wins(c, h, kind, bytes) ? h : NULL;
}
void weft_coll_hier_free(struct weft_team *t);
void weft_coll_hier_barrier(struct weft_coll *c, struct weft_hier *h);
void weft_coll_hier_bcast(struct weft_coll *c, struct weft_hier *h, void *dest,
                          const void *source, size_t len, int root);
void weft_coll_hier_fcollect(struct weft_coll *c, struct weft_hier *h, void *dest,
                             const void *source, size_t len);
void weft_coll_hier_allreduce(struct weft_coll *c, struct weft_hier *h, void *dest,
                              const void *source, size_t count, size_t esz, weft_red_fn op);

/* Algorithms. Lengths are in bytes unless named count. */
void weft_coll_barrier(struct weft_coll *c);
/* flags: WEFT_BCAST_ROOT_COPIES, the root copies source to its own dest;
 * WEFT_BCAST_WAIT_READY, no PE's dest is written before that PE entered the
 * call (the public broadcasts; an algorithm whose PEs are all inside it
 * already does without). */
#define WEFT_BCAST_ROOT_COPIES 1
#define WEFT_BCAST_WAIT_READY 2
void weft_coll_bcast(struct weft_coll *c, void *dest, const void *source, size_t len, int root,
                     int flags);
void weft_coll_fcollect(struct weft_coll *c, void *dest, const void *source, size_t len);
void weft_coll_collect(struct weft_coll *c, void *dest, const void *source, size_t len);
void weft_coll_alltoall(struct weft_coll *c, void *dest, const void *source, size_t len);
void weft_coll_alltoalls(struct weft_coll *c, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t esz, size_t nelems);
/* dest[i] = op over every member of source[i]; dest may equal source. */
void weft_coll_allreduce(struct weft_coll *c, void *dest, const void *source, size_t count,
                         size_t esz, weft_red_fn op);
/* Prefix sums over the team (team mode only): inclusive or exclusive. */
void weft_coll_scan(struct weft_coll *c, void *dest, const void *source, size_t count,
                    size_t esz, weft_red_fn op, int exclusive);
/* Exclusive prefix sum of one size_t value (collect's offsets). */
size_t weft_coll_exscan_size(struct weft_coll *c, size_t v);

#endif

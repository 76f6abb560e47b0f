/* SPDX-License-Identifier: BSD-3-Clause */
/* team.h owns the representation of teams (shmem_team_t points to one) and
 * the per-team symmetric scratch the collectives synchronize through.
 *
 * Membership: a team is a list of world PEs, stored as an arithmetic
 * progression (start + i*stride, any nonzero stride) when it is one, which
 * every strided or 2-D split of a strided team is, or as an explicit list.
 *
 * Scratch: a fixed pool of WEFT_TEAM_SLOTS equal slots is carved out of the
 * symmetric heap at init by every PE (the heap allocator sees identical
 * calls everywhere). A team of two or more PEs owns one slot index, the
 * same on all its members; teams with disjoint memberships may share an
 * index. A split picks the index by an AND-reduction of the members'
 * free-slot bitmasks over the parent team, so no collective ever allocates
 * symmetric memory on a subset of PEs. Size-1 teams need no slot.
 *
 * Signalling: each slot starts with WEFT_TF_COUNT 64-bit counters. A signal
 * is an atomic add of 1 (after a fence when it announces data), and a
 * waiter waits until the counter reaches the number of signals it expects
 * so far (team->expect[]). Every counter has exactly one writer PE for a
 * given team (its position relative to the reader is fixed), and every
 * signal is awaited by its reader within the same collective, so counters
 * never need resetting while the team lives and a slot is quiescent when a
 * member leaves the team. */
#ifndef WEFT_TEAM_H
#define WEFT_TEAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/runtime.h"

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

#define WEFT_TEAM_SLOTS 64     /* at most 64 multi-PE teams per PE, world included */
#define WEFT_TEAM_ROUNDS 32    /* log2 of the largest team */
#define WEFT_TEAM_NO_SLOT (-1)
#define WEFT_HIER_LEAD_ROUNDS 8 /* log2 of the most node leaders a hierarchy uses */
#define WEFT_HIER_INLINE_WORDS 8 /* a leaders' broadcast up to this many words streams */
#define WEFT_NB_RING 8          /* direct non-blocking collectives outstanding per team */
#define WEFT_NB_AREAS (2 * WEFT_NB_RING) /* the issuing path's arrival words per team */
/* Slots below this have the issuing path's receive areas: the world and
 * shared teams and the first teams made (slots are taken lowest first). */
#define WEFT_TEAM_NB_AREA_SLOTS 8

/* Counter indices inside a slot (and, for the active-set forms, inside the
 * user's pSync: see weft_coll_psync_index in collectives). */
enum {
    WEFT_TF_BARRIER = 0,                          /* [r]: from me - 2^r (dissemination) */
    WEFT_TF_BCAST = WEFT_TF_BARRIER + WEFT_TEAM_ROUNDS, /* [j]: from me - 2^j (binomial) */
    WEFT_TF_RED_PRE = WEFT_TF_BCAST + WEFT_TEAM_ROUNDS, /* from me + p2 (fold-in)        */
    WEFT_TF_RED_POST,                             /* from me - p2 (result out)          */
    WEFT_TF_RED_ROUND,                            /* [k]: from me ^ 2^k (rec. doubling) */
    WEFT_TF_SCAN = WEFT_TF_RED_ROUND + WEFT_TEAM_ROUNDS, /* [k]: from me - 2^k         */
    WEFT_TF_UP = WEFT_TF_SCAN + WEFT_TEAM_ROUNDS, /* children's partials (active set)   */
    WEFT_TF_READY,                                /* children entered the broadcast     */
    WEFT_TF_GATHER_READY,                         /* fcollect's writers' readers entered */
    WEFT_TF_H_UP,                                 /* node members arrived (at the leader) */
    WEFT_TF_H_DOWN,                               /* from the node leader: done          */
    /* The node leaders' own counters (api/coll_hier.c): the flat
     * algorithms run among the leaders through these, so a team can mix
     * flat and hierarchical calls without two writers on one counter. */
    WEFT_TF_L_BARRIER,                            /* [r], r < WEFT_HIER_LEAD_ROUNDS */
    WEFT_TF_L_BCAST = WEFT_TF_L_BARRIER + WEFT_HIER_LEAD_ROUNDS,
    WEFT_TF_L_READY = WEFT_TF_L_BCAST + WEFT_HIER_LEAD_ROUNDS,
    WEFT_TF_L_RED_PRE,
    WEFT_TF_L_RED_POST,
    WEFT_TF_L_RED_ROUND,                          /* [k], k < WEFT_HIER_LEAD_ROUNDS */
    WEFT_TF_L_ENTERED = WEFT_TF_L_RED_ROUND + WEFT_HIER_LEAD_ROUNDS, /* [leader]: it
                                                  * entered a broadcast I am the root of */
    /* Not counters: a small leaders' broadcast's data, two buffers that
     * alternate call by call ([parity][WEFT_HIER_INLINE_WORDS]). */
    WEFT_TF_L_DATA = WEFT_TF_L_ENTERED + WEFT_HIER_LEAD_ROUNDS,
    /* The direct path's non-blocking collectives (api/coll_nb.c), by
     * sequence number modulo WEFT_NB_RING: they only grow too. */
    WEFT_TF_NB_ENTERED = WEFT_TF_L_DATA + 2 * WEFT_HIER_INLINE_WORDS, /* [s]: members that
                                                  * entered (team index 0's) */
    WEFT_TF_NB_DONE = WEFT_TF_NB_ENTERED + WEFT_NB_RING, /* [s]: uses of ring entry s
                                                  * completed here (by the last to enter) */
    WEFT_TF_NB_LEN = WEFT_TF_NB_DONE + WEFT_NB_RING, /* [s]: this PE's collect length */
    /* The issuing path's arrivals (api/coll_nb.c): [2s + parity] counts
     * the transfers of ring entry s's uses of that parity that reached
     * this PE; the carrier word takes the data-less ones' writes. */
    WEFT_TF_NB_ARRIVED = WEFT_TF_NB_LEN + WEFT_NB_RING,
    WEFT_TF_NB_CARRIER = WEFT_TF_NB_ARRIVED + 2 * WEFT_NB_RING,
    /* [2s + parity]: what collect blocks have beyond their slots of the
     * receive area, pushed here by their owners, or read from this PE's
     * source by the members (each tells it so). */
    WEFT_TF_NB_REST,
    WEFT_TF_COUNT = WEFT_TF_NB_REST + 2 * WEFT_NB_RING
};

struct weft_federation; /* api/federation.c: the split this team came from */
struct weft_hier;       /* api/coll_hier.c: node and leader layout, when used */

/* SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED are the addresses of the two
 * exported teams below, and a program linked against weft holds its own
 * copy of them of the size the library had then (a copy relocation). The
 * size is therefore fixed, with room to grow, so that a program keeps
 * running on a newer library. */
#define WEFT_TEAM_ABI_BYTES 8192

struct weft_team {
    union {
        struct {
            int start, stride, size; /* world PEs start + i*stride, i < size (members == NULL) */
            int my_pe;               /* this PE's index in the team */
            int *members;            /* world PE of each team index, or NULL when strided */
            int slot;                /* scratch slot index, or WEFT_TEAM_NO_SLOT */
            int predefined;
            long config_mask;
            int num_contexts;        /* from shmem_team_config_t */
            uint64_t red_chunks;     /* reduction chunks done (buffer parity) */
            uint64_t expect[WEFT_TF_COUNT]; /* signals awaited so far per counter */
            /* Non-blocking collectives on this team queued by the application
             * thread, and run by their engine (api/coll_nb.c); expect[] and
             * red_chunks belong to the engine while they differ. */
            uint64_t nb_issued;
            uint64_t nb_done;
            /* Those the direct path ran (no engine): how many were started here,
             * and whether every member's memory is mapped (0 not yet known, 1
             * yes, -1 no). */
            uint64_t nb_direct_seq;
            int nb_direct;
            /* Those the issuing path started (no engine): how many, and the
             * arrivals each ring entry's counters reach, per parity of use. */
            uint64_t nb_issue_seq;
            uint64_t nb_issue_expect[WEFT_NB_AREAS];
            uint64_t nb_rest_expect[WEFT_NB_AREAS]; /* the same for WEFT_TF_NB_REST */
            /* The issuing path's reductions and collects: per arrival word, the
             * piece of a reduction or the collect its latest use received into
             * the word's receive area, and how far it was written to dest
             * (api/coll_nb.c). */
            struct weft_nb_piece {
                uint64_t claimed, reduced; /* uses' sequence number + 1: taken, written to dest */
                uint64_t want;             /* the word's arrivals once the piece is in */
                char *dest;                /* where the piece's elements go */
                const char *source;        /* collect: this PE's block */
                size_t count, esz, stride; /* elements, their size, bytes per member's block */
                void (*red)(void *out, const void *a, const void *b, size_t n); /* NULL: collect */
                int in_place;              /* dest is the source */
            } nb_piece[WEFT_NB_AREAS];
            uint64_t nb_piece_seq[WEFT_NB_AREAS]; /* the latest use + 1 when a piece, else 0 */
            struct weft_federation *fed;    /* set by the federation splits (a reference) */
            struct weft_hier *hier;         /* made by the first collective that asks */
            int hier_checked;               /* hier was decided (NULL: flat algorithms) */
        };
        unsigned char abi_bytes[WEFT_TEAM_ABI_BYTES];
    };
};
_Static_assert(sizeof(struct weft_team) == WEFT_TEAM_ABI_BYTES,
               "struct weft_team outgrew its exported size: raise WEFT_TEAM_ABI_BYTES "
               "(an ABI change)");

WEFT_EXPORT extern struct weft_team weft_team_world; /* SHMEM_TEAM_WORLD */
WEFT_EXPORT extern struct weft_team weft_team_shared; /* SHMEM_TEAM_SHARED */

/* Called once from weft_runtime_init by every PE, after the heap and the
 * transport are up and before the init barrier: reserves the scratch pool
 * (one weft_heap_alloc, identical on every PE) and builds the predefined
 * teams. */
void weft_team_init_predefined(void);
/* Bytes of symmetric scratch the team pool takes for n_pes PEs and a
 * program heap of heap_asked bytes (init.c reserves them beside it). */
size_t weft_team_pool_bytes(int n_pes, size_t heap_asked);
/* Called from weft_runtime_finalize (optional: the heap goes away anyway). */
void weft_team_fini(void);

/* World PE of team index i (0 <= i < size). */
static inline int weft_team_world_pe(const struct weft_team *t, int i)
{
    return t->members ? t->members[i] : t->start + i * t->stride;
}

/* Team index of world PE w, or -1 if w is not a member. */
int weft_team_index_of(const struct weft_team *t, int w);

/* The scratch pool: slot s of every PE starts at local address
 * weft_team_slot_base(s) and at heap offset weft_team_slot_off(s). */
struct weft_team_pool {
    char *base;          /* local address of slot 0 */
    uint64_t off;        /* heap offset of slot 0 */
    size_t slot_size;    /* bytes per slot */
    size_t chunk;        /* bytes per reduction/scan buffer */
    int rounds;          /* floor(log2(n_pes)): recursive-doubling rounds of world */
    int scan_rounds;     /* ceil(log2(n_pes)) */
    uint64_t used;       /* bit s set: slot s belongs to a team this PE is in */
    /* The issuing path's receive areas (api/coll_nb.c): slot s's area for
     * arrival word w (ring entry x parity) is area number
     * s * WEFT_NB_AREAS + w, nb_area bytes each, after the slots, for s <
     * WEFT_TEAM_NB_AREA_SLOTS. */
    uint64_t nb_area_off; /* heap offset of area 0 */
    size_t nb_area;       /* bytes per area; 0: none */
};
extern struct weft_team_pool weft_team_pool;

static inline uint64_t *weft_team_flags(int slot)
{
    return (uint64_t *)(weft_team_pool.base + (size_t)slot * weft_team_pool.slot_size);
}
static inline uint64_t weft_team_slot_off(int slot)
{
    return weft_team_pool.off + (uint64_t)slot * weft_team_pool.slot_size;
}
/* The issuing path's receive area of slot for arrival word word: its heap
 * offset, and this PE's address of it. */
static inline uint64_t weft_team_nb_area_off(int slot, int word)
{
    return weft_team_pool.nb_area_off +
           ((uint64_t)slot * WEFT_NB_AREAS + (uint64_t)word) * weft_team_pool.nb_area;
}
static inline char *weft_team_nb_area(int slot, int word)
{
    return weft_team_pool.base + (weft_team_nb_area_off(slot, word) - weft_team_pool.off);
}
/* A few control words per slot after the counters (split agreement). */
#define WEFT_TEAM_CTL_WORDS 8
static inline uint64_t *weft_team_ctl(int slot) { return weft_team_flags(slot) + WEFT_TF_COUNT; }
/* Padded to 64 bytes so the buffers after it suit any element type
 * (long double and complex need 16-byte alignment). */
#define WEFT_TEAM_HDR_BYTES                                                               \
    (((WEFT_TF_COUNT + WEFT_TEAM_CTL_WORDS) * sizeof(uint64_t) + 63) & ~(size_t)63)

/* Byte offsets inside a slot of the reduction buffers and of the scan
 * buffers. The reduction buffers form two regions of rounds + 1 buffers,
 * one per chunk parity: region `parity` holds round k's buffer at k (k ==
 * rounds is the fold-in buffer). collect gathers its lengths into both
 * regions as one block, and the reduce-scatter keeps one element per
 * round at the start of region 0. The scan buffers (round k) follow. */
static inline size_t weft_team_red_region(int parity)
{
    return WEFT_TEAM_HDR_BYTES + (size_t)parity * ((size_t)weft_team_pool.rounds + 1) *
                                     weft_team_pool.chunk;
}
static inline size_t weft_team_red_region_bytes(void)
{
    return ((size_t)weft_team_pool.rounds + 1) * weft_team_pool.chunk;
}
static inline size_t weft_team_red_buf(int k, int parity)
{
    return weft_team_red_region(parity) + (size_t)k * weft_team_pool.chunk;
}
static inline size_t weft_team_scan_buf(int k)
{
    return weft_team_red_region(2) + (size_t)k * weft_team_pool.chunk;
}

/* Create a team from world PEs (an arithmetic progression when list ==
 * NULL), with the scratch slot already agreed on; returns NULL and sets
 * nothing when this PE is not a member. */
struct weft_team *weft_team_new(int start, int stride, int size, const int *list, int slot,
                                long config_mask, int num_contexts);
void weft_team_free(struct weft_team *t);

/* Slot bookkeeping of this PE. */
uint64_t weft_team_free_slots(void);
void weft_team_claim_slot(int slot);
/* The team of this PE that holds scratch slot slot, or NULL. */
struct weft_team *weft_team_of_slot(int slot);

/* The one query behind SHMEM_TEAM_SHARED and shmem_team_ptr: may this PE
 * reach world PE pe's symmetric memory with loads and stores? */
int weft_team_pe_is_local(int pe);

#pragma GCC visibility pop

#endif

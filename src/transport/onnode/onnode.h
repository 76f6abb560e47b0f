/* SPDX-License-Identifier: BSD-3-Clause */
/* onnode.h owns the direct on-node path: every PE on this node maps the
 * symmetric heap (and the shared static data) of every other PE on it, so a
 * put is a store or memcpy into the peer's mapping, a get a load, an atomic
 * a CPU atomic instruction; no syscall, no provider, no bounce buffer.
 *
 * Reachability: weft_onnode.base[seg][pe] is the address of segment seg of PE
 * pe in this process, or NULL when pe is reached through libfabric. The
 * calling PE's own entry is its own segment. One load per operation decides
 * the path (transport.h); the table is n_pes pointers per segment.
 *
 * ATOMICITY RULE. CPU atomics and a provider's native atomics are not
 * atomic with respect to each other. So when the job mixes paths (some
 * pair of PEs uses the direct path and some pair uses libfabric), every
 * atomic that travels through libfabric takes the software path, which the
 * target executes with the same CPU atomics (core/cpu_amo.h). Native
 * provider atomics are used only when no PE uses the direct path (one PE
 * per node, or WEFT_ONNODE=0), and then for every target including the
 * calling PE. Every PE computes the same answer from global information.
 *
 * Memory ordering: a put completes when the store is issued; shmem_fence
 * is a release fence and shmem_quiet a full fence, so data stored before
 * them is visible before anything stored after; waits load with acquire. */
#ifndef WEFT_ONNODE_H
#define WEFT_ONNODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/runtime.h"

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

struct weft_onnode_state {
    char **base[WEFT_NSEGS]; /* [seg][pe]: mapped segment or NULL */
    int enabled;             /* direct path on for this PE's node */
    int n_local;             /* PEs reached directly, this one included */
    int mixed;               /* the job uses both paths somewhere (the rule) */
    int static_shared;       /* .data/.bss live in a memfd peers map */
    int all_direct;          /* every PE and segment is direct: libfabric idle */
    int peers_direct;        /* another PE stores into this one's memory
                              * directly, for some segment */
    int split;               /* some peer is direct for one segment and reached
                              * through libfabric for the other: a fence must
                              * then complete libfabric operations (ofi_init.c) */
    /* The window (the heap below the program, heap.c): each node PE's heap
     * and static data mapped in one reservation laid out like this PE's
     * own addresses, from its heap base to its static data's end, with
     * nothing accessible between them. Then a heap offset is also a valid
     * view offset for static data, and one compare serves both. */
    size_t window;      /* its size; 0 when the segments are mapped apart */
    size_t window_data; /* offset of the static data in it */
    char **view;        /* [pe]: the PE's window reservation or NULL, this
                         * PE's own included (its heap and data mapped a
                         * second time, so a stray address faults) */
    char **fast[WEFT_NSEGS]; /* [seg][pe]: what the fast path uses: base,
                              * except this PE's own view in window mode */
};

extern struct weft_onnode_state weft_onnode;

/* The static data segment is moved into shared memory before the transport
 * registers it: called from init after the segments exist, before
 * weft_onnode_init. Returns 1 if the data segment is now shareable. */
int weft_onnode_share_static(void);

/* Map every on-node peer's segments (a collective over the launcher:
 * two exchanges). Needs the topology's node ids and the segments. */
void weft_onnode_init(void);
/* node_of[pe]: the node (within its host) of each PE, count: how many
 * nodes the job has; given by the runtime before anything else here, kept
 * until weft_onnode_fini. */
void weft_onnode_set_nodes(const int *node_of, int count);
void weft_onnode_fini(void);
void weft_onnode_describe(FILE *out);

/* Address of (seg, off) on PE pe through the direct path, or NULL. */
static inline char *weft_onnode_addr(int seg, uint64_t off, int pe)
{
    char *b = weft_onnode.base[seg][pe];
    return b ? b + off : NULL;
}

#pragma GCC visibility pop

#endif

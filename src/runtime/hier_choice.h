/* SPDX-License-Identifier: BSD-3-Clause */
/* hier_choice.h owns the choice between the flat and the node-leader
 * (hierarchical) algorithm of each collective: WEFT_COLL_HIER, and where
 * it is unset the table of what measured faster (docs/performance.md). */
#ifndef WEFT_HIER_CHOICE_H
#define WEFT_HIER_CHOICE_H

#include <stddef.h>

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* Up to this many node leaders, the leaders' barrier (shmem_barrier_all's
 * and the team collectives') and broadcast are all-to-all: one hop between
 * nodes, where dissemination or a tree takes log2 of them. */
#define WEFT_HIER_ALL_TO_ALL_MAX 8

enum weft_hier_kind {
    WEFT_HIER_BARRIER, /* barrier, team sync, shmem_barrier_all / shmem_sync_all */
    WEFT_HIER_BCAST,
    WEFT_HIER_REDUCE,
    WEFT_HIER_FCOLLECT,
    WEFT_HIER_NKINDS
};

/* WEFT_COLL_HIER: 1 always hierarchical, 0 always flat, -1 (unset or
 * "auto") the table. */
int weft_hier_mode(void);

/* Whether a collective of this kind moving `bytes` per PE (the reduction's
 * whole array, the broadcast's message, the fcollect's block) runs through
 * the node leaders, over npes PEs on nnodes nodes (nnodes >= 2, and some
 * node holds two of them). Depends on nothing a PE sees differently, so
 * every member decides alike. */
int weft_hier_wins(enum weft_hier_kind kind, int npes, int nnodes, size_t bytes);

#pragma GCC visibility pop

#endif

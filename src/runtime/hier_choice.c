/* SPDX-License-Identifier: BSD-3-Clause */
/* hier_choice.c owns the choice between the flat and the node-leader
 * algorithm of each collective (hier_choice.h): WEFT_COLL_HIER, else a
 * table of the PEs per node and message sizes where the hierarchy measured
 * faster (bench/hier-compare; docs/performance.md has the figures). */
#include <strings.h>

#include "core/tunables.h"
#include "runtime/hier_choice.h"

int weft_hier_mode(void)
{
    static int mode = -2;
    if (mode == -2) {
        if (!weft_tun_is_set(WEFT_TUN_COLL_HIER) ||
            !strcasecmp(weft_tun_str(WEFT_TUN_COLL_HIER), "auto"))
            mode = -1;
        else
            mode = weft_tun_bool(WEFT_TUN_COLL_HIER);
    }
    return mode;
}

/* One row per kind: the hierarchy is used from min_per_node up to
 * max_per_node PEs per node (the team's PEs over its nodes, rounded down;
 * 0: no limit) for messages of at most max_bytes (0: any size). A member
 * costs two dependent hops (arrival, release) on top of the leaders' one
 * (all-to-all up to WEFT_HIER_ALL_TO_ALL_MAX leaders), three in all; at 2 PEs per node the flat
 * barrier of 8 PEs takes three rounds too, so the barrier keeps 4 per
 * node. The broadcast saves hops at any number per node (the flat tree's
 * depth grows with the PEs). */
struct hier_rule {
    int min_per_node, max_per_node;
    size_t max_bytes;
    int min_pes; /* the team's PEs at least (0: any) */
};

/* fcollect through the leaders lost to the flat one at 8 PEs over tcp in
 * every idle run (0.67-0.89x at 2 and 4 nodes) and won at 16 (1.67-2.10x). */
static const struct hier_rule hier_rules[WEFT_HIER_NKINDS] = {
    [WEFT_HIER_BARRIER] = {4, 0, 0, 0},
    [WEFT_HIER_BCAST] = {2, 0, 0, 0},
    [WEFT_HIER_REDUCE] = {2, 0, 0, 0},
    [WEFT_HIER_FCOLLECT] = {2, 0, 0, 16},
};

int weft_hier_wins(enum weft_hier_kind kind, int npes, int nnodes, size_t bytes)
{
    int mode = weft_hier_mode();
    if (mode >= 0)
        return mode;
    const struct hier_rule *r = &hier_rules[kind];
    int per_node = npes / nnodes;
    return per_node >= r->min_per_node && (!r->max_per_node || per_node <= r->max_per_node) &&
           (!r->max_bytes || bytes <= r->max_bytes) && npes >= r->min_pes;
}

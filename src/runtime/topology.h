/* SPDX-License-Identifier: BSD-3-Clause */
/* topology.h owns the machine topology behind the federation extensions
 * (shmemx.h): for each domain type (node, NUMA node, socket, L3 cache) the
 * domain of every world PE, learned once at init, so the queries and
 * shmemx_team_split_type need no communication of their own. Each PE keeps
 * every PE's node id, and its placement on the node only where PEs are
 * placed apart.
 *
 * Sources, in order of precedence:
 *  - WEFT_TOPOLOGY set: a simulated machine (nodes/sockets/NUMA/L3 counts
 *    and a placement rule); no communication, no hwloc;
 *  - the launcher's placement (PMIx's locality string, when every PE has
 *    one that matches its binding; bootstrap.h): node from host identity,
 *    NUMA/socket/L3 from it, carried by the host exchange (no hwloc load,
 *    no exchange of its own);
 *  - hwloc (when built with it): node from host identity (runtime/node.c);
 *    the lowest PE of each node loads the hardware topology once and
 *    publishes the node's NUMA/package/L3 cpusets through the launcher's
 *    key-value store; every PE places its own CPU binding in them and the
 *    results are exchanged once (two launcher fences in all); where the
 *    PEs of each node share one binding, the leaders publish their own
 *    placement instead, for all of the node's PEs (one fence);
 *  - otherwise: host identity only, NUMA, socket and L3 one per node.
 * The switch domain: WEFT_TOPOLOGY's switches=, else the leaf switch named
 * by SLURM_TOPOLOGY_ADDR / SLURM_TOPOLOGY_ADDR_PATTERN (a hash, carried
 * by the host exchange: no exchange of its own), else the node.
 * A PE whose binding spans several domains of a type (an unbound PE on a
 * multi-socket node, say) gets a node-wide domain of that type of its own
 * (shared with the node's other such PEs); docs/federations.md explains. */
#ifndef WEFT_TOPOLOGY_H
#define WEFT_TOPOLOGY_H

#include <stdint.h>

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

enum weft_topo_type {
    WEFT_TOPO_NODE,
    WEFT_TOPO_NUMA,
    WEFT_TOPO_SOCKET,
    WEFT_TOPO_L3,
    WEFT_TOPO_SWITCH, /* the leaf switch of the node (Slurm's tree topology) */
    WEFT_TOPO_NTYPES
};

/* Called by every PE from weft_runtime_init after weft_node_init (needs
 * weft_rt.pe_host and the launcher connection; a collective over the
 * launcher when hwloc is used). weft_topology_fini frees it (finalize). */
void weft_topology_init(void);
void weft_topology_fini(void);
/* This PE's leaf switch as SLURM_TOPOLOGY_ADDR names it, hashed; 0 when
 * the launcher names none. The host exchange carries it (runtime/node.c). */
uint64_t weft_topology_slurm_switch(void);

/* 1 once weft_topology_init has run. */
int weft_topology_ready(void);
/* Domains of type t the job's PEs occupy, and the domain of every world
 * PE (ids[pe] in 0 .. count-1, numbered by lowest world PE). The node's
 * and switch's are kept; the NUMA, socket and L3 tables are made at the
 * first call for one of them (a PE's placement is kept, not its number). */
int weft_topology_count(enum weft_topo_type t);
const int *weft_topology_ids(enum weft_topo_type t);
/* A key naming pe's domain of type t: two PEs are in the same domain when
 * their keys are equal (no table needed: splits number the keys of their
 * parent's PEs themselves). */
uint64_t weft_topology_key(enum weft_topo_type t, int pe);
/* The domains of type t of the n world PEs world[] (NULL: PEs 0 .. n-1):
 * id[i] in 0 .. count-1, numbered in order of first appearance; returns
 * count. */
int weft_topology_number(enum weft_topo_type t, int n, const int *world, int *id);
/* Where the answers come from: "simulated", "pmix", "hwloc", "host". */
const char *weft_topology_source(void);

#pragma GCC visibility pop

#endif

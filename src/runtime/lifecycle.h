/* SPDX-License-Identifier: BSD-3-Clause */
/* lifecycle.h owns the runtime's own entry points: init and finalize of
 * the whole library (init.c), the host identities (node.c), the hang
 * report's set-up and a wait's slow phase (hang.c), and the host's load
 * (sync.c). The APIs start and end the library through it. */
#ifndef WEFT_LIFECYCLE_H
#define WEFT_LIFECYCLE_H

#include "core/runtime.h"

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* ---- lifecycle (runtime/init.c) ---------------------------------------- */
int weft_runtime_init(int requested_thread_level, int *provided);
void weft_runtime_finalize(void);
/* The initialization calls of both APIs (shmem_init, start_pes,
 * shmem_init_thread, gasnet_init; call names which), which nest as
 * OpenSHMEM 1.6 lets them: each needs its own finalize. The single one
 * ends the job after the last finalize; the thread one returns 1 there.
 * gasnet_init comes here, never through shmem_init_thread: the library
 * does not call its own interposable names (profiling.symbols). */
void weft_runtime_init_single(const char *call);
int weft_runtime_init_thread(const char *call, int requested, int *provided);
/* shmem_finalize's count: 1 if this finalize matches an inner init (it
 * then acts as a barrier), else 0, and the caller finalizes the library. */
int weft_runtime_finalize_unnests(void);
/* shmem_global_exit, gasnet_exit (call names which): one line saying so,
 * then the job ends with status's low byte (1 if that is 0 but status is
 * not). */
WEFT_NORETURN void weft_runtime_global_exit(const char *call, int status);

/* What symmetric addressing needs every PE to agree on at start-up
 * (runtime/agree.c checks it): exchanged with the host identity. */
struct weft_layout {
    uint64_t host;       /* node.c's host identity (not compared) */
    uint64_t heap_asked; /* SHMEM_SYMMETRIC_SIZE */
    uint64_t heap_bytes; /* the heap's mapping: that plus weft's own data */
    uint64_t data_bytes; /* the program's static data */
    uint64_t onnode;     /* WEFT_ONNODE: decides which exchanges follow */
    /* String settings that must be equal (WEFT_LAYOUT_*): each one's hash,
     * whole, and its start, for the message. */
    struct weft_layout_setting {
        uint64_t hash;
        char start[40];
    } setting[3];
    /* The most this PE's heap may grow to (SHMEM_SYMMETRIC_SIZE when set,
     * WEFT_HEAP_LIMIT or its memory otherwise): not compared, the job
     * takes the least (weft_node_init leaves it in the caller's layout). */
    uint64_t heap_limit;
};
/* The string settings in weft_layout.setting, named by agree.c. */
enum { WEFT_LAYOUT_TOPOLOGY, WEFT_LAYOUT_WEFT_PROVIDER, WEFT_LAYOUT_FI_PROVIDER };
/* Host identity of every PE (runtime/node.c), before the transport starts;
 * the same exchange carries each PE's layout to weft_layout_agree. */
void weft_node_init(struct weft_layout *mine);
/* Ends the job, one line from one PE, if any PE's layout differs from
 * PE 0's. */
void weft_layout_agree(const struct weft_layout *all);
/* A string setting for the layout (NULL: unset, which "" also means). */
void weft_layout_string(struct weft_layout_setting *setting, const char *value);
void weft_node_fini(void);
/* The end of shmem_init: every PE's host is needed only while the
 * transports and the topology are set up (weft_rt.pe_host goes; the host
 * peers stay for the hang report). */
void weft_node_forget_hosts(void);
/* Where the launcher placed every PE: NUMA node, socket and L3 index on
 * its host (-1: node-wide), 3 per PE in PE order; NULL unless it placed
 * them all (bootstrap.h's weft_boot_locality). The topology reads it once,
 * then forgets it. */
const int16_t *weft_node_launcher_place(void);
void weft_node_forget_launcher_place(void);
/* Every PE's leaf switch key (weft_topology_slurm_switch), in PE order;
 * NULL unless the launcher named one for every PE. The topology reads it
 * once, then forgets it. */
const uint64_t *weft_node_switch_keys(void);
void weft_node_forget_switch_keys(void);
/* 1 if the PEs of each host share one CPU affinity (all unbound, say):
 * each is placed where its host's lowest PE is (weft_node_init). */
int weft_node_bindings_uniform(void);
/* The state letter of a PE on this host as /proc/<pid>/stat shows it now
 * (R, S, D: running or sleeping; T, t: stopped; Z or X: exited), its pid in
 * *pid; 0 when this PE cannot see it (another host, another pid namespace). */
char weft_node_peer_state(int pe, long *pid);

/* 1 if this host runs more of the job's PEs than it has CPUs. Needs the
 * host identities (weft_node_init). */
int weft_host_oversubscribed(void);
/* The number of the job's PEs on this host, this one included (weft_node_init). */
int weft_host_pe_count(void);

/* on = 1 after init's own barrier: from then on the world barrier goes
 * through one leader per node where the job spans several nodes (sync.c);
 * on = 0 at finalize, back to the flat one. */
void weft_barrier_all_plan(int on);
/* Init (collective: allocates the acknowledgement array) and finalize's
 * announcement to the peers. */
void weft_hang_init(void);
void weft_hang_announce_finalize(void);

#pragma GCC visibility pop

#endif

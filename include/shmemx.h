/* shmemx.h: weft's extensions to OpenSHMEM 1.5 (not part of the standard;
 * names carry the shmemx_ / SHMEMX_ prefix).
 *
 * Federations: topology-aware teams. Every PE of the job belongs to exactly
 * one domain of each type (its node, and the NUMA node, socket/package and
 * L3 cache of the cores it is bound to); see docs/federations.md.
 *
 *   shmemx_team_split_type(parent, type, config, mask, &team)
 *       collective over parent: every PE gets the team of the parent's PEs
 *       that share its domain of `type`, in parent order.
 *   shmemx_team_split_color(parent, color, key, config, mask, &team)
 *       collective over parent, MPI_Comm_split semantics: one team per
 *       non-negative color, members ordered by key, then by parent index; a
 *       PE passing a negative color gets SHMEM_TEAM_INVALID (and must still
 *       call).
 *   shmemx_topology_count(type), shmemx_topology_id(type, pe)
 *       local queries (no communication): how many domains of `type` the
 *       job's PEs occupy, and the domain (0 .. count-1) of world PE `pe`.
 *       Domains are numbered in order of their lowest world PE, so the
 *       domain of PE 0 is 0.
 *
 * The split routines return 0 on success (also for a PE that gets
 * SHMEM_TEAM_INVALID by its own choice), nonzero on every PE of the parent
 * when the team could not be made (parent invalid, team limit reached). */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; what is declared here is
 * its interface. */
#pragma GCC visibility push(default)

#define SHMEMX_TEAM_TYPE_NODE 1   /* one host (the PEs of SHMEM_TEAM_SHARED and more) */
#define SHMEMX_TEAM_TYPE_NUMA 2   /* one NUMA node */
#define SHMEMX_TEAM_TYPE_SOCKET 3 /* one processor package (socket) */
#define SHMEMX_TEAM_TYPE_L3 4     /* one L3 cache */

int shmemx_team_split_type(shmem_team_t parent_team, int type, const shmem_team_config_t *config,
                           long config_mask, shmem_team_t *new_team);
int shmemx_team_split_color(shmem_team_t parent_team, int color, int key,
                            const shmem_team_config_t *config, long config_mask,
                            shmem_team_t *new_team);
int shmemx_topology_count(int type);
int shmemx_topology_id(int type, int pe);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* federated_reduce.c: a two-level (hierarchical) sum with weft's topology
 * teams (shmemx.h), checked against the flat sum over SHMEM_TEAM_WORLD.
 *
 *   1. node team:    shmemx_team_split_type(WORLD, SHMEMX_TEAM_TYPE_NODE)
 *   2. leaders team: shmemx_team_split_color(WORLD, color 0 for each node's
 *                    rank 0, -1 for everyone else): one PE per node
 *   3. sum inside each node, sum of the node sums across the leaders,
 *      broadcast of the total inside each node
 *
 * On one machine, simulate several nodes with WEFT_TOPOLOGY:
 *   WEFT_TOPOLOGY=nodes=2 oshrun -n 4 ./federated_reduce
 * Exits non-zero (on every PE) when the two results differ. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    long *src = shmem_malloc(N * sizeof(long));
    long *node_sum = shmem_malloc(N * sizeof(long));
    long *lead_sum = shmem_malloc(N * sizeof(long));
    long *total = shmem_malloc(N * sizeof(long));
    long *flat = shmem_malloc(N * sizeof(long));
    int *bad = shmem_malloc(2 * sizeof(int));
    if (!src || !node_sum || !lead_sum || !total || !flat || !bad) {
        fprintf(stderr, "federated_reduce: PE %d: shmem_malloc failed\n", me);
        shmem_global_exit(2);
    }
    for (int i = 0; i < N; i++)
        src[i] = (long)(me + 1) * (i + 1) + (long)i * i % 97;

    /* The PEs of my node, and the leaders (one PE per node). */
    shmem_team_t node, leaders;
    if (shmemx_team_split_type(SHMEM_TEAM_WORLD, SHMEMX_TEAM_TYPE_NODE, NULL, 0, &node) != 0) {
        fprintf(stderr, "federated_reduce: PE %d: split_type failed\n", me);
        shmem_global_exit(2);
    }
    int node_rank = shmem_team_my_pe(node);
    if (shmemx_team_split_color(SHMEM_TEAM_WORLD, node_rank == 0 ? 0 : -1, me, NULL, 0,
                                &leaders) != 0) {
        fprintf(stderr, "federated_reduce: PE %d: split_color failed\n", me);
        shmem_global_exit(2);
    }
    if (node_rank == 0)
        printf("PE %d leads node %d of %d (%d PEs on it)\n", me,
               shmemx_topology_id(SHMEMX_TEAM_TYPE_NODE, me),
               shmemx_topology_count(SHMEMX_TEAM_TYPE_NODE), shmem_team_n_pes(node));

    /* Two levels: within the node, across the leaders, back to the node. */
    shmem_long_sum_reduce(node, node_sum, src, N);
    if (leaders != SHMEM_TEAM_INVALID)
        shmem_long_sum_reduce(leaders, lead_sum, node_sum, N);
    shmem_long_broadcast(node, total, lead_sum, N, 0);

    /* One level, for comparison. */
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, flat, src, N);

    int mism = 0;
    for (int i = 0; i < N; i++)
        if (total[i] != flat[i]) {
            if (!mism)
                fprintf(stderr, "federated_reduce: PE %d: element %d: two-level %ld, flat %ld\n",
                        me, i, total[i], flat[i]);
            mism++;
        }
    bad[0] = mism;
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, bad + 1, bad, 1);
    if (me == 0)
        printf("PE 0: %d PEs on %d node(s), %d leader(s): two-level sum %s the flat sum "
               "(%d elements)\n", npes, shmemx_topology_count(SHMEMX_TEAM_TYPE_NODE),
               leaders != SHMEM_TEAM_INVALID ? shmem_team_n_pes(leaders) : -1,
               bad[1] ? "DIFFERS FROM" : "matches", N);
    int status = bad[1] != 0;

    shmem_team_destroy(leaders);
    shmem_team_destroy(node);
    shmem_free(bad);
    shmem_free(flat);
    shmem_free(total);
    shmem_free(lead_sum);
    shmem_free(node_sum);
    shmem_free(src);
    shmem_finalize();
    return status;
}

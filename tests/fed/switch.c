/* SPDX-License-Identifier: BSD-3-Clause */
/* switch (fed): the switch-level domain (SHMEMX_TEAM_TYPE_SWITCH).
 *   switch SWITCH=0,0,1,1,...   the switch of every PE must be as listed
 *                               (from WEFT_TOPOLOGY's switches=, or from
 *                               Slurm's variables), and contain whole nodes
 *   slurm=PER_SWITCH,PER_NODE   before shmem_init, set what Slurm's tree
 *                               topology gives a task: PE r (PMI_RANK) is
 *                               on node r / PER_NODE under leaf switch
 *                               r / PER_SWITCH of one core switch
 *   slurm-real                  run by a real srun with the tree topology
 *                               plugin (tests/launch/slurm.sh): Slurm must
 *                               have set SLURM_TOPOLOGY_ADDR, and under
 *                               WEFT_TOPOLOGY's simulated nodes each PE's
 *                               node must be Slurm's (SLURM_NODEID)
 * Then: count and ids, the system federation of the type, split_type teams
 * (their members share a switch) and a reduction over each. */
#include <shmemx.h>

#include "weft_test.h"

static long src, dst;

int main(int argc, char **argv)
{
    const char *want = NULL;
    int slurm_real = 0;
    for (int i = 1; i < argc; i++) {
        int per_sw, per_node;
        if (sscanf(argv[i], "slurm=%d,%d", &per_sw, &per_node) == 2) {
            const char *r = getenv("PMI_RANK");
            int rank = r ? atoi(r) : 0;
            char addr[64];
            snprintf(addr, sizeof addr, "core.leaf%d.node%d", rank / per_sw, rank / per_node);
            setenv("SLURM_TOPOLOGY_ADDR", addr, 1);
            setenv("SLURM_TOPOLOGY_ADDR_PATTERN", "switch.switch.node", 1);
        } else if (!strcmp(argv[i], "slurm-real")) {
            slurm_real = 1;
        } else if (!strncmp(argv[i], "SWITCH=", 7)) {
            want = argv[i] + 7;
        }
    }
    wt_init("fed.switch");
    int n = wt_npes, me = wt_me, T = SHMEMX_TEAM_TYPE_SWITCH, N = SHMEMX_TEAM_TYPE_NODE;
    if (slurm_real) {
        WT_PHASE("Slurm's variables");
        const char *addr = getenv("SLURM_TOPOLOGY_ADDR"), *nid = getenv("SLURM_NODEID");
        WT_CHECK(addr && *addr, "srun set no SLURM_TOPOLOGY_ADDR (TopologyPlugin=topology/tree?)");
        WT_CHECK(nid, "srun set no SLURM_NODEID");
        if (getenv("WEFT_TOPOLOGY"))
            WT_CHECK(shmemx_topology_id(SHMEMX_TEAM_TYPE_NODE, me) == atoi(nid),
                     "PE %d is on simulated node %d, Slurm's node %s (%s)", me,
                     shmemx_topology_id(SHMEMX_TEAM_TYPE_NODE, me), nid, addr);
    }
    WT_PHASE("ids");
    const char *w = want;
    int count = 0;
    for (int pe = 0; pe < n; pe++) {
        int id = shmemx_topology_id(T, pe);
        if (w) {
            WT_CHECK(*w, "SWITCH= lists fewer than %d PEs", n);
            int e = atoi(w);
            WT_CHECK(id == e, "PE %d is under switch %d, want %d", pe, id, e);
            w += strcspn(w, ",");
            if (*w)
                w++;
        }
        count = id + 1 > count ? id + 1 : count;
        for (int q = 0; q < n; q++)
            if (shmemx_topology_id(N, q) == shmemx_topology_id(N, pe))
                WT_CHECK(shmemx_topology_id(T, q) == id, "PEs %d and %d share a node, not a switch",
                         pe, q);
    }
    WT_CHECK(shmemx_topology_count(T) == count, "count %d, want %d", shmemx_topology_count(T),
             count);
    WT_PHASE("federation and split");
    shmemx_federation_t f;
    WT_CHECK(shmemx_federation_create(SHMEM_TEAM_WORLD, T, &f) == 0, "create");
    WT_CHECK(shmemx_federation_n_teams(f) == count, "n_teams");
    for (int pe = 0; pe < n; pe++)
        WT_CHECK(shmemx_federation_team_of(f, pe) == shmemx_topology_id(T, pe), "team_of(%d)", pe);
    shmem_team_t t;
    WT_CHECK(shmemx_team_split_type(SHMEM_TEAM_WORLD, T, NULL, 0, &t) == 0, "split_type");
    int size = shmem_team_n_pes(t);
    WT_CHECK(size == shmemx_federation_team_n_pes(f, shmemx_topology_id(T, me)), "team size");
    for (int i = 0; i < size; i++)
        WT_CHECK(shmemx_topology_id(T, shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD)) ==
                     shmemx_topology_id(T, me), "member %d not under my switch", i);
    src = 1;
    shmem_long_sum_reduce(t, &dst, &src, 1);
    WT_CHECK(dst == size, "sum over the switch team %ld, want %d", dst, size);
    shmem_team_destroy(t);
    shmemx_federation_destroy(f);
    shmem_barrier_all();
    if (me == 0)
        printf("fed.switch: %d PEs under %d switch(es)\n", n, count);
    shmem_finalize();
    return 0;
}

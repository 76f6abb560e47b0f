/* SPDX-License-Identifier: BSD-3-Clause */
/* split_type: shmemx_team_split_type and the topology queries.
 *
 * With WEFT_TOPOLOGY set, the domains of every PE must be the ones
 * docs/federations.md promises (fed_expect_sim re-derives them), and
 * arguments TYPE=ID,ID,... (e.g. NODE=0,0,1,1) pin them explicitly. Without
 * it (the real machine), the ids must be consistent: numbered by lowest PE,
 * every NUMA/socket/L3 domain inside one node; argument "one-host" also
 * requires a single node. Argument bind=all (bind=odd) makes PE r (odd PEs
 * only) bind itself to CPU r % 2 before shmem_init, for the hwloc path with
 * a synthetic machine (HWLOC_SYNTHETIC); the others stay unbound.
 *
 * For each type: count and id of every PE; split_type of the world, of the
 * reversed world and of the even PEs, each checked for membership and order
 * (fed_check_team: translate, team_sync, reductions); a NUMA split of a
 * NODE team; all teams kept alive and used again in interleaved order,
 * then destroyed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#endif
#include <sched.h>

#include "fed_test.h"

static int *ids[FED_NTYPES];

/* The parent's PEs (world numbers, in parent order) sharing my domain. */
static int members_of(const int *parent, int np, const int *dom, int *out)
{
    int m = 0;
    for (int i = 0; i < np; i++)
        if (dom[parent[i]] == dom[wt_me])
            out[m++] = parent[i];
    return m;
}

static int type_index(const char *name)
{
    for (int t = 0; t < FED_NTYPES; t++)
        if (!strcmp(name, fed_type_names[t]))
            return t;
    return -1;
}

/* Bind before shmem_init (the topology is learned there). PMI_RANK is set
 * by oshrun and Hydra, PMIX_RANK by PMIx launchers (mpirun). */
static void bind_self(const char *how)
{
    const char *r = getenv("PMI_RANK");
    if (!r)
        r = getenv("PMIX_RANK");
    int rank = r ? atoi(r) : 0;
    cpu_set_t cs;
    CPU_ZERO(&cs);
    if (sched_getaffinity(0, sizeof cs, &cs) != 0 || !CPU_ISSET(0, &cs) || !CPU_ISSET(1, &cs)) {
        fprintf(stderr, "fed.split_type: CPUs 0 and 1 are not both available; cannot test %s\n",
                how);
        exit(1);
    }
    if (!strcmp(how, "bind=odd") && rank % 2 == 0)
        return;
    CPU_ZERO(&cs);
    CPU_SET(rank % 2, &cs);
    if (sched_setaffinity(0, sizeof cs, &cs) != 0) {
        perror("sched_setaffinity");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++)
        if (!strncmp(argv[a], "bind=", 5))
            bind_self(argv[a]);
    wt_init("fed.split_type");
    fed_alloc();
    int n = wt_npes, me = wt_me;
    const char *spec = getenv("WEFT_TOPOLOGY");
    int one_host = 0;
    for (int t = 0; t < FED_NTYPES; t++)
        ids[t] = calloc((size_t)n, sizeof(int));

    WT_PHASE("topology queries (%s)", spec ? spec : "real machine");
    int got[FED_NTYPES][256];
    WT_CHECK(n <= 256, "test limited to 256 PEs");
    for (int t = 0; t < FED_NTYPES; t++)
        for (int pe = 0; pe < n; pe++)
            got[t][pe] = shmemx_topology_id(fed_types[t], pe);
    if (spec && *spec) {
        fed_expect_sim(spec, n, ids);
    } else {
        for (int t = 0; t < FED_NTYPES; t++)
            for (int pe = 0; pe < n; pe++)
                ids[t][pe] = got[t][pe];
        /* Consistency: numbered by lowest PE, nested in nodes. */
        for (int t = 0; t < FED_NTYPES; t++) {
            int next = 0;
            for (int pe = 0; pe < n; pe++) {
                WT_CHECK(ids[t][pe] >= 0 && ids[t][pe] <= next, "%s id of PE %d is %d, "
                         "expected at most %d (numbered by lowest PE)", fed_type_names[t], pe,
                         ids[t][pe], next);
                if (ids[t][pe] == next)
                    next++;
                for (int q = 0; q < pe; q++)
                    if (ids[t][q] == ids[t][pe])
                        WT_EQ_NUM(ids[0][q], ids[0][pe], "%s domain %d spans nodes (PEs %d "
                                  "and %d)", fed_type_names[t], ids[t][pe], q, pe);
            }
        }
    }
    for (int a = 1; a < argc; a++) {
        if (!strncmp(argv[a], "bind=", 5))
            continue;
        if (!strcmp(argv[a], "one-host")) {
            one_host = 1;
            continue;
        }
        char name[16];
        const char *eq = strchr(argv[a], '=');
        WT_CHECK(eq && eq - argv[a] < 16, "bad argument %s", argv[a]);
        memcpy(name, argv[a], (size_t)(eq - argv[a]));
        name[eq - argv[a]] = '\0';
        int t = type_index(name);
        WT_CHECK(t >= 0, "bad type in argument %s", argv[a]);
        const char *p = eq + 1;
        for (int pe = 0; pe < n; pe++) {
            WT_CHECK(*p, "argument %s lists fewer than %d PEs", argv[a], n);
            WT_EQ_NUM(got[t][pe], atoi(p), "explicit %s id of PE %d", name, pe);
            p += strcspn(p, ",");
            if (*p == ',')
                p++;
        }
    }
    if (one_host)
        WT_EQ_NUM(shmemx_topology_count(SHMEMX_TEAM_TYPE_NODE), 1, "one host: node count");
    for (int t = 0; t < FED_NTYPES; t++) {
        WT_EQ_NUM(shmemx_topology_count(fed_types[t]), fed_count(n, ids[t]), "%s count",
                  fed_type_names[t]);
        for (int pe = 0; pe < n; pe++)
            WT_EQ_NUM(got[t][pe], ids[t][pe], "%s id of PE %d", fed_type_names[t], pe);
    }
    if (me == 0)
        printf("fed.split_type: %d PEs, %s: %d node(s), %d NUMA, %d socket(s), %d L3\n", n,
               spec ? spec : "real machine", fed_count(n, ids[0]), fed_count(n, ids[1]),
               fed_count(n, ids[2]), fed_count(n, ids[3]));

    int *world = malloc((size_t)n * sizeof *world), *rev = malloc((size_t)n * sizeof *rev);
    int *evens = malloc((size_t)n * sizeof *evens), *list = malloc((size_t)n * sizeof *list);
    int ne = 0;
    for (int i = 0; i < n; i++) {
        world[i] = i;
        rev[i] = n - 1 - i;
        if (i % 2 == 0)
            evens[ne++] = i;
    }
    shmem_team_t rev_team, even_team;
    WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev_team), 0,
              "reversed world");
    WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ne, NULL, 0, &even_team), 0,
              "even PEs");

    shmem_team_t keep[FED_NTYPES][3];
    char what[96];
    for (int t = 0; t < FED_NTYPES; t++) {
        WT_PHASE("split_type %s of world", fed_type_names[t]);
        shmem_team_config_t cfg = {.num_contexts = t + 1}, back = {0};
        WT_EQ_NUM(shmemx_team_split_type(SHMEM_TEAM_WORLD, fed_types[t], &cfg,
                                         SHMEM_TEAM_NUM_CONTEXTS, &keep[t][0]), 0, "split");
        snprintf(what, sizeof what, "%s of world", fed_type_names[t]);
        fed_check_team(keep[t][0], list, members_of(world, n, ids[t], list), what);
        WT_EQ_NUM(shmem_team_get_config(keep[t][0], SHMEM_TEAM_NUM_CONTEXTS, &back), 0,
                  "get_config");
        WT_EQ_NUM(back.num_contexts, t + 1, "num_contexts from the config");

        WT_PHASE("split_type %s of reversed world", fed_type_names[t]);
        WT_EQ_NUM(shmemx_team_split_type(rev_team, fed_types[t], NULL, 0, &keep[t][1]), 0,
                  "split");
        snprintf(what, sizeof what, "%s of reversed world", fed_type_names[t]);
        fed_check_team(keep[t][1], list, members_of(rev, n, ids[t], list), what);

        WT_PHASE("split_type %s of even PEs", fed_type_names[t]);
        keep[t][2] = SHMEM_TEAM_INVALID;
        if (even_team != SHMEM_TEAM_INVALID) {
            WT_EQ_NUM(shmemx_team_split_type(even_team, fed_types[t], NULL, 0, &keep[t][2]), 0,
                      "split");
            snprintf(what, sizeof what, "%s of even PEs", fed_type_names[t]);
            fed_check_team(keep[t][2], list, members_of(evens, ne, ids[t], list), what);
        }
    }

    WT_PHASE("NUMA split of a NODE team");
    {
        shmem_team_t numa_in_node;
        WT_EQ_NUM(shmemx_team_split_type(keep[0][0], SHMEMX_TEAM_TYPE_NUMA, NULL, 0,
                                         &numa_in_node), 0, "split");
        int m = 0;
        for (int pe = 0; pe < n; pe++)
            if (ids[0][pe] == ids[0][me] && ids[1][pe] == ids[1][me])
                list[m++] = pe;
        fed_check_team(numa_in_node, list, m, "NUMA of my NODE team");
        shmem_team_destroy(numa_in_node);
    }

    WT_PHASE("split_type of SHMEM_TEAM_INVALID");
    {
        shmem_team_t x = SHMEM_TEAM_WORLD;
        WT_CHECK(shmemx_team_split_type(SHMEM_TEAM_INVALID, SHMEMX_TEAM_TYPE_NODE, NULL, 0,
                                        &x) != 0, "invalid parent accepted");
        WT_CHECK(x == SHMEM_TEAM_INVALID, "invalid parent: new team not SHMEM_TEAM_INVALID");
    }

    WT_PHASE("teams kept alive, used again in reverse order");
    for (int t = FED_NTYPES - 1; t >= 0; t--) {
        snprintf(what, sizeof what, "%s of world (again)", fed_type_names[t]);
        fed_check_team(keep[t][0], list, members_of(world, n, ids[t], list), what);
        snprintf(what, sizeof what, "%s of reversed world (again)", fed_type_names[t]);
        fed_check_team(keep[t][1], list, members_of(rev, n, ids[t], list), what);
    }
    for (int t = 0; t < FED_NTYPES; t++)
        for (int k = 0; k < 3; k++)
            shmem_team_destroy(keep[t][k]);
    shmem_team_destroy(rev_team);
    shmem_team_destroy(even_team);
    free(world);
    free(rev);
    free(evens);
    free(list);
    wt_finish();
    return 0;
}

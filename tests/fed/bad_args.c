/* SPDX-License-Identifier: BSD-3-Clause */
/* bad_args (fed): invalid arguments to the shmemx topology routines must be
 * reported, naming the routine and the argument, and end the whole job
 * with a non-zero status while the other PEs wait in a barrier. Run under
 * expect-failure.sh.
 *   split-type-bad     shmemx_team_split_type with type 99 (all PEs)  -> type
 *   split-type-null    shmemx_team_split_type with new_team NULL      -> new_team
 *   split-color-null   shmemx_team_split_color with new_team NULL     -> new_team
 *   count-bad          shmemx_topology_count(0)                       -> type
 *   id-bad-type        shmemx_topology_id(-3, 0)                      -> type
 *   id-pe-n            shmemx_topology_id(NODE, n_pes)                -> pe
 *   id-pe-neg          shmemx_topology_id(L3, -1)                     -> pe
 *   fed-create-type    shmemx_federation_create with type 7           -> type
 *   fed-create-null    shmemx_federation_create with fed NULL         -> fed
 *   fed-get-null       shmemx_team_get_federation with fed NULL       -> fed
 *   fed-invalid        shmemx_federation_n_teams(INVALID)             -> fed
 *   fed-team-of-pe     shmemx_federation_team_of(fed, n_pes)          -> pe
 *   fed-team-size      shmemx_federation_team_n_pes(fed, n_teams)     -> team
 *   fed-pe-index       shmemx_federation_pe(fed, 0, size of team 0)   -> team_pe
 *   fed-translate-team shmemx_federation_translate_pe(fed, 0, -1)     -> dest_team
 *   nbr-team           shmemx_federation_n_neighbors(fed, n_teams)    -> team
 *   nbr-mismatch       set_neighbors, a different graph on each PE    -> neighbors (all PEs)
 *   nbr-asym           set_neighbors, team 0 lists 1, 1 lists none    -> neighbors (all PEs)
 *   nbr-parent         neighbor_fcollectmem over the wrong parent     -> parent_team
 *   nbr-red-parent     long_sum_neighbor_reduce over the wrong parent -> parent_team
 *   nbr-red-dest       int_max_neighbor_reduce into a private dest    -> dest
 * The last PE misbehaves (every PE for the collective split-type-bad). A
 * malformed WEFT_TOPOLOGY is tested with mode "none" (init must fail). */
#include <shmemx.h>

#include "weft_test.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "count-bad";
    wt_init("fed.bad_args");
    shmem_barrier_all();
    if (!strcmp(mode, "none")) {
        printf("fed.bad_args: shmem_init accepted the topology\n");
        shmem_finalize();
        return 0;
    }
    int all = !strcmp(mode, "split-type-bad") || !strcmp(mode, "nbr-mismatch") ||
              !strcmp(mode, "nbr-asym");
    /* The neighbour modes: a federation of one team per PE (collective). */
    shmemx_federation_t alone = SHMEMX_FEDERATION_INVALID;
    shmem_team_t alone_team = SHMEM_TEAM_INVALID;
    if (!strncmp(mode, "nbr-", 4)) {
        shmemx_team_split_color(SHMEM_TEAM_WORLD, wt_me, 0, NULL, 0, &alone_team);
        WT_CHECK(shmemx_team_get_federation(alone_team, &alone) == 0, "get_federation");
    }
    if (all || wt_me == wt_npes - 1) {
        WT_PHASE("invalid call: %s", mode);
        fprintf(stderr, "fed.bad_args: PE %d makes the invalid call \"%s\"\n", wt_me, mode);
        shmem_team_t t;
        if (!strcmp(mode, "split-type-bad")) {
            (void)shmemx_team_split_type(SHMEM_TEAM_WORLD, 99, NULL, 0, &t);
        } else if (!strcmp(mode, "split-type-null")) {
            (void)shmemx_team_split_type(SHMEM_TEAM_WORLD, SHMEMX_TEAM_TYPE_NODE, NULL, 0, NULL);
        } else if (!strcmp(mode, "split-color-null")) {
            (void)shmemx_team_split_color(SHMEM_TEAM_WORLD, 0, 0, NULL, 0, NULL);
        } else if (!strcmp(mode, "count-bad")) {
            (void)shmemx_topology_count(0);
        } else if (!strcmp(mode, "id-bad-type")) {
            (void)shmemx_topology_id(-3, 0);
        } else if (!strcmp(mode, "id-pe-n")) {
            (void)shmemx_topology_id(SHMEMX_TEAM_TYPE_NODE, wt_npes);
        } else if (!strcmp(mode, "id-pe-neg")) {
            (void)shmemx_topology_id(SHMEMX_TEAM_TYPE_L3, -1);
        } else if (!strncmp(mode, "fed-", 4)) {
            shmemx_federation_t f;
            if (!strcmp(mode, "fed-create-type"))
                (void)shmemx_federation_create(SHMEM_TEAM_WORLD, 7, &f);
            else if (!strcmp(mode, "fed-create-null"))
                (void)shmemx_federation_create(SHMEM_TEAM_WORLD, SHMEMX_TEAM_TYPE_NODE, NULL);
            else if (!strcmp(mode, "fed-get-null"))
                (void)shmemx_team_get_federation(SHMEM_TEAM_WORLD, NULL);
            else if (!strcmp(mode, "fed-invalid"))
                (void)shmemx_federation_n_teams(SHMEMX_FEDERATION_INVALID);
            WT_CHECK(shmemx_federation_create(SHMEM_TEAM_WORLD, SHMEMX_TEAM_TYPE_NODE, &f) == 0,
                     "create");
            if (!strcmp(mode, "fed-team-of-pe"))
                (void)shmemx_federation_team_of(f, wt_npes);
            else if (!strcmp(mode, "fed-team-size"))
                (void)shmemx_federation_team_n_pes(f, shmemx_federation_n_teams(f));
            else if (!strcmp(mode, "fed-pe-index"))
                (void)shmemx_federation_pe(f, 0, shmemx_federation_team_n_pes(f, 0));
            else if (!strcmp(mode, "fed-translate-team"))
                (void)shmemx_federation_translate_pe(f, 0, -1);
            shmemx_federation_destroy(f);
        } else if (!strcmp(mode, "nbr-team")) {
            (void)shmemx_federation_n_neighbors(alone, shmemx_federation_n_teams(alone));
        } else if (!strcmp(mode, "nbr-mismatch")) {
            int deg[2] = {wt_me == 0, wt_me == 0}, nb[2] = {1, 0};
            (void)shmemx_federation_set_neighbors(alone, SHMEM_TEAM_WORLD, deg, nb);
        } else if (!strcmp(mode, "nbr-asym")) {
            int deg[2] = {1, 0}, nb[1] = {1};
            (void)shmemx_federation_set_neighbors(alone, SHMEM_TEAM_WORLD, deg, nb);
        } else if (!strcmp(mode, "nbr-parent")) {
            static long d[4], s[4];
            (void)shmemx_neighbor_fcollectmem(alone, alone_team, d, s, 8);
        } else if (!strcmp(mode, "nbr-red-parent")) {
            static long d[4], s[4];
            (void)shmemx_long_sum_neighbor_reduce(alone, alone_team, d, s, 4);
        } else if (!strcmp(mode, "nbr-red-dest")) {
            static int s[4];
            int d[4];
            (void)shmemx_int_max_neighbor_reduce(alone, SHMEM_TEAM_WORLD, d, s, 4);
        } else {
            fprintf(stderr, "fed.bad_args: unknown mode %s\n", mode);
            return 2;
        }
        printf("fed.bad_args: the invalid call \"%s\" returned normally\n", mode);
        fflush(stdout);
    }
    WT_PHASE("barrier after the invalid call");
    shmem_barrier_all();
    shmem_finalize();
    return 0; /* status 0: expect-failure.sh reports the missing error */
}

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
    int all = !strcmp(mode, "split-type-bad");
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

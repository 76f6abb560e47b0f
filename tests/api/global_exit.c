/* SPDX-License-Identifier: BSD-3-Clause */
/* global_exit: one PE (or every PE, argument "all") calls
 * shmem_global_exit(status) while the others block in a barrier or spin in
 * shmem_wait_until. The whole job must end, with that status, promptly;
 * run under expect-failure.sh --status <status>.
 *   global_exit <status> [last|first|all]   default: last PE exits */
#include "weft_test.h"

long never_set;

int main(int argc, char **argv)
{
    int status = argc > 1 ? atoi(argv[1]) : 7;
    const char *who = argc > 2 ? argv[2] : "last";
    wt_init("global_exit");
    int caller = !strcmp(who, "first") ? 0 : wt_npes - 1;
    shmem_barrier_all();
    if (!strcmp(who, "all") || wt_me == caller) {
        printf("PE %d calling shmem_global_exit(%d)\n", wt_me, status);
        fflush(stdout);
        WT_PHASE("shmem_global_exit(%d)", status);
        shmem_global_exit(status);
        fprintf(stderr, "FAIL [global_exit] PE %d: shmem_global_exit returned\n", wt_me);
        _exit(99);
    }
    /* Others: half in a barrier, half in a wait that nothing satisfies. */
    if (wt_me % 2) {
        WT_PHASE("waiting in shmem_long_wait_until (never satisfied)");
        shmem_long_wait_until(&never_set, SHMEM_CMP_EQ, 1);
    } else {
        WT_PHASE("waiting in shmem_barrier_all (never completes)");
        shmem_barrier_all();
    }
    fprintf(stderr, "FAIL [global_exit] PE %d: got past a wait that cannot complete\n", wt_me);
    _exit(98);
}

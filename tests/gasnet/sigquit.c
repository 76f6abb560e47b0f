/* SPDX-License-Identifier: BSD-3-Clause */
/* sigquit.c: SIGQUIT on a remote exit, as the GASNet-1 specification
 * describes it. Every node catches SIGQUIT with a handler that says so and
 * calls gasnet_exit(4). Modes (argv[1]):
 *   remote-exit  the last node calls gasnet_exit(3) alone while the others
 *                spin without polling: their handlers run, the job ends 3;
 *   sigint       the last node gets SIGINT while the others wait in a
 *                barrier: its SIGINT becomes SIGQUIT, the job ends 4 (with
 *                WEFT_GASNET_SIGQUIT=0: killed by SIGINT, 130). */
#include <sched.h>

#include "gn_test.h"

static void on_quit(int sig)
{
    (void)sig;
    char line[64];
    int k = snprintf(line, sizeof line, "node %d: SIGQUIT handler\n", gt_me);
    if (write(1, line, (size_t)k) < 0)
        _exit(9);
    gasnet_exit(4);
}

int main(int argc, char **argv)
{
    gt_start("sigquit", &argc, &argv, NULL, 0, GASNET_PAGESIZE);
    const char *mode = argc > 1 ? argv[1] : "remote-exit";
    signal(SIGQUIT, on_quit);
    GT_CHECK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
    int last = gt_me == gt_n - 1;
    if (strcmp(mode, "remote-exit") == 0) {
        GT_PHASE("remote-exit");
        if (last)
            gasnet_exit(3);
        for (;;)
            sched_yield(); /* spins, never polls (yields: PEs may outnumber cores) */
    } else if (strcmp(mode, "sigint") == 0) {
        GT_PHASE("sigint");
        if (last) {
            kill(getpid(), SIGINT);
            for (;;)
                usleep(1000);
        }
        gasnet_barrier(1, GASNET_BARRIERFLAG_ANONYMOUS);
    }
    GT_CHECK(0, "mode %s: the job did not end", mode);
    return 0;
}

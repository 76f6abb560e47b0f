/* SPDX-License-Identifier: BSD-3-Clause */
/* gn_test.h: the harness of the GASNet test programs (the GASNet twin of
 * tests/api/weft_test.h).
 *
 *   gt_start(name, argc, argv, table, n, segsize)  gasnet_init + attach,
 *        a watchdog (GT_TIMEOUT seconds, default 50: prints the phase and
 *        exits 3) and gt_me / gt_n / gt_seg (every node's segment)
 *   GT_PHASE("...")        what the program is doing, printed on failure
 *   GT_CHECK(cond, fmt, ...)  on failure prints
 *        FAIL [test] node me/n phase "...": file:line: cond: message
 *      and ends the job with gasnet_exit(1)
 *   gt_finish()            barrier, "PASS" from node 0, gasnet_exit(0) */
#ifndef GN_TEST_H
#define GN_TEST_H

#include <gasnet.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int gt_me = -1, gt_n = -1;
static gasnet_seginfo_t *gt_seg;
static const char *gt_name = "?";
static char gt_phase_buf[192] = "start";

#define GT_PHASE(...) snprintf(gt_phase_buf, sizeof gt_phase_buf, __VA_ARGS__)

#define GT_CHECK(cond, ...)                                                              \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            char gt_msg_[256];                                                           \
            snprintf(gt_msg_, sizeof gt_msg_, __VA_ARGS__);                              \
            fprintf(stderr, "FAIL [%s] node %d/%d phase \"%s\": %s:%d: %s: %s\n", gt_name, \
                    gt_me, gt_n, gt_phase_buf, __FILE__, __LINE__, #cond, gt_msg_);      \
            fflush(stderr);                                                              \
            gasnet_exit(1);                                                              \
        }                                                                                \
    } while (0)

static void gt_watchdog(int sig)
{
    (void)sig;
    char line[300];
    int k = snprintf(line, sizeof line, "TIMEOUT [%s] node %d phase \"%s\"\n", gt_name, gt_me,
                     gt_phase_buf);
    if (write(2, line, (size_t)k) < 0)
        _exit(4);
    _exit(3);
}

static inline void gt_start(const char *name, int *argc, char ***argv, gasnet_handlerentry_t *table,
                     int n, uintptr_t segsize)
{
    gt_name = name;
    const char *t = getenv("GT_TIMEOUT");
    signal(SIGALRM, gt_watchdog);
    alarm(t ? (unsigned)atoi(t) : 50);
    GT_CHECK(gasnet_init(argc, argv) == GASNET_OK, "gasnet_init");
    gt_me = (int)gasnet_mynode();
    gt_n = (int)gasnet_nodes();
    GT_CHECK(gasnet_attach(table, n, segsize, 0) == GASNET_OK, "gasnet_attach");
    gt_seg = calloc((size_t)gt_n, sizeof *gt_seg);
    GT_CHECK(gasnet_getSegmentInfo(gt_seg, gt_n) == GASNET_OK, "getSegmentInfo");
}

static inline void gt_finish(void)
{
    GT_PHASE("finish");
    GT_CHECK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "final barrier");
    if (gt_me == 0)
        printf("PASS [%s] %d nodes\n", gt_name, gt_n);
    fflush(stdout);
    /* gasnet_exit ends every node at once: all have printed before it. */
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
}

#endif

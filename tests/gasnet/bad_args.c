/* SPDX-License-Identifier: BSD-3-Clause */
/* bad_args.c <mode>: one misuse of GASNet per mode; each must end the whole
 * job with a message naming the call and the argument (EXPECT_FAIL_REGEX in
 * CMakeLists.txt). exit-one / exit-all: gasnet_exit's status, from one node
 * while the others block, and from every node. */
#include <gasnet_vis.h>

#include "gn_test.h"

static const char *mode;
static int in_handler_mode(const char *m) { return !strcmp(mode, m); }

static void h_req(gasnet_token_t t)
{
    if (in_handler_mode("request-in-handler"))
        gasnet_AMRequestShort0(0, 200);
    if (in_handler_mode("double-reply")) {
        gasnet_AMReplyShort0(t, 201);
        gasnet_AMReplyShort0(t, 201);
    }
}
static void h_rep(gasnet_token_t t) { (void)t; }

int main(int argc, char **argv)
{
    mode = argc > 1 ? argv[1] : "";
    char local[64];
    if (!strcmp(mode, "before-attach")) {
        gasnet_init(&argc, &argv);
        gasnet_put(0, local, local, 8);
        return 0;
    }
    gasnet_handlerentry_t table[] = {{200, (void (*)())h_req}, {201, (void (*)())h_rep}};
    gt_start("bad_args", &argc, &argv, table, 2, 64 * 1024);
    char *seg1 = gt_seg[gt_n - 1].addr;
    if (!strcmp(mode, "node-range"))
        gasnet_put((gasnet_node_t)gt_n, seg1, local, 8);
    else if (!strcmp(mode, "outside-segment"))
        gasnet_put((gasnet_node_t)gt_n - 1, seg1 + 64 * 1024 - 4, local, 8);
    else if (!strcmp(mode, "nbi-word-outside-segment"))
        gasnet_put_nbi((gasnet_node_t)gt_n - 1, seg1 + 64 * 1024 - 4, local, 8);
    else if (!strcmp(mode, "unregistered-handler"))
        gasnet_AMRequestShort0(0, 150);
    else if (!strcmp(mode, "medium-too-large")) {
        static char big[8192];
        gasnet_AMRequestMedium0(0, 200, big, gasnet_AMMaxMedium() + 1);
    } else if (!strcmp(mode, "long-outside-segment"))
        gasnet_AMRequestLong0(0, 200, local, 8, local);
    else if (!strcmp(mode, "request-in-handler") || !strcmp(mode, "double-reply")) {
        gasnet_AMRequestShort0(gasnet_mynode(), 200);
        for (;;)
            gasnet_AMPoll();
    } else if (!strcmp(mode, "exit-one")) {
        /* One node ends the job while the others wait in a barrier. */
        if (gt_me == 0)
            gasnet_exit(5);
        gasnet_barrier(0, 0);
    } else if (!strcmp(mode, "exit-all")) {
        gasnet_barrier(0, 0);
        gasnet_exit(3);
    } else if (!strcmp(mode, "vis-shape")) {
        gasnet_memvec_t d = {seg1, 8}, s = {local, 16};
        gasnet_putv_bulk((gasnet_node_t)gt_n - 1, 1, &d, 1, &s);
    } else if (!strcmp(mode, "double-notify")) {
        gasnet_barrier_notify(1, 0);
        gasnet_barrier_notify(1, 0);
    }
    GT_CHECK(0, "mode %s did not fail", mode);
    return 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* long_unserved.c checks that a Long request of at most gasnet_AMMaxMedium()
 * bytes leaves without the target's help: node pairs (2k, 2k + 1), the odd
 * node sleeps outside GASNet (no progress thread either) while the even one
 * sends Longs of 1 to 4096 bytes, which must return long before the sleep
 * ends. Then the odd node polls, checks every payload in its segment and
 * answers each with a Long reply of the same size; Longs of 4097 bytes and
 * more, request and reply, check the other way through libfabric too. */
#include "gn_test.h"

#include <time.h>

#define H_REQ 201
#define H_REP 202
#define SLEEP_S 3
#define MAX_QUICK_S 1.5

static const size_t sizes[] = {1, 7, 64, 1000, 4095, 4096, 4097, 8192, 65536};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define SLOT 65536 /* bytes per size in a segment */

static volatile int requests_seen, replies_seen;

static unsigned char pattern(int node, size_t size, size_t i)
{
    return (unsigned char)(node * 31 + size * 7 + i * 13 + 1);
}

static int payload_ok(const unsigned char *p, int node, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (p[i] != pattern(node, size, i))
            return 0;
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned char *source; /* outside the segment, like most clients' */

static void req_handler(gasnet_token_t tok, void *buf, size_t nbytes, gasnet_handlerarg_t k)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(tok, &src);
    GT_CHECK(nbytes == sizes[k], "request %d carries %zu bytes, sent %zu", (int)k, nbytes,
             sizes[k]);
    GT_CHECK(buf == (char *)gt_seg[gt_me].addr + (size_t)k * SLOT, "request %d landed at %p",
             (int)k, buf);
    GT_CHECK(payload_ok(buf, (int)src, nbytes), "request %d of %zu bytes: wrong payload",
             (int)k, nbytes);
    unsigned char *out = source + (size_t)k * SLOT;
    for (size_t i = 0; i < nbytes; i++)
        out[i] = pattern(gt_me, nbytes, i);
    gasnet_AMReplyLong1(tok, H_REP, out, nbytes, (char *)gt_seg[src].addr + (size_t)k * SLOT, k);
    requests_seen++;
}

static void rep_handler(gasnet_token_t tok, void *buf, size_t nbytes, gasnet_handlerarg_t k)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(tok, &src);
    GT_CHECK(nbytes == sizes[k] && buf == (char *)gt_seg[gt_me].addr + (size_t)k * SLOT,
             "reply %d: %zu bytes at %p", (int)k, nbytes, buf);
    GT_CHECK(payload_ok(buf, (int)src, nbytes), "reply %d of %zu bytes: wrong payload", (int)k,
             nbytes);
    replies_seen++;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {{H_REQ, (void (*)())req_handler},
                                     {H_REP, (void (*)())rep_handler}};
    gt_start("long_unserved", &argc, &argv, table, 2, NSIZES * SLOT);
    GT_CHECK(gt_n % 2 == 0, "needs an even number of nodes");
    source = malloc(NSIZES * SLOT);
    GT_CHECK(source != NULL, "malloc");
    int peer = gt_me ^ 1;
    int sender = gt_me % 2 == 0;
    size_t quick = 0;
    while (quick < NSIZES && sizes[quick] <= gasnet_AMMaxMedium())
        quick++;

    GT_PHASE("Longs of at most gasnet_AMMaxMedium() to a sleeping node");
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (sender) {
        double t0 = now_s();
        for (size_t k = 0; k < quick; k++) {
            for (size_t i = 0; i < sizes[k]; i++)
                source[k * SLOT + i] = pattern(gt_me, sizes[k], i);
            gasnet_AMRequestLong1(peer, H_REQ, source + k * SLOT, sizes[k],
                                  (char *)gt_seg[peer].addr + k * SLOT, (gasnet_handlerarg_t)k);
        }
        double took = now_s() - t0;
        GT_CHECK(took < MAX_QUICK_S, "%zu Longs of up to %zu bytes took %.2f s: they waited for "
                 "the target, asleep for %d s", quick, sizes[quick - 1], took, SLEEP_S);
    } else {
        sleep(SLEEP_S);
    }

    GT_PHASE("the replies, and Longs larger than gasnet_AMMaxMedium()");
    if (sender) {
        for (size_t k = quick; k < NSIZES; k++) {
            for (size_t i = 0; i < sizes[k]; i++)
                source[k * SLOT + i] = pattern(gt_me, sizes[k], i);
            gasnet_AMRequestLong1(peer, H_REQ, source + k * SLOT, sizes[k],
                                  (char *)gt_seg[peer].addr + k * SLOT, (gasnet_handlerarg_t)k);
        }
        GASNET_BLOCKUNTIL(replies_seen == (int)NSIZES);
    } else {
        GASNET_BLOCKUNTIL(requests_seen == (int)NSIZES);
    }
    gt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* medium_reuse.c: a Medium's source buffer is the caller's again as soon as
 * gasnet_AMRequestMedium / gasnet_AMReplyMedium return. Every node sends
 * its right neighbour a stream of Mediums of every size class (within and
 * above the libfabric inject size, up to gasnet_AMMaxMedium) from ONE
 * buffer that it overwrites right after each call, and the receiver checks
 * each payload against the pattern of its sequence number; each request is
 * answered by a Medium reply from a reused buffer too, checked the same
 * way. Then node 0 sends node 1 a burst of largest Mediums without
 * waiting, each answered by a largest Medium from the handler, checked in
 * order (over shm each goes as two injected fragments the target joins). */
#include "gn_test.h"

#include <stdint.h>

#define H_REQ 140
#define H_REP 141
#define ROUNDS 200
#define BURST 256

static volatile long requests_seen, replies_seen;
static volatile int bad;
static unsigned char reply_buf[4096];

static unsigned char byte_of(long seq, size_t i) { return (unsigned char)(seq * 7 + i * 13 + 1); }

static void fill(unsigned char *p, size_t n, long seq)
{
    for (size_t i = 0; i < n; i++)
        p[i] = byte_of(seq, i);
}

static int matches(const unsigned char *p, size_t n, long seq)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != byte_of(seq, i))
            return 0;
    return 1;
}

static size_t size_of(long seq, size_t max)
{
    static const size_t sizes[] = {1, 40, 255, 256, 1000, 2048, 4000, 4096};
    size_t s = sizes[seq % (long)(sizeof sizes / sizeof *sizes)];
    return s > max ? max : s;
}

static void h_req(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t seq)
{
    if (seq != requests_seen || !matches(buf, n, seq))
        bad = 1;
    requests_seen++;
    /* The reply's buffer is overwritten right after the reply returns. */
    fill(reply_buf, n, seq + 1);
    gasnet_AMReplyMedium1(t, H_REP, reply_buf, n, seq);
    memset(reply_buf, 0xee, n);
}

static void h_rep(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t seq)
{
    (void)t;
    if (seq != replies_seen || !matches(buf, n, seq + 1))
        bad = 1;
    replies_seen++;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {{H_REQ, (void (*)())h_req}, {H_REP, (void (*)())h_rep}};
    gt_start("medium_reuse", &argc, &argv, table, 2, 1 << 20);
    size_t max = gasnet_AMMaxMedium();
    unsigned char *src = malloc(max);
    GT_CHECK(src != NULL, "malloc");
    gasnet_node_t right = (gasnet_node_t)((gt_me + 1) % gt_n);
    GT_PHASE("stream of Mediums from one buffer");
    for (long seq = 0; seq < ROUNDS; seq++) {
        size_t n = size_of(seq, max);
        fill(src, n, seq);
        gasnet_AMRequestMedium1(right, H_REQ, src, n, (gasnet_handlerarg_t)seq);
        memset(src, 0x55, n); /* the call has returned: the buffer is ours */
        if (seq % 16 == 15)
            GASNET_BLOCKUNTIL(replies_seen == seq + 1);
    }
    GASNET_BLOCKUNTIL(replies_seen == ROUNDS && requests_seen == ROUNDS);
    GT_CHECK(!bad, "a Medium's payload changed after its call returned");
    /* Node 1 counts exactly ROUNDS requests above before the burst's come. */
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    GT_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
    GT_PHASE("burst of largest Mediums from node 0, unanswered until the end");
    if (gt_me == 0 && gt_n > 1) {
        for (long seq = ROUNDS; seq < ROUNDS + BURST; seq++) {
            fill(src, max, seq);
            gasnet_AMRequestMedium1(right, H_REQ, src, max, (gasnet_handlerarg_t)seq);
            memset(src, 0x55, max);
        }
        GASNET_BLOCKUNTIL(replies_seen == ROUNDS + BURST);
    } else if (gt_me == 1) {
        GASNET_BLOCKUNTIL(requests_seen == ROUNDS + BURST);
    }
    GT_CHECK(!bad, "a Medium of the burst arrived changed or out of order");
    free(src);
    gt_finish();
}

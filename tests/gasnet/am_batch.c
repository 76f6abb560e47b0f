/* SPDX-License-Identifier: BSD-3-Clause */
/* am_batch.c: bursts of active messages to several nodes, without polls
 * between them, arrive whole and in order per sender (over tcp the message
 * layer gathers such bursts into batches the target splits). Every node
 * sends each other node, in turn, rounds of a Short, Mediums of every size
 * class and Longs (carried in the message, and one above gasnet_AMMaxMedium
 * that goes ahead of its header), each numbered per (sender, receiver);
 * the receiver checks number and payload and answers every request from the
 * handler, alternately with a Short and a Medium reply, which the sender
 * checks in order too. */
#include "gn_test.h"

#include <stdint.h>

#define H_SHORT 150
#define H_MEDIUM 151
#define H_LONG 152
#define H_REP_SHORT 153
#define H_REP_MEDIUM 154
#define ROUNDS 6
#define PER_ROUND 40
#define LONG_BIG 8192
#define MAX_NODES 64

static volatile long next_req[MAX_NODES], next_rep[MAX_NODES];
static long last_long[MAX_NODES]; /* the last Long's number to each node, -1: none */
static volatile long replies;
static volatile int bad;
static char why[160];
static unsigned char reply_buf[4096];

static unsigned char byte_of(long src, long seq, size_t i)
{
    return (unsigned char)(src * 31 + seq * 7 + i * 13 + 1);
}

static void fill(unsigned char *p, size_t n, long src, long seq)
{
    for (size_t i = 0; i < n; i++)
        p[i] = byte_of(src, seq, i);
}

static int matches(const unsigned char *p, size_t n, long src, long seq)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != byte_of(src, seq, i))
            return 0;
    return 1;
}

static void note_bad(const char *what, long src, long seq, long want)
{
    if (!bad)
        snprintf(why, sizeof why, "%s from node %ld: number %ld, expected %ld", what, src, seq,
                 want);
    bad = 1;
}

static size_t medium_size(long seq, size_t max)
{
    static const size_t sizes[] = {0, 8, 100, 1000, 3000, 4096};
    size_t s = sizes[seq % (long)(sizeof sizes / sizeof *sizes)];
    return s > max ? max : s;
}

/* Each sender's sequence numbers must arrive one after the other. */
static void check_next(volatile long *next, const char *what, gasnet_token_t t, long seq)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    if (seq != next[src])
        note_bad(what, (long)src, seq, next[src]);
    next[src] = seq + 1;
}

/* Every request: checked in order, answered from the handler. */
static void request_seen(gasnet_token_t t, long seq)
{
    check_next(next_req, "request out of order", t, seq);
    if (seq & 1) {
        size_t n = medium_size(seq, gasnet_AMMaxMedium());
        fill(reply_buf, n, gasnet_mynode(), seq);
        gasnet_AMReplyMedium1(t, H_REP_MEDIUM, reply_buf, n, (gasnet_handlerarg_t)seq);
        memset(reply_buf, 0xee, n); /* the reply's buffer is ours again */
    } else {
        gasnet_AMReplyShort1(t, H_REP_SHORT, (gasnet_handlerarg_t)seq);
    }
}

static void h_short(gasnet_token_t t, gasnet_handlerarg_t seq, gasnet_handlerarg_t check)
{
    if (check != ~seq)
        note_bad("Short's arguments changed", -1, seq, ~check);
    request_seen(t, seq);
}

/* A Medium request's or reply's payload: its size and bytes follow seq. */
static void check_medium(gasnet_token_t t, const void *buf, size_t n, long seq, const char *what)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    if (n != medium_size(seq, gasnet_AMMaxMedium()) || !matches(buf, n, (long)src, seq))
        note_bad(what, (long)src, seq, seq);
}

static void h_medium(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t seq)
{
    check_medium(t, buf, n, seq, "Medium's payload wrong");
    request_seen(t, seq);
}

static void h_long(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t seq)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    if (buf != (char *)gt_seg[gasnet_mynode()].addr + (size_t)src * LONG_BIG ||
        !matches(buf, n, (long)src, seq))
        note_bad("Long's payload wrong", (long)src, seq, seq);
    request_seen(t, seq);
}

static void reply_seen(gasnet_token_t t, long seq)
{
    check_next(next_rep, "reply out of order", t, seq);
    replies++;
}

static void h_rep_short(gasnet_token_t t, gasnet_handlerarg_t seq) { reply_seen(t, seq); }

static void h_rep_medium(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t seq)
{
    check_medium(t, buf, n, seq, "Medium reply's payload wrong");
    reply_seen(t, seq);
}

/* Request number seq to dest: a Short, a Long or a Medium. src is one
 * buffer, overwritten as soon as each call returns. */
static void send_one(gasnet_node_t dest, long seq, unsigned char *src)
{
    gasnet_node_t me = gasnet_mynode();
    if (seq % 10 == 0) {
        gasnet_AMRequestShort2(dest, H_SHORT, (gasnet_handlerarg_t)seq, ~(gasnet_handlerarg_t)seq);
        return;
    }
    if (seq % 10 == 5 || seq % 10 == 9) {
        /* A Long into this node's own slot of dest's segment: the one
         * before it was handled (its reply came) before this one leaves. */
        size_t n = seq % 10 == 5 ? 512 : LONG_BIG;
        GASNET_BLOCKUNTIL(next_rep[dest] > last_long[dest]);
        last_long[dest] = seq;
        fill(src, n, me, seq);
        gasnet_AMRequestLong1(dest, H_LONG, src, n,
                              (char *)gt_seg[dest].addr + (size_t)me * LONG_BIG,
                              (gasnet_handlerarg_t)seq);
        memset(src, 0x55, n);
        return;
    }
    size_t n = medium_size(seq, gasnet_AMMaxMedium());
    fill(src, n, me, seq);
    gasnet_AMRequestMedium1(dest, H_MEDIUM, src, n, (gasnet_handlerarg_t)seq);
    memset(src, 0x55, n);
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {{H_SHORT, (void (*)())h_short},
                                     {H_MEDIUM, (void (*)())h_medium},
                                     {H_LONG, (void (*)())h_long},
                                     {H_REP_SHORT, (void (*)())h_rep_short},
                                     {H_REP_MEDIUM, (void (*)())h_rep_medium}};
    gt_start("am_batch", &argc, &argv, table, 5, (uintptr_t)MAX_NODES * LONG_BIG + 65536);
    GT_CHECK(gt_n <= MAX_NODES, "at most %d nodes", MAX_NODES);
    unsigned char *src = malloc(LONG_BIG);
    GT_CHECK(src != NULL, "malloc");
    long sent[MAX_NODES] = {0};
    for (int i = 0; i < MAX_NODES; i++)
        last_long[i] = -1;
    long expected = 0;
    for (int round = 0; round < ROUNDS; round++) {
        GT_PHASE("round %d: bursts to every other node, interleaved", round);
        /* Messages to the other nodes alternate, several per node in a
         * row, so several batches are open at once. */
        for (int k = 0; k < PER_ROUND; k++) {
            for (int d = 1; d < gt_n; d++) {
                gasnet_node_t dest = (gasnet_node_t)((gt_me + d) % gt_n);
                int run = 1 + (k + d) % 4;
                for (int r = 0; r < run; r++)
                    send_one(dest, sent[dest]++, src);
                expected += run;
            }
        }
        GASNET_BLOCKUNTIL(replies == expected || bad);
        GT_CHECK(!bad, "%s", why);
    }
    GT_PHASE("every node's requests seen");
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    GT_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
    GT_CHECK(!bad, "%s", why);
    free(src);
    gt_finish();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* am.c: GASNet active messages between every node and its neighbours:
 * Short, Medium, Long and LongAsync requests with 0..16 arguments (the
 * fixed-arity macros and the M forms), replies of each kind, argument and
 * payload values, gasnet_AMGetMsgSource, the maximum Medium and Long sizes,
 * handler index 0 assignment, and a flood of requests (rings that fill). */
#include "gn_test.h"

#include <stdint.h>

#define H_SHORT 130
#define H_MEDIUM 131
#define H_LONG 132
#define H_REP_SHORT 133
#define H_REP_MEDIUM 134
#define H_REP_LONG 135
#define H_COUNT 136

static volatile int replies, counted;
static volatile int bad;
static int expect_src;
static int32_t arg_of(int node, int i) { return (int32_t)(node * 1000 + i * 7 - 50); }
static unsigned char byte_of(int node, size_t i) { return (unsigned char)(node * 31 + i * 13); }

static void check_args(int src, int nargs, const int32_t *a)
{
    for (int i = 0; i < nargs; i++)
        if (a[i] != arg_of(src, i))
            bad = 1;
}

#define A16 gasnet_handlerarg_t a0, gasnet_handlerarg_t a1, gasnet_handlerarg_t a2, \
    gasnet_handlerarg_t a3, gasnet_handlerarg_t a4, gasnet_handlerarg_t a5,         \
    gasnet_handlerarg_t a6, gasnet_handlerarg_t a7, gasnet_handlerarg_t a8,         \
    gasnet_handlerarg_t a9, gasnet_handlerarg_t a10, gasnet_handlerarg_t a11,       \
    gasnet_handlerarg_t a12, gasnet_handlerarg_t a13, gasnet_handlerarg_t a14,      \
    gasnet_handlerarg_t a15
#define ARR16 {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15}

static void h_short(gasnet_token_t t, A16)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    int32_t a[16] = ARR16;
    check_args((int)src, 16, a);
    gasnet_AMReplyShort2(t, H_REP_SHORT, (int)gasnet_mynode(), 42);
}
static void h_rep_short(gasnet_token_t t, gasnet_handlerarg_t who, gasnet_handlerarg_t v)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    if ((int)src != who || v != 42 || who != expect_src)
        bad = 2;
    replies++;
}
static void h_medium(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t len,
                     gasnet_handlerarg_t a1)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    if ((size_t)len != n || a1 != arg_of((int)src, 1))
        bad = 3;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char *)buf)[i] != byte_of((int)src, i))
            bad = 4;
    /* Echo it back (the payload buffer is valid until the handler returns). */
    gasnet_AMReplyMedium1(t, H_REP_MEDIUM, buf, n, (int)src);
}
static void h_rep_medium(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t who)
{
    (void)t;
    if (who != (int)gasnet_mynode())
        bad = 5;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char *)buf)[i] != byte_of(who, i))
            bad = 6;
    replies++;
}
static void h_long(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t off)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    if ((char *)buf != (char *)gt_seg[gasnet_mynode()].addr + off)
        bad = 7;
    for (size_t i = 0; i < n; i += 4093)
        if (((unsigned char *)buf)[i] != byte_of((int)src, i))
            bad = 8;
    if (n && ((unsigned char *)buf)[n - 1] != byte_of((int)src, n - 1))
        bad = 8;
    /* Reply with the first 1000 bytes into the requester's segment at 1 MiB
     * past where it wrote into ours. */
    size_t r = n < 1000 ? n : 1000;
    gasnet_AMReplyLong1(t, H_REP_LONG, buf, r, (char *)gt_seg[src].addr + (8 << 20) + off,
                        (int)r);
}
static void h_rep_long(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t r)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    if ((size_t)r != n)
        bad = 9;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char *)buf)[i] != byte_of((int)gasnet_mynode(), i))
            bad = 10;
    replies++;
}
static void h_count(gasnet_token_t t, gasnet_handlerarg_t v)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    if (v != (int)src)
        bad = 11;
    counted++;
}
/* Arity probes at both ends: 0 and 16 arguments (1, 2 and 4 are used
 * above and by the barrier). */
static volatile int arity_hits;
static void h_arity16(gasnet_token_t t, A16)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    int32_t a[16] = ARR16;
    check_args((int)src, 16, a);
    arity_hits++;
}
static void h_arity0(gasnet_token_t t) { (void)t; arity_hits++; }
static void h_medium0(gasnet_token_t t, void *buf, size_t n) { (void)t; (void)buf; arity_hits += n == 3; }

static void wait_replies(int want)
{
    GASNET_BLOCKUNTIL(replies >= want);
    GT_CHECK(!bad, "a handler saw a wrong value (code %d)", bad);
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {
        {H_SHORT, (void (*)())h_short},        {H_MEDIUM, (void (*)())h_medium},
        {H_LONG, (void (*)())h_long},          {H_REP_SHORT, (void (*)())h_rep_short},
        {H_REP_MEDIUM, (void (*)())h_rep_medium}, {H_REP_LONG, (void (*)())h_rep_long},
        {H_COUNT, (void (*)())h_count},        {0, (void (*)())h_arity0},
        {0, (void (*)())h_medium0},            {0, (void (*)())h_arity16},
    };
    int nt = (int)(sizeof table / sizeof table[0]);
    gt_start("am", &argc, &argv, table, nt, 16 << 20);
    GT_PHASE("limits");
    GT_CHECK(gasnet_AMMaxArgs() == 16, "AMMaxArgs");
    GT_CHECK(gasnet_AMMaxMedium() >= 4096, "AMMaxMedium %zu", gasnet_AMMaxMedium());
    GT_CHECK(gasnet_AMMaxLongRequest() >= (4u << 20), "AMMaxLongRequest");
    GT_CHECK(gasnet_AMMaxLongReply() >= (4u << 20), "AMMaxLongReply");
    for (int i = 0; i < gt_n; i++)
        GT_CHECK(gt_seg[i].size == (16u << 20) && gt_seg[i].addr, "segment of node %d", i);

    int right = (gt_me + 1) % gt_n, left = (gt_me + gt_n - 1) % gt_n;
    int32_t a[16];
    for (int i = 0; i < 16; i++)
        a[i] = arg_of(gt_me, i);

    GT_PHASE("short with 16 arguments to the right, reply short");
    expect_src = right;
    gasnet_AMRequestShort16(right, H_SHORT, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],
                            a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
    wait_replies(1);

    GT_PHASE("0 and 16 arguments (fixed and M forms) to every node");
    GT_CHECK(table[nt - 3].index == 255 && table[nt - 2].index == 254 &&
                 table[nt - 1].index == 253, "index 0 assignment: %u %u %u", table[nt - 3].index,
             table[nt - 2].index, table[nt - 1].index);
    for (int d = 0; d < gt_n; d++) {
        gasnet_AMRequestShort0(d, table[nt - 3].index);
        gasnet_AMRequestMedium0(d, table[nt - 2].index, a, 3);
        gasnet_AMRequestShortM(d, table[nt - 1].index, 16, a[0], a[1], a[2], a[3], a[4], a[5],
                               a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
    }
    GT_CHECK(gasnet_barrier(1, 0) == GASNET_OK, "barrier");
    GASNET_BLOCKUNTIL(arity_hits == 3 * gt_n);
    GT_CHECK(!bad, "arity (code %d)", bad);

    GT_PHASE("medium of every size class to the right, echoed");
    static unsigned char med[4096];
    for (size_t i = 0; i < sizeof med; i++)
        med[i] = byte_of(gt_me, i);
    size_t sizes[] = {0, 1, 64, 1000, 4096};
    int want = 1;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        gasnet_AMRequestMedium2(right, H_MEDIUM, med, sizes[s], (int)sizes[s], arg_of(gt_me, 1));
        wait_replies(++want);
    }

    GT_PHASE("long to the left (4 MiB and small), long reply");
    size_t big = (size_t)4 << 20; /* below the limit (extensions.c sends 4 MiB + 1) */
    unsigned char *src = malloc(big);
    for (size_t i = 0; i < big; i++)
        src[i] = byte_of(gt_me, i);
    size_t lsizes[] = {8, 5000, big};
    int off = 4096;
    for (size_t s = 0; s < 3; s++) {
        if (s == 1)
            gasnet_AMRequestLongAsync1(left, H_LONG, src, lsizes[s],
                                       (char *)gt_seg[left].addr + off, off);
        else
            gasnet_AMRequestLong1(left, H_LONG, src, lsizes[s], (char *)gt_seg[left].addr + off,
                                  off);
        wait_replies(++want);
    }
    free(src);

    GT_PHASE("flood: 100 requests to every node");
    GT_CHECK(gasnet_barrier(2, 0) == GASNET_OK, "barrier");
    for (int r = 0; r < 100; r++)
        for (int d = 0; d < gt_n; d++)
            gasnet_AMRequestShort1((gt_me + d) % gt_n, H_COUNT, gt_me);
    GASNET_BLOCKUNTIL(counted == 100 * gt_n);
    GT_CHECK(!bad, "flood (code %d)", bad);
    gt_finish();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* extensions.c: the GASNet-1 extensions clients use, and the Long limit.
 * gasnet_getNodeInfo (hosts numbered by their lowest node; a supernode
 * peer's segment reached through its offset), the
 * variable-arity gasnet_AMRequest and gasnet_AMReply families,
 * GASNET_BARRIERFLAG_UNNAMED, and gasnet_AMMaxLongRequest/Reply: larger
 * than 4 MiB by default (argument "limit=N": exactly N), with a Long of
 * 4 MiB + 1 bytes to the next node arriving whole. */
#include "gn_test.h"

#define H_ARGS 200  /* checks n arguments 1000 + i, replies with all 16 */
#define H_SUM 201   /* reply handler: the sum of its 16 arguments */
#define H_MED 202   /* Medium request: replies Medium with its payload reversed */
#define H_MEDR 203
#define H_LONG 204  /* Long request: checks the payload, replies Long back */
#define H_LONGR 205
#define BIGLONG (((size_t)4 << 20) + 1)

static volatile int got_sum = -1, medr_ok, long_ok, longr_ok;
static volatile int args_ok = 1;

static void h_args(gasnet_token_t t, gasnet_handlerarg_t a0, gasnet_handlerarg_t a1,
                   gasnet_handlerarg_t a2, gasnet_handlerarg_t a3, gasnet_handlerarg_t a4,
                   gasnet_handlerarg_t a5, gasnet_handlerarg_t a6, gasnet_handlerarg_t a7,
                   gasnet_handlerarg_t a8, gasnet_handlerarg_t a9, gasnet_handlerarg_t a10,
                   gasnet_handlerarg_t a11, gasnet_handlerarg_t a12, gasnet_handlerarg_t a13,
                   gasnet_handlerarg_t a14, gasnet_handlerarg_t a15)
{
    gasnet_handlerarg_t a[16] = {a0, a1, a2, a3, a4, a5, a6, a7,
                                 a8, a9, a10, a11, a12, a13, a14, a15};
    for (int i = 0; i < 16; i++)
        if (a[i] != 1000 + i)
            args_ok = 0;
    gasnet_AMReplyShort(t, H_SUM, 16, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,
                        a13, a14, a15);
}
static void h_sum(gasnet_token_t t, gasnet_handlerarg_t a0, gasnet_handlerarg_t a1,
                  gasnet_handlerarg_t a2, gasnet_handlerarg_t a3, gasnet_handlerarg_t a4,
                  gasnet_handlerarg_t a5, gasnet_handlerarg_t a6, gasnet_handlerarg_t a7,
                  gasnet_handlerarg_t a8, gasnet_handlerarg_t a9, gasnet_handlerarg_t a10,
                  gasnet_handlerarg_t a11, gasnet_handlerarg_t a12, gasnet_handlerarg_t a13,
                  gasnet_handlerarg_t a14, gasnet_handlerarg_t a15)
{
    (void)t;
    got_sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15;
}
static void h_med(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t x)
{
    char r[64];
    for (size_t i = 0; i < n; i++)
        r[i] = ((char *)buf)[n - 1 - i];
    gasnet_AMReplyMedium(t, H_MEDR, r, n, 1, x + 1);
}
static void h_medr(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t x)
{
    (void)t;
    medr_ok = n == 10 && memcmp(buf, "9876543210", 10) == 0 && x == 8;
}
static void h_long(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t src,
                   gasnet_handlerarg_t seed)
{
    int ok = n == BIGLONG;
    for (size_t i = 0; ok && i < n; i += 4093)
        ok = ((unsigned char *)buf)[i] == (unsigned char)(seed + i % 251);
    ok = ok && ((unsigned char *)buf)[n - 1] == (unsigned char)(seed + (n - 1) % 251);
    long_ok = ok;
    /* The first 8 bytes back into the sender's segment at offset 0. */
    gasnet_AMReplyLong(t, H_LONGR, buf, 8, gt_seg[src].addr, 1, ok);
}
static void h_longr(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t ok)
{
    (void)t;
    (void)buf;
    longr_ok = ok && n == 8;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {
        {H_ARGS, (void (*)())h_args}, {H_SUM, (void (*)())h_sum},   {H_MED, (void (*)())h_med},
        {H_MEDR, (void (*)())h_medr}, {H_LONG, (void (*)())h_long}, {H_LONGR, (void (*)())h_longr}};
    size_t want_limit = 0;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "limit=", 6) == 0)
            want_limit = (size_t)strtoull(argv[i] + 6, NULL, 10);
    gt_start("extensions", &argc, &argv, table, 6, 8u << 20);
    gasnet_node_t next = (gasnet_node_t)((gt_me + 1) % gt_n);

    GT_PHASE("gasnet_getNodeInfo");
    *(long *)((char *)gt_seg[gt_me].addr + 128) = 7000 + gt_me;
    GT_CHECK(gasnet_barrier(3, 0) == GASNET_OK, "barrier");
    gasnet_nodeinfo_t *ni = calloc((size_t)gt_n, sizeof *ni);
    GT_CHECK(gasnet_getNodeInfo(ni, gt_n) == GASNET_OK, "getNodeInfo");
    gasnet_node_t next_host = 0;
    for (int i = 0; i < gt_n; i++) {
        GT_CHECK(ni[i].host == ni[i].supernode || ni[i].supernode == (gasnet_node_t)i,
                 "node %d: host %u, supernode %u", i, (unsigned)ni[i].host,
                 (unsigned)ni[i].supernode);
        GT_CHECK(ni[i].host <= next_host, "node %d: host %u: hosts not numbered in order", i,
                 (unsigned)ni[i].host);
        if (ni[i].host == next_host)
            next_host++;
        int same = ni[i].supernode == ni[gt_me].supernode;
        if (same && i != gt_me) {
            /* A supernode peer's segment is reachable through the offset. */
            long *there = (long *)((char *)gt_seg[i].addr + 128 + ni[i].offset);
            GT_CHECK(*there == 7000 + i, "node %d: offset %ju does not reach its segment", i,
                     (uintmax_t)ni[i].offset);
        } else if (i != gt_me) {
            GT_CHECK(ni[i].offset == 0, "node %d outside the supernode has an offset", i);
        }
    }
    GT_CHECK(ni[gt_me].offset == 0, "own offset %ju", (uintmax_t)ni[gt_me].offset);

    GT_PHASE("GASNET_BARRIERFLAG_UNNAMED");
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_UNNAMED);
    GT_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_UNNAMED) == GASNET_OK, "unnamed barrier");
    int id = -1;
    GT_CHECK(gasnet_barrier_result(&id) == GASNET_BARRIERFLAG_ANONYMOUS, "result of unnamed");
    GT_CHECK(gasnet_barrier(0, GASNET_BARRIERFLAG_UNNAMED) == GASNET_OK, "unnamed barrier 2");

    GT_PHASE("variable-arity requests and replies");
    got_sum = -1;
    gasnet_AMRequestShort(next, H_ARGS, 16, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008,
                          1009, 1010, 1011, 1012, 1013, 1014, 1015);
    GASNET_BLOCKUNTIL(got_sum != -1);
    GT_CHECK(got_sum == 16 * 1000 + 120, "sum of the replied arguments %d", got_sum);
    medr_ok = -1;
    gasnet_AMRequestMedium(next, H_MED, "0123456789", 10, 1, 7);
    GASNET_BLOCKUNTIL(medr_ok != -1);
    GT_CHECK(medr_ok == 1, "Medium request/reply");

    GT_PHASE("gasnet_AMMaxLongRequest/Reply");
    size_t lim = gasnet_AMMaxLongRequest();
    GT_CHECK(gasnet_AMMaxLongReply() == lim, "request %zu, reply %zu", lim,
             gasnet_AMMaxLongReply());
    if (want_limit) {
        GT_CHECK(lim == want_limit, "limit %zu, WEFT_GASNET_MAX_LONG asks %zu", lim, want_limit);
    } else {
        GT_CHECK(lim > BIGLONG, "limit %zu: a Long of 4 MiB + 1 does not fit", lim);
        GT_PHASE("a Long of 4 MiB + 1 bytes");
        unsigned char *src = malloc(BIGLONG);
        for (size_t i = 0; i < BIGLONG; i++)
            src[i] = (unsigned char)(3 + i % 251);
        GT_CHECK(gasnet_barrier(1, 0) == GASNET_OK, "barrier");
        longr_ok = -1;
        gasnet_AMRequestLong(next, H_LONG, src, BIGLONG, (char *)gt_seg[next].addr + 4096, 2,
                             gt_me, 3);
        GASNET_BLOCKUNTIL(longr_ok != -1);
        GT_CHECK(longr_ok == 1, "Long of %zu bytes arrived damaged", (size_t)BIGLONG);
        GT_CHECK(gasnet_barrier(2, 0) == GASNET_OK, "barrier");
        free(src);
    }
    GT_CHECK(args_ok, "a request saw wrong arguments");
    gt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* self_poll.c: requests a node sends itself run before the call returns
 * (Short, Medium, Long, and a reply to self from inside one), so threads
 * that spin on puts or gets without gasnet_AMPoll see a flag such a
 * request sets; and the extended API's calls that leave gasnet.h's inline
 * path run handlers, so a loop of large puts, or of try_syncnbi_all, sees a
 * flag a peer's request sets. GASNET_PAR. */
#define GASNET_PAR 1
#include <pthread.h>

#include "gn_test.h"

#define H_FLAG 200   /* sets flag[arg0] */
#define H_MEDIUM 201 /* checks and scribbles over its payload */
#define H_LONG 202
#define H_PING 203   /* replies with H_FLAG's reply twin */
#define H_PONG 204
#define SPINNERS 2
#define BIG 4096     /* past gasnet.h's inline copy */

static volatile int flag[8];
static volatile int medium_ok, long_ok, pong;
static char *my_seg;

static void h_flag(gasnet_token_t t, gasnet_handlerarg_t which)
{
    (void)t;
    flag[which] = 1;
}
static void h_medium(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t seed)
{
    (void)t;
    int ok = n == 100 && ((uintptr_t)buf & 7) == 0;
    for (size_t i = 0; ok && i < n; i++)
        ok = ((unsigned char *)buf)[i] == (unsigned char)(seed + i);
    memset(buf, 0xee, n); /* the handler's own copy: the sender's stays */
    medium_ok = ok;
}
static void h_long(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t seed)
{
    (void)t;
    int ok = buf == my_seg + 64 && n == 200;
    for (size_t i = 0; ok && i < n; i++)
        ok = ((unsigned char *)buf)[i] == (unsigned char)(seed ^ i);
    long_ok = ok;
}
static void h_ping(gasnet_token_t t, gasnet_handlerarg_t v)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    gasnet_AMReplyShort1(t, H_PONG, v + (gasnet_handlerarg_t)src);
}
static void h_pong(gasnet_token_t t, gasnet_handlerarg_t v)
{
    (void)t;
    pong = v;
}

struct spin {
    int which;   /* flag index to wait for */
    int get;     /* spin on gets, else puts */
    int big;     /* BIG bytes (the out-of-line path), else 8 */
    int peer;
    long rounds; /* how many calls it took */
};
static char big_src[BIG];

static void *spinner(void *arg)
{
    struct spin *s = arg;
    char *remote = (char *)gt_seg[s->peer].addr + 4096 + (s->which % SPINNERS) * BIG;
    char local[BIG];
    size_t n = s->big ? BIG : 8;
    memset(local, s->which, sizeof local);
    while (!flag[s->which]) {
        if (s->get)
            gasnet_get(local, (gasnet_node_t)s->peer, remote, n);
        else
            gasnet_put((gasnet_node_t)s->peer, remote, s->big ? big_src : local, n);
        s->rounds++;
    }
    return NULL;
}

/* Threads spin on puts (or gets) until a request sets their flag, without
 * ever polling; the main thread sends that request to itself. */
static void spin_until_self(int get)
{
    pthread_t th[SPINNERS];
    struct spin s[SPINNERS];
    for (int i = 0; i < SPINNERS; i++) {
        s[i] = (struct spin){i, get, 0, (gt_me + 1) % gt_n, 0};
        flag[i] = 0;
        pthread_create(&th[i], NULL, spinner, &s[i]);
    }
    usleep(2000);
    for (int i = 0; i < SPINNERS; i++)
        GT_CHECK(gasnet_AMRequestShort1(gasnet_mynode(), H_FLAG, i) == GASNET_OK, "request");
    for (int i = 0; i < SPINNERS; i++)
        pthread_join(th[i], NULL);
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {{H_FLAG, (void (*)())h_flag},
                                     {H_MEDIUM, (void (*)())h_medium},
                                     {H_LONG, (void (*)())h_long},
                                     {H_PING, (void (*)())h_ping},
                                     {H_PONG, (void (*)())h_pong}};
    gt_start("self_poll", &argc, &argv, table, 5, 64 * 1024);
    my_seg = gt_seg[gt_me].addr;
    gasnet_node_t me = gasnet_mynode();

    GT_PHASE("requests to self run before the call returns");
    flag[7] = 0;
    gasnet_AMRequestShort1(me, H_FLAG, 7);
    GT_CHECK(flag[7] == 1, "Short to self did not run at once");
    unsigned char payload[100];
    for (int i = 0; i < 100; i++)
        payload[i] = (unsigned char)(5 + i);
    gasnet_AMRequestMedium1(me, H_MEDIUM, payload, sizeof payload, 5);
    GT_CHECK(medium_ok == 1, "Medium to self: handler saw a wrong or misaligned payload");
    GT_CHECK(payload[0] == 5 && payload[99] == 104, "Medium to self: the source was written");
    unsigned char lsrc[200];
    for (int i = 0; i < 200; i++)
        lsrc[i] = (unsigned char)(9 ^ i);
    gasnet_AMRequestLong1(me, H_LONG, lsrc, sizeof lsrc, my_seg + 64, 9);
    GT_CHECK(long_ok == 1, "Long to self: payload not in the segment when the handler ran");
    long_ok = 0;
    gasnet_AMRequestLongAsync1(me, H_LONG, lsrc, sizeof lsrc, my_seg + 64, 9);
    GT_CHECK(long_ok == 1, "LongAsync to self did not run at once");
    pong = 0;
    gasnet_AMRequestShort1(me, H_PING, 40);
    GT_CHECK(pong == 40 + (int)me, "reply to self: pong=%d", pong);

    GT_PHASE("threads spinning on puts see a request to self");
    spin_until_self(0);
    GT_PHASE("threads spinning on gets see a request to self");
    spin_until_self(1);
    GT_CHECK(gasnet_barrier(1, 0) == GASNET_OK, "barrier");

    /* A peer's request reaches a thread that only calls blocking puts of
     * BIG bytes, and one that only calls try_syncnbi_all. */
    if (gt_n > 1) {
        GT_PHASE("a loop of large puts runs a peer's request");
        flag[4] = 0;
        GT_CHECK(gasnet_barrier(2, 0) == GASNET_OK, "barrier");
        struct spin s = {4, 0, 1, (gt_me + 1) % gt_n, 0};
        gasnet_AMRequestShort1((gasnet_node_t)((gt_me + gt_n - 1) % gt_n), H_FLAG, 4);
        spinner(&s);
        GT_PHASE("a loop of try_syncnbi_all runs a peer's request");
        flag[5] = 0;
        GT_CHECK(gasnet_barrier(3, 0) == GASNET_OK, "barrier");
        gasnet_AMRequestShort1((gasnet_node_t)((gt_me + 1) % gt_n), H_FLAG, 5);
        while (!flag[5])
            gasnet_try_syncnbi_all();
    }
    gt_finish();
    return 0;
}

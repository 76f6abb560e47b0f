/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_ring.c: a GASNet-1 program on weft. Every node sends a Medium
 * active message around the ring carrying its name; the handler stores the
 * text in the receiver's segment with a Long reply's worth of bookkeeping;
 * then each node puts a value into its right neighbour's segment, a
 * named barrier orders everything, and each node checks what arrived.
 *   oshrun -n 4 build/bin/gasnet_ring
 * Builds with oshcc, or through a GASNet makefile fragment:
 *   include <libdir>/weft/gasnet/include/weft-conduit/weft-seq.mak
 * (weft's GASNet root: docs/gasnet.md) */
#include <gasnet.h>

#include <stdio.h>
#include <string.h>

#define H_GREET 200
#define H_ACK 201

static volatile int acked, greeted;
static char greeting[64];

static void greet(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t hops)
{
    gasnet_node_t from;
    gasnet_AMGetMsgSource(t, &from);
    memcpy(greeting, buf, n < sizeof greeting ? n : sizeof greeting - 1);
    greeted = 1;
    gasnet_AMReplyShort1(t, H_ACK, hops + 1);
}

static void ack(gasnet_token_t t, gasnet_handlerarg_t hops)
{
    (void)t;
    acked = hops;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t handlers[] = {{H_GREET, (void (*)())greet}, {H_ACK, (void (*)())ack}};
    if (gasnet_init(&argc, &argv) != GASNET_OK ||
        gasnet_attach(handlers, 2, GASNET_PAGESIZE * 16, 0) != GASNET_OK)
        return 1;
    gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
    gasnet_node_t right = (me + 1) % n, left = (me + n - 1) % n;
    gasnet_seginfo_t seg[n];
    gasnet_getSegmentInfo(seg, (int)n);

    char text[64];
    snprintf(text, sizeof text, "hello from node %u", (unsigned)me);
    gasnet_AMRequestMedium1(right, H_GREET, text, strlen(text) + 1, 0);
    GASNET_BLOCKUNTIL(acked == 1 && greeted);

    long v = 1000 + (long)me;
    gasnet_put(right, seg[right].addr, &v, sizeof v);
    gasnet_barrier_notify(42, 0);
    int rc = gasnet_barrier_wait(42, 0);

    long got = *(long *)seg[me].addr;
    char want[64];
    snprintf(want, sizeof want, "hello from node %u", (unsigned)left);
    int ok = rc == GASNET_OK && got == 1000 + (long)left && strcmp(greeting, want) == 0;
    printf("node %u of %u: \"%s\", value %ld from node %u: %s\n", (unsigned)me, (unsigned)n,
           greeting, got, (unsigned)left, ok ? "ok" : "WRONG");
    fflush(stdout);
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(ok ? 0 : 1);
}

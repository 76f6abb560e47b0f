/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_bench.c: GASNet-1 between node 0 and node 1: AM Short round trip,
 * AM Medium 64 B round trip, AM Medium round trip and bandwidth from 512 B
 * to gasnet_AMMaxMedium (a window of Mediums, the last answered by a Short
 * reply), AM Long 4 MiB bandwidth (each Long acknowledged by a Short
 * reply), blocking 8 B put and get latency, and the 8 B gasnet_put_nbi
 * rate (a window of puts, then wait_syncnbi_puts). Plain GASNet-1, so it
 * builds against GASNet-EX as well (bench/run-benchmarks --compare-gasnet).
 *   oshrun -n 2 bench_gasnet_bench [--quick] [--iters N] [--min-size B] [--max-size B]
 * RESULT lines as every weft benchmark (bench_core.h). */
#include <gasnet.h>

#include "bench_core.h"

#define H_PING 200
#define H_PONG 201
#define LONG_SIZE ((size_t)4 << 20)
#define NBI_WINDOW 64
#define H_SINK 203
#define MEDIUM_WINDOW 32

static volatile long pongs;

static void ping(gasnet_token_t t, void *buf, size_t n)
{
    (void)buf;
    (void)n;
    gasnet_AMReplyShort0(t, H_PONG);
}
static void ping_short(gasnet_token_t t) { gasnet_AMReplyShort0(t, H_PONG); }
/* A Medium of a window: the window's last one is answered. */
static void sink(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t last)
{
    (void)buf;
    (void)n;
    if (last)
        gasnet_AMReplyShort0(t, H_PONG);
}
static void pong(gasnet_token_t t)
{
    (void)t;
    pongs++;
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse(argc, argv, 20000);
    gasnet_handlerentry_t h[] = {{H_PING, (void (*)())ping},
                                 {H_PONG, (void (*)())pong},
                                 {202, (void (*)())ping_short},
                                 {H_SINK, (void (*)())sink}};
    if (gasnet_init(&argc, &argv) != GASNET_OK ||
        gasnet_attach(h, 4, LONG_SIZE + GASNET_PAGESIZE, 0) != GASNET_OK)
        return 2;
    int me = (int)gasnet_mynode();
    if (gasnet_nodes() < 2) {
        fprintf(stderr, "gasnet_bench: needs 2 nodes (oshrun -n 2)\n");
        gasnet_exit(2);
    }
    gasnet_seginfo_t seg[2];
    gasnet_getSegmentInfo(seg, 2);
    static unsigned char payload[LONG_SIZE];
    if (me == 0) {
        const char *prov = getenv("FI_PROVIDER");
        printf("# gasnet_bench: GASNet-1, conduit %s, node 0 to node 1, provider %s%s, iters %ld%s\n",
               GASNET_CONDUIT_NAME_STR, prov ? prov : "(default)", getenv("WEFT_ONNODE") ? ", WEFT_ONNODE=0" : "",
               o.iters, o.quick ? ", quick" : "");
        fflush(stdout);
    }
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    long iters = o.quick ? 200 : o.iters;
    if (me == 0) {
        /* AM Short round trip. */
        long w = bench_warmup(iters);
        for (long i = 0; i < w; i++) {
            gasnet_AMRequestShort0(1, 202);
            GASNET_BLOCKUNTIL(pongs == i + 1);
        }
        pongs = 0;
        double t0 = bench_now();
        for (long i = 0; i < iters; i++) {
            gasnet_AMRequestShort0(1, 202);
            GASNET_BLOCKUNTIL(pongs == i + 1);
        }
        bench_result("gasnet_am_short_rtt", 0, (bench_now() - t0) / (double)iters * 1e6, "us");

        /* AM Medium 64 B round trip. */
        pongs = 0;
        t0 = bench_now();
        for (long i = 0; i < iters; i++) {
            gasnet_AMRequestMedium0(1, H_PING, payload, 64);
            GASNET_BLOCKUNTIL(pongs == i + 1);
        }
        bench_result("gasnet_am_medium_rtt", 64, (bench_now() - t0) / (double)iters * 1e6, "us");

        /* AM Medium round trip and bandwidth, 512 B to the largest
         * (within --min-size and --max-size). */
        for (size_t sz = 512; sz <= gasnet_AMMaxMedium() && sz <= o.max_size; sz *= 2) {
            if (sz < o.min_size)
                continue;
            long n = iters / 4 + 1;
            pongs = 0;
            t0 = bench_now();
            for (long i = 0; i < n; i++) {
                gasnet_AMRequestMedium0(1, H_PING, payload, sz);
                GASNET_BLOCKUNTIL(pongs == i + 1);
            }
            bench_result("gasnet_am_medium_rtt", sz, (bench_now() - t0) / (double)n * 1e6, "us");
            long windows = n / MEDIUM_WINDOW + 1;
            pongs = 0;
            t0 = bench_now();
            for (long w = 0; w < windows; w++) {
                for (int k = 0; k < MEDIUM_WINDOW; k++)
                    gasnet_AMRequestMedium1(1, H_SINK, payload, sz, k == MEDIUM_WINDOW - 1);
                GASNET_BLOCKUNTIL(pongs == w + 1);
            }
            double bytes = (double)sz * MEDIUM_WINDOW * (double)windows;
            bench_result("gasnet_am_medium_bw", sz, bytes / (bench_now() - t0) / 1e6, "MB/s");
        }

        /* AM Long 4 MiB, one at a time, acknowledged. */
        long longs = o.quick ? 4 : 100;
        pongs = 0; /* one untimed: the target's segment pages are touched first */
        gasnet_AMRequestLong0(1, H_PING, payload, LONG_SIZE, seg[1].addr);
        GASNET_BLOCKUNTIL(pongs == 1);
        pongs = 0;
        t0 = bench_now();
        for (long i = 0; i < longs; i++) {
            gasnet_AMRequestLong0(1, H_PING, payload, LONG_SIZE, seg[1].addr);
            GASNET_BLOCKUNTIL(pongs == i + 1);
        }
        double dt = bench_now() - t0;
        bench_result("gasnet_am_long_bw", LONG_SIZE, (double)LONG_SIZE * (double)longs / dt / 1e6,
                     "MB/s");

        /* Blocking 8 B put and get. */
        long v = 0;
        t0 = bench_now();
        for (long i = 0; i < iters; i++)
            gasnet_put(1, seg[1].addr, &v, 8);
        bench_result("gasnet_put_lat", 8, (bench_now() - t0) / (double)iters * 1e6, "us");
        t0 = bench_now();
        for (long i = 0; i < iters; i++)
            gasnet_get(&v, 1, seg[1].addr, 8);
        bench_result("gasnet_get_lat", 8, (bench_now() - t0) / (double)iters * 1e6, "us");

        /* 8 B put_nbi rate. */
        long nbi = iters * 8;
        t0 = bench_now();
        for (long i = 0; i < nbi; i++) {
            v = i;
            gasnet_put_nbi(1, (char *)seg[1].addr + 8 * (i % NBI_WINDOW), &v, 8);
            if (i % NBI_WINDOW == NBI_WINDOW - 1)
                gasnet_wait_syncnbi_puts();
        }
        gasnet_wait_syncnbi_puts();
        bench_result("gasnet_put_nbi_rate", 8, (double)nbi / (bench_now() - t0) / 1e6, "Mops/s");
        fflush(stdout);
    }
    /* Node 1 serves the requests while it waits here. */
    gasnet_barrier(1, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
}

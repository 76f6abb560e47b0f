/* SPDX-License-Identifier: BSD-3-Clause */
/* amo_lat: latency of 64-bit atomics from PE 0 to PE 1, one at a time:
 * fetch-add, compare-and-swap, swap, fetch, and the non-fetching add
 * followed by shmem_quiet (add_quiet_lat: the add measured to remote
 * completion). The non-fetching add is also measured as a rate (add_rate:
 * windows of 256 adds, then one quiet; millions of adds per second), which
 * is how a program that needs no answer uses it. */
#include "bench.h"

static long target; /* symmetric: the word on PE 1 */

int main(int argc, char **argv)
{
    struct bench_opts o = bench_start("amo_lat", "64-bit atomics PE 0 -> PE 1, latency per call",
                                      argc, argv, 20000, 2);
    int me = shmem_my_pe();

    long iters = o.iters, warm = bench_warmup(iters);
    int status = 0;
    static const char *names[] = {"fadd_lat", "cswap_lat", "swap_lat", "fetch_lat",
                                  "add_quiet_lat"};
    for (int op = 0; op < 5; op++) {
        target = 0;
        shmem_barrier_all();
        if (me == 0) {
            double t0 = 0;
            long acc = 0;
            struct bench_win w = bench_win_open(&o, iters);
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                if (i >= warm)
                    bench_win_mark(&w, i - warm);
                switch (op) {
                case 0: acc += shmem_long_atomic_fetch_add(&target, 1, 1); break;
                case 1: acc += shmem_long_atomic_compare_swap(&target, i, i + 1, 1); break;
                case 2: acc += shmem_long_atomic_swap(&target, i + 1, 1); break;
                case 3: acc += shmem_long_atomic_fetch(&target, 1); break;
                default:
                    shmem_long_atomic_add(&target, 1, 1);
                    shmem_quiet();
                    break;
                }
            }
            double t1 = bench_now(), t = t1 - t0;
            long n = warm + iters;
            /* fetch-add, cswap and swap return 0..n-1 in turn: sum n(n-1)/2. */
            if ((op == 0 || op == 1 || op == 2) && acc != n * (n - 1) / 2) {
                fprintf(stderr, "amo_lat: %s returned wrong values\n", names[op]);
                status = 1;
            }
            long final = shmem_long_atomic_fetch(&target, 1);
            long expect = op == 3 ? 0 : n;
            if (final != expect) {
                fprintf(stderr, "amo_lat: %s left %ld, expected %ld\n", names[op], final, expect);
                status = 1;
            }
            bench_result(names[op], sizeof(long), 1e6 * t / (double)iters, "us");
            bench_win_report(&w, names[op], sizeof(long), iters, t1);
        }
        shmem_barrier_all();
    }

    target = 0;
    shmem_barrier_all();
    if (me == 0) {
        long windows = o.iters / 10 > 5 ? o.iters / 10 : 5, warm_windows = bench_warmup(windows);
        double t0 = 0;
        for (long i = 0; i < warm_windows + windows; i++) {
            if (i == warm_windows)
                t0 = bench_now();
            for (int w = 0; w < BENCH_RATE_WINDOW; w++)
                shmem_long_atomic_add(&target, 1, 1);
            shmem_quiet();
        }
        double t = bench_now() - t0;
        long expect = (warm_windows + windows) * BENCH_RATE_WINDOW;
        long final = shmem_long_atomic_fetch(&target, 1);
        if (final != expect) {
            fprintf(stderr, "amo_lat: add_rate left %ld, expected %ld\n", final, expect);
            status = 1;
        }
        bench_result("add_rate", sizeof(long), (double)BENCH_RATE_WINDOW * (double)windows / t / 1e6,
                     "Mops/s");
    }
    shmem_barrier_all();
    shmem_finalize();
    return status;
}

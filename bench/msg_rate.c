/* SPDX-License-Identifier: BSD-3-Clause */
/* msg_rate: 8-byte put message rate from PE 0 to PE 1, in millions of
 * messages per second: shmem_long_p and shmem_putmem_nbi of 8 bytes, in
 * windows of 256 followed by shmem_quiet. */
#include "bench.h"

int main(int argc, char **argv)
{
    struct bench_opts o = bench_start("msg_rate", "8-byte puts PE 0 -> PE 1, windows of 256 + quiet, Mmsg/s", argc, argv, 2000, 2);
    int me = shmem_my_pe();

    long *dst = shmem_calloc(BENCH_RATE_WINDOW, sizeof(long));
    long iters = o.iters, warm = bench_warmup(iters);
    int status = 0;
    for (int kind = 0; kind < 2; kind++) {
        shmem_barrier_all();
        if (me == 0) {
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                for (long w = 0; w < BENCH_RATE_WINDOW; w++) {
                    long v = i * BENCH_RATE_WINDOW + w;
                    if (kind == 0)
                        shmem_long_p(&dst[w], v, 1);
                    else
                        shmem_putmem_nbi(&dst[w], &v, sizeof v, 1);
                }
                shmem_quiet();
            }
            double t = bench_now() - t0;
            bench_result(kind == 0 ? "msg_rate_p" : "msg_rate_put_nbi", sizeof(long),
                         (double)BENCH_RATE_WINDOW * (double)iters / t / 1e6, "Mmsg/s");
        }
        shmem_barrier_all();
        if (me == 1) {
            long last = warm + iters - 1;
            for (long w = 0; w < BENCH_RATE_WINDOW; w++)
                if (dst[w] != last * BENCH_RATE_WINDOW + w) {
                    fprintf(stderr, "msg_rate: PE 1: dst[%ld] = %ld, expected %ld\n", w,
                            dst[w], last * BENCH_RATE_WINDOW + w);
                    status = 1;
                    break;
                }
        }
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_finalize();
    return status;
}

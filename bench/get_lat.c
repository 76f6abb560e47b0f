/* SPDX-License-Identifier: BSD-3-Clause */
/* get_lat: blocking get latency. PE 0 reads `size` bytes from PE 1 with
 * shmem_getmem, one at a time; PE 1 (and any other PE) waits in a barrier. */
#include "bench.h"

int main(int argc, char **argv)
{
    struct bench_opts o = bench_start("get_lat", "shmem_getmem from PE 1, latency per call", argc, argv, 10000, 2);
    int me = shmem_my_pe();
    unsigned char *buf, *dst;
    bench_alloc("get_lat", o.max_size, &buf, &dst);
    int status = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        long iters = bench_iters(&o, size), warm = bench_warmup(iters);
        bench_fill(buf, size, (unsigned)me);
        memset(dst, 0, size);
        shmem_barrier_all();
        if (me == 0) {
            double t0 = 0;
            struct bench_win w = bench_win_open(&o, iters);
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                if (i >= warm)
                    bench_win_mark(&w, i - warm);
                shmem_getmem(dst, buf, size, 1);
            }
            double t1 = bench_now(), t = t1 - t0;
            if (bench_check(dst, size, 1) != 0) {
                fprintf(stderr, "get_lat: wrong data at size %zu\n", size);
                status = 1;
            }
            bench_result("get_lat", size, 1e6 * t / (double)iters, "us");
            bench_win_report(&w, "get_lat", size, iters, t1);
        }
        shmem_barrier_all();
        if (size > o.max_size / 2)
            break;
    }
    shmem_free(buf);
    free(dst);
    shmem_finalize();
    return status;
}

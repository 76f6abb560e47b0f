/* SPDX-License-Identifier: BSD-3-Clause */
/* bcast_lat: shmem_broadcastmem latency on SHMEM_TEAM_WORLD, root PE 0,
 * 8 B .. 1 MiB by default. Every PE times back-to-back broadcasts; the
 * result is the slowest PE's mean time per call (microseconds). After each
 * size the root broadcasts a fresh pattern and every PE (root included, as
 * OpenSHMEM 1.5 specifies) checks it. Only standard OpenSHMEM 1.5 calls, so
 * the source also builds against other implementations. */
#include "bench.h"

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse(argc, argv, 1000);
    if (!o.quick && !bench_arg_given(argc, argv, "--max-size"))
        o.max_size = (size_t)1 << 20;
    shmem_init();
    int me = shmem_my_pe();
    bench_header("bcast_lat", "shmem_broadcastmem, TEAM_WORLD, root 0, slowest PE, us per call", &o);

    unsigned char *src = shmem_malloc(o.max_size);
    unsigned char *dst = shmem_malloc(o.max_size);
    if (!src || !dst) {
        fprintf(stderr, "bcast_lat: cannot allocate 2 x %zu bytes\n", o.max_size);
        shmem_global_exit(2);
    }
    int status = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        long iters = bench_iters(&o, size), warm = bench_warmup(iters);
        memset(src, me, size);
        shmem_barrier_all();
        double t0 = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = bench_now();
            shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0);
        }
        bench_report_slowest("bcast_lat", size, t0, iters);

        /* Check one broadcast of a pattern only the root holds. */
        bench_fill(src, size, me == 0 ? 1u : 2u);
        memset(dst, 0, size);
        shmem_barrier_all();
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0);
        if (bench_check(dst, size, 1u) != 0) {
            fprintf(stderr, "bcast_lat: PE %d: wrong data at size %zu\n", me, size);
            status = 1;
        }
        if (size > o.max_size / 2)
            break;
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return status;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* alltoall_lat: shmem_alltoallmem latency on SHMEM_TEAM_WORLD, 8 B .. 64 KiB
 * per PE pair by default (the size is the block each PE sends to each PE).
 * Every PE times back-to-back calls; the result is the slowest PE's mean
 * time per call (microseconds). Each size is checked once. Only standard
 * OpenSHMEM 1.5 calls, so the source also builds against other
 * implementations. */
#include "bench.h"

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse(argc, argv, 1000);
    if (!bench_arg_given(argc, argv, "--max-size"))
        o.max_size = (size_t)64 << 10;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    bench_header("alltoall_lat", "shmem_alltoallmem, TEAM_WORLD, bytes per PE pair, slowest PE, us",
                 &o);

    unsigned char *src = shmem_malloc(o.max_size * (size_t)npes);
    unsigned char *dst = shmem_malloc(o.max_size * (size_t)npes);
    if (!src || !dst) {
        fprintf(stderr, "alltoall_lat: cannot allocate 2 x %zu bytes\n",
                o.max_size * (size_t)npes);
        shmem_global_exit(2);
    }
    int status = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        /* Block j of PE i's source goes to PE j, where it lands in block i. */
        for (int j = 0; j < npes; j++)
            bench_fill(src + (size_t)j * size, size, (unsigned)(me * npes + j));
        long iters = bench_iters(&o, size * (size_t)npes), warm = bench_warmup(iters);
        shmem_barrier_all();
        double t0 = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = bench_now();
            shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, size);
        }
        bench_report_slowest("alltoall_lat", size, t0, iters);

        memset(dst, 0, size * (size_t)npes);
        shmem_barrier_all();
        shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, size);
        for (int i = 0; i < npes; i++) {
            if (bench_check(dst + (size_t)i * size, size, (unsigned)(i * npes + me)) != 0) {
                fprintf(stderr, "alltoall_lat: PE %d: wrong block from PE %d at size %zu\n", me,
                        i, size);
                status = 1;
            }
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

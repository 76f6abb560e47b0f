/* SPDX-License-Identifier: BSD-3-Clause */
/* fcollect_lat: shmem_fcollectmem and shmem_collectmem latency on
 * SHMEM_TEAM_WORLD, 8 B .. 64 KiB per PE by default (the size is each PE's
 * block; collect's blocks are all that size too). Every PE times
 * back-to-back calls; the result is the slowest PE's mean time per call
 * (microseconds). Each size is checked once. Only standard OpenSHMEM 1.5
 * calls, so the source also builds against other implementations. */
#include "bench.h"

static int check_blocks(const unsigned char *dst, size_t size, int npes, int me,
                        const char *name)
{
    for (int i = 0; i < npes; i++) {
        if (bench_check(dst + (size_t)i * size, size, (unsigned)i) != 0) {
            fprintf(stderr, "fcollect_lat: PE %d: %s: wrong block of PE %d at size %zu\n", me,
                    name, i, size);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse(argc, argv, 1000);
    if (!bench_arg_given(argc, argv, "--max-size"))
        o.max_size = (size_t)64 << 10;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    bench_header("fcollect_lat", "shmem_fcollectmem and shmem_collectmem, TEAM_WORLD, bytes per "
                 "PE, slowest PE, us", &o);

    unsigned char *src = shmem_malloc(o.max_size);
    unsigned char *dst = shmem_malloc(o.max_size * (size_t)npes);
    if (!src || !dst) {
        fprintf(stderr, "fcollect_lat: cannot allocate %zu bytes\n", o.max_size * (size_t)npes);
        shmem_global_exit(2);
    }
    int status = 0;
    for (int collect = 0; collect < 2; collect++) {
        const char *name = collect ? "collect_lat" : "fcollect_lat";
        for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
            bench_fill(src, size, (unsigned)me);
            long iters = bench_iters(&o, size * (size_t)npes), warm = bench_warmup(iters);
            shmem_barrier_all();
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                if (collect)
                    shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, size);
                else
                    shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, size);
            }
            bench_report_slowest(name, size, t0, iters);

            memset(dst, 0, size * (size_t)npes);
            shmem_barrier_all();
            if (collect)
                shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, size);
            else
                shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, size);
            status |= check_blocks(dst, size, npes, me, name);
            if (size > o.max_size / 2)
                break;
        }
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return status;
}

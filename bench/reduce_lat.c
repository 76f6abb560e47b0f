/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce_lat: shmem_long_sum_reduce and shmem_double_sum_reduce latency on
 * SHMEM_TEAM_WORLD, 1 .. 128K elements by default (sizes are given and
 * reported in bytes: 8 B .. 1 MiB; both types are 8 bytes). Every PE times
 * back-to-back reductions; the result is the slowest PE's mean time per call
 * (microseconds). Each size is checked once. Only standard OpenSHMEM 1.5
 * calls, so the source also builds against other implementations. */
#include "bench.h"

/* PE p contributes p + j at element j: the sum is npes*j + npes(npes-1)/2,
 * exact in a double for every size here. */
static void fill(void *src, int is_double, size_t n, int me)
{
    for (size_t j = 0; j < n; j++) {
        if (is_double)
            ((double *)src)[j] = (double)me + (double)j;
        else
            ((long *)src)[j] = (long)me + (long)j;
    }
}

static size_t check(const void *dst, int is_double, size_t n, int npes)
{
    size_t bad = 0;
    for (size_t j = 0; j < n; j++) {
        long want = (long)npes * (long)j + (long)npes * (npes - 1) / 2;
        if (is_double)
            bad += ((const double *)dst)[j] != (double)want;
        else
            bad += ((const long *)dst)[j] != want;
    }
    return bad;
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse(argc, argv, 1000);
    if (!o.quick && !bench_arg_given(argc, argv, "--max-size"))
        o.max_size = (size_t)1 << 20;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    bench_header("reduce_lat", "shmem_{long,double}_sum_reduce, TEAM_WORLD, slowest PE, us per call",
                 &o);

    size_t maxn = o.max_size / 8 ? o.max_size / 8 : 1;
    void *src = shmem_malloc(maxn * 8);
    void *dst = shmem_malloc(maxn * 8);
    if (!src || !dst) {
        fprintf(stderr, "reduce_lat: cannot allocate 2 x %zu bytes\n", maxn * 8);
        shmem_global_exit(2);
    }
    int status = 0;
    for (int is_double = 0; is_double < 2; is_double++) {
        const char *name = is_double ? "reduce_double_sum" : "reduce_long_sum";
        for (size_t size = o.min_size < 8 ? 8 : o.min_size; size <= o.max_size; size *= 2) {
            size_t n = size / 8;
            long iters = bench_iters(&o, size), warm = bench_warmup(iters);
            fill(src, is_double, n, me);
            shmem_barrier_all();
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                if (is_double)
                    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
                else
                    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
            }
            bench_report_slowest(name, size, t0, iters);

            memset(dst, 0, size);
            shmem_barrier_all();
            if (is_double)
                shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
            else
                shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
            if (check(dst, is_double, n, npes) != 0) {
                fprintf(stderr, "reduce_lat: PE %d: wrong %s result at %zu elements\n", me,
                        name, n);
                status = 1;
            }
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

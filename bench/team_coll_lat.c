/* SPDX-License-Identifier: BSD-3-Clause */
/* team_coll_lat: the team collectives over SHMEM_TEAM_WORLD that the
 * node-leader hierarchy changes, slowest PE's microseconds per call:
 * shmem_barrier_all, shmem_team_sync, shmem_broadcastmem of 8 B and 64 KiB, shmem_long_sum_reduce
 * of 1 and 1024 elements, shmem_fcollectmem of 8 B per PE. Run it with
 * WEFT_COLL_HIER=1 and =0 alternately (bench/hier-compare). Checks one
 * result of each. */
#include "bench.h"

#define BIG (64 * 1024)

int main(int argc, char **argv)
{
    struct bench_opts o = bench_start("team_coll_lat", "team collectives over the world, latency",
                                      argc, argv, 2000, 1);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    unsigned char *src, *dst, *priv;
    bench_alloc("team_coll_lat", (size_t)BIG * 2 + (size_t)npes * 8, &src, &priv);
    dst = src + BIG;
    long *lsrc = shmem_malloc(1024 * sizeof(long)), *ldst = shmem_malloc(1024 * sizeof(long));
    if (!lsrc || !ldst)
        shmem_global_exit(2);
    for (int i = 0; i < 1024; i++)
        lsrc[i] = me + i;
    int status = 0;
    for (int kind = 0; kind < 7; kind++) {
        static const char *const names[7] = {"team_sync_lat", "bcast_lat", "bcast_lat",
                                             "sum_reduce_lat", "sum_reduce_lat",
                                             "fcollect_lat", "barrier_all_lat"};
        static const size_t sizes[7] = {0, 8, BIG, 8, 8192, 8, 0};
        size_t size = sizes[kind];
        long iters = bench_iters(&o, size ? size : 8), warm = bench_warmup(iters);
        shmem_barrier_all();
        double t0 = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = bench_now();
            switch (kind) {
            case 0:
                shmem_team_sync(SHMEM_TEAM_WORLD);
                break;
            case 1:
            case 2:
                shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0);
                break;
            case 3:
            case 4:
                shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, size / 8);
                break;
            case 5:
                shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src + (size_t)me * 8, 8);
                break;
            default:
                shmem_barrier_all();
                break;
            }
        }
        bench_report_slowest(names[kind], size, t0, iters);
    }
    /* Checks: the last reduction and fcollect. */
    long want = (long)npes * (npes - 1) / 2;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, 1024);
    for (int i = 0; i < 1024; i++)
        if (ldst[i] != want + (long)npes * i)
            status = 1;
    if (status)
        fprintf(stderr, "team_coll_lat: PE %d: wrong sum\n", me);
    shmem_barrier_all();
    shmem_free(lsrc);
    shmem_free(ldst);
    shmem_free(src);
    free(priv);
    shmem_finalize();
    return status;
}

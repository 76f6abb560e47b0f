/* SPDX-License-Identifier: BSD-3-Clause */
/* barrier_lat: shmem_barrier_all latency over all PEs, microseconds per
 * barrier, and the active-set shmem_barrier over all PEs with a pSync
 * (barrier_aset_lat: what OSU's osu_oshm_barrier calls). Also checks that
 * a barrier really separates a put from the reads after it. */
#include "bench.h"

static long seen; /* symmetric */
static long psync[SHMEM_BARRIER_SYNC_SIZE]; /* symmetric */

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse(argc, argv, 10000);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    bench_header("barrier_lat", "shmem_barrier_all, latency per call", &o);

    long iters = o.iters, warm = bench_warmup(iters);
    shmem_barrier_all();
    double t0 = 0;
    for (long i = 0; i < warm + iters; i++) {
        if (i == warm)
            t0 = bench_now();
        shmem_barrier_all();
    }
    double t = bench_now() - t0;
    if (me == 0)
        bench_result("barrier_lat", 0, 1e6 * t / (double)iters, "us");

    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (long i = 0; i < warm + iters; i++) {
        if (i == warm)
            t0 = bench_now();
        shmem_barrier(0, 0, npes, psync);
    }
    t = bench_now() - t0;
    if (me == 0)
        bench_result("barrier_aset_lat", 0, 1e6 * t / (double)iters, "us");

    /* Check: a put before a barrier is visible after it. */
    int status = 0;
    for (long r = 1; r <= 20; r++) {
        shmem_long_p(&seen, r, (me + 1) % npes);
        shmem_barrier_all();
        if (seen != r) {
            fprintf(stderr, "barrier_lat: PE %d saw %ld after barrier %ld\n", me, seen, r);
            status = 1;
        }
        shmem_barrier_all();
    }
    shmem_finalize();
    return status;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* malloc_lat: the cost of symmetric allocation, microseconds per call.
 *   malloc_free_lat  a shmem_malloc(64) + shmem_free pair, in a heap that
 *                    has room (what every program pays);
 *   malloc_grow      shmem_malloc of 64 MiB blocks, one after the other,
 *                    each past the end of what the heap held before (a
 *                    heap that grows: SHMEM_SYMMETRIC_SIZE unset; with it
 *                    set, 2G, nothing grows);
 *   malloc_regrow    the same blocks again after they were freed: the same
 *                    calls and offsets with nothing left to grow.
 * The last two differ only by the growing, measured in one run. Each block
 * is written at both ends on the right neighbour, and checked. */
#include "bench.h"

#define BLOCK ((size_t)64 << 20)

static double allocate_blocks(unsigned char **blocks, int n, int me, int npes, int *bad)
{
    double t = 0;
    for (int i = 0; i < n; i++) {
        double t0 = bench_now();
        blocks[i] = shmem_malloc(BLOCK);
        t += bench_now() - t0;
        if (!blocks[i]) {
            if (me == 0)
                fprintf(stderr, "malloc_lat: shmem_malloc(64 MiB) number %d returned NULL\n", i);
            shmem_global_exit(2);
        }
        unsigned char mark = (unsigned char)(i + me);
        shmem_putmem(blocks[i], &mark, 1, (me + 1) % npes);
        shmem_putmem(blocks[i] + BLOCK - 1, &mark, 1, (me + 1) % npes);
    }
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    for (int i = 0; i < n; i++)
        *bad |= blocks[i][0] != (unsigned char)(i + left) ||
                blocks[i][BLOCK - 1] != (unsigned char)(i + left);
    for (int i = n - 1; i >= 0; i--)
        shmem_free(blocks[i]);
    return 1e6 * t / n;
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_start("malloc_lat", "symmetric allocation, latency per call",
                                      argc, argv, 2000, 1);
    int me = shmem_my_pe(), npes = shmem_n_pes();

    long iters = o.iters, warm = bench_warmup(iters);
    double t0 = 0;
    for (long i = 0; i < warm + iters; i++) {
        if (i == warm)
            t0 = bench_now();
        shmem_free(shmem_malloc(64));
    }
    double t = bench_now() - t0;
    if (me == 0)
        bench_result("malloc_free_lat", 64, 1e6 * t / (double)iters, "us");

    /* Past the heap's first 256 MiB (a 250 MiB block fills it): 16 blocks
     * (1 GiB), 4 when quick. A fixed heap needs SHMEM_SYMMETRIC_SIZE=2G. */
    void *filler = shmem_malloc((size_t)250 << 20);
    if (!filler)
        shmem_global_exit(2);
    int n = o.quick ? 4 : 16, bad = 0;
    unsigned char *blocks[16];
    double grow = allocate_blocks(blocks, n, me, npes, &bad);
    double regrow = allocate_blocks(blocks, n, me, npes, &bad);
    if (me == 0) {
        bench_result("malloc_grow", BLOCK, grow, "us");
        bench_result("malloc_regrow", BLOCK, regrow, "us");
    }
    shmem_free(filler);
    if (bad)
        fprintf(stderr, "malloc_lat: PE %d: a block's ends hold the wrong bytes\n", me);
    shmem_finalize();
    return bad;
}

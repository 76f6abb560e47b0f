/* get_bw: one-way get bandwidth. PE 0 issues a window of shmem_getmem_nbi
 * of `size` bytes from PE 1, then shmem_quiet; repeated. MB/s = 10^6
 * bytes/s. PE 0 checks the data of every size. */
#include "bench.h"

int main(int argc, char **argv)
{
    struct bench_opts o = bench_start("get_bw", "shmem_getmem_nbi x 64 + quiet, PE 1 -> PE 0, MB/s",
                                      argc, argv, 2000, 2);
    int me = shmem_my_pe();
    unsigned char *buf, *dst;
    bench_alloc("get_bw", o.max_size, &buf, &dst);
    int status = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        long iters = bench_bw_windows(&o, size), warm = bench_warmup(iters) / 2 + 1;
        bench_fill(buf, size, (unsigned)size);
        memset(dst, 0, size);
        shmem_barrier_all();
        if (me == 0) {
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                /* Every get of a window lands in the same place, as every
                 * put of put_bw does: the figure is the transport's, not the
                 * cache footprint's. */
                for (int w = 0; w < BENCH_BW_WINDOW; w++)
                    shmem_getmem_nbi(dst, buf, size, 1);
                shmem_quiet();
            }
            double t = bench_now() - t0;
            bench_result("get_bw", size, (double)size * BENCH_BW_WINDOW * (double)iters / t / 1e6,
                         "MB/s");
            if (bench_check(dst, size, (unsigned)size) != 0) {
                fprintf(stderr, "get_bw: PE 0: wrong data at size %zu\n", size);
                status = 1;
            }
        }
        shmem_barrier_all();
        if (size > o.max_size / 2)
            break;
    }
    shmem_barrier_all();
    shmem_free(buf);
    free(dst);
    shmem_finalize();
    return status;
}

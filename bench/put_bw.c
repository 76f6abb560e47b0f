/* put_bw: one-way put bandwidth. PE 0 issues a window of shmem_putmem_nbi
 * of `size` bytes to PE 1, then shmem_quiet; repeated. MB/s = 10^6 bytes/s.
 * PE 1 checks the data of every size. */
#include "bench.h"

int main(int argc, char **argv)
{
    struct bench_opts o = bench_start("put_bw", "shmem_putmem_nbi x 64 + quiet, PE 0 -> PE 1, MB/s",
                                      argc, argv, 2000, 2);
    int me = shmem_my_pe();
    unsigned char *buf, *src;
    bench_alloc("put_bw", o.max_size, &buf, &src);
    int status = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        long iters = bench_bw_windows(&o, size), warm = bench_warmup(iters) / 2 + 1;
        bench_fill(src, size, (unsigned)size);
        shmem_barrier_all();
        if (me == 0) {
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                for (int w = 0; w < BENCH_BW_WINDOW; w++)
                    shmem_putmem_nbi(buf, src, size, 1);
                shmem_quiet();
            }
            double t = bench_now() - t0;
            bench_result("put_bw", size, (double)size * BENCH_BW_WINDOW * (double)iters / t / 1e6,
                         "MB/s");
        }
        shmem_barrier_all();
        if (me == 1 && bench_check(buf, size, (unsigned)size) != 0) {
            fprintf(stderr, "put_bw: PE 1: wrong data at size %zu\n", size);
            status = 1;
        }
        if (size > o.max_size / 2)
            break;
    }
    shmem_barrier_all();
    shmem_free(buf);
    free(src);
    shmem_finalize();
    return status;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* put_lat: put latency, ping-pong on a flag. PE 0 puts `size` bytes into PE
 * 1, then (after shmem_fence) raises PE 1's flag with shmem_uint64_p; PE 1
 * waits for the flag and answers the same way. Latency = round trip / 2.
 * PEs other than 0 and 1 only wait in the barriers.
 * --static: the data goes to a static (.bss) array instead of the heap, up
 * to 1 MiB, reported as put_lat_static (static variables are symmetric too,
 * and this shows how they compare with heap objects on each path).
 * --signal: one shmem_putmem_signal (SET of the flag) instead of put, fence
 * and p, and shmem_signal_wait_until; reported as put_signal_lat.
 * --quiet: no ping-pong: PE 0 alone times shmem_putmem + shmem_quiet, one
 * pair at a time (the put to remote completion, as a program that needs the
 * data there before it goes on); reported as put_quiet_lat.
 * --windows (bench_core.h) adds the median window of PE 0's loop. */
#include "bench.h"

static uint64_t *flag; /* symmetric (heap, so --static changes only the
                        * data's path), raised to the round number */
#define STATIC_MAX ((size_t)1 << 20)
static unsigned char static_target[STATIC_MAX];

int main(int argc, char **argv)
{
    int to_static = 0, with_signal = 0, with_quiet = 0;
    for (int i = 1; i < argc;) {
        int *opt = !strcmp(argv[i], "--static")   ? &to_static
                   : !strcmp(argv[i], "--signal") ? &with_signal
                   : !strcmp(argv[i], "--quiet")  ? &with_quiet
                                                  : NULL;
        if (!opt) {
            i++;
            continue;
        }
        *opt = 1;
        memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof *argv);
        argc--;
    }
    const char *name = with_quiet    ? (to_static ? "put_quiet_lat_static" : "put_quiet_lat")
                       : with_signal ? (to_static ? "put_signal_lat_static" : "put_signal_lat")
                       : to_static   ? "put_lat_static"
                                     : "put_lat";
    struct bench_opts o = bench_start(name,
                                      with_quiet    ? "put + quiet, PE 0 to PE 1, latency per pair"
                                      : with_signal ? "put-with-signal ping-pong, one-way latency"
                                                    : "put + fence + flag ping-pong, one-way latency",
                                      argc, argv, 10000, 2);
    if (to_static && o.max_size > STATIC_MAX)
        o.max_size = STATIC_MAX;
    int me = shmem_my_pe();
    unsigned char *heap_buf, *src;
    bench_alloc(name, o.max_size, &heap_buf, &src);
    unsigned char *buf = to_static ? static_target : heap_buf;
    flag = shmem_calloc(1, sizeof *flag);
    if (!flag) {
        fprintf(stderr, "put_lat: shmem_calloc of the flag failed\n");
        shmem_global_exit(1);
    }
    int status = 0;
    long round = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        long iters = bench_iters(&o, size), warm = bench_warmup(iters);
        bench_fill(src, size, (unsigned)me);
        shmem_barrier_all();
        double t0 = 0;
        if (with_quiet) {
            if (me == 0) {
                struct bench_win w = bench_win_open(&o, iters);
                for (long i = 0; i < warm + iters; i++) {
                    if (i == warm)
                        t0 = bench_now();
                    if (i >= warm)
                        bench_win_mark(&w, i - warm);
                    shmem_putmem(buf, src, size, 1);
                    shmem_quiet();
                }
                double t1 = bench_now();
                bench_result(name, size, 1e6 * (t1 - t0) / (double)iters, "us");
                bench_win_report(&w, name, size, iters, t1);
            }
            shmem_barrier_all();
            if (me == 1 && bench_check(buf, size, 0) != 0) {
                fprintf(stderr, "put_lat: PE 1: wrong data at size %zu\n", size);
                status = 1;
            }
            if (size > o.max_size / 2)
                break;
            continue;
        }
        struct bench_win w = {NULL, 0, 0}; /* PE 0 reports */
        if (me == 0)
            w = bench_win_open(&o, iters);
        if (me < 2) {
            int peer = 1 - me;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                if (i >= warm)
                    bench_win_mark(&w, i - warm);
                round++;
                if (me == 1)
                    shmem_signal_wait_until(flag, SHMEM_CMP_GE, (uint64_t)round);
                if (with_signal) {
                    shmem_putmem_signal(buf, src, size, flag, (uint64_t)round, SHMEM_SIGNAL_SET,
                                        peer);
                } else {
                    shmem_putmem(buf, src, size, peer);
                    shmem_fence();
                    shmem_uint64_p(flag, (uint64_t)round, peer);
                }
                if (me == 0)
                    shmem_signal_wait_until(flag, SHMEM_CMP_GE, (uint64_t)round);
            }
        }
        double t = bench_now() - t0;
        if (me < 2 && bench_check(buf, size, (unsigned)(1 - me)) != 0) {
            fprintf(stderr, "put_lat: PE %d: wrong data at size %zu\n", me, size);
            status = 1;
        }
        if (me == 0) {
            bench_result(name, size, 1e6 * t / (2.0 * (double)iters), "us");
            bench_win_report_scaled(&w, name, size, iters, t0 + t, 0.5);
        }
        if (size > o.max_size / 2)
            break;
    }
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(heap_buf);
    free(src);
    shmem_finalize();
    return status;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* bench.h: what every weft micro-benchmark shares on top of bench_core.h:
 * start-up, the header line, symmetric allocation and slowest-PE reporting.
 * Options and the RESULT output format are described in bench_core.h. */
#ifndef WEFT_BENCH_H
#define WEFT_BENCH_H

#include <shmem.h>

#include "bench_core.h"

/* The header every benchmark prints first (PE 0). */
static inline void bench_header(const char *name, const char *what, const struct bench_opts *o)
{
    if (shmem_my_pe() != 0)
        return;
    char lib[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(lib);
    const char *prov = getenv("FI_PROVIDER");
    if (!prov || !*prov)
        prov = getenv("WEFT_PROVIDER");
    /* WEFT_ONNODE=0 turns the direct on-node path off (run-benchmarks' shm
     * and tcp paths); echo it so a saved output says which path it measured. */
    const char *onnode = getenv("WEFT_ONNODE");
    printf("# %s: %s\n# %s, %d PEs, provider %s%s%s, iters %ld%s\n", name, what, lib,
           shmem_n_pes(), prov && *prov ? prov : "(default)", onnode ? ", WEFT_ONNODE=" : "",
           onnode ? onnode : "", o->iters, o->quick ? ", quick" : "");
    fflush(stdout);
}

static inline void bench_need_pes(const char *name, int n)
{
    if (shmem_n_pes() < n) {
        if (shmem_my_pe() == 0)
            fprintf(stderr, "%s: needs at least %d PEs (oshrun -n %d)\n", name, n, n);
        shmem_finalize();
        exit(2);
    }
}

/* Parse options, start OpenSHMEM, require min_pes PEs, print the header. */
static inline struct bench_opts bench_start(const char *name, const char *what, int argc,
                                            char **argv, long def_iters, int min_pes)
{
    struct bench_opts o = bench_parse(argc, argv, def_iters);
    shmem_init();
    bench_need_pes(name, min_pes);
    bench_header(name, what, &o);
    return o;
}

/* n bytes of symmetric and n of private memory, or end the job. */
static inline void bench_alloc(const char *name, size_t n, unsigned char **sym,
                               unsigned char **priv)
{
    *sym = shmem_malloc(n);
    *priv = malloc(n);
    if (!*sym || !*priv) {
        fprintf(stderr, "%s: cannot allocate %zu bytes\n", name, n);
        shmem_global_exit(2);
    }
}

/* Collectives: each PE's microseconds per call since t0 over iters calls,
 * and PE 0 reports the slowest PE's (symmetric statics for the reduction). */
static double bench_t_mine, bench_t_max;
static inline void bench_report_slowest(const char *name, size_t size, double t0, long iters)
{
    bench_t_mine = 1e6 * (bench_now() - t0) / (double)iters;
    shmem_barrier_all();
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &bench_t_max, &bench_t_mine, 1);
    if (shmem_my_pe() == 0)
        bench_result(name, size, bench_t_max, "us");
}

/* put_bw and get_bw: PE 0 issues windows of BENCH_BW_WINDOW non-blocking
 * transfers of `size` bytes to (put) or from (get) PE 1, each window ended
 * by shmem_quiet; every transfer of a window lands in the same place, so
 * the figure is the transport's, not the cache footprint's. The receiving
 * PE checks the data of every size. Returns the exit status. */
static inline int bench_bw(const char *name, int get, int argc, char **argv)
{
    struct bench_opts o = bench_start(name, get ? "shmem_getmem_nbi x 64 + quiet, PE 1 -> PE 0, MB/s"
                                                : "shmem_putmem_nbi x 64 + quiet, PE 0 -> PE 1, MB/s",
                                      argc, argv, 2000, 2);
    int me = shmem_my_pe(), receiver = get ? 0 : 1;
    unsigned char *sym, *priv;
    bench_alloc(name, o.max_size, &sym, &priv);
    /* The data sits in the symmetric buffer for a get (PE 1's is read), in
     * the private one for a put (PE 0's is written into PE 1's symmetric). */
    unsigned char *filled = get ? sym : priv, *landed = get ? priv : sym;
    int status = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        long iters = bench_bw_windows(&o, size), warm = bench_warmup(iters) / 2 + 1;
        bench_fill(filled, size, (unsigned)size);
        memset(landed, 0, size);
        shmem_barrier_all();
        if (me == 0) {
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                for (int w = 0; w < BENCH_BW_WINDOW; w++) {
                    if (get)
                        shmem_getmem_nbi(priv, sym, size, 1);
                    else
                        shmem_putmem_nbi(sym, priv, size, 1);
                }
                shmem_quiet();
            }
            double t = bench_now() - t0;
            bench_result(name, size, (double)size * BENCH_BW_WINDOW * (double)iters / t / 1e6,
                         "MB/s");
        }
        shmem_barrier_all();
        if (me == receiver && bench_check(landed, size, (unsigned)size) != 0) {
            fprintf(stderr, "%s: PE %d: wrong data at size %zu\n", name, me, size);
            status = 1;
        }
        if (size > o.max_size / 2)
            break;
    }
    shmem_barrier_all();
    shmem_free(sym);
    free(priv);
    shmem_finalize();
    return status;
}

#endif

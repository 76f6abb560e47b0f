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

#endif

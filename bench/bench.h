/* bench.h: what every weft micro-benchmark shares: options, timer, the
 * message-size sweep and the machine-readable result line.
 *
 * Options (all benchmarks):
 *   --quick        few iterations, sizes up to 64 KiB (ctest smoke tests)
 *   --iters N      iterations for small messages (scaled down for large ones)
 *   --min-size B   smallest message (default 8)
 *   --max-size B   largest message (default 4 MiB), K/M suffixes
 *
 * Output: comment lines start with '#'; every measurement is one line
 *   RESULT <benchmark> <size-bytes> <value> <unit>
 * printed by PE 0 only. bench/run-benchmarks collects these lines. Exit
 * status: 0, 1 when a check of the transferred data failed, 2 on usage. */
#ifndef WEFT_BENCH_H
#define WEFT_BENCH_H

#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct bench_opts {
    int quick;
    long iters;
    size_t min_size, max_size;
};

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline size_t bench_parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    switch (*end) {
    case 'k': case 'K': v <<= 10; break;
    case 'm': case 'M': v <<= 20; break;
    case 'g': case 'G': v <<= 30; break;
    default: break;
    }
    return (size_t)v;
}

/* Parse the common options; def_iters is the full-run count for small
 * messages. Exits on bad usage (before shmem_init, so every PE exits). */
static inline struct bench_opts bench_parse(int argc, char **argv, long def_iters)
{
    struct bench_opts o = {0, def_iters, 8, (size_t)4 << 20};
    int iters_set = 0, max_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--quick")) {
            o.quick = 1;
        } else if (!strcmp(a, "--iters") && i + 1 < argc) {
            o.iters = strtol(argv[++i], NULL, 0);
            iters_set = 1;
        } else if (!strcmp(a, "--min-size") && i + 1 < argc) {
            o.min_size = bench_parse_size(argv[++i]);
        } else if (!strcmp(a, "--max-size") && i + 1 < argc) {
            o.max_size = bench_parse_size(argv[++i]);
            max_set = 1;
        } else {
            fprintf(stderr,
                    "usage: %s [--quick] [--iters N] [--min-size B] [--max-size B]\n",
                    argv[0]);
            exit(2);
        }
    }
    if (o.quick) {
        if (!iters_set)
            o.iters = def_iters / 100 > 20 ? def_iters / 100 : 20;
        if (!max_set)
            o.max_size = 64 << 10;
    }
    if (o.iters < 1 || o.min_size < 1 || o.max_size < o.min_size) {
        fprintf(stderr, "%s: bad options\n", argv[0]);
        exit(2);
    }
    return o;
}

/* Iterations for a message of `size` bytes: the full count up to 8 KiB, then
 * scaled so each size moves about the same volume, never fewer than 5. */
static inline long bench_iters(const struct bench_opts *o, size_t size)
{
    long n = o->iters;
    if (size > 8192)
        n = (long)((double)n * 8192.0 / (double)size);
    return n < 5 ? 5 : n;
}

/* Warm-up iterations, not timed. */
static inline long bench_warmup(long iters)
{
    long w = iters / 10;
    return w < 2 ? 2 : w;
}

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
    printf("# %s: %s\n# %s, %d PEs, provider %s, iters %ld%s\n", name, what, lib, shmem_n_pes(),
           prov && *prov ? prov : "(default)", o->iters, o->quick ? ", quick" : "");
    fflush(stdout);
}

static inline void bench_result(const char *name, size_t size, double value, const char *unit)
{
    printf("RESULT %s %zu %.3f %s\n", name, size, value, unit);
    fflush(stdout);
}

/* Fill / check a buffer with a pattern that depends on the size and a seed,
 * so stale data from an earlier size or round does not pass. */
static inline void bench_fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 31u + seed * 7u + n) & 0xff);
}

static inline size_t bench_check(const unsigned char *p, size_t n, unsigned seed)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += p[i] != (unsigned char)((i * 31u + seed * 7u + n) & 0xff);
    return bad;
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


/* 1 if the option opt appears among the arguments. */
static inline int bench_arg_given(int argc, char **argv, const char *opt)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], opt))
            return 1;
    return 0;
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

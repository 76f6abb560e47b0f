/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_core.h: what every benchmark shares, weft's and the raw baselines
 * alike: options, timer, the message-size sweep, the RESULT line and the
 * data patterns. Plain C, no OpenSHMEM, so raw_baseline.c can use it too.
 *
 * Options (all benchmarks):
 *   --quick        few iterations, sizes up to 64 KiB (ctest smoke tests)
 *   --iters N      iterations for small messages (scaled down for large ones)
 *   --min-size B   smallest message (default 8)
 *   --max-size B   largest message (default 4 MiB), K/M suffixes
 *
 * Output: comment lines start with '#'; every measurement is one line
 *   RESULT <benchmark> <size-bytes> <value> <unit>
 * printed by one process (PE 0) only. bench/run-benchmarks collects these
 * lines. Exit status: 0, 1 when a check of the transferred data failed, 2 on
 * usage. */
#ifndef WEFT_BENCH_CORE_H
#define WEFT_BENCH_CORE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bandwidth benchmarks (put_bw, get_bw, the raw memcpy) issue this many
 * transfers, then complete them (quiet); rate benchmarks (msg_rate, the add
 * rate, the raw store loop) this many 8-byte operations. Shared so every
 * figure and its baseline have the same shape. */
#define BENCH_BW_WINDOW 64
#define BENCH_RATE_WINDOW 256

struct bench_opts {
    int quick;
    int windows; /* --windows: latency loops report their median window too */
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
    struct bench_opts o = {0, 0, def_iters, 8, (size_t)4 << 20};
    int iters_set = 0, max_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--quick")) {
            o.quick = 1;
        } else if (!strcmp(a, "--windows")) {
            o.windows = 1;
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
                    "usage: %s [--quick] [--windows] [--iters N] [--min-size B] [--max-size B]\n",
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

/* Windows for a bandwidth run of `size`-byte transfers (BENCH_BW_WINDOW per
 * window): counted as if a window were one message of size * window / 8
 * bytes, so small sizes get many windows and 4 MiB only the minimum. */
static inline long bench_bw_windows(const struct bench_opts *o, size_t size)
{
    return bench_iters(o, size * BENCH_BW_WINDOW / 8);
}

/* Warm-up iterations, not timed. */
static inline long bench_warmup(long iters)
{
    long w = iters / 10;
    return w < 2 ? 2 : w;
}

static inline void bench_result(const char *name, size_t size, double value, const char *unit)
{
    /* 6 significant digits: raw latencies are fractions of a microsecond. */
    printf("RESULT %s %zu %.6g %s\n", name, size, value, unit);
    fflush(stdout);
}

/* --windows: a latency loop also times each run of BENCH_LAT_WINDOW calls
 * and reports the median one as NAME_window_median. On a host shared
 * with other jobs the mean takes in every time either PE lost its CPU;
 * the median window is the latency while both PEs ran. One clock read
 * per window, none without the option. */
#define BENCH_LAT_WINDOW 50
struct bench_win {
    double *stamp;
    long n, cap;
};

static inline struct bench_win bench_win_open(const struct bench_opts *o, long iters)
{
    struct bench_win w = {NULL, 0, o->windows ? iters / BENCH_LAT_WINDOW + 1 : 0};
    if (w.cap && !(w.stamp = malloc(sizeof(double) * (size_t)w.cap)))
        w.cap = 0;
    return w;
}

/* Before timed call i (0 = the first timed one). */
static inline void bench_win_mark(struct bench_win *w, long i)
{
    if (w->stamp && i % BENCH_LAT_WINDOW == 0 && w->n < w->cap)
        w->stamp[w->n++] = bench_now();
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* After the loop of iters timed calls, which ended at end (bench_now);
 * scale turns a call's time into the reported latency (a ping-pong's
 * round trip is two one-way latencies: 0.5). */
static inline void bench_win_report_scaled(struct bench_win *w, const char *name, size_t size,
                                           long iters, double end, double scale)
{
    if (!w->stamp)
        return;
    if (iters % BENCH_LAT_WINDOW == 0 && w->n < w->cap)
        w->stamp[w->n++] = end; /* closes the last window */
    long k = w->n - 1;
    for (long i = 0; i < k; i++)
        w->stamp[i] = scale * 1e6 * (w->stamp[i + 1] - w->stamp[i]) / BENCH_LAT_WINDOW;
    if (k > 0) {
        qsort(w->stamp, (size_t)k, sizeof(double), bench_cmp_double);
        char n[96];
        snprintf(n, sizeof n, "%s_window_median", name);
        bench_result(n, size, w->stamp[k / 2], "us");
    }
    free(w->stamp);
    w->stamp = NULL;
}

static inline void bench_win_report(struct bench_win *w, const char *name, size_t size,
                                    long iters, double end)
{
    bench_win_report_scaled(w, name, size, iters, end, 1.0);
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

/* 1 if the option opt appears among the arguments. */
static inline int bench_arg_given(int argc, char **argv, const char *opt)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], opt))
            return 1;
    return 0;
}

#endif

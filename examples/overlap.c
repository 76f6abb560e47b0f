/* SPDX-License-Identifier: BSD-3-Clause */
/* overlap: a bucket-sort pipeline that hides its collective behind its
 * computation with the non-blocking collectives.
 *
 * Every batch, each PE makes its keys and buckets them by destination PE
 * (the computation), then the buckets travel to their owners (alltoall;
 * or, with --coll reduce, the batch's histogram is summed over the team,
 * as a sample sort does to choose its splitters; or, with --coll collect,
 * every PE gets every PE's sample of its keys, about a quarter of them, a
 * different number on every PE). The blocking pipeline does one after the
 * other; the overlapped one exchanges batch i with shmem_alltoall_nb
 * (shmemx_sum_reduce_nb, shmemx_collect_nb) while it computes batch i + 1
 * into the other half of a double buffer, then waits.
 *
 * The computation is sized to take as long as the blocking collective
 * (both timed first, in the same run: the exchange's median, the
 * computation's cost), the case where overlap can gain most (2x); PE 0
 * prints both and the bound on the speedup that follows from them.
 * Both pipelines run in turn, --reps times, so they see the same load; PE
 * 0 prints each one's min and median time and the speedup of the medians.
 * Every batch's keys are checked at their owner, and both pipelines must
 * agree on the checksum of everything received.
 *
 *   oshrun -n 4 build/bin/overlap [--coll alltoall|reduce|collect] [--keys N]
 *          [--batches B] [--reps R] [--rounds W] [--only blocking|overlapped]
 * --rounds fixes the computation at W mixing rounds per key instead (a
 * check of the results that need not wait for the calibration); --only
 * runs one pipeline, for the CPU time a whole job of it takes (measured
 * from outside, e.g. /usr/bin/time). --cpu also runs the computation
 * alone (no exchange) in turn with both, takes every pipeline's CPU time
 * (user + system of every thread of every PE, getrusage) and prints the
 * bound on the speedup that the cores allow: blocking wall / max(wall of
 * the computation alone, blocking CPU / cores).
 * Exits non-zero when a check fails. */
#include <shmem.h>
#include <shmemx.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int me, npes;
static size_t keys_per_pe = 1 << 15; /* per batch */
static int batches = 8, reps = 5, use_reduce, use_collect;
static unsigned work = 1;            /* mixing rounds per key */
static int fixed_rounds;             /* --rounds: no calibration */
static enum { BOTH, ONLY_BLOCKING, ONLY_OVERLAPPED } only; /* --only */
static int account;                  /* --cpu */
static uint64_t *src[2], *dst[2];    /* symmetric: buckets out, keys in */
static long *hist_in[2], *hist_out[2];
static uint64_t *samp_out[2], *samp_in[2]; /* symmetric: [count, samples...] out, every PE's in */
static size_t nbins = 1 << 14;

/* This process's CPU time, every thread's, user and system. */
static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t mix(uint64_t x, unsigned rounds)
{
    for (unsigned r = 0; r < rounds; r++) {
        x ^= x >> 31;
        x *= 0x7fb5d329728ea185ull;
        x ^= x >> 27;
        x *= 0x81dadef4bc2dd44dull;
        x ^= x >> 33;
    }
    return x;
}

/* A key of the sample (--coll collect). */
static int sampled(uint64_t k) { return (k >> 32) % 4 == 0; }

/* The computation of batch b: keys of every bucket, owner = key % npes,
 * written in bucket order (equal buckets, so the alltoall is regular),
 * and their histogram over nbins (or, for collect, the sample). */
static void compute(int b, int half)
{
    size_t per = keys_per_pe / (size_t)npes;
    uint64_t *out = src[half], *samp = samp_out[half];
    long *h = hist_out[half];
    memset(h, 0, nbins * sizeof *h);
    samp[0] = 0;
    for (int p = 0; p < npes; p++)
        for (size_t i = 0; i < per; i++) {
            uint64_t seed = ((uint64_t)b << 40) ^ ((uint64_t)me << 24) ^ ((uint64_t)p << 20) ^ i;
            uint64_t k = mix(seed + 1, work);
            k = k - k % (uint64_t)npes + (uint64_t)p; /* owner p */
            out[(size_t)p * per + i] = k;
            h[k % nbins]++;
            if (use_collect && sampled(k))
                samp[1 + samp[0]++] = k;
        }
}

/* The owner's side of batch b: every key is its own; returns a checksum. */
static uint64_t consume(int half, int *bad)
{
    uint64_t sum = 0;
    if (use_collect) {
        /* Every PE's block: its count, then its sample. */
        const uint64_t *d = samp_in[half], *end = d + (size_t)npes * (1 + keys_per_pe);
        for (int p = 0; p < npes; p++) {
            uint64_t n = *d++;
            if (n > keys_per_pe || n > (uint64_t)(end - d)) {
                *bad = 1;
                return sum;
            }
            for (uint64_t i = 0; i < n; i++) {
                *bad |= !sampled(d[i]);
                sum += d[i];
            }
            sum += n;
            d += n;
        }
        return sum;
    }
    if (use_reduce) {
        long total = 0;
        for (size_t i = 0; i < nbins; i++)
            total += hist_in[half][i];
        *bad |= total != (long)(keys_per_pe / (size_t)npes * (size_t)npes) * npes;
        return (uint64_t)total + (uint64_t)hist_in[half][(size_t)me % nbins];
    }
    for (size_t i = 0; i < keys_per_pe / (size_t)npes * (size_t)npes; i++) {
        uint64_t k = dst[half][i];
        *bad |= (int)(k % (uint64_t)npes) != me;
        sum += k;
    }
    return sum;
}

static void exchange_blocking(int half)
{
    size_t per = keys_per_pe / (size_t)npes;
    if (use_collect)
        shmem_uint64_collect(SHMEM_TEAM_WORLD, samp_in[half], samp_out[half],
                             1 + samp_out[half][0]);
    else if (use_reduce)
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, hist_in[half], hist_out[half], nbins);
    else
        shmem_uint64_alltoall(SHMEM_TEAM_WORLD, dst[half], src[half], per);
}

static void exchange_start(int half, shmem_req_h *r)
{
    size_t per = keys_per_pe / (size_t)npes;
    if (use_collect)
        shmemx_uint64_collect_nb(SHMEM_TEAM_WORLD, samp_in[half], samp_out[half],
                                 1 + samp_out[half][0], r);
    else if (use_reduce)
        shmemx_long_sum_reduce_nb(SHMEM_TEAM_WORLD, hist_in[half], hist_out[half], nbins, r);
    else
        shmem_uint64_alltoall_nb(SHMEM_TEAM_WORLD, dst[half], src[half], per, r);
}

enum { BLOCKING, OVERLAPPED, COMPUTE_ONLY };

/* One pipeline over every batch: its time on PE 0's clock, between
 * barriers, and its checksum; *cpu: this PE's CPU time in it. The
 * computation alone consumes stale keys: its checks are not kept. */
static double pipeline(int mode, uint64_t *check, int *bad, double *cpu)
{
    uint64_t sum = 0;
    shmem_barrier_all();
    double t0 = now(), c0 = cpu_now();
    if (mode == COMPUTE_ONLY) {
        int ignored = 0;
        for (int b = 0; b < batches; b++) {
            compute(b, b & 1);
            sum += consume(b & 1, &ignored);
        }
    } else if (mode == BLOCKING) {
        /* Two halves here too: a PE that left exchange b may already
         * write batch b + 1 into a peer still reading batch b. */
        for (int b = 0; b < batches; b++) {
            compute(b, b & 1);
            exchange_blocking(b & 1);
            sum += consume(b & 1, bad);
        }
    } else {
        compute(0, 0);
        for (int b = 0; b < batches; b++) {
            shmem_req_h r;
            exchange_start(b & 1, &r);
            if (b + 1 < batches)
                compute(b + 1, (b + 1) & 1);
            shmem_req_wait(&r);
            sum += consume(b & 1, bad);
        }
    }
    shmem_barrier_all();
    *cpu = cpu_now() - c0;
    *check = sum;
    return now() - t0;
}

/* Every PE's reps CPU times in u, summed over the PEs (at every PE). */
static void sum_over_pes(double *u)
{
    static double mine[1000], all[1000];
    memcpy(mine, u, (size_t)reps * sizeof *u);
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, all, mine, (size_t)reps);
    memcpy(u, all, (size_t)reps * sizeof *u);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of n times (sorted in place). */
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* One phase timed `samples` times, each started together after a barrier:
 * the exchange alone (rounds == 0), or the computation at `rounds` per key
 * with every PE computing at once. Returns the slowest PE's median for the
 * exchange, whose time depends on the peers; for the computation, its
 * minimum: its cost, which on a loaded host a sample only loses to
 * preemption (a median there moved the fitted rounds by 10x from run to
 * run). */
static double time_phase(unsigned rounds, int samples)
{
    static double mine, slowest;
    double t[16];
    unsigned keep = work;
    work = rounds;
    for (int i = 0; i < samples; i++) {
        shmem_barrier_all();
        double t0 = now();
        if (rounds)
            compute(i, i & 1);
        else
            exchange_blocking(i & 1);
        t[i] = now() - t0;
    }
    work = keep;
    mine = median(t, samples); /* sorts t */
    if (rounds)
        mine = t[0];
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &slowest, &mine, 1);
    return slowest;
}

/* Rounds per key that make a batch's computation last as long as the
 * blocking exchange. The computation costs base + rounds * per_round (key
 * making, bucketing and the histogram are the base); both are fitted from
 * two medians, at 1 round and at enough rounds to double the time, then
 * the rounds are checked and corrected (at most 3 times) until the
 * computation is within 15% of the exchange; the closest tried is kept. Several samples keep one
 * preempted sample from setting the size. Where even 1 round
 * outlasts the exchange (a 2-PE direct alltoall is one 128 KiB copy), the
 * computation stays at 1 round and the bound on the speedup says so. */
static void calibrate(void)
{
    enum { SAMPLES = 7 };
    /* First touches of the buffers are not part of either phase. */
    for (int h = 0; h < 2; h++) {
        compute(h, h);
        exchange_blocking(h);
    }
    double tx = time_phase(0, SAMPLES);
    double t1 = time_phase(1, SAMPLES), tw = t1;
    unsigned w = 1;
    while (w < 65536 && tw < 2 * t1) {
        w *= 4;
        tw = time_phase(w, SAMPLES);
    }
    double per_round = w > 1 && tw > t1 ? (tw - t1) / (w - 1) : t1;
    double base = t1 - per_round > 0 ? t1 - per_round : 0;
    double want = (tx - base) / per_round;
    work = want < 1 ? 1 : want > 1e6 ? 1000000u : (unsigned)(want + 0.5);
    double tc = time_phase(work, SAMPLES);
    unsigned best = work;
    double best_tc = tc;
    for (int pass = 0; pass < 3 && (tc > 1.15 * tx || (tc < 0.85 * tx && work < 1000000u));
         pass++) {
        want = tc > base ? (double)work * (tx - base) / (tc - base) : 2.0 * work;
        unsigned next = want < 1 ? 1 : want > 1e6 ? 1000000u : (unsigned)(want + 0.5);
        if (next == work)
            break;
        work = next;
        tc = time_phase(work, SAMPLES);
        if (fabs(log(tc / tx)) < fabs(log(best_tc / tx))) {
            best = work;
            best_tc = tc;
        }
    }
    work = best; /* the closest tried: on a loaded host a correction can overshoot */
    tc = best_tc;
    double longer = tc > tx ? tc : tx;
    if (me == 0) {
        printf("exchange (blocking %s) %.3f ms per batch (median of %d, slowest PE)\n",
               use_collect ? "collect" : use_reduce ? "sum_reduce" : "alltoall", 1e3 * tx,
               SAMPLES);
        printf("computation %.3f ms per batch at %u round(s) per key (1 round: %.3f ms; minima "
               "of %d)\n",
               1e3 * tc, work, 1e3 * t1, SAMPLES);
        printf("bound on the speedup, (computation + exchange) / the longer: %.2fx%s\n",
               (tc + tx) / longer,
               work == 1 && tc > 1.2 * tx ? " (the computation cannot be made as short as "
                                            "the exchange)"
                                          : "");
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--coll") && i + 1 < argc) {
            i++;
            use_reduce = !strcmp(argv[i], "reduce");
            use_collect = !strcmp(argv[i], "collect");
        }
        else if (!strcmp(argv[i], "--keys") && i + 1 < argc)
            keys_per_pe = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            batches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            fixed_rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu"))
            account = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            i++;
            only = !strcmp(argv[i], "blocking") ? ONLY_BLOCKING : ONLY_OVERLAPPED;
        }
        else {
            fprintf(stderr, "usage: overlap [--coll alltoall|reduce|collect] [--keys N] [--batches B] "
                            "[--reps R] [--rounds W] [--only blocking|overlapped] [--cpu]\n");
            return 2;
        }
    }
    if (batches < 1 || reps < 1 || reps > 1000 || fixed_rounds < 0 || fixed_rounds > 1000000)
        return 2;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (keys_per_pe < (size_t)npes)
        keys_per_pe = (size_t)npes;
    for (int h = 0; h < 2; h++) {
        src[h] = shmem_malloc(keys_per_pe * sizeof(uint64_t));
        dst[h] = shmem_malloc(keys_per_pe * sizeof(uint64_t));
        hist_in[h] = shmem_malloc(nbins * sizeof(long));
        hist_out[h] = shmem_malloc(nbins * sizeof(long));
        samp_out[h] = shmem_malloc((1 + keys_per_pe) * sizeof(uint64_t));
        samp_in[h] = shmem_malloc((size_t)npes * (1 + keys_per_pe) * sizeof(uint64_t));
        if (!src[h] || !dst[h] || !hist_in[h] || !hist_out[h] || !samp_out[h] || !samp_in[h]) {
            fprintf(stderr, "overlap: shmem_malloc failed\n");
            shmem_global_exit(1);
        }
    }
    if (fixed_rounds)
        work = (unsigned)fixed_rounds;
    else
        calibrate();
    static double tb[1000], to[1000], tc[1000], ub[1000], uo[1000], uc[1000];
    uint64_t cb = 0, co = 0, cc;
    int bad = 0;
    for (int r = 0; r < reps; r++) {
        tb[r] = only != ONLY_OVERLAPPED ? pipeline(BLOCKING, &cb, &bad, &ub[r]) : 0;
        to[r] = only != ONLY_BLOCKING ? pipeline(OVERLAPPED, &co, &bad, &uo[r]) : 0;
        tc[r] = account ? pipeline(COMPUTE_ONLY, &cc, &bad, &uc[r]) : 0;
        bad |= (!only && cb != co) << 1;
    }
    if (account) {
        sum_over_pes(ub);
        sum_over_pes(uo);
        sum_over_pes(uc);
    }
    static int bad_in, bad_any;
    bad_in = bad;
    if (bad)
        fprintf(stderr, "overlap: PE %d: %s\n", me, bad & 1 ? "a key reached the wrong PE" : "the pipelines disagree");
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, &bad_any, &bad_in, 1);
    if (me == 0) {
        double bmin = tb[0], omin = to[0];
        for (int r = 1; r < reps; r++) {
            bmin = tb[r] < bmin ? tb[r] : bmin;
            omin = to[r] < omin ? to[r] : omin;
        }
        double bmed = median(tb, reps), omed = median(to, reps);
        printf("%d PEs, %s, %zu keys per PE per batch, %d batches, %d reps\n", npes,
               use_collect  ? "collect of every PE's sample"
               : use_reduce ? "sum_reduce of a histogram"
                            : "alltoall of the keys",
               keys_per_pe,
               batches, reps);
        if (only != ONLY_OVERLAPPED)
            printf("blocking    min %8.3f ms  median %8.3f ms\n", 1e3 * bmin, 1e3 * bmed);
        if (only != ONLY_BLOCKING)
            printf("overlapped  min %8.3f ms  median %8.3f ms\n", 1e3 * omin, 1e3 * omed);
        if (!only)
            printf("speedup     min %.2fx  median %.2fx\n", bmin / omin, bmed / omed);
        if (account && !only) {
            /* Medians: the pipelines' wall and all PEs' CPU; the cores
             * this host offers the job. */
            double cores = (double)sysconf(_SC_NPROCESSORS_ONLN);
            double wb = bmed, wo = omed, wc = median(tc, reps);
            double cpub = median(ub, reps), cpuo = median(uo, reps), cpuc = median(uc, reps);
            double floor_o = wc > cpub / cores ? wc : cpub / cores;
            printf("computation alone  median %8.3f ms\n", 1e3 * wc);
            printf("cpu (all PEs)      blocking %.3f s  overlapped %.3f s  computation alone "
                   "%.3f s  (%g cores)\n", cpub, cpuo, cpuc, cores);
            printf("blocking: cores idle %.0f%%; exchange f = its CPU / (cores x its wall) = "
                   "%.2f\n", 100 * (1 - cpub / (cores * wb)),
                   wb > wc ? (cpub - cpuc) / (cores * (wb - wc)) : 0);
            printf("bound: blocking wall / max(computation alone, blocking CPU / cores) = %.2fx; "
                   "achieved %.2fx\n", wb / floor_o, wb / wo);
        }
        printf("checks: %s\n", bad_any ? "FAILED" : "OK");
    }
    for (int h = 0; h < 2; h++) {
        shmem_free(samp_in[h]);
        shmem_free(samp_out[h]);
        shmem_free(hist_out[h]);
        shmem_free(hist_in[h]);
        shmem_free(dst[h]);
        shmem_free(src[h]);
    }
    shmem_finalize();
    return bad_any ? 1 : 0;
}

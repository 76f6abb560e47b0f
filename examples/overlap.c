/* SPDX-License-Identifier: BSD-3-Clause */
/* overlap: a bucket-sort pipeline that hides its collective behind its
 * computation with the non-blocking collectives.
 *
 * Every batch, each PE makes its keys and buckets them by destination PE
 * (the computation), then the buckets travel to their owners (alltoall;
 * or, with --coll reduce, the batch's histogram is summed over the team,
 * as a sample sort does to choose its splitters). The blocking pipeline
 * does one after the other; the overlapped one exchanges batch i with
 * shmem_alltoall_nb (shmemx_sum_reduce_nb) while it computes batch i + 1
 * into the other half of a double buffer, then waits.
 *
 * The computation is sized to take as long as the collective (measured
 * first, in the same run), the case where overlap can gain most (2x).
 * Both pipelines run in turn, --reps times, so they see the same load; PE
 * 0 prints each one's min and median time and the speedup of the medians.
 * Every batch's keys are checked at their owner, and both pipelines must
 * agree on the checksum of everything received.
 *
 *   oshrun -n 4 build/bin/overlap [--coll alltoall|reduce] [--keys N]
 *          [--batches B] [--reps R]
 * Exits non-zero when a check fails. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, npes;
static size_t keys_per_pe = 1 << 15; /* per batch */
static int batches = 8, reps = 5, use_reduce;
static unsigned work = 1;            /* mixing rounds per key */
static uint64_t *src[2], *dst[2];    /* symmetric: buckets out, keys in */
static long *hist_in[2], *hist_out[2];
static size_t nbins = 1 << 14;

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

/* The computation of batch b: keys of every bucket, owner = key % npes,
 * written in bucket order (equal buckets, so the alltoall is regular),
 * and their histogram over nbins. */
static void compute(int b, int half)
{
    size_t per = keys_per_pe / (size_t)npes;
    uint64_t *out = src[half];
    long *h = hist_out[half];
    memset(h, 0, nbins * sizeof *h);
    for (int p = 0; p < npes; p++)
        for (size_t i = 0; i < per; i++) {
            uint64_t seed = ((uint64_t)b << 40) ^ ((uint64_t)me << 24) ^ ((uint64_t)p << 20) ^ i;
            uint64_t k = mix(seed + 1, work);
            k = k - k % (uint64_t)npes + (uint64_t)p; /* owner p */
            out[(size_t)p * per + i] = k;
            h[k % nbins]++;
        }
}

/* The owner's side of batch b: every key is its own; returns a checksum. */
static uint64_t consume(int half, int *bad)
{
    uint64_t sum = 0;
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
    if (use_reduce)
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, hist_in[half], hist_out[half], nbins);
    else
        shmem_uint64_alltoall(SHMEM_TEAM_WORLD, dst[half], src[half], per);
}

static void exchange_start(int half, shmem_req_h *r)
{
    size_t per = keys_per_pe / (size_t)npes;
    if (use_reduce)
        shmemx_long_sum_reduce_nb(SHMEM_TEAM_WORLD, hist_in[half], hist_out[half], nbins, r);
    else
        shmem_uint64_alltoall_nb(SHMEM_TEAM_WORLD, dst[half], src[half], per, r);
}

/* One pipeline over every batch: its time on PE 0's clock, between
 * barriers, and its checksum. */
static double pipeline(int overlapped, uint64_t *check, int *bad)
{
    uint64_t sum = 0;
    shmem_barrier_all();
    double t0 = now();
    if (!overlapped) {
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
    *check = sum;
    return now() - t0;
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

/* Rounds per key that make a batch's computation last as long as its
 * exchange in the blocking pipeline, with every PE computing at once (on
 * an oversubscribed host each computes at a fraction of a core): the two
 * phases are timed inside the pipeline and the rounds scaled until they
 * match; PE 0's figures decide for all. */
static void calibrate(void)
{
    static double split[2]; /* computation, exchange: seconds */
    double tx = 0;
    work = 8;
    for (int pass = 0; pass < 4; pass++) {
        double tc = 0;
        tx = 0;
        shmem_barrier_all();
        for (int b = 0; b < batches; b++) {
            double t0 = now();
            compute(b, b & 1);
            double t1 = now();
            exchange_blocking(b & 1);
            tc += t1 - t0;
            tx += now() - t1;
        }
        split[0] = tc;
        split[1] = tx;
        shmem_double_broadcast(SHMEM_TEAM_WORLD, split, split, 2, 0);
        double scaled = (double)work * split[1] / split[0];
        work = scaled < 1 ? 1 : scaled > 1e6 ? 1000000u : (unsigned)(scaled + 0.5);
    }
    if (me == 0)
        printf("exchange (blocking %s) %.3f ms per batch; computation set to %u rounds per "
               "key\n",
               use_reduce ? "sum_reduce" : "alltoall", 1e3 * split[1] / batches, work);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--coll") && i + 1 < argc)
            use_reduce = !strcmp(argv[++i], "reduce");
        else if (!strcmp(argv[i], "--keys") && i + 1 < argc)
            keys_per_pe = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            batches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: overlap [--coll alltoall|reduce] [--keys N] [--batches B] "
                            "[--reps R]\n");
            return 2;
        }
    }
    if (batches < 1 || reps < 1 || reps > 1000)
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
        if (!src[h] || !dst[h] || !hist_in[h] || !hist_out[h]) {
            fprintf(stderr, "overlap: shmem_malloc failed\n");
            shmem_global_exit(1);
        }
    }
    calibrate();
    double tb[1000], to[1000];
    uint64_t cb = 0, co = 0;
    int bad = 0;
    for (int r = 0; r < reps; r++) {
        tb[r] = pipeline(0, &cb, &bad);
        to[r] = pipeline(1, &co, &bad);
        bad |= (cb != co) << 1;
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
               use_reduce ? "sum_reduce of a histogram" : "alltoall of the keys", keys_per_pe,
               batches, reps);
        printf("blocking    min %8.3f ms  median %8.3f ms\n", 1e3 * bmin, 1e3 * bmed);
        printf("overlapped  min %8.3f ms  median %8.3f ms\n", 1e3 * omin, 1e3 * omed);
        printf("speedup     min %.2fx  median %.2fx\n", bmin / omin, bmed / omed);
        printf("checks: %s\n", bad_any ? "FAILED" : "OK");
    }
    for (int h = 0; h < 2; h++) {
        shmem_free(hist_out[h]);
        shmem_free(hist_in[h]);
        shmem_free(dst[h]);
        shmem_free(src[h]);
    }
    shmem_finalize();
    return bad_any ? 1 : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* hello_ring.c: weft's demo. Four small, checked pieces of a real
 * OpenSHMEM program, each timed:
 *
 *   1. ring:      a token travels round the ring of PEs (shmem_long_p +
 *                 shmem_long_wait_until); time per hop = put latency.
 *   2. bandwidth: PE 0 streams 1 MiB blocks to PE 1 with shmem_putmem_nbi +
 *                 shmem_quiet; PE 1 checks every byte.
 *   3. heat:      1-D heat diffusion (Jacobi stencil) on a domain split over
 *                 the PEs, halo cells exchanged with shmem_double_p and a
 *                 barrier per iteration; time per iteration.
 *   4. reduce:    global sum of heat via shmem_double_g and a count of hot
 *                 cells via shmem_long_atomic_fetch_add; fetch-add latency.
 *
 * PE 0 recomputes the heat run serially and compares. Exit status 0 only if
 * every check passed, on every PE.
 *
 *   oshrun -n 4 ./hello_ring [--quick] [--cells N] [--iters K] [--laps L]
 */
#include <shmem.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Symmetric objects in .data/.bss (the same on every PE). */
static long token;        /* ring: the last lap number seen */
static long hot_total;    /* reduce: hot cells, summed on PE 0 */
static long tickets;      /* reduce: fetch-add latency target */
static double local_heat; /* reduce: this PE's sum, read by PE 0 */
static int verdict;       /* PE 0's overall result, sent to everyone */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One stencil update; the serial check uses the very same function. */
static inline double heat_step(double left, double mid, double right)
{
    return mid + 0.25 * (left - 2.0 * mid + right);
}

/* Initial temperature of global cell g (1..n): a sine bump plus a
 * deterministic ripple, so every halo value matters from the first step. */
static double heat_init(long g, long n)
{
    double x = (double)g / (double)(n + 1);
    return 100.0 * sin(3.14159265358979323846 * x) + (double)((g * 7919) % 13);
}

#define HOT 50.0

static long arg_long(int argc, char **argv, const char *name, long def)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return strtol(argv[i + 1], NULL, 0);
    return def;
}

static int has_flag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int quick = has_flag(argc, argv, "--quick");
    long ncells = arg_long(argc, argv, "--cells", quick ? 4096 : 1L << 18);
    long iters = arg_long(argc, argv, "--iters", quick ? 50 : 500);
    long laps = arg_long(argc, argv, "--laps", quick ? 20 : 200);
    long nblocks = quick ? 4 : 64;

    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int failures = 0;
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    if (ncells < npes || iters < 1 || laps < 1) {
        if (me == 0)
            fprintf(stderr, "hello_ring: need --cells >= PEs, --iters >= 1, --laps >= 1\n");
        shmem_finalize();
        return 2;
    }

    char host[64] = "?";
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    if (me == 0) {
        char name[SHMEM_MAX_NAME_LEN];
        shmem_info_get_name(name);
        printf("hello_ring: %s, %d PEs, %ld cells, %ld iterations, %ld laps\n", name, npes,
               ncells, iters, laps);
    }
    fflush(stdout);
    shmem_barrier_all();
    printf("PE %d of %d on %s: left %d, right %d\n", me, npes, host, left, right);
    fflush(stdout);
    shmem_barrier_all();

    /* ---- 1. ring --------------------------------------------------------- */
    double t0 = now();
    for (long lap = 1; lap <= laps; lap++) {
        if (me == 0) {
            shmem_long_p(&token, lap, right);
            shmem_long_wait_until(&token, SHMEM_CMP_GE, lap);
        } else {
            shmem_long_wait_until(&token, SHMEM_CMP_GE, lap);
            shmem_long_p(&token, lap, right);
        }
    }
    double t_ring = now() - t0;
    shmem_barrier_all();
    if (token != laps) {
        fprintf(stderr, "PE %d: ring token %ld, expected %ld\n", me, token, laps);
        failures++;
    }
    if (me == 0)
        printf("ring:      %ld laps x %d hops, %.2f us per hop (put latency + wakeup), %s\n",
               laps, npes, 1e6 * t_ring / (double)(laps * npes), token == laps ? "OK" : "FAIL");

    /* ---- 2. bandwidth ----------------------------------------------------- */
    const size_t block = 1 << 20;
    unsigned char *blk = shmem_malloc(block);
    unsigned char *src = malloc(block);
    if (!blk || !src) {
        fprintf(stderr, "PE %d: out of memory\n", me);
        shmem_global_exit(2);
    }
    memset(blk, 0, block);
    for (size_t i = 0; i < block; i++)
        src[i] = (unsigned char)((i * 131 + 7) & 0xff);
    shmem_barrier_all();
    double t_bw = 0;
    if (me == 0 && npes > 1) {
        shmem_putmem(blk, src, block, 1); /* warm-up (registration, first touch) */
        shmem_quiet();
        t0 = now();
        for (long b = 0; b < nblocks; b++)
            shmem_putmem_nbi(blk, src, block, 1);
        shmem_quiet();
        t_bw = now() - t0;
    }
    shmem_barrier_all();
    if (me == 1) {
        size_t bad = 0;
        for (size_t i = 0; i < block; i++)
            bad += blk[i] != src[i];
        if (bad) {
            fprintf(stderr, "PE 1: %zu of %zu bytes wrong after the bandwidth test\n", bad,
                    block);
            failures++;
        }
    }
    if (me == 0) {
        if (npes > 1)
            printf("bandwidth: PE 0 -> PE 1, %ld x 1 MiB putmem_nbi: %.1f MB/s\n", nblocks,
                   (double)block * (double)nblocks / t_bw / 1e6);
        else
            printf("bandwidth: skipped (1 PE)\n");
    }
    free(src);
    shmem_free(blk);

    /* ---- 3. heat ------------------------------------------------------------ */
    long base = ncells / npes, extra = ncells % npes;
    long nloc = base + (me < extra);
    long first = me * base + (me < extra ? me : extra) + 1; /* global index of u[1] */
    long cap = base + 1 + 2;                                  /* same on every PE */
    double *buf[2];
    buf[0] = shmem_calloc((size_t)cap, sizeof(double));
    buf[1] = shmem_calloc((size_t)cap, sizeof(double));
    if (!buf[0] || !buf[1]) {
        fprintf(stderr, "PE %d: symmetric heap too small for %ld cells\n", me, cap);
        shmem_global_exit(2);
    }
    /* u[0] and u[nloc+1] are halos; the domain's outer halos stay 0. */
    for (long i = 1; i <= nloc; i++)
        buf[0][i] = heat_init(first + i - 1, ncells);
    /* The right halo on the left neighbour is at its nloc+1. */
    long left_nloc = base + (left < extra);
    if (me > 0)
        shmem_double_p(&buf[0][left_nloc + 1], buf[0][1], left);
    if (me < npes - 1)
        shmem_double_p(&buf[0][0], buf[0][nloc], right);
    shmem_barrier_all();

    t0 = now();
    for (long k = 0; k < iters; k++) {
        double *u = buf[k & 1], *v = buf[(k + 1) & 1];
        for (long i = 1; i <= nloc; i++)
            v[i] = heat_step(u[i - 1], u[i], u[i + 1]);
        if (me > 0)
            shmem_double_p(&v[left_nloc + 1], v[1], left);
        if (me < npes - 1)
            shmem_double_p(&v[0], v[nloc], right);
        shmem_barrier_all();
    }
    double t_heat = now() - t0;
    double *u = buf[iters & 1];

    /* ---- 4. reduce ------------------------------------------------------------ */
    double sum = 0;
    long hot = 0;
    for (long i = 1; i <= nloc; i++) {
        sum += u[i];
        hot += u[i] > HOT;
    }
    local_heat = sum;
    shmem_long_atomic_fetch_add(&hot_total, hot, 0);
    const long nfadd = quick ? 100 : 1000;
    shmem_barrier_all();
    t0 = now();
    for (long i = 0; i < nfadd; i++)
        shmem_long_atomic_fetch_add(&tickets, 1, right);
    double t_fadd = now() - t0;
    shmem_barrier_all();
    if (tickets != nfadd) {
        fprintf(stderr, "PE %d: %ld fetch-adds arrived, expected %ld\n", me, tickets, nfadd);
        failures++;
    }

    if (me == 0) {
        double total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += shmem_double_g(&local_heat, pe);

        /* Serial reference for the same problem. */
        double *s[2];
        s[0] = calloc((size_t)ncells + 2, sizeof(double));
        s[1] = calloc((size_t)ncells + 2, sizeof(double));
        double *got = malloc(((size_t)base + 1) * sizeof(double));
        if (!s[0] || !s[1] || !got) {
            fprintf(stderr, "PE 0: out of memory for the serial check\n");
            shmem_global_exit(2);
        }
        for (long g = 1; g <= ncells; g++)
            s[0][g] = heat_init(g, ncells);
        for (long k = 0; k < iters; k++)
            for (long g = 1; g <= ncells; g++)
                s[(k + 1) & 1][g] = heat_step(s[k & 1][g - 1], s[k & 1][g], s[k & 1][g + 1]);
        double *ref = s[iters & 1];
        double ref_sum = 0, maxdiff = 0;
        long ref_hot = 0;
        for (long g = 1; g <= ncells; g++) {
            ref_sum += ref[g];
            ref_hot += ref[g] > HOT;
        }
        /* Compare every PE's cells, fetched with shmem_double_get. */
        for (int pe = 0, g = 1; pe < npes; pe++) {
            long n = base + (pe < extra);
            shmem_double_get(got, &u[1], (size_t)n, pe);
            for (long i = 0; i < n; i++, g++)
                maxdiff = fmax(maxdiff, fabs(got[i] - ref[g]));
        }
        int heat_ok = maxdiff <= 1e-9 && fabs(total - ref_sum) <= 1e-9 * fabs(ref_sum) + 1e-9;
        int hot_ok = hot_total == ref_hot;
        failures += !heat_ok + !hot_ok;
        printf("heat:      %ld cells, %ld iterations, %.2f us per iteration, "
               "max |u - serial| = %.3g, %s\n",
               ncells, iters, 1e6 * t_heat / (double)iters, maxdiff, heat_ok ? "OK" : "FAIL");
        printf("reduce:    total heat %.6f (serial %.6f); hot cells %ld (serial %ld), %s\n", total,
               ref_sum, hot_total, ref_hot, heat_ok && hot_ok ? "OK" : "FAIL");
        printf("fetch-add: %.2f us per shmem_long_atomic_fetch_add to the next PE, %s\n",
               1e6 * t_fadd / (double)nfadd, tickets == nfadd ? "OK" : "FAIL");
        free(s[0]);
        free(s[1]);
        free(got);
    }

    /* Every PE's failures are summed on PE 0, which sends out the verdict. */
    shmem_barrier_all();
    shmem_long_atomic_add(&hot_total, 1000000L * failures, 0);
    shmem_barrier_all();
    if (me == 0) {
        int ok = hot_total < 1000000L && failures == 0;
        printf("result:    %s\n", ok ? "PASS" : "FAIL");
        fflush(stdout);
        for (int pe = 0; pe < npes; pe++)
            shmem_int_p(&verdict, ok ? 0 : 1, pe);
    }
    shmem_barrier_all();
    int status = verdict;
    shmem_free(buf[0]);
    shmem_free(buf[1]);
    shmem_finalize();
    return status;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* is_push.c: the key exchange of a NAS IS-style bucket sort with one-sided
 * append (shmemx_push, docs/extensions.md). Every PE draws random keys,
 * sends each key to the PE that owns its range by appending it to that
 * PE's receive buffer, and the owner learns how many keys to expect from a
 * counting put per sender; then it sorts what it got and the PEs check,
 * with a sum and a boundary exchange, that the global result is sorted and
 * complete. Without push every bucket needs a fetch-add on the owner's
 * fill count plus a put; with it the runtime reserves the room.
 *
 *   oshrun -n 4 ./is_push [--keys N]     N keys per PE (default 100000)
 * Exit status 0 only if every check passed on every PE. */
#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_KEY (1 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long nkeys = 100000;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--keys"))
            nkeys = atol(argv[++i]);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int per_pe = (MAX_KEY + npes - 1) / npes; /* PE p owns keys [p*per_pe, (p+1)*per_pe) */

    /* Room for every key in the worst case: all keys of all PEs here. */
    size_t cap = (size_t)nkeys * (size_t)npes * sizeof(int);
    int *recv = shmem_malloc(cap);
    long *expect = shmem_calloc((size_t)npes, sizeof(long)); /* [src]: keys src sends here */
    static long my_sum, total_sum, my_count, total_count;
    if (!recv || !expect) {
        fprintf(stderr, "is_push: PE %d: out of symmetric memory\n", me);
        shmem_global_exit(2);
    }
    shmemx_oct_t oct;
    shmemx_oct_create(&oct, recv, cap);
    shmemx_ct_t counts_in;
    shmemx_ct_create(&counts_in);

    /* Keys, bucketed by owner. */
    int *keys = malloc((size_t)nkeys * sizeof(int));
    int *bucket = malloc((size_t)nkeys * sizeof(int));
    long *bcount = calloc((size_t)npes, sizeof(long)), *bstart = calloc((size_t)npes + 1, sizeof(long));
    uint64_t s = 88172645463325252ull ^ (uint64_t)(me + 1) * 0x9E3779B97F4A7C15ull;
    for (long i = 0; i < nkeys; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        keys[i] = (int)(s % MAX_KEY);
        bcount[keys[i] / per_pe]++;
        my_sum += keys[i];
    }
    for (int p = 0; p < npes; p++)
        bstart[p + 1] = bstart[p] + bcount[p];
    long *fill = calloc((size_t)npes, sizeof(long));
    for (long i = 0; i < nkeys; i++) {
        int p = keys[i] / per_pe;
        bucket[bstart[p] + fill[p]++] = keys[i];
    }

    /* The exchange: one push per owner, then this PE's count for it as a
     * counting put; the owner waits for npes counts, then for the bytes. */
    double t0 = now();
    for (int k = 0; k < npes; k++) {
        int p = (me + k) % npes;
        if (bcount[p])
            shmemx_int_push_nbi(oct, bucket + bstart[p], (size_t)bcount[p], p);
        shmemx_long_put_ct(counts_in, &expect[me], &bcount[p], 1, p);
    }
    shmem_quiet();
    shmemx_ct_wait(counts_in, npes);
    long n = 0;
    for (int p = 0; p < npes; p++)
        n += expect[p];
    shmemx_oct_wait(oct, (size_t)n * sizeof(int));
    double t1 = now();

    /* Local sort, then the checks. */
    qsort(recv, (size_t)n, sizeof(int), cmp_int);
    int bad = 0;
    long got_sum = 0;
    for (long i = 0; i < n; i++) {
        got_sum += recv[i];
        bad += recv[i] / per_pe != me;
    }
    my_count = n;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total_count, &my_count, 1);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total_sum, &got_sum, 1);
    static long sent_sum;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &sent_sum, &my_sum, 1);
    /* The boundary: this PE's smallest key is above the left PE's largest. */
    static int edge_max;
    edge_max = n ? recv[n - 1] : -1;
    shmem_barrier_all();
    if (me > 0 && n) {
        int left_max = -1;
        for (int p = me - 1; p >= 0 && left_max < 0; p--)
            left_max = shmem_int_g(&edge_max, p);
        bad += left_max > recv[0];
    }
    if (total_count != nkeys * npes || total_sum != sent_sum)
        bad++;
    static int all_bad, my_bad;
    my_bad = bad;
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &all_bad, &my_bad, 1);
    if (me == 0)
        printf("is_push: %d PEs, %ld keys each: exchange %.3f ms, %ld keys sorted: %s\n", npes,
               nkeys, 1e3 * (t1 - t0), total_count, all_bad ? "WRONG" : "OK");

    shmemx_ct_free(&counts_in);
    shmemx_oct_destroy(&oct);
    free(fill);
    free(bstart);
    free(bcount);
    free(bucket);
    free(keys);
    shmem_free(expect);
    shmem_free(recv);
    shmem_finalize();
    return all_bad != 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* key_exchange: the key exchange of a NAS IS-style bucket sort, with and
 * without contexts. Each PE sends every PE (itself last) its keys for that
 * PE, `size` bytes, as BUCKETS pieces, one per bucket. Where a piece goes in
 * the receiver's buffer only the receiver knows (recv_off, reshuffled every
 * round), so for each piece the sender fetches its offset from the receiver
 * with a blocking shmem_long_g, then streams the piece there with
 * shmem_putmem_nbi; one quiet ends the round. The fetch of piece b+1 thus
 * runs while piece b is still streaming to the same PE:
 *   default: the gets and the puts on SHMEM_CTX_DEFAULT, one endpoint: each
 *     get queues behind the put data already on the way to that PE;
 *   contexts: the gets on one PRIVATE context, the puts on another, each
 *     with its own endpoint (connection): a get waits only for itself.
 * The two variants alternate round by round (same machine conditions);
 * reported per size: the median over rounds of the slowest PE's
 * microseconds per round, for each variant, and their ratio. Every receiver
 * checks every piece of the last round of each variant and of every 8th. */
#include "bench.h"

#define BUCKETS 8

static int me, npes;
static long *recv_off; /* [src * BUCKETS + b]: where src's piece b goes here */

/* Where sender s's piece b goes at receiver r in round k, in pieces. */
static long place_of(int s, int b, int r, long k)
{
    long slot = (s + r + k) % npes;
    long bucket = (b * 5 + k + r) % BUCKETS; /* 5 is coprime with BUCKETS */
    return slot * BUCKETS + bucket;
}

static unsigned seed_of(int s, int r, long k) { return (unsigned)(s * 131 + r * 17 + (int)k); }

int main(int argc, char **argv)
{
    int status = 0;
    struct bench_opts o = bench_parse(argc, argv, 400);
    if (!bench_arg_given(argc, argv, "--min-size"))
        o.min_size = 8192;
    if (!bench_arg_given(argc, argv, "--max-size") && !o.quick)
        o.max_size = (size_t)1 << 20;
    if (o.min_size < BUCKETS)
        o.min_size = BUCKETS;
    shmem_init();
    bench_need_pes("key_exchange", 2);
    bench_header("key_exchange",
                 "IS key exchange: per bucket, blocking get of its offset + putmem_nbi of it, "
                 "to every PE, quiet; median us per round, default context vs two contexts",
                 &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    recv_off = shmem_calloc((size_t)npes * BUCKETS, sizeof(long));
    unsigned char *recvbuf = shmem_malloc((size_t)npes * o.max_size);
    unsigned char **keys = malloc((size_t)npes * sizeof *keys);
    long max_rounds = o.iters + 2;
    double *per_round[2] = {malloc((size_t)max_rounds * sizeof(double)),
                            malloc((size_t)max_rounds * sizeof(double))};
    int ok = recv_off && recvbuf && keys && per_round[0] && per_round[1];
    for (int j = 0; ok && j < npes; j++)
        ok = (keys[j] = malloc(o.max_size)) != NULL;
    if (!ok) {
        fprintf(stderr, "key_exchange: out of memory\n");
        shmem_global_exit(2);
    }
    shmem_ctx_t get_ctx, put_ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &get_ctx) != 0 ||
        shmem_ctx_create(SHMEM_CTX_PRIVATE, &put_ctx) != 0) {
        fprintf(stderr, "key_exchange: PE %d: shmem_ctx_create failed\n", me);
        shmem_global_exit(2);
    }
    static double t_mine, t_max;
    for (size_t size = o.min_size; size <= o.max_size; size *= 4) {
        size_t piece = size / BUCKETS;
        /* Rounds: fewer for big sizes (each moves npes * size per PE). */
        long rounds = bench_iters(&o, size * (size_t)npes / 16) / 2 * 2 + 2;
        if (rounds > max_rounds)
            rounds = max_rounds & ~1L;
        long warm = 4, n[2] = {0, 0};
        int bad = 0;
        for (long k = 0; k < warm + rounds; k++) {
            int variant = (int)(k & 1); /* 0 default, 1 contexts */
            shmem_ctx_t g = variant ? get_ctx : SHMEM_CTX_DEFAULT;
            shmem_ctx_t p = variant ? put_ctx : SHMEM_CTX_DEFAULT;
            for (int s = 0; s < npes; s++)
                for (int b = 0; b < BUCKETS; b++)
                    recv_off[s * BUCKETS + b] = place_of(s, b, me, k) * (long)piece;
            for (int j = 0; j < npes; j++)
                bench_fill(keys[j], size, seed_of(me, j, k));
            shmem_barrier_all(); /* offsets ready everywhere, buffers free */
            double t0 = bench_now();
            for (int step = 1; step <= npes; step++) {
                int j = (me + step) % npes;
                for (int b = 0; b < BUCKETS; b++) {
                    long off = shmem_ctx_long_g(g, &recv_off[me * BUCKETS + b], j);
                    shmem_ctx_putmem_nbi(p, recvbuf + off, keys[j] + (size_t)b * piece, piece,
                                         j);
                }
            }
            shmem_ctx_quiet(p);
            t_mine = 1e6 * (bench_now() - t0);
            shmem_barrier_all(); /* everyone's keys are here */
            shmem_double_max_reduce(SHMEM_TEAM_WORLD, &t_max, &t_mine, 1);
            if (k >= warm)
                per_round[variant][n[variant]++] = t_max;
            if (k < warm || k >= warm + rounds - 2 || k % 8 < 2) {
                /* Rebuild what each sender's keys were and compare piece by piece. */
                unsigned char *want = malloc(size);
                for (int s = 0; s < npes && want; s++) {
                    bench_fill(want, size, seed_of(s, me, k));
                    for (int b = 0; b < BUCKETS; b++)
                        bad += memcmp(recvbuf + place_of(s, b, me, k) * (long)piece,
                                      want + (size_t)b * piece, piece) != 0;
                }
                free(want);
            }
        }
        if (bad) {
            fprintf(stderr, "key_exchange: PE %d: %d misplaced or wrong piece(s) at size %zu\n",
                    me, bad, size);
            status = 1;
        }
        if (me == 0) {
            double med[2];
            for (int v = 0; v < 2; v++) {
                qsort(per_round[v], (size_t)n[v], sizeof(double), bench_cmp_double);
                med[v] = per_round[v][n[v] / 2];
            }
            bench_result("key_exchange_default", size, med[0], "us");
            bench_result("key_exchange_contexts", size, med[1], "us");
            bench_result("key_exchange_speedup", size, med[0] / med[1], "x");
        }
        if (size > o.max_size / 4)
            break;
    }
    shmem_ctx_destroy(get_ctx);
    shmem_ctx_destroy(put_ctx);
    shmem_barrier_all();
    for (int j = 0; j < npes; j++)
        free(keys[j]);
    free(keys);
    free(per_round[0]);
    free(per_round[1]);
    shmem_free(recvbuf);
    shmem_free(recv_off);
    shmem_finalize();
    return status;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* ct_bench: counting puts and one-sided append against what a program
 * writes without them (docs/extensions.md, docs/performance.md).
 *
 * alltoall (sizes --min-size..--max-size, default 8..256 B): every round
 * each PE sends one message to every other PE, and waits for the messages
 * of its round from all of them;
 *   flag: putmem to each, one fence, a long_p of the round number into
 *         the sender's flag at each; wait_until_all on the flags;
 *   ct:   shmemx_putmem_ct to each; shmemx_ct_wait for (npes-1) * round.
 * keyx (4 KiB and 64 KiB per peer): the NAS IS key exchange, every PE sends
 * `size` bytes of keys to every PE (itself included), and each receiver
 * must know when all have landed; four ways, each timed against faput:
 *   put:   putmem_nbi to the sender's slot (sizes are equal here, so the
 *          place is known in advance); quiet; barrier;
 *   faput: shmem_long_atomic_fetch_add of the receiver's fill count, then
 *          putmem_nbi there (the place is not known: IS's real case);
 *          quiet; barrier;
 *   push:  shmemx_push_nbi; quiet; shmemx_oct_wait for all the bytes;
 *   ct:    shmemx_putmem_ct_nbi to the sender's slot; quiet;
 *          shmemx_ct_wait for one count per sender.
 * Variants alternate in blocks of rounds (same machine conditions); reported
 * per size: min and median over blocks of the slowest PE's microseconds per
 * round, for each variant, and the ratio of the medians (>1: the extension
 * is faster). The receivers check the data of every block's last round. */
#include "bench.h"

#include <shmemx.h>

#define BLOCKS 9

static int me, npes;

/* min and median of n block figures, PE 0 prints them. */
static void report(const char *name, size_t size, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    char buf[64];
    snprintf(buf, sizeof buf, "%s_min", name);
    bench_result(buf, size, v[0], "us");
    bench_result(name, size, v[n / 2], "us");
}

/* PE 0: both variants' figures and the ratio of their medians (>1: the
 * extension, b, is faster). */
static void report_pair(const char *a, const char *b, const char *ratio, size_t size,
                        double per[2][BLOCKS])
{
    if (me != 0)
        return;
    report(a, size, per[0], BLOCKS);
    report(b, size, per[1], BLOCKS);
    bench_result(ratio, size, per[0][BLOCKS / 2] / per[1][BLOCKS / 2], "x");
}

static double slowest(double mine)
{
    static double t_mine, t_max;
    t_mine = mine;
    shmem_barrier_all();
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &t_max, &t_mine, 1);
    return t_max;
}

static int alltoall(const struct bench_opts *o)
{
    int bad = 0;
    size_t maxb = o->max_size;
    unsigned char *inbox = shmem_calloc((size_t)npes, maxb);
    long *flags = shmem_calloc((size_t)npes, sizeof(long));
    unsigned char *msg = malloc(maxb);
    shmemx_ct_t ct;
    shmemx_ct_create(&ct);
    long ct_rounds = 0, flag_round = 0;
    int *status = calloc((size_t)npes, sizeof(int));
    status[me] = 1; /* no message from itself */
    for (size_t size = o->min_size; size <= maxb; size *= 2) {
        long rounds = o->quick ? 20 : o->iters;
        double per[2][BLOCKS];
        for (int blk = 0; blk < 2 * BLOCKS; blk++) {
            int v = blk & 1; /* 0 flag, 1 ct */
            shmem_barrier_all();
            double t0 = bench_now();
            for (long r = 0; r < rounds; r++) {
                memset(msg, (int)((r + me) & 0xff), size);
                if (v == 0) {
                    long round = ++flag_round;
                    for (int k = 1; k < npes; k++)
                        shmem_putmem(inbox + (size_t)me * maxb, msg, size, (me + k) % npes);
                    shmem_fence();
                    for (int k = 1; k < npes; k++)
                        shmem_long_p(&flags[me], round, (me + k) % npes);
                    shmem_long_wait_until_all(flags, (size_t)npes, status, SHMEM_CMP_GE, round);
                } else {
                    ct_rounds++;
                    for (int k = 1; k < npes; k++)
                        shmemx_putmem_ct(ct, inbox + (size_t)me * maxb, msg, size,
                                         (me + k) % npes);
                    shmemx_ct_wait(ct, ct_rounds * (npes - 1));
                }
                if (r == rounds - 1) /* the last round's messages, checked */
                    for (int s = 0; s < npes; s++)
                        if (s != me && inbox[(size_t)s * maxb + size - 1] != (unsigned char)((r + s) & 0xff))
                            bad++;
                /* A sender must not overwrite a slot its receiver has not
                 * checked: the benchmark checks only the last round, and a
                 * round's messages are all sent before it waits, so the
                 * next round can overwrite only after everyone waited. */
            }
            per[v][blk / 2] = slowest(1e6 * (bench_now() - t0) / (double)rounds);
        }
        report_pair("alltoall_flag", "alltoall_ct", "alltoall_ct_speedup", size, per);
    }
    shmemx_ct_free(&ct);
    free(status);
    free(msg);
    shmem_free(flags);
    shmem_free(inbox);
    return bad;
}

/* The key exchange's four ways (keyx_<name>), timed against faput. */
enum { KX_PUT, KX_FAPUT, KX_PUSH, KX_CT, KX_N };
static const char *const kx_name[KX_N] = {"keyx_put", "keyx_faput", "keyx_push", "keyx_ct"};

static int keyx(const struct bench_opts *o)
{
    int bad = 0;
    size_t sizes[2] = {4096, 65536};
    int nsizes = o->quick ? 1 : 2;
    size_t maxb = sizes[nsizes - 1];
    unsigned char *recvbuf = shmem_malloc((size_t)npes * maxb);
    long *fill = shmem_calloc(1, sizeof(long));
    unsigned char *keys = malloc(maxb);
    shmemx_oct_t oct;
    shmemx_ct_t ct;
    shmemx_oct_create(&oct, recvbuf, (size_t)npes * maxb);
    shmemx_ct_create(&ct);
    for (int si = 0; si < nsizes; si++) {
        size_t size = sizes[si];
        long rounds = o->quick ? 10 : o->iters / 4 + 4;
        double per[KX_N][BLOCKS];
        memset(keys, me + 1, size);
        for (int blk = 0; blk < KX_N * BLOCKS; blk++) {
            int v = blk % KX_N;
            double sum = 0;
            for (long r = 0; r < rounds; r++) {
                *fill = 0;
                shmemx_oct_reset(oct);
                shmemx_ct_set(ct, 0);
                memset(recvbuf, 0, (size_t)npes * size);
                shmem_barrier_all();
                double t0 = bench_now();
                for (int k = 0; k < npes; k++) {
                    int j = (me + k) % npes;
                    switch (v) {
                    case KX_PUT: /* equal sizes: each sender's slot is known */
                        shmem_putmem_nbi(recvbuf + (size_t)me * size, keys, size, j);
                        break;
                    case KX_FAPUT: {
                        long off = shmem_long_atomic_fetch_add(fill, (long)size, j);
                        shmem_putmem_nbi(recvbuf + off, keys, size, j);
                        break;
                    }
                    case KX_PUSH: shmemx_push_nbi(oct, keys, size, j); break;
                    default:
                        shmemx_putmem_ct_nbi(ct, recvbuf + (size_t)me * size, keys, size, j);
                        break;
                    }
                }
                shmem_quiet();
                if (v == KX_PUT || v == KX_FAPUT)
                    shmem_barrier_all();
                else if (v == KX_PUSH)
                    shmemx_oct_wait(oct, (size_t)npes * size);
                else
                    shmemx_ct_wait(ct, npes);
                sum += bench_now() - t0;
                /* every sender's keys, whole, exactly once */
                long seen = 0;
                for (int p = 0; p < npes; p++) {
                    unsigned char who = recvbuf[(size_t)p * size];
                    if (who < 1 || who > npes || recvbuf[(size_t)p * size + size - 1] != who)
                        bad++;
                    else
                        seen |= 1L << (who - 1);
                }
                bad += seen != (npes >= 63 ? -1L : (1L << npes) - 1);
                shmem_barrier_all();
            }
            per[v][blk / KX_N] = slowest(1e6 * sum / (double)rounds);
        }
        if (me == 0) {
            for (int v = 0; v < KX_N; v++)
                report(kx_name[v], size, per[v], BLOCKS);
            for (int v = 0; v < KX_N; v++) {
                if (v == KX_FAPUT)
                    continue;
                char name[64];
                snprintf(name, sizeof name, "%s_speedup", kx_name[v]);
                bench_result(name, size, per[KX_FAPUT][BLOCKS / 2] / per[v][BLOCKS / 2], "x");
            }
        }
    }
    shmemx_ct_free(&ct);
    shmemx_oct_destroy(&oct);
    free(keys);
    shmem_free(fill);
    shmem_free(recvbuf);
    return bad;
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse(argc, argv, 400);
    if (!bench_arg_given(argc, argv, "--max-size"))
        o.max_size = 256;
    shmem_init();
    bench_need_pes("ct_bench", 2);
    bench_header("ct_bench",
                 "counting puts vs put+fence+flag (all-to-all, us per round); "
                 "IS key exchange four ways: put+barrier, fetch-add+put+barrier, push, "
                 "counting puts (us per round)",
                 &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int bad = alltoall(&o) + keyx(&o);
    if (bad)
        fprintf(stderr, "ct_bench: PE %d: %d wrong round(s)\n", me, bad);
    shmem_finalize();
    return bad != 0;
}

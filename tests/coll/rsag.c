/* SPDX-License-Identifier: BSD-3-Clause */
/* rsag: team reductions around the reduce-scatter threshold (the job sets
 * WEFT_COLL_REDUCE_SCATTER_MIN to 1 KiB, so lengths of a few KiB run
 * Rabenseifner's algorithm in several chunks and short ones recursive
 * doubling), and collects of uneven lengths back to back. Reductions:
 * double sums checked bitwise against a model of recursive doubling's
 * combining order, complex sums likewise, long sums and unsigned xor
 * exactly, in place and out of place, on the world team and on a subteam
 * of all PEs but 0 (other sizes, other folds), then back to back with no
 * barrier (the model is the flat algorithms': the jobs on simulated nodes
 * set WEFT_COLL_HIER=0). Collects: lengths that change every call, zeros among them,
 * calls where every length is zero, one PE per call late to read. */
#include <complex.h>

#include "weft_test.h"

#define MAXN 6000 /* elements: 47 KiB of doubles, several chunks */
#define CALLS 40

static double dval(int pe, size_t i, int salt)
{
    /* Values whose sums depend on the order they are added in. */
    return 1.0 / (double)(3 + pe * 7 + (int)(i % 97) + salt) + (double)(i % 5) * 1e8;
}

/* Recursive doubling's order over team values v[0..n-1]: fold p2 + i into
 * i, then round k combines (lower index, higher index) of i and i ^ 2^k;
 * member 0's value is the result every member gets. */
#define MODEL_SUM(NAME, T)                                                                 \
    static T NAME(T *v, int n)                                                             \
    {                                                                                      \
        int p2 = 1;                                                                        \
        while (p2 * 2 <= n)                                                                \
            p2 *= 2;                                                                       \
        for (int i = 0; i + p2 < n; i++)                                                   \
            v[i] = v[i] + v[i + p2];                                                       \
        for (int d = 1; d < p2; d *= 2)                                                    \
            for (int i = 0; i < p2; i++)                                                   \
                if (!(i & d))                                                              \
                    v[i] = v[i] + v[i | d];                                                \
        return v[0];                                                                       \
    }
MODEL_SUM(model_sum, double)
MODEL_SUM(model_csum, double _Complex)

static void *sa, *sb;

static void check_reductions(shmem_team_t t, size_t cnt, int inplace, int salt)
{
    int n = shmem_team_n_pes(t), w[256];
    if (n <= 0)
        return;
    for (int i = 0; i < n; i++)
        w[i] = shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD);
    double v[256];
    WT_PHASE("reductions of %zu elements over %d PEs%s", cnt, n, inplace ? " in place" : "");

    double *ds = sa, *dd = inplace ? ds : sb;
    for (size_t i = 0; i < cnt; i++)
        ds[i] = dval(wt_me, i, salt);
    WT_EQ_NUM(shmem_double_sum_reduce(t, dd, ds, cnt), 0, "double sum");
    for (size_t i = 0; i < cnt; i++) {
        for (int p = 0; p < n; p++)
            v[p] = dval(w[p], i, salt);
        double want = model_sum(v, n);
        if (memcmp(&dd[i], &want, sizeof want))
            WT_FAIL("double sum over %d PEs, %zu elements: element %zu is %a, expected %a", n,
                    cnt, i, dd[i], want);
    }

    double _Complex *cs = sa, *cd = inplace ? cs : sb, cv[256];
    size_t ccnt = cnt / 2;
    for (size_t i = 0; i < ccnt; i++)
        cs[i] = dval(wt_me, i, salt) + dval(wt_me, i + 1, salt) * I;
    WT_EQ_NUM(shmem_complexd_sum_reduce(t, cd, cs, ccnt), 0, "complex sum");
    for (size_t i = 0; i < ccnt; i++) {
        for (int p = 0; p < n; p++)
            cv[p] = dval(w[p], i, salt) + dval(w[p], i + 1, salt) * I;
        double _Complex want = model_csum(cv, n);
        if (memcmp(&cd[i], &want, sizeof want))
            WT_FAIL("complex sum over %d PEs, %zu elements: element %zu differs", n, ccnt, i);
    }

    long *ls = sa, *ld = inplace ? ls : sb;
    for (size_t i = 0; i < cnt; i++)
        ls[i] = (long)(i * 31 + (size_t)wt_me * 1000003) - 500;
    WT_EQ_NUM(shmem_long_sum_reduce(t, ld, ls, cnt), 0, "long sum");
    for (size_t i = 0; i < cnt; i++) {
        long want = 0;
        for (int p = 0; p < n; p++)
            want += (long)(i * 31 + (size_t)w[p] * 1000003) - 500;
        if (ld[i] != want)
            WT_FAIL("long sum over %d PEs: element %zu is %ld, expected %ld", n, i, ld[i], want);
    }

    unsigned *us = sa, *ud = inplace ? us : sb;
    for (size_t i = 0; i < cnt; i++)
        us[i] = (unsigned)(i * 2654435761u) ^ ((unsigned)wt_me << (i % 24));
    WT_EQ_NUM(shmem_uint_xor_reduce(t, ud, us, cnt), 0, "uint xor");
    for (size_t i = 0; i < cnt; i++) {
        unsigned want = 0;
        for (int p = 0; p < n; p++)
            want ^= (unsigned)(i * 2654435761u) ^ ((unsigned)w[p] << (i % 24));
        if (ud[i] != want)
            WT_FAIL("uint xor over %d PEs: element %zu is %u, expected %u", n, i, ud[i], want);
    }
}

/* Lengths that differ per PE and per call; every third call PE 1's only. */
static size_t collect_len(int pe, int call)
{
    if (call % 5 == 4)
        return 0;
    if (call % 3 == 2)
        return pe == 1 ? 17 : 0;
    return (size_t)((pe * 7 + call * 13) % 23) * ((pe + call) % 4 == 0 ? 0 : 1) +
           (call % 2 ? 300 : 0);
}

static unsigned char cbyte(int pe, int call, size_t i)
{
    return (unsigned char)(pe * 31 + call * 7 + (int)i);
}

static void check_collects(void)
{
    int n = wt_npes;
    unsigned char *src = sa, *dst = sb;
    for (int call = 0; call < CALLS; call++) {
        WT_PHASE("collect %d", call);
        size_t mine = collect_len(wt_me, call), total = 0;
        for (size_t i = 0; i < mine; i++)
            src[i] = cbyte(wt_me, call, i);
        for (int p = 0; p < n; p++)
            total += collect_len(p, call);
        memset(dst, 0xEE, total + 16);
        WT_EQ_NUM(shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, mine), 0, "collectmem");
        if (call % n == wt_me)
            usleep(1000);
        size_t at = 0;
        for (int p = 0; p < n; p++) {
            size_t l = collect_len(p, call);
            for (size_t i = 0; i < l; i++)
                if (dst[at + i] != cbyte(p, call, i))
                    WT_FAIL("collect %d: byte %zu of PE %d's block is %u, expected %u", call, i,
                            p, dst[at + i], cbyte(p, call, i));
            at += l;
        }
        WT_CHECK_FILL(dst + total, 16, 0xEE, "past the collect");
    }
}

int main(void)
{
    wt_init("rsag");
    sa = shmem_malloc(MAXN * sizeof(double _Complex));
    sb = shmem_malloc(MAXN * sizeof(double _Complex));
    WT_CHECK(sa && sb, "allocation");
    static const size_t counts[] = {1, 127, 128, 129, 200, 1000, 3001, MAXN};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (int inplace = 0; inplace < 2; inplace++) {
            check_reductions(SHMEM_TEAM_WORLD, counts[c], inplace, (int)c);
            shmem_barrier_all();
        }
    shmem_team_t rest = SHMEM_TEAM_INVALID;
    if (wt_npes > 1)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, wt_npes - 1, NULL, 0, &rest);
    if (rest != SHMEM_TEAM_INVALID) {
        check_reductions(rest, 1000, 0, 3);
        check_reductions(rest, 129, 1, 4);
        shmem_team_destroy(rest);
    }
    shmem_barrier_all();
    WT_PHASE("reductions back to back");
    for (int r = 0; r < 12; r++)
        check_reductions(SHMEM_TEAM_WORLD, r % 2 ? 1500 : 140, r % 3 == 0, r);
    shmem_barrier_all();
    check_collects();
    shmem_barrier_all();
    shmem_free(sb);
    shmem_free(sa);
    wt_finish();
    return 0;
}

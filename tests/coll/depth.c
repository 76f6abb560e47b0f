/* SPDX-License-Identifier: BSD-3-Clause */
/* depth: what each flat collective sends and waits for per PE, counted by
 * the library itself (weftx_info_coll_counts), against the costs
 * docs/collectives.md gives: the largest count over the PEs per call of
 * barrier, broadcast, reduction, fcollect, collect and alltoall on
 * SHMEM_TEAM_WORLD, for this job's size, and exactly for the log-depth
 * ones (collect's two Bruck gathers, the reduce-scatter reduction of 32
 * longs with WEFT_COLL_REDUCE_SCATTER_MIN lowered to 64 bytes: pairwise
 * collect or recursive doubling would fail them). Then fcollects called back to
 * back with no barrier between them, every PE refilling its source and
 * dest before each call and checking dest after: no PE's dest is written
 * before it entered the call, and a block a PE still has to forward is
 * never overwritten by a later call's (one PE per round reads late).
 * argv[1] = "print": PE 0 prints one line per collective and the job ends
 * after the counts (bench/coll-depth). */
#include "weft_test.h"

#include <weft/info.h>

#define CALLS 4
#define ROUNDS 120
#define SENTINEL 0x5e5e5e5e5e5e5e5eull

static long lsrc, ldst;
static uint64_t counts_mine[2], counts_max[2];

static int log2_ceil(int n)
{
    int r = 0;
    while ((1L << r) < n)
        r++;
    return r;
}

/* The most messages and waits one PE spent per call of `what`. */
static void measure(int what, void *dst, void *src)
{
    uint64_t m0, w0, m1, w1;
    shmem_barrier_all();
    weftx_info_coll_counts(&m0, &w0);
    for (int i = 0; i < CALLS; i++) {
        switch (what) {
        case 0: shmem_team_sync(SHMEM_TEAM_WORLD); break;
        case 1: shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, 8, 0); break;
        case 2: shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &ldst, &lsrc, 1); break;
        case 3: shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, 8); break;
        case 4: shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, 8); break;
        case 6: shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)dst, (long *)src, 32); break;
        default: shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, 8); break;
        }
    }
    weftx_info_coll_counts(&m1, &w1);
    counts_mine[0] = (m1 - m0) / CALLS;
    counts_mine[1] = (w1 - w0) / CALLS;
    shmem_barrier_all();
    shmem_uint64_max_reduce(SHMEM_TEAM_WORLD, counts_max, counts_mine, 2);
}

static uint64_t value_of(int pe, int round, int i)
{
    return ((uint64_t)pe << 40) ^ ((uint64_t)round << 16) ^ (uint64_t)i ^ 0x9e3779b9ull;
}

int main(int argc, char **argv)
{
    int print = argc > 1 && !strcmp(argv[1], "print");
    setenv("WEFT_COLL_REDUCE_SCATTER_MIN", "64", 1);
    wt_init("depth");
    int n = wt_npes, L = log2_ceil(n);
    size_t words = 3;
    uint64_t *src = shmem_malloc(32 * sizeof(uint64_t));
    uint64_t *dst = shmem_malloc(((size_t)n + 32) * words * sizeof(uint64_t));
    WT_CHECK(src && dst, "allocation");
    memset(src, 0, 32 * sizeof(uint64_t));
    static const char *const names[] = {"barrier", "broadcast", "reduction", "fcollect",
                                        "collect", "alltoall"};
    /* Upper bounds on one PE's messages and waits per call, n > 1
     * (docs/collectives.md, "Depth and messages"). */
    long most_msgs[6] = {L, 1 + 2L * L, 2L * L + 2, 4L * L, 7L * L, (n - 1) + L};
    long most_waits[6] = {L, 2, L + 1, L + 1, 2L * L + 1, L};
    for (int what = 0; what < 6; what++) {
        WT_PHASE("%s: counts", names[what]);
        measure(what, dst, src);
        if (print && wt_me == 0)
            printf("DEPTH %s %d %llu %llu\n", names[what], n,
                   (unsigned long long)counts_max[0], (unsigned long long)counts_max[1]);
        if (n > 1) {
            WT_CHECK((long)counts_max[0] <= most_msgs[what], "%s: %llu messages per PE, more "
                     "than %ld", names[what], (unsigned long long)counts_max[0],
                     most_msgs[what]);
            WT_CHECK((long)counts_max[1] <= most_waits[what], "%s: %llu waits per PE, more "
                     "than %ld", names[what], (unsigned long long)counts_max[1],
                     most_waits[what]);
        } else {
            WT_EQ_NUM(counts_max[0], 0, "%s: messages at 1 PE", names[what]);
        }
    }
    /* The log-depth ones at exactly their cost. */
    if (n > 1) {
        WT_PHASE("exact counts");
        measure(0, dst, src);
        WT_EQ_NUM(counts_max[0], (uint64_t)L, "barrier messages");
        WT_EQ_NUM(counts_max[1], (uint64_t)L, "barrier waits");
        measure(3, dst, src);
        WT_EQ_NUM(counts_max[1], (uint64_t)L + 1, "fcollect waits");
        /* collect: "entered" then L rounds for the lengths, L for the data
         * (pairwise waits at most 2L: the prefix sum and the barrier). */
        measure(4, dst, src);
        WT_EQ_NUM(counts_max[1], (uint64_t)(2 * L + 1), "collect waits");
        /* Reduction of 32 longs, reduce-scatter and allgather: log2 p2
         * "entered" signals, then per round a put and a signal each way
         * and a "combined" signal (6 log2 p2 messages, 3 log2 p2 + 1
         * waits); folding adds 3 messages and a wait. (Recursive doubling
         * would send 2 log2 p2 messages and wait log2 p2 times.) */
        int p2 = 1;
        while (p2 * 2 <= n)
            p2 *= 2;
        int R = log2_ceil(p2), fold = n != p2;
        measure(6, dst, src);
        if (print && wt_me == 0)
            printf("DEPTH reduce-scatter %d %llu %llu\n", n, (unsigned long long)counts_max[0],
                   (unsigned long long)counts_max[1]);
        WT_EQ_NUM(counts_max[0], (uint64_t)(6 * R + 3 * fold),
                  "reduction (32 longs) messages");
        WT_EQ_NUM(counts_max[1], (uint64_t)(3 * R + 1 + fold),
                  "reduction (32 longs) waits");
    }

    WT_PHASE("fcollect back to back");
    for (int round = 0; round < (print ? 0 : ROUNDS); round++) {
        for (size_t i = 0; i < words; i++)
            src[i] = value_of(wt_me, round, (int)i);
        for (size_t i = 0; i < ((size_t)n + 1) * words; i++)
            dst[i] = SENTINEL;
        shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, words * sizeof(uint64_t));
        /* One PE per round is slow to read: the others run ahead into the
         * next call meanwhile. */
        if (round % n == wt_me)
            usleep(2000);
        for (int pe = 0; pe < n; pe++)
            for (size_t i = 0; i < words; i++)
                WT_CHECK(dst[(size_t)pe * words + i] == value_of(pe, round, (int)i),
                         "round %d: word %zu of PE %d's block", round, i, pe);
        for (size_t i = 0; i < words; i++)
            WT_CHECK(dst[(size_t)n * words + i] == SENTINEL, "round %d: past the blocks",
                     round);
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    wt_finish();
    return 0;
}

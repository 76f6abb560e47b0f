/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_schedule.h owns the shapes of the collective algorithms
 * (coll_engine.c): which PE a member signals, reads from or combines with
 * in each round, as pure functions of its index in the team and the team's
 * size, so that the engine runs them and tests/unit/coll_schedule.c checks
 * them against a model for every team size. Indices are team indices;
 * a broadcast's or reduction tree's are virtual ones, (index - root) mod n. */
#ifndef WEFT_API_COLL_SCHEDULE_H
#define WEFT_API_COLL_SCHEDULE_H

/* Rounds of the doubling algorithms over n members: ceil(log2 n). */
static inline int weft_sched_rounds(int n)
{
    int r = 0;
    while ((1L << r) < n)
        r++;
    return r;
}

/* Barrier (dissemination): in round r member me signals this member (and
 * hears from me - 2^r mod n). */
static inline int weft_sched_barrier_to(int me, int n, int r)
{
    return (int)((me + (1L << r)) % n);
}

/* Binomial tree rooted at virtual index 0. The children of vr are vr + m
 * for each power of two m below weft_sched_tree_limit(vr, n) with
 * vr + m < n; a child vr hears from its parent vr - lowbit(vr) on round
 * counter log2(lowbit(vr)). */
static inline long weft_sched_tree_limit(long vr, int n)
{
    return vr ? (vr & -vr) : n;
}

static inline long weft_sched_tree_parent(long vr)
{
    return vr - (vr & -vr);
}

static inline int weft_sched_tree_is_child(long vr, long m, long limit, int n)
{
    return m < limit && vr + m < n;
}

/* The largest m the children loop starts from, largest first: the
 * greatest power of two below limit (1 when limit <= 1: no child). */
static inline long weft_sched_tree_top(long limit)
{
    long top = 1;
    while (top * 2 < limit)
        top *= 2;
    return top;
}

static inline int weft_sched_tree_children(long vr, int n)
{
    long limit = weft_sched_tree_limit(vr, n);
    int children = 0;
    for (long m = 1; m < limit && vr + m < n; m <<= 1)
        children++;
    return children;
}

/* Recursive doubling: the largest power of two p2 <= n. Members p2 .. n-1
 * first fold into me - p2 and get the result back from it; members below
 * p2 combine with me ^ 2^k in round k (lower index's value first). */
static inline int weft_sched_rd_p2(int n)
{
    int p2 = 1;
    while (p2 * 2 <= n)
        p2 *= 2;
    return p2;
}

static inline int weft_sched_rd_partner(int me, int k)
{
    return me ^ (1 << k);
}

/* Scans (Hillis-Steele): in round k member me sends its running value to
 * me + 2^k and combines the one of me - 2^k (in front of its own); -1
 * where that member does not exist. */
static inline int weft_sched_scan_to(int me, int n, int k)
{
    long to = me + (1L << k);
    return to < n ? (int)to : -1;
}

static inline int weft_sched_scan_from(int me, int k)
{
    long from = me - (1L << k);
    return from >= 0 ? (int)from : -1;
}

/* Bruck gather (fcollect): before round k member me holds the 2^k blocks
 * ending at its own (me - 2^k + 1 .. me, mod n); in round k it sends the
 * last weft_sched_gather_count of them to me + 2^k, and hears from
 * me - 2^k. After ceil(log2 n) rounds every member holds all n blocks. */
static inline int weft_sched_gather_to(int me, int n, int k)
{
    return (int)((me + (1L << k)) % n);
}

static inline int weft_sched_gather_from(int me, int n, int k)
{
    return (int)(((long)me - (1L << k) % n + n) % n);
}

static inline long weft_sched_gather_count(int n, int k)
{
    long d = 1L << k;
    return d < n - d ? d : n - d;
}

/* Pairwise exchange (collect, alltoall): at step i, 1 <= i < n, member me
 * sends to me + i mod n. */
static inline int weft_sched_pairwise_to(int me, int n, int i)
{
    return (me + i) % n;
}

#endif

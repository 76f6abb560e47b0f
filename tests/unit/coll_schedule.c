/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_schedule.c (unit) checks the shapes of the collective algorithms
 * (src/api/coll_schedule.h, which coll_engine.c runs) for every team size
 * from 1 to 64 against a model that plays the rounds out: who knows whom
 * after a barrier, that a broadcast tree reaches every member once within
 * ceil(log2 n) hops with parent and child agreeing on the counter, that a
 * reduction combines every member's value exactly once in the same order
 * on every member, that scans see exactly the members before them, that
 * the Bruck gather delivers every block to every member exactly once in
 * ceil(log2 n) rounds, forwarding only blocks already held, and that the
 * pairwise exchanges send every block once. */
#include "unit.h"

#include "api/coll_schedule.h"
#include "runtime/team.h"

#define MAX_N 64

/* A reduction's value: the members combined, in the order combined. */
struct seq {
    int n;
    unsigned char pe[MAX_N * 2];
};

static struct seq cat(const struct seq *a, const struct seq *b)
{
    struct seq s = *a;
    for (int i = 0; i < b->n && s.n < (int)sizeof s.pe; i++)
        s.pe[s.n++] = b->pe[i];
    return s;
}

static struct seq one(int pe) { return (struct seq){1, {(unsigned char)pe}}; }

/* s holds first, first + 1, ..., last - 1, each once, in that order. */
static int is_range(const struct seq *s, int first, int last)
{
    if (s->n != last - first)
        return 0;
    for (int i = 0; i < s->n; i++)
        if (s->pe[i] != first + i)
            return 0;
    return 1;
}

static int log2_of(long m) { return __builtin_ctzl((unsigned long)m); }

static void barrier(int n)
{
    int rounds = weft_sched_rounds(n);
    UT_CHECK(rounds <= WEFT_TEAM_ROUNDS, "n=%d: %d rounds, %d counters", n, rounds,
             WEFT_TEAM_ROUNDS);
    uint64_t full = n == 64 ? ~0ull : (1ull << n) - 1, know[MAX_N], next[MAX_N];
    for (int i = 0; i < n; i++)
        know[i] = 1ull << i;
    for (int r = 0; r < rounds; r++) {
        int heard[MAX_N] = {0};
        memcpy(next, know, sizeof next);
        for (int i = 0; i < n; i++) {
            int to = weft_sched_barrier_to(i, n, r);
            UT_CHECK(to >= 0 && to < n && to != i, "n=%d round %d: %d signals %d", n, r, i, to);
            heard[to]++;
            next[to] |= know[i];
        }
        /* Each member waits for one signal per round. */
        for (int i = 0; i < n; i++)
            UT_CHECK(heard[i] == 1, "n=%d round %d: %d hears %d signals", n, r, i, heard[i]);
        memcpy(know, next, sizeof know);
        if (r == rounds - 2) { /* one round fewer would not do */
            int all = 1;
            for (int i = 0; i < n; i++)
                all &= know[i] == full;
            UT_CHECK(!all, "n=%d: the barrier needs fewer than %d rounds", n, rounds);
        }
    }
    /* Leaving the barrier, every member has (transitively) heard from all. */
    for (int i = 0; i < n; i++)
        UT_CHECK(know[i] == full, "n=%d: member %d leaves without hearing from all", n, i);
}

static void tree(int n)
{
    int rounds = weft_sched_rounds(n);
    for (int root = 0; root < n; root++) {
        int parent_of[MAX_N], depth[MAX_N], listed[MAX_N] = {0};
        for (long vr = 0; vr < n; vr++) {
            long limit = weft_sched_tree_limit(vr, n), top = weft_sched_tree_top(limit);
            int children = 0;
            for (long m = top; m >= 1; m >>= 1) { /* the broadcast's order */
                if (!weft_sched_tree_is_child(vr, m, limit, n))
                    continue;
                long child = vr + m;
                children++;
                listed[child]++;
                /* The parent signals counter log2(m); the child waits on
                 * log2(lowbit(child)). */
                UT_CHECK(log2_of(m) == log2_of(child & -child) && log2_of(m) < WEFT_TEAM_ROUNDS,
                         "n=%d: %ld -> %ld on counter %d", n, vr, child, log2_of(m));
            }
            int up = 0; /* the reduction's order, smallest first */
            for (long m = 1; weft_sched_tree_is_child(vr, m, limit, n); m <<= 1)
                up++;
            UT_CHECK(children == up && children == weft_sched_tree_children(vr, n),
                     "n=%d vr=%ld: %d children down, %d up, %d counted", n, vr, children, up,
                     weft_sched_tree_children(vr, n));
            parent_of[vr] = vr ? (int)weft_sched_tree_parent(vr) : -1;
        }
        depth[0] = 0;
        for (long vr = 1; vr < n; vr++) {
            int p = parent_of[vr];
            UT_CHECK(p >= 0 && p < vr, "n=%d: the parent of %ld is %d", n, vr, p);
            UT_CHECK(listed[vr] == 1, "n=%d: %ld is the child of %d parents", n, vr, listed[vr]);
            long plimit = weft_sched_tree_limit(p, n);
            UT_CHECK(weft_sched_tree_is_child(p, vr - p, plimit, n),
                     "n=%d: %ld's parent %d does not list it", n, vr, p);
            depth[vr] = p >= 0 && p < vr ? depth[p] + 1 : 0;
            UT_CHECK(depth[vr] <= rounds, "n=%d: %ld is %d hops from the root", n, vr, depth[vr]);
        }
    }

    /* The active-set reduction: up the tree, each parent appending its
     * children's partials smallest first, reaches the root with all. */
    struct seq acc[MAX_N];
    for (int i = 0; i < n; i++)
        acc[i] = one(i);
    for (long vr = n - 1; vr >= 0; vr--) { /* children have larger indices */
        long limit = weft_sched_tree_limit(vr, n);
        for (long m = 1; weft_sched_tree_is_child(vr, m, limit, n); m <<= 1)
            acc[vr] = cat(&acc[vr], &acc[vr + m]);
    }
    struct seq *root = &acc[0];
    int seen[MAX_N] = {0};
    for (int i = 0; i < root->n; i++)
        seen[root->pe[i]]++;
    for (int i = 0; i < n; i++)
        UT_CHECK(seen[i] == 1, "n=%d: the tree reduction has member %d %d times", n, i, seen[i]);
}

static void recursive_doubling(int n)
{
    int p2 = weft_sched_rd_p2(n), rounds = weft_sched_rounds(p2);
    UT_CHECK(p2 <= n && 2 * p2 > n && (p2 & (p2 - 1)) == 0, "n=%d: p2 %d", n, p2);
    UT_CHECK(rounds < WEFT_TEAM_ROUNDS, "n=%d", n);
    struct seq acc[MAX_N], next[MAX_N];
    for (int i = 0; i < n; i++)
        acc[i] = one(i);
    for (int i = p2; i < n; i++) /* fold in: the lower member's value first */
        acc[i - p2] = cat(&acc[i - p2], &acc[i]);
    for (int k = 0; k < rounds; k++) {
        for (int i = 0; i < p2; i++) {
            int q = weft_sched_rd_partner(i, k);
            UT_CHECK(q >= 0 && q < p2 && q != i && weft_sched_rd_partner(q, k) == i,
                     "n=%d round %d: %d pairs with %d", n, k, i, q);
            next[i] = i < q ? cat(&acc[i], &acc[q]) : cat(&acc[q], &acc[i]);
        }
        memcpy(acc, next, sizeof(struct seq) * (size_t)p2);
    }
    for (int i = p2; i < n; i++) /* fold out */
        acc[i] = acc[i - p2];
    /* Every member holds every value once, in one order: the same bits. */
    int seen[MAX_N] = {0};
    for (int i = 0; i < acc[0].n; i++)
        seen[acc[0].pe[i]]++;
    for (int i = 0; i < n; i++) {
        UT_CHECK(seen[i] == 1, "n=%d: the result has member %d %d times", n, i, seen[i]);
        UT_CHECK(acc[i].n == acc[0].n && !memcmp(acc[i].pe, acc[0].pe, (size_t)acc[0].n),
                 "n=%d: member %d combined in another order than member 0", n, i);
    }
}

static void scan(int n)
{
    int rounds = weft_sched_rounds(n);
    struct seq acc[MAX_N], ex[MAX_N], sent[MAX_N];
    for (int i = 0; i < n; i++) {
        acc[i] = one(i);
        ex[i].n = 0;
    }
    for (int k = 0; k < rounds; k++) {
        int heard[MAX_N] = {0};
        memcpy(sent, acc, sizeof sent); /* the value sent in round k */
        for (int i = 0; i < n; i++) {
            int to = weft_sched_scan_to(i, n, k);
            if (to >= 0) {
                UT_CHECK(to < n && weft_sched_scan_from(to, k) == i,
                         "n=%d round %d: %d sends to %d", n, k, i, to);
                heard[to]++;
            }
        }
        for (int i = 0; i < n; i++) {
            int from = weft_sched_scan_from(i, k);
            UT_EQ(heard[i], from >= 0);
            if (from < 0)
                continue;
            acc[i] = cat(&sent[from], &acc[i]);
            ex[i] = cat(&sent[from], &ex[i]);
        }
    }
    for (int i = 0; i < n; i++) {
        UT_CHECK(is_range(&acc[i], 0, i + 1), "n=%d: inclusive scan at %d", n, i);
        UT_CHECK(is_range(&ex[i], 0, i), "n=%d: exclusive scan at %d", n, i);
    }
}

static void gather(int n)
{
    /* has[m][b]: member m holds block b (its own from the start). */
    int has[MAX_N][MAX_N] = {{0}};
    for (int m = 0; m < n; m++)
        has[m][m] = 1;
    int rounds = weft_sched_rounds(n);
    for (int k = 0; k < rounds; k++) {
        int next[MAX_N][MAX_N];
        memcpy(next, has, sizeof next);
        long count = weft_sched_gather_count(n, k);
        UT_CHECK(count >= 1 && count <= (1L << k), "n=%d round %d: count %ld", n, k, count);
        for (int me = 0; me < n; me++) {
            int to = weft_sched_gather_to(me, n, k);
            UT_EQ(weft_sched_gather_from(to, n, k), me);
            for (long j = 0; j < count; j++) {
                int b = (int)(((long)me - j + n) % n);
                UT_CHECK(has[me][b], "n=%d round %d: %d forwards block %d it lacks", n, k, me, b);
                UT_CHECK(!has[to][b], "n=%d round %d: %d gets block %d twice", n, k, to, b);
                next[to][b] = 1;
            }
        }
        memcpy(has, next, sizeof next);
    }
    for (int m = 0; m < n; m++)
        for (int b = 0; b < n; b++)
            UT_CHECK(has[m][b], "n=%d: member %d lacks block %d", n, m, b);
}

static void pairwise(int n)
{
    int got[MAX_N][MAX_N] = {{0}};
    for (int i = 1; i < n; i++) {
        int hit[MAX_N] = {0};
        for (int me = 0; me < n; me++) {
            int to = weft_sched_pairwise_to(me, n, i);
            UT_CHECK(to >= 0 && to < n && to != me, "n=%d step %d: %d sends to %d", n, i, me, to);
            hit[to]++;
            got[to][me]++;
        }
        /* One sender per target per step: no member is hammered. */
        for (int t = 0; t < n; t++)
            UT_EQ(hit[t], 1);
    }
    for (int t = 0; t < n; t++)
        for (int me = 0; me < n; me++)
            UT_EQ(got[t][me], me != t);
}

int main(void)
{
    UT_EQ(weft_sched_rounds(1), 0);
    UT_EQ(weft_sched_rounds(2), 1);
    UT_EQ(weft_sched_rounds(5), 3);
    UT_EQ(weft_sched_rounds(64), 6);
    for (int n = 1; n <= MAX_N; n++) {
        barrier(n);
        tree(n);
        recursive_doubling(n);
        scan(n);
        gather(n);
        pairwise(n);
    }
    return ut_done("unit.coll_schedule");
}

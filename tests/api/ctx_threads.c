/* SPDX-License-Identifier: BSD-3-Clause */
/* ctx_threads: SHMEM_THREAD_MULTIPLE with 4 threads per PE hammering puts,
 * gets and atomics at every PE, every value checked.
 *   shmem_init_thread(MULTIPLE) must provide MULTIPLE.
 *   Three rounds, the threads of a round running at once:
 *     own      each thread its own context: PRIVATE, SERIALIZED, no option
 *              (locks under MULTIPLE), and a PRIVATE team context of a
 *              team holding every PE in reverse order (team PE i is world
 *              PE n-1-i: a wrong translation shows);
 *     default  all threads on SHMEM_CTX_DEFAULT (the shared default tx);
 *     shared   all threads on one context created without options.
 *   Each iteration a thread picks a target PE (all PEs, itself included, in
 *   turn) and:
 *     puts a block (1 to 4096 longs: inject and bulk paths; blocking or
 *       nbi) and a word with p into its own slot there, quiets its context,
 *       reads both back with get / get_nbi / g and checks every element;
 *     takes a ticket with fetch_add on a counter every thread of every PE
 *       increments, then claims the ticket with compare_swap in a table on
 *       the target: a ticket handed out twice finds its claim taken;
 *     adds to a sum (non-fetching add), and runs set, fetch, swap,
 *       compare_swap and an nbi fetch_add on a word of its own, each result
 *       checked.
 *   After each round (threads joined, a barrier) every PE checks its
 *   counter, its ticket table (every ticket claimed exactly once) and the
 *   sum against the totals it computes for all senders.
 *   argv[1]: iterations per thread and round (default 120). */
#include "weft_test.h"

#include <pthread.h>

#define NTHREADS 4
#define MAX_BLOCK 4096

static int me, npes, iters = 120;
static long *slots;   /* [npes][NTHREADS][MAX_BLOCK]: written by (src PE, thread) */
static long *words;   /* [npes][NTHREADS]: p targets */
static long *counter; /* tickets handed out on this PE */
static long *claims;  /* [max tickets]: who claimed each ticket */
static long *sum;     /* non-fetching adds */
static long *own;     /* [npes][NTHREADS]: each thread's AMO word */
static shmem_team_t reversed = SHMEM_TEAM_INVALID;
static size_t max_tickets;

static const size_t block_sizes[] = {1, 3, 8, 64, 700, MAX_BLOCK};
#define NSIZES (sizeof block_sizes / sizeof *block_sizes)

enum round { ROUND_OWN, ROUND_DEFAULT, ROUND_SHARED };
static const char *const round_names[] = {"own contexts", "default context",
                                          "one shared context"};

struct worker {
    int t;
    enum round round;
    shmem_ctx_t ctx;
    int team_ctx; /* PE numbers of ctx are in the reversed team */
    pthread_t tid;
};

static long value(int src, int t, int it, size_t i)
{
    return ((long)src << 48) ^ ((long)t << 44) ^ ((long)it << 24) ^ (long)i ^ 0x5a5a;
}

/* The target of (pe, thread, iteration): every PE in turn. */
static int target_of(int pe, int t, int it) { return (pe + t + it) % npes; }

#define TFAIL(w, it, ...)                                                                  \
    do {                                                                                   \
        char m_[384];                                                                      \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                              \
        WT_FAIL("%s, thread %d, iteration %d: %s", round_names[(w)->round], (w)->t, (it),  \
                m_);                                                                       \
    } while (0)

static void *work(void *arg)
{
    struct worker *w = arg;
    shmem_ctx_t ctx = w->ctx;
    int t = w->t;
    long *got = malloc(MAX_BLOCK * sizeof(long)), *src = malloc(MAX_BLOCK * sizeof(long));
    if (!got || !src)
        WT_FAIL("thread %d: out of memory", t);
    for (int it = 0; it < iters; it++) {
        int target = target_of(me, t, it);
        /* The PE number the context expects. */
        int pe = w->team_ctx ? npes - 1 - target : target;
        size_t n = block_sizes[(size_t)(it + t) % NSIZES];
        long *slot = slots + ((size_t)me * NTHREADS + (size_t)t) * MAX_BLOCK;
        long *word = words + (size_t)me * NTHREADS + (size_t)t;
        long *mine = own + (size_t)me * NTHREADS + (size_t)t;
        for (size_t i = 0; i < n; i++)
            src[i] = value(me, t, it, i);

        /* puts, then read back after quiet */
        if (it % 2)
            shmem_ctx_long_put_nbi(ctx, slot, src, n, pe);
        else
            shmem_ctx_long_put(ctx, slot, src, n, pe);
        shmem_ctx_long_p(ctx, word, value(me, t, it, 99999), pe);
        shmem_ctx_quiet(ctx);
        memset(got, 0, n * sizeof(long));
        if (it % 3 == 0) {
            shmem_ctx_long_get_nbi(ctx, got, slot, n, pe);
            shmem_ctx_quiet(ctx);
        } else {
            shmem_ctx_long_get(ctx, got, slot, n, pe);
        }
        for (size_t i = 0; i < n; i++)
            if (got[i] != src[i])
                TFAIL(w, it, "read back element %zu of %zu put to PE %d: got %#lx, expected "
                      "%#lx", i, n, target, got[i], src[i]);
        long g = shmem_ctx_long_g(ctx, word, pe);
        if (g != value(me, t, it, 99999))
            TFAIL(w, it, "shmem_ctx_long_g of the word put with p to PE %d: got %#lx, "
                  "expected %#lx", target, g, value(me, t, it, 99999));

        /* a ticket, claimed once */
        long ticket = shmem_ctx_long_atomic_fetch_add(ctx, counter, 1, pe);
        if (ticket < 0 || (size_t)ticket >= max_tickets)
            TFAIL(w, it, "ticket %ld from PE %d outside [0, %zu)", ticket, target, max_tickets);
        long tag = ((long)me << 20) + ((long)t << 16) + 1;
        long prev = shmem_ctx_long_atomic_compare_swap(ctx, &claims[ticket], 0, tag, pe);
        if (prev != 0)
            TFAIL(w, it, "ticket %ld of PE %d handed out twice: already claimed by PE %ld "
                  "thread %ld", ticket, target, (prev - 1) >> 20, ((prev - 1) >> 16) & 15);
        shmem_ctx_long_atomic_add(ctx, sum, it + 1, pe);

        /* a word of its own: set, fetch, swap, compare_swap, nbi fetch_add */
        long a = value(me, t, it, 1), b = value(me, t, it, 2), c = value(me, t, it, 3);
        shmem_ctx_long_atomic_set(ctx, mine, a, pe);
        shmem_ctx_quiet(ctx);
        long f = shmem_ctx_long_atomic_fetch(ctx, mine, pe);
        if (f != a)
            TFAIL(w, it, "fetch after set and quiet at PE %d: %#lx, expected %#lx", target, f, a);
        f = shmem_ctx_long_atomic_swap(ctx, mine, b, pe);
        if (f != a)
            TFAIL(w, it, "swap at PE %d returned %#lx, expected %#lx", target, f, a);
        f = shmem_ctx_long_atomic_compare_swap(ctx, mine, b, c, pe);
        if (f != b)
            TFAIL(w, it, "compare_swap at PE %d returned %#lx, expected %#lx", target, f, b);
        long fetched = -1;
        shmem_ctx_long_atomic_fetch_add_nbi(ctx, &fetched, mine, 5, pe);
        shmem_ctx_quiet(ctx);
        if (fetched != c)
            TFAIL(w, it, "fetch_add_nbi at PE %d: after quiet the result is %#lx, expected "
                  "%#lx", target, fetched, c);
        f = shmem_ctx_long_atomic_fetch(ctx, mine, pe);
        if (f != c + 5)
            TFAIL(w, it, "fetch after fetch_add_nbi at PE %d: %#lx, expected %#lx", target, f,
                  c + 5);
    }
    shmem_ctx_quiet(ctx);
    free(got);
    free(src);
    return NULL;
}

/* Every PE knows what each sender did to it: tickets and the sum. */
static void expected_totals(long *tickets, long *total)
{
    *tickets = *total = 0;
    for (int pe = 0; pe < npes; pe++)
        for (int t = 0; t < NTHREADS; t++)
            for (int it = 0; it < iters; it++)
                if (target_of(pe, t, it) == me) {
                    ++*tickets;
                    *total += it + 1;
                }
}

static void run_round(enum round round)
{
    WT_PHASE("%s: set up", round_names[round]);
    *counter = 0;
    *sum = 0;
    memset(claims, 0, max_tickets * sizeof(long));
    shmem_barrier_all();
    struct worker w[NTHREADS];
    shmem_ctx_t shared = SHMEM_CTX_INVALID;
    if (round == ROUND_SHARED)
        WT_CHECK(shmem_ctx_create(0, &shared) == 0, "shmem_ctx_create(0) for the shared round");
    static const long options[NTHREADS] = {SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, 0,
                                           SHMEM_CTX_PRIVATE};
    for (int t = 0; t < NTHREADS; t++) {
        w[t].t = t;
        w[t].round = round;
        w[t].team_ctx = 0;
        if (round == ROUND_DEFAULT) {
            w[t].ctx = SHMEM_CTX_DEFAULT;
        } else if (round == ROUND_SHARED) {
            w[t].ctx = shared;
        } else if (t == NTHREADS - 1) {
            WT_CHECK(shmem_team_create_ctx(reversed, options[t], &w[t].ctx) == 0,
                     "shmem_team_create_ctx(reversed team, PRIVATE)");
            shmem_team_t back = SHMEM_TEAM_INVALID;
            WT_CHECK(shmem_ctx_get_team(w[t].ctx, &back) == 0 && back == reversed,
                     "shmem_ctx_get_team of the team context");
            w[t].team_ctx = 1;
        } else {
            WT_CHECK(shmem_ctx_create(options[t], &w[t].ctx) == 0,
                     "shmem_ctx_create(%ld)", options[t]);
        }
    }
    WT_PHASE("%s: %d threads x %d iterations", round_names[round], NTHREADS, iters);
    for (int t = 0; t < NTHREADS; t++)
        WT_CHECK(pthread_create(&w[t].tid, NULL, work, &w[t]) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(w[t].tid, NULL);
    for (int t = 0; t < NTHREADS; t++)
        if (round == ROUND_OWN)
            shmem_ctx_destroy(w[t].ctx);
    if (round == ROUND_SHARED)
        shmem_ctx_destroy(shared);
    shmem_barrier_all();

    WT_PHASE("%s: totals", round_names[round]);
    long tickets, total;
    expected_totals(&tickets, &total);
    WT_EQ_NUM(*counter, tickets, "%s: tickets handed out by PE %d", round_names[round], me);
    WT_EQ_NUM(*sum, total, "%s: sum of the non-fetching adds at PE %d", round_names[round], me);
    for (long k = 0; k < tickets; k++)
        WT_CHECK(claims[k] != 0, "%s: ticket %ld of PE %d was never claimed", round_names[round],
                 k, me);
    for (size_t k = (size_t)tickets; k < max_tickets; k++)
        WT_CHECK(claims[k] == 0, "%s: ticket %zu of PE %d claimed but never handed out",
                 round_names[round], k, me);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        iters = atoi(argv[1]);
    wt_setup("ctx_threads");
    WT_PHASE("shmem_init_thread(SHMEM_THREAD_MULTIPLE)");
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    wt_identify();
    me = wt_me;
    npes = wt_npes;
    WT_EQ_NUM(rc, 0, "shmem_init_thread return value");
    WT_EQ_NUM(provided, SHMEM_THREAD_MULTIPLE, "provided thread level");

    max_tickets = (size_t)npes * NTHREADS * (size_t)iters;
    slots = shmem_calloc((size_t)npes * NTHREADS * MAX_BLOCK, sizeof(long));
    words = shmem_calloc((size_t)npes * NTHREADS, sizeof(long));
    own = shmem_calloc((size_t)npes * NTHREADS, sizeof(long));
    claims = shmem_calloc(max_tickets, sizeof(long));
    counter = shmem_calloc(1, sizeof(long));
    sum = shmem_calloc(1, sizeof(long));
    WT_CHECK(slots && words && own && claims && counter && sum, "symmetric allocation");
    /* Every PE in reverse order (a negative stride, OpenSHMEM 1.6). */
    WT_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0,
                                      &reversed) == 0 &&
                 reversed != SHMEM_TEAM_INVALID,
             "shmem_team_split_strided(world, start %d, stride -1)", npes - 1);
    WT_EQ_NUM(shmem_team_translate_pe(reversed, 0, SHMEM_TEAM_WORLD), npes - 1,
              "world PE of the reversed team's PE 0");
    for (int r = ROUND_OWN; r <= ROUND_SHARED; r++)
        run_round((enum round)r);
    shmem_team_destroy(reversed);
    wt_finish();
    return 0;
}

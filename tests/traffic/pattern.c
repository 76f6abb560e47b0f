/* SPDX-License-Identifier: BSD-3-Clause */
/* pattern.c: a known communication pattern for the traffic recorder
 * (docs/traffic.md), run with the recorder loaded (oshrun --traffic, or
 * WEFT_TRAFFIC + LD_PRELOAD). Each PE makes puts, gets, AMOs, signals and
 * collectives of known sizes to known PEs, through typed, sized, mem,
 * generic, deprecated, nbi, context and team-context forms, notes next to
 * each call what the report must show for it, and waits a known number of
 * times. Then, with recording paused (shmem_pcontrol(0): traffic that must
 * not appear), PE 0 collects every PE's notes; after shmem_finalize, when
 * the recorder has written the report, PE 0 reads <report>.json back and
 * checks every cell of the PE x PE matrix (operations and bytes, by kind),
 * the calls per kind and the waits per kind of every PE, exactly.
 * --threads: initialized with SHMEM_THREAD_MULTIPLE, and 4 threads also put
 * at once (the recorder then counts atomically; none may be lost). */
#include "weft_test.h"

#include <json.h>
#include <pthread.h>

enum { PUT, GET, AMO, SIGNAL, COLL, NKINDS };
enum { WAIT, BARRIER, QUIET, COLLWAIT, NWAITS };
static const char *const kind_names[NKINDS] = {"put", "get", "amo", "signal", "collective"};
static const char *const wait_names[NWAITS] = {"wait", "barrier", "quiet", "collective"};

/* What this PE expects the report to say about it: operations and bytes
 * to each world PE by kind, calls by kind, waits by kind. */
static uint64_t *ex_ops, *ex_bytes, ex_calls[NKINDS], ex_waits[NWAITS];

/* One operation sent to world PE `to`. */
static void sent(int to, int kind, uint64_t bytes)
{
    ex_ops[to * NKINDS + kind]++;
    ex_bytes[to * NKINDS + kind] += bytes;
    ex_calls[kind]++;
}

/* A collective call that sends `bytes` to each of `to[0..n)`. */
static void sent_coll(const int *to, int n, uint64_t bytes)
{
    for (int i = 0; i < n; i++) {
        ex_ops[to[i] * NKINDS + COLL]++;
        ex_bytes[to[i] * NKINDS + COLL] += bytes;
    }
    ex_calls[COLL]++;
    ex_waits[COLLWAIT]++;
}

static char buf[8192], src[8192];
static int ibuf[16], isrc[16], ival, ival2;
static long lbuf[16], lsrc[16], lred[8], counter, counter2;
static float fbuf[8], fsrc[8];
static double dval;
static short sbuf[16], ssrc[16];
static uint64_t u64buf[4], u64src[4], sig;
static unsigned int uval;
static long bsrc64[4], bdst64[4];
static long psync[SHMEM_BCAST_SYNC_SIZE];

static void barrier(void)
{
    shmem_barrier_all();
    ex_waits[BARRIER]++;
}

static void quiet(void)
{
    shmem_quiet();
    ex_waits[QUIET]++;
}

#define THREADS 4
#define THREAD_PUTS 50000
static int thread_target;

static void *thread_puts(void *arg)
{
    (void)arg;
    for (int i = 0; i < THREAD_PUTS; i++)
        shmem_putmem(buf, src, 8, thread_target);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 && !strcmp(argv[1], "--threads");
    if (threads) {
        wt_setup("traffic_pattern --threads");
        int provided = -1;
        WT_CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread failed");
        wt_identify();
        WT_CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    } else {
        wt_init("traffic_pattern");
    }
    const int me = wt_me, n = wt_npes;
    const int right = (me + 1) % n, left = (me + n - 1) % n, across = (me + 2) % n;
    const char *report = getenv("WEFT_TRAFFIC");
    /* traffic.unset expects the recorder's warning, which PE 0 prints as
     * its shmem_init returns: every PE waits for it before failing, or
     * another PE's abort can end the job first (seen once in the ASan
     * build). Only then, so that recorded runs see no extra barrier. */
    if (!report || !*report)
        shmem_barrier_all();
    WT_CHECK(report && *report, "WEFT_TRAFFIC is not set: run under oshrun --traffic");
    char stem[4096], json_path[4200];
    snprintf(stem, sizeof stem, "%s", report);
    char *dot = strrchr(stem, '.');
    if (dot && (!strcmp(dot, ".html") || !strcmp(dot, ".json")))
        *dot = '\0';
    snprintf(json_path, sizeof json_path, "%s.json", stem);
    if (me == 0) { /* a report left by an earlier run must not pass for this one's */
        char html_path[4200];
        snprintf(html_path, sizeof html_path, "%s.html", stem);
        unlink(json_path);
        unlink(html_path);
    }
    ex_ops = calloc((size_t)n * NKINDS, sizeof *ex_ops);
    ex_bytes = calloc((size_t)n * NKINDS, sizeof *ex_bytes);
    WT_CHECK(ex_ops && ex_bytes, "out of memory");
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    barrier();

    WT_PHASE("puts");
    for (int i = 0; i < 3; i++) {
        shmem_putmem(buf, src, 1000, right);
        sent(right, PUT, 1000);
    }
    shmem_int_put(ibuf, isrc, 10, right);
    sent(right, PUT, 10 * sizeof(int));
    shmem_long_put_nbi(lbuf, lsrc, 5, across);
    sent(across, PUT, 5 * sizeof(long));
    shmem_put(fbuf, fsrc, 6, left); /* C11 generic: shmem_float_put */
    sent(left, PUT, 6 * sizeof(float));
    shmem_double_p(&dval, 1.5, me);
    sent(me, PUT, sizeof(double));
    shmem_int_iput(ibuf, isrc, 2, 1, 4, right);
    sent(right, PUT, 4 * sizeof(int));
    shmem_short_ibput(sbuf, ssrc, 4, 2, 2, 3, left);
    sent(left, PUT, 2 * 3 * sizeof(short));
    shmem_put64_nbi(u64buf, u64src, 3, right);
    sent(right, PUT, 3 * 8);
    if (threads) {
        pthread_t t[THREADS];
        thread_target = right;
        for (int i = 0; i < THREADS; i++)
            WT_CHECK(pthread_create(&t[i], NULL, thread_puts, NULL) == 0, "pthread_create");
        for (int i = 0; i < THREADS; i++)
            pthread_join(t[i], NULL);
        for (int i = 0; i < THREADS * THREAD_PUTS; i++)
            sent(right, PUT, 8);
    }
    shmem_fence();
    ex_waits[QUIET]++;
    quiet();

    WT_PHASE("gets");
    char local[512];
    shmem_getmem(local, buf, 256, across);
    sent(across, GET, 256);
    for (int i = 0; i < 2; i++) {
        long v = shmem_long_g(&lbuf[0], left);
        (void)v;
        sent(left, GET, sizeof(long));
    }
    int ilocal[8];
    shmem_int_get_nbi(ilocal, ibuf, 7, right);
    sent(right, GET, 7 * sizeof(int));
    quiet();
    barrier();

    WT_PHASE("atomics");
    for (int i = 0; i <= me; i++) {
        shmem_long_atomic_fetch_add(&counter, 1, 0);
        sent(0, AMO, sizeof(long));
    }
    shmem_long_fadd(&counter, 1, 0); /* deprecated name: its own routine to a tool */
    sent(0, AMO, sizeof(long));
    shmem_int_atomic_compare_swap(&ival, 0, 1, right);
    sent(right, AMO, sizeof(int));
    shmem_uint_atomic_xor(&uval, 1u, left);
    sent(left, AMO, sizeof(unsigned int));

    WT_PHASE("contexts");
    shmem_ctx_t ctx;
    WT_CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
    shmem_ctx_long_atomic_inc(ctx, &counter2, right);
    sent(right, AMO, sizeof(long));
    shmem_ctx_putmem_nbi(ctx, buf, src, 100, across);
    sent(across, PUT, 100);
    shmem_ctx_quiet(ctx);
    ex_waits[QUIET]++;
    shmem_ctx_destroy(ctx);
    /* A context of the even PEs' team: its PE numbers are the team's, and
     * the report must name world PEs. */
    shmem_team_t evens;
    int nevens = (n + 1) / 2;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nevens, NULL, 0, &evens);
    if (evens != SHMEM_TEAM_INVALID) {
        shmem_ctx_t tctx;
        WT_CHECK(shmem_team_create_ctx(evens, 0, &tctx) == 0, "shmem_team_create_ctx failed");
        int t = shmem_team_my_pe(evens), next = (t + 1) % nevens;
        shmem_ctx_int_p(tctx, &ival2, 7, next);
        sent(2 * next, PUT, sizeof(int));
        shmem_ctx_quiet(tctx);
        ex_waits[QUIET]++;
        shmem_ctx_destroy(tctx);
        shmem_team_destroy(evens);
    }
    barrier();

    WT_PHASE("signals and waits");
    shmem_putmem_signal(buf, src, 64, &sig, 1, SHMEM_SIGNAL_ADD, right);
    sent(right, SIGNAL, 64 + 8);
    shmem_signal_add(&sig, 1, left);
    sent(left, SIGNAL, 8);
    shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 2);
    ex_waits[WAIT]++;
    shmem_int_wait_until(&ival, SHMEM_CMP_EQ, 1); /* the left neighbour's compare-swap */
    ex_waits[WAIT]++;
    barrier();

    WT_PHASE("collectives");
    int others[4096], nothers = 0;
    for (int pe = 0; pe < n; pe++)
        if (pe != me)
            others[nothers++] = pe;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, lred, lsrc, 8);
    sent_coll(others, nothers, 8 * sizeof(long));
    int root = 1 % n;
    shmem_broadcastmem(SHMEM_TEAM_WORLD, buf, src, 100, root);
    sent_coll(others, me == root ? nothers : 0, 100);
    shmem_broadcast64(bdst64, bsrc64, 4, 0, 0, 0, n, psync); /* active set: all PEs */
    sent_coll(others, me == 0 ? nothers : 0, 4 * 8);
    barrier();

    WT_PHASE("paused");
    shmem_pcontrol(0); /* nothing from here to shmem_pcontrol(1) may be recorded */
    for (int i = 0; i < 5; i++)
        shmem_putmem(buf, src, 5000, right);
    shmem_quiet();
    /* Every PE's notes to PE 0 (themselves unrecorded). */
    size_t row = (size_t)(NKINDS + NWAITS + 2 * n * NKINDS);
    uint64_t *all = shmem_calloc((size_t)n * row, sizeof *all);
    WT_CHECK(all, "shmem_calloc of the notes failed");
    uint64_t *mine = calloc(row, sizeof *mine);
    WT_CHECK(mine, "out of memory");
    memcpy(mine, ex_calls, sizeof ex_calls);
    memcpy(mine + NKINDS, ex_waits, sizeof ex_waits);
    memcpy(mine + NKINDS + NWAITS, ex_ops, (size_t)n * NKINDS * sizeof *ex_ops);
    memcpy(mine + NKINDS + NWAITS + n * NKINDS, ex_bytes, (size_t)n * NKINDS * sizeof *ex_bytes);
    shmem_putmem(all + (size_t)me * row, mine, row * sizeof *mine, 0);
    shmem_barrier_all();
    uint64_t *notes = NULL;
    if (me == 0) {
        notes = malloc((size_t)n * row * sizeof *notes);
        WT_CHECK(notes, "out of memory");
        memcpy(notes, all, (size_t)n * row * sizeof *notes);
    }
    shmem_barrier_all();
    shmem_free(all);
    free(mine);
    free(ex_ops);
    free(ex_bytes);
    shmem_pcontrol(1);

    wt_finish(); /* one more barrier, then shmem_finalize writes the report */
    if (me != 0)
        return 0;

    /* ---- PE 0: the report against the notes ---- */
    struct tr_data d;
    char err[512];
    if (tr_data_load(json_path, &d, err, sizeof err) != 0) {
        fprintf(stderr, "FAIL [traffic_pattern] %s\n", err);
        free(notes);
        return 1;
    }
    int bad = 0, checked = 0;
#define MISMATCH(...)                                                                    \
    do {                                                                                 \
        if (bad++ < 20)                                                                  \
            fprintf(stderr, "FAIL [traffic_pattern] " __VA_ARGS__);                      \
    } while (0)
    if (d.npes != n)
        MISMATCH("npes %d, expected %d\n", d.npes, n);
    int k_of[NKINDS], w_of[NWAITS];
    for (int k = 0; k < NKINDS; k++)
        if ((k_of[k] = tr_data_kind(&d, kind_names[k])) < 0)
            MISMATCH("kind %s missing from the report\n", kind_names[k]);
    for (int w = 0; w < NWAITS; w++) {
        w_of[w] = -1;
        for (int x = 0; x < d.nwaits; x++)
            if (!strcmp(d.wait_kinds[x], wait_names[w]))
                w_of[w] = x;
        if (w_of[w] < 0)
            MISMATCH("wait kind %s missing from the report\n", wait_names[w]);
    }
    if (bad) {
        tr_data_free(&d);
        free(notes);
        return 1;
    }
    for (int from = 0; from < n; from++) {
        const uint64_t *nrow = notes + (size_t)from * row;
        const uint64_t *eops = nrow + NKINDS + NWAITS, *ebytes = eops + n * NKINDS;
        for (int to = 0; to < n; to++)
            for (int k = 0; k < NKINDS; k++) {
                size_t at = ((size_t)from * (size_t)n + (size_t)to) * (size_t)d.nkinds +
                            (size_t)k_of[k];
                if (d.ops[at] != eops[to * NKINDS + k] || d.bytes[at] != ebytes[to * NKINDS + k])
                    MISMATCH("PE %d -> PE %d, %s: %llu ops, %llu bytes in the report; "
                             "expected %llu ops, %llu bytes\n",
                             from, to, kind_names[k], (unsigned long long)d.ops[at],
                             (unsigned long long)d.bytes[at],
                             (unsigned long long)eops[to * NKINDS + k],
                             (unsigned long long)ebytes[to * NKINDS + k]);
                checked++;
            }
        for (int k = 0; k < NKINDS; k++) {
            uint64_t got = d.calls[(size_t)from * (size_t)d.nkinds + (size_t)k_of[k]];
            if (got != nrow[k])
                MISMATCH("PE %d: %llu %s calls in the report, expected %llu\n", from,
                         (unsigned long long)got, kind_names[k], (unsigned long long)nrow[k]);
        }
        for (int w = 0; w < NWAITS; w++) {
            size_t at = (size_t)from * (size_t)d.nwaits + (size_t)w_of[w];
            /* The final barrier of wt_finish is recorded too. */
            uint64_t want = nrow[NKINDS + w] + (w == BARRIER);
            if (d.wait_calls[at] != want)
                MISMATCH("PE %d: %llu %s waits in the report, expected %llu\n", from,
                         (unsigned long long)d.wait_calls[at], wait_names[w],
                         (unsigned long long)want);
            if (want && d.wait_ns[at] == 0)
                MISMATCH("PE %d: %llu %s waits took 0 ns\n", from, (unsigned long long)want,
                         wait_names[w]);
        }
        if (d.elapsed_ns[from] == 0 || !d.hosts[from] || !d.hosts[from][0])
            MISMATCH("PE %d: no elapsed time or host\n", from);
    }
    tr_data_free(&d);
    free(notes);
    if (bad) {
        fprintf(stderr, "FAIL [traffic_pattern] %d mismatches in %s\n", bad, json_path);
        return 1;
    }
    printf("traffic report checked: %d cells x %d kinds as expected, calls and waits of %d PEs\n",
           n * n, NKINDS, n);
    return 0;
}

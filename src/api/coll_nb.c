/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_nb.c owns the non-blocking team collectives' three paths and their
 * requests: the direct path, where every member of the team maps every
 * other's memory and no thread is needed (below); the issuing path, where
 * libfabric reaches a member and a collective of one round is issued
 * whole at the start (see "the issuing path"; a reduction is an allgather
 * into receive areas, reduced locally at completion, and a collect sends
 * each block's length and head there, gathered into dest at completion);
 * and the engine, a queue
 * the application thread posts to and a thread that runs it, in the order
 * they were posted, with the same algorithms as the blocking collectives
 * (coll_engine.c) through a context of its own; shmem_req_test and
 * shmem_req_wait complete them (a waiter whose request the engine has not
 * started runs the queue up to it itself: run_here).
 *
 * The direct path: a PE that starts collective k of the team (its
 * sequence number on the team, s = k mod WEFT_NB_RING) first writes its
 * own share into every member's dest through the mapping (broadcast's
 * root, fcollect, alltoall(s): the entry rule makes every dest writable as
 * soon as any member starts), then adds 1 to the "entered" word s of team
 * index 0. The PE whose add completes the count knows every member is
 * inside: it moves what needs every member's source or length (collect,
 * reductions: every source is ready, the draft's rule keeps it untouched
 * until completion), then raises the "done" word s of every member. The
 * others compute meanwhile: no thread, no system call, nothing to hand
 * over, and the request is complete on every PE as soon as the last one
 * has started it. Ordering: each start adds to "entered" with release and
 * the last one's add acquires (the adds form one release sequence), so it
 * sees every push and source; its release stores of "done" order all of
 * it before every member's acquire load in shmem_req_test. Every word only
 * grows, so ring entry s serves k, k + WEFT_NB_RING, ...: a PE starting k
 * first waits until k - WEFT_NB_RING is complete here, which needs every
 * member to have entered it, so the count of "entered" s is exactly what
 * k's arrivals add to. A blocking collective need not wait for these: they
 * use none of the team's other counters.
 *
 * Why a thread where neither can run: a collective through libfabric
 * with several rounds (a reduction too large for the receive areas, any
 * collect or reduction of a team whose scratch slot has none) is a chain
 * of rounds,
 * each waiting for a peer's signal, and the application computes between
 * starting it and waiting for it. A
 * thread that sleeps while nothing is queued and runs every round as soon
 * as its signal lands makes the collective advance over manual-progress
 * providers (its waits drive the endpoint's progress) without the
 * application calling into weft. The engine needs a transport that two threads may
 * drive at once (every PE direct, or an FI_THREAD_SAFE domain); without
 * one, each collective runs to completion when it is posted.
 *
 * Ordering: the engine runs the PE's non-blocking collectives one after
 * the other in posting order, so on a team they follow the order every PE
 * started them in (the draft's rule), and the team's counters stay in
 * step. A blocking collective on a team first waits for that team's queued
 * ones (weft_coll_nb_drain): the team's counters are one sequence.
 *
 * A program that leaves without shmem_finalize: at exit(0) the engine
 * first completes what is queued, as shmem_finalize would, so the implicit
 * finalize never tears down what it still uses; at a non-zero exit the job
 * is ending, and the engine parks at its next wait before the exit handler
 * abandons the transport under it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "api/coll_nb.h"
#include "api/coll_schedule.h"
#include "core/cpu_relax.h"
#include "core/tunables.h"
#include "runtime/lifecycle.h"
#include "weft/info.h"

/* The engine's waits: polls spun before the first nap (weft_poll_nap's
 * doubling naps follow; the engine's timer slack is 1 us, so short naps
 * are short). */
#define ENGINE_SPINS 64
#define ENGINE_SPINS_OFI 4

struct weft_req {
    struct weft_req *next;  /* in the queue */
    struct weft_nb_op op;
    int done;               /* 1 once the engine finished it (release) */
    int direct;             /* run by the direct path: see direct_done */
    int issued;             /* run by the issuing path: see issue_done */
    uint64_t seq;           /* the direct or issuing path's sequence number on the team */
    uint64_t want;          /* the issuing path: arrivals its counter reaches */
    int pieces;             /* the issuing path's reductions: sequence numbers seq, ... */
    struct weft_nb_piece piece[WEFT_NB_RING]; /* ... and what each received */
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work;     /* the engine: something queued, or stop */
    pthread_cond_t finished; /* waiters: a request completed */
    struct weft_req *head, *tail;
    int waiters;
    int stopping;
    int mode;                /* 0 undecided, 1 engine thread, 2 inline */
    int running;             /* a thread is running queued collectives */
    int abandon;             /* a non-zero exit: park at the next wait */
    int parked;
    pid_t pid;               /* the process the thread runs in (not a fork child) */
    pthread_t thread;
    struct weft_ctx ctx;     /* the engine's puts and signals */
} eng = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .work = PTHREAD_COND_INITIALIZER,
    .finished = PTHREAD_COND_INITIALIZER,
};

#define MODE_THREAD 1
#define MODE_INLINE 2

static void run(const struct weft_nb_op *op, struct weft_ctx *ctx)
{
    struct weft_coll c;
    weft_coll_team_session(&c, op->call, op->team, ctx);
    c.engine = ctx != &weft_ctx_default;
    switch (op->kind) {
    case WEFT_NB_SYNC:
        weft_coll_barrier(&c);
        break;
    case WEFT_NB_BCAST:
        weft_coll_bcast(&c, op->dest, op->source, op->len, op->root,
                        WEFT_BCAST_ROOT_COPIES | WEFT_BCAST_WAIT_READY);
        break;
    case WEFT_NB_COLLECT:
        weft_coll_collect(&c, op->dest, op->source, op->len);
        break;
    case WEFT_NB_FCOLLECT:
        weft_coll_fcollect(&c, op->dest, op->source, op->len);
        break;
    case WEFT_NB_ALLTOALL:
        weft_coll_alltoall(&c, op->dest, op->source, op->len);
        break;
    case WEFT_NB_ALLTOALLS:
        weft_coll_alltoalls(&c, op->dest, op->source, op->dst, op->sst, op->esz, op->len);
        break;
    case WEFT_NB_REDUCE:
        weft_coll_allreduce(&c, op->dest, op->source, op->len, op->esz, op->red);
        break;
    }
}

/* Marks r done and wakes whoever waits for it or for its team. */
static void complete(struct weft_req *r)
{
    struct weft_team *team = r->op.team;
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&team->nb_done, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&eng.lock);
    if (eng.waiters)
        pthread_cond_broadcast(&eng.finished);
    pthread_mutex_unlock(&eng.lock);
}

static unsigned long engine_naps; /* the engine thread's, for WEFT_DEBUG */

/* The engine, told to stop for a non-zero exit: it never returns. */
static void park_if_abandoned(void)
{
    if (!__atomic_load_n(&eng.abandon, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&eng.parked, 1, __ATOMIC_RELEASE);
    for (;;)
        pause();
}

void weft_coll_engine_pause(struct weft_ctx *ctx, unsigned *spins)
{
    park_if_abandoned();
    /* The engine never yields its core in a loop: the application thread
     * computes beside it, and on a host whose cores its PEs fill a yield
     * comes straight back, so a yielding engine takes half of a core from
     * the computation for as long as it waits. It spins briefly, then naps
     * with a doubling length; progress of its own endpoint (and, through
     * libfabric, of the PE's, which answers peers' requests) comes after
     * each pause, right before the caller looks again. */
    unsigned s = ++*spins;
    unsigned spin_max = weft_transport_all_direct() ? ENGINE_SPINS : ENGINE_SPINS_OFI;
    if (s <= spin_max) {
        weft_cpu_relax();
        weft_transport_progress_ctx(ctx);
        return;
    }
    unsigned k = s - spin_max;
    engine_naps++;
    /* Where the PE's completion queue has a descriptor (tcp on a full
     * host), the nap ends as soon as a peer's write or signal arrives, and
     * costs one system call instead of a sleep and a poll of every socket. */
    if (!weft_transport_can_block() || weft_transport_block(weft_poll_nap_ns(k), NULL, 0) < 0)
        weft_poll_nap(k);
    weft_transport_progress_ctx(ctx);
    if ((k & 15) == 0)
        weft_wait_slow(s); /* finalized peers, the hang report */
}

/* The oldest queued request, taken off the queue (eng.lock held); NULL
 * when the queue is empty. */
static struct weft_req *pop_locked(void)
{
    struct weft_req *r = eng.head;
    if (r) {
        eng.head = r->next;
        if (!eng.head)
            eng.tail = NULL;
    }
    return r;
}

static void *engine_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    weft_poll_thread_naps(); /* its quiets and retries too */
    unsigned long ran = 0;
    pthread_mutex_lock(&eng.lock);
    for (;;) {
        while ((!eng.head || eng.running) && !eng.stopping && !eng.abandon)
            pthread_cond_wait(&eng.work, &eng.lock);
        if (eng.abandon) {
            pthread_mutex_unlock(&eng.lock);
            park_if_abandoned();
        }
        if (eng.running) { /* stopping, while a waiter runs the queue */
            pthread_cond_wait(&eng.work, &eng.lock);
            continue;
        }
        struct weft_req *r = pop_locked();
        if (!r)
            break;
        eng.running = 1;
        pthread_mutex_unlock(&eng.lock);
        run(&r->op, &eng.ctx);
        complete(r);
        ran++;
        pthread_mutex_lock(&eng.lock);
        eng.running = 0;
    }
    pthread_mutex_unlock(&eng.lock);
    if (weft_debug_enabled && ran) {
        /* What the engine took from the PE's cores (the application
         * thread computes beside it). */
        struct rusage ru;
        getrusage(RUSAGE_THREAD, &ru);
        double cpu_us = 1e6 * (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                        (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
        uint64_t messages, waits;
        weftx_info_coll_counts(&messages, &waits);
        weft_debug("engine: %lu collectives, %.1f ms of CPU; each %.1f us, %.1f messages, %.1f "
                   "waits, %.1f naps", ran, cpu_us / 1e3, cpu_us / (double)ran,
                   (double)messages / (double)ran, (double)waits / (double)ran,
                   (double)engine_naps / (double)ran);
    }
    weft_transport_quiet(&eng.ctx);
    weft_coll_free_buffers();
    return NULL;
}

/* Before the runtime's own exit handler (registered earlier, so run
 * later): see the top of this file. */
static void engine_at_exit(int status, void *arg)
{
    (void)arg;
    if (eng.mode != MODE_THREAD || getpid() != eng.pid)
        return;
    if (status == 0) {
        weft_coll_nb_fini();
        return;
    }
    pthread_mutex_lock(&eng.lock);
    __atomic_store_n(&eng.abandon, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&eng.work);
    pthread_mutex_unlock(&eng.lock);
    /* It parks within a poll; one inside a blocking transport call gets a
     * second, then the exit goes on without it. */
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 1000 && !__atomic_load_n(&eng.parked, __ATOMIC_ACQUIRE); i++)
        nanosleep(&ms, NULL);
}

static void start_engine(const char *call)
{
    static int exit_hook;
    if (!weft_transport_threads_safe() || weft_transport_ctx_open_thread(&eng.ctx) != 0) {
        weft_debug("%s: no transport a second thread can drive (a thread-safe domain and an "
                   "endpoint of its own): non-blocking collectives complete when they are "
                   "posted", call);
        eng.mode = MODE_INLINE;
        return;
    }
    int rc = pthread_create(&eng.thread, NULL, engine_main, NULL);
    if (rc)
        weft_fatal(call, "cannot start the thread of the non-blocking collectives: %s",
                   strerror(rc));
    eng.mode = MODE_THREAD;
    eng.pid = getpid();
    if (!exit_hook) {
        on_exit(engine_at_exit, NULL);
        exit_hook = 1;
    }
    weft_debug("%s: non-blocking collectives run on an engine thread", call);
}


/* ---- the direct path ------------------------------------------------------ */

#define PATH_AUTO 0
#define PATH_DIRECT 1
#define PATH_ENGINE 2
/* Where the path is auto, the largest team whose collects and reductions
 * take it: the last member to start moves every member's share, which
 * the blocking algorithms spread over all of them (on a host with a core
 * per PE a large team is better served by the engine). */
#define DIRECT_AUTO_MAX 16

static int nb_path = -1;

/* Word idx of team member i's scratch slot, through the mapping. */
static uint64_t *member_word(const struct weft_team *t, int i, int idx)
{
    if (i == t->my_pe)
        return weft_team_flags(t->slot) + idx;
    return weft_transport_ptr(WEFT_SEG_HEAP,
                              weft_team_slot_off(t->slot) + (uint64_t)idx * sizeof(uint64_t),
                              weft_team_world_pe(t, i));
}

/* Symmetric object p (len bytes, len > 0) as member i maps it. */
static char *member_addr(const struct weft_team *t, int i, const void *p, size_t len)
{
    int seg;
    uint64_t off;
    if (i == t->my_pe)
        return (char *)p;
    if (weft_sym_resolve(p, len, &seg, &off) != 0)
        return NULL;
    return weft_transport_ptr(seg, off, weft_team_world_pe(t, i));
}

/* Every member maps the len bytes at p: the same answer on every PE of a
 * correct program, which passes the same symmetric object everywhere. */
static int mapped_everywhere(const struct weft_team *t, const void *p, size_t len)
{
    for (int i = 0; i < t->size; i++)
        if (!member_addr(t, i, p, len ? len : 1))
            return 0;
    return 1;
}

/* Bytes op reads from source and writes to dest on this PE (collect's dest:
 * this PE's own share, the rest is known only to the last to start). */
static void op_spans(const struct weft_nb_op *op, int n, size_t *src, size_t *dst)
{
    size_t all = op->len * (size_t)n;
    switch (op->kind) {
    case WEFT_NB_ALLTOALLS:
        *src = all ? ((all - 1) * (size_t)op->sst + 1) * op->esz : 0;
        *dst = all ? ((all - 1) * (size_t)op->dst + 1) * op->esz : 0;
        break;
    case WEFT_NB_REDUCE:
        *src = *dst = op->len * op->esz;
        break;
    case WEFT_NB_ALLTOALL:
        *src = *dst = all;
        break;
    case WEFT_NB_FCOLLECT:
        *src = op->len;
        *dst = all;
        break;
    default: /* broadcast, collect */
        *src = *dst = op->len;
        break;
    }
}

static int takes_direct_path(const struct weft_nb_op *op)
{
    struct weft_team *t = op->team;
    /* Threads starting collectives on different teams may both read it
     * first; they find the same value. */
    int path = __atomic_load_n(&nb_path, __ATOMIC_RELAXED);
    if (path < 0) {
        static const char *const paths[] = {"auto", "direct", "engine"};
        path = weft_tun_choice(WEFT_TUN_COLL_NB_PATH, paths, 3);
        __atomic_store_n(&nb_path, path, __ATOMIC_RELAXED);
    }
    if (path == PATH_ENGINE)
        return 0;
    if (t->size == 1)
        return 1;
    if (!t->nb_direct) {
        int ok = t->slot >= 0;
        for (int i = 0; ok && i < t->size; i++)
            ok = member_word(t, i, 0) != NULL;
        t->nb_direct = ok ? 1 : -1;
    }
    if (t->nb_direct < 0)
        return 0;
    if (op->kind == WEFT_NB_SYNC)
        return 1;
    /* Collect and the reductions read every member's source, the others
     * only their own. */
    int reads_all = op->kind == WEFT_NB_COLLECT || op->kind == WEFT_NB_REDUCE;
    if (reads_all && path == PATH_AUTO && t->size > DIRECT_AUTO_MAX)
        return 0;
    size_t src_len, dst_len;
    op_spans(op, t->size, &src_len, &dst_len);
    return mapped_everywhere(t, op->dest, dst_len) &&
           (!reads_all || mapped_everywhere(t, op->source, src_len));
}

/* *w has reached want. settle: counting puts count where they are
 * applied (the issuing path's arrivals), so where *w falls short those
 * that reached this PE are applied and it is read again. */
static int word_reached(const uint64_t *w, uint64_t want, int settle)
{
    if (__atomic_load_n(w, __ATOMIC_ACQUIRE) >= want)
        return 1;
    if (!settle)
        return 0;
    weft_transport_count_settle();
    return __atomic_load_n(w, __ATOMIC_ACQUIRE) >= want;
}

/* Waits until *w, a word of team t, reaches want, as the blocking
 * collectives wait (the hang report names call). */
static void wait_word(const uint64_t *w, uint64_t want, const struct weft_team *t,
                      const char *call, int settle)
{
    if (word_reached(w, want, settle))
        return;
    weft_wait.call = call;
    weft_wait.team = t;
    weft_wait.addr = w;
    weft_wait.want = want;
    weft_wait.kind = WEFT_WAIT_COLL;
    unsigned spins = 0;
    while (!word_reached(w, want, settle))
        weft_poll_yield(&spins);
    weft_wait.kind = WEFT_WAIT_NONE;
}

/* The reduction, a stack buffer's worth of elements at a time: the
 * members' sources are combined in team order into the buffer, which is
 * then copied to every dest; a dest equal to its source (in place) is
 * written only where every source has been read. */
static void direct_reduce(const struct weft_nb_op *op)
{
    const struct weft_team *t = op->team;
    int n = t->size;
    size_t bytes = op->len * op->esz;
    _Alignas(64) unsigned char buf[4096];
    size_t per = sizeof buf / op->esz;
    for (size_t e = 0; e < op->len; e += per) {
        size_t cnt = op->len - e < per ? op->len - e : per;
        size_t at = e * op->esz;
        const char *s0 = member_addr(t, 0, op->source, bytes);
        op->red(buf, s0 + at, member_addr(t, 1, op->source, bytes) + at, cnt);
        for (int j = 2; j < n; j++)
            op->red(buf, buf, member_addr(t, j, op->source, bytes) + at, cnt);
        for (int i = 0; i < n; i++)
            memcpy(member_addr(t, i, op->dest, bytes) + at, buf, cnt * op->esz);
    }
}

/* At the start, on every PE: this PE's share of a collective whose shares
 * are known to their owner, written into every member's dest, which the
 * entry rule makes writable as soon as any member starts. The same copies
 * as the blocking algorithms, by the same PE. Returns 0 for the others
 * (collect, reductions), which the last member to start moves. */
static int direct_push(const struct weft_nb_op *op)
{
    const struct weft_team *t = op->team;
    int n = t->size, me = t->my_pe;
    size_t len = op->len;
    switch (op->kind) {
    case WEFT_NB_SYNC:
        return 1;
    case WEFT_NB_BCAST:
        if (me == op->root && len)
            for (int i = 0; i < n; i++)
                if (i != me || op->dest != op->source)
                    memcpy(member_addr(t, i, op->dest, len), op->source, len);
        return 1;
    case WEFT_NB_FCOLLECT:
    case WEFT_NB_ALLTOALL:
        if (len)
            for (int i = 0; i < n; i++) {
                /* fcollect: the source to block me of every dest;
                 * alltoall: block i of the source to block me of i's. */
                const char *from = op->kind == WEFT_NB_FCOLLECT
                                       ? (const char *)op->source
                                       : (const char *)op->source + (size_t)i * len;
                memcpy(member_addr(t, i, op->dest, len * (size_t)n) + (size_t)me * len, from,
                       len);
            }
        return 1;
    case WEFT_NB_ALLTOALLS:
        if (len) {
            ptrdiff_t esz = (ptrdiff_t)op->esz, dstep = op->dst * esz, sstep = op->sst * esz;
            for (int i = 0; i < n; i++)
                weft_copy_strided(member_addr(t, i, op->dest, 1) +
                                      (ptrdiff_t)((size_t)me * len) * dstep,
                                  dstep, (const char *)op->source +
                                             (ptrdiff_t)((size_t)i * len) * sstep,
                                  sstep, op->esz, len);
        }
        return 1;
    default:
        return 0;
    }
}

/* What the last member to start moves (every member has entered): a
 * collect, whose offsets need every member's length, or a reduction,
 * which needs every source. */
static void direct_move(const struct weft_nb_op *op, int ring)
{
    const struct weft_team *t = op->team;
    int n = t->size;
    if (op->kind == WEFT_NB_REDUCE) {
        if (op->len)
            direct_reduce(op);
        return;
    }
    /* dest holds every block at every member, as the blocking collect
     * checks: else the job ends here, naming the call. */
    size_t total = 0;
    for (int j = 0; j < n; j++) {
        size_t lj = __atomic_load_n(member_word(t, j, WEFT_TF_NB_LEN + ring), __ATOMIC_RELAXED);
        total = lj > SIZE_MAX - total ? SIZE_MAX : total + lj; /* saturates */
    }
    int seg;
    uint64_t off;
    if (total)
        weft_sym_resolve_or_die(op->call, "dest", op->dest, total, &seg, &off);
    size_t at = 0;
    for (int j = 0; j < n; j++) {
        size_t lj = __atomic_load_n(member_word(t, j, WEFT_TF_NB_LEN + ring), __ATOMIC_RELAXED);
        if (lj) {
            const char *s = member_addr(t, j, op->source, lj);
            for (int i = 0; i < n; i++)
                memcpy(member_addr(t, i, op->dest, at + lj) + at, s, lj);
        }
        at += lj;
    }
}

/* This PE's "done" word of the ring entry collective seq uses, and the
 * count it reaches once seq is complete here (the entry's uses so far). */
static uint64_t *done_word(const struct weft_team *t, uint64_t seq)
{
    return weft_team_flags(t->slot) + WEFT_TF_NB_DONE + seq % WEFT_NB_RING;
}
static uint64_t done_count(uint64_t seq) { return seq / WEFT_NB_RING + 1; }

/* Waits until collective seq of op's team is complete here. */
static void wait_done(uint64_t seq, const struct weft_nb_op *op)
{
    wait_word(done_word(op->team, seq), done_count(seq), op->team, op->call, 0);
}

static void direct_start(struct weft_req *r)
{
    const struct weft_nb_op *op = &r->op;
    struct weft_team *t = op->team;
    r->direct = 1;
    if (t->size == 1) {
        run(op, &weft_ctx_default);
        r->seq = 0;
        r->done = 1;
        return;
    }
    uint64_t k = t->nb_direct_seq++;
    int ring = (int)(k % WEFT_NB_RING);
    uint64_t use = done_count(k); /* of ring entry `ring` */
    r->seq = k;
    if (k >= WEFT_NB_RING) /* the entry's previous collective is complete here */
        wait_done(k - WEFT_NB_RING, op);
    int pushed = direct_push(op);
    if (op->kind == WEFT_NB_COLLECT)
        __atomic_store_n(weft_team_flags(t->slot) + WEFT_TF_NB_LEN + ring, (uint64_t)op->len,
                         __ATOMIC_RELAXED);
    uint64_t entered =
        __atomic_add_fetch(member_word(t, 0, WEFT_TF_NB_ENTERED + ring), 1, __ATOMIC_ACQ_REL);
    if (entered != use * (uint64_t)t->size)
        return;
    if (!pushed)
        direct_move(op, ring);
    for (int i = 0; i < t->size; i++)
        __atomic_store_n(member_word(t, i, WEFT_TF_NB_DONE + ring), use, __ATOMIC_RELEASE);
}

static int direct_done(const struct weft_req *r)
{
    const struct weft_team *t = r->op.team;
    if (t->size == 1)
        return 1;
    return __atomic_load_n(done_word(t, r->seq), __ATOMIC_ACQUIRE) >= done_count(r->seq);
}

/* Waits for every direct collective started on team (shmem_team_destroy). */
static void direct_wait_team(struct weft_team *t)
{
    if (t->size == 1)
        return;
    uint64_t k = t->nb_direct_seq;
    struct weft_nb_op op = {.call = "shmem_team_destroy", .team = t};
    for (uint64_t j = k > WEFT_NB_RING ? k - WEFT_NB_RING : 0; j < k; j++)
        wait_done(j, &op);
}


/* ---- the issuing path ----------------------------------------------------- */

/* Where a member is reached through libfabric, the collectives of one
 * round (synchronization, broadcast, fcollect, alltoall(s)) are issued
 * whole at the start: every transfer is a counting put (transport.h,
 * weft_transport_put_count) that raises the target's arrival counter once
 * its data is there, so the targets' progress (the progress thread, or the
 * provider's own) completes the collective while every PE computes, with
 * no thread of ours and nothing handed over. Every member sends one
 * transfer to every other (a broadcast's other members a data-less one),
 * so each PE awaits n - 1 and a collective completes at a PE only once
 * every member has started it.
 *
 * The counters: collective k of the team uses word 2s + p, s = k mod
 * WEFT_NB_RING and p the parity of its use of entry s (k / WEFT_NB_RING).
 * A PE starting k first waits until k - WEFT_NB_RING is complete here
 * (the ring). Use u + 2 of an entry cannot send to this PE before its use
 * u is complete here: a PE starting u + 2 has completed u + 1, so every
 * member has started u + 1, this PE included, which waited for u. The
 * counts of uses u and u + 2 thus never mix before u is complete; u + 1's
 * may arrive early, hence the two parities. Each PE knows every use's
 * arrivals, so it keeps the count a word reaches (nb_issue_expect). What
 * collect blocks have beyond their slots is counted in a word of its own
 * per entry and parity (WEFT_TF_NB_REST, nb_rest_expect): a PE's use u
 * sends there only while it completes u, after every member started u,
 * and a PE completing u waits for all of u's counts, so the same argument
 * keeps the uses apart there. */

static int one_round(enum weft_nb_kind kind)
{
    return kind == WEFT_NB_SYNC || kind == WEFT_NB_BCAST || kind == WEFT_NB_FCOLLECT ||
           kind == WEFT_NB_ALLTOALL || kind == WEFT_NB_ALLTOALLS;
}

/* A reduction's pieces on the issuing path: each member's block of a piece
 * is at most its share of a receive area, 64-byte aligned (stride bytes
 * apart in the area), and per elements long but the last. Returns how many
 * pieces, 0 where the reduction needs more than the ring holds (or the
 * team's slot has no areas): then it runs on the engine. Each piece costs
 * every PE n - 1 messages and their progress (over tcp about 90 us of CPU
 * per PE and piece at 4 PEs), hence areas large enough for one piece of a
 * typical reduction. */
static int reduce_pieces(const struct weft_nb_op *op, size_t *per, size_t *stride)
{
    if (op->team->slot >= WEFT_TEAM_NB_AREA_SLOTS)
        return 0;
    size_t share = (weft_team_pool.nb_area / (size_t)op->team->size) & ~(size_t)63;
    size_t most = share / op->esz;
    if (!most)
        return 0;
    size_t pieces = (op->len + most - 1) / most;
    if (pieces > WEFT_NB_RING)
        return 0;
    *per = (op->len + pieces - 1) / pieces; /* even pieces */
    *stride = (*per * op->esz + 63) & ~(size_t)63;
    return (int)pieces;
}

/* Bytes of a member's slot in a receive area for a collect on team t;
 * 0 where its scratch slot has no areas, or they are too small. */
static size_t gather_slot(const struct weft_team *t)
{
    if (t->slot >= WEFT_TEAM_NB_AREA_SLOTS)
        return 0;
    size_t slot = (weft_team_pool.nb_area / (size_t)t->size) & ~(size_t)63;
    return slot >= 64 ? slot : 0;
}

static int takes_issue_path(const struct weft_nb_op *op, int path)
{
    const struct weft_team *t = op->team;
    size_t per, stride;
    if (path == PATH_ENGINE || t->slot < 0 || t->size < 2 || !weft_transport_progresses_alone())
        return 0;
    if (op->kind == WEFT_NB_REDUCE      ? op->len && !reduce_pieces(op, &per, &stride)
        : op->kind == WEFT_NB_COLLECT ? !gather_slot(t)
                                      : !one_round(op->kind))
        return 0;
    /* Every member sends to every other: n - 1 messages per PE, where the
     * blocking barrier and broadcast send about log2 n (and a reduction
     * receives n - 1 sources, where recursive doubling combines log2 n). */
    int all_pairs =
        op->kind == WEFT_NB_SYNC || op->kind == WEFT_NB_BCAST || op->kind == WEFT_NB_REDUCE;
    return !(all_pairs && path == PATH_AUTO && t->size > DIRECT_AUTO_MAX);
}

static uint64_t slot_off(const struct weft_team *t, int idx)
{
    return weft_team_slot_off(t->slot) + (uint64_t)idx * sizeof(uint64_t);
}

/* Counter word of collective seq's ring entry and use parity. */
static int arrived_word(uint64_t seq)
{
    return (int)(2 * (seq % WEFT_NB_RING) + (seq / WEFT_NB_RING) % 2);
}

static const uint64_t *arrived(const struct weft_team *t, int word)
{
    return weft_team_flags(t->slot) + WEFT_TF_NB_ARRIVED + word;
}

static int arrivals_reached(const struct weft_team *t, int word, uint64_t want)
{
    return word_reached(arrived(t, word), want, 1);
}

static void wait_arrivals(const struct weft_team *t, int word, uint64_t want, const char *call)
{
    wait_word(arrived(t, word), want, t, call, 1);
}

/* The next sequence number of team t on the issuing path: first the ring
 * entry's previous use (the other parity) is complete here, and, where it
 * was a reduction's piece or a collect, written to its dest, since the
 * entry's next use of that parity may then send to this PE. */
static void piece_finish(struct weft_team *t, uint64_t seq, const struct weft_nb_piece *d,
                         const char *call);

static uint64_t issue_next(struct weft_team *t, const char *call)
{
    uint64_t k = t->nb_issue_seq++;
    if (k >= WEFT_NB_RING) {
        int prev = arrived_word(k) ^ 1;
        wait_arrivals(t, prev, t->nb_issue_expect[prev], call);
        if (t->nb_piece_seq[prev] == k - WEFT_NB_RING + 1)
            piece_finish(t, k - WEFT_NB_RING, &t->nb_piece[prev], call);
    }
    return k;
}

/* One counting put of len bytes from src to (seg, off) at team member i,
 * counted in its team flag word counter; none (len 0): a data-less count. */
static void count_to(const struct weft_team *t, int i, int seg, uint64_t off, const void *src,
                     size_t len, int counter)
{
    weft_transport_put_count(&weft_ctx_default, seg, off, src, len, slot_off(t, counter),
                             slot_off(t, WEFT_TF_NB_CARRIER), 1, weft_team_world_pe(t, i), 1);
}

/* The same, counted as an arrival of arrival word word. */
static void issue_to(const struct weft_team *t, int i, int seg, uint64_t off, const void *src,
                     size_t len, int word)
{
    count_to(t, i, seg, off, src, len, WEFT_TF_NB_ARRIVED + word);
}

/* ---- the issuing path's reductions: allgather, then reduce here ----------
 *
 * A reduction is an allgather of the members' sources into a receive area
 * at every member, one area per arrival word (team.h), followed by each
 * member combining the n blocks locally, in team order: every PE computes
 * the same operations on the same bytes, so every dest is bitwise
 * identical, floating point included. A reduction larger than a member's
 * share of an area goes in pieces, each a collective of its own on the
 * ring, all issued at the start. A piece is reduced into dest once its
 * arrivals are in, by whoever comes first: shmem_req_test or _wait, or
 * this PE's start of the ring entry's next use, which must free the area
 * (see issue_next): a PE that does not poll still never blocks a peer.
 * The piece's record in the team (claimed, reduced: sequence number + 1)
 * makes it happen once when a thread completes the request while another
 * starts the team's next collective.
 *
 * A collect takes the same areas, split into one slot per member
 * (WEFT_COLL_NB_AREA / n, 64-byte aligned): every member sends its length
 * and what fits of its block to its slot at every member, so no member
 * needs another's length to take the path. At completion each PE, knowing
 * every length, gathers the slots into dest in team order (gather_collect).
 * What a block has beyond its slot moves at the completion of whichever
 * of its owner and a member comes first: the member reads it from the
 * owner's source, or the owner pushes it to the member's dest. A claim
 * word per owner and member, in the owner's area, settles which: both
 * swap their mark into it, and the one that finds an older use's value
 * moves the rest; the other waits for that, which the first does in the
 * same call. So no PE ever waits for another to reach a weft call, and
 * an owner's source is left alone once its completion returns. */

/* Combines the n blocks in area word into d's dest, in team order. */
static void piece_reduce(const struct weft_team *t, int word, const struct weft_nb_piece *d)
{
    const char *area = weft_team_nb_area(t->slot, word);
    d->red(d->dest, area, area + d->stride, d->count);
    for (int j = 2; j < t->size; j++)
        d->red(d->dest, d->dest, area + (size_t)j * d->stride, d->count);
}

/* A collect in a receive area: member j's slot (stride bytes at j x
 * stride) starts with the claim word of the area's owner and member j,
 * then j's block length, then as much of the block as fits. */
#define GATHER_CLAIM 0
#define GATHER_LEN sizeof(uint64_t)
#define GATHER_HEAD (2 * sizeof(uint64_t))

/* Swaps mark into the claim word of owner member `owner` and member
 * `member` (in the owner's area word, at the member's slot), and says
 * whether this PE came first: the word held an older use's mark. Member
 * j's slot at the owner came with j's header, which cleared the word:
 * the owner swaps once every header is in, the member once its own have
 * completed. */
static int claim_first(const struct weft_team *t, int word, const struct weft_nb_piece *d,
                       int owner, int member, uint64_t mark)
{
    uint64_t old;
    weft_transport_amo(&weft_ctx_default, WEFT_AMO_SWAP, WEFT_DT_U64, WEFT_SEG_HEAP,
                       weft_team_nb_area_off(t->slot, word) + (size_t)member * d->stride +
                           GATHER_CLAIM,
                       &mark, NULL, &old, weft_team_world_pe(t, owner));
    return old < (mark & ~(uint64_t)1);
}

/* Member j's block length in collect d, whose slots are in area: this
 * PE's own from d, the others' from their slots' headers. */
static uint64_t gather_len(const char *area, const struct weft_nb_piece *d, int j, int me)
{
    uint64_t len = d->count;
    if (j != me)
        memcpy(&len, area + (size_t)j * d->stride + GATHER_LEN, sizeof len);
    return len;
}

/* Collect seq (described by d), every member's slot in area word arrived:
 * into dest in team order, this PE's block from its source and the
 * others' from their slots, once dest is known to hold them all (as the
 * blocking collect checks); then the rest of the blocks longer than a
 * slot (see above): this PE's own to each member that has not read it yet,
 * the others' read from their owners where this PE comes first, each
 * owner told; then it waits for what the others move instead. Ends with
 * the quiet after which this PE's transfers have left its slot and its
 * source. */
static void gather_collect(struct weft_team *t, uint64_t seq, int word,
                           const struct weft_nb_piece *d, const char *call)
{
    int n = t->size, me = t->my_pe;
    const char *area = weft_team_nb_area(t->slot, word);
    size_t fits = d->stride - GATHER_HEAD, at = 0, mine = 0, total = 0;
    uint64_t mark = 2 * (seq + 1), others = 0;
    int longer = 0;
    for (int j = 0; j < n; j++) {
        uint64_t len = gather_len(area, d, j, me);
        total = len > SIZE_MAX - total ? SIZE_MAX : total + (size_t)len; /* saturates */
    }
    int dseg = 0;
    uint64_t doff = 0;
    if (total)
        weft_sym_resolve_or_die(call, "dest", d->dest, total, &dseg, &doff);
    for (int j = 0; j < n; j++) {
        uint64_t len = gather_len(area, d, j, me);
        if (j == me) {
            mine = at;
            if (len)
                memmove(d->dest + at, d->source, len);
        } else if (len) {
            memcpy(d->dest + at, area + (size_t)j * d->stride + GATHER_HEAD,
                   len < fits ? len : fits);
        }
        longer |= len > fits;
        at += len;
    }
    weft_transport_quiet(&weft_ctx_default); /* this PE's headers, which cleared the claims */
    if (!longer)
        return;
    if (d->count > fits) {
        for (int j = 0; j < n; j++) {
            if (j == me)
                continue;
            if (claim_first(t, word, d, me, j, mark))
                count_to(t, j, dseg, doff + mine + fits, d->source + fits, d->count - fits,
                         WEFT_TF_NB_REST + word);
            else
                others++; /* j reads it, then tells this PE */
        }
    }
    int sseg = 0;
    uint64_t soff = 0;
    at = 0;
    for (int j = 0, resolved = 0; j < n; j++) {
        uint64_t len = gather_len(area, d, j, me);
        if (j != me && len > fits) {
            if (!resolved++)
                weft_sym_resolve_or_die(call, "source", d->source, 1, &sseg, &soff);
            if (claim_first(t, word, d, j, me, mark | 1)) {
                weft_transport_get(&weft_ctx_default, d->dest + at + fits, sseg, soff + fits,
                                   len - fits, weft_team_world_pe(t, j));
                count_to(t, j, WEFT_SEG_HEAP, 0, NULL, 0, WEFT_TF_NB_REST + word);
            } else {
                others++; /* j pushes it */
            }
        }
        at += len;
    }
    uint64_t want = t->nb_rest_expect[word] += others;
    wait_word(weft_team_flags(t->slot) + WEFT_TF_NB_REST + word, want, t, call, 1);
    weft_transport_quiet(&weft_ctx_default); /* what it pushed left its source */
}

/* Waits for piece seq (described by d: the team's record for its starter,
 * the request's copy for the others) and reduces or gathers it into dest,
 * once. */
static void piece_finish(struct weft_team *t, uint64_t seq, const struct weft_nb_piece *d,
                         const char *call)
{
    int word = arrived_word(seq);
    struct weft_nb_piece *rec = &t->nb_piece[word];
    if (__atomic_load_n(&rec->reduced, __ATOMIC_ACQUIRE) > seq)
        return;
    wait_arrivals(t, word, d->want, call);
    uint64_t c = __atomic_load_n(&rec->claimed, __ATOMIC_RELAXED);
    if (c <= seq && __atomic_compare_exchange_n(&rec->claimed, &c, seq + 1, 0, __ATOMIC_ACQ_REL,
                                                __ATOMIC_RELAXED)) {
        if (!d->red) {
            gather_collect(t, seq, word, d, call);
        } else {
            if (d->in_place) /* this PE's transfers may still read the source */
                weft_transport_quiet(&weft_ctx_default);
            piece_reduce(t, word, d);
        }
        __atomic_store_n(&rec->reduced, seq + 1, __ATOMIC_RELEASE);
        return;
    }
    unsigned spins = 0; /* another thread of this PE is finishing it */
    while (__atomic_load_n(&rec->reduced, __ATOMIC_ACQUIRE) <= seq)
        weft_poll_yield(&spins);
}

/* Starts reduction r on the issuing path: every piece's source block to
 * the sender's block of the piece's area at every member (its own by a
 * copy, which also makes an in-place dest safe). */
static void issue_reduce(struct weft_req *r)
{
    const struct weft_nb_op *op = &r->op;
    struct weft_team *t = op->team;
    int n = t->size, me = t->my_pe;
    size_t per, stride;
    r->pieces = reduce_pieces(op, &per, &stride);
    for (int j = 0; j < r->pieces; j++) {
        uint64_t k = issue_next(t, op->call);
        int word = arrived_word(k);
        size_t first = (size_t)j * per;
        size_t count = op->len - first < per ? op->len - first : per;
        struct weft_nb_piece *rec = &t->nb_piece[word];
        if (j == 0)
            r->seq = k;
        rec->want = t->nb_issue_expect[word] += (uint64_t)(n - 1);
        rec->dest = (char *)op->dest + first * op->esz;
        rec->source = NULL;
        rec->count = count;
        rec->esz = op->esz;
        rec->stride = stride;
        rec->red = op->red;
        rec->in_place = op->dest == op->source;
        t->nb_piece_seq[word] = k + 1;
        r->piece[j] = *rec;
        const char *src = (const char *)op->source + first * op->esz;
        uint64_t off = weft_team_nb_area_off(t->slot, word) + (size_t)me * stride;
        memcpy(weft_team_nb_area(t->slot, word) + (size_t)me * stride, src, count * op->esz);
        for (int step = 1; step < n; step++)
            issue_to(t, weft_sched_pairwise_to(me, n, step), WEFT_SEG_HEAP, off, src,
                     count * op->esz, word);
    }
}

/* Starts collect r on the issuing path: a cleared claim word, its length
 * and what fits of its block to its slot of the area at every member
 * (from its own slot, where it first writes them). No member needs
 * another's length to take this path; the rest of a longer block moves at
 * completion (gather_collect). */
static void issue_collect(struct weft_req *r)
{
    const struct weft_nb_op *op = &r->op;
    struct weft_team *t = op->team;
    int n = t->size, me = t->my_pe;
    size_t slot = gather_slot(t), fits = slot - GATHER_HEAD;
    size_t head = op->len < fits ? op->len : fits;
    uint64_t k = issue_next(t, op->call);
    int word = arrived_word(k);
    struct weft_nb_piece *rec = &t->nb_piece[word];
    r->seq = k;
    r->pieces = 1;
    if (op->len > fits) { /* the members may read the rest from it */
        int seg;
        uint64_t off;
        weft_sym_resolve_or_die(op->call, "source", op->source, op->len, &seg, &off);
    }
    rec->want = t->nb_issue_expect[word] += (uint64_t)(n - 1);
    rec->dest = op->dest;
    rec->source = op->source;
    rec->count = op->len;
    rec->esz = 1;
    rec->stride = slot;
    rec->red = NULL;
    rec->in_place = 0;
    t->nb_piece_seq[word] = k + 1;
    r->piece[0] = *rec;
    char *mine = weft_team_nb_area(t->slot, word) + (size_t)me * slot;
    uint64_t head_words[2] = {0, op->len}; /* GATHER_CLAIM, GATHER_LEN */
    memcpy(mine, head_words, sizeof head_words);
    if (head)
        memcpy(mine + GATHER_HEAD, op->source, head);
    uint64_t off = weft_team_nb_area_off(t->slot, word) + (size_t)me * slot;
    for (int step = 1; step < n; step++)
        issue_to(t, weft_sched_pairwise_to(me, n, step), WEFT_SEG_HEAP, off, mine,
                 GATHER_HEAD + head, word);
}

static void issue_start(struct weft_req *r)
{
    const struct weft_nb_op *op = &r->op;
    struct weft_team *t = op->team;
    int n = t->size, me = t->my_pe;
    r->issued = 1;
    if (op->kind == WEFT_NB_REDUCE && op->len) {
        issue_reduce(r);
        return;
    }
    if (op->kind == WEFT_NB_COLLECT) {
        issue_collect(r);
        return;
    }
    uint64_t k = issue_next(t, op->call);
    int word = arrived_word(k);
    r->seq = k;
    r->want = t->nb_issue_expect[word] += (uint64_t)(n - 1);
    char *d = op->dest;
    const char *s = op->source;
    size_t len = op->len;
    enum weft_nb_kind kind = op->kind;
    int seg;
    uint64_t off;
    if (kind == WEFT_NB_ALLTOALLS && op->dst == 1 && op->sst == 1) {
        kind = WEFT_NB_ALLTOALL; /* contiguous blocks */
        len *= op->esz;
    }
    if (kind == WEFT_NB_ALLTOALLS) {
        /* Strided blocks have no counting form: they travel first, then a
         * fence, then data-less arrivals. */
        ptrdiff_t esz = (ptrdiff_t)op->esz, dstep = op->dst * esz, sstep = op->sst * esz;
        ptrdiff_t dblk = (ptrdiff_t)((size_t)me * len) * dstep;
        if (len) {
            weft_sym_resolve_or_die(op->call, "dest", d + dblk,
                                    (size_t)((ptrdiff_t)(len - 1) * dstep + esz), &seg, &off);
            for (int step = 1; step < n; step++) {
                int i = weft_sched_pairwise_to(me, n, step);
                weft_transport_iput(&weft_ctx_default, seg, off, dstep,
                                    s + (ptrdiff_t)((size_t)i * len) * sstep, sstep, op->esz, len,
                                    weft_team_world_pe(t, i));
            }
            weft_transport_fence(&weft_ctx_default);
            weft_copy_strided(d + dblk, dstep, s + (ptrdiff_t)((size_t)me * len) * sstep, sstep,
                              op->esz, len);
        }
        kind = WEFT_NB_SYNC;
    }
    if (kind == WEFT_NB_SYNC || (kind == WEFT_NB_BCAST && me != op->root) || !len) {
        for (int step = 1; step < n; step++)
            issue_to(t, weft_sched_pairwise_to(me, n, step), WEFT_SEG_HEAP, 0, NULL, 0, word);
        return;
    }
    if (kind == WEFT_NB_BCAST) {
        weft_sym_resolve_or_die(op->call, "dest", d, len, &seg, &off);
        for (int step = 1; step < n; step++)
            issue_to(t, weft_sched_pairwise_to(me, n, step), seg, off, s, len, word);
        if (d != s)
            memcpy(d, s, len);
        return;
    }
    /* fcollect: the source to block me of every dest; alltoall: block i of
     * the source to block me of i's. */
    int all = kind == WEFT_NB_ALLTOALL;
    weft_sym_resolve_or_die(op->call, "dest", d + (size_t)me * len, len, &seg, &off);
    for (int step = 1; step < n; step++) {
        int i = weft_sched_pairwise_to(me, n, step);
        issue_to(t, i, seg, off, all ? s + (size_t)i * len : s, len, word);
    }
    memmove(d + (size_t)me * len, all ? s + (size_t)me * len : s, len);
}

/* Complete here: every member's transfer arrived (a reduction's, of every
 * piece, which is then reduced into dest; a collect's, which is then
 * gathered into dest), and this PE's own left its source (the default
 * context's quiet, once the arrivals are in: by then its own transfers
 * have usually completed as well). */
static int issue_done(const struct weft_req *r)
{
    struct weft_team *t = r->op.team;
    if (!r->pieces && !arrivals_reached(t, arrived_word(r->seq), r->want))
        return 0;
    for (int j = 0; j < r->pieces; j++)
        if (!arrivals_reached(t, arrived_word(r->seq + (uint64_t)j), r->piece[j].want))
            return 0;
    for (int j = 0; j < r->pieces; j++)
        piece_finish(t, r->seq + (uint64_t)j, &r->piece[j], r->op.call);
    weft_transport_quiet(&weft_ctx_default);
    return 1;
}

/* Waits for request r of the issuing path. */
static void issue_wait(const struct weft_req *r)
{
    struct weft_team *t = r->op.team;
    if (!r->pieces)
        wait_arrivals(t, arrived_word(r->seq), r->want, r->op.call);
    for (int j = 0; j < r->pieces; j++)
        piece_finish(t, r->seq + (uint64_t)j, &r->piece[j], r->op.call);
    weft_transport_quiet(&weft_ctx_default);
}

/* Waits for every issued collective started on team, and finishes the
 * reductions' pieces and the collects nobody completed
 * (shmem_team_destroy). */
static void issue_wait_team(struct weft_team *t)
{
    for (int w = 0; w < WEFT_NB_AREAS; w++) {
        wait_arrivals(t, w, t->nb_issue_expect[w], "shmem_team_destroy");
        if (t->nb_piece_seq[w])
            piece_finish(t, t->nb_piece_seq[w] - 1, &t->nb_piece[w], "shmem_team_destroy");
    }
    weft_transport_quiet(&weft_ctx_default);
}

int weft_coll_nb_post(const struct weft_nb_op *op, shmem_req_h *request)
{
    struct weft_req *r = malloc(sizeof *r);
    if (!r)
        weft_fatal(op->call, "out of memory for a request");
    r->next = NULL;
    r->op = *op;
    r->done = 0;
    r->direct = 0;
    r->issued = 0;
    r->pieces = 0;
    if (takes_direct_path(op)) {
        direct_start(r);
        *request = r;
        return 0;
    }
    if (takes_issue_path(op, nb_path)) {
        issue_start(r);
        *request = r;
        return 0;
    }
    if (!eng.mode)
        start_engine(op->call);
    op->team->nb_issued++;
    if (eng.mode == MODE_INLINE) {
        /* Behind nothing: this thread ran every earlier one already. */
        run(&r->op, &weft_ctx_default);
        r->done = 1;
        op->team->nb_done++;
    } else {
        pthread_mutex_lock(&eng.lock);
        if (eng.tail)
            eng.tail->next = r;
        else
            eng.head = r;
        eng.tail = r;
        pthread_cond_signal(&eng.work);
        pthread_mutex_unlock(&eng.lock);
    }
    *request = r;
    return 0;
}

/* Sleeps until done(arg) holds; the engine wakes us after each request. */
static void wait_until(int (*done)(const void *), const void *arg)
{
    if (done(arg))
        return;
    pthread_mutex_lock(&eng.lock);
    eng.waiters++;
    while (!done(arg))
        pthread_cond_wait(&eng.finished, &eng.lock);
    eng.waiters--;
    pthread_mutex_unlock(&eng.lock);
}

static int team_drained(const void *arg)
{
    const struct weft_team *t = arg;
    return __atomic_load_n(&t->nb_done, __ATOMIC_ACQUIRE) == t->nb_issued;
}

void weft_coll_nb_wait_team(struct weft_team *team) { wait_until(team_drained, team); }

void weft_coll_nb_wait_all(struct weft_team *team)
{
    if (team->nb_direct_seq)
        direct_wait_team(team);
    if (team->nb_issue_seq)
        issue_wait_team(team);
    weft_coll_nb_drain(team);
}

static int req_done(const void *arg)
{
    const struct weft_req *r = arg;
    if (r->direct)
        return direct_done(r);
    if (r->issued)
        return issue_done(r);
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

int shmem_req_test(shmem_req_h *request)
{
    weft_check_init("shmem_req_test");
    if (!request || *request == SHMEM_REQ_INVALID)
        return -1;
    if (!req_done(*request))
        return 1;
    free(*request);
    *request = SHMEM_REQ_INVALID;
    return 0;
}

/* The waiter of a request the engine has not started runs the queue up to
 * it in its own thread, through the engine's context, in posting order:
 * the engine thread, on a host whose cores are busy, can take a scheduler
 * slice to wake, and the waiter then to be woken in turn (2 PEs direct, an
 * 8-byte alltoall posted and waited for at once: 7.7-13 us at best with
 * the hand-offs, 0.1-0.3 us without). Returns 0 when the engine is running
 * a collective (then the waiter sleeps). */
static int run_here(struct weft_req *want)
{
    pthread_mutex_lock(&eng.lock);
    if (eng.running || eng.abandon || req_done(want)) {
        pthread_mutex_unlock(&eng.lock);
        return 0;
    }
    /* Not done and nobody running it: it is still queued. */
    eng.running = 1;
    while (!req_done(want)) {
        struct weft_req *r = pop_locked();
        pthread_mutex_unlock(&eng.lock);
        run(&r->op, &eng.ctx);
        complete(r);
        pthread_mutex_lock(&eng.lock);
    }
    eng.running = 0;
    if (eng.head || eng.stopping)
        pthread_cond_signal(&eng.work);
    pthread_mutex_unlock(&eng.lock);
    return 1;
}

int shmem_req_wait(shmem_req_h *request)
{
    weft_check_init("shmem_req_wait");
    if (!request || *request == SHMEM_REQ_INVALID)
        return -1;
    struct weft_req *r = *request;
    if (r->direct) {
        if (!direct_done(r))
            wait_done(r->seq, &r->op);
        free(r);
        *request = SHMEM_REQ_INVALID;
        return 0;
    }
    if (r->issued) {
        issue_wait(r);
        free(r);
        *request = SHMEM_REQ_INVALID;
        return 0;
    }
    if (!req_done(*request) && eng.mode == MODE_THREAD)
        (void)run_here(*request);
    if (!req_done(*request)) {
        /* A short spin for a collective about to end, then a sleep until
         * the engine completes it: a waiter that polled would take the
         * core the engine (and, on a full host, a peer's engine) needs. */
        for (unsigned spins = 0; spins < ENGINE_SPINS && !req_done(*request); spins++)
            weft_cpu_relax();
        wait_until(req_done, *request);
    }
    free(*request);
    *request = SHMEM_REQ_INVALID;
    return 0;
}

void weft_coll_nb_fini(void)
{
    if (eng.mode != MODE_THREAD) {
        eng.mode = 0;
        return;
    }
    pthread_mutex_lock(&eng.lock);
    eng.stopping = 1;
    pthread_cond_signal(&eng.work);
    pthread_mutex_unlock(&eng.lock);
    pthread_join(eng.thread, NULL);
    weft_transport_ctx_close_private(&eng.ctx);
    eng.stopping = 0;
    eng.mode = 0;
}

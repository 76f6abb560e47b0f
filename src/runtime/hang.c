/* SPDX-License-Identifier: BSD-3-Clause */
/* hang.c owns what a waiting PE notices about the rest of the job: a peer
 * that entered shmem_finalize while this PE waits for it in a collective
 * (the mismatch can never resolve), and, with WEFT_HANG_TIMEOUT, a job in
 * which no PE has made progress for that long, which it reports (every PE:
 * the routine it is blocked in and its arguments, and the PEs that are
 * silent: stopped, exited, or not answering) and then aborts. All of it runs from the slow phase of
 * weft_poll_yield, after a wait has spun past its budget; the fast paths
 * only ever store into the calling thread's weft_wait record. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport/transport.h"
#include "core/runtime.h"
#include "core/scale.h"
#include "runtime/team.h"
#include "runtime/lifecycle.h"

__thread struct weft_wait_rec weft_wait __attribute__((tls_model("initial-exec")));

/* Per waiting thread. */
static __thread struct {
    double start;     /* this wait's first slow poll */
    double last;      /* the previous slow poll */
    unsigned last_s;  /* its spin count: a smaller one is a new wait */
    int in;           /* re-entry guard (the hook's own transfers poll) */
    double fin_seen;  /* when a finalize notice was first seen in this wait */
    double asked;     /* when this thread last asked for acknowledgements */
    double first_asked; /* when it first asked in this wait */
    uint64_t round;   /* the round it asked in */
    uint64_t seen_req, seen_report;
    int reported;     /* printed its report in this wait */
} ws;

static double hang_timeout; /* seconds; 0: off */
static uint64_t hang_rounds; /* rounds asked by this PE (any thread) */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t heap_off(const void *p)
{
    return (uint64_t)((const char *)p - weft_rt.seg[WEFT_SEG_HEAP].base);
}

static void notify(int pe, const void *local_field, uint64_t value)
{
    weft_transport_notify(&weft_ctx_default, WEFT_SEG_HEAP, heap_off(local_field), value, pe);
}

void weft_hang_init(void)
{
    struct weft_internal_sym *sym = weft_rt.sym;
    hang_timeout = (double)weft_tun_int(WEFT_TUN_HANG_TIMEOUT);
    /* Collective like every heap allocation at init: same size everywhere. */
    sym->hang_ack = weft_heap_alloc(8, (size_t)weft_rt.n_pes * sizeof(uint64_t));
    memset(sym->hang_ack, 0, (size_t)weft_rt.n_pes * sizeof(uint64_t));
    weft_scale_note(WEFT_SCALE_HANG_ACK, (size_t)weft_rt.n_pes * sizeof(uint64_t));
    sym->fin_notice = sym->hang_req = sym->hang_report = 0;
}

/* Finalize's notice goes, in each team this PE belongs to, to the members
 * 1, 2, 4, ... places after it in the team's order: the peers its
 * dissemination rounds signal already (over a connection-based provider
 * the connections exist), log2 of the team's size each instead of one per
 * PE of the job (at 64 PEs over tcp, one notice to every peer opened some
 * 2,000 connections at finalize and took a third of the job's CPU). A PE
 * waiting in a collective this one never joins still learns of it: going
 * back from it in the team's order to the nearest finalized member, the
 * member right after that one was told, and it is the waiter or a member
 * that has not finalized, which sees the notice when it waits (its first
 * look ends the job). */
#define NOTICE_TOLD_MAX 256

/* Notifies pe unless it was told already (told[0..*n) holds those told;
 * once it is full a PE may be told twice, which only rewrites the word). */
static void notify_once(int *told, int *n, int pe, uint64_t v)
{
    for (int i = 0; i < *n; i++)
        if (told[i] == pe)
            return;
    if (*n < NOTICE_TOLD_MAX)
        told[(*n)++] = pe;
    notify(pe, &weft_rt.sym->fin_notice, v);
}

void weft_hang_announce_finalize(void)
{
    struct weft_internal_sym *sym = weft_rt.sym;
    if (!sym || weft_rt.n_pes == 1)
        return;
    uint64_t v = sym->barrier_epoch << 24 | (uint64_t)(weft_rt.my_pe + 1);
    int told[NOTICE_TOLD_MAX], n = 0;
    for (int slot = 0; slot < WEFT_TEAM_SLOTS; slot++) {
        const struct weft_team *t = weft_team_of_slot(slot);
        if (!t || t->my_pe < 0)
            continue;
        for (int d = 1; d < t->size; d <<= 1)
            notify_once(told, &n, weft_team_world_pe(t, (t->my_pe + d) % t->size), v);
    }
}

static int team_has(const struct weft_team *t, int pe)
{
    if (!t)
        return 1;
    for (int i = 0; i < t->size; i++)
        if (weft_team_world_pe(t, i) == pe)
            return 1;
    return 0;
}

/* A peer entered shmem_finalize. A world barrier it did not reach, or a
 * collective of a team it belongs to that is still unfinished a while
 * later, can never complete: end the job naming both. */
static void check_finalized_peer(uint64_t fin, double t)
{
    int pe = (int)(fin & 0xffffff) - 1;
    uint64_t epoch = fin >> 24;
    const char *call = weft_wait.call ? weft_wait.call : "a wait";
    if (weft_wait.kind == WEFT_WAIT_BARRIER_ALL && weft_wait.want > epoch)
        weft_fatal(call, "PE %d entered shmem_finalize (called it, or exited and finalized at "
                   "exit) after %" PRIu64 " barrier(s) over all PEs while this PE waits in barrier "
                   "%" PRIu64 ": the job can never complete", pe, epoch, weft_wait.want);
    if (weft_wait.kind == WEFT_WAIT_COLL && team_has(weft_wait.team, pe)) {
        /* It may have finished this very collective, whose last signals
         * are still on their way to us: allow them time to land. */
        if (ws.fin_seen == 0)
            ws.fin_seen = t;
        else if (t - ws.fin_seen > 2.0)
            weft_fatal(call, "PE %d, a member of this collective's team, entered shmem_finalize "
                       "(called it, or exited and finalized at exit) while this PE waits in the "
                       "collective: the job can never complete", pe);
    }
}

static const char *cmp_name(int cmp)
{
    static const char *const n[] = {"SHMEM_CMP_EQ", "SHMEM_CMP_NE", "SHMEM_CMP_GT",
                                    "SHMEM_CMP_LE", "SHMEM_CMP_LT", "SHMEM_CMP_GE"};
    return cmp >= 0 && cmp < 6 ? n[cmp] : "?"; /* SHMEM_CMP_EQ is 0 (shmem.h) */
}

static long long load_sized(const void *p, size_t size)
{
    switch (size) {
    case 2: return __atomic_load_n((const int16_t *)p, __ATOMIC_RELAXED);
    case 4: return __atomic_load_n((const int32_t *)p, __ATOMIC_RELAXED);
    case 8: return (long long)__atomic_load_n((const int64_t *)p, __ATOMIC_RELAXED);
    default: return 0;
    }
}

static void print_report(double waited)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "weft: PE %d: hang report: blocked for %.1f s in ",
                     weft_rt.my_pe, waited);
    size_t room = sizeof line - (size_t)n;
    char *o = line + n;
    const struct weft_wait_rec *w = &weft_wait;
    const char *call = w->call ? w->call : "?";
    switch (w->kind) {
    case WEFT_WAIT_BARRIER_ALL:
        n = snprintf(o, room, "%s (barrier over all PEs number %" PRIu64 ")", call, w->want);
        break;
    case WEFT_WAIT_COLL: {
        const struct weft_team *t = w->team;
        char tn[48];
        if (t == &weft_team_world)
            snprintf(tn, sizeof tn, "SHMEM_TEAM_WORLD");
        else if (t == &weft_team_shared)
            snprintf(tn, sizeof tn, "SHMEM_TEAM_SHARED");
        else
            snprintf(tn, sizeof tn, "%p", w->team);
        n = snprintf(o, room, "%s(team=%s: %d PE(s), this PE is index %d), counter %p is %" PRIu64
                     ", waiting for %" PRIu64, call, tn, t ? t->size : 0, t ? t->my_pe : -1,
                     w->addr, w->addr ? __atomic_load_n((const uint64_t *)w->addr,
                                                        __ATOMIC_RELAXED) : 0,
                     w->want);
        break;
    }
    case WEFT_WAIT_P2P:
        if (w->nelems <= 1)
            n = snprintf(o, room, "%s(ivar=%p, cmp=%s, cmp_value=%lld): ivar is %lld", call,
                         w->addr, cmp_name(w->cmp), w->value ? load_sized(w->value, w->size) : 0,
                         w->addr ? load_sized(w->addr, w->size) : 0);
        else
            n = snprintf(o, room, "%s(ivars=%p, nelems=%zu, cmp=%s, cmp_value(s)=%lld, ...): "
                         "ivars[0] is %lld", call, w->addr, w->nelems, cmp_name(w->cmp),
                         w->value ? load_sized(w->value, w->size) : 0,
                         w->addr ? load_sized(w->addr, w->size) : 0);
        break;
    default:
        n = snprintf(o, room, "a transfer's completion (quiet, fence, a get or a fetching "
                     "atomic)");
        break;
    }
    size_t len = strlen(line);
    if (len < sizeof line - 1)
        line[len++] = '\n';
    ssize_t wr = write(STDERR_FILENO, line, len);
    (void)wr;
    (void)n;
}

/* Why a peer did not answer the latest round (asked at least a second
 * ago), appended to out: 1 if it is silent for good (stopped, exited, or
 * on another host and silent for a further timeout period), so the report
 * need not wait for it; 0 if it runs (a computation outside weft is not a
 * hang) or may still answer. */
static int silent_peer(int pe, double t, char *out, size_t room, size_t *len)
{
    long pid = 0;
    char st = weft_node_peer_state(pe, &pid);
    const char *what = NULL;
    char buf[160];
    if (st == 'T' || st == 't') {
        snprintf(buf, sizeof buf, "PE %d (pid %ld) is stopped (state %c) and cannot answer", pe,
                 pid, st);
        what = buf;
    } else if (st == 'Z' || st == 'X') {
        snprintf(buf, sizeof buf, "PE %d (pid %ld) has exited", pe, pid);
        what = buf;
    } else if (st == 0 && t - ws.first_asked >= hang_timeout) {
        snprintf(buf, sizeof buf, "PE %d has not answered for %.0f s (stopped, or running "
                 "outside weft)", pe, t - ws.first_asked);
        what = buf;
    }
    if (!what)
        return 0;
    if (*len < room) {
        int w = snprintf(out + *len, room - *len, "%s%s", *len ? "; " : "", what);
        if (w > 0)
            *len += (size_t)w;
    }
    return 1;
}

static void hang_step(struct weft_internal_sym *sym, double t)
{
    double waited = t - ws.start;
    int me = weft_rt.my_pe, n = weft_rt.n_pes;

    /* Someone asks whether we are stuck too: yes once our wait has lasted
     * as long (until then the request stays pending). */
    uint64_t req = __atomic_load_n(&sym->hang_req, __ATOMIC_ACQUIRE);
    if (req != ws.seen_req && waited >= hang_timeout) {
        ws.seen_req = req;
        int from = (int)(req & 0xffffff) - 1;
        if (from >= 0 && from < n && from != me)
            notify(from, &sym->hang_ack[me], req >> 24);
    }
    uint64_t rep = __atomic_load_n(&sym->hang_report, __ATOMIC_ACQUIRE);
    if (rep != ws.seen_report) {
        ws.seen_report = rep;
        if (!ws.reported)
            print_report(waited);
        ws.reported = 1;
    }
    if (waited < hang_timeout)
        return;

    /* Stuck ourselves: were all peers stuck in the last round, or silent
     * for good? */
    if (ws.asked > 0 && t - ws.asked < 1.0)
        return;
    int all = ws.round || n == 1;
    char silent[600];
    size_t silent_len = 0;
    silent[0] = '\0';
    for (int pe = 0; pe < n && all; pe++)
        if (pe != me && __atomic_load_n(&sym->hang_ack[pe], __ATOMIC_ACQUIRE) != ws.round)
            all = silent_peer(pe, t, silent, sizeof silent, &silent_len);
    if (all) {
        if (!ws.reported)
            print_report(waited);
        ws.reported = 1;
        uint64_t v = ws.round << 24 | (uint64_t)(me + 1);
        for (int pe = 0; pe < n; pe++)
            if (pe != me)
                notify(pe, &sym->hang_report, v);
        weft_transport_quiet(&weft_ctx_default);
        /* Let the peers print before the launcher takes them down. */
        double until = now() + 1.0;
        while (now() < until) {
            weft_transport_progress();
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        weft_fatal("hang", "no PE has made progress for %.0f s (WEFT_HANG_TIMEOUT)%s%s; aborting "
                   "the job (each blocked PE reported its call above)", hang_timeout,
                   silent_len ? "; silent: " : "", silent);
    }
    ws.round = __atomic_add_fetch(&hang_rounds, 1, __ATOMIC_RELAXED);
    if (ws.asked == 0)
        ws.first_asked = t;
    ws.asked = t;
    uint64_t v = ws.round << 24 | (uint64_t)(me + 1);
    for (int pe = 0; pe < n; pe++)
        if (pe != me)
            notify(pe, &sym->hang_req, v);
}

void weft_wait_slow(unsigned s)
{
    if (ws.in)
        return;
    ws.in = 1;
    double t = now();
    if (s <= ws.last_s || t - ws.last > 0.25) { /* a new wait */
        ws.start = t;
        ws.fin_seen = 0;
        ws.asked = 0;
        ws.round = 0;
        ws.reported = 0;
    }
    ws.last_s = s;
    ws.last = t;
    struct weft_internal_sym *sym = weft_rt.sym;
    if (sym && weft_rt.initialized) {
        uint64_t fin = __atomic_load_n(&sym->fin_notice, __ATOMIC_ACQUIRE);
        if (fin)
            check_finalized_peer(fin, t);
        if (hang_timeout > 0)
            hang_step(sym, t);
    }
    ws.in = 0;
}

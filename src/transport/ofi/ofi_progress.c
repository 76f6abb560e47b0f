/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_progress.c owns progress of the libfabric transport for
 * manual-progress providers: the progress call every wait loop makes, and
 * the progress thread that answers peers while no application thread is
 * inside weft.
 *
 * Who drives progress. A PE's peers can only complete their reads, atomics,
 * flushes and first contacts with it while something calls into its
 * endpoint (shm and tcp;ofi_rxm progress manually: docs/providers.md,
 * problem 1). Every weft wait loop calls weft_ofi_progress through
 * weft_poll_yield, so a PE that waits in weft answers within the provider's
 * own latency. The progress thread is for the PE that computes. It must
 * not fight the application threads that are polling anyway: on a machine
 * with as many cores as PEs a thread that wakes to take the endpoint's
 * locks (weft's drain flag, and shm's spinlock, which peers enqueueing into
 * the endpoint take too) preempts a polling PE and stalls its peers
 * (measured: put + quiet 73 us instead of 3 on 2 cores). So:
 *
 *  - application polls and injected puts and atomics are counted
 *    (app_polls, weft_ofi_note_app_activity; the default context's inline
 *    puts by its write count alone, app_activity); the thread looks at
 *    the count each time it wakes: when it moved, or an application thread
 *    is inside a drain right now (one long call, such as shm copying a
 *    4 MiB write, moves no count), an application thread is driving
 *    progress or streaming operations, and the thread stands down,
 *    sleeping twice as long each time (up to STANDDOWN_MAX_US), touching
 *    nothing;
 *  - when the count did not move, the thread drives progress itself and
 *    then waits on the provider's wait object where there is one: the CQ
 *    opened with FI_WAIT_FD (tcp;ofi_rxm, sockets), whose descriptor
 *    becomes readable when a peer's request arrives on any of the
 *    endpoint's connections (fi_trywait, then poll()), so a computing PE
 *    answers in about the provider's latency; shm has no wait object
 *    (FI_WAIT_FD is refused, FI_WAIT_UNSPEC/YIELD waits are spins), so
 *    there the thread naps WEFT_PROGRESS_INTERVAL between polls.
 *
 * docs/providers.md has the measured wait objects per provider
 * (docs/provider-notes/wait_objects.c). */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "core/cpu_relax.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

/* Longest nap of a thread that stood down: an application thread that
 * stops polling (returns to compute) is covered again within this. */
#define STANDDOWN_MAX_US 1000

/* The CQ drained under progress.lock, which the caller holds. */
static void drain_locked(void)
{
    weft_ofi_msg_poll();
    __atomic_store_n(&weft_ofi.progress.lock, 0, __ATOMIC_RELEASE);
}

/* 1: drained; 0: another thread is draining. */
static int drain(void)
{
    /* One thread drains the CQ at a time; the others have nothing to add. */
    if (__atomic_exchange_n(&weft_ofi.progress.lock, 1, __ATOMIC_ACQUIRE))
        return 0;
    drain_locked();
    return 1;
}

/* A drain that begins after the call: one another thread is in may have
 * read the CQ before the entry the caller was told of arrived. */
void weft_ofi_progress_full(void)
{
    if (WEFT_UNLIKELY(!weft_ofi.fab.cq))
        return;
    weft_ofi_note_app_activity();
    weft_ofi_coal_poll();
    while (__atomic_exchange_n(&weft_ofi.progress.lock, 1, __ATOMIC_ACQUIRE))
        weft_cpu_relax();
    drain_locked();
}

void weft_ofi_progress(void) { (void)weft_ofi_progress_try(); }

int weft_ofi_progress_try(void)
{
    if (WEFT_UNLIKELY(!weft_ofi.fab.cq))
        return 1;
    weft_ofi_note_app_activity();
    weft_ofi_coal_poll(); /* a peer may be waiting for our coalesced puts */
    int drained = drain();
    /* What a wait waits for may sit on one of this thread's contexts (a
     * signal it sent itself through one): libfabric 2.x's tcp;ofi_rxm
     * moves it only when that endpoint is progressed (api.signal_ops at
     * 1 PE without the progress thread hung), so every 16th poll pokes
     * the contexts with work, as the progress thread does. Without
     * contexts: one load. */
    static __thread unsigned ctx_tick __attribute__((tls_model("initial-exec")));
    if (WEFT_UNLIKELY(__atomic_load_n(&weft_ofi.ctx.list, __ATOMIC_RELAXED) != NULL) &&
        !(++ctx_tick & 15))
        weft_ofi_ctx_poke();
    return drained;
}

void weft_ofi_progress_settled(void)
{
    if (WEFT_UNLIKELY(!weft_ofi.fab.cq))
        return;
    weft_ofi_progress();
    /* The progress thread may have read counter updates from the CQ and
     * not applied them yet (a barrier flag it wrote can already be seen):
     * wait for its drain to end. */
    while (__atomic_load_n(&weft_ofi.progress.lock, __ATOMIC_ACQUIRE))
        weft_cpu_relax();
}

int weft_ofi_served(uint64_t *count)
{
    if (!weft_ofi.progress.served_cntr)
        return 0;
    /* A util counter's read progresses its endpoint too. */
    *count = fi_cntr_read(weft_ofi.progress.served_cntr) +
             __atomic_load_n(&weft_ofi.progress.msgs_served, __ATOMIC_RELAXED);
    return 1;
}

__thread int weft_ofi_waiting_own_cq __attribute__((tls_model("initial-exec")));
int weft_ofi_progress_syscalls;

/* The CQ's descriptor covers tx0's connections only: a thread waiting for
 * a context endpoint's completions (its own CQ) must not sleep on it. */
int weft_ofi_can_block(void)
{
    return weft_ofi.progress.wait_fd >= 0 && !weft_ofi_waiting_own_cq;
}

/* With a word: the progress thread may have read what changes it from
 * the CQ and not written it yet (its drain holds progress.lock), and no
 * later arrival would end the sleep, so a drain under way or a changed
 * word, looked at once the descriptor is armed, ends it at once. */
int weft_ofi_block(uint64_t ns, const uint64_t *word, uint64_t seen)
{
    if (word && __atomic_load_n(&weft_ofi.progress.lock, __ATOMIC_ACQUIRE))
        return 1;
    struct fid *f = &weft_ofi.fab.cq->fid;
    int rc = fi_trywait(weft_ofi.fab.fabric, &f, 1);
    if (rc == -FI_EAGAIN)
        return 1;
    if (rc != 0)
        return -1;
    if (word && (__atomic_load_n(word, __ATOMIC_ACQUIRE) != seen ||
                 __atomic_load_n(&weft_ofi.progress.lock, __ATOMIC_ACQUIRE)))
        return 1;
    struct pollfd pf = {weft_ofi.progress.wait_fd, POLLIN, 0};
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    return ppoll(&pf, 1, &ts, NULL) > 0;
}

void weft_ofi_wait_obj_init(void)
{
    weft_ofi.progress.wait_fd = -1;
    int fd = -1;
    if (weft_ofi.progress.cq_wait_fd &&
        fi_control(&weft_ofi.fab.cq->fid, FI_GETWAIT, &fd) == 0 && fd >= 0)
        weft_ofi.progress.wait_fd = fd;
    weft_debug("ofi: progress thread waits on %s",
               weft_ofi.progress.wait_fd >= 0 ? "the CQ's file descriptor (FI_WAIT_FD)"
                                     : "nothing (naps WEFT_PROGRESS_INTERVAL)");
}

static void nap_us(long long us)
{
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

unsigned weft_ofi_thread_turn;

/* The thread's turn in the provider begins and ends (ofi.h). The fences
 * keep the copies of the turn after its begin and before its end for a
 * waiter that reads the data, then the turn. */
static void turn_begin(void)
{
    __atomic_store_n(&weft_ofi_thread_turn, weft_ofi_thread_turn + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void turn_end(void)
{
    __atomic_store_n(&weft_ofi_thread_turn, weft_ofi_thread_turn + 1, __ATOMIC_RELEASE);
}

void weft_ofi_settle_applied_slow(unsigned turn)
{
    unsigned spins = 0;
    while (__atomic_load_n(&weft_ofi_thread_turn, __ATOMIC_ACQUIRE) == turn)
        if (++spins < 1024)
            weft_cpu_relax();
        else
            sched_yield(); /* the thread may be preempted mid-copy */
}

/* Block until a peer's request may have arrived, or ms passed. 0, or -1
 * when the provider will not let us wait on the fd after all (then the
 * caller naps instead, never spins). */
static int wait_for_peer(int ms)
{
    struct fid *f = &weft_ofi.fab.cq->fid;
    turn_begin(); /* fi_trywait may progress the endpoint */
    int rc = fi_trywait(weft_ofi.fab.fabric, &f, 1);
    turn_end();
    if (rc == -FI_EAGAIN)
        return 0; /* something is ready: progress now */
    if (rc != 0) {
        weft_debug("ofi: fi_trywait: %s; the progress thread naps instead", fi_strerror(-rc));
        return -1;
    }
    struct pollfd pf = {weft_ofi.progress.wait_fd, POLLIN, 0};
    (void)poll(&pf, 1, ms);
    return 0;
}

/* What application threads did in weft: their polls and injected puts
 * and atomics (app_polls), and the default context's inline puts, which
 * count only themselves (injected: w_issued; appended to a batch: the
 * published length, which moves with each). */
static unsigned long app_activity(void)
{
    return __atomic_load_n(&weft_ofi.progress.app_polls, __ATOMIC_RELAXED) +
           (unsigned long)__atomic_load_n(&weft_ofi_tx0.w_issued, __ATOMIC_RELAXED) +
           __atomic_load_n(&weft_ofi_tx0.coal_pub, __ATOMIC_RELAXED);
}

/* The thread's nap after a turn. In finalize's launcher barrier the PEs
 * wait in a blocking read for the last to arrive, and every PE's thread
 * drained its queue each WEFT_PROGRESS_INTERVAL: at 128 PEs, up to
 * 640,000 wake-ups a second on 2 CPUs for the whole wait. There a turn
 * that served nobody doubles the nap, up to FINALIZE_NAP_MAX_US; a peer's
 * last request then waits that long at most. Elsewhere, and where
 * serving is not counted, the interval. */
#define FINALIZE_NAP_MAX_US 4000

/* A nap that weft_ofi_thread_stop ends early (finalize joins the thread
 * right after the barrier, and would wait out the nap). */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond;

static void nap_until_stop_us(long long us)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)(us / 1000000);
    until.tv_nsec += (long)(us % 1000000) * 1000;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&stop_lock);
    if (!__atomic_load_n(&weft_ofi.progress.thread_stop, __ATOMIC_ACQUIRE))
        (void)pthread_cond_timedwait(&stop_cond, &stop_lock, &until);
    pthread_mutex_unlock(&stop_lock);
}

static long long next_nap(long long nap, long long interval, uint64_t *served_then)
{
    uint64_t served;
    if (!__atomic_load_n(&weft_ofi.progress.finalizing, __ATOMIC_RELAXED) ||
        !weft_ofi_served(&served))
        return interval;
    if (served != *served_then) {
        *served_then = served;
        return interval;
    }
    return nap * 2 > FINALIZE_NAP_MAX_US ? FINALIZE_NAP_MAX_US : nap * 2;
}

static void *progress_main(void *arg)
{
    (void)arg;
    long long interval = weft_tun_int(WEFT_TUN_PROGRESS_INTERVAL);
    if (interval < 1)
        interval = 1;
    long long standdown = interval, nap = interval;
    uint64_t served_then = 0;
    unsigned long seen = app_activity();
    int use_fd = weft_ofi.progress.wait_fd >= 0;
    while (!__atomic_load_n(&weft_ofi.progress.thread_stop, __ATOMIC_ACQUIRE)) {
        unsigned long now = app_activity();
        /* Inside one long drain an application thread moves no count
         * but holds progress_lock; a thread that took its turn then would
         * spin on the provider's lock (shm put bandwidth at 2-4 MiB: 5-7
         * GB/s instead of 11-12). */
        if (now != seen || __atomic_load_n(&weft_ofi.progress.lock, __ATOMIC_RELAXED)) {
            /* An application thread progresses: keep out of its way. */
            seen = now;
            nap_us(standdown);
            standdown = standdown * 2 > STANDDOWN_MAX_US ? STANDDOWN_MAX_US : standdown * 2;
            continue;
        }
        standdown = interval;
        turn_begin();
        drain();
        /* The application computes: its coalesced puts leave now. */
        weft_ofi_coal_flush_try(1);
        /* Counters progress too on some providers (util counters). */
        (void)fi_cntr_read(weft_ofi_tx0.wcntr);
        /* Contexts' endpoints are progressed by their owners while they
         * wait; between waits, non-blocking puts on manual-progress
         * providers would stall (tcp: the socket fills), so poke them. */
        weft_ofi_ctx_poke();
        turn_end();
        /* The count before the wait: polls made during it are what the
         * next turn looks for (read after it, they would never be seen,
         * and the thread would never stand down). */
        seen = app_activity();
        /* Bounded, so that stop and the contexts' pokes are seen. */
        int ms = (int)(interval / 1000) + 1;
        if (use_fd && wait_for_peer(ms < 10 ? 10 : ms) != 0)
            use_fd = 0;
        if (!use_fd) {
            nap = next_nap(nap, interval, &served_then);
            if (nap > interval)
                nap_until_stop_us(nap);
            else
                nap_us(nap);
        }
    }
    return NULL;
}

int weft_ofi_thread_start(void)
{
    if (weft_ofi.progress.thread_on)
        return 0;
    weft_ofi.progress.thread_stop = 0;
    static int cond_made;
    if (!cond_made) {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&stop_cond, &attr);
        pthread_condattr_destroy(&attr);
        cond_made = 1;
    }
    int rc = pthread_create(&weft_ofi.progress.thread, NULL, progress_main, NULL);
    if (rc) {
        weft_warn("weft_ofi_init", "cannot start the progress thread: %s", strerror(rc));
        return -1;
    }
    weft_ofi.progress.thread_on = 1;
    return 0;
}

void weft_ofi_thread_stop(void)
{
    if (!weft_ofi.progress.thread_on)
        return;
    pthread_mutex_lock(&stop_lock);
    __atomic_store_n(&weft_ofi.progress.thread_stop, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&stop_cond);
    pthread_mutex_unlock(&stop_lock);
    pthread_join(weft_ofi.progress.thread, NULL);
    weft_ofi.progress.thread_on = 0;
}

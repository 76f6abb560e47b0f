/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_wait.c owns the libfabric transport's waits: the counter waits of
 * quiet, blocking gets and fetching atomics (hot: a wait for what is known
 * complete calls no provider), the sleep of a wait for a peer's update on
 * the counter of what arrives, the EAGAIN retry with its timeout, error
 * completions and the abort that names a failed call. */
#include <inttypes.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#include "transport/ofi/ofi_internal.h"

void weft_ofi_fail(const char *what, int pe, ssize_t rc)
{
    char why[600];
    weft_ofi_diagnose(weft_ofi.fab.info ? weft_ofi_provider_name() : NULL, why, sizeof why);
    if (pe >= 0)
        weft_fatal(what, "to PE %d failed: %s (%zd)%s", pe, fi_strerror((int)-rc), rc, why);
    weft_fatal(what, "failed: %s (%zd)%s", fi_strerror((int)-rc), rc, why);
}

static long now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec;
}

/* weft_poll_yield for a wait on tx's completions: a context's endpoint has
 * its own CQ, which the shared CQ's descriptor does not cover, so such a
 * wait must not nap on that descriptor (weft_ofi_can_block). */
static void poll_yield_for(struct weft_ofi_tx *tx, unsigned *spins)
{
    int own_cq = tx && tx->cq != weft_ofi.fab.cq;
    weft_ofi_waiting_own_cq += own_cq;
    weft_poll_yield(spins);
    weft_ofi_waiting_own_cq -= own_cq;
}

void weft_ofi_retry_wait(struct weft_ofi_tx *tx, struct weft_ofi_retry *r, const char *what,
                         int pe)
{
    if (r->spins == 0)
        r->start = now_sec();
    if (tx && tx->cq != weft_ofi.fab.cq)
        (void)fi_cntr_read(tx->wcntr); /* util counters progress their endpoints */
    poll_yield_for(tx, &r->spins);
    if ((r->spins & 1023) == 0 && weft_ofi.retry_timeout > 0 &&
        now_sec() - r->start > weft_ofi.retry_timeout) {
        if (pe >= 0)
            weft_fatal(what, "to PE %d: resources busy (EAGAIN) for more than %ld s "
                       "(WEFT_RETRY_TIMEOUT)", pe, weft_ofi.retry_timeout);
        weft_fatal(what, "resources busy (EAGAIN) for more than %ld s (WEFT_RETRY_TIMEOUT)",
                   weft_ofi.retry_timeout);
    }
}

void weft_ofi_tx_progress(struct weft_ofi_tx *tx)
{
    if (tx && tx != &weft_ofi_tx0 && tx->cq != weft_ofi.fab.cq)
        (void)fi_cntr_read(tx->wcntr); /* util counters progress their endpoints */
}

void weft_ofi_poll_yield_tx(struct weft_ofi_tx *tx, unsigned *spins)
{
    weft_ofi_tx_progress(tx);
    poll_yield_for(tx, spins);
}

/* The update counter's value at this thread's last look (waits for a
 * peer's update, ofi.h). */
static __thread uint64_t update_seen;

void weft_ofi_update_look(void)
{
    update_seen = fi_cntr_read(weft_ofi.progress.update_cntr);
    /* Counted before it is applied: sockets reports a message to the CQ,
     * then counts it; messages and immediate data are applied by the
     * drain, remote writes and atomics before they are counted. */
    weft_ofi_progress_full();
}

void weft_ofi_update_test(void)
{
    if (fi_cntr_read(weft_ofi.progress.update_cntr) != update_seen) {
        weft_ofi_update_look();
        return;
    }
    weft_ofi_note_app_activity();
    weft_ofi_coal_poll(); /* a peer may be waiting for our coalesced puts */
}

/* libfabric 1.17's sockets ends a timed fi_cntr_wait at once (its
 * condition-variable deadline is taken from the wrong clock), so a sleep
 * is untimed and a ticker thread adds 1 to the counter every
 * UPDATE_TICK_MS while a thread sleeps: the sleeper wakes, looks at memory
 * for nothing and sleeps again, and its wait's slow checks (hang report,
 * finalized peers) still run. */
#define UPDATE_TICK_MS 50
static struct {
    pthread_t thread;
    int on, stop;
    int sleepers; /* threads inside fi_cntr_wait now */
} ticker;

static void *ticker_main(void *arg)
{
    (void)arg;
    struct timespec ts = {0, UPDATE_TICK_MS * 1000000L};
    while (!__atomic_load_n(&ticker.stop, __ATOMIC_ACQUIRE)) {
        nanosleep(&ts, NULL);
        if (__atomic_load_n(&ticker.sleepers, __ATOMIC_ACQUIRE))
            (void)fi_cntr_add(weft_ofi.progress.update_cntr, 1);
    }
    return NULL;
}

static void ticker_start(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    if (!ticker.on && pthread_create(&ticker.thread, NULL, ticker_main, NULL) == 0)
        ticker.on = 1;
    pthread_mutex_unlock(&lock);
    if (!ticker.on) {
        weft_debug("ofi: no thread to end sleeps on the update counter; waits poll memory");
        weft_ofi_updates_counted = 0;
    }
}

void weft_ofi_update_fini(void)
{
    if (!ticker.on)
        return;
    __atomic_store_n(&ticker.stop, 1, __ATOMIC_RELEASE);
    pthread_join(ticker.thread, NULL);
    ticker.on = ticker.stop = 0;
}

void weft_ofi_update_block(void)
{
    if (WEFT_UNLIKELY(!__atomic_load_n(&ticker.on, __ATOMIC_ACQUIRE))) {
        ticker_start();
        if (!ticker.on)
            return;
    }
    __atomic_add_fetch(&ticker.sleepers, 1, __ATOMIC_ACQ_REL);
    int rc = fi_cntr_wait(weft_ofi.progress.update_cntr, update_seen + 1, -1);
    __atomic_sub_fetch(&ticker.sleepers, 1, __ATOMIC_ACQ_REL);
    if (WEFT_UNLIKELY(rc && rc != -FI_EAGAIN)) {
        /* An error counted (a peer's access failed here) ends every later
         * wait at once: poll from now on, as without a counter. */
        weft_debug("ofi: fi_cntr_wait: %s; waits poll memory from now on", fi_strerror(-rc));
        weft_ofi_updates_counted = 0;
    }
}

/* The pause of a wait for replies (ofi_internal.h). The first one takes
 * the count of arrivals and handles what came; each later one sleeps in
 * fi_cntr_wait until the count passes it (tcp;ofi_rxm's counter drives
 * the endpoint's progress inside the wait, which also serves peers' reads
 * and writes), then does the same. A reply counted before the count was
 * taken is handled by the progress right after (or by the thread whose
 * drain was under way), so none is slept past.
 * Between sleeps of REPLY_SLICE_MS at most, and every 64 wakes, the
 * runtime's slow phase runs (hang report, finalized peers). */
#define REPLY_SLICE_MS 50
static __thread uint64_t arrivals_seen;

void weft_ofi_reply_pause(struct weft_ofi_tx *tx, unsigned *spins)
{
    struct fid_cntr *c = weft_ofi.progress.arrivals;
    if (!weft_ofi.progress.replies_sleep || tx != &weft_ofi_tx0) {
        weft_poll_yield(spins);
        return;
    }
    unsigned s = ++*spins;
    if (s > 1) {
        int rc = fi_cntr_wait(c, arrivals_seen + 1, REPLY_SLICE_MS);
        if (WEFT_UNLIKELY(rc || !(s & 63)))
            weft_wait_slow(s);
        if (WEFT_UNLIKELY(rc && rc != -FI_ETIMEDOUT && rc != -FI_EAGAIN)) {
            /* An error counted ends every later wait at once: poll. */
            weft_debug("ofi: fi_cntr_wait (arrivals): %s; waits for replies poll from now on",
                       fi_strerror(-rc));
            weft_ofi.progress.replies_sleep = 0;
        }
    }
    uint64_t seen = fi_cntr_read(c);
    /* Another thread draining may hold a reply counted before seen: the
     * next pause then looks again without sleeping (a spin on its drain
     * lock costs more, under valgrind most of all). */
    arrivals_seen = weft_ofi_progress_try() ? seen : seen - 1;
}

void weft_ofi_wait_replies(struct weft_ofi_tx *tx)
{
    unsigned spins = 0;
    while (__atomic_load_n(&tx->am_done, __ATOMIC_ACQUIRE) !=
           __atomic_load_n(&tx->am_issued, __ATOMIC_RELAXED))
        weft_ofi_reply_pause(tx, &spins);
}

/* A context's endpoint reports its failed operations on its own CQ; the
 * default's land in the shared CQ, which progress drains. */
int weft_ofi_read_cq_error(struct fid_cq *cq, struct fi_cq_err_entry *err)
{
    memset(err, 0, sizeof *err);
    if (fi_cq_readerr(cq, err, 0) < 0)
        return -1;
    const char *s = fi_cq_strerror(cq, err->prov_errno, err->err_data, NULL, 0);
    snprintf(weft_ofi.last_err, sizeof weft_ofi.last_err, "%s (%s)", fi_strerror(err->err),
             s ? s : "");
    return 0;
}

static void pick_up_error_text(struct weft_ofi_tx *tx)
{
    if (tx->cq == weft_ofi.fab.cq) {
        weft_ofi_progress();
        return;
    }
    struct fi_cq_err_entry err;
    (void)weft_ofi_read_cq_error(tx->cq, &err);
}

/* Counters first: on the util-based providers (shm, tcp;ofi_rxm) reading a
 * counter progresses the endpoints bound to it, which is all a write or a
 * read of ours needs, so each poll is one counter read and the loop is as
 * tight as the provider's progress: no pause between reads (the read is a
 * provider call, over shm a CPU pause of about 25 ns would lengthen each
 * poll by half and the completion is seen that much later). Every
 * COUNTER_POLLS polls the error counter is read (its read progresses the
 * endpoints too, so on every poll it doubled each poll's cost; an
 * operation that failed is never counted as done, so the loop reaches it)
 * and the full progress call runs (draining the CQ for incoming messages,
 * counting this thread as polling; a peer waiting on one of our
 * software-atomic replies while we wait for it needs it). A thread that
 * naps rather than yields (weft_poll_thread_naps) pauses at every poll:
 * over tcp each counter read is a poll(2) of the sockets. */
#define COUNTER_POLLS 8u
static void check_cntr_errors(struct weft_ofi_tx *tx, int reads, const char *what)
{
    struct fid_cntr *c = reads ? tx->rcntr : tx->wcntr;
    uint64_t *err_seen = reads ? &tx->r_err_seen : &tx->w_err_seen;
    uint64_t err = fi_cntr_readerr(c);
    if (WEFT_UNLIKELY(err != *err_seen)) {
        pick_up_error_text(tx);
        weft_fatal(what, "%" PRIu64 " %s operation(s) failed: %s", err - *err_seen,
                   reads ? "get/fetching atomic" : "put/atomic",
                   weft_ofi.last_err[0] ? weft_ofi.last_err : "(no detail from provider)");
    }
}

/* The polls of tx's write (reads 0) or read counter once the first read
 * fell short; out of line, so that the usual quiet, whose first read finds
 * everything done, neither builds this frame nor reads the counter twice. */
void weft_ofi_wait_cntr_polling(struct weft_ofi_tx *tx, int reads, uint64_t issued,
                                const char *what)
{
    struct fid_cntr *c = reads ? tx->rcntr : tx->wcntr;
    unsigned spins = 0, every = weft_poll_naps_here() ? 1 : COUNTER_POLLS, left = every;
    uint64_t done;
    do {
        if (--left == 0) {
            left = every;
            check_cntr_errors(tx, reads, what);
            poll_yield_for(tx, &spins);
        }
        done = fi_cntr_read(c);
    } while (WEFT_UNLIKELY(done < issued));
    *(reads ? &tx->r_done_seen : &tx->w_done_seen) = done;
}

int weft_ofi_reads_reached(struct weft_ofi_tx *tx, uint64_t count)
{
    return weft_ofi_cntr_reached(tx, 1, count);
}

void weft_ofi_wait_writes(struct weft_ofi_tx *tx, const char *what)
{
    weft_ofi_wait_cntr(tx, 0, __atomic_load_n(&tx->w_issued, __ATOMIC_RELAXED), what);
}

void weft_ofi_wait_reads(struct weft_ofi_tx *tx, const char *what)
{
    weft_ofi_wait_cntr(tx, 1, __atomic_load_n(&tx->r_issued, __ATOMIC_RELAXED), what);
}

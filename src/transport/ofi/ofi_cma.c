/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_cma.c owns large gets and puts over libfabric shm that the origin
 * copies itself, with process_vm_readv and process_vm_writev called here
 * on the peer's process (published once in the start-up exchange) and its
 * segment addresses; and the ordering read that must come before either,
 * which a non-blocking put does not wait for (a target that computes would
 * hold it up): the put is queued on its tx and copied once the read is
 * back, at the latest by the next fence or quiet.
 *
 * Why the origin copies. On weft's endpoint, which orders RMA (fence is
 * free on shm), libfabric 1.17's shm moves a read through the target's
 * bounce buffers in pieces, each needing the target's progress: about half
 * of SOS's bandwidth from 32 KiB up (docs/providers.md, "shm: how reads
 * move"); it reads by CMA only on a domain without RMA ordering, and a
 * second such endpoint would map a second region of every node peer at
 * start-up. A put on the ordered endpoint is copied in by the target's
 * progress (process_vm_readv there): a target that computes holds it up,
 * and the copy runs 3-5% slower than the writer's own process_vm_writev
 * (docs/performance.md).
 *
 * Why the ordering read. Writes injected to a PE (every put up to 4 KiB,
 * every atomic) wait in that PE's command queue until its progress applies
 * them, and weft's quiet does not wait for that (injects_queued_in_order:
 * whatever observes them later reaches that PE through the same queue,
 * behind them). A CMA read or write reaches the memory without passing
 * through the queue: a read could miss a put that the reader has every
 * right to see (the writer quieted and signalled the reader), and a write
 * could be overwritten by an older put still queued (the writer's own
 * before a fence or quiet, or another PE's that the writer learned of). So
 * the first bytes of each such get are read through the ordered endpoint
 * (for a put, 8 bytes of its destination) and the copy waits until they
 * are back: by then the target has applied everything queued before them,
 * which includes everything the origin can know about. The ordered read is
 * not repeated for the next get or put to the same PE while nothing could
 * have reached this PE meanwhile (cma_head_valid): a window of them then
 * pays for it once.
 *
 * No mark of a put written by CMA is needed at its target: a PE that
 * learns something from such a put learns no more than the writer knew
 * when its ordering read to that PE was served, and serving it counted
 * there (the target's remote-access counter), which ends the target's own
 * ordering reads that were older; newer ones cover what the writer knew. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport/onnode/onnode.h"
#include "transport/ofi/ofi_internal.h"

struct weft_ofi_cma weft_ofi_cma = {.min = SIZE_MAX, .wmin = SIZE_MAX};

/* The ordering read's length at most: the provider's small-read path
 * (weft_ofi.amo.get_by_atomic_max) where it has one. */
#define CMA_HEAD_MAX 256

/* Relaxed stores: other threads read min and wmin without a lock. */
static void cma_off(const char *why)
{
    if (__atomic_exchange_n(&weft_ofi_cma.min, SIZE_MAX, __ATOMIC_RELAXED) != SIZE_MAX)
        weft_debug("ofi: shm gets by CMA off, read through the target's queue from now: %s", why);
}

static void cma_writes_off(const char *why)
{
    if (__atomic_exchange_n(&weft_ofi_cma.wmin, SIZE_MAX, __ATOMIC_RELAXED) != SIZE_MAX)
        weft_debug("ofi: shm puts by CMA off, written through the target's queue from now: %s",
                   why);
}

/* shm, reached for every peer (a direct store would bypass the queues the
 * ordering read relies on), injects queued in order (the reason for that
 * read, and what makes it enough), no local registration needed. */
int weft_ofi_cma_wanted(void)
{
    return (weft_tun_int(WEFT_TUN_SHM_CMA_READ) > 0 || weft_tun_int(WEFT_TUN_SHM_CMA_WRITE) > 0) &&
           weft_rt.n_pes > 1 &&
           !strcmp(weft_ofi.fab.info->fabric_attr->prov_name, "shm") &&
           weft_ofi.order.injects_queued_in_order && !weft_onnode.mixed && !weft_onnode.split &&
           !weft_ofi.fab.mr_local;
}

/* A copy's bytes below two ordering reads' worth gain nothing. */
static size_t cma_threshold(enum weft_tunable_id t)
{
    size_t min = (size_t)weft_tun_int(t);
    if (!min)
        return SIZE_MAX;
    return min < 2 * CMA_HEAD_MAX ? 2 * CMA_HEAD_MAX : min;
}

void weft_ofi_cma_open(struct weft_ofi_cma_blob *mine)
{
    memset(mine, 0, sizeof *mine);
    if (!weft_ofi_cma_wanted() || !weft_ofi.progress.served_cntr)
        return;
    weft_ofi_cma.base = calloc((size_t)weft_rt.n_pes * WEFT_NSEGS, sizeof(uint64_t));
    weft_ofi_cma.pid = calloc((size_t)weft_rt.n_pes, sizeof(int32_t));
    if (!weft_ofi_cma.base || !weft_ofi_cma.pid) {
        free(weft_ofi_cma.base);
        free(weft_ofi_cma.pid);
        weft_ofi_cma.base = NULL;
        weft_ofi_cma.pid = NULL;
        return;
    }
    mine->pid = (int32_t)getpid();
    weft_ofi_cma.min = cma_threshold(WEFT_TUN_SHM_CMA_READ);
    weft_ofi_cma.wmin = cma_threshold(WEFT_TUN_SHM_CMA_WRITE);
    if (weft_ofi_cma.min != SIZE_MAX)
        weft_debug("ofi: shm gets of %zu bytes and more read by CMA", weft_ofi_cma.min);
    if (weft_ofi_cma.wmin != SIZE_MAX)
        weft_debug("ofi: shm puts of %zu bytes and more written by CMA", weft_ofi_cma.wmin);
}

void weft_ofi_cma_connect(int pe, const struct weft_ofi_cma_blob *blob, const uint64_t *bases)
{
    if (!weft_ofi_cma.base || pe == weft_rt.my_pe)
        return;
    memcpy(&weft_ofi_cma.base[(size_t)pe * WEFT_NSEGS], bases, WEFT_NSEGS * sizeof(uint64_t));
    /* A PE that did not publish its process is read and written the
     * ordered way. */
    weft_ofi_cma.pid[pe] = blob->pid > 0 ? blob->pid : 0;
}

void weft_ofi_cma_close(void)
{
    if (weft_ofi_cma.base)
        weft_debug("ofi: CMA reads %" PRIu64 " and writes %" PRIu64 " (%" PRIu64
                   " queued behind their ordering read) after %" PRIu64 " ordering reads",
                   weft_ofi_cma.reads, weft_ofi_cma.writes, weft_ofi_cma.deferred,
                   weft_ofi_cma.heads);
    free(weft_ofi_cma.base);
    free(weft_ofi_cma.pid);
    memset(&weft_ofi_cma, 0, sizeof weft_ofi_cma);
    weft_ofi_cma.min = weft_ofi_cma.wmin = SIZE_MAX;
}

void weft_ofi_cma_abandon(void)
{
    weft_ofi_cma.min = weft_ofi_cma.wmin = SIZE_MAX;
}

/* The address of (seg, off) in pe's process. */
static char *cma_remote(int pe, int seg, uint64_t off)
{
    return (char *)(uintptr_t)(weft_ofi_cma.base[(size_t)pe * WEFT_NSEGS + (size_t)seg] + off);
}

/* Whether the last ordering read through tx still covers a get from or a
 * put to pe (see the top of this file): it went to pe's queue, and since
 * it left
 *  - nothing was applied to this PE's memory (peers' writes and atomics
 *    through the main endpoint, counted by the provider, messages,
 *    counted by the drain, and the ordering reads that come before a
 *    peer's put written by CMA: whatever this PE learns of others' puts
 *    comes that way);
 *  - no quiet completed anything on any context here (puts queued at pe
 *    after the ordering read that a quiet made this PE's to see);
 *  - tx issued nothing else (its own later puts and atomics to pe).
 * The first two are read before the ordering read leaves, the third after
 * it is back (it counts itself). This PE's own copies by CMA count as
 * nothing: they complete before the call returns. */
static uint64_t cma_applied(void)
{
    return fi_cntr_read(weft_ofi.progress.served_cntr) +
           __atomic_load_n(&weft_ofi.progress.msgs_served, __ATOMIC_RELAXED);
}

/* The quiets that completed something, plus the default context's
 * issued writes: its quiet after inline puts alone (weft_ofi_quiet_inline)
 * completes them without counting itself, and none completes without one
 * issued since the last look. */
static uint64_t cma_quiets(void)
{
    return __atomic_load_n(&weft_ofi.progress.quiets, __ATOMIC_RELAXED) +
           __atomic_load_n(&weft_ofi_tx0.w_issued, __ATOMIC_RELAXED);
}

static uint64_t cma_issued(const struct weft_ofi_tx *tx)
{
    return __atomic_load_n(&tx->w_issued, __ATOMIC_RELAXED) +
           __atomic_load_n(&tx->r_issued, __ATOMIC_RELAXED);
}

/* The three counts above against those taken for tx's last ordering
 * read: issued_then is cma_issued(tx) once that read had left. */
static int cma_nothing_since(const struct weft_ofi_tx *tx, uint64_t issued_then)
{
    return issued_then == cma_issued(tx) && tx->cma_quiets == cma_quiets() &&
           tx->cma_applied == cma_applied();
}

static int cma_head_valid(const struct weft_ofi_tx *tx, int pe)
{
    return tx->cma_head_pe == pe && cma_nothing_since(tx, tx->cma_issued);
}

/* An ordering read leaves: len bytes at (seg, off) of pe into dst through
 * tx's own endpoint, after the counts it is checked against later. */
static void ordering_read_start(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off,
                                size_t len, int pe)
{
    tx->cma_head_pe = -1;
    tx->cma_applied = cma_applied();
    tx->cma_quiets = cma_quiets();
    weft_ofi_get_via_ep(tx, dst, seg, off, len, pe);
    __atomic_fetch_add(&weft_ofi_cma.heads, 1, __ATOMIC_RELAXED);
}

/* The ordering read, waited for. The head is not valid until the
 * caller's copy succeeded and it sets cma_head_pe. */
static void ordering_read(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off, size_t len,
                          int pe, const char *call)
{
    ordering_read_start(tx, dst, seg, off, len, pe);
    weft_ofi_wait_reads(tx, call);
    tx->cma_issued = cma_issued(tx);
}

/* len bytes between here (this process) and there (pe's process) by
 * copy, process_vm_readv or process_vm_writev, looping where the kernel
 * stops short at a page: NULL once done, else why it could not. */
typedef ssize_t (*cma_copy_fn)(pid_t, const struct iovec *, unsigned long, const struct iovec *,
                               unsigned long, unsigned long);
static const char *cma_copy(cma_copy_fn copy, char *here, char *there, size_t len, int pe)
{
    for (size_t done = 0; done < len;) {
        struct iovec l = {here + done, len - done}, r = {there + done, len - done};
        ssize_t n = copy((pid_t)weft_ofi_cma.pid[pe], &l, 1, &r, 1, 0);
        if (n <= 0)
            return n < 0 ? strerror(errno) : "no progress";
        done += (size_t)n;
    }
    return NULL;
}

/* len bytes at from in pe's process to dst by process_vm_readv: 0 once
 * in place, -1 when it may not (ptrace scope, another user) or pe is gone;
 * gets by CMA are then off, from every PE (they run alike), and the caller
 * reads the rest the ordered way. */
static int cma_read(char *dst, const char *from, size_t len, int pe)
{
    const char *why = cma_copy(process_vm_readv, dst, (char *)(uintptr_t)from, len, pe);
    if (why) {
        cma_off(why);
        return -1;
    }
    __atomic_fetch_add(&weft_ofi_cma.reads, 1, __ATOMIC_RELAXED);
    return 0;
}

size_t weft_ofi_cma_get(struct weft_ofi_tx *tx, char *dst, int seg, uint64_t off, size_t len,
                        int pe)
{
    size_t head = 0;
    if (tx->cma_read_seq) /* its ordering read would replace the one out */
        weft_ofi_cma_settle(tx, "shmem_get");
    if (!weft_ofi_cma.pid[pe]) /* len >= min >= 2 * CMA_HEAD_MAX (open) */
        return 0;
    if (!cma_head_valid(tx, pe)) {
        /* The ordering read: its bytes are the get's first ones. */
        head = weft_ofi.amo.get_by_atomic_max ? weft_ofi.amo.get_by_atomic_max : 8;
        if (head > CMA_HEAD_MAX)
            head = CMA_HEAD_MAX;
        ordering_read(tx, dst, seg, off, head, pe, "shmem_get");
    }
    if (cma_read(dst + head, cma_remote(pe, seg, off + head), len - head, pe))
        return head; /* refused: the rest goes ordered */
    /* The copy ran in the system call, with nothing counted as this
     * thread's progress: a loop of such gets would look like computing to
     * the progress thread, which would wake every WEFT_PROGRESS_INTERVAL to
     * drain, preempting the copy (get_lat at 1 MiB over shm: 111 us
     * against 95 with the thread off). Drive progress here, as a wait loop
     * does, and the thread stands down. */
    weft_ofi_progress();
    if (head)
        tx->cma_head_pe = pe;
    return len;
}

/* Puts queued behind an ordering read that was not waited for. More than
 * this many at once go the ordered way: a non-blocking put never waits. */
#define CMA_DEFER_MAX 64

struct weft_ofi_cma_defer {
    const void *src;
    uint64_t off;
    size_t len;
    int seg;
};

/* src to (seg, off) of pe by process_vm_writev: 0 once in place, -1 when
 * it may not (ptrace scope, another user) or pe is gone; puts by CMA are
 * then off, to every PE (they run alike), and the caller writes it the
 * ordered way. */
static int cma_write(int seg, uint64_t off, const void *src, size_t len, int pe)
{
    const char *why =
        cma_copy(process_vm_writev, (char *)(uintptr_t)src, cma_remote(pe, seg, off), len, pe);
    if (why) {
        cma_writes_off(why);
        return -1;
    }
    __atomic_fetch_add(&weft_ofi_cma.writes, 1, __ATOMIC_RELAXED);
    return 0;
}

/* Whether a put to pe may queue behind the ordering read still out: it
 * went to pe, and nothing that head validity watches changed since it
 * left (what it covers is all the put may rely on). */
static int cma_may_defer(const struct weft_ofi_tx *tx, int pe)
{
    return tx->cma_read_seq && tx->cma_read_pe == pe && tx->cma_ndefer < CMA_DEFER_MAX &&
           cma_nothing_since(tx, tx->cma_read_issued);
}

static int cma_defer(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len)
{
    if (!tx->cma_defer) {
        tx->cma_defer = malloc(CMA_DEFER_MAX * sizeof *tx->cma_defer);
        if (!tx->cma_defer)
            return 0;
    }
    tx->cma_defer[tx->cma_ndefer++] = (struct weft_ofi_cma_defer){src, off, len, seg};
    __atomic_fetch_add(&weft_ofi_cma.deferred, 1, __ATOMIC_RELAXED);
    weft_ofi_set_active(tx, 1); /* quiet must come to weft_ofi_cma_settle */
    return 1;
}

/* The ordering read for a non-blocking put: posted, not waited for. */
static void ordering_read_post(struct weft_ofi_tx *tx, int seg, uint64_t off, int pe)
{
    ordering_read_start(tx, &tx->cma_read_word, seg, off, sizeof tx->cma_read_word, pe);
    tx->cma_read_seq = __atomic_load_n(&tx->r_issued, __ATOMIC_RELAXED);
    tx->cma_read_issued = cma_issued(tx);
    tx->cma_read_pe = pe;
}

/* The ordering read is back: copy the puts behind it (the ordered way if
 * copies are off), and if tx issued nothing since it left, it covers
 * later puts to its PE as a waited one does. */
static void cma_read_back(struct weft_ofi_tx *tx)
{
    int pe = tx->cma_read_pe;
    unsigned n = tx->cma_ndefer;
    tx->cma_read_seq = 0;
    tx->cma_ndefer = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct weft_ofi_cma_defer *d = &tx->cma_defer[i];
        if (__atomic_load_n(&weft_ofi_cma.wmin, __ATOMIC_RELAXED) == SIZE_MAX ||
            cma_write(d->seg, d->off, d->src, d->len, pe))
            weft_ofi_put_via_ep(tx, d->seg, d->off, d->src, d->len, pe, 0);
    }
    if (tx->cma_read_issued == cma_issued(tx)) {
        tx->cma_issued = tx->cma_read_issued;
        tx->cma_head_pe = pe;
    }
    if (n)
        weft_ofi_note_app_activity(); /* see weft_ofi_cma_put */
}

void weft_ofi_cma_settle(struct weft_ofi_tx *tx, const char *call)
{
    if (!tx->cma_read_seq)
        return;
    weft_ofi_wait_reads(tx, call);
    cma_read_back(tx);
}

int weft_ofi_cma_put(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                     int pe, int blocking)
{
    if (!weft_ofi_cma.pid[pe]) /* the table is there while wmin is not SIZE_MAX */
        return 0;
    if (tx->cma_read_seq) {
        if (blocking)
            weft_ofi_cma_settle(tx, "shmem_put");
        else if (weft_ofi_reads_reached(tx, tx->cma_read_seq))
            cma_read_back(tx);
        else
            return cma_may_defer(tx, pe) && cma_defer(tx, seg, off, src, len);
        if (__atomic_load_n(&weft_ofi_cma.wmin, __ATOMIC_RELAXED) == SIZE_MAX)
            /* a copy behind it failed */
            return 0;
    }
    if (!cma_head_valid(tx, pe)) {
        if (!blocking) {
            /* Not waited for: a target that computes would hold up a call
             * that promises not to wait. */
            ordering_read_post(tx, seg, off, pe);
            return cma_defer(tx, seg, off, src, len);
        }
        uint64_t scratch;
        ordering_read(tx, &scratch, seg, off, sizeof scratch, pe, "shmem_put");
    }
    if (cma_write(seg, off, src, len, pe))
        return 0;
    tx->cma_head_pe = pe;
    /* The copy ran in the system call: tell the progress thread the
     * application is busy, so that it stands down (see weft_ofi_cma_get). */
    weft_ofi_note_app_activity();
    return 1;
}

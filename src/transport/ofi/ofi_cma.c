/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_cma.c owns large gets and puts over libfabric shm that the origin
 * copies itself: gets with process_vm_readv, through a second shm domain
 * and endpoint opened without RMA ordering and with FI_MR_VIRT_ADDR, on
 * which libfabric 1.17 serves a read by its "fast RMA" path; puts with
 * process_vm_writev called here; and the ordering read that must come
 * before either, which a non-blocking put does not wait for (a target
 * that computes would hold it up): the put is queued on its tx and
 * copied once the read is back, at the latest by the next fence or
 * quiet.
 *
 * Why a second endpoint. libfabric 1.17's shm reads by CMA only on that
 * path (smr_generic_rma), which it turns off for the whole domain when the
 * endpoint orders RMA (weft's does: fence is free on shm) and for every
 * read flagged FI_DELIVERY_COMPLETE (weft's default flag). On the ordered
 * endpoint a get goes through the target's bounce buffers in pieces, each
 * needing the target's progress: about half of SOS's bandwidth from 32 KiB
 * up (docs/providers.md, "shm: how reads move"). A put on the ordered
 * endpoint is copied in by the target's progress (process_vm_readv there):
 * a target that computes holds it up, and the copy runs 3-5% slower than
 * the writer's own process_vm_writev (docs/performance.md).
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
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/cpu_relax.h"
#include "transport/onnode/onnode.h"
#include "transport/ofi/ofi_internal.h"

struct weft_ofi_cma weft_ofi_cma = {.min = SIZE_MAX, .wmin = SIZE_MAX};

/* The ordering read's length at most: the provider's small-read path
 * (weft_ofi.amo.get_by_atomic_max) where it has one. */
#define CMA_HEAD_MAX 256
/* Entries in the second endpoint's queues (see weft_ofi_cma_open). */
#define CMA_QUEUE 256

/* One thread at a time on the endpoint (its domain is FI_THREAD_DOMAIN):
 * gets spin for it, polls skip when it is taken. */
static void cma_lock(void)
{
    unsigned spins = 0;
    while (__atomic_exchange_n(&weft_ofi_cma.lock, 1, __ATOMIC_ACQUIRE))
        if (++spins < 256)
            weft_cpu_relax();
        else
            sched_yield();
}

static int cma_trylock(void)
{
    return !__atomic_exchange_n(&weft_ofi_cma.lock, 1, __ATOMIC_ACQUIRE);
}

static void cma_unlock(void)
{
    __atomic_store_n(&weft_ofi_cma.lock, 0, __ATOMIC_RELEASE);
}

/* Relaxed stores: other threads' gets read min without the lock. */
static void cma_off(const char *why)
{
    weft_debug("ofi: shm reads by CMA off: %s", why);
    __atomic_store_n(&weft_ofi_cma.min, SIZE_MAX, __ATOMIC_RELAXED);
}

static void cma_writes_off(const char *why)
{
    weft_debug("ofi: shm puts by CMA off: %s", why);
    __atomic_store_n(&weft_ofi_cma.wmin, SIZE_MAX, __ATOMIC_RELAXED);
}

#define CMA_CHECK(call, what)                                      \
    do {                                                           \
        int rc_ = (call);                                          \
        if (rc_) {                                                 \
            weft_debug("ofi: shm CMA read endpoint: %s: %s", what, \
                       fi_strerror(-rc_));                         \
            reads_close();                                         \
            return;                                                \
        }                                                          \
    } while (0)

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

/* The endpoint's bindings (weft_ofi_ep_open). */
static int bind_cma(struct fid_ep *ep, void *arg, const char **what)
{
    (void)arg;
    int rc;
    if ((rc = fi_ep_bind(ep, &weft_ofi_cma.av->fid, 0)))
        return *what = "fi_ep_bind(av)", rc;
    if ((rc = fi_ep_bind(ep, &weft_ofi_cma.cq->fid,
                         FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)))
        return *what = "fi_ep_bind(cq)", rc;
    if ((rc = fi_ep_bind(ep, &weft_ofi_cma.cntr->fid, FI_READ)))
        return *what = "fi_ep_bind(counter)", rc;
    return 0;
}

static void reads_close(void);

/* The tables puts by CMA need, and this PE's part of the blob. */
static void writes_open(struct weft_ofi_cma_blob *mine)
{
    size_t wmin = (size_t)weft_tun_int(WEFT_TUN_SHM_CMA_WRITE);
    if (!wmin)
        return;
    mine->pid = (int32_t)getpid();
    /* Below that the ordering read costs more than the copy saves. */
    weft_ofi_cma.wmin = wmin < 2 * CMA_HEAD_MAX ? 2 * CMA_HEAD_MAX : wmin;
    weft_debug("ofi: shm puts of %zu bytes and more written by CMA", weft_ofi_cma.wmin);
}

void weft_ofi_cma_open(struct weft_ofi_cma_blob *mine)
{
    memset(mine, 0, sizeof *mine);
    if (!weft_ofi_cma_wanted() || !weft_ofi.progress.served_cntr)
        return;
    weft_ofi_cma.base = calloc((size_t)weft_rt.n_pes * WEFT_NSEGS, sizeof(uint64_t));
    weft_ofi_cma.card = calloc((size_t)weft_rt.n_pes, sizeof(uint32_t));
    if (!weft_ofi_cma.base || !weft_ofi_cma.card) {
        free(weft_ofi_cma.base);
        free(weft_ofi_cma.card);
        weft_ofi_cma.base = NULL;
        weft_ofi_cma.card = NULL;
        return;
    }
    writes_open(mine);
    if (weft_tun_int(WEFT_TUN_SHM_CMA_READ) <= 0)
        return;
    const struct fi_info *main_fi = weft_ofi.fab.info;
    size_t min = (size_t)weft_tun_int(WEFT_TUN_SHM_CMA_READ);
    struct fi_info *hints = weft_ofi_base_hints("shm", 0);
    if (!hints)
        return;
    hints->caps = FI_RMA | FI_READ | FI_REMOTE_READ;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR;
    hints->tx_attr->msg_order = hints->rx_attr->msg_order = 0;
    hints->tx_attr->op_flags = 0;
    hints->fabric_attr->name = strdup(main_fi->fabric_attr->name);
    hints->domain_attr->name = strdup(main_fi->domain_attr->name);
    struct fi_info *got = NULL;
    int rc = fi_getinfo(WEFT_FI_API_VERSION, NULL, NULL, 0, hints, &got);
    fi_freeinfo(hints);
    if (rc) {
        weft_debug("ofi: shm CMA read endpoint: fi_getinfo: %s", fi_strerror(-rc));
        return;
    }
    struct fi_info *fi = fi_dupinfo(got);
    fi_freeinfo(got);
    if (!fi)
        return;
    weft_ofi_cma.info = fi;
    /* The provider decides per domain from these (smr_fast_rma_enabled):
     * virtual addresses, and no RMA ordering at all. */
    fi->tx_attr->msg_order = fi->rx_attr->msg_order = 0;
    fi->tx_attr->op_flags = 0;
    /* The queue holds only read notices (one credit each until this PE's
     * drain retires them) and shm sizes its inject pool, which it touches
     * whole, by it: 256 entries, 1 MiB, instead of the default's 4 MiB. */
    if (fi->rx_attr->size > CMA_QUEUE)
        fi->rx_attr->size = CMA_QUEUE;
    if (fi->tx_attr->size > CMA_QUEUE)
        fi->tx_attr->size = CMA_QUEUE;
    if (!(fi->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ||
        (fi->domain_attr->mr_mode & (FI_MR_PROV_KEY | FI_MR_LOCAL))) {
        weft_debug("ofi: shm CMA read endpoint: mr_mode %s",
                   fi_tostr(&fi->domain_attr->mr_mode, FI_TYPE_MR_MODE));
        weft_ofi_cma_close();
        return;
    }
    CMA_CHECK(fi_domain(weft_ofi.fab.fabric, fi, &weft_ofi_cma.domain, NULL), "fi_domain");
    CMA_CHECK(weft_ofi_av_open(weft_ofi_cma.domain, &weft_ofi_cma.av), "fi_av_open");
    struct fi_cq_attr cqa;
    memset(&cqa, 0, sizeof cqa);
    cqa.format = FI_CQ_FORMAT_CONTEXT;
    cqa.wait_obj = FI_WAIT_NONE;
    CMA_CHECK(fi_cq_open(weft_ofi_cma.domain, &cqa, &weft_ofi_cma.cq, NULL), "fi_cq_open");
    CMA_CHECK(weft_ofi_cntr_open(weft_ofi_cma.domain, &weft_ofi_cma.cntr), "fi_cntr_open");
    const char *what = NULL;
    CMA_CHECK(weft_ofi_ep_open(weft_ofi_cma.domain, fi, &weft_ofi_cma.ep, bind_cma, NULL, &what),
              what);
    /* Registered as well, so that a read the provider does not serve by
     * CMA after all (no CMA between these processes) still completes
     * (through this endpoint's queue) before reads here are turned off. */
    for (int s = 0; s < WEFT_NSEGS; s++) {
        struct weft_segment *sg = &weft_rt.seg[s];
        if (!sg->base || !sg->size)
            continue;
        CMA_CHECK(fi_mr_reg(weft_ofi_cma.domain, sg->base, weft_seg_span(s), FI_REMOTE_READ, 0,
                            (uint64_t)s, 0, &weft_ofi_cma.mr[s], NULL),
                  "fi_mr_reg");
    }
    size_t namelen = sizeof mine->name;
    CMA_CHECK(fi_getname(&weft_ofi_cma.ep->fid, mine->name, &namelen), "fi_getname");
    mine->namelen = (uint32_t)namelen;
    /* Below two ordering reads' worth a get gains nothing. */
    weft_ofi_cma.min = min < 2 * CMA_HEAD_MAX ? 2 * CMA_HEAD_MAX : min;
    weft_debug("ofi: shm gets of %zu bytes and more read by CMA on a second endpoint",
               weft_ofi_cma.min);
}

/* From pe on, the addresses of the read endpoint's peers are kept in a
 * table: the entries so far were PE numbers. 0, or -1 without memory. */
static int addresses_kept(int pe)
{
    if (weft_ofi_cma.addr)
        return 0;
    weft_ofi_cma.addr = malloc((size_t)weft_rt.n_pes * sizeof(fi_addr_t));
    if (!weft_ofi_cma.addr)
        return -1;
    for (int i = 0; i < weft_rt.n_pes; i++)
        weft_ofi_cma.addr[i] = i < pe ? (fi_addr_t)i : FI_ADDR_NOTAVAIL;
    return 0;
}

void weft_ofi_cma_connect(int pe, const struct weft_ofi_cma_blob *blob, const uint64_t *bases)
{
    int me = pe == weft_rt.my_pe;
    if (!weft_ofi_cma.base)
        return;
    if (!me) {
        memcpy(&weft_ofi_cma.base[(size_t)pe * WEFT_NSEGS], bases, WEFT_NSEGS * sizeof(uint64_t));
        /* A PE that did not publish its process is written the ordered way. */
        if (weft_ofi_cma.wmin != SIZE_MAX && blob->pid > 0)
            weft_ofi_cma.card[pe] = (uint32_t)blob->pid & WEFT_OFI_CMA_PID;
    }
    if (weft_ofi_cma.min == SIZE_MAX)
        return;
    /* Inserted in PE order, this PE too, a peer's address is its number.
     * A PE that could not open the endpoint (read the ordered way) leaves
     * a gap: from there on the addresses are kept in a table. */
    if (!me && !blob->namelen) {
        if (addresses_kept(pe) != 0)
            reads_close();
        return;
    }
    fi_addr_t at = FI_ADDR_NOTAVAIL;
    if (fi_av_insert(weft_ofi_cma.av, blob->name, 1, &at, 0, NULL) != 1) {
        weft_debug("ofi: shm CMA read endpoint: fi_av_insert of PE %d's address failed", pe);
        if (addresses_kept(pe) != 0)
            reads_close();
        return;
    }
    if (at != (fi_addr_t)pe && addresses_kept(pe) != 0) {
        reads_close();
        return;
    }
    if (weft_ofi_cma.addr)
        weft_ofi_cma.addr[pe] = at;
    if (!me)
        weft_ofi_cma.card[pe] |= WEFT_OFI_CMA_READ;
}

/* The second endpoint and what only reads use; reads by CMA off. */
static void reads_close(void)
{
    if (weft_ofi_cma.ep)
        fi_close(&weft_ofi_cma.ep->fid);
    for (int s = 0; s < WEFT_NSEGS; s++)
        if (weft_ofi_cma.mr[s])
            fi_close(&weft_ofi_cma.mr[s]->fid);
    if (weft_ofi_cma.cntr)
        fi_close(&weft_ofi_cma.cntr->fid);
    if (weft_ofi_cma.cq)
        fi_close(&weft_ofi_cma.cq->fid);
    if (weft_ofi_cma.av)
        fi_close(&weft_ofi_cma.av->fid);
    if (weft_ofi_cma.domain)
        fi_close(&weft_ofi_cma.domain->fid);
    if (weft_ofi_cma.info)
        fi_freeinfo(weft_ofi_cma.info);
    free(weft_ofi_cma.addr);
    weft_ofi_cma.addr = NULL;
    weft_ofi_cma.ep = NULL;
    memset(weft_ofi_cma.mr, 0, sizeof weft_ofi_cma.mr);
    weft_ofi_cma.cntr = NULL;
    weft_ofi_cma.cq = NULL;
    weft_ofi_cma.av = NULL;
    weft_ofi_cma.domain = NULL;
    weft_ofi_cma.info = NULL;
    weft_ofi_cma.min = SIZE_MAX;
}

void weft_ofi_cma_close(void)
{
    if (weft_ofi_cma.ep || weft_ofi_cma.writes)
        weft_debug("ofi: CMA reads %" PRIu64 " and writes %" PRIu64 " (%" PRIu64
                   " queued behind their ordering read) after %" PRIu64
                   " ordering reads; %" PRIu64
                   " gets refused (no credit or first contact) went the ordered way",
                   weft_ofi_cma.issued, weft_ofi_cma.writes, weft_ofi_cma.deferred,
                   weft_ofi_cma.heads, weft_ofi_cma.declined);
    reads_close();
    free(weft_ofi_cma.base);
    free(weft_ofi_cma.card);
    memset(&weft_ofi_cma, 0, sizeof weft_ofi_cma);
    weft_ofi_cma.min = weft_ofi_cma.wmin = SIZE_MAX;
}

void weft_ofi_cma_abandon(void)
{
    if (weft_ofi_cma.ep) {
        fi_close(&weft_ofi_cma.ep->fid);
        weft_ofi_cma.ep = NULL;
    }
    weft_ofi_cma.min = weft_ofi_cma.wmin = SIZE_MAX;
}

void weft_ofi_cma_poll(void)
{
    if (!cma_trylock())
        return;
    /* A util counter's read progresses the endpoint: peers' read
     * notices are retired, which returns their credits, and their first
     * contact is answered. */
    (void)fi_cntr_read(weft_ofi_cma.cntr);
    cma_unlock();
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

/* After fi_read returned 0: CMA served it at once (the counter already
 * says so), or the provider queued it (no CMA between the two
 * processes), or it failed. 0 once the data is in place, -1 if not. */
static int cma_complete(void)
{
    if (fi_cntr_read(weft_ofi_cma.cntr) >= weft_ofi_cma.issued)
        return 0;
    unsigned spins = 0;
    for (;;) {
        struct fi_cq_err_entry err;
        if (fi_cntr_readerr(weft_ofi_cma.cntr) > weft_ofi_cma.errs ||
            weft_ofi_read_cq_error(weft_ofi_cma.cq, &err) == 0) {
            weft_ofi_cma.errs = fi_cntr_readerr(weft_ofi_cma.cntr);
            cma_off("a read failed");
            return -1;
        }
        if (fi_cntr_read(weft_ofi_cma.cntr) >= weft_ofi_cma.issued) {
            cma_off("the provider did not read by CMA");
            return 0;
        }
        weft_ofi_progress();
        if (++spins > 64)
            sched_yield();
    }
}

size_t weft_ofi_cma_get(struct weft_ofi_tx *tx, char *dst, int seg, uint64_t off, size_t len,
                        int pe)
{
    size_t head = 0;
    if (tx->cma_read_seq) /* its ordering read would replace the one out */
        weft_ofi_cma_settle(tx, "shmem_get");
    if (!(weft_ofi_cma.card[pe] & WEFT_OFI_CMA_READ)) /* len >= min >= 2 * CMA_HEAD_MAX (open) */
        return 0;
    if (!cma_head_valid(tx, pe)) {
        /* The ordering read: its bytes are the get's first ones. */
        head = weft_ofi.amo.get_by_atomic_max ? weft_ofi.amo.get_by_atomic_max : 8;
        if (head > CMA_HEAD_MAX)
            head = CMA_HEAD_MAX;
        ordering_read(tx, dst, seg, off, head, pe, "shmem_get");
    }
    cma_lock();
    ssize_t rc = fi_read(weft_ofi_cma.ep, dst + head, len - head, NULL,
                         weft_ofi_cma.addr ? weft_ofi_cma.addr[pe] : (fi_addr_t)pe,
                         weft_ofi_cma.base[(size_t)pe * WEFT_NSEGS + (size_t)seg] + off + head,
                         (uint64_t)seg, NULL);
    int done = rc == 0;
    if (done) {
        weft_ofi_cma.issued++;
        done = cma_complete() == 0;
    } else if (rc == -FI_EAGAIN) {
        weft_ofi_cma.declined++;
    } else {
        cma_off(fi_strerror((int)-rc));
    }
    cma_unlock();
    if (!done)
        return head; /* no credit, first contact, or off: the rest goes ordered */
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
    char *to = (char *)(uintptr_t)(weft_ofi_cma.base[(size_t)pe * WEFT_NSEGS + (size_t)seg] + off);
    size_t done = 0;
    while (done < len) { /* the kernel may stop short, at a page */
        struct iovec l = {(char *)(uintptr_t)src + done, len - done}, r = {to + done, len - done};
        ssize_t n = process_vm_writev((pid_t)(weft_ofi_cma.card[pe] & WEFT_OFI_CMA_PID), &l, 1, &r, 1, 0);
        if (n <= 0) {
            cma_writes_off(n < 0 ? strerror(errno) : "no progress");
            return -1;
        }
        done += (size_t)n;
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
    if (!(weft_ofi_cma.card[pe] & WEFT_OFI_CMA_PID)) /* card is there while wmin is not SIZE_MAX */
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

/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_rma.c owns puts, gets, strided puts/gets, quiet and fence over
 * libfabric RMA.
 *
 * Completion: every write and non-fetching native atomic counts on the
 * context's FI_WRITE counter, every read and fetching atomic on its FI_READ
 * counter; w_issued/r_issued count what we posted. quiet waits until the
 * counters (success + error) reach the issued counts and aborts naming the
 * call if the error counter moved.
 *
 * Remote completion (what quiet promises): the counters alone do not mean
 * "visible at the target" on every provider (tcp;ofi_rxm reports a write
 * complete once it is in the socket). Two mechanisms, chosen at init:
 *  - WEFT_RC_DELIVERY: FI_DELIVERY_COMPLETE is a default tx op flag (and
 *    passed explicitly to fi_writemsg/fi_readmsg), so fi_write completes
 *    once the target processed it. fi_inject_write/fi_inject_atomic have no
 *    completion semantics (measured: counted before the target saw the data
 *    on tcp;ofi_rxm), so a PE that received an inject is marked dirty -
 *    except on shm, whose single command queue per target orders an inject
 *    before anything sent to that target later (injects_queued_in_order).
 *    (fi_writemsg(FI_INJECT | FI_DELIVERY_COMPLETE) is counted only once
 *    applied, but on shm it multiplied the instructions of a small put by
 *    five, its queue filling with commands awaiting their responses:
 *    docs/providers.md.) Where those injects do not queue in order
 *    (tcp;ofi_rxm), blocking puts above the inject size, and non-blocking
 *    ones after the first few since the last quiet, are posted without the
 *    flag too and their targets marked dirty (weft_ofi_write_flushed): the
 *    flag cost an acknowledgement per write, a system call at each end.
 *  - WEFT_RC_FLUSH: every PE written since the last quiet is marked dirty.
 * At quiet, after the write counter caught up, one 8-byte fi_read goes to
 * every dirty PE; the target processes it after the writes that preceded it
 * on the same connection (in-order per peer on shm, tcp and sockets; tcp
 * and sockets advertise FI_ORDER_RAW), so its completion means those writes
 * are visible. */
#include <string.h>

#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

/* Locking: every exported operation brackets its work with
 * weft_ofi_tx_enter/leave (a no-op unless the tx is shared or has
 * coalesced puts to settle, see ofi_internal.h; weft_ofi_put_nbi tests
 * enter_slow itself to keep its inject path short); the static helpers
 * assume the tx is held. */

static inline size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* ---- FI_MR_LOCAL bounce paths (blocking) ------------------------------- */

static void bounce_put(struct weft_ofi_tx *tx, int seg, uint64_t off, const char *src, size_t len,
                       int pe)
{
    weft_ofi_wait_writes(tx, "shmem_put");
    while (len) {
        size_t c = min_sz(min_sz(len, WEFT_OFI_BOUNCE_SIZE), weft_ofi.fab.max_msg);
        memcpy(tx->bounce, src, c);
        struct weft_ofi_retry r = {0, 0};
        ssize_t rc;
        while ((rc = fi_write(tx->ep, tx->bounce, c, tx->bounce_desc, (fi_addr_t)pe,
                              weft_ofi_raddr(pe, seg, off), weft_ofi_rkey(pe, seg), NULL)) ==
               -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, "fi_write", pe);
        if (rc)
            weft_ofi_fail("fi_write", pe, rc);
        weft_ofi_count_write(tx);
        weft_ofi_set_active(tx, 1);
        weft_ofi_wait_writes(tx, "shmem_put");
        src += c;
        off += c;
        len -= c;
    }
    if (weft_ofi.put.rc == WEFT_RC_FLUSH)
        weft_ofi_mark_dirty(tx, pe);
}

static void bounce_get(struct weft_ofi_tx *tx, char *dst, int seg, uint64_t off, size_t len,
                       int pe)
{
    weft_ofi_wait_reads(tx, "shmem_get");
    while (len) {
        size_t c = min_sz(min_sz(len, WEFT_OFI_BOUNCE_SIZE), weft_ofi.fab.max_msg);
        struct weft_ofi_retry r = {0, 0};
        ssize_t rc;
        while ((rc = fi_read(tx->ep, tx->bounce, c, tx->bounce_desc, (fi_addr_t)pe,
                             weft_ofi_raddr(pe, seg, off), weft_ofi_rkey(pe, seg), NULL)) ==
               -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, "fi_read", pe);
        if (rc)
            weft_ofi_fail("fi_read", pe, rc);
        tx->r_issued++;
        weft_ofi_set_active(tx, 1);
        weft_ofi_wait_reads(tx, "shmem_get");
        memcpy(dst, tx->bounce, c);
        dst += c;
        off += c;
        len -= c;
    }
}

/* ---- puts -------------------------------------------------------------- */

/* The bookkeeping after an application's injected put: counted, the tx
 * active, the target marked for the quiet's flush, the progress thread
 * told the application is busy. */
static inline void injected_put_issued(struct weft_ofi_tx *tx, int pe)
{
    weft_ofi_count_write(tx);
    weft_ofi_set_active(tx, 1);
    weft_ofi_mark_dirty(tx, pe);
    weft_ofi_note_app_activity();
}

static void inject_put(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                       int pe)
{
    struct weft_ofi_retry r = {0, 0};
    ssize_t rc;
    while ((rc = fi_inject_write(tx->ep, src, len, (fi_addr_t)pe, weft_ofi_raddr(pe, seg, off),
                                 weft_ofi_rkey(pe, seg))) == -FI_EAGAIN)
        weft_ofi_retry_wait(tx, &r, "fi_inject_write", pe);
    if (WEFT_UNLIKELY(rc))
        weft_ofi_fail("fi_inject_write", pe, rc);
    injected_put_issued(tx, pe);
}

/* A scalar put as it waits in its caller's frame for the provider. */
struct scalar_put {
    uint64_t bits, off;
    size_t len;
    int pe;
};

/* A scalar put the provider did not take at once (EAGAIN, an error): its
 * count taken back (the rest of the bookkeeping may stay: a mark costs
 * at most a flush read), then the general path, which retries or names
 * the failure. Out of line and reading the put from the caller's frame,
 * so that nothing of it stays in registers across the provider's call. */
static __attribute__((cold, noinline)) void put_scalar_again(int seg, const struct scalar_put *p)
{
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    weft_ofi_count_writes(&tx->head, (uint64_t)-1);
    uint64_t bits = p->bits;
    weft_ofi_put_or_coalesce(tx, seg, p->off, &bits, p->len, p->pe, 0);
}

/* seg is a constant in each caller below: the heap's address and key are
 * then loaded without an index (6 instructions of shmem_int_p over shm). */
static inline __attribute__((always_inline)) void put_scalar(int seg, uint64_t off, uint64_t bits,
                                                             size_t len, int pe)
{
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    /* The common case straight to the provider, its bookkeeping first (tx0
     * is not shared here: scalar_inject is 0 then), so that only the
     * provider's answer is looked at after its call; coalescing
     * (scalar_inject 0) appends the word to the buffer; tiny inject limits
     * and a shared tx0 take the general path. */
    if (WEFT_LIKELY(len <= weft_ofi.put.scalar_inject)) {
        struct scalar_put p = {bits, off, len, pe};
        injected_put_issued(tx, pe);
        if (WEFT_LIKELY(fi_inject_write(tx->ep, &p.bits, len, (fi_addr_t)pe,
                                        weft_ofi_raddr(pe, seg, off), weft_ofi_rkey(pe, seg)) == 0))
            return;
        put_scalar_again(seg, &p);
        return;
    }
    if (weft_ofi_coal_takes(tx, len, pe)) {
        weft_ofi_coal_put_word(off, bits, len, pe, seg);
        return;
    }
    weft_ofi_put_or_coalesce(tx, seg, off, &bits, len, pe, 0);
}

void weft_ofi_p_again(int seg, size_t len)
{
    struct scalar_put p = {weft_ofi_fast.p.bits, weft_ofi_fast.p.off, len, weft_ofi_fast.p.pe};
    put_scalar_again(seg, &p);
}

void weft_ofi_put_scalar(uint64_t off, uint64_t bits, size_t len, int pe)
{
    put_scalar(WEFT_SEG_HEAP, off, bits, len, pe);
}

void weft_ofi_put_scalar_static(uint64_t off, uint64_t bits, size_t len, int pe)
{
    put_scalar(WEFT_SEG_DATA, off, bits, len, pe);
}

void weft_ofi_put_or_coalesce(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src,
                              size_t len, int pe, int nbi)
{
    /* The first put after a fence is usually a flag. Written directly it
     * is ordered behind earlier writes by the provider; coalesced, it would
     * leave the default context waiting for an acknowledgement before its
     * next write (put + fence + flag at 2 KiB over tcp: 39 us instead of
     * 19). Behind coalesced puts it coalesces, to keep their order. */
    if (weft_ofi_coal_takes(tx, len, pe)) {
        weft_ofi_coal_put(seg, off, src, len, pe);
        return;
    }
    /* A hint shared by the threads of the default context: relaxed. */
    if (__atomic_load_n(&tx->coal_direct_next, __ATOMIC_RELAXED))
        __atomic_store_n(&tx->coal_direct_next, 0, __ATOMIC_RELAXED);
    if (nbi)
        weft_ofi_put_nbi(tx, seg, off, src, len, pe);
    else
        weft_ofi_put(tx, seg, off, src, len, pe);
}

void weft_ofi_put_small(uint64_t off, const void *src, size_t len, int pe, int nbi)
{
    weft_ofi_put_or_coalesce(&weft_ofi_tx0, WEFT_SEG_HEAP, off, src, len, pe, nbi);
}

static inline uint64_t get_scalar(int seg, uint64_t off, size_t len, int pe)
{
    uint64_t bits = 0;
    weft_ofi_get(&weft_ofi_tx0, &bits, seg, off, len, pe);
    return bits;
}

uint64_t weft_ofi_get_scalar(uint64_t off, size_t len, int pe)
{
    return get_scalar(WEFT_SEG_HEAP, off, len, pe);
}

uint64_t weft_ofi_get_scalar_static(uint64_t off, size_t len, int pe)
{
    return get_scalar(WEFT_SEG_DATA, off, len, pe);
}

void weft_ofi_notify(struct weft_ofi_tx *tx, int seg, uint64_t off, uint64_t value, int pe)
{
    struct weft_ofi_retry r = {0, 0};
    ssize_t rc;
    weft_ofi_tx_enter(tx);
    while ((rc = fi_inject_write(tx->ep, &value, sizeof value, (fi_addr_t)pe,
                                 weft_ofi_raddr(pe, seg, off), weft_ofi_rkey(pe, seg))) ==
           -FI_EAGAIN)
        weft_ofi_retry_wait(tx, &r, "fi_inject_write", pe);
    if (WEFT_UNLIKELY(rc))
        weft_ofi_fail("fi_inject_write", pe, rc);
    weft_ofi_count_write(tx);
    weft_ofi_set_active(tx, 1);
    weft_ofi_tx_leave(tx);
}

/* A put of a few inject sizes over shm as injected pieces, in order
 * (split_put_max). One write of that size would be read by the target
 * with process_vm_readv while it holds its queue, the writer waiting
 * behind it; injected, the writer copies each piece into the queue while
 * the target copies the one before out (put_bw at 8 KiB: 6.1 GB/s against
 * 3.1, SOS 3.0; docs/providers.md, "shm: how writes move"). Each piece is
 * a whole command in the queue, so the fence stays free after them
 * (problem 6 in docs/providers.md is about writes that are not). */
static void put_split(struct weft_ofi_tx *tx, int seg, uint64_t off, const char *src, size_t len,
                      int pe)
{
    while (len) {
        size_t c = min_sz(len, weft_ofi.put.inject_size);
        inject_put(tx, seg, off, src, c, pe);
        src += c;
        off += c;
        len -= c;
    }
}

/* A put by the way its size and the provider choose: injected, in
 * injected pieces, copied by this PE (CMA), or written. */
static void put_write_held(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src,
                           size_t len, int pe, int blocking)
{
    if (WEFT_UNLIKELY(len == 0))
        return;
    if (len <= weft_ofi.put.inject_size) {
        inject_put(tx, seg, off, src, len, pe);
        return;
    }
    /* Large puts over shm: by the origin's own copy (ofi_cma.c). Before
     * the split: a stream of split puts can fall into lockstep with the
     * target over its inject buffers and lock, at a quarter of the speed
     * for a whole run (docs/performance.md, libfabric shm). */
    if (WEFT_UNLIKELY(len >= __atomic_load_n(&weft_ofi_cma.wmin, __ATOMIC_RELAXED)) &&
        weft_ofi_cma_put(tx, seg, off, src, len, pe, blocking))
        return;
    if (len <= weft_ofi.put.split_put_max) {
        put_split(tx, seg, off, src, len, pe);
        return;
    }
    weft_ofi_put_via_ep(tx, seg, off, src, len, pe, blocking);
}

/* Where weft_ofi_write_flushed says so, the write is posted without
 * FI_DELIVERY_COMPLETE and its target flushed at quiet; a blocking put's
 * caller then waits only until src may be reused. */
void weft_ofi_put_via_ep(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                         int pe, int blocking)
{
    void *desc = weft_ofi_local_desc(src, len);
    if (WEFT_UNLIKELY(weft_ofi.fab.mr_local && !desc)) {
        bounce_put(tx, seg, off, src, len, pe);
        return;
    }
    const char *s = src;
    uint64_t raddr = weft_ofi_raddr(pe, seg, off), key = weft_ofi_rkey(pe, seg);
    int flushed = weft_ofi_write_flushed(tx, blocking);
    while (len) {
        size_t c = min_sz(len, weft_ofi.fab.max_msg);
        struct weft_ofi_retry r = {0, 0};
        struct iovec iov = {(void *)s, c};
        struct fi_rma_iov riov = {raddr, c, key};
        struct fi_msg_rma m = {&iov, &desc, 1, (fi_addr_t)pe, &riov, 1, NULL, 0};
        ssize_t rc;
        /* Flags of an fi_writemsg replace the default FI_DELIVERY_COMPLETE:
         * counted once src may be reused. */
        while ((rc = flushed ? fi_writemsg(tx->ep, &m, 0)
                           : fi_write(tx->ep, s, c, desc, (fi_addr_t)pe, raddr, key, NULL)) ==
               -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, "fi_write", pe);
        if (WEFT_UNLIKELY(rc))
            weft_ofi_fail("fi_write", pe, rc);
        weft_ofi_count_write(tx);
        weft_ofi_note_write(tx, c);
        weft_ofi_set_active(tx, 1);
        weft_ofi_note_app_activity();
        s += c;
        raddr += c;
        len -= c;
    }
    if (flushed)
        weft_ofi_mark_dirty(tx, pe);
}

static void put_nbi_held(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src,
                         size_t len, int pe)
{
    put_write_held(tx, seg, off, src, len, pe, 0);
}

static void put_held(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                     int pe)
{
    put_write_held(tx, seg, off, src, len, pe, 1);
    /* Injected data was copied (split puts too); anything larger must
     * leave src first. */
    if (len > weft_ofi.put.inject_size && len > weft_ofi.put.split_put_max)
        weft_ofi_wait_writes(tx, "shmem_put");
}

static __attribute__((noinline)) void put_nbi_general(struct weft_ofi_tx *tx, int seg,
                                                      uint64_t off, const void *src, size_t len,
                                                      int pe)
{
    weft_ofi_tx_enter(tx);
    put_nbi_held(tx, seg, off, src, len, pe);
    weft_ofi_tx_leave(tx);
}

/* The frequent case, a small put on an unshared tx, goes straight to
 * inject; empty, large and locked puts out of line. */
void weft_ofi_put_nbi(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                      int pe)
{
    if (WEFT_LIKELY(len - 1 < weft_ofi.put.inject_size) && WEFT_LIKELY(!tx->enter_slow)) {
        inject_put(tx, seg, off, src, len, pe);
        return;
    }
    put_nbi_general(tx, seg, off, src, len, pe);
}

void weft_ofi_put(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                  int pe)
{
    weft_ofi_tx_enter(tx);
    put_held(tx, seg, off, src, len, pe);
    weft_ofi_tx_leave(tx);
}

/* ---- gets -------------------------------------------------------------- */

void weft_ofi_get_via_ep(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off, size_t len,
                         int pe)
{
    void *desc = weft_ofi_local_desc(dst, len);
    if (WEFT_UNLIKELY(weft_ofi.fab.mr_local && !desc)) {
        bounce_get(tx, dst, seg, off, len, pe);
        return;
    }
    char *d = dst;
    uint64_t raddr = weft_ofi_raddr(pe, seg, off), key = weft_ofi_rkey(pe, seg);
    /* A small get as an atomic read of bytes (shm: ofi_amo.c,
     * init_get_by_atomic); it is below max_msg, so one pass. */
    int by_atomic = len <= weft_ofi.amo.get_by_atomic_max;
    const char *what = by_atomic ? "fi_fetch_atomic" : "fi_read";
    while (len) {
        size_t c = min_sz(len, weft_ofi.fab.max_msg);
        struct weft_ofi_retry r = {0, 0};
        ssize_t rc;
        while ((rc = by_atomic ? fi_fetch_atomic(tx->ep, d, c, desc, d, desc, (fi_addr_t)pe, raddr,
                                                 key, FI_UINT8, FI_ATOMIC_READ, NULL)
                               : fi_read(tx->ep, d, c, desc, (fi_addr_t)pe, raddr, key, NULL)) ==
               -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, what, pe);
        if (WEFT_UNLIKELY(rc))
            weft_ofi_fail(what, pe, rc);
        tx->r_issued++;
        weft_ofi_set_active(tx, 1);
        weft_ofi_note_app_activity();
        d += c;
        raddr += c;
        len -= c;
    }
}

static void get_nbi_held(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off, size_t len,
                         int pe)
{
    if (WEFT_UNLIKELY(len == 0))
        return;
    /* Large gets over shm: by the origin's own copy (ofi_cma.c). */
    if (WEFT_UNLIKELY(len >= __atomic_load_n(&weft_ofi_cma.min, __ATOMIC_RELAXED))) {
        size_t done = weft_ofi_cma_get(tx, dst, seg, off, len, pe);
        if (done == len)
            return;
        dst = (char *)dst + done;
        off += done;
        len -= done;
    }
    weft_ofi_get_via_ep(tx, dst, seg, off, len, pe);
}

static void get_held(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off, size_t len, int pe)
{
    get_nbi_held(tx, dst, seg, off, len, pe);
    weft_ofi_wait_reads(tx, "shmem_get");
}

void weft_ofi_get_nbi(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off, size_t len, int pe)
{
    weft_ofi_tx_enter(tx);
    get_nbi_held(tx, dst, seg, off, len, pe);
    weft_ofi_tx_leave(tx);
}

void weft_ofi_get(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off, size_t len, int pe)
{
    weft_ofi_tx_enter(tx);
    get_held(tx, dst, seg, off, len, pe);
    weft_ofi_tx_leave(tx);
}

/* ---- strided ----------------------------------------------------------- */

#define IOV_CAP 64

/* Post one fi_writemsg (write) or fi_readmsg of cnt iovecs, local iov[k]
 * to or from remote riov[k] (equal lengths), counted like a write or read;
 * a write delivery-complete unless flushed (weft_ofi_write_flushed). */
static void post_msg(struct weft_ofi_tx *tx, int write, int flushed, struct iovec *iov,
                     struct fi_rma_iov *riov, size_t cnt, int pe)
{
    uint64_t flags =
        write && weft_ofi.put.rc == WEFT_RC_DELIVERY && !flushed ? FI_DELIVERY_COMPLETE : 0;
    const char *what = write ? "fi_writemsg" : "fi_readmsg";
    struct fi_msg_rma m = {.msg_iov = iov,
                           .desc = NULL,
                           .iov_count = cnt,
                           .addr = (fi_addr_t)pe,
                           .rma_iov = riov,
                           .rma_iov_count = cnt,
                           .context = NULL,
                           .data = 0};
    struct weft_ofi_retry r = {0, 0};
    ssize_t rc;
    while ((rc = write ? fi_writemsg(tx->ep, &m, flags) : fi_readmsg(tx->ep, &m, 0)) ==
           -FI_EAGAIN)
        weft_ofi_retry_wait(tx, &r, what, pe);
    if (WEFT_UNLIKELY(rc))
        weft_ofi_fail(what, pe, rc);
    if (write) {
        weft_ofi_count_write(tx);
        tx->large_since_quiet = 1; /* several elements: may exceed inject */
    } else {
        tx->r_issued++;
    }
    weft_ofi_set_active(tx, 1);
    weft_ofi_note_app_activity();
}

/* Post nelems elements of elem bytes as fi_writemsg (write) or fi_readmsg
 * messages of up to iov_limit iovecs each: local element i at
 * local + i*lstride, remote element i at off + i*rstride. */
static void strided_msgs(struct weft_ofi_tx *tx, int write, char *local, ptrdiff_t lstride,
                         int seg, uint64_t off, ptrdiff_t rstride, size_t elem, size_t nelems,
                         int pe)
{
    int flushed = write && weft_ofi_write_flushed(tx, 1); /* only iput writes */
    size_t per = min_sz(weft_ofi.fab.iov_limit, IOV_CAP);
    uint64_t key = weft_ofi_rkey(pe, seg);
    struct iovec iov[IOV_CAP];
    struct fi_rma_iov riov[IOV_CAP];
    for (size_t i = 0; i < nelems;) {
        size_t cnt = min_sz(per, nelems - i);
        for (size_t k = 0; k < cnt; k++, i++) {
            iov[k].iov_base = local + (ptrdiff_t)i * lstride;
            iov[k].iov_len = elem;
            riov[k].addr = weft_ofi_raddr(pe, seg, off + (uint64_t)((ptrdiff_t)i * rstride));
            riov[k].len = elem;
            riov[k].key = key;
        }
        post_msg(tx, write, flushed, iov, riov, cnt, pe);
    }
    if (flushed)
        weft_ofi_mark_dirty(tx, pe);
}

/* Whether the vector's messages are flushed writes, decided at its first
 * message: pieces that all go by put_nbi_held take no delivery-complete
 * slot of their own (weft_ofi_write_flushed counts them). */
static int vector_flushed(struct weft_ofi_tx *tx, int write, int *flushed)
{
    if (*flushed < 0)
        *flushed = write && weft_ofi_write_flushed(tx, 0);
    return *flushed;
}

/* Vector transfers (GASNet's VIS, src/gasnet/vis.c): n pieces, piece k
 * between local[k] and remote offset off[k], len[k] bytes. Consecutive
 * pieces share one message while the provider's iov limits and its message
 * size allow; with FI_MR_LOCAL, a limit of 1, or a piece larger than a
 * message, each piece is a put or get of its own. Non-blocking: local
 * buffers stay in use until quiet. */
static void vector_held(struct weft_ofi_tx *tx, int write, int seg, size_t n,
                        const uint64_t *off, void *const *local, const size_t *len, int pe)
{
    int flushed = -1; /* not decided yet */
    size_t per = min_sz(weft_ofi.fab.iov_limit, IOV_CAP);
    uint64_t key = weft_ofi_rkey(pe, seg);
    struct iovec iov[IOV_CAP];
    struct fi_rma_iov riov[IOV_CAP];
    size_t cnt = 0, bytes = 0;
    for (size_t k = 0; k < n; k++) {
        if (!len[k])
            continue;
        if (per < 2 || weft_ofi.fab.mr_local || len[k] > weft_ofi.fab.max_msg) {
            if (write)
                put_nbi_held(tx, seg, off[k], local[k], len[k], pe);
            else
                get_nbi_held(tx, local[k], seg, off[k], len[k], pe);
            continue;
        }
        if (cnt == per || bytes + len[k] > weft_ofi.fab.max_msg) {
            post_msg(tx, write, vector_flushed(tx, write, &flushed), iov, riov, cnt, pe);
            cnt = bytes = 0;
        }
        iov[cnt].iov_base = local[k];
        iov[cnt].iov_len = len[k];
        riov[cnt].addr = weft_ofi_raddr(pe, seg, off[k]);
        riov[cnt].len = len[k];
        riov[cnt].key = key;
        bytes += len[k];
        cnt++;
    }
    if (cnt)
        post_msg(tx, write, vector_flushed(tx, write, &flushed), iov, riov, cnt, pe);
    if (flushed > 0)
        weft_ofi_mark_dirty(tx, pe);
}

void weft_ofi_putv_nbi(struct weft_ofi_tx *tx, int seg, size_t n, const uint64_t *off,
                       void *const *src, const size_t *len, int pe)
{
    weft_ofi_tx_enter(tx);
    vector_held(tx, 1, seg, n, off, src, len, pe);
    weft_ofi_tx_leave(tx);
}

void weft_ofi_getv_nbi(struct weft_ofi_tx *tx, int seg, size_t n, const uint64_t *off,
                       void *const *dst, const size_t *len, int pe)
{
    weft_ofi_tx_enter(tx);
    vector_held(tx, 0, seg, n, off, dst, len, pe);
    weft_ofi_tx_leave(tx);
}

void weft_ofi_iput(struct weft_ofi_tx *tx, int seg, uint64_t off, ptrdiff_t tstride,
                   const void *src, ptrdiff_t sstride, size_t elem, size_t nelems, int pe)
{
    if (!elem || !nelems)
        return;
    const char *s = src;
    weft_ofi_tx_enter(tx);
    if (weft_ofi.fab.mr_local || elem > weft_ofi.fab.max_msg) {
        for (size_t i = 0; i < nelems; i++)
            put_held(tx, seg, off + (uint64_t)((ptrdiff_t)i * tstride),
                     s + (ptrdiff_t)i * sstride, elem, pe);
    } else {
        /* The source is only read: the iovec type lacks const. */
        strided_msgs(tx, 1, (char *)s, sstride, seg, off, tstride, elem, nelems, pe);
        weft_ofi_wait_writes(tx, "shmem_iput");
    }
    weft_ofi_tx_leave(tx);
}

void weft_ofi_iget(struct weft_ofi_tx *tx, void *dst, ptrdiff_t dstride, int seg, uint64_t off,
                   ptrdiff_t sstride, size_t elem, size_t nelems, int pe)
{
    if (!elem || !nelems)
        return;
    char *d = dst;
    weft_ofi_tx_enter(tx);
    if (weft_ofi.fab.mr_local || elem > weft_ofi.fab.max_msg) {
        for (size_t i = 0; i < nelems; i++)
            get_held(tx, d + (ptrdiff_t)i * dstride, seg,
                     off + (uint64_t)((ptrdiff_t)i * sstride), elem, pe);
    } else {
        strided_msgs(tx, 0, d, dstride, seg, off, sstride, elem, nelems, pe);
        weft_ofi_wait_reads(tx, "shmem_iget");
    }
    weft_ofi_tx_leave(tx);
}

/* ---- quiet / fence ----------------------------------------------------- */

static void flush_dirty(struct weft_ofi_tx *tx)
{
    int seg = weft_rt.seg[WEFT_SEG_HEAP].size >= 8 ? WEFT_SEG_HEAP : WEFT_SEG_DATA;
    for (int i = 0; i < tx->ndirty; i++) {
        int pe = tx->dirty_list[i];
        tx->dirty[pe] = 0;
        struct weft_ofi_retry r = {0, 0};
        ssize_t rc;
        while ((rc = fi_read(tx->ep, tx->bounce + tx->bounce_size - 8, 8, tx->bounce_desc,
                             (fi_addr_t)pe, weft_ofi_raddr(pe, seg, 0), weft_ofi_rkey(pe, seg),
                             NULL)) == -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, "fi_read (quiet flush)", pe);
        if (WEFT_UNLIKELY(rc))
            weft_ofi_fail("fi_read (quiet flush)", pe, rc);
        tx->r_issued++;
        weft_ofi_set_active(tx, 1);
    }
    tx->ndirty = 0;
}

/* The quiet, tx held. The counter waits are inline: after injected puts
 * alone (a message-rate loop's quiet, or put + quiet) the write counter
 * is read once and nothing else calls out. */
static inline __attribute__((always_inline)) void quiet_held(struct weft_ofi_tx *tx)
{
    if (WEFT_UNLIKELY(tx->cma_ndefer))
        weft_ofi_cma_settle(tx, "shmem_quiet"); /* first: a copy that fails is written */
    weft_ofi_wait_cntr(tx, 0, __atomic_load_n(&tx->w_issued, __ATOMIC_RELAXED), "shmem_quiet");
    if (tx->ndirty)
        flush_dirty(tx);
    weft_ofi_wait_cntr(tx, 1, __atomic_load_n(&tx->r_issued, __ATOMIC_RELAXED), "shmem_quiet");
    if (__atomic_load_n(&tx->am_done, __ATOMIC_ACQUIRE) !=
        __atomic_load_n(&tx->am_issued, __ATOMIC_RELAXED))
        weft_ofi_wait_replies(tx); /* software atomics, acknowledged put batches */
    tx->nbi_used = 0;
    tx->dc_writes = 0;
    tx->large_since_quiet = 0;
    tx->unordered_since_quiet = 0;
    tx->fence_pending = 0;
    if (tx->w_issued != tx->w_at_quiet) { /* for gets read by CMA (ofi_cma.c) */
        tx->w_at_quiet = tx->w_issued;
        unsigned long *quiets = &weft_ofi.progress.quiets;
        __atomic_store_n(quiets, __atomic_load_n(quiets, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    }
    weft_ofi_set_active(tx, 0);
}

void weft_ofi_quiet_held(struct weft_ofi_tx *tx) { quiet_held(tx); }

void weft_ofi_quiet(struct weft_ofi_tx *tx)
{
    /* A shared tx stays held throughout: nothing issued meanwhile can then
     * complete in place of what this quiet waits for (the counters do not
     * say which operation completed), and active is cleared truthfully. */
    if (WEFT_LIKELY(!tx->enter_slow)) { /* not shared, nothing coalesced */
        quiet_held(tx);
        return;
    }
    weft_ofi_tx_enter(tx);
    quiet_held(tx);
    weft_ofi_tx_leave(tx);
}

/* The fence's cases that need no completion now (see weft_ofi_fence):
 * 1 when one applies (a deferred fence marked on tx), 0 when the fence
 * must complete like quiet. */
static int fence_by_order(struct weft_ofi_tx *tx)
{
    if (weft_ofi.order.ordered && !tx->large_since_quiet)
        return 1;
    if (weft_ofi.order.rma_ordered && !tx->large_since_quiet && !tx->unordered_since_quiet) {
        tx->fence_pending = 1;
        return 1;
    }
    return 0;
}

void weft_ofi_fence(struct weft_ofi_tx *tx)
{
    /* Fence promises that puts and atomics issued before it reach each
     * target before those issued after it (put-with-signal and the
     * collectives' data-then-count rely on it: the signal is never seen
     * before the data).
     *
     * ordered: the provider applies RMA writes, atomics (FI_ORDER_WAW) and
     * messages (FI_ORDER_SAW) from one endpoint to one target in issue
     * order, and every operation of a context leaves from its endpoint -
     * software atomics included (ofi_amo.c sends them from the context's
     * own endpoint; one to this PE itself is a CPU atomic and completes
     * the context first). Puts up to the inject size travel whole in that
     * order, so after only those nothing needs to complete: fence costs
     * nothing. A larger write since the last quiet (large_since_quiet)
     * may still be moving in pieces after later operations although the
     * provider claims the order (libfabric 1.17 shm's SAR protocol:
     * docs/providers.md), so then fence completes like quiet.
     *
     * rma_ordered (the provider orders RMA writes among themselves only):
     * after nothing but small writes since the last quiet, fence is
     * deferred: writes after it are kept behind by the provider, and the
     * next atomic completes the earlier writes first (weft_ofi_amo_order).
     * After an atomic or message it completes like quiet.
     *
     * Coalesced puts (ofi_coalesce.c) leave as the fence begins and need
     * nothing more: later coalesced puts travel behind them, anything else
     * waits for them in weft_ofi_tx_enter (weft_ofi_coal_send).
     *
     * Otherwise fence is quiet: it returns only once every earlier put is
     * visible at its target (write counter caught up, then
     * FI_DELIVERY_COMPLETE or the flush read above), so nothing issued
     * after it is even posted before the data has landed. */
    if (tx == &weft_ofi_tx0) /* the only tx that coalesces */
        __atomic_store_n(&tx->coal_direct_next, 1, __ATOMIC_RELAXED);
    if (tx->enter_slow == WEFT_TX_COALESCED) {
        weft_ofi_coal_send(tx);
        if (!tx->cma_ndefer && fence_by_order(tx))
            return;
    }
    weft_ofi_tx_enter(tx);
    /* Puts waiting for an ordering read (ofi_cma.c) are copied now: they
     * would otherwise land after what follows the fence. */
    if (WEFT_UNLIKELY(tx->cma_ndefer))
        weft_ofi_cma_settle(tx, "shmem_fence");
    if (!fence_by_order(tx))
        weft_ofi_quiet_held(tx);
    weft_ofi_tx_leave(tx);
}

/* ---- counting writes (ofi.h, src/api/counting.c) ------------------------ */

int weft_ofi_count_imm;

size_t weft_ofi_count_max_write(void) { return weft_ofi.fab.max_msg; }

void weft_ofi_put_count(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                        int pe, uint64_t data, int nbi)
{
    struct weft_ofi_retry r = {0, 0};
    ssize_t rc;
    uint64_t raddr = weft_ofi_raddr(pe, seg, off), key = weft_ofi_rkey(pe, seg);
    weft_ofi_tx_enter(tx);
    if (len <= weft_ofi.put.inject_size) {
        while ((rc = fi_inject_writedata(tx->ep, src, len, data, (fi_addr_t)pe, raddr, key)) ==
               -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, "fi_inject_writedata", pe);
        if (WEFT_UNLIKELY(rc))
            weft_ofi_fail("fi_inject_writedata", pe, rc);
        weft_ofi_count_write(tx);
        weft_ofi_set_active(tx, 1);
        weft_ofi_mark_dirty(tx, pe);
    } else {
        /* mr_local providers never get here (weft_ofi_count_imm is off). */
        void *desc = weft_ofi_local_desc(src, len);
        struct iovec iov = {(void *)src, len};
        struct fi_rma_iov riov = {raddr, len, key};
        struct fi_msg_rma m = {&iov, &desc, 1, (fi_addr_t)pe, &riov, 1, NULL, data};
        /* Like put_write_held: where writes are flushed, the flags given
         * replace the default FI_DELIVERY_COMPLETE. */
        int flushed = weft_ofi_write_flushed(tx, !nbi);
        while ((rc = flushed ? fi_writemsg(tx->ep, &m, FI_REMOTE_CQ_DATA)
                         : fi_writedata(tx->ep, src, len, desc, data, (fi_addr_t)pe, raddr, key,
                                        NULL)) == -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, "fi_writedata", pe);
        if (WEFT_UNLIKELY(rc))
            weft_ofi_fail("fi_writedata", pe, rc);
        weft_ofi_count_write(tx);
        tx->large_since_quiet = 1;
        weft_ofi_set_active(tx, 1);
        if (flushed)
            weft_ofi_mark_dirty(tx, pe);
        if (!nbi)
            weft_ofi_wait_writes(tx, "shmemx_putmem_ct");
    }
    weft_ofi_tx_leave(tx);
}

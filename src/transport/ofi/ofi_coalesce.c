/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_coalesce.c owns coalesced puts: on providers where every message is
 * a system call (tcp;ofi_rxm), consecutive small puts through the default
 * context to one PE (shmem_TYPE_p, and the contiguous puts and put_nbi of
 * up to WEFT_OFI_COAL_MAX_PUT bytes) are copied into one buffer and leave
 * as one active message, which the target applies in order.
 *
 * Why it stays correct:
 *  - order: one buffer, one target at a time, records applied in the order
 *    written, and batches to a PE are messages from one endpoint, which
 *    the target's progress handles in arrival order;
 *  - everything else on the default context first settles (the
 *    WEFT_TX_COALESCED bit in enter_slow sends to weft_ofi_tx_enter_slow):
 *    the buffer leaves and the caller waits until every batch was applied
 *    (the replies count in am_done, like software atomics), so no later
 *    write, atomic, read, fence or quiet can pass a coalesced put;
 *  - progress: a PE that waits or polls sends its buffer
 *    (weft_ofi_coal_poll in weft_ofi_progress) so peers waiting for the
 *    data get it; a PE that computes is covered by the progress thread
 *    (weft_ofi_coal_flush_try(1)), which sends what was published.
 *
 * Threads: the application appends without a lock (one thread at a time:
 * coalescing is off under SHMEM_THREAD_MULTIPLE) and publishes the length
 * with a release store; sending takes coal_lock, which only the progress
 * thread contends for. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/scale.h"
#include "core/copy.h"
#include "core/cpu_relax.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

/* A record (ofi.h): one 64-bit word (offset | len << 48 | seg << 60),
 * then the bytes, padded to 8. */
#define COAL_CAP WEFT_OFI_COAL_CAP
_Static_assert(COAL_CAP <= WEFT_OFI_MSG_MAX_PAYLOAD, "a batch is one message");
#define REC_OFF_BITS WEFT_OFI_COAL_OFF_BITS
#define REC_LEN_BITS WEFT_OFI_COAL_LEN_BITS
#define REC_SEG_SHIFT WEFT_OFI_COAL_SEG_SHIFT
#define REC_HDR 8u
_Static_assert(WEFT_FAST_MAX <= WEFT_OFI_COAL_MAX_PUT &&
                   WEFT_OFI_COAL_MAX_PUT < (1u << REC_LEN_BITS) && WEFT_NSEGS <= 16,
               "a record's length has 12 bits and its segment 4; the API coalesces puts of up "
               "to WEFT_FAST_MAX");

static inline uint32_t rec_size(size_t len)
{
    return REC_HDR + (uint32_t)((len + 7) & ~(size_t)7);
}

static void coal_lock(struct weft_ofi_tx *tx)
{
    while (__atomic_exchange_n(&tx->coal_lock, 1, __ATOMIC_ACQUIRE))
        weft_cpu_relax();
}

static int coal_trylock(struct weft_ofi_tx *tx)
{
    return !__atomic_exchange_n(&tx->coal_lock, 1, __ATOMIC_ACQUIRE);
}

static void coal_unlock(struct weft_ofi_tx *tx)
{
    __atomic_store_n(&tx->coal_lock, 0, __ATOMIC_RELEASE);
}

/* Under coal_lock: one batch to pe. ack: the target answers once it has
 * applied it (and everything sent to it before), counted in am_issued /
 * am_done like a software atomic; the others only mark pe for the
 * acknowledged message the next settle sends. */
static void send_batch(struct weft_ofi_tx *tx, int pe, const void *payload, uint32_t len,
                       int ack)
{
    uint64_t args[1] = {(uint64_t)(uintptr_t)tx};
    if (ack)
        __atomic_add_fetch(&tx->am_issued, 1, __ATOMIC_RELEASE); /* see amo_rep_handler */
    else if (!tx->coal_dirty[pe]) {
        tx->coal_dirty[pe] = 1;
        tx->coal_dirty_list[tx->coal_ndirty++] = pe;
    }
    uint64_t id = WEFT_OFI_MSG_ID(WEFT_OFI_MSG_H_PUT_BATCH, (uint32_t)ack);
    weft_ofi_msg_send_from(tx, pe, id, args, 1, payload, len);
}

/* Under coal_lock: send coal_buf[coal_sent, upto) to coal_pe. */
static void send_locked(struct weft_ofi_tx *tx, uint32_t upto, int ack)
{
    uint32_t from = __atomic_load_n(&tx->coal_sent, __ATOMIC_RELAXED);
    if (upto == from)
        return;
    send_batch(tx, tx->coal_pe, tx->coal_buf + from, upto - from, ack);
    __atomic_store_n(&tx->coal_sent, upto, __ATOMIC_RELAXED);
}

/* Under coal_lock, everything sent: begin the buffer anew. */
static void restart_locked(struct weft_ofi_tx *tx)
{
    tx->coal_pe = -1; /* no batch open: the inline append (ofi.h) stands aside */
    __atomic_store_n(&tx->coal_pub, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&tx->coal_sent, 0, __ATOMIC_RELAXED);
}

/* Application: send what waits, unacknowledged, and begin anew (the
 * next put needs room or goes to another PE, or shmem_fence: the puts
 * stay marked, so a later coalesced put travels behind them and anything
 * else settles them first in weft_ofi_tx_enter). */
void weft_ofi_coal_send(struct weft_ofi_tx *tx)
{
    coal_lock(tx);
    send_locked(tx, tx->coal_pub, 0);
    restart_locked(tx);
    coal_unlock(tx);
}

/* Room for a record of len bytes to pe, its header written: where its
 * bytes go; *end: the batch's length with it, which coal_publish makes
 * visible to the progress thread. coal_pub is the length (only this
 * thread writes it, so it reads its own stores). */
static inline char *coal_record(struct weft_ofi_tx *tx, int seg, uint64_t off, size_t len, int pe,
                                uint32_t *end)
{
    uint32_t need = rec_size(len);
    if (WEFT_UNLIKELY(pe != tx->coal_pe || tx->coal_pub + need > COAL_CAP)) {
        if (tx->coal_pub)
            weft_ofi_coal_send(tx);
        tx->coal_pe = pe; /* before the release of coal_pub below */
    }
    char *rec = tx->coal_buf + tx->coal_pub;
    uint64_t hdr = weft_ofi_coal_hdr(seg, off, len);
    memcpy(rec, &hdr, sizeof hdr);
    *end = tx->coal_pub + need;
    return rec + REC_HDR;
}

static inline void coal_publish(struct weft_ofi_tx *tx, uint32_t end)
{
    __atomic_store_n(&tx->coal_pub, end, __ATOMIC_RELEASE);
    if (!(tx->enter_slow & WEFT_TX_COALESCED)) {
        tx->enter_slow |= WEFT_TX_COALESCED;
        weft_ofi_set_active(tx, 1);
    }
    weft_ofi_note_app_activity();
}

void weft_ofi_coal_put(int seg, uint64_t off, const void *src, size_t len, int pe)
{
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    uint32_t end;
    memcpy(coal_record(tx, seg, off, len, pe, &end), src, len);
    coal_publish(tx, end);
}

/* shmem_TYPE_p: the value's len (<= 8) bytes at the start of bits. A
 * record's bytes are padded to 8, so the whole word is stored, without a
 * call to memcpy; the target copies len. */
void weft_ofi_coal_put_word(uint64_t off, uint64_t bits, size_t len, int pe, int seg)
{
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    uint32_t end;
    memcpy(coal_record(tx, seg, off, len, pe, &end), &bits, sizeof bits);
    coal_publish(tx, end);
}

/* From a wait loop or the progress thread: send what was published,
 * unless someone is sending already (the progress thread, or this very
 * thread retrying a send that met EAGAIN). The progress thread also waits
 * (until a later turn) while an earlier send of the engine is still in the
 * provider: on libfabric 1.17 tcp;ofi_rxm a message above rxm's eager
 * limit completes at the target after smaller ones sent later, so a small
 * batch with a flag could be applied before a full one with the data.
 * ofi_select.c sets the limit above every message of the layer; this rule covers
 * a user who sets FI_OFI_RXM_BUFFER_SIZE lower (docs/providers.md,
 * problem 7). */
void weft_ofi_coal_flush_try(int from_thread)
{
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    if (!tx->coal_buf || !coal_trylock(tx))
        return;
    if (from_thread && weft_ofi_msg_sends_out()) {
        coal_unlock(tx);
        return;
    }
    send_locked(tx, __atomic_load_n(&tx->coal_pub, __ATOMIC_ACQUIRE), 0);
    coal_unlock(tx);
}

/* Everything but a coalesced put comes here first while puts are
 * coalesced: they leave, and the caller waits until the target applied
 * them, so the operation it is about to issue cannot pass them. */
void weft_ofi_tx_enter_slow(struct weft_ofi_tx *tx)
{
    if (tx->shared)
        pthread_mutex_lock(&tx->lock);
    if (tx->enter_slow & WEFT_TX_COALESCED) {
        /* What waits leaves acknowledged; every other PE sent a batch
         * since the last settle gets an empty acknowledged one behind it. */
        coal_lock(tx);
        int covered = -1;
        if (tx->coal_pub != __atomic_load_n(&tx->coal_sent, __ATOMIC_RELAXED)) {
            send_locked(tx, tx->coal_pub, 1);
            covered = tx->coal_pe;
        }
        for (int i = 0; i < tx->coal_ndirty; i++) {
            int pe = tx->coal_dirty_list[i];
            tx->coal_dirty[pe] = 0;
            if (pe != covered)
                send_batch(tx, pe, NULL, 0, 1);
        }
        tx->coal_ndirty = 0;
        restart_locked(tx);
        coal_unlock(tx);
        /* Cleared before the wait: what the wait's slow phase sends through
         * tx (the hang report's notices) must not wait in here again for
         * acknowledgements a stopped peer never gives. */
        tx->enter_slow &= ~WEFT_TX_COALESCED;
        weft_ofi_wait_replies(tx);
    }
}

/* Target: apply the records in order, then acknowledge. */
static void batch_handler(int src, uint32_t a0, const uint64_t *args, int nargs,
                          const void *payload, size_t len)
{
    if (nargs != 1)
        weft_fatal("weft_ofi_progress", "malformed put batch from PE %d", src);
    const char *p = payload, *end = p + len;
    while (p < end) {
        uint64_t hdr;
        if ((size_t)(end - p) < REC_HDR)
            weft_fatal("weft_ofi_progress", "truncated put batch from PE %d", src);
        memcpy(&hdr, p, sizeof hdr);
        uint64_t off = hdr & ((1ull << REC_OFF_BITS) - 1);
        size_t n = (size_t)((hdr >> REC_OFF_BITS) & ((1u << REC_LEN_BITS) - 1));
        unsigned seg = (unsigned)(hdr >> REC_SEG_SHIFT);
        if (seg >= WEFT_NSEGS || rec_size(n) > (size_t)(end - p) ||
            off > weft_seg_size((int)seg) || weft_seg_size((int)seg) - off < n)
            weft_fatal("weft_ofi_progress", "put batch from PE %d names offset %" PRIu64
                       " (%zu bytes) outside segment %u", src, off, n, seg);
        /* In order: a flag put after its data is never seen first. Each
         * byte stored once (copy.h): the application thread may read and
         * reset a flag inside this record while the copy runs, and
         * memcpy's second store of its last vectors would bring the flag
         * back (sping over tcp hung so with 512 B and 1 KiB puts). */
        __atomic_thread_fence(__ATOMIC_RELEASE);
        weft_copy_once(weft_rt.seg[seg].base + off, p + REC_HDR, n);
        p += rec_size(n);
    }
    if (a0 & 1) {
        uint64_t rargs[2] = {0, args[0]}; /* token 0: nothing to copy back */
        weft_ofi_msg_send(src, WEFT_OFI_MSG_ID(WEFT_OFI_MSG_H_AMO_REP, 0), rargs, 2, NULL, 0);
    }
}

/* thread_on: a progress thread will run. Without one nothing sends the
 * buffer of a PE that computes, so nothing is coalesced. */
void weft_ofi_coal_init(int thread_on)
{
    weft_ofi_msg_register(WEFT_OFI_MSG_H_PUT_BATCH, batch_handler);
    static const char *const coalesce_modes[] = {"auto", "off"};
    int coalesce_off = weft_tun_choice(WEFT_TUN_COALESCE, coalesce_modes, 2);
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    tx->coal_pe = -1;
    weft_ofi.put.coalesce = !coalesce_off && thread_on && !weft_ofi.thread_multiple &&
                        !strcmp(weft_ofi_provider_name(), "tcp;ofi_rxm");
    if (!weft_ofi.put.coalesce)
        return;
    tx->coal_buf = malloc(COAL_CAP);
    tx->coal_dirty = calloc((size_t)weft_rt.n_pes, 1);
    tx->coal_dirty_list = calloc((size_t)weft_rt.n_pes, sizeof(int));
    if (!tx->coal_buf || !tx->coal_dirty || !tx->coal_dirty_list)
        weft_fatal("shmem_init", "out of memory for coalesced puts (%d PEs)", weft_rt.n_pes);
    weft_scale_note(WEFT_SCALE_COAL_DIRTY, (size_t)weft_rt.n_pes * (1 + sizeof(int)));
    weft_scale_set_when(WEFT_SCALE_WHEN_COALESCE, 1);
    weft_ofi.put.scalar_inject = 0; /* shmem_TYPE_p takes weft_ofi_put_scalar's slow branch */
    memset(weft_ofi_fast.p_limit, 0, sizeof weft_ofi_fast.p_limit);
}

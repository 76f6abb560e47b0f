/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi.h owns weft's libfabric transport interface: one RDM endpoint per PE
 * plus one per context (within a budget), AV table addressing (fi_addr == PE), registered
 * symmetric segments, counters for completion, native atomics where the
 * provider has them and a software message engine where it does not.
 * Hot-path calls are static inline here; setup lives in ofi_*.c. */
#ifndef WEFT_OFI_H
#define WEFT_OFI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/runtime.h"
#include "transport/ofi/ofi_dl.h" /* before the rdma headers: libfabric loaded at run time */

#include <rdma/fi_eq.h>
#include <rdma/fi_rma.h>

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* Per-context transmit resources (endpoint, counters, issued counts). The
 * default context owns the first one; layout is private to ofi_*.c except
 * for the head below, which the inline paths here read. */
struct weft_ofi_tx;

/* What quiet must do on a tx, one byte per reason, read as one word
 * (0: nothing). why[WEFT_OFI_TX_PUTS]: the default context's inline
 * injected puts since the last quiet (quiet needs nothing more for them:
 * where they are made, an inject the provider took is queued at its
 * target ahead of anything sent there later, injects_queued_in_order);
 * why[WEFT_OFI_TX_ACTIVE]: anything else since the last quiet (quiet goes
 * the whole way); why[WEFT_OFI_TX_LOCKED]: for good on a tx that several
 * threads share (its quiet takes the lock). Read without a lock; the
 * clearing quiet releases what it completed (another thread's fetched
 * values included) and the load acquires it: on x86 both are plain
 * one-instruction loads and stores. */
union weft_ofi_tx_state {
    uint32_t word;
    uint8_t why[4];
};
enum { WEFT_OFI_TX_PUTS, WEFT_OFI_TX_ACTIVE, WEFT_OFI_TX_LOCKED };
/* The word with only why[reason] set. */
static inline uint32_t weft_ofi_tx_state_only(int reason)
{
    union weft_ofi_tx_state s = {0};
    s.why[reason] = 1;
    return s.word;
}

/* The head of struct weft_ofi_tx: what an injected shmem_TYPE_p and the
 * quiet after it touch, together in one cache line.
 *  state: above.
 *  w_issued: writes posted that count on wcntr (inline injected puts
 *    too, so that the whole quiet's wait stays true); w_done_seen: wcntr's
 *    count when last read.
 *  coal_*: tx0's batch of coalesced puts (ofi_coalesce.c): records for
 *    coal_pe in coal_buf[0, coal_pub), the length the application alone
 *    writes, each store a release that publishes the records to the
 *    progress thread; coal_pe is -1 while no batch is open, so that a p
 *    to coal_pe is appended inline (weft_ofi_coal_append_inline).
 * struct weft_ofi_tx reaches the same fields by their names too (an
 * anonymous member over the same list, ofi_internal.h). */
#define WEFT_OFI_TX_HEAD_FIELDS                                                                    \
    union weft_ofi_tx_state state;                                                                 \
    struct fid_ep *ep;                                                                             \
    struct fid_cntr *wcntr; /* FI_WRITE: writes, non-fetching atomics */                           \
    uint64_t w_issued;                                                                             \
    uint64_t w_done_seen;                                                                          \
    char *coal_buf;                                                                                \
    uint32_t coal_pub;                                                                             \
    int coal_pe;
struct weft_ofi_tx_head {
    WEFT_OFI_TX_HEAD_FIELDS
};
/* The default context's resources, a global of its own so that the fast
 * paths reach them with one RIP-relative access. */
extern struct weft_ofi_tx weft_ofi_tx0;
static inline struct weft_ofi_tx_head *weft_ofi_head(struct weft_ofi_tx *tx)
{
    return (struct weft_ofi_tx_head *)(void *)tx;
}
/* Writes that count on the head's wcntr were posted (delta) or taken back.
 * The progress thread reads tx0's count (the application is busy while it
 * moves), so every store to it is atomic: a plain load, add and store, no
 * locked instruction. */
static inline void weft_ofi_count_writes(struct weft_ofi_tx_head *h, uint64_t delta)
{
    __atomic_store_n(&h->w_issued, h->w_issued + delta, __ATOMIC_RELAXED);
}
/* Anything issued on tx since the last quiet (fence and quiet of any
 * context look here first). */
static inline int weft_ofi_active(struct weft_ofi_tx *tx)
{
    uint32_t word = __atomic_load_n(&weft_ofi_head(tx)->state.word, __ATOMIC_ACQUIRE);
    return (word & ~weft_ofi_tx_state_only(WEFT_OFI_TX_LOCKED)) != 0;
}

/* What the default context's inline p reads besides the head (set at
 * init, constant after), and the one p in flight.
 *  p_limit[seg]: offsets below it (the API's fast limit of seg) take the
 *    inline injection, where counting it is all its bookkeeping: the
 *    provider queues injects to a PE in order behind which quiet need not
 *    flush (shm: injects_queued_in_order), tx0 is not shared, puts are not
 *    coalesced, 8 bytes can be injected, and every PE has the same keys
 *    and bases; 0 elsewhere (the out-of-line weft_ofi_put_scalar).
 *  rbase, rkey: those bases and keys per segment.
 *  p: the value the provider copies from (it takes a pointer), with its
 *    offset and PE: a p the provider did not take is retried from here,
 *    so nothing of it is held in registers across the provider's call.
 *    One thread at a time issues on tx0 where p_limit is set. */
struct weft_ofi_fast {
    uint64_t p_limit[WEFT_NSEGS];
    /* Offsets below it (the API's fast limit of seg) may be appended to an
     * open batch of coalesced puts inline; 0 where puts do not coalesce. */
    uint64_t coal_limit[WEFT_NSEGS];
    uint64_t rbase[WEFT_NSEGS], rkey[WEFT_NSEGS];
    int self; /* this PE: its own queue is applied only by its progress */
    struct {
        uint64_t bits, off;
        int pe;
    } p;
};
extern struct weft_ofi_fast weft_ofi_fast;

/* Open fabric/domain/endpoint/AV/counters, register every segment in
 * weft_rt.seg[], exchange addresses and keys through the bootstrap
 * (collective over all PEs), decide the atomic table. thread_multiple:
 * the program asked for SHMEM_THREAD_MULTIPLE (the domain must then be
 * FI_THREAD_SAFE and the default context's tx is shared). Returns 0 or -1. */
int weft_ofi_init(int thread_multiple);
void weft_ofi_fini(void);
/* Start-up reachability check (ofi_wireup.c): weft_ofi_init reads from
 * this PE's libfabric neighbours under a watchdog of WEFT_WIREUP_TIMEOUT
 * seconds, which init stops with weft_ofi_wireup_done after its first
 * barrier. On failure the PE names provider, interface, addresses and the
 * peer, and the job ends. */
void weft_ofi_wireup_start(void);
void weft_ofi_wireup_done(void);
/* Close the default endpoint at once (leaving without finalize). */
void weft_ofi_abandon(void);
/* 1 if libfabric was not opened: every PE is reached directly. */
int weft_ofi_unused(void);
/* 1 once the peers need the names of this PE's shm regions no more. */
int weft_ofi_shm_names_done(void);
/* 1 if SHMEM_THREAD_MULTIPLE can be provided (FI_THREAD_SAFE domain). */
int weft_ofi_thread_multiple(void);
/* 1 when what reaches this PE and what it sent move without an application
 * thread calling in: the progress thread runs, or the provider progresses
 * on its own. */
int weft_ofi_progresses_alone(void);
/* Progress of a context's own endpoint (the default's is weft_ofi_progress):
 * its operations move while its thread waits for something else. */
void weft_ofi_tx_progress(struct weft_ofi_tx *tx);
/* The pause of a wait (weft_poll_yield) of a thread whose operations go
 * through tx: never asleep on a descriptor that tx's endpoint does not
 * wake. */
void weft_ofi_poll_yield_tx(struct weft_ofi_tx *tx, unsigned *spins);
/* The domain is FI_THREAD_SAFE (or libfabric is not used at all). */
int weft_ofi_thread_safe(void);

/* The default context's transmit resources. */
struct weft_ofi_tx *weft_ofi_default_tx(void);

/* A context's transmit resources (ofi_ctx.c): an endpoint of its own with
 * its own counters and CQ while the budget lasts, else the default
 * context's (when sharing is allowed: WEFT_CTX_SHARE). private_use: only one
 * thread at a time will use it (SHMEM_CTX_PRIVATE or SHMEM_CTX_SERIALIZED),
 * so it needs no lock even under SHMEM_THREAD_MULTIPLE. Returns NULL when
 * no tx can be had; *own is 1 for a dedicated endpoint. */
struct weft_ofi_tx *weft_ofi_ctx_tx_create(int private_use, int *own);
/* Completes everything issued on tx, then releases it (tx0: only the count). */
void weft_ofi_ctx_tx_destroy(struct weft_ofi_tx *tx);

/* RMA. seg/off name the target object on PE pe (see weft_sym_resolve).
 * put: returns when src may be reused (remote completion at quiet).
 * put_nbi: src must not be changed until quiet.
 * get: returns when dst holds the data. get_nbi: dst valid after quiet. */
void weft_ofi_put(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len, int pe);
void weft_ofi_put_nbi(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len, int pe);
void weft_ofi_get(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off, size_t len, int pe);
void weft_ofi_get_nbi(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off, size_t len, int pe);

/* The default context's p and g of up to 8 bytes to the heap (or, _static,
 * to static data), the value in the first len bytes of the 8-byte word's
 * memory representation. */
void weft_ofi_put_scalar(uint64_t off, uint64_t bits, size_t len, int pe);
void weft_ofi_put_scalar_static(uint64_t off, uint64_t bits, size_t len, int pe);
/* The inline p (weft_ofi_fast.p) the provider did not take at once
 * (EAGAIN, an error): its count taken back, then the general path, which
 * retries or names the failure. */
void weft_ofi_p_again(int seg, size_t len);
/* A coalesced put's record (ofi_coalesce.c): one word (offset | len <<
 * 48 | seg << 60), then the bytes padded to 8; a batch holds up to
 * WEFT_OFI_COAL_CAP bytes of them. */
#define WEFT_OFI_COAL_CAP 4096u
#define WEFT_OFI_COAL_OFF_BITS 48
#define WEFT_OFI_COAL_LEN_BITS 12
#define WEFT_OFI_COAL_SEG_SHIFT (WEFT_OFI_COAL_OFF_BITS + WEFT_OFI_COAL_LEN_BITS)
static inline uint64_t weft_ofi_coal_hdr(int seg, uint64_t off, size_t len)
{
    return off | (uint64_t)len << WEFT_OFI_COAL_OFF_BITS | (uint64_t)seg << WEFT_OFI_COAL_SEG_SHIFT;
}
/* A p of len <= 8 bytes to the PE whose batch is open, appended to it:
 * the record's two words stored and the length published (the release
 * store the progress thread reads, which also tells it the application
 * is busy); 1 then, 0 when the caller must take the out-of-line path
 * (coal_record opens, sends and switches batches). An open batch means
 * coalescing was chosen for it, so the rest of weft_ofi_coal_takes
 * holds. */
static inline __attribute__((always_inline)) int
weft_ofi_coal_append_inline(int seg, uint64_t off, const void *value, size_t len, int pe)
{
    struct weft_ofi_tx_head *h = weft_ofi_head(&weft_ofi_tx0);
    uint32_t at = h->coal_pub; /* written by this thread alone */
    if (!(off < weft_ofi_fast.coal_limit[seg]) || pe != h->coal_pe ||
        at > WEFT_OFI_COAL_CAP - 16)
        return 0;
    char *rec = h->coal_buf + at;
    uint64_t hdr = weft_ofi_coal_hdr(seg, off, len);
    memcpy(rec, &hdr, sizeof hdr);
    memcpy(rec + sizeof hdr, value, len <= 8 ? len : 8);
    __atomic_store_n(&h->coal_pub, at + 16, __ATOMIC_RELEASE);
    return 1;
}
/* The default context's p of len <= 8 bytes from value to (seg, off) at
 * pe, inline where weft_ofi_fast.p_limit allows: counted (the count keeps
 * the write counter's total true for the whole quiet, and tells the
 * progress thread that the application is busy), marked for quiet, then
 * injected; where puts coalesce, appended to the open batch to pe; 1
 * then, 0 when the caller must take
 * weft_ofi_put_scalar(_static). seg and len are constants in every
 * caller. */
static inline __attribute__((always_inline)) int weft_ofi_p_inline(int seg, uint64_t off,
                                                                   const void *value, size_t len,
                                                                   int pe)
{
    /* A put to this PE itself (the direct path off) waits in its own
     * queue until its progress runs, which the inline quiet does not do:
     * it takes the out-of-line path, whose quiet progresses. */
    if (!WEFT_LIKELY(off < weft_ofi_fast.p_limit[seg]) || WEFT_UNLIKELY(pe == weft_ofi_fast.self))
        return weft_ofi_coal_append_inline(seg, off, value, len, pe);
    struct weft_ofi_tx_head *h = weft_ofi_head(&weft_ofi_tx0);
    memcpy(&weft_ofi_fast.p.bits, value, len <= 8 ? len : 8);
    weft_ofi_fast.p.off = off;
    weft_ofi_fast.p.pe = pe;
    /* One locked add, not count_writes' load, add and store: beside the
     * provider's call its cost does not show in the message rate. */
    __atomic_fetch_add(&h->w_issued, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&h->state.why[WEFT_OFI_TX_PUTS], 1, __ATOMIC_RELAXED);
    if (WEFT_UNLIKELY(fi_inject_write(h->ep, &weft_ofi_fast.p.bits, len, (fi_addr_t)pe,
                                      weft_ofi_fast.rbase[seg] + off, weft_ofi_fast.rkey[seg])))
        weft_ofi_p_again(seg, len);
    return 1;
}
/* A put of at most WEFT_FAST_MAX bytes to the heap through the default
 * context, from the API (coalesced where weft_ofi.put.coalesce; the
 * collectives' own puts never are): weft_ofi_put or _put_nbi otherwise. */
void weft_ofi_put_small(uint64_t off, const void *src, size_t len, int pe, int nbi);
/* An application's put (or put_nbi) through tx: coalesced like
 * weft_ofi_put_small where tx is the default context's and the put is
 * small enough, else weft_ofi_put or _put_nbi. */
void weft_ofi_put_or_coalesce(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src,
                              size_t len, int pe, int nbi);
uint64_t weft_ofi_get_scalar(uint64_t off, size_t len, int pe);
uint64_t weft_ofi_get_scalar_static(uint64_t off, size_t len, int pe);

/* An 8-byte injected write that quiet does not flush: for flags whose only
 * reader waits for them (see weft_transport_notify). */
void weft_ofi_notify(struct weft_ofi_tx *tx, int seg, uint64_t off, uint64_t value, int pe);

/* Strided: nelems elements of elem bytes; target element i at
 * off + i*tstride, source element i at src + i*sstride (strides in bytes,
 * may be negative or zero). Uses iovecs up to the provider's iov_limit. */
/* Vector, non-blocking (complete at quiet; the local buffers stay in use
 * until then): n pieces, piece k of len[k] bytes between local[k] and
 * offset off[k] of seg at pe, as few fi_writemsg/fi_readmsg as the
 * provider's iov limits and message size allow (GASNet VIS). */
void weft_ofi_putv_nbi(struct weft_ofi_tx *tx, int seg, size_t n, const uint64_t *off,
                       void *const *src, const size_t *len, int pe);
void weft_ofi_getv_nbi(struct weft_ofi_tx *tx, int seg, size_t n, const uint64_t *off,
                       void *const *dst, const size_t *len, int pe);
void weft_ofi_iput(struct weft_ofi_tx *tx, int seg, uint64_t off, ptrdiff_t tstride,
                   const void *src, ptrdiff_t sstride, size_t elem, size_t nelems, int pe);
void weft_ofi_iget(struct weft_ofi_tx *tx, void *dst, ptrdiff_t dstride, int seg, uint64_t off,
                   ptrdiff_t sstride, size_t elem, size_t nelems, int pe);

/* Atomics. operand/compare/result point to one element of dt. compare is
 * used by CSWAP only. result == NULL: non-fetching (complete at quiet);
 * otherwise *result holds the old value on return (amo) or after quiet
 * (amo_nbi). Atomic with respect to every other weft atomic on the same
 * location, whichever path (native or software) each takes. */
void weft_ofi_amo(struct weft_ofi_tx *tx, enum weft_amo_op op, enum weft_dtype dt, int seg,
                  uint64_t off, const void *operand, const void *compare, void *result, int pe);
void weft_ofi_amo_nbi(struct weft_ofi_tx *tx, enum weft_amo_op op, enum weft_dtype dt, int seg,
                      uint64_t off, const void *operand, const void *compare, void *result, int pe);
/* A collective's signal: value added to the 64-bit counter at (seg, off)
 * on pe, which that PE waits for. Ordered like an atomic behind tx's
 * earlier writes; a quiet need not complete it. */
void weft_ofi_signal_add(struct weft_ofi_tx *tx, int seg, uint64_t off, uint64_t value, int pe);

/* Ordering and completion. quiet: every put, AMO and nbi op issued on tx is
 * complete at its target (remotely visible) and every nbi get/fetch result
 * is in place. fence: puts/AMOs to each PE are delivered in order across
 * the fence (may be implemented as quiet). */
/* Counting writes (counting puts and pushes, docs/extensions.md): when
 * weft_ofi_count_imm is set, every counter update that travels through
 * libfabric is a write carrying 64-bit immediate data, WEFT_OFI_COUNT_DATA
 * (heap offset of the uint64 counter, amount), that the target's progress
 * applies with a CPU atomic once the write's bytes are visible there; with
 * it clear, counters take the AMO path (put, fence, atomic add). The same
 * for every PE of a job (one provider, one tunable). */
extern int weft_ofi_count_imm;
/* The provider's progress makes system calls (it reads sockets: tcp,
 * sockets, udp), so a poll costs microseconds. */
extern int weft_ofi_progress_syscalls;
#define WEFT_OFI_COUNT_OFF_BITS 40
#define WEFT_OFI_COUNT_MAX_AMOUNT ((1ull << (64 - WEFT_OFI_COUNT_OFF_BITS)) - 1)
#define WEFT_OFI_COUNT_DATA(coff, amount) ((coff) | ((uint64_t)(amount) << WEFT_OFI_COUNT_OFF_BITS))
/* len bytes from src to (seg, off) at pe, one write of at most the
 * provider's message size, carrying data; blocking unless nbi (src
 * reusable on return). */
void weft_ofi_put_count(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                        int pe, uint64_t data, int nbi);
/* The largest single write weft_ofi_put_count takes. */
size_t weft_ofi_count_max_write(void);
/* Progress, and wait for a drain another thread is in to finish, so every
 * counter update that has reached this PE's CQ has been applied. */
void weft_ofi_progress_settled(void);
void weft_ofi_quiet(struct weft_ofi_tx *tx);
void weft_ofi_fence(struct weft_ofi_tx *tx);
/* quiet inline: nothing to do at one test of the state word; after the
 * default context's inline injected puts alone, the mark cleared: an
 * inject the provider took is queued at its target before anything this
 * PE sends there later, which is all quiet promises for it (shm, whose
 * write counter counts such an inject before fi_inject_write returns, so
 * reading it would tell nothing); anything else, the whole quiet out of
 * line. */
static inline __attribute__((always_inline)) void weft_ofi_quiet_inline(struct weft_ofi_tx *tx)
{
    struct weft_ofi_tx_head *h = weft_ofi_head(tx);
    uint32_t state = __atomic_load_n(&h->state.word, __ATOMIC_ACQUIRE);
    if (WEFT_LIKELY(state == 0))
        return;
    if (WEFT_LIKELY(state == weft_ofi_tx_state_only(WEFT_OFI_TX_PUTS)))
        __atomic_store_n(&h->state.why[WEFT_OFI_TX_PUTS], 0, __ATOMIC_RELEASE);
    else
        weft_ofi_quiet(tx);
}
static inline void weft_ofi_quiet_tx0(void) { weft_ofi_quiet_inline(&weft_ofi_tx0); }

/* Make progress on incoming requests (software atomics, provider manual
 * progress). Called by every wait loop. Cheap when there is nothing to do. */
void weft_ofi_progress(void);
/* Waits for a peer's update of this PE's memory (runtime/sync.c,
 * weft_wait_for_update) sleep on a counter instead of polling where this
 * is 1: the provider counts peers' writes, atomics and messages arriving
 * here (FI_RMA_EVENT, FI_RECV) and moves them without this PE's help
 * (FI_PROGRESS_AUTO: sockets), no other thread of this PE may store into
 * its memory (not SHMEM_THREAD_MULTIPLE), and WEFT_WAIT_COUNTER allows it.
 * Stores by directly mapped peers bump no counter: transport/transport.h checks
 * that there are none. */
extern int weft_ofi_updates_counted;
/* The counter's value is taken, then everything that arrived is applied
 * (messages and immediate data handled, coalesced puts sent): a look at
 * memory after this sees every update counted so far. */
void weft_ofi_update_look(void);
/* Sleep until the counter moves past the last look's value (at most
 * about 50 ms: a ticker thread moves it while a thread sleeps). */
void weft_ofi_update_block(void);
/* The ticker ends (finalize, before the counter closes). */
void weft_ofi_update_fini(void);
/* A look without sleep (shmem_test): the counter read, and a look taken
 * only when it moved since the last one; coalesced puts leave either way. */
void weft_ofi_update_test(void);
/* Odd while the progress thread is inside the provider or weft's message
 * handlers, where puts from peers are applied to this PE's memory: a
 * provider's copy (shm, tcp's staging buffer: glibc memcpy) may store a
 * byte twice, and a waiter that read the first store and reset its flag
 * would see the second bring it back. weft_ofi_settle_applied: once a
 * wait or test is satisfied, let the thread's turn end first (one load
 * while the thread is outside). */
extern unsigned weft_ofi_thread_turn;
void weft_ofi_settle_applied_slow(unsigned turn);
static inline void weft_ofi_settle_applied(void)
{
    unsigned turn = __atomic_load_n(&weft_ofi_thread_turn, __ATOMIC_ACQUIRE);
    if (__builtin_expect(turn & 1, 0))
        weft_ofi_settle_applied_slow(turn);
}
/* Requests of peers served so far by this PE's progress: messages
 * received, plus the remote reads, writes and atomics the provider counts
 * (FI_RMA_EVENT; counted where idle PEs may nap, weft_idle_naps_possible,
 * and where gets are read by CMA, ofi_cma.c). Returns 0, with *count
 * untouched, where those are not counted (tcp;ofi_rxm, or neither). */
int weft_ofi_served(uint64_t *count);
/* Naps on the CQ's descriptor (weft_transport_can_block, weft_transport_block): possible
 * where the CQ was opened with one (an oversubscribed host over tcp) and
 * the thread is not waiting for a context endpoint's own CQ. */
int weft_ofi_can_block(void);
int weft_ofi_block(uint64_t ns, const uint64_t *word, uint64_t seen);

/* Introspection for weft-info and SHMEM_INFO. */
const char *weft_ofi_provider_name(void);
/* The libfabric API version weft asks for (its headers'). */
uint32_t weft_ofi_api_version(void);
void weft_ofi_describe(FILE *out); /* provider, mr_mode, limits, AMO table */
/* weft-info --providers: weft's decisions on this provider in one line,
 * then the operations they rest on, executed against this PE (ofi_probe.c). */
void weft_ofi_probe(FILE *out);
/* 1 if a CPU atomic on this PE's own memory is atomic with respect to the
 * atomics peers apply to it through libfabric on type dt. */
int weft_ofi_amo_cpu_coherent(enum weft_dtype dt);
/* 1 if (op, dt) is executed natively by the provider, 0 if in software. */
int weft_ofi_amo_is_native(enum weft_amo_op op, enum weft_dtype dt);

#pragma GCC visibility pop

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* transport.h owns the one door to the transports: the layers above
 * (src/api, src/gasnet, src/am) reach the on-node path and libfabric only
 * through the functions here. One load of the peer's direct mapping
 * decides between the on-node path (loads, stores, memcpy, CPU atomics
 * into the peer's mapped segment) and libfabric, here and nowhere else.
 * Hot calls are static inline, with no function pointers; cold ones
 * (contexts, set-up, introspection) call the transports' own functions. */
#ifndef WEFT_TRANSPORT_H
#define WEFT_TRANSPORT_H

#include <string.h>

#include "core/copy.h"
#include "core/cpu_amo.h"
#include "core/runtime.h"
#include "transport/ofi/ofi.h"
#include "transport/ofi/ofi_msg.h"
#include "transport/onnode/onnode.h"

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* A communication context as the API layer sees it (shmem_ctx_t points to
 * one). Each carries its own transport resources. SHMEM_CTX_DEFAULT is the
 * address of the exported weft_ctx_default, of which a program holds a
 * copy of the library's size at link time (a copy relocation): the size
 * is fixed, with room to grow. */
#define WEFT_CTX_ABI_BYTES 64

struct weft_ctx {
    union {
        struct {
            struct weft_ofi_tx *ofi;
            long options;
            struct weft_team *team;
        };
        unsigned char abi_bytes[WEFT_CTX_ABI_BYTES];
    };
};
_Static_assert(sizeof(struct weft_ctx) == WEFT_CTX_ABI_BYTES,
               "struct weft_ctx outgrew its exported size: raise WEFT_CTX_ABI_BYTES "
               "(an ABI change)");

WEFT_EXPORT extern struct weft_ctx weft_ctx_default; /* SHMEM_CTX_DEFAULT */

/* The default context's fast path: pe's segment seg as mapped in this
 * process, or NULL when pe is reached through libfabric (see the fast
 * path section below). */
static inline __attribute__((always_inline)) char *weft_transport_fast_peer(int seg, int pe)
{
    return (seg == WEFT_SEG_HEAP ? weft_fast_heap_peer : weft_fast_data_peer)[(unsigned)pe];
}

/* ---- any context ------------------------------------------------------------
 * RMA on (seg, off) at pe. Each returns 1 when the operation was left to
 * libfabric (a later quiet completes it), 0 when it is complete on return
 * (the direct path): GASNet's handles are made of that. put: src reusable
 * on return; put_nbi: not before quiet; get: dst filled on return;
 * get_nbi: after quiet. */
/* After a blocking get's loads from a mapped peer: they come before this
 * PE's later loads and stores, as a get through libfabric (complete on
 * return) does; without it a weakly ordered CPU (aarch64) may let a later
 * load, say of data a flag read by the get announces, pass them. A
 * compiler barrier only on x86. A non-blocking get's loads are ordered by
 * the full fence of the quiet that completes it. */
static inline void weft_transport_get_done(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline int weft_transport_put(struct weft_ctx *c, int seg, uint64_t off, const void *src,
                                     size_t len, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p) {
        weft_copy_once(p, src, len); /* each byte once; may overlap (self) */
        return 0;
    }
    weft_ofi_put(c->ofi, seg, off, src, len, pe);
    return 1;
}
static inline int weft_transport_put_nbi(struct weft_ctx *c, int seg, uint64_t off, const void *src,
                                         size_t len, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p) {
        weft_copy_once(p, src, len);
        return 0;
    }
    weft_ofi_put_nbi(c->ofi, seg, off, src, len, pe);
    return 1;
}
/* An application's put or put_nbi: as weft_transport_put(_nbi), but a
 * small one through the default context may be coalesced
 * (weft_ofi_put_or_coalesce); the runtime's own puts (collectives) never
 * are. */
static inline void weft_transport_put_or_coalesce(struct weft_ctx *c, int seg, uint64_t off,
                                                  const void *src, size_t len, int pe, int nbi)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_copy_once(p, src, len);
    else
        weft_ofi_put_or_coalesce(c->ofi, seg, off, src, len, pe, nbi);
}
static inline int weft_transport_get(struct weft_ctx *c, void *dst, int seg, uint64_t off,
                                     size_t len, int pe)
{
    const char *p = weft_onnode_addr(seg, off, pe);
    if (p) {
        memmove(dst, p, len);
        weft_transport_get_done();
        return 0;
    }
    weft_ofi_get(c->ofi, dst, seg, off, len, pe);
    return 1;
}
static inline int weft_transport_get_nbi(struct weft_ctx *c, void *dst, int seg, uint64_t off,
                                         size_t len, int pe)
{
    const char *p = weft_onnode_addr(seg, off, pe);
    if (p) {
        memmove(dst, p, len);
        return 0;
    }
    weft_ofi_get_nbi(c->ofi, dst, seg, off, len, pe);
    return 1;
}
/* len bytes of value c at (seg, off) at pe; 1 when left to libfabric (puts
 * of a filled buffer, each complete locally before the buffer is reused). */
static inline int weft_transport_memset(struct weft_ctx *c, int seg, uint64_t off, int value,
                                        size_t len, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p) {
        memset(p, value, len);
        return 0;
    }
    char buf[4096];
    memset(buf, value, len < sizeof buf ? len : sizeof buf);
    for (size_t done = 0; done < len;) {
        size_t n = len - done < sizeof buf ? len - done : sizeof buf;
        weft_ofi_put(c->ofi, seg, off + done, buf, n, pe);
        done += n;
    }
    return len != 0;
}
/* Vector, non-blocking: n pieces, piece k of len[k] bytes between local[k]
 * and offset off[k] of seg at pe (GASNet VIS); copied at once on the
 * direct path, else as few libfabric writes or reads as the provider's
 * limits allow, complete at quiet (1 returned then). */
static inline int weft_transport_putv_nbi(struct weft_ctx *c, int seg, size_t n,
                                          const uint64_t *off, void *const *local,
                                          const size_t *len, int pe)
{
    if (n && weft_onnode_addr(seg, off[0], pe)) {
        for (size_t k = 0; k < n; k++)
            weft_copy_once(weft_onnode_addr(seg, off[k], pe), local[k], len[k]);
        return 0;
    }
    if (n)
        weft_ofi_putv_nbi(c->ofi, seg, n, off, local, len, pe);
    return n != 0;
}
static inline int weft_transport_getv_nbi(struct weft_ctx *c, int seg, size_t n,
                                          const uint64_t *off, void *const *local,
                                          const size_t *len, int pe)
{
    if (n && weft_onnode_addr(seg, off[0], pe)) {
        for (size_t k = 0; k < n; k++)
            memmove(local[k], weft_onnode_addr(seg, off[k], pe), len[k]);
        return 0;
    }
    if (n)
        weft_ofi_getv_nbi(c->ofi, seg, n, off, local, len, pe);
    return n != 0;
}
/* The object at (seg, off) of pe as mapped in this process (shmem_ptr), or
 * NULL when pe is reached through libfabric. */
static inline void *weft_transport_ptr(int seg, uint64_t off, int pe)
{
    return weft_onnode_addr(seg, off, pe);
}

/* Strided copy: element i from src + i*sstride to dst + i*dstride, each
 * destination byte stored once (copy.h: dst may be a peer's memory). */
static inline void weft_copy_strided(char *dst, ptrdiff_t dstride, const char *src,
                                     ptrdiff_t sstride, size_t elem, size_t n)
{
    for (size_t i = 0; i < n; i++, dst += dstride, src += sstride)
        weft_copy_once(dst, src, elem);
}

static inline void weft_transport_iput(struct weft_ctx *c, int seg, uint64_t off, ptrdiff_t tstride,
                                       const void *src, ptrdiff_t sstride, size_t elem, size_t n,
                                       int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_copy_strided(p, tstride, src, sstride, elem, n);
    else
        weft_ofi_iput(c->ofi, seg, off, tstride, src, sstride, elem, n, pe);
}
static inline void weft_transport_iget(struct weft_ctx *c, void *dst, ptrdiff_t dstride, int seg,
                                       uint64_t off, ptrdiff_t sstride, size_t elem, size_t n,
                                       int pe)
{
    const char *p = weft_onnode_addr(seg, off, pe);
    if (p) {
        weft_copy_strided(dst, dstride, p, sstride, elem, n);
        weft_transport_get_done();
    } else
        weft_ofi_iget(c->ofi, dst, dstride, seg, off, sstride, elem, n, pe);
}
static inline void weft_transport_amo(struct weft_ctx *c, enum weft_amo_op op, enum weft_dtype dt,
                                      int seg, uint64_t off, const void *operand,
                                      const void *compare, void *result, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_cpu_amo(op, dt, p, operand, compare, result);
    else
        weft_ofi_amo(c->ofi, op, dt, seg, off, operand, compare, result, pe);
}
static inline void weft_transport_amo_nbi(struct weft_ctx *c, enum weft_amo_op op,
                                          enum weft_dtype dt, int seg, uint64_t off,
                                          const void *operand, const void *compare, void *result,
                                          int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_cpu_amo(op, dt, p, operand, compare, result);
    else
        weft_ofi_amo_nbi(c->ofi, op, dt, seg, off, operand, compare, result, pe);
}
/* A collective's signal: value added to a 64-bit counter that pe waits
 * for; a later quiet need not complete it. */
static inline void weft_transport_signal_add(struct weft_ctx *c, int seg, uint64_t off,
                                             uint64_t value, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_cpu_amo(WEFT_AMO_ADD, WEFT_DT_I64, p, &value, NULL, NULL);
    else
        weft_ofi_signal_add(c->ofi, seg, off, value, pe);
}
/* 1 when this PE may apply an atomic on dt to its own symmetric memory
 * with a CPU atomic although peers' atomics on it may be in flight: every
 * path applies those with CPU atomics in this process. */
static inline int weft_transport_self_amo_is_cpu(enum weft_dtype dt)
{
    return weft_onnode.all_direct || weft_ofi_amo_cpu_coherent(dt);
}
/* A monotone 64-bit flag another PE waits on (barrier signals): release
 * store on the direct path; through libfabric an injected write that the
 * next quiet need not flush, since only the waiting PE cares when it lands. */
static inline void weft_transport_notify(struct weft_ctx *c, int seg, uint64_t off, uint64_t value,
                                         int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        __atomic_store_n((uint64_t *)(void *)p, value, __ATOMIC_RELEASE);
    else
        weft_ofi_notify(c->ofi, seg, off, value, pe);
}
/* quiet: direct stores are complete once issued; the full fence orders them
 * before whatever this PE does next (a flag put, a get of another PE). */
static inline void weft_transport_quiet(struct weft_ctx *c)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    weft_ofi_quiet_inline(c->ofi);
}
/* fence: direct stores to one PE are ordered by a release fence; anything
 * issued through libfabric is completed. Contract every path keeps
 * (put-with-signal relies on it): a put issued on c before the fence is
 * visible at its target before any AMO issued on c after it takes effect. */
static inline void weft_transport_fence(struct weft_ctx *c)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (weft_ofi_active(c->ofi))
        weft_ofi_fence(c->ofi);
}
/* Anything issued on c through libfabric since its last quiet (what a
 * quiet of c would complete). */
static inline int weft_transport_outstanding(struct weft_ctx *c) { return weft_ofi_active(c->ofi); }
/* A put (blocking or nbi) then a fence: what put-with-signal and the
 * counters' fallback issue before their update. */
static inline void weft_transport_put_fenced(struct weft_ctx *c, int seg, uint64_t off,
                                             const void *src, size_t len, int pe, int nbi)
{
    if (nbi)
        weft_transport_put_nbi(c, seg, off, src, len, pe);
    else
        weft_transport_put(c, seg, off, src, len, pe);
    weft_transport_fence(c);
}
/* Wait loops call this every spin. When every PE is direct nothing can
 * arrive through libfabric, so there is nothing to progress. */
static inline void weft_transport_progress(void)
{
    if (!weft_onnode.all_direct)
        weft_ofi_progress();
}
/* Waits for a peer's update may sleep on the counter of what arrives
 * (ofi.h, weft_ofi_updates_counted): never where a peer stores into this
 * PE's memory directly, which bumps no counter. */
static inline int weft_transport_updates_counted(void)
{
    return weft_ofi_updates_counted && !weft_onnode.peers_direct;
}
static inline void weft_transport_update_look(void) { weft_ofi_update_look(); }
static inline void weft_transport_update_block(void) { weft_ofi_update_block(); }
static inline void weft_transport_update_test(void) { weft_ofi_update_test(); }
/* weft_poll_yield for a thread driving context c (through libfabric): its
 * endpoint progresses too, and the pause never sleeps on a descriptor that
 * endpoint does not wake. */
static inline void weft_transport_poll_yield_ctx(struct weft_ctx *c, unsigned *spins)
{
    weft_ofi_poll_yield_tx(c->ofi, spins);
}
/* Every peer is reached directly: nothing arrives through libfabric. */
static inline int weft_transport_all_direct(void) { return weft_onnode.all_direct; }
/* The same plus the endpoint of context c where it has its own: a thread
 * driving a context waits for peers' signals and its own puts still move. */
static inline void weft_transport_progress_ctx(struct weft_ctx *c)
{
    if (!weft_onnode.all_direct) {
        weft_ofi_tx_progress(c->ofi);
        weft_ofi_progress();
    }
}
/* A wait or test was satisfied: a put the progress thread is applying is
 * whole before the caller may overwrite what it saw (ofi.h). */
static inline void weft_transport_settle_applied(void)
{
    if (!weft_onnode.all_direct)
        weft_ofi_settle_applied();
}
/* Requests of peers this PE's progress has served so far, into *count;
 * returns 0 when that cannot be told (then a waiting PE must not nap:
 * runtime/sync.c). With every PE direct a PE serves nobody: peers reach its
 * memory without it. */
static inline int weft_transport_served(uint64_t *count)
{
    if (weft_onnode.all_direct) {
        *count = 0;
        return 1;
    }
    return weft_ofi_served(count);
}
/* A progress call costs system calls (runtime/sync.c bounds spins in time). */
static inline int weft_transport_progress_syscalls(void)
{
    return !weft_onnode.all_direct && weft_ofi_progress_syscalls;
}
/* Whether a waiting thread can sleep until a peer's request or reply
 * arrives (weft_transport_block): where served requests cannot be counted, that
 * is how an idle PE naps without keeping a serving one waiting. */
static inline int weft_transport_can_block(void)
{
    return !weft_onnode.all_direct && weft_ofi_can_block();
}
/* Sleep at most ns, or until traffic arrives: 1 if it did (or was already
 * there), 0 if the time ran out, -1 if the provider refused the wait.
 * With word (else NULL): not at all if it no longer holds seen, for a
 * wait on a word that a peer's arriving update writes. */
static inline int weft_transport_block(uint64_t ns, const uint64_t *word, uint64_t seen)
{
    return weft_ofi_block(ns, word, seen);
}

/* ---- counters (counting puts and pushes, src/api/counting.c) -------------
 * weft_transport_put_count: len bytes from src to (seg, off) at pe, then amount
 * added to the uint64 counter at heap offset coff at pe, never visible
 * there before the bytes. scratch: the heap offset of 8 bytes at pe that
 * nothing reads, where an update without data of its own (len 0, a get's
 * count, the count after a multi-write put) lands its carrier write.
 * The counter's agent is one per job: a CPU atomic at the target (direct
 * peer: the caller's release add; libfabric with weft_ofi_count_imm: the
 * target's progress, from the write's immediate data), or, with immediate
 * data off, weft's AMO path as for every atomic. */
static inline void weft_transport_put_count(struct weft_ctx *c, int seg, uint64_t off,
                                            const void *src, size_t len, uint64_t coff,
                                            uint64_t scratch, uint64_t amount, int pe, int nbi)
{
    char *cnt = weft_onnode_addr(WEFT_SEG_HEAP, coff, pe);
    char *p = len ? weft_onnode_addr(seg, off, pe) : NULL;
    if (cnt && (p || !len)) {
        if (len)
            weft_copy_once(p, src, len);
        __atomic_fetch_add((uint64_t *)(void *)cnt, amount, __ATOMIC_RELEASE);
        return;
    }
    if (!cnt && !p && weft_ofi_count_imm && len && len <= weft_ofi_count_max_write() &&
        amount <= WEFT_OFI_COUNT_MAX_AMOUNT) {
        weft_ofi_put_count(c->ofi, seg, off, src, len, pe, WEFT_OFI_COUNT_DATA(coff, amount),
                           nbi);
        return;
    }
    /* Data and counter apart (a split peer, several writes, no data):
     * the data, the fence's promise, then the update. */
    if (len) {
        weft_transport_put_fenced(c, seg, off, src, len, pe, nbi);
    } else {
        __atomic_thread_fence(__ATOMIC_RELEASE); /* the caller's reads (a get's count) */
    }
    if (cnt) {
        __atomic_fetch_add((uint64_t *)(void *)cnt, amount, __ATOMIC_RELEASE);
    } else if (weft_ofi_count_imm) {
        static const uint64_t carrier = 0;
        for (;;) {
            uint64_t a = amount < WEFT_OFI_COUNT_MAX_AMOUNT ? amount : WEFT_OFI_COUNT_MAX_AMOUNT;
            weft_ofi_put_count(c->ofi, WEFT_SEG_HEAP, scratch, &carrier, sizeof carrier, pe,
                               WEFT_OFI_COUNT_DATA(coff, a), 1);
            if ((amount -= a) == 0)
                break;
        }
    } else {
        weft_transport_amo_nbi(c, WEFT_AMO_ADD, WEFT_DT_U64, WEFT_SEG_HEAP, coff, &amount, NULL,
                               NULL, pe);
    }
}
/* The default context's counting put of one count, data and counter in
 * the heap (offsets below weft_fast_heap_limit, pe checked): to a direct
 * peer a copy and a release add; 1 when done, 0 when pe is reached through
 * libfabric (the caller takes weft_transport_put_count). */
static inline __attribute__((always_inline)) int
weft_transport_put_count_direct(uint64_t off, const void *src, size_t len, uint64_t coff, int pe)
{
    char *peer = weft_transport_fast_peer(WEFT_SEG_HEAP, pe);
    if (WEFT_UNLIKELY(peer == NULL))
        return 0;
    /* One word, the commonest count-carrying put, without the copy's
     * length dispatch (a jump table). */
    if (len == sizeof(uint64_t))
        *(weft_u64_any *)(void *)(peer + off) = *(const weft_u64_any *)src;
    else
        weft_copy_once(peer + off, src, len);
    __atomic_fetch_add((uint64_t *)(void *)(peer + coff), 1, __ATOMIC_RELEASE);
    return 1;
}
/* Set this PE's own counter at heap offset coff by the counters' agent
 * (see above); returns once applied. */
static inline void weft_transport_count_set(uint64_t coff, uint64_t value)
{
    int me = weft_rt.my_pe;
    if (weft_ofi_count_imm || weft_onnode_addr(WEFT_SEG_HEAP, coff, me)) {
        __atomic_exchange_n((uint64_t *)(void *)(weft_rt.seg[WEFT_SEG_HEAP].base + coff), value,
                            __ATOMIC_ACQ_REL);
        return;
    }
    uint64_t old;
    weft_transport_amo(&weft_ctx_default, WEFT_AMO_SWAP, WEFT_DT_U64, WEFT_SEG_HEAP, coff, &value,
                       NULL, &old, me);
}
/* Before reading an own counter: apply the updates that reached this PE. */
static inline void weft_transport_count_settle(void)
{
    if (!weft_onnode.all_direct)
        weft_ofi_progress_settled();
}

/* ---- the default context's fast path (src/api/api.h) --------------------
 * The caller placed the object at offset off of seg, below that segment's
 * fast limit (weft_fast_heap_limit, weft_fast_data_limit), and checked pe.
 * One load of the peer's mapping (weft_fast_heap_peer, _data_peer) picks
 * the path; libfabric is reached through the default context's transmit
 * resources named directly (no pointer chase). seg is a constant in every
 * caller, so each folds to one table. */
/* A heap put of at most WEFT_FAST_MAX bytes (coalesced where libfabric
 * coalesces: weft_ofi_put_small). */
static inline __attribute__((always_inline)) void
weft_transport_put_small(uint64_t off, const void *src, size_t len, int pe, int nbi)
{
    char *peer = weft_transport_fast_peer(WEFT_SEG_HEAP, pe);
    if (WEFT_LIKELY(peer != NULL))
        weft_copy_once(peer + off, src, len); /* each byte once (copy.h) */
    else
        weft_ofi_put_small(off, src, len, pe, nbi);
}
static inline __attribute__((always_inline)) void
weft_transport_get_small(void *dst, uint64_t off, size_t len, int pe, int nbi)
{
    const char *peer = weft_transport_fast_peer(WEFT_SEG_HEAP, pe);
    if (WEFT_LIKELY(peer != NULL)) {
        memmove(dst, peer + off, len);
        if (!nbi)
            weft_transport_get_done();
    } else if (nbi)
        weft_ofi_get_nbi(&weft_ofi_tx0, dst, WEFT_SEG_HEAP, off, len, pe);
    else
        weft_ofi_get(&weft_ofi_tx0, dst, WEFT_SEG_HEAP, off, len, pe);
}
/* An AMO on seg (heap or static data): a CPU atomic on a mapped peer. */
static inline __attribute__((always_inline)) void
weft_transport_amo_fast(int seg, uint64_t off, enum weft_amo_op op, enum weft_dtype dt,
                        const void *operand, const void *compare, void *result, int pe, int nbi)
{
    char *peer = weft_transport_fast_peer(seg, pe);
    if (WEFT_LIKELY(peer != NULL))
        weft_cpu_amo(op, dt, peer + off, operand, compare, result);
    else if (nbi)
        weft_ofi_amo_nbi(&weft_ofi_tx0, op, dt, seg, off, operand, compare, result, pe);
    else
        weft_ofi_amo(&weft_ofi_tx0, op, dt, seg, off, operand, compare, result, pe);
}
/* shmem_TYPE_p and _g of len <= 8 bytes, the value in registers: value
 * points to the caller's variable, which the inlined copy keeps a
 * register. p_heap: 1 when stored into a mapped peer; 0 when the peer is
 * reached through libfabric, where the caller takes p_heap_ofi out of
 * line (a call inside the direct path's function would give it a stack
 * frame). p_heap_ofi: the default context's inline injection, or its
 * out-of-line put; 0 when off lies past the heap (window mode: static
 * data, which the caller sends to weft_transport_p_data_ofi with its data
 * offset). */
static inline __attribute__((always_inline)) int
weft_transport_p_heap(uint64_t off, const void *value, size_t len, int pe)
{
    char *peer = weft_transport_fast_peer(WEFT_SEG_HEAP, pe);
    if (WEFT_LIKELY(peer != NULL)) {
        weft_copy_scalar(peer + off, value, len); /* one store (copy.h) */
        return 1;
    }
    return 0;
}
static inline __attribute__((always_inline)) int
weft_transport_p_heap_ofi(uint64_t off, const void *value, size_t len, int pe)
{
    if (WEFT_LIKELY(weft_ofi_p_inline(WEFT_SEG_HEAP, off, value, len, pe)))
        return 1;
    if (off < weft_fast_heap_limit) {
        uint64_t bits = 0;
        memcpy(&bits, value, len <= 8 ? len : 8);
        weft_ofi_put_scalar(off, bits, len, pe);
        return 1;
    }
    return 0;
}
static inline __attribute__((always_inline)) int
weft_transport_g_heap(uint64_t off, void *value, size_t len, int pe)
{
    const char *peer = weft_transport_fast_peer(WEFT_SEG_HEAP, pe);
    if (WEFT_LIKELY(peer != NULL)) {
        weft_copy_scalar(value, peer + off, len); /* one load */
        weft_transport_get_done();
        return 1;
    }
    if (WEFT_LIKELY(off < weft_fast_heap_limit)) {
        uint64_t bits = weft_ofi_get_scalar(off, len, pe);
        memcpy(value, &bits, len <= 8 ? len : 8);
        return 1;
    }
    return 0;
}
/* A word of the default context's heap to a PE reached through
 * libfabric: injected like shmem_TYPE_p's value (a later quiet completes
 * it). */
static inline __attribute__((always_inline)) void weft_transport_put_u64_ofi(uint64_t off,
                                                                           uint64_t bits, int pe)
{
    if (!weft_ofi_p_inline(WEFT_SEG_HEAP, off, &bits, sizeof bits, pe))
        weft_ofi_put_scalar(off, bits, sizeof bits, pe);
}
/* A word of the default context's heap (GASNet's 8-byte puts), pe
 * checked: a store on a direct peer (0: complete), else injected like
 * shmem_TYPE_p's value (1: left to libfabric, a later quiet completes
 * it). */
static inline __attribute__((always_inline)) int weft_transport_put_u64(uint64_t off, uint64_t bits,
                                                                        int pe)
{
    char *peer = weft_transport_fast_peer(WEFT_SEG_HEAP, pe);
    if (WEFT_LIKELY(peer != NULL)) {
        weft_copy_scalar(peer + off, &bits, sizeof bits);
        return 0;
    }
    weft_transport_put_u64_ofi(off, bits, pe);
    return 1;
}
/* Static data at data offset doff of a mapped peer: 1 when done, 0 when
 * the peer is reached through libfabric. */
static inline __attribute__((always_inline)) int
weft_transport_p_data(uint64_t doff, const void *value, size_t len, int pe)
{
    char *peer = weft_transport_fast_peer(WEFT_SEG_DATA, pe);
    if (WEFT_LIKELY(peer != NULL)) {
        weft_copy_scalar(peer + doff, value, len);
        return 1;
    }
    return 0;
}
static inline __attribute__((always_inline)) int
weft_transport_g_data(uint64_t doff, void *value, size_t len, int pe)
{
    const char *peer = weft_transport_fast_peer(WEFT_SEG_DATA, pe);
    if (WEFT_LIKELY(peer != NULL)) {
        weft_copy_scalar(value, peer + doff, len);
        weft_transport_get_done();
        return 1;
    }
    return 0;
}
/* Static data below weft_fast_data_limit of a peer reached through
 * libfabric: the value as the first len bytes of a word. */
static inline __attribute__((always_inline)) void
weft_transport_p_data_ofi(uint64_t doff, uint64_t bits, size_t len, int pe)
{
    if (!weft_ofi_p_inline(WEFT_SEG_DATA, doff, &bits, len, pe))
        weft_ofi_put_scalar_static(doff, bits, len, pe);
}
static inline uint64_t weft_transport_g_data_ofi(uint64_t doff, size_t len, int pe)
{
    return weft_ofi_get_scalar_static(doff, len, pe);
}
/* shmem_quiet: the default context's quiet with its resources named
 * directly (RIP-relative loads, no pointer chase). */
static inline void weft_transport_quiet_default(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    weft_ofi_quiet_tx0();
}

/* ---- contexts (cold) ---------------------------------------------------------
 * Transmit resources for a new context c: an endpoint of its own while the
 * libfabric budget lasts, else the default context's (WEFT_CTX_SHARE).
 * private_use: one thread at a time (no lock). 0, or -1 when none can be
 * had. Closing completes what was issued on c first. */
static inline int weft_transport_ctx_open(struct weft_ctx *c, int private_use)
{
    int own;
    c->ofi = weft_ofi_ctx_tx_create(private_use, &own);
    return c->ofi ? 0 : -1;
}
static inline void weft_transport_ctx_close(struct weft_ctx *c)
{
    weft_ofi_ctx_tx_destroy(c->ofi);
    c->ofi = NULL;
}
/* A private context for a layer above (the active-message engine's Long
 * payloads), or the default context's resources when no endpoint is left;
 * closed with weft_transport_ctx_close_private. */
static inline void weft_transport_ctx_open_private(struct weft_ctx *c)
{
    int own;
    c->options = 0;
    c->team = NULL;
    c->ofi = weft_onnode.all_direct ? NULL : weft_ofi_ctx_tx_create(1, &own);
    if (!c->ofi && !weft_onnode.all_direct)
        c->ofi = &weft_ofi_tx0;
}
/* The same for a second thread driving the transport beside the
 * application's: an endpoint of its own or none needed (every peer
 * direct); -1 when it would have to share the default context's. */
static inline int weft_transport_ctx_open_thread(struct weft_ctx *c)
{
    weft_transport_ctx_open_private(c);
    if (weft_onnode.all_direct) {
        c->ofi = &weft_ofi_tx0; /* never reaches libfabric, as the default's */
        return 0;
    }
    if (c->ofi == &weft_ofi_tx0) {
        c->ofi = NULL;
        return -1;
    }
    return 0;
}
static inline void weft_transport_ctx_close_private(struct weft_ctx *c)
{
    if (c->ofi && c->ofi != &weft_ofi_tx0)
        weft_ofi_ctx_tx_destroy(c->ofi);
    c->ofi = NULL;
}

/* ---- messages to peers reached through libfabric (the active-message
 * engine, src/am/) ------------------------------------------------------------
 * The engine's messages travel under a handler id of their own in the
 * libfabric transport's message layer (ofi/ofi_msg.h): up to
 * WEFT_TRANSPORT_MSG_MAX_ARGS 64-bit arguments and a payload. The engine
 * registers its handler once at set-up; the handler runs in the target's
 * progress (any wait loop, the progress thread) and must not block. */
#define WEFT_TRANSPORT_MSG_MAX_ARGS WEFT_OFI_MSG_MAX_ARGS
#define WEFT_TRANSPORT_MSG_MAX_PAYLOAD WEFT_OFI_MSG_MAX_PAYLOAD
typedef void (*weft_transport_msg_fn)(int src_pe, uint32_t imm, const uint64_t *args, int nargs,
                                      const void *payload, size_t len);
static inline void weft_transport_msg_register(weft_transport_msg_fn fn)
{
    weft_ofi_msg_register(WEFT_OFI_MSG_H_AM, fn);
}
static inline void weft_transport_msg_send(int pe, const uint64_t *args, int nargs,
                                           const void *payload, size_t len)
{
    weft_ofi_msg_send(pe, WEFT_OFI_MSG_ID(WEFT_OFI_MSG_H_AM, 0), args, nargs, payload, len);
}
/* The same with no payload and at most WEFT_TRANSPORT_MSG_MAX_ARGS
 * arguments (Short active messages): injected straight from the caller's
 * arguments where the provider takes it whole. */
static inline void weft_transport_msg_send_short(int pe, const uint64_t *args, int nargs)
{
    weft_ofi_msg_send_short(pe, WEFT_OFI_MSG_ID(WEFT_OFI_MSG_H_AM, 0), args, nargs);
}
/* Send the engine's messages batched so far (the end of its polls). */
static inline void weft_transport_msg_flush(void) { weft_ofi_msg_flush(); }
/* 1 while this thread runs a message handler (inside the progress). */
static inline int weft_transport_msg_in_handler(void) { return weft_ofi_msg_in_handler(); }

/* ---- set-up and teardown (the runtime, cold) ----------------------------
 * In this order at start-up: share_static before anything registers or
 * maps the static data, with each PE's node (node_of[pe], from the
 * runtime's topology, kept until fini_onnode) and the count of nodes; init (the direct path's mappings first: the
 * libfabric atomicity rule needs them), 0 or -1; wireup_done after the
 * first barrier. At the end: fini_libfabric (its launcher barrier is
 * finalize's synchronization), later fini_onnode; abandon when leaving
 * without finalize. */
static inline void weft_transport_share_static(const int *node_of, int n_nodes)
{
    weft_onnode_set_nodes(node_of, n_nodes);
    weft_onnode_share_static();
}
static inline int weft_transport_init(int thread_multiple)
{
    weft_onnode_init();
    if (weft_ofi_init(thread_multiple) != 0)
        return -1;
    weft_ctx_default.ofi = weft_ofi_default_tx();
    return 0;
}
/* The fast path's tables (api.h): each PE's segment seg as mapped here,
 * or NULL; and the window's size (heap and static data in one mapping per
 * peer, 0 without). */
static inline char **weft_transport_fast_peers(int seg) { return weft_onnode.fast[seg]; }
static inline size_t weft_transport_window(void) { return weft_onnode.window; }
/* SHMEM_THREAD_MULTIPLE can be provided. */
static inline int weft_transport_thread_multiple(void) { return weft_ofi_thread_multiple(); }
/* Two threads of this PE may drive the transport at once, each through its
 * own context, at any thread level (the non-blocking collectives' engine
 * beside the application): every peer direct, or an FI_THREAD_SAFE domain. */
static inline int weft_transport_threads_safe(void)
{
    return weft_onnode.all_direct || weft_ofi_thread_safe();
}
/* Transfers to and from this PE advance while its application computes
 * without calling weft: every peer direct, a progress thread, or a
 * provider with automatic progress. */
static inline int weft_transport_progresses_alone(void)
{
    return weft_onnode.all_direct || weft_ofi_progresses_alone();
}
/* Every PE is reached directly: libfabric was not opened. */
static inline int weft_transport_libfabric_unused(void) { return weft_ofi_unused(); }
/* The peers need the names of this PE's files in /dev/shm no more. */
static inline int weft_transport_shm_names_done(void) { return weft_ofi_shm_names_done(); }
static inline void weft_transport_wireup_done(void) { weft_ofi_wireup_done(); }
static inline void weft_transport_fini_libfabric(void) { weft_ofi_fini(); }
static inline void weft_transport_fini_onnode(void) { weft_onnode_fini(); }
static inline void weft_transport_abandon(void) { weft_ofi_abandon(); }

/* ---- introspection ---------------------------------------------------------- */
static inline const char *weft_transport_provider_name(void) { return weft_ofi_provider_name(); }
static inline uint32_t weft_transport_fabric_api_version(void) { return weft_ofi_api_version(); }
/* Both transports' state, for SHMEM_INFO and weft-info. */
static inline void weft_transport_describe(FILE *out)
{
    weft_ofi_describe(out);
    weft_onnode_describe(out);
}
/* weft-info --providers: the provider's line and what was executed on it. */
static inline void weft_transport_probe(FILE *out) { weft_ofi_probe(out); }

#pragma GCC visibility pop

#endif

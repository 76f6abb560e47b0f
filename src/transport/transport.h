/* transport.h owns the single, inline dispatch point between the API layer
 * and the transports: one load of the peer's direct mapping decides between
 * the on-node path (loads, stores, memcpy, CPU atomics into the peer's
 * mapped segment) and libfabric. No function pointers on this path. */
#ifndef WEFT_TRANSPORT_H
#define WEFT_TRANSPORT_H

#include <string.h>

#include "core/copy.h"
#include "core/cpu_amo.h"
#include "core/runtime.h"
#include "transport/ofi/ofi.h"
#include "transport/onnode/onnode.h"

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* A communication context as the API layer sees it (shmem_ctx_t points to
 * one). Each carries its own transport resources. */
struct weft_ctx {
    struct weft_ofi_tx *ofi;
    long options;
    struct weft_team *team;
};

WEFT_EXPORT extern struct weft_ctx weft_ctx_default; /* SHMEM_CTX_DEFAULT */

static inline void weft_tx_put(struct weft_ctx *c, int seg, uint64_t off, const void *src,
                               size_t len, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_copy_once(p, src, len); /* each byte once; may overlap (self) */
    else
        weft_ofi_put(c->ofi, seg, off, src, len, pe);
}
static inline void weft_tx_put_nbi(struct weft_ctx *c, int seg, uint64_t off, const void *src,
                                   size_t len, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_copy_once(p, src, len);
    else
        weft_ofi_put_nbi(c->ofi, seg, off, src, len, pe);
}
/* An application's put or put_nbi: as weft_tx_put(_nbi), but a small one
 * through the default context may be coalesced (weft_ofi_put_api); the
 * runtime's own puts (collectives) never are. */
static inline void weft_tx_put_api(struct weft_ctx *c, int seg, uint64_t off, const void *src,
                                   size_t len, int pe, int nbi)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_copy_once(p, src, len);
    else
        weft_ofi_put_api(c->ofi, seg, off, src, len, pe, nbi);
}
static inline void weft_tx_get(struct weft_ctx *c, void *dst, int seg, uint64_t off, size_t len,
                               int pe)
{
    const char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        memmove(dst, p, len);
    else
        weft_ofi_get(c->ofi, dst, seg, off, len, pe);
}
static inline void weft_tx_get_nbi(struct weft_ctx *c, void *dst, int seg, uint64_t off,
                                   size_t len, int pe)
{
    const char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        memmove(dst, p, len);
    else
        weft_ofi_get_nbi(c->ofi, dst, seg, off, len, pe);
}

/* Strided copy: element i from src + i*sstride to dst + i*dstride, each
 * destination byte stored once (copy.h: dst may be a peer's memory). */
static inline void weft_copy_strided(char *dst, ptrdiff_t dstride, const char *src,
                                     ptrdiff_t sstride, size_t elem, size_t n)
{
    for (size_t i = 0; i < n; i++, dst += dstride, src += sstride)
        weft_copy_once(dst, src, elem);
}

static inline void weft_tx_iput(struct weft_ctx *c, int seg, uint64_t off, ptrdiff_t tstride,
                                const void *src, ptrdiff_t sstride, size_t elem, size_t n, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_copy_strided(p, tstride, src, sstride, elem, n);
    else
        weft_ofi_iput(c->ofi, seg, off, tstride, src, sstride, elem, n, pe);
}
static inline void weft_tx_iget(struct weft_ctx *c, void *dst, ptrdiff_t dstride, int seg,
                                uint64_t off, ptrdiff_t sstride, size_t elem, size_t n, int pe)
{
    const char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_copy_strided(dst, dstride, p, sstride, elem, n);
    else
        weft_ofi_iget(c->ofi, dst, dstride, seg, off, sstride, elem, n, pe);
}
static inline void weft_tx_amo(struct weft_ctx *c, enum weft_amo_op op, enum weft_dtype dt,
                               int seg, uint64_t off, const void *operand, const void *compare,
                               void *result, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_cpu_amo(op, dt, p, operand, compare, result);
    else
        weft_ofi_amo(c->ofi, op, dt, seg, off, operand, compare, result, pe);
}
static inline void weft_tx_amo_nbi(struct weft_ctx *c, enum weft_amo_op op, enum weft_dtype dt,
                                   int seg, uint64_t off, const void *operand,
                                   const void *compare, void *result, int pe)
{
    char *p = weft_onnode_addr(seg, off, pe);
    if (p)
        weft_cpu_amo(op, dt, p, operand, compare, result);
    else
        weft_ofi_amo_nbi(c->ofi, op, dt, seg, off, operand, compare, result, pe);
}
/* A collective's signal: value added to a 64-bit counter that pe waits
 * for; a later quiet need not complete it. */
static inline void weft_tx_signal_add(struct weft_ctx *c, int seg, uint64_t off, uint64_t value,
                                      int pe)
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
static inline int weft_tx_self_amo_is_cpu(enum weft_dtype dt)
{
    return weft_onnode.all_direct || weft_ofi_amo_cpu_coherent(dt);
}
/* A monotone 64-bit flag another PE waits on (barrier signals): release
 * store on the direct path; through libfabric an injected write that the
 * next quiet need not flush, since only the waiting PE cares when it lands. */
static inline void weft_tx_notify(struct weft_ctx *c, int seg, uint64_t off, uint64_t value,
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
static inline void weft_tx_quiet(struct weft_ctx *c)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (weft_ofi_active(c->ofi))
        weft_ofi_quiet(c->ofi);
}
/* fence: direct stores to one PE are ordered by a release fence; anything
 * issued through libfabric is completed. Contract every path keeps
 * (put-with-signal relies on it): a put issued on c before the fence is
 * visible at its target before any AMO issued on c after it takes effect. */
static inline void weft_tx_fence(struct weft_ctx *c)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (weft_ofi_active(c->ofi))
        weft_ofi_fence(c->ofi);
}
/* A put (blocking or nbi) then a fence: what put-with-signal and the
 * counters' fallback issue before their update. */
static inline void weft_tx_put_fenced(struct weft_ctx *c, int seg, uint64_t off, const void *src,
                                      size_t len, int pe, int nbi)
{
    if (nbi)
        weft_tx_put_nbi(c, seg, off, src, len, pe);
    else
        weft_tx_put(c, seg, off, src, len, pe);
    weft_tx_fence(c);
}
/* Wait loops call this every spin. When every PE is direct nothing can
 * arrive through libfabric, so there is nothing to progress. */
static inline void weft_tx_progress(void)
{
    if (!weft_onnode.all_direct)
        weft_ofi_progress();
}
/* A wait or test was satisfied: a put the progress thread is applying is
 * whole before the caller may overwrite what it saw (ofi.h). */
static inline void weft_tx_settle_applied(void)
{
    if (!weft_onnode.all_direct)
        weft_ofi_settle_applied();
}
/* Requests of peers this PE's progress has served so far, into *count;
 * returns 0 when that cannot be told (then a waiting PE must not nap:
 * core/sync.c). With every PE direct a PE serves nobody: peers reach its
 * memory without it. */
static inline int weft_tx_served(uint64_t *count)
{
    if (weft_onnode.all_direct) {
        *count = 0;
        return 1;
    }
    return weft_ofi_served(count);
}
/* A progress call costs system calls (core/sync.c bounds spins in time). */
static inline int weft_tx_progress_syscalls(void)
{
    return !weft_onnode.all_direct && weft_ofi_progress_syscalls;
}
/* Whether a waiting thread can sleep until a peer's request or reply
 * arrives (weft_tx_block): where served requests cannot be counted, that
 * is how an idle PE naps without keeping a serving one waiting. */
static inline int weft_tx_can_block(void)
{
    return !weft_onnode.all_direct && weft_ofi_can_block();
}
/* Sleep at most ns, or until traffic arrives: 1 if it did (or was already
 * there), 0 if the time ran out, -1 if the provider refused the wait. */
static inline int weft_tx_block(uint64_t ns)
{
    return weft_ofi_block(ns);
}

/* ---- counters (counting puts and pushes, src/api/counting.c) -------------
 * weft_tx_put_count: len bytes from src to (seg, off) at pe, then amount
 * added to the uint64 counter at heap offset coff at pe, never visible
 * there before the bytes. scratch: the heap offset of 8 bytes at pe that
 * nothing reads, where an update without data of its own (len 0, a get's
 * count, the count after a multi-write put) lands its carrier write.
 * The counter's agent is one per job: a CPU atomic at the target (direct
 * peer: the caller's release add; libfabric with weft_ofi_count_imm: the
 * target's progress, from the write's immediate data), or, with immediate
 * data off, weft's AMO path as for every atomic. */
static inline void weft_tx_put_count(struct weft_ctx *c, int seg, uint64_t off, const void *src,
                                     size_t len, uint64_t coff, uint64_t scratch, uint64_t amount,
                                     int pe, int nbi)
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
        weft_tx_put_fenced(c, seg, off, src, len, pe, nbi);
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
        weft_tx_amo_nbi(c, WEFT_AMO_ADD, WEFT_DT_U64, WEFT_SEG_HEAP, coff, &amount, NULL, NULL,
                        pe);
    }
}
/* Set this PE's own counter at heap offset coff by the counters' agent
 * (see above); returns once applied. */
static inline void weft_tx_count_set(uint64_t coff, uint64_t value)
{
    int me = weft_rt.my_pe;
    if (weft_ofi_count_imm || weft_onnode_addr(WEFT_SEG_HEAP, coff, me)) {
        __atomic_exchange_n((uint64_t *)(void *)(weft_rt.seg[WEFT_SEG_HEAP].base + coff), value,
                            __ATOMIC_ACQ_REL);
        return;
    }
    uint64_t old;
    weft_tx_amo(&weft_ctx_default, WEFT_AMO_SWAP, WEFT_DT_U64, WEFT_SEG_HEAP, coff, &value, NULL,
                &old, me);
}
/* Before reading an own counter: apply the updates that reached this PE. */
static inline void weft_tx_count_settle(void)
{
    if (!weft_onnode.all_direct)
        weft_ofi_progress_settled();
}

#pragma GCC visibility pop

#endif

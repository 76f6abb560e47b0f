/* SPDX-License-Identifier: BSD-3-Clause */
/* signal.c owns the OpenSHMEM signaling operations: put-with-signal (typed,
 * sized and mem, blocking and nbi, with context forms, generated from the
 * type tables), signal set/add, signal fetch and signal wait.
 *
 * HOW THE SIGNAL STAYS BEHIND THE DATA. Everything here is built from the
 * transport dispatch (weft_transport_*), never from a provider, so put-with-signal
 * runs unchanged on every path a peer may be reached by:
 *     put (or put_nbi) of the data      on context c
 *     weft_transport_fence(c)
 *     atomic SET/ADD of the uint64 signal on context c
 * This relies on one promise of weft_transport_fence: a put issued on a context
 * before the fence is visible at its target before any atomic issued on
 * that context after the fence takes effect there. Over libfabric the fence
 * is free where the provider applies one endpoint's writes, atomics and
 * messages in order, else a quiet (ofi_rma.c says how both cover native
 * atomics, the software message engine and the calling PE's own memory).
 * A zero-length put-with-signal has no data to order, so no fence. */
#include "api/api.h"

static enum weft_amo_op signal_update_op(const char *call, int sig_op)
{
    if (WEFT_LIKELY(sig_op == SHMEM_SIGNAL_SET))
        return WEFT_AMO_SET;
    if (WEFT_LIKELY(sig_op == SHMEM_SIGNAL_ADD))
        return WEFT_AMO_ADD;
    weft_fatal(call, "argument sig_op=%d is neither SHMEM_SIGNAL_SET (%d) nor SHMEM_SIGNAL_ADD (%d)",
               sig_op, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
}

/* A signal object is one symmetric, naturally aligned uint64_t: the atomic
 * paths (provider and CPU) need the alignment to be atomic at all. */
static void resolve_signal(const char *call, const uint64_t *sig_addr, int *seg, uint64_t *off)
{
    weft_sym_resolve_or_die(call, "sig_addr", sig_addr, sizeof *sig_addr, seg, off);
    if (WEFT_UNLIKELY(*off & (sizeof *sig_addr - 1)))
        weft_fatal(call, "argument sig_addr=%p is not aligned to 8 bytes", (const void *)sig_addr);
}

/* Every put-with-signal routine lands here; len is in bytes. */
static void put_signal(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                       size_t len, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                       int nbi)
{
    int dseg, sseg;
    uint64_t doff, soff;
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    weft_check_init(call);
    enum weft_amo_op op = signal_update_op(call, sig_op);
    pe = weft_api_pe(call, c, pe);
    weft_sym_resolve_or_die(call, "dest", dest, len, &dseg, &doff);
    resolve_signal(call, sig_addr, &sseg, &soff);
    /* The data would overwrite the signal (or the signal the data) in an
     * order nobody can rely on. */
    if (WEFT_UNLIKELY(len && dseg == sseg && soff < doff + len && doff < soff + sizeof signal))
        weft_fatal(call, "argument sig_addr=%p overlaps dest=%p (%zu bytes)", (void *)sig_addr,
                   dest, len);
    if (len) {
        /* Blocking: source is reusable when the put returns, as the spec asks
         * of put_signal; the fence then orders the data before the signal. */
        weft_transport_put_fenced(c, dseg, doff, source, len, pe, nbi);
    }
    if (nbi)
        weft_transport_amo_nbi(c, op, WEFT_DT_U64, sseg, soff, &signal, NULL, NULL, pe);
    else
        weft_transport_amo(c, op, WEFT_DT_U64, sseg, soff, &signal, NULL, NULL, pe);
}

/* The four forms (plain/ctx x blocking/nbi) of one put-with-signal name:
 * NAME is the part after shmem_[ctx_] (int_put_signal, put64_signal),
 * DT the pointer type of dest/source, ELEM the element size. */
#define WEFT_DEF_PUT_SIGNAL_FORMS(NAME, DT, ELEM)                                         \
    void shmem_ctx_##NAME(shmem_ctx_t ctx, DT *dest, const DT *source, size_t nelems,     \
                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)        \
    {                                                                                     \
        put_signal("shmem_ctx_" #NAME, ctx, dest, source, nelems * (ELEM), sig_addr,      \
                   signal, sig_op, pe, 0);                                                \
    }                                                                                     \
    void shmem_##NAME(DT *dest, const DT *source, size_t nelems, uint64_t *sig_addr,      \
                      uint64_t signal, int sig_op, int pe)                                \
    {                                                                                     \
        put_signal("shmem_" #NAME, SHMEM_CTX_DEFAULT, dest, source, nelems * (ELEM),      \
                   sig_addr, signal, sig_op, pe, 0);                                      \
    }                                                                                     \
    void shmem_ctx_##NAME##_nbi(shmem_ctx_t ctx, DT *dest, const DT *source,              \
                                size_t nelems, uint64_t *sig_addr, uint64_t signal,       \
                                int sig_op, int pe)                                       \
    {                                                                                     \
        put_signal("shmem_ctx_" #NAME "_nbi", ctx, dest, source, nelems * (ELEM),         \
                   sig_addr, signal, sig_op, pe, 1);                                      \
    }                                                                                     \
    void shmem_##NAME##_nbi(DT *dest, const DT *source, size_t nelems,                    \
                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)      \
    {                                                                                     \
        put_signal("shmem_" #NAME "_nbi", SHMEM_CTX_DEFAULT, dest, source,                \
                   nelems * (ELEM), sig_addr, signal, sig_op, pe, 1);                     \
    }

/* Typed (WEFT_RMA_TYPES rows), sized (WEFT_RMA_SIZES rows: bits, C type)
 * and mem (bytes) forms. */
#define WEFT_DEF_PUT_SIGNAL(N, T, D, G) WEFT_DEF_PUT_SIGNAL_FORMS(N##_put_signal, T, sizeof(T))
WEFT_RMA_TYPES(WEFT_DEF_PUT_SIGNAL)
#define WEFT_DEF_PUT_SIGNAL_BYTES(NAME, T)                                                \
    WEFT_DEF_PUT_SIGNAL_FORMS(put##NAME##_signal, void, sizeof(T))
WEFT_RMA_SIZES(WEFT_DEF_PUT_SIGNAL_BYTES)
WEFT_DEF_PUT_SIGNAL_BYTES(mem, unsigned char)

/* ---- signal update without data (1.6) ---------------------------------- */

static void signal_update(const char *call, shmem_ctx_t ctx, enum weft_amo_op op,
                          uint64_t *sig_addr, uint64_t signal, int pe)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    weft_check_init(call);
    pe = weft_api_pe(call, c, pe);
    resolve_signal(call, sig_addr, &seg, &off);
    weft_transport_amo(c, op, WEFT_DT_U64, seg, off, &signal, NULL, NULL, pe);
}

/* Parenthesized names: weft/generic.h defines the C11 generic macros
 * shmem_signal_set/add, which must not expand here. */
void(shmem_signal_set)(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_signal_set", SHMEM_CTX_DEFAULT, WEFT_AMO_SET, sig_addr, signal, pe);
}
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_ctx_signal_set", ctx, WEFT_AMO_SET, sig_addr, signal, pe);
}
void(shmem_signal_add)(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_signal_add", SHMEM_CTX_DEFAULT, WEFT_AMO_ADD, sig_addr, signal, pe);
}
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_ctx_signal_add", ctx, WEFT_AMO_ADD, sig_addr, signal, pe);
}

/* ---- reading the own signal -------------------------------------------- */

/* Updates may arrive as messages that only progress applies (software
 * atomics without a progress thread): a loop polling signal_fetch must
 * still see them, so each fetch makes progress first. */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    int seg;
    uint64_t off;
    weft_check_init("shmem_signal_fetch");
    resolve_signal("shmem_signal_fetch", sig_addr, &seg, &off);
    weft_transport_progress();
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    int seg;
    uint64_t off;
    weft_check_init("shmem_signal_wait_until");
    resolve_signal("shmem_signal_wait_until", sig_addr, &seg, &off);
    weft_api_check_live("shmem_signal_wait_until", "sig_addr", sig_addr, sizeof *sig_addr, seg);
    return weft_api_wait_until_u64("shmem_signal_wait_until", sig_addr, cmp, cmp_value);
}

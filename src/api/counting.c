/* SPDX-License-Identifier: BSD-3-Clause */
/* counting.c owns the counting puts of shmemx.h (docs/extensions.md): the
 * counter objects, their local reads and waits, and every put/get form
 * that raises a counter at the PE whose memory it touched.
 *
 * WHY THE COUNT NEVER RUNS AHEAD OF THE DATA. A counter is one symmetric
 * uint64_t, raised through weft_transport_put_count (transport.h), which keeps one
 * agent per job for every counter update:
 *     direct peer:   weft_copy_once into the mapped target, then a release
 *                    fetch-add on the target's counter (a reader's acquire
 *                    load of the counter then sees the data);
 *     libfabric with immediate data (WEFT_CT_IMMEDIATE=auto where the
 *                    provider reports remote CQ data): one fi_writedata
 *                    whose 64-bit data names the counter; the target's
 *                    progress adds when it reads the completion, which
 *                    the provider reports only once the bytes are there
 *                    (the receiver-managed counting of the extensions
 *                    paper);
 *     otherwise:     the put, weft_transport_fence (a put before the fence is
 *                    visible at its target before an AMO after it takes
 *                    effect there: signal.c relies on the same promise),
 *                    then an atomic ADD, non-blocking (completed by quiet).
 * A get is complete before its update is issued, so the counter at the PE
 * that was read says "this many reads of my memory have finished".
 * ct_get and ct_wait make progress (updates arriving through libfabric are
 * applied there). */
#include <shmemx.h>

#include "api/sym_block.h"

/* The symmetric block behind a shmemx_ct_t, one cache line so that two
 * counters never share one. count is the only word peers touch. */
struct weft_ct {
    uint64_t count;
    uint64_t magic; /* WEFT_CT_MAGIC while the counter exists (local) */
    char pad[48];
};
#define WEFT_CT_MAGIC 0x77656674636e7472ull /* "weftcntr" */
_Static_assert(sizeof(struct weft_ct) == WEFT_SYM_BLOCK, "a counter is one block");

#define CT_WHAT "a counter made by shmemx_ct_create"

/* A live counter; returns the heap offset of its count. */
static uint64_t ct_check(const char *call, shmemx_ct_t ct)
{
    return weft_sym_block_check(call, "ct", CT_WHAT, ct, offsetof(struct weft_ct, magic),
                                WEFT_CT_MAGIC);
}

void shmemx_ct_create(shmemx_ct_t *ct)
{
    const char *call = "shmemx_ct_create";
    weft_check_init(call);
    if (WEFT_UNLIKELY(ct == NULL))
        weft_fatal(call, "argument ct is NULL");
    *ct = weft_sym_block_new(call, "counter", offsetof(struct weft_ct, magic), WEFT_CT_MAGIC);
}

void shmemx_ct_free(shmemx_ct_t *ct)
{
    const char *call = "shmemx_ct_free";
    weft_check_init(call);
    if (WEFT_UNLIKELY(ct == NULL))
        weft_fatal(call, "argument ct is NULL");
    ct_check(call, *ct);
    weft_sym_block_free(call, *ct, offsetof(struct weft_ct, magic));
    *ct = NULL;
}

long shmemx_ct_get(shmemx_ct_t ct)
{
    ct_check("shmemx_ct_get", ct);
    weft_transport_count_settle();
    return (long)__atomic_load_n(&ct->count, __ATOMIC_ACQUIRE);
}

/* By the counters' agent (weft_transport_count_set), applied on return. */
void shmemx_ct_set(shmemx_ct_t ct, long value)
{
    weft_transport_count_set(ct_check("shmemx_ct_set", ct), (uint64_t)value);
}

void shmemx_ct_wait(shmemx_ct_t ct, long wait_for)
{
    const char *call = "shmemx_ct_wait";
    ct_check(call, ct);
    unsigned spins = 0;
    for (;;) {
        if ((long)__atomic_load_n(&ct->count, __ATOMIC_ACQUIRE) >= wait_for) {
            weft_wait.kind = WEFT_WAIT_NONE;
            return;
        }
        if (spins == 0) { /* what the hang report names */
            weft_wait.call = call;
            weft_wait.addr = &ct->count;
            weft_wait.size = sizeof ct->count;
            weft_wait.nelems = 1;
            weft_wait.cmp = SHMEM_CMP_GE;
            weft_wait.value = &wait_for;
            weft_wait.kind = WEFT_WAIT_P2P;
        }
        weft_poll_yield(&spins);
    }
}

/* ---- the transfers ----------------------------------------------------- */

/* The 8 bytes of a counter's block that a carrier write may land on. */
#define CT_SCRATCH(coff) ((coff) + offsetof(struct weft_ct, pad))

/* What every checked counting transfer resolves: its context, the
 * counter's heap offset (returned), the world PE and the symmetric side. */
static uint64_t ct_resolve(const char *call, shmem_ctx_t ctx, shmemx_ct_t ct, const char *arg,
                           const void *sym, size_t len, int *pe, struct weft_ctx **c, int *seg,
                           uint64_t *off)
{
    *c = weft_api_ctx(call, ctx);
    uint64_t coff = ct_check(call, ct);
    *pe = weft_api_pe(call, *c, *pe);
    weft_sym_resolve_or_die(call, arg, sym, len, seg, off);
    return coff;
}

static WEFT_COLD void ct_put_checked(const char *call, shmem_ctx_t ctx, shmemx_ct_t ct,
                                     void *dest, const void *src, size_t len, int pe, int nbi)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c;
    uint64_t coff = ct_resolve(call, ctx, ct, "dest", dest, len, &pe, &c, &seg, &off);
    /* A zero-length counting put still counts. */
    weft_transport_put_count(c, seg, off, src, len, coff, CT_SCRATCH(coff), 1, pe, nbi);
}

/* The default context to a direct peer, both objects in the heap (ct
 * live: one local load): a copy and a release fetch-add, nothing else.
 * The rest is checked. */
static inline __attribute__((always_inline)) void
ct_put(const char *call, shmem_ctx_t ctx, shmemx_ct_t ct, void *dest, const void *src,
       size_t len, int pe, int nbi)
{
    uint64_t doff, coff = WEFT_HEAP_OFF(ct);
    if (WEFT_LIKELY(weft_fast_heap(ctx, dest, len, &doff) && coff < weft_fast_heap_limit &&
                    (unsigned)pe < weft_fast_n_pes && ct->magic == WEFT_CT_MAGIC)) {
        if (WEFT_LIKELY(weft_transport_put_count_direct(doff, src, len, coff, pe)))
            return;
    }
    ct_put_checked(call, ctx, ct, dest, src, len, pe, nbi);
}

/* A get completes before the count: on libfabric the _nbi forms read as
 * the blocking ones do (a read cannot be fenced before an update), and
 * only the update is left to the next quiet. */
static void ct_get(const char *call, shmem_ctx_t ctx, shmemx_ct_t ct, void *dest,
                   const void *src, size_t len, int pe, int nbi)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c;
    (void)nbi;
    uint64_t coff = ct_resolve(call, ctx, ct, "source", src, len, &pe, &c, &seg, &off);
    if (len)
        weft_transport_get(c, dest, seg, off, len, pe);
    weft_transport_put_count(c, WEFT_SEG_HEAP, 0, NULL, 0, coff, CT_SCRATCH(coff), 1, pe, 1);
}

/* The four forms of one counting transfer (shmemx.h WEFT_CT_DECL_DIR):
 * FN is ct_put or ct_get, ELEM the element size, SIZEARG the name of the
 * count argument. */
#define WEFT_CT_DEF_DIR(NAME, FN, T, COUNT, ELEM, SIZEARG)                                   \
    void shmemx_##NAME##_ct(shmemx_ct_t ct, T *dest, const T *source, size_t COUNT, int pe)  \
    {                                                                                         \
        const char *call = "shmemx_" #NAME "_ct";                                             \
        FN(call, SHMEM_CTX_DEFAULT, ct, dest, source, weft_nbytes(call, SIZEARG, COUNT, ELEM), \
           pe, 0);                                                                            \
    }                                                                                         \
    void shmemx_##NAME##_ct_nbi(shmemx_ct_t ct, T *dest, const T *source, size_t COUNT,       \
                                int pe)                                                       \
    {                                                                                         \
        const char *call = "shmemx_" #NAME "_ct_nbi";                                         \
        FN(call, SHMEM_CTX_DEFAULT, ct, dest, source, weft_nbytes(call, SIZEARG, COUNT, ELEM), \
           pe, 1);                                                                            \
    }                                                                                         \
    void shmemx_ctx_##NAME##_ct(shmem_ctx_t ctx, shmemx_ct_t ct, T *dest, const T *source,    \
                                size_t COUNT, int pe)                                         \
    {                                                                                         \
        const char *call = "shmemx_ctx_" #NAME "_ct";                                         \
        FN(call, ctx, ct, dest, source, weft_nbytes(call, SIZEARG, COUNT, ELEM), pe, 0);      \
    }                                                                                         \
    void shmemx_ctx_##NAME##_ct_nbi(shmem_ctx_t ctx, shmemx_ct_t ct, T *dest,                 \
                                    const T *source, size_t COUNT, int pe)                    \
    {                                                                                         \
        const char *call = "shmemx_ctx_" #NAME "_ct_nbi";                                     \
        FN(call, ctx, ct, dest, source, weft_nbytes(call, SIZEARG, COUNT, ELEM), pe, 1);      \
    }
#define WEFT_CT_DEF_FORMS(PNAME, GNAME, T, COUNT, ELEM, SIZEARG)                              \
    WEFT_CT_DEF_DIR(PNAME, ct_put, T, COUNT, ELEM, SIZEARG)                                   \
    WEFT_CT_DEF_DIR(GNAME, ct_get, T, COUNT, ELEM, SIZEARG)

#define WEFT_CT_DEF_TYPED(N, T, D, G)                                                         \
    WEFT_CT_DEF_FORMS(N##_put, N##_get, T, nelems, sizeof(T), "nelems")
#define WEFT_CT_DEF_SIZED(BITS, T)                                                            \
    WEFT_CT_DEF_FORMS(put##BITS, get##BITS, void, nelems, sizeof(T), "nelems")
WEFT_RMA_TYPES(WEFT_CT_DEF_TYPED)
WEFT_RMA_SIZES(WEFT_CT_DEF_SIZED)
WEFT_CT_DEF_FORMS(putmem, getmem, void, len, 1, "len")

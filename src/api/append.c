/* SPDX-License-Identifier: BSD-3-Clause */
/* append.c owns the one-sided append of shmemx.h (docs/extensions.md): the
 * offset counters (shmemx_oct_t) and every push form.
 *
 * A push to PE t:
 *     off = fetch-add(t.reserved, len)     reserve, through the AMO dispatch
 *     refuse (end the job) if off + len > capacity
 *     the bytes at t.buffer + off, then
 *     t.arrived += len                     weft_transport_put_count: never before
 *                                          the bytes are visible
 * The arrival rides on the same counter update as a counting put
 * (counting.c: a release add after the copy on the direct path, the
 * write's immediate data or fence + atomic add through libfabric); the
 * reservation is an AMO by the job's atomicity rule. oct_wait waits on
 * arrived, never on reserved. */
#include <inttypes.h>
#include <shmemx.h>

#include "api/sym_block.h"

/* The symmetric block behind a shmemx_oct_t, one cache line. Peers touch
 * reserved and arrived only; the rest is this PE's own description of the
 * buffer, identical on every PE (checked against PE 0's at creation). */
struct weft_oct {
    uint64_t reserved; /* bytes handed out (may pass cap only on a refused push) */
    uint64_t arrived;  /* bytes whose data is visible here */
    uint64_t magic;
    uint64_t cap; /* the buffer's length */
    uint64_t buf_off;
    int32_t buf_seg;
    int32_t unused;
    uint64_t scratch; /* where a carrier write of an arrival may land */
    char pad[8];
};
#define WEFT_OCT_MAGIC 0x776566746f637472ull /* "weftoctr" */
#define OCT_OFF(field) offsetof(struct weft_oct, field)
_Static_assert(sizeof(struct weft_oct) == WEFT_SYM_BLOCK, "an offset counter is one block");

/* A live offset counter; returns the heap offset of its block. */
static uint64_t oct_check(const char *call, shmemx_oct_t oct)
{
    return weft_sym_block_check(call, "oct", "an offset counter made by shmemx_oct_create", oct,
                                OCT_OFF(magic), WEFT_OCT_MAGIC);
}

void shmemx_oct_create(shmemx_oct_t *oct, void *buffer, size_t len)
{
    const char *call = "shmemx_oct_create";
    int seg;
    uint64_t off;
    weft_check_init(call);
    if (WEFT_UNLIKELY(oct == NULL))
        weft_fatal(call, "argument oct is NULL");
    if (WEFT_UNLIKELY(len == 0))
        weft_fatal(call, "argument len is 0: an append buffer needs room");
    weft_sym_resolve_or_die(call, "buffer", buffer, len, &seg, &off);
    /* The description is filled in after the block's barrier: only this
     * PE reads it (and PE 0's is read after a second barrier below). */
    struct weft_oct *p = weft_sym_block_new(call, "offset counter", OCT_OFF(magic),
                                            WEFT_OCT_MAGIC);
    p->cap = len;
    p->buf_off = off;
    p->buf_seg = seg;
    weft_barrier_all_internal();
    /* Every PE describes the same buffer, or a sender's idea of the
     * target's room would be wrong: compare with PE 0's (one read). */
    if (weft_rt.my_pe != 0) {
        uint64_t theirs[2];
        uint64_t boff = (uint64_t)((char *)p - weft_rt.seg[WEFT_SEG_HEAP].base);
        weft_transport_get(&weft_ctx_default, theirs, WEFT_SEG_HEAP, boff + OCT_OFF(cap),
                           sizeof theirs, 0);
        if (WEFT_UNLIKELY(theirs[0] != len || theirs[1] != off))
            weft_fatal(call,
                       "arguments buffer=%p len=%zu differ from PE 0's (len=%" PRIu64
                       "): the call is collective, with the same symmetric buffer on every PE",
                       buffer, len, theirs[0]);
    }
    *oct = p;
}

void shmemx_oct_destroy(shmemx_oct_t *oct)
{
    const char *call = "shmemx_oct_destroy";
    weft_check_init(call);
    if (WEFT_UNLIKELY(oct == NULL))
        weft_fatal(call, "argument oct is NULL");
    oct_check(call, *oct);
    weft_sym_block_free(call, *oct, OCT_OFF(magic));
    *oct = NULL;
}

size_t shmemx_oct_get(shmemx_oct_t oct)
{
    oct_check("shmemx_oct_get", oct);
    weft_transport_count_settle();
    return (size_t)__atomic_load_n(&oct->arrived, __ATOMIC_ACQUIRE);
}

void shmemx_oct_wait(shmemx_oct_t oct, size_t bytes)
{
    oct_check("shmemx_oct_wait", oct);
    weft_api_wait_until_u64("shmemx_oct_wait", &oct->arrived, SHMEM_CMP_GE, bytes);
}

/* Local; no push may be under way to this PE. The reserved count is
 * reset through the AMO dispatch (the reservations' agent) as a swap,
 * which returns once applied; the arrived count by the counters' agent. */
void shmemx_oct_reset(shmemx_oct_t oct)
{
    uint64_t off = oct_check("shmemx_oct_reset", oct);
    const uint64_t zero = 0;
    uint64_t old;
    weft_transport_count_set(off + OCT_OFF(arrived), 0);
    weft_transport_amo(&weft_ctx_default, WEFT_AMO_SWAP, WEFT_DT_U64, WEFT_SEG_HEAP,
                       off + OCT_OFF(reserved), &zero, NULL, &old, weft_rt.my_pe);
}

/* Every push lands here; len in bytes. The reservation is always a
 * blocking fetch-add (the offset is needed); nbi leaves the bytes and the
 * arrival to the next quiet. */
static void push(const char *call, shmem_ctx_t ctx, shmemx_oct_t oct, const void *src,
                 size_t len, int pe, int nbi)
{
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    uint64_t ooff = oct_check(call, oct);
    pe = weft_api_pe(call, c, pe);
    if (WEFT_UNLIKELY(len == 0))
        return;
    uint64_t n = len, at;
    weft_transport_amo(c, WEFT_AMO_ADD, WEFT_DT_U64, WEFT_SEG_HEAP, ooff + OCT_OFF(reserved), &n,
                       NULL, &at, pe);
    if (WEFT_UNLIKELY(at > oct->cap || len > oct->cap - at))
        weft_fatal(call,
                   "a push of %zu bytes at offset %" PRIu64 " overflows the %" PRIu64
                   "-byte buffer of PE %d",
                   len, at, oct->cap, pe);
    weft_transport_put_count(c, oct->buf_seg, oct->buf_off + at, src, len, ooff + OCT_OFF(arrived),
                             ooff + OCT_OFF(scratch), n, pe, nbi);
}

/* The four forms of one push name (shmemx.h WEFT_PUSH_DECL_FORMS). */
#define WEFT_PUSH_DEF_FORMS(NAME, T, COUNT, ELEM, SIZEARG)                                    \
    void shmemx_##NAME(shmemx_oct_t oct, const T *source, size_t COUNT, int pe)              \
    {                                                                                         \
        const char *call = "shmemx_" #NAME;                                                   \
        push(call, SHMEM_CTX_DEFAULT, oct, source, weft_nbytes(call, SIZEARG, COUNT, ELEM),   \
             pe, 0);                                                                          \
    }                                                                                         \
    void shmemx_##NAME##_nbi(shmemx_oct_t oct, const T *source, size_t COUNT, int pe)        \
    {                                                                                         \
        const char *call = "shmemx_" #NAME "_nbi";                                            \
        push(call, SHMEM_CTX_DEFAULT, oct, source, weft_nbytes(call, SIZEARG, COUNT, ELEM),   \
             pe, 1);                                                                          \
    }                                                                                         \
    void shmemx_ctx_##NAME(shmem_ctx_t ctx, shmemx_oct_t oct, const T *source, size_t COUNT, \
                           int pe)                                                            \
    {                                                                                         \
        const char *call = "shmemx_ctx_" #NAME;                                               \
        push(call, ctx, oct, source, weft_nbytes(call, SIZEARG, COUNT, ELEM), pe, 0);         \
    }                                                                                         \
    void shmemx_ctx_##NAME##_nbi(shmem_ctx_t ctx, shmemx_oct_t oct, const T *source,         \
                                 size_t COUNT, int pe)                                        \
    {                                                                                         \
        const char *call = "shmemx_ctx_" #NAME "_nbi";                                        \
        push(call, ctx, oct, source, weft_nbytes(call, SIZEARG, COUNT, ELEM), pe, 1);         \
    }

#define WEFT_PUSH_DEF_TYPED(N, T, D, G) WEFT_PUSH_DEF_FORMS(N##_push, T, nelems, sizeof(T), "nelems")
#define WEFT_PUSH_DEF_SIZED(BITS, T) WEFT_PUSH_DEF_FORMS(push##BITS, void, nelems, sizeof(T), "nelems")
WEFT_RMA_TYPES(WEFT_PUSH_DEF_TYPED)
WEFT_RMA_SIZES(WEFT_PUSH_DEF_SIZED)
WEFT_PUSH_DEF_FORMS(push, void, len, 1, "len")

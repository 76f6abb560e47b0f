/* SPDX-License-Identifier: BSD-3-Clause */
/* api.h owns the checks and the funnel shared by every public routine:
 * each typed entry point validates its arguments cheaply (initialized,
 * context, PE range, symmetric address) and lands in one of these inline
 * helpers, which call the transport dispatch. */
#ifndef WEFT_API_H
#define WEFT_API_H

#include <shmem.h>
#include <string.h>

#include "core/runtime.h"
#include "runtime/team.h"
#include "transport/transport.h"

/* ---- routines shared between public names ----------------------------------
 * A profiling tool may replace any public name (docs/profiling.md), so the
 * library never calls one of its own: a routine that is another one under an
 * older name is an alias of it (same address, same types), and a routine
 * built on another one calls the shared internal below instead. */
#define WEFT_ALIAS_OF(routine) __attribute__((alias(#routine)))

/* shmem_ctx_create and shmem_team_create_ctx; call names the routine. A
 * new context on team with its own transmit resources where the transport
 * has them; 0, or non-zero with *ctx = SHMEM_CTX_INVALID. */
struct weft_team;
int weft_api_ctx_create(const char *call, long options, struct weft_team *team,
                        shmem_ctx_t *ctx);
/* shmem_ptr and shmem_team_ptr: pe is a world PE. */
void *weft_api_ptr(const char *call, const void *dest, int pe);

static inline struct weft_ctx *weft_api_ctx(const char *call, shmem_ctx_t ctx)
{
    if (WEFT_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        weft_fatal(call, "argument ctx is SHMEM_CTX_INVALID");
    return ctx;
}

/* PE numbers given with a context are relative to the context's team
 * (OpenSHMEM 1.5, 9.4): translate to world and range-check against the team. */
WEFT_NORETURN void weft_api_fail_team_pe(const char *call, const struct weft_team *t, int pe);
static inline int weft_api_pe(const char *call, const struct weft_ctx *c, int pe)
{
    const struct weft_team *t = c->team;
    if (WEFT_LIKELY(t == NULL || t == &weft_team_world)) {
        weft_check_pe(call, pe);
        return pe;
    }
    if (WEFT_UNLIKELY((unsigned)pe >= (unsigned)t->size))
        weft_api_fail_team_pe(call, t, pe);
    return weft_team_world_pe(t, pe);
}

/* ---- the default context's fast path ----------------------------------
 * For the default context and a heap object of up to WEFT_FAST_MAX bytes:
 * one unsigned compare places the object in the heap (and fails before
 * init, when the limit is 0), one checks the PE, one load of the peer's
 * direct mapping picks the path. shmem_TYPE_p and _g compare with
 * weft_fast_pg_limit instead: in window mode (onnode.h) the same compare
 * and the same peer pointer cover the static data too; otherwise they try
 * the static data segment the same way after the heap (a static variable
 * of a node peer is as direct as a heap object; through libfabric it takes
 * the checked path).
 * Everything else (contexts, large transfers, bad arguments) takes the
 * checked path below, which names the call and the argument. */
#define WEFT_HEAP_OFF(ADDR) ((uint64_t)((uintptr_t)(ADDR) - (uintptr_t)weft_fast_heap_base))
/* The data offset from the heap offset (see weft_fast_data_delta), and
 * back to the address. */
#define WEFT_DATA_OFF_OF_HEAP_OFF(OFF) ((OFF) + weft_fast_data_delta)
#define WEFT_DATA_ADDR(DOFF) ((uintptr_t)weft_fast_data_base + (DOFF))

/* The PE check of the fast path: the range is a compare with memory
 * (weft_fast_n_pes), the message weft_check_pe's. */
static inline void weft_fast_check_pe(const char *call, int pe)
{
    if (WEFT_UNLIKELY((unsigned)pe >= weft_fast_n_pes)) /* icount-check: PE range */
        weft_fail_pe(call, pe);
}

/* The symmetric-address check of shmem_TYPE_p and _g: the heap offset
 * below weft_fast_pg_limit (heap, and in window mode static data too). */
static inline __attribute__((always_inline)) int weft_fast_pg_in(uint64_t off)
{
    return WEFT_LIKELY(off < weft_fast_pg_limit); /* icount-check: symmetric address */
}


static inline int weft_fast_heap(shmem_ctx_t ctx, const void *addr, size_t len, uint64_t *off)
{
    *off = WEFT_HEAP_OFF(addr);
    return ctx == SHMEM_CTX_DEFAULT && len <= WEFT_FAST_MAX &&
           *off < weft_fast_heap_limit; /* icount-check: symmetric address */
}

/* shmem_TYPE_p and shmem_TYPE_g of the default context for types of up to
 * 8 bytes keep the value in registers and need no stack frame on the fast
 * path: a typed store or load on the direct path, a scalar call into
 * libfabric otherwise. The rest goes to a cold function that rebuilds the
 * address from the heap offset (so the fast path may overwrite it) and
 * runs the checked funnel. WEFT_DEF_API_PG(N, T) defines both for a type. */
union weft_scalar {
    uint64_t bits;
    unsigned char bytes[8];
};
#define WEFT_COLD __attribute__((cold, noinline))

#define WEFT_DEF_API_PG(N, T)                                                               \
    /* The value as the first bytes of a word, and back (types of up to 8                   \
     * bytes; the bound only keeps wider types' dead branches compiling). */                \
    static inline uint64_t weft_bits_of_##N(T value)                                        \
    {                                                                                       \
        union weft_scalar v = {0};                                                          \
        memcpy(v.bytes, &value, sizeof(T) <= 8 ? sizeof(T) : 8);                            \
        return v.bits;                                                                      \
    }                                                                                       \
    static inline T weft_value_of_##N(uint64_t bits)                                        \
    {                                                                                       \
        union weft_scalar v = {.bits = bits};                                               \
        T value;                                                                            \
        memset(&value, 0, sizeof value);                                                    \
        memcpy(&value, v.bytes, sizeof(T) <= 8 ? sizeof(T) : 8);                            \
        return value;                                                                       \
    }                                                                                       \
    static WEFT_COLD void weft_p_checked_##N(uint64_t doff, T value, int pe)                \
    {                                                                                       \
        weft_api_put("shmem_" #N "_p", SHMEM_CTX_DEFAULT, (T *)WEFT_DATA_ADDR(doff), &value, \
                     sizeof(T), pe, 0);                                                     \
    }                                                                                       \
    /* Static data at doff of an unmapped peer (PE already checked): through                \
     * libfabric like the heap; past the data's fast limit, the funnel. Out                 \
     * of line, so that the direct path does not widen the value early. */                  \
    static WEFT_COLD void weft_p_static_##N(uint64_t doff, T value, int pe)                 \
    {                                                                                       \
        if (sizeof(T) <= 8 && WEFT_LIKELY(doff < weft_fast_data_limit)) {                   \
            weft_transport_p_data_ofi(doff, weft_bits_of_##N(value), sizeof(T), pe);        \
        } else {                                                                            \
            weft_p_checked_##N(doff, value, pe);                                            \
        }                                                                                   \
    }                                                                                       \
    /* A peer reached through libfabric (PE checked, off below the fast                     \
     * limit): out of line, so that the direct path needs no stack frame. */                \
    static __attribute__((noinline)) void weft_p_ofi_##N(uint64_t off, T value, int pe)     \
    {                                                                                       \
        if (WEFT_LIKELY(weft_transport_p_heap_ofi(off, &value, sizeof(T), pe)))             \
            return;                                                                         \
        weft_p_static_##N(WEFT_DATA_OFF_OF_HEAP_OFF(off), value, pe);                       \
    }                                                                                       \
    void shmem_##N##_p(T *dest, T value, int pe)                                            \
    {                                                                                       \
        uint64_t off = WEFT_HEAP_OFF(dest);                                                 \
        if (sizeof(T) <= 8 && weft_fast_pg_in(off)) {                                       \
            weft_fast_check_pe("shmem_" #N "_p", pe);                                       \
            if (WEFT_LIKELY(weft_transport_p_heap(off, &value, sizeof(T), pe)))             \
                return;                                                                     \
            weft_p_ofi_##N(off, value, pe);                                                 \
            return;                                                                         \
        } else if (sizeof(T) <= 8 && WEFT_DATA_OFF_OF_HEAP_OFF(off) < weft_fast_data_limit) { \
            weft_fast_check_pe("shmem_" #N "_p", pe);                                       \
            if (WEFT_LIKELY(weft_transport_p_data(WEFT_DATA_OFF_OF_HEAP_OFF(off), &value,   \
                                                  sizeof(T), pe)))                          \
                return;                                                                     \
            weft_p_static_##N(WEFT_DATA_OFF_OF_HEAP_OFF(off), value, pe);                   \
            return;                                                                         \
        }                                                                                   \
        weft_p_checked_##N(WEFT_DATA_OFF_OF_HEAP_OFF(off), value, pe);                      \
    }                                                                                       \
    static WEFT_COLD T weft_g_checked_##N(uint64_t doff, int pe)                            \
    {                                                                                       \
        T value;                                                                            \
        weft_api_get("shmem_" #N "_g", SHMEM_CTX_DEFAULT, &value,                           \
                     (const T *)WEFT_DATA_ADDR(doff), sizeof(T), pe, 0);                    \
        return value;                                                                       \
    }                                                                                       \
    static inline T weft_g_static_##N(uint64_t doff, int pe)                                \
    {                                                                                       \
        if (sizeof(T) <= 8 && WEFT_LIKELY(doff < weft_fast_data_limit))                     \
            return weft_value_of_##N(weft_transport_g_data_ofi(doff, sizeof(T), pe));       \
        return weft_g_checked_##N(doff, pe);                                                \
    }                                                                                       \
    T shmem_##N##_g(const T *source, int pe)                                                \
    {                                                                                       \
        uint64_t off = WEFT_HEAP_OFF(source);                                               \
        if (sizeof(T) <= 8 && weft_fast_pg_in(off)) {                                       \
            weft_fast_check_pe("shmem_" #N "_g", pe);                                       \
            T value;                                                                        \
            if (WEFT_LIKELY(weft_transport_g_heap(off, &value, sizeof(T), pe)))             \
                return value;                                                               \
            return weft_g_static_##N(WEFT_DATA_OFF_OF_HEAP_OFF(off), pe);                   \
        } else if (sizeof(T) <= 8 && WEFT_DATA_OFF_OF_HEAP_OFF(off) < weft_fast_data_limit) { \
            weft_fast_check_pe("shmem_" #N "_g", pe);                                       \
            T value;                                                                        \
            if (WEFT_LIKELY(weft_transport_g_data(WEFT_DATA_OFF_OF_HEAP_OFF(off), &value,   \
                                                  sizeof(T), pe)))                          \
                return value;                                                               \
            return weft_g_static_##N(WEFT_DATA_OFF_OF_HEAP_OFF(off), pe);                   \
        }                                                                                   \
        return weft_g_checked_##N(WEFT_DATA_OFF_OF_HEAP_OFF(off), pe);                      \
    }

/* The checked funnel of a put or get: any context and segment, every
 * argument checked and named in a message. Out of line, so that the fast
 * path below inlines into each typed routine. */
static __attribute__((noinline)) void
weft_api_put_checked(const char *call, shmem_ctx_t ctx, void *dest, const void *src, size_t len,
                     int pe, int nbi)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    weft_check_init(call);
    pe = weft_api_pe(call, c, pe);
    weft_sym_resolve_or_die(call, "dest", dest, len, &seg, &off);
    if (WEFT_UNLIKELY(len == 0))
        return;
    weft_transport_put_or_coalesce(c, seg, off, src, len, pe, nbi);
}
static inline __attribute__((always_inline)) void
weft_api_put(const char *call, shmem_ctx_t ctx, void *dest, const void *src, size_t len, int pe,
             int nbi)
{
    uint64_t fast_off;
    if (WEFT_LIKELY(weft_fast_heap(ctx, dest, len, &fast_off))) {
        weft_fast_check_pe(call, pe);
        weft_transport_put_small(fast_off, src, len, pe, nbi);
        return;
    }
    weft_api_put_checked(call, ctx, dest, src, len, pe, nbi);
}

static __attribute__((noinline)) void
weft_api_get_checked(const char *call, shmem_ctx_t ctx, void *dest, const void *src, size_t len,
                     int pe, int nbi)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    weft_check_init(call);
    pe = weft_api_pe(call, c, pe);
    weft_sym_resolve_or_die(call, "source", src, len, &seg, &off);
    if (WEFT_UNLIKELY(len == 0))
        return;
    if (nbi)
        weft_transport_get_nbi(c, dest, seg, off, len, pe);
    else
        weft_transport_get(c, dest, seg, off, len, pe);
}
static inline __attribute__((always_inline)) void
weft_api_get(const char *call, shmem_ctx_t ctx, void *dest, const void *src, size_t len, int pe,
             int nbi)
{
    uint64_t fast_off;
    if (WEFT_LIKELY(weft_fast_heap(ctx, src, len, &fast_off))) {
        weft_fast_check_pe(call, pe);
        weft_transport_get_small(dest, fast_off, len, pe, nbi);
        return;
    }
    weft_api_get_checked(call, ctx, dest, src, len, pe, nbi);
}

/* The symmetric side of a strided transfer spans from its lowest to its
 * highest element; both ends must lie in one segment. */
static inline void weft_api_resolve_strided(const char *call, const char *arg, const void *base,
                                            ptrdiff_t stride_bytes, size_t elem, size_t n,
                                            int *seg, uint64_t *off)
{
    const char *p = base;
    ptrdiff_t span;
    if (WEFT_UNLIKELY(n - 1 > (size_t)PTRDIFF_MAX ||
                      __builtin_mul_overflow((ptrdiff_t)(n - 1), stride_bytes, &span) ||
                      span == PTRDIFF_MIN))
        weft_fail_overflow(call, "nelems", n, stride_bytes < 0 ? (size_t)0 - (size_t)stride_bytes
                                                                : (size_t)stride_bytes);
    const char *lo = span < 0 ? p + span : p;
    size_t len = (size_t)(span < 0 ? -span : span) + elem;
    uint64_t lo_off;
    weft_sym_resolve_or_die(call, arg, lo, len, seg, &lo_off);
    *off = lo_off + (uint64_t)(p - lo);
}

/* The strides of a strided routine in bytes, or abort naming them if a
 * product overflows. */
static inline void weft_api_stride_bytes(const char *call, ptrdiff_t dst, ptrdiff_t sst,
                                         size_t elem, ptrdiff_t *dsb, ptrdiff_t *ssb)
{
    if (WEFT_UNLIKELY(__builtin_mul_overflow(dst, (ptrdiff_t)elem, dsb) ||
                      __builtin_mul_overflow(sst, (ptrdiff_t)elem, ssb)))
        weft_fatal(call, "argument dst=%td or sst=%td times the element size %zu overflows", dst,
                   sst, elem);
}

/* The byte count of a typed routine's nelems elements of size bytes; a
 * count whose product overflows is refused naming the call. */
#define NBYTES(call, size) weft_nbytes(call, "nelems", nelems, size)

static inline void weft_api_iput(const char *call, shmem_ctx_t ctx, void *dest, const void *src,
                                 ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t n, int pe)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    weft_check_init(call);
    pe = weft_api_pe(call, c, pe);
    if (n == 0)
        return;
    ptrdiff_t dsb, ssb;
    weft_api_stride_bytes(call, dst, sst, elem, &dsb, &ssb);
    weft_api_resolve_strided(call, "dest", dest, dsb, elem, n, &seg, &off);
    weft_transport_iput(c, seg, off, dsb, src, ssb, elem, n, pe);
}

static inline void weft_api_iget(const char *call, shmem_ctx_t ctx, void *dest, const void *src,
                                 ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t n, int pe)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    weft_check_init(call);
    pe = weft_api_pe(call, c, pe);
    if (n == 0)
        return;
    ptrdiff_t dsb, ssb;
    weft_api_stride_bytes(call, dst, sst, elem, &dsb, &ssb);
    weft_api_resolve_strided(call, "source", src, ssb, elem, n, &seg, &off);
    weft_transport_iget(c, dest, dsb, seg, off, ssb, elem, n, pe);
}

/* Every AMO: result == NULL for the non-fetching forms. The checked part
 * stays out of line so the fast part inlines into each typed routine. */
static __attribute__((noinline)) void
weft_api_amo_checked(const char *call, shmem_ctx_t ctx, enum weft_amo_op op, enum weft_dtype dt,
                     const void *dest, const void *operand, const void *compare, void *result,
                     int pe, int nbi)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    weft_check_init(call);
    pe = weft_api_pe(call, c, pe);
    weft_sym_resolve_or_die(call, op == WEFT_AMO_FETCH ? "source" : "dest", dest,
                            weft_dtype_size(dt), &seg, &off);
    if (WEFT_UNLIKELY(off & (weft_dtype_size(dt) - 1)))
        weft_fatal(call, "argument %s=%p is not aligned to its %zu-byte type",
                   op == WEFT_AMO_FETCH ? "source" : "dest", dest, weft_dtype_size(dt));
    if (nbi)
        weft_transport_amo_nbi(c, op, dt, seg, off, operand, compare, result, pe);
    else
        weft_transport_amo(c, op, dt, seg, off, operand, compare, result, pe);
}

/* The default context's AMOs on a heap object, or on static data (.data,
 * .bss: benchmarks and programs keep their atomic counters there), go
 * straight to the transport; the rest through the checked funnel. */
static inline __attribute__((always_inline)) void
weft_api_amo(const char *call, shmem_ctx_t ctx, enum weft_amo_op op, enum weft_dtype dt,
             const void *dest, const void *operand, const void *compare, void *result, int pe,
             int nbi)
{
    uint64_t fast_off;
    size_t size = weft_dtype_size(dt);
    if (WEFT_LIKELY(weft_fast_heap(ctx, dest, size, &fast_off) && !(fast_off & (size - 1)))) {
        weft_fast_check_pe(call, pe);
        weft_transport_amo_fast(WEFT_SEG_HEAP, fast_off, op, dt, operand, compare, result, pe, nbi);
        return;
    }
    uint64_t data_off = WEFT_DATA_OFF_OF_HEAP_OFF(fast_off);
    if (ctx == SHMEM_CTX_DEFAULT && data_off < weft_fast_data_limit && !(data_off & (size - 1))) {
        weft_fast_check_pe(call, pe);
        weft_transport_amo_fast(WEFT_SEG_DATA, data_off, op, dt, operand, compare, result, pe, nbi);
        return;
    }
    weft_api_amo_checked(call, ctx, op, dt, dest, operand, compare, result, pe, nbi);
}

/* The point-to-point waits' check that a heap address lies in a live block
 * (api/p2p.c); seg from weft_sym_resolve. */
void weft_api_check_live(const char *call, const char *arg, const void *ivar, size_t len, int seg);
/* p2p.c: block until *ivar compares true (SHMEM_CMP_*, unsigned) against
 * cmp_value, polling with progress; returns the value that satisfied it. */
uint64_t weft_api_wait_until_u64(const char *call, const uint64_t *ivar, int cmp,
                                 uint64_t cmp_value);

#endif

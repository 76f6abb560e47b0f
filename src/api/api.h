/* api.h owns the checks and the funnel shared by every public routine:
 * each typed entry point validates its arguments cheaply (initialized,
 * context, PE range, symmetric address) and lands in one of these inline
 * helpers, which call the transport dispatch. */
#ifndef WEFT_API_H
#define WEFT_API_H

#include <shmem.h>

#include "../core/runtime.h"
#include "../core/team.h"
#include "../transport/transport.h"

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

static inline void weft_api_put(const char *call, shmem_ctx_t ctx, void *dest, const void *src,
                                size_t len, int pe, int nbi)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    weft_check_init(call);
    pe = weft_api_pe(call, c, pe);
    weft_sym_resolve_or_die(call, "dest", dest, len, &seg, &off);
    if (WEFT_UNLIKELY(len == 0))
        return;
    if (nbi)
        weft_tx_put_nbi(c, seg, off, src, len, pe);
    else
        weft_tx_put(c, seg, off, src, len, pe);
}

static inline void weft_api_get(const char *call, shmem_ctx_t ctx, void *dest, const void *src,
                                size_t len, int pe, int nbi)
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
        weft_tx_get_nbi(c, dest, seg, off, len, pe);
    else
        weft_tx_get(c, dest, seg, off, len, pe);
}

/* The symmetric side of a strided transfer spans from its lowest to its
 * highest element; both ends must lie in one segment. */
static inline void weft_api_resolve_strided(const char *call, const char *arg, const void *base,
                                            ptrdiff_t stride_bytes, size_t elem, size_t n,
                                            int *seg, uint64_t *off)
{
    const char *p = base;
    ptrdiff_t span = (ptrdiff_t)(n - 1) * stride_bytes;
    const char *lo = span < 0 ? p + span : p;
    size_t len = (size_t)(span < 0 ? -span : span) + elem;
    uint64_t lo_off;
    weft_sym_resolve_or_die(call, arg, lo, len, seg, &lo_off);
    *off = lo_off + (uint64_t)(p - lo);
}

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
    weft_api_resolve_strided(call, "dest", dest, dst * (ptrdiff_t)elem, elem, n, &seg, &off);
    weft_tx_iput(c, seg, off, dst * (ptrdiff_t)elem, src, sst * (ptrdiff_t)elem, elem, n, pe);
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
    weft_api_resolve_strided(call, "source", src, sst * (ptrdiff_t)elem, elem, n, &seg, &off);
    weft_tx_iget(c, dest, dst * (ptrdiff_t)elem, seg, off, sst * (ptrdiff_t)elem, elem, n, pe);
}

/* Every AMO: result == NULL for the non-fetching forms. */
static inline void weft_api_amo(const char *call, shmem_ctx_t ctx, enum weft_amo_op op,
                                enum weft_dtype dt, const void *dest, const void *operand,
                                const void *compare, void *result, int pe, int nbi)
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
        weft_tx_amo_nbi(c, op, dt, seg, off, operand, compare, result, pe);
    else
        weft_tx_amo(c, op, dt, seg, off, operand, compare, result, pe);
}

/* p2p.c: block until *ivar compares true (SHMEM_CMP_*, unsigned) against
 * cmp_value, polling with progress; returns the value that satisfied it. */
uint64_t weft_api_wait_until_u64(const char *call, const uint64_t *ivar, int cmp,
                                 uint64_t cmp_value);

#endif

/* transport.h owns the single, inline dispatch point between the API layer
 * and the transports. Today every peer is reached through libfabric; the
 * direct on-node path adds one branch on the peer's transport here, and
 * nothing above this file changes. No function pointers on this path. */
#ifndef WEFT_TRANSPORT_H
#define WEFT_TRANSPORT_H

#include "../core/runtime.h"
#include "ofi/ofi.h"

/* A communication context as the API layer sees it (shmem_ctx_t points to
 * one). Each carries its own transport resources. */
struct weft_ctx {
    struct weft_ofi_tx *ofi;
    long options;
    struct weft_team *team;
};

extern struct weft_ctx weft_ctx_default;

static inline void weft_tx_put(struct weft_ctx *c, int seg, uint64_t off, const void *src,
                               size_t len, int pe)
{
    weft_ofi_put(c->ofi, seg, off, src, len, pe);
}
static inline void weft_tx_put_nbi(struct weft_ctx *c, int seg, uint64_t off, const void *src,
                                   size_t len, int pe)
{
    weft_ofi_put_nbi(c->ofi, seg, off, src, len, pe);
}
static inline void weft_tx_get(struct weft_ctx *c, void *dst, int seg, uint64_t off, size_t len,
                               int pe)
{
    weft_ofi_get(c->ofi, dst, seg, off, len, pe);
}
static inline void weft_tx_get_nbi(struct weft_ctx *c, void *dst, int seg, uint64_t off,
                                   size_t len, int pe)
{
    weft_ofi_get_nbi(c->ofi, dst, seg, off, len, pe);
}
static inline void weft_tx_iput(struct weft_ctx *c, int seg, uint64_t off, ptrdiff_t tstride,
                                const void *src, ptrdiff_t sstride, size_t elem, size_t n, int pe)
{
    weft_ofi_iput(c->ofi, seg, off, tstride, src, sstride, elem, n, pe);
}
static inline void weft_tx_iget(struct weft_ctx *c, void *dst, ptrdiff_t dstride, int seg,
                                uint64_t off, ptrdiff_t sstride, size_t elem, size_t n, int pe)
{
    weft_ofi_iget(c->ofi, dst, dstride, seg, off, sstride, elem, n, pe);
}
static inline void weft_tx_amo(struct weft_ctx *c, enum weft_amo_op op, enum weft_dtype dt,
                               int seg, uint64_t off, const void *operand, const void *compare,
                               void *result, int pe)
{
    weft_ofi_amo(c->ofi, op, dt, seg, off, operand, compare, result, pe);
}
static inline void weft_tx_amo_nbi(struct weft_ctx *c, enum weft_amo_op op, enum weft_dtype dt,
                                   int seg, uint64_t off, const void *operand,
                                   const void *compare, void *result, int pe)
{
    weft_ofi_amo_nbi(c->ofi, op, dt, seg, off, operand, compare, result, pe);
}
static inline void weft_tx_quiet(struct weft_ctx *c) { weft_ofi_quiet(c->ofi); }
/* Contract every path must keep (put-with-signal relies on it): a put
 * issued on c before the fence is visible at its target before any AMO
 * issued on c after the fence takes effect there. */
static inline void weft_tx_fence(struct weft_ctx *c) { weft_ofi_fence(c->ofi); }
static inline void weft_tx_progress(void) { weft_ofi_progress(); }

#endif

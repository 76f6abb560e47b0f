/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_blocks.c owns the OpenSHMEM 1.6 interleaved block transfers,
 * shmem_ibput and shmem_ibget (typed and sized, with context forms,
 * generated from the type tables): nblocks blocks of bsize contiguous
 * elements, block k at source + k*sst and dest + k*dst.
 *
 * A block is one "element" of the transport's strided transfer, which
 * already moves fixed-size pieces at arbitrary byte strides (and splits
 * pieces larger than a message), so both directions are one weft_transport_iput
 * or weft_transport_iget and inherit its completion: ibput returns once source is
 * reusable, ibget once dest holds the data. */
#include "api/api.h"

static void block_transfer(const char *call, shmem_ctx_t ctx, int is_put, void *dest,
                           const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t elem,
                           size_t bsize, size_t nblocks, int pe)
{
    int seg;
    uint64_t off;
    struct weft_ctx *c = weft_api_ctx(call, ctx);
    weft_check_init(call);
    pe = weft_api_pe(call, c, pe);
    if (nblocks == 0 || bsize == 0)
        return;
    if (WEFT_UNLIKELY(bsize > (size_t)PTRDIFF_MAX / elem))
        weft_fatal(call, "argument bsize=%zu is too large for %zu-byte elements", bsize, elem);
    size_t block = bsize * elem;
    ptrdiff_t dstride = dst * (ptrdiff_t)elem, sstride = sst * (ptrdiff_t)elem;
    if (is_put) {
        weft_api_resolve_strided(call, "dest", dest, dstride, block, nblocks, &seg, &off);
        weft_transport_iput(c, seg, off, dstride, source, sstride, block, nblocks, pe);
    } else {
        weft_api_resolve_strided(call, "source", source, sstride, block, nblocks, &seg, &off);
        weft_transport_iget(c, dest, dstride, seg, off, sstride, block, nblocks, pe);
    }
}

/* The (ctx, plain) pair of one direction: CTX_NAME and PLAIN_NAME are the
 * two functions, OPSTR the routine's name after "shmem_" / "shmem_ctx_" (for
 * messages), IS_PUT the direction, ELEM the element size in bytes. */
#define WEFT_DEF_IB_PAIR(PARAMS_T, CTX_NAME, PLAIN_NAME, OPSTR, IS_PUT, ELEM)             \
    void CTX_NAME(shmem_ctx_t ctx, PARAMS_T *dest, const PARAMS_T *source, ptrdiff_t dst, \
                  ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)                    \
    {                                                                                     \
        block_transfer("shmem_ctx_" OPSTR, ctx, IS_PUT, dest, source, dst, sst, ELEM,     \
                       bsize, nblocks, pe);                                               \
    }                                                                                     \
    void PLAIN_NAME(PARAMS_T *dest, const PARAMS_T *source, ptrdiff_t dst, ptrdiff_t sst, \
                    size_t bsize, size_t nblocks, int pe)                                 \
    {                                                                                     \
        block_transfer("shmem_" OPSTR, SHMEM_CTX_DEFAULT, IS_PUT, dest, source, dst, sst, \
                       ELEM, bsize, nblocks, pe);                                         \
    }

#define WEFT_DEF_IBRMA(N, T, D, G)                                                        \
    WEFT_DEF_IB_PAIR(T, shmem_ctx_##N##_ibput, shmem_##N##_ibput, #N "_ibput", 1,         \
                     sizeof(T))                                                           \
    WEFT_DEF_IB_PAIR(T, shmem_ctx_##N##_ibget, shmem_##N##_ibget, #N "_ibget", 0,         \
                     sizeof(T))
WEFT_RMA_TYPES(WEFT_DEF_IBRMA)

#define WEFT_DEF_IBRMA_SIZED(B, T)                                                        \
    WEFT_DEF_IB_PAIR(void, shmem_ctx_ibput##B, shmem_ibput##B, "ibput" #B, 1, sizeof(T))  \
    WEFT_DEF_IB_PAIR(void, shmem_ctx_ibget##B, shmem_ibget##B, "ibget" #B, 0, sizeof(T))
WEFT_RMA_SIZES(WEFT_DEF_IBRMA_SIZED)

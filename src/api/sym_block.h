/* SPDX-License-Identifier: BSD-3-Clause */
/* sym_block.h owns the symmetric control blocks behind the counters of
 * shmemx.h (shmemx_ct_t in counting.c, shmemx_oct_t in append.c): one
 * cache line of the symmetric heap each, made and released collectively
 * like shmem_malloc/shmem_free, marked live by a magic word that the
 * checks of every routine compare (a freed block fails them). */
#ifndef WEFT_SYM_BLOCK_H
#define WEFT_SYM_BLOCK_H

#include "api/api.h"

#define WEFT_SYM_BLOCK 64

/* A zeroed block with magic at byte magic_off, after the barrier that
 * makes it exist on every PE (zeroed before it: a peer's update right
 * after the call is never wiped); ends the job naming call on a full heap. */
static inline void *weft_sym_block_new(const char *call, const char *what, size_t magic_off,
                                       uint64_t magic)
{
    char *p = weft_heap_alloc(WEFT_SYM_BLOCK, WEFT_SYM_BLOCK);
    if (WEFT_UNLIKELY(p == NULL))
        weft_fatal(call, "no room for a %d-byte %s in the symmetric heap (%zu bytes in all); "
                   "raise SHMEM_SYMMETRIC_SIZE", WEFT_SYM_BLOCK, what,
                   weft_rt.seg[WEFT_SEG_HEAP].size);
    memset(p, 0, WEFT_SYM_BLOCK);
    memcpy(p + magic_off, &magic, sizeof magic);
    weft_barrier_all_agreeing(call, WEFT_AGREE_RESULT, p, WEFT_ARG_NONE, 0, WEFT_ARG_NONE, 0);
    return p;
}

/* The heap offset of a live block (NULL, foreign or freed: the job ends
 * naming call and arg). */
static inline uint64_t weft_sym_block_check(const char *call, const char *arg, const char *what,
                                            const void *p, size_t magic_off, uint64_t magic)
{
    int seg;
    uint64_t off, m;
    weft_check_init(call);
    if (WEFT_UNLIKELY(p == NULL || weft_sym_resolve(p, WEFT_SYM_BLOCK, &seg, &off) != 0 ||
                      seg != WEFT_SEG_HEAP || (off & (WEFT_SYM_BLOCK - 1)) ||
                      (memcpy(&m, (const char *)p + magic_off, sizeof m), m != magic)))
        weft_fatal(call, "argument %s=%p is not %s (or was freed)", arg, p, what);
    return off;
}

/* Collective release: the barrier first (its quiet completes the default
 * context's updates bound for the block), then the block is no more. */
static inline void weft_sym_block_free(const char *call, void *p, size_t magic_off)
{
    weft_barrier_all_agreeing(call, 0, NULL, WEFT_ARG_PTR, (uint64_t)(uintptr_t)p, WEFT_ARG_NONE,
                              0);
    memset((char *)p + magic_off, 0, sizeof(uint64_t));
    weft_heap_free(p);
}

#endif

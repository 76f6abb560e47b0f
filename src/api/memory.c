/* SPDX-License-Identifier: BSD-3-Clause */
/* memory.c owns the symmetric memory routines. They are collective: every
 * PE calls them with the same arguments in the same order, which keeps the
 * heap's offsets identical everywhere; the barriers the spec requires keep
 * a PE from touching memory a peer has not allocated yet (or freed). */
#include <string.h>

#include "api/api.h"
#include <shmemx.h>

/* Why an allocation of size bytes got NULL: the fixed heap is full, or the
 * heap grew as far as it may. */
static void say_heap_full(const char *call, size_t size)
{
    if (weft_rt.heap_limit == weft_rt.heap_asked && weft_tun_is_set(WEFT_TUN_SYMMETRIC_SIZE)) {
        weft_warn(call,
                  "cannot allocate %zu bytes from the symmetric heap (SHMEM_SYMMETRIC_SIZE "
                  "is %zu bytes); raise SHMEM_SYMMETRIC_SIZE (e.g. SHMEM_SYMMETRIC_SIZE=2G)",
                  size, weft_rt.heap_asked);
        return;
    }
    size_t used = weft_heap_in_use() - weft_rt.heap_own_used;
    weft_warn(call,
              "cannot allocate %zu bytes from the symmetric heap: %zu bytes are in use and it "
              "grows to at most %zu bytes per PE (%s; SHMEM_SYMMETRIC_SIZE is not set)",
              size, used, weft_rt.heap_limit,
              weft_tun_is_set(WEFT_TUN_HEAP_LIMIT) ? "WEFT_HEAP_LIMIT"
                                                   : "the machine's memory, or WEFT_HEAP_LIMIT");
}

/* zero: clear the block before the closing barrier, so a peer's put made
 * right after the call returns is never wiped. The barrier also checks
 * that every PE asked the same and got the same block (runtime/agree.c);
 * only then does a PE that got no block say why. a0/v0, a1/v1: the
 * caller's arguments as the check names them. */
static void *sym_alloc(const char *call, size_t align, size_t size, int zero,
                       enum weft_agree_arg a0, uint64_t v0, enum weft_agree_arg a1, uint64_t v1)
{
    weft_check_init(call);
    void *p = NULL;
    if (size > 0) {
        p = weft_heap_alloc(align, size);
        if (p && zero)
            memset(p, 0, size);
    }
    weft_barrier_all_agreeing(call, WEFT_AGREE_RESULT, p, a0, v0, a1, v1);
    if (!p && size > 0 && align > ((size_t)1 << 30))
        weft_warn(call, "alignment=%zu is larger than the 1 GiB weft supports", align);
    else if (!p && size > 0)
        say_heap_full(call, size);
    return p;
}

void *shmem_malloc(size_t size)
{
    return sym_alloc("shmem_malloc", 0, size, 0, WEFT_ARG_SIZE, size, WEFT_ARG_NONE, 0);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    /* Hints only steer placement; every hint is valid to ignore. */
    (void)hints;
    return sym_alloc("shmem_malloc_with_hints", 0, size, 0, WEFT_ARG_SIZE, size, WEFT_ARG_NONE,
                     0);
}

void *shmem_calloc(size_t count, size_t size)
{
    size_t bytes = count * size;
    if (size && count > SIZE_MAX / size) {
        weft_warn("shmem_calloc", "count=%zu x size=%zu overflows", count, size);
        bytes = 0;
    }
    return sym_alloc("shmem_calloc", 0, bytes, 1, WEFT_ARG_COUNT, count, WEFT_ARG_SIZE, size);
}

/* An alignment no block can have (0, not a power of two) gets NULL, the
 * specification's answer when no block is allocated, as memalign and the
 * other implementations give; still through the barrier, which checks
 * that every PE was given the same alignment. */
void *shmem_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1))) {
        weft_check_init("shmem_align");
        weft_warn("shmem_align", "argument alignment=%zu is not a power of two: no block",
                  alignment);
        return sym_alloc("shmem_align", 0, 0, 0, WEFT_ARG_ALIGNMENT, alignment, WEFT_ARG_SIZE,
                         size);
    }
    return sym_alloc("shmem_align", alignment, size, 0, WEFT_ARG_ALIGNMENT, alignment,
                     WEFT_ARG_SIZE, size);
}

/* The barrier first: no peer may still be writing into the block. */
static void sym_free(const char *call, void *ptr, enum weft_agree_arg a1, uint64_t v1)
{
    weft_barrier_all_agreeing(call, 0, NULL, WEFT_ARG_PTR, (uint64_t)(uintptr_t)ptr, a1, v1);
    if (ptr)
        weft_heap_free(ptr);
}

void shmem_free(void *ptr)
{
    weft_check_init("shmem_free");
    sym_free("shmem_free", ptr, WEFT_ARG_NONE, 0);
}

void *shmem_realloc(void *ptr, size_t size)
{
    weft_check_init("shmem_realloc");
    if (!ptr)
        return sym_alloc("shmem_realloc", 0, size, 0, WEFT_ARG_PTR, 0, WEFT_ARG_SIZE, size);
    if (size == 0) {
        sym_free("shmem_realloc", ptr, WEFT_ARG_SIZE, 0);
        return NULL;
    }
    size_t old = weft_heap_usable(ptr);
    if (old == 0)
        weft_fatal("shmem_realloc", "argument ptr=%p was not returned by shmem_malloc", ptr);
    weft_barrier_all_agreeing("shmem_realloc", 0, NULL, WEFT_ARG_PTR, (uint64_t)(uintptr_t)ptr,
                              WEFT_ARG_SIZE, size);
    /* Allocate-copy-free keeps every PE's heap layout identical; the old
     * block stays valid if the heap is full. */
    void *p = weft_heap_alloc(0, size);
    if (p) {
        memcpy(p, ptr, old < size ? old : size);
        weft_heap_free(ptr);
    }
    weft_barrier_all_agreeing("shmem_realloc", WEFT_AGREE_RESULT, p, WEFT_ARG_PTR,
                              (uint64_t)(uintptr_t)ptr, WEFT_ARG_SIZE, size);
    if (!p)
        say_heap_full("shmem_realloc", size);
    return p;
}

void shmemx_heap_info(size_t *size, size_t *used, size_t *limit)
{
    weft_check_init("shmemx_heap_info");
    if (size) {
        /* The mapping is whole pages: its last one may go past the limit. */
        size_t backed = __atomic_load_n(&weft_rt.seg[WEFT_SEG_HEAP].size, __ATOMIC_RELAXED) -
                        weft_rt.heap_own;
        *size = backed < weft_rt.heap_limit ? backed : weft_rt.heap_limit;
    }
    if (used)
        *used = weft_heap_in_use() - weft_rt.heap_own_used;
    if (limit)
        *limit = weft_rt.heap_limit;
}

void *shmalloc(size_t size) WEFT_ALIAS_OF(shmem_malloc);
void shfree(void *ptr) WEFT_ALIAS_OF(shmem_free);
void *shrealloc(void *ptr, size_t size) WEFT_ALIAS_OF(shmem_realloc);
void *shmemalign(size_t alignment, size_t size) WEFT_ALIAS_OF(shmem_align);

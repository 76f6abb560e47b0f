/* memory.c owns the symmetric memory routines. They are collective: every
 * PE calls them with the same arguments in the same order, which keeps the
 * heap's offsets identical everywhere; the barriers the spec requires keep
 * a PE from touching memory a peer has not allocated yet (or freed). */
#include <string.h>

#include "api/api.h"

/* zero: clear the block before the closing barrier, so a peer's put made
 * right after the call returns is never wiped. */
static void *sym_alloc(const char *call, size_t align, size_t size, int zero)
{
    weft_check_init(call);
    void *p = NULL;
    if (size > 0) {
        p = weft_heap_alloc(align, size);
        if (!p && align > ((size_t)1 << 30))
            weft_warn(call, "alignment=%zu is larger than the 1 GiB weft supports", align);
        else if (!p)
            weft_warn(call,
                      "cannot allocate %zu bytes from the symmetric heap (SHMEM_SYMMETRIC_SIZE "
                      "is %zu bytes); raise SHMEM_SYMMETRIC_SIZE (e.g. SHMEM_SYMMETRIC_SIZE=2G)",
                      size, weft_rt.heap_asked);
        else if (zero)
            memset(p, 0, size);
    }
    weft_barrier_all_internal();
    return p;
}

void *shmem_malloc(size_t size) { return sym_alloc("shmem_malloc", 0, size, 0); }

void *shmem_malloc_with_hints(size_t size, long hints)
{
    /* Hints only steer placement; every hint is valid to ignore. */
    (void)hints;
    return sym_alloc("shmem_malloc_with_hints", 0, size, 0);
}

void *shmem_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) {
        weft_warn("shmem_calloc", "count=%zu x size=%zu overflows", count, size);
        return sym_alloc("shmem_calloc", 0, 0, 0);
    }
    return sym_alloc("shmem_calloc", 0, count * size, 1);
}

/* An alignment no block can have (0, not a power of two) gets NULL, the
 * specification's answer when no block is allocated, as memalign and the
 * other implementations give; still through the barrier, as every PE was
 * given the same alignment. */
void *shmem_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1))) {
        weft_check_init("shmem_align");
        weft_warn("shmem_align", "argument alignment=%zu is not a power of two: no block",
                  alignment);
        return sym_alloc("shmem_align", 0, 0, 0);
    }
    return sym_alloc("shmem_align", alignment, size, 0);
}

/* The barrier first: no peer may still be writing into the block. */
static void sym_free(void *ptr)
{
    weft_barrier_all_internal();
    if (ptr)
        weft_heap_free(ptr);
}

void shmem_free(void *ptr)
{
    weft_check_init("shmem_free");
    sym_free(ptr);
}

void *shmem_realloc(void *ptr, size_t size)
{
    weft_check_init("shmem_realloc");
    if (!ptr)
        return sym_alloc("shmem_realloc", 0, size, 0);
    if (size == 0) {
        sym_free(ptr);
        return NULL;
    }
    size_t old = weft_heap_usable(ptr);
    if (old == 0)
        weft_fatal("shmem_realloc", "argument ptr=%p was not returned by shmem_malloc", ptr);
    weft_barrier_all_internal();
    /* Allocate-copy-free keeps every PE's heap layout identical; the old
     * block stays valid if the heap is full. */
    void *p = weft_heap_alloc(0, size);
    if (!p) {
        weft_warn("shmem_realloc",
                  "cannot grow to %zu bytes; raise SHMEM_SYMMETRIC_SIZE", size);
    } else {
        memcpy(p, ptr, old < size ? old : size);
        weft_heap_free(ptr);
    }
    weft_barrier_all_internal();
    return p;
}

void *shmalloc(size_t size) WEFT_ALIAS_OF(shmem_malloc);
void shfree(void *ptr) WEFT_ALIAS_OF(shmem_free);
void *shrealloc(void *ptr, size_t size) WEFT_ALIAS_OF(shmem_realloc);
void *shmemalign(size_t alignment, size_t size) WEFT_ALIAS_OF(shmem_align);

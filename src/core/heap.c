/* SPDX-License-Identifier: BSD-3-Clause */
/* heap.c owns the symmetric heap: one memfd-backed mapping per PE (so the
 * on-node path can map peers' heaps) and a deterministic allocator whose
 * bookkeeping lives outside the heap, so identical call sequences on every
 * PE give identical offsets and a stray remote write cannot corrupt it. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/runtime.h"

#define WEFT_HEAP_MIN_ALIGN 64 /* cache line: no false sharing between objects */
/* Every PE's heap starts at an address aligned to this, so aligning an
 * offset aligns the address identically on every PE (shmem_align). Only
 * address space is reserved for the padding. */
#define WEFT_HEAP_BASE_ALIGN ((size_t)1 << 30)

struct weft_block {
    size_t off, size;
    int used;
};

static struct weft_block *blocks; /* sorted by offset, covering the heap */
unsigned long weft_heap_frees;
/* The collective calls change the list from one thread at a time, but a
 * wait on another thread may look a block up meanwhile (weft_heap_live). */
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t nblocks, capblocks;
static size_t bytes_in_use; /* in live blocks */

/* The end of the heap's part ever handed out since it was mapped: past it
 * every byte is still the zero page the new file or mapping gave. */
static size_t handed_out_end;

static void blocks_insert(size_t at, struct weft_block b)
{
    if (nblocks == capblocks) {
        capblocks = capblocks ? capblocks * 2 : 64;
        blocks = realloc(blocks, capblocks * sizeof *blocks);
        if (!blocks)
            weft_fatal("shmem_malloc", "out of private memory for heap bookkeeping");
    }
    memmove(&blocks[at + 1], &blocks[at], (nblocks - at) * sizeof *blocks);
    blocks[at] = b;
    nblocks++;
}

static void blocks_remove(size_t at)
{
    memmove(&blocks[at], &blocks[at + 1], (nblocks - at - 1) * sizeof *blocks);
    nblocks--;
}

/* The heap's place just below the program's lowest page (at the base
 * alignment), so that the heap and the program's static data fall in one
 * window of addresses and shmem_TYPE_p/_g test both with one compare
 * (onnode.c). A PIE program sits far above everything else mapped, so the
 * space below it is free; NULL where it is not (a program linked at a low
 * fixed address, valgrind's loader) or WEFT_HEAP_NEAR_PROGRAM=0. */
static char *reserve_below_program(size_t size)
{
    uintptr_t lowest = weft_program_lowest();
    if (!weft_tun_bool(WEFT_TUN_HEAP_NEAR_PROGRAM) || lowest < size + WEFT_HEAP_BASE_ALIGN)
        return NULL;
    char *at = (char *)((lowest - size) & ~(uintptr_t)(WEFT_HEAP_BASE_ALIGN - 1));
    char *got = mmap(at, size, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == MAP_FAILED)
        return NULL;
    if (got != at) { /* a kernel (or valgrind) that took the address as a hint */
        munmap(got, size);
        return NULL;
    }
    return at;
}

/* The part of the reservation backed so far is grown in steps of this
 * (or to the end of a larger allocation): a few system calls for a heap
 * that grows by many small allocations. Pages cost memory only when
 * touched, as in a fixed heap. */
#define WEFT_HEAP_GROW_STEP ((size_t)64 << 20)

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

void weft_heap_init(size_t size, size_t span)
{
    size_t page = page_size();
    size = (size + page - 1) & ~(page - 1);
    if (size == 0)
        size = page;
    span = (span + page - 1) & ~(page - 1);
    if (span < size)
        span = size;
    char *aligned = reserve_below_program(span);
    weft_rt.heap_below_program = aligned != NULL;
    if (!aligned) {
        /* Reserve span + alignment of address space, keep an aligned window. */
        char *resv = mmap(NULL, span + WEFT_HEAP_BASE_ALIGN, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (resv == MAP_FAILED)
            weft_fatal("shmem_init",
                       "cannot reserve %zu bytes of address space for the symmetric heap; lower "
                       "%s", span, span > size ? "WEFT_HEAP_LIMIT" : "SHMEM_SYMMETRIC_SIZE");
        aligned = (char *)(((uintptr_t)resv + WEFT_HEAP_BASE_ALIGN - 1) &
                           ~(uintptr_t)(WEFT_HEAP_BASE_ALIGN - 1));
        if (aligned > resv)
            munmap(resv, (size_t)(aligned - resv));
        munmap(aligned + span, (size_t)(resv + WEFT_HEAP_BASE_ALIGN - aligned));
    }

    /* The file is as long as the backed part; the mapping covers the whole
     * reservation, so growing is a longer file, here and in every peer's
     * mapping of it (onnode.c) at once. */
    int fd = memfd_create("weft-symmetric-heap", MFD_CLOEXEC);
    void *base = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)size) == 0)
        base = mmap(aligned, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (base == MAP_FAILED) {
        /* No memfd (old kernel, seccomp): private memory still works
         * through the provider, just not for direct on-node access; the
         * reservation stays PROT_NONE past the backed part. */
        if (fd >= 0)
            close(fd);
        fd = -1;
        base = mmap(aligned, span, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        if (base == MAP_FAILED || mprotect(base, size, PROT_READ | PROT_WRITE) != 0)
            weft_fatal("shmem_init",
                       "cannot map a symmetric heap of %zu bytes; lower SHMEM_SYMMETRIC_SIZE", size);
    }
    weft_rt.seg[WEFT_SEG_HEAP] = (struct weft_segment){base, size, fd};
    weft_rt.heap_span = span;
    weft_fast_set_bases(base, weft_fast_data_base);
    nblocks = 0;
    handed_out_end = 0;
    blocks_insert(0, (struct weft_block){0, span, 0});
}

/* Back the heap up to at least `end` bytes: a longer file (or more of the
 * private reservation made accessible), then the bounds the checks use.
 * Every PE makes the same allocations, so every PE grows alike, each
 * before the allocation's barrier: past it the new part is reachable on
 * every path (peers map the whole reservation, libfabric registered it).
 * Returns 0, or -1 when the system refuses (the heap stays as it was). */
static int heap_grow(size_t end)
{
    struct weft_segment *h = &weft_rt.seg[WEFT_SEG_HEAP];
    size_t page = page_size(), old = h->size;
    size_t want = old + WEFT_HEAP_GROW_STEP > end ? old + WEFT_HEAP_GROW_STEP : end;
    want = (want + page - 1) & ~(page - 1);
    if (want > weft_rt.heap_span)
        want = weft_rt.heap_span;
    if (h->fd >= 0 ? ftruncate(h->fd, (off_t)want) != 0
                   : mprotect(h->base + old, want - old, PROT_READ | PROT_WRITE) != 0) {
        weft_warn("shmem_malloc", "cannot grow the symmetric heap from %zu to %zu bytes: %s", old,
                  want, strerror(errno));
        return -1;
    }
    /* Bounds that other threads may be reading: one that still sees the
     * old bound has no block past it (it got none from this allocation). */
    __atomic_store_n(&h->size, want, __ATOMIC_RELAXED);
    uint64_t old_limit = old - WEFT_FAST_MAX;
    if (__atomic_load_n(&weft_fast_heap_limit, __ATOMIC_RELAXED) == old_limit) {
        /* Without the window (onnode.h), p and g share the heap's bound. */
        if (__atomic_load_n(&weft_fast_pg_limit, __ATOMIC_RELAXED) == old_limit)
            __atomic_store_n(&weft_fast_pg_limit, want - WEFT_FAST_MAX, __ATOMIC_RELAXED);
        __atomic_store_n(&weft_fast_heap_limit, want - WEFT_FAST_MAX, __ATOMIC_RELAXED);
    }
    weft_debug("symmetric heap grown from %zu to %zu bytes (%zu reserved)", old, want,
               weft_rt.heap_span);
    return 0;
}

void weft_heap_fini(void)
{
    struct weft_segment *s = &weft_rt.seg[WEFT_SEG_HEAP];
    weft_fast_pg_limit = weft_fast_heap_limit = 0;
    weft_fast_set_bases(NULL, weft_fast_data_base);
    if (s->base)
        munmap(s->base, weft_rt.heap_span);
    if (s->fd >= 0)
        close(s->fd);
    *s = (struct weft_segment){NULL, 0, -1};
    weft_rt.heap_span = 0;
    free(blocks);
    blocks = NULL;
    bytes_in_use = 0;
    __atomic_fetch_add(&weft_heap_frees, 1, __ATOMIC_RELAXED);
    nblocks = capblocks = 0;
}

static void *heap_alloc_locked(size_t align, size_t size);

void *weft_heap_alloc(size_t align, size_t size)
{
    pthread_mutex_lock(&blocks_lock);
    void *p = heap_alloc_locked(align, size);
    pthread_mutex_unlock(&blocks_lock);
    return p;
}

void *weft_heap_alloc_zeroed(size_t align, size_t size)
{
    pthread_mutex_lock(&blocks_lock);
    size_t fresh_from = handed_out_end;
    char *p = heap_alloc_locked(align, size);
    pthread_mutex_unlock(&blocks_lock);
    if (!p)
        return NULL;
    /* Only what was handed out before is written: untouched pages stay
     * unbacked until used (a start-up cost and resident memory saved). */
    size_t start = (size_t)(p - weft_rt.seg[WEFT_SEG_HEAP].base);
    if (start < fresh_from)
        memset(p, 0, (fresh_from - start < size ? fresh_from - start : size));
    return p;
}

static void *heap_alloc_locked(size_t align, size_t size)
{
    if (align < WEFT_HEAP_MIN_ALIGN)
        align = WEFT_HEAP_MIN_ALIGN;
    if (align > WEFT_HEAP_BASE_ALIGN)
        return NULL; /* could not be the same offset on every PE */
    if (size > weft_rt.heap_span)
        return NULL;
    size = (size + WEFT_HEAP_MIN_ALIGN - 1) & ~(size_t)(WEFT_HEAP_MIN_ALIGN - 1);
    if (size == 0)
        size = WEFT_HEAP_MIN_ALIGN;
    for (size_t i = 0; i < nblocks; i++) {
        struct weft_block b = blocks[i];
        if (b.used)
            continue;
        size_t start = (b.off + align - 1) & ~(align - 1);
        if (start - b.off > b.size || b.size - (start - b.off) < size)
            continue;
        if (start + size > weft_rt.seg[WEFT_SEG_HEAP].size && heap_grow(start + size) != 0)
            return NULL;
        /* Split into [pad][used][rest]. */
        size_t pad = start - b.off, rest = b.size - pad - size;
        blocks[i] = (struct weft_block){start, size, 1};
        bytes_in_use += size;
        if (start + size > handed_out_end)
            handed_out_end = start + size;
        if (rest)
            blocks_insert(i + 1, (struct weft_block){start + size, rest, 0});
        if (pad)
            blocks_insert(i, (struct weft_block){b.off, pad, 0});
        return weft_rt.seg[WEFT_SEG_HEAP].base + start;
    }
    return NULL;
}

static size_t block_index(void *p)
{
    size_t off = (size_t)((char *)p - weft_rt.seg[WEFT_SEG_HEAP].base);
    size_t lo = 0, hi = nblocks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (blocks[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < nblocks && blocks[lo].off == off && blocks[lo].used)
        return lo;
    return SIZE_MAX;
}

/* The block holding heap offset off: the last one starting at or below it. */
static size_t block_holding(size_t off)
{
    size_t lo = 0, hi = nblocks;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (blocks[mid].off <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

size_t weft_heap_in_use(void)
{
    pthread_mutex_lock(&blocks_lock);
    size_t n = bytes_in_use;
    pthread_mutex_unlock(&blocks_lock);
    return n;
}

int weft_heap_live(const void *p, size_t len, const char **block, size_t *block_size)
{
    char *base = weft_rt.seg[WEFT_SEG_HEAP].base;
    size_t off = (size_t)((const char *)p - base);
    pthread_mutex_lock(&blocks_lock);
    int live = 0;
    if (nblocks > 0 && off < weft_rt.seg[WEFT_SEG_HEAP].size) {
        const struct weft_block *b = &blocks[block_holding(off)];
        live = b->used && len <= b->size - (off - b->off);
        *block = base + b->off;
        *block_size = b->size;
    }
    pthread_mutex_unlock(&blocks_lock);
    return live;
}

size_t weft_heap_usable(void *p)
{
    pthread_mutex_lock(&blocks_lock);
    size_t i = block_index(p);
    size_t usable = i == SIZE_MAX ? 0 : blocks[i].size;
    pthread_mutex_unlock(&blocks_lock);
    return usable;
}

void weft_heap_free(void *p)
{
    pthread_mutex_lock(&blocks_lock);
    size_t i = block_index(p);
    if (i == SIZE_MAX) {
        pthread_mutex_unlock(&blocks_lock);
        weft_fatal("shmem_free", "argument ptr=%p was not returned by shmem_malloc (or was "
                   "already freed)", p);
    }
    blocks[i].used = 0;
    bytes_in_use -= blocks[i].size;
    __atomic_fetch_add(&weft_heap_frees, 1, __ATOMIC_RELAXED);
    if (i + 1 < nblocks && !blocks[i + 1].used) {
        blocks[i].size += blocks[i + 1].size;
        blocks_remove(i + 1);
    }
    if (i > 0 && !blocks[i - 1].used) {
        blocks[i - 1].size += blocks[i].size;
        blocks_remove(i);
    }
    pthread_mutex_unlock(&blocks_lock);
}

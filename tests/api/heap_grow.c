/* SPDX-License-Identifier: BSD-3-Clause */
/* heap_grow: the symmetric heap that grows when SHMEM_SYMMETRIC_SIZE is not
 * set, and shmemx_heap_info.
 *
 *   heap_grow grow
 *       blocks allocated past the heap's first 256 MiB (shmem_malloc,
 *       shmem_align, shmem_calloc, then shmem_realloc of a small block to
 *       more) are reachable from every PE: puts, gets, p/g, atomics, a
 *       context's puts, counting puts and shmem_ptr at their far ends;
 *       shmemx_heap_info's size grows with them and its use follows.
 *   heap_grow limit <N>M
 *       with WEFT_HEAP_LIMIT=N M set by the registration: the limit is
 *       reported, a block beyond it is NULL on every PE (the library says
 *       why on stderr, naming WEFT_HEAP_LIMIT) and the heap stays usable
 *       up to it.
 *   heap_grow fixed <N>M
 *       with SHMEM_SYMMETRIC_SIZE=N M: size and limit are N M, and a block
 *       larger than that is NULL. */
#include "weft_test.h"

#include <shmemx.h>

#define MIB ((size_t)1 << 20)

static int right, left;

/* Every way to reach `block` (len bytes, symmetric) at its far end on the
 * right neighbour; tag tells the runs apart. */
static void reach_far_end(unsigned char *block, size_t len, unsigned tag, const char *what)
{
    size_t chunk = 4096, at = len - chunk - 64;
    unsigned char *src = malloc(chunk), *back = malloc(chunk);
    WT_CHECK(src && back, "malloc");

    WT_PHASE("%s: putmem/getmem at offset %zu", what, at);
    wt_fill_bytes(src, chunk, wt_me, 0, tag);
    shmem_putmem(block + at, src, chunk, right);
    shmem_barrier_all();
    WT_CHECK_BYTES(block + at, chunk, left, 0, tag, "putmem into the grown heap");
    shmem_getmem(back, block + at, chunk, right);
    WT_CHECK_BYTES(back, chunk, wt_me, 0, tag, "getmem from the grown heap (what this PE put)");

    WT_PHASE("%s: p/g and atomics", what);
    long *word = (long *)(void *)(block + len - 64);
    *word = 0;
    shmem_barrier_all();
    shmem_long_p(word, 1000 + wt_me, right);
    shmem_barrier_all();
    WT_EQ_NUM(*word, 1000 + left, "shmem_long_p into the grown heap");
    WT_EQ_NUM(shmem_long_g(word, right), 1000 + wt_me, "shmem_long_g from the grown heap");
    shmem_barrier_all();
    long old = shmem_long_atomic_fetch_add(word, 5, right);
    WT_EQ_NUM(old, 1000 + wt_me, "atomic_fetch_add in the grown heap");
    shmem_barrier_all();
    shmem_long_atomic_inc(word, left);
    shmem_barrier_all();
    WT_EQ_NUM(*word, 1000 + left + 6, "atomics in the grown heap");

    WT_PHASE("%s: a context's put", what);
    shmem_ctx_t ctx;
    WT_CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
    wt_fill_bytes(src, 256, wt_me, 0, tag + 1);
    shmem_barrier_all();
    shmem_ctx_putmem(ctx, block + at, src, 256, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    WT_CHECK_BYTES(block + at, 256, left, 0, tag + 1, "a context's put into the grown heap");
    shmem_ctx_destroy(ctx);

    WT_PHASE("%s: counting put", what);
    shmemx_ct_t ct;
    shmemx_ct_create(&ct);
    wt_fill_bytes(src, 512, wt_me, 0, tag + 2);
    shmemx_putmem_ct(ct, block + at, src, 512, right);
    shmemx_ct_wait(ct, 1);
    WT_CHECK_BYTES(block + at, 512, left, 0, tag + 2, "counting put into the grown heap");
    shmem_barrier_all();
    shmemx_ct_free(&ct);

    WT_PHASE("%s: shmem_ptr", what);
    unsigned char *direct = shmem_ptr(block + at, right);
    if (direct)
        direct[0] = (unsigned char)(tag + wt_me);
    shmem_barrier_all();
    if (shmem_ptr(block + at, left)) /* the path is the same both ways */
        WT_EQ_NUM(block[at], (unsigned char)(tag + left), "a store through shmem_ptr");
    shmem_barrier_all();
    free(src);
    free(back);
}

static void info(size_t *size, size_t *used, size_t *limit)
{
    shmemx_heap_info(size, used, limit);
    if (getenv("WT_VERBOSE") && wt_me == 0)
        fprintf(stderr, "heap_grow: size %zu used %zu limit %zu\n", *size, *used, *limit);
}

static void grow(void)
{
    size_t size0, used0, limit, size, used;
    info(&size0, &used0, &limit);
    WT_EQ_NUM(size0, 256 * MIB, "the heap's first size without SHMEM_SYMMETRIC_SIZE");
    WT_CHECK(limit >= 1024 * MIB, "limit %zu: a growing heap should reach at least 1 GiB here",
             limit);

    WT_PHASE("within the first part");
    unsigned char *a = shmem_malloc(200 * MIB);
    WT_CHECK(a != NULL, "shmem_malloc(200 MiB)");
    info(&size, &used, &limit);
    WT_EQ_NUM(size, size0, "size after an allocation within the first part");
    WT_CHECK(used >= used0 + 200 * MIB, "used %zu after 200 MiB (%zu before)", used, used0);

    WT_PHASE("past the first part");
    unsigned char *b = shmem_malloc(300 * MIB);
    WT_CHECK(b != NULL, "shmem_malloc(300 MiB) past the first 256 MiB");
    info(&size, &used, &limit);
    /* weft's own data, at the heap's start, lies partly between blocks. */
    WT_CHECK(size > size0 && size + 8 * MIB >= used, "size %zu, used %zu after 500 MiB of blocks",
             size, used);
    reach_far_end(b, 300 * MIB, 10, "malloc");

    unsigned char *c = shmem_align(1 << 20, 64 * MIB);
    WT_CHECK(c != NULL && ((uintptr_t)c & (MIB - 1)) == 0, "shmem_align(1 MiB, 64 MiB) = %p",
             (void *)c);
    reach_far_end(c, 64 * MIB, 20, "align");
    long *z = shmem_calloc(8 * MIB, sizeof(long));
    WT_CHECK(z != NULL, "shmem_calloc(8 Mi, 8) past the first part");
    WT_EQ_NUM(z[8 * MIB - 1], 0, "shmem_calloc's last element");
    reach_far_end((unsigned char *)z, 64 * MIB, 30, "calloc");

    WT_PHASE("realloc past the first part");
    unsigned char *r = shmem_malloc(1000);
    WT_CHECK(r != NULL, "shmem_malloc(1000)");
    wt_fill_bytes(r, 1000, wt_me, 0, 40);
    unsigned char *r2 = shmem_realloc(r, 400 * MIB);
    WT_CHECK(r2 != NULL, "shmem_realloc(1000 -> 400 MiB)");
    WT_CHECK_BYTES(r2, 1000, wt_me, 0, 40, "contents after shmem_realloc grew the heap");
    reach_far_end(r2, 400 * MIB, 50, "realloc");

    WT_PHASE("free");
    shmem_free(a);
    shmem_free(b);
    shmem_free(c);
    shmem_free(z);
    shmem_free(r2);
    info(&size, &used, &limit);
    WT_EQ_NUM(used, used0, "used after every block is freed");
}

static void at_limit(size_t lim)
{
    size_t size, used, limit;
    info(&size, &used, &limit);
    WT_EQ_NUM(limit, lim, "the limit WEFT_HEAP_LIMIT set");
    WT_PHASE("up to the limit");
    unsigned char *a = shmem_malloc(lim / 2);
    WT_CHECK(a != NULL, "shmem_malloc(half the limit)");
    WT_PHASE("past the limit");
    void *no = shmem_malloc(lim / 2 + MIB);
    WT_CHECK(no == NULL, "shmem_malloc past WEFT_HEAP_LIMIT = %p, expected NULL", no);
    unsigned char *big = shmem_realloc(a, lim + MIB);
    WT_CHECK(big == NULL, "shmem_realloc past WEFT_HEAP_LIMIT = %p, expected NULL", (void *)big);
    WT_PHASE("the rest of the limit");
    unsigned char *b = shmem_malloc(lim / 2 - MIB);
    WT_CHECK(b != NULL, "shmem_malloc of the rest below the limit");
    reach_far_end(b, lim / 2 - MIB, 60, "at the limit");
    shmem_free(b);
    shmem_free(a);
}

static void fixed(size_t sz)
{
    size_t size, used, limit;
    info(&size, &used, &limit);
    WT_EQ_NUM(size, sz, "size with SHMEM_SYMMETRIC_SIZE");
    WT_EQ_NUM(limit, sz, "limit with SHMEM_SYMMETRIC_SIZE");
    WT_CHECK(shmem_malloc(sz + MIB) == NULL, "shmem_malloc past SHMEM_SYMMETRIC_SIZE not NULL");
    unsigned char *a = shmem_malloc(sz);
    WT_CHECK(a != NULL, "shmem_malloc(SHMEM_SYMMETRIC_SIZE)");
    reach_far_end(a, sz, 70, "fixed");
    shmem_free(a);
}

int main(int argc, char **argv)
{
    wt_init("heap_grow");
    right = (wt_me + 1) % wt_npes;
    left = (wt_me + wt_npes - 1) % wt_npes;
    const char *mode = argc > 1 ? argv[1] : "grow";
    size_t mib = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) * MIB : 0;
    if (!strcmp(mode, "grow"))
        grow();
    else if (!strcmp(mode, "limit"))
        at_limit(mib);
    else if (!strcmp(mode, "fixed"))
        fixed(mib);
    else
        WT_FAIL("unknown mode %s", mode);
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* heap: the symmetric heap allocators.
 *   shmem_malloc / shmem_free: usable, symmetric (a remote put into the
 *     block lands in the same block on the target), suitably aligned
 *   shmem_malloc(0), shmem_align(a, 0), shmem_calloc(0, n) -> NULL;
 *   shmem_free(NULL) no-op
 *   shmem_calloc: zeroed even when reusing dirty memory
 *   shmem_realloc: grow and shrink keep the contents; realloc(NULL, n) is
 *     malloc; the moved block is still symmetric
 *   shmem_align: 8 .. 1 MiB powers of two honoured
 *   shmem_malloc_with_hints: 0, ATOMICS_REMOTE, SIGNAL_REMOTE, both
 *   shmalloc / shfree / shrealloc / shmemalign (deprecated names)
 *   many allocations: 600 blocks of varied sizes, disjoint (each filled with
 *     its own pattern, all checked after all were written), freed in a
 *     scrambled order, heap reusable afterwards */
#include "weft_test.h"

static int me, npes, right, left;

/* Put a pattern into the block on the right neighbour and check the block
 * on this PE received the left neighbour's pattern. */
static void check_symmetric(unsigned char *blk, size_t len, unsigned tag, const char *what)
{
    memset(blk, 0, len);
    shmem_barrier_all();
    unsigned char *src = malloc(len);
    WT_CHECK(src != NULL, "malloc");
    wt_fill_bytes(src, len, me, 0, tag);
    shmem_putmem(blk, src, len, right);
    shmem_barrier_all();
    WT_CHECK_BYTES(blk, len, left, 0, tag, what);
    free(src);
}

static void test_basic(void)
{
    WT_PHASE("shmem_malloc basic");
    size_t sizes[] = {1, 3, 8, 24, 100, 4096, 4097, 65536, 1 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned char *p = shmem_malloc(sizes[k]);
        WT_CHECK(p != NULL, "shmem_malloc(%zu) returned NULL", sizes[k]);
        WT_CHECK((uintptr_t)p % 8 == 0, "shmem_malloc(%zu) = %p is not 8-byte aligned",
                 sizes[k], (void *)p);
        WT_CHECK(shmem_addr_accessible(p, right), "shmem_malloc(%zu) block not accessible",
                 sizes[k]);
        char what[64];
        snprintf(what, sizeof what, "shmem_malloc(%zu) block", sizes[k]);
        check_symmetric(p, sizes[k], (unsigned)k, what);
        shmem_free(p);
    }

    WT_PHASE("zero sizes and NULL");
    WT_CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) must return NULL");
    WT_CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) must return NULL");
    WT_CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) must return NULL");
    WT_CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0) must return NULL");
    WT_CHECK(shmem_malloc_with_hints(0, 0) == NULL, "shmem_malloc_with_hints(0, 0) must be NULL");
    shmem_free(NULL);
    shmem_barrier_all();
}

static void test_calloc(void)
{
    WT_PHASE("shmem_calloc zeroes reused memory");
    for (int round = 0; round < 3; round++) {
        size_t n = 1000 + 777 * (size_t)round, sz = 8;
        unsigned char *d = shmem_malloc(n * sz);
        WT_CHECK(d != NULL, "shmem_malloc");
        memset(d, 0xA5, n * sz);
        shmem_free(d);
        unsigned char *c = shmem_calloc(n, sz);
        WT_CHECK(c != NULL, "shmem_calloc(%zu, %zu) returned NULL", n, sz);
        WT_CHECK_FILL(c, n * sz, 0, "shmem_calloc block (reused dirty memory)");
        check_symmetric(c, n * sz, 40u + (unsigned)round, "shmem_calloc block");
        shmem_free(c);
    }
}

static void test_realloc(void)
{
    WT_PHASE("shmem_realloc(NULL, n)");
    unsigned char *p = shmem_realloc(NULL, 100);
    WT_CHECK(p != NULL, "shmem_realloc(NULL, 100) returned NULL");
    wt_fill_bytes(p, 100, me, 0, 50);

    /* Something after it, so growing cannot simply extend in place. */
    unsigned char *blocker = shmem_malloc(64);
    WT_CHECK(blocker != NULL, "shmem_malloc(64)");
    memset(blocker, 0x5A, 64);

    WT_PHASE("shmem_realloc grow 100 -> 100000");
    unsigned char *q = shmem_realloc(p, 100000);
    WT_CHECK(q != NULL, "shmem_realloc(p, 100000) returned NULL");
    WT_CHECK_BYTES(q, 100, me, 0, 50, "first 100 bytes after shmem_realloc grow");
    WT_CHECK_FILL(blocker, 64, 0x5A, "neighbouring block after shmem_realloc grow");
    check_symmetric(q, 100000, 51, "block after shmem_realloc grow");

    WT_PHASE("shmem_realloc shrink 100000 -> 5000");
    wt_fill_bytes(q, 100000, me, 0, 52);
    unsigned char *r = shmem_realloc(q, 5000);
    WT_CHECK(r != NULL, "shmem_realloc(q, 5000) returned NULL");
    WT_CHECK_BYTES(r, 5000, me, 0, 52, "contents after shmem_realloc shrink");
    check_symmetric(r, 5000, 53, "block after shmem_realloc shrink");

    WT_PHASE("shmem_realloc(p, 0) frees");
    unsigned char *z = shmem_realloc(r, 0);
    (void)z; /* NULL or a freeable pointer; the block is gone either way */
    shmem_free(blocker);

    WT_PHASE("shmem_realloc preserves hints");
    long *h = shmem_malloc_with_hints(64 * sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
    WT_CHECK(h != NULL, "shmem_malloc_with_hints");
    for (int i = 0; i < 64; i++)
        h[i] = i * 3 + me;
    long *h2 = shmem_realloc(h, 4096 * sizeof(long));
    WT_CHECK(h2 != NULL, "shmem_realloc of a hinted block");
    for (int i = 0; i < 64; i++)
        WT_EQ_NUM(h2[i], i * 3 + me, "element %d after realloc of a hinted block", i);
    h2[4000] = 10;
    shmem_barrier_all();
    shmem_long_atomic_add(&h2[4000], 1, right);
    shmem_barrier_all();
    WT_EQ_NUM(h2[4000], 11, "atomic add into the grown part of a realloc'ed hinted block");
    shmem_free(h2);
}

static void test_align(void)
{
    for (size_t a = 8; a <= (1u << 20); a <<= 1) {
        WT_PHASE("shmem_align(%zu, ...)", a);
        /* A small odd block first so the next one is not aligned by luck. */
        void *odd = shmem_malloc(24);
        unsigned char *p = shmem_align(a, 3 * a + 5);
        WT_CHECK(p != NULL, "shmem_align(%zu, %zu) returned NULL", a, 3 * a + 5);
        WT_CHECK((uintptr_t)p % a == 0, "shmem_align(%zu, ...) = %p is misaligned by %zu",
                 a, (void *)p, (size_t)((uintptr_t)p % a));
        if (a <= 4096 || a == (1u << 20))
            check_symmetric(p, 3 * a + 5, (unsigned)a, "shmem_align block");
        shmem_free(p);
        shmem_free(odd);
    }
    /* No block has these alignments: NULL on every PE (a warning on
     * stderr), and the heap goes on. */
    const size_t bad[] = {0, 3, 24, 4097};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        WT_PHASE("shmem_align(%zu, 100): not a power of two", bad[k]);
        void *p = shmem_align(bad[k], 100);
        WT_CHECK(p == NULL, "shmem_align(%zu, 100) = %p, expected NULL", bad[k], p);
    }
    WT_PHASE("shmem_align(1, 100) after the refusals");
    unsigned char *one = shmem_align(1, 100);
    WT_CHECK(one != NULL, "shmem_align(1, 100) returned NULL");
    check_symmetric(one, 100, 1, "shmem_align(1) block");
    shmem_free(one);
}

static void test_hints(void)
{
    long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                    SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    for (int k = 0; k < 4; k++) {
        WT_PHASE("shmem_malloc_with_hints(%ld)", hints[k]);
        long *p = shmem_malloc_with_hints(16 * sizeof(long), hints[k]);
        WT_CHECK(p != NULL, "shmem_malloc_with_hints(128, %ld) returned NULL", hints[k]);
        WT_CHECK((uintptr_t)p % 8 == 0, "misaligned");
        p[3] = 0;
        shmem_barrier_all();
        shmem_long_atomic_add(&p[3], me + 1, 0);
        shmem_long_p(&p[5], me, right);
        shmem_barrier_all();
        if (me == 0)
            WT_EQ_NUM(p[3], (long)npes * (npes + 1) / 2, "sum of atomic adds into hinted block");
        WT_EQ_NUM(p[5], left, "put into hinted block");
        shmem_free(p);
    }
}

static void test_deprecated(void)
{
    WT_PHASE("shmalloc / shrealloc / shmemalign / shfree");
    unsigned char *p = shmalloc(300);
    WT_CHECK(p != NULL, "shmalloc(300) returned NULL");
    check_symmetric(p, 300, 60, "shmalloc block");
    wt_fill_bytes(p, 300, me, 0, 61);
    unsigned char *q = shrealloc(p, 30000);
    WT_CHECK(q != NULL, "shrealloc(p, 30000) returned NULL");
    WT_CHECK_BYTES(q, 300, me, 0, 61, "contents after shrealloc");
    unsigned char *a = shmemalign(4096, 1000);
    WT_CHECK(a != NULL, "shmemalign(4096, 1000) returned NULL");
    WT_CHECK((uintptr_t)a % 4096 == 0, "shmemalign(4096) = %p misaligned", (void *)a);
    check_symmetric(a, 1000, 62, "shmemalign block");
    shfree(a);
    shfree(q);
}

#define NBLK 600
static void test_many(void)
{
    WT_PHASE("many allocations");
    static unsigned char *blk[NBLK];
    static size_t len[NBLK];
    uint64_t seed = 12345; /* same sequence everywhere: the calls are collective */
    for (int i = 0; i < NBLK; i++) {
        len[i] = 1 + wt_rand(&seed) % (i % 50 == 0 ? 20000 : 300);
        blk[i] = shmem_malloc(len[i]);
        WT_CHECK(blk[i] != NULL, "allocation %d of %zu bytes returned NULL", i, len[i]);
        wt_fill_bytes(blk[i], len[i], me, 0, (unsigned)i);
    }
    for (int i = 0; i < NBLK; i++) {
        char what[64];
        snprintf(what, sizeof what, "block %d (%zu bytes) after all allocations", i, len[i]);
        WT_CHECK_BYTES(blk[i], len[i], me, 0, (unsigned)i, what);
    }
    /* Remote check on a few blocks: the offsets agree on every PE. The
     * source is a private copy: our own block is being overwritten by the
     * left PE at the same time. */
    unsigned char *copy = malloc(20000);
    WT_CHECK(copy != NULL, "malloc");
    shmem_barrier_all();
    for (int i = 0; i < NBLK; i += 97) {
        wt_fill_bytes(copy, len[i], me, 0, (unsigned)i);
        shmem_putmem(blk[i], copy, len[i], right); /* our pattern -> right */
    }
    free(copy);
    shmem_barrier_all();
    for (int i = 0; i < NBLK; i += 97) {
        char what[64];
        snprintf(what, sizeof what, "block %d put by the left PE", i);
        WT_CHECK_BYTES(blk[i], len[i], left, 0, (unsigned)i, what);
    }
    WT_PHASE("freeing in scrambled order");
    int order[NBLK];
    for (int i = 0; i < NBLK; i++)
        order[i] = i;
    for (int i = NBLK - 1; i > 0; i--) {
        int j = (int)(wt_rand(&seed) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < NBLK; k++) {
        int i = order[k];
        if (k % 2 == 0) {
            shmem_free(blk[i]);
            blk[i] = NULL;
        }
    }
    for (int i = 0; i < NBLK; i++)
        if (blk[i]) {
            char what[64];
            snprintf(what, sizeof what, "block %d after freeing others", i);
            WT_CHECK_BYTES(blk[i], len[i], i % 97 == 0 ? left : me, 0, (unsigned)i, what);
        }
    for (int i = 0; i < NBLK; i++)
        shmem_free(blk[i]);
    WT_PHASE("heap reusable after many frees");
    unsigned char *big = shmem_malloc(8 << 20);
    WT_CHECK(big != NULL, "shmem_malloc(8 MiB) after freeing everything returned NULL");
    check_symmetric(big, 8 << 20, 70, "8 MiB block after many frees");
    shmem_free(big);
}

int main(void)
{
    wt_init("heap");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    test_basic();
    test_calloc();
    test_realloc();
    test_align();
    test_hints();
    test_deprecated();
    test_many();
    wt_finish();
    return 0;
}

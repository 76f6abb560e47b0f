/* SPDX-License-Identifier: BSD-3-Clause */
/* heap_limits: running out of symmetric heap, and SHMEM_SYMMETRIC_SIZE.
 *
 *   heap_limits exhaust
 *       shmem_malloc / shmem_align / shmem_calloc / shmem_realloc of sizes
 *       far beyond the heap return NULL on every PE (no crash, no hang),
 *       realloc leaves the old block intact, and the heap stays usable.
 *       (The library should say why on stderr, naming SHMEM_SYMMETRIC_SIZE;
 *       the ctest registration checks for that.)
 *   heap_limits size <N>[K|M|G] ok|null
 *       with SHMEM_SYMMETRIC_SIZE set by the test registration: one
 *       shmem_malloc of N bytes must succeed (ok) - and every byte of it be
 *       remotely writable at both ends - or return NULL (null).
 *   heap_limits realloc <N>[K|M|G]
 *       a 64-byte block grown by shmem_realloc to N bytes (all of
 *       SHMEM_SYMMETRIC_SIZE in the registration) keeps its contents and is
 *       writable at its far end. */
#include "weft_test.h"

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    switch (*end) {
    case 'K': v <<= 10; break;
    case 'M': v <<= 20; break;
    case 'G': v <<= 30; break;
    case 0: break;
    default: fprintf(stderr, "heap_limits: bad size %s\n", s); exit(2);
    }
    return (size_t)v;
}

static void check_usable(const char *after)
{
    int right = (wt_me + 1) % wt_npes, left = (wt_me + wt_npes - 1) % wt_npes;
    WT_PHASE("heap usable after %s", after);
    size_t len = 1 << 20;
    unsigned char *p = shmem_malloc(len);
    WT_CHECK(p != NULL, "shmem_malloc(1 MiB) after %s returned NULL", after);
    unsigned char *src = malloc(len);
    WT_CHECK(src != NULL, "malloc");
    wt_fill_bytes(src, len, wt_me, 0, 9);
    shmem_putmem(p, src, len, right);
    shmem_barrier_all();
    WT_CHECK_BYTES(p, len, left, 0, 9, "1 MiB put after a failed allocation");
    shmem_free(p);
    free(src);
}

static void exhaust(void)
{
    size_t huge[] = {(size_t)1 << 40, SIZE_MAX / 2, SIZE_MAX - 4095, SIZE_MAX};
    for (int k = 0; k < 4; k++) {
        WT_PHASE("shmem_malloc(%zu)", huge[k]);
        void *p = shmem_malloc(huge[k]);
        WT_CHECK(p == NULL, "shmem_malloc(%zu) = %p, expected NULL", huge[k], p);
    }
    check_usable("shmem_malloc(huge)");

    WT_PHASE("shmem_align(4096, 1 TiB)");
    WT_CHECK(shmem_align(4096, (size_t)1 << 40) == NULL, "shmem_align(4096, 1 TiB) not NULL");
    WT_PHASE("shmem_calloc(2^33, 2^33) (product overflows size_t)");
    WT_CHECK(shmem_calloc((size_t)1 << 33, (size_t)1 << 33) == NULL,
             "shmem_calloc(2^33, 2^33) not NULL: the count*size overflow was not caught");
    WT_PHASE("shmem_calloc(1 MiB, 1 MiB)");
    WT_CHECK(shmem_calloc((size_t)1 << 20, (size_t)1 << 20) == NULL,
             "shmem_calloc(2^20, 2^20) (1 TiB) not NULL");
    WT_PHASE("shmem_malloc_with_hints(1 TiB)");
    WT_CHECK(shmem_malloc_with_hints((size_t)1 << 40, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL,
             "shmem_malloc_with_hints(1 TiB) not NULL");

    WT_PHASE("shmem_realloc(p, 1 TiB)");
    unsigned char *p = shmem_malloc(1000);
    WT_CHECK(p != NULL, "shmem_malloc(1000)");
    wt_fill_bytes(p, 1000, wt_me, 0, 3);
    unsigned char *q = shmem_realloc(p, (size_t)1 << 40);
    WT_CHECK(q == NULL, "shmem_realloc(p, 1 TiB) = %p, expected NULL", (void *)q);
    WT_CHECK_BYTES(p, 1000, wt_me, 0, 3, "block after a failed shmem_realloc");
    shmem_free(p);

    /* Fill the heap with 1 MiB blocks until it says no, then free them:
     * everything must come back. */
    WT_PHASE("filling the heap with 16 MiB blocks");
    enum { MAXB = 4096 };
    static void *blk[MAXB];
    int nb = 0;
    while (nb < MAXB && (blk[nb] = shmem_malloc(16 << 20)) != NULL)
        nb++;
    WT_CHECK(nb < MAXB, "64 GiB of 16 MiB blocks allocated without running out");
    WT_CHECK(nb > 0, "not even one 16 MiB block could be allocated");
    for (int i = nb - 1; i >= 0; i--)
        shmem_free(blk[i]);
    WT_PHASE("filling the heap again after freeing");
    int nb2 = 0;
    while (nb2 < MAXB && (blk[nb2] = shmem_malloc(16 << 20)) != NULL)
        nb2++;
    WT_EQ_NUM(nb2, nb, "16 MiB blocks that fit after freeing all (leak or fragmentation?)");
    for (int i = 0; i < nb2; i++)
        shmem_free(blk[i]);
    if (wt_me == 0)
        printf("heap_limits: %d blocks of 16 MiB fit\n", nb);
    check_usable("filling the heap");
}

int main(int argc, char **argv)
{
    wt_init("heap_limits");
    const char *mode = argc > 1 ? argv[1] : "exhaust";
    if (!strcmp(mode, "exhaust")) {
        exhaust();
    } else if (!strcmp(mode, "size") && argc > 3) {
        size_t n = parse_size(argv[2]);
        int want_ok = !strcmp(argv[3], "ok");
        const char *env = getenv("SHMEM_SYMMETRIC_SIZE");
        WT_PHASE("shmem_malloc(%s = %zu) with SHMEM_SYMMETRIC_SIZE=%s", argv[2], n,
                 env ? env : "(unset)");
        unsigned char *p = shmem_malloc(n);
        if (!want_ok) {
            WT_CHECK(p == NULL, "shmem_malloc(%zu) succeeded but SHMEM_SYMMETRIC_SIZE=%s is "
                     "smaller", n, env ? env : "(unset)");
            check_usable("an allocation larger than SHMEM_SYMMETRIC_SIZE");
        } else {
            WT_CHECK(p != NULL, "shmem_malloc(%zu) returned NULL with SHMEM_SYMMETRIC_SIZE=%s",
                     n, env ? env : "(unset)");
            int right = (wt_me + 1) % wt_npes, left = (wt_me + wt_npes - 1) % wt_npes;
            unsigned char ends[2][4096];
            wt_fill_bytes(ends[0], 4096, wt_me, 0, 1);
            wt_fill_bytes(ends[1], 4096, wt_me, n - 4096, 1);
            shmem_putmem(p, ends[0], 4096, right);
            shmem_putmem(p + n - 4096, ends[1], 4096, right);
            shmem_barrier_all();
            WT_CHECK_BYTES(p, 4096, left, 0, 1, "first 4 KiB of the block");
            WT_CHECK_BYTES(p + n - 4096, 4096, left, n - 4096, 1, "last 4 KiB of the block");
            shmem_free(p);
        }
    } else if (!strcmp(mode, "realloc") && argc > 2) {
        size_t n = parse_size(argv[2]);
        WT_PHASE("shmem_realloc(64-byte block, %s = %zu)", argv[2], n);
        long *p = shmem_malloc(64);
        WT_CHECK(p != NULL, "shmem_malloc(64) returned NULL");
        for (int i = 0; i < 8; i++)
            p[i] = wt_me * 100 + i;
        unsigned char *q = shmem_realloc(p, n);
        WT_CHECK(q != NULL, "shmem_realloc(p, %zu) returned NULL with SHMEM_SYMMETRIC_SIZE=%s", n,
                 getenv("SHMEM_SYMMETRIC_SIZE") ? getenv("SHMEM_SYMMETRIC_SIZE") : "(unset)");
        for (int i = 0; i < 8; i++)
            WT_EQ_NUM(((long *)q)[i], (long)(wt_me * 100 + i), "word %d kept by the realloc", i);
        long last = wt_me + 1;
        int right = (wt_me + 1) % wt_npes, left = (wt_me + wt_npes - 1) % wt_npes;
        shmem_long_p((long *)(q + n - sizeof(long)), last, right);
        shmem_barrier_all();
        WT_EQ_NUM(*(long *)(q + n - sizeof(long)), (long)(left + 1), "last word of the block");
        shmem_free(q);
    } else {
        fprintf(stderr, "usage: heap_limits exhaust | size <N>[K|M|G] ok|null | realloc <N>\n");
        return 2;
    }
    wt_finish();
    return 0;
}

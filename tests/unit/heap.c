/* SPDX-License-Identifier: BSD-3-Clause */
/* heap.c (unit) checks the symmetric heap's allocator (src/core/heap.c)
 * against a model: a map of the heap in 64-byte units where an allocation
 * of size s and alignment a lands at the lowest aligned unit that starts a
 * free run of s bytes (first fit over blocks that coalesce on free), so
 * every offset is predicted exactly, and identical call sequences give
 * identical offsets, which is what makes the heap symmetric. */
#include "unit.h"

#include "core/runtime.h"

#define HEAP_SIZE ((size_t)1 << 20)
#define UNIT 64
#define UNITS (HEAP_SIZE / UNIT)

static unsigned char used[UNITS]; /* the model: 1 where a unit is allocated */

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* The offset the model predicts, or SIZE_MAX for NULL. */
static size_t model_alloc(size_t align, size_t size)
{
    if (align < UNIT)
        align = UNIT;
    if (size > HEAP_SIZE)
        return SIZE_MAX;
    size_t units = size ? round_up(size, UNIT) / UNIT : 1;
    for (size_t at = 0; at + units <= UNITS; at += align / UNIT) {
        size_t k = 0;
        while (k < units && !used[at + k])
            k++;
        if (k == units) {
            memset(&used[at], 1, units);
            return at * UNIT;
        }
    }
    return SIZE_MAX;
}

static void model_free(size_t off, size_t size)
{
    memset(&used[off / UNIT], 0, round_up(size ? size : 1, UNIT) / UNIT);
}

static char *base(void) { return weft_rt.seg[WEFT_SEG_HEAP].base; }

struct live {
    char *p;
    size_t size;
};

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random mix of allocations (sizes from 0 to a quarter of the heap,
 * alignments up to 64 KiB) and frees; every result against the model. The
 * offsets, in order, go to trace (for the determinism check). */
static void random_run(size_t steps, size_t *trace)
{
    enum { MAX_LIVE = 256 };
    static struct live live[MAX_LIVE];
    size_t nlive = 0, ntrace = 0;
    for (size_t s = 0; s < steps; s++) {
        uint64_t r = next_random();
        if (nlive == MAX_LIVE || (nlive && r % 5 < 2)) {
            size_t i = (size_t)(r >> 8) % nlive;
            model_free((size_t)(live[i].p - base()), live[i].size);
            weft_heap_free(live[i].p);
            live[i] = live[--nlive];
            continue;
        }
        size_t size = (r >> 8) % 4 == 0 ? (size_t)(r >> 16) % (HEAP_SIZE / 4)
                                          : (size_t)(r >> 16) % 1000;
        size_t align = (size_t)1 << ((r >> 40) % 17);
        size_t want = model_alloc(align, size);
        char *p = weft_heap_alloc(align, size);
        trace[ntrace++] = p ? (size_t)(p - base()) : SIZE_MAX;
        if (want == SIZE_MAX) {
            UT_CHECK(p == NULL, "step %zu: alloc(%zu, %zu) = offset %zu, model has no room", s,
                     align, size, (size_t)(p - base()));
            if (p)
                weft_heap_free(p);
            continue;
        }
        UT_CHECK(p != NULL, "step %zu: alloc(%zu, %zu) = NULL, model gives offset %zu", s, align,
                 size, want);
        if (!p) {
            model_free(want, size);
            continue;
        }
        UT_EQ((size_t)(p - base()), want);
        UT_EQ(weft_heap_usable(p), round_up(size ? size : 1, UNIT));
        memset(p, 0xa5, size); /* the memory is really there */
        live[nlive++] = (struct live){p, size};
    }
    while (nlive) {
        nlive--;
        model_free((size_t)(live[nlive].p - base()), live[nlive].size);
        weft_heap_free(live[nlive].p);
    }
}

static void free_foreign(void *p) { weft_heap_free(p); }

int main(void)
{
    /* The heap's placement is not what is tested here. */
    setenv("WEFT_HEAP_NEAR_PROGRAM", "0", 1);
    weft_heap_init(HEAP_SIZE - 100, HEAP_SIZE - 100); /* rounded up to whole pages */
    UT_EQ(weft_rt.seg[WEFT_SEG_HEAP].size, HEAP_SIZE);
    UT_EQ((uintptr_t)base() % ((uintptr_t)1 << 30), 0);

    /* Edges: zero bytes is one unit, more than the heap or an alignment
     * above the heap's base alignment is NULL, the whole heap fits once. */
    char *z = weft_heap_alloc(1, 0);
    UT_CHECK(z == base(), "alloc(1, 0) = %p, heap at %p", (void *)z, (void *)base());
    UT_EQ(weft_heap_usable(z), UNIT);
    weft_heap_free(z);
    UT_CHECK(weft_heap_alloc(64, HEAP_SIZE + 1) == NULL, "more than the heap");
    UT_CHECK(weft_heap_alloc((size_t)1 << 31, 64) == NULL, "alignment above the base's");
    char *all = weft_heap_alloc(4096, HEAP_SIZE);
    UT_CHECK(all == base(), "the whole heap in one block");
    UT_CHECK(weft_heap_alloc(64, 1) == NULL, "a full heap has no room");
    UT_EQ(weft_heap_usable(all + 64), 0); /* not the start of a block */
    weft_heap_free(all);

    /* Freed neighbours coalesce: a, b, c freed in the order a, c, b leave
     * one block again, so the whole heap fits. */
    char *a = weft_heap_alloc(64, 1000), *b = weft_heap_alloc(64, 1000),
         *c = weft_heap_alloc(64, 1000);
    UT_CHECK(a && b == a + 1024 && c == b + 1024, "consecutive blocks");
    weft_heap_free(a);
    weft_heap_free(c);
    char *again = weft_heap_alloc(64, 1024);
    UT_CHECK(again == a, "first fit reuses the lowest hole");
    weft_heap_free(again);
    weft_heap_free(b);
    all = weft_heap_alloc(64, HEAP_SIZE);
    UT_CHECK(all == base(), "after every free the heap is one block");
    weft_heap_free(all);

    /* The model, twice with the same sequence: the same offsets. */
    enum { STEPS = 20000 };
    static size_t first[STEPS], second[STEPS];
    uint64_t seed = rng;
    random_run(STEPS, first);
    all = weft_heap_alloc(64, HEAP_SIZE);
    UT_CHECK(all == base(), "after the random run the heap is one block");
    weft_heap_free(all);
    weft_heap_fini();
    weft_heap_init(HEAP_SIZE, HEAP_SIZE);
    rng = seed;
    random_run(STEPS, second);
    UT_CHECK(!memcmp(first, second, sizeof first), "identical sequences, identical offsets");

    /* Freeing what the heap did not return ends the job, naming the call. */
    char msg[512];
    char *inside = weft_heap_alloc(64, 128);
    int status = ut_fatal(free_foreign, inside + 64, msg, sizeof msg);
    UT_EQ(status, 1);
    UT_CHECK(strstr(msg, "shmem_free") && strstr(msg, "ptr="), "message: %s", msg);
    weft_heap_free(inside);
    status = ut_fatal(free_foreign, inside, msg, sizeof msg); /* double free */
    UT_EQ(status, 1);
    UT_CHECK(strstr(msg, "already freed") != NULL, "message: %s", msg);
    weft_heap_fini();
    return ut_done("unit.heap");
}

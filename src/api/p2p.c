/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p.c owns point-to-point synchronization: wait_until and test in their
 * scalar, all/any/some and vector forms, for every type of Table 10, plus
 * the deprecated shmem_wait forms. One generic engine works on (element
 * size, signedness); the typed routines are generated around it. */
#include <stdint.h>

#include "api/api.h"

enum p2p_mode { P2P_ALL, P2P_ANY, P2P_SOME };

static int64_t load_signed(const void *p, size_t size)
{
    switch (size) {
    case 2: return __atomic_load_n((const int16_t *)p, __ATOMIC_ACQUIRE);
    case 4: return __atomic_load_n((const int32_t *)p, __ATOMIC_ACQUIRE);
    default: return __atomic_load_n((const int64_t *)p, __ATOMIC_ACQUIRE);
    }
}

static uint64_t load_unsigned(const void *p, size_t size)
{
    switch (size) {
    case 2: return __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
    case 4: return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
    default: return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
    }
}

#define WEFT_COMPARE(cmp, a, b)                                                           \
    ((cmp) == SHMEM_CMP_EQ   ? (a) == (b)                                                 \
     : (cmp) == SHMEM_CMP_NE ? (a) != (b)                                                 \
     : (cmp) == SHMEM_CMP_GT ? (a) > (b)                                                  \
     : (cmp) == SHMEM_CMP_LE ? (a) <= (b)                                                 \
     : (cmp) == SHMEM_CMP_LT ? (a) < (b)                                                  \
                             : (a) >= (b))

static int satisfied(const void *ivar, size_t size, int sgn, int cmp, const void *value)
{
    if (sgn)
        return WEFT_COMPARE(cmp, load_signed(ivar, size), load_signed(value, size));
    return WEFT_COMPARE(cmp, load_unsigned(ivar, size), load_unsigned(value, size));
}

static void check_cmp(const char *call, int cmp)
{
    if (WEFT_UNLIKELY(cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_GE))
        weft_fatal(call, "argument cmp=%d is not one of the SHMEM_CMP_* constants", cmp);
}

/* A heap ivar must lie in a live block: a freed one is nobody's to update,
 * and a wait on it would hang. The block list is searched (a lock and a
 * binary search); the block last found live is remembered per thread until
 * a block is freed, so tests polled in a loop on variables of one block
 * search once. */
static __thread struct {
    const char *block;
    size_t size;
    unsigned long frees;
} live_seen __attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) void check_live_search(const char *call, const char *arg,
                                                         const void *ivar, size_t len,
                                                         unsigned long frees)
{
    const char *block = NULL;
    size_t size = 0;
    if (WEFT_UNLIKELY(!weft_heap_live(ivar, len, &block, &size)))
        weft_fatal(call, "argument %s=%p (%zu bytes) is in the symmetric heap but not in a live "
                   "block (freed, or never returned by shmem_malloc): nothing can update it",
                   arg, ivar, len);
    live_seen.block = block;
    live_seen.size = size;
    live_seen.frees = frees;
}

static inline void check_live(const char *call, const char *arg, const void *ivar, size_t len,
                              int seg)
{
    if (seg != WEFT_SEG_HEAP)
        return;
    unsigned long frees = __atomic_load_n(&weft_heap_frees, __ATOMIC_RELAXED);
    size_t in = (size_t)((const char *)ivar - live_seen.block);
    if (WEFT_UNLIKELY(frees != live_seen.frees || in >= live_seen.size ||
                      len > live_seen.size - in))
        check_live_search(call, arg, ivar, len, frees);
}

void weft_api_check_live(const char *call, const char *arg, const void *ivar, size_t len, int seg)
{
    check_live(call, arg, ivar, len, seg);
}

/* ivar must be symmetric (a peer updates it; a stack or NULL address
 * would hang or fault): the same resolve every RMA routine makes. */
static void check_ivar(const char *call, const void *ivar, size_t size)
{
    int seg;
    uint64_t off;
    weft_sym_resolve_or_die(call, "ivar", ivar, size, &seg, &off);
    check_live(call, "ivar", ivar, size, seg);
}

/* The record the hang report and the finalize check read (runtime/hang.c). */
static void wait_record(const char *call, const void *ivar, size_t size, size_t n, int cmp,
                        const void *value)
{
    weft_wait.call = call;
    weft_wait.addr = ivar;
    weft_wait.size = size;
    weft_wait.nelems = n;
    weft_wait.cmp = cmp;
    weft_wait.value = value;
    weft_wait.kind = WEFT_WAIT_P2P;
}

static void p2p_wait_one(const char *call, const void *ivar, size_t size, int sgn, int cmp,
                         const void *value)
{
    weft_check_init(call);
    check_cmp(call, cmp);
    check_ivar(call, ivar, size);
    if (satisfied(ivar, size, sgn, cmp, value)) {
        weft_transport_settle_applied();
        return;
    }
    wait_record(call, ivar, size, 1, cmp, value);
    unsigned spins = 0;
    while (!satisfied(ivar, size, sgn, cmp, value))
        weft_wait_for_update(&spins);
    weft_transport_settle_applied();
    weft_wait.kind = WEFT_WAIT_NONE;
}

/* The wait engine for a 64-bit unsigned variable that also reports the
 * value it saw satisfy the condition (shmem_signal_wait_until returns it):
 * loading again after the wait could see a later update that no longer
 * satisfies it. */
uint64_t weft_api_wait_until_u64(const char *call, const uint64_t *ivar, int cmp,
                                 uint64_t cmp_value)
{
    weft_check_init(call);
    check_cmp(call, cmp);
    unsigned spins = 0;
    for (;;) {
        uint64_t seen = load_unsigned(ivar, sizeof *ivar);
        if (WEFT_COMPARE(cmp, seen, cmp_value)) {
            weft_transport_settle_applied();
            weft_wait.kind = WEFT_WAIT_NONE;
            return seen;
        }
        if (spins == 0)
            wait_record(call, ivar, sizeof *ivar, 1, cmp, &cmp_value);
        weft_wait_for_update(&spins);
    }
}

/* Where the next ANY scan starts. The spec asks that if element i keeps
 * satisfying the condition, a series of calls eventually returns i, so
 * successive scans start one element further on. */
static size_t any_cursor;

/* One pass over the set. Returns: ALL, 1 if every eligible element is
 * satisfied; ANY, a satisfied index or SIZE_MAX; SOME, how many satisfied
 * (their indices stored, ascending). *eligible counts unmasked elements. */
static size_t p2p_scan(const char *ivars, size_t n, const int *status, size_t size, int sgn,
                       int cmp, const char *values, size_t vstride, enum p2p_mode mode,
                       size_t *indices, size_t *eligible)
{
    size_t count = 0, start = 0;
    *eligible = 0;
    if (mode == P2P_ANY && n > 0)
        start = any_cursor++ % n;
    for (size_t k = 0; k < n; k++) {
        size_t i = start + k < n ? start + k : start + k - n;
        if (status && status[i])
            continue;
        ++*eligible;
        int ok = satisfied(ivars + i * size, size, sgn, cmp, values + i * vstride);
        if (mode == P2P_ALL && !ok)
            return 0;
        if (mode == P2P_ANY && ok)
            return i;
        if (mode == P2P_SOME && ok)
            indices[count++] = i;
    }
    return mode == P2P_ALL ? 1 : mode == P2P_ANY ? SIZE_MAX : count;
}

static size_t p2p_many(const char *call, const void *ivars, size_t n, const int *status,
                       size_t size, int sgn, int cmp, const void *values, size_t vstride,
                       enum p2p_mode mode, size_t *indices, int wait)
{
    weft_check_init(call);
    check_cmp(call, cmp);
    if (WEFT_UNLIKELY(n > 0 && ivars == NULL))
        weft_fatal(call, "argument ivars is NULL with nelems=%zu", n);
    if (WEFT_UNLIKELY(n > SIZE_MAX / size))
        weft_fatal(call, "argument nelems=%zu times the element size %zu overflows", n, size);
    if (n > 0) {
        int seg;
        uint64_t off;
        weft_sym_resolve_or_die(call, "ivars", ivars, n * size, &seg, &off);
        check_live(call, "ivars", ivars, n * size, seg);
    }
    if (WEFT_UNLIKELY(mode == P2P_SOME && n > 0 && indices == NULL))
        weft_fatal(call, "argument indices is NULL with nelems=%zu", n);
    if (WEFT_UNLIKELY(vstride && n > 0 && values == NULL))
        weft_fatal(call, "argument cmp_values is NULL with nelems=%zu", n);
    unsigned spins = 0;
    for (;;) {
        size_t eligible;
        size_t r = p2p_scan(ivars, n, status, size, sgn, cmp, values, vstride, mode, indices,
                            &eligible);
        int done = mode == P2P_ALL ? r == 1 : mode == P2P_ANY ? r != SIZE_MAX : r > 0;
        if (done || !wait || eligible == 0) {
            if (done)
                weft_transport_settle_applied();
            if (spins)
                weft_wait.kind = WEFT_WAIT_NONE;
            return r;
        }
        if (spins == 0)
            wait_record(call, ivars, size, n, cmp, values);
        weft_wait_for_update(&spins);
    }
}

/* Written so that gcc sees no "unsigned < 0" comparison. */
#define WEFT_SIGNED(T) (!((T)-1 > (T)1))
#define WEFT_DEF_P2P(N, T, D, G)                                                          \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                            \
    {                                                                                     \
        p2p_wait_one("shmem_" #N "_wait_until", ivar, sizeof(T), WEFT_SIGNED(T), cmp,     \
                     &cmp_value);                                                         \
    }                                                                                     \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                   \
    {                                                                                     \
        weft_check_init("shmem_" #N "_test");                                             \
        check_cmp("shmem_" #N "_test", cmp);                                              \
        check_ivar("shmem_" #N "_test", ivar, sizeof(T));                                 \
        weft_test_for_update();                                                           \
        if (!satisfied(ivar, sizeof(T), WEFT_SIGNED(T), cmp, &cmp_value))                 \
            return 0;                                                                     \
        weft_transport_settle_applied();                                                         \
        return 1;                                                                         \
    }                                                                                     \
    WEFT_DEF_P2P_SET(N, T, wait_until, void, 1, (void))                                   \
    WEFT_DEF_P2P_SET(N, T, test, int, 0, (int))

/* The six set forms (all/any/some x scalar/vector) of one verb. */
#define WEFT_DEF_P2P_SET(N, T, VERB, ALLRET, WAIT, CAST)                                  \
    ALLRET shmem_##N##_##VERB##_all(T *ivars, size_t nelems, const int *status, int cmp,  \
                                    T cmp_value)                                          \
    {                                                                                     \
        return CAST p2p_many("shmem_" #N "_" #VERB "_all", ivars, nelems, status,         \
                             sizeof(T), WEFT_SIGNED(T), cmp, &cmp_value, 0, P2P_ALL,      \
                             NULL, WAIT);                                                 \
    }                                                                                     \
    size_t shmem_##N##_##VERB##_any(T *ivars, size_t nelems, const int *status, int cmp,  \
                                    T cmp_value)                                          \
    {                                                                                     \
        return p2p_many("shmem_" #N "_" #VERB "_any", ivars, nelems, status, sizeof(T),   \
                        WEFT_SIGNED(T), cmp, &cmp_value, 0, P2P_ANY, NULL, WAIT);          \
    }                                                                                     \
    size_t shmem_##N##_##VERB##_some(T *ivars, size_t nelems, size_t *indices,            \
                                     const int *status, int cmp, T cmp_value)             \
    {                                                                                     \
        return p2p_many("shmem_" #N "_" #VERB "_some", ivars, nelems, status, sizeof(T),  \
                        WEFT_SIGNED(T), cmp, &cmp_value, 0, P2P_SOME, indices, WAIT);      \
    }                                                                                     \
    ALLRET shmem_##N##_##VERB##_all_vector(T *ivars, size_t nelems, const int *status,    \
                                           int cmp, T *cmp_values)                        \
    {                                                                                     \
        return CAST p2p_many("shmem_" #N "_" #VERB "_all_vector", ivars, nelems, status,  \
                             sizeof(T), WEFT_SIGNED(T), cmp, cmp_values, sizeof(T),       \
                             P2P_ALL, NULL, WAIT);                                        \
    }                                                                                     \
    size_t shmem_##N##_##VERB##_any_vector(T *ivars, size_t nelems, const int *status,    \
                                           int cmp, T *cmp_values)                        \
    {                                                                                     \
        return p2p_many("shmem_" #N "_" #VERB "_any_vector", ivars, nelems, status,       \
                        sizeof(T), WEFT_SIGNED(T), cmp, cmp_values, sizeof(T), P2P_ANY,   \
                        NULL, WAIT);                                                      \
    }                                                                                     \
    size_t shmem_##N##_##VERB##_some_vector(T *ivars, size_t nelems, size_t *indices,     \
                                            const int *status, int cmp, T *cmp_values)    \
    {                                                                                     \
        return p2p_many("shmem_" #N "_" #VERB "_some_vector", ivars, nelems, status,      \
                        sizeof(T), WEFT_SIGNED(T), cmp, cmp_values, sizeof(T), P2P_SOME,  \
                        indices, WAIT);                                                   \
    }

WEFT_P2P_TYPES(WEFT_DEF_P2P)

/* Deprecated: shmem_TYPE_wait(ivar, value) waits while *ivar == value. */
#define WEFT_DEF_WAIT_DEPR(N, T, D, G)                                                    \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                           \
    {                                                                                     \
        p2p_wait_one("shmem_" #N "_wait", ivar, sizeof(T), WEFT_SIGNED(T), SHMEM_CMP_NE,  \
                     &cmp_value);                                                         \
    }
WEFT_WAIT_DEPRECATED_TYPES(WEFT_DEF_WAIT_DEPR)

void(shmem_wait)(long *ivar, long cmp_value)
{
    p2p_wait_one("shmem_wait", ivar, sizeof(long), 1, SHMEM_CMP_NE, &cmp_value);
}

void(shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
    p2p_wait_one("shmem_wait_until", ivar, sizeof(long), 1, cmp, &cmp_value);
}

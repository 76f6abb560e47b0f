/* SPDX-License-Identifier: BSD-3-Clause */
/* generic_signal_blocks: the C11 _Generic forms added with signals and
 * OpenSHMEM 1.6 - shmem_put_signal, shmem_put_signal_nbi, shmem_ibput,
 * shmem_ibget (each plain and with a leading context) over several types,
 * and shmem_signal_set / shmem_signal_add with and without a context.
 * Values differ per element and fill the type's width, so a selection of
 * the wrong typed routine (wrong element size) or of the wrong form shows
 * up as wrong data; each signal is awaited before its data is checked.
 * Written per type by hand, as in generic.c: the generic macros cannot be
 * used inside an expansion of the type table they dispatch over. */
#include "weft_test.h"

static int right, left;
static shmem_ctx_t CTX;

#define GENERIC_CASE(T, A)                                                                   \
    do {                                                                                     \
        static T dst[8], src[8];                                                             \
        static uint64_t sig[4];                                                              \
        T loc[8];                                                                            \
        WT_PHASE("put_signal / ibput / ibget generics on %s", #T);                           \
        for (int i = 0; i < 8; i++) {                                                        \
            dst[i] = 0;                                                                      \
            src[i] = (T)((A) - i);                                                           \
            loc[i] = (T)((A) + i);                                                           \
        }                                                                                    \
        memset(sig, 0, sizeof sig);                                                          \
        shmem_barrier_all();                                                                 \
        shmem_put_signal(dst, loc, 2, &sig[0], 1, SHMEM_SIGNAL_SET, right);                  \
        shmem_put_signal(CTX, dst + 2, loc + 2, 2, &sig[1], 2, SHMEM_SIGNAL_ADD, right);     \
        shmem_put_signal_nbi(dst + 4, loc + 4, 2, &sig[2], 3, SHMEM_SIGNAL_SET, right);      \
        shmem_put_signal_nbi(CTX, dst + 6, loc + 6, 2, &sig[3], 4, SHMEM_SIGNAL_ADD, right); \
        for (int k = 0; k < 4; k++) {                                                        \
            shmem_signal_wait_until(&sig[k], SHMEM_CMP_EQ, (uint64_t)k + 1);                 \
            for (int i = 2 * k; i < 2 * k + 2; i++)                                          \
                WT_EQ_NUM(dst[i], (T)((A) + i), "%s generic put_signal%s element %d", #T,    \
                          k >= 2 ? "_nbi" : "", i);                                          \
        }                                                                                    \
        shmem_quiet();                                                                       \
        shmem_ctx_quiet(CTX);                                                                \
        shmem_barrier_all();                                                                 \
        memset(dst, 0, sizeof dst);                                                          \
        shmem_barrier_all();                                                                 \
        /* blocks of 2 at stride 4 (plain), single elements at stride 4 (ctx) */            \
        shmem_ibput(dst, loc, 4, 4, 2, 2, right);            /* dst 0,1,4,5 <- loc 0,1,4,5 */ \
        shmem_ibput(CTX, dst + 2, loc + 2, 4, 4, 1, 2, right); /* dst 2,6 <- loc 2,6 */     \
        shmem_quiet();                                                                       \
        shmem_ctx_quiet(CTX);                                                                \
        shmem_barrier_all();                                                                 \
        for (int i = 0; i < 8; i++)                                                          \
            WT_EQ_NUM(dst[i], (i == 3 || i == 7) ? (T)0 : (T)((A) + i),                      \
                      "%s generic ibput element %d", #T, i);                                 \
        memset(loc, 0, sizeof loc);                                                          \
        shmem_ibget(loc, src, 4, 4, 2, 2, right);                                            \
        shmem_ibget(CTX, loc + 2, src + 2, 4, 4, 1, 2, right);                               \
        for (int i = 0; i < 8; i++)                                                          \
            WT_EQ_NUM(loc[i], (i == 3 || i == 7) ? (T)0 : (T)((A) - i),                      \
                      "%s generic ibget element %d", #T, i);                                 \
        shmem_barrier_all();                                                                 \
    } while (0)

uint64_t counter[2];

int main(void)
{
    wt_init("generic_signal_blocks");
    right = (wt_me + 1) % wt_npes;
    left = (wt_me + wt_npes - 1) % wt_npes;
    WT_CHECK(shmem_ctx_create(0, &CTX) == 0, "shmem_ctx_create(0) failed");

    GENERIC_CASE(char, 'a');
    GENERIC_CASE(signed char, -50);
    GENERIC_CASE(unsigned char, 200);
    GENERIC_CASE(short, -30000);
    GENERIC_CASE(unsigned short, 65000);
    GENERIC_CASE(int, -2000000000);
    GENERIC_CASE(unsigned int, 4000000000u);
    GENERIC_CASE(long, -9000000000000000000L);
    GENERIC_CASE(unsigned long, 18000000000000000000ul);
    GENERIC_CASE(long long, 9000000000000000000LL);
    GENERIC_CASE(unsigned long long, 17000000000000000000ull);
    GENERIC_CASE(float, 1.25f); /* small enough that A + i is exact */
    GENERIC_CASE(double, -1e15);
    GENERIC_CASE(long double, 1e18L);
    GENERIC_CASE(int64_t, INT64_MIN + 100);
    GENERIC_CASE(size_t, SIZE_MAX - 100);

    WT_PHASE("generic shmem_signal_set / shmem_signal_add");
    counter[0] = counter[1] = 0;
    shmem_barrier_all();
    /* Two updates of one signal are ordered only across a fence. */
    shmem_signal_set(&counter[0], 40, right);
    shmem_fence();
    shmem_signal_add(&counter[0], 2, right);      /* 42 */
    shmem_signal_set(CTX, &counter[1], 1000, right);
    shmem_ctx_fence(CTX);
    shmem_signal_add(CTX, &counter[1], 7, right); /* 1007 */
    WT_EQ_NUM(shmem_signal_wait_until(&counter[0], SHMEM_CMP_GE, 42), 42,
              "signal_set then signal_add (generic, no context) from PE %d", left);
    WT_EQ_NUM(shmem_signal_wait_until(&counter[1], SHMEM_CMP_GE, 1007), 1007,
              "signal_set then signal_add (generic, with context) from PE %d", left);

    shmem_ctx_destroy(CTX);
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* counting: the counting puts of shmemx.h (docs/extensions.md).
 *   1. every form (typed, sized, mem; put and get; blocking and nbi;
 *      default and created context) raises the counter of the PE whose
 *      memory it touched by exactly one, with the data in place;
 *   2. under load: a ring of counting puts of 8 B to 8 KiB, each answered
 *      by a zero-length counting put as the acknowledgement; the receiver
 *      checks the counter's exact value and every byte each time it
 *      advances (a counter raised before its data shows the previous
 *      round's bytes);
 *   3. counters made and freed in a loop, several alive at once.
 *   counting [ROUNDS]   rounds of phase 2 (default 100) */
#include "weft_test.h"

#include <shmemx.h>

#define MAXB 8192
static const size_t sizes[] = {8, 24, 64, 520, 4096, MAXB, 1, 0};

static unsigned char *slot; /* symmetric, MAXB bytes: phase 2's landing zone */
static unsigned char *area; /* symmetric, 4 * 4 * 16 bytes: phase 1 */
static long zero_target;    /* static symmetric: zero-length acks land "here" */
static shmem_ctx_t ctx;

/* Phase 1, one element type: four puts to the right neighbour, four gets
 * from it, each form once. Element i of the puts from PE p is p*16+i+1. */
#define CT_FORMS(N, T, D, G)                                                                 \
    static void forms_##N(shmemx_ct_t ct, int right, int left)                               \
    {                                                                                         \
        WT_PHASE("forms: " #N);                                                               \
        T s[4], g[4];                                                                         \
        T *dst = (T *)(void *)area;                                                           \
        for (int i = 0; i < 4; i++)                                                           \
            s[i] = (T)(wt_me * 16 + i + 1);                                                   \
        shmemx_##N##_put_ct(ct, dst + 0, s, 4, right);                                        \
        shmemx_##N##_put_ct_nbi(ct, dst + 4, s, 4, right);                                    \
        shmemx_ctx_##N##_put_ct(ctx, ct, dst + 8, s, 4, right);                               \
        shmemx_ctx_##N##_put_ct_nbi(ctx, ct, dst + 12, s, 4, right);                          \
        shmem_quiet();                                                                        \
        shmem_ctx_quiet(ctx);                                                                 \
        shmemx_ct_wait(ct, 4);                                                                \
        WT_EQ_NUM(shmemx_ct_get(ct), 4, #N " puts from PE %d", left);                         \
        for (int i = 0; i < 16; i++)                                                          \
            WT_EQ_NUM(dst[i], (T)(left * 16 + i % 4 + 1), #N " element %d from PE %d", i, left); \
        shmem_barrier_all(); /* everyone has checked: the right PE's area is stable */        \
        for (int f = 0; f < 4; f++) {                                                         \
            memset(g, 0, sizeof g);                                                           \
            if (f == 0)                                                                       \
                shmemx_##N##_get_ct(ct, g, dst + 4 * f, 4, right);                            \
            else if (f == 1)                                                                  \
                shmemx_##N##_get_ct_nbi(ct, g, dst + 4 * f, 4, right);                        \
            else if (f == 2)                                                                  \
                shmemx_ctx_##N##_get_ct(ctx, ct, g, dst + 4 * f, 4, right);                   \
            else                                                                              \
                shmemx_ctx_##N##_get_ct_nbi(ctx, ct, g, dst + 4 * f, 4, right);               \
            shmem_quiet();                                                                    \
            shmem_ctx_quiet(ctx);                                                             \
            for (int i = 0; i < 4; i++)                                                       \
                WT_EQ_NUM(g[i], (T)(wt_me * 16 + i + 1), #N " get form %d element %d", f, i); \
        }                                                                                     \
        /* The left PE read this PE's memory four times. */                                   \
        shmemx_ct_wait(ct, 8);                                                                \
        shmem_barrier_all();                                                                  \
        WT_EQ_NUM(shmemx_ct_get(ct), 8, #N " puts and gets");                                 \
        shmemx_ct_set(ct, 0);                                                                 \
        WT_EQ_NUM(shmemx_ct_get(ct), 0, "after shmemx_ct_set(ct, 0)");                        \
        shmem_barrier_all();                                                                  \
    }
WEFT_RMA_TYPES(CT_FORMS)

/* The sized and mem forms, bytes from wt_byte. */
#define CT_SIZED(BITS, T)                                                                     \
    static void forms_size##BITS(shmemx_ct_t ct, int right, int left)                        \
    {                                                                                         \
        WT_PHASE("forms: put%d_ct", BITS);                                                    \
        unsigned char s[4 * sizeof(T)], g[4 * sizeof(T)];                                     \
        wt_fill_bytes(s, sizeof s, wt_me, 0, BITS);                                           \
        shmemx_put##BITS##_ct(ct, area, s, 1, right);                                         \
        shmemx_put##BITS##_ct_nbi(ct, area + sizeof(T), s + sizeof(T), 1, right);             \
        shmemx_ctx_put##BITS##_ct(ctx, ct, area + 2 * sizeof(T), s + 2 * sizeof(T), 1, right); \
        shmemx_ctx_put##BITS##_ct_nbi(ctx, ct, area + 3 * sizeof(T), s + 3 * sizeof(T), 1,    \
                                      right);                                                 \
        shmem_quiet();                                                                        \
        shmem_ctx_quiet(ctx);                                                                 \
        shmemx_ct_wait(ct, 4);                                                                \
        WT_CHECK_BYTES(area, sizeof s, left, 0, BITS, "putSIZE_ct");                          \
        shmem_barrier_all();                                                                  \
        shmemx_get##BITS##_ct(ct, g, area, 1, right);                                         \
        shmemx_get##BITS##_ct_nbi(ct, g + sizeof(T), area + sizeof(T), 1, right);             \
        shmemx_ctx_get##BITS##_ct(ctx, ct, g + 2 * sizeof(T), area + 2 * sizeof(T), 1, right); \
        shmemx_ctx_get##BITS##_ct_nbi(ctx, ct, g + 3 * sizeof(T), area + 3 * sizeof(T), 1,    \
                                      right);                                                 \
        shmem_quiet();                                                                        \
        shmem_ctx_quiet(ctx);                                                                 \
        WT_CHECK_BYTES(g, sizeof g, wt_me, 0, BITS, "getSIZE_ct");                            \
        shmemx_ct_wait(ct, 8);                                                                \
        shmem_barrier_all();                                                                  \
        WT_EQ_NUM(shmemx_ct_get(ct), 8, "put%d_ct and get%d_ct", BITS, BITS);                 \
        shmemx_ct_set(ct, 0);                                                                 \
        shmem_barrier_all();                                                                  \
    }
WEFT_RMA_SIZES(CT_SIZED)

static void forms_mem(shmemx_ct_t ct, int right, int left)
{
    WT_PHASE("forms: putmem_ct");
    unsigned char s[64], g[64];
    wt_fill_bytes(s, sizeof s, wt_me, 0, 7);
    shmemx_putmem_ct(ct, area, s, 16, right);
    shmemx_putmem_ct_nbi(ct, area + 16, s + 16, 16, right);
    shmemx_ctx_putmem_ct(ctx, ct, area + 32, s + 32, 16, right);
    shmemx_ctx_putmem_ct_nbi(ctx, ct, area + 48, s + 48, 16, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmemx_ct_wait(ct, 4);
    WT_CHECK_BYTES(area, sizeof s, left, 0, 7, "putmem_ct");
    shmem_barrier_all();
    shmemx_getmem_ct(ct, g, area, 16, right);
    shmemx_getmem_ct_nbi(ct, g + 16, area + 16, 16, right);
    shmemx_ctx_getmem_ct(ctx, ct, g + 32, area + 32, 16, right);
    shmemx_ctx_getmem_ct_nbi(ctx, ct, g + 48, area + 48, 16, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    WT_CHECK_BYTES(g, sizeof g, wt_me, 0, 7, "getmem_ct");
    shmemx_ct_wait(ct, 8);
    shmem_barrier_all();
    WT_EQ_NUM(shmemx_ct_get(ct), 8, "putmem_ct and getmem_ct");
    shmemx_ct_set(ct, 0);
    shmem_barrier_all();
}

/* Phase 2: round r sends sizes[r % n] bytes, tagged r, to the right PE
 * with form r % 4, then receives the left PE's round r and acknowledges it
 * with a zero-length counting put; the next round waits for the right
 * PE's acknowledgement, so the slot is never overwritten unchecked. */
static void ring_under_load(int rounds, int right, int left)
{
    shmemx_ct_t data, ack;
    shmemx_ct_create(&data);
    shmemx_ct_create(&ack);
    static unsigned char src[MAXB];
    size_t nsizes = sizeof sizes / sizeof sizes[0];
    for (int r = 0; r < rounds; r++) {
        size_t len = sizes[(size_t)r % nsizes];
        WT_PHASE("ring round %d: %zu bytes", r, len);
        wt_fill_bytes(src, len, wt_me, 0, (unsigned)r);
        switch (r % 4) {
        case 0: shmemx_putmem_ct(data, slot, src, len, right); break;
        case 1: shmemx_putmem_ct_nbi(data, slot, src, len, right); shmem_quiet(); break;
        case 2: shmemx_ctx_putmem_ct(ctx, data, slot, src, len, right); break;
        default: shmemx_ctx_putmem_ct_nbi(ctx, data, slot, src, len, right); break;
        }
        /* An increment completes at the quiet of its context; the default
         * context's (cases 0 and 1) also by progress while this PE waits
         * for its acknowledgement, which the docs promise. */
        if (r % 4 >= 2)
            shmem_ctx_quiet(ctx);
        shmemx_ct_wait(data, r + 1);
        WT_EQ_NUM(shmemx_ct_get(data), r + 1, "data counter after round %d", r);
        WT_CHECK_BYTES(slot, len, left, 0, (unsigned)r, "counting put seen by its counter");
        shmemx_putmem_ct(ack, &zero_target, NULL, 0, left);
        shmemx_ct_wait(ack, r + 1);
        WT_EQ_NUM(shmemx_ct_get(ack), r + 1, "ack counter after round %d", r);
    }
    shmem_ctx_quiet(ctx);
    shmemx_ct_free(&ack);
    shmemx_ct_free(&data);
    WT_CHECK(data == NULL && ack == NULL, "shmemx_ct_free leaves the handle NULL");
}

/* Phase 3: counters made and freed in a loop, three alive at once, each
 * counting a different number of puts. */
static void create_free_loop(int right, int left)
{
    for (int it = 0; it < 24; it++) {
        WT_PHASE("create/free iteration %d", it);
        shmemx_ct_t c[3];
        for (int k = 0; k < 3; k++) {
            shmemx_ct_create(&c[k]);
            WT_EQ_NUM(shmemx_ct_get(c[k]), 0, "new counter %d", k);
        }
        shmem_barrier_all(); /* checked before any peer counts */
        for (int k = 0; k < 3; k++)
            for (int j = 0; j <= k; j++)
                shmemx_long_put_ct(c[k], &zero_target, &zero_target, 0, right);
        for (int k = 0; k < 3; k++) {
            shmemx_ct_wait(c[k], k + 1);
            WT_EQ_NUM(shmemx_ct_get(c[k]), k + 1, "counter %d from PE %d", k, left);
        }
        for (int k = 0; k < 3; k++)
            shmemx_ct_free(&c[k]);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 100;
    wt_init("counting");
    int right = (wt_me + 1) % wt_npes, left = (wt_me + wt_npes - 1) % wt_npes;
    slot = shmem_calloc(MAXB, 1);
    area = shmem_calloc(4 * 4 * 16, 1);
    WT_CHECK(slot && area, "shmem_calloc");
    if (shmem_ctx_create(0, &ctx) != 0)
        ctx = SHMEM_CTX_DEFAULT;
    shmemx_ct_t ct;
    shmemx_ct_create(&ct);
    WT_EQ_NUM(shmemx_ct_get(ct), 0, "a new counter");
    shmem_barrier_all();
#define CALL_FORMS(N, T, D, G) forms_##N(ct, right, left);
    WEFT_RMA_TYPES(CALL_FORMS)
#define CALL_SIZED(BITS, T) forms_size##BITS(ct, right, left);
    WEFT_RMA_SIZES(CALL_SIZED)
    forms_mem(ct, right, left);
    /* ct_set to a value, then counting puts add to it. */
    WT_PHASE("ct_set then count");
    shmemx_ct_set(ct, 40);
    shmem_barrier_all();
    shmemx_putmem_ct(ct, slot, slot, 0, right);
    shmemx_ct_wait(ct, 41);
    WT_EQ_NUM(shmemx_ct_get(ct), 41, "ct_set(40) plus one counting put");
    shmemx_ct_free(&ct);

    ring_under_load(rounds, right, left);
    create_free_loop(right, left);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    shmem_free(area);
    shmem_free(slot);
    wt_finish();
    return 0;
}

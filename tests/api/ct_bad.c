/* SPDX-License-Identifier: BSD-3-Clause */
/* ct_bad: invalid use of counting puts and one-sided append must end the
 * job promptly with a message naming the routine and the argument (or, for
 * an overflowing push, the sizes and the PE); run under expect-failure.sh
 * like bad_args. The last PE misbehaves; the others wait in a barrier.
 *   push-overflow   two 64-byte pushes into PE 0's 100-byte buffer
 *   ct-null         shmemx_ct_get(NULL)                        -> ct
 *   ct-freed        shmemx_putmem_ct on a freed counter        -> ct
 *   ct-pe           shmemx_putmem_ct to pe = n_pes             -> pe
 *   ct-dest-stack   shmemx_long_put_ct, dest on the stack      -> dest
 *   get-ct-overflow shmemx_long_get_ct of SIZE_MAX/8 + 2       -> nelems
 *   oct-nonsym      shmemx_oct_create on a stack buffer        -> buffer
 *   oct-len         shmemx_oct_create, len differs from PE 0's -> len
 *   push-pe         shmemx_ctx_push to pe = -1                 -> pe
 *   oct-null        shmemx_oct_wait(NULL, 8)                   -> oct */
#include "weft_test.h"

#include <shmemx.h>

static long sym_long[16];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "push-overflow";
    wt_init("ct_bad");
    int bad = wt_me == wt_npes - 1;
    long src[16] = {0};
    unsigned char *buf = shmem_malloc(128);
    shmemx_ct_t ct;
    shmemx_ct_create(&ct);
    shmemx_oct_t oct;
    if (!strcmp(mode, "oct-nonsym") || !strcmp(mode, "oct-len")) {
        unsigned char stack_buf[100];
        WT_PHASE("collective: %s", mode);
        if (bad)
            fprintf(stderr, "ct_bad: PE %d makes the invalid call \"%s\"\n", wt_me, mode);
        if (bad && !strcmp(mode, "oct-nonsym"))
            shmemx_oct_create(&oct, stack_buf, sizeof stack_buf);
        else
            shmemx_oct_create(&oct, buf, bad ? 64 : 100);
    } else {
        shmemx_oct_create(&oct, buf, 100);
    }
    /* A counter every PE has freed; the bad PE kept its handle. */
    shmemx_ct_t stale, gone;
    shmemx_ct_create(&gone);
    stale = gone;
    shmemx_ct_free(&gone);
    shmem_barrier_all();
    if (bad) {
        WT_PHASE("invalid call: %s", mode);
        fprintf(stderr, "ct_bad: PE %d makes the invalid call \"%s\"\n", wt_me, mode);
        if (!strcmp(mode, "push-overflow")) {
            shmemx_push(oct, src, 64, 0);
            shmemx_push(oct, src, 64, 0);
        } else if (!strcmp(mode, "ct-null")) {
            (void)shmemx_ct_get(NULL);
        } else if (!strcmp(mode, "ct-freed")) {
            shmemx_putmem_ct(stale, buf, src, 8, 0); /* dest in the heap: the fast path */
        } else if (!strcmp(mode, "ct-pe")) {
            shmemx_putmem_ct(ct, sym_long, src, 8, wt_npes);
        } else if (!strcmp(mode, "ct-dest-stack")) {
            long stack_dest[4];
            shmemx_long_put_ct(ct, stack_dest, src, 4, 0);
        } else if (!strcmp(mode, "get-ct-overflow")) {
            shmemx_long_get_ct(ct, src, sym_long, SIZE_MAX / 8 + 2, 0);
        } else if (!strcmp(mode, "push-pe")) {
            shmemx_ctx_push(SHMEM_CTX_DEFAULT, oct, src, 8, -1);
        } else if (!strcmp(mode, "oct-null")) {
            shmemx_oct_wait(NULL, 8);
        } else {
            WT_FAIL("unknown mode %s", mode);
        }
        shmem_quiet();
        WT_FAIL("the invalid call \"%s\" returned", mode);
    }
    shmem_barrier_all();
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* mixed_api.c: one program using OpenSHMEM and GASNet on one runtime. The
 * GASNet segment is symmetric memory: shmem_ptr reaches a node peer's
 * segment, shmem_putmem and atomics work on it and GASNet gets see the
 * result; GASNet puts are seen by shmem loads after shmem_barrier_all;
 * shmem_malloc still works after gasnet_attach, and an active message's
 * handler may use OpenSHMEM's local view. Then active messages and atomics
 * interleaved to one node: where the atomics are software (the mixed path,
 * WEFT_AMO=software) both travel through the one active-message engine. */
#include <shmem.h>

#include "gn_test.h"

static long *seg;
static volatile long handled;
static void h_sum(gasnet_token_t t, gasnet_handlerarg_t v)
{
    (void)t;
    handled += v;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {{0, (void (*)())h_sum}};
    gt_start("mixed_api", &argc, &argv, table, 1, 64 * 1024);
    shmem_init(); /* nests inside gasnet_init's initialization */
    GT_CHECK(shmem_my_pe() == gt_me && shmem_n_pes() == gt_n, "identity");
    seg = gt_seg[gt_me].addr;
    int right = (gt_me + 1) % gt_n, left = (gt_me + gt_n - 1) % gt_n;

    GT_PHASE("shmem on the segment");
    GT_CHECK(shmem_addr_accessible(seg, right), "segment is symmetric");
    long v = 1000 + gt_me;
    shmem_putmem(seg, &v, sizeof v, right);
    shmem_long_atomic_add(seg + 1, gt_me + 1, 0);
    shmem_barrier_all();
    GT_CHECK(seg[0] == 1000 + left, "shmem_putmem into the segment: %ld", seg[0]);
    long got = (long)gasnet_get_val(0, (char *)gt_seg[0].addr + sizeof(long), sizeof(long));
    GT_CHECK(got == (long)gt_n * (gt_n + 1) / 2, "atomics seen by gasnet_get_val: %ld", got);
    long *p = shmem_ptr(seg, right);
    if (p) /* direct path: the same memory GASNet writes */
        GT_CHECK(p[0] == 1000 + gt_me, "shmem_ptr view %ld", p[0]);

    GT_PHASE("gasnet on the segment, shmem reads");
    gasnet_put_val(left, (char *)gt_seg[left].addr + 2 * sizeof(long), 7 * gt_me, sizeof(long));
    shmem_barrier_all();
    GT_CHECK(shmem_long_g(seg + 2, gt_me) == 7 * right, "gasnet put seen by shmem_g");

    GT_PHASE("shmem_malloc after attach, active messages meanwhile");
    long *h = shmem_malloc(16 * sizeof(long));
    GT_CHECK(h != NULL, "shmem_malloc");
    shmem_long_p(h, gt_me, right);
    gasnet_AMRequestShort1(right, table[0].index, gt_me + 1);
    shmem_barrier_all();
    GT_CHECK(*h == left, "shmem_long_p into shmem_malloc memory");
    GASNET_BLOCKUNTIL(handled == left + 1);

    GT_PHASE("active messages and fetch-adds interleaved");
    shmem_barrier_all();
    handled = 0;
    seg[3] = 0;
    shmem_barrier_all();
    long prev = -1;
    for (int i = 0; i < 64; i++) {
        gasnet_AMRequestShort1(right, table[0].index, 1);
        long old = shmem_long_atomic_fetch_add(seg + 3, 1, right);
        GT_CHECK(old == i && old > prev, "fetch-add %d returned %ld", i, old);
        prev = old;
        gasnet_AMPoll();
    }
    GASNET_BLOCKUNTIL(handled == 64);
    shmem_barrier_all();
    GT_CHECK(seg[3] == 64, "fetch-adds from the left neighbour: %ld, want 64", seg[3]);
    shmem_free(h);
    shmem_finalize(); /* matched by the nesting: the runtime stays up */
    gt_finish();
}

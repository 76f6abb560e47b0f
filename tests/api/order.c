/* SPDX-License-Identifier: BSD-3-Clause */
/* order: memory ordering and completion.
 *   fence: each PE puts a data block (small: inject path; 64 KiB: bulk
 *     path; and with put_nbi), shmem_fence, then a flag, to its right
 *     neighbour; the neighbour waits for the flag and must then see the
 *     whole block of that iteration; an ack paces the next iteration.
 *     ITER iterations (argv[1], default 200), also via shmem_ctx_fence.
 *   quiet: a writer puts to a target, shmem_quiet, then signals a third PE
 *     (the checker), which reads the target with shmem_get and must see the
 *     data: quiet means remote completion, not just ordering.
 *   barrier_all: repeated with double-buffered all-to-all shmem_p writes;
 *     after each barrier every slot holds the value of that round.
 *   sync_all: same with shmem_quiet + shmem_sync_all. */
#include "weft_test.h"

static int me, npes, right, left, ITER = 200;

#define SMALL 8        /* longs */
#define LARGE 8192     /* longs = 64 KiB */

static void fence_test(int large, int nbi, int use_ctx)
{
    size_t n = large ? LARGE : SMALL;
    long *data = shmem_calloc(n, sizeof(long));
    long *flag = shmem_calloc(2, sizeof(long)); /* [0] flag from left, [1] ack from right */
    long *src = malloc(n * sizeof(long));
    WT_CHECK(data && flag && src, "allocation");
    for (int it = 1; it <= ITER; it++) {
        WT_PHASE("fence ordering: %s %s%s, iteration %d", nbi ? "put_nbi" : "put",
                 large ? "64 KiB" : "64 B", use_ctx ? " (ctx_fence)" : "", it);
        for (size_t i = 0; i < n; i++)
            src[i] = (long)it * 1000003L + (long)i * 7 + me;
        if (nbi)
            shmem_long_put_nbi(data, src, n, right);
        else
            shmem_long_put(data, src, n, right);
        if (use_ctx)
            shmem_ctx_fence(SHMEM_CTX_DEFAULT);
        else
            shmem_fence();
        shmem_long_p(&flag[0], it, right);
        /* receive */
        shmem_long_wait_until(&flag[0], SHMEM_CMP_EQ, it);
        /* check first, last and a stride of elements (all of them for small) */
        for (size_t i = 0; i < n; i += large ? 61 : 1) {
            long want = (long)it * 1000003L + (long)i * 7 + left;
            if (data[i] != want)
                WT_FAIL("flag of iteration %d arrived but data[%zu] = %ld, expected %ld "
                        "(data of iteration %ld?): the fence did not order the put before "
                        "the flag", it, i, data[i], want, (data[i] - (long)i * 7 - left) / 1000003L);
        }
        if (data[n - 1] != (long)it * 1000003L + (long)(n - 1) * 7 + left)
            WT_FAIL("flag of iteration %d arrived but the last element is stale", it);
        /* ack to the writer, wait for ours before overwriting again; the
         * nbi source buffer is reusable once the put completed: quiet */
        shmem_long_p(&flag[1], it, left);
        shmem_long_wait_until(&flag[1], SHMEM_CMP_EQ, it);
        if (nbi)
            shmem_quiet();
    }
    shmem_barrier_all();
    free(src);
    shmem_free(flag);
    shmem_free(data);
}

static void quiet_test(void)
{
    /* writer me -> target right; checker (me+2)%n reads it. slot[w] on the
     * target is written only by writer w. */
    int checker = (me + 2) % npes, writer = (me + npes - 2) % npes;
    int target_of_writer = (writer + 1) % npes;
    size_t n = 1024;
    long *slots = shmem_calloc((size_t)npes * n, sizeof(long));
    long *sig = shmem_calloc(2, sizeof(long)); /* [0] from writer, [1] ack from checker */
    long *src = malloc(n * sizeof(long)), *got = malloc(n * sizeof(long));
    WT_CHECK(slots && sig && src && got, "allocation");
    int iters = ITER / 4 + 1;
    for (int it = 1; it <= iters; it++) {
        WT_PHASE("quiet: iteration %d", it);
        for (size_t i = 0; i < n; i++)
            src[i] = (long)it * 100000L + (long)i + me * 7;
        shmem_long_put_nbi(slots + (size_t)me * n, src, n, right);
        shmem_quiet();
        shmem_long_atomic_set(&sig[0], it, checker);
        /* as checker */
        shmem_long_wait_until(&sig[0], SHMEM_CMP_EQ, it);
        shmem_long_get(got, slots + (size_t)writer * n, n, target_of_writer);
        for (size_t i = 0; i < n; i++)
            if (got[i] != (long)it * 100000L + (long)i + writer * 7)
                WT_FAIL("after PE %d's shmem_quiet and signal, PE %d's data[%zu] read with "
                        "shmem_get is %ld, expected %ld: quiet returned before the put was "
                        "complete at the target", writer, target_of_writer, i, got[i],
                        (long)it * 100000L + (long)i + writer * 7);
        shmem_long_atomic_set(&sig[1], it, writer);
        shmem_long_wait_until(&sig[1], SHMEM_CMP_EQ, it);
    }
    shmem_barrier_all();
    free(src);
    free(got);
    shmem_free(sig);
    shmem_free(slots);
}

static void barrier_test(int sync)
{
    long *slot = shmem_calloc(2 * (size_t)npes, sizeof(long));
    WT_CHECK(slot != NULL, "allocation");
    shmem_barrier_all();
    int rounds = ITER * 2;
    for (int k = 1; k <= rounds; k++) {
        WT_PHASE("%s round %d", sync ? "shmem_sync_all" : "shmem_barrier_all", k);
        int b = k % 2;
        for (int i = 0; i < npes; i++) {
            int pe = (me + i) % npes;
            shmem_long_p(&slot[b * npes + me], k, pe);
        }
        if (sync) {
            shmem_quiet();
            shmem_sync_all();
        } else {
            shmem_barrier_all();
        }
        for (int pe = 0; pe < npes; pe++)
            if (slot[b * npes + pe] != k)
                WT_FAIL("after %s of round %d, the value PE %d put before it is %ld", sync ?
                        "shmem_quiet + shmem_sync_all" : "shmem_barrier_all", k, pe,
                        slot[b * npes + pe]);
    }
    shmem_barrier_all();
    shmem_free(slot);
}

int main(int argc, char **argv)
{
    wt_init("order");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (argc > 1)
        ITER = atoi(argv[1]);
    fence_test(0, 0, 0);
    fence_test(1, 0, 0);
    fence_test(0, 1, 1);
    fence_test(1, 1, 0);
    quiet_test();
    barrier_test(0);
    barrier_test(1);
    wt_finish();
    return 0;
}

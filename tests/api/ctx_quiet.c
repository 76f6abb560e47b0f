/* SPDX-License-Identifier: BSD-3-Clause */
/* ctx_quiet: a quiet on one context neither waits for another context's
 * operations nor completes them.
 *   PE 0 has two contexts, A and B. A target T that PE 0 reaches through
 *   libfabric (PE 1, or the first PE not mapped directly) stops making
 *   progress for STALL seconds: it tells PE 0 it is about to, and sleeps
 *   (the job runs with WEFT_PROGRESS_THREAD=off, so nothing serves its
 *   endpoint meanwhile; its last call is a p, which waits for nothing).
 *   PE 0 then issues on B a 256 KiB putmem_nbi and a fetch_add_nbi to T,
 *   which cannot complete before T wakes, and on A a 64 KiB putmem_nbi to
 *   itself, and calls shmem_ctx_quiet(A):
 *     it must return in well under STALL/2 (it did not wait for B), with
 *       A's data in place, and B's fetch result still unwritten (T has not
 *       run the atomic, so nothing could have completed it);
 *   then shmem_ctx_quiet(B) must wait for T (return after T woke) and leave
 *   B's result and data complete (A's quiet did not mark them complete).
 *   When every PE is reached directly there is nothing to stall; the
 *   operations are still checked.
 *   Variant "expect-wait" (WEFT_CTX_ENDPOINTS=0: B shares A's endpoint)
 *   must fail with "waited": it shows that the check can catch a quiet
 *   that waits for another context.
 *   argv[1]: STALL seconds (default 2). */
#include "weft_test.h"

#include <time.h>

#define BIG (256 * 1024)
#define SMALL (64 * 1024)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long ready, counter;
int target_g, stallable_g;

int main(int argc, char **argv)
{
    int stall = argc > 1 ? atoi(argv[1]) : 2;
    wt_init("ctx_quiet");
    int me = wt_me, npes = wt_npes;
    WT_CHECK(npes >= 2, "needs at least 2 PEs");
    unsigned char *big = shmem_malloc(BIG), *small = shmem_malloc(SMALL);
    unsigned char *src_big = malloc(BIG), *src_small = malloc(SMALL), *seen = malloc(BIG);
    WT_CHECK(big && small && src_big && src_small && seen, "allocation");

    /* The stalled target: the first PE that PE 0 does not map directly
     * (only PE 0 knows; it tells everyone). */
    if (me == 0) {
        int t = 1;
        for (int p = 1; p < npes; p++)
            if (!shmem_ptr(big, p)) {
                t = p;
                break;
            }
        for (int p = 0; p < npes; p++) {
            shmem_int_p(&target_g, t, p);
            shmem_int_p(&stallable_g, shmem_ptr(big, t) == NULL, p);
        }
    }
    shmem_barrier_all();
    int target = target_g, stallable = stallable_g;

    shmem_ctx_t a = SHMEM_CTX_INVALID, b = SHMEM_CTX_INVALID;
    WT_PHASE("create contexts A and B");
    WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &a) == 0, "shmem_ctx_create(A)");
    WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &b) == 0, "shmem_ctx_create(B)");
    if (me == 0) {
        /* Connections and address set-up need the peer: do them now. */
        WT_PHASE("warm up both contexts");
        long scratch;
        shmem_ctx_putmem(b, big, src_big, 8, target);
        (void)shmem_ctx_long_atomic_fetch_add(b, &counter, 0, target);
        shmem_ctx_getmem(b, &scratch, big, 8, target);
        shmem_ctx_quiet(b);
        shmem_ctx_putmem(a, small, src_small, 8, 0);
        shmem_ctx_getmem(a, &scratch, small, 8, 0);
        shmem_ctx_quiet(a);
    }
    shmem_barrier_all();

    if (me == target) {
        /* A p (an injected write: nothing to wait for) is the last call
         * before the sleep; a quiet here would keep progressing while PE 0
         * already issues what must wait for the sleep to end. */
        WT_PHASE("tell PE 0, then sleep %d s without progress", stall);
        shmem_long_p(&ready, 1, 0);
        if (stallable)
            sleep((unsigned)stall);
    } else if (me == 0) {
        WT_PHASE("wait until PE %d stops", target);
        shmem_long_wait_until(&ready, SHMEM_CMP_EQ, 1);
        /* Let the target leave the p it told us with. */
        struct timespec settle = {0, 200 * 1000 * 1000};
        nanosleep(&settle, NULL);
        double t0 = now();
        wt_fill_bytes(src_big, BIG, me, 0, 7);
        wt_fill_bytes(src_small, SMALL, me, 0, 9);
        long fetched = -12345;
        WT_PHASE("issue on B to the stalled PE %d, on A to myself", target);
        shmem_ctx_putmem_nbi(b, big, src_big, BIG, target);
        shmem_ctx_long_atomic_fetch_add_nbi(b, &fetched, &counter, 1, target);
        shmem_ctx_putmem_nbi(a, small, src_small, SMALL, 0);
        WT_PHASE("shmem_ctx_quiet(A)");
        shmem_ctx_quiet(a);
        double ta = now() - t0;
        WT_CHECK_BYTES(small, SMALL, me, 0, 9, "context A's put, after shmem_ctx_quiet(A)");
        if (stallable) {
            WT_CHECK(ta < stall / 2.0,
                     "shmem_ctx_quiet(A) waited %.3f s, for context B's operations to the "
                     "stalled PE %d (stall %d s)", ta, target, stall);
            WT_CHECK(__atomic_load_n(&fetched, __ATOMIC_ACQUIRE) == -12345,
                     "B's fetch_add_nbi result was written (%ld) before the stalled PE %d "
                     "could run the atomic", fetched, target);
        }
        WT_PHASE("shmem_ctx_quiet(B)");
        shmem_ctx_quiet(b);
        double tb = now() - t0;
        WT_EQ_NUM(fetched, 0, "B's fetch_add_nbi result after shmem_ctx_quiet(B)");
        if (stallable)
            WT_CHECK(tb > stall / 2.0,
                     "shmem_ctx_quiet(B) returned after %.3f s, before the stalled PE %d woke "
                     "(%d s): B's operations were taken as complete", tb, target, stall);
        shmem_ctx_getmem(a, seen, big, BIG, target);
        WT_CHECK_BYTES(seen, BIG, me, 0, 7, "B's put, read back after shmem_ctx_quiet(B)");
        printf("ctx_quiet: target PE %d %s; quiet(A) %.3f s, quiet(B) %.3f s\n", target,
               stallable ? "stalled" : "direct (no stall)", ta, tb);
    }
    shmem_barrier_all();
    if (me == target)
        WT_EQ_NUM(counter, 1, "the counter B incremented");
    shmem_ctx_destroy(a);
    shmem_ctx_destroy(b);
    free(src_big);
    free(src_small);
    free(seen);
    shmem_free(big);
    shmem_free(small);
    wt_finish();
    return 0;
}

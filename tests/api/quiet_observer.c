/* SPDX-License-Identifier: BSD-3-Clause */
/* quiet_observer: what a quiet completes is visible to a third PE while the
 * target computes. Each round names an origin, a target and an observer
 * (rotating). The target spins without calling weft for a few
 * milliseconds; meanwhile the origin adds to a heap counter at the target
 * (shmem_atomic_add), writes a .bss word, an 8-byte heap word and a
 * 64 KiB heap block there (shmem_p, shmem_put, shmem_put_nbi), quiets -
 * on the default context and on a created one - and raises a flag at the
 * observer. In every other pair of rounds the block goes instead by a
 * blocking shmem_put on a context of its own, quieted alone: over tcp that
 * put may return before the target has the data (weft_ofi's
 * writes_flushed), and that quiet must still complete it by itself
 * (the other updates leave by another endpoint). Removing that flush did
 * not make this test fail in 9 runs (the target's progress, once it comes,
 * took the write's socket first), so it shows the path works, not that it
 * would catch every mistake. The observer, seeing the flag,
 * reads the target with shmem_g: every update must be there, although the
 * target has not yet served anything (weft's quiet on shm relies on the
 * provider queueing injected operations in order at the target; on other
 * providers it flushes them with a read). Run with the progress thread off
 * too, so that only the target's own calls make progress.
 * Arguments: rounds (default 30), hold in microseconds (default 3000). */
#include <time.h>

#include "weft_test.h"

#define BLOCK 8192 /* longs: 64 KiB, beyond every provider's inject size */

long counter_bss, word_bss;
long flag;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    wt_init("quiet_observer");
    int rounds = argc > 1 ? atoi(argv[1]) : 30;
    double hold = argc > 2 ? atof(argv[2]) : 3000;
    WT_CHECK(wt_npes >= 3, "needs 3 PEs or more, has %d", wt_npes);
    long *counter = shmem_calloc(2, sizeof(long));
    long *word = shmem_calloc(1, sizeof(long));
    long *block = shmem_calloc(BLOCK, sizeof(long));
    long *src = malloc(BLOCK * sizeof(long));
    WT_CHECK(src != NULL, "malloc failed");
    shmem_ctx_t ctx;
    WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");
    shmem_ctx_t block_ctx;
    WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &block_ctx) == 0, "shmem_ctx_create failed");
    for (int r = 1; r <= rounds; r++) {
        int origin = r % wt_npes, target = (r + 1) % wt_npes, observer = (r + 2) % wt_npes;
        int on_ctx = r & 1;
        shmem_ctx_t c = on_ctx ? ctx : SHMEM_CTX_DEFAULT;
        WT_PHASE("round %d: origin %d target %d observer %d%s", r, origin, target, observer,
                 on_ctx ? " (created context)" : "");
        shmem_barrier_all();
        if (wt_me == target) {
            double t0 = now_us();
            while (now_us() - t0 < hold)
                ; /* computing: no weft call, so no progress but the thread's */
        } else if (wt_me == origin) {
            /* The target's counters hold the round it last was a target
             * in (n rounds ago, or 0): the adds bring them to r. */
            long add = r > wt_npes ? wt_npes : r;
            shmem_ctx_long_atomic_add(c, &counter[0], add, target);
            shmem_ctx_long_atomic_add(c, &counter_bss, add, target);
            shmem_ctx_long_p(c, &word_bss, r, target);
            long v = r;
            shmem_ctx_long_put(c, word, &v, 1, target);
            for (int i = 0; i < BLOCK; i++)
                src[i] = r * 100000L + i;
            if (r & 2) {
                shmem_ctx_long_put(block_ctx, block, src, BLOCK, target);
                shmem_ctx_quiet(block_ctx);
            } else {
                shmem_ctx_long_put_nbi(c, block, src, BLOCK, target);
            }
            shmem_ctx_quiet(c);
            shmem_long_p(&flag, r, observer);
        } else if (wt_me == observer) {
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, r);
            WT_EQ_NUM(shmem_long_g(&counter[0], target), (long)r, "heap counter added to");
            WT_EQ_NUM(shmem_long_g(&counter_bss, target), (long)r, ".bss counter added to");
            WT_EQ_NUM(shmem_long_g(&word_bss, target), (long)r, ".bss word written");
            WT_EQ_NUM(shmem_long_g(word, target), (long)r, "heap word written");
            WT_EQ_NUM(shmem_long_g(&block[0], target), r * 100000L, "block's first word");
            WT_EQ_NUM(shmem_long_g(&block[BLOCK - 1], target), r * 100000L + BLOCK - 1,
                      "block's last word");
        }
    }
    shmem_ctx_destroy(block_ctx);
    shmem_ctx_destroy(ctx);
    shmem_free(block);
    free(src);
    shmem_free(word);
    shmem_free(counter);
    wt_finish();
    return 0;
}

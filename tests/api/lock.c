/* SPDX-License-Identifier: BSD-3-Clause */
/* lock: shmem_set_lock / shmem_test_lock / shmem_clear_lock.
 *   mutual exclusion: every PE increments counters on PE 0 and on a rotating
 *     PE with a NON-atomic read (shmem_g) / write (shmem_p) under the lock,
 *     ITER times (argv[1], default 50); the final counts are exact only if
 *     the critical sections never overlapped and clear_lock completed the
 *     puts of the critical section (no explicit quiet is used)
 *   test_lock: returns 0 and takes a free lock, returns 1 (non-zero) when
 *     another PE holds it; a lock held does not affect another lock
 *   test_lock acquisition loop: the same counting with test_lock spinning
 *   the lock in a static (.bss) variable and in the heap */
#include "weft_test.h"

long static_lock;
long counters[2];

static int me, npes, ITER = 50;

static void count_with(long *lock, long *ctr, int use_test, const char *where)
{
    WT_PHASE("counting under %s lock (%s)", where, use_test ? "shmem_test_lock spin"
                                                            : "shmem_set_lock");
    ctr[0] = ctr[1] = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITER; i++) {
        if (use_test) {
            long spins = 0;
            while (shmem_test_lock(lock) != 0)
                spins++;
        } else {
            shmem_set_lock(lock);
        }
        int pe2 = i % npes;
        long v0 = shmem_long_g(&ctr[0], 0);
        long v1 = shmem_long_g(&ctr[1], pe2);
        shmem_long_p(&ctr[0], v0 + 1, 0);
        shmem_long_p(&ctr[1], v1 + 1, pe2);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    if (me == 0)
        WT_EQ_NUM(ctr[0], (long)npes * ITER,
                  "counter on PE 0 after %d locked increments from each of %d PEs (%s lock, %s)",
                  ITER, npes, where, use_test ? "test_lock" : "set_lock");
    /* ctr[1] on PE p was incremented by every PE for the i with i % n == p */
    long per_pe = 0;
    for (int i = 0; i < ITER; i++)
        per_pe += (i % npes) == me;
    WT_EQ_NUM(ctr[1], per_pe * npes, "rotating counter on PE %d (%s lock)", me, where);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    wt_init("lock");
    me = wt_me;
    npes = wt_npes;
    if (argc > 1)
        ITER = atoi(argv[1]);
    long *heap_lock = shmem_calloc(2, sizeof(long));
    long *hctr = shmem_calloc(2, sizeof(long));
    WT_CHECK(heap_lock && hctr, "allocation");

    WT_PHASE("shmem_test_lock semantics");
    int holder = npes - 1;
    if (me == holder)
        WT_EQ_NUM(shmem_test_lock(&heap_lock[0]), 0, "shmem_test_lock on a free lock");
    shmem_barrier_all();
    if (me != holder)
        WT_CHECK(shmem_test_lock(&heap_lock[0]) != 0,
                 "shmem_test_lock returned 0 (acquired) while PE %d holds the lock", holder);
    /* another lock is independent */
    if (me == 0) {
        WT_EQ_NUM(shmem_test_lock(&heap_lock[1]), 0, "shmem_test_lock on a second, free lock");
        shmem_clear_lock(&heap_lock[1]);
    }
    shmem_barrier_all();
    if (me == holder)
        shmem_clear_lock(&heap_lock[0]);
    shmem_barrier_all();
    /* after the clear, exactly one PE wins a round of test_lock */
    long *wins = shmem_calloc(1, sizeof(long));
    WT_CHECK(wins != NULL, "allocation");
    int got = shmem_test_lock(&heap_lock[0]) == 0;
    if (got)
        shmem_long_atomic_inc(wins, 0);
    shmem_barrier_all();
    if (me == 0)
        WT_EQ_NUM(*wins, 1, "PEs that acquired a free lock with one shmem_test_lock each");
    if (got)
        shmem_clear_lock(&heap_lock[0]);
    shmem_barrier_all();

    count_with(&static_lock, counters, 0, ".bss");
    count_with(&heap_lock[0], hctr, 0, "heap");
    count_with(&static_lock, counters, 1, ".bss");
    count_with(&heap_lock[1], hctr, 1, "heap");

    shmem_free(wins);
    shmem_free(hctr);
    shmem_free(heap_lock);
    wt_finish();
    return 0;
}

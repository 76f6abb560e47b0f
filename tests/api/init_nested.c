/* SPDX-License-Identifier: BSD-3-Clause */
/* init_nested: OpenSHMEM 1.6 initialization state.
 *   nest (default): shmem_query_initialized is 0 before shmem_init, 1 after
 *     it; shmem_init and shmem_init_thread may be called again while
 *     initialized (init_thread then returns 0 and reports the level in
 *     force); each needs its own shmem_finalize, and a finalize that is not
 *     the last acts as shmem_barrier_all (a value put before it is visible
 *     after it, with no other synchronization) and leaves the library up;
 *     after the last one query_initialized is 0 and shmem_my_pe is -1.
 *   reinit: shmem_init after the last shmem_finalize, which weft does not
 *     support: the job must fail with a message naming shmem_init.
 *   reinit-thread: the same with shmem_init_thread, which must instead
 *     return nonzero (its failure return) and leave the library down. */
#include "weft_test.h"

long ring[2];

static void expect_initialized(int want, const char *when)
{
    int flag = -1;
    shmem_query_initialized(&flag);
    WT_CHECK((flag != 0) == (want != 0), "shmem_query_initialized %s gave %d, expected %s",
             when, flag, want ? "nonzero" : "0");
}

/* Each PE puts to its right neighbour, then `sync` must make it visible. */
static void ring_through(void (*sync)(void), long value, const char *what)
{
    int right = (wt_me + 1) % wt_npes, left = (wt_me + wt_npes - 1) % wt_npes;
    shmem_long_p(&ring[0], value * 1000 + wt_me, right);
    sync();
    WT_EQ_NUM(ring[0], value * 1000 + left, "value put by PE %d before %s", left, what);
    shmem_barrier_all(); /* nobody overwrites ring[0] before everybody read it */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "nest";
    wt_setup("init_nested");
    WT_PHASE("shmem_query_initialized before shmem_init");
    expect_initialized(0, "before shmem_init");
    WT_CHECK(shmem_my_pe() == -1, "shmem_my_pe before shmem_init gave %d", shmem_my_pe());

    WT_PHASE("shmem_init");
    shmem_init();
    wt_identify();
    expect_initialized(1, "after shmem_init");

    if (!strcmp(mode, "reinit") || !strcmp(mode, "reinit-thread")) {
        WT_PHASE("the last shmem_finalize");
        shmem_finalize();
        expect_initialized(0, "after the last shmem_finalize");
        WT_PHASE("initializing again (%s)", mode);
        if (!strcmp(mode, "reinit")) {
            shmem_init();
            printf("init_nested: shmem_init after the last shmem_finalize returned\n");
            return 0; /* expect-failure.sh wants a failing job with the message */
        }
        int provided = -7;
        int rc = shmem_init_thread(SHMEM_THREAD_SINGLE, &provided);
        if (rc == 0) {
            fprintf(stderr, "FAIL [init_nested] shmem_init_thread after the last "
                    "shmem_finalize returned 0\n");
            return 1;
        }
        expect_initialized(0, "after the refused shmem_init_thread");
        WT_CHECK(provided == -7, "the refused shmem_init_thread wrote provided=%d", provided);
        printf("init_nested: shmem_init_thread after the last shmem_finalize returned %d\n",
               rc);
        return 0;
    }

    WT_PHASE("nested shmem_init and shmem_init_thread");
    shmem_init();
    int level = -1, provided = -1;
    shmem_query_thread(&level);
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    WT_EQ_NUM(rc, 0, "nested shmem_init_thread return value");
    WT_EQ_NUM(provided, level, "nested shmem_init_thread: provided = the level in force");
    expect_initialized(1, "after nested initialization");
    WT_EQ_NUM(shmem_my_pe(), wt_me, "shmem_my_pe after nested initialization");

    WT_PHASE("inner shmem_finalize (3 -> 2) acts as a barrier");
    ring_through(shmem_finalize, 1, "the inner shmem_finalize");
    expect_initialized(1, "after an inner shmem_finalize");
    WT_PHASE("communication after an inner shmem_finalize");
    ring_through(shmem_barrier_all, 2, "shmem_barrier_all");
    long *heap = shmem_malloc(sizeof(long));
    WT_CHECK(heap != NULL, "shmem_malloc after an inner shmem_finalize");
    shmem_free(heap);

    WT_PHASE("inner shmem_finalize (2 -> 1)");
    ring_through(shmem_finalize, 3, "the second inner shmem_finalize");
    expect_initialized(1, "after the second inner shmem_finalize");

    wt_finish(); /* the last shmem_finalize */
    expect_initialized(0, "after the last shmem_finalize");
    WT_CHECK(shmem_my_pe() == -1, "shmem_my_pe after the last shmem_finalize gave %d",
             shmem_my_pe());
    return 0;
}

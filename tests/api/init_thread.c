/* SPDX-License-Identifier: BSD-3-Clause */
/* init_thread: shmem_init_thread(requested, &provided) for the level given
 * on the command line (SINGLE, FUNNELED, SERIALIZED, MULTIPLE).
 *   returns 0; provided is a valid level >= SHMEM_THREAD_SINGLE;
 *   every request is granted at least as asked (MULTIPLE needs an
 *   FI_THREAD_SAFE domain, which shm, tcp and the direct path all have);
 *   shmem_query_thread reports the provided level;
 *   the library then works (a ring put and a barrier) and finalizes. */
#include "weft_test.h"

static int level_of(const char *s)
{
    if (!strcmp(s, "SINGLE")) return SHMEM_THREAD_SINGLE;
    if (!strcmp(s, "FUNNELED")) return SHMEM_THREAD_FUNNELED;
    if (!strcmp(s, "SERIALIZED")) return SHMEM_THREAD_SERIALIZED;
    if (!strcmp(s, "MULTIPLE")) return SHMEM_THREAD_MULTIPLE;
    fprintf(stderr, "init_thread: unknown level %s\n", s);
    exit(2);
}

int ring[4];

int main(int argc, char **argv)
{
    int requested = level_of(argc > 1 ? argv[1] : "SINGLE");
    wt_setup("init_thread");
    WT_PHASE("shmem_init_thread(%s)", argc > 1 ? argv[1] : "SINGLE");
    int provided = -12345;
    int rc = shmem_init_thread(requested, &provided);
    wt_identify();
    WT_EQ_NUM(rc, 0, "shmem_init_thread(%d) return value", requested);
    WT_CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE,
             "provided = %d is not a thread level", provided);
    WT_CHECK(provided >= requested, "requested level %d but provided only %d", requested,
             provided);
    int queried = -12345;
    shmem_query_thread(&queried);
    WT_EQ_NUM(queried, provided, "shmem_query_thread after init_thread(%d)", requested);

    WT_PHASE("communication after shmem_init_thread");
    int right = (wt_me + 1) % wt_npes, left = (wt_me + wt_npes - 1) % wt_npes;
    shmem_int_p(&ring[1], 100 + wt_me, right);
    shmem_barrier_all();
    WT_EQ_NUM(ring[1], 100 + left, "value put by the left neighbour");
    if (wt_me == 0)
        printf("init_thread: requested %d, provided %d\n", requested, provided);
    wt_finish();
    return 0;
}

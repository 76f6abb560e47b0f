/* SPDX-License-Identifier: BSD-3-Clause */
/* onnode: the direct on-node path seen from the API. For every PE pair,
 * shmem_ptr of a heap object (and of a static one) is non-NULL exactly when
 * the pair shares a node under the path the job runs on, SHMEM_TEAM_SHARED
 * holds exactly those PEs, stores through the pointer land in the peer's
 * object, and static variables keep their initial values across init (the
 * static data is moved into shared memory there) and accept remote puts.
 * The expected layout comes from the same environment the library reads:
 *   WEFT_ONNODE=0           nobody but the PE itself is reachable;
 *   WEFT_TOPOLOGY=nodes=K   K simulated nodes, PEs dealt in blocks;
 *   otherwise               every PE of this machine.
 * WEFT_ONNODE_STATIC=0 keeps static data private: static pointers are NULL
 * for peers while heap pointers are not. */
#include "weft_test.h"

static long static_initialized = 0x5eed;
static long static_target[4];

/* Node of pe when npes PEs are dealt in blocks to k nodes (the first
 * npes % k nodes get one more), as WEFT_TOPOLOGY's place=block does. */
static int block_node(int pe, int npes, int k)
{
    int q = npes / k, r = npes % k;
    if (pe < r * (q + 1))
        return pe / (q + 1);
    return r + (pe - r * (q + 1)) / q;
}

static int expect_reachable(int pe)
{
    const char *onnode = getenv("WEFT_ONNODE"), *topo = getenv("WEFT_TOPOLOGY");
    if (pe == wt_me)
        return 1;
    if (onnode && !strcmp(onnode, "0"))
        return 0;
    int k = 1;
    if (topo && sscanf(topo, "nodes=%d", &k) == 1 && k > 1)
        return block_node(pe, wt_npes, k < wt_npes ? k : wt_npes) ==
               block_node(wt_me, wt_npes, k < wt_npes ? k : wt_npes);
    return 1;
}

int main(void)
{
    wt_init("onnode");
    const char *st = getenv("WEFT_ONNODE_STATIC");
    int static_shared = !(st && !strcmp(st, "0"));

    WT_PHASE("static data survives init");
    WT_EQ_NUM(static_initialized, 0x5eed, "initialized static variable after shmem_init");

    long *heap = shmem_malloc((size_t)wt_npes * sizeof(long));
    WT_CHECK(heap, "shmem_malloc");
    for (int i = 0; i < wt_npes; i++)
        heap[i] = -1;
    shmem_barrier_all();

    WT_PHASE("shmem_ptr and SHMEM_TEAM_SHARED agree with the layout");
    int n_reach = 0;
    for (int pe = 0; pe < wt_npes; pe++) {
        int want = expect_reachable(pe);
        long *hp = shmem_ptr(heap, pe);
        WT_CHECK((hp != NULL) == want, "shmem_ptr(heap, %d) = %p, expected %s", pe, (void *)hp,
                 want ? "a pointer" : "NULL");
        long *sp = shmem_ptr(&static_target[0], pe);
        int want_static = want && (pe == wt_me || static_shared);
        WT_CHECK((sp != NULL) == want_static, "shmem_ptr(static, %d) = %p, expected %s", pe,
                 (void *)sp, want_static ? "a pointer" : "NULL");
        n_reach += want;
        int shared_pe = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED);
        WT_CHECK((shared_pe >= 0) == want, "PE %d in SHMEM_TEAM_SHARED: %d, expected %s", pe,
                 shared_pe, want ? "member" : "not a member");
        /* Write my slot of every reachable peer's array through the pointer. */
        if (hp)
            hp[wt_me] = 1000 + wt_me;
        if (sp && pe != wt_me)
            __atomic_fetch_add(&sp[1], 1, __ATOMIC_SEQ_CST);
    }
    WT_EQ_NUM(shmem_team_n_pes(SHMEM_TEAM_SHARED), n_reach, "SHMEM_TEAM_SHARED size");
    shmem_barrier_all();

    WT_PHASE("stores through shmem_ptr landed");
    int static_writers = 0;
    for (int pe = 0; pe < wt_npes; pe++) {
        int reach = expect_reachable(pe);
        WT_EQ_NUM(heap[pe], reach ? 1000 + pe : -1, "heap slot written by PE %d", pe);
        static_writers += reach && pe != wt_me && static_shared;
    }
    WT_EQ_NUM(static_target[1], static_writers, "atomic adds through static pointers");

    WT_PHASE("puts and atomics to a static variable of every PE");
    shmem_barrier_all();
    int next = (wt_me + 1) % wt_npes;
    shmem_long_p(&static_target[0], 7000 + wt_me, next);
    for (int pe = 0; pe < wt_npes; pe++)
        shmem_long_atomic_add(&static_target[2], pe + 1, pe);
    shmem_barrier_all();
    int prev = (wt_me + wt_npes - 1) % wt_npes;
    WT_EQ_NUM(static_target[0], 7000 + prev, "static put from PE %d", prev);
    WT_EQ_NUM(static_target[2], (long)(wt_me + 1) * wt_npes, "static atomic adds");
    WT_EQ_NUM(shmem_long_g(&static_target[0], next), 7000 + wt_me, "static get from PE %d",
              next);

    shmem_free(heap);
    wt_finish();
    return 0;
}

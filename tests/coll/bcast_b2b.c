/* SPDX-License-Identifier: BSD-3-Clause */
/* bcast_b2b: broadcasts called back to back, with no barrier between them,
 * while every PE refills its dest before each call and checks it after.
 * A PE's dest may be written only once that PE is inside the broadcast
 * (weft's promise, docs/collectives.md): a root that ran ahead into the
 * next broadcast must not overwrite a dest its owner is still checking or
 * refilling.
 *
 * Each round: dest := sentinel; broadcast (active-set shmem_broadcast64
 * with two pSync arrays used alternately as programs for other
 * implementations do, or shmem_broadcastmem on the world team, or on a
 * team of the odd PEs); every element must carry this round's value
 * (root, round, index) and the element past the broadcast the sentinel.
 * The root varies. argv[1] = rounds per form (default 200). */
#include "weft_test.h"

#define MAXN 1024
#define SENTINEL 0x5e5e5e5e5e5e5e5eull

static long psync[2][SHMEM_BCAST_SYNC_SIZE];
static uint64_t dest_bss[MAXN + 1];

static uint64_t value_of(int root, int round, int i)
{
    return ((uint64_t)root << 48) ^ ((uint64_t)round << 20) ^ (uint64_t)i ^ 0x1234567ull;
}

static size_t count_of(int round) { return 1 + (size_t)((unsigned)round * 37u % MAXN); }

/* form 0: active set over all PEs, .bss dest; 1: world team, heap dest;
 * 2: active set over the odd PEs (stride 2), heap dest. */
static void run(int form, int rounds, uint64_t *heap_dest, uint64_t *src)
{
    static const char *names[] = {"active-set broadcast64, all PEs, .bss dest",
                                  "shmem_broadcastmem, SHMEM_TEAM_WORLD, heap dest",
                                  "active-set broadcast64, odd PEs, heap dest"};
    int start = form == 2 ? 1 : 0, log_stride = form == 2 ? 1 : 0;
    int size = form == 2 ? wt_npes / 2 : wt_npes;
    if (size < 1 || (form == 2 && wt_me % 2 == 0))
        return;
    int me_in_set = (wt_me - start) >> log_stride;
    uint64_t *dest = form == 0 ? dest_bss : heap_dest;
    for (int round = 0; round < rounds; round++) {
        int root = round % size;
        size_t n = count_of(round);
        WT_PHASE("%s: round %d, root %d, %zu elements", names[form], round, root, n);
        for (size_t i = 0; i <= n; i++)
            dest[i] = SENTINEL;
        if (me_in_set == root)
            for (size_t i = 0; i < n; i++)
                src[i] = value_of(root, round, (int)i);
        if (form == 1)
            shmem_broadcastmem(SHMEM_TEAM_WORLD, dest, src, n * sizeof *src, root);
        else
            shmem_broadcast64(dest, src, n, root, start, log_stride, size, psync[round % 2]);
        if (me_in_set != root || form == 1)
            for (size_t i = 0; i < n; i++)
                if (dest[i] != value_of(root, round, (int)i))
                    WT_FAIL("%s: round %d, root %d: element %zu of %zu is 0x%016llx, expected "
                            "0x%016llx%s", names[form], round, root, i, n,
                            (unsigned long long)dest[i],
                            (unsigned long long)value_of(root, round, (int)i),
                            dest[i] == SENTINEL ? " (the sentinel: data arrived before this PE "
                                                  "refilled, or never)"
                                                : " (another round's data)");
        WT_CHECK(dest[n] == SENTINEL, "%s: round %d: element %zu past the broadcast was written",
                 names[form], round, n);
    }
}

int main(int argc, char **argv)
{
    wt_init("bcast_b2b");
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            psync[k][i] = SHMEM_SYNC_VALUE;
    uint64_t *heap_dest = shmem_malloc((MAXN + 1) * sizeof(uint64_t));
    uint64_t *src = shmem_malloc(MAXN * sizeof(uint64_t));
    WT_CHECK(heap_dest && src, "shmem_malloc");
    shmem_barrier_all();
    for (int form = 0; form < 3; form++) {
        run(form, rounds, heap_dest, src);
        shmem_barrier_all();
    }
    shmem_free(src);
    shmem_free(heap_dest);
    wt_finish();
    return 0;
}

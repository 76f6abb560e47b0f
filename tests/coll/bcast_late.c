/* SPDX-License-Identifier: BSD-3-Clause */
/* bcast_late: no piece of an earlier broadcast may land after a later one.
 * The root runs 100 broadcasts back to back (it never waits in them, so it
 * runs ahead of the others), everyone synchronizes, the root writes a
 * fresh pattern, every dest is set to a third value, and one more
 * broadcast must deliver exactly the pattern. A large put that the
 * provider still moves in pieces after the count behind it (libfabric 1.17
 * shm's SAR protocol, which ignores its own FI_ORDER_WAW claim) shows up
 * as bytes of the earlier broadcasts. Sizes around and above the inject
 * size, three rounds. */
#include "weft_test.h"

#define OLD_SOURCE 0x11
#define OLD_DEST 0x22

int main(void)
{
    wt_init("bcast_late");
    size_t max = 32768;
    unsigned char *src = shmem_malloc(max), *dst = shmem_malloc(max);
    WT_CHECK(src && dst, "shmem_malloc");
    for (int round = 0; round < 3; round++) {
        for (size_t len = 2048; len <= max; len *= 2) {
            WT_PHASE("round %d: %zu bytes, 100 broadcasts back to back, then a fresh one", round,
                     len);
            memset(src, OLD_SOURCE, len);
            shmem_barrier_all();
            for (int k = 0; k < 100; k++)
                shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, len, 0);
            shmem_barrier_all();
            unsigned tag = (unsigned)(round * 1000 + (int)(len >> 10));
            wt_fill_bytes(src, len, 0, 0, tag);
            memset(dst, OLD_DEST, len);
            shmem_barrier_all();
            shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, len, 0);
            WT_CHECK_BYTES(dst, len, 0, 0, tag, "the fresh broadcast");
        }
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    wt_finish();
    return 0;
}

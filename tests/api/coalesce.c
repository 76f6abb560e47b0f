/* SPDX-License-Identifier: BSD-3-Clause */
/* coalesce: small puts that weft coalesces into one message per PE on
 * tcp;ofi_rxm (shmem_TYPE_p, shmem_putmem and shmem_putmem_nbi of up to 1024
 * bytes through the default context) keep every guarantee of a put:
 *  - a PE that computes after its puts still delivers them (the progress
 *    thread sends the buffer): the target sees the flag before the origin
 *    makes its next weft call;
 *  - a later operation of any other kind never passes them: a get reads
 *    the value just put, an atomic adds to it, a larger put overwrites it,
 *    and a put with signal or fence + flag shows the data first;
 *  - puts alternating between PEs, of every size from 1 to 64 bytes and
 *    past one message's worth, all land by the quiet;
 *  - puts of 65 to 1024 bytes, to the heap and to static memory, land too,
 *    and a flag put after them with a fence is never seen first.
 * On other paths the same program checks the same semantics. */
#include <time.h>

#include "weft_test.h"

#define N 700 /* 8-byte records: more than one 4 KiB message */

long seen_at_flag;
long word; /* .bss: a put there is not coalesced, so it settles what is */
#define MID 1024        /* the largest coalesced put */
#define MID_MAX_PES 16
static unsigned char mid_static[MID_MAX_PES][MID]; /* symmetric (.bss) */
uint64_t sig;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
    wt_init("coalesce");
    WT_CHECK(wt_npes >= 2, "needs 2 PEs or more, has %d", wt_npes);
    int right = (wt_me + 1) % wt_npes;
    long *arr = shmem_calloc(N, sizeof(long));
    long *times = shmem_calloc(2, sizeof(long));
    unsigned char *bytes = shmem_calloc((size_t)wt_npes * 64, 1);
    long *big = shmem_calloc(64, sizeof(long));
    long *flag = shmem_calloc(1, sizeof(long)); /* heap: coalesced like the data */

    WT_PHASE("computing origin");
    /* PE 0 puts then computes for up to 2 s without calling weft; PE 1
     * notes when the flag arrived. */
    if (wt_me == 0) {
        for (int i = 0; i < N; i++)
            shmem_long_p(&arr[i], 1000 + i, 1);
        shmem_long_p(flag, 1, 1);
        double until = now_s() + 2.0, t;
        while ((t = now_s()) < until)
            ;
        times[0] = (long)(t * 1e6); /* back in weft from here */
    } else if (wt_me == 1) {
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
        times[1] = (long)(now_s() * 1e6);
        for (int i = 0; i < N; i++)
            WT_CHECK(arr[i] == 1000 + i, "arr[%d] = %ld when the flag came", i, arr[i]);
    }
    shmem_barrier_all();
    if (wt_me == 1) {
        long back = shmem_long_g(&times[0], 0);
        WT_CHECK(times[1] < back,
                 "the flag arrived %ld us after PE 0 returned to weft: its puts waited for it",
                 times[1] - back);
    }
    shmem_barrier_all();

    WT_PHASE("later operations do not pass");
    long *hw = shmem_calloc(1, sizeof(long));
    for (int round = 0; round < 50; round++) {
        long v = round * 10 + wt_me;
        shmem_long_p(hw, v, right);
        long got = shmem_long_g(hw, right);
        WT_CHECK(got == v, "round %d: get after p read %ld, expected %ld", round, got, v);
        shmem_long_p(hw, v, right);
        shmem_long_atomic_add(hw, 5, right);
        got = shmem_long_atomic_fetch(hw, right);
        WT_CHECK(got == v + 5, "round %d: p then add gave %ld, expected %ld", round, got, v + 5);
        shmem_long_p(&big[0], -1, right);
        long fill[64];
        for (int i = 0; i < 64; i++)
            fill[i] = v + i;
        shmem_long_put(big, fill, 64, right); /* 512 bytes: not coalesced */
        shmem_long_p(hw, -v, right);
        shmem_long_p(&word, v, right); /* .bss: not coalesced */
        shmem_quiet();
        got = shmem_long_g(&big[0], right);
        WT_CHECK(got == v, "round %d: a larger put was overtaken (%ld)", round, got);
        got = shmem_long_g(hw, right);
        WT_CHECK(got == -v, "round %d: p before a .bss p lost (%ld)", round, got);
        shmem_barrier_all();
    }
    shmem_free(hw);

    WT_PHASE("data before flag");
    for (int round = 1; round <= 50; round++) {
        int from = round % wt_npes, to = (from + 1) % wt_npes;
        if (wt_me == from) {
            for (int i = 0; i < 16; i++)
                shmem_long_p(&arr[i], round * 100 + i, to);
            if (round & 1) {
                shmem_fence();
                shmem_long_p(flag, round, to);
            } else {
                long d = round;
                shmem_long_put_signal(&seen_at_flag, &d, 1, &sig, (uint64_t)round,
                                      SHMEM_SIGNAL_SET, to);
            }
        } else if (wt_me == to) {
            if (round & 1)
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, round);
            else
                shmem_uint64_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)round);
            for (int i = 0; i < 16; i++)
                WT_CHECK(arr[i] == round * 100 + i, "round %d: arr[%d] = %ld after the flag",
                         round, i, arr[i]);
        }
        shmem_barrier_all();
    }

    WT_PHASE("alternating PEs, every size");
    /* Each PE writes its row of 64 bytes at every PE: byte k of row me is
     * me + k, put in pieces of 1..8 bytes and 16..64-byte blocks,
     * alternating targets. */
    unsigned char src[64];
    for (int k = 0; k < 64; k++)
        src[k] = (unsigned char)(wt_me + k);
    for (int pe = 0; pe < wt_npes; pe++) {
        unsigned char *row = bytes + (size_t)wt_me * 64;
        shmem_putmem(row, src, 1, pe);
        shmem_putmem_nbi(row + 1, src + 1, 2, pe);
        shmem_putmem(row + 3, src + 3, 4, pe);
        shmem_putmem_nbi(row + 7, src + 7, 8, pe);
        shmem_char_p((char *)row + 15, (char)src[15], pe);
        shmem_putmem(row + 16, src + 16, 16, pe);
        shmem_putmem_nbi(row + 32, src + 32, 32, pe);
    }
    for (int pe = wt_npes - 1; pe >= 0; pe--)
        shmem_putmem_nbi(bytes + (size_t)wt_me * 64, src, 64, pe);
    shmem_barrier_all();
    for (int r = 0; r < wt_npes; r++)
        for (int k = 0; k < 64; k++)
            WT_CHECK(bytes[r * 64 + k] == (unsigned char)(r + k), "row %d byte %d = %u", r, k,
                     bytes[r * 64 + k]);

    WT_PHASE("puts of 65 to 1024 bytes, heap and static, then a fenced flag");
    unsigned char msrc[MID];
    for (int k = 0; k < MID; k++)
        msrc[k] = (unsigned char)(3 * wt_me + k);
    unsigned char *mid_heap = shmem_calloc((size_t)wt_npes * MID, 1);
    long *mid_flag = shmem_calloc(1, sizeof(long));
    for (int pe = 0; pe < wt_npes; pe++) {
        unsigned char *row = mid_heap + (size_t)wt_me * MID;
        shmem_putmem(row, msrc, 65, pe);
        shmem_putmem_nbi(row + 65, msrc + 65, 127, pe);
        shmem_putmem(row + 192, msrc + 192, 63, pe);
        shmem_putmem_nbi(row + 255, msrc + 255, 769, pe); /* past an 8-bit length */
        if (wt_npes <= MID_MAX_PES)
            shmem_putmem_nbi(mid_static[wt_me], msrc, MID, pe);
    }
    shmem_barrier_all();
    for (int r = 0; r < wt_npes; r++)
        for (int k = 0; k < MID; k++) {
            WT_CHECK(mid_heap[r * MID + k] == (unsigned char)(3 * r + k),
                     "heap row %d byte %d = %u", r, k, mid_heap[r * MID + k]);
            if (wt_npes <= MID_MAX_PES)
                WT_CHECK(mid_static[r][k] == (unsigned char)(3 * r + k),
                         "static row %d byte %d = %u", r, k, mid_static[r][k]);
        }
    shmem_barrier_all();
    /* Data (1000 bytes) then a fence and the flag, to the right neighbour;
     * the left one's data must be there when its flag is. */
    for (int k = 0; k < MID; k++)
        msrc[k] = (unsigned char)(msrc[k] + 1);
    shmem_putmem(mid_heap, msrc, 1000, right);
    shmem_fence();
    shmem_long_p(mid_flag, 1, right);
    shmem_long_wait_until(mid_flag, SHMEM_CMP_EQ, 1);
    int left = (wt_me + wt_npes - 1) % wt_npes;
    for (int k = 0; k < 1000; k++)
        WT_CHECK(mid_heap[k] == (unsigned char)(3 * left + k + 1),
                 "byte %d = %u when the flag was seen", k, mid_heap[k]);
    shmem_barrier_all();
    shmem_free(mid_flag);
    shmem_free(mid_heap);

    shmem_free(flag);
    shmem_free(big);
    shmem_free(bytes);
    shmem_free(times);
    shmem_free(arr);
    wt_finish();
    return 0;
}

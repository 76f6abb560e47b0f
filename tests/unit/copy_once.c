/* SPDX-License-Identifier: BSD-3-Clause */
/* copy_once.c (unit) checks the direct path's copy (src/core/copy.h)
 * against memmove on every length up to past the loop limit and a few
 * large ones, at every alignment of source and destination within 16
 * bytes, apart and overlapping both ways (a PE's put to itself), and that
 * no byte outside the destination is touched: the same answers from the
 * x86-64 code and from the loop other CPUs (aarch64) take. */
#include "unit.h"

#include "core/copy.h"

#define AREA 8192

#define MARGIN 32 /* bytes either side of a copy checked untouched */

static unsigned char area[AREA], model[AREA];

static void fill(size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        area[i] = model[i] = (unsigned char)(i * 131 + 7);
}

/* Copy len bytes from offset src_at to offset dst_at of the area; 1 if the
 * result equals memmove's on both copies and MARGIN bytes around them
 * (only that window is filled and compared: the test also runs under
 * qemu). */
static int same_as_memmove(size_t dst_at, size_t src_at, size_t len)
{
    size_t lo = (dst_at < src_at ? dst_at : src_at), hi = (dst_at > src_at ? dst_at : src_at) + len;
    lo = lo > MARGIN ? lo - MARGIN : 0;
    hi = hi + MARGIN < AREA ? hi + MARGIN : AREA;
    fill(lo, hi);
    weft_copy_once(area + dst_at, area + src_at, len);
    memmove(model + dst_at, model + src_at, len);
    return memcmp(area + lo, model + lo, hi - lo) == 0;
}

int main(void)
{
    static const size_t big[] = {1000, 1024, 1500, 2048, 3001, 4096};
    for (size_t len = 0; len <= WEFT_COPY_LOOP_MAX + 40; len++)
        for (size_t da = 0; da < 16; da++)
            for (size_t sa = 0; sa < 16; sa += 3) {
                UT_CHECK(same_as_memmove(2048 + da, 64 + sa, len), "apart: len %zu dst+%zu src+%zu",
                         len, da, sa);
                /* destination inside the source (backwards) and before it */
                UT_CHECK(same_as_memmove(64 + sa + da + 1, 64 + sa, len),
                         "dst after src: len %zu shift %zu", len, da + 1);
                UT_CHECK(same_as_memmove(64 + sa, 64 + sa + da + 1, len),
                         "dst before src: len %zu shift %zu", len, da + 1);
            }
    for (size_t k = 0; k < sizeof big / sizeof big[0]; k++)
        for (size_t shift = 1; shift < 40; shift += 7) {
            size_t len = big[k];
            UT_CHECK(same_as_memmove(16 + shift + 1, 16, len), "big dst after src: len %zu", len);
            UT_CHECK(same_as_memmove(16, 16 + shift + 1, len), "big dst before src: len %zu", len);
            UT_CHECK(same_as_memmove(AREA - len - shift, shift, len), "big apart: len %zu", len);
        }
    /* the same-address copy (a put of a buffer onto itself) */
    UT_CHECK(same_as_memmove(100, 100, 300), "same address");
    return ut_done("copy_once");
}

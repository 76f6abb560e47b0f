/* SPDX-License-Identifier: BSD-3-Clause */
/* extended.c: the GASNet extended API between every node and its
 * neighbours: blocking, explicit-handle (_nb) and implicit-handle (_nbi)
 * puts and gets with their syncs, access regions, the value forms, memset,
 * and the split-phase barrier's named, anonymous and mismatch cases
 * (notify/wait and notify/try), each checked on every node. */
#include "gn_test.h"

#include <stdint.h>

#define SEG (1 << 20)
#define CHUNK 1024

static long val(int node, int round, size_t i) { return (long)node * 100000 + round * 1000 + (long)i; }

static void barrier_ok(int id)
{
    GT_CHECK(gasnet_barrier(id, 0) == GASNET_OK, "barrier %d", id);
}

int main(int argc, char **argv)
{
    gt_start("extended", &argc, &argv, NULL, 0, SEG);
    int right = (gt_me + 1) % gt_n, left = (gt_me + gt_n - 1) % gt_n;
    long *mine = gt_seg[gt_me].addr;
    long *at_right = gt_seg[right].addr;
    size_t n = CHUNK / sizeof(long);
    long src[CHUNK / sizeof(long)], dst[CHUNK / sizeof(long)];

    /* Each round r: put into the right neighbour's block r, read back the
     * left neighbour's block r after a barrier. */
    for (int r = 0; r < 6; r++) {
        GT_PHASE("put form %d", r);
        for (size_t i = 0; i < n; i++)
            src[i] = val(gt_me, r, i);
        long *d = at_right + (size_t)r * n;
        gasnet_handle_t h[2];
        switch (r) {
        case 0: gasnet_put(right, d, src, CHUNK); break;
        case 1: gasnet_put_bulk(right, d, src, CHUNK); break;
        case 2:
            h[0] = gasnet_put_nb(right, d, src, CHUNK / 2);
            h[1] = gasnet_put_nb_bulk(right, d + n / 2, src + n / 2, CHUNK / 2);
            gasnet_wait_syncnb_all(h, 2);
            GT_CHECK(h[0] == GASNET_INVALID_HANDLE && h[1] == GASNET_INVALID_HANDLE, "handles");
            break;
        case 3:
            gasnet_put_nbi(right, d, src, CHUNK / 2);
            gasnet_put_nbi_bulk(right, d + n / 2, src + n / 2, CHUNK / 2);
            gasnet_wait_syncnbi_puts();
            break;
        case 4: {
            /* Half in one bulk put, half in 8-byte puts (through
             * libfabric they take the word path, which notes nothing:
             * the region's end must still give a handle that syncs them). */
            gasnet_begin_nbi_accessregion();
            gasnet_put_nbi_bulk(right, d, src, CHUNK / 2);
            for (size_t i = n / 2; i < n; i++)
                gasnet_put_nbi(right, d + i, src + i, sizeof(long));
            gasnet_handle_t rh = gasnet_end_nbi_accessregion();
            while (gasnet_try_syncnb(rh) != GASNET_OK)
                gasnet_AMPoll();
            break;
        }
        case 5:
            for (size_t i = 0; i < n; i++)
                gasnet_put_nbi_val(right, d + i, (gasnet_register_value_t)src[i], sizeof(long));
            GT_CHECK(gasnet_try_syncnbi_all() == GASNET_OK || 1, "try");
            gasnet_wait_syncnbi_all();
            break;
        }
        barrier_ok(r);
        GT_PHASE("get form %d", r);
        long *s = at_right + (size_t)r * n; /* what this node put there */
        memset(dst, 0, sizeof dst);
        switch (r) {
        case 0: gasnet_get(dst, right, s, CHUNK); break;
        case 1: gasnet_get_bulk(dst, right, s, CHUNK); break;
        case 2: {
            gasnet_handle_t h1 = gasnet_get_nb(dst, right, s, CHUNK / 2);
            gasnet_handle_t h2 = gasnet_get_nb_bulk(dst + n / 2, right, s + n / 2, CHUNK / 2);
            gasnet_wait_syncnb(h1);
            gasnet_handle_t hl[1] = {h2};
            gasnet_wait_syncnb_some(hl, 1);
            break;
        }
        case 3:
            gasnet_get_nbi(dst, right, s, CHUNK / 2);
            gasnet_get_nbi_bulk(dst + n / 2, right, s + n / 2, CHUNK / 2);
            gasnet_wait_syncnbi_gets();
            break;
        case 4:
            for (size_t i = 0; i < n; i++)
                dst[i] = (long)gasnet_get_val(right, s + i, sizeof(long));
            break;
        case 5:
            for (size_t i = 0; i < n; i += 2) {
                gasnet_valget_handle_t v = gasnet_get_nb_val(right, s + i, sizeof(long));
                dst[i] = (long)gasnet_wait_syncnb_valget(v);
                dst[i + 1] = (long)gasnet_get_val(right, s + i + 1, sizeof(long));
            }
            break;
        }
        for (size_t i = 0; i < n; i++)
            GT_CHECK(dst[i] == val(gt_me, r, i), "form %d element %zu: got %ld want %ld", r, i,
                     dst[i], val(gt_me, r, i));
        for (size_t i = 0; i < n; i++) /* the block the left neighbour wrote into */
            GT_CHECK(mine[(size_t)r * n + i] == val(left, r, i), "local copy %d/%zu", r, i);
    }

    GT_PHASE("value widths");
    char *cbase = (char *)at_right + 64 * 1024;
    gasnet_put_val(right, cbase, 0x1122334455667788ull, 8);
    gasnet_put_val(right, cbase + 8, 0xa1b2c3d4u, 4);
    gasnet_put_val(right, cbase + 12, 0xbeefu, 2);
    gasnet_put_val(right, cbase + 14, 0x7fu, 1);
    barrier_ok(20);
    char *lbase = cbase;
    GT_CHECK(gasnet_get_val(right, lbase, 8) == 0x1122334455667788ull, "8 bytes");
    GT_CHECK(gasnet_get_val(right, lbase + 8, 4) == 0xa1b2c3d4u, "4 bytes");
    GT_CHECK(gasnet_get_val(right, lbase + 12, 2) == 0xbeefu, "2 bytes");
    GT_CHECK(gasnet_get_val(right, lbase + 14, 1) == 0x7fu, "1 byte (no sign extension)");
    barrier_ok(21);

    GT_PHASE("memset forms");
    char *mb = (char *)at_right + 128 * 1024;
    gasnet_memset(right, mb, 0x5a, 10000);
    gasnet_wait_syncnb(gasnet_memset_nb(right, mb + 10000, 0x3c, 5000));
    gasnet_memset_nbi(right, mb + 15000, 0x11, 7);
    gasnet_wait_syncnbi_puts();
    barrier_ok(22);
    unsigned char *lm = (unsigned char *)mine + 128 * 1024;
    for (size_t i = 0; i < 15007; i++)
        GT_CHECK(lm[i] == (i < 10000 ? 0x5a : i < 15000 ? 0x3c : 0x11), "memset byte %zu = %#x",
                 i, lm[i]);

    GT_PHASE("barriers: named, anonymous, mixed");
    int id = -1;
    GT_CHECK(gasnet_barrier(77, 0) == GASNET_OK, "named");
    GT_CHECK(gasnet_barrier_result(&id) == 0 && id == 77, "result named %d", id);
    GT_CHECK(gasnet_barrier(5, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "anonymous");
    GT_CHECK(gasnet_barrier_result(&id) == GASNET_BARRIERFLAG_ANONYMOUS, "result anonymous");
    /* Node 0 names it, the others are anonymous: matches. */
    int fl = gt_me == 0 ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
    gasnet_barrier_notify(99, fl);
    GT_CHECK(gasnet_barrier_wait(99, fl) == GASNET_OK, "named + anonymous");
    GT_CHECK(gasnet_barrier_result(&id) == 0 && id == 99, "result mixed %d", id);

    GT_PHASE("barrier mismatch: different names");
    if (gt_n > 1) {
        gasnet_barrier_notify(gt_me == gt_n - 1 ? 2 : 1, 0);
        GT_CHECK(gasnet_barrier_wait(gt_me == gt_n - 1 ? 2 : 1, 0) ==
                     GASNET_ERR_BARRIER_MISMATCH, "two names: mismatch on every node");
        barrier_ok(3); /* the next matching barrier is fine */
    }
    GT_PHASE("barrier mismatch: forced by one node");
    int f = gt_me == gt_n / 2 ? GASNET_BARRIERFLAG_MISMATCH : 0;
    gasnet_barrier_notify(4, f);
    GT_CHECK(gasnet_barrier_wait(4, f) == GASNET_ERR_BARRIER_MISMATCH, "forced mismatch");
    barrier_ok(4);
    GT_PHASE("barrier mismatch: wait differs from this node's notify");
    gasnet_barrier_notify(6, 0);
    int rc = gasnet_barrier_wait(gt_me == 0 ? 7 : 6, 0);
    GT_CHECK(rc == (gt_me == 0 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK), "local id: rc %d", rc);
    gasnet_barrier_notify(8, 0);
    rc = gasnet_barrier_wait(8, gt_me == 0 ? GASNET_BARRIERFLAG_ANONYMOUS : 0);
    GT_CHECK(rc == (gt_me == 0 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK), "local flags: %d", rc);
    GT_PHASE("barrier try");
    gasnet_barrier_notify(9, 0);
    while ((rc = gasnet_barrier_try(9, 0)) == GASNET_ERR_NOT_READY)
        ;
    GT_CHECK(rc == GASNET_OK, "try: %d", rc);
    GT_CHECK(!strcmp(gasnet_ErrorName(GASNET_ERR_BARRIER_MISMATCH), "GASNET_ERR_BARRIER_MISMATCH"),
             "ErrorName");
    GT_CHECK(strlen(gasnet_ErrorDesc(GASNET_ERR_NOT_READY)) > 0, "ErrorDesc");
    gt_finish();
}

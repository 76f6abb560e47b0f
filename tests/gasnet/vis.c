/* SPDX-License-Identifier: BSD-3-Clause */
/* vis.c: GASNet's vector, indexed and strided puts and gets (gasnet_vis.h)
 * between neighbours, each in its blocking, _nb and _nbi form, with chunk
 * boundaries that differ between the two sides; then long lists (more
 * pieces than one libfabric message or one batch holds) of uneven and
 * zero-length entries, and empty lists. Bad shapes: bad_args.c. */
#include <gasnet_vis.h>

#include "gn_test.h"

#define N 512 /* ints per region */

/* The blocking, _nb and _nbi form of one operation, as `how` says. */
#define FORMS(op, ...)                                 \
    do {                                               \
        if (how == 0)                                  \
            gasnet_##op##_bulk(__VA_ARGS__);           \
        else if (how == 1)                             \
            h = gasnet_##op##_nb_bulk(__VA_ARGS__);    \
        else                                           \
            gasnet_##op##_nbi_bulk(__VA_ARGS__);       \
    } while (0)

static int pattern(int node, int form, int i) { return node * 1000000 + form * 10000 + i; }

/* Entry k of the long lists: k % 13 ints (every 13th empty), remote
 * entries one int apart (so no two merge), the local side one packed
 * buffer split differently. */
#define MANY 300
#define MANY_AT (9 * N) /* ints: after the regions of the forms above */
static int many_len(int k) { return k % 13; }

/* What this node's long-list put left at int p of the right neighbour's
 * region: its pattern inside entries, -1 (0xff bytes) in the gaps. */
static int remote_want(int p)
{
    int i = 0;
    for (int k = 0; k < MANY; k++) {
        if (p < many_len(k))
            return pattern(gt_me, 50, i + p);
        if (p == many_len(k))
            return -1;
        p -= many_len(k) + 1;
        i += many_len(k);
    }
    return -1;
}

static void many_entries(int right, int left)
{
    static int src[MANY * 13], back[MANY * 13];
    static gasnet_memvec_t rv[MANY], lv[3];
    int *rb = (int *)gt_seg[right].addr + MANY_AT, *mine = (int *)gt_seg[gt_me].addr + MANY_AT;
    int total = 0, at = 0;
    for (int k = 0; k < MANY; k++) {
        rv[k] = (gasnet_memvec_t){rb + at, (size_t)many_len(k) * 4};
        at += many_len(k) + 1;
        total += many_len(k);
    }
    for (int i = 0; i < total; i++)
        src[i] = pattern(gt_me, 50, i);
    for (int how = 0; how < 3; how++) {
        GT_PHASE("long list put, form %d", how);
        memset(mine, 0xff, (size_t)at * 4);
        GT_CHECK(gasnet_barrier(200 + how, 0) == GASNET_OK, "barrier");
        /* local: an empty entry, 1 int, then the rest */
        lv[0] = (gasnet_memvec_t){src, 0};
        lv[1] = (gasnet_memvec_t){src, 4};
        lv[2] = (gasnet_memvec_t){src + 1, (size_t)(total - 1) * 4};
        gasnet_handle_t h = GASNET_INVALID_HANDLE;
        FORMS(putv, right, MANY, rv, 3, lv);
        gasnet_wait_syncnb(h);
        gasnet_wait_syncnbi_puts();
        GT_CHECK(gasnet_barrier(210 + how, 0) == GASNET_OK, "barrier");
        int i = 0, p = 0;
        for (int k = 0; k < MANY; k++) {
            for (int j = 0; j < many_len(k); j++, i++, p++)
                GT_CHECK(mine[p] == pattern(left, 50, i), "entry %d int %d: %d want %d", k, j,
                         mine[p], pattern(left, 50, i));
            GT_CHECK(mine[p] == -1, "the gap after entry %d was written: %d", k, mine[p]);
            p++;
        }
        GT_PHASE("long list get, form %d", how);
        memset(back, 0, sizeof back);
        h = GASNET_INVALID_HANDLE;
        lv[0] = (gasnet_memvec_t){back, (size_t)total * 4};
        FORMS(getv, 1, lv, right, MANY, rv);
        gasnet_wait_syncnb(h);
        gasnet_wait_syncnbi_gets();
        for (i = 0; i < total; i++)
            GT_CHECK(back[i] == src[i], "get int %d: %d want %d", i, back[i], src[i]);
        /* The indexed form: 200 pieces of 3 ints each way, the remote
         * ones 4 ints apart (across entries and gaps alike). */
        void *ri[200], *li[200];
        for (int k = 0; k < 200; k++) {
            ri[k] = rb + 4 * k;
            li[k] = back + 3 * k;
        }
        memset(back, 0, sizeof back);
        h = GASNET_INVALID_HANDLE;
        FORMS(geti, 200, li, 12, right, 200, ri, 12);
        gasnet_wait_syncnb(h);
        gasnet_wait_syncnbi_gets();
        for (int k = 0; k < 200; k++)
            for (int j = 0; j < 3; j++)
                GT_CHECK(back[3 * k + j] == remote_want(4 * k + j), "geti piece %d int %d: %d", k,
                         j, back[3 * k + j]);
        GT_CHECK(gasnet_barrier(220 + how, 0) == GASNET_OK, "barrier");
    }
    GT_PHASE("empty lists");
    int untouched = mine[0];
    gasnet_putv_bulk(right, 0, rv, 0, lv);
    gasnet_getv_bulk(0, lv, right, 0, rv);
    gasnet_wait_syncnb(gasnet_putv_nb_bulk(right, 0, rv, 0, lv));
    gasnet_puti_bulk(right, 0, NULL, 4, 0, NULL, 4);
    /* All entries empty on both sides. */
    gasnet_memvec_t z[4] = {{rb, 0}, {rb + 1, 0}, {rb + 2, 0}, {rb + 3, 0}};
    gasnet_memvec_t zl[2] = {{src, 0}, {src, 0}};
    gasnet_putv_nbi_bulk(right, 4, z, 2, zl);
    gasnet_wait_syncnbi_puts();
    GT_CHECK(gasnet_barrier(230, 0) == GASNET_OK, "barrier");
    GT_CHECK(mine[0] == untouched, "an empty list wrote %d", mine[0]);
}

int main(int argc, char **argv)
{
    gt_start("vis", &argc, &argv, NULL, 0, 64 * 1024);
    int right = (gt_me + 1) % gt_n, left = (gt_me + gt_n - 1) % gt_n;
    int src[N], back[N];
    for (int form = 0; form < 9; form++) {
        int op = form / 3, how = form % 3; /* op: v, i, s; how: blocking, nb, nbi */
        GT_PHASE("put form %d", form);
        for (int i = 0; i < N; i++)
            src[i] = pattern(gt_me, form, i);
        int *rb = (int *)gt_seg[right].addr + form * N;
        gasnet_handle_t h = GASNET_INVALID_HANDLE;
        if (op == 0) { /* remote: 4 pieces of 128; local: 2 of 100 + 1 of 312 */
            gasnet_memvec_t d[4], s[3] = {{src, 100 * 4}, {src + 100, 100 * 4}, {src + 200, 312 * 4}};
            for (int k = 0; k < 4; k++)
                d[k] = (gasnet_memvec_t){rb + 128 * k, 128 * 4};
            FORMS(putv, right, 4, d, 3, s);
        } else if (op == 1) { /* remote: 8 x 64 ints; local: 16 x 32 ints */
            void *d[8], *s[16];
            for (int k = 0; k < 8; k++) d[k] = rb + 64 * k;
            for (int k = 0; k < 16; k++) s[k] = src + 32 * k;
            FORMS(puti, right, 8, d, 64 * 4, 16, s, 32 * 4);
        } else { /* 16 rows of 16 ints: remote rows spaced 32 ints, local rows packed */
            size_t count[2] = {16 * 4, 16}, ds[1] = {32 * 4}, ss[1] = {16 * 4};
            FORMS(puts, right, rb, ds, src, ss, count, 1);
        }
        gasnet_wait_syncnb(h);
        gasnet_wait_syncnbi_puts();
        GT_CHECK(gasnet_barrier(form, 0) == GASNET_OK, "barrier");
        int *mine = (int *)gt_seg[gt_me].addr + form * N;
        for (int i = 0; i < N; i++) {
            int want = pattern(left, form, i);
            int at = op == 2 ? (i / 16) * 32 + i % 16 : i;
            if (op == 2 && i >= 256)
                break;
            GT_CHECK(mine[at] == want, "form %d element %d: %d want %d", form, i, mine[at], want);
        }
        GT_PHASE("get form %d", form);
        memset(back, 0, sizeof back);
        h = GASNET_INVALID_HANDLE;
        if (op == 0) {
            gasnet_memvec_t s[2] = {{rb, 300 * 4}, {rb + 300, 212 * 4}}, d[1] = {{back, N * 4}};
            FORMS(getv, 1, d, right, 2, s);
        } else if (op == 1) {
            void *s[4], *d[2] = {back, back + 256};
            for (int k = 0; k < 4; k++) s[k] = rb + 128 * k;
            FORMS(geti, 2, d, 256 * 4, right, 4, s, 128 * 4);
        } else {
            size_t count[2] = {16 * 4, 16}, ds[1] = {16 * 4}, ss[1] = {32 * 4};
            FORMS(gets, back, ds, right, rb, ss, count, 1);
        }
        gasnet_wait_syncnb(h);
        gasnet_wait_syncnbi_gets();
        for (int i = 0; i < (op == 2 ? 256 : N); i++)
            GT_CHECK(back[i] == pattern(gt_me, form, i), "get form %d element %d: %d", form, i,
                     back[i]);
        GT_CHECK(gasnet_barrier(100 + form, 0) == GASNET_OK, "barrier");
    }
    many_entries(right, left);
    gt_finish();
}

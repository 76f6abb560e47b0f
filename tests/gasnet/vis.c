/* vis.c: GASNet's vector, indexed and strided puts and gets (gasnet_vis.h)
 * between neighbours, each in its blocking, _nb and _nbi form, with chunk
 * boundaries that differ between the two sides; then bad shapes. */
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
    gt_finish();
}

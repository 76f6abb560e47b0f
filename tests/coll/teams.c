/* SPDX-License-Identifier: BSD-3-Clause */
/* teams: team management at any PE count.
 *   - predefined teams: world, shared (this PE's load/store domain), invalid
 *   - shmem_team_split_strided: evens, odds reversed (negative stride),
 *     stride 0 of size 1, every single PE, invalid triplets (nonzero and
 *     SHMEM_TEAM_INVALID everywhere), splits of splits (world -> reversed
 *     -> every other), translate_pe both ways
 *   - shmem_team_split_2d with xrange 1, 2, 3, n, n+5 (wider than the team)
 *   - team_sync and a sum reduction on every team made, many teams alive at
 *     once used in interleaved order (their scratch must not collide)
 *   - the team limit: splitting until it fails gives nonzero and
 *     SHMEM_TEAM_INVALID on every PE; after destroying, splits work again
 *   - get_config, team contexts (shmem_ctx_get_team), shmem_team_ptr */
#include "weft_test.h"

static long *sbuf, *dbuf;

/* Check that the team holds world PEs start + i*stride (i < size) and
 * agrees with translate_pe, then run a sync and a sum over it. */
static void check_team(shmem_team_t t, int start, int stride, int size, const char *what)
{
    int in = -1;
    for (int i = 0; i < size; i++)
        if (start + i * stride == wt_me)
            in = i;
    if (in < 0) {
        WT_CHECK(t == SHMEM_TEAM_INVALID, "%s: non-member got a valid team", what);
        return;
    }
    WT_CHECK(t != SHMEM_TEAM_INVALID, "%s: member %d got SHMEM_TEAM_INVALID", what, in);
    WT_EQ_NUM(shmem_team_n_pes(t), size, "%s: n_pes", what);
    WT_EQ_NUM(shmem_team_my_pe(t), in, "%s: my_pe", what);
    for (int i = 0; i < size; i++) {
        WT_EQ_NUM(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), start + i * stride,
                  "%s: translate %d to world", what, i);
        WT_EQ_NUM(shmem_team_translate_pe(SHMEM_TEAM_WORLD, start + i * stride, t), i,
                  "%s: translate world %d", what, start + i * stride);
    }
    WT_EQ_NUM(shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD), -1, "%s: out of range", what);
    WT_EQ_NUM(shmem_team_sync(t), 0, "%s: team_sync", what);
    sbuf[0] = wt_me + 1;
    sbuf[1] = 1;
    WT_EQ_NUM(shmem_long_sum_reduce(t, dbuf, sbuf, 2), 0, "%s: sum_reduce", what);
    long want = 0;
    for (int i = 0; i < size; i++)
        want += start + i * stride + 1;
    WT_EQ_NUM(dbuf[0], want, "%s: sum of world PE+1 over the team", what);
    WT_EQ_NUM(dbuf[1], size, "%s: count of the team", what);
}

int main(void)
{
    wt_init("teams");
    int n = wt_npes, me = wt_me;
    sbuf = shmem_malloc(8 * sizeof(long));
    dbuf = shmem_malloc(8 * sizeof(long));

    WT_PHASE("predefined teams");
    WT_EQ_NUM(shmem_team_n_pes(SHMEM_TEAM_WORLD), n, "world n_pes");
    WT_EQ_NUM(shmem_team_my_pe(SHMEM_TEAM_WORLD), me, "world my_pe");
    WT_EQ_NUM(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1, "invalid n_pes");
    WT_EQ_NUM(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1, "invalid my_pe");
    int ns = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    WT_CHECK(ns >= 1 && ns <= n, "shared n_pes %d", ns);
    int smy = shmem_team_my_pe(SHMEM_TEAM_SHARED);
    WT_EQ_NUM(shmem_team_translate_pe(SHMEM_TEAM_SHARED, smy, SHMEM_TEAM_WORLD), me,
              "shared: my index translates to me");
    for (int i = 0; i < ns; i++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        WT_CHECK(shmem_ptr(sbuf, w) != NULL, "shared member %d (world %d) not reachable by "
                 "shmem_ptr", i, w);
        WT_CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, sbuf, i) != NULL, "team_ptr shared %d", i);
    }
    WT_CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, sbuf, me) == sbuf, "team_ptr to myself");
    WT_CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, sbuf, 0) == NULL, "team_ptr invalid team");
    WT_EQ_NUM(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1,
              "translate from invalid");
    check_team(SHMEM_TEAM_WORLD, 0, 1, n, "world");

    WT_PHASE("get_config and contexts");
    shmem_team_config_t cfg = {.num_contexts = 3}, got = {.num_contexts = -1};
    shmem_team_t evens;
    WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &cfg,
                                       SHMEM_TEAM_NUM_CONTEXTS, &evens), 0, "split evens");
    check_team(evens, 0, 2, (n + 1) / 2, "evens");
    if (evens != SHMEM_TEAM_INVALID) {
        WT_EQ_NUM(shmem_team_get_config(evens, SHMEM_TEAM_NUM_CONTEXTS, &got), 0, "get_config");
        WT_EQ_NUM(got.num_contexts, 3, "num_contexts");
        shmem_ctx_t ctx;
        shmem_team_t back = SHMEM_TEAM_INVALID;
        WT_EQ_NUM(shmem_team_create_ctx(evens, 0, &ctx), 0, "team_create_ctx");
        WT_EQ_NUM(shmem_ctx_get_team(ctx, &back), 0, "ctx_get_team");
        WT_CHECK(back == evens, "ctx_get_team returned another team");
        shmem_ctx_destroy(ctx);
    }
    WT_CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, 0, &got) != 0, "get_config invalid");
    shmem_team_t wt = SHMEM_TEAM_INVALID;
    WT_EQ_NUM(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &wt), 0, "default ctx team");
    WT_CHECK(wt == SHMEM_TEAM_WORLD, "default context's team is not SHMEM_TEAM_WORLD");
    shmem_ctx_t bad;
    WT_CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &bad) != 0, "ctx on invalid team");
    WT_CHECK(bad == SHMEM_CTX_INVALID, "ctx on invalid team is not SHMEM_CTX_INVALID");

    WT_PHASE("negative stride, stride 0, single PEs");
    shmem_team_t rev;
    WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev), 0,
              "split reversed");
    check_team(rev, n - 1, -1, n, "reversed world");
    shmem_team_t odd_rev;
    int nodd = n / 2;
    if (nodd > 0) {
        int top = (n % 2) ? n - 2 : n - 1; /* highest odd PE */
        WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, top, -2, nodd, NULL, 0, &odd_rev),
                  0, "split odds reversed");
        check_team(odd_rev, top, -2, nodd, "odds reversed");
        if (odd_rev != SHMEM_TEAM_INVALID)
            shmem_team_destroy(odd_rev);
    }
    for (int p = 0; p < n; p++) {
        shmem_team_t one;
        WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, p, 0, 1, NULL, 0, &one), 0,
                  "split {%d} stride 0", p);
        check_team(one, p, 0, 1, "single PE");
        if (one != SHMEM_TEAM_INVALID)
            shmem_team_destroy(one);
    }

    WT_PHASE("invalid triplets");
    shmem_team_t inv = SHMEM_TEAM_WORLD;
    WT_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &inv) != 0,
             "size n+1 accepted");
    WT_CHECK(inv == SHMEM_TEAM_INVALID, "failed split left a team");
    WT_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &inv) != 0,
             "size 0 accepted");
    WT_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, -1, 1, 1, NULL, 0, &inv) != 0,
             "start -1 accepted");
    WT_CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &inv) != 0,
             "invalid parent accepted");
    if (n > 1)
        WT_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &inv) != 0,
                 "stride 0 with size 2 accepted");

    WT_PHASE("splits of splits");
    /* reversed world -> every other member of it: world PEs n-1, n-3, ... */
    shmem_team_t rev2;
    WT_EQ_NUM(shmem_team_split_strided(rev, 0, 2, (n + 1) / 2, NULL, 0, &rev2), 0,
              "split of reversed");
    check_team(rev2, n - 1, -2, (n + 1) / 2, "every other of reversed");
    if (rev2 != SHMEM_TEAM_INVALID && shmem_team_n_pes(rev2) > 1) {
        shmem_team_t rev3;
        int m = shmem_team_n_pes(rev2);
        WT_EQ_NUM(shmem_team_split_strided(rev2, m - 1, -1, m, NULL, 0, &rev3), 0,
                  "split of split of split");
        check_team(rev3, n - 1 - 2 * (m - 1), 2, m, "reversed back");
        shmem_team_destroy(rev3);
    }
    if (rev2 != SHMEM_TEAM_INVALID)
        shmem_team_destroy(rev2);

    WT_PHASE("split_2d");
    int xr[] = {1, 2, 3, n, n + 5};
    for (unsigned k = 0; k < sizeof xr / sizeof xr[0]; k++) {
        shmem_team_t xt, yt;
        WT_EQ_NUM(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr[k], NULL, 0, &xt, NULL, 0, &yt), 0,
                  "split_2d xrange %d", xr[k]);
        int x = xr[k] < n ? xr[k] : n;
        int row = me / x, col = me % x;
        int xsize = (row + 1) * x <= n ? x : n - row * x;
        int ysize = (n - 1 - col) / x + 1;
        char what[64];
        snprintf(what, sizeof what, "2d xrange %d x-team", xr[k]);
        check_team(xt, row * x, 1, xsize, what);
        snprintf(what, sizeof what, "2d xrange %d y-team", xr[k]);
        check_team(yt, col, x, ysize, what);
        WT_EQ_NUM(shmem_team_my_pe(xt), col, "x coordinate");
        WT_EQ_NUM(shmem_team_my_pe(yt), row, "y coordinate");
        /* 2-D split of a 2-D split's y-team, then destroy all. */
        shmem_team_t xt2, yt2;
        WT_EQ_NUM(shmem_team_split_2d(yt, 2, NULL, 0, &xt2, NULL, 0, &yt2), 0, "split_2d of y");
        WT_EQ_NUM(shmem_team_sync(xt2), 0, "sync xt2");
        WT_EQ_NUM(shmem_team_sync(yt2), 0, "sync yt2");
        shmem_team_destroy(xt2);
        shmem_team_destroy(yt2);
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
    }
    WT_CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &inv, NULL, 0, &inv) != 0,
             "xrange 0 accepted");

    WT_PHASE("many teams alive, interleaved");
    enum { NT = 12 };
    shmem_team_t many[NT];
    for (int k = 0; k < NT; k++) {
        /* Alternate: world, reversed world, evens, a sliding window. */
        int start = 0, stride = 1, size = n;
        switch (k % 4) {
        case 1: start = n - 1; stride = -1; break;
        case 2: stride = 2; size = (n + 1) / 2; break;
        case 3: start = k % n; size = n - start; break;
        }
        WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0,
                                           &many[k]), 0, "many: split %d", k);
    }
    for (int round = 0; round < 3; round++)
        for (int k = (round * 5) % NT, j = 0; j < NT; j++, k = (k + 7) % NT) {
            if (many[k] == SHMEM_TEAM_INVALID)
                continue;
            int tn = shmem_team_n_pes(many[k]);
            sbuf[0] = 1;
            WT_EQ_NUM(shmem_long_sum_reduce(many[k], dbuf, sbuf, 1), 0, "many sum");
            WT_EQ_NUM(dbuf[0], tn, "many: team %d sum of ones", k);
            WT_EQ_NUM(shmem_team_sync(many[k]), 0, "many sync");
        }
    for (int k = 0; k < NT; k++)
        shmem_team_destroy(many[k]);

    WT_PHASE("team limit");
    /* World and (possibly) evens/rev hold slots; split world until it fails. */
    enum { MAXT = 80 };
    shmem_team_t lim[MAXT];
    int made = 0, rc = 0;
    while (made < MAXT) {
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &lim[made]);
        if (rc != 0)
            break;
        made++;
    }
    if (n > 1) {
        WT_CHECK(rc != 0, "no team limit after %d teams", made);
        WT_CHECK(lim[made] == SHMEM_TEAM_INVALID, "failed split left a team");
        WT_CHECK(made >= 50, "only %d teams could be made", made);
        /* The result must agree everywhere: sum of made over world. */
        sbuf[0] = made;
        shmem_long_max_reduce(SHMEM_TEAM_WORLD, dbuf, sbuf, 1);
        WT_EQ_NUM(dbuf[0], made, "every PE made the same number of teams");
    } else {
        WT_EQ_NUM(made, MAXT, "size-1 teams need no scratch");
    }
    for (int k = 0; k < made; k += 2)
        shmem_team_destroy(lim[k]);
    shmem_team_t again;
    WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &again), 0,
              "split after destroying");
    check_team(again, 0, 1, n, "after limit");
    shmem_team_destroy(again);
    for (int k = 1; k < made; k += 2)
        shmem_team_destroy(lim[k]);

    if (evens != SHMEM_TEAM_INVALID)
        shmem_team_destroy(evens);
    shmem_team_destroy(rev);
    shmem_free(sbuf);
    shmem_free(dbuf);
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* split_color: shmemx_team_split_color with MPI_Comm_split semantics.
 * Each case gives every PE a (color, key) by a rule; the expected team of a
 * PE is the parent's PEs of its color sorted by key, then parent index, or
 * SHMEM_TEAM_INVALID for a negative color. Cases: colors pe % 2 and pe % 3,
 * one color with reversed keys (a reversed world), equal keys (parent
 * order), negative colors for some and for all PEs, extreme colors and keys
 * (INT_MAX, INT_MIN), splits of a reversed and of a color team, every PE
 * alone; teams kept alive and used in interleaved order; the team limit
 * (nonzero on every PE, slots back after destroy). Parents above 7 PEs
 * take more than one round of the (color, key) exchange. */
#include <limits.h>

#include "fed_test.h"

struct ck {
    int color, key;
};

/* Rule r for the PE at parent index i of np. */
static struct ck rule(int r, int i, int np)
{
    switch (r) {
    case 0: return (struct ck){i % 2, i};
    case 1: return (struct ck){i % 3, -i};                 /* reversed within colors */
    case 2: return (struct ck){0, np - i};                 /* one team, reversed */
    case 3: return (struct ck){i % 2, 7};                  /* equal keys: parent order */
    case 4: return (struct ck){i % 3 == 1 ? -1 : i % 2, i % 4}; /* some negative */
    case 5: return (struct ck){-1 - i, 0};                 /* all negative */
    case 6: return (struct ck){i < np / 2 ? INT_MAX : 0, i % 2 ? INT_MIN : INT_MAX};
    case 7: return (struct ck){i, 0};                      /* everybody alone */
    case 8: return (struct ck){1000000 + (i % 2) * 17, (i * 5) % 3}; /* keys collide */
    }
    return (struct ck){0, 0};
}
#define NRULES 9

/* Expected members (world PEs, in order) of my team when parent is the
 * world-PE list par[0..np) and I am at parent index me. */
static int expect(int r, const int *par, int np, int me, int *out)
{
    struct ck mine = rule(r, me, np);
    if (mine.color < 0)
        return 0;
    int m = 0;
    int *idx = malloc((size_t)np * sizeof *idx);
    for (int i = 0; i < np; i++)
        if (rule(r, i, np).color == mine.color)
            idx[m++] = i;
    /* insertion sort by (key, index) */
    for (int a = 1; a < m; a++) {
        int v = idx[a], b = a;
        while (b > 0) {
            struct ck x = rule(r, idx[b - 1], np), y = rule(r, v, np);
            if (x.key < y.key || (x.key == y.key && idx[b - 1] < v))
                break;
            idx[b] = idx[b - 1];
            b--;
        }
        idx[b] = v;
    }
    for (int a = 0; a < m; a++)
        out[a] = par[idx[a]];
    free(idx);
    return m;
}

static void run_case(shmem_team_t parent, const int *par, int np, int r, const char *pname,
                     shmem_team_t *keep)
{
    int me = shmem_team_my_pe(parent);
    struct ck c = rule(r, me, np);
    int *list = malloc((size_t)np * sizeof *list);
    WT_PHASE("split_color rule %d of %s", r, pname);
    shmem_team_t t = SHMEM_TEAM_WORLD;
    WT_EQ_NUM(shmemx_team_split_color(parent, c.color, c.key, NULL, 0, &t), 0,
              "split_color rule %d of %s (color %d key %d)", r, pname, c.color, c.key);
    int m = expect(r, par, np, me, list);
    char what[96];
    snprintf(what, sizeof what, "rule %d of %s (color %d, key %d)", r, pname, c.color, c.key);
    if (m == 0)
        WT_CHECK(t == SHMEM_TEAM_INVALID, "%s: negative color got a team", what);
    else
        fed_check_team(t, list, m, what);
    if (keep)
        *keep = t;
    else
        shmem_team_destroy(t);
    free(list);
}

int main(void)
{
    wt_init("fed.split_color");
    fed_alloc();
    int n = wt_npes, me = wt_me;
    int *world = malloc((size_t)n * sizeof *world), *rev = malloc((size_t)n * sizeof *rev);
    for (int i = 0; i < n; i++) {
        world[i] = i;
        rev[i] = n - 1 - i;
    }

    shmem_team_t keep[NRULES];
    for (int r = 0; r < NRULES; r++)
        run_case(SHMEM_TEAM_WORLD, world, n, r, "world", &keep[r]);

    WT_PHASE("teams alive, used again in reverse order");
    for (int r = NRULES - 1; r >= 0; r--) {
        int *list = malloc((size_t)n * sizeof *list);
        int m = expect(r, world, n, me, list);
        char what[64];
        snprintf(what, sizeof what, "rule %d of world (again)", r);
        if (m)
            fed_check_team(keep[r], list, m, what);
        free(list);
    }
    for (int r = 0; r < NRULES; r++)
        shmem_team_destroy(keep[r]);

    shmem_team_t rteam;
    WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rteam), 0,
              "reversed world");
    for (int r = 0; r < NRULES; r++)
        run_case(rteam, rev, n, r, "reversed world", NULL);

    WT_PHASE("split of a color team");
    {
        /* color pe % 2 (rule 0), then rule 1 inside it */
        shmem_team_t half;
        WT_EQ_NUM(shmemx_team_split_color(SHMEM_TEAM_WORLD, me % 2, me, NULL, 0, &half), 0,
                  "split halves");
        int hn = 0, *hl = malloc((size_t)n * sizeof *hl);
        for (int i = 0; i < n; i++)
            if (i % 2 == me % 2)
                hl[hn++] = i;
        fed_check_team(half, hl, hn, "parity team");
        for (int r = 0; r < NRULES; r++)
            run_case(half, hl, hn, r, "parity team", NULL);
        shmem_team_destroy(half);
        free(hl);
    }

    WT_PHASE("config");
    {
        shmem_team_config_t cfg = {.num_contexts = 5}, back = {0};
        shmem_team_t t;
        WT_EQ_NUM(shmemx_team_split_color(SHMEM_TEAM_WORLD, 0, 0, &cfg, SHMEM_TEAM_NUM_CONTEXTS,
                                          &t), 0, "split");
        WT_EQ_NUM(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &back), 0, "get_config");
        WT_EQ_NUM(back.num_contexts, 5, "num_contexts");
        shmem_team_destroy(t);
        t = SHMEM_TEAM_WORLD;
        WT_CHECK(shmemx_team_split_color(SHMEM_TEAM_INVALID, 0, 0, NULL, 0, &t) != 0,
                 "invalid parent accepted");
        WT_CHECK(t == SHMEM_TEAM_INVALID, "invalid parent: team not SHMEM_TEAM_INVALID");
    }

    WT_PHASE("team limit");
    if (n > 1) {
        enum { MAXT = 80 };
        shmem_team_t many[MAXT];
        int made = 0, rc = 0;
        while (made < MAXT) {
            rc = shmemx_team_split_color(SHMEM_TEAM_WORLD, 0, -me, NULL, 0, &many[made]);
            if (rc != 0)
                break;
            WT_CHECK(many[made] != SHMEM_TEAM_INVALID, "team %d invalid", made);
            made++;
        }
        WT_CHECK(rc != 0, "made %d teams without hitting the limit", made);
        WT_CHECK(many[made] == SHMEM_TEAM_INVALID, "failed split left a team");
        /* The same number everywhere: the failure is agreed. */
        fed_src[0] = made;
        WT_EQ_NUM(shmem_long_max_reduce(SHMEM_TEAM_WORLD, fed_dst, fed_src, 1), 0, "max");
        WT_EQ_NUM(fed_dst[0], made, "teams made on every PE");
        WT_CHECK(made >= 40, "only %d teams before the limit", made);
        for (int k = 0; k < made; k++)
            shmem_team_destroy(many[k]);
        shmem_team_t again;
        WT_EQ_NUM(shmemx_team_split_color(SHMEM_TEAM_WORLD, 0, -me, NULL, 0, &again), 0,
                  "split after destroying");
        fed_check_team(again, rev, n, "reversed by keys after the limit");
        shmem_team_destroy(again);
    }
    shmem_team_destroy(rteam);
    free(world);
    free(rev);
    wt_finish();
    return 0;
}

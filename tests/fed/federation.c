/* SPDX-License-Identifier: BSD-3-Clause */
/* federation (fed): the federation object of shmemx.h. Every query is
 * checked for every PE, against the topology queries and against the teams
 * the splits make:
 *   - system federations (shmemx_federation_create) of every type over the
 *     world and over a strided team (PEs numbered as in the parent);
 *   - the federation of a split_type team and of a split_color team (some
 *     PEs with a negative color, keys reversing the order), and of a split
 *     where every PE is alone in its team;
 *   - a federation outlives the team it came from; the predefined teams have
 *     none. Run under WEFT_TOPOLOGY layouts and on the real machine. */
#include <shmemx.h>

#include "weft_test.h"

/* The federation f describes: parent PE p in team of[p] at index idx[p]. */
static void check_fed(shmemx_federation_t f, shmem_team_t parent, const int *of, const char *what)
{
    int n = shmem_team_n_pes(parent);
    WT_CHECK(shmemx_federation_n_pes(f) == n, "%s: n_pes %d, want %d", what,
             shmemx_federation_n_pes(f), n);
    int nt = shmemx_federation_n_teams(f), want_nt = 0;
    for (int p = 0; p < n; p++)
        if (of[p] + 1 > want_nt)
            want_nt = of[p] + 1;
    WT_CHECK(nt == want_nt, "%s: n_teams %d, want %d", what, nt, want_nt);
    int total = 0;
    for (int t = 0; t < nt; t++) {
        int size = shmemx_federation_team_n_pes(f, t), k = 0;
        total += size;
        for (int p = 0; p < n; p++) {
            if (of[p] != t)
                continue;
            WT_CHECK(shmemx_federation_pe(f, t, k) == p, "%s: pe(%d, %d) = %d, want %d", what,
                     t, k, shmemx_federation_pe(f, t, k), p);
            k++;
        }
        WT_CHECK(size == k, "%s: team %d has %d PEs, want %d", what, t, size, k);
    }
    int members = 0;
    for (int p = 0; p < n; p++) {
        int t = shmemx_federation_team_of(f, p), i = shmemx_federation_team_pe(f, p);
        WT_CHECK(t == of[p], "%s: team_of(%d) = %d, want %d", what, p, t, of[p]);
        if (t < 0) {
            WT_CHECK(i == -1, "%s: team_pe(%d) = %d for a PE in no team", what, p, i);
            continue;
        }
        members++;
        WT_CHECK(shmemx_federation_pe(f, t, i) == p, "%s: pe(team_of, team_pe) of %d", what, p);
        for (int d = 0; d < nt; d++) {
            int want = i < shmemx_federation_team_n_pes(f, d) ? shmemx_federation_pe(f, d, i) : -1;
            WT_CHECK(shmemx_federation_translate_pe(f, p, d) == want,
                     "%s: translate_pe(%d, %d) = %d, want %d", what, p, d,
                     shmemx_federation_translate_pe(f, p, d), want);
        }
    }
    WT_CHECK(total == members, "%s: team sizes add up to %d, %d PEs are in a team", what, total,
             members);
    int me = shmem_team_my_pe(parent);
    WT_CHECK(shmemx_federation_my_team(f) == of[me], "%s: my_team %d, want %d", what,
             shmemx_federation_my_team(f), of[me]);
}

/* A team made by a split agrees with its federation (members in order). */
static void check_team_in(shmem_team_t team, shmemx_federation_t f, shmem_team_t parent,
                          const char *what)
{
    int t = shmemx_federation_my_team(f);
    WT_CHECK(t >= 0, "%s: my_team is -1 for a PE with a team", what);
    WT_CHECK(shmem_team_n_pes(team) == shmemx_federation_team_n_pes(f, t),
             "%s: team has %d PEs, federation says %d", what, shmem_team_n_pes(team),
             shmemx_federation_team_n_pes(f, t));
    for (int i = 0; i < shmem_team_n_pes(team); i++)
        WT_CHECK(shmem_team_translate_pe(team, i, parent) == shmemx_federation_pe(f, t, i),
                 "%s: team PE %d is parent PE %d, federation says %d", what, i,
                 shmem_team_translate_pe(team, i, parent), shmemx_federation_pe(f, t, i));
}

/* Teams numbered by lowest parent PE, as the topology ids are. */
static void domains_of(shmem_team_t parent, int type, int *of)
{
    int n = shmem_team_n_pes(parent), next = 0;
    int *seen = calloc((size_t)shmemx_topology_count(type), sizeof *seen);
    WT_CHECK(seen, "calloc");
    for (int p = 0; p < n; p++) {
        int d = shmemx_topology_id(type, shmem_team_translate_pe(parent, p, SHMEM_TEAM_WORLD));
        if (!seen[d])
            seen[d] = ++next;
        of[p] = seen[d] - 1;
    }
    free(seen);
}

static const int types[4] = {SHMEMX_TEAM_TYPE_NODE, SHMEMX_TEAM_TYPE_NUMA,
                             SHMEMX_TEAM_TYPE_SOCKET, SHMEMX_TEAM_TYPE_L3};

static void system_feds(shmem_team_t parent, const char *pname)
{
    if (parent == SHMEM_TEAM_INVALID)
        return;
    int n = shmem_team_n_pes(parent), *of = malloc((size_t)n * sizeof *of);
    WT_CHECK(of, "malloc");
    char what[64];
    for (int k = 0; k < 4; k++) {
        snprintf(what, sizeof what, "system type %d over %s", types[k], pname);
        WT_PHASE("%s", what);
        shmemx_federation_t f;
        WT_CHECK(shmemx_federation_create(parent, types[k], &f) == 0 &&
                 f != SHMEMX_FEDERATION_INVALID, "%s: create failed", what);
        domains_of(parent, types[k], of);
        check_fed(f, parent, of, what);
        shmemx_federation_destroy(f);
    }
    free(of);
}

int main(void)
{
    wt_init("fed.federation");
    int n = wt_npes, me = wt_me;
    int *of = malloc((size_t)n * sizeof *of);
    WT_CHECK(of, "malloc");

    system_feds(SHMEM_TEAM_WORLD, "world");
    shmem_team_t evens;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens);
    system_feds(evens, "the even PEs");

    WT_PHASE("predefined teams have no federation");
    shmemx_federation_t f = (shmemx_federation_t)&of;
    WT_CHECK(shmemx_team_get_federation(SHMEM_TEAM_WORLD, &f) != 0 &&
             f == SHMEMX_FEDERATION_INVALID, "world: get_federation succeeded");
    WT_CHECK(shmemx_team_get_federation(SHMEM_TEAM_INVALID, &f) != 0 &&
             f == SHMEMX_FEDERATION_INVALID, "invalid team: get_federation succeeded");
    WT_CHECK(shmemx_federation_create(SHMEM_TEAM_INVALID, SHMEMX_TEAM_TYPE_NODE, &f) != 0 &&
             f == SHMEMX_FEDERATION_INVALID, "invalid parent: create succeeded");
    shmemx_federation_destroy(SHMEMX_FEDERATION_INVALID);

    for (int k = 0; k < 4; k++) {
        WT_PHASE("split_type %d: its federation", types[k]);
        shmem_team_t t;
        WT_CHECK(shmemx_team_split_type(SHMEM_TEAM_WORLD, types[k], NULL, 0, &t) == 0,
                 "split_type");
        WT_CHECK(shmemx_team_get_federation(t, &f) == 0, "get_federation of a split_type team");
        domains_of(SHMEM_TEAM_WORLD, types[k], of);
        check_fed(f, SHMEM_TEAM_WORLD, of, "split_type");
        check_team_in(t, f, SHMEM_TEAM_WORLD, "split_type");
        shmem_team_destroy(t);
        check_fed(f, SHMEM_TEAM_WORLD, of, "split_type after the team's destruction");
        shmemx_federation_destroy(f);
    }

    /* Colors: PEs 2, 5, 8, ... opt out; others by parity, keys reversed.
     * Teams by ascending color, members by key. */
    WT_PHASE("split_color: its federation");
    int color = me % 3 == 2 ? -1 : me % 2;
    shmem_team_t ct;
    WT_CHECK(shmemx_team_split_color(SHMEM_TEAM_WORLD, color, -me, NULL, 0, &ct) == 0,
             "split_color");
    if (color >= 0) {
        WT_CHECK(shmemx_team_get_federation(ct, &f) == 0, "get_federation of a color team");
        int has0 = 0;
        for (int p = 0; p < n; p++)
            if (p % 3 != 2 && p % 2 == 0)
                has0 = 1;
        for (int p = 0; p < n; p++)
            of[p] = p % 3 == 2 ? -1 : (p % 2 == 0 ? 0 : has0);
        int nt = shmemx_federation_n_teams(f);
        for (int t = 0; t < nt; t++) /* members by key -p: descending parent PE */
            for (int i = 1; i < shmemx_federation_team_n_pes(f, t); i++)
                WT_CHECK(shmemx_federation_pe(f, t, i) < shmemx_federation_pe(f, t, i - 1),
                         "color team %d not ordered by key", t);
        /* check_fed expects ascending order within a team: check membership. */
        for (int p = 0; p < n; p++)
            WT_CHECK(shmemx_federation_team_of(f, p) == of[p], "color: team_of(%d) = %d, want %d",
                     p, shmemx_federation_team_of(f, p), of[p]);
        check_team_in(ct, f, SHMEM_TEAM_WORLD, "split_color");
        shmem_team_destroy(ct);
        shmemx_federation_destroy(f);
    } else {
        WT_CHECK(ct == SHMEM_TEAM_INVALID, "negative color got a team");
    }

    WT_PHASE("split_color: every PE alone");
    WT_CHECK(shmemx_team_split_color(SHMEM_TEAM_WORLD, n - me, 0, NULL, 0, &ct) == 0,
             "split_color alone");
    WT_CHECK(shmemx_team_get_federation(ct, &f) == 0, "get_federation of a one-PE team");
    for (int p = 0; p < n; p++)
        of[p] = n - 1 - p; /* ascending color n - p */
    for (int p = 0; p < n; p++)
        WT_CHECK(shmemx_federation_team_of(f, p) == of[p] &&
                 shmemx_federation_team_pe(f, p) == 0 &&
                 shmemx_federation_team_n_pes(f, of[p]) == 1,
                 "alone: PE %d in team %d at %d", p, shmemx_federation_team_of(f, p),
                 shmemx_federation_team_pe(f, p));
    check_team_in(ct, f, SHMEM_TEAM_WORLD, "alone");
    shmemx_federation_destroy(f);
    shmem_team_destroy(ct);
    if (evens != SHMEM_TEAM_INVALID)
        shmem_team_destroy(evens);
    free(of);
    shmem_barrier_all();
    if (me == 0)
        printf("fed.federation: %d PEs, every query checked\n", n);
    shmem_finalize();
    return 0;
}

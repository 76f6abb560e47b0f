/* SPDX-License-Identifier: BSD-3-Clause */
/* fed_test.h: helpers of the federation tests (shmemx.h), on top of
 * weft_test.h.
 *
 *   fed_expect_sim(spec, n, dom)   the domains docs/federations.md promises
 *       for WEFT_TOPOLOGY=spec: dom[type][pe], numbered by lowest PE. An
 *       independent, deliberately naive re-implementation of the rules (it
 *       walks the simulated machine PE by PE), so the library is checked
 *       against the documentation, not against itself.
 *   fed_check_team(t, list, size, what)  t holds world PEs list[0..size) in
 *       that order (or SHMEM_TEAM_INVALID when this PE is not in list):
 *       n_pes, my_pe, translate_pe both ways, then a team_sync, a sum and a
 *       max reduction over it. Collective over the team. */
#ifndef FED_TEST_H
#define FED_TEST_H

#include <shmemx.h>

#include "weft_test.h"

#define FED_NTYPES 4
static const int fed_types[FED_NTYPES] = {SHMEMX_TEAM_TYPE_NODE, SHMEMX_TEAM_TYPE_NUMA,
                                          SHMEMX_TEAM_TYPE_SOCKET, SHMEMX_TEAM_TYPE_L3};
static const char *const fed_type_names[FED_NTYPES] = {"NODE", "NUMA", "SOCKET", "L3"};

static long *fed_src, *fed_dst;

static inline void fed_alloc(void)
{
    fed_src = shmem_malloc(4 * sizeof(long));
    fed_dst = shmem_malloc(4 * sizeof(long));
    WT_CHECK(fed_src && fed_dst, "shmem_malloc");
}

/* Parse one "key=value" option of a WEFT_TOPOLOGY spec (test side). */
static inline int fed_opt(const char *spec, const char *key, int dflt)
{
    const char *p = spec;
    size_t kl = strlen(key);
    while (p && *p) {
        if (!strncmp(p, key, kl) && p[kl] == '=')
            return atoi(p + kl + 1);
        p = strchr(p, ',');
        if (p)
            p++;
    }
    return dflt;
}

/* place=A or place=A:B; returns 1 for cyclic. */
static inline void fed_place(const char *spec, int *node_cyclic, int *local_cyclic)
{
    const char *p = strstr(spec, "place=");
    *node_cyclic = *local_cyclic = 0;
    if (!p)
        return;
    p += 6;
    *node_cyclic = !strncmp(p, "cyclic", 6);
    const char *colon = strchr(p, ':');
    const char *comma = strchr(p, ',');
    if (colon && (!comma || colon < comma))
        *local_cyclic = !strncmp(colon + 1, "cyclic", 6);
    else
        *local_cyclic = *node_cyclic;
}

/* Deal `items` into `bins` the documented way: cyclic round-robin, block in
 * contiguous runs with the first (items % bins) bins one larger. */
static inline void fed_deal(int items, int bins, int cyclic, int *bin_of)
{
    if (cyclic) {
        for (int i = 0; i < items; i++)
            bin_of[i] = i % bins;
        return;
    }
    int i = 0;
    for (int b = 0; b < bins; b++) {
        int take = items / bins + (b < items % bins);
        for (int k = 0; k < take; k++)
            bin_of[i++] = b;
    }
}

/* Renumber labels in order of first appearance. */
static inline void fed_renumber(int n, const long *label, int *id)
{
    int next = 0;
    for (int i = 0; i < n; i++) {
        id[i] = -1;
        for (int j = 0; j < i; j++)
            if (label[j] == label[i]) {
                id[i] = id[j];
                break;
            }
        if (id[i] < 0)
            id[i] = next++;
    }
}

static inline void fed_expect_sim(const char *spec, int n, int *dom[FED_NTYPES])
{
    int N = fed_opt(spec, "nodes", 1), S = fed_opt(spec, "sockets", 1);
    int U = fed_opt(spec, "numa", 1), L = fed_opt(spec, "l3", 1);
    int nc, lc;
    fed_place(spec, &nc, &lc);
    int *node = calloc((size_t)n, sizeof *node), *bin = calloc((size_t)n + 1, sizeof *bin);
    long *lab[FED_NTYPES];
    for (int t = 0; t < FED_NTYPES; t++)
        lab[t] = calloc((size_t)n, sizeof(long));
    fed_deal(n, N, nc, node);
    for (int nd = 0; nd < N; nd++) {
        int m = 0, pes[4096];
        for (int pe = 0; pe < n; pe++)
            if (node[pe] == nd)
                pes[m++] = pe;
        /* Local placement: block deals into the S*U*L L3 domains in
         * (socket, NUMA, L3) order; cyclic deals round robin over sockets,
         * then NUMA, then L3 (mixed radix). */
        if (!lc) {
            fed_deal(m, S * U * L, 0, bin);
        } else {
            for (int r = 0; r < m; r++) {
                int s = r % S, u = r / S % U, l = r / S / U % L;
                bin[r] = (s * U + u) * L + l;
            }
        }
        for (int r = 0; r < m; r++) {
            int pe = pes[r], leaf = bin[r];
            lab[0][pe] = nd;
            lab[2][pe] = (long)nd * 100000 + leaf / (U * L);      /* socket */
            lab[1][pe] = (long)nd * 100000 + leaf / L;            /* NUMA   */
            lab[3][pe] = (long)nd * 100000 + leaf;                /* L3     */
        }
    }
    for (int t = 0; t < FED_NTYPES; t++) {
        fed_renumber(n, lab[t], dom[t]);
        free(lab[t]);
    }
    free(node);
    free(bin);
}

static inline int fed_count(int n, const int *id)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        if (id[i] + 1 > c)
            c = id[i] + 1;
    return c;
}

static inline void fed_check_team(shmem_team_t t, const int *list, int size, const char *what)
{
    int in = -1;
    for (int i = 0; i < size; i++)
        if (list[i] == wt_me)
            in = i;
    if (in < 0) {
        WT_CHECK(t == SHMEM_TEAM_INVALID, "%s: non-member got a valid team", what);
        return;
    }
    WT_CHECK(t != SHMEM_TEAM_INVALID, "%s: member %d got SHMEM_TEAM_INVALID", what, in);
    WT_EQ_NUM(shmem_team_n_pes(t), size, "%s: n_pes", what);
    WT_EQ_NUM(shmem_team_my_pe(t), in, "%s: my_pe", what);
    for (int i = 0; i < size; i++) {
        WT_EQ_NUM(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), list[i],
                  "%s: translate member %d to world", what, i);
        WT_EQ_NUM(shmem_team_translate_pe(SHMEM_TEAM_WORLD, list[i], t), i,
                  "%s: translate world %d", what, list[i]);
    }
    WT_EQ_NUM(shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD), -1, "%s: index n_pes", what);
    WT_EQ_NUM(shmem_team_sync(t), 0, "%s: team_sync", what);
    fed_src[0] = wt_me + 1;
    fed_src[1] = 1;
    fed_src[2] = (long)in * 1000 + wt_me;
    WT_EQ_NUM(shmem_long_sum_reduce(t, fed_dst, fed_src, 2), 0, "%s: sum_reduce", what);
    long want = 0;
    for (int i = 0; i < size; i++)
        want += list[i] + 1;
    WT_EQ_NUM(fed_dst[0], want, "%s: sum of world PE+1", what);
    WT_EQ_NUM(fed_dst[1], size, "%s: member count", what);
    WT_EQ_NUM(shmem_long_max_reduce(t, fed_dst, fed_src + 2, 1), 0, "%s: max_reduce", what);
    WT_EQ_NUM(fed_dst[0], (long)(size - 1) * 1000 + list[size - 1], "%s: max of index", what);
    /* Barrier: put to the next member, quiet, sync; then read what the
     * previous member put here. */
    WT_EQ_NUM(shmem_team_sync(t), 0, "%s: second team_sync", what);
    shmem_long_p(&fed_dst[3], (long)wt_me * 7 + 3, list[(in + 1) % size]);
    shmem_quiet();
    WT_EQ_NUM(shmem_team_sync(t), 0, "%s: barrier (quiet + team_sync)", what);
    WT_EQ_NUM(fed_dst[3], (long)list[(in + size - 1) % size] * 7 + 3, "%s: put from the previous "
              "member visible after the barrier", what);
    WT_EQ_NUM(shmem_team_sync(t), 0, "%s: third team_sync", what);
}

#endif

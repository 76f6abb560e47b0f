/* SPDX-License-Identifier: BSD-3-Clause */
/* federated_redblack.c: a red/black relaxation where the colour of a PE is
 * the parity of its node in the node federation (shmemx.h), then a halo
 * exchange between neighbouring node teams, each PE sending to its
 * counterpart in the next team. Every PE replays the whole computation
 * serially and checks its own values against it.
 *
 *   WEFT_TOPOLOGY=nodes=3 oshrun -n 6 federated_redblack
 *
 * The PEs form a ring; x[p] starts at p*p. In iteration it, the PEs on
 * nodes whose team number has the parity of it take the mean of their two
 * ring neighbours (the old values: every PE reads, then all write). */
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 6

static double x, halo;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmemx_federation_t nodes;
    if (shmemx_federation_create(SHMEM_TEAM_WORLD, SHMEMX_TEAM_TYPE_NODE, &nodes) != 0) {
        fprintf(stderr, "PE %d: no node federation\n", me);
        shmem_global_exit(1);
    }
    int nteams = shmemx_federation_n_teams(nodes), mine = shmemx_federation_my_team(nodes);
    int left = (me + n - 1) % n, right = (me + 1) % n;

    /* The serial replay: ref[p] for every PE. */
    double *ref = malloc((size_t)n * sizeof *ref), *next = malloc((size_t)n * sizeof *next);
    if (!ref || !next)
        shmem_global_exit(1);
    for (int p = 0; p < n; p++)
        ref[p] = (double)p * p;

    x = (double)me * me;
    shmem_barrier_all();
    for (int it = 0; it < ITERS; it++) {
        int red_turn = it % 2;
        int active = mine % 2 == red_turn; /* the code path follows membership */
        double l = 0, r = 0;
        if (active) {
            l = shmem_double_g(&x, left);
            r = shmem_double_g(&x, right);
        }
        shmem_barrier_all();
        if (active)
            x = (l + r) / 2;
        shmem_barrier_all();
        for (int p = 0; p < n; p++)
            next[p] = shmemx_federation_team_of(nodes, p) % 2 == red_turn
                          ? (ref[(p + n - 1) % n] + ref[(p + 1) % n]) / 2
                          : ref[p];
        double *t = ref;
        ref = next;
        next = t;
    }

    /* Halo: my value to my counterpart in the next node team. */
    int to = shmemx_federation_translate_pe(nodes, me, (mine + 1) % nteams);
    halo = -1;
    shmem_barrier_all();
    if (to >= 0)
        shmem_double_p(&halo, x, to);
    shmem_barrier_all();
    int prev = (mine + nteams - 1) % nteams, idx = shmemx_federation_team_pe(nodes, me);
    int from = idx < shmemx_federation_team_n_pes(nodes, prev)
                   ? shmemx_federation_pe(nodes, prev, idx)
                   : -1;
    double want_halo = from >= 0 ? ref[from] : -1;

    int ok = x == ref[me] && halo == want_halo;
    if (!ok)
        printf("PE %d (node %d): x=%g want %g, halo=%g want %g: DIFFERS\n", me, mine, x,
               ref[me], halo, want_halo);
    int *oks = shmem_malloc(sizeof *oks), *all = shmem_malloc(sizeof *all);
    *oks = ok;
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, all, oks, 1);
    if (me == 0)
        printf("%d PEs on %d node team(s), %d red/black iterations: %s\n", n, nteams, ITERS,
               *all ? "every value and halo matches the serial replay" : "DIFFERS");
    int status = *all ? 0 : 1;
    shmem_free(oks);
    shmem_free(all);
    shmemx_federation_destroy(nodes);
    free(ref);
    free(next);
    shmem_finalize();
    return status;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* signal_ops: the signal routines without data (OpenSHMEM 1.6 set/add) and
 * the readers of a signal.
 *   add: every PE adds its own increments to a counter on PE 0 with
 *     shmem_signal_add and shmem_ctx_signal_add, all at once; PE 0 waits
 *     for the exact total (a lost or torn update never reaches it).
 *   set + fetch: each PE sets a 64-bit value on its right neighbour, which
 *     polls shmem_signal_fetch until it sees it (fetch must make progress).
 *   wait_until: the left neighbour drives a signal through a sequence of
 *     values, one step at a time (acknowledged with shmem_signal_set); for
 *     each step the receiver waits with one comparison that the previous
 *     value does not satisfy and must get exactly the new value back. Every
 *     SHMEM_CMP_* is used; one step needs an unsigned comparison (a value
 *     with the top bit set must be greater than 1) and one wraps around
 *     2^64 with ADD.
 *   team context: on the team of even world PEs, PE numbers given with the
 *     team's context are team-relative (team PE 1 is world PE 2). */
#include "weft_test.h"

#define NADD 200 /* additions per PE and form */

static int me, npes, right, left;

uint64_t counter, fetched_slot, driven, ack, team_sig;

static void concurrent_add(shmem_ctx_t ctx)
{
    WT_PHASE("concurrent shmem_signal_add / shmem_ctx_signal_add into PE 0");
    counter = 0;
    shmem_barrier_all();
    for (int i = 0; i < NADD; i++) {
        shmem_signal_add(&counter, (uint64_t)me + 1, 0);
        shmem_ctx_signal_add(ctx, &counter, ((uint64_t)me + 1) << 32, 0);
    }
    if (me == 0) {
        uint64_t per_form = (uint64_t)NADD * (uint64_t)npes * (uint64_t)(npes + 1) / 2;
        uint64_t want = per_form + (per_form << 32);
        uint64_t got = shmem_signal_wait_until(&counter, SHMEM_CMP_EQ, want);
        WT_EQ_NUM(got, want, "sum of all signal_add updates at PE 0");
    }
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
}

static void set_and_fetch(void)
{
    WT_PHASE("shmem_signal_set on the right neighbour, shmem_signal_fetch polling");
    fetched_slot = 0;
    shmem_barrier_all();
    uint64_t value = 0xFEDCBA9800000000ull | (uint64_t)me;
    shmem_signal_set(&fetched_slot, value, right);
    uint64_t want = 0xFEDCBA9800000000ull | (uint64_t)left;
    uint64_t seen;
    while ((seen = shmem_signal_fetch(&fetched_slot)) != want)
        WT_CHECK(seen == 0, "shmem_signal_fetch saw 0x%llx, neither 0 nor the value 0x%llx "
                 "set by PE %d", (unsigned long long)seen, (unsigned long long)want, left);
    shmem_barrier_all();
}

struct step {
    int op;         /* SHMEM_SIGNAL_SET or _ADD, applied by the left PE */
    uint64_t value; /* signal operand */
    int cmp;        /* what the receiver waits for */
    uint64_t cmp_value;
    uint64_t expect; /* the signal after the update */
    const char *cmp_name;
};

static const struct step steps[] = {
    {SHMEM_SIGNAL_SET, 10, SHMEM_CMP_GT, 5, 10, "GT"},
    {SHMEM_SIGNAL_SET, 3, SHMEM_CMP_LT, 5, 3, "LT"},
    {SHMEM_SIGNAL_SET, 7, SHMEM_CMP_EQ, 7, 7, "EQ"},
    {SHMEM_SIGNAL_SET, 8, SHMEM_CMP_NE, 7, 8, "NE"},
    {SHMEM_SIGNAL_ADD, 2, SHMEM_CMP_GE, 10, 10, "GE"},
    {SHMEM_SIGNAL_SET, 0, SHMEM_CMP_LE, 0, 0, "LE"},
    {SHMEM_SIGNAL_SET, 0x8000000000000001ull, SHMEM_CMP_GT, 1, 0x8000000000000001ull,
     "GT (unsigned: top bit set)"},
    {SHMEM_SIGNAL_SET, UINT64_MAX, SHMEM_CMP_GE, UINT64_MAX, UINT64_MAX, "GE UINT64_MAX"},
    {SHMEM_SIGNAL_ADD, 1, SHMEM_CMP_EQ, 0, 0, "EQ (ADD wrapped around 2^64)"},
};
#define NSTEPS (sizeof steps / sizeof steps[0])

static void wait_comparisons(void)
{
    driven = 0;
    ack = 0;
    shmem_barrier_all();
    for (size_t k = 0; k < NSTEPS; k++) {
        const struct step *st = &steps[k];
        WT_PHASE("signal_wait_until step %zu: %s %llu after %s %llu", k, st->cmp_name,
                 (unsigned long long)st->cmp_value,
                 st->op == SHMEM_SIGNAL_SET ? "SET" : "ADD", (unsigned long long)st->value);
        if (st->op == SHMEM_SIGNAL_SET)
            shmem_signal_set(&driven, st->value, right);
        else
            shmem_signal_add(&driven, st->value, right);
        uint64_t got = shmem_signal_wait_until(&driven, st->cmp, st->cmp_value);
        WT_EQ_NUM(got, st->expect, "shmem_signal_wait_until(%s %llu) return value",
                  st->cmp_name, (unsigned long long)st->cmp_value);
        /* Tell the left PE this step is consumed; wait until the right PE
         * consumed ours before driving its signal again. */
        shmem_signal_set(&ack, k + 1, left);
        WT_EQ_NUM(shmem_signal_wait_until(&ack, SHMEM_CMP_GE, k + 1), k + 1,
                  "acknowledgement from PE %d", right);
    }
    WT_PHASE("signal_wait_until on an already satisfied condition");
    WT_EQ_NUM(shmem_signal_wait_until(&driven, SHMEM_CMP_LE, 0), 0, "immediate wait");
    shmem_barrier_all();
}

static void team_context(void)
{
    if (npes < 3)
        return;
    WT_PHASE("signals on a context of the team of even PEs (team-relative PE numbers)");
    shmem_team_t evens;
    int nev = (npes + 1) / 2;
    team_sig = 0;
    shmem_barrier_all();
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nev, NULL, 0, &evens);
    static long data[4], src[4] = {11, 22, 33, 44};
    if (me % 2 == 0) {
        shmem_ctx_t tctx;
        WT_CHECK(shmem_team_create_ctx(evens, 0, &tctx) == 0, "shmem_team_create_ctx");
        if (me == 0) {
            /* Team PE 1 is world PE 2. */
            shmem_ctx_long_put_signal(tctx, data, src, 4, &team_sig, 5, SHMEM_SIGNAL_SET, 1);
            shmem_ctx_fence(tctx); /* the add must not overtake the set */
            shmem_ctx_signal_add(tctx, &team_sig, 100, 1);
            shmem_ctx_quiet(tctx);
        }
        if (me == 2) {
            WT_EQ_NUM(shmem_signal_wait_until(&team_sig, SHMEM_CMP_EQ, 105), 105,
                      "signal from world PE 0 addressed as team PE 1");
            for (int i = 0; i < 4; i++)
                WT_EQ_NUM(data[i], src[i], "data of the team-context put_signal, element %d", i);
        }
        shmem_ctx_destroy(tctx);
        shmem_team_destroy(evens);
    }
    shmem_barrier_all();
    if (me != 2)
        WT_EQ_NUM(team_sig, 0, "signal landed on world PE %d instead of world PE 2", me);
    shmem_barrier_all();
}

int main(void)
{
    wt_init("signal_ops");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    shmem_ctx_t ctx;
    WT_CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create(0) failed");

    concurrent_add(ctx);
    concurrent_add(SHMEM_CTX_DEFAULT);
    set_and_fetch();
    wait_comparisons();
    team_context();

    shmem_ctx_destroy(ctx);
    wt_finish();
    return 0;
}

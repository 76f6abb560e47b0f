/* SPDX-License-Identifier: BSD-3-Clause */
/* ctx_api: the life cycle of contexts and what a program can observe of
 * their resources.
 *   options: PRIVATE, SERIALIZED, NOSTORE and their combinations create a
 *     working context; an unknown option bit fails with non-zero and
 *     SHMEM_CTX_INVALID;
 *   teams: shmem_team_create_ctx on a team of the odd PEs addresses team
 *     PEs (team PE 0 is world PE 1); shmem_ctx_get_team gives that team,
 *     SHMEM_TEAM_WORLD for shmem_ctx_create, SHMEM_TEAM_INVALID and
 *     non-zero for SHMEM_CTX_INVALID; SHMEM_TEAM_INVALID gives no context;
 *   SHMEM_CTX_INVALID: fence, quiet and destroy do nothing;
 *   many: argv[1] contexts at once (more than the endpoint budget when
 *     WEFT_CTX_ENDPOINTS is small), each with a put, a get and an atomic to
 *     every PE, checked; destroyed in a scrambled order;
 *   churn: 200 cycles of create, an atomic, destroy (each PE's targets go
 *     round all PEs, so every PE receives exactly 200 increments);
 *   argv[2] = "refuse N": with WEFT_CTX_SHARE=0 and WEFT_CTX_ENDPOINTS=N,
 *     exactly N contexts can be created on a PE that uses libfabric (all of
 *     them when every PE is reached directly: no endpoint is needed); the
 *     next returns non-zero and SHMEM_CTX_INVALID, without a crash; after
 *     one is destroyed, one more can be created. */
#include "weft_test.h"

static int me, npes;
long cells[64];
long atom;
static long *heap_cells;

static void exercise(shmem_ctx_t ctx, int k, const char *what)
{
    /* A put of (k, me) into slot me of every PE, read back after quiet. */
    for (int pe = 0; pe < npes; pe++) {
        long v = ((long)k << 32) | (long)(me + 1);
        shmem_ctx_long_p(ctx, &heap_cells[me], v, pe);
        shmem_ctx_long_put(ctx, &cells[me % 64], &v, 1, pe);
        shmem_ctx_quiet(ctx);
        WT_EQ_NUM(shmem_ctx_long_g(ctx, &heap_cells[me], pe), v,
                  "%s %d: heap word read back from PE %d", what, k, pe);
        long back = 0;
        shmem_ctx_long_get(ctx, &back, &cells[me % 64], 1, pe);
        WT_EQ_NUM(back, v, "%s %d: static word read back from PE %d", what, k, pe);
        shmem_ctx_long_atomic_inc(ctx, &atom, pe);
    }
    shmem_ctx_quiet(ctx);
}

/* Whether the library reaches every PE directly (then contexts need no
 * endpoint). shmem_ptr is non-NULL for the calling PE even when weft goes
 * through libfabric to itself (WEFT_ONNODE=0), hence the variable. */
static int all_direct(void)
{
    const char *onnode = getenv("WEFT_ONNODE");
    if (onnode && !strcmp(onnode, "0"))
        return 0;
    for (int pe = 0; pe < npes; pe++)
        if (!shmem_ptr(heap_cells, pe) || !shmem_ptr(cells, pe))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int many = argc > 1 ? atoi(argv[1]) : 40;
    int refuse = argc > 3 && !strcmp(argv[2], "refuse") ? atoi(argv[3]) : -1;
    wt_init("ctx_api");
    me = wt_me;
    npes = wt_npes;
    heap_cells = shmem_calloc((size_t)npes, sizeof(long));
    WT_CHECK(heap_cells, "allocation");
    long expect_atom = 0;

    if (refuse >= 0) {
        WT_PHASE("WEFT_CTX_SHARE=0, WEFT_CTX_ENDPOINTS=%d", refuse);
        int direct = all_direct();
        int cap = direct ? refuse + 3 : refuse;
        shmem_ctx_t *ctx = calloc((size_t)cap + 1, sizeof *ctx);
        for (int k = 0; k < cap; k++) {
            WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx[k]) == 0 &&
                         ctx[k] != SHMEM_CTX_INVALID,
                     "context %d of %d allowed (%s) could not be created", k + 1, cap,
                     direct ? "every PE direct: no endpoint needed" : "within the budget");
            exercise(ctx[k], k, "context within the budget");
            expect_atom += npes;
        }
        if (!direct) {
            shmem_ctx_t extra = (shmem_ctx_t)&ctx; /* anything but INVALID */
            int rc = shmem_ctx_create(SHMEM_CTX_PRIVATE, &extra);
            WT_CHECK(rc != 0, "a context past WEFT_CTX_ENDPOINTS=%d with WEFT_CTX_SHARE=0 "
                     "was created (returned 0)", refuse);
            WT_CHECK(extra == SHMEM_CTX_INVALID, "the refused context is not SHMEM_CTX_INVALID");
            shmem_ctx_quiet(extra); /* no-ops on SHMEM_CTX_INVALID */
            shmem_ctx_fence(extra);
            shmem_ctx_destroy(extra);
            if (cap > 0) {
                shmem_ctx_destroy(ctx[cap - 1]);
                WT_CHECK(shmem_ctx_create(0, &ctx[cap - 1]) == 0,
                         "after a destroy, a new context could not be created");
                exercise(ctx[cap - 1], cap - 1, "context created after a destroy");
                expect_atom += npes;
            }
        }
        for (int k = 0; k < cap; k++)
            shmem_ctx_destroy(ctx[k]);
        free(ctx);
        shmem_barrier_all();
        WT_EQ_NUM(atom, expect_atom, "atomic increments from every PE's contexts");
        wt_finish();
        return 0;
    }

    WT_PHASE("options");
    static const long opts[] = {0,
                                SHMEM_CTX_PRIVATE,
                                SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        WT_CHECK(shmem_ctx_create(opts[i], &ctx) == 0 && ctx != SHMEM_CTX_INVALID,
                 "shmem_ctx_create(%ld)", opts[i]);
        shmem_team_t team = SHMEM_TEAM_INVALID;
        WT_CHECK(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD,
                 "shmem_ctx_get_team of a context from shmem_ctx_create is not world");
        if (!(opts[i] & SHMEM_CTX_NOSTORE)) {
            exercise(ctx, (int)i, "options");
            expect_atom += npes;
        } else {
            /* A NOSTORE context still reads. */
            for (int pe = 0; pe < npes; pe++)
                (void)shmem_ctx_long_g(ctx, &heap_cells[0], pe);
        }
        shmem_ctx_destroy(ctx);
    }
    shmem_ctx_t bad = SHMEM_CTX_DEFAULT;
    WT_CHECK(shmem_ctx_create(1L << 20, &bad) != 0 && bad == SHMEM_CTX_INVALID,
             "shmem_ctx_create with an unknown option bit must fail with SHMEM_CTX_INVALID");

    WT_PHASE("SHMEM_CTX_INVALID");
    shmem_team_t t_inv = SHMEM_TEAM_WORLD;
    WT_CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t_inv) != 0 && t_inv == SHMEM_TEAM_INVALID,
             "shmem_ctx_get_team(SHMEM_CTX_INVALID)");
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_ctx_t c_inv = SHMEM_CTX_DEFAULT;
    WT_CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c_inv) != 0 &&
                 c_inv == SHMEM_CTX_INVALID,
             "shmem_team_create_ctx(SHMEM_TEAM_INVALID)");
    shmem_team_t def_team = SHMEM_TEAM_INVALID;
    WT_CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &def_team) == 0 &&
                 def_team == SHMEM_TEAM_WORLD,
             "shmem_ctx_get_team(SHMEM_CTX_DEFAULT)");

    WT_PHASE("team context of the odd PEs");
    shmem_barrier_all();
    if (npes >= 2) {
        shmem_team_t odd = SHMEM_TEAM_INVALID;
        WT_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd) == 0,
                 "shmem_team_split_strided(odd PEs)");
        if (me % 2) {
            shmem_ctx_t tctx = SHMEM_CTX_INVALID;
            WT_CHECK(shmem_team_create_ctx(odd, SHMEM_CTX_PRIVATE, &tctx) == 0,
                     "shmem_team_create_ctx(odd team)");
            shmem_team_t back = SHMEM_TEAM_INVALID;
            WT_CHECK(shmem_ctx_get_team(tctx, &back) == 0 && back == odd,
                     "shmem_ctx_get_team of a team context");
            int tpes = shmem_team_n_pes(odd);
            for (int tp = 0; tp < tpes; tp++)
                shmem_ctx_long_p(tctx, &heap_cells[me], 1000 + me, tp); /* world 2*tp+1 */
            shmem_ctx_long_atomic_add(tctx, &atom, 100, 0);            /* world PE 1 */
            shmem_ctx_quiet(tctx);
            shmem_ctx_destroy(tctx);
        } else {
            WT_CHECK(odd == SHMEM_TEAM_INVALID, "an even PE is in the odd team");
            shmem_ctx_t none = SHMEM_CTX_DEFAULT;
            WT_CHECK(shmem_team_create_ctx(odd, 0, &none) != 0 && none == SHMEM_CTX_INVALID,
                     "shmem_team_create_ctx on a team this PE is not in");
            shmem_ctx_quiet(none);
        }
        shmem_barrier_all();
        if (me % 2)
            for (int w = 1; w < 2 * (npes / 2); w += 2)
                WT_EQ_NUM(heap_cells[w], 1000 + w, "team context put from world PE %d", w);
        shmem_barrier_all(); /* checked before anyone writes heap_cells again */
        if (me == 1)
            expect_atom += 100L * (npes / 2);
        if (odd != SHMEM_TEAM_INVALID)
            shmem_team_destroy(odd);
    }

    WT_PHASE("%d contexts at once", many);
    shmem_ctx_t *ctx = calloc((size_t)many, sizeof *ctx);
    WT_CHECK(ctx, "allocation");
    for (int k = 0; k < many; k++) {
        WT_CHECK(shmem_ctx_create(k % 2 ? SHMEM_CTX_PRIVATE : 0, &ctx[k]) == 0,
                 "context %d of %d (WEFT_CTX_SHARE is on: past the endpoint budget contexts "
                 "share)", k + 1, many);
    }
    for (int k = 0; k < many; k++) {
        exercise(ctx[k], k, "one of many contexts");
        expect_atom += npes;
    }
    for (int k = 0; k < many; k++) {
        int j = (k * 7 + 3) % many; /* scrambled, each once when gcd(7, many) = 1 */
        if (ctx[j] != SHMEM_CTX_INVALID) {
            shmem_ctx_destroy(ctx[j]);
            ctx[j] = SHMEM_CTX_INVALID;
        }
    }
    for (int k = 0; k < many; k++)
        if (ctx[k] != SHMEM_CTX_INVALID)
            shmem_ctx_destroy(ctx[k]);
    free(ctx);

    /* Contexts created and destroyed over and over, each used: endpoints
     * must be recycled (with shm every endpoint a process ever opens takes
     * a slot at each peer it talks to, for the rest of the job). */
    WT_PHASE("200 create-use-destroy cycles");
    for (int k = 0; k < 200; k++) {
        shmem_ctx_t c = SHMEM_CTX_INVALID;
        WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0, "cycle %d: shmem_ctx_create", k);
        int pe = (me + k) % npes;
        shmem_ctx_long_atomic_inc(c, &atom, pe);
        shmem_ctx_destroy(c);
    }
    expect_atom += 200;
    shmem_barrier_all();
    WT_EQ_NUM(atom, expect_atom, "atomic increments at PE %d", me);
    wt_finish();
    return 0;
}

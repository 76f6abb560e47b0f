/* SPDX-License-Identifier: BSD-3-Clause */
/* session: shmem_ctx_session_start / shmem_ctx_session_stop (OpenSHMEM 1.6)
 * are hints that change no result: a batch of non-fetching AMOs and small
 * puts inside a session (created context, SHMEM_CTX_SESSION_BATCH with a
 * total_ops hint; started twice, which combines; stopped twice, which is
 * harmless) and a second on the default context with no config must give
 * exactly the values of the same operations without a session. Both
 * routines accept SHMEM_CTX_INVALID as a no-op. */
#include "weft_test.h"

#define NUPD 2000
#define NIDX 64
#define MARK_EVERY 100
#define NMARK (NUPD / MARK_EVERY) /* marker slots per writing PE */

static int me, npes;

/* Deterministic updates: PE p's update i adds (p+1)*(i+1) to table slot
 * (p*7 + i*13) % NIDX on PE (p + i) % npes; every MARK_EVERY-th also puts
 * i + 1 into its own marker slot there. */
static void updates(shmem_ctx_t ctx, uint64_t *table, long *marks)
{
    for (int i = 0; i < NUPD; i++) {
        int pe = (me + i) % npes;
        shmem_ctx_uint64_atomic_add(ctx, &table[(me * 7 + i * 13) % NIDX],
                                    (uint64_t)(me + 1) * (uint64_t)(i + 1), pe);
        if (i % MARK_EVERY == 0)
            shmem_ctx_long_p(ctx, &marks[me * NMARK + i / MARK_EVERY], i + 1, pe);
    }
}

static void expect_table(const uint64_t *table, const long *marks, const char *what)
{
    uint64_t want[NIDX];
    memset(want, 0, sizeof want);
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < NUPD; i++)
            if ((p + i) % npes == me)
                want[(p * 7 + i * 13) % NIDX] += (uint64_t)(p + 1) * (uint64_t)(i + 1);
    for (int k = 0; k < NIDX; k++)
        WT_EQ_NUM(table[k], want[k], "%s: table slot %d", what, k);
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < NUPD; i += MARK_EVERY)
            WT_EQ_NUM(marks[p * NMARK + i / MARK_EVERY], (p + i) % npes == me ? i + 1 : 0,
                      "%s: marker of PE %d's update %d", what, p, i);
}

int main(void)
{
    wt_init("session");
    me = wt_me;
    npes = wt_npes;
    uint64_t *table = shmem_calloc(NIDX, sizeof(uint64_t));
    long *marks = shmem_calloc((size_t)npes * NMARK, sizeof(long));
    WT_CHECK(table && marks, "shmem_calloc");
    shmem_ctx_t ctx;
    WT_CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create(0) failed");

    WT_PHASE("batch session on a created context");
    shmem_ctx_session_config_t config = {.total_ops = NUPD + NMARK};
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &config, SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_ctx_session_start(ctx, 0, NULL, 0); /* combines with the running session */
    updates(ctx, table, marks);
    shmem_ctx_session_stop(ctx);
    shmem_ctx_session_stop(ctx); /* already stopped: no effect */
    shmem_ctx_quiet(ctx);        /* stop neither completes nor synchronizes */
    shmem_sync_all();
    expect_table(table, marks, "after the session on a created context");

    WT_PHASE("session on the default context, then the same without a session");
    shmem_barrier_all();
    memset(table, 0, NIDX * sizeof(uint64_t));
    memset(marks, 0, (size_t)npes * NMARK * sizeof(long));
    shmem_barrier_all();
    shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    updates(SHMEM_CTX_DEFAULT, table, marks);
    shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    updates(SHMEM_CTX_DEFAULT, table, marks); /* twice the contributions now */
    shmem_quiet();
    shmem_sync_all();
    for (int k = 0; k < NIDX; k++)
        table[k] /= 2;
    expect_table(table, marks, "after a session on the default context plus the same "
                               "updates outside it (halved)");

    WT_PHASE("SHMEM_CTX_INVALID");
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL,
                            SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);

    shmem_ctx_destroy(ctx);
    shmem_free(marks);
    shmem_free(table);
    wt_finish();
    return 0;
}

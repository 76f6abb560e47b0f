/* SPDX-License-Identifier: BSD-3-Clause */
/* pe_quiet: shmem_pe_quiet and shmem_ctx_pe_quiet (OpenSHMEM 1.6).
 *   completion: each PE writes a 64 KiB block with put_nbi (and a word with
 *     an nbi AMO) to the PE two to its right, calls shmem_pe_quiet on that
 *     PE alone, then raises a flag at its right neighbour; the neighbour,
 *     seeing the flag, reads the target with shmem_get and must find all of
 *     it: pe_quiet means remote completion, as quiet does. Repeated ITER
 *     times with a new pattern each round, also through shmem_ctx_pe_quiet
 *     on a created context with a list naming PEs twice.
 *   team context: PE numbers in the list are relative to the context's
 *     team (team of even PEs: team PE 1 is world PE 2).
 *   edge cases: npes = 0 ignores target_pes (NULL accepted) and returns;
 *     SHMEM_CTX_INVALID is a no-op, like shmem_ctx_quiet. */
#include "weft_test.h"

#define BLOCK (64 * 1024)
#define ITER 20

static int me, npes;
uint64_t flag, word;

int main(void)
{
    wt_init("pe_quiet");
    me = wt_me;
    npes = wt_npes;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes, target = (me + 2) % npes;
    /* The flag I wait for comes from my left neighbour: I check what it
     * wrote, at its target. */
    int checked = (left + 2) % npes;
    shmem_ctx_t ctx;
    WT_CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create(0) failed");
    unsigned char *blk = shmem_malloc(BLOCK);
    unsigned char *src = malloc(BLOCK), *seen = malloc(BLOCK);
    WT_CHECK(blk && src && seen, "allocation");

    for (int it = 1; it <= ITER; it++) {
        int use_ctx = it % 2 == 0;
        WT_PHASE("%s round %d", use_ctx ? "shmem_ctx_pe_quiet" : "shmem_pe_quiet", it);
        flag = 0;
        shmem_barrier_all();
        wt_fill_bytes(src, BLOCK, me, 0, (unsigned)it);
        uint64_t w = 0x5157000000000000ull | ((uint64_t)it << 16) | (uint64_t)me;
        if (use_ctx) {
            shmem_ctx_putmem_nbi(ctx, blk, src, BLOCK, target);
            shmem_ctx_uint64_atomic_set(ctx, &word, w, target);
            int list[3] = {target, right, target};
            shmem_ctx_pe_quiet(ctx, list, 3);
        } else {
            shmem_putmem_nbi(blk, src, BLOCK, target);
            shmem_uint64_atomic_set(&word, w, target);
            shmem_pe_quiet(&target, 1);
        }
        shmem_uint64_atomic_set(&flag, (uint64_t)it, right);
        shmem_uint64_wait_until(&flag, SHMEM_CMP_EQ, (uint64_t)it);
        shmem_getmem(seen, blk, BLOCK, checked);
        uint64_t got = shmem_uint64_atomic_fetch(&word, checked);
        char what[128];
        snprintf(what, sizeof what, "block PE %d wrote to PE %d before its pe_quiet", left,
                 checked);
        WT_CHECK_BYTES(seen, BLOCK, left, 0, (unsigned)it, what);
        WT_EQ_NUM(got, 0x5157000000000000ull | ((uint64_t)it << 16) | (uint64_t)left,
                  "word PE %d set at PE %d with an AMO before its pe_quiet", left, checked);
        shmem_barrier_all();
    }

    WT_PHASE("npes = 0 and SHMEM_CTX_INVALID");
    shmem_pe_quiet(NULL, 0);
    shmem_ctx_pe_quiet(ctx, NULL, 0);
    int bogus = -5; /* never looked at: the context is invalid */
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, &bogus, 1);

    if (npes >= 3) {
        WT_PHASE("shmem_ctx_pe_quiet on a team context (team-relative PE numbers)");
        shmem_team_t evens;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
        if (me % 2 == 0) {
            shmem_ctx_t tctx;
            WT_CHECK(shmem_team_create_ctx(evens, 0, &tctx) == 0, "shmem_team_create_ctx");
            if (me == 0) {
                wt_fill_bytes(src, BLOCK, me, 0, 99);
                shmem_ctx_putmem_nbi(tctx, blk, src, BLOCK, 1); /* world PE 2 */
                int list[1] = {1};
                shmem_ctx_pe_quiet(tctx, list, 1);
                shmem_getmem(seen, blk, BLOCK, 2);
                WT_CHECK_BYTES(seen, BLOCK, 0, 0, 99, "block put to team PE 1 (world PE 2)");
            }
            shmem_ctx_destroy(tctx);
            shmem_team_destroy(evens);
        }
        shmem_barrier_all();
    }

    shmem_ctx_destroy(ctx);
    free(src);
    free(seen);
    shmem_free(blk);
    wt_finish();
    return 0;
}

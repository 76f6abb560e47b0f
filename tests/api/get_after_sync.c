/* SPDX-License-Identifier: BSD-3-Clause */
/* get_after_sync: a get returns the puts its caller is entitled to see
 * while those puts still wait, unapplied, in the target's queue.
 *
 * The target, PE 1, is told to compute (no weft call, and the job runs
 * without progress threads), and only then are the puts issued, all small
 * enough to be injected; a get can then only see them by going through
 * PE 1's queue or waiting for it. Over libfabric shm, gets this large are
 * copied by the reader itself (process_vm_readv: ofi_cma.c), after an
 * ordering read that a later get from the same PE may skip; each case
 * below is one reason it must not. Before the case, the reader has already
 * read from PE 1, and the "go" that starts PE 1's computation travels on a
 * context of its own, so the reader's default context has done nothing
 * since that read:
 *   own:   PE 0 puts to PE 1, quiets, and gets from PE 1;
 *   fifo:  PE 0 puts to PE 1 and gets from PE 1 with no quiet between
 *          (beyond the specification, which needs the quiet; weft keeps
 *          its gets behind its earlier puts to the same PE on every path,
 *          as programs written for other implementations expect);
 *   ctx:   PE 0 puts to PE 1 on a context, quiets that context, and gets
 *          from PE 1 on the default context;
 *   third: PE 0 puts to PE 1, quiets, and sets a flag at PE 2, which waits
 *          for it and gets from PE 1 (3 PEs or more).
 * argv[1]: rounds per case (default 6). */
#include "weft_test.h"

#define LEN (64 * 1024)
#define PIECE 1024
#define COMPUTE_MS 20

int main(int argc, char **argv)
{
    wt_init("get_after_sync");
    int rounds = argc > 1 ? atoi(argv[1]) : 6;
    if (wt_npes < 2) {
        wt_finish();
        return 0;
    }
    unsigned char *buf = shmem_malloc(LEN);
    long *go = shmem_calloc(1, sizeof(long));
    long *flag = shmem_calloc(1, sizeof(long));
    unsigned char *got = malloc(LEN), *src = malloc(LEN);
    WT_CHECK(buf && go && flag && got && src, "allocation");
    shmem_ctx_t side, writer;
    WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &side) == 0, "shmem_ctx_create(side)");
    WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &writer) == 0, "shmem_ctx_create(writer)");
    enum { OWN, FIFO, CTX, THIRD };
    const char *cases[] = {"own", "fifo", "ctx", "third"};
    int ncases = wt_npes >= 3 ? 4 : 3;
    unsigned tag = 0;
    for (int c = 0; c < ncases; c++) {
        int reader = c == THIRD ? 2 : 0;
        for (int r = 0; r < rounds; r++, tag++) {
            WT_PHASE("%s round %d: setup", cases[c], r);
            wt_fill_bytes(buf, LEN, 1, 0, 1000 + tag); /* the old contents */
            *go = 0;
            *flag = 0;
            shmem_barrier_all();
            if (wt_me == reader) {
                /* The read a later get might think still covers it. */
                shmem_getmem(got, buf, LEN, 1);
                WT_CHECK_BYTES(got, LEN, 1, 0, 1000 + tag, "first get");
                /* No quiet here: it would count as one (ofi_cma.c). */
                shmem_ctx_long_atomic_set(side, go, 1, 1);
                if (reader != 0)
                    shmem_ctx_long_atomic_set(side, go, 1, 0);
            }
            if (wt_me == 1) {
                shmem_long_wait_until(go, SHMEM_CMP_EQ, 1);
                wt_compute_ms(COMPUTE_MS); /* no progress: puts to us stay queued */
            }
            if (wt_me == 0) {
                if (reader != 0)
                    shmem_long_wait_until(go, SHMEM_CMP_EQ, 1);
                wt_nap_ms(2); /* PE 1 is computing by now */
                WT_PHASE("%s round %d: puts", cases[c], r);
                wt_fill_bytes(src, LEN, 1, 0, tag);
                shmem_ctx_t ctx = c == CTX ? writer : SHMEM_CTX_DEFAULT;
                for (size_t o = 0; o < LEN; o += PIECE)
                    shmem_ctx_putmem(ctx, buf + o, src + o, PIECE, 1);
                if (c != FIFO)
                    shmem_ctx_quiet(ctx);
                if (c == THIRD)
                    shmem_long_atomic_set(flag, 1, 2);
            }
            if (wt_me == reader) {
                WT_PHASE("%s round %d: get", cases[c], r);
                if (c == THIRD)
                    shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
                shmem_getmem(got, buf, LEN, 1);
                WT_CHECK_BYTES(got, LEN, 1, 0, tag, cases[c]);
            }
            shmem_barrier_all();
        }
    }
    shmem_ctx_destroy(side);
    shmem_ctx_destroy(writer);
    free(got);
    free(src);
    shmem_free(flag);
    shmem_free(go);
    shmem_free(buf);
    wt_finish();
    return 0;
}

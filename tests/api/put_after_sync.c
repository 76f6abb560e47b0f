/* SPDX-License-Identifier: BSD-3-Clause */
/* put_after_sync: a large put lands after the puts that come before it in
 * the specification's order, and a PE that learns of queued puts through a
 * large put sees them, while those puts still wait, unapplied, in the
 * target's queue.
 *
 * The target, PE 1, is told to compute (no weft call, and the job runs
 * without progress threads); then PE 0 puts to it in pieces small enough
 * to be injected, which wait in PE 1's queue. Over libfabric shm, puts and
 * gets this large are copied by the origin itself (process_vm_writev and
 * process_vm_readv: ofi_cma.c), past that queue, after an ordering read
 * that a later copy to or from the same PE may skip; each case is one
 * reason it must not. Before each case the PE that copies has already
 * copied to or from PE 1 with its default context, which has done nothing
 * since ("go" travels on a context of its own):
 *   quiet: PE 0's pieces, shmem_quiet, then PE 0's large put over them;
 *   fence: the same with shmem_fence;
 *   nbi:   as quiet, but the large put is shmem_putmem_nbi, which may not
 *          wait for PE 1: it is copied only at the next quiet;
 *   signal: as nbi, with shmem_putmem_signal_nbi; PE 1 waits for the
 *          signal and must then find the put in place;
 *   flag:  PE 0's pieces, quiet, a flag set at PE 2, which waits for it and
 *          puts over them (3 PEs or more);
 *   bigflag: as flag, but the flag is the last word of a large put to PE 2
 *          (itself written by CMA, which PE 2 counts nowhere), and PE 2
 *          puts over the pieces;
 *   bigflagget: as bigflag, and PE 2 gets the pieces instead.
 * The put over the pieces must be what PE 1 holds at the end; the get
 * must return the pieces.
 * argv[1]: rounds per case (default 4). */
#include "weft_test.h"

#define LEN (64 * 1024)
#define PIECE 1024
#define COMPUTE_MS 20

enum { QUIET, FENCE, NBI, SIGNAL, FLAG, BIGFLAG, BIGFLAGGET, NCASES };
static const char *case_names[] = {"quiet", "fence",   "nbi",       "signal",
                                   "flag",  "bigflag", "bigflagget"};

int main(int argc, char **argv)
{
    wt_init("put_after_sync");
    int rounds = argc > 1 ? atoi(argv[1]) : 4;
    if (wt_npes < 2) {
        wt_finish();
        return 0;
    }
    unsigned char *buf = shmem_malloc(LEN);
    long *signal = shmem_malloc(LEN); /* the bigflag cases' large flag */
    long *go = shmem_calloc(1, sizeof(long));
    long *flag = shmem_calloc(1, sizeof(long));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    unsigned char *got = malloc(LEN), *src = malloc(LEN), *over = malloc(LEN);
    long *sigsrc = malloc(LEN);
    WT_CHECK(buf && signal && go && flag && sig && got && src && over && sigsrc, "allocation");
    shmem_ctx_t side;
    WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &side) == 0, "shmem_ctx_create(side)");
    size_t nsig = LEN / sizeof(long);
    int ncases = wt_npes >= 3 ? NCASES : FLAG;
    unsigned tag = 0;
    for (int c = 0; c < ncases; c++) {
        int copier = c >= FLAG ? 2 : 0; /* the PE whose copy could go wrong */
        for (int r = 0; r < rounds; r++, tag++) {
            WT_PHASE("%s round %d: setup", case_names[c], r);
            wt_fill_bytes(buf, LEN, 1, 0, 1000 + tag); /* the old contents */
            memset(signal, 0, LEN);
            *go = 0;
            *flag = 0;
            *sig = 0;
            shmem_barrier_all();
            if (wt_me == copier) {
                /* The copy a later one might think still covered. */
                if (c == BIGFLAGGET) {
                    shmem_getmem(got, buf, LEN, 1);
                    WT_CHECK_BYTES(got, LEN, 1, 0, 1000 + tag, "first get");
                } else {
                    wt_fill_bytes(over, LEN, 1, 0, 1000 + tag);
                    shmem_putmem(buf, over, LEN, 1);
                }
                shmem_ctx_long_atomic_set(side, go, 1, 1);
                if (copier != 0)
                    shmem_ctx_long_atomic_set(side, go, 1, 0);
            }
            if (wt_me == 1) {
                shmem_long_wait_until(go, SHMEM_CMP_EQ, 1);
                wt_compute_ms(COMPUTE_MS); /* no progress: puts to us stay queued */
            }
            wt_fill_bytes(over, LEN, 1, 0, 2000 + tag); /* what goes over the pieces */
            if (wt_me == 0) {
                if (copier != 0)
                    shmem_long_wait_until(go, SHMEM_CMP_EQ, 1);
                wt_nap_ms(2); /* PE 1 is computing by now */
                WT_PHASE("%s round %d: pieces", case_names[c], r);
                wt_fill_bytes(src, LEN, 1, 0, tag);
                for (size_t o = 0; o < LEN; o += PIECE)
                    shmem_putmem(buf + o, src + o, PIECE, 1);
                if (c == FENCE)
                    shmem_fence();
                else
                    shmem_quiet();
                if (c == QUIET || c == FENCE) {
                    shmem_putmem(buf, over, LEN, 1);
                } else if (c == NBI) {
                    shmem_putmem_nbi(buf, over, LEN, 1);
                    shmem_quiet();
                } else if (c == SIGNAL) {
                    shmem_putmem_signal_nbi(buf, over, LEN, sig, 1, SHMEM_SIGNAL_SET, 1);
                } else if (c == FLAG) {
                    shmem_long_atomic_set(flag, 1, 2);
                } else {
                    for (size_t i = 0; i < nsig; i++)
                        sigsrc[i] = 1;
                    shmem_putmem(signal, sigsrc, LEN, 2);
                }
            }
            if (wt_me == 2 && copier == 2) {
                WT_PHASE("%s round %d: after the flag", case_names[c], r);
                if (c == FLAG)
                    shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
                else
                    shmem_long_wait_until(&signal[nsig - 1], SHMEM_CMP_EQ, 1);
                if (c == BIGFLAGGET) {
                    shmem_getmem(got, buf, LEN, 1);
                    WT_CHECK_BYTES(got, LEN, 1, 0, tag, case_names[c]);
                } else {
                    shmem_putmem(buf, over, LEN, 1);
                }
            }
            if (wt_me == 1 && c == SIGNAL) {
                WT_PHASE("%s round %d: the signal", case_names[c], r);
                shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, 1);
                WT_CHECK_BYTES(buf, LEN, 1, 0, 2000 + tag, "the put, once its signal is seen");
            }
            shmem_barrier_all();
            if (wt_me == 1) {
                WT_PHASE("%s round %d: check", case_names[c], r);
                WT_CHECK_BYTES(buf, LEN, 1, 0, c == BIGFLAGGET ? tag : 2000 + tag, case_names[c]);
            }
            shmem_barrier_all();
        }
    }
    shmem_ctx_destroy(side);
    free(got);
    free(src);
    free(over);
    free(sigsrc);
    shmem_free(sig);
    shmem_free(flag);
    shmem_free(go);
    shmem_free(signal);
    shmem_free(buf);
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* bad_args: invalid arguments must be reported, naming the routine and the
 * argument, and end the whole job with a non-zero status - promptly, while
 * the other PEs wait in a barrier. Run under expect-failure.sh.
 *   bad_args put-stack     shmem_long_put with dest on the stack      -> dest
 *   bad_args put-malloc    shmem_long_put with dest from malloc       -> dest
 *   bad_args get-stack     shmem_int_get with source on the stack     -> source
 *   bad_args put-pe-n      shmem_long_put to pe = n_pes               -> pe
 *   bad_args put-pe-neg    shmem_long_put to pe = -1                  -> pe
 *   bad_args amo-pe-n      shmem_int_atomic_fetch_add to pe = n_pes   -> pe
 *   bad_args p-nonsym      shmem_double_p with dest from malloc       -> dest
 *   bad_args p-code        shmem_int_p with dest = a function's code  -> dest
 *   bad_args g-rodata      shmem_long_g from a string literal         -> source
 *   bad_args g-rodata-self the same from the calling PE itself        -> source
 * (code and read-only data lie between the heap and the static data when
 * the heap is placed below the program: one compare accepts them, and the
 * access must still be reported, not crash or read the bytes.)
 * Signals, blocked transfers and the other 1.6 routines:
 *   put-signal-op          shmem_long_put_signal with sig_op 7        -> sig_op
 *   put-signal-pe          shmem_long_put_signal to pe = n_pes        -> pe
 *   put-signal-nonsym      shmem_long_put_signal, sig_addr on stack   -> sig_addr
 *   put-signal-nbi-nonsym  shmem_ctx_putmem_signal_nbi, malloc sig    -> sig_addr
 *   put-signal-overlap     sig_addr inside dest                       -> sig_addr
 *   signal-add-nonsym      shmem_signal_add, sig_addr on stack        -> sig_addr
 *   signal-set-pe          shmem_signal_set to pe = -1                -> pe
 *   signal-fetch-nonsym    shmem_signal_fetch of a stack variable     -> sig_addr
 *   signal-wait-cmp        shmem_signal_wait_until with cmp 99        -> cmp
 *   ibput-nonsym           shmem_int_ibput with dest on the stack     -> dest
 *   ibget-pe               shmem_ctx_ibget64 from pe = n_pes          -> pe
 *   pe-quiet-pe            shmem_pe_quiet({0, n_pes}, 2)              -> target_pes[1]
 *   session-config         session_start, TOTAL_OPS mask, NULL config -> config
 *   query-init-null        shmem_query_initialized(NULL)              -> initialized
 * Point-to-point waits and size products:
 *   wait-stack             shmem_int_wait_until on a stack variable   -> ivar
 *   wait-null              shmem_long_wait_until(NULL, ...)           -> ivar
 *   test-stack             shmem_int_test on a stack variable         -> ivar
 *   wait-all-malloc        shmem_int_wait_until_all on malloc memory  -> ivars
 *   test-some-vector-stack shmem_long_test_some_vector, stack ivars   -> ivars
 *   put-overflow           shmem_long_put of SIZE_MAX/8 + 2 elements  -> nelems
 *   get-nbi-overflow       shmem_int_get_nbi of SIZE_MAX/4 + 1        -> nelems
 *   iput-overflow          shmem_long_iput with dst = PTRDIFF_MAX     -> dst
 *   fcollect-overflow      shmem_long_fcollect of SIZE_MAX/8 elements -> nelems
 *   wait-freed             shmem_int_wait_until on a freed heap block -> ivar
 *   test-any-freed         shmem_long_test_any on a freed heap block  -> ivars
 *   signal-wait-freed      shmem_signal_wait_until on a freed block   -> sig_addr
 * The last PE misbehaves; the others sit in shmem_barrier_all. Except:
 *   after-finalize         every PE finalizes, then the last one calls
 *                          shmem_long_put: the message names the PE */
#include "weft_test.h"

long sym_long[4];
int sym_int[4];
uint64_t sym_sig[4];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "put-stack";
    wt_init("bad_args");
    long src[4] = {1, 2, 3, 4};
    if (!strcmp(mode, "after-finalize")) {
        int me = wt_me, last = wt_npes - 1;
        shmem_finalize();
        if (me == last)
            shmem_long_put(sym_long, src, 4, 0);
        return 0; /* status 0: expect-failure.sh reports the missing error */
    }
    /* Freed on every PE (a collective call) before the last PE waits on it. */
    void *freed = shmem_malloc(64);
    shmem_free(freed);
    shmem_barrier_all();
    if (wt_me == wt_npes - 1) {
        WT_PHASE("invalid call: %s", mode);
        fprintf(stderr, "bad_args: PE %d makes the invalid call \"%s\"\n", wt_me, mode);
        if (!strcmp(mode, "put-stack")) {
            long stack_dest[4];
            shmem_long_put(stack_dest, src, 4, 0);
        } else if (!strcmp(mode, "put-malloc")) {
            long *heap_dest = malloc(4 * sizeof(long));
            shmem_long_put(heap_dest, src, 4, 0);
            free(heap_dest);
        } else if (!strcmp(mode, "get-stack")) {
            int stack_src[4] = {0}, dst[4];
            shmem_int_get(dst, stack_src, 4, 0);
        } else if (!strcmp(mode, "put-pe-n")) {
            shmem_long_put(sym_long, src, 4, wt_npes);
        } else if (!strcmp(mode, "put-pe-neg")) {
            shmem_long_put(sym_long, src, 4, -1);
        } else if (!strcmp(mode, "amo-pe-n")) {
            (void)shmem_int_atomic_fetch_add(&sym_int[0], 1, wt_npes);
        } else if (!strcmp(mode, "p-nonsym")) {
            double *d = malloc(sizeof(double));
            shmem_double_p(d, 1.0, 0);
            free(d);
        } else if (!strcmp(mode, "p-code")) {
            shmem_int_p((int *)(uintptr_t)&main, 1, 0);
        } else if (!strcmp(mode, "g-rodata") || !strcmp(mode, "g-rodata-self")) {
            static const char *const literal = "not symmetric, read-only";
            long got = shmem_long_g((const long *)(const void *)literal,
                                    !strcmp(mode, "g-rodata") ? 0 : wt_me);
            fprintf(stderr, "bad_args: shmem_long_g returned %ld\n", got);
        } else if (!strcmp(mode, "put-signal-op")) {
            shmem_long_put_signal(sym_long, src, 4, &sym_sig[0], 1, 7, 0);
        } else if (!strcmp(mode, "put-signal-pe")) {
            shmem_long_put_signal(sym_long, src, 4, &sym_sig[0], 1, SHMEM_SIGNAL_SET, wt_npes);
        } else if (!strcmp(mode, "put-signal-nonsym")) {
            uint64_t stack_sig = 0;
            shmem_long_put_signal(sym_long, src, 4, &stack_sig, 1, SHMEM_SIGNAL_SET, 0);
        } else if (!strcmp(mode, "put-signal-nbi-nonsym")) {
            uint64_t *heap_sig = malloc(sizeof(uint64_t));
            shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, sym_long, src, 8, heap_sig, 1,
                                        SHMEM_SIGNAL_ADD, 0);
            free(heap_sig);
        } else if (!strcmp(mode, "put-signal-overlap")) {
            shmem_long_put_signal(sym_long, src, 4, (uint64_t *)&sym_long[2], 1,
                                  SHMEM_SIGNAL_SET, 0);
        } else if (!strcmp(mode, "signal-add-nonsym")) {
            uint64_t stack_sig = 0;
            shmem_signal_add(&stack_sig, 1, 0);
        } else if (!strcmp(mode, "signal-set-pe")) {
            shmem_signal_set(&sym_sig[0], 1, -1);
        } else if (!strcmp(mode, "signal-fetch-nonsym")) {
            uint64_t stack_sig = 0;
            printf("fetched %llu\n", (unsigned long long)shmem_signal_fetch(&stack_sig));
        } else if (!strcmp(mode, "signal-wait-cmp")) {
            (void)shmem_signal_wait_until(&sym_sig[0], 99, 0);
        } else if (!strcmp(mode, "ibput-nonsym")) {
            int stack_dest[8], isrc[8] = {0};
            shmem_int_ibput(stack_dest, isrc, 4, 4, 2, 2, 0);
        } else if (!strcmp(mode, "ibget-pe")) {
            long dst[4];
            shmem_ctx_ibget64(SHMEM_CTX_DEFAULT, dst, sym_long, 2, 2, 1, 2, wt_npes);
        } else if (!strcmp(mode, "pe-quiet-pe")) {
            int targets[2] = {0, wt_npes};
            shmem_pe_quiet(targets, 2);
        } else if (!strcmp(mode, "session-config")) {
            shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL,
                                    SHMEM_CTX_SESSION_TOTAL_OPS);
        } else if (!strcmp(mode, "query-init-null")) {
            shmem_query_initialized(NULL);
        } else if (!strcmp(mode, "wait-stack")) {
            int stack_ivar = 0;
            shmem_int_wait_until(&stack_ivar, SHMEM_CMP_EQ, 1);
        } else if (!strcmp(mode, "wait-null")) {
            shmem_long_wait_until(NULL, SHMEM_CMP_EQ, 1);
        } else if (!strcmp(mode, "test-stack")) {
            int stack_ivar = 1;
            printf("test returned %d\n", shmem_int_test(&stack_ivar, SHMEM_CMP_EQ, 1));
        } else if (!strcmp(mode, "wait-all-malloc")) {
            int *ivars = calloc(4, sizeof(int));
            shmem_int_wait_until_all(ivars, 4, NULL, SHMEM_CMP_EQ, 1);
            free(ivars);
        } else if (!strcmp(mode, "test-some-vector-stack")) {
            long ivars[3] = {1, 1, 1}, want[3] = {1, 1, 1};
            size_t idx[3];
            printf("test returned %zu\n",
                   shmem_long_test_some_vector(ivars, 3, idx, NULL, SHMEM_CMP_EQ, want));
        } else if (!strcmp(mode, "wait-freed")) {
            shmem_int_wait_until((int *)freed, SHMEM_CMP_EQ, 1);
        } else if (!strcmp(mode, "test-any-freed")) {
            printf("test returned %zu\n",
                   shmem_long_test_any((long *)freed, 2, NULL, SHMEM_CMP_EQ, 1));
        } else if (!strcmp(mode, "signal-wait-freed")) {
            (void)shmem_signal_wait_until((uint64_t *)freed, SHMEM_CMP_EQ, 1);
        } else if (!strcmp(mode, "put-overflow")) {
            shmem_long_put(sym_long, src, SIZE_MAX / 8 + 2, 0);
        } else if (!strcmp(mode, "get-nbi-overflow")) {
            int dst[4];
            shmem_int_get_nbi(dst, sym_int, SIZE_MAX / 4 + 1, 0);
        } else if (!strcmp(mode, "iput-overflow")) {
            shmem_long_iput(sym_long, src, PTRDIFF_MAX, 1, 2, 0);
        } else if (!strcmp(mode, "fcollect-overflow")) {
            shmem_long_fcollect(SHMEM_TEAM_WORLD, sym_long, src, SIZE_MAX / 8);
        } else {
            fprintf(stderr, "bad_args: unknown mode %s\n", mode);
            return 2;
        }
        /* Reaching this line means the library accepted the call. */
        printf("bad_args: the invalid call \"%s\" returned normally\n", mode);
        fflush(stdout);
    }
    WT_PHASE("barrier after the invalid call");
    shmem_barrier_all();
    shmem_finalize();
    return 0; /* status 0: expect-failure.sh reports the missing error */
}

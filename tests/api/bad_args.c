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
 * The last PE misbehaves; the others sit in shmem_barrier_all. */
#include "weft_test.h"

long sym_long[4];
int sym_int[4];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "put-stack";
    wt_init("bad_args");
    long src[4] = {1, 2, 3, 4};
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

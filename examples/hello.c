/* SPDX-License-Identifier: BSD-3-Clause */
/* hello.c: the smallest useful OpenSHMEM program. Every PE says hello,
 * writes its number into PE 0's symmetric array with a put and bumps a
 * counter on PE 0 with an atomic; PE 0 checks both after a barrier.
 *
 *   oshcc hello.c -o hello && oshrun -n 4 ./hello
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long arrived; /* symmetric: lives in .bss on every PE */
static int verdict;  /* PE 0's result, sent to every PE */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();

    char name[SHMEM_MAX_NAME_LEN];
    int major, minor;
    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    printf("Hello from PE %d of %d (%s, OpenSHMEM %d.%d)\n", me, npes, name, major, minor);

    int *ranks = shmem_calloc((size_t)npes, sizeof(int)); /* symmetric heap */
    shmem_int_p(&ranks[me], me + 1, 0);
    shmem_long_atomic_inc(&arrived, 0);
    shmem_barrier_all();

    int status = 0;
    if (me == 0) {
        for (int i = 0; i < npes; i++)
            if (ranks[i] != i + 1) {
                fprintf(stderr, "hello: ranks[%d] = %d, expected %d\n", i, ranks[i], i + 1);
                status = 1;
            }
        if (arrived != npes) {
            fprintf(stderr, "hello: %ld PEs arrived, expected %d\n", arrived, npes);
            status = 1;
        }
        printf("PE 0: all %d PEs checked in: %s\n", npes, status ? "FAIL" : "OK");
        for (int pe = 0; pe < npes; pe++)
            shmem_int_p(&verdict, status, pe);
    }
    shmem_barrier_all(); /* completes the puts: everyone returns PE 0's verdict */
    status = verdict;
    shmem_free(ranks);
    shmem_finalize();
    return status;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* startup: the smallest OpenSHMEM job, init + barrier + finalize, whose
 * whole wall and CPU time bench/startup-compare takes as the cost of
 * starting and ending a job. It prints nothing and ignores its arguments,
 * so the same source builds with another implementation's oshcc. */
#include <shmem.h>

int main(void)
{
    shmem_init();
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* idle_nap: on a host whose PEs outnumber its CPUs, a PE that waits without
 * serving anyone gives its CPU away (it naps), while the PEs that work keep
 * going and every wait still ends.
 *
 * PE 0 adds to a counter on PE 1 with fetching atomics for argv[1] seconds
 * (default 0.6); PE 1 waits in a barrier meanwhile (over libfabric shm it
 * serves those atomics from there); PEs 2 and up wait in the same barrier
 * and serve nobody. Checked: the counter holds every add, and each idle PE
 * spent less than a fifth of its wait on the CPU (the calling thread's CPU
 * time: with WEFT_IDLE_NAP=0, 4 PEs on 2 CPUs, 48-58%; napping, 1%).
 * The CPU check runs where WT_EXPECT_NAP is set (the paths on which idle
 * PEs can nap: the direct path and shm count the requests they serve, tcp
 * naps on its CQ's descriptor) and the host has fewer CPUs than PEs;
 * elsewhere only the sum is checked. */
#include <time.h>

#include "weft_test.h"

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double thread_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long counter;

int main(int argc, char **argv)
{
    wt_init("idle_nap");
    double seconds = argc > 1 ? atof(argv[1]) : 0.6;
    int oversubscribed = sysconf(_SC_NPROCESSORS_ONLN) < wt_npes;
    shmem_barrier_all();
    if (wt_me == 0 && wt_npes > 1) {
        WT_PHASE("PE 0 adds to PE 1 for %.2f s", seconds);
        long adds = 0;
        double end = wall_now() + seconds;
        while (wall_now() < end) {
            long old = shmem_long_atomic_fetch_add(&counter, 1, 1);
            WT_EQ_NUM(old, adds, "fetch-add %ld returned the wrong old value", adds);
            adds++;
        }
        shmem_barrier_all();
        WT_PHASE("PE 0 checks the counter");
        WT_EQ_NUM(shmem_long_atomic_fetch(&counter, 1), adds, "the counter after %ld adds", adds);
    } else {
        WT_PHASE("waiting in the barrier while PE 0 works");
        double w0 = wall_now(), c0 = thread_cpu_now();
        shmem_barrier_all();
        double wall = wall_now() - w0, cpu = thread_cpu_now() - c0;
        if (wt_me >= 2 && oversubscribed && getenv("WT_EXPECT_NAP") && wall > 0.8 * seconds)
            WT_CHECK(cpu < 0.2 * wall, "an idle PE spent %.3f s on the CPU in a %.3f s wait "
                     "(%.0f%%): it should nap", cpu, wall, 100 * cpu / wall);
        if (wt_me >= 2 && getenv("WT_VERBOSE"))
            fprintf(stderr, "[idle_nap] PE %d: %.3f s CPU in a %.3f s wait\n", wt_me, cpu, wall);
    }
    wt_finish();
    return 0;
}

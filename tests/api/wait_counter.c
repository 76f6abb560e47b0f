/* SPDX-License-Identifier: BSD-3-Clause */
/* wait_counter: waits for a peer's update end for every kind of update,
 * whether they sleep on the counter of what reaches the PE
 * (WEFT_WAIT_COUNTER, over sockets) or poll memory (WEFT_WAIT_COUNTER=0,
 * the direct and mixed paths, where node peers store directly and bump no
 * counter).
 *
 * PE 0 updates every other PE late (argv[1] ms after the others start
 * waiting, default 60), one phase at a time, each after a barrier:
 * shmem_long_p then shmem_long_wait_until; two atomic adds then wait_until GE 2;
 * shmem_putmem_signal then shmem_signal_wait_until; one element of a vector
 * then wait_until_any, wait_until_some and (after the rest) wait_until_all;
 * shmem_long_p then a loop of shmem_long_test. Then PEs 0 and 1 ping-pong
 * 100 rounds of put + wait_until. Each waiting PE prints the CPU time its
 * thread and its process spent in the sleeping phases against their wall
 * time; where WT_EXPECT_SLEEP is set, the thread's share must stay under
 * 5% (sleeping: 0.1% or less; polling: all of it on an idle core, 8-18%
 * with the load average at 20-80).
 * Where WT_MAX_PINGPONG_S is set, the 100 round trips must take less (PEs
 * 0 and 1 are node peers storing directly on the mixed path: a wait that
 * slept on the counter would wake only at its 50 ms tick). */
#include <sys/resource.h>
#include <time.h>

#include "weft_test.h"

static double clock_of(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double process_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

#define NV 4
static long word, test_word, adds;
static uint64_t sig;
static long vec[NV];
static long ping;

static struct {
    double wall, thread, process, t0, c0, p0;
} spent;

static void wait_begins(void)
{
    spent.t0 = clock_of(CLOCK_MONOTONIC);
    spent.c0 = clock_of(CLOCK_THREAD_CPUTIME_ID);
    spent.p0 = process_cpu();
}

static void wait_ends(void)
{
    spent.wall += clock_of(CLOCK_MONOTONIC) - spent.t0;
    spent.thread += clock_of(CLOCK_THREAD_CPUTIME_ID) - spent.c0;
    spent.process += process_cpu() - spent.p0;
}

static void late(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    wt_init("wait_counter");
    int delay = argc > 1 ? atoi(argv[1]) : 60;
    int me = wt_me, n = wt_npes;
    long one = 1;
    if (n < 2) {
        wt_finish();
        return 0;
    }
    shmem_barrier_all();

    WT_PHASE("shmem_long_p, then shmem_long_wait_until");
    shmem_barrier_all();
    if (me == 0) {
        late(delay);
        for (int pe = 1; pe < n; pe++)
            shmem_long_p(&word, 7, pe);
    } else {
        wait_begins();
        shmem_long_wait_until(&word, SHMEM_CMP_EQ, 7);
        wait_ends();
    }

    WT_PHASE("two atomic adds, then shmem_long_wait_until GE 2");
    shmem_barrier_all();
    if (me == 0) {
        late(delay);
        for (int pe = 1; pe < n; pe++) {
            shmem_long_atomic_add(&adds, 1, pe);
            shmem_long_atomic_add(&adds, 1, pe);
        }
    } else {
        wait_begins();
        shmem_long_wait_until(&adds, SHMEM_CMP_GE, 2);
        wait_ends();
        WT_EQ_NUM(adds, 2, "the sum of two atomic adds");
    }

    WT_PHASE("shmem_putmem_signal, then shmem_signal_wait_until");
    shmem_barrier_all();
    if (me == 0) {
        late(delay);
        for (int pe = 1; pe < n; pe++)
            shmem_putmem_signal(&word, &one, sizeof one, &sig, 5, SHMEM_SIGNAL_ADD, pe);
    } else {
        wait_begins();
        uint64_t seen = shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 5);
        wait_ends();
        WT_EQ_NUM(seen, 5, "the value shmem_signal_wait_until returned");
        WT_EQ_NUM(word, 1, "the data put with the signal");
    }

    WT_PHASE("one element, then wait_until_any and wait_until_some");
    shmem_barrier_all();
    if (me == 0) {
        late(delay);
        for (int pe = 1; pe < n; pe++)
            shmem_long_p(&vec[2], 3, pe);
    } else {
        wait_begins();
        size_t i = shmem_long_wait_until_any(vec, NV, NULL, SHMEM_CMP_NE, 0);
        wait_ends();
        WT_EQ_NUM(i, 2, "the index shmem_long_wait_until_any returned");
        size_t idx[NV];
        WT_EQ_NUM(shmem_long_wait_until_some(vec, NV, idx, NULL, SHMEM_CMP_NE, 0), 1,
                  "the count shmem_long_wait_until_some returned");
        WT_EQ_NUM(idx[0], 2, "the index shmem_long_wait_until_some returned");
    }

    WT_PHASE("the other elements, then wait_until_all");
    shmem_barrier_all();
    if (me == 0) {
        late(delay);
        for (int pe = 1; pe < n; pe++)
            for (int k = 0; k < NV; k++)
                if (k != 2)
                    shmem_long_p(&vec[k], 3, pe);
    } else {
        wait_begins();
        shmem_long_wait_until_all(vec, NV, NULL, SHMEM_CMP_EQ, 3);
        wait_ends();
    }

    WT_PHASE("shmem_long_p, then a loop of shmem_long_test");
    shmem_barrier_all();
    if (me == 0) {
        late(delay);
        for (int pe = 1; pe < n; pe++)
            shmem_long_p(&test_word, 9, pe);
    } else {
        while (!shmem_long_test(&test_word, SHMEM_CMP_EQ, 9))
            ;
    }

    WT_PHASE("100 rounds of put + wait_until between PEs 0 and 1");
    shmem_barrier_all();
    double t0 = clock_of(CLOCK_MONOTONIC);
    if (me < 2) {
        for (long r = 1; r <= 100; r++) {
            if (me == 1)
                shmem_long_wait_until(&ping, SHMEM_CMP_GE, 2 * r - 1);
            shmem_long_p(&ping, me == 0 ? 2 * r - 1 : 2 * r, 1 - me);
            if (me == 0)
                shmem_long_wait_until(&ping, SHMEM_CMP_GE, 2 * r);
        }
    }
    double pingpong = clock_of(CLOCK_MONOTONIC) - t0;

    if (me > 0) {
        printf("wait_counter: PE %d waited %.3f s: thread CPU %.3f s (%.0f%%), process CPU "
               "%.3f s\n",
               me, spent.wall, spent.thread, 100.0 * spent.thread / spent.wall, spent.process);
        if (getenv("WT_EXPECT_SLEEP"))
            WT_CHECK(spent.thread < 0.05 * spent.wall,
                     "a waiting PE's thread spent %.3f s on the CPU in %.3f s of waits: it "
                     "polled instead of sleeping on the counter",
                     spent.thread, spent.wall);
    }
    if (me == 1) {
        printf("wait_counter: 100 round trips of put + wait_until in %.3f s\n", pingpong);
        /* A wait that sleeps on the counter while its peer stores directly
         * wakes only at the counter's 50 ms tick: 5 s for the 100. */
        const char *max = getenv("WT_MAX_PINGPONG_S");
        if (max)
            WT_CHECK(pingpong < atof(max),
                     "100 round trips took %.3f s (at most %s s): a wait slept through its "
                     "peer's direct stores", pingpong, max);
    }
    wt_finish();
    return 0;
}

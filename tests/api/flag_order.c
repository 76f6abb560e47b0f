/* SPDX-License-Identifier: BSD-3-Clause */
/* flag_order: a flag put after a fence or quiet is never seen before the
 * data put before it, for every placement of data and flag (static .bss or
 * symmetric heap), and nothing writes a flag that nobody may write.
 *
 * Every PE is at once origin (to the next PE) and target (of the previous
 * one). One iteration, for one mode:
 *   target: fill its data buffer with -1, reset its flag to 0
 *   shmem_barrier_all
 *   origin: put n long doubles (n from 1 to 4096, varying) to the next PE,
 *           shmem_fence or shmem_quiet, then set the flag there (shmem_int_p,
 *           or the put-with-signal / atomic forms of the other modes)
 *   target: wait for its flag (shmem_wait_until on even iterations, a plain
 *           volatile poll as programs written for other implementations do
 *           on odd ones), then check all n elements and that the element
 *           after them is still -1
 *   target: reset the flag to 0 and watch it for a while: until the next
 *           barrier nobody may write it, so a flag that comes back is a
 *           stray write (a stale copy written again), reported as such.
 *
 * argv[1] = iterations per mode (default 300); argv[2] = only this mode. */
#include <sched.h>

#include "weft_test.h"

#define N 4096
#define WATCH_POLLS 256

/* Static placements: the flags sit in the first page of the static data,
 * next to static data the program writes locally every iteration (the
 * counters, and the harness's phase name), on one cache line: the layout of
 * the defect this test was written for. Initialized, so in .data, which
 * the linker puts first. */
struct statics {
    int flag;
    int iteration;
    long checked;
    uint64_t sig;
};
static struct statics st = {.iteration = -1};
static long double data_bss[N + 1];

enum flag_op { FLAG_P, FLAG_ATOMIC_SET, FLAG_SIGNAL };
enum order { ORDER_FENCE, ORDER_QUIET, ORDER_NONE };

struct mode {
    const char *name;
    int data_heap, flag_heap;
    enum order order;
    enum flag_op op;
};

static const struct mode modes[] = {
    {"bss data, bss flag, fence, p", 0, 0, ORDER_FENCE, FLAG_P},
    {"bss data, bss flag, quiet, p", 0, 0, ORDER_QUIET, FLAG_P},
    {"heap data, bss flag, fence, p", 1, 0, ORDER_FENCE, FLAG_P},
    {"heap data, bss flag, quiet, p", 1, 0, ORDER_QUIET, FLAG_P},
    {"bss data, heap flag, fence, p", 0, 1, ORDER_FENCE, FLAG_P},
    {"bss data, heap flag, quiet, p", 0, 1, ORDER_QUIET, FLAG_P},
    {"heap data, heap flag, fence, p", 1, 1, ORDER_FENCE, FLAG_P},
    {"heap data, heap flag, quiet, p", 1, 1, ORDER_QUIET, FLAG_P},
    {"heap data, bss flag, fence, atomic_set", 1, 0, ORDER_FENCE, FLAG_ATOMIC_SET},
    {"bss data, heap flag, fence, atomic_set", 0, 1, ORDER_FENCE, FLAG_ATOMIC_SET},
    {"bss data, bss signal, put_signal", 0, 0, ORDER_NONE, FLAG_SIGNAL},
    {"heap data, bss signal, put_signal", 1, 0, ORDER_NONE, FLAG_SIGNAL},
    {"bss data, heap signal, put_signal", 0, 1, ORDER_NONE, FLAG_SIGNAL},
};
#define NMODES (sizeof modes / sizeof modes[0])

struct heap_area {
    int flag;
    int pad;
    uint64_t sig;
    long double data[N + 1];
};

static long double value_of(int origin, int it, int i)
{
    return (long double)origin * 1e9L + (long double)it * 8192.0L + (long double)i + 0.5L;
}

static int elements_of(int it, int mode) { return 1 + (int)(((unsigned)it * 2654435761u + (unsigned)mode * 977u) % N); }

/* The flag as the target sees it: its int, or its 64-bit signal. */
static uint64_t flag_value(const struct mode *m, int *flag, uint64_t *sig)
{
    if (m->op == FLAG_SIGNAL)
        return __atomic_load_n(sig, __ATOMIC_ACQUIRE);
    return (uint64_t)(unsigned)__atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

static void wait_flag(const struct mode *m, int it, int *flag, uint64_t *sig)
{
    if (it % 2 == 0) {
        if (m->op == FLAG_SIGNAL)
            shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
        else
            shmem_int_wait_until(flag, SHMEM_CMP_EQ, 1);
        return;
    }
    /* A plain poll that never enters the library; yields now and then so
     * oversubscribed PEs let the origin run. */
    for (unsigned polls = 1; flag_value(m, flag, sig) != 1; polls++)
        if (polls % 64 == 0)
            sched_yield();
}

static void run(const struct mode *m, int mode_index, long iters, struct heap_area *heap,
                long double *src)
{
    int next = (wt_me + 1) % wt_npes, prev = (wt_me + wt_npes - 1) % wt_npes;
    long double *data = m->data_heap ? heap->data : data_bss;
    int *flag = m->flag_heap ? &heap->flag : &st.flag;
    uint64_t *sig = m->flag_heap ? &heap->sig : &st.sig;

    for (int it = 0; it < iters; it++) {
        int n = elements_of(it, mode_index);
        st.iteration = it;
        WT_PHASE("%s: iteration %d, %d elements: refill", m->name, it, n);
        for (int i = 0; i <= N; i++)
            data[i] = -1.0L;
        *flag = 0;
        *sig = 0;
        shmem_barrier_all();

        WT_PHASE("%s: iteration %d, %d elements: put to PE %d", m->name, it, n, next);
        for (int i = 0; i < n; i++)
            src[i] = value_of(wt_me, it, i);
        if (m->op == FLAG_SIGNAL) {
            shmem_putmem_signal(data, src, (size_t)n * sizeof *src, sig, 1, SHMEM_SIGNAL_SET,
                                next);
        } else {
            shmem_longdouble_put(data, src, (size_t)n, next);
            if (m->order == ORDER_FENCE)
                shmem_fence();
            else
                shmem_quiet();
            if (m->op == FLAG_P)
                shmem_int_p(flag, 1, next);
            else
                shmem_int_atomic_set(flag, 1, next);
        }

        WT_PHASE("%s: iteration %d, %d elements: wait for the flag from PE %d", m->name, it,
                 n, prev);
        wait_flag(m, it, flag, sig);
        for (int i = 0; i < n; i++) {
            st.checked++;
            if (data[i] != value_of(prev, it, i)) {
                int late = 0;
                while (data[i] != value_of(prev, it, i) && late < 1000000)
                    late++;
                WT_FAIL("%s: iteration %d: flag from PE %d seen before its data: element %d "
                        "of %d is %.3Lf, expected %.3Lf (%s after %d more polls)",
                        m->name, it, prev, i, n, data[i], value_of(prev, it, i),
                        late < 1000000 ? "arrived" : "still missing", late);
            }
        }
        WT_CHECK(data[n] == -1.0L || n == N,
                 "%s: iteration %d: element %d after the %d put is %.3Lf, not -1", m->name, it,
                 n, n, data[n]);

        /* Until the next barrier nobody may write the flag. */
        *flag = 0;
        *sig = 0;
        for (int poll = 0; poll < WATCH_POLLS; poll++) {
            uint64_t v = flag_value(m, flag, sig);
            WT_CHECK(v == 0,
                     "%s: iteration %d: the flag became %llu %d polls after it was reset, "
                     "while its only writer (PE %d) had already written it: a stray write",
                     m->name, it, (unsigned long long)v, poll, prev);
        }
        shmem_barrier_all();
    }
}

int main(int argc, char **argv)
{
    wt_init("flag_order");
    long iters = argc > 1 ? atol(argv[1]) : 300;
    int only = argc > 2 ? atoi(argv[2]) : -1;
    struct heap_area *heap = shmem_calloc(1, sizeof *heap);
    long double *src = malloc(sizeof(long double) * N);
    WT_CHECK(heap && src, "allocation failed");
    for (size_t k = 0; k < NMODES; k++) {
        if (only >= 0 && (size_t)only != k)
            continue;
        WT_PHASE("%s: start", modes[k].name);
        run(&modes[k], (int)k, iters, heap, src);
    }
    shmem_free(heap);
    free(src);
    wt_finish();
    return 0;
}

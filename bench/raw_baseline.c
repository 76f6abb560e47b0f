/* SPDX-License-Identifier: BSD-3-Clause */
/* raw_baseline: the figures weft's benchmarks are compared with, measured
 * without weft by two processes (a fork) that share an anonymous
 * MAP_SHARED region:
 *   raw_pingpong     copy `size` bytes into the other process's buffer, raise
 *                    its flag; it waits and answers the same way. One-way
 *                    latency = round trip / 2 (us). put_lat's baseline.
 *   memcpy_bw        memcpy between two private buffers of one process, in
 *                    windows of 64 then a full fence (MB/s).
 *   shm_memcpy_bw    the same into the shared region, which the other
 *                    process maps and checks: the baseline for a put to a
 *                    peer (MB/s).
 *   raw_store_rate   8-byte stores into the shared region, windows of 256
 *                    then a full fence (millions per second). msg_rate's
 *                    baseline.
 * Every wait polls the way weft's waits do (src/runtime/sync.c): WEFT_SPIN_YIELD
 * polls (default 64) with a pause, then sched_yield, then 20 us naps after
 * 1000 yields. On an idle machine a ping-pong round is one or two polls, so
 * this is the pure-spin figure; on a loaded one both sides of a ratio give
 * up the CPU alike, so the ratio still compares transports, not waiting.
 * Options as every benchmark (bench_core.h). --iters N is the ping-pong
 * count for small sizes, default 100000: ten times put_lat's, because a raw
 * round trip is about a hundred times cheaper and the timed span should
 * still be tens of milliseconds. The bandwidth runs use N / 10 windows (five
 * times put_bw's), the store loop N windows. */
#include "bench_core.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* 128 bytes apart: the adjacent-line prefetcher pairs 64-byte lines, and a
 * spinning reader must not pull in the line the other side writes. */
struct own_line {
    _Alignas(128) atomic_long v;
};

struct control {
    struct own_line pingpong[2]; /* [p]: raised by the other process for p */
    struct own_line arrived[2];  /* [p]: the last phase p reached */
    struct own_line child_failed;
    struct own_line child_done; /* set just before the child exits */
};

struct shared {
    struct control *ctl;
    unsigned char *to_child, *to_parent; /* max_size each */
    volatile long *store_window;         /* BENCH_RATE_WINDOW longs */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* Keep the compiler from merging or dropping repeated copies to one
 * destination: they are the work being timed. */
static inline void keep_stores(void *dst)
{
    __asm__ volatile("" : : "r"(dst) : "memory");
}

static long spin_limit = 64; /* WEFT_SPIN_YIELD, read in main */

/* Wait until *word >= want, polling as weft's weft_poll_yield does. */
static inline void wait_at_least(atomic_long *word, long want)
{
    for (long spins = 0; atomic_load_explicit(word, memory_order_acquire) < want; spins++) {
        if (spins < spin_limit) {
            cpu_relax();
        } else if (spins < spin_limit + 1000) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

/* Both processes reach the next phase. */
static void phase_sync(struct control *ctl, int me, long *phase)
{
    long want = ++*phase;
    atomic_store_explicit(&ctl->arrived[me].v, want, memory_order_release);
    wait_at_least(&ctl->arrived[1 - me].v, want);
}

static struct control *the_control; /* for the signal handler */

/* SIGCHLD before the child said it is done: it crashed, and the parent
 * would spin for it forever. */
static void on_child_exit(int sig)
{
    (void)sig;
    if (atomic_load(&the_control->child_done.v))
        return;
    static const char msg[] = "raw_baseline: the child process ended early\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(1);
}

static int report_bad(int me, const char *what, size_t size, struct control *ctl)
{
    fprintf(stderr, "raw_baseline: %s: wrong data at size %zu (process %d)\n", what, size, me);
    if (me == 1)
        atomic_store(&ctl->child_failed.v, 1);
    return 1;
}

static int pingpong(const struct bench_opts *o, struct shared *sh, int me, long *phase,
                    unsigned char *src)
{
    struct control *ctl = sh->ctl;
    unsigned char *to_peer = me == 0 ? sh->to_child : sh->to_parent;
    unsigned char *from_peer = me == 0 ? sh->to_parent : sh->to_child;
    atomic_long *mine = &ctl->pingpong[me].v, *peers = &ctl->pingpong[1 - me].v;
    long round = 0;
    int status = 0;
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long iters = bench_iters(o, size), warm = bench_warmup(iters);
        bench_fill(src, size, (unsigned)me);
        phase_sync(ctl, me, phase);
        double t0 = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = bench_now();
            round++;
            if (me == 1)
                wait_at_least(mine, round);
            memcpy(to_peer, src, size);
            atomic_store_explicit(peers, round, memory_order_release);
            if (me == 0)
                wait_at_least(mine, round);
        }
        double t = bench_now() - t0;
        if (me == 0)
            bench_result("raw_pingpong", size, 1e6 * t / (2.0 * (double)iters), "us");
        if (bench_check(from_peer, size, (unsigned)(1 - me)) != 0)
            status = report_bad(me, "raw_pingpong", size, ctl);
        if (size > o->max_size / 2)
            break;
    }
    return status;
}

/* memcpy bandwidth into dst (private, or the shared region when checked is
 * set: then the child checks what arrived). Only the parent copies. */
static int copy_bw(const struct bench_opts *o, struct shared *sh, int me, long *phase,
                   const char *name, unsigned char *src, unsigned char *dst, int checked)
{
    int status = 0;
    struct bench_opts bw = *o;
    bw.iters = o->iters / 10 > 1 ? o->iters / 10 : 1;
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long iters = bench_bw_windows(&bw, size), warm = bench_warmup(iters) / 2 + 1;
        phase_sync(sh->ctl, me, phase);
        if (me == 0) {
            bench_fill(src, size, (unsigned)size);
            double t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                for (int w = 0; w < BENCH_BW_WINDOW; w++) {
                    memcpy(dst, src, size);
                    keep_stores(dst);
                }
                /* What a quiet costs at least: large copies use
                 * non-temporal stores that only a fence completes. */
                atomic_thread_fence(memory_order_seq_cst);
            }
            double t = bench_now() - t0;
            bench_result(name, size, (double)size * BENCH_BW_WINDOW * (double)iters / t / 1e6,
                         "MB/s");
        }
        phase_sync(sh->ctl, me, phase);
        if (checked && me == 1 && bench_check(dst, size, (unsigned)size) != 0)
            status = report_bad(me, name, size, sh->ctl);
        if (size > o->max_size / 2)
            break;
    }
    return status;
}

static int store_rate(const struct bench_opts *o, struct shared *sh, int me, long *phase)
{
    long windows = o->iters, warm = bench_warmup(windows);
    volatile long *win = sh->store_window;
    phase_sync(sh->ctl, me, phase);
    if (me == 0) {
        double t0 = 0;
        for (long i = 0; i < warm + windows; i++) {
            if (i == warm)
                t0 = bench_now();
            for (long w = 0; w < BENCH_RATE_WINDOW; w++)
                win[w] = i * BENCH_RATE_WINDOW + w;
            atomic_thread_fence(memory_order_seq_cst);
        }
        double t = bench_now() - t0;
        bench_result("raw_store_rate", sizeof(long),
                     (double)BENCH_RATE_WINDOW * (double)windows / t / 1e6, "Mmsg/s");
    }
    phase_sync(sh->ctl, me, phase);
    if (me == 1) {
        long last = warm + windows - 1;
        for (long w = 0; w < BENCH_RATE_WINDOW; w++) {
            if (win[w] != last * BENCH_RATE_WINDOW + w)
                return report_bad(me, "raw_store_rate", sizeof(long), sh->ctl);
        }
    }
    return 0;
}

static size_t page_round(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse(argc, argv, 100000);
    const char *spin_env = getenv("WEFT_SPIN_YIELD");
    if (spin_env && *spin_env)
        spin_limit = strtol(spin_env, NULL, 0);
    size_t ctl_bytes = page_round(sizeof(struct control)), buf_bytes = page_round(o.max_size);
    size_t win_bytes = page_round(BENCH_RATE_WINDOW * sizeof(long));
    size_t total = ctl_bytes + 2 * buf_bytes + win_bytes;
    unsigned char *region =
        mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    unsigned char *src = malloc(o.max_size), *private_dst = malloc(o.max_size);
    if (region == MAP_FAILED || !src || !private_dst) {
        fprintf(stderr, "raw_baseline: cannot allocate %zu shared bytes\n", total);
        return 2;
    }
    struct shared sh = {
        .ctl = (struct control *)region,
        .to_child = region + ctl_bytes,
        .to_parent = region + ctl_bytes + buf_bytes,
        .store_window = (volatile long *)(region + ctl_bytes + 2 * buf_bytes),
    };
    /* Touch everything once so page faults are not timed. */
    memset(region, 0, total);
    memset(private_dst, 0, o.max_size);

    printf("# raw_baseline: no weft; 2 processes sharing an anonymous MAP_SHARED region\n"
           "# iters %ld, waits spin %ld polls then yield%s\n",
           o.iters, spin_limit, o.quick ? ", quick" : "");
    fflush(stdout);

    the_control = sh.ctl;
    signal(SIGCHLD, on_child_exit);
    pid_t child = fork();
    if (child < 0) {
        perror("raw_baseline: fork");
        return 2;
    }
    int me = child == 0 ? 1 : 0;
    if (me == 1) {
        /* An orphaned child would spin forever. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1)
            _exit(1);
    }

    long phase = 0;
    int status = pingpong(&o, &sh, me, &phase, src);
    status |= copy_bw(&o, &sh, me, &phase, "memcpy_bw", src, private_dst, 0);
    status |= copy_bw(&o, &sh, me, &phase, "shm_memcpy_bw", src, sh.to_child, 1);
    status |= store_rate(&o, &sh, me, &phase);
    phase_sync(sh.ctl, me, &phase);
    if (me == 1) {
        atomic_store(&sh.ctl->child_done.v, 1);
        _exit(status);
    }

    int child_status = 0;
    while (waitpid(child, &child_status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0 ||
        atomic_load(&sh.ctl->child_failed.v))
        status = 1;
    munmap(region, total);
    free(src);
    free(private_dst);
    return status;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* wait_applied: a wait that returns has seen the whole put it waited for,
 * even when the target's progress thread applies the put and a copy
 * stores a byte twice.
 *
 * Over libfabric a peer's put is applied at the target by the provider
 * (shm, tcp) or by weft (coalesced batches), on the application thread
 * when it polls or on the progress thread when it computes. A copy may
 * store a byte twice (glibc's memcpy does for an 8-byte copy); if the
 * application has read the first store in shmem_wait_until and reset its
 * flag, the second store brings the flag back and a ping-pong runs a round
 * ahead. This test forces that interleaving: PE 1 sets a hardware write
 * watchpoint on its flag in every thread but the main one, whose first hit
 * stalls the storing thread (in the signal handler) for STALL_MS; the main
 * thread computes while PE 0 puts, then waits for the flag, resets it, and
 * after the stall has surely ended checks that it is still 0.
 *
 * Skipped (77 on every PE) on the direct path, without a progress thread,
 * or without perf_event_open breakpoints. */
#include "wt_watch.h" /* first: weft_test.h sets _GNU_SOURCE (F_SETSIG) */

#include <fcntl.h>
#include <signal.h>
#include <time.h>

#define STALL_MS 100
#define MAX_THREADS 32
#define LEN_MAX 4096

static pid_t main_tid;
static volatile sig_atomic_t stall_armed;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The first store to the flag by another thread: hold that thread there. */
static void on_store(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    int saved = errno;
    if (stall_armed && (pid_t)syscall(SYS_gettid) != main_tid) {
        stall_armed = 0;
        sleep_ms(STALL_MS);
    }
    errno = saved;
}

/* A watchpoint whose every store signals the storing thread (on_store). */
static int watch_signalled(void *addr, pid_t tid)
{
    int fd = wt_watch_byte(addr, tid, 1);
    if (fd < 0)
        return -1;
    struct f_owner_ex owner = {F_OWNER_TID, tid};
    if (fcntl(fd, F_SETFL, O_RDWR | O_NONBLOCK | O_ASYNC) != 0 ||
        fcntl(fd, F_SETSIG, SIGRTMIN + 1) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

enum form { LONG_P, INT_P, PUTMEM_1K, PUTMEM_4K, NFORMS };
static const char *const form_name[NFORMS] = {"shmem_long_p", "shmem_int_p",
                                              "shmem_putmem 1024", "shmem_putmem 4096"};

int main(void)
{
    wt_init("wait_applied");
    main_tid = (pid_t)syscall(SYS_gettid);
    unsigned char *heap = shmem_malloc(LEN_MAX);
    unsigned char *src = malloc(LEN_MAX);
    WT_CHECK(heap && src, "allocation");
    pid_t tid[MAX_THREADS];
    int nthreads = 0;
    int ok = wt_npes >= 2 && !(wt_me == 0 && shmem_ptr(heap, 1));
    if (wt_me == 1) {
        nthreads = wt_threads(tid, MAX_THREADS, main_tid);
        static unsigned char probe;
        int fd = watch_signalled(&probe, main_tid);
        if (fd >= 0)
            close(fd);
        ok = ok && fd >= 0 && nthreads > 0;
    }
    wt_skip_unless_all(ok, "wait_applied",
                       "PE 1 off the direct path, a progress thread and perf_event_open "
                       "breakpoints");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_store;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    WT_CHECK(sigaction(SIGRTMIN + 1, &sa, NULL) == 0, "sigaction");

    int exercised = 0;
    for (int round = 0; round < 2 * NFORMS; round++) {
        enum form f = (enum form)(round % NFORMS);
        size_t len = f == LONG_P ? sizeof(long) : f == INT_P ? sizeof(int)
                   : f == PUTMEM_1K ? 1024 : 4096;
        /* The flag: the put's last word, as in a ping-pong that waits on
         * the end of its data. */
        size_t at = len >= 8 ? len - 8 : 0, flag_len = len < 8 ? len : 8;
        WT_PHASE("round %d: %s", round, form_name[f]);
        memset(src, 0, LEN_MAX);
        for (size_t i = 0; i < len; i++)
            src[i] = (unsigned char)(i + round + 1);
        memset(heap, 0, LEN_MAX);
        int fd[MAX_THREADS];
        if (wt_me == 1) {
            for (int t = 0; t < nthreads; t++) {
                fd[t] = watch_signalled(heap + at, tid[t]);
                WT_CHECK(fd[t] >= 0, "perf_event_open on thread %d: %s", (int)tid[t],
                         strerror(errno));
            }
            stall_armed = 1;
            for (int t = 0; t < nthreads; t++)
                wt_watch_start(fd[t]);
        }
        shmem_barrier_all();
        if (wt_me == 0) {
            long lv;
            int iv;
            switch (f) {
            case LONG_P:
                memcpy(&lv, src, sizeof lv);
                shmem_long_p((long *)(void *)heap, lv, 1);
                break;
            case INT_P:
                memcpy(&iv, src, sizeof iv);
                shmem_int_p((int *)(void *)heap, iv, 1);
                break;
            default: shmem_putmem(heap, src, len, 1); break;
            }
            shmem_quiet();
        } else if (wt_me == 1) {
            /* Compute: the progress thread applies the put meanwhile. */
            sleep_ms(STALL_MS / 5);
            unsigned char *flag = heap + at;
            if (len == sizeof(int))
                shmem_int_wait_until((int *)(void *)flag, SHMEM_CMP_NE, 0);
            else
                shmem_long_wait_until((long *)(void *)flag, SHMEM_CMP_NE, 0);
            for (size_t i = 0; i < len; i++)
                WT_CHECK(heap[i] == src[i], "%s: byte %zu is %u after the wait, expected %u",
                         form_name[f], i, heap[i], src[i]);
            memset(flag, 0, flag_len); /* reset, as the ping-pong does */
            int stalled = !stall_armed;
            sleep_ms(STALL_MS + STALL_MS / 2);
            for (size_t i = 0; i < flag_len; i++)
                WT_CHECK(flag[i] == 0,
                         "%s: the flag came back (byte %zu is %u) after shmem_wait_until saw it "
                         "and it was reset: the put was still being applied",
                         form_name[f], i, flag[i]);
            exercised += stalled;
            stall_armed = 0;
            for (int t = 0; t < nthreads; t++)
                close(fd[t]);
        }
        shmem_barrier_all();
    }
    if (wt_me == 1) {
        /* Without a single stall the test showed nothing. */
        WT_CHECK(exercised > 0, "the progress thread applied none of the %d puts", 2 * NFORMS);
        printf("wait_applied: %d of %d puts applied by another thread and stalled there, the "
               "flag stayed reset in each\n",
               exercised, 2 * NFORMS);
    }
    shmem_barrier_all();
    shmem_free(heap);
    free(src);
    wt_finish();
    return 0;
}

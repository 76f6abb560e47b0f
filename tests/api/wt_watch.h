/* SPDX-License-Identifier: BSD-3-Clause */
/* wt_watch.h: hardware write watchpoints (perf_event_open breakpoints) for
 * the tests that count or intercept stores into a destination: put_once,
 * put_applied_once, wait_applied. */
#ifndef WT_WATCH_H
#define WT_WATCH_H

#include "weft_test.h" /* first: it sets _GNU_SOURCE */

#include <dirent.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>

/* A disabled counter of user-space stores to the byte at addr by thread
 * tid (0: the caller). each_store: an overflow on every store, so a
 * descriptor set up for signals (O_ASYNC) interrupts the storing thread
 * right after the store. Returns the descriptor, or -1 with errno. */
static inline int wt_watch_byte(void *addr, pid_t tid, int each_store)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.size = sizeof a;
    a.bp_type = HW_BREAKPOINT_W;
    a.bp_addr = (unsigned long)(uintptr_t)addr;
    a.bp_len = HW_BREAKPOINT_LEN_1;
    if (each_store) {
        a.sample_period = 1;
        a.wakeup_events = 1;
    }
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
}

/* The bytes of a len-byte destination worth watching (x86 has 4 debug
 * registers per thread): the first, the last, a middle one and the
 * second-to-last, without repeats. Returns how many, into at. */
static inline int wt_watched_bytes(size_t len, size_t at[4])
{
    size_t cand[4] = {0, len - 1, len / 2, len >= 2 ? len - 2 : 0};
    int n = 0;
    for (int k = 0; k < 4; k++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= at[j] == cand[k];
        if (!dup)
            at[n++] = cand[k];
    }
    return n;
}

/* Count from zero now. */
static inline void wt_watch_start(int fd)
{
    ioctl(fd, PERF_EVENT_IOC_RESET, 0);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* Whether this process may set breakpoints at all. */
static inline int wt_watch_usable(void)
{
    static unsigned char probe;
    int fd = wt_watch_byte(&probe, 0, 0);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* Collective: unless every PE passes ok, PE 0 prints why the test is
 * skipped and every PE exits 77 (ctest's SKIP_RETURN_CODE). */
static inline void wt_skip_unless_all(int ok, const char *test, const char *needs)
{
    static int verdict; /* symmetric: PE 0's copy collects the votes */
    verdict = 1;
    shmem_barrier_all();
    if (!ok)
        shmem_int_atomic_set(&verdict, 0, 0);
    shmem_barrier_all();
    if (shmem_int_g(&verdict, 0))
        return;
    if (wt_me == 0)
        printf("SKIPPED [%s]: needs %s\n", test, needs);
    shmem_finalize();
    exit(77);
}

/* The threads of this process now, but except (0: none), into tid. */
static inline int wt_threads(pid_t *tid, int max, pid_t except)
{
    DIR *d = opendir("/proc/self/task");
    WT_CHECK(d, "opendir /proc/self/task: %s", strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        pid_t t = (pid_t)atoi(e->d_name);
        if (e->d_name[0] == '.' || t == except)
            continue;
        WT_CHECK(n < max, "more than %d threads", max);
        tid[n++] = t;
    }
    closedir(d);
    return n;
}

/* The stores counted since the descriptor was enabled; it is closed. */
static inline long long wt_watch_close(int fd)
{
    long long writes = 0;
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    WT_CHECK(read(fd, &writes, sizeof writes) == (ssize_t)sizeof writes,
             "reading the watchpoint");
    close(fd);
    return writes;
}

#endif

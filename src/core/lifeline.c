/* SPDX-License-Identifier: BSD-3-Clause */
/* lifeline.c owns how a PE leaves when weft's own calls cannot see the
 * reason: a watchdog thread that ends the PE once its launcher is gone
 * (the launcher's connection closed, or the parent process died), whatever
 * the program does with SIGTERM and whether or not it is inside weft; and
 * the removal of the files this PE created in /dev/shm (libfabric shm
 * regions, named "<pid>:<n>:<n>"), done once every peer has mapped them,
 * again on every way out that runs code, and by a reaper process for the
 * ways out that run none (SIGKILL). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/lifeline.h"
#include "core/shm_regions.h"
#include "core/runtime.h"

static pthread_t watch_thread;
static int watch_running;
static int watch_wake[2] = {-1, -1};
static int watch_fd = -1;   /* the launcher's connection, -1: none to watch */
static pid_t watch_parent;  /* the launcher (or its daemon) that started us */
static int leaving;         /* this PE is ending on its own: a closing launcher is expected */

static int remove_own_region(int dir_fd, const char *name, const struct stat *st, void *arg)
{
    (void)arg;
    if (S_ISREG(st->st_mode) && st->st_uid == geteuid() && unlinkat(dir_fd, name, 0) == 0)
        weft_debug("removed /dev/shm/%s", name);
    return 0;
}

void weft_shm_files_remove(void)
{
    weft_shm_regions_foreach((long)getpid(), remove_own_region, NULL);
}

/* ---- the shm reaper ---- */

static int remove_region_quietly(int dir_fd, const char *name, const struct stat *st, void *arg)
{
    (void)arg;
    if (S_ISREG(st->st_mode) && st->st_uid == geteuid())
        unlinkat(dir_fd, name, 0);
    return 0;
}

/* Closes every descriptor but keep_a < keep_b (both > 2). */
static void close_all_but(int keep_a, int keep_b)
{
    unsigned ranges[3][2] = {{3, (unsigned)keep_a - 1},
                             {(unsigned)keep_a + 1, (unsigned)keep_b - 1},
                             {(unsigned)keep_b + 1, ~0u}};
    for (int r = 0; r < 3; r++) {
        if (ranges[r][0] > ranges[r][1])
            continue;
        if (syscall(SYS_close_range, ranges[r][0], ranges[r][1], 0) == 0)
            continue;
        long most = sysconf(_SC_OPEN_MAX); /* kernels before 5.9 */
        for (long fd = ranges[r][0]; fd <= (long)ranges[r][1] && fd < most; fd++)
            close((int)fd);
    }
}

/* Replaces the command line and environment the reaper inherited (their
 * memory is its own copy) with "weft-shm-reaper <PE's pid>": it looks like
 * no PE to a tool that finds PEs by them (pgrep -f, a PMI_RANK=n search),
 * and says whose it is. */
static void show_reaper_identity(pid_t pe)
{
    char buf[2048];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    char *at = strrchr(buf, ')'); /* then fields 3 on; 48-51: argv and env */
    unsigned long area[4] = {0};
    for (int field = 2; at && field < 51; field++) {
        at = strchr(at + 1, ' ');
        if (at && field + 1 >= 48)
            area[field + 1 - 48] = strtoul(at + 1, NULL, 10);
    }
    if (!area[0] || area[1] <= area[0] || area[3] < area[2])
        return;
    memset((void *)area[2], 0, area[3] - area[2]);
    char name[40] = "weft-shm-reaper";
    size_t len = sizeof "weft-shm-reaper";
    len += (size_t)weft_shm_decimal(name + len, (unsigned long)pe);
    name[len++] = '\0';
    size_t room = area[1] - area[0];
    memset((void *)area[0], 0, room);
    memcpy((void *)area[0], name, len < room ? len : room - 1);
}

/* The reaper's life: wait until process pe has ended (pidfd readable, or
 * the pipe's last write end, held by pe, closed, or pe no longer there),
 * then remove what it left in /dev/shm. System calls only (see
 * shm_regions.h). */
static WEFT_NORETURN void reap(pid_t pe, int pidfd, int gone)
{
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    setsid(); /* out of the launcher's process group, which it kills */
    prctl(PR_SET_NAME, "weft-shm-reaper", 0, 0, 0);
    show_reaper_identity(pe);
    if (gone < 3) /* stdin was closed: keep clear of 0-2 */
        gone = fcntl(gone, F_DUPFD, 3);
    if (pidfd >= 0 && pidfd < 3)
        pidfd = fcntl(pidfd, F_DUPFD, 3);
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; fd++)
        dup2(null, fd); /* the launcher sees the PE's output end with it */
    if (pidfd < 0)
        pidfd = gone; /* then poll the pipe twice */
    close_all_but(pidfd < gone ? pidfd : gone, pidfd < gone ? gone : pidfd);
    for (;;) {
        struct pollfd p[2] = {{.fd = pidfd, .events = POLLIN}, {.fd = gone, .events = POLLIN}};
        int n = poll(p, 2, 1000);
        /* A pidfd is readable, and a pipe with no writer hangs up, only
         * once pe has ended; anything else (an error) is no such news. */
        if (n > 0 && ((p[0].revents & (POLLIN | POLLHUP)) || (p[1].revents & POLLHUP)))
            break;
        if (n != 0) {
            struct timespec second = {1, 0};
            nanosleep(&second, NULL);
        }
        if (kill(pe, 0) != 0 && errno == ESRCH)
            break;
    }
    weft_shm_regions_foreach((long)pe, remove_region_quietly, NULL);
    _exit(0);
}

static pid_t reaper_parent; /* the reaper's first parent, to be waited for */

void weft_shm_reaper_start(void)
{
    static pid_t started_for;
    pid_t pe = getpid();
    if (started_for == pe)
        return;
    started_for = pe;
    int gone[2];
    if (pipe2(gone, O_CLOEXEC) != 0) {
        weft_debug("shm reaper: pipe2: %s; not started", strerror(errno));
        return;
    }
    int pidfd = (int)syscall(SYS_pidfd_open, pe, 0); /* Linux 5.3 */
    /* _Fork: no atfork handler of the program's or a library's runs in the
     * PE or its copies; the copies make system calls only. Under the
     * sanitizers, fork, whose interceptors keep their runtimes sound in
     * the child. Twice, so that the reaper is no child of the PE, which
     * may wait for its children. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34)) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    pid_t mid = _Fork();
    if (mid == 0 && _Fork() == 0)
        reap(pe, pidfd, gone[0]);
#else
    pid_t mid = fork();
    if (mid == 0 && fork() == 0)
        reap(pe, pidfd, gone[0]);
#endif
    if (mid == 0)
        _exit(0);
    /* The write end stays open for the PE's life: its closing is the news. */
    close(gone[0]);
    if (pidfd >= 0)
        close(pidfd);
    if (mid < 0) {
        weft_debug("shm reaper: fork: %s; not started", strerror(errno));
        close(gone[1]);
        return;
    }
    /* Waited for later (weft_shm_reaper_settle): not waiting here for it to
     * be scheduled keeps the start-up's cost to the fork's. */
    reaper_parent = mid;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    weft_debug("shm reaper forked in %.0f us",
               (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3);
}

void weft_shm_reaper_settle(void)
{
    if (reaper_parent <= 0)
        return;
    while (waitpid(reaper_parent, NULL, 0) < 0 && errno == EINTR)
        ;
    reaper_parent = 0;
}

void weft_lifeline_leaving(void)
{
    __atomic_store_n(&leaving, 1, __ATOMIC_SEQ_CST);
}

void weft_launcher_gone(const char *how)
{
    if (__atomic_exchange_n(&leaving, 1, __ATOMIC_SEQ_CST))
        return; /* ending already, by a path of its own */
    /* No signal stops us half way (SIGPIPE: stderr may have gone with the
     * launcher; this may be PMIx's thread, which takes signals). */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    char line[240];
    int n = snprintf(line, sizeof line, "weft: PE %d: the launcher is gone (%s); exiting\n",
                     weft_rt.my_pe, how);
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1;
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
    weft_shm_files_remove();
    /* Ends every thread, whatever the program does with signals. */
    _exit(1);
}

static void *watch(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p[2] = {{.fd = watch_wake[0], .events = POLLIN},
                              {.fd = watch_fd, .events = POLLRDHUP}};
        int n = poll(p, watch_fd >= 0 ? 2 : 1, 1000);
        if (n < 0 && errno != EINTR)
            return NULL;
        if (p[0].revents)
            return NULL; /* finalize */
        if (__atomic_load_n(&leaving, __ATOMIC_SEQ_CST))
            return NULL;
        if (n > 0 && p[1].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
            weft_launcher_gone("its PMI connection closed");
        if (watch_parent > 1 && getppid() != watch_parent) {
            char how[64];
            snprintf(how, sizeof how, "parent process %ld exited", (long)watch_parent);
            weft_launcher_gone(how);
        }
    }
}

void weft_lifeline_start(int fd, int parent)
{
    if (watch_running || pipe2(watch_wake, O_CLOEXEC) != 0)
        return;
    watch_fd = fd;
    watch_parent = parent;
    __atomic_store_n(&leaving, 0, __ATOMIC_SEQ_CST);
    /* The thread takes no signal of the program's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    watch_running = pthread_create(&watch_thread, &attr, watch, NULL) == 0;
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!watch_running) {
        weft_warn("shmem_init", "cannot start the thread that watches the launcher; a PE that "
                  "ignores SIGTERM may outlive it");
        close(watch_wake[0]);
        close(watch_wake[1]);
        watch_wake[0] = watch_wake[1] = -1;
    }
}

void weft_lifeline_stop(void)
{
    weft_lifeline_leaving();
    if (!watch_running)
        return;
    char c = 0;
    ssize_t w = write(watch_wake[1], &c, 1);
    (void)w;
    pthread_join(watch_thread, NULL);
    watch_running = 0;
    close(watch_wake[0]);
    close(watch_wake[1]);
    watch_wake[0] = watch_wake[1] = -1;
    watch_fd = -1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* lifeline.c owns how a PE leaves when weft's own calls cannot see the
 * reason: a watchdog thread that ends the PE once its launcher is gone
 * (the launcher's connection closed, or the parent process died), whatever
 * the program does with SIGTERM and whether or not it is inside weft; and
 * the removal of the files this PE created in /dev/shm (libfabric shm
 * regions, named "<pid>:<n>:<n>"), done once every peer has mapped them and
 * again on every way out that runs code. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

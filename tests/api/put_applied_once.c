/* put_applied_once: where weft itself applies a put at the target (the
 * coalesced batches of small puts over tcp, ofi_coalesce.c), every byte of
 * the destination is stored once, on whichever of the target's threads
 * applies it.
 *
 * The target's progress thread may apply a batch while the application
 * thread reads the destination; a byte stored twice (memcpy re-stores its
 * last vectors above 256 bytes, and the same 4 or 8 bytes twice for 4- to
 * 15-byte copies) can bring back a flag the application has already read
 * and reset, so a ping-pong without fences runs a round ahead and hangs
 * (tests-sos sping over tcp did, 1 KiB puts). tests/api/put_once checks
 * the origin's stores on the direct path; this test checks the target's:
 * PE 1 puts a hardware write watchpoint on four bytes of its own
 * destination in every thread of its process, PE 0 puts through each form
 * that coalesces and completes it, and each watched byte must have been
 * stored at most once (and hold the data). The providers' own copies
 * (shm, and tcp above the coalescing limit) are libfabric's; what keeps a
 * waiter safe from those is tests/api/wait_applied.
 *
 * Not on the direct path (PE 0 stores there, put_once covers it); without
 * perf_event_open breakpoints every PE exits 77 (ctest: skipped). */
#include <dirent.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "weft_test.h"

#define MAXLEN 1024 /* the coalescing limit */
#define MAX_THREADS 32
static unsigned char dest_bss[MAXLEN];

struct watch {
    int fd[4][MAX_THREADS];
    size_t at[4];
    int n, nthreads;
    pid_t tid[MAX_THREADS];
};

static int watch_byte(void *addr, pid_t tid)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.size = sizeof a;
    a.bp_type = HW_BREAKPOINT_W;
    a.bp_addr = (unsigned long)(uintptr_t)addr;
    a.bp_len = HW_BREAKPOINT_LEN_1;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
}

/* The threads of this process now (the progress thread among them). */
static int list_threads(pid_t *tid, int max)
{
    DIR *d = opendir("/proc/self/task");
    WT_CHECK(d, "opendir /proc/self/task: %s", strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            WT_CHECK(n < max, "more than %d threads", max);
            tid[n++] = (pid_t)atoi(e->d_name);
        }
    closedir(d);
    return n;
}

/* Watch the first, the last, a middle and the second-to-last byte. */
static void arm(struct watch *w, unsigned char *dest, size_t len)
{
    size_t cand[4] = {0, len - 1, len / 2, len >= 2 ? len - 2 : 0};
    w->n = 0;
    w->nthreads = list_threads(w->tid, MAX_THREADS);
    for (int k = 0; k < 4; k++) {
        int dup = 0;
        for (int j = 0; j < w->n; j++)
            dup |= w->at[j] == cand[k];
        if (dup)
            continue;
        for (int t = 0; t < w->nthreads; t++) {
            int fd = watch_byte(dest + cand[k], w->tid[t]);
            WT_CHECK(fd >= 0, "perf_event_open on byte %zu, thread %d: %s", cand[k],
                     (int)w->tid[t], strerror(errno));
            ioctl(fd, PERF_EVENT_IOC_RESET, 0);
            ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
            w->fd[w->n][t] = fd;
        }
        w->at[w->n++] = cand[k];
    }
}

/* Returns how many watched bytes were stored from user space. */
static int check(struct watch *w, const unsigned char *dest, const unsigned char *src,
                 const char *what, size_t len)
{
    int stored = 0;
    for (int j = 0; j < w->n; j++) {
        long long writes = 0;
        for (int t = 0; t < w->nthreads; t++) {
            long long c = 0;
            ioctl(w->fd[j][t], PERF_EVENT_IOC_DISABLE, 0);
            WT_CHECK(read(w->fd[j][t], &c, sizeof c) == (ssize_t)sizeof c,
                     "reading the watchpoint");
            close(w->fd[j][t]);
            writes += c;
        }
        WT_CHECK(writes <= 1,
                 "%s of %zu bytes: byte %zu of the destination was stored %lld times at the "
                 "target (a byte stored twice can bring back a value the application already "
                 "replaced)",
                 what, len, w->at[j], writes);
        WT_CHECK(dest[w->at[j]] == src[w->at[j]], "%s of %zu bytes: byte %zu is %u, expected %u",
                 what, len, w->at[j], dest[w->at[j]], src[w->at[j]]);
        stored += writes == 1;
    }
    return stored;
}

static int perf_usable(void)
{
    static unsigned char probe;
    int fd = watch_byte(&probe, 0);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

enum form { PUTMEM, PUTMEM_NBI, INT_PUT, LONG_P, NFORMS };
static const char *const form_name[NFORMS] = {"shmem_putmem", "shmem_putmem_nbi",
                                              "shmem_int_put", "shmem_long_p"};

static void issue(enum form f, unsigned char *dest, const unsigned char *src, size_t len)
{
    switch (f) {
    case PUTMEM: shmem_putmem(dest, src, len, 1); break;
    case PUTMEM_NBI: shmem_putmem_nbi(dest, src, len, 1); break;
    case INT_PUT:
        shmem_int_put((int *)(void *)dest, (const int *)(const void *)src, len / sizeof(int), 1);
        break;
    case LONG_P: {
        long v;
        memcpy(&v, src, sizeof v);
        shmem_long_p((long *)(void *)dest, v, 1);
        break;
    }
    default: break;
    }
    shmem_quiet();
}

int main(void)
{
    wt_init("put_applied_once");
    unsigned char *heap = shmem_malloc(MAXLEN + 64);
    unsigned char *src = malloc(MAXLEN);
    WT_CHECK(heap && src, "allocation");
    static int verdict;
    verdict = 1;
    shmem_barrier_all();
    /* PE 0 must reach PE 1 through libfabric; PE 1 (the watcher) needs
     * breakpoints. */
    if (wt_npes < 2 || (wt_me == 0 && shmem_ptr(heap, 1)) || (wt_me == 1 && !perf_usable()))
        shmem_int_atomic_set(&verdict, 0, 0);
    shmem_barrier_all();
    if (!shmem_int_g(&verdict, 0)) {
        if (wt_me == 0)
            printf("SKIPPED [put_applied_once]: needs PE 1 off the direct path and "
                   "perf_event_open breakpoints\n");
        shmem_finalize();
        return 77;
    }
    static const size_t sizes[] = {1, 4, 8, 12, 16, 100, 255, 256, 257, 300, 512, 1000, 1024};
    int user_stored = 0, checks = 0;
    unsigned tag = 0;
    for (int where = 0; where < 2; where++) {
        unsigned char *dest = where ? dest_bss : heap;
        for (int f = 0; f < NFORMS; f++) {
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                size_t len = f == LONG_P ? sizeof(long) : sizes[k];
                if ((f == LONG_P && k) || (f == INT_PUT && len % sizeof(int)))
                    continue;
                WT_PHASE("%s: %s %zu", where ? ".bss" : "heap", form_name[f], len);
                /* New bytes each round, so a store is a change of value. */
                tag++;
                for (size_t i = 0; i < len; i++)
                    src[i] = (unsigned char)(i * 7 + tag * 13 + 1);
                struct watch w;
                if (wt_me == 1)
                    arm(&w, dest, len);
                shmem_barrier_all();
                if (wt_me == 0)
                    issue((enum form)f, dest, src, len);
                shmem_barrier_all();
                if (wt_me == 1) {
                    user_stored += check(&w, dest, src, form_name[f], len);
                    checks++;
                }
            }
        }
    }
    if (wt_me == 1) {
        /* Coalesced, every watched byte is stored by weft in user space:
         * none seen means the watchpoints saw nothing. */
        WT_CHECK(user_stored > 0, "no watched byte was seen stored in %d puts", checks);
        printf("put_applied_once: %d puts, no watched byte stored twice at the target (%d "
               "watched bytes stored once from user space)\n",
               checks, user_stored);
    }
    shmem_barrier_all();
    shmem_free(heap);
    free(src);
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
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
#include "wt_watch.h"

#define MAXLEN 1024 /* the coalescing limit */
#define MAX_THREADS 32
static unsigned char dest_bss[MAXLEN];

struct watch {
    int fd[4][MAX_THREADS];
    size_t at[4];
    int n, nthreads;
    pid_t tid[MAX_THREADS];
};

/* Watch the first, the last, a middle and the second-to-last byte. */
static void arm(struct watch *w, unsigned char *dest, size_t len)
{
    w->n = wt_watched_bytes(len, w->at);
    w->nthreads = wt_threads(w->tid, MAX_THREADS, 0);
    for (int j = 0; j < w->n; j++)
        for (int t = 0; t < w->nthreads; t++) {
            int fd = wt_watch_byte(dest + w->at[j], w->tid[t], 0);
            WT_CHECK(fd >= 0, "perf_event_open on byte %zu, thread %d: %s", w->at[j],
                     (int)w->tid[t], strerror(errno));
            wt_watch_start(fd);
            w->fd[j][t] = fd;
        }
}

/* Returns how many watched bytes were stored from user space. */
static int check(struct watch *w, const unsigned char *dest, const unsigned char *src,
                 const char *what, size_t len)
{
    int stored = 0;
    for (int j = 0; j < w->n; j++) {
        long long writes = 0;
        for (int t = 0; t < w->nthreads; t++)
            writes += wt_watch_close(w->fd[j][t]);
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
    /* PE 0 must reach PE 1 through libfabric; PE 1 (the watcher) needs
     * breakpoints. */
    wt_skip_unless_all(wt_npes >= 2 && (wt_me != 0 || !shmem_ptr(heap, 1)) &&
                           (wt_me != 1 || wt_watch_usable()),
                       "put_applied_once", "PE 1 off the direct path and perf_event_open breakpoints");
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

/* SPDX-License-Identifier: BSD-3-Clause */
/* put_once: on the direct on-node path, every byte a put writes into a
 * peer's memory is stored exactly once.
 *
 * A byte stored twice (glibc's memmove stores the same 4 bytes twice for a
 * 4-byte copy, and overlapping vectors for larger ones) breaks a common
 * program: the target sees a flag, resets it, and the origin's second
 * store - delayed by a preemption between the two - writes the old value
 * back, so the next round's flag "arrives" before its data.
 * tests/api/flag_order shows that race; this test catches the double store
 * itself, deterministically: PE 0 puts to PE 1 through every put form,
 * with a hardware write watchpoint (perf_event_open) on four single bytes
 * of PE 1's destination as PE 0 maps it (shmem_ptr), and each must have
 * been written exactly once by the call.
 *
 * Needs the direct path between PE 0 and PE 1 and perf_event_open with
 * breakpoints; without either it exits 77 on every PE (ctest: skipped). */
#include "wt_watch.h"

#define MAXLEN 8192
static unsigned char dest_bss[MAXLEN];

struct watch {
    int fd[4];
    size_t at[4];
    int n;
};

/* Watch the first, the last, a middle and the second-to-last byte. */
static void arm(struct watch *w, unsigned char *mapped, size_t len)
{
    w->n = wt_watched_bytes(len, w->at);
    for (int j = 0; j < w->n; j++) {
        w->fd[j] = wt_watch_byte(mapped + w->at[j], 0, 0);
        WT_CHECK(w->fd[j] >= 0, "perf_event_open on byte %zu: %s", w->at[j], strerror(errno));
        wt_watch_start(w->fd[j]);
    }
}

static void check(struct watch *w, const char *what, size_t len)
{
    for (int j = 0; j < w->n; j++) {
        long long writes = wt_watch_close(w->fd[j]);
        WT_CHECK(writes == 1,
                 "%s of %zu bytes: byte %zu of the destination was stored %lld times (a byte "
                 "stored twice can bring back a value the target already replaced)",
                 what, len, w->at[j], writes);
    }
}

int main(void)
{
    wt_init("put_once");
    unsigned char *heap = shmem_malloc(MAXLEN + 64);
    unsigned char *src = malloc(MAXLEN);
    WT_CHECK(heap && src, "allocation");
    for (size_t i = 0; i < MAXLEN; i++)
        src[i] = (unsigned char)(i * 7 + 1);
    int usable = wt_npes >= 2 && shmem_ptr(heap, 1) && shmem_ptr(dest_bss, 1) && wt_watch_usable();
    wt_skip_unless_all(usable, "put_once",
                       "PE 1 on the direct path and perf_event_open breakpoints");
    if (wt_me == 0) {
        static const size_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32,
                                       33, 48, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257,
                                       1000, 4096, 4099, 8192};
        shmem_ctx_t ctx;
        WT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");
        for (int where = 0; where < 2; where++) {
            unsigned char *dest = where ? dest_bss : heap;
            unsigned char *mapped = shmem_ptr(dest, 1);
            const char *place = where ? ".bss" : "heap";
            struct watch w;
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                size_t len = sizes[k];
                WT_PHASE("%s: putmem %zu", place, len);
                arm(&w, mapped, len);
                shmem_putmem(dest, src, len, 1);
                check(&w, "shmem_putmem", len);
                arm(&w, mapped, len);
                shmem_putmem_nbi(dest, src, len, 1);
                shmem_quiet();
                check(&w, "shmem_putmem_nbi", len);
                arm(&w, mapped, len);
                shmem_ctx_putmem(ctx, dest, src, len, 1);
                check(&w, "shmem_ctx_putmem", len);
                arm(&w, mapped, len);
                shmem_putmem_signal(dest, src, len, (uint64_t *)(void *)(heap + MAXLEN + 8), 1,
                                    SHMEM_SIGNAL_SET, 1);
                check(&w, "shmem_putmem_signal (data)", len);
            }
            WT_PHASE("%s: scalar p and typed puts", place);
/* Watch LEN bytes of the destination around one call, named by its text. */
#define ONE_CALL(LEN, CALL)                                                        \
    do {                                                                           \
        arm(&w, mapped, (LEN));                                                    \
        CALL;                                                                      \
        check(&w, #CALL, (LEN));                                                   \
    } while (0)
            ONE_CALL(1, shmem_char_p((char *)dest, 'x', 1));
            ONE_CALL(2, shmem_short_p((short *)(void *)dest, 7, 1));
            ONE_CALL(4, shmem_int_p((int *)(void *)dest, 7, 1));
            ONE_CALL(4, shmem_float_p((float *)(void *)dest, 7.0f, 1));
            ONE_CALL(8, shmem_long_p((long *)(void *)dest, 7, 1));
            ONE_CALL(8, shmem_double_p((double *)(void *)dest, 7.0, 1));
            ONE_CALL(16, shmem_longdouble_put((long double *)(void *)dest,
                                              (const long double *)(void *)src, 1, 1));
            ONE_CALL(12, shmem_int_put((int *)(void *)dest, (const int *)(void *)src, 3, 1));
            /* Strided: the watched bytes are element 0 and element 2 (of 3
             * with stride 2): first, last and in between. */
            arm(&w, mapped, 20);
            shmem_int_iput((int *)(void *)dest, (const int *)(void *)src, 2, 1, 3, 1);
            for (int j = 0; j < w.n; j++) {
                long long writes = wt_watch_close(w.fd[j]);
                int in_element = (w.at[j] / 4) % 2 == 0;
                WT_CHECK(writes == in_element,
                         "shmem_int_iput stride 2: byte %zu stored %lld times, expected %d",
                         w.at[j], writes, in_element);
            }
        }
        shmem_ctx_destroy(ctx);
        printf("put_once: every watched byte of every put form stored exactly once\n");
    }
    shmem_barrier_all();
    shmem_free(heap);
    free(src);
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* p_burst: a long burst of single-element puts (shmem_TYPE_p) with no
 * quiet between them overruns the provider's transmit queue, so some are
 * refused and must be retried; after one quiet every element holds the
 * value of the last round, for each element type, at every peer. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT (1 << 16)
#define ROUNDS 3

static long errors;

#define BURST(T, NAME)                                                               \
    static void burst_##NAME(int me, int npes)                                       \
    {                                                                                \
        T *dest = shmem_calloc((size_t)COUNT * (size_t)npes, sizeof(T));             \
        if (!dest) {                                                                 \
            fprintf(stderr, "p_burst: shmem_calloc failed\n");                       \
            shmem_global_exit(1);                                                    \
        }                                                                            \
        shmem_barrier_all();                                                         \
        for (int round = 0; round < ROUNDS; round++)                                 \
            for (int k = 1; k < npes; k++) {                                         \
                int peer = (me + k) % npes;                                          \
                T *mine = dest + (size_t)me * COUNT;                                 \
                for (int i = 0; i < COUNT; i++)                                      \
                    shmem_##NAME##_p(&mine[i], (T)((i + round + me) % 100), peer);   \
            }                                                                        \
        shmem_quiet();                                                               \
        shmem_barrier_all();                                                         \
        for (int src = 0; src < npes; src++) {                                       \
            if (src == me) continue;                                                 \
            for (int i = 0; i < COUNT; i++) {                                        \
                T want = (T)((i + ROUNDS - 1 + src) % 100);                          \
                if (dest[(size_t)src * COUNT + i] != want && errors++ < 5)           \
                    fprintf(stderr, "p_burst: PE %d: %s from PE %d at %d wrong\n",   \
                            me, #NAME, src, i);                                      \
            }                                                                        \
        }                                                                            \
        shmem_barrier_all();                                                         \
        shmem_free(dest);                                                            \
    }
BURST(char, char)
BURST(int, int)
BURST(long, long)
BURST(double, double)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    burst_char(me, npes);
    burst_int(me, npes);
    burst_long(me, npes);
    burst_double(me, npes);
    if (me == 0 && errors == 0) printf("p_burst: OK\n");
    shmem_finalize();
    return errors != 0;
}

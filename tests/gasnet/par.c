/* SPDX-License-Identifier: BSD-3-Clause */
/* par.c: GASNET_PAR: four threads per node send requests (answered with
 * replies) to every node, put into their own slots of every node's segment
 * and sync, all at once; the counts and values must be exact. */
#define GASNET_PAR 1
#include <pthread.h>

#include "gn_test.h"

#define THREADS 4
#define ROUNDS 40

static int replies[THREADS], requests;
static gasnet_hsl_t lock = GASNET_HSL_INITIALIZER;
static long locked_sum;

static void h_req(gasnet_token_t t, gasnet_handlerarg_t thread, gasnet_handlerarg_t v)
{
    __atomic_add_fetch(&requests, 1, __ATOMIC_RELAXED);
    gasnet_hsl_lock(&lock);
    locked_sum += v;
    gasnet_hsl_unlock(&lock);
    gasnet_AMReplyShort1(t, 201, thread);
}
static void h_rep(gasnet_token_t t, gasnet_handlerarg_t thread)
{
    (void)t;
    __atomic_add_fetch(&replies[thread], 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    long *slot = NULL;
    for (int r = 0; r < ROUNDS; r++) {
        for (int d = 0; d < gt_n; d++) {
            gasnet_AMRequestShort2(d, 200, me, 1);
            slot = (long *)gt_seg[d].addr + (gt_me * THREADS + me) * ROUNDS + r;
            long v = gt_me * 1000 + me * 100 + r;
            gasnet_put_nbi(d, slot, &v, sizeof v);
        }
        gasnet_wait_syncnbi_puts();
    }
    int *c = &replies[me];
    GASNET_BLOCKUNTIL(__atomic_load_n(c, __ATOMIC_RELAXED) == ROUNDS * gt_n);
    return NULL;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {{200, (void (*)())h_req}, {201, (void (*)())h_rep}};
    gt_start("par", &argc, &argv, table, 2, 64 * 1024);
    GT_PHASE("threads");
    pthread_t th[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    GT_CHECK(gasnet_barrier(1, 0) == GASNET_OK, "barrier");
    GASNET_BLOCKUNTIL(__atomic_load_n(&requests, __ATOMIC_RELAXED) == THREADS * ROUNDS * gt_n);
    gasnet_hsl_lock(&lock);
    GT_CHECK(locked_sum == THREADS * ROUNDS * gt_n, "hsl-protected sum %ld", locked_sum);
    gasnet_hsl_unlock(&lock);
    GT_CHECK(gasnet_hsl_trylock(&lock) == GASNET_OK, "trylock");
    gasnet_hsl_unlock(&lock);
    long *mine = gt_seg[gt_me].addr;
    for (int n = 0; n < gt_n; n++)
        for (int t = 0; t < THREADS; t++)
            for (int r = 0; r < ROUNDS; r++)
                GT_CHECK(mine[(n * THREADS + t) * ROUNDS + r] == n * 1000 + t * 100 + r,
                         "slot %d/%d/%d", n, t, r);
    gt_finish();
}

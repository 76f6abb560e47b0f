/* SPDX-License-Identifier: BSD-3-Clause */
/* generic_user_macros: the C11 generic routines keep working when the
 * program defines short macros before using them (N and Y once broke the
 * type tables' flags; found with the specification's examples, which
 * `#define N`). Every single capital letter is defined here. */
#define A 1
#define B 2
#define C 3
#define D 4
#define E 5
#define F 6
#define G 7
#define H 8
#define I 9
#define J 10
#define K 11
#define L 12
#define M 13
#define N 4
#define O 15
#define P 16
#define Q 17
#define R 18
#define S 19
#define T 20
#define U 21
#define V 22
#define W 23
#define X 24
#define Y 5
#define Z 26
#include "weft_test.h"

static int dst[N];
static long counter;

int main(void)
{
    wt_init("generic_user_macros");
    int src[N] = {1, 2, 3, 4};
    int next = (wt_me + 1) % wt_npes;
    WT_PHASE("generic put, atomic add and wait_until with user macros defined");
    shmem_put(dst, src, N, next);
    shmem_atomic_add(&counter, (long)Y, next);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        WT_EQ_NUM(dst[i], i + 1, "dst[%d]", i);
    shmem_wait_until(&counter, SHMEM_CMP_EQ, (long)Y);
    WT_EQ_NUM(shmem_g(&dst[N - 1], next), N, "generic g");
    wt_finish();
    return 0;
}

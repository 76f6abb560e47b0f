/* SPDX-License-Identifier: BSD-3-Clause */
/* init_query: library setup and query routines.
 *   shmem_my_pe / shmem_n_pes: consistent, every PE number in [0, n) taken
 *     exactly once (each PE reports itself to PE 0)
 *   shmem_info_get_version / shmem_info_get_name
 *   shmem_pe_accessible: 1 for every PE of the job, 0 for -1 and n_pes
 *   shmem_addr_accessible: heap and static (.data, .bss) objects 1 for every
 *     PE; a stack object and a malloc'ed object 0
 *   shmem_ptr: non-NULL for the own PE and aliases the object; for another PE
 *     NULL is allowed, otherwise loads/stores through it reach that PE
 *   shmem_finalize: the program then exits 0 */
#include "weft_test.h"

long data_var = 42;          /* .data */
long bss_var;                /* .bss */
int data_arr[16] = {1, 2, 3};
long who[1024];              /* PE 0 collects shmem_my_pe of everybody */

int main(void)
{
    wt_init("init_query");
    int me = wt_me, n = wt_npes;

    WT_PHASE("initial values of static symmetric variables");
    WT_EQ_NUM(data_var, 42, "initialized global (.data) after shmem_init");
    WT_EQ_NUM(bss_var, 0, "zero-initialized global (.bss) after shmem_init");
    WT_EQ_NUM(data_arr[2], 3, "initialized global array after shmem_init");
    WT_EQ_NUM(shmem_my_pe(), me, "shmem_my_pe stable");
    WT_EQ_NUM(shmem_n_pes(), n, "shmem_n_pes stable");
    WT_CHECK(n <= 1024, "test supports at most 1024 PEs, got %d", n);

    WT_PHASE("every PE number taken exactly once");
    for (int i = 0; i < 1024; i++)
        who[i] = -1;
    shmem_barrier_all();
    shmem_long_p(&who[me], me + 1000, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int i = 0; i < n; i++)
            WT_EQ_NUM(who[i], i + 1000, "slot of PE %d at PE 0 (who reported which number)", i);

    WT_PHASE("shmem_info_get_version");
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    WT_EQ_NUM(major, SHMEM_MAJOR_VERSION, "shmem_info_get_version major");
    WT_EQ_NUM(minor, SHMEM_MINOR_VERSION, "shmem_info_get_version minor");
    WT_EQ_NUM(major, 1, "major version");
    WT_EQ_NUM(minor, 5, "minor version");

    WT_PHASE("shmem_info_get_name");
    char name[SHMEM_MAX_NAME_LEN + 16];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    WT_CHECK(memchr(name, 0, SHMEM_MAX_NAME_LEN) != NULL,
             "shmem_info_get_name: no terminating NUL within SHMEM_MAX_NAME_LEN (%d) bytes",
             SHMEM_MAX_NAME_LEN);
    WT_CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0,
             "shmem_info_get_name gave \"%s\", expected SHMEM_VENDOR_STRING \"%s\"", name,
             SHMEM_VENDOR_STRING);

    WT_PHASE("shmem_pe_accessible");
    for (int pe = 0; pe < n; pe++)
        WT_EQ_NUM(shmem_pe_accessible(pe), 1, "shmem_pe_accessible(%d) of %d PEs", pe, n);
    WT_EQ_NUM(shmem_pe_accessible(-1), 0, "shmem_pe_accessible(-1)");
    WT_EQ_NUM(shmem_pe_accessible(n), 0, "shmem_pe_accessible(n_pes=%d)", n);

    WT_PHASE("shmem_addr_accessible");
    long *heap = shmem_malloc(64 * sizeof(long));
    WT_CHECK(heap != NULL, "shmem_malloc(512) returned NULL");
    long stack_var = 1;
    long *priv = malloc(sizeof(long));
    WT_CHECK(priv != NULL, "malloc");
    for (int pe = 0; pe < n; pe++) {
        WT_EQ_NUM(shmem_addr_accessible(heap, pe), 1, "addr_accessible(heap, pe %d)", pe);
        WT_EQ_NUM(shmem_addr_accessible(&heap[63], pe), 1,
                  "addr_accessible(last element of a heap block, pe %d)", pe);
        WT_EQ_NUM(shmem_addr_accessible(&data_var, pe), 1,
                  "addr_accessible(.data global, pe %d)", pe);
        WT_EQ_NUM(shmem_addr_accessible(&bss_var, pe), 1,
                  "addr_accessible(.bss global, pe %d)", pe);
        WT_EQ_NUM(shmem_addr_accessible(&data_arr[15], pe), 1,
                  "addr_accessible(&data_arr[15], pe %d)", pe);
        WT_EQ_NUM(shmem_addr_accessible(&stack_var, pe), 0,
                  "addr_accessible(stack variable, pe %d)", pe);
        WT_EQ_NUM(shmem_addr_accessible(priv, pe), 0,
                  "addr_accessible(malloc'ed variable, pe %d)", pe);
    }

    WT_PHASE("shmem_ptr to the own PE");
    long *self = shmem_ptr(heap, me);
    WT_CHECK(self != NULL, "shmem_ptr(heap, my_pe) returned NULL");
    heap[5] = 1234;
    WT_EQ_NUM(self[5], 1234, "load through shmem_ptr(heap, me)");
    self[6] = 4321;
    WT_EQ_NUM(heap[6], 4321, "store through shmem_ptr(heap, me)");
    long *self_static = shmem_ptr(&bss_var, me);
    WT_CHECK(self_static != NULL, "shmem_ptr(&bss_var, my_pe) returned NULL");
    *self_static = 77;
    WT_EQ_NUM(bss_var, 77, "store through shmem_ptr(&bss_var, me)");

    WT_PHASE("shmem_ptr to another PE");
    int right = (me + 1) % n;
    heap[0] = -1;
    shmem_barrier_all();
    long *rp = shmem_ptr(heap, right);
    if (rp != NULL)
        rp[0] = 5000 + me; /* direct store to the right neighbour */
    shmem_barrier_all();
    /* Report through RMA whether our left neighbour could use shmem_ptr. */
    int left = (me + n - 1) % n;
    long *flag = shmem_calloc(1, sizeof(long));
    WT_CHECK(flag != NULL, "shmem_calloc(1, 8)");
    shmem_long_p(flag, rp != NULL, right);
    shmem_barrier_all();
    if (*flag)
        WT_EQ_NUM(heap[0], 5000 + left, "value stored by PE %d through shmem_ptr", left);
    else
        WT_EQ_NUM(heap[0], -1, "heap[0] must be untouched when PE %d got NULL", left);
    if (me == 0 && n > 1)
        printf("shmem_ptr to a remote PE: %s\n", rp ? "load/store supported" : "NULL");

    shmem_free(flag);
    shmem_free(heap);
    free(priv);
    wt_finish();
    return 0;
}

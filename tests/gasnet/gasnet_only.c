/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_only.c: a GASNet-only program linked with libweft-gasnet (as
 * gasnet-weft-seq.pc and the makefile fragments link it) may define
 * OpenSHMEM's names itself, as an OpenSHMEM library over GASNet does: the
 * library exports none (its own calls stay inside), and GASNet works. */
#include <dlfcn.h>

#include "gn_test.h"

/* The program's own OpenSHMEM names; weft must never reach them. */
int shmem_my_pe(void) { return -42; }
void shmem_barrier_all(void) { abort(); }
void shmem_quiet(void) { abort(); }
void shmem_init(void) { abort(); }

static volatile int hits;
static void h_hit(gasnet_token_t t) { (void)t; hits++; }

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {{200, (void (*)())h_hit}};
    gt_start("gasnet_only", &argc, &argv, table, 1, 64 * 1024);
    GT_PHASE("no OpenSHMEM symbol of weft's");
    static const char *names[] = {"shmem_putmem", "shmem_malloc", "pshmem_putmem",
                                  "shmem_init_thread", "shmemx_team_split_type"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        GT_CHECK(dlsym(RTLD_DEFAULT, names[i]) == NULL, "%s is visible to the program",
                 names[i]);
    GT_CHECK(shmem_my_pe() == -42, "the program's shmem_my_pe");
    GT_PHASE("puts, an AM, barriers");
    gasnet_node_t next = (gasnet_node_t)((gt_me + 1) % gt_n);
    long v = 100 + gt_me;
    gasnet_put(next, gt_seg[next].addr, &v, sizeof v);
    gasnet_AMRequestShort0(next, 200);
    GASNET_BLOCKUNTIL(hits == 1);
    GT_CHECK(gasnet_barrier(0, 0) == GASNET_OK, "barrier");
    long got = *(long *)gt_seg[gt_me].addr;
    GT_CHECK(got == 100 + (gt_me + gt_n - 1) % gt_n, "got %ld", got);
    gt_finish();
    return 0;
}

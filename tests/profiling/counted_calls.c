/* SPDX-License-Identifier: BSD-3-Clause */
/* counted_calls.c is the program of the profiling tests: it makes a known
 * number of calls to the routines the counter tool counts (counter_tool.h),
 * tells the tool how many, and checks the data the calls moved, so the
 * calls demonstrably reached weft. Calls under older names that are the
 * same routine (shmalloc, shmem_long_fadd, _my_pe) and routines weft once
 * built on counted ones (shmem_realloc, shmem_fence) must not be counted:
 * a tool sees each call once, under the name the program used.
 *
 * Built with CALL_PROFILING_NAMES, it makes every call under its pshmem_ /
 * p name instead: those bypass the tool, whose counts must stay at zero,
 * and the tool is verified by an explicit counter_tool_verify (its
 * shmem_finalize is bypassed too). Either way the program fails unless the
 * tool verified exactly once. TOOL_PRELOADED: see below. */
#include <pshmem.h>

#include "counter_tool.h"
#include "weft_test.h"

#ifdef CALL_PROFILING_NAMES
#define ROUTINE(name) pshmem_##name /* shmem_putmem -> pshmem_putmem */
#define OLD_ROUTINE(name) p##name   /* shmalloc -> pshmalloc */
#define TOOL_SEES(calls) 0L
#else
#define ROUTINE(name) shmem_##name
#define OLD_ROUTINE(name) name
#define TOOL_SEES(calls) ((long)(calls))
#endif

/* Built with TOOL_PRELOADED, the program does not link the tool: the
 * tool's interface is resolved at run time from an LD_PRELOADed tool, and
 * is null without one. */
#ifdef TOOL_PRELOADED
#pragma weak counter_tool_expect
#pragma weak counter_tool_verify
#pragma weak counter_tool_verifications
#endif

enum { ROUNDS = 5 };

int main(void)
{
    static int ints[ROUNDS];
    static long counter;

    wt_setup("profiling.counted_calls");
#ifdef TOOL_PRELOADED
    if (!counter_tool_expect || !counter_tool_verify || !counter_tool_verifications) {
        fprintf(stderr, "FAIL [%s]: no counter tool loaded\n", wt_test_name);
        return 1;
    }
#endif

    WT_PHASE("init");
    ROUTINE(init)();
    wt_me = ROUTINE(my_pe)();
    wt_npes = ROUTINE(n_pes)();
    WT_EQ_NUM(OLD_ROUTINE(_my_pe)(), wt_me, "_my_pe against shmem_my_pe");
    int right = (wt_me + 1) % wt_npes, left = (wt_me + wt_npes - 1) % wt_npes;

    WT_PHASE("symmetric memory");
    char *buf = ROUTINE(malloc)(64);
    WT_CHECK(buf != NULL, "shmem_malloc(64)");
    buf = ROUTINE(realloc)(buf, 128); /* once built on shmem_malloc/_free */
    WT_CHECK(buf != NULL, "shmem_realloc(buf, 128)");
    char *extra = OLD_ROUTINE(shmalloc)(32);
    WT_CHECK(extra != NULL, "shmalloc(32)");

    WT_PHASE("puts, p, atomics");
    for (int i = 0; i < ROUNDS; i++) {
        char byte = (char)(wt_me * 16 + i);
        ROUTINE(putmem)(buf + i, &byte, 1, right);
        ROUTINE(int_p)(&ints[i], wt_me * 100 + i, right);
        ROUTINE(long_atomic_fetch_add)(&counter, 1, 0);
    }
    ROUTINE(long_fadd)(&counter, 1, 0); /* the same routine as atomic_fetch_add */
    ROUTINE(fence)();                   /* once built on shmem_ctx_fence */
    ROUTINE(ctx_fence)(SHMEM_CTX_DEFAULT);
    ROUTINE(quiet)();

    /* Profiling off: these calls are made but not counted. */
    ROUTINE(pcontrol)(0);
    ROUTINE(int_p)(&ints[0], wt_me * 100, right);
    ROUTINE(barrier_all)();
    ROUTINE(pcontrol)(1);
    ROUTINE(pcontrol)(2);
    ROUTINE(pcontrol)(7, "a tool-defined level", 42);
    ROUTINE(barrier_all)();

    WT_PHASE("check the data");
    for (int i = 0; i < ROUNDS; i++) {
        WT_EQ_NUM(buf[i], (char)(left * 16 + i), "byte %d put by PE %d", i, left);
        WT_EQ_NUM(ints[i], left * 100 + i, "int %d put by PE %d", i, left);
    }
    if (wt_me == 0)
        WT_EQ_NUM(counter, (long)wt_npes * (ROUNDS + 1), "counter after every PE's adds");
    ROUTINE(barrier_all)();

    OLD_ROUTINE(shfree)(extra);
    ROUTINE(free)(buf);

    WT_PHASE("finalize");
    counter_tool_expect("init", TOOL_SEES(1));
    counter_tool_expect("my_pe", TOOL_SEES(1));
    counter_tool_expect("malloc", TOOL_SEES(1));
    counter_tool_expect("free", TOOL_SEES(1));
    counter_tool_expect("putmem", TOOL_SEES(ROUNDS));
    counter_tool_expect("int_p", TOOL_SEES(ROUNDS));
    counter_tool_expect("long_atomic_fetch_add", TOOL_SEES(ROUNDS));
    counter_tool_expect("ctx_fence", TOOL_SEES(1));
    counter_tool_expect("quiet", TOOL_SEES(1));
    counter_tool_expect("barrier_all", TOOL_SEES(2));
    counter_tool_expect("pcontrol", TOOL_SEES(4));
    counter_tool_expect("finalize", TOOL_SEES(1));
#ifdef CALL_PROFILING_NAMES
    counter_tool_verify();
#endif
    ROUTINE(finalize)();
    if (counter_tool_verifications() != 1) {
        fprintf(stderr, "FAIL [%s] PE %d: the counter tool verified %d times, not once\n",
                wt_test_name, wt_me, counter_tool_verifications());
        return 1;
    }
    if (wt_me == 0)
        printf("PASS [%s] %d PE(s)\n", wt_test_name, wt_npes);
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* counter_tool.c is the profiling tests' tool (interface in counter_tool.h):
 * it replaces a few shmem_ routines with ones that count their calls and
 * forward to the pshmem_ names, the way a real profiler would. Built as a
 * shared library (linked ahead of weft, or LD_PRELOADed) and as part of a
 * program. */
#include <pshmem.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "counter_tool.h"

/* The routines counted, with their signatures: (return type, name without
 * shmem_, parameters, arguments). shmem_finalize and shmem_pcontrol are
 * counted too, by hand below: one verifies, the other is variadic. */
#define COUNTED_VOID_ROUTINES(X)                                                          \
    X(init, (void), ())                                                                   \
    X(putmem, (void *dest, const void *source, size_t nelems, int pe),                    \
      (dest, source, nelems, pe))                                                         \
    X(int_p, (int *dest, int value, int pe), (dest, value, pe))                           \
    X(barrier_all, (void), ())                                                            \
    X(quiet, (void), ())                                                                  \
    X(ctx_fence, (shmem_ctx_t ctx), (ctx))                                                \
    X(free, (void *ptr), (ptr))
#define COUNTED_VALUE_ROUTINES(X)                                                         \
    X(long, long_atomic_fetch_add, (long *dest, long value, int pe), (dest, value, pe))   \
    X(void *, malloc, (size_t size), (size))                                              \
    X(int, my_pe, (void), ())

enum counted_routine {
#define ROUTINE_ID(NAME, ...) COUNTED_##NAME,
#define VALUE_ROUTINE_ID(RET, NAME, ...) COUNTED_##NAME,
    COUNTED_VOID_ROUTINES(ROUTINE_ID) COUNTED_VALUE_ROUTINES(VALUE_ROUTINE_ID)
    COUNTED_finalize,
    COUNTED_pcontrol,
    N_COUNTED
};

static const char *const routine_names[N_COUNTED] = {
#define ROUTINE_NAME(NAME, ...) [COUNTED_##NAME] = #NAME,
#define VALUE_ROUTINE_NAME(RET, NAME, ...) [COUNTED_##NAME] = #NAME,
    COUNTED_VOID_ROUTINES(ROUTINE_NAME) COUNTED_VALUE_ROUTINES(VALUE_ROUTINE_NAME)
    [COUNTED_finalize] = "finalize",
    [COUNTED_pcontrol] = "pcontrol",
};

static long seen[N_COUNTED];
static long expected[N_COUNTED];
static int has_expectation[N_COUNTED];
static int counting = 1; /* shmem_pcontrol level 0 clears it */
static int verifications;

static void count(enum counted_routine r)
{
    if (counting)
        seen[r]++;
}

#define DEFINE_VOID_ROUTINE(NAME, PARAMS, ARGS)                                           \
    void shmem_##NAME PARAMS                                                              \
    {                                                                                     \
        count(COUNTED_##NAME);                                                            \
        pshmem_##NAME ARGS;                                                               \
    }
#define DEFINE_VALUE_ROUTINE(RET, NAME, PARAMS, ARGS)                                     \
    RET shmem_##NAME PARAMS                                                               \
    {                                                                                     \
        count(COUNTED_##NAME);                                                            \
        return pshmem_##NAME ARGS;                                                        \
    }
COUNTED_VOID_ROUTINES(DEFINE_VOID_ROUTINE)
COUNTED_VALUE_ROUTINES(DEFINE_VALUE_ROUTINE)

/* Levels 0 and 1 switch counting off and on; any other level (2 flushes,
 * the rest are a tool's own) leaves it as it is. The extra arguments of a
 * tool-defined level are not forwarded: weft ignores them anyway. */
void shmem_pcontrol(int level, ...)
{
    seen[COUNTED_pcontrol]++;
    if (level == 0 || level == 1)
        counting = level;
    pshmem_pcontrol(level);
}

void shmem_finalize(void)
{
    count(COUNTED_finalize);
    counter_tool_verify();
    pshmem_finalize();
}

void counter_tool_expect(const char *routine, long calls)
{
    for (int r = 0; r < N_COUNTED; r++) {
        if (strcmp(routine, routine_names[r]) == 0) {
            expected[r] = calls;
            has_expectation[r] = 1;
            return;
        }
    }
    fprintf(stderr, "counter tool: no routine shmem_%s is counted\n", routine);
    pshmem_global_exit(1);
}

/* pshmem_my_pe, not shmem_my_pe: the tool's own calls are not the
 * program's and must not be counted. */
void counter_tool_verify(void)
{
    int me = pshmem_my_pe(), bad = 0;
    for (int r = 0; r < N_COUNTED; r++) {
        if (!has_expectation[r]) {
            fprintf(stderr, "counter tool: PE %d: no expectation for shmem_%s\n", me,
                    routine_names[r]);
            bad++;
        } else if (seen[r] != expected[r]) {
            fprintf(stderr, "counter tool: PE %d: shmem_%s seen %ld times, called %ld times\n",
                    me, routine_names[r], seen[r], expected[r]);
            bad++;
        }
    }
    if (bad) {
        fflush(stdout);
        pshmem_global_exit(1);
    }
    printf("counter tool: PE %d: all %d routines seen as often as called\n", me, N_COUNTED);
    fflush(stdout);
    verifications++;
}

int counter_tool_verifications(void) { return verifications; }

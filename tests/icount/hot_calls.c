/* SPDX-License-Identifier: BSD-3-Clause */
/* hot_calls.c owns the workload of the instruction-count harness: on 2 PEs,
 * PE 0 issues each hot-path call to PE 1 many times, and callgrind counts
 * only the instructions executed inside those calls.
 *
 *   hot_calls [measured_calls]        (default 1000)
 *
 * Run under measure.py, which starts PE 0 under
 *   valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no
 * Every measured call sits between two CALLGRIND_TOGGLE_COLLECT requests, so
 * only the instructions between them are counted; measure.py drops the few
 * that belong to this program (the call instruction, the PLT jump, the
 * request itself) by object. After each call's loop, CALLGRIND_DUMP_STATS_AT
 * writes one profile named after the call ("phase <name> <calls>"). Outside
 * valgrind the requests do nothing, so PE 1 runs the same code natively.
 *
 * Warm-up calls (not counted) come first so that lazy binding, first-touch
 * page faults and provider connection set-up stay out of the figures. Puts
 * are quieted every QUIET_WINDOW calls, outside the counted region, as a
 * message-rate loop would, so the provider's queues never fill and the
 * counts are the steady-state issue cost. */
#include <gasnet.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND_REQUESTS 1
#endif
#endif
#ifndef HAVE_CALLGRIND_REQUESTS
#define HAVE_CALLGRIND_REQUESTS 0
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(name) (void)(name)
#endif

#define WARMUP_CALLS 100
#define QUIET_WINDOW 64

/* Targets on the symmetric heap (shmem_malloc), where programs keep most
 * of their symmetric data. */
static int *int_target;
static long *long_target;
static char *bytes_target;
static long *flag_target;
/* And one static (.bss) target: static symmetric variables take the same
 * fast path as heap objects. */
static int static_int_target;
static long static_long_counter;

/* One profile per phase; the name carries the call count so measure.py
 * divides by what actually ran. */
static void dump_phase(const char *name, int calls)
{
    char label[96];
    snprintf(label, sizeof label, "phase %s %d", name, calls);
    CALLGRIND_DUMP_STATS_AT(label);
}

/* Only PE 0 measures; PE 1 waits in the barrier that ends the phase
 * (progressing the provider, which the shm and AMO paths need). */
static void phase_int_p(int me, int calls)
{
    if (me == 0) {
        for (int i = 0; i < WARMUP_CALLS; i++)
            shmem_int_p(int_target, i, 1);
        shmem_quiet();
        for (int i = 0; i < calls; i++) {
            CALLGRIND_TOGGLE_COLLECT;
            shmem_int_p(int_target, i, 1);
            CALLGRIND_TOGGLE_COLLECT;
            if (i % QUIET_WINDOW == QUIET_WINDOW - 1)
                shmem_quiet();
        }
        shmem_quiet();
        dump_phase("shmem_int_p", calls);
    }
    shmem_barrier_all();
}

/* shmem_int_p to a static variable. */
static void phase_int_p_static(int me, int calls)
{
    if (me == 0) {
        for (int i = 0; i < WARMUP_CALLS; i++)
            shmem_int_p(&static_int_target, i, 1);
        shmem_quiet();
        for (int i = 0; i < calls; i++) {
            CALLGRIND_TOGGLE_COLLECT;
            shmem_int_p(&static_int_target, i, 1);
            CALLGRIND_TOGGLE_COLLECT;
            if (i % QUIET_WINDOW == QUIET_WINDOW - 1)
                shmem_quiet();
        }
        shmem_quiet();
        dump_phase("shmem_int_p_static", calls);
    }
    shmem_barrier_all();
}

static void phase_fetch_add(int me, int calls)
{
    if (me == 0) {
        long sum = 0;
        for (int i = 0; i < WARMUP_CALLS; i++)
            sum += shmem_long_atomic_fetch_add(long_target, 1, 1);
        for (int i = 0; i < calls; i++) {
            CALLGRIND_TOGGLE_COLLECT;
            sum += shmem_long_atomic_fetch_add(long_target, 1, 1);
            CALLGRIND_TOGGLE_COLLECT;
        }
        dump_phase("shmem_long_atomic_fetch_add", calls);
        /* The fetched values are 0, 1, ... n-1: a check that the calls ran. */
        long n = WARMUP_CALLS + calls;
        if (sum != n * (n - 1) / 2) {
            fprintf(stderr, "hot_calls: fetch_add results sum to %ld, expected %ld\n", sum,
                    n * (n - 1) / 2);
            shmem_global_exit(1);
        }
    }
    shmem_barrier_all();
}

/* shmem_long_atomic_add to a static counter, where programs and benchmarks
 * keep theirs; quiet now and then, as for puts. PE 1 checks the sum. */
static void phase_add_static(int me, int calls)
{
    if (me == 0) {
        for (int i = 0; i < WARMUP_CALLS; i++)
            shmem_long_atomic_add(&static_long_counter, 1, 1);
        shmem_quiet();
        for (int i = 0; i < calls; i++) {
            CALLGRIND_TOGGLE_COLLECT;
            shmem_long_atomic_add(&static_long_counter, 1, 1);
            CALLGRIND_TOGGLE_COLLECT;
            if (i % QUIET_WINDOW == QUIET_WINDOW - 1)
                shmem_quiet();
        }
        shmem_quiet();
        dump_phase("shmem_long_atomic_add_static", calls);
    }
    shmem_barrier_all();
    if (me == 1 && static_long_counter != WARMUP_CALLS + calls) {
        fprintf(stderr, "hot_calls: static counter is %ld, expected %d\n", static_long_counter,
                WARMUP_CALLS + calls);
        shmem_global_exit(1);
    }
}

static void phase_putmem_nbi(int me, int calls)
{
    if (me == 0) {
        static const char eight[8] = "01234567";
        for (int i = 0; i < WARMUP_CALLS; i++)
            shmem_putmem_nbi(bytes_target, eight, sizeof eight, 1);
        shmem_quiet();
        for (int i = 0; i < calls; i++) {
            CALLGRIND_TOGGLE_COLLECT;
            shmem_putmem_nbi(bytes_target, eight, sizeof eight, 1);
            CALLGRIND_TOGGLE_COLLECT;
            if (i % QUIET_WINDOW == QUIET_WINDOW - 1)
                shmem_quiet();
        }
        shmem_quiet();
        dump_phase("shmem_putmem_nbi_8B", calls);
    }
    shmem_barrier_all();
}

/* Counting put of 8 B (shmemx_putmem_ct): the copy and the counter's
 * release add. PE 1 checks the count. */
static void phase_putmem_ct(int me, int calls)
{
    shmemx_ct_t ct;
    shmemx_ct_create(&ct);
    if (me == 0) {
        static const char eight[8] = "01234567";
        for (int i = 0; i < WARMUP_CALLS; i++)
            shmemx_putmem_ct(ct, bytes_target, eight, sizeof eight, 1);
        shmem_quiet();
        for (int i = 0; i < calls; i++) {
            CALLGRIND_TOGGLE_COLLECT;
            shmemx_putmem_ct(ct, bytes_target, eight, sizeof eight, 1);
            CALLGRIND_TOGGLE_COLLECT;
            if (i % QUIET_WINDOW == QUIET_WINDOW - 1)
                shmem_quiet();
        }
        shmem_quiet();
        dump_phase("shmemx_putmem_ct_8B", calls);
    } else if (me == 1) {
        shmemx_ct_wait(ct, WARMUP_CALLS + calls);
        if (shmemx_ct_get(ct) != WARMUP_CALLS + calls) {
            fprintf(stderr, "hot_calls: PE 1 counts %ld counting puts, want %d\n",
                    shmemx_ct_get(ct), WARMUP_CALLS + calls);
            shmem_global_exit(1);
        }
    }
    shmemx_ct_free(&ct);
}

/* quiet after one put: the put (shmem_long_p, so the int_p figure is not
 * mixed in) is not counted, the quiet is. */
static void phase_quiet(int me, int calls)
{
    if (me == 0) {
        for (int i = 0; i < WARMUP_CALLS; i++) {
            shmem_long_p(flag_target, i, 1);
            shmem_quiet();
        }
        for (int i = 0; i < calls; i++) {
            shmem_long_p(flag_target, i, 1);
            CALLGRIND_TOGGLE_COLLECT;
            shmem_quiet();
            CALLGRIND_TOGGLE_COLLECT;
        }
        dump_phase("shmem_quiet_after_put", calls);
    }
    shmem_barrier_all();
}

/* Both PEs loop; only PE 0 runs under callgrind. */
static void phase_barrier(int me, int calls)
{
    for (int i = 0; i < WARMUP_CALLS; i++)
        shmem_barrier_all();
    for (int i = 0; i < calls; i++) {
        CALLGRIND_TOGGLE_COLLECT;
        shmem_barrier_all();
        CALLGRIND_TOGGLE_COLLECT;
    }
    if (me == 0)
        dump_phase("shmem_barrier_all", calls);
    shmem_barrier_all();
}

/* GASNet (docs/gasnet.md): an AM Short request with no argument, answered
 * by a reply; PE 0 sends RING at a time (the on-node ring's depth) and
 * waits for their replies outside the counted region, so every counted
 * send finds a free slot, as a steady request stream does. */
#define RING 8
static volatile int am_handled, am_replied;
static void am_request(gasnet_token_t t)
{
    am_handled++;
    gasnet_AMReplyShort0(t, 201);
}
static void am_reply(gasnet_token_t t)
{
    (void)t;
    am_replied++;
}

/* After a call that is inline code (gasnet.h's fast path), a call out of
 * line before the closing toggle: callgrind switches collection at the
 * start of a basic block, so the block holding the inlined copy would
 * otherwise fall outside the count. Its own instructions are the
 * harness's (dropped). */
static __attribute__((noinline)) void bb_end(void) { __asm__ volatile(""); }

static void phase_gasnet(int me, int calls)
{
    char *seg1 = NULL;
    gasnet_seginfo_t si[2];
    gasnet_getSegmentInfo(si, 2);
    seg1 = si[1].addr;
    if (me == 0) {
        for (int i = 0; i < WARMUP_CALLS; i++) {
            gasnet_AMRequestShort0(1, 200);
            GASNET_BLOCKUNTIL(am_replied == i + 1);
        }
        int sent = 0;
        while (sent < calls) {
            for (int k = 0; k < RING && sent < calls; k++, sent++) {
                CALLGRIND_TOGGLE_COLLECT;
                gasnet_AMRequestShort0(1, 200);
                CALLGRIND_TOGGLE_COLLECT;
            }
            GASNET_BLOCKUNTIL(am_replied == WARMUP_CALLS + sent);
        }
        dump_phase("gasnet_AMRequestShort0", calls);

        /* The node as a client has it, a value known only at run time
         * (a constant would fold the table's index into the address). */
        gasnet_node_t nbr = (gasnet_node_t)(me + 1) % gasnet_nodes();
        long v = 0;
        for (int i = 0; i < WARMUP_CALLS; i++)
            gasnet_put_nbi(nbr, seg1, &v, 8);
        gasnet_wait_syncnbi_puts();
        for (int i = 0; i < calls; i++) {
            v = i;
            CALLGRIND_TOGGLE_COLLECT;
            gasnet_put_nbi(nbr, seg1, &v, 8);
            bb_end();
            CALLGRIND_TOGGLE_COLLECT;
            if (i % QUIET_WINDOW == QUIET_WINDOW - 1)
                gasnet_wait_syncnbi_puts();
        }
        gasnet_wait_syncnbi_puts();
        dump_phase("gasnet_put_nbi_8B", calls);

        /* The explicit-handle form: the same fast path, the handle synced
         * outside the count. */
        for (int i = 0; i < calls; i++) {
            v = i;
            CALLGRIND_TOGGLE_COLLECT;
            gasnet_handle_t h = gasnet_put_nb(nbr, seg1 + 8, &v, 8);
            bb_end();
            CALLGRIND_TOGGLE_COLLECT;
            gasnet_wait_syncnb(h);
        }
        dump_phase("gasnet_put_nb_8B", calls);

        /* The implicit-put sync after one put, as shmem_quiet after one
         * put: the put is not counted, the sync is. */
        for (int i = 0; i < calls; i++) {
            v = i;
            gasnet_put_nbi(nbr, seg1, &v, 8);
            CALLGRIND_TOGGLE_COLLECT;
            gasnet_wait_syncnbi_puts();
            CALLGRIND_TOGGLE_COLLECT;
        }
        dump_phase("gasnet_wait_syncnbi_puts_after_put", calls);

        for (int i = 0; i < calls; i++) {
            CALLGRIND_TOGGLE_COLLECT;
            gasnet_wait_syncnbi_puts();
            CALLGRIND_TOGGLE_COLLECT;
        }
        dump_phase("gasnet_wait_syncnbi_puts_idle", calls);
    } else {
        GASNET_BLOCKUNTIL(am_handled == WARMUP_CALLS + calls);
    }
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    const long *got = si[1].addr;
    if (me == 1 && (got[0] != calls - 1 || got[1] != calls - 1)) {
        fprintf(stderr,
                "hot_calls: PE 1 sees %ld from gasnet_put_nbi, %ld from gasnet_put_nb (want %d)\n",
                got[0], got[1], calls - 1);
        shmem_global_exit(1);
    }
}

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 1000;
    if (calls <= 0) {
        fprintf(stderr, "usage: hot_calls [measured_calls > 0]\n");
        return 2;
    }
    if (!HAVE_CALLGRIND_REQUESTS) {
        /* measure.py turns this line into a skip. */
        printf("hot_calls: built without valgrind/callgrind.h, nothing to measure\n");
        return 0;
    }
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "hot_calls: needs exactly 2 PEs, got %d\n", shmem_n_pes());
        shmem_global_exit(2);
    }
    int_target = shmem_malloc(sizeof *int_target);
    long_target = shmem_malloc(sizeof *long_target);
    bytes_target = shmem_malloc(8);
    flag_target = shmem_malloc(sizeof *flag_target);
    if (!int_target || !long_target || !bytes_target || !flag_target) {
        fprintf(stderr, "hot_calls: PE %d: shmem_malloc failed\n", me);
        shmem_global_exit(1);
    }
    *long_target = 0;
    gasnet_handlerentry_t handlers[] = {{200, (void (*)())am_request}, {201, (void (*)())am_reply}};
    if (gasnet_init(&argc, &argv) != GASNET_OK ||
        gasnet_attach(handlers, 2, GASNET_PAGESIZE, 0) != GASNET_OK)
        shmem_global_exit(1);
    /* Instrumentation starts after shmem_init: the provider's start-up would
     * otherwise cost most of the run time under callgrind. */
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
    shmem_barrier_all();

    phase_int_p(me, calls);
    phase_int_p_static(me, calls);
    phase_fetch_add(me, calls);
    phase_add_static(me, calls);
    phase_putmem_nbi(me, calls);
    phase_putmem_ct(me, calls);
    phase_quiet(me, calls);
    phase_barrier(me, calls);
    phase_gasnet(me, calls);

    if (me == 1) {
        /* PE 1 checks that PE 0's last writes of each kind arrived. */
        long fadd_expected = WARMUP_CALLS + calls;
        if (*int_target != calls - 1 || static_int_target != calls - 1 || *long_target != fadd_expected ||
            *flag_target != calls - 1 || memcmp(bytes_target, "01234567", 8) != 0) {
            fprintf(stderr,
                    "hot_calls: PE 1 sees int %d (want %d), static int %d, long %ld (want "
                    "%ld), flag %ld (want %d)\n",
                    *int_target, calls - 1, static_int_target, *long_target, fadd_expected, *flag_target,
                    calls - 1);
            shmem_global_exit(1);
        }
    }
    shmem_finalize();
    return 0;
}

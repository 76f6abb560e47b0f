/* SPDX-License-Identifier: BSD-3-Clause */
/* barrier.c owns the GASNet split-phase barrier: a dissemination barrier
 * over active messages (ceil(log2 n) rounds; in round k node i tells node
 * i + 2^k what it has learned so far) that combines, on the way, what each
 * node's notify said: anonymous, named with an id, or a forced mismatch.
 * The combination is idempotent, so the overlapping paths of the
 * dissemination do no harm, and every node ends with the same verdict:
 * mismatch if any node forced it or two named nodes disagree. The checks
 * of wait against its own notify are per node, as the specification says.
 * Two consecutive barriers never overlap by more than one phase, so the
 * incoming messages are kept per phase parity. */
#include "gasnet/gasnet_internal.h"

#define ROUNDS 32
#define B_NAMED 1    /* some node's notify was named: id is valid */
#define B_MISMATCH 2 /* forced, or two named ids differed */

struct bstate {
    int flags;
    int id;
};

static struct {
    int notified;
    unsigned phase;
    int n_rounds;
    int round;        /* next round whose message we wait for */
    int notify_id, notify_flags;
    struct bstate acc;
    struct bstate last; /* the verdict of the last completed barrier */
    int last_valid;
    /* Filled by the handler (any thread running handlers). */
    struct bstate in[2][ROUNDS];
    int got[2][ROUNDS];
} gb;

static struct bstate combine(struct bstate a, struct bstate b)
{
    if ((a.flags | b.flags) & B_MISMATCH)
        return (struct bstate){B_MISMATCH, 0};
    if (!(a.flags & B_NAMED))
        return b;
    if (!(b.flags & B_NAMED))
        return a;
    return a.id == b.id ? a : (struct bstate){B_MISMATCH, 0};
}

void weft_gn_barrier_init(void)
{
    int n = weft_rt.n_pes, r = 0;
    while ((1 << r) < n)
        r++;
    gb.n_rounds = r;
}

void weft_gn_barrier_handler(gasnet_token_t tok, gasnet_handlerarg_t phase,
                             gasnet_handlerarg_t round, gasnet_handlerarg_t flags,
                             gasnet_handlerarg_t id)
{
    (void)tok;
    int p = phase & 1;
    if (round < 0 || round >= ROUNDS)
        weft_fatal("gasnet_barrier_notify", "malformed barrier message (round %d)", round);
    gb.in[p][round] = (struct bstate){flags, id};
    __atomic_store_n(&gb.got[p][round], 1, __ATOMIC_RELEASE);
}

static void send_round(void)
{
    int peer = (weft_rt.my_pe + (1 << gb.round)) % weft_rt.n_pes;
    int32_t a[4] = {(int32_t)(gb.phase & 1), gb.round, gb.acc.flags, gb.acc.id};
    struct weft_am_out m = {WEFT_GN_H_BARRIER, WEFT_AM_SHORT, 0, 4, a, NULL, 0, 0};
    weft_am_send("gasnet_barrier_notify", peer, &m);
}

/* Take the rounds whose messages arrived; 1 when the barrier completed. */
static int advance(void)
{
    int p = gb.phase & 1;
    while (gb.round < gb.n_rounds) {
        if (!__atomic_load_n(&gb.got[p][gb.round], __ATOMIC_ACQUIRE))
            return 0;
        gb.got[p][gb.round] = 0;
        gb.acc = combine(gb.acc, gb.in[p][gb.round]);
        gb.round++;
        if (gb.round < gb.n_rounds)
            send_round();
    }
    return 1;
}

void weft_gasnet_barrier_notify(int id, int flags)
{
    const char *call = "gasnet_barrier_notify";
    if (!weft_gn.attached)
        weft_gn_fail_attach(call);
    weft_gn_check_blocking(call);
    if (gb.notified)
        weft_fatal(call, "called twice without a gasnet_barrier_wait (or successful try) "
                         "in between");
    if (flags & ~(GASNET_BARRIERFLAG_UNNAMED | GASNET_BARRIERFLAG_MISMATCH))
        weft_fatal(call, "argument flags=%d is not 0 or GASNET_BARRIERFLAG_*", flags);
    flags &= ~WEFT_GASNET_BARRIERFLAG_UNNAMED_BIT; /* unnamed is anonymous here */
    gb.notified = 1;
    gb.notify_id = id;
    gb.notify_flags = flags;
    if (flags & GASNET_BARRIERFLAG_MISMATCH)
        gb.acc = (struct bstate){B_MISMATCH, 0};
    else if (flags & GASNET_BARRIERFLAG_ANONYMOUS)
        gb.acc = (struct bstate){0, 0};
    else
        gb.acc = (struct bstate){B_NAMED, id};
    gb.round = 0;
    if (gb.n_rounds)
        send_round();
}

/* The verdict of a completed barrier for this node's wait(id, flags). */
static int finish(int id, int flags)
{
    flags &= ~WEFT_GASNET_BARRIERFLAG_UNNAMED_BIT; /* unnamed is anonymous here */
    int rc = GASNET_OK;
    if (gb.acc.flags & B_MISMATCH)
        rc = GASNET_ERR_BARRIER_MISMATCH;
    else if (flags != gb.notify_flags)
        rc = GASNET_ERR_BARRIER_MISMATCH;
    else if (flags == 0 && id != gb.notify_id)
        rc = GASNET_ERR_BARRIER_MISMATCH;
    gb.last = gb.acc;
    gb.last_valid = 1;
    gb.notified = 0;
    gb.phase++;
    return rc;
}

static void check_wait(const char *call)
{
    if (!weft_gn.attached)
        weft_gn_fail_attach(call);
    weft_gn_check_blocking(call);
    if (!gb.notified)
        weft_fatal(call, "no gasnet_barrier_notify precedes it");
}

int weft_gasnet_barrier_wait(int id, int flags)
{
    check_wait("gasnet_barrier_wait");
    unsigned spins = 0;
    while (!advance())
        weft_gasnet_poll_wait(&spins);
    return finish(id, flags);
}

int weft_gasnet_barrier_try(int id, int flags)
{
    check_wait("gasnet_barrier_try");
    weft_am_poll();
    if (!advance())
        return GASNET_ERR_NOT_READY;
    return finish(id, flags);
}

int weft_gasnet_barrier(int id, int flags)
{
    weft_gasnet_barrier_notify(id, flags);
    return weft_gasnet_barrier_wait(id, flags);
}

/* After a barrier: GASNET_BARRIERFLAG_ANONYMOUS if every node was
 * anonymous, else 0 with *id the named value; GASNET_BARRIERFLAG_MISMATCH
 * added when the barrier mismatched. */
int weft_gasnet_barrier_result(int *id)
{
    if (!gb.last_valid)
        weft_fatal("gasnet_barrier_result", "no barrier has completed yet");
    if (!id)
        weft_fatal("gasnet_barrier_result", "argument id is NULL");
    if (gb.last.flags & B_MISMATCH)
        return GASNET_BARRIERFLAG_MISMATCH;
    if (!(gb.last.flags & B_NAMED))
        return GASNET_BARRIERFLAG_ANONYMOUS;
    *id = gb.last.id;
    return 0;
}

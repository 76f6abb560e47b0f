/* SPDX-License-Identifier: BSD-3-Clause */
/* sync.c owns waiting: the polling helper every wait loop uses (a short
 * spin, then a yield of the CPU so oversubscribed PEs share cores, or a
 * nap when a long wait serves nobody; progress after each) and the world
 * barrier the runtime needs before teams exist, flat or through one leader
 * per node. */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport/transport.h"
#include "core/cpu_relax.h"
#include "core/runtime.h"
#include "core/tunables.h"
#include "runtime/lifecycle.h"
#include "runtime/topology.h"
#include "runtime/hier_choice.h"

/* How long a waiting PE spins before it yields. A fixed WEFT_SPIN_YIELD
 * if set. Otherwise adaptive, between 64 polls and a ceiling of 20000
 * (about a millisecond; 64 when this host's PEs outnumber its CPUs): the
 * budget doubles after a wait that ended while spinning (the peer is
 * running: keep catching its stores within nanoseconds) and halves when a
 * wait runs out of it (the peer is not: give it the CPU sooner). Shared by
 * the threads of a PE; relaxed atomics, it is only a heuristic. */
#define SPIN_MIN 64u
static unsigned spin_budget, spin_ceiling, spin_prev;
/* Past the budget, where this host's PEs fit on its CPUs, a waiting PE
 * yields only every YIELD_EVERY-th poll: its core is its own, and each
 * sched_yield is a system call during which the requests it serves for its
 * peers wait (libfabric shm, 2 PEs: fetch-add 1.41 us median against 1.98
 * yielding on every poll; tcp and the direct path unchanged; the np2
 * shm/tcp tests under ctest -j2 no slower). Another job sharing the cores
 * still gets them within 64 polls. */
#define YIELD_EVERY 64u
static int yield_sparsely;
/* Even that yield costs a waiting target (fetching atomics over shm at 2
 * PEs: 0.461 us median yielding every 64th poll, 0.415 never yielding,
 * SOS 0.422). So where the PEs fit, a yield that came straight back (no
 * other thread wanted this CPU) doubles the polls until the next one, up
 * to YIELD_EVERY_ALONE (about half a millisecond of polls over shm), and
 * one that did not brings them back to YIELD_EVERY. */
#define YIELD_EVERY_ALONE 4096u
/* Where this host's PEs outnumber its CPUs, the peer a wait needs may be
 * the PE it shares a CPU with, and spinning only keeps that one off it.
 * A poll over shm costs about 0.1 us, so the 64 polls are short; one whose
 * progress makes system calls (tcp;ofi_rxm reads its sockets) costs 1-2
 * us, and 64 of them were 100 us and more (barriers at 4 PEs on 2 CPUs
 * over tcp: 130 -> 59 us, active-set form 1260 -> 133 us; point-to-point
 * unchanged), so there the spin also ends after SPIN_SYSCALLS_NS. Not over
 * shm: a clock read per poll was a tenth of a fetch-add. */
#define SPIN_SYSCALLS_NS 5000ull
static int spin_timed; /* oversubscribed, without a fixed WEFT_SPIN_YIELD */

int weft_host_oversubscribed(void)
{
    if (!weft_host_pe_count())
        return 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus <= 0 || weft_host_pe_count() > cpus;
}

/* Idle naps, where this host's PEs outnumber its CPUs. A waiting PE yields
 * the CPU, but sched_yield only hands it to another runnable PE, which is
 * often one waiting too and yields it back: a PE whose progress serves a
 * peer (libfabric shm: its reads and atomics complete in the target's
 * progress) then gets the CPU for a few microseconds out of every switch
 * (fetch-add at 4 PEs on 2 cores over shm, PEs 2 and 3 idle in a barrier:
 * 8-68 us; 1.0-1.3 us with the naps). So a wait that has served no peer
 * for IDLE_AFTER_NS sleeps instead, for a quarter of the time it has been
 * idle (a late wake-up costs at most that fraction of the wait), at most
 * WEFT_IDLE_NAP us; the PEs that serve keep the CPUs. Served requests
 * are counted where they can be seen (weft_transport_served, and the
 * active-message engine's on-node deliveries); where they cannot
 * (tcp;ofi_rxm's RMA), the nap waits on the provider's descriptor, which a
 * request ends (idle_nap). Per thread: each thread of a PE waits on its
 * own. */
#define IDLE_AFTER_NS 200000ull
static long long idle_nap_max_ns; /* 0: no naps */
/* A PE that serves keeps yielding, and each sched_yield is a system call
 * during which the requests it serves wait; once the idle PEs nap it is
 * usually alone on its CPU. So a yield that came back within
 * YIELD_ALONE_NS (nobody else ran) doubles the polls until the next one,
 * up to YIELD_EVERY, and one that did not (the CPU was wanted) brings it
 * back to every poll (shm, 4 PEs on 2 CPUs, PEs 2 and 3 napping: fetching
 * atomics 0.76-0.95 us -> 0.52-0.68, get 0.90-1.94 -> 0.69-1.09). Only
 * where PEs can nap: elsewhere the other PEs are there, yielding too. */
#define YIELD_ALONE_NS 2000ull
static __thread struct {
    unsigned last_s;   /* spins at the previous look: fewer means a new wait */
    unsigned stride;   /* polls between yields, a power of 2 (0: 1) */
    unsigned fit_stride; /* the same where the PEs fit: YIELD_EVERY and up */
    uint64_t served;   /* requests served, at that look */
    uint64_t since_ns; /* the wait started or last served a peer */
    uint64_t spin_start_ns; /* spin_timed: the clock at the wait's first poll */
} idle __attribute__((tls_model("initial-exec")));

int weft_idle_naps_possible(void)
{
    return weft_host_oversubscribed() && weft_tun_int(WEFT_TUN_IDLE_NAP) > 0;
}

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 1 if the caller napped (then it need not yield), 0 if not, -1 if this
 * PE cannot tell whether it serves anyone. t: the clock now. Where served
 * requests cannot be counted but the provider has a wait object (tcp;ofi_rxm:
 * the CQ's descriptor, which wakes for a peer's RMA as well as for its
 * messages), the nap is spent in that object: a request that arrives ends
 * it at once, and counts as serving. */
static int idle_nap(unsigned s, uint64_t t)
{
    uint64_t served = 0;
    int counted = weft_transport_served(&served);
    if (!counted && !weft_transport_can_block())
        return -1;
    served += __atomic_load_n(&weft_rt.onnode_msgs_served, __ATOMIC_RELAXED);
    if (s <= idle.last_s || served != idle.served) {
        idle.last_s = s;
        idle.served = served;
        idle.since_ns = t;
        return 0;
    }
    idle.last_s = s;
    uint64_t idle_ns = t - idle.since_ns;
    if (idle_ns < IDLE_AFTER_NS)
        return 0;
    uint64_t nap = idle_ns / 4;
    if (nap > (uint64_t)idle_nap_max_ns)
        nap = (uint64_t)idle_nap_max_ns;
    if (!counted) {
        int woke = weft_transport_block(nap, NULL, 0);
        if (woke < 0)
            return 0;
        if (woke > 0)
            idle.since_ns = clock_ns();
        return 1;
    }
    struct timespec ts = {(time_t)(nap / 1000000000ull), (long)(nap % 1000000000ull)};
    nanosleep(&ts, NULL);
    return 1;
}

static void spin_init(void)
{
    int fits = weft_host_pe_count() && !weft_host_oversubscribed();
    idle_nap_max_ns = weft_idle_naps_possible() ? weft_tun_int(WEFT_TUN_IDLE_NAP) * 1000 : 0;
    if (weft_tun_is_set(WEFT_TUN_SPIN_YIELD)) {
        long long v = weft_tun_int(WEFT_TUN_SPIN_YIELD);
        spin_ceiling = v < 0 ? 0u : v > 1000000000 ? 1000000000u : (unsigned)v;
        __atomic_store_n(&spin_budget, spin_ceiling, __ATOMIC_RELAXED);
        return;
    }
    spin_ceiling = fits ? 20000 : SPIN_MIN;
    yield_sparsely = fits;
    spin_timed = weft_host_pe_count() && !fits;
    __atomic_store_n(&spin_budget, SPIN_MIN, __ATOMIC_RELAXED);
}

/* Threads that nap where others yield (weft_poll_thread_naps): polls
 * spun before the first nap (fewer where a poll is a system call). A
 * nap's length doubles from 1 us to THREAD_NAP_KNEE_NS, then grows by an
 * eighth per nap up to THREAD_NAP_MAX_NS. Why: each nap costs a wake-up
 * and a progress call (over tcp several system calls that poll every
 * socket), and on a full host a peer's signal can be tens of ms away, so
 * a fixed 100 us nap woke the thread hundreds of times per collective.
 * Growing by an eighth, a nap stays near a ninth of the time already
 * waited, so a wait ends at most about 11% late. */
#define THREAD_NAP_SPINS 64u
#define THREAD_NAP_SPINS_SYSCALLS 4u
#define THREAD_NAP_KNEE_NS 100000L
#define THREAD_NAP_MAX_NS 2000000L
/* initial-exec (this and idle): read on every poll, where the default
 * model would call __tls_get_addr each time. */
static __thread int naps_not_yields __attribute__((tls_model("initial-exec")));

void weft_poll_thread_naps(void) { naps_not_yields = 1; }
int weft_poll_naps_here(void) { return naps_not_yields; }

uint64_t weft_poll_nap_ns(unsigned k)
{
    long ns = k >= 8 ? THREAD_NAP_KNEE_NS : 1000L << (k - 1);
    if (ns > THREAD_NAP_KNEE_NS)
        ns = THREAD_NAP_KNEE_NS;
    for (unsigned i = 8; i < k && ns < THREAD_NAP_MAX_NS; i++)
        ns += ns / 8;
    return (uint64_t)(ns < THREAD_NAP_MAX_NS ? ns : THREAD_NAP_MAX_NS);
}

void weft_poll_nap(unsigned k)
{
    struct timespec ts = {0, (long)weft_poll_nap_ns(k)};
    nanosleep(&ts, NULL);
}

static void thread_nap(unsigned s)
{
    /* Where a poll is a system call (tcp: every counter read and progress
     * call polls the sockets) a spin costs several: the engine's quiet
     * before each signal of a collective would spend them 64 at a time. */
    unsigned spins = weft_transport_progress_syscalls() ? THREAD_NAP_SPINS_SYSCALLS
                                                        : THREAD_NAP_SPINS;
    if (s <= spins) {
        weft_cpu_relax();
        return;
    }
    unsigned k = s - spins;
    weft_poll_nap(k);
    if ((k & 15) == 0)
        weft_wait_slow(s); /* finalized peers, the hang report */
}

/* The pause between two polls of a wait: a spin, a yield or a nap. */
static void poll_pause(unsigned *spins)
{
    static int ready; /* spin_init ran with the host identities known */
    if (WEFT_UNLIKELY(!ready)) {
        spin_init();
        ready = weft_host_pe_count() || weft_tun_is_set(WEFT_TUN_SPIN_YIELD);
    }
    unsigned s = ++*spins;
    if (WEFT_UNLIKELY(naps_not_yields)) {
        thread_nap(s);
        return;
    }
    unsigned budget = __atomic_load_n(&spin_budget, __ATOMIC_RELAXED);
    if (s == 1) { /* a new wait: did the previous one end while spinning? */
        unsigned prev = __atomic_load_n(&spin_prev, __ATOMIC_RELAXED);
        if (prev && prev <= budget && budget < spin_ceiling) {
            budget = budget * 2 > spin_ceiling ? spin_ceiling : budget * 2;
            __atomic_store_n(&spin_budget, budget, __ATOMIC_RELAXED);
        }
    }
    __atomic_store_n(&spin_prev, s, __ATOMIC_RELAXED);
    if (s <= budget) {
        int spin_on = 1;
        if (spin_timed && weft_transport_progress_syscalls()) {
            uint64_t t = clock_ns();
            if (s == 1)
                idle.spin_start_ns = t;
            spin_on = t - idle.spin_start_ns < SPIN_SYSCALLS_NS;
        }
        if (spin_on) {
            weft_cpu_relax();
            return;
        }
    }
    if (s == budget + 1 && budget > SPIN_MIN && !weft_tun_is_set(WEFT_TUN_SPIN_YIELD))
        __atomic_store_n(&spin_budget, budget / 2 < SPIN_MIN ? SPIN_MIN : budget / 2,
                         __ATOMIC_RELAXED);
    unsigned stride = !yield_sparsely ? idle.stride : idle.fit_stride ? idle.fit_stride : YIELD_EVERY;
    if (stride > 1 && (s & (stride - 1))) {
        weft_cpu_relax();
        return;
    }
    /* Launcher death, finalized peers, hang report: with the yields, so a
     * PE whose core is its own reads the clock once per YIELD_EVERY polls
     * (reading it on every poll took a sixth of a waiting target's time
     * over libfabric shm, time in which the requests it serves wait). */
    weft_wait_slow(s);
    /* Past the spin a waiting PE yields the core. It naps only when it
     * has served no peer for a while (idle_nap): a nap lasts 100 us or more
     * whatever is asked (the kernel's timer slack), and the peers' reads,
     * atomics and quiets a serving PE's progress answers would wait that
     * long for each (fetch-add at 4 PEs on 2 cores over shm: 70-260 us
     * when every waiting PE napped, 3-29 us yielding). sched_yield hands
     * the core to a runnable PE on it, or returns at once when none wants
     * it. */
    if (idle_nap_max_ns > 0) {
        uint64_t t = clock_ns();
        int napped = idle_nap(s, t);
        if (napped > 0) {
            idle.stride = 1;
            return;
        }
        sched_yield();
        unsigned next = stride < YIELD_EVERY ? (stride ? stride * 2 : 2) : YIELD_EVERY;
        if (napped == 0) /* where nobody naps, the other PEs are there */
            idle.stride = clock_ns() - t < YIELD_ALONE_NS ? next : 1;
        return;
    }
    if (yield_sparsely) {
        uint64_t t = clock_ns();
        sched_yield();
        idle.fit_stride = clock_ns() - t >= YIELD_ALONE_NS ? YIELD_EVERY
                          : stride < YIELD_EVERY_ALONE  ? stride * 2
                                                        : YIELD_EVERY_ALONE;
        return;
    }
    sched_yield();
}

/* Progress comes after the pause, right before the caller looks at its
 * condition again: a nap on the provider's wait object must not follow a
 * progress call that has just written what the caller waits for (a flag
 * landed by that call would stay unseen for the whole nap: put + fence +
 * flag at 4 PEs over tcp, one nap per round trip). */
void weft_poll_yield(unsigned *spins)
{
    poll_pause(spins);
    weft_transport_progress();
}

/* Over tcp a progress call is a few system calls (epoll_wait on every
 * socket): at 8 PEs on 2 cores on 2 simulated nodes, the world barrier
 * through the leaders made 270 of them per PE per call, most by the 6
 * members waiting for their leader's release, which comes through the
 * mapping. A member need not progress for that; every 32nd pause still
 * does, for the peers whose requests it serves. */
#define ONNODE_PROGRESS_EVERY 32u

void weft_poll_yield_onnode(unsigned *spins)
{
    poll_pause(spins);
    if (!(*spins & (ONNODE_PROGRESS_EVERY - 1)))
        weft_transport_progress();
}

/* Sleeping waits between node peers. A PE with nothing to do until a
 * node peer writes a word (a member waiting for its leader's release, a
 * leader for its members' arrivals) yields the CPU in weft_poll_yield,
 * but stays runnable: on an oversubscribed host every yielding PE still
 * gets its turn, so a hop costs a round of turns of every waiting PE (and
 * under other load, their time slices), and the leaders, which have the
 * work, run a fraction of the time. Asleep on a futex it is off the run
 * queue until the writer wakes it, and on waking it is preferred over the
 * PEs that kept running. The futex is the half of the word that changes
 * at every write (high: the world barrier's words, whose epoch is in
 * their top bits; else the low half, where counters count).
 * ONNODE_SLEEP_NS bounds a sleep, so the slow phase (hang report,
 * finalized peers) and progress for the peers this PE serves still run. */
#define ONNODE_SLEEP_NS 1000000L

/* Looks at the word before the first sleep. Each is a pause of the spin
 * (a clock read where progress is a system call) on a core that the peer
 * with the work is queued for: at 8 PEs on 2 cores over tcp, SPIN_MIN
 * (64) of them cost the world barrier through the leaders a fifth of its
 * CPU time and a quarter of its latency (8:2) against 8. */
#define ONNODE_SPIN_POLLS 8u

static uint64_t *mapped_sym_word(const uint64_t *mine, int pe);

static long futex_op(const uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static const uint32_t *futex_half(const uint64_t *word, int high)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    high = !high;
#endif
    return (const uint32_t *)(const void *)word + high;
}

void weft_poll_onnode_sleep(const uint64_t *word, int high, uint64_t seen, unsigned *spins)
{
    if (idle_nap_max_ns <= 0 || *spins < ONNODE_SPIN_POLLS) {
        weft_poll_yield_onnode(spins);
        return;
    }
    unsigned s = ++*spins;
    if (!(s & 15))
        weft_wait_slow(s);
    /* A count, not a flag: where threads of this PE sleep at once (teams'
     * collectives under SHMEM_THREAD_MULTIPLE), the first to wake must not
     * hide the others from their writers. */
    uint64_t *asleep = &weft_rt.sym->onnode_sleeping;
    __atomic_add_fetch(asleep, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == seen) {
        struct timespec ts = {0, ONNODE_SLEEP_NS};
        futex_op(futex_half(word, high), FUTEX_WAIT, (uint32_t)(high ? seen >> 32 : seen), &ts);
    }
    __atomic_sub_fetch(asleep, 1, __ATOMIC_RELAXED);
    weft_transport_progress();
}

int weft_onnode_wake(const uint64_t *word, int high, int pe)
{
    if (idle_nap_max_ns <= 0)
        return 0;
    const uint64_t *asleep = mapped_sym_word(&weft_rt.sym->onnode_sleeping, pe);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the write before, then the look */
    if (!asleep || !__atomic_load_n(asleep, __ATOMIC_SEQ_CST))
        return 0;
    futex_op(futex_half(word, high), FUTEX_WAKE, INT_MAX, NULL);
    return 1;
}

/* Sleeping waits for a word that a peer on another node writes through
 * libfabric: the node leaders waiting for each other in the hierarchical
 * collectives. Where the host's PEs outnumber its CPUs and the provider
 * has a wait object (tcp;ofi_rxm: the CQ's descriptor), a waiting leader
 * polled the sockets and yielded, and as the members sleep, its yields
 * came straight back: at 8 PEs on 4 simulated nodes over tcp the 4
 * leaders kept 2 cores busy with about 220 epoll_wait each per barrier,
 * while the leader whose signal they waited for queued for a core. After
 * REMOTE_SPIN_POLLS polls (a few microseconds over tcp) the wait sleeps on
 * the descriptor, which the arriving signal ends; REMOTE_SLEEP_NS bounds a
 * sleep, as ONNODE_SLEEP_NS does. Elsewhere it is weft_poll_yield. */
#define REMOTE_SPIN_POLLS 4u
#define REMOTE_SLEEP_NS 1000000ull

void weft_poll_remote_sleep(const uint64_t *word, uint64_t seen, unsigned *spins)
{
    if (idle_nap_max_ns <= 0 || *spins < REMOTE_SPIN_POLLS || !weft_transport_can_block()) {
        weft_poll_yield(spins);
        return;
    }
    unsigned s = ++*spins;
    if (!(s & 15))
        weft_wait_slow(s);
    if (weft_transport_block(REMOTE_SLEEP_NS, word, seen) < 0) {
        weft_poll_yield(spins);
        return;
    }
    weft_transport_progress();
}

/* The first pause of a wait only takes the count (the caller's first look
 * at memory came before it); each later one sleeps until the count passes
 * it, then takes it again. Taking it applies what arrived (messages,
 * immediate data), so a look after the pause sees every counted update. */
void weft_wait_for_update(unsigned *spins)
{
    if (!weft_transport_updates_counted()) {
        weft_poll_yield(spins);
        return;
    }
    unsigned s = ++*spins;
    if (s > 1) {
        weft_wait_slow(s);
        weft_transport_update_block(); /* 50 ms at most: hang.c counts a gap
                                        * over 250 ms as a new wait */
    }
    weft_transport_update_look();
}

void weft_test_for_update(void)
{
    if (weft_transport_updates_counted())
        weft_transport_update_test();
    else
        weft_transport_progress();
}

/* Dissemination barrier over world: in round r PE i signals PE
 * (i + 2^r) mod n through its flag r, then waits for its own flag r. A
 * flag word is the barrier's epoch (its low 16 bits) over the largest
 * signature and the largest complement of one that its sender has seen so
 * far (24 bits each; each field combined by max, which repeats harmlessly
 * when a PE's word reaches another by two routes): after the last round
 * every PE holds the job's largest and smallest signature, so every PE
 * learns of a disagreement in the same barrier, with no message more. A
 * sender is at most one barrier ahead of its receiver (it cannot finish
 * barrier e + 1 before the receiver has left barrier e), so each parity of
 * the epoch has its own flags and a word is never overwritten unread. */
#define SIG_BITS 24
#define SIG_MASK ((1u << SIG_BITS) - 1)

/* The node-leader form, where the job spans several nodes (real ones or
 * WEFT_TOPOLOGY's) and some node holds two PEs that map each other: a
 * member posts its word in its own barrier_up and waits for its leader's
 * barrier_down; the leader (the node's lowest PE) reads its members' words
 * through the mapping, combines them, runs the dissemination among the
 * leaders alone over their barrier_flag, and posts the outcome. Each
 * parity of the epoch has its own words, as for the flags. */
static struct {
    int on;
    int nlocal;           /* PEs of my node, me included */
    uint64_t **up;        /* leader: [nlocal] the members' barrier_up, mapped (0: mine) */
    uint64_t *down;       /* member: the leader's barrier_down, mapped */
    int leader;           /* my node's leader */
    int *members;         /* leader: [nlocal] my node's PEs (to wake them) */
    int nlead, my_lead;   /* leaders, and my index among them (-1: member) */
    int *leaders;         /* [nlead] their world PEs */
} hb;

static void *hb_alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        weft_fatal("shmem_barrier_all", "out of memory for the node layout");
    return p;
}

static uint64_t *mapped_sym_word(const uint64_t *mine, int pe)
{
    uint64_t off = (uint64_t)((const char *)mine - weft_rt.seg[WEFT_SEG_HEAP].base);
    return weft_transport_ptr(WEFT_SEG_HEAP, off, pe);
}

/* Decided once, after init's own barrier (which checks every PE's wire-up),
 * from what every PE sees alike: the topology, the tunables and the
 * mapping of node peers. */
void weft_barrier_all_plan(int on)
{
    free(hb.up);
    free(hb.leaders);
    free(hb.members);
    memset(&hb, 0, sizeof hb);
    if (!on)
        return;
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    if (!weft_topology_ready())
        return;
    const int *node = weft_topology_ids(WEFT_TOPO_NODE);
    int nnodes = weft_topology_count(WEFT_TOPO_NODE);
    if (nnodes < 2 || nnodes >= n || !weft_hier_wins(WEFT_HIER_BARRIER, n, nnodes, 0))
        return;
    int first_local = -1;
    for (int pe = 0; pe < n; pe++) {
        if (node[pe] != node[me])
            continue;
        if (first_local < 0)
            first_local = pe;
        if (!mapped_sym_word(&weft_rt.sym->barrier_up[0], pe))
            return; /* a node peer through libfabric: the flat barrier */
        hb.nlocal++;
    }
    hb.leaders = hb_alloc((size_t)nnodes, sizeof(int));
    char *led = hb_alloc((size_t)nnodes, 1);
    hb.my_lead = -1;
    for (int pe = 0; pe < n; pe++) {
        if (led[node[pe]])
            continue;
        led[node[pe]] = 1;
        if (pe == me)
            hb.my_lead = hb.nlead;
        hb.leaders[hb.nlead++] = pe;
    }
    free(led);
    hb.leader = first_local;
    if (hb.my_lead >= 0) {
        hb.up = hb_alloc((size_t)hb.nlocal, sizeof *hb.up);
        hb.members = hb_alloc((size_t)hb.nlocal, sizeof *hb.members);
        for (int pe = 0, j = 0; pe < n; pe++)
            if (node[pe] == node[me]) {
                hb.members[j] = pe;
                hb.up[j++] = pe == me ? NULL : mapped_sym_word(&weft_rt.sym->barrier_up[0], pe);
            }
    } else {
        hb.down = mapped_sym_word(&weft_rt.sym->barrier_down[0], first_local);
    }
    hb.on = 1;
    weft_debug("world barrier: through %d node leaders", hb.nlead);
}

static uint32_t word_hi(uint64_t w) { return (uint32_t)(w >> SIG_BITS) & SIG_MASK; }
static uint32_t word_lo(uint64_t w) { return (uint32_t)w & SIG_MASK; }

/* Who writes the word a barrier round waits on. */
enum word_writer {
    WORD_ANY,      /* any PE: the flat barrier */
    WORD_ONNODE,   /* a node peer, through the mapping */
    WORD_LEADER    /* another node's leader, through libfabric */
};

/* Wait until *w carries tag; fold its signature fields into hi and lo. */
static void await_word(const uint64_t *w, uint64_t tag, uint32_t *hi, uint32_t *lo,
                       enum word_writer from)
{
    unsigned spins = 0;
    uint64_t v;
    while (((v = __atomic_load_n(w, __ATOMIC_ACQUIRE)) >> 48) != tag) {
        if (from == WORD_ONNODE)
            weft_poll_onnode_sleep(w, 1, v, &spins);
        else if (from == WORD_LEADER)
            weft_poll_remote_sleep(w, v, &spins);
        else
            weft_poll_yield(&spins);
    }
    *hi = word_hi(v) > *hi ? word_hi(v) : *hi;
    *lo = word_lo(v) > *lo ? word_lo(v) : *lo;
}

/* The node leaders' exchange while they are few (WEFT_HIER_ALL_TO_ALL_MAX):
 * each posts its word to every other leader, in the flag of its own index,
 * and waits for all of them. */
_Static_assert(WEFT_HIER_ALL_TO_ALL_MAX <= WEFT_BARRIER_ROUNDS, "a flag per leader");

/* The dissemination rounds among the PEs peers[0 .. n-1], me among them
 * (the node leaders: all-to-all while they are few). */
static void disseminate(const int *peers, int n, int me, uint64_t *flag, uint64_t tag,
                        uint32_t *hi, uint32_t *lo)
{
    uint64_t off0 = (uint64_t)((char *)flag - weft_rt.seg[WEFT_SEG_HEAP].base);
    if (peers && n <= WEFT_HIER_ALL_TO_ALL_MAX) {
        uint64_t word = tag << 48 | (uint64_t)*hi << SIG_BITS | *lo;
        for (int i = 1; i < n; i++)
            weft_transport_notify(&weft_ctx_default, WEFT_SEG_HEAP,
                                  off0 + (uint64_t)me * sizeof(uint64_t), word,
                                  peers[(me + i) % n]);
        for (int i = 1; i < n; i++)
            await_word(&flag[(me + i) % n], tag, hi, lo, WORD_LEADER);
        return;
    }
    int round = 0;
    for (int dist = 1; dist < n; dist <<= 1, round++) {
        int peer = peers ? peers[(me + dist) % n] : (me + dist) % n;
        weft_transport_notify(&weft_ctx_default, WEFT_SEG_HEAP,
                              off0 + (uint64_t)round * sizeof(uint64_t),
                              tag << 48 | (uint64_t)*hi << SIG_BITS | *lo, peer);
        await_word(&flag[round], tag, hi, lo, peers ? WORD_LEADER : WORD_ANY);
    }
}

int weft_barrier_all_signed(uint32_t sig)
{
    struct weft_internal_sym *sym = weft_rt.sym;
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    weft_transport_quiet(&weft_ctx_default);
    if (n == 1)
        return 1;
    uint64_t epoch = ++sym->barrier_epoch;
    uint64_t tag = epoch & 0xffff;
    int parity = (int)(epoch & 1);
    uint64_t *flag = sym->barrier_flag[parity];
    uint32_t hi = sig & SIG_MASK, lo = SIG_MASK - hi; /* lo: the complement's max */
    weft_wait.call = "shmem_barrier_all";
    weft_wait.kind = WEFT_WAIT_BARRIER_ALL;
    weft_wait.want = epoch;
    if (!hb.on) {
        disseminate(NULL, n, me, flag, tag, &hi, &lo);
    } else if (hb.my_lead < 0) {
        __atomic_store_n(&sym->barrier_up[parity], tag << 48 | (uint64_t)hi << SIG_BITS | lo,
                         __ATOMIC_RELEASE);
        weft_onnode_wake(&sym->barrier_up[parity], 1, hb.leader);
        await_word(hb.down + parity, tag, &hi, &lo, WORD_ONNODE);
    } else {
        for (int j = 0; j < hb.nlocal; j++)
            if (hb.up[j])
                await_word(hb.up[j] + parity, tag, &hi, &lo, WORD_ONNODE);
        disseminate(hb.leaders, hb.nlead, hb.my_lead, flag, tag, &hi, &lo);
        __atomic_store_n(&sym->barrier_down[parity], tag << 48 | (uint64_t)hi << SIG_BITS | lo,
                         __ATOMIC_RELEASE);
        /* The members all wait on this one word: one wake wakes them all. */
        for (int j = 0; j < hb.nlocal; j++)
            if (hb.up[j] && weft_onnode_wake(&sym->barrier_down[parity], 1, hb.members[j]))
                break;
    }
    weft_wait.kind = WEFT_WAIT_NONE;
    /* No quiet here: each signal only matters to the PE waiting for it,
     * and it has arrived once that PE leaves its round. */
    return hi == SIG_MASK - lo;
}

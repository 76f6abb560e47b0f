/* sync.c owns waiting: the polling helper every wait loop uses (progress,
 * then yield the CPU after a short spin so oversubscribed PEs share cores)
 * and the world barrier the runtime needs before teams exist. */
#include <sched.h>
#include <unistd.h>

#include "../transport/transport.h"
#include "runtime.h"

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

static void spin_init(void)
{
    int fits = 0;
    if (weft_rt.pe_host) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        int here = 0;
        for (int pe = 0; pe < weft_rt.n_pes; pe++)
            here += weft_rt.pe_host[pe] == weft_rt.pe_host[weft_rt.my_pe];
        fits = cpus > 0 && here <= cpus;
    }
    if (weft_tun_is_set(WEFT_TUN_SPIN_YIELD)) {
        long long v = weft_tun_int(WEFT_TUN_SPIN_YIELD);
        spin_ceiling = v < 0 ? 0u : v > 1000000000 ? 1000000000u : (unsigned)v;
        __atomic_store_n(&spin_budget, spin_ceiling, __ATOMIC_RELAXED);
        return;
    }
    spin_ceiling = fits ? 20000 : SPIN_MIN;
    yield_sparsely = fits;
    __atomic_store_n(&spin_budget, SPIN_MIN, __ATOMIC_RELAXED);
}

void weft_poll_yield(unsigned *spins)
{
    static int ready; /* spin_init ran with the host identities known */
    if (WEFT_UNLIKELY(!ready)) {
        spin_init();
        ready = weft_rt.pe_host != NULL || weft_tun_is_set(WEFT_TUN_SPIN_YIELD);
    }
    weft_tx_progress();
    unsigned s = ++*spins;
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
        __builtin_ia32_pause();
        return;
    }
    if (s == budget + 1 && budget > SPIN_MIN && !weft_tun_is_set(WEFT_TUN_SPIN_YIELD))
        __atomic_store_n(&spin_budget, budget / 2 < SPIN_MIN ? SPIN_MIN : budget / 2,
                         __ATOMIC_RELAXED);
    if (yield_sparsely && (s & (YIELD_EVERY - 1))) {
        __builtin_ia32_pause();
        return;
    }
    /* Launcher death, finalized peers, hang report: with the yields, so a
     * PE whose core is its own reads the clock once per YIELD_EVERY polls
     * (reading it on every poll took a sixth of a waiting target's time
     * over libfabric shm, time in which the requests it serves wait). */
    weft_wait_slow(s);
    /* Past the spin a waiting PE yields the core, and never naps, even
     * when this host's PEs outnumber its CPUs: a nap lasts 100 us or more
     * whatever is asked (the kernel's timer slack), and the peers' reads,
     * atomics and quiets its progress serves here would wait that long for
     * each (fetch-add at 4 PEs on 2 cores over shm: 70-260 us with naps,
     * 3-29 us yielding). sched_yield hands the core to a runnable PE on
     * it, or returns at once when none wants it; oversubscribed test jobs
     * ran no slower without naps (docs/performance.md). */
    sched_yield();
}

/* Dissemination barrier over world: in round r PE i signals PE
 * (i + 2^r) mod n by writing the barrier's epoch into its flag r, then waits
 * for its own flag r to reach the epoch. Flags only grow, so no reset. */
void weft_barrier_all_internal(void)
{
    struct weft_internal_sym *sym = weft_rt.sym;
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    weft_tx_quiet(&weft_ctx_default);
    if (n == 1)
        return;
    uint64_t epoch = ++sym->barrier_epoch;
    weft_wait.call = "shmem_barrier_all";
    weft_wait.kind = WEFT_WAIT_BARRIER_ALL;
    weft_wait.want = epoch;
    uint64_t off0 = (uint64_t)((char *)&sym->barrier_flag[0] - weft_rt.seg[WEFT_SEG_HEAP].base);
    int round = 0;
    for (int dist = 1; dist < n; dist <<= 1, round++) {
        int peer = (me + dist) % n;
        weft_tx_notify(&weft_ctx_default, WEFT_SEG_HEAP,
                       off0 + (uint64_t)round * sizeof(uint64_t), epoch, peer);
        unsigned spins = 0;
        while (__atomic_load_n(&sym->barrier_flag[round], __ATOMIC_ACQUIRE) < epoch)
            weft_poll_yield(&spins);
    }
    weft_wait.kind = WEFT_WAIT_NONE;
    /* No quiet here: each signal only matters to the PE waiting for it,
     * and it has arrived once that PE leaves its round. */
}

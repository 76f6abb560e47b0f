/* sync.c owns waiting: the polling helper every wait loop uses (progress,
 * then yield the CPU after a short spin so oversubscribed PEs share cores)
 * and the world barrier the runtime needs before teams exist. */
#include <sched.h>
#include <time.h>

#include "../transport/transport.h"
#include "runtime.h"

void weft_poll_yield(unsigned *spins)
{
    static long long spin_limit = -1;
    if (WEFT_UNLIKELY(spin_limit < 0))
        spin_limit = weft_tun_int(WEFT_TUN_SPIN_YIELD);
    weft_tx_progress();
    unsigned s = ++*spins;
    if (s > (unsigned)spin_limit) {
        if (s < (unsigned)spin_limit + 1000) {
            sched_yield();
        } else {
            /* Long waits (a peer computing) sleep briefly: with more PEs
             * than cores, sched_yield alone can starve the one we wait for. */
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    } else {
        __builtin_ia32_pause();
    }
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
    /* No quiet here: each signal only matters to the PE waiting for it,
     * and it has arrived once that PE leaves its round. */
}

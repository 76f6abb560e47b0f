/* SPDX-License-Identifier: BSD-3-Clause */
/* signal_order: a signal is never seen before its data, under load.
 *
 * Every PE (PE 0 included, so the own-PE path is covered) streams ITER
 * put-with-signal operations to PE 0, all PEs at once. Each sender owns
 * NSLOT slots at PE 0 (data region + signal) and cycles through them, so up
 * to NSLOT operations per sender are in flight; iteration `it` writes a
 * payload whose every byte depends on (sender, it) and sets the slot's
 * signal to `it` (SET, or ADD of the difference to the slot's last value).
 * Payload sizes cycle from 1 byte (inject path) to 256 KiB (several
 * provider messages) and differ between neighbouring slots.
 *
 * PE 0 polls all slots with shmem_signal_fetch; the moment a signal shows
 * `it`, the slot's whole payload must already be the one of iteration `it`
 * (anything else - stale bytes of iteration it-NSLOT, a partial tail - is
 * reported with the first wrong offset). A signal value other than the
 * slot's previous one or `it` is an error too. PE 0 then acknowledges with
 * shmem_signal_add, which frees the slot for the sender, who waits for it
 * with shmem_signal_wait_until.
 *
 * Modes: {put_signal, put_signal_nbi} x {SET, ADD} on the default context
 * and on a created one, signals in the heap or in .bss. argv[1] = ITER. */
#include <sched.h>

#include "weft_test.h"

#define NSLOT 4
#define MAXLEN (256 * 1024)
#define MAXPES 64

static const size_t sizes[] = {8, 262144, 1, 4096, 65536, 200, 131072, 24};
#define NSIZES (sizeof sizes / sizeof sizes[0])

uint64_t sig_bss[MAXPES * NSLOT];
uint64_t ack; /* at each sender: iterations PE 0 has checked */

struct mode {
    const char *name;
    int nbi, op, use_ctx, sig_in_bss;
};
static const struct mode modes[] = {
    {"put_signal SET, default context, heap signals", 0, SHMEM_SIGNAL_SET, 0, 0},
    {"put_signal ADD, created context, .bss signals", 0, SHMEM_SIGNAL_ADD, 1, 1},
    {"put_signal_nbi SET, created context, .bss signals", 1, SHMEM_SIGNAL_SET, 1, 1},
    {"put_signal_nbi ADD, default context, heap signals", 1, SHMEM_SIGNAL_ADD, 0, 0},
};

static int me, npes;
static long ITER = 120;

static size_t len_of(int sender, uint64_t it) { return sizes[(it + (uint64_t)sender) % NSIZES]; }
static unsigned tag_of(uint64_t it) { return (unsigned)(it % 1000); }
static uint64_t slot_of(uint64_t it) { return (it - 1) % NSLOT; }
/* The signal a slot holds before iteration it writes it. */
static uint64_t previous_signal(uint64_t it) { return it > NSLOT ? it - NSLOT : 0; }

static void run(const struct mode *m, shmem_ctx_t created, unsigned char *slots,
                uint64_t *sig_heap, unsigned char *src)
{
    shmem_ctx_t ctx = m->use_ctx ? created : SHMEM_CTX_DEFAULT;
    uint64_t *sig = m->sig_in_bss ? sig_bss : sig_heap;
    WT_PHASE("%s: setup", m->name);
    memset(sig, 0, (size_t)npes * NSLOT * sizeof(uint64_t));
    ack = 0;
    shmem_barrier_all();

    uint64_t sent = 0, checked = 0, total = (uint64_t)ITER * (uint64_t)npes;
    uint64_t next[MAXPES]; /* PE 0: the iteration expected next from each sender */
    for (int s = 0; s < npes; s++)
        next[s] = 1;

    while (sent < (uint64_t)ITER || (me == 0 && checked < total)) {
        int progressed = 0;
        if (sent < (uint64_t)ITER) {
            uint64_t it = sent + 1, slot = slot_of(it);
            uint64_t need = it > NSLOT ? it - NSLOT : 0; /* slot's last use checked */
            uint64_t have = __atomic_load_n(&ack, __ATOMIC_ACQUIRE);
            if (have < need && me != 0) {
                WT_PHASE("%s: PE %d waits for PE 0 to free slot %llu (iteration %llu)",
                         m->name, me, (unsigned long long)slot, (unsigned long long)it);
                have = shmem_signal_wait_until(&ack, SHMEM_CMP_GE, need);
            }
            if (have >= need) {
                /* A nbi source may change only after a quiet: one per round
                 * of slots covers every slot's previous use. */
                if (m->nbi && slot == 0 && it > 1)
                    shmem_ctx_quiet(ctx);
                size_t len = len_of(me, it);
                unsigned char *s = src + slot * MAXLEN;
                wt_fill_bytes(s, len, me, 0, tag_of(it));
                unsigned char *dest = slots + ((size_t)me * NSLOT + slot) * MAXLEN;
                uint64_t *sa = &sig[(size_t)me * NSLOT + slot];
                uint64_t v = m->op == SHMEM_SIGNAL_SET ? it : it - previous_signal(it);
                WT_PHASE("%s: PE %d sends iteration %llu (%zu bytes)", m->name, me,
                         (unsigned long long)it, len);
                if (m->nbi)
                    shmem_ctx_putmem_signal_nbi(ctx, dest, s, len, sa, v, m->op, 0);
                else
                    shmem_ctx_putmem_signal(ctx, dest, s, len, sa, v, m->op, 0);
                sent = it;
                progressed = 1;
            }
        }
        if (me == 0) {
            for (int s = 0; s < npes; s++) {
                uint64_t it = next[s];
                if (it > (uint64_t)ITER)
                    continue;
                uint64_t slot = slot_of(it);
                uint64_t v = shmem_signal_fetch(&sig[(size_t)s * NSLOT + slot]);
                if (v == previous_signal(it))
                    continue;
                WT_CHECK(v == it, "%s: signal of PE %d slot %llu is %llu, expected %llu "
                         "(previous use) or %llu", m->name, s, (unsigned long long)slot,
                         (unsigned long long)v, (unsigned long long)previous_signal(it),
                         (unsigned long long)it);
                char what[200];
                snprintf(what, sizeof what, "%s: payload of iteration %llu from PE %d, read "
                         "as soon as its signal was seen", m->name, (unsigned long long)it, s);
                WT_CHECK_BYTES(slots + ((size_t)s * NSLOT + slot) * MAXLEN, len_of(s, it), s,
                               0, tag_of(it), what);
                next[s] = it + 1;
                checked++;
                /* ADD: successive acknowledgements need no fence between
                 * them (a SET of a count could land out of order). */
                shmem_signal_add(&ack, 1, s);
                progressed = 1;
            }
        }
        if (!progressed)
            sched_yield(); /* PE 0 polling: let the senders on its cores run */
    }
    WT_PHASE("%s: completion", m->name);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        ITER = atol(argv[1]);
    wt_init("signal_order");
    me = wt_me;
    npes = wt_npes;
    WT_CHECK(npes <= MAXPES, "at most %d PEs", MAXPES);
    shmem_ctx_t created;
    WT_CHECK(shmem_ctx_create(0, &created) == 0, "shmem_ctx_create(0) failed");
    unsigned char *slots = shmem_malloc((size_t)npes * NSLOT * MAXLEN);
    uint64_t *sig_heap = shmem_malloc((size_t)npes * NSLOT * sizeof(uint64_t));
    unsigned char *src = malloc((size_t)NSLOT * MAXLEN);
    WT_CHECK(slots && sig_heap && src, "allocation");
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
        run(&modes[k], created, slots, sig_heap, src);
    if (me == 0)
        printf("signal_order: %zu modes x %ld iterations x %d senders, every signal behind "
               "its data\n", sizeof modes / sizeof modes[0], ITER, npes);
    shmem_ctx_destroy(created);
    free(src);
    shmem_free(sig_heap);
    shmem_free(slots);
    wt_finish();
    return 0;
}

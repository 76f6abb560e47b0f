/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_amo.c owns OpenSHMEM atomics over libfabric: native fi_atomic /
 * fi_fetch_atomic / fi_compare_atomic where the provider supports the
 * (op, datatype), and the software path otherwise: a system message of
 * the active-message engine (src/am/am.h, the one GASNet's AMs use too)
 * executed by the target's progress engine with CPU atomics, whose reply
 * carries the old value (or just an acknowledgement).
 *
 * ATOMICITY RULE. A provider's atomics and our CPU atomics are not atomic
 * with respect to each other (the provider may run a plain read-modify-write
 * under its own lock, or in a NIC). So the choice is made per DATATYPE, for
 * all ops and all targets (including the calling PE itself):
 *   a datatype is native iff the provider supports natively EVERY op that
 *   OpenSHMEM defines on it -- for the integer types FETCH, SET, SWAP,
 *   CSWAP, ADD, AND, OR, XOR (each non-fetching and fetching form where
 *   both exist), for float/double FETCH, SET, SWAP;
 *   otherwise EVERY op on that datatype goes to software, and a software AMO
 *   to the calling PE itself is executed directly with CPU atomics (the same
 *   instructions the progress engine uses for remote requests).
 * WEFT_AMO=software forces every datatype to software, so does a provider
 * whose native atomics are known broken (udp;ofi_rxd), and so does a job
 * that mixes the direct on-node path (CPU atomics) with libfabric (the rule
 * in onnode/onnode.h). All PEs make the same decision (same provider, same
 * queries, same global view of the paths). weft_ofi_describe prints the
 * table. With the on-node path off, native AMOs to the calling PE go
 * through the provider (loopback), never through the CPU. */
#include <string.h>

#include "core/cpu_amo.h"
#include "transport/onnode/onnode.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

static const enum fi_datatype fi_dt[WEFT_DT_NTYPES] = {
    [WEFT_DT_I32] = FI_INT32, [WEFT_DT_I64] = FI_INT64, [WEFT_DT_U32] = FI_UINT32,
    [WEFT_DT_U64] = FI_UINT64, [WEFT_DT_F32] = FI_FLOAT, [WEFT_DT_F64] = FI_DOUBLE,
};
static const enum fi_op fi_opmap[WEFT_AMO_NOPS] = {
    [WEFT_AMO_FETCH] = FI_ATOMIC_READ, [WEFT_AMO_SET] = FI_ATOMIC_WRITE,
    [WEFT_AMO_SWAP] = FI_ATOMIC_WRITE, [WEFT_AMO_CSWAP] = FI_CSWAP,
    [WEFT_AMO_ADD] = FI_SUM,           [WEFT_AMO_AND] = FI_BAND,
    [WEFT_AMO_OR] = FI_BOR,            [WEFT_AMO_XOR] = FI_BXOR,
};

/* Ops that return the old value whatever the caller wants of it. */
static int amo_fetches(int op)
{
    return op == WEFT_AMO_FETCH || op == WEFT_AMO_SWAP || op == WEFT_AMO_CSWAP;
}

static int is_float(int dt) { return dt == WEFT_DT_F32 || dt == WEFT_DT_F64; }

/* Ops OpenSHMEM defines on a datatype (the set the rule quantifies over). */
static int op_applies(int op, int dt) { return !is_float(dt) || op <= WEFT_AMO_SWAP; }

static int query(int dt, enum fi_op op, uint64_t flags)
{
    struct fi_atomic_attr attr;
    memset(&attr, 0, sizeof attr);
    int rc = fi_query_atomic(weft_ofi.fab.domain, fi_dt[dt], op, &attr, flags);
    return rc == 0 && attr.count >= 1 && attr.size == weft_dtype_size((enum weft_dtype)dt);
}

static void amo_req_handler(int src, uint32_t a0, const uint64_t *args, int nargs,
                            const void *payload, size_t len);
static void amo_rep_handler(int src, uint32_t a0, const uint64_t *args, int nargs,
                            const void *payload, size_t len);
static void signal_add_handler(int src, uint32_t a0, const uint64_t *args, int nargs,
                               const void *payload, size_t len);

/* Small gets as fetching atomic reads of bytes, on shm only: shm serves
 * every fi_read with a system call in the target (process_vm_writev, its
 * "iov" protocol, whatever the size), while a fetching atomic is answered
 * from the target's progress through shared memory (its "inject"
 * protocol). Not on other providers, whose fi_read is the hardware's own
 * read; not with WEFT_AMO=software, which keeps the provider's atomics out. */
#define WEFT_GET_BY_ATOMIC_MAX 256 /* 512 B: level with fi_read; 1 KiB: slower */
static void init_get_by_atomic(const char *prov)
{
    weft_ofi.amo.get_by_atomic_max = 0;
    if (strcmp(prov, "shm") || !weft_ofi.fab.have_atomic_cap || weft_ofi.amo.forced_software)
        return;
    struct fi_atomic_attr attr;
    memset(&attr, 0, sizeof attr);
    if (fi_query_atomic(weft_ofi.fab.domain, FI_UINT8, FI_ATOMIC_READ, &attr, FI_FETCH_ATOMIC) ||
        attr.size != 1)
        return;
    weft_ofi.amo.get_by_atomic_max = attr.count < WEFT_GET_BY_ATOMIC_MAX ? attr.count
                                                                     : WEFT_GET_BY_ATOMIC_MAX;
    weft_debug("ofi: gets of up to %zu bytes as atomic reads", weft_ofi.amo.get_by_atomic_max);
}

void weft_ofi_amo_init(void)
{
    weft_ofi_msg_register(WEFT_OFI_MSG_H_AMO_REQ, amo_req_handler);
    weft_ofi_msg_register(WEFT_OFI_MSG_H_AMO_REP, amo_rep_handler);
    weft_ofi_msg_register(WEFT_OFI_MSG_H_SIGNAL_ADD, signal_add_handler);
    const char *prov = weft_ofi_provider_name();
    weft_ofi.amo.forced_software = !strcmp(weft_tun_str(WEFT_TUN_AMO), "software") ||
                                   weft_ofi_native_atomics_broken(prov);
    int rxm = strstr(prov, "ofi_rxm") != NULL;
    weft_ofi.order.inject_atomic_acked = rxm;
    weft_ofi.amo.atomics_by_target_cpu = rxm || !strcmp(prov, "shm");
    init_get_by_atomic(prov);
    for (int d = 0; d < WEFT_DT_NTYPES; d++) {
        int all = 1;
        for (int o = 0; o < WEFT_AMO_NOPS; o++) {
            int ok = 0;
            if (weft_ofi.fab.have_atomic_cap) {
                enum fi_op fop = fi_opmap[o];
                switch (o) {
                case WEFT_AMO_FETCH:
                case WEFT_AMO_SWAP: ok = query(d, fop, FI_FETCH_ATOMIC); break;
                case WEFT_AMO_SET: ok = query(d, fop, 0); break;
                case WEFT_AMO_CSWAP: ok = query(d, fop, FI_COMPARE_ATOMIC); break;
                default: ok = query(d, fop, 0) && query(d, fop, FI_FETCH_ATOMIC); break;
                }
            }
            weft_ofi.amo.query[o][d] = (uint8_t)ok;
            if (op_applies(o, d) && !ok)
                all = 0;
        }
        weft_ofi.amo.dt_native[d] =
            (uint8_t)(all && !weft_ofi.amo.forced_software && !weft_onnode.mixed);
        for (int o = 0; o < WEFT_AMO_NOPS; o++)
            weft_ofi.amo.inject[o][d] = (uint8_t)(weft_ofi.amo.dt_native[d] &&
                                                  weft_ofi.amo.query[o][d] && !amo_fetches(o));
        weft_debug("ofi: AMO type %s: %s", weft_dtype_names[d],
                   weft_ofi.amo.dt_native[d] ? "native" : "software");
    }
}

/* The target's CPU applies every atomic on dt with atomic instructions:
 * weft's software atomics, and the providers whose atomics run in the
 * target process (atomics_by_target_cpu, set above). Not NIC atomics: a
 * CPU atomic is not atomic against those. */
int weft_ofi_amo_cpu_coherent(enum weft_dtype dt)
{
    return !weft_ofi.amo.dt_native[dt] || weft_ofi.amo.atomics_by_target_cpu;
}

int weft_ofi_amo_is_native(enum weft_amo_op op, enum weft_dtype dt)
{
    if ((unsigned)op >= WEFT_AMO_NOPS || (unsigned)dt >= WEFT_DT_NTYPES)
        return 0;
    return weft_ofi.amo.dt_native[dt] && weft_ofi.amo.query[op][dt];
}

/* ---- CPU atomics (software path, executed at the target) -------------- */

static void cpu_amo(int op, int dt, void *addr, const void *operand, const void *compare,
                    void *result)
{
    if (is_float(dt) && op >= WEFT_AMO_AND)
        weft_fatal("weft_ofi_amo", "bitwise atomic %s is not defined for %s",
                   weft_amo_op_names[op], weft_dtype_names[dt]);
    weft_cpu_amo((enum weft_amo_op)op, (enum weft_dtype)dt, addr, operand, compare, result);
}

/* ---- software path ----------------------------------------------------- */

struct sw_wait {
    void *result;
    int done;
};

/* a0: op | dt << 8 | seg << 16; args: [0] offset, [1] token, [2] tx.
 * token: 0 (no result), a result pointer, or (struct sw_wait * | 1). */
static void amo_req_handler(int src, uint32_t a0, const uint64_t *args, int nargs,
                            const void *payload, size_t len)
{
    int op = (int)(a0 & 0xff), dt = (int)((a0 >> 8) & 0xff);
    int seg = (int)((a0 >> 16) & 0xff);
    uint64_t off = args[0];
    if (nargs != 3 || len != 16 || op >= WEFT_AMO_NOPS || dt >= WEFT_DT_NTYPES ||
        seg >= WEFT_NSEGS)
        weft_fatal("weft_ofi_progress", "malformed atomic request from PE %d", src);
    size_t sz = weft_dtype_size((enum weft_dtype)dt);
    size_t seg_size = weft_seg_size((int)seg);
    if (off > seg_size || seg_size - off < sz || (off & (sz - 1)))
        weft_fatal("weft_ofi_progress", "atomic request from PE %d at offset %" PRIu64
                   " outside segment %d or misaligned", src, off, seg);
    const char *p = payload;
    uint64_t res = 0;
    cpu_amo(op, dt, weft_rt.seg[seg].base + off, p, p + 8, &res);
    uint64_t rargs[2] = {args[1], args[2]};
    weft_ofi_msg_send(src, WEFT_OFI_MSG_ID(WEFT_OFI_MSG_H_AMO_REP, 0), rargs, 2, &res, sz);
}

static void amo_rep_handler(int src, uint32_t a0, const uint64_t *args, int nargs,
                            const void *payload, size_t len)
{
    (void)a0;
    if (nargs != 2 || len > 8)
        weft_fatal("weft_ofi_progress", "malformed atomic reply from PE %d", src);
    uint64_t token = args[0];
    struct weft_ofi_tx *tx = (struct weft_ofi_tx *)(uintptr_t)args[1];
    /* This may run on any thread that progresses. The issuer prepared w and
     * the result location before its release increment of am_issued; the
     * reply's trip through the wire orders them physically, this acquire
     * says so to the memory model (and to ThreadSanitizer). */
    (void)__atomic_load_n(&tx->am_issued, __ATOMIC_ACQUIRE);
    if (token & 1) {
        struct sw_wait *w = (struct sw_wait *)(uintptr_t)(token & ~(uint64_t)1);
        if (w->result)
            memcpy(w->result, payload, len);
        __atomic_fetch_add(&tx->am_done, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE); /* w may vanish after this */
    } else {
        if (token)
            memcpy((void *)(uintptr_t)token, payload, len);
        __atomic_fetch_add(&tx->am_done, 1, __ATOMIC_RELEASE);
    }
}

static void sw_amo(struct weft_ofi_tx *tx, enum weft_amo_op op, enum weft_dtype dt, int seg,
                   uint64_t off, const void *operand, const void *compare, void *result, int pe,
                   int blocking)
{
    if (pe == weft_rt.my_pe) {
        /* A fence before this may have waited for nothing (ordered): puts
         * to ourselves still in the provider must land first. */
        if (weft_ofi.order.ordered && weft_ofi_active(tx))
            weft_ofi_quiet_held(tx);
        cpu_amo(op, dt, weft_rt.seg[seg].base + off, operand, compare, result);
        return;
    }
    size_t sz = weft_dtype_size(dt);
    char payload[16];
    memset(payload, 0, sizeof payload);
    if (operand)
        memcpy(payload, operand, sz);
    if (compare)
        memcpy(payload + 8, compare, sz);
    struct sw_wait w = {result, 0};
    int wait = blocking && result;
    uint64_t token = wait ? ((uint64_t)(uintptr_t)&w | 1) : (uint64_t)(uintptr_t)result;
    uint32_t a0 = (uint32_t)op | (uint32_t)dt << 8 | (uint32_t)seg << 16;
    uint64_t args[3] = {off, token, (uint64_t)(uintptr_t)tx};
    __atomic_add_fetch(&tx->am_issued, 1, __ATOMIC_RELEASE); /* see amo_rep_handler */
    weft_ofi_set_active(tx, 1);
    /* From tx's own endpoint: behind tx's writes in the provider's order. */
    weft_ofi_msg_send_from(tx, pe, WEFT_OFI_MSG_ID(WEFT_OFI_MSG_H_AMO_REQ, a0), args, 3, payload,
                           sizeof payload);
    if (wait) {
        unsigned spins = 0;
        while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE))
            weft_poll_yield(&spins);
    }
}

/* a0: seg; args: [0] offset, [1] value. No reply: the PE this runs on is
 * the one waiting for the count, and nothing else waits for it to land. */
static void signal_add_handler(int src, uint32_t a0, const uint64_t *args, int nargs,
                               const void *payload, size_t len)
{
    (void)payload;
    uint64_t off = nargs == 2 ? args[0] : 0;
    if (nargs != 2 || len != 0 || a0 >= WEFT_NSEGS || off > weft_seg_size((int)a0) ||
        weft_seg_size((int)a0) - off < sizeof(uint64_t) || (off & 7))
        weft_fatal("weft_ofi_progress", "malformed collective signal from PE %d", src);
    __atomic_fetch_add((uint64_t *)(void *)(weft_rt.seg[a0].base + off), args[1],
                       __ATOMIC_RELEASE);
}

/* ---- native path ------------------------------------------------------- */

/* The bookkeeping after an injected atomic: counted, the tx active, the
 * progress thread told the application is busy, and the target marked for
 * quiet's flush read where the provider counts the atomic before applying
 * it (shm, sockets; fi_atomicmsg(FI_INJECT | FI_DELIVERY_COMPLETE) gave
 * wrong sums on libfabric 1.17 shm: docs/providers.md). */
static inline void amo_injected(struct weft_ofi_tx *tx, int pe)
{
    weft_ofi_count_write(tx);
    weft_ofi_set_active(tx, 1);
    if (!weft_ofi.order.inject_atomic_acked)
        weft_ofi_mark_dirty(tx, pe);
    weft_ofi_note_app_activity();
}

static void native_amo(struct weft_ofi_tx *tx, enum weft_amo_op op, enum weft_dtype dt, int seg,
                       uint64_t off, const void *operand, const void *compare, void *result,
                       int pe, int blocking)
{
    if (WEFT_UNLIKELY(!weft_ofi.amo.query[op][dt]))
        weft_fatal("weft_ofi_amo", "atomic %s on %s is not supported by provider %s",
                   weft_amo_op_names[op], weft_dtype_names[dt], weft_ofi_provider_name());
    size_t sz = weft_dtype_size(dt);
    enum fi_datatype fdt = fi_dt[dt];
    enum fi_op fop = fi_opmap[op];
    uint64_t raddr = weft_ofi_raddr(pe, seg, off), key = weft_ofi_rkey(pe, seg);
    struct weft_ofi_retry r = {0, 0};
    ssize_t rc;

    if (!result && !amo_fetches(op)) {
        while ((rc = fi_inject_atomic(tx->ep, operand, 1, (fi_addr_t)pe, raddr, key, fdt, fop)) ==
               -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, "fi_inject_atomic", pe);
        if (WEFT_UNLIKELY(rc))
            weft_ofi_fail("fi_inject_atomic", pe, rc);
        amo_injected(tx, pe);
        return;
    }

    uint64_t scratch;
    void *res = result ? result : &scratch;
    const void *buf = operand, *cmp = compare;
    void *bdesc = NULL, *cdesc = NULL, *rdesc = NULL;
    char *bounce_res = NULL;
    if (weft_ofi.fab.mr_local) {
        /* Operands and result through the registered scratch; blocking. */
        weft_ofi_wait_reads(tx, "shmem_atomic");
        memset(tx->bounce, 0, 48);
        if (operand)
            memcpy(tx->bounce, operand, sz);
        if (compare)
            memcpy(tx->bounce + 16, compare, sz);
        buf = tx->bounce;
        cmp = tx->bounce + 16;
        bounce_res = tx->bounce + 32;
        res = bounce_res;
        bdesc = cdesc = rdesc = tx->bounce_desc;
        blocking = 1;
    } else if (!blocking || !result) {
        /* The caller's operand may go away when we return: keep a copy. */
        if (tx->nbi_used == WEFT_OFI_NBI_SLOTS) {
            weft_ofi_wait_reads(tx, "shmem_atomic_nbi");
            tx->nbi_used = 0;
        }
        uint64_t *slot = tx->nbi_slot[tx->nbi_used++];
        slot[0] = slot[1] = 0;
        if (operand)
            memcpy(&slot[0], operand, sz);
        if (compare)
            memcpy(&slot[1], compare, sz);
        buf = &slot[0];
        cmp = &slot[1];
        if (!result) {
            res = &slot[0]; /* discarded old value; slot dies at quiet */
            blocking = 0;
        }
    }
    if (!buf)
        buf = res; /* FI_ATOMIC_READ ignores the source */

    if (op == WEFT_AMO_CSWAP) {
        while ((rc = fi_compare_atomic(tx->ep, buf, 1, bdesc, cmp, cdesc, res, rdesc,
                                       (fi_addr_t)pe, raddr, key, fdt, fop, NULL)) == -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, "fi_compare_atomic", pe);
        if (WEFT_UNLIKELY(rc))
            weft_ofi_fail("fi_compare_atomic", pe, rc);
    } else {
        while ((rc = fi_fetch_atomic(tx->ep, buf, 1, bdesc, res, rdesc, (fi_addr_t)pe, raddr, key,
                                     fdt, fop, NULL)) == -FI_EAGAIN)
            weft_ofi_retry_wait(tx, &r, "fi_fetch_atomic", pe);
        if (WEFT_UNLIKELY(rc))
            weft_ofi_fail("fi_fetch_atomic", pe, rc);
    }
    tx->r_issued++;
    weft_ofi_set_active(tx, 1);
    if (blocking) {
        weft_ofi_wait_reads(tx, "shmem_atomic");
        if (bounce_res && result)
            memcpy(result, bounce_res, sz);
    } else {
        weft_ofi_note_app_activity();
    }
}

/* Where the provider orders only RMA writes (weft_ofi.order.rma_ordered), an
 * atomic after a deferred fence waits for the writes before it, and marks
 * tx so that a later fence completes it before further writes. */
static inline void weft_ofi_amo_order(struct weft_ofi_tx *tx)
{
    if (WEFT_UNLIKELY(tx->fence_pending))
        weft_ofi_quiet_held(tx);
    if (!weft_ofi.order.ordered)
        tx->unordered_since_quiet = 1;
}

/* A shared tx is held across the whole atomic, the wait for a blocking
 * one's result included (ofi_internal.h says why). */
void weft_ofi_amo(struct weft_ofi_tx *tx, enum weft_amo_op op, enum weft_dtype dt, int seg,
                  uint64_t off, const void *operand, const void *compare, void *result, int pe)
{
    /* The frequent non-fetching atomic (an add, a set), on an unshared tx
     * with no deferred fence, straight to the provider; EAGAIN and all
     * else below. */
    if (!result && WEFT_LIKELY(!tx->enter_slow && !tx->fence_pending) &&
        weft_ofi.amo.inject[op][dt] &&
        WEFT_LIKELY(fi_inject_atomic(tx->ep, operand, 1, (fi_addr_t)pe,
                                     weft_ofi_raddr(pe, seg, off), weft_ofi_rkey(pe, seg),
                                     fi_dt[dt], fi_opmap[op]) == 0)) {
        if (!weft_ofi.order.ordered) /* weft_ofi_amo_order without its fence test */
            tx->unordered_since_quiet = 1;
        amo_injected(tx, pe);
        return;
    }
    weft_ofi_tx_enter(tx);
    weft_ofi_amo_order(tx);
    if (weft_ofi.amo.dt_native[dt])
        native_amo(tx, op, dt, seg, off, operand, compare, result, pe, 1);
    else
        sw_amo(tx, op, dt, seg, off, operand, compare, result, pe, 1);
    weft_ofi_tx_leave(tx);
}

void weft_ofi_amo_nbi(struct weft_ofi_tx *tx, enum weft_amo_op op, enum weft_dtype dt, int seg,
                      uint64_t off, const void *operand, const void *compare, void *result, int pe)
{
    weft_ofi_tx_enter(tx);
    weft_ofi_amo_order(tx);
    if (weft_ofi.amo.dt_native[dt])
        native_amo(tx, op, dt, seg, off, operand, compare, result, pe, 0);
    else
        sw_amo(tx, op, dt, seg, off, operand, compare, result, pe, 0);
    weft_ofi_tx_leave(tx);
}

/* A signal needs no answer: its target waits for it, and nothing else
 * does. Software atomics answer every request for quiet to count, and so,
 * inside the provider, do rxm's (tcp;ofi_rxm acknowledges each atomic): a
 * later quiet (the next barrier's) then waits a round trip for signals
 * that have long served their purpose (active-set barrier, 2 PEs over
 * tcp: 20-22 us, 11.5-12.8 as messages, level with shmem_barrier_all). So
 * there a signal is a one-way message whose handler adds with a CPU
 * atomic, atomic with rxm's, which rxm applies with the target's CPU too.
 * shm's injected atomics are unanswered already (0.5 us against 0.6 as
 * messages), NIC atomics are not atomic against a CPU's: both stay. */
void weft_ofi_signal_add(struct weft_ofi_tx *tx, int seg, uint64_t off, uint64_t value, int pe)
{
    int by_message = !weft_ofi.amo.dt_native[WEFT_DT_I64] ||
                     (weft_ofi.order.inject_atomic_acked && weft_ofi.amo.atomics_by_target_cpu);
    if (!by_message || pe == weft_rt.my_pe) {
        weft_ofi_amo(tx, WEFT_AMO_ADD, WEFT_DT_I64, seg, off, &value, NULL, NULL, pe);
        return;
    }
    uint64_t args[2] = {off, value};
    weft_ofi_tx_enter(tx);
    weft_ofi_amo_order(tx);
    /* From tx's own endpoint: behind tx's writes in the provider's order. */
    uint64_t id = WEFT_OFI_MSG_ID(WEFT_OFI_MSG_H_SIGNAL_ADD, (uint32_t)seg);
    weft_ofi_msg_send_from(tx, pe, id, args, 2, NULL, 0);
    weft_ofi_tx_leave(tx);
}

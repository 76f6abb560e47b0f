/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_internal.h owns the private state of the libfabric transport: the
 * per-context transmit resources (struct weft_ofi_tx), the process-wide
 * fabric/domain/CQ/MR state (weft_ofi), remote addressing helpers and the
 * wait/retry helpers shared by the ofi_*.c files. Nothing outside
 * src/transport/ofi/ includes it. */
#ifndef WEFT_OFI_INTERNAL_H
#define WEFT_OFI_INTERNAL_H

#include <inttypes.h>
#include <pthread.h>

#include "transport/ofi/ofi_dl.h" /* before the other rdma headers: libfabric loaded at run time */

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdint.h>

#include "transport/ofi/ofi.h"

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* Slots that hold operands of non-blocking fetching AMOs until completion. */
#define WEFT_OFI_NBI_SLOTS 256
/* Size of the registered bounce/scratch buffer (FI_MR_LOCAL providers and
 * the flush read target). */
#define WEFT_OFI_BOUNCE_SIZE (64 * 1024)

/* How quiet makes puts remotely complete (see ofi_rma.c). */
enum weft_ofi_rc {
    WEFT_RC_DELIVERY, /* FI_DELIVERY_COMPLETE default op flag; injects flushed */
    WEFT_RC_FLUSH     /* transmit completion + a read to every PE written */
};

/* Per-context transmit resources: the default context's (weft_ofi_tx0) and
 * one per context that got an endpoint of its own (ofi_ctx.c). Laid out
 * by use: the hot head every put, get, atomic and quiet reads or writes
 * (one or two cache lines), then the cold parts each feature keeps, then
 * the 4 KiB of operand slots of non-blocking fetching atomics. */
struct weft_ofi_tx {
    /* ---- hot head ---------------------------------------------------- */
    union { /* first: read inline through ofi.h; here by field name too */
        struct weft_ofi_tx_head head;
        struct {
            WEFT_OFI_TX_HEAD_FIELDS
        };
    };
    /* What weft_ofi_tx_enter (and the inject fast path of put_nbi) must
     * look at: WEFT_TX_SHARED (= shared) | WEFT_TX_COALESCED (puts waiting
     * in coal_buf or in flight, ofi_coalesce.c). One test for both. */
    int enter_slow;
    struct fid_cntr *rcntr; /* FI_READ: reads, fetching/compare atomics */
    uint64_t r_issued;      /* ops posted that count on rcntr (wcntr's: the head) */
    /* The counters' success counts when last read (wcntr's: the head): a
     * wait for no more than that returns without calling the provider
     * (whose counter read progresses and locks: about 100 instructions on
     * shm). */
    uint64_t r_done_seen;
    /* PEs that need a flush read at the next quiet. */
    uint8_t *dirty;
    int *dirty_list;
    int ndirty;
    /* Non-blocking writes posted delivery-complete since the last quiet
     * (weft_ofi_write_flushed). */
    unsigned dc_writes;
    /* A write larger than the inject size was posted since the last quiet.
     * Providers may move such data in pieces after later operations even
     * when they claim FI_ORDER_WAW (libfabric 1.17 shm's SAR protocol does:
     * docs/providers.md), so the next fence completes instead of relying on
     * the order. */
    int large_since_quiet;
    /* An atomic or message left tx since the last quiet, on a provider
     * that is only rma_ordered: the next fence must complete. */
    int unordered_since_quiet;
    /* A fence was deferred (rma_ordered): writes before it are ordered
     * before later writes by the provider, but the next atomic must wait
     * for their completion (weft_ofi_amo_order). */
    int fence_pending;
    /* Several threads may call into this tx at once (the default context
     * under SHMEM_THREAD_MULTIPLE, a context created without PRIVATE or
     * SERIALIZED): every operation and quiet then holds lock, so that a
     * blocking get or a quiet never mistakes another thread's completions
     * on the shared counters for its own. Set before the tx is published,
     * never changed after. Private and serialized txs never lock. */
    int shared;

    /* ---- cold: set-up, errors, locking --------------------------------- */
    struct fid_cq *cq; /* error completions of ep (tx0: weft_ofi.fab.cq) */
    pthread_mutex_t lock;
    uint64_t w_err_seen, r_err_seen;
    uint64_t w_at_quiet; /* w_issued when a quiet last counted (weft_ofi.progress.quiets) */
    /* registered scratch: flush read target and FI_MR_LOCAL bounce */
    char *bounce;
    size_t bounce_size; /* WEFT_OFI_BOUNCE_SIZE with FI_MR_LOCAL, else 64 */
    struct fid_mr *bounce_mr;
    void *bounce_desc;
    /* Contexts' txs in the registry the progress thread pokes (ofi_ctx.c). */
    struct weft_ofi_tx *next_ctx, *prev_ctx;

    /* ---- software atomics and put batches (ofi_amo.c, ofi_coalesce.c):
     * replies counted by whichever thread progresses ------------------- */
    uint64_t am_issued; /* messages sent that get a reply */
    uint64_t am_done;   /* replies received (updated by progress) */

    /* ---- coalesced puts (ofi_coalesce.c; tx0 only, when weft_ofi.put.coalesce):
     * records for coal_pe in coal_buf[0, coal_pub), the length written
     * by the application alone and published to the progress thread with
     * each release store; coal_sent (under coal_lock) is what has left.
     * The first three are in the head (ofi.h), where the inline p appends
     * to an open batch. */
    uint32_t coal_sent; /* coal_buf, coal_pub, coal_pe: the head */
    int coal_lock;
    /* PEs sent batches since the last settle (under coal_lock): each gets
     * one acknowledged message then. */
    uint8_t *coal_dirty;
    int *coal_dirty_list;
    int coal_ndirty;
    /* Set by fence: the next coalescible put, with nothing
     * coalesced waiting, is written directly (weft_ofi_put_or_coalesce). */
    int coal_direct_next;

    /* ---- gets and puts by CMA (ofi_cma.c): the PE whose queue the last
     * ordering read went through, or -1, and the counts that say whether
     * it still covers the next get (cma_head_valid). */
    int cma_head_pe;
    uint64_t cma_applied, cma_quiets, cma_issued;
    /* Non-blocking puts by CMA waiting for their ordering read, which was
     * not waited for (ofi_cma.c): the read's place in r_issued (0: none
     * out), its PE, cma_issued once it left, the word it reads into; the
     * puts it covers, to copy once it is back. */
    uint64_t cma_read_seq, cma_read_issued, cma_read_word;
    int cma_read_pe;
    unsigned cma_ndefer;
    struct weft_ofi_cma_defer *cma_defer;

    /* ---- operand slots for fetching nbi AMOs (4 KiB), last ------------- */
    unsigned nbi_used;
    uint64_t nbi_slot[WEFT_OFI_NBI_SLOTS][2];
};

/* A write that counts on tx's wcntr was posted (weft_ofi_count_writes). */
static inline void weft_ofi_count_write(struct weft_ofi_tx *tx)
{
    weft_ofi_count_writes(&tx->head, 1);
}

/* Take and release a tx around one operation; free for unshared txs. */
enum { WEFT_TX_SHARED = 1, WEFT_TX_COALESCED = 2 };
void weft_ofi_tx_enter_slow(struct weft_ofi_tx *tx);
static inline void weft_ofi_tx_enter(struct weft_ofi_tx *tx)
{
    if (WEFT_UNLIKELY(tx->enter_slow))
        weft_ofi_tx_enter_slow(tx);
}
static inline void weft_ofi_tx_leave(struct weft_ofi_tx *tx)
{
    if (WEFT_UNLIKELY(tx->shared))
        pthread_mutex_unlock(&tx->lock);
}
/* Before the tx is published: shared, and its bit in enter_slow. */
static inline void weft_ofi_tx_set_shared(struct weft_ofi_tx *tx, int shared)
{
    tx->shared = shared;
    tx->enter_slow = shared ? WEFT_TX_SHARED : 0;
    tx->state.word = shared ? weft_ofi_tx_state_only(WEFT_OFI_TX_LOCKED) : 0;
}
/* state is read without the lock by the inline quiet (ofi.h), so every
 * write is an atomic store (the same single store instruction); clearing,
 * which a whole quiet does for the inline puts too, releases what the
 * quiet completed (see union weft_ofi_tx_state). */
static inline void weft_ofi_set_active(struct weft_ofi_tx *tx, int on)
{
    if (on) {
        __atomic_store_n(&tx->state.why[WEFT_OFI_TX_ACTIVE], 1, __ATOMIC_RELAXED);
    } else {
        __atomic_store_n(&tx->state.why[WEFT_OFI_TX_PUTS], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&tx->state.why[WEFT_OFI_TX_ACTIVE], 0, __ATOMIC_RELEASE);
    }
}

/* The provider orderings fence relies on: RMA writes and atomics
 * (FI_ORDER_WAW covers both, and atomics against writes) and messages
 * (software atomics) behind writes (FI_ORDER_SAW), from one endpoint to
 * one target. */
#define WEFT_OFI_FENCE_ORDER (FI_ORDER_WAW | FI_ORDER_SAW)

/* The process-wide state of the libfabric transport, grouped by purpose. */
struct weft_ofi_state {
    /* The fabric: the provider's answer and the objects opened on it. */
    struct {
        struct fi_info *info;
        struct fi_info *ctx_info; /* info for contexts' endpoints (smaller rx) */
        struct fid_fabric *fabric;
        struct fid_domain *domain;
        struct fid_av *av;
        struct fid_cq *cq; /* transmit (selective) + receive completions */
        struct fid_mr *mr[WEFT_NSEGS];
        void *mr_desc[WEFT_NSEGS];
        /* mr_mode decisions, made from the fi_info at run time */
        int prov_key;  /* FI_MR_PROV_KEY: rkey[] exchanged */
        int virt_addr; /* FI_MR_VIRT_ADDR: rbase[] exchanged */
        int mr_local;  /* FI_MR_LOCAL: local buffers need a desc */
        int mr_endpoint;
        int manual;         /* data or control progress is manual */
        int thread_safe;    /* domain opened FI_THREAD_SAFE */
        int have_atomic_cap;
        size_t prov_inject; /* provider's inject_size */
        size_t max_msg;
        size_t iov_limit; /* min(iov_limit, rma_iov_limit) */
    } fab;
    /* Remote addressing, [pe * WEFT_NSEGS + seg]: two loads and no test
     * on the put path. Where every PE has the same keys and bases (keys
     * weft chose, offsets: shm and tcp;ofi_rxm on 1.17) the tables are one
     * page repeated over their range (core/scale.h), so nothing is kept
     * per PE; otherwise per_pe is set and they hold each PE's. */
    struct {
        int per_pe;
        uint64_t *rkey;  /* the provider's key, or seg */
        uint64_t *rbase; /* the base, or 0 (addr = offset) */
    } addr;
    /* How puts travel and complete (ofi_rma.c, ofi_coalesce.c). */
    struct {
        size_t inject_size; /* our put inject threshold */
        /* Largest p the default context injects on its own fast path: the
         * inject threshold, or 0 while tx0 is shared (the locked general
         * path then takes every p, and the fast path pays no extra test). */
        size_t scalar_inject;
        /* Puts above inject_size and up to this many bytes go as injected
         * pieces (ofi_rma.c, put_split); 0: never. */
        size_t split_put_max;
        /* Puts above the inject size (blocking ones, and non-blocking ones
         * past the first few since a quiet: weft_ofi_write_flushed) are
         * posted without FI_DELIVERY_COMPLETE and their targets flushed at
         * quiet like an injected put's (ofi_rma.c): counted once the
         * source may be reused, with no acknowledgement per write. Where
         * writes are delivery-complete by default and injects do not queue
         * in order (tcp;ofi_rxm: put + fence + flag of 4-64 KiB 20-45%
         * faster, put_bw 2-512 KiB 10-35%: its acknowledgement is a system
         * call at each end). */
        int writes_flushed;
        enum weft_ofi_rc rc;
        /* Small puts through tx0 are coalesced into one message per PE
         * (ofi_coalesce.c): tcp;ofi_rxm, WEFT_COALESCE=auto, a progress
         * thread, not under SHMEM_THREAD_MULTIPLE. */
        int coalesce;
    } put;
    /* What fence and quiet may rely on (ofi_rma.c). */
    struct {
        /* The provider applies RMA writes, atomics and sends from one
         * endpoint to one target in issue order (FI_ORDER_WAW |
         * FI_ORDER_SAW), software atomics leave from the issuing context's
         * endpoint, and WEFT_FENCE allows it: fence then needs no
         * completion. */
        int ordered;
        /* Weaker: the provider orders RMA writes among themselves only
         * (FI_ORDER_RMA_WAW; tcp;ofi_rxm, whose atomics are messages
         * applied after later writes). A fence after writes alone is then
         * deferred: later writes need nothing, a later atomic completes
         * first (fence_pending in the tx). */
        int rma_ordered;
        /* The largest write the provider keeps in order where fence relies
         * on RMA write order (rma_ordered: tcp;ofi_rxm lists no limit); 0
         * elsewhere (shm moves large writes in pieces although it reports
         * their order: docs/providers.md, problem 6). A fence after a
         * larger fi_write completes like quiet. */
        size_t order_waw_size;
        /* The provider counts an injected atomic only when the target's
         * reply says it was applied (rxm's atomic protocol: measured with
         * docs/provider-notes/remote_completion.c INJATOMIC=1), so quiet
         * need not flush it. */
        int inject_atomic_acked;
        /* Every operation sent to a PE, from any endpoint of any PE, is
         * queued at that PE's endpoint in one order before the sender
         * counts it, and processed in that order: libfabric 1.17 shm once
         * FI_DELIVERY_COMPLETE is a default op flag (which turns off its
         * direct CMA path for RMA; measured with
         * docs/provider-notes/inject_fifo.c). An injected write or atomic
         * is then behind nothing a later operation could overtake, so
         * quiet needs no flush read: tx->dirty starts set for every other
         * PE (mark_dirty becomes a test that never appends). Not for this
         * PE itself (a context's write to it is read back by plain loads),
         * nor in a job that also uses the direct path (weft_onnode.mixed):
         * a PE can then learn of a write by a direct store - a barrier's
         * signal from a peer on its node - before its queue has delivered
         * the write. Neither goes through the queue. */
        int injects_queued_in_order;
    } order;
    /* Atomics (ofi_amo.c). */
    struct {
        /* query[op][dt] from the queries; dt_native[dt] the rule */
        uint8_t query[WEFT_AMO_NOPS][WEFT_DT_NTYPES];
        uint8_t dt_native[WEFT_DT_NTYPES];
        /* Non-fetching ops that go native: a call without a result injects. */
        uint8_t inject[WEFT_AMO_NOPS][WEFT_DT_NTYPES];
        int forced_software;
        /* The provider's atomics are applied in the target process with
         * CPU atomic instructions (libfabric 1.17's util atomic handlers:
         * shm, and rxm's emulation over any core provider), so a CPU
         * atomic there is atomic against them (weft_ofi_amo_cpu_coherent). */
        int atomics_by_target_cpu;
        size_t get_by_atomic_max; /* gets up to this many bytes go as atomic reads */
    } amo;
    /* Progress (ofi_progress.c) and what it serves. */
    struct {
        int lock; /* trylock flag: one thread drains the CQ at a time */
        unsigned long app_polls; /* progress calls by application threads */
        /* Quiets that completed writes or atomics, on any context (a
         * relaxed count: racing threads may lose one, never leave it
         * unchanged); gets read by CMA look at it (ofi_cma.c). */
        unsigned long quiets;
        unsigned long msgs_served; /* CQ entries drained: peers' messages and
                                    * immediate data (and our sends' ends) */
        struct fid_cntr *served_cntr; /* remote accesses to tx0 (FI_RMA_EVENT), or NULL */
        /* Peers' writes, atomics and messages arriving at tx0, with a wait
         * object (ofi_wait.c, waits for an update), or NULL; when both are
         * open it is served_cntr too (an endpoint counts remote writes
         * into one counter). */
        struct fid_cntr *update_cntr;
        /* Messages arriving at tx0, with a wait object: the default
         * context's waits for replies sleep on it (ofi_wait.c,
         * weft_ofi_reply_pause), or NULL: they poll. */
        struct fid_cntr *arrivals;
        int replies_sleep; /* arrivals is open and its waits work */
        int cq_wait_fd; /* the CQ was opened with FI_WAIT_FD */
        int wait_fd;    /* its descriptor, or -1: the thread naps */
        int thread_on;  /* a progress thread is running */
        pthread_t thread;
        int thread_stop;
        /* Through finalize's launcher barrier: the thread's idle turns
         * back off (progress_main). */
        int finalizing;
    } progress;
    /* Contexts (ofi_ctx.c). */
    struct {
        int ep_budget;           /* endpoints contexts may have at once */
        const char *ep_limit_by; /* what set the budget, for describe */
        int share;               /* past the budget: share tx0 (1) or fail (0) */
        int eps_open;            /* context endpoints that exist: in use + idle */
        int eps_idle;            /* ... of which kept for reuse by a later context */
        int sharing;             /* contexts sharing tx0 now */
        int refused;             /* creations refused (no endpoint, sharing off) */
        pthread_mutex_t lock;    /* the two lists and the counts above */
        struct weft_ofi_tx *list; /* in use (the progress thread pokes them) */
        struct weft_ofi_tx *idle; /* destroyed contexts' endpoints, quiet */
    } ctx;
    int thread_multiple; /* the runtime runs at SHMEM_THREAD_MULTIPLE */
    int unused;          /* every PE is reached directly: libfabric not opened */
    int abandoned;       /* weft_ofi_abandon ran */
    long retry_timeout;  /* seconds; 0: forever */
    char last_err[256];  /* last error completion seen, for messages */
};

extern struct weft_ofi_state weft_ofi;
/* The default context's transmit resources (declared in ofi.h too). */
extern struct weft_ofi_tx weft_ofi_tx0;

static inline uint64_t weft_ofi_raddr(int pe, int seg, uint64_t off)
{
    return weft_ofi.addr.rbase[(size_t)pe * WEFT_NSEGS + (size_t)seg] + off;
}
static inline uint64_t weft_ofi_rkey(int pe, int seg)
{
    return weft_ofi.addr.rkey[(size_t)pe * WEFT_NSEGS + (size_t)seg];
}
/* Local descriptor for a buffer inside a registered segment, else NULL. */
static inline void *weft_ofi_local_desc(const void *p, size_t len)
{
    if (!weft_ofi.fab.mr_local)
        return NULL;
    int seg;
    uint64_t off;
    if (len && weft_sym_resolve(p, len, &seg, &off) == 0)
        return weft_ofi.fab.mr_desc[seg];
    return NULL;
}

/* Where weft_ofi.put.writes_flushed: whether this write above the inject size
 * goes without FI_DELIVERY_COMPLETE (its target then flushed at quiet). A
 * blocking one always does (it waits only for its source). Non-blocking
 * ones do from the WEFT_OFI_DC_WRITES+1-th since the last quiet: the
 * target's acknowledgements of the first few cost less than the flush
 * read (tcp;ofi_rxm, 4 KiB put_nbi + quiet: 12.6-13.4 us delivery-complete,
 * 18-28 us flushed), and the flush of the rest less than their
 * acknowledgements (put_bw: windows of 64). */
#define WEFT_OFI_DC_WRITES 4u
static inline int weft_ofi_write_flushed(struct weft_ofi_tx *tx, int blocking)
{
    if (!weft_ofi.put.writes_flushed)
        return weft_ofi.put.rc == WEFT_RC_FLUSH;
    if (blocking || tx->dc_writes >= WEFT_OFI_DC_WRITES)
        return 1;
    tx->dc_writes++;
    return 0;
}

/* An application thread is inside weft: the progress thread stands down
 * (ofi_progress.c). Counted by every progress call of a wait loop and by
 * the paths that issue puts, gets and atomics back to back without
 * waiting: a message-rate loop, or a window of large puts, each of them a
 * system call over tcp, during which a thread that drained would take the
 * endpoint's lock from under the writes (15% of tcp's put bandwidth at 2
 * PEs). A relaxed load and store, not an
 * atomic increment: two threads racing lose a count, which only means
 * "still active". */
static inline void weft_ofi_note_app_activity(void)
{
    unsigned long *polls = &weft_ofi.progress.app_polls;
    __atomic_store_n(polls, __atomic_load_n(polls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* A write of len bytes other than an inject: a fence after it must
 * complete it where the provider does not promise to keep it in order. */
static inline void weft_ofi_note_write(struct weft_ofi_tx *tx, size_t len)
{
    if (len > weft_ofi.order.order_waw_size)
        tx->large_since_quiet = 1;
}

/* Note that an injected write or atomic went to pe: quiet then flushes it
 * with a read. Already marked, or never needing it (injects_queued_in_order
 * presets every mark), it costs one test. */
static inline void weft_ofi_mark_dirty(struct weft_ofi_tx *tx, int pe)
{
    if (!tx->dirty[pe]) {
        tx->dirty[pe] = 1;
        tx->dirty_list[tx->ndirty++] = pe;
    }
}

/* Retry state for -FI_EAGAIN: progress, yield, and abort after the
 * WEFT_RETRY_TIMEOUT (naming the operation). tx: the endpoint that said
 * EAGAIN, progressed too when it is a context's (its resources come back
 * only as its own completions are processed; the shared progress engine
 * only drives the default endpoint); NULL for the default's. */
struct weft_ofi_retry {
    unsigned spins;
    long start;
};
void weft_ofi_retry_wait(struct weft_ofi_tx *tx, struct weft_ofi_retry *r, const char *what,
                         int pe);
/* Read one error completion from cq into err and its text into
 * weft_ofi.last_err (for messages); 0, or -1 when there was none. */
int weft_ofi_read_cq_error(struct fid_cq *cq, struct fi_cq_err_entry *err);
/* The provider (ofi_select.c): its refined fi_info, or NULL with a
 * warning. want_thread_safe_hint: ask for FI_THREAD_SAFE; *thread_on:
 * WEFT_PROGRESS_THREAD (1 on, 0 off, 2 auto); *delivery_asked: the user
 * asked for WEFT_REMOTE_COMPLETION=delivery. */
struct fi_info *weft_ofi_choose_provider(int want_thread_safe_hint, int *thread_on,
                                         int *delivery_asked);
/* 1 where provider prov's native atomics are known not to work, so every
 * atomic runs in software (ofi_select.c). */
int weft_ofi_native_atomics_broken(const char *prov);
/* The environment variable naming the network interface of provider prov
 * ("tcp;ofi_rxm": FI_TCP_IFACE), or NULL where it takes none
 * (ofi_diagnose.c). */
const char *weft_ofi_iface_var(const char *prov);
static inline int weft_ofi_progress_is_manual(const struct fi_info *fi)
{
    return fi->domain_attr->data_progress == FI_PROGRESS_MANUAL ||
           fi->domain_attr->control_progress == FI_PROGRESS_MANUAL;
}
/* Room for an endpoint's name in the blobs exchanged at start-up. */
#define WEFT_OFI_NAME_MAX 128
/* fi_getinfo hints for an RDM endpoint with RMA and messages, AV table,
 * the mr_mode bits weft handles (FI_MR_LOCAL if asked), on provider prov
 * (NULL or empty: any); NULL when out of memory. */
struct fi_info *weft_ofi_base_hints(const char *prov, int mr_local);
/* An FI_AV_TABLE address vector sized for the job, and a completion
 * counter, on domain: what every endpoint weft opens is bound to. 0 or
 * the provider's negative error. */
int weft_ofi_av_open(struct fid_domain *domain, struct fid_av **av);
int weft_ofi_cntr_open(struct fid_domain *domain, struct fid_cntr **cntr);
/* fi_endpoint, bind(ep, arg, what) and fi_enable, retried where shm's
 * region is busy. 0, or the failing call's code with *what naming it (the
 * endpoint closed). */
int weft_ofi_ep_open(struct fid_domain *domain, struct fi_info *fi, struct fid_ep **ep,
                     int (*bind)(struct fid_ep *ep, void *arg, const char **what), void *arg,
                     const char **what);
/* Abort on a libfabric error return. */
WEFT_NORETURN void weft_ofi_fail(const char *what, int pe, ssize_t rc);
/* The cause weft can see of a failure of provider prov (ofi_diagnose.c):
 * "; <sentence>" in buf (room len), or "" when it finds nothing wrong. */
const char *weft_ofi_diagnose(const char *prov, char *buf, size_t len);
/* Ends the job: the provider in use failed to open (what: the call, rc:
 * libfabric's error), with libfabric's error string and the cause. */
WEFT_NORETURN void weft_ofi_open_failed(const char *what, int rc);

/* Open tx's counters and endpoint on the domain and AV, bound to cq for
 * completions (cq_flags: FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION),
 * and allocate its dirty list and scratch. tx0 and contexts alike. 0 or -1
 * (with a warning for tx0, a debug line for contexts: their caller falls
 * back). Undo with weft_ofi_tx_close. */
int weft_ofi_tx_open(struct weft_ofi_tx *tx, struct fid_cq *cq, int warn);
void weft_ofi_tx_close(struct weft_ofi_tx *tx);

/* Contexts (ofi_ctx.c): the budget, set once the provider is known; the
 * progress thread's poke of contexts' endpoints; teardown at finalize. */
void weft_ofi_ctx_init(void);
void weft_ofi_ctx_poke(void);
void weft_ofi_ctx_quiet_all(void); /* finalize, before the last barrier */
void weft_ofi_ctx_fini(void);      /* finalize, closes what is left */

/* Coalesced puts (ofi_coalesce.c; weft_ofi_tx_close frees the buffers).
 * init: after the engine, once it is known whether a progress thread
 * runs; decides weft_ofi.put.coalesce. put: one put of len <=
 * WEFT_OFI_COAL_MAX_PUT bytes to pe (not this PE) through tx0. send: the
 * application sends what waits (a fence). flush_try: the same from wait
 * loops and the progress thread, skipped while someone else sends;
 * coal_poll: flush_try when anything waits. */
/* Within a record's 12-bit length (ofi_coalesce.c). */
#define WEFT_OFI_COAL_MAX_PUT 1024
void weft_ofi_coal_init(int thread_on);
void weft_ofi_coal_put(int seg, uint64_t off, const void *src, size_t len, int pe);
void weft_ofi_coal_put_word(uint64_t off, uint64_t bits, size_t len, int pe,
                            int seg); /* len <= 8 */
/* A put through tx coalesces: tx0 with coalescing on, len within the
 * limit, another PE, and not the first put after a fence unless
 * coalesced puts wait (weft_ofi_put_or_coalesce says why). */
static inline int weft_ofi_coal_takes(const struct weft_ofi_tx *tx, size_t len, int pe)
{
    return tx == &weft_ofi_tx0 && weft_ofi.put.coalesce && len && len <= WEFT_OFI_COAL_MAX_PUT &&
           pe != weft_rt.my_pe &&
           (!__atomic_load_n(&tx->coal_direct_next, __ATOMIC_RELAXED) ||
            (tx->enter_slow & WEFT_TX_COALESCED));
}
void weft_ofi_coal_flush_try(int from_thread);
void weft_ofi_coal_send(struct weft_ofi_tx *tx);
static inline void weft_ofi_coal_poll(void)
{
    if (WEFT_UNLIKELY(__atomic_load_n(&weft_ofi_tx0.coal_pub, __ATOMIC_RELAXED) !=
                      __atomic_load_n(&weft_ofi_tx0.coal_sent, __ATOMIC_RELAXED)))
        weft_ofi_coal_flush_try(0);
}

/* The pause of a wait for tx's replies (software atomics, acknowledged
 * put batches: am_done): for tx0 where weft_ofi.progress.arrivals is open,
 * a sleep in the provider until a message arrives, then progress;
 * elsewhere weft_poll_yield. */
void weft_ofi_reply_pause(struct weft_ofi_tx *tx, unsigned *spins);
/* Until tx's replies are all in (ofi_wait.c): one function, out of line,
 * so that tests/icount tells its polls from the rest of the call. */
void weft_ofi_wait_replies(struct weft_ofi_tx *tx);

/* weft_ofi_quiet for a caller that already holds tx (weft_ofi_tx_enter). */
void weft_ofi_quiet_held(struct weft_ofi_tx *tx);

/* Wait until the counters reach the issued counts; abort on errors. */
void weft_ofi_wait_writes(struct weft_ofi_tx *tx, const char *what);
/* The polls of tx's write (reads 0) or read counter once the first read
 * fell short (ofi_wait.c). */
void weft_ofi_wait_cntr_polling(struct weft_ofi_tx *tx, int reads, uint64_t issued,
                                const char *what);
/* Whether tx's write (reads 0) or read counter has reached issued, read
 * once at most: a count no higher than the one last read is answered
 * without calling the provider. reads is a constant at each caller, so
 * the choices fold. */
static inline int weft_ofi_cntr_reached(struct weft_ofi_tx *tx, int reads, uint64_t issued)
{
    uint64_t *done_seen = reads ? &tx->r_done_seen : &tx->w_done_seen;
    if (WEFT_LIKELY(*done_seen >= issued))
        return 1;
    uint64_t done = fi_cntr_read(reads ? tx->rcntr : tx->wcntr);
    if (WEFT_UNLIKELY(done < issued))
        return 0;
    *done_seen = done;
    return 1;
}
/* Wait until tx's write (reads 0) or read counter reaches issued: inline
 * where it is already there (quiet after injected puts), the polling loop
 * out of line. */
static inline void weft_ofi_wait_cntr(struct weft_ofi_tx *tx, int reads, uint64_t issued,
                                      const char *what)
{
    if (WEFT_UNLIKELY(!weft_ofi_cntr_reached(tx, reads, issued)))
        weft_ofi_wait_cntr_polling(tx, reads, issued, what);
}
void weft_ofi_wait_reads(struct weft_ofi_tx *tx, const char *what);
/* Whether tx's reads up to count (a value r_issued had) are done, without
 * waiting. */
int weft_ofi_reads_reached(struct weft_ofi_tx *tx, uint64_t count);
/* Nonzero while this thread waits for a context endpoint's completions,
 * which the shared CQ's descriptor does not cover (weft_ofi_can_block). */
extern __thread int weft_ofi_waiting_own_cq __attribute__((tls_model("initial-exec")));
/* weft_ofi_progress with a drain of the CQ that begins after the call
 * (waiting, if need be, for another thread's to end). */
void weft_ofi_progress_full(void);
/* weft_ofi_progress, saying whether this thread drained the CQ (0: another
 * thread was draining it, and may not have handled all it read yet). */
int weft_ofi_progress_try(void);

/* Large gets and puts over shm copied by the origin itself (ofi_cma.c).
 * min: gets of at least this many bytes are read by process_vm_readv;
 * wmin: puts of at least this many are written by process_vm_writev
 * (SIZE_MAX: off, the state everything starts and falls back to). */
struct weft_ofi_cma {
    size_t min;
    size_t wmin;
    uint64_t *base; /* [pe * WEFT_NSEGS + seg]: peers' segment addresses */
    int32_t *pid;   /* [pe]: the peer's process (0: read and written the ordered way) */
    uint64_t heads;    /* ordering reads */
    uint64_t reads;    /* gets read by CMA */
    uint64_t writes;   /* puts written by CMA */
    uint64_t deferred; /* of them, queued behind an ordering read */
};
extern struct weft_ofi_cma weft_ofi_cma;
/* Whether this PE will copy by CMA (the same test open makes first):
 * init then counts what peers apply here (served_cntr), which the copies'
 * ordering reads are checked against. */
int weft_ofi_cma_wanted(void);
/* What each PE publishes for copies by CMA at start-up: its process (0:
 * read and write it the ordered way). */
struct weft_ofi_cma_blob {
    int32_t pid;
};
/* Take the tables and fill mine; on any failure copies by CMA stay off. */
void weft_ofi_cma_open(struct weft_ofi_cma_blob *mine);
/* PE pe's blob and segment bases, once the blobs are exchanged. */
void weft_ofi_cma_connect(int pe, const struct weft_ofi_cma_blob *blob, const uint64_t *bases);
void weft_ofi_cma_close(void);
void weft_ofi_cma_abandon(void);
/* Part of a get of len >= weft_ofi_cma.min bytes from pe into dst: how
 * many of its first bytes are in place on return (0 to len; the caller
 * reads the rest the ordered way). With tx held. */
size_t weft_ofi_cma_get(struct weft_ofi_tx *tx, char *dst, int seg, uint64_t off, size_t len,
                        int pe);
/* A put of len >= weft_ofi_cma.wmin bytes from src to pe written by this
 * PE's own copy: 1 once it is in place (complete: quiet has nothing to wait
 * for) or, when not blocking, queued on tx behind an ordering read still
 * out (quiet and fence then copy it: weft_ofi_cma_settle); 0 when it must
 * go the ordered way. With tx held. */
int weft_ofi_cma_put(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                     int pe, int blocking);
/* Copy the puts queued on tx, waiting for their ordering read: before
 * quiet and fence count anything complete. With tx held. */
void weft_ofi_cma_settle(struct weft_ofi_tx *tx, const char *call);
/* A put through tx's own endpoint, as every large put went before
 * (ofi_rma.c). */
void weft_ofi_put_via_ep(struct weft_ofi_tx *tx, int seg, uint64_t off, const void *src, size_t len,
                         int pe, int blocking);
/* A get through tx's own endpoint, as every get went before (ofi_rma.c). */
void weft_ofi_get_via_ep(struct weft_ofi_tx *tx, void *dst, int seg, uint64_t off, size_t len,
                         int pe);

/* Atomics setup (ofi_amo.c): fill amo_query/dt_native. */
void weft_ofi_amo_init(void);

/* Progress thread (ofi_progress.c); wait_obj_init finds the CQ's wait
 * descriptor, once the CQ is open. */
void weft_ofi_wait_obj_init(void);
int weft_ofi_thread_start(void);
void weft_ofi_thread_stop(void);

#pragma GCC visibility pop

#endif

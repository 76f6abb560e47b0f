/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_engine.c owns the collective algorithms shared by the team routines
 * and the deprecated active-set routines (see coll.h for sessions and
 * counters):
 *   barrier     dissemination, ceil(log2 n) rounds
 *   broadcast   binomial tree from the root, pipelined in chunks, the data
 *               written straight into the children's dest
 *   allreduce   team mode: recursive doubling through per-round double
 *               buffers in the team's slot, non-powers of two folded in and
 *               out (the result is bitwise identical on every PE: each
 *               round combines (lower rank, higher rank) in that order);
 *               from WEFT_COLL_REDUCE_SCATTER_MIN bytes,
 *               Rabenseifner's on the whole vector: reduce-scatter by
 *               recursive halving through dest, then allgather by
 *               recursive doubling, combining in the same order as
 *               recursive doubling;
 *               active-set mode: binomial-tree reduction in dest (parents
 *               get their children's partials), then a broadcast from the
 *               root, so pWrk is never needed
 *   scan        Hillis-Steele, a barrier closing each chunk
 *   fcollect    Bruck's gather, ceil(log2 n) rounds of doubling size
 *   collect     team mode: Bruck's gather of the lengths into the slot,
 *               then Bruck's gather of the data at the offsets they give;
 *               active-set mode (no scratch to gather lengths into): as
 *               alltoall after a prefix sum of the lengths
 *   alltoall(s)
 *               every PE puts its blocks straight into the others' dest
 *               (pairwise order: PE me+i at step i), then quiet + barrier.
 * None keeps O(PEs) state, but for the team collect's offsets (n + 1
 * words in a private buffer of the calling thread). */
#include <stdlib.h>
#include <string.h>

#include <weft/info.h>

#include "api/coll.h"
#include "api/coll_schedule.h"
#include "core/tunables.h"

#define WEFT_BCAST_CHUNK ((size_t)64 * 1024) /* smallest pipelining unit of broadcasts */
#define WEFT_TREE_CHUNK ((size_t)16 * 1024)  /* get unit of the active-set reduction */

/* ---- private buffers: one pair per thread, since the application thread
 * and the non-blocking collectives' engine (coll_nb.c) run algorithms at
 * the same time. The engine frees its pair as it exits. ----------------- */
static __thread void *buf[2];
static __thread size_t cap[2];

void weft_coll_free_buffers(void)
{
    for (int i = 0; i < 2; i++) {
        free(buf[i]);
        buf[i] = NULL;
        cap[i] = 0;
    }
}

static void *priv_buf(int which, size_t len)
{
    if (len > cap[which]) {
        void *p = realloc(buf[which], len);
        if (!p)
            weft_fatal("shmem collective", "out of private memory (%zu bytes)", len);
        buf[which] = p;
        cap[which] = len;
    }
    return buf[which];
}

/* ---- what the algorithms sent and waited for (weft/info.h) ---------------- */
/* initial-exec: an add to a fixed offset from the thread pointer, where the
 * default model would call __tls_get_addr on every signal and wait. */
static __thread uint64_t sent_messages __attribute__((tls_model("initial-exec")));
static __thread uint64_t signal_waits __attribute__((tls_model("initial-exec")));

WEFT_EXPORT void weftx_info_coll_counts(uint64_t *messages, uint64_t *waits)
{
    *messages = sent_messages;
    *waits = signal_waits;
}

/* ---- sessions and counters ------------------------------------------------ */
int weft_coll_team_begin(struct weft_coll *c, const char *call, shmem_team_t team)
{
    weft_check_init(call);
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    /* The team's counters are the engine's until its queued collectives on
     * this team are done: they come first in the team's order anyway. */
    weft_coll_nb_drain(team);
    weft_coll_team_session(c, call, team, &weft_ctx_default);
    return 0;
}

void weft_coll_team_session(struct weft_coll *c, const char *call, struct weft_team *team,
                            struct weft_ctx *ctx)
{
    c->ctx = ctx;
    c->engine = 0;
    c->call = call;
    c->team = team;
    c->n = team->size;
    c->me = team->my_pe;
    c->psync = 0;
    c->remap = 0;
    c->expect = team->expect;
    if (team->slot >= 0) {
        c->flags = weft_team_flags(team->slot);
        c->fseg = WEFT_SEG_HEAP;
        c->foff = weft_team_slot_off(team->slot);
    } else {
        c->flags = NULL;
        c->fseg = WEFT_SEG_HEAP;
        c->foff = 0;
    }
}

#define WEFT_PSYNC_LONGS 64

void weft_coll_aset_begin(struct weft_coll *c, struct weft_team *as, const char *call,
                          int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    weft_check_init(call);
    long last = -1;
    if (PE_size >= 1 && logPE_stride >= 0 && logPE_stride < 31 && PE_start >= 0)
        last = (long)PE_start + ((long)(PE_size - 1) << logPE_stride);
    if (last < 0 || last >= weft_rt.n_pes)
        weft_fatal(call, "invalid active set PE_start=%d logPE_stride=%d PE_size=%d: its PEs "
                   "must lie in [0, %d)", PE_start, logPE_stride, PE_size, weft_rt.n_pes);
    memset(as, 0, sizeof *as);
    as->start = PE_start;
    as->stride = 1 << logPE_stride;
    as->size = PE_size;
    as->slot = WEFT_TEAM_NO_SLOT;
    as->my_pe = weft_team_index_of(as, weft_rt.my_pe);
    if (as->my_pe < 0)
        weft_fatal(call, "this PE (%d) is not in the active set PE_start=%d logPE_stride=%d "
                   "PE_size=%d", weft_rt.my_pe, PE_start, logPE_stride, PE_size);
    if (!pSync)
        weft_fatal(call, "argument pSync is NULL");
    if (((uintptr_t)pSync & 7) != 0)
        weft_fatal(call, "argument pSync=%p is not aligned to a long", (void *)pSync);
    int seg;
    uint64_t off;
    weft_sym_resolve_or_die(call, "pSync", pSync, WEFT_PSYNC_LONGS * sizeof(long), &seg, &off);
    c->ctx = &weft_ctx_default;
    c->engine = 0;
    c->call = call;
    c->team = as;
    c->n = PE_size;
    c->me = as->my_pe;
    c->flags = (uint64_t *)pSync;
    c->fseg = seg;
    c->foff = off;
    c->psync = 1;
    c->remap = WEFT_COLL_REMAP_PSYNC;
    memset(c->psync_expect, 0, sizeof c->psync_expect);
    c->expect = c->psync_expect;
}

/* The node leaders' session (coll_hier.c): the barrier, broadcast and
 * reduction counters moved to the leaders' own range. The leaders run
 * nothing else, and their rounds stay below WEFT_HIER_LEAD_ROUNDS. */
static int leaders_cidx(const struct weft_coll *c, int idx)
{
    if (idx >= WEFT_TF_L_BARRIER && idx < WEFT_TF_L_DATA)
        return idx; /* named in the leaders' range already */
    if (idx >= WEFT_TF_BARRIER && idx < WEFT_TF_BARRIER + WEFT_HIER_LEAD_ROUNDS)
        return WEFT_TF_L_BARRIER + (idx - WEFT_TF_BARRIER);
    if (idx >= WEFT_TF_BCAST && idx < WEFT_TF_BCAST + WEFT_HIER_LEAD_ROUNDS)
        return WEFT_TF_L_BCAST + (idx - WEFT_TF_BCAST);
    if (idx >= WEFT_TF_RED_ROUND && idx < WEFT_TF_RED_ROUND + WEFT_HIER_LEAD_ROUNDS)
        return WEFT_TF_L_RED_ROUND + (idx - WEFT_TF_RED_ROUND);
    if (idx == WEFT_TF_READY)
        return WEFT_TF_L_READY;
    if (idx == WEFT_TF_RED_PRE)
        return WEFT_TF_L_RED_PRE;
    if (idx == WEFT_TF_RED_POST)
        return WEFT_TF_L_RED_POST;
    weft_fatal(c->call, "internal error: counter %d has no node leaders' slot", idx);
}

/* Counter index: identity in a team slot; the leaders' range for the node
 * leaders' session; folded into the 64 longs of a pSync (barrier rounds
 * 0-30; broadcast and fcollect READY 31, the round a barrier of fewer than
 * 2^31 PEs never reaches; broadcast/fcollect/scan rounds 32-62; UP 63).
 * Routines that share a region never run on one pSync at once (the spec
 * requires the pSync to be free). */
static inline int cidx(const struct weft_coll *c, int idx)
{
    if (!c->remap)
        return idx;
    if (c->remap == WEFT_COLL_REMAP_LEADERS)
        return leaders_cidx(c, idx);
    if (idx == WEFT_TF_READY || idx == WEFT_TF_GATHER_READY)
        return 31;
    if (idx < WEFT_TF_BCAST)
        return idx - WEFT_TF_BARRIER;
    if (idx < WEFT_TF_RED_PRE)
        return 32 + (idx - WEFT_TF_BCAST);
    if (idx >= WEFT_TF_SCAN && idx < WEFT_TF_UP)
        return 32 + (idx - WEFT_TF_SCAN);
    if (idx == WEFT_TF_UP)
        return 63;
    weft_fatal(c->call, "internal error: counter %d has no pSync slot", idx);
}

static inline int wpe(const struct weft_coll *c, int i) { return weft_team_world_pe(c->team, i); }

/* Add v to counter idx of team member pe; fence first when data precedes. */
void weft_coll_signal(struct weft_coll *c, int idx, int pe, int fence, int64_t v)
{
    if (fence)
        weft_transport_fence(c->ctx);
    sent_messages++;
    uint64_t off = c->foff + (uint64_t)cidx(c, idx) * sizeof(uint64_t);
    weft_transport_signal_add(c->ctx, c->fseg, off, (uint64_t)v, wpe(c, pe));
}

/* len bytes from src to (seg, off) at team member pe, then 1 added to its
 * counter idx, never seen there before the bytes: one counted write where
 * the transport has them (transport.h, weft_transport_put_count), so no
 * fence waits for the data between. src is free on return. Team slot
 * sessions only (the carrier word is the slot's). */
void weft_coll_put_signal(struct weft_coll *c, int seg, uint64_t off, const void *src, size_t len,
                          int idx, int pe)
{
    sent_messages += 2; /* a put and a signal, as the counts define them */
    weft_transport_put_count(c->ctx, seg, off, src, len,
                             c->foff + (uint64_t)cidx(c, idx) * sizeof(uint64_t),
                             c->foff + (uint64_t)WEFT_TF_NB_CARRIER * sizeof(uint64_t), 1,
                             wpe(c, pe), 0);
}

/* What the hang report prints for a PE blocked on counter m (sync.c). */
static void record_coll_wait(const struct weft_coll *c, int m, uint64_t want)
{
    weft_wait.call = c->call;
    weft_wait.team = c->team;
    weft_wait.addr = &c->flags[m];
    weft_wait.want = want;
    weft_wait.kind = WEFT_WAIT_COLL;
}

static inline void coll_wait(struct weft_coll *c, int idx, uint64_t count, int onnode)
{
    int m = cidx(c, idx);
    uint64_t want = (c->expect[m] += count);
    signal_waits += count != 0;
    if (__atomic_load_n(&c->flags[m], __ATOMIC_ACQUIRE) >= want)
        return;
    record_coll_wait(c, m, want);
    unsigned spins = 0;
    uint64_t v;
    while ((v = __atomic_load_n(&c->flags[m], __ATOMIC_ACQUIRE)) < want) {
        if (c->engine)
            weft_coll_engine_pause(c->ctx, &spins);
        else if (onnode)
            weft_poll_onnode_sleep(&c->flags[m], 0, v, &spins);
        else if (c->remap == WEFT_COLL_REMAP_LEADERS)
            weft_poll_remote_sleep(&c->flags[m], v, &spins);
        else
            weft_poll_yield(&spins);
    }
    weft_wait.kind = WEFT_WAIT_NONE;
}

void weft_coll_wait(struct weft_coll *c, int idx, uint64_t count)
{
    coll_wait(c, idx, count, 0);
}

void weft_coll_wait_onnode(struct weft_coll *c, int idx, uint64_t count)
{
    coll_wait(c, idx, count, 1);
}

/* pSync mode only: wait for a value-carrying signal (value + 1 added). */
static uint64_t coll_wait_value(struct weft_coll *c, int idx)
{
    int m = cidx(c, idx);
    uint64_t v;
    unsigned spins = 0;
    signal_waits++;
    record_coll_wait(c, m, 1);
    while ((v = __atomic_load_n(&c->flags[m], __ATOMIC_ACQUIRE)) == 0)
        weft_poll_yield(&spins);
    weft_wait.kind = WEFT_WAIT_NONE;
    c->expect[m] += v;
    return v - 1;
}

void weft_coll_end(struct weft_coll *c)
{
    if (!c->psync)
        return;
    for (int m = 0; m < WEFT_PSYNC_LONGS; m++) {
        if (!c->expect[m])
            continue;
        int64_t neg = -(int64_t)c->expect[m], old;
        uint64_t off = c->foff + (uint64_t)m * sizeof(uint64_t);
        /* Peers of the next call on this pSync may already be adding to
         * it: subtract atomically. A CPU atomic where that is atomic
         * against theirs; else a blocking atomic to ourselves through the
         * provider (a loopback round trip), done before we return so our
         * next wait cannot see this call's counts. */
        if (weft_transport_self_amo_is_cpu(WEFT_DT_I64))
            __atomic_fetch_add((int64_t *)(void *)(weft_rt.seg[c->fseg].base + off), neg,
                               __ATOMIC_ACQ_REL);
        else
            weft_transport_amo(c->ctx, WEFT_AMO_ADD, WEFT_DT_I64, c->fseg, off, &neg, NULL, &old,
                               weft_rt.my_pe);
        c->expect[m] = 0;
    }
}

static inline int log2_exact(long m)
{
    return __builtin_ctzl((unsigned long)m);
}

static void resolve(const struct weft_coll *c, const char *arg, const void *p, size_t len,
                    int *seg, uint64_t *off)
{
    weft_sym_resolve_or_die(c->call, arg, p, len, seg, off);
}

static void put_to(const struct weft_coll *c, int seg, uint64_t off, const void *src, size_t len,
                   int pe)
{
    if (len) {
        sent_messages++;
        weft_transport_put(c->ctx, seg, off, src, len, wpe(c, pe));
    }
}

/* put_to, then 1 added to counter idx of pe, never seen there before the
 * data: in a team slot session one counted write (weft_coll_put_signal:
 * no fence, which over tcp after a message is a quiet, a round trip that
 * waits for pe's progress), else a put, a fence and a signal. */
static void put_then_signal(struct weft_coll *c, int seg, uint64_t off, const void *src,
                            size_t len, int idx, int pe)
{
    if (!c->psync && len) {
        weft_coll_put_signal(c, seg, off, src, len, idx, pe);
        return;
    }
    put_to(c, seg, off, src, len, pe);
    weft_coll_signal(c, idx, pe, 1, 1);
}

/* ---- barrier --------------------------------------------------------------- */
void weft_coll_barrier(struct weft_coll *c)
{
    int n = c->n, me = c->me;
    if (n <= 1)
        return;
    struct weft_hier *h = weft_coll_hier_for(c, WEFT_HIER_BARRIER, 0);
    if (h) {
        weft_coll_hier_barrier(c, h);
        return;
    }
    int rounds = weft_sched_rounds(n);
    for (int r = 0; r < rounds; r++) {
        weft_coll_signal(c, WEFT_TF_BARRIER + r, weft_sched_barrier_to(me, n, r), 0, 1);
        weft_coll_wait(c, WEFT_TF_BARRIER + r, 1);
    }
}

/* ---- broadcast ------------------------------------------------------------- */
void weft_coll_bcast(struct weft_coll *c, void *dest, const void *source, size_t len, int root,
                     int flags)
{
    int n = c->n, me = c->me;
    if (len == 0)
        return;
    if (me == root && (flags & WEFT_BCAST_ROOT_COPIES) && dest != source)
        memmove(dest, source, len);
    if (n == 1)
        return;
    struct weft_hier *h;
    if ((flags & WEFT_BCAST_ROOT_COPIES) && (flags & WEFT_BCAST_WAIT_READY) &&
        (h = weft_coll_hier_for(c, WEFT_HIER_BCAST, len))) {
        weft_coll_hier_bcast(c, h, dest, source, len, root);
        return;
    }
    int seg;
    uint64_t off;
    resolve(c, "dest", dest, len, &seg, &off);
    long vr = ((long)me - root + n) % n;
    /* Children are vr + m for every power of two m below vr's lowest set
     * bit (below n for the root); the parent is vr - lowbit(vr). */
    long limit = weft_sched_tree_limit(vr, n);
    const char *from = vr ? (const char *)dest : (const char *)source;
    long top = weft_sched_tree_top(limit);
    int children = weft_sched_tree_children(vr, n);
    /* A PE's dest is written only once that PE is inside this broadcast:
     * each child says so to its parent on entry, and a parent waits for
     * its children before its first put. Without it a root that runs
     * ahead (it waits for nobody) writes the next broadcast into a dest
     * its owner is still reading or refilling; the spec makes that the
     * caller's problem, but programs written for other implementations
     * call broadcasts back to back. docs/collectives.md has the cost. */
    if (flags & WEFT_BCAST_WAIT_READY) {
        if (vr)
            weft_coll_signal(c, WEFT_TF_READY, (int)((weft_sched_tree_parent(vr) + root) % n), 0, 1);
        if (children)
            weft_coll_wait(c, WEFT_TF_READY, (uint64_t)children);
    }
    /* Pipelining only pays where the tree has interior hops: with depth d
     * and k chunks a broadcast takes about k + d - 1 chunk times, and each
     * chunk costs a fence and a signal per child. So one chunk when d = 1
     * (2 PEs), else about 4 chunks per interior hop, none below 64 KiB. */
    int depth = weft_sched_rounds(n);
    size_t chunk = depth <= 1 ? len : len / (size_t)(4 * (depth - 1) + 1);
    if (chunk < WEFT_BCAST_CHUNK)
        chunk = WEFT_BCAST_CHUNK;
    for (size_t o = 0; o < len; o += chunk) {
        size_t l = len - o < chunk ? len - o : chunk;
        if (vr)
            weft_coll_wait(c, WEFT_TF_BCAST + log2_exact(vr & -vr), 1);
        int any = 0;
        for (long m = top; m >= 1; m >>= 1) {
            if (!weft_sched_tree_is_child(vr, m, limit, n))
                continue;
            /* nbi: the puts to several children overlap; the fence keeps
             * each chunk ahead of its count. */
            sent_messages++;
            weft_transport_put_nbi(c->ctx, seg, off + o, from + o, l,
                                   wpe(c, (int)((vr + m + root) % n)));
            any = 1;
        }
        if (!any)
            continue;
        weft_transport_fence(c->ctx);
        for (long m = top; m >= 1; m >>= 1) {
            if (!weft_sched_tree_is_child(vr, m, limit, n))
                continue;
            weft_coll_signal(c, WEFT_TF_BCAST + log2_exact(m), (int)((vr + m + root) % n), 0, 1);
        }
    }
    /* No quiet needed before returning: a put that may still read source
     * (root) or dest (interior PEs) after we return is one larger than the
     * inject size, and the fence above completed it (the libfabric fence);
     * injected puts copied their data, direct ones are memmoves. */
}

/* ---- collect / fcollect / alltoall(s) -------------------------------------- */
static void quiet_barrier(struct weft_coll *c)
{
    weft_transport_quiet(c->ctx);
    weft_coll_barrier(c);
}

/* Bruck's gather, the blocks sent straight into the next PE's dest: in
 * round k a PE puts the blocks it holds (up to 2^k, the ones ending at its
 * own, one or two runs of dest as they wrap) to me + 2^k, then signals it;
 * ceil(log2 n) rounds, one or two puts and one signal each, every block
 * sent once per PE it reaches (n - 1 blocks in all per PE, as pairwise
 * puts would). A PE forwards in round k what it received in round k - 1,
 * so a writer that ran ahead into the next call must not overwrite it:
 * each PE tells its writers it has entered (GATHER_READY), and a writer
 * waits for all its readers before its first put. That also keeps a PE's
 * dest untouched until it makes the call, and needs no closing barrier. */
/* Byte offset in dest of block i (0 <= i <= n): offs[i] when the blocks
 * differ in length (collect), i * len when they are equal (fcollect). */
static inline size_t block_at(const size_t *offs, size_t len, long i)
{
    return offs ? offs[i] : (size_t)i * len;
}

static void gather_put(struct weft_coll *c, int seg, uint64_t off, const char *d,
                       const size_t *offs, size_t len, long first, long end, int to)
{
    size_t at = block_at(offs, len, first);
    put_to(c, seg, off + at, d + at, block_at(offs, len, end) - at, to);
}

/* Bruck's gather of the n blocks of d (local) = (seg, off) (every PE's),
 * the caller's own block already in place. announce: first tell the
 * writers this PE has entered (see above); a second gather in the same
 * call does without, its writers' readers having said so already. */
static void bruck_gather(struct weft_coll *c, char *d, int seg, uint64_t off, const size_t *offs,
                         size_t len, int announce)
{
    int n = c->n, me = c->me;
    int rounds = weft_sched_rounds(n);
    if (announce) {
        for (int k = 0; k < rounds; k++)
            weft_coll_signal(c, WEFT_TF_GATHER_READY, weft_sched_gather_from(me, n, k), 0, 1);
        weft_coll_wait(c, WEFT_TF_GATHER_READY, (uint64_t)rounds);
    }
    for (int k = 0; k < rounds; k++) {
        if (k)
            weft_coll_wait(c, WEFT_TF_BCAST + k - 1, 1);
        long count = weft_sched_gather_count(n, k);
        long first = ((long)me - count + 1 + n) % n;
        int to = weft_sched_gather_to(me, n, k);
        if (first + count <= n) {
            gather_put(c, seg, off, d, offs, len, first, first + count, to);
        } else {
            gather_put(c, seg, off, d, offs, len, first, n, to);
            gather_put(c, seg, off, d, offs, len, 0, first + count - n, to);
        }
        weft_coll_signal(c, WEFT_TF_BCAST + k, to, 1, 1);
    }
    weft_coll_wait(c, WEFT_TF_BCAST + rounds - 1, 1);
}

void weft_coll_fcollect(struct weft_coll *c, void *dest, const void *source, size_t len)
{
    int n = c->n, me = c->me;
    if (len == 0)
        return;
    char *d = dest;
    struct weft_hier *h;
    if (n > 1 && (h = weft_coll_hier_for(c, WEFT_HIER_FCOLLECT, len))) {
        weft_coll_hier_fcollect(c, h, dest, source, len);
        return;
    }
    memmove(d + (size_t)me * len, source, len);
    if (n == 1)
        return;
    int seg;
    uint64_t off;
    resolve(c, "dest", d, (size_t)n * len, &seg, &off);
    bruck_gather(c, d, seg, off, NULL, len, 1);
}

/* Active-set collect: prefix sum of the lengths, every PE's block put
 * straight to every other PE, quiet, barrier. */
static void collect_pairwise(struct weft_coll *c, char *d, const void *source, size_t len)
{
    int n = c->n, me = c->me;
    size_t at = weft_coll_exscan_size(c, len);
    if (len) {
        int seg;
        uint64_t off;
        resolve(c, "dest", d + at, len, &seg, &off);
        for (int i = 1; i < n; i++)
            put_to(c, seg, off, source, len, weft_sched_pairwise_to(me, n, i));
        memmove(d + at, source, len);
    }
    quiet_barrier(c);
}

/* Team collect: the lengths (one 64-bit word per PE) are gathered first,
 * by Bruck's gather into the slot's reduction buffers, then the data by
 * Bruck's gather at the offsets they give. The lengths' region is free:
 * every signal into it was awaited by its reader in the call that sent it,
 * and no PE leaves the data gather before every PE started it, so no
 * later collective writes the region before its owner read the lengths. */
void weft_coll_collect(struct weft_coll *c, void *dest, const void *source, size_t len)
{
    int n = c->n, me = c->me;
    char *d = dest;
    if (n == 1) {
        if (len)
            memmove(d, source, len);
        return;
    }
    size_t region = 2 * weft_team_red_region_bytes();
    if (c->psync || (size_t)n * sizeof(uint64_t) > region) {
        collect_pairwise(c, d, source, len);
        return;
    }
    uint64_t *lens = (uint64_t *)(void *)((char *)c->flags + weft_team_red_region(0));
    lens[me] = len;
    bruck_gather(c, (char *)lens, WEFT_SEG_HEAP, c->foff + weft_team_red_region(0), NULL,
                 sizeof(uint64_t), 1);
    size_t *offs = priv_buf(1, ((size_t)n + 1) * sizeof(size_t));
    offs[0] = 0;
    for (int i = 0; i < n; i++)
        offs[i + 1] = offs[i] + (size_t)lens[i];
    if (len)
        memmove(d + offs[me], source, len);
    if (offs[n] == 0)
        return; /* every PE knows: nothing to gather */
    int seg;
    uint64_t off;
    resolve(c, "dest", d, offs[n], &seg, &off);
    bruck_gather(c, d, seg, off, offs, 0, 0);
}

void weft_coll_alltoall(struct weft_coll *c, void *dest, const void *source, size_t len)
{
    int n = c->n, me = c->me;
    if (len == 0)
        return;
    char *d = dest;
    const char *s = source;
    if (n > 1) {
        int seg;
        uint64_t off;
        resolve(c, "dest", d + (size_t)me * len, len, &seg, &off);
        for (int i = 1; i < n; i++) {
            int j = weft_sched_pairwise_to(me, n, i);
            put_to(c, seg, off, s + (size_t)j * len, len, j);
        }
    }
    memmove(d + (size_t)me * len, s + (size_t)me * len, len);
    quiet_barrier(c);
}

void weft_coll_alltoalls(struct weft_coll *c, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t esz, size_t nelems)
{
    int n = c->n, me = c->me;
    if (nelems == 0)
        return;
    char *d = dest;
    const char *s = source;
    /* Block j of source: elements (j*nelems + e)*sst; it lands at
     * (me*nelems + e)*dst of PE j's dest. */
    ptrdiff_t dblk = (ptrdiff_t)((size_t)me * nelems) * dst * (ptrdiff_t)esz;
    ptrdiff_t span = ((ptrdiff_t)nelems - 1) * dst * (ptrdiff_t)esz + (ptrdiff_t)esz;
    if (n > 1) {
        int seg;
        uint64_t off;
        resolve(c, "dest", d + dblk, (size_t)span, &seg, &off);
        for (int i = 1; i < n; i++) {
            int j = weft_sched_pairwise_to(me, n, i);
            const char *sb = s + (ptrdiff_t)((size_t)j * nelems) * sst * (ptrdiff_t)esz;
            sent_messages++;
            weft_transport_iput(c->ctx, seg, off, dst * (ptrdiff_t)esz, sb, sst * (ptrdiff_t)esz, esz,
                                nelems, wpe(c, j));
        }
    }
    const char *sb = s + (ptrdiff_t)((size_t)me * nelems) * sst * (ptrdiff_t)esz;
    for (size_t e = 0; e < nelems; e++)
        memmove(d + dblk + (ptrdiff_t)e * dst * (ptrdiff_t)esz,
                sb + (ptrdiff_t)e * sst * (ptrdiff_t)esz, esz);
    quiet_barrier(c);
}

/* ---- scans ----------------------------------------------------------------- */
static void add_size(void *out, const void *a, const void *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((size_t *)out)[i] = ((const size_t *)a)[i] + ((const size_t *)b)[i];
}

/* One Hillis-Steele pass over a chunk of m elements in acc (inclusive) and
 * ex (exclusive, may be NULL). Team mode: through the slot's scan buffers;
 * the caller closes with a barrier before those buffers are written again. */
static void scan_pass(struct weft_coll *c, char *acc, char *ex, size_t m, size_t esz,
                      weft_red_fn op)
{
    int n = c->n, me = c->me;
    char *slot = (char *)c->flags;
    uint64_t soff = c->foff;
    size_t bytes = m * esz;
    int rounds = weft_sched_rounds(n);
    for (int k = 0; k < rounds; k++) {
        int to = weft_sched_scan_to(me, n, k);
        if (to >= 0) {
            put_to(c, WEFT_SEG_HEAP, soff + weft_team_scan_buf(k), acc, bytes, to);
            weft_coll_signal(c, WEFT_TF_SCAN + k, to, 1, 1);
        }
        if (weft_sched_scan_from(me, k) >= 0) {
            weft_coll_wait(c, WEFT_TF_SCAN + k, 1);
            const char *in = slot + weft_team_scan_buf(k);
            op(acc, in, acc, m);
            if (ex)
                op(ex, in, ex, m);
        }
    }
}

size_t weft_coll_exscan_size(struct weft_coll *c, size_t v)
{
    int n = c->n, me = c->me;
    if (c->psync) {
        /* The value travels in the signal itself: v + 1 added to a zero long. */
        size_t acc = v, ex = 0;
        int rounds = weft_sched_rounds(n);
        for (int k = 0; k < rounds; k++) {
            int to = weft_sched_scan_to(me, n, k);
            if (to >= 0)
                weft_coll_signal(c, WEFT_TF_SCAN + k, to, 0, (int64_t)acc + 1);
            if (weft_sched_scan_from(me, k) >= 0) {
                size_t in = (size_t)coll_wait_value(c, WEFT_TF_SCAN + k);
                acc += in;
                ex += in;
            }
        }
        return ex;
    }
    size_t acc = v, ex = 0;
    if (n > 1)
        scan_pass(c, (char *)&acc, (char *)&ex, 1, sizeof(size_t), add_size);
    return ex; /* the caller's closing barrier frees the scan buffers */
}

void weft_coll_scan(struct weft_coll *c, void *dest, const void *source, size_t count,
                    size_t esz, weft_red_fn op, int exclusive)
{
    int n = c->n;
    size_t bytes = count * esz;
    if (count == 0)
        return;
    if (n == 1) {
        if (exclusive)
            memset(dest, 0, bytes);
        else if (dest != source)
            memmove(dest, source, bytes);
        return;
    }
    size_t cap = weft_team_pool.chunk / esz;
    char *acc = priv_buf(0, cap * esz), *ex = exclusive ? priv_buf(1, cap * esz) : NULL;
    for (size_t o = 0; o < count; o += cap) {
        size_t m = count - o < cap ? count - o : cap;
        memcpy(acc, (const char *)source + o * esz, m * esz);
        if (ex)
            memset(ex, 0, m * esz);
        scan_pass(c, acc, ex, m, esz, op);
        memcpy((char *)dest + o * esz, ex ? ex : acc, m * esz);
        weft_coll_barrier(c);
    }
}

/* ---- reductions ------------------------------------------------------------ */
static void allreduce_rd(struct weft_coll *c, void *dest, const void *source, size_t count,
                         size_t esz, weft_red_fn op)
{
    struct weft_team *t = c->team;
    int n = c->n, me = c->me;
    int dseg;
    uint64_t doff;
    resolve(c, "dest", dest, count * esz, &dseg, &doff);
    int p2 = weft_sched_rd_p2(n), R = weft_sched_rounds(p2);
    int rem = n - p2;
    int pre = weft_team_pool.rounds; /* buffer index of the fold-in */
    char *slot = (char *)c->flags;
    uint64_t soff = c->foff;
    size_t cap = weft_team_pool.chunk / esz;
    char *acc = priv_buf(0, cap * esz);
    for (size_t o = 0; o < count; o += cap) {
        size_t m = count - o < cap ? count - o : cap, bytes = m * esz;
        int par = (int)(t->red_chunks++ & 1);
        memcpy(acc, (const char *)source + o * esz, bytes);
        if (me >= p2) {
            /* Fold in to me - p2, which sends the result back into dest. */
            put_then_signal(c, WEFT_SEG_HEAP, soff + weft_team_red_buf(pre, par), acc, bytes,
                            WEFT_TF_RED_PRE, me - p2);
            weft_coll_wait(c, WEFT_TF_RED_POST, 1);
            continue;
        }
        if (me < rem) {
            weft_coll_wait(c, WEFT_TF_RED_PRE, 1);
            op(acc, acc, slot + weft_team_red_buf(pre, par), m);
        }
        for (int k = 0; k < R; k++) {
            int q = weft_sched_rd_partner(me, k);
            put_then_signal(c, WEFT_SEG_HEAP, soff + weft_team_red_buf(k, par), acc, bytes,
                            WEFT_TF_RED_ROUND + k, q);
            weft_coll_wait(c, WEFT_TF_RED_ROUND + k, 1);
            const char *in = slot + weft_team_red_buf(k, par);
            if (me < q)
                op(acc, acc, in, m);
            else
                op(acc, in, acc, m);
        }
        memcpy((char *)dest + o * esz, acc, bytes);
        if (me < rem)
            put_then_signal(c, dseg, doff + o * esz, acc, bytes, WEFT_TF_RED_POST, me + p2);
    }
}

/* From how many bytes a reduction reduce-scatters (the same on every PE). */
static size_t reduce_scatter_min(void)
{
    static size_t cached; /* the value + 1; 0: not read yet */
    size_t v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (!v) {
        v = weft_tun_size(WEFT_TUN_COLL_REDUCE_SCATTER_MIN) + 1;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v - 1;
}

/* Rabenseifner's allreduce on the whole vector, through dest: with
 * n - p2 members folded in and out as in allreduce_rd, the p2 others
 * reduce-scatter by recursive halving, then allgather by recursive
 * doubling. Round k of the reduce-scatter: me and q = me ^ 2^k split the
 * range they both hold (count elements at first), the one with bit k
 * clear keeping the lower half (the larger one when the range is odd);
 * each puts the other half into the other's dest where the other's half
 * sent this round lies (a range nobody else writes until the allgather),
 * the element that does not fit when the halves differ into a spot of the
 * slot, and combines (lower rank, higher rank): recursive doubling's tree
 * element by element, so the results are bitwise identical to it. The
 * allgather's round k puts the range held into q's dest, once q said it
 * has combined its round-k half there. Signals on q's RED_ROUND + k, in
 * this order, all fenced: data, "combined", allgather data. Before any
 * put, each PE copies its source and tells its writers it has entered
 * (READY), so dest == source works and no dest is written early. */
#define WEFT_RSAG_SPOT 32 /* bytes: the largest element */

static void combine(weft_red_fn op, char *acc, const char *in, size_t m, int mine_first)
{
    if (m) {
        if (mine_first)
            op(acc, acc, in, m);
        else
            op(acc, in, acc, m);
    }
}

static void allreduce_rsag(struct weft_coll *c, void *dest, const void *source, size_t count,
                           size_t esz, weft_red_fn op)
{
    int n = c->n, me = c->me;
    size_t bytes = count * esz;
    int dseg;
    uint64_t doff;
    resolve(c, "dest", dest, bytes, &dseg, &doff);
    int p2 = weft_sched_rd_p2(n), R = weft_sched_rounds(p2);
    int rem = n - p2;
    char *d = dest;
    char *acc = priv_buf(0, bytes);
    memcpy(acc, source, bytes);
    const char *spots = (const char *)c->flags + weft_team_red_region(0);
    uint64_t spots_off = c->foff + weft_team_red_region(0);
    if (me >= p2) {
        /* Folded in: into me - p2's dest once it copied its source. */
        weft_coll_wait(c, WEFT_TF_READY, 1);
        put_to(c, dseg, doff, acc, bytes, me - p2);
        weft_coll_signal(c, WEFT_TF_RED_PRE, me - p2, 1, 1);
        weft_coll_wait(c, WEFT_TF_RED_POST, 1);
        return;
    }
    if (me < rem) {
        weft_coll_signal(c, WEFT_TF_READY, me + p2, 0, 1);
        weft_coll_wait(c, WEFT_TF_RED_PRE, 1);
        op(acc, acc, d, count);
    }
    for (int k = 0; k < R; k++)
        weft_coll_signal(c, WEFT_TF_READY, weft_sched_rd_partner(me, k), 0, 1);
    weft_coll_wait(c, WEFT_TF_READY, (uint64_t)R);
    size_t lo = 0, len = count, lo_of[WEFT_TEAM_ROUNDS], len_of[WEFT_TEAM_ROUNDS];
    for (int k = 0; k < R; k++) {
        int q = weft_sched_rd_partner(me, k);
        size_t lower = (len + 1) / 2;
        size_t keep_lo = me < q ? lo : lo + lower, keep_len = me < q ? lower : len - lower;
        size_t send_lo = me < q ? lo + lower : lo, send_len = len - keep_len;
        /* q keeps what this PE sends, and receives it where this PE keeps. */
        size_t fit = send_len < keep_len ? send_len : keep_len;
        put_to(c, dseg, doff + keep_lo * esz, acc + send_lo * esz, fit * esz, q);
        put_to(c, WEFT_SEG_HEAP, spots_off + (uint64_t)k * WEFT_RSAG_SPOT,
               acc + (send_lo + fit) * esz, (send_len - fit) * esz, q);
        weft_coll_signal(c, WEFT_TF_RED_ROUND + k, q, 1, 1);
        weft_coll_wait(c, WEFT_TF_RED_ROUND + k, 1);
        size_t got = keep_len < send_len ? keep_len : send_len;
        char *mine = acc + keep_lo * esz;
        combine(op, mine, d + send_lo * esz, got, me < q);
        combine(op, mine + got * esz, spots + (size_t)k * WEFT_RSAG_SPOT, keep_len - got, me < q);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        weft_coll_signal(c, WEFT_TF_RED_ROUND + k, q, 1, 1); /* combined */
        lo_of[k] = lo = keep_lo;
        len_of[k] = len = keep_len;
    }
    memcpy(d + lo * esz, acc + lo * esz, len * esz);
    for (int k = R - 1; k >= 0; k--) {
        int q = weft_sched_rd_partner(me, k);
        size_t held = lo_of[k] * esz;
        weft_coll_wait(c, WEFT_TF_RED_ROUND + k, 1); /* q combined its round-k half */
        put_to(c, dseg, doff + held, d + held, len_of[k] * esz, q);
        weft_coll_signal(c, WEFT_TF_RED_ROUND + k, q, 1, 1);
        weft_coll_wait(c, WEFT_TF_RED_ROUND + k, 1);
    }
    if (me < rem) {
        put_to(c, dseg, doff, d, bytes, me + p2);
        weft_coll_signal(c, WEFT_TF_RED_POST, me + p2, 1, 1);
    }
}

static void allreduce_tree(struct weft_coll *c, void *dest, const void *source, size_t count,
                           size_t esz, weft_red_fn op)
{
    int n = c->n, me = c->me;
    size_t bytes = count * esz;
    int dseg;
    uint64_t doff;
    resolve(c, "dest", dest, bytes, &dseg, &doff);
    if (dest != source)
        memmove(dest, source, bytes);
    /* Up: each PE accumulates its binomial subtree (rooted at 0) in dest;
     * a parent reads its children's dest once they signal UP. */
    long limit = weft_sched_tree_limit(me, n);
    int nchildren = weft_sched_tree_children(me, n);
    weft_coll_wait(c, WEFT_TF_UP, (uint64_t)nchildren);
    size_t cap = WEFT_TREE_CHUNK / esz;
    if (cap == 0)
        cap = 1;
    char *tmp = priv_buf(1, cap * esz);
    for (long m = 1; weft_sched_tree_is_child(me, m, limit, n); m <<= 1) {
        for (size_t o = 0; o < count; o += cap) {
            size_t k = count - o < cap ? count - o : cap;
            sent_messages++;
            weft_transport_get(c->ctx, tmp, dseg, doff + o * esz, k * esz, wpe(c, (int)(me + m)));
            char *d = (char *)dest + o * esz;
            op(d, d, tmp, k);
        }
    }
    if (me) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        weft_coll_signal(c, WEFT_TF_UP, (int)weft_sched_tree_parent(me), 0, 1);
    }
    /* Down: the root's result overwrites every dest (already read). */
    weft_coll_bcast(c, dest, dest, bytes, 0, 0);
}

void weft_coll_allreduce(struct weft_coll *c, void *dest, const void *source, size_t count,
                         size_t esz, weft_red_fn op)
{
    if (count == 0)
        return;
    if (c->n == 1) {
        if (dest != source)
            memmove(dest, source, count * esz);
        return;
    }
    struct weft_hier *h;
    if (c->psync)
        allreduce_tree(c, dest, source, count, esz, op);
    else if ((h = weft_coll_hier_for(c, WEFT_HIER_REDUCE, count * esz)))
        weft_coll_hier_allreduce(c, h, dest, source, count, esz, op);
    else if (esz <= WEFT_RSAG_SPOT &&
             count * esz >= reduce_scatter_min())
        allreduce_rsag(c, dest, source, count, esz, op);
    else
        allreduce_rd(c, dest, source, count, esz, op);
}

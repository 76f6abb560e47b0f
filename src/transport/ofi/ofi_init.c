/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_init.c owns the set-up and teardown of the libfabric transport:
 * weft_ofi_init's steps (the provider's answer turned into weft's
 * decisions, fabric, domain, AV, CQ, the default context's transmit
 * resources, segment registration, the exchange of names, keys and bases
 * through the bootstrap, the message layer, atomics, contexts and the
 * progress thread), weft_ofi_abandon and weft_ofi_fini. The provider's
 * choice is ofi_select.c's, transmit resources ofi_tx.c's, waits
 * ofi_wait.c's and the description ofi_describe.c's. */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "core/scale.h"
#include "transport/onnode/onnode.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

struct weft_ofi_state weft_ofi = {.progress.wait_fd = -1}; /* no descriptor before init */
struct weft_ofi_fast weft_ofi_fast;

/* 1: open the CQ with FI_WAIT_FD for the progress thread (see open_cq). */
#define WEFT_OFI_CQ_WAIT_FD 0

struct peer_blob {
    uint64_t base[WEFT_NSEGS];
    uint64_t key[WEFT_NSEGS];
    uint32_t namelen;
    uint32_t pad;
    uint8_t name[WEFT_OFI_NAME_MAX];
    struct weft_ofi_cma_blob cma; /* gets and puts by CMA (ofi_cma.c) */
};

int weft_ofi_av_open(struct fid_domain *domain, struct fid_av **av)
{
    struct fi_av_attr ava;
    memset(&ava, 0, sizeof ava);
    ava.type = FI_AV_TABLE;
    ava.count = (size_t)weft_rt.n_pes;
    return fi_av_open(domain, &ava, av, NULL);
}

int weft_ofi_cntr_open(struct fid_domain *domain, struct fid_cntr **cntr)
{
    struct fi_cntr_attr ca;
    memset(&ca, 0, sizeof ca);
    ca.events = FI_CNTR_EVENTS_COMP;
    return fi_cntr_open(domain, &ca, cntr, NULL);
}

/* Providers whose progress reads sockets: each poll costs system calls. */
static int progress_reads_sockets(const char *prov)
{
    return strstr(prov, "tcp") || strstr(prov, "sockets") || strstr(prov, "udp");
}

/* ---- registration ------------------------------------------------------ */

static int reg_one(void *base, size_t size, uint64_t access, uint64_t key, struct fid_mr **mr)
{
    int rc = fi_mr_reg(weft_ofi.fab.domain, base, size, access, 0, key, 0, mr, NULL);
    if (rc) {
        weft_warn("weft_ofi_init", "fi_mr_reg(%p, %zu, key %" PRIu64 "): %s", base, size, key,
                  fi_strerror(-rc));
        return -1;
    }
    if (weft_ofi.fab.mr_endpoint) {
        if ((rc = fi_mr_bind(*mr, &weft_ofi_tx0.ep->fid, 0)) != 0 ||
            (rc = fi_mr_enable(*mr)) != 0) {
            weft_warn("weft_ofi_init", "fi_mr_bind/enable: %s", fi_strerror(-rc));
            return -1;
        }
    }
    return 0;
}

static int register_segments(struct peer_blob *mine)
{
    uint64_t access = FI_REMOTE_READ | FI_REMOTE_WRITE;
    if (weft_ofi.fab.mr_local)
        access |= FI_READ | FI_WRITE | FI_SEND | FI_RECV;
    for (int s = 0; s < WEFT_NSEGS; s++) {
        struct weft_segment *sg = &weft_rt.seg[s];
        mine->base[s] = (uint64_t)(uintptr_t)sg->base;
        mine->key[s] = 0;
        if (!sg->base || !sg->size)
            continue;
        /* A heap that grows is registered whole, reservation included, once:
         * its new parts are then reachable with the keys exchanged here. */
        size_t span = weft_seg_span(s);
        if (reg_one(sg->base, span, access, (uint64_t)s, &weft_ofi.fab.mr[s]) != 0) {
            if (span > sg->size)
                weft_fatal("shmem_init", "libfabric's %s provider cannot register the %zu bytes "
                           "reserved for the symmetric heap to grow into; set "
                           "SHMEM_SYMMETRIC_SIZE for a fixed heap (or lower WEFT_HEAP_LIMIT)",
                           weft_ofi.fab.info->fabric_attr->prov_name, span);
            return -1;
        }
        weft_ofi.fab.mr_desc[s] = fi_mr_desc(weft_ofi.fab.mr[s]);
        mine->key[s] = fi_mr_key(weft_ofi.fab.mr[s]);
        if (!weft_ofi.fab.prov_key && mine->key[s] != (uint64_t)s) {
            weft_warn("weft_ofi_init", "provider ignored the requested MR key %d (got %" PRIu64
                      ")", s, mine->key[s]);
            return -1;
        }
    }
    return 0;
}

#define CHECK(call, what)                                                         \
    do {                                                                          \
        int rc_ = (call);                                                         \
        if (rc_)                                                                  \
            weft_ofi_open_failed(what, rc_);                                      \
    } while (0)

/* Every PE of the job reaches every PE directly (one host, the direct
 * path on): nothing will ever go through libfabric, so it is not opened at
 * all - no provider region in /dev/shm that a crash could leave behind, no
 * listening socket. All PEs must agree, since a PE that used libfabric
 * would need endpoints on the others, and they do without another
 * exchange: one host is decided from the host cards every PE gathered, and
 * all_direct from the on-node verdicts every PE gathered (a segment is kept
 * only where every PE of the node mapped it, onnode.c), both read the same
 * way everywhere. */
static int all_pes_direct(void)
{
    return weft_onnode.all_direct && weft_rt.single_node;
}

int weft_ofi_unused(void)
{
    return weft_ofi.unused;
}

/* After the first barrier. Up to libfabric 1.22, shm maps a peer's region
 * when its address is inserted (every PE inserted every peer's before that
 * barrier), so the name is not needed again; from 2.0 it maps the region
 * only when the peer is first reached, which may come at any time, so the
 * names stay until the end (finalize, or any other way out that runs
 * code, removes them). */
int weft_ofi_shm_names_done(void)
{
    return FI_MAJOR(fi_version()) < 2;
}

/* The provider's answer: mr_mode, progress, threading, atomics, remote
 * completion and inject size. thread_multiple: asked by the program,
 * provided where the domain is FI_THREAD_SAFE (else SERIALIZED). */
static void take_provider(struct fi_info *fi, int thread_multiple)
{
    weft_ofi.fab.info = fi;
    uint64_t mm = (uint64_t)fi->domain_attr->mr_mode;
    weft_ofi.fab.prov_key = !!(mm & FI_MR_PROV_KEY);
    weft_ofi.fab.virt_addr = !!(mm & FI_MR_VIRT_ADDR);
    weft_ofi.fab.mr_local = !!(mm & FI_MR_LOCAL);
    weft_ofi.fab.mr_endpoint = !!(mm & FI_MR_ENDPOINT);
    weft_ofi.fab.manual = weft_ofi_progress_is_manual(fi);
    weft_ofi.fab.thread_safe = fi->domain_attr->threading == FI_THREAD_SAFE;
    weft_ofi.thread_multiple = thread_multiple && weft_ofi.fab.thread_safe;
    weft_ofi.fab.have_atomic_cap = !!(fi->caps & FI_ATOMIC);
    weft_ofi.put.rc =
        (fi->tx_attr->op_flags & FI_DELIVERY_COMPLETE) ? WEFT_RC_DELIVERY : WEFT_RC_FLUSH;
    weft_ofi.fab.prov_inject = fi->tx_attr->inject_size;
}

/* How fence and quiet keep their promises on this provider (ofi_rma.c):
 * ordering, injects queued in order, the largest ordered write. */
static void decide_ordering(const struct fi_info *fi)
{
    /* Fence by ordering needs the provider's order and room to inject a
     * software atomic's request from a context's endpoint. */
    static const char *const fence_modes[] = {"auto", "quiet"};
    int fence_by_quiet = weft_tun_choice(WEFT_TUN_FENCE, fence_modes, 2);
    /* The provider's order says nothing about a store that bypasses it:
     * where a peer is reached directly for one segment and through
     * libfabric for the other (weft_onnode.split), a put through libfabric
     * followed by a fence and a direct store to that peer (data in .bss,
     * flag in the heap, WEFT_ONNODE_STATIC=0) would show the flag first,
     * so the fence must complete libfabric's operations. */
    weft_ofi.order.ordered = !fence_by_quiet &&
                       (fi->tx_attr->msg_order & WEFT_OFI_FENCE_ORDER) == WEFT_OFI_FENCE_ORDER &&
                       weft_ofi.fab.prov_inject >= WEFT_OFI_MSG_AMO_SIZE &&
                       !weft_onnode.split;
    weft_ofi.order.rma_ordered = !weft_ofi.order.ordered && !fence_by_quiet &&
                           (fi->tx_attr->msg_order & FI_ORDER_RMA_WAW) && !weft_onnode.split;
    weft_ofi.order.injects_queued_in_order = !strcmp(fi->fabric_attr->prov_name, "shm") &&
                                       weft_ofi.put.rc == WEFT_RC_DELIVERY && !weft_onnode.mixed;
    /* Only where fence relies on RMA write order alone (rxm); shm reports
     * an order for writes of any size in its answer but moves large ones
     * in pieces (problem 6 in docs/providers.md: coll.bcast_* failed), so
     * there and on sockets every non-injected write still counts as large. */
    weft_ofi.order.order_waw_size =
        weft_ofi.order.rma_ordered ? fi->ep_attr->max_order_waw_size : 0;
}

/* How puts of each size travel: the inject threshold, injected pieces,
 * writes without delivery completion, the message and iovec limits.
 * delivery_asked: the user asked for WEFT_REMOTE_COMPLETION=delivery. */
static void decide_writes(const struct fi_info *fi, int delivery_asked)
{
    long long inj = weft_tun_int(WEFT_TUN_INJECT_SIZE);
    weft_ofi.put.inject_size = (inj < 0 || (size_t)inj > fi->tx_attr->inject_size)
                               ? fi->tx_attr->inject_size
                               : (size_t)inj;
    /* Only where the pieces queue in order at the target: there a later
     * operation (a flag, a fence's next write) lands after the last piece,
     * and quiet needs nothing back from them. */
    weft_ofi.put.split_put_max = weft_ofi.order.injects_queued_in_order && weft_ofi.put.inject_size
                                 ? (size_t)weft_tun_int(WEFT_TUN_SHM_SPLIT_PUT)
                                 : 0;
    /* Not on shm: a write above its inject size completes only once the
     * target has copied it, with or without the flag. Not where the user
     * asked for delivery completion (WEFT_REMOTE_COMPLETION=delivery). */
    weft_ofi.put.writes_flushed = weft_ofi.put.rc == WEFT_RC_DELIVERY &&
                              strcmp(fi->fabric_attr->prov_name, "shm") && !weft_ofi.fab.mr_local &&
                              !delivery_asked;
    weft_ofi.fab.max_msg = fi->ep_attr->max_msg_size ? fi->ep_attr->max_msg_size : (1u << 30);
    if (weft_ofi.fab.max_msg > ((size_t)1 << 30))
        weft_ofi.fab.max_msg = (size_t)1 << 30; /* keep chunks bounded */
    size_t il = fi->tx_attr->iov_limit, ril = fi->tx_attr->rma_iov_limit;
    weft_ofi.fab.iov_limit = il < ril ? il : ril;
    if (weft_ofi.fab.iov_limit < 1)
        weft_ofi.fab.iov_limit = 1;
}

/* Counting puts and pushes on 64-bit immediate data where the provider
 * reports it (docs/providers.md: shm, tcp;ofi_rxm, net, udp;ofi_rxd on
 * 1.17). Not on sockets: with receives posted, as the message engine
 * always has, it delivers a write's data without FI_REMOTE_CQ_DATA, so
 * the target never counts it. */
static void decide_counting(const struct fi_info *fi)
{
    static const char *const imm_modes[] = {"auto", "off"};
    int imm_off = weft_tun_choice(WEFT_TUN_CT_IMMEDIATE, imm_modes, 2);
    weft_ofi_count_imm = !imm_off && fi->domain_attr->cq_data_size >= 8 &&
                         !(fi->mode & FI_RX_CQ_DATA) && !weft_ofi.fab.mr_local &&
                         strcmp(fi->fabric_attr->prov_name, "sockets") != 0;
    weft_debug("ofi: counters %s (cq_data_size %zu)",
               weft_ofi_count_imm ? "on immediate data" : "by atomic add",
               fi->domain_attr->cq_data_size);
}

static void log_decisions(const struct fi_info *fi)
{
    weft_debug("ofi: msg_order [%s]; fence %s",
               fi_tostr(&fi->tx_attr->msg_order, FI_TYPE_MSG_ORDER),
               weft_ofi.order.ordered       ? "by provider ordering"
               : weft_ofi.order.rma_ordered ? "by RMA write ordering (deferred before an atomic)"
                                      : "= quiet");
    weft_debug("ofi: using %s (fabric %s, domain %s), mr_mode %s, %s progress, threading %s, "
               "remote completion by %s", fi->fabric_attr->prov_name, fi->fabric_attr->name,
               fi->domain_attr->name, fi_tostr(&fi->domain_attr->mr_mode, FI_TYPE_MR_MODE),
               weft_ofi.fab.manual ? "manual" : "auto",
               weft_ofi.fab.thread_safe ? "safe" : "domain",
               weft_ofi.put.rc == WEFT_RC_DELIVERY ? "FI_DELIVERY_COMPLETE" : "flush reads");
    weft_debug("ofi: injected writes and atomics %s", weft_ofi.order.injects_queued_in_order
                   ? "queue in order at the target: quiet reads nothing back"
                   : "flushed by a read at quiet");
}

int weft_ofi_updates_counted;

/* A counter of completions with a wait object, for fi_cntr_wait; *c is
 * NULL when the provider refuses one. */
static int open_waitable_cntr(struct fid_cntr **c)
{
    struct fi_cntr_attr ca;
    memset(&ca, 0, sizeof ca);
    ca.events = FI_CNTR_EVENTS_COMP;
    ca.wait_obj = FI_WAIT_UNSPEC;
    int rc = fi_cntr_open(weft_ofi.fab.domain, &ca, c, NULL);
    if (rc)
        *c = NULL;
    return rc;
}

/* The counter that waits for a peer's update sleep on (ofi.h,
 * weft_ofi_updates_counted): only where the provider counts remote writes
 * (FI_RMA_EVENT), moves them itself (FI_PROGRESS_AUTO) and wakes a
 * sleeper when it counts one. Under manual progress (shm, udp;ofi_rxd) a
 * write lands only when this PE progresses; tcp;ofi_rxm counts none; net
 * (1.17) claims automatic progress, but a sleep on its counter ended only
 * at the 50 ms tick, never at a peer's write (80 sleeps of 80). So sockets
 * is the one provider, by name (docs/providers.md). */
static void open_update_cntr(int rma_events)
{
    if (!weft_tun_bool(WEFT_TUN_WAIT_COUNTER) || !rma_events || weft_ofi.fab.manual ||
        weft_ofi.thread_multiple || strcmp(weft_ofi_provider_name(), "sockets") != 0)
        return;
    int rc = open_waitable_cntr(&weft_ofi.progress.update_cntr);
    if (rc) {
        weft_debug("ofi: no waitable counter (%s): waits poll memory", fi_strerror(-rc));
        return;
    }
    weft_ofi_updates_counted = 1;
    weft_debug("ofi: waits for a peer's update %s",
               weft_onnode.peers_direct ? "poll memory: node peers store into it directly"
                                        : "sleep on a counter of what arrives");
}

/* The counter the default context's waits for replies sleep on under
 * WEFT_REPLY_WAIT=sleep (weft_ofi_reply_pause): on tcp;ofi_rxm, whose util counter's wait
 * drives the endpoint's progress and ends when a message arrives, so the
 * wait for an acknowledgement runs in the provider instead of weft's
 * polling loop. Not under SHMEM_THREAD_MULTIPLE (kept to the case
 * measured), nor without FI_THREAD_SAFE (the progress thread drains the
 * CQ while the application sleeps). */
static void open_arrivals_cntr(void)
{
    static const char *const modes[] = {"poll", "sleep"};
    if (weft_tun_choice(WEFT_TUN_REPLY_WAIT, modes, 2) != 1 || weft_ofi.thread_multiple ||
        !weft_ofi.fab.thread_safe || strcmp(weft_ofi_provider_name(), "tcp;ofi_rxm") != 0)
        return;
    int rc = open_waitable_cntr(&weft_ofi.progress.arrivals);
    if (rc) {
        weft_debug("ofi: no waitable counter of arrivals (%s): waits for replies poll",
                   fi_strerror(-rc));
        return;
    }
    weft_ofi.progress.replies_sleep = 1;
    weft_debug("ofi: waits for replies sleep in fi_cntr_wait on a counter of arrivals");
}

/* The CQ every endpoint of this PE reports to, with a wait descriptor
 * where idle waits nap on it. */
static int open_cq(int thread_on)
{
    struct fi_cq_attr cqa;
    memset(&cqa, 0, sizeof cqa);
    cqa.format = FI_CQ_FORMAT_DATA;
    cqa.size = 0;
    /* A progress thread could sleep on the CQ's descriptor where the
     * provider has one (ofi_progress.c; shm refuses FI_WAIT_FD). Off: on
     * tcp;ofi_rxm a CQ with FI_WAIT_FD halved the 8-byte message rate
     * (0.09-0.14 against 0.20-0.22 Mmsg/s, interleaved, docs/providers.md),
     * so the thread naps WEFT_PROGRESS_INTERVAL on every provider. On an
     * oversubscribed host where the provider cannot count the requests a
     * PE serves (tcp;ofi_rxm has no FI_RMA_EVENT), idle waits nap on the
     * descriptor instead (runtime/sync.c): without it every waiting PE yields,
     * and two PEs sharing a CPU then take turns only at the scheduler's
     * tick (get at 4 PEs on 2 CPUs: 1 ms in some runs, 31-43 us napping). */
    int naps = weft_idle_naps_possible(), rma_events = !!(weft_ofi.fab.info->caps & FI_RMA_EVENT);
    int naps_on_cq_fd = naps && !rma_events;
    cqa.wait_obj = FI_WAIT_NONE;
    if ((thread_on && WEFT_OFI_CQ_WAIT_FD) || naps_on_cq_fd) {
        cqa.wait_obj = FI_WAIT_FD;
        if (fi_cq_open(weft_ofi.fab.domain, &cqa, &weft_ofi.fab.cq, NULL) == 0)
            weft_ofi.progress.cq_wait_fd = 1;
        else
            cqa.wait_obj = FI_WAIT_NONE;
    }
    if (!weft_ofi.progress.cq_wait_fd)
        CHECK(fi_cq_open(weft_ofi.fab.domain, &cqa, &weft_ofi.fab.cq, NULL), "fi_cq_open");

    /* Peers' reads, writes and atomics served by this PE's progress are
     * counted where the host is oversubscribed, so that a waiting PE can
     * tell whether it serves anyone (runtime/sync.c, idle naps). shm counts
     * them (FI_RMA_EVENT); tcp;ofi_rxm cannot, and its PEs nap on the
     * CQ's descriptor instead (naps_on_cq_fd above). */
    /* Gets read by CMA (ofi_cma.c) look at the same count. */
    open_update_cntr(rma_events);
    open_arrivals_cntr();
    if ((naps || weft_ofi_cma_wanted()) && rma_events) {
        if (weft_ofi.progress.update_cntr)
            weft_ofi.progress.served_cntr = weft_ofi.progress.update_cntr;
        else
            CHECK(weft_ofi_cntr_open(weft_ofi.fab.domain, &weft_ofi.progress.served_cntr),
                  "fi_cntr_open(remote access)");
    }
    return 0;
}

/* Fabric, domain, AV and CQ. */
static int open_domain(int thread_on)
{
    struct fi_info *fi = weft_ofi.fab.info;
    CHECK(fi_fabric(fi->fabric_attr, &weft_ofi.fab.fabric, NULL), "fi_fabric");
    CHECK(fi_domain(weft_ofi.fab.fabric, fi, &weft_ofi.fab.domain, NULL), "fi_domain");
    CHECK(weft_ofi_av_open(weft_ofi.fab.domain, &weft_ofi.fab.av), "fi_av_open");
    return open_cq(thread_on);
}

/* The default context's transmit resources; under SHMEM_THREAD_MULTIPLE
 * any thread may use them. */
static int open_default_tx(void)
{
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    if (weft_ofi_tx_open(tx, weft_ofi.fab.cq, 1) != 0)
        return -1;
    weft_ofi_tx_set_shared(tx, weft_ofi.thread_multiple);
    pthread_mutex_init(&tx->lock, NULL);
    weft_ofi.put.scalar_inject = tx->shared ? 0 : weft_ofi.put.inject_size;
    return 0;
}

/* Every PE's name into the AV, so that fi_addr comes out equal to the PE:
 * one fi_av_insert of every name, packed in PE order, when all names have
 * one length (tcp, sockets: sockaddrs; shm: PIDs of one width); otherwise
 * one name at a time, in PE order (shm's names embed the PID, so 99999
 * and 100000 differ by a byte; each blob's name is zero-padded). 0 or -1. */
static int insert_addresses(const struct peer_blob *all, int n)
{
    int ok = 1, same_len = 1;
    for (int p = 1; p < n; p++)
        same_len &= all[p].namelen == all[0].namelen;
    size_t nlen = all[0].namelen;
    char *packed = same_len && n > 1 ? malloc((size_t)n * nlen) : NULL;
    fi_addr_t *addrs = packed ? malloc((size_t)n * sizeof *addrs) : NULL;
    if (packed && addrs) {
        for (int p = 0; p < n; p++)
            memcpy(packed + (size_t)p * nlen, all[p].name, nlen);
        int got = fi_av_insert(weft_ofi.fab.av, packed, (size_t)n, addrs, 0, NULL);
        ok = got == n;
        for (int p = 0; ok && p < n; p++)
            ok = addrs[p] == (fi_addr_t)p;
        if (!ok)
            weft_warn("weft_ofi_init", "fi_av_insert of %d addresses (%zu bytes each) gave %d",
                      n, nlen, got);
        weft_debug("ofi: %d addresses inserted in one fi_av_insert", n);
    } else {
        for (int p = 0; ok && p < n; p++) {
            fi_addr_t addr = FI_ADDR_NOTAVAIL;
            int got = fi_av_insert(weft_ofi.fab.av, all[p].name, 1, &addr, 0, NULL);
            ok = got == 1 && addr == (fi_addr_t)p;
            if (!ok)
                weft_warn("weft_ofi_init", "fi_av_insert of PE %d's address (%u bytes) gave %d, "
                          "fi_addr %llu", p, all[p].namelen, got, (unsigned long long)addr);
        }
    }
    free(packed);
    free(addrs);
    return ok ? 0 : -1;
}

/* Keys are the provider's or the segment number weft chose, addresses
 * virtual or offsets. One key and base per segment when they are the same
 * on every PE (always with chosen keys and offsets), so that nothing is
 * kept per peer; else a table of each PE's (scale.def: REMOTE_KEYS). */
static uint64_t remote_key(const struct peer_blob *b, int s)
{
    return weft_ofi.fab.prov_key ? b->key[s] : (uint64_t)s;
}
static uint64_t remote_base(const struct peer_blob *b, int s)
{
    return weft_ofi.fab.virt_addr ? b->base[s] : 0;
}

static int fill_remote_tables(const struct peer_blob *all, int n)
{
    int same = 1;
    for (int p = 1; p < n; p++)
        for (int s = 0; s < WEFT_NSEGS; s++)
            same &= remote_key(&all[p], s) == remote_key(&all[0], s) &&
                    remote_base(&all[p], s) == remote_base(&all[0], s);
    size_t bytes = (size_t)n * WEFT_NSEGS * sizeof(uint64_t);
    if (same) {
        uint64_t key[WEFT_NSEGS], base[WEFT_NSEGS];
        for (int s = 0; s < WEFT_NSEGS; s++) {
            key[s] = remote_key(&all[0], s);
            base[s] = remote_base(&all[0], s);
        }
        weft_ofi.addr.rkey = weft_scale_table_repeat(bytes, key, sizeof key);
        weft_ofi.addr.rbase = weft_scale_table_repeat(bytes, base, sizeof base);
        same = weft_ofi.addr.rkey && weft_ofi.addr.rbase;
        if (!same) {
            weft_scale_table_repeat_free(weft_ofi.addr.rkey, bytes);
            weft_scale_table_repeat_free(weft_ofi.addr.rbase, bytes);
            weft_ofi.addr.rkey = weft_ofi.addr.rbase = NULL;
        }
    }
    weft_ofi.addr.per_pe = !same;
    weft_scale_set_when(WEFT_SCALE_WHEN_PEER_KEYS, !same);
    weft_debug("ofi: remote keys and bases %s", same ? "the same for every PE: none kept per PE"
                                                     : "kept for each PE");
    if (same)
        return 0;
    weft_ofi.addr.rkey = malloc(bytes);
    weft_ofi.addr.rbase = malloc(bytes);
    if (!weft_ofi.addr.rkey || !weft_ofi.addr.rbase)
        return -1;
    weft_scale_note(WEFT_SCALE_REMOTE_KEYS, 2 * bytes);
    for (int p = 0; p < n; p++)
        for (int s = 0; s < WEFT_NSEGS; s++) {
            size_t i = (size_t)p * WEFT_NSEGS + (size_t)s;
            weft_ofi.addr.rkey[i] = remote_key(&all[p], s);
            weft_ofi.addr.rbase[i] = remote_base(&all[p], s);
        }
    return 0;
}

/* What the CMA tables hold (scale.def: CMA_TABLES). */
static void note_cma_tables(void)
{
    size_t per_pe = weft_ofi_cma.base ? WEFT_NSEGS * sizeof(uint64_t) + sizeof(int32_t) : 0;
    weft_scale_note(WEFT_SCALE_CMA_TABLES, per_pe * (size_t)weft_rt.n_pes);
    weft_scale_set_when(WEFT_SCALE_WHEN_CMA, weft_ofi_cma.base != NULL);
}

/* Register the segments, publish this PE's endpoint name, keys and bases
 * (and its process, for copies by CMA) through the bootstrap, and take
 * every PE's. */
static int exchange_addresses(void)
{
    struct peer_blob mine;
    memset(&mine, 0, sizeof mine);
    if (register_segments(&mine) != 0)
        return -1;
    size_t nl = sizeof mine.name;
    CHECK(fi_getname(&weft_ofi_tx0.ep->fid, mine.name, &nl), "fi_getname");
    mine.namelen = (uint32_t)nl;
    weft_ofi_cma_open(&mine.cma);

    int n = weft_rt.n_pes;
    struct peer_blob *all = calloc((size_t)n, sizeof *all);
    if (!all)
        return -1;
    if (weft_boot_allgather("weft-ofi-ep", &mine, all, sizeof mine) != 0) {
        weft_warn("weft_ofi_init", "exchanging endpoint names through the launcher failed");
        free(all);
        return -1;
    }
    int rc = insert_addresses(all, n);
    if (rc == 0)
        rc = fill_remote_tables(all, n);
    if (rc == 0)
        for (int p = 0; p < n; p++)
            weft_ofi_cma_connect(p, &all[p].cma, all[p].base);
    free(all);
    note_cma_tables();
    return rc;
}

/* The progress thread where it is wanted: WEFT_PROGRESS_THREAD=auto (2)
 * turns it on for manual progress or any software AMO type; never without
 * FI_THREAD_SAFE. */
static int progress_thread_decision(int thread_on)
{
    if (thread_on == 2) {
        int any_sw = 0;
        for (int d = 0; d < WEFT_DT_NTYPES; d++)
            any_sw |= !weft_ofi.amo.dt_native[d];
        thread_on = weft_ofi.fab.manual || any_sw;
        weft_debug("ofi: progress thread %s (%s progress, %s software AMO types)",
                   thread_on ? "on" : "off", weft_ofi.fab.manual ? "manual" : "auto",
                   any_sw ? "some" : "no");
    }
    if (thread_on && !weft_ofi.fab.thread_safe) {
        weft_warn("weft_ofi_init", "provider %s refused FI_THREAD_SAFE; no progress thread",
                  weft_ofi_provider_name());
        thread_on = 0;
    }
    return thread_on;
}

/* shmem_TYPE_p injected inline (ofi.h, weft_ofi_fast) where its count is
 * all its bookkeeping: injects to a PE queue in order behind which quiet
 * need not flush (no mark), tx0 has no lock and no coalescing, and one key
 * and base per segment serve every PE. This PE itself is never written
 * this way (weft_ofi_p_inline refuses it: with the direct path off, its
 * own queue would wait for a progress the inline quiet does not make). */
static void decide_inline_puts(void)
{
    memset(&weft_ofi_fast, 0, sizeof weft_ofi_fast);
    weft_ofi_fast.self = weft_rt.my_pe;
    if (weft_ofi.put.coalesce) {
        /* Below the API's fast limits a p to the PE whose batch is open is
         * appended to it inline instead (weft_ofi_coal_append_inline). */
        for (int s = 0; s < WEFT_NSEGS; s++) {
            size_t size = weft_rt.seg[s].size;
            weft_ofi_fast.coal_limit[s] = size > WEFT_FAST_MAX ? size - WEFT_FAST_MAX : 0;
        }
        return;
    }
    if (weft_ofi_tx0.shared || weft_ofi.addr.per_pe ||
        !weft_ofi.order.injects_queued_in_order || weft_ofi.put.scalar_inject < sizeof(uint64_t))
        return;
    for (int s = 0; s < WEFT_NSEGS; s++) {
        size_t size = weft_rt.seg[s].size;
        /* The API's fast limits (runtime/init.c), set after this. */
        weft_ofi_fast.p_limit[s] = size > WEFT_FAST_MAX ? size - WEFT_FAST_MAX : 0;
        weft_ofi_fast.rbase[s] = weft_ofi_raddr(0, s, 0);
        weft_ofi_fast.rkey[s] = weft_ofi_rkey(0, s);
    }
}

/* What runs on the endpoint: the message layer's receives, atomics,
 * contexts, coalescing, the progress thread; then the first barrier (every
 * PE's receives posted before anyone sends) and the reachability check. */
static int start_services(int thread_on)
{
    if (weft_ofi_msg_init() != 0)
        return -1;
    weft_ofi_progress_syscalls = progress_reads_sockets(weft_ofi_provider_name());
    weft_ofi_amo_init();
    weft_ofi_ctx_init();
    thread_on = progress_thread_decision(thread_on);
    weft_ofi_coal_init(thread_on);
    decide_inline_puts();
    weft_ofi_wait_obj_init();
    /* The thread starts once every PE has left the barrier: while they
     * wait in it (a blocking read) nobody can reach this PE, and each
     * PE's thread would wake every WEFT_PROGRESS_INTERVAL for the whole
     * wait (a fifth of start-up's CPU time at 64 PEs over shm on one
     * core). */
    if (weft_boot_barrier() != 0)
        return -1;
    if (thread_on && weft_ofi_thread_start() != 0)
        return -1;
    weft_ofi_wireup_start();
    return 0;
}

int weft_ofi_init(int thread_multiple)
{
    memset(&weft_ofi, 0, sizeof weft_ofi);
    weft_ofi.progress.wait_fd = -1; /* until weft_ofi_wait_obj_init finds the CQ's */
    pthread_mutex_init(&weft_ofi.ctx.lock, NULL);
    if (all_pes_direct()) {
        weft_ofi.unused = 1;
        weft_ofi.thread_multiple = thread_multiple; /* loads, stores and CPU atomics */
        weft_debug("ofi: every PE is reached directly: libfabric is not opened");
        return 0;
    }
    if (weft_ofi_load() != 0)
        return -1;
    weft_scale_set_when(WEFT_SCALE_WHEN_FABRIC, 1);
    int thread_on = 0, delivery_asked = 0;
    /* FI_THREAD_SAFE covers our progress thread and, under
     * SHMEM_THREAD_MULTIPLE, threads driving their contexts' endpoints at
     * the same time (FI_THREAD_DOMAIN would make the whole domain one
     * thread's at a time). */
    struct fi_info *fi = weft_ofi_choose_provider(thread_multiple, &thread_on, &delivery_asked);
    if (!fi)
        return -1;
    take_provider(fi, thread_multiple);
    decide_ordering(fi);
    decide_writes(fi, delivery_asked);
    decide_counting(fi);
    weft_ofi.retry_timeout = (long)weft_tun_int(WEFT_TUN_RETRY_TIMEOUT);
    log_decisions(fi);
    if (open_domain(thread_on) != 0 || open_default_tx() != 0 || exchange_addresses() != 0)
        return -1;
    return start_services(thread_on);
}

/* A PE leaving without finalize (non-zero exit, shmem_global_exit): close
 * the default endpoint so that a provider with a named region (shm's
 * /dev/shm/<pid>:...) removes it. No quiet, no barrier: the job is ending
 * and the peers may be gone. */
void weft_ofi_abandon(void)
{
    if (!weft_ofi.fab.info || pthread_equal(pthread_self(), weft_ofi.progress.thread) ||
        __atomic_exchange_n(&weft_ofi.abandoned, 1, __ATOMIC_ACQ_REL))
        return;
    weft_ofi_thread_stop();
    weft_ofi_cma_abandon();
    if (weft_ofi_tx0.ep) {
        fi_close(&weft_ofi_tx0.ep->fid);
        weft_ofi_tx0.ep = NULL;
    }
}

/* After finalize's launcher barrier: apply what peers left queued at
 * this PE. Where injected writes and atomics queue in order at the target
 * (shm), a peer's quiet did not wait for them to be applied, and nobody
 * else will apply them once the endpoint is closed; the program may read
 * its static variables after shmem_finalize (tests-uh's
 * test_shmem_finalize lost its last put 8 times in 20). Every peer issued
 * its last operation before the barrier, so progress until a pass applies
 * nothing more is enough (shm applies the whole queue in each). */
static void apply_queued(void)
{
    uint64_t was = 0, now = 0;
    int counted = weft_ofi_served(&was);
    for (;;) {
        weft_ofi_progress();
        if (!counted || !weft_ofi_served(&now) || now == was)
            return;
        was = now;
    }
}

void weft_ofi_fini(void)
{
    if (weft_ofi.unused) {
        /* Finalize's synchronization (runtime/init.c) is this barrier. */
        (void)weft_boot_barrier();
        weft_ofi.unused = 0;
        return;
    }
    if (!weft_ofi.fab.info)
        return;
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    /* the general paths now */
    memset(weft_ofi_fast.p_limit, 0, sizeof weft_ofi_fast.p_limit);
    memset(weft_ofi_fast.coal_limit, 0, sizeof weft_ofi_fast.coal_limit);
    if (tx->ep)
        weft_ofi_quiet(tx);
    /* Contexts the program did not destroy complete now, while every peer
     * is still there to answer; they are closed after the barrier. */
    weft_ofi_ctx_quiet_all();
    /* Peers may still need our progress to finish their last quiet; keep a
     * progress thread running (a temporary one if there was none) through
     * the launcher barrier, after which nobody talks to us. */
    int temp = 0;
    __atomic_store_n(&weft_ofi.progress.finalizing, 1, __ATOMIC_RELAXED);
    if (tx->ep && weft_rt.n_pes > 1 && !weft_ofi.progress.thread_on)
        temp = weft_ofi_thread_start() == 0;
    (void)weft_boot_barrier();
    (void)temp;
    weft_ofi_thread_stop();
    if (tx->ep && weft_ofi.order.injects_queued_in_order)
        apply_queued();
    weft_ofi.put.coalesce = 0; /* tx_close below frees its buffers */
    weft_ofi_cma_close(); /* after the barrier: peers read by it until then */
    weft_scale_note(WEFT_SCALE_CMA_TABLES, 0);
    weft_ofi_ctx_fini();
    weft_ofi_tx_close(tx);
    if (weft_ofi.progress.served_cntr) { /* after tx0's endpoint, which holds it */
        struct fid_cntr *c = weft_ofi.progress.served_cntr;
        weft_ofi.progress.served_cntr = NULL;
        if (c != weft_ofi.progress.update_cntr)
            fi_close(&c->fid);
    }
    if (weft_ofi.progress.arrivals) {
        weft_ofi.progress.replies_sleep = 0;
        fi_close(&weft_ofi.progress.arrivals->fid);
        weft_ofi.progress.arrivals = NULL;
    }
    if (weft_ofi.progress.update_cntr) {
        weft_ofi_update_fini();
        struct fid_cntr *c = weft_ofi.progress.update_cntr;
        weft_ofi_updates_counted = 0;
        weft_ofi.progress.update_cntr = NULL;
        fi_close(&c->fid);
    }
    for (int s = 0; s < WEFT_NSEGS; s++)
        if (weft_ofi.fab.mr[s])
            fi_close(&weft_ofi.fab.mr[s]->fid);
    weft_ofi_msg_fini();
    struct fid_cq *cq = weft_ofi.fab.cq;
    weft_ofi.fab.cq = NULL;
    weft_ofi.progress.cq_wait_fd = 0; /* its descriptor goes with it */
    weft_ofi.progress.wait_fd = -1;
    if (cq)
        fi_close(&cq->fid);
    if (weft_ofi.fab.av)
        fi_close(&weft_ofi.fab.av->fid);
    if (weft_ofi.fab.domain)
        fi_close(&weft_ofi.fab.domain->fid);
    if (weft_ofi.fab.fabric)
        fi_close(&weft_ofi.fab.fabric->fid);
    fi_freeinfo(weft_ofi.fab.info);
    pthread_mutex_destroy(&tx->lock);
    memset(tx, 0, sizeof *tx);
    if (weft_ofi.addr.per_pe) {
        free(weft_ofi.addr.rkey);
        free(weft_ofi.addr.rbase);
    } else {
        size_t bytes = (size_t)weft_rt.n_pes * WEFT_NSEGS * sizeof(uint64_t);
        weft_scale_table_repeat_free(weft_ofi.addr.rkey, bytes);
        weft_scale_table_repeat_free(weft_ofi.addr.rbase, bytes);
    }
    weft_scale_note(WEFT_SCALE_REMOTE_KEYS, 0);
    weft_scale_set_when(WEFT_SCALE_WHEN_FABRIC | WEFT_SCALE_WHEN_PEER_KEYS |
                        WEFT_SCALE_WHEN_COALESCE | WEFT_SCALE_WHEN_CMA, 0);
    memset(&weft_ofi, 0, sizeof weft_ofi);
}

struct weft_ofi_tx *weft_ofi_default_tx(void) { return &weft_ofi_tx0; }

int weft_ofi_thread_multiple(void) { return weft_ofi.thread_multiple; }
int weft_ofi_progresses_alone(void) { return weft_ofi.progress.thread_on || !weft_ofi.fab.manual; }

int weft_ofi_thread_safe(void) { return weft_ofi.unused || weft_ofi.fab.thread_safe; }

const char *weft_ofi_provider_name(void)
{
    return weft_ofi.fab.info ? weft_ofi.fab.info->fabric_attr->prov_name : "none";
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_ctx.c owns the transmit resources of communication contexts: how many
 * contexts may have an endpoint of their own (the budget, from the
 * provider's limits and WEFT_CTX_ENDPOINTS), opening and closing a
 * context's endpoint with its CQ and counters, keeping the endpoints of
 * destroyed contexts for the next ones, the fallback to the default
 * context's resources past the budget (WEFT_CTX_SHARE), the registry of
 * context endpoints in use that the progress thread pokes, and their
 * teardown at finalize.
 *
 * A context's endpoint joins the job's one AV, so fi_addr == PE still names
 * the peer's default endpoint, where every peer's memory registrations are
 * (and, with FI_MR_ENDPOINT, bound): a context only initiates, it is never
 * the target of anything, so it needs no receive buffers and no address
 * exchange. Its CQ only ever holds error completions (selective
 * completion); its counters are its quiet.
 *
 * Endpoints are never closed before finalize: a destroyed context's goes to
 * an idle list and serves the next context. Every endpoint a process ever
 * opens costs each shm peer it talked to a slot in that peer's table for
 * the rest of the job (measured: 8 PEs creating and destroying contexts ran
 * out after 25 x 8 endpoints and hung in EAGAIN), so the budget caps the
 * endpoints that ever exist, not those in use; with tcp reuse also keeps
 * the connections (a first put on a new endpoint costs 20 ms). */
#include <stdlib.h>
#include <string.h>

#include "transport/onnode/onnode.h"
#include "transport/ofi/ofi_internal.h"

/* Contexts that get an endpoint of their own unless WEFT_CTX_ENDPOINTS or
 * the provider says fewer. Each costs an endpoint, a CQ, two counters and
 * memory: with shm a 16 MiB shared-memory region (8 MiB touched), with
 * tcp;ofi_rxm 5 MiB plus 5 MiB per peer it talks to (measured, with the
 * buffer sizes set in choose_provider). */
#define CTX_ENDPOINTS_DEFAULT 16
#define CTX_RX_SIZE 64

static void limit_budget(long long cap, const char *why)
{
    if (cap < weft_ofi.ctx.ep_budget) {
        weft_ofi.ctx.ep_budget = cap < 0 ? 0 : (int)cap;
        weft_ofi.ctx.ep_limit_by = why;
    }
}

void weft_ofi_ctx_init(void)
{
    const struct fi_domain_attr *d = weft_ofi.fab.info->domain_attr;
    long long want = weft_tun_int(WEFT_TUN_CTX_ENDPOINTS);
    weft_ofi.ctx.ep_budget = want < 0 ? CTX_ENDPOINTS_DEFAULT : (int)(want > 65536 ? 65536 : want);
    weft_ofi.ctx.ep_limit_by = want < 0 ? "weft's default" : "WEFT_CTX_ENDPOINTS";
    /* The provider's counts are per domain; the default endpoint takes one
     * of each. shm's ep_cnt is the peers one process can map: every
     * endpoint any PE of the node ever opened and talked to it through
     * (the default ones included), so it is divided among the PEs. */
    if (d->ep_cnt)
        limit_budget((long long)(d->ep_cnt / (size_t)weft_rt.n_pes) - 1,
                     "the provider's ep_cnt shared by the job's PEs");
    if (d->cq_cnt)
        limit_budget((long long)d->cq_cnt - 1, "the provider's cq_cnt");
    if (d->cntr_cnt)
        limit_budget((long long)d->cntr_cnt / 2 - 1, "the provider's cntr_cnt");
    /* A local buffer's registration would have to be bound to each
     * endpoint that uses it: not done, contexts share instead. */
    if (weft_ofi.fab.mr_endpoint && weft_ofi.fab.mr_local)
        limit_budget(0, "FI_MR_ENDPOINT with FI_MR_LOCAL");
    weft_ofi.ctx.share = weft_tun_bool(WEFT_TUN_CTX_SHARE);
    /* A context's endpoint receives no messages, only replies to its own
     * operations: a small receive queue. (tcp;ofi_rxm's big buffer pools
     * are sized by environment variables only: see choose_provider.) */
    weft_ofi.fab.ctx_info = fi_dupinfo(weft_ofi.fab.info);
    if (weft_ofi.fab.ctx_info && weft_ofi.fab.ctx_info->rx_attr->size > CTX_RX_SIZE)
        weft_ofi.fab.ctx_info->rx_attr->size = CTX_RX_SIZE;
    weft_debug("ofi: contexts: up to %d own endpoints (%s), then %s", weft_ofi.ctx.ep_budget,
               weft_ofi.ctx.ep_limit_by,
               weft_ofi.ctx.share ? "the default context's" : "creation fails");
}

/* Lists: the caller holds ctx_lock. ctx_list is doubly linked (any
 * member can leave), ctx_idle is a stack. The list's head is stored
 * atomically: waits read it without the lock (weft_ofi_progress). */
static void link_in_use(struct weft_ofi_tx *tx)
{
    tx->prev_ctx = NULL;
    tx->next_ctx = weft_ofi.ctx.list;
    if (weft_ofi.ctx.list)
        weft_ofi.ctx.list->prev_ctx = tx;
    __atomic_store_n(&weft_ofi.ctx.list, tx, __ATOMIC_RELAXED);
}
static void unlink_in_use(struct weft_ofi_tx *tx)
{
    if (tx->prev_ctx)
        tx->prev_ctx->next_ctx = tx->next_ctx;
    else
        __atomic_store_n(&weft_ofi.ctx.list, tx->next_ctx, __ATOMIC_RELAXED);
    if (tx->next_ctx)
        tx->next_ctx->prev_ctx = tx->prev_ctx;
    tx->next_ctx = tx->prev_ctx = NULL;
}

static void close_tx(struct weft_ofi_tx *tx)
{
    struct fid_cq *cq = tx->cq;
    weft_ofi_tx_close(tx);
    if (cq)
        fi_close(&cq->fid);
    pthread_mutex_destroy(&tx->lock);
    free(tx);
}

/* A new endpoint with its own CQ, or NULL (the reason at WEFT_DEBUG). */
static struct weft_ofi_tx *open_tx(void)
{
    struct weft_ofi_tx *tx = calloc(1, sizeof *tx);
    if (!tx)
        return NULL;
    pthread_mutex_init(&tx->lock, NULL);
    struct fi_cq_attr cqa;
    memset(&cqa, 0, sizeof cqa);
    cqa.format = FI_CQ_FORMAT_DATA;
    struct fid_cq *cq = NULL;
    int rc = fi_cq_open(weft_ofi.fab.domain, &cqa, &cq, NULL);
    if (rc) {
        weft_debug("ofi: context endpoint: fi_cq_open: %s", fi_strerror(-rc));
        pthread_mutex_destroy(&tx->lock);
        free(tx);
        return NULL;
    }
    if (weft_ofi_tx_open(tx, cq, 0) != 0) {
        close_tx(tx); /* tx->cq is set: closed with it */
        return NULL;
    }
    return tx;
}

struct weft_ofi_tx *weft_ofi_ctx_tx_create(int private_use, int *own)
{
    *own = 0;
    /* Nothing a context issues ever reaches libfabric when every PE is
     * direct: no endpoint, and nothing to count as sharing. */
    if (weft_onnode.all_direct)
        return &weft_ofi_tx0;
    pthread_mutex_lock(&weft_ofi.ctx.lock);
    struct weft_ofi_tx *tx = weft_ofi.ctx.idle;
    int reserved = 0;
    if (tx) {
        weft_ofi.ctx.idle = tx->next_ctx;
        weft_ofi.ctx.eps_idle--;
    } else if (weft_ofi.ctx.eps_open < weft_ofi.ctx.ep_budget) {
        weft_ofi.ctx.eps_open++; /* reserved while we open it unlocked */
        reserved = 1;
    }
    pthread_mutex_unlock(&weft_ofi.ctx.lock);

    if (reserved)
        tx = open_tx();
    if (tx) {
        /* Nobody else holds this tx yet: the flag can be set unlocked. */
        weft_ofi_tx_set_shared(tx, weft_ofi.thread_multiple && !private_use);
        *own = 1;
    }
    pthread_mutex_lock(&weft_ofi.ctx.lock);
    if (tx) {
        link_in_use(tx);
    } else {
        if (reserved)
            weft_ofi.ctx.eps_open--; /* the provider refused: stop here too */
        if (weft_ofi.ctx.share) {
            /* The default context's tx is locked exactly when threads may
             * share it (SHMEM_THREAD_MULTIPLE), which covers this use. */
            tx = &weft_ofi_tx0;
            weft_ofi.ctx.sharing++;
        } else {
            weft_ofi.ctx.refused++;
        }
    }
    int open = weft_ofi.ctx.eps_open, idle = weft_ofi.ctx.eps_idle;
    int sharing = weft_ofi.ctx.sharing;
    pthread_mutex_unlock(&weft_ofi.ctx.lock);
    weft_debug("ofi: new context: %s (endpoints: %d in use, %d idle; %d sharing)",
               *own ? (reserved ? "new endpoint" : "reused endpoint")
               : tx ? "shares the default context's endpoint"
                    : "refused",
               open - idle, idle, sharing);
    return tx;
}

void weft_ofi_ctx_tx_destroy(struct weft_ofi_tx *tx)
{
    if (tx == &weft_ofi_tx0) {
        if (!weft_onnode.all_direct) {
            pthread_mutex_lock(&weft_ofi.ctx.lock);
            weft_ofi.ctx.sharing--;
            pthread_mutex_unlock(&weft_ofi.ctx.lock);
        }
        return;
    }
    /* Idle endpoints have nothing outstanding: the next owner's quiet
     * must not wait for this context's operations. */
    weft_ofi_quiet(tx);
    pthread_mutex_lock(&weft_ofi.ctx.lock);
    unlink_in_use(tx);
    tx->next_ctx = weft_ofi.ctx.idle;
    weft_ofi.ctx.idle = tx;
    weft_ofi.ctx.eps_idle++;
    pthread_mutex_unlock(&weft_ofi.ctx.lock);
}

void weft_ofi_ctx_poke(void)
{
    /* Never wait for the registry: a context being created or destroyed
     * is poked next time. */
    if (pthread_mutex_trylock(&weft_ofi.ctx.lock) != 0)
        return;
    for (struct weft_ofi_tx *tx = weft_ofi.ctx.list; tx; tx = tx->next_ctx)
        if (weft_ofi_active(tx))
            (void)fi_cntr_read(tx->wcntr); /* util counters progress their endpoints */
    pthread_mutex_unlock(&weft_ofi.ctx.lock);
}

void weft_ofi_ctx_quiet_all(void)
{
    pthread_mutex_lock(&weft_ofi.ctx.lock);
    for (struct weft_ofi_tx *tx = weft_ofi.ctx.list; tx; tx = tx->next_ctx)
        weft_ofi_quiet(tx);
    pthread_mutex_unlock(&weft_ofi.ctx.lock);
}

void weft_ofi_ctx_fini(void)
{
    pthread_mutex_lock(&weft_ofi.ctx.lock);
    while (weft_ofi.ctx.list) {
        struct weft_ofi_tx *tx = weft_ofi.ctx.list;
        unlink_in_use(tx);
        close_tx(tx);
    }
    while (weft_ofi.ctx.idle) {
        struct weft_ofi_tx *tx = weft_ofi.ctx.idle;
        weft_ofi.ctx.idle = tx->next_ctx;
        close_tx(tx);
    }
    weft_ofi.ctx.eps_open = weft_ofi.ctx.eps_idle = 0;
    pthread_mutex_unlock(&weft_ofi.ctx.lock);
    if (weft_ofi.fab.ctx_info)
        fi_freeinfo(weft_ofi.fab.ctx_info);
    weft_ofi.fab.ctx_info = NULL;
}

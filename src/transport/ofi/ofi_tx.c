/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_tx.c owns the transmit resources of the libfabric transport (struct
 * weft_ofi_tx): opening one (counters, endpoint bound to the AV and a CQ,
 * dirty list, registered scratch) for the default context and for
 * contexts alike, and closing it. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lifeline.h"
#include "core/scale.h"
#include "core/shm_regions.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

struct weft_ofi_tx weft_ofi_tx0;

/* Scratch for flush reads and, with FI_MR_LOCAL, bounces: local access
 * only. With FI_MR_ENDPOINT the registration is bound to this tx's
 * endpoint. */
static int open_scratch(struct weft_ofi_tx *tx, int warn)
{
    tx->bounce_size = weft_ofi.fab.mr_local ? WEFT_OFI_BOUNCE_SIZE : 64;
    if (posix_memalign((void **)&tx->bounce, weft_ofi.fab.mr_local ? 4096 : 64, tx->bounce_size))
        return -1;
    memset(tx->bounce, 0, tx->bounce_size);
    if (!weft_ofi.fab.mr_local)
        return 0;
    /* Requested keys must differ within the domain (segments use theirs). */
    static uint64_t next_key = 100;
    uint64_t key = __atomic_fetch_add(&next_key, 1, __ATOMIC_RELAXED);
    int rc = fi_mr_reg(weft_ofi.fab.domain, tx->bounce, tx->bounce_size, FI_READ | FI_WRITE, 0, key,
                       0, &tx->bounce_mr, NULL);
    if (rc == 0 && weft_ofi.fab.mr_endpoint &&
        ((rc = fi_mr_bind(tx->bounce_mr, &tx->ep->fid, 0)) != 0 ||
         (rc = fi_mr_enable(tx->bounce_mr)) != 0)) {
        fi_close(&tx->bounce_mr->fid);
        tx->bounce_mr = NULL;
    }
    if (rc) {
        if (warn)
            weft_warn("weft_ofi_init", "registering the scratch buffer: %s", fi_strerror(-rc));
        return -1;
    }
    tx->bounce_desc = fi_mr_desc(tx->bounce_mr);
    return 0;
}

#define TX_CHECK(call, what)                                                      \
    do {                                                                          \
        int rc_ = (call);                                                         \
        if (rc_) {                                                                \
            if (warn)                                                             \
                weft_ofi_open_failed(what, rc_);                                  \
            else                                                                  \
                weft_debug("ofi: context endpoint: %s: %s", what, fi_strerror(-rc_)); \
            return -1;                                                            \
        }                                                                         \
    } while (0)

/* libfabric 1.17's shm provider creates its region as /dev/shm/<pid>:...
 * with O_EXCL, and when that name exists it maps the existing file to see
 * whether its owner is still alive. A file someone else planted there
 * (empty, world-writable) then kills us with SIGBUS. /dev/shm is writable
 * by every user, so refuse to start instead if a file named after our pid
 * belongs to another user (docs/providers.md). Our own stale regions are
 * left to the provider, which recovers them. */
static int refuse_foreign_region(int dir_fd, const char *name, const struct stat *st, void *arg)
{
    (void)dir_fd;
    (void)arg;
    if (st->st_uid != geteuid())
        weft_fatal("shmem_init", "/dev/shm/%s exists and belongs to user %ld, not to us: the "
                   "libfabric shm provider would map it as this PE's region; refusing to start "
                   "(someone else created it; see docs/providers.md)", name, (long)st->st_uid);
    return 0;
}

static void refuse_foreign_shm_files(void)
{
    if (strcmp(weft_ofi_provider_name(), "shm") == 0) {
        weft_shm_regions_foreach((long)getpid(), refuse_foreign_region, NULL);
        /* A context's region keeps its name while it lives, and a PE
         * killed before every peer has mapped its regions leaves theirs:
         * the reaper removes them when a SIGKILL ends it. */
        weft_shm_reaper_start();
    }
}

int weft_ofi_ep_open(struct fid_domain *domain, struct fi_info *fi, struct fid_ep **ep,
                     int (*bind)(struct fid_ep *ep, void *arg, const char **what), void *arg,
                     const char **what)
{
    /* The shm provider names its region after our PID; a region left by a
     * hard-killed process whose PID we now reuse makes fi_enable fail with
     * EBUSY once, after which the provider has removed it: retry
     * (docs/providers.md). */
    for (int attempt = 0;; attempt++) {
        *what = "fi_endpoint";
        int rc = fi_endpoint(domain, fi, ep, NULL);
        if (rc)
            return rc;
        rc = bind(*ep, arg, what);
        if (rc == 0) {
            *what = "fi_enable";
            rc = fi_enable(*ep);
        }
        if (rc == 0)
            return 0;
        fi_close(&(*ep)->fid);
        *ep = NULL;
        if (rc != -FI_EBUSY || attempt == 2)
            return rc;
        weft_debug("ofi: fi_enable: %s; retrying with a new endpoint", fi_strerror(-rc));
    }
}

/* The bindings of a context's endpoint (weft_ofi_ep_open). */
static int bind_tx(struct fid_ep *ep, void *arg, const char **what)
{
    struct weft_ofi_tx *tx = arg;
    int rc;
    if ((rc = fi_ep_bind(ep, &weft_ofi.fab.av->fid, 0)))
        return *what = "fi_ep_bind(av)", rc;
    if ((rc = fi_ep_bind(ep, &tx->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)))
        return *what = "fi_ep_bind(cq)", rc;
    if ((rc = fi_ep_bind(ep, &tx->wcntr->fid, FI_WRITE)))
        return *what = "fi_ep_bind(write counter)", rc;
    if ((rc = fi_ep_bind(ep, &tx->rcntr->fid, FI_READ)))
        return *what = "fi_ep_bind(read counter)", rc;
    struct fid_cntr *served = weft_ofi.progress.served_cntr;
    struct fid_cntr *updates = weft_ofi.progress.update_cntr;
    if (tx == &weft_ofi_tx0 && served &&
        (rc = fi_ep_bind(ep, &served->fid,
                         FI_REMOTE_WRITE | FI_REMOTE_READ | (served == updates ? FI_RECV : 0))))
        return *what = "fi_ep_bind(remote access counter)", rc;
    /* Messages count too: a software atomic or a peer's request is applied
     * by this PE's own progress, which a sleeping wait must wake for. */
    if (tx == &weft_ofi_tx0 && updates && updates != served &&
        (rc = fi_ep_bind(ep, &updates->fid, FI_REMOTE_WRITE | FI_RECV)))
        return *what = "fi_ep_bind(update counter)", rc;
    struct fid_cntr *arrivals = weft_ofi.progress.arrivals;
    if (tx == &weft_ofi_tx0 && arrivals && (rc = fi_ep_bind(ep, &arrivals->fid, FI_RECV)))
        return *what = "fi_ep_bind(arrivals counter)", rc;
    if (tx == &weft_ofi_tx0)
        weft_ofi_msg_ep_prepare(ep);
    return 0;
}

int weft_ofi_tx_open(struct weft_ofi_tx *tx, struct fid_cq *cq, int warn)
{
    struct fi_info *fi = weft_ofi.fab.info;
    if (tx != &weft_ofi_tx0 && weft_ofi.fab.ctx_info)
        fi = weft_ofi.fab.ctx_info;
    tx->cq = cq;
    TX_CHECK(weft_ofi_cntr_open(weft_ofi.fab.domain, &tx->wcntr), "fi_cntr_open(write)");
    TX_CHECK(weft_ofi_cntr_open(weft_ofi.fab.domain, &tx->rcntr), "fi_cntr_open(read)");
    refuse_foreign_shm_files();
    const char *what = NULL;
    TX_CHECK(weft_ofi_ep_open(weft_ofi.fab.domain, fi, &tx->ep, bind_tx, tx, &what), what);
    tx->dirty = calloc((size_t)weft_rt.n_pes, 1);
    tx->dirty_list = calloc((size_t)weft_rt.n_pes, sizeof(int));
    if (!tx->dirty || !tx->dirty_list)
        return -1;
    weft_scale_add(WEFT_SCALE_TX_DIRTY, (long)((size_t)weft_rt.n_pes * (1 + sizeof(int))));
    /* Preset marks: quiet never flushes those PEs (injects_queued_in_order).
     * Not this PE: it sees its own memory by loads, not through its queue. */
    memset(tx->dirty, weft_ofi.order.injects_queued_in_order, (size_t)weft_rt.n_pes);
    tx->dirty[weft_rt.my_pe] = 0;
    tx->cma_head_pe = -1;
    return open_scratch(tx, warn);
}

void weft_ofi_tx_close(struct weft_ofi_tx *tx)
{
    /* The endpoint first: it holds references to the counters, the CQ and
     * the scratch registration. */
    if (tx->ep)
        fi_close(&tx->ep->fid);
    if (tx->bounce_mr)
        fi_close(&tx->bounce_mr->fid);
    if (tx->wcntr)
        fi_close(&tx->wcntr->fid);
    if (tx->rcntr)
        fi_close(&tx->rcntr->fid);
    tx->ep = NULL;
    tx->bounce_mr = NULL;
    tx->wcntr = tx->rcntr = NULL;
    free(tx->bounce);
    if (tx->dirty && tx->dirty_list)
        weft_scale_add(WEFT_SCALE_TX_DIRTY, -(long)((size_t)weft_rt.n_pes * (1 + sizeof(int))));
    if (tx->coal_dirty && tx->coal_dirty_list)
        weft_scale_note(WEFT_SCALE_COAL_DIRTY, 0);
    free(tx->dirty);
    free(tx->dirty_list);
    free(tx->coal_buf);
    free(tx->coal_dirty);
    free(tx->coal_dirty_list);
    free(tx->cma_defer);
    tx->cma_defer = NULL;
    tx->cma_ndefer = 0;
    tx->bounce = NULL;
    tx->dirty = NULL;
    tx->dirty_list = NULL;
    tx->coal_buf = NULL;
    tx->coal_dirty = NULL;
    tx->coal_dirty_list = NULL;
}

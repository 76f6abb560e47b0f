/* ofi_init.c owns the setup and teardown of the libfabric transport:
 * provider choice (fi_getinfo order, FI_PROVIDER / WEFT_PROVIDER), the
 * domain threading model, endpoint + AV (FI_AV_TABLE, fi_addr == PE) +
 * counters + CQ, segment registration and the exchange of names, keys and
 * bases through the bootstrap, the wait/retry helpers, and
 * weft_ofi_describe (progress and its thread: ofi_progress.c). */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "transport/onnode/onnode.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

struct weft_ofi_state weft_ofi = {.wait_fd = -1}; /* no descriptor before init */

/* 1: open the CQ with FI_WAIT_FD for the progress thread (see below). */
#define WEFT_OFI_CQ_WAIT_FD 0

struct peer_blob {
    uint64_t base[WEFT_NSEGS];
    uint64_t key[WEFT_NSEGS];
    uint32_t namelen;
    uint32_t pad;
    uint8_t name[WEFT_OFI_NAME_MAX];
    struct weft_ofi_cma_blob cma; /* gets and puts by CMA (ofi_cma.c) */
};

/* ---- errors, waiting, retrying ----------------------------------------- */

void weft_ofi_fail(const char *what, int pe, ssize_t rc)
{
    char why[600];
    weft_ofi_diagnose(weft_ofi.info ? weft_ofi_provider_name() : NULL, why, sizeof why);
    if (pe >= 0)
        weft_fatal(what, "to PE %d failed: %s (%zd)%s", pe, fi_strerror((int)-rc), rc, why);
    weft_fatal(what, "failed: %s (%zd)%s", fi_strerror((int)-rc), rc, why);
}

static long now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec;
}

/* weft_poll_yield for a wait on tx's completions: a context's endpoint has
 * its own CQ, which the shared CQ's descriptor does not cover, so such a
 * wait must not nap on that descriptor (weft_ofi_can_block). */
static void poll_yield_for(struct weft_ofi_tx *tx, unsigned *spins)
{
    int own_cq = tx && tx->cq != weft_ofi.cq;
    weft_ofi_waiting_own_cq += own_cq;
    weft_poll_yield(spins);
    weft_ofi_waiting_own_cq -= own_cq;
}

void weft_ofi_retry_wait(struct weft_ofi_tx *tx, struct weft_ofi_retry *r, const char *what,
                         int pe)
{
    if (r->spins == 0)
        r->start = now_sec();
    if (tx && tx->cq != weft_ofi.cq)
        (void)fi_cntr_read(tx->wcntr); /* util counters progress their endpoints */
    poll_yield_for(tx, &r->spins);
    if ((r->spins & 1023) == 0 && weft_ofi.retry_timeout > 0 &&
        now_sec() - r->start > weft_ofi.retry_timeout) {
        if (pe >= 0)
            weft_fatal(what, "to PE %d: resources busy (EAGAIN) for more than %ld s "
                       "(WEFT_RETRY_TIMEOUT)", pe, weft_ofi.retry_timeout);
        weft_fatal(what, "resources busy (EAGAIN) for more than %ld s (WEFT_RETRY_TIMEOUT)",
                   weft_ofi.retry_timeout);
    }
}

/* A context's endpoint reports its failed operations on its own CQ; the
 * default's land in the shared CQ, which progress drains. */
int weft_ofi_read_cq_error(struct fid_cq *cq, struct fi_cq_err_entry *err)
{
    memset(err, 0, sizeof *err);
    if (fi_cq_readerr(cq, err, 0) < 0)
        return -1;
    const char *s = fi_cq_strerror(cq, err->prov_errno, err->err_data, NULL, 0);
    snprintf(weft_ofi.last_err, sizeof weft_ofi.last_err, "%s (%s)", fi_strerror(err->err),
             s ? s : "");
    return 0;
}

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

static void pick_up_error_text(struct weft_ofi_tx *tx)
{
    if (tx->cq == weft_ofi.cq) {
        weft_ofi_progress();
        return;
    }
    struct fi_cq_err_entry err;
    (void)weft_ofi_read_cq_error(tx->cq, &err);
}

/* Counters first: on the util-based providers (shm, tcp;ofi_rxm) reading a
 * counter progresses the endpoints bound to it, which is all a write or a
 * read of ours needs, so the full progress call (draining the CQ for
 * incoming messages, counting this thread as polling) runs only every
 * COUNTER_POLLS polls; it still runs, or a peer waiting on one of our
 * software-atomic replies while we wait for it would never see it. The
 * error counter is read only while the count falls short: an operation
 * that failed is never counted as done. */
#define COUNTER_POLLS 8u
/* The polls of tx's write (reads 0) or read counter once the first read
 * fell short; out of line, so that the usual quiet, whose first read finds
 * everything done, neither builds this frame nor reads the counter twice. */
static __attribute__((noinline)) void wait_cntr_polling(struct weft_ofi_tx *tx, int reads,
                                                        uint64_t issued, const char *what)
{
    struct fid_cntr *c = reads ? tx->rcntr : tx->wcntr;
    uint64_t *err_seen = reads ? &tx->r_err_seen : &tx->w_err_seen;
    unsigned spins = 0, polls = 0;
    uint64_t done;
    do {
        uint64_t err = fi_cntr_readerr(c);
        if (WEFT_UNLIKELY(err != *err_seen)) {
            pick_up_error_text(tx);
            weft_fatal(what, "%" PRIu64 " %s operation(s) failed: %s", err - *err_seen,
                       reads ? "get/fetching atomic" : "put/atomic",
                       weft_ofi.last_err[0] ? weft_ofi.last_err : "(no detail from provider)");
        }
        if (++polls % COUNTER_POLLS == 0)
            poll_yield_for(tx, &spins);
        else
            __builtin_ia32_pause();
        done = fi_cntr_read(c);
    } while (WEFT_UNLIKELY(done < issued));
    *(reads ? &tx->r_done_seen : &tx->w_done_seen) = done;
}

/* Whether tx's write (reads 0) or read counter has reached issued, read
 * once at most: a count no higher than the one last read is answered
 * without calling the provider. reads is a constant at each caller, so
 * the choices fold. */
static inline int cntr_reached(struct weft_ofi_tx *tx, int reads, uint64_t issued)
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

/* Wait until tx's write (reads 0) or read counter reaches issued. */
static inline void wait_cntr(struct weft_ofi_tx *tx, int reads, uint64_t issued, const char *what)
{
    if (WEFT_UNLIKELY(!cntr_reached(tx, reads, issued)))
        wait_cntr_polling(tx, reads, issued, what);
}

int weft_ofi_reads_reached(struct weft_ofi_tx *tx, uint64_t count)
{
    return cntr_reached(tx, 1, count);
}

void weft_ofi_wait_writes(struct weft_ofi_tx *tx, const char *what)
{
    wait_cntr(tx, 0, __atomic_load_n(&tx->w_issued, __ATOMIC_RELAXED), what);
}

void weft_ofi_wait_reads(struct weft_ofi_tx *tx, const char *what)
{
    wait_cntr(tx, 1, __atomic_load_n(&tx->r_issued, __ATOMIC_RELAXED), what);
}

/* ---- provider selection ------------------------------------------------ */

#define MR_MODE_SUPPORTED \
    (FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT)

struct fi_info *weft_ofi_base_hints(const char *prov, int mr_local)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = FI_RMA | FI_MSG;
    h->ep_attr->type = FI_EP_RDM;
    h->mode = 0; /* we do not supply FI_CONTEXT etc. */
    h->domain_attr->mr_mode = MR_MODE_SUPPORTED | (mr_local ? FI_MR_LOCAL : 0);
    h->domain_attr->av_type = FI_AV_TABLE;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->resource_mgmt = FI_RM_ENABLED;
    if (prov && *prov)
        h->fabric_attr->prov_name = strdup(prov);
    return h;
}

/* Providers whose progress reads sockets: each poll costs system calls. */
static int progress_reads_sockets(const char *prov)
{
    return strstr(prov, "tcp") || strstr(prov, "sockets") || strstr(prov, "udp");
}

static int progress_is_manual(const struct fi_info *fi)
{
    return fi->domain_attr->data_progress == FI_PROGRESS_MANUAL ||
           fi->domain_attr->control_progress == FI_PROGRESS_MANUAL;
}

/* Debian's libfabric links libinfinipath (psm), whose constructor installs
 * handlers for SIGTERM, SIGINT, SIGSEGV... that print a backtrace and call
 * exit(): a PE told to stop then runs its at-exit finalize (a barrier with
 * dying peers) and hangs until SIGKILL (measured: global_exit job 3.4 s ->
 * 0.5 s). It happens before main, so IPATH_NO_BACKTRACE set here is too
 * late; put back the default action where, and only where, the handler is
 * that library's. */
static void drop_infinipath_handlers(void)
{
    static const int sigs[] = {SIGINT, SIGILL, SIGABRT, SIGBUS, SIGSEGV, SIGTERM, SIGFPE, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa;
        Dl_info info;
        if (sigaction(sigs[i], NULL, &sa) != 0 || sa.sa_handler == SIG_DFL ||
            sa.sa_handler == SIG_IGN)
            continue;
        void *fn = (sa.sa_flags & SA_SIGINFO) ? (void *)sa.sa_sigaction : (void *)sa.sa_handler;
        if (dladdr(fn, &info) && info.dli_fname && strstr(info.dli_fname, "infinipath")) {
            signal(sigs[i], SIG_DFL);
            weft_debug("ofi: removed libinfinipath's handler for signal %d", sigs[i]);
        }
    }
}

/* Pick the provider: the first fi_getinfo answer for RDM + RMA + MSG, then
 * refine on that same provider/fabric/domain with FI_ATOMIC and
 * FI_DELIVERY_COMPLETE, each kept only if the provider accepts it. */
static struct fi_info *choose_provider(int want_thread_safe_hint, int *thread_on,
                                       int *delivery_asked)
{
    const char *prov = weft_tun_str(WEFT_TUN_PROVIDER);
    struct fi_info *list = NULL, *hints = NULL;
    int mr_local = 0, rc = -FI_ENODATA;
    /* A job on one host is served best by shm (fi_getinfo's order puts
     * network providers first); the user's FI_PROVIDER/WEFT_PROVIDER wins.
     * Every PE sees the same single_node, so all choose alike. */
    /* The sockets provider's progress thread spins 10 ms per wake-up by
     * default; with more PEs than cores that starves the PEs (measured: a
     * 4-PE ring hop 19.9 ms -> 1.2 ms with 0 on 2 cores). The user's value
     * wins. Must be set before libfabric initializes the provider. */
    setenv("FI_SOCKETS_PE_WAITTIME", "0", 0);
    /* tcp;ofi_rxm gives every endpoint a pool of MSG_RX_SIZE receive
     * buffers and every connection about 1024 more, each BUFFER_SIZE
     * bytes: 68 MiB per endpoint plus 17 MiB per peer at the defaults
     * (measured), which made an endpoint per context unaffordable. RMA
     * bypasses these buffers; the buffer size is also rxm's eager limit,
     * and every message of weft's engine (at most WEFT_OFI_MSG_BUF_SIZE: a
     * coalesced-put batch, a GASNet medium message) must fit it, because a
     * larger one goes by rendezvous and completes at the target after
     * smaller messages sent later (docs/providers.md, problem 7). 4224 x
     * 128 gives about 5 MiB plus 5 MiB per peer, with no change measured
     * in the benchmarks (docs/providers.md). The user's values win. */
    char rxm_buffer[16];
    snprintf(rxm_buffer, sizeof rxm_buffer, "%d", WEFT_OFI_MSG_BUF_SIZE);
    setenv("FI_OFI_RXM_BUFFER_SIZE", rxm_buffer, 0);
    setenv("FI_OFI_RXM_MSG_RX_SIZE", "128", 0);
    /* A job on one host needs no network: tcp and sockets listen on the
     * loopback interface only, unreachable from other hosts (they accept
     * any connection unauthenticated; docs/reliability.md). The user's
     * choice of interface wins. */
    if (weft_rt.single_node) {
        setenv("FI_TCP_IFACE", "lo", 0);
        setenv("FI_SOCKETS_IFACE", "lo", 0);
    }
    drop_infinipath_handlers();
    /* FI_PROVIDER="" would match no provider at all: treat it as unset. */
    const char *fi_prov = getenv("FI_PROVIDER");
    if (fi_prov && !*fi_prov) {
        unsetenv("FI_PROVIDER");
        fi_prov = NULL;
    }
    int try_shm = !*prov && !(fi_prov && *fi_prov) && weft_rt.single_node;
    for (int attempt = try_shm ? 0 : 1; attempt < 2 && rc != 0; attempt++) {
        const char *want = attempt == 0 ? "shm" : prov;
        for (mr_local = 0; mr_local < 2; mr_local++) {
            hints = weft_ofi_base_hints(want, mr_local);
            rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &list);
            fi_freeinfo(hints);
            if (rc == 0)
                break;
        }
        char why[600];
        if (rc != 0 && attempt == 0)
            weft_debug("ofi: shm unavailable: %s%s; trying the other providers", fi_strerror(-rc),
                       weft_ofi_diagnose("shm", why, sizeof why));
        else if (rc != 0)
            weft_fatal("shmem_init", "no libfabric provider%s%s offers RDM endpoints with RMA and "
                       "messages: %s%s", *want || fi_prov ? " named " : "", *want ? want :
                       fi_prov ? fi_prov : "", fi_strerror(-rc),
                       weft_ofi_diagnose(*want ? want : fi_prov, why, sizeof why));
    }
    const struct fi_info *first = list;
    weft_debug("ofi: candidate provider %s, fabric %s, domain %s",
               first->fabric_attr->prov_name, first->fabric_attr->name, first->domain_attr->name);

    const char *pt = weft_tun_str(WEFT_TUN_PROGRESS_THREAD);
    if (!strcmp(pt, "on") || !strcmp(pt, "1") || !strcmp(pt, "yes"))
        *thread_on = 1;
    else if (!strcmp(pt, "off") || !strcmp(pt, "0") || !strcmp(pt, "no"))
        *thread_on = 0;
    else if (!strcmp(pt, "auto"))
        /* Decided finally in weft_ofi_init once the AMO table is known:
         * software AMOs need our progress even on auto-progress providers.
         * Ask for FI_THREAD_SAFE so the thread can start either way. */
        *thread_on = weft_rt.n_pes > 1 ? 2 : 0;
    else
        weft_fatal("shmem_init", "WEFT_PROGRESS_THREAD=%s: expected auto, on or off", pt);

    const char *amo = weft_tun_str(WEFT_TUN_AMO);
    int want_atomic = 1;
    if (!strcmp(amo, "software"))
        want_atomic = 0;
    else if (strcmp(amo, "auto") && strcmp(amo, "native"))
        weft_fatal("shmem_init", "WEFT_AMO=%s: expected auto or software", amo);
    const char *rcs = weft_tun_str(WEFT_TUN_REMOTE_COMPLETION);
    int want_dc = 1, need_dc = 0;
    if (!strcmp(rcs, "flush"))
        want_dc = 0;
    else if (!strcmp(rcs, "delivery"))
        need_dc = 1;
    else if (strcmp(rcs, "auto"))
        weft_fatal("shmem_init", "WEFT_REMOTE_COMPLETION=%s: expected auto, delivery or flush",
                   rcs);
    *delivery_asked = need_dc;

    struct fi_info *chosen = NULL;
    for (int step = 0; step < 4 && !chosen; step++) {
        int atomic = want_atomic && !(step & 2);
        int dc = want_dc && !(step & 1);
        if ((step & 2) && !want_atomic)
            continue; /* same as the step without atomics */
        if ((step & 1) && !want_dc)
            continue;
        if (need_dc && !dc)
            continue;
        hints = weft_ofi_base_hints(first->fabric_attr->prov_name, mr_local);
        hints->fabric_attr->name = strdup(first->fabric_attr->name);
        hints->domain_attr->name = strdup(first->domain_attr->name);
        if (atomic)
            hints->caps |= FI_ATOMIC;
        if (dc)
            hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
        if (*thread_on || want_thread_safe_hint)
            hints->domain_attr->threading = FI_THREAD_SAFE;
        /* Ask for the ordering that makes fence free (weft_ofi_fence); a
         * provider that cannot give it is asked again without. */
        struct fi_info *got = NULL;
        hints->tx_attr->msg_order = WEFT_OFI_FENCE_ORDER;
        hints->rx_attr->msg_order = WEFT_OFI_FENCE_ORDER;
        rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &got);
        int asked_order = 1;
        if (rc == -FI_ENODATA) {
            asked_order = 0;
            hints->tx_attr->msg_order = hints->rx_attr->msg_order = 0;
            rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &got);
        }
        fi_freeinfo(hints);
        weft_debug("ofi: %s with%s FI_ATOMIC, with%s FI_DELIVERY_COMPLETE: %s",
                   first->fabric_attr->prov_name, atomic ? "" : "out", dc ? "" : "out",
                   rc ? fi_strerror(-rc) : "ok");
        if (rc == 0) {
            chosen = fi_dupinfo(got);
            fi_freeinfo(got);
            if (dc && !(chosen->tx_attr->op_flags & FI_DELIVERY_COMPLETE))
                chosen->tx_attr->op_flags |= FI_DELIVERY_COMPLETE;
            /* Asked without the full fence order, a provider reports no
             * size for the order it still gives (rxm: 0 against its listed
             * unlimited RMA write order); its listing holds. */
            if (!asked_order &&
                chosen->ep_attr->max_order_waw_size < first->ep_attr->max_order_waw_size)
                chosen->ep_attr->max_order_waw_size = first->ep_attr->max_order_waw_size;
        }
    }
    fi_freeinfo(list);
    if (!chosen)
        weft_warn("weft_ofi_init", "provider refused the refined hints%s",
                  need_dc ? " (WEFT_REMOTE_COMPLETION=delivery needs FI_DELIVERY_COMPLETE)" : "");
    return chosen;
}

/* ---- registration ------------------------------------------------------ */

static int reg_one(void *base, size_t size, uint64_t access, uint64_t key, struct fid_mr **mr)
{
    int rc = fi_mr_reg(weft_ofi.domain, base, size, access, 0, key, 0, mr, NULL);
    if (rc) {
        weft_warn("weft_ofi_init", "fi_mr_reg(%p, %zu, key %" PRIu64 "): %s", base, size, key,
                  fi_strerror(-rc));
        return -1;
    }
    if (weft_ofi.mr_endpoint) {
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
    if (weft_ofi.mr_local)
        access |= FI_READ | FI_WRITE | FI_SEND | FI_RECV;
    for (int s = 0; s < WEFT_NSEGS; s++) {
        struct weft_segment *sg = &weft_rt.seg[s];
        mine->base[s] = (uint64_t)(uintptr_t)sg->base;
        mine->key[s] = 0;
        if (!sg->base || !sg->size)
            continue;
        if (reg_one(sg->base, sg->size, access, (uint64_t)s, &weft_ofi.mr[s]) != 0)
            return -1;
        weft_ofi.mr_desc[s] = fi_mr_desc(weft_ofi.mr[s]);
        mine->key[s] = fi_mr_key(weft_ofi.mr[s]);
        if (!weft_ofi.prov_key && mine->key[s] != (uint64_t)s) {
            weft_warn("weft_ofi_init", "provider ignored the requested MR key %d (got %" PRIu64
                      ")", s, mine->key[s]);
            return -1;
        }
    }
    return 0;
}

/* ---- transmit resources (the default context's and contexts') --------- */

/* Scratch for flush reads and, with FI_MR_LOCAL, bounces: local access
 * only. With FI_MR_ENDPOINT the registration is bound to this tx's
 * endpoint. */
static int open_scratch(struct weft_ofi_tx *tx, int warn)
{
    tx->bounce_size = weft_ofi.mr_local ? WEFT_OFI_BOUNCE_SIZE : 64;
    if (posix_memalign((void **)&tx->bounce, weft_ofi.mr_local ? 4096 : 64, tx->bounce_size))
        return -1;
    memset(tx->bounce, 0, tx->bounce_size);
    if (!weft_ofi.mr_local)
        return 0;
    /* Requested keys must differ within the domain (segments use theirs). */
    static uint64_t next_key = 100;
    uint64_t key = __atomic_fetch_add(&next_key, 1, __ATOMIC_RELAXED);
    int rc = fi_mr_reg(weft_ofi.domain, tx->bounce, tx->bounce_size, FI_READ | FI_WRITE, 0, key,
                       0, &tx->bounce_mr, NULL);
    if (rc == 0 && weft_ofi.mr_endpoint &&
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
static void refuse_foreign_shm_files(void)
{
    if (strcmp(weft_ofi_provider_name(), "shm") != 0)
        return;
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    char prefix[32];
    int plen = snprintf(prefix, sizeof prefix, "%ld:", (long)getpid());
    uid_t me = geteuid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0 ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid == me)
            continue;
        char name[300];
        snprintf(name, sizeof name, "%s", e->d_name);
        closedir(d);
        weft_fatal("shmem_init", "/dev/shm/%s exists and belongs to user %ld, not to us: the "
                   "libfabric shm provider would map it as this PE's region; refusing to start "
                   "(someone else created it; see docs/providers.md)", name, (long)st.st_uid);
    }
    closedir(d);
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
    if ((rc = fi_ep_bind(ep, &weft_ofi.av->fid, 0)))
        return *what = "fi_ep_bind(av)", rc;
    if ((rc = fi_ep_bind(ep, &tx->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)))
        return *what = "fi_ep_bind(cq)", rc;
    if ((rc = fi_ep_bind(ep, &tx->wcntr->fid, FI_WRITE)))
        return *what = "fi_ep_bind(write counter)", rc;
    if ((rc = fi_ep_bind(ep, &tx->rcntr->fid, FI_READ)))
        return *what = "fi_ep_bind(read counter)", rc;
    if (tx == &weft_ofi_tx0 && weft_ofi.served_cntr &&
        (rc = fi_ep_bind(ep, &weft_ofi.served_cntr->fid, FI_REMOTE_WRITE | FI_REMOTE_READ)))
        return *what = "fi_ep_bind(remote access counter)", rc;
    return 0;
}

int weft_ofi_tx_open(struct weft_ofi_tx *tx, struct fid_cq *cq, int warn)
{
    struct fi_info *fi = weft_ofi.info;
    if (tx != &weft_ofi_tx0 && weft_ofi.ctx_info)
        fi = weft_ofi.ctx_info;
    tx->cq = cq;
    TX_CHECK(weft_ofi_cntr_open(weft_ofi.domain, &tx->wcntr), "fi_cntr_open(write)");
    TX_CHECK(weft_ofi_cntr_open(weft_ofi.domain, &tx->rcntr), "fi_cntr_open(read)");
    refuse_foreign_shm_files();
    const char *what = NULL;
    TX_CHECK(weft_ofi_ep_open(weft_ofi.domain, fi, &tx->ep, bind_tx, tx, &what), what);
    tx->dirty = calloc((size_t)weft_rt.n_pes, 1);
    tx->dirty_list = calloc((size_t)weft_rt.n_pes, sizeof(int));
    if (!tx->dirty || !tx->dirty_list)
        return -1;
    /* Preset marks: quiet never flushes those PEs (injects_queued_in_order).
     * Not this PE: it sees its own memory by loads, not through its queue. */
    memset(tx->dirty, weft_ofi.injects_queued_in_order, (size_t)weft_rt.n_pes);
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

/* ---- init / fini ------------------------------------------------------- */

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
 * would need endpoints on the others. */
static int all_pes_direct(void)
{
    if (!weft_onnode.all_direct || !weft_rt.single_node)
        return 0;
    int n = weft_rt.n_pes, mine = 1, ok = 1;
    if (n == 1)
        return 1;
    int *all = malloc((size_t)n * sizeof *all);
    if (!all || weft_boot_allgather("weft-direct", &mine, all, sizeof mine) != 0)
        ok = 0;
    for (int pe = 0; ok && pe < n; pe++)
        ok = all[pe] == 1;
    free(all);
    return ok;
}

int weft_ofi_unused(void)
{
    return weft_ofi.unused;
}

int weft_ofi_init(int thread_multiple)
{
    memset(&weft_ofi, 0, sizeof weft_ofi);
    weft_ofi.wait_fd = -1; /* until weft_ofi_wait_obj_init finds the CQ's */
    pthread_mutex_init(&weft_ofi.ctx_lock, NULL);
    if (all_pes_direct()) {
        weft_ofi.unused = 1;
        weft_ofi.thread_multiple = thread_multiple; /* loads, stores and CPU atomics */
        weft_debug("ofi: every PE is reached directly: libfabric is not opened");
        return 0;
    }
    if (weft_ofi_load() != 0)
        return -1;
    int thread_on = 0, delivery_asked = 0;
    /* FI_THREAD_SAFE covers our progress thread and, under
     * SHMEM_THREAD_MULTIPLE, threads driving their contexts' endpoints at
     * the same time (FI_THREAD_DOMAIN would make the whole domain one
     * thread's at a time). */
    struct fi_info *fi = choose_provider(thread_multiple, &thread_on, &delivery_asked);
    if (!fi)
        return -1;
    weft_ofi.info = fi;
    uint64_t mm = (uint64_t)fi->domain_attr->mr_mode;
    weft_ofi.prov_key = !!(mm & FI_MR_PROV_KEY);
    weft_ofi.virt_addr = !!(mm & FI_MR_VIRT_ADDR);
    weft_ofi.mr_local = !!(mm & FI_MR_LOCAL);
    weft_ofi.mr_endpoint = !!(mm & FI_MR_ENDPOINT);
    weft_ofi.manual = progress_is_manual(fi);
    weft_ofi.thread_safe = fi->domain_attr->threading == FI_THREAD_SAFE;
    /* Without FI_THREAD_SAFE the runtime provides SERIALIZED instead. */
    thread_multiple = thread_multiple && weft_ofi.thread_safe;
    weft_ofi.thread_multiple = thread_multiple;
    weft_ofi.have_atomic_cap = !!(fi->caps & FI_ATOMIC);
    weft_ofi.rc = (fi->tx_attr->op_flags & FI_DELIVERY_COMPLETE) ? WEFT_RC_DELIVERY : WEFT_RC_FLUSH;
    weft_ofi.prov_inject = fi->tx_attr->inject_size;
    /* Fence by ordering needs the provider's order and room to inject a
     * software atomic's request from a context's endpoint. */
    const char *fence = weft_tun_str(WEFT_TUN_FENCE);
    if (strcmp(fence, "auto") && strcmp(fence, "quiet"))
        weft_fatal("shmem_init", "WEFT_FENCE=%s: expected auto or quiet", fence);
    /* The provider's order says nothing about a store that bypasses it:
     * where a peer is reached directly for one segment and through
     * libfabric for the other (weft_onnode.split), a put through libfabric
     * followed by a fence and a direct store to that peer (data in .bss,
     * flag in the heap, WEFT_ONNODE_STATIC=0) would show the flag first,
     * so the fence must complete libfabric's operations. */
    weft_ofi.ordered = !strcmp(fence, "auto") &&
                       (fi->tx_attr->msg_order & WEFT_OFI_FENCE_ORDER) == WEFT_OFI_FENCE_ORDER &&
                       weft_ofi.prov_inject >= WEFT_OFI_MSG_AMO_SIZE &&
                       !weft_onnode.split;
    weft_ofi.rma_ordered = !weft_ofi.ordered && !strcmp(fence, "auto") &&
                           (fi->tx_attr->msg_order & FI_ORDER_RMA_WAW) && !weft_onnode.split;
    weft_ofi.injects_queued_in_order = !strcmp(fi->fabric_attr->prov_name, "shm") &&
                                       weft_ofi.rc == WEFT_RC_DELIVERY && !weft_onnode.mixed;
    /* Only where fence relies on RMA write order alone (rxm); shm reports
     * an order for writes of any size in its answer but moves large ones
     * in pieces (problem 6 in docs/providers.md: coll.bcast_* failed), so
     * there and on sockets every non-injected write still counts as large. */
    weft_ofi.order_waw_size = weft_ofi.rma_ordered ? fi->ep_attr->max_order_waw_size : 0;
    long long inj = weft_tun_int(WEFT_TUN_INJECT_SIZE);
    weft_ofi.inject_size = (inj < 0 || (size_t)inj > fi->tx_attr->inject_size)
                               ? fi->tx_attr->inject_size
                               : (size_t)inj;
    /* Only where the pieces queue in order at the target: there a later
     * operation (a flag, a fence's next write) lands after the last piece,
     * and quiet needs nothing back from them. */
    weft_ofi.split_put_max = weft_ofi.injects_queued_in_order && weft_ofi.inject_size
                                 ? (size_t)weft_tun_int(WEFT_TUN_SHM_SPLIT_PUT)
                                 : 0;
    /* Not on shm: a write above its inject size completes only once the
     * target has copied it, with or without the flag. Not where the user
     * asked for delivery completion (WEFT_REMOTE_COMPLETION=delivery). */
    weft_ofi.writes_flushed = weft_ofi.rc == WEFT_RC_DELIVERY &&
                              strcmp(fi->fabric_attr->prov_name, "shm") && !weft_ofi.mr_local &&
                              !delivery_asked;
    weft_ofi.max_msg = fi->ep_attr->max_msg_size ? fi->ep_attr->max_msg_size : (1u << 30);
    if (weft_ofi.max_msg > ((size_t)1 << 30))
        weft_ofi.max_msg = (size_t)1 << 30; /* keep chunks bounded */
    size_t il = fi->tx_attr->iov_limit, ril = fi->tx_attr->rma_iov_limit;
    weft_ofi.iov_limit = il < ril ? il : ril;
    if (weft_ofi.iov_limit < 1)
        weft_ofi.iov_limit = 1;
    /* Counting puts and pushes on 64-bit immediate data where the provider
     * reports it (docs/providers.md: shm, tcp;ofi_rxm, sockets on 1.17). */
    const char *imm = weft_tun_str(WEFT_TUN_CT_IMMEDIATE);
    if (strcmp(imm, "auto") && strcmp(imm, "off"))
        weft_fatal("shmem_init", "WEFT_CT_IMMEDIATE=%s: expected auto or off", imm);
    weft_ofi_count_imm = !strcmp(imm, "auto") && fi->domain_attr->cq_data_size >= 8 &&
                         !(fi->mode & FI_RX_CQ_DATA) && !weft_ofi.mr_local;
    weft_debug("ofi: counters %s (cq_data_size %zu)",
               weft_ofi_count_imm ? "on immediate data" : "by atomic add",
               fi->domain_attr->cq_data_size);
    weft_ofi.retry_timeout = (long)weft_tun_int(WEFT_TUN_RETRY_TIMEOUT);
    weft_debug("ofi: msg_order [%s]; fence %s",
               fi_tostr(&fi->tx_attr->msg_order, FI_TYPE_MSG_ORDER),
               weft_ofi.ordered       ? "by provider ordering"
               : weft_ofi.rma_ordered ? "by RMA write ordering (deferred before an atomic)"
                                      : "= quiet");
    weft_debug("ofi: using %s (fabric %s, domain %s), mr_mode %s, %s progress, threading %s, "
               "remote completion by %s", fi->fabric_attr->prov_name, fi->fabric_attr->name,
               fi->domain_attr->name, fi_tostr(&fi->domain_attr->mr_mode, FI_TYPE_MR_MODE),
               weft_ofi.manual ? "manual" : "auto", weft_ofi.thread_safe ? "safe" : "domain",
               weft_ofi.rc == WEFT_RC_DELIVERY ? "FI_DELIVERY_COMPLETE" : "flush reads");
    weft_debug("ofi: injected writes and atomics %s", weft_ofi.injects_queued_in_order
                   ? "queue in order at the target: quiet reads nothing back"
                   : "flushed by a read at quiet");

    CHECK(fi_fabric(fi->fabric_attr, &weft_ofi.fabric, NULL), "fi_fabric");
    CHECK(fi_domain(weft_ofi.fabric, fi, &weft_ofi.domain, NULL), "fi_domain");
    CHECK(weft_ofi_av_open(weft_ofi.domain, &weft_ofi.av), "fi_av_open");
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
     * descriptor instead (core/sync.c): without it every waiting PE yields,
     * and two PEs sharing a CPU then take turns only at the scheduler's
     * tick (get at 4 PEs on 2 CPUs: 1 ms in some runs, 31-43 us napping). */
    int naps = weft_idle_naps_possible(), rma_events = !!(weft_ofi.info->caps & FI_RMA_EVENT);
    int naps_on_cq_fd = naps && !rma_events;
    cqa.wait_obj = FI_WAIT_NONE;
    if ((thread_on && WEFT_OFI_CQ_WAIT_FD) || naps_on_cq_fd) {
        cqa.wait_obj = FI_WAIT_FD;
        if (fi_cq_open(weft_ofi.domain, &cqa, &weft_ofi.cq, NULL) == 0)
            weft_ofi.cq_wait_fd = 1;
        else
            cqa.wait_obj = FI_WAIT_NONE;
    }
    if (!weft_ofi.cq_wait_fd)
        CHECK(fi_cq_open(weft_ofi.domain, &cqa, &weft_ofi.cq, NULL), "fi_cq_open");

    /* Peers' reads, writes and atomics served by this PE's progress are
     * counted where the host is oversubscribed, so that a waiting PE can
     * tell whether it serves anyone (core/sync.c, idle naps). shm counts
     * them (FI_RMA_EVENT); tcp;ofi_rxm cannot, and its PEs nap on the
     * CQ's descriptor instead (naps_on_cq_fd above). */
    /* Gets read by CMA (ofi_cma.c) look at the same count. */
    if ((naps || weft_ofi_cma_wanted()) && rma_events) {
        CHECK(weft_ofi_cntr_open(weft_ofi.domain, &weft_ofi.served_cntr),
              "fi_cntr_open(remote access)");
    }
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    if (weft_ofi_tx_open(tx, weft_ofi.cq, 1) != 0)
        return -1;
    /* Under SHMEM_THREAD_MULTIPLE any thread may use the default context. */
    weft_ofi_tx_set_shared(tx, thread_multiple);
    pthread_mutex_init(&tx->lock, NULL);
    weft_ofi.scalar_inject = tx->shared ? 0 : weft_ofi.inject_size;

    struct peer_blob mine;
    memset(&mine, 0, sizeof mine);
    if (register_segments(&mine) != 0)
        return -1;
    size_t nl = sizeof mine.name;
    CHECK(fi_getname(&tx->ep->fid, mine.name, &nl), "fi_getname");
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
    /* One fi_av_insert of every name, packed in PE order, when all names
     * have one length (tcp, sockets: sockaddrs; shm: PIDs of one width);
     * otherwise one name at a time, in PE order (shm's names embed the
     * PID, so 99999 and 100000 differ by a byte; each blob's name is
     * zero-padded). fi_addr must come out equal to the PE. */
    int ok = 1, same_len = 1;
    for (int p = 1; p < n; p++)
        same_len &= all[p].namelen == all[0].namelen;
    size_t nlen = all[0].namelen;
    char *packed = same_len && n > 1 ? malloc((size_t)n * nlen) : NULL;
    fi_addr_t *addrs = packed ? malloc((size_t)n * sizeof *addrs) : NULL;
    if (packed && addrs) {
        for (int p = 0; p < n; p++)
            memcpy(packed + (size_t)p * nlen, all[p].name, nlen);
        int got = fi_av_insert(weft_ofi.av, packed, (size_t)n, addrs, 0, NULL);
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
            int got = fi_av_insert(weft_ofi.av, all[p].name, 1, &addr, 0, NULL);
            ok = got == 1 && addr == (fi_addr_t)p;
            if (!ok)
                weft_warn("weft_ofi_init", "fi_av_insert of PE %d's address (%u bytes) gave %d, "
                          "fi_addr %llu", p, all[p].namelen, got, (unsigned long long)addr);
        }
    }
    free(packed);
    free(addrs);
    if (!ok) {
        free(all);
        return -1;
    }
    /* Both tables always, so that forming a remote address and key is two
     * loads with no test on the put path: keys are the provider's or the
     * segment number weft chose, addresses virtual or offsets. */
    weft_ofi.rkey = malloc((size_t)n * WEFT_NSEGS * sizeof(uint64_t));
    weft_ofi.rbase = malloc((size_t)n * WEFT_NSEGS * sizeof(uint64_t));
    if (!weft_ofi.rkey || !weft_ofi.rbase) {
        free(all);
        return -1;
    }
    for (int p = 0; p < n; p++)
        for (int s = 0; s < WEFT_NSEGS; s++) {
            size_t i = (size_t)p * WEFT_NSEGS + (size_t)s;
            weft_ofi.rkey[i] = weft_ofi.prov_key ? all[p].key[s] : (uint64_t)s;
            weft_ofi.rbase[i] = weft_ofi.virt_addr ? all[p].base[s] : 0;
        }
    for (int p = 0; p < n; p++)
        weft_ofi_cma_connect(p, &all[p].cma, all[p].base);
    free(all);

    if (weft_ofi_msg_init() != 0)
        return -1;
    weft_ofi_progress_syscalls = progress_reads_sockets(weft_ofi_provider_name());
    weft_ofi_amo_init();
    weft_ofi_ctx_init();
    if (thread_on == 2) {
        int any_sw = 0;
        for (int d = 0; d < WEFT_DT_NTYPES; d++)
            any_sw |= !weft_ofi.dt_native[d];
        thread_on = weft_ofi.manual || any_sw;
        weft_debug("ofi: progress thread %s (%s progress, %s software AMO types)",
                   thread_on ? "on" : "off", weft_ofi.manual ? "manual" : "auto",
                   any_sw ? "some" : "no");
    }
    if (thread_on && !weft_ofi.thread_safe) {
        weft_warn("weft_ofi_init", "provider %s refused FI_THREAD_SAFE; no progress thread",
                  weft_ofi_provider_name());
        thread_on = 0;
    }
    weft_ofi_coal_init(thread_on);
    weft_ofi_wait_obj_init();
    if (thread_on && weft_ofi_thread_start() != 0)
        return -1;
    /* Everyone's receive buffers are posted before anyone sends. */
    if (weft_boot_barrier() != 0)
        return -1;
    weft_ofi_wireup_start();
    return 0;
}

/* A PE leaving without finalize (non-zero exit, shmem_global_exit): close
 * the default endpoint so that a provider with a named region (shm's
 * /dev/shm/<pid>:...) removes it. No quiet, no barrier: the job is ending
 * and the peers may be gone. */
void weft_ofi_abandon(void)
{
    if (!weft_ofi.info || pthread_equal(pthread_self(), weft_ofi.thread) ||
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
        /* Finalize's synchronization (core/init.c) is this barrier. */
        (void)weft_boot_barrier();
        weft_ofi.unused = 0;
        return;
    }
    if (!weft_ofi.info)
        return;
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    if (tx->ep)
        weft_ofi_quiet(tx);
    /* Contexts the program did not destroy complete now, while every peer
     * is still there to answer; they are closed after the barrier. */
    weft_ofi_ctx_quiet_all();
    /* Peers may still need our progress to finish their last quiet; keep a
     * progress thread running (a temporary one if there was none) through
     * the launcher barrier, after which nobody talks to us. */
    int temp = 0;
    if (tx->ep && weft_rt.n_pes > 1 && !weft_ofi.progress_thread)
        temp = weft_ofi_thread_start() == 0;
    (void)weft_boot_barrier();
    (void)temp;
    weft_ofi_thread_stop();
    if (tx->ep && weft_ofi.injects_queued_in_order)
        apply_queued();
    weft_ofi.coalesce = 0; /* tx_close below frees its buffers */
    weft_ofi_cma_close(); /* after the barrier: peers read by it until then */
    weft_ofi_ctx_fini();
    weft_ofi_tx_close(tx);
    if (weft_ofi.served_cntr) { /* after tx0's endpoint, which holds it */
        struct fid_cntr *c = weft_ofi.served_cntr;
        weft_ofi.served_cntr = NULL;
        fi_close(&c->fid);
    }
    for (int s = 0; s < WEFT_NSEGS; s++)
        if (weft_ofi.mr[s])
            fi_close(&weft_ofi.mr[s]->fid);
    weft_ofi_msg_fini();
    struct fid_cq *cq = weft_ofi.cq;
    weft_ofi.cq = NULL;
    weft_ofi.cq_wait_fd = 0; /* its descriptor goes with it */
    weft_ofi.wait_fd = -1;
    if (cq)
        fi_close(&cq->fid);
    if (weft_ofi.av)
        fi_close(&weft_ofi.av->fid);
    if (weft_ofi.domain)
        fi_close(&weft_ofi.domain->fid);
    if (weft_ofi.fabric)
        fi_close(&weft_ofi.fabric->fid);
    fi_freeinfo(weft_ofi.info);
    pthread_mutex_destroy(&tx->lock);
    memset(tx, 0, sizeof *tx);
    free(weft_ofi.rkey);
    free(weft_ofi.rbase);
    memset(&weft_ofi, 0, sizeof weft_ofi);
}

struct weft_ofi_tx weft_ofi_tx0;

struct weft_ofi_tx *weft_ofi_default_tx(void) { return &weft_ofi_tx0; }

int weft_ofi_thread_multiple(void) { return weft_ofi.thread_multiple; }

const char *weft_ofi_provider_name(void)
{
    return weft_ofi.info ? weft_ofi.info->fabric_attr->prov_name : "none";
}

/* ---- describe ---------------------------------------------------------- */

static const char *progress_name(enum fi_progress p)
{
    return p == FI_PROGRESS_AUTO ? "auto" : p == FI_PROGRESS_MANUAL ? "manual" : "unspecified";
}

static void describe_contexts(FILE *out)
{
    pthread_mutex_lock(&weft_ofi.ctx_lock);
    int budget = weft_ofi.ctx_ep_budget, open = weft_ofi.ctx_eps_open;
    int idle = weft_ofi.ctx_eps_idle, sharing = weft_ofi.ctx_sharing;
    int refused = weft_ofi.ctx_refused;
    pthread_mutex_unlock(&weft_ofi.ctx_lock);
    fprintf(out, "  contexts          own endpoint + CQ + 2 counters, at most %d at once (%s)%s\n",
            budget, weft_ofi.ctx_ep_limit_by,
            weft_onnode.all_direct ? ",\n                    unused here: every PE is reached "
                                     "directly"
                                   : "");
    fprintf(out, "                    a destroyed context's endpoint serves the next one\n");
    fprintf(out, "                    past the limit: %s\n",
            weft_ofi.ctx_share ? "share the default context's endpoint (WEFT_CTX_SHARE=1)"
                               : "creation fails (WEFT_CTX_SHARE=0)");
    fprintf(out, "                    locks: none for PRIVATE/SERIALIZED contexts; under\n"
                 "                    SHMEM_THREAD_MULTIPLE one per operation for the others\n");
    fprintf(out, "                    now: %d endpoints in use, %d idle; %d contexts sharing, "
                 "%d refused\n", open - idle, idle, sharing, refused);
}

void weft_ofi_describe(FILE *out)
{
    struct fi_info *fi = weft_ofi.info;
    if (!fi) {
        fprintf(out, "libfabric transport: %s\n",
                weft_ofi.unused ? "not opened (every PE is reached directly)"
                                : "not initialized");
        return;
    }
    uint32_t v = fi->fabric_attr->prov_version;
    fprintf(out, "libfabric transport (libfabric %u.%u, API %u.%u):\n", FI_MAJOR(fi_version()),
            FI_MINOR(fi_version()), FI_MAJOR_VERSION, FI_MINOR_VERSION);
    fprintf(out, "  provider          %s %u.%u\n", fi->fabric_attr->prov_name, FI_MAJOR(v),
            FI_MINOR(v));
    fprintf(out, "  fabric / domain   %s / %s\n", fi->fabric_attr->name, fi->domain_attr->name);
    fprintf(out, "  mr_mode           %s\n",
            fi->domain_attr->mr_mode ? fi_tostr(&fi->domain_attr->mr_mode, FI_TYPE_MR_MODE)
                                     : "(none)");
    fprintf(out, "  remote addressing %s, keys %s\n",
            weft_ofi.virt_addr ? "virtual addresses (bases exchanged)" : "segment offsets",
            weft_ofi.prov_key ? "provider-chosen (exchanged)" : "requested (= segment id)");
    fprintf(out, "  local MR          %s\n",
            weft_ofi.mr_local ? "required (bounce buffers)" : "not required");
    fprintf(out, "  inject size       %zu (provider %zu)\n", weft_ofi.inject_size,
            weft_ofi.prov_inject);
    fprintf(out, "  max message       %zu (chunks of %zu)\n", fi->ep_attr->max_msg_size,
            weft_ofi.max_msg);
    fprintf(out, "  iov / rma_iov     %zu / %zu\n", fi->tx_attr->iov_limit,
            fi->tx_attr->rma_iov_limit);
    fprintf(out, "  progress          data %s, control %s; progress thread %s\n",
            progress_name(fi->domain_attr->data_progress),
            progress_name(fi->domain_attr->control_progress),
            weft_ofi.progress_thread ? "running" : "off");
    int naps = weft_idle_naps_possible();
    fprintf(out, "  idle waits        %s\n",
            !naps ? "spin, then yield the CPU (no naps: this host's PEs fit on its CPUs, or "
                    "WEFT_IDLE_NAP=0)"
            : weft_ofi.served_cntr ? "nap after 200 us without serving a peer (WEFT_IDLE_NAP; "
                                     "a remote-access counter counts what is served)"
            : weft_ofi.cq_wait_fd ? "nap on the CQ's descriptor after 200 us without traffic "
                                    "(WEFT_IDLE_NAP; a peer's request ends the nap)"
                                  : "spin, then yield the CPU (the provider can neither count "
                                    "the requests served nor be waited on)");
    fprintf(out, "  threading         %s; SHMEM_THREAD_MULTIPLE %s\n",
            weft_ofi.thread_safe ? "FI_THREAD_SAFE" : "FI_THREAD_DOMAIN",
            weft_ofi.thread_multiple
                ? "in use: the default context locks each libfabric operation"
                : "not requested (it asks for FI_THREAD_SAFE)");
    describe_contexts(out);
    if (weft_ofi.coalesce)
        fprintf(out, "  small puts        coalesced up to %d bytes: consecutive puts to one PE "
                "leave as one message (WEFT_COALESCE)\n", WEFT_OFI_COAL_MAX_PUT);
    else
        fprintf(out, "  small puts        one write each\n");
    size_t split_top = weft_ofi.split_put_max; /* larger ones from wmin on are copied */
    if (weft_ofi_cma.wmin != SIZE_MAX && weft_ofi_cma.wmin - 1 < split_top)
        split_top = weft_ofi_cma.wmin - 1;
    if (split_top > weft_ofi.inject_size)
        fprintf(out, "  mid-size puts     up to %zu bytes as injected pieces of %zu "
                "(WEFT_SHM_SPLIT_PUT)\n", split_top, weft_ofi.inject_size);
    if (weft_ofi_cma.min != SIZE_MAX)
        fprintf(out, "  large gets        from %zu bytes copied by this PE (process_vm_readv on "
                "a second, unordered shm endpoint) after a read through the target's queue "
                "(WEFT_SHM_CMA_READ)\n", weft_ofi_cma.min);
    if (weft_ofi_cma.wmin != SIZE_MAX)
        fprintf(out, "  large puts        from %zu bytes copied by this PE (process_vm_writev) "
                "after a read through the target's queue (WEFT_SHM_CMA_WRITE)\n",
                weft_ofi_cma.wmin);
    fprintf(out, "  remote completion %s\n",
            weft_ofi.rc != WEFT_RC_DELIVERY ? "flush: a read to every PE written since the last quiet"
            : weft_ofi.writes_flushed
                ? "blocking puts, and non-blocking ones past the first four since a quiet, "
                  "without FI_DELIVERY_COMPLETE, flushed by a read at quiet (injected puts and "
                  "atomics too)"
            : weft_ofi.injects_queued_in_order
                ? "FI_DELIVERY_COMPLETE (injected puts and atomics queue in order at the "
                  "target: quiet reads nothing back)"
                : "FI_DELIVERY_COMPLETE (injected puts/atomics flushed by a read at quiet)");
    fprintf(out, "  fence             %s\n",
            weft_ofi.ordered ? "free: the provider orders writes, atomics and messages "
                               "(FI_ORDER_WAW, FI_ORDER_SAW)"
            : weft_ofi.rma_ordered
                ? "free between puts (FI_ORDER_RMA_WAW); an atomic after it, or a fence after "
                  "an atomic, completes the earlier operations (no FI_ORDER_WAW/SAW)"
            : weft_onnode.split
                ? "a quiet: node peers are reached directly for one segment and through "
                  "libfabric for the other"
            : (weft_ofi.info->tx_attr->msg_order & WEFT_OFI_FENCE_ORDER) == WEFT_OFI_FENCE_ORDER
                ? "a quiet (WEFT_FENCE=quiet)"
                : "a quiet: the provider does not order writes, atomics and messages");
    fprintf(out, "  provider atomics  %s%s\n", weft_ofi.have_atomic_cap ? "FI_ATOMIC" : "none",
            weft_ofi.amo_forced_software ? " (WEFT_AMO=software: not used)"
            : weft_onnode.mixed          ? " (not used: the job mixes the on-node path and "
                                           "libfabric)"
                                         : "");
    fprintf(out, "  AMO rule          per datatype: native only if the provider supports every\n"
                 "                    op of the type (ints: fetch set swap cswap add and or xor;\n"
                 "                    floats: fetch set swap); otherwise every op on that type\n"
                 "                    runs in software (target CPU atomics via messages).\n");
    static const char *const short_op[WEFT_AMO_NOPS] = {"fetch", "set", "swap", "cswap",
                                                         "add",   "and", "or",   "xor"};
    fprintf(out, "  AMO table         ");
    for (int o = 0; o < WEFT_AMO_NOPS; o++)
        fprintf(out, "%-6s", short_op[o]);
    fprintf(out, " => type\n");
    for (int d = 0; d < WEFT_DT_NTYPES; d++) {
        fprintf(out, "    %-14s  ", weft_dtype_names[d]);
        int flt = d == WEFT_DT_F32 || d == WEFT_DT_F64;
        for (int o = 0; o < WEFT_AMO_NOPS; o++) {
            int applicable = !flt || o <= WEFT_AMO_SWAP;
            fprintf(out, "%-6s", !applicable ? "-" : weft_ofi.amo_query[o][d] ? "yes" : "no");
        }
        fprintf(out, " => %s\n", weft_ofi.dt_native[d] ? "native" : "software");
    }
}

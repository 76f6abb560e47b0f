/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_select.c owns the choice of the libfabric provider: fi_getinfo's
 * order, shm for a job on one host, FI_PROVIDER / WEFT_PROVIDER, the
 * environment a provider reads when it initializes, and the refinement
 * with atomics, delivery completion, thread safety and the fence's
 * ordering, each kept only if the provider accepts it. */
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

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

/* Environment the providers read when they initialize, set before the
 * first fi_getinfo; the user's values win. */
static void set_provider_env(void)
{
    /* The sockets provider's progress thread spins 10 ms per wake-up by
     * default; with more PEs than cores that starves the PEs (measured: a
     * 4-PE ring hop 19.9 ms -> 1.2 ms with 0 on 2 cores). */
    setenv("FI_SOCKETS_PE_WAITTIME", "0", 0);
    /* tcp;ofi_rxm gives every endpoint a pool of MSG_RX_SIZE receive
     * buffers and every connection about 1024 more, each BUFFER_SIZE
     * bytes: 68 MiB per endpoint plus 17 MiB per peer at the defaults
     * (measured), which made an endpoint per context unaffordable. RMA
     * bypasses these buffers; the buffer size is also rxm's eager limit,
     * and every message of weft's message layer (at most
     * WEFT_OFI_MSG_BUF_SIZE: a coalesced-put batch, a GASNet medium
     * message) must fit it, because a larger one goes by rendezvous and
     * completes at the target after smaller messages sent later
     * (docs/providers.md, problem 7). 4224 x 128 gives about 5 MiB plus
     * 5 MiB per peer, with no change measured in the benchmarks
     * (docs/providers.md). */
    char rxm_buffer[24];
    /* A batch of active messages (WEFT_AM_BATCH) is one message too:
     * rxm's eager limit is raised to it apart from the buffers (tcp's
     * receives land in weft's buffers directly), unless the user set
     * either (then batches stay within theirs: ofi_msg.c). */
    long long batch = weft_tun_int(WEFT_TUN_AM_BATCH);
    if (!getenv("FI_OFI_RXM_BUFFER_SIZE") && !getenv("FI_OFI_RXM_EAGER_LIMIT") &&
        batch > WEFT_OFI_MSG_BUF_SIZE) {
        snprintf(rxm_buffer, sizeof rxm_buffer, "%lld", batch);
        setenv("FI_OFI_RXM_EAGER_LIMIT", rxm_buffer, 0);
    }
    snprintf(rxm_buffer, sizeof rxm_buffer, "%d", WEFT_OFI_MSG_BUF_SIZE);
    setenv("FI_OFI_RXM_BUFFER_SIZE", rxm_buffer, 0);
    setenv("FI_OFI_RXM_MSG_RX_SIZE", "128", 0);
    /* rxm advances its connections (requests, accepts) from inside a CQ
     * read at most every CM_PROGRESS_INTERVAL us, 10 ms by default, so
     * each new connection waited for that poll at both ends: the first
     * put + quiet to a new peer took 3.4-4.3 ms at 8 PEs, 1.0-1.8 ms at
     * 1 ms, and the first barrier's log2 N connections per PE set up a
     * 64-PE job about 10% slower (docs/providers.md). */
    setenv("FI_OFI_RXM_CM_PROGRESS_INTERVAL", "1000", 0);
    /* A job on one host needs no network: tcp, sockets, net and udp
     * listen on the loopback interface only, unreachable from other hosts
     * (they accept any connection unauthenticated; docs/reliability.md). */
    if (weft_rt.single_node) {
        static const char *const iface_vars[] = {"FI_TCP_IFACE", "FI_SOCKETS_IFACE",
                                                 "FI_NET_IFACE", "FI_UDP_IFACE"};
        for (size_t i = 0; i < sizeof iface_vars / sizeof *iface_vars; i++)
            setenv(iface_vars[i], "lo", 0);
    }
    drop_infinipath_handlers();
    /* FI_PROVIDER="" would match no provider at all: treat it as unset. */
    const char *fi_prov = getenv("FI_PROVIDER");
    if (fi_prov && !*fi_prov)
        unsetenv("FI_PROVIDER");
}

/* libfabric 1.18 and later list their own RDM endpoint of tcp (1.17's
 * net, renamed; no atomics) before tcp;ofi_rxm, both answering
 * FI_PROVIDER=tcp, and the refinement's FI_ATOMIC would then pick rxm
 * while WEFT_AMO=software kept the plain one. Where both are offered on
 * the first answer's fabric and domain, weft takes tcp;ofi_rxm, as on
 * 1.17: the same provider whatever the refinement asks. The entry to
 * use, which stays in list. */
static struct fi_info *prefer_rxm_over_tcp(struct fi_info *list)
{
    if (strcmp(list->fabric_attr->prov_name, "tcp"))
        return list;
    for (struct fi_info *i = list->next; i; i = i->next)
        if (!strcmp(i->fabric_attr->prov_name, "tcp;ofi_rxm") &&
            !strcmp(i->fabric_attr->name, list->fabric_attr->name) &&
            !strcmp(i->domain_attr->name, list->domain_attr->name)) {
            weft_debug("ofi: tcp;ofi_rxm taken over tcp's own RDM endpoint");
            return i;
        }
    return list;
}

/* The first fi_getinfo answer for RDM + RMA + MSG on provider prov (any
 * when empty), without FI_MR_LOCAL if the provider allows; *mr_local says
 * which. A job on one host is served best by shm (fi_getinfo's order puts
 * network providers first), unless the user named a provider; every PE
 * sees the same single_node, so all choose alike. When no provider
 * answers, the job ends naming the cause weft can see (ofi_diagnose.c). */
static struct fi_info *find_candidate(const char *prov, int *mr_local)
{
    struct fi_info *list = NULL;
    int rc = -FI_ENODATA;
    const char *fi_prov = getenv("FI_PROVIDER");
    int try_shm = !*prov && !(fi_prov && *fi_prov) && weft_rt.single_node;
    for (int attempt = try_shm ? 0 : 1; attempt < 2 && rc != 0; attempt++) {
        const char *want = attempt == 0 ? "shm" : prov;
        for (*mr_local = 0; *mr_local < 2; ++*mr_local) {
            struct fi_info *hints = weft_ofi_base_hints(want, *mr_local);
            rc = fi_getinfo(WEFT_FI_API_VERSION, NULL, NULL, 0, hints, &list);
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
    struct fi_info *first = prefer_rxm_over_tcp(list);
    if (first != list) {
        struct fi_info *copy = fi_dupinfo(first);
        if (copy) {
            fi_freeinfo(list);
            list = copy;
        }
    }
    weft_debug("ofi: candidate provider %s, fabric %s, domain %s", list->fabric_attr->prov_name,
               list->fabric_attr->name, list->domain_attr->name);
    return list;
}

/* WEFT_PROGRESS_THREAD: 1 on, 0 off, 2 auto (decided in weft_ofi_init
 * once the AMO table is known: software AMOs need weft's progress even on
 * auto-progress providers; FI_THREAD_SAFE is asked for so that the thread
 * can start either way). */
static int progress_thread_wanted(void)
{
    const char *pt = weft_tun_str(WEFT_TUN_PROGRESS_THREAD);
    if (!strcmp(pt, "on") || !strcmp(pt, "1") || !strcmp(pt, "yes"))
        return 1;
    if (!strcmp(pt, "off") || !strcmp(pt, "0") || !strcmp(pt, "no"))
        return 0;
    if (!strcmp(pt, "auto"))
        return weft_rt.n_pes > 1 ? 2 : 0;
    weft_fatal("shmem_init", "WEFT_PROGRESS_THREAD=%s: expected auto, on or off", pt);
}

/* udp;ofi_rxd (libfabric 1.17 to 2.x): a fetching or compare atomic
 * leaves the transmit entry's segment count unset, which corrupts the
 * peer's transmit list and faults in the next progress, and
 * fi_inject_atomic looks the peer up by the remote address instead of
 * the destination (-FI_EAGAIN forever, or the wrong peer: docs/providers.md,
 * "udp;ofi_rxd: native atomics"). Every atomic goes to software there. */
int weft_ofi_native_atomics_broken(const char *prov)
{
    return prov && strstr(prov, "ofi_rxd") != NULL;
}

/* What the refinement asks for (WEFT_AMO, WEFT_REMOTE_COMPLETION). */
struct wants {
    int atomic;  /* FI_ATOMIC, dropped if refused */
    int dc;      /* FI_DELIVERY_COMPLETE, dropped if refused */
    int need_dc; /* ... unless the user asked for it: then required */
};
static struct wants read_wants(const char *prov)
{
    struct wants w = {1, 1, 0};
    enum { AMO_AUTO, AMO_NATIVE, AMO_SOFTWARE };
    static const char *const amo_modes[] = {"auto", "native", "software"};
    int amo = weft_tun_choice(WEFT_TUN_AMO, amo_modes, 3);
    if (amo == AMO_SOFTWARE)
        w.atomic = 0;
    if (w.atomic && weft_ofi_native_atomics_broken(prov)) {
        if (amo == AMO_NATIVE)
            weft_fatal("shmem_init",
                       "WEFT_AMO=native: provider %s has no working native atomics (fetching "
                       "and compare atomics corrupt its transmit list, fi_inject_atomic picks "
                       "its peer by the remote address); use WEFT_AMO=auto or software",
                       prov);
        weft_debug("ofi: %s: atomics in software (its native fetching atomics corrupt its "
                   "transmit list and its injected atomics pick their peer by the remote "
                   "address)",
                   prov);
        w.atomic = 0;
    }
    enum { RC_AUTO, RC_DELIVERY, RC_FLUSH };
    static const char *const rc_modes[] = {"auto", "delivery", "flush"};
    int rcs = weft_tun_choice(WEFT_TUN_REMOTE_COMPLETION, rc_modes, 3);
    /* net completes an FI_DELIVERY_COMPLETE write before a peer's read
     * sees it (api_order at 4 PEs on loopback: a stale get after quiet in
     * 2 of 10 runs; flushing reads: none in 25). */
    if (rcs == RC_AUTO && prov && !strcmp(prov, "net")) {
        weft_debug("ofi: net: remote completion by flush reads (its delivery completion comes "
                   "before the data is visible)");
        w.dc = 0;
    }
    if (rcs == RC_FLUSH)
        w.dc = 0;
    else if (rcs == RC_DELIVERY)
        w.need_dc = 1;
    return w;
}

/* One refined fi_getinfo on first's provider, fabric and domain: with or
 * without FI_ATOMIC and FI_DELIVERY_COMPLETE, FI_THREAD_SAFE if
 * thread_safe, and the ordering that makes fence free (weft_ofi_fence),
 * asked again without it where the provider cannot give it. The answer
 * (to free with fi_freeinfo), or NULL. */
static struct fi_info *refine(const struct fi_info *first, int mr_local, int thread_safe,
                              int atomic, int dc)
{
    struct fi_info *hints = weft_ofi_base_hints(first->fabric_attr->prov_name, mr_local);
    hints->fabric_attr->name = strdup(first->fabric_attr->name);
    hints->domain_attr->name = strdup(first->domain_attr->name);
    if (atomic)
        hints->caps |= FI_ATOMIC;
    if (dc)
        hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    if (thread_safe)
        hints->domain_attr->threading = FI_THREAD_SAFE;
    struct fi_info *got = NULL;
    hints->tx_attr->msg_order = WEFT_OFI_FENCE_ORDER;
    hints->rx_attr->msg_order = WEFT_OFI_FENCE_ORDER;
    /* FI_MULTI_RECV where the message layer may use it, dropped where the
     * provider refuses it. */
    if (weft_ofi_msg_multi_wanted())
        hints->caps |= FI_MULTI_RECV;
    int rc = fi_getinfo(WEFT_FI_API_VERSION, NULL, NULL, 0, hints, &got);
    if (rc == -FI_ENODATA && (hints->caps & FI_MULTI_RECV)) {
        hints->caps &= ~(uint64_t)FI_MULTI_RECV;
        rc = fi_getinfo(WEFT_FI_API_VERSION, NULL, NULL, 0, hints, &got);
    }
    int asked_order = 1;
    if (rc == -FI_ENODATA) {
        asked_order = 0;
        hints->tx_attr->msg_order = hints->rx_attr->msg_order = 0;
        rc = fi_getinfo(WEFT_FI_API_VERSION, NULL, NULL, 0, hints, &got);
    }
    fi_freeinfo(hints);
    weft_debug("ofi: %s with%s FI_ATOMIC, with%s FI_DELIVERY_COMPLETE: %s",
               first->fabric_attr->prov_name, atomic ? "" : "out", dc ? "" : "out",
               rc ? fi_strerror(-rc) : "ok");
    if (rc != 0)
        return NULL;
    struct fi_info *chosen = fi_dupinfo(got);
    fi_freeinfo(got);
    if (dc && !(chosen->tx_attr->op_flags & FI_DELIVERY_COMPLETE))
        chosen->tx_attr->op_flags |= FI_DELIVERY_COMPLETE;
    /* Asked without the full fence order, a provider reports no size for
     * the order it still gives (rxm: 0 against its listed unlimited RMA
     * write order); its listing holds. */
    if (!asked_order && chosen->ep_attr->max_order_waw_size < first->ep_attr->max_order_waw_size)
        chosen->ep_attr->max_order_waw_size = first->ep_attr->max_order_waw_size;
    return chosen;
}

struct fi_info *weft_ofi_choose_provider(int want_thread_safe_hint, int *thread_on,
                                         int *delivery_asked)
{
    set_provider_env();
    int mr_local;
    struct fi_info *list = find_candidate(weft_tun_str(WEFT_TUN_PROVIDER), &mr_local);
    if (!list)
        return NULL;
    *thread_on = progress_thread_wanted();
    struct wants w = read_wants(list->fabric_attr->prov_name);
    *delivery_asked = w.need_dc;
    /* Steps: both asked, then without delivery completion, then without
     * atomics, then without either; a step that asks what was not wanted
     * or drops what is required is skipped. */
    struct fi_info *chosen = NULL;
    for (int step = 0; step < 4 && !chosen; step++) {
        int atomic = w.atomic && !(step & 2), dc = w.dc && !(step & 1);
        if (((step & 2) && !w.atomic) || ((step & 1) && !w.dc) || (w.need_dc && !dc))
            continue;
        chosen = refine(list, mr_local, *thread_on || want_thread_safe_hint, atomic, dc);
    }
    fi_freeinfo(list);
    if (!chosen)
        weft_warn("weft_ofi_init", "provider refused the refined hints%s",
                  w.need_dc ? " (WEFT_REMOTE_COMPLETION=delivery needs FI_DELIVERY_COMPLETE)"
                            : "");
    return chosen;
}

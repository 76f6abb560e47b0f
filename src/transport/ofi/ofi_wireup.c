/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_wireup.c owns the start-up reachability check of the libfabric
 * transport: each PE reads a word from its libfabric neighbours (the next
 * and the previous PE in PE order that it reaches through libfabric, not
 * the direct on-node path), and a watchdog bounds the time from those
 * reads to the end of the first barrier by WEFT_WIREUP_TIMEOUT. A PE that
 * cannot reach a neighbour (a read fails, or the bound passes) says which
 * provider, interface and address it used, which peer it could not reach
 * at which address, and how to choose another interface or provider, then
 * ends the job. Without it a wrong interface (one with the same address on
 * every host, as docker's bridges have) leaves the job silent until the
 * much longer EAGAIN retry timeout. The ring costs two reads per PE. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "core/runtime.h"
#include "transport/onnode/onnode.h"
#include "transport/ofi/ofi_internal.h"

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int running, done;
    long timeout;     /* seconds */
    int peer[2], npeers;
    int probing;      /* -1: probes answered; else waiting for them */
    uint64_t scratch[2];
} wu = { .lock = PTHREAD_MUTEX_INITIALIZER, .probing = -1 };

/* The interface that holds address a (IPv4/IPv6), or "" when none does. */
static void iface_of(const struct sockaddr *a, char *out, size_t n)
{
    out[0] = '\0';
    struct ifaddrs *ifs = NULL;
    if (!a || getifaddrs(&ifs) != 0)
        return;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != a->sa_family)
            continue;
        int same = 0;
        if (a->sa_family == AF_INET)
            same = ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
                   ((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr.s_addr;
        else if (a->sa_family == AF_INET6)
            same = memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
                          &((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr,
                          sizeof(struct in6_addr)) == 0;
        if (same) {
            snprintf(out, n, "%s", i->ifa_name);
            break;
        }
    }
    freeifaddrs(ifs);
}

/* Print who we are and whom we could not reach, then end the job. */
__attribute__((noreturn)) static void wireup_fail(int pe, const char *why)
{
    char mine[128] = "?", theirs[128] = "?", iface[64] = "";
    union {
        struct sockaddr sa;
        struct sockaddr_storage ss;
        char raw[256];
    } name;
    size_t len = sizeof name;
    memset(&name, 0, sizeof name);
    if (fi_getname(&weft_ofi_tx0.ep->fid, &name, &len) == 0) {
        size_t sl = sizeof mine;
        fi_av_straddr(weft_ofi.fab.av, &name, mine, &sl);
        if (len >= sizeof(struct sockaddr_in) &&
            (name.sa.sa_family == AF_INET || name.sa.sa_family == AF_INET6))
            iface_of(&name.sa, iface, sizeof iface);
    }
    char peer_name[256];
    len = sizeof peer_name;
    if (pe >= 0 && fi_av_lookup(weft_ofi.fab.av, (fi_addr_t)pe, peer_name, &len) == 0) {
        size_t sl = sizeof theirs;
        fi_av_straddr(weft_ofi.fab.av, peer_name, theirs, &sl);
    }
    /* One address on two hosts: an interface like docker's bridge, which
     * every host has with the same address and which joins no hosts. */
    const char *mc = strrchr(mine, ':'), *tc = strrchr(theirs, ':');
    int same_ip = mc && tc && mc - mine == tc - theirs && memcmp(mine, theirs, (size_t)(mc - mine)) == 0 &&
                  weft_rt.pe_host && pe >= 0 && weft_rt.pe_host[pe] != weft_rt.pe_host[weft_rt.my_pe];
    const char *iface_var = weft_ofi_iface_var(weft_ofi_provider_name());
    if (!iface_var)
        iface_var = "FI_TCP_IFACE";
    const char *set_iface = getenv(iface_var);
    char now[96];
    snprintf(now, sizeof now, set_iface ? " (now '%s')" : " (unset: libfabric's choice)",
             set_iface ? set_iface : "");
    weft_fatal("shmem_init",
               "wire-up: %s PE %d at %s over provider %s, from address %s%s%s%s%s. Choose the "
               "network interface the hosts reach each other on with %s=<if>%s "
               "(FI_TCP_IFACE, FI_SOCKETS_IFACE, FI_NET_IFACE or FI_UDP_IFACE after the "
               "provider), or another provider with FI_PROVIDER; "
               "WEFT_WIREUP_TIMEOUT=%ld bounds this check (docs/launching.md)",
               why, pe, theirs, weft_ofi_provider_name(), mine, iface[0] ? " (interface " : "",
               iface, iface[0] ? ")" : "",
               same_ip ? "; that peer, on another host, has this PE's own IP address: the "
                         "interface exists with one address on every host (like docker's bridge) "
                         "and joins none of them" : "",
               iface_var, now, wu.timeout);
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += wu.timeout;
    pthread_mutex_lock(&wu.lock);
    while (!wu.done) {
        int rc = pthread_cond_timedwait(&wu.cond, &wu.lock, &dl);
        if (rc == ETIMEDOUT && !wu.done) {
            int pe = wu.probing;
            pthread_mutex_unlock(&wu.lock);
            if (pe >= 0)
                wireup_fail(pe, "no answer within the wire-up bound from");
            weft_fatal("shmem_init", "wire-up: this PE reached its libfabric neighbours but the "
                       "start-up barrier did not complete within %ld s (WEFT_WIREUP_TIMEOUT): "
                       "another PE cannot reach its peers (see its message)", wu.timeout);
        }
    }
    pthread_mutex_unlock(&wu.lock);
    return NULL;
}

/* Wait for the probe reads on tx0, progressing; a failed one is reported
 * with the wire-up message rather than the generic one. */
static void wait_probes(void)
{
    struct weft_ofi_tx *tx = &weft_ofi_tx0;
    unsigned spins = 0;
    for (;;) {
        uint64_t done = fi_cntr_read(tx->rcntr), err = fi_cntr_readerr(tx->rcntr);
        if (err != tx->r_err_seen) {
            weft_ofi_progress();
            char why[300];
            snprintf(why, sizeof why, "cannot reach (%s)",
                     weft_ofi.last_err[0] ? weft_ofi.last_err : "read failed");
            wireup_fail(wu.probing, why);
        }
        if (done + err >= tx->r_issued)
            return;
        weft_ofi_progress();
        weft_poll_yield(&spins);
    }
}

void weft_ofi_wireup_start(void)
{
    wu.timeout = (long)weft_tun_int(WEFT_TUN_WIREUP_TIMEOUT);
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    wu.npeers = 0;
    /* The nearest libfabric peers after and before me, cyclically. */
    for (int d = 1; d < n && wu.npeers == 0; d++)
        if (!weft_onnode_addr(WEFT_SEG_HEAP, 0, (me + d) % n))
            wu.peer[wu.npeers++] = (me + d) % n;
    for (int d = 1; d < n && wu.npeers == 1; d++) {
        int p = (me - d + n) % n;
        if (!weft_onnode_addr(WEFT_SEG_HEAP, 0, p)) {
            if (p != wu.peer[0])
                wu.peer[wu.npeers++] = p;
            break;
        }
    }
    if (wu.timeout <= 0 || wu.npeers == 0)
        return;
    wu.done = 0;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wu.cond, &ca);
    pthread_condattr_destroy(&ca);
    wu.running = pthread_create(&wu.thread, NULL, watchdog_main, NULL) == 0;
    for (int i = 0; i < wu.npeers; i++) {
        pthread_mutex_lock(&wu.lock);
        wu.probing = wu.peer[i];
        pthread_mutex_unlock(&wu.lock);
        weft_ofi_get_nbi(&weft_ofi_tx0, &wu.scratch[i], WEFT_SEG_HEAP, 0, sizeof wu.scratch[i],
                         wu.peer[i]);
        wait_probes();
    }
    pthread_mutex_lock(&wu.lock);
    wu.probing = -1;
    pthread_mutex_unlock(&wu.lock);
    weft_debug("ofi: wire-up: reached PE %d and PE %d over %s (bound %ld s)", wu.peer[0],
               wu.peer[wu.npeers - 1], weft_ofi_provider_name(), wu.timeout);
}

void weft_ofi_wireup_done(void)
{
    if (!wu.running)
        return;
    pthread_mutex_lock(&wu.lock);
    wu.done = 1;
    pthread_cond_signal(&wu.cond);
    pthread_mutex_unlock(&wu.lock);
    pthread_join(wu.thread, NULL);
    wu.running = 0;
    pthread_cond_destroy(&wu.cond);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_probe.c owns weft_ofi_probe: what weft-info --providers prints for
 * the provider this PE opened, in one line of weft's decisions (atomics,
 * counting puts, RMA events, remote CQ data, inject size, fence, MR mode,
 * progress, multi-receive), then the operations those decisions rest on,
 * executed against this PE itself on an endpoint of their own opened with
 * weft's hints plus FI_ATOMIC. A step that faults takes the process with
 * it, so each line is flushed before its step runs: the caller (weft-info,
 * in a child process per provider) reports the step it died in. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

#define PROBE_TIMEOUT_NS 2000000000ull
#define PROBE_CQ_DATA 0xfeedull
/* The atomics' word, buf[PROBE_WORD]: not at offset 0 or 1, where a
 * provider that took the remote address for the peer's (udp;ofi_rxd's
 * fi_inject_atomic) would find this process and seem to work. */
#define PROBE_WORD 5

/* The probe's own endpoint and the word its operations target. */
struct probe {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_cntr *wcntr, *rcntr;
    struct fid_ep *ep;
    struct fid_mr *mr;
    void *desc;
    fi_addr_t self;
    uint64_t raddr, key;
    /* buf[1] a source, buf[2] a result, buf[3..4] a write and read,
     * buf[PROBE_WORD] the atomics' word, buf[8..] a receive */
    uint64_t buf[64];
    int remote_cq_data_seen;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Drains the probe's CQ (progressing a manual provider) and notes a
 * remote CQ data entry carrying PROBE_CQ_DATA. */
static void probe_progress(struct probe *p)
{
    struct fi_cq_data_entry ev[8];
    ssize_t n;
    while ((n = fi_cq_read(p->cq, ev, 8)) > 0)
        for (ssize_t i = 0; i < n; i++)
            if ((ev[i].flags & FI_REMOTE_CQ_DATA) && ev[i].data == PROBE_CQ_DATA)
                p->remote_cq_data_seen = 1;
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err;
        memset(&err, 0, sizeof err);
        fi_cq_readerr(p->cq, &err, 0);
    }
}

/* Waits up to PROBE_TIMEOUT_NS for cntr to reach want (its error count
 * moving ends the wait too). 1 if it did. */
static int probe_wait_cntr(struct probe *p, struct fid_cntr *cntr, uint64_t want)
{
    uint64_t end = now_ns() + PROBE_TIMEOUT_NS, errs = fi_cntr_readerr(cntr);
    while (now_ns() < end) {
        probe_progress(p);
        if (fi_cntr_read(cntr) >= want)
            return 1;
        if (fi_cntr_readerr(cntr) != errs)
            return 0;
    }
    return 0;
}

/* Retries op while it returns -FI_EAGAIN, progressing, up to the timeout.
 * The last return value. */
#define PROBE_RETRY(p, rc, op)                                                                    \
    do {                                                                                          \
        uint64_t end_ = now_ns() + PROBE_TIMEOUT_NS;                                              \
        while (((rc) = (op)) == -FI_EAGAIN && now_ns() < end_)                                    \
            probe_progress(p);                                                                    \
    } while (0)

static void probe_close(struct probe *p)
{
    if (p->ep)
        fi_close(&p->ep->fid);
    if (p->mr)
        fi_close(&p->mr->fid);
    if (p->wcntr)
        fi_close(&p->wcntr->fid);
    if (p->rcntr)
        fi_close(&p->rcntr->fid);
    if (p->cq)
        fi_close(&p->cq->fid);
    if (p->av)
        fi_close(&p->av->fid);
    if (p->domain)
        fi_close(&p->domain->fid);
    if (p->fabric)
        fi_close(&p->fabric->fid);
    if (p->info)
        fi_freeinfo(p->info);
}

/* Opens the probe's endpoint on weft's provider, fabric and domain with
 * weft's hints and FI_ATOMIC, addressed to itself. NULL, or a message
 * naming the call that failed. */
static const char *probe_open(struct probe *p, char *why, size_t len)
{
    const struct fi_info *w = weft_ofi.fab.info;
    struct fi_info *hints = weft_ofi_base_hints(w->fabric_attr->prov_name, weft_ofi.fab.mr_local);
    if (!hints)
        return "fi_allocinfo: out of memory";
    hints->fabric_attr->name = strdup(w->fabric_attr->name);
    hints->domain_attr->name = strdup(w->domain_attr->name);
    hints->caps |= FI_ATOMIC;
    hints->tx_attr->op_flags = w->tx_attr->op_flags & FI_DELIVERY_COMPLETE;
    int rc = fi_getinfo(WEFT_FI_API_VERSION, NULL, NULL, 0, hints, &p->info);
    fi_freeinfo(hints);
    const char *call = "fi_getinfo with FI_ATOMIC";
    if (rc)
        goto fail;
    call = "fi_fabric";
    if ((rc = fi_fabric(p->info->fabric_attr, &p->fabric, NULL)) != 0)
        goto fail;
    call = "fi_domain";
    if ((rc = fi_domain(p->fabric, p->info, &p->domain, NULL)) != 0)
        goto fail;
    struct fi_av_attr ava;
    memset(&ava, 0, sizeof ava);
    ava.type = FI_AV_TABLE;
    call = "fi_av_open";
    if ((rc = fi_av_open(p->domain, &ava, &p->av, NULL)) != 0)
        goto fail;
    struct fi_cq_attr cqa;
    memset(&cqa, 0, sizeof cqa);
    cqa.format = FI_CQ_FORMAT_DATA;
    call = "fi_cq_open";
    if ((rc = fi_cq_open(p->domain, &cqa, &p->cq, NULL)) != 0)
        goto fail;
    call = "fi_cntr_open";
    if ((rc = weft_ofi_cntr_open(p->domain, &p->wcntr)) != 0 ||
        (rc = weft_ofi_cntr_open(p->domain, &p->rcntr)) != 0)
        goto fail;
    call = "fi_endpoint";
    if ((rc = fi_endpoint(p->domain, p->info, &p->ep, NULL)) != 0)
        goto fail;
    call = "fi_ep_bind";
    if ((rc = fi_ep_bind(p->ep, &p->av->fid, 0)) != 0 ||
        (rc = fi_ep_bind(p->ep, &p->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) !=
            0 ||
        (rc = fi_ep_bind(p->ep, &p->wcntr->fid, FI_WRITE)) != 0 ||
        (rc = fi_ep_bind(p->ep, &p->rcntr->fid, FI_READ)) != 0)
        goto fail;
    call = "fi_enable";
    if ((rc = fi_enable(p->ep)) != 0)
        goto fail;
    uint64_t access = FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE | FI_SEND | FI_RECV;
    call = "fi_mr_reg";
    if ((rc = fi_mr_reg(p->domain, p->buf, sizeof p->buf, access, 0, 1, 0, &p->mr, NULL)) != 0)
        goto fail;
    if (p->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        call = "fi_mr_bind";
        if ((rc = fi_mr_bind(p->mr, &p->ep->fid, 0)) != 0 || (rc = fi_mr_enable(p->mr)) != 0)
            goto fail;
    }
    p->desc = fi_mr_desc(p->mr);
    p->key = fi_mr_key(p->mr);
    p->raddr = (p->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)p->buf
                                                                   : 0;
    char name[WEFT_OFI_NAME_MAX];
    size_t namelen = sizeof name;
    call = "fi_getname";
    if ((rc = fi_getname(&p->ep->fid, name, &namelen)) != 0)
        goto fail;
    call = "fi_av_insert";
    if ((rc = fi_av_insert(p->av, name, 1, &p->self, 0, NULL)) != 1)
        goto fail;
    return NULL;
fail:
    snprintf(why, len, "%s: %s", call, rc < 0 ? fi_strerror(-rc) : "failed");
    return why;
}

/* Remote CQ data: an 8-byte fi_writedata to itself with a receive posted
 * (as weft's message engine always has one). */
static void probe_cq_data(FILE *out, struct probe *p)
{
    if (p->info->domain_attr->cq_data_size < 8) {
        fprintf(out, "    remote CQ data     not offered (cq_data_size %zu)\n",
                p->info->domain_attr->cq_data_size);
        return;
    }
    ssize_t rc;
    PROBE_RETRY(p, rc, fi_recv(p->ep, &p->buf[8], 256, p->desc, FI_ADDR_UNSPEC, NULL));
    p->buf[1] = 7;
    uint64_t w = fi_cntr_read(p->wcntr);
    PROBE_RETRY(p, rc, fi_writedata(p->ep, &p->buf[1], 8, p->desc, PROBE_CQ_DATA, p->self,
                                    p->raddr + 2 * 8, p->key, NULL));
    if (rc) {
        fprintf(out, "    remote CQ data     fi_writedata: %s\n", fi_strerror((int)-rc));
        return;
    }
    int counted = probe_wait_cntr(p, p->wcntr, w + 1);
    uint64_t end = now_ns() + PROBE_TIMEOUT_NS;
    while (!p->remote_cq_data_seen && now_ns() < end)
        probe_progress(p);
    fprintf(out, "    remote CQ data     8-byte fi_writedata with a receive posted: %s%s\n",
            p->remote_cq_data_seen ? "FI_REMOTE_CQ_DATA entry seen"
                                   : "no FI_REMOTE_CQ_DATA entry within 2 s",
            counted ? "" : " (write not counted)");
}

/* Counters: an injected 8-byte write counted on the FI_WRITE counter and
 * visible; a read counted on the FI_READ counter. */
static void probe_counters(FILE *out, struct probe *p)
{
    ssize_t rc;
    p->buf[1] = 0x1234;
    uint64_t w = fi_cntr_read(p->wcntr);
    PROBE_RETRY(p, rc, fi_inject_write(p->ep, &p->buf[1], 8, p->self, p->raddr + 3 * 8, p->key));
    int wrote = !rc && probe_wait_cntr(p, p->wcntr, w + 1);
    uint64_t r = fi_cntr_read(p->rcntr);
    p->buf[4] = 0;
    if (wrote)
        PROBE_RETRY(p, rc, fi_read(p->ep, &p->buf[4], 8, p->desc, p->self, p->raddr + 3 * 8,
                                   p->key, NULL));
    int read = wrote && !rc && probe_wait_cntr(p, p->rcntr, r + 1);
    fprintf(out, "    counters           fi_inject_write %s; fi_read %s\n",
            rc && !wrote ? fi_strerror((int)-rc)
            : wrote      ? (p->buf[3] == 0x1234 ? "counted, data there" : "counted, data missing")
                         : "not counted within 2 s",
            !wrote ? "not run"
            : read ? (p->buf[4] == 0x1234 ? "counted, value read" : "counted, wrong value")
                   : "not counted within 2 s");
}

/* Native atomics, on a new endpoint (an endpoint's first operations are
 * where udp;ofi_rxd's fetching atomics go wrong): a fetching int64 add,
 * then an injected one, each checked on the word and its counter. */
static void probe_atomics(FILE *out, struct probe *p)
{
    size_t count = 0;
    struct fi_atomic_attr attr;
    memset(&attr, 0, sizeof attr);
    if (fi_query_atomic(p->domain, FI_INT64, FI_SUM, &attr, FI_FETCH_ATOMIC) != 0 ||
        fi_fetch_atomicvalid(p->ep, FI_INT64, FI_SUM, &count) != 0 || count < 1) {
        fprintf(out, "    native atomics     int64 fetch-add not offered\n");
        return;
    }
    ssize_t rc;
    p->buf[PROBE_WORD] = 40;
    p->buf[1] = 1;
    p->buf[2] = ~0ull;
    fprintf(out, "    native atomics     fi_fetch_atomic add: ");
    fflush(out);
    uint64_t r = fi_cntr_read(p->rcntr);
    PROBE_RETRY(p, rc, fi_fetch_atomic(p->ep, &p->buf[1], 1, p->desc, &p->buf[2], p->desc,
                                       p->self, p->raddr + 8 * PROBE_WORD, p->key, FI_INT64, FI_SUM, NULL));
    if (rc)
        fprintf(out, "%s", fi_strerror((int)-rc));
    else if (!probe_wait_cntr(p, p->rcntr, r + 1))
        fprintf(out, "not counted within 2 s");
    else if (p->buf[2] != 40 || p->buf[PROBE_WORD] != 41)
        fprintf(out, "counted, fetched %lld and left %lld (40 and 41 due)",
                (long long)p->buf[2], (long long)p->buf[PROBE_WORD]);
    else
        fprintf(out, "counted, fetched and applied");
    fprintf(out, "; fi_inject_atomic add: ");
    fflush(out);
    p->buf[PROBE_WORD] = 40;
    uint64_t w = fi_cntr_read(p->wcntr);
    PROBE_RETRY(p, rc, fi_inject_atomic(p->ep, &p->buf[1], 1, p->self, p->raddr + 8 * PROBE_WORD, p->key,
                                        FI_INT64, FI_SUM));
    if (rc)
        fprintf(out, "%s%s\n", fi_strerror((int)-rc), rc == -FI_EAGAIN ? " for 2 s" : "");
    else if (!probe_wait_cntr(p, p->wcntr, w + 1))
        fprintf(out, "not counted within 2 s\n");
    else
        fprintf(out, "%s\n", p->buf[PROBE_WORD] == 41 ? "counted, applied" : "counted, not applied");
    fflush(out);
    /* A provider that mishandled an operation may fault in its next
     * progress rather than in the call: give it that chance here. */
    for (int i = 0; i < 100; i++)
        probe_progress(p);
}

static const char *amo_summary(char *buf, size_t len)
{
    int native = 0, types = 0;
    for (int d = 0; d < WEFT_DT_NTYPES; d++, types++)
        native += weft_ofi.amo.dt_native[d] != 0;
    const char *why = weft_ofi_native_atomics_broken(weft_ofi_provider_name())
                          ? " (the provider's native atomics are known broken)"
                      : weft_ofi.amo.forced_software ? " (WEFT_AMO=software)"
                      : !weft_ofi.fab.have_atomic_cap ? " (no FI_ATOMIC)"
                                                      : "";
    if (native == types)
        snprintf(buf, len, "native");
    else if (native == 0)
        snprintf(buf, len, "software%s", why);
    else
        snprintf(buf, len, "native on %d of %d types, software on the others", native, types);
    return buf;
}

void weft_ofi_probe(FILE *out)
{
    const struct fi_info *fi = weft_ofi.fab.info;
    if (!fi) {
        fprintf(out, "libfabric not opened\n");
        return;
    }
    char amo[128];
    uint64_t mr_mode = fi->domain_attr->mr_mode;
    fprintf(out,
            "%s: atomics %s; counting puts by %s; RMA events %s; remote CQ data %zu B; "
            "inject %zu; fence %s; MR mode %s; progress %s/%s; quiet by %s; "
            "receives %s\n",
            fi->fabric_attr->prov_name, amo_summary(amo, sizeof amo),
            weft_ofi_count_imm ? "remote CQ data" : "atomic add",
            fi->caps & FI_RMA_EVENT ? "yes" : "no",
            fi->domain_attr->cq_data_size, weft_ofi.put.inject_size,
            weft_ofi.order.ordered       ? "free"
            : weft_ofi.order.rma_ordered ? "deferred"
                                         : "quiet",
            mr_mode ? fi_tostr(&mr_mode, FI_TYPE_MR_MODE) : "none",
            fi->domain_attr->data_progress == FI_PROGRESS_AUTO ? "auto" : "manual",
            fi->domain_attr->control_progress == FI_PROGRESS_AUTO ? "auto" : "manual",
            weft_ofi.put.rc != WEFT_RC_DELIVERY ? "flush reads"
            : weft_ofi.put.writes_flushed       ? "delivery completion, larger puts by flush reads"
                                                : "delivery completion",
            weft_ofi_msg_recv_mode() == WEFT_OFI_MSG_RECV_MULTI ? "into multi-receive buffers"
                                                                : "into pre-posted buffers");
    fflush(out);
    /* Counters and remote CQ data on one endpoint, atomics on another. */
    for (int round = 0; round < 2; round++) {
        struct probe *p = calloc(1, sizeof *p);
        char why[256];
        const char *err = p ? probe_open(p, why, sizeof why) : "out of memory";
        if (err)
            fprintf(out, "    probe endpoint     %s\n", err);
        else if (round == 0) {
            probe_counters(out, p);
            fflush(out);
            probe_cq_data(out, p);
        } else
            probe_atomics(out, p);
        fflush(out);
        if (p) {
            probe_close(p);
            free(p);
        }
    }
}

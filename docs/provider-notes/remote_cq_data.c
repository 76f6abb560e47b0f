/* SPDX-License-Identifier: BSD-3-Clause */
/* remote_cq_data.c -- standalone libfabric probe (not built by CMake) for
 * what counting puts and one-sided append could ride on (docs/providers.md,
 * docs/extensions.md). Two processes (fork), names exchanged through pipes,
 * one RDM endpoint each. Checks:
 *  1. fi_getinfo with FI_RMA | FI_RMA_EVENT and with FI_RMA alone, asking
 *     for 8 bytes of remote CQ data: granted? cq_data_size? modes
 *     (FI_RX_CQ_DATA: a posted receive is consumed per writedata)?
 *  2. fi_writedata (64 B and 64 KiB) with 64-bit immediate data: does the
 *     target's CQ report it (flags, data), are the bytes visible when the
 *     entry is read, and does the target have to progress for it to arrive
 *     (the initiator's completion is awaited first, target idle)?
 *  3. FI_MULTI_RECV: one 64 KiB buffer, three 100-byte sends: where does
 *     each land, and when is the buffer released (FI_MULTI_RECV flag)?
 * Usage: FI_PROVIDER=shm|tcp|sockets ./remote_cq_data
 * Build: cc -O1 -pthread -o remote_cq_data remote_cq_data.c -lfabric (with probe.h beside it) */
#include "probe.h"

static int rank, p2c[2][2];
static struct fi_info *info;
static struct fid_fabric *fab;
static struct fid_domain *dom;
static struct fid_ep *ep;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_cntr *wc;
static struct fid_mr *mr;
static char *heap;
static const size_t HSZ = 1 << 20;

static void xchg(void *mine, void *theirs, size_t len)
{
    if (write(p2c[rank][1], mine, len) != (ssize_t)len)
        exit(2);
    for (size_t g = 0; g < len;) {
        ssize_t r = read(p2c[1 - rank][0], (char *)theirs + g, len - g);
        if (r <= 0)
            exit(3);
        g += (size_t)r;
    }
}
static void bar(void)
{
    char a = 0, b;
    xchg(&a, &b, 1);
}

/* Read one CQ entry within ms milliseconds (progressing); 1 if got. */
static int cq_one(struct fi_cq_data_entry *e, int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        ssize_t r = fi_cq_read(cq, e, 1);
        if (r == 1)
            return 1;
        if (r == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            printf("  [%d] cq error %d (%s)\n", rank, err.err, fi_strerror(err.err));
            return 0;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
            return 0;
    }
}

static int try_info(uint64_t caps, const char *what)
{
    struct fi_info *hints = fi_allocinfo();
    hints->caps = caps;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->cq_data_size = 8;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->mode = FI_RX_CQ_DATA | FI_CONTEXT;
    struct fi_info *got = NULL;
    int r = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &got);
    if (rank == 0) {
        if (r)
            printf("getinfo %s: %s\n", what, fi_strerror(-r));
        else
            printf("getinfo %s: prov=%s cq_data_size=%zu mode=%s caps has RMA_EVENT=%d "
                   "MULTI_RECV=%d\n",
                   what, got->fabric_attr->prov_name, got->domain_attr->cq_data_size,
                   fi_tostr(&got->mode, FI_TYPE_MODE), !!(got->caps & FI_RMA_EVENT),
                   !!(got->caps & FI_MULTI_RECV));
    }
    if (!r && !info)
        info = got;
    return r;
}

int main(void)
{
    if (pipe(p2c[0]) || pipe(p2c[1]))
        return 9;
    rank = fork() == 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* 1. what is granted */
    try_info(FI_RMA | FI_MSG | FI_RMA_EVENT | FI_MULTI_RECV, "RMA+MSG+RMA_EVENT+MULTI_RECV");
    try_info(FI_RMA | FI_MSG | FI_MULTI_RECV, "RMA+MSG+MULTI_RECV (no RMA_EVENT)");
    if (!info) {
        if (rank == 0)
            wait(NULL);
        return 0;
    }
    heap = mmap(0, HSZ, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    probe_open(info, &fab, &dom, &av, &cq);
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
    CK(fi_cntr_open(dom, &ca, &wc, NULL));
    CK(fi_endpoint(dom, info, &ep, NULL));
    CK(fi_ep_bind(ep, &av->fid, 0));
    /* Transmit completions only on request; every receive and remote-CQ-data
     * event reported. */
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_SELECTIVE_COMPLETION));
    CK(fi_ep_bind(ep, &cq->fid, FI_RECV));
    CK(fi_ep_bind(ep, &wc->fid, FI_WRITE | FI_SEND));
    /* (fi_setopt FI_OPT_MIN_MULTI_RECV crashes shm 1.17: the default
     * threshold is left alone.) */
    CK(fi_enable(ep));
    CK(fi_mr_reg(dom, heap, HSZ, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE, 0, 7, 0,
                 &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        CK(fi_mr_bind(mr, &ep->fid, 0));
        CK(fi_mr_enable(mr));
    }
    char name[256] = {0}, pname[256], packed[512];
    size_t nl = sizeof name;
    CK(fi_getname(&ep->fid, name, &nl));
    xchg(name, pname, 256);
    memcpy(packed + rank * nl, name, nl);
    memcpy(packed + (1 - rank) * nl, pname, nl);
    fi_addr_t a[2];
    if (fi_av_insert(av, packed, 2, a, 0, NULL) != 2)
        exit(4);
    uint64_t key = fi_mr_key(mr), pkey, base = (uint64_t)(uintptr_t)heap, pbase;
    xchg(&key, &pkey, 8);
    xchg(&base, &pbase, 8);
    uint64_t roff = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? pbase : 0;
    int peer = 1 - rank;

    /* 2. writedata, target idle until the initiator's completion */
    size_t lens[2] = {64, 65536};
    for (int i = 0; i < 2; i++) {
        size_t len = lens[i];
        uint64_t imm = 0xabcdef0000000000ull | (uint64_t)len;
        memset(heap, 0, HSZ);
        /* No receive posted: none of these providers asks for FI_RX_CQ_DATA. */
        bar();
        if (rank == 0) {
            char *src = malloc(len);
            memset(src, 0x40 + i, len);
            uint64_t before = fi_cntr_read(wc);
            struct timespec t0, t;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            int r, stuck = 0;
            do {
                r = (int)fi_writedata(ep, src, len, NULL, imm, (fi_addr_t)peer, roff + 4096, pkey,
                                      NULL);
                if (r == -FI_EAGAIN) {
                    struct fi_cq_data_entry e;
                    cq_one(&e, 0);
                    clock_gettime(CLOCK_MONOTONIC, &t);
                    if (!stuck && t.tv_sec - t0.tv_sec > 2) {
                        stuck = 1;
                        printf(" writedata %zu B: -FI_EAGAIN for 2 s with the target idle "
                               "(needs the target's progress)\n", len);
                        bar(); /* the target starts progressing */
                    }
                }
            } while (r == -FI_EAGAIN);
            CK(r);
            clock_gettime(CLOCK_MONOTONIC, &t0);
            int done = 0;
            for (;;) {
                struct fi_cq_data_entry e;
                cq_one(&e, 0);
                if (fi_cntr_read(wc) > before) {
                    done = 1;
                    break;
                }
                clock_gettime(CLOCK_MONOTONIC, &t);
                if (t.tv_sec - t0.tv_sec > 2)
                    break;
            }
            if (!stuck) {
                printf(" writedata %zu B: initiator completion with the target idle: %s\n", len,
                       done ? "yes" : "NO (needs the target's progress)");
                bar();
            }
            free(src);
        } else {
            bar(); /* idle until the initiator is done or gave up */
            int visible_before = (unsigned char)heap[4096 + len - 1] == 0x40 + i;
            struct fi_cq_data_entry e;
            int got = cq_one(&e, 3000);
            int visible = (unsigned char)heap[4096] == 0x40 + i &&
                          (unsigned char)heap[4096 + len - 1] == 0x40 + i;
            if (got)
                printf(" writedata %zu B: target CQ entry flags=%s data=%#llx (%s), bytes "
                       "visible at the entry: %s, before the target progressed: %s\n",
                       len, fi_tostr(&e.flags, FI_TYPE_OP_FLAGS), (unsigned long long)e.data,
                       e.data == imm ? "intact" : "WRONG", visible ? "yes" : "NO",
                       visible_before ? "yes" : "no");
            else
                printf(" writedata %zu B: no target CQ entry within 3 s (bytes visible: %s)\n",
                       len, visible ? "yes" : "no");
        }
        bar();
    }

    /* 3. FI_MULTI_RECV */
    if (info->caps & FI_MULTI_RECV) {
        memset(heap, 0, HSZ);
        if (rank == 1) {
            struct iovec iov = {heap + 8192, 65536};
            struct fi_msg m = {.msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC};
            CK(fi_recvmsg(ep, &m, FI_MULTI_RECV));
        }
        bar();
        if (rank == 0) {
            char msg[100];
            for (int k = 0; k < 3; k++) {
                memset(msg, 'a' + k, sizeof msg);
                int r;
                do {
                    r = (int)fi_send(ep, msg, sizeof msg, NULL, (fi_addr_t)peer, NULL);
                    if (r == -FI_EAGAIN) {
                        struct fi_cq_data_entry e;
                        cq_one(&e, 0);
                    }
                } while (r == -FI_EAGAIN);
                CK(r);
            }
            struct timespec t0, t;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            do {
                struct fi_cq_data_entry e;
                cq_one(&e, 0);
                clock_gettime(CLOCK_MONOTONIC, &t);
            } while (fi_cntr_read(wc) < 3 && t.tv_sec - t0.tv_sec < 3);
        } else {
            for (int k = 0; k < 3;) {
                struct fi_cq_data_entry e;
                if (!cq_one(&e, 3000)) {
                    printf(" multi_recv: message %d missing\n", k);
                    break;
                }
                if (e.len == 0) { /* the buffer's release, no message */
                    printf(" multi_recv: buffer released after %d message(s), flags=%s\n", k,
                           fi_tostr(&e.flags, FI_TYPE_OP_FLAGS));
                    continue;
                }
                printf(" multi_recv: message %d at offset %td, %zu bytes, flags=%s\n", k,
                       (char *)e.buf - (heap + 8192), e.len, fi_tostr(&e.flags, FI_TYPE_OP_FLAGS));
                k++;
            }
        }
        bar();
    }
    if (rank == 0)
        wait(NULL);
    return 0;
}

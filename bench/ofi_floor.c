/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_floor: the libfabric floor under weft's put + quiet, measured without
 * weft by two processes (a fork) on one RDM provider (default tcp;ofi_rxm,
 * FI_PROVIDER picks another). Process 0 times, per iteration, an 8-byte
 * put to process 1 and the wait that completes it, in four ways:
 *   inject_local     fi_inject_write, then the write counter read until it
 *                    counts it: local completion only, what Sandia
 *                    OpenSHMEM's quiet waits for over tcp;ofi_rxm;
 *   inject_read      fi_inject_write, then an 8-byte fi_read from the same
 *                    target waited for on the read counter: the read comes
 *                    back after the write was applied (FI_ORDER_RAW), the
 *                    cheapest remote completion of an RMA write;
 *   delivery         fi_writemsg with FI_DELIVERY_COMPLETE, the write
 *                    counter waited for (skipped where refused);
 *   msg_ack          an 8-byte message that process 1's loop receives and
 *                    answers with an 8-byte message, waited for on the CQ:
 *                    weft's coalesced put and its acknowledgement.
 * Process 1 drives progress (fi_cq_read) in a busy loop throughout. Every
 * wait polls: the figures are the provider's, not a scheduler's. Prints
 * "RESULT <name> 8 <us per iteration>". Options: --iters N (default
 * 20000). */
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NAME_MAX_LEN 256
#define MODES 4

struct shared {
    volatile int ready[2];
    volatile int mode;  /* the mode process 0 runs now; MODES: done */
    size_t namelen[2];
    char name[2][NAME_MAX_LEN];
    uint64_t addr[2], key[2];
};

struct side {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_cntr *wcntr, *rcntr;
    struct fid_ep *ep;
    struct fid_mr *mr;
    uint64_t buf[64]; /* [0]: put target; [8]: read-back; [16..]: messages */
};

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (int)(call);                                                                     \
        if (rc_) {                                                                                 \
            fprintf(stderr, "ofi_floor: %s: %s\n", #call, fi_strerror(-rc_));                    \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void open_side(struct side *s)
{
    struct fi_info *hints = fi_allocinfo();
    hints->caps = FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->tx_attr->msg_order = FI_ORDER_RAW | FI_ORDER_SAS;
    const char *prov = getenv("FI_PROVIDER");
    hints->fabric_attr->prov_name = strdup(prov && *prov ? prov : "tcp");
    CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &s->info));
    fi_freeinfo(hints);
    CHECK(fi_fabric(s->info->fabric_attr, &s->fabric, NULL));
    CHECK(fi_domain(s->fabric, s->info, &s->domain, NULL));
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = 2};
    CHECK(fi_av_open(s->domain, &ava, &s->av, NULL));
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT};
    CHECK(fi_cq_open(s->domain, &cqa, &s->cq, NULL));
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
    CHECK(fi_cntr_open(s->domain, &ca, &s->wcntr, NULL));
    CHECK(fi_cntr_open(s->domain, &ca, &s->rcntr, NULL));
    CHECK(fi_endpoint(s->domain, s->info, &s->ep, NULL));
    CHECK(fi_ep_bind(s->ep, &s->av->fid, 0));
    CHECK(fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CHECK(fi_ep_bind(s->ep, &s->wcntr->fid, FI_WRITE));
    CHECK(fi_ep_bind(s->ep, &s->rcntr->fid, FI_READ));
    CHECK(fi_enable(s->ep));
    CHECK(fi_mr_reg(s->domain, s->buf, sizeof s->buf,
                    FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV, 0,
                    0, 0, &s->mr, NULL));
}

/* Everything open_side opened, closed (the leak checker of a sanitized
 * build reads what is left). */
static void close_side(struct side *s)
{
    fi_close(&s->mr->fid);
    fi_close(&s->ep->fid);
    fi_close(&s->rcntr->fid);
    fi_close(&s->wcntr->fid);
    fi_close(&s->cq->fid);
    fi_close(&s->av->fid);
    fi_close(&s->domain->fid);
    fi_close(&s->fabric->fid);
    fi_freeinfo(s->info);
}

/* One receive of 8 bytes into buf[16 + slot], reported to the CQ. */
static void post_recv(struct side *s, int slot)
{
    struct iovec iov = {&s->buf[16 + slot], 8};
    void *desc = fi_mr_desc(s->mr);
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1,
                         .addr = FI_ADDR_UNSPEC, .context = NULL};
    ssize_t rc;
    while ((rc = fi_recvmsg(s->ep, &msg, FI_COMPLETION)) == -FI_EAGAIN)
        (void)fi_cq_read(s->cq, NULL, 0);
    CHECK(rc);
}

static void send8(struct side *s, fi_addr_t to)
{
    ssize_t rc;
    while ((rc = fi_inject(s->ep, &s->buf[24], 8, to)) == -FI_EAGAIN)
        (void)fi_cq_read(s->cq, NULL, 0);
    CHECK(rc);
}

/* A received message (1) or nothing (0). */
static int poll_recv(struct side *s)
{
    struct fi_cq_entry e;
    ssize_t n = fi_cq_read(s->cq, &e, 1);
    if (n == 1)
        return 1;
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(s->cq, &err, 0);
        fprintf(stderr, "ofi_floor: completion error %s\n", fi_strerror(err.err));
        exit(2);
    }
    return 0;
}

static void wait_cntr(struct fid_cntr *c, uint64_t want)
{
    while (fi_cntr_read(c) < want)
        if (fi_cntr_readerr(c)) {
            fprintf(stderr, "ofi_floor: an operation failed\n");
            exit(2);
        }
}

static const char *const mode_name[MODES] = {"inject_local", "inject_read", "delivery", "msg_ack"};

/* Process 0: one mode, iters iterations; returns us per iteration, or -1
 * where the provider refused the mode. */
static double run_mode(struct side *s, struct shared *sh, int mode, int iters)
{
    fi_addr_t peer = 1;
    uint64_t raddr = sh->addr[1], rkey = sh->key[1];
    void *desc = fi_mr_desc(s->mr);
    uint64_t w = fi_cntr_read(s->wcntr), r = fi_cntr_read(s->rcntr);
    double t0 = 0;
    int warm = iters / 10;
    for (int i = -warm; i < iters; i++) {
        if (i == 0)
            t0 = now_us();
        s->buf[24] = (uint64_t)i;
        ssize_t rc;
        switch (mode) {
        case 0:
        case 1:
            while ((rc = fi_inject_write(s->ep, &s->buf[24], 8, peer, raddr, rkey)) == -FI_EAGAIN)
                (void)fi_cq_read(s->cq, NULL, 0);
            CHECK(rc);
            wait_cntr(s->wcntr, ++w);
            if (mode == 1) {
                while ((rc = fi_read(s->ep, &s->buf[8], 8, desc, peer, raddr, rkey, NULL)) ==
                       -FI_EAGAIN)
                    (void)fi_cq_read(s->cq, NULL, 0);
                CHECK(rc);
                wait_cntr(s->rcntr, ++r);
            }
            break;
        case 2: {
            struct iovec iov = {&s->buf[24], 8};
            struct fi_rma_iov riov = {raddr, 8, rkey};
            struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1,
                                     .addr = peer, .rma_iov = &riov, .rma_iov_count = 1};
            while ((rc = fi_writemsg(s->ep, &msg, FI_DELIVERY_COMPLETE)) == -FI_EAGAIN)
                (void)fi_cq_read(s->cq, NULL, 0);
            if (rc)
                return -1;
            wait_cntr(s->wcntr, ++w);
            break;
        }
        case 3:
            send8(s, peer);
            while (!poll_recv(s))
                ;
            post_recv(s, 0);
            break;
        }
    }
    return (now_us() - t0) / iters;
}

int main(int argc, char **argv)
{
    int iters = 20000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--quick") != 0) {
            fprintf(stderr, "usage: %s [--iters N] [--quick]\n", argv[0]);
            return 2;
        }
        if (!strcmp(argv[i], "--quick"))
            iters = 500;
    }
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                             -1, 0);
    if (sh == MAP_FAILED)
        return 2;
    memset(sh, 0, sizeof *sh);
    pid_t child = fork();
    int me = child == 0;
    struct side s;
    memset(&s, 0, sizeof s);
    open_side(&s);
    sh->namelen[me] = NAME_MAX_LEN;
    CHECK(fi_getname(&s.ep->fid, sh->name[me], &sh->namelen[me]));
    /* Without FI_MR_VIRT_ADDR a target address is an offset in the region. */
    sh->addr[me] = s.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? (uint64_t)(uintptr_t)s.buf : 0;
    sh->key[me] = fi_mr_key(s.mr);
    post_recv(&s, 0);
    __atomic_store_n(&sh->ready[me], 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&sh->ready[!me], __ATOMIC_ACQUIRE))
        ;
    for (int p = 0; p < 2; p++) {
        fi_addr_t a;
        if (fi_av_insert(s.av, sh->name[p], 1, &a, 0, NULL) != 1 || a != (fi_addr_t)p) {
            fprintf(stderr, "ofi_floor: fi_av_insert\n");
            return 2;
        }
    }
    if (me == 1) { /* progress, and answer every message */
        while (__atomic_load_n(&sh->mode, __ATOMIC_ACQUIRE) < MODES)
            if (poll_recv(&s)) {
                post_recv(&s, 0);
                send8(&s, 0);
            }
        for (int i = 0; i < 1000; i++) /* let the last answers leave */
            (void)fi_cq_read(s.cq, NULL, 0);
        _exit(0);
    }
    int status = 0;
    for (int m = 0; m < MODES; m++) {
        __atomic_store_n(&sh->mode, m, __ATOMIC_RELEASE);
        double us = run_mode(&s, sh, m, iters);
        if (us < 0)
            printf("# %s: refused by the provider\n", mode_name[m]);
        else
            printf("RESULT %s 8 %.3f us\n", mode_name[m], us);
        fflush(stdout);
    }
    __atomic_store_n(&sh->mode, MODES, __ATOMIC_RELEASE);
    waitpid(child, &status, 0);
    close_side(&s);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* wait_objects.c -- standalone libfabric probe (not built by CMake): which
 * wait objects a provider offers and whether blocking on them serves a
 * peer. Two processes (fork), names exchanged through pipes, one RDM
 * endpoint each, the CQ and the counters opened with the wait object asked
 * for. It prints, for the CQ and for a counter:
 *  - whether fi_cq_open / fi_cntr_open accept FI_WAIT_FD, FI_WAIT_UNSPEC
 *    and FI_WAIT_YIELD, and whether fi_control(FI_GETWAIT) returns an fd;
 * then times how fast a target that is blocked (not polling) answers:
 *  A. target blocked in poll() on the CQ's fd (after fi_trywait), the
 *     initiator does an 8-byte fi_read: round trip;
 *  B. the same with fi_cq_sread(timeout 1 s) on the target;
 *  C. target blocked in fi_cq_sread, the initiator sends a 64-byte message
 *     (what weft's software atomics are): time until the target saw it;
 *  D. target blocked in fi_cntr_wait on its own read counter (timeout 1 s)
 *     with nothing outstanding: does a peer's fi_read get served?
 * A figure near 1000 ms means the wait object slept through the peer's
 * request (only the timeout woke it).
 * Usage: FI_PROVIDER=shm|tcp|sockets ./wait_objects
 * Build: cc -O1 -pthread -o wait_objects wait_objects.c -lfabric (with probe.h beside it) */
#include "probe.h"

static int rank, pipes[2][2];
static struct fi_info *info;
static struct fid_fabric *fab;
static struct fid_domain *dom;
static struct fid_ep *ep;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_cntr *wc, *rc;
static struct fid_mr *mr;
static char *heap;
static const size_t HSZ = 1 << 20;
static char rbuf[4][256];
static double last_wait;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void progress(void)
{
    struct fi_cq_data_entry e[8];
    ssize_t r = fi_cq_read(cq, e, 8);
    if (r == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(cq, &err, 0);
        fprintf(stderr, "cq error %s\n", fi_strerror(err.err));
        exit(5);
    }
    if (r > 0)
        for (ssize_t i = 0; i < r; i++)
            if (e[i].flags & FI_RECV)
                heap[HSZ - 1] = 1; /* a message arrived */
}

/* Exchange len bytes with the peer; progress while waiting if prog. */
static void xchg(void *mine, void *theirs, size_t len, int prog)
{
    int peer = 1 - rank;
    if (write(pipes[rank][1], mine, len) != (ssize_t)len)
        exit(2);
    size_t got = 0;
    while (got < len) {
        struct pollfd pf = {pipes[peer][0], POLLIN, 0};
        if (prog && poll(&pf, 1, 0) <= 0) {
            progress();
            continue;
        }
        ssize_t r = read(pipes[peer][0], (char *)theirs + got, len - got);
        if (r <= 0)
            exit(3);
        got += (size_t)r;
    }
}
static void barrier(int prog)
{
    char a = 0, b;
    xchg(&a, &b, 1, prog);
}

static const char *wait_name(enum fi_wait_obj w)
{
    return w == FI_WAIT_FD ? "FI_WAIT_FD" : w == FI_WAIT_UNSPEC ? "FI_WAIT_UNSPEC"
                                        : w == FI_WAIT_YIELD    ? "FI_WAIT_YIELD"
                                                                : "FI_WAIT_NONE";
}

/* Print whether an object opened and whether it gives a wait fd; closes it. */
static void report_wait(const char *what, int open_rc, struct fid *f)
{
    int fd = -1, g = f ? fi_control(f, FI_GETWAIT, &fd) : -FI_EPERM;
    printf("%s open %s, FI_GETWAIT %s (fd %d)", what, open_rc ? fi_strerror(-open_rc) : "ok",
           g ? fi_strerror(-g) : "ok", fd);
    if (f)
        fi_close(f);
}

int main(void)
{
    struct fi_info *hints = fi_allocinfo();
    hints->caps = FI_RMA | FI_MSG;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode =
        FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    if (pipe(pipes[0]) || pipe(pipes[1]))
        return 1;
    rank = fork() == 0;
    CK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
    if (rank == 0)
        printf("provider %s\n", info->fabric_attr->prov_name);
    heap = mmap(0, HSZ, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CK(fi_fabric(info->fabric_attr, &fab, NULL));
    CK(fi_domain(fab, info, &dom, NULL));

    /* What opens: try each wait object on a throw-away CQ and counter. */
    enum fi_wait_obj objs[] = {FI_WAIT_FD, FI_WAIT_UNSPEC, FI_WAIT_YIELD, FI_WAIT_NONE};
    for (int i = 0; i < 4 && rank == 0; i++) {
        struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_DATA, .wait_obj = objs[i]};
        struct fi_cntr_attr na = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = objs[i]};
        struct fid_cq *c;
        struct fid_cntr *n;
        printf("  %-15s", wait_name(objs[i]));
        int r = fi_cq_open(dom, &ca, &c, NULL);
        report_wait("cq", r, r ? NULL : &c->fid);
        r = fi_cntr_open(dom, &na, &n, NULL);
        report_wait("; cntr", r, r ? NULL : &n->fid);
        printf("\n");
    }

    struct fi_av_attr ava = {.type = FI_AV_TABLE};
    CK(fi_av_open(dom, &ava, &av, NULL));
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_FD};
    int cq_fd_ok = fi_cq_open(dom, &cqa, &cq, NULL) == 0;
    if (!cq_fd_ok) {
        cqa.wait_obj = FI_WAIT_UNSPEC;
        CK(fi_cq_open(dom, &cqa, &cq, NULL));
    }
    struct fi_cntr_attr na = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_UNSPEC};
    CK(fi_cntr_open(dom, &na, &wc, NULL));
    CK(fi_cntr_open(dom, &na, &rc, NULL));
    CK(fi_endpoint(dom, info, &ep, NULL));
    CK(fi_ep_bind(ep, &av->fid, 0));
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CK(fi_ep_bind(ep, &wc->fid, FI_WRITE));
    CK(fi_ep_bind(ep, &rc->fid, FI_READ));
    CK(fi_enable(ep));
    CK(fi_mr_reg(dom, heap, HSZ, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE, 0, 7, 0,
                 &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        CK(fi_mr_bind(mr, &ep->fid, 0));
        CK(fi_mr_enable(mr));
    }
    for (int i = 0; i < 4; i++) {
        struct iovec iov = {rbuf[i], sizeof rbuf[i]};
        struct fi_msg m = {.msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC};
        CK(fi_recvmsg(ep, &m, FI_COMPLETION));
    }
    char name[256] = {0}, pname[256];
    size_t nl = sizeof name;
    CK(fi_getname(&ep->fid, name, &nl));
    xchg(name, pname, sizeof name, 0);
    fi_addr_t a;
    CK(fi_av_insert(av, rank ? pname : name, 1, &a, 0, NULL) != 1);
    CK(fi_av_insert(av, rank ? name : pname, 1, &a, 0, NULL) != 1);
    uint64_t key = fi_mr_key(mr), pkey, base = (uint64_t)(uintptr_t)heap, pbase;
    xchg(&key, &pkey, 8, 0);
    xchg(&base, &pbase, 8, 0);
    uint64_t raddr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? pbase : 0;
    fi_addr_t peer = (fi_addr_t)(1 - rank);
    int fd = -1;
    int have_fd = cq_fd_ok && fi_control(&cq->fid, FI_GETWAIT, &fd) == 0;
    if (rank == 0)
        printf("  endpoint CQ: %s, fd %s\n", wait_name(cqa.wait_obj), have_fd ? "yes" : "no");

    /* Connect both ways while both progress (manual providers need it). */
    uint64_t v = 1, r_issued = 0;
    ssize_t ir;
    while ((ir = fi_inject_write(ep, &v, 8, peer, raddr, pkey)) == -FI_EAGAIN)
        progress();
    CK(ir);
    barrier(1);
    for (int i = 0; i < 200; i++)
        progress();
    barrier(1);

    const char *tests[] = {"A poll(cq fd) vs fi_read", "B fi_cq_sread vs fi_read",
                           "C fi_cq_sread vs fi_send", "D fi_cntr_wait vs fi_read"};
    for (int t = 0; t < 4; t++) {
        if (t == 0 && !have_fd) {
            if (rank == 0)
                printf("  %s: no fd\n", tests[t]);
            continue;
        }
        heap[HSZ - 1] = 0;
        barrier(1);
        if (rank == 1) {
            double t0 = now(), waited = 0;
            for (int k = 0; k < 3 && now() - t0 < 2.5; k++) {
                double w0 = now();
                if (t == 0) {
                    struct fid *f = &cq->fid;
                    if (fi_trywait(fab, &f, 1) == 0) {
                        struct pollfd pf = {fd, POLLIN, 0};
                        poll(&pf, 1, 1000);
                    }
                    progress();
                } else if (t == 1 || t == 2) {
                    struct fi_cq_data_entry e;
                    ssize_t r = fi_cq_sread(cq, &e, 1, NULL, 1000);
                    if (r > 0 && (e.flags & FI_RECV))
                        heap[HSZ - 1] = 1;
                } else {
                    fi_cntr_wait(rc, 1, 1000);
                }
                waited = now() - w0;
                if (t == 2 && heap[HSZ - 1])
                    break;
            }
            last_wait = waited;
            char done;
            xchg(&done, &done, 1, 1); /* the initiator finished */
        } else {
            usleep(100000); /* let the target block */
            double t0 = now();
            if (t == 2) {
                char msg[64] = "hello";
                CK(fi_inject(ep, msg, sizeof msg, peer));
                printf("  %s: sent (the target reports its wake-up)\n", tests[t]);
            } else {
                uint64_t x;
                ssize_t r;
                while ((r = fi_read(ep, &x, 8, NULL, peer, raddr, pkey, NULL)) == -FI_EAGAIN)
                    progress();
                CK(r);
                r_issued++;
                while (fi_cntr_read(rc) < r_issued && now() - t0 < 3)
                    progress();
                printf("  %s: read answered in %.3f ms%s\n", tests[t], 1e3 * (now() - t0),
                       fi_cntr_read(rc) < r_issued ? " (NOT answered in 3 s)" : "");
            }
            fflush(stdout);
            char done = 0;
            xchg(&done, &done, 1, 1);
        }
        if (t == 2 && rank == 1) {
            printf("  %s: target saw the message: %s (its last wait lasted %.1f ms; sent "
                   "about 100 ms after it began)\n", tests[t], heap[HSZ - 1] ? "yes" : "no",
                   1e3 * last_wait);
            fflush(stdout);
        }
        barrier(1);
    }
    barrier(1);
    fi_close(&ep->fid);
    if (rank == 0)
        wait(NULL);
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* rxd_atomic.c -- standalone libfabric probe (not built by CMake) for native
 * atomics on udp;ofi_rxd. Two processes (forked by a parent that reports how
 * each ended), names exchanged through pipes, one RDM endpoint each with a
 * CQ (selective completion) and FI_WRITE / FI_READ counters, as weft opens
 * them. Both progress while waiting; then the initiator(s):
 *  1. an 8-byte fi_inject_write to the target, waited for on the write
 *     counter (the control case: RMA works);
 *  2. the atomic chosen by PROBE_OP, to the target: fetch (fi_fetch_atomic
 *     FI_SUM, default), add (fi_atomic FI_SUM, with a completion), inject
 *     (fi_inject_atomic FI_SUM) or cswap (fi_compare_atomic), waited for on
 *     the read counter (fetching) or the write counter, 5 s at most;
 *  3. the target's word, read back with fi_read.
 * PROBE_TARGET=peer (default) or self: rank 0 targets rank 1 (or itself);
 * PROBE_BOTH=1: rank 1 does the same towards rank 0 (or itself).
 * PROBE_WORD=offset: the atomic's target word (default 8; the write goes
 * to offset 0). rxd's fi_inject_atomic looks the peer up by the remote
 * address instead of dest_addr: offset 0 or 1 picks rank 0 or 1, others
 * no peer (-FI_EAGAIN forever).
 * PROBE_RECVS=n: each process first posts n 4 KiB receive buffers (as
 * weft's message engine does) and sends the other one message.
 * PROBE_REMOTE_CNTR=1: also bind a counter for FI_REMOTE_READ |
 * FI_REMOTE_WRITE (FI_RMA_EVENT). PROBE_DC=1: FI_DELIVERY_COMPLETE as a
 * default tx op flag.
 * Usage: FI_PROVIDER="udp;ofi_rxd" FI_UDP_IFACE=lo ./rxd_atomic
 * Build: cc -O1 -pthread -o rxd_atomic rxd_atomic.c -lfabric (with probe.h beside it) */
#include "probe.h"

static int rank, p2c[2][2];
static struct fi_info *info;
static struct fid_fabric *fab;
static struct fid_domain *dom;
static struct fid_ep *ep;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_cntr *wc, *rc, *remc;
static struct fid_mr *mr;
static long heap[64];
static char (*rbuf)[4096];

static void progress(void)
{
    struct fi_cq_data_entry e[4];
    ssize_t r = fi_cq_read(cq, e, 4);
    if (r == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(cq, &err, 0);
        printf("  [%d] cq error %d (%s)\n", rank, err.err, fi_strerror(err.err));
    }
}

/* Exchange len bytes with the other process, progressing while waiting. */
static void xchg(void *mine, void *theirs, size_t len)
{
    probe_xchg(p2c[rank][1], p2c[1 - rank][0], mine, theirs, len, ep ? progress : NULL);
}
static void bar(void)
{
    char a = 0, b;
    xchg(&a, &b, 1);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Wait until counter c reaches n; 1 if it did within 5 s. */
static int wait_cntr(struct fid_cntr *c, uint64_t n, const char *what)
{
    double t0 = now();
    while (fi_cntr_read(c) < n) {
        if (fi_cntr_readerr(c)) {
            printf("  [%d] %s: counter error\n", rank, what);
            return 0;
        }
        if (now() - t0 > 5) {
            printf("  [%d] %s: TIMEOUT, counter %lu of %lu\n", rank, what,
                   (unsigned long)fi_cntr_read(c), (unsigned long)n);
            return 0;
        }
    }
    return 1;
}

#define RETRY(call)                                                                                \
    do {                                                                                           \
        ssize_t _r;                                                                                \
        while ((_r = (call)) == -FI_EAGAIN)                                                        \
            progress();                                                                            \
        CK(_r);                                                                                    \
    } while (0)

static void initiate(int target, const char *op)
{
    uint64_t key = 0, raddr = 0; /* requested key 0, offsets (no FI_MR_VIRT_ADDR) */
    if (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) {
        printf("  [%d] provider wants FI_MR_VIRT_ADDR: not handled by this probe\n", rank);
        return;
    }
    long v = 0x1234, one = 1, cmp = 0, res = -1, back = -1;
    uint64_t word = getenv("PROBE_WORD") ? strtoull(getenv("PROBE_WORD"), NULL, 0) : 8;
    int wrote = !getenv("PROBE_NO_WRITE");
    if (wrote) {
        RETRY(fi_inject_write(ep, &v, 8, (fi_addr_t)target, raddr + 0, key));
        printf("  [%d] inject_write to %d: %s\n", rank, target,
               wait_cntr(wc, 1, "inject_write") ? "counted" : "not counted");
    }
    fflush(stdout);
    int fetching = strcmp(op, "add") && strcmp(op, "inject");
    long rd[8];
    int nreads = getenv("PROBE_READS") ? atoi(getenv("PROBE_READS")) : 0;
    for (int i = 0; i < nreads && i < 8; i++)
        RETRY(fi_read(ep, &rd[i], 8, NULL, (fi_addr_t)target, raddr + 16, key, NULL));
    if (getenv("PROBE_WAIT_READS") && nreads)
        printf("  [%d] %d reads: %s\n", rank, nreads,
               wait_cntr(rc, (uint64_t)nreads, "reads") ? "counted" : "not counted");
    if (!strcmp(op, "fetch"))
        RETRY(fi_fetch_atomic(ep, &one, 1, NULL, &res, NULL, (fi_addr_t)target, raddr + word, key,
                              FI_INT64, FI_SUM, NULL));
    else if (!strcmp(op, "cswap"))
        RETRY(fi_compare_atomic(ep, &one, 1, NULL, &cmp, NULL, &res, NULL, (fi_addr_t)target,
                                raddr + word, key, FI_INT64, FI_CSWAP, NULL));
    else if (!strcmp(op, "add"))
        RETRY(fi_atomic(ep, &one, 1, NULL, (fi_addr_t)target, raddr + word, key, FI_INT64, FI_SUM,
                        NULL));
    else
        RETRY(fi_inject_atomic(ep, &one, 1, (fi_addr_t)target, raddr + word, key, FI_INT64, FI_SUM));
    printf("  [%d] %s issued to %d, waiting on the %s counter\n", rank, op, target,
           fetching ? "read" : "write");
    fflush(stdout);
    int ok = fetching ? wait_cntr(rc, (uint64_t)nreads + 1, op) : wait_cntr(wc, (uint64_t)wrote + 1, op);
    printf("  [%d] %s: %s%s", rank, op, ok ? "counted" : "not counted",
           fetching && ok ? "" : "\n");
    if (fetching && ok)
        printf(", fetched %ld\n", res);
    fflush(stdout);
    RETRY(fi_read(ep, &back, 8, NULL, (fi_addr_t)target, raddr + word, key, NULL));
    if (wait_cntr(rc, (uint64_t)nreads + (fetching ? 2 : 1), "read back"))
        printf("  [%d] target word now %ld; the same word here %ld\n", rank, back,
               heap[word / 8]);
    fflush(stdout);
}

static int run(void)
{
    const char *op = getenv("PROBE_OP") ? getenv("PROBE_OP") : "fetch";
    int self = getenv("PROBE_TARGET") && !strcmp(getenv("PROBE_TARGET"), "self");
    int both = getenv("PROBE_BOTH") != NULL;
    struct fi_info *hints = fi_allocinfo();
    hints->caps = FI_RMA | FI_MSG | FI_ATOMIC | (getenv("PROBE_REMOTE_CNTR") ? FI_RMA_EVENT : 0);
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    if (getenv("PROBE_DC"))
        hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    CK(fi_getinfo(PROBE_API, NULL, NULL, 0, hints, &info));
    if (rank == 0)
        printf("provider %s, fabric %s, domain %s; op %s, target %s%s%s%s\n",
               info->fabric_attr->prov_name, info->fabric_attr->name, info->domain_attr->name, op,
               self ? "self" : "peer", both ? ", both initiate" : "",
               getenv("PROBE_REMOTE_CNTR") ? ", remote counter" : "",
               getenv("PROBE_DC") ? ", delivery complete" : "");
    probe_open(info, &fab, &dom, &av, &cq);
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
    CK(fi_cntr_open(dom, &ca, &wc, NULL));
    CK(fi_cntr_open(dom, &ca, &rc, NULL));
    CK(fi_endpoint(dom, info, &ep, NULL));
    CK(fi_ep_bind(ep, &av->fid, 0));
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CK(fi_ep_bind(ep, &wc->fid, FI_WRITE));
    CK(fi_ep_bind(ep, &rc->fid, FI_READ));
    if (getenv("PROBE_REMOTE_CNTR")) {
        CK(fi_cntr_open(dom, &ca, &remc, NULL));
        CK(fi_ep_bind(ep, &remc->fid, FI_REMOTE_READ | FI_REMOTE_WRITE));
    }
    CK(fi_enable(ep));
    CK(fi_mr_reg(dom, heap, sizeof heap, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL));
    char name[256] = {0}, pname[256] = {0};
    size_t nl = sizeof name;
    CK(fi_getname(&ep->fid, name, &nl));
    xchg(name, pname, sizeof name);
    /* One name at a time, in rank order, as weft inserts its PEs. */
    for (int r = 0; r < 2; r++) {
        fi_addr_t a;
        if (fi_av_insert(av, r == rank ? name : pname, 1, &a, 0, NULL) != 1 || a != (fi_addr_t)r) {
            printf("  [%d] fi_av_insert of %d failed\n", rank, r);
            return 4;
        }
    }
    int nrecv = getenv("PROBE_RECVS") ? atoi(getenv("PROBE_RECVS")) : 0;
    if (nrecv) {
        rbuf = calloc((size_t)nrecv, sizeof *rbuf);
        for (int i = 0; i < nrecv; i++)
            RETRY(fi_recv(ep, rbuf[i], sizeof rbuf[i], NULL, FI_ADDR_UNSPEC, rbuf[i]));
        bar();
        char msg[64] = "hello";
        RETRY(fi_inject(ep, msg, sizeof msg, (fi_addr_t)(1 - rank)));
    }
    bar();
    if (rank == 0 || both)
        initiate(self ? rank : 1 - rank, op);
    bar();
    for (int i = 0; i < 1000; i++)
        progress();
    bar();
    return 0;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pipe(p2c[0]) || pipe(p2c[1]))
        return 1;
    pid_t pid[2];
    for (int r = 0; r < 2; r++) {
        pid[r] = fork();
        if (pid[r] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            alarm(30);
            rank = r;
            exit(run());
        }
    }
    int failed = 0;
    for (int r = 0; r < 2; r++) {
        int st;
        waitpid(pid[r], &st, 0);
        if (WIFSIGNALED(st)) {
            printf("process %d: killed by signal %d (%s)\n", r, WTERMSIG(st),
                   strsignal(WTERMSIG(st)));
            failed = 1;
            if (r == 0)
                kill(pid[1], SIGKILL);
        } else if (WEXITSTATUS(st)) {
            printf("process %d: exit status %d\n", r, WEXITSTATUS(st));
            failed = 1;
        }
    }
    if (!failed)
        printf("both processes completed\n");
    return failed;
}

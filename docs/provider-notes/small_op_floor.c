/* SPDX-License-Identifier: BSD-3-Clause */
/* small_op_floor.c -- standalone libfabric probe (not built by CMake): the
 * latency floor a provider sets for the small operations weft is compared
 * on against Sandia OpenSHMEM, with nothing of either library around them.
 * Two processes (fork), names exchanged through pipes, one RDM endpoint
 * each with a CQ and read and write counters. Process 1 only serves: it
 * calls fi_cq_read in a loop, as fast as it can, until process 0 writes
 * its stop word. Process 0 times, 8-byte operands:
 *  fadd-cq       fi_fetch_atomic(FI_SUM), then fi_cq_read until its entry;
 *  fadd-cntr     the same, waiting on the read counter (fi_cntr_read),
 *                then one fi_cq_read for its entry;
 *  add-cntr      fi_atomic(FI_SUM), then fi_cntr_read until the write
 *                counter moves (an add to remote completion);
 *  add-inject    fi_inject_atomic(FI_SUM) and the same counter wait;
 *  get-cq        fi_read, then fi_cq_read until its entry;
 *  get-fadd      an 8-byte fi_fetch_atomic(FI_ATOMIC_READ) on the CQ.
 * Each operation is timed in windows of 50; the line gives the mean over
 * all of them, then the fastest window's and the median window's (on a
 * loaded host the fastest window is where both processes had a CPU).
 * DC=1 in the environment asks for FI_DELIVERY_COMPLETE on every transmit
 * (weft's endpoint default), ORDER=1 for write ordering (weft's on shm);
 * SPIN=n makes the server call sched_yield every n polls.
 * Usage: FI_PROVIDER=shm|tcp ./small_op_floor [iterations]
 * Build: cc -O2 -o small_op_floor small_op_floor.c -lfabric (probe.h beside it) */
#include "probe.h"

static int rank, pipes[2][2];
static struct fid_cq *cq;
static struct fid_cntr *wc, *rc;
static volatile uint64_t *heap; /* [0] the atomics' word, [1] stop, [2] the get's word */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void cq_error(void)
{
    struct fi_cq_err_entry err = {0};
    fi_cq_readerr(cq, &err, 0);
    fprintf(stderr, "cq error %s\n", fi_strerror(err.err));
    exit(5);
}

/* Reads the CQ until n entries came; returns the polls it took. */
static unsigned long cq_wait(int n)
{
    unsigned long polls = 0;
    struct fi_cq_data_entry e[4];
    while (n > 0) {
        ssize_t r = fi_cq_read(cq, e, 4);
        polls++;
        if (r > 0)
            n -= (int)r;
        else if (r == -FI_EAVAIL)
            cq_error();
    }
    return polls;
}

static void progress(void)
{
    struct fi_cq_data_entry e[4];
    if (fi_cq_read(cq, e, 4) == -FI_EAVAIL)
        cq_error();
}

/* Closing the endpoint and domain is what makes shm remove its region
 * from /dev/shm. */
static void close_all(struct fid_ep *ep, struct fid_mr *mr, struct fid_av *av,
                      struct fid_domain *dom, struct fid_fabric *fab)
{
    fi_close(&ep->fid);
    fi_close(&mr->fid);
    fi_close(&wc->fid);
    fi_close(&rc->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&dom->fid);
    fi_close(&fab->fid);
}

static void cntr_wait(struct fid_cntr *c, uint64_t target)
{
    while (fi_cntr_read(c) < target)
        if (fi_cntr_readerr(c))
            exit(6);
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    int dc = getenv("DC") && atoi(getenv("DC"));
    int order = getenv("ORDER") && atoi(getenv("ORDER"));
    unsigned long spin = getenv("SPIN") ? strtoul(getenv("SPIN"), NULL, 10) : 0;
    struct fi_info *hints = fi_allocinfo(), *info;
    hints->caps = FI_RMA | FI_ATOMIC | FI_MSG;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode =
        FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    if (dc)
        hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    if (order)
        hints->tx_attr->msg_order = FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_WAR | FI_ORDER_SAW;
    if (pipe(pipes[0]) || pipe(pipes[1]))
        return 1;
    rank = fork() == 0;
    CK(fi_getinfo(PROBE_API, NULL, NULL, 0, hints, &info));
    if (dc)
        info->tx_attr->op_flags |= FI_DELIVERY_COMPLETE;
    if (rank == 0)
        printf("provider %s, %s, %s\n", info->fabric_attr->prov_name,
               dc ? "FI_DELIVERY_COMPLETE" : "default completion",
               order ? "write ordering" : "no ordering asked");
    heap = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_mr *mr;
    probe_open(info, &fab, &dom, &av, &cq);
    struct fi_cntr_attr na = {.events = FI_CNTR_EVENTS_COMP};
    CK(fi_cntr_open(dom, &na, &wc, NULL));
    CK(fi_cntr_open(dom, &na, &rc, NULL));
    CK(fi_endpoint(dom, info, &ep, NULL));
    CK(fi_ep_bind(ep, &av->fid, 0));
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CK(fi_ep_bind(ep, &wc->fid, FI_WRITE));
    CK(fi_ep_bind(ep, &rc->fid, FI_READ));
    CK(fi_enable(ep));
    CK(fi_mr_reg(dom, (void *)heap, 4096, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
                 0, 7, 0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        CK(fi_mr_bind(mr, &ep->fid, 0));
        CK(fi_mr_enable(mr));
    }
    char name[256] = {0}, pname[256];
    size_t nl = sizeof name;
    CK(fi_getname(&ep->fid, name, &nl));
    int me = rank, peer_rank = 1 - rank;
    probe_xchg(pipes[me][1], pipes[peer_rank][0], name, pname, sizeof name, NULL);
    fi_addr_t a;
    CK(fi_av_insert(av, rank ? pname : name, 1, &a, 0, NULL) != 1);
    CK(fi_av_insert(av, rank ? name : pname, 1, &a, 0, NULL) != 1);
    uint64_t key = fi_mr_key(mr), pkey, base = (uint64_t)(uintptr_t)heap, pbase;
    probe_xchg(pipes[me][1], pipes[peer_rank][0], &key, &pkey, 8, NULL);
    probe_xchg(pipes[me][1], pipes[peer_rank][0], &base, &pbase, 8, NULL);
    uint64_t raddr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? pbase : 0;
    fi_addr_t peer = (fi_addr_t)peer_rank;

    if (rank == 1) {
        unsigned long polls = 0;
        double t0 = now();
        while (!heap[1]) {
            progress();
            if (spin && !(++polls % spin))
                sched_yield();
            else if (!spin)
                polls++;
        }
        double t = now() - t0;
        for (int i = 0; i < 1000; i++) /* answer the stop write's completion */
            progress();
        fprintf(stderr, "server: %lu polls in %.3f s: %.1f ns per poll\n", polls, t,
                1e9 * t / (double)polls);
        char c = 0, d;
        probe_xchg(pipes[me][1], pipes[peer_rank][0], &c, &d, 1, progress);
        close_all(ep, mr, av, dom, fab);
        return 0;
    }

    static const char *names[] = {"fadd-cq", "fadd-cntr", "add-cntr", "add-inject", "get-cq",
                                  "get-fadd"};
    uint64_t one = 1, res = 0, rcount = 0, wcount = 0;
    enum { WINDOW = 50 };
    long nwin = iters / WINDOW > 0 ? iters / WINDOW : 1;
    iters = nwin * WINDOW;
    double *win = malloc(sizeof(double) * (size_t)nwin);
    for (int op = 0; op < 6; op++) {
        long warm = iters / 10;
        double t0 = 0, tw = 0;
        unsigned long polls = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm) {
                t0 = tw = now();
                polls = 0;
            }
            if (i > warm && (i - warm) % WINDOW == 0) {
                double t = now();
                win[(i - warm) / WINDOW - 1] = t - tw;
                tw = t;
            }
            ssize_t r;
            switch (op) {
            case 0:
            case 1:
            case 5:
                while ((r = fi_fetch_atomic(ep, &one, 1, NULL, &res, NULL, peer,
                                            raddr + (op == 5 ? 16 : 0), pkey, FI_UINT64,
                                            op == 5 ? FI_ATOMIC_READ : FI_SUM, NULL)) ==
                       -FI_EAGAIN)
                    progress();
                CK(r);
                rcount++;
                if (op == 1) {
                    cntr_wait(rc, rcount);
                    cq_wait(1); /* its CQ entry, there with the count */
                } else
                    polls += cq_wait(1);
                break;
            case 2:
            case 3:
                if (op == 2)
                    while ((r = fi_atomic(ep, &one, 1, NULL, peer, raddr, pkey, FI_UINT64, FI_SUM,
                                          NULL)) == -FI_EAGAIN)
                        progress();
                else
                    while ((r = fi_inject_atomic(ep, &one, 1, peer, raddr, pkey, FI_UINT64,
                                                 FI_SUM)) == -FI_EAGAIN)
                        progress();
                CK(r);
                wcount++;
                cntr_wait(wc, wcount);
                if (op == 2) /* fi_atomic's CQ entry */
                    cq_wait(1);
                break;
            default:
                while ((r = fi_read(ep, &res, 8, NULL, peer, raddr + 16, pkey, NULL)) ==
                       -FI_EAGAIN)
                    progress();
                CK(r);
                rcount++;
                polls += cq_wait(1);
                break;
            }
        }
        double t = now() - t0;
        win[nwin - 1] = now() - tw;
        qsort(win, (size_t)nwin, sizeof *win, cmp_double);
        printf("%-11s %8.3f us, windows: fastest %.3f, median %.3f", names[op],
               1e6 * t / (double)iters, 1e6 * win[0] / WINDOW, 1e6 * win[nwin / 2] / WINDOW);
        if (polls)
            printf("   (%.1f CQ polls per operation)", (double)polls / (double)iters);
        printf("\n");
    }
    uint64_t stop = 1;
    ssize_t r;
    while ((r = fi_inject_write(ep, &stop, 8, peer, raddr + 8, pkey)) == -FI_EAGAIN)
        progress();
    CK(r);
    char c = 0, d;
    probe_xchg(pipes[me][1], pipes[peer_rank][0], &c, &d, 1, progress);
    close_all(ep, mr, av, dom, fab);
    int st;
    wait(&st);
    return 0;
}

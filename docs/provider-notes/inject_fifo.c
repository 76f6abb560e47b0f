/* SPDX-License-Identifier: BSD-3-Clause */
/* inject_fifo.c -- standalone libfabric probe (not built by CMake): does an
 * injected write or atomic, once counted at its origin, come before every
 * later operation that any third process sends to the same target?
 *
 * Three processes (fork), one RDM endpoint each, names and keys exchanged
 * through a shared anonymous mapping. Per iteration:
 *   T (the target) does not progress for PROBE_HOLD_MS (default 20) ms;
 *   A injects fi_inject_atomic(SUM, +1) and fi_inject_write(i) to T, waits
 *     for its write counter (recording whether it caught up while T was not
 *     progressing), then injects the flag i to B;
 *   B progresses until its flag is i, then fi_reads both words from T and
 *     checks them: the sum must be i and the written word i.
 * If A's counter caught up while T held still and B never saw stale words,
 * the provider queued A's injects at T in one order with everything later,
 * from any sender: a quiet after injects needs no flush read there.
 * Usage: FI_PROVIDER=shm|tcp ./inject_fifo [iterations]
 * Build: cc -O1 -pthread -o inject_fifo inject_fifo.c -lfabric (with probe.h beside it) */
#include "probe.h"

enum { A, B, T, NP };
struct shared {
    char names[NP][256];
    uint64_t keys[NP], bases[NP];
    volatile int arrived, sense;
    volatile int t_holding;
};
static struct shared *sh;
static int me;
static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fid_cntr *wc, *rc;
static fi_addr_t addr[NP];
static int64_t *heap; /* [0] sum, [1] written word, [2] flag, [8..] read results */

static void progress(void)
{
    struct fi_cq_data_entry e[8];
    ssize_t r = fi_cq_read(cq, e, 8);
    if (r == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(cq, &err, 0);
        fprintf(stderr, "[%d] cq error %s\n", me, fi_strerror(err.err));
        exit(5);
    }
}
static void barrier(void)
{
    int s = !sh->sense;
    if (__atomic_add_fetch(&sh->arrived, 1, __ATOMIC_ACQ_REL) == NP) {
        sh->arrived = 0;
        __atomic_store_n(&sh->sense, s, __ATOMIC_RELEASE);
    } else
        while (__atomic_load_n(&sh->sense, __ATOMIC_ACQUIRE) != s)
            progress();
}
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static uint64_t raddr(int pe, int word) { return sh->bases[pe] + 8 * (uint64_t)word; }

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    double hold = getenv("PROBE_HOLD_MS") ? atof(getenv("PROBE_HOLD_MS")) : 20;
    sh = mmap(0, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    me = A;
    if (fork() == 0)
        me = B;
    else if (fork() == 0)
        me = T;
    struct fi_info *hints = fi_allocinfo(), *info;
    hints->caps = FI_RMA | FI_ATOMIC;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->av_type = FI_AV_TABLE;
    if (getenv("PROBE_DC"))
        hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    CK(fi_getinfo(PROBE_API, NULL, NULL, 0, hints, &info));
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av;
    struct fid_mr *mr;
    probe_open(info, &fab, &dom, &av, &cq);
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
    CK(fi_cntr_open(dom, &ca, &wc, NULL));
    CK(fi_cntr_open(dom, &ca, &rc, NULL));
    CK(fi_endpoint(dom, info, &ep, NULL));
    CK(fi_ep_bind(ep, &av->fid, 0));
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CK(fi_ep_bind(ep, &wc->fid, FI_WRITE));
    CK(fi_ep_bind(ep, &rc->fid, FI_READ));
    CK(fi_enable(ep));
    heap = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CK(fi_mr_reg(dom, heap, 4096, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE, 0, me + 1,
                 0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        CK(fi_mr_bind(mr, &ep->fid, 0));
        CK(fi_mr_enable(mr));
    }
    size_t nl = 256;
    CK(fi_getname(&ep->fid, sh->names[me], &nl));
    sh->keys[me] = fi_mr_key(mr);
    sh->bases[me] = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)heap : 0;
    barrier();
    for (int p = 0; p < NP; p++)
        if (fi_av_insert(av, sh->names[p], 1, &addr[p], 0, NULL) != 1)
            exit(4);
    if (me == A)
        printf("provider %s\n", info->fabric_attr->prov_name);
    barrier();

    uint64_t wissued = 0, rissued = 0;
    int early = 0, stale = 0, unheld = 0;
    for (int i = 1; i <= iters; i++) {
        barrier();
        if (me == T) {
            sh->t_holding = 1;
            double t0 = now_ms();
            while (now_ms() - t0 < hold)
                ; /* computing: no progress */
            sh->t_holding = 0;
            if (getenv("PROBE_VERBOSE"))
                printf("  T %d after hold: sum %ld word %ld\n", i, (long)heap[0], (long)heap[1]);
        } else if (me == A) {
            int64_t one = 1, val = i;
            ssize_t r;
            while ((r = fi_inject_atomic(ep, &one, 1, addr[T], raddr(T, 0), sh->keys[T], FI_INT64,
                                         FI_SUM)) == -FI_EAGAIN)
                progress();
            CK(r);
            while ((r = fi_inject_write(ep, &val, 8, addr[T], raddr(T, 1), sh->keys[T])) ==
                   -FI_EAGAIN)
                progress();
            CK(r);
            wissued += 2;
            while (fi_cntr_read(wc) < wissued)
                progress();
            early += sh->t_holding; /* counted while T held still */
            if (getenv("PROBE_FLUSH")) { /* A's own read of T behind its injects */
                while ((r = fi_read(ep, &heap[16], 8, NULL, addr[T], raddr(T, 0), sh->keys[T],
                                    NULL)) == -FI_EAGAIN)
                    progress();
                CK(r);
                rissued++;
                while (fi_cntr_read(rc) < rissued)
                    progress();
                if (getenv("PROBE_VERBOSE"))
                    printf("  A %d: flush read sum %ld\n", i, (long)heap[16]);
            }
            while ((r = fi_inject_write(ep, &val, 8, addr[B], raddr(B, 2), sh->keys[B])) ==
                   -FI_EAGAIN)
                progress();
            CK(r);
            wissued++;
            while (fi_cntr_read(wc) < wissued)
                progress();
        } else {
            while (__atomic_load_n(&heap[2], __ATOMIC_ACQUIRE) != i)
                progress();
            unheld += !sh->t_holding;
            ssize_t r;
            while ((r = fi_read(ep, &heap[8], 16, NULL, addr[T], raddr(T, 0), sh->keys[T], NULL)) ==
                   -FI_EAGAIN)
                progress();
            CK(r);
            rissued++;
            while (fi_cntr_read(rc) < rissued)
                progress();
            if (heap[8] != i || heap[9] != i) {
                stale++;
                if (stale <= 5)
                    printf("  iteration %d: B read sum %ld, word %ld\n", i, (long)heap[8],
                           (long)heap[9]);
            }
        }
    }
    barrier();
    if (me == A)
        printf("A's counter caught up while T held still: %d of %d\n", early, iters);
    if (me == B)
        printf("B saw the flag after T had resumed: %d of %d; stale reads: %d\n", unheld, iters,
               stale);
    fflush(stdout);
    barrier();
    for (int i = 0; i < 100000; i++)
        progress();
    barrier();
    if (me == T)
        printf("T's words at the end: sum %ld, word %ld\n", (long)heap[0], (long)heap[1]);
    if (me == A) {
        while (wait(NULL) > 0)
            ;
    }
    return 0;
}

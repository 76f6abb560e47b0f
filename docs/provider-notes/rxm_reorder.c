/* SPDX-License-Identifier: BSD-3-Clause */
/* rxm_reorder.c -- standalone libfabric probe (not built by CMake) for
 * problem 7 of docs/providers.md: on tcp;ofi_rxm, can a message that a
 * second thread sends while the first thread's earlier sends are unfinished
 * (their completions not yet read) arrive before them?
 *
 * Two processes (fork), one RDM endpoint each (FI_MSG, FI_THREAD_SAFE, one
 * CQ bound FI_SELECTIVE_COMPLETION as weft does, AV table), names exchanged
 * through a shared anonymous mapping. Per round i:
 *   A's main thread sends PROBE_N (default 2) messages of PROBE_SIZE (default
 *     4096) bytes to B with fi_sendmsg(FI_COMPLETION), releases its second
 *     thread, then computes for PROBE_HOLD_US (default 3000) us, and longer
 *     if need be until the thread's send has returned, without calling
 *     libfabric; only then does it read its CQ for all the completions;
 *   A's second thread sends a third message of PROBE_THIRD (default 32)
 *     bytes from the same endpoint: fi_inject if it fits the inject size,
 *     as weft does, else fi_sendmsg(FI_COMPLETION);
 *   B keeps 16 receives posted (8 KiB each, or PROBE_SIZE if larger), reads
 *     its CQ, checks each message's round, index and contents, notes the
 *     position of the third, reposts, and acknowledges the round through
 *     the shared mapping (A starts the next round only then).
 * Reordered: the third message came before one of the first PROBE_N.
 * Modes (second argument):
 *   send      the thread sends at once (default);
 *   progress  the thread first calls fi_cq_read PROBE_POLLS times (default
 *             1), as weft's progress thread polls before it flushes, sends,
 *             then keeps polling until A's main thread stops computing;
 *   wait      the workaround: the thread polls until the completions of
 *             the first PROBE_N sends have been read, then sends.
 * Other knobs: PROBE_B_HOLD_US (B computes that long at the start of each
 * round, so that A's first sends may back up), PROBE_WEFT=1 (weft's hints:
 * caps FI_MSG|FI_RMA|FI_ATOMIC, FI_DELIVERY_COMPLETE op flag, its mr_mode
 * bits, FI_RM_ENABLED; a write and a read counter bound; and, unless set
 * already, FI_OFI_RXM_BUFFER_SIZE=4096, FI_OFI_RXM_MSG_RX_SIZE=128 and
 * FI_TCP_IFACE=lo as weft sets them), PROBE_VERBOSE=1, PROBE_TIMEOUT (s,
 * default 120). B also reports whether the third message took a receive
 * posted before one of the first ones' (matched out of order).
 * Found with it: the third comes first when the first messages are larger
 * than rxm's eager limit, FI_OFI_RXM_BUFFER_SIZE (16384 by default, 4096 as
 * weft sets it), i.e. go by rendezvous (docs/providers.md, problem 7).
 * Usage: FI_PROVIDER=tcp [FI_OFI_RXM_ENABLE_DIRECT_SEND=0] ./rxm_reorder [iterations [mode]]
 *   (200 iterations, mode send by default)
 * Build: cc -O1 -pthread -o rxm_reorder rxm_reorder.c -lfabric (with probe.h beside it) */
static void fail(void);
#define PROBE_FAIL() fail()
#include "probe.h"

enum { A, B, NP };
enum { NMAX = 15, NRECV = 16 };
enum { M_SEND, M_PROGRESS, M_WAIT };
struct hdr {
    uint32_t round, idx;
};
struct shared {
    char names[NP][256];
    int up[NP];
    int acked; /* last round B has received completely */
    int failed;
};
static struct shared *sh;
static int me, mode, nfirst, iters;
static size_t size, third, inject_size;
static double hold_us, b_hold_us, deadline;
static pid_t child;
static struct fid_ep *ep;
static struct fid_cq *cq;
static fi_addr_t peer;
static struct fi_context sctx[NMAX + 1], rctx[NRECV];
static char *sbuf[NMAX + 1], *rbuf[NRECV];
static size_t rlen;
static unsigned long posted[NRECV], nposted; /* B: when each receive was posted */
/* A: the round the thread may send in, the last round it sent in, the
 * round main is computing in (0: not computing), and how many completions
 * of main's sends and of the thread's sends were read. */
static int go, sent, holding, main_done, thr_done;

static void fail(void)
{
    fflush(stdout);
    __atomic_store_n(&sh->failed, 1, __ATOMIC_RELEASE);
    if (me == A && child > 0)
        kill(child, SIGKILL);
    _exit(1);
}
static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static void check_time(const char *what)
{
    if (__atomic_load_n(&sh->failed, __ATOMIC_ACQUIRE)) {
        fprintf(stderr, "[%c] the other process failed (%s)\n", "AB"[me], what);
        fail();
    }
    if (now_us() > deadline) {
        fprintf(stderr, "[%c] timed out: %s\n", "AB"[me], what);
        fail();
    }
}
static char pattern(int round, int idx) { return (char)(round * 31 + idx * 7 + 1); }
static double env_num(const char *name, double dflt)
{
    const char *s = getenv(name);
    return s ? atof(s) : dflt;
}

static void post_recv(int j)
{
    posted[j] = ++nposted;
    struct iovec iov = {rbuf[j], rlen};
    struct fi_msg m = {
        .msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = &rctx[j]};
    ssize_t r;
    while ((r = fi_recvmsg(ep, &m, FI_COMPLETION)) == -FI_EAGAIN)
        check_time("reposting a receive");
    CK(r);
}

/* Read up to 16 completions of this process's CQ; an error entry stops
 * the probe (who: "A" or "B" in the message). */
static ssize_t read_cq(const char *who, struct fi_cq_data_entry e[16])
{
    ssize_t n = fi_cq_read(cq, e, 16);
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(cq, &err, 0);
        fprintf(stderr, "[%s] cq error %s\n", who, fi_strerror(err.err));
        fail();
    }
    return n;
}

/* Read A's CQ once; count send completions by whose send they were. */
static void progress_a(void)
{
    struct fi_cq_data_entry e[16];
    ssize_t n = read_cq("A", e);
    for (ssize_t k = 0; k < n; k++) {
        if (e[k].op_context == &sctx[NMAX])
            __atomic_add_fetch(&thr_done, 1, __ATOMIC_ACQ_REL);
        else
            __atomic_add_fetch(&main_done, 1, __ATOMIC_ACQ_REL);
    }
}

static ssize_t send_buf(int k, size_t len)
{
    struct iovec iov = {sbuf[k], len};
    struct fi_msg m = {.msg_iov = &iov, .iov_count = 1, .addr = peer, .context = &sctx[k]};
    return fi_sendmsg(ep, &m, FI_COMPLETION);
}
static void fill(int k, int round, size_t len, int idx)
{
    memset(sbuf[k], pattern(round, k), len);
    struct hdr h = {(uint32_t)round, (uint32_t)idx};
    memcpy(sbuf[k], &h, sizeof h);
}

/* Thread statistics, read by main after the thread has joined. */
static int t_late, t_after_done, t_eagain;

static void *thread_main(void *arg)
{
    (void)arg;
    int polls = (int)env_num("PROBE_POLLS", 1);
    for (int i = 1; i <= iters; i++) {
        while (__atomic_load_n(&go, __ATOMIC_ACQUIRE) != i) {
            check_time("thread waiting for its round");
            sched_yield();
        }
        if (mode == M_PROGRESS)
            for (int p = 0; p < polls; p++)
                progress_a();
        if (mode == M_WAIT)
            while (__atomic_load_n(&main_done, __ATOMIC_ACQUIRE) < i * nfirst) {
                progress_a();
                check_time("thread waiting for main's completions");
            }
        if (__atomic_load_n(&main_done, __ATOMIC_ACQUIRE) == i * nfirst)
            t_after_done++;
        fill(NMAX, i, third, nfirst);
        ssize_t r;
        for (;;) {
            r = third <= inject_size ? fi_inject(ep, sbuf[NMAX], third, peer)
                                     : send_buf(NMAX, third);
            if (r != -FI_EAGAIN)
                break;
            t_eagain++;
            progress_a();
            check_time("thread sending");
        }
        CK(r);
        if (__atomic_load_n(&holding, __ATOMIC_ACQUIRE) != i)
            t_late++;
        __atomic_store_n(&sent, i, __ATOMIC_RELEASE);
        if (mode != M_SEND)
            while (__atomic_load_n(&holding, __ATOMIC_ACQUIRE) == i) {
                progress_a();
                check_time("thread polling");
            }
    }
    return NULL;
}

static void run_a(void)
{
    pthread_t th;
    int eagain = 0, eagain_later = 0;
    if (pthread_create(&th, NULL, thread_main, NULL))
        fail();
    for (int i = 1; i <= iters; i++) {
        while (__atomic_load_n(&sh->acked, __ATOMIC_ACQUIRE) != i - 1) {
            check_time("A waiting for B's acknowledgement");
            sched_yield();
        }
        for (int k = 0; k < nfirst; k++) {
            fill(k, i, size, k);
            ssize_t r;
            while ((r = send_buf(k, size)) == -FI_EAGAIN) {
                eagain++;
                eagain_later += i > 1;
                progress_a();
                check_time("A sending");
            }
            CK(r);
        }
        __atomic_store_n(&holding, i, __ATOMIC_RELEASE);
        __atomic_store_n(&go, i, __ATOMIC_RELEASE);
        double t0 = now_us();
        while (now_us() - t0 < hold_us || __atomic_load_n(&sent, __ATOMIC_ACQUIRE) != i)
            if (now_us() > deadline)
                check_time("A computing"); /* computing: no libfabric calls */
        __atomic_store_n(&holding, 0, __ATOMIC_RELEASE);
        int thr_want = third <= inject_size ? 0 : i;
        while (__atomic_load_n(&main_done, __ATOMIC_ACQUIRE) < i * nfirst ||
               __atomic_load_n(&thr_done, __ATOMIC_ACQUIRE) < thr_want) {
            progress_a();
            check_time("A reading its completions");
        }
    }
    pthread_join(th, NULL);
    printf("A: %d rounds; thread sent after main stopped computing: %d; with main's completions "
           "already read: %d; -FI_EAGAIN from main's sends %d (after round 1: %d), from the "
           "thread's %d\n",
           iters, t_late, t_after_done, eagain, eagain_later, t_eagain);
    fflush(stdout);
}

static void run_b(void)
{
    int reordered = 0, before_all = 0, first_swapped = 0, bad = 0, mismatched = 0;
    for (int j = 0; j < NRECV; j++)
        post_recv(j);
    __atomic_store_n(&sh->up[B], 2, __ATOMIC_RELEASE); /* receives posted */
    for (int i = 1; i <= iters; i++) {
        int pos[NMAX + 1], got = 0;
        unsigned long slot[NMAX + 1]; /* which posted receive each message took */
        for (int k = 0; k <= nfirst; k++)
            pos[k] = -1;
        if (b_hold_us > 0) {
            double t0 = now_us();
            while (now_us() - t0 < b_hold_us)
                ;
        }
        while (got <= nfirst) {
            struct fi_cq_data_entry e[16];
            ssize_t n = read_cq("B", e);
            if (n <= 0) {
                check_time("B receiving");
                sched_yield();
                continue;
            }
            for (ssize_t k = 0; k < n; k++) {
                int j = (int)((struct fi_context *)e[k].op_context - rctx);
                if (j < 0 || j >= NRECV || !(e[k].flags & FI_RECV)) {
                    fprintf(stderr, "[B] unexpected completion %p flags %#llx\n",
                            e[k].op_context, (unsigned long long)e[k].flags);
                    fail();
                }
                struct hdr h;
                memcpy(&h, rbuf[j], sizeof h);
                size_t want = h.idx == (uint32_t)nfirst ? third : size;
                int ok = h.round == (uint32_t)i && h.idx <= (uint32_t)nfirst && pos[h.idx] < 0 &&
                         e[k].len == want;
                for (size_t b = sizeof h; ok && b < want; b++)
                    ok = rbuf[j][b] == pattern(i, h.idx == (uint32_t)nfirst ? NMAX : (int)h.idx);
                if (!ok) {
                    if (++bad <= 5)
                        printf("  round %d: bad message (round %u, index %u, %zu bytes)\n", i,
                               h.round, h.idx, (size_t)e[k].len);
                    if (h.round != (uint32_t)i || h.idx > (uint32_t)nfirst || pos[h.idx] >= 0)
                        fail();
                }
                pos[h.idx] = got++;
                slot[h.idx] = posted[j];
                post_recv(j);
            }
        }
        int late_first = 0, late_match = 0;
        for (int k = 0; k < nfirst; k++) {
            late_first += pos[k] > pos[nfirst];
            late_match += slot[k] > slot[nfirst];
            if (k && pos[k] < pos[k - 1])
                first_swapped++;
        }
        mismatched += late_match > 0;
        if (late_first) {
            reordered++;
            before_all += late_first == nfirst;
            if (reordered <= 5 || getenv("PROBE_VERBOSE"))
                printf("  round %d: third message at position %d of %d\n", i, pos[nfirst] + 1,
                       nfirst + 1);
        }
        __atomic_store_n(&sh->acked, i, __ATOMIC_RELEASE);
    }
    printf("B: third message before one of the first %d: %d of %d rounds (before all of them: "
           "%d); first ones out of order: %d; bad messages: %d; third matched to a receive "
           "posted before one of the first ones': %d\n",
           nfirst, reordered, iters, before_all, first_swapped, bad, mismatched);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    iters = argc > 1 ? atoi(argv[1]) : 200;
    const char *ms = argc > 2 ? argv[2] : "send";
    mode = !strcmp(ms, "progress") ? M_PROGRESS : !strcmp(ms, "wait") ? M_WAIT : M_SEND;
    if (strcmp(ms, "send") && mode == M_SEND) {
        fprintf(stderr, "usage: %s [iterations [send|progress|wait]]\n", argv[0]);
        return 2;
    }
    nfirst = (int)env_num("PROBE_N", 2);
    size = (size_t)env_num("PROBE_SIZE", 4096);
    third = (size_t)env_num("PROBE_THIRD", 32);
    hold_us = env_num("PROBE_HOLD_US", 3000);
    b_hold_us = env_num("PROBE_B_HOLD_US", 0);
    int timeout = (int)env_num("PROBE_TIMEOUT", 120);
    if (nfirst < 1 || nfirst > NMAX || size < sizeof(struct hdr) || third < sizeof(struct hdr)) {
        fprintf(stderr, "PROBE_N must be 1..%d, sizes at least %zu\n", NMAX, sizeof(struct hdr));
        return 2;
    }
    deadline = now_us() + timeout * 1e6;
    sh = mmap(0, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return 1;
    me = A;
    child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        me = B;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1)
            _exit(1);
    }
    alarm((unsigned)timeout + 10); /* safety net; the loops time out first */

    struct fi_info *hints = fi_allocinfo(), *info;
    hints->caps = FI_MSG;
    hints->ep_attr->type = FI_EP_RDM;
    hints->mode = 0;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    int weft = getenv("PROBE_WEFT") && atoi(getenv("PROBE_WEFT"));
    if (weft) { /* as src/transport/ofi/ofi_select.c sets them; the user's values win */
        setenv("FI_OFI_RXM_BUFFER_SIZE", "4096", 0);
        setenv("FI_OFI_RXM_MSG_RX_SIZE", "128", 0);
        setenv("FI_TCP_IFACE", "lo", 0);
        hints->caps |= FI_RMA | FI_ATOMIC;
        hints->domain_attr->mr_mode =
            FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
        hints->domain_attr->resource_mgmt = FI_RM_ENABLED;
        hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    }
    CK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
    if (info->domain_attr->mr_mode & FI_MR_LOCAL) {
        fprintf(stderr, "provider %s needs FI_MR_LOCAL; not handled\n",
                info->fabric_attr->prov_name);
        fail();
    }
    inject_size = info->tx_attr->inject_size;
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av;
    probe_open(info, &fab, &dom, &av, &cq);
    CK(fi_endpoint(dom, info, &ep, NULL));
    CK(fi_ep_bind(ep, &av->fid, 0));
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    struct fid_cntr *cntr[2] = {NULL, NULL};
    if (weft) { /* weft's write and read counters */
        struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
        CK(fi_cntr_open(dom, &ca, &cntr[0], NULL));
        CK(fi_cntr_open(dom, &ca, &cntr[1], NULL));
        CK(fi_ep_bind(ep, &cntr[0]->fid, FI_WRITE));
        CK(fi_ep_bind(ep, &cntr[1]->fid, FI_READ));
    }
    CK(fi_enable(ep));
    rlen = size > 8192 ? size : 8192;
    for (int k = 0; k <= NMAX; k++)
        if (!(sbuf[k] = malloc(size > third ? size : third)))
            fail();
    for (int j = 0; j < NRECV; j++)
        if (!(rbuf[j] = malloc(rlen)))
            fail();
    size_t nl = sizeof sh->names[me];
    CK(fi_getname(&ep->fid, sh->names[me], &nl));
    __atomic_store_n(&sh->up[me], 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&sh->up[!me], __ATOMIC_ACQUIRE))
        check_time("exchanging names");
    if (fi_av_insert(av, sh->names[!me], 1, &peer, 0, NULL) != 1) {
        fprintf(stderr, "[%c] fi_av_insert failed\n", "AB"[me]);
        fail();
    }
    if (me == A) {
        const char *ds = getenv("FI_OFI_RXM_ENABLE_DIRECT_SEND");
        const char *bs = getenv("FI_OFI_RXM_BUFFER_SIZE");
        printf("provider %s, fabric %s; %d x %zu bytes + %zu bytes (%s) per round, mode %s, "
               "hold %.0f us, B hold %.0f us, FI_OFI_RXM_ENABLE_DIRECT_SEND=%s, "
               "FI_OFI_RXM_BUFFER_SIZE=%s%s\n",
               info->fabric_attr->prov_name, info->fabric_attr->name, nfirst, size, third,
               third <= inject_size ? "fi_inject" : "fi_sendmsg", ms, hold_us, b_hold_us,
               ds ? ds : "(unset)", bs ? bs : "(unset: 16384)",
               weft ? ", weft's hints, counters and rxm settings" : "");
        fflush(stdout);
        while (__atomic_load_n(&sh->up[B], __ATOMIC_ACQUIRE) != 2)
            check_time("waiting for B's receives");
        run_a();
        int st;
        if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "[A] B did not finish cleanly\n");
            return 1;
        }
    } else {
        run_b();
        /* Let A read its last completions before B's endpoint goes away. */
        struct fi_cq_data_entry e[16];
        double t0 = now_us();
        while (now_us() - t0 < 100000)
            (void)fi_cq_read(cq, e, 16);
    }
    fi_close(&ep->fid);
    for (int c = 0; c < 2; c++)
        if (cntr[c])
            fi_close(&cntr[c]->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&dom->fid);
    fi_close(&fab->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* providers_caps.c -- standalone libfabric probe (not built by CMake) for
 * what each RDM provider offers weft, measured rather than read from
 * fi_info alone: for every provider named on the command line (default:
 * shm, tcp, sockets, net, udp) a parent forks two processes with one RDM
 * endpoint each (AV table, CQ with selective completion, FI_WRITE and
 * FI_READ counters, FI_DELIVERY_COMPLETE as a default tx op flag where
 * granted, as weft opens them), names exchanged through pipes,
 * and prints one markdown table, a column per provider. Measured:
 *  - the fi_info weft reads (mr_mode, inject size, progress, tx msg_order
 *    without an order hint, max_order_waw_size), and whether fi_getinfo
 *    grants FI_RMA_EVENT when asked for it;
 *  - whether the FI_WRITE counter counts an fi_inject_write;
 *  - remote CQ data: an 8-byte fi_writedata whose data the target's CQ
 *    reports with FI_REMOTE_CQ_DATA;
 *  - FI_MULTI_RECV: fi_setopt(FI_OPT_MIN_MULTI_RECV, 3800) after fi_enable
 *    (shm 1.17 dereferences its receive context in setopt, which exists only
 *    once enabled: set before, it crashes; PROBE_SETOPT_FIRST=1 sets it
 *    before), one 4 KiB buffer, three 100-byte
 *    sends: their offsets, and after which the buffer was released
 *    (FI_MULTI_RECV flag; 3796 bytes left after the third, under the
 *    minimum, so the third should release it);
 *  - native atomics, executed and checked (target word 12, operand 10):
 *    fi_atomic for SUM BAND BOR BXOR WRITE, then fi_fetch_atomic for the
 *    same and READ, then fi_compare_atomic CSWAP, on int32 int64 uint32
 *    uint64 (float and double: SUM WRITE READ CSWAP, the ones OpenSHMEM
 *    defines), and last one fi_inject_atomic; a wrong result, a counter
 *    error, a 2 s timeout or a crash stops the atomics there;
 *  - a fetch-add from a second endpoint opened afterwards, as its first
 *    operation (udp;ofi_rxd: rxd_atomic.c).
 * A process that dies is reported with the step it was in.
 * Usage: ./providers_caps [provider ...]   (FI_UDP_IFACE=lo for udp on one host)
 * Build: cc -O1 -pthread -o providers_caps providers_caps.c -lfabric (with probe.h beside it) */
#define PROBE_FAIL() exit(9)
#include "probe.h"
#include <stdarg.h>

enum row { R_PROV, R_MR, R_INJECT, R_PROGRESS, R_ORDER, R_WAW, R_RMA_EVENT, R_CNTR, R_CQDATA,
           R_MULTI, R_AMO_INT, R_AMO_FLT, R_AMO_FAIL, R_INJ_AMO, R_FRESH, R_STEP, R_ROWS };
static const char *row_name[R_ROWS] = {
    "fabric / domain", "mr_mode", "inject_size", "data / control progress",
    "tx msg_order (no hint)", "max_order_waw_size", "FI_RMA_EVENT granted",
    "FI_WRITE counter counts fi_inject_write", "remote CQ data (8 B fi_writedata)",
    "FI_MULTI_RECV: 3 x 100 B into 4 KiB, FI_OPT_MIN_MULTI_RECV 3800",
    "atomics that work, int32/64 uint32/64", "atomics that work, float/double",
    "first atomic that failed", "fi_inject_atomic (int64 SUM)",
    "fi_fetch_atomic as a new endpoint's first operation", "run"};
#define CELL 200
struct result {
    char cell[R_ROWS][CELL];
};
static struct result *res;
static int rank, p2c[2][2];
static struct fi_info *info;
static struct fid_fabric *fab;
static struct fid_domain *dom;
static struct fid_ep *ep;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_cntr *wc, *rc;
static struct fid_mr *mr;
static uint64_t heap[512];
static uint64_t wdone, rdone; /* operations issued on each counter */
static uint64_t rbase, rkey;   /* the peer's heap: address (or 0 for offsets) and key */

static void set(enum row r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set(enum row r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->cell[r], CELL, fmt, ap);
    va_end(ap);
}
static void add(enum row r, const char *s)
{
    size_t n = strlen(res->cell[r]);
    snprintf(res->cell[r] + n, CELL - n, "%s%s", n ? " " : "", s);
}

static struct fi_cq_data_entry last; /* the last entry the CQ gave */
static int got_entry;
static void progress(void)
{
    struct fi_cq_data_entry e;
    ssize_t r = fi_cq_read(cq, &e, 1);
    if (r == 1) {
        last = e;
        got_entry = 1;
    } else if (r == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(cq, &err, 0);
    }
}
static void xchg(void *mine, void *theirs, size_t len)
{
    probe_xchg(p2c[rank][1], p2c[1 - rank][0], mine, theirs, len, ep ? progress : NULL);
}
static int bar_val(int v)
{
    int theirs;
    xchg(&v, &theirs, sizeof v);
    return theirs;
}
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
/* Wait for counter c to reach n: 0 done, -1 counter error, -2 timeout. */
static int wait_cntr(struct fid_cntr *c, uint64_t n)
{
    double t0 = now();
    while (fi_cntr_read(c) < n) {
        if (fi_cntr_readerr(c))
            return -1;
        if (now() - t0 > 2)
            return -2;
        progress();
    }
    return 0;
}
/* Issue call until it stops saying EAGAIN (2 s at most): its status. */
#define ISSUE(rcvar, call)                                                                         \
    do {                                                                                           \
        double _t0 = now();                                                                        \
        while ((rcvar = (call)) == -FI_EAGAIN && now() - _t0 < 2)                                  \
            progress();                                                                            \
    } while (0)

static int want_dc = 1; /* FI_DELIVERY_COMPLETE as a default tx op flag, as weft asks */
static struct fi_info *get_info(uint64_t extra_caps)
{
    struct fi_info *hints = fi_allocinfo(), *got = NULL;
    hints->caps = FI_RMA | FI_MSG | FI_ATOMIC | extra_caps;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->domain_attr->cq_data_size = 8;
    hints->mode = FI_CONTEXT;
    hints->tx_attr->op_flags = want_dc ? FI_DELIVERY_COMPLETE : 0;
    if (fi_getinfo(PROBE_API, NULL, NULL, 0, hints, &got))
        got = NULL;
    fi_freeinfo(hints);
    return got;
}

static const char *strip(const char *s, char *out, size_t n)
{
    size_t o = 0;
    for (const char *p = s; *p && o + 1 < n;) {
        if (!strncmp(p, "FI_ORDER_", 9)) p += 9;
        else if (!strncmp(p, "FI_MR_", 6)) p += 6;
        else if (*p == ',') p++;
        else out[o++] = *p++;
    }
    out[o] = 0;
    return out;
}

static enum fi_datatype types[] = {FI_INT32, FI_INT64, FI_UINT32, FI_UINT64, FI_FLOAT, FI_DOUBLE};
static const char *type_name[] = {"int32", "int64", "uint32", "uint64", "float", "double"};
static size_t type_size[] = {4, 8, 4, 8, 4, 8};
static void put_val(void *p, int t, double v)
{
    switch (t) {
    case 0: *(int32_t *)p = (int32_t)v; break;
    case 1: *(int64_t *)p = (int64_t)v; break;
    case 2: *(uint32_t *)p = (uint32_t)v; break;
    case 3: *(uint64_t *)p = (uint64_t)v; break;
    case 4: *(float *)p = (float)v; break;
    default: *(double *)p = v;
    }
}
static double get_val(const void *p, int t)
{
    switch (t) {
    case 0: return *(const int32_t *)p;
    case 1: return (double)*(const int64_t *)p;
    case 2: return *(const uint32_t *)p;
    case 3: return (double)*(const uint64_t *)p;
    case 4: return *(const float *)p;
    default: return *(const double *)p;
    }
}

/* One atomic on the peer's word (start 12, operand 10), checked by a read
 * back: 0 ok, else it records why in the step cell and returns -1. */
static int one_atomic(int t, enum fi_op op, int form, const char *opname, int *ok_mask, int bit)
{
    static const char *form_name[] = {"fi_atomic", "fi_fetch_atomic", "fi_compare_atomic"};
    uint64_t key = rkey, raddr = rbase;
    uint64_t start = 0, opnd = 0, cmp = 0, fetched = 0, back = 0;
    double expect;
    ssize_t r;
    snprintf(res->cell[R_AMO_FAIL], CELL, "%s %s %s", form_name[form], opname, type_name[t]);
    put_val(&start, t, 12);
    put_val(&opnd, t, 10);
    put_val(&cmp, t, 12);
    switch (op) {
    case FI_SUM: expect = 22; break;
    case FI_BAND: expect = 8; break;
    case FI_BOR: expect = 14; break;
    case FI_BXOR: expect = 6; break;
    case FI_ATOMIC_READ: expect = 12; break;
    default: expect = 10; /* WRITE, CSWAP with compare 12 */
    }
    ISSUE(r, fi_write(ep, &start, type_size[t], NULL, 1, raddr + 64, key, NULL));
    if (r || wait_cntr(wc, ++wdone))
        return add(R_AMO_FAIL, "(setting the word failed)"), -1;
    if (form == 0)
        ISSUE(r, fi_atomic(ep, &opnd, 1, NULL, 1, raddr + 64, key, types[t], op, NULL));
    else if (form == 1)
        ISSUE(r, fi_fetch_atomic(ep, &opnd, 1, NULL, &fetched, NULL, 1, raddr + 64, key, types[t],
                                 op, NULL));
    else
        ISSUE(r, fi_compare_atomic(ep, &opnd, 1, NULL, &cmp, NULL, &fetched, NULL, 1, raddr + 64,
                                   key, types[t], op, NULL));
    if (r) {
        char s[80];
        snprintf(s, sizeof s, ": returned %s", fi_strerror((int)-r));
        return add(R_AMO_FAIL, s), -1;
    }
    int w = form ? wait_cntr(rc, ++rdone) : wait_cntr(wc, ++wdone);
    if (w)
        return add(R_AMO_FAIL, w == -1 ? ": counter error" : ": not counted in 2 s"), -1;
    ISSUE(r, fi_read(ep, &back, type_size[t], NULL, 1, raddr + 64, key, NULL));
    if (r || wait_cntr(rc, ++rdone))
        return add(R_AMO_FAIL, "(read back failed)"), -1;
    if (get_val(&back, t) != expect || (form && get_val(&fetched, t) != 12)) {
        char s[120];
        snprintf(s, sizeof s, ": wrong, word %g (want %g), fetched %g", get_val(&back, t), expect,
                 get_val(&fetched, t));
        return add(R_AMO_FAIL, s), -1;
    }
    *ok_mask |= bit;
    res->cell[R_AMO_FAIL][0] = 0;
    return 0;
}

static void atomics(void)
{
    static const enum fi_op ops[] = {FI_SUM, FI_BAND, FI_BOR, FI_BXOR, FI_ATOMIC_WRITE,
                                     FI_ATOMIC_READ, FI_CSWAP};
    static const char *op_name[] = {"SUM", "BAND", "BOR", "BXOR", "WRITE", "READ", "CSWAP"};
    int ok[6][3] = {{0}}; /* per type and form: bit per op */
    int failed = 0;
    for (int form = 0; form < 3 && !failed; form++)
        for (int t = 0; t < 6 && !failed; t++)
            for (int o = 0; o < 7 && !failed; o++) {
                int is_float = t >= 4;
                if ((form == 0 && o >= 5) || (form == 1 && o == 6) || (form == 2 && o != 6))
                    continue;
                if (is_float && o >= 1 && o <= 3)
                    continue;
                failed = one_atomic(t, ops[o], form, op_name[o], &ok[t][form], 1 << o) != 0;
            }
    /* Summarise: ops that worked in every type of the group, by form. */
    for (int g = 0; g < 2; g++) {
        enum row r = g ? R_AMO_FLT : R_AMO_INT;
        static const char *form_tag[] = {"", "fetch ", ""};
        for (int form = 0; form < 3; form++) {
            int all = 0x7f;
            for (int t = g * 4; t < (g ? 6 : 4); t++)
                all &= ok[t][form];
            for (int o = 0; o < 7; o++)
                if (all & (1 << o)) {
                    char s[32];
                    snprintf(s, sizeof s, "%s%s", form_tag[form], op_name[o]);
                    add(r, s);
                }
        }
        if (!res->cell[r][0])
            add(r, "none");
    }
    if (failed) {
        set(R_INJ_AMO, "not run");
        return;
    }
    set(R_AMO_FAIL, "none");
    uint64_t one = 1;
    ssize_t r;
    set(R_STEP, "during fi_inject_atomic");
    ISSUE(r, fi_inject_atomic(ep, &one, 1, 1, rbase + 64, rkey, FI_INT64, FI_SUM));
    if (r)
        set(R_INJ_AMO, "returned %s for 2 s", fi_strerror((int)-r));
    else
        set(R_INJ_AMO, wait_cntr(wc, ++wdone) ? "not counted in 2 s" : "counted on FI_WRITE");
}

/* A second endpoint whose first operation is a fetch-add to rank 1. */
static void fresh_fetch(void)
{
    struct fid_ep *ep2;
    struct fid_cntr *wc2, *rc2;
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        set(R_FRESH, "not run (FI_MR_ENDPOINT)");
        return;
    }
    CK(fi_cntr_open(dom, &ca, &wc2, NULL));
    CK(fi_cntr_open(dom, &ca, &rc2, NULL));
    CK(fi_endpoint(dom, info, &ep2, NULL));
    CK(fi_ep_bind(ep2, &av->fid, 0));
    CK(fi_ep_bind(ep2, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CK(fi_ep_bind(ep2, &wc2->fid, FI_WRITE));
    CK(fi_ep_bind(ep2, &rc2->fid, FI_READ));
    CK(fi_enable(ep2));
    int64_t one = 1, old = -1;
    ssize_t r;
    ISSUE(r, fi_fetch_atomic(ep2, &one, 1, NULL, &old, NULL, 1, rbase + 128, rkey, FI_INT64,
                             FI_SUM, NULL));
    if (r) {
        set(R_FRESH, "returned %s", fi_strerror((int)-r));
        return;
    }
    int w = wait_cntr(rc2, 1);
    set(R_FRESH, "%s, fetched %lld", w == 0 ? "counted" : w == -1 ? "counter error" : "not counted in 2 s",
        (long long)old);
    /* Let the target act on it before the result is final. */
    double t0 = now();
    while (now() - t0 < 0.5)
        progress();
    fi_close(&ep2->fid);
}

static int run(void)
{
    info = get_info(0);
    if (!info) {
        want_dc = 0;
        info = get_info(0);
    }
    if (!info) {
        if (rank == 0)
            set(R_PROV, "no RDM endpoint with FI_RMA FI_MSG FI_ATOMIC");
        return 0;
    }
    char s[CELL], t[CELL];
    if (rank == 0) {
        set(R_PROV, "%s / %s%s", info->fabric_attr->name, info->domain_attr->name,
            want_dc ? "" : " (FI_DELIVERY_COMPLETE refused)");
        set(R_MR, "%s", info->domain_attr->mr_mode
                            ? strip(fi_tostr(&info->domain_attr->mr_mode, FI_TYPE_MR_MODE), s, CELL)
                            : "none");
        set(R_INJECT, "%zu", info->tx_attr->inject_size);
        set(R_PROGRESS, "%s / %s",
            info->domain_attr->data_progress == FI_PROGRESS_AUTO ? "auto" : "manual",
            info->domain_attr->control_progress == FI_PROGRESS_AUTO ? "auto" : "manual");
        set(R_ORDER, "%s", strip(fi_tostr(&info->tx_attr->msg_order, FI_TYPE_MSG_ORDER), t, CELL));
        if (info->ep_attr->max_order_waw_size >= ((size_t)1 << 62))
            set(R_WAW, "unlimited");
        else
            set(R_WAW, "%zu", info->ep_attr->max_order_waw_size);
        struct fi_info *ev = get_info(FI_RMA_EVENT);
        set(R_RMA_EVENT, "%s", ev && (ev->caps & FI_RMA_EVENT) ? "yes" : "no");
        if (ev)
            fi_freeinfo(ev);
        set(R_STEP, "during set-up");
    }
    probe_open(info, &fab, &dom, &av, &cq);
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
    CK(fi_cntr_open(dom, &ca, &wc, NULL));
    CK(fi_cntr_open(dom, &ca, &rc, NULL));
    CK(fi_endpoint(dom, info, &ep, NULL));
    CK(fi_ep_bind(ep, &av->fid, 0));
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CK(fi_ep_bind(ep, &wc->fid, FI_WRITE));
    CK(fi_ep_bind(ep, &rc->fid, FI_READ));
    /* PROBE_SETOPT_FIRST=1: FI_OPT_MIN_MULTI_RECV before fi_enable, where the
     * man page puts it (crashes shm 1.17). */
    size_t min = 3800;
    int setopt_first = getenv("PROBE_SETOPT_FIRST") != NULL, mrc = -FI_ENOSYS;
    if (setopt_first && (info->caps & FI_MULTI_RECV))
        mrc = fi_setopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min);
    CK(fi_enable(ep));
    if (!setopt_first && (info->caps & FI_MULTI_RECV))
        mrc = fi_setopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min);
    CK(fi_mr_reg(dom, heap, sizeof heap, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        CK(fi_mr_bind(mr, &ep->fid, 0));
        CK(fi_mr_enable(mr));
    }
    uint64_t mine[2] = {(uint64_t)(uintptr_t)heap, fi_mr_key(mr)}, theirs[2];
    xchg(mine, theirs, sizeof mine);
    rbase = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? theirs[0] : 0;
    rkey = theirs[1];
    char name[256] = {0}, pname[256] = {0};
    size_t nl = sizeof name;
    CK(fi_getname(&ep->fid, name, &nl));
    xchg(name, pname, sizeof name);
    for (int r = 0; r < 2; r++) {
        fi_addr_t a;
        if (fi_av_insert(av, r == rank ? name : pname, 1, &a, 0, NULL) != 1 || a != (fi_addr_t)r)
            return 4;
    }
    /* Multi-receive: rank 1 posts one 4 KiB buffer, rank 0 sends 3 x 100 B. */
    static char mbuf[4096];
    if (rank == 1 && mrc == 0) {
        struct iovec iov = {mbuf, sizeof mbuf};
        struct fi_msg m = {.msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = mbuf};
        ssize_t r;
        ISSUE(r, fi_recvmsg(ep, &m, FI_MULTI_RECV | FI_COMPLETION));
    }
    bar_val(0);
    ssize_t r;
    if (rank == 0) {
        set(R_STEP, "during counters and remote CQ data");
        uint64_t v = 7;
        ISSUE(r, fi_inject_write(ep, &v, 8, 1, rbase, rkey));
        set(R_CNTR, "%s", r ? "fi_inject_write failed" : wait_cntr(wc, ++wdone) ? "no" : "yes");
        ISSUE(r, fi_writedata(ep, &v, 8, NULL, 0xfeed, 1, rbase + 8, rkey, NULL));
        if (!r)
            wait_cntr(wc, ++wdone);
        if (mrc == 0) {
            char msg[100] = {0};
            for (int i = 0; i < 3; i++)
                ISSUE(r, fi_send(ep, msg, sizeof msg, NULL, 1, NULL));
        }
    } else {
        /* Remote CQ data, then the three messages, progressing for 2 s. */
        char offs[CELL] = "";
        int cqdata = 0, released = 0, nrecv = 0;
        double t0 = now();
        while (now() - t0 < 2) {
            got_entry = 0;
            progress();
            if (!got_entry)
                continue;
            if ((last.flags & FI_REMOTE_CQ_DATA) && last.data == 0xfeed)
                cqdata = 1;
            if (getenv("PROBE_VERBOSE"))
                fprintf(stderr, "target CQ entry: flags %s data %#llx len %zu\n",
                        fi_tostr(&last.flags, FI_TYPE_CQ_EVENT_FLAGS), (unsigned long long)last.data,
                        last.len);
            if (last.flags & FI_RECV) {
                nrecv++;
                size_t n = strlen(offs);
                snprintf(offs + n, sizeof offs - n, "%s%ld", n ? ", " : "offsets ",
                         (long)((char *)last.buf - mbuf));
            }
            if ((last.flags & FI_MULTI_RECV) && !released)
                released = nrecv;
        }
        if (info->domain_attr->cq_data_size)
            set(R_CQDATA, "%s (cq_data_size %zu)", cqdata ? "yes" : "no",
                info->domain_attr->cq_data_size);
        else
            set(R_CQDATA, "no (cq_data_size 0)");
        if (mrc)
            set(R_MULTI, "%s", mrc == -FI_ENOSYS ? "no FI_MULTI_RECV" : fi_strerror(-mrc));
        else if (released)
            set(R_MULTI, "%s; released after message %d", offs[0] ? offs : "nothing received",
                released);
        else
            set(R_MULTI, "%s; not released", offs[0] ? offs : "nothing received");
    }
    bar_val(0);
    if (rank == 0) {
        set(R_STEP, "during the atomics");
        atomics();
        set(R_STEP, "during the new endpoint's fetch-add");
        fresh_fetch();
    }
    /* Rank 1 serves until rank 0 is done. */
    bar_val(0);
    if (rank == 0)
        set(R_STEP, "to the end");
    fi_close(&ep->fid); /* shm removes its region in /dev/shm here */
    return 0;
}

static void measure(const char *prov, struct result *out)
{
    memset(out, 0, sizeof *out);
    res = out;
    setenv("FI_PROVIDER", prov, 1);
    if (pipe(p2c[0]) || pipe(p2c[1]))
        exit(1);
    pid_t pid[2];
    for (int r = 0; r < 2; r++) {
        pid[r] = fork();
        if (pid[r] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            alarm(60);
            rank = r;
            exit(run());
        }
    }
    for (int r = 0; r < 2; r++) {
        int st;
        waitpid(pid[r], &st, 0);
        if (WIFSIGNALED(st) || WEXITSTATUS(st)) {
            char s[CELL];
            if (WIFSIGNALED(st))
                snprintf(s, sizeof s, "; process %d (%s) killed by %s", r,
                         r ? "target" : "initiator", strsignal(WTERMSIG(st)));
            else
                snprintf(s, sizeof s, "; process %d (%s) exit status %d", r,
                         r ? "target" : "initiator", WEXITSTATUS(st));
            add(R_STEP, s);
            kill(pid[1 - r], SIGKILL);
        }
    }
    for (int i = 0; i < 2; i++) {
        close(p2c[i][0]);
        close(p2c[i][1]);
    }
}

int main(int argc, char **argv)
{
    static const char *dflt[] = {"shm", "tcp", "sockets", "net", "udp"};
    int n = argc > 1 ? argc - 1 : 5;
    const char **provs = argc > 1 ? (const char **)argv + 1 : dflt;
    struct result *all = mmap(NULL, sizeof *all * (size_t)n, PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (all == MAP_FAILED)
        return 1;
    for (int p = 0; p < n; p++) {
        measure(provs[p], &all[p]);
        fprintf(stderr, "%s: %s\n", provs[p], all[p].cell[R_STEP]);
    }
    printf("| `FI_PROVIDER` |");
    for (int p = 0; p < n; p++)
        printf(" %s |", provs[p]);
    printf("\n|---|");
    for (int p = 0; p < n; p++)
        printf("---|");
    printf("\n");
    for (int r = 0; r < R_ROWS; r++) {
        printf("| %s |", row_name[r]);
        for (int p = 0; p < n; p++)
            printf(" %s |", all[p].cell[r][0] ? all[p].cell[r] : "-");
        printf("\n");
    }
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* remote_completion.c -- standalone libfabric probe used to learn what each
 * provider gives weft (not built by CMake). Two processes (fork), names
 * exchanged through pipes, one RDM endpoint each, counters for FI_WRITE and
 * FI_READ. It prints the fi_info weft cares about and then checks:
 *  1. whether fi_inject_write is counted on the FI_WRITE counter;
 *  2. whether data written by fi_write (1 MiB) + fi_inject_write (8 B) is
 *     visible at a target that does NOT progress once the write counter says
 *     complete ("counter only"), and after an extra fi_read ("flush read");
 *  3. the fi_query_atomic-style table (fi_atomicvalid & co.) and which
 *     counter native atomics bump.
 * Usage: FI_PROVIDER=shm|tcp|sockets ./remote_completion [tx_op_flags] [atomic 0|1]
 *   tx_op_flags 0x10000000 = FI_DELIVERY_COMPLETE.
 *   INJDC=1: the 8-byte write as fi_writemsg(FI_INJECT | FI_DELIVERY_COMPLETE);
 *   INJATOMIC=1: as fi_inject_atomic(FI_SUM) instead; NOBIG=1: no 1 MiB write
 *   (the counter then lags the expected count by one).
 *   PROBE_NO_TARGET_PROGRESS=1: the target never progresses, even in phase 1
 *   (shm then returns -FI_EAGAIN forever from the first fi_inject_write: the
 *   manual-progress hang; the program reports it after 5 s).
 * Build: cc -O1 -pthread -o remote_completion remote_completion.c -lfabric (with probe.h beside it) */
#include "probe.h"

static int rank;
static struct fi_info *info;
static struct fid_fabric *fab; static struct fid_domain *dom; static struct fid_ep *ep;
static struct fid_av *av; static struct fid_cq *cq; static struct fid_cntr *wc, *rc;
static struct fid_mr *mr;
static char *heap; static size_t HSZ = 16 << 20;
static int p2c[2][2]; /* pipes */

static void xchg(void *mine, void *theirs, size_t len) {
    int peer = 1 - rank;
    if (write(p2c[rank][1], mine, len) != (ssize_t)len) exit(2);
    size_t g = 0; while (g < len) { ssize_t r = read(p2c[peer][0], (char*)theirs + g, len - g); if (r <= 0) exit(3); g += r; }
}
static void prog(void);
static void xchgp(void *mine, void *theirs, size_t len) {
    int peer = 1 - rank;
    if (write(p2c[rank][1], mine, len) != (ssize_t)len) exit(2);
    size_t g = 0; while (g < len) { struct pollfd pf = { p2c[peer][0], POLLIN, 0 }; if (poll(&pf, 1, 0) <= 0) { prog(); continue; }
      ssize_t r = read(p2c[peer][0], (char*)theirs + g, len - g); if (r <= 0) exit(3); g += r; }
}
static void bar(void) { char a = 0, b; if (getenv("PROBE_NO_TARGET_PROGRESS")) xchg(&a, &b, 1); else xchgp(&a, &b, 1); }
static void bar_noprog(void) { char a = 0, b; xchg(&a, &b, 1); }
static void prog(void) { struct fi_cq_data_entry e[8]; ssize_t r = fi_cq_read(cq, e, 8);
   if (r == -FI_EAVAIL) { struct fi_cq_err_entry err = {0}; fi_cq_readerr(cq, &err, 0); fprintf(stderr, "cq err %d %s\n", err.err, fi_strerror(err.err)); exit(5);} }
static void waitc(struct fid_cntr *c, uint64_t n, const char *what) {
    time_t t0 = time(0);
    while (fi_cntr_read(c) + fi_cntr_readerr(c) < n) { prog(); if (time(0) - t0 > 5) { printf("  [%d] TIMEOUT waiting %s: %lu/%lu err=%lu\n", rank, what, fi_cntr_read(c), n, fi_cntr_readerr(c)); return; } }
    if (fi_cntr_readerr(c)) printf("  [%d] %s: errors %lu\n", rank, what, fi_cntr_readerr(c));
}

int main(int argc, char **argv) {
    uint64_t opflags = argc > 1 ? strtoull(argv[1], 0, 0) : 0; /* tx op_flags hint */
    int atom = argc > 2 ? atoi(argv[2]) : 1;
    struct fi_info *hints = fi_allocinfo();
    hints->caps = FI_RMA | FI_MSG | (atom ? FI_ATOMIC : 0);
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->tx_attr->op_flags = opflags;
    hints->mode = 0;
    pipe(p2c[0]); pipe(p2c[1]);
    if (fork() == 0) rank = 1; else rank = 0;
    int r = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
    if (r) { if (rank) return 0; printf("getinfo(opflags=%#lx, atom=%d): %s\n", opflags, atom, fi_strerror(-r)); return 0; }
    if (rank == 0) {
    printf("prov=%s fabric=%s domain=%s\n", info->fabric_attr->prov_name, info->fabric_attr->name, info->domain_attr->name);
    printf(" caps=%s\n", fi_tostr(&info->caps, FI_TYPE_CAPS));
    printf(" mode=%s\n", fi_tostr(&info->mode, FI_TYPE_MODE));
    printf(" mr_mode=%s keysize=%zu\n", fi_tostr(&info->domain_attr->mr_mode, FI_TYPE_MR_MODE), info->domain_attr->mr_key_size);
    printf(" progress data=%s", fi_tostr(&info->domain_attr->data_progress, FI_TYPE_PROGRESS)); printf(" ctrl=%s", fi_tostr(&info->domain_attr->control_progress, FI_TYPE_PROGRESS)); printf(" thr=%s\n", fi_tostr(&info->domain_attr->threading, FI_TYPE_THREADING));
    printf(" msg_order=%s", fi_tostr(&info->tx_attr->msg_order, FI_TYPE_MSG_ORDER)); printf(" comp_order=%s\n", fi_tostr(&info->tx_attr->comp_order, FI_TYPE_MSG_ORDER));
    printf(" rx msg_order=%s\n", fi_tostr(&info->rx_attr->msg_order, FI_TYPE_MSG_ORDER));
    printf(" tx op_flags=%s msg_order=%s comp_order=%s inject=%zu iov=%zu rma_iov=%zu size=%zu\n", fi_tostr(&info->tx_attr->op_flags, FI_TYPE_OP_FLAGS), fi_tostr(&info->tx_attr->msg_order, FI_TYPE_MSG_ORDER), fi_tostr(&info->tx_attr->comp_order, FI_TYPE_MSG_ORDER), info->tx_attr->inject_size, info->tx_attr->iov_limit, info->tx_attr->rma_iov_limit, info->tx_attr->size);
    printf(" max_msg=%zu max_order_raw=%zu waw=%zu cntr_cnt=%zu\n", info->ep_attr->max_msg_size, info->ep_attr->max_order_raw_size, info->ep_attr->max_order_waw_size, info->domain_attr->cntr_cnt);
    printf(" rx op_flags=%s rx size=%zu\n", fi_tostr(&info->rx_attr->op_flags, FI_TYPE_OP_FLAGS), info->rx_attr->size);
    fflush(stdout); }
    heap = mmap(0, HSZ, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_ANONYMOUS, -1, 0);
    probe_open(info, &fab, &dom, &av, &cq);
    struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
    CK(fi_cntr_open(dom, &ca, &wc, NULL)); CK(fi_cntr_open(dom, &ca, &rc, NULL));
    CK(fi_endpoint(dom, info, &ep, NULL));
    CK(fi_ep_bind(ep, &av->fid, 0));
    CK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CK(fi_ep_bind(ep, &wc->fid, FI_WRITE));
    CK(fi_ep_bind(ep, &rc->fid, FI_READ));
    CK(fi_enable(ep));
    CK(fi_mr_reg(dom, heap, HSZ, FI_REMOTE_READ|FI_REMOTE_WRITE|FI_READ|FI_WRITE, 0, 7, 0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) { CK(fi_mr_bind(mr, &ep->fid, 0)); CK(fi_mr_enable(mr)); }
    char name[256], pname[256]; size_t nl = sizeof name; memset(name, 0, 256);
    CK(fi_getname(&ep->fid, name, &nl));
    if (rank == 0) printf(" namelen=%zu\n", nl);
    xchg(name, pname, 256);
    fi_addr_t a[2];
    char *names = malloc(512); memcpy(names + rank * 256, name, 256); memcpy(names + (1-rank)*256, pname, 256);
    /* AV insert needs contiguous names of addrlen each */
    char *packed = malloc(2 * nl); memcpy(packed, names, nl); memcpy(packed + nl, names + 256, nl);
    int n = fi_av_insert(av, packed, 2, a, 0, NULL);
    if (n != 2 || a[0] != 0 || a[1] != 1) { printf("av insert %d %lu %lu\n", n, a[0], a[1]); exit(4); }
    uint64_t key = fi_mr_key(mr), pkey; uint64_t base = (uint64_t)(uintptr_t)heap, pbase;
    xchg(&key, &pkey, 8); xchg(&base, &pbase, 8);
    if (rank == 0) printf(" key=%#lx\n", key);
    uint64_t raddr_off = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? pbase : 0;
    int peer = 1 - rank;
    memset(heap, 0, HSZ);
    bar();
    /* 1. inject_write counting */
    uint64_t wissued = 0, rissued = 0;
    if (rank == 0) {
        long v = 0x1234;
        time_t t1 = time(0);
        do { r = fi_inject_write(ep, &v, 8, peer, raddr_off + 0, pkey); if (r == -FI_EAGAIN) prog();
             if (r == -FI_EAGAIN && time(0) - t1 > 5) { printf(" HANG: fi_inject_write still -FI_EAGAIN after 5 s (target not progressing)\n"); fflush(stdout); kill(0, SIGKILL); } } while (r == -FI_EAGAIN);
        if (r) printf(" inject_write=%d\n", r); else wissued++;
        time_t t0 = time(0); while (fi_cntr_read(wc) < 1 && time(0) - t0 < 2) prog();
        printf(" inject_write counted: %lu\n", fi_cntr_read(wc));
        wissued = fi_cntr_read(wc);
    }
    bar();
    /* 2. remote visibility without target progress: rank0 writes 1 MiB + 8B then waits counter; then tells rank1 via pipe; rank1 checks w/o progress */
    int mode = 0;
    for (mode = 0; mode < 2; mode++) {
    memset(heap, 0, HSZ);
    bar();
    size_t big = 1 << 20;
    if (rank == 0) {
        char *src = malloc(big); memset(src, 0x5a + mode, big);
        long v = 0x77 + mode;
        if (!getenv("NOBIG")) do { r = fi_write(ep, src, big, NULL, peer, raddr_off + 4096, pkey, NULL); if (r == -FI_EAGAIN) prog(); } while (r == -FI_EAGAIN);
        CK(r); wissued++;
        if (getenv("INJATOMIC")) { /* the 8-byte word by a non-fetching injected atomic */
          do { r = fi_inject_atomic(ep, &v, 1, peer, raddr_off + 8, pkey, FI_INT64, FI_SUM); if (r == -FI_EAGAIN) prog(); } while (r == -FI_EAGAIN);
        } else if (getenv("INJDC")) {
          struct iovec iov = { &v, 8 }; struct fi_rma_iov riov = { raddr_off + 8, 8, pkey };
          struct fi_msg_rma m = { .msg_iov = &iov, .iov_count = 1, .addr = peer, .rma_iov = &riov, .rma_iov_count = 1 };
          do { r = fi_writemsg(ep, &m, FI_INJECT | FI_DELIVERY_COMPLETE); if (r == -FI_EAGAIN) prog(); } while (r == -FI_EAGAIN);
          v = 0;
        } else
        do { r = fi_inject_write(ep, &v, 8, peer, raddr_off + 8, pkey); if (r == -FI_EAGAIN) prog(); } while (r == -FI_EAGAIN);
        CK(r); wissued++;
        waitc(wc, wissued, "write");
        if (mode == 1) { /* flush read */
            long t; do { r = fi_read(ep, &t, 8, NULL, peer, raddr_off + 0, pkey, NULL); if (r == -FI_EAGAIN) prog(); } while (r == -FI_EAGAIN);
            CK(r); rissued++; waitc(rc, rissued, "flushread");
        }
        bar_noprog();
    } else {
        /* target: no progress at all while rank0 completes */
        bar_noprog();
        int ok = heap[4096] == 0x5a + mode && heap[4096 + big - 1] == 0x5a + mode && *(long*)(heap + 8) == 0x77 + mode;
        printf(" [mode %s] target sees data w/o progress: %s (big=%x small=%lx)\n", mode ? "counter+flushread" : "counter only", ok ? "YES" : "NO", heap[4096 + big - 1], *(long*)(heap+8));
        fflush(stdout);
    }
    /* let target progress so everything drains */
    for (int i = 0; i < 100000; i++) prog();
    bar();
    }
    /* 3. atomic table (rank0 prints) */
    if (rank == 0 && (info->caps & FI_ATOMIC)) {
        enum fi_op ops[] = {FI_ATOMIC_READ, FI_ATOMIC_WRITE, FI_CSWAP, FI_SUM, FI_BAND, FI_BOR, FI_BXOR};
        const char *on[] = {"READ", "WRITE", "CSWAP", "SUM", "BAND", "BOR", "BXOR"};
        enum fi_datatype dts[] = {FI_INT32, FI_INT64, FI_UINT32, FI_UINT64, FI_FLOAT, FI_DOUBLE};
        const char *dn[] = {"i32", "i64", "u32", "u64", "f32", "f64"};
        printf(" atomics (w=atomicvalid f=fetch c=compare):\n");
        for (int d = 0; d < 6; d++) { printf("  %s:", dn[d]);
            for (int o = 0; o < 7; o++) { size_t cnt; int w = fi_atomicvalid(ep, dts[d], ops[o], &cnt) == 0;
               int f = fi_fetch_atomicvalid(ep, dts[d], ops[o], &cnt) == 0; int c = fi_compare_atomicvalid(ep, dts[d], ops[o], &cnt) == 0;
               printf(" %s=%s%s%s", on[o], w?"w":"", f?"f":"", c?"c":""); }
            printf("\n"); }
        /* fetch-add counts on read cntr? non-fetch atomic on write cntr? */
        long one = 1, res = 0;
        uint64_t w0 = fi_cntr_read(wc), r0 = fi_cntr_read(rc);
        CK(fi_atomic(ep, &one, 1, NULL, peer, raddr_off + 64, pkey, FI_INT64, FI_SUM, NULL));
        CK(fi_fetch_atomic(ep, &one, 1, NULL, &res, NULL, peer, raddr_off + 64, pkey, FI_INT64, FI_SUM, NULL));
        CK(fi_inject_atomic(ep, &one, 1, peer, raddr_off + 64, pkey, FI_INT64, FI_SUM));
        time_t t0 = time(0); while ((fi_cntr_read(wc) < w0 + 2 || fi_cntr_read(rc) < r0 + 1) && time(0) - t0 < 3) prog();
        printf(" atomic: write cntr +%lu (expect 2), read cntr +%lu (expect 1), fetched %ld\n", fi_cntr_read(wc) - w0, fi_cntr_read(rc) - r0, res);
    }
    if (rank == 1) { time_t t0 = time(0); while (time(0) - t0 < 4) prog(); }
    bar();
    if (rank == 0) wait(NULL);
    return 0;
}

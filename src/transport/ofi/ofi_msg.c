/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_msg.c owns the libfabric message layer (see ofi_msg.h): the receive
 * buffers (multi-receive or pre-posted, chosen at start-up), the send
 * buffer pool, fragmented sends and their reassembly, batches of the
 * active-message engine's messages and their split, the queue of sends
 * that could not go out from handler context, and the CQ drain that
 * dispatches handlers and recycles buffers. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/scale.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

#define MSG_SEND_BUFS 64
/* Payloads from this size that fit the inject size go as an injected
 * iovec (header, payload, padding): the provider copies them as it copies
 * any inject, weft does not (shm: up to 4 KiB). */
#define INJECT_IOV_MIN 256
/* Largest messages a multi-receive buffer holds: WEFT_AM_BUFFERS fixed
 * buffers' worth of space is split into buffers of this many. */
#define MULTI_MSGS_PER_BUF 16
/* A multi-receive buffer holds at least this many batches (below). */
#define MULTI_BATCHES_PER_BUF 4
/* A message above the inject size goes as injected fragments where the
 * provider injects at least this much and keeps sends in order: shm 1.17
 * sends anything larger than its inject size (4096 bytes, a 4 KiB Medium
 * with its header is 4152) through CMA, a system call at the target and an
 * acknowledgement back, several times the cost of two injects. */
#define FRAG_MIN_INJECT 1024
/* struct weft_ofi_msg_hdr.flags: the first fragment (a whole message's
 * header, its len the whole payload's) and the ones that follow it (a
 * header of their own, len their share of the payload). */
#define HDR_FRAG_FIRST 1u
#define HDR_FRAG_MORE 2u
/* A batch: the header of one provider message whose payload is several
 * whole messages to one PE, each padded to 8 bytes, run in order. */
#define HDR_BATCH 4u

/* What a completion's context points at; the first member of each. */
enum buf_kind { BUF_RECV, BUF_SEND, BUF_MULTI };
struct buf_head {
    struct fi_context2 ctx; /* harmless when the provider does not need it */
    int kind;
    /* A send whose payload the caller owns until the provider is done
     * with it: set by the drain, read by the waiting sender; -1 for a
     * buffer the drain frees. Atomic: the drain may run on the progress
     * thread while the sender writes it. */
    int done;
};

struct msg_buf {
    struct buf_head h;
    struct msg_buf *next;
    char data[WEFT_OFI_MSG_BUF_SIZE] __attribute__((aligned(16)));
};

struct multi_buf {
    struct buf_head h;
    char *data; /* layer.multi_size bytes */
};

/* A send buffer (layer.send_size bytes at data): one message copied for a
 * send, or a batch being filled for pe (used bytes so far). */
struct send_buf {
    struct buf_head h;
    struct send_buf *next;      /* the free list, or the list of open batches */
    char *data;
    int pe;
    size_t used;
};

/* Batching of the active-message engine's messages to one PE: counted
 * while sent at once, then gathered into one provider message (open, an
 * index + 1 into layer.send) until the next poll or until full. */
struct peer_batch {
    uint32_t epoch; /* layer.epoch when sent was last reset */
    uint16_t sent;  /* messages sent to this PE at once since then */
    uint16_t open;
};

/* A fragmented message being reassembled, one per sending PE at most: a
 * sender sends one fragmented message at a time from its default endpoint,
 * in order (FI_ORDER_SAS). */
struct frag_partial {
    struct frag_partial *next;
    uint32_t src;
    size_t have, want;
    char data[WEFT_OFI_MSG_BUF_SIZE] __attribute__((aligned(16)));
};

struct msg_pending {
    struct msg_pending *next;
    int pe;
    size_t len;
    char data[];
};

static struct {
    enum weft_ofi_msg_recv_mode recv_mode;
    struct msg_buf *recv; /* WEFT_OFI_MSG_RECV_POSTED */
    size_t nrecv;
    struct multi_buf *multi; /* WEFT_OFI_MSG_RECV_MULTI */
    char *multi_data;
    size_t nmulti, multi_size;
    struct fid_mr *recv_mr;
    /* Payloads above the inject size go from the caller's buffer (iovec)
     * rather than copied, the sender waiting for the send's completion. */
    size_t zero_copy_min;
    /* Payloads from this size within the inject size go as an injected
     * iovec; SIZE_MAX: never. */
    size_t inject_iov_min;
    /* Bytes per fragment (a multiple of 8); 0: no fragments. */
    size_t frag_size;
    /* Held across one message's fragments: no other fragmented message
     * from this PE comes between them. */
    pthread_mutex_t frag_lock;
    /* Messages being reassembled, and spare reassembly buffers (poll's). */
    struct frag_partial *partials, *spare_partials;
    struct send_buf *send;
    char *send_data;
    size_t send_size;
    struct fid_mr *send_mr;
    struct send_buf *free_send;
    pthread_mutex_t lock; /* free_send and the pending queue */
    struct msg_pending *pend_head, *pend_tail;
    int npend;
    /* Messages held back: queued (npend) or in open batches (n_open). A
     * Short injects at once only when none is. */
    int held;
    /* Buffered sends the provider has not completed yet. */
    int sends_out;
    /* Largest batch in bytes (0: no batching), messages to one PE sent at
     * once per poll before the rest are batched, the poll count, the
     * per-PE state, and the open batches (under batch_lock). */
    size_t batch_max;
    unsigned batch_depth;
    uint32_t epoch;
    struct peer_batch *peers;
    pthread_mutex_t batch_lock;
    struct send_buf *open_head;
    int n_open;
    weft_ofi_msg_handler_fn handlers[WEFT_OFI_MSG_NHANDLERS];
    int up;
} layer = {.lock = PTHREAD_MUTEX_INITIALIZER,
           .frag_lock = PTHREAD_MUTEX_INITIALIZER,
           .batch_lock = PTHREAD_MUTEX_INITIALIZER};

static __thread int in_handler __attribute__((tls_model("initial-exec")));

int weft_ofi_msg_in_handler(void) { return in_handler; }
int weft_ofi_msg_sends_out(void) { return __atomic_load_n(&layer.sends_out, __ATOMIC_RELAXED); }

void weft_ofi_msg_register(int id, weft_ofi_msg_handler_fn fn)
{
    if (id <= 0 || id >= WEFT_OFI_MSG_NHANDLERS)
        weft_fatal("weft_ofi_msg_register", "handler id %d out of range", id);
    layer.handlers[id] = fn;
}

static void *buf_desc(struct fid_mr *mr) { return mr ? fi_mr_desc(mr) : NULL; }

/* Post one receive: a fixed buffer for one message, or a multi-receive
 * buffer the provider fills message after message. */
static int post_recv(struct buf_head *h, void *data, size_t size, uint64_t flags)
{
    struct weft_ofi_retry r = {0, 0};
    for (;;) {
        /* The CQ is bound with FI_SELECTIVE_COMPLETION (for RMA), which
         * covers receives too: ask for the completion explicitly. */
        struct iovec iov = {data, size};
        void *desc = buf_desc(layer.recv_mr);
        struct fi_msg m = {.msg_iov = &iov,
                           .desc = &desc,
                           .iov_count = 1,
                           .addr = FI_ADDR_UNSPEC,
                           .context = &h->ctx};
        ssize_t rc = fi_recvmsg(weft_ofi_tx0.ep, &m, FI_COMPLETION | flags);
        if (rc == 0)
            return 0;
        if (rc != -FI_EAGAIN) {
            weft_warn("weft_ofi_init", "fi_recvmsg: %s", fi_strerror((int)-rc));
            return -1;
        }
        /* Only reachable from init or the poll loop: progress the provider
         * without dispatching (we are the dispatcher). */
        weft_ofi_retry_wait(NULL, &r, "fi_recv (active message buffer)", -1);
    }
}

static int post_fixed(struct msg_buf *b)
{
    return post_recv(&b->h, b->data, WEFT_OFI_MSG_BUF_SIZE, 0);
}

static int post_multi(struct multi_buf *b)
{
    return post_recv(&b->h, b->data, layer.multi_size, FI_MULTI_RECV);
}

static int reg_bufs(void *b, size_t bytes, struct fid_mr **mr, uint64_t access)
{
    *mr = NULL;
    if (!weft_ofi.fab.mr_local)
        return 0;
    int rc = fi_mr_reg(weft_ofi.fab.domain, b, bytes, access, 0, 0, 0, mr, NULL);
    if (rc) {
        weft_warn("weft_ofi_init", "fi_mr_reg(active message buffers): %s", fi_strerror(-rc));
        return -1;
    }
    if (weft_ofi.fab.mr_endpoint) {
        if ((rc = fi_mr_bind(*mr, &weft_ofi_tx0.ep->fid, 0)) != 0 || (rc = fi_mr_enable(*mr)) != 0) {
            weft_warn("weft_ofi_init", "binding active message buffers: %s", fi_strerror(-rc));
            return -1;
        }
    }
    return 0;
}

/* ---- choosing the receive mode --------------------------------------------
 * Multi-receive needs the provider to grant FI_MULTI_RECV and to keep a
 * buffer posted until less than one largest message fits
 * (FI_OPT_MIN_MULTI_RECV, read back once enabled). libfabric 1.x's shm
 * (and rxm) fault when the option is set before fi_enable, and 2.x's ignore
 * it when set after (docs/providers.md, "The message layer's receive
 * buffers"): so it is set before fi_enable from 2.0 on and after it
 * before. */
static int want_multi(void)
{
    static const char *const modes[] = {"auto", "on", "off"};
    static const int wanted[] = {1, 2, 0};
    return wanted[weft_tun_choice(WEFT_TUN_AM_MULTI_RECV, modes, 3)];
}

int weft_ofi_msg_multi_wanted(void) { return want_multi() != 0; }

static int set_before_enable(void) { return FI_MAJOR(fi_version()) >= 2; }

/* Refuse multi-receive (auto), or end the job (on). */
static enum weft_ofi_msg_recv_mode no_multi(int want, const char *why)
{
    if (want == 2)
        weft_fatal("shmem_init", "WEFT_AM_MULTI_RECV=on: provider %s: %s",
                   weft_ofi_provider_name(), why);
    weft_debug("ofi: %s: pre-posted receive buffers (%s)", weft_ofi_provider_name(), why);
    return WEFT_OFI_MSG_RECV_POSTED;
}

/* The largest message a receive buffer must hold: a batch, where batching. */
static size_t largest_msg(void)
{
    return layer.batch_max > WEFT_OFI_MSG_BUF_SIZE ? layer.batch_max : WEFT_OFI_MSG_BUF_SIZE;
}

/* Set the minimum free space to the largest message: before fi_enable on
 * 2.x, after it on 1.x. */
static enum weft_ofi_msg_recv_mode set_min_multi(struct fid_ep *ep, int want)
{
    size_t min = largest_msg();
    if (fi_setopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min))
        return no_multi(want, "fi_setopt(FI_OPT_MIN_MULTI_RECV) refused");
    return WEFT_OFI_MSG_RECV_MULTI;
}

/* Read it back once the endpoint is enabled (2.6's shm faults when asked
 * before). */
static enum weft_ofi_msg_recv_mode check_min_multi(struct fid_ep *ep, int want)
{
    size_t got = 0, glen = sizeof got;
    int rc = fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &got, &glen);
    if (rc == 0 && got < largest_msg())
        return no_multi(want, "FI_OPT_MIN_MULTI_RECV below the largest message");
    return WEFT_OFI_MSG_RECV_MULTI;
}

static size_t fragment_size(void);

/* Batches (WEFT_AM_BATCH bytes at most) where receives land in
 * multi-receive buffers (which then keep room for one), the provider keeps
 * sends in order, and a message above the inject size is not sent as
 * injected fragments (shm: those already cost less than a batch would). */
static size_t batch_bytes(void)
{
    const struct fi_info *fi = weft_ofi.fab.info;
    long long max = weft_tun_int(WEFT_TUN_AM_BATCH);
    /* rxm sends a larger message by rendezvous, which completes after
     * smaller ones sent later (docs/providers.md, problem 7) and arrives
     * in pieces in a multi-receive buffer: batches stay eager. */
    if (strstr(weft_ofi_provider_name(), "rxm")) {
        const char *eager = getenv("FI_OFI_RXM_EAGER_LIMIT");
        if (!eager)
            eager = getenv("FI_OFI_RXM_BUFFER_SIZE");
        long long limit = eager ? strtoll(eager, NULL, 0) : WEFT_OFI_MSG_BUF_SIZE;
        if (limit < max)
            max = limit;
    }
    if (max < 2 * WEFT_OFI_MSG_BUF_SIZE || fragment_size() ||
        !(fi->tx_attr->msg_order & FI_ORDER_SAS) || !(fi->rx_attr->msg_order & FI_ORDER_SAS))
        return 0;
    return (size_t)max & ~(size_t)7;
}

int weft_ofi_msg_ep_prepare(struct fid_ep *ep)
{
    int want = want_multi();
    layer.recv_mode = WEFT_OFI_MSG_RECV_POSTED;
    if (!want)
        return 0;
    if (!(weft_ofi.fab.info->caps & FI_MULTI_RECV)) {
        no_multi(want, "FI_MULTI_RECV not granted");
        return 0;
    }
    layer.recv_mode = WEFT_OFI_MSG_RECV_MULTI;
    layer.batch_max = batch_bytes();
    if (set_before_enable())
        layer.recv_mode = set_min_multi(ep, want);
    return 0;
}

enum weft_ofi_msg_recv_mode weft_ofi_msg_recv_mode(void) { return layer.recv_mode; }
size_t weft_ofi_msg_zero_copy_min(void) { return layer.zero_copy_min; }

static int init_posted(void)
{
    long long n = weft_tun_int(WEFT_TUN_AM_BUFFERS);
    layer.nrecv = (size_t)n;
    if (posix_memalign((void **)&layer.recv, 64, layer.nrecv * sizeof *layer.recv))
        return -1;
    memset(layer.recv, 0, layer.nrecv * sizeof *layer.recv);
    if (reg_bufs(layer.recv, layer.nrecv * sizeof *layer.recv, &layer.recv_mr, FI_RECV))
        return -1;
    for (size_t i = 0; i < layer.nrecv; i++) {
        layer.recv[i].h.kind = BUF_RECV;
        if (post_fixed(&layer.recv[i]) != 0)
            return -1;
    }
    return 0;
}

/* The same bytes as the fixed buffers would take, in at least two
 * buffers: one stays posted while the other waits to be reposted. */
static int init_multi(void)
{
    size_t n = (size_t)weft_tun_int(WEFT_TUN_AM_BUFFERS) / MULTI_MSGS_PER_BUF;
    layer.nmulti = n < 2 ? 2 : n;
    layer.multi_size = MULTI_MSGS_PER_BUF * WEFT_OFI_MSG_BUF_SIZE;
    if (layer.multi_size < MULTI_BATCHES_PER_BUF * layer.batch_max)
        layer.multi_size = MULTI_BATCHES_PER_BUF * layer.batch_max;
    layer.multi = calloc(layer.nmulti, sizeof *layer.multi);
    if (!layer.multi ||
        posix_memalign((void **)&layer.multi_data, 64, layer.nmulti * layer.multi_size))
        return -1;
    if (reg_bufs(layer.multi_data, layer.nmulti * layer.multi_size, &layer.recv_mr, FI_RECV))
        return -1;
    for (size_t i = 0; i < layer.nmulti; i++) {
        layer.multi[i].h.kind = BUF_MULTI;
        layer.multi[i].data = layer.multi_data + i * layer.multi_size;
        if (post_multi(&layer.multi[i]) != 0)
            return -1;
    }
    return 0;
}

/* Sends straight from the caller's payload need it unregistered (no
 * FI_MR_LOCAL) and three iovec entries (header, payload, padding). */
static int iovec_sends(void)
{
    return !weft_ofi.fab.mr_local && weft_ofi.fab.info->tx_attr->iov_limit >= 3;
}

/* Smallest payload above the inject size sent from the caller's buffer
 * (WEFT_AM_ZERO_COPY), SIZE_MAX: never. */
static size_t zero_copy_threshold(void)
{
    long long min = weft_tun_int(WEFT_TUN_AM_ZERO_COPY);
    return min < 0 || !iovec_sends() ? SIZE_MAX : (size_t)min;
}

/* Fragments need injects of FRAG_MIN_INJECT bytes or more, iovec injects
 * (header, payload share, padding) and sends kept in order. */
static size_t fragment_size(void)
{
    const struct fi_info *fi = weft_ofi.fab.info;
    if (!weft_tun_int(WEFT_TUN_AM_FRAGMENTS) || !iovec_sends() ||
        weft_ofi.fab.prov_inject < FRAG_MIN_INJECT || !(fi->tx_attr->msg_order & FI_ORDER_SAS) ||
        !(fi->rx_attr->msg_order & FI_ORDER_SAS))
        return 0;
    return weft_ofi.fab.prov_inject & ~(size_t)7;
}

int weft_ofi_msg_init(void)
{
    int want = want_multi();
    if (layer.recv_mode == WEFT_OFI_MSG_RECV_MULTI && !set_before_enable())
        layer.recv_mode = set_min_multi(weft_ofi_tx0.ep, want);
    if (layer.recv_mode == WEFT_OFI_MSG_RECV_MULTI)
        layer.recv_mode = check_min_multi(weft_ofi_tx0.ep, want);
    if (layer.recv_mode != WEFT_OFI_MSG_RECV_MULTI)
        layer.batch_max = 0;
    layer.batch_depth = (unsigned)weft_tun_int(WEFT_TUN_AM_BATCH_DEPTH);
    if (layer.batch_max) {
        layer.peers = weft_scale_table_alloc((size_t)weft_rt.n_pes, sizeof *layer.peers);
        if (!layer.peers) {
            weft_warn("weft_ofi_init", "out of memory for active message batches");
            return -1;
        }
    }
    if (layer.batch_max)
        weft_debug("ofi: active messages to one PE batched (up to %zu bytes) after %u a poll",
                   layer.batch_max, layer.batch_depth);
    else
        weft_debug("ofi: active messages not batched");
    weft_debug("ofi: message layer receives into %s",
               layer.recv_mode == WEFT_OFI_MSG_RECV_MULTI ? "multi-receive buffers"
                                                          : "pre-posted buffers");
    layer.zero_copy_min = zero_copy_threshold();
    layer.inject_iov_min = iovec_sends() ? INJECT_IOV_MIN : SIZE_MAX;
    layer.frag_size = fragment_size();
    weft_debug("ofi: messages above the inject size: %s",
               layer.frag_size ? "injected fragments" : "copied into a send buffer");
    layer.send_size = largest_msg();
    layer.send = calloc(MSG_SEND_BUFS, sizeof *layer.send);
    if (!layer.send ||
        posix_memalign((void **)&layer.send_data, 64, MSG_SEND_BUFS * layer.send_size)) {
        weft_warn("weft_ofi_init", "out of memory for active message buffers");
        return -1;
    }
    if (reg_bufs(layer.send_data, MSG_SEND_BUFS * layer.send_size, &layer.send_mr, FI_SEND))
        return -1;
    layer.free_send = NULL;
    for (int i = MSG_SEND_BUFS - 1; i >= 0; i--) {
        layer.send[i].h.kind = BUF_SEND;
        layer.send[i].data = layer.send_data + (size_t)i * layer.send_size;
        layer.send[i].next = layer.free_send;
        layer.free_send = &layer.send[i];
    }
    int rc = layer.recv_mode == WEFT_OFI_MSG_RECV_MULTI ? init_multi() : init_posted();
    if (rc) {
        weft_warn("weft_ofi_init", "cannot set up the active message receive buffers");
        return -1;
    }
    layer.up = 1;
    return 0;
}

void weft_ofi_msg_fini(void)
{
    /* Called after the endpoint is closed: posted buffers are gone with it. */
    if (layer.recv_mr)
        fi_close(&layer.recv_mr->fid);
    if (layer.send_mr)
        fi_close(&layer.send_mr->fid);
    layer.recv_mr = layer.send_mr = NULL;
    free(layer.recv);
    free(layer.multi);
    free(layer.multi_data);
    free(layer.send);
    free(layer.send_data);
    if (layer.peers)
        weft_scale_table_free(layer.peers, (size_t)weft_rt.n_pes, sizeof *layer.peers);
    layer.peers = NULL;
    layer.open_head = NULL;
    layer.n_open = 0;
    layer.batch_max = 0;
    layer.recv = NULL;
    layer.send = NULL;
    layer.send_data = NULL;
    layer.multi = NULL;
    layer.multi_data = NULL;
    struct frag_partial **lists[2] = {&layer.partials, &layer.spare_partials};
    for (int i = 0; i < 2; i++) {
        while (*lists[i]) {
            struct frag_partial *f = *lists[i];
            *lists[i] = f->next;
            free(f);
        }
    }
    while (layer.pend_head) {
        struct msg_pending *p = layer.pend_head;
        layer.pend_head = p->next;
        free(p);
    }
    layer.pend_tail = NULL;
    layer.npend = 0;
    layer.held = 0;
    layer.up = 0;
}

/* ---- sending ------------------------------------------------------------ */

static struct send_buf *get_send_buf(void)
{
    pthread_mutex_lock(&layer.lock);
    struct send_buf *b = layer.free_send;
    if (b)
        layer.free_send = b->next;
    pthread_mutex_unlock(&layer.lock);
    return b;
}

static void put_send_buf(struct send_buf *b)
{
    pthread_mutex_lock(&layer.lock);
    b->next = layer.free_send;
    layer.free_send = b;
    pthread_mutex_unlock(&layer.lock);
}

/* Messages are padded to 8 bytes, so that in a multi-receive buffer,
 * where the provider lays them end to end, every header and payload stays
 * 8-byte aligned. */
static const uint64_t zero_pad;
#define PAD8(n) (((n) + 7) & ~(size_t)7)

/* Post b's iov[0..n) as one message; the caller keeps b on failure.
 * 0, or the provider's error. */
static ssize_t post_send_keep(int pe, struct send_buf *b, struct iovec *iov, size_t n)
{
    void *desc[3] = {buf_desc(layer.send_mr), NULL, buf_desc(layer.send_mr)};
    struct fi_msg m = {.msg_iov = iov,
                       .desc = desc,
                       .iov_count = n,
                       .addr = (fi_addr_t)pe,
                       .context = &b->h.ctx};
    __atomic_add_fetch(&layer.sends_out, 1, __ATOMIC_RELAXED);
    ssize_t rc = fi_sendmsg(weft_ofi_tx0.ep, &m, FI_COMPLETION);
    if (rc != 0)
        __atomic_sub_fetch(&layer.sends_out, 1, __ATOMIC_RELAXED);
    return rc;
}

/* The same, b back to the pool on failure. */
static ssize_t post_send(int pe, struct send_buf *b, struct iovec *iov, size_t n)
{
    ssize_t rc = post_send_keep(pe, b, iov, n);
    if (rc != 0)
        put_send_buf(b);
    return rc;
}

/* Try to put one fully formatted message on the wire. 0, or -FI_EAGAIN. */
static ssize_t try_send(int pe, const void *msg, size_t len)
{
    if (len <= weft_ofi.fab.prov_inject)
        return fi_inject(weft_ofi_tx0.ep, msg, len, (fi_addr_t)pe);
    struct send_buf *b = get_send_buf();
    if (!b)
        return -FI_EAGAIN;
    memcpy(b->data, msg, len);
    __atomic_store_n(&b->h.done, -1, __ATOMIC_RELEASE);
    struct iovec iov = {b->data, len};
    return post_send(pe, b, &iov, 1);
}

static void queue_pending(int pe, const void *msg, size_t len)
{
    struct msg_pending *p = malloc(sizeof *p + len);
    if (!p)
        weft_fatal("weft_ofi_msg_send", "out of memory queueing a message to PE %d", pe);
    p->next = NULL;
    p->pe = pe;
    p->len = len;
    memcpy(p->data, msg, len);
    pthread_mutex_lock(&layer.lock);
    if (layer.pend_tail)
        layer.pend_tail->next = p;
    else
        layer.pend_head = p;
    layer.pend_tail = p;
    __atomic_add_fetch(&layer.npend, 1, __ATOMIC_RELAXED); /* also read unlocked */
    __atomic_add_fetch(&layer.held, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&layer.lock);
}

/* Send queued messages in order; stop at the first that would block. */
static void drain_pending(void)
{
    if (!__atomic_load_n(&layer.npend, __ATOMIC_RELAXED))
        return;
    for (;;) {
        pthread_mutex_lock(&layer.lock);
        struct msg_pending *p = layer.pend_head;
        pthread_mutex_unlock(&layer.lock);
        if (!p)
            return;
        ssize_t rc = try_send(p->pe, p->data, p->len);
        if (rc == -FI_EAGAIN)
            return;
        if (rc != 0)
            weft_ofi_fail("fi_send (queued active message)", p->pe, rc);
        pthread_mutex_lock(&layer.lock);
        layer.pend_head = p->next;
        if (!layer.pend_head)
            layer.pend_tail = NULL;
        __atomic_sub_fetch(&layer.npend, 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&layer.held, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&layer.lock);
        free(p);
    }
}

/* Lay out header and arguments at msg; returns their length. */
static size_t format_hdr(char *msg, uint64_t id, const uint64_t *args, int nargs, size_t len)
{
    if (nargs < 0 || nargs > WEFT_OFI_MSG_MAX_ARGS || len > WEFT_OFI_MSG_MAX_PAYLOAD)
        weft_fatal("weft_ofi_msg_send", "message too large (%d args, %zu bytes)", nargs, len);
    struct weft_ofi_msg_hdr *h = (struct weft_ofi_msg_hdr *)(void *)msg;
    h->handler = (uint8_t)id;
    h->nargs = (uint8_t)nargs;
    h->flags = 0;
    h->len = (uint32_t)len;
    h->src = (uint32_t)weft_rt.my_pe;
    h->imm = (uint32_t)(id >> 32);
    size_t total = sizeof *h + (size_t)nargs * sizeof(uint64_t);
    if (nargs)
        memcpy(msg + sizeof *h, args, (size_t)nargs * sizeof(uint64_t));
    return total;
}

/* Header, arguments and payload in msg (padded); returns the length. */
static size_t format_msg(char *msg, uint64_t id, const uint64_t *args, int nargs,
                         const void *payload, size_t len)
{
    size_t total = format_hdr(msg, id, args, nargs, len);
    if (len)
        memcpy(msg + total, payload, len);
    size_t padded = PAD8(total + len);
    if (padded != total + len)
        memset(msg + total + len, 0, padded - total - len);
    return padded;
}

/* ---- batches -------------------------------------------------------------
 * The engine's messages to one PE are sent at once while fewer than
 * layer.batch_depth went to it since this PE's last poll; later ones (the
 * peer's queue is filling faster than it drains) are appended to an open
 * batch for that PE, which goes as one provider message when it is full,
 * at the next poll (every wait loop, the progress thread) and at the end of
 * the engine's polls (weft_ofi_msg_flush). While a PE has an open batch,
 * every engine message to it joins it (order per sender), and any other
 * message to it sends the batch first. */

/* Send batch b, which is open (batch_lock held): posted, or queued behind
 * the messages already waiting. */
static void batch_post(struct send_buf *b)
{
    int pe = b->pe; /* b may be reused once posted */
    struct send_buf **pp = &layer.open_head;
    while (*pp != b)
        pp = &(*pp)->next;
    *pp = b->next;
    __atomic_sub_fetch(&layer.n_open, 1, __ATOMIC_RELAXED);
    ((struct weft_ofi_msg_hdr *)(void *)b->data)->len =
        (uint32_t)(b->used - sizeof(struct weft_ofi_msg_hdr));
    __atomic_store_n(&b->h.done, -1, __ATOMIC_RELEASE);
    struct iovec iov = {b->data, b->used};
    ssize_t rc = __atomic_load_n(&layer.npend, __ATOMIC_RELAXED)
                     ? -FI_EAGAIN
                     : post_send_keep(pe, b, &iov, 1);
    if (rc == -FI_EAGAIN)
        queue_pending(pe, b->data, b->used);
    else if (rc)
        weft_ofi_fail("fi_send (active message batch)", pe, rc);
    /* Only now may a sender that finds no open batch send at once: the
     * batch is ahead of it (posted, or queued). */
    __atomic_store_n(&layer.peers[pe].open, 0, __ATOMIC_RELEASE);
    __atomic_sub_fetch(&layer.held, 1, __ATOMIC_RELEASE);
    if (rc)
        put_send_buf(b);
}

/* Send every open batch. */
static void batch_flush_all(void)
{
    if (!__atomic_load_n(&layer.n_open, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&layer.batch_lock);
    while (layer.open_head)
        batch_post(layer.open_head);
    pthread_mutex_unlock(&layer.batch_lock);
}

void weft_ofi_msg_flush(void) { batch_flush_all(); }

/* Send pe's open batch, before a message that does not join it. */
static void batch_flush_pe(int pe)
{
    if (!__atomic_load_n(&layer.peers[pe].open, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&layer.batch_lock);
    uint16_t open = layer.peers[pe].open;
    if (open)
        batch_post(&layer.send[open - 1]);
    pthread_mutex_unlock(&layer.batch_lock);
}

/* An engine message to pe: 1 when it joined a batch, 0 when the caller
 * sends it at once (counted here). */
static int batch_take(int pe, uint64_t id, const uint64_t *args, int nargs,
                      const void *payload, size_t len)
{
    struct peer_batch *pb = &layer.peers[pe];
    if (!__atomic_load_n(&pb->open, __ATOMIC_ACQUIRE)) {
        uint32_t epoch = __atomic_load_n(&layer.epoch, __ATOMIC_RELAXED);
        if (__atomic_load_n(&pb->epoch, __ATOMIC_RELAXED) != epoch) {
            __atomic_store_n(&pb->epoch, epoch, __ATOMIC_RELAXED);
            __atomic_store_n(&pb->sent, 1, __ATOMIC_RELAXED);
            return 0;
        }
        uint16_t sent = __atomic_load_n(&pb->sent, __ATOMIC_RELAXED);
        if (sent < layer.batch_depth) {
            __atomic_store_n(&pb->sent, (uint16_t)(sent + 1), __ATOMIC_RELAXED);
            return 0;
        }
        /* Waiting messages: the caller's send progresses until they go. */
        if (__atomic_load_n(&layer.npend, __ATOMIC_RELAXED))
            return 0;
    }
    size_t need = PAD8(WEFT_OFI_MSG_SIZE(nargs, len));
    pthread_mutex_lock(&layer.batch_lock);
    struct send_buf *b = pb->open ? &layer.send[pb->open - 1] : NULL;
    if (b && b->used + need > layer.batch_max) {
        batch_post(b);
        b = NULL;
    }
    if (!b) {
        if (!(b = get_send_buf())) {
            pthread_mutex_unlock(&layer.batch_lock);
            return 0;
        }
        struct weft_ofi_msg_hdr *h = (struct weft_ofi_msg_hdr *)(void *)b->data;
        *h = (struct weft_ofi_msg_hdr){.flags = HDR_BATCH, .src = (uint32_t)weft_rt.my_pe};
        b->pe = pe;
        b->used = sizeof *h;
        b->next = layer.open_head;
        layer.open_head = b;
        __atomic_add_fetch(&layer.n_open, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&layer.held, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&pb->open, (uint16_t)(b - layer.send + 1), __ATOMIC_RELAXED);
    }
    b->used += format_msg(b->data + b->used, id, args, nargs, payload, len);
    pthread_mutex_unlock(&layer.batch_lock);
    return 1;
}

void weft_ofi_msg_send_from(struct weft_ofi_tx *tx, int pe, uint64_t id, const uint64_t *args,
                            int nargs, const void *payload, size_t len)
{
    if (tx == &weft_ofi_tx0 || PAD8(WEFT_OFI_MSG_SIZE(nargs, len)) > weft_ofi.fab.prov_inject) {
        weft_ofi_msg_send(pe, id, args, nargs, payload, len);
        return;
    }
    char msg[WEFT_OFI_MSG_BUF_SIZE] __attribute__((aligned(16)));
    size_t total = format_msg(msg, id, args, nargs, payload, len);
    struct weft_ofi_retry r = {0, 0};
    ssize_t rc;
    while ((rc = fi_inject(tx->ep, msg, total, (fi_addr_t)pe)) == -FI_EAGAIN)
        weft_ofi_retry_wait(tx, &r, "fi_inject (active message)", pe);
    if (WEFT_UNLIKELY(rc))
        weft_ofi_fail("fi_inject (active message)", pe, rc);
}

/* A message above the inject size straight from the caller's payload:
 * header and arguments in a send buffer, the payload as the second iovec
 * entry. The caller may reuse its buffer once this returns, so it waits
 * for the send's completion (progressing, as any wait). 0, or -FI_EAGAIN
 * with nothing sent. */
static ssize_t send_zero_copy(int pe, uint64_t id, const uint64_t *args, int nargs,
                              const void *payload, size_t len)
{
    struct send_buf *b = get_send_buf();
    if (!b)
        return -FI_EAGAIN;
    size_t hlen = format_hdr(b->data, id, args, nargs, len);
    struct iovec iov[3] = {{b->data, hlen},
                           {(void *)(uintptr_t)payload, len},
                           {(void *)(uintptr_t)&zero_pad, PAD8(hlen + len) - hlen - len}};
    __atomic_store_n(&b->h.done, 0, __ATOMIC_RELAXED);
    ssize_t rc = post_send(pe, b, iov, iov[2].iov_len ? 3 : 2);
    if (rc)
        return rc;
    unsigned spins = 0;
    while (!__atomic_load_n(&b->h.done, __ATOMIC_ACQUIRE))
        weft_poll_yield(&spins);
    put_send_buf(b);
    return 0;
}


static ssize_t inject_iov(int pe, uint64_t id, const uint64_t *args, int nargs,
                          const void *payload, size_t len)
{
    char hdr[WEFT_OFI_MSG_SIZE(WEFT_OFI_MSG_MAX_ARGS, 0)] __attribute__((aligned(16)));
    size_t hlen = format_hdr(hdr, id, args, nargs, len);
    struct iovec iov[3] = {{hdr, hlen},
                           {(void *)(uintptr_t)payload, len},
                           {(void *)(uintptr_t)&zero_pad, PAD8(hlen + len) - hlen - len}};
    struct fi_msg m = {.msg_iov = iov,
                       .iov_count = iov[2].iov_len ? 3 : 2,
                       .addr = (fi_addr_t)pe};
    return fi_sendmsg(weft_ofi_tx0.ep, &m, FI_INJECT);
}

/* One fragment: a header of hlen bytes, n payload bytes, padding. */
static ssize_t inject_fragment(int pe, const void *hdr, size_t hlen, const char *part, size_t n)
{
    struct iovec iov[3] = {{(void *)(uintptr_t)hdr, hlen},
                           {(void *)(uintptr_t)part, n},
                           {(void *)(uintptr_t)&zero_pad, PAD8(hlen + n) - hlen - n}};
    struct fi_msg m = {.msg_iov = iov, .iov_count = iov[2].iov_len ? 3 : 2, .addr = (fi_addr_t)pe};
    return fi_sendmsg(weft_ofi_tx0.ep, &m, FI_INJECT);
}

/* A message above the inject size as injected fragments (layer.frag_size
 * bytes each but the last): the first carries the whole message's header
 * and the payload's start, each later one a header of its own and its
 * share. 0 once the first is sent (fragments the provider did not take at
 * once are queued behind it), or -FI_EAGAIN with nothing sent. */
static ssize_t send_fragments(int pe, uint64_t id, const uint64_t *args, int nargs,
                              const void *payload, size_t len)
{
    char hdr[WEFT_OFI_MSG_SIZE(WEFT_OFI_MSG_MAX_ARGS, 0)] __attribute__((aligned(16)));
    size_t hlen = format_hdr(hdr, id, args, nargs, len);
    ((struct weft_ofi_msg_hdr *)(void *)hdr)->flags = HDR_FRAG_FIRST;
    const char *part = payload;
    size_t n = layer.frag_size - hlen, left = len;
    pthread_mutex_lock(&layer.frag_lock);
    /* Queued messages go first; the queue may hold another message's
     * remaining fragments. */
    ssize_t rc = __atomic_load_n(&layer.npend, __ATOMIC_RELAXED)
                     ? -FI_EAGAIN
                     : inject_fragment(pe, hdr, hlen, part, n);
    if (rc) {
        pthread_mutex_unlock(&layer.frag_lock);
        return rc;
    }
    struct weft_ofi_msg_hdr more = {.flags = HDR_FRAG_MORE, .src = (uint32_t)weft_rt.my_pe};
    int queued = 0;
    for (part += n, left -= n; left; part += n, left -= n) {
        n = left < layer.frag_size - sizeof more ? left : layer.frag_size - sizeof more;
        more.len = (uint32_t)n;
        rc = queued ? -FI_EAGAIN : inject_fragment(pe, &more, sizeof more, part, n);
        if (rc == -FI_EAGAIN) {
            char frag[WEFT_OFI_MSG_BUF_SIZE] __attribute__((aligned(16)));
            memcpy(frag, &more, sizeof more);
            memcpy(frag + sizeof more, part, n);
            memset(frag + sizeof more + n, 0, PAD8(sizeof more + n) - sizeof more - n);
            queue_pending(pe, frag, PAD8(sizeof more + n));
            queued = 1;
        } else if (rc) {
            weft_ofi_fail("fi_send (active message fragment)", pe, rc);
        }
    }
    pthread_mutex_unlock(&layer.frag_lock);
    /* Outside a handler a send returns once the provider has it all. */
    struct weft_ofi_retry r = {0, 0};
    while (queued && !in_handler && __atomic_load_n(&layer.npend, __ATOMIC_RELAXED))
        weft_ofi_retry_wait(NULL, &r, "fi_send (active message fragment)", pe);
    return 0;
}

/* Header, arguments and payload copied once, into a send buffer. */
static ssize_t send_copy(int pe, uint64_t id, const uint64_t *args, int nargs,
                         const void *payload, size_t len)
{
    struct send_buf *b = get_send_buf();
    if (!b)
        return -FI_EAGAIN;
    __atomic_store_n(&b->h.done, -1, __ATOMIC_RELEASE);
    struct iovec iov = {b->data, format_msg(b->data, id, args, nargs, payload, len)};
    return post_send(pe, b, &iov, 1);
}

/* A formatted message the provider did not take at once: queued from a
 * handler, else retried in order behind the queue while progressing. */
static void send_formatted(int pe, const char *msg, size_t total)
{
    if (in_handler) {
        queue_pending(pe, msg, total);
        return;
    }
    struct weft_ofi_retry r = {0, 0};
    for (;;) {
        weft_ofi_retry_wait(NULL, &r, "fi_send (active message)", pe);
        if (__atomic_load_n(&layer.npend, __ATOMIC_RELAXED))
            continue;
        ssize_t rc = try_send(pe, msg, total);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            weft_ofi_fail("fi_send (active message)", pe, rc);
    }
}

void weft_ofi_msg_send(int pe, uint64_t id, const uint64_t *args, int nargs, const void *payload,
                       size_t len)
{
    if (layer.batch_max) {
        if ((uint8_t)id != WEFT_OFI_MSG_H_AM)
            batch_flush_pe(pe);
        else if (batch_take(pe, id, args, nargs, payload, len))
            return;
    }
    size_t total = PAD8(WEFT_OFI_MSG_SIZE(nargs, len));
    int large = total > weft_ofi.fab.prov_inject;
    int fragments = large && layer.frag_size;
    int zero_copy = large && !fragments && len >= layer.zero_copy_min && !in_handler;
    if (!large && len < layer.inject_iov_min) {
        /* The common small message: formatted once, injected. */
        char small[WEFT_OFI_MSG_BUF_SIZE] __attribute__((aligned(16)));
        total = format_msg(small, id, args, nargs, payload, len);
        if (__atomic_load_n(&layer.npend, __ATOMIC_RELAXED) == 0) {
            ssize_t rc = fi_inject(weft_ofi_tx0.ep, small, total, (fi_addr_t)pe);
            if (WEFT_LIKELY(rc == 0))
                return;
            if (rc != -FI_EAGAIN)
                weft_ofi_fail("fi_send (active message)", pe, rc);
        }
        send_formatted(pe, small, total);
        return;
    }
    /* Larger: an injected iovec, or through a send buffer. */
    struct weft_ofi_retry r = {0, 0};
    for (;;) {
        /* Keep order behind anything already queued. */
        if (__atomic_load_n(&layer.npend, __ATOMIC_RELAXED) == 0) {
            ssize_t rc;
            if (fragments)
                rc = send_fragments(pe, id, args, nargs, payload, len);
            else if (zero_copy)
                rc = send_zero_copy(pe, id, args, nargs, payload, len);
            else if (large)
                rc = send_copy(pe, id, args, nargs, payload, len);
            else
                rc = inject_iov(pe, id, args, nargs, payload, len);
            if (rc == 0)
                return;
            if (rc != -FI_EAGAIN)
                weft_ofi_fail("fi_send (active message)", pe, rc);
        }
        if (in_handler) {
            char msg[WEFT_OFI_MSG_BUF_SIZE] __attribute__((aligned(16)));
            queue_pending(pe, msg, format_msg(msg, id, args, nargs, payload, len));
            return;
        }
        weft_ofi_retry_wait(NULL, &r, "fi_send (active message)", pe);
    }
}

void weft_ofi_msg_send_short(int pe, uint64_t id, const uint64_t *args, int nargs)
{
    struct {
        struct weft_ofi_msg_hdr h;
        uint64_t args[WEFT_OFI_MSG_MAX_ARGS];
    } m;
    size_t total = WEFT_OFI_MSG_SIZE(nargs, 0);
    /* Nothing queued and no batch open (for any PE): injected now;
     * otherwise it takes its place behind them (weft_ofi_msg_send). */
    if (WEFT_LIKELY((unsigned)nargs <= WEFT_OFI_MSG_MAX_ARGS && total <= weft_ofi.fab.prov_inject &&
                    __atomic_load_n(&layer.held, __ATOMIC_ACQUIRE) == 0)) {
        m.h.handler = (uint8_t)id;
        m.h.nargs = (uint8_t)nargs;
        m.h.flags = 0;
        m.h.len = 0;
        m.h.src = (uint32_t)weft_rt.my_pe;
        m.h.imm = (uint32_t)(id >> 32);
        for (int i = 0; i < nargs; i++)
            m.args[i] = args[i];
        if (WEFT_LIKELY(fi_inject(weft_ofi_tx0.ep, &m, total, (fi_addr_t)pe) == 0))
            return;
    }
    weft_ofi_msg_send(pe, id, args, nargs, NULL, 0);
}

/* ---- receiving ---------------------------------------------------------- */

static void dispatch_whole(const char *data, size_t got)
{
    struct weft_ofi_msg_hdr h;
    if (got >= sizeof h)
        memcpy(&h, data, sizeof h);
    size_t need = sizeof h + (size_t)h.nargs * sizeof(uint64_t);
    if (got < sizeof h || got < need || h.nargs > WEFT_OFI_MSG_MAX_ARGS || got < need + h.len ||
        h.handler >= WEFT_OFI_MSG_NHANDLERS || !layer.handlers[h.handler])
        weft_fatal("weft_ofi_progress", "malformed active message (%zu bytes, handler %u)", got,
                   got < sizeof h ? 0u : (unsigned)h.handler);
    uint64_t args[WEFT_OFI_MSG_MAX_ARGS];
    memcpy(args, data + sizeof h, (size_t)h.nargs * sizeof(uint64_t));
    layer.handlers[h.handler]((int)h.src, h.imm, args, h.nargs, data + need, h.len);
}

static void malformed_fragment(const char *why, uint32_t src)
{
    weft_fatal("weft_ofi_progress", "malformed active message fragment from PE %u: %s", src, why);
}

static struct frag_partial *take_partial(uint32_t src, int unlink)
{
    for (struct frag_partial **pp = &layer.partials; *pp; pp = &(*pp)->next) {
        struct frag_partial *f = *pp;
        if (f->src == src) {
            if (unlink)
                *pp = f->next;
            return f;
        }
    }
    return NULL;
}

/* A fragment: the first opens its sender's reassembly, each later one adds
 * its share; the last hands the whole message to its handler. */
static void fragment_arrived(const struct weft_ofi_msg_hdr *h, const char *data, size_t got)
{
    if (h->flags & HDR_FRAG_FIRST) {
        size_t want = sizeof *h + (size_t)h->nargs * sizeof(uint64_t) + h->len;
        if (h->nargs > WEFT_OFI_MSG_MAX_ARGS || want > WEFT_OFI_MSG_BUF_SIZE || got >= want)
            malformed_fragment("bad first fragment", h->src);
        if (take_partial(h->src, 0))
            malformed_fragment("a message begins inside another", h->src);
        struct frag_partial *f = layer.spare_partials;
        if (f)
            layer.spare_partials = f->next;
        else if (!(f = malloc(sizeof *f)))
            weft_fatal("weft_ofi_progress", "out of memory reassembling an active message");
        f->src = h->src;
        f->want = want;
        f->have = got;
        memcpy(f->data, data, got);
        f->next = layer.partials;
        layer.partials = f;
        return;
    }
    struct frag_partial *f = take_partial(h->src, 0);
    if (!f)
        malformed_fragment("no message to continue", h->src);
    if (got < sizeof *h + h->len || f->have + h->len > f->want)
        malformed_fragment("bad length", h->src);
    memcpy(f->data + f->have, data + sizeof *h, h->len);
    f->have += h->len;
    if (f->have < f->want)
        return;
    take_partial(h->src, 1);
    dispatch_whole(f->data, f->want);
    f->next = layer.spare_partials;
    layer.spare_partials = f;
}

/* A batch: its messages, in the order they were sent. */
static void dispatch_batch(const struct weft_ofi_msg_hdr *h, const char *data, size_t got)
{
    if (got - sizeof *h < h->len)
        weft_fatal("weft_ofi_progress", "malformed active message batch from PE %u (%zu bytes)",
                   h->src, got);
    const char *at = data + sizeof *h, *end = at + h->len;
    while (at < end) {
        struct weft_ofi_msg_hdr m;
        if ((size_t)(end - at) < sizeof m)
            break;
        memcpy(&m, at, sizeof m);
        size_t size = PAD8(sizeof m + (size_t)m.nargs * sizeof(uint64_t) + m.len);
        if (m.flags || m.len > WEFT_OFI_MSG_MAX_PAYLOAD || size > (size_t)(end - at))
            break;
        dispatch_whole(at, size);
        at += size;
    }
    if (at != end)
        weft_fatal("weft_ofi_progress", "malformed active message batch from PE %u at byte %zu",
                   h->src, (size_t)(at - data));
}

static void dispatch(const char *data, size_t got)
{
    const struct weft_ofi_msg_hdr *h = (const struct weft_ofi_msg_hdr *)(const void *)data;
    if (WEFT_UNLIKELY(got >= sizeof *h && h->flags)) {
        if (h->flags == HDR_BATCH)
            dispatch_batch(h, data, got);
        else
            fragment_arrived(h, data, got);
        return;
    }
    dispatch_whole(data, got);
}

/* One message in a multi-receive buffer, at buf. Senders pad messages to 8
 * bytes; a provider that laid one elsewhere gets it copied to an aligned
 * place first, as handlers read their payload's words in place. */
static void dispatch_multi(const char *buf, size_t got)
{
    if (WEFT_UNLIKELY((uintptr_t)buf & 7)) {
        uint64_t *aligned = got <= largest_msg() ? malloc(got) : NULL;
        if (!aligned)
            weft_fatal("weft_ofi_progress", "active message of %zu bytes", got);
        memcpy(aligned, buf, got);
        dispatch((const char *)aligned, got);
        free(aligned);
        return;
    }
    dispatch(buf, got);
}

/* A counting write's immediate data (ofi.h, WEFT_OFI_COUNT_DATA): its
 * bytes are visible (the provider reports the data only then), so the
 * counter may rise; a release add, read with acquire by shmemx_ct_wait and
 * shmemx_oct_wait. */
static void apply_count(uint64_t data)
{
    uint64_t off = data & ((1ull << WEFT_OFI_COUNT_OFF_BITS) - 1);
    uint64_t amount = data >> WEFT_OFI_COUNT_OFF_BITS;
    const struct weft_segment *heap = &weft_rt.seg[WEFT_SEG_HEAP];
    if (WEFT_UNLIKELY((off & 7) || off + 8 > heap->size))
        weft_fatal("weft_ofi_progress", "counter update %#llx outside the symmetric heap",
                   (unsigned long long)data);
    __atomic_fetch_add((uint64_t *)(void *)(heap->base + off), amount, __ATOMIC_RELEASE);
}

static void handle_error(void)
{
    struct fi_cq_err_entry err;
    if (weft_ofi_read_cq_error(weft_ofi.fab.cq, &err) != 0)
        return;
    if (err.flags & FI_RECV) {
        if (err.err == FI_ECANCELED)
            return;
        weft_fatal("weft_ofi_progress", "receive failed: %s", weft_ofi.last_err);
    }
    if (err.flags & FI_SEND)
        weft_fatal("weft_ofi_progress", "active message send failed: %s", weft_ofi.last_err);
    /* RMA/atomic errors are also counted on the error counters; the waiter
     * that sees them reports the op with last_err. */
    weft_debug("ofi: error completion: %s", weft_ofi.last_err);
}

void weft_ofi_msg_poll(void)
{
    if (!layer.up)
        return;
    in_handler = 1;
    drain_pending();
    if (layer.batch_max) {
        __atomic_add_fetch(&layer.epoch, 1, __ATOMIC_RELAXED);
        batch_flush_all();
    }
    struct fi_cq_data_entry ev[16];
    for (;;) {
        ssize_t n = fi_cq_read(weft_ofi.fab.cq, ev, 16);
        if (n == -FI_EAGAIN)
            break;
        if (n == -FI_EAVAIL) {
            handle_error();
            continue;
        }
        if (n < 0)
            weft_ofi_fail("fi_cq_read", -1, n);
        /* Relaxed: one drainer at a time; weft_ofi_served reads it. */
        __atomic_store_n(&weft_ofi.progress.msgs_served,
                         weft_ofi.progress.msgs_served + (unsigned long)n, __ATOMIC_RELAXED);
        for (ssize_t i = 0; i < n; i++) {
            if (ev[i].flags & FI_REMOTE_CQ_DATA) {
                apply_count(ev[i].data);
                continue;
            }
            if (!ev[i].op_context)
                continue;
            struct buf_head *h = ev[i].op_context;
            if (h->kind == BUF_MULTI) {
                /* FI_MULTI_RECV: the provider is done with the buffer (on
                 * this message's entry or on one of its own, empty). */
                if (ev[i].len)
                    dispatch_multi(ev[i].buf, ev[i].len);
                if ((ev[i].flags & FI_MULTI_RECV) && post_multi((struct multi_buf *)h) != 0)
                    weft_fatal("weft_ofi_progress", "cannot repost a receive buffer");
            } else if (h->kind == BUF_RECV) {
                struct msg_buf *b = (struct msg_buf *)h;
                dispatch(b->data, ev[i].len);
                if (post_fixed(b) != 0)
                    weft_fatal("weft_ofi_progress", "cannot repost a receive buffer");
            } else if (h->kind == BUF_SEND) {
                __atomic_sub_fetch(&layer.sends_out, 1, __ATOMIC_RELAXED);
                if (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) < 0)
                    put_send_buf((struct send_buf *)h);
                else /* its sender waits for this, then frees it */
                    __atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
            }
        }
        if (n < 16)
            break;
    }
    batch_flush_all();
    drain_pending();
    in_handler = 0;
}

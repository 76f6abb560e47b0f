/* ofi_msg.c owns the internal active-message layer (see ofi_msg.h): the
 * pre-posted receive buffers, the send buffer pool, the queue of sends that
 * could not go out from handler context, and the CQ drain that dispatches
 * handlers and recycles buffers. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

#define AM_SEND_BUFS 64

struct am_buf {
    struct fi_context2 ctx; /* harmless when the provider does not need it */
    int is_send;
    struct am_buf *next;
    char data[WEFT_AM_BUF_SIZE] __attribute__((aligned(16)));
};

struct am_pending {
    struct am_pending *next;
    int pe;
    size_t len;
    char data[];
};

static struct {
    struct am_buf *recv;
    size_t nrecv;
    struct fid_mr *recv_mr;
    struct am_buf *send;
    struct fid_mr *send_mr;
    struct am_buf *free_send;
    pthread_mutex_t lock; /* free_send and the pending queue */
    struct am_pending *pend_head, *pend_tail;
    int npend;
    /* Buffered sends the provider has not completed yet. */
    int sends_out;
    weft_am_handler_fn handlers[WEFT_AM_NHANDLERS];
    int up;
} am = {.lock = PTHREAD_MUTEX_INITIALIZER};

static __thread int am_in_handler;

int weft_am_in_handler(void) { return am_in_handler; }
int weft_am_sends_out(void) { return __atomic_load_n(&am.sends_out, __ATOMIC_RELAXED); }

void weft_am_register(int id, weft_am_handler_fn fn)
{
    if (id <= 0 || id >= WEFT_AM_NHANDLERS)
        weft_fatal("weft_am_register", "handler id %d out of range", id);
    am.handlers[id] = fn;
}

static void *buf_desc(struct fid_mr *mr) { return mr ? fi_mr_desc(mr) : NULL; }

static int post_recv(struct am_buf *b)
{
    struct weft_ofi_retry r = {0, 0};
    for (;;) {
        /* The CQ is bound with FI_SELECTIVE_COMPLETION (for RMA), which
         * covers receives too: ask for the completion explicitly. */
        struct iovec iov = {b->data, WEFT_AM_BUF_SIZE};
        void *desc = buf_desc(am.recv_mr);
        struct fi_msg m = {.msg_iov = &iov,
                           .desc = &desc,
                           .iov_count = 1,
                           .addr = FI_ADDR_UNSPEC,
                           .context = &b->ctx};
        ssize_t rc = fi_recvmsg(weft_ofi_tx0.ep, &m, FI_COMPLETION);
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

static int reg_bufs(struct am_buf *b, size_t n, struct fid_mr **mr, uint64_t access)
{
    *mr = NULL;
    if (!weft_ofi.mr_local)
        return 0;
    int rc = fi_mr_reg(weft_ofi.domain, b, n * sizeof *b, access, 0, 0, 0, mr, NULL);
    if (rc) {
        weft_warn("weft_ofi_init", "fi_mr_reg(active message buffers): %s", fi_strerror(-rc));
        return -1;
    }
    if (weft_ofi.mr_endpoint) {
        if ((rc = fi_mr_bind(*mr, &weft_ofi_tx0.ep->fid, 0)) != 0 || (rc = fi_mr_enable(*mr)) != 0) {
            weft_warn("weft_ofi_init", "binding active message buffers: %s", fi_strerror(-rc));
            return -1;
        }
    }
    return 0;
}

int weft_am_init(void)
{
    long long n = weft_tun_int(WEFT_TUN_AM_BUFFERS);
    if (n < 4)
        n = 4;
    if (n > 4096)
        n = 4096;
    am.nrecv = (size_t)n;
    if (posix_memalign((void **)&am.recv, 64, am.nrecv * sizeof *am.recv) ||
        posix_memalign((void **)&am.send, 64, AM_SEND_BUFS * sizeof *am.send)) {
        weft_warn("weft_ofi_init", "out of memory for active message buffers");
        return -1;
    }
    memset(am.recv, 0, am.nrecv * sizeof *am.recv);
    memset(am.send, 0, AM_SEND_BUFS * sizeof *am.send);
    if (reg_bufs(am.recv, am.nrecv, &am.recv_mr, FI_RECV) ||
        reg_bufs(am.send, AM_SEND_BUFS, &am.send_mr, FI_SEND))
        return -1;
    am.free_send = NULL;
    for (int i = AM_SEND_BUFS - 1; i >= 0; i--) {
        am.send[i].is_send = 1;
        am.send[i].next = am.free_send;
        am.free_send = &am.send[i];
    }
    for (size_t i = 0; i < am.nrecv; i++)
        if (post_recv(&am.recv[i]) != 0)
            return -1;
    am.up = 1;
    return 0;
}

void weft_am_fini(void)
{
    /* Called after the endpoint is closed: posted buffers are gone with it. */
    if (am.recv_mr)
        fi_close(&am.recv_mr->fid);
    if (am.send_mr)
        fi_close(&am.send_mr->fid);
    am.recv_mr = am.send_mr = NULL;
    free(am.recv);
    free(am.send);
    am.recv = am.send = NULL;
    while (am.pend_head) {
        struct am_pending *p = am.pend_head;
        am.pend_head = p->next;
        free(p);
    }
    am.pend_tail = NULL;
    am.npend = 0;
    am.up = 0;
}

/* Try to put one fully formatted message on the wire. 0, or -FI_EAGAIN. */
static ssize_t try_send(int pe, const void *msg, size_t len)
{
    struct fid_ep *ep = weft_ofi_tx0.ep;
    if (len <= weft_ofi.prov_inject)
        return fi_inject(ep, msg, len, (fi_addr_t)pe);
    pthread_mutex_lock(&am.lock);
    struct am_buf *b = am.free_send;
    if (b)
        am.free_send = b->next;
    pthread_mutex_unlock(&am.lock);
    if (!b)
        return -FI_EAGAIN;
    memcpy(b->data, msg, len);
    struct iovec iov = {b->data, len};
    void *desc = buf_desc(am.send_mr);
    struct fi_msg m = {.msg_iov = &iov,
                       .desc = &desc,
                       .iov_count = 1,
                       .addr = (fi_addr_t)pe,
                       .context = &b->ctx};
    __atomic_add_fetch(&am.sends_out, 1, __ATOMIC_RELAXED);
    ssize_t rc = fi_sendmsg(ep, &m, FI_COMPLETION);
    if (rc != 0) {
        __atomic_sub_fetch(&am.sends_out, 1, __ATOMIC_RELAXED);
        pthread_mutex_lock(&am.lock);
        b->next = am.free_send;
        am.free_send = b;
        pthread_mutex_unlock(&am.lock);
    }
    return rc;
}

static void queue_pending(int pe, const void *msg, size_t len)
{
    struct am_pending *p = malloc(sizeof *p + len);
    if (!p)
        weft_fatal("weft_am_send", "out of memory queueing a message to PE %d", pe);
    p->next = NULL;
    p->pe = pe;
    p->len = len;
    memcpy(p->data, msg, len);
    pthread_mutex_lock(&am.lock);
    if (am.pend_tail)
        am.pend_tail->next = p;
    else
        am.pend_head = p;
    am.pend_tail = p;
    __atomic_add_fetch(&am.npend, 1, __ATOMIC_RELAXED); /* also read unlocked */
    pthread_mutex_unlock(&am.lock);
}

/* Send queued messages in order; stop at the first that would block. */
static void drain_pending(void)
{
    if (!__atomic_load_n(&am.npend, __ATOMIC_RELAXED))
        return;
    for (;;) {
        pthread_mutex_lock(&am.lock);
        struct am_pending *p = am.pend_head;
        pthread_mutex_unlock(&am.lock);
        if (!p)
            return;
        ssize_t rc = try_send(p->pe, p->data, p->len);
        if (rc == -FI_EAGAIN)
            return;
        if (rc != 0)
            weft_ofi_fail("fi_send (queued active message)", p->pe, rc);
        pthread_mutex_lock(&am.lock);
        am.pend_head = p->next;
        if (!am.pend_head)
            am.pend_tail = NULL;
        __atomic_sub_fetch(&am.npend, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&am.lock);
        free(p);
    }
}

/* Lay out header, arguments and payload in msg; returns the length. */
static size_t format_msg(char *msg, int handler, const uint64_t *args, int nargs,
                         const void *payload, size_t len)
{
    if (nargs < 0 || nargs > WEFT_AM_MAX_ARGS || len > WEFT_AM_MAX_PAYLOAD)
        weft_fatal("weft_am_send", "message too large (%d args, %zu bytes)", nargs, len);
    struct weft_am_hdr *h = (struct weft_am_hdr *)(void *)msg;
    h->handler = (uint8_t)handler;
    h->nargs = (uint8_t)nargs;
    h->flags = 0;
    h->len = (uint32_t)len;
    h->src = (uint32_t)weft_rt.my_pe;
    h->pad = 0;
    size_t total = sizeof *h + (size_t)nargs * sizeof(uint64_t);
    if (nargs)
        memcpy(msg + sizeof *h, args, (size_t)nargs * sizeof(uint64_t));
    if (len)
        memcpy(msg + total, payload, len);
    return total + len;
}

void weft_am_send_from(struct weft_ofi_tx *tx, int pe, int handler, const uint64_t *args,
                       int nargs, const void *payload, size_t len)
{
    if (tx == &weft_ofi_tx0 || WEFT_AM_MSG_SIZE(nargs, len) > weft_ofi.prov_inject) {
        weft_am_send(pe, handler, args, nargs, payload, len);
        return;
    }
    char msg[WEFT_AM_BUF_SIZE] __attribute__((aligned(16)));
    size_t total = format_msg(msg, handler, args, nargs, payload, len);
    struct weft_ofi_retry r = {0, 0};
    ssize_t rc;
    while ((rc = fi_inject(tx->ep, msg, total, (fi_addr_t)pe)) == -FI_EAGAIN)
        weft_ofi_retry_wait(tx, &r, "fi_inject (active message)", pe);
    if (WEFT_UNLIKELY(rc))
        weft_ofi_fail("fi_inject (active message)", pe, rc);
}

void weft_am_send(int pe, int handler, const uint64_t *args, int nargs, const void *payload,
                  size_t len)
{
    char msg[WEFT_AM_BUF_SIZE] __attribute__((aligned(16)));
    size_t total = format_msg(msg, handler, args, nargs, payload, len);

    /* Keep order behind anything already queued. */
    if (__atomic_load_n(&am.npend, __ATOMIC_RELAXED) == 0) {
        ssize_t rc = try_send(pe, msg, total);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            weft_ofi_fail("fi_send (active message)", pe, rc);
    }
    if (am_in_handler) {
        queue_pending(pe, msg, total);
        return;
    }
    struct weft_ofi_retry r = {0, 0};
    for (;;) {
        weft_ofi_retry_wait(NULL, &r, "fi_send (active message)", pe);
        if (__atomic_load_n(&am.npend, __ATOMIC_RELAXED))
            continue;
        ssize_t rc = try_send(pe, msg, total);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            weft_ofi_fail("fi_send (active message)", pe, rc);
    }
}

static void dispatch(struct am_buf *b, size_t got)
{
    const struct weft_am_hdr *h = (const struct weft_am_hdr *)b->data;
    size_t need = sizeof *h + (size_t)h->nargs * sizeof(uint64_t);
    if (got < need || h->nargs > WEFT_AM_MAX_ARGS || got < need + h->len ||
        h->handler >= WEFT_AM_NHANDLERS || !am.handlers[h->handler])
        weft_fatal("weft_ofi_progress", "malformed active message (%zu bytes, handler %u)", got,
                   (unsigned)h->handler);
    uint64_t args[WEFT_AM_MAX_ARGS];
    memcpy(args, b->data + sizeof *h, (size_t)h->nargs * sizeof(uint64_t));
    am.handlers[h->handler]((int)h->src, args, h->nargs, b->data + need, h->len);
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
    if (weft_ofi_read_cq_error(weft_ofi.cq, &err) != 0)
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

void weft_am_poll(void)
{
    if (!am.up)
        return;
    am_in_handler = 1;
    drain_pending();
    struct fi_cq_data_entry ev[16];
    for (;;) {
        ssize_t n = fi_cq_read(weft_ofi.cq, ev, 16);
        if (n == -FI_EAGAIN)
            break;
        if (n == -FI_EAVAIL) {
            handle_error();
            continue;
        }
        if (n < 0)
            weft_ofi_fail("fi_cq_read", -1, n);
        /* Relaxed: one drainer at a time; weft_ofi_served reads it. */
        __atomic_store_n(&weft_ofi.msgs_served,
                         weft_ofi.msgs_served + (unsigned long)n, __ATOMIC_RELAXED);
        for (ssize_t i = 0; i < n; i++) {
            if (ev[i].flags & FI_REMOTE_CQ_DATA) {
                apply_count(ev[i].data);
                continue;
            }
            if (!ev[i].op_context)
                continue;
            struct am_buf *b = (struct am_buf *)ev[i].op_context;
            if (ev[i].flags & FI_RECV) {
                dispatch(b, ev[i].len);
                if (post_recv(b) != 0)
                    weft_fatal("weft_ofi_progress", "cannot repost a receive buffer");
            } else if (b->is_send) {
                __atomic_sub_fetch(&am.sends_out, 1, __ATOMIC_RELAXED);
                pthread_mutex_lock(&am.lock);
                b->next = am.free_send;
                am.free_send = b;
                pthread_mutex_unlock(&am.lock);
            }
        }
        if (n < 16)
            break;
    }
    drain_pending();
    am_in_handler = 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_msg.c owns the libfabric message layer (see ofi_msg.h): the
 * pre-posted receive buffers, the send buffer pool, the queue of sends that
 * could not go out from handler context, and the CQ drain that dispatches
 * handlers and recycles buffers. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msg.h"

#define MSG_SEND_BUFS 64

struct msg_buf {
    struct fi_context2 ctx; /* harmless when the provider does not need it */
    int is_send;
    struct msg_buf *next;
    char data[WEFT_OFI_MSG_BUF_SIZE] __attribute__((aligned(16)));
};

struct msg_pending {
    struct msg_pending *next;
    int pe;
    size_t len;
    char data[];
};

static struct {
    struct msg_buf *recv;
    size_t nrecv;
    struct fid_mr *recv_mr;
    struct msg_buf *send;
    struct fid_mr *send_mr;
    struct msg_buf *free_send;
    pthread_mutex_t lock; /* free_send and the pending queue */
    struct msg_pending *pend_head, *pend_tail;
    int npend;
    /* Buffered sends the provider has not completed yet. */
    int sends_out;
    weft_ofi_msg_handler_fn handlers[WEFT_OFI_MSG_NHANDLERS];
    int up;
} layer = {.lock = PTHREAD_MUTEX_INITIALIZER};

static __thread int in_handler;

int weft_ofi_msg_in_handler(void) { return in_handler; }
int weft_ofi_msg_sends_out(void) { return __atomic_load_n(&layer.sends_out, __ATOMIC_RELAXED); }

void weft_ofi_msg_register(int id, weft_ofi_msg_handler_fn fn)
{
    if (id <= 0 || id >= WEFT_OFI_MSG_NHANDLERS)
        weft_fatal("weft_ofi_msg_register", "handler id %d out of range", id);
    layer.handlers[id] = fn;
}

static void *buf_desc(struct fid_mr *mr) { return mr ? fi_mr_desc(mr) : NULL; }

static int post_recv(struct msg_buf *b)
{
    struct weft_ofi_retry r = {0, 0};
    for (;;) {
        /* The CQ is bound with FI_SELECTIVE_COMPLETION (for RMA), which
         * covers receives too: ask for the completion explicitly. */
        struct iovec iov = {b->data, WEFT_OFI_MSG_BUF_SIZE};
        void *desc = buf_desc(layer.recv_mr);
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

static int reg_bufs(struct msg_buf *b, size_t n, struct fid_mr **mr, uint64_t access)
{
    *mr = NULL;
    if (!weft_ofi.fab.mr_local)
        return 0;
    int rc = fi_mr_reg(weft_ofi.fab.domain, b, n * sizeof *b, access, 0, 0, 0, mr, NULL);
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

int weft_ofi_msg_init(void)
{
    long long n = weft_tun_int(WEFT_TUN_AM_BUFFERS);
    if (n < 4)
        n = 4;
    if (n > 4096)
        n = 4096;
    layer.nrecv = (size_t)n;
    if (posix_memalign((void **)&layer.recv, 64, layer.nrecv * sizeof *layer.recv) ||
        posix_memalign((void **)&layer.send, 64, MSG_SEND_BUFS * sizeof *layer.send)) {
        weft_warn("weft_ofi_init", "out of memory for active message buffers");
        return -1;
    }
    memset(layer.recv, 0, layer.nrecv * sizeof *layer.recv);
    memset(layer.send, 0, MSG_SEND_BUFS * sizeof *layer.send);
    if (reg_bufs(layer.recv, layer.nrecv, &layer.recv_mr, FI_RECV) ||
        reg_bufs(layer.send, MSG_SEND_BUFS, &layer.send_mr, FI_SEND))
        return -1;
    layer.free_send = NULL;
    for (int i = MSG_SEND_BUFS - 1; i >= 0; i--) {
        layer.send[i].is_send = 1;
        layer.send[i].next = layer.free_send;
        layer.free_send = &layer.send[i];
    }
    for (size_t i = 0; i < layer.nrecv; i++)
        if (post_recv(&layer.recv[i]) != 0)
            return -1;
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
    free(layer.send);
    layer.recv = layer.send = NULL;
    while (layer.pend_head) {
        struct msg_pending *p = layer.pend_head;
        layer.pend_head = p->next;
        free(p);
    }
    layer.pend_tail = NULL;
    layer.npend = 0;
    layer.up = 0;
}

/* Try to put one fully formatted message on the wire. 0, or -FI_EAGAIN. */
static ssize_t try_send(int pe, const void *msg, size_t len)
{
    struct fid_ep *ep = weft_ofi_tx0.ep;
    if (len <= weft_ofi.fab.prov_inject)
        return fi_inject(ep, msg, len, (fi_addr_t)pe);
    pthread_mutex_lock(&layer.lock);
    struct msg_buf *b = layer.free_send;
    if (b)
        layer.free_send = b->next;
    pthread_mutex_unlock(&layer.lock);
    if (!b)
        return -FI_EAGAIN;
    memcpy(b->data, msg, len);
    struct iovec iov = {b->data, len};
    void *desc = buf_desc(layer.send_mr);
    struct fi_msg m = {.msg_iov = &iov,
                       .desc = &desc,
                       .iov_count = 1,
                       .addr = (fi_addr_t)pe,
                       .context = &b->ctx};
    __atomic_add_fetch(&layer.sends_out, 1, __ATOMIC_RELAXED);
    ssize_t rc = fi_sendmsg(ep, &m, FI_COMPLETION);
    if (rc != 0) {
        __atomic_sub_fetch(&layer.sends_out, 1, __ATOMIC_RELAXED);
        pthread_mutex_lock(&layer.lock);
        b->next = layer.free_send;
        layer.free_send = b;
        pthread_mutex_unlock(&layer.lock);
    }
    return rc;
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
        pthread_mutex_unlock(&layer.lock);
        free(p);
    }
}

/* Lay out header, arguments and payload in msg; returns the length. */
static size_t format_msg(char *msg, uint64_t id, const uint64_t *args, int nargs,
                         const void *payload, size_t len)
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
    if (len)
        memcpy(msg + total, payload, len);
    return total + len;
}

void weft_ofi_msg_send_from(struct weft_ofi_tx *tx, int pe, uint64_t id, const uint64_t *args,
                            int nargs, const void *payload, size_t len)
{
    if (tx == &weft_ofi_tx0 || WEFT_OFI_MSG_SIZE(nargs, len) > weft_ofi.fab.prov_inject) {
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

void weft_ofi_msg_send(int pe, uint64_t id, const uint64_t *args, int nargs, const void *payload,
                       size_t len)
{
    char msg[WEFT_OFI_MSG_BUF_SIZE] __attribute__((aligned(16)));
    size_t total = format_msg(msg, id, args, nargs, payload, len);

    /* Keep order behind anything already queued. */
    if (__atomic_load_n(&layer.npend, __ATOMIC_RELAXED) == 0) {
        ssize_t rc = try_send(pe, msg, total);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            weft_ofi_fail("fi_send (active message)", pe, rc);
    }
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

void weft_ofi_msg_send_short(int pe, uint64_t id, const uint64_t *args, int nargs)
{
    struct {
        struct weft_ofi_msg_hdr h;
        uint64_t args[WEFT_OFI_MSG_MAX_ARGS];
    } m;
    size_t total = WEFT_OFI_MSG_SIZE(nargs, 0);
    if (WEFT_LIKELY((unsigned)nargs <= WEFT_OFI_MSG_MAX_ARGS && total <= weft_ofi.fab.prov_inject &&
                    __atomic_load_n(&layer.npend, __ATOMIC_RELAXED) == 0)) {
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

static void dispatch(struct msg_buf *b, size_t got)
{
    const struct weft_ofi_msg_hdr *h = (const struct weft_ofi_msg_hdr *)b->data;
    size_t need = sizeof *h + (size_t)h->nargs * sizeof(uint64_t);
    if (got < need || h->nargs > WEFT_OFI_MSG_MAX_ARGS || got < need + h->len ||
        h->handler >= WEFT_OFI_MSG_NHANDLERS || !layer.handlers[h->handler])
        weft_fatal("weft_ofi_progress", "malformed active message (%zu bytes, handler %u)", got,
                   (unsigned)h->handler);
    uint64_t args[WEFT_OFI_MSG_MAX_ARGS];
    memcpy(args, b->data + sizeof *h, (size_t)h->nargs * sizeof(uint64_t));
    layer.handlers[h->handler]((int)h->src, h->imm, args, h->nargs, b->data + need, h->len);
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
            struct msg_buf *b = (struct msg_buf *)ev[i].op_context;
            if (ev[i].flags & FI_RECV) {
                dispatch(b, ev[i].len);
                if (post_recv(b) != 0)
                    weft_fatal("weft_ofi_progress", "cannot repost a receive buffer");
            } else if (b->is_send) {
                __atomic_sub_fetch(&layer.sends_out, 1, __ATOMIC_RELAXED);
                pthread_mutex_lock(&layer.lock);
                b->next = layer.free_send;
                layer.free_send = b;
                pthread_mutex_unlock(&layer.lock);
            }
        }
        if (n < 16)
            break;
    }
    drain_pending();
    in_handler = 0;
}

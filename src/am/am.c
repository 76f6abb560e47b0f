/* SPDX-License-Identifier: BSD-3-Clause */
/* am.c owns the active-message engine (see am.h): the on-node channels in
 * the symmetric heap (one per node peer), their send and poll, and the adapter that carries
 * engine messages through the transport's messages (transport.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/scale.h"
#include "transport/transport.h"
#include "am/am.h"

static struct {
    struct am_area *mine;   /* this PE's area */
    uint64_t area_off;       /* heap offset of every PE's area */
    int *senders;            /* PEs that write to my channels: [i] owns chan[i] */
    int n_senders;
    int busy[2];             /* a thread drains requests [0] / replies [1] */
    struct weft_ctx ctx;     /* Long payloads through libfabric */
    pthread_mutex_t ctx_lock;
    int up;
} am = {.ctx_lock = PTHREAD_MUTEX_INITIALIZER};

struct weft_am_pos *weft_am_pos;
int weft_am_threaded;

/* ---- through libfabric ---------------------------------------------------
 * Message: args[0] = handler | kind << 8 | reply << 10 | carried << 11 |
 * nargs << 16 | len << 32; args[1] = dest_off (Long); then the 32-bit
 * arguments packed two per word. A Long payload of up to
 * WEFT_AM_MAX_MEDIUM bytes travels in the message itself (carried) and the
 * target copies it into its segment on arrival: a put completed remotely
 * before the header would cost a round trip per message, served only when
 * the target progresses (over tcp, milliseconds each on a loaded host). */
#define AM_LONG_CARRIED (1u << 11)
_Static_assert(2 + WEFT_AM_MAX_ARGS / 2 <= WEFT_TRANSPORT_MSG_MAX_ARGS, "message arguments");
_Static_assert(WEFT_AM_MAX_MEDIUM <= WEFT_TRANSPORT_MSG_MAX_PAYLOAD, "message payload");

/* A message that arrived through libfabric waits here for a poll of the
 * client's (weft_am_poll_local): the libfabric layer drains its queue from
 * any wait loop and from the progress thread, but a GASNet handler must run
 * only inside the client's own GASNet calls (a client allocates the
 * buffers its handlers fill after gasnet_attach, and polls when ready). */
struct am_arrived {
    struct am_arrived *next;
    struct weft_am_in m;
    int32_t args[WEFT_AM_MAX_ARGS];
    char payload[];
};
static struct am_arrived *arrived_head, **arrived_tail = &arrived_head;
static int n_arrived;
static pthread_mutex_t arrived_lock = PTHREAD_MUTEX_INITIALIZER;

/* The engine's handler of the transport's messages (registered at
 * set-up): a GASNet message, queued for the client's poll. */
static void queue_arrived(int src, uint32_t imm, const uint64_t *args, int nargs,
                          const void *payload, size_t len)
{
    (void)imm;
    if (nargs < 2)
        weft_fatal("gasnet_AMPoll", "malformed active message from node %d", src);
    uint64_t w = args[0];
    struct weft_am_in m = {.src = src,
                            .handler = (unsigned)(w & 0xff),
                            .kind = (unsigned)((w >> 8) & 3),
                            .reply = (int)((w >> 10) & 1),
                            .nargs = (int)((w >> 16) & 0xff)};
    if (m.nargs > WEFT_AM_MAX_ARGS || nargs < 2 + (m.nargs + 1) / 2)
        weft_fatal("gasnet_AMPoll", "malformed active message from node %d", src);
    size_t copy = m.kind == WEFT_AM_MEDIUM ? len : 0;
    struct am_arrived *a = malloc(sizeof *a + copy);
    if (!a)
        weft_fatal("gasnet_AMPoll", "out of memory for an arriving active message");
    a->next = NULL;
    memcpy(a->args, args + 2, (size_t)m.nargs * sizeof(int32_t));
    if (m.kind == WEFT_AM_LONG) {
        m.payload = weft_rt.seg[WEFT_SEG_HEAP].base + args[1];
        m.len = (size_t)(w >> 32);
        if ((w & AM_LONG_CARRIED) && m.len) {
            size_t seg = weft_rt.seg[WEFT_SEG_HEAP].size;
            if (len != m.len || args[1] > seg || m.len > seg - args[1])
                weft_fatal("gasnet_AMPoll", "malformed active message from node %d", src);
            memcpy(m.payload, payload, m.len);
        }
    } else if (copy) {
        memcpy(a->payload, payload, copy);
        m.payload = a->payload;
        m.len = copy;
    }
    m.args = a->args;
    a->m = m;
    pthread_mutex_lock(&arrived_lock);
    *arrived_tail = a;
    arrived_tail = &a->next;
    __atomic_add_fetch(&n_arrived, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&arrived_lock);
}

/* Run the handlers of queued libfabric messages, in arrival order. */
static int deliver_arrived(void)
{
    int n = 0;
    while (__atomic_load_n(&n_arrived, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&arrived_lock);
        struct am_arrived *a = arrived_head;
        if (a) {
            arrived_head = a->next;
            if (!arrived_head)
                arrived_tail = &arrived_head;
            __atomic_sub_fetch(&n_arrived, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&arrived_lock);
        if (!a)
            break;
        if (a->m.kind == WEFT_AM_MEDIUM && !a->m.len)
            a->m.payload = a->payload;
        weft_gn_deliver(&a->m);
        free(a);
        n++;
    }
    return n;
}

/* A Long reply from a handler running inside the libfabric poll cannot
 * wait for its payload's remote completion there (the poll holds the
 * progress lock, and the target may be this PE or one waiting for us in
 * turn): it is copied and sent by the next poll outside handlers. */
struct am_deferred {
    struct am_deferred *next;
    int pe;
    int32_t args[WEFT_AM_MAX_ARGS];
    struct weft_am_out m;
    char payload[];
};
static struct am_deferred *deferred_head, **deferred_tail = &deferred_head;
static int n_deferred;
static pthread_mutex_t deferred_lock = PTHREAD_MUTEX_INITIALIZER;

static void defer(int pe, const struct weft_am_out *m)
{
    struct am_deferred *d = malloc(sizeof *d + m->len);
    if (!d)
        weft_fatal("gasnet_AMReplyLong", "out of memory deferring a reply of %zu bytes", m->len);
    d->next = NULL;
    d->pe = pe;
    d->m = *m;
    if (m->nargs)
        memcpy(d->args, m->args, (size_t)m->nargs * sizeof(int32_t));
    if (m->len)
        memcpy(d->payload, m->payload, m->len);
    d->m.args = d->args;
    d->m.payload = d->payload;
    pthread_mutex_lock(&deferred_lock); /* not tx_lock: a send holding it may poll */
    *deferred_tail = d;
    deferred_tail = &d->next;
    __atomic_add_fetch(&n_deferred, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&deferred_lock);
}

static void ofi_send(int pe, const struct weft_am_out *m);

static void flush_deferred(void)
{
    while (__atomic_load_n(&n_deferred, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&deferred_lock);
        struct am_deferred *d = deferred_head;
        if (d) {
            deferred_head = d->next;
            if (!deferred_head)
                deferred_tail = &deferred_head;
            __atomic_sub_fetch(&n_deferred, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&deferred_lock);
        if (!d)
            return;
        ofi_send(d->pe, &d->m);
        free(d);
    }
}

static void ofi_send(int pe, const struct weft_am_out *m)
{
    uint64_t w[2 + WEFT_AM_MAX_ARGS / 2];
    int carried = m->kind == WEFT_AM_LONG && m->len && m->len <= WEFT_AM_MAX_MEDIUM;
    if (m->kind == WEFT_AM_LONG && m->len && !carried && weft_transport_msg_in_handler()) {
        defer(pe, m);
        return;
    }
    if (m->kind == WEFT_AM_LONG && m->len && !carried) {
        /* The payload is at the target before the header leaves: a put on
         * the engine's own context, completed remotely by its quiet. */
        pthread_mutex_lock(&am.ctx_lock);
        weft_transport_put(&am.ctx, WEFT_SEG_HEAP, m->dest_off, m->payload, m->len, pe);
        weft_transport_quiet(&am.ctx);
        pthread_mutex_unlock(&am.ctx_lock);
    }
    uint64_t len = m->kind == WEFT_AM_LONG ? m->len : 0;
    w[0] = (uint64_t)m->handler | (uint64_t)m->kind << 8 | (uint64_t)(m->reply != 0) << 10 |
           (uint64_t)(carried ? AM_LONG_CARRIED : 0) | (uint64_t)m->nargs << 16 | len << 32;
    w[1] = m->dest_off;
    memset(w + 2, 0, sizeof w - 2 * sizeof(uint64_t));
    if (m->nargs) /* args may be NULL without arguments */
        memcpy(w + 2, m->args, (size_t)m->nargs * sizeof(int32_t));
    int nw = 2 + (m->nargs + 1) / 2;
    if (m->kind == WEFT_AM_MEDIUM || carried)
        weft_transport_msg_send(pe, w, nw, m->payload, m->len);
    else
        weft_transport_msg_send(pe, w, nw, NULL, 0);
}

/* A Short request to a PE weft_am_short_request did not take: through
 * libfabric, the message built in registers and handed to the transport's
 * short send (ofi_send's layout, without its general cases); to this PE
 * itself, or a PE reached on-node after all, the general send. */
void weft_am_short_request_far(int pe, unsigned handler, int nargs, const int32_t *args)
{
    if (WEFT_UNLIKELY(pe == weft_rt.my_pe || weft_am_pos[pe].area != NULL)) {
        struct weft_am_out m = {handler, WEFT_AM_SHORT, 0, nargs, args, NULL, 0, 0};
        weft_am_send("gasnet_AMRequestShort", pe, &m);
        return;
    }
    uint64_t w[2 + WEFT_AM_MAX_ARGS / 2];
    int nw = 2 + (nargs + 1) / 2;
    w[0] = (uint64_t)handler | (uint64_t)WEFT_AM_SHORT << 8 | (uint64_t)nargs << 16;
    w[1] = 0;
    if (nargs) { /* the last word may be half filled */
        w[nw - 1] = 0;
        memcpy(w + 2, args, (size_t)nargs * sizeof(int32_t));
    }
    weft_transport_msg_send_short(pe, w, nw);
}

/* ---- on-node -------------------------------------------------------------- */

int weft_am_onnode(int pe) { return weft_am_pos[pe].area != NULL; }

void weft_am_short_wait_fill(struct weft_am_pos *pp, struct am_slot *s, uint64_t p,
                             unsigned handler, int nargs, const int32_t *args)
{
    weft_am_wait_slot(s, p, 0);
    weft_am_short_fill(pp, s, p, handler, nargs, args);
}

void weft_am_wait_slot(struct am_slot *s, uint64_t p, int reply)
{
    unsigned spins = 0;
    while (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != p) {
        /* From a handler only replies may run (they never send); elsewhere
         * everything, so our own full ring to ourselves drains too. */
        if (reply)
            weft_am_poll_onnode(1);
        else
            weft_am_poll_onnode(0);
        weft_poll_yield(&spins);
    }
}

static void onnode_send(int pe, const struct weft_am_out *m)
{
    struct am_chan *c = weft_am_pos[pe].out;
    int r = m->reply != 0;
    uint64_t *head = &weft_am_pos[pe].head[r];
    uint64_t p = weft_am_threaded ? __atomic_fetch_add(head, 1, __ATOMIC_RELAXED) : (*head)++;
    struct am_slot *s = r ? &c->rep[p % WEFT_AM_REP_SLOTS] : &c->req[p % WEFT_AM_REQ_SLOTS];
    if (WEFT_UNLIKELY(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != p))
        weft_am_wait_slot(s, p, r);
    s->h = (struct am_hdr){(uint8_t)m->handler, (uint8_t)m->kind, (uint8_t)m->nargs, (uint8_t)r};
    s->len = (uint32_t)m->len;
    for (int i = 0; i < m->nargs; i++)
        s->args[i] = m->args[i];
    if (m->kind == WEFT_AM_MEDIUM) {
        if (m->len)
            memcpy(s->payload, m->payload, m->len);
    } else if (m->kind == WEFT_AM_LONG) {
        s->dest_off = m->dest_off;
        if (m->len)
            memcpy(weft_transport_ptr(WEFT_SEG_HEAP, m->dest_off, pe), m->payload, m->len);
    }
    __atomic_store_n(&s->seq, p + 1, __ATOMIC_RELEASE);
    /* Unconditionally: testing it first would let the receiver clear it
     * between our test and our slot becoming visible (store-load order). */
    __atomic_store_n(&weft_am_pos[pe].area->exists, 1, __ATOMIC_RELEASE);
}

/* A message to this PE runs its handler at once, inside the call that
 * sends it, as GASNet's conduits run requests to self: a thread spinning on
 * puts or gets until such a handler sets a flag then ends without polling.
 * A Medium handler gets a copy it may write to; a Long payload is copied
 * into this PE's segment first. A request handler's reply to self nests
 * one level (a reply handler never sends). */
static void self_send(const struct weft_am_out *m)
{
    _Alignas(16) char medium[WEFT_AM_MAX_MEDIUM];
    struct weft_am_in in = {.src = weft_rt.my_pe,
                             .handler = m->handler,
                             .kind = m->kind,
                             .reply = m->reply,
                             .nargs = m->nargs,
                             .args = m->args,
                             .len = m->len};
    if (m->kind == WEFT_AM_MEDIUM) {
        if (m->len)
            memcpy(medium, m->payload, m->len);
        in.payload = medium;
    } else if (m->kind == WEFT_AM_LONG) {
        char *dst = weft_rt.seg[WEFT_SEG_HEAP].base + m->dest_off;
        if (m->len && dst != (const char *)m->payload)
            memmove(dst, m->payload, m->len);
        in.payload = dst;
    }
    weft_gn_deliver(&in);
}

void weft_am_send(const char *call, int pe, const struct weft_am_out *m)
{
    (void)call; /* for messages of the paths that may fail one day */
    if (WEFT_UNLIKELY(pe == weft_rt.my_pe))
        self_send(m);
    else if (WEFT_LIKELY(weft_am_pos[pe].area != NULL))
        onnode_send(pe, m);
    else
        ofi_send(pe, m);
}

/* Run what is ready in one ring of one sender. */
static int drain_ring(int src, struct am_slot *ring, unsigned nslots, uint64_t *tail)
{
    int n = 0;
    for (;;) {
        uint64_t p = *tail;
        struct am_slot *s = &ring[p % nslots];
        if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != p + 1)
            return n;
        struct weft_am_in in = {.src = src,
                                 .handler = s->h.handler,
                                 .kind = s->h.kind,
                                 .reply = s->h.reply,
                                 .nargs = s->h.nargs,
                                 .args = s->args,
                                 .len = s->len};
        if (s->h.kind == WEFT_AM_LONG)
            in.payload = weft_rt.seg[WEFT_SEG_HEAP].base + s->dest_off;
        else
            in.payload = s->payload;
        *tail = p + 1;
        weft_gn_deliver(&in);
        __atomic_store_n(&s->seq, p + nslots, __ATOMIC_RELEASE);
        n++;
    }
}

static int drain(int which)
{
    if (__atomic_exchange_n(&am.busy[which], 1, __ATOMIC_ACQUIRE)) {
        /* Another thread drains: make sure someone looks again. */
        __atomic_store_n(&am.mine->exists, 1, __ATOMIC_RELAXED);
        return 0;
    }
    int n = 0;
    for (int i = 0; i < am.n_senders; i++) {
        int src = am.senders[i];
        struct am_chan *c = &am.mine->chan[i];
        if (which)
            n += drain_ring(src, c->rep, WEFT_AM_REP_SLOTS, &weft_am_pos[src].tail[1]);
        else
            n += drain_ring(src, c->req, WEFT_AM_REQ_SLOTS, &weft_am_pos[src].tail[0]);
    }
    __atomic_store_n(&am.busy[which], 0, __ATOMIC_RELEASE);
    return n;
}

int weft_am_poll_onnode(int replies_only)
{
    struct am_area *a = am.mine;
    if (!a || !__atomic_load_n(&a->exists, __ATOMIC_RELAXED))
        return 0;
    /* Clear first: a message published after this exchange sets it again,
     * and one published before it is seen by the scan below. */
    __atomic_exchange_n(&a->exists, 0, __ATOMIC_ACQ_REL);
    int n = drain(1);
    if (!replies_only)
        n += drain(0);
    else /* requests stay for a poll outside the handler */
        __atomic_store_n(&a->exists, 1, __ATOMIC_RELAXED);
    if (n)
        __atomic_add_fetch(&weft_rt.onnode_msgs_served, (unsigned long)n, __ATOMIC_RELAXED);
    return n;
}

int weft_am_poll_local(void)
{
    int n = weft_am_poll_onnode(0);
    if (WEFT_UNLIKELY(__atomic_load_n(&n_arrived, __ATOMIC_RELAXED)))
        n += deliver_arrived();
    weft_am_flush();
    /* Replies from the handlers above, and requests batched since the
     * last poll, leave now. */
    weft_transport_msg_flush();
    return n;
}

void weft_am_poll(void)
{
    weft_transport_progress();
    weft_am_poll_local();
    if (WEFT_UNLIKELY(n_deferred) && !weft_transport_msg_in_handler())
        flush_deferred();
}

/* ---- setup ------------------------------------------------------------------ */

/* The PEs reached directly are this PE's node, the same set on each of
 * them (onnode.c keeps a node's mappings only where the whole node made
 * them): a sender's channel at every receiver is its rank in it, and no
 * node holds more PEs than the fullest host. */
static int area_channels(void)
{
    return weft_rt.most_host_pes > 0 ? weft_rt.most_host_pes : weft_rt.n_pes;
}

size_t weft_am_area_size(void)
{
    return sizeof(struct am_area) + (size_t)area_channels() * sizeof(struct am_chan);
}

void weft_am_init(int threaded)
{
    int n = weft_rt.n_pes;
    int n_chans = area_channels();
    size_t area = weft_am_area_size();
    weft_am_threaded = threaded;
    /* Indexed by PE, written only for the PEs reached directly: zero
     * pages elsewhere, so a PE on another host costs nothing here. */
    weft_am_pos = weft_scale_table_alloc((size_t)n, sizeof *weft_am_pos);
    am.senders = calloc((size_t)n_chans, sizeof *am.senders);
    if (!weft_am_pos || !am.senders)
        weft_fatal("gasnet_init", "out of memory for the active-message engine");
    weft_scale_note(WEFT_SCALE_AM_CHANNELS,
                    (size_t)n_chans * (sizeof(struct am_chan) + sizeof *am.senders));
    weft_scale_set_when(WEFT_SCALE_WHEN_GASNET, 1);
    /* Every PE allocates the same size in the same order: same offset. */
    am.mine = weft_heap_alloc(4096, area);
    if (!am.mine)
        weft_fatal("gasnet_init",
                   "the symmetric heap has no room for the active-message channels (%zu bytes); "
                   "raise SHMEM_SYMMETRIC_SIZE",
                   area);
    am.area_off = (uint64_t)((char *)am.mine - weft_rt.seg[WEFT_SEG_HEAP].base);
    am.mine->exists = 0;
    am.n_senders = 0;
    int my_chan = -1;
    for (int pe = 0; pe < n; pe++) {
        char *b = weft_transport_ptr(WEFT_SEG_HEAP, am.area_off, pe);
        if (!b)
            continue;
        if (am.n_senders == n_chans)
            weft_fatal("gasnet_init",
                       "internal: more PEs reached directly than any host runs (%d)", n_chans);
        if (pe == weft_rt.my_pe)
            my_chan = am.n_senders;
        am.senders[am.n_senders++] = pe;
        weft_am_pos[pe].area = (struct am_area *)(void *)b;
    }
    for (int i = 0; i < am.n_senders; i++) {
        int pe = am.senders[i];
        /* Not to ourselves: the inline Short request then takes
         * weft_am_send, which runs it at once (self_send). */
        if (pe != weft_rt.my_pe && my_chan >= 0)
            weft_am_pos[pe].out = &weft_am_pos[pe].area->chan[my_chan];
        struct am_chan *c = &am.mine->chan[i];
        for (unsigned k = 0; k < WEFT_AM_REQ_SLOTS; k++)
            c->req[k].seq = k;
        for (unsigned k = 0; k < WEFT_AM_REP_SLOTS; k++)
            c->rep[k].seq = k;
    }
    weft_scale_note(WEFT_SCALE_AM_TABLES,
                    weft_scale_table_resident(weft_am_pos, (size_t)n, sizeof *weft_am_pos));
    weft_transport_msg_register(queue_arrived);
    weft_transport_ctx_open_private(&am.ctx);
    am.up = 1;
    /* Peers write into our channels only after every PE initialized them. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    weft_barrier_all_internal();
}

void weft_am_fini(void)
{
    if (!am.up)
        return;
    weft_transport_ctx_close_private(&am.ctx);
    weft_scale_table_free(weft_am_pos, (size_t)weft_rt.n_pes, sizeof *weft_am_pos);
    free(am.senders);
    weft_scale_note(WEFT_SCALE_AM_TABLES, 0);
    weft_scale_note(WEFT_SCALE_AM_CHANNELS, 0);
    weft_scale_set_when(WEFT_SCALE_WHEN_GASNET, 0);
    weft_am_pos = NULL;
    am.senders = NULL;
    am.mine = NULL;
    am.up = 0;
}

void weft_am_flush(void)
{
    if (WEFT_UNLIKELY(__atomic_load_n(&n_deferred, __ATOMIC_ACQUIRE)) &&
        !weft_transport_msg_in_handler())
        flush_deferred();
}

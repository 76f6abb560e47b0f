/* am.c owns the active-message engine (see am.h): the on-node channels in
 * the symmetric heap, their send and poll, and the adapter that carries
 * engine messages through libfabric's message layer (ofi_msg.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_msg.h"
#include "transport/transport.h"
#include "am/am.h"

static struct {
    struct ame_area *mine;   /* this PE's area */
    struct ame_area **peer;  /* [pe]: pe's area in this process, or NULL */
    uint64_t area_off;       /* heap offset of every PE's area */
    int *senders;            /* PEs that write to my channels */
    int n_senders;
    int busy[2];             /* a thread drains requests [0] / replies [1] */
    struct weft_ofi_tx *tx;  /* Long payloads through libfabric */
    pthread_mutex_t tx_lock;
    int up;
} ame = {.tx_lock = PTHREAD_MUTEX_INITIALIZER};

struct weft_ame_pos *weft_ame_pos;
int weft_ame_threaded;

/* The libfabric message layer's handler id carrying engine messages. */
#define AME_OFI_HANDLER WEFT_AM_H_ENGINE

void weft_ame_sys_too_large(int nargs, size_t len)
{
    weft_fatal("weft_ame_sys_send", "message too large (%d arguments, %zu bytes)", nargs, len);
}

/* ---- through libfabric ---------------------------------------------------
 * Message: args[0] = handler | kind << 8 | reply << 10 | nargs << 16 |
 * len << 32; args[1] = dest_off (Long); then the 32-bit arguments packed two
 * per word. */
_Static_assert(2 + WEFT_AME_MAX_ARGS / 2 <= WEFT_AM_MAX_ARGS, "ofi message arguments");
_Static_assert(WEFT_AME_MAX_MEDIUM <= WEFT_AM_MAX_PAYLOAD, "ofi message payload");

/* A message that arrived through libfabric waits here for a poll of the
 * client's (weft_ame_poll_local): the libfabric layer drains its queue from
 * any wait loop and from the progress thread, but a GASNet handler must run
 * only inside the client's own GASNet calls (a client allocates the
 * buffers its handlers fill after gasnet_attach, and polls when ready). */
struct ame_arrived {
    struct ame_arrived *next;
    struct weft_ame_in m;
    int32_t args[WEFT_AME_MAX_ARGS];
    char payload[];
};
static struct ame_arrived *arrived_head, **arrived_tail = &arrived_head;
static int n_arrived;
static pthread_mutex_t arrived_lock = PTHREAD_MUTEX_INITIALIZER;

/* args[0] bit 11 (WEFT_AME_SYS_FLAG): a system message (am.h). */
#define AME_SYS_FLAG WEFT_AME_SYS_FLAG
static weft_ame_sys_fn sys_fn[WEFT_AME_SYS_N];

/* A GASNet message: queued for the client's poll. Out of line, so that
 * the dispatcher below keeps a small frame for the software atomics. */
static __attribute__((noinline)) void queue_arrived(int src, const uint64_t *args, int nargs,
                                                    const void *payload, size_t len)
{
    uint64_t w = args[0];
    struct weft_ame_in m = {.src = src,
                            .handler = (unsigned)(w & 0xff),
                            .kind = (unsigned)((w >> 8) & 3),
                            .reply = (int)((w >> 10) & 1),
                            .nargs = (int)((w >> 16) & 0xff)};
    if (m.nargs > WEFT_AME_MAX_ARGS || nargs < 2 + (m.nargs + 1) / 2)
        weft_fatal("gasnet_AMPoll", "malformed active message from node %d", src);
    size_t copy = m.kind == WEFT_AME_MEDIUM ? len : 0;
    struct ame_arrived *a = malloc(sizeof *a + copy);
    if (!a)
        weft_fatal("gasnet_AMPoll", "out of memory for an arriving active message");
    a->next = NULL;
    memcpy(a->args, args + 2, (size_t)m.nargs * sizeof(int32_t));
    if (m.kind == WEFT_AME_LONG) {
        m.payload = weft_rt.seg[WEFT_SEG_HEAP].base + args[1];
        m.len = (size_t)(w >> 32);
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

static void ofi_handler(int src, const uint64_t *args, int nargs, const void *payload,
                        size_t len)
{
    uint64_t w = args[0];
    if (!(w & AME_SYS_FLAG)) {
        queue_arrived(src, args, nargs, payload, len);
        return;
    }
    unsigned id = (unsigned)(w & 0xff);
    int na = (int)((w >> 16) & 0xff);
    if (WEFT_UNLIKELY(id >= WEFT_AME_SYS_N || !sys_fn[id] || na != nargs - 1))
        weft_fatal("weft_ofi_progress", "malformed engine message %u from PE %d", id, src);
    sys_fn[id](src, (uint32_t)(w >> 32), args + 1, na, payload, len);
}

/* Run the handlers of queued libfabric messages, in arrival order. */
static int deliver_arrived(void)
{
    int n = 0;
    while (__atomic_load_n(&n_arrived, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&arrived_lock);
        struct ame_arrived *a = arrived_head;
        if (a) {
            arrived_head = a->next;
            if (!arrived_head)
                arrived_tail = &arrived_head;
            __atomic_sub_fetch(&n_arrived, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&arrived_lock);
        if (!a)
            break;
        if (a->m.kind == WEFT_AME_MEDIUM && !a->m.len)
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
struct ame_deferred {
    struct ame_deferred *next;
    int pe;
    int32_t args[WEFT_AME_MAX_ARGS];
    struct weft_ame_out m;
    char payload[];
};
static struct ame_deferred *deferred_head, **deferred_tail = &deferred_head;
static int n_deferred;
static pthread_mutex_t deferred_lock = PTHREAD_MUTEX_INITIALIZER;

static void defer(int pe, const struct weft_ame_out *m)
{
    struct ame_deferred *d = malloc(sizeof *d + m->len);
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

static void ofi_send(int pe, const struct weft_ame_out *m);

static void flush_deferred(void)
{
    while (__atomic_load_n(&n_deferred, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&deferred_lock);
        struct ame_deferred *d = deferred_head;
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

static void ofi_send(int pe, const struct weft_ame_out *m)
{
    uint64_t w[2 + WEFT_AME_MAX_ARGS / 2];
    if (m->kind == WEFT_AME_LONG && m->len && weft_am_in_handler()) {
        defer(pe, m);
        return;
    }
    if (m->kind == WEFT_AME_LONG && m->len) {
        /* The payload is at the target before the header leaves: a put on
         * the engine's own context, completed remotely by its quiet. */
        pthread_mutex_lock(&ame.tx_lock);
        weft_ofi_put(ame.tx, WEFT_SEG_HEAP, m->dest_off, m->payload, m->len, pe);
        weft_ofi_quiet(ame.tx);
        pthread_mutex_unlock(&ame.tx_lock);
    }
    uint64_t len = m->kind == WEFT_AME_LONG ? m->len : 0;
    w[0] = (uint64_t)m->handler | (uint64_t)m->kind << 8 | (uint64_t)(m->reply != 0) << 10 |
           (uint64_t)m->nargs << 16 | len << 32;
    w[1] = m->dest_off;
    memset(w + 2, 0, sizeof w - 2 * sizeof(uint64_t));
    if (m->nargs) /* args may be NULL without arguments */
        memcpy(w + 2, m->args, (size_t)m->nargs * sizeof(int32_t));
    int nw = 2 + (m->nargs + 1) / 2;
    if (m->kind == WEFT_AME_MEDIUM)
        weft_am_send(pe, AME_OFI_HANDLER, w, nw, m->payload, m->len);
    else
        weft_am_send(pe, AME_OFI_HANDLER, w, nw, NULL, 0);
}

/* Idempotent: from the transport's setup (system messages) and from
 * gasnet_attach (weft_ame_init), whichever comes first. */
static void register_ofi(void) { weft_am_register(AME_OFI_HANDLER, ofi_handler); }

void weft_ame_sys_register(unsigned id, weft_ame_sys_fn fn)
{
    if (id >= WEFT_AME_SYS_N)
        weft_fatal("weft_ame_sys_register", "system message id %u out of range", id);
    sys_fn[id] = fn;
    register_ofi();
}

/* ---- on-node -------------------------------------------------------------- */

int weft_ame_onnode(int pe) { return ame.peer[pe] != NULL; }

void weft_ame_short_wait_fill(struct weft_ame_pos *pp, struct ame_slot *s, uint64_t p,
                              unsigned handler, int nargs, const int32_t *args)
{
    weft_ame_wait_slot(s, p, 0);
    weft_ame_short_fill(pp, s, p, handler, nargs, args);
}

void weft_ame_wait_slot(struct ame_slot *s, uint64_t p, int reply)
{
    unsigned spins = 0;
    while (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != p) {
        /* From a handler only replies may run (they never send); elsewhere
         * everything, so our own full ring to ourselves drains too. */
        if (reply)
            weft_ame_poll_onnode(1);
        else
            weft_ame_poll_onnode(0);
        weft_poll_yield(&spins);
    }
}

static void onnode_send(int pe, const struct weft_ame_out *m)
{
    struct ame_chan *c = weft_ame_pos[pe].out;
    int r = m->reply != 0;
    uint64_t *head = &weft_ame_pos[pe].head[r];
    uint64_t p = weft_ame_threaded ? __atomic_fetch_add(head, 1, __ATOMIC_RELAXED) : (*head)++;
    struct ame_slot *s = r ? &c->rep[p % WEFT_AME_REP_SLOTS] : &c->req[p % WEFT_AME_REQ_SLOTS];
    if (WEFT_UNLIKELY(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != p))
        weft_ame_wait_slot(s, p, r);
    s->h = (struct ame_hdr){(uint8_t)m->handler, (uint8_t)m->kind, (uint8_t)m->nargs, (uint8_t)r};
    s->len = (uint32_t)m->len;
    for (int i = 0; i < m->nargs; i++)
        s->args[i] = m->args[i];
    if (m->kind == WEFT_AME_MEDIUM) {
        if (m->len)
            memcpy(s->payload, m->payload, m->len);
    } else if (m->kind == WEFT_AME_LONG) {
        s->dest_off = m->dest_off;
        if (m->len)
            memcpy(weft_onnode_addr(WEFT_SEG_HEAP, m->dest_off, pe), m->payload, m->len);
    }
    __atomic_store_n(&s->seq, p + 1, __ATOMIC_RELEASE);
    /* Unconditionally: testing it first would let the receiver clear it
     * between our test and our slot becoming visible (store-load order). */
    __atomic_store_n(&ame.peer[pe]->exists, 1, __ATOMIC_RELEASE);
}

void weft_ame_send(const char *call, int pe, const struct weft_ame_out *m)
{
    (void)call; /* for messages of the paths that may fail one day */
    if (WEFT_LIKELY(ame.peer[pe] != NULL))
        onnode_send(pe, m);
    else
        ofi_send(pe, m);
}

/* Run what is ready in one ring of one sender. */
static int drain_ring(int src, struct ame_slot *ring, unsigned nslots, uint64_t *tail)
{
    int n = 0;
    for (;;) {
        uint64_t p = *tail;
        struct ame_slot *s = &ring[p % nslots];
        if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != p + 1)
            return n;
        struct weft_ame_in in = {.src = src,
                                 .handler = s->h.handler,
                                 .kind = s->h.kind,
                                 .reply = s->h.reply,
                                 .nargs = s->h.nargs,
                                 .args = s->args,
                                 .len = s->len};
        if (s->h.kind == WEFT_AME_LONG)
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
    if (__atomic_exchange_n(&ame.busy[which], 1, __ATOMIC_ACQUIRE)) {
        /* Another thread drains: make sure someone looks again. */
        __atomic_store_n(&ame.mine->exists, 1, __ATOMIC_RELAXED);
        return 0;
    }
    int n = 0;
    for (int i = 0; i < ame.n_senders; i++) {
        int src = ame.senders[i];
        struct ame_chan *c = &ame.mine->chan[src];
        if (which)
            n += drain_ring(src, c->rep, WEFT_AME_REP_SLOTS, &weft_ame_pos[src].tail[1]);
        else
            n += drain_ring(src, c->req, WEFT_AME_REQ_SLOTS, &weft_ame_pos[src].tail[0]);
    }
    __atomic_store_n(&ame.busy[which], 0, __ATOMIC_RELEASE);
    return n;
}

int weft_ame_poll_onnode(int replies_only)
{
    struct ame_area *a = ame.mine;
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

int weft_ame_poll_local(void)
{
    int n = weft_ame_poll_onnode(0);
    if (WEFT_UNLIKELY(__atomic_load_n(&n_arrived, __ATOMIC_RELAXED)))
        n += deliver_arrived();
    weft_ame_flush();
    return n;
}

void weft_ame_poll(void)
{
    weft_tx_progress();
    weft_ame_poll_local();
    if (WEFT_UNLIKELY(n_deferred) && !weft_am_in_handler())
        flush_deferred();
}

/* ---- setup ------------------------------------------------------------------ */

void weft_ame_init(int threaded)
{
    int n = weft_rt.n_pes;
    size_t area = sizeof(struct ame_area) + (size_t)n * sizeof(struct ame_chan);
    weft_ame_threaded = threaded;
    ame.peer = calloc((size_t)n, sizeof *ame.peer);
    weft_ame_pos = calloc((size_t)n, sizeof *weft_ame_pos);
    ame.senders = calloc((size_t)n, sizeof *ame.senders);
    if (!ame.peer || !weft_ame_pos || !ame.senders)
        weft_fatal("gasnet_init", "out of memory for the active-message engine");
    /* Every PE allocates the same size in the same order: same offset. */
    ame.mine = weft_heap_alloc(4096, area);
    if (!ame.mine)
        weft_fatal("gasnet_init",
                   "the symmetric heap has no room for the active-message channels (%zu bytes); "
                   "raise SHMEM_SYMMETRIC_SIZE",
                   area);
    ame.area_off = (uint64_t)((char *)ame.mine - weft_rt.seg[WEFT_SEG_HEAP].base);
    ame.mine->exists = 0;
    ame.n_senders = 0;
    for (int pe = 0; pe < n; pe++) {
        char *b = weft_onnode_addr(WEFT_SEG_HEAP, ame.area_off, pe);
        ame.peer[pe] = (struct ame_area *)(void *)b;
        if (b) {
            ame.senders[ame.n_senders++] = pe;
            weft_ame_pos[pe].out = &ame.peer[pe]->chan[weft_rt.my_pe];
            weft_ame_pos[pe].area = ame.peer[pe];
        }
        struct ame_chan *c = &ame.mine->chan[pe];
        for (unsigned i = 0; i < WEFT_AME_REQ_SLOTS; i++)
            c->req[i].seq = i;
        for (unsigned i = 0; i < WEFT_AME_REP_SLOTS; i++)
            c->rep[i].seq = i;
    }
    register_ofi();
    if (!weft_onnode.all_direct) {
        int own;
        ame.tx = weft_ofi_ctx_tx_create(1, &own);
        if (!ame.tx)
            ame.tx = &weft_ofi_tx0;
    }
    ame.up = 1;
    /* Peers write into our channels only after every PE initialized them. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    weft_barrier_all_internal();
}

void weft_ame_fini(void)
{
    if (!ame.up)
        return;
    if (ame.tx && ame.tx != &weft_ofi_tx0)
        weft_ofi_ctx_tx_destroy(ame.tx);
    ame.tx = NULL;
    free(ame.peer);
    free(weft_ame_pos);
    free(ame.senders);
    ame.peer = NULL;
    weft_ame_pos = NULL;
    ame.senders = NULL;
    ame.mine = NULL;
    ame.up = 0;
}

void weft_ame_flush(void)
{
    if (WEFT_UNLIKELY(__atomic_load_n(&n_deferred, __ATOMIC_ACQUIRE)) && !weft_am_in_handler())
        flush_deferred();
}

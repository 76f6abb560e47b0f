/* am.h owns weft's active-message engine: one way to run a handler on
 * another PE with up to WEFT_AME_MAX_ARGS 32-bit arguments and a payload,
 * with two paths chosen per peer the way RMA chooses them (transport.h):
 *
 *  - on-node, through the peers' mapped symmetric heap: every receiver owns
 *    one channel per sender, written only by that sender, with separate
 *    request and reply rings (a reply never waits behind requests), a
 *    sequence word per slot as its ready flag and one message-exists word
 *    per receiver, so an idle poll is one load and a send takes no lock and
 *    no system call. A Medium payload is copied once, into the slot; a Long
 *    payload straight into the target's mapped segment, then the header is
 *    published with release ordering;
 *  - through libfabric: the message layer of src/transport/ofi/ofi_msg.c
 *    (fi_inject for small messages, a registered send pool for larger ones,
 *    pre-posted receives), one handler id of it carrying every engine
 *    message; a Long payload is an RMA write completed at the target (quiet
 *    on the engine's own transmit context) before the header leaves.
 *
 * Handlers run only inside the client's polls (weft_ame_poll, from the
 * GASNet calls that poll or block): what libfabric delivers to
 * weft_ofi_progress (any wait loop, the progress thread) is queued for
 * them. Each message is handed to
 * weft_gn_deliver (src/gasnet/), their one consumer.
 *
 * The same engine carries weft's software atomics (src/transport/ofi/
 * ofi_amo.c: a datatype the provider cannot do natively, or a job that
 * mixes the direct path with libfabric): its "system" messages, below,
 * travel in the same libfabric message under the same handler id, but run
 * inside the progress engine as they arrive (any wait loop, the progress
 * thread), because an OpenSHMEM target never calls a GASNet poll. On-node
 * peers need none: an atomic there is the CPU's own, on the mapped heap. */
#ifndef WEFT_AM_H
#define WEFT_AM_H

#include <stddef.h>
#include <stdint.h>

#include "core/runtime.h"
#include "transport/ofi/ofi_msg.h"

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

#define WEFT_AME_MAX_ARGS 16
#define WEFT_AME_MAX_MEDIUM 4096 /* on every path (the libfabric buffers hold it) */
#define WEFT_AME_REQ_SLOTS 8     /* per sender at each receiver */
#define WEFT_AME_REP_SLOTS 8

enum weft_ame_kind { WEFT_AME_SHORT = 0, WEFT_AME_MEDIUM = 1, WEFT_AME_LONG = 2 };

/* A message as its consumer sees it. */
struct weft_ame_in {
    int src;            /* sending PE */
    unsigned handler;   /* 0..255 */
    unsigned kind;      /* enum weft_ame_kind */
    int reply;          /* 1 for a reply */
    int nargs;          /* 0..16 */
    const int32_t *args;
    void *payload;      /* Medium: valid during the handler; Long: in the segment */
    size_t len;
};

/* A message to send. Long: dest_off is the payload's offset in the
 * target's symmetric heap (the GASNet segment lies in it). */
struct weft_ame_out {
    unsigned handler;
    unsigned kind;
    int reply;
    int nargs;
    const int32_t *args;
    const void *payload;
    size_t len;
    uint64_t dest_off;
};

/* ---- the on-node channels' shared layout ------------------------------- */
/* One slot: the header on the first two cache lines, then the Medium
 * payload. seq is the ready flag of a bounded multi-producer ring: the
 * producer claiming position p waits for seq == p (slot free for this lap),
 * writes, then stores p + 1; the consumer at p waits for p + 1, runs the
 * handler, then stores p + RING (free for the next lap). So threads of one
 * PE can share a channel, and no flag is ever reset by the other side. */
struct ame_hdr {
    uint8_t handler, kind, nargs, reply; /* one 32-bit store when written whole */
};
struct ame_slot {
    uint64_t seq;
    struct ame_hdr h;
    uint32_t len;
    uint64_t dest_off;
    int32_t args[WEFT_AME_MAX_ARGS];
    char pad[128 - 88];
    char payload[WEFT_AME_MAX_MEDIUM];
};
_Static_assert(sizeof(struct ame_slot) == 128 + WEFT_AME_MAX_MEDIUM, "slot layout");

struct ame_chan {
    struct ame_slot req[WEFT_AME_REQ_SLOTS];
    struct ame_slot rep[WEFT_AME_REP_SLOTS];
};

/* A receiver's area: the message-exists word on a line of its own, then
 * one channel per PE of the job (indexed by sender). */
struct ame_area {
    uint64_t exists;
    char pad[4096 - 8];
    struct ame_chan chan[];
};

/* Sender- and receiver-private positions, one cache line per peer so the
 * threads of a PAR program sending to different peers do not share lines. */
struct weft_ame_pos {
    struct ame_chan *out;  /* our channel at that receiver, NULL if not on-node */
    struct ame_area *area; /* that receiver's area (its exists word) */
    uint64_t head[2];      /* next position to claim at that receiver: [0] req, [1] rep */
    uint64_t tail[2];      /* next position to consume from that sender */
    char pad[16];
};
extern struct weft_ame_pos *weft_ame_pos; /* [pe] */
extern int weft_ame_threaded;             /* several threads may send */

void weft_ame_wait_slot(struct ame_slot *s, uint64_t p, int reply);

static inline void weft_ame_short_fill(struct weft_ame_pos *pp, struct ame_slot *s, uint64_t p,
                                       unsigned handler, int nargs, const int32_t *args)
{
    s->h = (struct ame_hdr){(uint8_t)handler, WEFT_AME_SHORT, (uint8_t)nargs, 0};
    for (int i = 0; i < nargs; i++)
        s->args[i] = args[i];
    __atomic_store_n(&s->seq, p + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&pp->area->exists, 1, __ATOMIC_RELEASE);
}
/* The rest of a Short request whose slot is still in use (ring full). */
void weft_ame_short_wait_fill(struct weft_ame_pos *pp, struct ame_slot *s, uint64_t p,
                              unsigned handler, int nargs, const int32_t *args);

/* A Short request on-node, inline for the GASNet entry points: claim the
 * next request slot of our channel at pe, fill it, publish it. Returns 0,
 * or -1 when pe is not reached on-node (the caller takes weft_ame_send).
 * Leaf code on the common path: the full ring goes to a call. */
static inline int weft_ame_short_request(int pe, unsigned handler, int nargs, const int32_t *args)
{
    struct weft_ame_pos *pp = &weft_ame_pos[pe];
    struct ame_chan *c = pp->out;
    if (WEFT_UNLIKELY(!c))
        return -1;
    uint64_t p = weft_ame_threaded ? __atomic_fetch_add(&pp->head[0], 1, __ATOMIC_RELAXED)
                                   : pp->head[0]++;
    struct ame_slot *s = &c->req[p % WEFT_AME_REQ_SLOTS];
    if (WEFT_UNLIKELY(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != p)) {
        weft_ame_short_wait_fill(pp, s, p, handler, nargs, args);
        return 0;
    }
    weft_ame_short_fill(pp, s, p, handler, nargs, args);
    return 0;
}

/* Collective: set up the on-node channels (a symmetric allocation) and the
 * libfabric handler. threaded: several threads may send at once. */
void weft_ame_init(int threaded);
void weft_ame_fini(void);

/* Send to pe. A request waits for a free slot polling everything; a reply
 * (only from a request handler) polls replies only, which never send, so
 * two PEs replying to each other cannot deadlock. call names the API
 * routine in messages. */
void weft_ame_send(const char *call, int pe, const struct weft_ame_out *m);

/* Run the handlers of arrived messages. replies_only: from a handler that
 * waits for a reply slot. Returns the number of messages handled. */
int weft_ame_poll_onnode(int replies_only);

/* The engine's whole poll: libfabric progress, then weft_ame_poll_local. */
void weft_ame_poll(void);
/* Run the handlers of what arrived: the on-node channels, the messages the
 * libfabric layer queued, and send the deferred Long replies. Returns the
 * number of handlers run. Only from the client's GASNet calls. */
int weft_ame_poll_local(void);

/* Send what handlers inside the libfabric poll had to defer (Long
 * replies through libfabric). Called by polls outside handlers. */
void weft_ame_flush(void);

/* Implemented by the consumer (src/gasnet/core.c). */
void weft_gn_deliver(const struct weft_ame_in *m);

/* ---- system messages (weft's own users of the engine) ----------------
 * A 32-bit argument carried in the engine's header word (so a software
 * atomic's request stays within tcp;ofi_rxm's 64-byte inject size, which
 * fence-by-ordering needs), up to WEFT_AME_SYS_MAX_ARGS 64-bit arguments
 * and a payload of at most WEFT_AME_MAX_MEDIUM bytes, to a peer reached
 * through libfabric. The handler runs in the target's progress engine as
 * the message arrives and must not block; it may answer with
 * weft_ame_sys_send(NULL, ...). */
#define WEFT_AME_SYS_MAX_ARGS 8
enum {
    WEFT_AME_SYS_AMO_REQ = 0,
    WEFT_AME_SYS_AMO_REP = 1, /* also the acknowledgement of a put batch */
    WEFT_AME_SYS_PUT_BATCH = 2,
    WEFT_AME_SYS_SIGNAL_ADD = 3, /* a collective's counter signal, unanswered */
    WEFT_AME_SYS_N = 4
};
typedef void (*weft_ame_sys_fn)(int src, uint32_t a0, const uint64_t *args, int nargs,
                                const void *payload, size_t len);
/* From the transport's setup, before any message can arrive. */
void weft_ame_sys_register(unsigned id, weft_ame_sys_fn fn);
/* tx: send from that context's endpoint (kept in order behind its writes
 * where the provider orders them, as fence-by-ordering needs), or NULL for
 * the default one (required from a handler). On the wire: the header word,
 * then the arguments (the transport's WEFT_AM_AMO_MSG_SIZE counts them). */
#define WEFT_AME_SYS_FLAG ((uint64_t)1 << 11) /* in the header word */
WEFT_NORETURN void weft_ame_sys_too_large(int nargs, size_t len);
/* Inline: with the caller's constant argument count the header is built in
 * registers (a software atomic's round trip is the reason). Wire format:
 * id | flag | nargs << 16 | a0 << 32, then the arguments. */
static inline void weft_ame_sys_send(struct weft_ofi_tx *tx, int pe, unsigned id, uint32_t a0,
                                     const uint64_t *args, int nargs, const void *payload,
                                     size_t len)
{
    uint64_t w[1 + WEFT_AME_SYS_MAX_ARGS];
    if (WEFT_UNLIKELY(nargs > WEFT_AME_SYS_MAX_ARGS || len > WEFT_AME_MAX_MEDIUM))
        weft_ame_sys_too_large(nargs, len);
    w[0] = (uint64_t)id | WEFT_AME_SYS_FLAG | (uint64_t)nargs << 16 | (uint64_t)a0 << 32;
    for (int i = 0; i < nargs; i++)
        w[1 + i] = args[i];
    if (tx)
        weft_am_send_from(tx, pe, WEFT_AM_H_ENGINE, w, 1 + nargs, payload, len);
    else
        weft_am_send(pe, WEFT_AM_H_ENGINE, w, 1 + nargs, payload, len);
}

/* 1 when pe is reached through the on-node channels. */
int weft_ame_onnode(int pe);

#pragma GCC visibility pop

#endif

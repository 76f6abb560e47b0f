/* SPDX-License-Identifier: BSD-3-Clause */
/* am.h owns weft's active-message engine: one way to run a handler on
 * another PE with up to WEFT_AM_MAX_ARGS 32-bit arguments and a payload,
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
 *  - through libfabric: the transport's message layer, reached through
 *    transport.h (weft_transport_msg_send; one handler id carries every
 *    engine message); a Long payload of up to WEFT_AM_MAX_MEDIUM bytes
 *    travels in the message, a larger one is an RMA write completed at the
 *    target (quiet on the engine's own context) before the header leaves.
 *
 * A message to the sending PE itself runs its handler at once, inside the
 * send. Other handlers run only inside the client's polls (weft_am_poll,
 * from the GASNet calls that poll or block): what libfabric delivers to the
 * transport's progress (any wait loop, the progress thread) is queued for
 * them. Each message is handed to weft_gn_deliver (src/gasnet/), their
 * one consumer.
 *
 * The engine sits above the transports and nothing below includes it:
 * weft's software atomics are the libfabric transport's own messages,
 * and on-node peers need none (an atomic there is the CPU's own, on the
 * mapped heap). */
#ifndef WEFT_AM_H
#define WEFT_AM_H

#include <stddef.h>
#include <stdint.h>

#include "core/runtime.h"

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

#define WEFT_AM_MAX_ARGS 16
#define WEFT_AM_MAX_MEDIUM 4096 /* on every path (the libfabric buffers hold it) */
#define WEFT_AM_REQ_SLOTS 8     /* per sender at each receiver */
#define WEFT_AM_REP_SLOTS 8

enum weft_am_kind { WEFT_AM_SHORT = 0, WEFT_AM_MEDIUM = 1, WEFT_AM_LONG = 2 };

/* A message as its consumer sees it. */
struct weft_am_in {
    int src;            /* sending PE */
    unsigned handler;   /* 0..255 */
    unsigned kind;      /* enum weft_am_kind */
    int reply;          /* 1 for a reply */
    int nargs;          /* 0..16 */
    const int32_t *args;
    void *payload;      /* Medium: valid during the handler; Long: in the segment */
    size_t len;
};

/* A message to send. Long: dest_off is the payload's offset in the
 * target's symmetric heap (the GASNet segment lies in it). */
struct weft_am_out {
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
struct am_hdr {
    uint8_t handler, kind, nargs, reply; /* one 32-bit store when written whole */
};
struct am_slot {
    uint64_t seq;
    struct am_hdr h;
    uint32_t len;
    uint64_t dest_off;
    int32_t args[WEFT_AM_MAX_ARGS];
    char pad[128 - 88];
    char payload[WEFT_AM_MAX_MEDIUM];
};
_Static_assert(sizeof(struct am_slot) == 128 + WEFT_AM_MAX_MEDIUM, "slot layout");

struct am_chan {
    struct am_slot req[WEFT_AM_REQ_SLOTS];
    struct am_slot rep[WEFT_AM_REP_SLOTS];
};

/* A receiver's area: the message-exists word on a line of its own, then
 * one channel per PE of its node (indexed by the sender's rank among the
 * node's PEs in PE order), as many in every PE's area as the most PEs any
 * host runs, so that the areas are symmetric. */
struct am_area {
    uint64_t exists;
    char pad[4096 - 8];
    struct am_chan chan[];
};

/* Sender- and receiver-private positions, one cache line per peer so the
 * threads of a PAR program sending to different peers do not share lines. */
struct weft_am_pos {
    struct am_chan *out;  /* our channel at that receiver, NULL if not on-node */
    struct am_area *area; /* that receiver's area (its exists word) */
    uint64_t head[2];      /* next position to claim at that receiver: [0] req, [1] rep */
    uint64_t tail[2];      /* next position to consume from that sender */
    char pad[16];
};
/* [pe]: zero pages (out and area NULL) but for the PEs reached directly. */
extern struct weft_am_pos *weft_am_pos;
extern int weft_am_threaded;             /* several threads may send */

void weft_am_wait_slot(struct am_slot *s, uint64_t p, int reply);

static inline void weft_am_short_fill(struct weft_am_pos *pp, struct am_slot *s, uint64_t p,
                                      unsigned handler, int nargs, const int32_t *args)
{
    s->h = (struct am_hdr){(uint8_t)handler, WEFT_AM_SHORT, (uint8_t)nargs, 0};
    for (int i = 0; i < nargs; i++)
        s->args[i] = args[i];
    __atomic_store_n(&s->seq, p + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&pp->area->exists, 1, __ATOMIC_RELEASE);
}
/* The rest of a Short request whose slot is still in use (ring full). */
void weft_am_short_wait_fill(struct weft_am_pos *pp, struct am_slot *s, uint64_t p,
                             unsigned handler, int nargs, const int32_t *args);

/* A Short request on-node, inline for the GASNet entry points: claim the
 * next request slot of our channel at pe, fill it, publish it. Returns 0,
 * or -1 when pe is not reached on-node (the caller takes weft_am_send).
 * Leaf code on the common path: the full ring goes to a call. */
static inline int weft_am_short_request(int pe, unsigned handler, int nargs, const int32_t *args)
{
    struct weft_am_pos *pp = &weft_am_pos[pe];
    struct am_chan *c = pp->out;
    if (WEFT_UNLIKELY(!c))
        return -1;
    uint64_t p = weft_am_threaded ? __atomic_fetch_add(&pp->head[0], 1, __ATOMIC_RELAXED)
                                   : pp->head[0]++;
    struct am_slot *s = &c->req[p % WEFT_AM_REQ_SLOTS];
    if (WEFT_UNLIKELY(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != p)) {
        weft_am_short_wait_fill(pp, s, p, handler, nargs, args);
        return 0;
    }
    weft_am_short_fill(pp, s, p, handler, nargs, args);
    return 0;
}

/* The same request to a PE weft_am_short_request returned -1 for (through
 * libfabric, or this PE itself). */
void weft_am_short_request_far(int pe, unsigned handler, int nargs, const int32_t *args);

/* Collective: set up the on-node channels (a symmetric allocation) and the
 * libfabric handler. threaded: several threads may send at once. */
void weft_am_init(int threaded);
void weft_am_fini(void);
/* Bytes of the symmetric heap weft_am_init takes for this PE's channels
 * (the same on every PE; valid once shmem_init has run). */
size_t weft_am_area_size(void);

/* Send to pe (to this PE: the handler runs before it returns). A request
 * waits for a free slot polling everything; a reply
 * (only from a request handler) polls replies only, which never send, so
 * two PEs replying to each other cannot deadlock. call names the API
 * routine in messages. */
void weft_am_send(const char *call, int pe, const struct weft_am_out *m);

/* Run the handlers of arrived messages. replies_only: from a handler that
 * waits for a reply slot. Returns the number of messages handled. */
int weft_am_poll_onnode(int replies_only);

/* The engine's whole poll: libfabric progress, then weft_am_poll_local. */
void weft_am_poll(void);
/* Run the handlers of what arrived: the on-node channels, the messages the
 * libfabric layer queued, and send the deferred Long replies. Returns the
 * number of handlers run. Only from the client's GASNet calls. */
int weft_am_poll_local(void);

/* Send what handlers inside the libfabric poll had to defer (Long
 * replies through libfabric). Called by polls outside handlers. */
void weft_am_flush(void);

/* Implemented by the consumer (src/gasnet/core.c). */
void weft_gn_deliver(const struct weft_am_in *m);

/* 1 when pe is reached through the on-node channels. */
int weft_am_onnode(int pe);

#pragma GCC visibility pop

#endif

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
 * Handlers run only inside polls: weft_ame_poll (the GASNet calls that
 * poll or block) and, for messages through libfabric, weft_ofi_progress
 * (every wait loop and the progress thread). Each message is handed to
 * weft_gn_deliver (src/gasnet/), the one consumer; weft's software atomics
 * use the same libfabric message layer under their own handler ids. */
#ifndef WEFT_AM_H
#define WEFT_AM_H

#include <stddef.h>
#include <stdint.h>

#include "../core/runtime.h"

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

/* The engine's whole poll: on-node channels, then libfabric progress. */
void weft_ame_poll(void);

/* Send what handlers inside the libfabric poll had to defer (Long
 * replies through libfabric). Called by polls outside handlers. */
void weft_ame_flush(void);

/* Implemented by the consumer (src/gasnet/core.c). */
void weft_gn_deliver(const struct weft_ame_in *m);

/* 1 when pe is reached through the on-node channels. */
int weft_ame_onnode(int pe);

#pragma GCC visibility pop

#endif

/* ofi_msg.h owns weft's internal active-message layer over libfabric
 * FI_MSG: a message is a small header (handler id, argument count, payload
 * length) + up to WEFT_AM_MAX_ARGS 64-bit arguments + a payload. The target
 * runs the handler from its progress engine (weft_ofi_progress, called by
 * every wait loop and by the progress thread); a handler may reply with
 * weft_am_send to the source. Receives are pre-posted fixed buffers (no
 * FI_MULTI_RECV: FI_OPT_MIN_MULTI_RECV crashes libfabric 1.17, see
 * docs/providers.md). Its one user is the active-message engine (src/am/),
 * which carries both GASNet's messages and weft's software atomics under
 * the handler id WEFT_AM_H_ENGINE. */
#ifndef WEFT_OFI_MSG_H
#define WEFT_OFI_MSG_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* 10 arguments and 4 KiB of payload: what the active-message engine
 * (src/am/) needs for a GASNet Medium message with 16 arguments. */
#define WEFT_AM_MAX_ARGS 10
#define WEFT_AM_BUF_SIZE 4224 /* bytes per posted receive buffer */

struct weft_am_hdr {
    uint8_t handler;
    uint8_t nargs;
    uint16_t flags;
    uint32_t len;   /* payload bytes following the args */
    uint32_t src;   /* sender's PE */
    uint32_t pad;
    /* uint64_t args[nargs]; payload[len] */
};

#define WEFT_AM_MAX_PAYLOAD \
    (WEFT_AM_BUF_SIZE - sizeof(struct weft_am_hdr) - WEFT_AM_MAX_ARGS * sizeof(uint64_t))

/* A handler runs in the progress engine of the target (main thread or the
 * progress thread); it must not block. payload is valid only during the call. */
typedef void (*weft_am_handler_fn)(int src_pe, const uint64_t *args, int nargs,
                                   const void *payload, size_t len);

/* Handler ids. Internal ids are fixed; 16..63 are for the future AM API. */
enum {
    WEFT_AM_H_ENGINE = 3, /* every message of the active-message engine (src/am/) */
    WEFT_AM_H_USER_FIRST = 16,
    WEFT_AM_NHANDLERS = 64
};

void weft_am_register(int id, weft_am_handler_fn fn);

/* Send an active message to pe. From a handler (progress context) a send
 * that would block is queued and retried by the progress engine; from
 * anywhere else the call progresses until the message is accepted. */
void weft_am_send(int pe, int handler, const uint64_t *args, int nargs, const void *payload,
                  size_t len);

/* The same from a context's transmit resources: a small message leaves
 * from tx's own endpoint with fi_inject (so the provider keeps it in order
 * behind that endpoint's writes: weft_ofi.ordered), progressing tx until
 * the provider takes it; the default context's, or one larger than the
 * provider's inject size, goes through weft_am_send. Not from a handler. */
struct weft_ofi_tx;
void weft_am_send_from(struct weft_ofi_tx *tx, int pe, int handler, const uint64_t *args,
                       int nargs, const void *payload, size_t len);
/* Bytes of a message with nargs arguments and len payload bytes. */
#define WEFT_AM_MSG_SIZE(nargs, len) \
    (sizeof(struct weft_am_hdr) + (size_t)(nargs) * sizeof(uint64_t) + (size_t)(len))
/* A software atomic's request as the engine sends it (its header word and
 * 3 arguments, 16 bytes of operands: 64 bytes, tcp;ofi_rxm's inject size),
 * which fence-by-ordering needs to inject from a context's endpoint
 * (src/am/am.h, weft_ame_sys_send). */
#define WEFT_AM_AMO_MSG_SIZE WEFT_AM_MSG_SIZE(1 + 3, 16)

/* Setup/teardown (called from ofi_init.c once the endpoint is enabled). */
int weft_am_init(void);
void weft_am_fini(void);
/* Drain the CQ (caller holds the progress lock). */
void weft_am_poll(void);
/* 1 while the calling thread is inside weft_am_poll (handler context). */
int weft_am_in_handler(void);
/* Buffered sends (larger than the inject size) the provider has not
 * reported complete. */
int weft_am_sends_out(void);

#pragma GCC visibility pop

#endif

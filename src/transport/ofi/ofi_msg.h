/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_msg.h owns the libfabric transport's message layer over FI_MSG: a
 * message is a small header (handler id, argument count, a 32-bit
 * immediate, payload length) + up to WEFT_OFI_MSG_MAX_ARGS 64-bit arguments
 * + a payload. The target runs the handler from its progress engine
 * (weft_ofi_progress, called by every wait loop and by the progress
 * thread); a handler may reply with weft_ofi_msg_send to the source.
 * Receives land in a few FI_MULTI_RECV buffers the provider fills message
 * after message where it can (WEFT_AM_MULTI_RECV, docs/providers.md), else
 * in pre-posted fixed buffers of one message each. A message above the
 * inject size goes as injected fragments the target reassembles where the
 * provider injects 1 KiB or more in order (WEFT_AM_FRAGMENTS: shm), as
 * header + payload (iovec) from the caller's buffer where that pays
 * (WEFT_AM_ZERO_COPY), else copied once into a send buffer. The
 * active-message engine's messages to a PE that arrive faster than this PE
 * polls are batched into one provider message (WEFT_AM_BATCH) where
 * receives land in multi-receive buffers.
 * Its users: the transport's own software atomics, collective signals and
 * coalesced put batches (ofi_amo.c, ofi_coalesce.c), and, through
 * transport.h, the active-message engine above the transports (src/am/),
 * each under handler ids of its own, registered once at set-up. */
#ifndef WEFT_OFI_MSG_H
#define WEFT_OFI_MSG_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* 10 arguments and 4 KiB of payload: what the active-message engine
 * (src/am/) needs for a GASNet Medium message with 16 arguments. */
#define WEFT_OFI_MSG_MAX_ARGS 10
#define WEFT_OFI_MSG_BUF_SIZE 4224 /* bytes per posted receive buffer */

struct weft_ofi_msg_hdr {
    uint8_t handler;
    uint8_t nargs;
    uint16_t flags;
    uint32_t len; /* payload bytes following the args */
    uint32_t src; /* sender's PE */
    uint32_t imm; /* the sender's 32-bit immediate, handed to the handler */
    /* uint64_t args[nargs]; payload[len] */
};

#define WEFT_OFI_MSG_MAX_PAYLOAD                                \
    (WEFT_OFI_MSG_BUF_SIZE - sizeof(struct weft_ofi_msg_hdr) - \
     WEFT_OFI_MSG_MAX_ARGS * sizeof(uint64_t))

/* A handler runs in the progress engine of the target (main thread or the
 * progress thread); it must not block. payload is valid only during the
 * call. */
typedef void (*weft_ofi_msg_handler_fn)(int src_pe, uint32_t imm, const uint64_t *args, int nargs,
                                        const void *payload, size_t len);

/* Handler ids, one per kind of message. */
enum {
    WEFT_OFI_MSG_H_AM = 1,         /* the active-message engine's (src/am/) */
    WEFT_OFI_MSG_H_AMO_REQ = 2,    /* a software atomic (ofi_amo.c) */
    WEFT_OFI_MSG_H_AMO_REP = 3,    /* its reply; also a put batch's acknowledgement */
    WEFT_OFI_MSG_H_PUT_BATCH = 4,  /* coalesced puts (ofi_coalesce.c) */
    WEFT_OFI_MSG_H_SIGNAL_ADD = 5, /* a collective's counter signal, unanswered */
    WEFT_OFI_MSG_NHANDLERS = 8
};

/* A message's handler id and 32-bit immediate in one argument (the send
 * calls keep their arguments in registers). */
#define WEFT_OFI_MSG_ID(handler, imm) ((uint64_t)(handler) | (uint64_t)(uint32_t)(imm) << 32)

/* At set-up, before any message of that id can arrive. */
void weft_ofi_msg_register(int id, weft_ofi_msg_handler_fn fn);

/* Send a message to pe (id: WEFT_OFI_MSG_ID). From a handler (progress context) a send that
 * would block is queued and retried by the progress engine; from anywhere
 * else the call progresses until the message is accepted. */
void weft_ofi_msg_send(int pe, uint64_t id, const uint64_t *args, int nargs, const void *payload,
                       size_t len);

/* Send the batches of the active-message engine's messages gathered so
 * far (ofi_msg.c, "batches"): at the end of the engine's polls. */
void weft_ofi_msg_flush(void);

/* A message with no payload (id, args as weft_ofi_msg_send): injected
 * from a header and the arguments laid out on the stack when nothing is
 * queued and the provider takes it whole, else weft_ofi_msg_send. */
void weft_ofi_msg_send_short(int pe, uint64_t id, const uint64_t *args, int nargs);

/* The same from a context's transmit resources: a small message leaves
 * from tx's own endpoint with fi_inject (so the provider keeps it in order
 * behind that endpoint's writes: weft_ofi.order.ordered), progressing tx until
 * the provider takes it; the default context's, or one larger than the
 * provider's inject size, goes through weft_ofi_msg_send. Not from a
 * handler. */
struct weft_ofi_tx;
void weft_ofi_msg_send_from(struct weft_ofi_tx *tx, int pe, uint64_t id, const uint64_t *args,
                            int nargs, const void *payload, size_t len);
/* Bytes of a message with nargs arguments and len payload bytes. */
#define WEFT_OFI_MSG_SIZE(nargs, len) \
    (sizeof(struct weft_ofi_msg_hdr) + (size_t)(nargs) * sizeof(uint64_t) + (size_t)(len))
/* A software atomic's request (3 arguments, 16 bytes of operands: 56
 * bytes, within tcp;ofi_rxm's inject size of 64), which fence-by-ordering
 * needs to inject from a context's endpoint. */
#define WEFT_OFI_MSG_AMO_SIZE WEFT_OFI_MSG_SIZE(3, 16)

/* How receives are posted, decided at start-up. */
enum weft_ofi_msg_recv_mode { WEFT_OFI_MSG_RECV_POSTED, WEFT_OFI_MSG_RECV_MULTI };
enum weft_ofi_msg_recv_mode weft_ofi_msg_recv_mode(void);
/* Smallest payload sent from the caller's buffer, SIZE_MAX: never. */
size_t weft_ofi_msg_zero_copy_min(void);
/* 1 unless WEFT_AM_MULTI_RECV=off: the provider is asked for FI_MULTI_RECV. */
int weft_ofi_msg_multi_wanted(void);
struct fid_ep;
/* The default endpoint, bound but not enabled: decide the receive mode
 * (and set what must be set before fi_enable). 0. */
int weft_ofi_msg_ep_prepare(struct fid_ep *ep);
/* Set-up and teardown (ofi_init.c, once the endpoint is enabled). */
int weft_ofi_msg_init(void);
void weft_ofi_msg_fini(void);
/* Drain the CQ (caller holds the progress lock). */
void weft_ofi_msg_poll(void);
/* 1 while the calling thread is inside weft_ofi_msg_poll (handler context). */
int weft_ofi_msg_in_handler(void);
/* Buffered sends (larger than the inject size) the provider has not
 * reported complete. */
int weft_ofi_msg_sends_out(void);

#pragma GCC visibility pop

#endif

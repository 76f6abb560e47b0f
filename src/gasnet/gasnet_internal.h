/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_internal.h owns the state of weft's GASNet-1 layer shared by its
 * sources (core.c: init, attach, active messages; extended.c: puts, gets,
 * syncs; barrier.c; vis.c): the handler table, the segment of every node
 * and the checks every entry point makes (attached, node range, address in
 * the node's segment), which name the call and the argument. */
#ifndef WEFT_GASNET_INTERNAL_H
#define WEFT_GASNET_INTERNAL_H

#include <gasnet.h>

#include "am/am.h"
#include "core/runtime.h"
#include "transport/transport.h"

#pragma GCC visibility push(hidden)

#define WEFT_GN_H_BARRIER 1 /* internal handler indexes: 1..127 */
#define WEFT_GN_H_EXIT 2

struct weft_gasnet_token {
    int src;
    int is_request;
    int replied;
};

struct weft_gn_state {
    int inited;
    int attached;
    int mode;                  /* WEFT_GASNET_THREAD_MODE of gasnet_init */
    size_t max_long;           /* AMMaxLongRequest/Reply (WEFT_GASNET_MAX_LONG) */
    void (*handlers[256])();
    uint64_t seg_off;          /* heap offset of the segment, the same on every node */
};
extern struct weft_gn_state weft_gn;

/* The handler running on this thread, NULL outside handlers. */
extern __thread struct weft_gasnet_token *weft_gn_cur __attribute__((tls_model("initial-exec")));

WEFT_NORETURN void weft_gn_fail_attach(const char *call);
WEFT_NORETURN void weft_gn_fail_in_handler(const char *call);
WEFT_NORETURN void weft_gn_fail_node(const char *call, const char *arg, gasnet_node_t node);
WEFT_NORETURN void weft_gn_fail_segment(const char *call, const char *arg, int node,
                                        const void *addr, size_t len);

static inline void weft_gn_check(const char *call, gasnet_node_t node)
{
    if (WEFT_UNLIKELY(!weft_gn.attached)) /* icount-check: attached */
        weft_gn_fail_attach(call);
    if (WEFT_UNLIKELY(node >= (gasnet_node_t)weft_rt.n_pes)) /* icount-check: node range */
        weft_gn_fail_node(call, "node", node);
}

/* Heap offset of [addr, addr + len) in node's segment, or the job ends. */
static inline uint64_t weft_gn_off(const char *call, const char *arg, gasnet_node_t node,
                                   const void *addr, size_t len)
{
    const struct weft_gasnet_fast_node *s = &weft_gasnet_fast[node];
    uintptr_t d = (uintptr_t)addr - s->base;
    if (WEFT_UNLIKELY(d >= s->size || len > s->size - d)) { /* icount-check: segment bounds */
        if (!(len == 0 && d == s->size))
            weft_gn_fail_segment(call, arg, (int)node, addr, len);
    }
    return weft_gn.seg_off + d;
}

/* A blocking call made from a handler ends the job. */
static inline void weft_gn_check_blocking(const char *call)
{
    if (WEFT_UNLIKELY(weft_gn_cur != NULL))
        weft_gn_fail_in_handler(call);
}

/* extended.c: one put (bulk: src kept until sync) or get, giving
 * GASNET_INVALID_HANDLE when complete on return, else a handle the next
 * quiet completes; and the open access region's bookkeeping. */
gasnet_handle_t weft_gn_put_nb(const char *call, gasnet_node_t node, void *dest, void *src,
                               size_t nbytes, int bulk);
gasnet_handle_t weft_gn_get_nb(const char *call, void *dest, gasnet_node_t node, void *src,
                               size_t nbytes);
void weft_gn_note_region(gasnet_handle_t h);
/* The handle of an operation left in libfabric (the next quiet completes it). */
extern struct weft_gasnet_op weft_gn_pending_op;

/* The poll of the extended API's calls that leave gasnet.h's inline path,
 * as GASNet's conduits poll inside theirs: the handlers of what arrived
 * (the call's own wait progressed libfabric), unless this thread is
 * running a handler; the try forms progress libfabric first. */
static inline void weft_gn_poll(void)
{
    if (weft_gn_cur == NULL)
        weft_am_poll_local();
}
static inline void weft_gn_poll_progress(void)
{
    if (weft_gn_cur == NULL)
        weft_am_poll();
}

/* signal.c: SIGQUIT on a remote exit or a terminating signal. */
void weft_gn_signals_init(void);
/* Once a converted signal ran: 1 when this process sent it (the job ends
 * through the launcher), 2 when another did (the launcher is ending the
 * job already); else 0. */
int weft_gn_job_ending(void);
/* From gasnet_exit: no more conversion here, signals act as before. */
void weft_gn_signals_exiting(void);

void weft_gn_barrier_handler(gasnet_token_t tok, gasnet_handlerarg_t phase,
                             gasnet_handlerarg_t round, gasnet_handlerarg_t flags,
                             gasnet_handlerarg_t id);
void weft_gn_barrier_init(void);

#pragma GCC visibility pop

#endif

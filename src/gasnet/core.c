/* SPDX-License-Identifier: BSD-3-Clause */
/* core.c owns the GASNet-1 core API on weft: gasnet_init (weft's own
 * initialization), gasnet_attach (handler table, the segment as a block of
 * the symmetric heap, every node's segment address), the active-message
 * calls over the engine of src/am/ and the handler dispatch, handler-safe
 * locks, errors and gasnet_exit. */
#include <shmem.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/lifeline.h"
#include "core/scale.h"
#include "gasnet/gasnet_internal.h"
#include "weft_gasnet_dispatch.h"
#include "runtime/lifecycle.h"
#include "runtime/topology.h"

struct weft_gn_state weft_gn;
__thread struct weft_gasnet_token *weft_gn_cur __attribute__((tls_model("initial-exec")));

/* ---- errors ------------------------------------------------------------------- */

#define WEFT_GN_ERRORS(X)                                                                 \
    X(GASNET_OK, "no error")                                                              \
    X(GASNET_ERR_RESOURCE, "problem with a resource of the communication system")        \
    X(GASNET_ERR_BAD_ARG, "bad argument")                                                 \
    X(GASNET_ERR_NOT_INIT, "GASNet is not initialized and attached")                     \
    X(GASNET_ERR_BARRIER_MISMATCH, "barrier id or flags mismatched between nodes")       \
    X(GASNET_ERR_NOT_READY, "operation not yet complete")

const char *weft_gasnet_ErrorName(int e)
{
#define WEFT_GN_NAME(code, desc) \
    if (e == code)               \
        return #code;
    WEFT_GN_ERRORS(WEFT_GN_NAME)
#undef WEFT_GN_NAME
    return "GASNET_ERR_UNKNOWN";
}

const char *weft_gasnet_ErrorDesc(int e)
{
#define WEFT_GN_DESC(code, desc) \
    if (e == code)               \
        return desc;
    WEFT_GN_ERRORS(WEFT_GN_DESC)
#undef WEFT_GN_DESC
    return "unknown error code";
}

void weft_gn_fail_attach(const char *call)
{
    weft_fatal(call, "called before gasnet_attach%s",
               weft_gn.inited ? "" : " (and before gasnet_init)");
}

void weft_gn_fail_in_handler(const char *call)
{
    weft_fatal(call, "called from inside an active-message handler, where it may block or "
                     "send a request (a handler may only reply, once)");
}

void weft_gn_fail_node(const char *call, const char *arg, gasnet_node_t node)
{
    weft_fatal(call, "argument %s=%u out of range (gasnet_nodes() = %d)", arg, (unsigned)node,
               weft_rt.n_pes);
}

void weft_gn_fail_segment(const char *call, const char *arg, int node, const void *addr,
                          size_t len)
{
    const struct weft_gasnet_fast_node *s = &weft_gasnet_fast[node];
    weft_fatal(call, "argument %s=%p (%zu bytes) is not inside the segment of node %d [%p, %p)",
               arg, addr, len, node, (void *)s->base, (void *)(s->base + s->size));
}

/* ---- setup --------------------------------------------------------------------- */

int weft_gasnet_init(int *argc, char ***argv, int thread_mode)
{
    (void)argc;
    (void)argv;
    if (weft_gn.inited)
        weft_fatal("gasnet_init", "called a second time");
    static const int levels[3] = {SHMEM_THREAD_SINGLE, SHMEM_THREAD_SERIALIZED,
                                  SHMEM_THREAD_MULTIPLE};
    if (thread_mode < 0 || thread_mode > 2)
        weft_fatal("gasnet_init", "argument thread_mode=%d: not SEQ, PARSYNC or PAR", thread_mode);
    int provided = 0;
    if (weft_runtime_init_thread("gasnet_init", levels[thread_mode], &provided) != 0)
        return GASNET_ERR_RESOURCE;
    if (thread_mode == 2 && provided < SHMEM_THREAD_MULTIPLE)
        weft_fatal("gasnet_init", "GASNET_PAR needs a thread-safe libfabric domain, which "
                                  "provider %s does not offer", weft_transport_provider_name());
    weft_gn.mode = thread_mode;
    weft_gn.max_long = weft_tun_size(WEFT_TUN_GASNET_MAX_LONG);
    weft_gn_signals_init();
    weft_gn.inited = 1;
    return GASNET_OK;
}

/* Room for the segment: three quarters of the symmetric heap less the
 * engine's channels, the rest left to shmem_malloc (a program may mix). */
static uintptr_t max_segment(void)
{
    size_t heap = weft_rt.seg[WEFT_SEG_HEAP].size;
    size_t chans = weft_am_area_size() + GASNET_PAGESIZE;
    size_t room = heap / 4 * 3;
    room = room > chans ? room - chans : 0;
    return room & ~(uintptr_t)(GASNET_PAGESIZE - 1);
}

uintptr_t weft_gasnet_getMaxLocalSegmentSize(void)
{
    if (!weft_gn.inited)
        weft_fatal("gasnet_getMaxLocalSegmentSize", "called before gasnet_init");
    return max_segment();
}

/* Every PE's heap has the same size, so the global maximum is the local one. */
uintptr_t weft_gasnet_getMaxGlobalSegmentSize(void)
{
    if (!weft_gn.inited)
        weft_fatal("gasnet_getMaxGlobalSegmentSize", "called before gasnet_init");
    return max_segment();
}

static void exit_handler(gasnet_token_t tok, gasnet_handlerarg_t code);

static void register_handler(int index, void (*fn)(), const char *what)
{
    if (weft_gn.handlers[index])
        weft_fatal("gasnet_attach", "%s: handler index %d is registered twice", what, index);
    weft_gn.handlers[index] = fn;
}

/* Every node's (address, size) of its segment: each writes its entry into
 * the same symmetric table on every node. */
static void exchange(gasnet_seginfo_t *table, gasnet_seginfo_t mine)
{
    int me = weft_rt.my_pe;
    uint64_t off = (uint64_t)((char *)&table[me] - weft_rt.seg[WEFT_SEG_HEAP].base);
    for (int pe = 0; pe < weft_rt.n_pes; pe++)
        weft_transport_put(&weft_ctx_default, WEFT_SEG_HEAP, off, &mine, sizeof mine, pe);
    weft_barrier_all_internal(); /* quiets first */
}

/* The inline fast path's table (gasnet.h): one entry per node, also the
 * segments' addresses and sizes every call checks against. */
struct weft_gasnet_fast_node *weft_gasnet_fast;
gasnet_node_t weft_gasnet_fast_nodes;

static void fast_fill(const gasnet_seginfo_t *seg)
{
    int n = weft_rt.n_pes;
    struct weft_gasnet_fast_node *t = weft_gasnet_fast;
    for (int pe = 0; pe < n; pe++) {
        char *mapped = weft_transport_ptr(WEFT_SEG_HEAP, weft_gn.seg_off, pe);
        uintptr_t size = seg[pe].size;
        t[pe].base = (uintptr_t)seg[pe].addr;
        t[pe].size = size;
        t[pe].mapped = mapped;
        t[pe].limit = mapped && size >= WEFT_GN_FAST_MAX ? size - WEFT_GN_FAST_MAX + 1 : 0;
    }
    __atomic_store_n(&weft_gasnet_fast_nodes, (gasnet_node_t)n, __ATOMIC_RELEASE);
}

/* After this every call takes the checked functions, which say the segment
 * is gone. The table stays allocated: a thread of a PAR program may still
 * be reading it. */
static void fast_empty(void) { __atomic_store_n(&weft_gasnet_fast_nodes, 0, __ATOMIC_RELEASE); }

int weft_gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                       uintptr_t minheapoffset)
{
    (void)minheapoffset; /* the segment is in the symmetric heap, not near malloc's */
    if (!weft_gn.inited)
        weft_fatal("gasnet_attach", "called before gasnet_init");
    if (weft_gn.attached)
        weft_fatal("gasnet_attach", "called a second time");
    if (numentries < 0 || (numentries > 0 && !table))
        weft_fatal("gasnet_attach", "argument table=%p with numentries=%d", (void *)table,
                   numentries);
    if (segsize % GASNET_PAGESIZE)
        weft_fatal("gasnet_attach", "argument segsize=%ju is not a multiple of GASNET_PAGESIZE (%d)",
                   (uintmax_t)segsize, GASNET_PAGESIZE);
    if (segsize > max_segment())
        weft_fatal("gasnet_attach",
                   "argument segsize=%ju exceeds gasnet_getMaxLocalSegmentSize() = %ju "
                   "(three quarters of SHMEM_SYMMETRIC_SIZE: raise it)",
                   (uintmax_t)segsize, (uintmax_t)max_segment());

    /* Handlers: fixed indexes first, then index 0 ("don't care") gets the
     * highest free index, in table order, the same on every node. */
    memset(weft_gn.handlers, 0, sizeof weft_gn.handlers);
    register_handler(WEFT_GN_H_BARRIER, (void (*)())weft_gn_barrier_handler, "weft barrier");
    register_handler(WEFT_GN_H_EXIT, (void (*)())exit_handler, "weft exit");
    for (int i = 0; i < numentries; i++) {
        if (!table[i].fnptr)
            weft_fatal("gasnet_attach", "argument table[%d].fnptr is NULL", i);
        if (table[i].index == 0)
            continue;
        if (table[i].index < 128)
            weft_fatal("gasnet_attach",
                       "argument table[%d].index=%u: client handlers use 128..255 (or 0)", i,
                       (unsigned)table[i].index);
        register_handler(table[i].index, table[i].fnptr, "argument table");
    }
    int next = 255;
    for (int i = 0; i < numentries; i++) {
        if (table[i].index != 0)
            continue;
        while (next >= 128 && weft_gn.handlers[next])
            next--;
        if (next < 128)
            weft_fatal("gasnet_attach", "argument table: more than 128 client handlers");
        table[i].index = (gasnet_handler_t)next;
        weft_gn.handlers[next] = table[i].fnptr;
    }

    weft_am_init(weft_gn.mode != 0);

    /* The segment: one symmetric allocation of the largest size any node
     * asked for (allocations must match), each node told its own size. */
    int n = weft_rt.n_pes;
    gasnet_seginfo_t *x = weft_heap_alloc(64, (size_t)n * sizeof *x);
    if (!weft_gasnet_fast)
        weft_gasnet_fast = calloc((size_t)n, sizeof *weft_gasnet_fast);
    if (!x || !weft_gasnet_fast)
        weft_fatal("gasnet_attach", "out of memory for the segment table");
    weft_scale_note(WEFT_SCALE_GASNET_NODES, (size_t)n * sizeof *weft_gasnet_fast);
    exchange(x, (gasnet_seginfo_t){NULL, segsize});
    uintptr_t most = GASNET_PAGESIZE;
    for (int pe = 0; pe < n; pe++)
        if (x[pe].size > most)
            most = x[pe].size;
    weft_barrier_all_internal(); /* everyone read x before it is written again */
    char *seg = weft_heap_alloc(GASNET_PAGESIZE, most);
    if (!seg)
        weft_fatal("gasnet_attach",
                   "the symmetric heap has no room for a segment of %ju bytes (the largest any "
                   "node asked for): raise SHMEM_SYMMETRIC_SIZE",
                   (uintmax_t)most);
    weft_gn.seg_off = (uint64_t)(seg - weft_rt.seg[WEFT_SEG_HEAP].base);
    exchange(x, (gasnet_seginfo_t){seg, segsize});
    fast_fill(x);
    /* Every PE's puts into x ended with the exchange's barrier: the same
     * free on every PE keeps the heap symmetric. */
    weft_heap_free(x);
    weft_gn_barrier_init();
    weft_gn.attached = 1;
    return GASNET_OK;
}

int weft_gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries)
{
    if (!weft_gn.attached)
        weft_gn_fail_attach("gasnet_getSegmentInfo");
    if (numentries < 0 || (numentries > 0 && !seginfo_table))
        weft_fatal("gasnet_getSegmentInfo", "argument seginfo_table=%p with numentries=%d",
                   (void *)seginfo_table, numentries);
    int n = numentries < weft_rt.n_pes ? numentries : weft_rt.n_pes;
    for (int i = 0; i < n; i++)
        seginfo_table[i] = (gasnet_seginfo_t){(void *)weft_gasnet_fast[i].base,
                                              weft_gasnet_fast[i].size};
    return GASNET_OK;
}

/* Node locality: host is the node (the compute node, or a simulated one
 * of WEFT_TOPOLOGY) numbered by its lowest GASNet node; supernode the
 * nodes whose segments map each other (a host's nodes on the direct path,
 * else each node alone); offset what to add to an address in a supernode
 * peer's segment to reach it from here (0 before gasnet_attach, for this
 * node and outside the supernode). */
int weft_gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries)
{
    const char *call = "gasnet_getNodeInfo";
    if (!weft_gn.inited)
        weft_fatal(call, "called before gasnet_init");
    if (numentries < 0 || (numentries > 0 && !nodeinfo_table))
        weft_fatal(call, "argument nodeinfo_table=%p with numentries=%d", (void *)nodeinfo_table,
                   numentries);
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    int count = numentries < n ? numentries : n;
    const int *node = weft_topology_ids(WEFT_TOPO_NODE);
    /* On the direct path this node's heap is mapped here too. */
    int direct = weft_transport_ptr(WEFT_SEG_HEAP, 0, me) != NULL;
    for (int i = 0; i < count; i++) {
        gasnet_node_t host = node ? (gasnet_node_t)node[i] : (gasnet_node_t)i;
        uintptr_t offset = 0;
        if (weft_gn.attached && i != me) {
            char *mapped = weft_transport_ptr(WEFT_SEG_HEAP, weft_gn.seg_off, i);
            if (mapped)
                offset = (uintptr_t)mapped - weft_gasnet_fast[i].base;
        }
        nodeinfo_table[i] = (gasnet_nodeinfo_t){host, direct ? host : (gasnet_node_t)i, offset};
    }
    return GASNET_OK;
}

gasnet_node_t weft_gasnet_mynode(void)
{
    if (!weft_gn.inited)
        weft_fatal("gasnet_mynode", "called before gasnet_init");
    return (gasnet_node_t)weft_rt.my_pe;
}

gasnet_node_t weft_gasnet_nodes(void)
{
    if (!weft_gn.inited)
        weft_fatal("gasnet_nodes", "called before gasnet_init");
    return (gasnet_node_t)weft_rt.n_pes;
}

/* The launcher gives every PE the environment of oshrun. */
char *weft_gasnet_getenv(const char *s) { return s ? getenv(s) : NULL; }

/* gasnet_exit ends the whole job. When every node calls it (the usual end
 * of a program) they finalize together and each exits with its own code,
 * quietly; a node that calls it alone waits a moment for the others, then
 * takes the job down through the launcher with its code (the launcher's
 * SIGTERM becomes the others' SIGQUIT, signal.c). A node already told that
 * the job ends (its SIGQUIT handler calls this) leaves at once. */
#define EXIT_WAIT_NS 2000000000LL
static int exits_seen;
static void exit_handler(gasnet_token_t tok, gasnet_handlerarg_t code)
{
    (void)tok;
    (void)code;
    __atomic_add_fetch(&exits_seen, 1, __ATOMIC_RELEASE);
}

void weft_gasnet_exit(int exitcode)
{
    fflush(stdout);
    fflush(stderr);
    weft_gn_signals_exiting();
    if (weft_gn_job_ending() == 2) {
        /* The launcher is ending the job (its status is set): go quietly. */
        weft_lifeline_leaving();
        weft_transport_abandon();
        weft_shm_files_remove();
        _exit(exitcode == 0 ? 0 : (exitcode & 0xff) ? exitcode & 0xff : 1);
    }
    if (!weft_gn.attached || weft_gn_cur || weft_gn_job_ending())
        weft_runtime_global_exit("gasnet_exit", exitcode);
    int n = weft_rt.n_pes;
    for (int pe = 0; pe < n; pe++) {
        if (pe == weft_rt.my_pe)
            continue;
        int32_t a[1] = {exitcode};
        struct weft_am_out m = {WEFT_GN_H_EXIT, WEFT_AM_SHORT, 0, 1, a, NULL, 0, 0};
        weft_am_send("gasnet_exit", pe, &m);
    }
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned spins = 0;
    while (__atomic_load_n(&exits_seen, __ATOMIC_ACQUIRE) < n - 1) {
        weft_am_poll_local();
        weft_poll_yield(&spins);
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) > EXIT_WAIT_NS)
            weft_runtime_global_exit("gasnet_exit", exitcode);
    }
    weft_transport_quiet(&weft_ctx_default);
    weft_barrier_all_internal(); /* nobody sends to us any more */
    fast_empty();
    weft_am_fini();
    weft_gn.attached = 0;
    exit(exitcode); /* finalizes weft at exit */
}

/* ---- active messages ----------------------------------------------------------- */

size_t weft_gasnet_AMMaxMedium(void) { return WEFT_AM_MAX_MEDIUM; }
size_t weft_gasnet_AMMaxLongRequest(void) { return weft_gn.max_long; }
size_t weft_gasnet_AMMaxLongReply(void) { return weft_gn.max_long; }

void weft_gn_deliver(const struct weft_am_in *m)
{
    void (*fn)() = weft_gn.handlers[m->handler & 0xff];
    if (WEFT_UNLIKELY(!fn))
        weft_fatal("gasnet_AMPoll",
                   "a message from node %d names handler %u, which is not registered here", m->src,
                   m->handler);
    struct weft_gasnet_token tok = {m->src, !m->reply, 0};
    struct weft_gasnet_token *outer = weft_gn_cur;
    weft_gn_cur = &tok;
    const int32_t *a = m->args;
    if (m->kind == WEFT_AM_SHORT) {
        switch (m->nargs) { WEFT_GN_SHORT_CASES(fn, &tok, a); }
    } else {
        void *buf = m->payload;
        size_t nbytes = m->len;
        switch (m->nargs) { WEFT_GN_ML_CASES(fn, &tok, buf, nbytes, a); }
    }
    weft_gn_cur = outer;
}

/* The checks every request and reply makes before its arguments are read
 * (each names the call and the argument); a reply's destination is its
 * requester. */
static gasnet_node_t am_check(const char *call, gasnet_token_t tok, gasnet_node_t dest,
                              gasnet_handler_t h, int numargs)
{
    if (tok) {
        if (WEFT_UNLIKELY(!tok->is_request))
            weft_fatal(call, "argument token: a reply handler may not reply");
        if (WEFT_UNLIKELY(tok->replied))
            weft_fatal(call, "argument token: this request was already replied to (a handler "
                             "may reply at most once)");
        if (WEFT_UNLIKELY(tok != weft_gn_cur))
            weft_fatal(call, "argument token: not the token of the handler running on this "
                             "thread (replies only from inside the request handler)");
        tok->replied = 1;
        dest = (gasnet_node_t)tok->src;
    } else {
        if (WEFT_UNLIKELY(!weft_gn.attached))
            weft_gn_fail_attach(call);
        if (WEFT_UNLIKELY(weft_gn_cur != NULL))
            weft_gn_fail_in_handler(call);
        if (WEFT_UNLIKELY(dest >= (gasnet_node_t)weft_rt.n_pes))
            weft_gn_fail_node(call, "dest", dest);
    }
    if (WEFT_UNLIKELY(!weft_gn.handlers[h]))
        weft_fatal(call, "argument handler=%u is not registered (gasnet_attach's table)",
                   (unsigned)h);
    if (WEFT_UNLIKELY((unsigned)numargs > WEFT_AM_MAX_ARGS))
        weft_fatal(call, "argument numargs=%d: at most gasnet_AMMaxArgs() = 16", numargs);
    return dest;
}

/* The send shared by every request and reply. */
static int am_send(const char *call, gasnet_token_t tok, gasnet_node_t dest, gasnet_handler_t h,
                   unsigned kind, void *src, size_t nbytes, void *dest_addr, int numargs,
                   va_list ap)
{
    dest = am_check(call, tok, dest, h, numargs);
    int32_t args[WEFT_AM_MAX_ARGS];
    for (int i = 0; i < numargs; i++)
        args[i] = (int32_t)va_arg(ap, int);
    struct weft_am_out m = {h, kind, tok != NULL, numargs, args, src, nbytes, 0};
    if (kind == WEFT_AM_MEDIUM) {
        if (WEFT_UNLIKELY(nbytes > WEFT_AM_MAX_MEDIUM))
            weft_fatal(call, "argument nbytes=%zu exceeds gasnet_AMMaxMedium() = %d", nbytes,
                       WEFT_AM_MAX_MEDIUM);
    } else if (kind == WEFT_AM_LONG) {
        if (WEFT_UNLIKELY(nbytes > weft_gn.max_long))
            weft_fatal(call,
                       "argument nbytes=%zu exceeds gasnet_AMMaxLong%s() = %zu "
                       "(WEFT_GASNET_MAX_LONG)",
                       nbytes, tok ? "Reply" : "Request", weft_gn.max_long);
        m.dest_off = weft_gn_off(call, "dest_addr", dest, dest_addr, nbytes);
    }
    if (WEFT_UNLIKELY(nbytes && !src && kind != WEFT_AM_SHORT))
        weft_fatal(call, "argument source_addr is NULL with nbytes=%zu", nbytes);
    weft_am_send(call, (int)dest, &m);
    return GASNET_OK;
}

/* Each variadic entry point hands its va_list to am_send. */
#define WEFT_GN_AM(call, tok, dest, h, kind, src, nbytes, daddr, numargs)                    \
    do {                                                                                     \
        va_list ap;                                                                          \
        va_start(ap, numargs);                                                               \
        int rc_ = am_send(call, tok, dest, h, kind, src, nbytes, daddr, numargs, ap);        \
        va_end(ap);                                                                          \
        return rc_;                                                                          \
    } while (0)

int weft_gasnet_AMRequestShortM(gasnet_node_t dest, gasnet_handler_t h, int numargs, ...)
{
    WEFT_GN_AM("gasnet_AMRequestShort", NULL, dest, h, WEFT_AM_SHORT, NULL, 0, NULL, numargs);
}
/* The fixed-arity Short requests: the checks as one unlikely branch (an
 * unregistered handler also means "before attach": the table is empty
 * then), then the on-node slot written inline, or the message injected
 * through libfabric (weft_am_short_request_far); a failed check (am_check
 * names it) takes the general path. */
static __attribute__((noinline)) int short_general(gasnet_node_t dest, gasnet_handler_t h,
                                                   int numargs, const gasnet_handlerarg_t *args)
{
    dest = am_check("gasnet_AMRequestShort", NULL, dest, h, numargs);
    struct weft_am_out m = {h, WEFT_AM_SHORT, 0, numargs, args, NULL, 0, 0};
    weft_am_send("gasnet_AMRequestShort", (int)dest, &m);
    return GASNET_OK;
}
int weft_gasnet_AMRequestShortA(gasnet_node_t dest, gasnet_handler_t h, int numargs,
                                const gasnet_handlerarg_t *args)
{
    /* icount-check: dest, handler, numargs, not in a handler */
    if (WEFT_UNLIKELY((dest >= (gasnet_node_t)weft_rt.n_pes) | (weft_gn.handlers[h] == NULL) |
                      ((unsigned)numargs > WEFT_AM_MAX_ARGS) | (weft_gn_cur != NULL)))
        return short_general(dest, h, numargs, args);
    if (weft_am_short_request((int)dest, h, numargs, args) != 0)
        weft_am_short_request_far((int)dest, h, numargs, args);
    return GASNET_OK;
}

int weft_gasnet_AMRequestMediumM(gasnet_node_t dest, gasnet_handler_t h, void *src,
                                 size_t nbytes, int numargs, ...)
{
    WEFT_GN_AM("gasnet_AMRequestMedium", NULL, dest, h, WEFT_AM_MEDIUM, src, nbytes, NULL,
               numargs);
}
int weft_gasnet_AMRequestLongM(gasnet_node_t dest, gasnet_handler_t h, void *src, size_t nbytes,
                               void *dest_addr, int numargs, ...)
{
    WEFT_GN_AM("gasnet_AMRequestLong", NULL, dest, h, WEFT_AM_LONG, src, nbytes, dest_addr,
               numargs);
}
/* The payload is at the target when the call returns, so Async is Long. */
int weft_gasnet_AMRequestLongAsyncM(gasnet_node_t dest, gasnet_handler_t h, void *src,
                                    size_t nbytes, void *dest_addr, int numargs, ...)
{
    WEFT_GN_AM("gasnet_AMRequestLongAsync", NULL, dest, h, WEFT_AM_LONG, src, nbytes, dest_addr,
               numargs);
}
int weft_gasnet_AMReplyShortM(gasnet_token_t tok, gasnet_handler_t h, int numargs, ...)
{
    if (!tok)
        weft_fatal("gasnet_AMReplyShort", "argument token is NULL");
    WEFT_GN_AM("gasnet_AMReplyShort", tok, 0, h, WEFT_AM_SHORT, NULL, 0, NULL, numargs);
}
int weft_gasnet_AMReplyMediumM(gasnet_token_t tok, gasnet_handler_t h, void *src, size_t nbytes,
                               int numargs, ...)
{
    if (!tok)
        weft_fatal("gasnet_AMReplyMedium", "argument token is NULL");
    WEFT_GN_AM("gasnet_AMReplyMedium", tok, 0, h, WEFT_AM_MEDIUM, src, nbytes, NULL, numargs);
}
int weft_gasnet_AMReplyLongM(gasnet_token_t tok, gasnet_handler_t h, void *src, size_t nbytes,
                             void *dest_addr, int numargs, ...)
{
    if (!tok)
        weft_fatal("gasnet_AMReplyLong", "argument token is NULL");
    WEFT_GN_AM("gasnet_AMReplyLong", tok, 0, h, WEFT_AM_LONG, src, nbytes, dest_addr, numargs);
}

int weft_gasnet_AMGetMsgSource(gasnet_token_t tok, gasnet_node_t *srcindex)
{
    if (!tok || !srcindex)
        weft_fatal("gasnet_AMGetMsgSource", "argument %s is NULL", tok ? "srcindex" : "token");
    *srcindex = (gasnet_node_t)tok->src;
    return GASNET_OK;
}

int weft_gasnet_AMPoll(void)
{
    if (WEFT_UNLIKELY(!weft_gn.attached))
        weft_gn_fail_attach("gasnet_AMPoll");
    if (weft_gn_cur) /* handlers do not nest */
        return GASNET_OK;
    weft_am_poll();
    return GASNET_OK;
}

void weft_gasnet_poll_wait(unsigned *spins)
{
    if (WEFT_UNLIKELY(!weft_gn.attached))
        weft_gn_fail_attach("GASNET_BLOCKUNTIL");
    weft_gn_check_blocking("GASNET_BLOCKUNTIL");
    if (weft_am_poll_local())
        *spins = 0;
    /* Progresses libfabric and yields after a while, or sleeps until a
     * message or a write arrives (weft_wait_for_update). */
    weft_wait_for_update(spins);
}

/* ---- handler-safe locks, interrupts, wait mode --------------------------------------- */

void weft_gasnet_hsl_init(gasnet_hsl_t *l)
{
    if (pthread_mutex_init(&l->m, NULL))
        weft_fatal("gasnet_hsl_init", "pthread_mutex_init failed");
}
void weft_gasnet_hsl_destroy(gasnet_hsl_t *l) { pthread_mutex_destroy(&l->m); }
void weft_gasnet_hsl_lock(gasnet_hsl_t *l) { pthread_mutex_lock(&l->m); }
void weft_gasnet_hsl_unlock(gasnet_hsl_t *l) { pthread_mutex_unlock(&l->m); }
int weft_gasnet_hsl_trylock(gasnet_hsl_t *l)
{
    return pthread_mutex_trylock(&l->m) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* weft's waits already spin briefly and then yield the CPU. */
int weft_gasnet_set_waitmode(int wait_mode)
{
    if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
        wait_mode != GASNET_WAIT_SPINBLOCK)
        weft_fatal("gasnet_set_waitmode", "argument wait_mode=%d is not a GASNET_WAIT_* value",
                   wait_mode);
    return GASNET_OK;
}

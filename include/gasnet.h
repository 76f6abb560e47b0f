/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet.h: the GASNet-1 interface (specification 1.8) on weft, the
 * "weft" conduit: core API (active messages, segment, handler-safe locks)
 * and extended API (puts, gets, synchronization, barriers), on the same
 * runtime, launcher (oshrun; node = PE) and transports as OpenSHMEM. The
 * GASNet segment is weft symmetric memory, so a program may mix both APIs.
 * Every routine is a macro over a weft_gasnet_ function (the names carry
 * no profiling twin, see docs/profiling.md); docs/gasnet.md. */
#ifndef GASNET_H
#define GASNET_H

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <gasnet_config.h>
#include <stdint.h>
#include <string.h>

/* ---- configuration ------------------------------------------------------- */
#if defined(GASNET_SEQ) + defined(GASNET_PARSYNC) + defined(GASNET_PAR) > 1
#error "define only one of GASNET_SEQ, GASNET_PARSYNC, GASNET_PAR"
#endif
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#define GASNET_SEQ 1
#endif
#if defined(GASNET_PAR)
#define WEFT_GASNET_THREAD_MODE 2
#define GASNET_CONFIG_THREADS "PAR"
#elif defined(GASNET_PARSYNC)
#define WEFT_GASNET_THREAD_MODE 1
#define GASNET_CONFIG_THREADS "PARSYNC"
#else
#define WEFT_GASNET_THREAD_MODE 0
#define GASNET_CONFIG_THREADS "SEQ"
#endif

#define GASNET_VERSION 1
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
/* The release version macros and GASNET_CONDUIT_WEFT: gasnet_config.h. */
#define GASNET_CONDUIT_NAME WEFT
#define GASNET_CONDUIT_NAME_STR "weft"
#define GASNET_CONFIG_STRING "RELEASE=" WEFT_GASNET_VERSION_STRING ",SPEC=1.8,CONDUIT=WEFT,THREADS=" GASNET_CONFIG_THREADS ",SEGMENT=FAST"

/* The segment is a block of weft's symmetric heap, mapped by node peers. */
#define GASNET_SEGMENT_FAST 1
#define GASNET_ALIGNED_SEGMENTS 0 /* each PE maps its heap where the kernel puts it */
#define GASNET_PAGESIZE 4096
#define GASNET_MAXNODES 0x7fffffff

#define GASNET_OK 0
#define _GASNET_ERR_BASE 10000
#define GASNET_ERR_RESOURCE (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_BAD_ARG (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_NOT_INIT (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_NOT_READY (_GASNET_ERR_BASE + 5)

#define GASNET_BARRIERFLAG_ANONYMOUS 1
#define GASNET_BARRIERFLAG_MISMATCH 2
/* A barrier every node enters anonymously (GASNet's extension): it
 * includes GASNET_BARRIERFLAG_ANONYMOUS, and weft treats it as that. */
#define WEFT_GASNET_BARRIERFLAG_UNNAMED_BIT 8
#define GASNET_BARRIERFLAG_UNNAMED (GASNET_BARRIERFLAG_ANONYMOUS | WEFT_GASNET_BARRIERFLAG_UNNAMED_BIT)

#define GASNET_WAIT_SPIN 0
#define GASNET_WAIT_BLOCK 1
#define GASNET_WAIT_SPINBLOCK 2

#define SIZEOF_GASNET_REGISTER_VALUE_T 8

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* ---- types ------------------------------------------------------------------ */
typedef uint32_t gasnet_node_t;
typedef uint8_t gasnet_handler_t;
typedef int32_t gasnet_handlerarg_t;
typedef struct weft_gasnet_token *gasnet_token_t;
typedef struct weft_gasnet_op *gasnet_handle_t;
typedef uint64_t gasnet_register_value_t;
/* A value get completes when issued: the handle is the value. */
typedef uint64_t gasnet_valget_handle_t;
typedef void *gasnet_threadinfo_t;
typedef struct {
    gasnet_handler_t index;
    void (*fnptr)();
} gasnet_handlerentry_t;
typedef struct {
    void *addr;
    uintptr_t size;
} gasnet_seginfo_t;
typedef struct {
    pthread_mutex_t m;
} gasnet_hsl_t;
/* gasnet_getNodeInfo's entry (GASNet's extension): the node's host, its
 * shared-memory supernode (the nodes whose segments this process maps
 * directly) and, within it, what to add to an address in that node's
 * segment to reach it from here. */
typedef struct {
    gasnet_node_t host;
    gasnet_node_t supernode;
    uintptr_t offset;
} gasnet_nodeinfo_t;

#define GASNET_INVALID_HANDLE ((gasnet_handle_t)0)
#define GASNET_HSL_INITIALIZER {PTHREAD_MUTEX_INITIALIZER}

/* ---- core API ---------------------------------------------------------------- */
int weft_gasnet_init(int *argc, char ***argv, int thread_mode);
int weft_gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                       uintptr_t minheapoffset);
void weft_gasnet_exit(int exitcode) __attribute__((noreturn));
int weft_gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
int weft_gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);
uintptr_t weft_gasnet_getMaxLocalSegmentSize(void);
uintptr_t weft_gasnet_getMaxGlobalSegmentSize(void);
gasnet_node_t weft_gasnet_mynode(void);
gasnet_node_t weft_gasnet_nodes(void);
char *weft_gasnet_getenv(const char *s);
const char *weft_gasnet_ErrorName(int errval);
const char *weft_gasnet_ErrorDesc(int errval);

int weft_gasnet_AMRequestShortM(gasnet_node_t dest, gasnet_handler_t h, int numargs, ...);
/* The fixed-arity Short requests' entry (arguments as an array). */
int weft_gasnet_AMRequestShortA(gasnet_node_t dest, gasnet_handler_t h, int numargs,
                                const gasnet_handlerarg_t *args);
int weft_gasnet_AMRequestMediumM(gasnet_node_t dest, gasnet_handler_t h, void *src,
                                 size_t nbytes, int numargs, ...);
int weft_gasnet_AMRequestLongM(gasnet_node_t dest, gasnet_handler_t h, void *src,
                               size_t nbytes, void *dest_addr, int numargs, ...);
int weft_gasnet_AMRequestLongAsyncM(gasnet_node_t dest, gasnet_handler_t h, void *src,
                                    size_t nbytes, void *dest_addr, int numargs, ...);
int weft_gasnet_AMReplyShortM(gasnet_token_t tok, gasnet_handler_t h, int numargs, ...);
int weft_gasnet_AMReplyMediumM(gasnet_token_t tok, gasnet_handler_t h, void *src,
                               size_t nbytes, int numargs, ...);
int weft_gasnet_AMReplyLongM(gasnet_token_t tok, gasnet_handler_t h, void *src, size_t nbytes,
                             void *dest_addr, int numargs, ...);
int weft_gasnet_AMGetMsgSource(gasnet_token_t tok, gasnet_node_t *srcindex);
int weft_gasnet_AMPoll(void);
size_t weft_gasnet_AMMaxMedium(void);
size_t weft_gasnet_AMMaxLongRequest(void);
size_t weft_gasnet_AMMaxLongReply(void);
/* GASNET_BLOCKUNTIL's poll: runs handlers, then pauses as weft's own waits
 * for a peer's update do: yields the CPU once the wait has gone on for a
 * while, or sleeps until a message or a write arrives where the provider
 * counts them (WEFT_WAIT_COUNTER). */
void weft_gasnet_poll_wait(unsigned *spins);

void weft_gasnet_hsl_init(gasnet_hsl_t *hsl);
void weft_gasnet_hsl_destroy(gasnet_hsl_t *hsl);
void weft_gasnet_hsl_lock(gasnet_hsl_t *hsl);
void weft_gasnet_hsl_unlock(gasnet_hsl_t *hsl);
int weft_gasnet_hsl_trylock(gasnet_hsl_t *hsl);
int weft_gasnet_set_waitmode(int wait_mode);

/* ---- extended API --------------------------------------------------------------- */
void weft_gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes);
void weft_gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
void weft_gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes);
void weft_gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
gasnet_handle_t weft_gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes);
gasnet_handle_t weft_gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src,
                                        size_t nbytes);
gasnet_handle_t weft_gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes);
gasnet_handle_t weft_gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src,
                                        size_t nbytes);
void weft_gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes);
void weft_gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
void weft_gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes);
void weft_gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);

/* ---- the direct path's fast table ---------------------------------------------
 * Puts and gets of up to WEFT_GN_FAST_MAX bytes to a node whose segment
 * this process maps (the direct on-node path) are inline: a compare of the
 * node with the node count, then one compare of the address's offset in
 * that node's segment with its entry's limit, which checks the segment
 * bound and chooses the path at once (a node reached through libfabric has
 * limit 0), then the copy. Everything else, and every bad argument, takes
 * the exported function, which names the call and the argument. The table
 * is filled by gasnet_attach and emptied by gasnet_exit (nodes 0 before
 * and after), and is otherwise read only. */
#define WEFT_GN_FAST_MAX 512
struct weft_gasnet_fast_node {
    uintptr_t base;  /* the node's segment address (in its own address space) */
    uintptr_t limit; /* offsets below it have WEFT_GN_FAST_MAX bytes left; 0: not mapped */
    char *mapped;    /* the node's segment in this process */
    uintptr_t size;  /* the node's segment size (gasnet_getSegmentInfo); 32 bytes: one shift */
};
extern struct weft_gasnet_fast_node *weft_gasnet_fast;
extern gasnet_node_t weft_gasnet_fast_nodes;

/* The mapped address of [addr, addr + nbytes) at node, if the fast path
 * takes it. */
static inline int weft_gasnet_fast_addr(gasnet_node_t node, const void *addr, size_t nbytes,
                                        char **out)
{
    if (nbytes <= WEFT_GN_FAST_MAX && node < weft_gasnet_fast_nodes) { /* icount-check: node range */
        const struct weft_gasnet_fast_node *e = &weft_gasnet_fast[node];
        uintptr_t off = (uintptr_t)addr - e->base;
        if (__builtin_expect(off < e->limit, 1)) {
            *out = e->mapped + off;
            return 1;
        }
    }
    return 0;
}

/* The copy of the fast path, remote to or from local (put: a constant
 * that folds); 1 when done, 0: take the function. */
static inline int weft_gasnet_fast_copy(gasnet_node_t node, void *remote, void *local,
                                        size_t nbytes, int put)
{
    char *p;
    if (!weft_gasnet_fast_addr(node, remote, nbytes, &p))
        return 0;
    if (put)
        memcpy(p, local, nbytes);
    else
        memcpy(local, p, nbytes);
    return 1;
}

/* gasnet_NAME as an inline fast path over weft_gasnet_NAME: an on-node put
 * or get is complete on return (DONE is what the call returns then; RETURN
 * is "return" for the forms with a result, empty for the void ones). */
#define WEFT_GN_FAST(NAME, RET, DONE, RETURN, PARAMS, ARGS, REMOTE, LOCAL, PUT)                \
    static inline RET weft_gasnet_##NAME##_fast PARAMS                                         \
    {                                                                                          \
        if (weft_gasnet_fast_copy(node, REMOTE, LOCAL, nbytes, PUT))                           \
            return DONE;                                                                       \
        RETURN weft_gasnet_##NAME ARGS;                                                        \
    }
#define WEFT_GN_FAST_PUT(NAME, RET, DONE, RETURN)                                              \
    WEFT_GN_FAST(NAME, RET, DONE, RETURN,                                                      \
                 (gasnet_node_t node, void *dest, void *src, size_t nbytes),                   \
                 (node, dest, src, nbytes), dest, src, 1)
#define WEFT_GN_FAST_GET(NAME, RET, DONE, RETURN)                                              \
    WEFT_GN_FAST(NAME, RET, DONE, RETURN,                                                      \
                 (void *dest, gasnet_node_t node, void *src, size_t nbytes),                   \
                 (dest, node, src, nbytes), src, dest, 0)
WEFT_GN_FAST_PUT(put, void, , )
WEFT_GN_FAST_PUT(put_bulk, void, , )
WEFT_GN_FAST_PUT(put_nb, gasnet_handle_t, GASNET_INVALID_HANDLE, return)
WEFT_GN_FAST_PUT(put_nb_bulk, gasnet_handle_t, GASNET_INVALID_HANDLE, return)
/* gasnet_put_nbi as the others, and an 8-byte one to a node it does not
 * map handed on with its offset in that node's segment (node and offset
 * computed and the node checked here; weft_gasnet_put_nbi_u64 checks the
 * rest). Its arguments come in the order of shmem_TYPE_p's libfabric side
 * (offset, value, PE), which it reaches with none moved, then the node's
 * entry in weft_gasnet_fast. */
void weft_gasnet_put_nbi_u64(uintptr_t off, uint64_t bits, gasnet_node_t node,
                             const struct weft_gasnet_fast_node *e);
static inline void weft_gasnet_put_nbi_fast(gasnet_node_t node, void *dest, void *src,
                                            size_t nbytes)
{
    if (nbytes <= WEFT_GN_FAST_MAX && node < weft_gasnet_fast_nodes) { /* icount-check: node range */
        const struct weft_gasnet_fast_node *e = &weft_gasnet_fast[node];
        uintptr_t off = (uintptr_t)dest - e->base;
        if (__builtin_expect(off < e->limit, 1)) {
            memcpy(e->mapped + off, src, nbytes);
            return;
        }
        if (nbytes == sizeof(uint64_t)) {
            uint64_t bits;
            memcpy(&bits, src, sizeof bits);
            weft_gasnet_put_nbi_u64(off, bits, node, e);
            return;
        }
    }
    weft_gasnet_put_nbi(node, dest, src, nbytes);
}
WEFT_GN_FAST_PUT(put_nbi_bulk, void, , )
WEFT_GN_FAST_GET(get, void, , )
WEFT_GN_FAST_GET(get_bulk, void, , )
WEFT_GN_FAST_GET(get_nb, gasnet_handle_t, GASNET_INVALID_HANDLE, return)
WEFT_GN_FAST_GET(get_nb_bulk, gasnet_handle_t, GASNET_INVALID_HANDLE, return)
WEFT_GN_FAST_GET(get_nbi, void, , )
WEFT_GN_FAST_GET(get_nbi_bulk, void, , )

void weft_gasnet_wait_syncnb(gasnet_handle_t h);
int weft_gasnet_try_syncnb(gasnet_handle_t h);
void weft_gasnet_wait_syncnb_all(gasnet_handle_t *h, size_t n);
void weft_gasnet_wait_syncnb_some(gasnet_handle_t *h, size_t n);
int weft_gasnet_try_syncnb_all(gasnet_handle_t *h, size_t n);
int weft_gasnet_try_syncnb_some(gasnet_handle_t *h, size_t n);
void weft_gasnet_wait_syncnbi_puts(void);
void weft_gasnet_wait_syncnbi_gets(void);
void weft_gasnet_wait_syncnbi_all(void);
int weft_gasnet_try_syncnbi_puts(void);
int weft_gasnet_try_syncnbi_gets(void);
int weft_gasnet_try_syncnbi_all(void);
void weft_gasnet_begin_nbi_accessregion(void);
gasnet_handle_t weft_gasnet_end_nbi_accessregion(void);

void weft_gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                         size_t nbytes);
gasnet_handle_t weft_gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                       gasnet_register_value_t value, size_t nbytes);
void weft_gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                             size_t nbytes);
gasnet_register_value_t weft_gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes);
gasnet_valget_handle_t weft_gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes);
gasnet_register_value_t weft_gasnet_wait_syncnb_valget(gasnet_valget_handle_t h);

void weft_gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes);
gasnet_handle_t weft_gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes);
void weft_gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes);

void weft_gasnet_barrier_notify(int id, int flags);
int weft_gasnet_barrier_wait(int id, int flags);
int weft_gasnet_barrier_try(int id, int flags);
int weft_gasnet_barrier(int id, int flags);
int weft_gasnet_barrier_result(int *id);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

/* ---- the GASNet names ------------------------------------------------------------ */
#define gasnet_init(argc, argv) weft_gasnet_init((argc), (argv), WEFT_GASNET_THREAD_MODE)
#define gasnet_attach weft_gasnet_attach
#define gasnet_exit weft_gasnet_exit
#define gasnet_getSegmentInfo weft_gasnet_getSegmentInfo
#define gasnet_getNodeInfo weft_gasnet_getNodeInfo
#define gasnet_getMaxLocalSegmentSize weft_gasnet_getMaxLocalSegmentSize
#define gasnet_getMaxGlobalSegmentSize weft_gasnet_getMaxGlobalSegmentSize
#define gasnet_mynode weft_gasnet_mynode
#define gasnet_nodes weft_gasnet_nodes
#define gasnet_getenv weft_gasnet_getenv
#define gasnet_ErrorName(e) ((char *)weft_gasnet_ErrorName(e))
#define gasnet_ErrorDesc(e) ((char *)weft_gasnet_ErrorDesc(e))

#define gasnet_AMMaxArgs() ((size_t)16)
#define gasnet_AMMaxMedium weft_gasnet_AMMaxMedium
#define gasnet_AMMaxLongRequest weft_gasnet_AMMaxLongRequest
#define gasnet_AMMaxLongReply weft_gasnet_AMMaxLongReply
#define gasnet_AMGetMsgSource weft_gasnet_AMGetMsgSource
#define gasnet_AMPoll weft_gasnet_AMPoll
#define gasnet_AMRequestShortM weft_gasnet_AMRequestShortM
#define gasnet_AMRequestMediumM weft_gasnet_AMRequestMediumM
#define gasnet_AMRequestLongM weft_gasnet_AMRequestLongM
#define gasnet_AMRequestLongAsyncM weft_gasnet_AMRequestLongAsyncM
#define gasnet_AMReplyShortM weft_gasnet_AMReplyShortM
#define gasnet_AMReplyMediumM weft_gasnet_AMReplyMediumM
#define gasnet_AMReplyLongM weft_gasnet_AMReplyLongM
/* The variable-arity forms (GASNet's extension): (dest or token, handler,
 * [payload,] numargs, args...), each argument a gasnet_handlerarg_t. */
#define gasnet_AMRequestShort weft_gasnet_AMRequestShortM
#define gasnet_AMRequestMedium weft_gasnet_AMRequestMediumM
#define gasnet_AMRequestLong weft_gasnet_AMRequestLongM
#define gasnet_AMRequestLongAsync weft_gasnet_AMRequestLongAsyncM
#define gasnet_AMReplyShort weft_gasnet_AMReplyShortM
#define gasnet_AMReplyMedium weft_gasnet_AMReplyMediumM
#define gasnet_AMReplyLong weft_gasnet_AMReplyLongM
#include <gasnet_arity.h>

#define GASNET_BLOCKUNTIL(cond)                  \
    do {                                                                                       \
        unsigned weft_gasnet_spins_ = 0;                                                       \
        while (!(cond))                                                                        \
            weft_gasnet_poll_wait(&weft_gasnet_spins_);                                        \
    } while (0)

#define gasnet_hsl_init weft_gasnet_hsl_init
#define gasnet_hsl_destroy weft_gasnet_hsl_destroy
#define gasnet_hsl_lock weft_gasnet_hsl_lock
#define gasnet_hsl_unlock weft_gasnet_hsl_unlock
#define gasnet_hsl_trylock weft_gasnet_hsl_trylock
/* Handlers never run in signal context: there is nothing to hold off. */
#define gasnet_hold_interrupts() ((void)0)
#define gasnet_resume_interrupts() ((void)0)
#define gasnet_set_waitmode weft_gasnet_set_waitmode

#define GASNET_GET_THREADINFO() ((gasnet_threadinfo_t)0)
#define GASNET_POST_THREADINFO(info) ((void)(info))
#define GASNET_BEGIN_FUNCTION() ((void)0)

#define gasnet_put weft_gasnet_put_fast
#define gasnet_put_bulk weft_gasnet_put_bulk_fast
#define gasnet_get weft_gasnet_get_fast
#define gasnet_get_bulk weft_gasnet_get_bulk_fast
#define gasnet_put_nb weft_gasnet_put_nb_fast
#define gasnet_put_nb_bulk weft_gasnet_put_nb_bulk_fast
#define gasnet_get_nb weft_gasnet_get_nb_fast
#define gasnet_get_nb_bulk weft_gasnet_get_nb_bulk_fast
#define gasnet_put_nbi weft_gasnet_put_nbi_fast
#define gasnet_put_nbi_bulk weft_gasnet_put_nbi_bulk_fast
#define gasnet_get_nbi weft_gasnet_get_nbi_fast
#define gasnet_get_nbi_bulk weft_gasnet_get_nbi_bulk_fast
#define gasnet_wait_syncnb weft_gasnet_wait_syncnb
#define gasnet_try_syncnb weft_gasnet_try_syncnb
#define gasnet_wait_syncnb_all weft_gasnet_wait_syncnb_all
#define gasnet_wait_syncnb_some weft_gasnet_wait_syncnb_some
#define gasnet_try_syncnb_all weft_gasnet_try_syncnb_all
#define gasnet_try_syncnb_some weft_gasnet_try_syncnb_some
#define gasnet_wait_syncnbi_puts weft_gasnet_wait_syncnbi_puts
#define gasnet_wait_syncnbi_gets weft_gasnet_wait_syncnbi_gets
#define gasnet_wait_syncnbi_all weft_gasnet_wait_syncnbi_all
#define gasnet_try_syncnbi_puts weft_gasnet_try_syncnbi_puts
#define gasnet_try_syncnbi_gets weft_gasnet_try_syncnbi_gets
#define gasnet_try_syncnbi_all weft_gasnet_try_syncnbi_all
#define gasnet_begin_nbi_accessregion weft_gasnet_begin_nbi_accessregion
#define gasnet_end_nbi_accessregion weft_gasnet_end_nbi_accessregion
#define gasnet_put_val weft_gasnet_put_val
#define gasnet_put_nb_val weft_gasnet_put_nb_val
#define gasnet_put_nbi_val weft_gasnet_put_nbi_val
#define gasnet_get_val weft_gasnet_get_val
#define gasnet_get_nb_val weft_gasnet_get_nb_val
#define gasnet_wait_syncnb_valget weft_gasnet_wait_syncnb_valget
#define gasnet_memset weft_gasnet_memset
#define gasnet_memset_nb weft_gasnet_memset_nb
#define gasnet_memset_nbi weft_gasnet_memset_nbi
#define gasnet_barrier_notify weft_gasnet_barrier_notify
#define gasnet_barrier_wait weft_gasnet_barrier_wait
#define gasnet_barrier_try weft_gasnet_barrier_try
#define gasnet_barrier weft_gasnet_barrier
#define gasnet_barrier_result weft_gasnet_barrier_result

#endif

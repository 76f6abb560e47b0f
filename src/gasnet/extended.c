/* SPDX-License-Identifier: BSD-3-Clause */
/* extended.c owns the GASNet-1 extended API on weft: puts and gets
 * (blocking, explicit-handle, implicit-handle, value forms), memset, their
 * synchronization and access regions. They are the transport's RMA on the
 * default context (transport.h): stores and memcpy to a node peer's mapped
 * segment, libfabric writes and reads otherwise; completion is the
 * context's quiet (a fence and one load when nothing went to libfabric).
 *
 * Polling: the blocking calls that leave gasnet.h's inline path, the
 * waits on a handle and every try form run the handlers of what arrived
 * (weft_gn_poll); initiations, and the waits of the implicit-handle forms,
 * do not (they stay a few instructions when idle).
 *
 * Handles: an operation that is complete on return (every on-node one, all
 * blocking and value forms) gives GASNET_INVALID_HANDLE; one left in
 * libfabric gives a marker that the next quiet completes, so syncing any
 * handle is a quiet (completing more than asked is allowed). */
#include <string.h>

#include "gasnet/gasnet_internal.h"

struct weft_gasnet_op {
    int unused;
};
struct weft_gasnet_op weft_gn_pending_op;
#define PENDING (&weft_gn_pending_op)

/* Inside an access region: whether a libfabric operation joined it. */
static __thread int region_open __attribute__((tls_model("initial-exec")));
static __thread int region_pending __attribute__((tls_model("initial-exec")));

static inline struct weft_ctx *ctx(void) { return &weft_ctx_default; }

/* A blocking put returns with the data in the target's memory: through
 * libfabric that is the put and a quiet. Then the poll. */
static void blocking_put(uint64_t off, const void *src, size_t nbytes, gasnet_node_t node)
{
    if (weft_transport_put(ctx(), WEFT_SEG_HEAP, off, src, nbytes, (int)node))
        weft_transport_quiet(ctx());
    weft_gn_poll();
}
static void blocking_get(void *dest, uint64_t off, size_t nbytes, gasnet_node_t node)
{
    weft_transport_get(ctx(), dest, WEFT_SEG_HEAP, off, nbytes, (int)node);
    weft_gn_poll();
}

void weft_gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    weft_gn_check("gasnet_put", node);
    blocking_put(weft_gn_off("gasnet_put", "dest", node, dest, nbytes), src, nbytes, node);
}
void weft_gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    weft_gn_check("gasnet_put_bulk", node);
    blocking_put(weft_gn_off("gasnet_put_bulk", "dest", node, dest, nbytes), src, nbytes, node);
}
void weft_gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    weft_gn_check("gasnet_get", node);
    blocking_get(dest, weft_gn_off("gasnet_get", "src", node, src, nbytes), nbytes, node);
}
void weft_gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    weft_gn_check("gasnet_get_bulk", node);
    blocking_get(dest, weft_gn_off("gasnet_get_bulk", "src", node, src, nbytes), nbytes, node);
}

/* An 8-byte put (a word, the commonest small put) in registers, the way
 * shmem_TYPE_p sends its value; the rest through weft_gn_put_nb. */
static inline int put_word(const char *call, gasnet_node_t node, void *dest, const void *src)
{
    weft_gn_check(call, node);
    uint64_t bits;
    memcpy(&bits, src, sizeof bits);
    return weft_transport_put_u64(weft_gn_off(call, "dest", node, dest, sizeof bits), bits,
                                  (int)node);
}
/* Non-blocking put: the non-bulk form may reuse src on return, so it is a
 * blocking put (complete locally) whose remote completion is the handle. */
gasnet_handle_t weft_gn_put_nb(const char *call, gasnet_node_t node, void *dest, void *src,
                              size_t nbytes, int bulk)
{
    weft_gn_check(call, node);
    uint64_t off = weft_gn_off(call, "dest", node, dest, nbytes);
    int pending = bulk ? weft_transport_put_nbi(ctx(), WEFT_SEG_HEAP, off, src, nbytes, (int)node)
                       : weft_transport_put(ctx(), WEFT_SEG_HEAP, off, src, nbytes, (int)node);
    return pending ? PENDING : GASNET_INVALID_HANDLE;
}
gasnet_handle_t weft_gn_get_nb(const char *call, void *dest, gasnet_node_t node, void *src,
                              size_t nbytes)
{
    weft_gn_check(call, node);
    uint64_t off = weft_gn_off(call, "src", node, src, nbytes);
    if (weft_transport_get_nbi(ctx(), dest, WEFT_SEG_HEAP, off, nbytes, (int)node))
        return PENDING;
    return GASNET_INVALID_HANDLE;
}

gasnet_handle_t weft_gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    if (nbytes == sizeof(uint64_t))
        return put_word("gasnet_put_nb", node, dest, src) ? PENDING : GASNET_INVALID_HANDLE;
    return weft_gn_put_nb("gasnet_put_nb", node, dest, src, nbytes, 0);
}
gasnet_handle_t weft_gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    return weft_gn_put_nb("gasnet_put_nb_bulk", node, dest, src, nbytes, 1);
}
gasnet_handle_t weft_gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    return weft_gn_get_nb("gasnet_get_nb", dest, node, src, nbytes);
}
gasnet_handle_t weft_gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    return weft_gn_get_nb("gasnet_get_nb_bulk", dest, node, src, nbytes);
}

/* Implicit-handle forms: the same operations, synced by the nbi syncs (or
 * by the handle of the access region they were issued in). */
/* An operation was left in libfabric (left first: on-node operations
 * never look further). */
static inline void note_left(int left)
{
    if (left && region_open)
        region_pending = 1;
}
void weft_gn_note_region(gasnet_handle_t h) { note_left(h != GASNET_INVALID_HANDLE); }
void weft_gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    if (nbytes == sizeof(uint64_t)) {
        if (put_word("gasnet_put_nbi", node, dest, src))
            weft_gn_note_region(PENDING);
        return;
    }
    weft_gn_note_region(weft_gn_put_nb("gasnet_put_nbi", node, dest, src, nbytes, 0));
}
/* The checked path names the call and the argument; a node that gasnet.h
 * maps (an offset past its fast limit) goes there too. */
static __attribute__((cold, noinline)) void put_nbi_u64_general(uintptr_t off, uint64_t bits,
                                                                gasnet_node_t node)
{
    weft_gasnet_put_nbi(node, (void *)(weft_gasnet_fast[node].base + off), &bits, sizeof bits);
}
/* gasnet.h's 8-byte put_nbi to a node it does not map. The word left in
 * libfabric needs no note for an access region: its end asks the context
 * whether anything is outstanding. */
void weft_gasnet_put_nbi_u64(uintptr_t off, uint64_t bits, gasnet_node_t node,
                             const struct weft_gasnet_fast_node *s)
{
    if (WEFT_UNLIKELY(off >= s->size || s->size - off < sizeof bits)) { /* icount-check: segment bounds */
        put_nbi_u64_general(off, bits, node);
        return;
    }
    if (WEFT_UNLIKELY(s->mapped != NULL)) {
        put_nbi_u64_general(off, bits, node);
        return;
    }
    weft_transport_put_u64_ofi(weft_gn.seg_off + off, bits, (int)node);
}
void weft_gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    weft_gn_note_region(weft_gn_put_nb("gasnet_put_nbi_bulk", node, dest, src, nbytes, 1));
}
void weft_gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    weft_gn_note_region(weft_gn_get_nb("gasnet_get_nbi", dest, node, src, nbytes));
}
void weft_gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    weft_gn_note_region(weft_gn_get_nb("gasnet_get_nbi_bulk", dest, node, src, nbytes));
}

/* ---- synchronization ------------------------------------------------------------ */

static void complete(const char *call)
{
    if (WEFT_UNLIKELY(!weft_gn.attached))
        weft_gn_fail_attach(call);
    weft_transport_quiet(ctx());
    weft_gn_poll();
}

void weft_gasnet_wait_syncnb(gasnet_handle_t h)
{
    if (h)
        complete("gasnet_wait_syncnb");
}
int weft_gasnet_try_syncnb(gasnet_handle_t h)
{
    if (h)
        complete("gasnet_try_syncnb");
    else
        weft_gn_poll_progress();
    return GASNET_OK;
}
static int sync_list(const char *call, gasnet_handle_t *h, size_t n)
{
    if (n && !h)
        weft_fatal(call, "argument phandle is NULL with numhandles=%zu", n);
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= h[i] != GASNET_INVALID_HANDLE;
    if (any)
        complete(call);
    for (size_t i = 0; i < n; i++)
        h[i] = GASNET_INVALID_HANDLE;
    return GASNET_OK;
}
void weft_gasnet_wait_syncnb_all(gasnet_handle_t *h, size_t n)
{
    sync_list("gasnet_wait_syncnb_all", h, n);
}
void weft_gasnet_wait_syncnb_some(gasnet_handle_t *h, size_t n)
{
    sync_list("gasnet_wait_syncnb_some", h, n);
}
int weft_gasnet_try_syncnb_all(gasnet_handle_t *h, size_t n)
{
    weft_gn_poll_progress();
    return sync_list("gasnet_try_syncnb_all", h, n);
}
int weft_gasnet_try_syncnb_some(gasnet_handle_t *h, size_t n)
{
    weft_gn_poll_progress();
    return sync_list("gasnet_try_syncnb_some", h, n);
}

void weft_gasnet_wait_syncnbi_puts(void) { weft_transport_quiet(ctx()); }
void weft_gasnet_wait_syncnbi_gets(void) { weft_transport_quiet(ctx()); }
void weft_gasnet_wait_syncnbi_all(void) { weft_transport_quiet(ctx()); }
/* The waits for implicit-handle operations are a quiet and no more (an
 * idle one is a few instructions); the try forms also poll, since clients
 * loop on them. */
int weft_gasnet_try_syncnbi_puts(void)
{
    weft_transport_quiet(ctx());
    weft_gn_poll_progress();
    return GASNET_OK;
}
int weft_gasnet_try_syncnbi_gets(void)
{
    weft_transport_quiet(ctx());
    weft_gn_poll_progress();
    return GASNET_OK;
}
int weft_gasnet_try_syncnbi_all(void)
{
    weft_transport_quiet(ctx());
    weft_gn_poll_progress();
    return GASNET_OK;
}

void weft_gasnet_begin_nbi_accessregion(void)
{
    if (region_open)
        weft_fatal("gasnet_begin_nbi_accessregion", "an access region is already open (they "
                                                    "do not nest)");
    region_open = 1;
    region_pending = 0;
}
gasnet_handle_t weft_gasnet_end_nbi_accessregion(void)
{
    if (!region_open)
        weft_fatal("gasnet_end_nbi_accessregion", "no access region is open");
    region_open = 0;
    /* An 8-byte put_nbi does not note itself (weft_gasnet_put_nbi_u64):
     * whatever the default context has outstanding joins the region. */
    return region_pending || weft_transport_outstanding(ctx()) ? PENDING : GASNET_INVALID_HANDLE;
}

/* ---- value forms -------------------------------------------------------------------- */

/* The nbytes low-order bytes of a register value, in memory order. */
static inline const char *low_bytes(const gasnet_register_value_t *v, size_t nbytes)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (const char *)v + sizeof *v - nbytes;
#else
    (void)nbytes;
    return (const char *)v;
#endif
}
static void check_val_size(const char *call, size_t nbytes)
{
    if (WEFT_UNLIKELY(nbytes == 0 || nbytes > sizeof(gasnet_register_value_t)))
        weft_fatal(call, "argument nbytes=%zu: must be 1..SIZEOF_GASNET_REGISTER_VALUE_T (8)",
                   nbytes);
}
static void put_val(const char *call, gasnet_node_t node, void *dest,
                    gasnet_register_value_t value, size_t nbytes)
{
    weft_gn_check(call, node);
    check_val_size(call, nbytes);
    uint64_t off = weft_gn_off(call, "dest", node, dest, nbytes);
    blocking_put(off, low_bytes(&value, nbytes), nbytes, node);
}
void weft_gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                         size_t nbytes)
{
    put_val("gasnet_put_val", node, dest, value, nbytes);
}
gasnet_handle_t weft_gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                       gasnet_register_value_t value, size_t nbytes)
{
    put_val("gasnet_put_nb_val", node, dest, value, nbytes);
    return GASNET_INVALID_HANDLE; /* complete on return */
}
void weft_gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                             size_t nbytes)
{
    put_val("gasnet_put_nbi_val", node, dest, value, nbytes); /* complete on return */
}
static gasnet_register_value_t get_val(const char *call, gasnet_node_t node, void *src,
                                       size_t nbytes)
{
    weft_gn_check(call, node);
    check_val_size(call, nbytes);
    uint64_t off = weft_gn_off(call, "src", node, src, nbytes);
    gasnet_register_value_t v = 0;
    blocking_get((char *)low_bytes(&v, nbytes), off, nbytes, node);
    return v;
}
gasnet_register_value_t weft_gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes)
{
    return get_val("gasnet_get_val", node, src, nbytes);
}
gasnet_valget_handle_t weft_gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes)
{
    return get_val("gasnet_get_nb_val", node, src, nbytes);
}
gasnet_register_value_t weft_gasnet_wait_syncnb_valget(gasnet_valget_handle_t h) { return h; }

/* ---- memset --------------------------------------------------------------------------- */

static gasnet_handle_t do_memset(const char *call, gasnet_node_t node, void *dest, int val,
                                 size_t nbytes)
{
    weft_gn_check(call, node);
    uint64_t off = weft_gn_off(call, "dest", node, dest, nbytes);
    if (weft_transport_memset(ctx(), WEFT_SEG_HEAP, off, val, nbytes, (int)node))
        return PENDING;
    return GASNET_INVALID_HANDLE;
}
void weft_gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    if (do_memset("gasnet_memset", node, dest, val, nbytes))
        weft_transport_quiet(ctx());
    weft_gn_poll();
}
gasnet_handle_t weft_gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    return do_memset("gasnet_memset_nb", node, dest, val, nbytes);
}
void weft_gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    weft_gn_note_region(do_memset("gasnet_memset_nbi", node, dest, val, nbytes));
}

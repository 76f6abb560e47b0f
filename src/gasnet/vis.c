/* SPDX-License-Identifier: BSD-3-Clause */
/* vis.c owns GASNet's non-contiguous transfers (gasnet_vis.h): each side
 * (remote and local) is walked as a sequence of contiguous chunks, whatever
 * its description (vector, indexed, strided), and every overlap of a remote
 * chunk with a local one is one piece. The pieces are gathered in batches
 * and handed to the transport's vector calls (weft_transport_putv_nbi): a
 * memcpy each to a node on the direct path, fi_writemsg/fi_readmsg
 * messages of as many iovecs as the provider allows through libfabric.
 * All are synchronized together by
 * the handle (or the nbi syncs, or before a blocking form returns). */
#include <gasnet_vis.h>

#include "gasnet/gasnet_internal.h"

#define MAX_LEVELS 32

/* A side: a list of chunks, produced one at a time. */
struct side {
    int kind; /* 0 vector, 1 indexed, 2 strided */
    size_t n, i;
    const gasnet_memvec_t *vec;
    void *const *list;
    size_t len;
    char *base;
    const size_t *strides, *count;
    size_t levels, idx[MAX_LEVELS];
    char *cur;
    size_t left;
};

/* Load the next non-empty chunk; 0 when the side is exhausted. */
static int next_chunk(struct side *s)
{
    while (s->left == 0) {
        if (s->i >= s->n)
            return 0;
        if (s->kind == 0) {
            s->cur = s->vec[s->i].addr;
            s->left = s->vec[s->i].len;
        } else if (s->kind == 1) {
            s->cur = s->list[s->i];
            s->left = s->len;
        } else {
            char *p = s->base;
            for (size_t d = 0; d < s->levels; d++)
                p += s->idx[d] * s->strides[d];
            s->cur = p;
            s->left = s->count[0];
            for (size_t d = 0; d < s->levels; d++) { /* odometer over count[1..] */
                if (++s->idx[d] < s->count[d + 1])
                    break;
                s->idx[d] = 0;
            }
        }
        s->i++;
    }
    return 1;
}

static size_t strided_chunks(const char *call, const size_t *count, size_t levels)
{
    if (levels > MAX_LEVELS - 1)
        weft_fatal(call, "argument stridelevels=%zu: at most %d", levels, MAX_LEVELS - 1);
    size_t n = 1;
    for (size_t d = 1; d <= levels; d++)
        n *= count[d];
    return count[0] ? n : 0;
}

/* Pieces gathered for one transport call (weft_transport_putv_nbi: copies
 * on the direct path, else as few libfabric messages as the provider's
 * limits allow). */
#define BATCH 64
struct batch {
    size_t n;
    uint64_t off[BATCH];
    void *local[BATCH];
    size_t len[BATCH];
};

/* 1 when the pieces were left to libfabric (the next quiet completes
 * them). */
static int flush_batch(int put, gasnet_node_t node, struct batch *b)
{
    int pending = put ? weft_transport_putv_nbi(&weft_ctx_default, WEFT_SEG_HEAP, b->n, b->off,
                                                b->local, b->len, (int)node)
                      : weft_transport_getv_nbi(&weft_ctx_default, WEFT_SEG_HEAP, b->n, b->off,
                                                b->local, b->len, (int)node);
    b->n = 0;
    return pending;
}

/* Move the bytes: put (remote is the destination) or get. */
static gasnet_handle_t transfer(const char *call, int put, gasnet_node_t node, struct side *remote,
                                struct side *local)
{
    weft_gn_check(call, node);
    struct batch b;
    b.n = 0;
    gasnet_handle_t h = GASNET_INVALID_HANDLE;
    for (;;) {
        int r = next_chunk(remote), l = next_chunk(local);
        if (!r || !l) {
            if (r || l)
                weft_fatal(call, "the %s side holds more bytes than the %s side",
                           r ? "remote" : "local", r ? "local" : "remote");
            if (flush_batch(put, node, &b))
                h = &weft_gn_pending_op;
            return h;
        }
        size_t n = remote->left < local->left ? remote->left : local->left;
        if (b.n == BATCH && flush_batch(put, node, &b))
            h = &weft_gn_pending_op;
        b.off[b.n] = weft_gn_off(call, put ? "dest" : "src", node, remote->cur, n);
        b.local[b.n] = local->cur;
        b.len[b.n] = n;
        b.n++;
        remote->cur += n;
        remote->left -= n;
        local->cur += n;
        local->left -= n;
    }
}

static struct side vec_side(size_t n, const gasnet_memvec_t *v)
{
    return (struct side){.kind = 0, .n = n, .vec = v};
}
static struct side idx_side(size_t n, void *const *list, size_t len)
{
    return (struct side){.kind = 1, .n = n, .list = list, .len = len};
}
static struct side str_side(const char *call, void *base, const size_t *strides,
                            const size_t *count, size_t levels)
{
    return (struct side){.kind = 2,
                         .n = strided_chunks(call, count, levels),
                         .base = base,
                         .strides = strides,
                         .count = count,
                         .levels = levels};
}

#define WEFT_GN_VIS_ARGS_putv dstnode, dstcount, dstlist, srccount, srclist
#define WEFT_GN_VIS_ARGS_getv dstcount, dstlist, srcnode, srccount, srclist
#define WEFT_GN_VIS_ARGS_puti dstnode, dstcount, dstlist, dstlen, srccount, srclist, srclen
#define WEFT_GN_VIS_ARGS_geti dstcount, dstlist, dstlen, srcnode, srccount, srclist, srclen
#define WEFT_GN_VIS_ARGS_puts dstnode, dstaddr, dststrides, srcaddr, srcstrides, count, stridelevels
#define WEFT_GN_VIS_ARGS_gets dstaddr, dststrides, srcnode, srcaddr, srcstrides, count, stridelevels

/* The three forms of an operation from its one body (name##_do, which
 * takes the call name first and yields the handle): blocking syncs it,
 * nbi hands it to the access region. */
#define WEFT_GN_VIS_FORMS(name, params, ...)                                   \
    static gasnet_handle_t name##_do(const char *call, WEFT_GN_VIS_PARAMS_##name) __VA_ARGS__ \
    void weft_gasnet_##name##_bulk params                                      \
    {                                                                          \
        if (name##_do("gasnet_" #name "_bulk", WEFT_GN_VIS_ARGS_##name))       \
            weft_transport_quiet(&weft_ctx_default);                                  \
    }                                                                          \
    gasnet_handle_t weft_gasnet_##name##_nb_bulk params                        \
    {                                                                          \
        return name##_do("gasnet_" #name "_nb_bulk", WEFT_GN_VIS_ARGS_##name);  \
    }                                                                          \
    void weft_gasnet_##name##_nbi_bulk params                                  \
    {                                                                          \
        weft_gn_note_region(                                                   \
            name##_do("gasnet_" #name "_nbi_bulk", WEFT_GN_VIS_ARGS_##name));   \
    }

#define WEFT_GN_VIS_PARAMS_putv                                                          \
    gasnet_node_t dstnode, size_t dstcount, gasnet_memvec_t const dstlist[], size_t srccount, \
        gasnet_memvec_t const srclist[]
#define WEFT_GN_VIS_PARAMS_getv                                                         \
    size_t dstcount, gasnet_memvec_t const dstlist[], gasnet_node_t srcnode, size_t srccount, \
        gasnet_memvec_t const srclist[]
#define WEFT_GN_VIS_PARAMS_puti                                                          \
    gasnet_node_t dstnode, size_t dstcount, void *const dstlist[], size_t dstlen,        \
        size_t srccount, void *const srclist[], size_t srclen
#define WEFT_GN_VIS_PARAMS_geti                                                          \
    size_t dstcount, void *const dstlist[], size_t dstlen, gasnet_node_t srcnode,        \
        size_t srccount, void *const srclist[], size_t srclen
#define WEFT_GN_VIS_PARAMS_puts                                                          \
    gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[], void *srcaddr,      \
        const size_t srcstrides[], const size_t count[], size_t stridelevels
#define WEFT_GN_VIS_PARAMS_gets                                                          \
    void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode, void *srcaddr,      \
        const size_t srcstrides[], const size_t count[], size_t stridelevels

WEFT_GN_VIS_FORMS(putv, (WEFT_GN_VIS_PARAMS_putv), {
    struct side r = vec_side(dstcount, dstlist), l = vec_side(srccount, srclist);
    return transfer(call, 1, dstnode, &r, &l);
})
WEFT_GN_VIS_FORMS(getv, (WEFT_GN_VIS_PARAMS_getv), {
    struct side r = vec_side(srccount, srclist), l = vec_side(dstcount, dstlist);
    return transfer(call, 0, srcnode, &r, &l);
})
WEFT_GN_VIS_FORMS(puti, (WEFT_GN_VIS_PARAMS_puti), {
    struct side r = idx_side(dstcount, dstlist, dstlen), l = idx_side(srccount, srclist, srclen);
    return transfer(call, 1, dstnode, &r, &l);
})
WEFT_GN_VIS_FORMS(geti, (WEFT_GN_VIS_PARAMS_geti), {
    struct side r = idx_side(srccount, srclist, srclen), l = idx_side(dstcount, dstlist, dstlen);
    return transfer(call, 0, srcnode, &r, &l);
})
WEFT_GN_VIS_FORMS(puts, (WEFT_GN_VIS_PARAMS_puts), {
    struct side r = str_side(call, dstaddr, dststrides, count, stridelevels);
    struct side l = str_side(call, srcaddr, srcstrides, count, stridelevels);
    return transfer(call, 1, dstnode, &r, &l);
})
WEFT_GN_VIS_FORMS(gets, (WEFT_GN_VIS_PARAMS_gets), {
    struct side r = str_side(call, srcaddr, srcstrides, count, stridelevels);
    struct side l = str_side(call, dstaddr, dststrides, count, stridelevels);
    return transfer(call, 0, srcnode, &r, &l);
})

/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_vis.h: GASNet-1's non-contiguous transfers on weft: vector
 * (putv/getv: lists of address + length), indexed (puti/geti: lists of
 * addresses of one length) and strided (puts/gets: a base address, strides
 * and counts per dimension), each blocking, explicit-handle (_nb) and
 * implicit-handle (_nbi), all with bulk semantics (the local buffers stay
 * untouched until the operation is synchronized). The remote side must lie
 * in the target node's segment; both sides must hold the same number of
 * bytes. docs/gasnet.md. */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H

#include <gasnet.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    void *addr;
    size_t len;
} gasnet_memvec_t;

#pragma GCC visibility push(default)

/* The three forms of each operation share its parameters. */
#define WEFT_GASNET_VIS_DECL(name, params)                \
    void weft_gasnet_##name##_bulk params;                \
    gasnet_handle_t weft_gasnet_##name##_nb_bulk params;  \
    void weft_gasnet_##name##_nbi_bulk params;
WEFT_GASNET_VIS_DECL(putv, (gasnet_node_t dstnode, size_t dstcount,
                            gasnet_memvec_t const dstlist[], size_t srccount,
                            gasnet_memvec_t const srclist[]))
WEFT_GASNET_VIS_DECL(getv, (size_t dstcount, gasnet_memvec_t const dstlist[],
                            gasnet_node_t srcnode, size_t srccount,
                            gasnet_memvec_t const srclist[]))
WEFT_GASNET_VIS_DECL(puti, (gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                            size_t dstlen, size_t srccount, void *const srclist[],
                            size_t srclen))
WEFT_GASNET_VIS_DECL(geti, (size_t dstcount, void *const dstlist[], size_t dstlen,
                            gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                            size_t srclen))
WEFT_GASNET_VIS_DECL(puts, (gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                            void *srcaddr, const size_t srcstrides[], const size_t count[],
                            size_t stridelevels))
WEFT_GASNET_VIS_DECL(gets, (void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                            void *srcaddr, const size_t srcstrides[], const size_t count[],
                            size_t stridelevels))
#undef WEFT_GASNET_VIS_DECL

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#define gasnet_putv_bulk weft_gasnet_putv_bulk
#define gasnet_putv_nb_bulk weft_gasnet_putv_nb_bulk
#define gasnet_putv_nbi_bulk weft_gasnet_putv_nbi_bulk
#define gasnet_getv_bulk weft_gasnet_getv_bulk
#define gasnet_getv_nb_bulk weft_gasnet_getv_nb_bulk
#define gasnet_getv_nbi_bulk weft_gasnet_getv_nbi_bulk
#define gasnet_puti_bulk weft_gasnet_puti_bulk
#define gasnet_puti_nb_bulk weft_gasnet_puti_nb_bulk
#define gasnet_puti_nbi_bulk weft_gasnet_puti_nbi_bulk
#define gasnet_geti_bulk weft_gasnet_geti_bulk
#define gasnet_geti_nb_bulk weft_gasnet_geti_nb_bulk
#define gasnet_geti_nbi_bulk weft_gasnet_geti_nbi_bulk
#define gasnet_puts_bulk weft_gasnet_puts_bulk
#define gasnet_puts_nb_bulk weft_gasnet_puts_nb_bulk
#define gasnet_puts_nbi_bulk weft_gasnet_puts_nbi_bulk
#define gasnet_gets_bulk weft_gasnet_gets_bulk
#define gasnet_gets_nb_bulk weft_gasnet_gets_nb_bulk
#define gasnet_gets_nbi_bulk weft_gasnet_gets_nbi_bulk

#endif

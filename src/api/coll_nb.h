/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_nb.h owns the description of a posted non-blocking collective: what
 * the team routines (collectives.c) hand the engine (coll_nb.c) once their
 * arguments are checked. */
#ifndef WEFT_API_COLL_NB_H
#define WEFT_API_COLL_NB_H

#include "api/coll.h"

enum weft_nb_kind {
    WEFT_NB_SYNC,
    WEFT_NB_BCAST,
    WEFT_NB_COLLECT,
    WEFT_NB_FCOLLECT,
    WEFT_NB_ALLTOALL,
    WEFT_NB_ALLTOALLS,
    WEFT_NB_REDUCE,
};

struct weft_nb_op {
    enum weft_nb_kind kind;
    const char *call;
    struct weft_team *team;
    void *dest;
    const void *source;
    size_t len;             /* bytes; elements for ALLTOALLS and REDUCE */
    size_t esz;             /* element size (ALLTOALLS, REDUCE) */
    ptrdiff_t dst, sst;     /* ALLTOALLS */
    int root;               /* BCAST */
    weft_red_fn red;        /* REDUCE */
};

/* Starts op on the direct path, or queues it for the engine (or runs it
 * at once where the engine cannot run), and stores its request in
 * *request. Returns 0. */
int weft_coll_nb_post(const struct weft_nb_op *op, shmem_req_h *request);

#endif

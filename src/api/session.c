/* SPDX-License-Identifier: BSD-3-Clause */
/* session.c owns the OpenSHMEM 1.6 communication sessions,
 * shmem_ctx_session_start and shmem_ctx_session_stop. */
#include "api/api.h"

/* Sessions are hints that may not change any completion or ordering
 * semantics; weft has no batching to switch on yet, so both routines only
 * check what they are given, which keeps a program that misuses them
 * failing now rather than when batching arrives. Unknown option bits are
 * accepted: the spec says no combination of options is undefined. */
void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask)
{
    (void)options;
    weft_check_init("shmem_ctx_session_start");
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (WEFT_UNLIKELY((config_mask & SHMEM_CTX_SESSION_TOTAL_OPS) && config == NULL))
        weft_fatal("shmem_ctx_session_start",
                   "argument config is NULL but config_mask selects SHMEM_CTX_SESSION_TOTAL_OPS");
}

void shmem_ctx_session_stop(shmem_ctx_t ctx)
{
    (void)ctx; /* stopping a stopped session (or SHMEM_CTX_INVALID's) has no effect */
    weft_check_init("shmem_ctx_session_stop");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* pe_quiet.c owns shmem_pe_quiet and shmem_ctx_pe_quiet (OpenSHMEM 1.6):
 * completion of the operations issued to a list of PEs. */
#include "api/api.h"

/* The transports count completions per context, not per peer, so a
 * per-PE quiet completes the whole context: a superset of what was asked,
 * which the spec explicitly allows. The PE list is still checked, so a bad
 * list fails the same way on every transport. */
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    const char *call = "shmem_ctx_pe_quiet";
    weft_check_init(call);
    /* Like shmem_ctx_quiet: PEs outside a team may pass the context they
     * could not create. */
    if (ctx == SHMEM_CTX_INVALID || npes == 0)
        return;
    if (WEFT_UNLIKELY(target_pes == NULL))
        weft_fatal(call, "argument target_pes is NULL with npes=%zu", npes);
    const struct weft_team *t = ctx->team;
    int size = t ? t->size : weft_rt.n_pes;
    for (size_t i = 0; i < npes; i++)
        if (WEFT_UNLIKELY((unsigned)target_pes[i] >= (unsigned)size))
            weft_fatal(call, "argument target_pes[%zu]=%d is out of range [0, %d)%s", i,
                       target_pes[i], size,
                       t && t != &weft_team_world ? " of the context's team" : "");
    weft_transport_quiet(ctx);
}

void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    weft_check_init("shmem_pe_quiet");
    if (npes > 0 && WEFT_UNLIKELY(target_pes == NULL))
        weft_fatal("shmem_pe_quiet", "argument target_pes is NULL with npes=%zu", npes);
    for (size_t i = 0; i < npes; i++)
        if (WEFT_UNLIKELY((unsigned)target_pes[i] >= (unsigned)weft_rt.n_pes))
            weft_fatal("shmem_pe_quiet", "argument target_pes[%zu]=%d is out of range [0, %d)",
                       i, target_pes[i], weft_rt.n_pes);
    if (npes > 0)
        weft_transport_quiet(&weft_ctx_default);
}

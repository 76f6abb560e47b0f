/* SPDX-License-Identifier: BSD-3-Clause */
/* order.c owns ordering and mutual exclusion: fence, quiet, the world
 * barrier and sync, distributed locks, contexts' life cycle, and the
 * deprecated cache-control no-ops. */
#include <stdlib.h>

#include "runtime/team.h"
#include "api/api.h"

void weft_api_fail_team_pe(const char *call, const struct weft_team *t, int pe)
{
    weft_fatal(call, "argument pe=%d is out of range [0, %d) of the context's team", pe, t->size);
}

/* On SHMEM_CTX_INVALID, fence and quiet do nothing (OpenSHMEM 1.5 9.5.1-2):
 * PEs outside a team may call them on the context they could not create. */
void shmem_ctx_fence(shmem_ctx_t ctx)
{
    weft_check_init("shmem_ctx_fence");
    if (ctx != SHMEM_CTX_INVALID)
        weft_transport_fence(ctx);
}
void shmem_fence(void)
{
    weft_check_init("shmem_fence");
    weft_transport_fence(SHMEM_CTX_DEFAULT);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    weft_check_init("shmem_ctx_quiet");
    if (ctx != SHMEM_CTX_INVALID)
        weft_transport_quiet(ctx);
}
void shmem_quiet(void)
{
    weft_check_init("shmem_quiet");
    weft_transport_quiet_default();
}

void shmem_barrier_all(void)
{
    weft_check_init("shmem_barrier_all");
    weft_barrier_all_internal();
}

void shmem_sync_all(void)
{
    weft_check_init("shmem_sync_all");
    weft_barrier_all_internal();
}

/* A context gets transmit resources of its own (an endpoint with its own
 * counters) while the transport's budget lasts, so its quiet waits for
 * nothing issued on another context; past the budget it shares the default
 * context's (its quiet then also completes the default context's
 * operations, which the spec allows), or, with WEFT_CTX_SHARE=0, creation
 * fails. PRIVATE and SERIALIZED contexts are used by one thread at a time
 * and take no lock; the others may be used by many threads at once under
 * SHMEM_THREAD_MULTIPLE. NOSTORE needs nothing: a context that stores
 * nothing has nothing for quiet to complete. */
int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return weft_api_ctx_create("shmem_ctx_create", options, &weft_team_world, ctx);
}

int weft_api_ctx_create(const char *call, long options, struct weft_team *team,
                        shmem_ctx_t *ctx)
{
    weft_check_init(call);
    if (!ctx)
        weft_fatal(call, "argument ctx is NULL");
    *ctx = SHMEM_CTX_INVALID;
    if (options & ~(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE))
        return 1;
    struct weft_ctx *c = malloc(sizeof *c);
    if (!c)
        return 1;
    if (weft_transport_ctx_open(c, !!(options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED))) != 0) {
        free(c);
        return 1;
    }
    c->options = options;
    c->team = team;
    *ctx = c;
    return 0;
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        weft_fatal("shmem_ctx_destroy", "argument ctx is SHMEM_CTX_DEFAULT, which cannot be "
                   "destroyed");
    weft_transport_quiet(ctx); /* the direct path's fence; the transport completes the rest */
    weft_transport_ctx_close(ctx);
    free(ctx);
}

/* Locks: the lock word on PE 0 holds 0 when free and owner+1 when held.
 * Acquire is a compare-and-swap loop with growing back-off; release is a
 * quiet (the holder's updates complete first) then an atomic reset. */
static long lock_cswap(const char *call, long *lock, long cond, long value)
{
    long old;
    weft_api_amo(call, SHMEM_CTX_DEFAULT, WEFT_AMO_CSWAP, WEFT_DT_I64, lock, &value, &cond,
                 &old, 0, 0);
    return old;
}

int shmem_test_lock(long *lock)
{
    weft_check_init("shmem_test_lock");
    long old = lock_cswap("shmem_test_lock", lock, 0, weft_rt.my_pe + 1);
    return old == 0 ? 0 : 1;
}

void shmem_set_lock(long *lock)
{
    weft_check_init("shmem_set_lock");
    unsigned spins = 0;
    while (lock_cswap("shmem_set_lock", lock, 0, weft_rt.my_pe + 1) != 0)
        weft_poll_yield(&spins);
}

void shmem_clear_lock(long *lock)
{
    weft_check_init("shmem_clear_lock");
    weft_transport_quiet(&weft_ctx_default);
    long me = weft_rt.my_pe + 1;
    long old = lock_cswap("shmem_clear_lock", lock, me, 0);
    if (old != me)
        weft_fatal("shmem_clear_lock", "argument lock=%p is not held by this PE (holder %ld)",
                   (void *)lock, old - 1);
}

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }

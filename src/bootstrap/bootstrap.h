/* SPDX-License-Identifier: BSD-3-Clause */
/* bootstrap.h owns the interface between the runtime and whatever launched
 * the job: rank and size, a key-value exchange, a barrier and job abort.
 * Implementations: PMI-1 wire protocol (oshrun, Hydra in fd and port modes,
 * srun --mpi=pmi2), PMIx (mpirun, prterun, srun --mpi=pmix; when built with
 * libpmix), singleton. The launcher is detected at run time (boot.c). */
#ifndef WEFT_BOOTSTRAP_H
#define WEFT_BOOTSTRAP_H

#include <stddef.h>

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* Detect the launcher and connect. Fills rank and size (a program started
 * without a launcher is rank 0 of 1). Returns 0, or -1 with a message. */
int weft_boot_init(int *rank, int *size);

/* Name of the launcher protocol in use: "pmi1", "pmix", "singleton". */
const char *weft_boot_name(void);

/* Why that one was chosen (which variable, which launcher), for
 * SHMEM_DEBUG and weft-info. */
const char *weft_boot_reason(void);

/* This PE's rank among the job's PEs on its node, their number, and the
 * node's number, as the launcher tells them (PMIx); -1 where unknown. */
void weft_boot_local(int *local_rank, int *local_size, int *node);

/* The NUMA node, socket and L3 cache (hwloc logical indexes on this node;
 * -1: the binding spans several of that type) the launcher bound this PE
 * to, from PMIx's locality string, when the binding it reports is still
 * this process's CPU affinity. Returns 0, or -1 when the launcher does not
 * say it usably (PMI-1, singleton, srun's PMIx, an unbound PE, one bound
 * again since, several NUMA nodes: bootstrap/locality.h). */
int weft_boot_locality(int domain[3]);

/* Publish a binary value under key for this rank (encoded as needed). */
int weft_boot_put(const char *key, const void *val, size_t len);

/* Make every rank's puts visible to every other rank; a barrier. */
int weft_boot_fence(void);

/* Fetch the value another rank put under key; *len in: capacity, out: size. */
int weft_boot_get(int rank, const char *key, void *val, size_t *len);

/* put + fence + get from every rank: all must be n_ranks * len bytes. */
int weft_boot_allgather(const char *key, const void *mine, void *all, size_t len);

/* A plain barrier over the launcher channel (slow; used at init/finalize). */
int weft_boot_barrier(void);

/* Ask the launcher to end the whole job with this exit status, then exit.
 * Never returns. */
__attribute__((noreturn)) void weft_boot_abort(int status, const char *msg);

/* The descriptor whose closing means the launcher is gone (PMI-1), -1 if
 * there is none to watch (PMIx reports it as an event, singleton). */
int weft_boot_watch_fd(void);

/* This PE printed why it ends: a launcher that would say it too (oshrun)
 * is told not to. */
void weft_boot_explained(void);

/* Tell the launcher we finished cleanly. */
int weft_boot_finalize(void);

#pragma GCC visibility pop

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* weft/info.h owns what weft's own tools (weft-info) may ask the library
 * about itself: the tunables with their values, the launcher and the
 * transport it chose. Not part of the OpenSHMEM or GASNet interface and
 * without a compatibility promise; the weftx_info_ prefix keeps these apart
 * from the library's internals, which are all hidden. */
#ifndef WEFT_INFO_H
#define WEFT_INFO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One tunable (an environment variable weft reads, src/core/tunables.def). */
struct weftx_info_tunable {
    const char *name;
    const char *kind;  /* int, size, bool, switch, string, ... */
    const char *def;   /* documented default */
    const char *doc;   /* one line */
    const char *value; /* in this environment, or the default; never NULL */
    int set;           /* set in this environment (or through an older name) */
    const char *category; /* the group it is listed in (docs/tunables.md) */
};

/* Number of tunables; weftx_info_tunable fills *t for 0 <= i < that, in
 * listing order: category by category. */
size_t weftx_info_tunable_count(void);
int weftx_info_tunable(size_t i, struct weftx_info_tunable *t); /* 0, or -1 past the end */

/* The i-th older name of a tunable and the name it stands for; NULL past
 * the last. */
const char *weftx_info_tunable_alias(size_t i, const char **stands_for);

/* After shmem_init: the launcher protocol ("pmi1", "pmix", "singleton"),
 * why it was chosen, and the libfabric provider weft selected. */
const char *weftx_info_launcher(void);
const char *weftx_info_launcher_reason(void);
const char *weftx_info_provider(void);

/* The libfabric API version (FI_VERSION) weft asks for in fi_getinfo:
 * that of the libfabric headers it was built against. */
unsigned weftx_info_fabric_api_version(void);

/* After shmem_init: the transport's description (provider, limits, atomic
 * table, on-node path) on out. */
void weftx_info_describe_transport(FILE *out);

/* Structures whose size grows with the job (docs/scaling.md): each row's
 * bytes are per_pe x (PEs of the job) + per_host_pe x (PEs on the host),
 * in a job that meets all of its `when` conditions (0: every job); where
 * tables > 0, that many tables each rounded up to whole 4 KiB pages; held is
 * what this process holds now (0 before shmem_init). weft-info --scale
 * computes the rows for a job size. */
#define WEFTX_INFO_SCALE_FABRIC 1u    /* libfabric opened: some PE is not reached directly */
#define WEFTX_INFO_SCALE_PEER_KEYS 2u /* memory keys or bases differ between PEs */
#define WEFTX_INFO_SCALE_COALESCE 4u  /* small puts coalesced (tcp;ofi_rxm) */
#define WEFTX_INFO_SCALE_CMA 8u       /* shm copies by process_vm_readv/writev */
#define WEFTX_INFO_SCALE_GASNET 16u   /* gasnet_init ran */
#define WEFTX_INFO_SCALE_PLACES 32u   /* PEs placed in different NUMA, socket or L3 domains */
#define WEFTX_INFO_SCALE_SWITCHES 64u /* switch domains known apart from the nodes */
#define WEFTX_INFO_SCALE_TOPO_IDS 128u /* NUMA, socket or L3 ids of other PEs asked for */
struct weftx_info_scale_row {
    const char *name, *owner, *what;
    unsigned per_pe, per_host_pe, tables, when;
    size_t held;
};
size_t weftx_info_scale_count(void);
int weftx_info_scale_row(size_t i, struct weftx_info_scale_row *r); /* 0, or -1 past the end */
/* The conditions this process's job meets (after shmem_init). */
unsigned weftx_info_scale_when(void);

/* What the calling thread's flat collective algorithms did since it
 * started (docs/collectives.md, "Depth and messages"): messages sent (puts,
 * gets and signals, one per run of bytes) and waits for a peer's signal,
 * the rounds it sat through. Node-leader algorithms are not counted. */
void weftx_info_coll_counts(uint64_t *messages, uint64_t *waits);

/* After shmem_init with libfabric opened: one line of what weft uses on
 * its provider (atomics, counting puts, RMA events, remote CQ data, inject
 * size, fence, MR mode, progress, quiet, multi-receive), then the
 * operations those rest on, executed against this PE on an endpoint of
 * their own. A provider that faults takes the process with it: run it in
 * a process of its own (weft-info --providers does). */
void weftx_info_probe_provider(FILE *out);

#ifdef __cplusplus
}
#endif

#endif

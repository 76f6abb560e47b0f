/* SPDX-License-Identifier: BSD-3-Clause */
/* scale.h owns the accounting of weft's structures that grow with the job
 * (scale.def lists them with their bytes per PE): what each holds in this
 * process, noted by its owner where it allocates and frees it, and which
 * of the list's conditions this job meets. weft-info and docs/scaling.md
 * read the same list (include/weft/info.h). Cold: set-up and teardown. */
#ifndef WEFT_SCALE_H
#define WEFT_SCALE_H

#include <stddef.h>

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* The conditions of scale.def's rows (the same bits as WEFTX_INFO_SCALE_*
 * of include/weft/info.h). */
#define WEFT_SCALE_WHEN_FABRIC 1u    /* libfabric opened: some PE is not reached directly */
#define WEFT_SCALE_WHEN_PEER_KEYS 2u /* keys or bases differ between PEs */
#define WEFT_SCALE_WHEN_COALESCE 4u  /* small puts coalesced (tcp;ofi_rxm) */
#define WEFT_SCALE_WHEN_CMA 8u       /* shm copies by process_vm_readv/writev */
#define WEFT_SCALE_WHEN_GASNET 16u   /* gasnet_init ran */
#define WEFT_SCALE_WHEN_PLACES 32u   /* PEs placed in different NUMA, socket or L3 domains */
#define WEFT_SCALE_WHEN_SWITCHES 64u /* switch domains known apart from the nodes */
#define WEFT_SCALE_WHEN_TOPO_IDS 128u /* NUMA, socket or L3 ids of other PEs asked for */

enum weft_scale_id {
#define WEFT_SCALE(id, name, owner, per_pe, per_host_pe, tables, when, what) WEFT_SCALE_##id,
#include "core/scale.def"
#undef WEFT_SCALE
    WEFT_SCALE_COUNT
};
struct weft_scale_desc {
    const char *name, *owner, *what;
    unsigned per_pe, per_host_pe, tables, when;
};
extern const struct weft_scale_desc weft_scale_rows[WEFT_SCALE_COUNT];

/* Structure id now holds bytes (0: freed). */
void weft_scale_note(enum weft_scale_id id, size_t bytes);
/* ... or bytes more (a negative delta after a free): per-context copies. */
void weft_scale_add(enum weft_scale_id id, long delta);
size_t weft_scale_bytes(enum weft_scale_id id);
/* The conditions this job meets (WEFT_SCALE_WHEN_* set by their owners). */
void weft_scale_set_when(unsigned bits, int on);
unsigned weft_scale_when(void);

/* A table of n entries of elem bytes indexed by PE, of which a PE fills
 * only some (its node peers'): zero pages that take memory only where an
 * entry was written. weft_scale_table_resident: the bytes of its pages
 * holding a non-zero byte. */
void *weft_scale_table_alloc(size_t n, size_t elem);
void weft_scale_table_free(void *table, size_t n, size_t elem);
size_t weft_scale_table_resident(const void *table, size_t n, size_t elem);

/* A read-only table of bytes bytes that repeats pattern (plen bytes, a
 * divisor of the page size) from its start: one page of memory mapped
 * over the whole range, whatever its size. NULL when it cannot be made. */
void *weft_scale_table_repeat(size_t bytes, const void *pattern, size_t plen);
void weft_scale_table_repeat_free(void *table, size_t bytes);

#pragma GCC visibility pop

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* pmix_boot.h: private interface between boot.c (launcher detection) and pmix.c
 * (the PMIx client). Only present in builds with libpmix (WEFT_HAVE_PMIX).
 * Not part of the library's API. */
#ifndef WEFT_BOOT_PMIX_H
#define WEFT_BOOT_PMIX_H

#include <stddef.h>

#ifndef WEFT_HAVE_PMIX
#define WEFT_HAVE_PMIX 0
#endif

#if WEFT_HAVE_PMIX
/* PMIx_Init and the job's layout; local_rank, local_size and node are -1
 * when the server does not say. Returns 0 or -1 (warned). */
int weft_pmix_init(int *rank, int *size, int *local_rank, int *local_size, int *node);
/* This process's PMIX_LOCALITY_STRING and PMIX_CPUSET as the server gave
 * them (mpirun sets both for a bound process); 0, or -1 when it has not. */
int weft_pmix_locality(char *loc, size_t loc_cap, char *cpus, size_t cpus_cap);
/* PMIx_Put of a byte object under key (scope global). */
int weft_pmix_put(const char *key, const void *val, size_t len);
/* collect: PMIx_Commit + PMIx_Fence collecting every rank's data (the key
 * exchange); 0: a plain PMIx_Fence (a barrier). */
int weft_pmix_fence(int collect);
/* PMIx_Get of rank's value; *len in: capacity, out: size. */
int weft_pmix_get(int rank, const char *key, void *val, size_t *len);
/* PMIx_Abort: the server ends the job; returns if it did not. */
void weft_pmix_abort(int status, const char *msg);
int weft_pmix_finalize(void);
#endif

#endif

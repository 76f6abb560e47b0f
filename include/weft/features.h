/* SPDX-License-Identifier: BSD-3-Clause */
/* weft/features.h owns the feature macros shmem.h publishes for language
 * bindings that decide by preprocessor test which optional parts of the
 * OpenSHMEM interface a library provides, instead of by vendor.
 *
 * shmem4py (the Python binding, docs/python.md) compiles its C glue with
 * `#include <shmem.h>` and, for a library whose vendor macros it does not
 * know, reads PySHMEM_HAVE_<feature>: each one defined means "the library
 * has this, use it", each one missing makes shmem4py define a static
 * replacement, which clashes with weft's own declaration of the routine.
 * Defining them here is weft describing itself in the binding's
 * vocabulary; no other implementation's macros are defined. Every feature
 * below is part of weft's OpenSHMEM 1.5/1.6 interface (shmem.h,
 * weft/collectives.h). A program that wants none of them defines
 * WEFT_NO_BINDING_FEATURES before including shmem.h. */
#ifndef WEFT_FEATURES_H
#define WEFT_FEATURES_H

#ifndef WEFT_NO_BINDING_FEATURES
#define PySHMEM_HAVE_shmem_malloc_with_hints 1
#define PySHMEM_HAVE_shmem_team_t 1
#define PySHMEM_HAVE_SHMEM_CTX_INVALID 1
#define PySHMEM_HAVE_shmem_amo_nbi 1
#define PySHMEM_HAVE_shmem_put_signal 1
#define PySHMEM_HAVE_shmem_signal_fetch 1
#define PySHMEM_HAVE_shmem_signal_wait_until 1
#define PySHMEM_HAVE_shmem_broadcast 1
#define PySHMEM_HAVE_shmem_collect 1
#define PySHMEM_HAVE_shmem_fcollect 1
#define PySHMEM_HAVE_shmem_alltoall 1
#define PySHMEM_HAVE_shmem_alltoalls 1
#define PySHMEM_HAVE_shmem_broadcastmem 1
#define PySHMEM_HAVE_shmem_collectmem 1
#define PySHMEM_HAVE_shmem_fcollectmem 1
#define PySHMEM_HAVE_shmem_alltoallmem 1
#define PySHMEM_HAVE_shmem_alltoallsmem 1
#define PySHMEM_HAVE_shmem_reduce 1
#define PySHMEM_HAVE_shmem_wait_test_many 1
#define PySHMEM_HAVE_shmem_pcontrol 1
#endif

#endif

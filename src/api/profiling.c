/* SPDX-License-Identifier: BSD-3-Clause */
/* profiling.c owns shmem_pcontrol, the one routine of the profiling
 * interface; the p-names of every routine are given at link time
 * (cmake/ProfilingInterface.cmake, docs/profiling.md). */
#include "api/api.h"

/* The request is for a profiling tool that defines shmem_pcontrol; without
 * one there is nothing to enable, disable or flush. It does not need an
 * initialized library: a tool may be switched off before shmem_init. */
void shmem_pcontrol(int level, ...) { (void)level; }

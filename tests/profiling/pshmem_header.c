/* SPDX-License-Identifier: BSD-3-Clause */
/* pshmem_header.c makes the build fail unless pshmem.h compiles clean as
 * strict C11 and a tool's replacement routines, forwarding to the pshmem_
 * and p names, type-check against shmem.h (compiled, never linked). */
#include <pshmem.h>

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    pshmem_putmem(dest, source, nelems, pe);
}

/* C only, parenthesized like in shmem.h: a C11 generic macro shares the name. */
long(shmem_swap)(long *dest, long value, int pe) { return pshmem_swap(dest, value, pe); }

void *shmalloc(size_t size) { return pshmalloc(size); }

int _my_pe(void) { return p_my_pe(); }

int shmemx_topology_count(int type) { return pshmemx_topology_count(type); }

void shmem_pcontrol(int level, ...) { pshmem_pcontrol(level); }

/* SPDX-License-Identifier: BSD-3-Clause */
/* pshmem_header.cc makes the build fail unless pshmem.h compiles clean as
 * strict C++11 and a tool's replacement routines, forwarding to the pshmem_
 * names, type-check against shmem.h (compiled, never linked). */
#include <pshmem.h>

extern "C" {
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    pshmem_putmem(dest, source, nelems, pe);
}

int shmem_int_atomic_fetch_add(int *dest, int value, int pe)
{
    return pshmem_int_atomic_fetch_add(dest, value, pe);
}

void shmem_pcontrol(int level, ...) { pshmem_pcontrol(level); }
}

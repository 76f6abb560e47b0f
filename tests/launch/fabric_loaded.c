/* SPDX-License-Identifier: BSD-3-Clause */
/* fabric_loaded: after shmem_init, PE 0 prints whether libfabric is mapped
 * in its process ("libfabric loaded: yes" or "no"). libweft loads it only
 * for jobs that need it (src/transport/ofi/ofi_dl.h); the launch tests
 * check both answers. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    shmem_init();
    int loaded = 0;
    char line[4096];
    FILE *maps = fopen("/proc/self/maps", "r");
    while (maps && fgets(line, sizeof line, maps))
        loaded |= strstr(line, "/libfabric.so") != NULL;
    if (maps)
        fclose(maps);
    if (shmem_my_pe() == 0)
        printf("libfabric loaded: %s (%d PEs)\n", maps ? (loaded ? "yes" : "no") : "unknown",
               shmem_n_pes());
    shmem_finalize();
    return maps ? 0 : 1;
}

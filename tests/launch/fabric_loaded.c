/* SPDX-License-Identifier: BSD-3-Clause */
/* fabric_loaded: after shmem_init, PE 0 prints whether libfabric is mapped
 * in its process ("libfabric loaded: yes" or "no"), and which PSM libraries
 * came with it ("PSM libraries: real", "stand-ins" or "none"). libweft
 * loads libfabric only for jobs that need it (src/transport/ofi/ofi_dl.h),
 * and its stand-ins for the PSM libraries where those cannot be the
 * provider; the launch tests check the answers. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    shmem_init();
    int loaded = 0, psm_real = 0, psm_stand_in = 0;
    char line[4096];
    FILE *maps = fopen("/proc/self/maps", "r");
    while (maps && fgets(line, sizeof line, maps)) {
        loaded |= strstr(line, "/libfabric.so") != NULL;
        if (strstr(line, "/libpsm2.so") || strstr(line, "/libpsm_infinipath.so")) {
            if (strstr(line, "/weft-fabric/"))
                psm_stand_in = 1;
            else
                psm_real = 1;
        }
    }
    if (maps)
        fclose(maps);
    if (shmem_my_pe() == 0) {
        printf("libfabric loaded: %s (%d PEs)\n", maps ? (loaded ? "yes" : "no") : "unknown",
               shmem_n_pes());
        printf("PSM libraries: %s\n", psm_real && psm_stand_in ? "both"
                                      : psm_real             ? "real"
                                      : psm_stand_in         ? "stand-ins"
                                                             : "none");
    }
    shmem_finalize();
    return maps ? 0 : 1;
}

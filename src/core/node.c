/* node.c owns host identity: which PEs share this machine, decided by
 * hostname plus the kernel's boot id (two containers with one hostname but
 * different kernels are different hosts), learned once at init through the
 * launcher's key-value exchange. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bootstrap/bootstrap.h"
#include "runtime.h"

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static uint64_t host_identity(void)
{
    char boot_id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot_id, sizeof boot_id, f))
            boot_id[0] = '\0';
        fclose(f);
    }
    return fnv1a(fnv1a(1469598103934665603ull, weft_rt.hostname), boot_id);
}

void weft_node_init(void)
{
    int n = weft_rt.n_pes;
    uint64_t mine = host_identity();
    weft_rt.pe_host = calloc((size_t)n, sizeof *weft_rt.pe_host);
    if (!weft_rt.pe_host)
        weft_fatal("shmem_init", "out of memory for %d host identities", n);
    if (weft_boot_allgather("weft-host", &mine, weft_rt.pe_host, sizeof mine) != 0)
        weft_fatal("shmem_init", "cannot exchange host identities through the launcher");
    weft_rt.single_node = 1;
    for (int i = 0; i < n; i++)
        if (weft_rt.pe_host[i] != mine)
            weft_rt.single_node = 0;
}

void weft_node_fini(void)
{
    free(weft_rt.pe_host);
    weft_rt.pe_host = NULL;
}

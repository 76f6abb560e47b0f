/* setup.c owns library setup and query routines: init, finalize, exit,
 * PE identity, accessibility, shmem_ptr, version, and their deprecated
 * names (start_pes, _my_pe, _num_pes). */
#include <string.h>

#include "../core/team.h"
#include "api.h"

void shmem_init(void) { weft_runtime_init(SHMEM_THREAD_SINGLE, NULL); }

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        weft_fatal("shmem_init_thread", "argument requested=%d is not a SHMEM_THREAD_* level",
                   requested);
    return weft_runtime_init(requested, provided);
}

void shmem_query_thread(int *provided)
{
    weft_check_init("shmem_query_thread");
    if (provided)
        *provided = weft_rt.thread_level;
}

void shmem_finalize(void) { weft_runtime_finalize(); }

void shmem_global_exit(int status) { weft_runtime_global_exit(status); }

int shmem_my_pe(void) { return weft_rt.initialized ? weft_rt.my_pe : -1; }

int shmem_n_pes(void) { return weft_rt.initialized ? weft_rt.n_pes : -1; }

int shmem_pe_accessible(int pe)
{
    weft_check_init("shmem_pe_accessible");
    return pe >= 0 && pe < weft_rt.n_pes;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    int seg;
    uint64_t off;
    weft_check_init("shmem_addr_accessible");
    return pe >= 0 && pe < weft_rt.n_pes && weft_sym_resolve(addr, 1, &seg, &off) == 0;
}

void *shmem_ptr(const void *dest, int pe)
{
    int seg;
    uint64_t off;
    weft_check_init("shmem_ptr");
    if (pe < 0 || pe >= weft_rt.n_pes || weft_sym_resolve(dest, 1, &seg, &off) != 0)
        return NULL;
    if (pe == weft_rt.my_pe)
        return (void *)dest;
    return weft_onnode_addr(seg, off, pe);
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name) {
        strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
        name[SHMEM_MAX_NAME_LEN - 1] = '\0';
    }
}

void start_pes(int npes)
{
    (void)npes; /* ignored since OpenSHMEM 1.0: the launcher decides */
    shmem_init();
}

int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }

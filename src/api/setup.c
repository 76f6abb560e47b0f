/* SPDX-License-Identifier: BSD-3-Clause */
/* setup.c owns library setup and query routines: init (nested, 1.6),
 * finalize, query_initialized, exit, PE identity, accessibility, shmem_ptr,
 * version, and their deprecated names (start_pes, _my_pe, _num_pes). */
#include <string.h>

#include "runtime/team.h"
#include "api/api.h"
#include "api/coll.h"
#include "runtime/lifecycle.h"

void shmem_init(void) { weft_runtime_init_single("shmem_init"); }

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        weft_fatal("shmem_init_thread", "argument requested=%d is not a SHMEM_THREAD_* level",
                   requested);
    return weft_runtime_init_thread("shmem_init_thread", requested, provided);
}

void shmem_query_initialized(int *initialized)
{
    if (WEFT_UNLIKELY(initialized == NULL))
        weft_fatal("shmem_query_initialized", "argument initialized is NULL");
    *initialized = weft_rt.initialized;
}

void shmem_query_thread(int *provided)
{
    weft_check_init("shmem_query_thread");
    if (provided)
        *provided = weft_rt.thread_level;
}

/* A finalize that is not the last acts as shmem_barrier_all (1.6). */
void shmem_finalize(void)
{
    if (weft_runtime_finalize_unnests()) {
        weft_barrier_all_internal();
        return;
    }
    if (weft_rt.initialized)
        weft_coll_nb_fini();
    weft_runtime_finalize();
}

void shmem_global_exit(int status) { weft_runtime_global_exit("shmem_global_exit", status); }

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

void *shmem_ptr(const void *dest, int pe) { return weft_api_ptr("shmem_ptr", dest, pe); }

void *weft_api_ptr(const char *call, const void *dest, int pe)
{
    int seg;
    uint64_t off;
    weft_check_init(call);
    if (pe < 0 || pe >= weft_rt.n_pes || weft_sym_resolve(dest, 1, &seg, &off) != 0)
        return NULL;
    if (pe == weft_rt.my_pe)
        return (void *)dest;
    return weft_transport_ptr(seg, off, pe);
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
    weft_runtime_init_single("start_pes");
}

int _my_pe(void) WEFT_ALIAS_OF(shmem_my_pe);
int _num_pes(void) WEFT_ALIAS_OF(shmem_n_pes);

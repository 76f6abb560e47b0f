/* SPDX-License-Identifier: BSD-3-Clause */
/* headers: the public headers compile as C++ (built for C++11 to C++20 with
 * -pedantic -Werror): shmemx.h alone, which brings shmem.h with it, or, with
 * WEFT_HEADERS_IN_EXTERN_C, inside extern "C" { } as old programs include
 * them; and the C11 generic macros stay out of C++, where they would shadow
 * the overloads of weft/cxx.h. Nothing here runs: compiling is the test. */
#ifdef WEFT_HEADERS_IN_EXTERN_C
extern "C" {
#include <shmemx.h>
}
#else
#include <shmemx.h>
#endif

#if defined(shmem_put) || defined(shmem_atomic_add) || defined(shmem_sync) ||                   \
    defined(shmem_sum_reduce) || defined(shmem_wait)
#error "a C11 generic macro of weft/generic.h or weft/collectives.h is defined in C++"
#endif

/* The overloads are usable (and have C++ linkage even inside extern "C"):
 * this would not compile if the generic names were missing or clashed. The
 * handle macros are used too: this file is also built with
 * -Wold-style-cast and -Wzero-as-null-pointer-constant. */
int weft_headers_use_overloads(long *l, weft_complexd_t *c, std::complex<float> *z)
{
    shmem_put(l, l, 1, 0);
    shmem_put(SHMEM_CTX_DEFAULT, l, l, 1, 0);
    shmem_wait(l, 0L);
    /* The context overload next to the C routine of the same name. */
    uint64_t sig = 0;
    shmem_signal_set(SHMEM_CTX_DEFAULT, &sig, 1, 0);
    shmem_signal_set(&sig, 1, 0);
    shmem_ctx_t none = SHMEM_CTX_INVALID;
    shmem_team_t teams[] = {SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, SHMEM_TEAM_INVALID};
    return shmem_sum_reduce(teams[0], c, c, 1) + shmem_prod_reduce(teams[0], z, z, 1) +
           shmem_complexf_sum_inscan(teams[0], z, z, 1) + shmem_sync(teams[1]) +
           shmem_sync(teams[2]) +
           (none == SHMEM_CTX_INVALID) + shmemx_topology_count(SHMEMX_TEAM_TYPE_NODE);
}

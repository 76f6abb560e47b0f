/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_active.c owns the deprecated active-set collectives (OpenSHMEM 1.0
 * style, still called by benchmarks and test suites): shmem_barrier,
 * shmem_sync, shmem_broadcast32/64, shmem_(f)collect32/64,
 * shmem_alltoall(s)32/64 and shmem_TYPE_OP_to_all.
 *
 * They run the same algorithms as the team routines, signalling through
 * the caller's pSync (see coll.h): every long is back at SHMEM_SYNC_VALUE
 * on return, and consecutive barriers on one pSync need nothing between
 * them. pWrk is accepted and never touched (the reduction works in dest). */
#include "api/coll_ops.h"

#define ASET_BEGIN(call)                                                                   \
    struct weft_coll c;                                                                    \
    struct weft_team as;                                                                   \
    weft_coll_aset_begin(&c, &as, call, PE_start, logPE_stride, PE_size, pSync)

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    ASET_BEGIN("shmem_barrier");
    weft_transport_quiet(&weft_ctx_default);
    weft_coll_barrier(&c);
    weft_coll_end(&c);
}

void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    ASET_BEGIN("shmem_sync");
    weft_coll_barrier(&c);
    weft_coll_end(&c);
}

static void sym_check(const char *call, const char *arg, const void *p, size_t len)
{
    int seg;
    uint64_t off;
    weft_sym_resolve_or_die(call, arg, p, len, &seg, &off);
}

#define WEFT_DEF_ASET_SIZED(B)                                                             \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root,    \
                            int PE_start, int logPE_stride, int PE_size, long *pSync)      \
    {                                                                                      \
        ASET_BEGIN("shmem_broadcast" #B);                                                  \
        NBYTES("shmem_broadcast" #B, B / 8);                                               \
        if (PE_root < 0 || PE_root >= PE_size)                                             \
            weft_fatal("shmem_broadcast" #B, "argument PE_root=%d is not in [0, %d)",       \
                       PE_root, PE_size);                                                  \
        sym_check("shmem_broadcast" #B, "dest", dest, nelems * (B / 8));                   \
        weft_coll_bcast(&c, dest, source, nelems * (B / 8), PE_root,                      \
                        WEFT_BCAST_WAIT_READY);                                            \
        weft_coll_end(&c);                                                                 \
    }                                                                                      \
    void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start,     \
                          int logPE_stride, int PE_size, long *pSync)                      \
    {                                                                                      \
        ASET_BEGIN("shmem_collect" #B);                                                    \
        NBYTES("shmem_collect" #B, B / 8);                                                 \
        weft_coll_collect(&c, dest, source, nelems * (B / 8));                             \
        weft_coll_end(&c);                                                                 \
    }                                                                                      \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start,    \
                           int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                      \
        ASET_BEGIN("shmem_fcollect" #B);                                                   \
        NBYTES("shmem_fcollect" #B, B / 8);                                                \
        sym_check("shmem_fcollect" #B, "dest", dest,                                       \
                  weft_nbytes("shmem_fcollect" #B, "nelems", nelems * (B / 8),             \
                              (size_t)PE_size));                                           \
        weft_coll_fcollect(&c, dest, source, nelems * (B / 8));                            \
        weft_coll_end(&c);                                                                 \
    }                                                                                      \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start,    \
                           int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                      \
        ASET_BEGIN("shmem_alltoall" #B);                                                   \
        NBYTES("shmem_alltoall" #B, B / 8);                                                \
        sym_check("shmem_alltoall" #B, "dest", dest,                                       \
                  weft_nbytes("shmem_alltoall" #B, "nelems", nelems * (B / 8),             \
                              (size_t)PE_size));                                           \
        weft_coll_alltoall(&c, dest, source, nelems * (B / 8));                            \
        weft_coll_end(&c);                                                                 \
    }                                                                                      \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,  \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size,    \
                            long *pSync)                                                   \
    {                                                                                      \
        ASET_BEGIN("shmem_alltoalls" #B);                                                  \
        if (dst < 1 || sst < 1)                                                            \
            weft_fatal("shmem_alltoalls" #B, "arguments dst=%td and sst=%td must be at "   \
                       "least 1", dst, sst);                                               \
        weft_coll_alltoalls(&c, dest, source, dst, sst, B / 8, nelems);                    \
        weft_coll_end(&c);                                                                 \
    }
WEFT_DEF_ASET_SIZED(32)
WEFT_DEF_ASET_SIZED(64)

static void to_all(const char *call, void *dest, const void *source, int nreduce, int PE_start,
                   int logPE_stride, int PE_size, long *pSync, size_t esz, weft_red_fn op)
{
    ASET_BEGIN(call);
    if (nreduce < 0)
        weft_fatal(call, "argument nreduce=%d is negative", nreduce);
    size_t bytes = (size_t)nreduce * esz;
    sym_check(call, "dest", dest, bytes);
    const char *d = dest, *s = source;
    if (d != s && d < s + bytes && s < d + bytes)
        weft_fatal(call, "arguments dest=%p and source=%p overlap without being equal",
                   dest, source);
    weft_coll_allreduce(&c, dest, source, (size_t)nreduce, esz, op);
    weft_coll_end(&c);
}

#define WEFT_DEF_TO_ALL(N, T, OP)                                                          \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,     \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)    \
    {                                                                                      \
        (void)pWrk;                                                                        \
        to_all("shmem_" #N "_" #OP "_to_all", dest, source, nreduce, PE_start,             \
               logPE_stride, PE_size, pSync, sizeof(T), weft_red_##N##_##OP);              \
    }
#define WEFT_DEF_TO_ALL_BITWISE(N, T, D, G)                                                \
    WEFT_DEF_TO_ALL(N, T, and) WEFT_DEF_TO_ALL(N, T, or) WEFT_DEF_TO_ALL(N, T, xor)
#define WEFT_DEF_TO_ALL_MINMAX(N, T, D, G) WEFT_DEF_TO_ALL(N, T, max) WEFT_DEF_TO_ALL(N, T, min)
#define WEFT_DEF_TO_ALL_ARITH(N, T, D, G) WEFT_DEF_TO_ALL(N, T, sum) WEFT_DEF_TO_ALL(N, T, prod)
WEFT_TO_ALL_BITWISE_TYPES(WEFT_DEF_TO_ALL_BITWISE)
WEFT_TO_ALL_MINMAX_TYPES(WEFT_DEF_TO_ALL_MINMAX)
WEFT_TO_ALL_ARITH_TYPES(WEFT_DEF_TO_ALL_ARITH)

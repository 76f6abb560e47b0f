/* SPDX-License-Identifier: BSD-3-Clause */
/* rma.c owns the OpenSHMEM RMA routines (put, get, p, g, their nbi and
 * strided forms, sized and mem variants), each with its context form,
 * generated from the type tables in weft/types.h. */
#include "api/api.h"

#define WEFT_DEF_RMA(N, T, D, G)                                                          \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,    \
                             int pe)                                                      \
    {                                                                                     \
        weft_api_put("shmem_" #N "_put", ctx, dest, source,                               \
                     NBYTES("shmem_" #N "_put", sizeof(T)), pe, 0);                       \
    }                                                                                     \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                 \
    {                                                                                     \
        weft_api_put("shmem_" #N "_put", SHMEM_CTX_DEFAULT, dest, source,                 \
                     NBYTES("shmem_" #N "_put", sizeof(T)), pe, 0);                       \
    }                                                                                     \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source,               \
                                 size_t nelems, int pe)                                   \
    {                                                                                     \
        weft_api_put("shmem_" #N "_put_nbi", ctx, dest, source,                           \
                     NBYTES("shmem_" #N "_put_nbi", sizeof(T)), pe, 1);                   \
    }                                                                                     \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)             \
    {                                                                                     \
        weft_api_put("shmem_" #N "_put_nbi", SHMEM_CTX_DEFAULT, dest, source,             \
                     NBYTES("shmem_" #N "_put_nbi", sizeof(T)), pe, 1);                   \
    }                                                                                     \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,    \
                             int pe)                                                      \
    {                                                                                     \
        weft_api_get("shmem_" #N "_get", ctx, dest, source,                               \
                     NBYTES("shmem_" #N "_get", sizeof(T)), pe, 0);                       \
    }                                                                                     \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                 \
    {                                                                                     \
        weft_api_get("shmem_" #N "_get", SHMEM_CTX_DEFAULT, dest, source,                 \
                     NBYTES("shmem_" #N "_get", sizeof(T)), pe, 0);                       \
    }                                                                                     \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source,               \
                                 size_t nelems, int pe)                                   \
    {                                                                                     \
        weft_api_get("shmem_" #N "_get_nbi", ctx, dest, source,                           \
                     NBYTES("shmem_" #N "_get_nbi", sizeof(T)), pe, 1);                   \
    }                                                                                     \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)             \
    {                                                                                     \
        weft_api_get("shmem_" #N "_get_nbi", SHMEM_CTX_DEFAULT, dest, source,             \
                     NBYTES("shmem_" #N "_get_nbi", sizeof(T)), pe, 1);                   \
    }                                                                                     \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                     \
    {                                                                                     \
        weft_api_put("shmem_" #N "_p", ctx, dest, &value, sizeof(T), pe, 0);              \
    }                                                                                     \
    WEFT_DEF_API_PG(N, T)                                                                 \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                         \
    {                                                                                     \
        T value;                                                                          \
        weft_api_get("shmem_" #N "_g", ctx, &value, source, sizeof(T), pe, 0);            \
        return value;                                                                     \
    }                                                                                     \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,   \
                              ptrdiff_t sst, size_t nelems, int pe)                       \
    {                                                                                     \
        weft_api_iput("shmem_" #N "_iput", ctx, dest, source, dst, sst, sizeof(T),        \
                      nelems, pe);                                                        \
    }                                                                                     \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,         \
                          size_t nelems, int pe)                                          \
    {                                                                                     \
        weft_api_iput("shmem_" #N "_iput", SHMEM_CTX_DEFAULT, dest, source, dst, sst,     \
                      sizeof(T), nelems, pe);                                             \
    }                                                                                     \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,   \
                              ptrdiff_t sst, size_t nelems, int pe)                       \
    {                                                                                     \
        weft_api_iget("shmem_" #N "_iget", ctx, dest, source, dst, sst, sizeof(T),        \
                      nelems, pe);                                                        \
    }                                                                                     \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,         \
                          size_t nelems, int pe)                                          \
    {                                                                                     \
        weft_api_iget("shmem_" #N "_iget", SHMEM_CTX_DEFAULT, dest, source, dst, sst,     \
                      sizeof(T), nelems, pe);                                             \
    }
WEFT_RMA_TYPES(WEFT_DEF_RMA)

/* Sized and untyped forms: the same funnel with an element size. The
 * NAME/ELEM pairs here are (putB, sizeof) rows of WEFT_RMA_SIZES plus mem. */
#define WEFT_DEF_RMA_BYTES(NAME, ELEM)                                                    \
    void shmem_ctx_put##NAME(shmem_ctx_t ctx, void *dest, const void *source,             \
                             size_t nelems, int pe)                                       \
    {                                                                                     \
        weft_api_put("shmem_put" #NAME, ctx, dest, source,                                \
                     NBYTES("shmem_put" #NAME, (ELEM)), pe, 0);                           \
    }                                                                                     \
    void shmem_put##NAME(void *dest, const void *source, size_t nelems, int pe)           \
    {                                                                                     \
        weft_api_put("shmem_put" #NAME, SHMEM_CTX_DEFAULT, dest, source,                  \
                     NBYTES("shmem_put" #NAME, (ELEM)), pe, 0);                           \
    }                                                                                     \
    void shmem_ctx_put##NAME##_nbi(shmem_ctx_t ctx, void *dest, const void *source,       \
                                   size_t nelems, int pe)                                 \
    {                                                                                     \
        weft_api_put("shmem_put" #NAME "_nbi", ctx, dest, source,                         \
                     NBYTES("shmem_put" #NAME "_nbi", (ELEM)), pe, 1);                    \
    }                                                                                     \
    void shmem_put##NAME##_nbi(void *dest, const void *source, size_t nelems, int pe)     \
    {                                                                                     \
        weft_api_put("shmem_put" #NAME "_nbi", SHMEM_CTX_DEFAULT, dest, source,           \
                     NBYTES("shmem_put" #NAME "_nbi", (ELEM)), pe, 1);                    \
    }                                                                                     \
    void shmem_ctx_get##NAME(shmem_ctx_t ctx, void *dest, const void *source,             \
                             size_t nelems, int pe)                                       \
    {                                                                                     \
        weft_api_get("shmem_get" #NAME, ctx, dest, source,                                \
                     NBYTES("shmem_get" #NAME, (ELEM)), pe, 0);                           \
    }                                                                                     \
    void shmem_get##NAME(void *dest, const void *source, size_t nelems, int pe)           \
    {                                                                                     \
        weft_api_get("shmem_get" #NAME, SHMEM_CTX_DEFAULT, dest, source,                  \
                     NBYTES("shmem_get" #NAME, (ELEM)), pe, 0);                           \
    }                                                                                     \
    void shmem_ctx_get##NAME##_nbi(shmem_ctx_t ctx, void *dest, const void *source,       \
                                   size_t nelems, int pe)                                 \
    {                                                                                     \
        weft_api_get("shmem_get" #NAME "_nbi", ctx, dest, source,                         \
                     NBYTES("shmem_get" #NAME "_nbi", (ELEM)), pe, 1);                    \
    }                                                                                     \
    void shmem_get##NAME##_nbi(void *dest, const void *source, size_t nelems, int pe)     \
    {                                                                                     \
        weft_api_get("shmem_get" #NAME "_nbi", SHMEM_CTX_DEFAULT, dest, source,           \
                     NBYTES("shmem_get" #NAME "_nbi", (ELEM)), pe, 1);                    \
    }
#define WEFT_DEF_RMA_SIZED(B, T)                                                          \
    WEFT_DEF_RMA_BYTES(B, sizeof(T))                                                      \
    void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,\
                           ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                     \
        weft_api_iput("shmem_iput" #B, ctx, dest, source, dst, sst, sizeof(T), nelems,    \
                      pe);                                                                \
    }                                                                                     \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                       size_t nelems, int pe)                                             \
    {                                                                                     \
        weft_api_iput("shmem_iput" #B, SHMEM_CTX_DEFAULT, dest, source, dst, sst,         \
                      sizeof(T), nelems, pe);                                             \
    }                                                                                     \
    void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,\
                           ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                     \
        weft_api_iget("shmem_iget" #B, ctx, dest, source, dst, sst, sizeof(T), nelems,    \
                      pe);                                                                \
    }                                                                                     \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                       size_t nelems, int pe)                                             \
    {                                                                                     \
        weft_api_iget("shmem_iget" #B, SHMEM_CTX_DEFAULT, dest, source, dst, sst,         \
                      sizeof(T), nelems, pe);                                             \
    }
WEFT_RMA_SIZES(WEFT_DEF_RMA_SIZED)
WEFT_DEF_RMA_BYTES(mem, 1)

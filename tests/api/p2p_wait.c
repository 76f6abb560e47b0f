/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_wait: point-to-point synchronization for every type of
 * WEFT_P2P_TYPES (generated from the table of shmem.h).
 *   shmem_TYPE_wait_until and shmem_TYPE_test with each comparison
 *     (EQ NE GT LE LT GE): test is 0 before the left neighbour's update,
 *     wait_until returns after it with the updated value
 *   wait_until_all / any / some and the _vector forms with a status mask:
 *     masked elements are updated first (and fenced) so a mask that is
 *     ignored is caught; any returns an included satisfied index; some
 *     returns unique included indices; NULL status includes everything;
 *     an all-masked or empty set returns at once (SIZE_MAX / 0)
 *   test_all / any / some (+_vector) before (nothing satisfied) and after
 *   deprecated shmem_TYPE_wait(ivar, value) for WEFT_WAIT_DEPRECATED_TYPES
 * Updates use shmem_TYPE_atomic_set where the type has AMOs and shmem_TYPE_p
 * otherwise (short, ushort). */
#include "weft_test.h"

static int me, npes, right, left;

#define SET_NONE(N, T, p, v, pe) shmem_##N##_p(p, (T)(v), pe)
#define SET_I32(N, T, p, v, pe) shmem_##N##_atomic_set(p, (T)(v), pe)
#define SET_I64 SET_I32
#define SET_U32 SET_I32
#define SET_U64 SET_I32

#define NV 8
static const int mask[NV] = {0, 1, 0, 0, 1, 0, 0, 0}; /* 1: excluded */
static const int all_masked[NV] = {1, 1, 1, 1, 1, 1, 1, 1};

static const struct { int cmp; const char *name; int init, cmpval, final; } cmps[6] = {
    {SHMEM_CMP_EQ, "EQ", 0, 5, 5},  {SHMEM_CMP_NE, "NE", 0, 0, 9},
    {SHMEM_CMP_GT, "GT", 0, 4, 5},  {SHMEM_CMP_LE, "LE", 10, 5, 5},
    {SHMEM_CMP_LT, "LT", 10, 5, 3}, {SHMEM_CMP_GE, "GE", 0, 5, 7},
};

static void check_indices(const char *type, const char *op, const size_t *idx, size_t n,
                          int include_masked)
{
    int seen[NV] = {0};
    for (size_t k = 0; k < n; k++) {
        WT_CHECK(idx[k] < NV, "shmem_%s_%s: index %zu out of range", type, op, idx[k]);
        WT_CHECK(include_masked || !mask[idx[k]], "shmem_%s_%s returned masked index %zu", type,
                 op, idx[k]);
        WT_CHECK(!seen[idx[k]], "shmem_%s_%s returned index %zu twice", type, op, idx[k]);
        seen[idx[k]] = 1;
    }
}

#define DEF_P2P(N, T, D, G)                                                                 \
    static void p2p_##N(void)                                                               \
    {                                                                                       \
        T *w = shmem_malloc(6 * sizeof(T));                                                 \
        T *iv = shmem_malloc(2 * NV * sizeof(T)), *iv2 = iv + NV;                           \
        T *tv = shmem_malloc(sizeof(T));                                                    \
        T cmpv[NV];                                                                         \
        size_t idx[NV];                                                                     \
        WT_CHECK(w && iv && tv, "allocation");                                              \
                                                                                            \
        WT_PHASE("shmem_%s_wait_until / test for each comparison", #N);                     \
        for (int k = 0; k < 6; k++)                                                         \
            w[k] = (T)cmps[k].init;                                                         \
        *tv = 0;                                                                            \
        for (int k = 0; k < 6; k++)                                                         \
            WT_EQ_NUM(shmem_##N##_test(&w[k], cmps[k].cmp, (T)cmps[k].cmpval), 0,           \
                      "shmem_%s_test(%s %d) on the initial value %d", #N, cmps[k].name,     \
                      cmps[k].cmpval, cmps[k].init);                                        \
        shmem_barrier_all();                                                                \
        for (int k = 5; k >= 0; k--)                                                        \
            SET_##D(N, T, &w[k], cmps[k].final, right);                                     \
        SET_##D(N, T, tv, 1, right);                                                        \
        for (int k = 0; k < 6; k++) {                                                       \
            WT_PHASE("shmem_%s_wait_until(%s, %d)", #N, cmps[k].name, cmps[k].cmpval);      \
            shmem_##N##_wait_until(&w[k], cmps[k].cmp, (T)cmps[k].cmpval);                  \
            WT_EQ_NUM(w[k], (T)cmps[k].final, "value after shmem_%s_wait_until(%s)", #N,    \
                      cmps[k].name);                                                        \
        }                                                                                   \
        WT_PHASE("shmem_%s_test polling", #N);                                              \
        while (!shmem_##N##_test(tv, SHMEM_CMP_EQ, (T)1))                                   \
            ;                                                                               \
        for (int k = 0; k < 6; k++)                                                         \
            WT_EQ_NUM(shmem_##N##_test(&w[k], cmps[k].cmp, (T)cmps[k].cmpval), 1,           \
                      "shmem_%s_test(%s) after the update", #N, cmps[k].name);              \
        shmem_barrier_all();                                                                \
                                                                                            \
        WT_PHASE("shmem_%s_test_{all,any,some}[_vector] before any update", #N);            \
        for (int j = 0; j < NV; j++) {                                                      \
            iv[j] = iv2[j] = 0;                                                             \
            cmpv[j] = (T)(j + 10);                                                          \
        }                                                                                   \
        WT_EQ_NUM(shmem_##N##_test_all(iv, NV, mask, SHMEM_CMP_EQ, (T)1), 0,                \
                  "shmem_%s_test_all before", #N);                                          \
        WT_EQ_NUM(shmem_##N##_test_any(iv, NV, mask, SHMEM_CMP_EQ, (T)1), SIZE_MAX,         \
                  "shmem_%s_test_any before", #N);                                          \
        WT_EQ_NUM(shmem_##N##_test_some(iv, NV, idx, mask, SHMEM_CMP_EQ, (T)1), 0,          \
                  "shmem_%s_test_some before", #N);                                         \
        WT_EQ_NUM(shmem_##N##_test_all_vector(iv2, NV, mask, SHMEM_CMP_EQ, cmpv), 0,        \
                  "shmem_%s_test_all_vector before", #N);                                   \
        WT_EQ_NUM(shmem_##N##_test_any_vector(iv2, NV, mask, SHMEM_CMP_EQ, cmpv), SIZE_MAX, \
                  "shmem_%s_test_any_vector before", #N);                                   \
        WT_EQ_NUM(shmem_##N##_test_some_vector(iv2, NV, idx, mask, SHMEM_CMP_EQ, cmpv), 0,  \
                  "shmem_%s_test_some_vector before", #N);                                  \
        WT_PHASE("shmem_%s wait sets that are empty", #N);                                  \
        WT_EQ_NUM(shmem_##N##_wait_until_any(iv, NV, all_masked, SHMEM_CMP_EQ, (T)0),       \
                  SIZE_MAX, "shmem_%s_wait_until_any with every element masked", #N);       \
        WT_EQ_NUM(shmem_##N##_wait_until_some(iv, NV, idx, all_masked, SHMEM_CMP_EQ, (T)1), \
                  0, "shmem_%s_wait_until_some with every element masked", #N);             \
        shmem_##N##_wait_until_all(iv, NV, all_masked, SHMEM_CMP_EQ, (T)1);                 \
        shmem_##N##_wait_until_all(iv, 0, NULL, SHMEM_CMP_EQ, (T)1);                        \
        WT_EQ_NUM(shmem_##N##_wait_until_any(iv, 0, NULL, SHMEM_CMP_EQ, (T)0), SIZE_MAX,    \
                  "shmem_%s_wait_until_any with nelems 0", #N);                             \
        WT_EQ_NUM(shmem_##N##_wait_until_any_vector(iv2, NV, all_masked, SHMEM_CMP_EQ,      \
                  cmpv), SIZE_MAX, "shmem_%s_wait_until_any_vector, all masked", #N);       \
        WT_EQ_NUM(shmem_##N##_test_any(iv, 0, NULL, SHMEM_CMP_EQ, (T)0), SIZE_MAX,          \
                  "shmem_%s_test_any with nelems 0", #N);                                   \
        WT_EQ_NUM(shmem_##N##_test_some(iv, 0, idx, NULL, SHMEM_CMP_EQ, (T)0), 0,           \
                  "shmem_%s_test_some with nelems 0", #N);                                  \
        shmem_barrier_all();                                                                \
                                                                                            \
        /* the left PE updates the masked elements first, then the others */               \
        for (int j = 0; j < NV; j++)                                                        \
            if (mask[j]) {                                                                  \
                SET_##D(N, T, &iv[j], 1, right);                                            \
                SET_##D(N, T, &iv2[j], j + 10, right);                                      \
            }                                                                               \
        shmem_fence();                                                                      \
        for (int j = NV - 1; j >= 0; j--)                                                   \
            if (!mask[j]) {                                                                 \
                SET_##D(N, T, &iv[j], 1, right);                                            \
                SET_##D(N, T, &iv2[j], j + 10, right);                                      \
            }                                                                               \
        WT_PHASE("shmem_%s_wait_until_any with a mask", #N);                                \
        size_t a = shmem_##N##_wait_until_any(iv, NV, mask, SHMEM_CMP_EQ, (T)1);            \
        WT_CHECK(a < NV && !mask[a], "shmem_%s_wait_until_any returned %zu, a masked or "   \
                 "invalid index", #N, a);                                                   \
        WT_EQ_NUM(iv[a], 1, "element returned by shmem_%s_wait_until_any", #N);             \
        WT_PHASE("shmem_%s_wait_until_any_vector with a mask", #N);                         \
        a = shmem_##N##_wait_until_any_vector(iv2, NV, mask, SHMEM_CMP_EQ, cmpv);           \
        WT_CHECK(a < NV && !mask[a], "shmem_%s_wait_until_any_vector returned %zu", #N, a); \
        WT_EQ_NUM(iv2[a], (T)(a + 10), "element returned by shmem_%s_wait_until_any_vector", #N); \
        WT_PHASE("shmem_%s_wait_until_some with a mask", #N);                               \
        size_t s = shmem_##N##_wait_until_some(iv, NV, idx, mask, SHMEM_CMP_EQ, (T)1);      \
        WT_CHECK(s >= 1 && s <= 6, "shmem_%s_wait_until_some returned %zu", #N, s);         \
        check_indices(#N, "wait_until_some", idx, s, 0);                                    \
        s = shmem_##N##_wait_until_some_vector(iv2, NV, idx, mask, SHMEM_CMP_EQ, cmpv);     \
        WT_CHECK(s >= 1 && s <= 6, "shmem_%s_wait_until_some_vector returned %zu", #N, s);  \
        check_indices(#N, "wait_until_some_vector", idx, s, 0);                             \
        WT_PHASE("shmem_%s_wait_until_all[_vector] with a mask and with NULL", #N);         \
        shmem_##N##_wait_until_all(iv, NV, mask, SHMEM_CMP_EQ, (T)1);                       \
        for (int j = 0; j < NV; j++)                                                        \
            if (!mask[j])                                                                   \
                WT_EQ_NUM(iv[j], 1, "element %d after shmem_%s_wait_until_all", j, #N);     \
        shmem_##N##_wait_until_all_vector(iv2, NV, mask, SHMEM_CMP_EQ, cmpv);               \
        shmem_##N##_wait_until_all(iv, NV, NULL, SHMEM_CMP_NE, (T)0);                       \
        shmem_##N##_wait_until_all_vector(iv2, NV, NULL, SHMEM_CMP_GE, cmpv);               \
        WT_PHASE("shmem_%s_test_{all,any,some}[_vector] after the updates", #N);            \
        WT_EQ_NUM(shmem_##N##_test_all(iv, NV, mask, SHMEM_CMP_EQ, (T)1), 1,                \
                  "shmem_%s_test_all after", #N);                                           \
        WT_EQ_NUM(shmem_##N##_test_all(iv, NV, NULL, SHMEM_CMP_GT, (T)0), 1,                \
                  "shmem_%s_test_all (NULL status) after", #N);                             \
        a = shmem_##N##_test_any(iv, NV, mask, SHMEM_CMP_EQ, (T)1);                         \
        WT_CHECK(a < NV && !mask[a], "shmem_%s_test_any after returned %zu", #N, a);        \
        s = shmem_##N##_test_some(iv, NV, idx, mask, SHMEM_CMP_EQ, (T)1);                   \
        WT_EQ_NUM(s, 6, "shmem_%s_test_some after (6 included elements)", #N);              \
        check_indices(#N, "test_some", idx, s, 0);                                          \
        s = shmem_##N##_test_some(iv, NV, idx, NULL, SHMEM_CMP_EQ, (T)1);                   \
        WT_EQ_NUM(s, NV, "shmem_%s_test_some (NULL status) after", #N);                     \
        check_indices(#N, "test_some (NULL status)", idx, s, 1);                            \
        WT_EQ_NUM(shmem_##N##_test_all_vector(iv2, NV, mask, SHMEM_CMP_EQ, cmpv), 1,        \
                  "shmem_%s_test_all_vector after", #N);                                    \
        a = shmem_##N##_test_any_vector(iv2, NV, mask, SHMEM_CMP_LE, cmpv);                 \
        WT_CHECK(a < NV && !mask[a], "shmem_%s_test_any_vector after returned %zu", #N, a); \
        s = shmem_##N##_test_some_vector(iv2, NV, idx, mask, SHMEM_CMP_GE, cmpv);           \
        WT_EQ_NUM(s, 6, "shmem_%s_test_some_vector after", #N);                             \
        check_indices(#N, "test_some_vector", idx, s, 0);                                   \
        WT_EQ_NUM(shmem_##N##_test_all_vector(iv2, NV, mask, SHMEM_CMP_NE, cmpv), 0,        \
                  "shmem_%s_test_all_vector(NE) after", #N);                                \
        shmem_barrier_all();                                                                \
        shmem_free(tv);                                                                     \
        shmem_free(iv);                                                                     \
        shmem_free(w);                                                                      \
    }
WEFT_P2P_TYPES(DEF_P2P)

#define DEF_DEPR(N, T, D, G)                                                                \
    static void depr_##N(void)                                                              \
    {                                                                                       \
        T *v = shmem_calloc(1, sizeof(T));                                                  \
        WT_CHECK(v != NULL, "allocation");                                                  \
        WT_PHASE("deprecated shmem_%s_wait", #N);                                           \
        shmem_##N##_p(v, (T)3, right);                                                      \
        shmem_##N##_wait(v, (T)0); /* until *v != 0 */                                      \
        WT_EQ_NUM(*v, 3, "value after shmem_%s_wait", #N);                                  \
        shmem_barrier_all();                                                                \
        shmem_free(v);                                                                      \
    }
WEFT_WAIT_DEPRECATED_TYPES(DEF_DEPR)

int main(void)
{
    wt_init("p2p_wait");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    (void)left;
#define RUN_P2P(N, T, D, G) p2p_##N();
    WEFT_P2P_TYPES(RUN_P2P)
#define RUN_DEPR(N, T, D, G) depr_##N();
    WEFT_WAIT_DEPRECATED_TYPES(RUN_DEPR)
    wt_finish();
    return 0;
}

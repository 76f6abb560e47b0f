/* SPDX-License-Identifier: BSD-3-Clause */
/* scan: OpenSHMEM 1.6 shmem_TYPE_sum_inscan / _exscan for every SUM type
 * (generated from WEFT_SCAN_TYPES) on SHMEM_TEAM_WORLD (nelems 0, 1, 37
 * and a multi-chunk length, in place too) and on a reversed subteam (1, 37). */
#include <complex.h>

#include "weft_test.h"

#define BIG 2000
static void *A, *B;

#define RE(v) ((double)creall((long double _Complex)(v)))
#define IM(v) ((double)cimagl((long double _Complex)(v)))

#define DEF_SCAN(N, T, D, G)                                                              \
    static void scan_##N(shmem_team_t t, size_t cnt, int ex, int inplace)                 \
    {                                                                                     \
        int me = shmem_team_my_pe(t);                                                     \
        T *s = (T *)A, *d = inplace ? s : (T *)B;                                         \
        WT_PHASE("%s_sum_%s n=%zu%s", #N, ex ? "exscan" : "inscan", cnt,                  \
                 inplace ? " in place" : "");                                             \
        for (size_t i = 0; i < cnt; i++)                                                  \
            s[i] = (T)((shmem_team_translate_pe(t, me, SHMEM_TEAM_WORLD) + (int)i) % 5);  \
        int rc = ex ? shmem_##N##_sum_exscan(t, d, s, cnt) : shmem_##N##_sum_inscan(t, d, s, cnt); \
        WT_EQ_NUM(rc, 0, "return value");                                                 \
        for (size_t i = 0; i < cnt; i++) {                                                \
            T want = 0;                                                                   \
            for (int p = 0; p < (ex ? me : me + 1); p++)                                  \
                want += (T)((shmem_team_translate_pe(t, p, SHMEM_TEAM_WORLD) + (int)i) % 5); \
            if (!(d[i] == want))                                                          \
                WT_FAIL("%s_sum_%s element %zu: (%g,%g), expected (%g,%g)", #N,           \
                        ex ? "exscan" : "inscan", i, RE(d[i]), IM(d[i]), RE(want),        \
                        IM(want));                                                        \
        }                                                                                 \
    }
WEFT_SCAN_TYPES(DEF_SCAN)
#define CALL(N, T, D, G)                                                                  \
    for (unsigned j = 0; j < (t == SHMEM_TEAM_WORLD ? 4u : 2u); j++)                                                      \
        for (int ex = 0; ex < 2; ex++)                                                    \
            for (int ip = 0; ip < (counts[j] == 37 ? 2 : 1); ip++) {                      \
                if (t != SHMEM_TEAM_INVALID)                                              \
                    scan_##N(t, counts[j], ex, ip);                                       \
                shmem_barrier_all();                                                      \
            }

static void run(shmem_team_t t)
{
    static const size_t counts[] = {1, 37, 0, BIG};
    WEFT_SCAN_TYPES(CALL)
}

int main(void)
{
    wt_init("scan");
    A = shmem_malloc((BIG + 1) * 16);
    B = shmem_malloc((BIG + 1) * 16);
    run(SHMEM_TEAM_WORLD);
    if (wt_npes > 2) {
        shmem_team_t sub;
        WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, wt_npes - 1, -1, wt_npes - 1,
                                           NULL, 0, &sub), 0, "split");
        run(sub);
        if (sub != SHMEM_TEAM_INVALID)
            shmem_team_destroy(sub);
    }
    WT_PHASE("generic");
    long *s = (long *)A, *d = (long *)B;
    s[0] = 1;
    shmem_sum_inscan(SHMEM_TEAM_WORLD, d, s, 1);
    WT_EQ_NUM(d[0], wt_me + 1, "generic inscan");
    shmem_barrier_all();
    shmem_sum_exscan(SHMEM_TEAM_WORLD, d, s, 1);
    WT_EQ_NUM(d[0], wt_me, "generic exscan");
    wt_finish();
    return 0;
}

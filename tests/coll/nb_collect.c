/* SPDX-License-Identifier: BSD-3-Clause */
/* nb_collect: the non-blocking collect where members are reached through
 * libfabric, each block's length and first bytes sent at the start into
 * its slot of every member's receive area, gathered into dest in team
 * order at completion, with no engine thread:
 *   - the caller not polling: PE 0 starts a collect, then only computes;
 *     every other PE completes it and tells PE 0 so before PE 0 calls
 *     weft again (PE 0's and PE 1's blocks are the long ones)
 *   - unequal blocks, zero-length ones among them, three times the ring's
 *     depth outstanding, one PE starting some late, a blocking collective
 *     among them, completed in reverse order, half by test
 *   - a PE completing its collect while the others compute, then wait
 *     for a flag it sets after that, then enter a blocking collective on
 *     the team; it changes its source as soon as its wait returns
 *   - a team of one PE, a strided team, SHMEM_TEAM_SHARED
 *   - no thread started by any of it; a team whose scratch slot has no
 *     receive areas still collects (on the engine)
 * With small receive areas (WEFT_COLL_NB_AREA=4K, as CMakeLists.txt runs
 * one variant) every block of LONG bytes exceeds its slot: what does not
 * fit moves at the completion of whichever of its owner and each other
 * member comes first.
 * With argument "overflow" (and an 8 MiB heap, as CMakeLists.txt runs it),
 * every PE's block fits its own dest but all of them together run past
 * the heap's end: the job must end naming the call and dest, as the
 * blocking collect does, without writing past the heap. */
#include "weft_test.h"

#include <shmemx.h>
#include <string.h>

#define MANY 24        /* three uses of every ring entry, both parities */
#define LONG 3000      /* bytes: beyond a slot of 4 KiB areas at 2 PEs and more */
#define SRC_MAX 4096   /* bytes of source per collective */
#define GUARD 8        /* bytes after a dest checked untouched */

static unsigned char *src, *dst; /* symmetric: MANY sources, MANY dests */
static long *told;               /* symmetric: PEs whose collect completed */
static long *flag;               /* symmetric: PE 1's collect completed */

/* Bytes member p of a team contributes to collective k: zero for some, a
 * long block for one member of every other collective. */
static size_t block_len(int p, int n, int k)
{
    if (k == 0) /* the caller-not-polling one */
        return p < 2 ? LONG : (size_t)(p - 2) * 5;
    if ((p + k) % 3 == 0)
        return 0;
    if (k % 2 && p == k % n)
        return LONG;
    return 1 + (size_t)(p * 37 + k * 11) % 200;
}

static size_t dst_max(int n) { return (size_t)n * LONG + GUARD; }

static void collect(shmem_team_t team, int k, shmem_req_h *r)
{
    int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team);
    size_t len = block_len(me, n, k);
    WT_EQ_NUM(shmemx_collectmem_nb(team, dst + (size_t)k * dst_max(wt_npes),
                                   src + (size_t)k * SRC_MAX, len, r),
              0, "collectmem_nb %d", k);
}

static void fill(shmem_team_t team, int k)
{
    int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team);
    wt_fill_bytes(src + (size_t)k * SRC_MAX, block_len(me, n, k), me, 0, (unsigned)k);
    memset(dst + (size_t)k * dst_max(wt_npes), 0xEE, dst_max(wt_npes));
}

static void check(shmem_team_t team, int k)
{
    int n = shmem_team_n_pes(team);
    const unsigned char *d = dst + (size_t)k * dst_max(wt_npes);
    size_t at = 0;
    for (int p = 0; p < n; p++) {
        size_t len = block_len(p, n, k);
        WT_CHECK_BYTES(d + at, len, p, 0, (unsigned)k, "collect block");
        at += len;
    }
    WT_CHECK_FILL(d + at, GUARD, 0xEE, "past the collect");
}

static void caller_not_polling(void)
{
    WT_PHASE("PE 0 computes without calling weft; the others complete a collect");
    int k = 0;
    fill(SHMEM_TEAM_WORLD, k);
    *told = 0;
    shmem_barrier_all();
    shmem_req_h r;
    collect(SHMEM_TEAM_WORLD, k, &r);
    wt_complete_while_pe0_computes(&r, told);
    check(SHMEM_TEAM_WORLD, k);
    shmem_barrier_all();
}

static void many_outstanding(void)
{
    int n = wt_npes;
    WT_PHASE("%d outstanding, unequal and empty blocks, a blocking reduce among them", MANY);
    for (int k = 0; k < MANY; k++)
        fill(SHMEM_TEAM_WORLD, k);
    shmem_barrier_all();
    shmem_req_h r[MANY];
    for (int k = 0; k < MANY; k++) {
        if (wt_me == n - 1 && k % 5 == 0)
            wt_compute_ms(2);
        collect(SHMEM_TEAM_WORLD, k, &r[k]);
        if (k == MANY / 2)
            wt_blocking_sum_check(SHMEM_TEAM_WORLD);
    }
    wt_req_complete_reverse(r, MANY);
    for (int k = 0; k < MANY; k++)
        check(SHMEM_TEAM_WORLD, k);
    shmem_barrier_all();
}

static void wait_before_others(void)
{
    /* Collective 1's long block is PE 1's (PE 0's at one PE). */
    WT_PHASE("PE 1 completes its collect; the others wait for its flag, then sync the team");
    int k = 1, pe1 = 1 % wt_npes;
    fill(SHMEM_TEAM_WORLD, k);
    *flag = 0;
    shmem_barrier_all();
    shmem_req_h r;
    collect(SHMEM_TEAM_WORLD, k, &r);
    if (wt_me == pe1) {
        /* Complete: its source may change. */
        WT_EQ_NUM(shmem_req_wait(&r), 0, "wait");
        memset(src + (size_t)k * SRC_MAX, 0, SRC_MAX);
        for (int p = 0; p < wt_npes; p++)
            shmem_long_atomic_set(flag, 1, p);
        WT_EQ_NUM(shmem_team_sync(SHMEM_TEAM_WORLD), 0, "sync");
    } else {
        wt_compute_ms(20);
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
        WT_EQ_NUM(shmem_team_sync(SHMEM_TEAM_WORLD), 0, "sync");
        WT_EQ_NUM(shmem_req_wait(&r), 0, "wait");
    }
    check(SHMEM_TEAM_WORLD, k);
    shmem_barrier_all();
}

/* Collectives 0..3 on team, outstanding together, by wait. */
static void on_team(shmem_team_t team, const char *what)
{
    WT_PHASE("%s", what);
    if (team == SHMEM_TEAM_INVALID) {
        shmem_barrier_all();
        return;
    }
    shmem_req_h r[4];
    for (int k = 0; k < 4; k++)
        fill(team, k);
    shmem_team_sync(team);
    for (int k = 0; k < 4; k++)
        collect(team, k, &r[k]);
    for (int k = 0; k < 4; k++)
        WT_EQ_NUM(shmem_req_wait(&r[k]), 0, "wait %d", k);
    for (int k = 0; k < 4; k++)
        check(team, k);
    shmem_barrier_all();
}

static void other_teams(void)
{
    int n = wt_npes;
    shmem_team_t one, strided;
    WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &one), 0, "split");
    WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, n > 1, 2, n / 2, NULL, 0, &strided), 0,
              "split strided");
    on_team(one, "a team of PE 0 alone");
    on_team(strided, "the odd PEs (a strided team)");
    on_team(SHMEM_TEAM_SHARED, "SHMEM_TEAM_SHARED");
    if (one != SHMEM_TEAM_INVALID)
        shmem_team_destroy(one);
    if (strided != SHMEM_TEAM_INVALID)
        shmem_team_destroy(strided);
}

/* Scratch slots 0 and 1 are the predefined teams', 2 to 7 the next teams'
 * (with receive areas); the seventh team made here has none. */
static void beyond_the_areas(void)
{
    enum { TEAMS = 7 };
    shmem_team_t t[TEAMS];
    for (int i = 0; i < TEAMS; i++)
        WT_EQ_NUM(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, wt_npes, NULL, 0, &t[i]), 0,
                  "split %d", i);
    on_team(t[TEAMS - 1], "a team without receive areas (the engine)");
    for (int i = 0; i < TEAMS; i++)
        shmem_team_destroy(t[i]);
}

/* Blocks of OVERFLOW_LEN bytes: one fits an 8 MiB heap twice (source and
 * dest), two past dest do not. */
#define OVERFLOW_LEN ((size_t)3 << 20)

static void dest_too_small(void)
{
    unsigned char *s = shmem_malloc(OVERFLOW_LEN), *d = shmem_malloc(OVERFLOW_LEN);
    WT_CHECK(s && d, "shmem_malloc");
    memset(s, 1, OVERFLOW_LEN);
    shmem_req_h r;
    shmemx_collectmem_nb(SHMEM_TEAM_WORLD, d, s, OVERFLOW_LEN, &r);
    shmem_req_wait(&r);
    WT_FAIL("the collect into a dest too small for every block completed");
}

int main(int argc, char **argv)
{
    wt_init("coll.nb_collect");
    if (argc > 1 && !strcmp(argv[1], "overflow"))
        dest_too_small();
    src = shmem_malloc((size_t)MANY * SRC_MAX);
    dst = shmem_malloc((size_t)MANY * dst_max(wt_npes));
    told = shmem_calloc(1, sizeof(long));
    flag = shmem_calloc(1, sizeof(long));
    WT_CHECK(src && dst && told && flag, "shmem_malloc");
    int threads = wt_thread_count();
    caller_not_polling();
    many_outstanding();
    wait_before_others();
    other_teams();
    WT_EQ_NUM(wt_thread_count(), threads, "threads after the collects");
    beyond_the_areas();
    shmem_free(flag);
    shmem_free(told);
    shmem_free(dst);
    shmem_free(src);
    wt_finish();
    return 0;
}

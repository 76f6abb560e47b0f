/* SPDX-License-Identifier: BSD-3-Clause */
/* peer_memory: what weft's structures that grow with the job hold in each
 * PE once every peer was reached (one atomic each), against the list they
 * are declared in (src/core/scale.def, through weft/info.h): each row that
 * applies to this job holds its formula's bytes, the others nothing, and
 * the bytes a PE pays for each PE of the job (the rows' per-PE parts:
 * what a PE on another host costs) stay within the limit given as the
 * first argument. Every PE of the job is on this host. PE 0 prints one
 * line with the totals and the process's heap and RSS (docs/scaling.md);
 * check-peer-slope compares two job sizes' totals. A second argument
 * "topology" asks for a PE's L3 domain first (the rows kept once asked).
 * Built with
 * PEER_MEMORY_GASNET the job is a GASNet client too (gasnet_init and
 * gasnet_attach first, then shmem_init nests in them). */
#include "weft_test.h"

#include <malloc.h>

#include <shmemx.h>
#include <weft/info.h>
#ifdef PEER_MEMORY_GASNET
#include <gasnet.h>
#endif

static long counter;

/* Transmit contexts with an endpoint of their own: the default one, and
 * the GASNet engine's where libfabric is open (each has flush marks). */
static size_t copies(const struct weftx_info_scale_row *r, unsigned when)
{
    int gasnet = (when & WEFTX_INFO_SCALE_GASNET) && (when & WEFTX_INFO_SCALE_FABRIC);
    return gasnet && !strcmp(r->name, "flush marks") ? 2 : 1;
}

/* Bytes row r should hold in a job of n PEs, all on this host. */
static size_t expected(const struct weftx_info_scale_row *r, unsigned when, int n, int direct)
{
    if ((r->when & when) != r->when)
        return 0;
    if (r->tables) { /* whole pages per table: this PE's entry at least */
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t entries = direct ? (size_t)n : 0;
        size_t per_table = r->per_host_pe / r->tables * entries;
        return r->tables * ((per_table + page - 1) / page * page);
    }
    return copies(r, when) * ((size_t)r->per_pe * (size_t)n + (size_t)r->per_host_pe * (size_t)n);
}

int main(int argc, char **argv)
{
    long limit = argc > 1 ? atol(argv[1]) : 64;
#ifdef PEER_MEMORY_GASNET
    if (gasnet_init(&argc, &argv) != GASNET_OK || gasnet_attach(NULL, 0, 1 << 20, 0) != GASNET_OK)
        return 1;
#endif
    wt_init("peer_memory");
    WT_PHASE("one atomic to every PE");
    for (int i = 0; i < wt_npes; i++)
        shmem_long_atomic_fetch_add(&counter, 1, (wt_me + i) % wt_npes);
    shmem_barrier_all();
    WT_EQ_NUM(shmem_long_atomic_fetch(&counter, wt_me), wt_npes, "an add from every PE");

    if (argc > 2 && !strcmp(argv[2], "topology")) {
        /* The job-wide NUMA, socket and L3 numbers, made at the first ask. */
        WT_PHASE("topology ids");
        int last = wt_npes - 1;
        WT_CHECK(shmemx_topology_id(SHMEMX_TEAM_TYPE_L3, last) >= 0, "L3 domain of PE %d", last);
    }

    WT_PHASE("the rows against their formulas");
    unsigned when = weftx_info_scale_when();
    const char *onnode = getenv("WEFT_ONNODE");
    int direct = !(onnode && !strcmp(onnode, "0"));
    size_t held = 0, per_pe = 0, tables = 0;
    for (size_t i = 0; i < weftx_info_scale_count(); i++) {
        struct weftx_info_scale_row r;
        WT_CHECK(weftx_info_scale_row(i, &r) == 0, "row %zu", i);
        size_t want = expected(&r, when, wt_npes, direct);
        /* A table of pages may straddle one page more than its entries. */
        size_t slack = r.tables ? r.tables * (size_t)sysconf(_SC_PAGESIZE) : 0;
        WT_CHECK(r.held >= want && r.held <= want + slack,
                 "%s (%s) holds %zu bytes, its formula says %zu at %d PEs (conditions %#x)",
                 r.name, r.owner, r.held, want, wt_npes, when);
        held += r.held;
        /* The message channels are buffers, one per host PE by design. */
        if (strcmp(r.name, "active-message channels"))
            tables += r.held;
        if ((r.when & when) == r.when)
            per_pe += copies(&r, when) * r.per_pe;
    }
    WT_CHECK(per_pe <= (size_t)limit,
             "each PE of the job costs %zu bytes in weft's structures, more than %ld", per_pe,
             limit);
    if (wt_me == 0) {
        struct mallinfo2 mi = mallinfo2();
        long size = 0, rss = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (!f || fscanf(f, "%ld %ld", &size, &rss) != 2)
            rss = 0;
        if (f)
            fclose(f);
        printf("peer_memory: %d PEs, conditions %#x: weft's own %zu bytes (%zu per PE), tables "
               "%zu bytes, %zu per PE of the job; malloc in use %zu, mmapped %zu, RSS %ld\n",
               wt_npes, when, held, held / (size_t)wt_npes, tables, per_pe, mi.uordblks,
               mi.hblkhd, rss * sysconf(_SC_PAGESIZE));
    }
#ifdef PEER_MEMORY_GASNET
    shmem_barrier_all();
    if (wt_me == 0)
        printf("PASS [peer_memory] %d PE(s)\n", wt_npes);
    fflush(stdout);
    gasnet_exit(0);
#endif
    wt_finish();
    return 0;
}

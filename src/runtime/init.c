/* SPDX-License-Identifier: BSD-3-Clause */
/* init.c owns the life cycle of a PE: connect to the launcher, build the
 * symmetric segments, bring up the transport, and tear it all down in the
 * reverse order at finalize (explicit, or at exit for programs that return
 * from main without calling shmem_finalize), and the count of the APIs' init
 * calls, which nest. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "transport/transport.h"
#include "core/lifeline.h"
#include "core/runtime.h"
#include "runtime/team.h"
#include "runtime/topology.h"
#include "weft_config.h"
#include "runtime/lifecycle.h"

static int atexit_registered;
static pid_t init_pid; /* a child forked by the program is not the PE */

/* The job's status for a status a PE passes on (exit, shmem_global_exit):
 * its low byte, or 1 if that is 0 but the status is not (256, INT_MIN). */
static int job_status(int status)
{
    return status == 0 ? 0 : (status & 0xff) ? status & 0xff : 1;
}

/* weft_fatal's way out once the launcher is connected: the line is printed,
 * the launcher need not print its own (oshrun), then the job ends. */
static void abort_explained(int status, const char *msg)
{
    weft_boot_explained();
    weft_boot_abort(status, msg);
}

/* The implicit finalize of a program that leaves without shmem_finalize.
 * After exit(0) (or a return from main) it finalizes as shmem_finalize
 * would; its synchronization is the launcher's barrier and its notice to
 * the peers (runtime/hang.c), never a barrier a peer's shmem_barrier_all could
 * pair with. After a non-zero exit status it does not wait for anyone: it
 * says why the job ends and has the launcher end it with that status (an
 * abort: Hydra, left to see the exit, may kill the peers first and report
 * their SIGKILL instead). */
static void weft_finalize_at_exit(int status, void *arg)
{
    (void)arg;
    if (!weft_rt.initialized || getpid() != init_pid)
        return;
    if (status != 0) {
        weft_lifeline_leaving();
        if (weft_rt.boot_up && strcmp(weft_boot_name(), "singleton") != 0) {
            weft_say("exit", "called with status %d before shmem_finalize, ending the job "
                     "with status %d", status, job_status(status));
            weft_boot_explained();
        }
        weft_transport_abandon(); /* the provider's shared-memory region goes with us */
        weft_shm_files_remove();
        if (weft_rt.boot_up && strcmp(weft_boot_name(), "singleton") != 0)
            weft_boot_abort(status, NULL);
        return;
    }
    weft_runtime_finalize();
}

/* WEFT_TRAFFIC asks for a report that only the recorder, a separate
 * library preloaded into the program (docs/traffic.md), writes: weft itself
 * records nothing, so a job that sets the variable without the recorder
 * would silently get no report. */
static void check_traffic_recorder(void)
{
    if (!weft_tun_is_set(WEFT_TUN_TRAFFIC) || dlsym(RTLD_DEFAULT, "weft_traffic_recorder"))
        return;
    Dl_info self;
    char dir[4096] = "<prefix>/lib";
    if (dladdr((void *)check_traffic_recorder, &self) && self.dli_fname &&
        strchr(self.dli_fname, '/')) {
        snprintf(dir, sizeof dir, "%s", self.dli_fname);
        *strrchr(dir, '/') = '\0';
    }
    weft_warn("shmem_init",
              "WEFT_TRAFFIC=%s is set but the traffic recorder is not loaded, so no report will "
              "be written: start the job with `oshrun --traffic %s`, or add "
              "LD_PRELOAD=%s/libweft-traffic.so",
              weft_tun_str(WEFT_TUN_TRAFFIC), weft_tun_str(WEFT_TUN_TRAFFIC), dir);
}

static void print_banner(void)
{
    if (weft_rt.my_pe != 0)
        return;
    check_traffic_recorder();
    if (weft_tun_bool(WEFT_TUN_SHMEM_VERSION) || weft_tun_bool(WEFT_TUN_SHMEM_INFO))
        printf("weft %s (OpenSHMEM 1.5), libfabric provider %s, %d PEs, launcher %s\n",
               WEFT_VERSION_STRING, weft_transport_provider_name(), weft_rt.n_pes, weft_boot_name());
    if (weft_tun_bool(WEFT_TUN_SHMEM_INFO)) {
        printf("Tunables:\n");
        for (int i = 0; i < WEFT_TUN_COUNT; i++)
            printf("  %-24s = %-10s %s\n", weft_tunables[i].name, weft_tun_str(i),
                   weft_tunables[i].doc);
        weft_transport_describe(stdout);
    }
    fflush(stdout);
}

/* weft's own symmetric data, mapped beside the program's heap so that the
 * program can allocate all of SHMEM_SYMMETRIC_SIZE (test suites written
 * for other implementations allocate or reallocate exactly that much):
 * the internal area, the team scratch pool, the hang report's
 * acknowledgements and room for the small blocks allocated on first use
 * (sym_block.h). Only address space and an unused file tail until
 * touched. GASNet's active-message channels come out of its segment's
 * share (gasnet/core.c, max_segment). */
static size_t internal_heap_bytes(size_t asked)
{
    size_t sym = (sizeof(struct weft_internal_sym) + 63) & ~(size_t)63;
    size_t acks = ((size_t)weft_rt.n_pes * sizeof(uint64_t) + 63) & ~(size_t)63;
    size_t first_use = (size_t)256 << 10;
    return sym + weft_team_pool_bytes(weft_rt.n_pes, asked) + acks + first_use;
}

/* The most a growing heap may reach on this machine: its memory, or its
 * control group's memory limit when lower. */
static size_t machine_memory(void)
{
    size_t mem = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r"); /* "max" when unlimited */
    if (f) {
        unsigned long long cg;
        if (fscanf(f, "%llu", &cg) == 1 && cg < mem)
            mem = (size_t)cg;
        fclose(f);
    }
    return mem;
}

/* This PE's proposal for the heap's limit: SHMEM_SYMMETRIC_SIZE fixes the
 * heap; otherwise WEFT_HEAP_LIMIT, or the machine's memory. */
static size_t heap_limit_proposal(void)
{
    if (weft_tun_is_set(WEFT_TUN_SYMMETRIC_SIZE))
        return weft_tun_size(WEFT_TUN_SYMMETRIC_SIZE);
    size_t set = weft_tun_size(WEFT_TUN_HEAP_LIMIT);
    return set ? set : machine_memory();
}

/* Address space all the heap reservations of one process may take: its
 * own and a mapping of each node peer's (onnode.c), a small part of the
 * 128 TiB a process has. */
#define WEFT_HEAP_ADDRESS_BUDGET ((size_t)16 << 40)
/* And at most this in any case: counting puts name a counter by its heap
 * offset in 40 bits of a write's immediate data (transport/ofi/ofi.h). */
#define WEFT_HEAP_GROW_MAX (((size_t)1 << 40) - ((size_t)1 << 30))

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The most PEs any one host of the job runs (the same answer on every PE). */
static int most_pes_per_host(void)
{
    int n = weft_rt.n_pes, most = 1, run = 1;
    uint64_t *hosts = malloc((size_t)n * sizeof *hosts);
    if (!hosts)
        return n;
    memcpy(hosts, weft_rt.pe_host, (size_t)n * sizeof *hosts);
    qsort(hosts, (size_t)n, sizeof *hosts, cmp_u64);
    for (int i = 1; i < n; i++) {
        run = hosts[i] == hosts[i - 1] ? run + 1 : 1;
        if (run > most)
            most = run;
    }
    free(hosts);
    return most;
}

/* The heap's sizes from the job's limit (the least any PE proposed): the
 * program starts with SHMEM_SYMMETRIC_SIZE or its default, less when the
 * limit is lower, and a heap that may grow is kept within the address
 * space budget. Every input is the same on every PE. */
static void size_heap(size_t asked, size_t limit)
{
    if (limit > asked) {
        size_t budget = WEFT_HEAP_ADDRESS_BUDGET / ((size_t)weft_rt.most_host_pes + 1);
        if (budget > WEFT_HEAP_GROW_MAX)
            budget = WEFT_HEAP_GROW_MAX;
        if (limit > budget)
            limit = budget > asked ? budget : asked;
    }
    if (asked > limit)
        asked = limit;
    weft_rt.heap_asked = asked;
    weft_rt.heap_limit = limit;
    /* Whole pages, so that the program's part of the mapping is what it
     * was given. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    weft_rt.heap_own = (internal_heap_bytes(asked) + page - 1) & ~(page - 1);
}

/* weft_runtime_init's first step: the launcher, this PE's rank and the job's size. */
static void connect_launcher(void)
{
    int rank, size;
    if (weft_boot_init(&rank, &size) != 0)
        weft_fatal("shmem_init", "cannot connect to the launcher");
    weft_rt.my_pe = rank;
    weft_rt.n_pes = size;
    weft_rt.boot_up = 1;
    weft_set_job_abort(abort_explained);
    if (strcmp(weft_boot_name(), "singleton") != 0)
        weft_lifeline_start(weft_boot_watch_fd(), (int)getppid());
    if (gethostname(weft_rt.hostname, sizeof weft_rt.hostname - 1) != 0)
        strcpy(weft_rt.hostname, "localhost");
    weft_debug("launcher %s: %s; PE %d of %d on %s", weft_boot_name(), weft_boot_reason(), rank,
               size, weft_rt.hostname);
}

/* The segments. Everything symmetric addressing assumes
 * equal, checked on the way (agree.c) before anything is laid out; the
 * heap sized and mapped, the static data shared with this node's peers. */
static void lay_out_segments(void)
{
    char *dbase = NULL;
    size_t dsize = 0;
    if (weft_data_segment(&dbase, &dsize) != 0)
        dsize = 0;
    size_t asked = weft_tun_size(WEFT_TUN_SYMMETRIC_SIZE);
    size_t heap_bytes = asked + internal_heap_bytes(asked);
    struct weft_layout layout = {.heap_asked = asked, .heap_bytes = heap_bytes,
                                 .data_bytes = dsize,
                                 .onnode = (uint64_t)weft_tun_bool(WEFT_TUN_ONNODE)};
    layout.heap_limit = heap_limit_proposal();
    weft_layout_string(&layout.setting[WEFT_LAYOUT_TOPOLOGY], weft_tun_str(WEFT_TUN_TOPOLOGY));
    /* PEs on different providers could not reach each other's addresses. */
    weft_layout_string(&layout.setting[WEFT_LAYOUT_WEFT_PROVIDER],
                       weft_tun_str(WEFT_TUN_PROVIDER));
    weft_layout_string(&layout.setting[WEFT_LAYOUT_FI_PROVIDER], getenv("FI_PROVIDER"));
    weft_node_init(&layout); /* layout.heap_limit: now the job's */
    weft_topology_init(); /* needs pe_host; collective over the launcher */
    weft_rt.most_host_pes = most_pes_per_host();
    size_heap(asked, layout.heap_limit);
    weft_heap_init(weft_rt.heap_asked + weft_rt.heap_own, weft_rt.heap_limit + weft_rt.heap_own);
    weft_rt.sym = weft_heap_alloc(64, sizeof(struct weft_internal_sym));
    memset(weft_rt.sym, 0, sizeof *weft_rt.sym);

    if (dsize > 0)
        weft_rt.seg[WEFT_SEG_DATA] = (struct weft_segment){dbase, dsize, -1};
    /* before anything registers or maps it */
    weft_transport_share_static(weft_topology_ids(WEFT_TOPO_NODE),
                                weft_topology_count(WEFT_TOPO_NODE));
    weft_debug("heap %p+%zu, %zu more for weft's own, %s %zu; static data %p+%zu",
               (void *)weft_rt.seg[WEFT_SEG_HEAP].base, weft_rt.heap_asked, weft_rt.heap_own,
               weft_rt.heap_limit > weft_rt.heap_asked ? "grows up to" : "fixed at",
               weft_rt.heap_limit, (void *)weft_rt.seg[WEFT_SEG_DATA].base,
               weft_rt.seg[WEFT_SEG_DATA].size);
}

/* After the transport, the fast path opens: its limit gates the other inputs. */
static void open_fast_path(void)
{
    weft_fast_n_pes = (unsigned)weft_rt.n_pes;
    weft_fast_heap_peer = weft_transport_fast_peers(WEFT_SEG_HEAP);
    weft_fast_heap_limit = weft_rt.seg[WEFT_SEG_HEAP].size - WEFT_FAST_MAX;
    weft_fast_set_bases(weft_fast_heap_base, weft_rt.seg[WEFT_SEG_DATA].base);
    weft_fast_data_peer = weft_transport_fast_peers(WEFT_SEG_DATA);
    if (weft_rt.seg[WEFT_SEG_DATA].size > WEFT_FAST_MAX && weft_fast_data_peer)
        weft_fast_data_limit = weft_rt.seg[WEFT_SEG_DATA].size - WEFT_FAST_MAX;
    weft_fast_pg_limit = weft_transport_window() ? weft_transport_window() - WEFT_FAST_MAX
                                                 : weft_fast_heap_limit;
}

/* The last step: every PE set up before any reaches another. Without
 * libfabric (every PE reached directly) the launcher's barrier does it: a
 * PE waits there in a blocking read, using no CPU, while its peers, maybe
 * many more than the cores, still start. In the polling barrier the early
 * PEs would take turns on the cores with the late ones: at 128 PEs on 2
 * cores half of all start-up CPU time (docs/performance.md). With
 * libfabric the first barrier is also the wire-up check. */
static void meet_peers(void)
{
    if (weft_transport_libfabric_unused() && weft_rt.n_pes > 1) {
        if (weft_boot_barrier() != 0)
            weft_fatal("shmem_init", "the launcher's barrier failed");
    } else {
        weft_barrier_all_internal();
    }
    weft_transport_wireup_done(); /* every PE reached its peers: the bound is lifted */
    weft_barrier_all_plan(1);
    /* Every peer has mapped our shm regions (at its fi_av_insert, before
     * this barrier, up to libfabric 1.22): their names can go, and a PE
     * killed from now on (SIGKILL from Hydra, or from anyone) leaves no
     * file behind. */
    if (!weft_transport_libfabric_unused() && weft_transport_shm_names_done())
        weft_shm_files_remove();
    weft_shm_reaper_settle();
    weft_node_forget_hosts();
}

int weft_runtime_init(int requested, int *provided)
{
    if (weft_rt.initialized) {
        if (provided)
            *provided = weft_rt.thread_level;
        return 0;
    }
    weft_debug_enabled = weft_tun_bool(WEFT_TUN_DEBUG) || weft_tun_bool(WEFT_TUN_SHMEM_DEBUG);
    weft_tun_check_ints();

    connect_launcher();
    lay_out_segments();
    if (weft_transport_init(requested >= WEFT_THREAD_MULTIPLE) != 0)
        weft_fatal("shmem_init", "cannot initialize the libfabric transport (set WEFT_DEBUG=1 "
                   "for details; FI_PROVIDER selects a provider)");
    open_fast_path();
    weft_team_init_predefined();
    weft_hang_init();
    weft_rt.heap_own_used = weft_heap_in_use(); /* the program's use starts from here */

    /* MULTIPLE needs a domain every thread may drive at once
     * (FI_THREAD_SAFE); a provider without it gets SERIALIZED, as the spec
     * allows. */
    int most = weft_transport_thread_multiple() ? WEFT_THREAD_MULTIPLE : WEFT_THREAD_MULTIPLE - 1;
    weft_rt.thread_level = requested < 0 ? 0 : requested > most ? most : requested;
    if (provided)
        *provided = weft_rt.thread_level;

    weft_rt.initialized = 1;
    weft_rt.finalized = 0;
    init_pid = getpid();
    if (!atexit_registered) {
        on_exit(weft_finalize_at_exit, NULL);
        atexit_registered = 1;
    }
    meet_peers();
    print_banner();
    return 0;
}

/* OpenSHMEM 1.6 lets initialization calls nest: each needs its own
 * shmem_finalize and only the last finalize tears the library down. This
 * counts the calls not yet matched. */
static int unmatched_inits;

/* Re-initialization after the last finalize (also 1.6) is not supported:
 * finalize closes the launcher connection, which cannot be reopened, and
 * the job-wide address exchange would have to run again under new keys. */
static const char reinit_refusal[] =
    "the library was finalized and weft cannot initialize it again in the same process "
    "(OpenSHMEM 1.6 allows it; see docs/conformance.md): keep one shmem_init ... "
    "shmem_finalize pair around all OpenSHMEM use, or nest the pairs";

/* Returns 1 when the library is already up and this call only nests. */
static int nested_init(int *provided)
{
    if (!weft_rt.initialized)
        return 0;
    unmatched_inits++;
    if (provided)
        *provided = weft_rt.thread_level;
    return 1;
}

void weft_runtime_init_single(const char *call)
{
    if (nested_init(NULL))
        return;
    if (weft_rt.finalized)
        weft_fatal(call, "%s", reinit_refusal);
    weft_runtime_init(WEFT_THREAD_SINGLE, NULL);
    unmatched_inits = 1;
}

int weft_runtime_init_thread(const char *call, int requested, int *provided)
{
    if (nested_init(provided))
        return 0;
    /* init_thread has a failure return: use it rather than abort. */
    if (weft_rt.finalized) {
        weft_warn(call, "%s", reinit_refusal);
        return 1;
    }
    int rc = weft_runtime_init(requested, provided);
    unmatched_inits = 1;
    return rc;
}

int weft_runtime_finalize_unnests(void)
{
    if (weft_rt.initialized && unmatched_inits > 1) {
        unmatched_inits--;
        return 1;
    }
    unmatched_inits = 0;
    return 0;
}

void weft_runtime_finalize(void)
{
    if (!weft_rt.initialized)
        return;
    /* Tell the peers first: one still waiting in a collective we will
     * never join learns it cannot complete (runtime/hang.c). */
    weft_hang_announce_finalize();
    weft_transport_quiet(&weft_ctx_default);
    /* No barrier of ours here: the libfabric fini's launcher barrier (with
     * progress kept running) is finalize's synchronization, so it can
     * never pair with a peer's shmem_barrier_all. */
    weft_fast_pg_limit = 0; /* every call after this takes the checked path */
    weft_fast_heap_limit = 0;
    weft_fast_data_limit = 0;
    weft_barrier_all_plan(0);
    weft_rt.initialized = 0;
    weft_rt.finalized = 1;
    weft_transport_fini_libfabric();
    weft_lifeline_stop(); /* the launcher may close the connection after this */
    weft_boot_finalize();
    weft_rt.boot_up = 0;
    weft_set_job_abort(NULL);
    weft_team_fini();
    weft_transport_fini_onnode();
    weft_heap_fini();
    weft_node_fini();
    weft_topology_fini();
    weft_rt.seg[WEFT_SEG_DATA] = (struct weft_segment){NULL, 0, -1};
    weft_rt.sym = NULL;
}

void weft_runtime_global_exit(const char *call, int status)
{
    fflush(stdout);
    fflush(stderr);
    weft_lifeline_leaving();
    if (weft_rt.boot_up && strcmp(weft_boot_name(), "singleton") != 0) {
        char named[64];
        snprintf(named, sizeof named, "%s(%d)", call, status);
        weft_say(named, "the program ends the job with status %d%s", job_status(status),
                 status != 0 && !(status & 0xff) ? " (its argument's low byte is 0)" : "");
        weft_boot_explained();
    }
    weft_transport_abandon();
    weft_shm_files_remove();
    if (weft_rt.boot_up)
        weft_boot_abort(status, NULL);
    /* A non-zero status whose low byte is 0 (256, INT_MIN) must not read
     * as success. */
    _exit(job_status(status));
}

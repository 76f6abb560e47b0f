/* init.c owns the life cycle of a PE: connect to the launcher, build the
 * symmetric segments, bring up the transport, and tear it all down in the
 * reverse order at finalize (explicit, or at exit for programs that return
 * from main without calling shmem_finalize). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bootstrap/bootstrap.h"
#include "../transport/transport.h"
#include "runtime.h"
#include "team.h"
#include "topology.h"
#include "weft_config.h"

static int atexit_registered;

static void weft_finalize_at_exit(void)
{
    if (weft_rt.initialized)
        weft_runtime_finalize();
}

static void print_banner(void)
{
    if (weft_rt.my_pe != 0)
        return;
    if (weft_tun_bool(WEFT_TUN_SHMEM_VERSION) || weft_tun_bool(WEFT_TUN_SHMEM_INFO))
        printf("weft %s (OpenSHMEM 1.5), libfabric provider %s, %d PEs, launcher %s\n",
               WEFT_VERSION_STRING, weft_ofi_provider_name(), weft_rt.n_pes, weft_boot_name());
    if (weft_tun_bool(WEFT_TUN_SHMEM_INFO)) {
        printf("Tunables:\n");
        for (int i = 0; i < WEFT_TUN_COUNT; i++)
            printf("  %-24s = %-10s %s\n", weft_tunables[i].name, weft_tun_str(i),
                   weft_tunables[i].doc);
        weft_ofi_describe(stdout);
        weft_onnode_describe(stdout);
    }
    fflush(stdout);
}

int weft_runtime_init(int requested, int *provided)
{
    if (weft_rt.initialized) {
        if (provided)
            *provided = weft_rt.thread_level;
        return 0;
    }
    weft_debug_enabled = weft_tun_bool(WEFT_TUN_DEBUG) || weft_tun_bool(WEFT_TUN_SHMEM_DEBUG);

    int rank, size;
    if (weft_boot_init(&rank, &size) != 0)
        weft_fatal("shmem_init", "cannot connect to the launcher");
    weft_rt.my_pe = rank;
    weft_rt.n_pes = size;
    weft_rt.boot_up = 1;
    if (gethostname(weft_rt.hostname, sizeof weft_rt.hostname - 1) != 0)
        strcpy(weft_rt.hostname, "localhost");
    weft_debug("launcher %s, PE %d of %d on %s", weft_boot_name(), rank, size, weft_rt.hostname);

    weft_node_init();
    weft_topology_init(); /* needs pe_host; collective over the launcher */
    weft_heap_init(weft_tun_size(WEFT_TUN_SYMMETRIC_SIZE));
    weft_rt.sym = weft_heap_alloc(64, sizeof(struct weft_internal_sym));
    memset(weft_rt.sym, 0, sizeof *weft_rt.sym);

    char *dbase;
    size_t dsize;
    if (weft_data_segment(&dbase, &dsize) == 0 && dsize > 0)
        weft_rt.seg[WEFT_SEG_DATA] = (struct weft_segment){dbase, dsize, -1};
    weft_onnode_share_static(); /* before anything registers or maps it */
    weft_debug("heap %p+%zu, static data %p+%zu", (void *)weft_rt.seg[WEFT_SEG_HEAP].base,
               weft_rt.seg[WEFT_SEG_HEAP].size, (void *)weft_rt.seg[WEFT_SEG_DATA].base,
               weft_rt.seg[WEFT_SEG_DATA].size);

    weft_onnode_init(); /* the atomicity rule needs it before ofi_init */
    if (weft_ofi_init(requested >= WEFT_THREAD_MULTIPLE) != 0)
        weft_fatal("shmem_init", "cannot initialize the libfabric transport (set WEFT_DEBUG=1 "
                   "for details; FI_PROVIDER selects a provider)");
    weft_ctx_default.ofi = weft_ofi_default_tx();
    /* Open the fast path last: its limit gates the other inputs. */
    weft_fast_n_pes = (unsigned)weft_rt.n_pes;
    weft_fast_heap_peer = weft_onnode.base[WEFT_SEG_HEAP];
    weft_fast_heap_limit = weft_rt.seg[WEFT_SEG_HEAP].size - WEFT_FAST_MAX;
    weft_fast_set_bases(weft_fast_heap_base, weft_rt.seg[WEFT_SEG_DATA].base);
    weft_fast_data_peer = weft_onnode.base[WEFT_SEG_DATA];
    if (weft_rt.seg[WEFT_SEG_DATA].size > WEFT_FAST_MAX && weft_fast_data_peer)
        weft_fast_data_limit = weft_rt.seg[WEFT_SEG_DATA].size - WEFT_FAST_MAX;
    weft_team_init_predefined();

    /* MULTIPLE needs a domain every thread may drive at once
     * (FI_THREAD_SAFE); a provider without it gets SERIALIZED, as the spec
     * allows. */
    int most = weft_ofi_thread_multiple() ? WEFT_THREAD_MULTIPLE : WEFT_THREAD_MULTIPLE - 1;
    weft_rt.thread_level = requested < 0 ? 0 : requested > most ? most : requested;
    if (provided)
        *provided = weft_rt.thread_level;

    weft_rt.initialized = 1;
    weft_rt.finalized = 0;
    if (!atexit_registered) {
        atexit(weft_finalize_at_exit);
        atexit_registered = 1;
    }
    weft_barrier_all_internal();
    print_banner();
    return 0;
}

void weft_runtime_finalize(void)
{
    if (!weft_rt.initialized)
        return;
    weft_tx_quiet(&weft_ctx_default);
    weft_barrier_all_internal();
    weft_fast_heap_limit = 0; /* every call after this takes the checked path */
    weft_fast_data_limit = 0;
    weft_rt.initialized = 0;
    weft_rt.finalized = 1;
    weft_ofi_fini();
    weft_boot_finalize();
    weft_rt.boot_up = 0;
    weft_team_fini();
    weft_onnode_fini();
    weft_heap_fini();
    weft_node_fini();
    weft_topology_fini();
    weft_rt.seg[WEFT_SEG_DATA] = (struct weft_segment){NULL, 0, -1};
    weft_rt.sym = NULL;
}

void weft_runtime_global_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    if (weft_rt.boot_up)
        weft_boot_abort(status, NULL);
    _exit(status);
}

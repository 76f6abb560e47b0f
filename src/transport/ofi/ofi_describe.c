/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_describe.c owns weft_ofi_describe: what weft-info --transport and
 * SHMEM_INFO print of the libfabric transport (provider, mr_mode, limits,
 * orderings, completion, contexts, the AMO table). */
#include <string.h>

#include "transport/onnode/onnode.h"
#include "transport/ofi/ofi_internal.h"

static const char *progress_name(enum fi_progress p)
{
    return p == FI_PROGRESS_AUTO ? "auto" : p == FI_PROGRESS_MANUAL ? "manual" : "unspecified";
}

static void describe_contexts(FILE *out)
{
    pthread_mutex_lock(&weft_ofi.ctx.lock);
    int budget = weft_ofi.ctx.ep_budget, open = weft_ofi.ctx.eps_open;
    int idle = weft_ofi.ctx.eps_idle, sharing = weft_ofi.ctx.sharing;
    int refused = weft_ofi.ctx.refused;
    pthread_mutex_unlock(&weft_ofi.ctx.lock);
    fprintf(out, "  contexts          own endpoint + CQ + 2 counters, at most %d at once (%s)%s\n",
            budget, weft_ofi.ctx.ep_limit_by,
            weft_onnode.all_direct ? ",\n                    unused here: every PE is reached "
                                     "directly"
                                   : "");
    fprintf(out, "                    a destroyed context's endpoint serves the next one\n");
    fprintf(out, "                    past the limit: %s\n",
            weft_ofi.ctx.share ? "share the default context's endpoint (WEFT_CTX_SHARE=1)"
                               : "creation fails (WEFT_CTX_SHARE=0)");
    fprintf(out, "                    locks: none for PRIVATE/SERIALIZED contexts; under\n"
                 "                    SHMEM_THREAD_MULTIPLE one per operation for the others\n");
    fprintf(out, "                    now: %d endpoints in use, %d idle; %d contexts sharing, "
                 "%d refused\n", open - idle, idle, sharing, refused);
}

/* Provider, addressing, limits, progress, idle waits, threading. */
static void describe_provider(FILE *out, const struct fi_info *fi)
{
    uint32_t v = fi->fabric_attr->prov_version;
    fprintf(out, "libfabric transport (libfabric %u.%u, API %u.%u):\n", FI_MAJOR(fi_version()),
            FI_MINOR(fi_version()), FI_MAJOR_VERSION, FI_MINOR_VERSION);
    fprintf(out, "  provider          %s %u.%u\n", fi->fabric_attr->prov_name, FI_MAJOR(v),
            FI_MINOR(v));
    fprintf(out, "  fabric / domain   %s / %s\n", fi->fabric_attr->name, fi->domain_attr->name);
    fprintf(out, "  mr_mode           %s\n",
            fi->domain_attr->mr_mode ? fi_tostr(&fi->domain_attr->mr_mode, FI_TYPE_MR_MODE)
                                     : "(none)");
    fprintf(out, "  remote addressing %s, keys %s\n",
            weft_ofi.fab.virt_addr ? "virtual addresses (bases exchanged)" : "segment offsets",
            weft_ofi.fab.prov_key ? "provider-chosen (exchanged)" : "requested (= segment id)");
    fprintf(out, "  local MR          %s\n",
            weft_ofi.fab.mr_local ? "required (bounce buffers)" : "not required");
    fprintf(out, "  inject size       %zu (provider %zu)\n", weft_ofi.put.inject_size,
            weft_ofi.fab.prov_inject);
    fprintf(out, "  max message       %zu (chunks of %zu)\n", fi->ep_attr->max_msg_size,
            weft_ofi.fab.max_msg);
    fprintf(out, "  iov / rma_iov     %zu / %zu\n", fi->tx_attr->iov_limit,
            fi->tx_attr->rma_iov_limit);
    fprintf(out, "  progress          data %s, control %s; progress thread %s\n",
            progress_name(fi->domain_attr->data_progress),
            progress_name(fi->domain_attr->control_progress),
            weft_ofi.progress.thread_on ? "running" : "off");
    int naps = weft_idle_naps_possible();
    fprintf(out, "  idle waits        %s\n",
            !naps ? "spin, then yield the CPU (no naps: this host's PEs fit on its CPUs, or "
                    "WEFT_IDLE_NAP=0)"
            : weft_ofi.progress.served_cntr
                ? "nap after 200 us without serving a peer (WEFT_IDLE_NAP; "
                  "a remote-access counter counts what is served)"
            : weft_ofi.progress.cq_wait_fd
                ? "nap on the CQ's descriptor after 200 us without traffic "
                  "(WEFT_IDLE_NAP; a peer's request ends the nap)"
                : "spin, then yield the CPU (the provider can neither count "
                  "the requests served nor be waited on)");
    fprintf(out, "  waits for updates %s\n",
            weft_ofi_updates_counted && weft_onnode.peers_direct
                ? "poll memory (node peers store into it directly)"
            : weft_ofi_updates_counted
                ? "sleep on a counter of peers' writes, atomics and messages (WEFT_WAIT_COUNTER)"
            : !weft_tun_bool(WEFT_TUN_WAIT_COUNTER) ? "poll memory (WEFT_WAIT_COUNTER=0)"
            : weft_ofi.thread_multiple ? "poll memory (SHMEM_THREAD_MULTIPLE)"
                                       : "poll memory (only sockets counts remote writes, applies "
                                         "them alone and wakes a sleeper)");
    fprintf(out, "  waits for replies %s\n",
            weft_ofi.progress.replies_sleep
                ? "sleep in fi_cntr_wait on a counter of arriving messages (WEFT_REPLY_WAIT)"
                : "poll (WEFT_REPLY_WAIT=sleep sleeps instead, on tcp;ofi_rxm only)");
    fprintf(out, "  threading         %s; SHMEM_THREAD_MULTIPLE %s\n",
            weft_ofi.fab.thread_safe ? "FI_THREAD_SAFE" : "FI_THREAD_DOMAIN",
            weft_ofi.thread_multiple
                ? "in use: the default context locks each libfabric operation"
                : "not requested (it asks for FI_THREAD_SAFE)");
}

/* How puts and gets of each size travel, and how quiet completes them. */
static void describe_transfers(FILE *out)
{
    if (weft_ofi.put.coalesce)
        fprintf(out, "  small puts        coalesced up to %d bytes: consecutive puts to one PE "
                "leave as one message (WEFT_COALESCE)\n", WEFT_OFI_COAL_MAX_PUT);
    else
        fprintf(out, "  small puts        one write each\n");
    size_t split_top = weft_ofi.put.split_put_max; /* larger ones from wmin on are copied */
    if (weft_ofi_cma.wmin != SIZE_MAX && weft_ofi_cma.wmin - 1 < split_top)
        split_top = weft_ofi_cma.wmin - 1;
    if (split_top > weft_ofi.put.inject_size)
        fprintf(out, "  mid-size puts     up to %zu bytes as injected pieces of %zu "
                "(WEFT_SHM_SPLIT_PUT)\n", split_top, weft_ofi.put.inject_size);
    if (weft_ofi_cma.min != SIZE_MAX)
        fprintf(out, "  large gets        from %zu bytes copied by this PE (process_vm_readv) "
                "after a read through the target's queue (WEFT_SHM_CMA_READ)\n", weft_ofi_cma.min);
    if (weft_ofi_cma.wmin != SIZE_MAX)
        fprintf(out, "  large puts        from %zu bytes copied by this PE (process_vm_writev) "
                "after a read through the target's queue (WEFT_SHM_CMA_WRITE)\n",
                weft_ofi_cma.wmin);
    fprintf(out, "  remote completion %s\n",
            weft_ofi.put.rc != WEFT_RC_DELIVERY
                ? "flush: a read to every PE written since the last quiet"
            : weft_ofi.put.writes_flushed
                ? "blocking puts, and non-blocking ones past the first four since a quiet, "
                  "without FI_DELIVERY_COMPLETE, flushed by a read at quiet (injected puts and "
                  "atomics too)"
            : weft_ofi.order.injects_queued_in_order
                ? "FI_DELIVERY_COMPLETE (injected puts and atomics queue in order at the "
                  "target: quiet reads nothing back)"
                : "FI_DELIVERY_COMPLETE (injected puts/atomics flushed by a read at quiet)");
}

static void describe_ordering(FILE *out)
{
    fprintf(out, "  fence             %s\n",
            weft_ofi.order.ordered
                ? "free: the provider orders writes, atomics and messages "
                  "(FI_ORDER_WAW, FI_ORDER_SAW)"
            : weft_ofi.order.rma_ordered
                ? "free between puts (FI_ORDER_RMA_WAW); an atomic after it, or a fence after "
                  "an atomic, completes the earlier operations (no FI_ORDER_WAW/SAW)"
            : weft_onnode.split
                ? "a quiet: node peers are reached directly for one segment and through "
                  "libfabric for the other"
            : (weft_ofi.fab.info->tx_attr->msg_order & WEFT_OFI_FENCE_ORDER) == WEFT_OFI_FENCE_ORDER
                ? "a quiet (WEFT_FENCE=quiet)"
                : "a quiet: the provider does not order writes, atomics and messages");
}

static void describe_atomics(FILE *out)
{
    fprintf(out, "  provider atomics  %s%s\n",
            weft_ofi.fab.have_atomic_cap ? "FI_ATOMIC" : "none",
            weft_ofi_native_atomics_broken(weft_ofi_provider_name())
                ? " (not used: this provider's native atomics do not work)"
            : weft_ofi.amo.forced_software ? " (WEFT_AMO=software: not used)"
            : weft_onnode.mixed          ? " (not used: the job mixes the on-node path and "
                                           "libfabric)"
                                         : "");
    fprintf(out, "  AMO rule          per datatype: native only if the provider supports every\n"
                 "                    op of the type (ints: fetch set swap cswap add and or xor;\n"
                 "                    floats: fetch set swap); otherwise every op on that type\n"
                 "                    runs in software (target CPU atomics via messages).\n");
    static const char *const short_op[WEFT_AMO_NOPS] = {"fetch", "set", "swap", "cswap",
                                                         "add",   "and", "or",   "xor"};
    fprintf(out, "  AMO table         ");
    for (int o = 0; o < WEFT_AMO_NOPS; o++)
        fprintf(out, "%-6s", short_op[o]);
    fprintf(out, " => type\n");
    for (int d = 0; d < WEFT_DT_NTYPES; d++) {
        fprintf(out, "    %-14s  ", weft_dtype_names[d]);
        int flt = d == WEFT_DT_F32 || d == WEFT_DT_F64;
        for (int o = 0; o < WEFT_AMO_NOPS; o++) {
            int applicable = !flt || o <= WEFT_AMO_SWAP;
            fprintf(out, "%-6s", !applicable ? "-" : weft_ofi.amo.query[o][d] ? "yes" : "no");
        }
        fprintf(out, " => %s\n", weft_ofi.amo.dt_native[d] ? "native" : "software");
    }
}


void weft_ofi_describe(FILE *out)
{
    struct fi_info *fi = weft_ofi.fab.info;
    if (!fi) {
        fprintf(out, "libfabric transport: %s\n",
                weft_ofi.unused ? "not opened (every PE is reached directly)"
                                : "not initialized");
        return;
    }
    describe_provider(out, fi);
    describe_contexts(out);
    describe_transfers(out);
    describe_ordering(out);
    describe_atomics(out);
}

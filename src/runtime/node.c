/* SPDX-License-Identifier: BSD-3-Clause */
/* node.c owns host identity: which PEs share this machine, decided by
 * hostname plus the kernel's boot id (two containers with one hostname but
 * different kernels are different hosts), learned once at init through the
 * launcher's key-value exchange; and which process each PE on this host is
 * (pid and start time), so that a waiting PE can see whether a silent node
 * peer is stopped or gone (the hang report, runtime/hang.c). The same
 * exchange carries each PE's symmetric layout for agree.c to compare (no
 * exchange of its own), and the limit of each PE's heap, of which the job
 * takes the least; and where the launcher placed each PE (PMIx's locality,
 * bootstrap.h) and the leaf switch Slurm names for it, for
 * runtime/topology.c, when it named them for all, and whether the PEs of
 * each host share one CPU binding (then the topology needs no exchange of
 * placements): one launcher exchange for all of these (each costs a fence,
 * tens of ms under srun). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "core/fnv.h"
#include "core/runtime.h"
#include "core/scale.h"
#include "runtime/lifecycle.h"
#include "runtime/topology.h"

static uint64_t host_identity(void)
{
    char boot_id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot_id, sizeof boot_id, f))
            boot_id[0] = '\0';
        fclose(f);
    }
    return weft_fnv1a_str(weft_fnv1a_str(WEFT_FNV1A_BASIS, weft_rt.hostname), boot_id);
}

/* A process as /proc/<pid>/stat shows it: its state letter and start time
 * (clock ticks after boot; with the pid it names one process, as pids are
 * reused). Returns 0, or -1 when there is no such process. */
static int proc_stat(long pid, char *state, uint64_t *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return -1;
    buf[got] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold anything */
    unsigned long long st;
    /* Fields after the name: state (3) ... starttime (22). */
    if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
                     "%*d %*d %*d %llu", state, &st) != 2)
        return -1;
    *start = st;
    return 0;
}

/* This process's CPU affinity, hashed (FNV-1a over the mask's bytes up
 * to its last set CPU); 0 when it cannot be read. */
static uint64_t binding_hash(void)
{
    for (int ncpu = 1024; ncpu <= (1 << 22); ncpu *= 2) {
        cpu_set_t *cs = CPU_ALLOC(ncpu);
        size_t sz = CPU_ALLOC_SIZE(ncpu);
        if (!cs)
            return 0;
        CPU_ZERO_S(sz, cs);
        if (sched_getaffinity(0, sz, cs) == 0) {
            const unsigned char *b = (const unsigned char *)cs;
            size_t len = sz;
            while (len && !b[len - 1])
                len--;
            uint64_t h = weft_fnv1a_bytes(WEFT_FNV1A_BASIS, b, len);
            CPU_FREE(cs);
            return h ? h : 1;
        }
        CPU_FREE(cs);
        if (errno != EINVAL)
            return 0;
    }
    return 0;
}

struct node_card {
    struct weft_layout layout; /* layout.host: the host identity */
    int64_t pid;
    uint64_t start;
    /* NUMA node, socket, L3 from the launcher (-1: node-wide), and 1 if
     * it said them (else the topology asks hwloc). */
    int16_t place[3], placed;
    uint64_t switch_key; /* weft_topology_slurm_switch; 0: none */
    uint64_t binding;    /* binding_hash */
};

/* Every PE's place (3 per PE) when the launcher gave them all, else NULL:
 * kept until the topology has read it. */
static int16_t *launcher_place;
/* Every PE's switch key when every PE has one, else NULL: kept until the
 * topology has read it. */
static uint64_t *switch_keys;
static int bindings_uniform;

/* Orders (host, binding) pairs by host, then binding. */
static int cmp_host_binding(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* 1 if every host's PEs have one CPU binding (all known). */
static int same_binding_per_host(const struct node_card *cards, int n)
{
    uint64_t (*hb)[2] = malloc((size_t)n * sizeof *hb);
    if (!hb)
        weft_fatal("shmem_init", "out of memory for the bindings of %d PEs", n);
    int known = 1;
    for (int i = 0; i < n; i++) {
        hb[i][0] = cards[i].layout.host;
        hb[i][1] = cards[i].binding;
        known &= cards[i].binding != 0;
    }
    qsort(hb, (size_t)n, sizeof *hb, cmp_host_binding);
    int same = known;
    for (int i = 1; same && i < n; i++)
        same = hb[i][0] != hb[i - 1][0] || hb[i][1] == hb[i - 1][1];
    free(hb);
    return same;
}

/* The processes of this host's PEs, in PE order: kept only for them
 * (a PE on another host cannot be looked at), so the table grows with the
 * PEs per host, not with the job. */
struct host_peer {
    int32_t pe;
    int32_t pid; /* Linux's pid_max is at most 2^22 */
    uint64_t start : 63;
    uint64_t seen_alive : 1; /* the process was once found */
};
_Static_assert(sizeof(struct host_peer) == 16, "16 bytes per host peer (scale.def)");
static struct host_peer *host_peers;
static int n_host_peers;

void weft_node_init(struct weft_layout *layout)
{
    int n = weft_rt.n_pes;
    layout->host = host_identity();
    struct node_card mine = {*layout, (int64_t)getpid(), 0, {-1, -1, -1}, 0,
                             weft_topology_slurm_switch(), binding_hash()};
    char st;
    if (proc_stat((long)mine.pid, &st, &mine.start) != 0)
        mine.start = 0;
    int dom[3];
    if (weft_boot_locality(dom) == 0) {
        for (int t = 0; t < 3; t++)
            mine.place[t] = (int16_t)dom[t];
        mine.placed = 1;
    }
    weft_rt.pe_host = calloc((size_t)n, sizeof *weft_rt.pe_host);
    struct node_card *cards = calloc((size_t)n, sizeof *cards);
    struct weft_layout *all = calloc((size_t)n, sizeof *all);
    if (!weft_rt.pe_host || !cards || !all)
        weft_fatal("shmem_init", "out of memory for %d host identities", n);
    if (weft_boot_allgather("weft-host", &mine, cards, sizeof mine) != 0)
        weft_fatal("shmem_init", "cannot exchange host identities through the launcher");
    for (int i = 0; i < n; i++)
        all[i] = cards[i].layout;
    weft_layout_agree(all);
    free(all);
    weft_rt.single_node = 1;
    n_host_peers = 0;
    int all_placed = 1, all_switched = 1;
    for (int i = 0; i < n; i++) {
        all_placed &= cards[i].placed;
        all_switched &= cards[i].switch_key != 0;
        if (cards[i].layout.heap_limit < layout->heap_limit)
            layout->heap_limit = cards[i].layout.heap_limit;
        weft_rt.pe_host[i] = cards[i].layout.host;
        if (cards[i].layout.host != layout->host)
            weft_rt.single_node = 0;
        else
            n_host_peers++;
    }
    host_peers = calloc((size_t)n_host_peers, sizeof *host_peers);
    if (!host_peers)
        weft_fatal("shmem_init", "out of memory for %d host peers", n_host_peers);
    weft_scale_note(WEFT_SCALE_HOST_PEERS, (size_t)n_host_peers * sizeof *host_peers);
    for (int i = 0, k = 0; i < n; i++)
        if (cards[i].layout.host == layout->host)
            host_peers[k++] = (struct host_peer){i, (int32_t)cards[i].pid, cards[i].start, 0};
    free(launcher_place);
    launcher_place = NULL;
    /* Every PE decides alike from the same cards: the topology's exchanges
     * that follow depend on it. */
    if (all_placed && !(launcher_place = malloc((size_t)n * 3 * sizeof *launcher_place)))
        weft_fatal("shmem_init", "out of memory for the placement of %d PEs", n);
    for (int i = 0; launcher_place && i < n; i++)
        memcpy(&launcher_place[3 * i], cards[i].place, sizeof cards[i].place);
    free(switch_keys);
    switch_keys = NULL;
    if (all_switched && !(switch_keys = malloc((size_t)n * sizeof *switch_keys)))
        weft_fatal("shmem_init", "out of memory for the switches of %d PEs", n);
    for (int i = 0; switch_keys && i < n; i++)
        switch_keys[i] = cards[i].switch_key;
    bindings_uniform = same_binding_per_host(cards, n);
    free(cards);
}

const int16_t *weft_node_launcher_place(void)
{
    return launcher_place;
}

void weft_node_forget_launcher_place(void)
{
    free(launcher_place);
    launcher_place = NULL;
}

const uint64_t *weft_node_switch_keys(void)
{
    return switch_keys;
}

int weft_node_bindings_uniform(void)
{
    return bindings_uniform;
}

void weft_node_forget_switch_keys(void)
{
    free(switch_keys);
    switch_keys = NULL;
}

static struct host_peer *host_peer(int pe)
{
    int lo = 0, hi = n_host_peers - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (host_peers[mid].pe == pe)
            return &host_peers[mid];
        if (host_peers[mid].pe < pe)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

void weft_node_forget_hosts(void)
{
    free(weft_rt.pe_host);
    weft_rt.pe_host = NULL;
}

int weft_host_pe_count(void)
{
    return n_host_peers;
}

char weft_node_peer_state(int pe, long *pid)
{
    struct host_peer *h = host_peers ? host_peer(pe) : NULL;
    if (!h || h->start == 0)
        return 0;
    *pid = (long)h->pid;
    char st;
    uint64_t start;
    /* No such process, or another one now (the pid was reused): the peer
     * is gone if it was once found, else it lives in another pid namespace
     * and cannot be seen from here. */
    if (proc_stat((long)h->pid, &st, &start) != 0 || start != h->start)
        return h->seen_alive ? 'X' : 0;
    h->seen_alive = 1;
    return st;
}

void weft_node_fini(void)
{
    weft_node_forget_launcher_place();
    weft_node_forget_switch_keys();
    free(weft_rt.pe_host);
    weft_rt.pe_host = NULL;
    free(host_peers);
    host_peers = NULL;
    n_host_peers = 0;
    weft_scale_note(WEFT_SCALE_HOST_PEERS, 0);
}

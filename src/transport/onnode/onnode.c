/* onnode.c owns setting up the direct on-node path: moving the static data
 * into shared memory, finding this node's PEs, mapping their segments
 * through /proc/<pid>/fd (the memfds stay private to the job: nothing is
 * left in /dev/shm if a PE dies), agreeing per node that every PE mapped
 * every peer, and deciding the atomicity rule (onnode.h). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../bootstrap/bootstrap.h"
#include "../../core/topology.h"
#include "onnode.h"

struct weft_onnode_state weft_onnode;

/* What a PE publishes so its node peers can map it. */
struct onnode_card {
    int32_t pid;
    int32_t fd[WEFT_NSEGS];
};

/* Bits of the per-PE verdict exchanged after mapping. */
#define ONNODE_OK_HEAP 1 /* mapped every node peer's heap */
#define ONNODE_OK_DATA 2 /* ... and its static data */

static int same_node(int pe)
{
    const int *node = weft_topology_ids(WEFT_TOPO_NODE);
    int me = weft_rt.my_pe;
    return weft_rt.pe_host[pe] == weft_rt.pe_host[me] && node[pe] == node[me];
}

static int node_size(void)
{
    int n = 0;
    for (int pe = 0; pe < weft_rt.n_pes; pe++)
        n += same_node(pe);
    return n;
}

static int want_direct(void) { return weft_tun_bool(WEFT_TUN_ONNODE); }

int weft_onnode_share_static(void)
{
    struct weft_segment *d = &weft_rt.seg[WEFT_SEG_DATA];
    if (!want_direct() || !weft_tun_bool(WEFT_TUN_ONNODE_STATIC) || d->size == 0 ||
        node_size() < 2)
        return 0;
    /* Copy the live contents into a memfd, then map it over the same
     * addresses: the program keeps its variables where the linker put them,
     * and peers can map the same pages. Done before any other thread of ours
     * exists; see docs/onnode.md for fork(). */
    int fd = memfd_create("weft-static-data", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)d->size) != 0) {
        weft_debug("onnode: no memfd for static data: static variables go through libfabric");
        if (fd >= 0)
            close(fd);
        return 0;
    }
    /* The kernel copies the whole range, padding and sanitizer redzones
     * between variables included (a raw system call: AddressSanitizer
     * would otherwise flag the redzones it reads). */
    for (size_t done = 0; done < d->size;) {
        long n = syscall(SYS_pwrite64, fd, d->base + done, d->size - done, (off_t)done);
        if (n <= 0) {
            weft_debug("onnode: copying static data into its memfd failed: %m");
            close(fd);
            return 0;
        }
        done += (size_t)n;
    }
    void *at = mmap(d->base, d->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (at == MAP_FAILED)
        weft_fatal("shmem_init", "cannot remap static data %p+%zu into shared memory; set "
                   "WEFT_ONNODE_STATIC=0", (void *)d->base, d->size);
    d->fd = fd;
    weft_onnode.static_shared = 1;
    return 1;
}

static char *map_peer(const struct onnode_card *c, int seg)
{
    size_t size = weft_rt.seg[seg].size;
    if (c->fd[seg] < 0)
        return NULL;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)c->pid, (int)c->fd[seg]);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        weft_debug("onnode: open %s: %m", path);
        return NULL;
    }
    struct stat st;
    char *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= size)
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    else
        weft_debug("onnode: %s is smaller than segment %d (%zu bytes): different "
                   "SHMEM_SYMMETRIC_SIZE?", path, seg, size);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static void unmap_peers(void)
{
    for (int s = 0; s < WEFT_NSEGS; s++)
        for (int pe = 0; pe < weft_rt.n_pes; pe++) {
            char *b = weft_onnode.base[s][pe];
            if (b && pe != weft_rt.my_pe)
                munmap(b, weft_rt.seg[s].size);
            weft_onnode.base[s][pe] = NULL;
        }
}

/* The rule of onnode.h, from information every PE has: the env, each PE's
 * verdict, host and node of every PE. */
static int job_is_mixed(const uint8_t *verdict)
{
    if (!want_direct() || weft_rt.n_pes < 2)
        return 0;
    const int *node = weft_topology_ids(WEFT_TOPO_NODE);
    if (weft_topology_count(WEFT_TOPO_NODE) > 1)
        return 1;
    for (int pe = 1; pe < weft_rt.n_pes; pe++)
        if (weft_rt.pe_host[pe] != weft_rt.pe_host[0] || node[pe] != node[0])
            return 1;
    /* One node: mixed if any PE failed to map something. */
    for (int pe = 0; pe < weft_rt.n_pes; pe++)
        if (verdict[pe] != (ONNODE_OK_HEAP | ONNODE_OK_DATA))
            return 1;
    return 0;
}

void weft_onnode_init(void)
{
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    for (int s = 0; s < WEFT_NSEGS; s++) {
        weft_onnode.base[s] = calloc((size_t)n, sizeof(char *));
        if (!weft_onnode.base[s])
            weft_fatal("shmem_init", "out of memory for the on-node peer table");
    }
    weft_onnode.enabled = want_direct();
    weft_onnode.mixed = 0;
    weft_onnode.n_local = 0;
    if (!weft_onnode.enabled) {
        weft_debug("onnode: direct path off (WEFT_ONNODE=0): every PE through libfabric");
        return;
    }

    struct onnode_card mine = {(int32_t)getpid(), {0}}, *cards = malloc((size_t)n * sizeof mine);
    uint8_t ok = ONNODE_OK_HEAP | ONNODE_OK_DATA, *verdict = malloc((size_t)n);
    if (!cards || !verdict)
        weft_fatal("shmem_init", "out of memory for the on-node exchange");
    for (int s = 0; s < WEFT_NSEGS; s++)
        mine.fd[s] = weft_rt.seg[s].fd;
    if (weft_boot_allgather("weft-onnode", &mine, cards, sizeof mine) != 0)
        weft_fatal("shmem_init", "cannot exchange on-node segment descriptors");

    for (int pe = 0; pe < n; pe++) {
        if (pe == me || !same_node(pe))
            continue;
        for (int s = 0; s < WEFT_NSEGS; s++) {
            if (weft_rt.seg[s].size == 0)
                continue;
            weft_onnode.base[s][pe] = map_peer(&cards[pe], s);
            if (!weft_onnode.base[s][pe])
                ok &= (uint8_t)~(s == WEFT_SEG_HEAP ? ONNODE_OK_HEAP : ONNODE_OK_DATA);
        }
    }
    if (weft_boot_allgather("weft-onnode-ok", &ok, verdict, 1) != 0)
        weft_fatal("shmem_init", "cannot exchange on-node verdicts");

    /* A segment is reached directly only if every PE of the node mapped it
     * on every peer, so the path between two PEs is the same both ways. */
    uint8_t node_ok = ONNODE_OK_HEAP | ONNODE_OK_DATA;
    for (int pe = 0; pe < n; pe++)
        if (same_node(pe))
            node_ok &= verdict[pe];
    for (int pe = 0; pe < n; pe++) {
        if (pe == me)
            continue;
        for (int s = 0; s < WEFT_NSEGS; s++) {
            int keep = node_ok & (s == WEFT_SEG_HEAP ? ONNODE_OK_HEAP : ONNODE_OK_DATA);
            if (!keep && weft_onnode.base[s][pe]) {
                munmap(weft_onnode.base[s][pe], weft_rt.seg[s].size);
                weft_onnode.base[s][pe] = NULL;
            }
        }
    }
    for (int s = 0; s < WEFT_NSEGS; s++)
        weft_onnode.base[s][me] = weft_rt.seg[s].size ? weft_rt.seg[s].base : NULL;
    for (int pe = 0; pe < n; pe++)
        weft_onnode.n_local += weft_onnode.base[WEFT_SEG_HEAP][pe] != NULL;
    if (node_ok != (ONNODE_OK_HEAP | ONNODE_OK_DATA) && node_size() > 1)
        weft_debug("onnode: a PE of this node could not map its peers' %s: those go through "
                   "libfabric", (node_ok & ONNODE_OK_HEAP) ? "static data" : "heaps");
    weft_onnode.mixed = job_is_mixed(verdict);
    weft_onnode.all_direct = 1;
    weft_onnode.split = 0;
    for (int pe = 0; pe < n; pe++) {
        int direct = 0, fabric = 0;
        for (int s = 0; s < WEFT_NSEGS; s++) {
            if (!weft_rt.seg[s].size)
                continue;
            if (weft_onnode.base[s][pe])
                direct = 1;
            else
                fabric = 1;
        }
        weft_onnode.all_direct &= !fabric;
        weft_onnode.split |= direct && fabric;
    }
    weft_debug("onnode: %d PEs reached directly, static data %s%s, job %s", weft_onnode.n_local,
               weft_onnode.static_shared ? "shared" : "not shared",
               weft_onnode.split ? " (node peers' static data through libfabric: fence completes)"
                                 : "",
               weft_onnode.mixed ? "mixes paths (libfabric atomics in software)"
                                 : "uses one path");
    free(cards);
    free(verdict);
}

void weft_onnode_fini(void)
{
    if (weft_onnode.base[WEFT_SEG_HEAP])
        unmap_peers();
    /* The static data stays in its memfd mapping; only the descriptor goes. */
    if (weft_onnode.static_shared && weft_rt.seg[WEFT_SEG_DATA].fd >= 0) {
        close(weft_rt.seg[WEFT_SEG_DATA].fd);
        weft_rt.seg[WEFT_SEG_DATA].fd = -1;
    }
    weft_onnode.static_shared = 0;
    for (int s = 0; s < WEFT_NSEGS; s++) {
        free(weft_onnode.base[s]);
        weft_onnode.base[s] = NULL;
    }
    weft_onnode.enabled = weft_onnode.n_local = weft_onnode.mixed = 0;
    weft_onnode.all_direct = weft_onnode.split = 0;
}

void weft_onnode_describe(FILE *out)
{
    fprintf(out, "  on-node path: %s, %d PEs reached directly, static data %s%s\n",
            weft_onnode.enabled ? "on" : "off (WEFT_ONNODE=0)", weft_onnode.n_local,
            weft_onnode.static_shared ? "shared" : "through libfabric",
            weft_onnode.mixed ? "; paths mixed: libfabric atomics in software" : "");
}

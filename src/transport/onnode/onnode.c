/* SPDX-License-Identifier: BSD-3-Clause */
/* onnode.c owns setting up the direct on-node path: moving the static data
 * into shared memory, finding this node's PEs, mapping their segments
 * through /proc/<pid>/fd (the memfds stay private to the job: nothing is
 * left in /dev/shm if a PE dies), agreeing per node that every PE mapped
 * every peer, laying heap and static data out in one window where the heap
 * lies below the program (and reporting stray addresses that fault in it),
 * and deciding the atomicity rule (onnode.h). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "core/scale.h"
#include "transport/onnode/onnode.h"

struct weft_onnode_state weft_onnode;

/* What a PE publishes so its node peers can map it. */
struct onnode_card {
    int32_t pid;
    int32_t fd[WEFT_NSEGS];
};

/* Bits of the per-PE verdict exchanged after mapping. */
#define ONNODE_OK_HEAP 1 /* mapped every node peer's heap */
#define ONNODE_OK_DATA 2 /* ... and its static data */

/* Each PE's node (within its host) and the job's count of nodes, from the
 * runtime's topology: weft_onnode_set_nodes. */
static const int *node_of_pe;
static int n_nodes;

void weft_onnode_set_nodes(const int *node_of, int count)
{
    node_of_pe = node_of;
    n_nodes = count;
}

static int same_node(int pe)
{
    const int *node = node_of_pe;
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

/* PE c's descriptor for segment seg, opened through /proc, or -1. */
static int open_peer_segment(const struct onnode_card *c, int seg)
{
    size_t size = weft_rt.seg[seg].size;
    if (c->fd[seg] < 0)
        return -1;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)c->pid, (int)c->fd[seg]);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        weft_debug("onnode: open %s: %m", path);
        return -1;
    }
    /* The PEs agreed on every segment's size at the start (runtime/agree.c):
     * a smaller one here is not a peer's segment, never a reason to send
     * this peer's traffic elsewhere. */
    struct stat st;
    if (fstat(fd, &st) != 0)
        weft_fatal("shmem_init", "cannot stat %s: %s", path, strerror(errno));
    if ((size_t)st.st_size < size)
        weft_fatal("shmem_init", "the %s of the PE with process id %d (%s) is %lld bytes, "
                   "this PE's %zu", seg == WEFT_SEG_HEAP ? "symmetric heap" : "static data",
                   (int)c->pid, path, (long long)st.st_size, size);
    return fd;
}

/* Size of each window reservation (weft_onnode.view), 0 without them. */
static size_t view_bytes;

/* Where segment seg lies in a view: the heap at its start, the static
 * data at the offset it has from the heap in this PE's own addresses. */
static char *view_slot(char *view, int seg)
{
    return view + (seg == WEFT_SEG_HEAP ? 0 : weft_onnode.window_data);
}

/* Segment seg of a PE: from fd, into its view (over the reservation) or,
 * without one, wherever mmap puts it. NULL if it cannot be mapped. */
static char *map_segment(int fd, int seg, char *view)
{
    if (fd < 0)
        return NULL;
    char *at = view ? view_slot(view, seg) : NULL;
    /* The whole reservation of a heap that grows: past the peer's file's
     * end until it grows (heap.c), then without a new mapping. */
    char *p = mmap(at, weft_seg_span(seg), PROT_READ | PROT_WRITE,
                   MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Undo map_segment for a peer. Inside a view the pages go back to the
 * reservation: nothing else may land in a view, which is unmapped whole. */
static void unmap_segment(int seg, int pe)
{
    char *b = weft_onnode.base[seg][pe];
    size_t size = weft_seg_span(seg);
    if (weft_onnode.view[pe])
        (void)mmap(b, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
                   -1, 0);
    else
        munmap(b, size);
    weft_onnode.base[seg][pe] = NULL;
}

/* A window reservation, PROT_NONE: only the segments mapped into it are
 * accessible. */
static char *reserve_view(void)
{
    char *v = mmap(NULL, view_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return v == MAP_FAILED ? NULL : v;
}

static void unmap_peers(void)
{
    for (int pe = 0; pe < weft_rt.n_pes; pe++) {
        for (int s = 0; s < WEFT_NSEGS; s++) {
            if (weft_onnode.base[s][pe] && pe != weft_rt.my_pe && !weft_onnode.view[pe])
                munmap(weft_onnode.base[s][pe], weft_seg_span(s));
            weft_onnode.base[s][pe] = NULL;
        }
        if (weft_onnode.view[pe])
            munmap(weft_onnode.view[pe], view_bytes);
        weft_onnode.view[pe] = NULL;
    }
}

/* ---- a stray address in a window ----------------------------------------
 * In window mode shmem_TYPE_p/_g accept any address between the heap's
 * base and the static data's end with one compare; between the two lie the
 * program's code and read-only data, which are not symmetric. Every view
 * leaves that part inaccessible, so such an address faults, here: report it
 * as the checked path would have, and end the job. A fault anywhere else is
 * the program's: put back its previous handler and let the access fault
 * again under it. */
static struct sigaction segv_prev;
static int segv_installed;

static void *fault_pc(void *ucv)
{
    ucontext_t *uc = ucv;
#if defined(__x86_64__)
    return (void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (void *)uc->uc_mcontext.pc;
#else
    (void)uc;
    return NULL;
#endif
}

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
    char *a = si->si_addr;
    for (int pe = 0; weft_onnode.view && pe < weft_rt.n_pes; pe++) {
        char *v = weft_onnode.view[pe];
        if (!v || a < v || a >= v + view_bytes)
            continue;
        /* The routine from the faulting instruction; its name says
         * which argument was the address. */
        char call[96] = "shmem_TYPE_p or shmem_TYPE_g";
        const char *arg = "dest or source";
        Dl_info info;
        void *pc = fault_pc(ucv);
        if (pc && dladdr(pc, &info) && info.dli_sname && strstr(info.dli_sname, "shmem_")) {
            const char *name = info.dli_sname;
            if (name[0] == 'p' && !strncmp(name + 1, "shmem_", 6))
                name++; /* the profiling name of the same routine */
            snprintf(call, sizeof call, "%s", name);
            size_t len = strlen(call);
            arg = len > 2 && !strcmp(call + len - 2, "_g") ? "source" : "dest";
        }
        struct weft_segment *h = &weft_rt.seg[WEFT_SEG_HEAP], *d = &weft_rt.seg[WEFT_SEG_DATA];
        weft_fatal(call,
                   "argument %s=%p is not a symmetric address (not in the symmetric heap [%p, "
                   "+%zu) nor in static data [%p, +%zu)); the access to PE %d faulted there",
                   arg, (void *)(h->base + (a - v)), (void *)h->base, h->size, (void *)d->base,
                   d->size, pe);
    }
    (void)sig;
    sigaction(SIGSEGV, &segv_prev, NULL);
}

static void segv_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    segv_installed = sigaction(SIGSEGV, &sa, &segv_prev) == 0;
}

static void segv_uninstall(void)
{
    struct sigaction cur;
    if (segv_installed && sigaction(SIGSEGV, NULL, &cur) == 0 &&
        (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv)
        sigaction(SIGSEGV, &segv_prev, NULL);
    segv_installed = 0;
}

/* The window is possible when the heap lies below the program (heap.c)
 * and both segments are memfds this PE can map a second time. */
static int window_possible(void)
{
    const struct weft_segment *h = &weft_rt.seg[WEFT_SEG_HEAP], *d = &weft_rt.seg[WEFT_SEG_DATA];
    return weft_rt.heap_below_program && weft_onnode.static_shared && h->fd >= 0 && d->fd >= 0 &&
           d->size > 0 && d->base >= h->base + weft_rt.heap_span;
}

/* The rule of onnode.h, from information every PE has: the env, each PE's
 * verdict, host and node of every PE. */
static int job_is_mixed(const uint8_t *verdict)
{
    if (!want_direct() || weft_rt.n_pes < 2)
        return 0;
    const int *node = node_of_pe;
    if (n_nodes > 1)
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

/* The peer tables, all NULL: zero pages, of which only those holding a
 * node peer's entry take memory (core/scale.h), so a PE pays for its
 * node's peers and not for the job's. */
static void alloc_tables(int n)
{
    for (int s = 0; s < WEFT_NSEGS; s++) {
        weft_onnode.base[s] = weft_scale_table_alloc((size_t)n, sizeof(char *));
        weft_onnode.fast[s] = weft_scale_table_alloc((size_t)n, sizeof(char *));
        if (!weft_onnode.base[s] || !weft_onnode.fast[s])
            weft_fatal("shmem_init", "out of memory for the on-node peer table");
    }
    weft_onnode.view = weft_scale_table_alloc((size_t)n, sizeof(char *));
    if (!weft_onnode.view)
        weft_fatal("shmem_init", "out of memory for the on-node peer table");
}

/* What the tables hold now (scale.def: ONNODE_TABLES). */
static void note_tables(void)
{
    size_t n = (size_t)weft_rt.n_pes, bytes = 0;
    for (int s = 0; s < WEFT_NSEGS; s++)
        bytes += weft_scale_table_resident(weft_onnode.base[s], n, sizeof(char *)) +
                 weft_scale_table_resident(weft_onnode.fast[s], n, sizeof(char *));
    bytes += weft_scale_table_resident(weft_onnode.view, n, sizeof(char *));
    weft_scale_note(WEFT_SCALE_ONNODE_TABLES, bytes);
}

/* Map every node peer's segments (into a view each when windowed, this
 * PE's own first), clearing a bit of *ok for each kind of segment that
 * failed somewhere. Returns whether the views still hold. */
static int map_peers(const struct onnode_card *cards, int windowed, uint8_t *ok)
{
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    if (windowed) {
        const struct weft_segment *h = &weft_rt.seg[WEFT_SEG_HEAP];
        const struct weft_segment *d = &weft_rt.seg[WEFT_SEG_DATA];
        view_bytes = (size_t)(d->base + d->size - h->base);
        weft_onnode.window_data = (size_t)(d->base - h->base);
        /* This PE's own view, through its own descriptors. */
        char *v = weft_onnode.view[me] = reserve_view();
        if (!v || !map_segment(h->fd, WEFT_SEG_HEAP, v) || !map_segment(d->fd, WEFT_SEG_DATA, v))
            windowed = 0;
    }
    for (int pe = 0; pe < n; pe++) {
        if (pe == me || !same_node(pe))
            continue;
        if (windowed && !(weft_onnode.view[pe] = reserve_view()))
            windowed = 0;
        for (int s = 0; s < WEFT_NSEGS; s++) {
            if (weft_rt.seg[s].size == 0)
                continue;
            int fd = open_peer_segment(&cards[pe], s);
            weft_onnode.base[s][pe] = map_segment(fd, s, weft_onnode.view[pe]);
            if (fd >= 0)
                close(fd);
            if (!weft_onnode.base[s][pe])
                *ok &= (uint8_t)~(s == WEFT_SEG_HEAP ? ONNODE_OK_HEAP : ONNODE_OK_DATA);
        }
    }
    return windowed;
}

/* A segment is reached directly only if every PE of the node mapped it
 * on every peer, so the path between two PEs is the same both ways: undo
 * the rest. Returns the kinds kept. */
static uint8_t keep_what_the_node_mapped(const uint8_t *verdict)
{
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    uint8_t node_ok = ONNODE_OK_HEAP | ONNODE_OK_DATA;
    for (int pe = 0; pe < n; pe++)
        if (same_node(pe))
            node_ok &= verdict[pe];
    for (int pe = 0; pe < n; pe++) {
        if (pe == me)
            continue;
        for (int s = 0; s < WEFT_NSEGS; s++) {
            int keep = node_ok & (s == WEFT_SEG_HEAP ? ONNODE_OK_HEAP : ONNODE_OK_DATA);
            if (!keep && weft_onnode.base[s][pe])
                unmap_segment(s, pe);
        }
    }
    return node_ok;
}

/* This PE's own entries, the fast path's tables and, in window mode, the
 * fault handler. */
static void publish_tables(int windowed, uint8_t node_ok)
{
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    for (int s = 0; s < WEFT_NSEGS; s++)
        weft_onnode.base[s][me] = weft_rt.seg[s].size ? weft_rt.seg[s].base : NULL;
    /* Window mode: every node PE's segments sit in a view, this PE's own
     * fast path goes through its own view too, and a stray address in
     * between faults into on_segv. */
    weft_onnode.window = windowed && node_ok == (ONNODE_OK_HEAP | ONNODE_OK_DATA) ? view_bytes : 0;
    for (int s = 0; s < WEFT_NSEGS; s++) {
        /* Entry by entry: a NULL written would take a page (alloc_tables). */
        for (int pe = 0; pe < n; pe++)
            if (weft_onnode.base[s][pe])
                weft_onnode.fast[s][pe] = weft_onnode.base[s][pe];
        if (weft_onnode.window)
            weft_onnode.fast[s][me] = view_slot(weft_onnode.view[me], s);
    }
    if (weft_onnode.window)
        segv_install();
    for (int pe = 0; pe < n; pe++)
        weft_onnode.n_local += weft_onnode.base[WEFT_SEG_HEAP][pe] != NULL;
    if (node_ok != (ONNODE_OK_HEAP | ONNODE_OK_DATA) && node_size() > 1)
        weft_debug("onnode: a PE of this node could not map its peers' %s: those go through "
                   "libfabric", (node_ok & ONNODE_OK_HEAP) ? "static data" : "heaps");
}

/* all_direct: every PE reached directly for every segment; split: some PE
 * directly for one segment and through libfabric for the other. */
static void classify_paths(void)
{
    weft_onnode.all_direct = 1;
    weft_onnode.split = 0;
    for (int pe = 0; pe < weft_rt.n_pes; pe++) {
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
        weft_onnode.peers_direct |= direct && pe != weft_rt.my_pe;
    }
}

void weft_onnode_init(void)
{
    int n = weft_rt.n_pes;
    alloc_tables(n);
    view_bytes = 0;
    weft_onnode.window = weft_onnode.window_data = 0;
    weft_onnode.enabled = want_direct();
    weft_onnode.mixed = 0;
    weft_onnode.n_local = 0;
    weft_onnode.peers_direct = 0;
    if (!weft_onnode.enabled) {
        weft_debug("onnode: direct path off (WEFT_ONNODE=0): every PE through libfabric");
        note_tables();
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
    int windowed = map_peers(cards, window_possible(), &ok);
    if (weft_boot_allgather("weft-onnode-ok", &ok, verdict, 1) != 0)
        weft_fatal("shmem_init", "cannot exchange on-node verdicts");
    publish_tables(windowed, keep_what_the_node_mapped(verdict));
    weft_onnode.mixed = job_is_mixed(verdict);
    classify_paths();
    weft_debug("onnode: %d PEs reached directly, static data %s%s%s, job %s", weft_onnode.n_local,
               weft_onnode.static_shared ? "shared" : "not shared",
               weft_onnode.window ? " in one window with the heap" : "",
               weft_onnode.split ? " (node peers' static data through libfabric: fence completes)"
                                 : "",
               weft_onnode.mixed ? "mixes paths (libfabric atomics in software)"
                                 : "uses one path");
    free(cards);
    free(verdict);
    note_tables();
}

void weft_onnode_fini(void)
{
    segv_uninstall();
    if (weft_onnode.base[WEFT_SEG_HEAP])
        unmap_peers();
    /* The static data stays in its memfd mapping; only the descriptor goes. */
    if (weft_onnode.static_shared && weft_rt.seg[WEFT_SEG_DATA].fd >= 0) {
        close(weft_rt.seg[WEFT_SEG_DATA].fd);
        weft_rt.seg[WEFT_SEG_DATA].fd = -1;
    }
    weft_onnode.static_shared = 0;
    size_t n = (size_t)weft_rt.n_pes;
    for (int s = 0; s < WEFT_NSEGS; s++) {
        weft_scale_table_free(weft_onnode.base[s], n, sizeof(char *));
        weft_scale_table_free(weft_onnode.fast[s], n, sizeof(char *));
        weft_onnode.base[s] = weft_onnode.fast[s] = NULL;
    }
    weft_scale_table_free(weft_onnode.view, n, sizeof(char *));
    weft_onnode.view = NULL;
    weft_scale_note(WEFT_SCALE_ONNODE_TABLES, 0);
    view_bytes = weft_onnode.window = weft_onnode.window_data = 0;
    weft_onnode.enabled = weft_onnode.n_local = weft_onnode.mixed = 0;
    weft_onnode.all_direct = weft_onnode.split = weft_onnode.peers_direct = 0;
}

void weft_onnode_describe(FILE *out)
{
    fprintf(out, "  on-node path: %s, %d PEs reached directly, static data %s%s%s\n",
            weft_onnode.enabled ? "on" : "off (WEFT_ONNODE=0)", weft_onnode.n_local,
            weft_onnode.static_shared ? "shared" : "through libfabric",
            weft_onnode.window ? " (one window with the heap)" : "",
            weft_onnode.mixed ? "; paths mixed: libfabric atomics in software" : "");
}

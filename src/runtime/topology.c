/* SPDX-License-Identifier: BSD-3-Clause */
/* topology.c owns the machine topology of the federation extensions: the
 * node of every world PE, and what places each PE in its node's NUMA,
 * socket and L3 domains and under its switch (see topology.h for the
 * sources and docs/federations.md for the rules). Everything is decided
 * at init; only the node id is kept for every PE, the other domains are
 * derived from it and a PE's placement when asked. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bootstrap/bootstrap.h"
#include "core/fnv.h"
#include "core/runtime.h"
#include "core/scale.h"
#include "runtime/topology.h"
#include "weft_config.h"
#include "runtime/lifecycle.h"

#if WEFT_HAVE_HWLOC
#include <hwloc.h>
#endif

/* A PE's placement in its node: a word from which the key of each of its
 * NUMA, socket and L3 domains follows (place_field). The same for every
 * PE in most jobs (one word then, no table). */
#define TOPO_HW_TYPES 3 /* NUMA, socket, L3: the order of the summary lines */
#define TOPO_PLACE_BITS 10
#define TOPO_PLACE_MAX ((1 << TOPO_PLACE_BITS) - 2) /* domains of a type per node */

enum { PLACE_BLOCK, PLACE_CYCLIC };

struct sim {
    int nodes, sockets, numa, l3; /* nodes; sockets per node; NUMA per socket; L3 per NUMA */
    int switches;                 /* leaf switches, the nodes dealt to them in blocks */
    int place_node, place_local;
};

static struct {
    int ready;
    const char *source;
    const char *switch_source; /* "simulated", "slurm" or "node" */
    int simulated;             /* placements are sim's leaf numbers, not hwloc's fields */
    struct sim sim;
    int count[WEFT_TOPO_NTYPES];
    int *node;         /* [pe]: node id, numbered by lowest PE */
    uint32_t *place;   /* [pe]: placement, or NULL: every PE's is place_all */
    uint32_t place_all;
    int *switch_id;    /* [pe]: switch domain, or NULL: the node's */
    int *numbered[WEFT_TOPO_NTYPES]; /* NUMA, socket, L3 ids, made when first asked */
    pthread_mutex_t numbering_lock;
} topo = {.numbering_lock = PTHREAD_MUTEX_INITIALIZER};

int weft_topology_ready(void) { return topo.ready; }
int weft_topology_count(enum weft_topo_type t) { return topo.count[t]; }
const char *weft_topology_source(void) { return topo.source ? topo.source : "none"; }

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        weft_fatal("shmem_init", "out of memory for the topology (%zu bytes)", n);
    return p;
}

/* ---- numbering ------------------------------------------------------------ */
struct keyed {
    uint64_t key;
    int pe;
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->pe > y->pe) - (x->pe < y->pe);
}

/* id[pe] = number of the domain named key[pe], domains numbered in order of
 * their lowest PE; returns the number of domains. O(n log n). */
static int number_domains(int n, const uint64_t *key, int *id)
{
    struct keyed *k = xmalloc((size_t)n * sizeof *k);
    int *first = xmalloc((size_t)n * sizeof *first);
    for (int i = 0; i < n; i++)
        k[i] = (struct keyed){key[i], i};
    qsort(k, (size_t)n, sizeof *k, cmp_keyed);
    for (int i = 0; i < n; i++)
        first[k[i].pe] = i > 0 && k[i].key == k[i - 1].key ? first[k[i - 1].pe] : k[i].pe;
    int count = 0;
    for (int pe = 0; pe < n; pe++)
        id[pe] = first[pe] == pe ? count++ : id[first[pe]];
    free(first);
    free(k);
    return count;
}

/* The key naming pe's domain of type t: equal keys, same domain. */
static uint64_t place_field(enum weft_topo_type t, uint32_t place)
{
    if (topo.simulated) { /* place: the L3 leaf on the node, sockets outermost */
        const struct sim *s = &topo.sim;
        if (t == WEFT_TOPO_SOCKET)
            return place / ((uint32_t)s->numa * (uint32_t)s->l3);
        return t == WEFT_TOPO_NUMA ? place / (uint32_t)s->l3 : place;
    }
    int i = t == WEFT_TOPO_NUMA ? 0 : t == WEFT_TOPO_SOCKET ? 1 : 2;
    return place >> (TOPO_PLACE_BITS * i) & ((1u << TOPO_PLACE_BITS) - 1);
}

uint64_t weft_topology_key(enum weft_topo_type t, int pe)
{
    if (t == WEFT_TOPO_NODE || (t == WEFT_TOPO_SWITCH && !topo.switch_id))
        return (uint64_t)topo.node[pe];
    if (t == WEFT_TOPO_SWITCH)
        return (uint64_t)topo.switch_id[pe];
    uint32_t place = topo.place ? topo.place[pe] : topo.place_all;
    return (uint64_t)topo.node[pe] << 32 | place_field(t, place);
}

int weft_topology_number(enum weft_topo_type t, int n, const int *world, int *id)
{
    uint64_t *key = xmalloc((size_t)n * sizeof *key);
    for (int i = 0; i < n; i++)
        key[i] = weft_topology_key(t, world ? world[i] : i);
    int count = number_domains(n, key, id);
    free(key);
    return count;
}

/* Every PE's domain of type t numbered into a new table (count: domains). */
static int *number_type(enum weft_topo_type t, int *count)
{
    int *id = xmalloc((size_t)weft_rt.n_pes * sizeof *id);
    *count = weft_topology_number(t, weft_rt.n_pes, NULL, id);
    return id;
}

static const enum weft_topo_type hw_types[TOPO_HW_TYPES] = {WEFT_TOPO_NUMA, WEFT_TOPO_SOCKET,
                                                            WEFT_TOPO_L3};

const int *weft_topology_ids(enum weft_topo_type t)
{
    if (t == WEFT_TOPO_NODE || (t == WEFT_TOPO_SWITCH && !topo.switch_id))
        return topo.node;
    if (t == WEFT_TOPO_SWITCH)
        return topo.switch_id;
    int *ids = __atomic_load_n(&topo.numbered[t], __ATOMIC_ACQUIRE);
    if (ids)
        return ids;
    /* The NUMA, socket and L3 numbers of every PE only once a program
     * asks for one: 12 bytes per PE from then on. */
    pthread_mutex_lock(&topo.numbering_lock);
    if (!topo.numbered[t]) {
        int count;
        for (int i = 0; i < TOPO_HW_TYPES; i++) {
            int *made = number_type(hw_types[i], &count);
            __atomic_store_n(&topo.numbered[hw_types[i]], made, __ATOMIC_RELEASE);
        }
        weft_scale_note(WEFT_SCALE_TOPO_NUMBERED,
                        (size_t)weft_rt.n_pes * TOPO_HW_TYPES * sizeof(int));
        weft_scale_set_when(WEFT_SCALE_WHEN_TOPO_IDS, 1);
    }
    pthread_mutex_unlock(&topo.numbering_lock);
    return topo.numbered[t];
}

/* The node ids from their keys, kept for every PE. */
static void set_nodes(int n, const uint64_t *key)
{
    topo.node = xmalloc((size_t)n * sizeof(int));
    topo.count[WEFT_TOPO_NODE] = number_domains(n, key, topo.node);
    weft_scale_note(WEFT_SCALE_TOPOLOGY, (size_t)n * sizeof(int));
}

/* The switch domains from their keys, kept only where they are not the
 * nodes (source "node": the key is the node id). */
static void set_switches(int n, const uint64_t *key)
{
    if (!strcmp(topo.switch_source, "node")) {
        topo.count[WEFT_TOPO_SWITCH] = topo.count[WEFT_TOPO_NODE];
        return;
    }
    topo.switch_id = xmalloc((size_t)n * sizeof(int));
    topo.count[WEFT_TOPO_SWITCH] = number_domains(n, key, topo.switch_id);
    weft_scale_note(WEFT_SCALE_TOPO_SWITCHES, (size_t)n * sizeof(int));
    weft_scale_set_when(WEFT_SCALE_WHEN_SWITCHES, 1);
}

/* Every PE's placement (the table is taken over): one word when all are
 * the same; then the count of each placed type. */
static void set_places(int n, uint32_t *place)
{
    int same = 1;
    for (int pe = 1; pe < n && same; pe++)
        same = place[pe] == place[0];
    if (same) {
        topo.place_all = n ? place[0] : 0;
        free(place);
    } else {
        topo.place = place;
        weft_scale_note(WEFT_SCALE_TOPO_PLACES, (size_t)n * sizeof *place);
        weft_scale_set_when(WEFT_SCALE_WHEN_PLACES, 1);
    }
    for (int i = 0; i < TOPO_HW_TYPES; i++)
        free(number_type(hw_types[i], &topo.count[hw_types[i]]));
}

/* ---- the switch from Slurm's tree topology --------------------------------------
 * SLURM_TOPOLOGY_ADDR names the task's place in the switch tree, e.g.
 * "core1.leaf3.node17", and SLURM_TOPOLOGY_ADDR_PATTERN the kind of each
 * component, "switch.switch.node". The leaf switch is the last "switch"
 * component; its path from the root (the components up to it) names the
 * domain, hashed to 64 bits (FNV-1a). 0: no switch information. */
uint64_t weft_topology_slurm_switch(void)
{
    const char *addr = getenv("SLURM_TOPOLOGY_ADDR");
    const char *pat = getenv("SLURM_TOPOLOGY_ADDR_PATTERN");
    if (!addr || !*addr)
        return 0;
    /* Components are separated by dots in both; without a pattern, every
     * component but the last (the node) is a switch. */
    size_t upto = 0; /* bytes of addr up to the end of the leaf switch */
    const char *a = addr, *p = pat && *pat ? pat : NULL;
    while (*a) {
        size_t al = strcspn(a, "."), pl = p ? strcspn(p, ".") : 0;
        int last = a[al] == '\0';
        int is_switch = p ? pl == 6 && !strncmp(p, "switch", 6) : !last;
        if (is_switch)
            upto = (size_t)(a - addr) + al;
        a += al + (last ? 0 : 1);
        if (p)
            p = p[pl] ? p + pl + 1 : p + pl;
    }
    if (!upto)
        return 0;
    uint64_t h = weft_fnv1a_bytes(WEFT_FNV1A_BASIS, addr, upto);
    return h ? h : 1;
}

/* Union-find root of domain d (path halving). */
static int domain_root(int *parent, int d)
{
    while (parent[d] != d)
        d = parent[d] = parent[parent[d]];
    return d;
}

/* Switch domains hold whole nodes. Slurm names a switch per Slurm node,
 * and several Slurm nodes can be one host (slurmd's multiple-slurmd mode,
 * or nodes that share a machine): switches that share a node are merged,
 * so key[pe] becomes the lowest PE of the merged domain. */
static void merge_switches_over_nodes(int n, const int *node_id, uint64_t *key)
{
    int *sw = xmalloc((size_t)n * sizeof *sw);
    int *parent = xmalloc((size_t)n * sizeof *parent);
    int *node_first = xmalloc((size_t)n * sizeof *node_first);
    number_domains(n, key, sw);
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        node_first[i] = -1;
    }
    int merged = 0;
    for (int pe = 0; pe < n; pe++) {
        int *first = &node_first[node_id[pe]];
        if (*first < 0) {
            *first = pe;
            continue;
        }
        int a = domain_root(parent, sw[*first]), b = domain_root(parent, sw[pe]);
        if (a != b) {
            parent[a > b ? a : b] = a < b ? a : b;
            merged = 1;
        }
    }
    if (merged)
        weft_debug("topology: Slurm puts one node's PEs under different switches; those "
                   "switches are taken as one domain");
    for (int pe = 0; pe < n; pe++)
        key[pe] = (uint64_t)domain_root(parent, sw[pe]);
    free(node_first);
    free(parent);
    free(sw);
}

/* key[pe] for the switch type: every PE's leaf switch when the launcher
 * named one for every PE (carried by the host exchange, runtime/node.c),
 * else its node. */
static void switch_keys(const int *node_id, uint64_t *key)
{
    int n = weft_rt.n_pes;
    const uint64_t *sw = weft_node_switch_keys();
    if (sw) {
        memcpy(key, sw, (size_t)n * sizeof *key);
        merge_switches_over_nodes(n, node_id, key);
        topo.switch_source = "slurm";
        return;
    }
    for (int pe = 0; pe < n; pe++)
        key[pe] = (uint64_t)node_id[pe];
    topo.switch_source = "node";
}

/* ---- WEFT_TOPOLOGY: a simulated machine -------------------------------------- */

#define SIM_MAX 1048576

static int parse_place(const char *v, size_t len)
{
    if (len == 5 && !strncmp(v, "block", 5))
        return PLACE_BLOCK;
    if (len == 6 && !strncmp(v, "cyclic", 6))
        return PLACE_CYCLIC;
    return -1;
}

static void sim_parse(const char *spec, struct sim *s)
{
    *s = (struct sim){1, 1, 1, 1, 0, PLACE_BLOCK, PLACE_BLOCK};
    const char *p = spec;
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        if (!*p)
            break;
        const char *end = p + strcspn(p, ",");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq)
            weft_fatal("shmem_init", "WEFT_TOPOLOGY=\"%s\": '%.*s' is not KEY=VALUE (keys: nodes, "
                       "sockets, numa, l3, switches, place)", spec, (int)(end - p), p);
        size_t klen = (size_t)(eq - p), vlen = (size_t)(end - eq - 1);
        const char *v = eq + 1;
        if (klen == 5 && !strncmp(p, "place", 5)) {
            const char *colon = memchr(v, ':', vlen);
            size_t l1 = colon ? (size_t)(colon - v) : vlen;
            int a = parse_place(v, l1);
            int b = colon ? parse_place(colon + 1, vlen - l1 - 1) : a;
            if (a < 0 || b < 0)
                weft_fatal("shmem_init", "WEFT_TOPOLOGY=\"%s\": place='%.*s' must be block, "
                           "cyclic or NODES:LOCAL (e.g. block:cyclic)", spec, (int)vlen, v);
            s->place_node = a;
            s->place_local = b;
        } else {
            int *dst = NULL;
            if (klen == 5 && !strncmp(p, "nodes", 5))
                dst = &s->nodes;
            else if (klen == 7 && !strncmp(p, "sockets", 7))
                dst = &s->sockets;
            else if (klen == 4 && !strncmp(p, "numa", 4))
                dst = &s->numa;
            else if (klen == 2 && !strncmp(p, "l3", 2))
                dst = &s->l3;
            else if (klen == 8 && !strncmp(p, "switches", 8))
                dst = &s->switches;
            if (!dst)
                weft_fatal("shmem_init", "WEFT_TOPOLOGY=\"%s\": unknown key '%.*s' (keys: nodes, "
                           "sockets, numa, l3, switches, place)", spec, (int)klen, p);
            char buf[32];
            char *e;
            long val = -1;
            if (vlen > 0 && vlen < sizeof buf) {
                memcpy(buf, v, vlen);
                buf[vlen] = '\0';
                errno = 0;
                val = strtol(buf, &e, 10);
                if (errno || *e)
                    val = -1;
            }
            if (val < 1 || val > SIM_MAX)
                weft_fatal("shmem_init", "WEFT_TOPOLOGY=\"%s\": %.*s='%.*s' must be an integer in "
                           "[1, %d]", spec, (int)klen, p, (int)vlen, v, SIM_MAX);
            *dst = (int)val;
        }
        p = end;
    }
    if ((uint64_t)s->sockets * (uint64_t)s->numa * (uint64_t)s->l3 > SIM_MAX)
        weft_fatal("shmem_init", "WEFT_TOPOLOGY=\"%s\": more than %d L3 domains per node", spec,
                   SIM_MAX);
}

/* Bin of item i when n items are dealt in blocks into k bins, the first
 * n % k bins one item larger. */
static int block_bin(int i, int n, int k)
{
    int q = n / k, r = n % k;
    if (i < r * (q + 1))
        return i / (q + 1);
    return r + (i - r * (q + 1)) / q;
}

static void sim_build(const char *spec)
{
    struct sim s;
    sim_parse(spec, &s);
    topo.sim = s;
    topo.simulated = 1;
    int n = weft_rt.n_pes, N = s.nodes;
    int leaves = s.sockets * s.numa * s.l3;
    uint64_t *key = xmalloc((size_t)n * sizeof *key);
    uint32_t *place = xmalloc((size_t)n * sizeof *place);
    for (int pe = 0; pe < n; pe++) {
        int node, r, m; /* node, rank on it, PEs on it */
        if (s.place_node == PLACE_BLOCK) {
            node = block_bin(pe, n, N);
            int q = n / N, rem = n % N;
            r = pe - (node * q + (node < rem ? node : rem));
            m = q + (node < rem);
        } else {
            node = pe % N;
            r = pe / N;
            m = n / N + (node < n % N);
        }
        int leaf;
        if (s.place_local == PLACE_BLOCK) {
            leaf = block_bin(r, m, leaves);
        } else { /* round robin: sockets first, then NUMA, then L3 */
            int sock = r % s.sockets, numa = r / s.sockets % s.numa;
            int l3 = r / s.sockets / s.numa % s.l3;
            leaf = (sock * s.numa + numa) * s.l3 + l3;
        }
        key[pe] = (uint64_t)node;
        place[pe] = (uint32_t)leaf;
    }
    set_nodes(n, key);
    if (s.switches) { /* the nodes dealt to the switches in blocks */
        topo.switch_source = "simulated";
        for (int pe = 0; pe < n; pe++)
            key[pe] = (uint64_t)block_bin(topo.node[pe], topo.count[WEFT_TOPO_NODE],
                                          s.switches < N ? s.switches : N);
    } else { /* else Slurm's switches over the simulated nodes */
        switch_keys(topo.node, key);
    }
    set_switches(n, key);
    set_places(n, place);
    free(key);
    topo.source = "simulated";
}

/* ---- hardware: host identity plus hwloc --------------------------------------- */
#define TOPO_SUMMARY_CAP (64 * 1024)
#if WEFT_HAVE_HWLOC
struct strbuf {
    char *s;
    size_t len, cap;
};

static int sb_add(struct strbuf *b, const char *add)
{
    size_t l = strlen(add);
    if (b->len + l + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + l + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p)
            return -1;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, add, l + 1);
    b->len += l;
    return 0;
}

/* The node leader's summary of its machine: for NUMA nodes, packages and L3
 * caches in that order, one line "COUNT CPUSET CPUSET ..." with each
 * domain's CPUs in hwloc list syntax ("0-3,8-11"). NULL on failure. */
static char *hw_summary(double *load_ms)
{
    hwloc_topology_t t;
    double t0 = now_ms();
    /* hwloc opens its I/O plugins (gl with X11, opencl, pci, xml with
     * libxml2 and ICU) at its first hwloc_topology_init: 14-18 ms here,
     * 1-4 ms without them, on the path every PE of the node waits on, for
     * I/O objects filtered out below. Unless the user names plugins to
     * skip, they are skipped for this topology only: the variable goes
     * again, so a program's own hwloc loads them when it starts. */
    static const char skip_var[] = "HWLOC_PLUGINS_BLACKLIST";
    int skip_set = !getenv(skip_var) &&
                   setenv(skip_var, "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml,hwloc_cuda,"
                                    "hwloc_nvml,hwloc_rsmi,hwloc_levelzero", 0) == 0;
    int init_rc = hwloc_topology_init(&t);
    if (skip_set)
        unsetenv(skip_var);
    if (init_rc != 0)
        return NULL;
    /* Only the L3 caches are wanted: skip the other caches and I/O. */
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_cache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(t, HWLOC_OBJ_L3CACHE, HWLOC_TYPE_FILTER_KEEP_ALL);
#if defined(__linux__) && HWLOC_API_VERSION >= 0x00020100
    /* Linux's sysfs names the packages, NUMA nodes and L3 caches; hwloc's
     * x86 backend would also move this thread to every CPU in turn to run
     * cpuid there, waiting for each one on a busy host (20-25 ms per CPU
     * here under load). HWLOC_COMPONENTS, when set, decides instead. */
    if (!getenv("HWLOC_COMPONENTS"))
        (void)hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return NULL;
    }
    *load_ms = now_ms() - t0;
    static const hwloc_obj_type_t types[TOPO_HW_TYPES] = {HWLOC_OBJ_NUMANODE, HWLOC_OBJ_PACKAGE,
                                                          HWLOC_OBJ_L3CACHE};
    struct strbuf b = {0};
    int bad = 0;
    for (int i = 0; i < TOPO_HW_TYPES && !bad; i++) {
        int nb = hwloc_get_nbobjs_by_type(t, types[i]);
        char num[16];
        snprintf(num, sizeof num, "%d", nb < 0 ? 0 : nb);
        bad |= sb_add(&b, num);
        for (int j = 0; j < nb && !bad; j++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(t, types[i], (unsigned)j);
            char *set = NULL;
            if (!o || !o->cpuset || hwloc_bitmap_list_asprintf(&set, o->cpuset) < 0) {
                bad = 1;
                break;
            }
            bad |= sb_add(&b, " ") || sb_add(&b, set);
            free(set);
        }
        bad |= sb_add(&b, "\n");
    }
    hwloc_topology_destroy(t);
    if (bad) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* The CPUs this PE may run on (its binding; all of the node's when unbound). */
static hwloc_bitmap_t my_binding(void)
{
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    if (!b)
        weft_fatal("shmem_init", "out of memory for a cpuset");
    for (int ncpu = 1024; ncpu <= (1 << 22); ncpu *= 2) {
        cpu_set_t *cs = CPU_ALLOC(ncpu);
        size_t sz = CPU_ALLOC_SIZE(ncpu);
        if (!cs)
            break;
        CPU_ZERO_S(sz, cs);
        if (sched_getaffinity(0, sz, cs) == 0) {
            for (int c = 0; c < ncpu; c++)
                if (CPU_ISSET_S(c, sz, cs))
                    hwloc_bitmap_set(b, (unsigned)c);
            CPU_FREE(cs);
            break;
        }
        CPU_FREE(cs);
        if (errno != EINVAL)
            break;
    }
    return b;
}

/* This PE's domain of each summary type: the first domain whose CPUs hold
 * all of its binding, or -1 when the binding spans domains (node-wide). */
static void hw_place(const char *summary, int local[TOPO_HW_TYPES])
{
    hwloc_bitmap_t mine = my_binding(), dom = hwloc_bitmap_alloc();
    if (!dom)
        weft_fatal("shmem_init", "out of memory for a cpuset");
    const char *p = summary;
    char *tok = xmalloc(strlen(summary) + 1);
    for (int i = 0; i < TOPO_HW_TYPES; i++) {
        local[i] = -1;
        char *e;
        long nb = strtol(p, &e, 10);
        p = e;
        for (long j = 0; j < nb && p && *p == ' '; j++) {
            p++;
            size_t l = strcspn(p, " \n");
            memcpy(tok, p, l);
            tok[l] = '\0';
            p += l;
            if (local[i] < 0 && hwloc_bitmap_list_sscanf(dom, tok) == 0 &&
                !hwloc_bitmap_iszero(dom) && !hwloc_bitmap_iszero(mine) &&
                hwloc_bitmap_isincluded(mine, dom))
                local[i] = (int)j;
        }
        p += strcspn(p, "\n");
        if (*p == '\n')
            p++;
    }
    free(tok);
    hwloc_bitmap_free(dom);
    hwloc_bitmap_free(mine);
}

/* The node's topology summary as its lowest PE loads it (one that cannot
 * be had: one domain of each type per node, with a warning). */
static char *leader_summary(int me)
{
    double load_ms = 0;
    char *summary = hw_summary(&load_ms);
    if (summary && strlen(summary) >= TOPO_SUMMARY_CAP) {
        weft_warn("shmem_init", "the node's topology summary is %zu bytes (more than %d): "
                  "NUMA, socket and L3 domains are taken as one per node",
                  strlen(summary), TOPO_SUMMARY_CAP);
        free(summary);
        summary = NULL;
    } else if (!summary) {
        weft_warn("shmem_init", "hwloc cannot load this node's topology: NUMA, socket and L3 "
                  "domains are taken as one per node");
    }
    if (!summary) {
        summary = xmalloc(8);
        strcpy(summary, "0\n0\n0\n");
    }
    weft_debug("topology: hwloc loaded in %.1f ms (node leader PE %d)", load_ms, me);
    return summary;
}

/* Where the PEs of each host share one binding (weft_node_bindings_uniform),
 * every PE is placed where its host's lowest PE is: the leaders publish
 * their placement and every PE fetches one per node (one fence). */
static void hw_exchange_uniform(const int *node_id, int leader,
                                int32_t (*local)[TOPO_HW_TYPES])
{
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    int32_t lead[TOPO_HW_TYPES];
    if (leader == me) {
        char *summary = leader_summary(me);
        int placed[TOPO_HW_TYPES];
        hw_place(summary, placed);
        free(summary);
        for (int i = 0; i < TOPO_HW_TYPES; i++)
            lead[i] = placed[i];
        if (weft_boot_put("weft-topo-lead", lead, sizeof lead) != 0)
            weft_fatal("shmem_init", "cannot publish the node's placement through the launcher");
    }
    if (weft_boot_fence() != 0)
        weft_fatal("shmem_init", "cannot exchange the node placements through the launcher");
    int nodes = topo.count[WEFT_TOPO_NODE];
    int *first = xmalloc((size_t)nodes * sizeof *first);
    for (int d = 0; d < nodes; d++)
        first[d] = -1;
    for (int pe = 0; pe < n; pe++)
        if (first[node_id[pe]] < 0)
            first[node_id[pe]] = pe;
    int32_t (*per_node)[TOPO_HW_TYPES] = xmalloc((size_t)nodes * sizeof *per_node);
    for (int d = 0; d < nodes; d++) {
        size_t len = sizeof per_node[d];
        if (first[d] == me)
            memcpy(per_node[d], lead, sizeof lead);
        else if (weft_boot_get(first[d], "weft-topo-lead", per_node[d], &len) != 0 ||
                 len != sizeof per_node[d])
            weft_fatal("shmem_init", "cannot fetch the placement of PE %d's node through the "
                       "launcher", first[d]);
    }
    for (int pe = 0; pe < n; pe++)
        memcpy(local[pe], per_node[node_id[pe]], sizeof local[pe]);
    free(per_node);
    free(first);
}

/* The hwloc exchange: each node's lowest PE loads the topology and
 * publishes its summary (fence 1); every PE places itself in its node's
 * summary and the placements are all-gathered (fence 2). */
static void hw_exchange(const int *node_id, int32_t (*local)[TOPO_HW_TYPES])
{
    int n = weft_rt.n_pes, me = weft_rt.my_pe;
    int leader = me;
    for (int pe = 0; pe < me; pe++)
        if (node_id[pe] == node_id[me]) {
            leader = pe;
            break;
        }
    double t0 = now_ms();
    if (weft_node_bindings_uniform()) {
        hw_exchange_uniform(node_id, leader, local);
        weft_debug("topology: NUMA %d, socket %d, L3 %d of my node (-1: node-wide), as every "
                   "PE of the node; exchange %.1f ms for %d PEs", local[me][0], local[me][1],
                   local[me][2], now_ms() - t0, n);
        return;
    }
    char *summary = NULL;
    if (leader == me) {
        summary = leader_summary(me);
        if (weft_boot_put("weft-topo-node", summary, strlen(summary) + 1) != 0)
            weft_fatal("shmem_init", "cannot publish the node topology through the launcher");
    }
    if (weft_boot_fence() != 0)
        weft_fatal("shmem_init", "cannot exchange the node topology through the launcher");
    if (leader != me) {
        size_t len = TOPO_SUMMARY_CAP;
        summary = xmalloc(len + 1);
        if (weft_boot_get(leader, "weft-topo-node", summary, &len) != 0)
            weft_fatal("shmem_init", "cannot fetch the node topology of PE %d through the "
                       "launcher", leader);
        summary[len < TOPO_SUMMARY_CAP ? len : TOPO_SUMMARY_CAP] = '\0';
    }
    int32_t mine[TOPO_HW_TYPES];
    int placed[TOPO_HW_TYPES];
    hw_place(summary, placed);
    for (int i = 0; i < TOPO_HW_TYPES; i++)
        mine[i] = placed[i];
    free(summary);
    if (weft_boot_allgather("weft-topo-pe", mine, local, sizeof mine) != 0)
        weft_fatal("shmem_init", "cannot exchange CPU placements through the launcher");
    weft_debug("topology: NUMA %d, socket %d, L3 %d of my node (-1: node-wide); exchange "
               "%.1f ms for %d PEs", placed[0], placed[1], placed[2], now_ms() - t0, n);
}
#endif

static void hw_build(void)
{
    int n = weft_rt.n_pes;
    if (!weft_rt.pe_host)
        weft_fatal("shmem_init", "internal: weft_topology_init called before weft_node_init");
    uint64_t *key = xmalloc((size_t)n * sizeof *key);
    uint32_t *place = xmalloc((size_t)n * sizeof *place);
    for (int pe = 0; pe < n; pe++)
        key[pe] = weft_rt.pe_host[pe];
    set_nodes(n, key);
    switch_keys(topo.node, key);
    set_switches(n, key);
    free(key);
    /* NUMA, socket, L3: where the launcher placed every PE (PMIx's
     * locality, carried by the host exchange: no exchange, no hwloc load),
     * else hwloc, else one per node. The same choice on every PE. */
    int32_t (*local)[TOPO_HW_TYPES] = xmalloc((size_t)n * sizeof *local);
    const int16_t *placed = weft_node_launcher_place();
    if (placed) {
        for (int pe = 0; pe < n; pe++)
            for (int i = 0; i < TOPO_HW_TYPES; i++)
                local[pe][i] = placed[3 * pe + i];
        topo.source = "pmix";
    } else {
#if WEFT_HAVE_HWLOC
        hw_exchange(topo.node, local);
        topo.source = "hwloc";
#else
        for (int pe = 0; pe < n; pe++)
            for (int i = 0; i < TOPO_HW_TYPES; i++)
                local[pe][i] = -1;
        topo.source = "host";
#endif
    }
    int wide = 0;
    for (int pe = 0; pe < n; pe++) {
        place[pe] = 0;
        for (int i = 0; i < TOPO_HW_TYPES; i++) {
            /* A field of 0 is the node-wide domain of that type. */
            uint32_t f = local[pe][i] >= 0 && local[pe][i] < TOPO_PLACE_MAX
                             ? (uint32_t)local[pe][i] + 1 : 0;
            wide |= local[pe][i] >= TOPO_PLACE_MAX;
            place[pe] |= f << (TOPO_PLACE_BITS * i);
        }
    }
    if (wide && weft_rt.my_pe == 0)
        weft_warn("shmem_init", "a node has more than %d NUMA, socket or L3 domains of one "
                  "type: the PEs in the others are taken as node-wide", TOPO_PLACE_MAX);
    free(local);
    set_places(n, place);
}

/* ---- life cycle ---------------------------------------------------------------- */
void weft_topology_init(void)
{
    weft_topology_fini();
    double t0 = now_ms();
    if (weft_tun_is_set(WEFT_TUN_TOPOLOGY))
        sim_build(weft_tun_str(WEFT_TUN_TOPOLOGY));
    else
        hw_build();
    weft_node_forget_launcher_place();
    weft_node_forget_switch_keys();
    topo.ready = 1;
    weft_debug("topology (%s): %d switch(es) (%s), %d node(s), %d socket(s), %d NUMA node(s), "
               "%d L3 domain(s) in %.1f ms", topo.source, topo.count[WEFT_TOPO_SWITCH],
               topo.switch_source, topo.count[WEFT_TOPO_NODE], topo.count[WEFT_TOPO_SOCKET],
               topo.count[WEFT_TOPO_NUMA], topo.count[WEFT_TOPO_L3], now_ms() - t0);
}

void weft_topology_fini(void)
{
    free(topo.node);
    free(topo.place);
    free(topo.switch_id);
    topo.node = topo.switch_id = NULL;
    topo.place = NULL;
    topo.place_all = 0;
    for (int t = 0; t < WEFT_TOPO_NTYPES; t++) {
        free(topo.numbered[t]);
        topo.numbered[t] = NULL;
        topo.count[t] = 0;
    }
    weft_scale_note(WEFT_SCALE_TOPOLOGY, 0);
    weft_scale_note(WEFT_SCALE_TOPO_PLACES, 0);
    weft_scale_note(WEFT_SCALE_TOPO_SWITCHES, 0);
    weft_scale_note(WEFT_SCALE_TOPO_NUMBERED, 0);
    weft_scale_set_when(WEFT_SCALE_WHEN_PLACES | WEFT_SCALE_WHEN_SWITCHES |
                        WEFT_SCALE_WHEN_TOPO_IDS, 0);
    topo.simulated = 0;
    topo.ready = 0;
    topo.source = NULL;
}

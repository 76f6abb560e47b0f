/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_hier.c owns the hierarchical (node-leader) collectives: on a team
 * whose PEs sit on several nodes, the PEs of each node report to the node's
 * leader (its lowest team member) through the direct path, only the leaders
 * run the flat algorithms of coll_engine.c among themselves over libfabric,
 * and each leader hands the outcome back to its node.
 *
 * Counters: each call, a member signals WEFT_TF_H_UP at its leader on
 * entry (its dest is then free to write, and what it contributes is in
 * its own dest) and waits for one WEFT_TF_H_DOWN, the leader's last action
 * for it. Every algorithm here costs a member those two hops and no more:
 * the leader reads what members contribute in place through the mapping
 * and writes their results straight into their dest (the broadcast too:
 * its leaders move the data among themselves before they look at their
 * members, and the members never gate the leaders' next call).
 *
 * The leaders' session is the team's own slot seen through a team of the
 * leaders, with counters of its own (team.h's WEFT_TF_L_*), so flat calls
 * on the same team (runtime/hier_choice.c picks per collective and size)
 * never share a counter with the leaders' rounds, and each keeps one
 * writer, as team.h requires. Counts only grow, so a member's next arrival
 * may reach the leader before it has finished the current call.
 *
 * Used when WEFT_COLL_HIER is not 0, the team has a scratch slot, spans more
 * than one node (runtime/topology.c: real hosts, or WEFT_TOPOLOGY's
 * simulated ones) but at most 2^WEFT_HIER_LEAD_ROUNDS, and some node holds
 * two of its PEs; then per call where runtime/hier_choice.c says so. */
#include <stdlib.h>
#include <string.h>

#include "api/coll.h"
#include "runtime/topology.h"

struct weft_hier {
    int nlocal;            /* members on my node, me included */
    int *local;            /* their team indices, ascending; local[0] leads */
    int is_leader;
    int local_mapped;      /* my node's members map each other's counters */
    int *lead_of;          /* [n]: leaders-team index of team PE i's node */
    int *lead_tpe;         /* [n]: team index of team PE i's node leader */
    struct weft_team leaders; /* one PE per node (the flat algorithms run on it) */
    int last_bcast_root;   /* leaders' index of the last leaders' broadcast's root, or -1 */
    uint64_t entered_owed; /* per other leader: its entries to my broadcasts not waited for */
    uint64_t inline_bcasts; /* leaders' broadcasts through the slot: their buffers' parity */
};

static void *hier_alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        weft_fatal("shmem collective", "out of memory for a team's node layout");
    return p;
}

struct weft_hier *weft_coll_hier_make(struct weft_coll *c)
{
    struct weft_team *t = c->team;
    if (!weft_topology_ready())
        return NULL; /* start-up barriers: decide once the topology is known */
    t->hier_checked = 1;
    int n = t->size;
    if (t->slot < 0 || n < 3 || weft_hier_mode() == 0)
        return NULL;
    const int *ids = weft_topology_ids(WEFT_TOPO_NODE);
    int ndom = weft_topology_count(WEFT_TOPO_NODE);
    int *node_lead = hier_alloc((size_t)ndom, sizeof(int)); /* leaders index + 1 */
    int nnodes = 0;
    for (int i = 0; i < n; i++) {
        int d = ids[weft_team_world_pe(t, i)];
        if (!node_lead[d])
            node_lead[d] = ++nnodes;
    }
    if (nnodes < 2 || nnodes == n || nnodes > 1 << WEFT_HIER_LEAD_ROUNDS) {
        free(node_lead);
        return NULL;
    }
    struct weft_hier *h = hier_alloc(1, sizeof *h);
    h->lead_of = hier_alloc((size_t)n, sizeof(int));
    h->lead_tpe = hier_alloc((size_t)n, sizeof(int));
    h->local = hier_alloc((size_t)n, sizeof(int));
    int *lead_world = hier_alloc((size_t)nnodes, sizeof(int));
    int *lead_tpe_of = hier_alloc((size_t)nnodes, sizeof(int));
    int mine = ids[weft_rt.my_pe];
    int seen = 0;
    for (int i = 0; i < n; i++) {
        int w = weft_team_world_pe(t, i), l = node_lead[ids[w]] - 1;
        if (l == seen) {
            lead_world[l] = w;
            lead_tpe_of[l] = i;
            seen++;
        }
        h->lead_of[i] = l;
        h->lead_tpe[i] = lead_tpe_of[l];
        if (ids[w] == mine)
            h->local[h->nlocal++] = i;
    }
    h->is_leader = h->local[0] == t->my_pe;
    h->local_mapped = 1;
    for (int j = 0; j < h->nlocal; j++)
        if (!weft_transport_ptr(c->fseg, c->foff, weft_team_world_pe(t, h->local[j])))
            h->local_mapped = 0;
    h->last_bcast_root = -1;
    struct weft_team *L = &h->leaders;
    L->size = nnodes;
    L->members = lead_world;
    L->start = lead_world[0];
    L->my_pe = h->is_leader ? h->lead_of[t->my_pe] : -1;
    L->slot = t->slot;
    L->predefined = 1;
    L->hier_checked = 1;
    free(lead_tpe_of);
    free(node_lead);
    t->hier = h;
    return h;
}

void weft_coll_hier_free(struct weft_team *t)
{
    struct weft_hier *h = t->hier;
    if (!h)
        return;
    free(h->leaders.members);
    free(h->local);
    free(h->lead_of);
    free(h->lead_tpe);
    free(h);
    t->hier = NULL;
}

/* The leaders' session: the team's counters, the leaders as members. */
static void leaders_session(struct weft_coll *lc, const struct weft_coll *c, struct weft_hier *h)
{
    *lc = *c;
    lc->team = &h->leaders;
    lc->n = h->leaders.size;
    lc->me = h->leaders.my_pe;
    lc->remap = WEFT_COLL_REMAP_LEADERS;
}

int weft_coll_hier_wins(struct weft_coll *c, struct weft_hier *h, enum weft_hier_kind kind,
                        size_t bytes)
{
    return weft_hier_wins(kind, c->n, h->leaders.size, bytes);
}

/* After adding to counter idx of team PE tpe of my node: wake it if it
 * sleeps on it (weft_poll_onnode_sleep; the hierarchy's sessions are a
 * team's, whose counters are not remapped). */
static void wake_local(struct weft_coll *c, struct weft_hier *h, int idx, int tpe)
{
    if (!h->local_mapped)
        return;
    int w = weft_team_world_pe(c->team, tpe);
    const uint64_t *p = weft_transport_ptr(c->fseg, c->foff + (uint64_t)idx * sizeof(uint64_t), w);
    if (p)
        weft_onnode_wake(p, 0, w);
}

/* Adds one to counter idx of team PE tpe of my node, and wakes it. */
static void signal_local(struct weft_coll *c, struct weft_hier *h, int idx, int tpe, int fence)
{
    weft_coll_signal(c, idx, tpe, fence, 1);
    wake_local(c, h, idx, tpe);
}

/* Waits for count more signals on counter idx from PEs of my node: asleep
 * where they map my counters and wake me (weft_coll_wait_onnode). */
static void wait_local(struct weft_coll *c, struct weft_hier *h, int idx, uint64_t count)
{
    if (h->local_mapped)
        weft_coll_wait_onnode(c, idx, count);
    else
        weft_coll_wait(c, idx, count);
}

/* A member: report to the leader, wait until it is done with us. */
static void member_round(struct weft_coll *c, struct weft_hier *h, int fence)
{
    signal_local(c, h, WEFT_TF_H_UP, h->local[0], fence);
    wait_local(c, h, WEFT_TF_H_DOWN, 1);
}

/* The leader: wait for `count` more UP signals of this call. */
static void leader_gather(struct weft_coll *c, struct weft_hier *h, int count)
{
    if (count)
        wait_local(c, h, WEFT_TF_H_UP, (uint64_t)count);
}

/* fence: what was written into the members' memory before comes first;
 * direct: all of it was stored through the mapping, so a CPU fence orders
 * it (the transport's fence would also wait for the leaders' own traffic
 * between nodes, over tcp a quiet: a round trip). */
static void release_members(struct weft_coll *c, struct weft_hier *h, int fence, int direct)
{
    if (fence && h->nlocal > 1) {
        if (direct && h->local_mapped)
            __atomic_thread_fence(__ATOMIC_RELEASE);
        else
            weft_transport_fence(c->ctx);
    }
    for (int j = 1; j < h->nlocal; j++)
        signal_local(c, h, WEFT_TF_H_DOWN, h->local[j], 0);
}

/* While the leaders are few (WEFT_HIER_ALL_TO_ALL_MAX) the leaders' barrier
 * and broadcast take one hop between nodes: each leader signals all others
 * directly. */
_Static_assert(WEFT_HIER_ALL_TO_ALL_MAX <= WEFT_HIER_LEAD_ROUNDS,
               "the leaders' barrier needs a counter per leader");

/* Among at most WEFT_HIER_ALL_TO_ALL_MAX leaders, all-to-all: each signals
 * every other on the counter of its own index and waits for one signal on
 * each other leader's counter. A counter per sender, so a leader already
 * in its next call cannot stand in for one not yet arrived. More leaders:
 * dissemination. Every leaders' barrier comes here, so the counters keep
 * one meaning. */
static void leaders_barrier(struct weft_coll *lc)
{
    int L = lc->n, me = lc->me;
    if (L > WEFT_HIER_ALL_TO_ALL_MAX) {
        weft_coll_barrier(lc);
        return;
    }
    for (int i = 1; i < L; i++)
        weft_coll_signal(lc, WEFT_TF_BARRIER + me, (me + i) % L, 0, 1);
    for (int i = 1; i < L; i++)
        weft_coll_wait(lc, WEFT_TF_BARRIER + (me + i) % L, 1);
}

void weft_coll_hier_barrier(struct weft_coll *c, struct weft_hier *h)
{
    if (!h->is_leader) {
        member_round(c, h, 0);
        return;
    }
    leader_gather(c, h, h->nlocal - 1);
    struct weft_coll lc;
    leaders_session(&lc, c, h);
    leaders_barrier(&lc);
    release_members(c, h, 0, 1);
}

static void resolve_dest(const struct weft_coll *c, void *dest, size_t len, int *seg,
                         uint64_t *off)
{
    weft_sym_resolve_or_die(c->call, "dest", dest, len, seg, off);
}

/* Copy len bytes at (seg, off) of world PE pe into dest: through the
 * mapping where there is one, else a get. */
static void copy_from(struct weft_ctx *ctx, void *dest, int seg, uint64_t off, size_t len, int pe)
{
    const void *p = weft_transport_ptr(seg, off, pe);
    if (p)
        memcpy(dest, p, len);
    else
        weft_transport_get(ctx, dest, seg, off, len, pe);
}

/* Fan-out among the leaders while they are few: each leader signals the
 * root's leader on entry (on a counter of its own, WEFT_TF_L_ENTERED), and
 * the root's leader puts to each other leader and signals it; one hop
 * where a tree takes log2 of them.
 *
 * Up to WEFT_HIER_INLINE_WORDS words the data goes into the team slot's
 * two broadcast buffers (alternating by call) instead of dest, so when the
 * root's leader was also the previous leaders' broadcast's, it waits only
 * for the entries into that previous call: a leader that entered it is
 * done with the buffer the previous call but one used, the one this call
 * writes. The root's leader then runs ahead by a call and the entry hop
 * leaves the critical path; a leader copies the buffer into its dest. A
 * larger broadcast, or one from another root, waits for this call's
 * entries (the dest it writes is free only then). A counter per leader: a
 * fast leader's next entry must not stand in for a slow one's. */
static void leaders_bcast(struct weft_hier *h, struct weft_coll *lc, void *dest, size_t len,
                          int seg, uint64_t off, int root)
{
    int L = lc->n, me = lc->me;
    if (L > WEFT_HIER_ALL_TO_ALL_MAX) {
        weft_coll_bcast(lc, dest, dest, len, root, WEFT_BCAST_WAIT_READY);
        return;
    }
    int in_slot = len <= WEFT_HIER_INLINE_WORDS * sizeof(uint64_t);
    int buf = WEFT_TF_L_DATA + (int)(h->inline_bcasts & 1) * WEFT_HIER_INLINE_WORDS;
    int ahead = in_slot && h->last_bcast_root == root;
    h->inline_bcasts += (uint64_t)in_slot;
    h->last_bcast_root = root;
    if (me != root) {
        weft_coll_signal(lc, WEFT_TF_L_ENTERED + me, root, 0, 1);
        weft_coll_wait(lc, WEFT_TF_BCAST, 1);
        if (in_slot)
            memcpy(dest, lc->flags + buf, len);
        return;
    }
    uint64_t awaited = h->entered_owed + (uint64_t)!ahead;
    h->entered_owed = (uint64_t)ahead;
    for (int i = 1; i < L; i++)
        weft_coll_wait(lc, WEFT_TF_L_ENTERED + (me + i) % L, awaited);
    if (in_slot) {
        /* Data and signal in one counted write: a fence between them was
         * a quiet over tcp (the signals before it were messages), a round
         * trip to every leader on the root's leader's path. */
        uint64_t boff = lc->foff + (uint64_t)buf * sizeof(uint64_t);
        for (int i = 1; i < L; i++)
            weft_coll_put_signal(lc, lc->fseg, boff, dest, len, WEFT_TF_BCAST, (me + i) % L);
        return;
    }
    for (int i = 1; i < L; i++)
        weft_transport_put_nbi(lc->ctx, seg, off, dest, len,
                               weft_team_world_pe(lc->team, (me + i) % L));
    weft_transport_fence(lc->ctx);
    for (int i = 1; i < L; i++)
        weft_coll_signal(lc, WEFT_TF_BCAST, (me + i) % L, 0, 1);
}

/* Write len bytes of src into dest of each member of my node but skip
 * (team index), then release them all. */
static void push_to_members(struct weft_coll *c, struct weft_hier *h, const void *src, int seg,
                            uint64_t off, size_t len, int skip)
{
    int direct = 1;
    for (int j = 1; j < h->nlocal; j++) {
        if (h->local[j] == skip)
            continue;
        int w = weft_team_world_pe(c->team, h->local[j]);
        direct &= weft_transport_ptr(seg, off, w) != NULL;
        weft_transport_put_nbi(c->ctx, seg, off, src, len, w);
    }
    release_members(c, h, 1, direct);
}

/* The root copied source into its dest before this is called (the public
 * broadcast's WEFT_BCAST_ROOT_COPIES). The leaders broadcast among
 * themselves as soon as they enter (a root that is not its node's leader
 * first hands its data to the leader), then each leader writes the result
 * into its members' dest once they have entered, and releases them: a
 * member waits one hop, and a leader never waits for its members to read. */
void weft_coll_hier_bcast(struct weft_coll *c, struct weft_hier *h, void *dest,
                          const void *source, size_t len, int root)
{
    (void)source;
    int seg;
    uint64_t off;
    resolve_dest(c, dest, len, &seg, &off);
    if (!h->is_leader) {
        member_round(c, h, c->me == root);
        return;
    }
    int root_is_member = h->lead_tpe[root] == c->me && root != c->me;
    if (root_is_member) {
        leader_gather(c, h, h->nlocal - 1);
        copy_from(c->ctx, dest, seg, off, len, weft_team_world_pe(c->team, root));
    }
    struct weft_coll lc;
    leaders_session(&lc, c, h);
    leaders_bcast(h, &lc, dest, len, seg, off, h->lead_of[root]);
    if (!root_is_member)
        leader_gather(c, h, h->nlocal - 1);
    push_to_members(c, h, dest, seg, off, len, root_is_member ? root : -1);
}

static void *hier_buf(size_t len)
{
    static void *buf;
    static size_t cap;
    if (len > cap) {
        void *p = realloc(buf, len);
        if (!p)
            weft_fatal("shmem collective", "out of private memory (%zu bytes)", len);
        buf = p;
        cap = len;
    }
    return buf;
}

#define WEFT_HIER_GET_CHUNK ((size_t)64 * 1024)

void weft_coll_hier_allreduce(struct weft_coll *c, struct weft_hier *h, void *dest,
                              const void *source, size_t count, size_t esz, weft_red_fn op)
{
    size_t bytes = count * esz;
    int seg;
    uint64_t off;
    resolve_dest(c, dest, bytes, &seg, &off);
    if (dest != source)
        memmove(dest, source, bytes);
    /* The team's reduction buffers alternate by one parity count, flat
     * chunks and the leaders' alike, so a flat reduction may follow this
     * one on the team: every PE counts the leaders' chunks. */
    size_t cap = weft_team_pool.chunk / esz;
    uint64_t chunks = (count + cap - 1) / cap;
    if (!h->is_leader) {
        c->team->red_chunks += chunks;
        member_round(c, h, 1);
        return;
    }
    leader_gather(c, h, h->nlocal - 1);
    /* My node's partial, in local order: read each member's dest in place
     * when it is mapped, else in chunks. */
    for (int j = 1; j < h->nlocal; j++) {
        int w = weft_team_world_pe(c->team, h->local[j]);
        const void *theirs = weft_transport_ptr(seg, off, w);
        if (theirs) {
            op(dest, dest, theirs, count);
            continue;
        }
        size_t per_get = WEFT_HIER_GET_CHUNK / esz ? WEFT_HIER_GET_CHUNK / esz : 1;
        char *tmp = hier_buf(per_get * esz);
        for (size_t o = 0; o < count; o += per_get) {
            size_t m = count - o < per_get ? count - o : per_get;
            weft_transport_get(c->ctx, tmp, seg, off + o * esz, m * esz, w);
            op((char *)dest + o * esz, (char *)dest + o * esz, tmp, m);
        }
    }
    struct weft_coll lc;
    leaders_session(&lc, c, h);
    h->leaders.red_chunks = c->team->red_chunks;
    weft_coll_allreduce(&lc, dest, dest, count, esz, op);
    c->team->red_chunks += chunks;
    push_to_members(c, h, dest, seg, off, bytes, -1);
}

/* Put my node's blocks (runs of consecutive team indices) to team PE pe. */
static void put_local_blocks(struct weft_coll *c, struct weft_hier *h, const char *d, int seg,
                             uint64_t off, size_t len, int pe)
{
    int w = weft_team_world_pe(c->team, pe);
    for (int j = 0; j < h->nlocal;) {
        int k = j + 1;
        while (k < h->nlocal && h->local[k] == h->local[k - 1] + 1)
            k++;
        size_t at = (size_t)h->local[j] * len;
        weft_transport_put_nbi(c->ctx, seg, off + at, d + at, (size_t)(k - j) * len, w);
        j = k;
    }
}

/* Each member's block sits in its own dest; the leader gathers its node's
 * blocks, puts them to every PE of the team (direct on its node), and the
 * leaders' barrier after a quiet says every block has landed everywhere.
 * Nothing reads or writes a dest after that barrier, so back-to-back calls
 * on one dest are as safe as with the flat algorithm. */
void weft_coll_hier_fcollect(struct weft_coll *c, struct weft_hier *h, void *dest,
                             const void *source, size_t len)
{
    int n = c->n, me = c->me;
    char *d = dest;
    int seg;
    uint64_t off;
    resolve_dest(c, dest, (size_t)n * len, &seg, &off);
    memmove(d + (size_t)me * len, source, len);
    if (!h->is_leader) {
        member_round(c, h, 1);
        return;
    }
    leader_gather(c, h, h->nlocal - 1);
    for (int j = 1; j < h->nlocal; j++) {
        size_t at = (size_t)h->local[j] * len;
        weft_transport_get(c->ctx, d + at, seg, off + at, len,
                           weft_team_world_pe(c->team, h->local[j]));
    }
    /* Remote PEs in an order that starts after me, so the leaders do not
     * all write to PE 0 first. */
    for (int i = 1; i < n; i++) {
        int pe = (me + i) % n;
        if (h->lead_tpe[pe] != me)
            put_local_blocks(c, h, d, seg, off, len, pe);
    }
    for (int j = 1; j < h->nlocal; j++)
        put_local_blocks(c, h, d, seg, off, len, h->local[j]);
    weft_transport_quiet(c->ctx);
    struct weft_coll lc;
    leaders_session(&lc, c, h);
    leaders_barrier(&lc);
    release_members(c, h, 0, 1);
}

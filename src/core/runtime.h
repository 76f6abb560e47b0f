/* SPDX-License-Identifier: BSD-3-Clause */
/* runtime.h owns the process-wide state of a weft PE: who we are, the
 * symmetric segments and how a local symmetric address resolves to
 * (segment, offset), the atomic op/datatype vocabulary shared by the API
 * layer and the transports, and the argument checks every entry point
 * makes. Errors (error.h) and tunables (tunables.h) come with it. */
#ifndef WEFT_RUNTIME_H
#define WEFT_RUNTIME_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/tunables.h"

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* Symmetric segments. Every PE has the same segments with the same sizes,
 * so an offset into a segment names the same object everywhere. */
enum weft_seg_id {
    WEFT_SEG_HEAP = 0, /* shmem_malloc & co., memfd-backed */
    WEFT_SEG_DATA = 1, /* the executable's .data/.bss (writable PT_LOAD) */
    WEFT_NSEGS
};

struct weft_segment {
    char *base;  /* local address of offset 0 */
    size_t size; /* bytes */
    int fd;      /* memfd backing it, or -1 */
};

/* Atomic operations and datatype classes understood by every transport. */
enum weft_amo_op {
    WEFT_AMO_FETCH, /* atomic read */
    WEFT_AMO_SET,   /* atomic write */
    WEFT_AMO_SWAP,
    WEFT_AMO_CSWAP,
    WEFT_AMO_ADD, /* add, fetch_add, inc, fetch_inc */
    WEFT_AMO_AND,
    WEFT_AMO_OR,
    WEFT_AMO_XOR,
    WEFT_AMO_NOPS
};

enum weft_dtype {
    WEFT_DT_I32,
    WEFT_DT_I64,
    WEFT_DT_U32,
    WEFT_DT_U64,
    WEFT_DT_F32,
    WEFT_DT_F64,
    WEFT_DT_NTYPES
};

static inline size_t weft_dtype_size(enum weft_dtype dt)
{
    return (dt == WEFT_DT_I32 || dt == WEFT_DT_U32 || dt == WEFT_DT_F32) ? 4 : 8;
}

extern const char *const weft_amo_op_names[WEFT_AMO_NOPS];
extern const char *const weft_dtype_names[WEFT_DT_NTYPES];

/* Thread levels mirror SHMEM_THREAD_*; kept numeric here so the core does
 * not depend on the public header. */
#define WEFT_THREAD_SINGLE 0
#define WEFT_THREAD_MULTIPLE 3
struct weft_runtime {
    int my_pe;
    int n_pes;
    int initialized; /* 1 between init and finalize */
    int finalized;
    int thread_level;
    int boot_up; /* the launcher connection is open (abort can reach it) */
    struct weft_segment seg[WEFT_NSEGS];
    /* The program's heap at start-up: SHMEM_SYMMETRIC_SIZE, or its
     * default when the heap grows. The heap's mapping is larger by weft's
     * own symmetric data, heap_own bytes (init.c). */
    size_t heap_asked;
    size_t heap_own;
    /* The most the program may allocate in all: SHMEM_SYMMETRIC_SIZE when
     * set (then the heap is fixed, heap_limit == heap_asked), else
     * WEFT_HEAP_LIMIT or the machine's memory. Address space for
     * heap_limit + heap_own bytes (heap_span) is reserved at start-up and
     * mapped on every path; seg[WEFT_SEG_HEAP].size is the part backed so
     * far, which collective allocations grow (heap.c). */
    size_t heap_limit;
    size_t heap_span;
    size_t heap_own_used; /* bytes in live blocks at the end of shmem_init */
    struct weft_internal_sym *sym; /* library-private symmetric area */
    char hostname[256];
    uint64_t *pe_host; /* host identity of every PE (runtime/node.c), during init */
    int single_node;   /* every PE of the job is on this host */
    int most_host_pes; /* the most PEs any one host of the job runs */
    /* The heap ends below the program's lowest page, less than its base
     * alignment away: heap and static data fit one window (onnode.c). */
    int heap_below_program;
    /* Messages the active-message engine's on-node channels delivered to
     * this PE: requests it served (sync.c's idle naps look at it). */
    unsigned long onnode_msgs_served;
};

extern struct weft_runtime weft_rt;

/* The inputs of the default context's fast path (api.h), each its own
 * variable so that every read is one RIP-relative load (fields of one
 * struct make the compiler materialize the struct's address first):
 *  weft_fast_heap_base   = weft_rt.seg[WEFT_SEG_HEAP].base;
 *  weft_fast_heap_limit  = heap size - WEFT_FAST_MAX, 0 without a heap, so
 *                          an object of up to WEFT_FAST_MAX bytes starting
 *                          below it lies in the heap, and before init and
 *                          after finalize everything takes the checked path;
 *  weft_fast_n_pes       = weft_rt.n_pes;
 *  weft_fast_heap_peer   = each PE's directly mapped heap or NULL
 *                          (weft_transport_fast_peers(WEFT_SEG_HEAP)).
 * Set in init order heap, n_pes, peers; the limit is cleared first. */
extern char *weft_fast_heap_base;
extern uint64_t weft_fast_heap_limit;
extern unsigned weft_fast_n_pes;
extern char **weft_fast_heap_peer;
/* The same for the static data segment (.data/.bss), taken by shmem_TYPE_p
 * and shmem_TYPE_g after the heap compare fails:
 *  weft_fast_data_base   = weft_rt.seg[WEFT_SEG_DATA].base;
 *  weft_fast_data_limit  = data size - WEFT_FAST_MAX, 0 when smaller,
 *                          before init and after finalize;
 *  weft_fast_data_peer   = each PE's directly mapped static data or NULL
 *                          (weft_transport_fast_peers(WEFT_SEG_DATA); NULL sends the
 *                          call to the checked path, and libfabric). */
extern char *weft_fast_data_base;
extern uint64_t weft_fast_data_limit;
extern char **weft_fast_data_peer;
/* heap base - data base: turns the heap offset the fast path computed
 * first into the data offset in place (one add, no second copy of the
 * address), and back into the address on the checked path. Kept in step
 * with the bases by weft_fast_set_bases. */
extern uint64_t weft_fast_data_delta;
/* The first compare of shmem_TYPE_p and _g: weft_fast_heap_limit, or in
 * window mode (onnode.h) the window's size - WEFT_FAST_MAX, so that one
 * compare takes heap and static data; cleared first at finalize. */
extern uint64_t weft_fast_pg_limit;
static inline void weft_fast_set_bases(char *heap, char *data)
{
    weft_fast_heap_base = heap;
    weft_fast_data_base = data;
    weft_fast_data_delta = (uint64_t)(uintptr_t)heap - (uint64_t)(uintptr_t)data;
}

/* Library-private symmetric objects, allocated first in the heap so they
 * sit at the same offset on every PE. */
#define WEFT_BARRIER_ROUNDS 32
struct weft_internal_sym {
    /* dissemination barrier, one set of flags per parity of its epoch */
    uint64_t barrier_flag[2][WEFT_BARRIER_ROUNDS];
    uint64_t barrier_epoch;                      /* private count of barriers */
    /* its node-leader form (runtime/sync.c): a member's word for its
     * leader, and the leader's outcome for its members, read in place */
    uint64_t barrier_up[2];
    uint64_t barrier_down[2];
    /* runtime/hang.c, written by peers: a PE entering shmem_finalize posts
     * (its barrier epoch << 24 | its PE + 1); a PE whose wait found no
     * progress for WEFT_HANG_TIMEOUT posts (round << 24 | its PE + 1) to
     * ask for acknowledgements, then (report << 24 | PE + 1) to ask for
     * reports. hang_ack[i] (n_pes words elsewhere in the heap) holds the
     * last round PE i acknowledged. */
    uint64_t fin_notice;
    uint64_t hang_req;
    uint64_t hang_report;
    uint64_t *hang_ack;
    /* The call this PE made at its latest world barrier (runtime/agree.c),
     * read by peers only when the barrier found a disagreement. */
    struct weft_agree_rec {
        char call[40]; /* "": a plain barrier */
        uint8_t arg[2];    /* enum weft_agree_arg */
        uint8_t has_result;
        uint64_t val[2];
        uint64_t result;   /* heap offset; UINT64_MAX: NULL */
    } agree;
    uint64_t agree_reported; /* set by the PE that reported a disagreement */
    /* How many of this PE's threads sleep on a futex in a wait for a node
     * peer (runtime/sync.c, weft_poll_onnode_sleep): while non-zero, the
     * peer that writes what they wait for wakes them. */
    uint64_t onnode_sleeping;
};

/* What the calling thread is blocked in (runtime/hang.c): set by a wait
 * routine as it starts waiting, cleared when it returns, read only by the
 * slow phase of weft_poll_yield (the hang report, the finalize check). A
 * few plain stores per wait, nothing on the RMA/AMO paths. */
enum weft_wait_kind {
    WEFT_WAIT_NONE,
    WEFT_WAIT_BARRIER_ALL, /* want = the barrier's epoch */
    WEFT_WAIT_COLL,        /* team, addr = counter, want = value awaited */
    WEFT_WAIT_P2P,         /* addr = ivar(s), value, size, cmp, nelems */
};
struct weft_wait_rec {
    const char *call;
    int kind;
    int cmp;
    size_t size, nelems;
    const void *addr;
    const void *value;
    const void *team; /* struct weft_team * */
    uint64_t want;
};
extern __thread struct weft_wait_rec weft_wait __attribute__((tls_model("initial-exec")));

/* Largest object the fast path's single bounds compare covers. */
#define WEFT_FAST_MAX 64

/* A segment's size now: the heap's grows at collective allocations while
 * other threads (the progress thread, the program's) may read it. */
static inline size_t weft_seg_size(int s)
{
    return __atomic_load_n(&weft_rt.seg[s].size, __ATOMIC_RELAXED);
}

/* Resolve a local symmetric address of `len` bytes to its segment and offset.
 * Returns 0 on success, -1 if any byte is outside every symmetric segment. */
static inline int weft_sym_resolve(const void *addr, size_t len, int *seg, uint64_t *off)
{
    uintptr_t a = (uintptr_t)addr;
    for (int s = 0; s < WEFT_NSEGS; s++) {
        uintptr_t d = a - (uintptr_t)weft_rt.seg[s].base;
        size_t size = weft_seg_size(s);
        if (d < size && len <= size - d) {
            *seg = s;
            *off = d;
            return 0;
        }
    }
    /* A zero-length access may name one-past-the-end or any pointer. */
    if (len == 0) {
        *seg = WEFT_SEG_HEAP;
        *off = 0;
        return 0;
    }
    return -1;
}

/* ---- argument checks -------------------------------------------------- */

/* Shared argument checks used by every public entry point: they name the
 * call and the argument in the message and abort the job. */
WEFT_NORETURN void weft_fail_pe(const char *call, int pe); /* "argument pe=... out of range" */
static inline void weft_check_pe(const char *call, int pe)
{
    if (WEFT_UNLIKELY((unsigned)pe >= (unsigned)weft_rt.n_pes))
        weft_fail_pe(call, pe);
}
WEFT_NORETURN void weft_fail_not_symmetric(const char *call, const char *arg, const void *addr,
                                           size_t len);
WEFT_NORETURN void weft_fail_not_initialized(const char *call);
WEFT_NORETURN void weft_fail_overflow(const char *call, const char *arg, size_t n, size_t size);

/* n * size bytes, or abort naming the argument if that overflows (one
 * compare when size is a constant). */
static inline size_t weft_nbytes(const char *call, const char *arg, size_t n, size_t size)
{
    size_t bytes;
    if (WEFT_UNLIKELY(__builtin_mul_overflow(n, size, &bytes)))
        weft_fail_overflow(call, arg, n, size);
    return bytes;
}

static inline void weft_check_init(const char *call)
{
    if (WEFT_UNLIKELY(!weft_rt.initialized)) /* icount-check: initialized */
        weft_fail_not_initialized(call);
}

/* Resolve or abort. */
static inline void weft_sym_resolve_or_die(const char *call, const char *arg, const void *addr,
                                           size_t len, int *seg, uint64_t *off)
{
    if (WEFT_UNLIKELY(weft_sym_resolve(addr, len, seg, off) != 0))
        weft_fail_not_symmetric(call, arg, addr, len);
}

/* ---- waiting: defined by the runtime (runtime/sync.c) ------------------
 * Declared here, below every layer, because every layer's wait loops
 * (the transports' counter waits, the message engine's, the APIs') call
 * them; the runtime's own calls are in runtime/lifecycle.h. */
/* Polling helper: every wait loop in the library calls this each spin so
 * progress happens and oversubscribed PEs yield the CPU after a short spin. */
void weft_poll_yield(unsigned *spins);
/* The slow phase of a wait (weft_poll_yield calls it once a wait has spun
 * past its budget; a wait that sleeps in the provider, between sleeps):
 * notices a peer that finalized under a collective we wait in, and hangs
 * (WEFT_HANG_TIMEOUT). spins grows through one wait. */
void weft_wait_slow(unsigned spins);
/* weft_poll_yield for a wait on memory that only node peers write,
 * through the mapping: libfabric is progressed only every 32nd pause (it
 * still serves peers' requests), so an oversubscribed host's waiting
 * members do not spend the cores their leaders need on system calls
 * (runtime/sync.c). */
void weft_poll_yield_onnode(unsigned *spins);
/* weft_poll_yield_onnode, where this host's PEs outnumber its CPUs (and
 * WEFT_IDLE_NAP is not 0), sleeping on a futex instead of yielding once the spin is over:
 * word is a 64-bit word of the symmetric heap that node peers write
 * through the mapping, every write changing its high half (high) or its
 * low half, and seen its value at the caller's last look. Whoever writes
 * it calls weft_onnode_wake afterwards. A sleeping PE leaves the cores to
 * the PEs that have work; a yielding one gets its turn as often as they. */
void weft_poll_onnode_sleep(const uint64_t *word, int high, uint64_t seen, unsigned *spins);
/* After writing word (through the mapping, or this PE's own), for which
 * node peer pe may be asleep in weft_poll_onnode_sleep: wake every PE
 * asleep on it if pe is asleep (returns 1), else nothing but one load. */
int weft_onnode_wake(const uint64_t *word, int high, int pe);
/* weft_poll_yield, where this host's PEs outnumber its CPUs (and
 * WEFT_IDLE_NAP is not 0) and the provider has a wait object, sleeping on
 * it instead of yielding after a few polls: for a wait on word (seen at
 * the caller's last look) that a peer's update through libfabric writes,
 * which ends the sleep as it arrives. */
void weft_poll_remote_sleep(const uint64_t *word, uint64_t seen, unsigned *spins);
/* The calling thread's waits (weft_poll_yield) spin briefly, then nap
 * (weft_poll_nap), and never yield: for a thread that
 * runs beside the application's (the engine of the non-blocking
 * collectives), where a yield on a full host comes straight back and
 * takes half of a core from the computation. weft_poll_naps_here says
 * whether the calling thread does: a wait that polls between its pauses
 * then pauses at every poll. */
void weft_poll_thread_naps(void);
int weft_poll_naps_here(void);
/* The k-th nap (k from 1) of a wait that spun first: 1 us, doubling to
 * 100 us, then an eighth longer each time, at most 2 ms (runtime/sync.c
 * says why). weft_poll_nap sleeps for it. */
uint64_t weft_poll_nap_ns(unsigned k);
void weft_poll_nap(unsigned k);
/* The pause of a wait for a peer's update of this PE's memory
 * (shmem_wait_until and kin): where the transport counts what arrives it
 * sleeps until the count moves, else it is weft_poll_yield. The caller
 * looks at memory after each call. */
void weft_wait_for_update(unsigned *spins);
/* What shmem_test does before it looks: progress, or where what arrives is
 * counted, a read of the count and progress only when it moved. */
void weft_test_for_update(void);
/* 1 if waiting PEs that serve nobody may nap (sync.c): the host is
 * oversubscribed and WEFT_IDLE_NAP is not 0. */
int weft_idle_naps_possible(void);
/* The world barrier, usable before teams exist (runtime/sync.c; the
 * message engine's set-up waits in it too). It carries a 24-bit signature
 * of the call each PE makes and returns 1 if every PE gave the same one.
 * weft_barrier_all_internal (runtime/agree.c) is the plain barrier,
 * signature 0: one that pairs with a peer's allocation ends the job as a
 * disagreement. */
int weft_barrier_all_signed(uint32_t sig);
void weft_barrier_all_internal(void);

/* Collective symmetric allocations (runtime/agree.c): a barrier that also
 * checks that every PE made the same call with the same arguments (and,
 * with WEFT_AGREE_RESULT, got the same block). A disagreement ends the job,
 * one line from one PE naming the call, both PEs and their values. The
 * values are sizes, counts and alignments, or pointers (ptr: turned into
 * heap offsets). */
enum weft_agree_arg {
    WEFT_ARG_NONE,
    WEFT_ARG_SIZE,
    WEFT_ARG_COUNT,
    WEFT_ARG_ALIGNMENT,
    WEFT_ARG_PTR,
    WEFT_ARG_PTR_FOREIGN, /* agree.c: a pointer outside the heap, kept as is */
};
#define WEFT_AGREE_RESULT 1
void weft_barrier_all_agreeing(const char *call, unsigned flags, const void *result,
                               enum weft_agree_arg a0, uint64_t v0, enum weft_agree_arg a1,
                               uint64_t v1);

/* Symmetric heap allocator (core/heap.c). All collective callers pass the
 * same sizes in the same order so offsets agree on every PE. The heap is
 * backed for size bytes and reserves span bytes of address space (span ==
 * size: a fixed heap); an allocation that ends past the backed part grows
 * it (the same way on every PE, before the allocation's barrier). */
void weft_heap_init(size_t size, size_t span);
void *weft_heap_alloc(size_t align, size_t size);
/* The same, its bytes zero (those never handed out before are not touched). */
void *weft_heap_alloc_zeroed(size_t align, size_t size);
void weft_heap_free(void *p);
size_t weft_heap_usable(void *p);
/* Bytes in live blocks, weft's own included. */
size_t weft_heap_in_use(void);
/* 1 if [p, p + len) lies inside one live block (or weft's own data), else 0;
 * that block in *block, *block_size. p must be inside the heap. */
int weft_heap_live(const void *p, size_t len, const char **block, size_t *block_size);
/* The address space a segment's mappings and registrations cover: the
 * heap's whole reservation, the static data itself. */
static inline size_t weft_seg_span(int s)
{
    return s == WEFT_SEG_HEAP ? weft_rt.heap_span : weft_rt.seg[s].size;
}
/* Blocks freed so far: a block found live stays live while this is unchanged. */
extern unsigned long weft_heap_frees;
void weft_heap_fini(void);

/* The executable's writable segment (.data + .bss), page-aligned. */
int weft_data_segment(char **base, size_t *size);
/* The main program's lowest loaded address (page-aligned), 0 if unknown:
 * the heap goes just below it where it can (heap.c). */
uintptr_t weft_program_lowest(void);

#pragma GCC visibility pop

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* cxx generic: the C++ overloads of shmem.h's generic routines (weft/cxx.h)
 * as a C++ program uses them. Every generic routine is called for every row
 * of the type table it is generated from (the typedef rows such as int64_t,
 * size_t and ptrdiff_t included: they must resolve to their base type's
 * overload), plain and with a context of its own, on values that depend on
 * the calling PE; the receiving PE checks them, so a value that went to the
 * wrong place, the wrong routine or nowhere fails the job. Compile-time
 * checks pin the shape of the overload set: the result types, and the types
 * a generic routine must refuse.
 *
 * The tests are templates instantiated from the X-macro tables of
 * weft/types.h, so a row added to a table is tested without an edit here. */
#include "weft_test.h"

#include <complex>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

namespace {

int me, npes, right, left;
/* A context created by the program (not SHMEM_CTX_DEFAULT), so the context
 * overloads run on a context that is not the default one. */
shmem_ctx_t ctx;

/* ---- values ------------------------------------------------------------------- */

/* make<T>(re, im): a T from small integers; only complex types keep im. */
template <typename T> struct maker {
    static T make(long long re, long long) { return static_cast<T>(re); }
};
template <typename R> struct maker<std::complex<R> > {
    static std::complex<R> make(long long re, long long im)
    {
        return std::complex<R>(static_cast<R>(re), static_cast<R>(im));
    }
};
/* The C complex rows (weft_complexd_t is double _Complex, a g++/clang++
 * extension in C++) are built and printed through their std::complex
 * counterpart WEFT_CXX_STD_<NAME> of weft/cxx.h, which has their layout. */
#define C_COMPLEX_MAKER(N, T, D, G)                                                        \
    template <> struct maker<T> {                                                          \
        static T make(long long re, long long im)                                          \
        {                                                                                  \
            WEFT_CXX_STD_##N s = maker<WEFT_CXX_STD_##N>::make(re, im);                    \
            T c;                                                                           \
            std::memcpy(&c, &s, sizeof c);                                                 \
            return c;                                                                      \
        }                                                                                  \
    };
WEFT_REDUCE_COMPLEX_TYPES(C_COMPLEX_MAKER)
#undef C_COMPLEX_MAKER
template <typename T> T make(long long re, long long im = 0) { return maker<T>::make(re, im); }

/* A value for element i sent by PE pe that fills T: integers near the top
 * (and, for signed types, the bottom) of their range, so a transfer that
 * moved too few bytes would show; reals with a fractional part. */
template <typename T> T wide(int pe, int i)
{
    long long k = pe * 32 + i + 1;
    if (!std::numeric_limits<T>::is_integer)
        return static_cast<T>(static_cast<T>(k) + static_cast<T>(0.25));
    if (std::numeric_limits<T>::is_signed && i % 2)
        return static_cast<T>(std::numeric_limits<T>::min() + static_cast<T>(k));
    return static_cast<T>(std::numeric_limits<T>::max() - static_cast<T>(k));
}

/* A small value (exact in every type) with a fractional part where T has one. */
template <typename T> T small(int k)
{
    return static_cast<T>(static_cast<T>(k) + static_cast<T>(0.5));
}

/* ---- checking ---------------------------------------------------------------- */

inline void describe(char *buf, size_t n, long double v) { snprintf(buf, n, "%.21Lg", v); }
template <typename T> void describe(char *buf, size_t n, T v)
{
    describe(buf, n, static_cast<long double>(v));
}
template <typename R> void describe(char *buf, size_t n, std::complex<R> v)
{
    snprintf(buf, n, "(%.21Lg, %.21Lg)", static_cast<long double>(v.real()),
             static_cast<long double>(v.imag()));
}
#define C_COMPLEX_DESCRIBE(N, T, D, G)                                                     \
    inline void describe(char *buf, size_t n, T v)                                         \
    {                                                                                      \
        typedef WEFT_CXX_STD_##N::value_type R; /* C: a complex is an array of two R */    \
        const R *parts = reinterpret_cast<const R *>(&v);                                  \
        describe(buf, n, WEFT_CXX_STD_##N(parts[0], parts[1]));                            \
    }
WEFT_REDUCE_COMPLEX_TYPES(C_COMPLEX_DESCRIBE)
#undef C_COMPLEX_DESCRIBE

/* Fail the job unless got == want; `type` is the row's name. */
template <typename T, typename U>
void expect_at(const char *file, int line, T got, U want, const char *type, const char *what)
{
    if (got == static_cast<T>(want))
        return;
    char g[96], w[96];
    describe(g, sizeof g, got);
    describe(w, sizeof w, static_cast<T>(want));
    wt_fail_at(file, line, "got == want", "%s: %s: got %s, expected %s", type, what, g, w);
}
#define EXPECT(got, want, what) expect_at(__FILE__, __LINE__, (got), (want), type, (what))

template <typename T> T *sym(size_t n)
{
    T *p = static_cast<T *>(shmem_malloc(n * sizeof(T)));
    WT_CHECK(p != NULL, "shmem_malloc of %zu elements", n);
    for (size_t i = 0; i < n; i++)
        ::new (static_cast<void *>(p + i)) T(); /* std::complex is a class */
    return p;
}

/* ---- RMA and team data movement (WEFT_RMA_TYPES) ----------------------------- */

/* Element i of the destination of rma()'s transfers comes from element
 * strided_from[i] of the source. */
const int strided_from[10] = {0, 1, 2, 3, 4, 5, 6, 8, 7, 9};

template <typename T> void rma(const char *type)
{
    WT_PHASE("RMA generics on %s", type);
    const int n = 10;
    T *dst = sym<T>(n), *src = sym<T>(n), *one = sym<T>(2);
    T loc[n];
    for (int i = 0; i < n; i++) {
        src[i] = wide<T>(me, i);
        loc[i] = wide<T>(me, n + i);
    }
    shmem_barrier_all();
    shmem_put(dst, loc, 2, right);                  /* dst[0..1] */
    shmem_put(ctx, dst + 2, loc + 2, 2, right);     /* dst[2..3] */
    shmem_put_nbi(dst + 4, loc + 4, 1, right);      /* dst[4] */
    shmem_put_nbi(ctx, dst + 5, loc + 5, 1, right); /* dst[5] */
    /* Strides differ (dst 2, sst 1), so swapped strides would show. */
    shmem_iput(dst + 6, loc + 6, 2, 1, 2, right);      /* dst[6], dst[8] = loc[6], loc[7] */
    shmem_iput(ctx, dst + 7, loc + 8, 2, 1, 2, right); /* dst[7], dst[9] = loc[8], loc[9] */
    shmem_p(one, wide<T>(me, 2 * n), right);
    shmem_p(ctx, one + 1, wide<T>(me, 2 * n + 1), right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < n; i++)
        EXPECT(dst[i], wide<T>(left, n + strided_from[i]), "put / put_nbi / iput (plain and ctx)");
    EXPECT(one[0], wide<T>(left, 2 * n), "shmem_p");
    EXPECT(one[1], wide<T>(left, 2 * n + 1), "shmem_p with ctx");

    for (int i = 0; i < n; i++)
        loc[i] = T();
    shmem_get(loc, src, 2, right);
    shmem_get(ctx, loc + 2, src + 2, 2, right);
    shmem_get_nbi(loc + 4, src + 4, 1, right);
    shmem_get_nbi(ctx, loc + 5, src + 5, 1, right);
    shmem_iget(loc + 6, src + 6, 2, 1, 2, right);
    shmem_iget(ctx, loc + 7, src + 8, 2, 1, 2, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    for (int i = 0; i < n; i++)
        EXPECT(loc[i], wide<T>(right, strided_from[i]), "get / get_nbi / iget (plain and ctx)");
    const T *csrc = src; /* shmem_g takes a const source */
    EXPECT(shmem_g(src + 3, right), wide<T>(right, 3), "shmem_g");
    EXPECT(shmem_g(ctx, csrc + 4, right), wide<T>(right, 4), "shmem_g with ctx");
    shmem_barrier_all();
    shmem_free(one);
    shmem_free(src);
    shmem_free(dst);
}

template <typename T> void team_data(const char *type)
{
    WT_PHASE("team data-movement generics on %s", type);
    const int per = 3; /* elements per PE */
    const size_t len = static_cast<size_t>(npes * per * 2);
    T *src = sym<T>(len), *dst = sym<T>(len);
    shmem_team_t world = SHMEM_TEAM_WORLD;

    const int root = npes - 1;
    for (int i = 0; i < per; i++)
        src[i] = wide<T>(me, i);
    shmem_barrier_all();
    EXPECT(shmem_broadcast(world, dst, src, per, root), 0, "broadcast return value");
    for (int i = 0; i < per; i++)
        EXPECT(dst[i], wide<T>(root, i), "broadcast");
    shmem_barrier_all();

    EXPECT(shmem_fcollect(world, dst, src, 2), 0, "fcollect return value");
    for (int p = 0; p < npes; p++)
        for (int j = 0; j < 2; j++)
            EXPECT(dst[p * 2 + j], wide<T>(p, j), "fcollect");
    shmem_barrier_all();

    /* collect: PE p contributes p % 3 + 1 elements. */
    EXPECT(shmem_collect(world, dst, src, static_cast<size_t>(me % 3 + 1)), 0,
           "collect return value");
    for (int p = 0, at = 0; p < npes; p++)
        for (int j = 0; j <= p % 3; j++)
            EXPECT(dst[at++], wide<T>(p, j), "collect");
    shmem_barrier_all();

    /* alltoall: block p of src (2 elements) goes to PE p. */
    for (int i = 0; i < 2 * npes; i++)
        src[i] = wide<T>(me, i);
    shmem_barrier_all();
    EXPECT(shmem_alltoall(world, dst, src, 2), 0, "alltoall return value");
    for (int p = 0; p < npes; p++)
        for (int j = 0; j < 2; j++)
            EXPECT(dst[p * 2 + j], wide<T>(p, me * 2 + j), "alltoall");
    shmem_barrier_all();

    /* alltoalls with dst 1, sst 2, one element: PE p gets src[2p]. */
    EXPECT(shmem_alltoalls(world, dst, src, 1, 2, 1), 0, "alltoalls return value");
    for (int p = 0; p < npes; p++)
        EXPECT(dst[p], wide<T>(p, me * 2), "alltoalls");
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
}

/* ---- signals and block transfers (WEFT_RMA_TYPES) ---------------------------- */

/* Put-with-signal: each of the 8 steps (put_signal and put_signal_nbi, plain
 * and with ctx, each with SHMEM_SIGNAL_SET and SHMEM_SIGNAL_ADD) puts its own
 * block of NSIG_ELEMS elements to the right neighbour and updates its own
 * signal there, which starts at SIG_START: SET leaves the step's value, ADD
 * SIG_START plus it. The receiver waits for the signal to leave SIG_START
 * and checks the value it returns, which tells the two operators apart (a
 * wrong one fails rather than hangs), then the block. Separate signals keep
 * the steps unordered, as they are without a fence. */
const int NSIG_STEPS = 8, NSIG_ELEMS = 3;
const uint64_t SIG_START = 1000;
inline uint64_t signal_value(int pe, int step) { return static_cast<uint64_t>(pe * 16 + step + 1); }
inline bool signal_adds(int step) { return step % 2 == 1; }
inline uint64_t signal_after(int pe, int step)
{
    return signal_adds(step) ? SIG_START + signal_value(pe, step) : signal_value(pe, step);
}

template <typename T> void rma_signal(const char *type)
{
    WT_PHASE("put-with-signal generics on %s", type);
    const int n = NSIG_STEPS * NSIG_ELEMS;
    T *dst = sym<T>(n);
    uint64_t *sig = sym<uint64_t>(NSIG_STEPS);
    T loc[n];
    for (int i = 0; i < n; i++)
        loc[i] = wide<T>(me, i);
    for (int k = 0; k < NSIG_STEPS; k++)
        sig[k] = SIG_START;
    shmem_barrier_all();
    for (int k = 0; k < NSIG_STEPS; k++) {
        T *d = dst + k * NSIG_ELEMS;
        const T *s = loc + k * NSIG_ELEMS;
        const uint64_t v = signal_value(me, k);
        const int op = signal_adds(k) ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
        switch (k / 2) {
        case 0: shmem_put_signal(d, s, NSIG_ELEMS, sig + k, v, op, right); break;
        case 1: shmem_put_signal(ctx, d, s, NSIG_ELEMS, sig + k, v, op, right); break;
        case 2: shmem_put_signal_nbi(d, s, NSIG_ELEMS, sig + k, v, op, right); break;
        case 3: shmem_put_signal_nbi(ctx, d, s, NSIG_ELEMS, sig + k, v, op, right); break;
        }
    }
    /* The non-blocking ones complete at the quiet on their context. */
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    static const char *const what[4] = {"put_signal", "put_signal with ctx", "put_signal_nbi",
                                        "put_signal_nbi with ctx"};
    for (int k = 0; k < NSIG_STEPS; k++) {
        const uint64_t want = signal_after(left, k);
        EXPECT(shmem_signal_wait_until(sig + k, SHMEM_CMP_NE, SIG_START), want,
               signal_adds(k) ? "signal after SHMEM_SIGNAL_ADD" : "signal after SHMEM_SIGNAL_SET");
        for (int i = 0; i < NSIG_ELEMS; i++)
            EXPECT(dst[k * NSIG_ELEMS + i], wide<T>(left, k * NSIG_ELEMS + i), what[k / 2]);
    }
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(dst);
}

/* Interleaved block transfers: two calls of 2 blocks of 2 elements each,
 * strides dst 4 and sst 3 (different, so swapped strides would show), the
 * ctx call filling the gaps the plain call leaves: element i of the
 * destination comes from element block_from[i] of the source, and elements
 * from NBLOCK_DST on stay untouched. */
const int NBLOCK_DST = 8, NBLOCK_SRC = 12;
const int block_from[NBLOCK_DST] = {0, 1, 6, 7, 3, 4, 9, 10};

template <typename T> void rma_blocks(const char *type)
{
    WT_PHASE("ibput / ibget generics on %s", type);
    T *dst = sym<T>(NBLOCK_SRC), *src = sym<T>(NBLOCK_SRC);
    T loc[NBLOCK_SRC];
    for (int i = 0; i < NBLOCK_SRC; i++) {
        src[i] = wide<T>(me, i);
        loc[i] = wide<T>(me, NBLOCK_SRC + i);
    }
    shmem_barrier_all();
    shmem_ibput(dst, loc, 4, 3, 2, 2, right);
    shmem_ibput(ctx, dst + 2, loc + 6, 4, 3, 2, 2, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < NBLOCK_SRC; i++)
        EXPECT(dst[i], i < NBLOCK_DST ? wide<T>(left, NBLOCK_SRC + block_from[i]) : T(),
               "ibput (plain and ctx)");

    for (int i = 0; i < NBLOCK_SRC; i++)
        loc[i] = T();
    shmem_ibget(loc, src, 4, 3, 2, 2, right);
    shmem_ibget(ctx, loc + 2, src + 6, 4, 3, 2, 2, right);
    for (int i = 0; i < NBLOCK_SRC; i++)
        EXPECT(loc[i], i < NBLOCK_DST ? wide<T>(right, block_from[i]) : T(),
               "ibget (plain and ctx)");
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
}

/* shmem_signal_set / shmem_signal_add, untyped: the C routines and their
 * context overloads (a created context and SHMEM_CTX_DEFAULT), each on a
 * signal of its own on the right neighbour. */
void signal_updates()
{
    WT_PHASE("shmem_signal_set / shmem_signal_add, plain and with ctx");
    const char *type = "uint64_t signal";
    const int nsig = 6;
    uint64_t *sig = sym<uint64_t>(nsig);
    for (int k = 0; k < nsig; k++)
        sig[k] = SIG_START;
    shmem_barrier_all();
    shmem_signal_set(sig + 0, signal_value(me, 0), right);
    shmem_signal_add(sig + 1, signal_value(me, 1), right);
    shmem_signal_set(ctx, sig + 2, signal_value(me, 2), right);
    shmem_signal_add(ctx, sig + 3, signal_value(me, 3), right);
    shmem_signal_set(SHMEM_CTX_DEFAULT, sig + 4, signal_value(me, 4), right);
    shmem_signal_add(SHMEM_CTX_DEFAULT, sig + 5, signal_value(me, 5), right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    static const char *const what[nsig] = {"shmem_signal_set",
                                           "shmem_signal_add",
                                           "shmem_signal_set with ctx",
                                           "shmem_signal_add with ctx",
                                           "shmem_signal_set with SHMEM_CTX_DEFAULT",
                                           "shmem_signal_add with SHMEM_CTX_DEFAULT"};
    for (int k = 0; k < nsig; k++) {
        const uint64_t want = signal_after(left, k); /* odd k add, as in put_signal */
        EXPECT(shmem_signal_wait_until(sig + k, SHMEM_CMP_NE, SIG_START), want, what[k]);
        EXPECT(shmem_signal_fetch(sig + k), want, what[k]);
    }
    shmem_barrier_all();
    shmem_free(sig);
}

/* ---- AMOs -------------------------------------------------------------------- */
/* Each PE works on its right neighbour's x, which nobody else touches, and
 * checks the final value of its own x (left neighbour's work) at the end.
 * Non-fetching operations are completed (quiet on their context) before the
 * next operation on the other context. */

/* Extended AMOs (WEFT_AMO_EXT_TYPES), then the deprecated swap/fetch/set. */
template <typename T> void amo_ext(const char *type)
{
    WT_PHASE("extended AMO generics on %s", type);
    T *x = sym<T>(1), f = T();
    const int b = me * 100;
    shmem_barrier_all();
    shmem_atomic_set(x, small<T>(b + 1), right);
    shmem_quiet();
    EXPECT(shmem_atomic_fetch(x, right), small<T>(b + 1), "atomic_set + atomic_fetch");
    shmem_atomic_set(ctx, x, small<T>(b + 2), right);
    shmem_ctx_quiet(ctx);
    const T *cx = x;
    EXPECT(shmem_atomic_fetch(ctx, cx, right), small<T>(b + 2), "ctx atomic_set + atomic_fetch");
    EXPECT(shmem_atomic_swap(x, small<T>(b + 3), right), small<T>(b + 2), "atomic_swap");
    EXPECT(shmem_atomic_swap(ctx, x, small<T>(b + 4), right), small<T>(b + 3), "ctx atomic_swap");
    shmem_atomic_fetch_nbi(&f, x, right);
    shmem_quiet();
    EXPECT(f, small<T>(b + 4), "atomic_fetch_nbi");
    f = T();
    shmem_atomic_fetch_nbi(ctx, &f, cx, right);
    shmem_ctx_quiet(ctx);
    EXPECT(f, small<T>(b + 4), "ctx atomic_fetch_nbi");
    shmem_atomic_swap_nbi(&f, x, small<T>(b + 5), right);
    shmem_quiet();
    EXPECT(f, small<T>(b + 4), "atomic_swap_nbi");
    shmem_atomic_swap_nbi(ctx, &f, x, small<T>(b + 6), right);
    shmem_ctx_quiet(ctx);
    EXPECT(f, small<T>(b + 5), "ctx atomic_swap_nbi");
    /* Deprecated generic names; for long, shmem_swap is what the untyped
     * 1.0 routine was. */
    EXPECT(shmem_swap(x, small<T>(b + 7), right), small<T>(b + 6), "deprecated shmem_swap");
    EXPECT(shmem_fetch(cx, right), small<T>(b + 7), "deprecated shmem_fetch");
    shmem_set(x, small<T>(b + 8), right);
    shmem_quiet();
    shmem_barrier_all();
    EXPECT(*x, small<T>(left * 100 + 8), "final value left by the left neighbour");
    shmem_barrier_all();
    shmem_free(x);
}

/* Standard AMOs (WEFT_AMO_STD_TYPES), then the deprecated cswap/finc/inc/fadd/add. */
template <typename T> void amo_std(const char *type)
{
    WT_PHASE("standard AMO generics on %s", type);
    T *x = sym<T>(1), f = T();
    /* A start that differs per PE; negative for signed types. */
    const T b = static_cast<T>(std::numeric_limits<T>::is_signed ? -1000 * (me + 1)
                                                                  : 1000 * (me + 1));
    const T bl = static_cast<T>(std::numeric_limits<T>::is_signed ? -1000 * (left + 1)
                                                                   : 1000 * (left + 1));
    auto at = [b](int k) { return static_cast<T>(b + static_cast<T>(k)); };
    shmem_barrier_all();
    shmem_atomic_set(x, b, right);
    shmem_quiet();
    EXPECT(shmem_atomic_fetch_inc(x, right), at(0), "atomic_fetch_inc");
    EXPECT(shmem_atomic_fetch_inc(ctx, x, right), at(1), "ctx atomic_fetch_inc");
    shmem_atomic_inc(x, right);
    shmem_quiet();
    shmem_atomic_inc(ctx, x, right);
    shmem_ctx_quiet(ctx);
    EXPECT(shmem_atomic_fetch_add(x, static_cast<T>(10), right), at(4), "atomic_inc + fetch_add");
    EXPECT(shmem_atomic_fetch_add(ctx, x, static_cast<T>(10), right), at(14),
           "ctx atomic_fetch_add");
    shmem_atomic_add(x, static_cast<T>(1), right);
    shmem_quiet();
    shmem_atomic_add(ctx, x, static_cast<T>(1), right);
    shmem_ctx_quiet(ctx);
    EXPECT(shmem_atomic_compare_swap(x, at(26), at(30), right), at(26),
           "atomic_add + compare_swap");
    EXPECT(shmem_atomic_compare_swap(ctx, x, at(29), at(99), right), at(30),
           "ctx compare_swap that must not swap");
    EXPECT(shmem_atomic_compare_swap(ctx, x, at(30), at(31), right), at(30), "ctx compare_swap");
    shmem_atomic_fetch_inc_nbi(&f, x, right);
    shmem_quiet();
    EXPECT(f, at(31), "atomic_fetch_inc_nbi");
    shmem_atomic_fetch_inc_nbi(ctx, &f, x, right);
    shmem_ctx_quiet(ctx);
    EXPECT(f, at(32), "ctx atomic_fetch_inc_nbi");
    shmem_atomic_fetch_add_nbi(&f, x, static_cast<T>(5), right);
    shmem_quiet();
    EXPECT(f, at(33), "atomic_fetch_add_nbi");
    shmem_atomic_fetch_add_nbi(ctx, &f, x, static_cast<T>(2), right);
    shmem_ctx_quiet(ctx);
    EXPECT(f, at(38), "ctx atomic_fetch_add_nbi");
    shmem_atomic_compare_swap_nbi(&f, x, at(40), at(50), right);
    shmem_quiet();
    EXPECT(f, at(40), "atomic_compare_swap_nbi");
    shmem_atomic_compare_swap_nbi(ctx, &f, x, at(50), at(51), right);
    shmem_ctx_quiet(ctx);
    EXPECT(f, at(50), "ctx atomic_compare_swap_nbi");
    EXPECT(shmem_cswap(x, at(51), at(52), right), at(51), "deprecated shmem_cswap");
    EXPECT(shmem_finc(x, right), at(52), "deprecated shmem_finc");
    shmem_inc(x, right);
    shmem_quiet();
    EXPECT(shmem_fadd(x, static_cast<T>(6), right), at(54), "deprecated shmem_inc + shmem_fadd");
    shmem_add(x, static_cast<T>(1), right);
    shmem_quiet();
    shmem_barrier_all();
    EXPECT(*x, static_cast<T>(bl + static_cast<T>(61)), "final value left by the left neighbour");
    shmem_barrier_all();
    shmem_free(x);
}

/* Bitwise AMOs (WEFT_AMO_BIT_TYPES): 18 steps, each of the 9 routines plain
 * and with ctx, checked against a local model of the remote value. */
enum { FETCH_AND, AND, FETCH_AND_NBI, FETCH_OR, OR, FETCH_OR_NBI, FETCH_XOR, XOR, FETCH_XOR_NBI };
template <typename T> T bit_operand(int pe, int step)
{
    return static_cast<T>((0x5A5Au >> (step % 5)) ^ (static_cast<unsigned>(pe + 1) << 9) ^
                          (static_cast<unsigned>(step) * 0x11u));
}
template <typename T> T bit_apply(int op, T a, T v)
{
    return op <= FETCH_AND_NBI ? static_cast<T>(a & v)
                               : op <= FETCH_OR_NBI ? static_cast<T>(a | v) : static_cast<T>(a ^ v);
}
template <typename T> T bit_start(int pe)
{
    return static_cast<T>(0xF0F0u + static_cast<unsigned>(pe));
}

template <typename T> void amo_bit(const char *type)
{
    WT_PHASE("bitwise AMO generics on %s", type);
    T *x = sym<T>(1);
    *x = bit_start<T>(me);
    shmem_barrier_all();
    T model = bit_start<T>(right), f = T();
    for (int step = 0; step < 18; step++) {
        const int op = step / 2;
        const bool with_ctx = step % 2;
        const T v = bit_operand<T>(me, step);
        T got = T();
        if (with_ctx) {
            switch (op) {
            case FETCH_AND: got = shmem_atomic_fetch_and(ctx, x, v, right); break;
            case AND: shmem_atomic_and(ctx, x, v, right); break;
            case FETCH_AND_NBI: shmem_atomic_fetch_and_nbi(ctx, &f, x, v, right); break;
            case FETCH_OR: got = shmem_atomic_fetch_or(ctx, x, v, right); break;
            case OR: shmem_atomic_or(ctx, x, v, right); break;
            case FETCH_OR_NBI: shmem_atomic_fetch_or_nbi(ctx, &f, x, v, right); break;
            case FETCH_XOR: got = shmem_atomic_fetch_xor(ctx, x, v, right); break;
            case XOR: shmem_atomic_xor(ctx, x, v, right); break;
            case FETCH_XOR_NBI: shmem_atomic_fetch_xor_nbi(ctx, &f, x, v, right); break;
            }
        } else {
            switch (op) {
            case FETCH_AND: got = shmem_atomic_fetch_and(x, v, right); break;
            case AND: shmem_atomic_and(x, v, right); break;
            case FETCH_AND_NBI: shmem_atomic_fetch_and_nbi(&f, x, v, right); break;
            case FETCH_OR: got = shmem_atomic_fetch_or(x, v, right); break;
            case OR: shmem_atomic_or(x, v, right); break;
            case FETCH_OR_NBI: shmem_atomic_fetch_or_nbi(&f, x, v, right); break;
            case FETCH_XOR: got = shmem_atomic_fetch_xor(x, v, right); break;
            case XOR: shmem_atomic_xor(x, v, right); break;
            case FETCH_XOR_NBI: shmem_atomic_fetch_xor_nbi(&f, x, v, right); break;
            }
        }
        shmem_quiet();
        shmem_ctx_quiet(ctx);
        if (op == FETCH_AND || op == FETCH_OR || op == FETCH_XOR)
            EXPECT(got, model, "fetched value of a bitwise AMO");
        if (op == FETCH_AND_NBI || op == FETCH_OR_NBI || op == FETCH_XOR_NBI)
            EXPECT(f, model, "fetched value of a non-blocking bitwise AMO");
        model = bit_apply(op, model, v);
        EXPECT(shmem_atomic_fetch(x, right), model, "value after a bitwise AMO");
    }
    shmem_barrier_all();
    T mine = bit_start<T>(me);
    for (int step = 0; step < 18; step++)
        mine = bit_apply(step / 2, mine, bit_operand<T>(left, step));
    EXPECT(*x, mine, "final value left by the left neighbour's bitwise AMOs");
    shmem_barrier_all();
    shmem_free(x);
}

/* ---- point-to-point synchronization (WEFT_P2P_TYPES) -------------------------- */

template <typename T> void p2p(const char *type)
{
    WT_PHASE("point-to-point generics on %s", type);
    T *iv = sym<T>(4), *one = sym<T>(1);
    const int status[4] = {0, 0, 1, 0}; /* element 2 is excluded */
    size_t idx[4];
    T cmpv[4] = {T(1), T(2), T(100), T(4)};
    EXPECT(shmem_test(one, SHMEM_CMP_NE, T(0)), 0, "test before the update");
    EXPECT(shmem_test_all(iv, 4, status, SHMEM_CMP_GT, T(0)), 0, "test_all before");
    EXPECT(shmem_test_any(iv, 4, status, SHMEM_CMP_GT, T(0)), SIZE_MAX, "test_any before");
    EXPECT(shmem_test_some(iv, 4, idx, status, SHMEM_CMP_GT, T(0)), 0, "test_some before");
    EXPECT(shmem_test_all_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv), 0, "test_all_vector before");
    EXPECT(shmem_test_any_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv), SIZE_MAX,
           "test_any_vector before");
    EXPECT(shmem_test_some_vector(iv, 4, idx, status, SHMEM_CMP_EQ, cmpv), 0,
           "test_some_vector before");
    shmem_barrier_all();
    const T vals[4] = {T(1), T(2), T(0), T(4)};
    shmem_put(iv, vals, 4, right);
    shmem_fence();
    shmem_p(one, static_cast<T>(me + 1), right);
    shmem_wait_until(one, SHMEM_CMP_EQ, static_cast<T>(left + 1));
    shmem_wait_until_all(iv, 4, status, SHMEM_CMP_GT, T(0));
    size_t a = shmem_wait_until_any(iv, 4, status, SHMEM_CMP_GE, T(2));
    WT_CHECK(a == 1 || a == 3, "%s: wait_until_any returned %zu", type, a);
    EXPECT(shmem_wait_until_some(iv, 4, idx, status, SHMEM_CMP_NE, T(0)), 3, "wait_until_some");
    shmem_wait_until_all_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv);
    a = shmem_wait_until_any_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv);
    WT_CHECK(a == 0 || a == 1 || a == 3, "%s: wait_until_any_vector returned %zu", type, a);
    EXPECT(shmem_wait_until_some_vector(iv, 4, idx, status, SHMEM_CMP_EQ, cmpv), 3,
           "wait_until_some_vector");
    EXPECT(shmem_test(one, SHMEM_CMP_EQ, static_cast<T>(left + 1)), 1, "test after the update");
    EXPECT(shmem_test_all(iv, 4, status, SHMEM_CMP_GT, T(0)), 1, "test_all after");
    EXPECT(shmem_test_any(iv, 4, status, SHMEM_CMP_EQ, T(4)), 3, "test_any after");
    EXPECT(shmem_test_some(iv, 4, idx, status, SHMEM_CMP_LT, T(3)), 2, "test_some after");
    EXPECT(shmem_test_all_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv), 1, "test_all_vector after");
    a = shmem_test_any_vector(iv, 4, status, SHMEM_CMP_EQ, cmpv);
    WT_CHECK(a == 0 || a == 1 || a == 3, "%s: test_any_vector returned %zu", type, a);
    EXPECT(shmem_test_some_vector(iv, 4, idx, status, SHMEM_CMP_EQ, cmpv), 3,
           "test_some_vector after");
    shmem_barrier_all();
    shmem_free(one);
    shmem_free(iv);
}

/* Deprecated shmem_wait(ivar, value): waits while *ivar == value. For long
 * it is the untyped 1.0 routine. */
template <typename T> void wait_deprecated(const char *type)
{
    WT_PHASE("deprecated shmem_wait on %s", type);
    T *w = sym<T>(1);
    shmem_barrier_all();
    shmem_p(w, static_cast<T>(me + 1), right);
    shmem_wait(w, T(0));
    EXPECT(*w, static_cast<T>(left + 1), "shmem_wait");
    shmem_barrier_all();
    shmem_free(w);
}

/* ---- reductions and scans ------------------------------------------------------ */

const int NRED = 5;

/* Element i contributed by PE p to each kind of reduction. */
template <typename T> T bitwise_value(int p, int i)
{
    return static_cast<T>((0x5B * (p + 1) + 7 * i) & 0x7F);
}
template <typename T> T minmax_value(int p, int i)
{
    return static_cast<T>(static_cast<T>((p * 7 + i * 3) % 11) -
                          static_cast<T>(std::numeric_limits<T>::is_signed ? 5 : 0));
}
template <typename T> T sum_value(int p, int i) { return make<T>((p + i) % 5, (p + 2 * i) % 3); }
template <typename T> T prod_value(int p, int i)
{
    return make<T>(1 + ((p + i) % 3 == 0), (p + i) % 4 == 0);
}
/* sum_value<T>(p, i) summed over PEs 0 .. upto-1. */
template <typename T> T sum_below(int upto, int i)
{
    T acc = T();
    for (int p = 0; p < upto; p++)
        acc = static_cast<T>(acc + sum_value<T>(p, i));
    return acc;
}

/* Run shmem_OP_reduce and check it against the fold of every PE's values. */
#define CHECK_REDUCE(OP, VALUE, FOLD)                                                      \
    do {                                                                                   \
        for (int i = 0; i < NRED; i++) {                                                   \
            src[i] = VALUE<T>(me, i);                                                      \
            dst[i] = T();                                                                  \
        }                                                                                  \
        shmem_barrier_all();                                                               \
        EXPECT(shmem_##OP##_reduce(SHMEM_TEAM_WORLD, dst, src, NRED), 0,                   \
               #OP "_reduce return value");                                                \
        for (int i = 0; i < NRED; i++) {                                                   \
            T acc = VALUE<T>(0, i);                                                        \
            for (int p = 1; p < npes; p++) {                                               \
                T v = VALUE<T>(p, i);                                                      \
                acc = static_cast<T>(FOLD);                                                \
            }                                                                              \
            EXPECT(dst[i], acc, "shmem_" #OP "_reduce");                                   \
        }                                                                                  \
        shmem_barrier_all();                                                               \
    } while (0)

template <typename T> void reduce_bitwise(const char *type)
{
    WT_PHASE("bitwise reduction generics on %s", type);
    T *src = sym<T>(NRED), *dst = sym<T>(NRED);
    CHECK_REDUCE(and, bitwise_value, acc & v);
    CHECK_REDUCE(or, bitwise_value, acc | v);
    CHECK_REDUCE(xor, bitwise_value, acc ^ v);
    shmem_free(dst);
    shmem_free(src);
}

template <typename T> void reduce_minmax(const char *type)
{
    WT_PHASE("max/min reduction generics on %s", type);
    T *src = sym<T>(NRED), *dst = sym<T>(NRED);
    CHECK_REDUCE(max, minmax_value, v > acc ? v : acc);
    CHECK_REDUCE(min, minmax_value, v < acc ? v : acc);
    shmem_free(dst);
    shmem_free(src);
}

template <typename T> void reduce_arith(const char *type)
{
    WT_PHASE("sum/prod reduction generics on %s", type);
    T *src = sym<T>(NRED), *dst = sym<T>(NRED);
    CHECK_REDUCE(sum, sum_value, acc + v);
    CHECK_REDUCE(prod, prod_value, acc * v);
    shmem_free(dst);
    shmem_free(src);
}
#undef CHECK_REDUCE

template <typename T> void scan(const char *type)
{
    WT_PHASE("scan generics on %s", type);
    T *src = sym<T>(NRED), *dst = sym<T>(NRED);
    for (int i = 0; i < NRED; i++)
        src[i] = sum_value<T>(me, i);
    for (int ex = 0; ex < 2; ex++) {
        shmem_barrier_all();
        int rc = ex ? shmem_sum_exscan(SHMEM_TEAM_WORLD, dst, src, NRED)
                    : shmem_sum_inscan(SHMEM_TEAM_WORLD, dst, src, NRED);
        EXPECT(rc, 0, "scan return value");
        for (int i = 0; i < NRED; i++)
            EXPECT(dst[i], sum_below<T>(ex ? me : me + 1, i),
                   ex ? "shmem_sum_exscan" : "shmem_sum_inscan");
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
}

/* The typed complex routines take std::complex too (C++ overloads of the C
 * names): shmem_complexd_sum_reduce and the others, on each complex row. */
#define TYPED_STD_COMPLEX(N, T, D, G)                                                      \
    void typed_std_complex_##N()                                                           \
    {                                                                                      \
        typedef WEFT_CXX_STD_##N S;                                                        \
        const char *type = #N " as std::complex, typed names";                             \
        WT_PHASE("%s", type);                                                              \
        S *src = sym<S>(NRED), *dst = sym<S>(NRED);                                        \
        for (int i = 0; i < NRED; i++)                                                     \
            src[i] = prod_value<S>(me, i);                                                 \
        shmem_barrier_all();                                                               \
        EXPECT(shmem_##N##_prod_reduce(SHMEM_TEAM_WORLD, dst, src, NRED), 0, "prod_reduce rc"); \
        for (int i = 0; i < NRED; i++) {                                                   \
            S want = prod_value<S>(0, i);                                                  \
            for (int p = 1; p < npes; p++)                                                 \
                want *= prod_value<S>(p, i);                                               \
            EXPECT(dst[i], want, "shmem_" #N "_prod_reduce");                              \
        }                                                                                  \
        for (int i = 0; i < NRED; i++)                                                     \
            src[i] = sum_value<S>(me, i);                                                  \
        shmem_barrier_all();                                                               \
        EXPECT(shmem_##N##_sum_reduce(SHMEM_TEAM_WORLD, dst, src, NRED), 0, "sum_reduce rc"); \
        for (int i = 0; i < NRED; i++)                                                     \
            EXPECT(dst[i], sum_below<S>(npes, i), "shmem_" #N "_sum_reduce");              \
        shmem_barrier_all();                                                               \
        EXPECT(shmem_##N##_sum_inscan(SHMEM_TEAM_WORLD, dst, src, NRED), 0, "inscan rc");  \
        for (int i = 0; i < NRED; i++)                                                     \
            EXPECT(dst[i], sum_below<S>(me + 1, i), "shmem_" #N "_sum_inscan");            \
        shmem_barrier_all();                                                               \
        EXPECT(shmem_##N##_sum_exscan(SHMEM_TEAM_WORLD, dst, src, NRED), 0, "exscan rc");  \
        for (int i = 0; i < NRED; i++)                                                     \
            EXPECT(dst[i], sum_below<S>(me, i), "shmem_" #N "_sum_exscan");                \
        shmem_barrier_all();                                                               \
        shmem_free(dst);                                                                   \
        shmem_free(src);                                                                   \
    }
WEFT_REDUCE_COMPLEX_TYPES(TYPED_STD_COMPLEX)
#undef TYPED_STD_COMPLEX

void sync_both_forms()
{
    WT_PHASE("shmem_sync(team) and the active-set shmem_sync");
    const char *type = "team";
    EXPECT(shmem_sync(SHMEM_TEAM_WORLD), 0, "shmem_sync(SHMEM_TEAM_WORLD)");
    EXPECT(shmem_sync(SHMEM_TEAM_INVALID), -1, "shmem_sync(SHMEM_TEAM_INVALID)");
    long *psync = sym<long>(SHMEM_SYNC_SIZE);
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    shmem_sync(0, 0, npes, psync); /* the deprecated C routine, not an overload */
    shmem_barrier_all();
    shmem_free(psync);
}

/* ---- the shape of the overload set, checked at compile time ------------------- */

/* has_X<T>: whether shmem_X accepts T (expression SFINAE; C++11 has no
 * void_t, hence sfinae_void). */
template <typename...> struct sfinae_void { typedef void type; };
#define WEFT_DETECT(NAME, EXPR)                                                            \
    template <typename T, typename = void> struct NAME : std::false_type {};               \
    template <typename T>                                                                  \
    struct NAME<T, typename sfinae_void<decltype(EXPR)>::type> : std::true_type {};
WEFT_DETECT(has_put, shmem_put(std::declval<T *>(), std::declval<const T *>(), size_t(), 0))
WEFT_DETECT(has_put_from_long,
            shmem_put(std::declval<T *>(), std::declval<const long *>(), size_t(), 0))
WEFT_DETECT(has_atomic_add, shmem_atomic_add(std::declval<T *>(), std::declval<T>(), 0))
WEFT_DETECT(has_atomic_swap, shmem_atomic_swap(std::declval<T *>(), std::declval<T>(), 0))
WEFT_DETECT(has_atomic_xor, shmem_atomic_xor(std::declval<T *>(), std::declval<T>(), 0))
WEFT_DETECT(has_wait_until, shmem_wait_until(std::declval<T *>(), 0, std::declval<T>()))
WEFT_DETECT(has_max_reduce, shmem_max_reduce(shmem_team_t(), std::declval<T *>(),
                                             std::declval<const T *>(), size_t()))
WEFT_DETECT(has_sum_reduce, shmem_sum_reduce(shmem_team_t(), std::declval<T *>(),
                                             std::declval<const T *>(), size_t()))
WEFT_DETECT(has_put_signal_nbi,
            shmem_put_signal_nbi(std::declval<T *>(), std::declval<const T *>(), size_t(),
                                 std::declval<uint64_t *>(), uint64_t(), 0, 0))
WEFT_DETECT(has_ibget, shmem_ibget(std::declval<T *>(), std::declval<const T *>(), ptrdiff_t(),
                                   ptrdiff_t(), size_t(), size_t(), 0))
/* T is the type of the first of four arguments. */
WEFT_DETECT(has_signal_add_led_by,
            shmem_signal_add(std::declval<T>(), std::declval<uint64_t *>(), uint64_t(), 0))
#undef WEFT_DETECT

/* Only the types of each routine's table, and exactly them. */
static_assert(has_put<long double>::value && has_put<char>::value && has_put<signed char>::value,
              "put takes every RMA type");
static_assert(!has_put<bool>::value && !has_put<wchar_t>::value, "put refuses C++-only types");
static_assert(!has_put_from_long<int>::value && !has_put_from_long<double>::value,
              "put refuses a source of another type");
static_assert(!has_atomic_add<float>::value && has_atomic_swap<float>::value,
              "float has the extended AMOs but not the standard ones");
static_assert(!has_atomic_swap<long double>::value && !has_atomic_swap<short>::value,
              "no AMOs on long double or short");
static_assert(has_atomic_xor<int>::value && has_atomic_xor<long>::value,
              "bitwise AMOs take int32_t and int64_t, that is int and long");
static_assert(!has_atomic_xor<long long>::value && !has_atomic_xor<float>::value,
              "bitwise AMOs refuse long long and float (table 8)");
static_assert(has_wait_until<short>::value && !has_wait_until<char>::value &&
                  !has_wait_until<double>::value,
              "wait_until takes the point-to-point types only");
static_assert(has_sum_reduce<weft_complexd_t>::value && has_sum_reduce<std::complex<float> >::value,
              "sum_reduce takes std::complex");
static_assert(!has_max_reduce<std::complex<double> >::value, "max_reduce refuses complex");
static_assert(has_put_signal_nbi<long double>::value && has_put_signal_nbi<unsigned char>::value &&
                  !has_put_signal_nbi<bool>::value,
              "put_signal takes the RMA types");
static_assert(has_ibget<ptrdiff_t>::value && !has_ibget<wchar_t>::value,
              "ibget takes the RMA types");
static_assert(has_signal_add_led_by<shmem_ctx_t>::value &&
                  !has_signal_add_led_by<shmem_team_t>::value &&
                  !has_signal_add_led_by<uint64_t *>::value,
              "signal_add has a context form and no other four-argument form");

/* Result types follow the element type. */
static_assert(std::is_same<decltype(shmem_g(std::declval<const short *>(), 0)), short>::value,
              "shmem_g returns the element type");
static_assert(std::is_same<decltype(shmem_atomic_fetch(ctx, std::declval<const double *>(), 0)),
                           double>::value,
              "shmem_atomic_fetch with ctx returns the element type");
static_assert(std::is_same<decltype(shmem_test_any(std::declval<unsigned *>(), 0, NULL, 0, 0u)),
                           size_t>::value,
              "shmem_test_any returns size_t");
static_assert(std::is_same<decltype(shmem_finc(std::declval<long long *>(), 0)), long long>::value,
              "deprecated shmem_finc returns the element type");

} // namespace

int main()
{
    wt_init("cxx_generic");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    WT_CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");

    /* Every row of every table, typedef rows included. */
#define RUN_RMA(N, T, D, G)                                                                \
    rma<T>(#N);                                                                            \
    team_data<T>(#N);                                                                      \
    rma_signal<T>(#N);                                                                     \
    rma_blocks<T>(#N);
    WEFT_RMA_TYPES(RUN_RMA)
#define RUN_AMO_EXT(N, T, D, G) amo_ext<T>(#N);
    WEFT_AMO_EXT_TYPES(RUN_AMO_EXT)
#define RUN_AMO_STD(N, T, D, G) amo_std<T>(#N);
    WEFT_AMO_STD_TYPES(RUN_AMO_STD)
#define RUN_AMO_BIT(N, T, D, G) amo_bit<T>(#N);
    WEFT_AMO_BIT_TYPES(RUN_AMO_BIT)
#define RUN_P2P(N, T, D, G) p2p<T>(#N);
    WEFT_P2P_TYPES(RUN_P2P)
#define RUN_WAIT(N, T, D, G) wait_deprecated<T>(#N);
    WEFT_WAIT_DEPRECATED_TYPES(RUN_WAIT)
#define RUN_BITWISE(N, T, D, G) reduce_bitwise<T>(#N);
    WEFT_REDUCE_BITWISE_TYPES(RUN_BITWISE)
#define RUN_MINMAX(N, T, D, G) reduce_minmax<T>(#N);
    WEFT_REDUCE_MINMAX_TYPES(RUN_MINMAX)
#define RUN_ARITH(N, T, D, G) reduce_arith<T>(#N);
    WEFT_REDUCE_ARITH_TYPES(RUN_ARITH)
#define RUN_SCAN(N, T, D, G) scan<T>(#N);
    WEFT_SCAN_TYPES(RUN_SCAN)
    /* The complex rows once more as std::complex, generic and typed names. */
#define RUN_STD_COMPLEX(N, T, D, G)                                                        \
    reduce_arith<WEFT_CXX_STD_##N>(#N " as std::complex");                                 \
    scan<WEFT_CXX_STD_##N>(#N " as std::complex");                                         \
    typed_std_complex_##N();
    WEFT_REDUCE_COMPLEX_TYPES(RUN_STD_COMPLEX)
    signal_updates();
    sync_both_forms();

    shmem_ctx_destroy(ctx);
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* signal_typed: every put-with-signal routine - shmem_TYPE_put_signal[_nbi]
 * for each type of WEFT_RMA_TYPES, shmem_putSIZE_signal[_nbi] for each row
 * of WEFT_RMA_SIZES and shmem_putmem_signal[_nbi] - plain and in the
 * shmem_ctx_ form on a created context, each with SHMEM_SIGNAL_SET and
 * SHMEM_SIGNAL_ADD, into the right neighbour.
 *
 * The receiver never uses a barrier to learn that data arrived: it waits on
 * each signal with shmem_signal_wait_until(EQ, expected) and then checks the
 * whole region, so a signal delivered before its data fails here. Signals
 * start from a non-zero base, so ADD must add (base + signal) and SET must
 * replace (signal); values use all 64 bits. A zero-length put-with-signal
 * must still deliver its signal and leave dest untouched. Rows alternate
 * between signals in the symmetric heap and in a .bss array (dest and
 * sig_addr of different kinds, as the spec allows). */
#include "weft_test.h"

#define NEL 24   /* elements per transfer */
#define MAXB 16  /* largest element (long double, 128-bit) */
#define REGB (NEL * MAXB + 16) /* bytes per region: the transfer and a guard */

typedef void (*put_signal_fn)(shmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t,
                              int, int);
struct sigops {
    const char *name; /* routine name without shmem_[ctx_] and _signal[_nbi] */
    size_t esize;
    put_signal_fn put_signal, put_signal_nbi;
};

/* ctx == NULL selects the plain routine, anything else the shmem_ctx_ form. */
#define DEF_TYPE(N, T, D, G)                                                                \
    static void ps_##N(shmem_ctx_t c, void *d, const void *s, size_t n, uint64_t *sig,      \
                       uint64_t v, int op, int pe)                                          \
    {                                                                                       \
        if (c)                                                                              \
            shmem_ctx_##N##_put_signal(c, d, s, n, sig, v, op, pe);                         \
        else                                                                                \
            shmem_##N##_put_signal(d, s, n, sig, v, op, pe);                                \
    }                                                                                       \
    static void psn_##N(shmem_ctx_t c, void *d, const void *s, size_t n, uint64_t *sig,     \
                        uint64_t v, int op, int pe)                                         \
    {                                                                                       \
        if (c)                                                                              \
            shmem_ctx_##N##_put_signal_nbi(c, d, s, n, sig, v, op, pe);                     \
        else                                                                                \
            shmem_##N##_put_signal_nbi(d, s, n, sig, v, op, pe);                            \
    }
WEFT_RMA_TYPES(DEF_TYPE)

#define DEF_BYTES(B, T)                                                                     \
    static void ps_put##B(shmem_ctx_t c, void *d, const void *s, size_t n, uint64_t *sig,   \
                          uint64_t v, int op, int pe)                                       \
    {                                                                                       \
        if (c)                                                                              \
            shmem_ctx_put##B##_signal(c, d, s, n, sig, v, op, pe);                          \
        else                                                                                \
            shmem_put##B##_signal(d, s, n, sig, v, op, pe);                                 \
    }                                                                                       \
    static void psn_put##B(shmem_ctx_t c, void *d, const void *s, size_t n, uint64_t *sig,  \
                           uint64_t v, int op, int pe)                                      \
    {                                                                                       \
        if (c)                                                                              \
            shmem_ctx_put##B##_signal_nbi(c, d, s, n, sig, v, op, pe);                      \
        else                                                                                \
            shmem_put##B##_signal_nbi(d, s, n, sig, v, op, pe);                             \
    }
WEFT_RMA_SIZES(DEF_BYTES)
DEF_BYTES(mem, unsigned char)

#define ROW(N, T, D, G) {#N "_put", sizeof(T), ps_##N, psn_##N},
#define ROW_BYTES(B, T) {"put" #B, sizeof(T), ps_put##B, psn_put##B},
static const struct sigops rows[] = {
    WEFT_RMA_TYPES(ROW) WEFT_RMA_SIZES(ROW_BYTES) ROW_BYTES(mem, unsigned char)};
#define NROWS (sizeof rows / sizeof rows[0])

/* Regions (and signals): {plain, ctx} x {blocking, nbi} x {SET, ADD}, then
 * one zero-length transfer. */
#define NCASE 8
#define R_ZERO NCASE
#define NSIGNAL (NCASE + 1)
uint64_t sig_bss[NSIGNAL];

static int me, npes, right, left;
static shmem_ctx_t ctx;

static int case_ctx(int r) { return r & 4; }
static int case_nbi(int r) { return r & 2; }
static int case_op(int r) { return (r & 1) ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET; }
static uint64_t base_value(int r) { return 0x100000000ull * (uint64_t)(r + 1) + 7; }
static uint64_t signal_value(size_t row, int r, int from)
{
    return 0xA5A5000000000000ull ^ ((uint64_t)row << 32) ^ ((uint64_t)r << 16) ^ (uint64_t)from;
}
static unsigned tag_of(size_t row, int r) { return (unsigned)(row * 16 + (size_t)r); }

static void run(size_t row, unsigned char *regions, uint64_t *sig, const char *sigwhere)
{
    const struct sigops *s = &rows[row];
    size_t nb = NEL * s->esize;
    static _Alignas(16) unsigned char src[NSIGNAL][REGB];

    WT_PHASE("%s_signal: setup (signals in %s)", s->name, sigwhere);
    memset(regions, 0xEE, NSIGNAL * REGB);
    for (int r = 0; r < NSIGNAL; r++)
        sig[r] = base_value(r);
    shmem_barrier_all();

    for (int r = 0; r < NCASE; r++) {
        shmem_ctx_t c = case_ctx(r) ? ctx : NULL;
        put_signal_fn f = case_nbi(r) ? s->put_signal_nbi : s->put_signal;
        WT_PHASE("shmem_%s%s_signal%s %s into PE %d", c ? "ctx_" : "", s->name,
                 case_nbi(r) ? "_nbi" : "", case_op(r) == SHMEM_SIGNAL_SET ? "SET" : "ADD",
                 right);
        wt_fill_bytes(src[r], nb, me, 0, tag_of(row, r));
        f(c, regions + (size_t)r * REGB, src[r], NEL, &sig[r], signal_value(row, r, me),
          case_op(r), right);
    }
    WT_PHASE("shmem_%s_signal with nelems=0", s->name);
    s->put_signal(NULL, regions + (size_t)R_ZERO * REGB, src[0], 0, &sig[R_ZERO],
                  signal_value(row, R_ZERO, me), SHMEM_SIGNAL_SET, right);

    for (int r = 0; r < NSIGNAL; r++) {
        int op = r == R_ZERO ? SHMEM_SIGNAL_SET : case_op(r);
        uint64_t want = op == SHMEM_SIGNAL_SET ? signal_value(row, r, left)
                                                : base_value(r) + signal_value(row, r, left);
        char what[160];
        snprintf(what, sizeof what, "shmem_%s%s_signal%s %s from PE %d (signal in %s)",
                 r < NCASE && case_ctx(r) ? "ctx_" : "", s->name,
                 r < NCASE && case_nbi(r) ? "_nbi" : "", r == R_ZERO ? "nelems=0 SET"
                 : op == SHMEM_SIGNAL_SET ? "SET" : "ADD", left, sigwhere);
        WT_PHASE("waiting for the signal of %s", what);
        uint64_t got = shmem_signal_wait_until(&sig[r], SHMEM_CMP_EQ, want);
        WT_EQ_NUM(got, want, "value returned by shmem_signal_wait_until for %s", what);
        WT_EQ_NUM(shmem_signal_fetch(&sig[r]), want, "shmem_signal_fetch after %s", what);
        unsigned char *reg = regions + (size_t)r * REGB;
        if (r == R_ZERO) {
            WT_CHECK_FILL(reg, REGB, 0xEE, what);
        } else {
            WT_CHECK_BYTES(reg, nb, left, 0, tag_of(row, r), what);
            WT_CHECK_FILL(reg + nb, REGB - nb, 0xEE, what);
        }
    }
    /* The nbi sources may be reused only after a quiet on their contexts. */
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
}

int main(void)
{
    wt_init("signal_typed");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    WT_CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create(0) failed");

    unsigned char *regions = shmem_malloc(NSIGNAL * REGB);
    uint64_t *sig_heap = shmem_malloc(NSIGNAL * sizeof(uint64_t));
    WT_CHECK(regions && sig_heap, "shmem_malloc");
    for (size_t row = 0; row < NROWS; row++) {
        if (row % 2)
            run(row, regions, sig_bss, ".bss");
        else
            run(row, regions, sig_heap, "the heap");
    }
    shmem_ctx_destroy(ctx);
    shmem_free(sig_heap);
    shmem_free(regions);
    if (me == 0)
        printf("signal_typed: %zu routine families x {plain, ctx} x {blocking, nbi} x "
               "{SET, ADD} checked\n", NROWS);
    wt_finish();
    return 0;
}

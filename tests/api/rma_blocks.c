/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_blocks: the OpenSHMEM 1.6 interleaved block transfers, shmem_TYPE_ibput
 * and shmem_TYPE_ibget for every type of WEFT_RMA_TYPES and shmem_ibputSIZE /
 * ibgetSIZE for every row of WEFT_RMA_SIZES, plain and in the shmem_ctx_
 * form on a created context, over a table of (bsize, nblocks, dst, sst):
 * gaps on both sides, bsize = 1 (the iput case), contiguous blocks, a single
 * block, more blocks than one strided message carries, and bsize = 0 /
 * nblocks = 0 (nothing may change).
 *
 * Every byte of every element carries a pattern depending on the element's
 * source index, so a block placed at the wrong stride, a block of the wrong
 * length or a wrong element width is reported with its offset; elements no
 * block covers must stay untouched. ibput goes into the right neighbour
 * (checked after a barrier), ibget reads from it (checked on return). A last
 * part moves few large blocks (hundreds of KiB each) with shmem_ibput8 and
 * shmem_ibget8. */
#include "weft_test.h"

#define NE 640  /* elements per region */
#define MAXB 16 /* largest element */
#define REGB ((size_t)NE * MAXB)

struct combo {
    size_t bsize, nblocks;
    ptrdiff_t dst, sst;
};
static const struct combo combos[] = {
    {3, 4, 5, 4},    /* gaps in dest and source */
    {1, 6, 3, 2},    /* bsize 1: shmem_iput / shmem_iget */
    {4, 3, 4, 4},    /* blocks back to back: one contiguous run */
    {2, 5, 7, 2},    /* contiguous source, spread dest */
    {5, 1, 1, 1},    /* a single block */
    {2, 200, 3, 2},  /* more blocks than one strided message */
    {0, 3, 2, 2},    /* bsize 0: nothing moves */
    {3, 0, 4, 4},    /* nblocks 0: nothing moves */
};
#define NCOMBO (sizeof combos / sizeof combos[0])

typedef void (*ib_fn)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t,
                      int);
struct ibops {
    const char *name;
    size_t esize;
    ib_fn ibput, ibget;
};

/* ctx == NULL selects the plain routine, anything else the shmem_ctx_ form. */
#define DEF_TYPE(N, T, D, G)                                                                \
    static void ibput_##N(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,\
                          size_t bs, size_t nb, int pe)                                     \
    {                                                                                       \
        if (c)                                                                              \
            shmem_ctx_##N##_ibput(c, d, s, ds, ss, bs, nb, pe);                             \
        else                                                                                \
            shmem_##N##_ibput(d, s, ds, ss, bs, nb, pe);                                    \
    }                                                                                       \
    static void ibget_##N(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,\
                          size_t bs, size_t nb, int pe)                                     \
    {                                                                                       \
        if (c)                                                                              \
            shmem_ctx_##N##_ibget(c, d, s, ds, ss, bs, nb, pe);                             \
        else                                                                                \
            shmem_##N##_ibget(d, s, ds, ss, bs, nb, pe);                                    \
    }
WEFT_RMA_TYPES(DEF_TYPE)
#define DEF_SIZE(B, T)                                                                      \
    static void ibput##B(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, \
                         size_t bs, size_t nb, int pe)                                      \
    {                                                                                       \
        if (c)                                                                              \
            shmem_ctx_ibput##B(c, d, s, ds, ss, bs, nb, pe);                                \
        else                                                                                \
            shmem_ibput##B(d, s, ds, ss, bs, nb, pe);                                       \
    }                                                                                       \
    static void ibget##B(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, \
                         size_t bs, size_t nb, int pe)                                      \
    {                                                                                       \
        if (c)                                                                              \
            shmem_ctx_ibget##B(c, d, s, ds, ss, bs, nb, pe);                                \
        else                                                                                \
            shmem_ibget##B(d, s, ds, ss, bs, nb, pe);                                       \
    }
WEFT_RMA_SIZES(DEF_SIZE)

#define ROW(N, T, D, G) {#N "_ib", sizeof(T), ibput_##N, ibget_##N},
#define ROW_SIZE(B, T) {"ib*" #B, sizeof(T), ibput##B, ibget##B},
static const struct ibops rows[] = {WEFT_RMA_TYPES(ROW) WEFT_RMA_SIZES(ROW_SIZE)};
#define NROWS (sizeof rows / sizeof rows[0])

static int me, npes, right, left;

/* Compare region `got` (NE elements of e bytes) with what combo c leaves
 * there: dest element dst*k + j holds source element sst*k + j of PE
 * srcpe's pattern `tag`; every other element keeps the 0xEE fill. */
static void check_blocks(const unsigned char *got, size_t e, const struct combo *c, int srcpe,
                         unsigned tag, const char *what)
{
    static long from[NE];
    for (size_t i = 0; i < NE; i++)
        from[i] = -1;
    for (size_t k = 0; k < c->nblocks; k++)
        for (size_t j = 0; j < c->bsize; j++)
            from[(size_t)c->dst * k + j] = (long)((size_t)c->sst * k + j);
    for (size_t i = 0; i < NE; i++)
        for (size_t b = 0; b < e; b++) {
            unsigned char want =
                from[i] < 0 ? 0xEE : wt_byte(srcpe, (size_t)from[i] * e + b, tag);
            if (got[i * e + b] != want)
                WT_FAIL("%s (bsize=%zu nblocks=%zu dst=%td sst=%td): element %zu byte %zu is "
                        "0x%02x, expected 0x%02x (%s)", what, c->bsize, c->nblocks, c->dst,
                        c->sst, i, b, got[i * e + b], want,
                        from[i] < 0 ? "no block covers it: must be untouched"
                                    : "copy of a source element");
        }
}

static void run(const struct ibops *r, shmem_ctx_t ctx, unsigned char *sym)
{
    size_t e = r->esize;
    const char *cf = ctx ? "shmem_ctx_" : "shmem_";
    static _Alignas(16) unsigned char local[REGB];
    unsigned char *src_region = sym + NCOMBO * REGB;
    unsigned source_tag = 7;

    WT_PHASE("%s%sput/get: setup", cf, r->name);
    memset(sym, 0xEE, NCOMBO * REGB);
    wt_fill_bytes(src_region, NE * e, me, 0, source_tag);
    shmem_barrier_all();

    for (size_t k = 0; k < NCOMBO; k++) {
        const struct combo *c = &combos[k];
        WT_PHASE("%s%sput bsize=%zu nblocks=%zu dst=%td sst=%td into PE %d", cf, r->name,
                 c->bsize, c->nblocks, c->dst, c->sst, right);
        wt_fill_bytes(local, NE * e, me, 0, 20 + (unsigned)k);
        r->ibput(ctx, sym + k * REGB, local, c->dst, c->sst, c->bsize, c->nblocks, right);
        memset(local, 0x11, NE * e); /* ibput returned: the source is free again */
    }
    for (size_t k = 0; k < NCOMBO; k++) {
        const struct combo *c = &combos[k];
        char what[120];
        snprintf(what, sizeof what, "%s%sget from PE %d", cf, r->name, right);
        WT_PHASE("%s bsize=%zu nblocks=%zu", what, c->bsize, c->nblocks);
        memset(local, 0xEE, NE * e);
        r->ibget(ctx, local, src_region, c->dst, c->sst, c->bsize, c->nblocks, right);
        check_blocks(local, e, c, right, source_tag, what);
    }
    shmem_barrier_all();
    for (size_t k = 0; k < NCOMBO; k++) {
        char what[120];
        snprintf(what, sizeof what, "%s%sput from PE %d", cf, r->name, left);
        WT_PHASE("checking %s", what);
        check_blocks(sym + k * REGB, e, &combos[k], left, 20 + (unsigned)k, what);
    }
    shmem_barrier_all();
}

/* Few large blocks: each block is many provider messages' worth. */
static void large_blocks(void)
{
    const size_t bsize = 300000, nblocks = 3;
    const ptrdiff_t dst = 310000, sst = 300017;
    size_t dext = (size_t)dst * (nblocks - 1) + bsize, sext = (size_t)sst * (nblocks - 1) + bsize;
    unsigned char *sym = shmem_malloc(dext + sext);
    unsigned char *local = malloc(dext > sext ? dext : sext);
    WT_CHECK(sym && local, "allocation");
    unsigned char *sym_src = sym + dext;

    WT_PHASE("shmem_ibput8 with 300000-byte blocks");
    memset(sym, 0xEE, dext);
    wt_fill_bytes(sym_src, sext, me, 0, 3);
    wt_fill_bytes(local, sext, me, 0, 4);
    shmem_barrier_all();
    shmem_ibput8(sym, local, dst, sst, bsize, nblocks, right);
    shmem_barrier_all();
    for (size_t k = 0; k < nblocks; k++) {
        unsigned char *blk = sym + (size_t)dst * k;
        for (size_t j = 0; j < bsize; j++)
            if (blk[j] != wt_byte(left, (size_t)sst * k + j, 4))
                WT_FAIL("shmem_ibput8 from PE %d: block %zu byte %zu is 0x%02x, expected 0x%02x",
                        left, k, j, blk[j], wt_byte(left, (size_t)sst * k + j, 4));
        if (k + 1 < nblocks)
            WT_CHECK_FILL(blk + bsize, (size_t)dst - bsize, 0xEE, "gap after an ibput8 block");
    }

    WT_PHASE("shmem_ctx_ibget8 with 300000-byte blocks");
    memset(local, 0xEE, dext);
    shmem_ctx_ibget8(SHMEM_CTX_DEFAULT, local, sym_src, dst, sst, bsize, nblocks, right);
    for (size_t k = 0; k < nblocks; k++) {
        unsigned char *blk = local + (size_t)dst * k;
        for (size_t j = 0; j < bsize; j++)
            if (blk[j] != wt_byte(right, (size_t)sst * k + j, 3))
                WT_FAIL("shmem_ctx_ibget8 from PE %d: block %zu byte %zu is 0x%02x, expected "
                        "0x%02x", right, k, j, blk[j], wt_byte(right, (size_t)sst * k + j, 3));
    }
    shmem_barrier_all();
    free(local);
    shmem_free(sym);
}

int main(void)
{
    wt_init("rma_blocks");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    shmem_ctx_t ctx;
    WT_CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create(0) failed");
    unsigned char *sym = shmem_malloc((NCOMBO + 1) * REGB);
    WT_CHECK(sym != NULL, "shmem_malloc");
    for (size_t i = 0; i < NROWS; i++) {
        run(&rows[i], NULL, sym);
        run(&rows[i], ctx, sym);
    }
    large_blocks();
    shmem_free(sym);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("rma_blocks: %zu routine families x {plain, ctx} x %zu block layouts checked\n",
               NROWS, NCOMBO);
    wt_finish();
    return 0;
}

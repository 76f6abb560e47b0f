/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_bulk: transfer sizes and alignments.
 *   size sweep 1 .. 1 MiB+5 around every likely protocol boundary (inject
 *   size, 4 KiB pages, 64 KiB) x (dest, source) byte offsets (0,0) (1,3)
 *   (5,1) (3,6): shmem_putmem, shmem_putmem_nbi (all outstanding, one
 *   quiet), shmem_getmem, shmem_getmem_nbi (all outstanding, one quiet);
 *   every byte checked, and the guard bytes around every destination must
 *   stay untouched
 *   4 MiB (and 4 MiB + 3 at odd offsets) putmem / getmem / putmem_nbi /
 *   getmem_nbi with a per-byte pattern, ring pattern (to the right, from the
 *   right), sources in private memory */
#include "weft_test.h"

static const size_t sweep[] = {1,     2,     3,     7,     8,     9,     15,    16,
                               17,    31,    63,    64,    65,    127,   255,   256,
                               257,   1023,  1024,  4095,  4096,  4097,  8192,  16383,
                               65535, 65536, 65537, 262147, (1 << 20) + 5};
#define NSWEEP (sizeof sweep / sizeof sweep[0])
static const size_t offs[][2] = {{0, 0}, {1, 3}, {5, 1}, {3, 6}}; /* {dest, source} */
#define NOFF 4
#define GUARD 16
#define BIG (4u << 20)

static int me, npes, right, left;
static size_t slot_off[NSWEEP][NOFF], total;

static void layout(void)
{
    total = 0;
    for (size_t s = 0; s < NSWEEP; s++)
        for (int o = 0; o < NOFF; o++) {
            slot_off[s][o] = total;
            total += GUARD + 8 + sweep[s] + GUARD;
            total = (total + 15) & ~(size_t)15;
        }
}

/* The byte at position i of the (s, o) source, from PE pe. */
static unsigned tag_of(size_t s, int o) { return (unsigned)(s * NOFF + (size_t)o); }

static void sweep_test(int get, int nbi)
{
    const char *op = get ? (nbi ? "shmem_getmem_nbi" : "shmem_getmem")
                         : (nbi ? "shmem_putmem_nbi" : "shmem_putmem");
    WT_PHASE("%s size sweep: setup", op);
    /* sym: put destinations / get sources; priv: put sources / get dests */
    unsigned char *sym = shmem_malloc(total);
    unsigned char *priv = malloc(total);
    WT_CHECK(sym && priv, "allocating %zu bytes", total);
    for (size_t s = 0; s < NSWEEP; s++)
        for (int o = 0; o < NOFF; o++) {
            unsigned char *p = get ? sym : priv, *q = get ? priv : sym;
            size_t at = slot_off[s][o] + GUARD;
            memset(p + slot_off[s][o], 0x11, GUARD + 8 + sweep[s] + GUARD);
            wt_fill_bytes(p + at + offs[o][1], sweep[s], me, 0, tag_of(s, o));
            memset(q + slot_off[s][o], 0xC3, GUARD + 8 + sweep[s] + GUARD);
        }
    shmem_barrier_all();

    WT_PHASE("%s size sweep: transfers", op);
    for (size_t s = 0; s < NSWEEP; s++)
        for (int o = 0; o < NOFF; o++) {
            size_t at = slot_off[s][o] + GUARD;
            if (!get && !nbi)
                shmem_putmem(sym + at + offs[o][0], priv + at + offs[o][1], sweep[s], right);
            else if (!get)
                shmem_putmem_nbi(sym + at + offs[o][0], priv + at + offs[o][1], sweep[s], right);
            else if (!nbi)
                shmem_getmem(priv + at + offs[o][0], sym + at + offs[o][1], sweep[s], right);
            else
                shmem_getmem_nbi(priv + at + offs[o][0], sym + at + offs[o][1], sweep[s], right);
        }
    /* zero-length forms, pointing one past the end of the block */
    if (get) {
        shmem_getmem(priv, sym + total, 0, right);
        shmem_getmem_nbi(priv, sym + total, 0, right);
    } else {
        shmem_putmem(sym + total, priv, 0, right);
        shmem_putmem_nbi(sym + total, priv, 0, right);
    }
    shmem_quiet();
    if (!get)
        shmem_barrier_all();

    WT_PHASE("%s size sweep: checking", op);
    unsigned char *dst = get ? priv : sym;
    int from = get ? right : left;
    for (size_t s = 0; s < NSWEEP; s++)
        for (int o = 0; o < NOFF; o++) {
            char what[128];
            size_t at = slot_off[s][o] + GUARD;
            snprintf(what, sizeof what, "%s of %zu bytes, dest offset %zu, source offset %zu", op,
                     sweep[s], offs[o][0], offs[o][1]);
            WT_CHECK_BYTES(dst + at + offs[o][0], sweep[s], from, 0, tag_of(s, o), what);
            snprintf(what, sizeof what, "guard before %s of %zu bytes at offset %zu", op,
                     sweep[s], offs[o][0]);
            WT_CHECK_FILL(dst + slot_off[s][o], GUARD + offs[o][0], 0xC3, what);
            snprintf(what, sizeof what, "guard after %s of %zu bytes at offset %zu", op,
                     sweep[s], offs[o][0]);
            WT_CHECK_FILL(dst + at + offs[o][0] + sweep[s], 8 - offs[o][0] + GUARD, 0xC3, what);
        }
    shmem_barrier_all();
    shmem_free(sym);
    free(priv);
}

static void big_test(int get, int nbi, size_t len, size_t doff, size_t soff)
{
    const char *op = get ? (nbi ? "shmem_getmem_nbi" : "shmem_getmem")
                         : (nbi ? "shmem_putmem_nbi" : "shmem_putmem");
    WT_PHASE("%s of %zu bytes (dest offset %zu, source offset %zu)", op, len, doff, soff);
    unsigned tag = 200u + (unsigned)(get * 2 + nbi);
    unsigned char *sym = shmem_malloc(BIG + 64);
    unsigned char *priv = malloc(BIG + 64);
    WT_CHECK(sym && priv, "allocating 4 MiB");
    unsigned char *src = get ? sym : priv, *dst = get ? priv : sym;
    memset(dst, 0x77, BIG + 64);
    wt_fill_bytes(src + soff, len, me, 0, tag);
    shmem_barrier_all();
    if (!get && !nbi)
        shmem_putmem(dst + doff, src + soff, len, right);
    else if (!get)
        shmem_putmem_nbi(dst + doff, src + soff, len, right);
    else if (!nbi)
        shmem_getmem(dst + doff, src + soff, len, right);
    else
        shmem_getmem_nbi(dst + doff, src + soff, len, right);
    if (nbi)
        shmem_quiet();
    if (!get)
        shmem_barrier_all();
    char what[96];
    snprintf(what, sizeof what, "%s of %zu bytes", op, len);
    WT_CHECK_BYTES(dst + doff, len, get ? right : left, 0, tag, what);
    WT_CHECK_FILL(dst, doff, 0x77, "bytes before the destination");
    WT_CHECK_FILL(dst + doff + len, BIG + 64 - doff - len, 0x77, "bytes after the destination");
    shmem_barrier_all();
    shmem_free(sym);
    free(priv);
}

int main(void)
{
    wt_init("rma_bulk");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    layout();
    for (int get = 0; get < 2; get++)
        for (int nbi = 0; nbi < 2; nbi++)
            sweep_test(get, nbi);
    for (int get = 0; get < 2; get++)
        for (int nbi = 0; nbi < 2; nbi++) {
            big_test(get, nbi, BIG, 0, 0);
            big_test(get, nbi, BIG + 3, 1, 5);
        }
    wt_finish();
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_sized: the sized RMA routines shmem_put{8,16,32,64,128},
 * get{..}, put{..}_nbi, get{..}_nbi, iput{..}, iget{..} (generated from
 * WEFT_RMA_SIZES) and shmem_putmem/getmem/putmem_nbi/getmem_nbi, each also
 * in its shmem_ctx_ form with SHMEM_CTX_DEFAULT.
 * Every element carries a distinct byte pattern, so a transfer of the wrong
 * width, offset or stride shows up; elements outside a strided transfer must
 * stay untouched; targets are in the heap and in a .bss global. */
#include "weft_test.h"

#define NEL 40 /* elements per transfer */
#define NIS 12 /* elements moved by the strided calls */
#define MAXB 16

struct sops {
    const char *name; /* "8" ... "128", "mem" */
    size_t esize;     /* bytes per element */
    void (*put)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*get)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*put_nbi)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*get_nbi)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*iput)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
    void (*iget)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
};

#define DEF_SIZE(B, T)                                                                      \
    static void put##B(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)             \
    { if (c) shmem_ctx_put##B(c, d, s, n, pe); else shmem_put##B(d, s, n, pe); }            \
    static void get##B(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)             \
    { if (c) shmem_ctx_get##B(c, d, s, n, pe); else shmem_get##B(d, s, n, pe); }            \
    static void put##B##nbi(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)        \
    { if (c) shmem_ctx_put##B##_nbi(c, d, s, n, pe); else shmem_put##B##_nbi(d, s, n, pe); } \
    static void get##B##nbi(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)        \
    { if (c) shmem_ctx_get##B##_nbi(c, d, s, n, pe); else shmem_get##B##_nbi(d, s, n, pe); } \
    static void iput##B(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,  \
                        size_t n, int pe)                                                   \
    { if (c) shmem_ctx_iput##B(c, d, s, ds, ss, n, pe); else shmem_iput##B(d, s, ds, ss, n, pe); } \
    static void iget##B(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,  \
                        size_t n, int pe)                                                   \
    { if (c) shmem_ctx_iget##B(c, d, s, ds, ss, n, pe); else shmem_iget##B(d, s, ds, ss, n, pe); }
WEFT_RMA_SIZES(DEF_SIZE)

static void putmem_(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)
{ if (c) shmem_ctx_putmem(c, d, s, n, pe); else shmem_putmem(d, s, n, pe); }
static void getmem_(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)
{ if (c) shmem_ctx_getmem(c, d, s, n, pe); else shmem_getmem(d, s, n, pe); }
static void putmem_nbi_(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)
{ if (c) shmem_ctx_putmem_nbi(c, d, s, n, pe); else shmem_putmem_nbi(d, s, n, pe); }
static void getmem_nbi_(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)
{ if (c) shmem_ctx_getmem_nbi(c, d, s, n, pe); else shmem_getmem_nbi(d, s, n, pe); }

#define ROW(B, T) {#B, sizeof(T), put##B, get##B, put##B##nbi, get##B##nbi, iput##B, iget##B},
static const struct sops sizes[] = {
    WEFT_RMA_SIZES(ROW){"mem", 1, putmem_, getmem_, putmem_nbi_, getmem_nbi_, NULL, NULL}};
#define NSIZES (sizeof sizes / sizeof sizes[0])

enum { R_PUT, R_PUTNBI, R_IPUT, R_SRC, NREG };
#define REGB (NEL * MAXB)
_Alignas(16) unsigned char bss_target[NREG * REGB];

static int me, npes, right, left;

static void run(const struct sops *s, unsigned char *sym, const char *where)
{
    size_t es = s->esize, nb = NEL * es;
    _Alignas(16) unsigned char src[REGB], buf[REGB];
    for (int pass = 0; pass < 2; pass++) {
        shmem_ctx_t c = pass ? SHMEM_CTX_DEFAULT : NULL;
        const char *cf = pass ? "ctx_" : "";
        unsigned tag = (unsigned)(es * 4 + (size_t)pass);
        WT_PHASE("shmem_%sput%s & co. on %s target: setup", cf, s->name, where);
        memset(sym, 0xEE, NREG * REGB);
        wt_fill_bytes(sym + R_SRC * REGB, nb, me, 0, tag + 1);
        shmem_barrier_all();

        WT_PHASE("shmem_%sput%s on %s target", cf, s->name, where);
        wt_fill_bytes(src, nb, me, 0, tag);
        s->put(c, sym + R_PUT * REGB, src, NEL, right);
        s->put(c, sym + R_PUT * REGB + nb, src, 0, right); /* zero length */
        WT_PHASE("shmem_%sput%s_nbi on %s target", cf, s->name, where);
        unsigned char *nsrc = malloc(nb);
        WT_CHECK(nsrc != NULL, "malloc");
        wt_fill_bytes(nsrc, nb, me, 0, tag + 2);
        s->put_nbi(c, sym + R_PUTNBI * REGB, nsrc, NEL, right);
        if (s->iput) {
            WT_PHASE("shmem_%siput%s on %s target", cf, s->name, where);
            /* dest stride 3, source stride 2 (in elements) */
            s->iput(c, sym + R_IPUT * REGB, src, 3, 2, NIS, right);
        }
        if (pass)
            shmem_ctx_quiet(c);
        else
            shmem_quiet();
        free(nsrc);

        WT_PHASE("shmem_%sget%s on %s target", cf, s->name, where);
        memset(buf, 0, sizeof buf);
        s->get(c, buf, sym + R_SRC * REGB, NEL, right);
        WT_CHECK_BYTES(buf, nb, right, 0, tag + 1, "shmem_get (sized/mem)");
        WT_PHASE("shmem_%sget%s_nbi on %s target", cf, s->name, where);
        memset(buf, 0, sizeof buf);
        s->get_nbi(c, buf, sym + R_SRC * REGB, NEL, right);
        if (pass)
            shmem_ctx_quiet(c);
        else
            shmem_quiet();
        WT_CHECK_BYTES(buf, nb, right, 0, tag + 1, "shmem_get_nbi (sized/mem)");
        if (s->iget) {
            WT_PHASE("shmem_%siget%s on %s target", cf, s->name, where);
            memset(buf, 0xDD, sizeof buf);
            /* dest stride 2, source stride 3 */
            s->iget(c, buf, sym + R_SRC * REGB, 2, 3, NIS, right);
            for (size_t k = 0; k < NEL; k++) {
                char what[96];
                snprintf(what, sizeof what, "shmem_%siget%s element %zu", cf, s->name, k);
                if (k % 2 == 0 && k / 2 < NIS)
                    wt_check_bytes_at(__FILE__, __LINE__, buf + k * es, es, right,
                                      3 * (k / 2) * es, tag + 1, what);
                else
                    WT_CHECK_FILL(buf + k * es, es, 0xDD, what);
            }
        }
        shmem_barrier_all();

        WT_PHASE("checking shmem_%sput%s* results on %s target", cf, s->name, where);
        WT_CHECK_BYTES(sym + R_PUT * REGB, nb, left, 0, tag, "shmem_put (sized/mem)");
        WT_CHECK_FILL(sym + R_PUT * REGB + nb, REGB - nb, 0xEE,
                      "bytes after a put (incl. a zero-length put)");
        WT_CHECK_BYTES(sym + R_PUTNBI * REGB, nb, left, 0, tag + 2, "shmem_put_nbi (sized/mem)");
        if (s->iput)
            for (size_t k = 0; k < NEL; k++) {
                char what[96];
                snprintf(what, sizeof what, "shmem_%siput%s element %zu", cf, s->name, k);
                if (k % 3 == 0 && k / 3 < NIS)
                    wt_check_bytes_at(__FILE__, __LINE__, sym + R_IPUT * REGB + k * es, es, left,
                                      2 * (k / 3) * es, tag, what);
                else
                    WT_CHECK_FILL(sym + R_IPUT * REGB + k * es, es, 0xEE, what);
            }
        shmem_barrier_all();
    }
}

int main(void)
{
    wt_init("rma_sized");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    unsigned char *heap = shmem_malloc(NREG * REGB);
    WT_CHECK(heap != NULL, "shmem_malloc");
    for (size_t k = 0; k < NSIZES; k++) {
        run(&sizes[k], heap, "heap");
        run(&sizes[k], bss_target, ".bss");
    }
    shmem_free(heap);
    wt_finish();
    return 0;
}

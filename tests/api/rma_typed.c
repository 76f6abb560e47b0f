/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_typed: every typed RMA routine for every type of WEFT_RMA_TYPES
 * (generated from the same table as shmem.h), on targets in the symmetric
 * heap, in initialized globals (.data) and in zero-initialized globals
 * (.bss):
 *   put, p, put_nbi, iput (dest stride 3, source stride 2) and their
 *   shmem_ctx_* forms with SHMEM_CTX_DEFAULT, into the right neighbour;
 *   get, g, get_nbi, iget (dest stride 2, source stride 3) and ctx forms,
 *   from the right neighbour; zero-length put/get/iput/iget/nbi change
 *   nothing. Elements outside every strided transfer must stay untouched.
 *
 * The per-type code is only a table of one-line wrappers (X-macro over
 * WEFT_RMA_TYPES); the test logic is written once against that table. */
#include "weft_test.h"

#define NE 30   /* elements per region */
#define NREG 10 /* regions per target, see enum below */
#define NIS 10  /* elements moved by the strided calls */

enum { R_PUT, R_P, R_PUTNBI, R_IPUT, R_CPUT, R_CP, R_CPUTNBI, R_CIPUT, R_SRC, R_ZERO };

struct tops {
    const char *name;
    size_t size;
    void (*set)(void *a, size_t i, int v);
    long double (*val)(const void *a, size_t i);
    void (*put)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*get)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*put_nbi)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*get_nbi)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*p)(shmem_ctx_t, void *, const void *, int);
    void (*g)(shmem_ctx_t, void *, const void *, int);
    void (*iput)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
    void (*iget)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
    void *data, *bss; /* the static targets */
};

/* ctx == NULL selects the plain routine, anything else the shmem_ctx_ form. */
#define DEF_TYPE(N, T, D, G)                                                                \
    T data_##N[NREG * NE] = {(T)1};                                                         \
    T bss_##N[NREG * NE];                                                                   \
    static void set_##N(void *a, size_t i, int v) { ((T *)a)[i] = (T)v; }                   \
    static long double val_##N(const void *a, size_t i) { return (long double)((const T *)a)[i]; } \
    static void put_##N(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)            \
    { if (c) shmem_ctx_##N##_put(c, d, s, n, pe); else shmem_##N##_put(d, s, n, pe); }      \
    static void get_##N(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)            \
    { if (c) shmem_ctx_##N##_get(c, d, s, n, pe); else shmem_##N##_get(d, s, n, pe); }      \
    static void put_nbi_##N(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)        \
    { if (c) shmem_ctx_##N##_put_nbi(c, d, s, n, pe); else shmem_##N##_put_nbi(d, s, n, pe); } \
    static void get_nbi_##N(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)        \
    { if (c) shmem_ctx_##N##_get_nbi(c, d, s, n, pe); else shmem_##N##_get_nbi(d, s, n, pe); } \
    static void p_##N(shmem_ctx_t c, void *d, const void *v, int pe)                        \
    { if (c) shmem_ctx_##N##_p(c, d, *(const T *)v, pe); else shmem_##N##_p(d, *(const T *)v, pe); } \
    static void g_##N(shmem_ctx_t c, void *out, const void *s, int pe)                      \
    { *(T *)out = c ? shmem_ctx_##N##_g(c, s, pe) : shmem_##N##_g(s, pe); }                 \
    static void iput_##N(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, \
                         size_t n, int pe)                                                  \
    { if (c) shmem_ctx_##N##_iput(c, d, s, ds, ss, n, pe); else shmem_##N##_iput(d, s, ds, ss, n, pe); } \
    static void iget_##N(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss, \
                         size_t n, int pe)                                                  \
    { if (c) shmem_ctx_##N##_iget(c, d, s, ds, ss, n, pe); else shmem_##N##_iget(d, s, ds, ss, n, pe); }
WEFT_RMA_TYPES(DEF_TYPE)

#define ROW(N, T, D, G)                                                                     \
    {#N, sizeof(T), set_##N, val_##N, put_##N, get_##N, put_nbi_##N, get_nbi_##N, p_##N,  \
     g_##N, iput_##N, iget_##N, data_##N, bss_##N},
static const struct tops types[] = {WEFT_RMA_TYPES(ROW)};
#define NTYPES (sizeof types / sizeof types[0])

static int me, npes, right, left;

/* The value element i of region r holds when written by PE pe: small
 * positive integers, exact in every type (signed char included). */
static int V(int pe, int r, size_t i) { return (pe * 37 + (int)i * 5 + r * 11 + 3) % 120 + 1; }
#define SENT 0 /* untouched elements */

#define AT(base, r, i) ((char *)(base) + ((size_t)(r) * NE + (i)) * t->size)

static void expect(const struct tops *t, const void *a, size_t i, int want, const char *where,
                   const char *op, int from)
{
    long double got = t->val(a, i);
    if (got != (long double)want)
        WT_FAIL("shmem_%s_%s (%s target): element %zu: got %.21Lg, expected %d (%s)",
                t->name, op, where, i, got, want,
                want == SENT ? "should be untouched" : from == left ? "written by the left PE"
                                                                    : "read from the right PE");
}

static void run(const struct tops *t, void *sym, const char *where)
{
    WT_PHASE("shmem_%s_* on %s target: setup", t->name, where);
    _Alignas(16) unsigned char src[2 * NE * 16]; /* put source, put_nbi source */
    _Alignas(16) unsigned char buf[NE * 16]; /* private source / destination */
    for (int r = 0; r < NREG; r++)
        for (size_t i = 0; i < NE; i++)
            t->set(AT(sym, r, 0), i, r == R_SRC ? V(me, r, i) : SENT);
    shmem_barrier_all();

    /* Writes into the right neighbour, plain forms then ctx forms. */
    for (int pass = 0; pass < 2; pass++) {
        shmem_ctx_t c = pass ? SHMEM_CTX_DEFAULT : NULL;
        const char *cf = pass ? "ctx_" : "";
        int rb = pass ? R_CPUT - R_PUT : 0;
        WT_PHASE("shmem_%s%s_put/p/put_nbi/iput on %s target", cf, t->name, where);
        for (size_t i = 0; i < NE; i++)
            t->set(src, i, V(me, R_PUT + rb, i));
        t->put(c, AT(sym, R_PUT + rb, 0), src, NE, right);
        for (size_t i = 0; i < NE; i++) {
            _Alignas(16) unsigned char v[16];
            t->set(v, 0, V(me, R_P + rb, i));
            t->p(c, AT(sym, R_P + rb, i), v, right);
        }
        for (size_t i = 0; i < NE; i++)
            t->set(src + NE * t->size, i, V(me, R_PUTNBI + rb, i));
        /* put_nbi from a buffer we do not touch again before the quiet */
        t->put_nbi(c, AT(sym, R_PUTNBI + rb, 0), src + NE * t->size, NE, right);
        _Alignas(16) unsigned char isrc[NE * 2 * 16];
        for (size_t i = 0; i < 2 * NIS; i++)
            t->set(isrc, i, V(me, R_IPUT + rb, i));
        t->iput(c, AT(sym, R_IPUT + rb, 0), isrc, 3, 2, NIS, right);
        /* zero-length calls change nothing anywhere */
        t->put(c, AT(sym, R_ZERO, 0), src, 0, right);
        t->put_nbi(c, AT(sym, R_ZERO, 0), src, 0, right);
        t->iput(c, AT(sym, R_ZERO, 0), isrc, 3, 2, 0, right);
        if (pass)
            shmem_ctx_quiet(c);
        else
            shmem_quiet();
    }

    /* Reads from the right neighbour's R_SRC region. */
    for (int pass = 0; pass < 2; pass++) {
        shmem_ctx_t c = pass ? SHMEM_CTX_DEFAULT : NULL;
        const char *cf = pass ? "ctx_" : "";
        WT_PHASE("shmem_%s%s_get on %s target", cf, t->name, where);
        memset(buf, 0, sizeof buf);
        t->get(c, buf, AT(sym, R_SRC, 0), NE, right);
        for (size_t i = 0; i < NE; i++)
            expect(t, buf, i, V(right, R_SRC, i), where, pass ? "get (ctx)" : "get", right);
        WT_PHASE("shmem_%s%s_g on %s target", cf, t->name, where);
        for (size_t i = 0; i < NE; i++) {
            _Alignas(16) unsigned char v[16];
            t->g(c, v, AT(sym, R_SRC, i), right);
            expect(t, v, 0, V(right, R_SRC, i), where, pass ? "g (ctx)" : "g", right);
        }
        WT_PHASE("shmem_%s%s_get_nbi on %s target", cf, t->name, where);
        memset(buf, 0, sizeof buf);
        t->get_nbi(c, buf, AT(sym, R_SRC, 0), NE, right);
        t->get_nbi(c, buf + NE * t->size, AT(sym, R_SRC, 0), 0, right); /* zero length */
        if (pass)
            shmem_ctx_quiet(c);
        else
            shmem_quiet();
        for (size_t i = 0; i < NE; i++)
            expect(t, buf, i, V(right, R_SRC, i), where, pass ? "get_nbi (ctx)" : "get_nbi",
                   right);
        WT_PHASE("shmem_%s%s_iget on %s target", cf, t->name, where);
        for (size_t i = 0; i < NE; i++)
            t->set(buf, i, SENT);
        t->iget(c, buf, AT(sym, R_SRC, 0), 2, 3, NIS, right);
        t->iget(c, buf + NE * t->size, AT(sym, R_SRC, 0), 2, 3, 0, right); /* zero length */
        for (size_t i = 0; i < NE; i++)
            expect(t, buf, i, (i % 2 == 0 && i / 2 < NIS) ? V(right, R_SRC, 3 * (i / 2)) : SENT,
                   where, pass ? "iget (ctx)" : "iget", right);
        t->get(c, buf, AT(sym, R_SRC, 0), 0, right); /* zero length */
    }

    shmem_barrier_all();
    WT_PHASE("checking what the left PE wrote with shmem_%s_* into %s target", t->name, where);
    static const char *const opname[] = {"put", "p", "put_nbi", "iput", "put (ctx)",
                                         "p (ctx)", "put_nbi (ctx)", "iput (ctx)"};
    for (int r = R_PUT; r <= R_CIPUT; r++)
        for (size_t i = 0; i < NE; i++) {
            int want;
            if (r == R_IPUT || r == R_CIPUT)
                want = (i % 3 == 0 && i / 3 < NIS) ? V(left, r, 2 * (i / 3)) : SENT;
            else
                want = V(left, r, i);
            expect(t, AT(sym, r, 0), i, want, where, opname[r], left);
        }
    for (size_t i = 0; i < NE; i++) {
        expect(t, AT(sym, R_ZERO, 0), i, SENT, where, "put/put_nbi/iput with nelems=0", left);
        expect(t, AT(sym, R_SRC, 0), i, V(me, R_SRC, i), where, "get source (must not change)",
               me);
    }
    shmem_barrier_all();
}

int main(void)
{
    wt_init("rma_typed");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    WT_PHASE("initial values of the static targets");
    for (size_t k = 0; k < NTYPES; k++) {
        const struct tops *t = &types[k];
        if (t->val(t->data, 0) != 1)
            WT_FAIL("data_%s[0] = %Lg after shmem_init, expected 1 (the .data segment lost its "
                    "initial contents)", t->name, t->val(t->data, 0));
        for (size_t i = 0; i < NREG * NE; i++)
            if (t->val(t->bss, i) != 0 || (i && t->val(t->data, i) != 0))
                WT_FAIL("static %s array element %zu not zero after shmem_init", t->name, i);
    }

    void *heap = shmem_malloc(NREG * NE * sizeof(long double));
    WT_CHECK(heap != NULL, "shmem_malloc");
    for (size_t k = 0; k < NTYPES; k++) {
        run(&types[k], heap, "heap");
        run(&types[k], types[k].data, ".data");
        run(&types[k], types[k].bss, ".bss");
    }
    shmem_free(heap);
    if (me == 0)
        printf("rma_typed: %zu types x {heap, .data, .bss} x 16 routines checked\n", NTYPES);
    wt_finish();
    return 0;
}

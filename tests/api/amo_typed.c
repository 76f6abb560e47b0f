/* SPDX-License-Identifier: BSD-3-Clause */
/* amo_typed: every typed AMO for every type of WEFT_AMO_STD_TYPES,
 * WEFT_AMO_EXT_TYPES and WEFT_AMO_BIT_TYPES (generated from the tables of
 * shmem.h), blocking, fetching-nbi (checked after shmem_quiet) and the
 * shmem_ctx_ forms with SHMEM_CTX_DEFAULT, on a target in the heap and in a
 * .bss global of the right neighbour. Each PE's target is touched only by
 * its left neighbour, so every fetched value is exact. The target sits
 * between two guard elements that must never change (an AMO of the wrong
 * width shows); 64-bit types use values above 2^32; unsigned adds of (T)-2
 * must wrap modulo the type's width. Run also with WEFT_AMO=software. */
#include "weft_test.h"

static int me, npes, right, left;
static const char *where;

/* ---- per-type wrappers, generated ---------------------------------------- */
#define CTXCALL(c, name, ...)                                                               \
    ((c) ? shmem_ctx_##name((c), __VA_ARGS__) : shmem_##name(__VA_ARGS__))

struct conv {
    void (*from_ll)(void *, long long);
    void (*from_d)(void *, double);
    long double (*val)(const void *);
};
#define DEF_CONV(N, T, D, G)                                                                \
    static void from_ll_##N(void *o, long long v) { *(T *)o = (T)v; }                       \
    static void from_d_##N(void *o, double v) { *(T *)o = (T)v; }                           \
    static long double val_##N(const void *p) { return (long double)*(const T *)p; }
WEFT_AMO_EXT_TYPES(DEF_CONV)

struct std_ops {
    const char *name;
    size_t size;
    struct conv cv;
    void *bss;
    void (*fetch_inc)(shmem_ctx_t, void *d, void *out, int pe);
    void (*inc)(shmem_ctx_t, void *d, int pe);
    void (*fetch_add)(shmem_ctx_t, void *d, const void *v, void *out, int pe);
    void (*add)(shmem_ctx_t, void *d, const void *v, int pe);
    void (*cswap)(shmem_ctx_t, void *d, const void *cond, const void *v, void *out, int pe);
    void (*fetch_inc_nbi)(shmem_ctx_t, void *f, void *d, int pe);
    void (*fetch_add_nbi)(shmem_ctx_t, void *f, void *d, const void *v, int pe);
    void (*cswap_nbi)(shmem_ctx_t, void *f, void *d, const void *cond, const void *v, int pe);
};
#define DEF_STD(N, T, D, G)                                                                 \
    T std_bss_##N[3];                                                                       \
    static void fetch_inc_##N(shmem_ctx_t c, void *d, void *o, int pe)                      \
    { *(T *)o = CTXCALL(c, N##_atomic_fetch_inc, d, pe); }                                  \
    static void inc_##N(shmem_ctx_t c, void *d, int pe)                                     \
    { if (c) shmem_ctx_##N##_atomic_inc(c, d, pe); else shmem_##N##_atomic_inc(d, pe); }    \
    static void fetch_add_##N(shmem_ctx_t c, void *d, const void *v, void *o, int pe)       \
    { *(T *)o = CTXCALL(c, N##_atomic_fetch_add, d, *(const T *)v, pe); }                   \
    static void add_##N(shmem_ctx_t c, void *d, const void *v, int pe)                      \
    { if (c) shmem_ctx_##N##_atomic_add(c, d, *(const T *)v, pe);                           \
      else shmem_##N##_atomic_add(d, *(const T *)v, pe); }                                  \
    static void cswap_##N(shmem_ctx_t c, void *d, const void *k, const void *v, void *o, int pe) \
    { *(T *)o = CTXCALL(c, N##_atomic_compare_swap, d, *(const T *)k, *(const T *)v, pe); } \
    static void fetch_inc_nbi_##N(shmem_ctx_t c, void *f, void *d, int pe)                  \
    { if (c) shmem_ctx_##N##_atomic_fetch_inc_nbi(c, f, d, pe);                             \
      else shmem_##N##_atomic_fetch_inc_nbi(f, d, pe); }                                    \
    static void fetch_add_nbi_##N(shmem_ctx_t c, void *f, void *d, const void *v, int pe)   \
    { if (c) shmem_ctx_##N##_atomic_fetch_add_nbi(c, f, d, *(const T *)v, pe);              \
      else shmem_##N##_atomic_fetch_add_nbi(f, d, *(const T *)v, pe); }                     \
    static void cswap_nbi_##N(shmem_ctx_t c, void *f, void *d, const void *k, const void *v,\
                              int pe)                                                       \
    { if (c) shmem_ctx_##N##_atomic_compare_swap_nbi(c, f, d, *(const T *)k, *(const T *)v, pe); \
      else shmem_##N##_atomic_compare_swap_nbi(f, d, *(const T *)k, *(const T *)v, pe); }
WEFT_AMO_STD_TYPES(DEF_STD)
#define ROW_STD(N, T, D, G)                                                                 \
    {#N, sizeof(T), {from_ll_##N, from_d_##N, val_##N}, std_bss_##N, fetch_inc_##N, inc_##N, \
     fetch_add_##N, add_##N, cswap_##N, fetch_inc_nbi_##N, fetch_add_nbi_##N, cswap_nbi_##N},
static const struct std_ops std_types[] = {WEFT_AMO_STD_TYPES(ROW_STD)};

struct ext_ops {
    const char *name;
    size_t size;
    int is_float;
    struct conv cv;
    void *bss;
    void (*fetch)(shmem_ctx_t, const void *s, void *out, int pe);
    void (*set)(shmem_ctx_t, void *d, const void *v, int pe);
    void (*swap)(shmem_ctx_t, void *d, const void *v, void *out, int pe);
    void (*fetch_nbi)(shmem_ctx_t, void *f, const void *s, int pe);
    void (*swap_nbi)(shmem_ctx_t, void *f, void *d, const void *v, int pe);
};
#define DEF_EXT(N, T, D, G)                                                                 \
    T ext_bss_##N[3];                                                                       \
    static void fetch_##N(shmem_ctx_t c, const void *s, void *o, int pe)                    \
    { *(T *)o = CTXCALL(c, N##_atomic_fetch, s, pe); }                                      \
    static void set_##N(shmem_ctx_t c, void *d, const void *v, int pe)                      \
    { if (c) shmem_ctx_##N##_atomic_set(c, d, *(const T *)v, pe);                           \
      else shmem_##N##_atomic_set(d, *(const T *)v, pe); }                                  \
    static void swap_##N(shmem_ctx_t c, void *d, const void *v, void *o, int pe)            \
    { *(T *)o = CTXCALL(c, N##_atomic_swap, d, *(const T *)v, pe); }                        \
    static void fetch_nbi_##N(shmem_ctx_t c, void *f, const void *s, int pe)                \
    { if (c) shmem_ctx_##N##_atomic_fetch_nbi(c, f, s, pe);                                 \
      else shmem_##N##_atomic_fetch_nbi(f, s, pe); }                                        \
    static void swap_nbi_##N(shmem_ctx_t c, void *f, void *d, const void *v, int pe)        \
    { if (c) shmem_ctx_##N##_atomic_swap_nbi(c, f, d, *(const T *)v, pe);                   \
      else shmem_##N##_atomic_swap_nbi(f, d, *(const T *)v, pe); }
WEFT_AMO_EXT_TYPES(DEF_EXT)
#define ROW_EXT(N, T, D, G)                                                                 \
    {#N, sizeof(T), (T)0.5 != 0, {from_ll_##N, from_d_##N, val_##N}, ext_bss_##N, fetch_##N, \
     set_##N, swap_##N, fetch_nbi_##N, swap_nbi_##N},
static const struct ext_ops ext_types[] = {WEFT_AMO_EXT_TYPES(ROW_EXT)};

enum { B_AND, B_OR, B_XOR };
struct bit_ops {
    const char *name;
    size_t size;
    struct conv cv;
    void *bss;
    /* op: B_AND/B_OR/B_XOR; mode 0: no fetch, 1: fetch, 2: fetch nbi into out */
    void (*bit)(shmem_ctx_t, int op, int mode, void *d, const void *v, void *out, int pe);
};
#define BIT_CASE(N, T, OP)                                                                  \
    if (mode == 0) {                                                                        \
        if (c) shmem_ctx_##N##_atomic_##OP(c, d, *(const T *)v, pe);                        \
        else shmem_##N##_atomic_##OP(d, *(const T *)v, pe);                                 \
    } else if (mode == 1) {                                                                 \
        *(T *)o = CTXCALL(c, N##_atomic_fetch_##OP, d, *(const T *)v, pe);                  \
    } else {                                                                                \
        if (c) shmem_ctx_##N##_atomic_fetch_##OP##_nbi(c, o, d, *(const T *)v, pe);         \
        else shmem_##N##_atomic_fetch_##OP##_nbi(o, d, *(const T *)v, pe);                  \
    }
#define DEF_BIT(N, T, D, G)                                                                 \
    T bit_bss_##N[3];                                                                       \
    static void bit_##N(shmem_ctx_t c, int op, int mode, void *d, const void *v, void *o,   \
                        int pe)                                                             \
    {                                                                                       \
        if (op == B_AND) { BIT_CASE(N, T, and) }                                            \
        else if (op == B_OR) { BIT_CASE(N, T, or) }                                         \
        else { BIT_CASE(N, T, xor) }                                                        \
    }
WEFT_AMO_BIT_TYPES(DEF_BIT)
#define ROW_BIT(N, T, D, G)                                                                 \
    {#N, sizeof(T), {from_ll_##N, from_d_##N, val_##N}, bit_bss_##N, bit_##N},
static const struct bit_ops bit_types[] = {WEFT_AMO_BIT_TYPES(ROW_BIT)};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- checking helpers ------------------------------------------------------ */
typedef union { long double ld; long long ll; unsigned char b[16]; } cell;

static void want_ll(const struct conv *cv, const char *type, const char *op, const void *got,
                    long long w)
{
    cell e;
    cv->from_ll(&e, w);
    if (cv->val(got) != cv->val(&e))
        WT_FAIL("shmem_%s_%s (%s target on PE %d): got %.21Lg, expected %.21Lg", type, op, where,
                right, cv->val(got), cv->val(&e));
}

static void want_d(const struct conv *cv, const char *type, const char *op, const void *got,
                   double w)
{
    cell e;
    cv->from_d(&e, w);
    if (cv->val(got) != cv->val(&e))
        WT_FAIL("shmem_%s_%s (%s target on PE %d): got %.21Lg, expected %.21Lg", type, op, where,
                right, cv->val(got), cv->val(&e));
}

/* The target is element 1 of a 3-element array; 0 and 2 are guards. */
static void guards_set(const struct conv *cv, void *arr, size_t size)
{
    cv->from_ll((char *)arr, 0x5A5A5A5ALL);
    cv->from_ll((char *)arr + 2 * size, 0x3C3C3C3CLL);
}
static void guards_check(const struct conv *cv, const void *arr, size_t size, const char *type)
{
    cell g0, g2;
    cv->from_ll(&g0, 0x5A5A5A5ALL);
    cv->from_ll(&g2, 0x3C3C3C3CLL);
    if (cv->val(arr) != cv->val(&g0) || cv->val((const char *)arr + 2 * size) != cv->val(&g2))
        WT_FAIL("AMOs on shmem_%s (%s target) changed a neighbouring element: %.21Lg %.21Lg "
                "(wrong width?)", type, where, cv->val(arr), cv->val((const char *)arr + 2 * size));
}

static void quiet(shmem_ctx_t c)
{
    if (c)
        shmem_ctx_quiet(c);
    else
        shmem_quiet();
}

/* ---- the sequences ---------------------------------------------------------- */
static void run_std(const struct std_ops *t, void *arr)
{
    char *x = (char *)arr + t->size;
    const struct conv *cv = &t->cv;
    long long B = t->size == 8 ? 0x300000000LL : 0; /* 64-bit types: above 2^32 */
    for (int pass = 0; pass < 2; pass++) {
        shmem_ctx_t c = pass ? SHMEM_CTX_DEFAULT : NULL;
        const char *cf = pass ? "(ctx) " : "";
        cell cv_, ck_, co_;
        void *v = &cv_, *k = &ck_, *out = &co_;
        WT_PHASE("%sstandard AMOs on shmem_%s, %s target", cf, t->name, where);
        guards_set(cv, arr, t->size);
        cv->from_ll(x, B + 10);
        shmem_barrier_all();
        t->fetch_inc(c, x, out, right);
        want_ll(cv, t->name, "atomic_fetch_inc", out, B + 10);
        t->inc(c, x, right); /* 12 */
        cv->from_ll(v, 5);
        t->fetch_add(c, x, v, out, right);
        want_ll(cv, t->name, "atomic_fetch_add", out, B + 12);
        cv->from_ll(v, 3);
        t->add(c, x, v, right); /* 20 */
        cv->from_ll(k, B + 20);
        cv->from_ll(v, B + 30);
        t->cswap(c, x, k, v, out, right); /* succeeds: 30 */
        want_ll(cv, t->name, "atomic_compare_swap (matching)", out, B + 20);
        cv->from_ll(k, B + 99);
        cv->from_ll(v, 40);
        t->cswap(c, x, k, v, out, right); /* fails: stays 30 */
        want_ll(cv, t->name, "atomic_compare_swap (not matching)", out, B + 30);
        t->fetch_inc_nbi(c, out, x, right);
        quiet(c);
        want_ll(cv, t->name, "atomic_fetch_inc_nbi", out, B + 30);
        cv->from_ll(v, 4);
        t->fetch_add_nbi(c, out, x, v, right);
        quiet(c);
        want_ll(cv, t->name, "atomic_fetch_add_nbi", out, B + 31);
        cv->from_ll(k, B + 35);
        cv->from_ll(v, 50);
        t->cswap_nbi(c, out, x, k, v, right); /* succeeds: 50 */
        quiet(c);
        want_ll(cv, t->name, "atomic_compare_swap_nbi (matching)", out, B + 35);
        cv->from_ll(k, 51);
        cv->from_ll(v, 60);
        t->cswap_nbi(c, out, x, k, v, right); /* fails */
        quiet(c);
        want_ll(cv, t->name, "atomic_compare_swap_nbi (not matching)", out, 50);
        cv->from_ll(v, -2); /* wraps for unsigned types: 50 + (T)-2 = 48 */
        t->fetch_add(c, x, v, out, right);
        want_ll(cv, t->name, "atomic_fetch_add of (T)-2", out, 50);
        t->add(c, x, v, right); /* 46 */
        t->fetch_inc(c, x, out, right);
        want_ll(cv, t->name, "atomic_fetch_inc after adding (T)-2 twice", out, 46);
        shmem_barrier_all();
        WT_PHASE("%sstandard AMOs on shmem_%s, %s target: owner's view", cf, t->name, where);
        want_ll(cv, t->name, "(final value seen by the target PE)", x, 47);
        guards_check(cv, arr, t->size, t->name);
        shmem_barrier_all();
    }
}

static void run_ext(const struct ext_ops *t, void *arr)
{
    char *x = (char *)arr + t->size;
    const struct conv *cv = &t->cv;
    for (int pass = 0; pass < 2; pass++) {
        shmem_ctx_t c = pass ? SHMEM_CTX_DEFAULT : NULL;
        const char *cf = pass ? "(ctx) " : "";
        cell cv_, co_;
        void *v = &cv_, *out = &co_;
        WT_PHASE("%sextended AMOs on shmem_%s, %s target", cf, t->name, where);
        guards_set(cv, arr, t->size);
        cv->from_ll(x, 0);
        shmem_barrier_all();
        /* floats: fractional values; 64-bit integers: above 2^32 */
        double a = t->is_float ? 2.5 : t->size == 8 ? 0x500000001LL : 77;
        double b = t->is_float ? -1.25 : t->size == 8 ? 0x700000003LL : 99;
        double d = t->is_float ? 1e6 + 0.5 : 12345;
        cv->from_d(v, a);
        t->set(c, x, v, right);
        t->fetch(c, x, out, right);
        want_d(cv, t->name, "atomic_set then atomic_fetch", out, a);
        cv->from_d(v, b);
        t->swap(c, x, v, out, right);
        want_d(cv, t->name, "atomic_swap", out, a);
        t->fetch_nbi(c, out, x, right);
        quiet(c);
        want_d(cv, t->name, "atomic_fetch_nbi", out, b);
        cv->from_d(v, d);
        t->swap_nbi(c, out, x, v, right);
        quiet(c);
        want_d(cv, t->name, "atomic_swap_nbi", out, b);
        t->fetch(c, x, out, right);
        want_d(cv, t->name, "atomic_fetch after atomic_swap_nbi", out, d);
        shmem_barrier_all();
        want_d(cv, t->name, "(final value seen by the target PE)", x, d);
        guards_check(cv, arr, t->size, t->name);
        shmem_barrier_all();
    }
}

static void run_bit(const struct bit_ops *t, void *arr)
{
    char *x = (char *)arr + t->size;
    const struct conv *cv = &t->cv;
    long long hi = t->size == 8 ? 0x5A00000000LL : 0;
    static const char *const opn[] = {"and", "or", "xor"};
    for (int pass = 0; pass < 2; pass++) {
        shmem_ctx_t c = pass ? SHMEM_CTX_DEFAULT : NULL;
        const char *cf = pass ? "(ctx) " : "";
        cell cv_, co_;
        void *v = &cv_, *out = &co_;
        char what[64];
        WT_PHASE("%sbitwise AMOs on shmem_%s, %s target", cf, t->name, where);
        guards_set(cv, arr, t->size);
        cv->from_ll(x, 0xF0F0 | hi);
        shmem_barrier_all();
        /* {op, mode, operand, expected fetched value (modes 1, 2)} */
        static const struct { int op, mode; long long v; long long fetched; } steps[] = {
            {B_AND, 1, 0xFF00, 0xF0F0},  /* -> F000 */
            {B_OR, 0, 0x000F, 0},        /* -> F00F */
            {B_OR, 1, 0x0300, 0xF00F},   /* -> F30F */
            {B_XOR, 0, 0xFFFF, 0},       /* -> 0CF0 */
            {B_XOR, 1, 0x0001, 0x0CF0},  /* -> 0CF1 */
            {B_AND, 0, 0x0C01, 0},       /* -> 0C01 */
            {B_AND, 2, 0x0401, 0x0C01},  /* -> 0401 */
            {B_OR, 2, 0x8000, 0x0401},   /* -> 8401 */
            {B_XOR, 2, 0x0400, 0x8401},  /* -> 8001 */
        };
        for (size_t s = 0; s < COUNT(steps); s++) {
            /* 64-bit types: the high bits ride along in steps 0-2 and the
             * xor of step 3 clears them */
            long long h = s < 3 ? hi : 0;
            long long operand = steps[s].v | (s <= 3 ? hi : 0);
            cv->from_ll(v, operand);
            t->bit(c, steps[s].op, steps[s].mode, x, v, out, right);
            if (steps[s].mode == 2)
                quiet(c);
            snprintf(what, sizeof what, "atomic_fetch_%s%s (step %zu)", opn[steps[s].op],
                     steps[s].mode == 2 ? "_nbi" : "", s);
            if (steps[s].mode)
                want_ll(cv, t->name, what, out, steps[s].fetched | h);
        }
        shmem_barrier_all();
        want_ll(cv, t->name, "(final value of the bitwise sequence, seen by the target)", x,
                0x8001);
        guards_check(cv, arr, t->size, t->name);
        shmem_barrier_all();
    }
}

int main(void)
{
    wt_init("amo_typed");
    me = wt_me;
    npes = wt_npes;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    void *heap = shmem_malloc(3 * 16);
    WT_CHECK(heap != NULL, "shmem_malloc");
    for (size_t i = 0; i < COUNT(std_types); i++) {
        where = "heap";
        run_std(&std_types[i], heap);
        where = ".bss";
        run_std(&std_types[i], std_types[i].bss);
    }
    for (size_t i = 0; i < COUNT(ext_types); i++) {
        where = "heap";
        run_ext(&ext_types[i], heap);
        where = ".bss";
        run_ext(&ext_types[i], ext_types[i].bss);
    }
    for (size_t i = 0; i < COUNT(bit_types); i++) {
        where = "heap";
        run_bit(&bit_types[i], heap);
        where = ".bss";
        run_bit(&bit_types[i], bit_types[i].bss);
    }
    shmem_free(heap);
    if (me == 0)
        printf("amo_typed: %zu standard, %zu extended, %zu bitwise types checked (WEFT_AMO=%s)\n",
               COUNT(std_types), COUNT(ext_types), COUNT(bit_types),
               getenv("WEFT_AMO") ? getenv("WEFT_AMO") : "(unset)");
    wt_finish();
    return 0;
}

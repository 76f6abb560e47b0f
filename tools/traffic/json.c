/* SPDX-License-Identifier: BSD-3-Clause */
/* json.c owns reading traffic reports back: a strict recursive-descent
 * JSON parser (RFC 8259; depth-limited) and the check of a report's shape,
 * which turns its sparse list of cells into dense arrays. */
#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TJ_MAX_DEPTH 64

struct tj_in {
    const char *s, *start;
    char *err;
    size_t errlen;
    int failed;
};

static void tj_fail(struct tj_in *in, const char *what)
{
    if (in->failed)
        return;
    int line = 1, col = 1;
    for (const char *p = in->start; p < in->s; p++) {
        if (*p == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(in->err, in->errlen, "line %d, column %d: %s", line, col, what);
    in->failed = 1;
}

static void tj_ws(struct tj_in *in)
{
    while (*in->s == ' ' || *in->s == '\t' || *in->s == '\n' || *in->s == '\r')
        in->s++;
}

static void tj_clear(struct tj *v)
{
    if (v->type == TJ_STRING)
        free(v->string);
    for (size_t i = 0; i < v->n; i++) {
        tj_clear(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

void tj_free(struct tj *v)
{
    if (!v)
        return;
    tj_clear(v);
    free(v);
}

static int tj_hex(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static char *tj_string(struct tj_in *in)
{
    /* in->s is at the opening quote. The result is never longer. */
    const char *p = ++in->s;
    size_t cap = 0;
    while (p[cap] && p[cap] != '"')
        cap += p[cap] == '\\' && p[cap + 1] ? 2 : 1;
    char *out = malloc(cap + 1), *o = out;
    if (!out) {
        tj_fail(in, "out of memory");
        return NULL;
    }
    for (;;) {
        unsigned char c = (unsigned char)*in->s;
        if (c == '"') {
            in->s++;
            break;
        }
        if (c == '\0') {
            tj_fail(in, "unterminated string");
            free(out);
            return NULL;
        }
        if (c < 0x20) {
            tj_fail(in, "control character in a string");
            free(out);
            return NULL;
        }
        if (c != '\\') {
            *o++ = (char)c;
            in->s++;
            continue;
        }
        char e = in->s[1];
        in->s += 2;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned u;
            if (tj_hex(in->s, &u) != 0) {
                tj_fail(in, "bad \\u escape");
                free(out);
                return NULL;
            }
            in->s += 4;
            /* The reports escape ASCII only; anything else becomes '?'
             * (surrogate pairs included), which the figures never need. */
            *o++ = u < 0x80 ? (char)u : '?';
            if (u >= 0xd800 && u < 0xdc00 && in->s[0] == '\\' && in->s[1] == 'u' &&
                tj_hex(in->s + 2, &u) == 0 && u >= 0xdc00 && u < 0xe000)
                in->s += 6;
            break;
        }
        default:
            in->s--;
            tj_fail(in, "bad escape in a string");
            free(out);
            return NULL;
        }
    }
    *o = '\0';
    return out;
}

static void tj_value(struct tj_in *in, struct tj *v, int depth);

static void tj_number(struct tj_in *in, struct tj *v)
{
    const char *p = in->s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return tj_fail(in, "unexpected character");
    int integer = 1;
    if (*p == '.') {
        integer = 0;
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return tj_fail(in, "digit expected after '.'");
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        integer = 0;
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return tj_fail(in, "digit expected in an exponent");
        while (*p >= '0' && *p <= '9')
            p++;
    }
    v->type = TJ_NUMBER;
    v->number = strtod(in->s, NULL);
    if (integer && in->s[0] != '-') {
        errno = 0;
        unsigned long long u = strtoull(in->s, NULL, 10);
        if (errno == 0) {
            v->uint = u;
            v->is_uint = 1;
        }
    }
    in->s = p;
}

static void tj_push(struct tj_in *in, struct tj *v, size_t *cap, int object)
{
    if (v->n < *cap)
        return;
    size_t c = *cap ? 2 * *cap : 8;
    struct tj *items = realloc(v->items, c * sizeof *items);
    if (items)
        v->items = items;
    char **keys = object ? realloc(v->keys, c * sizeof *keys) : NULL;
    if (keys)
        v->keys = keys;
    if (!items || (object && !keys))
        return tj_fail(in, "out of memory");
    *cap = c;
}

static void tj_compound(struct tj_in *in, struct tj *v, int depth, int object)
{
    char close = object ? '}' : ']';
    v->type = object ? TJ_OBJECT : TJ_ARRAY;
    in->s++;
    tj_ws(in);
    if (*in->s == close) {
        in->s++;
        return;
    }
    size_t cap = 0;
    for (;;) {
        tj_push(in, v, &cap, object);
        if (in->failed)
            return;
        struct tj *item = &v->items[v->n];
        memset(item, 0, sizeof *item);
        if (object) {
            v->keys[v->n] = NULL;
            tj_ws(in);
            if (*in->s != '"')
                return tj_fail(in, "member name expected");
            v->keys[v->n] = tj_string(in);
            v->n++; /* counted at once, so that an error frees it */
            if (in->failed)
                return;
            tj_ws(in);
            if (*in->s != ':')
                return tj_fail(in, "':' expected");
            in->s++;
        } else {
            v->n++;
        }
        tj_value(in, item, depth + 1);
        if (in->failed)
            return;
        tj_ws(in);
        if (*in->s == ',') {
            in->s++;
            continue;
        }
        if (*in->s == close) {
            in->s++;
            return;
        }
        return tj_fail(in, object ? "',' or '}' expected" : "',' or ']' expected");
    }
}

static void tj_value(struct tj_in *in, struct tj *v, int depth)
{
    if (depth > TJ_MAX_DEPTH)
        return tj_fail(in, "nested too deeply");
    tj_ws(in);
    switch (*in->s) {
    case '{': return tj_compound(in, v, depth, 1);
    case '[': return tj_compound(in, v, depth, 0);
    case '"':
        v->string = tj_string(in);
        if (v->string)
            v->type = TJ_STRING;
        return;
    case 't':
    case 'f':
    case 'n': {
        static const char *const words[] = {"true", "false", "null"};
        for (int i = 0; i < 3; i++) {
            size_t l = strlen(words[i]);
            if (strncmp(in->s, words[i], l) == 0) {
                in->s += l;
                v->type = i == 2 ? TJ_NULL : TJ_BOOL;
                v->boolean = i == 0;
                return;
            }
        }
        return tj_fail(in, "unexpected word");
    }
    case '\0': return tj_fail(in, "unexpected end of input");
    default: return tj_number(in, v);
    }
}

struct tj *tj_parse(const char *text, char *err, size_t errlen)
{
    struct tj_in in = {text, text, err, errlen, 0};
    struct tj *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    tj_value(&in, v, 0);
    tj_ws(&in);
    if (!in.failed && *in.s)
        tj_fail(&in, "text after the end of the document");
    if (in.failed) {
        tj_free(v);
        return NULL;
    }
    return v;
}

const struct tj *tj_member(const struct tj *object, const char *key)
{
    if (!object || object->type != TJ_OBJECT)
        return NULL;
    for (size_t i = 0; i < object->n; i++)
        if (strcmp(object->keys[i], key) == 0)
            return &object->items[i];
    return NULL;
}

/* ---- the report ------------------------------------------------------------- */

struct tr_check {
    char *err;
    size_t errlen;
    int failed;
};

static void tr_bad(struct tr_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tr_bad(struct tr_check *c, const char *fmt, ...)
{
    if (c->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    c->failed = 1;
}

static const struct tj *tr_need(struct tr_check *c, const struct tj *o, const char *key,
                                enum tj_type type, const char *where)
{
    const struct tj *v = tj_member(o, key);
    if (!v || v->type != type) {
        tr_bad(c, "%s: \"%s\" missing or not %s", where, key,
               type == TJ_ARRAY ? "an array" : type == TJ_STRING ? "a string" : "a number");
        return NULL;
    }
    return v;
}

static uint64_t tr_uint(struct tr_check *c, const struct tj *v, const char *what)
{
    if (!v || v->type != TJ_NUMBER || !v->is_uint) {
        tr_bad(c, "%s is not a non-negative integer", what);
        return 0;
    }
    return v->uint;
}

static char **tr_names(struct tr_check *c, const struct tj *a, const char *what)
{
    char **out = calloc(a->n + 1, sizeof *out);
    if (!out) {
        tr_bad(c, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->items[i].type != TJ_STRING) {
            tr_bad(c, "%s[%zu] is not a string", what, i);
            break;
        }
        out[i] = strdup(a->items[i].string);
    }
    return out;
}

/* v must be an array of exactly n integers: copied to out. */
static void tr_uints(struct tr_check *c, const struct tj *v, size_t n, uint64_t *out,
                     const char *what)
{
    if (!v || v->type != TJ_ARRAY || v->n != n) {
        tr_bad(c, "%s is not an array of %zu numbers", what, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = tr_uint(c, &v->items[i], what);
}

static char *tr_slurp(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - 1 - len, f);
        if (len < cap - 1)
            break;
        char *b = realloc(buf, cap * 2);
        if (!b) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        snprintf(err, errlen, "cannot read %s", path);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        snprintf(err, errlen, "%s: not a text file (NUL byte)", path);
        free(buf);
        return NULL;
    }
    return buf;
}

/* The per-PE records of a report ("pes") into d, whose arrays are sized. */
static void tr_load_pes(struct tr_check *c, struct tr_data *d, const struct tj *pes, uint64_t n)
{
    for (size_t i = 0; i < n && !c->failed; i++) {
        const struct tj *p = &pes->items[i];
        char where[64];
        snprintf(where, sizeof where, "pes[%zu]", i);
        if (tr_uint(c, tj_member(p, "pe"), where) != i) {
            tr_bad(c, "%s: \"pe\" is not %zu", where, i);
            break;
        }
        const struct tj *host = tr_need(c, p, "host", TJ_STRING, where);
        if (host)
            d->hosts[i] = strdup(host->string);
        d->elapsed_ns[i] = tr_uint(c, tj_member(p, "elapsed_ns"), where);
        tr_uints(c, tj_member(p, "calls"), (size_t)d->nkinds, &d->calls[i * (size_t)d->nkinds],
                 where);
        tr_uints(c, tj_member(p, "wait_ns"), (size_t)d->nwaits,
                 &d->wait_ns[i * (size_t)d->nwaits], where);
        tr_uints(c, tj_member(p, "wait_calls"), (size_t)d->nwaits,
                 &d->wait_calls[i * (size_t)d->nwaits], where);
    }
}

/* The per-pair counts of a report ("cells") into d: each pair at most once. */
static void tr_load_cells(struct tr_check *c, struct tr_data *d, const struct tj *cells,
                          uint64_t n)
{
    for (size_t i = 0; i < cells->n && !c->failed; i++) {
        const struct tj *cell = &cells->items[i];
        char where[64];
        snprintf(where, sizeof where, "cells[%zu]", i);
        uint64_t from = tr_uint(c, tj_member(cell, "from"), where);
        uint64_t to = tr_uint(c, tj_member(cell, "to"), where);
        if (c->failed || from >= n || to >= n) {
            tr_bad(c, "%s: \"from\" or \"to\" is not a PE of the job", where);
            break;
        }
        size_t at = ((size_t)from * (size_t)n + (size_t)to) * (size_t)d->nkinds;
        for (int k = 0; k < d->nkinds; k++) {
            if (d->ops[at + (size_t)k] || d->bytes[at + (size_t)k]) {
                tr_bad(c, "%s: the pair %llu -> %llu is listed twice", where,
                       (unsigned long long)from, (unsigned long long)to);
                break;
            }
        }
        tr_uints(c, tj_member(cell, "ops"), (size_t)d->nkinds, &d->ops[at], where);
        tr_uints(c, tj_member(cell, "bytes"), (size_t)d->nkinds, &d->bytes[at], where);
    }
}

int tr_data_load(const char *path, struct tr_data *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    char *text = tr_slurp(path, err, errlen);
    if (!text)
        return -1;
    char perr[200];
    struct tj *doc = tj_parse(text, perr, sizeof perr);
    free(text);
    if (!doc) {
        snprintf(err, errlen, "%s: not valid JSON: %s", path, perr);
        return -1;
    }
    struct tr_check c = {err, errlen, 0};
    const struct tj *format = tj_member(doc, "format");
    if (!format || format->type != TJ_STRING || strcmp(format->string, "weft-traffic") != 0) {
        tr_bad(&c, "%s is not a weft traffic report (no \"format\": \"weft-traffic\")", path);
        goto out;
    }
    const struct tj *version = tj_member(doc, "version");
    if (!version || version->type != TJ_NUMBER || version->number != 1) {
        tr_bad(&c, "%s: report format version %g; this weft-info reads version 1", path,
               version && version->type == TJ_NUMBER ? version->number : 0.0);
        goto out;
    }
    const struct tj *npes = tr_need(&c, doc, "npes", TJ_NUMBER, path);
    const struct tj *kinds = tr_need(&c, doc, "kinds", TJ_ARRAY, path);
    const struct tj *waits = tr_need(&c, doc, "wait_kinds", TJ_ARRAY, path);
    const struct tj *pes = tr_need(&c, doc, "pes", TJ_ARRAY, path);
    const struct tj *cells = tr_need(&c, doc, "cells", TJ_ARRAY, path);
    const struct tj *program = tr_need(&c, doc, "program", TJ_STRING, path);
    const struct tj *created = tr_need(&c, doc, "created", TJ_STRING, path);
    if (c.failed)
        goto out;
    uint64_t n = tr_uint(&c, npes, "npes");
    if (c.failed || n < 1 || n > 1000000 || pes->n != n || kinds->n < 1 || waits->n < 1) {
        tr_bad(&c, "%s: npes, pes, kinds or wait_kinds do not fit together", path);
        goto out;
    }
    d->npes = (int)n;
    d->nkinds = (int)kinds->n;
    d->nwaits = (int)waits->n;
    d->program = strdup(program->string);
    d->created = strdup(created->string);
    d->kinds = tr_names(&c, kinds, "kinds");
    d->wait_kinds = tr_names(&c, waits, "wait_kinds");
    size_t nn = (size_t)n * (size_t)n * (size_t)d->nkinds;
    d->ops = calloc(nn, sizeof *d->ops);
    d->bytes = calloc(nn, sizeof *d->bytes);
    d->calls = calloc((size_t)n * (size_t)d->nkinds, sizeof *d->calls);
    d->wait_ns = calloc((size_t)n * (size_t)d->nwaits, sizeof *d->wait_ns);
    d->wait_calls = calloc((size_t)n * (size_t)d->nwaits, sizeof *d->wait_calls);
    d->elapsed_ns = calloc((size_t)n, sizeof *d->elapsed_ns);
    d->hosts = calloc((size_t)n + 1, sizeof *d->hosts);
    if (!d->program || !d->created || !d->ops || !d->bytes || !d->calls || !d->wait_ns ||
        !d->wait_calls || !d->elapsed_ns || !d->hosts) {
        tr_bad(&c, "out of memory");
        goto out;
    }
    tr_load_pes(&c, d, pes, n);
    if (!c.failed)
        tr_load_cells(&c, d, cells, n);
out:
    tj_free(doc);
    if (c.failed) {
        tr_data_free(d);
        return -1;
    }
    return 0;
}

static void tr_free_names(char **names)
{
    for (size_t i = 0; names && names[i]; i++)
        free(names[i]);
    free(names);
}

void tr_data_free(struct tr_data *d)
{
    tr_free_names(d->kinds);
    tr_free_names(d->wait_kinds);
    if (d->hosts)
        for (int i = 0; i < d->npes; i++)
            free(d->hosts[i]);
    free(d->hosts);
    free(d->program);
    free(d->created);
    free(d->ops);
    free(d->bytes);
    free(d->calls);
    free(d->wait_ns);
    free(d->wait_calls);
    free(d->elapsed_ns);
    memset(d, 0, sizeof *d);
}

int tr_data_kind(const struct tr_data *d, const char *name)
{
    for (int k = 0; k < d->nkinds; k++)
        if (strcmp(d->kinds[k], name) == 0)
            return k;
    return -1;
}

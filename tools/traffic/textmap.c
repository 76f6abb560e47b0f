/* SPDX-License-Identifier: BSD-3-Clause */
/* textmap.c owns weft-info --traffic: a traffic report's JSON printed for a
 * terminal as a compact heat map of bytes and of operations (one shade per
 * pair, PEs grouped when there are more than fit), the figures per PE
 * (exact bytes and operations sent, by kind, and time waiting) and the
 * busiest pairs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define TM_MAX_COLS 64 /* heat map columns before PEs are grouped */
#define TM_MAX_ROWS 64 /* rows of the per-PE table */

static const char tm_shades[] = ":-=+*#%@"; /* increasing; '.' is zero */
#define TM_LEVELS ((int)sizeof tm_shades - 1)
/* 256-colour backgrounds for the same levels (yellow-green-blue). */
static const int tm_colors[TM_LEVELS] = {230, 193, 151, 116, 74, 67, 25, 18};

static void tm_size(char *out, size_t len, double v, int binary)
{
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    static const char *const dec[] = {"", "k", "M", "G", "T", "P"};
    int i = 0;
    double base = binary ? 1024 : 1000;
    while (v >= base && i < 5) {
        v /= base;
        i++;
    }
    const char *u = binary ? bin[i] : dec[i];
    if (i == 0)
        snprintf(out, len, "%.0f%s%s", v, binary ? " " : "", u);
    else
        snprintf(out, len, "%.*f %s", v >= 100 ? 0 : v >= 10 ? 1 : 2, v, u);
}

static void tm_secs(char *out, size_t len, uint64_t ns)
{
    double s = (double)ns / 1e9;
    if (s >= 1)
        snprintf(out, len, "%.2f s", s);
    else if (s >= 1e-3)
        snprintf(out, len, "%.1f ms", s * 1e3);
    else
        snprintf(out, len, "%.0f us", s * 1e6);
}

static uint64_t tm_pair(const struct tr_data *d, const uint64_t *m, int from, int to)
{
    uint64_t s = 0;
    const uint64_t *c = &m[((size_t)from * (size_t)d->npes + (size_t)to) * (size_t)d->nkinds];
    for (int k = 0; k < d->nkinds; k++)
        s += c[k];
    return s;
}

static void tm_map(const struct tr_data *d, const uint64_t *m, const char *title, int binary,
                   FILE *out, int color)
{
    int n = d->npes, group = (n + TM_MAX_COLS - 1) / TM_MAX_COLS, g = (n + group - 1) / group;
    uint64_t *v = calloc((size_t)g * (size_t)g, sizeof *v), max = 0;
    if (!v)
        return;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            v[(size_t)(a / group) * (size_t)g + (size_t)(b / group)] += tm_pair(d, m, a, b);
    for (size_t i = 0; i < (size_t)g * (size_t)g; i++)
        max = v[i] > max ? v[i] : max;
    char lbl[32];
    fprintf(out, "%s (row: from PE, column: to PE", title);
    if (group > 1)
        fprintf(out, "; a cell is %d x %d PEs", group, group);
    fprintf(out, ")\n");
    int w = snprintf(lbl, sizeof lbl, "%d", n - 1);
    /* Column numbers over their cells (two characters each), as many as
     * fit without touching: every one for up to 10 columns, else every 5th. */
    char *head = malloc((size_t)g * 2 + 16);
    if (head) {
        memset(head, ' ', (size_t)g * 2 + 15);
        head[(size_t)g * 2 + 15] = '\0';
        int every = g <= 10 ? 1 : 5;
        for (int b = 0; b < g; b += every) {
            int len = snprintf(lbl, sizeof lbl, "%d", b * group);
            memcpy(head + 2 * b, lbl, (size_t)len);
        }
        size_t end = strlen(head);
        while (end && head[end - 1] == ' ')
            head[--end] = '\0';
        fprintf(out, "%*s  %s\n", w, "", head);
        free(head);
    }
    for (int a = 0; a < g; a++) {
        uint64_t row = 0;
        fprintf(out, "%*d  ", w, a * group);
        for (int b = 0; b < g; b++) {
            uint64_t x = v[(size_t)a * (size_t)g + (size_t)b];
            row += x;
            int level = -1;
            if (x && max) {
                /* Log scale, like the page: a few bytes still show. */
                double t = log1p((double)x) / log1p((double)max);
                level = (int)(t * TM_LEVELS);
                level = level >= TM_LEVELS ? TM_LEVELS - 1 : level;
            }
            if (color && level >= 0)
                fprintf(out, "\033[48;5;%dm  \033[0m", tm_colors[level]);
            else if (color)
                fprintf(out, "\033[2m. \033[0m");
            else
                fprintf(out, "%c%c", level < 0 ? '.' : tm_shades[level],
                        level < 0 ? ' ' : tm_shades[level]);
        }
        tm_size(lbl, sizeof lbl, (double)row, binary);
        fprintf(out, "  %s\n", lbl);
    }
    tm_size(lbl, sizeof lbl, (double)max, binary);
    if (color)
        fprintf(out, "%*s  light: little, dark: most (%s in a cell), '.': none\n", w, "", lbl);
    else
        fprintf(out, "%*s  shade %s: little to most (%s in a cell, log scale), '.': none\n", w, "",
                tm_shades, lbl);
    free(v);
}

struct tm_top {
    uint64_t bytes, ops;
    int from, to;
};

static int tm_top_cmp(const void *x, const void *y)
{
    const struct tm_top *a = x, *b = y;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? 1 : -1;
    if (a->ops != b->ops)
        return a->ops < b->ops ? 1 : -1;
    return a->from != b->from ? a->from - b->from : a->to - b->to;
}

int tr_print_text(const char *path, FILE *out, int color)
{
    struct tr_data d;
    char err[512];
    if (tr_data_load(path, &d, err, sizeof err) != 0) {
        fprintf(stderr, "weft-info: %s\n", err);
        return 1;
    }
    int n = d.npes, K = d.nkinds;
    uint64_t longest = 0;
    for (int i = 0; i < n; i++)
        longest = d.elapsed_ns[i] > longest ? d.elapsed_ns[i] : longest;
    char t[32];
    tm_secs(t, sizeof t, longest);
    fprintf(out, "weft traffic report: %s\n%d PE%s on %s, %s, longest PE %s\n\n", d.program, n,
            n == 1 ? "" : "s", d.hosts[0] ? d.hosts[0] : "?", d.created, t);
    tm_map(&d, d.bytes, "Bytes sent", 1, out, color);
    fprintf(out, "\n");
    tm_map(&d, d.ops, "Operations", 0, out, color);

    /* Per PE: exact figures. */
    fprintf(out, "\nPer PE: bytes and operations sent, bytes by kind, time waiting\n");
    fprintf(out, "%6s %14s %10s", "PE", "bytes", "ops");
    for (int k = 0; k < K; k++)
        fprintf(out, " %10.10s", d.kinds[k]);
    fprintf(out, "  %s\n", "waiting");
    for (int pe = 0; pe < n && pe < TM_MAX_ROWS; pe++) {
        uint64_t b = 0, o = 0, w = 0;
        for (int to = 0; to < n; to++) {
            b += tm_pair(&d, d.bytes, pe, to);
            o += tm_pair(&d, d.ops, pe, to);
        }
        fprintf(out, "%6d %14llu %10llu", pe, (unsigned long long)b, (unsigned long long)o);
        for (int k = 0; k < K; k++) {
            uint64_t kb = 0;
            for (int to = 0; to < n; to++)
                kb += d.bytes[((size_t)pe * (size_t)n + (size_t)to) * (size_t)K + (size_t)k];
            tm_size(t, sizeof t, (double)kb, 1);
            fprintf(out, " %10s", kb ? t : "-");
        }
        for (int x = 0; x < d.nwaits; x++)
            w += d.wait_ns[(size_t)pe * (size_t)d.nwaits + (size_t)x];
        tm_secs(t, sizeof t, w);
        fprintf(out, "  %s", t);
        if (d.elapsed_ns[pe])
            fprintf(out, " (%.0f%%)", 100.0 * (double)w / (double)d.elapsed_ns[pe]);
        fprintf(out, "\n");
    }
    if (n > TM_MAX_ROWS)
        fprintf(out, "%6s (%d more PEs in the report)\n", "...", n - TM_MAX_ROWS);

    /* The busiest pairs. */
    size_t np = 0;
    struct tm_top *top = malloc((size_t)n * (size_t)n * sizeof *top);
    for (int a = 0; top && a < n; a++)
        for (int b = 0; b < n; b++) {
            uint64_t bytes = tm_pair(&d, d.bytes, a, b), ops = tm_pair(&d, d.ops, a, b);
            if (bytes || ops)
                top[np++] = (struct tm_top){bytes, ops, a, b};
        }
    if (top && np) {
        qsort(top, np, sizeof *top, tm_top_cmp);
        fprintf(out, "\nTop pairs by bytes\n");
        for (size_t i = 0; i < np && i < 5; i++) {
            tm_size(t, sizeof t, (double)top[i].bytes, 1);
            fprintf(out, "  PE %d -> PE %d  %s in %llu ops\n", top[i].from, top[i].to, t,
                    (unsigned long long)top[i].ops);
        }
    } else if (top) {
        fprintf(out, "\nNo communication was recorded.\n");
    }
    free(top);
    tr_data_free(&d);
    return 0;
}

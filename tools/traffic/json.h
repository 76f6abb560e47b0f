/* SPDX-License-Identifier: BSD-3-Clause */
/* json.h: reading a traffic report's JSON back (weft-info --traffic, the
 * tests): a small strict JSON parser, and the report's figures as dense
 * arrays. The format is written by report.c and described in
 * docs/traffic.md. */
#ifndef WEFT_TRAFFIC_JSON_H
#define WEFT_TRAFFIC_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum tj_type { TJ_NULL, TJ_BOOL, TJ_NUMBER, TJ_STRING, TJ_ARRAY, TJ_OBJECT };

struct tj {
    enum tj_type type;
    int boolean;
    double number;
    uint64_t uint;   /* the number, exactly, when is_uint */
    int is_uint;     /* a non-negative integer that fits 64 bits */
    char *string;    /* TJ_STRING */
    size_t n;        /* elements of an array or members of an object */
    struct tj *items;
    char **keys;     /* TJ_OBJECT: the member names */
};

/* Parses text; NULL with a message (line:column) in err on error. */
struct tj *tj_parse(const char *text, char *err, size_t errlen);
const struct tj *tj_member(const struct tj *object, const char *key);
void tj_free(struct tj *v);

/* A traffic report. Index [from * npes + to] * nkinds + kind for cells,
 * pe * nkinds + kind for calls, pe * nwaits + wait for waits. */
struct tr_data {
    int npes, nkinds, nwaits;
    char **kinds, **wait_kinds;
    char *program, *created;
    uint64_t *ops, *bytes, *calls;
    uint64_t *wait_ns, *wait_calls, *elapsed_ns;
    char **hosts;
};

/* Reads and checks a report; 0, or -1 with a message in err. */
int tr_data_load(const char *path, struct tr_data *d, char *err, size_t errlen);
void tr_data_free(struct tr_data *d);
/* Index of a kind by name, or -1. */
int tr_data_kind(const struct tr_data *d, const char *name);

/* weft-info --traffic: the report as a compact text heat map. */
int tr_print_text(const char *path, FILE *out, int color);

#endif

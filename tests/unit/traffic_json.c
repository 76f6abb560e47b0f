/* SPDX-License-Identifier: BSD-3-Clause */
/* traffic_json.c (unit) checks the reader of traffic reports
 * (tools/traffic/json.c): the JSON parser on valid and invalid documents
 * (RFC 8259: numbers, escapes, nesting, where an error is reported), and
 * the report check that turns the sparse list of cells into dense arrays
 * and refuses reports whose parts do not fit together. */
#include "unit.h"

#include "json.h"

static struct tj *parse(const char *text)
{
    char err[200];
    struct tj *v = tj_parse(text, err, sizeof err);
    UT_CHECK(v != NULL, "tj_parse(%s): %s", text, err);
    return v;
}

/* text must be refused with a message containing want. */
static void refuse(const char *text, const char *want)
{
    char err[200] = "";
    struct tj *v = tj_parse(text, err, sizeof err);
    UT_CHECK(v == NULL && strstr(err, want), "tj_parse(%s): %s, expected an error \"%s\"", text,
             v ? "accepted" : err, want);
    tj_free(v);
}

static void number(const char *text, double want, int is_uint, uint64_t uint)
{
    struct tj *v = parse(text);
    if (!v)
        return;
    UT_CHECK(v->type == TJ_NUMBER && v->number == want && v->is_uint == is_uint &&
                 (!is_uint || v->uint == uint),
             "%s: type %d number %g is_uint %d uint %llu", text, (int)v->type, v->number,
             v->is_uint, (unsigned long long)v->uint);
    tj_free(v);
}

static void string(const char *text, const char *want)
{
    struct tj *v = parse(text);
    if (!v)
        return;
    UT_CHECK(v->type == TJ_STRING, "%s is a string", text);
    if (v->type == TJ_STRING)
        UT_STREQ(v->string, want);
    tj_free(v);
}

static char dir[] = "/tmp/weft-unit-json-XXXXXX";

/* Loads text as a report file; returns tr_data_load's result, its message
 * in err. */
static int load(const char *text, struct tr_data *d, char *err, size_t errlen)
{
    char path[64];
    snprintf(path, sizeof path, "%s/report.json", dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
    int rc = tr_data_load(path, d, err, errlen);
    unlink(path);
    return rc;
}

#define REPORT_HEAD                                                                         \
    "{\"format\": \"weft-traffic\", \"version\": 1, \"weft\": \"x\", \"program\": \"prog\", " \
    "\"created\": \"2026-01-01T00:00:00Z\", \"kinds\": [\"put\", \"get\"], "                \
    "\"wait_kinds\": [\"barrier\"], "

#define REPORT_PES                                                                          \
    "\"pes\": [{\"pe\": 0, \"host\": \"a\", \"elapsed_ns\": 5, \"calls\": [1, 2], "         \
    "\"wait_ns\": [3], \"wait_calls\": [4]}, "                                              \
    "{\"pe\": 1, \"host\": \"b\", \"elapsed_ns\": 6, \"calls\": [7, 8], "                   \
    "\"wait_ns\": [9], \"wait_calls\": [10]}], "

static void refuse_report(const char *text, const char *want)
{
    struct tr_data d;
    char err[300] = "";
    int rc = load(text, &d, err, sizeof err);
    UT_CHECK(rc != 0 && strstr(err, want), "report refused with \"%s\": rc %d, \"%s\"", want, rc,
             err);
    if (rc == 0)
        tr_data_free(&d);
}

int main(void)
{
    /* Values of every type, members found by name. */
    struct tj *v = parse(" {\"a\": [1, 2.5, -3, true, false, null, \"s\", {}, []], \"b\": {\"c\": 0}}\n");
    if (v) {
        const struct tj *a = tj_member(v, "a"), *b = tj_member(v, "b");
        UT_CHECK(a && a->type == TJ_ARRAY && a->n == 9, "a is an array of 9");
        if (a && a->n == 9) {
            UT_CHECK(a->items[0].is_uint && a->items[0].uint == 1, "1");
            UT_CHECK(a->items[1].number == 2.5 && !a->items[1].is_uint, "2.5");
            UT_CHECK(a->items[2].number == -3 && !a->items[2].is_uint, "-3");
            UT_CHECK(a->items[3].type == TJ_BOOL && a->items[3].boolean, "true");
            UT_CHECK(a->items[4].type == TJ_BOOL && !a->items[4].boolean, "false");
            UT_EQ(a->items[5].type, TJ_NULL);
            UT_EQ(a->items[6].type, TJ_STRING);
            UT_CHECK(a->items[7].type == TJ_OBJECT && a->items[7].n == 0, "{}");
            UT_CHECK(a->items[8].type == TJ_ARRAY && a->items[8].n == 0, "[]");
        }
        UT_CHECK(b && tj_member(b, "c") && tj_member(b, "c")->is_uint, "b.c");
        UT_CHECK(tj_member(v, "missing") == NULL, "no such member");
        UT_CHECK(tj_member(a, "0") == NULL, "an array has no members");
        tj_free(v);
    }

    /* Numbers: 64-bit counts exactly, the rest as doubles. */
    number("0", 0, 1, 0);
    number("-0", 0, 0, 0);
    number("18446744073709551615", 18446744073709551615.0, 1, UINT64_MAX);
    number("9007199254740993", 9007199254740993.0, 1, 9007199254740993ull);
    number("18446744073709551616", 18446744073709551616.0, 0, 0);
    number("1e3", 1000, 0, 0);
    number("1.5E-1", 0.15, 0, 0);
    refuse("01", "text after the end");
    refuse("1.", "digit expected after '.'");
    refuse(".5", "unexpected character");
    refuse("1e", "digit expected in an exponent");
    refuse("-", "unexpected character");
    refuse("+1", "unexpected character");

    /* Strings: the escapes, \u for ASCII, '?' for the rest. */
    string("\"plain\"", "plain");
    string("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\"", "q\" b\\ s/ \b\f\n\r\t");
    string("\"\\u0041\\u007a\"", "Az");
    string("\"\\u00e9\"", "?");
    string("\"\\ud83d\\ude00!\"", "?!");
    refuse("\"open", "unterminated string");
    refuse("\"a\\x\"", "bad escape");
    refuse("\"\\u12G4\"", "bad \\u escape");
    refuse("\"tab\there\"", "control character");

    /* Structure, and where an error is. */
    refuse("", "unexpected end of input");
    refuse("[1, 2", "',' or ']' expected");
    refuse("[1,]", "unexpected character");
    refuse("{\"a\" 1}", "':' expected");
    refuse("{1: 2}", "member name expected");
    refuse("{\"a\": 1,}", "member name expected");
    refuse("{\"a\": 1} x", "text after the end");
    refuse("nul", "unexpected word");
    refuse("[1,\n  2,\n  x]", "line 3, column 3");
    char deep[200];
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    deep[130] = '\0';
    v = parse(deep); /* 65 levels: the limit */
    tj_free(v);
    memset(deep, '[', 66);
    memset(deep + 66, ']', 66);
    deep[132] = '\0';
    refuse(deep, "nested too deeply");

    /* Reports. */
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    struct tr_data d;
    char err[300];
    int rc = load(REPORT_HEAD "\"npes\": 2, " REPORT_PES
                  "\"cells\": [{\"from\": 0, \"to\": 1, \"ops\": [2, 3], \"bytes\": [16, 24]}, "
                  "{\"from\": 1, \"to\": 1, \"ops\": [0, 1], \"bytes\": [0, 8]}]}",
                  &d, err, sizeof err);
    UT_CHECK(rc == 0, "a valid report: %s", err);
    if (rc == 0) {
        UT_EQ(d.npes, 2);
        UT_EQ(d.nkinds, 2);
        UT_EQ(d.nwaits, 1);
        UT_STREQ(d.program, "prog");
        UT_STREQ(d.hosts[1], "b");
        UT_EQ(tr_data_kind(&d, "get"), 1);
        UT_EQ(tr_data_kind(&d, "amo"), -1);
        /* [from * npes + to] * nkinds + kind; absent pairs are zero. */
        uint64_t want_ops[8] = {0, 0, 2, 3, 0, 0, 0, 1}, want_bytes[8] = {0, 0, 16, 24, 0, 0, 0, 8};
        for (int i = 0; i < 8; i++) {
            UT_EQ(d.ops[i], want_ops[i]);
            UT_EQ(d.bytes[i], want_bytes[i]);
        }
        uint64_t calls[4] = {1, 2, 7, 8};
        for (int i = 0; i < 4; i++)
            UT_EQ(d.calls[i], calls[i]);
        UT_EQ(d.wait_ns[1], 9);
        UT_EQ(d.wait_calls[0], 4);
        UT_EQ(d.elapsed_ns[1], 6);
        tr_data_free(&d);
    }
    refuse_report("[1, 2", "not valid JSON: line 1, column 6");
    refuse_report("{\"format\": \"other\"}", "not a weft traffic report");
    refuse_report("{\"format\": \"weft-traffic\", \"version\": 2}", "format version 2");
    refuse_report(REPORT_HEAD "\"npes\": 2, " REPORT_PES "\"cell\": []}",
                  "\"cells\" missing or not an array");
    refuse_report(REPORT_HEAD "\"npes\": 3, " REPORT_PES "\"cells\": []}", "do not fit together");
    refuse_report(REPORT_HEAD "\"npes\": 2, " REPORT_PES
                  "\"cells\": [{\"from\": 0, \"to\": 2, \"ops\": [1, 1], \"bytes\": [1, 1]}]}",
                  "not a PE of the job");
    refuse_report(REPORT_HEAD "\"npes\": 2, " REPORT_PES
                  "\"cells\": [{\"from\": 0, \"to\": 1, \"ops\": [1, 1], \"bytes\": [1, 1]}, "
                  "{\"from\": 0, \"to\": 1, \"ops\": [1, 1], \"bytes\": [1, 1]}]}",
                  "listed twice");
    refuse_report(REPORT_HEAD "\"npes\": 2, " REPORT_PES
                  "\"cells\": [{\"from\": 0, \"to\": 1, \"ops\": [1], \"bytes\": [1, 1]}]}",
                  "cells[0]");
    refuse_report(REPORT_HEAD "\"npes\": 2, " REPORT_PES
                  "\"cells\": [{\"from\": 0, \"to\": 1, \"ops\": [1, -1], \"bytes\": [1, 1]}]}",
                  "cells[0]");
    rmdir(dir);
    return ut_done("unit.traffic_json");
}

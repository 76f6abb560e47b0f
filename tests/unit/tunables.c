/* SPDX-License-Identifier: BSD-3-Clause */
/* tunables.c (unit) checks the reading of environment variables
 * (src/core/tunables.c) against the rules docs/tunables.md states: sizes
 * with binary suffixes, integers in base 10 within their ranges, booleans
 * and the specification's switches, older names and which name wins, and
 * that a bad value ends the process with a message naming the variable. */
#include "unit.h"

#include "core/runtime.h"

static void clear_environment(void)
{
    for (int t = 0; t < WEFT_TUN_COUNT; t++)
        unsetenv(weft_tunables[t].name);
    const char *old;
    for (size_t a = 0; (old = weft_tun_alias(a, NULL)) != NULL; a++)
        unsetenv(old);
    unsetenv("PMI_RANK");
}

static void check_size(const char *text, long long want)
{
    size_t got = 0;
    int rc = weft_parse_size(text, &got);
    if (want < 0)
        UT_CHECK(rc != 0, "weft_parse_size(\"%s\") accepted it as %zu", text, got);
    else
        UT_CHECK(rc == 0 && got == (size_t)want, "weft_parse_size(\"%s\"): rc %d, %zu, expected %lld",
                 text, rc, got, want);
}

/* Readers run in a child by ut_fatal; the value goes nowhere. */
static volatile long long sink;
static void read_int(void *id)
{
    fprintf(stderr, "=%lld", weft_tun_int(*(enum weft_tunable_id *)id));
}
static void read_size(void *id) { sink = (long long)weft_tun_size(*(enum weft_tunable_id *)id); }
static void read_bool(void *id) { sink = weft_tun_bool(*(enum weft_tunable_id *)id); }
static void read_str(void *id) { sink = weft_tun_str(*(enum weft_tunable_id *)id)[0]; }
static void check_ints(void *unused)
{
    (void)unused;
    weft_tun_check_ints();
}

/* name=text makes weft_tun_int(id) return want (when fatal is NULL) or end
 * the process with status 1 and a message containing fatal. Read in a
 * child either way, so a value wrongly refused fails one check. */
static void check_int(enum weft_tunable_id id, const char *text, long long want, const char *fatal)
{
    const char *name = weft_tunables[id].name;
    setenv(name, text, 1);
    char msg[512];
    int status = ut_fatal(read_int, &id, msg, sizeof msg);
    if (!fatal) {
        char *end;
        long long got = msg[0] == '=' ? strtoll(msg + 1, &end, 10) : 0;
        UT_CHECK(status == -1 && msg[0] == '=' && got == want,
                 "%s=\"%s\" reads as \"%s\", expected =%lld", name, text, msg, want);
    } else {
        UT_CHECK(status == 1 && strstr(msg, name) && strstr(msg, fatal),
                 "%s=\"%s\": status %d, message \"%s\", expected status 1 and \"%s\"", name, text,
                 status, msg, fatal);
    }
    unsetenv(name);
}

static void check_bool(enum weft_tunable_id id, const char *text, int want)
{
    const char *name = weft_tunables[id].name;
    setenv(name, text, 1);
    if (want >= 0) {
        UT_CHECK(weft_tun_bool(id) == want, "%s=\"%s\" reads as %d, expected %d", name, text,
                 weft_tun_bool(id), want);
    } else {
        char msg[512];
        int status = ut_fatal(read_bool, &id, msg, sizeof msg);
        UT_CHECK(status == 1 && strstr(msg, name) && strstr(msg, "not a boolean"),
                 "%s=\"%s\": status %d, message \"%s\"", name, text, status, msg);
    }
    unsetenv(name);
}

static enum weft_tunable_id find(const char *name)
{
    for (int t = 0; t < WEFT_TUN_COUNT; t++)
        if (!strcmp(weft_tunables[t].name, name))
            return (enum weft_tunable_id)t;
    fprintf(stderr, "FAIL: no tunable %s\n", name);
    exit(1);
}

int main(void)
{
    clear_environment();

    /* The table: unique names, known kinds, defaults valid for their kind. */
    for (int t = 0; t < WEFT_TUN_COUNT; t++) {
        const struct weft_tunable_desc *d = &weft_tunables[t];
        enum weft_tunable_id id = (enum weft_tunable_id)t;
        for (int u = 0; u < t; u++)
            UT_CHECK(strcmp(d->name, weft_tunables[u].name), "%s listed twice", d->name);
        UT_CHECK(!strcmp(d->kind, "size") || !strcmp(d->kind, "int") || !strcmp(d->kind, "bool") ||
                     !strcmp(d->kind, "switch") || !strcmp(d->kind, "string"),
                 "%s has kind %s", d->name, d->kind);
        UT_CHECK(d->doc && *d->doc, "%s has no description", d->name);
        UT_STREQ(weft_tun_str(id), d->def);
        UT_CHECK(!weft_tun_is_set(id), "%s unset", d->name);
        size_t sz;
        if (!strcmp(d->kind, "size"))
            UT_CHECK(weft_parse_size(d->def, &sz) == 0, "%s default %s", d->name, d->def);
        if (!strcmp(d->kind, "bool") || !strcmp(d->kind, "switch"))
            UT_CHECK(weft_tun_bool(id) == 0 || weft_tun_bool(id) == 1, "%s", d->name);
        /* An int's default is an integer in its range, or "auto" (the
         * reader's own choice, taken while the variable is unset). */
        if (!strcmp(d->kind, "int") && strcmp(d->def, "auto")) {
            char msg[256];
            int status = ut_fatal(read_int, &id, msg, sizeof msg);
            UT_CHECK(status == -1 && msg[0] == '=', "%s: its default \"%s\" is refused: %s",
                     d->name, d->def, msg);
        }
    }

    /* The listing: every tunable once, categories in one run each. */
    int listed[WEFT_TUN_COUNT] = {0}, category_seen[WEFT_TUNCAT_COUNT] = {0};
    for (int i = 0; i < WEFT_TUN_COUNT; i++) {
        enum weft_tunable_id id = weft_tunable_listing[i].id;
        enum weft_tunable_category cat = weft_tunable_listing[i].category;
        UT_CHECK(id < WEFT_TUN_COUNT && cat < WEFT_TUNCAT_COUNT, "listing[%d]", i);
        if (id >= WEFT_TUN_COUNT || cat >= WEFT_TUNCAT_COUNT)
            continue;
        listed[id]++;
        if (i == 0 || cat != weft_tunable_listing[i - 1].category) {
            UT_CHECK(!category_seen[cat], "category %s listed in two places",
                     weft_tunable_category_title[cat]);
            category_seen[cat] = 1;
        }
    }
    for (int t = 0; t < WEFT_TUN_COUNT; t++)
        UT_CHECK(listed[t] == 1, "%s is listed %d times", weft_tunables[t].name, listed[t]);
    for (int c = 0; c < WEFT_TUNCAT_COUNT; c++)
        UT_CHECK(category_seen[c] && weft_tunable_category_title[c][0], "category %d", c);

    /* Sizes: powers of 1024, optional B/iB, fractions, no sign. */
    check_size("0", 0);
    check_size("4096", 4096);
    check_size("1K", 1024);
    check_size("1k", 1024);
    check_size("512M", 512ll << 20);
    check_size("2G", 2ll << 30);
    check_size("1T", 1ll << 40);
    check_size("64KB", 64 << 10);
    check_size("64KiB", 64 << 10);
    check_size("1.5K", 1536);
    check_size(" 8M", 8 << 20);
    check_size("08", 8);
    check_size("", -1);
    check_size("-1", -1);
    check_size("M", -1);
    check_size("4Q", -1);
    check_size("4M junk", -1);
    check_size("99999999T", -1);
    enum weft_tunable_id heap = find("SHMEM_SYMMETRIC_SIZE");
    setenv("SHMEM_SYMMETRIC_SIZE", "1G", 1);
    UT_EQ(weft_tun_size(heap), 1ll << 30);
    UT_CHECK(weft_tun_is_set(heap), "set");
    setenv("SHMEM_SYMMETRIC_SIZE", "", 1); /* empty counts as unset */
    UT_CHECK(!weft_tun_is_set(heap), "empty is unset");
    UT_EQ(weft_tun_size(heap), 256ll << 20);
    setenv("SHMEM_SYMMETRIC_SIZE", "lots", 1);
    char msg[512];
    int status = ut_fatal(read_size, &heap, msg, sizeof msg);
    UT_CHECK(status == 1 && strstr(msg, "SHMEM_SYMMETRIC_SIZE=\"lots\"") &&
                 strstr(msg, "not a size"), "status %d, message %s", status, msg);
    unsetenv("SHMEM_SYMMETRIC_SIZE");

    /* Integers: base 10 (a leading zero is not octal, 0x is not hex), a
     * sign, surrounding blanks; anything else, or out of range, is fatal. */
    enum weft_tunable_id am = find("WEFT_AM_BUFFERS"), inject = find("WEFT_INJECT_SIZE");
    check_int(am, "64", 64, NULL);
    check_int(am, "4", 4, NULL);
    check_int(am, "4096", 4096, NULL);
    check_int(am, "010", 10, NULL);
    check_int(am, "08", 8, NULL);
    check_int(am, "+12", 12, NULL);
    check_int(am, " 12 ", 12, NULL);
    check_int(am, "3", 0, "out of range [4, 4096]");
    check_int(am, "4097", 0, "out of range [4, 4096]");
    check_int(am, "-3", 0, "out of range [4, 4096]");
    check_int(am, "99999999999999999999", 0, "out of range [4, 4096]");
    check_int(am, "0x10", 0, "not an integer");
    check_int(am, "12abc", 0, "not an integer");
    check_int(am, "abc", 0, "not an integer");
    check_int(am, "1.5", 0, "not an integer");
    check_int(inject, "-1", -1, NULL);
    check_int(inject, "-2", 0, "out of range [-1, 1073741824]");
    /* Every set int is checked at init, read or not. */
    setenv("WEFT_AM_BUFFERS", "5000", 1);
    status = ut_fatal(check_ints, NULL, msg, sizeof msg);
    UT_CHECK(status == 1 && strstr(msg, "WEFT_AM_BUFFERS=\"5000\""), "status %d, message %s",
             status, msg);
    unsetenv("WEFT_AM_BUFFERS");
    status = ut_fatal(check_ints, NULL, msg, sizeof msg);
    UT_CHECK(status == -1, "nothing set, nothing refused: status %d, message %s", status, msg);

    /* Booleans take the listed words in any case; switches anything but
     * the "off" words. */
    enum weft_tunable_id onnode = find("WEFT_ONNODE"), info = find("SHMEM_INFO");
    const char *yes[] = {"1", "y", "yes", "ON", "True", "enable", "enabled"};
    const char *no[] = {"0", "n", "NO", "off", "false", "Disable", "disabled"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        check_bool(onnode, yes[i], 1);
        check_bool(info, yes[i], 1);
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        check_bool(onnode, no[i], 0);
        check_bool(info, no[i], 0);
    }
    check_bool(onnode, "maybe", -1);
    check_bool(onnode, "2", -1);
    check_bool(info, "maybe", 1);
    check_bool(info, "2", 1);
    UT_EQ(weft_tun_bool(onnode), 1); /* defaults */
    UT_EQ(weft_tun_bool(info), 0);

    /* Older names: read when the current one is unset; the current one wins
     * otherwise, with one note naming both. */
    UT_CHECK(weft_tun_alias_count() >= 5, "%zu older names", weft_tun_alias_count());
    int found = 0;
    enum weft_tunable_id target;
    const char *old;
    for (size_t a = 0; (old = weft_tun_alias(a, &target)) != NULL; a++) {
        UT_CHECK(target < WEFT_TUN_COUNT, "%s stands for a tunable", old);
        found += !strcmp(old, "SMA_SYMMETRIC_SIZE") && target == heap;
    }
    UT_CHECK(weft_tun_alias(weft_tun_alias_count(), NULL) == NULL, "the list ends");
    UT_EQ(found, 1);
    setenv("SMA_SYMMETRIC_SIZE", "2M", 1);
    UT_CHECK(weft_tun_is_set(heap), "set through its older name");
    UT_EQ(weft_tun_size(heap), 2 << 20);
    setenv("SMA_SYMMETRIC_SIZE", "junk", 1);
    status = ut_fatal(read_size, &heap, msg, sizeof msg);
    UT_CHECK(status == 1 && strstr(msg, "SMA_SYMMETRIC_SIZE=\"junk\""),
             "a bad value is named by the variable that holds it: %s", msg);
    setenv("SHMEM_SYMMETRIC_SIZE", "4M", 1);
    status = ut_fatal(read_str, &heap, msg, sizeof msg);
    UT_CHECK(status == -1 && strstr(msg, "SMA_SYMMETRIC_SIZE=\"junk\" is ignored") &&
                 strstr(msg, "SHMEM_SYMMETRIC_SIZE=\"4M\""), "the note: %s", msg);
    UT_EQ(weft_tun_size(heap), 4 << 20);
    setenv("PMI_RANK", "3", 1); /* only the first PE notes it */
    status = ut_fatal(read_str, &heap, msg, sizeof msg);
    UT_CHECK(status == -1 && msg[0] == '\0', "PE 3 is silent: %s", msg);
    clear_environment();
    return ut_done("unit.tunables");
}

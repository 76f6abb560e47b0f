/* SPDX-License-Identifier: BSD-3-Clause */
/* tunables.c owns reading weft's environment variables: the table comes
 * from tunables.def, values are parsed once per call site's need and bad
 * values are fatal errors naming the variable. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/runtime.h"

const struct weft_tunable_desc weft_tunables[WEFT_TUN_COUNT] = {
#define WEFT_TUNABLE(id, name, kind, def, doc) {name, kind, def, doc},
#include "core/tunables.def"
#undef WEFT_TUNABLE
};

const char *const weft_tunable_category_title[WEFT_TUNCAT_COUNT] = {
#define WEFT_TUNABLE_CATEGORY(category, title) title,
#include "core/tunables.def"
#undef WEFT_TUNABLE_CATEGORY
};

enum {
    TUNABLES_LISTED = 0
#define WEFT_TUNABLE_IN(id, category) +1
#include "core/tunables.def"
#undef WEFT_TUNABLE_IN
};
_Static_assert((int)TUNABLES_LISTED == (int)WEFT_TUN_COUNT,
               "tunables.def: every tunable needs one WEFT_TUNABLE_IN row");
const struct weft_tunable_place weft_tunable_listing[WEFT_TUN_COUNT] = {
#define WEFT_TUNABLE_IN(id, category) {WEFT_TUN_##id, WEFT_TUNCAT_##category},
#include "core/tunables.def"
#undef WEFT_TUNABLE_IN
};

/* The older names of tunables (WEFT_TUNABLE_ALIAS rows of tunables.def). */
static const struct {
    const char *name;
    enum weft_tunable_id id;
} aliases[] = {
#define WEFT_TUNABLE_ALIAS(old_name, id) {old_name, WEFT_TUN_##id},
#include "core/tunables.def"
#undef WEFT_TUNABLE_ALIAS
};
#define N_ALIASES (sizeof aliases / sizeof *aliases)

static const char *set_value(const char *name)
{
    const char *v = getenv(name);
    return (v && *v) ? v : NULL;
}

/* One note per ignored old name per process, from the first PE only (every
 * PE reads the same environment): a job should not print it N times. */
static void note_ignored(size_t alias, const char *winner, const char *value)
{
    static unsigned char noted[N_ALIASES ? N_ALIASES : 1];
    const char *rank = set_value("PMI_RANK");
    if ((rank && strcmp(rank, "0") != 0) || __atomic_exchange_n(&noted[alias], 1, __ATOMIC_RELAXED))
        return;
    fprintf(stderr, "weft: note: %s=\"%s\" is ignored: %s=\"%s\" is set and takes precedence\n",
            aliases[alias].name, set_value(aliases[alias].name), winner, value);
}

/* The value in effect for a tunable: its own name, else the first of its
 * older names that is set, else NULL. */
static const char *lookup(enum weft_tunable_id id)
{
    const char *v = set_value(weft_tunables[id].name);
    const char *winner = weft_tunables[id].name;
    for (size_t a = 0; a < N_ALIASES; a++) {
        if (aliases[a].id != id || !set_value(aliases[a].name))
            continue;
        if (v)
            note_ignored(a, winner, v);
        else {
            v = set_value(aliases[a].name);
            winner = aliases[a].name;
        }
    }
    return v;
}

int weft_tun_is_set(enum weft_tunable_id id)
{
    return lookup(id) != NULL;
}

/* The variable whose value is in effect, for messages about the value. */
static const char *source_name(enum weft_tunable_id id)
{
    if (set_value(weft_tunables[id].name))
        return weft_tunables[id].name;
    for (size_t a = 0; a < N_ALIASES; a++)
        if (aliases[a].id == id && set_value(aliases[a].name))
            return aliases[a].name;
    return weft_tunables[id].name;
}

const char *weft_tun_str(enum weft_tunable_id id)
{
    const char *v = lookup(id);
    return v ? v : weft_tunables[id].def;
}

size_t weft_tun_alias_count(void)
{
    return N_ALIASES;
}

const char *weft_tun_alias(size_t i, enum weft_tunable_id *id)
{
    if (i >= N_ALIASES)
        return NULL;
    if (id)
        *id = aliases[i].id;
    return aliases[i].name;
}

int weft_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-' || !isdigit((unsigned char)*s))
        return -1;
    double v = strtod(s, &end);
    if (errno || end == s)
        return -1;
    double mult = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K': mult = 1024.0; end++; break;
    case 'M': mult = 1024.0 * 1024; end++; break;
    case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (toupper((unsigned char)*end) == 'B' || toupper((unsigned char)*end) == 'I')
        end++;
    if (toupper((unsigned char)*end) == 'B')
        end++;
    if (*end != '\0')
        return -1;
    double bytes = v * mult;
    if (bytes < 0 || bytes > (double)SIZE_MAX / 2)
        return -1;
    *out = (size_t)bytes;
    return 0;
}

size_t weft_tun_size(enum weft_tunable_id id)
{
    size_t v;
    const char *s = weft_tun_str(id);
    if (weft_parse_size(s, &v) != 0)
        weft_fatal("shmem_init", "environment variable %s=\"%s\" is not a size (e.g. 512M, 2G)",
                   source_name(id), s);
    return v;
}

/* The accepted range of each int tunable (WEFT_TUNABLE_RANGE in
 * tunables.def); an int tunable without one accepts any integer. */
static const struct {
    int listed;
    long long lo, hi;
} int_range[WEFT_TUN_COUNT] = {
#define WEFT_TUNABLE(id, name, kind, def, doc)
#define WEFT_TUNABLE_RANGE(id, lo, hi) [WEFT_TUN_##id] = {1, lo, hi},
#include "core/tunables.def"
#undef WEFT_TUNABLE_RANGE
#undef WEFT_TUNABLE
};

int weft_tun_choice(enum weft_tunable_id id, const char *const *names, int count)
{
    const char *s = weft_tun_str(id);
    for (int i = 0; i < count; i++)
        if (!strcmp(s, names[i]))
            return i;
    char expected[256] = "";
    size_t used = 0;
    for (int i = 0; i < count && used < sizeof expected; i++)
        used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s",
                                 i == 0 ? "" : i == count - 1 ? " or " : ", ", names[i]);
    weft_fatal("shmem_init", "%s=%s: expected %s", source_name(id), s, expected);
}

/* Base 10 only: "010" is ten, as a user reading it means (base 0 read it
 * as octal eight and refused "08"); "0x10" is not an integer. */
long long weft_tun_int(enum weft_tunable_id id)
{
    const char *s = weft_tun_str(id);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    while (end != s && isspace((unsigned char)*end))
        end++;
    if (errno == ERANGE && end != s && *end == '\0' && int_range[id].listed)
        weft_fatal("shmem_init", "environment variable %s=\"%s\" is out of range [%lld, %lld]",
                   weft_tunables[id].name, s, int_range[id].lo, int_range[id].hi);
    if (errno || end == s || *end != '\0')
        weft_fatal("shmem_init", "environment variable %s=\"%s\" is not an integer (decimal "
                   "digits, optionally signed)", weft_tunables[id].name, s);
    if (int_range[id].listed && (v < int_range[id].lo || v > int_range[id].hi))
        weft_fatal("shmem_init", "environment variable %s=\"%s\" is out of range [%lld, %lld]",
                   weft_tunables[id].name, s, int_range[id].lo, int_range[id].hi);
    return v;
}

void weft_tun_check_ints(void)
{
    for (int id = 0; id < WEFT_TUN_COUNT; id++)
        if (int_range[id].listed && weft_tun_is_set((enum weft_tunable_id)id))
            (void)weft_tun_int((enum weft_tunable_id)id);
}

int weft_tun_bool(enum weft_tunable_id id)
{
    const char *s = weft_tun_str(id);
    static const char *const yes[] = {"1", "y", "yes", "on", "true", "enable", "enabled"};
    static const char *const no[] = {"0", "n", "no", "off", "false", "disable", "disabled"};
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (!strcasecmp(s, no[i]))
            return 0;
    /* The specification's switches (SHMEM_INFO...): any other value is on. */
    if (!strcmp(weft_tunables[id].kind, "switch"))
        return 1;
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!strcasecmp(s, yes[i]))
            return 1;
    weft_fatal("shmem_init", "environment variable %s=\"%s\" is not a boolean (1/0, yes/no, on/off)",
               source_name(id), s);
}

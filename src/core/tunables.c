/* tunables.c owns reading weft's environment variables: the table comes
 * from tunables.def, values are parsed once per call site's need and bad
 * values are fatal errors naming the variable. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime.h"

const struct weft_tunable_desc weft_tunables[WEFT_TUN_COUNT] = {
#define WEFT_TUNABLE(id, name, kind, def, doc) {name, kind, def, doc},
#include "tunables.def"
#undef WEFT_TUNABLE
};

int weft_tun_is_set(enum weft_tunable_id id)
{
    const char *v = getenv(weft_tunables[id].name);
    return v != NULL && *v != '\0';
}

const char *weft_tun_str(enum weft_tunable_id id)
{
    const char *v = getenv(weft_tunables[id].name);
    return (v && *v) ? v : weft_tunables[id].def;
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
                   weft_tunables[id].name, s);
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
#include "tunables.def"
#undef WEFT_TUNABLE_RANGE
#undef WEFT_TUNABLE
};

long long weft_tun_int(enum weft_tunable_id id)
{
    const char *s = weft_tun_str(id);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    while (end != s && isspace((unsigned char)*end))
        end++;
    if (errno == ERANGE && end != s && *end == '\0' && int_range[id].listed)
        weft_fatal("shmem_init", "environment variable %s=\"%s\" is out of range [%lld, %lld]",
                   weft_tunables[id].name, s, int_range[id].lo, int_range[id].hi);
    if (errno || end == s || *end != '\0')
        weft_fatal("shmem_init", "environment variable %s=\"%s\" is not an integer",
                   weft_tunables[id].name, s);
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
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!strcasecmp(s, yes[i]))
            return 1;
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (!strcasecmp(s, no[i]))
            return 0;
    weft_fatal("shmem_init", "environment variable %s=\"%s\" is not a boolean (1/0, yes/no, on/off)",
               weft_tunables[id].name, s);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* locality.c owns the reading of a launcher's placement of a PE: PMIx's
 * locality string and binding turned into the NUMA node, socket and L3
 * cache that runtime/topology.c would otherwise learn from hwloc. Plain
 * string parsing and one sched_getaffinity; no libpmix, so the unit test
 * and builds without PMIx compile it too. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_EQUAL */
#endif
#include "bootstrap/locality.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* One locality value: a single index (returned), a list or range of
 * several (-2), or anything else (-3). */
static int parse_index_list(const char *v, size_t len)
{
    if (len == 0)
        return -3;
    long idx = 0;
    int several = 0;
    for (size_t i = 0; i < len; i++) {
        if (v[i] == ',' || v[i] == '-') {
            if (i == 0 || i + 1 == len || v[i - 1] == ',' || v[i - 1] == '-')
                return -3;
            several = 1;
        } else if (v[i] >= '0' && v[i] <= '9') {
            if (!several && (idx = idx * 10 + (v[i] - '0')) > WEFT_LOCALITY_MAX_INDEX)
                return -3;
        } else {
            return -3;
        }
    }
    return several ? -2 : (int)idx;
}

int weft_locality_parse(const char *loc, int domain[WEFT_LOCALITY_TYPES])
{
    static const char code[WEFT_LOCALITY_TYPES][3] = {"NM", "SK", "L3"};
    int seen[WEFT_LOCALITY_TYPES] = {0};
    if (!loc || !*loc)
        return -1;
    if (!strncmp(loc, "hwloc:", 6))
        loc += 6;
    for (const char *p = loc; *p;) {
        size_t len = strcspn(p, ":");
        if (len < 2)
            return -1;
        for (int t = 0; t < WEFT_LOCALITY_TYPES; t++) {
            if (seen[t] || strncmp(p, code[t], 2))
                continue;
            int v = parse_index_list(p + 2, len - 2);
            if (v == -3 || (v == -2 && t == WEFT_LOCALITY_NUMA))
                return -1;
            domain[t] = v >= 0 ? v : -1;
            seen[t] = 1;
        }
        p += len;
        if (*p == ':')
            p++;
    }
    if (!seen[WEFT_LOCALITY_NUMA] || !seen[WEFT_LOCALITY_SOCKET])
        return -1;
    if (!seen[WEFT_LOCALITY_L3])
        domain[WEFT_LOCALITY_L3] = -1;
    return 0;
}

int weft_cpulist_is_my_binding(const char *list)
{
    if (!list)
        return 0;
    if (!strncmp(list, "hwloc:", 6))
        list += 6;
    cpu_set_t want, have;
    CPU_ZERO(&want);
    const char *p = list;
    while (*p) {
        char *e;
        long lo = strtol(p, &e, 10), hi = lo;
        if (e == p || lo < 0)
            return 0;
        if (*e == '-') {
            p = e + 1;
            hi = strtol(p, &e, 10);
            if (e == p || hi < lo)
                return 0;
        }
        if (hi >= CPU_SETSIZE)
            return 0;
        for (long c = lo; c <= hi; c++)
            CPU_SET((int)c, &want);
        if (*e == ',')
            e++;
        else if (*e)
            return 0;
        p = e;
    }
    if (CPU_COUNT(&want) == 0 || sched_getaffinity(0, sizeof have, &have) != 0)
        return 0;
    return CPU_EQUAL(&want, &have);
}

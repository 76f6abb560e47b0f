/* SPDX-License-Identifier: BSD-3-Clause */
/* locality.c (unit) checks the reading of PMIx's placement of a PE
 * (src/bootstrap/locality.c): locality strings as Open MPI's mpirun gives
 * them for core- and socket-bound PEs, several sockets or L3 caches
 * (node-wide), several NUMA nodes and malformed strings (refused, so the
 * topology asks hwloc), and the binding compared with this process's CPU
 * affinity. */
#include "unit.h"

#include <sched.h>

#include "bootstrap/locality.h"

/* parse(loc) must give numa, socket, l3 (ok = 1), or refuse it (ok = 0). */
static void expect(const char *loc, int ok, int numa, int socket, int l3)
{
    int d[WEFT_LOCALITY_TYPES] = {-9, -9, -9};
    int rc = weft_locality_parse(loc, d);
    UT_CHECK(rc == (ok ? 0 : -1), "\"%s\": returned %d", loc ? loc : "(NULL)", rc);
    if (ok && rc == 0)
        UT_CHECK(d[WEFT_LOCALITY_NUMA] == numa && d[WEFT_LOCALITY_SOCKET] == socket &&
                     d[WEFT_LOCALITY_L3] == l3,
                 "\"%s\": NUMA %d socket %d L3 %d, want %d %d %d", loc, d[0], d[1], d[2], numa,
                 socket, l3);
}

/* This process's affinity as a CPU list ("0-1,4"). */
static void my_cpulist(char *buf, size_t cap)
{
    cpu_set_t s;
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof s, &s) != 0)
        return;
    size_t len = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &s))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &s))
            e++;
        len += (size_t)snprintf(buf + len, cap - len, len ? ",%d" : "%d", c);
        if (e > c)
            len += (size_t)snprintf(buf + len, cap - len, "-%d", e);
        c = e;
    }
}

int main(void)
{
    /* mpirun --bind-to core and --bind-to socket on a 2-core host. */
    expect("SK0:L30:L20:L10:CR0:HT0:NM0", 1, 0, 0, 0);
    expect("SK0:L30:L20-1:L10-1:CR0-1:HT0-1:NM0", 1, 0, 0, 0);
    expect("SK1:L33:L212:L112:CR12:HT24:NM1", 1, 1, 1, 3);
    expect("hwloc:SK0:L31:NM2", 1, 2, 0, 1);
    /* Several sockets or L3 caches: node-wide; no L3 at all: node-wide. */
    expect("SK0-1:L30,2:L20-3:NM0", 1, 0, -1, -1);
    expect("SK0:NM3", 1, 3, 0, -1);
    /* Only the first NUMA part counts (older PMIx repeated it). */
    expect("NM0:SK0:L30:NM1", 1, 0, 0, 0);
    /* Refused: several NUMA nodes, a part missing, malformed, too large. */
    expect("SK0:L30:NM0,4", 0, 0, 0, 0);
    expect("SK0-1:L30-1:NM0-1", 0, 0, 0, 0);
    expect("L30:NM0", 0, 0, 0, 0);
    expect("SK0:L30", 0, 0, 0, 0);
    expect("SK0:L3:NM0", 0, 0, 0, 0);
    expect("SK0:L3x:NM0", 0, 0, 0, 0);
    expect("SK0:L30-:NM0", 0, 0, 0, 0);
    expect("SK0::NM0", 0, 0, 0, 0);
    expect("SK40000:NM0", 0, 0, 0, 0);
    expect("(null)", 0, 0, 0, 0);
    expect("", 0, 0, 0, 0);
    expect(NULL, 0, 0, 0, 0);

    char mine[4096], other[4200];
    my_cpulist(mine, sizeof mine);
    UT_CHECK(mine[0], "no CPU affinity");
    UT_CHECK(weft_cpulist_is_my_binding(mine), "\"%s\" is my binding", mine);
    snprintf(other, sizeof other, "hwloc:%s", mine);
    UT_CHECK(weft_cpulist_is_my_binding(other), "\"%s\" is my binding", other);
    snprintf(other, sizeof other, "%s,%d", mine, CPU_SETSIZE - 1);
    UT_CHECK(!weft_cpulist_is_my_binding(other), "\"%s\" is not", other);
    UT_CHECK(!weft_cpulist_is_my_binding("0-"), "malformed");
    UT_CHECK(!weft_cpulist_is_my_binding("3-1"), "backwards");
    UT_CHECK(!weft_cpulist_is_my_binding("0-99999"), "beyond CPU_SETSIZE");
    UT_CHECK(!weft_cpulist_is_my_binding(""), "empty");
    UT_CHECK(!weft_cpulist_is_my_binding(NULL), "NULL");
    return ut_done("locality");
}

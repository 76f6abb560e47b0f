/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_diagnose.c owns naming the cause when a libfabric provider fails to
 * open or to reach a peer, from what weft can see itself, without
 * libfabric's logging: for shm, /dev/shm's existence, permissions, free
 * space and inodes against what the provider asks before it opens; for
 * tcp, sockets, net, udp and verbs, whether the interface they were told
 * to use (FI_TCP_IFACE, ...) exists, is up and has an address. */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "transport/ofi/ofi_internal.h"

/* What libfabric 1.17's shm provider asks of /dev/shm before it opens
 * (fi_getinfo fails with "No data available" otherwise): room for one
 * region per online CPU. A region is 16 MiB at the queue sizes weft asks
 * (measured: the files /dev/shm/<pid>:<n>:<n>); each PE keeps two open. */
#define SHM_REGION_BYTES ((unsigned long long)16 << 20)
#define SHM_REGIONS_PER_PE 2

struct cause {
    char *buf;
    size_t room, len;
};

static void say(struct cause *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct cause *c, const char *fmt, ...)
{
    if (c->len >= c->room)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->buf + c->len, c->room - c->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        c->len += (size_t)n < c->room - c->len ? (size_t)n : c->room - c->len - 1;
}

static double mib(unsigned long long bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

static void diagnose_shm(struct cause *c)
{
    const char *dir = "/dev/shm";
    struct stat st;
    if (stat(dir, &st) != 0) {
        say(c, "; %s: %s (the shm provider keeps its regions there)", dir, strerror(errno));
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        say(c, "; %s is not a directory (the shm provider keeps its regions there)", dir);
        return;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        say(c, "; %s (mode %04o, owner uid %ld) is not writable by this user (uid %ld): the shm "
            "provider cannot create its regions there", dir, (unsigned)(st.st_mode & 07777),
            (long)st.st_uid, (long)geteuid());
        return;
    }
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0)
        return;
    unsigned long long avail = (unsigned long long)fs.f_bavail * fs.f_frsize;
    unsigned long long total = (unsigned long long)fs.f_blocks * fs.f_frsize;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned long long want = (unsigned long long)(cpus > 0 ? cpus : 1) * SHM_REGION_BYTES;
    if (fs.f_files > 0 && fs.f_favail == 0) {
        say(c, "; %s has no free inodes: the shm provider cannot create its regions there", dir);
        return;
    }
    if (avail < want) {
        say(c, "; not enough space in %s: %.1f MiB free of %.1f MiB, and libfabric's shm provider "
            "opens only with room for a %.0f MiB region per online CPU (%ld: %.0f MiB); each PE "
            "keeps %d regions. Free or enlarge %s (files of dead jobs?), or use the direct path "
            "on one host (WEFT_ONNODE=1, which needs no /dev/shm)", dir, mib(avail), mib(total),
            mib(SHM_REGION_BYTES), cpus, mib(want), SHM_REGIONS_PER_PE, dir);
    }
}

/* The interface names in an FI_*_IFACE value (tcp takes one name; a list
 * separated by commas is read too). */
static void diagnose_iface(struct cause *c, const char *var)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return;
    char names[256];
    snprintf(names, sizeof names, "%s", v);
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0)
        return;
    char *save = NULL;
    for (char *name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        int found = 0, up = 1, running = 1, addressed = 0;
        for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
            if (strcmp(i->ifa_name, name) != 0)
                continue;
            found = 1;
            up = up && (i->ifa_flags & IFF_UP);
            running = running && (i->ifa_flags & IFF_RUNNING);
            addressed |= i->ifa_addr && (i->ifa_addr->sa_family == AF_INET ||
                                         i->ifa_addr->sa_family == AF_INET6);
        }
        if (!found) {
            char have[200] = "";
            size_t hl = 0;
            for (struct ifaddrs *i = ifs; i && hl < sizeof have - 1; i = i->ifa_next)
                if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET) {
                    int w = snprintf(have + hl, sizeof have - hl, "%s%s", hl ? ", " : "",
                                     i->ifa_name);
                    hl += w > 0 ? (size_t)w : 0;
                }
            say(c, "; interface '%s' (%s) does not exist on this host (it has: %s)", name, var,
                hl ? have : "none with an IPv4 address");
        } else if (!up) {
            say(c, "; interface '%s' (%s) is down", name, var);
        } else if (!running) {
            say(c, "; interface '%s' (%s) is up but not running (no carrier)", name, var);
        } else if (!addressed) {
            say(c, "; interface '%s' (%s) has no IP address", name, var);
        }
    }
    freeifaddrs(ifs);
}

const char *weft_ofi_diagnose(const char *prov, char *buf, size_t len)
{
    struct cause c = {buf, len, 0};
    if (!len)
        return "";
    buf[0] = '\0';
    if (!prov || !*prov)
        return buf;
    if (strstr(prov, "shm"))
        diagnose_shm(&c);
    const char *iface_var = weft_ofi_iface_var(prov);
    if (iface_var)
        diagnose_iface(&c, iface_var);
    return buf;
}

const char *weft_ofi_iface_var(const char *prov)
{
    static const struct {
        const char *core, *var;
    } vars[] = {{"tcp", "FI_TCP_IFACE"}, {"sockets", "FI_SOCKETS_IFACE"},
                {"net", "FI_NET_IFACE"}, {"udp", "FI_UDP_IFACE"},
                {"verbs", "FI_VERBS_IFACE"}};
    if (!prov)
        return NULL;
    /* The core provider: "udp" of "udp;ofi_rxd". */
    size_t core_len = strcspn(prov, ";");
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (strlen(vars[i].core) == core_len && !strncmp(prov, vars[i].core, core_len))
            return vars[i].var;
    return NULL;
}

void weft_ofi_open_failed(const char *what, int rc)
{
    char why[600];
    const char *prov = weft_ofi_provider_name();
    weft_fatal("shmem_init", "cannot open libfabric's %s provider: %s: %s%s", prov, what,
               fi_strerror(-rc), weft_ofi_diagnose(prov, why, sizeof why));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* shm_regions.h owns how weft recognises the files the libfabric shm
 * provider creates for a process: /dev/shm/<pid>:<n>:<n>. Header-only, so
 * that oshrun, which links no weft code, walks them the same way as a PE.
 * System calls only (no malloc, no stdio): the shm reaper walks them in a
 * process forked from a PE whose other threads may hold any lock. */
#ifndef WEFT_CORE_SHM_REGIONS_H
#define WEFT_CORE_SHM_REGIONS_H

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* v in decimal at out (room for 20 digits), not NUL-ended; returns the
 * number of digits. */
static inline int weft_shm_decimal(char *out, unsigned long v)
{
    char digits[20];
    int nd = 0, len = 0;
    do
        digits[nd++] = (char)('0' + v % 10);
    while (v /= 10);
    while (nd)
        out[len++] = digits[--nd];
    return len;
}

/* Called for each region file of the process; returns non-zero to stop. */
typedef int weft_shm_region_fn(int dir_fd, const char *name, const struct stat *st, void *arg);

/* Whether `rest` (what follows "<pid>:") is "<digits>:<digits>". */
static inline int weft_shm_region_suffix_ok(const char *rest)
{
    int colons = 0, digits = 0;
    for (; *rest; rest++) {
        if (*rest == ':') {
            if (!digits)
                return 0;
            colons++;
            digits = 0;
        } else if (*rest >= '0' && *rest <= '9') {
            digits++;
        } else {
            return 0;
        }
    }
    return colons == 1 && digits > 0;
}

/* Calls fn for each entry in /dev/shm named for process pid, whatever its
 * type and owner (the caller decides what those mean to it; st is lstat's). */
static inline void weft_shm_regions_foreach(long pid, weft_shm_region_fn *fn, void *arg)
{
    int dir = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    char prefix[24];
    int plen = weft_shm_decimal(prefix, (unsigned long)pid);
    prefix[plen++] = ':';
    /* getdents64's records: inode, offset, record length, type, name. */
    _Alignas(8) char buf[4096];
    long got;
    int stop = 0;
    while (!stop && (got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long at = 0; !stop && at < got;) {
            unsigned short reclen;
            memcpy(&reclen, buf + at + 16, sizeof reclen);
            const char *name = buf + at + 19;
            at += reclen;
            struct stat st;
            if (strncmp(name, prefix, (size_t)plen) != 0 ||
                !weft_shm_region_suffix_ok(name + plen) ||
                fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            stop = fn(dir, name, &st, arg);
        }
    }
    close(dir);
}

#endif

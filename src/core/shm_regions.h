/* SPDX-License-Identifier: BSD-3-Clause */
/* shm_regions.h owns how weft recognises the files the libfabric shm
 * provider creates for a process: /dev/shm/<pid>:<n>:<n>. Header-only, so
 * that oshrun, which links no weft code, walks them the same way as a PE. */
#ifndef WEFT_CORE_SHM_REGIONS_H
#define WEFT_CORE_SHM_REGIONS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

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
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    char prefix[32];
    int plen = snprintf(prefix, sizeof prefix, "%ld:", pid);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0 ||
            !weft_shm_region_suffix_ok(e->d_name + plen) ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (fn(dirfd(d), e->d_name, &st, arg))
            break;
    }
    closedir(d);
}

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* oshrun-traffic.c owns what `oshrun --traffic FILE` does to a job: it
 * sets WEFT_TRAFFIC=FILE and puts libweft-traffic.so (found next to
 * libweft, relative to oshrun's own executable) first in LD_PRELOAD, in
 * oshrun's environment, which the PEs inherit. The recorder does the rest
 * inside the PEs (docs/traffic.md); oshrun links no part of it. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oshrun-traffic.h"

#define TR_LIB "libweft-traffic.so"

/* The recorder: <dir of oshrun>/<bin-to-lib>/, as installed (and in the
 * build tree when its layout matches), else the build tree's lib/. */
static int find_recorder(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            int w = snprintf(out, len, "%s/%s/" TR_LIB, exe, WEFT_TRAFFIC_BIN_TO_LIB);
            if (w > 0 && (size_t)w < len && access(out, R_OK) == 0)
                return 0;
        }
    }
#ifdef WEFT_TRAFFIC_BUILD_LIBDIR
    int w = snprintf(out, len, "%s/" TR_LIB, WEFT_TRAFFIC_BUILD_LIBDIR);
    if (w > 0 && (size_t)w < len && access(out, R_OK) == 0)
        return 0;
#endif
    return -1;
}

int oshrun_traffic_setup(const char *prog_name, const char *report)
{
    if (!report || !*report) {
        fprintf(stderr, "%s: --traffic needs a file name for the report (e.g. report.html)\n",
                prog_name);
        return -1;
    }
    char lib[PATH_MAX];
    if (find_recorder(lib, sizeof lib) != 0) {
        fprintf(stderr,
                "%s: --traffic: cannot find " TR_LIB " (looked next to %s's libweft: "
                "<oshrun dir>/%s)\n",
                prog_name, prog_name, WEFT_TRAFFIC_BIN_TO_LIB);
        return -1;
    }
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(lib) + (old ? strlen(old) + 1 : 0) + 1;
    char *preload = malloc(len);
    if (!preload) {
        fprintf(stderr, "%s: out of memory\n", prog_name);
        return -1;
    }
    snprintf(preload, len, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    int rc = setenv("LD_PRELOAD", preload, 1) == 0 && setenv("WEFT_TRAFFIC", report, 1) == 0
                 ? 0
                 : -1;
    if (rc != 0)
        fprintf(stderr, "%s: --traffic: %s\n", prog_name, strerror(errno));
    free(preload);
    return rc;
}

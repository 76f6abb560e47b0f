/* SPDX-License-Identifier: BSD-3-Clause */
/* boot_stub.c: just enough of the core (errors, tunables) for the launcher
 * tests to link the bootstrap sources on their own, without libweft. */
#include "core/error.h"
#include "core/lifeline.h"
#include "core/tunables.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int weft_debug_enabled;

__attribute__((constructor)) static void stub_init(void)
{
    const char *d = getenv("WEFT_DEBUG");
    weft_debug_enabled = d && *d && strcmp(d, "0") != 0;
}

const struct weft_tunable_desc weft_tunables[WEFT_TUN_COUNT] = {
#define WEFT_TUNABLE(id, name, kind, def, doc) [WEFT_TUN_##id] = { name, kind, def, doc },
#include "core/tunables.def"
#undef WEFT_TUNABLE
};

const char *weft_tun_str(enum weft_tunable_id id)
{
    const char *v = getenv(weft_tunables[id].name);
    return v ? v : weft_tunables[id].def;
}

static void vmsg(const char *what, const char *call, const char *fmt, va_list ap)
{
    fprintf(stderr, "weft: %s%s%s", what, call ? call : "", call ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void weft_fatal(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("fatal: ", call, fmt, ap);
    va_end(ap);
    _exit(1);
}

void weft_warn(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("", call, fmt, ap);
    va_end(ap);
}

void weft_debug(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("debug: ", NULL, fmt, ap);
    va_end(ap);
}

/* The launcher watch of core/lifeline.c: boot_test ends as the PMIx event
 * says, without the thread. */
void weft_lifeline_leaving(void) {}

void weft_launcher_gone(const char *how)
{
    fprintf(stderr, "weft: the launcher is gone (%s); exiting\n", how);
    _exit(1);
}

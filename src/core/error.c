/* SPDX-License-Identifier: BSD-3-Clause */
/* error.c owns how weft reports problems: fatal errors name the call and
 * the argument and take the whole job down through the launcher; warnings
 * and debug traces go to stderr with the PE number. The launcher is reached
 * through the abort hook the runtime sets (error.h), never directly. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/lifeline.h"
#include "core/runtime.h"

int weft_debug_enabled;

/* The launcher's abort while its connection is open (weft_set_job_abort). */
static weft_job_abort_fn job_abort;

void weft_set_job_abort(weft_job_abort_fn abort_job)
{
    job_abort = abort_job;
}

static void weft_vreport(const char *kind, const char *call, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* One write so lines from different PEs do not interleave. */
    char line[1400];
    int n;
    /* After shmem_finalize the PE number is still ours and still useful. */
    if (weft_rt.boot_up || weft_rt.finalized)
        n = snprintf(line, sizeof line, "weft: PE %d: %s%s%s%s\n", weft_rt.my_pe, kind,
                     call ? call : "", call && *call ? ": " : "", msg);
    else
        n = snprintf(line, sizeof line, "weft: %s%s%s%s\n", kind, call ? call : "",
                     call && *call ? ": " : "", msg);
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1;
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

void weft_fatal(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    weft_vreport("", call, fmt, ap);
    va_end(ap);
    fflush(stdout);
    weft_lifeline_leaving();
    /* No libfabric call here (this may run inside one): the names of our
     * shm regions go, their memory with the process. */
    weft_shm_files_remove();
    if (weft_rt.boot_up && job_abort)
        job_abort(1, NULL); /* message already printed */
    _exit(1);
}

void weft_say(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    weft_vreport("", call, fmt, ap);
    va_end(ap);
}

void weft_warn(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    weft_vreport("warning: ", call, fmt, ap);
    va_end(ap);
}

void weft_debug(const char *fmt, ...)
{
    if (!weft_debug_enabled)
        return;
    va_list ap;
    va_start(ap, fmt);
    weft_vreport("debug: ", NULL, fmt, ap);
    va_end(ap);
}

void weft_fail_not_symmetric(const char *call, const char *arg, const void *addr, size_t len)
{
    weft_fatal(call,
               "argument %s=%p (%zu bytes) is not a symmetric address (not in the symmetric "
               "heap [%p, +%zu) nor in static data [%p, +%zu))",
               arg, addr, len, (void *)weft_rt.seg[WEFT_SEG_HEAP].base,
               weft_rt.seg[WEFT_SEG_HEAP].size, (void *)weft_rt.seg[WEFT_SEG_DATA].base,
               weft_rt.seg[WEFT_SEG_DATA].size);
}

void weft_fail_not_initialized(const char *call)
{
    if (weft_rt.finalized)
        weft_fatal(call, "called after shmem_finalize");
    weft_fatal(call, "called before shmem_init");
}

void weft_fail_pe(const char *call, int pe)
{
    weft_fatal(call, "argument pe=%d is out of range [0, %d)", pe, weft_rt.n_pes);
}

void weft_fail_overflow(const char *call, const char *arg, size_t n, size_t size)
{
    weft_fatal(call, "argument %s=%zu times the element size %zu overflows the address space", arg,
               n, size);
}

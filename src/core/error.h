/* SPDX-License-Identifier: BSD-3-Clause */
/* error.h owns how weft reports problems (error.c): fatal errors that end
 * the whole job, warnings and debug traces, and the compiler attributes the
 * library's headers share. The bottom layer: it includes nothing of weft,
 * and reaches the launcher only through the hook the runtime sets. */
#ifndef WEFT_ERROR_H
#define WEFT_ERROR_H

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

#define WEFT_LIKELY(x) __builtin_expect(!!(x), 1)
#define WEFT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define WEFT_NORETURN __attribute__((noreturn))
#define WEFT_PRINTF(a, b) __attribute__((format(printf, a, b)))
/* The library is built with -fvisibility=hidden (calls and data inside it
 * bind directly, no PLT/GOT); what the public headers name (the default
 * context, the predefined teams) and the info interface for weft's own
 * tools (runtime/info.c) are exported with this. */
#define WEFT_EXPORT __attribute__((visibility("default")))

/* Print "weft: PE n: call: message" and abort the whole job (non-zero exit,
 * every PE gone). Safe before init (then it just exits). */
WEFT_NORETURN void weft_fatal(const char *call, const char *fmt, ...) WEFT_PRINTF(2, 3);
/* One line "weft: PE n: call: ..." on stderr, for an end of the job that is
 * not an error of weft's (exit before finalize, shmem_global_exit). */
void weft_say(const char *call, const char *fmt, ...) WEFT_PRINTF(2, 3);
/* A warning on stderr, once per distinct call site is the caller's job. */
void weft_warn(const char *call, const char *fmt, ...) WEFT_PRINTF(2, 3);
/* Debug trace when WEFT_DEBUG is set. */
void weft_debug(const char *fmt, ...) WEFT_PRINTF(1, 2);
extern int weft_debug_enabled;

/* How weft_fatal ends the job once a launcher is connected: the runtime
 * sets it when the launcher's connection opens (its abort, which takes
 * every PE down) and clears it with NULL when the connection closes.
 * Without it weft_fatal exits this process only. */
typedef void (*weft_job_abort_fn)(int status, const char *msg);
void weft_set_job_abort(weft_job_abort_fn abort_job);

#pragma GCC visibility pop

#endif

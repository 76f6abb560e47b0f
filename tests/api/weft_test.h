/* SPDX-License-Identifier: BSD-3-Clause */
/* weft_test.h: the small harness every API test program includes first.
 *
 *   wt_init(name)        shmem_init + watchdog + identity (wt_me, wt_npes)
 *   WT_PHASE("...")      names what the program is doing; printed on failure
 *                        and when the watchdog fires (a hang says where)
 *   WT_CHECK(cond, fmt, ...)  on failure prints
 *        FAIL [test] PE me/n phase "...": file:line: cond: message
 *      and ends the whole job with shmem_global_exit(1)
 *   WT_EQ_NUM(got, want, fmt, ...)  numeric equality with both values printed
 *   wt_finish()          barrier, "PASS" from PE 0, shmem_finalize
 *
 * The watchdog: WT_TIMEOUT seconds (env, default 50) after wt_init the
 * process prints the current phase and exits with status 3, so a hang shows
 * up as a diagnosed failure instead of an anonymous ctest timeout. */
#ifndef WEFT_TEST_H
#define WEFT_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <shmem.h>

#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int wt_me = -1, wt_npes = -1;
static const char *wt_test_name = "?";
static const char *volatile wt_phase_name = "start";
static char wt_phase_buf[192];

/* Name the current phase; a printf-style format is allowed. */
#define WT_PHASE(...)                                                              \
    do {                                                                           \
        snprintf(wt_phase_buf, sizeof wt_phase_buf, __VA_ARGS__);                  \
        wt_phase_name = wt_phase_buf;                                              \
        if (getenv("WT_VERBOSE") && wt_me <= 0)                                    \
            fprintf(stderr, "[%s] phase: %s\n", wt_test_name, wt_phase_buf);       \
    } while (0)

static inline void wt_write_str(const char *s)
{
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

static inline void wt_watchdog_handler(int sig)
{
    char num[16];
    int v = wt_me, i = 0;
    (void)sig;
    wt_write_str("FAIL [");
    wt_write_str(wt_test_name);
    wt_write_str("] PE ");
    if (v < 0) {
        wt_write_str("?");
    } else {
        char tmp[16];
        int n = 0;
        do {
            tmp[n++] = (char)('0' + v % 10);
            v /= 10;
        } while (v && n < 15);
        while (n)
            num[i++] = tmp[--n];
        num[i] = 0;
        wt_write_str(num);
    }
    wt_write_str(": watchdog: still running after WT_TIMEOUT seconds (hang?) in phase \"");
    wt_write_str((const char *)wt_phase_name);
    wt_write_str("\"\n");
    _exit(3);
}

static inline void wt_start_watchdog(void)
{
    const char *e = getenv("WT_TIMEOUT");
    int secs = e ? atoi(e) : 50;
    if (secs > 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = wt_watchdog_handler;
        sigaction(SIGALRM, &sa, NULL);
        alarm((unsigned)secs);
    }
}

__attribute__((noreturn, format(printf, 4, 5))) static inline void
wt_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "FAIL [%s] PE %d/%d phase \"%s\": %s:%d: %s: %s\n", wt_test_name, wt_me,
            wt_npes, (const char *)wt_phase_name, file, line, cond, msg);
    fflush(stderr);
    shmem_global_exit(1);
    _exit(1); /* not reached unless shmem_global_exit returned */
}

#define WT_CHECK(cond, ...)                                                        \
    do {                                                                           \
        if (!(cond))                                                               \
            wt_fail_at(__FILE__, __LINE__, #cond, __VA_ARGS__);                    \
    } while (0)

/* Unconditional failure. */
#define WT_FAIL(...) wt_fail_at(__FILE__, __LINE__, "failed", __VA_ARGS__)

/* Numeric comparison of any arithmetic type; each argument is evaluated
 * exactly once (they are often the call under test) and compared and
 * printed as long double, exact for every value these tests use (64-bit
 * integers included). */
#define WT_EQ_NUM(got, want, ...)                                                  \
    do {                                                                           \
        long double wt_got_ = (long double)(got), wt_want_ = (long double)(want);  \
        if (wt_got_ != wt_want_) {                                                 \
            char wt_ctx_[512];                                                     \
            snprintf(wt_ctx_, sizeof wt_ctx_, __VA_ARGS__);                        \
            wt_fail_at(__FILE__, __LINE__, #got " == " #want,                      \
                       "%s: got %.21Lg, expected %.21Lg", wt_ctx_, wt_got_, wt_want_); \
        }                                                                          \
    } while (0)

static inline void wt_setup(const char *name)
{
    wt_test_name = name;
    setvbuf(stdout, NULL, _IOLBF, 0);
    wt_start_watchdog();
}

static inline void wt_identify(void)
{
    wt_me = shmem_my_pe();
    wt_npes = shmem_n_pes();
    WT_CHECK(wt_npes >= 1, "shmem_n_pes() = %d", wt_npes);
    WT_CHECK(wt_me >= 0 && wt_me < wt_npes, "shmem_my_pe() = %d with n_pes %d", wt_me,
             wt_npes);
}

static inline void wt_init(const char *name)
{
    wt_setup(name);
    WT_PHASE("shmem_init");
    shmem_init();
    wt_identify();
    WT_PHASE("after init");
}

static inline void wt_finish(void)
{
    WT_PHASE("final barrier");
    shmem_barrier_all();
    if (wt_me == 0)
        printf("PASS [%s] %d PE(s)\n", wt_test_name, wt_npes);
    WT_PHASE("shmem_finalize");
    shmem_finalize();
}

/* Deterministic per-PE random numbers (xorshift), identical sequences on
 * every PE for the same seed, so collective decisions agree. */
static inline uint64_t wt_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

/* The byte written at index i of a transfer from PE pe (tag separates tests):
 * depends on the high bits of i too, so a misplaced page or chunk shows. */
static inline unsigned char wt_byte(int pe, size_t i, unsigned tag)
{
    size_t h = i ^ (i >> 8) ^ (i >> 16) ^ (i >> 24);
    return (unsigned char)(h * 7u + (unsigned)pe * 31u + tag * 101u + 1u);
}

/* Check a received byte range; the message gives the first bad offset. */
static inline void wt_check_bytes_at(const char *file, int line, const unsigned char *buf,
                                     size_t len, int pe, size_t index0, unsigned tag,
                                     const char *what)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char want = wt_byte(pe, index0 + i, tag);
        if (buf[i] != want) {
            size_t bad = 0;
            for (size_t j = i; j < len; j++)
                bad += buf[j] != wt_byte(pe, index0 + j, tag);
            wt_fail_at(file, line, "byte pattern",
                       "%s: %zu-byte transfer from PE %d: first wrong byte at offset %zu: "
                       "got 0x%02x, expected 0x%02x (%zu of the remaining %zu bytes wrong)",
                       what, len, pe, i, buf[i], want, bad, len - i);
        }
    }
}
#define WT_CHECK_BYTES(buf, len, pe, index0, tag, what)                            \
    wt_check_bytes_at(__FILE__, __LINE__, (const unsigned char *)(buf), (len), (pe),   \
                      (index0), (tag), (what))

/* Busy for ms milliseconds without calling weft (a PE that computes: no
 * progress of its own), and asleep for ms. */
static inline void wt_compute_ms(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static inline void wt_nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Threads of this process now (-1 if /proc cannot tell). */
static inline int wt_thread_count(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A blocking sum over team of each member's index, checked: run among
 * outstanding non-blocking collectives on the same team. */
static inline void wt_blocking_sum_check(shmem_team_t team)
{
    static long v;
    int n = shmem_team_n_pes(team);
    v = shmem_team_my_pe(team);
    WT_EQ_NUM(shmem_long_sum_reduce(team, &v, &v, 1), 0, "blocking reduce");
    WT_EQ_NUM(v, (long)n * (n - 1) / 2, "blocking reduce among outstanding ones");
}

/* Completes n outstanding non-blocking collectives last to first: odd
 * ones by polling shmem_req_test (napping between), even ones by
 * shmem_req_wait, so both completion calls meet every kind of request. */
static inline void wt_req_complete_reverse(shmem_req_h *r, int n)
{
    for (int k = n - 1; k >= 0; k--) {
        if (k & 1) {
            int rc;
            while ((rc = shmem_req_test(&r[k])) > 0)
                wt_nap_ms(0);
            WT_EQ_NUM(rc, 0, "shmem_req_test %d", k);
        } else {
            WT_EQ_NUM(shmem_req_wait(&r[k]), 0, "shmem_req_wait %d", k);
        }
    }
}

/* The draft's progress without the caller polling: PE 0 only computes
 * (no weft call) while the other PEs complete the collective r and count
 * themselves in PE 0's symmetric word told; PE 0 checks that all of them
 * finished first (20 s at most), then completes r itself. */
static inline void wt_complete_while_pe0_computes(shmem_req_h *r, long *told)
{
    int n = shmem_n_pes();
    if (shmem_my_pe() == 0) {
        int waited = 0;
        while (__atomic_load_n(told, __ATOMIC_ACQUIRE) < n - 1 && waited < 20000) {
            wt_compute_ms(5);
            waited += 5;
        }
        WT_EQ_NUM(__atomic_load_n(told, __ATOMIC_ACQUIRE), n - 1,
                  "PEs done while PE 0 computed (%d ms)", waited);
    } else {
        WT_EQ_NUM(shmem_req_wait(r), 0, "wait");
        shmem_long_atomic_inc(told, 0);
        shmem_quiet();
    }
    if (*r != SHMEM_REQ_INVALID)
        WT_EQ_NUM(shmem_req_wait(r), 0, "wait");
}

static inline void wt_fill_bytes(void *buf, size_t len, int pe, size_t index0, unsigned tag)
{
    unsigned char *b = (unsigned char *)buf;
    for (size_t i = 0; i < len; i++)
        b[i] = wt_byte(pe, index0 + i, tag);
}

/* Check that len bytes are all equal to v (guards around a transfer). */
static inline void wt_check_fill_at(const char *file, int line, const unsigned char *buf,
                                    size_t len, unsigned char v, const char *what)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] != v)
            wt_fail_at(file, line, "untouched bytes",
                       "%s: byte %zu was overwritten: 0x%02x, expected 0x%02x", what, i,
                       buf[i], v);
}
#define WT_CHECK_FILL(buf, len, v, what)                                           \
    wt_check_fill_at(__FILE__, __LINE__, (const unsigned char *)(buf), (len), (v), (what))

#endif

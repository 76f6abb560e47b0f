/* SPDX-License-Identifier: BSD-3-Clause */
/* unit.h: the small harness of the single-process unit tests (tests/unit):
 * checks that print what differed and count failures, and a way to run a
 * piece of code that must end the process (weft_fatal) in a child and look
 * at its status and message.
 *
 *   UT_CHECK(cond, fmt, ...)   on failure prints FAIL file:line: cond: message
 *   UT_EQ(got, want)           integers, both values printed
 *   UT_STREQ(got, want)        strings (NULL allowed)
 *   ut_fatal(fn, arg, out)     runs fn(arg) in a child; returns its exit
 *                              status (-1: it returned, -2: killed) and what
 *                              it wrote to stderr in out
 *   return ut_done("name");    prints PASS or the failure count; exit status */
#ifndef WEFT_UNIT_H
#define WEFT_UNIT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int ut_failures;

#define UT_CHECK(cond, ...)                                                          \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            ut_failures++;                                                           \
        }                                                                            \
    } while (0)

#define UT_EQ(got, want)                                                             \
    do {                                                                             \
        long long ut_g = (long long)(got), ut_w = (long long)(want);                  \
        UT_CHECK(ut_g == ut_w, "%s is %lld, expected %lld", #got, ut_g, ut_w);       \
    } while (0)

#define UT_STREQ(got, want)                                                          \
    do {                                                                             \
        const char *ut_g = (got), *ut_w = (want);                                    \
        UT_CHECK((!ut_g && !ut_w) || (ut_g && ut_w && !strcmp(ut_g, ut_w)),          \
                 "%s is \"%s\", expected \"%s\"", #got, ut_g ? ut_g : "(null)",      \
                 ut_w ? ut_w : "(null)");                                            \
    } while (0)

/* Runs fn(arg) in a child process whose stderr is captured into out (at
 * most len - 1 bytes, NUL-terminated). The exit status, -1 if fn returned
 * (the child then exits 0 after marking it), -2 if a signal ended it. */
static inline int ut_fatal(void (*fn)(void *), void *arg, char *out, size_t len)
{
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        perror("pipe");
        exit(2);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        dup2(pipefd[1], STDERR_FILENO);
        fn(arg);
        _exit(255); /* returned: not the fatal exit the caller expects */
    }
    close(pipefd[1]);
    size_t have = 0;
    ssize_t n;
    while (have + 1 < len && (n = read(pipefd[0], out + have, len - 1 - have)) > 0)
        have += (size_t)n;
    out[have] = '\0';
    char sink[256];
    while (read(pipefd[0], sink, sizeof sink) > 0)
        ;
    close(pipefd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status))
        return -2;
    return WEXITSTATUS(status) == 255 ? -1 : WEXITSTATUS(status);
}

static inline int ut_done(const char *name)
{
    if (ut_failures) {
        printf("%s: %d check(s) failed\n", name, ut_failures);
        return 1;
    }
    printf("%s: PASS\n", name);
    return 0;
}

#endif

/* launch_check: run a launcher command line and check how it ends.
 *
 *   launch_check [options] -- command [args...]
 *
 *   --status N          exit status must be N (default 0)
 *   --nonzero           exit status must be non-zero
 *   --within SEC        the command must finish within SEC seconds
 *   --timeout SEC       kill everything after SEC seconds (default 25)
 *   --stdin TEXT        feed TEXT (C escapes \n \t \\ understood) on stdin;
 *                       default: stdin is /dev/null
 *   --signal SIG@SEC    send SIG (TERM, INT, ...) to the command after SEC s
 *   --env NAME=VALUE    set an environment variable; --unset NAME
 *   --expect-stderr S   the command's stderr must contain S
 *   --expect-stdout S   the command's stdout must contain S
 *   --skip-missing      exit 77 (ctest SKIP_RETURN_CODE) if the command is
 *                       not installed
 *   --launcher-may-crash  with --nonzero: the launcher dying by a signal
 *                       counts as a non-zero end (a launcher's own bug;
 *                       the bound and "no process left" still apply)
 *
 * The command runs in its own process group; once it has exited, no
 * process of that group may be left (the launcher must not leave PEs
 * behind). Output is passed on so ctest logs show it. Exit 0 on success,
 * 1 on a failed check, 77 for a skip. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static char *unescape(const char *s)
{
    char *o = malloc(strlen(s) + 1), *p = o;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *p++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *p++ = *s;
        }
    }
    *p = '\0';
    return o;
}

static int signum(const char *name)
{
    static const struct {
        const char *n;
        int s;
    } t[] = { { "TERM", SIGTERM }, { "INT", SIGINT }, { "HUP", SIGHUP },
              { "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "QUIT", SIGQUIT } };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(name, t[i].n) == 0)
            return t[i].s;
    return atoi(name);
}

/* Copy a capture file to out and return its contents. */
static char *slurp(int fd, FILE *out)
{
    off_t n = lseek(fd, 0, SEEK_END);
    char *buf = malloc((size_t)n + 1);
    ssize_t got = pread(fd, buf, (size_t)n, 0);
    buf[got > 0 ? got : 0] = '\0';
    fputs(buf, out);
    fflush(out);
    return buf;
}

int main(int argc, char **argv)
{
    int want_status = 0, want_nonzero = 0, skip_missing = 0, may_crash = 0;
    double within = -1, timeout = 25, sig_at = -1;
    int sig = 0;
    char *stdin_text = NULL;
    const char *want_err = NULL, *want_out = NULL;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "--nonzero") == 0) {
            want_nonzero = 1;
        } else if (strcmp(a, "--skip-missing") == 0) {
            skip_missing = 1;
        } else if (strcmp(a, "--launcher-may-crash") == 0) {
            may_crash = 1;
        } else if (!v) {
            fprintf(stderr, "launch_check: %s needs a value\n", a);
            return 2;
        } else if (strcmp(a, "--status") == 0) {
            want_status = atoi(v), i++;
        } else if (strcmp(a, "--within") == 0) {
            within = atof(v), i++;
        } else if (strcmp(a, "--timeout") == 0) {
            timeout = atof(v), i++;
        } else if (strcmp(a, "--stdin") == 0) {
            stdin_text = unescape(v), i++;
        } else if (strcmp(a, "--signal") == 0) {
            char *at = strchr(v, '@');
            if (!at) {
                fprintf(stderr, "launch_check: --signal SIG@SECONDS\n");
                return 2;
            }
            *at = '\0';
            sig = signum(v);
            sig_at = atof(at + 1);
            i++;
        } else if (strcmp(a, "--env") == 0) {
            putenv(argv[++i]);
        } else if (strcmp(a, "--unset") == 0) {
            unsetenv(argv[++i]);
        } else if (strcmp(a, "--expect-stderr") == 0) {
            want_err = v, i++;
        } else if (strcmp(a, "--expect-stdout") == 0) {
            want_out = v, i++;
        } else {
            fprintf(stderr, "launch_check: unknown option %s\n", a);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "launch_check: no command\n");
        return 2;
    }
    char **cmd = argv + i;

    int in[2] = { -1, -1 };
    if (stdin_text) {
        if (pipe(in) != 0 || write(in[1], stdin_text, strlen(stdin_text)) < 0) {
            perror("launch_check: stdin pipe");
            return 1;
        }
        close(in[1]);
        free(stdin_text);
    }
    int out_fd = memfd_create("stdout", 0), err_fd = memfd_create("stderr", 0);
    int exec_pipe[2];
    if (out_fd < 0 || err_fd < 0 || pipe2(exec_pipe, O_CLOEXEC) != 0) {
        perror("launch_check");
        return 1;
    }

    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        int fd0 = in[0] >= 0 ? in[0] : open("/dev/null", O_RDONLY);
        dup2(fd0, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execvp(cmd[0], cmd);
        int e = errno;
        ssize_t w = write(exec_pipe[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    setpgid(pid, pid);
    close(exec_pipe[1]);
    int e = 0;
    if (read(exec_pipe[0], &e, sizeof e) == (ssize_t)sizeof e) {
        waitpid(pid, NULL, 0);
        if (skip_missing && e == ENOENT) {
            printf("launch_check: %s not found; skipping\n", cmd[0]);
            return 77;
        }
        fprintf(stderr, "launch_check: cannot run %s: %s\n", cmd[0], strerror(e));
        return 1;
    }

    int failed = 0, st = 0, sent = 0;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            break;
        double t = now() - t0;
        if (sig && !sent && t >= sig_at) {
            kill(pid, sig);
            sent = 1;
        }
        if (t > timeout) {
            fprintf(stderr, "launch_check: FAIL: still running after %.1f s; killing it\n", t);
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            failed = 1;
            break;
        }
        sleep_s(0.01);
    }
    double elapsed = now() - t0;

    /* Nothing of the job may outlive the launcher. */
    int left = 0;
    for (int k = 0; k < 100 && (left = (kill(-pid, 0) == 0)); k++)
        sleep_s(0.01);
    if (left) {
        fprintf(stderr, "launch_check: FAIL: processes of the job outlived the launcher\n");
        kill(-pid, SIGKILL);
        failed = 1;
    }

    char *out = slurp(out_fd, stdout), *err = slurp(err_fd, stderr);
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    printf("launch_check: exit status %d after %.2f s\n", code, elapsed);
    if (!WIFEXITED(st) && may_crash && want_nonzero) {
        printf("launch_check: the launcher died by signal %d (allowed: --launcher-may-crash)\n",
               WTERMSIG(st));
    } else if (!WIFEXITED(st)) {
        fprintf(stderr, "launch_check: FAIL: the launcher itself died by signal %d\n",
                WTERMSIG(st));
        failed = 1;
    } else if (want_nonzero ? code == 0 : code != want_status) {
        fprintf(stderr, "launch_check: FAIL: exit status %d, expected %s%d\n", code,
                want_nonzero ? "non-zero, not " : "", want_status);
        failed = 1;
    }
    if (within >= 0 && elapsed > within) {
        fprintf(stderr, "launch_check: FAIL: took %.2f s, limit %.2f s\n", elapsed, within);
        failed = 1;
    }
    if (want_err && !strstr(err, want_err)) {
        fprintf(stderr, "launch_check: FAIL: stderr lacks \"%s\"\n", want_err);
        failed = 1;
    }
    if (want_out && !strstr(out, want_out)) {
        fprintf(stderr, "launch_check: FAIL: stdout lacks \"%s\"\n", want_out);
        failed = 1;
    }
    free(out);
    free(err);
    printf("launch_check: %s\n", failed ? "FAILED" : "passed");
    return failed;
}

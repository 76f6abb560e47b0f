/* SPDX-License-Identifier: BSD-3-Clause */
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
 *                       (SIG@+SEC: SEC s after --mark's text appeared)
 *   --env NAME=VALUE    set an environment variable; --unset NAME
 *   --expect-stderr S   the command's stderr must contain S (repeatable)
 *   --reject-stderr S   the command's stderr must not contain S (repeatable)
 *   --expect-stdout S   the command's stdout must contain S
 *   --skip-missing      exit 77 (ctest SKIP_RETURN_CODE) if the command is
 *                       not installed
 *   --launcher-may-crash  with --nonzero: the launcher dying by a signal
 *                       counts as a non-zero end (a launcher's own bug;
 *                       the bound and "no process left" still apply)
 *   --cont-after SEC    SEC s after --signal (a stop: TSTP, STOP), every
 *                       process of the job must be stopped; then the
 *                       launcher is sent SIGCONT
 *   --signal-pe R:SIG@SEC  send SIG to the PE whose PMI_RANK (or PMIX_RANK)
 *                       is R after SEC s; @+SEC: SEC s after --mark TEXT
 *                       appears (the job is set up, whatever its start took)
 *                       (a kill or stop from outside the job)
 *   --launcher-killed   the launcher itself may die by a signal (we sent it
 *                       SIGKILL); --status then compares 128 + the signal,
 *                       and with --end-within the job's processes must be
 *                       gone within that bound of the signal
 *   --end-within SEC    the command must finish within SEC seconds of the
 *                       fault: the signal sent (--signal, --signal-pe) or
 *                       the first appearance of --mark TEXT on its stderr
 *   --mark TEXT         see --end-within (the program announces its fault)
 *   --shm-clean         afterwards /dev/shm must hold no file named after a
 *                       process of the job ("<pid>:...", libfabric shm)
 *                       that was not there before it started (PIDs wrap:
 *                       an earlier job's leftover may carry a PID of ours)
 *
 * The command runs in its own process group; once it has exited, no
 * process of that group may be left (the launcher must not leave PEs
 * behind), nor a shm reaper of one of its processes (a PE's process of its
 * own session, "weft-shm-reaper <PE's pid>", that must end with the PE). Output is passed on so ctest logs show it. Whatever the job
 * left in /dev/shm under its processes' names is removed at the end, so
 * that a later job whose PID matches does not find it (a job killed with
 * SIGKILL under Hydra leaves libfabric shm regions; docs/reliability.md).
 * Exit 0 on success, 1 on a failed check, 77 for a skip. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
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
              { "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "QUIT", SIGQUIT },
              { "STOP", SIGSTOP }, { "ABRT", SIGABRT }, { "TSTP", SIGTSTP },
              { "CONT", SIGCONT } };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(name, t[i].n) == 0)
            return t[i].s;
    return atoi(name);
}

/* Processes seen in the job's process group, for --shm-clean. */
#define MAX_SEEN 1024
static pid_t seen[MAX_SEEN];
static int nseen;

static int read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return (int)n;
}

static void remember(pid_t p, void *arg);

/* Parent and state of a process; -1 if it is gone. */
static int proc_stat(pid_t p, int *ppid, int *pgrp, char *state)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)p);
    if (read_small(path, buf, sizeof buf) <= 0)
        return -1;
    char *rp = strrchr(buf, ')'); /* comm may hold spaces */
    if (!rp || sscanf(rp + 1, " %c %d %d", state, ppid, pgrp) != 3)
        return -1;
    return 0;
}

/* Is p the launcher or below it (a launcher such as Hydra may put its PEs
 * in process groups of their own)? */
static int below(pid_t p, pid_t launcher)
{
    for (int depth = 0; depth < 16 && p > 1; depth++) {
        if (p == launcher)
            return 1;
        int ppid, pgrp;
        char st;
        if (proc_stat(p, &ppid, &pgrp, &st) != 0)
            return 0;
        p = ppid;
    }
    return 0;
}

/* Every process of the job: in the launcher's group pgid or below the
 * launcher (zombies only for remember); calls fn(pid, arg) for each. */
static void scan_group(pid_t pgid, void (*fn)(pid_t, void *), void *arg)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        pid_t p = (pid_t)atoi(e->d_name);
        int ppid, pgrp;
        char state;
        if (proc_stat(p, &ppid, &pgrp, &state) != 0)
            continue;
        if (pgrp != pgid && !below(p, pgid))
            continue;
        if (state == 'Z' && fn != remember)
            continue; /* dead, not yet reaped by its new parent */
        fn(p, arg);
    }
    closedir(d);
}

static void remember(pid_t p, void *arg)
{
    (void)arg;
    for (int i = 0; i < nseen; i++)
        if (seen[i] == p)
            return;
    if (nseen < MAX_SEEN)
        seen[nseen++] = p;
}

struct find_rank {
    int rank;
    pid_t found;
};

static void match_rank(pid_t p, void *arg)
{
    struct find_rank *f = arg;
    char path[64], env[65536];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)p);
    int n = read_small(path, env, sizeof env);
    char want[2][32]; /* PMI-1 launchers; PMIx ones (mpirun) */
    int wl[2] = { snprintf(want[0], sizeof want[0], "PMI_RANK=%d", f->rank),
                  snprintf(want[1], sizeof want[1], "PMIX_RANK=%d", f->rank) };
    for (int i = 0; i < n;) {
        for (int k = 0; k < 2; k++)
            if (strncmp(env + i, want[k], (size_t)wl[k]) == 0 && env[i + wl[k]] == '\0')
                f->found = p;
        i += (int)strlen(env + i) + 1;
    }
}

struct pid_list {
    pid_t p[MAX_SEEN];
    int n;
};

static void list_one(pid_t p, void *arg)
{
    struct pid_list *l = arg;
    if (l->n < MAX_SEEN)
        l->p[l->n++] = p;
}

static void count_one(pid_t p, void *arg)
{
    (void)p;
    ++*(int *)arg;
}

static void count_running(pid_t p, void *arg)
{
    int ppid, pgrp;
    char st;
    if (proc_stat(p, &ppid, &pgrp, &st) == 0 && st != 'T' && st != 't' && st != 'Z') {
        fprintf(stderr, "launch_check: process %d of the job is not stopped (state %c)\n",
                (int)p, st);
        ++*(int *)arg;
    }
}

static int live_in_group(pid_t pgid)
{
    int n = 0;
    scan_group(pgid, count_one, &n);
    for (int i = 0; i < nseen; i++) { /* seen before, reparented since */
        int ppid, pgrp;
        char st;
        if (proc_stat(seen[i], &ppid, &pgrp, &st) == 0 && st != 'Z' && pgrp != pgid)
            n++;
    }
    return n;
}

/* Names "<pid>:..." in /dev/shm before the job started: leftovers of
 * earlier jobs, which a process of ours may share a PID with. */
#define MAX_BEFORE 4096
static char *before[MAX_BEFORE];
static int nbefore;

static void shm_snapshot(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && nbefore < MAX_BEFORE)
        if (strchr(e->d_name, ':'))
            before[nbefore++] = strdup(e->d_name);
    closedir(d);
}

static int existed_before(const char *name)
{
    for (int i = 0; i < nbefore; i++)
        if (strcmp(before[i], name) == 0)
            return 1;
    return 0;
}

enum shm_action { SHM_COUNT, SHM_REPORT, SHM_REMOVE };

/* Files /dev/shm/<pid>:... of the processes seen, made during the job;
 * counts them, and prints or removes each as asked. */
static int shm_left(enum shm_action act)
{
    int left = 0;
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        pid_t p = strchr(e->d_name, ':') ? (pid_t)atoi(e->d_name) : 0;
        if (!p || existed_before(e->d_name))
            continue;
        for (int i = 0; i < nseen; i++) {
            if (seen[i] != p)
                continue;
            if (act == SHM_REPORT)
                fprintf(stderr, "launch_check: FAIL: /dev/shm/%s of job process %d is left\n",
                        e->d_name, (int)p);
            if (act == SHM_REMOVE) {
                char path[512];
                snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
                if (unlink(path) == 0)
                    printf("launch_check: removed %s, left by the job\n", path);
            }
            left++;
            break;
        }
    }
    closedir(d);
    return left;
}

/* shm reapers ("weft-shm-reaper <pid>") of processes seen; prints each
 * when report. */
static int reapers_left(int report)
{
    int left = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], cmd[64];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        int n = read_small(path, cmd, sizeof cmd - 1);
        static const char tag[] = "weft-shm-reaper";
        if (n <= (int)sizeof tag || memcmp(cmd, tag, sizeof tag) != 0)
            continue;
        cmd[n] = '\0';
        pid_t of = (pid_t)atoi(cmd + sizeof tag);
        for (int i = 0; i < nseen; i++) {
            if (seen[i] != of)
                continue;
            if (report)
                fprintf(stderr, "launch_check: FAIL: the shm reaper (pid %s) of job process %d "
                        "outlived it\n", e->d_name, (int)of);
            left++;
        }
    }
    if (d)
        closedir(d);
    return left;
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
    int launcher_killed = 0, shm_clean = 0, pe_rank = -1, pe_sig = 0;
    double pe_sig_at = -1, end_within = -1, fault_at = -1, mark_at = -1;
    int pe_sig_after_mark = 0, sig_after_mark = 0;
    const char *mark = NULL;
    double within = -1, timeout = 25, sig_at = -1, cont_after = -1;
    int sig = 0;
    char *stdin_text = NULL;
    const char *want_errs[8] = { NULL }, *want_out = NULL, *bad_errs[8] = { NULL };
    int n_want_err = 0, n_bad_err = 0;
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
        } else if (strcmp(a, "--launcher-killed") == 0) {
            launcher_killed = 1;
        } else if (strcmp(a, "--shm-clean") == 0) {
            shm_clean = 1;
        } else if (!v) {
            fprintf(stderr, "launch_check: %s needs a value\n", a);
            return 2;
        } else if (strcmp(a, "--status") == 0) {
            want_status = atoi(v), i++;
        } else if (strcmp(a, "--cont-after") == 0) {
            cont_after = atof(v), i++;
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
            if (sig <= 0 || sig >= NSIG) {
                fprintf(stderr, "launch_check: --signal: unknown signal '%s'\n", v);
                return 2;
            }
            sig_after_mark = at[1] == '+';
            sig_at = atof(at + 1 + sig_after_mark);
            i++;
        } else if (strcmp(a, "--end-within") == 0) {
            end_within = atof(v), i++;
        } else if (strcmp(a, "--mark") == 0) {
            mark = v, i++;
        } else if (strcmp(a, "--signal-pe") == 0) {
            char *colon = strchr(v, ':'), *at = strchr(v, '@');
            if (!colon || !at || at < colon) {
                fprintf(stderr, "launch_check: --signal-pe RANK:SIG@SECONDS\n");
                return 2;
            }
            *colon = *at = '\0';
            pe_rank = atoi(v);
            pe_sig = signum(colon + 1);
            pe_sig_after_mark = at[1] == '+';
            pe_sig_at = atof(at + 1 + pe_sig_after_mark);
            i++;
        } else if (strcmp(a, "--env") == 0) {
            putenv(argv[++i]);
        } else if (strcmp(a, "--unset") == 0) {
            unsetenv(argv[++i]);
        } else if (strcmp(a, "--expect-stderr") == 0) {
            if (n_want_err < 8)
                want_errs[n_want_err++] = v;
            i++;
        } else if (strcmp(a, "--reject-stderr") == 0) {
            if (n_bad_err < 8)
                bad_errs[n_bad_err++] = v;
            i++;
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
    /* O_APPEND: the launcher and its PEs write at once, each line must land
     * after the others rather than over them. */
    if (out_fd >= 0)
        fcntl(out_fd, F_SETFL, O_APPEND);
    if (err_fd >= 0)
        fcntl(err_fd, F_SETFL, O_APPEND);
    if (out_fd < 0 || err_fd < 0 || pipe2(exec_pipe, O_CLOEXEC) != 0) {
        perror("launch_check");
        return 1;
    }

    shm_snapshot();
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

    int failed = 0, st = 0, sent = 0, pe_sent = 0, ticks = 0, conted = 0;
    for (;;) {
        if (ticks++ % 5 == 0)
            scan_group(pid, remember, NULL);
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            break;
        double t = now() - t0;
        if (mark && fault_at < 0) {
            char buf[8192];
            ssize_t got = pread(err_fd, buf, sizeof buf - 1, 0);
            buf[got > 0 ? got : 0] = '\0';
            if (strstr(buf, mark))
                fault_at = mark_at = t;
        }
        if (sig && !sent && (sig_after_mark ? mark_at >= 0 && t >= mark_at + sig_at
                                            : t >= sig_at)) {
            scan_group(pid, remember, NULL);
            kill(pid, sig);
            sent = 1;
            fault_at = t;
        }
        if (sent && cont_after >= 0 && !conted && t >= sig_at + cont_after) {
            int running = 0;
            scan_group(pid, count_running, &running);
            if (running) {
                fprintf(stderr, "launch_check: FAIL: %d process(es) of the job still running "
                        "%.1f s after the stop\n", running, cont_after);
                failed = 1;
            }
            printf("launch_check: continuing the launcher after %.2f s\n", t);
            kill(pid, SIGCONT);
            conted = 1;
        }
        if (pe_sig && !pe_sent &&
            (pe_sig_after_mark ? mark_at >= 0 && t >= mark_at + pe_sig_at : t >= pe_sig_at)) {
            struct find_rank f = { pe_rank, 0 };
            scan_group(pid, match_rank, &f);
            if (f.found > 0) {
                printf("launch_check: sending signal %d to PE %d (pid %d) after %.2f s\n", pe_sig,
                       pe_rank, (int)f.found, t);
                kill(f.found, pe_sig);
                pe_sent = 1;
                fault_at = t;
            }
        }
        if (t > timeout) {
            fprintf(stderr, "launch_check: FAIL: still running after %.1f s; killing it\n", t);
            /* PEs in process groups of their own (mpirun makes them) are
             * found below the launcher only while it lives: list them all,
             * then kill. */
            static struct pid_list job;
            scan_group(pid, list_one, &job);
            for (int k = 0; k < job.n; k++)
                kill(job.p[k], SIGKILL);
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            failed = 1;
            break;
        }
        sleep_s(0.01);
    }
    double elapsed = now() - t0;

    /* Nothing of the job may outlive the launcher (zombies that the
     * launcher's death left to init to reap do not count): a second for
     * its PEs to go, or, when the launcher was killed, as long as the
     * bound on the job's end allows (they must notice it themselves). */
    int left = 0;
    double grace = 1.0;
    if (launcher_killed && end_within >= 0 && fault_at >= 0)
        grace = end_within - (now() - t0 - fault_at);
    for (double until = now() + grace; (left = live_in_group(pid)) > 0 && now() < until;)
        sleep_s(0.01);
    if (launcher_killed && fault_at >= 0 && !left)
        printf("launch_check: every process of the job gone %.2f s after the signal\n",
               now() - t0 - fault_at);
    if (left) {
        fprintf(stderr, "launch_check: FAIL: processes of the job outlived the launcher\n");
        kill(-pid, SIGKILL);
        failed = 1;
    }

    /* A reaper ends a moment after its PE. */
    for (int k = 0; k < 50 && reapers_left(0); k++)
        sleep_s(0.02);
    if (reapers_left(1) > 0)
        failed = 1;
    if (shm_clean) {
        /* The PEs' own cleanup may lag their exit by a moment. */
        for (int k = 0; k < 50 && shm_left(SHM_COUNT); k++)
            sleep_s(0.02);
        if (shm_left(SHM_REPORT) > 0)
            failed = 1;
    }
    shm_left(SHM_REMOVE);
    if (pe_sig && !pe_sent) {
        fprintf(stderr, "launch_check: FAIL: PE %d was never found to signal\n", pe_rank);
        failed = 1;
    }

    char *out = slurp(out_fd, stdout), *err = slurp(err_fd, stderr);
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    printf("launch_check: exit status %d after %.2f s\n", code, elapsed);
    if (!WIFEXITED(st) && may_crash && want_nonzero) {
        printf("launch_check: the launcher died by signal %d (allowed: --launcher-may-crash)\n",
               WTERMSIG(st));
    } else if (!WIFEXITED(st) && launcher_killed) {
        if (code != want_status) {
            fprintf(stderr, "launch_check: FAIL: the launcher died with %d, expected %d\n", code,
                    want_status);
            failed = 1;
        }
    } else if (!WIFEXITED(st)) {
        fprintf(stderr, "launch_check: FAIL: the launcher itself died by signal %d\n",
                WTERMSIG(st));
        failed = 1;
    } else if (want_nonzero ? code == 0 : code != want_status) {
        fprintf(stderr, "launch_check: FAIL: exit status %d, expected %s%d\n", code,
                want_nonzero ? "non-zero, not " : "", want_status);
        failed = 1;
    }
    if (mark && fault_at < 0 && strstr(err, mark))
        fault_at = elapsed; /* it ended before we looked: within no time */
    if (end_within >= 0 && fault_at < 0) {
        fprintf(stderr, "launch_check: FAIL: the fault (%s) never happened\n",
                mark ? mark : "signal");
        failed = 1;
    } else if (end_within >= 0 && elapsed - fault_at > end_within) {
        fprintf(stderr, "launch_check: FAIL: ended %.2f s after the fault, limit %.2f s\n",
                elapsed - fault_at, end_within);
        failed = 1;
    }
    if (within >= 0 && elapsed > within) {
        fprintf(stderr, "launch_check: FAIL: took %.2f s, limit %.2f s\n", elapsed, within);
        failed = 1;
    }
    for (int k = 0; k < n_want_err; k++) {
        if (!strstr(err, want_errs[k])) {
            fprintf(stderr, "launch_check: FAIL: stderr lacks \"%s\"\n", want_errs[k]);
            failed = 1;
        }
    }
    for (int k = 0; k < n_bad_err; k++) {
        if (strstr(err, bad_errs[k])) {
            fprintf(stderr, "launch_check: FAIL: stderr has \"%s\"\n", bad_errs[k]);
            failed = 1;
        }
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

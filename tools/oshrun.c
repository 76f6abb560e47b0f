/* SPDX-License-Identifier: BSD-3-Clause */
/* oshrun: weft's single-machine launcher.
 *
 *   oshrun -n N [--] program [args...]
 *
 * Jobs on several hosts (--host, --hostfile, -ppn, --map-by) or inside a
 * Slurm allocation are handed to mpiexec.hydra or srun (oshrun_handoff.c).
 *
 * Starts N copies of program (the PEs) and serves them the PMI-1 wire
 * protocol, the same line protocol MPICH Hydra speaks, so the library has
 * one bootstrap path for both launchers. Each PE gets one end of a
 * socketpair as PMI_FD plus PMI_RANK and PMI_SIZE. One poll() loop, no
 * threads: PMI requests (put/get/barrier/abort/finalize, served by
 * oshrun_pmi.c), a self-pipe for signals, and waitpid() for exits.
 *
 * PE 0 inherits oshrun's stdin, the others read /dev/null; stdout and
 * stderr are shared. Each PE runs in a session of its own (spawn says why;
 * --same-session keeps them in ours). SIGINT/SIGTERM/SIGHUP are forwarded
 * and end the job, SIGUSR1/SIGUSR2 are forwarded, SIGTSTP stops the PEs
 * with oshrun and they continue with it (stop_job). When a PE exits non-zero, dies by a signal,
 * calls abort, stays stopped for STOP_TIMEOUT or, having connected, exits
 * without PMI finalize, the others get SIGTERM and, WEFT_ABORT_TIMEOUT
 * seconds later, SIGKILL; oshrun then exits non-zero. It exits 0 only if
 * every PE finished cleanly. The PEs die with oshrun (parent-death signal),
 * shm provider files named after a reaped PE's pid are removed, and one PE
 * may store at most KV_KEYS_PER_PE keys and KV_BYTES_PER_PE bytes
 * (docs/reliability.md). This program links neither libweft nor libfabric. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oshrun-traffic.h"
#include "oshrun_handoff.h"
#include "oshrun_pmi.h"
#include "core/shm_regions.h"

#ifndef WEFT_VERSION_STRING
#define WEFT_VERSION_STRING "unknown"
#endif

/* The tunables list, for the documented default of WEFT_ABORT_TIMEOUT. */
static const struct {
    const char *name, *def;
} tunables[] = {
#define WEFT_TUNABLE(id, name, kind, def, doc) { name, def },
#include "core/tunables.def"
#undef WEFT_TUNABLE
};

struct pe *pes;
int npes;
static struct pollfd *pfd;
static int *pfd_rank; /* PE behind each pfd entry, -1 for the signal pipe */

int tearing_down;             /* a teardown has started */
static int killed;            /* SIGKILL has been sent */
static int exit_code;         /* oshrun's status once tearing down */
static struct timespec kill_deadline;
static double abort_timeout;
static int same_session; /* --same-session: the PEs stay in oshrun's session */
/* A PE stopped by a signal this long while oshrun runs holds its peers
 * forever: end the job (a terminal's Ctrl-Z stops oshrun, which stops its
 * PEs and continues them when it is continued itself: stop_job). */
#define STOP_TIMEOUT 2.0

static int sigpipe_fds[2] = { -1, -1 };
static volatile sig_atomic_t sig_seen[NSIG];

const char *prog_name = "oshrun";

void msg(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof buf - 2)
        n = sizeof buf - 2;
    buf[n++] = '\n';
    /* One write so lines from oshrun do not interleave with the PEs'. */
    fflush(stdout);
    ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
    (void)w;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- signals ----------------------------------------------------------- */

static void on_signal(int sig)
{
    int saved = errno;
    sig_seen[sig] = 1;
    unsigned char b = (unsigned char)sig;
    ssize_t w = write(sigpipe_fds[1], &b, 1);
    (void)w;
    errno = saved;
}

static const int handled_signals[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2,
                                       SIGTSTP };
#define N_HANDLED (int)(sizeof handled_signals / sizeof handled_signals[0])

static void setup_signals(void)
{
    if (pipe2(sigpipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        msg("%s: pipe: %s", prog_name, strerror(errno));
        exit(1);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* SIGCHLD for stops too: a stopped PE is noticed */
    for (int i = 0; i < N_HANDLED; i++) {
        int s = handled_signals[i];
        struct sigaction old;
        /* A signal ignored when we started (nohup, background jobs) stays
         * ignored, and the PEs inherit that. */
        if (s != SIGCHLD && sigaction(s, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(s, &sa, NULL);
    }
    signal(SIGPIPE, SIG_IGN);
}

/* ---- teardown ---------------------------------------------------------- */

static void signal_all(int sig)
{
    for (int i = 0; i < npes; i++) {
        if (pes[i].pid > 0) {
            kill(pes[i].pid, sig);
            if (pes[i].stopped_at > 0 && sig != SIGKILL)
                kill(pes[i].pid, SIGCONT); /* a stopped PE acts on it only then */
        }
    }
}


/* Start taking the job down: the first reason wins and sets the status. */
void teardown_as(int quiet, int code, int sig, const char *fmt, ...)
{
    if (tearing_down)
        return;
    if (!quiet) {
        char buf[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        msg("%s: %s; terminating job", prog_name, buf);
    }
    tearing_down = 1;
    exit_code = code;
    if (abort_timeout <= 0) {
        signal_all(SIGKILL);
        killed = 1;
        return;
    }
    signal_all(sig);
    double t = now() + abort_timeout;
    kill_deadline.tv_sec = (time_t)t;
    kill_deadline.tv_nsec = (long)((t - (double)kill_deadline.tv_sec) * 1e9);
}

/* A PE stopped for STOP_TIMEOUT: returns the poll timeout (ms) until the
 * next one would expire, or -1. */
static int check_stopped(void)
{
    int timeout = -1;
    double t = now();
    for (int i = 0; i < npes && !tearing_down; i++) {
        if (pes[i].pid <= 0 || pes[i].stopped_at <= 0)
            continue;
        double left = pes[i].stopped_at + STOP_TIMEOUT - t;
        if (left <= 0) {
            int s = pes[i].stop_sig;
            teardown(128 + s, SIGTERM, "PE %d stopped by signal %d (SIG%s) and not continued "
                     "within %.0f s", i, s, sigabbrev_np(s) ? sigabbrev_np(s) : "?", STOP_TIMEOUT);
            return -1;
        }
        int ms = (int)(left * 1000) + 1;
        if (timeout < 0 || ms < timeout)
            timeout = ms;
    }
    return timeout;
}

/* ---- shared-memory files of dead PEs -----------------------------------
 * libfabric's shm provider keeps a region in /dev/shm named after the
 * PE's process id ("<pid>:<n>:<n>") and removes it only if the PE gets to
 * run its cleanup; a PE killed hard leaves it. Once a PE is reaped its pid
 * names nothing live, so such files of ours are stale: remove them. Only
 * files owned by us and named for that exact pid are touched. */
static int remove_stale_region(int dir_fd, const char *name, const struct stat *st, void *arg)
{
    long pid = *(const long *)arg;
    if (S_ISREG(st->st_mode) && st->st_uid == geteuid() && unlinkat(dir_fd, name, 0) == 0 &&
        getenv("WEFT_DEBUG_OSHRUN"))
        msg("%s: removed /dev/shm/%s left by PE process %ld", prog_name, name, pid);
    return 0;
}

static void remove_shm_files(pid_t pid)
{
    long p = (long)pid;
    weft_shm_regions_foreach(p, remove_stale_region, &p);
}

/* ---- processes --------------------------------------------------------- */

static int find_pe(pid_t pid)
{
    for (int i = 0; i < npes; i++)
        if (pes[i].pid == pid)
            return i;
    return -1;
}

static void reap(void)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG | WUNTRACED | WCONTINUED);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return;
        int r = find_pe(pid);
        if (r < 0)
            continue;
        struct pe *p = &pes[r];
        if (WIFSTOPPED(st)) {
            p->stopped_at = now();
            p->stop_sig = WSTOPSIG(st);
            continue;
        }
        if (WIFCONTINUED(st)) {
            p->stopped_at = 0;
            continue;
        }
        p->pid = 0; /* never signal a reaped pid: it may be reused */
        /* Serve what it sent before dying first: an abort request names
         * the real reason and its exit code. */
        if (p->fd >= 0)
            pe_read(r);
        pe_close(p);
        p->exited = 1;
        remove_shm_files(pid);
        const char *how = p->connected && !p->finalized ? " without calling shmem_finalize" : "";
        if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
            teardown_as(p->explained, WEXITSTATUS(st), SIGTERM, "PE %d exited with status %d%s", r,
                        WEXITSTATUS(st), how);
        } else if (WIFSIGNALED(st)) {
            int s = WTERMSIG(st);
            teardown(128 + s, SIGTERM, "PE %d killed by signal %d (%s)%s%s", r, s, strsignal(s),
                     WCOREDUMP(st) ? ", core dumped" : "", how);
        } else if (*how) {
            /* Its peers may be waiting for it in a collective that can
             * never complete; as Open MPI does, end the job. */
            teardown_as(p->explained, 1, SIGTERM, "PE %d exited with status 0%s", r, how);
        }
        check_barrier_deadlock();
    }
}

static int live_pes(void)
{
    int n = 0;
    for (int i = 0; i < npes; i++)
        n += pes[i].pid > 0;
    return n;
}

/* Ctrl-Z (SIGTSTP) reaches oshrun alone: the PEs run in sessions of their
 * own (spawn). Stop them, stop ourselves as the terminal asked, and once
 * continued (fg, bg, SIGCONT) continue them, so the job stops and resumes
 * as one. */
static void stop_job(void)
{
    if (tearing_down)
        return;
    for (int i = 0; i < npes; i++)
        if (pes[i].pid > 0)
            kill(pes[i].pid, SIGSTOP);
    signal(SIGTSTP, SIG_DFL);
    raise(SIGTSTP); /* returns once we are continued */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTSTP, &sa, NULL);
    for (int i = 0; i < npes; i++) {
        if (pes[i].pid > 0) {
            kill(pes[i].pid, SIGCONT);
            pes[i].stopped_at = 0; /* stopped by us, not by a fault */
        }
    }
}

static void handle_signals(void)
{
    unsigned char buf[64];
    while (read(sigpipe_fds[0], buf, sizeof buf) > 0)
        ;
    for (int i = 0; i < N_HANDLED; i++) {
        int s = handled_signals[i];
        if (!sig_seen[s])
            continue;
        sig_seen[s] = 0;
        if (s == SIGCHLD) {
            reap();
        } else if (s == SIGTSTP) {
            stop_job();
        } else if (s == SIGUSR1 || s == SIGUSR2) {
            signal_all(s);
        } else if (tearing_down) {
            /* Asked again while going down: no more waiting. */
            signal_all(SIGKILL);
            killed = 1;
        } else {
            teardown(128 + s, s, "received SIG%s", sigabbrev_np(s));
        }
    }
}

/* Start PE rank; returns 0, or -1 if the program could not be executed. */
static int spawn(int rank, char **argv)
{
    int sv[2], ep[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
        msg("%s: cannot create the PMI socket for PE %d: %s", prog_name, rank, strerror(errno));
        return -1;
    }
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* Child: our handlers would write into oshrun's self-pipe. */
        for (int i = 0; i < N_HANDLED; i++) {
            struct sigaction cur;
            if (sigaction(handled_signals[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
                signal(handled_signals[i], SIG_DFL);
        }
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        int err = 0;
        /* Die with the launcher, whatever kills it: a PE must never outlive
         * its job (weft's init turns this into SIGTERM so libfabric can
         * clean up; a plain program gets SIGKILL). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        /* A session of its own for each PE, as Hydra's proxies give theirs:
         * with the scheduler's autogroups (Linux's default) a session is
         * one group for CPU shares, and N PEs sharing oshrun's would get
         * one share between them against every other session of a busy
         * machine (several times slower start-up and run than under
         * Hydra). oshrun forwards the signals a terminal sends (SIGINT,
         * SIGHUP, Ctrl-Z: stop_job). PE 0 stays in our session when stdin
         * is a terminal, so that it reads it under the shell's job
         * control as before. */
        if (!same_session && !(rank == 0 && isatty(STDIN_FILENO)))
            setsid();
        if (fcntl(sv[1], F_SETFD, 0) != 0)
            err = errno;
        if (!err && rank != 0) {
            int dn = open("/dev/null", O_RDONLY);
            if (dn < 0 || dup2(dn, STDIN_FILENO) < 0)
                err = errno;
            if (dn > STDIN_FILENO)
                close(dn);
        }
        char num[32];
        snprintf(num, sizeof num, "%d", sv[1]);
        setenv("PMI_FD", num, 1);
        snprintf(num, sizeof num, "%d", rank);
        setenv("PMI_RANK", num, 1);
        setenv("MPI_LOCALRANKID", num, 1);
        snprintf(num, sizeof num, "%d", npes);
        setenv("PMI_SIZE", num, 1);
        setenv("MPI_LOCALNRANKS", num, 1);
        unsetenv("PMI_PORT");
        unsetenv("PMI_ID");
        if (!err) {
            execvp(argv[0], argv);
            err = errno;
        }
        ssize_t w = write(ep[1], &err, sizeof err);
        (void)w;
        _exit(127);
    }
    int fork_err = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(sv[1]);
    close(ep[1]);
    if (pid < 0) {
        msg("%s: cannot start PE %d: %s", prog_name, rank, strerror(fork_err));
        close(sv[0]);
        close(ep[0]);
        return -1;
    }
    pes[rank].pid = pid;
    pes[rank].fd = sv[0];
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    /* The exec either succeeds (EOF here) or reports its errno. */
    int err = 0;
    ssize_t n;
    while ((n = read(ep[0], &err, sizeof err)) < 0 && errno == EINTR)
        ;
    close(ep[0]);
    if (n == (ssize_t)sizeof err) {
        msg("%s: cannot run '%s': %s", prog_name, argv[0], strerror(err));
        return -1;
    }
    return 0;
}

/* ---- main -------------------------------------------------------------- */

static void cleanup(void)
{
    for (int i = 0; pes && i < npes; i++) {
        pe_close(&pes[i]);
        free(pes[i].in);
        free(pes[i].out);
    }
    pmi_server_fini();
    free(pes);
    free(pfd);
    free(pfd_rank);
    pes = NULL;
    pfd = NULL;
    pfd_rank = NULL;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: %s -n N [--] program [args...]\n"
            "Start N processing elements (PEs) of an OpenSHMEM program on this machine.\n"
            "\n"
            "  -n N, -np N    number of PEs (default 1)\n"
            "  --traffic FILE record where the PEs communicate; PE 0 writes FILE\n"
            "                 (.html, a heat map page) and its .json at finalize\n"
            "  --same-session keep the PEs in oshrun's session and process group\n"
            "                 (default: a session each, as under Hydra; PE 0 stays\n"
            "                 in oshrun's when stdin is a terminal)\n"
            "\n"
            "Several hosts (handed to mpiexec.hydra, or to srun inside a Slurm allocation):\n"
            "  -H, --host H1[:SLOTS],H2...      hosts to run on\n"
            "  --hostfile FILE, -f FILE         hosts to run on, one per line\n"
            "  -ppn N, --map-by ppr:N:node      N PEs per host\n"
            "  --launcher auto|local|hydra|srun which launcher starts the PEs (auto:\n"
            "                                   srun in an allocation, hydra for several\n"
            "                                   hosts, else this oshrun; docs/launching.md)\n"
            "  -v, --verbose                    print the command handed off to\n"
            "\n"
            "  -h, --help     show this help\n"
            "  -V, --version  show the version\n"
            "\n"
            "PE 0 reads oshrun's stdin; the others read /dev/null. If a PE fails\n"
            "(non-zero exit, signal, abort, exit without shmem_finalize, stopped for\n"
            "2 s) the job is terminated: SIGTERM, then SIGKILL after\n"
            "WEFT_ABORT_TIMEOUT seconds. The exit status is 0 only if every PE\n"
            "finished cleanly. The PEs die with oshrun; SIGINT, SIGTERM, SIGHUP,\n"
            "SIGUSR1/2 are forwarded to them, and Ctrl-Z stops and resumes the job.\n",
            prog_name);
}

static double read_abort_timeout(void)
{
    const char *def = "5";
    for (size_t i = 0; i < sizeof tunables / sizeof tunables[0]; i++)
        if (strcmp(tunables[i].name, "WEFT_ABORT_TIMEOUT") == 0)
            def = tunables[i].def;
    const char *s = getenv("WEFT_ABORT_TIMEOUT");
    if (s && *s) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (!errno && !*end && v >= 0 && v <= 86400)
            return v;
        msg("%s: ignoring WEFT_ABORT_TIMEOUT='%s' (not a number of seconds); using %s", prog_name,
            s, def);
    }
    return atof(def);
}

static int parse_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < 1 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

/* oshrun's own options (the hand-off has taken jobs on several hosts).
 * Returns the argv index of the program, with *n the number of PEs, or 0
 * when oshrun is to exit with *status (help, version, a bad option). */
static int parse_args(int argc, char **argv, int *n, int *status)
{
    int i = 1;
    *n = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0 || strcmp(a, "--np") == 0) {
            if (i + 1 >= argc || parse_count(argv[i + 1], n) != 0) {
                msg("%s: %s needs a positive number of PEs", prog_name, a);
                return *status = 2, 0;
            }
            i++;
        } else if (strcmp(a, "--traffic") == 0 || strncmp(a, "--traffic=", 10) == 0) {
            const char *file = a[9] == '=' ? a + 10 : i + 1 < argc ? argv[++i] : NULL;
            if (oshrun_traffic_setup(prog_name, file) != 0)
                return *status = 2, 0;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return *status = 0, 0;
        } else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            printf("oshrun (weft) %s\n", WEFT_VERSION_STRING);
            return *status = 0, 0;
        } else if (strcmp(a, "--launcher") == 0) {
            i++; /* "local" (oshrun_handoff checked it) */
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            continue;
        } else if (strcmp(a, "--same-session") == 0) {
            same_session = 1;
        } else if (a[0] == '-' && a[1]) {
            msg("%s: unknown option '%s' (see %s --help)", prog_name, a, prog_name);
            return *status = 2, 0;
        } else {
            break;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return *status = 2, 0;
    }
    return i;
}

/* The launcher's one loop: signals and exits, the PEs' PMI requests and
 * the kill deadline, until no PE is left. Returns oshrun's status. */
static int serve_job(void)
{
    for (;;) {
        handle_signals(); /* reaps on SIGCHLD */
        if (live_pes() == 0)
            break;

        int nfd = 0;
        pfd[nfd].fd = sigpipe_fds[0];
        pfd[nfd].events = POLLIN;
        pfd_rank[nfd++] = -1;
        for (int r = 0; r < npes; r++) {
            if (pes[r].fd < 0)
                continue;
            pfd[nfd].fd = pes[r].fd;
            pfd[nfd].events = POLLIN | (pes[r].outoff < pes[r].outlen ? POLLOUT : 0);
            pfd_rank[nfd++] = r;
        }
        int timeout = check_stopped();
        if (tearing_down && !killed) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            double left = (double)(kill_deadline.tv_sec - ts.tv_sec) +
                          (kill_deadline.tv_nsec - ts.tv_nsec) * 1e-9;
            if (left <= 0) {
                signal_all(SIGKILL);
                killed = 1;
                continue;
            }
            timeout = (int)(left * 1000) + 1;
        }
        int rc = poll(pfd, (nfds_t)nfd, timeout);
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            msg("%s: poll: %s", prog_name, strerror(errno));
            signal_all(SIGKILL);
            return 1;
        }
        for (int k = 1; k < nfd; k++) {
            int r = pfd_rank[k];
            if (pfd[k].revents & POLLOUT)
                pe_flush(&pes[r]);
            if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
                pe_read(r);
        }
    }
    return tearing_down ? exit_code : 0;
}

int main(int argc, char **argv)
{
    /* Several hosts, or a Slurm allocation: another launcher's job. */
    int handed = oshrun_handoff(argc, argv, prog_name);
    if (handed >= 0)
        return handed;
    int n, status;
    int i = parse_args(argc, argv, &n, &status);
    if (i == 0)
        return status;
    char **prog = argv + i;
    npes = n;
    abort_timeout = read_abort_timeout();

    /* One descriptor per PE stays open in oshrun. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < (rlim_t)npes + 32) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= (rlim_t)npes + 32
                          ? (rlim_t)npes + 32
                          : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur < (rlim_t)npes + 32) {
            msg("%s: %d PEs need more open files than the limit (%llu) allows", prog_name, npes,
                (unsigned long long)rl.rlim_cur);
            return 1;
        }
    }

    pes = calloc((size_t)npes, sizeof *pes);
    pfd = calloc((size_t)npes + 1, sizeof *pfd);
    pfd_rank = calloc((size_t)npes + 1, sizeof *pfd_rank);
    if (!pes || !pfd || !pfd_rank) {
        msg("%s: out of memory", prog_name);
        return 1;
    }
    for (int r = 0; r < npes; r++)
        pes[r].fd = -1;
    pmi_server_init();
    setup_signals();

    for (int r = 0; r < npes; r++) {
        if (spawn(r, prog) != 0) {
            /* Whatever started is torn down; a failed exec exits 127. */
            teardown(127, SIGTERM, "could not start PE %d", r);
            break;
        }
    }

    int rc = serve_job();
    cleanup();
    return rc;
}

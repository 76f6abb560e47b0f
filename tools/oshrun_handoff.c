/* SPDX-License-Identifier: BSD-3-Clause */
/* oshrun_handoff.c owns oshrun's multi-host options and the hand-off of
 * such jobs to a launcher that can start processes on other hosts: MPICH's
 * mpiexec.hydra, or srun inside a Slurm allocation. weft has no remote
 * launcher of its own; oshrun translates its options and execs the other
 * launcher (as Sandia OpenSHMEM's oshrun does), whose PMI-1 weft speaks.
 *
 *   --host/-H h1[:slots],h2...  --hostfile/--machinefile/-f FILE
 *   -ppn N / --npernode N / --map-by ppr:N:node
 *   --launcher auto|local|hydra|srun   (auto: as below)
 *   -v/--verbose                       (print the command handed off to)
 *
 * auto: any multi-host option hands off (to srun inside a Slurm allocation,
 * else to mpiexec.hydra); no such option inside an allocation (SLURM_JOB_ID
 * set, not already inside a job step) hands off to srun; otherwise oshrun
 * runs the job on this machine itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oshrun_handoff.h"

/* The full path of prog found in PATH, or NULL. */
static char *find_in_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = strdup(path), *save = NULL;
    if (!copy)
        return NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char *full;
        if (asprintf(&full, "%s/%s", *d ? d : ".", prog) < 0)
            break;
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0) {
            free(copy);
            return full;
        }
        free(full);
    }
    free(copy);
    return NULL;
}

/* A count in [1, 1000000]: -1 when s is anything else. */
static int parse_pos(const char *s, long *out)
{
    char extra;
    return sscanf(s, "%ld%c", out, &extra) == 1 && *out >= 1 && *out <= 1000000 ? 0 : -1;
}

/* "h1:2,h2" -> "h1,h2" (srun's -w takes names only). */
static char *names_only(const char *hosts)
{
    char *out = malloc(strlen(hosts) + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = hosts; *p;) {
        while (*p && *p != ':' && *p != ',')
            *o++ = *p++;
        if (*p == ':')
            while (*p && *p != ',')
                p++;
        if (*p == ',')
            *o++ = *p++;
    }
    *o = '\0';
    return out;
}

struct argv_b {
    char **v;
    int n, cap;
};

static int push(struct argv_b *b, const char *s)
{
    if (b->n + 2 > b->cap) {
        int cap = b->cap ? 2 * b->cap : 32;
        char **v = realloc(b->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = (char *)s;
    b->v[b->n] = NULL;
    return 0;
}

/* What oshrun's command line asks of the hand-off. */
struct handoff_opts {
    const char *hosts, *hostfile, *launcher, *np_s;
    long ppn, np;
    int verbose;
    int multi; /* --host, --hostfile, -ppn or --map-by: several hosts */
    int prog;  /* argv index of the program */
};

/* Reads the options the hand-off cares about. Returns 0, -1 when oshrun's
 * own parser is to take over (its options, its errors, no program), or 2
 * after a message about a bad option. */
static int parse_handoff_args(int argc, char **argv, const char *prog_name,
                              struct handoff_opts *o)
{
    *o = (struct handoff_opts){ .launcher = "auto", .np = 1 };
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--np")) {
            if (!next || parse_pos(next, &o->np) != 0)
                return -1; /* oshrun's own parser reports it */
            o->np_s = next;
            i++;
        } else if (!strcmp(a, "--host") || !strcmp(a, "-H") || !strcmp(a, "-host") ||
                   !strcmp(a, "--hosts") || !strcmp(a, "-hosts")) {
            if (!next || !*next) {
                fprintf(stderr, "%s: %s needs a comma-separated list of hosts\n", prog_name, a);
                return 2;
            }
            o->hosts = next;
            o->multi = 1;
            i++;
        } else if (!strcmp(a, "--hostfile") || !strcmp(a, "-hostfile") ||
                   !strcmp(a, "--machinefile") || !strcmp(a, "-machinefile") || !strcmp(a, "-f")) {
            if (!next || access(next, R_OK) != 0) {
                fprintf(stderr, "%s: %s needs a readable file of host names%s%s\n", prog_name, a,
                        next ? ": " : "", next ? strerror(errno) : "");
                return 2;
            }
            o->hostfile = next;
            o->multi = 1;
            i++;
        } else if (!strcmp(a, "-ppn") || !strcmp(a, "--ppn") || !strcmp(a, "--npernode") ||
                   !strcmp(a, "-npernode")) {
            if (!next || parse_pos(next, &o->ppn) != 0) {
                fprintf(stderr, "%s: %s needs a positive number of PEs per node\n", prog_name, a);
                return 2;
            }
            o->multi = 1;
            i++;
        } else if (!strcmp(a, "--map-by") || !strcmp(a, "-map-by")) {
            char *end;
            if (!next || strncmp(next, "ppr:", 4) != 0 ||
                (o->ppn = strtol(next + 4, &end, 10)) < 1 || strcmp(end, ":node") != 0) {
                fprintf(stderr, "%s: %s: only ppr:N:node is understood (N PEs per node), not "
                        "'%s'\n", prog_name, a, next ? next : "");
                return 2;
            }
            o->multi = 1;
            i++;
        } else if (!strcmp(a, "--launcher")) {
            if (!next || (strcmp(next, "auto") && strcmp(next, "local") && strcmp(next, "hydra") &&
                          strcmp(next, "srun"))) {
                fprintf(stderr, "%s: --launcher takes auto, local, hydra or srun\n", prog_name);
                return 2;
            }
            o->launcher = next;
            i++;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = 1;
        } else if (!strcmp(a, "--same-session")) {
            continue; /* oshrun's own (a local job's PEs' session) */
        } else if (a[0] == '-' && a[1]) {
            return -1; /* -h, -V, or an error: oshrun's own parser */
        } else {
            break;
        }
    }
    if (i >= argc)
        return -1; /* no program: oshrun's usage */
    o->prog = i;
    return 0;
}

/* srun's command for the job into b (*ok cleared when out of memory);
 * NULL after a message when there is no srun. */
static char *srun_command(const struct handoff_opts *o, const char *prog_name, struct argv_b *b,
                          const char *npbuf, const char *ppnbuf, int *ok)
{
    char *exe = find_in_path("srun");
    if (!exe) {
        fprintf(stderr, "%s: this job needs srun (Slurm) to start its PEs, and srun is not in "
                "PATH; weft has no remote launcher of its own (docs/launching.md)\n", prog_name);
        return NULL;
    }
    /* Slurm's pmi2 plugin also answers weft's PMI-1; it needs no PMIx. */
    *ok &= push(b, exe) == 0 && push(b, "--mpi=pmi2") == 0 && push(b, "-n") == 0 &&
           push(b, o->np_s ? o->np_s : npbuf) == 0;
    if (o->ppn)
        *ok &= push(b, "--ntasks-per-node") == 0 && push(b, ppnbuf) == 0;
    char *names = o->hosts ? names_only(o->hosts) : NULL;
    if (o->hosts)
        *ok &= names && push(b, "-w") == 0 && push(b, names) == 0;
    if (o->hostfile) {
        setenv("SLURM_HOSTFILE", o->hostfile, 1);
        *ok &= push(b, "--distribution=arbitrary") == 0;
    }
    return exe;
}

/* mpiexec.hydra's command for the job into b, as srun_command. */
static char *hydra_command(const struct handoff_opts *o, const char *prog_name, struct argv_b *b,
                           const char *npbuf, const char *ppnbuf, int *ok)
{
    char *exe = find_in_path("mpiexec.hydra");
    if (!exe) {
        fprintf(stderr, "%s: a job on several hosts (--host, --hostfile, -ppn, --map-by) "
                "needs MPICH's mpiexec.hydra (Debian package mpich) or srun inside a Slurm "
                "allocation to start its PEs, and neither is available; weft has no remote "
                "launcher of its own (docs/launching.md)\n", prog_name);
        return NULL;
    }
    *ok &= push(b, exe) == 0;
    if (o->hosts)
        *ok &= push(b, "-hosts") == 0 && push(b, o->hosts) == 0;
    if (o->hostfile)
        *ok &= push(b, "-f") == 0 && push(b, o->hostfile) == 0;
    if (o->ppn)
        *ok &= push(b, "-ppn") == 0 && push(b, ppnbuf) == 0;
    *ok &= push(b, "-n") == 0 && push(b, o->np_s ? o->np_s : npbuf) == 0;
    return exe;
}

int oshrun_handoff(int argc, char **argv, const char *prog_name)
{
    struct handoff_opts o;
    int rc = parse_handoff_args(argc, argv, prog_name, &o);
    if (rc != 0)
        return rc;

    const char *job = getenv("SLURM_JOB_ID");
    int in_alloc = job && *job && !getenv("SLURM_STEP_ID");
    const char *use = o.launcher;
    if (!strcmp(use, "auto"))
        use = in_alloc ? "srun" : o.multi ? "hydra" : "local";
    if (!strcmp(use, "local")) {
        if (o.multi) {
            fprintf(stderr, "%s: --launcher local runs on this machine only; --host, --hostfile, "
                    "-ppn and --map-by need hydra or srun\n", prog_name);
            return 2;
        }
        return -1;
    }

    struct argv_b b = {0};
    char npbuf[32], ppnbuf[32];
    snprintf(npbuf, sizeof npbuf, "%ld", o.np);
    snprintf(ppnbuf, sizeof ppnbuf, "%ld", o.ppn);
    int ok = 1;
    char *exe = !strcmp(use, "srun") ? srun_command(&o, prog_name, &b, npbuf, ppnbuf, &ok)
                                     : hydra_command(&o, prog_name, &b, npbuf, ppnbuf, &ok);
    if (!exe)
        return 2;
    for (int k = o.prog; ok && k < argc; k++)
        ok &= push(&b, argv[k]) == 0;
    if (!ok) {
        fprintf(stderr, "%s: out of memory\n", prog_name);
        return 1;
    }
    if (o.verbose || (getenv("WEFT_DEBUG") && strcmp(getenv("WEFT_DEBUG"), "0"))) {
        fprintf(stderr, "%s: handing the job to", prog_name);
        for (int k = 0; k < b.n; k++)
            fprintf(stderr, " %s", b.v[k]);
        fputc('\n', stderr);
    }
    fflush(NULL);
    execv(exe, b.v);
    fprintf(stderr, "%s: cannot run %s: %s\n", prog_name, exe, strerror(errno));
    return 127;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* record.c owns the traffic recorder's state: this PE's counts (what it sent
 * to each PE, by kind; how long it waited, by kind), the life cycle around
 * them (shmem_init* and start_pes switch recording on, shmem_pcontrol
 * pauses and resumes it, the last shmem_finalize gathers every PE's counts
 * on PE 0 through symmetric memory and writes the report), and the
 * WEFT_TRAFFIC setting. It is part of libweft-traffic.so, which only a job
 * that asks for a report loads (oshrun --traffic, or LD_PRELOAD): libweft
 * itself records nothing, so other programs pay nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pshmem.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "traffic.h"

#define TR_NAME(id, name) name,
const char *const tr_kind_names[TR_NKINDS] = {TR_KINDS(TR_NAME)};
const char *const tr_wait_names[TR_NWAITS] = {TR_WAITS(TR_NAME)};
#undef TR_NAME

/* libweft looks this symbol up at shmem_init to tell whether a job that
 * sets WEFT_TRAFFIC has the recorder loaded. */
__attribute__((visibility("default"))) const int weft_traffic_recorder = 1;

static int tr_on;              /* recording (atomic loads: threads) */
static int tr_threads;         /* SHMEM_THREAD_MULTIPLE: counts are added atomically */
static int tr_depth;           /* initializations not yet finalized */
static int tr_npes, tr_me;
static struct tr_cell *tr_row; /* tr_npes cells: what this PE sent to each */
static struct tr_summary tr_sum;
static uint64_t tr_start_ns;
static char tr_stem[PATH_MAX]; /* report path without .html/.json */

#define TR_ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
/* Below SHMEM_THREAD_MULTIPLE the program's calls never overlap (SERIALIZED
 * orders them itself), so plain additions are exact and cost a few cycles
 * instead of a locked instruction each. */
#define TR_ADD(p, v)                                                                     \
    do {                                                                                 \
        if (tr_threads)                                                                  \
            TR_ATOMIC_ADD(p, v);                                                         \
        else                                                                             \
            *(p) += (v);                                                                 \
    } while (0)

uint64_t tr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int tr_recording(void)
{
    return __atomic_load_n(&tr_on, __ATOMIC_RELAXED);
}

static inline void tr_cell_add(int pe, enum tr_kind kind, uint64_t bytes)
{
    TR_ADD(&tr_row[pe].ops[kind], 1);
    TR_ADD(&tr_row[pe].bytes[kind], bytes);
}

/* The world number of PE `pe` of team; -1 if there is none. */
static int tr_world(shmem_team_t team, int pe)
{
    if (team == SHMEM_TEAM_WORLD)
        return pe;
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    return pshmem_team_translate_pe(team, pe, SHMEM_TEAM_WORLD);
}

/* One call, one cell: the calls of these kinds are the sums of the row,
 * added up at the end. A bad PE has already ended the job inside weft;
 * never index with it. */
void tr_op(int pe, enum tr_kind kind, uint64_t bytes)
{
    if (tr_recording() && pe >= 0 && pe < tr_npes)
        tr_cell_add(pe, kind, bytes);
}

void tr_op_ctx(shmem_ctx_t ctx, int pe, enum tr_kind kind, uint64_t bytes)
{
    if (!tr_recording())
        return;
    /* A context's PE numbers are those of its team. */
    if (ctx != SHMEM_CTX_DEFAULT) {
        shmem_team_t team;
        if (ctx == SHMEM_CTX_INVALID || pshmem_ctx_get_team(ctx, &team) != 0)
            return;
        pe = tr_world(team, pe);
    }
    tr_op(pe, kind, bytes);
}

void tr_wait(enum tr_wait w, uint64_t t0)
{
    if (!tr_recording())
        return;
    TR_ADD(&tr_sum.wait_ns[w], tr_now() - t0);
    TR_ADD(&tr_sum.wait_calls[w], 1);
}

/* Members [0, n) of a group this PE is member `me` of, world number of
 * member i given by world(i): records what the pattern sends. */
static void tr_coll(int n, int me, int (*world)(const void *, int), const void *group,
                    enum tr_pattern p, int root, uint64_t bytes, uint64_t t0)
{
    if (!tr_recording())
        return;
    tr_wait(TR_COLLWAIT, t0);
    TR_ADD(&tr_sum.calls[TR_COLL], 1);
    if (me < 0 || (p == TR_FROM_ROOT && me != root))
        return;
    for (int i = p == TR_TO_HIGHER ? me + 1 : 0; i < n; i++) {
        int pe = i == me ? -1 : world(group, i);
        if (pe >= 0 && pe < tr_npes)
            tr_cell_add(pe, TR_COLL, bytes);
    }
}

static int tr_team_member(const void *team, int i)
{
    return tr_world((shmem_team_t)team, i);
}

void tr_coll_team(shmem_team_t team, enum tr_pattern p, int root, uint64_t bytes, uint64_t t0)
{
    if (!tr_recording() || team == SHMEM_TEAM_INVALID)
        return;
    tr_coll(pshmem_team_n_pes(team), pshmem_team_my_pe(team), tr_team_member, team, p, root,
            bytes, t0);
}

struct tr_aset {
    int start, stride;
};

static int tr_aset_member(const void *set, int i)
{
    const struct tr_aset *a = set;
    return a->start + i * a->stride;
}

void tr_coll_aset(int start, int log_stride, int size, enum tr_pattern p, int root,
                  uint64_t bytes, uint64_t t0)
{
    if (!tr_recording() || log_stride < 0 || log_stride > 30)
        return;
    struct tr_aset a = {start, 1 << log_stride};
    int me = (tr_me - start) % a.stride == 0 ? (tr_me - start) / a.stride : -1;
    if (me >= size)
        me = -1;
    tr_coll(size, me, tr_aset_member, &a, p, root, bytes, t0);
}

/* ---- life cycle ------------------------------------------------------------------ */

static void tr_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tr_die(const char *fmt, ...)
{
    char msg[PATH_MAX + 512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "weft traffic: PE %d: %s\n", tr_me, msg);
    fflush(stderr);
    pshmem_global_exit(1);
}

/* WEFT_TRAFFIC, made absolute (the program may change directory) and
 * stripped of .html/.htm/.json: the report is <stem>.html and <stem>.json. */
static void tr_read_setting(void)
{
    const char *v = getenv("WEFT_TRAFFIC");
    if (!v || !*v) {
        tr_stem[0] = '\0';
        return;
    }
    char path[PATH_MAX];
    int n;
    if (v[0] == '/') {
        n = snprintf(path, sizeof path, "%s", v);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            tr_die("WEFT_TRAFFIC=%s: cannot tell the current directory: %s", v, strerror(errno));
        n = snprintf(path, sizeof path, "%s/%s", cwd, v);
    }
    if (n < 0 || n >= (int)sizeof path - 8)
        tr_die("WEFT_TRAFFIC=%s: path too long", v);
    size_t len = strlen(path);
    static const char *const ext[] = {".html", ".htm", ".json"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t el = strlen(ext[i]);
        if (len > el && strcmp(path + len - el, ext[i]) == 0) {
            path[len - el] = '\0';
            break;
        }
    }
    len = strlen(path);
    if (len == 0 || path[len - 1] == '/')
        tr_die("WEFT_TRAFFIC=%s: names a directory; give a file name such as report.html", v);
    memcpy(tr_stem, path, len + 1);
    /* Fail now rather than after the whole run: PE 0 writes the report. */
    if (tr_me == 0) {
        char dir[PATH_MAX];
        memcpy(dir, path, len + 1);
        char *slash = strrchr(dir, '/');
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
        if (access(dir, W_OK | X_OK) != 0)
            tr_die("WEFT_TRAFFIC=%s: cannot write the report into %s: %s", v, dir,
                   strerror(errno));
    }
}

static void tr_started(void)
{
    if (tr_depth++ > 0)
        return;
    tr_me = pshmem_my_pe();
    tr_npes = pshmem_n_pes();
    tr_read_setting();
    tr_row = calloc((size_t)tr_npes, sizeof *tr_row);
    if (!tr_row)
        tr_die("no memory for the counts of %d PEs", tr_npes);
    memset(&tr_sum, 0, sizeof tr_sum);
    if (gethostname(tr_sum.host, sizeof tr_sum.host - 1) != 0)
        strcpy(tr_sum.host, "?");
    tr_start_ns = tr_now();
    if (!tr_stem[0]) {
        if (tr_me == 0)
            fprintf(stderr, "weft traffic: the recorder is loaded but WEFT_TRAFFIC is not set: "
                            "recording nothing (docs/traffic.md)\n");
        return;
    }
    __atomic_store_n(&tr_on, 1, __ATOMIC_RELAXED);
}

/* The program's command line, for the report's title. */
static void tr_program(char *out, size_t len)
{
    snprintf(out, len, "?");
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return;
    size_t n = fread(out, 1, len - 1, f);
    fclose(f);
    out[n] = '\0';
    for (size_t i = 0; i + 1 < n; i++)
        if (out[i] == '\0')
            out[i] = ' ';
}

/* Every PE: copy its counts into symmetric memory; PE 0 reads them all and
 * writes the report. Collective, like the finalize it runs in. */
static void tr_gather(void)
{
    __atomic_store_n(&tr_on, 0, __ATOMIC_RELAXED);
    tr_sum.elapsed_ns = tr_now() - tr_start_ns;
    for (int k = 0; k < TR_NKINDS; k++)
        if (k != TR_COLL)
            for (int pe = 0; pe < tr_npes; pe++)
                tr_sum.calls[k] += tr_row[pe].ops[k];
    size_t row_bytes = (size_t)tr_npes * sizeof(struct tr_cell);
    size_t bytes = sizeof(struct tr_summary) + row_bytes;
    /* Every PE asks for the same size, so all get memory or none does. */
    unsigned char *sym = pshmem_malloc(bytes);
    if (!sym) {
        if (tr_me == 0)
            fprintf(stderr,
                    "weft traffic: no report: the symmetric heap has no %zu bytes left to gather "
                    "the counts (raise SHMEM_SYMMETRIC_SIZE)\n",
                    bytes);
        return;
    }
    memcpy(sym, &tr_sum, sizeof tr_sum);
    memcpy(sym + sizeof tr_sum, tr_row, row_bytes);
    pshmem_barrier_all();
    struct tr_cell *cells = NULL;
    struct tr_summary *sums = NULL;
    if (tr_me == 0) {
        cells = malloc((size_t)tr_npes * row_bytes);
        sums = malloc((size_t)tr_npes * sizeof *sums);
        if (!cells || !sums)
            tr_die("no memory to gather the counts of %d PEs", tr_npes);
        for (int pe = 0; pe < tr_npes; pe++) {
            pshmem_getmem(&sums[pe], sym, sizeof *sums, pe);
            pshmem_getmem(&cells[(size_t)pe * (size_t)tr_npes], sym + sizeof tr_sum, row_bytes,
                          pe);
        }
    }
    pshmem_barrier_all();
    pshmem_free(sym);
    if (tr_me == 0) {
        char program[1024], created[32], err[PATH_MAX + 256];
        tr_program(program, sizeof program);
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
        struct tr_report r = {tr_npes, cells, sums, program, created};
        if (tr_write_report(tr_stem, &r, err, sizeof err) != 0)
            tr_die("%s", err);
        fprintf(stderr, "weft traffic: report written to %s.html (figures: %s.json)\n", tr_stem,
                tr_stem);
        free(cells);
        free(sums);
    }
}

static void tr_finishing(void)
{
    if (tr_depth == 0 || --tr_depth > 0)
        return;
    if (tr_stem[0])
        tr_gather();
    __atomic_store_n(&tr_on, 0, __ATOMIC_RELAXED);
    free(tr_row);
    tr_row = NULL;
}

/* A program that returns from main without shmem_finalize is finalized by
 * weft at exit; this handler, registered after weft's, runs first. */
static void tr_at_exit(void)
{
    while (tr_depth > 0)
        tr_finishing();
}

static void tr_after_init(void)
{
    static int registered;
    tr_started();
    if (!registered) {
        atexit(tr_at_exit);
        registered = 1;
    }
}

void shmem_init(void)
{
    pshmem_init();
    tr_after_init();
}

int shmem_init_thread(int requested, int *provided)
{
    int level = 0;
    int rc = pshmem_init_thread(requested, &level);
    if (provided)
        *provided = level;
    if (rc == 0) {
        if (level == SHMEM_THREAD_MULTIPLE)
            tr_threads = 1;
        tr_after_init();
    }
    return rc;
}

void start_pes(int npes)
{
    pstart_pes(npes);
    tr_after_init();
}

void shmem_finalize(void)
{
    tr_finishing();
    pshmem_finalize();
}

/* OpenSHMEM's request to a profiling tool: 0 pauses recording, 1 and 2
 * resume it (there is no buffer to flush), other levels are ignored. */
void shmem_pcontrol(int level, ...)
{
    if (tr_row && tr_stem[0] && (level == 0 || level == 1 || level == 2))
        __atomic_store_n(&tr_on, level != 0, __ATOMIC_RELAXED);
    pshmem_pcontrol(level);
}

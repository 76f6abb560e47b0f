/* SPDX-License-Identifier: BSD-3-Clause */
/* boot.c: the launcher bootstrap behind bootstrap.h. Detects the launcher
 * and says why (the order is documented in docs/launching.md):
 *   1. PMI_FD set: PMI-1 over an inherited socket (oshrun, mpiexec.hydra,
 *      srun --mpi=pmi2, whose plugin also answers PMI-1);
 *   2. PMI_PORT set: PMI-1 over TCP (mpiexec.hydra -pmi-port);
 *   3. PMIX_NAMESPACE or PMIX_RANK set: PMIx (Open MPI's mpirun, prterun,
 *      srun --mpi=pmix), when built with libpmix;
 *   4. a launcher that started several processes but offers none of these
 *      (srun --mpi=none, PMI_SIZE > 1 alone, ...): refused with a message
 *      naming the launcher and the option to use, never a silent singleton;
 *   5. nothing: a singleton, rank 0 of 1 with a local key-value store.
 * WEFT_BOOTSTRAP=pmi1|pmix|singleton overrides the detection. Also
 * validates arguments and builds allgather on what each protocol does
 * best. */
#include "bootstrap/bootstrap.h"
#include "bootstrap/locality.h"
#include "bootstrap/pmi1.h"
#include "bootstrap/pmix_boot.h"
#include "core/error.h"
#include "core/tunables.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum boot_kind { BOOT_NONE, BOOT_SINGLETON, BOOT_PMI1, BOOT_PMIX };

static enum boot_kind boot_kind = BOOT_NONE;
static int boot_rank, boot_size;
static int boot_local_rank = -1, boot_local_size = -1, boot_node = -1;
static char boot_why[320];

/* Singleton key-value store. */
struct local_kv {
    struct local_kv *next;
    char *key;
    size_t len;
    unsigned char val[];
};
static struct local_kv *local_kvs;

static int parse_env_int(const char *name, const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        weft_warn("bootstrap", "%s='%s' set by the launcher is not an integer in [%ld, %ld]", name,
                  s, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* An environment variable as a count; 0 when unset or not a number. */
static long env_count(const char *name)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || *end ? 0 : v;
}

/* This process's rank according to the foreign launcher (to let only its
 * first process explain), -1 if unknown. */
static long foreign_rank(const char *var)
{
    const char *s = getenv(var);
    if (!s || !*s)
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    return *end ? -1 : v;
}

/* Step 4 of the detection: a launcher that started several processes but
 * that weft cannot talk to. Ends the process, its first process saying
 * why; returns 0 when nothing suggests such a launcher. */
static int refuse_foreign_launcher(void)
{
    /* Which variable says how many processes, which one says which is this. */
    static const struct {
        const char *size, *rank;
    } signs[] = {
        {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID"}, {"SLURM_NTASKS", "SLURM_PROCID"},
        {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"},
        {"MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"},
    };
    size_t k = 0;
    long n = 0;
    for (; k < sizeof signs / sizeof signs[0]; k++) {
        n = env_count(signs[k].size);
        /* SLURM_NTASKS alone is set in a plain salloc shell too. */
        if (n > 1 && (k != 1 || getenv("SLURM_PROCID")))
            break;
    }
    if (k == sizeof signs / sizeof signs[0])
        return 0;
    long me = foreign_rank(signs[k].rank);
    char msg[640];
    if (k <= 1)
        snprintf(msg, sizeof msg,
                 "srun started %ld tasks but gave them no PMI interface (--mpi=none, Slurm's "
                 "default MpiDefault=none): each would run alone as PE 0 of 1. Launch with "
                 "srun --mpi=pmi2%s (or MpiDefault=pmi2 in slurm.conf)", n,
                 WEFT_HAVE_PMIX ? " or srun --mpi=pmix" : "");
    else if (k == 2)
        snprintf(msg, sizeof msg, "Open MPI's mpirun started %ld processes, but %s: each would "
                 "run alone as PE 0 of 1. %s", n,
                 WEFT_HAVE_PMIX ? "its PMIx server did not identify itself (PMIX_NAMESPACE unset)"
                                : "this weft was built without PMIx",
                 WEFT_HAVE_PMIX ? "Launch with weft's oshrun or mpiexec.hydra"
                                : "Rebuild weft with libpmix-dev installed, or launch with weft's "
                                  "oshrun or mpiexec.hydra");
    else
        snprintf(msg, sizeof msg, "%s=%ld says a launcher started %ld processes, but neither "
                 "PMI_FD nor PMI_PORT tells how to reach it: each would run alone as PE 0 of 1. "
                 "Launch with oshrun, mpiexec.hydra or srun --mpi=pmi2", signs[k].size, n, n);
    /* The first process explains; the others just fail with it. */
    if (me > 0)
        _exit(1);
    weft_fatal("shmem_init", "%s. WEFT_BOOTSTRAP=singleton runs each process alone on purpose "
               "(docs/launching.md)", msg);
}

static int init_pmi1_fd(const char *fd_s)
{
    const char *rank_s = weft_tun_str(WEFT_TUN_PMI_RANK);
    const char *size_s = weft_tun_str(WEFT_TUN_PMI_SIZE);
    int fd, r, n;
    if (parse_env_int("PMI_FD", fd_s, 0, 1 << 30, &fd) != 0 ||
        parse_env_int("PMI_SIZE", size_s, 1, 1 << 30, &n) != 0 ||
        parse_env_int("PMI_RANK", rank_s, 0, n - 1, &r) != 0)
        return -1;
    if (weft_pmi1_init(fd, r, n) != 0) {
        weft_warn("bootstrap", "cannot connect to the launcher over PMI_FD=%d (PMI-1)", fd);
        return -1;
    }
    boot_rank = r;
    boot_size = n;
    return 0;
}

static int init_pmi1_port(const char *port)
{
    const char *id_s = weft_tun_str(WEFT_TUN_PMI_ID);
    int id = 0, r, n;
    if (*id_s && parse_env_int("PMI_ID", id_s, 0, 1 << 30, &id) != 0)
        return -1;
    int fd = weft_pmi1_connect_port(port, id, &r, &n);
    if (fd < 0 || weft_pmi1_init(fd, r, n) != 0) {
        weft_warn("bootstrap", "cannot connect to the launcher at PMI_PORT=%s (PMI-1)", port);
        return -1;
    }
    boot_rank = r;
    boot_size = n;
    return 0;
}

static int init_pmix(void)
{
#if WEFT_HAVE_PMIX
    return weft_pmix_init(&boot_rank, &boot_size, &boot_local_rank, &boot_local_size, &boot_node);
#else
    weft_warn("shmem_init", "started by a PMIx launcher (PMIX_NAMESPACE/PMIX_RANK set: mpirun, "
              "prterun or srun --mpi=pmix) but this weft was built without PMIx. Rebuild with "
              "libpmix-dev installed, or launch with weft's oshrun, mpiexec.hydra or srun "
              "--mpi=pmi2");
    return -1;
#endif
}

int weft_boot_init(int *rank, int *size)
{
    if (boot_kind != BOOT_NONE) {
        *rank = boot_rank;
        *size = boot_size;
        return 0;
    }
    const char *force = weft_tun_str(WEFT_TUN_BOOTSTRAP);
    const char *fd_s = weft_tun_str(WEFT_TUN_PMI_FD);
    const char *port = weft_tun_str(WEFT_TUN_PMI_PORT);
    const char *pmix_ns = getenv("PMIX_NAMESPACE");
    const char *pmix_rank = getenv("PMIX_RANK");
    int auto_mode = !*force || strcmp(force, "auto") == 0;
    enum boot_kind want;
    int rc;
    if (!auto_mode && strcmp(force, "pmi1") && strcmp(force, "pmix") && strcmp(force, "singleton")) {
        weft_warn("shmem_init", "WEFT_BOOTSTRAP='%s' is not auto, pmi1, pmix or singleton", force);
        return -1;
    }
    if (auto_mode ? *fd_s || *port : strcmp(force, "pmi1") == 0) {
        want = BOOT_PMI1;
        if (*fd_s) {
            snprintf(boot_why, sizeof boot_why, "PMI-1 over PMI_FD=%s (%s)", fd_s,
                     auto_mode ? "oshrun, mpiexec.hydra or srun --mpi=pmi2" : "WEFT_BOOTSTRAP");
            rc = init_pmi1_fd(fd_s);
        } else if (*port) {
            snprintf(boot_why, sizeof boot_why, "PMI-1 over PMI_PORT=%s (%s)", port,
                     auto_mode ? "mpiexec.hydra -pmi-port" : "WEFT_BOOTSTRAP");
            rc = init_pmi1_port(port);
        } else {
            weft_warn("shmem_init", "WEFT_BOOTSTRAP=pmi1 but neither PMI_FD nor PMI_PORT is set");
            return -1;
        }
    } else if (auto_mode ? (pmix_ns && *pmix_ns) || (pmix_rank && *pmix_rank)
                         : strcmp(force, "pmix") == 0) {
        want = BOOT_PMIX;
        snprintf(boot_why, sizeof boot_why, "PMIx (%s)",
                 auto_mode ? "PMIX_NAMESPACE set: mpirun, prterun or srun --mpi=pmix"
                           : "WEFT_BOOTSTRAP");
        rc = init_pmix();
    } else {
        if (auto_mode && refuse_foreign_launcher() != 0)
            return -1;
        want = BOOT_SINGLETON;
        snprintf(boot_why, sizeof boot_why, "singleton (%s)",
                 auto_mode ? "no launcher: PMI_FD, PMI_PORT and PMIX_NAMESPACE unset"
                           : "WEFT_BOOTSTRAP");
        boot_rank = 0;
        boot_size = 1;
        rc = 0;
    }
    if (rc != 0)
        return -1;
    boot_kind = want;
    if (weft_debug_enabled)
        weft_debug("bootstrap: %s; PE %d of %d", boot_why, boot_rank, boot_size);
    *rank = boot_rank;
    *size = boot_size;
    return 0;
}

const char *weft_boot_reason(void)
{
    return boot_kind == BOOT_NONE ? "not connected" : boot_why;
}

void weft_boot_local(int *local_rank, int *local_size, int *node)
{
    *local_rank = boot_local_rank;
    *local_size = boot_local_size;
    *node = boot_node;
}

int weft_boot_locality(int domain[3])
{
#if WEFT_HAVE_PMIX
    char loc[512], cpus[512];
    if (boot_kind != BOOT_PMIX || weft_pmix_locality(loc, sizeof loc, cpus, sizeof cpus) != 0)
        return -1;
    if (!weft_cpulist_is_my_binding(cpus)) {
        weft_debug("pmix: bound to CPUs %s at launch, not now: its locality is not used", cpus);
        return -1;
    }
    if (weft_locality_parse(loc, domain) != 0) {
        weft_debug("pmix: locality \"%s\" not used (it does not name one NUMA node)", loc);
        return -1;
    }
    return 0;
#else
    (void)domain;
    return -1;
#endif
}

const char *weft_boot_name(void)
{
    switch (boot_kind) {
    case BOOT_PMI1:
        return "pmi1";
    case BOOT_PMIX:
        return "pmix";
    case BOOT_SINGLETON:
        return "singleton";
    default:
        return "none";
    }
}

static int check_ready(const char *call)
{
    if (boot_kind == BOOT_NONE) {
        weft_warn(call, "bootstrap used before weft_boot_init");
        return -1;
    }
    return 0;
}

/* Keys travel as PMI tokens: printable, no spaces, '=' or ':' (our split
 * separator), and short. */
static int check_key(const char *call, const char *key)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0 || n > 200)
        goto bad;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)key[i];
        if (c <= ' ' || c >= 127 || c == '=' || c == ':')
            goto bad;
    }
    return 0;
bad:
    weft_warn(call, "invalid bootstrap key '%s' (1-200 printable characters, no spaces, '=', ':')",
              key ? key : "(null)");
    return -1;
}

static struct local_kv *local_find(const char *key)
{
    for (struct local_kv *kv = local_kvs; kv; kv = kv->next)
        if (strcmp(kv->key, key) == 0)
            return kv;
    return NULL;
}

int weft_boot_put(const char *key, const void *val, size_t len)
{
    if (check_ready("weft_boot_put") != 0 || check_key("weft_boot_put", key) != 0)
        return -1;
    if (boot_kind == BOOT_PMI1)
        return weft_pmi1_put(key, val, len);
#if WEFT_HAVE_PMIX
    if (boot_kind == BOOT_PMIX)
        return weft_pmix_put(key, val, len);
#endif

    struct local_kv *kv = malloc(sizeof *kv + len);
    char *k = strdup(key);
    if (!kv || !k) {
        free(kv);
        free(k);
        weft_warn("weft_boot_put", "out of memory");
        return -1;
    }
    kv->key = k;
    kv->len = len;
    if (len)
        memcpy(kv->val, val, len);
    /* Newest first, so a re-put shadows the old value. */
    kv->next = local_kvs;
    local_kvs = kv;
    return 0;
}

int weft_boot_fence(void)
{
    if (check_ready("weft_boot_fence") != 0)
        return -1;
#if WEFT_HAVE_PMIX
    if (boot_kind == BOOT_PMIX)
        return weft_pmix_fence(1);
#endif
    return boot_kind == BOOT_PMI1 ? weft_pmi1_barrier() : 0;
}

int weft_boot_get(int rank, const char *key, void *val, size_t *len)
{
    if (check_ready("weft_boot_get") != 0 || check_key("weft_boot_get", key) != 0)
        return -1;
    if (rank < 0 || rank >= boot_size) {
        weft_warn("weft_boot_get", "rank %d out of range [0, %d)", rank, boot_size);
        return -1;
    }
    if (boot_kind == BOOT_PMI1)
        return weft_pmi1_get(rank, key, val, len);
#if WEFT_HAVE_PMIX
    if (boot_kind == BOOT_PMIX)
        return weft_pmix_get(rank, key, val, len);
#endif

    struct local_kv *kv = local_find(key);
    if (!kv) {
        weft_warn("weft_boot_get", "no value for key '%s'", key);
        return -1;
    }
    if (kv->len > *len) {
        weft_warn("weft_boot_get", "value of key '%s' is %zu bytes, buffer holds %zu", key, kv->len,
                  *len);
        *len = kv->len;
        return -1;
    }
    if (kv->len)
        memcpy(val, kv->val, kv->len);
    *len = kv->len;
    return 0;
}

int weft_boot_allgather(const char *key, const void *mine, void *all, size_t len)
{
    if (check_ready("weft_boot_allgather") != 0 || check_key("weft_boot_allgather", key) != 0)
        return -1;
    /* PMI-1: the gets pipelined; PMIx: one fence collecting everything,
     * then gets answered locally; singleton: our own value. */
    if (boot_kind == BOOT_PMI1)
        return weft_pmi1_allgather(key, mine, all, len);
    if (weft_boot_put(key, mine, len) != 0 || weft_boot_fence() != 0)
        return -1;
    unsigned char *out = all;
    for (int r = 0; r < boot_size; r++) {
        unsigned char *dst = out + (size_t)r * len;
        if (r == boot_rank) {
            if (len)
                memmove(dst, mine, len);
            continue;
        }
        size_t got = len;
        if (weft_boot_get(r, key, dst, &got) != 0)
            return -1;
        if (got != len) {
            weft_warn("weft_boot_allgather", "PE %d contributed %zu bytes under '%s', expected %zu",
                      r, got, key, len);
            return -1;
        }
    }
    return 0;
}

int weft_boot_watch_fd(void)
{
    return boot_kind == BOOT_PMI1 ? weft_pmi1_fd() : -1;
}

void weft_boot_explained(void)
{
    if (boot_kind == BOOT_PMI1)
        weft_pmi1_explained();
}

int weft_boot_barrier(void)
{
    if (check_ready("weft_boot_barrier") != 0)
        return -1;
#if WEFT_HAVE_PMIX
    if (boot_kind == BOOT_PMIX)
        return weft_pmix_fence(0);
#endif
    return boot_kind == BOOT_PMI1 ? weft_pmi1_barrier() : 0;
}

/* Before asking the launcher to end the job, let it read what this PE wrote
 * to stdout/stderr: Hydra's proxy reads them from pipes and can tear the
 * job down on our abort before it has forwarded the error message that
 * explains it. Waits (at most a second) until the pipes are empty. */
static void wait_stdio_read(void)
{
    for (int fd = 1; fd <= 2; fd++) {
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
            continue;
        for (int i = 0; i < 100; i++) {
            int unread = 0;
            if (ioctl(fd, FIONREAD, &unread) != 0 || unread == 0)
                break;
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

void weft_boot_abort(int status, const char *msg)
{
    /* The launcher ends the job with the low byte of status: errors pass 1,
     * shmem_global_exit(0) passes 0 and the job exits 0 as the spec says;
     * a non-zero status whose low byte is 0 (256, INT_MIN) passes 1. */
    int code = status == 0 ? 0 : (status & 0xff) ? status & 0xff : 1;
    if (msg && *msg)
        fprintf(stderr, "weft: PE %d: aborting job: %s\n", boot_rank, msg);
    fflush(stdout);
    fflush(stderr);
    if (boot_kind == BOOT_PMI1 || boot_kind == BOOT_PMIX)
        wait_stdio_read();
    if (boot_kind == BOOT_PMI1)
        weft_pmi1_abort(code);
#if WEFT_HAVE_PMIX
    if (boot_kind == BOOT_PMIX)
        weft_pmix_abort(code, msg);
#endif
    _exit(code);
}

int weft_boot_finalize(void)
{
    int rc = 0;
    if (boot_kind == BOOT_PMI1)
        rc = weft_pmi1_finalize();
#if WEFT_HAVE_PMIX
    if (boot_kind == BOOT_PMIX)
        rc = weft_pmix_finalize();
#endif
    while (local_kvs) {
        struct local_kv *kv = local_kvs;
        local_kvs = kv->next;
        free(kv->key);
        free(kv);
    }
    boot_kind = BOOT_NONE;
    return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* pmix.c: the PMIx client bootstrap, used when the launcher is a PMIx
 * server (Open MPI's mpirun, prterun, srun --mpi=pmix). Rank, size, local
 * rank and node come from the PMIx job data; the key exchange is one
 * PMIx_Put per value, PMIx_Commit, then one PMIx_Fence that collects every
 * rank's data, after which PMIx_Get is answered from the local server's
 * copy (no request per peer to a central server). Compiled only when
 * libpmix is found (WEFT_HAVE_PMIX); boot.c never calls in otherwise. */
#include "bootstrap/pmix_boot.h"
#include "core/error.h"
#include "core/lifeline.h"
#include "core/tunables.h"

#if WEFT_HAVE_PMIX

#include <pmix.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t myproc;
static int pmix_up;

/* A uint32 or uint16 job/proc attribute; -1 if the server does not say. */
static long get_number(const pmix_proc_t *who, const char *attr)
{
    pmix_value_t *v = NULL;
    if (PMIx_Get(who, attr, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    long out = -1;
    switch (v->type) {
    case PMIX_UINT32:
        out = (long)v->data.uint32;
        break;
    case PMIX_UINT16:
        out = (long)v->data.uint16;
        break;
    case PMIX_INT:
        out = (long)v->data.integer;
        break;
    case PMIX_UINT64:
        out = (long)v->data.uint64;
        break;
    default:
        break;
    }
    PMIX_VALUE_RELEASE(v);
    return out;
}

/* PMIx's own thread calls this when the connection to the local server
 * (mpirun, prted, slurmstepd) is lost: the launcher is gone. */
static void server_lost(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    if (pmix_up)
        weft_launcher_gone(status == PMIX_ERR_UNREACH ? "its PMIx server is unreachable"
                                                      : "the connection to its PMIx server "
                                                        "was lost");
}

/* Die with the launcher: its PMIx event, and the parent-death signal (the
 * parent is the launcher's daemon: mpirun, prted, slurmstepd). SIGTERM, so
 * that libfabric's shm provider can remove its region on the way; a PE
 * that ignores it is ended by the event or by core/lifeline.c's thread. */
static void watch_server(void)
{
    /* PMIx 4 reports PMIX_ERR_LOST_CONNECTION; older ones the name kept
     * in pmix_deprecated.h. */
    pmix_status_t codes[] = {PMIX_ERR_LOST_CONNECTION, PMIX_ERR_UNREACH,
#ifdef PMIX_ERR_LOST_CONNECTION_TO_SERVER
                             PMIX_ERR_LOST_CONNECTION_TO_SERVER
#endif
    };
    pmix_status_t rc = PMIx_Register_event_handler(codes, sizeof codes / sizeof codes[0], NULL, 0,
                                                   server_lost, NULL, NULL);
    if (rc < 0)
        weft_debug("pmix: registering for the loss of the server: %s", PMIx_Error_string(rc));
    if (getppid() > 1)
        (void)prctl(PR_SET_PDEATHSIG, SIGTERM);
}

int weft_pmix_init(int *rank, int *size, int *local_rank, int *local_size, int *node)
{
    pmix_status_t rc = PMIx_Init(&myproc, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        weft_warn("bootstrap", "PMIx_Init failed: %s (is this process started by a PMIx "
                  "launcher: mpirun, prterun, srun --mpi=pmix?)", PMIx_Error_string(rc));
        return -1;
    }
    pmix_up = 1;
    watch_server();
    pmix_proc_t wild;
    PMIX_PROC_LOAD(&wild, myproc.nspace, PMIX_RANK_WILDCARD);
    long n = get_number(&wild, PMIX_JOB_SIZE);
    if (n < 1 || n > (1L << 30) || myproc.rank >= (pmix_rank_t)n) {
        weft_warn("bootstrap", "PMIx: job size %ld or rank %u not usable", n, myproc.rank);
        return -1;
    }
    *rank = (int)myproc.rank;
    *size = (int)n;
    *local_rank = (int)get_number(&myproc, PMIX_LOCAL_RANK);
    *local_size = (int)get_number(&wild, PMIX_LOCAL_SIZE);
    *node = (int)get_number(&myproc, PMIX_NODEID);
    if (weft_debug_enabled)
        weft_debug("pmix: PE %d of %d, namespace %s, local rank %d of %d, node %d (PMIx %s)",
                   *rank, *size, myproc.nspace, *local_rank, *local_size, *node,
                   PMIx_Get_version());
    return 0;
}

/* PMIx_Get of key for who with PMIX_OPTIONAL: a missing key is an
 * immediate error instead of a wait for it to appear. */
static pmix_status_t get_optional(const pmix_proc_t *who, const char *key, pmix_value_t **v)
{
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(who, key, &info, 1, v);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

/* A string attribute of this process, copied into buf; 0, or -1 when the
 * server does not have it (asked once, never waited for). */
static int get_my_string(const char *attr, char *buf, size_t cap)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = get_optional(&myproc, attr, &v);
    if (rc != PMIX_SUCCESS || !v)
        return -1;
    int ret = -1;
    if (v->type == PMIX_STRING && v->data.string && strlen(v->data.string) < cap) {
        strcpy(buf, v->data.string);
        ret = 0;
    }
    PMIX_VALUE_RELEASE(v);
    return ret;
}

int weft_pmix_locality(char *loc, size_t loc_cap, char *cpus, size_t cpus_cap)
{
    if (get_my_string(PMIX_LOCALITY_STRING, loc, loc_cap) != 0 ||
        get_my_string(PMIX_CPUSET, cpus, cpus_cap) != 0)
        return -1;
    return 0;
}

int weft_pmix_put(const char *key, const void *val, size_t len)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)(uintptr_t)val; /* PMIx_Put copies it */
    v.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    v.data.bo.bytes = NULL; /* not ours to free */
    v.data.bo.size = 0;
    if (rc != PMIX_SUCCESS) {
        weft_warn("bootstrap", "PMIx_Put of key '%s' (%zu bytes): %s", key, len,
                  PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

int weft_pmix_fence(int collect)
{
    pmix_status_t rc = PMIX_SUCCESS;
    if (collect && (rc = PMIx_Commit()) != PMIX_SUCCESS) {
        weft_warn("bootstrap", "PMIx_Commit: %s", PMIx_Error_string(rc));
        return -1;
    }
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
    PMIX_INFO_DESTRUCT(&info);
    if (rc == PMIX_ERR_PARTIAL_SUCCESS || rc == PMIX_ERR_PROC_TERM_WO_SYNC) {
        /* The fence fails this way only when a process of the job ended: say
         * that, not the failures of the steps that needed it. The launcher is
         * ending the job with that process's status; an abort of ours would
         * race it, so this PE waits to be taken down, and leaves on its own
         * only if that does not happen within 3 s. */
        weft_warn("bootstrap", "a PE of the job ended before the launcher's fence completed "
                               "(PMIx_Fence: %s)",
                  PMIx_Error_string(rc));
        struct timespec ms = {0, 1000000};
        for (int i = 0; i < 3000; i++)
            nanosleep(&ms, NULL);
        weft_fatal("bootstrap", "the launcher did not end the job");
    }
    if (rc == PMIX_ERR_LOST_CONNECTION)
        weft_fatal("bootstrap", "the launcher's server went during its fence (PMIx_Fence: %s)",
                   PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) {
        weft_warn("bootstrap", "PMIx_Fence: %s", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

int weft_pmix_get(int rank, const char *key, void *val, size_t *len)
{
    pmix_proc_t who;
    PMIX_PROC_LOAD(&who, myproc.nspace, (pmix_rank_t)rank);
    pmix_value_t *v = NULL;
    /* After the collecting fence every value is here. */
    pmix_status_t rc = get_optional(&who, key, &v);
    if (rc != PMIX_SUCCESS || !v) {
        weft_warn("bootstrap", "PMIx: PE %d published no value for key '%s': %s", rank, key,
                  PMIx_Error_string(rc));
        return -1;
    }
    int ret = 0;
    if (v->type != PMIX_BYTE_OBJECT) {
        weft_warn("bootstrap", "PMIx: value of key '%s' from PE %d has type %d, not bytes", key,
                  rank, (int)v->type);
        ret = -1;
    } else if (v->data.bo.size > *len) {
        weft_warn("bootstrap", "PMIx: value of key '%s' from PE %d is %zu bytes, buffer holds %zu",
                  key, rank, v->data.bo.size, *len);
        *len = v->data.bo.size;
        ret = -1;
    } else {
        if (v->data.bo.size)
            memcpy(val, v->data.bo.bytes, v->data.bo.size);
        *len = v->data.bo.size;
    }
    PMIX_VALUE_RELEASE(v);
    return ret;
}

void weft_pmix_abort(int status, const char *msg)
{
    if (!pmix_up)
        return;
    /* Open MPI 4.1's mpirun (ORTE, which sets OMPI_MCA_orte_hnp_uri)
     * mishandles PMIx_Abort: in 12 runs of `boot_test abort` at 4 PEs it
     * hung in PMIx_server_finalize (a lock taken by its own PMIx thread) 2
     * to 3 times and died by SIGSEGV 3 to 4 times, with every PE already
     * gone. A PE that exits non-zero without finalizing makes it end the
     * job by its ordinary path (0 of 40 hung or crashed, status passed
     * on, 1 s): the caller's _exit does that. Not for status 0
     * (shmem_global_exit(0)): that exit reads to mpirun as an improper one
     * and it ends the job with 1, so that case keeps PMIx_Abort. */
    if (status != 0 && getenv("OMPI_MCA_orte_hnp_uri"))
        return;
    (void)PMIx_Abort(status, msg && *msg ? msg : "weft: job aborted", NULL, 0);
    /* Let the launcher take the job down, us included, before we exit on
     * our own: Open MPI 4.1's mpirun can crash or hang when the aborting
     * process is already gone while it handles the abort. */
    for (int i = 0; i < 50; i++) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

int weft_pmix_finalize(void)
{
    if (!pmix_up)
        return 0;
    pmix_up = 0;
    weft_lifeline_leaving(); /* the server may close on us now */
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        weft_warn("bootstrap", "PMIx_Finalize: %s", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

#endif /* WEFT_HAVE_PMIX */

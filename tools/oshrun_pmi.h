/* SPDX-License-Identifier: BSD-3-Clause */
/* oshrun_pmi.h: what oshrun's launcher (oshrun.c: processes, signals,
 * teardown) and its PMI-1 server (oshrun_pmi.c: connections, key-value
 * store, barrier) share. The launcher owns the table of PEs; the server
 * reads and answers their requests and ends the job through teardown. */
#ifndef OSHRUN_PMI_H
#define OSHRUN_PMI_H

#include <stddef.h>
#include <sys/types.h>

struct pe {
    pid_t pid;   /* 0 once reaped */
    int fd;      /* our end of the PMI socket, -1 once closed */
    char *in;    /* bytes of requests not yet complete */
    size_t inlen, incap;
    char *out;   /* reply bytes not yet written */
    size_t outoff, outlen, outcap;
    int in_barrier;
    int exited;  /* reaped */
    int connected; /* sent cmd=init: it is a PE of the job, not a bystander */
    double stopped_at; /* when we saw it stopped (SIGSTOP, SIGTSTP...), 0 if running */
    int stop_sig;
    int finalized; /* sent cmd=finalize */
    int explained; /* sent cmd=weft_explained: it printed why it ends */
    size_t kv_keys, kv_bytes; /* what it stores in our key-value store */
    int kv_warned;
};

/* The launcher's side (oshrun.c). */
extern struct pe *pes;
extern int npes;
extern int tearing_down; /* a teardown has started */
extern const char *prog_name;
/* One line on stderr. */
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Start taking the job down: the first reason wins and sets the status. */
/* quiet: the PE that caused it printed the reason itself (weft does for
 * every end it sees, and says so: cmd=weft_explained), so the job shows
 * one line. */
void teardown_as(int quiet, int code, int sig, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define teardown(...) teardown_as(0, __VA_ARGS__)

/* The server's side (oshrun_pmi.c). */
void pmi_server_init(void); /* names the job's key-value space */
void pmi_server_fini(void); /* frees the store */
/* Read what the PE sent and serve every complete line. Returns -1 once the
 * connection is closed. */
int pe_read(int rank);
/* Write what is queued for the PE as far as its socket takes it. */
void pe_flush(struct pe *p);
void pe_close(struct pe *p);
/* A PE that exited outside the PMI barrier can never complete it: end the job. */
void check_barrier_deadlock(void);

#endif

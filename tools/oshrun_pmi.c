/* SPDX-License-Identifier: BSD-3-Clause */
/* oshrun_pmi.c owns oshrun's PMI-1 wire-protocol server: the PEs'
 * connections (a line of "cmd=... key=value" pairs per request), the job's
 * key-value store with its per-PE limits, the PMI barrier, abort and
 * finalize. The processes themselves are oshrun.c's (oshrun_pmi.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oshrun_pmi.h"

/* Limits we advertise in cmd=maxes (Hydra's values). As in MPICH, they
 * count a terminating NUL: keys and values must be strictly shorter. */
#define KVSNAME_MAX 256
#define KEYLEN_MAX 64
#define VALLEN_MAX 1024
#define REQ_MAX (64 * 1024) /* longest request line accepted from a PE */
/* What one PE may store in the key-value store (docs/reliability.md): weft
 * itself puts a few keys of at most a few KiB per PE, so these bounds are
 * generous for any real client and stop one PE from growing oshrun
 * without bound. Replacing a key's value counts its new size only. */
#define KV_KEYS_PER_PE 16384
#define KV_BYTES_PER_PE (64u * 1024 * 1024)

struct kv {
    struct kv *next;
    char *key, *val;
};

#define KV_BUCKETS 4096

static char kvsname[64];
static struct kv *kvtab[KV_BUCKETS];
static int barrier_count;

void pmi_server_init(void)
{
    snprintf(kvsname, sizeof kvsname, "oshrun_%ld", (long)getpid());
}

void pmi_server_fini(void)
{
    for (size_t b = 0; b < KV_BUCKETS; b++) {
        while (kvtab[b]) {
            struct kv *e = kvtab[b];
            kvtab[b] = e->next;
            free(e->key);
            free(e->val);
            free(e);
        }
    }
}

/* The job's exit status for a PE's code: its low byte, as exit(3) would
 * give, except that a non-zero code whose low byte is 0 (256, INT_MIN)
 * still fails the job. */
static int job_status(int code)
{
    if (code == 0)
        return 0;
    return (code & 0xff) ? code & 0xff : 1;
}

/* ---- key-value store --------------------------------------------------- */

static size_t kv_hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h % KV_BUCKETS;
}

static struct kv *kv_find(const char *key)
{
    for (struct kv *e = kvtab[kv_hash(key)]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

/* 0 stored; -1 out of memory; -2 over the PE's quota. */
static int kv_put(struct pe *p, const char *key, const char *val)
{
    struct kv *e = kv_find(key);
    size_t vlen = strlen(val), klen = strlen(key);
    size_t add = vlen + (e ? 0 : klen);
    if ((!e && p->kv_keys >= KV_KEYS_PER_PE) || p->kv_bytes + add > KV_BYTES_PER_PE)
        return -2;
    char *v = strdup(val);
    if (!v)
        return -1;
    p->kv_bytes += add;
    if (e) {
        free(e->val);
        e->val = v;
        return 0;
    }
    p->kv_keys++;
    e = malloc(sizeof *e);
    char *k = strdup(key);
    if (!e || !k) {
        free(e);
        free(k);
        free(v);
        return -1;
    }
    size_t h = kv_hash(key);
    e->key = k;
    e->val = v;
    e->next = kvtab[h];
    kvtab[h] = e;
    return 0;
}

/* ---- PMI connections --------------------------------------------------- */

void pe_close(struct pe *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    p->inlen = 0;
    p->outoff = p->outlen = 0;
}

void pe_flush(struct pe *p)
{
    while (p->fd >= 0 && p->outoff < p->outlen) {
        ssize_t n = send(p->fd, p->out + p->outoff, p->outlen - p->outoff, MSG_NOSIGNAL);
        if (n > 0) {
            p->outoff += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return; /* POLLOUT will bring us back */
        } else {
            /* The PE is gone; its exit status tells the story. */
            p->outoff = p->outlen = 0;
            return;
        }
    }
    p->outoff = p->outlen = 0;
}

static void reply(struct pe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(struct pe *p, const char *fmt, ...)
{
    if (p->fd < 0)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = p->outcap - p->outlen;
        int n = vsnprintf(p->out ? p->out + p->outlen : NULL, p->out ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        /* +1 for the newline that replaces the NUL */
        if (p->out && (size_t)n + 1 < room) {
            p->outlen += (size_t)n;
            p->out[p->outlen++] = '\n';
            break;
        }
        size_t cap = p->outcap ? p->outcap : 256;
        while (cap < p->outlen + (size_t)n + 2)
            cap *= 2;
        char *b = realloc(p->out, cap);
        if (!b) {
            msg("%s: out of memory", prog_name);
            exit(1);
        }
        p->out = b;
        p->outcap = cap;
    }
    pe_flush(p);
}

/* Split "a=b c=d" in place into at most max (name, value) pairs. */
struct tok {
    const char *name, *val;
};
static int tokenize(char *line, struct tok *t, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(line, " \t", &save); w && n < max; w = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(w, '=');
        if (eq)
            *eq = '\0';
        t[n].name = w;
        t[n].val = eq ? eq + 1 : "";
        n++;
    }
    return n;
}

static const char *tok_get(const struct tok *t, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return t[i].val;
    return NULL;
}

/* A PE that exited outside the barrier can never complete it. */
void check_barrier_deadlock(void)
{
    if (tearing_down || barrier_count == 0)
        return;
    for (int i = 0; i < npes; i++) {
        if (pes[i].exited && !pes[i].in_barrier) {
            teardown(1, SIGTERM, "PE %d exited while %d PE(s) wait for it in a PMI barrier", i,
                     barrier_count);
            return;
        }
    }
}

static void handle_request(int rank, char *line)
{
    struct pe *p = &pes[rank];
    struct tok t[16];
    int n = tokenize(line, t, 16);
    if (n == 0)
        return;
    if (tearing_down)
        return; /* the job is going away; nothing more to serve */
    const char *cmd = tok_get(t, n, "cmd");
    if (!cmd) {
        teardown(1, SIGTERM, "PE %d sent an unsupported PMI request '%s'", rank, t[0].name);
        return;
    }
    if (strcmp(cmd, "init") == 0) {
        const char *v = tok_get(t, n, "pmi_version");
        int ok = v && strcmp(v, "1") == 0;
        p->connected = 1;
        /* weft_explained=1: weft may say it printed why it ends (below). */
        reply(p, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=%d weft_explained=1",
              ok ? 0 : -1);
    } else if (strcmp(cmd, "get_maxes") == 0) {
        reply(p, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d", KVSNAME_MAX, KEYLEN_MAX,
              VALLEN_MAX);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        reply(p, "cmd=my_kvsname kvsname=%s", kvsname);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        reply(p, "cmd=appnum appnum=0");
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        reply(p, "cmd=universe_size size=%d", npes);
    } else if (strcmp(cmd, "put") == 0) {
        int rc;
        const char *kvs = tok_get(t, n, "kvsname");
        const char *key = tok_get(t, n, "key");
        const char *val = tok_get(t, n, "value");
        if (!kvs || strcmp(kvs, kvsname) != 0)
            reply(p, "cmd=put_result rc=-1 msg=unknown_kvsname");
        else if (!key || !*key || strlen(key) >= KEYLEN_MAX)
            reply(p, "cmd=put_result rc=-1 msg=invalid_key");
        else if (!val || strlen(val) >= VALLEN_MAX)
            reply(p, "cmd=put_result rc=-1 msg=invalid_value");
        else if ((rc = kv_put(p, key, val)) == -2) {
            reply(p, "cmd=put_result rc=-1 msg=store_limit_exceeded");
            if (!p->kv_warned)
                msg("%s: PE %d exceeds the key-value store limit (%d keys, %u bytes per PE); "
                    "put of key '%s' refused", prog_name, rank, KV_KEYS_PER_PE, KV_BYTES_PER_PE,
                    key);
            p->kv_warned = 1;
        } else if (rc != 0)
            reply(p, "cmd=put_result rc=-1 msg=out_of_memory");
        else
            reply(p, "cmd=put_result rc=0 msg=success");
    } else if (strcmp(cmd, "get") == 0) {
        const char *kvs = tok_get(t, n, "kvsname");
        const char *key = tok_get(t, n, "key");
        struct kv *e = key ? kv_find(key) : NULL;
        if (!kvs || strcmp(kvs, kvsname) != 0)
            reply(p, "cmd=get_result rc=-1 msg=unknown_kvsname value=unknown");
        else if (!e)
            reply(p, "cmd=get_result rc=-1 msg=key_%s_not_found value=unknown", key ? key : "");
        else
            reply(p, "cmd=get_result rc=0 msg=success value=%s", e->val);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        if (!p->in_barrier) {
            p->in_barrier = 1;
            barrier_count++;
        }
        if (barrier_count == npes) {
            barrier_count = 0;
            for (int i = 0; i < npes; i++) {
                pes[i].in_barrier = 0;
                reply(&pes[i], "cmd=barrier_out");
            }
        } else {
            check_barrier_deadlock();
        }
    } else if (strcmp(cmd, "abort") == 0) {
        const char *v = tok_get(t, n, "exitcode");
        /* exitcode=0 comes from shmem_global_exit(0): the job ends, with 0. */
        int code = job_status(v ? atoi(v) : 1);
        const char *m = tok_get(t, n, "error_msg");
        teardown_as(p->explained, code, SIGTERM, "PE %d called abort with exit code %d%s%s", rank,
                    v ? atoi(v) : 1, m ? ": " : "", m ? m : "");
    } else if (strcmp(cmd, "weft_explained") == 0) {
        p->explained = 1; /* no reply: the PE is on its way out */
    } else if (strcmp(cmd, "finalize") == 0) {
        p->finalized = 1;
        reply(p, "cmd=finalize_ack");
    } else {
        teardown(1, SIGTERM, "PE %d sent unsupported PMI command '%s'", rank, cmd);
    }
}

/* Read what the PE sent and serve every complete line. Returns -1 once the
 * connection is closed. */
int pe_read(int rank)
{
    struct pe *p = &pes[rank];
    while (p->fd >= 0) {
        if (p->inlen == p->incap) {
            size_t cap = p->incap ? 2 * p->incap : 4096;
            char *b = cap <= 2 * REQ_MAX ? realloc(p->in, cap) : NULL;
            if (!b) {
                teardown(1, SIGTERM, "PE %d sent an oversized PMI request", rank);
                pe_close(p);
                return -1;
            }
            p->in = b;
            p->incap = cap;
        }
        ssize_t n = read(p->fd, p->in + p->inlen, p->incap - p->inlen);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0) {
            /* Closed. Whether that strands a barrier is judged once the
             * process is reaped, so a crash is reported as a crash. */
            pe_close(p);
            return -1;
        }
        size_t start = 0, old = p->inlen;
        p->inlen += (size_t)n;
        for (size_t i = old; i < p->inlen; i++) {
            if (p->in[i] != '\n')
                continue;
            p->in[i] = '\0';
            handle_request(rank, p->in + start);
            if (p->fd < 0)
                return -1;
            start = i + 1;
        }
        if (start) {
            memmove(p->in, p->in + start, p->inlen - start);
            p->inlen -= start;
        }
        if (p->inlen > REQ_MAX) {
            teardown(1, SIGTERM, "PE %d sent an oversized PMI request", rank);
            pe_close(p);
            return -1;
        }
    }
    return -1;
}

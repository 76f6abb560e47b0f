/* SPDX-License-Identifier: BSD-3-Clause */
/* pmi1.c: client side of the PMI-1 wire protocol, as served by MPICH Hydra
 * (mpiexec.hydra) and by our own oshrun over the socket named by PMI_FD.
 *
 * The protocol is line based: the client sends "cmd=NAME key=val ...\n" and
 * the server answers with one line "cmd=REPLY key=val ...\n". Tokens are
 * separated by spaces, so values must not contain spaces, '=' or newlines;
 * we send binary values hex-encoded. The server advertises keylen_max and
 * vallen_max (Hydra: 64 and 1024, counted like C buffers, so the usable
 * length is one less); a value longer than that is split over a main key
 * "KEY:RANK" holding "NBYTES:HEX..." and continuation keys "KEY:RANK:I"
 * holding further hex, fetched until NBYTES bytes have been decoded.
 *
 * Everything here is blocking and meant for init/finalize/abort time. */
#include "bootstrap/pmi1.h"
#include "core/error.h"
#include "core/tunables.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define PMI1_RESP_MAX (1u << 22) /* longest reply line we accept */
#define PMI1_KVSNAME_MAX 1024

static struct {
    int fd;
    int rank, size;
    long keylen_max, vallen_max;
    char kvsname[PMI1_KVSNAME_MAX];
    char *rbuf; /* received bytes; [rstart, rlen) not yet consumed */
    size_t rcap, rlen, rstart;
    char *wbuf; /* the request being built */
    size_t wcap, wlen;
    int use_write; /* PMI_FD is not a socket: write(2) instead of send(2) */
    /* Slurm's pmi2 plugin reads one request per read(2) of at most 1024
     * bytes: requests go one at a time and whole lines stay that short. */
    int one_by_one;
    size_t line_max; /* 0: no limit beyond vallen_max */
    int takes_notes; /* oshrun: cmd=weft_explained is understood */
} pmi = { .fd = -1 };

static const char hexdig[] = "0123456789abcdef";

/* ---- buffers and raw I/O ---------------------------------------------- */

static int wbuf_reserve(size_t extra)
{
    if (pmi.wlen + extra + 1 <= pmi.wcap)
        return 0;
    size_t cap = pmi.wcap ? pmi.wcap : 256;
    while (cap < pmi.wlen + extra + 1)
        cap *= 2;
    char *p = realloc(pmi.wbuf, cap);
    if (!p) {
        weft_warn("bootstrap", "PMI-1: out of memory building a request");
        return -1;
    }
    pmi.wbuf = p;
    pmi.wcap = cap;
    return 0;
}

static int wbuf_printf(const char *fmt, ...) WEFT_PRINTF(1, 2);
static int wbuf_printf(const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = pmi.wcap - pmi.wlen;
        int n = vsnprintf(pmi.wbuf ? pmi.wbuf + pmi.wlen : NULL, pmi.wbuf ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -1;
        if (pmi.wbuf && (size_t)n < room) {
            pmi.wlen += (size_t)n;
            return 0;
        }
        if (wbuf_reserve((size_t)n + 1) != 0)
            return -1;
    }
}

static int wbuf_hex(const unsigned char *p, size_t n)
{
    if (wbuf_reserve(2 * n) != 0)
        return -1;
    char *o = pmi.wbuf + pmi.wlen;
    for (size_t i = 0; i < n; i++) {
        *o++ = hexdig[p[i] >> 4];
        *o++ = hexdig[p[i] & 15];
    }
    pmi.wlen += 2 * n;
    pmi.wbuf[pmi.wlen] = '\0';
    return 0;
}

static int wait_fd(short events)
{
    struct pollfd pfd = { .fd = pmi.fd, .events = events };
    while (poll(&pfd, 1, -1) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return 0;
}

/* Send the request in wbuf (a newline is appended) completely. */
static int send_request(void)
{
    if (wbuf_reserve(1) != 0)
        return -1;
    pmi.wbuf[pmi.wlen++] = '\n';
    if (weft_debug_enabled)
        weft_debug("pmi1: PE %d -> %.*s", pmi.rank, (int)(pmi.wlen < 200 ? pmi.wlen - 1 : 200),
                   pmi.wbuf);
    size_t off = 0;
    while (off < pmi.wlen) {
        ssize_t n;
        if (!pmi.use_write) {
            n = send(pmi.fd, pmi.wbuf + off, pmi.wlen - off, MSG_NOSIGNAL);
            if (n < 0 && errno == ENOTSOCK) {
                pmi.use_write = 1;
                continue;
            }
        } else {
            n = write(pmi.fd, pmi.wbuf + off, pmi.wlen - off);
        }
        if (n > 0) {
            off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_fd(POLLOUT) != 0)
                goto fail;
        } else {
            goto fail;
        }
    }
    pmi.wlen = 0;
    return 0;
fail:
    weft_warn("bootstrap", "PMI-1: lost the connection to the launcher (PMI_FD=%d): %s", pmi.fd,
              strerror(errno));
    pmi.wlen = 0;
    return -1;
}

/* Read the next reply line; returns it NUL-terminated without the newline,
 * valid until the next call, or NULL (warned) if the launcher went away. */
static char *recv_line(void)
{
    if (pmi.rstart) {
        memmove(pmi.rbuf, pmi.rbuf + pmi.rstart, pmi.rlen - pmi.rstart);
        pmi.rlen -= pmi.rstart;
        pmi.rstart = 0;
    }
    for (;;) {
        char *nl = pmi.rlen ? memchr(pmi.rbuf, '\n', pmi.rlen) : NULL;
        if (nl) {
            *nl = '\0';
            pmi.rstart = (size_t)(nl - pmi.rbuf) + 1;
            if (nl > pmi.rbuf && nl[-1] == '\r')
                nl[-1] = '\0';
            if (weft_debug_enabled)
                weft_debug("pmi1: PE %d <- %.200s", pmi.rank, pmi.rbuf);
            return pmi.rbuf;
        }
        if (pmi.rlen == pmi.rcap) {
            size_t cap = pmi.rcap ? 2 * pmi.rcap : 4096;
            char *p = cap <= PMI1_RESP_MAX ? realloc(pmi.rbuf, cap) : NULL;
            if (!p) {
                weft_warn("bootstrap", "PMI-1: reply from the launcher too long or out of memory");
                return NULL;
            }
            pmi.rbuf = p;
            pmi.rcap = cap;
        }
        ssize_t n = read(pmi.fd, pmi.rbuf + pmi.rlen, pmi.rcap - pmi.rlen);
        if (n > 0) {
            pmi.rlen += (size_t)n;
        } else if (n == 0) {
            weft_warn("bootstrap", "PMI-1: the launcher closed the connection (PMI_FD=%d)", pmi.fd);
            return NULL;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (wait_fd(POLLIN) != 0)
                return NULL;
        } else {
            weft_warn("bootstrap", "PMI-1: reading from the launcher (PMI_FD=%d): %s", pmi.fd,
                      strerror(errno));
            return NULL;
        }
    }
}

/* ---- reply parsing ----------------------------------------------------- */

/* The value of token "name=value" in a reply, and its length. */
static const char *field(const char *line, const char *name, size_t *vlen)
{
    size_t nl = strlen(name);
    const char *p = line;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *tok = p;
        while (*p && *p != ' ')
            p++;
        if ((size_t)(p - tok) > nl && memcmp(tok, name, nl) == 0 && tok[nl] == '=') {
            *vlen = (size_t)(p - tok) - nl - 1;
            return tok + nl + 1;
        }
    }
    return NULL;
}

static int field_long(const char *line, const char *name, long *out)
{
    size_t n;
    const char *v = field(line, name, &n);
    if (!v || n == 0 || n > 20)
        return -1;
    char tmp[24], *end;
    memcpy(tmp, v, n);
    tmp[n] = '\0';
    errno = 0;
    long x = strtol(tmp, &end, 10);
    if (errno || *end)
        return -1;
    *out = x;
    return 0;
}

static int field_is(const char *line, const char *name, const char *want)
{
    size_t n;
    const char *v = field(line, name, &n);
    return v && n == strlen(want) && memcmp(v, want, n) == 0;
}

/* Send the request in wbuf and read the reply, which must be cmd=expect.
 * what names the request in messages. */
static char *transact(const char *expect, const char *what)
{
    if (send_request() != 0)
        return NULL;
    char *line = recv_line();
    if (!line)
        return NULL;
    if (!field_is(line, "cmd", expect)) {
        weft_warn("bootstrap", "PMI-1: unexpected reply to %s: '%.120s'", what, line);
        return NULL;
    }
    return line;
}

/* rc= of a reply: 0 if absent (older servers omit it on success). */
static long reply_rc(const char *line)
{
    long rc = 0;
    size_t n;
    if (field(line, "rc", &n) && field_long(line, "rc", &rc) != 0)
        rc = -1;
    return rc;
}

/* ---- the calls --------------------------------------------------------- */

/* A "cmd=set NAME=VALUE" line of the port-mode handshake. */
static int read_set(const char *name, long *out)
{
    char *line = recv_line();
    if (!line)
        return -1;
    if (!field_is(line, "cmd", "set") || field_long(line, name, out) != 0) {
        weft_warn("bootstrap", "PMI-1: expected 'cmd=set %s=...' from the launcher, got '%.120s'",
                  name, line);
        return -1;
    }
    return 0;
}

int weft_pmi1_connect_port(const char *hostport, int id, int *rank, int *size)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    size_t hl = colon ? (size_t)(colon - hostport) : 0;
    if (!colon || hl == 0 || hl >= sizeof host || !colon[1]) {
        weft_warn("bootstrap", "PMI_PORT='%s' is not HOST:PORT", hostport);
        return -1;
    }
    memcpy(host, hostport, hl);
    host[hl] = '\0';
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
    int gai = getaddrinfo(host, colon + 1, &hints, &res);
    if (gai != 0) {
        weft_warn("bootstrap", "PMI_PORT='%s': cannot resolve the launcher's address: %s",
                  hostport, gai_strerror(gai));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        while (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            if (errno == EINTR)
                continue;
            err = errno;
            close(fd);
            fd = -1;
            break;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        weft_warn("bootstrap", "PMI_PORT='%s': cannot connect to the launcher: %s", hostport,
                  strerror(err));
        return -1;
    }
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pmi.fd = fd;
    pmi.rank = id;
    pmi.rlen = pmi.rstart = pmi.wlen = 0;
    /* The port-mode handshake (MPICH's simple PMI): we name ourselves by
     * PMI_ID, the server answers initack and then tells size, rank and its
     * debug level. */
    long n = 0, r = 0, dbg = 0;
    if (wbuf_printf("cmd=initack pmiid=%d", id) != 0 || !transact("initack", "cmd=initack") ||
        read_set("size", &n) != 0 || read_set("rank", &r) != 0 || read_set("debug", &dbg) != 0)
        goto fail;
    if (n < 1 || n > (1L << 30) || r < 0 || r >= n) {
        weft_warn("bootstrap", "PMI-1: the launcher gave rank %ld of size %ld", r, n);
        goto fail;
    }
    *rank = (int)r;
    *size = (int)n;
    return fd;
fail:
    close(fd);
    pmi.fd = -1;
    return -1;
}

int weft_pmi1_init(int fd, int rank, int size)
{
    pmi.fd = fd;
    pmi.rank = rank;
    pmi.size = size;
    pmi.rlen = pmi.rstart = pmi.wlen = 0;

    /* Blocking I/O, and not inherited by programs this PE may exec. */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0) {
        weft_warn("bootstrap", "PMI_FD=%d is not an open file descriptor: %s", fd, strerror(errno));
        return -1;
    }
    if (fl & O_NONBLOCK)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    int fdfl = fcntl(fd, F_GETFD);
    if (fdfl >= 0)
        (void)fcntl(fd, F_SETFD, fdfl | FD_CLOEXEC);

    /* Die with the launcher (our parent under oshrun and Hydra's proxy):
     * SIGTERM, so that libfabric's shm provider can remove its region on
     * the way. If the parent is already gone, so is the job. */
    pid_t parent = getppid();
    if (parent > 1 && prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() != parent) {
        weft_warn("bootstrap", "the launcher is gone (parent process %d exited)", (int)parent);
        return -1;
    }

    char *line;
    if (wbuf_printf("cmd=init pmi_version=1 pmi_subversion=1") != 0 ||
        !(line = transact("response_to_init", "cmd=init")))
        return -1;
    long ver = 0;
    if (reply_rc(line) != 0 || (field_long(line, "pmi_version", &ver) == 0 && ver != 1)) {
        weft_warn("bootstrap", "PMI-1: the launcher refused PMI version 1.1: '%.120s'", line);
        return -1;
    }
    pmi.takes_notes = field_is(line, "weft_explained", "1");

    if (wbuf_printf("cmd=get_maxes") != 0 || !(line = transact("maxes", "cmd=get_maxes")))
        return -1;
    if (field_long(line, "keylen_max", &pmi.keylen_max) != 0)
        pmi.keylen_max = 64;
    if (field_long(line, "vallen_max", &pmi.vallen_max) != 0)
        pmi.vallen_max = 1024;
    if (pmi.keylen_max < 16 || pmi.vallen_max < 32) {
        weft_warn("bootstrap", "PMI-1: launcher limits too small (keylen_max=%ld vallen_max=%ld)",
                  pmi.keylen_max, pmi.vallen_max);
        return -1;
    }

    if (wbuf_printf("cmd=get_my_kvsname") != 0 ||
        !(line = transact("my_kvsname", "cmd=get_my_kvsname")))
        return -1;
    size_t n;
    const char *kvs = field(line, "kvsname", &n);
    if (!kvs || n == 0 || n >= sizeof pmi.kvsname) {
        weft_warn("bootstrap", "PMI-1: bad kvsname reply '%.120s'", line);
        return -1;
    }
    memcpy(pmi.kvsname, kvs, n);
    pmi.kvsname[n] = '\0';
    pmi.one_by_one = getenv("SLURM_STEP_ID") != NULL;
    pmi.line_max = pmi.one_by_one ? 1024 : 0;
    if (weft_debug_enabled)
        weft_debug("pmi1: PE %d of %d, kvs %s, keylen_max %ld, vallen_max %ld", rank, size,
                   pmi.kvsname, pmi.keylen_max, pmi.vallen_max);
    return 0;
}

/* PMI-1 limits count a terminating NUL, as MPICH's client buffers do. */
static int key_fits(const char *key, int rank, int chunk)
{
    char tmp[32];
    int extra = chunk ? snprintf(tmp, sizeof tmp, ":%d:%d", rank, chunk)
                      : snprintf(tmp, sizeof tmp, ":%d", rank);
    return (long)(strlen(key) + (size_t)extra) < pmi.keylen_max;
}

int weft_pmi1_put(const char *key, const void *val, size_t len)
{
    const unsigned char *p = val;
    /* Hex characters per PMI value, even so bytes are never split; within
     * line_max with the rest of the request (up to 40 characters of
     * numbers: rank, chunk, NBYTES). */
    size_t cap = (size_t)(pmi.vallen_max - 1);
    size_t fixed = strlen("cmd=put kvsname= key=::: value=\n") + strlen(pmi.kvsname) +
                   strlen(key) + 40;
    if (pmi.line_max && pmi.line_max > fixed + 64 && pmi.line_max - fixed < cap)
        cap = pmi.line_max - fixed;
    cap &= ~(size_t)1;
    char hdr[32];
    int hlen = snprintf(hdr, sizeof hdr, "%zu:", len);
    size_t first = (cap - (size_t)hlen) / 2; /* bytes in the main key */
    size_t per = cap / 2;                    /* bytes per continuation key */
    size_t nchunks = len <= first ? 1 : 1 + (len - first + per - 1) / per;
    if (nchunks > 1000000 || !key_fits(key, pmi.rank, (int)nchunks - 1)) {
        weft_warn("bootstrap", "PMI-1: key '%s' (%zu bytes of value) does not fit the launcher's "
                  "limits (keylen_max=%ld vallen_max=%ld)", key, len, pmi.keylen_max,
                  pmi.vallen_max);
        return -1;
    }
    size_t off = 0;
    for (size_t c = 0; c < nchunks; c++) {
        size_t take = c == 0 ? (len < first ? len : first) : (len - off < per ? len - off : per);
        int rc = c == 0 ? wbuf_printf("cmd=put kvsname=%s key=%s:%d value=%s", pmi.kvsname, key,
                                      pmi.rank, hdr)
                        : wbuf_printf("cmd=put kvsname=%s key=%s:%d:%zu value=", pmi.kvsname, key,
                                      pmi.rank, c);
        if (rc != 0 || wbuf_hex(p + off, take) != 0) {
            pmi.wlen = 0;
            return -1;
        }
        char *line = transact("put_result", "cmd=put");
        if (!line)
            return -1;
        if (reply_rc(line) != 0) {
            weft_warn("bootstrap", "PMI-1: put of key '%s' refused: '%.120s'", key, line);
            return -1;
        }
        off += take;
    }
    return 0;
}

int weft_pmi1_barrier(void)
{
    if (wbuf_printf("cmd=barrier_in") != 0 || !transact("barrier_out", "cmd=barrier_in"))
        return -1;
    return 0;
}

static int unhex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode n hex characters into out; -1 on a bad character or odd count. */
static int decode_hex(const char *h, size_t n, unsigned char *out)
{
    if (n & 1)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        int hi = unhex(h[i]), lo = unhex(h[i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        *out++ = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

/* The value of a get_result reply, or NULL (warned). */
static const char *get_value(const char *line, size_t *vlen, const char *key, int rank)
{
    const char *v = field(line, "value", vlen);
    if (reply_rc(line) != 0 || !v) {
        weft_warn("bootstrap", "PMI-1: PE %d published no value for key '%s'", rank, key);
        return NULL;
    }
    return v;
}

/* Fetch one PMI key; returns the value (inside the reply line) or NULL. */
static const char *get_one(const char *pkey, size_t *vlen, const char *key, int rank)
{
    if (wbuf_printf("cmd=get kvsname=%s key=%s", pmi.kvsname, pkey) != 0)
        return NULL;
    char *line = transact("get_result", "cmd=get");
    return line ? get_value(line, vlen, key, rank) : NULL;
}

/* Decode the main key's value "NBYTES:HEX" into val (capacity *len);
 * *have: bytes decoded so far, *total: the value's size. */
static int decode_main(const char *v, size_t vlen, const char *key, int rank, void *val,
                       size_t *len, size_t *have, size_t *total)
{
    const char *colon = memchr(v, ':', vlen);
    char *end;
    errno = 0;
    unsigned long long t = strtoull(v, &end, 10);
    if (!colon || end != colon || errno || v == colon) {
        weft_warn("bootstrap", "PMI-1: malformed value for key '%s' from PE %d", key, rank);
        return -1;
    }
    if (t > *len) {
        weft_warn("bootstrap", "PMI-1: value of key '%s' from PE %d is %llu bytes, buffer holds %zu",
                  key, rank, t, *len);
        *len = (size_t)t;
        return -1;
    }
    size_t hn = vlen - (size_t)(colon + 1 - v);
    if (hn / 2 > t || decode_hex(colon + 1, hn, val) != 0) {
        weft_warn("bootstrap", "PMI-1: corrupt value for key '%s' from PE %d", key, rank);
        return -1;
    }
    *have = hn / 2;
    *total = (size_t)t;
    return 0;
}

/* Fetch the continuation keys "KEY:RANK:I" until total bytes are in. */
static int get_rest(const char *key, int rank, unsigned char *out, size_t have, size_t total)
{
    char pkey[256];
    for (size_t chunk = 1; have < total; chunk++) {
        size_t hn;
        const char *v;
        if (snprintf(pkey, sizeof pkey, "%s:%d:%zu", key, rank, chunk) >= (int)sizeof pkey) {
            weft_warn("bootstrap", "PMI-1: truncated value for key '%s' from PE %d", key, rank);
            return -1;
        }
        if (!(v = get_one(pkey, &hn, key, rank)))
            return -1;
        if (hn == 0 || hn / 2 > total - have || decode_hex(v, hn, out + have) != 0) {
            weft_warn("bootstrap", "PMI-1: corrupt value for key '%s' from PE %d", key, rank);
            return -1;
        }
        have += hn / 2;
    }
    return 0;
}

int weft_pmi1_get(int rank, const char *key, void *val, size_t *len)
{
    char pkey[256];
    if (!key_fits(key, rank, 0) ||
        snprintf(pkey, sizeof pkey, "%s:%d", key, rank) >= (int)sizeof pkey) {
        weft_warn("bootstrap", "PMI-1: key '%s' too long for the launcher", key);
        return -1;
    }
    size_t vlen, have, total;
    const char *v = get_one(pkey, &vlen, key, rank);
    if (!v || decode_main(v, vlen, key, rank, val, len, &have, &total) != 0 ||
        get_rest(key, rank, val, have, total) != 0)
        return -1;
    *len = total;
    return 0;
}

/* Gets in flight at once in an allgather: the replies of a window must fit
 * the socket buffers, or a server that writes while we still write would
 * wait for us as we wait for it. */
#define PMI1_GET_WINDOW 32

int weft_pmi1_allgather(const char *key, const void *mine, void *all, size_t len)
{
    if (weft_pmi1_put(key, mine, len) != 0 || weft_pmi1_barrier() != 0)
        return -1;
    unsigned char *out = all;
    if (len)
        memmove(out + (size_t)pmi.rank * len, mine, len);
    if (!key_fits(key, pmi.size - 1, 0)) {
        weft_warn("bootstrap", "PMI-1: key '%s' too long for the launcher", key);
        return -1;
    }
    /* One window of requests written at once, then its replies read in
     * order: the exchange costs N/WINDOW round trips, not N. */
    int window = pmi.one_by_one ? 1 : PMI1_GET_WINDOW;
    for (int first = 0; first < pmi.size; first += window) {
        int last = first + window < pmi.size ? first + window : pmi.size;
        for (int r = first; r < last; r++)
            if (r != pmi.rank &&
                wbuf_printf("cmd=get kvsname=%s key=%s:%d\n", pmi.kvsname, key, r) != 0)
                return -1;
        if (pmi.wlen) {
            pmi.wlen--; /* send_request appends the last newline */
            if (send_request() != 0)
                return -1;
        }
        int partial = -1; /* first rank whose value spans continuation keys */
        size_t partial_have = 0, partial_total = 0;
        for (int r = first; r < last; r++) {
            if (r == pmi.rank)
                continue;
            char *line = recv_line();
            if (!line)
                return -1;
            if (!field_is(line, "cmd", "get_result")) {
                weft_warn("bootstrap", "PMI-1: unexpected reply to cmd=get: '%.120s'", line);
                return -1;
            }
            size_t vlen, have, total, cap = len;
            const char *v = get_value(line, &vlen, key, r);
            if (!v || decode_main(v, vlen, key, r, out + (size_t)r * len, &cap, &have, &total) != 0)
                return -1;
            if (total != len) {
                weft_warn("bootstrap", "PMI-1: PE %d contributed %zu bytes under '%s', expected %zu",
                          r, total, key, len);
                return -1;
            }
            if (have < total && partial < 0) {
                partial = r;
                partial_have = have;
                partial_total = total;
            }
        }
        /* Long values: their continuation keys one by one, after the window
         * (every value has the same length, so all of them are long). */
        for (int r = partial; r >= 0 && r < last; r++) {
            if (r == pmi.rank)
                continue;
            if (get_rest(key, r, out + (size_t)r * len, partial_have, partial_total) != 0)
                return -1;
        }
    }
    return 0;
}

void weft_pmi1_abort(int status)
{
    if (pmi.fd < 0)
        return;
    pmi.wlen = 0;
    if (wbuf_printf("cmd=abort exitcode=%d", status) != 0 || send_request() != 0)
        return;
    /* Give the launcher a moment to take the job down (it kills us too);
     * stop early if it closes the connection. */
    struct pollfd pfd = { .fd = pmi.fd, .events = POLLIN };
    for (int i = 0; i < 20; i++) {
        int n = poll(&pfd, 1, 100);
        if (n > 0) {
            char buf[256];
            ssize_t r = read(pmi.fd, buf, sizeof buf);
            if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
                return;
        }
    }
}

int weft_pmi1_fd(void)
{
    return pmi.fd;
}

void weft_pmi1_explained(void)
{
    if (pmi.fd < 0 || !pmi.takes_notes)
        return;
    pmi.wlen = 0;
    if (wbuf_printf("cmd=weft_explained") == 0)
        (void)send_request();
}

int weft_pmi1_finalize(void)
{
    int rc = 0;
    if (wbuf_printf("cmd=finalize") != 0 || !transact("finalize_ack", "cmd=finalize"))
        rc = -1;
    close(pmi.fd);
    pmi.fd = -1;
    free(pmi.rbuf);
    free(pmi.wbuf);
    pmi.rbuf = pmi.wbuf = NULL;
    pmi.rcap = pmi.rlen = pmi.rstart = pmi.wcap = pmi.wlen = 0;
    return rc;
}

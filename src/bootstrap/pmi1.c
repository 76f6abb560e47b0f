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
#include "core/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    /* Hex characters per PMI value, even so bytes are never split. */
    size_t cap = (size_t)(pmi.vallen_max - 1) & ~(size_t)1;
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

/* Fetch one PMI key; returns the value (inside the reply line) or NULL. */
static const char *get_one(const char *pkey, size_t *vlen, const char *key, int rank)
{
    if (wbuf_printf("cmd=get kvsname=%s key=%s", pmi.kvsname, pkey) != 0)
        return NULL;
    char *line = transact("get_result", "cmd=get");
    if (!line)
        return NULL;
    const char *v = field(line, "value", vlen);
    if (reply_rc(line) != 0 || !v) {
        weft_warn("bootstrap", "PMI-1: PE %d published no value for key '%s'", rank, key);
        return NULL;
    }
    return v;
}

int weft_pmi1_get(int rank, const char *key, void *val, size_t *len)
{
    char pkey[256];
    if (!key_fits(key, rank, 0) ||
        snprintf(pkey, sizeof pkey, "%s:%d", key, rank) >= (int)sizeof pkey) {
        weft_warn("bootstrap", "PMI-1: key '%s' too long for the launcher", key);
        return -1;
    }
    size_t vlen;
    const char *v = get_one(pkey, &vlen, key, rank);
    if (!v)
        return -1;
    /* "NBYTES:HEX" */
    const char *colon = memchr(v, ':', vlen);
    char *end;
    errno = 0;
    unsigned long long total = strtoull(v, &end, 10);
    if (!colon || end != colon || errno || v == colon) {
        weft_warn("bootstrap", "PMI-1: malformed value for key '%s' from PE %d", key, rank);
        return -1;
    }
    if (total > *len) {
        weft_warn("bootstrap", "PMI-1: value of key '%s' from PE %d is %llu bytes, buffer holds %zu",
                  key, rank, total, *len);
        *len = (size_t)total;
        return -1;
    }
    unsigned char *out = val;
    size_t have = 0;
    size_t hn = vlen - (size_t)(colon + 1 - v);
    for (size_t chunk = 1;; chunk++) {
        const char *h = chunk == 1 ? colon + 1 : v;
        if (hn / 2 > total - have || decode_hex(h, hn, out + have) != 0) {
            weft_warn("bootstrap", "PMI-1: corrupt value for key '%s' from PE %d", key, rank);
            return -1;
        }
        have += hn / 2;
        if (have == total)
            break;
        if (hn == 0 || snprintf(pkey, sizeof pkey, "%s:%d:%zu", key, rank, chunk) >= (int)sizeof pkey) {
            weft_warn("bootstrap", "PMI-1: truncated value for key '%s' from PE %d", key, rank);
            return -1;
        }
        if (!(v = get_one(pkey, &hn, key, rank)))
            return -1;
    }
    *len = (size_t)total;
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

int weft_pmi1_alive(void)
{
    if (pmi.fd < 0)
        return 1;
    struct pollfd pfd = { .fd = pmi.fd, .events = POLLIN };
    if (poll(&pfd, 1, 0) <= 0)
        return 1;
    if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
        return 0;
    /* Readable outside a request: either the end of the stream or bytes
     * nobody asked for; look without taking them. */
    char c;
    ssize_t n = recv(pmi.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0)
        return 0;
    return 1;
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

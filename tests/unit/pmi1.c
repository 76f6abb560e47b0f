/* SPDX-License-Identifier: BSD-3-Clause */
/* pmi1.c (unit) checks the PMI-1 client (src/bootstrap/pmi1.c) against a
 * small scripted server on the other end of a socket pair: the handshake,
 * values split over continuation keys within the server's key and value
 * limits and put back together, the windowed allgather, replies that come
 * a byte at a time or end in \r\n, servers that omit rc=, and the replies
 * the client must refuse (an error rc, a wrong reply, corrupt hex, a value
 * larger than the buffer, a server that hangs up). */
#include "unit.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>

#include "bootstrap/pmi1.h"

#define MAX_KEYS 1024

/* How the server behaves in one session. */
struct server {
    int fd, client; /* the server's end, the client's end */
    long keylen_max, vallen_max;
    int dribble;         /* write replies one byte at a time */
    int crlf;            /* end replies with \r\n */
    int omit_rc;         /* no rc= on success, as older servers */
    int refuse_init;     /* rc=-1 to cmd=init */
    int wrong_reply_to;  /* answer the n-th request (1-based) with cmd=bogus */
    int hang_up_after;   /* close after this many requests (0: never) */
    int requests;
    int longest_key, longest_value; /* seen in puts */
    int nkeys;
    char *key[MAX_KEYS], *value[MAX_KEYS];
};

static void store(struct server *s, const char *k, size_t kl, const char *v, size_t vl)
{
    for (int i = 0; i < s->nkeys; i++)
        if (strlen(s->key[i]) == kl && !memcmp(s->key[i], k, kl)) {
            free(s->value[i]);
            s->value[i] = strndup(v, vl);
            return;
        }
    if (s->nkeys < MAX_KEYS) {
        s->key[s->nkeys] = strndup(k, kl);
        s->value[s->nkeys++] = strndup(v, vl);
    }
}

static const char *lookup(struct server *s, const char *k, size_t kl)
{
    for (int i = 0; i < s->nkeys; i++)
        if (strlen(s->key[i]) == kl && !memcmp(s->key[i], k, kl))
            return s->value[i];
    return NULL;
}

/* The value of token name= in line, and its length. */
static const char *token(const char *line, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (const char *p = line; (p = strstr(p, name)) != NULL; p++)
        if ((p == line || p[-1] == ' ') && p[nl] == '=') {
            *len = strcspn(p + nl + 1, " \n");
            return p + nl + 1;
        }
    return NULL;
}

static void reply(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(struct server *s, const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 2, fmt, ap);
    va_end(ap);
    if (s->crlf)
        buf[n++] = '\r';
    buf[n++] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = write(s->fd, buf + off, s->dribble ? 1 : (size_t)(n - off));
        if (w <= 0)
            return;
        off += (int)w;
    }
}

static void *serve(void *arg)
{
    struct server *s = arg;
    char buf[1 << 16];
    size_t have = 0;
    const char *ok = s->omit_rc ? "" : " rc=0";
    for (;;) {
        char *nl;
        while (!(nl = memchr(buf, '\n', have))) {
            ssize_t r = read(s->fd, buf + have, sizeof buf - 1 - have);
            if (r <= 0)
                goto out;
            have += (size_t)r;
        }
        *nl = '\0';
        static char line[sizeof buf];
        memcpy(line, buf, (size_t)(nl - buf) + 1);
        memmove(buf, nl + 1, have - (size_t)(nl + 1 - buf));
        have -= (size_t)(nl + 1 - buf);
        s->requests++;
        if (s->hang_up_after && s->requests > s->hang_up_after)
            goto out;
        size_t kl, vl;
        const char *k = token(line, "key", &kl), *v = token(line, "value", &vl);
        if (s->requests == s->wrong_reply_to)
            reply(s, "cmd=bogus rc=0");
        else if (!strncmp(line, "cmd=init ", 9))
            reply(s, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=%d",
                  s->refuse_init ? -1 : 0);
        else if (!strcmp(line, "cmd=get_maxes"))
            reply(s, "cmd=maxes kvsname_max=256 keylen_max=%ld vallen_max=%ld%s", s->keylen_max,
                  s->vallen_max, ok);
        else if (!strcmp(line, "cmd=get_my_kvsname"))
            reply(s, "cmd=my_kvsname kvsname=kvs_42_0%s", ok);
        else if (!strncmp(line, "cmd=put ", 8) && k && v) {
            if ((int)kl > s->longest_key)
                s->longest_key = (int)kl;
            if ((int)vl > s->longest_value)
                s->longest_value = (int)vl;
            store(s, k, kl, v, vl);
            reply(s, "cmd=put_result%s", ok);
        } else if (!strncmp(line, "cmd=get ", 8) && k) {
            const char *val = lookup(s, k, kl);
            if (val)
                reply(s, "cmd=get_result%s value=%s", ok, val);
            else
                reply(s, "cmd=get_result rc=-1 msg=key_not_found");
        } else if (!strcmp(line, "cmd=barrier_in"))
            reply(s, "cmd=barrier_out%s", ok);
        else if (!strcmp(line, "cmd=finalize")) {
            reply(s, "cmd=finalize_ack%s", ok);
            goto out;
        } else
            reply(s, "cmd=error rc=-1 msg=unknown_request");
    }
out:
    close(s->fd);
    return NULL;
}

static pthread_t thread;

/* Starts a server session; the client end is connected by weft_pmi1_init. */
static int start(struct server *s, int rank, int size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("socketpair");
        exit(2);
    }
    s->fd = sv[1];
    s->client = sv[0];
    if (!s->keylen_max)
        s->keylen_max = 64;
    if (!s->vallen_max)
        s->vallen_max = 1024;
    pthread_create(&thread, NULL, serve, s);
    return weft_pmi1_init(sv[0], rank, size);
}

/* Waits for the session's server to end (finalize or hang-up). */
static void stop(void)
{
    pthread_join(thread, NULL);
}

static void forget(struct server *s)
{
    for (int i = 0; i < s->nkeys; i++) {
        free(s->key[i]);
        free(s->value[i]);
    }
}

static void fill(unsigned char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

/* Publishes rank's value of key as the client would, through a client of
 * its own, so that the session's allgather finds the others' values. */
static void put_as(struct server *shared, int rank, int size, const char *key, size_t len)
{
    struct server s = {.keylen_max = shared->keylen_max, .vallen_max = shared->vallen_max};
    unsigned char val[4096];
    fill(val, len, rank);
    UT_EQ(start(&s, rank, size), 0);
    UT_EQ(weft_pmi1_put(key, val, len), 0);
    UT_EQ(weft_pmi1_finalize(), 0);
    stop();
    for (int i = 0; i < s.nkeys; i++)
        store(shared, s.key[i], strlen(s.key[i]), s.value[i], strlen(s.value[i]));
    for (int i = 0; i < s.nkeys; i++) {
        free(s.key[i]);
        free(s.value[i]);
    }
}

/* One session of a 4-PE job as PE 1 under the given server behaviour,
 * with values of len bytes. */
static void session(struct server *s, size_t len)
{
    enum { SIZE = 4, ME = 1 };
    unsigned char mine[4096], all[SIZE * 4096], want[4096];
    for (int r = 0; r < SIZE; r++)
        if (r != ME) /* before the session: put_as uses the one client */
            put_as(s, r, SIZE, "card", len);
    UT_EQ(start(s, ME, SIZE), 0);
    fill(mine, len, ME);
    memset(all, 0, sizeof all);
    UT_EQ(weft_pmi1_allgather("card", mine, all, len), 0);
    for (int r = 0; r < SIZE; r++) {
        fill(want, len, r);
        UT_CHECK(!memcmp(all + (size_t)r * len, want, len), "len %zu: PE %d's value", len, r);
    }
    size_t got = sizeof want;
    UT_EQ(weft_pmi1_get(2, "card", want, &got), 0);
    UT_EQ(got, len);
    UT_EQ(weft_pmi1_barrier(), 0);
    UT_CHECK(weft_pmi1_fd() == s->client, "the connection is the one given");
    UT_EQ(weft_pmi1_finalize(), 0);
    stop();
    forget(s);
    UT_CHECK(s->longest_key < s->keylen_max && s->longest_value < s->vallen_max,
             "len %zu: a key of %d or a value of %d characters past the limits %ld, %ld", len,
             s->longest_key, s->longest_value, s->keylen_max, s->vallen_max);
}

int main(void)
{
    unsetenv("SLURM_STEP_ID");
    signal(SIGPIPE, SIG_IGN); /* a write to a peer that hung up fails instead */
    /* Values short and long (continuation keys), limits generous and tight,
     * replies whole, dribbled, with \r\n, without rc=. */
    size_t lens[] = {0, 1, 13, 100, 1000, 4096};
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
        struct server a = {0}, b = {.vallen_max = 40, .keylen_max = 24},
                      c = {.dribble = 1, .crlf = 1, .omit_rc = 1, .vallen_max = 64};
        session(&a, lens[i]);
        session(&b, lens[i]);
        session(&c, lens[i]);
    }

    /* The stored form: main key KEY:RANK holds NBYTES:HEX, continuation
     * keys KEY:RANK:I the rest of the hex. */
    struct server f = {.vallen_max = 40};
    UT_EQ(start(&f, 3, 4), 0);
    UT_EQ(weft_pmi1_put("k", "\x01\xab\xff" "0123456789abcdefghijklmnopqrstuvwxyz", 39), 0);
    UT_EQ(weft_pmi1_finalize(), 0);
    stop();
    UT_CHECK(f.nkeys >= 3, "%d keys for 39 bytes at vallen_max 40", f.nkeys);
    UT_CHECK(f.nkeys > 0 && !strcmp(f.key[0], "k:3") && !strncmp(f.value[0], "39:01abff30", 11),
             "main key %s = %s", f.nkeys ? f.key[0] : "", f.nkeys ? f.value[0] : "");
    UT_CHECK(f.nkeys > 1 && !strcmp(f.key[1], "k:3:1"), "continuation key %s",
             f.nkeys > 1 ? f.key[1] : "");
    forget(&f);

    /* What the client must refuse. */
    struct server refuse = {.refuse_init = 1};
    UT_EQ(start(&refuse, 0, 1), -1);
    close(refuse.client); /* a failed init leaves it open: end the server */
    stop();
    forget(&refuse);

    struct server tiny = {.vallen_max = 8};
    UT_EQ(start(&tiny, 0, 1), -1); /* limits too small to work with */
    close(tiny.client);
    stop();
    forget(&tiny);

    struct server wrong = {.wrong_reply_to = 4}; /* the first put */
    UT_EQ(start(&wrong, 0, 2), 0);
    UT_EQ(weft_pmi1_put("x", "ab", 2), -1);
    UT_EQ(weft_pmi1_finalize(), 0);
    stop();
    forget(&wrong);

    struct server bad = {0};
    UT_EQ(start(&bad, 0, 2), 0);
    unsigned char buf[64];
    size_t len = sizeof buf;
    UT_EQ(weft_pmi1_get(1, "missing", buf, &len), -1);
    store(&bad, "hexbad:1", 8, "4:01zz0203", 10);
    len = sizeof buf;
    UT_EQ(weft_pmi1_get(1, "hexbad", buf, &len), -1);
    store(&bad, "nocolon:1", 9, "0102", 4);
    len = sizeof buf;
    UT_EQ(weft_pmi1_get(1, "nocolon", buf, &len), -1);
    store(&bad, "long:1", 6, "100:00", 6);
    len = sizeof buf;
    UT_EQ(weft_pmi1_get(1, "long", buf, &len), -1);
    UT_EQ(len, 100); /* the size it would need */
    store(&bad, "short:1", 7, "3:0102", 6); /* no continuation key for the rest */
    len = sizeof buf;
    UT_EQ(weft_pmi1_get(1, "short", buf, &len), -1);
    store(&bad, "ok:1", 4, "3:0a0B0c", 8);
    len = sizeof buf;
    UT_EQ(weft_pmi1_get(1, "ok", buf, &len), 0);
    UT_CHECK(len == 3 && buf[0] == 10 && buf[1] == 11 && buf[2] == 12, "decoded %zu bytes", len);
    UT_EQ(weft_pmi1_finalize(), 0);
    stop();
    forget(&bad);

    struct server gone = {.hang_up_after = 3};
    UT_EQ(start(&gone, 0, 2), 0);
    UT_EQ(weft_pmi1_barrier(), -1);
    weft_pmi1_finalize();
    UT_EQ(weft_pmi1_fd(), -1);
    stop();
    forget(&gone);
    return ut_done("unit.pmi1");
}

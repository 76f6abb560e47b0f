/* SPDX-License-Identifier: BSD-3-Clause */
/* oshrun_pmi.c (unit) checks oshrun's PMI-1 server (tools/oshrun_pmi.c) in
 * one process: the launcher's side is a stub here (a table of PEs whose
 * connections are socket pairs, and a teardown that records why), requests
 * are written to the PEs' ends and served by pe_read. It checks the
 * replies (handshake, put and get, the barrier released only when every PE
 * is in, finalize), requests split over reads or several in one, the
 * limits (key and value lengths, the per-PE store quota, an oversized
 * request), what ends the job (abort with its exit code, an unknown
 * command, a PE that exits while others wait in the barrier), and, end to
 * end, weft's own PMI-1 client (src/bootstrap/pmi1.c) against it. */
#include "unit.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>

#include "bootstrap/pmi1.h"
#include "oshrun_pmi.h"

/* ---- the launcher's side, stubbed ------------------------------------------ */
struct pe *pes;
int npes;
int tearing_down;
const char *prog_name = "oshrun";
static int teardown_code = -1, teardown_quiet;
static char teardown_why[512], last_msg[512];

void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_msg, sizeof last_msg, fmt, ap);
    va_end(ap);
}

void teardown_as(int quiet, int code, int sig, const char *fmt, ...)
{
    (void)sig;
    if (tearing_down)
        return;
    tearing_down = 1;
    teardown_code = code;
    teardown_quiet = quiet;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(teardown_why, sizeof teardown_why, fmt, ap);
    va_end(ap);
}

static int client[64]; /* the PEs' ends */

static void start_job(int n)
{
    for (int i = 0; i < npes; i++) {
        pe_close(&pes[i]);
        free(pes[i].in);
        free(pes[i].out);
        close(client[i]);
    }
    free(pes);
    pmi_server_fini();
    pes = calloc((size_t)n, sizeof *pes);
    npes = n;
    tearing_down = 0;
    teardown_code = -1;
    teardown_quiet = 0;
    teardown_why[0] = last_msg[0] = '\0';
    for (int i = 0; i < n; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
            perror("socketpair");
            exit(2);
        }
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
        pes[i].fd = sv[0];
        pes[i].pid = 1000 + i;
        client[i] = sv[1];
    }
    pmi_server_init();
}

/* PE rank sends text (any number of lines, or part of one); the server
 * serves what arrived. */
static void send_text(int rank, const char *text)
{
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(client[rank], text + off, len - off);
        if (w <= 0) {
            perror("write");
            exit(2);
        }
        off += (size_t)w;
        pe_read(rank);
    }
}

/* The next reply line PE rank has, or "" when none is waiting. */
static const char *reply_of(int rank)
{
    static char line[8192];
    size_t n = 0;
    struct pollfd pfd = {.fd = client[rank], .events = POLLIN};
    while (n + 1 < sizeof line && poll(&pfd, 1, 0) == 1) {
        if (read(client[rank], &line[n], 1) != 1)
            break;
        if (line[n] == '\n')
            break;
        n++;
    }
    line[n] = '\0';
    return line;
}

#define REPLY(rank, want)                                                               \
    do {                                                                                \
        const char *got_ = reply_of(rank);                                              \
        UT_CHECK(!strncmp(got_, want, strlen(want)), "PE %d got \"%s\", expected \"%s...\"", \
                 rank, got_, want);                                                     \
    } while (0)

static char kvs[128];

static void handshake(int rank)
{
    send_text(rank, "cmd=init pmi_version=1 pmi_subversion=1\n");
    REPLY(rank, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0 weft_explained=1");
    send_text(rank, "cmd=get_maxes\n");
    REPLY(rank, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024");
    send_text(rank, "cmd=get_my_kvsname\n");
    const char *r = reply_of(rank);
    UT_CHECK(sscanf(r, "cmd=my_kvsname kvsname=%127s", kvs) == 1, "kvsname reply \"%s\"", r);
}

/* ---- weft's client against the server, end to end --------------------------- */
static void *serve_until_closed(void *arg)
{
    (void)arg;
    int open = 1;
    while (open) {
        struct pollfd pfd[64];
        for (int i = 0; i < npes; i++)
            pfd[i] = (struct pollfd){.fd = pes[i].fd, .events = POLLIN};
        if (poll(pfd, (nfds_t)npes, 5000) <= 0)
            break;
        open = 0;
        for (int i = 0; i < npes; i++) {
            if (pes[i].fd >= 0 && pfd[i].revents)
                pe_read(i);
            open |= pes[i].fd >= 0;
        }
    }
    return NULL;
}

static void end_to_end(void)
{
    /* A 2-PE job: PE 1 is scripted, PE 0 is weft's client. */
    start_job(2);
    handshake(1);
    char card[2600], line[4096];
    for (size_t i = 0; i < sizeof card; i++)
        card[i] = (char)(i * 7 + 1);
    /* PE 1's value as weft would store it: main key with NBYTES:HEX, the
     * rest in continuation keys; here it is short enough for one key. */
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=ep:1 value=4:01020304\n", kvs);
    send_text(1, line);
    REPLY(1, "cmd=put_result rc=0");
    send_text(1, "cmd=barrier_in\n");
    UT_CHECK(!strcmp(reply_of(1), ""), "the barrier waits for PE 0");

    pthread_t server;
    pthread_create(&server, NULL, serve_until_closed, NULL);
    UT_EQ(weft_pmi1_init(client[0], 0, 2), 0);
    unsigned char mine[4] = {9, 8, 7, 6}, all[8];
    UT_EQ(weft_pmi1_allgather("ep", mine, all, 4), 0);
    UT_CHECK(!memcmp(all, mine, 4) && all[4] == 1 && all[7] == 4, "allgather through oshrun");
    /* A value longer than vallen_max goes in continuation keys and comes
     * back whole. */
    UT_EQ(weft_pmi1_put("long", card, sizeof card), 0);
    char back[sizeof card];
    size_t len = sizeof back;
    UT_EQ(weft_pmi1_get(0, "long", back, &len), 0);
    UT_CHECK(len == sizeof card && !memcmp(back, card, sizeof card), "%zu bytes back", len);
    UT_EQ(weft_pmi1_finalize(), 0);
    close(client[1]);
    client[1] = open("/dev/null", O_RDONLY); /* closed by start_job */
    client[0] = open("/dev/null", O_RDONLY); /* weft_pmi1_finalize closed it */
    pthread_join(server, NULL);
    UT_CHECK(pes[0].finalized, "PE 0 finalized");
    UT_EQ(teardown_code, -1);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);

    /* Handshake, put and get, requests split and batched, finalize. */
    start_job(3);
    for (int i = 0; i < 3; i++)
        handshake(i);
    UT_CHECK(!strncmp(kvs, "oshrun_", 7), "kvsname %s", kvs);
    char line[4096];
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=a:0 value=00ff\n", kvs);
    send_text(0, line);
    REPLY(0, "cmd=put_result rc=0");
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=a:0\n", kvs);
    send_text(2, line);
    REPLY(2, "cmd=get_result rc=0 msg=success value=00ff");
    send_text(2, "cmd=get kvsname=");
    send_text(2, kvs);
    UT_CHECK(!strcmp(reply_of(2), ""), "half a request is not served");
    send_text(2, " key=missing\ncmd=get_universe_size\ncmd=get_appnum\n");
    REPLY(2, "cmd=get_result rc=-1");
    REPLY(2, "cmd=universe_size size=3");
    REPLY(2, "cmd=appnum appnum=0");

    /* The store's limits. */
    char key[80];
    memset(key, 'k', 64);
    key[64] = '\0';
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=1\n", kvs, key);
    send_text(0, line);
    REPLY(0, "cmd=put_result rc=-1 msg=invalid_key");
    key[63] = '\0';
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=1\n", kvs, key);
    send_text(0, line);
    REPLY(0, "cmd=put_result rc=0");
    char value[1100];
    memset(value, 'v', 1024);
    value[1024] = '\0';
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=b value=%s\n", kvs, value);
    send_text(0, line);
    REPLY(0, "cmd=put_result rc=-1 msg=invalid_value");
    send_text(0, "cmd=put kvsname=other key=b value=1\n");
    REPLY(0, "cmd=put_result rc=-1 msg=unknown_kvsname");
    for (int i = 0; i < 16384; i++) {
        snprintf(line, sizeof line, "cmd=put kvsname=%s key=q%d value=1\n", kvs, i);
        send_text(1, line);
        const char *r = reply_of(1);
        if (strncmp(r, "cmd=put_result rc=0", 19)) {
            UT_CHECK(i >= 16384 - 2, "put %d refused early: %s", i, r);
            break;
        }
    }
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=one-more value=1\n", kvs);
    send_text(1, line);
    REPLY(1, "cmd=put_result rc=-1 msg=store_limit_exceeded");
    UT_CHECK(strstr(last_msg, "PE 1 exceeds the key-value store limit") != NULL, "warned: %s",
             last_msg);
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=q0 value=2\n", kvs);
    send_text(1, line); /* replacing a value still works */
    REPLY(1, "cmd=put_result rc=0");

    /* The barrier is released for everyone by the last PE in. */
    send_text(0, "cmd=barrier_in\n");
    send_text(1, "cmd=barrier_in\n");
    UT_CHECK(!strcmp(reply_of(0), "") && !strcmp(reply_of(1), ""), "released early");
    send_text(2, "cmd=barrier_in\n");
    for (int i = 0; i < 3; i++)
        REPLY(i, "cmd=barrier_out");
    send_text(1, "cmd=finalize\n");
    REPLY(1, "cmd=finalize_ack");
    UT_CHECK(pes[1].finalized && teardown_code == -1, "finalize ends nothing");

    end_to_end();

    /* A PE that exits while the others wait in the barrier ends the job
     * (the server's barrier count outlives a job: this comes last of the
     * barriers). */
    start_job(3);
    send_text(0, "cmd=barrier_in\n");
    send_text(1, "cmd=barrier_in\n");
    check_barrier_deadlock();
    UT_EQ(teardown_code, -1);
    pes[2].exited = 1;
    check_barrier_deadlock();
    UT_CHECK(teardown_code == 1 && strstr(teardown_why, "PE 2 exited"), "%d: %s", teardown_code,
             teardown_why);

    /* abort: the job's status from the PE's exit code. */
    int codes[][2] = {{3, 3}, {0, 0}, {256, 1}, {-1, 255}};
    for (size_t c = 0; c < sizeof codes / sizeof *codes; c++) {
        start_job(1);
        snprintf(line, sizeof line, "cmd=abort exitcode=%d\n", codes[c][0]);
        send_text(0, line);
        UT_CHECK(teardown_code == codes[c][1] && strstr(teardown_why, "PE 0 called abort"),
                 "abort exitcode=%d: status %d (%s)", codes[c][0], teardown_code, teardown_why);
    }
    /* A PE that said it printed why it ends: the teardown is quiet. */
    start_job(1);
    send_text(0, "cmd=weft_explained\ncmd=abort exitcode=2\n");
    UT_CHECK(teardown_code == 2 && teardown_quiet == 1, "status %d, quiet %d", teardown_code,
             teardown_quiet);
    start_job(1);
    send_text(0, "cmd=spawn\n");
    UT_CHECK(teardown_code == 1 && strstr(teardown_why, "unsupported PMI command 'spawn'"), "%s",
             teardown_why);
    start_job(1);
    send_text(0, "hello\n");
    UT_CHECK(teardown_code == 1 && strstr(teardown_why, "unsupported PMI request"), "%s",
             teardown_why);
    start_job(1);
    static char big[70 * 1024];
    memset(big, 'x', sizeof big - 1);
    send_text(0, big);
    UT_CHECK(teardown_code == 1 && strstr(teardown_why, "oversized PMI request"), "%s",
             teardown_why);

    start_job(0);
    return ut_done("unit.oshrun_pmi");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* boot_test: a PE program that uses only the bootstrap interface
 * (src/bootstrap/bootstrap.h), for the launcher tests. The first argument
 * picks the scenario:
 *
 *   basic N NAME     size is N, launcher is NAME, ranks are 0..N-1 and
 *                    distinct, put/get/allgather work for values from 0
 *                    bytes to several times the PMI value limit
 *   exit R CODE      PE R exits with CODE after a barrier, the others block
 *                    in a second barrier forever
 *   early0           PE 1 finalizes and exits 0 right after init; the others
 *                    finish later
 *   early0-barrier   same, but the others then enter a barrier PE 1 left
 *   nofinalize0      PE 1 exits 0 without finalizing; the others wait in a
 *                    barrier (the launcher must end the job, status 1)
 *   segv R           PE R raises SIGSEGV, the others block in a barrier
 *   segv-stubborn R  same, but the others ignore SIGTERM and pause()
 *   abort R CODE     PE R calls weft_boot_abort(CODE), the others block
 *   stdin N          PE 0 must read exactly N bytes of stdin, others 0
 *   exchange [K]     K (6) checked allgathers of 168 bytes, barrier,
 *                    finalize: the launcher's part of shmem_init
 *   hang             init, barrier, then wait forever
 *   session S NEW    each PE leads a session of its own (NEW 1) or none
 *                    does (NEW 0: all share the launcher's); then every
 *                    PE sleeps S seconds in steps of 10 ms, a barrier, and
 *                    PE 0 prints how long the sleep took in all
 *   kvflood          PE 0 puts distinct keys until the launcher refuses
 *                    one; it must refuse within its documented bound
 *                    (16384 keys per PE) and the store must still serve
 *
 * Exits 0 when the scenario's checks pass, non-zero with a message if not. */
#include "bootstrap/bootstrap.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int rank = -1, size = -1;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "boot_test: PE %d: check failed (%s:%d): %s: ", rank, __FILE__,        \
                    __LINE__, #cond);                                                              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(90);                                                                              \
        }                                                                                          \
    } while (0)

static unsigned char pattern(int r, size_t i, unsigned salt)
{
    uint32_t x = (uint32_t)r * 2654435761u ^ (uint32_t)i * 40503u ^ salt * 97u;
    x ^= x >> 13;
    return (unsigned char)(x * 0x5bd1e995u >> 24);
}

/* Allgather len bytes of a per-rank pattern and verify every slot. */
static void check_allgather(const char *key, size_t len, unsigned salt)
{
    unsigned char *mine = malloc(len + 1), *all = malloc(len * (size_t)size + 1);
    CHECK(mine && all, "out of memory");
    for (size_t i = 0; i < len; i++)
        mine[i] = pattern(rank, i, salt);
    CHECK(weft_boot_allgather(key, mine, all, len) == 0, "allgather '%s' of %zu bytes", key, len);
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < len; i++)
            CHECK(all[(size_t)r * len + i] == pattern(r, i, salt),
                  "allgather '%s' (%zu bytes): byte %zu from PE %d wrong", key, len, i, r);
    free(mine);
    free(all);
}

static void block_forever(void)
{
    for (;;)
        pause();
}

static void test_basic(int want_size, const char *want_name)
{
    CHECK(size == want_size, "size %d, expected %d", size, want_size);
    CHECK(rank >= 0 && rank < size, "rank %d out of [0,%d)", rank, size);
    CHECK(strcmp(weft_boot_name(), want_name) == 0, "launcher '%s', expected '%s'",
          weft_boot_name(), want_name);

    /* Ranks are distinct and cover 0..size-1. */
    int *ranks = malloc(sizeof(int) * (size_t)size);
    CHECK(ranks, "out of memory");
    CHECK(weft_boot_allgather("rank", &rank, ranks, sizeof rank) == 0, "allgather of ranks");
    for (int r = 0; r < size; r++)
        CHECK(ranks[r] == r, "slot %d holds rank %d", r, ranks[r]);
    free(ranks);

    /* Sizes around the 1024-character PMI value limit (hex doubles them),
     * and far beyond it. */
    static const size_t lens[] = { 0, 1, 7, 500, 508, 509, 510, 511, 512, 513, 1023, 1024, 3000,
                                   20000 };
    for (unsigned i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        if (size > 16 && lens[i] > 4000)
            continue; /* O(size^2) PMI round trips: keep big jobs quick */
        char key[32];
        snprintf(key, sizeof key, "ag%u", i);
        check_allgather(key, lens[i], i);
    }
    CHECK(weft_boot_barrier() == 0, "barrier");

    /* Different sizes from different PEs, read by everyone. */
#define VARLEN(r) ((size_t)((r) % 8) * 700 + 1)
    size_t mylen = VARLEN(rank);
    unsigned char *buf = malloc(VARLEN(7) + 16);
    CHECK(buf, "out of memory");
    for (size_t i = 0; i < mylen; i++)
        buf[i] = pattern(rank, i, 77);
    CHECK(weft_boot_put("var", buf, mylen) == 0, "put var");
    CHECK(weft_boot_fence() == 0, "fence");
    for (int r = 0; r < size; r++) {
        size_t len = VARLEN(r) + 16, want = VARLEN(r);
        CHECK(weft_boot_get(r, "var", buf, &len) == 0, "get var from PE %d", r);
        CHECK(len == want, "var from PE %d is %zu bytes, expected %zu", r, len, want);
        for (size_t i = 0; i < len; i++)
            CHECK(buf[i] == pattern(r, i, 77), "var from PE %d: byte %zu wrong", r, i);
        if (want > 1 && r == (rank + 1) % size) {
            /* A buffer too small fails and reports the size needed (one
             * PE each, to keep the expected warnings few). */
            len = want - 1;
            CHECK(weft_boot_get(r, "var", buf, &len) != 0, "get into a short buffer succeeded");
            CHECK(len == want, "short get reported %zu, expected %zu", len, want);
        }
    }
    free(buf);

    /* Missing keys and bad keys fail cleanly (checked on PE 0 only: each
     * prints an expected warning). */
    if (rank == 0) {
        char tmp[8];
        size_t tl = sizeof tmp;
        CHECK(weft_boot_get(size - 1, "never-put", tmp, &tl) != 0, "get of a missing key worked");
        CHECK(weft_boot_put("bad key", tmp, 1) != 0, "put with a space in the key worked");
        CHECK(weft_boot_get(size, "rank", tmp, &tl) != 0, "get from rank == size worked");
    }

    CHECK(weft_boot_barrier() == 0, "final barrier");
    CHECK(weft_boot_finalize() == 0, "finalize");
    if (rank == 0)
        printf("boot_test basic: %d PE(s) via %s OK\n", size, want_name);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: boot_test SCENARIO [args]\n");
        return 2;
    }
    const char *mode = argv[1];
    if (weft_boot_init(&rank, &size) != 0) {
        fprintf(stderr, "boot_test: weft_boot_init failed\n");
        return 91;
    }
    int arg2 = argc > 2 ? atoi(argv[2]) : 0, arg3 = argc > 3 ? atoi(argv[3]) : 0;

    if (strcmp(mode, "basic") == 0 && argc >= 4) {
        test_basic(arg2, argv[3]);
    } else if (strcmp(mode, "exit") == 0) {
        CHECK(weft_boot_barrier() == 0, "barrier");
        if (rank == arg2)
            _exit(arg3);
        weft_boot_barrier();
        fprintf(stderr, "boot_test: PE %d: barrier returned though PE %d exited\n", rank, arg2);
        return 92;
    } else if (strcmp(mode, "early0") == 0 || strcmp(mode, "early0-barrier") == 0) {
        if (rank == 1) {
            CHECK(weft_boot_finalize() == 0, "finalize");
            return 0;
        }
        sleep(1);
        if (strcmp(mode, "early0-barrier") == 0) {
            weft_boot_barrier(); /* can never complete: the launcher must end the job */
            return 95;
        }
        CHECK(weft_boot_finalize() == 0, "finalize");
    } else if (strcmp(mode, "nofinalize0") == 0) {
        if (rank == 1)
            _exit(0);
        weft_boot_barrier();
        return 96;
    } else if (strcmp(mode, "segv") == 0 || strcmp(mode, "segv-stubborn") == 0) {
        CHECK(weft_boot_barrier() == 0, "barrier");
        if (rank == arg2) {
            struct rlimit no_core = { 0, 0 };
            setrlimit(RLIMIT_CORE, &no_core);
            signal(SIGSEGV, SIG_DFL); /* sanitizers catch it otherwise */
            usleep(200000);
            raise(SIGSEGV);
        }
        if (strcmp(mode, "segv") == 0) {
            weft_boot_barrier();
        } else {
            signal(SIGTERM, SIG_IGN);
            block_forever();
        }
        return 93;
    } else if (strcmp(mode, "abort") == 0) {
        CHECK(weft_boot_barrier() == 0, "barrier");
        if (rank == arg2)
            weft_boot_abort(arg3, "boot_test abort scenario");
        /* A barrier the launcher fails (PMIx fences do once a member is
         * gone) is no exit of ours: the launcher must take this PE down,
         * and the job's status must be the aborting PE's. */
        if (weft_boot_barrier() != 0)
            block_forever();
        return 94;
    } else if (strcmp(mode, "stdin") == 0) {
        char buf[4096];
        long total = 0;
        ssize_t n;
        while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0)
            total += n;
        long *all = malloc(sizeof(long) * (size_t)size);
        CHECK(all, "out of memory");
        CHECK(weft_boot_allgather("stdin", &total, all, sizeof total) == 0, "allgather");
        for (int r = 0; r < size; r++)
            CHECK(all[r] == (r == 0 ? arg2 : 0), "PE %d read %ld bytes of stdin, expected %d", r,
                  all[r], r == 0 ? arg2 : 0);
        free(all);
        CHECK(weft_boot_finalize() == 0, "finalize");
    } else if (strcmp(mode, "exchange") == 0) {
        /* What shmem_init asks of the launcher, without libfabric: K
         * allgathers of an endpoint-sized blob (checked), a barrier,
         * finalize. For start-up timings (scripts/measure-startup). */
        for (int k = 0; k < (arg2 > 0 ? arg2 : 6); k++) {
            char key[16];
            snprintf(key, sizeof key, "ex%d", k);
            check_allgather(key, 168, (unsigned)k);
        }
        CHECK(weft_boot_barrier() == 0, "barrier");
        CHECK(weft_boot_finalize() == 0, "finalize");
    } else if (strcmp(mode, "kvflood") == 0) {
        if (rank == 0) {
            char key[32], val[64];
            memset(val, 'v', sizeof val - 1);
            val[sizeof val - 1] = '\0';
            int stored = 0;
            for (; stored < 40000; stored++) {
                snprintf(key, sizeof key, "flood%d", stored);
                if (weft_boot_put(key, val, strlen(val)) != 0)
                    break;
            }
            CHECK(stored < 40000, "the launcher accepted 40000 keys from one PE");
            printf("boot_test kvflood: refused after %d keys\n", stored);
            /* What was stored is still served. */
            size_t len = sizeof val;
            CHECK(weft_boot_get(0, "flood0", val, &len) == 0, "get after the refusal");
        }
        CHECK(weft_boot_barrier() == 0, "barrier");
        CHECK(weft_boot_finalize() == 0, "finalize");
    } else if (strcmp(mode, "session") == 0) {
        int own = getsid(0) == getpid();
        int *all = malloc(sizeof(int) * (size_t)size);
        CHECK(all, "out of memory");
        CHECK(weft_boot_allgather("session", &own, all, sizeof own) == 0, "allgather");
        for (int r = 0; r < size; r++)
            CHECK(all[r] == arg3, "PE %d %s a session of its own", r,
                  all[r] ? "leads" : "does not lead");
        free(all);
        struct timespec t0, t1, step = {0, 10000000};
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0; i < arg2 * 100; i++)
            nanosleep(&step, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK(weft_boot_barrier() == 0, "barrier");
        if (rank == 0)
            printf("boot_test session: %d PE(s), slept %.1f s\n", size,
                   (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
        CHECK(weft_boot_finalize() == 0, "finalize");
    } else if (strcmp(mode, "hang") == 0) {
        CHECK(weft_boot_barrier() == 0, "barrier");
        block_forever();
    } else {
        fprintf(stderr, "boot_test: unknown scenario '%s'\n", mode);
        return 2;
    }
    return 0;
}

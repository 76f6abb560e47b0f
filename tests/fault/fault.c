/* SPDX-License-Identifier: BSD-3-Clause */
/* fault: a weft program that misbehaves on purpose, for the fault-injection
 * tests (tests/fault/CMakeLists.txt runs it under launch_check through
 * oshrun and mpiexec.hydra). Every scenario but pass initializes and
 * passes a barrier; then PE R (the last PE) misbehaves while the others do
 * what the scenario says (launch_check finds a PE from outside by its
 * PMI_RANK). Scenarios:
 *
 *   exit CODE          PE R calls exit(CODE) without shmem_finalize; the
 *                      others enter shmem_barrier_all
 *   nb-exit CODE       every PE posts non-blocking collectives (alltoall,
 *                      broadcast, sync), the others 0.3 s after PE R; PE R
 *                      then calls exit(CODE) without waiting for them or
 *                      finalizing, the others wait for theirs and enter
 *                      shmem_barrier_all
 *   _exit CODE         PE R calls _exit(CODE): weft cannot see it; the
 *                      others enter shmem_barrier_all
 *   fork-exit          every PE forks a child that calls exit(3) without
 *                      exec (it is not a PE: the job must go on), then
 *                      finalizes; exit 0
 *   bad-pe             PE R calls shmem_int_p with pe = the number of PEs
 *                      (a fatal error); the others wait
 *   finalize-alone     PE R calls shmem_finalize and returns 0; the others
 *                      enter shmem_barrier_all
 *   team-finalize      6 PEs: PE R (5) calls shmem_finalize, PE 2, its
 *                      only partner in a team of stride 3 (and 3 places
 *                      after it in PE order, out of reach of its notices
 *                      to PEs 1, 2 and 4 after it), waits in the team's
 *                      shmem_team_sync; the others wait in
 *                      shmem_int_wait_until (no notice of their own)
 *   abort              PE R calls abort(); the others wait in barrier_all
 *   global-exit CODE   PE R calls shmem_global_exit(CODE); the others wait
 *   wait [TERM]        every PE waits forever in shmem_int_wait_until
 *                      (for signals and kills from outside); TERM
 *                      "ignore-term" or "block-term": every PE ignores or
 *                      blocks SIGTERM first
 *   spin [TERM]        every PE computes forever without calling weft
 *   compute            PE R computes forever without calling weft, the
 *                      others wait for it (not a hang)
 *   mismatch           PE R enters shmem_barrier_all, the others a sum
 *                      reduction on SHMEM_TEAM_WORLD (a hang)
 *   stall              PE R waits for a flag nobody sets, the others in
 *                      shmem_barrier_all (a hang)
 *   pass               a short communicating run: a ring of puts checked,
 *                      barriers, a reduction; exit 0 (the soak program)
 *   listen             every TCP socket this PE listens on must be bound to
 *                      the loopback address (a job on one host); prints how
 *                      many it found, exits 1 naming any other address
 *   heap-size          PE 0 starts with SHMEM_SYMMETRIC_SIZE=100M, the
 *                      others with the default (it sets the variable before
 *                      shmem_init from its launcher's rank variable); had
 *                      shmem_init let that pass, every PE allocates 150 MiB
 *                      and PE 1 puts 1 MiB at offset 149 MiB to PE 0
 *   topology           PE 0 starts with WEFT_TOPOLOGY=nodes=2, the others
 *                      without (the same way)
 *   provider           PE 0 starts with FI_PROVIDER=tcp, the others with
 *                      the job's setting (the same way as heap-size)
 *   init-stop          PE 1 stops itself (SIGSTOP) inside shmem_init as
 *                      soon as its libfabric shm region appears in
 *                      /dev/shm (a thread watches for it; exits 94 if
 *                      shmem_init returned first), to be killed there from
 *                      outside; the others wait
 *   quiet-loop         every PE puts to the next one and quiets, over and
 *                      over, for 3 s, then waits forever: a PE stopped
 *                      meanwhile leaves its left neighbour blocked in the
 *                      quiet, waiting for its acknowledgement
 *   ctx-wait           every PE creates a context, puts through it to the
 *                      next PE, then waits forever
 *   malloc-size        PE R calls shmem_malloc(2 MiB), the others (1 MiB)
 *   align              PE R calls shmem_align(128, 256), the others (64, 256)
 *
 * A scenario that ends in a way it must not (a barrier returning though a
 * PE is gone) exits 92. */
#include <shmem.h>
#include <shmemx.h>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int flag;
static int ring[64];
static int red_src, red_dst;

static void block_in_wait(void)
{
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 12345);
}

/* Inodes of the sockets this process holds. */
static int my_socket(unsigned long inode)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        char path[300], link[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        unsigned long ino;
        if (n > 0) {
            link[n] = '\0';
            found = sscanf(link, "socket:[%lu]", &ino) == 1 && ino == inode;
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* Listening TCP sockets of this process (state 0A in /proc/net/tcp*). */
static int run_listen(int me)
{
    static const char *const tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    int listening = 0, bad = 0;
    for (int t = 0; t < 2; t++) {
        FILE *f = fopen(tables[t], "r");
        char line[512];
        while (f && fgets(line, sizeof line, f)) {
            char local[64], remote[64];
            unsigned state;
            unsigned long inode;
            if (sscanf(line, " %*d: %63s %63s %x %*s %*s %*s %*s %*s %lu", local, remote, &state,
                       &inode) != 4 || state != 0x0A || !my_socket(inode))
                continue;
            listening++;
            int loop4 = strncmp(local, "0100007F:", 9) == 0;
            int loop6 = strncmp(local, "00000000000000000000000001000000:", 33) == 0;
            if (!loop4 && !loop6) {
                fprintf(stderr, "fault listen: PE %d listens on %s (not loopback)\n", me, local);
                bad = 1;
            }
        }
        if (f)
            fclose(f);
    }
    shmem_barrier_all();
    printf("fault listen: PE %d: %d listening socket(s)%s\n", me, listening,
           bad ? "" : ", all on loopback");
    shmem_finalize();
    return bad;
}

static int run_pass(int me, int n)
{
    for (int it = 0; it < 20; it++) {
        int v = me * 1000 + it;
        shmem_int_p(&ring[it % 64], v, (me + 1) % n);
        shmem_barrier_all();
        int from = (me + n - 1) % n;
        if (ring[it % 64] != from * 1000 + it) {
            fprintf(stderr, "fault pass: PE %d: ring[%d] = %d, expected %d\n", me, it % 64,
                    ring[it % 64], from * 1000 + it);
            return 1;
        }
    }
    red_src = me + 1;
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
    if (red_dst != n * (n + 1) / 2) {
        fprintf(stderr, "fault pass: PE %d: sum %d, expected %d\n", me, red_dst, n * (n + 1) / 2);
        return 1;
    }
    shmem_finalize();
    if (me == 0)
        printf("fault pass: %d PE(s) OK\n", n);
    return 0;
}

/* This PE's rank before shmem_init, from its launcher (-1: none). */
static int getenv_rank(void)
{
    /* oshrun and Hydra say PMI_RANK, Open MPI's mpirun OMPI_COMM_WORLD_RANK. */
    const char *rank = getenv("PMI_RANK");
    if (!rank)
        rank = getenv("OMPI_COMM_WORLD_RANK");
    return rank ? atoi(rank) : -1;
}

/* init-stop: stop this process once /dev/shm holds "<pid>:..." of it. */
static void *stop_on_region(void *arg)
{
    (void)arg;
    char prefix[32];
    size_t len = (size_t)snprintf(prefix, sizeof prefix, "%ld:", (long)getpid());
    for (;;) {
        DIR *d = opendir("/dev/shm");
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (strncmp(e->d_name, prefix, len) == 0) {
                fprintf(stderr, "fault: PE 1 stops inside shmem_init\n");
                raise(SIGSTOP);
            }
        }
        if (d)
            closedir(d);
        usleep(200);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *mode = argc > 1 ? argv[1] : "pass";
    int code = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(mode, "heap-size") == 0 || strcmp(mode, "topology") == 0 ||
        strcmp(mode, "provider") == 0) {
        int first = getenv_rank() == 0;
        if (first && mode[0] == 'h')
            setenv("SHMEM_SYMMETRIC_SIZE", "100M", 1);
        else if (first && mode[0] == 't')
            setenv("WEFT_TOPOLOGY", "nodes=2", 1);
        else if (first)
            setenv("FI_PROVIDER", "tcp", 1);
    }
    pthread_t stopper;
    int stops = strcmp(mode, "init-stop") == 0 && getenv_rank() == 1;
    if (stops && pthread_create(&stopper, NULL, stop_on_region, NULL) != 0)
        return 93;
    shmem_init();
    if (stops) {
        fprintf(stderr, "fault: PE 1: shmem_init returned before its shm region appeared\n");
        return 94;
    }
    int me = shmem_my_pe(), n = shmem_n_pes();
    int bad = n - 1;
    if (strcmp(mode, "pass") == 0)
        return run_pass(me, n);
    if (strcmp(mode, "listen") == 0)
        return run_listen(me);
    if (argc > 2 && strcmp(argv[2], "ignore-term") == 0) {
        signal(SIGTERM, SIG_IGN);
    } else if (argc > 2 && strcmp(argv[2], "block-term") == 0) {
        sigset_t term;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        sigprocmask(SIG_BLOCK, &term, NULL);
    }
    if (strcmp(mode, "topology") == 0 || strcmp(mode, "provider") == 0) {
        fprintf(stderr, "fault: PE %d: scenario '%s' went on though it must not\n", me, mode);
        return 92;
    }
    if (strcmp(mode, "heap-size") == 0) {
        char *block = shmem_malloc((size_t)150 << 20);
        if (me == 1 && block) {
            static char mib[1 << 20];
            shmem_putmem(block + ((size_t)149 << 20), mib, sizeof mib, 0);
            shmem_quiet();
        }
        shmem_barrier_all();
        fprintf(stderr, "fault: PE %d: scenario '%s' went on though it must not\n", me, mode);
        return 92;
    }
    shmem_barrier_all();
    if (me == bad) /* launch_check --mark: the fault starts now */
        fprintf(stderr, "fault: PE %d: scenario %s starts\n", me, mode);

    if (strcmp(mode, "exit") == 0) {
        if (me == bad)
            exit(code);
        shmem_barrier_all();
    } else if (strcmp(mode, "nb-exit") == 0) {
        enum { NB_BYTES = 256 * 1024 };
        size_t all = (size_t)n * NB_BYTES;
        char *a = shmem_malloc(2 * all + 2 * NB_BYTES);
        if (!a)
            return 93;
        shmem_req_h req[3];
        if (me != bad)
            usleep(300000); /* PE R is at its exit before the others start */
        shmem_alltoallmem_nb(SHMEM_TEAM_WORLD, a, a + all, NB_BYTES, &req[0]);
        shmem_broadcastmem_nb(SHMEM_TEAM_WORLD, a + 2 * all, a + 2 * all + NB_BYTES, NB_BYTES,
                              0, &req[1]);
        shmemx_sync_all_nb(&req[2]);
        if (me == bad)
            exit(code);
        for (int i = 0; i < 3; i++)
            shmem_req_wait(&req[i]);
        shmem_barrier_all();
    } else if (strcmp(mode, "_exit") == 0) {
        if (me == bad)
            _exit(code);
        shmem_barrier_all();
    } else if (strcmp(mode, "fork-exit") == 0) {
        pid_t child = fork();
        if (child == 0)
            exit(3);
        waitpid(child, NULL, 0);
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    } else if (strcmp(mode, "bad-pe") == 0) {
        if (me == bad)
            shmem_int_p(&flag, 1, n);
        block_in_wait();
    } else if (strcmp(mode, "finalize-alone") == 0) {
        if (me == bad) {
            shmem_finalize();
            return 0;
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "team-finalize") == 0) {
        shmem_team_t pair = SHMEM_TEAM_INVALID;
        if (n != 6 || shmem_team_split_strided(SHMEM_TEAM_WORLD, 2, 3, 2, NULL, 0, &pair) != 0)
            return 94;
        if (me == bad) {
            shmem_finalize();
            return 0;
        }
        if (me == 2)
            shmem_team_sync(pair);
        block_in_wait();
    } else if (strcmp(mode, "abort") == 0) {
        if (me == bad) {
            signal(SIGABRT, SIG_DFL);
            abort();
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "global-exit") == 0) {
        if (me == bad)
            shmem_global_exit(code);
        block_in_wait();
    } else if (strcmp(mode, "wait") == 0 || strcmp(mode, "init-stop") == 0) {
        block_in_wait();
    } else if (strcmp(mode, "quiet-loop") == 0) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            shmem_int_p(&ring[0], me, (me + 1) % n);
            shmem_quiet();
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while (t.tv_sec - t0.tv_sec < 3);
        block_in_wait();
    } else if (strcmp(mode, "ctx-wait") == 0) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(0, &ctx) != 0)
            return 93;
        shmem_ctx_int_p(ctx, &ring[0], me, (me + 1) % n);
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
        if (me == 0)
            fprintf(stderr, "fault: every PE holds a context\n");
        block_in_wait();
    } else if (strcmp(mode, "spin") == 0) {
        volatile unsigned long x = 0;
        for (;;)
            x++;
    } else if (strcmp(mode, "compute") == 0) {
        volatile unsigned long x = 0;
        while (me == bad)
            x++;
        block_in_wait();
    } else if (strcmp(mode, "mismatch") == 0) {
        if (me == bad) {
            shmem_barrier_all();
        } else {
            red_src = 1;
            shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
        }
    } else if (strcmp(mode, "malloc-size") == 0) {
        void *p = shmem_malloc(me == bad ? (size_t)2 << 20 : (size_t)1 << 20);
        (void)p;
    } else if (strcmp(mode, "align") == 0) {
        void *p = shmem_align(me == bad ? 128 : 64, 256);
        (void)p;
    } else if (strcmp(mode, "stall") == 0) {
        if (me == bad)
            block_in_wait();
        else
            shmem_barrier_all();
    } else {
        fprintf(stderr, "fault: unknown scenario '%s'\n", mode);
        return 2;
    }
    fprintf(stderr, "fault: PE %d: scenario '%s' went on though it must not\n", me, mode);
    return 92;
}

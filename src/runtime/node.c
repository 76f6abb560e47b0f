/* SPDX-License-Identifier: BSD-3-Clause */
/* node.c owns host identity: which PEs share this machine, decided by
 * hostname plus the kernel's boot id (two containers with one hostname but
 * different kernels are different hosts), learned once at init through the
 * launcher's key-value exchange; and which process each PE on this host is
 * (pid and start time), so that a waiting PE can see whether a silent node
 * peer is stopped or gone (the hang report, runtime/hang.c). The same
 * exchange carries each PE's symmetric layout for agree.c to compare (no
 * exchange of its own), and the limit of each PE's heap, of which the job
 * takes the least. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "core/runtime.h"
#include "runtime/lifecycle.h"

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static uint64_t host_identity(void)
{
    char boot_id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot_id, sizeof boot_id, f))
            boot_id[0] = '\0';
        fclose(f);
    }
    return fnv1a(fnv1a(1469598103934665603ull, weft_rt.hostname), boot_id);
}

/* A process as /proc/<pid>/stat shows it: its state letter and start time
 * (clock ticks after boot; with the pid it names one process, as pids are
 * reused). Returns 0, or -1 when there is no such process. */
static int proc_stat(long pid, char *state, uint64_t *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return -1;
    buf[got] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold anything */
    unsigned long long st;
    /* Fields after the name: state (3) ... starttime (22). */
    if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
                     "%*d %*d %*d %llu", state, &st) != 2)
        return -1;
    *start = st;
    return 0;
}

struct node_card {
    struct weft_layout layout; /* layout.host: the host identity */
    int64_t pid;
    uint64_t start;
};

static struct node_card *cards;
static unsigned char *seen_alive; /* the peer's process was once found */

void weft_node_init(struct weft_layout *layout)
{
    int n = weft_rt.n_pes;
    layout->host = host_identity();
    struct node_card mine = {*layout, (int64_t)getpid(), 0};
    char st;
    if (proc_stat((long)mine.pid, &st, &mine.start) != 0)
        mine.start = 0;
    weft_rt.pe_host = calloc((size_t)n, sizeof *weft_rt.pe_host);
    cards = calloc((size_t)n, sizeof *cards);
    seen_alive = calloc((size_t)n, 1);
    struct weft_layout *all = calloc((size_t)n, sizeof *all);
    if (!weft_rt.pe_host || !cards || !seen_alive || !all)
        weft_fatal("shmem_init", "out of memory for %d host identities", n);
    if (weft_boot_allgather("weft-host", &mine, cards, sizeof mine) != 0)
        weft_fatal("shmem_init", "cannot exchange host identities through the launcher");
    for (int i = 0; i < n; i++)
        all[i] = cards[i].layout;
    weft_layout_agree(all);
    free(all);
    weft_rt.single_node = 1;
    for (int i = 0; i < n; i++) {
        if (cards[i].layout.heap_limit < layout->heap_limit)
            layout->heap_limit = cards[i].layout.heap_limit;
        weft_rt.pe_host[i] = cards[i].layout.host;
        if (cards[i].layout.host != layout->host)
            weft_rt.single_node = 0;
    }
}

char weft_node_peer_state(int pe, long *pid)
{
    if (!cards || pe < 0 || pe >= weft_rt.n_pes || cards[pe].layout.host != cards[weft_rt.my_pe].layout.host ||
        cards[pe].start == 0)
        return 0;
    *pid = (long)cards[pe].pid;
    char st;
    uint64_t start;
    /* No such process, or another one now (the pid was reused): the peer
     * is gone if it was once found, else it lives in another pid namespace
     * and cannot be seen from here. */
    if (proc_stat((long)cards[pe].pid, &st, &start) != 0 || start != cards[pe].start)
        return seen_alive[pe] ? 'X' : 0;
    seen_alive[pe] = 1;
    return st;
}

void weft_node_fini(void)
{
    free(weft_rt.pe_host);
    weft_rt.pe_host = NULL;
    free(cards);
    cards = NULL;
    free(seen_alive);
    seen_alive = NULL;
}

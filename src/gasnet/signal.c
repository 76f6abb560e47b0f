/* SPDX-License-Identifier: BSD-3-Clause */
/* signal.c owns SIGQUIT as the GASNet-1 specification describes it: a
 * node whose job is ending because another node called gasnet_exit alone
 * or died, or because the job was told to terminate, gets SIGQUIT, the one
 * signal a client may always catch, and its handler ends the node with
 * gasnet_exit. weft learns of such an end through the launcher, which
 * sends the other PEs SIGTERM (oshrun, Open MPI, Slurm); so, from
 * gasnet_init on, SIGTERM, SIGINT and SIGHUP run a handler that raises
 * SIGQUIT when the program has a SIGQUIT handler of its own, and otherwise
 * does what the signal did before (the handler that was there, or the
 * default action). WEFT_GASNET_SIGQUIT=0 leaves the signals alone. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "gasnet/gasnet_internal.h"

static const int converted[] = {SIGTERM, SIGINT, SIGHUP};
#define N_CONVERTED (sizeof converted / sizeof *converted)
static struct sigaction before[N_CONVERTED];
static volatile sig_atomic_t ending;  /* 1: by this process's own signal, 2: another's */
static volatile sig_atomic_t exiting; /* gasnet_exit has begun here */

int weft_gn_job_ending(void) { return ending; }
void weft_gn_signals_exiting(void) { exiting = 1; }

static int program_catches_quit(void)
{
    struct sigaction cur;
    if (sigaction(SIGQUIT, NULL, &cur) != 0)
        return 0;
    if (cur.sa_flags & SA_SIGINFO)
        return cur.sa_sigaction != NULL;
    return cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN;
}

static void on_terminate(int sig, siginfo_t *si, void *uc)
{
    size_t i = 0;
    while (i < N_CONVERTED && converted[i] != sig)
        i++;
    if (i == N_CONVERTED)
        return;
    if (!exiting && program_catches_quit()) {
        /* Sent by another process (the launcher ending the job): the job
         * is ending already. */
        ending = si && si->si_pid != 0 && si->si_pid != getpid() ? 2 : 1;
        raise(SIGQUIT); /* runs the program's handler before raise returns */
        return;
    }
    const struct sigaction *b = &before[i];
    if (b->sa_flags & SA_SIGINFO) {
        b->sa_sigaction(sig, si, uc);
    } else if (b->sa_handler == SIG_IGN) {
        return;
    } else if (b->sa_handler != SIG_DFL) {
        b->sa_handler(sig);
    } else {
        /* The default action, once this handler returns (sig is blocked
         * until then). */
        sigaction(sig, b, NULL);
        raise(sig);
    }
}

void weft_gn_signals_init(void)
{
    if (!weft_tun_bool(WEFT_TUN_GASNET_SIGQUIT))
        return;
    for (size_t i = 0; i < N_CONVERTED; i++) {
        if (sigaction(converted[i], NULL, &before[i]) != 0)
            continue;
        /* Ignored when the program started (nohup): it stays ignored. */
        if (!(before[i].sa_flags & SA_SIGINFO) && before[i].sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_terminate;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(converted[i], &sa, NULL);
    }
}

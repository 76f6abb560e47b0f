/* SPDX-License-Identifier: BSD-3-Clause */
/* lifeline.h owns how a PE leaves when weft's own calls cannot see the
 * reason (lifeline.c): the watch of the launcher, and the removal of the
 * files this PE created in /dev/shm. Core layer: it includes nothing of
 * weft; the bootstrap's PMIx client and the runtime call in. */
#ifndef WEFT_LIFELINE_H
#define WEFT_LIFELINE_H

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* Watch the launcher from a thread of our own: its connection fd (-1: none)
 * closing, or parent (0: none) exiting, ends this PE (weft_launcher_gone). */
void weft_lifeline_start(int fd, int parent);
/* Stop watching (finalize): the launcher may close the connection now. */
void weft_lifeline_stop(void);
/* This PE ends by a path of its own (abort, fatal error): the launcher
 * closing its connection is expected, not news. */
void weft_lifeline_leaving(void);
/* The launcher is gone: say so (how: what showed it), remove our files,
 * _exit. Returns only if the PE is already leaving by another path. */
void weft_launcher_gone(const char *how);
/* Unlink /dev/shm/<pid>:<n>:<n> files of this process (libfabric shm
 * regions): the mappings stay valid, nothing is left once the PE is gone. */
void weft_shm_files_remove(void);
/* Fork the shm reaper (once per process), before this PE creates shm
 * regions: a process of its own session that removes them when the PE
 * ends in a way that runs no code (SIGKILL), then exits. */
void weft_shm_reaper_start(void);
/* Wait for the short-lived process that forked the reaper (the end of
 * shmem_init): no zombie child of weft's is left for the program to see. */
void weft_shm_reaper_settle(void);

#pragma GCC visibility pop

#endif

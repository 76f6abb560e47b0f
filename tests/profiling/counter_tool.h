/* SPDX-License-Identifier: BSD-3-Clause */
/* counter_tool.h: the interface between the profiling tests' programs and
 * their counter tool (counter_tool.c), a profiling tool in the OpenSHMEM
 * sense: it defines some shmem_ routines, counts the calls it sees and
 * forwards each to its pshmem_ name.
 *
 *   counter_tool_expect(routine, calls)
 *       how many calls of shmem_<routine> the program made on this PE
 *       (routine without the prefix: "putmem", "int_p"). Every routine the
 *       tool counts needs an expectation.
 *   counter_tool_verify()
 *       compares counts with expectations; prints one line per mismatch and
 *       ends the job (pshmem_global_exit(1)) if there is one, else prints
 *       "counter tool: PE <me>: all <n> routines seen as often as called".
 *       The tool's shmem_finalize runs it before pshmem_finalize.
 *   counter_tool_verifications()
 *       how many times counter_tool_verify has run (and passed).
 *
 * shmem_pcontrol(0) stops the counting of every routine but shmem_pcontrol
 * itself, shmem_pcontrol(1) resumes it; 2 (flush) changes nothing. */
#ifndef COUNTER_TOOL_H
#define COUNTER_TOOL_H

void counter_tool_expect(const char *routine, long calls);
void counter_tool_verify(void);
int counter_tool_verifications(void);

#endif

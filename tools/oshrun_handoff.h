/* SPDX-License-Identifier: BSD-3-Clause */
/* oshrun_handoff.h: oshrun's multi-host options and the hand-off to
 * mpiexec.hydra or srun (oshrun_handoff.c). */
#ifndef WEFT_OSHRUN_HANDOFF_H
#define WEFT_OSHRUN_HANDOFF_H

/* Parse oshrun's command line for multi-host options. If the job belongs
 * to another launcher, exec it with the options translated (never returns
 * on success) or return oshrun's exit status after a message; return -1
 * when oshrun should run the job on this machine itself. */
int oshrun_handoff(int argc, char **argv, const char *prog_name);

#endif

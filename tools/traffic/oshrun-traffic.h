/* SPDX-License-Identifier: BSD-3-Clause */
/* oshrun-traffic.h: oshrun's side of the traffic report (oshrun-traffic.c). */
#ifndef OSHRUN_TRAFFIC_H
#define OSHRUN_TRAFFIC_H

/* Prepares the environment the PEs inherit so that they record their
 * traffic and PE 0 writes `report` (.html and .json) at finalize. Returns 0,
 * or -1 after printing why not. */
int oshrun_traffic_setup(const char *prog_name, const char *report);

#endif

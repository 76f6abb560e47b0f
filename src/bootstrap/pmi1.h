/* SPDX-License-Identifier: BSD-3-Clause */
/* pmi1.h: private interface between boot.c (launcher detection, singleton,
 * allgather) and pmi1.c (the PMI-1 wire-protocol client spoken to oshrun and
 * MPICH Hydra over the socket in PMI_FD, or Hydra's PMI_PORT). Not part of the library's API. */
#ifndef WEFT_BOOT_PMI1_H
#define WEFT_BOOT_PMI1_H

#include <stddef.h>

/* Handshake on fd (init, get_maxes, get_my_kvsname). rank and size come
 * from PMI_RANK / PMI_SIZE and are passed in. Returns 0 or -1 (warned). */
int weft_pmi1_init(int fd, int rank, int size);
/* Publish len bytes under key for this rank; long values span several
 * PMI keys so every PMI value stays within the server's vallen_max. */
int weft_pmi1_put(const char *key, const void *val, size_t len);
/* Hydra's port mode (PMI_PORT=HOST:PORT, PMI_ID=id): connect and do the
 * initack handshake, which gives rank and size. Returns the connected
 * descriptor for weft_pmi1_init, or -1 (warned). */
int weft_pmi1_connect_port(const char *hostport, int id, int *rank, int *size);
/* put + barrier + every rank's value, the gets sent in windows so the
 * exchange costs a few round trips, not one per rank. */
int weft_pmi1_allgather(const char *key, const void *mine, void *all, size_t len);
/* cmd=barrier_in / wait for cmd=barrier_out. Also makes puts visible. */
int weft_pmi1_barrier(void);
/* Fetch rank's value of key. *len in: capacity, out: size (also set when
 * the capacity is too small, then -1 is returned). */
int weft_pmi1_get(int rank, const char *key, void *val, size_t *len);
/* Send cmd=abort exitcode=status and wait (briefly) for the launcher to
 * kill us. Returns if the launcher did not. */
void weft_pmi1_abort(int status);
/* The connection to the launcher, -1 when closed. */
int weft_pmi1_fd(void);
/* Tell a launcher that takes the note (oshrun says so in its reply to
 * cmd=init) that this PE printed why it ends: the launcher need not. */
void weft_pmi1_explained(void);
/* cmd=finalize / cmd=finalize_ack, then close the connection. */
int weft_pmi1_finalize(void);

#endif

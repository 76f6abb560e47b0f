/* SPDX-License-Identifier: BSD-3-Clause */
/* get_bw: one-way get bandwidth, PE 1 -> PE 0: windows of shmem_getmem_nbi
 * then shmem_quiet (bench_bw in bench.h). MB/s = 10^6 bytes/s. */
#include "bench.h"

int main(int argc, char **argv) { return bench_bw("get_bw", 1, argc, argv); }

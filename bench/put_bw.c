/* SPDX-License-Identifier: BSD-3-Clause */
/* put_bw: one-way put bandwidth, PE 0 -> PE 1: windows of shmem_putmem_nbi
 * then shmem_quiet (bench_bw in bench.h). MB/s = 10^6 bytes/s. */
#include "bench.h"

int main(int argc, char **argv) { return bench_bw("put_bw", 0, argc, argv); }

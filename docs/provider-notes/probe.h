/* SPDX-License-Identifier: BSD-3-Clause */
/* probe.h -- what the standalone libfabric probes of this directory share
 * (each is still one cc command: the header sits next to them): the
 * headers they use, CK() to stop at the first failing call with its line
 * and libfabric's message, and probe_open() for the fabric, domain, AV
 * table and CQ every probe opens the same way. */
#ifndef PROBE_H
#define PROBE_H
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The API version every fi_getinfo asks for: that of the headers compiled
 * against, as weft asks (1.17 on Debian, 2.x against a 2.x build). */
#define PROBE_API FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)

/* A probe with children to clean up defines PROBE_FAIL() first. */
#ifndef PROBE_FAIL
#define PROBE_FAIL() exit(1)
#endif
#define CK(x)                                                                                      \
    do {                                                                                           \
        int _r = (int)(x);                                                                         \
        if (_r) {                                                                                  \
            fprintf(stderr, "%d: %s = %d (%s)\n", __LINE__, #x, _r, fi_strerror(-_r));           \
            PROBE_FAIL();                                                                          \
        }                                                                                          \
    } while (0)

/* Fabric, domain, an AV table and a CQ of FI_CQ_FORMAT_DATA for info. */
static inline void probe_open(struct fi_info *info, struct fid_fabric **fab,
                              struct fid_domain **dom, struct fid_av **av, struct fid_cq **cq)
{
    CK(fi_fabric(info->fabric_attr, fab, NULL));
    CK(fi_domain(*fab, info, dom, NULL));
    struct fi_av_attr ava = {.type = FI_AV_TABLE};
    CK(fi_av_open(*dom, &ava, av, NULL));
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_DATA};
    CK(fi_cq_open(*dom, &cqa, cq, NULL));
}
/* Sends len bytes to the other process (wr) and reads as many from it (rd),
 * calling progress, when not NULL, while nothing has arrived. */
static inline void probe_xchg(int wr, int rd, const void *mine, void *theirs, size_t len,
                              void (*progress)(void))
{
    if (write(wr, mine, len) != (ssize_t)len)
        exit(2);
    for (size_t g = 0; g < len;) {
        struct pollfd pf = {rd, POLLIN, 0};
        if (progress && poll(&pf, 1, 0) <= 0) {
            progress();
            continue;
        }
        ssize_t r = read(rd, (char *)theirs + g, len - g);
        if (r <= 0)
            exit(3);
        g += (size_t)r;
    }
}
#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_dl.h owns the names of the few functions weft calls in libfabric
 * itself (everything else in libfabric's API is inline, through the
 * objects' operation tables). They are renamed to weft's loader
 * (ofi_dl.c), which opens libfabric only when a job first needs it: loading
 * Debian's libfabric 1.17 loads its providers' libraries too, and two of
 * those (libpsm2, libinfinipath) spend about 100 ms each in their
 * constructors measuring the CPU clock, pinned to CPU 0, in every process,
 * whether or not the job ever uses libfabric. Included before any
 * <rdma/...> header, so that their inline functions call the renamed ones. */
#ifndef WEFT_OFI_DL_H
#define WEFT_OFI_DL_H

#define fi_getinfo weft_fi_getinfo
#define fi_freeinfo weft_fi_freeinfo
#define fi_dupinfo weft_fi_dupinfo
#define fi_fabric weft_fi_fabric
#define fi_strerror weft_fi_strerror
#define fi_tostr weft_fi_tostr
#define fi_version weft_fi_version

#include <rdma/fabric.h>

/* The libfabric API version weft asks for in every fi_getinfo: that of the
 * headers it is built against, whose structures it uses. */
#define WEFT_FI_API_VERSION FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)

#pragma GCC visibility push(hidden)
/* Open libfabric once (WEFT_FABRIC_LIBDIR's libfabric.so.1, then the
 * loader's search path). 0, or -1 after a warning naming what failed. The
 * renamed functions call it themselves; weft_ofi_init calls it first to
 * report a failure as such. */
int weft_ofi_load(void);
/* 1 once libfabric is loaded in this process (weft-info, tests). */
int weft_ofi_loaded(void);
#pragma GCC visibility pop

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_core.h: the weft conduit's core header, installed in
 * <GASNet root>/include/weft-conduit/ where clients' configure scripts look
 * for a conduit. weft's whole GASNet-1 interface is gasnet.h. */
#ifndef WEFT_GASNET_CORE_H
#define WEFT_GASNET_CORE_H
#include <gasnet.h>
#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* locality.h: private interface of locality.c (the launcher's placement of
 * a PE) for boot.c and the unit test. Not part of the library's API. */
#ifndef WEFT_BOOT_LOCALITY_H
#define WEFT_BOOT_LOCALITY_H

#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

/* The domain types a locality string places a PE in, in this order. */
enum { WEFT_LOCALITY_NUMA, WEFT_LOCALITY_SOCKET, WEFT_LOCALITY_L3, WEFT_LOCALITY_TYPES };
/* The largest domain index a placement carries (node.c sends it in 16 bits). */
#define WEFT_LOCALITY_MAX_INDEX 32767

/* PMIx's locality string ("SK0:L30:L20:L10:CR0:HT0:NM0": for each hwloc
 * object type, the logical indexes of the objects the binding overlaps) to
 * the NUMA node, socket and L3 cache of the binding: the index, or -1 when
 * the binding spans several sockets or L3 caches (or the node has no L3),
 * as runtime/topology.c's hwloc path decides. Returns 0, or -1 when the
 * string cannot say it the same way: malformed, no socket or NUMA part,
 * or several NUMA nodes (a memory-only NUMA node overlaps its CPUs' one, so
 * only hwloc can tell which is meant). */
int weft_locality_parse(const char *loc, int domain[WEFT_LOCALITY_TYPES]);

/* 1 if the CPU list ("0-3,8", optionally "hwloc:"-prefixed, as PMIx's
 * PMIX_CPUSET gives it) is exactly this process's CPU affinity now. */
int weft_cpulist_is_my_binding(const char *list);

#pragma GCC visibility pop

#endif

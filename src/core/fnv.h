/* SPDX-License-Identifier: BSD-3-Clause */
/* fnv.h owns the one hash weft gives what PEs compare without sending it
 * whole (host identities, CPU bindings, Slurm switch names, the settings
 * the PEs must agree on, a federation's graph): 64-bit FNV-1a. */
#ifndef WEFT_FNV_H
#define WEFT_FNV_H

#include <stddef.h>
#include <stdint.h>

#define WEFT_FNV1A_BASIS 1469598103934665603ull

/* h with one more value folded in (a byte, or a wider value taken whole). */
static inline uint64_t weft_fnv1a_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ull;
}

static inline uint64_t weft_fnv1a_bytes(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < len; i++)
        h = weft_fnv1a_step(h, b[i]);
    return h;
}

static inline uint64_t weft_fnv1a_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = weft_fnv1a_step(h, (unsigned char)*s);
    return h;
}

#endif

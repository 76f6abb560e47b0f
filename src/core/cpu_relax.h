/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu_relax.h owns the hint a polling loop gives the CPU between two polls
 * of memory another PE or thread writes: it frees the core's shared
 * resources for the sibling hardware thread and, on x86, avoids the
 * memory-order flush when the awaited store arrives. It orders nothing:
 * the poll itself must be an acquire load. */
#ifndef WEFT_CPU_RELAX_H
#define WEFT_CPU_RELAX_H

static inline void weft_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#else
    /* Portable fallback: keep the compiler from folding the poll loop. */
    __asm__ volatile("" ::: "memory");
#endif
}

#endif

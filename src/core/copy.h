/* SPDX-License-Identifier: BSD-3-Clause */
/* copy.h owns the copy that writes into another PE's memory on the direct
 * on-node path: every destination byte is stored exactly once.
 *
 * Why not memmove: glibc's memmove stores some bytes twice. A 4- to 7-byte
 * copy is two overlapping 4-byte stores (the same 4 bytes twice for a
 * shmem_int_p), larger copies re-store their first and last vectors after
 * the loop. A target that has already seen such a byte and changed it (a
 * flag reset after it was read) then sees the old value written back when
 * the origin is preempted between the two stores: a flag "arrives" before
 * the data of the next round (tests/api/flag_order, tests/api/put_once).
 * Sizes 1, 2, 4 and 8 are one store each (single-copy atomic when
 * aligned); up to WEFT_COPY_LOOP_MAX bytes a loop of 16-byte stores then
 * one store per remaining power of two, never overlapping; larger copies
 * on x86-64 one `rep movsb`, which stores each byte once and is as fast as
 * memmove from a few KiB up on CPUs with ERMS/FSRM (figures in
 * docs/performance.md). Elsewhere (aarch64) every size takes the loop of
 * 16-byte stores (ldr/str q on aarch64), backwards when the destination
 * starts inside the source. */
#ifndef WEFT_COPY_H
#define WEFT_COPY_H

#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#define WEFT_COPY_LOOP_MAX 512

typedef uint16_t __attribute__((may_alias, aligned(1))) weft_u16_any;
typedef uint32_t __attribute__((may_alias, aligned(1))) weft_u32_any;
typedef uint64_t __attribute__((may_alias, aligned(1))) weft_u64_any;
#if !defined(__x86_64__)
typedef unsigned char __attribute__((vector_size(16), may_alias, aligned(1))) weft_v16_any;
#endif

/* Forward, non-overlapping stores; the empty asm keeps the compiler from
 * turning the loop back into a memcpy call. */
static inline void weft_copy_once_loop(char *d, const char *s, size_t len)
{
#if defined(__x86_64__)
    for (; len >= 16; len -= 16, d += 16, s += 16) {
        _mm_storeu_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
        __asm__("" : "+r"(d), "+r"(s));
    }
#else
    for (; len >= 16; len -= 16, d += 16, s += 16) {
        *(weft_v16_any *)(void *)d = *(const weft_v16_any *)(const void *)s;
        __asm__("" : "+r"(d), "+r"(s));
    }
#endif
    if (len & 8) {
        *(weft_u64_any *)(void *)d = *(const weft_u64_any *)(const void *)s;
        d += 8, s += 8;
    }
    if (len & 4) {
        *(weft_u32_any *)(void *)d = *(const weft_u32_any *)(const void *)s;
        d += 4, s += 4;
    }
    if (len & 2) {
        *(weft_u16_any *)(void *)d = *(const weft_u16_any *)(const void *)s;
        d += 2, s += 2;
    }
    if (len & 1)
        *d = *s;
}

static inline void weft_copy_once_any(char *d, const char *s, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
    int overlap = (uintptr_t)d - (uintptr_t)s < len;
#if defined(__x86_64__)
    if (len < WEFT_COPY_LOOP_MAX && !overlap) {
        weft_copy_once_loop(d, s, len);
        return;
    }
#endif
    if (overlap) {
        /* The destination starts inside the source (a PE's put to itself):
         * copy backwards, still one store per byte. */
        d += len - 1;
        s += len - 1;
        __asm__ volatile("std\n\trep movsb\n\tcld" : "+D"(d), "+S"(s), "+c"(len) : : "memory");
        return;
    }
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(len) : : "memory");
#else
    if ((uintptr_t)d - (uintptr_t)s >= len) {
        weft_copy_once_loop(d, s, len);
        return;
    }
    /* The destination starts inside the source: from the end down, each
     * block read before any store reaches it. */
    d += len;
    s += len;
    for (; len >= 16; len -= 16) {
        d -= 16, s -= 16;
        *(weft_v16_any *)(void *)d = *(const weft_v16_any *)(const void *)s;
        __asm__("" : "+r"(d), "+r"(s));
    }
    while (len--) {
        *--d = *--s;
        __asm__("" : "+r"(d), "+r"(s));
    }
#endif
}

static inline void weft_copy_once(void *dst, const void *src, size_t len)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    switch (len) {
    case 0: return;
    case 1: *d = *s; return;
    case 2: *(weft_u16_any *)(void *)d = *(const weft_u16_any *)(const void *)s; return;
    case 4: *(weft_u32_any *)(void *)d = *(const weft_u32_any *)(const void *)s; return;
    case 8: *(weft_u64_any *)(void *)d = *(const weft_u64_any *)(const void *)s; return;
    default: weft_copy_once_any(d, s, len);
    }
}

/* A value of a shmem_TYPE_p or _g (len 1 to 8 bytes, a constant in every
 * caller): one store or load, always inlined even unoptimized, so that it
 * never becomes a library call that could store a byte twice, and the
 * access is an instruction of the calling routine (a fault there is named
 * after it, see onnode.c). */
static inline __attribute__((always_inline)) void weft_copy_scalar(void *dst, const void *src,
                                                                   size_t len)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    switch (len) {
    case 1: *d = *s; return;
    case 2: *(weft_u16_any *)(void *)d = *(const weft_u16_any *)(const void *)s; return;
    case 4: *(weft_u32_any *)(void *)d = *(const weft_u32_any *)(const void *)s; return;
    case 8: *(weft_u64_any *)(void *)d = *(const weft_u64_any *)(const void *)s; return;
    default: weft_copy_once(d, s, len);
    }
}

#endif

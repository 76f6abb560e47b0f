/* SPDX-License-Identifier: BSD-3-Clause */
/* scale.c owns the accounting of weft's structures that grow with the job
 * (scale.h, scale.def) and the peer tables of zero pages that hold only a
 * node's entries. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/scale.h"

const struct weft_scale_desc weft_scale_rows[WEFT_SCALE_COUNT] = {
#define WEFT_SCALE(id, name, owner, per_pe, per_host_pe, tables, when, what) \
    {name, owner, what, per_pe, per_host_pe, tables, when},
#include "core/scale.def"
#undef WEFT_SCALE
};

static size_t held[WEFT_SCALE_COUNT];
static unsigned when_bits;

void weft_scale_note(enum weft_scale_id id, size_t bytes)
{
    __atomic_store_n(&held[id], bytes, __ATOMIC_RELAXED);
}

void weft_scale_add(enum weft_scale_id id, long delta)
{
    __atomic_add_fetch(&held[id], (size_t)delta, __ATOMIC_RELAXED);
}

size_t weft_scale_bytes(enum weft_scale_id id)
{
    return __atomic_load_n(&held[id], __ATOMIC_RELAXED);
}

void weft_scale_set_when(unsigned bits, int on)
{
    if (on)
        __atomic_or_fetch(&when_bits, bits, __ATOMIC_RELAXED);
    else
        __atomic_and_fetch(&when_bits, ~bits, __ATOMIC_RELAXED);
}

unsigned weft_scale_when(void) { return __atomic_load_n(&when_bits, __ATOMIC_RELAXED); }

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static size_t table_bytes(size_t n, size_t elem)
{
    size_t pg = page_size(), b = (n ? n : 1) * elem;
    return (b + pg - 1) / pg * pg;
}

/* Anonymous private memory: every page reads as zeros without being
 * allocated (loads of an untouched page map the kernel's shared zero
 * page), so entries never written cost nothing. */
void *weft_scale_table_alloc(size_t n, size_t elem)
{
    void *p = mmap(NULL, table_bytes(n, elem), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void weft_scale_table_free(void *table, size_t n, size_t elem)
{
    if (table)
        munmap(table, table_bytes(n, elem));
}

size_t weft_scale_table_resident(const void *table, size_t n, size_t elem)
{
    if (!table)
        return 0;
    size_t pg = page_size(), bytes = n * elem, resident = 0;
    const unsigned char *t = table;
    for (size_t at = 0; at < bytes; at += pg) {
        size_t end = at + pg < bytes ? at + pg : bytes, i = at;
        while (i < end && !t[i])
            i++;
        resident += i < end ? pg : 0;
    }
    return resident;
}

/* One page holding the pattern, in a memfd mapped at every page of the
 * range (one mapping per page: about 390 for a table of 100,000 PEs). */
void *weft_scale_table_repeat(size_t bytes, const void *pattern, size_t plen)
{
    size_t pg = page_size(), total = table_bytes(bytes, 1);
    if (!plen || pg % plen)
        return NULL;
    int fd = memfd_create("weft-table", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *range = MAP_FAILED, *page = MAP_FAILED;
    if (ftruncate(fd, (off_t)pg) == 0)
        page = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (page != MAP_FAILED) {
        for (size_t at = 0; at < pg; at += plen)
            memcpy(page + at, pattern, plen);
        munmap(page, pg);
        range = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    for (size_t at = 0; range != MAP_FAILED && at < total; at += pg)
        if (mmap(range + at, pg, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
            munmap(range, total);
            range = MAP_FAILED;
        }
    close(fd);
    return range == MAP_FAILED ? NULL : range;
}

void weft_scale_table_repeat_free(void *table, size_t bytes)
{
    if (table)
        munmap(table, table_bytes(bytes, 1));
}

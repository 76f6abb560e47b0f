/* SPDX-License-Identifier: BSD-3-Clause */
/* segments.c owns finding the executable's static data (.data + .bss), the
 * second symmetric segment: remote access to static variables works because
 * every PE runs the same executable, so offsets within it agree. */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <unistd.h>

#include "core/runtime.h"

struct data_seg_search {
    uintptr_t lo, hi;
    uintptr_t relro_hi; /* end of the part made read-only after relocation */
    uintptr_t lowest;   /* the program's lowest loaded address */
    int found;
};

static int find_writable_load(struct dl_phdr_info *info, size_t sz, void *arg)
{
    (void)sz;
    struct data_seg_search *s = arg;
    /* The first object reported is the main program. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD &&
            (!s->lowest || info->dlpi_addr + ph->p_vaddr < s->lowest))
            s->lowest = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_GNU_RELRO)
            s->relro_hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        uintptr_t hi = lo + ph->p_memsz;
        if (!s->found || lo < s->lo)
            s->lo = lo;
        if (!s->found || hi > s->hi)
            s->hi = hi;
        s->found = 1;
    }
    return 1; /* stop after the main program */
}

int weft_data_segment(char **base, size_t *size)
{
    struct data_seg_search s = {0, 0, 0, 0, 0};
    dl_iterate_phdr(find_writable_load, &s);
    if (!s.found)
        return -1;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    /* The GOT and other RELRO data share the writable PT_LOAD but are
     * read-only at run time: not symmetric variables, and remapping them
     * writable (onnode.c) would undo the protection. */
    if (s.relro_hi > s.lo && s.relro_hi < s.hi)
        s.lo = (s.relro_hi + page - 1) & ~(page - 1);
    uintptr_t lo = s.lo & ~(page - 1);
    uintptr_t hi = (s.hi + page - 1) & ~(page - 1);
    *base = (char *)lo;
    *size = hi - lo;
    return 0;
}

uintptr_t weft_program_lowest(void)
{
    struct data_seg_search s = {0, 0, 0, 0, 0};
    dl_iterate_phdr(find_writable_load, &s);
    return s.lowest & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
}

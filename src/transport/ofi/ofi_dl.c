/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_dl.c owns loading libfabric at run time: the first call that needs
 * it opens libfabric.so.1 and looks up the seven functions weft calls
 * (ofi_dl.h says why it is not a link-time dependency). Each is looked up
 * at the symbol version that linking with the library weft was built
 * against would bind (read by the build, src/CMakeLists.txt), so a later
 * libfabric, of another major version too, hands over the functions of
 * the structures weft was compiled with; the library must also be at
 * least the headers' version (fi_getinfo refuses a newer API version).
 * Where the build read no symbol versions, the default symbols are taken
 * and only the headers' major version is loaded. It also keeps libfabric's
 * start from reading the kernel's symbol table (hide_kernel_symbols) and,
 * where no PSM device can be used, from starting the PSM libraries it is
 * linked with (load_stand_ins). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "transport/ofi/ofi_dl.h"

#include <rdma/fi_errno.h>

#include "core/runtime.h"

static void *lib;
static int tried;
static int (*p_getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                        struct fi_info **);
static void (*p_freeinfo)(struct fi_info *);
static struct fi_info *(*p_dupinfo)(const struct fi_info *);
static int (*p_fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
static const char *(*p_strerror)(int);
static char *(*p_tostr)(const void *, enum fi_type);
static uint32_t (*p_version)(void);

int weft_ofi_loaded(void)
{
    return lib != NULL;
}

/* ---- Stand-ins for the PSM libraries -------------------------------------
 * A libfabric linked with libpsm_infinipath.so.1 and libpsm2.so.2 (Debian's)
 * makes every process that loads it run their constructors, which measure
 * the CPU clock for 0.1 s each in 125 us sleeps: 0.2 s of every PE's start
 * and about 1,500 context switches, before libfabric's first line. Where
 * neither psm nor psm2 can be the provider, libweft first loads stand-ins
 * built with the same sonames (cmake/FabricStandIns.cmake: every function
 * libfabric imports, failing), and the dynamic linker hands them to
 * libfabric in place of the real ones: those providers find no device, as
 * they would have. They can be the provider when WEFT_FABRIC_PSM=load,
 * when FI_PROVIDER names one of them (or is an exclusion list, ^...), or
 * when an Omni-Path (hfi1) or QLogic (qib) adapter is present and
 * FI_PROVIDER is unset. */
#ifndef WEFT_FABRIC_STAND_INS
#define WEFT_FABRIC_STAND_INS ""
#endif
static void *stand_in[4];
static int n_stand_in;

static int psm_adapter_present(void)
{
    DIR *d = opendir("/sys/class/infiniband");
    if (!d)
        return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = !strncmp(e->d_name, "hfi1", 4) || !strncmp(e->d_name, "qib", 3);
    closedir(d);
    return found;
}

static int psm_may_be_provider(void)
{
    static const char *const modes[] = {"auto", "load", "skip"};
    int want = weft_tun_choice(WEFT_TUN_FABRIC_PSM, modes, 3);
    if (want)
        return want == 1;
    const char *prov = getenv("FI_PROVIDER");
    if (prov && *prov && *prov != '^')
        return strstr(prov, "psm") != NULL;
    return psm_adapter_present();
}

/* The directory libweft was loaded from, with a slash: "" if unknown. */
static void libweft_dir(char *dir, size_t cap)
{
    Dl_info info;
    dir[0] = '\0';
    if (!dladdr((void *)libweft_dir, &info) || !info.dli_fname)
        return;
    const char *slash = strrchr(info.dli_fname, '/');
    if (slash && (size_t)(slash - info.dli_fname) + 1 < cap)
        snprintf(dir, cap, "%.*s/", (int)(slash - info.dli_fname), info.dli_fname);
}

static void unload_stand_ins(void)
{
    /* Only loaded handles are kept; the test is for compilers that see the
     * list empty where no stand-ins are built (cross builds). */
    while (n_stand_in > 0) {
        void *h = stand_in[--n_stand_in];
        if (h)
            dlclose(h);
    }
}

static void load_stand_ins(void)
{
    if (psm_may_be_provider() || !*WEFT_FABRIC_STAND_INS)
        return;
    char dir[4096];
    libweft_dir(dir, sizeof dir);
    if (!*dir)
        return;
    const char *names = WEFT_FABRIC_STAND_INS;
    while (*names && n_stand_in < (int)(sizeof stand_in / sizeof *stand_in)) {
        size_t len = strcspn(names, ":");
        char path[4096 + 256];
        snprintf(path, sizeof path, "%sweft-fabric/%.*s", dir, (int)len, names);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            weft_debug("ofi: no stand-in %s (%s): the real library starts", path, dlerror());
            unload_stand_ins();
            return;
        }
        stand_in[n_stand_in++] = h;
        names += len + (names[len] == ':');
    }
    weft_debug("ofi: libfabric loads weft's stand-ins for %s (WEFT_FABRIC_PSM=load: the real "
               "ones)", WEFT_FABRIC_STAND_INS);
}

int weft_ofi_load(void)
{
    if (lib || tried)
        return lib ? 0 : -1;
    tried = 1;
    char err[512] = "";
    load_stand_ins();
    for (int attempt = 0; !lib && attempt < 2; attempt++) {
        if (attempt == 1) {
            /* A libfabric importing more than the stand-ins offer (another
             * build than the one weft was built against): the real ones. */
            if (!n_stand_in)
                break;
            weft_debug("ofi: libfabric refused weft's stand-ins (%s): loading the real PSM "
                       "libraries", err);
            unload_stand_ins();
            err[0] = '\0';
        }
#ifdef WEFT_FABRIC_LIBDIR
        lib = dlopen(WEFT_FABRIC_LIBDIR "/libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            snprintf(err, sizeof err, "%s; ", dlerror());
#endif
        if (!lib) {
            lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
            if (!lib) {
                size_t used = strlen(err);
                snprintf(err + used, sizeof err - used, "%s", dlerror());
            }
        }
    }
    if (!lib) {
        weft_warn("shmem_init", "cannot load libfabric, needed for PEs on other nodes or with "
                  "WEFT_ONNODE=0: %s", err);
        return -1;
    }
    uint32_t (*version)(void);
    *(void **)&version = dlsym(lib, "fi_version");
    uint32_t loaded = version ? version() : 0;
    int ok = 1;
#ifdef WEFT_FI_SYMVERS
    /* Asked for a version the library lacks, dlvsym finds nothing: the
     * library is older than the headers. */
#define WEFT_FI_SYM(p, name)                                                                       \
    do {                                                                                           \
        *(void **)&p = dlvsym(lib, #name, WEFT_SYMVER_##name);                                     \
        if (!p) {                                                                                  \
            weft_warn("shmem_init", "libfabric.so.1 (version %u.%u) lacks %s@%s, which weft "     \
                      "built against libfabric %d.%d calls",                                       \
                      FI_MAJOR(loaded), FI_MINOR(loaded), #name, WEFT_SYMVER_##name,               \
                      FI_MAJOR_VERSION, FI_MINOR_VERSION);                                         \
            ok = 0;                                                                                \
        }                                                                                          \
    } while (0)
    int same_abi = 1;
#else
#define WEFT_FI_SYM(p, name)                                                                       \
    do {                                                                                           \
        *(void **)&p = dlsym(lib, #name);                                                          \
        if (!p) {                                                                                  \
            weft_warn("shmem_init", "libfabric.so.1 lacks %s", #name);                             \
            ok = 0;                                                                                \
        }                                                                                          \
    } while (0)
    /* Another major version's default symbols expect its structures. */
    int same_abi = FI_MAJOR(loaded) == FI_MAJOR_VERSION;
#endif
    WEFT_FI_SYM(p_getinfo, fi_getinfo);
    WEFT_FI_SYM(p_freeinfo, fi_freeinfo);
    WEFT_FI_SYM(p_dupinfo, fi_dupinfo);
    WEFT_FI_SYM(p_fabric, fi_fabric);
    WEFT_FI_SYM(p_strerror, fi_strerror);
    WEFT_FI_SYM(p_tostr, fi_tostr);
    WEFT_FI_SYM(p_version, fi_version);
#undef WEFT_FI_SYM
    if (ok && (!same_abi || !FI_VERSION_GE(loaded, WEFT_FI_API_VERSION))) {
        weft_warn("shmem_init",
                  "libfabric.so.1 is version %u.%u, but weft was built against libfabric %d.%d's "
                  "headers and needs %s: rebuild weft against this libfabric, or load the one "
                  "it was built with (LD_LIBRARY_PATH)",
                  FI_MAJOR(loaded), FI_MINOR(loaded), FI_MAJOR_VERSION, FI_MINOR_VERSION,
                  same_abi ? "that version or a later one" : "that major version");
        ok = 0;
    }
    if (!ok) {
        dlclose(lib);
        lib = NULL;
        unload_stand_ins();
        return -1;
    }
    weft_debug("ofi: loaded libfabric %u.%u (API %d.%d)", FI_MAJOR(loaded), FI_MINOR(loaded),
               FI_MAJOR_VERSION, FI_MINOR_VERSION);
    return 0;
}

/* ---- libfabric's start without /proc/kallsyms ---------------------------
 * The first fi_getinfo initializes every provider built into libfabric,
 * whichever FI_PROVIDER names. 1.17's verbs provider then reads
 * /proc/kallsyms twice, 1 KiB at a time, to learn whether the kernel can
 * register dma-buf memory: 0.3-0.9 s of a PE's start on a host without
 * InfiniBand (the rest of that fi_getinfo: about 2 ms), and all PEs of a
 * host read it at once. weft registers host memory only, which never needs
 * dma-buf, so while that first call runs, libfabric's own fopen and fopen64
 * (its relocation slots, nothing of the program's) answer that the file
 * does not exist; WEFT_FABRIC_KERNEL_SYMBOLS=1 lets it read the file. */
#if __ELF_NATIVE_CLASS == 64
#define REL_SYM ELF64_R_SYM
#else
#define REL_SYM ELF32_R_SYM
#endif
struct hidden_slot {
    void **slot;
    void *was;
};
static struct hidden_slot hidden[4];
static int n_hidden;
static FILE *(*libc_fopen)(const char *, const char *);
static FILE *(*libc_fopen64)(const char *, const char *);

static int is_kernel_symbols(const char *path)
{
    return path && !strcmp(path, "/proc/kallsyms");
}
static FILE *fopen_hiding(const char *path, const char *mode)
{
    if (is_kernel_symbols(path)) {
        errno = ENOENT;
        return NULL;
    }
    return libc_fopen(path, mode);
}
static FILE *fopen64_hiding(const char *path, const char *mode)
{
    if (is_kernel_symbols(path)) {
        errno = ENOENT;
        return NULL;
    }
    return libc_fopen64(path, mode);
}

/* The pages of libfabric that the dynamic linker made read-only after
 * relocating them (PT_GNU_RELRO, whole pages): [relro_lo, relro_hi). */
static uintptr_t relro_lo, relro_hi;

static int find_relro(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const struct link_map *lm = arg;
    if (info->dlpi_addr != lm->l_addr)
        return 0;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            uintptr_t start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            relro_lo = start & ~(pg - 1);
            relro_hi = (start + info->dlpi_phdr[i].p_memsz) & ~(pg - 1);
        }
    return 1;
}

/* Store value in a relocation slot of libfabric's: inside its RELRO pages
 * (full RELRO) the page is made writable for the store and read-only
 * again; elsewhere it is writable as it is. 0, or -1. */
static int store_slot(void **slot, void *value)
{
    uintptr_t at = (uintptr_t)slot;
    if (at + sizeof *slot <= relro_lo || at >= relro_hi) {
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        return 0;
    }
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), page = at & ~(pg - 1);
    size_t len = at + sizeof *slot - page > pg ? 2 * pg : pg;
    if (mprotect((void *)page, len, PROT_READ | PROT_WRITE) != 0)
        return -1;
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    (void)mprotect((void *)page, len, PROT_READ);
    return 0;
}

/* An address from libfabric's dynamic section: the dynamic linker has
 * relocated some (glibc on x86_64), not all. */
static uintptr_t dyn_addr(const struct link_map *lm, ElfW(Addr) v)
{
    return v < lm->l_addr ? lm->l_addr + v : v;
}

static void redirect_relocs(const struct link_map *lm, const ElfW(Rela) *rel, size_t bytes,
                            const ElfW(Sym) *symtab, const char *strtab)
{
    for (size_t i = 0; rel && i < bytes / sizeof *rel && n_hidden < 4; i++) {
        const char *name = strtab + symtab[REL_SYM(rel[i].r_info)].st_name;
        void *to = !strcmp(name, "fopen")     ? (void *)fopen_hiding
                   : !strcmp(name, "fopen64") ? (void *)fopen64_hiding
                                              : NULL;
        void **slot = (void **)(lm->l_addr + rel[i].r_offset);
        if (!to || !REL_SYM(rel[i].r_info))
            continue;
        void *was = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (store_slot(slot, to) == 0)
            hidden[n_hidden++] = (struct hidden_slot){slot, was};
    }
}

static void hide_kernel_symbols(void)
{
    struct link_map *lm = NULL;
    if (weft_tun_bool(WEFT_TUN_FABRIC_KERNEL_SYMBOLS) || dlinfo(lib, RTLD_DI_LINKMAP, &lm) != 0 ||
        !lm || !lm->l_ld)
        return;
    *(void **)&libc_fopen = dlsym(RTLD_DEFAULT, "fopen");
    *(void **)&libc_fopen64 = dlsym(RTLD_DEFAULT, "fopen64");
    if (!libc_fopen || !libc_fopen64)
        return;
    relro_lo = relro_hi = 0;
    dl_iterate_phdr(find_relro, lm);
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t jmprel_bytes = 0, rela_bytes = 0;
    int rela_plt = 1;
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = (const void *)dyn_addr(lm, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const void *)dyn_addr(lm, d->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = (const void *)dyn_addr(lm, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: jmprel_bytes = d->d_un.d_val; break;
        case DT_RELA: rela = (const void *)dyn_addr(lm, d->d_un.d_ptr); break;
        case DT_RELASZ: rela_bytes = d->d_un.d_val; break;
        case DT_PLTREL: rela_plt = d->d_un.d_val == DT_RELA; break;
        default: break;
        }
    }
    if (!symtab || !strtab || !rela_plt)
        return;
    redirect_relocs(lm, jmprel, jmprel_bytes, symtab, strtab);
    redirect_relocs(lm, rela, rela_bytes, symtab, strtab);
    if (n_hidden)
        weft_debug("ofi: libfabric's start reads no /proc/kallsyms (%d slot%s)", n_hidden,
                   n_hidden == 1 ? "" : "s");
}

static void unhide_kernel_symbols(void)
{
    for (int i = 0; i < n_hidden; i++)
        (void)store_slot(hidden[i].slot, hidden[i].was);
    n_hidden = 0;
}

int weft_fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                    const struct fi_info *hints, struct fi_info **info)
{
    static int started; /* libfabric initialized its providers */
    if (weft_ofi_load() != 0)
        return -FI_ENOSYS;
    if (started)
        return p_getinfo(version, node, service, flags, hints, info);
    hide_kernel_symbols();
    int rc = p_getinfo(version, node, service, flags, hints, info);
    unhide_kernel_symbols();
    started = 1;
    return rc;
}

void weft_fi_freeinfo(struct fi_info *info)
{
    if (info && weft_ofi_load() == 0)
        p_freeinfo(info);
}

struct fi_info *weft_fi_dupinfo(const struct fi_info *info)
{
    return weft_ofi_load() == 0 ? p_dupinfo(info) : NULL;
}

int weft_fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (weft_ofi_load() != 0)
        return -FI_ENOSYS;
    return p_fabric(attr, fabric, context);
}

const char *weft_fi_strerror(int errnum)
{
    return weft_ofi_load() == 0 ? p_strerror(errnum) : "libfabric not loaded";
}

char *weft_fi_tostr(const void *data, enum fi_type datatype)
{
    static char none[] = "(libfabric not loaded)";
    return weft_ofi_load() == 0 ? p_tostr(data, datatype) : none;
}

uint32_t weft_fi_version(void)
{
    return weft_ofi_load() == 0 ? p_version() : 0;
}

uint32_t weft_ofi_api_version(void)
{
    return WEFT_FI_API_VERSION;
}

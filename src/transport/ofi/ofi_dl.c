/* SPDX-License-Identifier: BSD-3-Clause */
/* ofi_dl.c owns loading libfabric at run time: the first call that needs
 * it opens libfabric.so.1 and looks up the seven functions weft calls
 * (ofi_dl.h says why it is not a link-time dependency). The lookups take
 * each symbol's default version, the one a link against the same library
 * would bind; so the library must have the major version of the headers
 * weft was built against (whose structures it uses) and at least their
 * minor version (fi_getinfo refuses a newer API version), or it is
 * refused. */
#include <dlfcn.h>
#include <stdio.h>

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

int weft_ofi_load(void)
{
    if (lib || tried)
        return lib ? 0 : -1;
    tried = 1;
    char err[512] = "";
#ifdef WEFT_FABRIC_LIBDIR
    lib = dlopen(WEFT_FABRIC_LIBDIR "/libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        snprintf(err, sizeof err, "%s; ", dlerror());
#endif
    if (!lib)
        lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        weft_warn("shmem_init", "cannot load libfabric, needed for PEs on other nodes or with "
                  "WEFT_ONNODE=0: %s%s", err, dlerror());
        return -1;
    }
    int ok = 1;
#define WEFT_FI_SYM(p, name)                                                                       \
    do {                                                                                           \
        *(void **)&p = dlsym(lib, name);                                                           \
        if (!p) {                                                                                  \
            weft_warn("shmem_init", "libfabric.so.1 lacks %s", name);                              \
            ok = 0;                                                                                \
        }                                                                                          \
    } while (0)
    WEFT_FI_SYM(p_getinfo, "fi_getinfo");
    WEFT_FI_SYM(p_freeinfo, "fi_freeinfo");
    WEFT_FI_SYM(p_dupinfo, "fi_dupinfo");
    WEFT_FI_SYM(p_fabric, "fi_fabric");
    WEFT_FI_SYM(p_strerror, "fi_strerror");
    WEFT_FI_SYM(p_tostr, "fi_tostr");
    WEFT_FI_SYM(p_version, "fi_version");
#undef WEFT_FI_SYM
    if (!ok) {
        dlclose(lib);
        lib = NULL;
        return -1;
    }
    uint32_t loaded = p_version();
    if (FI_MAJOR(loaded) != FI_MAJOR_VERSION || FI_MINOR(loaded) < FI_MINOR_VERSION) {
        weft_warn("shmem_init",
                  "libfabric.so.1 is version %u.%u, but weft was built against libfabric %d.%d's "
                  "headers and needs %d.%d or a later %d.x: rebuild weft against this "
                  "libfabric, or load the one it was built with (LD_LIBRARY_PATH)",
                  FI_MAJOR(loaded), FI_MINOR(loaded), FI_MAJOR_VERSION, FI_MINOR_VERSION,
                  FI_MAJOR_VERSION, FI_MINOR_VERSION, FI_MAJOR_VERSION);
        dlclose(lib);
        lib = NULL;
        return -1;
    }
    weft_debug("ofi: loaded libfabric %u.%u (API %d.%d)", FI_MAJOR(loaded), FI_MINOR(loaded),
               FI_MAJOR_VERSION, FI_MINOR_VERSION);
    return 0;
}

int weft_fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                    const struct fi_info *hints, struct fi_info **info)
{
    if (weft_ofi_load() != 0)
        return -FI_ENOSYS;
    return p_getinfo(version, node, service, flags, hints, info);
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

/* SPDX-License-Identifier: BSD-3-Clause */
/* info.c owns the info interface (include/weft/info.h): the few questions
 * weft's own tools ask the library, answered from the tunables, the
 * bootstrap and the transports, whose own functions stay hidden. */
#include <weft/info.h>

#include "bootstrap/bootstrap.h"
#include "core/runtime.h"
#include "core/scale.h"
#include "transport/transport.h"

/* The only functions of libweft exported besides the OpenSHMEM and GASNet
 * interfaces (WEFT_EXPORT: the library is built -fvisibility=hidden). */
WEFT_EXPORT size_t weftx_info_tunable_count(void)
{
    return WEFT_TUN_COUNT;
}

WEFT_EXPORT int weftx_info_tunable(size_t i, struct weftx_info_tunable *t)
{
    if (i >= WEFT_TUN_COUNT)
        return -1;
    enum weft_tunable_id id = weft_tunable_listing[i].id;
    const struct weft_tunable_desc *d = &weft_tunables[id];
    t->name = d->name;
    t->kind = d->kind;
    t->def = d->def;
    t->doc = d->doc;
    t->value = weft_tun_str(id);
    t->set = weft_tun_is_set(id);
    t->category = weft_tunable_category_title[weft_tunable_listing[i].category];
    return 0;
}

WEFT_EXPORT const char *weftx_info_tunable_alias(size_t i, const char **stands_for)
{
    enum weft_tunable_id id;
    const char *old = weft_tun_alias(i, &id);
    if (old && stands_for)
        *stands_for = weft_tunables[id].name;
    return old;
}

WEFT_EXPORT const char *weftx_info_launcher(void)
{
    return weft_boot_name();
}

WEFT_EXPORT const char *weftx_info_launcher_reason(void)
{
    return weft_boot_reason();
}

WEFT_EXPORT const char *weftx_info_provider(void)
{
    return weft_transport_provider_name();
}

WEFT_EXPORT unsigned weftx_info_fabric_api_version(void)
{
    return weft_transport_fabric_api_version();
}

WEFT_EXPORT void weftx_info_describe_transport(FILE *out)
{
    weft_transport_describe(out);
}

_Static_assert(WEFTX_INFO_SCALE_FABRIC == WEFT_SCALE_WHEN_FABRIC &&
                   WEFTX_INFO_SCALE_PEER_KEYS == WEFT_SCALE_WHEN_PEER_KEYS &&
                   WEFTX_INFO_SCALE_COALESCE == WEFT_SCALE_WHEN_COALESCE &&
                   WEFTX_INFO_SCALE_CMA == WEFT_SCALE_WHEN_CMA &&
                   WEFTX_INFO_SCALE_GASNET == WEFT_SCALE_WHEN_GASNET &&
                   WEFTX_INFO_SCALE_PLACES == WEFT_SCALE_WHEN_PLACES &&
                   WEFTX_INFO_SCALE_SWITCHES == WEFT_SCALE_WHEN_SWITCHES &&
                   WEFTX_INFO_SCALE_TOPO_IDS == WEFT_SCALE_WHEN_TOPO_IDS,
               "weft/info.h's scale conditions are core/scale.h's");

WEFT_EXPORT size_t weftx_info_scale_count(void) { return WEFT_SCALE_COUNT; }

WEFT_EXPORT int weftx_info_scale_row(size_t i, struct weftx_info_scale_row *r)
{
    if (i >= WEFT_SCALE_COUNT)
        return -1;
    const struct weft_scale_desc *d = &weft_scale_rows[i];
    *r = (struct weftx_info_scale_row){d->name, d->owner, d->what, d->per_pe, d->per_host_pe,
                                       d->tables, d->when, weft_scale_bytes((enum weft_scale_id)i)};
    return 0;
}

WEFT_EXPORT unsigned weftx_info_scale_when(void) { return weft_scale_when(); }

WEFT_EXPORT void weftx_info_probe_provider(FILE *out)
{
    weft_transport_probe(out);
}

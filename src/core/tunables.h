/* SPDX-License-Identifier: BSD-3-Clause */
/* tunables.h owns the environment variables weft reads (tunables.c): each
 * is declared once in tunables.def and read only through these helpers, so weft-info and the docs list
 * exactly what the code uses. */
#ifndef WEFT_TUNABLES_H
#define WEFT_TUNABLES_H

#include <stddef.h>


#pragma GCC visibility push(hidden) /* internal: direct access, no GOT */

enum weft_tunable_id {
#define WEFT_TUNABLE(id, name, kind, def, doc) WEFT_TUN_##id,
#include "core/tunables.def"
#undef WEFT_TUNABLE
    WEFT_TUN_COUNT
};
struct weft_tunable_desc {
    const char *name, *kind, *def, *doc;
};
extern const struct weft_tunable_desc weft_tunables[WEFT_TUN_COUNT];
/* The groups tunables are listed in (WEFT_TUNABLE_CATEGORY rows), and every
 * tunable once, category by category, in listing order (WEFT_TUNABLE_IN). */
enum weft_tunable_category {
#define WEFT_TUNABLE_CATEGORY(category, title) WEFT_TUNCAT_##category,
#include "core/tunables.def"
#undef WEFT_TUNABLE_CATEGORY
    WEFT_TUNCAT_COUNT
};
struct weft_tunable_place {
    enum weft_tunable_id id;
    enum weft_tunable_category category;
};
extern const char *const weft_tunable_category_title[WEFT_TUNCAT_COUNT];
extern const struct weft_tunable_place weft_tunable_listing[WEFT_TUN_COUNT];

const char *weft_tun_str(enum weft_tunable_id id);   /* value or default (never NULL) */
long long weft_tun_int(enum weft_tunable_id id);     /* integer, aborts on garbage */
/* Every int tunable that is set, against its range (at init, so a bad
 * value is refused even on a path that would not read it). */
void weft_tun_check_ints(void);
size_t weft_tun_size(enum weft_tunable_id id);       /* with K/M/G suffixes */
int weft_tun_bool(enum weft_tunable_id id);          /* 1/0 yes/no on/off true/false;
                                                        switch kind: any value but 0/no/off */
int weft_tun_is_set(enum weft_tunable_id id);        /* set in the environment */
/* A keyword tunable: the index in names[0..count-1] of its value (exact
 * match); any other value ends the job, naming the variable and the
 * keywords ("WEFT_X=v: expected a, b or c"). */
int weft_tun_choice(enum weft_tunable_id id, const char *const *names, int count);
/* The older names (WEFT_TUNABLE_ALIAS): i-th name and the tunable it stands
 * for; NULL past the last. */
size_t weft_tun_alias_count(void);
const char *weft_tun_alias(size_t i, enum weft_tunable_id *id);
/* Parse "64M" etc.; returns -1 on malformed input. */
int weft_parse_size(const char *s, size_t *out);

#pragma GCC visibility pop

#endif

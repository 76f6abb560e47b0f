/* SPDX-License-Identifier: BSD-3-Clause */
/* agree.c owns checking that the PEs agree on what symmetric addressing
 * assumes: the layout of the symmetric segments at shmem_init (carried by
 * the host-identity exchange, node.c) and every collective heap allocation
 * (carried by the world barrier the allocation makes, sync.c). A
 * disagreement ends the job with one line, from the lowest PE that differs
 * from PE 0, naming the call, the variable, both values and both PEs; the
 * other PEs wait for the launcher to end them, so that no launcher message
 * about their exit comes before that line. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bootstrap/bootstrap.h"
#include "core/fnv.h"
#include "core/runtime.h"
#include "runtime/lifecycle.h"
#include "transport/transport.h"

/* Another PE reports and ends the job: wait for the launcher to take this
 * one down, and leave on our own if nothing happens within a few seconds. */
static WEFT_NORETURN void wait_for_job_end(void)
{
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 5000; i++)
        nanosleep(&ms, NULL);
    weft_boot_abort(1, NULL);
}

/* ---- the layout, at shmem_init ------------------------------------------ */

void weft_layout_agree(const struct weft_layout *all)
{
    static const struct {
        const char *what, *unit, *why;
        size_t off;
    } fields[] = {
        {"SHMEM_SYMMETRIC_SIZE", " bytes", "", offsetof(struct weft_layout, heap_asked)},
        {"the symmetric heap's mapping (SHMEM_SYMMETRIC_SIZE plus weft's own data)", " bytes",
         " (different weft libraries?)", offsetof(struct weft_layout, heap_bytes)},
        {"the program's static data (.data and .bss)", " bytes",
         " (symmetric static variables need the same executable on every PE)",
         offsetof(struct weft_layout, data_bytes)},
        {"WEFT_ONNODE", "", "", offsetof(struct weft_layout, onnode)},
    };
    static const char *const setting_names[] = {
        [WEFT_LAYOUT_TOPOLOGY] = "WEFT_TOPOLOGY",
        [WEFT_LAYOUT_WEFT_PROVIDER] = "WEFT_PROVIDER",
        [WEFT_LAYOUT_FI_PROVIDER] = "FI_PROVIDER",
    };
    _Static_assert(sizeof setting_names / sizeof *setting_names ==
                       sizeof all->setting / sizeof *all->setting,
                   "a name for every string setting");
    int n = weft_rt.n_pes;
    for (size_t s = 0; s < sizeof setting_names / sizeof *setting_names; s++) {
        const struct weft_layout_setting *first = &all[0].setting[s];
        for (int pe = 1; pe < n; pe++) {
            const struct weft_layout_setting *v = &all[pe].setting[s];
            if (v->hash == first->hash)
                continue;
            if (pe != weft_rt.my_pe)
                wait_for_job_end();
            char a[48], b[48];
            snprintf(a, sizeof a, first->hash ? "\"%s\"" : "it unset", first->start);
            snprintf(b, sizeof b, v->hash ? "\"%s\"" : "it unset", v->start);
            weft_fatal("shmem_init", "%s differs between PEs: PE 0 has %s, PE %d has %s",
                       setting_names[s], a, pe, b);
        }
    }
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        uint64_t first;
        memcpy(&first, (const char *)&all[0] + fields[f].off, sizeof first);
        for (int pe = 1; pe < n; pe++) {
            uint64_t v;
            memcpy(&v, (const char *)&all[pe] + fields[f].off, sizeof v);
            if (v == first)
                continue;
            if (pe != weft_rt.my_pe)
                wait_for_job_end(); /* nothing opened yet that leaves a file */
            weft_fatal("shmem_init", "%s differs between PEs: PE 0 has %llu%s, PE %d has %llu%s%s",
                       fields[f].what, (unsigned long long)first, fields[f].unit, pe,
                       (unsigned long long)v, fields[f].unit, fields[f].why);
        }
    }
}

void weft_layout_string(struct weft_layout_setting *setting, const char *value)
{
    if (!value || !*value) { /* unset: hash 0 */
        *setting = (struct weft_layout_setting){0, ""};
        return;
    }
    uint64_t h = weft_fnv1a_str(WEFT_FNV1A_BASIS, value);
    setting->hash = h ? h : 1;
    size_t len = strlen(value), cap = sizeof setting->start;
    if (len < cap) {
        memcpy(setting->start, value, len + 1);
    } else {
        memcpy(setting->start, value, cap - 4);
        memcpy(setting->start + cap - 4, "...", 4);
    }
}

/* ---- collective allocations ----------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* The signature the barrier compares: never 0, a plain barrier's. A few
 * word operations (it is made at every allocation): the call's name by its
 * length and first and last 8 bytes, which tell weft's names apart. */
static uint32_t signature(const struct weft_agree_rec *r, size_t len)
{
    uint64_t head = 0, tail = 0;
    memcpy(&head, r->call, len < 8 ? len : 8);
    if (len > 8)
        memcpy(&tail, r->call + len - 8, 8);
    uint64_t h = mix(mix(mix(len, head), tail), (uint64_t)r->arg[0] << 8 | r->arg[1]);
    h = mix(mix(h, r->val[0]), r->val[1]);
    if (r->has_result)
        h = mix(h, r->result);
    uint32_t s = (uint32_t)(h >> 40);
    return s ? s : 1;
}

static int same_call(const struct weft_agree_rec *a, const struct weft_agree_rec *b)
{
    if (!a->call[0] || !b->call[0])
        return !a->call[0] && !b->call[0];
    return !strcmp(a->call, b->call) && !memcmp(a->arg, b->arg, sizeof a->arg) &&
           !memcmp(a->val, b->val, sizeof a->val);
}

static int same_rec(const struct weft_agree_rec *a, const struct weft_agree_rec *b)
{
    return same_call(a, b) && (!a->call[0] || (a->has_result == b->has_result &&
                                               (!a->has_result || a->result == b->result)));
}

static void describe(char *out, size_t cap, const struct weft_agree_rec *r, int with_result)
{
    static const char *const names[] = {"", "size", "count", "alignment", "ptr", "ptr"};
    if (!r->call[0]) {
        snprintf(out, cap, "shmem_barrier_all (or another call that synchronizes without "
                           "allocating)");
        return;
    }
    size_t len = (size_t)snprintf(out, cap, "%s(", r->call);
    for (int i = 0; i < 2 && r->arg[i] != WEFT_ARG_NONE && len < cap; i++) {
        const char *sep = i ? ", " : "";
        uint64_t v = r->val[i];
        if (r->arg[i] == WEFT_ARG_PTR && v == UINT64_MAX)
            len += (size_t)snprintf(out + len, cap - len, "%sptr=NULL", sep);
        else if (r->arg[i] == WEFT_ARG_PTR)
            len += (size_t)snprintf(out + len, cap - len, "%sptr=heap+0x%llx", sep,
                                    (unsigned long long)v);
        else if (r->arg[i] == WEFT_ARG_PTR_FOREIGN)
            len += (size_t)snprintf(out + len, cap - len, "%sptr=%#llx (not in the heap)", sep,
                                    (unsigned long long)v);
        else
            len += (size_t)snprintf(out + len, cap - len, "%s%s=%llu", sep,
                                    names[r->arg[i] < 6 ? r->arg[i] : 0], (unsigned long long)v);
    }
    if (len < cap)
        len += (size_t)snprintf(out + len, cap - len, ")");
    if (with_result && r->has_result && len < cap) {
        if (r->result == UINT64_MAX)
            snprintf(out + len, cap - len, " returned NULL");
        else
            snprintf(out + len, cap - len, " returned heap+0x%llx",
                     (unsigned long long)r->result);
    }
}

/* A PE that does not report: it answers the reporter's reads (progress)
 * until the reporter says it is done, then closes its endpoint, whose
 * shared-memory region would otherwise outlive a kill by the launcher. */
static WEFT_NORETURN void leave_report_to_another(void)
{
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 5000 && !__atomic_load_n(&weft_rt.sym->agree_reported, __ATOMIC_ACQUIRE);
         i++) {
        weft_transport_progress();
        nanosleep(&ms, NULL);
    }
    weft_transport_abandon();
    wait_for_job_end();
}

/* Every PE learned of the disagreement in the same barrier; the lowest PE
 * whose call differs from PE 0's reads PE 0's and prints both. */
static WEFT_NORETURN void report_disagreement(void)
{
    const struct weft_agree_rec *mine = &weft_rt.sym->agree;
    uint64_t off = (uint64_t)((const char *)mine - weft_rt.seg[WEFT_SEG_HEAP].base);
    struct weft_agree_rec first, other;
    int me = weft_rt.my_pe;
    if (me == 0)
        leave_report_to_another();
    weft_transport_get(&weft_ctx_default, &first, WEFT_SEG_HEAP, off, sizeof first, 0);
    if (same_rec(&first, mine))
        leave_report_to_another();
    for (int pe = 1; pe < me; pe++) {
        weft_transport_get(&weft_ctx_default, &other, WEFT_SEG_HEAP, off, sizeof other, pe);
        if (!same_rec(&first, &other))
            leave_report_to_another();
    }
    uint64_t done = (uint64_t)((char *)&weft_rt.sym->agree_reported -
                               weft_rt.seg[WEFT_SEG_HEAP].base);
    for (int pe = 0; pe < weft_rt.n_pes; pe++)
        if (pe != me)
            weft_transport_notify(&weft_ctx_default, WEFT_SEG_HEAP, done, 1, pe);
    weft_transport_quiet(&weft_ctx_default);
    weft_transport_abandon();
    int results = same_call(&first, mine);
    char a[200], b[200];
    describe(a, sizeof a, &first, results);
    describe(b, sizeof b, mine, results);
    weft_fatal(mine->call[0] ? mine->call : "shmem_barrier_all",
               "the PEs disagree on a symmetric allocation (every PE must make the same ones, "
               "with the same arguments, in the same order): PE 0 called %s, PE %d called %s",
               a, me, b);
}

void weft_barrier_all_internal(void)
{
    weft_rt.sym->agree.call[0] = '\0';
    if (!weft_barrier_all_signed(0))
        report_disagreement();
}

void weft_barrier_all_agreeing(const char *call, unsigned flags, const void *result,
                               enum weft_agree_arg a0, uint64_t v0, enum weft_agree_arg a1,
                               uint64_t v1)
{
    struct weft_agree_rec *r = &weft_rt.sym->agree;
    const struct weft_segment *h = &weft_rt.seg[WEFT_SEG_HEAP];
    size_t len = strlen(call);
    if (len > sizeof r->call - 1)
        len = sizeof r->call - 1;
    memcpy(r->call, call, len);
    r->call[len] = '\0';
    r->has_result = 0;
    r->result = 0;
    enum weft_agree_arg arg[2] = {a0, a1};
    uint64_t val[2] = {v0, v1};
    for (int i = 0; i < 2; i++) {
        if (arg[i] == WEFT_ARG_PTR) {
            uintptr_t p = (uintptr_t)val[i];
            if (!p)
                val[i] = UINT64_MAX;
            else if (p - (uintptr_t)h->base < h->size)
                val[i] = p - (uintptr_t)h->base;
            else
                arg[i] = WEFT_ARG_PTR_FOREIGN;
        }
        r->arg[i] = (uint8_t)arg[i];
        r->val[i] = val[i];
    }
    if (flags & WEFT_AGREE_RESULT) {
        r->has_result = 1;
        r->result = result ? (uint64_t)((const char *)result - h->base) : UINT64_MAX;
    }
    if (!weft_barrier_all_signed(signature(r, len)))
        report_disagreement();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* traffic.h: what the traffic recorder's parts share (docs/traffic.md):
 * the kinds of operation and of waiting it counts, the record of one PE,
 * and the calls the generated wrappers (wrappers.c) make into the recorder
 * (record.c) and the recorder into the report writer (report.c). Nothing
 * here is part of libweft: it is all in libweft-traffic.so, which oshrun
 * --traffic preloads. */
#ifndef WEFT_TRAFFIC_H
#define WEFT_TRAFFIC_H

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Kinds of operation, the columns of every count. X(id, name). */
#define TR_KINDS(X)                                                                      \
    X(PUT, "put")                                                                        \
    X(GET, "get")                                                                        \
    X(AMO, "amo")                                                                        \
    X(SIGNAL, "signal")                                                                  \
    X(COLL, "collective")

/* Kinds of waiting: point-to-point waits, tests and locks; barriers and
 * syncs; quiet and fence; the time spent inside collective calls. */
#define TR_WAITS(X)                                                                      \
    X(WAIT, "wait")                                                                      \
    X(BARRIER, "barrier")                                                                \
    X(QUIET, "quiet")                                                                    \
    X(COLLWAIT, "collective")

#define TR_ENUM(id, name) TR_##id,
enum tr_kind { TR_KINDS(TR_ENUM) TR_NKINDS };
enum tr_wait { TR_WAITS(TR_ENUM) TR_NWAITS };
#undef TR_ENUM

extern const char *const tr_kind_names[TR_NKINDS];
extern const char *const tr_wait_names[TR_NWAITS];

/* What one PE sent to one PE (indexed by the target's world number). */
struct tr_cell {
    uint64_t ops[TR_NKINDS];
    uint64_t bytes[TR_NKINDS];
};

/* One PE's totals: calls by kind, waiting by kind, its time between the
 * first initialization and the last finalize, and its host. */
struct tr_summary {
    uint64_t calls[TR_NKINDS];
    uint64_t wait_ns[TR_NWAITS];
    uint64_t wait_calls[TR_NWAITS];
    uint64_t elapsed_ns;
    char host[64];
};

/* ---- recording (record.c), called by the wrappers ------------------------ */
uint64_t tr_now(void);
/* One operation of `kind` moving `bytes` to world PE `pe`, or to PE `pe`
 * of ctx's team. */
void tr_op(int pe, enum tr_kind kind, uint64_t bytes);
void tr_op_ctx(shmem_ctx_t ctx, int pe, enum tr_kind kind, uint64_t bytes);
/* Waiting that began at `t0` (tr_now()) ends now. */
void tr_wait(enum tr_wait w, uint64_t t0);
/* A collective call over a team or an active set: which members this PE
 * logically sends `bytes` to (see docs/traffic.md). */
enum tr_pattern {
    TR_TO_ALL,    /* every other member (collect, alltoall, reductions) */
    TR_FROM_ROOT, /* the root sends to every other member (broadcast) */
    TR_TO_HIGHER  /* the members after this one (scans) */
};
void tr_coll_team(shmem_team_t team, enum tr_pattern p, int root, uint64_t bytes, uint64_t t0);
void tr_coll_aset(int start, int log_stride, int size, enum tr_pattern p, int root,
                  uint64_t bytes, uint64_t t0);

/* ---- the report (report.c) -------------------------------------------------- */
struct tr_report {
    int npes;
    const struct tr_cell *cells;        /* npes * npes, row = the sending PE */
    const struct tr_summary *summaries; /* npes */
    const char *program;
    const char *created; /* UTC, ISO 8601 */
};
/* Writes <stem>.json and <stem>.html; returns 0, or -1 with `err` set. */
int tr_write_report(const char *stem, const struct tr_report *r, char *err, size_t errlen);

#endif

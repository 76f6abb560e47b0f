/* SPDX-License-Identifier: BSD-3-Clause */
/* append: the one-sided append of shmemx.h (docs/extensions.md).
 * Each phase, every sender pushes RECS records of varying length to its
 * targets with every push form in turn; a target knows how many bytes
 * will come, waits for them with shmemx_oct_wait alone (no barrier) and
 * then parses its buffer: every record of every sender exactly once,
 * intact, records contiguous; shmemx_oct_get equals the bytes expected.
 *   phase all-to-all: every PE pushes to every PE (itself included);
 *   phase to-one:     every PE pushes to PE 0 at once;
 * then shmemx_oct_reset and the next phase on the same buffer, and offset
 * counters made and destroyed in a loop.
 *   append [RECS]   records per sender and target (default 24) */
#include "weft_test.h"

#include <shmemx.h>

/* A record: a header then nwords words of payload; its length in bytes is
 * always a multiple of 8 (typed and sized forms push whole words). */
struct rec_head {
    uint32_t sender, seq, nwords, check;
};
#define MAXWORDS 30
static int recs;

static uint32_t rec_words(int sender, int seq) { return (uint32_t)((sender * 7 + seq * 5) % MAXWORDS); }
static uint64_t rec_word(int sender, int seq, uint32_t i, int phase)
{
    return ((uint64_t)sender << 40) ^ ((uint64_t)seq << 20) ^ (uint64_t)i * 0x9E3779B1u ^
           (uint64_t)phase;
}
static size_t rec_bytes(int sender, int seq)
{
    return sizeof(struct rec_head) + 8 * rec_words(sender, seq);
}

static shmem_ctx_t ctx;

static void push_rec(shmemx_oct_t oct, int target, int seq, int phase)
{
    uint64_t buf[2 + MAXWORDS];
    struct rec_head h = {(uint32_t)wt_me, (uint32_t)seq, rec_words(wt_me, seq), 0xC0FFEEu};
    memcpy(buf, &h, sizeof h);
    for (uint32_t i = 0; i < h.nwords; i++)
        buf[2 + i] = rec_word(wt_me, seq, i, phase);
    size_t len = rec_bytes(wt_me, seq);
    switch (seq % 8) {
    case 0: shmemx_push(oct, buf, len, target); break;
    case 1: shmemx_push_nbi(oct, buf, len, target); break;
    case 2: shmemx_ctx_push(ctx, oct, buf, len, target); break;
    case 3: shmemx_ctx_push_nbi(ctx, oct, buf, len, target); break;
    case 4: shmemx_uint64_push(oct, buf, len / 8, target); break;
    case 5: shmemx_ctx_long_push_nbi(ctx, oct, (const long *)buf, len / 8, target); break;
    case 6: shmemx_push64_nbi(oct, buf, len / 8, target); break;
    default: shmemx_ctx_push32(ctx, oct, buf, len / 4, target); break;
    }
}

/* Parse the first `bytes` bytes of buf: the records of the senders in
 * [s_lo, s_hi), recs each, every one exactly once and intact. */
static void check_buffer(const unsigned char *buf, size_t bytes, int s_lo, int s_hi, int phase)
{
    size_t nsend = (size_t)(s_hi - s_lo);
    unsigned char *seen = calloc(nsend * (size_t)recs, 1);
    size_t at = 0, n = 0;
    while (at < bytes) {
        struct rec_head h;
        WT_CHECK(bytes - at >= sizeof h, "phase %d: a header cut at offset %zu of %zu", phase, at,
                 bytes);
        memcpy(&h, buf + at, sizeof h);
        WT_CHECK(h.check == 0xC0FFEEu && (int)h.sender >= s_lo && (int)h.sender < s_hi &&
                     (int)h.seq < recs && h.nwords == rec_words((int)h.sender, (int)h.seq),
                 "phase %d: no record header at offset %zu (sender %u seq %u words %u check %x): "
                 "bytes counted as arrived are not there",
                 phase, at, h.sender, h.seq, h.nwords, h.check);
        unsigned char *mark = &seen[(size_t)(h.sender - (uint32_t)s_lo) * (size_t)recs + h.seq];
        WT_CHECK(!*mark, "phase %d: record %u of PE %u twice", phase, h.seq, h.sender);
        *mark = 1;
        for (uint32_t i = 0; i < h.nwords; i++) {
            uint64_t w;
            memcpy(&w, buf + at + sizeof h + 8 * i, 8);
            WT_EQ_NUM(w, rec_word((int)h.sender, (int)h.seq, i, phase),
                      "phase %d: word %u of record %u of PE %u at offset %zu", phase, i, h.seq,
                      h.sender, at);
        }
        at += rec_bytes((int)h.sender, (int)h.seq);
        n++;
    }
    WT_EQ_NUM(n, nsend * (size_t)recs, "phase %d: records parsed", phase);
    free(seen);
}

static size_t bytes_from(int s_lo, int s_hi)
{
    size_t b = 0;
    for (int s = s_lo; s < s_hi; s++)
        for (int q = 0; q < recs; q++)
            b += rec_bytes(s, q);
    return b;
}

int main(int argc, char **argv)
{
    recs = argc > 1 ? atoi(argv[1]) : 24;
    wt_init("append");
    if (shmem_ctx_create(0, &ctx) != 0)
        ctx = SHMEM_CTX_DEFAULT;
    size_t cap = bytes_from(0, wt_npes);
    unsigned char *buf = shmem_malloc(cap);
    WT_CHECK(buf != NULL, "shmem_malloc(%zu)", cap);
    shmemx_oct_t oct;
    shmemx_oct_create(&oct, buf, cap);
    WT_EQ_NUM(shmemx_oct_get(oct), 0, "a new offset counter");
    shmem_barrier_all(); /* checked before any peer pushes */

    for (int phase = 0; phase < 2; phase++) {
        int to_one = phase == 1;
        WT_PHASE("phase %d (%s): pushing", phase, to_one ? "to PE 0" : "all to all");
        /* Records interleaved over the targets, so pushes to one target
         * from many PEs overlap in time. */
        for (int q = 0; q < recs; q++)
            for (int k = 0; k < wt_npes; k++) {
                int target = to_one ? 0 : (wt_me + k) % wt_npes;
                if (to_one && k > 0)
                    break;
                push_rec(oct, target, q, phase);
            }
        shmem_quiet();
        shmem_ctx_quiet(ctx);
        if (!to_one || wt_me == 0) {
            size_t want = bytes_from(0, wt_npes);
            WT_PHASE("phase %d: waiting for %zu bytes", phase, want);
            shmemx_oct_wait(oct, want);
            check_buffer(buf, want, 0, wt_npes, phase);
            WT_EQ_NUM(shmemx_oct_get(oct), want, "phase %d: shmemx_oct_get", phase);
        } else {
            WT_EQ_NUM(shmemx_oct_get(oct), 0, "phase %d: nothing pushed here", phase);
        }
        shmem_barrier_all();
        shmemx_oct_reset(oct);
        WT_EQ_NUM(shmemx_oct_get(oct), 0, "after shmemx_oct_reset");
        memset(buf, 0, cap);
        shmem_barrier_all();
    }
    shmemx_oct_destroy(&oct);
    WT_CHECK(oct == NULL, "shmemx_oct_destroy leaves the handle NULL");

    /* Made and destroyed in a loop, two alive at once on halves of buf. */
    int right = (wt_me + 1) % wt_npes;
    for (int it = 0; it < 24; it++) {
        WT_PHASE("create/destroy iteration %d", it);
        shmemx_oct_t a, b;
        shmemx_oct_create(&a, buf, 64);
        shmemx_oct_create(&b, buf + 64, 64);
        uint64_t v[2] = {(uint64_t)it, (uint64_t)wt_me};
        shmemx_push(a, v, sizeof v, right);
        shmemx_push(b, v, 8, right);
        shmemx_oct_wait(a, 16);
        shmemx_oct_wait(b, 8);
        uint64_t got[3];
        memcpy(got, buf, 16);
        memcpy(got + 2, buf + 64, 8);
        WT_EQ_NUM(got[0], it, "iteration %d: word 0 in a", it);
        WT_EQ_NUM(got[1], (wt_me + wt_npes - 1) % wt_npes, "iteration %d: word 1 in a", it);
        WT_EQ_NUM(got[2], it, "iteration %d: word 0 in b", it);
        shmemx_oct_destroy(&b);
        shmemx_oct_destroy(&a);
    }
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    shmem_free(buf);
    wt_finish();
    return 0;
}

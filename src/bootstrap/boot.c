/* boot.c: the launcher bootstrap behind bootstrap.h. Detects the launcher
 * (PMI_FD set: PMI-1 wire protocol, served by oshrun and MPICH Hydra;
 * nothing set: a singleton, rank 0 of 1 with a local key-value store),
 * validates arguments and builds allgather on put/fence/get. */
#include "bootstrap/bootstrap.h"
#include "bootstrap/pmi1.h"
#include "core/runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum boot_kind { BOOT_NONE, BOOT_SINGLETON, BOOT_PMI1 };

static enum boot_kind boot_kind = BOOT_NONE;
static int boot_rank, boot_size;

/* Singleton key-value store. */
struct local_kv {
    struct local_kv *next;
    char *key;
    size_t len;
    unsigned char val[];
};
static struct local_kv *local_kvs;

static int parse_env_int(const char *name, const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        weft_warn("bootstrap", "%s='%s' set by the launcher is not an integer in [%ld, %ld]", name,
                  s, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int weft_boot_init(int *rank, int *size)
{
    if (boot_kind != BOOT_NONE) {
        *rank = boot_rank;
        *size = boot_size;
        return 0;
    }
    const char *fd_s = weft_tun_str(WEFT_TUN_PMI_FD);
    if (!*fd_s) {
        boot_kind = BOOT_SINGLETON;
        boot_rank = 0;
        boot_size = 1;
        if (weft_debug_enabled)
            weft_debug("bootstrap: no launcher (PMI_FD unset), running as a singleton");
    } else {
        const char *rank_s = weft_tun_str(WEFT_TUN_PMI_RANK);
        const char *size_s = weft_tun_str(WEFT_TUN_PMI_SIZE);
        int fd, r, n;
        if (parse_env_int("PMI_FD", fd_s, 0, 1 << 30, &fd) != 0 ||
            parse_env_int("PMI_SIZE", size_s, 1, 1 << 30, &n) != 0 ||
            parse_env_int("PMI_RANK", rank_s, 0, n - 1, &r) != 0)
            return -1;
        if (weft_pmi1_init(fd, r, n) != 0) {
            weft_warn("bootstrap", "cannot connect to the launcher over PMI_FD=%d (PMI-1)", fd);
            return -1;
        }
        boot_kind = BOOT_PMI1;
        boot_rank = r;
        boot_size = n;
    }
    *rank = boot_rank;
    *size = boot_size;
    return 0;
}

const char *weft_boot_name(void)
{
    switch (boot_kind) {
    case BOOT_PMI1:
        return "pmi1";
    case BOOT_SINGLETON:
        return "singleton";
    default:
        return "none";
    }
}

static int check_ready(const char *call)
{
    if (boot_kind == BOOT_NONE) {
        weft_warn(call, "bootstrap used before weft_boot_init");
        return -1;
    }
    return 0;
}

/* Keys travel as PMI tokens: printable, no spaces, '=' or ':' (our split
 * separator), and short. */
static int check_key(const char *call, const char *key)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0 || n > 200)
        goto bad;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)key[i];
        if (c <= ' ' || c >= 127 || c == '=' || c == ':')
            goto bad;
    }
    return 0;
bad:
    weft_warn(call, "invalid bootstrap key '%s' (1-200 printable characters, no spaces, '=', ':')",
              key ? key : "(null)");
    return -1;
}

static struct local_kv *local_find(const char *key)
{
    for (struct local_kv *kv = local_kvs; kv; kv = kv->next)
        if (strcmp(kv->key, key) == 0)
            return kv;
    return NULL;
}

int weft_boot_put(const char *key, const void *val, size_t len)
{
    if (check_ready("weft_boot_put") != 0 || check_key("weft_boot_put", key) != 0)
        return -1;
    if (boot_kind == BOOT_PMI1)
        return weft_pmi1_put(key, val, len);

    struct local_kv *kv = malloc(sizeof *kv + len);
    char *k = strdup(key);
    if (!kv || !k) {
        free(kv);
        free(k);
        weft_warn("weft_boot_put", "out of memory");
        return -1;
    }
    kv->key = k;
    kv->len = len;
    if (len)
        memcpy(kv->val, val, len);
    /* Newest first, so a re-put shadows the old value. */
    kv->next = local_kvs;
    local_kvs = kv;
    return 0;
}

int weft_boot_fence(void)
{
    if (check_ready("weft_boot_fence") != 0)
        return -1;
    return boot_kind == BOOT_PMI1 ? weft_pmi1_barrier() : 0;
}

int weft_boot_get(int rank, const char *key, void *val, size_t *len)
{
    if (check_ready("weft_boot_get") != 0 || check_key("weft_boot_get", key) != 0)
        return -1;
    if (rank < 0 || rank >= boot_size) {
        weft_warn("weft_boot_get", "rank %d out of range [0, %d)", rank, boot_size);
        return -1;
    }
    if (boot_kind == BOOT_PMI1)
        return weft_pmi1_get(rank, key, val, len);

    struct local_kv *kv = local_find(key);
    if (!kv) {
        weft_warn("weft_boot_get", "no value for key '%s'", key);
        return -1;
    }
    if (kv->len > *len) {
        weft_warn("weft_boot_get", "value of key '%s' is %zu bytes, buffer holds %zu", key, kv->len,
                  *len);
        *len = kv->len;
        return -1;
    }
    if (kv->len)
        memcpy(val, kv->val, kv->len);
    *len = kv->len;
    return 0;
}

int weft_boot_allgather(const char *key, const void *mine, void *all, size_t len)
{
    if (weft_boot_put(key, mine, len) != 0 || weft_boot_fence() != 0)
        return -1;
    unsigned char *out = all;
    for (int r = 0; r < boot_size; r++) {
        unsigned char *dst = out + (size_t)r * len;
        if (r == boot_rank) {
            if (len)
                memmove(dst, mine, len);
            continue;
        }
        size_t got = len;
        if (weft_boot_get(r, key, dst, &got) != 0)
            return -1;
        if (got != len) {
            weft_warn("weft_boot_allgather", "PE %d contributed %zu bytes under '%s', expected %zu",
                      r, got, key, len);
            return -1;
        }
    }
    return 0;
}

int weft_boot_alive(void)
{
    return boot_kind == BOOT_PMI1 ? weft_pmi1_alive() : 1;
}

int weft_boot_barrier(void)
{
    if (check_ready("weft_boot_barrier") != 0)
        return -1;
    return boot_kind == BOOT_PMI1 ? weft_pmi1_barrier() : 0;
}

void weft_boot_abort(int status, const char *msg)
{
    /* The launcher ends the job with the low byte of status: errors pass 1,
     * shmem_global_exit(0) passes 0 and the job exits 0 as the spec says;
     * a non-zero status whose low byte is 0 (256, INT_MIN) passes 1. */
    int code = status == 0 ? 0 : (status & 0xff) ? status & 0xff : 1;
    if (msg && *msg)
        fprintf(stderr, "weft: PE %d: aborting job: %s\n", boot_rank, msg);
    fflush(stdout);
    fflush(stderr);
    if (boot_kind == BOOT_PMI1)
        weft_pmi1_abort(code);
    _exit(code);
}

int weft_boot_finalize(void)
{
    int rc = 0;
    if (boot_kind == BOOT_PMI1)
        rc = weft_pmi1_finalize();
    while (local_kvs) {
        struct local_kv *kv = local_kvs;
        local_kvs = kv->next;
        free(kv->key);
        free(kv);
    }
    boot_kind = BOOT_NONE;
    return rc;
}

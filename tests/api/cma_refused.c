/* SPDX-License-Identifier: BSD-3-Clause */
/* cma_refused: large gets and puts over shm where the kernel refuses
 * copies between the processes (ptrace scope, another user). This program
 * defines process_vm_readv and process_vm_writev itself, ahead of the C
 * library's, and refuses every call with EPERM: each PE must try each kind
 * of copy once, then read and write through the target's queue for the
 * rest of the job, with every byte right. */
#include <errno.h>
#include <sys/uio.h>

#include "weft_test.h"

#define LEN (256 * 1024)
#define ROUNDS 4

static unsigned long reads_tried, writes_tried;

ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long liovcnt,
                         const struct iovec *remote, unsigned long riovcnt, unsigned long flags)
{
    (void)pid, (void)local, (void)liovcnt, (void)remote, (void)riovcnt, (void)flags;
    __atomic_fetch_add(&reads_tried, 1, __ATOMIC_RELAXED);
    errno = EPERM;
    return -1;
}

ssize_t process_vm_writev(pid_t pid, const struct iovec *local, unsigned long liovcnt,
                          const struct iovec *remote, unsigned long riovcnt, unsigned long flags)
{
    (void)pid, (void)local, (void)liovcnt, (void)remote, (void)riovcnt, (void)flags;
    __atomic_fetch_add(&writes_tried, 1, __ATOMIC_RELAXED);
    errno = EPERM;
    return -1;
}

int main(void)
{
    wt_init("cma_refused");
    unsigned char *buf = shmem_malloc(LEN);
    unsigned char *slot = shmem_malloc(LEN);
    unsigned char *got = malloc(LEN);
    WT_CHECK(buf && slot && got, "allocation");
    int peer = (wt_me + 1) % wt_npes, from = (wt_me + wt_npes - 1) % wt_npes;
    /* The provider's own copies (its check at start-up, its protocol for
     * large writes) would be counted too: only this PE's calls from here. */
    shmem_barrier_all();
    unsigned long reads0 = __atomic_load_n(&reads_tried, __ATOMIC_RELAXED);
    unsigned long writes0 = __atomic_load_n(&writes_tried, __ATOMIC_RELAXED);
    for (int r = 0; r < ROUNDS; r++) {
        WT_PHASE("round %d: get", r);
        wt_fill_bytes(buf, LEN, wt_me, 0, (unsigned)r);
        shmem_barrier_all();
        shmem_getmem(got, buf, LEN, peer);
        WT_CHECK_BYTES(got, LEN, peer, 0, (unsigned)r, "get");
        WT_PHASE("round %d: put", r);
        shmem_putmem(slot, buf, LEN, peer);
        shmem_barrier_all();
        WT_CHECK_BYTES(slot, LEN, from, 0, (unsigned)r, "put");
        shmem_barrier_all();
    }
    if (wt_npes > 1 && getenv("WT_CMA_EXPECTED")) {
        unsigned long reads = __atomic_load_n(&reads_tried, __ATOMIC_RELAXED) - reads0;
        unsigned long writes = __atomic_load_n(&writes_tried, __ATOMIC_RELAXED) - writes0;
        WT_CHECK(reads == 1, "process_vm_readv tried %lu times, not once", reads);
        WT_CHECK(writes == 1, "process_vm_writev tried %lu times, not once", writes);
    }
    free(got);
    wt_finish();
    return 0;
}

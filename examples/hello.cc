/* SPDX-License-Identifier: BSD-3-Clause */
// hello.cc: hello.c in C++. Every PE adds its number + 1 to a counter on
// PE 0 with the C++ overload of shmem_atomic_add (weft/cxx.h; docs/cxx.md)
// and PE 0 checks the sum after a barrier.
//
//   oshc++ -O2 -o hello_cxx hello.cc && oshrun -n 4 ./hello_cxx
#include <shmem.h>
#include <cstdio>

static long sum; // symmetric: lives in .bss on every PE

int main()
{
    shmem_init();
    const int me = shmem_my_pe();
    const int npes = shmem_n_pes();
    shmem_atomic_add(&sum, static_cast<long>(me + 1), 0);
    shmem_barrier_all();
    int status = 0;
    if (me == 0) {
        const long want = static_cast<long>(npes) * (npes + 1) / 2;
        std::printf("C++ hello: %d PEs, sum %ld (expected %ld): %s\n", npes, sum, want,
                    sum == want ? "OK" : "WRONG");
        status = sum == want ? 0 : 1;
    }
    shmem_finalize();
    return status;
}

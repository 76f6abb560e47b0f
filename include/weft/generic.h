/* SPDX-License-Identifier: BSD-3-Clause */
/* weft/generic.h owns the C11 _Generic selections of shmem.h: one macro per
 * generic routine, built from the same type tables as the typed routines.
 * A routine with a context form accepts both shmem_put(dest, src, n, pe)
 * and shmem_put(ctx, dest, src, n, pe): the first argument's type decides.
 * C++ gets the same routines as overloads from weft/cxx.h instead. */
#ifndef WEFT_GENERIC_H
#define WEFT_GENERIC_H

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)

/* Selected when no type matches; calling it with arguments is a compile
 * error that points at the offending call. */
void weft_generic_no_matching_type(void);

#define WEFT_ARG1_(a, ...) a
#define WEFT_ARG2_(a, b, ...) b
#define WEFT_ARG1(...) WEFT_ARG1_(__VA_ARGS__, 0)
#define WEFT_ARG2(...) WEFT_ARG2_(__VA_ARGS__, 0, 0)

/* Association "T *: shmem_NAME_op," for distinct C types only. */
#define WEFT_GEN_ASSOC(G, T, F) WEFT_IF_GEN_##G(T *: F, )
#define WEFT_GEN_ASSOC_C(G, T, F) WEFT_IF_GEN_##G(T *: F, const T *: F, )

/* A generic routine with a context form, dispatching on the pointer type of
 * the first argument after the optional context. */
#define WEFT_GENERIC_CTX(TABLE, OP, ...)                                                  \
    _Generic(WEFT_ARG1(__VA_ARGS__),                                                     \
        shmem_ctx_t: _Generic(WEFT_ARG2(__VA_ARGS__),                                    \
            TABLE(WEFT_GC_##OP) default: weft_generic_no_matching_type),                 \
        TABLE(WEFT_G_##OP) default: weft_generic_no_matching_type)(__VA_ARGS__)
#define WEFT_GENERIC(TABLE, OP, ...)                                                      \
    _Generic(WEFT_ARG1(__VA_ARGS__),                                                     \
        TABLE(WEFT_G_##OP) default: weft_generic_no_matching_type)(__VA_ARGS__)

/* One pair of association builders per operation: WEFT_G_op for the plain
 * routine, WEFT_GC_op for the context form. */
#define WEFT_G_put(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_put)
#define WEFT_GC_put(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_put)
#define WEFT_G_get(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_get)
#define WEFT_GC_get(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_get)
#define WEFT_G_put_nbi(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_put_nbi)
#define WEFT_GC_put_nbi(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_put_nbi)
#define WEFT_G_get_nbi(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_get_nbi)
#define WEFT_GC_get_nbi(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_get_nbi)
#define WEFT_G_p(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_p)
#define WEFT_GC_p(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_p)
#define WEFT_G_g(N, T, D, G) WEFT_GEN_ASSOC_C(G, T, shmem_##N##_g)
#define WEFT_GC_g(N, T, D, G) WEFT_GEN_ASSOC_C(G, T, shmem_ctx_##N##_g)
#define WEFT_G_iput(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_iput)
#define WEFT_GC_iput(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_iput)
#define WEFT_G_iget(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_iget)
#define WEFT_GC_iget(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_iget)

#define shmem_put(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, put, __VA_ARGS__)
#define shmem_get(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, get, __VA_ARGS__)
#define shmem_put_nbi(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, get_nbi, __VA_ARGS__)
#define shmem_p(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, p, __VA_ARGS__)
#define shmem_g(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, g, __VA_ARGS__)
#define shmem_iput(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, iput, __VA_ARGS__)
#define shmem_iget(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, iget, __VA_ARGS__)

/* AMOs: the association builders take the routine suffix from OP. */
#define WEFT_G_atomic_fetch(N, T, D, G) WEFT_GEN_ASSOC_C(G, T, shmem_##N##_atomic_fetch)
#define WEFT_GC_atomic_fetch(N, T, D, G) WEFT_GEN_ASSOC_C(G, T, shmem_ctx_##N##_atomic_fetch)
#define WEFT_G_atomic_set(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_set)
#define WEFT_GC_atomic_set(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_set)
#define WEFT_G_atomic_swap(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_swap)
#define WEFT_GC_atomic_swap(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_swap)
#define WEFT_G_atomic_compare_swap(N, T, D, G)                                            \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_compare_swap)
#define WEFT_GC_atomic_compare_swap(N, T, D, G)                                           \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_compare_swap)
#define WEFT_G_atomic_fetch_inc(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_inc)
#define WEFT_GC_atomic_fetch_inc(N, T, D, G)                                              \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_inc)
#define WEFT_G_atomic_inc(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_inc)
#define WEFT_GC_atomic_inc(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_inc)
#define WEFT_G_atomic_fetch_add(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_add)
#define WEFT_GC_atomic_fetch_add(N, T, D, G)                                              \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_add)
#define WEFT_G_atomic_add(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_add)
#define WEFT_GC_atomic_add(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_add)
#define WEFT_G_atomic_fetch_and(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_and)
#define WEFT_GC_atomic_fetch_and(N, T, D, G)                                              \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_and)
#define WEFT_G_atomic_and(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_and)
#define WEFT_GC_atomic_and(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_and)
#define WEFT_G_atomic_fetch_or(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_or)
#define WEFT_GC_atomic_fetch_or(N, T, D, G)                                               \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_or)
#define WEFT_G_atomic_or(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_or)
#define WEFT_GC_atomic_or(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_or)
#define WEFT_G_atomic_fetch_xor(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_xor)
#define WEFT_GC_atomic_fetch_xor(N, T, D, G)                                              \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_xor)
#define WEFT_G_atomic_xor(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_xor)
#define WEFT_GC_atomic_xor(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_xor)

#define shmem_atomic_fetch(...) WEFT_GENERIC_CTX(WEFT_AMO_EXT_TYPES, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) WEFT_GENERIC_CTX(WEFT_AMO_EXT_TYPES, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) WEFT_GENERIC_CTX(WEFT_AMO_EXT_TYPES, atomic_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                                    \
    WEFT_GENERIC_CTX(WEFT_AMO_STD_TYPES, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)                                                       \
    WEFT_GENERIC_CTX(WEFT_AMO_STD_TYPES, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) WEFT_GENERIC_CTX(WEFT_AMO_STD_TYPES, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)                                                       \
    WEFT_GENERIC_CTX(WEFT_AMO_STD_TYPES, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) WEFT_GENERIC_CTX(WEFT_AMO_STD_TYPES, atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)                                                       \
    WEFT_GENERIC_CTX(WEFT_AMO_BIT_TYPES, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) WEFT_GENERIC_CTX(WEFT_AMO_BIT_TYPES, atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)                                                        \
    WEFT_GENERIC_CTX(WEFT_AMO_BIT_TYPES, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) WEFT_GENERIC_CTX(WEFT_AMO_BIT_TYPES, atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)                                                       \
    WEFT_GENERIC_CTX(WEFT_AMO_BIT_TYPES, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) WEFT_GENERIC_CTX(WEFT_AMO_BIT_TYPES, atomic_xor, __VA_ARGS__)

/* Fetching non-blocking AMOs dispatch on the fetch pointer (argument 1 after
 * the optional context), which has the same type as dest. */
#define WEFT_G_atomic_fetch_nbi(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_nbi)
#define WEFT_GC_atomic_fetch_nbi(N, T, D, G)                                              \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_nbi)
#define WEFT_G_atomic_swap_nbi(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_swap_nbi)
#define WEFT_GC_atomic_swap_nbi(N, T, D, G)                                               \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_swap_nbi)
#define WEFT_G_atomic_compare_swap_nbi(N, T, D, G)                                        \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_compare_swap_nbi)
#define WEFT_GC_atomic_compare_swap_nbi(N, T, D, G)                                       \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_compare_swap_nbi)
#define WEFT_G_atomic_fetch_inc_nbi(N, T, D, G)                                           \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_inc_nbi)
#define WEFT_GC_atomic_fetch_inc_nbi(N, T, D, G)                                          \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_inc_nbi)
#define WEFT_G_atomic_fetch_add_nbi(N, T, D, G)                                           \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_add_nbi)
#define WEFT_GC_atomic_fetch_add_nbi(N, T, D, G)                                          \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_add_nbi)
#define WEFT_G_atomic_fetch_and_nbi(N, T, D, G)                                           \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_and_nbi)
#define WEFT_GC_atomic_fetch_and_nbi(N, T, D, G)                                          \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_and_nbi)
#define WEFT_G_atomic_fetch_or_nbi(N, T, D, G)                                            \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_or_nbi)
#define WEFT_GC_atomic_fetch_or_nbi(N, T, D, G)                                           \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_or_nbi)
#define WEFT_G_atomic_fetch_xor_nbi(N, T, D, G)                                           \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_atomic_fetch_xor_nbi)
#define WEFT_GC_atomic_fetch_xor_nbi(N, T, D, G)                                          \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_atomic_fetch_xor_nbi)

#define shmem_atomic_fetch_nbi(...)                                                       \
    WEFT_GENERIC_CTX(WEFT_AMO_EXT_TYPES, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)                                                        \
    WEFT_GENERIC_CTX(WEFT_AMO_EXT_TYPES, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                                \
    WEFT_GENERIC_CTX(WEFT_AMO_STD_TYPES, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                                   \
    WEFT_GENERIC_CTX(WEFT_AMO_STD_TYPES, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                                   \
    WEFT_GENERIC_CTX(WEFT_AMO_STD_TYPES, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                                   \
    WEFT_GENERIC_CTX(WEFT_AMO_BIT_TYPES, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                                    \
    WEFT_GENERIC_CTX(WEFT_AMO_BIT_TYPES, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                                   \
    WEFT_GENERIC_CTX(WEFT_AMO_BIT_TYPES, atomic_fetch_xor_nbi, __VA_ARGS__)

/* Point-to-point synchronization (no context form). */
#define WEFT_G_wait_until(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_wait_until)
#define WEFT_G_wait_until_all(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_wait_until_all)
#define WEFT_G_wait_until_any(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_wait_until_any)
#define WEFT_G_wait_until_some(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_wait_until_some)
#define WEFT_G_wait_until_all_vector(N, T, D, G)                                          \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_wait_until_all_vector)
#define WEFT_G_wait_until_any_vector(N, T, D, G)                                          \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_wait_until_any_vector)
#define WEFT_G_wait_until_some_vector(N, T, D, G)                                         \
    WEFT_GEN_ASSOC(G, T, shmem_##N##_wait_until_some_vector)
#define WEFT_G_test(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_test)
#define WEFT_G_test_all(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_test_all)
#define WEFT_G_test_any(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_test_any)
#define WEFT_G_test_some(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_test_some)
#define WEFT_G_test_all_vector(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_test_all_vector)
#define WEFT_G_test_any_vector(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_test_any_vector)
#define WEFT_G_test_some_vector(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_test_some_vector)

#define shmem_wait_until(...) WEFT_GENERIC(WEFT_P2P_TYPES, wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) WEFT_GENERIC(WEFT_P2P_TYPES, wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) WEFT_GENERIC(WEFT_P2P_TYPES, wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) WEFT_GENERIC(WEFT_P2P_TYPES, wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...)                                                  \
    WEFT_GENERIC(WEFT_P2P_TYPES, wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...)                                                  \
    WEFT_GENERIC(WEFT_P2P_TYPES, wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...)                                                 \
    WEFT_GENERIC(WEFT_P2P_TYPES, wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) WEFT_GENERIC(WEFT_P2P_TYPES, test, __VA_ARGS__)
#define shmem_test_all(...) WEFT_GENERIC(WEFT_P2P_TYPES, test_all, __VA_ARGS__)
#define shmem_test_any(...) WEFT_GENERIC(WEFT_P2P_TYPES, test_any, __VA_ARGS__)
#define shmem_test_some(...) WEFT_GENERIC(WEFT_P2P_TYPES, test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) WEFT_GENERIC(WEFT_P2P_TYPES, test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) WEFT_GENERIC(WEFT_P2P_TYPES, test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...)                                                       \
    WEFT_GENERIC(WEFT_P2P_TYPES, test_some_vector, __VA_ARGS__)

/* Put-with-signal (1.5) and interleaved block transfers (1.6) over the RMA
 * types, with and without a context. */
#define WEFT_G_put_signal(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_put_signal)
#define WEFT_GC_put_signal(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_put_signal)
#define WEFT_G_put_signal_nbi(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_put_signal_nbi)
#define WEFT_GC_put_signal_nbi(N, T, D, G)                                                \
    WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_put_signal_nbi)
#define WEFT_G_ibput(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_ibput)
#define WEFT_GC_ibput(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_ibput)
#define WEFT_G_ibget(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_ibget)
#define WEFT_GC_ibget(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_ctx_##N##_ibget)

#define shmem_put_signal(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, put_signal_nbi, __VA_ARGS__)
#define shmem_ibput(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, ibput, __VA_ARGS__)
#define shmem_ibget(...) WEFT_GENERIC_CTX(WEFT_RMA_TYPES, ibget, __VA_ARGS__)

/* Untyped routines whose only generic form adds a leading context (1.6
 * shmem_signal_set(ctx, sig_addr, signal, pe)): a context picks the
 * shmem_ctx_ routine, anything else the plain one. The plain name inside
 * its own expansion is not expanded again, so it names the function. */
#define WEFT_CTX_OR_PLAIN(NAME, ...)                                                      \
    _Generic(WEFT_ARG1(__VA_ARGS__), shmem_ctx_t: shmem_ctx_##NAME, default: shmem_##NAME)( \
        __VA_ARGS__)
#define shmem_signal_set(...) WEFT_CTX_OR_PLAIN(signal_set, __VA_ARGS__)
#define shmem_signal_add(...) WEFT_CTX_OR_PLAIN(signal_add, __VA_ARGS__)

/* shmem_sync(team) (1.5) and the deprecated active-set
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync) share a name: the
 * argument count picks. shmem_sync inside its own expansion is not expanded
 * again, so it names the function. */
#define WEFT_SYNC_PICK(a1, a2, a3, a4, NAME, ...) NAME
#define shmem_sync(...)                                                                    \
    WEFT_SYNC_PICK(__VA_ARGS__, shmem_sync, weft_sync_bad_args, weft_sync_bad_args,        \
                   shmem_team_sync, weft_sync_bad_args)(__VA_ARGS__)

/* Deprecated generic names (OpenSHMEM 1.3), still used by old programs. */
#define WEFT_G_wait(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_wait)
#define WEFT_G_cswap(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_cswap)
#define WEFT_G_finc(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_finc)
#define WEFT_G_inc(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_inc)
#define WEFT_G_fadd(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_fadd)
#define WEFT_G_add(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_add)
#define WEFT_G_swap(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_swap)
#define WEFT_G_fetch(N, T, D, G) WEFT_GEN_ASSOC_C(G, T, shmem_##N##_fetch)
#define WEFT_G_set(N, T, D, G) WEFT_GEN_ASSOC(G, T, shmem_##N##_set)
#define shmem_wait(...) WEFT_GENERIC(WEFT_WAIT_DEPRECATED_TYPES, wait, __VA_ARGS__)
#define shmem_cswap(...) WEFT_GENERIC(WEFT_AMO_STD_TYPES, cswap, __VA_ARGS__)
#define shmem_finc(...) WEFT_GENERIC(WEFT_AMO_STD_TYPES, finc, __VA_ARGS__)
#define shmem_inc(...) WEFT_GENERIC(WEFT_AMO_STD_TYPES, inc, __VA_ARGS__)
#define shmem_fadd(...) WEFT_GENERIC(WEFT_AMO_STD_TYPES, fadd, __VA_ARGS__)
#define shmem_add(...) WEFT_GENERIC(WEFT_AMO_STD_TYPES, add, __VA_ARGS__)
#define shmem_swap(...) WEFT_GENERIC(WEFT_AMO_EXT_TYPES, swap, __VA_ARGS__)
#define shmem_fetch(...) WEFT_GENERIC(WEFT_AMO_EXT_TYPES, fetch, __VA_ARGS__)
#define shmem_set(...) WEFT_GENERIC(WEFT_AMO_EXT_TYPES, set, __VA_ARGS__)

#endif /* C11 */
#endif

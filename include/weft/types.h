/* SPDX-License-Identifier: BSD-3-Clause */
/* weft/types.h owns the one table of OpenSHMEM types from which the whole
 * typed API (declarations, definitions, C11 generics, tests) is generated.
 *
 * Each row is X(NAME, TYPE, DT, GEN):
 *   NAME  the TYPENAME used in routine names (shmem_NAME_put)
 *   TYPE  the C type
 *   DT    the internal atomic datatype class (I32, I64, U32, U64, F32, F64,
 *         or NONE where the type never takes part in an atomic)
 *   GEN   1 if the type may appear in a C11 _Generic association list
 *         built from this table, 0 where it is a typedef of a type already
 *         in the same table (int64_t = long): a property of the row in its
 *         table, so int32_t is 1 where int is absent. Digits, because the
 *         flag travels through macro arguments unpasted and is expanded in
 *         the user's program: a letter would collide with a user's
 *         `#define N 4`, a number cannot be a macro name.
 */
#ifndef WEFT_TYPES_H
#define WEFT_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Table 5 of OpenSHMEM 1.5: standard RMA types. */
#define WEFT_RMA_TYPES(X)                                   \
    X(float, float, F32, 1)                                 \
    X(double, double, F64, 1)                               \
    X(longdouble, long double, NONE, 1)                     \
    X(char, char, NONE, 1)                                  \
    X(schar, signed char, NONE, 1)                          \
    X(short, short, NONE, 1)                                \
    X(int, int, I32, 1)                                     \
    X(long, long, I64, 1)                                   \
    X(longlong, long long, I64, 1)                          \
    X(uchar, unsigned char, NONE, 1)                        \
    X(ushort, unsigned short, NONE, 1)                      \
    X(uint, unsigned int, U32, 1)                           \
    X(ulong, unsigned long, U64, 1)                         \
    X(ulonglong, unsigned long long, U64, 1)                \
    X(int8, int8_t, NONE, 0)                                \
    X(int16, int16_t, NONE, 0)                              \
    X(int32, int32_t, I32, 0)                               \
    X(int64, int64_t, I64, 0)                               \
    X(uint8, uint8_t, NONE, 0)                              \
    X(uint16, uint16_t, NONE, 0)                            \
    X(uint32, uint32_t, U32, 0)                             \
    X(uint64, uint64_t, U64, 0)                             \
    X(size, size_t, U64, 0)                                 \
    X(ptrdiff, ptrdiff_t, I64, 0)

/* Table 6: standard AMO types (fetch_inc, inc, fetch_add, add, compare_swap). */
#define WEFT_AMO_STD_TYPES(X)                               \
    X(int, int, I32, 1)                                     \
    X(long, long, I64, 1)                                   \
    X(longlong, long long, I64, 1)                          \
    X(uint, unsigned int, U32, 1)                           \
    X(ulong, unsigned long, U64, 1)                         \
    X(ulonglong, unsigned long long, U64, 1)                \
    X(int32, int32_t, I32, 0)                               \
    X(int64, int64_t, I64, 0)                               \
    X(uint32, uint32_t, U32, 0)                             \
    X(uint64, uint64_t, U64, 0)                             \
    X(size, size_t, U64, 0)                                 \
    X(ptrdiff, ptrdiff_t, I64, 0)

/* Table 7: extended AMO types (fetch, set, swap) = standard + float, double. */
#define WEFT_AMO_EXT_TYPES(X)                               \
    X(float, float, F32, 1)                                 \
    X(double, double, F64, 1)                               \
    WEFT_AMO_STD_TYPES(X)

/* Table 8: bitwise AMO types (and, or, xor with and without fetch). */
#define WEFT_AMO_BIT_TYPES(X)                               \
    X(uint, unsigned int, U32, 1)                           \
    X(ulong, unsigned long, U64, 1)                         \
    X(ulonglong, unsigned long long, U64, 1)                \
    X(int32, int32_t, I32, 1)                               \
    X(int64, int64_t, I64, 1)                               \
    X(uint32, uint32_t, U32, 0)                             \
    X(uint64, uint64_t, U64, 0)

/* Table 10: point-to-point synchronization types (wait_until, test). */
#define WEFT_P2P_TYPES(X)                                   \
    X(short, short, NONE, 1)                                \
    X(int, int, I32, 1)                                     \
    X(long, long, I64, 1)                                   \
    X(longlong, long long, I64, 1)                          \
    X(ushort, unsigned short, NONE, 1)                      \
    X(uint, unsigned int, U32, 1)                           \
    X(ulong, unsigned long, U64, 1)                         \
    X(ulonglong, unsigned long long, U64, 1)                \
    X(int32, int32_t, I32, 0)                               \
    X(int64, int64_t, I64, 0)                               \
    X(uint32, uint32_t, U32, 0)                             \
    X(uint64, uint64_t, U64, 0)                             \
    X(size, size_t, U64, 0)                                 \
    X(ptrdiff, ptrdiff_t, I64, 0)

/* Sized RMA routines: shmem_putSIZE / getSIZE / iputSIZE ... (bits, C type). */
#define WEFT_RMA_SIZES(X)                                   \
    X(8, uint8_t)                                           \
    X(16, uint16_t)                                         \
    X(32, uint32_t)                                         \
    X(64, uint64_t)                                         \
    X(128, weft_u128_t)

typedef struct { uint64_t w[2]; } weft_u128_t;

/* Deprecated shmem_TYPE_wait(ivar, value). */
#define WEFT_WAIT_DEPRECATED_TYPES(X)                       \
    X(short, short, NONE, 1)                                \
    X(int, int, I32, 1)                                     \
    X(long, long, I64, 1)                                   \
    X(longlong, long long, I64, 1)

/* ---- collectives (weft/collectives.h) ------------------------------------
 * Reductions over teams (OpenSHMEM 1.5 table "Reduction Types, Names, and
 * Supporting Operations for Team-Based Reductions"), one table per group of
 * operations: AND/OR/XOR, MAX/MIN, SUM/PROD (the last adds the complex
 * types). Same X(NAME, TYPE, DT, GEN) rows as above; DT is NONE where the
 * type has no atomic class. */
#define WEFT_REDUCE_BITWISE_TYPES(X)                        \
    X(uchar, unsigned char, NONE, 1)                        \
    X(ushort, unsigned short, NONE, 1)                      \
    X(uint, unsigned int, U32, 1)                           \
    X(ulong, unsigned long, U64, 1)                         \
    X(ulonglong, unsigned long long, U64, 1)                \
    X(int8, int8_t, NONE, 1)                                \
    X(int16, int16_t, NONE, 1)                              \
    X(int32, int32_t, I32, 1)                               \
    X(int64, int64_t, I64, 1)                               \
    X(uint8, uint8_t, NONE, 0)                              \
    X(uint16, uint16_t, NONE, 0)                            \
    X(uint32, uint32_t, U32, 0)                             \
    X(uint64, uint64_t, U64, 0)                             \
    X(size, size_t, U64, 0)

#define WEFT_REDUCE_MINMAX_TYPES(X)                         \
    X(char, char, NONE, 1)                                  \
    X(schar, signed char, NONE, 1)                          \
    X(short, short, NONE, 1)                                \
    X(int, int, I32, 1)                                     \
    X(long, long, I64, 1)                                   \
    X(longlong, long long, I64, 1)                          \
    X(ptrdiff, ptrdiff_t, I64, 0)                           \
    X(uchar, unsigned char, NONE, 1)                        \
    X(ushort, unsigned short, NONE, 1)                      \
    X(uint, unsigned int, U32, 1)                           \
    X(ulong, unsigned long, U64, 1)                         \
    X(ulonglong, unsigned long long, U64, 1)                \
    X(int8, int8_t, NONE, 0)                                \
    X(int16, int16_t, NONE, 0)                              \
    X(int32, int32_t, I32, 0)                               \
    X(int64, int64_t, I64, 0)                               \
    X(uint8, uint8_t, NONE, 0)                              \
    X(uint16, uint16_t, NONE, 0)                            \
    X(uint32, uint32_t, U32, 0)                             \
    X(uint64, uint64_t, U64, 0)                             \
    X(size, size_t, U64, 0)                                 \
    X(float, float, F32, 1)                                 \
    X(double, double, F64, 1)                               \
    X(longdouble, long double, NONE, 1)

/* The complex element types: C's _Complex types in C++ too, where they are
 * an extension of g++ and clang++ (__extension__ keeps -pedantic quiet), so
 * C++ programs that keep complex data as float _Complex, as with other
 * OpenSHMEM libraries, call the typed routines unchanged. weft/cxx.h adds
 * std::complex overloads. */
#ifdef __cplusplus
__extension__ typedef double _Complex weft_complexd_t;
__extension__ typedef float _Complex weft_complexf_t;
#else
typedef double _Complex weft_complexd_t;
typedef float _Complex weft_complexf_t;
#endif

#define WEFT_REDUCE_COMPLEX_TYPES(X)                        \
    X(complexd, weft_complexd_t, NONE, 1)                   \
    X(complexf, weft_complexf_t, NONE, 1)

#define WEFT_REDUCE_ARITH_TYPES(X)                          \
    WEFT_REDUCE_MINMAX_TYPES(X)                             \
    WEFT_REDUCE_COMPLEX_TYPES(X)

/* Deprecated active-set reductions shmem_TYPE_OP_to_all (OpenSHMEM 1.5 table
 * "... for Active-Set-Based Reductions"). */
#define WEFT_TO_ALL_BITWISE_TYPES(X)                        \
    X(short, short, NONE, 1)                                \
    X(int, int, I32, 1)                                     \
    X(long, long, I64, 1)                                   \
    X(longlong, long long, I64, 1)

#define WEFT_TO_ALL_MINMAX_TYPES(X)                         \
    WEFT_TO_ALL_BITWISE_TYPES(X)                            \
    X(float, float, F32, 1)                                 \
    X(double, double, F64, 1)                               \
    X(longdouble, long double, NONE, 1)

#define WEFT_TO_ALL_ARITH_TYPES(X)                          \
    WEFT_TO_ALL_MINMAX_TYPES(X)                             \
    WEFT_REDUCE_COMPLEX_TYPES(X)

/* OpenSHMEM 1.6 scans (shmem_TYPE_sum_inscan / _exscan): the SUM types. */
#define WEFT_SCAN_TYPES(X) WEFT_REDUCE_ARITH_TYPES(X)

/* Expand only the rows whose GEN column is 1 (for _Generic lists). */
#define WEFT_IF_GEN_1(...) __VA_ARGS__
#define WEFT_IF_GEN_0(...)

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* state.c owns the process-wide runtime state and the names of the atomic
 * vocabulary used in messages and by weft-info. */
#include "core/runtime.h"

struct weft_runtime weft_rt = {
    .my_pe = 0,
    .n_pes = 1,
    .seg = {{NULL, 0, -1}, {NULL, 0, -1}},
};

const char *const weft_amo_op_names[WEFT_AMO_NOPS] = {
    "fetch", "set", "swap", "compare_swap", "add", "and", "or", "xor",
};

const char *const weft_dtype_names[WEFT_DT_NTYPES] = {
    "int32", "int64", "uint32", "uint64", "float", "double",
};

char *weft_fast_heap_base;
uint64_t weft_fast_heap_limit;
unsigned weft_fast_n_pes;
char **weft_fast_heap_peer;
char *weft_fast_data_base;
uint64_t weft_fast_data_delta;
uint64_t weft_fast_data_limit;
char **weft_fast_data_peer;
uint64_t weft_fast_pg_limit;

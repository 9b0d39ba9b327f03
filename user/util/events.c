// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "events.h"

static const char *const names[FN_COUNT] = {
	[FN_MALLOC] = "malloc",
	[FN_CALLOC] = "calloc",
	[FN_REALLOC] = "realloc",
	[FN_REALLOCARRAY] = "reallocarray",
	[FN_FREE] = "free",
	[FN_POSIX_MEMALIGN] = "posix_memalign",
	[FN_ALIGNED_ALLOC] = "aligned_alloc",
	[FN_MEMALIGN] = "memalign",
	[FN_VALLOC] = "valloc",
	[FN_PVALLOC] = "pvalloc",
	[FN_STRDUP] = "strdup",
	[FN_STRNDUP] = "strndup",
	[FN_ASPRINTF] = "asprintf",
	[FN_VASPRINTF] = "vasprintf",
	[FN_GETLINE] = "getline",
	[FN_GETDELIM] = "getdelim",
	[FN_OPEN_MEMSTREAM] = "open_memstream",
	[FN_RUST_ALLOC] = "__rust_alloc",
	[FN_RUST_DEALLOC] = "__rust_dealloc",
	[FN_RUST_REALLOC] = "__rust_realloc",
	[FN_RUST_ALLOC_ZEROED] = "__rust_alloc_zeroed",
	[FN_CXX_NEW] = "_Znwm",
	[FN_CXX_NEW_ARRAY] = "_Znam",
	[FN_CXX_NEW_NOTHROW] = "_ZnwmRKSt9nothrow_t",
	[FN_CXX_NEW_ARRAY_NOTHROW] = "_ZnamRKSt9nothrow_t",
	[FN_CXX_NEW_ALIGNED] = "_ZnwmSt11align_val_t",
	[FN_CXX_NEW_ARRAY_ALIGNED] = "_ZnamSt11align_val_t",
	[FN_CXX_NEW_ALIGNED_NOTHROW] = "_ZnwmSt11align_val_tRKSt9nothrow_t",
	[FN_CXX_NEW_ARRAY_ALIGNED_NOTHROW] = "_ZnamSt11align_val_tRKSt9nothrow_t",
	[FN_CXX_DELETE] = "_ZdlPv",
	[FN_CXX_DELETE_ARRAY] = "_ZdaPv",
	[FN_CXX_DELETE_SIZED] = "_ZdlPvm",
	[FN_CXX_DELETE_ARRAY_SIZED] = "_ZdaPvm",
	[FN_CXX_DELETE_ALIGNED] = "_ZdlPvSt11align_val_t",
	[FN_CXX_DELETE_ARRAY_ALIGNED] = "_ZdaPvSt11align_val_t",
	[FN_CXX_DELETE_SIZED_ALIGNED] = "_ZdlPvmSt11align_val_t",
	[FN_CXX_DELETE_ARRAY_SIZED_ALIGNED] = "_ZdaPvmSt11align_val_t",
	[FN_CXX_DELETE_NOTHROW] = "_ZdlPvRKSt9nothrow_t",
	[FN_CXX_DELETE_ARRAY_NOTHROW] = "_ZdaPvRKSt9nothrow_t",
	[FN_CXX_DELETE_ALIGNED_NOTHROW] = "_ZdlPvSt11align_val_tRKSt9nothrow_t",
	[FN_CXX_DELETE_ARRAY_ALIGNED_NOTHROW] = "_ZdaPvSt11align_val_tRKSt9nothrow_t",
};

const char *alloc_fn_name(__u32 fn)
{
	return fn < FN_COUNT && names[fn] ? names[fn] : "???";
}

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
};

const char *alloc_fn_name(__u32 fn)
{
	return fn < FN_COUNT && names[fn] ? names[fn] : "???";
}

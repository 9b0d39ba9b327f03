/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * alloc_request.h - what an allocator entry point asks for, from its first arguments: one
 * table for the BPF probes (alloc.bpf.c: a helper's pending primitive, the outermost
 * primitive's record; sampling.bpf.h: the entry's sampling decision), plain C so that the
 * unit tests compile it too.
 */
#ifndef ALLOC_REQUEST_H
#define ALLOC_REQUEST_H

#include "alloc_events.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Primitives that allocate a0 bytes. */
static __always_inline bool is_sized_new(__u32 fn)
{
	return fn == FN_MALLOC || fn == FN_VALLOC || fn == FN_PVALLOC || fn == FN_RUST_ALLOC ||
	       fn == FN_RUST_ALLOC_ZEROED || FN_IS_CXX_NEW(fn) || FN_IS_PY_MALLOC(fn) ||
	       fn == FN_PY_SITE_MALLOC || fn == FN_PY_NEW_POOL;
}

/*
 * What a primitive fn asks for, from its first arguments: *size bytes, replacing the block
 * *old (the realloc family; 0 otherwise). false: fn asks for no size (free, delete, the libc
 * helpers, whose sizes are known at their return). One table for the entry's sampling
 * decision, a helper's pending primitive and the outermost primitive's record.
 */
static __always_inline bool fn_request(__u32 fn, __u64 a0, __u64 a1, __u64 a2, __u64 *old,
				       __u64 *size)
{
	*old = 0;
	switch (is_sized_new(fn) ? FN_MALLOC : FN_IS_PY_CALLOC(fn) ? FN_CALLOC : fn) {
	case FN_MALLOC:
		*size = a0;
		return true;
	case FN_CALLOC:
		*size = a0 * a1;
		return true;
	case FN_MEMALIGN:
	case FN_ALIGNED_ALLOC:
		*size = a1;
		return true;
	case FN_POSIX_MEMALIGN: /* (void **memptr, size_t align, size_t size) */
		*size = a2;
		return true;
	case FN_REALLOC:
	case FN_RUST_REALLOC: /* a1: the new size (entry_args) */
		*old = a0;
		*size = a1;
		return true;
	case FN_PY_OBJ_REALLOC:
	case FN_PY_MEM_REALLOC: /* (p, 0) keeps a block: CPython asks for 1 byte */
		*old = a0;
		*size = a1 ? a1 : 1;
		return true;
	case FN_REALLOCARRAY:
		*old = a0;
		*size = a1 * a2;
		return true;
	}
	*size = 0;
	return false;
}

#endif

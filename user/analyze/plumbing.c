// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* plumbing - the built-in table of allocation plumbing: see plumbing.h. */
#include "plumbing.h"

#include <string.h>

enum plumbing_match {
	MATCH_PREFIX, /* the cleaned frame starts with the pattern */
	MATCH_SYMBOL, /* the frame's symbol is exactly the pattern ("malloc (in ...)") */
};

struct plumbing {
	const char *pat;
	enum plumbing_match how;
};

/*
 * Frames that are allocation plumbing rather than a call site worth naming. The seed's
 * Rust list is kept as prefixes, except "malloc" and "realloc", which name C functions here
 * and are matched as whole symbols so that a user function such as realloc_buffer() stays
 * visible. Extend this table (users extend it with --skip) to hide more.
 */
static const struct plumbing TABLE[] = {
    /* Rust: the seed's list, plus dhat-rs's kept allocator frame and __rg_alloc. "alloc::"
     * covers RawVec (alloc::raw_vec::) and "hashbrown::" its raw tables. */
    {"alloc::", MATCH_PREFIX},
    {"<alloc::", MATCH_PREFIX},
    {"core::", MATCH_PREFIX},
    {"<core::", MATCH_PREFIX},
    {"std::", MATCH_PREFIX}, /* also C++'s std::allocator, std::vector::_M_... */
    {"<std::", MATCH_PREFIX},
    {"hashbrown::", MATCH_PREFIX},
    {"<hashbrown::", MATCH_PREFIX},
    {"__rust", MATCH_PREFIX},
    {"__rg_", MATCH_PREFIX},
    {"__rdl_", MATCH_PREFIX}, /* the default global allocator's shims */
    {"dhat::", MATCH_PREFIX},
    {"<dhat::", MATCH_PREFIX}, /* dhat-rs keeps "<dhat::Alloc as ...GlobalAlloc>::alloc" */
    /* C allocator entry points and libc helpers that allocate */
    {"malloc", MATCH_SYMBOL},
    {"realloc", MATCH_SYMBOL},
    {"calloc", MATCH_SYMBOL},
    {"reallocarray", MATCH_SYMBOL},
    {"free", MATCH_SYMBOL},
    {"posix_memalign", MATCH_SYMBOL},
    {"aligned_alloc", MATCH_SYMBOL},
    {"memalign", MATCH_SYMBOL},
    {"valloc", MATCH_SYMBOL},
    {"pvalloc", MATCH_SYMBOL},
    {"strdup", MATCH_SYMBOL},
    {"strndup", MATCH_SYMBOL},
    {"asprintf", MATCH_SYMBOL},
    {"vasprintf", MATCH_SYMBOL},
    {"getline", MATCH_SYMBOL},
    {"getdelim", MATCH_SYMBOL},
    {"open_memstream", MATCH_SYMBOL},
    /* glibc internals */
    {"__libc_", MATCH_PREFIX},
    {"_int_", MATCH_PREFIX},
    {"__GI_", MATCH_PREFIX},
    {"tcache_", MATCH_PREFIX},
    {"sysmalloc", MATCH_SYMBOL},
    /* Valgrind copy mode's replaced functions: the site is their caller */
    {"memcpy", MATCH_SYMBOL},
    {"memmove", MATCH_SYMBOL},
    {"mempcpy", MATCH_SYMBOL},
    {"bcopy", MATCH_SYMBOL},
    {"strcpy", MATCH_SYMBOL},
    {"strncpy", MATCH_SYMBOL},
    {"strlcpy", MATCH_SYMBOL},
    {"stpcpy", MATCH_SYMBOL},
    {"stpncpy", MATCH_SYMBOL},
    {"wcscpy", MATCH_SYMBOL},
    {"__memcpy_chk", MATCH_SYMBOL},
    {"__memmove_chk", MATCH_SYMBOL},
    {"__strcpy_chk", MATCH_SYMBOL},
    {"__stpcpy_chk", MATCH_SYMBOL},
    /* C++: operator new/new[]/delete demangled or not, libstdc++'s allocators */
    {"operator new", MATCH_PREFIX},
    {"operator delete", MATCH_PREFIX},
    {"_Znw", MATCH_PREFIX}, /* _Znwm, _ZnwmRKSt9nothrow_t, _ZnwmSt11align_val_t */
    {"_Zna", MATCH_PREFIX}, /* _Znam ... */
    {"_Zdl", MATCH_PREFIX},
    {"_Zda", MATCH_PREFIX},
    {"__gnu_cxx::new_allocator", MATCH_PREFIX},
    {"__gnu_cxx::__new_allocator", MATCH_PREFIX},
    {"__gnu_cxx::__alloc_traits", MATCH_PREFIX},
    /* CPython: obmalloc (pymalloc) and the PyMem_/PyObject_ allocator families */
    {"PyMem_", MATCH_PREFIX},
    {"_PyMem_", MATCH_PREFIX},
    {"PyObject_Malloc", MATCH_SYMBOL},
    {"PyObject_Calloc", MATCH_SYMBOL},
    {"PyObject_Realloc", MATCH_SYMBOL},
    {"_PyObject_Malloc", MATCH_SYMBOL},
    {"_PyObject_Calloc", MATCH_SYMBOL},
    {"_PyObject_Realloc", MATCH_SYMBOL},
    {"pymalloc_", MATCH_PREFIX},
    {"allocate_from_new_pool", MATCH_SYMBOL},
    {"_PyObject_GC_New", MATCH_PREFIX}, /* _PyObject_GC_New, _PyObject_GC_NewVar */
    {"_PyObject_GC_Resize", MATCH_SYMBOL},
    {"gc_alloc", MATCH_SYMBOL},
    {"new_arena", MATCH_SYMBOL},
    {"arena_map_", MATCH_PREFIX}, /* obmalloc's radix tree of arenas */
    {"_PyObject_GC_Link", MATCH_SYMBOL},
    /* ...and the generic "an object of this type" allocators: the site is the type's code
     * (PyUnicode_New, list_resize, _PyCode_New), not the allocator it went through */
    {"_PyObject_New", MATCH_SYMBOL},
    {"_PyObject_NewVar", MATCH_SYMBOL},
    {"PyType_GenericAlloc", MATCH_SYMBOL},
    {"_PyType_AllocNoTrack", MATCH_SYMBOL},
    /* glib */
    {"g_malloc", MATCH_PREFIX}, /* g_malloc, g_malloc0, g_malloc_n, g_malloc0_n */
    {"g_try_malloc", MATCH_PREFIX},
    {"g_realloc", MATCH_PREFIX},
    {"g_try_realloc", MATCH_PREFIX},
    {"g_slice_alloc", MATCH_PREFIX},
    {"g_memdup", MATCH_PREFIX},
    {"g_strdup", MATCH_SYMBOL},
    {"g_strndup", MATCH_SYMBOL},
};

bool plumbing__match(const char *frame, const char *pat, bool whole)
{
	size_t n = strlen(pat);

	if (strncmp(frame, pat, n))
		return false;
	if (!whole)
		return true;
	/* The symbol ends at the " (file:line)" / " (in obj)" suffix, or at a symbol version. */
	return frame[n] == '\0' || frame[n] == ' ' || frame[n] == '@';
}

bool plumbing__builtin(const char *frame)
{
	for (size_t i = 0; i < sizeof(TABLE) / sizeof(TABLE[0]); i++)
		if (plumbing__match(frame, TABLE[i].pat, TABLE[i].how == MATCH_SYMBOL))
			return true;
	return false;
}

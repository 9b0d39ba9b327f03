/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * demangle - turns a linkage name into the name a person reads, or says it cannot:
 *
 *	Rust legacy	_ZN4core3ptr13drop_in_place17h0123456789abcdefE
 *			-> core::ptr::drop_in_place
 *	Rust v0		_RNvMNtCs1a2b_5alloc3vecINtB2_3VecpE4push
 *			-> <alloc::vec::Vec<_>>::push
 *	C++ (Itanium)	_ZNSt6vectorIiSaIiEE9push_backERKi
 *			-> std::vector<int, std::allocator<int> >::push_back(int const&)
 *
 * Rust names are printed as rustc-demangle's alternate form ("{:#}", what rustfilt prints):
 * no legacy hash, no v0 crate disambiguator, no type suffix on const generics; a
 * trailing ".llvm.HEX" is dropped and other "."-suffixes are kept. A v0 feature this module
 * does not print (punycode identifiers, non-ASCII constants) makes it answer "cannot".
 * C++ names go to libstdc++'s __cxa_demangle (the demangler of c++filt and Valgrind) after a
 * size check that keeps its output bounded and a check for names it never returns on; see
 * demangle.c.
 *
 * Every input is treated as hostile: lengths, recursion depth, work and output are bounded.
 */
#ifndef TRACER_DEMANGLE_H
#define TRACER_DEMANGLE_H

#include <stddef.h>

/* Longest name (bytes) this module looks at; longer ones are left as they are. */
#define DEMANGLE_MAX_IN 4096
/* Longest readable name (bytes) it returns; a longer result counts as "cannot". */
#define DEMANGLE_MAX_OUT 16384

/*
 * The readable form of the linkage name sym: a new string the caller frees. NULL when sym
 * is not a mangled name, is malformed or uses something not supported (errno EINVAL), or
 * memory ran out (errno ENOMEM); the caller then shows sym itself. Names that are not
 * mangled ("malloc", "main") always give NULL, so they pass through untouched.
 */
char *demangle__name(const char *sym);

#endif

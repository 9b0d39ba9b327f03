/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * plumbing - the ONE table of allocation plumbing: allocator entry points and the runtime
 * layers between a program and malloc (glibc internals, C++ operator new and std::allocator,
 * the Rust alloc::/hashbrown::raw/RawVec layers, CPython's obmalloc and PyMem_*, glib's
 * g_malloc). A frame matching it is not worth naming as an allocation site.
 *
 * Used by report (its site names, `--skip`, `--no-default-skip`) and by the exporters,
 * which leave these frames out of pprof and folded stacks unless asked to keep them.
 * Frames are matched after their "0xADDR: " prefix is removed ("malloc (in /lib/libc.so.6)").
 */
#ifndef TRACER_PLUMBING_H
#define TRACER_PLUMBING_H

#include <stdbool.h>

/* Does frame match pattern pat? whole: pat is a symbol that must end where the frame's
 * symbol ends (at NUL, ' ' or a '@' symbol version); otherwise pat is a prefix. */
bool plumbing__match(const char *frame, const char *pat, bool whole);

/* Does frame match any entry of the built-in table? */
bool plumbing__builtin(const char *frame);

#endif

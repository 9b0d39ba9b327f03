/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * window_symbol - what `--start-at`/`--stop-at` name: "NAME" (in the target's executable) or
 * "PATH:NAME", where NAME is an ELF symbol ("_ZN3app9leak_some17h…E", "leak_some") or the
 * demangled name a report shows ("app::leak_some", "ns::Cls::run", "ns::Cls::run(int)"). A
 * "::" is part of a name, never the PATH separator. Pure ELF reading, no BPF.
 */
#ifndef TRACER_WINDOW_SYMBOL_H
#define TRACER_WINDOW_SYMBOL_H

#include <stddef.h>

/* Split spec into the file (executable for a bare NAME) and the name: the separator is the
 * last ':' that is not next to another ':'. *name points into spec. */
void window_symbol__split(const char *spec, const char *executable, char *path, size_t path_sz,
			  const char **name);

/*
 * The ELF symbol of function `name` in the file at path, into sym (sym_sz bytes): name itself
 * when a function symbol is called so; else the one whose demangled name (demangle.h) is name,
 * or is name followed by a C++ parameter list ("ns::f" finds "ns::f(int)"). Among several
 * matches at different addresses, the first in the file wins and *ambiguous is set.
 * The file is opened through safe_open (regular files only, as the sudo user). Returns 0,
 * -ENOENT (no such function or file), -ENOEXEC (not ELF), -ENAMETOOLONG (sym too small) or
 * safe_open__read's -errno.
 */
int window_symbol__resolve(const char *path, const char *name, char *sym, size_t sym_sz,
			   int *ambiguous);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_layout_source - the layout one process gets (py_layouts.h): the generated table's entry
 * of its minor version; for 3.13 the _Py_DebugOffsets at the start of its _PyRuntime (cookie
 * "xdebugpy") replace the table's offsets for every field they describe.
 */
#ifndef TRACER_PY_LAYOUT_SOURCE_H
#define TRACER_PY_LAYOUT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "py_layouts.h"

/* The bytes of 3.13's _Py_DebugOffsets (read this many from _PyRuntime). */
size_t py_debug_offsets__size(void);

/* Apply 3.13's _Py_DebugOffsets in buf (len bytes read from the start of _PyRuntime) to *l.
 * 0; -EPROTO when the cookie is not "xdebugpy", -ERANGE when an offset does not fit the
 * layout's 16 bits or runs past the struct size the offsets themselves give, -ENOTSUP when
 * the offsets are of another minor version than 3.13 (*found_version: theirs) or of a
 * free-threaded build. */
int py_debug_offsets__apply(const void *buf, size_t len, struct py_version_layout *l,
			    unsigned int *found_version);

/* The layout of pid (version major << 8 | minor, _PyRuntime at runtime_addr) into *out, with
 * runtime_addr set. 0 or -ENOTSUP (no table entry and no usable debug offsets: *why says
 * which, one line), or a read's -errno. *from_debug: the debug offsets were used. */
int py_layout_source__get(pid_t pid, unsigned int version, __u64 runtime_addr,
			  struct py_version_layout *out, bool *from_debug, char *why,
			  size_t why_sz);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * python_only - `report --python-only` and `export --python-only` (issue #32): a profile's
 * program points seen at the Python level. A program point with Python frames ("py: QUALNAME
 * (FILE:LINE)", spliced in by the tracer at the interpreter's evaluation loop) keeps those
 * alone: the native frames between and around them (CPython's own C functions, the
 * allocator) are folded away, so its row is named by the Python line that allocated.
 * Program points left with the same frames are merged into the first of them (figures
 * added as the writer merges: mb/mbk the largest), the others left empty (no frames, no
 * bytes) so that every index into pps (threads, sizes, arenas) stays valid; those indices
 * are moved to the merged point. Program points without Python frames stay as they are.
 */
#ifndef TRACER_PYTHON_ONLY_H
#define TRACER_PYTHON_ONLY_H

#include <stdbool.h>
#include <stddef.h>

#include "dhat_reader.h"

/* Is frame text a Python frame ("py: ...", as the tracer writes them)? */
bool python_only__is_py_frame(const char *frame);

/* Fold p in place as above. Returns the number of program points with Python frames, or
 * -ENOMEM (p unchanged). */
int python_only__fold(struct dhat_profile *p);

#endif

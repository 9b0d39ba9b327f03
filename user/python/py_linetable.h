/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_linetable - a code object's line table to the line of one instruction: the three formats
 * CPython has used, decoded from bytes copied out of the target (so every read is bounded by
 * len, and a malformed table ends the walk instead of overrunning it).
 */
#ifndef TRACER_PY_LINETABLE_H
#define TRACER_PY_LINETABLE_H

#include <stddef.h>
#include <linux/types.h>

enum py_linetable_kind {
	PY_LT_LNOTAB,	 /* 3.8, 3.9 co_lnotab: (address delta, signed line delta) byte pairs */
	PY_LT_PEP626,	 /* 3.10 co_linetable: (length in bytes, signed line delta or -128) */
	PY_LT_LOCATIONS, /* 3.11+ co_linetable: the location table (Objects/locations.md) */
};

/* The format of version (major << 8 | minor). */
enum py_linetable_kind py_linetable__kind(unsigned int version);

/* The line of the instruction at byte offset off (code units times 2) of a code object whose
 * co_firstlineno is firstlineno; -1 when the table gives it no line (or does not reach it). */
int py_linetable__line(enum py_linetable_kind kind, const __u8 *tab, size_t len, int firstlineno,
		       __u32 off);

#endif

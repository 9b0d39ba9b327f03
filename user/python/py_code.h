/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * py_code - a recorded frame's code object, read from the live target, to
 * "py: QUALNAME (FILE:LINE)". What a code object gives (names, file, line table) is read once
 * and cached by its address; each later use re-reads the object's head in one read and checks
 * that it is still a code object with the same fields, so a freed and reused address is read
 * afresh, never named from the old entry. Bounded: 4096 entries, direct-mapped.
 */
#ifndef TRACER_PY_CODE_H
#define TRACER_PY_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "py_layouts.h"

/* The process the code objects live in. */
struct py_code_target {
	pid_t pid;
	const struct py_version_layout *l;
	__u64 code_type;    /* &PyCode_Type in the target */
	__u64 unicode_type; /* &PyUnicode_Type in the target (0: not checked) */
};

struct py_code_cache;

/* A new, empty cache, or NULL (errno set). Free with py_code_cache__free. */
struct py_code_cache *py_code_cache__new(void);

/* Free c. Accepts NULL. */
void py_code_cache__free(struct py_code_cache *c);

/* Name f into buf (len > 0) as "py: QUALNAME (FILE:LINE)" (co_name before 3.11, which has no
 * qualified name; LINE 0 when the line table gives the instruction none), made
 * terminal-safe and truncated to fit. false when the code object cannot be read or is not
 * one (buf then holds ""). */
bool py_code__name(struct py_code_cache *c, const struct py_code_target *t,
		   const struct py_frame *f, char *buf, size_t len);

/* Counters of a cache, for tests and -v. */
struct py_code_stats {
	unsigned long hits;    /* named from a still-valid entry */
	unsigned long fills;   /* entries read from the target */
	unsigned long refused; /* not a code object, or unreadable */
};
void py_code_cache__stats(const struct py_code_cache *c, struct py_code_stats *out);

#endif

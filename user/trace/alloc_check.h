/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * alloc_check - no silent empty profile: after a trace, name a traced image whose
 * allocator probes never fired, with the likely cause and what to do about it (issue #15).
 * Plain data in, a message out: unit-testable without BPF.
 */
#ifndef TRACER_ALLOC_CHECK_H
#define TRACER_ALLOC_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "alloc_symbols.h"

struct alloc_check_in {
	pid_t pid;			  /* the traced image's process */
	const char *cmd;		  /* its command line (the first word names it) */
	const struct alloc_symbols *syms; /* what was probed (loader__alloc_symbols) */
	bool hit[FN_COUNT];		  /* fn's probe fired at least once */
	const char *lib;		  /* --lib PATH given, or NULL */
};

/* Whether no probe of in fired (the case alloc_check__warn writes about). */
bool alloc_check__silent(const struct alloc_check_in *in);

/* Write "tracer: warning: ..." to out when no probe of in fired. Returns true if written. */
bool alloc_check__warn(FILE *out, const struct alloc_check_in *in);

#endif

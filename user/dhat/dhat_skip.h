/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dhat_skip - the --skip patterns a trace was run with, recorded in the file as one extra
 * top-level array that dh_view ignores (it reads only the keys it knows):
 *
 *   ,"skip":["jv_mem_alloc","=sqlite3Malloc"]
 *
 * Each pattern has report's --skip syntax (site.h): "PREFIX" or "=NAME". `tracer report` and
 * `tracer export` apply them by default, after their own; --no-recorded-skip ignores them.
 * Written only when there is a pattern, so a trace without --skip writes what it always did.
 * The reader is lenient, as for "lost": an element that is not a string is skipped.
 */
#ifndef TRACER_DHAT_SKIP_H
#define TRACER_DHAT_SKIP_H

#include <stddef.h>
#include <stdio.h>

/* The top-level key. */
#define DHAT_SKIP_KEY "skip"

/* A file's recorded patterns (the reader's copy: pattern strings owned). */
/* Patterns kept from a file, as many as --skip takes on the command line (CLI_MAX_SKIP). */
#define DHAT_SKIP_MAX 64

struct dhat_skip {
	char **pat;
	size_t cnt, cap;
};

/* ,"skip":[...]\n with the cnt patterns; nothing when cnt is 0. */
void dhat_skip__write(FILE *f, const char *const *pat, size_t cnt);

/* Append one read pattern (copied; past DHAT_SKIP_MAX ignored). 0 or -ENOMEM. */
int dhat_skip__add(struct dhat_skip *s, const char *pat);

void dhat_skip__release(struct dhat_skip *s);

#endif

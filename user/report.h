/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report - reads a DHAT v2 heap file (ours, Valgrind's, dhat-rs's) and prints the seed's
 * summary: totals and per-iteration figures, peak live blocks/bytes, and the top program
 * points by total bytes and by allocation count, each named by its first non-plumbing frame
 * plus one caller. Used after every traced workload and by `tracer report`.
 */
#ifndef TRACER_REPORT_H
#define TRACER_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct report_opts {
	const char *title;   /* heading (workload name); NULL: the file name */
	const char *unit;    /* what one iteration is; NULL: omit the unit line */
	unsigned long iterations; /* divisor for per-iteration figures; 0: omit them */
	size_t top;	     /* rows per table; 0: 12, as the seed */
	/* Extra plumbing patterns (a later --skip PATTERN), added to the built-in table:
	 * "PREFIX" hides every frame whose symbol starts with PREFIX; "=NAME" hides frames
	 * whose symbol is exactly NAME. NULL/0: none. */
	const char *const *skip;
	size_t skip_cnt;
};

struct dhat_profile;

/* Print the summary of an already loaded profile p (see dhat_reader.h) to out.
 * Returns 0 or -errno (-ENOMEM). */
int report__print(FILE *out, const struct dhat_profile *p, const struct report_opts *opts);

/* Read path and print its summary to out. On error returns -errno (or -EINVAL for bad
 * content) and writes a one-line message, with the location, into err. */
int report__print_file(FILE *out, const char *path, const struct report_opts *opts, char *err,
		       size_t errsz);

#endif

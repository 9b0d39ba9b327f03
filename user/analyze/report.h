/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report - reads a DHAT v2 file (ours, Valgrind's "heap"/"copy"/"ad-hoc", dhat-rs's
 * "rust-heap"/"rust-ad-hoc") and prints the seed's summary: totals and per-iteration figures,
 * peak and end live blocks/bytes (when the file has block lifetimes), reads/writes (when it
 * has accesses), the top program points by total bytes and by count, each named by its
 * first non-plumbing frame plus one caller, and the sites still live at the end (leak
 * suspects), rows named as site.h names them. Byte figures in KiB/MiB unless exact_bytes.
 * Used after every traced workload and by `tracer report`.
 */
#ifndef TRACER_REPORT_H
#define TRACER_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "site.h"

/* The metric of the optional third table (text) and of the row order (JSON). */
enum report_sort {
	REPORT_SORT_DEFAULT = 0,  /* text: no third table; JSON: total-bytes */
	REPORT_SORT_TOTAL_BYTES,  /* tb */
	REPORT_SORT_TOTAL_BLOCKS, /* tbk */
	REPORT_SORT_PEAK,	  /* gb: bytes live at t-gmax (needs bklt) */
	REPORT_SORT_END,	  /* eb: bytes live at t-end (needs bklt) */
	REPORT_SORT_LIFETIME,	  /* tl/tbk: average block lifetime (needs bklt) */
};

struct suppress;

struct report_opts {
	const char *title;	  /* heading (workload name); NULL: the file name */
	const char *unit;	  /* what one iteration is; NULL: omit the unit line */
	unsigned long iterations; /* divisor for per-iteration figures; 0: omit them */
	size_t top;		  /* rows per table; 0: 12 as the seed (JSON: all rows) */
	struct site_opts site;	  /* which frames are plumbing (--skip, --no-default-skip) */
	enum report_sort sort; /* see enum report_sort */
	bool json;	       /* one JSON object instead of the text summary */
	bool exact_bytes;      /* --bytes: byte figures as exact integers, not KiB/MiB/... */
	bool no_recorded_skip; /* ignore the file's recorded --skip patterns (dhat_skip.h) */
	bool by_thread;	       /* --by-thread: live, total and peak per thread, named */
	bool sizes;	       /* --sizes: allocation sizes in power-of-two buckets */
	bool leaks_only;       /* --leaks: only the leak suspects, each with its whole stack */
	const struct suppress *supp; /* --suppressions; NULL: the built-in list alone */
	bool warn_lost;	       /* report__print_file: first warn on stderr when the file
				* records what its trace lost (dhat_lost.h) */
	bool python_only;      /* report__print_file: --python-only (python_only.h) */
};

struct dhat_profile;

/* Print the summary of an already loaded profile p (see dhat_reader.h) to out, as text or
 * (opts->json) as JSON. A --sort that needs block lifetimes on a file without them adds
 * no table. Returns 0 or -errno (-ENOMEM, -EIO). */
int report__print(FILE *out, const struct dhat_profile *p, const struct report_opts *opts);

/* Read path and print its summary to out (after the warning of opts->warn_lost). On error
 * returns -errno (-EINVAL for bad content or a --sort the file cannot answer) and writes a
 * one-line message, with the location, into err. */
int report__print_file(FILE *out, const char *path, const struct report_opts *opts, char *err,
		       size_t errsz);

/* --sort names: "total-bytes", "total-blocks", "peak", "end", "lifetime". Returns 0 or
 * -EINVAL. */
int report__parse_sort(const char *name, enum report_sort *out);
const char *report__sort_name(enum report_sort sort);


#endif

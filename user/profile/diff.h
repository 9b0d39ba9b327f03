/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * diff - compares two DHAT v2 files (any producer) program point by program point.
 *
 * PPs are matched by their frame TEXT with the "0xADDR: " prefixes stripped, because
 * addresses differ between runs (ASLR, rebuilds); PPs of one file that collapse to the same
 * text are summed. For each matched stack and in total: blocks, bytes, peak (Σgb) and end
 * bytes (Σeb), old -> new. Rows present in only one file are "added" or "removed". Used by
 * `tracer diff OLD NEW`.
 */
#ifndef TRACER_DIFF_H
#define TRACER_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dhat_profile;
struct report_opts;

/* Row order: by the absolute change of this metric, largest first. */
enum diff_sort {
	DIFF_SORT_BYTES = 0, /* Δtb (default) */
	DIFF_SORT_BLOCKS,    /* Δtbk */
	DIFF_SORT_PEAK,	     /* Δgb */
	DIFF_SORT_END,	     /* Δeb */
};

struct diff_opts {
	size_t top; /* rows shown; 0: 12 (JSON: every changed row) */
	enum diff_sort sort;
	bool json; /* one JSON object instead of the text */
	/* Plumbing for the site column (skip, no_default_skip); NULL: the built-in table. */
	const struct report_opts *attr;
};

/* One side of a matched stack: the sums of its PPs in one file. */
struct diff_side {
	uint64_t tb, tbk, tl, gb, gbk, eb, ebk;
	size_t pp_cnt; /* PPs summed; 0: the stack is absent from this file */
};

enum diff_status { DIFF_UNCHANGED, DIFF_CHANGED, DIFF_ADDED, DIFF_REMOVED };

struct diff_row {
	const char *key; /* cleaned frames joined by '\x1f' (in the diff's keys) */
	char *site; /* first non-plumbing frame + caller (owned) */
	struct diff_side old, new;
	enum diff_status status;
};

struct diff {
	const struct dhat_profile *old, *new; /* borrowed: must outlive the diff */
	struct diff_row *rows;		      /* every stack of either file, file order */
	size_t row_cnt;
	struct strtab *keys; /* row i's key is keys->strs[i] */
	size_t changed_cnt, added_cnt, removed_cnt, unchanged_cnt; /* changed includes neither */
};

/* Match old and new (borrowed). Returns NULL and sets errno (ENOMEM) on failure. */
struct diff *diff__new(const struct dhat_profile *old, const struct dhat_profile *new,
		       const struct report_opts *attr);

/* Accepts NULL. */
void diff__free(struct diff *d);

/* Print d as text or JSON (opts->json). Returns 0 or -errno (-ENOMEM, -EIO). */
int diff__print(FILE *out, const struct diff *d, const struct diff_opts *opts);

/* Load both files and print their diff. On error returns -errno (-EINVAL for bad content)
 * and writes a one-line message naming the file and the location into err. */
int diff__print_files(FILE *out, const char *old_path, const char *new_path,
		      const struct diff_opts *opts, char *err, size_t errsz);

/* --sort names for diff: "bytes", "blocks", "peak", "end". Returns 0 or -EINVAL. */
int diff__parse_sort(const char *name, enum diff_sort *out);

#endif

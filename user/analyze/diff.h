/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * diff - compares two DHAT v2 files (any producer) program point by program point.
 *
 * PPs are matched by a key made of their frames, "0xADDR: " prefixes always stripped
 * (addresses differ between runs: ASLR, rebuilds):
 *   DIFF_MATCH_FUNCTION (default): function names only, so a rebuild whose lines moved
 *	matches itself; an unnamed frame keeps its object's basename ("??? (in libc.so.6)").
 *   DIFF_MATCH_LINE: the frame text, "fn (file:line)".
 * Stacks are cut to `depth` innermost frames first: Valgrind keeps 12 frames and our stacks
 * are deeper, so between different producers the default depth is the shallower file's.
 * PPs of one file with the same key are summed. For each matched stack and in total:
 * blocks, bytes, peak (Σgb) and end bytes (Σeb), old -> new. Rows present in only one file
 * are "added" or "removed". Rows are shown with the frame text of a representative PP (the
 * NEW file's when it has one), lines included. Used by `tracer diff OLD NEW`, which also
 * checks --fail-if thresholds (diff__check) for CI.
 */
#ifndef TRACER_DIFF_H
#define TRACER_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dhat_profile;
struct site_opts;

/* Row order: by the absolute change of this metric, largest first. */
enum diff_sort {
	DIFF_SORT_BYTES = 0, /* Δtb (default) */
	DIFF_SORT_BLOCKS,    /* Δtbk */
	DIFF_SORT_PEAK,	     /* Δgb */
	DIFF_SORT_END,	     /* Δeb */
};

/* What frames must agree on for two PPs to match. */
enum diff_match {
	DIFF_MATCH_FUNCTION = 0, /* function names (default) */
	DIFF_MATCH_LINE,	 /* function names and file:line */
};

/* Output of diff__print (DIFF_FMT_SVG is the CLI's: export_diff.h draws it). */
enum diff_format {
	DIFF_FMT_TEXT = 0,
	DIFF_FMT_JSON,
	DIFF_FMT_MARKDOWN, /* GitHub-flavoured tables, to paste into a pull request */
	DIFF_FMT_SVG,	   /* differential flame graph */
};

struct diff_opts {
	size_t top; /* rows shown; 0: 12 (JSON: every changed row) */
	enum diff_sort sort;
	bool json; /* one JSON object instead of the text (same as format DIFF_FMT_JSON) */
	enum diff_format format;
	enum diff_match match;
	/* Frames compared, innermost first; 0: all, or the shallower file's deepest stack when
	 * the producers differ (see diff__default_depth). */
	size_t depth;
	/* Plumbing for the site column (--skip, --no-default-skip); NULL: the built-in table. */
	const struct site_opts *site;
};

/* One side of a matched stack: the sums of its PPs in one file. */
struct diff_side {
	uint64_t tb, tbk, tl, gb, gbk, eb, ebk;
	double tb_var, tbk_var; /* sampled files: variances of tb and tbk (Σ tbSe^2, Σ tbkSe^2) */
	size_t pp_cnt;		/* PPs summed; 0: the stack is absent from this file */
};

/* Between the frames of a row's key and frames: absent from real frame text. */
#define DIFF_KEY_SEP '\x1f'

enum diff_status { DIFF_UNCHANGED, DIFF_CHANGED, DIFF_ADDED, DIFF_REMOVED };

struct diff_row {
	const char *key; /* matched frames joined by '\x1f' (in the diff's keys) */
	char *frames;	 /* the representative PPs' cleaned frames, same count, '\x1f' (owned):
			  * NEW's, a moved line as "f (a.c:10 -> a.c:12)" (diff.c row_frames) */
	char *site;	 /* first non-plumbing frame + caller (owned) */
	struct diff_side old, new;
	enum diff_status status;
	size_t old_rep, new_rep; /* each side's PP of most bytes, + 1 (0: none) */
};

struct diff {
	const struct dhat_profile *old, *new; /* borrowed: must outlive the diff */
	struct diff_row *rows;		      /* every stack of either file, file order */
	size_t row_cnt;
	struct strtab *keys; /* row i's key is keys->strs[i] */
	size_t changed_cnt, added_cnt, removed_cnt, unchanged_cnt; /* changed includes neither */
	enum diff_match match;
	size_t depth;	      /* frames compared; 0: all */
	bool depth_defaulted; /* depth chosen by diff__default_depth, not given */
};

/* Match old and new (borrowed) under opts (match, depth, attr; NULL: defaults). Returns
 * NULL and sets errno (ENOMEM) on failure. */
struct diff *diff__new(const struct dhat_profile *old, const struct dhat_profile *new,
		       const struct diff_opts *opts);

/* The depth compared when none is given: 0 (all frames) when both files come from the same
 * producer (by their "mode": ours "ebpf-*", dhat-rs "rust-*", Valgrind the rest), else the
 * deepest stack of the shallower file, so that a producer's frame limit (Valgrind's 12)
 * does not turn every stack into added + removed. */
size_t diff__default_depth(const struct dhat_profile *old, const struct dhat_profile *new);

/* Accepts NULL. */
void diff__free(struct diff *d);

/* Print d as text, JSON or Markdown (opts->format; opts->json means JSON). DIFF_FMT_SVG:
 * -EINVAL. Returns 0 or -errno (-ENOMEM, -EIO). */
int diff__print(FILE *out, const struct diff *d, const struct diff_opts *opts);

/* Load both files and print their diff. On error returns -errno (-EINVAL for bad content)
 * and writes a one-line message naming the file and the location into err. */
int diff__print_files(FILE *out, const char *old_path, const char *new_path,
		      const struct diff_opts *opts, char *err, size_t errsz);

/* --sort names for diff: "bytes", "blocks", "peak", "end". Returns 0 or -EINVAL. */
int diff__parse_sort(const char *name, enum diff_sort *out);

/* --match names: "function", "line". --format names: "text", "json", "markdown", "svg".
 * Return 0 or -EINVAL. */
int diff__parse_match(const char *name, enum diff_match *out);
int diff__parse_format(const char *name, enum diff_format *out);

/* ---- --fail-if ------------------------------------------------------------------------ */

/*
 * A CI threshold, "METRIC>+N%" or "METRIC>+SIZE": exceeded when NEW - OLD is more than N
 * percent of OLD, or more than SIZE (units.h: 1000, 512K, 1.5MiB, 2G; powers of 1024).
 * METRIC: total-bytes, total-blocks, peak-bytes (live at t-gmax), end-bytes (live at t-end),
 * or the same prefixed "site-" (site-total-bytes), checked for every program point. A
 * percentage is exceeded by any growth from 0 (a site only NEW has).
 */
enum diff_metric { DIFF_M_BYTES = 0, DIFF_M_BLOCKS, DIFF_M_PEAK, DIFF_M_END };

struct diff_threshold {
	const char *text; /* as given (borrowed) */
	enum diff_metric metric;
	bool site;	    /* per program point, not the totals */
	bool pct;	    /* limit is a percentage of OLD */
	double pct_limit;   /* percent, when pct */
	uint64_t abs_limit; /* bytes or blocks, when !pct */
};

/* Metric m of one side of a row (tb, tbk, gb or eb). */
uint64_t diff_side__value(const struct diff_side *s, enum diff_metric m);

/* The sampling noise of a row's change of tb or tbk (metric DIFF_M_BYTES or DIFF_M_BLOCKS;
 * 0 for the others and between exact files): the half width of its 95% interval,
 * 1.96 sqrt(old variance + new variance) (dhat_sampled.h). */
double diff_row__noise(const struct diff_row *r, enum diff_metric m);

/* A row whose change of tb is no larger than its noise: sampled files that may not differ. */
bool diff_row__within_noise(const struct diff_row *r);

/* Parse text into *t. On a bad expression returns -EINVAL and writes one line into err. */
int diff_threshold__parse(const char *text, struct diff_threshold *t, char *err, size_t errsz);

/* Check n thresholds against d. For each one exceeded writes a line to msgs unless it is
 * NULL (what, old -> new, and for site-* the worst site), and counts it in *exceeded. Peak
 * and end metrics need block lifetimes in both files: -EINVAL and one line in err
 * otherwise. Returns 0 or -errno. */
int diff__check(const struct diff *d, const struct diff_threshold *t, size_t n, FILE *msgs,
		size_t *exceeded, char *err, size_t errsz);

#endif

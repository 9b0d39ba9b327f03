/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * site - what a program point is called: the ONE rule behind every row the tracer prints
 * (report, diff, --interval, the mapped-memory sites of the live trace).
 *
 * A program point is a stack of frames, innermost first, as DHAT's frame table writes them
 * ("0x4005F3: sb_add (util.c:43)"). Its site is
 *   1. each frame cleaned of its "0xADDR: " prefix (site__clean_frame);
 *   2. recursion folded: a run of frames of one function keeps its innermost (site__fold);
 *   3. the first frame that is not allocation plumbing (site__is_plumbing: plumbing.h's
 *      table plus --skip patterns), and its caller, joined by "  <-  " (site__name);
 *      "<unattributed>" for an empty stack; template argument lists longer than 24 bytes
 *      shown as "<…>" (std::vector<…>::_M_realloc_insert<…>), short ones kept.
 * Distinct program points often share a site (sb_add called from five places). A set of
 * them named together (site_names__name) gives each the tail that tells it apart:
 *	"site  [frame]"			the first differing frame is below the site
 *	"site  <-  ...  <-  #N frame"	it is above the site's caller, N callers up
 *	"site  [at 0xA 0xB]"		the cleaned stacks are equal (twins): raw addresses
 *	"site (2)"			nothing shown differs (recursion of other depths)
 */
#ifndef TRACER_SITE_H
#define TRACER_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SITE_SEP "  <-  "

/* Which frames are plumbing besides the built-in table. */
struct site_opts {
	/* --skip PATTERN: "PREFIX" hides every frame whose symbol starts with PREFIX; "=NAME"
	 * hides frames whose symbol is exactly NAME. NULL/0: none. */
	const char *const *skip;
	size_t skip_cnt;
	bool no_default_skip; /* ignore the built-in C/C++/Rust plumbing table */
};

/* raw without its "0xADDR: " prefix (Valgrind's 0x10918F, dhat-rs's 0x55..f1), so that
 * "symbol (file:line)" remains; raw itself when there is no such prefix. */
const char *site__clean_frame(const char *raw);

/* Whether a cleaned frame is allocation plumbing under opts (NULL: the built-in table). */
bool site__is_plumbing(const char *frame, const struct site_opts *opts);

/* Fold recursion in place: a run of consecutive frames of one function (the same text before
 * " (file:line)"; "???" never) keeps its innermost frame. Returns the new count. */
size_t site__fold(const char **frames, size_t cnt);

/* Index of the frame a site starts with: the first non-plumbing one, or 0. */
size_t site__head(const char *const *frames, size_t cnt, const struct site_opts *opts);

/* The site of a stack of cleaned frames (innermost first), recursion folded first. Returns a
 * new string (caller frees) or NULL. */
char *site__name(const char *const *frames, size_t cnt, const struct site_opts *opts);

/* ---- naming a set of program points ------------------------------------------------ */

enum site_tail_kind {
	SITE_TAIL_NONE,
	SITE_TAIL_TEXT,	 /* s is the text */
	SITE_TAIL_BELOW, /* "  [s]" */
	SITE_TAIL_ABOVE, /* "  <-  #n s", or "  <-  ...  <-  #n s" when n > 2 */
};

/* What follows a row's site in its text. Nearly every row of a file of shallow stacks has
 * one, and its frame is most of it: kept as the frame's pointer, not a copy of the text. */
struct site_tail {
	const char *s; /* SITE_TAIL_TEXT: in the site_names' pool; else a cleaned frame of the
			  caller's (borrowed) */
	uint32_t n;    /* SITE_TAIL_ABOVE: callers above the site */
	enum site_tail_kind kind;
};

/* One program point as its row is named. Many are held at once, so it stays small: its text
 * is the site, shared by every row of that site (interned), plus its own tail. */
struct site_row {
	const void *item;      /* the caller's program point: what site_frames reads */
	uint64_t tb, tbk;      /* set by the caller: orders rows whose texts stay equal */
	const char *site;      /* set by site_names__name; interned in its table */
	struct site_tail tail; /* set by site_names__name */
};

/* How the raw frames (innermost first) of a row's item are read. */
struct site_frames {
	const char *(*at)(const void *ctx, const void *item, size_t i);
	size_t (*cnt)(const void *ctx, const void *item);
	const void *ctx;
};

/* The texts a set of named rows point into. */
struct site_names;

struct site_names *site_names__new(void);
void site_names__free(struct site_names *sn);

/* Name rows[0..n) (their item, tb and tbk set): each gets its site and the tail that tells
 * it from the rows of the same site; rows[] is reordered. The texts live in sn, the frames
 * they borrow in the caller's items. Returns 0 or -ENOMEM. */
int site_names__name(struct site_names *sn, struct site_row **rows, size_t n,
		     const struct site_frames *src, const struct site_opts *opts);

/* Row texts (site and tail) compared as strcmp would compare them whole. */
int site_row__cmp(const struct site_row *a, const struct site_row *b);

/* Most pieces of a row's text (site_row__pieces). */
#define SITE_ROW_PIECES 4

/* The row's text as whole strings to concatenate (site, then the tail's); num holds the
 * caller number "N ". Returns how many, at most SITE_ROW_PIECES. */
size_t site_row__pieces(const struct site_row *r, const char **pc, char num[16]);

/* A new string: the row's text (with_site) or its tail's alone. NULL on ENOMEM. */
char *site_row__text(const struct site_row *r, bool with_site);

#endif
